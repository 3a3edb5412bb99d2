"""The four-player race of the 2020 multi-player search report, strongly solved for
every player.

Four players on a 4×4 board (squares a1..d4: column a..d is the report's x = 1..4, row
1..4 its y = 1..4, row 1 at the top as in its pictures). Player 1 starts on a1, Player
2 on d1, Player 3 on d4, Player 4 on a4, and each races to the opposite corner (P1 to
d4, P2 to a4, P3 to a1, P4 to d1). They move in turn P1, P2, P3, P4, P1, ...; a move is
one step left, right, up or down to an empty square. The first player on its goal wins
and the game ends; a player to move without a legal move ends the game with no winner
(the report's utility 0 for everyone); play that never ends has no winner.

Jump variant (``jump``): where the adjacent square in a direction is occupied, the
player may instead jump over that one player to the square beyond, if that square is
on the board and empty. The report's printed jump code has a slip in one direction;
we read its intent as the same rule in all four directions: a jump passes over exactly
one player, lands on an empty square of the board, and captures nothing.

Values: each tier is one player's game against the other three together (a two-sided
game: side 0 that player, side 1 the others, who win when the player does not reach
its goal first). A player's value is a win in n plies (it can force being first on
its goal: it hurries, the others delay), a loss in n plies (the others together can
force that it is not: another player arrives first or the game stops; they hurry, it
delays) or a draw (neither: play can go on forever).

Notation: ``P1 a1 d1 d4 a4``: the player to move, then the squares of Players 1 to 4.
A move is ``a1-b1`` (from, to); a jump ``a1-c1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Collection

import numpy as np

from ...errors import (
    IllegalMoveError,
    MoveSyntaxError,
    NotationError,
    SideError,
    UnknownCharacterError,
    counted,
    quoted,
)
from ...values import not_a_position
from ..notation import invisible_character, position_tokens, tidy_move
from ..protocol import FILES, OPEN, Expansion, Game, grid_text, whole_numbers
from ..protocol import Side as SideBase
from . import rules

NAMES = tuple(f"{FILES[s % rules.SIDE]}{s // rules.SIDE + 1}" for s in range(rules.SQUARES))
SQUARE_OF = {name: s for s, name in enumerate(NAMES)}
EXAMPLE = "P1 a1 d1 d4 a4"


class Side(SideBase):
    """The four players, in turn order."""

    P1 = "P1"
    P2 = "P2"
    P3 = "P3"
    P4 = "P4"

    @property
    def letter(self) -> str:
        return self.value

    @property
    def title(self) -> str:
        return f"Player {self.code + 1}"

    @property
    def other(self) -> Side:  # type: ignore[override]
        raise TypeError("a four-player side has no single other side: use next_player")

    @property
    def next_player(self) -> Side:
        """The player who moves after this one."""
        return Side.from_code((self.code + 1) % rules.PLAYERS)  # type: ignore[return-value]

    @property
    def goal(self) -> str:
        """The square this player races to."""
        return NAMES[int(rules.GOAL[self.code])]

    @property
    def home(self) -> str:
        """The square this player starts on."""
        return NAMES[int(rules.START[self.code])]


@dataclass(frozen=True, order=True)
class Move:
    """A step or a jump, written ``from-to``: ``a1-b1``, ``a1-c1``."""

    origin: str
    target: str

    @classmethod
    def parse(cls, text: str) -> Move:
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'a1-b1', not {type(text).__name__}")
        tidy = tidy_move(text).replace("-", "")
        origin, target = tidy[:2], tidy[2:]
        if len(tidy) != 4 or origin not in SQUARE_OF or target not in SQUARE_OF:
            raise MoveSyntaxError(f"{quoted(text.strip())} is not a move: write the square moved from "
                                  "and the square moved to, like 'a1-b1'")
        return cls(origin, target)

    def __str__(self) -> str:
        return f"{self.origin}-{self.target}"


@dataclass(frozen=True)
class Position:
    """A position of the race: the player to move, the squares of Players 1 to 4
    (``p1``..``p4``, 0..15: a1 = 0, d1 = 3, a4 = 12, d4 = 15) and whether jumps are
    allowed (the variant; the notation does not write it)."""

    side: Side
    p1: int
    p2: int
    p3: int
    p4: int
    jump: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.side, Side):
            raise SideError(f"the player to move must be a four-player-race Side, not {self.side!r}")
        whole_numbers(self, "p1", "p2", "p3", "p4")
        for k, square in enumerate(self.squares):
            if not 0 <= square < rules.SQUARES:
                raise NotationError(f"player {k + 1}'s square {square} is off the 4x4 board (0 to 15)")
        if not isinstance(self.jump, bool):
            raise TypeError(f"jump must be True or False, not {type(self.jump).__name__}")
        problem = _why_not_a_position(self.side.code, self.squares)
        if problem:
            raise NotationError(problem)

    @property
    def squares(self) -> tuple[int, int, int, int]:
        """The squares of Players 1 to 4."""
        return (self.p1, self.p2, self.p3, self.p4)

    @classmethod
    def parse(cls, text: str, jump: bool = False) -> Position:
        if not isinstance(text, str):
            raise NotationError(f"a position must be text, not {type(text).__name__}")
        tokens = position_tokens(text)
        if not tokens:
            raise SideError(f"empty position: write the side to move (P1 to P4), then the four players' "
                            f"squares, like {quoted(EXAMPLE)}")
        if tokens[0] not in Side.__members__:
            raise SideError(f"unknown side to move {quoted(tokens[0])}: expected P1, P2, P3 or P4")
        invisible = invisible_character(tokens[1:])
        if invisible is not None:
            number, char = invisible
            where = (f"in player {number}'s square" if number <= rules.PLAYERS else
                     f"after the {rules.PLAYERS} players' squares")
            raise UnknownCharacterError(f"unknown character {quoted(char)} {where}: "
                                        "write the side to move and squares a1 to d4, like "
                                        f"{quoted(EXAMPLE)}")
        names = [token.lower() for token in tokens[1:]]
        if len(names) != rules.PLAYERS:
            raise NotationError(f"{counted(len(names), 'square')} after the player to move: write the "
                                f"squares of players 1 to 4, like {quoted(EXAMPLE)}")
        for k, name in enumerate(names):
            if name not in SQUARE_OF:
                raise NotationError(f"player {k + 1}'s square {quoted(name)} is not a square of "
                                    "the 4x4 board (a1 to d4)")
        return cls(Side(tokens[0]), *(SQUARE_OF[name] for name in names), jump)

    def __str__(self) -> str:
        return " ".join([self.side.value, *(NAMES[s] for s in self.squares)])

    def __repr__(self) -> str:
        return f"FourPlayerRace{'(jump)' if self.jump else ''}.parse({str(self)!r})"

    @classmethod
    def start(cls, jump: bool = False) -> Position:
        return cls(Side.P1, *(int(s) for s in rules.START), jump)

    def square_of(self, player: Side) -> str:
        """The square ``player`` stands on."""
        return NAMES[self.squares[player.code]]

    def winner(self) -> Side | None:
        """The player who has reached its goal (the game is over), or None."""
        return self._winner

    def is_over(self) -> bool:
        return self._winner is not None or not self._targets()

    # Searches ask a position for its winner and moves several times: the rules' kernels
    # answer once per position.
    @cached_property
    def _winner(self) -> Side | None:
        result = rules.status(self.side.code, np.array(self.squares, dtype=np.int64), rules.GOAL)
        return Side.from_code(result) if result >= 0 else None  # type: ignore[return-value]

    @cached_property
    def _target_squares(self) -> tuple[int, ...]:
        out = np.empty(4, dtype=np.int64)
        n = rules.targets(self.side.code, np.array(self.squares, dtype=np.int64), self.jump,
                          rules.STEP, rules.BEYOND, out)
        return tuple(int(t) for t in out[:n])

    def _targets(self) -> tuple[int, ...]:
        return self._target_squares

    def legal_moves(self) -> list[Move]:
        if self.winner() is not None:
            return []
        origin = NAMES[self.squares[self.side.code]]
        return [Move(origin, NAMES[t]) for t in self._targets()]

    def play(self, move: Move | str) -> Position:
        if isinstance(move, str):
            move = Move.parse(move)
        elif not isinstance(move, Move):
            raise TypeError(f"expected a Move or move text like 'a1-b1', got {type(move).__name__}")
        winner = self.winner()
        if winner is not None:
            raise IllegalMoveError(f"the game is over ({winner.title} has won): no move {move} allowed")
        if not self._targets():
            raise IllegalMoveError(f"the game is over ({self.side.title} has no move: nobody wins): "
                                   f"no move {move} allowed")
        here = NAMES[self.squares[self.side.code]]
        if move.origin != here:
            raise IllegalMoveError(f"illegal move {move}: {self.side.title} ({self.side.value}) stands on "
                                   f"{here}, not {move.origin}")
        target = SQUARE_OF[move.target]
        if target not in self._targets():
            raise IllegalMoveError(f"illegal move {move}: {self.side.value} may go from {here} to "
                                   f"{', '.join(NAMES[t] for t in self._targets())}")
        squares = list(self.squares)
        squares[self.side.code] = target
        return Position(self.side.next_player, *squares, self.jump)

    def symmetric_images(self) -> list[Position]:
        """Only itself: no symmetry of the board keeps the players' turn order."""
        return [self]


