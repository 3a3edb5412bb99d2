"""Dōbutsu shōgi (Madoka Kitao, 2008), strongly solved: every legal position.

A 3×4 board, columns a→c from sente's left, ranks 1→4 from sente's back rank. Each
side has a lion (one step in the 8 directions), a giraffe (one step orthogonally), an
elephant (one step diagonally) and a chick (one step forward); a chick that moves onto
the far rank becomes a hen (one step orthogonally or diagonally forward). Sente moves
first. A piece taken goes to the captor's hand (a hen as a chick) and may be dropped,
as a move, on any empty square. Choices, as Tetsuro Tanaka's solution (2009) makes them:

* a chick may be dropped on the far rank; there it never moves and never promotes
  (only a chick that *moves* onto the far rank promotes, and it must);
* the Try is checked one ply on: a lion that moves onto the far rank wins if it is
  still there when its side is to move again; so a position whose side to move has
  its lion on the far rank is won (0 plies), and until then the opponent may take it;
* taking the lion wins: a position where the side to move can take the other lion is
  won in 1 ply (the kernel says so without looking at the moves, ``outcome`` = 3), and
  one whose other lion stands on the mover's back rank, out of reach, is lost in 1 ply
  (``outcome`` = 2: whatever the mover plays, that lion's Try stands);
* a side with no legal move loses; endless play is a draw (no repetition rule).

Every spread of the pieces over the board and the hands is a legal position (a chick
on its far rank included): 1,567,925,964 with sente to move, as many with gote.

Built on the kit (:mod:`retro.games.kit`): one loopy tier (captures and drops move
pieces both ways) of 2,100 parts, the spreads of the pieces (counts on the board by
owner and kind, then the hands), each numbered with the two lions as the key and the
left-right mirror as the symmetry; the boards whose lions alone decide them (side by
side, or either on its far rank) are left out, their values the rules' (``key_allowed``):
249,442,767 entries. Values (uint16) are from the
side to move's view; the board is stored turned 180° for gote (``turn``), so the mover
always plays up the board. Solved by the engine's un-move solver with the un-moves
written here (``unmoves``).

Notation: ``S gle -c- -C- ELG -``: the side to move (``S`` sente, ``G`` gote), the
ranks from 4 (gote's back rank) to 1, upper case sente's pieces, lower case gote's
(L lion, G giraffe, E elephant, C chick, H hen, ``-`` empty), then the hands (``-``
none, else the letters: ``Cg`` sente holds a chick, gote a giraffe). Moves: ``b2-b3``
(from, to; promotion is implied) and drops ``C*b2``.
"""

from __future__ import annotations

import re
from functools import cached_property
from itertools import product
from math import comb, prod

import numpy as np
from numba import njit

from ...bits import lowest_bit_index
from ...errors import MoveSyntaxError, NotationError, RowCountError, RowLengthError, SideError, UnknownCharacterError, quoted
from ..kit import ILLEGAL, LOST, OPEN, WON, LetterSide, Move, PieceGame, Position
from ..kit.game import _variant
from ..notation import invisible_character, tidy_move

LION, GIRAFFE, ELEPHANT, CHICK, HEN = 1, 2, 3, 4, 5  # types; stored kind t (other's), t + 5 (mover's)
STEPS = {LION: [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc],
         GIRAFFE: [(1, 0), (-1, 0), (0, 1), (0, -1)], ELEPHANT: [(1, 1), (1, -1), (-1, 1), (-1, -1)],
         CHICK: [(1, 0)], HEN: [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1)]}


class Side(LetterSide):
    """Sente moves first."""

    SENTE = "S"
    GOTE = "G"


# the 12 cells' bits in reverse: a cell set seen from the other side (the board turned 180°)
_TURNED = np.array([int(f"{m:012b}"[::-1], 2) for m in range(1 << 12)], dtype=np.int64)


@njit(cache=True)
def _can_move(masks, tier, consts):
    """Whether the mover has a legal move (a drop, or a step onto a cell not its own)."""
    found = tier[10] + tier[11] + tier[12] > 0 and masks[0] != 0
    own = masks[6] | masks[7] | masks[8] | masks[9] | masks[10]
    for k in range(6, 11):
        pieces = masks[k]
        while pieces and not found:
            found = consts[0][k - 5, lowest_bit_index(pieces)] & ~own != 0
            pieces &= pieces - 1
    return found


