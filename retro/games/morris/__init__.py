"""The morris family: three men's morris (two variants) and six men's morris.

White moves first. Each player starts with their pieces in hand; while the player to
move has pieces in hand, a move places one on an empty point; when both hands are
empty, a move slides one of the mover's pieces to an adjacent empty point (no flying).
A player to move with no legal move loses. Play that never ends is a draw.

* **Three men's morris** (``three-mens-morris``, ``three-mens-morris-diagonal``): 3
  pieces each on the 9 points a1..c3; lines are the rows and columns, and in the
  diagonal variant the two diagonals (each corner then adjacent to b2 too). A player
  whose move makes three of their pieces stand on one line wins at once.
* **Six men's morris** (``six-mens-morris``): 6 pieces each on 16 points, two squares
  joined by four spokes: outer a1 c1 e1 e3 e5 c5 a5 a3, inner b2 c2 d2 d3 d4 c4 b4 b3.
  Mills are the sides of the squares. A move whose destination completes a mill of the
  mover's also removes one opponent piece, not one in a mill of the opponent's unless
  all are (none when the opponent has no piece on the board; one for two mills at
  once). A player with fewer than 3 pieces, on the board and in hand, has lost.

Every legal position is solved, the placement phase included: the hands decide the
side to move while pieces remain in hand (White when they are equal, Black when Black
holds one more); three men's morris excludes boards where both have a line, six men's
morris those where the side not to move has fewer than 3 pieces.

Notation: the side to move (``W``/``B``), White's and Black's pieces in hand, then the
points row by row from row 1 (``W`` white, ``B`` black, ``.`` empty):
``W 3 3 ... ... ...`` (three men's morris, rows of a1 b1 c1 / a2 b2 c2 / a3 b3 c3),
``W 6 6 ... ... .... ... ...`` (six men's morris: a1 c1 e1 / b2 c2 d2 / a3 b3 d3 e3 /
b4 c4 d4 / a5 c5 e5). Moves: a placement ``b2``, a slide ``b2-c2``, a removal appended
``b2-c2xd4`` (or ``b2xd4``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Collection
from math import comb

import numpy as np

from ...errors import (
    IllegalMoveError,
    MoveSyntaxError,
    NotationError,
    PositionError,
    RowCountError,
    RowLengthError,
    SideError,
    UnknownCharacterError,
    counted,
    quoted,
)
from ...values import not_a_position
from ..notation import invisible_character, position_tokens, tidy_move
from ..protocol import OPEN, Expansion, Game, whole_numbers
from ..protocol import Side as SideBase
from . import rules
from .boards import FILES, SIX, THREE, THREE_DIAGONAL, BoardSpec, board
from .index import Index, index, sides_to_move, tiers


class Side(SideBase):
    """White moves first."""

    WHITE = "white"
    BLACK = "black"

    @property
    def letter(self) -> str:
        return "W" if self is Side.WHITE else "B"

    @property
    def title(self) -> str:
        return "White" if self is Side.WHITE else "Black"


_POINT = r"[a-g][1-7]"
_MOVE_RE = re.compile(rf"({_POINT})(?:-?({_POINT}))?(?:x({_POINT}))?")


@dataclass(frozen=True, order=True)
class Move:
    """A placement (``b2``), a slide (``b2-c2``), each perhaps removing a piece (``xd4``)."""

    target: str
    source: str | None = None
    remove: str | None = None

    @classmethod
    def parse(cls, text: str) -> Move:
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'b2' or 'b2-c2', not {type(text).__name__}")
        match = _MOVE_RE.fullmatch(tidy_move(text))
        if match is None:
            raise MoveSyntaxError(f"{quoted(text.strip())} is not a move: write a placement like 'b2', a "
                                  "slide like 'b2-c2', and a removal after an x: 'b2-c2xd4'")
        if match[2] is None:
            return cls(match[1], None, match[3])
        return cls(match[2], match[1], match[3])

    def __str__(self) -> str:
        text = self.target if self.source is None else f"{self.source}-{self.target}"
        return text if self.remove is None else f"{text}x{self.remove}"


@dataclass(frozen=True)
class Position:
    """A morris position: its game, the side to move, both bitboards and both hands.

    Bit p of a bitboard is the p-th point of the game's board in the notation's order.
    """

    game: str
    side: Side
    white: int
    black: int
    white_hand: int
    black_hand: int

    def __post_init__(self) -> None:
        if not isinstance(self.game, str):
            raise TypeError(f"the game of a position must be a game's name, not {type(self.game).__name__}")
        whole_numbers(self, "white", "black", "white_hand", "black_hand")
        rules_of(self.game).check(self)

    @property
    def morris(self) -> Morris:
        """The game this position belongs to."""
        return rules_of(self.game)

    def __str__(self) -> str:
        b = self.morris.board
        cells = "".join("W" if self.white >> p & 1 else "B" if self.black >> p & 1 else "."
                        for p in range(b.size))
        groups, at = [], 0
        for length in b.spec.rows:
            groups.append(cells[at:at + length])
            at += length
        return f"{self.side.letter} {self.white_hand} {self.black_hand} {' '.join(groups)}"

    def __repr__(self) -> str:
        return f"Position.parse({str(self)!r})"

    def _finished(self) -> int:
        return self.morris.finished_code(self)

    def winner(self) -> Side | None:
        """The side that has won, or None while the game goes on."""
        value = self._finished()
        return None if value == OPEN else Side.from_code(0 if value & 1 else 1)

    def is_over(self) -> bool:
        return self._finished() != OPEN

    def legal_moves(self) -> list[Move]:
        """Every legal move of the side to move (none once the game is over)."""
        if self.is_over():
            return []
        g = self.morris
        rows = g.move_rows(self)
        names = g.board.names
        return [Move(names[t], None if s < 0 else names[s], None if r < 0 else names[r])
                for s, t, r in rows.tolist()]

    def play(self, move: Move | str) -> Position:
        """The position after ``move``; raise :class:`IllegalMoveError` if it is illegal."""
        if isinstance(move, str):
            move = Move.parse(move)
        elif not isinstance(move, Move):
            raise TypeError(f"expected a Move or move text like 'b2-c2', got {type(move).__name__}")
        if self.is_over():
            winner = self.winner()
            raise IllegalMoveError(f"the game is over ({winner.title} has won): no move {move} allowed")
        if move not in self.legal_moves():
            raise IllegalMoveError(self._why_illegal(move))
        g = self.morris
        number = {name: p for p, name in enumerate(g.board.names)}
        mine = self.white if self.side is Side.WHITE else self.black
        theirs = self.black if self.side is Side.WHITE else self.white
        hand = self.white_hand if self.side is Side.WHITE else self.black_hand
        if move.source is not None:
            mine ^= 1 << number[move.source]
        else:
            hand -= 1
        mine |= 1 << number[move.target]
        if move.remove is not None:
            theirs ^= 1 << number[move.remove]
        if self.side is Side.WHITE:
            return Position(self.game, Side.BLACK, mine, theirs, hand, self.black_hand)
        return Position(self.game, Side.WHITE, theirs, mine, self.white_hand, hand)

    def _why_illegal(self, move: Move) -> str:
        g = self.morris
        names = g.board.names
        for point in (move.target, move.source, move.remove):
            if point is not None and point not in names:
                return f"illegal move {move}: {point} is not a point of the {g.title} board"
        number = {name: p for p, name in enumerate(names)}
        mine = self.white if self.side is Side.WHITE else self.black
        theirs = self.black if self.side is Side.WHITE else self.white
        hand = self.white_hand if self.side is Side.WHITE else self.black_hand
        who = self.side.title
        if hand > 0 and move.source is not None:
            return (f"illegal move {move}: {who} has pieces in hand and must place one (write the point, "
                    f"like {self._legal_like(move)})")
        if hand == 0 and move.source is None:
            return f"illegal move {move}: {who} has no piece in hand; slide a piece, like {self._legal_like(move)}"
        if move.source is not None and not (mine >> number[move.source]) & 1:
            return f"illegal move {move}: {move.source} does not hold a piece of {who}"
        if (self.white | self.black) >> number[move.target] & 1:
            return f"illegal move {move}: {move.target} is not empty"
        if move.source is not None and not (int(g.board.neighbours[number[move.source]]) >> number[move.target]) & 1 \
                and not g.flies(self):
            return f"illegal move {move}: {move.source} and {move.target} are not adjacent"
        closing = [m for m in self.legal_moves()
                   if m.source == move.source and m.target == move.target]
        if move.remove is None and closing and closing[0].remove is not None:
            return (f"illegal move {move}: it closes a mill, so name the piece it removes, like "
                    f"{closing[0]}")
        if move.remove is not None and closing and closing[0].remove is None:
            return f"illegal move {move}: it closes no mill, so it removes nothing"
        if move.remove is not None and not (theirs >> number[move.remove]) & 1:
            return f"illegal move {move}: {move.remove} holds no piece of the opponent"
        if move.remove is not None:
            return f"illegal move {move}: {move.remove} stands in a mill, and other pieces do not"
        return f"illegal move {move}"

    def _legal_like(self, move: Move) -> Move:
        """A legal move to show as an example: one to the point ``move`` aimed at if
        there is one (then one removing the same piece), else the first legal move."""
        legal = self.legal_moves()
        same = [m for m in legal if m.target == move.target]
        return next((m for m in same if m.remove == move.remove), same[0] if same else legal[0])

    def symmetric_images(self) -> list[Position]:
        """The position under each of the board's symmetries (itself first)."""
        b = self.morris.board
        return [Position(self.game, self.side, b.image(self.white, g), b.image(self.black, g),
                         self.white_hand, self.black_hand) for g in range(len(b.symmetry))]


