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


def patterns(n: int, length: int, squares: bool) -> list[int]:
    """The winning patterns as bit masks (bit ``row * n + col``)."""
    out = []
    for r in range(n):
        for c in range(n):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(length)]
                if all(0 <= y < n and 0 <= x < n for y, x in cells):
                    out.append(sum(1 << (y * n + x) for y, x in cells))
            if squares and r + 1 < n and c + 1 < n:
                out.append(sum(1 << i for i in (r * n + c, r * n + c + 1, (r + 1) * n + c, (r + 1) * n + c + 1)))
    return out


def text(side: str, black: int, white: int, n: int) -> str:
    cells = "".join("B" if black >> i & 1 else "W" if white >> i & 1 else "." for i in range(n * n))
    return " ".join([side] + [cells[r * n:(r + 1) * n] for r in range(n)])


def solve(n: int, pieces: int, squares: bool) -> dict[str, tuple]:
    """Every position of the variant -> its value."""
    lines = patterns(n, pieces, squares)
    cells = n * n

    def has(mask):
        return any(mask & line == line for line in lines)

    steps = []
    for i in range(cells):
        r, c = divmod(i, n)
        steps.append([(r + dr) * n + c + dc for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                      if (dr or dc) and 0 <= r + dr < n and 0 <= c + dc < n])

    # a position: (mover, mover's cells, other's cells) with mover 0 for Black
    positions = {}  # position -> winner's code if finished else None
    for b in range(pieces + 1):
        for w in range(pieces + 1):
            sides = [0] * (b == w) + [1] * (b == w + 1)
            if b == w == pieces:
                sides = [0, 1]
            if not sides:
                continue
            for black_cells in combinations(range(cells), b):
                black = sum(1 << i for i in black_cells)
                rest = [i for i in range(cells) if not black >> i & 1]
                bw = has(black)
                for white_cells in combinations(rest, w):
                    white = sum(1 << i for i in white_cells)
                    ww = has(white)
                    if bw and ww:
                        continue
                    for side in sides:
                        key = (side, black, white) if side == 0 else (side, white, black)
                        positions[key] = 0 if bw else 1 if ww else None

    def children(key):
        side, mine, theirs = key
        empty = ~(mine | theirs) & ((1 << cells) - 1)
        out = []
        if bin(mine).count("1") < pieces:
            for i in range(cells):
                if empty >> i & 1:
                    out.append((1 - side, theirs, mine | 1 << i))
        else:
            for i in range(cells):
                if mine >> i & 1:
                    for j in steps[i]:
                        if empty >> j & 1:
                            out.append((1 - side, theirs, mine & ~(1 << i) | 1 << j))
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
        side, mine, theirs = key
        black, white = (mine, theirs) if side == 0 else (theirs, mine)
        letter = "BW"[side]
        if key in value:
            mover_wins, p = value[key]
            out[text(letter, black, white, n)] = ("BW"[side if mover_wins else 1 - side], p)
        else:
            out[text(letter, black, white, n)] = (None, None)
    return out
