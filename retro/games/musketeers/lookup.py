"""Where a position's value sits in a database, and the jitted probing kernels.

The value of an enemy-to-move position sits at a *flat index*: layer ``k`` starts at
``offsets[k]`` and holds one row of ``C(free, k)`` values per placement. Every
kernel here computes flat indices the same way, straight from the bitboards, with
one table per 3-square set (:class:`ProbeTables`) instead of the builder's
placement-then-symmetry route. A musketeers-to-move value needs one entry per
capture (see :func:`table_entries` and :func:`combine`).

:class:`ChunkGeometry` maps flat indices to HDF5 chunks, so that on-disk probes can
group their reads by chunk. :mod:`retro.probe` is the database API built on these.
"""

from __future__ import annotations

from functools import cache
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit

from . import rules
from ...bits import popcount, triple_rank
from .index import indexer
from ...values import ENEMY_WON, PREFERENCE_KEYS, VALUE_OF_BEST_KEY
from .layout import storage_order

MEMORY_BLOCK = 256  # positions located before their table entries are gathered

# validity codes of batch entries
OK, BAD_SIDE, BAD_PIECES, TOO_MANY_MEN = 0, 1, 2, 3
ALIGNED = -1  # position_addresses: musketeers to move in a line, the enemy has won


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
def probe_tables(size: int, max_enemy_men: int) -> ProbeTables:
    """Tables for a ``size``×``size`` database holding layers ``0..max_enemy_men``."""
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
    rows = np.array([comb(ix.free, k) for k in range(max_enemy_men + 1)], dtype=np.int64)
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


def chunk_geometry(datasets: list, offsets: np.ndarray) -> ChunkGeometry:
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
def low_bit(x):
    return popcount((x & -x) - 1)


@njit(cache=True, inline="always")
def flat_index(musketeers, enemies, square_bit, placement_of, row_base, rank_table):
    """Flat index of the enemy-to-move position (musketeers, enemies)."""
    triple = triple_rank(musketeers)
    stored = 0
    rest = enemies
    while rest:
        stored |= square_bit[triple, low_bit(rest)]
        rest &= rest - 1
    # Colex rank of the storage mask, as retro.indexing.mask_rank.
    width = rank_table.shape[1]
    low = stored & (width - 1)
    rank = rank_table[0, low] + rank_table[1 + popcount(low), stored >> low_bit(width)]
    return row_base[popcount(enemies), placement_of[triple]] + rank


@njit(cache=True, inline="always")
def status(side, musketeers, enemies, full, max_enemy_men):
    if side != rules.MUSKETEERS and side != rules.ENEMY:
        return BAD_SIDE
    if (musketeers < 0 or enemies < 0 or (musketeers | enemies) & ~full
            or musketeers & enemies or popcount(musketeers) != rules.MUSKETEER_COUNT):
        return BAD_PIECES
    if popcount(enemies) > max_enemy_men:
        return TOO_MANY_MEN
    return OK


@njit(cache=True, inline="always")
def table_entries(side, musketeers, enemies, aligned, neighbours, square_bit, placement_of,
                   row_base, rank_table, out, at):
    """Write the flat indices a position's value needs to ``out[at:]``; return how many.

    Enemy to move: its own entry. Musketeers to move: one entry per capture (none
    when they stand in a line or cannot capture: see :func:`_combine`).
    """
    if side == rules.ENEMY:
        out[at] = flat_index(musketeers, enemies, square_bit, placement_of, row_base, rank_table)
        return 1
    if aligned[triple_rank(musketeers)]:
        return 0
    j = at
    rest = musketeers
    while rest:
        source = low_bit(rest)
        rest &= rest - 1
        targets = neighbours[source] & enemies
        while targets:
            bit = targets & -targets
            targets ^= bit
            out[j] = flat_index(musketeers ^ (np.int64(1) << source) ^ bit, enemies ^ bit,
                                 square_bit, placement_of, row_base, rank_table)
            j += 1
    return j - at


@njit(cache=True, inline="always")
def combine(side, musketeers, got, first, last, aligned, keys, best_values):
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
def first_invalid(side, musketeers, enemies, t, max_enemy_men):
    """Index of the first entry that is not a position of the database, or -1.

    A separate pass, so that the probing loops carry no validity branches.
    """
    full = t.full
    for i in range(len(side)):
        if status(side[i], np.int64(musketeers[i]), np.int64(enemies[i]), full, max_enemy_men) != OK:
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
            j += table_entries(side[i], np.int64(musketeers[i]), np.int64(enemies[i]),
                                aligned, neighbours, square_bit, placement_of, row_base,
                                rank_table, index, j)
        first[hi - lo] = j
        for q in range(j):
            got[q] = flat[index[q]]
        for i in range(lo, hi):
            values[i] = combine(side[i], np.int64(musketeers[i]), got, first[i - lo],
                                 first[i - lo + 1], aligned, keys, best_values)


