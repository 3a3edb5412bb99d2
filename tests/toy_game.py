"""A throwaway game for tests/test_registry_drives_tests.py: registered in a child process
only, to show that adding a game to the registry breaks no test and that the tests'
lists, fixtures and side-letter tables grow with the registry.

"A to Z" is tic-tac-toe under other names: sides ``A`` (moves first) and ``Z``, cells
``A``, ``Z`` and ``.``: ``A ... .A. ..Z``. It has its own sides, positions and notation
(so a tic-tac-toe database refuses its positions, and its errors name its letters),
and reuses tic-tac-toe's jitted kernels for the tiers (the same numbering of boards).
Its parser calls what :mod:`retro.games.protocol` says every parser must call.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retro import games
from retro.errors import (
    IllegalMoveError,
    NotationError,
    RowCountError,
    RowLengthError,
    SideError,
    UnknownCharacterError,
    counted,
    quoted,
)
from retro.games.notation import invisible_character, position_tokens
from retro.games.protocol import Side as SideBase
from retro.games.protocol import whole_numbers
from retro.games.tictactoe import NAMES, SQUARE_OF, Move, TicTacToe, rules
from retro.values import draw_value


class Side(SideBase):
    """A moves first."""

    A = "A"
    Z = "Z"

    @property
    def letter(self) -> str:
        return self.value

    @property
    def title(self) -> str:
        return self.value


_GROUP = re.compile(r"[AZ.]+")


def _unknown_character(number: int, char: str) -> str:
    return f"unknown character {quoted(char)} in row {number}: use A, Z or . (empty)"


@dataclass(frozen=True)
class Position:
    side: Side
    a: int
    z: int

    def __post_init__(self) -> None:
        if not isinstance(self.side, Side):
            raise SideError(f"side to move must be an A-to-Z Side, not {self.side!r}")
        whole_numbers(self, "a", "z")
        if self.a < 0 or self.z < 0 or (self.a | self.z) >> rules.SQUARES:
            raise NotationError("a mark lies off the 3x3 board")
        if not rules.legal(self.a, self.z, rules.LINES):
            raise NotationError("not a position: overlapping marks, wrong counts or two lines")
        if self.side is not Side.from_code(rules.side_to_move(self.a, self.z)):
            raise SideError(f"{self.side.value} is not to move")

    @classmethod
    def parse(cls, text: str) -> Position:
        if not isinstance(text, str):
            raise NotationError(f"a position must be text, not {type(text).__name__}")
        tokens = position_tokens(text)
        if not tokens:
            raise SideError("empty position: expected A or Z, then one group per row")
        if tokens[0] not in ("A", "Z"):
            raise SideError(f"unknown side to move {quoted(tokens[0])}: expected A or Z")
        rows = tokens[1:]
        invisible = invisible_character(rows)
        if invisible is not None:
            raise UnknownCharacterError(_unknown_character(*invisible))
        if len(rows) != 3:
            raise RowCountError(f"{counted(len(rows), 'row')}: the board has 3 rows of 3 squares")
        for number, row in enumerate(rows, start=1):
            if len(row) != 3:
                raise RowLengthError(f"row {number} has {counted(len(row), 'square')}: a row has 3")
            if not _GROUP.fullmatch(row):
                raise UnknownCharacterError(_unknown_character(number, next(c for c in row if c not in "AZ.")))
        cells = "".join(rows)
        return cls(Side(tokens[0]), sum(1 << s for s, c in enumerate(cells) if c == "A"),
                   sum(1 << s for s, c in enumerate(cells) if c == "Z"))

    def __str__(self) -> str:
        cells = "".join("A" if self.a >> s & 1 else "Z" if self.z >> s & 1 else "."
                        for s in range(rules.SQUARES))
        return f"{self.side.value} {cells[0:3]} {cells[3:6]} {cells[6:9]}"

    def winner(self) -> Side | None:
        result = rules.winner(self.a, self.z, rules.LINES)
        return Side.from_code(result) if result in (rules.X, rules.O) else None

    def is_over(self) -> bool:
        return rules.winner(self.a, self.z, rules.LINES) != rules.NO_WINNER

    def legal_moves(self) -> list[Move]:
        if self.is_over():
            return []
        return [Move(NAMES[s]) for s in range(rules.SQUARES) if not (self.a | self.z) >> s & 1]

    def play(self, move: Move | str) -> Position:
        move = Move.parse(move) if isinstance(move, str) else move
        square = SQUARE_OF[move.square]
        if self.is_over() or (self.a | self.z) >> square & 1:
            raise IllegalMoveError(f"illegal move {move}")
        bit = 1 << square
        if self.side is Side.A:
            return Position(Side.Z, self.a | bit, self.z)
        return Position(Side.A, self.a, self.z | bit)

    def symmetric_images(self) -> list[Position]:
        def image(bb: int, g: int) -> int:
            return sum(1 << int(rules.SYMMETRY[g, s]) for s in range(rules.SQUARES) if bb >> s & 1)

        return [Position(self.side, image(self.a, g), image(self.z, g)) for g in range(8)]


class AToZ(TicTacToe):
    """Tic-tac-toe's rules and tiers under other names (see the module docstring)."""

    name = "a-to-z"
    title = "A to Z"
    family = "A to Z"
    description = "A and Z mark squares of a 3x3 board; three in a line wins (a test's game)"
    rules = "Tic-tac-toe with the marks A (first) and Z."
    notation = "Positions are written like 'A ... .A. ..Z'; a move is the square marked, like 'b2'."
    references = ()
    sides = Side
    piece_kinds = {"A": {"side": "A", "shape": "cross", "name": "A"},
                   "Z": {"side": "Z", "shape": "ring", "name": "Z"}}

    def parse(self, text: str) -> Position:
        return Position.parse(text)

    def start(self) -> Position:
        return Position(Side.A, 0, 0)

    def finished_value(self, position: Position) -> int:
        winner = position.winner()
        if winner is not None:
            return 1 if winner is Side.A else 0
        if not position.is_over():
            raise ValueError(f"{position} is not finished")
        return draw_value(self.value_dtype)

    def finished_reason(self, position: Position) -> str:
        winner = position.winner()
        if winner is not None:
            return f"{winner.value} has three in a line: {winner.value} has won"
        return "the board is full and nobody has three in a line: a draw"

    def tier_of(self, position: Position) -> int:
        return (position.a | position.z).bit_count()

    def index(self, position: Position) -> int:
        return int(rules.entry_of(position.a, position.z, rules.BINOMIAL))

    def position_at(self, tier: int, entry: int) -> Position | None:
        a, z = (int(bb) for bb in rules.board_at(tier, entry, rules.BINOMIAL))
        if not rules.legal(a, z, rules.LINES):
            return None
        return Position(Side.from_code(rules.side_to_move(a, z)), a, z)

    def marked_lines(self, position: Position) -> list[dict]:
        return [{"side": side.value, "points": [NAMES[s] for s in range(rules.SQUARES) if line >> s & 1]}
                for side, marks in ((Side.A, position.a), (Side.Z, position.z))
                for line in rules.LINES.tolist() if marks & line == line]


def register() -> None:
    """Add the game to the registry (after the others), and forget the registry's caches."""
    games.GAMES[AToZ.name] = AToZ
    games._parsers.cache_clear()
