"""The database against a plain recursive minimax, exhaustively on small boards.

The minimax (tests/minimax.py) shares no code with retro. Every position of 3×3 and
4×4 is compared (all of them, not only canonical ones, so the symmetry reduction is
checked too), and every table entry of the 5×5 layers with up to four enemy men.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from minimax import new_memo, solve_many
from retro import Position, open_database
from retro.games.musketeers.index import decode_many, indexer, layer_masks


def _every_position(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All (side, musketeers, enemies) of an n×n board, by brute force."""
    squares = n * n
    sides, musketeers, enemies = [], [], []
    for trio in combinations(range(squares), 3):
        m = sum(1 << s for s in trio)
        free = np.array([s for s in range(squares) if s not in trio], dtype=np.int64)
        subsets = np.arange(1 << len(free), dtype=np.int64)
        e = np.zeros_like(subsets)
        for bit, square in enumerate(free):
            e |= ((subsets >> bit) & 1) << square
        for side in (0, 1):
            sides.append(np.full(len(e), side))
            musketeers.append(np.full(len(e), m))
            enemies.append(e)
    return np.concatenate(sides), np.concatenate(musketeers), np.concatenate(enemies)


def _every_table_entry(n: int, max_k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ix = indexer(n)
    masks = np.concatenate([layer_masks(ix.free, k) for k in range(max_k + 1)]).astype(np.int64)
    placements = np.repeat(np.arange(ix.placement_count), len(masks))
    masks = np.tile(masks, ix.placement_count)
    musketeers = np.empty_like(masks)
    enemies = np.empty_like(masks)
    decode_many(placements, masks, ix, musketeers, enemies)
    sides = np.concatenate([np.zeros_like(masks), np.ones_like(masks)])
    return sides, np.concatenate([musketeers, musketeers]), np.concatenate([enemies, enemies])


def _assert_agree(db_path, n, sides, musketeers, enemies, max_men=None):
    expected = solve_many(sides, musketeers, enemies, n, new_memo(n, max_men))
    with open_database(db_path) as db:
        musketeers_win, plies = db.probe_many((sides, musketeers, enemies))
    got = 2 * plies + musketeers_win
    wrong = np.flatnonzero(got != expected)
    if len(wrong):
        i = wrong[0]
        side = "M" if sides[i] == 0 else "E"
        raise AssertionError(
            f"{len(wrong)} of {len(sides)} positions disagree, e.g. side {side} "
            f"musketeers {musketeers[i]:#x} enemies {enemies[i]:#x}: "
            f"database {got[i]}, minimax {expected[i]}"
        )
    return expected


def test_every_3x3_position(db3):
    values = _assert_agree(db3, 3, *_every_position(3))
    assert len(values) == 84 * 2**6 * 2


def test_every_4x4_position(db4):
    values = _assert_agree(db4, 4, *_every_position(4))
    assert len(values) == 560 * 2**13 * 2
    # Both sides win somewhere, and long games exist: the check is not vacuous.
    assert (values & 1).any() and (~values & 1).any() and (values >> 1).max() >= 20


def test_every_5x5_table_entry_up_to_four_men(db5_low):
    with open_database(db5_low) as db:
        assert db.max_enemy_men == 4
    values = _assert_agree(db5_low, 5, *_every_table_entry(5, 4), max_men=4)
    assert len(values) == 2 * 319 * (1 + 22 + 231 + 1540 + 7315)


@pytest.mark.parametrize("n", [3, 4])
def test_single_probes_agree_with_batch_probes(n, request):
    db_path = request.getfixturevalue(f"db{n}")
    sides, musketeers, enemies = _every_position(n)
    pick = np.random.default_rng(n).choice(len(sides), 300, replace=False)
    with open_database(db_path) as db, open_database(db_path, in_memory=True) as loaded:
        musketeers_win, plies = db.probe_many((sides[pick], musketeers[pick], enemies[pick]))
        for i, j in enumerate(pick):
            from retro.games.musketeers.position import Side

            position = Position(Side.from_code(int(sides[j])), int(musketeers[j]), int(enemies[j]), n)
            for source in (db, loaded):
                outcome = source.probe(position)
                assert outcome.plies == plies[i]
                assert (outcome.winner is Side.MUSKETEERS) == musketeers_win[i]
