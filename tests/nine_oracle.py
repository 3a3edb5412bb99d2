"""An independent oracle for nine men's morris, written for the tests apart from retro.

What it is
    The reference retro's nine men's morris databases are checked against: the rules
    (board, moves with placing, sliding, flying and removals, the notation) for any
    piece counts, and two solvers giving every position its exact value (who wins and
    in how many plies, or a draw):

    * :func:`solve` (3 pieces each only): the 3-piece game, placement included, with
      White to move and Black to move solved apart;
    * :func:`solve_game` and :func:`solve_moving` (any piece counts, equal or not, as
      far as memory goes: dense tables of C(24, m) x C(24, o) entries a part; the
      whole 4-piece game takes about 1.5 GB and 15 s): a general retrograde solver
      with slides, flights, removals into smaller parts and draws, from the side to
      move's view (:class:`Part`, :class:`Solved`), with jitted kernels.

    The two agree on every position of the 3-piece game (tests/test_nine_oracle.py).

Why it is independent
    It imports nothing from the package ``retro`` (Python, numpy and numba) and shares
    no code with it. The board is derived from the points' coordinates; the move
    generator :func:`moves` is a plain loop over the rules, which the kernels' move
    loops are checked against; positions are enumerated without any symmetry of the
    board (its 16 symmetries are only checked by the tests); the 3-piece solver does
    not even use the colour swap, and the general solver's one reduction, keeping a
    position and its colour-swapped image as one entry (the rules look at who is to
    move, never at the colours), is proved by the tests on the move generator and
    checked against the 3-piece solver. Sets of points are numbered in the order of
    the sorted tables ``sets(k)`` (the kernels compute that number by the colex
    formula, checked against the tables).

The rules implemented (Gasser's, as Malom plays them)
    24 points on three concentric squares (POINTS, named on a 7x7 grid). Two points
    are adjacent when they are consecutive on a line of the board: the rows and
    columns of the grid, except that the middle row and column are cut at the centre,
    which is no point (a4-b4-c4 | e4-f4-g4, d1-d2-d3 | d5-d6-d7). Every such line
    holds three points and is a mill: 16 mills, 32 adjacent pairs.

    White moves first and the players alternate. A player with pieces in hand places
    one on an empty point; a player with an empty hand slides a piece to an adjacent
    empty point, or flies it to any empty point when it has exactly 3 on the board
    (with unequal counts a player whose hand is empty moves on the board while the
    other still places). A move whose destination completes a mill of the mover's
    removes one opponent piece not standing in a mill, or any if all do; two mills
    at once remove one piece; every choice of removal is its own move. A move that
    completes a mill while the opponent has no piece on the board is not a legal
    move (Malom's convention). A player with fewer than 3 pieces (board and hand) has
    lost, and so has the player to move without a legal move; endless play is a draw.

    Positions: the turn states (hands and side to move) the alternation goes through
    (:func:`turn_states`), with at most (pieces - hand) on the board for each player,
    the side not to move with at least 3 pieces in all and the side to move with at
    least 2 (2: it has just lost).

The value and the algorithms
    The value of a position under perfect play is a win or a loss for the side to
    move in a number of plies (the winner hurries, the loser delays; finished = 0
    plies), or a draw. The 3-piece game (:func:`solve`) is solved in two parts:

    * the moving phase (both hands empty, 3 pieces each, every move a flight) by the
      textbook level-by-level value iteration (see :func:`_solve_moving`: level 0 the
      finished positions, a position becomes a win in n when a move leads to a loss
      in n-1, a loss in n when all its moves lead to wins decided before level n,
      and what is never decided is a draw), vectorised over whole sectors;
    * the placement phase, which has no cycles (every move empties a hand), by
      backward induction: a position's value is the best over its moves of the
      value of the position reached (a loss in p for the opponent gives a win in
      p+1, the fastest preferred; a draw a draw; a win in p for the opponent a loss in
      p+1, the slowest preferred).

    In the 3-piece game every move that closes a mill wins at once (the opponent,
    holding exactly 3 pieces, keeps 2), so such a move's value is "the opponent has
    lost in 0" whichever piece it removes. The solver's move tables are plain lists
    of (destination, the mover's pieces after the move, whether it closes a mill);
    :func:`table_moves` gives them for any position so the tests can check them
    against :func:`moves`, the plain move generator.

    The general solver (see the comment above :class:`Part`): parts with a piece in a
    hand by backward induction, children first; the moving phase, pair of parts by
    pair of parts ((m, o) and (o, m), after the parts its removals lead to), by
    retrograde analysis with counters of the children not yet known to be won
    (:func:`_solve_loopy`); its kernel :func:`_sweep` also checks the definition of
    the value at every position (:meth:`Solved.check_definition`).

Conventions
    Sides: 0 White, 1 Black. Bitboards: bit p set = a piece on point number p (the
    notation's order). Values from the side to move's view: ``outcome`` +1 win, -1
    loss, 0 draw; ``plies`` the distance, -1 for a draw. Solved arrays are indexed
    ``[mover's set, other's set]`` by the sets' numbers in SETS (sorted bitmasks).
"""

from __future__ import annotations

import time
from functools import lru_cache
from itertools import combinations
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit

WHITE = 0
BLACK = 1
SIDE_LETTERS = "WB"
COLOURS = ("white", "black")

# --- the board, from coordinates ----------------------------------------------------------

POINTS = ("a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3",
          "a4", "b4", "c4", "e4", "f4", "g4", "c5", "d5", "e5", "b6", "d6", "f6",
          "a7", "d7", "g7")
"""Point names by number: the notation's order, row 1 first, left to right."""

ROW_SIZES = (3, 3, 3, 6, 3, 3, 3)
"""How many points each group of the notation holds (rows 1..7)."""

N = len(POINTS)


def xy(name: str) -> tuple[int, int]:
    """(column, row), both from 0: a1 = (0, 0), g7 = (6, 6); the centre is (3, 3)."""
    return "abcdefg".index(name[0]), int(name[1:]) - 1


def _board_lines() -> tuple[tuple[int, ...], ...]:
    """The lines of the board as point numbers in order along the line: each row and
    each column of the grid through board points, cut at the centre (3, 3)."""
    lines = []
    for axis in (0, 1):  # 0: a row (points with the same y), 1: a column (same x)
        for c in range(7):
            along = sorted((p for p in range(N) if xy(POINTS[p])[1 - axis] == c),
                           key=lambda p: xy(POINTS[p])[axis])
            if not along:
                continue
            before = [p for p in along if xy(POINTS[p])[axis] < 3 or c != 3]
            after = [p for p in along if xy(POINTS[p])[axis] > 3 and c == 3]
            lines.extend(tuple(part) for part in (before, after) if part)
    return tuple(lines)


LINES = _board_lines()
MILLS = tuple(sum(1 << p for p in line) for line in LINES)
"""Bitmask of each mill (every line of the board holds three points)."""
EDGES = tuple((line[i], line[i + 1]) for line in LINES for i in range(len(line) - 1))
"""Adjacent pairs of point numbers: consecutive points of a line."""
NEIGHBOURS = tuple(tuple(sorted({b for a, b in EDGES if a == p} | {a for a, b in EDGES if b == p}))
                   for p in range(N))