@njit(cache=True, inline="always")
def outcome(masks, tier, consts):
    """Lost without a lion; won with the lion on the far rank (the Try, one ply on);
    3 (won in 1 ply) when the other lion can be taken; else, with the other lion on the
    mover's back rank (its far rank), 2: lost in 1 ply, whatever the mover plays (lost
    at once without a move). ``masks[k]``: the cells of kind k."""
    if masks[1] == 0:
        return ILLEGAL
    if masks[6] == 0:
        return LOST
    if masks[6] >= 1 << 9:
        return WON
    target = 11 - lowest_bit_index(masks[1])  # the other lion, turned: whence a mover's piece reaches it
    for k in range(6, 11):
        if masks[k] & _TURNED[consts[1][k - 5, target]]:
            return 3
    if masks[1] < 1 << 3:
        return 2 if _can_move(masks, tier, consts) else LOST
    return OPEN


@njit(cache=True, inline="always")
def _turned(masks, tier, out, n):
    """Row n of out: the position seen from the other side (turned 180°, owners swapped),
    the hands swapped (the next mover's first)."""
    out[n, 0] = _TURNED[masks[0]]
    for k in range(1, 6):
        out[n, k] = _TURNED[masks[k + 5]]
        out[n, k + 5] = _TURNED[masks[k]]
    for x in range(3):
        out[n, 11 + x] = tier[13 + x]
        out[n, 14 + x] = tier[10 + x]


@njit(cache=True, inline="always")
def moves(masks, tier, consts, out):
    """Steps and drops of the mover (kinds 6..10); children turned 180° (the next mover
    plays up the board), hands after the cells: the next mover's G E C, then the other's."""
    n = 0
    theirs = masks[1] | masks[2] | masks[3] | masks[4] | masks[5]
    for k in range(6, 11):
        pieces = masks[k]
        while pieces:
            c = lowest_bit_index(pieces)
            pieces &= pieces - 1
            to = consts[0][k - 5, c] & (masks[0] | theirs)
            while to:
                d = lowest_bit_index(to)
                to &= to - 1
                _turned(masks, tier, out, n)
                out[n, k - 5] ^= 1 << (11 - c)
                out[n, 0] ^= (1 << (11 - c)) | (masks[0] >> d & 1) << (11 - d)
                out[n, HEN if k == 9 and d >= 9 else k - 5] |= 1 << (11 - d)
                for t in range(1, 6):
                    if masks[t] >> d & 1:
                        out[n, t + 5] ^= 1 << (11 - d)
                        if t > 1:  # a lion taken goes to no hand
                            out[n, 12 + min(t, 4)] += 1
                n += 1
    for h in range(3):
        to = masks[0] if tier[10 + h] else 0
        while to:
            d = lowest_bit_index(to)
            to &= to - 1
            _turned(masks, tier, out, n)
            out[n, 0] ^= 1 << (11 - d)
            out[n, 2 + h] |= 1 << (11 - d)
            out[n, 14 + h] -= 1
            n += 1
    return n


