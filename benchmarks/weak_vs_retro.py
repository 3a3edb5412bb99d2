"""Benchmark: the weak solvers (df-pn and alpha-beta) against the retrograde strong solver, one run.

    python benchmarks/weak_vs_retro.py [--exact-budget S] [--step P] [--samples N]
        [--random N] [--seed S] [--skip-crosscheck] [--skip-exact]

Prints JSON with, measured on this machine in this run:

* ``retrograde``: seconds to build the full 5x5 database (``retro build``, warm
  compiled kernels), and the start's value read from it;
* ``alphabeta.start_who_wins``: seconds for ``retro solve`` to decide who wins
  from the standard start (target: under 60 s);
* ``alphabeta.exact_along_principal_line``: the exact distance of positions of the
  principal line, from the end back towards the start (4, 8, 12, ... plies from the
  end, then the start), each with a budget of ``--exact-budget`` seconds; it stops at
  the first position over budget. The same runs as ``dfpn_vs_alphabeta.exact_reach``
  (each position solved in a fresh process, timed from after compilation);
* ``board_4x4``: alpha-beta solving every table entry of 4x4 (both sides, every
  canonical placement and mask), and how many values agree;
* ``crosscheck``: ``retro crosscheck --samples N`` against the database just built
  (target: 10,000 positions in under 5 minutes);
* ``dfpn_vs_alphabeta``, side by side, each method in its own process with its
  default table (512 MiB), compiled before any clock starts:

  - ``start``: seconds, nodes (df-pn: nodes expanded, and the positions its
    expansions generated; alpha-beta: nodes entered) and the process's peak
    resident memory to decide who wins from the start; for df-pn also the winning
    move and the proof tree's size (walked in the table afterwards, not timed in);
  - ``random_positions``: ``--random`` positions (default 200), each drawn uniformly
    from a game of random moves from the start (as ``retro crosscheck`` draws them),
    decided one after another by one solver whose table is kept (as in a
    crosscheck worker): median and maximum seconds and nodes per position, and how
    many agree with the database ``db/three-musketeers-5x5.h5`` (target: all);
  - ``exact_reach``: the exact distance along the principal line as above, for
    both methods with the same budget, and how far back each reached.

Targets for df-pn on this 2-core machine: the start decided in at most 10 s, at
most a quarter of alpha-beta's seconds and a tenth of its nodes in the same run, in
at most 2 GB; ``meets_targets`` says whether every target was met.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGETS = {"start_who_wins_seconds": 60.0, "crosscheck_10000_seconds": 300.0,
           "dfpn_start_seconds": 10.0, "dfpn_start_time_ratio": 0.25,
           "dfpn_start_node_ratio": 0.1, "dfpn_peak_memory_mb": 2048}
DATABASE = Path(__file__).resolve().parent.parent / "db" / "three-musketeers-5x5.h5"
METHODS = ("dfpn", "alphabeta")
WARM_UP = "M ....O ..X.. X.OXX XXXXX OXXXX"  # a small 5x5 search: compiles or loads the solver


def retro(*args: str, timeout: float | None = None) -> tuple[str, float]:
    """Run ``retro ARGS``; its standard output and wall seconds."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "retro.cli", *args], capture_output=True,
                            text=True, timeout=timeout)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"weak_vs_retro: 'retro {' '.join(args)}' failed: {result.stderr.strip()}")
    return result.stdout, seconds


# --- the child process: one method, one task --------------------------------------------


def _peak_mb() -> float:
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux: KiB


def child(method: str, task: str, positions: list[str]) -> None:
    """Solve ``positions`` by ``method``, printing one JSON line per position; a line
    ``ready`` first, once the solver is compiled and its table cleared."""
    from retro import Position
    from retro.search import games
    from retro.crosscheck import new_solver

    solver = new_solver(method, 5)  # the default 512 MiB table
    solver.value(games.musketeers_state(Position.parse(WARM_UP)), exact=task == "exact")
    solver.clear()
    print("ready", flush=True)
    for text in positions:
        state = games.musketeers_state(Position.parse(text))
        before = solver.stats
        started = time.perf_counter()
        value = solver.value(state, exact=task == "exact")
        seconds = time.perf_counter() - started
        after = solver.stats
        answer = {"position": text, "value": int(value), "seconds": round(seconds, 3),
                  "nodes": after.nodes - before.nodes}
        if method == "dfpn":
            answer["children"] = after.children - before.children
        if task == "start":
            answer["peak_memory_mb"] = _peak_mb()  # before anything but the decision
            if method == "dfpn":
                from retro.search.games import musketeers_move

                move = solver.winning_move(state)
                answer["winning_move"] = None if move is None else str(musketeers_move(move, 5))
                answer["table_entries"] = solver.table_entries()
                started = time.perf_counter()
                found = solver.proof(state)
                answer["proof_seconds"] = round(time.perf_counter() - started, 2)
                answer["proof_size"], answer["proof_depth"] = found if found else (None, None)
        print(json.dumps(answer), flush=True)