MILLS_THROUGH = tuple(tuple(m for m in MILLS if m >> p & 1) for p in range(N))


def popcount(x: int) -> int:
    return bin(x).count("1")


def bits(x: int) -> list[int]:
    """The point numbers set in bitboard ``x``, increasing."""
    return [p for p in range(N) if x >> p & 1]


def in_mill(pieces: int) -> int:
    """The points of ``pieces`` standing in a mill made of ``pieces``."""
    covered = 0
    for m in MILLS:
        if pieces & m == m:
            covered |= m
    return covered


# --- notation -------------------------------------------------------------------------------

Position = tuple[int, int, int, int, int]
"""(side, white in hand, black in hand, white bitboard, black bitboard)."""


def text(side: int, white_hand: int, black_hand: int, white: int, black: int) -> str:
    """The notation of a position, e.g. ``W 3 3 ... ... ... ...... ... ... ...``."""
    cells = ["W" if white >> p & 1 else "B" if black >> p & 1 else "." for p in range(N)]
    groups, start = [], 0
    for size in ROW_SIZES:
        groups.append("".join(cells[start:start + size]))
        start += size
    return f"{SIDE_LETTERS[int(side)]} {int(white_hand)} {int(black_hand)} " + " ".join(groups)


def parse(notation: str) -> Position:
    """The inverse of :func:`text` (no legality check)."""
    side, white_hand, black_hand, *groups = notation.split()
    cells = "".join(groups)
    if (side not in SIDE_LETTERS or tuple(len(g) for g in groups) != ROW_SIZES
            or set(cells) - set("WB.")):
        raise ValueError(f"not a nine men's morris position: {notation!r}")
    white = sum(1 << p for p, c in enumerate(cells) if c == "W")
    black = sum(1 << p for p, c in enumerate(cells) if c == "B")
    return SIDE_LETTERS.index(side), int(white_hand), int(black_hand), white, black


def move_text(frm: int | None, to: int, removed: int | None) -> str:
    """``d2`` (placement), ``d2-d3`` (slide or flight), ``d2-d3xg7`` (with a removal)."""
    out = POINTS[to] if frm is None else f"{POINTS[frm]}-{POINTS[to]}"
    return out if removed is None else f"{out}x{POINTS[removed]}"


# --- the rules -------------------------------------------------------------------------------


def turn_states(white_pieces: int, black_pieces: int) -> list[tuple[int, int, int]]:
    """``(white hand, black hand, side to move)`` of every ply while a hand is not
    empty, in the order of play, then both sides with empty hands."""
    wh, bh, side = white_pieces, black_pieces, WHITE
    states = []
    while (wh, bh) != (0, 0):
        states.append((wh, bh, side))
        if side == WHITE and wh > 0:
            wh -= 1
        elif side == BLACK and bh > 0:
            bh -= 1
        side = 1 - side
    return states + [(0, 0, WHITE), (0, 0, BLACK)]


def _mover(position: Position) -> tuple[int, int, int, int]:
    """(mover's pieces, other's pieces, mover's hand, other's hand)."""
    side, wh, bh, white, black = position
    return (white, black, wh, bh) if side == WHITE else (black, white, bh, wh)


def _from_mover(side: int, mover: int, other: int, mover_hand: int, other_hand: int) -> Position:
    """The position with ``side`` to move, from the mover's view."""
    if side == WHITE:
        return side, mover_hand, other_hand, mover, other
    return side, other_hand, mover_hand, other, mover


def steps(mover: int, other: int, hand: int) -> list[tuple[int | None, int]]:
    """The (from, to) of the mover's moves before removals: placements (from None) on
    the empty points with a piece in hand; else flights from each piece to each empty
    point with exactly 3 on the board; else slides to adjacent empty points."""
    empty = [p for p in range(N) if not (mover | other) >> p & 1]
    if hand > 0:
        return [(None, q) for q in empty]
    if popcount(mover) == 3:
        return [(p, q) for p in bits(mover) for q in empty]
    return [(p, q) for p in bits(mover) for q in NEIGHBOURS[p] if q in empty]


def moves(position: Position) -> list[tuple[str, Position]]:
    """The legal moves of a position as ``(move text, position after it)``; none if
    the side to move has fewer than 3 pieces (it has lost)."""
    side = position[0]
    mover, other, hand, other_hand = _mover(position)
    if popcount(mover) + hand < 3:
        return []
    out = []
    for frm, to in steps(mover, other, hand):
        after = (mover | 1 << to) if frm is None else (mover & ~(1 << frm)) | 1 << to
        closes = any(after & m == m for m in MILLS_THROUGH[to])
        if not closes:
            removals: list[int | None] = [None]
        elif other == 0:
            continue  # a mill with nothing to remove: not a legal move (Malom)
        else:
            free = [r for r in bits(other) if not in_mill(other) >> r & 1]
            removals = free or bits(other)
        new_hand = hand - 1 if frm is None else hand
        for r in removals:
            new_other = other if r is None else other & ~(1 << r)
            child = _from_mover(1 - side, new_other, after, other_hand, new_hand)
            out.append((move_text(frm, to, r), child))
    return out


def finished(position: Position) -> int:
    """-1 when the side to move has lost (fewer than 3 pieces, or no legal move), else 0.
    (A position is never won for the side to move: the loser is always to move.)"""
    mover, _, hand, _ = _mover(position)
    if popcount(mover) + hand < 3 or not moves(position):
        return -1
    return 0


# --- sets of points and the move tables -------------------------------------------------------


@lru_cache(maxsize=None)
def sets(k: int) -> np.ndarray:
    """Every set of k points as a bitmask, increasing (int64)."""
    return np.array(sorted(sum(1 << p for p in c) for c in combinations(range(N), k)),
                    dtype=np.int64)


@lru_cache(maxsize=None)
def set_number(k: int) -> dict[int, int]:
    """Bitmask -> its number in ``sets(k)``."""
    return {int(mask): i for i, mask in enumerate(sets(k))}


@lru_cache(maxsize=None)
def occupied(k: int) -> np.ndarray:
    """Bool (24, C(24, k)): point p is in set i."""
    s = sets(k)
    return np.array([(s >> p) & 1 for p in range(N)], dtype=bool)


class MoveTable(NamedTuple):
    """The moves of a set of the mover's pieces (one row per set, numbered as in
    ``sets(k)``): ``source`` (-1 for a placement), ``to``, ``after`` (the number of the
    mover's set after the move, in ``sets(k')``) and ``closes`` (the move closes a mill
    through ``to``). A move is legal in a position when ``to`` is empty: the tables
    never put a piece on the mover's own, the position must check the other's."""

    source: np.ndarray
    to: np.ndarray
    after: np.ndarray
    closes: np.ndarray


def _table(k: int, rows: list[list[tuple[int, int, int]]], k_after: int) -> MoveTable:
    number = set_number(k_after)
    source = np.array([[f for f, _, _ in row] for row in rows], dtype=np.int64)
    to = np.array([[t for _, t, _ in row] for row in rows], dtype=np.int64)
    after = np.array([[number[a] for _, _, a in row] for row in rows], dtype=np.int64)
    closes = np.array([[any(a & m == m for m in MILLS_THROUGH[t]) for _, t, a in row]
                       for row in rows], dtype=bool)
    return MoveTable(source, to, after, closes)


