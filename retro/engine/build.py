"""The build driver: every tier of a game in dependency order, checkpointed, resumable.

A game (:mod:`retro.games.protocol`) lists its tiers so that each comes after the
tiers its moves lead into. The driver solves them in that order, each by the game's
own fast solver when it has one (Three Musketeers: the layer kernels of
:mod:`retro.games.musketeers.sweep`) or else by the engine's (:mod:`retro.engine.solvers`:
a one-pass evaluation for acyclic tiers, retrograde analysis for loopy ones), keeping
in memory the values of the tiers later ones still need. A writer thread puts each
finished tier into its stored form, digests it, compresses it and writes its
checkpoint while the next tier is solved.

Checkpoints live in ``<out>.partial/``, one HDF5 file per finished tier, each written
under a temporary name, flushed to the disk and renamed into place. A game built out
of core (nine men's morris) writes each tier's file straight to the disk, and beside it
the tier's raw values while a tier to come still reads them through a memory map.
Killing a build at any moment loses at most the tier in progress; running the same command again
resumes after the last checkpoint. The database itself is assembled from the
checkpoints (raw compressed chunks, copied) and renamed to ``<out>`` only once
complete.

What protects a user's data:

* one build per output at a time: an ``fcntl.flock`` on ``<out>.lock``, which the
  operating system releases when its holder dies (so ``kill -9`` then the same
  command still resumes); a second build is refused at once;
* every checkpoint a build did not write itself is checked against its SHA-256
  before it is used, and every chunk's Fletcher32 before it is copied into the
  database: a damaged checkpoint is rebuilt, never assembled;
* files are built in memory and written by Python (out of core: by HDF5 under a
  temporary name), so a full disk or a missing permission is one clean ``OSError``
  (reported in one line, with the space to free) and never a half-written file; the
  space a build needs is estimated and checked before it starts;
* an output (or its ``.lock``, ``.tmp`` or ``.partial``) that is a link, a device,
  a named pipe or a socket is refused, ``force`` or not: a build replaces its
  output, which would replace the device or the link rather than write through it;
* a complete database is kept only once every value has been read back against its
  SHA-256: a damaged one is reported with the command that rebuilds it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import queue
import shutil
import stat
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import h5py
import numba
import numpy as np

from . import peak_rss, rawstore
from .. import games
from .._version import __version__
from ..errors import BuildError, BuildLockedError, OutputPathError  # the first two re-exported
from ..games.protocol import Game
from ..db.format import (
    FORMAT,
    FORMAT_VERSION,
    ChecksumError,
    DatabaseError,
    DatabaseFile,
    IncompleteDatabaseError,
    build_command,
    build_path,
    dataset_path,
    manifest_path,
    partial_path,
    read_manifest,
    write_header,
)
from ..db.hdf5io import (
    HDF5_ERRORS,
    chunk_count,
    chunk_shape,
    copy_dataset,
    create_dataset,
    dataset_damage,
    digest,
    file_kind,
    get_text,
    new_image,
    read_values,
    set_text,
    write_atomically,
)
from ..progress import progress_bar
from ..units import size_text
from . import solvers

# The disk-space estimate: beside its compressed values (Game.compressed_fraction) a
# tier's dataset takes its header, attributes and chunk index (measured: 410-630 bytes
# and about 17 bytes a chunk), each file its header (measured in memory) and whole
# blocks of the file system.
DATASET_OVERHEAD = 1024
CHUNK_OVERHEAD = 32
BLOCK_BYTES = 4096  # where the file system does not say


@dataclass(frozen=True)
class BuildSummary:
    """What a build did."""

    path: Path
    game: Game
    tiers: tuple  # the tiers the database holds, in solving order
    positions: int  # positions solved (both sides, every symmetric image)
    computed_positions: int  # of which computed in this run (the rest came from checkpoints)
    seconds: float  # wall time of this run
    file_bytes: int
    resumed_from: object | None  # first tier computed in this run, when resuming
    already_built: bool = False
    tasks: list = field(default_factory=list)  # a cluster build: each task's report (tier, worker, ...)

    @property
    def size(self) -> int:
        """Three Musketeers: the board size."""
        return self.game.size

    @property
    def max_enemy_men(self) -> int:
        """Three Musketeers: the most enemy men in a position held (the last layer)."""
        return self.tiers[-1]

    max_guards = max_enemy_men  # the name of retro 0.2

    @property
    def resumed_from_layer(self):
        return self.resumed_from


def resolve_game(game: Game | str | int | None = None, variant: str | None = None) -> Game:
    """A game from a game, a name (with ``variant``) or a Three Musketeers board size."""
    if game is None:
        game = games.DEFAULT_GAME
    if isinstance(game, int) and not isinstance(game, bool):
        try:
            return games.musketeers_board(game)
        except games.UnknownGameError:
            raise BuildError(f"board size {game} is not supported: use 3, 4 or 5") from None
    if isinstance(game, str):
        try:
            return games.get(game, variant)
        except games.UnknownGameError as error:
            raise BuildError(str(error)) from None
    if not isinstance(game, Game):
        raise TypeError(f"expected a game, a game's name or a board size, not {type(game).__name__}")
    return game


def build(
    game: Game | str | int | None = None,
    out: str | os.PathLike | None = None,
    max_enemy_men: int | None = None,
    threads: int | None = None,
    *,
    variant: str | None = None,
    max_guards: int | None = None,
    stage: str | None = None,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    cluster: str | None = None,
    workers: int | None = None,
) -> BuildSummary:
    """Build (or resume, or extend) the database of a game.

    ``game`` is a game, a game's name (with ``variant``) or a Three Musketeers board
    size (the default: 5); ``out`` the file to write (default: the game's file where
    :func:`retro.db.locations.build_target` puts it). ``max_enemy_men`` limits a Three
    Musketeers build to layers 0..max_enemy_men (an endgame database); ``threads`` sets
    the number of numba threads; ``stage`` stops the build after one of the game's
    stages (nine men's morris: ``"moving"``, the moving phase), which a later build
    without it extends;
    ``force`` rebuilds even when a complete database is already at ``out`` (which is
    otherwise kept only once its values match their SHA-256). Raises
    :class:`BuildError` (one line, saying what to do) for bad arguments, an unusable
    output (one that is not a regular file, ``force`` or not), a damaged database at
    ``out``, another build of the same output (:class:`BuildLockedError`), or a disk
    that is full or refuses a write; the finished checkpoints are kept, so the same
    call resumes once that is fixed. ``log`` receives the build's notes (resuming,
    compiling, checkpoints removed); the seconds reported leave compiling out.

    ``cluster`` runs the tiers as tasks on Dask (:mod:`.cluster`): ``"local"`` starts a
    LocalCluster of ``workers`` processes here (1 to the machine's cores; ``threads``
    numba threads each); an address (``tcp://HOST:8786``) or a scheduler file names a
    running cluster whose workers see the output's folder. The database is the one a
    single-process build writes. A scheduler that does not answer within 10 s
    (:data:`.cluster.CONNECT_SECONDS`), an address that is malformed or not a Dask
    scheduler's, a worker that cannot see the folder or an unknown address raise
    :class:`BuildError` before anything is written.
    """
    started = time.perf_counter()
    say = log or (lambda message: None)
    if max_guards is not None:  # retro 0.2's name for it
        max_enemy_men = max_guards if max_enemy_men is None else max_enemy_men
    game = resolve_game(game, variant)
    tiers = _tiers(game, max_enemy_men, stage)
    _check_workers(workers)
    if workers is not None and cluster is None:
        raise BuildError("workers are for a cluster build: give --cluster local too")
    _set_threads(threads)
    out = Path(os.path.abspath(out if out is not None else build_path(game)))
    job = _Job(game, tiers, out, max_enemy_men, stage)
    _refuse_what_is_in_the_way(job)
    on = None
    if cluster is not None:  # before anything is written: a bad address is one line
        from .cluster import Cluster

        on = Cluster(cluster, workers, threads)
    try:
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise BuildError(job.write_failure(error, 0, out.parent)) from error
        if on is not None:
            on.check_folder(out.parent)
            link = on.dashboard
            if link:
                say(f"Dask dashboard: {link}")
        with _BuildLock(job), _CompileClock(started, say) as clock:
            try:
                return _build_locked(job, threads, force, progress, say, clock, on)
            except OutputPathError as error:  # a link or a device put in the way since the check
                raise BuildError(str(error)) from None
            except OSError as error:
                if isinstance(error, DatabaseError):
                    raise
                done = _Checkpoints.finished_on_disk(job)
                raise BuildError(job.write_failure(error, done)) from error
    finally:
        if on is not None:
            on.close()


def _refuse_what_is_in_the_way(job: _Job) -> None:
    """Refuse an output that exists and is not a regular file, and a lock, temporary
    file or checkpoint folder of it that is not what a build makes there.

    Nothing is followed or replaced: a build replaces its output by a rename, which
    would put a file where a device, a named pipe or a link was (the link's target
    never written), so ``force`` does not override this.
    """
    out = job.out
    try:
        mode = os.lstat(out).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise BuildError(job.write_failure(error, 0, out)) from error
    if mode is not None and stat.S_ISDIR(mode):
        raise BuildError(f"{out} is a directory; give a file name with --out")
    if mode is not None and stat.S_ISLNK(mode):
        target = Path(os.path.realpath(out))
        hint = f" (the file itself: --out {target})" if target.is_file() else ""
        raise BuildError(f"{out} is a symbolic link: a build would replace the link, not write "
                         f"the file it points to; choose another --out{hint}")
    if mode is not None and not stat.S_ISREG(mode):
        raise BuildError(f"{out} is {file_kind(mode)}, which a build would replace; "
                         "choose another --out")
    for path, is_right in ((_BuildLock.path_of(out), stat.S_ISREG),
                           (out.with_name(out.name + ".tmp"), stat.S_ISREG),
                           (partial_path(out), stat.S_ISDIR)):
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue  # absent (or unreadable: the build's own write reports it)
        if not is_right(mode):
            raise _in_the_way(path, mode, out)


def _in_the_way(path: Path, mode: int, out: Path) -> BuildError:
    return BuildError(f"{path} is {file_kind(mode)}, in the way of the build of {out}; "
                      "move it away or choose another --out")


def _tiers(game: Game, max_enemy_men: int | None, stage: str | None = None) -> tuple:
    if stage is not None:
        if max_enemy_men is not None:
            raise BuildError("--stage and --max-enemy-men do not go together")
        if stage not in game.stages:
            known = (f"its stages are: {', '.join(game.stages)}" if game.stages
                     else "it is built whole")
            raise BuildError(f"{game.name} has no stage {stage!r}; {known}")
        return tuple(game.stage_tiers(stage))
    if game.name != games.DEFAULT_GAME:
        if max_enemy_men is not None:
            raise BuildError(f"--max-enemy-men applies to three-musketeers only, not {game.name}")
        return tuple(game.tiers())
    free = len(game.tiers()) - 1
    if max_enemy_men is not None and not 0 <= int(max_enemy_men) <= free:
        raise BuildError(f"--max-enemy-men must be between 0 and {free} on a {game.variant} board")
    return tuple(game.tiers(None if max_enemy_men is None else int(max_enemy_men)))


@dataclass(frozen=True)
class _Job:
    """One build: the game, the tiers, the output and the options that name it."""

    game: Game
    tiers: tuple
    out: Path
    max_enemy_men: int | None
    stage: str | None = None

    def stored_bytes(self, tier) -> int:
        return int(np.prod(self.game.stored_shape(tier))) * np.dtype(self.game.value_dtype).itemsize

    def dataset_bytes(self, tier) -> int:
        """About the bytes a tier's dataset takes in a file, its values compressed."""
        chunks = chunk_count(self.game.stored_shape(tier), np.dtype(self.game.value_dtype).itemsize)
        return int(self.stored_bytes(tier) * self.game.compressed_fraction
                   + DATASET_OVERHEAD + chunks * CHUNK_OVERHEAD)

    def space_needed(self, done: int) -> int:
        """Bytes the build still needs on disk at its peak: the checkpoints of tiers
        done.. and, beside every checkpoint, the database being written (the
        checkpoints go once it is in place); out of core, also the raw values of the
        tiers still to be read."""
        try:
            block = os.statvfs(self.out.parent).f_frsize or BLOCK_BYTES
        except OSError:
            block = BLOCK_BYTES

        def whole(n: int) -> int:  # files take whole blocks
            return -(-n // block) * block

        header = _header_bytes(self.game, self.tiers[-1:])
        database = whole(_header_bytes(self.game, self.tiers)
                         + sum(self.dataset_bytes(t) for t in self.tiers))
        manifest = whole(len(json.dumps(self.manifest())) + 1)
        if not self.game.out_of_core:
            checkpoints = sum(whole(header + self.dataset_bytes(t)) for t in self.tiers[done:])
            return checkpoints + database + manifest
        # Out of core: the packed tiers so far and the raw values still to be read, at
        # their most while some tier is written; at the end, the packed tiers and the
        # database beside them. Tiers done already are on the disk (raw ones lost are
        # written again).
        last = _last_uses(self)
        directory = partial_path(self.out)
        packed, raw, peak = 0, {}, 0
        for i, tier in enumerate(self.tiers):
            if i >= done:
                packed += whole(header + self.dataset_bytes(tier))
            kept = last.get(tier, -1) > i
            if kept and (i >= done or not rawstore.raw_path(directory, self.game.tier_name(tier)).exists()):
                raw[tier] = whole(self.stored_bytes(tier) + 128) + block
            peak = max(peak, packed + sum(raw.values()))
            for gone in [t for t in raw if last.get(t, -1) <= i]:
                del raw[gone]
        return max(peak, packed + database) + manifest

    def manifest(self) -> dict:
        """What ``<out>.partial/build.json`` records: format, game and the build's options."""
        options = {} if self.max_enemy_men is None else {"max_enemy_men": self.max_enemy_men}
        if self.stage is not None:
            options["stage"] = self.stage
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "game": self.game.name,
                "variant": self.game.variant, **options}

    def check_space(self, done: int) -> None:
        needed = self.space_needed(done)
        free = shutil.disk_usage(self.out.parent).free
        if free < needed:
            raise BuildError(
                f"not enough space for {self.out}: the build needs about "
                f"{size_text(needed, 'up')} and {size_text(free, 'down')} are free on that "
                f"device; free about {size_text(needed - free, 'up')} or choose another --out"
            )

    def write_failure(self, error: OSError, done: int, where: Path | str | None = None) -> str:
        """One line for an OSError met while building: what failed and what to do."""
        where = where or error.filename or self.out
        if error.errno == errno.ENOSPC or error.errno == errno.EDQUOT:
            try:
                free = shutil.disk_usage(self.out.parent).free
            except OSError:
                free = 0
            missing = max(self.space_needed(done) - free, 1)
            return (f"no space left on device writing {where}: free about "
                    f"{size_text(missing, 'up')} and run the same command to resume")
        if error.errno == errno.EFBIG:
            return file_too_large(where)
        if error.errno in (errno.EACCES, errno.EPERM):
            return f"permission denied writing {where}: choose another --out or fix its permissions"
        if error.errno == errno.EROFS:
            return f"{where} is on a read-only file system: choose another --out"
        return f"cannot write {where}: {error.strerror or error}"


def file_too_large(where: Path | str) -> str:
    """One line for a write refused as too large (EFBIG): the process's file-size limit
    (``ulimit -f``), else the file system's largest file."""
    import resource

    limit = resource.getrlimit(resource.RLIMIT_FSIZE)[0]
    if limit != resource.RLIM_INFINITY:
        return (f"file too large writing {where}: this process may write files of at most "
                f"{size_text(limit, 'down')} (ulimit -f); raise the limit (ulimit -f unlimited) "
                "and run the same command to resume")
    return (f"file too large writing {where}: its file system holds no file that large; "
            "choose another --out on another file system")


def _header_bytes(game: Game, tiers) -> int:
    """The bytes of a file's header (and the game's tables) holding ``tiers``, measured."""
    buffer, f = new_image()
    with f:
        write_header(f, game, tiers)
        set_text(f.attrs, "checkpoint_tier", game.tier_name(tiers[-1]))
    return len(buffer.getbuffer())


def _build_locked(job: _Job, threads: int | None, force: bool, progress: bool,
                  say: Callable[[str], None], clock: _CompileClock, cluster=None) -> BuildSummary:
    game, tiers, out = job.game, job.tiers, job.out
    existing = None if force else _existing_database(job, progress)
    if existing is not None and existing >= len(tiers):
        held = tuple(game.tiers())[:existing]
        _remove_finished_checkpoints(job, held, say)
        return BuildSummary(out, game, held, game.positions(held), 0,
                            clock.seconds(), out.stat().st_size, None,
                            already_built=True)
    job.check_space(0 if force else _Checkpoints.finished_on_disk(job))
    checkpoints = (_OutOfCoreCheckpoints if game.out_of_core else _Checkpoints)(job, fresh=force, say=say)
    if existing is not None and checkpoints.completed <= existing - 1:
        say(f"extending {out} ({_span(game, tiers[:existing])}) to {_span(game, tiers)}")
        checkpoints.seed_from(out, existing)
    first = min(checkpoints.completed, len(tiers))
    if first > 0:
        say(f"resuming from checkpoints in {checkpoints.directory}: "
            f"{_span(game, tiers[:first])} already done")

    # Tiers after the first gap may be done too (a cluster finishes them in any order).
    later = checkpoints.sound_after(first)
    unsolved = [t for t in tiers[first:] if t not in later]
    total = game.positions(unsolved)
    if progress and total > 0:  # above the bar, with it only: quiet output stays quiet
        say(_memory_note(game, unsolved))
    bar = progress_bar(total, "solving", enabled=progress, smoothing=0.05)
    advance = (lambda amount: bar.update(int(amount))) if bar is not None else None
    tasks: list = []
    memory = _TierMemory(job, checkpoints)
    try:
        if cluster is not None:
            from .cluster import run_tiers

            done = set(tiers[:first]) | later
            checkpoints.prepare_reads(unsolved, done)
            tasks = run_tiers(cluster, job, checkpoints, unsolved, done, advance, say, solve_task)
        else:
            def starting(tier) -> None:  # a large tier is named as it starts, above the bar
                if bar is not None and game.tier_memory(tier) >= LARGE_TIER_BYTES:
                    with bar.external_write_mode():
                        say(_tier_note(game, tier))

            _solve_here(job, checkpoints, memory, first, later, advance, clock, starting)
    finally:
        if bar is not None:
            bar.close()

    # The file's build_seconds: this run's, plus the solving time of the tiers that
    # earlier runs left as checkpoints (a resumed build is one build).
    seconds = clock.seconds() + sum(checkpoints.seconds(t) for t in (*tiers[:first], *later))
    memory.kept.clear()  # drop the memory maps of the checkpoints before assembling
    # A cluster build's peak: the largest of its tasks' (each on its worker) and the driver's.
    workers_peak = max((t.get("peak_rss_bytes") or 0 for t in tasks), default=0) or None
    (_assemble_streamed if game.out_of_core else _assemble)(checkpoints, seconds, threads, workers_peak)
    shutil.rmtree(checkpoints.directory, ignore_errors=True)
    return BuildSummary(out, game, tiers, game.positions(tiers), total,
                        clock.seconds(), out.stat().st_size,
                        tiers[first] if first > 0 and unsolved else None, tasks=tasks)


def _solve_here(job: _Job, checkpoints: _Checkpoints, memory: _TierMemory, first: int,
                later: set, advance, clock: _CompileClock, starting=None) -> None:
    """Solve the tiers from the ``first``-th on in this process, skipping those in
    ``later`` (their checkpoints are sound), each checkpointed as it is done;
    ``starting(tier)`` is called as each tier starts."""
    game = job.game
    writer = _DirectWriter(checkpoints) if game.out_of_core else _TierWriter(checkpoints)
    try:
        for i, tier in enumerate(job.tiers[first:], start=first):
            if tier in later:  # read from its checkpoint when a tier needs it
                if game.out_of_core:
                    checkpoints.release(i)
                continue
            if starting is not None:
                starting(tier)
            tier_started = clock.seconds()
            if game.out_of_core:  # each tier's own peak, recorded with it
                peak_rss.reset()
            children = {child: memory.values(child) for child in game.child_tiers(tier)}
            values = _solve_tier(game, tier, children, advance)
            writer.submit(tier, values, clock.seconds() - tier_started)
            if game.out_of_core:  # from now on read from its checkpoint, not memory
                del values
                checkpoints.release(i)
            else:
                memory.keep(i, tier, values)
        writer.finish()
    except BaseException:
        writer.abandon()
        raise


# A tier the game expects to need this much memory or more is named as it starts (the
# build says its largest tier's figures before the first, whatever their size).
LARGE_TIER_BYTES = 1 << 30


def _tier_note(game: Game, tier) -> str:
    """A tier's entries and the memory its solve is expected to need
    (:meth:`Game.tier_memory`): ``tier moving: 9,971,010 entries, about 198 MB of memory``."""
    return (f"{game.tier_words(tier)}: {game.tier_size(tier):,} entries, "
            f"about {size_text(game.tier_memory(tier))} of memory")


def _memory_note(game: Game, tiers) -> str:
    """What the build says before the first tier: the tiers to solve and the largest."""
    if len(tiers) == 1:
        return f"solving {_tier_note(game, tiers[0])}"
    largest = max(tiers, key=game.tier_memory)
    return f"solving {_span(game, tiers)}; the largest, {_tier_note(game, largest)}"


def _span(game: Game, tiers) -> str:
    """How a build names a run of tiers: ``layers 0..7`` for Three Musketeers."""
    if not tiers:
        return "no tiers"
    if game.name == games.DEFAULT_GAME:
        return f"layers {tiers[0]}..{tiers[-1]}"
    return f"{len(tiers)} tiers"


def _solve_tier(game: Game, tier, children: dict, advance) -> np.ndarray:
    """A tier of the build (apart from the warm-up's, so that tests can stop a build here)."""
    return _tier_values(game, tier, children, advance)


def _tier_values(game: Game, tier, children: dict, advance=None) -> np.ndarray:
    """A tier's values: the game's fast solver, else the engine's."""
    values = game.solve_tier(tier, children, advance)
    if values is None:
        values = solvers.solve(game, tier, children)
        if advance is not None:
            advance(game.positions_in(tier))
    return values


# --- a tier as a cluster's task ------------------------------------------------------

SLOW_TIER = "RETRO_TEST_SLOW_TIER"  # tests: "<tier name>:<seconds>" makes that task sleep first


def solve_task(spec: dict, tier, threads: int | None, *children: dict) -> dict:
    """On a cluster's worker: solve ``tier`` of the build ``spec`` from its children's
    checkpoints (their digests, ``children``, say they are done) and write its
    checkpoint; returns its name, digest, seconds and peak memory. Handed to
    :func:`retro.engine.cluster.run_tiers` (here, beside the checkpoints it uses)."""
    if threads:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    game = games.get(spec["game"], spec["variant"])
    job = _Job(game, _tiers(game, spec["max_enemy_men"], spec["stage"]), Path(spec["out"]),
               spec["max_enemy_men"], spec["stage"])
    checkpoints = attached_checkpoints(job)
    name = game.tier_name(tier)
    slow = os.environ.get(SLOW_TIER, "")
    if slow.rpartition(":")[0] == name:
        time.sleep(float(slow.rpartition(":")[2]))
    started = time.perf_counter()
    peak_rss.reset()
    values = {child: checkpoints.load(child) for child in game.child_tiers(tier)}
    solved = _tier_values(game, tier, values)
    del values
    stored = game.to_stored(tier, solved)
    checkpoints.write(tier, stored, time.perf_counter() - started)
    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):  # run outside a worker (tests)
        worker = None
    return {"tier": name, "sha256": checkpoints.digest(tier), "seconds": time.perf_counter() - started,
            "peak_rss_bytes": peak_rss.read(), "worker": worker}


