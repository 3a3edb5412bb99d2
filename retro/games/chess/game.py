"""Chess endgames as a kit game: tables by material, every position's distance to mate.

A *table* (a tier) is a material signature, ``KQvKR``: the pieces of one side, ``v``,
the other's, the stronger side first (queen 9, rook 5, bishop and knight 3, pawn 1;
then the longer, then in ``KQRBNP`` order). It holds both sides to move, and both
colours: ``KQvKR`` with White to move stores the positions of ``KRvKQ`` with Black to
move, the board seen from the side to move (mirrored rank-wise for Black, so that its
pawns move up the board). So a table has two parts, the stronger side to move and the
weaker (one for equal material, ``KQvKQ``), numbered with the two kings as the key
(the placements of kings side by side left out) and folded by the 8 symmetries of the
square without pawns, the left-right mirror with them. Pawns are numbered on ranks 2
to 7 alone. With pawns of both sides, each side to move has one more part: the
positions where it may take en passant, the pawn that has just made a double step
numbered as a kind of its own on the 8 squares of its fourth rank (the rules' kind 13). Captures and promotions lead
into the child tables; moves inside a table go both ways between its parts: each table
is solved by the engine's un-move solver with the un-moves of :mod:`.rules`.

Values are from the side to move's view: ``2 * plies + 1`` it mates in so many plies,
``2 * plies`` it is mated (0: checkmated), or a draw. The fifty-move rule is ignored, as
in the distance-to-mate tablebases (Nalimov, Gaviota).

The variants: a material (``KRPvKR``: that table and every table it leads into), or a
piece count (``3``, ``4``, ``5``: every table of up to so many pieces).

Notation: FEN (its first four fields; castling ``-``; the move counters may follow and
are dropped); moves in UCI (``e7e8q``) or SAN (``e8=Q+``), written in UCI.
"""

from __future__ import annotations

import json
import re
from functools import cached_property, lru_cache
from itertools import combinations_with_replacement
from pathlib import Path

import numpy as np

from ...errors import IllegalMoveError, MoveSyntaxError, NotationError, PositionError, quoted
from ..kit import LetterSide, Move, PieceGame, Position
from ..kit.game import _variant
from ..notation import tidy_move
from . import fen
from .rules import (  # noqa: F401 - the kit's kernels
    MAX_MOVES, MAX_UNMOVES, moves, outcome, outcome_moves, outcome_moves_quiet, tables, unmoves, unmoves_moved)

TYPES = "KQRBNP"
WORTH = {"Q": 9, "R": 5, "B": 3, "N": 3, "P": 1}
MAX_PIECES = 5


class Side(LetterSide):
    """White moves first."""

    WHITE = "W"
    BLACK = "B"

    @property
    def mates(self) -> str:
        """How a win is said: in moves, the plies after them (chess players count moves)."""
        return "mates"


def _strength(pieces: str) -> tuple:
    return (sum(WORTH.get(p, 0) for p in pieces), len(pieces), [-TYPES.index(p) for p in pieces])


def material_name(first: str, second: str) -> str:
    """``KQvKR``: the two sides' pieces (``K`` first, then ``QRBNP`` order), the stronger first."""
    a, b = ("K" + "".join(sorted(s.replace("K", ""), key=TYPES.index)) for s in (first, second))
    return f"{a}v{b}" if _strength(a) >= _strength(b) else f"{b}v{a}"


def _sides_of(name: str) -> tuple[str, str]:
    first, second = name.split("v")
    return first, second


def _part(mover: str, other: str) -> tuple:
    """The kit's count tuple (the other side's K..P, the mover's K..P, en passant 0)."""
    return tuple(other.count(t) for t in TYPES) + tuple(mover.count(t) for t in TYPES) + (0,)


def _pieces_of(counts) -> tuple[str, str]:
    """(the mover's pieces, the other's) of a count tuple (the pawn of kind 13 a pawn)."""
    other = "".join(t * (int(counts[i]) + (int(counts[12]) if t == "P" else 0)) for i, t in enumerate(TYPES))
    mover = "".join(t * int(counts[6 + i]) for i, t in enumerate(TYPES))
    return mover, other


def all_materials(most: int = MAX_PIECES) -> list[str]:
    """Every table of 2 to ``most`` pieces, children first (fewer pieces, then fewer
    pawns, then by name)."""
    names = set()
    sets = [c for n in range(most - 1) for c in combinations_with_replacement("QRBNP", n)]
    for a in sets:
        for b in sets:
            if len(a) + len(b) <= most - 2:
                names.add(material_name("K" + "".join(a), "K" + "".join(b)))
    return sorted(names, key=lambda n: (len(n) - 1, n.count("P"), n))


