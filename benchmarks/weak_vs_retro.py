"""Benchmark: the alpha-beta weak solver against the retrograde strong solver, one run.

    python benchmarks/weak_vs_retro.py [--exact-budget S] [--samples N] [--skip-crosscheck]

Prints JSON with, measured on this machine in this run:

* ``retrograde``: seconds to build the full 5x5 database (``retro build``, warm
  compiled kernels), and the start's value read from it;
* ``alphabeta.start_who_wins``: seconds for ``retro solve`` to decide who wins
  from the standard start (target: under 60 s);
* ``alphabeta.exact_along_principal_line``: ``retro solve --exact`` on positions of
  the principal line, from the end back towards the start, each with a budget of
  ``--exact-budget`` seconds; it stops at the first position over budget. Proving
  the exact distance means proving that the loser cannot last one ply longer, a
  full-width search over the winner's alternatives: its cost grows about sevenfold
  every 4 plies here, so the start itself is out of reach of the budget;
* ``board_4x4``: both methods solving every table entry of 4x4 (both sides, every
  canonical placement and mask), and how many values agree;
* ``crosscheck``: ``retro crosscheck --samples N`` against the database just built
  (target: 10,000 positions in under 5 minutes).

Child processes run the commands so that each figure is a whole command's wall time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGETS = {"start_who_wins_seconds": 60.0, "crosscheck_10000_seconds": 300.0}


def retro(*args: str, timeout: float | None = None) -> tuple[str, float]:
    """Run ``retro ARGS``; its standard output and wall seconds."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "retro.cli", *args], capture_output=True,
                            text=True, timeout=timeout)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"weak_vs_retro: 'retro {' '.join(args)}' failed: {result.stderr.strip()}")
    return result.stdout, seconds


def exact_along_line(db_path: Path, budget: float, step: int) -> list[dict]:
    from retro import Position, open_database

    with open_database(db_path) as db:
        position = Position.start()
        line = db.line(position)
        positions = [position]
        for move in line:
            positions.append(positions[-1].play(move))
    runs = []
    for ply in range(len(line) - step, -1, -step):
        position = positions[ply]
        try:
            out, seconds = retro("solve", "--exact", "--json", str(position), timeout=budget)
        except subprocess.TimeoutExpired:
            runs.append({"ply": ply, "position": str(position), "finished": False,
                         "budget_seconds": budget})
            break
        answer = json.loads(out)
        runs.append({"ply": ply, "position": str(position), "finished": True,
                     "winner": answer["winner"], "plies_to_end": answer["plies"],
                     "database_plies_to_end": len(line) - ply,
                     "seconds": round(seconds, 2), "nodes": answer["stats"]["nodes"]})
    return runs


def every_4x4_entry(db_path: Path) -> dict:
    """Alpha-beta on every table entry of 4x4, against the database's values."""
    from retro import open_database
    from retro.alphabeta import musketeers_solver, plies_of
    from retro.games import ENEMY_SHIFT, MUSKETEER_SHIFT
    from retro.indexing import decode_many, indexer

    ix = indexer(4)
    masks = np.tile(np.arange(1 << ix.free, dtype=np.int64), ix.placement_count)
    placements = np.repeat(np.arange(ix.placement_count, dtype=np.int64), 1 << ix.free)
    musketeers, enemies = np.empty_like(masks), np.empty_like(masks)
    decode_many(placements, masks, ix, musketeers, enemies)
    side = np.concatenate([np.zeros_like(masks), np.ones_like(masks)])
    musketeers, enemies = np.concatenate([musketeers, musketeers]), np.concatenate([enemies, enemies])
    states = side | (musketeers << MUSKETEER_SHIFT) | (enemies << ENEMY_SHIFT)

    figures = {"positions": len(states)}
    for mode, exact in (("who_wins", False), ("exact", True)):
        solver = musketeers_solver(4, table_bits=24)
        solver.values(states[:1], exact=exact)  # compile outside the timing
        solver.clear()
        started = time.perf_counter()
        values = solver.values(states, exact=exact)
        figures[f"alphabeta_{mode}_seconds"] = round(time.perf_counter() - started, 2)
        figures[f"alphabeta_{mode}_nodes"] = solver.stats.nodes
        if exact:
            with open_database(db_path, in_memory=True) as db:
                musketeers_win, plies = db.probe_many((side, musketeers, enemies))
            mover_wins = values > 0
            ab_musketeers_win = np.where(side == 0, mover_wins, ~mover_wins)
            ab_plies = plies_of(values)
            figures["agree"] = int(np.sum((ab_musketeers_win == musketeers_win) & (ab_plies == plies)))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exact-budget", type=float, default=120.0, metavar="S",
                        help="seconds allowed to each exact solve on the principal line (default: 120)")
    parser.add_argument("--step", type=int, default=4, metavar="P",
                        help="plies between the principal-line positions solved exactly (default: 4)")
    parser.add_argument("--samples", type=int, default=10_000, metavar="N",
                        help="positions for the crosscheck (default: 10000)")
    parser.add_argument("--skip-crosscheck", action="store_true")
    args = parser.parse_args()

    from retro import Position
    from retro.build import positions_in_layers
    from retro.indexing import indexer

    start = str(Position.start())
    with tempfile.TemporaryDirectory() as scratch:
        # Warm the compiled caches, so that no figure includes compilation.
        retro("build", "--board", "3", "--out", f"{scratch}/3.h5", "--quiet", "--force")
        retro("solve", "--exact", str(Position.start(3)))
        db4 = Path(scratch) / "4.h5"
        _, build4 = retro("build", "--board", "4", "--out", str(db4), "--quiet", "--force")
        db5 = Path(scratch) / "5.h5"
        _, build5 = retro("build", "--out", str(db5), "--quiet", "--force")
        probe, _ = retro("probe", "--db", str(db5), "--json", start)
        out, who_wins = retro("solve", "--json", start)
        solved = json.loads(out)

        figures = {
            "retrograde": {
                "build_5x5_seconds": round(build5, 2),
                "positions": positions_in_layers(indexer(5), 0, indexer(5).free),
                "start": {k: json.loads(probe)[k] for k in ("winner", "plies")},
            },
            "alphabeta": {
                "start_who_wins": {"winner": solved["winner"], "seconds": round(who_wins, 2),
                                   "nodes": solved["stats"]["nodes"]},
                "exact_along_principal_line": exact_along_line(db5, args.exact_budget, args.step),
            },
            "ratio_start_who_wins_to_full_build": round(who_wins / build5, 3),
            "board_4x4": {"retrograde_build_seconds": round(build4, 2), **every_4x4_entry(db4)},
        }
        if not args.skip_crosscheck:
            out, seconds = retro("crosscheck", "--db", str(db5), "--samples", str(args.samples),
                                 "--json", "--quiet")
            report = json.loads(out)
            figures["crosscheck"] = {"samples": report["samples"], "distinct": report["distinct"],
                                     "seconds": round(seconds, 2),
                                     "disagreements": len(report["disagreements"])}
    figures["targets"] = TARGETS
    checks = [figures["alphabeta"]["start_who_wins"]["seconds"] < TARGETS["start_who_wins_seconds"]]
    if "crosscheck" in figures and args.samples == 10_000:
        checks.append(figures["crosscheck"]["seconds"] < TARGETS["crosscheck_10000_seconds"])
    figures["meets_targets"] = all(checks)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