class _TierMemory:
    """The values of solved tiers that later tiers still need, and no others."""

    def __init__(self, job: _Job, checkpoints: _Checkpoints) -> None:
        self.checkpoints = checkpoints
        self.mapped = job.game.out_of_core
        self.last_use = _last_uses(job)  # tier -> the last tier (by its place) that needs it
        self.kept: dict = {}

    def values(self, tier) -> np.ndarray:
        values = self.kept.get(tier)
        if values is None:  # solved by an earlier run: from its checkpoint
            values = self.checkpoints.load(tier)
            # An out-of-core build maps its checkpoints afresh for each tier (and keeps
            # nothing): a map kept from tier to tier holds every page any tier read from
            # it in the resident set, where the page cache alone gives them back.
            if not self.mapped:
                self.kept[tier] = values
        return values

    def keep(self, now: int, tier, values: np.ndarray) -> None:
        if self.last_use.get(tier, -1) > now:
            self.kept[tier] = values
        for old in [t for t in self.kept if self.last_use.get(t, -1) <= now]:
            del self.kept[old]


class _BuildLock:
    """An exclusive ``flock`` on ``<out>.lock`` for the whole build.

    The kernel drops the lock when the holder dies, however it dies, so a killed
    build never blocks the next one. The file is removed by the holder when it is
    done; a build that opened the file just before that removal would lock an
    unlinked file, so it checks that the path still names the file it locked.
    """

    def __init__(self, job: _Job) -> None:
        self.job = job
        self.out = job.out
        self.path = self.path_of(job.out)
        self.fd: int | None = None

    @staticmethod
    def path_of(out: Path) -> Path:
        """``<out>.lock``."""
        return out.with_name(out.name + ".lock")

    def __enter__(self) -> _BuildLock:
        while True:
            try:  # never through a link; a named pipe must not block the open
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                             | os.O_CLOEXEC, 0o644)
            except OSError as error:  # the folder refuses a new file: name the folder
                if error.errno == errno.ELOOP:
                    raise _in_the_way(self.path, stat.S_IFLNK, self.out) from None
                raise BuildError(self.job.write_failure(error, 0, self.out.parent)) from error
            if not stat.S_ISREG(mode := os.fstat(fd).st_mode):  # put there since the check
                os.close(fd)
                raise _in_the_way(self.path, mode, self.out)
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


