"""Positions, moves and retro's text notation.

A position prints as ``M XXXXO XXXXX XXOXX XXXXX OXXXX``: the side to move (``M`` for
the musketeers, ``E`` for the enemy), then one group per row starting with row 1,
columns a→e, where ``O`` is a musketeer, ``X`` an enemy man and ``.`` an empty square.
The board size follows from the group length (3, 4 or 5). Moves print as ``e1-d1``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from . import rules
from ..protocol import Side as SideBase
from ..protocol import whole_numbers
from ..notation import invisible_character, position_tokens, tidy_move
from ...errors import (  # re-exported: their historic home
    BoardSizeError,
    IllegalMoveError,
    MoveSyntaxError,
    MusketeerCountError,
    NotationError,
    OverlapError,
    PositionError,
    RowCountError,
    RowLengthError,
    SideError,
    UnknownCharacterError,
)
from ...errors import counted, quoted

FILES = "abcde"
MUSKETEER_CHAR, ENEMY_CHAR, EMPTY_CHAR = "O", "X", "."


class Side(SideBase):
    """The two players. The value is the name used in outcomes (``"musketeers"``)."""

    MUSKETEERS = "musketeers"
    ENEMY = "enemy"

    @property
    def letter(self) -> str:
        """``M`` or ``E``, as in the notation."""
        return "M" if self is Side.MUSKETEERS else "E"

    @property
    def title(self) -> str:
        """How a sentence names the side: ``the musketeers``, ``the enemy``."""
        return "the musketeers" if self is Side.MUSKETEERS else "the enemy"

    @property
    def plural(self) -> bool:
        return self is Side.MUSKETEERS

    @property
    def code(self) -> int:
        """0 for the musketeers, 1 for the enemy (the code used by jitted kernels)."""
        return rules.MUSKETEERS if self is Side.MUSKETEERS else rules.ENEMY

    @property
    def other(self) -> Side:
        return Side.ENEMY if self is Side.MUSKETEERS else Side.MUSKETEERS

    @classmethod
    def from_code(cls, code: int) -> Side:
        return cls.MUSKETEERS if code == rules.MUSKETEERS else cls.ENEMY


def square_name(square: int, size: int) -> str:
    """Name of square index ``square`` (``row * size + col``), e.g. ``e1``."""
    row, col = divmod(square, size)
    return f"{FILES[col]}{row + 1}"


def square_index(name: str, size: int) -> int:
    """Square index of a name like ``e1`` on a ``size``×``size`` board."""
    index = _SQUARE_INDEX[size].get(name) if size in _SQUARE_INDEX else None
    if index is None:
        raise IllegalMoveError(f"square {quoted(name)} is not on the {size}x{size} board")
    return index


# Looked up, not computed: front ends name thousands of squares and moves a second.
_SQUARE_NAMES = {n: tuple(square_name(s, n) for s in range(n * n)) for n in rules.SIZES}
_SQUARE_INDEX = {n: {name: s for s, name in enumerate(names)} for n, names in _SQUARE_NAMES.items()}


_MOVE_RE = re.compile(r"([a-e])([1-5])[-x]?([a-e])([1-5])")


@dataclass(frozen=True, order=True)
class Move:
    """A move from one square to an orthogonally adjacent one, e.g. ``e1-d1``."""

    source: str
    target: str

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse ``e1-d1``; raise :class:`MoveSyntaxError` if the text is not a move."""
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'e1-d1', not {type(text).__name__}")
        match = _MOVE_RE.fullmatch(tidy_move(text))
        if match is None:
            raise MoveSyntaxError(f"{quoted(text.strip())} is not a move: write it like 'e1-d1'")
        return cls(match[1] + match[2], match[3] + match[4])

    def __str__(self) -> str:
        text = self.__dict__.get("_text")
        if text is None:  # moves are shared objects (see between): print each once
            text = self.__dict__["_text"] = f"{self.source}-{self.target}"
        return text

    @classmethod
    def between(cls, source: int, target: int, size: int) -> Move:
        """The move between two square indices (one shared object per pair and size)."""
        key = (size, source, target)
        move = _MOVES.get(key)
        if move is None:
            names = _SQUARE_NAMES[size]
            move = _MOVES[key] = cls(names[source], names[target])
        return move


_MOVES: dict[tuple[int, int, int], Move] = {}


