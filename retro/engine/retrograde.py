"""Retrograde analysis of a tier whose positions can reach each other: wins, losses, draws.

In a loopy tier (morris pieces slide back and forth) a position's value may depend on
itself through a cycle, so no order of the entries lets each be computed from its
children. This solver works backwards from what is known, as the chess endgame tables
and Gasser's solution of nine men's morris do (backward induction with child
counters, time linear in the positions and the moves):

1. Every entry's moves into other tiers are already solved: an entry with a move to a
   position lost for the opponent can win in one ply more (the least such); moves to
   positions won by the opponent only bound how long it can resist; a move to a draw
   saves it from losing. Its moves inside the tier are counted (``remaining``).
2. The moves inside the tier are turned around once (a counting sort of the forward
   edges into parent lists), so each decided position can tell its parents.
3. Positions are decided level by level, level L being the plies to the end: the
   finished positions at level 0, then each level's wins and losses tell their parents.
   A parent with a child lost in L plies wins in L + 1 (the first such level is its
   fastest win). A child won for the opponent takes one from the parent's counter;
   when the counter reaches zero every move inside the tier loses, and unless a move
   out of the tier wins or draws, the parent loses in one ply more than its longest
   resistance (the later of this level and its moves out of the tier), scheduled at
   that level.
4. What is never decided is a draw: neither side can force the end.

Symmetric positions stored once: an edge goes from the entry of a position to the
entry of its child's canonical image, once per legal move (two moves to symmetric
positions are two edges to one entry). A counter counts edges and each edge is turned
around once, so a parent's counter reaches zero exactly when every one of its moves is
known to lose: the count of moves and of un-moves agree by construction (what
GamesmanOne's child counters and canonical parent lists must get right by hand).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import BuildError
from ..games.protocol import OPEN, Expansion
from ..values import draw_value, max_plies, not_a_position

UNDECIDED = np.iinfo(np.int64).max


@njit(cache=True)
def turn_around(n, starts, child_tier, child_entry):
    """The moves inside the tier, turned around: ``(parent_starts, parents, remaining)``
    where ``parents[parent_starts[j]:parent_starts[j + 1]]`` are the entries with a move
    to j (once per move) and ``remaining[i]`` counts i's moves inside the tier."""
    remaining = np.zeros(n, dtype=np.int64)
    parent_starts = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):
        for e in range(starts[i], starts[i + 1]):
            if child_tier[e] == 0:
                remaining[i] += 1
                parent_starts[child_entry[e] + 1] += 1
    for j in range(n):
        parent_starts[j + 1] += parent_starts[j]
    fill = parent_starts[:-1].copy()
    parents = np.empty(parent_starts[n], dtype=np.int64)
    for i in range(n):
        for e in range(starts[i], starts[i + 1]):
            if child_tier[e] == 0:
                j = child_entry[e]
                parents[fill[j]] = i
                fill[j] += 1
    return parent_starts, parents, remaining


