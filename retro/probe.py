"""Probing a built database: values, moves, best moves, principal lines, batches.

>>> with retro.open_database("db/three-musketeers-5x5.h5") as db:
...     db.probe(Position.start())
Outcome(winner=<Side.ENEMY: 'enemy'>, plies=..., side_to_move=<Side.MUSKETEERS: ...>)

Only enemy-to-move values are stored (see :mod:`retro.storage`); a
musketeers-to-move value is the best over its captures, one lookup each.

Two modes:

* **on disk** (the default): a probe reads only the chunks it touches. Decompressed
  chunks are kept in an LRU cache keyed by chunk (``cache_bytes``, 64 MiB by
  default), so a warm probe touches no HDF5 machinery at all; HDF5's own chunk cache
  is kept small (:data:`HDF5_CACHE_BYTES`) because it would only hold second copies.
  :meth:`Database.probe_many` groups the requested table entries by chunk and reads
  each touched chunk once.
* **in memory** (``open_database(path, in_memory=True)``, or :meth:`Database.load`):
  every layer is read once into one flat array; probes are then pure array lookups.

The value of an enemy-to-move position sits at a *flat index*: layer ``k`` starts at
``offsets[k]`` and holds one row of ``C(free, k)`` values per placement. Every
kernel here computes flat indices the same way, straight from the bitboards, with
one table per 3-square set (:class:`ProbeTables`) instead of the builder's
placement-then-symmetry route.

The text helpers at the end (:func:`format_probe`, :func:`probe_json`,
:func:`probe_lines`) are what ``retro probe`` prints.
"""

from __future__ import annotations

import os
import random
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from math import comb
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np
from numba import njit

from . import rules
from .bits import popcount, triple_rank
from .indexing import indexer
from .outcome import ENEMY_WON, PREFERENCE_KEYS, VALUE_OF_BEST_KEY, Outcome
from .position import Move, Position, PositionError, Side, as_position, square_name
from .storage import (
    BoardMismatchError,
    ChecksumError,
    DatabaseError,
    DatabaseFile,
    DatabaseNotFoundError,
    IncompleteDatabaseError,
    PositionNotInDatabaseError,
    default_path,
    storage_order,
)

DEFAULT_CACHE_BYTES = 64 << 20  # decompressed chunks kept per database (1024 of 64 KiB)
HDF5_CACHE_BYTES = 4 << 20  # HDF5's own cache: a few raw chunks, retro caches the rest
BATCH_PIECE = 1 << 19  # on-disk batches are located in pieces of this many positions
THREAD_MIN_POSITIONS = 100_000  # in-memory batches split over threads above this size
MEMORY_BLOCK = 256  # positions located before their table entries are gathered

# validity codes of batch entries
OK, BAD_SIDE, BAD_PIECES, TOO_MANY_MEN = 0, 1, 2, 3
ALIGNED = -1  # position_addresses: musketeers to move in a line, the enemy has won

RNG = int | np.random.Generator | random.Random | None
"""``rng`` arguments: None (deterministic), a seed, or a numpy/stdlib generator."""


class GameOverError(PositionError):
    """A move was asked of a finished position."""


class BatchPositionError(PositionError):
    """An entry of a ``(side, musketeers, enemies)`` batch is not a valid position."""


# --- tables ------------------------------------------------------------------------


class ProbeTables(NamedTuple):
    """Flat-index tables of one board size and layer count, for jitted code."""

    full: int  # bitboard of every square
    placement_of: np.ndarray  # int64 (C(squares, 3),): canonical placement of each 3-set
    aligned: np.ndarray  # bool (C(squares, 3),): the 3-set lies in one row or column
    square_bit: np.ndarray  # int64 (C(squares, 3), squares): storage-mask bit of each enemy square, 0 under a musketeer
    neighbours: np.ndarray  # int64 (squares,): bitboard of the squares next to each square
    row_base: np.ndarray  # int64 (layers, P): flat index of each layer row
    rank_table: np.ndarray  # int32: colex ranks, see retro.indexing.mask_rank
    offsets: np.ndarray  # int64 (layers + 1,): flat index where each layer starts


