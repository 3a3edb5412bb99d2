"""Tic-tac-toe's rules and index on bitboards (jitted): every primitive, written once.

A bitboard has bit ``3 * row + col`` for the square in row ``row + 1`` and column
``"abc"[col]`` (a1 = bit 0, c3 = bit 8). X moves first; the players take turns
marking an empty square; three marks of a player in a row, a column or a diagonal
win; a full board without one is a draw. A position is legal when X has as many
marks as O (X to move) or one more (O to move) and not both players have a line.

The index: tier n holds the positions with n marks (X has ceil(n/2), O floor(n/2));
entry = rank(X's squares) * C(9 - x, o) + rank(O's squares among the squares X
leaves), each rank colexicographic. Every legal position has its own entry (no
symmetry folding: the whole game is 6,046 entries); entries whose boards are not
positions (both players have a line) are marked so.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit, prange

from ...bits import lowest_bit_index, popcount

SQUARES = 9
FULL = (1 << SQUARES) - 1
LINES = np.array([0b000000111, 0b000111000, 0b111000000,  # rows 1, 2, 3
                  0b001001001, 0b010010010, 0b100100100,  # columns a, b, c
                  0b100010001, 0b001010100],  # the diagonals a1-c3 and c1-a3
                 dtype=np.int64)
LINES.setflags(write=False)
X, O = 0, 1  # side codes: X moves first
NO_WINNER, DRAW = -1, 2  # winner(): nobody yet, or a full board without a line

# colex ranks: BINOMIAL[a, b] = C(a, b)
BINOMIAL = np.array([[comb(a, b) for b in range(SQUARES + 1)] for a in range(SQUARES + 1)],
                    dtype=np.int64)
BINOMIAL.setflags(write=False)


def _symmetries() -> np.ndarray:
    """The 8 symmetries of the square as square maps: identity first."""
    table = np.zeros((8, SQUARES), dtype=np.int64)
    for g in range(8):
        for s in range(SQUARES):
            r, c = divmod(s, 3)
            for _ in range(g % 4):
                r, c = c, 2 - r  # a quarter turn
            if g >= 4:
                c = 2 - c  # then a mirror
            table[g, s] = 3 * r + c
    table.setflags(write=False)
    return table


SYMMETRY = _symmetries()


@njit(cache=True)
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


@njit(cache=True)
def side_to_move(x, o):
    """X when both have as many marks, O when X has one more (legal positions only)."""
    return X if popcount(x) == popcount(o) else O


@njit(cache=True)
def legal(x, o, lines):
    """Whether two bitboards are a position: disjoint, X has as many marks as O or one
    more, and not both have a line."""
    if x & o or (x | o) & ~FULL:
        return False
    difference = popcount(x) - popcount(o)
    if difference != 0 and difference != 1:
        return False
    return not (has_line(x, lines) and has_line(o, lines))


@njit(cache=True, inline="always")
def colex_rank(mask, binomial):
    """Rank of ``mask`` among the masks with as many bits, in colexicographic order."""
    rank = 0
    t = 1
    rest = mask
    while rest:
        rank += binomial[lowest_bit_index(rest), t]
        rest &= rest - 1
        t += 1
    return rank


@njit(cache=True, inline="always")
def colex_unrank(rank, count, width, binomial):
    """The mask of ``count`` bits among ``width`` whose colex rank is ``rank``."""
    mask = 0
    for t in range(count, 0, -1):
        bit = t - 1
        while bit + 1 < width and binomial[bit + 1, t] <= rank:
            bit += 1
        rank -= binomial[bit, t]
        mask |= 1 << bit
    return mask


@njit(cache=True, inline="always")
def squeeze(mask, holes):
    """``mask``'s bits renumbered over the squares outside ``holes`` (bit i = the i-th)."""
    out = 0
    i = 0
    for square in range(SQUARES):
        if not (holes >> square) & 1:
            if (mask >> square) & 1:
                out |= 1 << i
            i += 1
    return out


@njit(cache=True, inline="always")
def spread(mask, holes):
    """The inverse of :func:`squeeze`."""
    out = 0
    i = 0
    for square in range(SQUARES):
        if not (holes >> square) & 1:
            if (mask >> i) & 1:
                out |= 1 << square
            i += 1
    return out


@njit(cache=True)
def entry_of(x, o, binomial):
    """The entry of position (x, o) in its tier (the number of marks)."""
    free = SQUARES - popcount(x)
    return colex_rank(x, binomial) * binomial[free, popcount(o)] + colex_rank(squeeze(o, x), binomial)


@njit(cache=True)
def board_at(marks, entry, binomial):
    """The bitboards ``(x, o)`` at ``entry`` of the tier with ``marks`` marks."""
    xs = (marks + 1) // 2
    os = marks // 2
    per_x = binomial[SQUARES - xs, os]
    x = colex_unrank(entry // per_x, xs, SQUARES, binomial)
    o = spread(colex_unrank(entry % per_x, os, SQUARES - xs, binomial), x)
    return x, o


@njit(cache=True, parallel=True)
def expand(marks, size, lines, binomial, side, finished, counts, draw, not_a_position, open_code):
    """Pass 1 of a tier's expansion: each entry's side, finished value and move count."""
    for entry in prange(size):
        x, o = board_at(marks, entry, binomial)
        side[entry] = side_to_move(x, o)
        counts[entry] = 0
        if not legal(x, o, lines):
            finished[entry] = not_a_position
            continue
        result = winner(x, o, lines)
        if result == X:
            finished[entry] = 1  # 2 * 0 plies + 1: the first side has won
        elif result == O:
            finished[entry] = 0
        elif result == DRAW:
            finished[entry] = draw
        else:
            finished[entry] = open_code
            counts[entry] = SQUARES - popcount(x | o)


@njit(cache=True, parallel=True)
def children(marks, size, binomial, finished, starts, child_entry, open_code):
    """Pass 2: every move of every open entry, as the child's entry in tier marks + 1."""
    for entry in prange(size):
        if finished[entry] != open_code:
            continue
        x, o = board_at(marks, entry, binomial)
        mover_x = popcount(x) == popcount(o)
        at = starts[entry]
        empty = FULL & ~(x | o)
        while empty:
            square = empty & -empty
            empty ^= square
            if mover_x:
                child_entry[at] = entry_of(x | square, o, binomial)
            else:
                child_entry[at] = entry_of(x, o | square, binomial)
            at += 1


@njit(cache=True)
def classes(marks, size, binomial, symmetry, out):
    """For every entry of the tier, the least entry among its 8 symmetric images."""
    for entry in range(size):
        x, o = board_at(marks, entry, binomial)
        best = entry
        for g in range(1, 8):
            gx = 0
            go = 0
            for square in range(SQUARES):
                if (x >> square) & 1:
                    gx |= 1 << symmetry[g, square]
                if (o >> square) & 1:
                    go |= 1 << symmetry[g, square]
            image = entry_of(gx, go, binomial)
            if image < best:
                best = image
        out[entry] = best