def run_child(method: str, task: str, positions: list[str],
              budget: float | None = None) -> tuple[list[dict], bool]:
    """Run :func:`child` in a fresh interpreter; its answers, and whether it finished
    within ``budget`` seconds counted from its ``ready`` line."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--child", method, task, *positions],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = process.stdout.readline().strip()
        if ready != "ready":
            process.kill()
            sys.exit(f"weak_vs_retro: the {method} child failed: {process.stderr.read().strip()}")
        try:
            out, err = process.communicate(timeout=budget)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return [], False
        if process.returncode != 0:
            sys.exit(f"weak_vs_retro: the {method} child failed: {err.strip()}")
        return [json.loads(line) for line in out.splitlines()], True
    finally:
        if process.poll() is None:
            process.kill()


# --- the figures --------------------------------------------------------------------------


def principal_line(db_path: Path) -> list:
    """The positions of the database's principal line of the start, start first."""
    from retro import Position, open_database

    with open_database(db_path) as db:
        return [Position.start()] + [after for _, after, _ in db.line_steps(Position.start())]


def exact_reach(line: list, method: str, budget: float, step: int) -> list[dict]:
    """The exact distance at ``step``, 2·``step``, ... plies from the end, then at the
    start, each in a fresh process, until one is over budget."""
    from retro.search.alphabeta import plies_of, winner_of

    plies = len(line) - 1
    runs = []
    for ply in [*range(plies - step, 0, -step), 0]:
        position = line[ply]
        answers, finished = run_child(method, "exact", [str(position)], budget)
        if not finished:
            runs.append({"ply": ply, "position": str(position), "finished": False,
                         "budget_seconds": budget})
            break
        answer = answers[0]
        value = answer["value"]
        runs.append({"ply": ply, "position": str(position), "finished": True,
                     "winner": winner_of(value, position.side).value,
                     "plies_to_end": plies_of(value), "database_plies_to_end": plies - ply,
                     "seconds": answer["seconds"], "nodes": answer["nodes"]})
    return runs


def random_positions(count: int, seed: int) -> list:
    from retro.crosscheck import game_positions

    return game_positions(5, count, np.random.default_rng(seed))


def side_by_side(line: list, args: argparse.Namespace, db_path: Path) -> dict:
    from retro import Position, open_database
    from retro.search.alphabeta import winner_of

    figures: dict = {"start": {}, "random_positions": {}, "exact_reach": {}}
    start = str(Position.start())
    for method in METHODS:
        answer = run_child(method, "start", [start])[0][0]
        answer["winner"] = winner_of(answer.pop("value"), Position.start().side).value
        del answer["position"]
        figures["start"][method] = answer
    dfpn, alphabeta = figures["start"]["dfpn"], figures["start"]["alphabeta"]
    figures["start"]["time_ratio"] = round(dfpn["seconds"] / alphabeta["seconds"], 3)
    figures["start"]["node_ratio"] = round(dfpn["nodes"] / alphabeta["nodes"], 4)

    sample = random_positions(args.random, args.seed)
    with open_database(db_path) as db:
        expected = [db.probe(p) for p in sample]
    for method in METHODS:
        answers, _ = run_child(method, "who", [str(p) for p in sample])
        agree = sum((a["value"] > 0) == (o.winner is p.side)
                    for a, o, p in zip(answers, expected, sample))
        seconds = [a["seconds"] for a in answers]
        nodes = [a["nodes"] for a in answers]
        figures["random_positions"][method] = {
            "positions": len(answers), "agree_with_database": agree,
            "median_seconds": round(statistics.median(seconds), 6), "max_seconds": max(seconds),
            "total_seconds": round(sum(seconds), 2),
            "median_nodes": int(statistics.median(nodes)), "max_nodes": max(nodes)}
    figures["random_positions"]["seed"] = args.seed

    if not args.skip_exact:
        for method in METHODS:
            runs = exact_reach(line, method, args.exact_budget, args.step)
            reached = [r for r in runs if r["finished"] and r["plies_to_end"] == r["database_plies_to_end"]]
            figures["exact_reach"][method] = {
                "reached_plies_from_end": max((r["database_plies_to_end"] for r in reached), default=0),
                "runs": runs}
        figures["exact_reach"]["budget_seconds"] = args.exact_budget
    return figures