def children_of(name: str) -> list[str]:
    """The tables a capture or a promotion leads into from table ``name``."""
    out = set()
    for mover, other in (_sides_of(name), _sides_of(name)[::-1]):
        takes = [other.replace(t, "", 1) for t in set(other) - {"K"}]
        for left in [other] + takes:
            if left != other:
                out.add(material_name(mover, left))
            if "P" in mover:
                for q in "QRBN":
                    out.add(material_name(mover.replace("P", q, 1), left))
    out.discard(name)
    return sorted(out, key=lambda n: (len(n) - 1, n.count("P"), n))


def _closure(name: str) -> list[str]:
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo += children_of(n)
    return sorted(seen, key=lambda n: (len(n) - 1, n.count("P"), n))


MATERIALS = all_materials()
_POSITIONS = Path(__file__).with_name("positions.json")


@lru_cache(maxsize=1)
def _known_positions() -> dict:
    """Table -> positions, as :func:`write_positions` counted them."""
    try:
        return json.loads(_POSITIONS.read_text())
    except (OSError, ValueError):
        return {}


def write_positions(most: int = 5) -> None:
    """Count the positions of every table of up to ``most`` pieces by the kit's pass and
    write ``positions.json`` (``python -c "from retro.games.chess.game import
    write_positions; write_positions()"``: about half an hour on 2 cores for 5 pieces)."""
    game = Chess(str(most))
    counts = {game.tier_name(t): game.count_positions(t) for t in game.tiers()}
    _POSITIONS.write_text(json.dumps(counts, indent=0) + "\n")
    _known_positions.cache_clear()
_TIER_OF_PART: dict = {}  # a part -> its table (the stronger side to move)


class ChessPosition(Position):
    """A chess position: FEN in and out, moves in UCI or SAN."""

    def play(self, move) -> Position:
        if isinstance(move, str):
            move = self.game.move_of(self, move)
        return super().play(move)

    @property
    def fen(self) -> str:
        return str(self)