@njit(cache=True)
def retrograde(side, finished, starts, child_tier, child_entry, flat, offsets, draw, invalid,
               levels, out, flip=0):
    """Values of a loopy tier into ``out`` (see the module docstring); returns -1, or the
    entry whose distance needs more than ``levels`` plies, or -2 for a move into an
    entry that is not a position. ``flip`` 1: the child tiers' values are from their
    side to move's point of view, the opponent's (a game storing one colour)."""
    n = len(side)
    parent_starts, parents, remaining = turn_around(n, starts, child_tier, child_entry)
    win_level = np.full(n, UNDECIDED, dtype=np.int64)
    loss_level = np.full(n, UNDECIDED, dtype=np.int64)
    resist = np.full(n, -1, dtype=np.int64)  # longest win for the opponent out of the tier
    drawn_out = np.zeros(n, dtype=np.bool_)  # a move out of the tier to a draw
    decided = np.zeros(n, dtype=np.bool_)
    # Buckets of entries to decide, one list per level: item/link arrays, heads per level.
    capacity = 2 * n + len(parents) + 1
    item = np.empty(capacity, dtype=np.int64)
    link = np.empty(capacity, dtype=np.int64)
    head = np.full(levels + 1, -1, dtype=np.int64)
    used = 0
    for i in range(n):
        out[i] = draw
        if finished[i] != OPEN:
            out[i] = finished[i]
            decided[i] = True
            if finished[i] != draw and finished[i] != invalid:
                level = finished[i] >> 1
                item[used], link[used], head[level] = i, head[level], used
                used += 1
            continue
        mover = side[i]
        fastest = UNDECIDED
        for e in range(starts[i], starts[i + 1]):
            slot = child_tier[e]
            if slot == 0:
                continue
            # slot < 0: a child the game does not store, its value (its mover's view) -1 - slot
            child = -1 - slot if slot < 0 else flat[offsets[slot] + child_entry[e]]
            if child == draw:
                drawn_out[i] = True
            elif child == invalid:
                return -2
            else:
                plies = child >> 1
                if ((0 if child & 1 else 1) ^ flip) == mover:  # the child is lost for the opponent
                    fastest = min(fastest, plies + 1)
                else:
                    resist[i] = max(resist[i], plies)
        level = UNDECIDED
        if fastest != UNDECIDED:
            win_level[i] = level = fastest
        elif remaining[i] == 0 and not drawn_out[i]:
            loss_level[i] = level = resist[i] + 1
        if level != UNDECIDED:
            if level > levels:
                return i
            item[used], link[used], head[level] = i, head[level], used
            used += 1
    for level in range(levels + 1):
        k = head[level]
        while k >= 0:
            i = item[k]
            k = link[k]
            if finished[i] == OPEN:
                if decided[i]:
                    continue
                mover = side[i]
                if win_level[i] == level:
                    out[i] = 2 * level + (1 if mover == 0 else 0)
                elif loss_level[i] == level:
                    out[i] = 2 * level + (1 if mover == 1 else 0)
                else:
                    continue  # scheduled at another level than it was decided at
                decided[i] = True
            # Whether i is won for the side to move at a parent: values are the first
            # side's (flip 0; the side to move need not change, as in a player's game
            # against three others) or the side to move's (flip 1: it always changes).
            winner = 0 if out[i] & 1 else 1
            for q in range(parent_starts[i], parent_starts[i + 1]):
                p = parents[q]
                if decided[p]:
                    continue
                if (winner == side[p]) != (flip == 1):
                    if win_level[p] > level + 1:
                        if level + 1 > levels:
                            return p
                        win_level[p] = level + 1
                        item[used], link[used], head[level + 1] = p, head[level + 1], used
                        used += 1
                else:
                    remaining[p] -= 1
                    if remaining[p] == 0 and win_level[p] == UNDECIDED and not drawn_out[p]:
                        at = max(level, resist[p]) + 1
                        if at > levels:
                            return p
                        loss_level[p] = at
                        item[used], link[used], head[at] = p, head[at], used
                        used += 1
    return -1


def solve_loopy(expansion: Expansion, flat: np.ndarray, offsets: np.ndarray, dtype,
                flip: int = 0) -> np.ndarray:
    """The values of a loopy tier from its expansion and its child tiers' values."""
    values = np.empty(expansion.size, dtype=dtype)
    levels = max_plies(dtype)
    status = retrograde(expansion.side, expansion.finished, expansion.starts, expansion.child_tier,
                        expansion.child_entry, flat, offsets, draw_value(dtype),
                        not_a_position(dtype), levels, values, flip)
    if status == -2:
        raise BuildError("a move leads into an entry that is not a position: the game's "
                         "expansion is wrong")
    if status >= 0:
        raise BuildError(f"a distance needs more than {levels} plies, beyond what "
                         f"{np.dtype(dtype).name} values hold")
    return values