@njit(cache=True, inline="always")
def unmoves(masks, tier, consts, out):
    """The parents (from their mover's view, the other side here, kinds 1..5): each of
    its pieces undropped (a giraffe, elephant or chick back to hand), or stepped back
    (a hen on the far rank possibly from a chick), leaving empty or one of the mover's
    pieces its hand holds (a chick in hand may have been a hen). Not those whose mover
    could take the lion (``outcome`` 3, a value no move changes): a parent keeps the
    attackers of the lion here but the piece it moves, which must not attack it from
    where it stood."""
    lion = lowest_bit_index(masks[6])
    attackers = masks[1] & consts[1][1, lion]
    for t in range(2, 6):
        attackers |= masks[t] & consts[1][t, lion]
    if attackers & (attackers - 1):  # two: whatever moved, one was there to take the lion
        return 0
    n = 0
    for k in range(1, 6):
        pieces = masks[k] & attackers if attackers else masks[k]
        while pieces:
            d = lowest_bit_index(pieces)
            pieces &= pieces - 1
            if 2 <= k <= 4:
                _turned(masks, tier, out, n)
                out[n, k + 5] ^= 1 << (11 - d)
                out[n, 0] |= 1 << (11 - d)
                out[n, 9 + k] += 1
                n += 1
            for promoted in range(2):
                if promoted:
                    origins = np.int64(1) << (d + 3) if k == HEN and d < 3 else 0
                else:
                    origins = 0 if k == CHICK and d < 3 else consts[1][k, d]
                origins &= masks[0] & ~consts[1][CHICK if promoted else k, lion]
                while origins:
                    c = lowest_bit_index(origins)
                    origins &= origins - 1
                    for restored in range(6, 11):  # 6: nothing taken; 7..10 the mover's G E C H
                        h = 2 if restored == 10 else restored - 7
                        if restored > 6 and tier[13 + h] == 0:
                            continue
                        _turned(masks, tier, out, n)
                        out[n, k + 5] ^= 1 << (11 - d)
                        out[n, (CHICK if promoted else k) + 5] |= 1 << (11 - c)
                        out[n, 0] ^= 1 << (11 - c)
                        if restored == 6:
                            out[n, 0] |= 1 << (11 - d)
                        else:
                            out[n, restored - 5] |= 1 << (11 - d)
                            out[n, 11 + h] -= 1
                        n += 1
    return n


def _spreads(count: int, places: int):
    return [s for s in product(range(count + 1), repeat=places) if sum(s) == count]


def material(variant: str) -> tuple[int, int, int]:
    """The giraffes, elephants and chicks (hens included) in play: the game's two each,
    or a variant's letters (``GEC``: the lions and one of each, whoever holds them)."""
    return (2, 2, 2) if variant == "" else tuple(variant.count(x) for x in "GEC")


def _held(board, hand) -> tuple:
    """The giraffes, elephants and chicks (hens included) on the board and in the hands."""
    return (board.count(2) + board.count(7) + hand[0] + hand[3], board.count(3) + board.count(8) + hand[1] + hand[4],
            sum(board.count(k) for k in (4, 5, 9, 10)) + hand[2] + hand[5])


