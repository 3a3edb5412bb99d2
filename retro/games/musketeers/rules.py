"""The rules of Three Musketeers on an n×n board, as jitted functions on bitboards.

A bitboard is an integer whose bit ``row * n + col`` stands for the square in row
``row + 1`` and column ``"abcde"[col]``. Every part of retro (positions, the
retrograde builder, the alpha-beta solver, the verifier) plays by these rules:

1. A musketeer moves to an orthogonally adjacent square holding an enemy man and
   captures it.
2. An enemy man moves to an orthogonally adjacent empty square.
3. If the three musketeers stand in one row or one column, the enemy has won. This
   test comes first, for any position.
4. Otherwise, if the player to move has no legal move, the musketeers have won
   (a blocked enemy loses too).
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from ...bits import lowest_bit_index, popcount

SIZES = (3, 4, 5)
DEFAULT_SIZE = 5
MUSKETEER_COUNT = 3

# Side and winner codes used by every jitted kernel.
MUSKETEERS = 0
ENEMY = 1
NO_WINNER = -1

# (row, col) offsets: up a row, down a row, left, right.
DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))

# The 8 symmetries of the square as maps (row, col) -> (row', col') on an n×n board.
SYMMETRY_NAMES = (
    "identity",
    "rotate 90",
    "rotate 180",
    "rotate 270",
    "mirror columns",
    "mirror rows",
    "transpose",
    "anti-transpose",
)


def _symmetric_square(sym: int, row: int, col: int, n: int) -> tuple[int, int]:
    last = n - 1
    return (
        (row, col),
        (col, last - row),
        (last - row, last - col),
        (last - col, row),
        (row, last - col),
        (last - row, col),
        (col, row),
        (last - col, last - row),
    )[sym]


class Board(NamedTuple):
    """Geometry tables of an n×n board, passed as one argument to jitted code."""

    size: int
    squares: int
    full: int  # bitboard of every square
    not_first_col: int  # bitboard of every square outside column a
    not_last_col: int  # bitboard of every square outside the last column
    neighbours: np.ndarray  # int64 (squares, 4): neighbour in each DIRECTION or -1
    row_mask: np.ndarray  # int64 (squares,): bitboard of the square's row
    col_mask: np.ndarray  # int64 (squares,): bitboard of the square's column
    symmetry: np.ndarray  # int64 (8, squares): image of each square under each symmetry


@lru_cache(maxsize=None)
def board(size: int = DEFAULT_SIZE) -> Board:
    """Geometry tables for a ``size``×``size`` board (3, 4 or 5)."""
    if size not in SIZES:
        raise ValueError(f"board size {size} is not supported: use 3, 4 or 5")
    n = size
    squares = n * n
    neighbours = np.full((squares, 4), -1, dtype=np.int64)
    row_mask = np.zeros(squares, dtype=np.int64)
    col_mask = np.zeros(squares, dtype=np.int64)
    symmetry = np.zeros((8, squares), dtype=np.int64)
    for row in range(n):
        for col in range(n):
            sq = row * n + col
            for d, (dr, dc) in enumerate(DIRECTIONS):
                r, c = row + dr, col + dc
                if 0 <= r < n and 0 <= c < n:
                    neighbours[sq, d] = r * n + c
            row_mask[sq] = sum(1 << (row * n + c) for c in range(n))
            col_mask[sq] = sum(1 << (r * n + col) for r in range(n))
            for sym in range(8):
                r, c = _symmetric_square(sym, row, col, n)
                symmetry[sym, sq] = r * n + c
    first_col = sum(1 << (r * n) for r in range(n))
    last_col = first_col << (n - 1)
    full = (1 << squares) - 1
    for table in (neighbours, row_mask, col_mask, symmetry):
        table.setflags(write=False)
    return Board(
        size=n,
        squares=squares,
        full=full,
        not_first_col=full & ~first_col,
        not_last_col=full & ~last_col,
        neighbours=neighbours,
        row_mask=row_mask,
        col_mask=col_mask,
        symmetry=symmetry,
    )


# The functions taking plain numbers and arrays (reach, in_line) are the ones hot
# loops inline; those taking a Board are convenient elsewhere. Passing a Board into
# a compiled call costs a reference-count round trip per table, which a search
# running millions of nodes a second cannot afford.


@njit(cache=True, inline="always")
def reach(bb, n, full, not_first_col, not_last_col):
    """Bitboard of the squares orthogonally adjacent to some square of ``bb``."""
    up_down = (bb >> n) | ((bb << n) & full)
    return up_down | ((bb >> 1) & not_last_col) | ((bb << 1) & not_first_col)


# Directions of a step: 0 up a row, 1 down a row, 2 left, 3 right (as DIRECTIONS), and
# how far a piece's square number moves with each, on an n×n board: -n, n, -1, 1.


@njit(cache=True, inline="always")
def step(bb, direction, n, full, not_first_col, not_last_col):
    """The squares one step away from the squares of ``bb`` in ``direction``, on the board."""
    if direction == 0:
        return bb >> n
    if direction == 1:
        return (bb << n) & full
    if direction == 2:
        return (bb >> 1) & not_last_col
    return (bb << 1) & not_first_col


@njit(cache=True, inline="always")
def step_offset(direction, n):
    """How a square's number changes with a step in ``direction``: -n, n, -1 or 1."""
    if direction == 0:
        return -n
    if direction == 1:
        return n
    if direction == 2:
        return -1
    return 1


