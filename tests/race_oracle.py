"""An independent reference for the four-player race, written from the rules of issue 26
in plain Python (no numba, nothing of ``retro``): every legal position, each player's
value against the other three, and the report's breadth-first max^n tree.

Squares are (column, row) pairs, column 1..4 for a..d and row 1..4. A position is
``(mover, squares)`` with ``mover`` 0..3 and ``squares`` the four players' squares.
"""

from __future__ import annotations

from collections import deque
from itertools import permutations

HOMES = ((1, 1), (4, 1), (4, 4), (1, 4))
GOALS = ((4, 4), (1, 4), (1, 1), (4, 1))
BOARD = [(c, r) for r in range(1, 5) for c in range(1, 5)]
DIRECTIONS = ((-1, 0), (0, -1), (0, 1), (1, 0))  # left, up (towards row 1), down, right


def name(square) -> str:
    return "abcd"[square[0] - 1] + str(square[1])


def text(position) -> str:
    mover, squares = position
    return f"P{mover + 1} " + " ".join(name(s) for s in squares)


def on_board(square) -> bool:
    return 1 <= square[0] <= 4 and 1 <= square[1] <= 4


def legal(position) -> bool:
    mover, squares = position
    if len(set(squares)) < 4:
        return False
    arrived = [k for k in range(4) if squares[k] == GOALS[k]]
    return not arrived or (len(arrived) == 1 and arrived[0] == (mover - 1) % 4)


def winner(position):
    mover, squares = position
    last = (mover - 1) % 4
    return last if squares[last] == GOALS[last] else None


def moves(position, jump: bool) -> list:
    """``(from, to)`` pairs in the order left, up, down, right; none once someone won."""
    mover, squares = position
    if winner(position) is not None:
        return []
    here = squares[mover]
    out = []
    for dc, dr in DIRECTIONS:
        step = (here[0] + dc, here[1] + dr)
        if not on_board(step):
            continue
        if step not in squares:
            out.append((here, step))
        elif jump:
            beyond = (here[0] + 2 * dc, here[1] + 2 * dr)
            if on_board(beyond) and beyond not in squares:
                out.append((here, beyond))
    return out


def play(position, move):
    mover, squares = position
    after = list(squares)
    after[mover] = move[1]
    return ((mover + 1) % 4, tuple(after))


def all_positions() -> list:
    return [p for mover in range(4) for squares in permutations(BOARD, 4)
            for p in [(mover, squares)] if legal(p)]


def solve(jump: bool) -> dict:
    """``{position: (v1, v2, v3, v4)}``, each ``("win" | "loss", plies)`` or
    ``("draw", None)``: the player against the other three together, by retrograde
    analysis with move counters, level by level."""
    positions = all_positions()
    number = {p: i for i, p in enumerate(positions)}
    children = [[number[play(p, m)] for m in moves(p, jump)] for p in positions]
    parents: list = [[] for _ in positions]
    for i, kids in enumerate(children):
        for c in kids:
            parents[c].append(i)
    movers = [p[0] for p in positions]
    winners = [winner(p) for p in positions]
    columns = []
    for player in range(4):
        result = [None] * len(positions)  # True: the player wins, False: it loses
        plies = [0] * len(positions)
        remaining = [len(kids) for kids in children]
        frontier = [i for i in range(len(positions)) if not children[i]]
        for i in frontier:  # over: someone arrived, or the mover is stuck
            result[i] = winners[i] == player
        level = 0
        while frontier:
            following = []
            for c in frontier:
                player_won = result[c]
                for p in parents[c]:
                    if result[p] is not None:
                        continue
                    mine = movers[p] == player  # the player moves at p, else the others
                    if player_won == mine:  # a move that wins for whoever moves at p
                        result[p], plies[p] = player_won, level + 1
                        following.append(p)
                    else:
                        remaining[p] -= 1
                        if remaining[p] == 0:
                            result[p], plies[p] = player_won, level + 1
                            following.append(p)
            frontier = following
            level += 1
        columns.append([("draw", None) if r is None else ("win" if r else "loss", n)
                        for r, n in zip(result, plies)])
    return {p: tuple(column[i] for column in columns) for i, p in enumerate(positions)}


REPORT_UTILITIES = ((200, 10, 30, 10), (100, 300, 150, 200), (150, 200, 400, 300),
                    (220, 330, 440, 500))


def maxn_tree(jump: bool, utilities=REPORT_UTILITIES):
    """The report's tree from the start: breadth first, a state repeated when its four
    squares appeared before (its successors not considered, its value ignored); a
    finished game worth its winner's vector (0s when nobody wins); the mover takes the
    first child best for itself. ``(root vector, states, repeated)``."""
    root = (0, HOMES)
    order, kids, seen, repeated = [root], {root: []}, {HOMES}, 0
    queue = deque([root])
    while queue:
        p = queue.popleft()
        for m in moves(p, jump):
            c = play(p, m)
            if c[1] in seen:
                repeated += 1
                continue
            seen.add(c[1])
            kids[p].append(c)
            kids[c] = []
            order.append(c)
            queue.append(c)
    worth: dict = {}
    for p in reversed(order):
        if not moves(p, jump):
            w = winner(p)
            worth[p] = utilities[w] if w is not None else (0, 0, 0, 0)
            continue
        best = None
        for c in kids[p]:
            if worth[c] is not None and (best is None or worth[c][p[0]] > best[p[0]]):
                best = worth[c]
        worth[p] = best
    return worth[root], len(order), repeated
