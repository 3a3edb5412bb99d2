"""The chess endgame kernels' speed, as JSON: legal moves generated per second (children
written by ``moves``) on random legal 5-piece positions (the kings and three of Q R B N P
of either side, pawns on ranks 2..7, either side to move), one thread; and the same
positions' ``outcome`` and ``unmoves`` per second; and a scan's start, ``outcome`` then
``moves``, against the one call ``outcome_moves`` that replaces them, and
``outcome_moves_quiet`` (the scan's: the moves it need not rank counted, not written);
and ``unmoves_moved`` (the solver's un-moves: the same parents as moved pieces).
Compiling is left out (a first call before the clock).

    python benchmarks/chess_rules.py [--positions N] [--seconds S] [--seed K]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time

import numpy as np
from numba import njit

from retro.games.chess import fen, rules
from retro.games.kit import ILLEGAL, OPEN


@njit
def _all_rows(kernel, masks, tiers, consts, out):
    """The rows ``kernel`` (``moves``, ``unmoves``, ``unmoves_moved``) writes for every position."""
    total = 0
    for i in range(masks.shape[0]):
        total += kernel(masks[i], tiers[i], consts, out)
    return total


@njit
def _all_outcomes(masks, tiers, consts):
    total = 0
    for i in range(masks.shape[0]):
        total += rules.outcome(masks[i], tiers[i], consts)
    return total


@njit
def _all_apart(masks, tiers, consts, out):
    total = 0
    for i in range(masks.shape[0]):
        if rules.outcome(masks[i], tiers[i], consts) == OPEN:
            total += rules.moves(masks[i], tiers[i], consts, out)
    return total


@njit
def _all_outcome_moves(masks, tiers, consts, out):
    total = 0
    for i in range(masks.shape[0]):
        total += rules.outcome_moves(masks[i], tiers[i], consts, out)[1]
    return total


@njit
def _all_outcome_moves_quiet(masks, tiers, consts, out):
    total = 0
    for i in range(masks.shape[0]):
        code, n, counted = rules.outcome_moves_quiet(masks[i], tiers[i], consts, out)
        total += n + counted
    return total


def positions(count: int, seed: int, consts) -> tuple[np.ndarray, np.ndarray]:
    """``count`` random legal 5-piece positions: their masks and tiers (counts, no
    en-passant state)."""
    rng = random.Random(seed)
    masks, tiers = [], []
    while len(masks) < count:
        board = [0] * 64
        squares = rng.sample(range(64), 5)
        board[squares[0]], board[squares[1]] = 1, 7  # the kings
        for sq in squares[2:]:
            kind = rng.randrange(1, 6)  # Q R B N P
            if kind == 5:
                sq = 8 * rng.randrange(1, 7) + sq % 8
                if board[sq]:
                    break
            board[sq] = kind + 1 + 6 * rng.randrange(2)
        if sum(1 for c in board if c) != 5:
            continue
        side = rng.randrange(2)
        cells = fen.stored(side, board)
        m = np.zeros(rules.WIDTH, dtype=np.int64)  # no en-passant state: kind 13 empty
        m[:13] = fen.masks(cells)
        tier = np.array([cells.count(k) for k in range(1, 13)] + [0], dtype=np.int64)
        if rules.outcome(m, tier, consts) != ILLEGAL:
            masks.append(m)
            tiers.append(tier)
    return np.array(masks), np.array(tiers)


def rate(run, seconds: float) -> tuple[float, int, int]:
    """Calls per second of ``run`` (repeated for at least ``seconds``), its result, the calls."""
    result = run()  # compiled, warm
    calls, started = 0, time.perf_counter()
    while True:
        result = run()
        calls += 1
        elapsed = time.perf_counter() - started
        if elapsed >= seconds:
            return calls / elapsed, result, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20000)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    consts = rules.tables()
    masks, tiers = positions(args.positions, args.seed, consts)
    out = np.empty((256, rules.WIDTH), dtype=np.int64)
    n = len(masks)
    moves_rate, children, _ = rate(lambda: _all_rows(rules.moves, masks, tiers, consts, out), args.seconds)
    unmoves_rate, parents, _ = rate(lambda: _all_rows(rules.unmoves, masks, tiers, consts, out), args.seconds)
    outcome_rate, _, _ = rate(lambda: _all_outcomes(masks, tiers, consts), args.seconds)
    apart_rate, apart, _ = rate(lambda: _all_apart(masks, tiers, consts, out), args.seconds)
    fused_rate, fused, _ = rate(lambda: _all_outcome_moves(masks, tiers, consts, out), args.seconds)
    quiet_rate, quiet, _ = rate(lambda: _all_outcome_moves_quiet(masks, tiers, consts, out), args.seconds)
    moved_rate, moved, _ = rate(lambda: _all_rows(rules.unmoves_moved, masks, tiers, consts, out), args.seconds)
    assert apart == fused == quiet and moved == parents
    print(json.dumps({
        "benchmark": "chess endgame rules (retro.games.chess.rules), one thread",
        "command": f"python benchmarks/chess_rules.py --positions {args.positions} --seconds {args.seconds} "
                   f"--seed {args.seed}",
        "positions": n, "pieces": 5,
        "moves_per_position": round(children / n, 2),
        "moves_per_second": round(moves_rate * children),
        "positions_expanded_per_second": round(moves_rate * n),
        "unmoves_per_position": round(parents / n, 2),
        "unmoves_per_second": round(unmoves_rate * parents),
        "outcomes_per_second": round(outcome_rate * n),
        "outcome_then_moves_positions_per_second": round(apart_rate * n),
        "outcome_moves_positions_per_second": round(fused_rate * n),
        "outcome_moves_quiet_positions_per_second": round(quiet_rate * n),
        "unmoves_moved_per_second": round(moved_rate * moved),
        "machine": {"cpus": os.cpu_count(), "processor": platform.processor() or platform.machine(),
                    "python": platform.python_version()},
    }, indent=2))


if __name__ == "__main__":
    main()