@njit(cache=True, inline="always")
def movers_and_targets(side, musketeers, enemies, full):
    """The pieces of the side to move and the squares they may step onto (rules 1, 2):
    musketeers onto enemy men, enemy men onto empty squares."""
    if side == MUSKETEERS:
        return musketeers, enemies
    return enemies, full & ~(musketeers | enemies)


@njit(cache=True, inline="always")
def move_count(side, musketeers, enemies, n, full, not_first_col, not_last_col):
    """The number of legal steps of the side to move (ignores rule 3)."""
    movers, targets = movers_and_targets(side, musketeers, enemies, full)
    count = 0
    for direction in range(4):
        count += popcount(step(movers, direction, n, full, not_first_col, not_last_col) & targets)
    return count


@njit(cache=True, inline="always")
def in_line(musketeers, row_mask, col_mask):
    """True when the three musketeers stand in one row or one column (rule 3)."""
    sq = lowest_bit_index(musketeers)
    return (musketeers & row_mask[sq]) == musketeers or (musketeers & col_mask[sq]) == musketeers


@njit(cache=True)
def neighbourhood(bb, b):
    """Bitboard of the squares orthogonally adjacent to some square of ``bb``."""
    return reach(bb, b.size, b.full, b.not_first_col, b.not_last_col)


@njit(cache=True)
def aligned(musketeers, b):
    """True when the three musketeers stand in one row or one column (rule 3)."""
    return in_line(musketeers, b.row_mask, b.col_mask)


@njit(cache=True)
def has_legal_move(side, musketeers, enemies, b):
    """True when the side to move has at least one legal move (ignores rule 3)."""
    movers, targets = movers_and_targets(side, musketeers, enemies, b.full)
    return (neighbourhood(movers, b) & targets) != 0


@njit(cache=True)
def winner(side, musketeers, enemies, b):
    """ENEMY, MUSKETEERS, or NO_WINNER while the game goes on (rules 3 and 4)."""
    if aligned(musketeers, b):
        return ENEMY
    if not has_legal_move(side, musketeers, enemies, b):
        return MUSKETEERS
    return NO_WINNER


@njit(cache=True)
def legal_moves(side, musketeers, enemies, b, out):
    """Write the legal moves as (from, to) square pairs into ``out``; return how many.

    ``out`` needs ``4 * squares`` rows. A finished game has no legal moves.
    """
    return moves_into(side, musketeers, enemies, b.full, b.neighbours, b.row_mask, b.col_mask, out)


@njit(cache=True, inline="always")
def moves_into(side, musketeers, enemies, full, neighbours, row_mask, col_mask, out):
    """:func:`legal_moves` on the board's tables passed one by one (for kernels called
    from Python once per request, where unpacking a :class:`Board` costs microseconds)."""
    if in_line(musketeers, row_mask, col_mask):
        return 0
    count = 0
    movers, targets = movers_and_targets(side, musketeers, enemies, full)
    rest = movers
    while rest:
        sq = lowest_bit_index(rest)
        rest &= rest - 1
        for d in range(4):
            to = neighbours[sq, d]
            if to >= 0 and (targets >> to) & 1:
                out[count, 0] = sq
                out[count, 1] = to
                count += 1
    return count


GAME_OVER, ILLEGAL = -1, -2  # checked_play: why a move was refused


@njit(cache=True)
def checked_play(side, musketeers, enemies, source, target, b):
    """``(status, musketeers, enemies)`` after ``side`` moves ``source`` -> ``target``.

    ``status`` is 0 for a legal move (rules 1 and 2), :data:`GAME_OVER` when the
    game has ended (rules 3 and 4), :data:`ILLEGAL` otherwise; the bitboards are
    unchanged unless the move was played.
    """
    if winner(side, musketeers, enemies, b) != NO_WINNER:
        return GAME_OVER, musketeers, enemies
    movers, targets = movers_and_targets(side, musketeers, enemies, b.full)
    if not ((movers >> source) & 1 and (targets >> target) & 1):
        return ILLEGAL, musketeers, enemies
    for d in range(4):
        if b.neighbours[source, d] == target:
            child_m, child_e = play(side, musketeers, enemies, source, target)
            return 0, child_m, child_e
    return ILLEGAL, musketeers, enemies


@njit(cache=True)
def play(side, musketeers, enemies, source, target):
    """Bitboards after ``side`` moves a piece from ``source`` to ``target`` (unchecked)."""
    step = (1 << source) | (1 << target)
    if side == MUSKETEERS:
        return musketeers ^ step, enemies & ~(1 << target)
    return musketeers, enemies ^ step


@njit(cache=True)
def transform(bb, sym, b):
    """Image of bitboard ``bb`` under symmetry ``sym`` (an index into SYMMETRY_NAMES)."""
    image = 0
    rest = bb
    while rest:
        sq = lowest_bit_index(rest)
        rest &= rest - 1
        image |= 1 << b.symmetry[sym, sq]
    return image