_GAMES: dict[str, Morris] = {}


@lru_cache(maxsize=None)
def _both_lines(spec: BoardSpec, white_on: int, black_on: int) -> int:
    """Boards with these numbers of pieces where both players have a line (few points:
    counted one by one)."""
    b = board(spec)
    lines = [int(line) for line in b.lines]
    count = 0
    for whites in combinations(range(b.size), white_on):
        white = sum(1 << p for p in whites)
        if not any(white & line == line for line in lines):
            continue
        rest = [p for p in range(b.size) if not white >> p & 1]
        for blacks in combinations(rest, black_on):
            black = sum(1 << p for p in blacks)
            count += any(black & line == line for line in lines)
    return count


def rules_of(name: str) -> Morris:
    """The morris game a position belongs to, by name."""
    game = _GAMES.get(name)
    if game is None:
        from .. import get

        game_name, _, variant = name.partition(" ")
        game = get(game_name, variant or None)
        if not isinstance(game, Morris):
            raise PositionError(f"{name} is not a morris game: the morris games are "
                                f"{', '.join(g.name for g in (ThreeMensMorris, ThreeMensMorrisDiagonal, SixMensMorris))}, "
                                "nine-mens-morris")
        _GAMES[name] = game  # the registry's instance, however the position was made
    return game


