"""Teeko, John Scarne's game, strongly solved: every legal position.

A 5×5 board; Black moves first; 4 pieces each. Drop phase: the players alternately
place a piece on an empty square until all 8 are placed. Move phase: a player moves
one of their pieces to an adjacent empty square (8 directions). A player wins at once
with 4 in a row (horizontal, vertical or diagonal) or 4 forming a 2×2 square; endless
play is a draw. As in tic-tac-toe, a player with a winning pattern has won whichever
side is to move, and a board where both have one is no position. Guy Steele (1998):
the start is a draw. Variants: ``4x4`` (the rules on a 4×4 board) and ``4x4-3`` (3
each on 4×4, three in a row wins, no squares).

Notation: ``B ..... ..... ..... ..... .....``: the side to move (``B`` or ``W``), then
the rows from row 1, columns a→e, ``B``/``W`` a piece, ``.`` empty. Moves: ``c3`` (a
drop), ``c3-d4`` (a step).

Built on the kit (:mod:`retro.games.kit`): boards from the side to move's view (kind 1
the other side's pieces, kind 2 the mover's), a tier per pair of counts; the drops
are acyclic tiers, the move phase one loopy tier solved by the un-move solver with
un-moves turned around from the steps.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...bits import lowest_bit_index
from ...errors import NotationError, SideError
from ..kit import ILLEGAL, LOST, OPEN, WON, LetterSide, PieceGame, grid_lines, grid_neighbours, grid_squares


class Side(LetterSide):
    """Black moves first."""

    BLACK = "B"
    WHITE = "W"


@njit(cache=True, inline="always")
def outcome(masks, tier, consts):
    """The mover (kind 2) or the other (kind 1) holds a winning pattern: won, lost."""
    won = lost = 0
    for shape, starts in consts[0]:  # a pattern's cells from its lowest, and where it may start
        mine, theirs = starts, starts
        while shape:
            mine &= masks[2] >> lowest_bit_index(shape)
            theirs &= masks[1] >> lowest_bit_index(shape)
            shape &= shape - 1
        won |= mine
        lost |= theirs
    if won and lost:
        return ILLEGAL
    return WON if won else LOST if lost else OPEN


@njit(cache=True, inline="always")
def moves(masks, tier, consts, out):
    """Drops while the mover has pieces in hand, else steps to an adjacent empty square;
    children from the opponent's view (the mover's pieces become kind 1)."""
    empty, theirs, mine = masks[0], masks[1], masks[2]
    n = 0
    pieces = empty if tier[1] < consts[2] else mine  # a drop on an empty square, or a step
    while pieces:
        s = pieces & -pieces
        to = s if tier[1] < consts[2] else consts[1][lowest_bit_index(s)] & empty
        while to:
            t = to & -to
            moved = s ^ t if tier[1] >= consts[2] else s
            out[n, 0], out[n, 1], out[n, 2] = empty ^ moved, mine ^ moved, theirs
            n += 1
            to ^= t
        pieces ^= s
    return n


VARIANTS = {"": (5, 4, True), "4x4": (4, 4, True), "4x4-3": (4, 3, False)}


class Teeko(PieceGame):
    """Teeko (see the module docstring)."""

    name = "teeko"
    title = "Teeko"
    family = "teeko"
    description = "4 pieces each dropped then stepped on a 5x5 board; 4 in a row or a square wins"
    rules = ("Black moves first. Each player drops their 4 pieces one at a time on empty squares of the "
             "5x5 board, then moves one piece a turn to an adjacent empty square (8 directions). Four "
             "in a row (a row, a column or a diagonal) or on the corners of a 2x2 square win at once; "
             "endless play is a draw. A board where both players have a winning pattern is no position.")
    notation = ("Positions are written like 'B ..... ..... ..... ..... .....': the side to move (B or W), "
                "then the rows from row 1, columns a to e; B and W the pieces, . empty. Moves: a drop "
                "'c3', a step 'c3-d4'.")
    references = ({"title": "Teeko (Wikipedia)", "url": "https://en.wikipedia.org/wiki/Teeko"},
                  {"title": "G. L. Steele Jr., Teeko (1998)", "url": "https://www.mathematik.uni-bielefeld.de/~sillke/PUZZLES/teeko"})
    sides = Side
    variants = tuple(VARIANTS)
    symmetries = 8
    max_moves = 32
    unmoves = "steps"
    kernels = "masks"
    piece_kinds = {"B": {"side": "B", "shape": "disc", "name": "Black"},
                   "W": {"side": "W", "shape": "ring", "name": "White"}}

    def __init__(self, variant: str = "") -> None:
        super().__init__(variant)
        size, self.pieces, squares = VARIANTS[variant]
        self.rows = self.cols = size
        if variant:
            self.description = (f"{self.pieces} pieces each dropped then stepped on a {size}x{size} board; "
                                f"{self.pieces} in a row{' or a square' if squares else ''} wins")
        lines = grid_lines(size, size, self.pieces) + (grid_squares(size, size) if squares else [])
        shapes = {}  # a pattern's cells moved to start at cell 0 -> the cells it starts on
        for line in lines:
            low = line & -line
            shapes[line // low] = shapes.get(line // low, 0) | low
        self.consts = (np.array(list(shapes.items()), dtype=np.int64), grid_neighbours(size, size), self.pieces)
        self.lines = lines

    @property
    def short_name(self) -> str:
        return f"{self.title} {self.rows}\u00d7{self.cols}" + (f", {self.pieces} pieces" if self.pieces != 4 else "")

    def tiers(self) -> list:
        p = self.pieces
        return [(p, p)] + [t for k in range(p - 1, -1, -1) for t in ((k + 1, k), (k, k))]

    def child_tiers(self, tier) -> tuple:
        other, mover = tier
        if other == mover == self.pieces:
            return ()
        return ((mover + 1, other),)  # the mover drops; the child seen from the other side

    def loopy(self, tier) -> bool:
        return tier == (self.pieces, self.pieces)

    def sides_of(self, tier) -> tuple[int, ...]:
        other, mover = tier
        return (0, 1) if other == mover == self.pieces else (0,) if other == mover else (1,)

    def tier_name(self, tier) -> str:
        other, mover = tier
        if self.loopy(tier):
            return "moving"
        black, white = (mover, other) if other == mover else (other, mover)
        return f"drop_{black}_{white}"

    def check(self, position) -> None:
        black, white, p = position.count(1), position.count(2), self.pieces
        if black > p or white > p:
            raise NotationError(f"Black has {black} pieces and White {white}: each has {p}")
        if black == white == p:
            pass
        elif black not in (white, white + 1):
            raise NotationError(f"Black has {black} pieces and White {white}: Black drops first, so "
                                "Black has as many pieces as White or one more")
        elif position.side is not (Side.BLACK if black == white else Side.WHITE):
            expected = Side.BLACK if black == white else Side.WHITE
            raise SideError(f"{position.side.title} is not to move: Black has {black} pieces and White "
                            f"{white}, so {expected.title} moves next")
        if position._outcome() == ILLEGAL:
            raise NotationError("both players have a winning pattern: not a position")

    def finished_reason(self, position) -> str:
        winner = position.winner()
        if winner is None:
            raise ValueError(f"{position} is not finished")
        shape = "three in a row" if self.pieces == 3 else "four in a row or a square"
        return f"{winner.title} has {shape}: {winner.title} has won"

    def marked_lines(self, position) -> list[dict]:
        out = []
        for code, side in ((1, Side.BLACK), (2, Side.WHITE)):
            mask = sum(1 << c for c, v in enumerate(position.board) if v == code)
            for line in self.lines:
                if mask & line == line:
                    out.append({"side": side.value,
                                "points": [self.names[c] for c in range(len(position.board)) if line >> c & 1]})
        return out