class Chess(PieceGame):
    """Chess endgames (see the module docstring)."""

    name = "chess"
    title = "Chess"
    title_in_sentence = "chess"
    family = "chess"
    description = "chess endgames: kings and up to three more pieces, distance to mate"
    rules = ("Standard chess with both kings and up to three more pieces: every piece's moves, pawns' double "
             "steps, en passant, promotion to queen, rook, bishop or knight; no castling. A side in check "
             "must leave it; checkmate loses, stalemate is a draw, and so is play that never ends. The "
             "fifty-move rule is ignored (values are distances to mate, as in Nalimov's and Gaviota's tables).")
    notation = ("Positions are FEN's first four fields, like '8/8/8/8/8/2k5/8/KQ6 w - -' (castling '-'; "
                "the move counters may follow). Moves in UCI ('e7e8q') or SAN ('e8=Q+').")
    references = ({"title": "Endgame tablebase (Wikipedia)", "url": "https://en.wikipedia.org/wiki/Endgame_tablebase"},
                  {"title": "K. Thompson, Retrograde analysis of certain endgames (1986)",
                   "url": "https://doi.org/10.3233/ICG-1986-9302"})
    sides = Side
    # the tables, each piece count the strongest first (KQvK before KRvK): KvK alone is no variant
    variants = ("3", "4", "5", *sorted(MATERIALS[1:], key=lambda n: (
        len(n) - 1, n.count("P"), [-x for x in _strength(_sides_of(n)[0])[:2]], n)))
    listed_variants = ("3", "4")  # (5: every 5-piece table, hours to build)
    unlisted_how = "--pieces 5, or --material TABLE for one table and those it leads into"
    variants_summary = "3, 4, 5 (every table of so many pieces) or a table such as KRPvKR"
    symmetries = 8
    rows, cols = 8, 8
    max_moves = MAX_MOVES
    max_unmoves = MAX_UNMOVES
    unmoves = "own"
    kernels = "masks"
    value_dtype = np.uint16
    kinds = 13  # the 12 pieces, and the pawn that may be taken en passant (see rules)
    piece_kinds = {ch: {"side": side, "shape": name.lower(), "name": name}
                   for side, letters in (("W", "KQRBNP"), ("B", "kqrbnp"))
                   for ch, name in zip(letters, ("King", "Queen", "Rook", "Bishop", "Knight", "Pawn"))}
    turn = np.arange(64) ^ 56
    key_kinds = (1, 7)  # the kings
    # pawns never on the first or last rank; the pawn that may be taken en passant (kind
    # 13) on the mover's fifth rank
    domains = {6: range(8, 56), 12: range(8, 56), 13: range(32, 40)}
    cell_characters = "KQRBNPkqrbnp12345678/"
    position_class = ChessPosition
    board_first = True  # FEN: the ranks, then the side to move
    values_note = ("These tables ignore the fifty-move rule: a win here may take more than fifty moves "
                   "without a capture or a pawn move, which over the board could be claimed as a draw.")
    first_row_name = "rank 8"
    move_example = "e2e4"

    def __init__(self, variant: str = "3") -> None:
        super().__init__(variant)
        self.consts = tables()
        if variant.isdigit():
            self.materials = [m for m in MATERIALS if len(m) - 1 <= int(variant)]
            self.description = f"chess endgames: every table of up to {variant} pieces"
        else:
            self.materials = _closure(variant)
            self.description = f"chess endgame {variant} and the tables it leads into"
        self._tier_of_name = {name: self._canonical_part(name) for name in self.materials}

    @classmethod
    def variant_named(cls, text: str) -> str:
        if not isinstance(text, str):
            return text
        tidy = text.strip()
        if tidy.isdigit():
            return tidy
        found = re.fullmatch(r"(k?[qrbnp]*)[v_\- ]+(k?[qrbnp]*)|(k[qrbnp]*)(k[qrbnp]*)", tidy.lower())
        if not found:
            return text
        first, second = (found[1], found[2]) if found[1] is not None else (found[3], found[4])
        name = material_name(first.upper().replace("K", ""), second.upper().replace("K", ""))
        if len(name) - 1 > MAX_PIECES:
            from .. import UnknownGameError

            raise UnknownGameError(f"{name}: {len(name) - 1} pieces; chess tables have at most {MAX_PIECES}")
        return name

    # --- tiers: a table per material, its two sides to move as parts --------------

    @staticmethod
    def _canonical_part(name: str) -> tuple:
        first, second = _sides_of(name)
        return _part(first, second)

    def tiers(self) -> list:
        return [self._tier_of_name[name] for name in self.materials]

    def tier_name(self, tier) -> str:
        mover, other = _pieces_of(tier)
        return material_name(mover, other)

    def parts(self, tier) -> tuple:
        """The stronger side to move, the weaker (one for equal material); with pawns of
        both sides, each of those with the right to take en passant (one of the other
        side's pawns as kind 13)."""
        mover, other = _pieces_of(tier)
        out = [_part(mover, other)] if mover == other else [_part(mover, other), _part(other, mover)]
        if "P" in mover and "P" in other:
            out += [p[:5] + (p[5] - 1,) + p[6:12] + (1,) for p in out]
        return tuple(out)

    def tier_of_part(self, part) -> tuple:
        found = _TIER_OF_PART.get(tuple(part))
        if found is None:
            mover, other = _pieces_of(part)
            found = _TIER_OF_PART[tuple(part)] = self._canonical_part(material_name(mover, other))
        return found

    def child_tiers(self, tier) -> tuple:
        return tuple(self._canonical_part(name) for name in children_of(self.tier_name(tier)))

    def loopy(self, tier) -> bool:
        return True

    def positions_in(self, tier) -> int:
        """The table's positions (both sides to move, every symmetric image): counted
        once by the kit's pass over its entries and kept in ``positions.json`` for every
        table of up to 5 pieces (the pass reads about 17 million entries a second on 2
        cores: half an hour for the 5-piece tables, which a build would otherwise count
        before its first table), counted on demand for any other."""
        known = _known_positions().get(self.tier_name(tier))
        return known if known is not None else super().positions_in(tier)

    def count_positions(self, tier) -> int:
        """:meth:`positions_in` by the kit's pass, never from ``positions.json``."""
        return super().positions_in(tier)

    def groups(self) -> tuple:
        from ..kit.cells import grid_symmetries

        square = grid_symmetries(8, 8)
        mirror = np.array([np.arange(64), np.arange(64) ^ 7], dtype=np.int64)
        return (square, mirror)

    def group_of(self, tier) -> int:
        return 1 if tier[5] or tier[11] else 0

    @cached_property
    def symmetry(self) -> np.ndarray:
        return self.groups()[0]

    def key_allowed(self, first: int, second: int) -> bool:
        """Kings side by side are no position: left out."""
        if not first or not second:
            return True
        a, b = first.bit_length() - 1, second.bit_length() - 1
        return max(abs(a // 8 - b // 8), abs(a % 8 - b % 8)) > 1

    # --- positions and notation ---------------------------------------------------

    @cached_property
    def _views(self) -> tuple[np.ndarray, np.ndarray]:
        """The kit's, with kind 13 read as the other side's pawn."""
        to_stored, to_code = super()._views
        return to_stored, np.concatenate([to_code, to_code[:, 6:7]], axis=1)

    @cached_property
    def swap(self) -> np.ndarray:
        return np.concatenate([super().swap, [12]]).astype(np.uint8)

    def _view(self, position) -> tuple[np.ndarray, tuple]:
        """The kit's view, the pawn that may be taken en passant as kind 13."""
        board, part = super()._view(position)
        ep = position.hand[0] if position.hand else 0
        if ep:
            board = board.copy()
            board[32 + ep - 1] = 13
            part = part[:5] + (part[5] - 1,) + part[6:12] + (1,)
        return board, part

    def position_of(self, row: np.ndarray, side, checked: bool = True) -> Position:
        """The kit's, a pawn of kind 13 as the en-passant state of its file."""
        cells = np.asarray(row[:64])
        ghost = np.flatnonzero(cells == 13)
        if len(ghost):
            cells = cells.copy()
            cells[ghost] = 6
        hand = (int(ghost[0]) % 8 + 1,) if len(ghost) else (0,)
        return self._with_hand(super().position_of(cells, side, False), hand, checked)

    def _with_hand(self, position, hand: tuple, checked: bool = False):
        if checked:
            return self.position_class(self, position.side, position.board, hand)
        object.__setattr__(position, "hand", hand)
        return position

    def start(self) -> Position:
        """A first position of the variant's largest table: the stronger side's king on
        e1, the other's on e8, its pieces on the first ranks."""
        name = self.materials[-1]
        first, second = _sides_of(name)
        board = [0] * 64
        for pieces, side, home in ((first, 0, (4, 3, 5, 2, 6, 1, 7, 0)), (second, 1, (60, 59, 61, 58, 62, 57, 63, 56))):
            squares = list(home)
            for p in pieces:
                if p == "P":
                    at = next(s + (8 if side == 0 else -8) for s in home if board[s + (8 if side == 0 else -8)] == 0)
                else:
                    at = squares.pop(0)
                    while board[at]:
                        at = squares.pop(0)
                board[at] = 1 + TYPES.index(p) + 6 * side
        return self.position_class(self, Side.WHITE, tuple(board), (0,))

    def position_text(self, position) -> str:
        return fen.fen_of(position.side.code, position.board, position.hand)

    def parse(self, text: str) -> Position:
        side, board, extras = fen.parse_fen(text.strip() if isinstance(text, str) else text)
        game = self._game_holding(board)
        position = object.__new__(game.position_class)  # parse_fen has checked it
        for name, value in (("game", game), ("side", Side.WHITE if side == 0 else Side.BLACK), ("board", board),
                            ("hand", extras)):
            object.__setattr__(position, name, value)
        return position

    def _game_holding(self, board) -> Chess:
        white = "".join(TYPES[c - 1] for c in sorted(board) if 1 <= c <= 6)
        black = "".join(TYPES[c - 7] for c in sorted(board) if c >= 7)
        name = material_name(white, black)
        if name in self._tier_of_name:
            return self
        return _variant(type(self), str(max(3, len(name) - 1)))  # the set of its piece count (KvK: 3)

    def for_position(self, position):
        return position.game if position.game is self else self._game_holding(position.board)

    def check(self, position) -> None:
        fen.check(position.side.code, position.board, position.hand)

    def row_layouts(self) -> list:
        return [(8,) * 8]

    def resemblance(self, text: str) -> int:
        """FEN's eight ranks between slashes: more than any side-first notation scores."""
        tokens = text.split() if isinstance(text, str) else []
        if not tokens or tokens[0].count("/") != 7:
            return 0
        return 20 + (len(tokens) > 1 and tokens[1] in ("w", "b"))

    def move_texts(self, before: Position, rows: np.ndarray) -> list[str]:
        """UCI: the square left, the square taken, the piece a pawn promotes to."""
        after, left, took = self._moved_cells(before, rows)
        was = before.board
        texts = []
        for i in range(len(rows)):
            a, b = int(left[i].argmax()), int(took[i].argmax())
            promoted = "" if after[i, b] == was[a] else fen.PIECES[after[i, b] - 1].lower()
            texts.append(f"{fen.square_name(a)}{fen.square_name(b)}{promoted}")
        return texts

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'e2e4', not {type(text).__name__}")
        tidy = tidy_move(text).replace("-", "")
        if re.fullmatch(r"[a-h][1-8][a-h][1-8][qrbn]?", tidy):
            return Move(tidy)
        raise MoveSyntaxError(f"{quoted(text.strip())} is not a move: write it in UCI, like 'e2e4' or 'e7e8q' "
                              "(or in SAN, like 'Nf3', from a position)")

    def move_of(self, position: Position, text: str) -> Move:
        """The move ``text`` names in ``position``: UCI, or SAN (``Nf3``, ``exd6``, ``e8=Q+``)."""
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'e2e4', not {type(text).__name__}")
        try:
            return self.parse_move(text)
        except MoveSyntaxError:
            pass
        wanted = text.strip().rstrip("+#!?").replace("=", "")
        for move in position.legal_moves():
            if self.san(position, move).rstrip("+#").replace("=", "") == wanted:
                return move
        if re.fullmatch(r"([KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](=?[QRBN])?|O-O(-O)?)[+#]?[!?]*", text.strip()):
            raise IllegalMoveError(f"illegal move {text.strip()}: no legal move here is written so")
        return self.parse_move(text)  # the error of a move that is no move

    def san(self, position: Position, move: Move) -> str:
        """The move in SAN (``Nbd2``, ``exd6``, ``e8=Q+``, ``Qh7#``)."""
        text = str(move)
        a, b = fen.FILES.index(text[0]) + 8 * (int(text[1]) - 1), fen.FILES.index(text[2]) + 8 * (int(text[3]) - 1)
        code = position.board[a]
        piece = fen.PIECES[(code - 1) % 6].upper()
        capture = position.board[b] != 0 or (piece == "P" and text[0] != text[2])
        if piece == "P":
            out = (f"{text[0]}x" if capture else "") + text[2:4] + (f"={text[4].upper()}" if len(text) > 4 else "")
        else:
            rivals = [m.text for m in position.legal_moves() if m.text[2:4] == text[2:4] and m.text != text
                      and position.board[fen.FILES.index(m.text[0]) + 8 * (int(m.text[1]) - 1)] == code]
            which = ""
            if rivals:
                if all(r[0] != text[0] for r in rivals):
                    which = text[0]
                elif all(r[1] != text[1] for r in rivals):
                    which = text[1]
                else:
                    which = text[:2]
            out = piece + which + ("x" if capture else "") + text[2:4]
        after = position.play(move)
        if after.is_over() and after.winner() is not None:
            return out + "#"
        return out + ("+" if self.checked_points(after) else "")

    def written_move(self, position, move) -> str:
        """SAN: what the page shows beside the UCI it reads."""
        return self.san(position, move)

    def checked_points(self, position) -> list[str]:
        """The square of the side to move's king when it is in check."""
        king = position.board.index(1 + 6 * position.side.code)
        return [fen.square_name(king)] if fen.attacked(position.board, king, 1 - position.side.code) else []

    def finished_reason(self, position) -> str:
        winner = position.winner()
        if position.is_over() and winner is not None:
            return f"{position.side.title} is checkmated: {winner.title} has won"
        if position.is_over():
            return f"{position.side.title} is stalemated: a draw"
        raise ValueError(f"{position} is not finished")

    _DRAWN = [8 * r + f for r in range(7, -1, -1) for f in range(8)]  # rank 8 first, as FEN and boards show it

    def geometry(self) -> dict:
        """The squares rank 8 first, drawn on top (White's view); ``.`` an empty square;
        moves in UCI, positions in FEN (``writes``: the page reads and writes them)."""
        out = super().geometry()
        out.update(points=[dict(out["points"][p], y=7 - p // 8) for p in self._DRAWN], empty=".", moves="uci",
                   writes="fen")
        return out

    def cells(self, position) -> str:
        chars = "." + fen.PIECES
        return "".join(chars[position.board[p]] for p in self._DRAWN)
