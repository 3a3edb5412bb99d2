"""The position indexer: placements, masks, ranks, symmetry."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings

from retro import games
from retro.games.musketeers.index import index_of, indexer, layer_masks, mask_rank, position_at
from retro.games.musketeers.position import Position
from strategies import positions


def _images(squares: frozenset[int], n: int) -> list[frozenset[int]]:
    """The 8 images of a set of squares, by turning and flipping coordinates."""
    cells = [divmod(s, n) for s in squares]
    out = []
    for _ in range(4):
        cells = [(c, n - 1 - r) for r, c in cells]  # a quarter turn
        out.append(frozenset(r * n + c for r, c in cells))
        out.append(frozenset(r * n + (n - 1 - c) for r, c in cells))  # and its mirror
    return out


@pytest.mark.parametrize("n", [3, 4, 5])
def test_canonical_placements_count_the_orbits(n):
    orbits = {min(tuple(sorted(i)) for i in _images(frozenset(t), n))
              for t in combinations(range(n * n), 3)}
    assert indexer(n).placement_count == len(orbits)
    assert indexer(5).placement_count == 319


def test_table_size_is_the_published_count():
    assert games.get('three-musketeers', '5x5').positions(range(23)) == 319 * 2**22 * 2 == 2_675_965_952


@pytest.mark.parametrize("n, k", [(3, 2), (4, 6), (5, 0), (5, 1), (5, 11), (5, 22)])
def test_mask_rank_numbers_each_layer_densely(n, k):
    ix = indexer(n)
    masks = layer_masks(ix.free, k)
    assert len(masks) == comb(ix.free, k)
    assert np.all(np.diff(masks.astype(np.int64)) > 0)
    assert all(int(m).bit_count() == k for m in masks[:: max(1, len(masks) // 1000)])
    step = max(1, len(masks) // 5000)
    ranks = [mask_rank(int(m), ix.rank_table) for m in masks[::step]]
    assert ranks == list(range(0, len(masks), step))


def _as_sets(position: Position) -> tuple:
    squares = lambda bb: frozenset(s for s in range(position.size**2) if (bb >> s) & 1)
    return squares(position.musketeers), squares(position.enemies)


@given(positions())
@settings(max_examples=500)
def test_index_round_trip(position):
    side, placement, mask = index_of(position)
    back = position_at(side, placement, mask, position.size)
    assert index_of(back) == (side, placement, mask)
    assert back.side is position.side
    assert mask.bit_count() == position.enemy_count
    # The stored position is the original seen through one of the 8 symmetries.
    musketeers, enemies = _as_sets(position)
    images = list(zip(_images(musketeers, position.size), _images(enemies, position.size)))
    assert _as_sets(back) in images


@given(positions())
@settings(max_examples=300)
def test_symmetric_images_share_one_index(position):
    indices = {index_of(image) for image in position.symmetric_images()}
    assert len({placement for _, placement, _ in indices}) == 1
    musketeers, _ = _as_sets(position)
    if len(set(_images(musketeers, position.size))) == 8:
        assert len(indices) == 1
    # A placement with symmetries of its own keeps mirror-image enemy masks as
    # separate entries (as in the 319 x 2^22 x 2 count); their values agree, below.


def test_position_at_checks_its_arguments():
    with pytest.raises(IndexError):
        position_at(0, 319, 0)
    with pytest.raises(IndexError):
        position_at(0, 0, 1 << 22)


@given(positions(sizes=(4,)))
@settings(max_examples=200, deadline=None)
def test_all_eight_images_have_one_value(db4, position):
    from retro import open_database

    with open_database(db4) as db:
        values = {db.value(image) for image in position.symmetric_images()}
    assert len(values) == 1
