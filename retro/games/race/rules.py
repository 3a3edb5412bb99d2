"""The four-player race's rules and index (jitted): every primitive, written once.

Squares are numbered ``4 * (row - 1) + column`` (a1 = 0, d1 = 3, a4 = 12, d4 = 15).
Player ``k`` (0..3 for Players 1..4) starts on ``START[k]`` and races to ``GOAL[k]``,
the opposite corner. Players move in turn 0, 1, 2, 3, 0, ...; a move is one step left,
right, up or down to an empty square; in the jump variant a player whose neighbour
square in a direction is occupied may instead jump over that one player to the square
beyond, if that square is on the board and empty. The first player on its goal wins
and the game ends; a player to move without a legal move ends the game with no winner.

A position is the player to move and the four players' squares. It is legal when the
squares are distinct and at most one player stands on its goal, that one being the
player who moved last (the game ended when it arrived).

The index: ``entry = mover * 16**4 + s1 * 16**3 + s2 * 16**2 + s3 * 16 + s4``: every
legal position has one entry in each of the four tiers (one per player's game against
the other three); entries that are not legal positions are marked so. 262,144 entries
a tier, 174,720 of them squares that are all distinct.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

SIDE = 4
SQUARES = SIDE * SIDE
PLAYERS = 4
PLACEMENTS = SQUARES ** PLAYERS
TIER_SIZE = PLAYERS * PLACEMENTS
START = np.array([0, 3, 15, 12], dtype=np.int64)  # a1, d1, d4, a4
GOAL = np.array([15, 12, 0, 3], dtype=np.int64)  # d4, a4, a1, d1: the opposite corners
START.setflags(write=False)
GOAL.setflags(write=False)
NO_WINNER = -1  # status(): the game goes on (or ends without a winner: no move)
NOT_A_POSITION = -2


def _neighbours(distance: int) -> np.ndarray:
    """``table[s, d]``: the square ``distance`` steps from ``s`` in direction ``d`` (left,
    up, down, right: the report's order; up is towards row 1, at the top of its
    pictures), or -1."""
    table = np.full((SQUARES, 4), -1, dtype=np.int64)
    for s in range(SQUARES):
        row, column = divmod(s, SIDE)
        for d, (dc, dr) in enumerate(((-1, 0), (0, -1), (0, 1), (1, 0))):
            c, r = column + distance * dc, row + distance * dr
            if 0 <= c < SIDE and 0 <= r < SIDE:
                table[s, d] = r * SIDE + c
    table.setflags(write=False)
    return table


STEP = _neighbours(1)
BEYOND = _neighbours(2)


@njit(cache=True)
def decode(entry, squares):
    """Write the four squares of ``entry`` into ``squares``; return the player to move."""
    placement = entry % PLACEMENTS
    for k in range(PLAYERS - 1, -1, -1):
        squares[k] = placement % SQUARES
        placement //= SQUARES
    return entry // PLACEMENTS


@njit(cache=True)
def encode(mover, squares):
    """The entry of the position with ``mover`` to move and the players on ``squares``."""
    entry = mover
    for k in range(PLAYERS):
        entry = entry * SQUARES + squares[k]
    return entry


@njit(cache=True)
def status(mover, squares, goal):
    """NOT_A_POSITION, the player who has won (the one who moved last, on its goal), or
    NO_WINNER."""
    for a in range(PLAYERS):
        for b in range(a + 1, PLAYERS):
            if squares[a] == squares[b]:
                return NOT_A_POSITION
    winner = NO_WINNER
    for k in range(PLAYERS):
        if squares[k] == goal[k]:
            if winner != NO_WINNER or k != (mover + PLAYERS - 1) % PLAYERS:
                return NOT_A_POSITION
            winner = k
    return winner


@njit(cache=True)
def targets(mover, squares, jump, step, beyond, out):
    """The squares the mover can go to, in the order left, up, down, right (a jump in
    the direction of its neighbour); their number."""
    occupied = 0
    for k in range(PLAYERS):
        occupied |= 1 << squares[k]
    here = squares[mover]
    n = 0
    for d in range(4):
        t = step[here, d]
        if t < 0:
            continue
        if not (occupied >> t) & 1:
            out[n] = t
            n += 1
        elif jump:
            u = beyond[here, d]
            if u >= 0 and not (occupied >> u) & 1:
                out[n] = u
                n += 1
    return n


@njit(cache=True, parallel=True)
def expand(player, size, jump, goal, step, beyond, side, finished, counts, not_a_position, open_code):
    """Pass 1 of tier ``player``'s expansion (that player, side 0, against the others,
    side 1): each entry's side, finished value (1: the player has won, 0: another has,
    or the mover has no move) and move count."""
    for entry in prange(size):
        squares = np.empty(PLAYERS, dtype=np.int64)
        out = np.empty(4, dtype=np.int64)
        mover = decode(entry, squares)
        side[entry] = 0 if mover == player else 1
        counts[entry] = 0
        result = status(mover, squares, goal)
        if result == NOT_A_POSITION:
            finished[entry] = not_a_position
        elif result != NO_WINNER:
            finished[entry] = 1 if result == player else 0
        else:
            n = targets(mover, squares, jump, step, beyond, out)
            if n == 0:
                finished[entry] = 0
            else:
                finished[entry] = open_code
                counts[entry] = n


@njit(cache=True, parallel=True)
def children(size, jump, step, beyond, finished, starts, child_entry, open_code):
    """Pass 2: every move of every open entry, as the child's entry (the same tier)."""
    for entry in prange(size):
        if finished[entry] != open_code:
            continue
        squares = np.empty(PLAYERS, dtype=np.int64)
        out = np.empty(4, dtype=np.int64)
        mover = decode(entry, squares)
        n = targets(mover, squares, jump, step, beyond, out)
        here = squares[mover]
        nxt = (mover + 1) % PLAYERS
        at = starts[entry]
        for i in range(n):
            squares[mover] = out[i]
            child_entry[at + i] = encode(nxt, squares)
        squares[mover] = here


@njit(cache=True)
def count_positions(goal):
    """The legal positions (every entry that is one)."""
    squares = np.empty(PLAYERS, dtype=np.int64)
    total = 0
    for entry in range(TIER_SIZE):
        mover = decode(entry, squares)
        if status(mover, squares, goal) != NOT_A_POSITION:
            total += 1
    return total
