"""Benchmark: verify and analyze the full database and print JSON figures.

    python benchmarks/verify.py [--db PATH] [--no-analyze]

Each run happens in a child process so that its peak memory is measured alone,
after a 3×3 warm-up in the same process (the figures are those of a warm
install). The verify time is compared with the build time recorded in the file
(``build_seconds``); the target is at most twice the build. The machine's load
average is printed too: on a shared machine both figures move with it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_RATIO = 2.0


def child(task: str, path: str) -> None:
    """Run one task after a warm-up; print its figures as JSON on stdout."""
    from retro.analyze.musketeers import analyze
    from retro.engine.build import build
    from retro.verify.musketeers import verify

    with tempfile.TemporaryDirectory() as scratch:
        small = build(3, Path(scratch) / "warmup.h5", progress=False).path
        verify(small, progress=False)
        analyze(small, progress=False)
    started = time.perf_counter()
    if task == "verify":
        report = verify(path, progress=False)
        extra = {"ok": report.ok, "positions_checked": report.positions_checked,
                 "disagreements": report.disagreement_count}
    else:
        report = analyze(path, progress=False)
        reach = report["reachable"]
        extra = {"reachable_share": reach["share"]["total"] if reach else None}
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_memory_mb": peak_mb, **extra}))


def run(task: str, path: Path) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", task, "--db", str(path)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        sys.exit(f"benchmarks/verify.py: error: the {task} run failed: {last}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("db/three-musketeers-5x5.h5"))
    parser.add_argument("--no-analyze", action="store_true", help="time verify only")
    parser.add_argument("--child", choices=("verify", "analyze"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, str(args.db))
        return

    from retro.db.format import DatabaseError, DatabaseFile

    try:
        db = DatabaseFile(args.db)
    except DatabaseError as error:
        sys.exit(f"benchmarks/verify.py: error: {error}")
    build_seconds = float(db.metadata["build_seconds"])
    size, max_enemy_men = db.size, db.max_enemy_men
    db.close()

    load_before = os.getloadavg()
    verified = run("verify", args.db)
    figures = {
        "database": str(args.db),
        "board": size,
        "max_enemy_men": max_enemy_men,
        "verify_seconds": round(verified["seconds"], 2),
        "verify_peak_memory_mb": round(verified["peak_memory_mb"], 1),
        "verify_ok": verified["ok"],
        "positions_checked": verified["positions_checked"],
        "build_seconds": build_seconds,
        "ratio": round(verified["seconds"] / build_seconds, 3),
        "target_ratio": TARGET_RATIO,
        "meets_target": verified["seconds"] <= TARGET_RATIO * build_seconds,
    }
    if not args.no_analyze:
        analyzed = run("analyze", args.db)
        figures["analyze_seconds"] = round(analyzed["seconds"], 2)
        figures["analyze_peak_memory_mb"] = round(analyzed["peak_memory_mb"], 1)
        figures["reachable_share"] = analyzed["reachable_share"]
    figures["load_average_before"] = [round(x, 2) for x in load_before]
    figures["cpus"] = os.cpu_count()
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