def _check_workers(workers: int | None) -> None:
    """A LocalCluster's worker processes: 1 to the machine's cores. Each worker runs at
    least one thread, so more workers than cores only add processes (each a Python with
    its own memory, semaphores and numba) that wait for the same cores."""
    if workers is None:
        return
    cores = os.cpu_count() or 1
    if not 1 <= workers <= cores:
        raise BuildError(f"--workers must be between 1 and {cores} (the cores of this machine), "
                         f"not {workers}")


def _set_threads(threads: int | None) -> None:
    if threads is None:
        return
    limit = numba.config.NUMBA_NUM_THREADS
    if not 1 <= threads <= limit:
        raise BuildError(f"--threads must be between 1 and {limit} on this machine")
    numba.set_num_threads(threads)


def _existing_database(job: _Job, progress: bool) -> int | None:
    """How many tiers a complete database of this game at ``out`` holds; None if absent.

    The database is kept (or extended) only once every value is read back against its
    SHA-256: a damaged one is refused with the command that rebuilds it.
    """
    out, game = job.out, job.game
    if not out.exists():
        return None
    try:
        db = DatabaseFile(out)
    except IncompleteDatabaseError:
        return None  # a file of an interrupted assembly: rebuilt from the checkpoints
    except DatabaseError as error:
        raise BuildError(f"{out} exists and is not a retro database ({error}); move it away or pass --force") from error
    try:
        if db.game is not game:
            raise BuildError(f"{out} holds the {db.game.full_name} database; choose another --out "
                             "or pass --force")
        bar = progress_bar(game.positions(db.tiers), "checking", enabled=progress)
        try:
            problem = db.damage((lambda n: bar.update(n)) if bar is not None else None)
        finally:
            if bar is not None:
                bar.close()
        if problem is not None:
            raise BuildError(f"{out} is damaged ({problem}); rebuild it with: "
                             f"{build_command(out, game, job.max_enemy_men, job.stage)} --force")
        return len(db.tiers)
    finally:
        db.close()


