"""Benchmark: build a nine men's morris database, then probe it; prints JSON figures.

    python benchmarks/nine.py [--pieces P|W,B] [--stage moving] [--threads T] [--out DIR]
                              [--probes N] [--seed S] [--wdl] [--serve]
    python benchmarks/nine.py --db PATH [--probes N] [--seed S] [--wdl] [--serve]

The build (``retro.engine.build.build``, as ``retro build --force`` does it) runs in
a child process, so that its wall time and peak memory (the child's maximum resident
set, from ``getrusage(RUSAGE_CHILDREN)`` once it has exited, or the child's own record
where it is larger: an out-of-core build resets the kernel's record before each tier)
are its own. The wall
time includes the interpreter's start-up and the imports; ``build.seconds`` is the
time the build itself reports and writes into the file (``build_seconds``): it counts
loading the kernels from numba's cache and leaves out the time numba spends compiling
them (a first run on a machine). ``build.notes`` is the build's log: its notice
"compiling the build's kernels" appears only when numba compiles (never with its cache
warm). ``--pieces`` is the
variant: 3..9 pieces each, or W,B for unequal counts such as 4,3; ``--stage moving``
builds only the moving phase (both hands empty). Without ``--out`` the file is built
in a temporary folder, removed afterwards; with ``--out DIR`` it is kept there, as
``nine-mens-morris-<variant>[-moving].h5`` (an existing file of that name is rebuilt).
``--db PATH`` builds nothing and measures an existing file (its game must be nine
men's morris; its variant and stage come from the file).

From the file: each tier's entries, its solving seconds (the dataset's attribute
``seconds``), the peak resident set of the build while it solved and wrote it
(``peak_rss_bytes``: an out-of-core build records it where Linux can reset the peak,
else null; mapped pages of its child tiers count), its stored bytes (compressed, ``dataset.id.get_storage_size()``) and
bytes per entry; the totals: entries, positions (both sides, every symmetric image),
solve rate, file size.

Probes: ``--probes`` distinct positions held by the file (distinct entries: two
symmetric images are one). A file of the whole game: every position of random games
from the start (uniform random moves, at most 200 plies a game, positions whose mover
has already lost left out: they are not stored). A moving-phase file: a tier drawn in
proportion to its entries, an entry drawn uniformly, its position
(``game.position_at``; entries holding a non-canonical image are drawn again). Each
position is probed with ``retro.open_database(path).probe`` (a DiskTierDatabase: each
probe reads the one HDF5 chunk holding its value, through a small chunk cache):

* ``probe_ms.cold``: a freshly opened database, the first probe of each position, in
  draw order (its kernels loaded beforehand by another database object). A probe
  whose chunk an earlier probe already read finds it in the chunk cache:
  ``new_chunk`` and ``cached_chunk`` split the figures. Before this pass the file's
  pages are dropped from the operating system's page cache (``posix_fadvise``
  DONTNEED after an ``fsync``; no privileges needed), so a new chunk is read from the
  disk: ``"page_cache": "dropped"`` (``"warm"`` where the call is not available);
* ``probe_ms.warm``: a second pass over the same positions, same database. HDF5's
  chunk cache holds ``hdf5_chunk_cache_bytes`` of decompressed chunks: when the
  chunks the cold pass read (``chunks_read_bytes``) do not fit, the second pass
  decompresses some again;
* ``moves_ms``: ``db.moves`` of each position (a probe of every child, best first),
  after the warm pass.

Latencies are p50/p90/p99/max in milliseconds of ``time.perf_counter`` around each
call. On a machine shared with other work every figure moves with its load:
``machine.load_average_before`` is read before the build, and
``probe_ms.load_average_before`` before the probes. ``stage`` is ``"moving"`` for a
moving-phase file and ``"whole game"`` for a file of every position.

Export (``--wdl``, after the probes): ``retro export --wdl`` of the file into the same
folder (a temporary one with ``--db``), timed in this process: ``wdl.seconds``,
``wdl.bytes``, ``wdl.bits_per_entry``; then the same positions probed in the export
(page cache dropped first): ``wdl.probe_ms.cold`` and ``warm``, and ``wdl.disagreements``,
positions whose winner differs from the full database's (must be 0). The export is
removed afterwards unless the build's ``--out`` keeps the file or ``--keep-wdl DIR``
names a folder to write it into and keep it.

Totals per phase (``totals.phases``): the moving phase's tiers (``moving_*``) and the
placement phase's (``hand_*``): tiers, entries, tier seconds, stored bytes, largest
tier peak. ``targets`` (the standard game's, issue 25) compares the figures measured
with the issue's: the whole game's tier seconds (and the build's own seconds) within 4
hours, its peak (``file_peak_rss_bytes``: the file's root attribute, the whole build's
peak) and the file within 12 GB, the export within 2 GB, a cold probe's p99 within 5 ms,
the server within 500 MB over 2 workers; each with ``met`` (null when not measured).

Serve (``--serve``, after the probes; the file measured, built or ``--db``): ``retro
serve --db PATH --port 0 --workers 2`` in a child process (the port from its first
line), then ``GET /api/v1/probe?position=...`` of the same positions as the probes,
each once in draw order, 8 at a time over keep-alive connections (the minimal HTTP/1.1
client of ``benchmarks/serve.py``). Each answer holds the value of the position and of
every move (nine men's morris is served from disk: no shared in-memory table), so a
request costs about what ``moves_ms`` measures, with the chunks the probe passes read
still in the page cache. Under ``serve``: ``first_answer_seconds``, from starting the
command to the first answer 200 of the first position; ``requests``,
``requests_per_s``, ``p50_ms``, ``p99_ms``; ``errors``, any answer but 200 or a
checked answer whose ``winner`` and ``plies`` differ from ``Database.probe``
(``checked``: every 5th position, probed by ``retro.open_database`` in this process);
``memory``, once the load is done, every server process's RSS, PSS (shared pages
divided among their users) and private bytes from ``/proc/PID/smaps``
(``server_memory`` of ``benchmarks/serve.py``): ``total_pss_mb``, summed over the
supervisor and the 2 workers, is the memory the server holds, against
``target_total_pss_mb`` (500 MB: issue 24's target for the game). The server is
stopped with SIGTERM (``stop_exit_status``; killed if it has not stopped in 20 s).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GAME = "nine-mens-morris"
STAGES = ("moving",)
MAX_PLIES = 200  # a random game longer than this is cut: random play seldom ends a morris game
PROG = "benchmarks/nine.py"
SERVE_WORKERS = 2
SERVE_CONCURRENCY = 8  # keep-alive connections of the --serve load
SERVE_CHECK_EVERY = 5  # --serve checks every 5th answer against Database.probe
SERVE_TARGET_PSS_MB = 500  # issue 24: the server's memory for the game over 2 workers
SERVE_START_SECONDS = 300  # the longest wait for the server's first answer


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, status 2
        self.exit(2, f"{PROG}: error: {message}\n")


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not at least 1")
    return value


def _parser() -> argparse.ArgumentParser:
    title, _, rest = __doc__.split("\n\n", 2)
    parser = _Parser(prog=PROG, description=f"{title}\n\n{rest}",
                     formatter_class=argparse.RawDescriptionHelpFormatter,
                     usage="%(prog)s [--pieces P|W,B] [--stage moving] [--threads T] "
                     "[--out DIR] [--probes N] [--seed S] [--wdl] [--serve] | --db PATH "
                     "[--probes N] [--seed S] [--wdl [--keep-wdl DIR]] [--serve]")
    parser.add_argument("--pieces", metavar="P|W,B",
                        help="the variant to build: P pieces each (3..9) or W,B, White's and "
                        "Black's counts (4,3); default 4")
    parser.add_argument("--stage", metavar="STAGE",
                        help="build only this stage: moving (the positions with both hands empty)")
    parser.add_argument("--threads", type=_positive, metavar="T",
                        help="the build's worker threads (default: one per core)")
    parser.add_argument("--out", type=Path, metavar="DIR",
                        help="build into DIR and keep the file (default: a temporary folder, "
                        "removed afterwards)")
    parser.add_argument("--probes", type=_positive, default=2000, metavar="N",
                        help="distinct positions to probe (default: 2000)")
    parser.add_argument("--db", type=Path, metavar="PATH",
                        help="build nothing: measure this nine men's morris file")
    parser.add_argument("--seed", type=int, default=0, metavar="S",
                        help="random seed of the probed positions (default: 0)")
    parser.add_argument("--wdl", action="store_true",
                        help="then export the file's win/draw/loss (retro export --wdl) and "
                        "probe the same positions in the export: its size, time and latency")
    parser.add_argument("--keep-wdl", type=Path, metavar="DIR",
                        help="with --wdl: write the export into DIR and keep it")
    parser.add_argument("--serve", action="store_true",
                        help="then serve the file (built or --db) with retro serve --workers 2 "
                        f"and probe the same positions over HTTP, {SERVE_CONCURRENCY} at a time: "
                        "requests/s, p50/p99, errors and the server's memory (PSS of every "
                        f"process, target {SERVE_TARGET_PSS_MB} MB in all)")
    parser.add_argument("--child-build", nargs=2, metavar=("VARIANT", "OUT"), help=argparse.SUPPRESS)
    return parser


def _check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse what cannot be used, in one line (status 2); fill in the variant."""
    from retro import games

    if args.keep_wdl is not None and not args.wdl:
        parser.error("--keep-wdl DIR keeps the export of --wdl: give --wdl too")
    if args.keep_wdl is not None and args.keep_wdl.exists() and not args.keep_wdl.is_dir():
        parser.error(f"--keep-wdl {args.keep_wdl} is not a folder")
    if args.db is not None:
        given = [name for name, value in (("--pieces", args.pieces), ("--stage", args.stage),
                                          ("--threads", args.threads), ("--out", args.out))
                 if value is not None]
        if given:
            parser.error(f"--db measures an existing file; {', '.join(given)} "
                         f"{'is' if len(given) == 1 else 'are'} for a build")
        if not args.db.is_file():
            parser.error(f"--db {args.db}: {'a folder, not a file' if args.db.is_dir() else 'no such file'}")
        from retro.db.format import DatabaseError, DatabaseFile

        try:
            held = DatabaseFile(args.db)
        except DatabaseError as error:
            parser.error(f"--db {args.db}: {str(error).splitlines()[0]}")
        game = held.game
        held.close()
        if game.name != GAME:
            parser.error(f"--db {args.db} holds {game.full_name}, not {GAME}")
        return
    if args.stage is not None and args.stage not in STAGES:
        parser.error(f"--stage {args.stage!r}: the only stage is {', '.join(STAGES)}")
    if args.pieces is not None and not re.fullmatch(r"\d+(,\d+)?", args.pieces.strip()):
        parser.error(f"--pieces {args.pieces!r}: write P or W,B, such as 4 or 4,3")
    try:
        args.variant = games.get(GAME, (args.pieces or "4").strip()).variant
    except games.UnknownGameError as error:
        parser.error(f"--pieces {args.pieces}: {str(error).splitlines()[0]}")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is not a folder")


