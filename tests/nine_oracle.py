"""An independent oracle for nine men's morris, written for the tests apart from retro.

What it is
    The reference retro's nine men's morris databases are checked against: the rules
    (board, moves with placing, sliding, flying and removals, the notation) for any
    piece counts, and every position of the 3-piece game (placement included) with its
    exact value: who wins and in how many plies, or a draw.

Why it is independent
    It imports nothing from the package ``retro`` (plain Python and numpy). The board
    is derived from the points' coordinates; the move generator is a plain loop over
    the rules; positions are enumerated without any symmetry reduction (not the
    board's 16 symmetries, not even the colour swap: White to move and Black to move
    are solved separately, so the tests can check both symmetries); there is no
    combinatorial index (sets of points are found in sorted tables).

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

The value and the algorithm
    The value of a position under perfect play is a win or a loss for the side to
    move in a number of plies (the winner hurries, the loser delays; finished = 0
    plies), or a draw. The 3-piece game is solved in two parts:

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

Conventions
    Sides: 0 White, 1 Black. Bitboards: bit p set = a piece on point number p (the
    notation's order). Values from the side to move's view: ``outcome`` +1 win, -1
    loss, 0 draw; ``plies`` the distance, -1 for a draw. Solved arrays are indexed
    ``[mover's set, other's set]`` by the sets' numbers in SETS (sorted bitmasks).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from math import comb
from typing import NamedTuple

import numpy as np

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


class Solution:
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

    def value(self, position: Position | str) -> tuple[str | None, int | None]:
        """``(winner "white"/"black", plies)``, or ``(None, None)`` for a draw."""
        if isinstance(position, str):
            position = parse(position)
        outcome, plies = self.mover_value(position)
        if outcome == 0:
            return None, None
        side = position[0]
        return COLOURS[side if outcome > 0 else 1 - side], plies

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
        raise NotImplementedError("the oracle solves the 3-piece game only")
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
