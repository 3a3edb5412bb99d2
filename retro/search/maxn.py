"""The max^n value of a game tree built breadth-first, as the 2020 multi-player report
computes it: the report's own result, which the strong solution then explains.

The tree grows breadth-first from a position. A child whose state appeared earlier in
the tree (the report's state: where the players stand, whoever is to move; a game may
say otherwise with ``tree_key``) is *repeated*: marked, not expanded, and its value
ignored. A finished position is worth the utility vector of its winner, or of nobody
(a player without a move: the report gives everyone 0). Values are backed up from the
leaves (Luckhardt and Irani's max^n): the player to move takes the child vector with
the largest entry of its own, the first such child in move order on a tie; a node all
of whose children are repeated (or worth nothing) is worth nothing and its parent
ignores it. The four-player race's game gives the report's vectors
(``report_utilities``) and its state (``tree_key``).

The algorithm sees only the generic position API (``side``, ``legal_moves()``,
``play()``, ``is_over()``, ``winner()``), as OpenSpiel's ``minimax.py`` does.

Max^n is a tree value, not a game value: it assumes each player maximises its own
utility and breaks ties by move order, and the repeated states cut the tree where the
report did. The strong solution (``retro build --game four-player-race``) says what each
player can force whatever the others do.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass, field
from typing import Callable, Sequence

class UtilitiesError(ValueError):
    """Utility vectors that do not fit the game."""


@dataclass
class MaxnResult:
    """The root's max^n vector (None: every child was repeated) and the tree's size."""

    position: str
    value: tuple[int, ...] | None
    line: list[str]  # the moves the max^n values choose from the root
    states: int  # distinct states in the tree, the root included
    repeated: int  # children marked repeated (not expanded, values ignored)
    finished: int  # leaves where the game is over
    depth: int  # plies of the deepest node
    seconds: float
    utilities: Sequence[Sequence[int]] = field(default_factory=tuple)

    def as_dict(self, sides: Sequence[str] = ()) -> dict:
        value = (None if self.value is None else
                 {name: v for name, v in zip(sides, self.value)} if sides else list(self.value))
        return {"position": self.position, "value": value, "line": self.line,
                "states": self.states, "repeated": self.repeated, "finished": self.finished,
                "depth": self.depth, "seconds": round(self.seconds, 3),
                "utilities": [list(u) for u in self.utilities]}


def parse_utilities(text: str, players: int) -> tuple[tuple[int, ...], ...]:
    """``"200,10,30,10/100,300,150,200/..."``: one vector of ``players`` integers per
    winner in turn order, then optionally the vector of a game without a winner
    (default all 0)."""
    groups = [g for g in text.replace(";", "/").split("/") if g.strip()]
    if len(groups) not in (players, players + 1):
        raise UtilitiesError(f"--utilities needs {players} vectors (a win by each player, in turn "
                             f"order) and optionally one more (no winner), separated by '/', not "
                             f"{len(groups)}")
    vectors = []
    for i, group in enumerate(groups):
        try:
            vector = tuple(int(x) for x in group.split(","))
        except ValueError:
            raise UtilitiesError(f"--utilities: {group.strip()!r} is not {players} whole numbers "
                                 "separated by commas") from None
        if len(vector) != players:
            raise UtilitiesError(f"--utilities: vector {i + 1} has {len(vector)} numbers, not {players}")
        vectors.append(vector)
    if len(vectors) == players:
        vectors.append((0,) * players)
    return tuple(vectors)


def maxn(position, utilities: Sequence[Sequence[int]], key: Callable | None = None) -> MaxnResult:
    """The max^n value of the tree grown breadth-first from ``position`` (see the module
    docstring); ``utilities[k]`` is the vector of a win by the side of code k, the last
    one that of a finished game without a winner; ``key(position)`` the state that makes
    a later node repeated (default: the position itself)."""
    players = len(type(position.side))
    if len(utilities) != players + 1 or any(len(u) != players for u in utilities):
        raise UtilitiesError(f"give {players + 1} utility vectors of {players} numbers: a win by each "
                             "player in turn order, then no winner")
    started = time.perf_counter()
    key = key or (lambda p: p)
    no_winner = tuple(utilities[-1])
    nodes = [position]
    first_child: list[int] = [0]
    child_count: list[int] = [0]
    moves: list = [None]
    seen = {key(position)}
    repeated = 0
    depth = [0]
    queue = deque([0])
    while queue:  # breadth first: a node's children are numbered consecutively
        i = queue.popleft()
        node = nodes[i]
        if node.is_over():
            continue
        first_child[i] = len(nodes)
        for move in node.legal_moves():
            child = node.play(move)
            state = key(child)
            if state in seen:
                repeated += 1
                continue
            seen.add(state)
            nodes.append(child)
            moves.append(move)
            first_child.append(0)
            child_count.append(0)
            depth.append(depth[i] + 1)
            child_count[i] += 1
            queue.append(len(nodes) - 1)
    values: list = [None] * len(nodes)
    choice = [-1] * len(nodes)
    finished = 0
    for i in range(len(nodes) - 1, -1, -1):  # children come after their parent
        node = nodes[i]
        if node.is_over():
            finished += 1
            winner = node.winner()
            values[i] = tuple(utilities[winner.code]) if winner is not None else no_winner
            continue
        mover = node.side.code
        best = None
        for c in range(first_child[i], first_child[i] + child_count[i]):
            if values[c] is not None and (best is None or values[c][mover] > values[best][mover]):
                best = c
        if best is not None:
            values[i], choice[i] = values[best], best
    line, i = [], 0
    while choice[i] >= 0:
        i = choice[i]
        line.append(str(moves[i]))
    return MaxnResult(str(position), values[0], line, len(nodes), repeated, finished, max(depth),
                      time.perf_counter() - started, tuple(tuple(u) for u in utilities))
