"""An independent Teeko solver for the tests, written from the rules alone (nothing of
retro): every position of a small variant, solved by plain retrograde analysis.

Rules: an n×n board; Black moves first; each player has ``pieces`` pieces. While a
player has pieces in hand, they drop one on an empty square; then they move one of
their pieces to an adjacent empty square (8 directions). A player wins at once with
``pieces`` in a row (a row, a column or a diagonal) or, where ``squares`` is set, 4 on
the corners of a 2×2 square. A player with a winning pattern has won whichever side
is to move; a board where both have one is no position. Play that never ends is a
draw. A position is (side to move, cells): Black has as many pieces as White (Black
to move) or one more (White to move), or all pieces are on the board (either side).

Values: ``(winner, plies)``: "B" or "W" wins in so many plies (the winner hurries, the
loser delays), or ``(None, None)`` for a draw. Positions are written as retro's Teeko
notation writes them: ``B ..... ..... ..... ..... .....`` (rows from row 1).
"""

from __future__ import annotations

from itertools import combinations


def patterns(n: int, length: int, squares: bool) -> list[frozenset]:
    out = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(length)]
                if all(0 <= y < n and 0 <= x < n for y, x in cells):
                    out.append(frozenset(y * n + x for y, x in cells))
            if squares and r + 1 < n and c + 1 < n:
                out.append(frozenset({r * n + c, r * n + c + 1, (r + 1) * n + c, (r + 1) * n + c + 1}))
    return out


def text(side: str, cells: str, n: int) -> str:
    return " ".join([side] + [cells[r * n:(r + 1) * n] for r in range(n)])


def solve(n: int, pieces: int, squares: bool) -> dict[str, tuple]:
    """Every position of the variant -> its value."""
    lines = patterns(n, pieces, squares)

    def has(cells, mark):
        return any(all(cells[i] == mark for i in line) for line in lines)

    def neighbours(i):
        r, c = divmod(i, n)
        return [(r + dr) * n + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n]

    positions = {}  # key -> winner if finished else None
    for b in range(pieces + 1):
        for w in range(pieces + 1):
            sides = (["B"] if b == w else []) + (["W"] if b == w + 1 else [])
            if b == w == pieces:
                sides = ["B", "W"]
            if not sides:
                continue
            for black in combinations(range(n * n), b):
                rest = [i for i in range(n * n) if i not in black]
                for white in combinations(rest, w):
                    cells = ["."] * (n * n)
                    for i in black:
                        cells[i] = "B"
                    for i in white:
                        cells[i] = "W"
                    cells = "".join(cells)
                    bw, ww = has(cells, "B"), has(cells, "W")
                    if bw and ww:
                        continue
                    for side in sides:
                        positions[(side, cells)] = "B" if bw else "W" if ww else None

    def children(key):
        side, cells = key
        other = "W" if side == "B" else "B"
        out = []
        if cells.count(side) < pieces:
            for i, c in enumerate(cells):
                if c == ".":
                    out.append((other, cells[:i] + side + cells[i + 1:]))
        else:
            for i, c in enumerate(cells):
                if c == side:
                    for j in neighbours(i):
                        if cells[j] == ".":
                            moved = list(cells)
                            moved[i], moved[j] = ".", side
                            out.append((other, "".join(moved)))
        return out

    # values from the mover's view: (True: the mover wins, plies)
    value: dict = {}
    left: dict = {}
    parents: dict = {key: [] for key in positions}
    frontier = []
    for key, winner in positions.items():
        if winner is not None:
            value[key] = (winner == key[0], 0)
            frontier.append(key)
            continue
        kids = children(key)
        assert kids, f"a position without a move: {key}"
        left[key] = len(kids)
        for kid in kids:
            parents[kid].append(key)
    plies = 0
    while frontier:
        following = []
        for key in frontier:
            won = value[key][0]
            for parent in parents[key]:
                if parent in value:
                    continue
                if not won:
                    value[parent] = (True, plies + 1)
                    following.append(parent)
                else:
                    left[parent] -= 1
                    if left[parent] == 0:
                        value[parent] = (False, plies + 1)
                        following.append(parent)
        frontier = following
        plies += 1
    out = {}
    for key in positions:
        side = key[0]
        if key in value:
            mover_wins, p = value[key]
            out[text(side, key[1], n)] = (side if mover_wins else ("W" if side == "B" else "B"), p)
        else:
            out[text(side, key[1], n)] = (None, None)
    return out
