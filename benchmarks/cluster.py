"""Benchmark: a build single-process and on a Dask LocalCluster, in one run; JSON figures.

    python benchmarks/cluster.py [--pieces 6] [--stage moving] [--workers 2] [--threads 1]

Nine men's morris with ``--pieces`` stones a side (default 6; ``--stage moving``: its
moving phase only) is built twice into a temporary folder: in this process, then on a
LocalCluster of ``--workers`` processes with ``--threads`` numba threads each. Reported:
each build's wall time, the single build's peak memory, each worker's largest task
peak, whether the two databases hold the same values (content digest), and the
critical path of the tier graph: the longest chain of dependent tiers, in tiers and in
the single build's own seconds per tier, the ceiling on the speed-up that more
machines can give.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import h5py


def critical_path(game, tiers, seconds: dict) -> dict:
    """The longest chain of dependent tiers: by count and by the seconds each took."""
    longest: dict = {}
    for tier in tiers:  # children come first
        children = [c for c in game.child_tiers(tier) if c in longest]
        best = max(children, key=lambda c: longest[c][1], default=None)
        count, time_, chain = (0, 0.0, []) if best is None else longest[best]
        longest[tier] = (count + 1, time_ + seconds.get(tier, 0.0), chain + [tier])
    end = max(longest, key=lambda t: longest[t][1])
    count, total, chain = longest[end]
    return {"tiers": count, "seconds": round(total, 3), "chain": [game.tier_name(t) for t in chain],
            "all_tiers_seconds": round(sum(seconds.values()), 3)}


def tier_seconds(path: Path) -> dict:
    """The seconds the build recorded for each tier."""
    from retro.db.format import DatabaseFile

    out = {}
    file = DatabaseFile(path)
    try:
        for tier in file.tiers:
            out[tier] = float(file.dataset(tier).attrs.get("seconds", 0.0))
    finally:
        file.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", default="6")
    parser.add_argument("--stage", default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    from retro import games
    from retro.db.format import DatabaseFile
    from retro.engine.build import build

    game = games.get("nine-mens-morris", args.pieces)
    with tempfile.TemporaryDirectory(dir=".") as folder:
        folder = Path(folder)
        started = time.perf_counter()
        single = build(game, folder / "single.h5", stage=args.stage, threads=args.workers * args.threads,
                       progress=False)
        single_seconds = time.perf_counter() - started
        with h5py.File(single.path, "r") as f:
            single_peak = int(f.attrs.get("peak_rss_bytes", 0))
        started = time.perf_counter()
        clustered = build(game, folder / "cluster.h5", stage=args.stage, cluster="local",
                          workers=args.workers, threads=args.threads, progress=False)
        cluster_seconds = time.perf_counter() - started
        peaks: dict = {}
        for report in clustered.tasks:
            peaks[report["worker"]] = max(peaks.get(report["worker"], 0), report["peak_rss_bytes"] or 0)
        seconds = tier_seconds(single.path)
        same = DatabaseFile(single.path).content_digest() == DatabaseFile(clustered.path).content_digest()
        print(json.dumps({
            "game": game.full_name, "stage": args.stage, "tiers": len(single.tiers),
            "positions": single.positions,
            "single_process": {"seconds": round(single_seconds, 3), "threads": args.workers * args.threads,
                               "peak_rss_bytes": single_peak},
            "local_cluster": {"seconds": round(cluster_seconds, 3), "workers": args.workers,
                              "threads_per_worker": args.threads,
                              "largest_task_peak_rss_bytes_per_worker": peaks},
            "same_values": same,
            "critical_path": critical_path(game, list(single.tiers), seconds),
        }, indent=2))


if __name__ == "__main__":
    main()
