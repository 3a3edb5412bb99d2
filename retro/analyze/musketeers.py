"""Statistics of a solved database: who wins how often, how long games last, and
which positions can arise from the standard start.

:func:`analyze` reads every stored layer once, resolves the musketeers-to-move
values (never stored) from the layer below, and counts, per side to move and per
enemy count, the positions won by each side two ways: *table entries* (placements
× masks, as stored) and *distinct positions up to symmetry* (an entry of a
placement that some symmetry maps onto itself can be the image of another entry of
the same placement; each such class counts once). It also records the plies-to-end
distribution, the longest win of each side with an example, and the positions
reachable from the start (:func:`reachable`, a forward search over index space).
:func:`plot` draws the charts.

Everything works in the file's storage order with the tables of
:mod:`retro.verify`; analysis is not an independent check, so it reuses them.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange

from ..games.musketeers import rules
from ..bits import lowest_bit_index, popcount
from ..games.musketeers.index import indexer, layer_masks, mask_rank
from ..games.musketeers.position import Position, Side
from ..db.format import DatabaseFile, NotADatabaseError
from ..errors import OutputPathError
from ..outputs import make_output_folder, save_figure
from ..progress import progress_bar
from ..verify.musketeers import (
    MUSKETEER_KEYS,
    MUSKETEER_VALUES,
    Geometry,
    bit_lists,
    entry_of,
    entry_position,
    geometry,
    metadata_checks,
    musketeer_values,
)

SIDE_KEYS = ("musketeers_to_move", "enemy_to_move")  # indexed by side code
WINNER_KEYS = ("musketeers", "enemy")


class AnalysisError(ValueError):
    """An analysis or plot that cannot be made (bad arguments, missing matplotlib)."""


class MatplotlibMissingError(AnalysisError):
    """``plot`` needs matplotlib, which is not installed."""


# --- counting kernels --------------------------------------------------------------


@njit(cache=True, nogil=True)
def _image(m, perm):
    return perm[0, m & 0xFF] | perm[1, (m >> 8) & 0xFF] | perm[2, (m >> 16) & 0xFF]


@njit(cache=True, parallel=True, nogil=True)
def value_histograms(values, masks, stabilizer_count, stabilizer_perm, rank_table,
                     entries, distinct, mismatched):
    """Per placement: value histograms of the table entries and of one entry per
    symmetry class (the one with the smallest mask), and the entries whose value
    differs from a symmetric image's (0 for a sound table)."""
    length = values.shape[1]
    for p in prange(values.shape[0]):
        row = values[p]
        # Four interleaved counters: runs of equal values would otherwise chain
        # every increment on the previous one.
        counts = np.zeros((4, 256), dtype=np.int64)
        quarter = length // 4
        for r in range(quarter):
            counts[0, row[4 * r]] += 1
            counts[1, row[4 * r + 1]] += 1
            counts[2, row[4 * r + 2]] += 1
            counts[3, row[4 * r + 3]] += 1
        for r in range(4 * quarter, length):
            counts[0, row[r]] += 1
        for v in range(256):
            entries[p, v] = counts[0, v] + counts[1, v] + counts[2, v] + counts[3, v]
        mismatched[p] = 0
        if stabilizer_count[p] == 0:
            for v in range(256):
                distinct[p, v] = entries[p, v]
            continue
        for v in range(256):
            distinct[p, v] = 0
        for r in range(length):
            m = np.int64(masks[r])
            smallest = True
            for g in range(stabilizer_count[p]):
                image = np.int64(_image(m, stabilizer_perm[p, g]))
                if image < m:
                    smallest = False
                if row[mask_rank(image, rank_table)] != row[r]:
                    mismatched[p] += 1
            if smallest:
                distinct[p, row[r]] += 1


