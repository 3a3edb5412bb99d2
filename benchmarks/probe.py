"""Benchmark: probing the database, on disk and in memory; prints JSON figures.

    python benchmarks/probe.py [--db PATH] [--batch N] [--disk-batch N] [--seed S]

Positions are drawn uniformly from all positions of the board: three musketeer
squares, each other square an enemy man with probability 1/2, either side to move
(on an endgame database, men are taken off until the position is in its layers).
Figures:

* ``warm_probe_us``: one ``db.probe`` on disk when its chunks are already in retro's
  chunk cache (mean over repeated rounds of 100 positions), by side to move;
* ``cold_chunk_probe_us``: one ``db.probe`` on disk whose chunks are not in the cache
  (median; the file itself is in the operating system's page cache), by side: an
  enemy-to-move probe reads one chunk, a musketeers-to-move probe one per capture
  (null when no probe read a chunk: a small file is soon all cached);
* ``load_seconds``: ``open_database(path, in_memory=True)``, the whole table;
* ``in_memory_batch_probes_per_second``: ``db.probe_many((side, musketeers,
  enemies))`` over ``--batch`` positions (best of three runs, and the median);
* ``on_disk_batch_probes_per_second``: the same on disk for a smaller batch.

Targets on the 2-core reference machine: warm probe under 50 µs, in-memory batch at
least 5 million probes per second, full load under 15 seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numba
import numpy as np

TARGETS = {"warm_probe_us": 50.0, "in_memory_batch_probes_per_second": 5e6, "load_seconds": 15.0}


def random_positions(n: int, count: int, rng: np.random.Generator, max_enemy_men: int | None = None):
    """(side, musketeers, enemies) arrays of uniformly drawn positions.

    With ``max_enemy_men`` (an endgame database) men are taken off, lowest square
    first, until no position has more: the figures are then for that file's layers.
    """
    squares = n * n
    picks = rng.random((count, squares)).argsort(axis=1)[:, :3]
    musketeers = np.zeros(count, dtype=np.int64)
    for j in range(3):
        musketeers |= np.int64(1) << picks[:, j]
    enemies = rng.integers(0, 1 << squares, count, dtype=np.int64) & ~musketeers
    if max_enemy_men is not None and max_enemy_men < squares - 3:
        while True:
            men = np.unpackbits(enemies.view(np.uint8)).reshape(count, 64).sum(axis=1)
            over = men > max_enemy_men
            if not over.any():
                break
            enemies[over] &= enemies[over] - 1
    sides = rng.integers(0, 2, count, dtype=np.int64)
    return sides, musketeers, enemies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("db/three-musketeers-5x5.h5"))
    parser.add_argument("--batch", type=int, default=4_000_000, help="in-memory batch size")
    parser.add_argument("--disk-batch", type=int, default=50_000, help="on-disk batch size")
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()

    from retro import Position, Side, open_database

    rng = np.random.default_rng(args.seed)
    with open_database(args.db) as db:
        n, top = db.size, db.max_enemy_men
        # Load the compiled kernels before anything is timed.
        sides, ms, es = random_positions(n, 10, rng, top)
        db.probe(Position(Side.from_code(int(sides[0])), int(ms[0]), int(es[0]), n))
        db.probe_many((sides, ms, es))

    def as_positions(arrays):
        return [Position(Side.from_code(int(s)), int(m), int(e), n) for s, m, e in zip(*arrays)]

    # Cold: a fresh database, so no chunk is in retro's cache.
    cold = {}
    with open_database(args.db) as db:
        for side_name, code in (("enemy", 1), ("musketeers", 0)):
            sides, ms, es = random_positions(n, 150, rng, top)
            times = []
            for p in as_positions((np.full(150, code), ms, es)):
                before = db.chunk_reads
                started = time.perf_counter()
                db.probe(p)
                elapsed = time.perf_counter() - started
                if db.chunk_reads > before:  # count only probes that did read
                    times.append(elapsed)
            # A small file may be all cached before any probe of this side reads.
            cold[side_name] = round(statistics.median(times) * 1e6, 1) if times else None

    # Warm: the same 100 positions probed over and over from the chunk cache.
    warm = {}
    with open_database(args.db) as db:
        for side_name, code in (("enemy", 1), ("musketeers", 0), ("mixed", None)):
            sides, ms, es = random_positions(n, 100, rng, top)
            if code is not None:
                sides = np.full(100, code)
            positions = as_positions((sides, ms, es))
            for p in positions:
                db.probe(p)
            reads = db.chunk_reads
            rounds = 50
            started = time.perf_counter()
            for _ in range(rounds):
                for p in positions:
                    db.probe(p)
            elapsed = time.perf_counter() - started
            assert db.chunk_reads == reads, "the warm set does not fit the chunk cache"
            warm[side_name] = round(elapsed / (rounds * len(positions)) * 1e6, 2)

        sides, ms, es = random_positions(n, args.disk_batch, rng, top)
        started = time.perf_counter()
        db.probe_many((sides, ms, es))
        disk_rate = args.disk_batch / (time.perf_counter() - started)

    started = time.perf_counter()
    db = open_database(args.db, in_memory=True)
    load_seconds = time.perf_counter() - started
    with db:
        batch = random_positions(n, args.batch, rng, top)
        db.probe_many(tuple(a[:1000] for a in batch))
        rates = []
        for _ in range(3):
            started = time.perf_counter()
            db.probe_many(batch)
            rates.append(args.batch / (time.perf_counter() - started))

    figures = {
        "db": str(args.db),
        "threads": numba.get_num_threads(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "warm_probe_us": warm,
        "cold_chunk_probe_us": cold,
        "load_seconds": round(load_seconds, 2),
        "in_memory_batch_probes_per_second": round(max(rates)),
        "in_memory_batch_probes_per_second_median": round(statistics.median(rates)),
        "in_memory_batch_size": args.batch,
        "on_disk_batch_probes_per_second": round(disk_rate),
        "on_disk_batch_size": args.disk_batch,
        "targets": {
            "warm_probe_us": f"< {TARGETS['warm_probe_us']:g}",
            "in_memory_batch_probes_per_second": f">= {TARGETS['in_memory_batch_probes_per_second']:g}",
            "load_seconds": f"< {TARGETS['load_seconds']:g}",
        },
        "meets_targets": {
            "warm_probe_us": max(warm.values()) < TARGETS["warm_probe_us"],
            "in_memory_batch_probes_per_second":
                max(rates) >= TARGETS["in_memory_batch_probes_per_second"],
            "load_seconds": load_seconds < TARGETS["load_seconds"],
        },
    }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