def _why_not_a_position(mover: int, squares: tuple[int, ...]) -> str | None:
    for a in range(rules.PLAYERS):
        for b in range(a + 1, rules.PLAYERS):
            if squares[a] == squares[b]:
                return f"players {a + 1} and {b + 1} both stand on {NAMES[squares[a]]}"
    home = [k for k in range(rules.PLAYERS) if squares[k] == rules.GOAL[k]]
    if len(home) > 1:
        return (f"players {' and '.join(str(k + 1) for k in home)} all stand on their goals: the game ends "
                "when the first arrives").replace("all stand", "both stand" if len(home) == 2 else "all stand")
    last = (mover + rules.PLAYERS - 1) % rules.PLAYERS
    if home and home[0] != last:
        k = home[0]
        return (f"player {k + 1} stands on its goal {NAMES[squares[k]]} but player {last + 1} moved last: "
                f"the game ended when player {k + 1} arrived")
    return None


class FourPlayerRace(Game):
    """The four-player race (see the module docstring)."""

    name = "four-player-race"
    title = "Four-player race"
    family = "four-player race"
    cell_characters = "1234."
    description = "four players race to the opposite corners of a 4x4 board"
    rules = ("Four players start in the corners of a 4x4 board (P1 a1, P2 d1, P3 d4, P4 a4) and race to "
             "the opposite corner. They move in turn P1, P2, P3, P4; a move is one step left, right, up "
             "or down to an empty square (jump variant: or a jump over one adjacent player to the empty "
             "square beyond). The first player on its goal wins and the game ends; a player to move "
             "without a move ends the game with no winner. Each player's value is that player against "
             "the other three together.")
    notation = ("Positions are written like 'P1 a1 d1 d4 a4': the player to move (P1 to P4), then the "
                "squares of players 1 to 4. A move is the square moved from and the square moved to, "
                "like 'a1-b1' (a jump: 'a1-c1').")
    references = ({"title": "Sturtevant and Korf, On pruning techniques for multi-player games (max^n)",
                   "url": "https://www.aaai.org/Papers/AAAI/2000/AAAI00-031.pdf"},)
    sides = Side
    players = 4  # rules.PLAYERS (the class attribute "rules" is the text of the rules)
    value_dtype = np.uint8
    variants = ("", "jump")
    variants_summary = "jump"
    symmetries = 1

    # The report's utility vectors for its max^n tree (retro solve --method maxn): a win
    # by Player 1, 2, 3, 4, then a game without a winner.
    report_utilities = ((200, 10, 30, 10), (100, 300, 150, 200), (150, 200, 400, 300),
                        (220, 330, 440, 500), (0, 0, 0, 0))

    def __init__(self, variant: str = "") -> None:
        super().__init__(variant)
        self.jump = variant == "jump"

    @staticmethod
    def tree_key(position: Position) -> tuple[int, ...]:
        """The report's state in its max^n tree: where the players stand, whoever is to
        move (a later node with the same squares is a repeated state)."""
        return position.squares

    @classmethod
    def variant_named(cls, text: str) -> str:
        tidy = text.strip().lower()
        return "" if tidy in ("step", "steps", "plain", "") else tidy

    @property
    def side_letters(self) -> str:
        return "P1, P2, P3 or P4"

    @property
    def short_name(self) -> str:
        return f"{self.title} {'with' if self.jump else 'without'} jumps"

    # --- positions ------------------------------------------------------------------

    def parse(self, text: str) -> Position:
        return Position.parse(text, self.jump)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def start(self) -> Position:
        return Position.start(self.jump)

    def row_layouts(self) -> list[tuple[int, ...]]:
        return [(2, 2, 2, 2)]

    def resemblance(self, text: str) -> int:
        tokens = position_tokens(text) if isinstance(text, str) else []
        if not tokens:
            return 0
        score = 3 if tokens[0] in Side.__members__ else 0
        return score + sum(token.lower() in SQUARE_OF for token in tokens[1:5]) + (len(tokens) == 5)

    def for_position(self, position: Position) -> Game:
        from .. import get

        return get(self.name, "jump" if position.jump else "")

    def finished_value(self, position: Position, player: int = 0) -> int:
        """The value of a finished position in ``player``'s game (0: Player 1's): a win in 0
        plies when that player has won, else a loss in 0 plies."""
        if not position.is_over():
            raise ValueError(f"{position} is not finished")
        return 1 if position.winner() is Side.from_code(player) else 0

    def finished_reason(self, position: Position) -> str:
        winner = position.winner()
        if winner is not None:
            return f"{winner.title} stands on its goal {winner.goal}: {winner.title} has won"
        return f"{position.side.title} has no legal move: the game ends with no winner"

    # --- tiers: one per player, its game against the other three --------------------------

    def tiers(self) -> list[int]:
        return list(range(1, rules.PLAYERS + 1))

    def tier_name(self, tier: int) -> str:
        return f"player_{tier}"

    def tier_words(self, tier: int) -> str:
        return f"Player {tier}'s game"

    def tier_size(self, tier: int) -> int:
        return rules.TIER_SIZE

    def child_tiers(self, tier: int) -> tuple[int, ...]:
        return ()

    def loopy(self, tier: int) -> bool:
        return True

    def player_tiers(self) -> list[int]:
        """The tier holding each player's values, in the order of :attr:`sides`."""
        return self.tiers()

    def tier_of(self, position: Position) -> int:
        """Player 1's tier (each player's tier holds the position at the same entry)."""
        return 1

    def index(self, position: Position) -> int:
        return int(rules.encode(position.side.code, np.array(position.squares, dtype=np.int64)))

    def position_at(self, tier: int, entry: int) -> Position | None:
        squares = np.empty(rules.PLAYERS, dtype=np.int64)
        mover = int(rules.decode(entry, squares))
        if rules.status(mover, squares, rules.GOAL) == rules.NOT_A_POSITION:
            return None
        return Position(Side.from_code(mover), *(int(s) for s in squares), self.jump)  # type: ignore[arg-type]

    def positions_in(self, tier: int) -> int:
        """The legal positions (each tier holds them all, in its player's game)."""
        return _legal_positions()

    def positions(self, tiers=None) -> int:
        """The legal positions of the game (every tier holds them all)."""
        return _legal_positions()

    def expand(self, tier: int) -> Expansion:
        size = rules.TIER_SIZE
        side = np.empty(size, dtype=np.int8)
        finished = np.empty(size, dtype=np.int32)
        counts = np.empty(size, dtype=np.int64)
        rules.expand(tier - 1, size, self.jump, rules.GOAL, rules.STEP, rules.BEYOND, side, finished,
                     counts, not_a_position(self.value_dtype), OPEN)
        starts = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        child_entry = np.empty(int(starts[-1]), dtype=np.int64)
        rules.children(size, self.jump, rules.STEP, rules.BEYOND, finished, starts, child_entry, OPEN)
        return Expansion((tier,), side, finished, starts, np.zeros(len(child_entry), dtype=np.int8),
                         child_entry)

    # --- presentation -------------------------------------------------------------------

    def geometry(self) -> dict:
        n = rules.SIDE
        return {
            "kind": "grid", "columns": n, "rows": n,
            "points": [{"name": NAMES[s], "x": s % n, "y": s // n} for s in range(rules.SQUARES)],
            "lines": [],
            "groups": [n] * n,
            # A page that knows no rules: each player's piece (a coloured disc), its goal,
            # and that the notation names the players' squares rather than every point.
            "pieces": {str(k + 1): {"side": side.value, "shape": f"racer-{k + 1}", "name": side.title}
                       for k, side in enumerate(Side)},
            "hands": False,
            "goals": {side.value: side.goal for side in Side},
            "writes": "squares",
        }

    def cells(self, position: Position) -> str:
        cells = ["."] * rules.SQUARES
        for k, square in enumerate(position.squares):
            cells[square] = str(k + 1)
        return "".join(cells)

    def board_text(self, position: Position, marked: Collection[str] = ()) -> str:
        """The board with coordinates, row 1 at the top: the players as 1 to 4, empty
        squares as '.'."""
        cells = self.cells(position)
        rows = [cells[r * rules.SIDE:(r + 1) * rules.SIDE] for r in range(rules.SIDE)]
        return grid_text(rows, files=FILES[:rules.SIDE], marked=marked)


_COUNT: list[int] = []


def _legal_positions() -> int:
    if not _COUNT:
        _COUNT.append(int(rules.count_positions(rules.GOAL)))
    return _COUNT[0]


__all__ = ["FourPlayerRace", "Move", "Position", "Side"]