@njit(cache=True)
def value_in_memory(side, musketeers, enemies, aligned, square_neighbours, square_bit,
                    placement_of, row_base, rank_table, flat):
    """Value of one (valid, in-range) position from the in-memory table.

    The probe tables come one by one (see :func:`memory_arguments`): unpacking the
    :class:`ProbeTables` tuple would cost more than the lookup.
    """
    index = np.empty(4 * rules.MUSKETEER_COUNT, dtype=np.int64)
    got = np.empty(len(index), dtype=np.uint8)
    count = table_entries(side, musketeers, enemies, aligned, square_neighbours, square_bit,
                          placement_of, row_base, rank_table, index, 0)
    for q in range(count):
        got[q] = flat[index[q]]
    return combine(side, musketeers, got, 0, count, aligned,
                   PREFERENCE_KEYS[rules.MUSKETEERS], VALUE_OF_BEST_KEY[rules.MUSKETEERS])


def memory_arguments(t: ProbeTables) -> tuple:
    """The tables :func:`value_in_memory` and :func:`children_in_memory` take, in order."""
    return (t.aligned, t.neighbours, t.square_bit, t.placement_of, t.row_base, t.rank_table)


def board_arguments(b: rules.Board) -> tuple:
    """The board tables :func:`children_in_memory` takes first, in order."""
    return (b.full, b.neighbours, b.row_mask, b.col_mask)


@njit(cache=True, inline="always")
def chunk_address(index, offsets, row_length, chunk_rows, chunk_cols, col_chunks, first_chunk,
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
        count = table_entries(side[i], np.int64(musketeers[i]), np.int64(enemies[i]),
                               aligned, neighbours, square_bit, placement_of, row_base,
                               rank_table, index, 0)
        for q in range(count):
            chunk_address(index[q], offsets, row_length, chunk_rows, chunk_cols, col_chunks,
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
    count = table_entries(side, musketeers, enemies, t.aligned, t.neighbours, t.square_bit,
                           t.placement_of, t.row_base, t.rank_table, index, 0)
    for q in range(count):
        chunk_address(index[q], g.offsets, g.row_length, g.chunk_rows, g.chunk_cols,
                       g.col_chunks, g.first_chunk, out, q)
    return count


@njit(cache=True, nogil=True)
def combine_many(side, musketeers, t, got, first, values):
    """Values of many positions from their gathered table entries (see locate_many)."""
    aligned = t.aligned
    keys = PREFERENCE_KEYS[rules.MUSKETEERS]
    best_values = VALUE_OF_BEST_KEY[rules.MUSKETEERS]
    for i in range(len(side)):
        values[i] = combine(side[i], np.int64(musketeers[i]), got, first[i], first[i + 1],
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



@njit(cache=True)
def children_in_memory(side, musketeers, enemies, full, neighbours, row_mask, col_mask,
                       aligned, square_neighbours, square_bit, placement_of, row_base,
                       rank_table, flat, out):
    """The value of a (valid) position and every legal move with its child's value,
    from the in-memory table ``flat``, best first for the mover: ``(count, value)``.

    Row ``i`` of ``out`` is (source, target, child musketeers, child enemies, value);
    ``out`` needs ``4 * squares`` rows. Equally good moves keep the order of
    :func:`retro.rules.legal_moves` (a stable insertion sort: a position has at most
    a few dozen moves). The board's tables (``full``, ``neighbours``, ``row_mask``,
    ``col_mask`` of :class:`retro.rules.Board`) and the probe tables
    (:class:`ProbeTables`) come one by one (:func:`board_arguments`,
    :func:`memory_arguments`): unpacking the named tuples would cost more than the work.
    """
    count = rules.moves_into(side, musketeers, enemies, full, neighbours, row_mask, col_mask, out)
    value = value_in_memory(side, musketeers, enemies, aligned, square_neighbours, square_bit,
                            placement_of, row_base, rank_table, flat)
    other = 1 - side
    keys = PREFERENCE_KEYS[side]
    musketeer_keys = PREFERENCE_KEYS[rules.MUSKETEERS]
    best_values = VALUE_OF_BEST_KEY[rules.MUSKETEERS]
    index = np.empty(4 * rules.MUSKETEER_COUNT, dtype=np.int64)
    got = np.empty(len(index), dtype=np.uint8)
    for i in range(count):
        child_m, child_e = rules.play(side, musketeers, enemies, out[i, 0], out[i, 1])
        entries = table_entries(other, child_m, child_e, aligned, square_neighbours, square_bit,
                                placement_of, row_base, rank_table, index, 0)
        for q in range(entries):
            got[q] = flat[index[q]]
        out[i, 2], out[i, 3] = child_m, child_e
        out[i, 4] = combine(other, child_m, got, 0, entries, aligned, musketeer_keys, best_values)
    for i in range(1, count):
        j = i
        while j > 0 and keys[out[j - 1, 4]] < keys[out[j, 4]]:
            for c in range(5):
                out[j - 1, c], out[j, c] = out[j, c], out[j - 1, c]
            j -= 1
    return count, value
