"""The position indexer: canonical musketeer placements and enemy bitmasks.

Every position maps to an index ``(side, placement, mask)``:

* ``placement`` numbers the canonical musketeer placements: the 3-square sets that
  are the smallest bitboard among their 8 symmetric images (319 on 5×5). A position
  is first moved by the symmetry that brings its musketeers onto their canonical
  placement (the lowest-numbered one when several do).
* ``mask`` is the enemy bitmask over the ``n*n - 3`` squares the placement leaves
  free, bit ``i`` standing for the ``i``-th free square in square order.

Storage groups positions by *layer*, the number of enemy men ``k = popcount(mask)``,
and within a layer by the colexicographic rank of the mask, which is its position
in the ascending list of ``k``-bit masks (:func:`layer_masks`).
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit

from . import rules
from ...bits import lowest_bit_index, popcount, triple_rank
from .position import Position, Side

MAX_FREE = 24  # mask bits the tables support (5×5 needs 22)


class Indexer(NamedTuple):
    """Index tables of one board size, passed as one argument to jitted code."""

    board: rules.Board
    free: int  # free squares per placement: n*n - 3, the number of mask bits
    placements: np.ndarray  # int64 (P,): canonical musketeer bitboards, ascending
    aligned: np.ndarray  # bool (P,): placement in one row or column (rule 3)
    free_squares: np.ndarray  # int64 (P, free): the free squares in square order
    free_index: np.ndarray  # int64 (P, squares): bit of each square in the mask, -1 on musketeers
    canon_placement: np.ndarray  # int64 (C(squares, 3),): placement of each 3-set, by colex rank
    canon_symmetry: np.ndarray  # int64 (C(squares, 3),): symmetry taking the 3-set there
    binomial: np.ndarray  # int64 (squares + 1, squares + 1): binomial[a, b] = C(a, b)
    rank_table: np.ndarray  # int32 (half + 2, 2**half): colex rank contributions, see mask_rank

    @property
    def size(self) -> int:
        return self.board.size

    @property
    def placement_count(self) -> int:
        return len(self.placements)

    def layer_size(self, k: int) -> int:
        """Number of masks with ``k`` enemy men."""
        return comb(self.free, k)

    @property
    def layers(self) -> int:
        """Number of layers: enemy counts 0..free."""
        return self.free + 1


def _rank3(squares: tuple[int, int, int]) -> int:
    a, b, c = sorted(squares)
    return comb(a, 1) + comb(b, 2) + comb(c, 3)


@lru_cache(maxsize=None)
def indexer(size: int = rules.DEFAULT_SIZE) -> Indexer:
    """Index tables for a ``size``×``size`` board (built once, then cached)."""
    b = rules.board(size)
    squares = b.squares
    free = squares - rules.MUSKETEER_COUNT
    sym = b.symmetry

    def image(bb: int, g: int) -> int:
        return sum(1 << int(sym[g, s]) for s in range(squares) if (bb >> s) & 1)

    triples = [
        (x, y, z)
        for z in range(squares)
        for y in range(z)
        for x in range(y)
    ]
    canonical = {}
    for t in triples:
        bb = sum(1 << s for s in t)
        canonical[t] = min((image(bb, g), g) for g in range(8))
    placements = np.array(sorted({c for c, _ in canonical.values()}), dtype=np.int64)
    number = {int(p): i for i, p in enumerate(placements)}

    canon_placement = np.zeros(comb(squares, 3), dtype=np.int64)
    canon_symmetry = np.zeros(comb(squares, 3), dtype=np.int64)
    for t, (c, g) in canonical.items():
        canon_placement[_rank3(t)] = number[c]
        canon_symmetry[_rank3(t)] = g

    count = len(placements)
    free_squares = np.zeros((count, free), dtype=np.int64)
    free_index = np.full((count, squares), -1, dtype=np.int64)
    aligned = np.zeros(count, dtype=np.bool_)
    for p, bb in enumerate(placements):
        cells = [s for s in range(squares) if not (int(bb) >> s) & 1]
        free_squares[p] = cells
        free_index[p, cells] = np.arange(free)
        aligned[p] = rules.aligned(int(bb), b)

    binomial = np.array(
        [[comb(x, y) for y in range(squares + 1)] for x in range(squares + 1)], dtype=np.int64
    )
    rank_table = _rank_table(free)

    tables = (placements, aligned, free_squares, free_index, canon_placement,
              canon_symmetry, binomial, rank_table)
    for table in tables:
        table.setflags(write=False)
    return Indexer(b, free, *tables)


def _rank_table(free: int) -> np.ndarray:
    """Row 0: colex contributions of the low ``half`` bits of a mask; row ``1 + c``:
    contributions of the high bits when ``c`` low bits are set."""
    half = (free + 1) // 2
    table = np.zeros((half + 2, 1 << half), dtype=np.int32)
    for low in range(1 << half):
        bits = [j for j in range(half) if (low >> j) & 1]
        table[0, low] = sum(comb(j, t + 1) for t, j in enumerate(bits))
    for below in range(half + 1):
        for high in range(1 << (free - half)):
            bits = [half + j for j in range(free - half) if (high >> j) & 1]
            table[1 + below, high] = sum(comb(j, below + t + 1) for t, j in enumerate(bits))
    return table


@lru_cache(maxsize=64)
def layer_masks(free: int, k: int) -> np.ndarray:
    """All ``free``-bit masks with ``k`` bits set, ascending: position = colex rank."""
    masks = _layer_masks(free, k, comb(free, k))
    masks.setflags(write=False)
    return masks


@njit(cache=True)
def _layer_masks(free, k, count):
    out = np.empty(count, dtype=np.int32)
    if k == 0:
        out[0] = 0
        return out
    m = (1 << k) - 1
    for i in range(count):
        out[i] = m
        # Gosper's hack: the next larger integer with the same number of set bits.
        low = m & -m
        ripple = m + low
        m = (((ripple ^ m) >> 2) // low) | ripple
    return out


@njit(cache=True)
def mask_rank(mask, rank_table):
    """Colex rank of ``mask`` among the masks with as many set bits (its layer).

    ``rank_table`` is :attr:`Indexer.rank_table`: one popcount and two loads.
    """
    half = lowest_bit_index(rank_table.shape[1])
    low = mask & (rank_table.shape[1] - 1)
    return rank_table[0, low] + rank_table[1 + popcount(low), mask >> half]


@njit(cache=True)
def encode(musketeers, enemies, ix):
    """(placement, mask) of a position given by its musketeer and enemy bitboards."""
    t = triple_rank(musketeers)
    p = ix.canon_placement[t]
    g = ix.canon_symmetry[t]
    mask = 0
    rest = enemies
    while rest:
        s = lowest_bit_index(rest)
        rest &= rest - 1
        mask |= 1 << ix.free_index[p, ix.board.symmetry[g, s]]
    return p, mask


@njit(cache=True)
def decode(placement, mask, ix):
    """(musketeers, enemies) bitboards of the canonical position at (placement, mask)."""
    enemies = 0
    rest = mask
    while rest:
        i = lowest_bit_index(rest)
        rest &= rest - 1
        enemies |= 1 << ix.free_squares[placement, i]
    return ix.placements[placement], enemies


@njit(cache=True)
def encode_many(musketeers, enemies, ix, placement_out, mask_out):
    """Vectorised :func:`encode` over arrays of bitboards."""
    for i in range(len(musketeers)):
        placement_out[i], mask_out[i] = encode(musketeers[i], enemies[i], ix)


@njit(cache=True)
def decode_many(placements, masks, ix, musketeers_out, enemies_out):
    """Vectorised :func:`decode` over arrays of indices."""
    for i in range(len(placements)):
        musketeers_out[i], enemies_out[i] = decode(placements[i], masks[i], ix)


def index_of(position: Position) -> tuple[int, int, int]:
    """``(side, placement, mask)`` of a :class:`~retro.position.Position`; side 0 = musketeers."""
    p, mask = encode(position.musketeers, position.enemies, indexer(position.size))
    return position.side.code, int(p), int(mask)


def position_at(side: int, placement: int, mask: int, size: int = rules.DEFAULT_SIZE) -> Position:
    """The canonical :class:`~retro.position.Position` stored at an index."""
    ix = indexer(size)
    if not 0 <= placement < ix.placement_count:
        raise IndexError(f"placement {placement} out of range 0..{ix.placement_count - 1}")
    if not 0 <= mask < (1 << ix.free):
        raise IndexError(f"mask {mask} out of range for {ix.free} free squares")
    musketeers, enemies = decode(placement, mask, ix)
    return Position(Side.from_code(side), int(musketeers), int(enemies), size)
