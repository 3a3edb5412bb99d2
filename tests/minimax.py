"""A plain recursive minimax, written for the tests independently of retro.

It shares no code with the package: its own board arithmetic, move generation and
line test, no symmetry, no layers, no index. It memoises on the raw bitboards: in a
dictionary, or on boards up to 4x4 in a plain array with a cell for every (side,
musketeer squares, enemy bitboard).
Values come back as ``(musketeers_win, plies)`` with the usual preferences: the winner
hurries, the loser delays, a finished game is 0 plies.

The solver is jitted only so that every position of 4×4 and the low layers of 5×5
fit in the test budget; the algorithm is the textbook one.
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit, types
from numba.extending import overload
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
    known = _recall(memo, to_move, musketeers, enemies, n)
    if known >= 0:
        return known
    if _in_one_line(musketeers, n):
        _remember(memo, to_move, musketeers, enemies, n, 0)  # the enemy has won
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
    _remember(memo, to_move, musketeers, enemies, n, result)
    return result


def new_memo(n: int = 5, max_men: int | None = None):
    """An empty memo for an n×n board: a plain array with a cell for every position of
    at most ``max_men`` enemy men when that fits (every 3x3 and 4x4 position; the low
    layers of 5x5), else a dictionary."""
    men = n * n - 3 if max_men is None else max_men
    cells = 2 * comb(n * n, 3) * sum(comb(n * n, k) for k in range(men + 1))
    if cells <= 1 << 27:
        return np.full(cells, -1, dtype=np.int8)
    return Dict.empty(key_type=types.int64, value_type=types.int64)


_CHOOSE = np.array([[comb(a, k) for k in range(26)] for a in range(26)], dtype=np.int64)


@njit(cache=True)
def _cell(to_move, musketeers, enemies, n, cells):
    """The array cell of a position: side, the colex rank of the musketeers' squares,
    then the enemy men's squares ranked among the sets of at most their number."""
    trio, k = 0, 1
    men, rank = 0, 0
    for sq in range(n * n):
        if (musketeers >> sq) & 1:
            trio += _CHOOSE[sq, k]
            k += 1
        if (enemies >> sq) & 1:
            men += 1
            rank += _CHOOSE[sq, men]
    for fewer in range(men):
        rank += _CHOOSE[n * n, fewer]
    trios = _CHOOSE[n * n, 3]
    span = cells // (2 * trios)
    if rank >= span:
        raise ValueError("the position has more enemy men than the memo holds")
    return (to_move * trios + trio) * span + rank


def _recall(memo, to_move, musketeers, enemies, n):
    """The memoised value of a position, or -1."""


def _remember(memo, to_move, musketeers, enemies, n, value):
    """Memoise the value of a position."""


@overload(_recall)
def _recall_in(memo, to_move, musketeers, enemies, n):
    if isinstance(memo, types.DictType):
        return lambda memo, to_move, musketeers, enemies, n: memo.get(
            (to_move << 60) | (musketeers << 30) | enemies, -1)
    return lambda memo, to_move, musketeers, enemies, n: np.int64(
        memo[_cell(to_move, musketeers, enemies, n, len(memo))])


@overload(_remember)
def _remember_in(memo, to_move, musketeers, enemies, n, value):
    if isinstance(memo, types.DictType):
        def remember(memo, to_move, musketeers, enemies, n, value):
            memo[(to_move << 60) | (musketeers << 30) | enemies] = value
        return remember

    def remember(memo, to_move, musketeers, enemies, n, value):
        memo[_cell(to_move, musketeers, enemies, n, len(memo))] = value
    return remember


@njit
def solve_many(to_move, musketeers, enemies, n, memo):
    out = np.empty(len(to_move), dtype=np.int64)
    for i in range(len(to_move)):
        out[i] = solve(to_move[i], musketeers[i], enemies[i], n, memo)
    return out


# --- tic-tac-toe ---------------------------------------------------------------------
#
# Its own board (cells 0..8 row by row from a1), its own line list and recursion; a
# value is (winner, plies) with winner "X", "O" or None for a draw (plies None).

TTT_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8),
             (0, 4, 8), (2, 4, 6))


def ttt_line(cells: str, mark: str) -> bool:
    return any(all(cells[i] == mark for i in line) for line in TTT_LINES)


def ttt_value(cells: str, memo: dict | None = None) -> tuple[str | None, int | None]:
    """Value of the tic-tac-toe board ``cells`` (9 characters X, O, . from a1 row by row),
    X to move when the counts are equal: the winner hurries, the loser delays."""
    memo = {} if memo is None else memo
    if cells in memo:
        return memo[cells]
    for mark in "XO":
        if ttt_line(cells, mark):
            memo[cells] = (mark, 0)
            return memo[cells]
    if "." not in cells:
        memo[cells] = (None, None)
        return memo[cells]
    mover = "X" if cells.count("X") == cells.count("O") else "O"
    wins, losses, draw = [], [], False
    for i, c in enumerate(cells):
        if c == ".":
            winner, plies = ttt_value(cells[:i] + mover + cells[i + 1:], memo)
            if winner == mover:
                wins.append(plies)
            elif winner is None:
                draw = True
            else:
                losses.append(plies)
    if wins:
        memo[cells] = (mover, min(wins) + 1)
    elif draw:
        memo[cells] = (None, None)
    else:
        memo[cells] = ("O" if mover == "X" else "X", max(losses) + 1)
    return memo[cells]


def ttt_boards():
    """Every legal tic-tac-toe board: X has as many marks as O or one more, not both lines."""
    from itertools import product

    for cells in product("XO.", repeat=9):
        board = "".join(cells)
        x, o = board.count("X"), board.count("O")
        if x - o in (0, 1) and not (ttt_line(board, "X") and ttt_line(board, "O")):
            yield board