def every_4x4_entry(db_path: Path) -> dict:
    """Alpha-beta on every table entry of 4x4, against the database's values."""
    from retro import open_database
    from retro.search.alphabeta import musketeers_solver, plies_of
    from retro.search.games import ENEMY_SHIFT, MUSKETEER_SHIFT
    from retro.games.musketeers.index import decode_many, indexer

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
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], sys.argv[4:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exact-budget", type=float, default=120.0, metavar="S",
                        help="seconds allowed to each exact solve on the principal line (default: 120)")
    parser.add_argument("--step", type=int, default=4, metavar="P",
                        help="plies between the principal-line positions solved exactly (default: 4)")
    parser.add_argument("--samples", type=int, default=10_000, metavar="N",
                        help="positions for the crosscheck (default: 10000)")
    parser.add_argument("--random", type=int, default=200, metavar="N",
                        help="random-play positions decided by both weak solvers (default: 200)")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="seed of the random-play positions (default: 0)")
    parser.add_argument("--skip-crosscheck", action="store_true")
    parser.add_argument("--skip-exact", action="store_true",
                        help="skip the exact distances along the principal line (the slowest part)")
    args = parser.parse_args()

    from retro import Position
    from retro import games

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
        out, who_wins = retro("solve", "--method", "alphabeta", "--json", start)
        solved = json.loads(out)
        line = principal_line(db5)
        weak = side_by_side(line, args, DATABASE if DATABASE.exists() else db5)

        figures = {
            "retrograde": {
                "build_5x5_seconds": round(build5, 2),
                "positions": games.get().positions(),
                "start": {k: json.loads(probe)[k] for k in ("winner", "plies")},
            },
            "alphabeta": {
                "start_who_wins": {"winner": solved["winner"], "seconds": round(who_wins, 2),
                                   "nodes": solved["stats"]["nodes"]},
                "exact_along_principal_line": weak["exact_reach"].get("alphabeta", {}).get("runs", []),
            },
            "ratio_start_who_wins_to_full_build": round(who_wins / build5, 3),
            "board_4x4": {"retrograde_build_seconds": round(build4, 2), **every_4x4_entry(db4)},
            "dfpn_vs_alphabeta": weak,
        }
        if not args.skip_crosscheck:
            out, seconds = retro("crosscheck", "--db", str(db5), "--samples", str(args.samples),
                                 "--json", "--quiet")
            report = json.loads(out)
            figures["crosscheck"] = {"method": report["method"], "samples": report["samples"],
                                     "distinct": report["distinct"],
                                     "seconds": round(seconds, 2),
                                     "disagreements": len(report["disagreements"])}
    figures["targets"] = TARGETS
    dfpn, ratio = weak["start"]["dfpn"], weak["start"]
    checks = {
        "alphabeta_start": figures["alphabeta"]["start_who_wins"]["seconds"] < TARGETS["start_who_wins_seconds"],
        "dfpn_start_seconds": dfpn["seconds"] <= TARGETS["dfpn_start_seconds"],
        "dfpn_start_time_ratio": ratio["time_ratio"] <= TARGETS["dfpn_start_time_ratio"],
        "dfpn_start_node_ratio": ratio["node_ratio"] <= TARGETS["dfpn_start_node_ratio"],
        "dfpn_peak_memory": dfpn["peak_memory_mb"] <= TARGETS["dfpn_peak_memory_mb"],
        "random_positions_agree": all(
            weak["random_positions"][m]["agree_with_database"] == weak["random_positions"][m]["positions"]
            == args.random for m in METHODS),
        "start_winner": dfpn["winner"] == figures["retrograde"]["start"]["winner"],
    }
    if "crosscheck" in figures and args.samples == 10_000:
        checks["crosscheck"] = figures["crosscheck"]["seconds"] < TARGETS["crosscheck_10000_seconds"]
    figures["checks"] = checks
    figures["meets_targets"] = all(checks.values())
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