def _remove_finished_checkpoints(job: _Job, held: tuple, say: Callable[[str], None]) -> None:
    """Remove ``<out>.partial/`` left by a build killed after its database was in place.

    Only when it holds nothing the sound database lacks: checkpoints of another game,
    or of tiers beyond the database's (an extension under way), are kept.
    """
    directory = partial_path(job.out)
    if not directory.is_dir():
        return
    manifest = read_manifest(job.out)
    if manifest is not None and not _same_build(manifest, job):
        return
    if any(_checkpoint_path(job, tier).exists() for tier in job.game.tiers()[len(held):]):
        return
    shutil.rmtree(directory, ignore_errors=True)
    if not directory.exists():
        say(f"removed {directory}: checkpoints of a build that finished ({job.out} is complete "
            "and every value matches its SHA-256)")


class _CompileClock:
    """A build's clock, which leaves numba's compiling out, and its compiling notice.

    numba compiles a kernel, or loads it from its cache, at its first call: here, within
    the build. Only a real compile fires numba's ``numba:compile`` event (a load from the
    cache does not), so the notice is said at the first one, once, and the wall time
    while any thread compiles is taken off the build's seconds.
    """

    NOTICE = "compiling the build's kernels (first run only; later runs read numba's cache)..."

    def __init__(self, started: float, say: Callable[[str], None]) -> None:
        self.started = started
        self.say = say
        self.lock = threading.Lock()
        self.active = 0  # compiles under way (nested ones, other threads')
        self.since = 0.0
        self.compiled = 0.0  # seconds during which something compiled
        self.said = False

    def seconds(self) -> float:
        """Wall seconds since the build started, less those spent compiling."""
        with self.lock:
            now = time.perf_counter()
            ongoing = now - self.since if self.active else 0.0
            return now - self.started - self.compiled - ongoing

    def on_start(self, event) -> None:
        with self.lock:
            if self.active == 0:
                self.since = time.perf_counter()
            self.active += 1
            say, self.said = not self.said, True
        if say:
            self.say(self.NOTICE)

    def on_end(self, event) -> None:
        with self.lock:
            self.active -= 1
            if self.active == 0:
                self.compiled += time.perf_counter() - self.since

    def __enter__(self) -> _CompileClock:
        from numba.core import event

        class Listener(event.Listener):
            def on_start(_, e) -> None:
                self.on_start(e)

            def on_end(_, e) -> None:
                self.on_end(e)

        self.listener = Listener()
        event.register("numba:compile", self.listener)
        return self

    def __exit__(self, *exc) -> None:
        from numba.core import event

        event.unregister("numba:compile", self.listener)


