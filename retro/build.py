"""The retrograde builder: bottom-up by enemy count, checkpointed, resumable.

Layer k (positions with k enemy men) depends only on layer k-1, because every
musketeer move captures. For each k the builder computes musketeers-to-move values
from enemy-to-move layer k-1, then enemy-to-move values from those, and hands the
enemy-to-move layer to a writer thread that compresses it into a checkpoint file
while the next layer is computed.

Checkpoints live in ``<out>.partial/``, one HDF5 file per finished layer, each
written under a temporary name and renamed into place. Killing a build at any
moment loses at most the layer in progress; running the same command again
resumes after the last checkpoint. The database itself is assembled from the
checkpoints (raw compressed chunks, copied) under a temporary name and renamed to
``<out>`` only once complete.
"""

from __future__ import annotations

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

from . import __version__, rules
from .indexing import Indexer, indexer, layer_masks
from .kernels import MoveTables, bit_lists, enemy_layer, move_tables, musketeer_layer, step_lists
from .storage import (
    FORMAT,
    FORMAT_VERSION,
    LAYER_GROUP,
    DatabaseError,
    DatabaseFile,
    copy_layer,
    create_layer,
    default_path,
    digest,
    layer_name,
    replace_atomically,
    square_order_layer,
    storage_perm,
    to_storage_order,
    write_header,
)

# Kernel calls per layer and side for the largest layers: fine-grained enough for
# a lively progress bar, coarse enough to keep both threads busy.
PROGRESS_STEPS = 8


class BuildError(Exception):
    """A build that cannot start or go on (bad arguments, unusable output path)."""


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
    complete database is already at ``out``.
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
    if out.exists() and out.is_dir():
        raise BuildError(f"{out} is a directory; give a file name with --out")
    out.parent.mkdir(parents=True, exist_ok=True)

    partial = out.with_name(out.name + ".partial")
    existing = None if force else _existing_database(out, size)
    if existing is not None and existing >= top:
        return BuildSummary(
            out, size, existing, positions_in_layers(ix, 0, existing), 0,
            time.perf_counter() - started, out.stat().st_size, None, already_built=True,
        )
    checkpoints = _Checkpoints(partial, size, fresh=force)
    if existing is not None and checkpoints.completed <= existing:
        say(f"extending {out} (layers 0..{existing}) to layers 0..{top}")
        checkpoints.seed_from(out, existing)
    first = checkpoints.completed
    if first > top + 1:
        first = top + 1
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
    except DatabaseError as error:
        if "did not finish" in str(error):
            return None  # an interrupted assembly: rebuilt from the checkpoints
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
    """The ``<out>.partial/`` directory: one file per finished layer."""

    def __init__(self, directory: Path, size: int, *, fresh: bool) -> None:
        self.directory = directory
        self.size = size
        stamp = {"format": FORMAT, "format_version": FORMAT_VERSION, "board_size": size}
        manifest = directory / "build.json"
        if fresh or not manifest.exists() or _read_json(manifest) != stamp:
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True)
            manifest.write_text(json.dumps(stamp))
        self.completed = 0
        while self._valid(self.completed):
            self.completed += 1

    def path(self, k: int) -> Path:
        return self.directory / f"{layer_name(k)}.h5"

    def _valid(self, k: int) -> bool:
        path = self.path(k)
        if not path.exists():
            return False
        try:
            with h5py.File(path, "r") as f:
                return f.attrs.get("checkpoint_layer") == k and layer_name(k) in f[LAYER_GROUP]
        except (OSError, KeyError):
            return False

    def load(self, k: int) -> np.ndarray:
        """Enemy-to-move layer k in square-order ranks, checked against its digest."""
        with h5py.File(self.path(k), "r") as f:
            dataset = f[LAYER_GROUP][layer_name(k)]
            stored = dataset[()]
            if digest(stored) != dataset.attrs["sha256"]:
                raise BuildError(f"checkpoint {self.path(k)} is damaged; delete it and build again")
        return square_order_layer(stored, self.size, k)

    def write(self, k: int, stored: np.ndarray, seconds: float) -> None:
        tmp = self.path(k).with_suffix(".tmp")
        with h5py.File(tmp, "w") as f:
            write_header(f, indexer(self.size))
            f.attrs["checkpoint_layer"] = k
            f.attrs["layers"] = k + 1
            dataset = create_layer(f[LAYER_GROUP], k, stored, digest(stored))
            dataset.attrs["seconds"] = seconds
        os.replace(tmp, self.path(k))

    def seed_from(self, database: Path, top: int) -> None:
        """Turn a complete smaller database into checkpoints, to extend it."""
        with h5py.File(database, "r") as source:
            for k in range(top + 1):
                tmp = self.path(k).with_suffix(".tmp")
                with h5py.File(tmp, "w") as f:
                    write_header(f, indexer(self.size))
                    f.attrs["checkpoint_layer"] = k
                    f.attrs["layers"] = k + 1
                    copy_layer(source[LAYER_GROUP][layer_name(k)], f[LAYER_GROUP])
                os.replace(tmp, self.path(k))
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
            raise BuildError(f"writing a checkpoint failed: {self.error}") from self.error

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
    """Copy the checkpoints into the final file, then rename it into place."""
    tmp = out.with_name(out.name + ".tmp")
    build_seconds = seconds
    with h5py.File(tmp, "w") as f:
        write_header(f, ix)
        group = f[LAYER_GROUP]
        for k in range(top + 1):
            with h5py.File(checkpoints.path(k), "r") as source:
                layer = source[LAYER_GROUP][layer_name(k)]
                copy_layer(layer, group)
        f.attrs["max_guards"] = top
        f.attrs["layers"] = top + 1
        f.attrs["retro_version"] = __version__
        f.attrs["build_seconds"] = round(build_seconds, 3)
        f.attrs["threads"] = threads or numba.get_num_threads()
        f.attrs["created"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
        f.attrs["complete"] = True
    replace_atomically(tmp, out)
