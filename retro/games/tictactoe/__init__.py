"""Tic-tac-toe, strongly solved: the second game, and the smallest whole pipeline.

X moves first; the players take turns marking an empty square of the 3×3 board;
three marks in a row, a column or a diagonal win; a full board without one is a
draw. Every legal position is solved: X has as many marks as O (X to move) or one
more (O to move), and not both players have a line (a board where they do is not a
position). A player with a line has won, whichever side is to move.

Notation: ``X ... .X. ..O`` — the side to move (``X`` or ``O``), then one group per
row from row 1, columns a→c, ``X``/``O`` for the marks and ``.`` for an empty
square. A move is the square marked: ``b2``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from math import comb

import numpy as np

from ...errors import (
    IllegalMoveError,
    MoveSyntaxError,
    NotationError,
    RowCountError,
    RowLengthError,
    SideError,
    UnknownCharacterError,
    counted,
    quoted,
)
from ...values import draw_value, not_a_position
from ..notation import invisible_character, position_tokens, tidy_move
from ..protocol import OPEN, Expansion, GridGame, whole_numbers
from ..protocol import Side as SideBase
from . import rules

FILES = "abc"
NAMES = tuple(f"{FILES[s % 3]}{s // 3 + 1}" for s in range(rules.SQUARES))
SQUARE_OF = {name: s for s, name in enumerate(NAMES)}


class Side(SideBase):
    """X moves first."""

    X = "X"
    O = "O"  # noqa: E741 - the game's own name for the side

    @property
    def letter(self) -> str:
        return self.value

    @property
    def title(self) -> str:
        return self.value


@dataclass(frozen=True, order=True)
class Move:
    """A mark on a square, written as the square: ``b2``."""

    square: str

    @classmethod
    def parse(cls, text: str) -> Move:
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'b2', not {type(text).__name__}")
        name = tidy_move(text)
        if name not in SQUARE_OF:
            raise MoveSyntaxError(f"{quoted(text.strip())} is not a move: write the square to mark, like 'b2'")
        return cls(name)

    def __str__(self) -> str:
        return self.square


_GROUP = re.compile(r"[XO.]+")


@dataclass(frozen=True)
class Position:
    """A tic-tac-toe position: the side to move and the two bitboards (a1 = bit 0)."""

    side: Side
    x: int
    o: int

    def __post_init__(self) -> None:
        if not isinstance(self.side, Side):
            raise SideError(f"side to move must be a tic-tac-toe Side, not {self.side!r}")
        whole_numbers(self, "x", "o")
        if self.x < 0 or self.o < 0 or (self.x | self.o) >> rules.SQUARES:
            raise NotationError("a mark lies off the 3x3 board")
        if not rules.legal(self.x, self.o, rules.LINES):
            raise NotationError(_why_not_a_position(self.x, self.o))
        expected = Side.from_code(rules.side_to_move(self.x, self.o))
        if self.side is not expected:
            raise SideError(f"{self.side.value} is not to move: X has {counted(self.x.bit_count(), 'mark')} "
                            f"and O {self.o.bit_count()}, so {expected.value} is")

    @classmethod
    def parse(cls, text: str) -> Position:
        if not isinstance(text, str):
            raise NotationError(f"a position must be text, not {type(text).__name__}")
        tokens = position_tokens(text)
        if not tokens:
            raise SideError("empty position: expected X or O, then one group per row")
        if tokens[0] not in ("X", "O"):
            raise SideError(f"unknown side to move {quoted(tokens[0])}: expected X or O")
        rows = tokens[1:]
        invisible = invisible_character(rows)
        if invisible is not None:
            raise UnknownCharacterError(_unknown_character(*invisible))
        if len(rows) != 3:
            raise RowCountError(f"{counted(len(rows), 'row')}: a tic-tac-toe board has 3 rows of 3 squares")
        for number, row in enumerate(rows, start=1):
            if len(row) != 3:
                raise RowLengthError(f"row {number} has {counted(len(row), 'square')}: a row has 3")
            if not _GROUP.fullmatch(row):
                raise UnknownCharacterError(_unknown_character(number, next(c for c in row if c not in "XO.")))
        cells = "".join(rows)
        x = sum(1 << s for s, c in enumerate(cells) if c == "X")
        o = sum(1 << s for s, c in enumerate(cells) if c == "O")
        return cls(Side(tokens[0]), x, o)

    def __str__(self) -> str:
        cells = "".join("X" if self.x >> s & 1 else "O" if self.o >> s & 1 else "."
                        for s in range(rules.SQUARES))
        return f"{self.side.value} {cells[0:3]} {cells[3:6]} {cells[6:9]}"

    def __repr__(self) -> str:
        return f"TicTacToe.parse({str(self)!r})"

    @classmethod
    def start(cls) -> Position:
        return cls(Side.X, 0, 0)

    @property
    def marks(self) -> int:
        return (self.x | self.o).bit_count()

    def winner(self) -> Side | None:
        """The side with a line, or None (the game goes on, or a full board: a draw)."""
        result = rules.winner(self.x, self.o, rules.LINES)
        return Side.from_code(result) if result in (rules.X, rules.O) else None

    def is_over(self) -> bool:
        return rules.winner(self.x, self.o, rules.LINES) != rules.NO_WINNER

    def legal_moves(self) -> list[Move]:
        if self.is_over():
            return []
        return [Move(NAMES[s]) for s in range(rules.SQUARES) if not (self.x | self.o) >> s & 1]

    def play(self, move: Move | str) -> Position:
        if isinstance(move, str):
            move = Move.parse(move)
        elif not isinstance(move, Move):
            raise TypeError(f"expected a Move or move text like 'b2', got {type(move).__name__}")
        square = SQUARE_OF[move.square]
        if self.is_over():
            winner = self.winner()
            result = "a draw" if winner is None else f"{winner.value} has won"
            raise IllegalMoveError(f"the game is over ({result}): no move {move} allowed")
        if (self.x | self.o) >> square & 1:
            raise IllegalMoveError(f"illegal move {move}: {move.square} is already marked")
        bit = 1 << square
        if self.side is Side.X:
            return Position(Side.O, self.x | bit, self.o)
        return Position(Side.X, self.x, self.o | bit)

    def symmetric_images(self) -> list[Position]:
        """The position under each of the 8 symmetries of the board (identity first)."""
        return [Position(self.side, _image(self.x, g), _image(self.o, g)) for g in range(8)]


def _image(bb: int, g: int) -> int:
    return sum(1 << int(rules.SYMMETRY[g, s]) for s in range(rules.SQUARES) if bb >> s & 1)


def _unknown_character(number: int, char: str) -> str:
    return f"unknown character {quoted(char)} in row {number}: use X, O or . (empty)"


def _why_not_a_position(x: int, o: int) -> str:
    if x & o:
        return "a square holds both an X and an O"
    xs, os = x.bit_count(), o.bit_count()
    if not 0 <= xs - os <= 1:
        return (f"X has {counted(xs, 'mark')} and O {os}: X moves first, so X has as many marks as O "
                "or one more")
    return "both players have a line: not a position"


class TicTacToe(GridGame):
    """Tic-tac-toe (see the module docstring)."""

    name = "tic-tac-toe"
    title = "Tic-tac-toe"
    family = "tic-tac-toe"
    description = "X and O mark squares of a 3x3 board; three in a line wins"
    rules = ("X moves first; the players take turns marking an empty square of the 3x3 board. "
             "Three marks of a player in a row, a column or a diagonal win; a full board "
             "without one is a draw. A legal position has as many X as O (X to move) or one "
             "X more (O to move), and not both players have a line.")
    notation = ("Positions are written like 'X ... .X. ..O': the side to move (X or O), then "
                "one group per row from row 1, columns a to c; X and O for the marks, . empty. "
                "A move is the square marked, like 'b2'.")
    references = ({"title": "Tic-tac-toe (Wikipedia)", "url": "https://en.wikipedia.org/wiki/Tic-tac-toe"},)
    sides = Side
    value_dtype = np.uint8
    symmetries = 8
    grid_size = 3
    piece_kinds = {"X": {"side": Side.X.value, "shape": "cross", "name": "X"},
                   "O": {"side": Side.O.value, "shape": "ring", "name": "O"}}

    def parse(self, text: str) -> Position:
        return Position.parse(text)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def start(self) -> Position:
        return Position.start()

    def finished_value(self, position: Position) -> int:
        winner = position.winner()
        if winner is not None:
            return 1 if winner is Side.X else 0
        if not position.is_over():
            raise ValueError(f"{position} is not finished")
        return draw_value(self.value_dtype)

    def finished_reason(self, position: Position) -> str:
        winner = position.winner()
        if winner is not None:
            return f"{winner.value} has three in a line: {winner.value} has won"
        return "the board is full and nobody has three in a line: a draw"

    # --- tiers ------------------------------------------------------------------

    def tiers(self) -> list[int]:
        return list(range(rules.SQUARES, -1, -1))  # a full board first: moves add marks

    def tier_name(self, tier: int) -> str:
        return f"marks_{tier}"

    def tier_size(self, tier: int) -> int:
        xs, os = (tier + 1) // 2, tier // 2
        return comb(rules.SQUARES, xs) * comb(rules.SQUARES - xs, os)

    def child_tiers(self, tier: int) -> tuple[int, ...]:
        return (tier + 1,) if tier < rules.SQUARES else ()

    def positions_in(self, tier: int) -> int:
        """The legal boards of the tier (its entries, less those where both have a line)."""
        return sum(self.position_at(tier, entry) is not None for entry in range(self.tier_size(tier)))

    def tier_of(self, position: Position) -> int:
        return position.marks

    def index(self, position: Position) -> int:
        return int(rules.entry_of(position.x, position.o, rules.BINOMIAL))

    def position_at(self, tier: int, entry: int) -> Position | None:
        x, o = rules.board_at(tier, entry, rules.BINOMIAL)
        x, o = int(x), int(o)
        if not rules.legal(x, o, rules.LINES):
            return None
        return Position(Side.from_code(rules.side_to_move(x, o)), x, o)

    def symmetry_classes(self, tier: int) -> np.ndarray:
        out = np.empty(self.tier_size(tier), dtype=np.int64)
        rules.classes(tier, len(out), rules.BINOMIAL, rules.SYMMETRY, out)
        return out

    def expand(self, tier: int) -> Expansion:
        size = self.tier_size(tier)
        side = np.empty(size, dtype=np.int8)
        finished = np.empty(size, dtype=np.int32)
        counts = np.empty(size, dtype=np.int64)
        rules.expand(tier, size, rules.LINES, rules.BINOMIAL, side, finished, counts,
                     draw_value(self.value_dtype), not_a_position(self.value_dtype), OPEN)
        starts = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        child_entry = np.empty(int(starts[-1]), dtype=np.int64)
        rules.children(tier, size, rules.BINOMIAL, finished, starts, child_entry, OPEN)
        child_tier = np.ones(len(child_entry), dtype=np.int8)  # every child: tier + 1
        return Expansion((tier, *self.child_tiers(tier)), side, finished, starts, child_tier,
                         child_entry)

    # --- presentation -------------------------------------------------------------

    def marked_lines(self, position: Position) -> list[dict]:
        out = []
        for side, marks in ((Side.X, position.x), (Side.O, position.o)):
            for line in rules.LINES.tolist():
                if marks & line == line:
                    out.append({"side": side.value,
                                "points": [NAMES[s] for s in range(rules.SQUARES) if line >> s & 1]})
        return out


__all__ = ["Move", "Position", "Side", "TicTacToe"]