# --- the build ----------------------------------------------------------------------------


def child_build(variant: str, out: str, stage: str | None, threads: int | None) -> None:
    """In the child: build, then print the build's summary as JSON on stdout."""
    from retro.engine import peak_rss
    from retro.engine.build import build

    notes: list[str] = []
    summary = build(GAME, out, None, threads, variant=variant, stage=stage, force=True,
                    progress=False, log=notes.append)
    print(json.dumps({"seconds": summary.seconds, "positions": summary.positions,
                      "file_bytes": summary.file_bytes, "notes": notes,
                      "self_peak_rss_bytes": max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                                                 peak_rss.highest() or 0)}))


def run_build(variant: str, out: Path, stage: str | None, threads: int | None) -> dict:
    command = [sys.executable, os.path.abspath(__file__), "--child-build", variant, str(out)]
    if stage:
        command += ["--stage", stage]
    if threads:
        command += ["--threads", str(threads)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # Linux: kilobytes
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        sys.exit(f"{PROG}: error: the build failed: {last}")
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "command": " ".join(["python", "-m", "retro.cli", "build", "--pieces", variant,
                             *(["--stage", stage] if stage else []), "--out", str(out),
                             *(["--threads", str(threads)] if threads else []), "--force"]),
        "wall_seconds": round(wall, 3),
        "seconds": round(report["seconds"], 3),
        "startup_and_compile_seconds": round(wall - report["seconds"], 3),
        # ru_maxrss of children is the largest of any child so far: the build is the only one.
        # An out-of-core build resets the kernel's record before each tier (its tiers'
        # own peaks): the child reports its whole peak itself.
        "peak_rss_bytes": max(peak_kb * 1024, before * 1024, report["self_peak_rss_bytes"]),
        "peak_rss_mb": round(max(peak_kb * 1024, before * 1024, report["self_peak_rss_bytes"]) / 2**20, 1),
        "notes": report["notes"],
    }


