"""An independent Dōbutsu shōgi solver for the tests, written from the rules alone
(nothing of retro): every position of a small material, solved by plain retrograde
analysis.

Rules (as Tanaka's 2009 solution plays them): a 3×4 board, squares a1..c4 (columns a..c
from sente's left, rank 1 sente's back rank). Sente ("S", upper case) moves up the
board, gote ("G", lower case) down. Lion: one step any way; giraffe: orthogonally;
elephant: diagonally; chick: one step forward; hen: orthogonally or diagonally forward.
A chick that moves onto the far rank becomes a hen. A piece taken goes to the captor's
hand (a hen as a chick) and may be dropped on any empty square (a chick on the far
rank too: it stays a chick and never moves). Taking the lion wins. The Try, checked one
ply on: a side to move whose lion stands on the far rank has won. A side to move
without a lion has lost; a side with no legal move loses; endless play is a draw.

A position: (side, board, hand): ``board`` a string of 12 characters, a1 b1 c1 a2 ...
c4 (``-`` empty), ``hand`` a sorted string of the pieces in hand (upper case sente's).
Written as retro writes them: ``S gle -c- -C- ELG -`` (ranks 4 to 1, then the hands).

Values: ``(result, plies)`` from the side to move's view: ("win", n), ("loss", n) or
("draw", None).
"""

from __future__ import annotations

from collections import deque
from itertools import combinations, product

STEPS = {"L": [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc],
         "G": [(1, 0), (-1, 0), (0, 1), (0, -1)], "E": [(1, 1), (1, -1), (-1, 1), (-1, -1)],
         "C": [(1, 0)], "H": [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1)]}


def mine(piece: str, side: str) -> bool:
    return piece != "-" and piece.isupper() == (side == "S")


def text(side: str, board: str, hand: str) -> str:
    ranks = [board[r * 3:r * 3 + 3] for r in (3, 2, 1, 0)]
    order = "GECgec"
    return " ".join([side, *ranks, "".join(sorted(hand, key=order.index)) or "-"])


def finished(side: str, board: str):
    """("loss", 0) without a lion, ("win", 0) with the lion on the far rank, else None."""
    lion = "L" if side == "S" else "l"
    if lion not in board:
        return ("loss", 0)
    rank = board.index(lion) // 3
    if rank == (3 if side == "S" else 0):
        return ("win", 0)
    return None


def moves(side: str, board: str, hand: str) -> list[tuple[str, tuple]]:
    """(move text, (side, board, hand) after it) for each legal move."""
    out = []
    forward = 1 if side == "S" else -1
    other = "G" if side == "S" else "S"
    for cell, piece in enumerate(board):
        if not mine(piece, side):
            continue
        r, c = divmod(cell, 3)
        for dr, dc in STEPS[piece.upper()]:
            rr, cc = r + dr * forward, c + dc
            if not (0 <= rr < 4 and 0 <= cc < 3):
                continue
            to = rr * 3 + cc
            taken = board[to]
            if mine(taken, side):
                continue
            new_hand = hand
            if taken != "-" and taken.upper() != "L":
                got = "C" if taken.upper() == "H" else taken.upper()
                new_hand = hand + (got if side == "S" else got.lower())
            placed = piece
            if piece.upper() == "C" and rr == (3 if side == "S" else 0):
                placed = "H" if side == "S" else "h"
            cells = list(board)
            cells[cell] = "-"
            cells[to] = placed
            name = "abc"[c] + str(r + 1) + "-" + "abc"[cc] + str(rr + 1)
            out.append((name, (other, "".join(cells), "".join(sorted(new_hand)))))
    for held in sorted(set(ch for ch in hand if mine(ch, side))):
        rest = hand.replace(held, "", 1)
        for to in range(12):
            if board[to] == "-":
                cells = list(board)
                cells[to] = held
                out.append((held.upper() + "*" + "abc"[to % 3] + str(to // 3 + 1),
                            (other, "".join(cells), rest)))
    return out


def positions(giraffes: int, elephants: int, chicks: int):
    """Every position with both lions and this material (either side to move)."""
    pieces = ["G"] * giraffes + ["E"] * elephants + ["C"] * chicks
    seen = set()
    for sl, gl in product(range(12), repeat=2):
        if sl == gl:
            continue
        # each piece: a (cell, owner, promoted) or a hand
        options = []
        for p in pieces:
            kinds = [p] + (["H"] if p == "C" else [])
            options.append([(cell, k if owner == "S" else k.lower()) for cell in range(12)
                            if cell not in (sl, gl) for owner in "SG" for k in kinds]
                           + [("hand", p), ("hand", p.lower())])
        for choice in product(*options):
            cells = ["-"] * 12
            cells[sl], cells[gl] = "L", "l"
            hand = []
            ok = True
            for where, what in choice:
                if where == "hand":
                    hand.append(what)
                elif cells[where] != "-":
                    ok = False
                    break
                else:
                    cells[where] = what
            if not ok:
                continue
            board = "".join(cells)
            h = "".join(sorted(hand))
            for side in "SG":
                key = (side, board, h)
                if key not in seen:
                    seen.add(key)
                    yield key


def solve(giraffes: int, elephants: int, chicks: int) -> dict[str, tuple]:
    """Every position of the material (retro's notation) -> its value."""
    nodes = list(positions(giraffes, elephants, chicks))
    value: dict = {}
    children: dict = {}
    parents: dict = {key: [] for key in nodes}
    left: dict = {}
    queue = deque()
    for key in nodes:
        done = finished(key[0], key[1])
        if done is not None:
            value[key] = done
            queue.append(key)
            continue
        kids = [child for _, child in moves(*key)]
        children[key] = kids
        left[key] = len(kids)
        if not kids:
            value[key] = ("loss", 0)
            queue.append(key)
        for child in kids:
            if finished(child[0], child[1]) == ("loss", 0) and child not in parents:
                # the lion taken: lost at once for the child's mover (not among the nodes)
                value[child] = ("loss", 0)
                parents[child] = []
                queue.appendleft(child)
            parents[child].append(key)
    # levels in order: a node is decided at its distance; process by increasing plies
    by_level: dict = {}
    for key in queue:
        by_level.setdefault(0, []).append(key)
    level = 0
    while level in by_level:
        for key in by_level.pop(level):
            result, plies = value[key]
            for parent in parents[key]:
                if parent in value:
                    continue
                if result == "loss":
                    value[parent] = ("win", plies + 1)
                    by_level.setdefault(plies + 1, []).append(parent)
                else:
                    left[parent] -= 1
                    if left[parent] == 0:
                        value[parent] = ("loss", plies + 1)
                        by_level.setdefault(plies + 1, []).append(parent)
        level += 1
    return {text(*key): value.get(key, ("draw", None)) for key in nodes}
