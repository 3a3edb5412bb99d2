"""Teeko's rules written over a uint8 board (the kit's ``kernels = "board"``), for
tests/test_kit_board.py: its own module, so that tests/warm_kernels.py can import it
and the kit's kernels compiled into it (numba caches them by this file) are compiled
once, before the test workers start.

The board is the kit's: from the side to move's view, 2 the mover's pieces, 1 the
other's, 0 empty. ``consts`` are Teeko's: (pattern shapes and the cells each may start
on, each cell's neighbours, the pieces a side drops).
"""

from __future__ import annotations

import numpy as np
from numba import njit

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
    """Teeko with its kernels over a board (this module's), solved by the engine's
    explicit solver from the kit's expansion (``_kit_expand``): the kit's un-move
    kernels reach the rules through the same two adapters (``_kit_moves``,
    ``_kit_outcome``), which tests/test_kit_board.py checks against Teeko's kernels over
    masks on every board of every tier."""

    kernels = "board"

    def tier_kernels(self, tier, children):
        return None