# --- the file -----------------------------------------------------------------------------


def file_figures(path: Path):
    """(game, stage, tiers, totals, threads, build seconds) of a built file."""
    from retro.db.format import DatabaseError, DatabaseFile

    try:
        db = DatabaseFile(path)
    except DatabaseError as error:
        sys.exit(f"{PROG}: error: {str(error).splitlines()[0]}")
    try:
        game = db.game
        held = list(db.tiers)
        if held == game.tiers():
            stage = None
        elif held == game.stage_tiers("moving"):
            stage = "moving"
        else:
            stage = "partial"
        rows = []
        for tier in held:
            dataset = db.dataset(tier)
            entries = int(dataset.shape[0])
            stored = int(dataset.id.get_storage_size())
            rows.append({
                "name": game.tier_name(tier),
                "entries": entries,
                "seconds": round(float(dataset.attrs.get("seconds", 0.0)), 4),
                "peak_rss_bytes": (int(dataset.attrs["peak_rss_bytes"])
                                   if "peak_rss_bytes" in dataset.attrs else None),
                "stored_bytes": stored,
                "bytes_per_entry": round(stored / entries, 4) if entries else None,
                "chunk_entries": dataset.chunks[0] if dataset.chunks else None,
            })
        metadata = db.metadata
    finally:
        db.close()
    build_seconds = float(metadata.get("build_seconds", 0.0))
    entries = sum(r["entries"] for r in rows)
    positions = game.positions(held)
    stored = sum(r["stored_bytes"] for r in rows)
    file_bytes = path.stat().st_size
    totals = {
        "tiers": len(rows),
        "entries": entries,
        "positions": positions,
        "positions_per_entry": round(positions / entries, 3) if entries else None,
        "build_seconds": build_seconds,
        "tier_seconds_sum": round(sum(r["seconds"] for r in rows), 3),
        "tier_peak_rss_bytes_max": max((r["peak_rss_bytes"] for r in rows
                                        if r["peak_rss_bytes"] is not None), default=None),
        "entries_per_second": round(entries / build_seconds) if build_seconds else None,
        "positions_per_second": round(positions / build_seconds) if build_seconds else None,
        "stored_bytes": stored,
        "bytes_per_entry": round(stored / entries, 4) if entries else None,
        "file_bytes": file_bytes,
        "file_mb": round(file_bytes / 1e6, 3),
        "file_peak_rss_bytes": (int(metadata["peak_rss_bytes"]) if "peak_rss_bytes" in metadata
                                else None),
        "phases": {phase: _phase([r for r in rows if r["name"].startswith(prefix)])
                   for phase, prefix in (("moving", "moving_"), ("placement", "hand_"))},
    }
    threads = metadata.get("threads")
    return game, stage, rows, totals, int(threads) if threads is not None else None, \
        metadata.get("retro_version")