@njit(cache=True, parallel=True, nogil=True)
def class_counts(masks, stabilizer_count, stabilizer_perm, out):
    """Number of symmetry classes among each placement's entries of one layer."""
    length = len(masks)
    for p in prange(len(out)):
        if stabilizer_count[p] == 0:
            out[p] = length
            continue
        n = 0
        for r in range(length):
            m = np.int64(masks[r])
            smallest = True
            for g in range(stabilizer_count[p]):
                if np.int64(_image(m, stabilizer_perm[p, g])) < m:
                    smallest = False
            if smallest:
                n += 1
        out[p] = n


# --- reachability kernels (bit sets: one int64 word holds 64 storage ranks) ----------


@njit(cache=True, nogil=True)
def _set(row, r):
    row[r >> 6] |= np.int64(1) << (r & 63)


@njit(cache=True, parallel=True, nogil=True)
def enemy_moves(reached, masks, aligned, neighbour_bits, rank_table, out):
    """Mark in ``out`` (musketeers to move, same layer) every position one enemy move
    away from a position of ``reached`` (enemy to move). Moves keep the placement, so
    each placement's row is its own and threads never share a word."""
    for p in prange(reached.shape[0]):
        if aligned[p]:
            continue  # the game is over: the enemy has won
        row = reached[p]
        target = out[p]
        for w in range(row.shape[0]):
            word = row[w]
            while word != 0:
                r = (w << 6) + lowest_bit_index(word)
                word &= word - 1
                m = np.int64(masks[r])
                men = m
                while men != 0:
                    i = lowest_bit_index(men)
                    men &= men - 1
                    steps = neighbour_bits[p, i] & ~m
                    while steps != 0:
                        j = lowest_bit_index(steps)
                        steps &= steps - 1
                        child = m ^ (np.int64(1) << i) ^ (np.int64(1) << j)
                        _set(target, mask_rank(child, rank_table))


@njit(cache=True, parallel=True, nogil=True)
def captures(reached, masks, aligned, capture_count, capture_bit, capture_child,
             capture_perm, rank_table, out):
    """Mark in ``out[t]`` (enemy to move, layer below) every position one capture away
    from a position of ``reached`` (musketeers to move). A capture can land on any
    placement, so each of the ``out.shape[0]`` workers writes its own copy."""
    workers = out.shape[0]
    placements = reached.shape[0]
    for t in prange(workers):
        copy = out[t]
        for p in range(t, placements, workers):
            if aligned[p]:
                continue
            row = reached[p]
            for w in range(row.shape[0]):
                word = row[w]
                while word != 0:
                    r = (w << 6) + lowest_bit_index(word)
                    word &= word - 1
                    m = np.int64(masks[r])
                    for c in range(capture_count[p]):
                        if (m >> capture_bit[p, c]) & 1:
                            child = np.int64(_image(m, capture_perm[p, c]))
                            _set(copy[capture_child[p, c]], mask_rank(child, rank_table))


@njit(cache=True, parallel=True, nogil=True)
def merge(copies, out):
    """OR of the workers' copies."""
    for p in prange(copies.shape[1]):
        for t in range(copies.shape[0]):
            for w in range(copies.shape[2]):
                out[p, w] |= copies[t, p, w]


@njit(cache=True, parallel=True, nogil=True)
def close_and_count(reached, masks, stabilizer_count, stabilizer_perm, rank_table,
                    entries, distinct):
    """Add every symmetric image of a reached entry (same placement), then count
    entries and classes (a class counts at its smallest mask)."""
    for p in prange(reached.shape[0]):
        row = reached[p]
        sym = stabilizer_count[p]
        if sym:
            for w in range(row.shape[0]):
                word = row[w]
                while word != 0:
                    r = (w << 6) + lowest_bit_index(word)
                    word &= word - 1
                    m = np.int64(masks[r])
                    for g in range(sym):
                        _set(row, mask_rank(np.int64(_image(m, stabilizer_perm[p, g])), rank_table))
        n = 0
        k = 0
        for w in range(row.shape[0]):
            word = row[w]
            n += popcount(word)
            if sym:
                while word != 0:
                    r = (w << 6) + lowest_bit_index(word)
                    word &= word - 1
                    m = np.int64(masks[r])
                    smallest = True
                    for g in range(sym):
                        if np.int64(_image(m, stabilizer_perm[p, g])) < m:
                            smallest = False
                    if smallest:
                        k += 1
        entries[p] = n
        distinct[p] = n if sym == 0 else k


