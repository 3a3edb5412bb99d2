"""An independent chess endgame solver for the tests: python-chess's legal moves (rules
written by others) and a plain retrograde analysis, nothing of retro.

A table is a material, White's pieces and Black's (``"KQ", "K"``); its positions are
every legal placement of those pieces with either side to move (no castling, no
en-passant square: the tables solved here have pawns of one side at most, so none can
arise). Positions are keyed up to the symmetries of the board: the 8 of the square
without pawns, the left-right mirror with them. A capture or a promotion leads into
another table, solved first (recursively).

Values: ``(result, plies)`` from the side to move's view: ("win", n), ("loss", n) or
("draw", None); checkmate is ("loss", 0), stalemate a draw, play that never ends a
draw (no fifty-move rule).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import chess
import numpy as np


@lru_cache(maxsize=None)
def _transforms(pawns: bool) -> list[list[int]]:
    out = []
    for g in range(8):
        table = []
        for s in range(64):
            r, f = divmod(s, 8)
            if g & 4:
                r, f = f, r
            if g & 2:
                r = 7 - r
            if g & 1:
                f = 7 - f
            table.append(8 * r + f)
        out.append(table)
    return [out[0], out[1]] if pawns else out  # the mirror: files reversed


@lru_cache(maxsize=None)
def _fixing(pawns: bool) -> list:
    """Per square of White's king, the symmetries taking it to the least square of its
    orbit: the key is the least image under those alone (the same for every image)."""
    transforms = _transforms(pawns)
    out = []
    for s in range(64):
        least = min(t[s] for t in transforms)
        out.append([t for t in transforms if t[s] == least])
    return out


def _key(turn: bool, pieces, transforms) -> tuple:
    """The least image of (side to move, ((square, symbol), ...)) under the symmetries
    taking White's king to the least square of its orbit."""
    king = next(s for s, p in pieces if p == "K")
    fixing = _fixing(len(transforms) == 2)[king]
    if len(fixing) == 1:
        t = fixing[0]
        return (turn, tuple(sorted((t[s], p) for s, p in pieces)))
    return (turn, min(tuple(sorted((t[s], p) for s, p in pieces)) for t in fixing))


def _placements(symbols, region, pawns: bool):
    """The squares of ``symbols`` (White's king first, in ``region``), pawns on ranks 2 to 7."""
    for king in region:
        for rest in permutations([s for s in range(64) if s != king], len(symbols) - 1):
            if pawns and any(sym in "Pp" and not 8 <= sq < 56 for sym, sq in zip(symbols[1:], rest)):
                continue
            yield (king, *rest)


def _material(pieces) -> tuple[str, str]:
    white = "".join(sorted((p for _, p in pieces if p.isupper()), key="KQRBNP".index))
    black = "".join(sorted((p.upper() for _, p in pieces if p.islower()), key="KQRBNP".index))
    return white, black


@lru_cache(maxsize=None)
def solve(white: str, black: str) -> dict:
    """Every position of the table (keyed by :func:`_key`) with its value."""
    pawns = "P" in white + black
    transforms = _transforms(pawns)
    symbols = list(white) + [p.lower() for p in black]
    nodes: dict = {}
    # White's king in a region every class meets (the triangle a1-d1-d4, or files a-d)
    region = [s for s in range(64) if s % 8 < 4] if pawns else \
        [8 * r + f for r in range(4) for f in range(r, 4)]
    unreachable_checks = chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK
    for squares in _placements(symbols, region, pawns):
        pieces = tuple(zip(squares, symbols))
        for turn in (chess.WHITE, chess.BLACK):
            key = _key(turn, pieces, transforms)
            if key in nodes:
                continue
            board = chess.Board(None)
            board.turn = turn
            for sq, sym in key[1]:  # the key's own squares: the children are read from them
                board.set_piece_at(sq, chess.Piece.from_symbol(sym))
            # checks no move could give (three checkers, ...) are kept: the rules still play
            if board.status() & ~unreachable_checks == chess.STATUS_VALID:
                nodes[key] = board
    index = {key: i for i, key in enumerate(nodes)}
    n = len(index)
    inside: list[list[int]] = [[] for _ in range(n)]
    outside: list[list[tuple]] = [[] for _ in range(n)]
    checked = np.zeros(n, dtype=bool)
    for key, i in index.items():
        board = nodes[key]
        checked[i] = board.is_check()
        pieces = key[1]
        for move in board.legal_moves:  # no en passant here: the child is the move's squares
            moved = dict(pieces)[move.from_square] if move.promotion is None else \
                chess.piece_symbol(move.promotion).upper() if board.turn else chess.piece_symbol(move.promotion)
            after = tuple((sq, p) for sq, p in pieces if sq not in (move.from_square, move.to_square)) \
                + ((move.to_square, moved),)
            if len(after) < len(pieces) or move.promotion:
                w, b = _material(after)
                outside[i].append(solve(w, b)[_key(not board.turn, after, _transforms("P" in w + b))])
                continue
            inside[i].append(index[_key(not board.turn, after, transforms)])
    values = _retrograde(inside, outside, checked)
    return {key: values[i] for key, i in index.items()}


def _retrograde(inside, outside, checked) -> list:
    """Plain retrograde analysis, ply by ply (numpy over the moves): at ply L a position
    wins when a move leads to a loss in L - 1; loses when every move leads to a win, the
    longest in L - 1; what is never decided is a draw. Values decided at ply L read only
    those of earlier plies."""
    n = len(inside)
    parent = np.repeat(np.arange(n), [len(k) for k in inside])
    child = np.array([c for k in inside for c in k], dtype=np.int64)
    moves_inside = np.bincount(parent, minlength=n)
    big = 1 << 30
    out_win = np.full(n, big)  # the quickest win by a move out of the table
    out_safe = np.zeros(n, dtype=bool)  # a move out to a draw
    out_longest = np.full(n, -1)  # the longest loss by moves out of the table
    for i, values in enumerate(outside):
        for result, plies in values:
            if result == "loss":
                out_win[i] = min(out_win[i], plies + 1)
            elif result == "draw":
                out_safe[i] = True
            else:
                out_longest[i] = max(out_longest[i], plies + 1)
    NONE, WIN, LOSS = 0, 1, 2
    result = np.zeros(n, dtype=np.int8)
    plies = np.zeros(n, dtype=np.int64)
    no_move = (moves_inside == 0) & np.array([not o for o in outside], dtype=bool)
    result[no_move & checked] = LOSS
    last = max(int(out_win[out_win < big].max(initial=0)), int(out_longest.max(initial=0)))
    ply = 0
    while True:
        ply += 1
        open_ = result == NONE
        open_ &= ~no_move
        lost_child = (result[child] == LOSS) & (plies[child] == ply - 1)
        wins = open_ & ((np.bincount(parent, weights=lost_child, minlength=n) > 0) | (out_win == ply))
        won_children = np.bincount(parent, weights=result[child] == WIN, minlength=n)
        losses = open_ & ~wins & (won_children == moves_inside) & ~out_safe & (out_win == big) \
            & (out_longest <= ply)
        result[wins], plies[wins] = WIN, ply
        result[losses], plies[losses] = LOSS, ply
        if not wins.any() and not losses.any() and ply > last + 1:
            break
    return [("win", int(plies[i])) if result[i] == WIN else ("loss", int(plies[i])) if result[i] == LOSS
            else ("draw", None) for i in range(n)]
