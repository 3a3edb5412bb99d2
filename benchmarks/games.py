"""Benchmark: build and verify every small game, and the loopy solver's rate; JSON figures.

    python benchmarks/games.py [--games NAME ...] [--rounds R]

For each game (default: tic-tac-toe, both three men's morris variants, six men's
morris): ``retro build --force`` and ``retro verify`` in child processes, so that the
wall time and peak memory are the command's alone (a first build of each compiles the
kernels; the figures are the best of ``--rounds`` warm runs), the file's size, the
positions per second. Then, in this process, the engine's work tier by tier without
any file (expansion: the game's move generation and index; solving: the retrograde
solver of loopy tiers or the one pass of acyclic ones), with the moves per second, and
from the loopy tiers of six men's morris a prediction for nine men's morris's moving
phase (about 9e9 positions up to symmetry in 28 sectors; the largest, 8 against 8,
about 6e8).

Targets on the 2-core reference machine: three men's morris <= 1 s; six men's morris,
every position, <= 5 s and <= 1 GB, a file <= 2 MB.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

from retro.values import draw_value, preference_keys, value_of_best_key

GAMES = ["tic-tac-toe", "three-mens-morris", "three-mens-morris-diagonal", "six-mens-morris"]
TARGETS = {"three-mens-morris": {"seconds": 1.0}, "three-mens-morris-diagonal": {"seconds": 1.0},
           "six-mens-morris": {"seconds": 5.0, "peak_memory_mb": 1024.0, "file_mb": 2.0}}
NINE_MENS_MORRIS = {"moving_phase_positions": 9e9, "largest_sector_positions": 6e8}


def timed(*args: str) -> tuple[float, float]:
    """(seconds, peak memory in MB) of ``retro ARGS`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "retro.cli", *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest so far: a later, smaller child shows the earlier.
    return seconds, max(peak, before) / 1024


def engine_work(name: str) -> dict:
    """The engine's work per tier, without files: expansion and solving, timed apart."""
    from retro import games
    from retro.engine import solvers
    from retro.engine.retrograde import solve_loopy

    game = games.get(name)
    values: dict = {}
    totals = {"positions": 0, "entries": 0, "moves": 0, "expand_seconds": 0.0, "solve_seconds": 0.0}
    loopy = {"entries": 0, "moves": 0, "expand_seconds": 0.0, "solve_seconds": 0.0,
             "value_iteration_seconds": 0.0, "value_iteration_sweeps": 0}
    for tier in game.tiers():
        started = time.perf_counter()
        expansion = game.expand(tier)
        expanded = time.perf_counter()
        dtype = np.dtype(game.value_dtype).type
        flat, offsets = solvers.child_values(expansion, values, dtype)
        if game.loopy(tier):
            result = solve_loopy(expansion, flat, offsets, dtype)
        else:
            result = np.empty(expansion.size, dtype=dtype)
            solvers.solve_acyclic(expansion.side, expansion.finished, expansion.starts,
                                  expansion.child_tier, expansion.child_entry, flat, offsets,
                                  preference_keys(dtype), value_of_best_key(dtype), result)
        solved = time.perf_counter()
        if game.loopy(tier):  # the alternative, on the same expansion: timed apart, compared
            other = np.empty(expansion.size, dtype=dtype)
            sweeps = value_iteration(expansion.side, expansion.finished, expansion.starts,
                                     expansion.child_tier, expansion.child_entry, flat, offsets,
                                     draw_value(dtype), other)
            loopy["value_iteration_seconds"] += time.perf_counter() - solved
            loopy["value_iteration_sweeps"] = max(loopy["value_iteration_sweeps"], sweeps)
            if not np.array_equal(other, result):
                raise SystemExit(f"value iteration and the retrograde solver differ on {tier}")
        values[tier] = result
        totals["positions"] += game.positions_in(tier)
        for bucket in ((totals, loopy) if game.loopy(tier) else (totals,)):
            bucket["entries"] += expansion.size
            bucket["moves"] += expansion.edges
            bucket["expand_seconds"] += expanded - started
            bucket["solve_seconds"] += solved - expanded
    seconds = totals["expand_seconds"] + totals["solve_seconds"]
    out = {**{k: round(v, 3) if isinstance(v, float) else v for k, v in totals.items()},
           "entries_per_second": round(totals["entries"] / seconds),
           "moves_per_second": round(totals["moves"] / seconds)}
    if loopy["entries"]:
        loopy_seconds = loopy["expand_seconds"] + loopy["solve_seconds"]
        out["loopy_tiers"] = {**{k: round(v, 3) if isinstance(v, float) else v for k, v in loopy.items()},
                              "retrograde_over_value_iteration": round(
                                  loopy["solve_seconds"] / loopy["value_iteration_seconds"], 3)
                              if loopy["value_iteration_seconds"] else None,
                              "entries_per_second": round(loopy["entries"] / loopy_seconds),
                              "moves_per_second": round(loopy["moves"] / loopy_seconds),
                              "moves_per_entry": round(loopy["moves"] / loopy["entries"], 2)}
    return out


@njit(cache=True)
def value_iteration(side, finished, starts, child_tier, child_entry, flat, offsets, draw, out):
    """The alternative to the retrograde solver, for the measurement only: a sweep per
    level over every undecided entry, each reading all its children (no parent lists)."""
    n = len(side)
    level_of = np.full(n, -1, dtype=np.int64)
    outside = 0  # the longest distance out of the tier: levels up to it may still decide
    for i in range(n):
        out[i] = draw
        if finished[i] >= 0:
            out[i] = finished[i]
            level_of[i] = 0 if finished[i] != draw else -1
        for e in range(starts[i], starts[i + 1]):
            if child_tier[e] != 0:
                child = flat[offsets[child_tier[e]] + child_entry[e]]
                if child != draw and (child >> 1) + 1 > outside:
                    outside = (child >> 1) + 1
    level = 1
    changed = True
    sweeps = 0
    while changed or level <= outside:
        changed = False
        sweeps += 1
        for i in range(n):
            if level_of[i] >= 0 or finished[i] >= 0:
                continue
            mover = side[i]
            win = False
            all_won = True
            longest = -1
            for e in range(starts[i], starts[i + 1]):
                if child_tier[e] == 0:
                    j = child_entry[e]
                    if level_of[j] < 0 or level_of[j] >= level:
                        all_won = False
                        continue
                    child = out[j]
                else:
                    child = flat[offsets[child_tier[e]] + child_entry[e]]
                    if child == draw:
                        all_won = False
                        continue
                plies = child >> 1
                if (0 if child & 1 else 1) == mover:
                    if plies == level - 1:
                        win = True
                    all_won = False
                elif plies > longest:
                    longest = plies
            if win:
                out[i] = 2 * level + (1 if mover == 0 else 0)
                level_of[i] = level
                changed = True
            elif all_won and longest == level - 1:
                out[i] = 2 * level + (1 if mover == 1 else 0)
                level_of[i] = level
                changed = True
        level += 1
    return sweeps


def nine_mens_morris(loopy: dict) -> dict:
    """What the loopy rate measured on six men's morris predicts for nine men's morris."""
    rate = loopy["entries_per_second"]
    # Nine men's morris has more moves per position (24 points, up to 9 pieces a side):
    # scale by moves, the solver's work being linear in positions plus moves.
    moves_per_entry = 2 * loopy["moves_per_entry"]  # a guess: twice six men's, stated
    entries_per_second = loopy["moves_per_second"] / moves_per_entry
    largest = NINE_MENS_MORRIS["largest_sector_positions"]
    # Memory of the explicit graph: per move a child entry (8 bytes) and a parent (8),
    # per position a counter, a value and bookkeeping (~40 bytes).
    graph_bytes = largest * (moves_per_entry * 16 + 40)
    return {
        "assumed_moves_per_position": moves_per_entry,
        "predicted_hours_moving_phase": round(NINE_MENS_MORRIS["moving_phase_positions"] / entries_per_second / 3600, 1),
        "predicted_hours_largest_sector": round(largest / entries_per_second / 3600, 2),
        "largest_sector_graph_gb": round(graph_bytes / 1e9),
        "measured_loopy_entries_per_second": rate,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=GAMES)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    figures: dict = {}
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.games:
            out = Path(scratch) / f"{name}.h5"
            timed("build", "--game", name, "--out", str(out), "--quiet", "--force")  # compiles
            builds = [timed("build", "--game", name, "--out", str(out), "--quiet", "--force")
                      for _ in range(args.rounds)]
            verifies = [timed("verify", str(out), "--quiet") for _ in range(args.rounds)]
            from retro import games

            game = games.get(name)
            positions = sum(game.positions_in(t) for t in game.tiers())
            seconds = min(s for s, _ in builds)
            entry = {
                "positions": positions,
                "build_seconds": round(seconds, 3),
                "build_seconds_all": [round(s, 3) for s, _ in builds],
                "positions_per_second": round(positions / seconds),
                "peak_memory_mb": round(max(m for _, m in builds), 1),
                "file_mb": round(out.stat().st_size / 1e6, 3),
                "verify_seconds": round(min(s for s, _ in verifies), 3),
                "engine": engine_work(name),
            }
            targets = TARGETS.get(name)
            if targets:
                measured = {"seconds": seconds, "peak_memory_mb": entry["peak_memory_mb"],
                            "file_mb": entry["file_mb"]}
                entry["targets"] = targets
                entry["meets_targets"] = all(measured[k] <= v for k, v in targets.items())
            figures[name] = entry
    six = figures.get("six-mens-morris")
    if six and "loopy_tiers" in six["engine"]:
        figures["nine_mens_morris_prediction"] = nine_mens_morris(six["engine"]["loopy_tiers"])
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
