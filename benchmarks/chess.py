"""Chess endgame tables: a build's time, memory and size, table by table, and probes.

``python benchmarks/chess.py --pieces 4`` builds every table of up to 4 pieces (``--material
KRPvKR``: that table and every table it leads into) into a new file, with the kernels
compiled first by a build of the 3-piece tables (so that the time is the solve's), and
prints JSON: the wall and CPU seconds, the peak resident memory, the file's bytes, and
each table's positions (both sides to move, every symmetric image), seconds and
positions per second. ``--probes N`` then times N probes of positions of random
tables through ``retro.chess.open_tablebase`` (the file opened anew: each probe reads
and decompresses the chunk its entry lies in unless an earlier probe read it), the
median and the 99th percentile in milliseconds. ``--keep PATH`` keeps the file there.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import tempfile
import time
from pathlib import Path

import h5py
import numpy as np

from retro import games
from retro.db.format import dataset_path
from retro.engine.build import build


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def probe_times(path: Path, game, count: int, seed: int = 1) -> dict:
    import retro.chess

    rng = random.Random(seed)
    positions = []
    tiers = game.tiers()
    while len(positions) < count:
        tier = rng.choice(tiers)
        position = game.position_at(tier, rng.randrange(game.tier_size(tier)))
        if position is not None:
            positions.append(str(position))
    times = []
    with retro.chess.open_tablebase(path) as tablebase:
        for fen in positions:
            began = time.perf_counter()
            tablebase.probe_dtm(fen)
            times.append(time.perf_counter() - began)
    ms = np.array(times) * 1000
    return {"probes": count, "median_ms": round(float(np.median(ms)), 3),
            "p99_ms": round(float(np.percentile(ms, 99)), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--pieces", choices=("3", "4", "5"), default=None)
    which.add_argument("--material", metavar="TABLE")
    parser.add_argument("--probes", type=int, default=0)
    parser.add_argument("--keep", type=Path, metavar="PATH")
    args = parser.parse_args()
    game = games.get("chess", args.material or args.pieces or "4")
    with tempfile.TemporaryDirectory(prefix="retro-chess-") as folder:
        build(games.get("chess", "3"), Path(folder) / "warm.h5", progress=False)  # compile the kernels
        out = args.keep or Path(folder) / f"{game.file_stem}.h5"
        wall, cpu = time.perf_counter(), _cpu()
        summary = build(game, out, progress=False, force=True)
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
        tables = []
        with h5py.File(out, "r") as f:
            for tier in game.tiers():
                seconds = float(f[dataset_path(game, tier)].attrs.get("seconds", 0.0))
                positions = game.positions_in(tier)
                tables.append({"table": game.tier_name(tier), "entries": game.tier_size(tier), "positions": positions,
                               "seconds": round(seconds, 3),
                               "positions_per_second": round(positions / seconds) if seconds else None})
        report = {"set": game.variant, "tables": len(tables), "positions": summary.positions,
                  "wall_seconds": round(wall, 1), "cpu_seconds": round(cpu, 1),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                  "file_bytes": out.stat().st_size, "per_table": tables}
        if args.probes:
            report["probe"] = probe_times(out, game, args.probes)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