@cache
def probe_tables(size: int, max_guards: int) -> ProbeTables:
    """Tables for a ``size``×``size`` database holding layers ``0..max_guards``."""
    ix = indexer(size)
    b = ix.board
    order = storage_order(size).astype(np.int64)
    triples = comb(b.squares, 3)
    square_bit = np.zeros((triples, b.squares), dtype=np.int64)
    aligned = np.zeros(triples, dtype=np.bool_)
    storage_bit = np.empty(ix.free, dtype=np.int64)
    for t in range(triples):
        p, g = int(ix.canon_placement[t]), int(ix.canon_symmetry[t])
        aligned[t] = ix.aligned[p]
        storage_bit[order[p]] = np.arange(ix.free)  # mask bit -> storage bit
        for square in range(b.squares):
            i = ix.free_index[p, b.symmetry[g, square]]
            if i >= 0:
                square_bit[t, square] = 1 << int(storage_bit[i])
    neighbours = np.zeros(b.squares, dtype=np.int64)
    for square in range(b.squares):
        for d in range(4):
            if b.neighbours[square, d] >= 0:
                neighbours[square] |= 1 << int(b.neighbours[square, d])
    rows = np.array([comb(ix.free, k) for k in range(max_guards + 1)], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(rows * ix.placement_count)]).astype(np.int64)
    row_base = offsets[:-1, None] + rows[:, None] * np.arange(ix.placement_count)[None, :]
    tables = ProbeTables(
        full=b.full,
        placement_of=np.asarray(ix.canon_placement, dtype=np.int64),
        aligned=aligned,
        square_bit=square_bit,
        neighbours=neighbours,
        row_base=np.ascontiguousarray(row_base),
        rank_table=ix.rank_table,
        offsets=offsets,
    )
    for table in tables[1:]:
        table.setflags(write=False)
    return tables


class ChunkGeometry(NamedTuple):
    """How flat indices fall into the HDF5 chunks of each layer."""

    offsets: np.ndarray  # int64 (layers + 1,): flat index where each layer starts
    row_length: np.ndarray  # int64 (layers,): C(free, k)
    chunk_rows: np.ndarray  # int64 (layers,)
    chunk_cols: np.ndarray  # int64 (layers,)
    col_chunks: np.ndarray  # int64 (layers,): chunks across one layer row
    first_chunk: np.ndarray  # int64 (layers + 1,): global number of each layer's first chunk


