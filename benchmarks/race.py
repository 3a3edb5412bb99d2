"""Benchmark: the four-player race, both variants: build, verify, analyze and the report's
max^n tree, each command in a child process; JSON figures.

    python benchmarks/race.py [--rounds R]

For each variant: ``retro build --force`` (wall time and peak memory of the command,
the best of ``--rounds`` warm runs after one that may compile the kernels), the file's
size, ``retro verify``, ``retro analyze`` and ``retro solve --method maxn`` from the
start (the tree's states and the root vector as the command prints them).
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

GAME = "four-player-race"
START = "P1 a1 d1 d4 a4"


def timed(*args: str) -> tuple[float, float, str]:
    """(seconds, peak memory in MB, standard output) of ``retro ARGS`` in a child process."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "retro.cli", *args], check=True,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    # Children's ru_maxrss is the largest so far: each command is at most that.
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak, done.stdout


def variant_figures(variant: str, folder: Path, rounds: int) -> dict:
    out = folder / f"{GAME}{'-' + variant if variant else ''}.h5"
    which = ["--game", GAME] + (["--variant", variant] if variant else [])
    build = ["build", *which, "--out", str(out), "--force", "--quiet"]
    timed(*build)  # compiles the kernels on a fresh install
    runs = [timed(*build) for _ in range(rounds)]
    verify = min(timed("verify", str(out), "--quiet")[0] for _ in range(rounds))
    analyze_seconds, _, analysis = timed("analyze", str(out), "--json", "--quiet")
    tree_seconds, _, tree = timed("solve", "--method", "maxn", "--json", *which, START)
    report, maxn = json.loads(analysis), json.loads(tree)
    return {
        "variant": variant or "plain",
        "build_seconds": round(min(r[0] for r in runs), 3),
        "build_peak_memory_mb": round(max(r[1] for r in runs), 1),
        "file_bytes": out.stat().st_size,
        "positions": report["positions"],
        "verify_seconds": round(verify, 3),
        "analyze_seconds": round(analyze_seconds, 3),
        "start": report["start"]["values"],
        "reachable_from_start": report.get("reachable", {}).get("positions"),
        "forced_wins_per_player": {p: row["all"]["wins"] for p, row in report["players"].items()},
        "longest_forced_win": {p: row["longest_win"]["plies"] if row["longest_win"] else None
                               for p, row in report["players"].items()},
        "maxn": {"value": maxn["value"], "states": maxn["states"], "repeated": maxn["repeated"],
                 "seconds_in_command": round(tree_seconds, 3), "seconds_search": maxn["seconds"]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="warm runs of each command (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        figures = [variant_figures(v, Path(folder), args.rounds) for v in ("", "jump")]
    print(json.dumps({"game": GAME, "variants": figures}, indent=2))


if __name__ == "__main__":
    main()
