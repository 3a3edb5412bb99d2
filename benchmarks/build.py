"""Benchmark: build the full database of a board size and print JSON figures.

    python benchmarks/build.py [--board 5] [--threads T] [--out PATH] [--keep]

The build runs in a child process (``retro build --force``) so that its peak memory
is measured alone. A 3×3 build runs first to load or compile the jitted kernels, so
the figures are those of a warm install. Targets for 5×5 on the 2-core reference
machine: under 90 s, under 4 GB peak memory, a file under 350 MB.
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

TARGETS = {"seconds": 90.0, "peak_memory_mb": 4096.0, "file_mb": 350.0}


def retro(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "retro.cli", *args],
                          capture_output=True, text=True, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", type=int, default=5)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--out", type=Path, help="where to build (default: a temporary file)")
    parser.add_argument("--keep", action="store_true", help="keep the built file")
    args = parser.parse_args()

    from retro import games

    with tempfile.TemporaryDirectory() as scratch:
        retro("build", "--board", "3", "--out", f"{scratch}/warmup.h5", "--quiet", "--force")
        out = args.out or Path(scratch) / f"{args.board}x{args.board}.h5"
        command = ["build", "--board", str(args.board), "--out", str(out), "--quiet", "--force"]
        if args.threads:
            command += ["--threads", str(args.threads)]
        started = time.perf_counter()
        retro(*command)
        seconds = time.perf_counter() - started
        peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        file_bytes = out.stat().st_size
        if args.out and not args.keep:
            out.unlink()

    game = games.get("three-musketeers", f"{args.board}x{args.board}")
    positions = game.positions()
    figures = {
        "board": args.board,
        "positions": positions,
        "seconds": round(seconds, 2),
        "positions_per_second": round(positions / seconds),
        "peak_memory_mb": round(peak_kb / 1024, 1),
        "file_mb": round(file_bytes / 1e6, 1),
        "threads": args.threads,
    }
    if args.board == 5:
        figures["targets"] = TARGETS
        figures["meets_targets"] = all(figures[key] < limit for key, limit in TARGETS.items())
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
