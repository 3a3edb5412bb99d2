"""Tic-tac-toe, strongly solved: the second game, and the smallest whole pipeline.

X moves first; the players take turns marking an empty square of the 3×3 board;
three marks in a row, a column or a diagonal win; a full board without one is a
draw. Every legal position is solved: X has as many marks as O (X to move) or one
more (O to move), and not both players have a line (a board where they do is not a
position). A player with a line has won, whichever side is to move.

Notation: ``X ... .X. ..O`` — the side to move (``X`` or ``O``), then one group per
row from row 1, columns a→c, ``X``/``O`` for the marks and ``.`` for an empty
square. A move is the square marked: ``b2``.

Built on the kit (:mod:`retro.games.kit`): the rules are two jitted kernels
(:mod:`.rules`); boards keep each side's own kind (X 1, O 2), a tier per number of
marks ``(X's, O's)``, entries numbered with no symmetry folded and values stored from
X's view (the kit's ``relative_values = False`` and ``fold = False``).
"""

from __future__ import annotations

from ...errors import MoveSyntaxError, NotationError, SideError, counted, quoted
from ..kit import ILLEGAL, LetterSide, Move, PieceGame
from ..kit import Position as KitPosition
from ..notation import tidy_move
from .rules import LINES, SQUARES, moves, outcome  # noqa: F401 - the kit compiles its kernels next to them

NAMES = tuple(f"{'abc'[s % 3]}{s // 3 + 1}" for s in range(SQUARES))


class Side(LetterSide):
    """X moves first."""

    X = "X"
    O = "O"  # noqa: E741 - the game's own name for the side


class Position(KitPosition):
    """A tic-tac-toe position: the side to move and the marks (``board``: 0 empty, 1 X,
    2 O, from a1 row by row)."""

    @property
    def x(self) -> int:
        """X's squares as a bitboard (a1 = bit 0)."""
        return sum(1 << s for s, v in enumerate(self.board) if v == 1)

    @property
    def o(self) -> int:
        return sum(1 << s for s, v in enumerate(self.board) if v == 2)

    def legal_moves(self) -> list[Move]:
        return [Move(text) for text in self._move_rows()[0]]  # in square order: a1, b1, ...


class TicTacToe(PieceGame):
    """Tic-tac-toe (see the module docstring): X's squares ranked, then O's among the
    squares left (6,046 entries)."""

    name = "tic-tac-toe"
    title = "Tic-tac-toe"
    title_in_sentence = "tic-tac-toe"
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
    symmetries = 8
    rows = cols = 3
    max_moves = 9
    kernels = "masks"
    relative_values = False
    fold = False
    out_of_core = False
    position_class = Position
    move_example = "b2"
    consts = (LINES,)
    piece_kinds = {"X": {"side": Side.X.value, "shape": "cross", "name": "X"},
                   "O": {"side": Side.O.value, "shape": "ring", "name": "O"}}

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'b2', not {type(text).__name__}")
        if tidy_move(text) not in NAMES:
            raise MoveSyntaxError(f"{quoted(text.strip())} is not a move: write the square to mark, like 'b2'")
        return Move(tidy_move(text))

    def check_cells(self, position: Position) -> None:
        if len(position.board) != SQUARES or not set(position.board) <= {0, 1, 2}:
            raise NotationError("a mark lies off the 3x3 board")

    def check(self, position: Position) -> None:
        first, second = (side.value for side in self.sides)
        xs, os = position.count(1), position.count(2)
        if not 0 <= xs - os <= 1:
            raise NotationError(f"{first} has {counted(xs, 'mark')} and {second} {os}: {first} moves first, "
                                f"so {first} has as many marks as {second} or one more")
        if position._outcome() == ILLEGAL:
            raise NotationError("both players have a line: not a position")
        expected = self.sides.from_code(0 if xs == os else 1)
        if position.side is not expected:
            raise SideError(f"{position.side.value} is not to move: {first} has {counted(xs, 'mark')} "
                            f"and {second} {os}, so {expected.value} is")

    def why_illegal(self, position: Position, move: Move) -> str:
        return f"{move} is already marked"

    def finished_reason(self, position: Position) -> str:
        winner = position.winner()
        if winner is not None:
            return f"{winner.value} has three in a line: {winner.value} has won"
        return "the board is full and nobody has three in a line: a draw"

    # --- tiers: (X's marks, O's marks) ----------------------------------------------

    def tiers(self) -> list[tuple[int, int]]:
        return [((n + 1) // 2, n // 2) for n in range(SQUARES, -1, -1)]  # a full board first

    def tier_name(self, tier) -> str:
        return f"marks_{sum(tier)}"

    def child_tiers(self, tier) -> tuple:
        xs, os = tier
        return () if xs + os == SQUARES else ((xs + 1, os) if xs == os else (xs, os + 1),)

    def loopy(self, tier) -> bool:
        return False

    def sides_of(self, tier) -> tuple[int, ...]:
        return (0,) if tier[0] == tier[1] else (1,)

    # --- presentation -------------------------------------------------------------

    def marked_lines(self, position: Position) -> list[dict]:
        out = []
        for side, marks in ((self.sides.from_code(0), position.x), (self.sides.from_code(1), position.o)):
            for line in LINES.tolist():
                if marks & line == line:
                    out.append({"side": side.value,
                                "points": [NAMES[s] for s in range(SQUARES) if line >> s & 1]})
        return out


__all__ = ["Move", "Position", "Side", "TicTacToe"]
