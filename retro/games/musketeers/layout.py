"""How Three Musketeers' values are laid out in a file (the format of retro 0.2, kept).

Only enemy-to-move values are stored; a musketeers-to-move value is the best over
its captures, each an enemy-to-move position of the layer below (a one-ply search,
as chess tablebases do for their one-sided tables). That halves the file, and the
stored side is the more compressible one.

Each layer K (positions with K enemy men) is a dataset ``enemy_to_move/layer_KK`` of
shape (placements, C(F, K)). The value of enemy-to-move position (placement p, mask
m) is ``layer_KK[p, colex_rank(storage_mask)]`` where ``storage_mask`` has bit t set
when ``m`` has bit ``storage_order[p, t]`` set. The storage order puts the squares
far from the musketeers in the low (fast-varying) bits: far men rarely change the
value, so equal values form runs and the file compresses ~30% better.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit, prange

from .index import indexer, layer_masks, mask_rank

STORED_SIDE = "enemy"
LAYER_GROUP = "enemy_to_move"

RULES_TEXT = (
    "1. A musketeer moves to an orthogonally adjacent square holding an enemy man and "
    "captures it. 2. An enemy man moves to an orthogonally adjacent empty square. "
    "3. If the three musketeers stand in one row or one column, the enemy has won "
    "(tested first). 4. Otherwise, if the player to move has no legal move, the "
    "musketeers have won."
)
STORED_SIDE_TEXT = (
    "Only enemy-to-move values are stored. A musketeers-to-move position with the "
    "musketeers in a line has value 0; one without a capture has value 1; any other "
    "is the best over its captures, each an enemy-to-move position with one man fewer."
)
LAYOUT_TEXT = (
    "Canonical placement p: the musketeer bitboard, smallest of its 8 symmetric images, "
    "numbered in ascending order (/placements); a position is first mapped by the "
    "symmetry taking its musketeers there (lowest symmetry number if several). Mask m: "
    "bit i set when the i-th free square (square order, bit row*n+col) holds an enemy "
    "man. Value of enemy-to-move (p, m) with K men: /enemy_to_move/layer_KK[p, r], r the "
    "colexicographic rank among K-bit masks of the storage mask, whose bit t is bit "
    "storage_order[p, t] of m."
)


def layer_name(k: int) -> str:
    """The dataset of layer k in its group: ``layer_KK``."""
    return f"layer_{k:02d}"


@lru_cache(maxsize=None)
def storage_order(size: int) -> np.ndarray:
    """``(P, F)`` int8: storage bit t of placement p holds square-order mask bit [p, t].

    Free squares sorted by their distances to the three musketeers, farthest first
    (compared as sorted distance triples), ties by square number.
    """
    ix = indexer(size)
    n = ix.size
    order = np.zeros((ix.placement_count, ix.free), dtype=np.int8)
    for p, musketeers in enumerate(ix.placements):
        homes = [divmod(s, n) for s in range(n * n) if (int(musketeers) >> s) & 1]

        def farness(i: int, p: int = p, homes: list = homes) -> tuple:
            row, col = divmod(int(ix.free_squares[p, i]), n)
            distances = sorted(abs(row - r) + abs(col - c) for r, c in homes)
            return tuple(-d for d in distances) + (i,)

        order[p] = sorted(range(ix.free), key=farness)
    order.setflags(write=False)
    return order


@lru_cache(maxsize=None)
def storage_perm(size: int) -> np.ndarray:
    """``(P, 3, 256)`` int32: storage-mask bits contributed by each byte of a mask."""
    ix = indexer(size)
    order = storage_order(size)
    perm = np.zeros((ix.placement_count, 3, 256), dtype=np.int32)
    byte_bits = (np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1 == 1
    for p in range(ix.placement_count):
        target = np.zeros(24, dtype=np.int64)
        target[order[p].astype(np.int64)] = 1 << np.arange(ix.free)
        for chunk in range(3):
            images = target[chunk * 8 : chunk * 8 + 8]
            perm[p, chunk] = np.bitwise_or.reduce(np.where(byte_bits, images, 0), axis=1)
    perm.setflags(write=False)
    return perm


@njit(cache=True)
def storage_rank(placement, mask, perm, rank_table):
    """Column of (placement, square-order mask) in its layer dataset."""
    m = perm[placement, 0, mask & 0xFF] | perm[placement, 1, (mask >> 8) & 0xFF]
    m |= perm[placement, 2, (mask >> 16) & 0xFF]
    return mask_rank(m, rank_table)


@njit(cache=True, parallel=True, nogil=True)
def to_storage_order(values, masks, perm, rank_table):
    """Layer values by square-order rank → by storage rank."""
    out = np.empty_like(values)
    for p in prange(values.shape[0]):
        for r in range(len(masks)):
            out[p, storage_rank(p, np.int64(masks[r]), perm, rank_table)] = values[p, r]
    return out


@njit(cache=True, parallel=True, nogil=True)
def from_storage_order(stored, masks, perm, rank_table):
    """Layer values by storage rank → by square-order rank."""
    out = np.empty_like(stored)
    for p in prange(stored.shape[0]):
        for r in range(len(masks)):
            out[p, r] = stored[p, storage_rank(p, np.int64(masks[r]), perm, rank_table)]
    return out


def square_order_layer(stored: np.ndarray, size: int, k: int) -> np.ndarray:
    """A stored layer (storage order) back in square-order rank, as the builder uses it."""
    ix = indexer(size)
    return from_storage_order(stored, layer_masks(ix.free, k), storage_perm(size), ix.rank_table)

