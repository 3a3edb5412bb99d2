"""Tic-tac-toe's rules on bitboards (jitted): every primitive, written once.

A bitboard has bit ``3 * row + col`` for the square in row ``row + 1`` and column
``"abc"[col]`` (a1 = bit 0, c3 = bit 8). X moves first; the players take turns
marking an empty square; three marks of a player in a row, a column or a diagonal
win; a full board without one is a draw; not both players have a line.

``moves`` and ``outcome`` are the kit's kernels (:mod:`retro.games.kit`) over cell
sets, with absolute kinds: ``masks[1]`` X's squares, ``masks[2]`` O's, ``masks[0]``
the empty ones; a tier ``(X's marks, O's marks)``: X is to move when they are equal.
The weak solvers (:mod:`retro.search.games`) read ``winner``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kit import DRAWN, ILLEGAL, LOST, OPEN, WON

SQUARES = 9
FULL = (1 << SQUARES) - 1
LINES = np.array([0b000000111, 0b000111000, 0b111000000,  # rows 1, 2, 3
                  0b001001001, 0b010010010, 0b100100100,  # columns a, b, c
                  0b100010001, 0b001010100],  # the diagonals a1-c3 and c1-a3
                 dtype=np.int64)
LINES.setflags(write=False)
X, O = 0, 1  # side codes: X moves first
NO_WINNER, DRAW = -1, 2  # winner(): nobody yet, or a full board without a line


@njit(cache=True, inline="always")
def has_line(marks, lines):
    """True when ``marks`` holds a whole row, column or diagonal."""
    for line in lines:
        if marks & line == line:
            return True
    return False


@njit(cache=True)
def winner(x, o, lines):
    """X, O, DRAW (a full board without a line) or NO_WINNER while the game goes on.

    Meaningful for legal positions only (never both lines)."""
    if has_line(x, lines):
        return X
    if has_line(o, lines):
        return O
    if (x | o) == FULL:
        return DRAW
    return NO_WINNER


@njit(cache=True, inline="always")
def outcome(masks, tier, consts):
    """Who has a line, from the side to move's view; a draw on a full board."""
    x, o = has_line(masks[1], consts[0]), has_line(masks[2], consts[0])
    if x and o:
        return ILLEGAL
    if x or o:
        return WON if x == (tier[0] == tier[1]) else LOST
    return DRAWN if masks[0] == 0 else OPEN


@njit(cache=True, inline="always")
def moves(masks, tier, consts, out):
    """A mark on each empty square (in square order) by the side to move."""
    mover = 1 if tier[0] == tier[1] else 2
    n = 0
    free = masks[0]
    while free:
        s = free & -free
        out[n, 0], out[n, 1], out[n, 2] = masks[0] ^ s, masks[1], masks[2]
        out[n, mover] |= s
        n += 1
        free ^= s
    return n