@lru_cache(maxsize=None)
def placement_table(k: int) -> MoveTable:
    """Placements from a set of k pieces: every point not in the set."""
    rows = [[(-1, q, int(s) | 1 << q) for q in range(N) if not int(s) >> q & 1] for s in sets(k)]
    return _table(k, rows, k + 1)


@lru_cache(maxsize=None)
def flight_table() -> MoveTable:
    """Flights from a set of 3 pieces: any piece to any point not in the set."""
    rows = [[(p, q, (int(s) & ~(1 << p)) | 1 << q) for p in bits(int(s)) for q in range(N)
             if not int(s) >> q & 1] for s in sets(3)]
    return _table(3, rows, 3)


# --- the 3-piece game: sectors, solving ------------------------------------------------------


class Sector(NamedTuple):
    """Positions with these hands and side to move and these numbers of pieces on the
    board for the mover and the other side."""

    side: int
    white_hand: int
    black_hand: int
    mover_on: int
    other_on: int

    @property
    def mover_hand(self) -> int:
        return self.white_hand if self.side == WHITE else self.black_hand

    @property
    def other_hand(self) -> int:
        return self.black_hand if self.side == WHITE else self.white_hand

    @property
    def lost(self) -> bool:
        """The side to move has fewer than 3 pieces: every position is lost in 0."""
        return self.mover_on + self.mover_hand < 3


def sectors(white_pieces: int, black_pieces: int) -> list[Sector]:
    """Every sector of the game, turn state by turn state in the order of play."""
    out = []
    for wh, bh, side in turn_states(white_pieces, black_pieces):
        mh, oh = (wh, bh) if side == WHITE else (bh, wh)
        most_m, most_o = ((white_pieces - wh, black_pieces - bh) if side == WHITE
                          else (black_pieces - bh, white_pieces - wh))
        for m in range(most_m + 1):
            for o in range(most_o + 1):
                if m + mh >= 2 and o + oh >= 3 and m + o <= N:
                    out.append(Sector(side, wh, bh, m, o))
    return out


def valid(sector: Sector) -> np.ndarray:
    """Bool [mover's set, other's set]: the two sets are disjoint (a position)."""
    return (sets(sector.mover_on)[:, None] & sets(sector.other_on)[None, :]) == 0


def _child_sector(sector: Sector) -> Sector:
    """Where the moves of a sector lead when they remove nothing."""
    side, wh, bh, m, o = sector
    if sector.mover_hand > 0:
        wh, bh, m = (wh - 1, bh, m + 1) if side == WHITE else (wh, bh - 1, m + 1)
    return Sector(1 - side, wh, bh, o, m)


def _table_of(sector: Sector) -> MoveTable:
    if sector.mover_hand > 0:
        return placement_table(sector.mover_on)
    if sector.mover_on == 3:
        return flight_table()
    raise NotImplementedError("slides: the 3-piece game has none")


def dense_children(solution: Solution, sector: Sector, rows: slice = slice(None)):
    """The moves of every position of ``sector`` whose mover's set is in ``rows``, as
    arrays of shape (mover's sets, moves of the table, other's sets):
    ``(legal, outcome, plies)`` of the position each legal move leads to, from its
    mover's view; a move closing a mill leads to a loss in 0 (the opponent keeps 2).
    (Entries of non-positions, where the two sets overlap, mean nothing.)"""
    table = _table_of(sector)
    child = _child_sector(sector)
    legal = ~occupied(sector.other_on)[table.to[rows]]  # (24 -> rows, moves, other's sets)
    # The child is indexed [its mover's set = our other's, its other's = our mover's after].
    outcome = solution.outcome[child].T[table.after[rows]]
    plies = solution.plies[child].T[table.after[rows]]
    closes = table.closes[rows][:, :, None]
    outcome = np.where(closes, np.int8(-1), outcome)
    plies = np.where(closes, np.int16(0), plies)
    return legal, outcome, plies


def as_value(answer) -> tuple[str | None, int | None]:
    """A probe's answer (anything with ``winner``, holding ``.value``, or None, and
    ``plies``) in the form :meth:`_Values.value` gives: what the tests compare."""
    return (None if answer.winner is None else answer.winner.value), answer.plies


class _Values:
    """What both solutions answer: a position's value, from ``mover_value`` (the side to
    move's outcome, +1 won, -1 lost, 0 drawn, and the plies)."""

    def mover_value(self, position: Position) -> tuple[int, int]:
        raise NotImplementedError

    def value(self, position: Position | str) -> tuple[str | None, int | None]:
        """``(winner "white"/"black", plies)``, or ``(None, None)`` for a draw."""
        if isinstance(position, str):
            position = parse(position)
        outcome, plies = self.mover_value(position)
        if outcome == 0:
            return None, None
        side = position[0]
        return COLOURS[side if outcome > 0 else 1 - side], plies


class Solution(_Values):
    """Every position of the game with ``pieces`` each, and its value.

    ``outcome[sector]`` (int8) and ``plies[sector]`` (int16) are indexed ``[mover's
    set, other's set]`` (numbers in ``sets``); entries where the sets overlap are no
    positions (outcome 0, plies -2)."""

    def __init__(self, pieces: int) -> None:
        self.pieces = pieces
        self.sectors = sectors(pieces, pieces)
        self.outcome: dict[Sector, np.ndarray] = {}
        self.plies: dict[Sector, np.ndarray] = {}

    def mover_value(self, position: Position) -> tuple[int, int]:
        """``(outcome, plies)`` from the side to move's view."""
        side, wh, bh = position[:3]
        mover, other, _, _ = _mover(position)
        sector = Sector(side, wh, bh, popcount(mover), popcount(other))
        if sector not in self.outcome:
            raise KeyError(text(*position))
        a = set_number(sector.mover_on)[mover]
        b = set_number(sector.other_on)[other]
        if mover & other:
            raise KeyError(text(*position))
        return int(self.outcome[sector][a, b]), int(self.plies[sector][a, b])

    def positions(self, sector: Sector):
        """The positions of a sector as arrays over its valid entries: ``(white, black,
        outcome, plies)`` (bitboards int64; outcome from the mover's view)."""
        ok = valid(sector)
        a, b = np.nonzero(ok)
        mover, other = sets(sector.mover_on)[a], sets(sector.other_on)[b]
        white, black = (mover, other) if sector.side == WHITE else (other, mover)
        return white, black, self.outcome[sector][a, b], self.plies[sector][a, b]

    def __len__(self) -> int:
        return sum(int(valid(s).sum()) for s in self.sectors)