class _Checkpoints:
    """The ``<out>.partial/`` directory: one file per finished tier, and a manifest.

    The manifest records the format, the game and variant (checkpoints of another are
    thrown away) and the build's options, so that the hint to resume names them all.
    """

    def __init__(self, job: _Job, *, fresh: bool, say: Callable[[str], None],
                 attach: bool = False) -> None:
        self.job = job
        self.game = job.game
        self.directory = directory = partial_path(job.out)
        self.completed = 0
        if attach:  # a task on a cluster worker: the driver set the directory up
            return
        if fresh or not _same_build(read_manifest(job.out), job):
            shutil.rmtree(directory, ignore_errors=True)
            directory.mkdir(parents=True)
        for stale in directory.glob("*.tmp"):  # a write cut off by a kill
            stale.unlink(missing_ok=True)
        write_atomically(json.dumps(job.manifest()).encode(), manifest_path(job.out))
        self.completed = 0
        for tier in job.tiers:
            if not self.path(tier).exists():
                break
            problem = self._problem(tier)
            if problem is not None:
                say(f"checkpoint {self.path(tier)} is damaged ({problem}); "
                    f"rebuilding from {self.game.tier_words(tier)}")
                break
            self.completed += 1

    @staticmethod
    def finished_on_disk(job: _Job) -> int:
        """Tiers with checkpoint files, in order (not checked)."""
        n = 0
        for tier in job.tiers:
            if not _checkpoint_path(job, tier).exists():
                break
            n += 1
        return n

    def path(self, tier) -> Path:
        return _checkpoint_path(self.job, tier)

    def sound_after(self, first: int) -> set:
        """The tiers after the first ``first`` whose checkpoints are sound (a cluster
        finishes tiers in any order; a damaged one is removed, to be solved again)."""
        sound = set()
        for tier in self.job.tiers[first + 1:]:
            if self.path(tier).exists():
                if self._problem(tier) is None:
                    sound.add(tier)
                else:
                    self.path(tier).unlink(missing_ok=True)
        return sound

    def digest(self, tier) -> str:
        """The SHA-256 its checkpoint records."""
        with h5py.File(self.path(tier), "r") as f:
            return get_text(f[dataset_path(self.game, tier)].attrs, "sha256")

    def prepare_reads(self, todo: list, done: set) -> None:
        """Before tasks of ``todo`` run elsewhere: what they read of ``done`` is ready."""

    def release_finished(self, finished: set) -> None:
        """Free what no unfinished tier reads any more (a cluster build)."""

    def _problem(self, tier) -> str | None:
        """Why a checkpoint cannot be used (None when it is sound): its header, its
        layout, every chunk (Fletcher32) and its SHA-256 are checked."""
        name = self.game.tier_name(tier)
        try:
            with h5py.File(self.path(tier), "r") as f:
                where = dataset_path(self.game, tier)
                if get_text(f.attrs, "checkpoint_tier") != name or where not in f:
                    return "not the checkpoint of this tier"
                dataset = f[where]
                shape = self.game.stored_shape(tier)
                if dataset.shape != shape or dataset.dtype != np.dtype(self.game.value_dtype) or (
                        len(shape) == 2 and dataset.chunks != chunk_shape(*shape)):
                    return "wrong shape"
                return dataset_damage(dataset)
        except HDF5_ERRORS as error:
            return f"unreadable: {str(error).splitlines()[0] if str(error) else type(error).__name__}"

    def load(self, tier) -> np.ndarray:
        """A tier's values in entry order (checked when the build began)."""
        with h5py.File(self.path(tier), "r") as f:
            stored = read_values(f[dataset_path(self.game, tier)])
        return self.game.from_stored(tier, stored)

    def seconds(self, tier) -> float:
        """The seconds its run took to solve the tier (0 when not recorded)."""
        try:
            with h5py.File(self.path(tier), "r") as f:
                return float(f[dataset_path(self.game, tier)].attrs.get("seconds", 0.0))
        except (*HDF5_ERRORS, KeyError):
            return 0.0

    def _new(self, tier) -> tuple:
        buffer, f = new_image()
        self._header(f, tier)
        return buffer, f

    def _header(self, f: h5py.File, tier) -> None:
        """The header of ``tier``'s checkpoint file."""
        write_header(f, self.game, [tier])
        set_text(f.attrs, "checkpoint_tier", self.game.tier_name(tier))

    def write(self, tier, stored: np.ndarray, seconds: float) -> None:
        buffer, f = self._new(tier)
        with f:
            group = f[dataset_path(self.game, tier).rsplit("/", 1)[0]]
            dataset = create_dataset(group, self.game.tier_name(tier), stored, digest(stored),
                                     self.game.gzip_level)
            for key, value in self.game.tier_attrs(tier).items():
                dataset.attrs[key] = value
            dataset.attrs["seconds"] = seconds
        write_atomically(buffer.getbuffer(), self.path(tier))

    def seed_from(self, database: Path, count: int) -> None:
        """Turn the first ``count`` tiers of a complete database into checkpoints, to
        extend it."""
        with h5py.File(database, "r") as source:
            for tier in self.job.tiers[:count]:
                buffer, f = self._new(tier)
                with f:
                    where = dataset_path(self.game, tier)
                    copy_dataset(source[where], f[where.rsplit("/", 1)[0]], self.game.tier_words(tier))
                write_atomically(buffer.getbuffer(), self.path(tier))
        self.completed = count


