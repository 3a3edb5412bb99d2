"""The retrograde builder: bottom-up by enemy count, checkpointed, resumable.

Layer k (positions with k enemy men) depends only on layer k-1, because every
musketeer move captures. For each k the builder computes musketeers-to-move values
from enemy-to-move layer k-1, then enemy-to-move values from those, and hands the
enemy-to-move layer to a writer thread that compresses it into a checkpoint file
while the next layer is computed.

Checkpoints live in ``<out>.partial/``, one HDF5 file per finished layer, each
written under a temporary name, flushed to the disk and renamed into place.
Killing a build at any moment loses at most the layer in progress; running the
same command again resumes after the last checkpoint. The database itself is
assembled from the checkpoints (raw compressed chunks, copied) and renamed to
``<out>`` only once complete.

What protects a user's data:

* one build per output at a time: an ``fcntl.flock`` on ``<out>.lock``, which the
  operating system releases when its holder dies (so ``kill -9`` then the same
  command still resumes); a second build is refused at once;
* every checkpoint a build did not write itself is checked against its SHA-256
  before it is used, and every chunk's Fletcher32 before it is copied into the
  database: a damaged checkpoint is rebuilt, never assembled;
* files are built in memory and written by Python, so a full disk or a missing
  permission is one clean ``OSError`` (reported in one line, with the space to
  free) and never a half-written file; the space a build needs is estimated and
  checked before it starts.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import queue
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from math import comb
from pathlib import Path

import h5py
import numba
import numpy as np

from .. import __version__
from ..games.musketeers import rules
from ..errors import BuildError, BuildLockedError  # re-exported
from ..games.musketeers.index import Indexer, indexer, layer_masks
from ..games.musketeers.sweep import MoveTables, bit_lists, enemy_layer, move_tables, musketeer_layer, step_lists
from ..db.format import (
    FORMAT,
    FORMAT_VERSION,
    HDF5_ERRORS,
    LAYER_GROUP,
    ChecksumError,
    DatabaseError,
    DatabaseFile,
    IncompleteDatabaseError,
    chunk_shape,
    copy_layer,
    create_layer,
    default_path,
    digest,
    get_text,
    layer_name,
    manifest_path,
    new_image,
    partial_path,
    set_text,
    square_order_layer,
    storage_perm,
    to_storage_order,
    write_atomically,
    write_header,
)

# Kernel calls per layer and side for the largest layers: fine-grained enough for
# a lively progress bar, coarse enough to keep both threads busy.
PROGRESS_STEPS = 8
# Compressed bytes per stored value, an upper bound over every layer of every board
# (the 5x5 layers range from 0.12 to 0.23), for the disk-space estimate.
BYTES_PER_VALUE = 0.25
FILE_OVERHEAD = 1 << 18  # header, tables and chunk index of one file, generously


@dataclass(frozen=True)
class BuildSummary:
    """What a build did."""

    path: Path
    size: int
    max_guards: int
    positions: int  # positions solved, both sides, layers 0..max_guards
    computed_positions: int  # of which computed in this run (the rest came from checkpoints)
    seconds: float  # wall time of this run
    file_bytes: int
    resumed_from_layer: int | None  # first layer computed in this run, when resuming
    already_built: bool = False


def positions_in_layers(ix: Indexer, first: int, last: int) -> int:
    """Positions (both sides) with first..last enemy men."""
    return sum(2 * ix.placement_count * comb(ix.free, k) for k in range(first, last + 1))


def build(
    size: int = rules.DEFAULT_SIZE,
    out: str | os.PathLike | None = None,
    max_guards: int | None = None,
    threads: int | None = None,
    *,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> BuildSummary:
    """Build (or resume, or extend) the database of a board size.

    ``max_guards`` limits the build to layers 0..max_guards (an endgame database);
    ``threads`` sets the number of numba threads; ``force`` rebuilds even when a
    complete database is already at ``out``. Raises :class:`BuildError` (one line,
    saying what to do) for bad arguments, an unusable output, another build of the
    same output (:class:`BuildLockedError`), or a disk that is full or refuses a write;
    the finished checkpoints are kept, so the same call resumes once that is fixed.
    """
    started = time.perf_counter()
    say = log or (lambda message: None)
    if size not in rules.SIZES:
        raise BuildError(f"board size {size} is not supported: use 3, 4 or 5")
    ix = indexer(size)
    top = ix.free if max_guards is None else int(max_guards)
    if not 0 <= top <= ix.free:
        raise BuildError(f"--max-guards must be between 0 and {ix.free} on a {size}x{size} board")
    _set_threads(threads)
    out = Path(out) if out is not None else default_path(size)
    if out.is_dir():
        raise BuildError(f"{out} is a directory; give a file name with --out")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise BuildError(_write_failure(error, out.parent, ix, 0, top)) from error
    with _BuildLock(out, ix, top):
        try:
            return _build_locked(ix, out, top, max_guards, threads, force, progress, say, started)
        except OSError as error:
            if isinstance(error, DatabaseError):
                raise
            done = _Checkpoints.finished_on_disk(partial_path(out))
            raise BuildError(_write_failure(error, out, ix, done, top)) from error


def _build_locked(ix: Indexer, out: Path, top: int, max_guards: int | None, threads: int | None,
                  force: bool, progress: bool, say: Callable[[str], None],
                  started: float) -> BuildSummary:
    size = ix.size
    existing = None if force else _existing_database(out, size)
    if existing is not None and existing >= top:
        return BuildSummary(
            out, size, existing, positions_in_layers(ix, 0, existing), 0,
            time.perf_counter() - started, out.stat().st_size, None, already_built=True,
        )
    partial = partial_path(out)
    _check_space(out, ix, 0 if force else _Checkpoints.finished_on_disk(partial), top)
    checkpoints = _Checkpoints(out, size, max_guards, fresh=force, say=say)
    if existing is not None and checkpoints.completed <= existing:
        say(f"extending {out} (layers 0..{existing}) to layers 0..{top}")
        checkpoints.seed_from(out, existing)
    first = min(checkpoints.completed, top + 1)
    if first > 0:
        say(f"resuming from checkpoints in {partial}: layers 0..{first - 1} already done")

    total = positions_in_layers(ix, first, top)
    previous = checkpoints.load(first - 1) if 0 < first <= top else None
    writer = _LayerWriter(checkpoints, size)
    bar = _progress_bar(total, progress)
    try:
        for k in range(first, top + 1):
            layer_started = time.perf_counter()
            previous = _solve_layer(ix, move_tables(size), k, previous, bar)
            writer.submit(k, previous, time.perf_counter() - layer_started)
        writer.finish()
    except BaseException:
        writer.abandon()
        raise
    finally:
        if bar is not None:
            bar.close()

    seconds = time.perf_counter() - started
    _assemble(checkpoints, out, ix, top, seconds, threads)
    shutil.rmtree(partial, ignore_errors=True)
    return BuildSummary(
        out, size, top, positions_in_layers(ix, 0, top), total, time.perf_counter() - started,
        out.stat().st_size, first if first > 0 and total else None,
    )


def space_needed(ix: Indexer, done: int, top: int) -> int:
    """Bytes a build still needs on disk: checkpoints of layers done..top, then the
    database of layers 0..top beside them (the checkpoints go once it is written)."""
    stored = [ix.placement_count * comb(ix.free, k) for k in range(top + 1)]
    checkpoints = sum(stored[done:]) * BYTES_PER_VALUE + (top + 1 - done) * FILE_OVERHEAD
    return int(checkpoints + sum(stored) * BYTES_PER_VALUE + FILE_OVERHEAD)


def _check_space(out: Path, ix: Indexer, done: int, top: int) -> None:
    needed = space_needed(ix, done, top)
    free = shutil.disk_usage(out.parent).free
    if free < needed:
        raise BuildError(
            f"not enough space for {out}: the build needs about {_mb(needed)} MB and "
            f"{_mb(free)} MB are free on that device; free about {_mb(needed - free)} MB "
            "or choose another --out"
        )


def _mb(n: int) -> int:
    return max(1, -(-int(n) // 1_000_000))


def _write_failure(error: OSError, out: Path, ix: Indexer, done: int, top: int,
                   where: Path | str | None = None) -> str:
    """One line for an OSError met while building: what failed and what to do."""
    where = where or error.filename or out
    if error.errno == errno.ENOSPC or error.errno == errno.EDQUOT:
        try:
            free = shutil.disk_usage(out.parent).free
        except OSError:
            free = 0
        missing = max(space_needed(ix, done, top) - free, 1)
        return (f"no space left on device writing {where}: free about {_mb(missing)} MB "
                "and run the same command to resume")
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"permission denied writing {where}: choose another --out or fix its permissions"
    if error.errno == errno.EROFS:
        return f"{where} is on a read-only file system: choose another --out"
    return f"cannot write {where}: {error.strerror or error}"


class _BuildLock:
    """An exclusive ``flock`` on ``<out>.lock`` for the whole build.

    The kernel drops the lock when the holder dies, however it dies, so a killed
    build never blocks the next one. The file is removed by the holder when it is
    done; a build that opened the file just before that removal would lock an
    unlinked file, so it checks that the path still names the file it locked.
    """

    def __init__(self, out: Path, ix: Indexer, top: int) -> None:
        self.out = out
        self.path = out.with_name(out.name + ".lock")
        self.ix, self.top = ix, top
        self.fd: int | None = None

    def __enter__(self) -> _BuildLock:
        while True:
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as error:  # the folder refuses a new file: name the folder
                raise BuildError(_write_failure(error, self.out, self.ix, 0, self.top,
                                                self.out.parent)) from error
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "unknown"
                os.close(fd)
                raise BuildLockedError(
                    f"another build of {self.out} is running (process {holder}); wait for it "
                    "to finish, or stop it and run this command again to resume"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except FileNotFoundError:
                same = False
            if same:
                break
            os.close(fd)
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # a full disk: the lock holds without the process number
        self.fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self.fd is None:
            return
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = None


def _set_threads(threads: int | None) -> None:
    if threads is None:
        return
    limit = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= limit:
        raise BuildError(f"--threads must be between 1 and {limit} on this machine")
    numba.set_num_threads(threads)


def _existing_database(out: Path, size: int) -> int | None:
    """max_guards of a complete database of this size at ``out``; None if absent."""
    if not out.exists():
        return None
    try:
        db = DatabaseFile(out)
    except IncompleteDatabaseError:
        return None  # a file of an interrupted assembly: rebuilt from the checkpoints
    except DatabaseError as error:
        raise BuildError(f"{out} exists and is not a retro database ({error}); move it away or pass --force") from error
    try:
        if db.size != size:
            raise BuildError(f"{out} holds the {db.size}x{db.size} database; choose another --out or pass --force")
        return db.max_guards
    finally:
        db.close()


def _solve_layer(ix: Indexer, mt: MoveTables, k: int, previous: np.ndarray | None, bar) -> np.ndarray:
    """Musketeers-to-move then enemy-to-move values of layer k (square-order ranks)."""
    masks = layer_masks(ix.free, k)
    count, length = ix.placement_count, len(masks)
    musketeers = np.empty((count, length), dtype=np.uint8)
    enemy = np.empty((count, length), dtype=np.uint8)
    if previous is None:  # layer 0: no captures exist, the empty layer below is never read
        previous = np.zeros((count, 1), dtype=np.uint8)
    with_bit = bit_lists(masks, ix.free, comb(ix.free - 1, k - 1) if k else 0)
    steps = PROGRESS_STEPS if count * length > 10_000_000 else 1
    bounds = np.linspace(0, count, steps + 1).astype(np.int64)
    for first, last in zip(bounds[:-1], bounds[1:]):
        musketeer_layer(
            masks, previous, musketeers, first, last, ix.aligned, ix.rank_table,
            mt.capture_count, mt.capture_bit, mt.capture_child, mt.capture_perm, with_bit,
        )
        _advance(bar, (last - first) * length)
    del with_bit
    with_low, with_high = step_lists(
        masks, mt.pair_low, mt.pair_high, comb(ix.free - 2, k - 1) if k else 0
    )
    for first, last in zip(bounds[:-1], bounds[1:]):
        enemy_layer(
            musketeers, enemy, first, last, ix.aligned, mt.step_count, mt.step_pair,
            with_low, with_high,
        )
        _advance(bar, (last - first) * length)
    return enemy


def _progress_bar(total: int, enabled: bool):
    if not enabled or total == 0:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="pos", unit_scale=True, smoothing=0.05,
                desc="solving", dynamic_ncols=True)


def _advance(bar, amount: int) -> None:
    if bar is not None:
        bar.update(int(amount))


class _Checkpoints:
    """The ``<out>.partial/`` directory: one file per finished layer, and a manifest.

    The manifest records the format and board (checkpoints of another are thrown
    away) and the build's options, so that the hint to resume names them all.
    """

    def __init__(self, out: Path, size: int, max_guards: int | None, *, fresh: bool,
                 say: Callable[[str], None]) -> None:
        self.directory = directory = partial_path(out)
        self.size = size
        stamp = {"format": FORMAT, "format_version": FORMAT_VERSION, "board_size": size}
        manifest = manifest_path(out)
        recorded = _read_json(manifest)
        if fresh or not isinstance(recorded, dict) or {k: recorded.get(k) for k in stamp} != stamp:
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True)
        for stale in directory.glob("*.tmp"):  # a write cut off by a kill
            stale.unlink(missing_ok=True)
        options = {} if max_guards is None else {"max_guards": max_guards}
        write_atomically(json.dumps({**stamp, **options}).encode(), manifest)
        self.completed = 0
        while self.path(self.completed).exists():
            problem = self._problem(self.completed)
            if problem is not None:
                say(f"checkpoint {self.path(self.completed)} is damaged ({problem}); "
                    f"rebuilding from layer {self.completed}")
                break
            self.completed += 1

    @staticmethod
    def finished_on_disk(directory: Path) -> int:
        """Layers 0..n-1 have checkpoint files (not checked): n."""
        n = 0
        while (directory / f"{layer_name(n)}.h5").exists():
            n += 1
        return n

    def path(self, k: int) -> Path:
        return self.directory / f"{layer_name(k)}.h5"

    def _problem(self, k: int) -> str | None:
        """Why checkpoint k cannot be used (None when it is sound): its header, its
        layout, every chunk (Fletcher32) and its SHA-256 are checked."""
        ix = indexer(self.size)
        try:
            with h5py.File(self.path(k), "r") as f:
                if f.attrs.get("checkpoint_layer") != k or layer_name(k) not in f[LAYER_GROUP]:
                    return "not the checkpoint of this layer"
                dataset = f[LAYER_GROUP][layer_name(k)]
                shape = (ix.placement_count, comb(ix.free, k))
                if dataset.shape != shape or dataset.chunks != chunk_shape(*shape):
                    return "wrong shape"
                recorded = get_text(dataset.attrs, "sha256")
                try:
                    values = dataset[()]
                except HDF5_ERRORS:
                    return "a data chunk failed its Fletcher32 checksum"
                if digest(values) != recorded:
                    return "its values do not match their SHA-256"
        except HDF5_ERRORS as error:
            return f"unreadable: {str(error).splitlines()[0] if str(error) else type(error).__name__}"
        return None

    def load(self, k: int) -> np.ndarray:
        """Enemy-to-move layer k in square-order ranks (checked when the build began)."""
        with h5py.File(self.path(k), "r") as f:
            stored = f[LAYER_GROUP][layer_name(k)][()]
        return square_order_layer(stored, self.size, k)

    def write(self, k: int, stored: np.ndarray, seconds: float) -> None:
        buffer, f = new_image()
        with f:
            write_header(f, indexer(self.size))
            f.attrs["checkpoint_layer"] = k
            f.attrs["layers"] = k + 1
            dataset = create_layer(f[LAYER_GROUP], k, stored, digest(stored))
            dataset.attrs["seconds"] = seconds
        write_atomically(buffer.getbuffer(), self.path(k))

    def seed_from(self, database: Path, top: int) -> None:
        """Turn a complete smaller database into checkpoints, to extend it."""
        with h5py.File(database, "r") as source:
            for k in range(top + 1):
                buffer, f = new_image()
                with f:
                    write_header(f, indexer(self.size))
                    f.attrs["checkpoint_layer"] = k
                    f.attrs["layers"] = k + 1
                    copy_layer(source[LAYER_GROUP][layer_name(k)], f[LAYER_GROUP])
                write_atomically(buffer.getbuffer(), self.path(k))
        self.completed = top + 1


def _read_json(path: Path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


class _LayerWriter:
    """Background thread: storage order, digest, compression, checkpoint file."""

    def __init__(self, checkpoints: _Checkpoints, size: int) -> None:
        self.checkpoints = checkpoints
        self.size = size
        self.jobs: queue.Queue = queue.Queue(maxsize=1)  # bounds memory to one layer in flight
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="retro-layer-writer", daemon=True)
        self.thread.start()

    def submit(self, k: int, values: np.ndarray, seconds: float) -> None:
        self._raise_if_failed()
        self.jobs.put((k, values, seconds))

    def finish(self) -> None:
        self.jobs.put(None)
        self.thread.join()
        self._raise_if_failed()

    def abandon(self) -> None:
        """Stop after the layer in flight: a finished layer is worth its checkpoint."""
        if self.thread.is_alive():
            self.jobs.put(None)
            self.thread.join()

    def _raise_if_failed(self) -> None:
        if self.error is not None:
            raise self.error  # an OSError is reported by build() with what to do

    def _run(self) -> None:
        ix = indexer(self.size)
        perm = storage_perm(self.size)
        while (job := self.jobs.get()) is not None:
            if self.error is not None:
                continue
            k, values, seconds = job
            try:
                stored = to_storage_order(values, layer_masks(ix.free, k), perm, ix.rank_table)
                self.checkpoints.write(k, stored, seconds)
            except BaseException as error:  # reported to the builder thread
                self.error = error


def _assemble(checkpoints: _Checkpoints, out: Path, ix: Indexer, top: int,
              seconds: float, threads: int | None) -> None:
    """Copy the checkpoints into the final file, then write it into place."""
    buffer, f = new_image()
    with f:
        write_header(f, ix)
        group = f[LAYER_GROUP]
        for k in range(top + 1):
            with h5py.File(checkpoints.path(k), "r") as source:
                try:
                    copy_layer(source[LAYER_GROUP][layer_name(k)], group)
                except ChecksumError as error:
                    checkpoints.path(k).unlink(missing_ok=True)
                    raise BuildError(
                        f"checkpoint {checkpoints.path(k)} was damaged after it was written "
                        f"({error}); it is deleted: run the same command again to rebuild it"
                    ) from error
        f.attrs["max_guards"] = top
        f.attrs["layers"] = top + 1
        set_text(f.attrs, "retro_version", __version__)
        f.attrs["build_seconds"] = round(seconds, 3)
        f.attrs["threads"] = threads or numba.get_num_threads()
        set_text(f.attrs, "created", datetime.now(timezone.utc).isoformat(timespec="seconds"))
        f.attrs["complete"] = True
    write_atomically(buffer.getbuffer(), out)
