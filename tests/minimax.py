"""A plain recursive minimax, written for the tests independently of retro.

It shares no code with the package: its own board arithmetic, move generation and
line test, no symmetry, no layers, no index. It memoises on the raw bitboards.
Values come back as ``(musketeers_win, plies)`` with the usual preferences: the winner
hurries, the loser delays, a finished game is 0 plies.

The solver is jitted only so that every position of 4×4 and the low layers of 5×5
fit in the test budget; the algorithm is the textbook one.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict

M_TO_MOVE = 0
E_TO_MOVE = 1


@njit(cache=True)
def _in_one_line(musketeers, n):
    first_row = first_col = -1
    same_row = same_col = True
    for sq in range(n * n):
        if (musketeers >> sq) & 1:
            if first_row < 0:
                first_row, first_col = sq // n, sq % n
            same_row = same_row and sq // n == first_row
            same_col = same_col and sq % n == first_col
    return same_row or same_col


@njit(cache=True)
def _neighbour(sq, direction, n):
    """The square next to ``sq`` going up, down, left or right, or -1 off the board."""
    row, col = sq // n, sq % n
    if direction == 0:
        row -= 1
    elif direction == 1:
        row += 1
    elif direction == 2:
        col -= 1
    else:
        col += 1
    if 0 <= row < n and 0 <= col < n:
        return row * n + col
    return -1


@njit  # no cache: numba cannot cache recursive functions reliably
def solve(to_move, musketeers, enemies, n, memo):
    """Value ``2 * plies + musketeers_win`` of a position, by plain minimax."""
    key = (to_move << 60) | (musketeers << 30) | enemies
    if key in memo:
        return memo[key]
    if _in_one_line(musketeers, n):
        memo[key] = 0  # the enemy has won
        return 0
    other = 1 - to_move
    best_win = 1 << 30  # fastest win found for the mover
    best_loss = -1  # slowest loss found for the mover
    for sq in range(n * n):
        if to_move == M_TO_MOVE and (musketeers >> sq) & 1:
            for direction in range(4):
                to = _neighbour(sq, direction, n)
                if to >= 0 and (enemies >> to) & 1:
                    child = solve(other, musketeers - (1 << sq) + (1 << to),
                                  enemies - (1 << to), n, memo)
                    if child & 1:
                        best_win = min(best_win, child >> 1)
                    else:
                        best_loss = max(best_loss, child >> 1)
        elif to_move == E_TO_MOVE and (enemies >> sq) & 1:
            for direction in range(4):
                to = _neighbour(sq, direction, n)
                if to >= 0 and not ((musketeers >> to) & 1) and not ((enemies >> to) & 1):
                    child = solve(other, musketeers, enemies - (1 << sq) + (1 << to),
                                  n, memo)
                    if child & 1:
                        best_loss = max(best_loss, child >> 1)
                    else:
                        best_win = min(best_win, child >> 1)
    musketeers_move = to_move == M_TO_MOVE
    if best_win < (1 << 30):
        result = 2 * (best_win + 1) + (1 if musketeers_move else 0)
    elif best_loss >= 0:
        result = 2 * (best_loss + 1) + (0 if musketeers_move else 1)
    else:
        result = 1  # no legal move: the musketeers have won
    memo[key] = result
    return result


def new_memo():
    return Dict.empty(key_type=types.int64, value_type=types.int64)


@njit
def solve_many(to_move, musketeers, enemies, n, memo):
    out = np.empty(len(to_move), dtype=np.int64)
    for i in range(len(to_move)):
        out[i] = solve(to_move[i], musketeers[i], enemies[i], n, memo)
    return out