def attached_checkpoints(job: _Job) -> _Checkpoints:
    """The checkpoints of a build under way elsewhere (a cluster task's view): read and
    written, never set up or cleared."""
    kind = _OutOfCoreCheckpoints if job.game.out_of_core else _Checkpoints
    return kind(job, fresh=False, say=lambda message: None, attach=True)


def _same_build(manifest: dict | None, job: _Job) -> bool:
    """Whether checkpoints of that manifest are of ``job``'s game (format, game, variant)."""
    stamp = ("format", "format_version", "game", "variant")
    return manifest is not None and all(manifest.get(k) == job.manifest()[k] for k in stamp)


def _checkpoint_path(job: _Job, tier) -> Path:
    """``<out>.partial/<tier name>.h5``: the checkpoint of a finished tier."""
    return partial_path(job.out) / f"{job.game.tier_name(tier)}.h5"


class _OutOfCoreCheckpoints(_Checkpoints):
    """Checkpoints of a game built out of core: each finished tier packed into its HDF5
    file as the database stores it (ranks, gzip, Fletcher32, digest), written from the
    solved values straight to the disk; and, while a later tier still reads it, its raw
    values (:mod:`.rawstore`) for the memory maps. A raw file goes as soon as no tier
    to come needs it, so the disk holds the packed tiers and a few raw ones, never
    every tier raw (nine men's morris: 55 GB raw, about 12 GB packed). A raw file lost
    or damaged (a kill, a resume) is written again from its packed tier."""

    def __init__(self, job: _Job, *, fresh: bool, say: Callable[[str], None],
                 attach: bool = False) -> None:
        super().__init__(job, fresh=fresh, say=say, attach=attach)
        self.say = say
        self.last_use = _last_uses(job)
        self.readers: dict = {}  # tier -> the tiers that read it
        for tier in job.tiers:
            for child in job.game.child_tiers(tier):
                self.readers.setdefault(child, []).append(tier)
        self.raw_sound: set = set()  # raw files checked (or written) by this run

    def raw_path(self, tier) -> Path:
        return rawstore.raw_path(self.directory, self.game.tier_name(tier))

    def needed_after(self, tier) -> bool:
        """Whether a tier to come reads ``tier`` (so its raw values are kept)."""
        return self.last_use.get(tier, -1) > self.job.tiers.index(tier)

    def load(self, tier) -> np.ndarray:
        raw = self.raw_path(tier)
        if tier not in self.raw_sound:
            problem = rawstore.raw_problem(raw, self.game.tier_size(tier), self.game.value_dtype)
            if problem is not None:
                if raw.exists() or rawstore.digest_path(raw).exists():
                    self.say(f"raw values {raw} are damaged ({problem}); "
                             f"written again from {self.path(tier)}")
                with h5py.File(self.path(tier), "r") as f:
                    dataset = f[dataset_path(self.game, tier)]
                    values = read_values(dataset)
                    seconds = float(dataset.attrs.get("seconds", 0.0))
                rawstore.write_raw(raw, values, seconds)
                del values
            self.raw_sound.add(tier)
        return rawstore.open_raw(raw)

    def write(self, tier, stored: np.ndarray, seconds: float) -> None:
        peak = peak_rss.read()
        sha256 = digest(stored)
        if self.needed_after(tier):
            rawstore.write_raw(self.raw_path(tier), stored, seconds, peak, sha256)
            self.raw_sound.add(tier)

        def write(f: h5py.File) -> None:
            self._header(f, tier)
            group = f[dataset_path(self.game, tier).rsplit("/", 1)[0]]
            dataset = rawstore.write_dataset(group, self.game.tier_name(tier), stored, sha256,
                                             self.game.gzip_level)
            for key, value in self.game.tier_attrs(tier).items():
                dataset.attrs[key] = value
            dataset.attrs["seconds"] = seconds
            if peak is not None:
                dataset.attrs["peak_rss_bytes"] = peak

        rawstore.stream_database(self.path(tier), write)

    def prepare_reads(self, todo: list, done: set) -> None:
        """Raw values of the finished tiers that ``todo`` reads, written here once (the
        tasks on the cluster then only read them: two never write one file)."""
        wanted = {child for tier in todo for child in self.game.child_tiers(tier)} & done
        for tier in self.job.tiers:
            if tier in wanted:
                self.load(tier)

    def release_finished(self, finished: set) -> None:
        """Remove the raw values of tiers whose readers are all finished."""
        for tier in self.job.tiers:
            readers = self.readers.get(tier, ())
            if tier in finished and all(r in finished for r in readers):
                raw = self.raw_path(tier)
                if raw.exists() or rawstore.digest_path(raw).exists():
                    raw.unlink(missing_ok=True)
                    rawstore.digest_path(raw).unlink(missing_ok=True)

    def release(self, now: int) -> None:
        """Remove the raw values no tier after the ``now``-th reads."""
        for tier in self.job.tiers[:now + 1]:
            if self.last_use.get(tier, -1) <= now:
                raw = self.raw_path(tier)
                if raw.exists() or rawstore.digest_path(raw).exists():
                    raw.unlink(missing_ok=True)
                    rawstore.digest_path(raw).unlink(missing_ok=True)
                self.raw_sound.discard(tier)

    def seed_from(self, database: Path, count: int) -> None:
        """Pack the first ``count`` tiers of a complete database as checkpoints (their
        chunks copied, checked on the way); raw values come when a tier needs them."""
        with h5py.File(database, "r") as source:
            for tier in self.job.tiers[:count]:
                where = dataset_path(self.game, tier)

                def write(f: h5py.File, tier=tier, where=where) -> None:
                    self._header(f, tier)
                    copy_dataset(source[where], f[where.rsplit("/", 1)[0]],
                                 self.game.tier_words(tier))

                rawstore.stream_database(self.path(tier), write)
        self.completed = count


