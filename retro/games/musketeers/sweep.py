"""Jitted kernels of the retrograde sweep: one layer of one side at a time.

Layer ``k`` holds the positions with ``k`` enemy men. A musketeer move captures, so
musketeers-to-move layer ``k`` reads enemy-to-move layer ``k - 1``; an enemy move keeps
the musketeers where they are, so enemy-to-move layer ``k`` reads musketeers-to-move
layer ``k`` of the same placement. Arrays are ``(placements, layer_size)`` uint8 in the
encoding of :mod:`retro.outcome`, indexed by the colex rank of the enemy mask.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from . import rules
from .index import encode, indexer, layer_masks, mask_rank
from ...values import ENEMY_WON, NO_MOVE_KEY, PREFERENCE_KEYS, VALUE_OF_BEST_KEY

MAX_CAPTURES = 4 * rules.MUSKETEER_COUNT
PERM_BYTES = 3  # masks of up to 24 bits, in three byte-sized lookups
_BYTE_BITS = (np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1 == 1


class MoveTables(NamedTuple):
    """Moves of every placement, precomputed in index space."""

    capture_count: np.ndarray  # int64 (P,): capture directions whose target is a free square
    capture_bit: np.ndarray  # int64 (P, 12): mask bit of the captured man
    capture_child: np.ndarray  # int64 (P, 12): placement after the capture
    capture_perm: np.ndarray  # int32 (P, 12, 3, 256): child mask bits from each mask byte
    step_count: np.ndarray  # int64 (P,): pairs of adjacent free squares
    step_pair: np.ndarray  # int64 (P, max steps): pair number of each adjacent pair
    pair_low: np.ndarray  # int64 (pairs,): lower mask bit of each pair
    pair_high: np.ndarray  # int64 (pairs,): higher mask bit of each pair


@lru_cache(maxsize=None)
def move_tables(size: int) -> MoveTables:
    """Move tables for a board size (built once, then cached)."""
    ix = indexer(size)
    b = ix.board
    count, free = ix.placement_count, ix.free
    chunks = PERM_BYTES
    capture_count = np.zeros(count, dtype=np.int64)
    capture_bit = np.full((count, MAX_CAPTURES), -1, dtype=np.int64)
    capture_child = np.full((count, MAX_CAPTURES), -1, dtype=np.int64)
    capture_perm = np.zeros((count, MAX_CAPTURES, chunks, 256), dtype=np.int32)
    steps: list[list[tuple[int, int]]] = []
    for p in range(count):
        musketeers = int(ix.placements[p])
        slot = 0
        for s in range(b.squares):
            if not (musketeers >> s) & 1:
                continue
            for d in range(4):
                t = int(b.neighbours[s, d])
                if t < 0 or (musketeers >> t) & 1:
                    continue
                child_musketeers = musketeers ^ (1 << s) ^ (1 << t)
                # Where each free square of p lands once the capture is played and the
                # result brought to its canonical placement.
                child_p, _ = encode(child_musketeers, 0, ix)
                bit_image = np.zeros(chunks * 8, dtype=np.int64)
                for i in range(free):
                    if i != ix.free_index[p, t]:
                        _, bit_image[i] = encode(child_musketeers, 1 << int(ix.free_squares[p, i]), ix)
                capture_bit[p, slot] = ix.free_index[p, t]
                capture_child[p, slot] = child_p
                for chunk in range(chunks):
                    images = bit_image[chunk * 8 : chunk * 8 + 8]
                    capture_perm[p, slot, chunk] = np.bitwise_or.reduce(
                        np.where(_BYTE_BITS, images, 0), axis=1
                    )
                slot += 1
        capture_count[p] = slot
        pairs = set()
        for i in range(free):
            sq = int(ix.free_squares[p, i])
            for d in range(4):
                t = int(b.neighbours[sq, d])
                if t >= 0 and not (musketeers >> t) & 1:
                    j = int(ix.free_index[p, t])
                    pairs.add((min(i, j), max(i, j)))
        steps.append(sorted(pairs))
    all_pairs = sorted(set().union(*steps))
    pair_number = {pair: q for q, pair in enumerate(all_pairs)}
    step_count = np.array([len(s) for s in steps], dtype=np.int64)
    step_pair = np.full((count, max(1, int(step_count.max()))), -1, dtype=np.int64)
    for p, pairs in enumerate(steps):
        step_pair[p, : len(pairs)] = [pair_number[pair] for pair in pairs]
    pair_low = np.array([i for i, _ in all_pairs], dtype=np.int64)
    pair_high = np.array([j for _, j in all_pairs], dtype=np.int64)
    tables = MoveTables(
        capture_count, capture_bit, capture_child, capture_perm,
        step_count, step_pair, pair_low, pair_high,
    )
    for table in tables:
        table.setflags(write=False)
    return tables


@njit(cache=True, parallel=True, nogil=True)
def step_lists(masks, pair_low, pair_high, length):
    """For each pair of mask bits (i, j): ranks of the masks with i set and j clear, and
    ranks of the masks with j set and i clear, both ascending.

    Moving the man from i to j maps the t-th mask of the first list to the t-th of the
    second (the map keeps the order of masks), so one pass over both lists visits every
    enemy step across that pair, in both directions, for every placement having it.
    """
    pairs = len(pair_low)
    with_low = np.empty((pairs, length), dtype=np.int32)
    with_high = np.empty((pairs, length), dtype=np.int32)
    for q in prange(pairs):
        low_bit = np.int64(1) << pair_low[q]
        high_bit = np.int64(1) << pair_high[q]
        a = 0
        b = 0
        for r in range(len(masks)):
            m = np.int64(masks[r])
            if m & low_bit:
                if not m & high_bit:
                    with_low[q, a] = r
                    a += 1
            elif m & high_bit:
                with_high[q, b] = r
                b += 1
    return with_low, with_high


@njit(cache=True, parallel=True, nogil=True)
def bit_lists(masks, free, length):
    """For each mask bit i: ascending ranks of the masks that have bit i set."""
    with_bit = np.empty((free, length), dtype=np.int32)
    for i in prange(free):
        bit = np.int64(1) << i
        t = 0
        for r in range(len(masks)):
            if masks[r] & bit:
                with_bit[i, t] = r
                t += 1
    return with_bit


@njit(cache=True, parallel=True, nogil=True)
def musketeer_layer(masks, previous, out, first, last, aligned, rank_table,
                    capture_count, capture_bit, capture_child, capture_perm, with_bit):
    """Musketeers-to-move values of placements ``first..last-1`` of one layer.

    ``masks`` lists the layer's masks by rank, ``previous`` is enemy-to-move layer k-1,
    ``with_bit`` comes from :func:`bit_lists`; the other arrays come from
    :class:`~retro.indexing.Indexer` and :class:`MoveTables`.
    """
    keys = PREFERENCE_KEYS[rules.MUSKETEERS]
    values = VALUE_OF_BEST_KEY[rules.MUSKETEERS]
    size = out.shape[1]
    for p in prange(first, last):
        row = out[p]
        if aligned[p]:
            row[:] = ENEMY_WON
            continue
        best = np.full(size, NO_MOVE_KEY, dtype=np.uint8)
        # Capture by capture, over exactly the masks where it is legal: no branch
        # in the inner loop depends on the position.
        for c in range(capture_count[p]):
            parents = with_bit[capture_bit[p, c]]
            perm = capture_perm[p, c]
            child_values = previous[capture_child[p, c]]
            for t in range(len(parents)):
                r = parents[t]
                m = np.int64(masks[r])
                child = perm[0, m & 0xFF] | perm[1, (m >> 8) & 0xFF] | perm[2, (m >> 16) & 0xFF]
                key = keys[child_values[mask_rank(child, rank_table)]]
                best[r] = max(best[r], key)
        for r in range(size):
            row[r] = values[best[r]]


@njit(cache=True, parallel=True, nogil=True)
def enemy_layer(current, out, first, last, aligned, step_count, step_pair,
                with_low, with_high):
    """Enemy-to-move values of placements ``first..last-1`` of one layer.

    ``current`` is musketeers-to-move of the same layer; ``with_low`` and
    ``with_high`` come from :func:`step_lists`.
    """
    keys = PREFERENCE_KEYS[rules.ENEMY]
    values = VALUE_OF_BEST_KEY[rules.ENEMY]
    length = with_low.shape[1]
    size = out.shape[1]
    for p in prange(first, last):
        row = out[p]
        if aligned[p]:
            row[:] = ENEMY_WON
            continue
        child_key = np.empty(size, dtype=np.uint8)
        source = current[p]
        for r in range(size):
            child_key[r] = keys[source[r]]
        best = np.full(size, NO_MOVE_KEY, dtype=np.uint8)
        for e in range(step_count[p]):
            lows = with_low[step_pair[p, e]]
            highs = with_high[step_pair[p, e]]
            for t in range(length):
                a = lows[t]
                b = highs[t]
                best[a] = max(best[a], child_key[b])
                best[b] = max(best[b], child_key[a])
        for r in range(size):
            row[r] = values[best[r]]


# Kernel calls per layer and side for the largest layers: fine-grained enough for
# a lively progress bar, coarse enough to keep both threads busy.
PROGRESS_STEPS = 8


def solve_layer(size: int, k: int, previous: np.ndarray | None, advance=None) -> np.ndarray:
    """Enemy-to-move values of layer k, ``(placements, C(free, k))`` by square-order
    rank, from enemy-to-move layer k - 1 (None for k = 0). The musketeers-to-move
    values of layer k are computed on the way and dropped: they are one capture from
    layer k - 1. ``advance(positions)`` is told of the progress."""
    ix, mt = indexer(size), move_tables(size)
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
        if advance is not None:
            advance((last - first) * length)
    del with_bit
    with_low, with_high = step_lists(
        masks, mt.pair_low, mt.pair_high, comb(ix.free - 2, k - 1) if k else 0
    )
    for first, last in zip(bounds[:-1], bounds[1:]):
        enemy_layer(
            musketeers, enemy, first, last, ix.aligned, mt.step_count, mt.step_pair,
            with_low, with_high,
        )
        if advance is not None:
            advance((last - first) * length)
    return enemy