class Morris(Game):
    """A morris game: the board, the pieces each side has, and which rule a line follows."""

    spec: BoardSpec
    pieces: int
    lines_win: bool  # three men's morris; six men's morris removes a piece instead
    sides = Side
    family = "morris"
    cell_characters = "WB."
    hand_counts = 2  # White's and Black's pieces in hand
    value_dtype = np.uint8
    gzip_level = 6  # six men's morris: 2.04 MB at level 3, 1.89 MB at 6 (9: 1.88 MB, 4x the time)
    compressed_fraction = 0.4  # six men's morris: 0.35 over its tiers
    notation_example: str

    def __init__(self, variant: str = "") -> None:
        super().__init__(variant)
        # What a position records of its game (variants of one game differ in pieces).
        self.position_key = self.name if variant == self.variants[0] else f"{self.name} {variant}"
        self.board = board(self.spec)
        self.symmetries = len(self.board.symmetry)

    # --- the index, built on first use --------------------------------------------

    @property
    def tables(self) -> Index:
        return index(self.spec)

    @property
    def tier_table(self):
        return tiers(self.board.size, self.pieces, not self.lines_win)

    # --- positions ----------------------------------------------------------------

    def check_board(self, position: Position) -> None:
        """Raise a PositionError unless the side is a Side and the pieces lie on distinct
        points of the board."""
        if not isinstance(position.side, Side):
            raise SideError(f"side to move must be a morris Side, not {position.side!r}")
        full = self.board.full
        for bb in (position.white, position.black):
            if bb < 0 or bb & ~full:
                raise PositionError(f"a piece lies off the {self.title} board")
        if position.white & position.black:
            raise PositionError("a point holds both a white and a black piece")

    @staticmethod
    def check_totals(position: Position) -> None:
        """Raise a PositionError when a player has fewer pieces (board and hand) than the
        game allows: the side not to move at least 3, the side to move 2 (just lost)."""
        totals = (position.white.bit_count() + position.white_hand,
                  position.black.bit_count() + position.black_hand)
        other = 1 - position.side.code
        if totals[other] < 3 or totals[position.side.code] < 2:
            raise PositionError(f"{Side.from_code(other).title} has {counted(totals[other], 'piece')} and "
                                f"{position.side.title} {totals[position.side.code]}: the game "
                                "ends as soon as a player is left with 2")

    def check(self, position: Position) -> None:
        """Raise a PositionError unless ``position`` is a legal position of this game."""
        self.check_board(position)
        for name, hand, on in (("White", position.white_hand, position.white.bit_count()),
                               ("Black", position.black_hand, position.black.bit_count())):
            if not 0 <= hand <= self.pieces:
                # A count of thousands of digits cannot even be printed (Python's limit).
                shown = counted(hand, "piece") if abs(hand) < 10 ** 9 else "far too many pieces"
                raise PositionError(f"{name} has {shown} in hand: {self.title} has {self.pieces} each")
            if self.lines_win and hand + on != self.pieces:
                raise PositionError(f"{name} has {counted(on, 'piece')} on the board and {hand} in hand: "
                                    f"{self.title} has {self.pieces} each, none captured")
            if hand + on > self.pieces:
                raise PositionError(f"{name} has {counted(on, 'piece')} on the board and {hand} in hand: "
                                    f"more than the {self.pieces} each player has")
        sides = sides_to_move(position.white_hand, position.black_hand)
        if position.side.code not in sides:
            expected = "White" if sides == (0,) else "Black" if sides == (1,) else None
            if expected is None:
                raise SideError(f"with {position.white_hand} white and {position.black_hand} black "
                                "pieces in hand no one can be to move: they place in turn, White first")
            raise SideError(f"{position.side.title} is not to move: with {position.white_hand} white "
                            f"and {position.black_hand} black pieces in hand, {expected} places next")
        if not self.lines_win:
            self.check_totals(position)
        elif rules.has_line(position.white, self.board.lines) and rules.has_line(position.black, self.board.lines):
            raise PositionError("both players have a line: not a position")

    def parse(self, text: str) -> Position:
        if not isinstance(text, str):
            raise NotationError(f"a position must be text, not {type(text).__name__}")
        tokens = position_tokens(text)
        rows = self.board.spec.rows
        if not tokens:
            raise SideError("empty position: expected W or B, the pieces in hand, then the rows")
        if tokens[0] not in ("W", "B"):
            raise SideError(f"unknown side to move {quoted(tokens[0])}: expected W or B")
        hands = [self._hand(who, token) for who, token in zip(("White", "Black"), tokens[1:3])
                 if not set(token) <= set(self.cell_characters)]
        if len(hands) < 2:
            raise NotationError(f"after the side to move, write White's and Black's pieces in hand, "
                                f"like '{self.notation_example}'")
        groups = tokens[3:]
        invisible = invisible_character(groups)
        if invisible is not None:
            raise UnknownCharacterError(self._unknown_character(*invisible))
        if len(groups) != len(rows):
            raise RowCountError(f"{counted(len(groups), 'row')}: the {self.title} board has {len(rows)} "
                                f"(of {', '.join(map(str, rows))} points)")
        cells = []
        for number, (group, length) in enumerate(zip(groups, rows), start=1):
            if len(group) != length:
                raise RowLengthError(f"row {number} has {counted(len(group), 'point')}: it has {length}")
            for char in group:
                if char not in "WB.":
                    raise UnknownCharacterError(self._unknown_character(number, char))
            cells.extend(group)
        white = sum(1 << p for p, c in enumerate(cells) if c == "W")
        black = sum(1 << p for p, c in enumerate(cells) if c == "B")
        return Position(self.position_key, Side.WHITE if tokens[0] == "W" else Side.BLACK, white, black,
                        *hands)

    def _hand(self, who: str, token: str) -> int:
        """A count of pieces in hand as the notation writes it: ASCII digits only, and
        never thousands of them converted (Python refuses past 4,300)."""
        if not (token.isascii() and token.isdigit()):
            raise NotationError(f"{who}'s pieces in hand must be a number from 0 to {self.pieces} in "
                                f"the digits 0-9, not {quoted(token)}")
        digits = token.lstrip("0") or "0"
        if len(digits) > 9:
            raise PositionError(f"{who} has a {len(digits):,}-digit number of pieces in hand: "
                                f"{self.title} has {self.pieces} each")
        return int(digits)

    @staticmethod
    def _unknown_character(number: int, char: str) -> str:
        return f"unknown character {quoted(char)} in row {number}: use W (white), B (black) or . (empty)"

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def for_position(self, position: Position) -> Morris:
        # The morris games share one Position class: the position names its game.
        return rules_of(position.game)

    def start(self) -> Position:
        return Position(self.position_key, Side.WHITE, 0, 0, self.pieces, self.pieces)

    def row_layouts(self) -> list[tuple[int, ...]]:
        return [self.board.spec.rows]

    def finished_code(self, position: Position) -> int:
        """The value of a finished position, OPEN while the game goes on (see
        :func:`rules.finished_value`)."""
        return int(rules.finished_value(position.side.code, position.white, position.black,
                                        position.white_hand, position.black_hand, self.lines_win,
                                        self.board.neighbours, self.board.lines))

    def move_rows(self, position: Position) -> np.ndarray:
        """The legal moves of an open position as rows (source or -1, target, removed or -1)."""
        out = np.empty((16 * 16 * 8, 3), dtype=np.int64)
        b = self.board
        count = rules.legal_moves(position.side.code, position.white, position.black,
                                  position.white_hand, position.black_hand, self.lines_win,
                                  b.neighbours, b.lines, b.lines_through, b.size, out)
        return out[:count]

    def flies(self, position: Position) -> bool:
        """Whether the side to move may move a piece to any empty point."""
        return False

    def finished_value(self, position: Position) -> int:
        value = position._finished()
        if value == OPEN:
            raise ValueError(f"{position} is not finished")
        return value

    def finished_reason(self, position: Position) -> str:
        winner = position.winner()
        loser = winner.other
        if self.lines_win and rules.has_line(position.white if winner is Side.WHITE else position.black,
                                             self.board.lines):
            return f"{winner.title} has three in a line: {winner.title} has won"
        total = (position.white.bit_count() + position.white_hand if loser is Side.WHITE
                 else position.black.bit_count() + position.black_hand)
        if not self.lines_win and total < 3:
            return f"{loser.title} is left with {total} pieces: {winner.title} has won"
        return f"{loser.title} has no legal move: {winner.title} has won"

    # --- tiers --------------------------------------------------------------------

    def tiers(self) -> list:
        return list(self.tier_table.keys)

    def tier_name(self, tier) -> str:
        wh, bh, wb, bb = tier
        return f"hand_{wh}_{bh}_board_{wb}_{bb}"

    def tier_size(self, tier) -> int:
        wh, bh, wb, bb = tier
        number = self.tier_table.tier_of[tier]
        return (len(self.tier_table.sides[number]) * int(self.tables.class_count[wb])
                * comb(self.board.size - wb, bb))

    def positions_in(self, tier) -> int:
        wh, bh, wb, bb = tier
        sides = self.tier_table.sides[self.tier_table.tier_of[tier]]
        boards = comb(self.board.size, wb) * comb(self.board.size - wb, bb)
        if self.lines_win:  # boards where both players have a line are not positions
            boards -= _both_lines(self.spec, wb, bb)
        return len(sides) * boards

    def child_tiers(self, tier) -> tuple:
        wh, bh, wb, bb = tier
        sides = self.tier_table.sides[self.tier_table.tier_of[tier]]
        found = []
        for side in sides:
            if side == 0:
                placed = (wh - 1, bh, wb + 1, bb) if wh > 0 else None
                removed_from = bb
            else:
                placed = (wh, bh - 1, wb, bb + 1) if bh > 0 else None
                removed_from = wb
            after = placed if placed is not None else tier
            candidates = [after]
            if not self.lines_win and removed_from > 0:
                w2, b2, on_w, on_b = after
                candidates.append((w2, b2, on_w, on_b - 1) if side == 0 else (w2, b2, on_w - 1, on_b))
            for candidate in candidates:
                if candidate != tier and self._exists(candidate) and candidate not in found:
                    found.append(candidate)
        return tuple(found)

    def _exists(self, key) -> bool:
        shape = self.tier_table.tier_of.shape
        return all(0 <= k < n for k, n in zip(key, shape)) and self.tier_table.tier_of[key] >= 0

    def loopy(self, tier) -> bool:
        return tier[0] == tier[1] == 0

    def tier_of(self, position: Position):
        return (position.white_hand, position.black_hand, position.white.bit_count(),
                position.black.bit_count())

    def index(self, position: Position) -> int:
        t, ix = self.tier_table, self.tables
        _, entry = rules.entry_of(position.side.code, position.white, position.black,
                                  position.white_hand, position.black_hand, ix.white_class,
                                  ix.white_sym, ix.class_base, ix.class_count, ix.free_index,
                                  ix.rank, ix.binomial, ix.size, self.board.symmetry_bytes,
                                  t.tier_of, t.tier_slots)
        return int(entry)

    def index_many(self, side, white, black, white_hand, black_hand) -> tuple[list, np.ndarray]:
        """The tiers and entries of many positions given as arrays (bit p = point p):
        ``(tier keys, entries)``. The positions must be legal (nothing is checked)."""
        t, ix = self.tier_table, self.tables
        arrays = [np.ascontiguousarray(a, dtype=np.int64) for a in (side, white, black, white_hand, black_hand)]
        numbers = np.empty(len(arrays[0]), dtype=np.int64)
        entries = np.empty(len(arrays[0]), dtype=np.int64)
        rules.entries_of(*arrays, ix.white_class, ix.white_sym, ix.class_base, ix.class_count,
                         ix.free_index, ix.rank, ix.binomial, ix.size, self.board.symmetry_bytes,
                         t.tier_of, t.tier_slots, numbers, entries)
        return [t.keys[n] for n in numbers.tolist()], entries

    def position_at(self, tier, entry: int) -> Position | None:
        wh, bh, wb, bb = tier
        sides = np.array(self.tier_table.sides[self.tier_table.tier_of[tier]], dtype=np.int64)
        ix = self.tables
        side, white, black = rules.board_at(int(entry), wb, bb, sides, ix.class_base,
                                            ix.class_count, ix.representatives, ix.free_points,
                                            ix.masks, ix.mask_base, ix.binomial, ix.size)
        try:
            return Position(self.position_key, Side.from_code(int(side)), int(white), int(black), wh, bh)
        except PositionError:
            return None

    # --- solving ------------------------------------------------------------------

    def _kernel_arguments(self, tier):
        wh, bh, wb, bb = tier
        t = self.tier_table
        sides = np.array(t.sides[t.tier_of[tier]], dtype=np.int64)
        return wh, bh, wb, bb, sides, self.tier_size(tier)

    def expand(self, tier) -> Expansion:
        t, ix, b = self.tier_table, self.tables, self.board
        wh, bh, wb, bb, sides, size = self._kernel_arguments(tier)
        slots = (tier, *self.child_tiers(tier))
        slot_of_tier = np.full(len(t.keys), -1, dtype=np.int8)
        for slot, key in enumerate(slots):
            slot_of_tier[t.tier_of[key]] = slot
        dtype = self.value_dtype
        side = np.empty(size, dtype=np.int8)
        finished = np.empty(size, dtype=np.int32)
        counts = np.empty(size, dtype=np.int64)
        rules.expand_counts(wh, bh, wb, bb, sides, size, self.lines_win, b.neighbours, b.lines,
                            b.lines_through, ix.white_class, ix.white_sym, ix.class_base,
                            ix.class_count, ix.representatives, ix.free_points, ix.free_index,
                            ix.masks, ix.mask_base, ix.rank, ix.binomial, ix.size,
                            b.symmetry_bytes, t.tier_of, t.tier_slots, slot_of_tier,
                            not_a_position(dtype), side, finished, counts)
        starts = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        child_tier = np.empty(int(starts[-1]), dtype=np.int8)
        child_entry = np.empty(int(starts[-1]), dtype=np.int64)
        rules.expand_children(wh, bh, wb, bb, sides, size, self.lines_win, b.neighbours, b.lines,
                              b.lines_through, ix.white_class, ix.white_sym, ix.class_base,
                              ix.class_count, ix.representatives, ix.free_points, ix.free_index,
                              ix.masks, ix.mask_base, ix.rank, ix.binomial, ix.size,
                              b.symmetry_bytes, t.tier_of, t.tier_slots, slot_of_tier, finished,
                              starts, child_tier, child_entry)
        return Expansion(slots, side, finished, starts, child_tier, child_entry)

    def tier_sides(self, tier) -> np.ndarray:
        wh, bh, wb, bb, sides, size = self._kernel_arguments(tier)
        per_side = size // len(sides)
        return np.repeat(sides.astype(np.int8), per_side)

    def symmetry_classes(self, tier) -> np.ndarray:
        t, ix = self.tier_table, self.tables
        wh, bh, wb, bb, sides, size = self._kernel_arguments(tier)
        out = np.empty(size, dtype=np.int64)
        rules.classes(wh, bh, wb, bb, sides, size, ix.white_class, ix.white_sym, ix.class_base,
                      ix.class_count, ix.representatives, ix.free_points, ix.free_index, ix.masks,
                      ix.mask_base, ix.rank, ix.binomial, ix.size, self.board.symmetry_bytes,
                      t.tier_of, t.tier_slots, out)
        return out

    # --- presentation ---------------------------------------------------------------

    def geometry(self) -> dict:
        b = self.board
        span = max(max(x for x, _ in b.coordinates), max(y for _, y in b.coordinates)) + 1
        names = b.names
        return {
            "kind": "points", "columns": span, "rows": span,
            "points": [{"name": name, "x": x, "y": y} for name, (x, y) in zip(names, b.coordinates)],
            "lines": [[a, c] for a, c in b.spec.edges],
            "mills": [list(line) for line in b.spec.lines],
            "groups": list(b.spec.rows),
            "pieces": {"W": {"side": Side.WHITE.value, "shape": "light", "name": "white piece"},
                       "B": {"side": Side.BLACK.value, "shape": "dark", "name": "black piece"}},
            "hands": True,
            "pieces_per_side": self.pieces,
        }

    def marked_lines(self, position: Position) -> list[dict]:
        """The lines (three men's morris) or mills (six men's) each side holds."""
        b = self.board
        out = []
        for side, pieces in ((Side.WHITE, position.white), (Side.BLACK, position.black)):
            for line, names in zip(b.lines.tolist(), b.spec.lines):
                if pieces & line == line:
                    out.append({"side": side.value, "points": list(names)})
        return out

    def cells(self, position: Position) -> str:
        return "".join(str(position).split()[3:])

    def board_text(self, position: Position, marked: Collection[str] = ()) -> str:
        """The board with its lines (``-``, ``|``, ``\\``, ``/`` between adjacent points,
        as the page draws them), coordinates, the points in ``marked`` in brackets, and
        the pieces in hand::

                a   b   c
             1  W---.---B
                |   |   |
             2  .--[W]--.
                |   |   |
             3  .---.---B
            in hand: White 1, Black 1
        """
        b = self.board
        span = max(max(x for x, _ in b.coordinates), max(y for _, y in b.coordinates)) + 1
        # A point every 4 characters and every other line, one free column on each side
        # for the brackets.
        canvas = [[" "] * (4 * span - 1) for _ in range(2 * span - 1)]
        at = {name: (2 * y, 4 * x + 1) for name, (x, y) in zip(b.names, b.coordinates)}
        for one, other in b.spec.edges:
            (row, col), (row2, col2) = sorted((at[one], at[other]))
            if row == row2:
                canvas[row][col + 1:col2] = "-" * (col2 - col - 1)
            elif col == col2:
                for r in range(row + 1, row2):
                    canvas[r][col] = "|"
            else:  # a diagonal between neighbouring points of the grid
                canvas[row + 1][(col + col2) // 2] = "\\" if col2 > col else "/"
        for p, name in enumerate(b.names):
            row, col = at[name]
            canvas[row][col] = "W" if position.white >> p & 1 else "B" if position.black >> p & 1 else "."
            if name in marked:
                canvas[row][col - 1], canvas[row][col + 1] = "[", "]"
        lines = ["    " + "   ".join(FILES[:span])]
        for row, cells in enumerate(canvas):
            label = f"{row // 2 + 1:>2} " if row % 2 == 0 else "   "
            lines.append((label + "".join(cells)).rstrip())
        lines.append(f"in hand: White {position.white_hand}, Black {position.black_hand}")
        return "\n".join(lines)


class ThreeMensMorris(Morris):
    """Three men's morris: 3 pieces each on a 3×3 grid of points; three on a line win."""

    name = "three-mens-morris"
    title = "Three men's morris"
    description = "3 pieces each on a 3x3 grid, placed then slid orthogonally; a line of three wins"
    spec = THREE
    pieces = 3
    lines_win = True
    notation_example = "W 3 3 ... ... ..."
    references = ({"title": "Three men's morris (Wikipedia)",
                   "url": "https://en.wikipedia.org/wiki/Three_men%27s_morris"},)
    rules = ("White moves first. Each player has 3 pieces in hand; while the player to move "
             "has pieces in hand a move places one on an empty point of the 3x3 grid a1..c3, "
             "then a move slides one of the mover's pieces to an orthogonally adjacent empty "
             "point. A player whose move makes three of their pieces stand on one row or "
             "column wins at once; a player to move with no legal move loses; play that never "
             "ends is a draw.")
    notation = ("Positions are written like 'W 3 3 ... .W. ..B': the side to move (W or B), "
                "White's and Black's pieces in hand, then one group per row from row 1, columns "
                "a to c; W white, B black, . empty. Moves: a placement 'b2', a slide 'b2-c2'.")


class ThreeMensMorrisDiagonal(ThreeMensMorris):
    """Three men's morris with the diagonals: lines and moves along them too."""

    name = "three-mens-morris-diagonal"
    title = "Three men's morris (diagonals)"
    description = ("three men's morris with the two diagonals as lines, and moves along them "
                   "(each corner adjacent to b2)")
    spec = THREE_DIAGONAL
    rules = ("White moves first. Each player has 3 pieces in hand; while the player to move "
             "has pieces in hand a move places one on an empty point of the 3x3 grid a1..c3, "
             "then a move slides one of the mover's pieces to an adjacent empty point, "
             "orthogonally or along a diagonal (each corner is adjacent to b2). A player whose "
             "move makes three of their pieces stand on one row, column or diagonal wins at "
             "once; a player to move with no legal move loses; play that never ends is a draw.")


class SixMensMorris(Morris):
    """Six men's morris: 6 pieces each on two squares; a mill removes an opponent piece."""

    name = "six-mens-morris"
    title = "Six men's morris"
    description = "6 pieces each on two squares joined by spokes; mills remove pieces, no flying"
    spec = SIX
    pieces = 6
    lines_win = False
    notation_example = "W 6 6 ... ... .... ... ..."
    references = (
        {"title": "Nine men's morris and its smaller forms (Wikipedia)",
         "url": "https://en.wikipedia.org/wiki/Nine_men%27s_morris"},
        {"title": "R. Gasser, Solving Nine Men's Morris (1996)",
         "url": "https://library.slmath.org/books/Book29/files/gasser.pdf"},
    )
    rules = ("White moves first. Each player has 6 pieces in hand, placed alternately on the "
             "16 points of two concentric squares joined by four spokes; then pieces slide to "
             "adjacent empty points (no flying). A move whose destination completes a mill (a "
             "side of a square) of the mover's removes one opponent piece not in a mill, or "
             "any if all are (one even for two mills). A player with fewer than 3 pieces on the "
             "board and in hand together, or with no legal move when to move, loses; play that "
             "never ends is a draw.")
    notation = ("Positions are written like 'W 6 6 ... ... .... ... ...': the side to move (W or "
                "B), White's and Black's pieces in hand, then the points row by row from row 1: "
                "a1 c1 e1 / b2 c2 d2 / a3 b3 d3 e3 / b4 c4 d4 / a5 c5 e5; W white, B black, . "
                "empty. Moves: a placement 'b2', a slide 'b2-c2', a removal appended 'b2-c2xd4'.")


__all__ = ["Move", "Position", "Side", "SixMensMorris", "ThreeMensMorris", "ThreeMensMorrisDiagonal"]