# --- reachability ---------------------------------------------------------------------


@dataclass
class Reachability:
    """Positions reachable from a start by legal play, per side to move and enemy count.

    Arrays are indexed ``[side, k]`` (side 0: musketeers to move) over enemy counts
    ``0..free``; ``all_distinct[k]`` is the number of distinct positions of either side
    with k men. ``sets[side][k]`` (with ``keep=True``) holds the reached entries as bit
    rows in storage order, closed under symmetry.
    """

    size: int
    start: str
    entries: np.ndarray
    distinct: np.ndarray
    all_distinct: np.ndarray
    seconds: float
    sets: list | None = None

    @property
    def share(self) -> float:
        """Reachable distinct positions over all distinct positions, both sides."""
        return float(self.distinct.sum() / (2 * self.all_distinct.sum()))

    def side_share(self, side: int) -> float:
        return float(self.distinct[side].sum() / self.all_distinct.sum())

    def contains(self, position: Position) -> bool:
        """Whether ``position`` (up to symmetry) is reachable; needs ``keep=True``."""
        if self.sets is None:
            raise AnalysisError("reachable(..., keep=True) keeps the sets that contains() reads")
        if position.size != self.size:
            raise AnalysisError(f"a {position.size}x{position.size} position on a "
                                f"{self.size}x{self.size} board")
        geo = geometry(self.size)
        p, mask = entry_of(geo, position)
        r = int(mask_rank(np.int64(mask), indexer(self.size).rank_table))
        row = self.sets[position.side.code][position.enemy_count][p]
        return bool((int(row[r >> 6]) >> (r & 63)) & 1)

    def as_dict(self, max_enemy_men: int | None = None) -> dict:
        """JSON-ready summary of the positions with at most ``max_enemy_men`` enemy men
        (default: all), so that an endgame database's report speaks of its own layers."""
        top = len(self.all_distinct) - 1 if max_enemy_men is None else max_enemy_men
        layers = slice(0, top + 1)
        distinct, entries = self.distinct[:, layers], self.entries[:, layers]
        total = int(self.all_distinct[layers].sum())
        return {
            "start": self.start,
            "max_enemy_men": top,
            "distinct": {SIDE_KEYS[s]: int(distinct[s].sum()) for s in (0, 1)}
            | {"total": int(distinct.sum())},
            "entries": {SIDE_KEYS[s]: int(entries[s].sum()) for s in (0, 1)}
            | {"total": int(entries.sum())},
            "all_distinct": {SIDE_KEYS[0]: total, SIDE_KEYS[1]: total, "total": 2 * total},
            "share": {SIDE_KEYS[s]: int(distinct[s].sum()) / total for s in (0, 1)}
            | {"total": int(distinct.sum()) / (2 * total)},
            "by_enemy_count": [
                {"enemy_men": k,
                 "distinct": {SIDE_KEYS[s]: int(self.distinct[s, k]) for s in (0, 1)},
                 "all_distinct": int(self.all_distinct[k])}
                for k in range(top + 1)
            ],
            "seconds": round(self.seconds, 3),
        }


def distinct_counts(size: int) -> np.ndarray:
    """Distinct positions up to symmetry per enemy count (for one side to move)."""
    geo = geometry(size)
    out = np.zeros(geo.free + 1, dtype=np.int64)
    per = np.zeros(geo.placement_count, dtype=np.int64)
    for k in range(geo.free + 1):
        class_counts(layer_masks(geo.free, k), geo.stabilizer_count, geo.stabilizer_perm, per)
        out[k] = per.sum()
    return out