def _chunk_geometry(datasets: list, offsets: np.ndarray) -> ChunkGeometry:
    shapes = np.array([d.shape for d in datasets], dtype=np.int64)
    chunks = np.array([d.chunks for d in datasets], dtype=np.int64)
    row_chunks = -(-shapes[:, 0] // chunks[:, 0])
    col_chunks = -(-shapes[:, 1] // chunks[:, 1])
    first = np.concatenate([[0], np.cumsum(row_chunks * col_chunks)]).astype(np.int64)
    return ChunkGeometry(offsets, shapes[:, 1].copy(), chunks[:, 0].copy(), chunks[:, 1].copy(),
                         col_chunks, first)


# --- kernels -----------------------------------------------------------------------
#
# Top-level kernels take the ProbeTables tuple once and hand its arrays to the inlined
# helpers one by one: passing the tuple itself into a helper in a hot loop costs a
# reference-count round trip per member and call (measured 30x slower).


@njit(cache=True, inline="always")
def _low_bit(x):
    return popcount((x & -x) - 1)


@njit(cache=True, inline="always")
def _flat_index(musketeers, enemies, square_bit, placement_of, row_base, rank_table):
    """Flat index of the enemy-to-move position (musketeers, enemies)."""
    triple = triple_rank(musketeers)
    stored = 0
    rest = enemies
    while rest:
        stored |= square_bit[triple, _low_bit(rest)]
        rest &= rest - 1
    # Colex rank of the storage mask, as retro.indexing.mask_rank.
    width = rank_table.shape[1]
    low = stored & (width - 1)
    rank = rank_table[0, low] + rank_table[1 + popcount(low), stored >> _low_bit(width)]
    return row_base[popcount(enemies), placement_of[triple]] + rank


@njit(cache=True, inline="always")
def _status(side, musketeers, enemies, full, max_guards):
    if side != rules.MUSKETEERS and side != rules.ENEMY:
        return BAD_SIDE
    if (musketeers < 0 or enemies < 0 or (musketeers | enemies) & ~full
            or musketeers & enemies or popcount(musketeers) != rules.MUSKETEER_COUNT):
        return BAD_PIECES
    if popcount(enemies) > max_guards:
        return TOO_MANY_MEN
    return OK


@njit(cache=True, inline="always")
def _table_entries(side, musketeers, enemies, aligned, neighbours, square_bit, placement_of,
                   row_base, rank_table, out, at):
    """Write the flat indices a position's value needs to ``out[at:]``; return how many.

    Enemy to move: its own entry. Musketeers to move: one entry per capture (none
    when they stand in a line or cannot capture: see :func:`_combine`).
    """
    if side == rules.ENEMY:
        out[at] = _flat_index(musketeers, enemies, square_bit, placement_of, row_base, rank_table)
        return 1
    if aligned[triple_rank(musketeers)]:
        return 0
    j = at
    rest = musketeers
    while rest:
        source = _low_bit(rest)
        rest &= rest - 1
        targets = neighbours[source] & enemies
        while targets:
            bit = targets & -targets
            targets ^= bit
            out[j] = _flat_index(musketeers ^ (np.int64(1) << source) ^ bit, enemies ^ bit,
                                 square_bit, placement_of, row_base, rank_table)
            j += 1
    return j - at


@njit(cache=True, inline="always")
def _combine(side, musketeers, got, first, last, aligned, keys, best_values):
    """A position's value from its table entries ``got[first:last]``."""
    if side == rules.ENEMY:
        return got[first]
    if aligned[triple_rank(musketeers)]:
        return ENEMY_WON
    best = 0  # no capture: rule 4, the musketeers have won
    for j in range(first, last):
        best = max(best, keys[got[j]])
    return best_values[best]


@njit(cache=True, nogil=True)
def first_invalid(side, musketeers, enemies, t, max_guards):
    """Index of the first entry that is not a position of the database, or -1.

    A separate pass, so that the probing loops carry no validity branches.
    """
    full = t.full
    for i in range(len(side)):
        if _status(side[i], np.int64(musketeers[i]), np.int64(enemies[i]), full, max_guards) != OK:
            return i
    return -1


@njit(cache=True, nogil=True)
def probe_memory(side, musketeers, enemies, t, flat, values):
    """Values of many (valid) positions from the in-memory table ``flat``.

    Positions go in blocks: first every table entry of the block is located, then
    all are loaded in one tight loop, so the cache misses overlap instead of
    queueing behind the index arithmetic.
    """
    aligned, neighbours, square_bit = t.aligned, t.neighbours, t.square_bit
    placement_of, row_base, rank_table = t.placement_of, t.row_base, t.rank_table
    keys = PREFERENCE_KEYS[rules.MUSKETEERS]
    best_values = VALUE_OF_BEST_KEY[rules.MUSKETEERS]
    index = np.empty(MEMORY_BLOCK * 4 * rules.MUSKETEER_COUNT, dtype=np.int64)
    got = np.empty(len(index), dtype=np.uint8)
    first = np.empty(MEMORY_BLOCK + 1, dtype=np.int64)
    n = len(side)
    for lo in range(0, n, MEMORY_BLOCK):
        hi = min(n, lo + MEMORY_BLOCK)
        j = 0
        for i in range(lo, hi):
            first[i - lo] = j
            j += _table_entries(side[i], np.int64(musketeers[i]), np.int64(enemies[i]),
                                aligned, neighbours, square_bit, placement_of, row_base,
                                rank_table, index, j)
        first[hi - lo] = j
        for q in range(j):
            got[q] = flat[index[q]]
        for i in range(lo, hi):
            values[i] = _combine(side[i], np.int64(musketeers[i]), got, first[i - lo],
                                 first[i - lo + 1], aligned, keys, best_values)


@njit(cache=True)
def value_in_memory(side, musketeers, enemies, t, flat):
    """Value of one (valid, in-range) position from the in-memory table."""
    index = np.empty(4 * rules.MUSKETEER_COUNT, dtype=np.int64)
    got = np.empty(len(index), dtype=np.uint8)
    count = _table_entries(side, musketeers, enemies, t.aligned, t.neighbours, t.square_bit,
                           t.placement_of, t.row_base, t.rank_table, index, 0)
    for q in range(count):
        got[q] = flat[index[q]]
    return _combine(side, musketeers, got, 0, count, t.aligned,
                    PREFERENCE_KEYS[rules.MUSKETEERS], VALUE_OF_BEST_KEY[rules.MUSKETEERS])


@njit(cache=True, inline="always")
def _chunk_address(index, offsets, row_length, chunk_rows, chunk_cols, col_chunks, first_chunk,
                   out, at):
    """Write (global chunk number, offset in the chunk) of a flat index to ``out[at]``.

    The offset counts in whole chunk rows (``row * chunk_cols + col``): edge chunks
    are padded to the full chunk shape when read.
    """
    k = 0
    while offsets[k + 1] <= index:
        k += 1
    inside = index - offsets[k]
    row = inside // row_length[k]
    col = inside - row * row_length[k]
    chunk_row = row // chunk_rows[k]
    chunk_col = col // chunk_cols[k]
    out[at, 0] = first_chunk[k] + chunk_row * col_chunks[k] + chunk_col
    out[at, 1] = (row - chunk_row * chunk_rows[k]) * chunk_cols[k] + col - chunk_col * chunk_cols[k]


@njit(cache=True, nogil=True)
def locate_many(side, musketeers, enemies, t, g, addresses, first):
    """Chunk addresses of the table entries of many (valid) positions; how many.

    Position ``i`` owns ``addresses[first[i]:first[i + 1]]``. Musketeers to move in a
    line own none (their value needs no table entry).
    """
    aligned, neighbours, square_bit = t.aligned, t.neighbours, t.square_bit
    placement_of, row_base, rank_table = t.placement_of, t.row_base, t.rank_table
    offsets, row_length, chunk_rows = g.offsets, g.row_length, g.chunk_rows
    chunk_cols, col_chunks, first_chunk = g.chunk_cols, g.col_chunks, g.first_chunk
    index = np.empty(4 * rules.MUSKETEER_COUNT, dtype=np.int64)
    j = 0
    for i in range(len(side)):
        first[i] = j
        count = _table_entries(side[i], np.int64(musketeers[i]), np.int64(enemies[i]),
                               aligned, neighbours, square_bit, placement_of, row_base,
                               rank_table, index, 0)
        for q in range(count):
            _chunk_address(index[q], offsets, row_length, chunk_rows, chunk_cols, col_chunks,
                           first_chunk, addresses, j + q)
        j += count
    first[len(side)] = j
    return j


@njit(cache=True)
def position_addresses(side, musketeers, enemies, t, g, out):
    """Chunk addresses of the table entries of one position; their number.

    :data:`ALIGNED` (and nothing written) when the musketeers are to move in a line.
    """
    if side == rules.MUSKETEERS and t.aligned[triple_rank(musketeers)]:
        return ALIGNED
    index = np.empty(4 * rules.MUSKETEER_COUNT, dtype=np.int64)
    count = _table_entries(side, musketeers, enemies, t.aligned, t.neighbours, t.square_bit,
                           t.placement_of, t.row_base, t.rank_table, index, 0)
    for q in range(count):
        _chunk_address(index[q], g.offsets, g.row_length, g.chunk_rows, g.chunk_cols,
                       g.col_chunks, g.first_chunk, out, q)
    return count


@njit(cache=True, nogil=True)
def combine_many(side, musketeers, t, got, first, values):
    """Values of many positions from their gathered table entries (see locate_many)."""
    aligned = t.aligned
    keys = PREFERENCE_KEYS[rules.MUSKETEERS]
    best_values = VALUE_OF_BEST_KEY[rules.MUSKETEERS]
    for i in range(len(side)):
        values[i] = _combine(side[i], np.int64(musketeers[i]), got, first[i], first[i + 1],
                             aligned, keys, best_values)


@njit(cache=True)
def child_positions(side, musketeers, enemies, b, out):
    """Every legal move as (source, target, child musketeers, child enemies); how many."""
    moves = np.empty((4 * b.squares, 2), dtype=np.int64)
    count = rules.legal_moves(side, musketeers, enemies, b, moves)
    for i in range(count):
        child_m, child_e = rules.play(side, musketeers, enemies, moves[i, 0], moves[i, 1])
        out[i, 0], out[i, 1], out[i, 2], out[i, 3] = moves[i, 0], moves[i, 1], child_m, child_e
    return count


# --- the database ------------------------------------------------------------------

_MUSKETEER_KEYS = PREFERENCE_KEYS[rules.MUSKETEERS].tolist()
_MUSKETEER_VALUES = VALUE_OF_BEST_KEY[rules.MUSKETEERS].tolist()


def preference(outcome: Outcome, mover: Side) -> tuple[int, int]:
    """Sort key of a move leading to ``outcome``: smaller is better for ``mover``.

    A win beats every loss, a faster win a slower one, a slower loss a faster one.
    """
    if outcome.winner is mover:
        return (0, outcome.plies)
    return (1, -outcome.plies)


class Database:
    """An open database. Use :func:`open_database`; close it, or use it as a context manager."""

    def __init__(self, path: str | os.PathLike, *, in_memory: bool = False,
                 cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        self._file = DatabaseFile(path, cache_bytes=0 if in_memory else HDF5_CACHE_BYTES)
        self.path = self._file.path
        self.size = self._file.size
        self.max_guards = self._file.max_guards
        self._board = rules.board(self.size)
        self._tables = probe_tables(self.size, self.max_guards)
        self._datasets = [self._file.dataset(k) for k in range(self.max_guards + 1)]
        self._geometry = _chunk_geometry(self._datasets, self._tables.offsets)
        self._cache_chunks = max(1, cache_bytes // (1 << 16))
        # chunk number -> its padded values as bytes: indexing bytes gives plain ints fast
        self._chunks: OrderedDict[int, bytes] = OrderedDict()
        self._addresses = np.empty((4 * rules.MUSKETEER_COUNT, 2), dtype=np.int64)
        self._flat: np.ndarray | None = None
        self.chunk_reads = 0  # chunks decompressed so far (on-disk mode)
        if in_memory:
            try:
                self.load()
            except BaseException:
                self.close()
                raise

    @property
    def in_memory(self) -> bool:
        """True once every layer has been read into memory."""
        return self._flat is not None

    def load(self) -> None:
        """Read every layer into memory (once); later probes touch no file."""
        if self._flat is not None:
            return
        offsets = self._tables.offsets
        flat = np.empty(int(offsets[-1]), dtype=np.uint8)
        for k, dataset in enumerate(self._datasets):
            view = flat[offsets[k]:offsets[k + 1]].reshape(dataset.shape)
            try:
                dataset.read_direct(view)
            except OSError as error:
                raise ChecksumError(
                    f"{self.path}: layer {k} failed its Fletcher32 checksum ({error}); "
                    "the file is damaged"
                ) from error
        self._flat = flat
        self._chunks.clear()

    @property
    def metadata(self) -> dict:
        """The file's self-description: format, rules, encoding, build information."""
        return self._file.metadata

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()
        self._chunks.clear()

    # --- single positions ----------------------------------------------------

    def probe(self, position: Position | str) -> Outcome:
        """Who wins ``position`` under perfect play, and in how many plies.

        ``position`` may be text in retro's notation; bad text raises a
        :class:`~retro.position.PositionError` subclass naming the problem.
        """
        position = self._position(position)
        return Outcome.from_value(self._value(position), position.side)

    def value(self, position: Position | str) -> int:
        """The encoded value (see :mod:`retro.outcome`) of ``position``."""
        return self._value(self._position(position))

    def moves(self, position: Position | str) -> list[tuple[Move, Outcome]]:
        """Every legal move with the outcome of the position it leads to, best first.

        Best for the side to move: wins before losses, faster wins first, slower
        losses first; equally good moves keep the order of
        :meth:`~retro.position.Position.legal_moves`. A finished position has none.
        """
        position = self._position(position)
        out = np.empty((4 * self._board.squares, 4), dtype=np.int64)
        count = child_positions(position.side.code, position.musketeers, position.enemies,
                                self._board, out)
        if count == 0:
            return []
        out = out[:count]
        after = position.side.other
        values = self._values(np.full(count, after.code, dtype=np.int64),
                              np.ascontiguousarray(out[:, 2]), np.ascontiguousarray(out[:, 3]))
        n = self.size
        moves = [
            (Move(square_name(int(s), n), square_name(int(t), n)), Outcome.from_value(v, after))
            for (s, t), v in zip(out[:, :2].tolist(), values.tolist())
        ]
        moves.sort(key=lambda pair: preference(pair[1], position.side))
        return moves

    def best_moves(self, position: Position | str) -> list[tuple[Move, Outcome]]:
        """The optimal moves (all equally good) with their outcome; raises when finished."""
        position = self._position(position)
        moves = self.moves(position)
        if not moves:
            raise GameOverError(f"the game is over in {position} ({_result(position)}): no move to play")
        best = preference(moves[0][1], position.side)
        return [pair for pair in moves if preference(pair[1], position.side) == best]

    def best_move(self, position: Position | str, rng: RNG = None) -> Move:
        """One optimal move: the first in :meth:`moves` order, or a random one of the
        equally good when ``rng`` (a seed, ``numpy.random.Generator`` or
        ``random.Random``) is given. Raises :class:`GameOverError` when finished."""
        return choose(self.best_moves(position), rng)[0]

    def line(self, position: Position | str) -> list[Move]:
        """The principal line: optimal moves (deterministic) to the end of the game.

        Its length is the position's value in plies.
        """
        position = self._position(position)
        line: list[Move] = []
        limit = self.probe(position).plies
        while not position.is_over():
            if len(line) > limit:  # only a damaged table could get here
                raise ChecksumError(f"{self.path}: the principal line of {position} does not end")
            move = self.best_move(position)
            line.append(move)
            position = position.play(move)
        return line

    # --- many positions ------------------------------------------------------

    def probe_many(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """Values of many positions at once: ``(musketeers_win, plies)`` arrays.

        ``positions`` is an iterable of :class:`Position`, or the fast path: a tuple of
        three equal-length integer arrays ``(side, musketeers, enemies)`` with side 0
        for the musketeers to move and 1 for the enemy, and bitboards whose bit
        ``row * n + col`` stands for row ``row + 1``, column ``"abcde"[col]``.
        On disk only the chunks the batch touches are read, each once.
        Raises :class:`BatchPositionError` for an entry that is not a position.
        """
        values = self._values(*self._as_arrays(positions))
        return (values & 1).astype(bool), (values >> 1).astype(np.int64)

    def _values(self, side: np.ndarray, musketeers: np.ndarray, enemies: np.ndarray) -> np.ndarray:
        """Encoded values of int64 arrays; raises for the first invalid entry."""
        bad = first_invalid(side, musketeers, enemies, self._tables, self.max_guards)
        if bad >= 0:
            self._raise_for(bad, side, musketeers, enemies)
        if self._flat is not None:
            return self._values_in_memory(side, musketeers, enemies)
        return self._values_on_disk(side, musketeers, enemies)

    def _values_in_memory(self, side, musketeers, enemies) -> np.ndarray:
        n = len(side)
        values = np.empty(n, dtype=np.uint8)
        threads = max(1, min(numba.get_num_threads(), n // THREAD_MIN_POSITIONS))
        if threads == 1:
            probe_memory(side, musketeers, enemies, self._tables, self._flat, values)
            return values
        bounds = np.linspace(0, n, threads + 1).astype(np.int64)
        with ThreadPoolExecutor(threads) as pool:
            jobs = [pool.submit(probe_memory, side[a:z], musketeers[a:z], enemies[a:z],
                                self._tables, self._flat, values[a:z])
                    for a, z in zip(bounds[:-1], bounds[1:])]
            for job in jobs:
                job.result()
        return values

    def _values_on_disk(self, side, musketeers, enemies) -> np.ndarray:
        n = len(side)
        values = np.empty(n, dtype=np.uint8)
        for a in range(0, n, BATCH_PIECE):
            z = min(n, a + BATCH_PIECE)
            s, m, e = side[a:z], musketeers[a:z], enemies[a:z]
            addresses = np.empty((4 * rules.MUSKETEER_COUNT * (z - a), 2), dtype=np.int64)
            first = np.empty(z - a + 1, dtype=np.int64)
            used = locate_many(s, m, e, self._tables, self._geometry, addresses, first)
            addresses = addresses[:used]
            got = np.empty(used, dtype=np.uint8)
            # Group the entries by chunk so that each touched chunk is read once.
            order = np.argsort(addresses[:, 0], kind="stable")
            chunk_ids = addresses[order, 0]
            starts = np.flatnonzero(np.diff(chunk_ids, prepend=-1))
            ends = np.append(starts[1:], used)
            for lo, hi in zip(starts.tolist(), ends.tolist()):
                block = self._chunk_array(int(chunk_ids[lo]))
                entries = order[lo:hi]
                got[entries] = block[addresses[entries, 1]]
            combine_many(s, m, self._tables, got, first, values[a:z])
        return values

    def _as_arrays(self, positions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if (isinstance(positions, tuple) and len(positions) == 3
                and not any(isinstance(p, Position) for p in positions)):
            arrays = [np.asarray(a) for a in positions]
            if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
                raise ValueError("side, musketeers and enemies must be 1-d arrays of one length")
            if not all(np.issubdtype(a.dtype, np.integer) or a.size == 0 for a in arrays):
                raise TypeError("side, musketeers and enemies must be integer arrays")
            return tuple(np.ascontiguousarray(a, dtype=np.int64) for a in arrays)
        positions = [self._position(p, check_layer=False) for p in positions]
        return (
            np.array([p.side.code for p in positions], dtype=np.int64),
            np.array([p.musketeers for p in positions], dtype=np.int64),
            np.array([p.enemies for p in positions], dtype=np.int64),
        )

    def _raise_for(self, i: int, side, musketeers, enemies) -> None:
        code = _status(side[i], musketeers[i], enemies[i], self._tables.full, self.max_guards)
        where = f"position {i} (side={side[i]}, musketeers={musketeers[i]:#x}, enemies={enemies[i]:#x})"
        if code == BAD_SIDE:
            raise BatchPositionError(f"{where}: side must be 0 (musketeers) or 1 (enemy)")
        if code == BAD_PIECES:
            raise BatchPositionError(f"{where}: not a {self.size}x{self.size} position with exactly "
                                     "3 musketeers and enemy men on other squares")
        raise PositionNotInDatabaseError(
            f"{where} has {int(enemies[i]).bit_count()} enemy men; {self.path} holds positions "
            f"with 0..{self.max_guards} (built with --max-guards {self.max_guards})"
        )

    # --- internals -----------------------------------------------------------

    def _position(self, position: Position | str, *, check_layer: bool = True) -> Position:
        position = as_position(position)
        if position.size != self.size:
            raise BoardMismatchError(
                f"the position is on a {position.size}x{position.size} board but "
                f"{self.path} holds the {self.size}x{self.size} database"
            )
        if check_layer and position.enemy_count > self.max_guards:
            raise PositionNotInDatabaseError(
                f"the position has {position.enemy_count} enemy men; {self.path} holds "
                f"positions with 0..{self.max_guards} (built with --max-guards {self.max_guards})"
            )
        return position

    def _value(self, position: Position) -> int:
        side = position.side.code
        if self._flat is not None:
            return int(value_in_memory(side, position.musketeers, position.enemies,
                                       self._tables, self._flat))
        count = position_addresses(side, position.musketeers, position.enemies,
                                   self._tables, self._geometry, self._addresses)
        if count == ALIGNED:
            return ENEMY_WON
        entries = [self._entry(*address) for address in self._addresses[:count].tolist()]
        if side == rules.ENEMY:
            return entries[0]
        return _MUSKETEER_VALUES[max((_MUSKETEER_KEYS[v] for v in entries), default=0)]

    def _entry(self, chunk: int, offset: int) -> int:
        data = self._chunks.get(chunk)
        if data is None:
            self._chunk_array(chunk)
            data = self._chunks[chunk]
        else:
            self._chunks.move_to_end(chunk)
        return data[offset]

    def _chunk_array(self, chunk: int) -> np.ndarray:
        """The values of a chunk, padded to the full chunk shape, flat (LRU-cached)."""
        data = self._chunks.get(chunk)
        if data is not None:
            self._chunks.move_to_end(chunk)
            return np.frombuffer(data, dtype=np.uint8)
        g = self._geometry
        k = int(np.searchsorted(g.first_chunk, chunk, side="right")) - 1
        chunk_row, chunk_col = divmod(chunk - int(g.first_chunk[k]), int(g.col_chunks[k]))
        rows, cols = int(g.chunk_rows[k]), int(g.chunk_cols[k])
        r0, c0 = chunk_row * rows, chunk_col * cols
        try:
            block = self._datasets[k][r0:r0 + rows, c0:c0 + cols]
        except OSError as error:
            raise ChecksumError(
                f"{self.path}: layer {k} failed its Fletcher32 checksum ({error}); the file is damaged"
            ) from error
        if block.shape != (rows, cols):  # an edge chunk
            padded = np.zeros((rows, cols), dtype=np.uint8)
            padded[:block.shape[0], :block.shape[1]] = block
            block = padded
        self.chunk_reads += 1
        data = block.tobytes()
        self._chunks[chunk] = data
        if len(self._chunks) > self._cache_chunks:
            self._chunks.popitem(last=False)
        return np.frombuffer(data, dtype=np.uint8)


def open_database(path: str | os.PathLike | None = None, *, size: int | None = None,
                  in_memory: bool = False, cache_bytes: int = DEFAULT_CACHE_BYTES) -> Database:
    """Open a database built by ``retro build`` (default: ``db/three-musketeers-5x5.h5``).

    ``size`` picks the default file of that board size when ``path`` is None, and
    names the build command in the error when the file is missing. Raises
    :class:`~retro.storage.DatabaseNotFoundError` (with the command that builds it),
    :class:`~retro.storage.NotADatabaseError` for other files,
    :class:`~retro.storage.IncompleteDatabaseError` for an unfinished build (a file
    not marked complete, or no file yet but the ``<path>.partial/`` checkpoints of an
    interrupted build) and :class:`~retro.storage.ChecksumError` when loading finds
    damage. ``in_memory=True`` loads every layer at once instead of reading chunks on
    demand; ``cache_bytes`` bounds the decompressed chunks kept in on-disk mode.
    """
    if path is None:
        size = size or rules.DEFAULT_SIZE
        target = default_path(size)
    else:
        target = Path(path)
    try:
        return Database(target, in_memory=in_memory, cache_bytes=cache_bytes)
    except DatabaseNotFoundError as error:
        # An interrupted build leaves only its checkpoints: the file appears once the
        # build finishes, so "build it" would hide that resuming is all it takes.
        partial = target.with_name(target.name + ".partial")
        if partial.is_dir():
            layers = sum(1 for _ in partial.glob("layer_*.h5"))
            raise IncompleteDatabaseError(
                f"the build of {target} did not finish ({layers} layers checkpointed in "
                f"{partial}); run the same 'retro build' command again to resume it, e.g. "
                f"{build_command(target, size)}"
            ) from error
        raise DatabaseNotFoundError(
            f"no database at {target}; build it with: {build_command(target, size)}"
        ) from error


def build_command(path: str | os.PathLike, size: int | None) -> str:
    """The ``retro build`` command that writes the database ``path`` of board ``size``.

    Without ``size``, a file name that names its board (``...-4x4.h5``) supplies it.
    """
    path = Path(path)
    if size is None:
        named = re.search(r"([0-9])x\1", path.name)
        if named and int(named[1]) in rules.SIZES:
            size = int(named[1])
    command = f"retro build --board {size if size is not None else 'N'}"
    if size is None or path != default_path(size):
        command += f" --out {path}"
    return command


def choose(candidates: list, rng: RNG = None):
    """The first candidate when ``rng`` is None, else a random one (seed or generator)."""
    if not candidates:
        raise ValueError("nothing to choose from")
    if rng is None or len(candidates) == 1:
        return candidates[0]
    if isinstance(rng, bool):
        raise TypeError("rng must be None, an int seed, a numpy Generator or a random.Random")
    if isinstance(rng, (int, np.integer)):
        rng = np.random.default_rng(int(rng))
    if isinstance(rng, np.random.Generator):
        return candidates[int(rng.integers(len(candidates)))]
    if isinstance(rng, random.Random):
        return candidates[rng.randrange(len(candidates))]
    raise TypeError("rng must be None, an int seed, a numpy Generator or a random.Random")


def _result(position: Position) -> str:
    winner = position.winner()
    if winner is None:
        return "the game goes on"
    return "the musketeers have won" if winner is Side.MUSKETEERS else "the enemy has won"


# --- text for the command line -----------------------------------------------------


def outcome_code(outcome: Outcome) -> str:
    """Short form of an outcome, as the existing program prints it: ``E33``, ``M5``."""
    return f"{'M' if outcome.winner is Side.MUSKETEERS else 'E'}{outcome.plies}"


def format_probe(position: Position, outcome: Outcome, moves: list[tuple[Move, Outcome]],
                 *, one_line: bool = False) -> str:
    """Human-readable probe: the value in words, then every move with its outcome.

    ::

        M XXXXO XXXXX XXOXX XXXXX OXXXX: the enemy wins in 33 plies
        E33 -> [e1-d1 E32, e1-e2 E32, ...]

    Each move is followed by the outcome of the position it leads to (winner letter,
    plies). ``one_line=True`` joins the two lines with ``"; "`` (batch mode).
    """
    listing = ", ".join(f"{move} {outcome_code(after)}" for move, after in moves)
    first, second = f"{position}: {outcome}", f"{outcome_code(outcome)} -> [{listing}]"
    return f"{first}; {second}" if one_line else f"{first}\n{second}"


def probe_json(position: Position, outcome: Outcome, moves: list[tuple[Move, Outcome]]) -> dict:
    """``{"position", "winner", "plies", "moves": [{"move", "winner", "plies"}, ...]}``."""
    return {
        "position": str(position),
        "winner": outcome.winner.value,
        "plies": outcome.plies,
        "moves": [{"move": str(move), **after.as_dict()} for move, after in moves],
    }


class DatabasePool:
    """Databases opened on demand, one per board size, for batches of mixed sizes.

    With ``path`` every size is answered from that one file (a position of another
    size then raises :class:`~retro.storage.BoardMismatchError`), and the file is
    opened at once: a missing, foreign or unfinished file is the caller's mistake,
    not a line's, so it raises here instead of failing every line. Without ``path``
    each size uses its default file ``db/three-musketeers-NxN.h5``, opened when a
    line first needs it.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, in_memory: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.in_memory = in_memory
        self._open: dict[Path, Database] = {}
        if self.path is not None:
            self._open[self.path] = open_database(self.path, in_memory=in_memory)

    def get(self, size: int) -> Database:
        """The database that answers positions of board ``size`` (opened once)."""
        target = self.path if self.path is not None else default_path(size)
        db = self._open.get(target)
        if db is None:
            db = open_database(target, size=size, in_memory=self.in_memory)
            self._open[target] = db
        return db

    def close(self) -> None:
        for db in self._open.values():
            db.close()
        self._open.clear()

    def __enter__(self) -> DatabasePool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@dataclass(frozen=True)
class BatchAnswer:
    """One answer line of :func:`probe_lines`; ``ok`` is False for an error line."""

    text: str
    ok: bool

    def __str__(self) -> str:
        return self.text


def probe_lines(lines: Iterable[str], databases: Database | DatabasePool | Callable[[int], Database],
                *, as_json: bool = False) -> Iterator[BatchAnswer]:
    """Answer one position per line of text, one answer line each (batch mode).

    Blank lines are skipped. An answer is :func:`format_probe` on one line, or
    ``json.dumps(probe_json(...))`` with ``as_json``. A line that cannot be answered
    (bad notation, illegal position, wrong board size, too many men for the file, a
    missing or foreign database for that size) gets an error line and the batch goes
    on: ``<line>: error: <message>``, or ``{"position": <line>, "error": <message>}``.
    A damaged file (:class:`~retro.storage.ChecksumError`) stops the batch.
    """
    import json

    if isinstance(databases, Database):
        fixed = databases
        get = lambda size: fixed
    elif isinstance(databases, DatabasePool):
        get = databases.get
    else:
        get = databases
    for line in lines:
        text = line.strip()
        if not text:
            continue
        try:
            position = Position.parse(text)
            db = get(position.size)
            outcome = db.probe(position)
            moves = db.moves(position)
        except ChecksumError:
            raise
        except (PositionError, DatabaseError) as error:
            if as_json:
                yield BatchAnswer(json.dumps({"position": text, "error": str(error)}), False)
            else:
                yield BatchAnswer(f"{text}: error: {error}", False)
            continue
        if as_json:
            yield BatchAnswer(json.dumps(probe_json(position, outcome, moves)), True)
        else:
            yield BatchAnswer(format_probe(position, outcome, moves, one_line=True), True)
