"""The kit's numbering at its edges: the bit instructions against their portable loops,
colex ranks of every count up to the 64th cell, and ``advance`` (the scan's step to the
next entry) against ``masks_at`` of that entry, kinds of no pieces among the others."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from numba import njit

from retro import bits
from retro.games.kit import numbering
from retro.games.kit.cells import grid_symmetries


@njit  # not cached: numba would not see a change of retro.bits under it
def _both_ways(a, b, out):
    for i in range(len(a)):
        out[i, 0] = bits.deposit(a[i], b[i])
        out[i, 1] = bits._deposit_loop(a[i], b[i])
        out[i, 2] = bits.extract(a[i], b[i])
        out[i, 3] = bits._extract_loop(a[i], b[i])


def test_deposit_and_extract_are_the_portable_loops():
    rng = np.random.default_rng(7)
    a = rng.integers(-(1 << 63), (1 << 63) - 1, 20_000, dtype=np.int64)
    b = rng.integers(-(1 << 63), (1 << 63) - 1, 20_000, dtype=np.int64)
    b[:5000] &= rng.integers(0, 1 << 12, 5000)  # sparse spaces, as a board's free cells
    out = np.empty((len(a), 4), dtype=np.int64)
    _both_ways(a, b, out)
    assert np.array_equal(out[:, 0], out[:, 1])
    assert np.array_equal(out[:, 2], out[:, 3])


@pytest.mark.parametrize("cells", [12, 25, 64])
def test_colex_ranks_round_trip_for_every_count(cells):
    binom = np.array([[comb(a, b) for b in range(cells + 1)] for a in range(cells + 1)], dtype=np.int64)
    for count in range(5):
        total = comb(cells, count)
        ranks = range(total) if total <= 20_000 else [*range(5000), *range(total - 5000, total)]
        seen = set()
        for rank in ranks:
            mask = int(numbering.colex_unrank(rank, count, binom)) & ((1 << 64) - 1)
            assert bin(mask).count("1") == count and mask < 1 << cells
            # colex order is the order of the sets as numbers
            assert int(numbering.colex_rank(mask if mask < 1 << 63 else mask - (1 << 64), binom)) == rank
            seen.add(mask)
        assert len(seen) == len(ranks)


def test_advance_steps_to_the_next_entry_over_kinds_of_no_pieces():
    sym = grid_symmetries(3, 4)
    tables = numbering.build_tables(sym, 2)
    masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    after = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    for counts in ([1, 0, 2, 0, 1, 0], [2, 1, 0, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0, 0, 2]):
        counts = np.array(counts, dtype=np.int64)
        kinds = len(counts)
        size = int(numbering.tier_size(counts, tables))
        stepped = 0
        for e in range(size - 1):
            numbering.masks_at(e, counts, tables, masks)
            if numbering.advance(masks, kinds, 12):
                numbering.masks_at(e + 1, counts, tables, after)
                assert np.array_equal(masks[:kinds + 1], after[:kinds + 1]), (counts, e)
                stepped += 1
        if counts[1:].any():  # the key alone: every step is to another class
            assert stepped > size // 2  # most steps are taken in place