@dataclass(frozen=True)
class Position:
    """A position: side to move, musketeer and enemy bitboards, board size.

    Bit ``row * size + col`` of a bitboard stands for row ``row + 1``, column
    ``"abcde"[col]``. Positions are immutable and hashable.
    """

    side: Side
    musketeers: int
    enemies: int
    size: int = rules.DEFAULT_SIZE

    def __post_init__(self) -> None:
        # Accept numpy integers, but keep plain ints so positions hash and compare simply.
        whole_numbers(self, "musketeers", "enemies", "size")
        if self.size not in rules.SIZES:
            raise BoardSizeError(f"board size {self.size} is not supported: use 3, 4 or 5")
        if not isinstance(self.side, Side):
            raise SideError(f"side to move must be a Side, not {self.side!r}")
        full = (1 << (self.size * self.size)) - 1
        if (self.musketeers | self.enemies) & ~full or self.musketeers < 0 or self.enemies < 0:
            raise OverlapError(f"a piece lies off the {self.size}x{self.size} board")
        if self.musketeers & self.enemies:
            raise OverlapError("a square holds both a musketeer and an enemy man")
        count = self.musketeers.bit_count()
        if count != rules.MUSKETEER_COUNT:
            raise MusketeerCountError(f"the position has {counted(count, 'musketeer')}, it needs exactly 3")

    # --- notation -------------------------------------------------------------

    @classmethod
    def parse(cls, text: str) -> Position:
        """Parse ``M XXXXO XXXXX XXOXX XXXXX OXXXX``.

        Raises a :class:`PositionError` subclass naming the problem for anything else.
        """
        if not isinstance(text, str):
            raise NotationError(f"a position must be text, not {type(text).__name__}")
        # The common case, the canonical text, by whole-row lookups; then any other
        # spelling notation.py accepts (underscores, lower case, ...).
        position = cls._parse_quickly(text.split())
        if position is not None:
            return position
        tokens = position_tokens(text)
        return cls._parse_quickly(tokens) or cls._parse_slowly(tokens)

    @classmethod
    def _parse_quickly(cls, tokens: list[str]) -> Position | None:
        rows = _ROW_BITS.get(len(tokens) - 1)
        if rows is None or tokens[0] not in _SIDES:
            return None
        n = len(tokens) - 1
        musketeers = enemies = 0
        shift = 0
        for token in tokens[1:]:
            bits = rows.get(token)
            if bits is None:
                return None
            musketeers |= bits[0] << shift
            enemies |= bits[1] << shift
            shift += n
        if musketeers.bit_count() != rules.MUSKETEER_COUNT:
            return None
        return cls._make(_SIDES[tokens[0]], musketeers, enemies, n)

    @classmethod
    def _parse_slowly(cls, tokens: list[str]) -> Position:
        """Parse, or say precisely what is wrong (the first problem found)."""
        if not tokens:
            raise SideError("empty position: expected M or E, then one group per row")
        side_token, rows = tokens[0], tokens[1:]
        if side_token not in ("M", "E"):
            if set(side_token) <= set("OX."):
                raise SideError("missing side to move: start the position with M or E")
            raise SideError(f"unknown side to move {quoted(side_token)}: expected M or E")
        if not rows:
            raise RowCountError("no rows after the side to move")
        invisible = invisible_character(rows)
        if invisible is not None:
            raise UnknownCharacterError(_unknown_character(*invisible))
        size = len(rows[0])
        for number, row in enumerate(rows, start=1):
            if len(row) != size:
                raise RowLengthError(
                    f"row {number} has {counted(len(row), 'square')} but row 1 has {size}"
                )
        for number, row in enumerate(rows, start=1):
            for char in row:
                if char not in "OX.":
                    raise UnknownCharacterError(_unknown_character(number, char))
        if size not in rules.SIZES:
            raise BoardSizeError(f"rows of {size} squares: boards are 3x3, 4x4 or 5x5")
        if len(rows) != size:
            raise RowCountError(
                f"{counted(len(rows), 'row')} of {size} squares: a {size}x{size} board needs {size} rows"
            )
        musketeers = enemies = 0
        for r, row in enumerate(rows):
            for c, char in enumerate(row):
                if char == MUSKETEER_CHAR:
                    musketeers |= 1 << (r * size + c)
                elif char == ENEMY_CHAR:
                    enemies |= 1 << (r * size + c)
        side = Side.MUSKETEERS if side_token == "M" else Side.ENEMY
        return cls(side, musketeers, enemies, size)

    @classmethod
    def _make(cls, side: Side, musketeers: int, enemies: int, size: int) -> Position:
        """A position from values already known to be valid (no checks: internal use)."""
        position = object.__new__(cls)
        position.__dict__.update(side=side, musketeers=musketeers, enemies=enemies, size=size)
        return position

    def __str__(self) -> str:
        n = self.size
        texts, mask = _ROW_TEXT[n], (1 << n) - 1
        m, e = self.musketeers, self.enemies
        rows = [texts[(((m >> shift) & mask) << n) | ((e >> shift) & mask)]
                for shift in range(0, n * n, n)]
        return f"{self.side.letter} {' '.join(rows)}"

    def __repr__(self) -> str:
        return f"Position.parse({str(self)!r})"

    @classmethod
    def start(cls, board: int = rules.DEFAULT_SIZE) -> Position:
        """The standard start: musketeers on e1, c3 and a5, enemy men everywhere else.

        On smaller boards the musketeers take the same places relative to the board:
        the two ends of the anti-diagonal (last column of row 1, column a of the last
        row) and the centre square (b2 on 3×3, c3 on 4×4).
        """
        if board not in rules.SIZES:
            raise BoardSizeError(f"board size {board} is not supported: use 3, 4 or 5")
        n = board
        centre = n // 2
        musketeers = (1 << (n - 1)) | (1 << (centre * n + centre)) | (1 << ((n - 1) * n))
        full = (1 << (n * n)) - 1
        return cls(Side.MUSKETEERS, musketeers, full & ~musketeers, n)

    # --- rules ---------------------------------------------------------------

    @property
    def enemy_count(self) -> int:
        """Number of enemy men on the board (the position's layer)."""
        return self.enemies.bit_count()

    def musketeer_squares(self) -> tuple[str, ...]:
        """Names of the musketeers' squares in square order, e.g. ``('e1', 'c3', 'a5')``."""
        return tuple(square_name(s, self.size) for s in _squares(self.musketeers))

    def enemy_squares(self) -> tuple[str, ...]:
        """Names of the enemy men's squares in square order."""
        return tuple(square_name(s, self.size) for s in _squares(self.enemies))

    def winner(self) -> Side | None:
        """The side that has won, or ``None`` while the game goes on."""
        code = rules.winner(self.side.code, self.musketeers, self.enemies, rules.board(self.size))
        return None if code == rules.NO_WINNER else Side.from_code(code)

    def is_over(self) -> bool:
        """True when the game has ended (see :meth:`winner`)."""
        return self.winner() is not None

    def legal_moves(self) -> list[Move]:
        """Every legal move for the side to move (none once the game is over)."""
        b = rules.board(self.size)
        out = np.empty((4 * b.squares, 2), dtype=np.int64)
        count = rules.legal_moves(self.side.code, self.musketeers, self.enemies, b, out)
        between, n = Move.between, self.size
        return [between(s, t, n) for s, t in out[:count].tolist()]

    def play(self, move: Move | str) -> Position:
        """The position after ``move``; raise :class:`IllegalMoveError` if it is illegal."""
        if isinstance(move, str):
            move = Move.parse(move)
        elif not isinstance(move, Move):
            raise TypeError(f"expected a Move or move text like 'e1-d1', got {type(move).__name__}")
        source, target = square_index(move.source, self.size), square_index(move.target, self.size)
        status, musketeers, enemies = rules.checked_play(
            self.side.code, self.musketeers, self.enemies, source, target, rules.board(self.size))
        if status == rules.GAME_OVER:
            winner = self.winner()
            raise IllegalMoveError(f"the game is over ({winner.value} won): no move {move} allowed")
        if status == rules.ILLEGAL:
            raise IllegalMoveError(self._why_illegal(move))
        return Position._make(self.side.other, int(musketeers), int(enemies), self.size)

    def _why_illegal(self, move: Move) -> str:
        source = square_index(move.source, self.size)
        target = square_index(move.target, self.size)
        own = self.musketeers if self.side is Side.MUSKETEERS else self.enemies
        who = "a musketeer" if self.side is Side.MUSKETEERS else "an enemy man"
        if not (own >> source) & 1:
            return f"illegal move {move}: {move.source} does not hold {who}, and the {self.side.value} are to move"
        sr, sc = divmod(source, self.size)
        tr, tc = divmod(target, self.size)
        if abs(sr - tr) + abs(sc - tc) != 1:
            return f"illegal move {move}: pieces move one square up, down, left or right"
        if self.side is Side.MUSKETEERS:
            return f"illegal move {move}: a musketeer may only move onto an enemy man"
        return f"illegal move {move}: an enemy man may only move onto an empty square"

    def symmetric_images(self) -> list[Position]:
        """The position under each of the 8 symmetries of the board (identity first)."""
        b = rules.board(self.size)
        return [
            Position(
                self.side,
                int(rules.transform(self.musketeers, sym, b)),
                int(rules.transform(self.enemies, sym, b)),
                self.size,
            )
            for sym in range(8)
        ]