def _packed_rows(matrix: np.ndarray) -> np.ndarray:
    """A bool matrix's rows packed into 64-bit words (bits beyond the last column 0)."""
    packed = np.packbits(np.ascontiguousarray(matrix), axis=1)
    width = -(-packed.shape[1] // 8) * 8
    padded = np.zeros((packed.shape[0], width), dtype=np.uint8)
    padded[:, :packed.shape[1]] = packed
    return padded.view(np.uint64)


def _over_moves(child: np.ndarray, after: np.ndarray, reduce) -> np.ndarray:
    """``out[a, b] = reduce over k of child[b, after[a, k]]`` for a square bool matrix
    ``child`` (a child position is indexed [our other's set, our mover's set after])."""
    n = child.shape[0]
    words = _packed_rows(child.T)[after]  # (a, k, words over b)
    reduced = reduce(words, axis=1)
    return np.unpackbits(reduced.view(np.uint8), axis=1, count=n).astype(bool)


def _solve_moving(solution: Solution, white_to_move: Sector, black_to_move: Sector) -> None:
    """The moving phase with 3 pieces each (flights only), both sides to move, by the
    level-by-level value iteration.

    Level 1: a position with a legal flight closing a mill is a win in 1 (every
    removal leaves the opponent with 2: lost in 0); these are the only positions with
    a finished successor (no position of the phase is finished itself: 18 points are
    empty, a flight is always there). At level n = 2, 3, ..., among the positions
    still undecided (so with no mill-closing flight: the other moves reach positions
    of the phase, the child of flight a -> a' being [b, a'] in the other sector): one
    with a successor lost in n-1 becomes a win in n; one whose successors are all
    wins decided before level n becomes a loss in n. The first level deciding
    nothing ends the iteration; the positions never decided are draws. (The argument
    that this is exactly the value is the one of morris_oracle.value_iteration.)"""
    table = flight_table()
    n = len(sets(3))
    ok = valid(white_to_move)
    closing = np.zeros(n, dtype=np.int64)  # destinations of mill-closing flights
    for a in range(n):
        for to in table.to[a][table.closes[a]]:
            closing[a] |= 1 << int(to)
    win_in_1 = ok & ((closing[:, None] & ~sets(3)[None, :]) != 0)
    both = (white_to_move, black_to_move)
    outcome = {s: np.zeros((n, n), dtype=np.int8) for s in both}
    plies = {s: np.full((n, n), -1, dtype=np.int16) for s in both}
    for s in both:
        outcome[s][win_in_1] = 1
        plies[s][win_in_1] = 1
    level = 1
    while True:
        level += 1
        lost_before = {s: (outcome[s] == -1) & (plies[s] == level - 1) for s in both}
        won_before = {s: (outcome[s] == 1) | ~ok for s in both}  # non-positions: no move
        decided = {}
        for s, other in ((white_to_move, black_to_move), (black_to_move, white_to_move)):
            undecided = ok & (plies[s] < 0)
            wins = undecided & _over_moves(lost_before[other], table.after, np.bitwise_or.reduce)
            losses = undecided & ~wins & _over_moves(won_before[other], table.after,
                                                     np.bitwise_and.reduce)
            decided[s] = (wins, losses)
        if not any(w.any() or lo.any() for w, lo in decided.values()):
            break
        for s, (wins, losses) in decided.items():
            outcome[s][wins], plies[s][wins] = 1, level
            outcome[s][losses], plies[s][losses] = -1, level
    for s in both:
        plies[s][~ok] = -2
        solution.outcome[s], solution.plies[s] = outcome[s], plies[s]


def _solve_placement(solution: Solution, sector: Sector) -> None:
    """A sector whose mover places: the best move's value, by backward induction.

    Each legal move's value for the mover is encoded as a key, larger = better: a
    move to a loss in p of the opponent is a win in p+1, key 2000 - (p+1); to a draw,
    key 1000; to a win in p of the opponent, a loss in p+1, key p+1. The position's
    key is the largest (no legal move: key 0, lost in 0)."""
    ok = valid(sector)
    key = np.zeros(ok.shape, dtype=np.int16)
    step = 64  # rows at a time (memory)
    for start in range(0, ok.shape[0], step):
        rows = slice(start, start + step)
        legal, outcome, plies = dense_children(solution, sector, rows)
        keys = np.where(outcome == -1, 2000 - (plies + 1),
                        np.where(outcome == 0, 1000, plies + 1)).astype(np.int16)
        keys[~legal] = 0
        key[rows] = keys.max(axis=1)
    win, draw = key > 1000, key == 1000
    outcome = np.where(win, 1, np.where(draw, 0, -1)).astype(np.int8)
    plies = np.where(win, 2000 - key, np.where(draw, -1, key)).astype(np.int16)
    outcome[~ok], plies[~ok] = 0, -2
    solution.outcome[sector], solution.plies[sector] = outcome, plies


def _solve_lost(solution: Solution, sector: Sector) -> None:
    ok = valid(sector)
    solution.outcome[sector] = np.where(ok, -1, 0).astype(np.int8)
    solution.plies[sector] = np.where(ok, 0, -2).astype(np.int16)


@lru_cache(maxsize=None)
def solve(pieces: int = 3) -> Solution:
    """Every position of nine men's morris with ``pieces`` = 3 each (placement
    included), with its value."""
    if pieces != 3:
        raise NotImplementedError("this solver does the 3-piece game only: solve_game(w, b) "
                                  "solves any")
    solution = Solution(pieces)
    for sector in solution.sectors:
        # The premises of the shortcuts: the other side holds exactly 3 (a mill wins at
        # once) and has pieces on the board whenever the mover can close a mill.
        assert sector.other_on + sector.other_hand == pieces
        assert sector.lost or sector.mover_on + 1 < 3 or sector.other_on > 0
    moving = [s for s in solution.sectors if s.white_hand == s.black_hand == 0 and not s.lost]
    assert sorted(moving) == [Sector(WHITE, 0, 0, 3, 3), Sector(BLACK, 0, 0, 3, 3)]
    _solve_moving(solution, Sector(WHITE, 0, 0, 3, 3), Sector(BLACK, 0, 0, 3, 3))
    for sector in solution.sectors:
        if sector.lost:
            _solve_lost(solution, sector)
    for sector in reversed(solution.sectors):  # children before parents
        if not sector.lost and sector not in solution.outcome:
            _solve_placement(solution, sector)
    return solution


def table_moves(position: Position) -> list[tuple[int | None, int, bool, Position | None]]:
    """The legal moves of a position of the 3-piece game as the solver's tables see
    them: ``(from or None, to, closes a mill, position after it or None when it
    closes a mill)`` (the tables do not list the removals)."""
    side, wh, bh = position[:3]
    mover, other, mh, oh = _mover(position)
    sector = Sector(side, wh, bh, popcount(mover), popcount(other))
    if sector.lost:
        return []
    table = _table_of(sector)
    a = set_number(sector.mover_on)[mover]
    child = _child_sector(sector)
    after_sets = sets(child.other_on)
    out = []
    for k in range(table.to.shape[1]):
        to = int(table.to[a, k])
        if other >> to & 1:
            continue
        source = int(table.source[a, k])
        closes = bool(table.closes[a, k])
        after = int(after_sets[table.after[a, k]])
        new_hand = mh - 1 if source < 0 else mh
        reached = None if closes else _from_mover(1 - side, other, after, oh, new_hand)
        out.append((None if source < 0 else source, to, closes, reached))
    return out


def position_count(white_pieces: int, black_pieces: int) -> int:
    """How many positions the game has (the legality rule above, counted)."""
    total = 0
    for s in sectors(white_pieces, black_pieces):
        total += comb(N, s.mover_on) * comb(N - s.mover_on, s.other_on)
    return total


# =============================================================================================
# The general solver: any piece counts, slides included, by retrograde analysis with draws.
# =============================================================================================
#
# Positions are taken from the side to move's view: a *part* (mover's hand, other's hand,
# mover's pieces on the board, other's pieces on the board) holds the positions
# [mover's set, other's set] with those counts, whatever the colour (the rules never look
# at colours, only at who is to move: :func:`moves` is written that way, and the tests
# check that swapping the colours of a position swaps those of its moves' positions, so
# a position and its colour-swapped image have the same value). Each part is a dense
# table over (sets of the mover's size) x (sets of the other's size), numbered as in
# ``sets(k)``; entries whose sets overlap are no positions. All parts' tables live in
# two flat arrays (``state`` int8: +1 won, -1 lost, 0 drawn, -2 no position, for the
# side to move; ``plies`` int16: the distance, -1 drawn, -2 no position) so that the
# jitted kernels can read any part's values.
#
# Solving order: hands never grow, and while a hand holds a piece every other ply at
# least is a placement (the players alternate), which lowers it. The parts with a piece
# in a hand are therefore acyclic and solved by backward induction, every child first
# (:func:`_sweep`, SOLVE). The moving parts (both hands empty) go back and forth
# between (m, o) and (o, m) by plain moves: such a pair (or one part, m = o) is solved
# together by retrograde analysis (:func:`_solve_loopy`), after the parts its removals
# lead to ((o - 1, m): fewer pieces; a child whose mover has fewer than 3 pieces is lost
# in 0 and not stored).
#
# Keys (larger is better for the mover) rank a child's value: a child lost in p (the
# mover wins in p + 1) has key BIG - p; a drawn child MID; a child won in p (the mover
# loses in p + 1) key p + 1; no move at all key 0. The value of a position is that of
# its best key (the definition; :func:`_sweep`, :func:`_decode`).

BIG = 30000
MID = 15000
NEVER = 30000  # a counter that never runs out: the position has a removal not losing
FULL = (1 << N) - 1


class Part(NamedTuple):
    """Positions from the side to move's view: hands and pieces on the board."""

    mover_hand: int
    other_hand: int
    mover_on: int
    other_on: int

    @property
    def lost(self) -> bool:
        """The side to move has fewer than 3 pieces: lost in 0 (no table is kept)."""
        return self.mover_on + self.mover_hand < 3

    @property
    def moving(self) -> bool:
        return self.mover_hand == 0 and self.other_hand == 0


def part_of(position: Position) -> tuple[Part, int, int]:
    """(part, mover's set, other's set) of a position."""
    mover, other, mh, oh = _mover(position)
    return Part(mh, oh, popcount(mover), popcount(other)), mover, other


def part_of_sector(sector: Sector) -> Part:
    return Part(sector.mover_hand, sector.other_hand, sector.mover_on, sector.other_on)


def game_parts(white_pieces: int, black_pieces: int) -> list[Part]:
    """The parts of the whole game (placement included) whose mover has not lost."""
    found = {part_of_sector(s) for s in sectors(white_pieces, black_pieces)}
    return sorted(p for p in found if not p.lost)


def moving_parts(white_pieces: int, black_pieces: int) -> list[Part]:
    """The moving phase of a game: both hands empty, 3 or more on the board each."""
    return sorted(p for p in game_parts(white_pieces, black_pieces) if p.moving)


def child_parts(part: Part) -> list[Part]:
    """The parts the moves of ``part`` lead to (a plain move, a removal), lost ones left
    out."""
    mh, oh, m, o = part
    hand, on = (mh - 1, m + 1) if mh > 0 else (mh, m)
    out = [Part(oh, hand, o, on)]
    if o > 0:
        out.append(Part(oh, hand, o - 1, on))
    return [p for p in out if not p.lost]


def _groups(parts: list[Part]) -> list[tuple[Part, ...]]:
    """The parts in solving order, a moving pair (m, o), (o, m) as one group: every
    group after the groups its children are in."""
    group_of = {}
    for p in parts:
        if p.moving:
            pair = tuple(sorted({p, Part(0, 0, p.other_on, p.mover_on)}))
            group_of[p] = pair
        else:
            group_of[p] = (p,)
    order: list[tuple[Part, ...]] = []
    state: dict = {}

    def visit(group):
        if state.get(group) == 2:
            return
        assert state.get(group) != 1, f"a cycle through {group}"
        state[group] = 1
        for p in group:
            if p not in group_of:
                raise ValueError(f"part {p} is missing")
            for c in child_parts(p):
                if c not in group_of:
                    raise ValueError(f"the moves of {p} lead to {c}, which is not solved")
                if group_of[c] != group:
                    visit(group_of[c])
        state[group] = 2
        order.append(group)

    for p in sorted(parts):
        visit(group_of[p])
    return order


@lru_cache(maxsize=None)
def colex_table() -> np.ndarray:
    """For :func:`_number`: ``table[k, byte, before]`` (int64, 3 x 256 x 25) the sum of
    C(p, i) over the points p of ``byte`` as the k-th byte of a bitboard (p = 8k + its
    bit), i counting them from ``before`` + 1 up."""
    table = np.zeros((3, 256, N + 1), dtype=np.int64)
    for k in range(3):
        for byte in range(256):
            for before in range(N + 1):
                i, total = before, 0
                for bit in range(8):
                    if byte >> bit & 1:
                        i += 1
                        total += comb(8 * k + bit, i)
                table[k, byte, before] = total
    table.setflags(write=False)
    return table


def number_of(mask: int) -> int:
    """The number of a set in ``sets(k)`` (k its size), by search in the sorted table."""
    k = popcount(mask)
    i = int(np.searchsorted(sets(k), mask))
    if i == len(sets(k)) or int(sets(k)[i]) != mask:
        raise KeyError(mask)
    return i


@lru_cache(maxsize=None)
def board_arrays() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the kernels: neighbours (24, 4) padded with -1; the two mills through each
    point (24, 2); the 16 mills; the point completing the mill of two points (24, 24;
    -1 if they are on no mill)."""
    neighbours = np.full((N, 4), -1, dtype=np.int64)
    through = np.zeros((N, 2), dtype=np.int64)
    third = np.full((N, N), -1, dtype=np.int64)
    for p in range(N):
        neighbours[p, :len(NEIGHBOURS[p])] = NEIGHBOURS[p]
        assert len(MILLS_THROUGH[p]) == 2  # every point lies on one row and one column
        through[p] = MILLS_THROUGH[p]
    for mill in MILLS:
        for p, q, r in ((0, 1, 2), (1, 2, 0), (0, 2, 1)):
            line = bits(mill)
            third[line[p], line[q]] = third[line[q], line[p]] = line[r]
    return neighbours, through, np.array(MILLS, dtype=np.int64), third


# --- the kernels -------------------------------------------------------------------------------


@njit(cache=True)
def _count(x):
    """The number of points of a set (a bitboard)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56


@njit(cache=True)
def _number(mask, colex):
    """The number of a set in ``sets(k)``: sets of k points in increasing order of their
    bitmasks are in colexicographic order, where the set p1 < p2 < ... < pk comes after
    C(p1, 1) + C(p2, 2) + ... + C(pk, k) others (a byte at a time: :func:`colex_table`;
    checked against the sorted tables by the tests)."""
    low = mask & 255
    middle = (mask >> 8) & 255
    before = _count(low)
    return (colex[0, low, 0] + colex[1, middle, before]
            + colex[2, (mask >> 16) & 255, before + _count(middle)])


@njit(cache=True)
def _closes(after, to, through):
    """Whether a piece arriving on ``to`` completes a mill of ``after`` (the mover's
    pieces after the move)."""
    m0 = through[to, 0]
    m1 = through[to, 1]
    return (after & m0) == m0 or (after & m1) == m1


@njit(cache=True)
def _key(child_state, child_plies):
    """A child's key (the child's value is from its own mover's view); -1 when the
    child is no position (a bug)."""
    if child_state == -1:
        return BIG - child_plies
    if child_state == 1:
        return child_plies + 1
    if child_state == 0:
        return MID
    return -1


@njit(cache=True)
def _decode(best):
    """(state, plies) of a position whose best child has key ``best``."""
    if best == 0:
        return -1, 0  # no legal move: lost
    if best > MID:
        return 1, BIG - best + 1
    if best == MID:
        return 0, -1
    return -1, best


SOLVE, START, CHECK = 0, 1, 2  # what :func:`_sweep` does


@njit(cache=True)
def _sweep(mode, mh, oh, msets, osets, state, plies, part_id, offset, columns, colex,
           neighbours, through, mills, third, work_base, work_state, work_plies, counter,
           event, current, n_current):
    """Every entry [a, b] of the part (mh, oh, |a|, |b|) (``msets`` x ``osets``), its
    moves and the values of their children; then, by ``mode``:

    SOLVE (a part whose children are all solved): its value is its best move's
    (backward induction), written to the flat arrays.

    START (a moving part, for :func:`_solve_loopy`): only the moves with a removal
    are valued (they leave the group); the others are counted. Written to the
    group's arrays at ``work_base + b's number * len(msets) + a's number``: positions
    without a legal move lost in 0 (and listed in ``current``), the counters and the
    events (see :func:`_solve_loopy`).

    CHECK: the value in the flat arrays is the best move's.

    The moves: a placement on each empty point with a piece in hand; else a flight of
    each piece to each empty point with exactly 3 on the board; else a slide to an
    adjacent empty point. One closing a mill (through its destination) removes a
    piece of the other's not in a mill, or any if all are, each its own move, and is
    no move when the other has no piece on the board. The child of a move is
    [b, after] (or [b - removed, after]) from its mover's view, hands (oh, mh less one
    for a placement): lost in 0 when that mover has fewer than 3 pieces.

    Returns (entries with a child not solved, n_current, the last event's level,
    entries checked, wrong, the first wrong cell)."""
    m = _count(msets[0])
    o = _count(osets[0])
    width = len(osets)
    base = offset[part_id[mh, oh, m, o]]
    placing = mh > 0
    hand = mh - 1 if placing else mh
    on = m + 1 if placing else m
    flying = not placing and m == 3
    plain_wanted = mode != START
    # The parts of the children: plain moves, moves with a removal.
    plain_lost = o + oh < 3
    plain_part = -1 if plain_lost else part_id[oh, hand, o, on]
    capture_lost = o - 1 + oh < 3
    capture_part = -1 if capture_lost or o == 0 else part_id[oh, hand, o - 1, on]
    errors = 0
    if plain_wanted and not plain_lost and plain_part < 0:
        errors += 1
    if o > 0 and not capture_lost and capture_part < 0:
        errors += 1
    most = -1
    checked = 0
    wrong = 0
    first_wrong = -1
    frm = np.empty(80, dtype=np.int64)
    to = np.empty(80, dtype=np.int64)
    rows = np.empty(N, dtype=np.int64)
    if errors:
        return errors, n_current, most, checked, wrong, first_wrong
    for j in range(width):  # the other's set outside: the children of [a, b] are [b, .]
        b = osets[j]
        plain_row = -1
        if plain_part >= 0:
            plain_row = offset[plain_part] + _number(b, colex) * columns[plain_part]
        covered = 0
        for mill in mills:
            if b & mill == mill:
                covered |= mill
        removable = b & ~covered
        if removable == 0:
            removable = b
        r_count = 0
        for r in range(N):
            if (removable >> r) & 1:
                rows[r_count] = -1
                if capture_part >= 0:
                    rest = b & ~(np.int64(1) << r)
                    rows[r_count] = (offset[capture_part]
                                     + _number(rest, colex) * columns[capture_part])
                r_count += 1
        for i in range(len(msets)):
            a = msets[i]
            cell = base + i * width + j
            if a & b:
                if mode == SOLVE:
                    state[cell] = -2
                    plies[cell] = -2
                elif mode == START:
                    work_state[work_base + j * len(msets) + i] = -2
                    work_plies[work_base + j * len(msets) + i] = -2
                elif state[cell] != -2 or plies[cell] != -2:
                    wrong += 1
                continue
            # The steps (from, to) before removals.
            empty = FULL & ~(a | b)
            n = 0
            plain_count = 0
            if flying and not plain_wanted:
                # Only the flights closing a mill are visited (the two pieces left
                # behind and the point completing their mill); the others counted.
                p0 = p1 = p2 = -1
                for p in range(N):
                    if (a >> p) & 1:
                        if p0 < 0:
                            p0 = p
                        elif p1 < 0:
                            p1 = p
                        else:
                            p2 = p
                for x in range(3):
                    f = p0 if x == 0 else p1 if x == 1 else p2
                    u = p1 if x == 0 else p0
                    v = p1 if x == 2 else p2
                    t = third[u, v]
                    if t >= 0 and (empty >> t) & 1:
                        frm[n] = f
                        to[n] = t
                        n += 1
                plain_count = 3 * _count(empty) - n
            elif placing:
                for t in range(N):
                    if (empty >> t) & 1:
                        frm[n] = -1
                        to[n] = t
                        n += 1
            elif flying:
                for f in range(N):
                    if (a >> f) & 1:
                        for t in range(N):
                            if (empty >> t) & 1:
                                frm[n] = f
                                to[n] = t
                                n += 1
            else:
                for f in range(N):
                    if (a >> f) & 1:
                        for k in range(4):
                            t = neighbours[f, k]
                            if t >= 0 and (empty >> t) & 1:
                                frm[n] = f
                                to[n] = t
                                n += 1
            # The moves and their children.
            best = 0
            capture_count = 0
            bad = False
            for k in range(n):
                f = frm[k]
                t = to[k]
                if f < 0:
                    after = a | (np.int64(1) << t)
                else:
                    after = (a & ~(np.int64(1) << f)) | (np.int64(1) << t)
                if _closes(after, t, through):
                    if b == 0:
                        continue  # nothing to remove: not a legal move
                    capture_count += r_count
                    if capture_lost:
                        best = BIG  # the other keeps 2: lost in 0
                    else:
                        after_number = _number(after, colex)
                        for x in range(r_count):
                            key = _key(state[rows[x] + after_number], plies[rows[x] + after_number])
                            if key < 0:
                                bad = True
                            elif key > best:
                                best = key
                else:
                    plain_count += 1
                    if plain_wanted:
                        if plain_lost:
                            best = BIG
                        else:
                            child = plain_row + _number(after, colex)
                            key = _key(state[child], plies[child])
                            if key < 0:
                                bad = True
                            elif key > best:
                                best = key
            if bad:
                errors += 1
                continue
            if mode == SOLVE:
                s, p = _decode(best)
                state[cell] = s
                plies[cell] = p
            elif mode == CHECK:
                s, p = _decode(best)
                checked += 1
                if s != state[cell] or p != plies[cell]:
                    wrong += 1
                    if first_wrong < 0:
                        first_wrong = cell
            else:
                w = work_base + j * len(msets) + i
                work_state[w] = 0
                work_plies[w] = -1
                if plain_count + capture_count == 0:
                    work_state[w] = -1
                    work_plies[w] = 0
                    current[n_current] = w
                    n_current += 1
                elif best > MID:  # a removal wins in BIG - best + 1
                    counter[w] = NEVER
                    event[w] = 2 * (BIG - best + 1) + 1
                elif best == MID:  # a removal draws
                    counter[w] = NEVER
                elif capture_count > 0:  # every removal loses, the slowest in best plies
                    counter[w] = plain_count + 1
                    event[w] = 2 * (best - 1)
                else:
                    counter[w] = plain_count
                if event[w] >> 1 > most:
                    most = event[w] >> 1
    return errors, n_current, most, checked, wrong, first_wrong


@njit(cache=True)
def _solve_loopy(group, all_sets, set_start, state, plies, part_id, offset, columns, colex,
                 neighbours, through, mills, third, positions):
    """Retrograde analysis of a moving group: the parts (0, 0, m, o) listed in ``group``
    (rows m, o: one part, or a pair (m, o), (o, m)), holding ``positions`` positions;
    every part a removal leads to solved. Returns the number of entries with an
    unsolved child (0).

    1. Every position (:func:`_sweep`, START): its plain moves (which stay in the
       group) are counted; its moves with a removal leave the group and are valued at
       once. A position without a legal move is lost in 0. One with a removal to a
       child lost in p is a win in p + 1 at the latest (an event at level p + 1); one
       with a removal to a drawn child never loses (its counter never runs out); one
       whose removals all lead to children won, the slowest in p, counts them as one
       more child won at level p (an event at level p).
    2. Level n = 0, 1, 2, ...: the positions decided at n (wins from events; those
       found at level n - 1) are final. Each one's predecessors in the group (its
       un-moves: a piece of the other side, not standing in a mill it would have
       closed, goes back to an empty point it came from) still undecided: a win in
       n + 1 if it is lost; one child fewer to hear from if it is won, and when none
       is left (all won, the slowest at n) a loss in n + 1.
    3. What is never decided is a draw.

    The work is done in the group's own arrays, each part's table stored the other
    way round ([other's set, mover's set]: the predecessors of [M, P] are [., M], one
    block), and each level's positions are taken in order of their mover's set M
    (a counting sort); the values are copied to the flat arrays at the end."""
    parts = group.shape[0]
    mover_count = np.empty(parts, dtype=np.int64)  # sets of the mover's size (a block)
    other_count = np.empty(parts, dtype=np.int64)
    local = np.zeros(parts + 1, dtype=np.int64)  # where each part starts here
    partner = np.zeros(parts, dtype=np.int64)  # the part the plain moves lead to
    for g in range(parts):
        mover_count[g] = set_start[group[g, 0] + 1] - set_start[group[g, 0]]
        other_count[g] = set_start[group[g, 1] + 1] - set_start[group[g, 1]]
        local[g + 1] = local[g] + mover_count[g] * other_count[g]
        for h in range(parts):
            if group[h, 0] == group[g, 1] and group[h, 1] == group[g, 0]:
                partner[g] = h
    size = local[parts]
    bucket_base = np.zeros(parts + 1, dtype=np.int64)
    for g in range(parts):
        bucket_base[g + 1] = bucket_base[g] + mover_count[g]
    work_state = np.zeros(size, dtype=np.int8)
    work_plies = np.full(size, -1, dtype=np.int16)
    counter = np.zeros(size, dtype=np.int16)
    event = np.full(size, -1, dtype=np.int32)
    current = np.empty(positions, dtype=np.int32)
    following = np.empty(positions, dtype=np.int32)
    ordered_current = np.empty(positions, dtype=np.int32)
    bucket_fill = np.zeros(bucket_base[parts] + 1, dtype=np.int64)
    errors = 0
    n_current = 0
    most = -1
    for g in range(parts):
        m = group[g, 0]
        o = group[g, 1]
        msets = all_sets[set_start[m]:set_start[m + 1]]
        osets = all_sets[set_start[o]:set_start[o + 1]]
        bad, n_current, last, _, _, _ = _sweep(
            START, 0, 0, msets, osets, state, plies, part_id, offset, columns, colex,
            neighbours, through, mills, third, local[g], work_state, work_plies, counter, event,
            current, n_current)
        errors += bad
        most = max(most, last)
    # The events (2 level + 1 for a win, 2 level for a child won) by level (a counting sort).
    starts = np.zeros(most + 2, dtype=np.int64)
    for w in range(size):
        if event[w] >= 0:
            starts[(event[w] >> 1) + 1] += 1
    for level in range(most + 1):
        starts[level + 1] += starts[level]
    ordered = np.empty(starts[most + 1], dtype=np.int32)
    fill = starts[:-1].copy()
    for w in range(size):
        if event[w] >= 0:
            ordered[fill[event[w] >> 1]] = w
            fill[event[w] >> 1] += 1
    level = 0
    while True:
        n_following = 0
        if level <= most:
            for e in range(starts[level], starts[level + 1]):
                w = ordered[e]
                if work_state[w] != 0:
                    continue
                if event[w] & 1:  # a removal wins at this level
                    work_state[w] = 1
                    work_plies[w] = level
                    current[n_current] = w
                    n_current += 1
                else:  # the removals' slowest win counts as a child won at this level
                    counter[w] -= 1
                    if counter[w] == 0:
                        work_state[w] = -1
                        work_plies[w] = level + 1
                        following[n_following] = w
                        n_following += 1
        # This level's positions in order of (part, mover's set).
        bucket_fill[:] = 0
        for e in range(n_current):
            w = current[e]
            g = 1 if parts > 1 and w >= local[1] else 0
            bucket_fill[bucket_base[g] + (w - local[g]) % mover_count[g] + 1] += 1
        for x in range(bucket_base[parts]):
            bucket_fill[x + 1] += bucket_fill[x]
        for e in range(n_current):
            w = current[e]
            g = 1 if parts > 1 and w >= local[1] else 0
            x = bucket_base[g] + (w - local[g]) % mover_count[g]
            ordered_current[bucket_fill[x]] = w
            bucket_fill[x] += 1
        for e in range(n_current):
            w = ordered_current[e]
            lost = work_state[w] == -1
            g = 1 if parts > 1 and w >= local[1] else 0
            m = group[g, 0]
            o = group[g, 1]
            x = w - local[g]
            mover_number = x % mover_count[g]
            child_mover = all_sets[set_start[m] + mover_number]
            child_other = all_sets[set_start[o] + x // mover_count[g]]
            h = partner[g]  # the parent's part: [P', M], stored at M's block
            block = local[h] + mover_number * mover_count[h]
            empty = FULL & ~(child_mover | child_other)
            flying = o == 3
            for q in range(N):
                if not (child_other >> q) & 1:
                    continue
                if _closes(child_other, q, through):
                    continue  # arriving on q closed a mill: that move removed a piece
                before = child_other & ~(np.int64(1) << q)
                for k in range(N if flying else 4):
                    r = k if flying else neighbours[q, k]
                    if r < 0 or not (empty >> r) & 1:
                        continue
                    pw = block + _number(before | (np.int64(1) << r), colex)
                    if work_state[pw] != 0:
                        continue
                    if lost:
                        work_state[pw] = 1
                        work_plies[pw] = level + 1
                        following[n_following] = pw
                        n_following += 1
                    else:
                        counter[pw] -= 1
                        if counter[pw] == 0:
                            work_state[pw] = -1
                            work_plies[pw] = level + 1
                            following[n_following] = pw
                            n_following += 1
        if n_following == 0 and level >= most:
            break
        current, following = following, current
        n_current = n_following
        level += 1
    # What was never decided is a draw (state 0, plies -1 already); to the flat arrays.
    for g in range(parts):
        base = offset[part_id[0, 0, group[g, 0], group[g, 1]]]
        width = other_count[g]
        for j in range(width):
            for i in range(mover_count[g]):
                w = local[g] + j * mover_count[g] + i
                state[base + i * width + j] = work_state[w]
                plies[base + i * width + j] = work_plies[w]
    return errors


# --- the solution ---------------------------------------------------------------------------


def part_size(part: Part) -> int:
    """Positions in a part (its table has C(24, m) x C(24, o) entries)."""
    return comb(N, part.mover_on) * comb(N - part.mover_on, part.other_on)


class Solved(_Values):
    """Every position of the parts given (and their children's parts, which must be
    among them), with its value. ``table(part)``: ``(state, plies)`` as
    [mover's set, other's set] arrays (views of the flat arrays)."""

    def __init__(self, parts: list[Part]) -> None:
        self.groups = _groups(sorted(set(parts)))
        self.parts = [p for group in self.groups for p in group]
        most = max(max(p.mover_on, p.other_on) for p in self.parts)
        self.all_sets = np.concatenate([sets(k) for k in range(most + 1)])
        self.set_start = np.cumsum([0] + [len(sets(k)) for k in range(most + 1)]).astype(np.int64)
        top_hand = max(max(p.mover_hand, p.other_hand) for p in self.parts)
        self.part_id = np.full((top_hand + 1, top_hand + 1, N + 1, N + 1), -1, dtype=np.int64)
        self.offset = np.zeros(len(self.parts) + 1, dtype=np.int64)
        self.columns = np.zeros(len(self.parts), dtype=np.int64)
        for i, p in enumerate(self.parts):  # a group's parts side by side
            self.part_id[p] = i
            self.columns[i] = len(sets(p.other_on))
            self.offset[i + 1] = self.offset[i] + len(sets(p.mover_on)) * self.columns[i]
        self.state = np.zeros(int(self.offset[-1]), dtype=np.int8)
        self.plies = np.full(int(self.offset[-1]), -1, dtype=np.int16)
        self.seconds: dict[tuple[Part, ...], float] = {}

    def _kernel_args(self):
        return (self.state, self.plies, self.part_id, self.offset, self.columns, colex_table(),
                *board_arrays())

    def _sweep(self, mode: int, part: Part):
        nothing = [np.zeros(1, dtype=t) for t in (np.int8, np.int16, np.int16, np.int32, np.int32)]
        return _sweep(mode, part.mover_hand, part.other_hand, sets(part.mover_on),
                      sets(part.other_on), *self._kernel_args(), 0, *nothing, 0)

    def solve(self) -> Solved:
        for group in self.groups:
            started = time.perf_counter()
            if group[0].moving:
                rows = np.array([[p.mover_on, p.other_on] for p in group], dtype=np.int64)
                errors = _solve_loopy(rows, self.all_sets, self.set_start, *self._kernel_args(),
                                      sum(part_size(p) for p in group))
            else:
                (p,) = group
                errors = self._sweep(SOLVE, p)[0]
            assert errors == 0, (group, errors)
            self.seconds[group] = time.perf_counter() - started
        return self

    def table(self, part: Part) -> tuple[np.ndarray, np.ndarray]:
        i = int(self.part_id[part])
        shape = (len(sets(part.mover_on)), len(sets(part.other_on)))
        span = slice(int(self.offset[i]), int(self.offset[i + 1]))
        return self.state[span].reshape(shape), self.plies[span].reshape(shape)

    def check_definition(self, part: Part) -> tuple[int, int, str | None]:
        """(positions checked, wrong entries, the first wrong position's text)."""
        errors, _, _, checked, wrong, cell = self._sweep(CHECK, part)
        assert errors == 0
        first = None
        if cell >= 0:
            x = cell - int(self.offset[self.part_id[part]])
            width = len(sets(part.other_on))
            mover, other = int(sets(part.mover_on)[x // width]), int(sets(part.other_on)[x % width])
            first = f"mover {bits(mover)} other {bits(other)} part {part}"
        return checked, wrong, first

    def mover_value(self, position: Position) -> tuple[int, int]:
        """``(outcome, plies)`` from the side to move's view (+1 win, -1 loss, 0 draw)."""
        part, mover, other = part_of(position)
        if mover & other:
            raise KeyError(text(*position))
        if part.lost:
            return -1, 0
        hands = self.part_id.shape[0]
        if part.mover_hand >= hands or part.other_hand >= hands or self.part_id[part] < 0:
            raise KeyError(text(*position))
        state, plies = self.table(part)
        a, b = number_of(mover), number_of(other)
        return int(state[a, b]), int(plies[a, b])

    def positions(self, part: Part, rows: slice = slice(None)):
        """The positions of a part whose mover's set is in ``rows``, as arrays over its
        entries that are positions: ``(mover, other, state, plies)``."""
        state, plies = self.table(part)
        movers, others = sets(part.mover_on)[rows], sets(part.other_on)
        ok = (movers[:, None] & others[None, :]) == 0
        a, b = np.nonzero(ok)
        return movers[a], others[b], state[rows][a, b], plies[rows][a, b]

    def __len__(self) -> int:
        return sum(part_size(p) for p in self.parts)


@lru_cache(maxsize=None)
def solve_game(white_pieces: int, black_pieces: int) -> Solved:
    """Every position of the game with these pieces (placement included) whose mover
    has not lost, with its value."""
    return Solved(game_parts(white_pieces, black_pieces)).solve()


@lru_cache(maxsize=None)
def solve_moving(white_pieces: int, black_pieces: int) -> Solved:
    """The moving phase of that game alone (both hands empty)."""
    return Solved(moving_parts(white_pieces, black_pieces)).solve()
