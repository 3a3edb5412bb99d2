"""The kit's board form (``kernels = "board"``): a game may write its moves and outcome
over a uint8 board and the kit adapts them to its kernels over masks. Teeko's rules
written that way (its 4x4-3 variant) must give the very values of Teeko's own (over
masks), and the same moves in every position tried."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from retro import games
from retro.db.format import DatabaseFile
from retro.engine.build import build
from retro.games.kit import ILLEGAL, LOST, OPEN, WON
from retro.games.teeko import Teeko


@njit(cache=True)
def outcome(board, tier, consts):
    mine = theirs = 0
    for c in range(len(board)):
        mine |= np.int64(board[c] >> 1) << c
        theirs |= np.int64(board[c] & 1) << c
    won = lost = False
    for shape, starts in consts[0]:  # Teeko's patterns: a shape and the cells it starts on
        for c in range(len(board)):
            if (starts >> c) & 1:
                won |= mine & (shape << c) == shape << c
                lost |= theirs & (shape << c) == shape << c
    if won and lost:
        return ILLEGAL
    return WON if won else LOST if lost else OPEN


@njit(cache=True)
def moves(board, tier, consts, out):
    cells = len(board)
    n = 0
    for s in range(cells):
        if tier[1] < consts[2]:
            if not board[s]:
                for c in range(cells):
                    out[n, c] = (board[c] << 1 | board[c] >> 1) & 3
                out[n, s] = 1
                n += 1
        elif board[s] == 2:
            for t in range(cells):
                if (consts[1][s] >> t) & 1 and not board[t]:
                    for c in range(cells):
                        out[n, c] = (board[c] << 1 | board[c] >> 1) & 3
                    out[n, s] = 0
                    out[n, t] = 1
                    n += 1
    return n


class BoardTeeko(Teeko):
    """Teeko with its kernels over a board (this module's)."""

    kernels = "board"


def values_of(game, folder):
    out = build(game, folder / f"{type(game).__name__}.h5", progress=False).path
    file = DatabaseFile(out)
    try:
        return {t: np.asarray(file.read(t)) for t in file.tiers}
    finally:
        file.close()


@pytest.mark.parametrize("variant", ["4x4-3"])
def test_the_board_form_gives_the_values_of_the_mask_form(variant, tmp_path):
    board, masks = BoardTeeko(variant), games.get("teeko", variant)
    assert board.rules_module.moves is not masks.rules_module.moves
    mine, theirs = values_of(board, tmp_path), values_of(masks, tmp_path)
    assert mine.keys() == theirs.keys()
    for tier in mine:
        assert np.array_equal(mine[tier], theirs[tier]), tier
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