def reachable(size: int = rules.DEFAULT_SIZE, start: Position | None = None, *,
              keep: bool = False, progress: bool = False) -> Reachability:
    """Forward search from ``start`` (default: the standard start) over index space.

    Layer by layer downwards: enemy-to-move entries of k men give, by enemy moves,
    the musketeers-to-move entries of k men, whose captures give the enemy-to-move
    entries of k-1 men. Sets are bit rows per placement (one bit per entry).
    """
    started = time.perf_counter()
    if size not in rules.SIZES:
        raise AnalysisError(f"board size {size} is not supported: use 3, 4 or 5")
    start = Position.start(size) if start is None else start
    if not isinstance(start, Position) or start.size != size:
        raise AnalysisError(f"the start must be a {size}x{size} Position")
    geo = geometry(size)
    ix = indexer(size)
    count, free = geo.placement_count, geo.free
    workers = max(1, numba.get_num_threads())
    top = start.enemy_count
    entries = np.zeros((2, free + 1), dtype=np.int64)
    distinct = np.zeros((2, free + 1), dtype=np.int64)
    sets = [[None] * (free + 1), [None] * (free + 1)] if keep else None
    per_entries = np.zeros(count, dtype=np.int64)
    per_distinct = np.zeros(count, dtype=np.int64)
    p0, m0 = entry_of(geo, start)
    r0 = int(mask_rank(np.int64(m0), ix.rank_table))

    def empty(k: int) -> np.ndarray:
        return np.zeros((count, (comb(free, k) + 63) // 64), dtype=np.int64)

    bar = progress_bar(top + 1, "reachable", enabled=progress, unit="layer", unit_scale=False)
    try:
        enemy = empty(top)
        if start.side is Side.ENEMY:
            enemy[p0, r0 >> 6] |= np.int64(1) << np.int64(r0 & 63)
        for k in range(top, -1, -1):
            masks = layer_masks(free, k)
            close_and_count(enemy, masks, geo.stabilizer_count, geo.stabilizer_perm,
                            ix.rank_table, per_entries, per_distinct)
            entries[1, k], distinct[1, k] = per_entries.sum(), per_distinct.sum()
            musketeers = empty(k)
            if k == top and start.side is Side.MUSKETEERS:
                musketeers[p0, r0 >> 6] |= np.int64(1) << np.int64(r0 & 63)
            enemy_moves(enemy, masks, geo.aligned, geo.neighbour_bits, ix.rank_table, musketeers)
            close_and_count(musketeers, masks, geo.stabilizer_count, geo.stabilizer_perm,
                            ix.rank_table, per_entries, per_distinct)
            entries[0, k], distinct[0, k] = per_entries.sum(), per_distinct.sum()
            if keep:
                sets[0][k], sets[1][k] = musketeers, enemy
            if k > 0:
                below = empty(k - 1)
                copies = np.zeros((workers,) + below.shape, dtype=np.int64)
                captures(musketeers, masks, geo.aligned, geo.capture_count, geo.capture_bit,
                         geo.capture_child, geo.capture_perm, ix.rank_table, copies)
                merge(copies, below)
                del copies
                enemy = below
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    if keep:
        for k in range(top + 1, free + 1):
            sets[0][k], sets[1][k] = empty(k), empty(k)
    return Reachability(size, str(start), entries, distinct, distinct_counts(size),
                        time.perf_counter() - started, sets)


# --- analysis -----------------------------------------------------------------------


def _read(db: DatabaseFile, k: int) -> np.ndarray:
    return np.ascontiguousarray(db.read(k))


def analyze(path: str | os.PathLike, *, progress: bool = True, reach: bool = True) -> dict:
    """Statistics of the database at ``path`` as one JSON-ready dict.

    ``sides.musketeers_to_move`` and ``sides.enemy_to_move`` each hold ``entries``,
    ``distinct`` (positions won by each side), ``longest`` (longest win of each side,
    with an example), ``plies`` (distribution of plies to the end), ``reachable_distinct``
    and a ``by_enemy_count`` breakdown of the same per enemy count; ``reachable``
    describes the search from the standard start, over the file's layers
    (``reach=False`` skips it). Raises a :class:`~retro.storage.DatabaseError` for files
    that are not complete databases or whose layout is not retro's.
    """
    started = time.perf_counter()
    try:
        db = DatabaseFile(path)
    except ValueError as error:
        raise NotADatabaseError(f"{path} has damaged metadata: {error}") from error
    try:
        tables = _tables(db, progress)
    finally:
        db.close()
    reach_result = reachable(tables["size"], progress=progress) if reach else None
    report = _report(tables, reach_result)
    report["path"] = str(Path(path))
    report["seconds"] = round(time.perf_counter() - started, 3)
    return report


def _tables(db: DatabaseFile, progress: bool) -> dict:
    """Per side and layer: value histograms (entries, distinct) and longest-win examples."""
    geo = geometry(db.size)
    ix = indexer(db.size)
    checks, readable = metadata_checks(db, geo)
    if not readable:
        # The kernels index the layers by the layout they expect: reading a foreign one
        # would give wrong statistics or read out of bounds.
        failed = "; ".join(f"{c.name}: {c.detail}" for c in checks if not c.ok)
        raise NotADatabaseError(f"{db.path} does not have retro's layout: {failed}")
    count, top = geo.placement_count, db.max_enemy_men
    entries = np.zeros((2, top + 1, 256), dtype=np.int64)
    distinct = np.zeros((2, top + 1, 256), dtype=np.int64)
    mismatched = 0
    longest: dict = {}  # (side, winner) -> (value, k, position text)
    per_entries = np.zeros((count, 256), dtype=np.int64)
    per_distinct = np.zeros((count, 256), dtype=np.int64)
    per_mismatched = np.zeros(count, dtype=np.int64)

    bar = progress_bar(sum(2 * count * comb(geo.free, k) for k in range(top + 1)), "analyzing",
                       enabled=progress)
    reader = ThreadPoolExecutor(1, thread_name_prefix="retro-analyze-reader")
    try:
        pending = reader.submit(_read, db, 0)
        previous = np.zeros((count, 1), dtype=np.uint8)
        for k in range(top + 1):
            stored = pending.result()
            if k < top:
                pending = reader.submit(_read, db, k + 1)
            masks = layer_masks(geo.free, k)
            length = len(masks)
            musketeers = np.empty((count, length), dtype=np.uint8)
            with_bit = bit_lists(masks, geo.free, comb(geo.free - 1, k - 1) if k else 0)
            musketeer_values(0, count, masks, previous, musketeers, geo.aligned,
                             geo.capture_count, geo.capture_bit, geo.capture_child,
                             geo.capture_perm, with_bit, ix.rank_table,
                             MUSKETEER_KEYS, MUSKETEER_VALUES)
            del with_bit
            for side, values in ((0, musketeers), (1, stored)):
                value_histograms(values, masks, geo.stabilizer_count, geo.stabilizer_perm,
                                 ix.rank_table, per_entries, per_distinct, per_mismatched)
                entries[side, k] = per_entries.sum(axis=0)
                distinct[side, k] = per_distinct.sum(axis=0)
                mismatched += int(per_mismatched.sum())
                _note_longest(longest, geo, side, k, values, entries[side, k], masks)
                if bar is not None:
                    bar.update(count * length)
            previous = stored
    finally:
        reader.shutdown(wait=True, cancel_futures=True)
        if bar is not None:
            bar.close()
    return {"size": db.size, "max_enemy_men": top, "entries": entries, "distinct": distinct,
            "mismatched": mismatched, "longest": longest, "geometry": geo}


def _note_longest(longest: dict, geo: Geometry, side: int, k: int, values: np.ndarray,
                  histogram: np.ndarray, masks: np.ndarray) -> None:
    """Keep the longest win of each side (first found on ties) with an example entry."""
    for winner in (0, 1):  # 0: musketeers win (odd values), 1: the enemy wins
        present = np.flatnonzero(histogram[(1 - winner)::2])
        if not len(present):
            continue
        value = 2 * int(present[-1]) + (1 - winner)
        if (side, winner) in longest and longest[(side, winner)][0] >= value:
            continue
        flat = int(np.argmax(values.reshape(-1) == value))
        p, r = divmod(flat, values.shape[1])
        position = entry_position(geo, Side.from_code(side), p, int(masks[r]))
        longest[(side, winner)] = (value, k, str(position))


def _winners(histogram: np.ndarray) -> dict:
    return {"musketeers": int(histogram[1::2].sum()), "enemy": int(histogram[0::2].sum())}


def _plies(entries: np.ndarray, distinct: np.ndarray) -> dict:
    """Positions by plies to the end (list index), per winner, both counts; the lists
    end at the longest game of either winner."""
    out = {
        WINNER_KEYS[winner]: {
            "entries": entries[(1 - winner)::2].tolist(),
            "distinct": distinct[(1 - winner)::2].tolist(),
        }
        for winner in (0, 1)
    }
    present = np.flatnonzero(entries)
    length = int(present[-1]) // 2 + 1 if len(present) else 0
    for counts in out.values():
        for name in ("entries", "distinct"):
            del counts[name][length:]
    return out


def _report(tables: dict, reach: Reachability | None) -> dict:
    entries, distinct = tables["entries"], tables["distinct"]
    top = tables["max_enemy_men"]
    sides = {}
    all_distinct = distinct.sum(axis=2)  # [side, k]: both sides hold the same count
    for side in (0, 1):
        longest = {}
        for winner in (0, 1):
            found = tables["longest"].get((side, winner))
            longest[WINNER_KEYS[winner]] = None if found is None else {
                "plies": found[0] >> 1, "enemy_men": found[1], "position": found[2]}
        layers = []
        for k in range(top + 1):
            layer_longest = {}
            for winner in (0, 1):
                present = np.flatnonzero(entries[side, k, (1 - winner)::2])
                layer_longest[WINNER_KEYS[winner]] = int(present[-1]) if len(present) else None
            layer = {
                "enemy_men": k,
                "entries": _winners(entries[side, k]),
                "distinct": _winners(distinct[side, k]),
                "longest": layer_longest,
                "plies": _plies(entries[side, k], distinct[side, k]),
            }
            if reach is not None:
                layer["reachable_distinct"] = int(reach.distinct[side, k])
            layers.append(layer)
        totals_entries = entries[side].sum(axis=0)
        totals_distinct = distinct[side].sum(axis=0)
        body = {
            "entries": _winners(totals_entries),
            "distinct": _winners(totals_distinct),
            "longest": longest,
            "plies": _plies(totals_entries, totals_distinct),
            "reachable_distinct": None,
            "reachable_share": None,
            "by_enemy_count": layers,
        }
        if reach is not None:
            reached = int(reach.distinct[side, : top + 1].sum())
            body["reachable_distinct"] = reached
            body["reachable_share"] = reached / int(all_distinct[side].sum())
        sides[SIDE_KEYS[side]] = body
    report = {
        "board_size": tables["size"],
        "max_enemy_men": top,
        "positions": {
            "entries": int(entries.sum()),
            "distinct": int(distinct.sum()),
        },
        "symmetry_check": {
            "mismatched_entries": tables["mismatched"],
            "note": "entries whose value differs from a symmetric image's (0 when sound)",
        },
        "sides": sides,
        "reachable": None,
    }
    if reach is not None:
        if not np.array_equal(reach.all_distinct[: top + 1], all_distinct[0]):
            raise AssertionError("distinct position counts of analysis and search disagree")
        report["reachable"] = reach.as_dict(top)
    return report


# --- plots -----------------------------------------------------------------------------


def plot_directory(directory: str | os.PathLike) -> Path:
    """Make sure charts can be written into ``directory`` (created if missing) and that
    matplotlib is installed; raise :class:`AnalysisError` naming the problem otherwise.

    Call it before a long analysis so that a bad ``--plot`` fails at once.
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError as error:
        raise MatplotlibMissingError(
            "plotting needs matplotlib: pip install 'retro[plot]'"
        ) from error
    try:
        return make_output_folder(directory, "--plot")
    except OutputPathError as error:
        raise AnalysisError(str(error)) from None


def plot(report: dict, directory: str | os.PathLike) -> list[Path]:
    """Write PNG charts of an :func:`analyze` report into ``directory``; return their paths.

    ``musketeer_share.png``: share of distinct positions the musketeers win, against
    the number of enemy men, per side to move. ``plies_histogram.png``: distinct
    positions by plies to the end, per side to move, split by winner.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as error:
        raise MatplotlibMissingError(
            "plotting needs matplotlib: pip install 'retro[plot]'"
        ) from error
    try:
        sides = report["sides"]
        layers = {key: sides[key]["by_enemy_count"] for key in SIDE_KEYS}
        plies = {key: sides[key]["plies"] for key in SIDE_KEYS}
    except (KeyError, TypeError) as error:
        raise AnalysisError(f"not an analyze() report: missing {error}") from error
    directory = plot_directory(directory)
    n = report.get("board_size", "?")
    labels = {SIDE_KEYS[0]: "musketeers to move", SIDE_KEYS[1]: "enemy to move"}
    paths = []

    figure = Figure(figsize=(7, 4.5), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for key in SIDE_KEYS:
        ks, shares = [], []
        for layer in layers[key]:
            won = layer["distinct"]
            total = won["musketeers"] + won["enemy"]
            if total:
                ks.append(layer["enemy_men"])
                shares.append(won["musketeers"] / total)
        axes.plot(ks, shares, marker="o", label=labels[key])
        full = isinstance(n, int) and ks and ks[-1] == n * n - 3
        if key == SIDE_KEYS[1] and full:  # why the line jumps at its end
            axes.annotate("full board: the enemy cannot move,\nso the musketeers win (rule 4)",
                          xy=(ks[-1], shares[-1]), xytext=(0.55, 0.5), textcoords="axes fraction",
                          arrowprops={"arrowstyle": "->", "alpha": 0.6}, fontsize=8)
    axes.set_xlabel("enemy men")
    axes.set_ylabel("share won by the musketeers")
    axes.set_ylim(0, 1)
    axes.set_title(f"Three Musketeers {n}x{n}: positions won by the musketeers (distinct)")
    axes.grid(alpha=0.3)
    axes.legend()
    paths.append(directory / "musketeer_share.png")
    _save(figure, paths[-1])

    figure = Figure(figsize=(9, 6), layout="constrained")
    FigureCanvasAgg(figure)
    for i, key in enumerate(SIDE_KEYS):
        axes = figure.add_subplot(2, 1, i + 1)
        for winner, colour in (("musketeers", "tab:blue"), ("enemy", "tab:red")):
            counts = plies[key][winner]["distinct"]
            axes.bar(np.arange(len(counts)) + (-0.2 if winner == "musketeers" else 0.2),
                     counts, width=0.4, color=colour, label=f"{winner} win")
        axes.set_yscale("symlog", linthresh=1)
        axes.set_ylabel("distinct positions")
        axes.set_title(labels[key])
        axes.grid(alpha=0.3, axis="y")
        axes.legend()
    axes.set_xlabel("plies to the end")
    figure.suptitle(f"Three Musketeers {n}x{n}: plies to the end under perfect play")
    paths.append(directory / "plies_histogram.png")
    _save(figure, paths[-1])
    return paths


def _save(figure, path: Path) -> None:
    try:
        save_figure(figure, path, dpi=120)
    except OSError as error:
        raise AnalysisError(f"cannot write {path}: {error.strerror or error}") from error
