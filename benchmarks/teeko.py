"""Teeko's whole build on the kit, as JSON: build seconds (``retro build --game teeko``
with numba's cache warm: a first build of the 4x4-3 variant compiles the same kernels),
entries, entries/s, bytes an entry on disk, file size, peak memory and the start's value.

    python benchmarks/teeko.py [--variant V] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="teeko-bench-"))
    out = Path(args.out) if args.out else folder / "teeko.h5"
    retro = [shutil.which("retro") or "retro"]
    warm = [*retro, "build", "--game", "teeko", "--variant", "4x4-3",
            "--out", str(folder / "warm.h5"), "--force", "--quiet"]
    subprocess.run(warm, check=True, stdout=subprocess.DEVNULL)  # stdout: the JSON only
    command = [*retro, "build", "--game", "teeko", "--out", str(out), "--force", "--quiet"]
    if args.variant:
        command[4:4] = ["--variant", args.variant]
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024  # the larger build's
    from retro import games
    from retro.db.database import open_database

    game = games.get("teeko", args.variant)
    entries = sum(game.tier_size(t) for t in game.tiers())
    db = open_database(out)
    try:
        start = str(db.probe(game.start())) if hasattr(db, "probe") else None
    finally:
        db.close()
    size = out.stat().st_size
    if not args.out:
        shutil.rmtree(folder)
    print(json.dumps({
        "game": game.full_name, "command": " ".join(["retro", *command[1:]]), "build_seconds": round(seconds, 2),
        "entries": entries, "positions": game.positions(), "entries_per_second": round(entries / seconds),
        "bytes_per_entry_on_disk": round(size / entries, 4), "file_bytes": size,
        "peak_memory_bytes": peak,
        "tier_memory_estimate_bytes": max(game.tier_memory(t) for t in game.tiers()),
        "start": start,
    }, indent=2))


if __name__ == "__main__":
    main()