def _phase(rows: list) -> dict | None:
    if not rows:
        return None
    entries = sum(r["entries"] for r in rows)
    seconds = sum(r["seconds"] for r in rows)
    return {"tiers": len(rows), "entries": entries, "tier_seconds": round(seconds, 3),
            "entries_per_second": round(entries / seconds) if seconds else None,
            "stored_bytes": sum(r["stored_bytes"] for r in rows),
            "tier_peak_rss_bytes_max": max((r["peak_rss_bytes"] for r in rows
                                            if r["peak_rss_bytes"] is not None), default=None)}


# --- the probes ---------------------------------------------------------------------------


def _key(game, position) -> tuple:
    return game.tier_of(position), game.index(position)


def random_play(game, count: int, rng: random.Random) -> list:
    """``count`` distinct stored positions of random games from the start (fewer when
    the game has fewer, or random play stops finding new ones)."""
    seen: set = set()
    out = []
    idle = 0  # positions visited since the last new one
    while len(out) < count and idle < 50 * count:
        position = game.start()
        for _ in range(MAX_PLIES + 1):
            if game.stored(position):
                key = _key(game, position)
                if key not in seen:
                    seen.add(key)
                    out.append(position)
                    idle = 0
                    if len(out) >= count:
                        break
                else:
                    idle += 1
            if position.is_over():
                break
            position = position.play(rng.choice(position.legal_moves()))
    return out


