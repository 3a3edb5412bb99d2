"""Nine men's morris, and the same game with fewer pieces (``--pieces P`` or ``W,B``).

Rules (Gasser's, as the published solutions and Malom's standard variant play them):
24 points on three concentric squares joined at the midpoints of their sides; 16
mills (the 12 sides of the squares and the 4 half-midlines such as a4-b4-c4). Each
player has 9 pieces in hand (or the variant's counts); the players move in turn,
White first. A player with pieces in hand places one on an empty point; a player
without slides a piece to an adjacent empty point, or flies it to any empty point
when it has exactly 3 on the board. A move that completes a mill of the mover's
removes an opponent piece not in a mill, or any when all are; two mills at once
remove one piece. A player with fewer than 3 pieces (board and hand together) has
lost, and so has a player to move without a legal move; play that never ends is a
draw.

The open cases, decided as Malom's move generator (Gévay and Danner's solutions) does:

* a move that completes a mill when the opponent has no piece on the board (only
  possible while pieces are placed) has nothing to remove and is not a legal move;
* with unequal counts, a player whose hand is empty moves a piece on the board while
  the other still places (turns alternate throughout).

Positions are stored from the side to move's point of view (:mod:`.sectors`,
:mod:`.nine_rules`): one colour, the 16 symmetries folded into the index. A moving-
phase tier is a pair of sectors (the mover's and the other's pieces on the board,
``a`` and ``b``, and ``b`` and ``a``), solved together by the engine's un-move solver;
the placement sectors are acyclic tiers.
"""

from __future__ import annotations

import re
from functools import cached_property
from math import comb
from typing import NamedTuple

import numpy as np

from ...errors import PositionError, SideError, counted
from ..protocol import OPEN, Expansion, TierKernels, child_values
from . import Morris, Position, Side, nine_rules
from .boards import NINE
from .sectors import POINTS, Tables, sector_size, tables

MOVING = "moving"
MIN_PIECES, MAX_PIECES = 3, 9


def _variants() -> tuple[str, ...]:
    equal = tuple(str(p) for p in range(MAX_PIECES, MIN_PIECES - 1, -1))
    unequal = tuple(f"{w},{b}" for w in range(MAX_PIECES, MIN_PIECES - 1, -1)
                    for b in range(MAX_PIECES, MIN_PIECES - 1, -1) if w != b)
    return equal + unequal


def pieces_of(variant: str) -> tuple[int, int]:
    """``(white, black)`` pieces of a variant (``"9"``, ``"5,4"``)."""
    parts = variant.split(",")
    return (int(parts[0]), int(parts[-1]))


class Sector(NamedTuple):
    mover_hand: int
    other_hand: int
    mover_on: int
    other_on: int