def _last_uses(job: _Job) -> dict:
    """Each tier's last reader: the place in ``job.tiers`` of the last tier that needs it."""
    last: dict = {}
    for i, tier in enumerate(job.tiers):
        for child in job.game.child_tiers(tier):
            last[child] = max(last.get(child, -1), i)
    return last


class _DirectWriter:
    """The out-of-core build's writer: each tier written before the next is solved (the
    next may read it through its memory map at once; the solve dwarfs the write)."""

    def __init__(self, checkpoints: _Checkpoints) -> None:
        self.checkpoints = checkpoints

    def submit(self, tier, values: np.ndarray, seconds: float) -> None:
        self.checkpoints.write(tier, self.checkpoints.game.to_stored(tier, values), seconds)

    def finish(self) -> None:
        pass

    def abandon(self) -> None:
        pass


class _TierWriter:
    """Background thread: stored form, digest, compression, checkpoint file."""

    def __init__(self, checkpoints: _Checkpoints) -> None:
        self.checkpoints = checkpoints
        self.jobs: queue.Queue = queue.Queue(maxsize=1)  # bounds memory to one tier in flight
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name="retro-tier-writer", daemon=True)
        self.thread.start()

    def submit(self, tier, values: np.ndarray, seconds: float) -> None:
        self._raise_if_failed()
        self.jobs.put((tier, values, seconds))

    def finish(self) -> None:
        self.jobs.put(None)
        self.thread.join()
        self._raise_if_failed()

    def abandon(self) -> None:
        """Stop after the tier in flight: a finished tier is worth its checkpoint."""
        if self.thread.is_alive():
            self.jobs.put(None)
            self.thread.join()

    def _raise_if_failed(self) -> None:
        if self.error is not None:
            raise self.error  # an OSError is reported by build() with what to do

    def _run(self) -> None:
        game = self.checkpoints.game
        while (job := self.jobs.get()) is not None:
            if self.error is not None:
                continue
            tier, values, seconds = job
            try:
                self.checkpoints.write(tier, game.to_stored(tier, values), seconds)
            except BaseException as error:  # reported to the builder thread
                self.error = error