def _row_tables(n: int) -> tuple[dict[str, tuple[int, int]], tuple[str, ...]]:
    """Every row of n squares: text -> (musketeer bits, enemy bits), and back by
    ``(musketeer bits << n) | enemy bits`` (overlapping bits never occur there)."""
    bits: dict[str, tuple[int, int]] = {}
    texts = []
    for index in range(1 << (2 * n)):
        m, e = index >> n, index & ((1 << n) - 1)
        row = "".join(MUSKETEER_CHAR if m >> c & 1 else ENEMY_CHAR if e >> c & 1 else EMPTY_CHAR
                      for c in range(n))
        texts.append(row)
        if not m & e:
            bits[row] = (m, e)
    return bits, tuple(texts)


_ROW_BITS, _ROW_TEXT = {}, {}
for _n in rules.SIZES:
    _ROW_BITS[_n], _ROW_TEXT[_n] = _row_tables(_n)
_SIDES = {"M": Side.MUSKETEERS, "E": Side.ENEMY}


def parse_canonical(texts: list[str | None]) -> dict[int, tuple[np.ndarray, ...]]:
    """Parse the texts that are positions in canonical notation, a whole array at once.

    Canonical is exactly what ``str(position)`` prints: ``M`` or ``E``, then one group
    per row, single spaces, ``O``/``X``/``.``, exactly three musketeers. For those
    texts the result is what :meth:`Position.parse` gives, about 20 times faster, for
    batches; anything else (None, other spacing, any error) is left out, for
    :meth:`Position.parse` to parse or to explain.

    Returns ``{size: (index, side, musketeers, enemies, enemy_men)}``, int64 arrays:
    the indices in ``texts`` of the canonical positions of that board size, and
    their side code (0 musketeers, 1 enemy), bitboards and enemy counts.
    """
    lengths = {1 + n * (n + 1): n for n in rules.SIZES}
    groups: dict[int, list[int]] = {}
    for i, text in enumerate(texts):
        if text is not None and len(text) in lengths and text.isascii():
            groups.setdefault(lengths[len(text)], []).append(i)
    parsed = {}
    for n, index in groups.items():
        width = 1 + n * (n + 1)
        rows = np.frombuffer("".join([texts[i] for i in index]).encode("ascii"),
                             dtype=np.uint8).reshape(-1, width)
        gaps = np.arange(1, width, n + 1)
        cells = rows[:, [g + 1 + c for g in gaps for c in range(n)]]
        musketeer, enemy = cells == ord(MUSKETEER_CHAR), cells == ord(ENEMY_CHAR)
        ok = (((rows[:, 0] == ord("M")) | (rows[:, 0] == ord("E")))
              & (rows[:, gaps] == ord(" ")).all(axis=1)
              & (musketeer | enemy | (cells == ord(EMPTY_CHAR))).all(axis=1)
              & (np.count_nonzero(musketeer, axis=1) == rules.MUSKETEER_COUNT))
        parsed[n] = (np.asarray(index, dtype=np.int64)[ok],
                     (rows[ok, 0] == ord("E")).astype(np.int64),
                     _bitboards(musketeer[ok]), _bitboards(enemy[ok]),
                     np.count_nonzero(enemy[ok], axis=1).astype(np.int64))
    return parsed


def _bitboards(cells: np.ndarray) -> np.ndarray:
    """int64 bitboards of boolean rows (cell i is bit i)."""
    packed = np.packbits(cells, axis=1, bitorder="little")
    wide = np.zeros((len(cells), 8), dtype=np.uint8)
    wide[:, :packed.shape[1]] = packed
    return wide.view("<i8").ravel().astype(np.int64)


def as_position(position: Position | str) -> Position:
    """``position`` itself, or parsed when it is text; a TypeError for anything else."""
    if isinstance(position, str):
        return Position.parse(position)
    if not isinstance(position, Position):
        raise TypeError(f"expected a Position or position text, got {type(position).__name__}")
    return position


def _unknown_character(number: int, char: str) -> str:
    return f"unknown character {quoted(char)} in row {number}: use O (musketeer), X (enemy man) or . (empty)"


def _squares(bb: int) -> list[int]:
    return [s for s in range(bb.bit_length()) if (bb >> s) & 1]