def _turns(white: int, black: int):
    """``(white_hand, black_hand, side, white_placed, black_placed)`` at every ply until
    both hands are empty, and then with either side to move (with unequal counts the
    side that placed last is not always Black)."""
    t = 0
    while True:
        placed_w = min(white, (t + 1) // 2)
        placed_b = min(black, t // 2)
        if placed_w == white and placed_b == black:
            yield 0, 0, 0, white, black
            yield 0, 0, 1, white, black
            return
        yield white - placed_w, black - placed_b, t % 2, placed_w, placed_b
        t += 1


_COUNTS = re.compile(r"\s*(\d+)\s*(?:[\s,;_/-]\s*(\d+)\s*)?")


def _variant_named(text: str) -> str:
    """``"5,4"`` however it is written (``5-4``, ``5_4``, ``5 4``); ``"5,5"`` is ``"5"``.
    Anything else (``,3``, ``-3``, ``5,,4``) is returned as written, which names no
    variant, so the caller's error lists the variants."""
    match = _COUNTS.fullmatch(text)
    if match is None:
        return text
    parts = [p for p in match.groups() if p is not None]
    if len(parts) == 2 and parts[0] == parts[1]:
        parts = parts[:1]
    return ",".join(parts)


class NineMensMorris(Morris):
    """Nine men's morris: 9 pieces each (or fewer) on three squares; flying with 3."""

    name = "nine-mens-morris"
    title = "Nine men's morris"
    description = ("9 pieces each on three squares joined at their midpoints; mills remove "
                   "pieces; a player with 3 pieces flies")
    spec = NINE
    lines_win = False
    value_dtype = np.uint16
    relative_values = True
    variants = _variants()
    listed_variants = tuple(str(p) for p in range(MAX_PIECES, MIN_PIECES - 1, -1))
    variants_summary = "9, 8, 7, 6, 5, 4, 3 pieces each, or W,B for unequal counts such as 5,4"
    variant_option = "--pieces"
    out_of_core = True
    stages = (MOVING,)
    compressed_fraction = 0.3  # the standard game: 0.01 to 0.28 a tier (moving), at most 0.24 (placement, the first 40)
    gzip_level = 4  # the largest placement tiers: 0.48 bytes an entry at level 1, 0.45 at 4 (6: 0.44, 3x the time)
    notation_example = "W 9 9 ... ... ... ...... ... ... ..."
    references = (
        {"title": "Nine men's morris (Wikipedia)", "url": "https://en.wikipedia.org/wiki/Nine_men%27s_morris"},
        {"title": "R. Gasser, Solving Nine Men's Morris (1996)",
         "url": "https://library.slmath.org/books/Book29/files/gasser.pdf"},
        {"title": "G. E. Gévay, G. Danner, Calculating Ultra-Strong and Extended Solutions for "
                  "Nine Men's Morris, Morabaraba, and Lasker Morris (2015)",
         "url": "https://arxiv.org/abs/1408.0032"},
    )
    rules = ("White moves first. Each player has 9 pieces in hand (or the variant's counts), placed "
             "alternately on the 24 points of three concentric squares joined at the midpoints of "
             "their sides; a player with no piece in hand slides one to an adjacent empty point, or "
             "flies it to any empty point with exactly 3 on the board. A move completing a mill (a "
             "side of a square or a half-midline) removes one opponent piece not in a mill, or any "
             "if all are (one for two mills); with no opponent piece on the board such a move is "
             "not allowed. A player with fewer than 3 pieces, board and hand together, or with no "
             "legal move when to move, loses; play that never ends is a draw.")
    notation = ("Positions are written like 'W 9 9 ... ... ... ...... ... ... ...': the side to move "
                "(W or B), White's and Black's pieces in hand, then the points row by row from row "
                "1: a1 d1 g1 / b2 d2 f2 / c3 d3 e3 / a4 b4 c4 e4 f4 g4 / c5 d5 e5 / b6 d6 f6 / a7 d7 "
                "g7; W white, B black, . empty. Moves: a placement 'd2', a slide 'd2-d3', a flight "
                "'a1-g7', a removal appended 'd2-d3xg7'.")

    def __init__(self, variant: str = "9") -> None:
        self.white_pieces, self.black_pieces = pieces_of(variant)
        self.pieces = max(self.white_pieces, self.black_pieces)
        super().__init__(variant)
        if variant != "9":
            counts = (f"{self.white_pieces} pieces each" if self.white_pieces == self.black_pieces
                      else f"{self.white_pieces} white and {self.black_pieces} black pieces")
            self.description = f"nine men's morris with {counts}; flying with 3"
        self.file_stem = (self.name if variant == "9" else
                          f"{self.name}-{variant.replace(',', '-')}")

    @classmethod
    def variant_named(cls, text: str) -> str:
        return _variant_named(text)

    @property
    def short_name(self) -> str:
        if self.variant == "9":
            return self.title
        if self.white_pieces == self.black_pieces:
            return f"{self.title} with {self.white_pieces} pieces"
        return f"{self.title} with {self.white_pieces} white and {self.black_pieces} black pieces"

    # --- the tiers of this game -----------------------------------------------------

    @cached_property
    def _layout(self):
        """Sectors (with the colours they occur in), tiers in solving order, tables."""
        occurs: dict[Sector, set] = {}
        for wh, bh, side, placed_w, placed_b in _turns(self.white_pieces, self.black_pieces):
            if side == 0:
                mh, oh, most_m, most_o = wh, bh, placed_w, placed_b
            else:
                mh, oh, most_m, most_o = bh, wh, placed_b, placed_w
            for m in range(most_m + 1):
                for o in range(most_o + 1):
                    if m + mh >= 3 and o + oh >= 3 and m + o <= POINTS:
                        occurs.setdefault(Sector(mh, oh, m, o), set()).add(side)
        groups: dict = {}
        for sector in occurs:
            mh, oh, m, o = sector
            key = (0, 0, max(m, o), min(m, o)) if mh == oh == 0 else tuple(sector)
            groups.setdefault(key, []).append(sector)
        for key, members in groups.items():
            members.sort(key=lambda s: (s.mover_on != key[2], s))  # (a, b) before (b, a)
        tier_number = np.full((MAX_PIECES + 1, MAX_PIECES + 1, POINTS + 1, POINTS + 1), -1,
                              dtype=np.int64)
        sector_offset = np.zeros_like(tier_number)
        index = tables()
        keys = list(groups)
        sizes = {}
        for key in keys:
            offset = 0
            for sector in groups[key]:
                sector_offset[sector] = offset
                offset += sector_size(index, sector.mover_on, sector.other_on)
            sizes[key] = offset
        order = _solving_order(keys, {k: self._child_keys(groups[k], groups, occurs) for k in keys})
        for number, key in enumerate(order):
            for sector in groups[key]:
                tier_number[sector] = number
        for table in (tier_number, sector_offset):
            table.setflags(write=False)
        children = {k: self._child_keys(groups[k], groups, occurs) for k in order}
        return order, groups, occurs, sizes, tier_number, sector_offset, children

    @staticmethod
    def _child_keys(sectors, groups, occurs) -> tuple:
        found = []
        for mh, oh, m, o in sectors:
            hand = mh - 1 if mh > 0 else 0
            on = m + 1 if mh > 0 else m
            for taken in (0, 1):
                child = Sector(oh, hand, o - taken, on)
                if child.mover_on < 0 or child.mover_on + child.mover_hand < 3:
                    continue  # lost at once: not stored
                key = ((0, 0, max(child.mover_on, child.other_on), min(child.mover_on, child.other_on))
                       if child.mover_hand == child.other_hand == 0 else tuple(child))
                if key not in groups:
                    continue  # no move leads there in this game (checked by the kernels)
                if key not in found:
                    found.append(key)
        own = ((0, 0, max(sectors[0][2], sectors[0][3]), min(sectors[0][2], sectors[0][3]))
               if sectors[0][0] == sectors[0][1] == 0 else tuple(sectors[0]))
        return tuple(k for k in found if k != own)

    def tiers(self) -> list:
        return list(self._layout[0])

    def stage_tiers(self, stage: str) -> list:
        """The moving phase (both hands empty): the first tiers in solving order."""
        if stage != MOVING:
            return super().stage_tiers(stage)
        order = self.tiers()
        moving = [t for t in order if t[0] == t[1] == 0]
        assert moving == order[:len(moving)], "the moving phase is solved first"
        return moving

    def tier_name(self, tier) -> str:
        mh, oh, m, o = tier
        if mh == oh == 0:
            return f"moving_{m}_{o}"
        return f"hand_{mh}_{oh}_board_{m}_{o}"

    def tier_size(self, tier) -> int:
        return self._layout[3][tuple(tier)]

    def sectors_of(self, tier) -> list[Sector]:
        return self._layout[1][tuple(tier)]

    def tier_memory(self, tier) -> int:
        """About 11 bytes an entry at the un-move solver's peak (measured: 10.8 GB for the
        1.05e9 entries of 9 against 8), and room for the children's mapped pages."""
        return 11 * self.tier_size(tier) + (256 << 20)

    def positions_in(self, tier) -> int:
        occurs = self._layout[2]
        return sum(len(occurs[s]) * comb(POINTS, s.other_on) * comb(POINTS - s.other_on, s.mover_on)
                   for s in self.sectors_of(tier))

    def child_tiers(self, tier) -> tuple:
        return self._layout[6][tuple(tier)]

    def loopy(self, tier) -> bool:
        return tier[0] == tier[1] == 0

    # --- positions ------------------------------------------------------------------

    def _stored(self, position: Position) -> tuple[int, int, int, int]:
        """``(mover, other, mover_hand, other_hand)``: the position as stored."""
        if position.side is Side.WHITE:
            return position.white, position.black, position.white_hand, position.black_hand
        return position.black, position.white, position.black_hand, position.white_hand

    def finished_code(self, position: Position) -> int:
        mover, other, mh, oh = self._stored(position)
        b = self.board
        lost = nine_rules.finished(mover, other, mh, oh, b.neighbours, b.lines, b.lines_through)
        if lost == OPEN:
            return OPEN
        return 1 if position.side is Side.BLACK else 0  # the winner is the other side

    def move_rows(self, position: Position) -> np.ndarray:
        mover, other, mh, oh = self._stored(position)
        b = self.board
        out = np.empty((24 * 24 * 9, 3), dtype=np.int64)
        count = nine_rules.legal_moves(mover, other, mh, oh, b.neighbours, b.lines,
                                       b.lines_through, out)
        return out[:count]

    def flies(self, position: Position) -> bool:
        mover, _, mh, _ = self._stored(position)
        return mh == 0 and mover.bit_count() == 3

    def start(self) -> Position:
        return Position(self.position_key, Side.WHITE, 0, 0, self.white_pieces, self.black_pieces)

    @cached_property
    def _turn_states(self) -> set:
        return {(wh, bh, side) for wh, bh, side, _, _ in _turns(self.white_pieces, self.black_pieces)}

    def check(self, position: Position) -> None:
        self.check_board(position)
        for name, hand, on, most in (("White", position.white_hand, position.white.bit_count(), self.white_pieces),
                                     ("Black", position.black_hand, position.black.bit_count(), self.black_pieces)):
            if not 0 <= hand <= most:
                shown = counted(hand, "piece") if abs(hand) < 10 ** 9 else "far too many pieces"
                raise PositionError(f"{name} has {shown} in hand: {self._pieces_words()}")
            if hand + on > most:
                raise PositionError(f"{name} has {counted(on, 'piece')} on the board and {hand} in hand: "
                                    f"more than the {most} {name} has ({self._pieces_words()})")
        state = (position.white_hand, position.black_hand, position.side.code)
        if state not in self._turn_states:
            sides = {side for wh, bh, side in self._turn_states
                     if (wh, bh) == (position.white_hand, position.black_hand)}
            if not sides:
                raise SideError(f"with {position.white_hand} white and {position.black_hand} black "
                                "pieces in hand no one can be to move: they place in turn, White first")
            expected = Side.from_code(next(iter(sides)))
            raise SideError(f"{position.side.title} is not to move: with {position.white_hand} white "
                            f"and {position.black_hand} black pieces in hand, {expected.title} moves next")
        self.check_totals(position)

    def _pieces_words(self) -> str:
        if self.white_pieces == self.black_pieces:
            return f"{self.title} has {self.white_pieces} each"
        return f"this game gives White {self.white_pieces} and Black {self.black_pieces}"

    # --- the index --------------------------------------------------------------------

    @property
    def index_tables(self) -> Tables:
        return tables()

    def tier_of(self, position: Position):
        mover, other, mh, oh = self._stored(position)
        m, o = mover.bit_count(), other.bit_count()
        if mh == oh == 0:
            return (0, 0, max(m, o), min(m, o))
        return (mh, oh, m, o)

    def stored(self, position: Position) -> bool:
        """Whether the database holds the position (not one whose mover has just lost)."""
        mover, _, mh, _ = self._stored(position)
        return mover.bit_count() + mh >= 3

    def index(self, position: Position) -> int:
        if not self.stored(position):
            return -1
        mover, other, mh, oh = self._stored(position)
        t = self.index_tables
        offset = int(self._layout[5][mh, oh, mover.bit_count(), other.bit_count()])
        entry, _ = _sector_entry(mover, other, t)
        return offset + int(entry)

    def position_at(self, tier, entry: int) -> Position | None:
        """The position stored at ``entry``, with White to move where it can be (its
        colour-swapped image stands for the same value with Black to move); None for an
        entry holding a symmetric image of a smaller entry's position."""
        t = self.index_tables
        mover, other, mh, oh, canonical = nine_rules.decode(
            int(entry), self._sector_table(tier), t.set_index, t.class_base, t.representatives,
            t.stabilisers, t.sym_bytes, t.binomial)
        if not canonical:
            return None
        for side in (Side.WHITE, Side.BLACK):
            white, black, wh, bh = ((mover, other, mh, oh) if side is Side.WHITE
                                    else (other, mover, oh, mh))
            try:
                return Position(self.position_key, side, int(white), int(black), int(wh), int(bh))
            except PositionError:
                continue
        return None

    def _sector_table(self, tier) -> np.ndarray:
        rows = [(s.mover_hand, s.other_hand, s.mover_on, s.other_on,
                 int(self._layout[5][s])) for s in self.sectors_of(tier)]
        return np.array(rows, dtype=np.int64)

    def value_for(self, position: Position, stored: int) -> int:
        """The value of ``position`` (first side = White) from its stored value (side to
        move's view)."""
        if position.side is Side.WHITE or stored >= np.iinfo(self.value_dtype).max - 1:
            return stored
        return stored ^ 1

    # --- solving ----------------------------------------------------------------------

    def _kernel_tables(self, tier):
        t = self.index_tables
        b = self.board
        order, _, _, _, tier_number, sector_offset, _ = self._layout
        slots = (tuple(tier), *self.child_tiers(tier))
        slot_of_tier = np.full(len(order), -1, dtype=np.int64)
        for slot, key in enumerate(slots):
            slot_of_tier[order.index(key)] = slot
        return (self._sector_table(tier), b.neighbours, b.lines, b.lines_through, tier_number,
                sector_offset, slot_of_tier, t.set_index, t.class_base, t.representatives,
                t.stabilisers, t.sym_bytes, t.binomial), slots

    def expand(self, tier) -> Expansion:
        """The explicit expansion (the engine's explicit solvers; small tiers and tests):
        one side (the stored mover, code 0), duplicates marked not a position, children
        lost at once in a last slot (see :meth:`child_values`)."""
        args, slots = self._kernel_tables(tier)
        size = self.tier_size(tier)
        finished = np.empty(size, dtype=np.int64)
        counts = np.empty(size, dtype=np.int64)
        nine_rules.expand_counts(0, size, *args, finished, counts)
        starts = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        child_slot = np.empty(int(starts[-1]), dtype=np.int64)
        child_entry = np.empty(int(starts[-1]), dtype=np.int64)
        nine_rules.expand_children(0, size, *args, finished, starts, child_slot, child_entry)
        child_slot[child_slot < 0] = len(slots)  # the terminal slot, after the child tiers
        from ...values import not_a_position
        finished32 = finished.astype(np.int32)
        finished32[finished == nine_rules.DUPLICATE] = not_a_position(self.value_dtype)
        return Expansion((*slots, LOST), np.zeros(size, dtype=np.int8), finished32, starts,
                         child_slot.astype(np.int8), child_entry)

    def expand_range(self, tier, first: int, stop: int) -> Expansion:
        """:meth:`expand` of entries ``first..stop-1``: finished as nine_rules writes it
        (0 lost, OPEN, DUPLICATE), children lost at once in slot -1."""
        args, slots = self._kernel_tables(tier)
        n = stop - first
        finished = np.empty(n, dtype=np.int64)
        counts = np.empty(n, dtype=np.int64)
        nine_rules.expand_counts(first, stop, *args, finished, counts)
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        child_slot = np.empty(int(starts[-1]), dtype=np.int64)
        child_entry = np.empty(int(starts[-1]), dtype=np.int64)
        nine_rules.expand_children(first, stop, *args, finished, starts, child_slot, child_entry)
        return Expansion(slots, np.zeros(n, dtype=np.int8), finished, starts, child_slot,
                         child_entry)

    def canonical_entries(self, tier, entries: np.ndarray) -> np.ndarray:
        """The canonical entry of the position at each of ``entries``."""
        t = self.index_tables
        sectors = self._sector_table(tier)
        out = np.empty(len(entries), dtype=np.int64)
        nine_rules.canonical_entries(np.ascontiguousarray(entries, dtype=np.int64), sectors,
                                     t.set_index, t.class_base, t.representatives, t.stabilisers,
                                     t.sym_bytes, t.binomial, out)
        return out

    def after_placement_tier(self):
        """The tier of the positions after the last placement when no piece was taken (all
        pieces on the board, White to move): None unless both sides have as many pieces."""
        if self.white_pieces != self.black_pieces:
            return None  # who moves first once the hands are empty depends on the line
        return (0, 0, self.pieces, self.pieces)

    def mill_free(self, tier, entries: np.ndarray) -> np.ndarray:
        """Whether the position at each of ``entries`` has no mill of either side: the
        positions that the last placement reaches without a piece taken, since each mill
        closed while placing takes one."""
        t = self.index_tables
        out = np.empty(len(entries), dtype=np.bool_)
        nine_rules.mill_free(np.ascontiguousarray(entries, dtype=np.int64), self._sector_table(tier),
                             t.set_index, t.class_base, t.representatives, t.stabilisers,
                             t.sym_bytes, t.binomial, self.board.lines, out)
        return out

    def tier_kernels(self, tier, children: dict) -> TierKernels:
        args, slots = self._kernel_tables(tier)
        home = self._layout[0].index(tuple(tier))
        symmetric = self.index_tables.symmetric
        (sectors, neighbours, lines, lines_through, tier_number, sector_offset, slot_of_tier,
         set_index, class_base, reps, stabilisers, sym_bytes, binomial) = args

        def scan(first, stop, width, finished, counter, counts, child_value):
            return nine_rules.scan(first, stop, home, *args, width, finished, counter, counts,
                                   values, child_value, symmetric)

        def parents(entries, width, out, counts):
            nine_rules.parents(entries, sectors, neighbours, lines, lines_through, tier_number,
                               sector_offset, set_index, class_base, reps, stabilisers, sym_bytes,
                               binomial, width, out, counts)

        def parent_blocks(entries, out):
            nine_rules.parent_blocks(entries, sectors, sector_offset, set_index, class_base, reps,
                                     stabilisers, sym_bytes, binomial, out)

        values = child_values(children, slots[1:], self.value_dtype)
        return TierKernels(self.tier_size(tier), scan, parents if self.loopy(tier) else None,
                           values, 64, 3 * 21, lambda e: self.canonical_entries(tier, e),
                           f"{self.full_name} tier {self.tier_name(tier)}",
                           parent_blocks if self.loopy(tier) else None)


LOST = "lost"  # the expansion's last slot: a child whose mover has fewer than 3 pieces


def _sector_entry(mover: int, other: int, t: Tables) -> tuple[int, int]:
    from .sectors import sector_entry

    return sector_entry(mover, other, t.set_index, t.stabilisers, t.sym_bytes, t.binomial)


def _solving_order(keys: list, children: dict) -> list:
    """The tiers, each after its children (depth first, in a stable order)."""
    done: list = []
    seen: set = set()

    def visit(key, path=()):
        if key in seen:
            return
        for child in children[key]:
            visit(child)
        seen.add(key)
        done.append(key)

    for key in sorted(keys, key=lambda k: (k[0] + k[1], k[2] + k[3], k)):
        visit(key)
    return done
