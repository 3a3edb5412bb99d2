"""Benchmark: random games through the Python API (``legal_moves``, then ``play``); JSON.

    python benchmarks/walk.py [--games NAME ...] [--plies N] [--seed S]

For each game (default: tic-tac-toe, teeko, dobutsu), games from the start, each ply a
move chosen at random among ``legal_moves()`` and played, a new game when one ends or
after 200 plies, until ``--plies`` plies (default 20,000) are played: the microseconds
a ply takes (listing the moves and playing one), what a learning agent's environment
or a front end pays per move. The first game runs before the clock starts (imports,
compiled kernels read from numba's cache).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time

from retro import games

LONGEST = 200  # plies of one game at most (games that never end)


def walk(game, plies: int, seed: int) -> int:
    """Play ``plies`` random plies from the start; returns the games begun."""
    rng = random.Random(seed)
    played = begun = 0
    while played < plies:
        position, length = game.start(), 0
        begun += 1
        while not position.is_over() and length < LONGEST and played < plies:
            position = position.play(rng.choice(position.legal_moves()))
            length += 1
            played += 1
    return begun


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["tic-tac-toe", "teeko", "dobutsu"])
    parser.add_argument("--plies", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.plies < 1:
        parser.error(f"--plies must be 1 or more, not {args.plies}")
    try:
        chosen = [games.get(name) for name in args.games]
    except games.UnknownGameError as error:
        parser.error(str(error))
    results = []
    for game in chosen:
        walk(game, 200, args.seed)  # warm: imports, kernels
        started = time.perf_counter()
        begun = walk(game, args.plies, args.seed)
        seconds = time.perf_counter() - started
        results.append({"game": game.full_name, "plies": args.plies, "games": begun,
                        "seconds": round(seconds, 3), "us_per_ply": round(seconds / args.plies * 1e6, 1)})
    print(json.dumps({"load_average": os.getloadavg()[0], "results": results}))


if __name__ == "__main__":
    main()
