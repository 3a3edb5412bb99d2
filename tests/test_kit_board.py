"""The kit's board form (``kernels = "board"``): a game may write its moves and outcome
over a uint8 board and the kit adapts them to its kernels over masks. Teeko's rules
written that way (tests/teeko_board.py, its 4x4-3 variant) must give the very moves,
outcomes, expansion and values of Teeko's own (over masks).

The kit's kernels reach a game's rules only through ``_kit_moves`` and ``_kit_outcome``,
which the board form binds to its adapters (the board built from the masks, the
children turned back into masks): checked against Teeko's kernels on every board of
every tier, they give every kernel (the un-move solver's scan and parents as well) the
same children and outcomes in both forms. End to end, through one kernel: the explicit
expansion of every tier and a build from it (:class:`teeko_board.BoardTeeko` is solved
by the explicit solver; compiling the un-move solver's kernels for it took a minute of
the suite).
"""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np
from teeko_board import BoardTeeko

from retro import games
from retro.db.format import DatabaseFile
from retro.engine.build import build
from retro.games.kit import ILLEGAL, LOST, OPEN, WON, numbering
from retro.values import not_a_position

VARIANT = "4x4-3"


def forms():
    """(the board form, the masks form) of the variant."""
    board, masks = BoardTeeko(VARIANT), games.get("teeko", VARIANT)
    assert board.rules_module is not masks.rules_module
    assert board.rules_module._kit_moves is not masks.rules_module._kit_moves
    return board, masks


def children(rows):
    """A move's children (rows of masks) as a sorted list, whatever their order."""
    return sorted(map(tuple, rows.tolist()))


def test_the_adapters_give_the_moves_and_outcome_of_the_mask_kernels_on_every_board():
    """Every placement of each tier's pieces (not only the numbering's entries: the
    un-move kernels also play from the side to move's pieces turned into the other's)."""
    board, masks = forms()
    mine, theirs = board.rules_module, masks.rules_module
    cells = board.cells_count
    full = (1 << cells) - 1
    state = np.zeros(numbering.MAX_KINDS, dtype=np.int64)
    out_mine = np.zeros((board.max_moves, board.kinds + 1 + board.extras), dtype=np.int64)
    out_theirs = np.zeros_like(out_mine)
    scratch_mine = np.zeros((board.max_moves + 1, cells + board.extras), dtype=np.uint8)
    scratch_theirs = np.zeros_like(scratch_mine)
    seen = {}
    for tier in masks.tiers():
        other, mover = tier
        t = np.array(tier, dtype=np.int64)
        boards = 0
        for a in combinations(range(cells), other):
            others = sum(1 << c for c in a)
            for b in combinations([c for c in range(cells) if not others >> c & 1], mover):
                movers = sum(1 << c for c in b)
                state[0], state[1], state[2] = full & ~(others | movers), others, movers
                boards += 1
                code = mine._kit_outcome(state, t, board.consts, scratch_mine)
                assert code == theirs._kit_outcome(state, t, masks.consts, scratch_theirs), (tier, a, b)
                seen[code] = seen.get(code, 0) + 1
                if code != OPEN:
                    continue
                n = mine._kit_moves(state, t, board.consts, out_mine, scratch_mine)
                assert n == theirs._kit_moves(state, t, masks.consts, out_theirs, scratch_theirs), (tier, a, b)
                assert n > 0, (tier, a, b)
                if not np.array_equal(out_mine[:n], out_theirs[:n]):
                    assert children(out_mine[:n]) == children(out_theirs[:n]), (tier, a, b)
        assert boards == comb(cells, other) * comb(cells - other, mover), tier
    assert set(seen) == {OPEN, WON, LOST, ILLEGAL}


def values_of(game, folder):
    out = build(game, folder / f"{type(game).__name__}.h5", progress=False).path
    file = DatabaseFile(out)
    try:
        return {t: np.asarray(file.read(t)) for t in file.tiers}
    finally:
        file.close()


def test_the_board_form_gives_the_expansion_and_values_of_the_mask_form(tmp_path):
    board, masks = forms()
    for tier in masks.tiers():
        mine, theirs = board.expand(tier), masks.expand(tier)
        assert mine.tiers == theirs.tiers
        for name in ("side", "finished", "starts"):
            assert np.array_equal(getattr(mine, name), getattr(theirs, name)), (tier, name)
        entry = np.repeat(np.arange(mine.size), np.diff(mine.starts))  # each child's entry
        for expansion in (mine, theirs):  # each entry's children in one order
            order = np.lexsort((expansion.child_entry, expansion.child_tier, entry))
            expansion.child_tier, expansion.child_entry = expansion.child_tier[order], expansion.child_entry[order]
        assert np.array_equal(mine.child_tier, theirs.child_tier), tier
        assert np.array_equal(mine.child_entry, theirs.child_entry), tier
        assert board.positions_in(tier) == masks.positions_in(tier), tier
    mine, theirs = values_of(board, tmp_path), values_of(masks, tmp_path)
    assert mine.keys() == theirs.keys() == set(masks.tiers())
    for tier in mine:
        # The explicit solver leaves a duplicate entry (another entry holds its position)
        # not a position; the un-move solver gives it its position's value.
        entries = np.arange(masks.tier_size(tier))
        canonical = masks.canonical_entries(tier, entries)
        assert np.array_equal(mine[tier][canonical], theirs[tier]), tier
        assert (mine[tier][canonical != entries] == not_a_position(masks.value_dtype)).all(), tier


def test_positions_of_the_board_form_have_the_moves_of_the_mask_form():
    board, masks = forms()
    rng = np.random.default_rng(41)
    for tier in masks.tiers():
        for entry in np.unique(rng.integers(0, masks.tier_size(tier), 200)).tolist():
            position = masks.position_at(tier, entry)
            if position is None:
                continue
            same = board.parse(str(position))
            assert same.is_over() == position.is_over()
            assert [str(m) for m in same.legal_moves()] == [str(m) for m in position.legal_moves()]
            assert {m: str(p) for m, p in same.successors().items()} == \
                {m: str(p) for m, p in position.successors().items()}
