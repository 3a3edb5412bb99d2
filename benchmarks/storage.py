"""Benchmark: what storing the musketeers-to-move side too would cost, in bytes.

    python benchmarks/storage.py [--db PATH] [--gzip LEVEL ...]

retro stores only enemy-to-move values and resolves a musketeers-to-move value by
one ply of lookups. This script measures the alternative on a built database: it
recomputes every musketeers-to-move layer from the stored layer below (the
builder's own kernel), lays it out in the same storage order and chunks, compresses
it with each gzip level asked for, and prints JSON: the file as built, the
musketeers-to-move layers' compressed size per level, and the sum of the two.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from math import comb
from pathlib import Path

import h5py
import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, default=Path("db/three-musketeers-5x5.h5"))
    parser.add_argument("--gzip", type=int, nargs="+", default=[3, 6], metavar="LEVEL")
    args = parser.parse_args()

    from retro.games.musketeers.index import indexer, layer_masks
    from retro.games.musketeers.sweep import bit_lists, move_tables, musketeer_layer
    from retro.db.format import DatabaseError, DatabaseFile
    from retro.db.hdf5io import chunk_shape
    from retro.games.musketeers.layout import square_order_layer, storage_perm, to_storage_order

    try:
        db = DatabaseFile(args.db)
    except DatabaseError as error:
        sys.exit(f"storage: {error}")
    ix, mt = indexer(db.size), move_tables(db.size)
    perm = storage_perm(db.size)
    started = time.perf_counter()
    sizes = {level: 0 for level in args.gzip}
    with tempfile.TemporaryDirectory() as scratch:
        files = {level: h5py.File(Path(scratch) / f"m{level}.h5", "w") for level in args.gzip}
        previous = np.zeros((ix.placement_count, 1), dtype=np.uint8)
        for k in range(db.max_enemy_men + 1):
            masks = layer_masks(ix.free, k)
            values = np.empty((ix.placement_count, len(masks)), dtype=np.uint8)
            with_bit = bit_lists(masks, ix.free, comb(ix.free - 1, k - 1) if k else 0)
            musketeer_layer(masks, previous, values, 0, ix.placement_count, ix.aligned,
                            ix.rank_table, mt.capture_count, mt.capture_bit, mt.capture_child,
                            mt.capture_perm, with_bit)
            stored = to_storage_order(values, masks, perm, ix.rank_table)
            for level, f in files.items():
                f.create_dataset(f"layer_{k:02d}", data=stored, chunks=chunk_shape(*stored.shape),
                                 compression="gzip", compression_opts=level, fletcher32=True)
            previous = square_order_layer(db.read(k), db.size, k)
        for level, f in files.items():
            f.close()
            sizes[level] = (Path(scratch) / f"m{level}.h5").stat().st_size
    db.close()
    built = args.db.stat().st_size
    print(json.dumps({
        "database": str(args.db),
        "file_mb": round(built / 1e6, 1),
        "musketeers_to_move_mb": {f"gzip_{level}": round(size / 1e6, 1) for level, size in sizes.items()},
        # the file as built (gzip 3) plus the other side at each level
        "both_sides_mb": {f"gzip_{level}": round((built + size) / 1e6, 1) for level, size in sizes.items()},
        "seconds": round(time.perf_counter() - started, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