def random_entries(game, tiers: list, count: int, rng: random.Random) -> list:
    """``count`` distinct positions of ``tiers``: a tier in proportion to its entries, an
    entry uniformly (non-canonical entries drawn again)."""
    sizes = [game.tier_size(t) for t in tiers]
    seen: set = set()
    out = []
    tries = 0
    while len(out) < count and tries < 50 * count:
        tries += 1
        tier = rng.choices(tiers, weights=sizes)[0]
        entry = rng.randrange(game.tier_size(tier))
        position = game.position_at(tier, entry)
        if position is None or not game.stored(position):
            continue
        key = _key(game, position)
        if key in seen:
            continue
        seen.add(key)
        out.append(position)
    return out


def latency(samples: list[float]) -> dict:
    """p50/p90/p99/max of ``samples`` (seconds) in milliseconds; nearest-rank percentiles."""
    if not samples:
        return {"count": 0}
    ordered = sorted(samples)

    def rank(p: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, -(-len(ordered) * p // 100) - 1))]

    return {"count": len(ordered), "p50": round(rank(50) * 1e3, 4), "p90": round(rank(90) * 1e3, 4),
            "p99": round(rank(99) * 1e3, 4), "max": round(ordered[-1] * 1e3, 4),
            "mean": round(sum(ordered) / len(ordered) * 1e3, 4)}


def drop_page_cache(path: Path) -> str:
    """Evict ``path``'s pages from the page cache, so that the next reads come from the
    disk: ``"dropped"``, or ``"warm"`` where the system cannot."""
    if not hasattr(os, "posix_fadvise"):
        return "warm"
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)  # dirty pages are not dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        return "warm"
    finally:
        os.close(fd)
    return "dropped"


def probe_figures(path: Path, stage: str | None, count: int, seed: int) -> tuple[dict, dict, list]:
    """(probe_ms, moves_ms, the positions probed): see the module docstring."""
    from retro import open_database
    from retro.db.musketeers import HDF5_CACHE_BYTES

    rng = random.Random(seed)
    with open_database(path) as db:  # draws the positions and loads the kernels
        game, tiers = db.game, list(db.tiers)
        draw = random_play if stage is None else (lambda g, n, r: random_entries(g, tiers, n, r))
        positions = draw(game, count, rng)
        for position in draw(game, 5, random.Random(seed + 1)):
            db.probe(position)
            db.moves(position)
        keys = [_key(game, p) for p in positions]
        datasets = {tier: db._file.dataset(tier) for tier in tiers}
        chunk_of = {tier: d.chunks[0] for tier, d in datasets.items()}
        chunk_bytes = {tier: d.chunks[0] * d.dtype.itemsize for tier, d in datasets.items()}
    placing = sum(1 for p in positions if p.white_hand or p.black_hand)
    page_cache = drop_page_cache(path)
    load = os.getloadavg()

    with open_database(path) as db:
        cold, new_chunk, cached_chunk = [], [], []
        chunks_read: set = set()
        for position, (tier, entry) in zip(positions, keys):
            started = time.perf_counter()
            db.probe(position)
            elapsed = time.perf_counter() - started
            cold.append(elapsed)
            chunk = (tier, entry // chunk_of[tier])
            (cached_chunk if chunk in chunks_read else new_chunk).append(elapsed)
            chunks_read.add(chunk)
        warm = []
        for position in positions:
            started = time.perf_counter()
            db.probe(position)
            warm.append(time.perf_counter() - started)
        moves, children = [], 0
        for position in positions:
            started = time.perf_counter()
            answer = db.moves(position)
            moves.append(time.perf_counter() - started)
            children += len(answer)

    probes = {
        "positions": len(positions),
        "asked": count,
        "drawn_by": "random play from the start" if stage is None else "random entries of the file's tiers",
        "placement_phase_share": round(placing / len(positions), 3) if positions else None,
        "seed": seed,
        "page_cache": page_cache,
        "hdf5_chunk_cache_bytes": HDF5_CACHE_BYTES,
        "load_average_before": [round(x, 2) for x in load],
        # decompressed bytes of every chunk the probes read, against HDF5's chunk cache:
        # above it, the warm pass reads chunks again (below it too, sometimes: HDF5's
        # cache evicts a chunk whose hash slot another takes)
        "chunks_read_bytes": sum(chunk_bytes[tier] for tier, _ in chunks_read),
        "cold": {**latency(cold), "chunks_read": len(chunks_read),
                 "new_chunk": latency(new_chunk), "cached_chunk": latency(cached_chunk)},
        "warm": latency(warm),
    }
    moves_ms = {**latency(moves), "children_per_position": round(children / len(positions), 2)
                if positions else None}
    moves_ms = {k: v for k, v in moves_ms.items() if k not in ("p90",)}
    return probes, moves_ms, positions


# --- the export -----------------------------------------------------------------------------


def wdl_figures(path: Path, folder: Path, positions: list, keep: bool) -> dict:
    """Export ``path`` to ``folder``, then probe ``positions`` in the export (see the
    module docstring)."""
    from retro import open_database
    from retro.db.wdl import export_wdl

    out = folder / f"{path.stem}-wdl.h5"
    out.unlink(missing_ok=True)
    try:
        summary = export_wdl(path, out)
        with open_database(path) as db:
            expected = [db.probe(p).winner for p in positions]
        page_cache = drop_page_cache(out)
        with open_database(out) as db:
            cold, answers = [], []
            for position in positions:
                started = time.perf_counter()
                answers.append(db.probe(position).winner)
                cold.append(time.perf_counter() - started)
            warm = []
            for position in positions:
                started = time.perf_counter()
                db.probe(position)
                warm.append(time.perf_counter() - started)
        return {"file": str(out.resolve()) if keep else None, "seconds": round(summary["seconds"], 3),
                "bytes": summary["bytes"], "bits_per_entry": round(summary["bits_per_entry"], 4),
                "entries": summary["entries"], "page_cache": page_cache,
                "probe_ms": {"cold": latency(cold), "warm": latency(warm)},
                "disagreements": sum(a is not b for a, b in zip(answers, expected))}
    finally:
        if not keep:
            out.unlink(missing_ok=True)


def targets(build: dict, totals: dict, probes: dict, wdl: dict | None, served: dict | None) -> dict:
    """The issue's targets for the whole standard game against the figures measured."""
    def row(measured, limit, unit):
        return {"measured": measured, "target": limit, "unit": unit,
                "met": None if measured is None else measured <= limit}

    seconds = build.get("seconds") or totals["build_seconds"]
    peak = max([v for v in (totals["file_peak_rss_bytes"], build.get("peak_rss_bytes"),
                            totals["tier_peak_rss_bytes_max"]) if v is not None], default=None)
    pss = served.get("memory", {}).get("total_pss_mb") if served else None
    return {
        "tier_hours": row(round(totals["tier_seconds_sum"] / 3600, 3), 4, "h"),
        "build_hours": row(round(seconds / 3600, 3) if seconds else None, 4, "h"),
        "peak_gb": row(None if peak is None else round(peak / 1e9, 3), 12, "GB"),
        "file_gb": row(round(totals["file_bytes"] / 1e9, 3), 12, "GB"),
        "wdl_gb": row(round(wdl["bytes"] / 1e9, 3) if wdl else None, 2, "GB"),
        "probe_cold_p99_ms": row(probes["cold"]["p99"], 5, "ms"),
        "serve_total_pss_mb": row(pss, 500, "MB"),
    }


# --- the server -----------------------------------------------------------------------------


def _serve_benchmark():
    """``benchmarks/serve.py`` as a module (its client, load and memory figures)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("retro_serve_benchmark",
                                                  Path(__file__).with_name("serve.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def serve_figures(path: Path, positions: list) -> dict:
    """Serve ``path`` with ``retro serve --workers 2``, probe ``positions`` over HTTP and
    measure the server's memory afterwards (see the module docstring: Serve)."""
    import asyncio
    import threading

    from retro import open_database
    from retro.text import link_text

    if not positions:
        sys.exit(f"{PROG}: error: --serve: no positions to probe")
    bench = _serve_benchmark()
    heads = [bench.get("/api/v1/probe?position=" + link_text(p)) for p in positions]
    expected = {}  # every SERVE_CHECK_EVERY-th request: (winner, plies) from the file
    with open_database(path) as db:
        for i in range(0, len(positions), SERVE_CHECK_EVERY):
            outcome = db.probe(positions[i]).as_dict()
            expected[i] = (outcome["winner"], outcome["plies"])

    def check(i: int, body: bytes) -> bool:
        if i not in expected:
            return True
        try:
            answer = json.loads(body)
            return (answer["winner"], answer["plies"]) == expected[i]
        except (ValueError, KeyError, TypeError):
            return False

    command = [sys.executable, "-m", "retro.cli", "serve", "--db", str(path), "--port", "0",
               "--workers", str(SERVE_WORKERS)]
    figures: dict = {"workers": SERVE_WORKERS, "concurrency": SERVE_CONCURRENCY,
                     "command": " ".join(["python", "-m", "retro.cli", *command[3:]])}
    started = time.perf_counter()
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log: list[str] = []  # the server's output after its first line, read as it comes (no pipe fills)
    try:
        line = server.stdout.readline()
        for stream in (server.stdout, server.stderr):
            threading.Thread(target=lambda s=stream: log.extend(iter(s.readline, "")),
                             daemon=True).start()
        found = re.search(r"http://[^:]+:(\d+)/", line)
        if found is None:
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                pass  # stopped below
            raise SystemExit(f"{PROG}: error: retro serve did not start: "
                             f"{(line + ''.join(log)).strip() or 'no output'}")
        port = int(found[1])

        async def run() -> dict:
            first = heads[0]
            while True:  # the first answer 200
                if server.poll() is not None:
                    raise SystemExit(f"{PROG}: error: retro serve ended (status {server.returncode}): "
                                     f"{''.join(log).strip()}")
                if time.perf_counter() - started > SERVE_START_SECONDS:
                    raise SystemExit(f"{PROG}: error: retro serve did not answer within "
                                     f"{SERVE_START_SECONDS} s")
                try:
                    client = await bench.Client.connect(port)
                    try:
                        status, _ = await client.request(first)
                    finally:
                        client.close()
                    if status == 200:
                        break
                except (OSError, asyncio.IncompleteReadError):
                    pass
                await asyncio.sleep(0.05)
            figures["first_answer_seconds"] = round(time.perf_counter() - started, 2)
            return await bench.load(port, heads, SERVE_CONCURRENCY, check)

        result = asyncio.run(run())
        figures.update({"requests": result["requests"], "errors": result["errors"],
                        "checked": len(expected),
                        "requests_per_s": result["requests_per_second"],
                        "p50_ms": result["p50_ms"], "p99_ms": result["p99_ms"]})
        figures["memory"] = bench.server_memory(server.pid, SERVE_WORKERS)
        figures["target_total_pss_mb"] = SERVE_TARGET_PSS_MB
        figures["within_target"] = figures["memory"]["total_pss_mb"] <= SERVE_TARGET_PSS_MB
    finally:
        if server.poll() is None:
            server.terminate()
        try:
            figures["stop_exit_status"] = server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
            figures["stop_exit_status"] = "killed"
    return figures


def main() -> None:
    parser = _parser()
    args = parser.parse_args()
    if args.child_build:
        child_build(*args.child_build, args.stage, args.threads)
        return
    _check(parser, args)

    import retro

    machine = {"cpus": os.cpu_count(), "platform": platform.platform(),
               "python": platform.python_version(),
               "load_average_before": [round(x, 2) for x in os.getloadavg()]}
    scratch = None
    try:
        if args.db is not None:
            path = args.db
            build = None
        else:
            if args.out is None:
                scratch = tempfile.mkdtemp(prefix="retro-nine-")
                folder = Path(scratch)
            else:
                folder = args.out
                folder.mkdir(parents=True, exist_ok=True)
            stem = f"{GAME}-{args.variant.replace(',', '-')}" + (f"-{args.stage}" if args.stage else "")
            path = folder / f"{stem}.h5"
            build = run_build(args.variant, path, args.stage, args.threads)
            if scratch is not None:
                build["kept"] = False
                build["command"] = build["command"].replace(str(path), f"<temporary>/{path.name}")
            else:
                build["kept"] = str(path.resolve())
        game, stage, tiers, totals, threads, version = file_figures(path)
        if build is not None:
            build["entries_per_wall_second"] = round(totals["entries"] / build["wall_seconds"])
        else:
            build = {"built": False, "file": str(path.resolve()), "seconds": totals["build_seconds"],
                     "retro_version_of_file": version}
        probes, moves, positions = probe_figures(path, stage, args.probes, args.seed)
        wdl = None
        if args.wdl:
            keep = args.keep_wdl is not None or (args.db is None and args.out is not None)
            if args.keep_wdl is not None:
                args.keep_wdl.mkdir(parents=True, exist_ok=True)
                folder = args.keep_wdl
            elif args.db is not None:  # never beside someone's file: a folder removed after
                scratch = tempfile.mkdtemp(prefix="retro-nine-")
                folder = Path(scratch)
            else:
                folder = path.parent  # beside the build: kept with --out, else removed with it
            wdl = wdl_figures(path, folder, positions, keep)
        served = serve_figures(path, positions) if args.serve else None
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    print(json.dumps({
        "game": GAME,
        "variant": game.variant,
        "stage": stage or "whole game",
        "threads": threads,
        "build": build,
        "tiers": tiers,
        "totals": totals,
        "probe_ms": probes,
        "moves_ms": moves,
        **({"wdl": wdl} if wdl is not None else {}),
        **({"serve": served} if served is not None else {}),
        **({"targets": targets(build, totals, probes, wdl, served)}
           if stage is None and game.variant == "9" else {}),
        "machine": machine,
        "retro_version": retro.__version__,
    }, indent=2))


if __name__ == "__main__":
    main()