class Dobutsu(PieceGame):
    """Dōbutsu shōgi (see the module docstring)."""

    name = "dobutsu"
    title = "Dōbutsu shōgi"
    family = "dobutsu"
    description = "3x4 shogi for children: lion, giraffe, elephant, chick; captures go to hand"
    rules = ("Sente moves first. Lion: one step any way; giraffe: orthogonally; elephant: diagonally; "
             "chick: forward, promoting to a hen (orthogonal or diagonally forward) on the far rank. "
             "Captured pieces go to the captor's hand (a hen as a chick) and may be dropped on any "
             "empty square. Taking the lion wins, as does a lion on the far rank that survives the "
             "opponent's reply (the Try); endless play is a draw.")
    notation = ("Positions are written like 'S gle -c- -C- ELG -': the side to move (S or G), the ranks "
                "from gote's back rank to sente's (upper case sente's pieces, lower case gote's: L lion, "
                "G giraffe, E elephant, C chick, H hen, - empty), then the hands (- or letters such as "
                "Cg). Moves: 'b2-b3', drops 'C*b2' (columns a-c from sente's left, ranks 1-4 from sente's).")
    references = ({"title": "Dōbutsu shōgi (Wikipedia)", "url": "https://en.wikipedia.org/wiki/D%C5%8Dbutsu_sh%C5%8Dgi"},
                  {"title": "T. Tanaka, An analysis of a board game 'Doubutsu Shogi' (2009)",
                   "url": "https://ipsj.ixsq.nii.ac.jp/ej/?action=repository_uri&item_id=66244"})
    sides = Side
    variants = ("", "GEC", "C")  # the game; less material (endgames, and the tests' checks)
    symmetries = 2
    rows, cols = 4, 3
    max_moves = 64
    max_unmoves = 160
    unmoves = "own"
    kernels = "masks"
    value_dtype = np.uint16
    extras = 6
    piece_kinds = {ch: {"side": side, "shape": name.lower(), "name": name}
                   for side, letters in (("S", "LGECH"), ("G", "lgech"))
                   for ch, name in zip(letters, ("Lion", "Giraffe", "Elephant", "Chick", "Hen"))}
    turn = np.arange(11, -1, -1)
    key_kinds = (1, 6)  # the lions: boards the rules decide by them are left out
    cell_characters = "LGECHlgech-"  # its pieces and '-' (what its ranks hold)

    def __init__(self, variant: str = "") -> None:
        super().__init__(variant)
        self.material = material(variant)
        if variant:
            self.description = f"Dōbutsu shōgi with less: the lions and {variant} (G giraffe, E elephant, C chick) only"
        attacks = np.zeros((6, 12), dtype=np.int64)
        for t, c in product(STEPS, range(12)):
            for dr, df in STEPS[t]:
                if 0 <= c // 3 + dr < 4 and 0 <= c % 3 + df < 3:
                    attacks[t, c] |= 1 << (c + 3 * dr + df)
        origins = np.zeros((6, 12), dtype=np.int64)  # origins[t, d]: whence the other's t reaches d
        for t, c, d in product(STEPS, range(12), range(12)):
            origins[t, d] |= (attacks[t, 11 - c] >> (11 - d) & 1) << c
        self.consts = (attacks, origins)

    @classmethod
    def variant_named(cls, text: str) -> str:
        return "".join(sorted(text.upper(), key="GEC".find)) if isinstance(text, str) else text

    def key_allowed(self, first: int, second: int) -> bool:
        """The lions' cells kept (the other's ``first``, the mover's ``second``): not side
        by side (the mover takes the lion), the mover's not on its far rank (won), the
        other's not on the mover's back rank (the mover takes it or loses in 1 ply)."""
        (r1, f1), (r2, f2) = divmod(first.bit_length() - 1, 3), divmod(second.bit_length() - 1, 3)
        return not (first and second) or (r1 > 0 and r2 < 3 and max(abs(r1 - r2), abs(f1 - f2)) > 1)

    @cached_property
    def symmetry(self) -> np.ndarray:
        return np.array([list(range(12)), [r * 3 + 2 - f for r in range(4) for f in range(3)]], dtype=np.int64)

    # --- tiers: one, of a part per spread of the pieces ---------------------------

    def tiers(self) -> list:
        return [self.material]

    def child_tiers(self, tier) -> tuple:
        return ()

    def loopy(self, tier) -> bool:
        return True

    def tier_name(self, tier) -> str:
        return "all"

    def parts(self, tier) -> tuple:
        # board: other's L G E C H, mover's L G E C H; hands: mover's G E C, other's G E C
        return tuple((1, gs[0], es[0], cs[0], cs[1], 1, gs[1], es[1], cs[2], cs[3], gs[2], es[2], cs[4], gs[3], es[3],
                      cs[5]) for gs, es, cs in product(_spreads(tier[0], 4), _spreads(tier[1], 4), _spreads(tier[2], 6)))

    def positions_in(self, tier) -> int:
        """Every board of every part is a position, with either side to move."""
        return 2 * sum(prod(comb(12 - sum(p[:j]), p[j]) for j in range(10)) for p in self.parts(tier))

    def tier_of_part(self, part) -> tuple:
        return (part[1] + part[6] + part[10] + part[13], part[2] + part[7] + part[11] + part[14],
                part[3] + part[4] + part[8] + part[9] + part[12] + part[15])

    # --- positions and notation ---------------------------------------------------

    def extras_of(self, position) -> tuple:
        return self.hand_of(position.hand, position.side)  # the halves swapped for gote, both ways

    def hand_of(self, extras, side) -> tuple:
        return tuple(extras) if side.code == 0 else tuple(extras[3:]) + tuple(extras[:3])

    def start(self) -> Position:
        """The setup; a variant's keeps the lions and sente's pieces it names (GEC: 'S -l- --- -C- ELG -')."""
        keep = "LGECHlgech S-" if not self.variant else "Ll S-" + self.variant
        return self.parse("".join(c if c in keep else "-" for c in "S gle -c- -C- ELG -"))

    def position_text(self, position) -> str:
        chars = "-" + "".join(self.piece_kinds)
        ranks = ["".join(chars[v] for v in position.board[r * 3:r * 3 + 3]) for r in (3, 2, 1, 0)]
        hand = "".join(letter * n for letter, n in zip("GECgec", position.hand))
        return " ".join([position.side.letter, *ranks, hand or "-"])

    def parse(self, text: str) -> Position:
        if not isinstance(text, str):
            raise NotationError(f"a position must be text, not {type(text).__name__}")
        tokens = re.split(r"[\s_/,]+", text.strip())
        if not tokens or tokens[0].upper() not in ("S", "G"):
            raise SideError(f"unknown side to move {quoted(tokens[0] if tokens else '')}: expected S or G")
        side = Side(tokens[0].upper())
        ranks, hand = tokens[1:5], tokens[5:]
        invisible = invisible_character(tokens[1:])
        if invisible is not None:
            raise UnknownCharacterError(f"unknown character {quoted(invisible[1])} in row {invisible[0]}: "
                                        "use L G E C H, l g e c h or -")
        if len(ranks) != 4 or len(hand) > 1:
            raise RowCountError(f"{len(tokens) - 1} groups: a Dōbutsu shōgi position has 4 ranks of 3 "
                                "squares, then the hands (- for none)")
        chars = "-" + "".join(self.piece_kinds)
        board = [0] * 12
        for number, rank in enumerate(ranks):
            if len(rank) != 3:
                raise RowLengthError(f"rank {4 - number} has {len(rank)} squares: a rank has 3")
            for f, ch in enumerate(rank):
                if ch not in chars:
                    raise UnknownCharacterError(f"unknown character {quoted(ch)} in row {number + 1}: "
                                                "use L G E C H, l g e c h or -")
                board[(3 - number) * 3 + f] = chars.index(ch)
        held = [0] * 6
        for ch in (hand[0] if hand and hand[0] != "-" else ""):
            if ch not in "GECgec":
                raise UnknownCharacterError(f"unknown piece {quoted(ch)} in hand: use G E C, g e c")
            held["GECgec".index(ch)] += 1
        have = _held(board, held)  # less material: the variant of those pieces reads it
        game = self if have == self.material else next((_variant(type(self), v) for v in self.variants
                                                        if material(v) == have), self)
        return Position(game, side, tuple(board), tuple(held))

    def check(self, position) -> None:
        board, hand = position.board, position.hand
        if len(board) != 12 or len(hand) != 6:
            raise NotationError("a Dōbutsu shōgi position has 12 squares and two hands of 3 counts")
        lions = [board.count(1), board.count(6)]
        if lions[position.side.other.code] != 1 or lions[position.side.code] > 1:
            raise NotationError(f"sente has {lions[0]} lions and gote {lions[1]}: each has one "
                                "(the side to move none once its lion is taken)")
        have = _held(board, hand)
        if have != self.material:
            raise NotationError(f"{have[0]} giraffes, {have[1]} elephants and {have[2]} chicks or hens: "
                                f"the game has {self.material[0]}, {self.material[1]} and {self.material[2]} (its variants "
                                f"{', '.join(v for v in self.variants if v)}: the pieces they name)")

    def drop_prefix(self, code: int) -> str:
        return f"{'LGECH'[(code - 1) % 5]}*"

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'b2-b3' or 'C*b2', not {type(text).__name__}")
        tidy = tidy_move(text)
        step = re.fullmatch(r"([a-c][1-4])-?([a-c][1-4])", tidy)
        drop = re.fullmatch(r"([gec])\*([a-c][1-4])", tidy)
        if step:
            return Move(f"{step[1]}-{step[2]}")
        if drop:
            return Move(f"{drop[1].upper()}*{drop[2]}")
        raise MoveSyntaxError(f"{quoted(text.strip())} is not a move: write 'b2-b3' (a step) or 'C*b2' (a drop)")

    def finished_reason(self, position) -> str:
        winner = position.winner()
        if winner is None:
            raise ValueError(f"{position} is not finished")
        how = "took the lion" if position.count(1 if position.side.code == 0 else 6) == 0 else "made the Try"
        return f"{winner.title} {how}: {winner.title} has won"

    def geometry(self) -> dict:
        """The points in the notation's order, rank 4 first and drawn on top (sente's view);
        the hands written as letters after the ranks (``hand_pieces``), '-' an empty
        square and an empty hand."""
        out, ranks = super().geometry(), [p for r in (3, 2, 1, 0) for p in range(r * 3, r * 3 + 3)]
        out.update(points=[dict(out["points"][p], y=3 - p // 3) for p in ranks], hands=True, hand_pieces="GECgec", empty="-")
        return out