def _finish_header(f: h5py.File, seconds: float, threads: int | None) -> None:
    set_text(f.attrs, "retro_version", __version__)
    f.attrs["build_seconds"] = round(seconds, 3)
    f.attrs["threads"] = threads or numba.get_num_threads()
    set_text(f.attrs, "created", datetime.now(timezone.utc).isoformat(timespec="seconds"))
    f.attrs["complete"] = True


def _assemble_streamed(checkpoints: _OutOfCoreCheckpoints, seconds: float,
                       threads: int | None, workers_peak: int | None = None) -> None:
    """Write the database of an out-of-core build into ``<out>.tmp`` from its packed
    checkpoints, then rename it: on the disk, never whole in memory."""
    rawstore.stream_database(checkpoints.job.out,
                             lambda f: _copy_checkpoints(f, checkpoints, seconds, threads, workers_peak))


def _assemble(checkpoints: _Checkpoints, seconds: float, threads: int | None,
              workers_peak: int | None = None) -> None:
    """Copy the checkpoints into the final file, then write it into place."""
    buffer, f = new_image()
    with f:
        _copy_checkpoints(f, checkpoints, seconds, threads, workers_peak)
    write_atomically(buffer.getbuffer(), checkpoints.job.out)


def _copy_checkpoints(f: h5py.File, checkpoints: _Checkpoints, seconds: float,
                      threads: int | None, workers_peak: int | None = None) -> None:
    """The database in ``f``: its header, then every tier's dataset copied from its
    checkpoint as it is stored (each chunk's Fletcher32 checked on the way: a damaged
    checkpoint is deleted, to be rebuilt), then the build's figures."""
    job, game = checkpoints.job, checkpoints.game
    write_header(f, game, job.tiers)
    for tier in job.tiers:
        where = dataset_path(game, tier)
        with h5py.File(checkpoints.path(tier), "r") as source:
            try:
                copy_dataset(source[where], f[where.rsplit("/", 1)[0]], game.tier_words(tier))
            except ChecksumError as error:
                checkpoints.path(tier).unlink(missing_ok=True)
                raise BuildError(
                    f"checkpoint {checkpoints.path(tier)} was damaged after it was written "
                    f"({error}); it is deleted: run the same command again to rebuild it"
                ) from error
    _finish_header(f, seconds, threads)
    # The whole run's peak (an out-of-core build resets the kernel's record per tier).
    peak = max(peak_rss.highest() or 0, workers_peak or 0) or None
    if peak is not None:
        f.attrs["peak_rss_bytes"] = peak
