"""An independent oracle for the morris games, written for the tests apart from retro.

What it is
    The reference the morris databases are checked against: every position of three
    men's morris (the plain game and the variant with diagonals), and the moving-phase
    positions of six men's morris with at most K pieces on the board per side, each
    with its exact value: who wins and in how many plies, or a draw.

Why it is independent
    It imports nothing from the package ``retro`` and was written without reading its
    solver. It has its own board tables (typed from the rules, below), its own move
    generation and mill test, its own enumeration of the legal positions (a plain list
    of positions, or a sorted array of position keys found by binary search: no
    combinatorial index), no symmetry reduction, and a plain value iteration over
    explicit successor lists. Three men's morris is plain Python apart from the shared
    value iteration; numba compiles the six men's morris kernels and the iteration only
    so that K = 3 (under a second) and K = 4 (seconds) fit a test budget. The
    algorithm is the textbook one.

The rules implemented
    White moves first. While the player to move has pieces in hand, a move places one
    on an empty point; when both hands are empty (the moving phase), a move slides one
    of the mover's pieces to an adjacent empty point. There is no flying.

    Three men's morris (3 pieces each, 9 points a1..c3, point = 3*(row-1) + column):
    lines are the rows and columns, plus the two long diagonals in the diagonal
    variant, where each corner is also adjacent to b2. A move that puts three of the
    mover's pieces on a line wins at once; a player to move with no legal move loses.
    Positions: White has 3-hw pieces on the board and hw in hand, Black 3-hb and hb;
    the side to move is White if hw == hb > 0, Black if hb == hw + 1, either if both
    hands are empty; positions where both players have a line do not exist. A position
    where one player has a line is finished, won by that player (whoever is to move);
    otherwise a side to move without a legal move has lost.

    Six men's morris (6 pieces each, 16 points on two concentric squares, numbered in
    the notation's order, see SIX_POINTS): mills are the four sides of each square, no
    spokes. A move (placement or slide) whose destination completes a mill of the
    mover's also removes one opponent piece: one not standing in an opponent mill, or
    any if all stand in mills (nothing if the opponent has none on the board); two
    mills at once still remove one piece; every choice of removal is its own move. A
    player loses with fewer than 3 pieces on the board and in hand together, or with
    no legal move when to move; endless play is a draw. The moving-phase positions
    solved here have both hands empty, either side to move, the side to move with at
    least 2 pieces (2 = just lost), the other with at least 3, and at most K per side;
    moves never add pieces in the moving phase, so the set is closed under moves.

The value and the algorithm
    The value of a position under perfect play is a win or a loss for the side to move
    in a number of plies (the winner hurries, the loser delays; finished = 0 plies), or
    a draw. It is computed by :func:`value_iteration`, level by level, over explicit
    successor lists (one entry per legal move, duplicates kept; finished positions
    have none); its docstring gives the argument that it yields exactly that value.

Conventions
    Results for the side to move: ``outcome`` +1 win, -1 loss, 0 draw; ``plies`` the
    distance, -1 for a draw. The public functions translate to the winner's colour.
    Sides: 0 White, 1 Black. Bitboards: bit p set = a piece on point number p.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import NamedTuple

import numpy as np
from numba import njit

WHITE = 0
BLACK = 1
COLOURS = ("white", "black")
SIDE_LETTERS = "WB"


# --- the value iteration (both games) ----------------------------------------------------


@njit(cache=True)
def value_iteration(offsets, successors, finished):
    """The value of every position of a game graph, by plain level-by-level iteration.

    ``successors[offsets[i]:offsets[i + 1]]`` are the positions reached by the legal
    moves of position ``i`` (one entry per move); ``finished[i]`` is +1 (the side to
    move has won), -1 (has lost) or 0 (not finished), and finished positions have no
    successors while every unfinished one has at least one. Returns ``(outcome,
    plies)``: outcome +1 / -1 / 0 for a win / loss / draw of the side to move, plies
    the distance to the end (-1 for a draw).

    Level 0 is the finished positions, with their finished values. At level n = 1, 2,
    ..., among the positions still undecided: one with a successor that is a loss in
    n-1 becomes a win in n; one all of whose successors are wins decided before this
    level becomes a loss in n. The first level that decides nothing ends the
    iteration (a win at a later level would need a loss one level before; a loss at a
    later level would need all successors won by then, which would already have
    made it a loss at this level), and every position still undecided is a draw.

    Why this is exactly the value (winner hurries, loser delays). The definition is
    by induction on n: a win in n has a successor that is a loss in n-1 and none that
    is a loss in fewer; a loss in n has only winning successors, the slowest a win in
    n-1. Suppose levels 0..n-1 decided exactly the positions whose value is a win or a
    loss in fewer than n plies, each with its value. At level n an undecided position
    with a loss-in-(n-1) successor has no loss-in-fewer successor (it would have been
    decided a win at an earlier level), so it is a win in n, and a win in n is found
    here because it has such a successor and was not decided earlier. An undecided
    position whose successors are all wins decided before level n has all of them in
    at most n-1 plies, and not all in at most n-2 (else it would have been a loss at
    level n-1), so the slowest is exactly n-1: a loss in n; conversely a loss in n has
    all its successors wins in at most n-1, decided before level n. Decisions made
    during level n are wins or losses in n and are never used as if they were
    earlier ones (a loss must be in exactly n-1, a win in fewer than n plies). So
    the induction goes on, and a position that is never decided has no value as a win
    or a loss: a draw. In a draw no successor is a loss (that would make it a win) and
    not all are wins (that would make it a loss, the slowest being finite), so each
    side can always move to another draw and neither can force a win.
    """
    n = len(offsets) - 1
    outcome = np.zeros(n, dtype=np.int8)
    plies = np.full(n, -1, dtype=np.int32)
    for i in range(n):
        if finished[i] != 0:
            if offsets[i + 1] != offsets[i]:
                raise ValueError("a finished position has successors")
            outcome[i] = finished[i]
            plies[i] = 0
        elif offsets[i + 1] == offsets[i]:
            raise ValueError("an unfinished position has no successor")
    level = 0
    decided = 1
    while decided > 0:
        level += 1
        decided = 0
        for i in range(n):
            if plies[i] >= 0:
                continue  # decided at an earlier level (or earlier in this one)
            wins_only = True
            loses_now = False
            for e in range(offsets[i], offsets[i + 1]):
                c = successors[e]
                if outcome[c] == -1 and plies[c] == level - 1:
                    loses_now = True  # a move to a loss in level-1 for the opponent
                    break
                if not (outcome[c] == 1 and 0 <= plies[c] < level):
                    wins_only = False  # a successor not (yet) a win for the opponent
            if loses_now:
                outcome[i] = 1
                plies[i] = level
                decided += 1
            elif wins_only:
                outcome[i] = -1
                plies[i] = level
                decided += 1
    return outcome, plies


def _winner(side: int, outcome: int) -> int:
    """The winner's colour (0 White, 1 Black) from the mover's outcome, -1 for a draw."""
    if outcome == 0:
        return -1
    return side if outcome > 0 else 1 - side


# --- three men's morris: the board -------------------------------------------------------

THREE_POINTS = ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")
"""Point names by number: point = 3 * (row - 1) + column (a = 0, b = 1, c = 2)."""

THREE_LINES = (
    ("a1", "b1", "c1"), ("a2", "b2", "c2"), ("a3", "b3", "c3"),  # rows
    ("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3"),  # columns
)
THREE_DIAGONAL_LINES = (("a1", "b2", "c3"), ("c1", "b2", "a3"))  # the diagonal variant

THREE_EDGES = (
    ("a1", "b1"), ("b1", "c1"), ("a2", "b2"), ("b2", "c2"), ("a3", "b3"), ("b3", "c3"),
    ("a1", "a2"), ("a2", "a3"), ("b1", "b2"), ("b2", "b3"), ("c1", "c2"), ("c2", "c3"),
)
"""Orthogonal neighbours: along each row and each column."""
THREE_DIAGONAL_EDGES = (("a1", "b2"), ("c1", "b2"), ("a3", "b2"), ("c3", "b2"))
"""The diagonal variant's extra neighbours: each corner with the centre."""


class ThreeBoard(NamedTuple):
    lines: tuple[int, ...]  # bitmask of each line
    neighbours: tuple[tuple[int, ...], ...]  # the points adjacent to each point


@lru_cache(maxsize=None)
def three_board(diagonal: bool) -> ThreeBoard:
    """The lines (as bitmasks) and the adjacency of three men's morris."""
    number = {name: p for p, name in enumerate(THREE_POINTS)}
    lines = THREE_LINES + (THREE_DIAGONAL_LINES if diagonal else ())
    edges = THREE_EDGES + (THREE_DIAGONAL_EDGES if diagonal else ())
    neighbours: list[list[int]] = [[] for _ in THREE_POINTS]
    for a, b in edges:
        neighbours[number[a]].append(number[b])
        neighbours[number[b]].append(number[a])
    masks = tuple(sum(1 << number[name] for name in line) for line in lines)
    return ThreeBoard(masks, tuple(tuple(sorted(n)) for n in neighbours))


def _has_line(pieces: int, board: ThreeBoard) -> bool:
    return any(pieces & line == line for line in board.lines)


# --- three men's morris: positions, notation, moves --------------------------------------

ThreePosition = tuple[int, int, int, int, int]
"""(side, white in hand, black in hand, white bitboard, black bitboard)."""


def three_text(side: int, white_hand: int, black_hand: int, white: int, black: int) -> str:
    """The notation of a three men's morris position, e.g. ``W 2 2 B.. .W. ...``."""
    cells = ["W" if white >> p & 1 else "B" if black >> p & 1 else "." for p in range(9)]
    rows = ["".join(cells[3 * r:3 * r + 3]) for r in range(3)]
    return f"{SIDE_LETTERS[side]} {white_hand} {black_hand} " + " ".join(rows)


def three_parse(text: str) -> ThreePosition:
    """The inverse of :func:`three_text` (no legality check)."""
    side, white_hand, black_hand, *rows = text.split()
    cells = "".join(rows)
    if side not in SIDE_LETTERS or len(rows) != 3 or len(cells) != 9 or set(cells) - set("WB."):
        raise ValueError(f"not a three men's morris position: {text!r}")
    white = sum(1 << p for p, c in enumerate(cells) if c == "W")
    black = sum(1 << p for p, c in enumerate(cells) if c == "B")
    return SIDE_LETTERS.index(side), int(white_hand), int(black_hand), white, black


def _sides_to_move(white_hand: int, black_hand: int) -> tuple[int, ...]:
    """Who is to move with these hands (both rules of the notation); () if nobody."""
    if white_hand == black_hand == 0:
        return (WHITE, BLACK)
    if white_hand == black_hand:
        return (WHITE,)
    if black_hand == white_hand + 1:
        return (BLACK,)
    return ()


def three_positions(diagonal: bool) -> list[ThreePosition]:
    """Every legal position of three men's morris: for each pair of hands with a side
    to move, every placement of 3-hw white and 3-hb black pieces on distinct points,
    except those where both players have a line."""
    board = three_board(diagonal)
    out = []
    for white_hand in range(4):
        for black_hand in range(4):
            for side in _sides_to_move(white_hand, black_hand):
                for ws in combinations(range(9), 3 - white_hand):
                    white = sum(1 << p for p in ws)
                    free = [p for p in range(9) if not white >> p & 1]
                    for bs in combinations(free, 3 - black_hand):
                        black = sum(1 << p for p in bs)
                        if _has_line(white, board) and _has_line(black, board):
                            continue
                        out.append((side, white_hand, black_hand, white, black))
    return out


def three_finished(position: ThreePosition, diagonal: bool) -> int:
    """+1 / -1 if the position is finished, won / lost by the side to move; else 0."""
    side, _, _, white, black = position
    board = three_board(diagonal)
    if _has_line(white, board):
        return 1 if side == WHITE else -1
    if _has_line(black, board):
        return 1 if side == BLACK else -1
    return -1 if not three_moves(position, diagonal) else 0


def three_moves(position: ThreePosition, diagonal: bool) -> list[tuple[str, ThreePosition]]:
    """The legal moves of a position not won by a line: ``(move text, successor)``."""
    side, white_hand, black_hand, white, black = position
    board = three_board(diagonal)
    if _has_line(white, board) or _has_line(black, board):
        return []  # the game is over
    mine, hand = (white, white_hand) if side == WHITE else (black, black_hand)
    empty = [p for p in range(9) if not (white | black) >> p & 1]
    moves = []  # (text, the mover's new bitboard, the mover's new hand)
    if hand > 0:
        for to in empty:
            moves.append((THREE_POINTS[to], mine | 1 << to, hand - 1))
    else:
        for frm in range(9):
            if mine >> frm & 1:
                for to in board.neighbours[frm]:
                    if to in empty:
                        moves.append((f"{THREE_POINTS[frm]}-{THREE_POINTS[to]}",
                                      mine - (1 << frm) + (1 << to), 0))
    out = []
    for text, new_mine, new_hand in moves:
        if side == WHITE:
            out.append((text, (BLACK, new_hand, black_hand, new_mine, black)))
        else:
            out.append((text, (WHITE, white_hand, new_hand, white, new_mine)))
    return out


class ThreeGraph(NamedTuple):
    positions: list[ThreePosition]
    texts: list[str]
    offsets: np.ndarray  # int64, len(positions) + 1
    successors: np.ndarray  # int64, one entry per legal move
    finished: np.ndarray  # int8: +1 / -1 finished won / lost by the mover, 0 not finished


def three_mens_morris_graph(diagonal: bool) -> ThreeGraph:
    """Every position of three men's morris with the list of its moves' successors."""
    positions = three_positions(diagonal)
    where = {position: i for i, position in enumerate(positions)}
    offsets = [0]
    successors: list[int] = []
    finished = np.zeros(len(positions), dtype=np.int8)
    for i, position in enumerate(positions):
        finished[i] = three_finished(position, diagonal)
        if finished[i] == 0:
            # a KeyError here would mean a move leaves the set of legal positions
            successors.extend(where[child] for _, child in three_moves(position, diagonal))
        offsets.append(len(successors))
    return ThreeGraph(positions, [three_text(*p) for p in positions],
                      np.array(offsets, dtype=np.int64), np.array(successors, dtype=np.int64),
                      finished)


def solve_three_mens_morris(diagonal: bool) -> dict[str, tuple[str | None, int | None]]:
    """Every legal position's text -> (winner ``"white"``/``"black"``, plies), or
    ``(None, None)`` for a draw. ``diagonal`` picks ``three-mens-morris-diagonal``."""
    graph = three_mens_morris_graph(diagonal)
    outcome, plies = value_iteration(graph.offsets, graph.successors, graph.finished)
    values: dict[str, tuple[str | None, int | None]] = {}
    for i, (text, position) in enumerate(zip(graph.texts, graph.positions)):
        winner = _winner(position[0], int(outcome[i]))
        values[text] = (None, None) if winner < 0 else (COLOURS[winner], int(plies[i]))
    return values


# --- six men's morris: the board ----------------------------------------------------------

SIX_POINTS = ("a1", "c1", "e1", "b2", "c2", "d2", "a3", "b3", "d3", "e3",
              "b4", "c4", "d4", "a5", "c5", "e5")
"""Point names by number: the notation's order, row by row from row 1, left to right."""

SIX_ROWS = (3, 3, 4, 3, 3)
"""How many points each row of the notation holds (rows 1..5)."""

SIX_MILLS = (
    ("a1", "c1", "e1"), ("e1", "e3", "e5"), ("a5", "c5", "e5"), ("a1", "a3", "a5"),  # outer
    ("b2", "c2", "d2"), ("d2", "d3", "d4"), ("b4", "c4", "d4"), ("b2", "b3", "b4"),  # inner
)
"""The four sides of each square; no mill along the spokes."""

SIX_EDGES = (
    ("a1", "c1"), ("c1", "e1"), ("e1", "e3"), ("e3", "e5"),  # around the outer square
    ("e5", "c5"), ("c5", "a5"), ("a5", "a3"), ("a3", "a1"),
    ("b2", "c2"), ("c2", "d2"), ("d2", "d3"), ("d3", "d4"),  # around the inner square
    ("d4", "c4"), ("c4", "b4"), ("b4", "b3"), ("b3", "b2"),
    ("c1", "c2"), ("e3", "d3"), ("c5", "c4"), ("a3", "b3"),  # the four spokes
)


def _six_tables() -> tuple[np.ndarray, np.ndarray]:
    """(neighbours: 16 x 3, -1 padded; mills: 8 bitmasks) as arrays for the kernels."""
    number = {name: p for p, name in enumerate(SIX_POINTS)}
    neighbours = np.full((16, 3), -1, dtype=np.int64)
    count = [0] * 16
    for a, b in SIX_EDGES:
        for x, y in ((number[a], number[b]), (number[b], number[a])):
            neighbours[x, count[x]] = y
            count[x] += 1
    mills = np.array([sum(1 << number[name] for name in mill) for mill in SIX_MILLS],
                     dtype=np.int64)
    return neighbours, mills


SIX_NEIGHBOURS, SIX_MILL_MASKS = _six_tables()

MAX_MOVES = 128
"""More than any six men's morris position has: 16 placements or 6 x 3 slides, each
with at most 6 removals."""


@njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True)
def _in_mill(pieces, mills):
    """The points of ``pieces`` standing in a mill made of ``pieces``."""
    covered = 0
    for m in mills:
        if pieces & m == m:
            covered |= m
    return covered


@njit(cache=True)
def _add_move(f, t, after, opponent, mills, count, frm, to, removed, new_mover,
              new_opponent):
    """Write the move of a piece from ``f`` (-1: from the hand) to ``t`` giving the
    mover ``after``, once per removal it entitles to. Returns the new move count."""
    closes = False  # does a mill of the mover's through the destination stand now?
    for m in mills:
        if (m >> t) & 1 and after & m == m:
            closes = True
    if closes and opponent != 0:
        removable = opponent & ~_in_mill(opponent, mills)
        if removable == 0:
            removable = opponent  # every opponent piece stands in a mill: any may go
        for r in range(16):
            if (removable >> r) & 1:
                frm[count], to[count], removed[count] = f, t, r
                new_mover[count], new_opponent[count] = after, opponent - (1 << r)
                count += 1
    else:
        frm[count], to[count], removed[count] = f, t, -1
        new_mover[count], new_opponent[count] = after, opponent
        count += 1
    return count


@njit(cache=True)
def _six_moves(mover, opponent, in_hand, neighbours, mills, frm, to, removed,
               new_mover, new_opponent):
    """The legal moves of the side to move (pieces ``mover``, opponent ``opponent``):
    placements on the empty points if ``in_hand``, else slides to an adjacent empty
    point; written to the arrays (frm = -1 for a placement, removed = -1 for none).
    Returns the number of moves."""
    occupied = mover | opponent
    count = 0
    if in_hand:
        for t in range(16):
            if not (occupied >> t) & 1:
                count = _add_move(-1, t, mover | (1 << t), opponent, mills, count,
                                  frm, to, removed, new_mover, new_opponent)
    else:
        for f in range(16):
            if not (mover >> f) & 1:
                continue
            for k in range(3):
                t = neighbours[f, k]
                if t >= 0 and not (occupied >> t) & 1:
                    count = _add_move(f, t, mover - (1 << f) + (1 << t), opponent, mills,
                                      count, frm, to, removed, new_mover, new_opponent)
    return count


# --- six men's morris: positions, notation, moves ----------------------------------------


def six_text(side: int, white: int, black: int, white_hand: int = 0,
             black_hand: int = 0) -> str:
    """The notation of a six men's morris position, e.g. ``B 0 0 WW. ... .B.. ... B.W``."""
    cells = ["W" if white >> p & 1 else "B" if black >> p & 1 else "." for p in range(16)]
    groups, start = [], 0
    for size in SIX_ROWS:
        groups.append("".join(cells[start:start + size]))
        start += size
    return f"{SIDE_LETTERS[int(side)]} {white_hand} {black_hand} " + " ".join(groups)


def six_parse(text: str) -> tuple[int, int, int, int, int]:
    """The inverse of :func:`six_text`: ``(side, white, black, white_hand, black_hand)``
    (no legality check)."""
    side, white_hand, black_hand, *rows = text.split()
    cells = "".join(rows)
    if (side not in SIDE_LETTERS or tuple(len(r) for r in rows) != SIX_ROWS
            or set(cells) - set("WB.")):
        raise ValueError(f"not a six men's morris position: {text!r}")
    white = sum(1 << p for p, c in enumerate(cells) if c == "W")
    black = sum(1 << p for p, c in enumerate(cells) if c == "B")
    return SIDE_LETTERS.index(side), white, black, int(white_hand), int(black_hand)


def six_moves(side: int, white: int, black: int, white_hand: int = 0,
              black_hand: int = 0) -> list[tuple[str, tuple[int, int, int, int, int]]]:
    """The legal moves of a six men's morris position whose game is not over, as
    ``(move text, (side, white, black, white hand, black hand) after it)``; for
    debugging and the tests (the solver calls the same kernel)."""
    mover, opponent = (white, black) if side == WHITE else (black, white)
    hand = white_hand if side == WHITE else black_hand
    frm, to, removed = (np.empty(MAX_MOVES, dtype=np.int64) for _ in range(3))
    new_mover, new_opponent = (np.empty(MAX_MOVES, dtype=np.int64) for _ in range(2))
    n = _six_moves(mover, opponent, hand > 0, SIX_NEIGHBOURS, SIX_MILL_MASKS,
                   frm, to, removed, new_mover, new_opponent)
    out = []
    for k in range(n):
        text = ("" if frm[k] < 0 else SIX_POINTS[frm[k]] + "-") + SIX_POINTS[to[k]]
        if removed[k] >= 0:
            text += "x" + SIX_POINTS[removed[k]]
        m, o = int(new_mover[k]), int(new_opponent[k])
        if side == WHITE:
            out.append((text, (BLACK, m, o, white_hand - (hand > 0), black_hand)))
        else:
            out.append((text, (WHITE, o, m, white_hand, black_hand - (hand > 0))))
    return out


def _six_key(side, white, black):
    """A moving-phase position as one integer; the enumeration is sorted by it."""
    return (side << 32) | (white << 16) | black


def six_moving_positions(max_pieces: int = 3) -> np.ndarray:
    """The sorted keys ``side << 32 | white << 16 | black`` of every moving-phase
    position of six men's morris with at most ``max_pieces`` pieces per side: both
    hands empty, either side to move, the mover with at least 2 pieces, the other with
    at least 3, no point holding two pieces."""
    if not 3 <= max_pieces <= 6:
        raise ValueError("max_pieces must be 3..6")
    masks = np.arange(1 << 16, dtype=np.int64)
    count = np.zeros(1 << 16, dtype=np.int64)
    for p in range(16):
        count += (masks >> p) & 1
    keys = []
    for side in (WHITE, BLACK):
        for n_white in range(2, max_pieces + 1):
            for n_black in range(2, max_pieces + 1):
                n_other = n_black if side == WHITE else n_white
                if n_other < 3:
                    continue  # the side not to move must have at least 3
                white = masks[count == n_white][:, None]
                black = masks[count == n_black][None, :]
                w, b = np.broadcast_arrays(white, black)
                disjoint = (w & b) == 0
                keys.append(_six_key(side, w[disjoint], b[disjoint]))
    return np.sort(np.concatenate(keys))


@njit(cache=True)
def _six_graph(keys, neighbours, mills):
    """Finished flags, offsets and successor indices of the moving-phase positions
    ``keys`` (sorted). Every successor is looked up by binary search; one that is not
    in ``keys`` raises (the set must be closed under moves)."""
    n = len(keys)
    frm = np.empty(MAX_MOVES, dtype=np.int64)
    to = np.empty(MAX_MOVES, dtype=np.int64)
    removed = np.empty(MAX_MOVES, dtype=np.int64)
    new_mover = np.empty(MAX_MOVES, dtype=np.int64)
    new_opponent = np.empty(MAX_MOVES, dtype=np.int64)
    finished = np.zeros(n, dtype=np.int8)
    offsets = np.zeros(n + 1, dtype=np.int64)
    for i in range(n):  # first pass: how many moves
        side, white, black = keys[i] >> 32, (keys[i] >> 16) & 0xFFFF, keys[i] & 0xFFFF
        mover, opponent = (white, black) if side == 0 else (black, white)
        moves = 0
        if _popcount(mover) >= 3:
            moves = _six_moves(mover, opponent, False, neighbours, mills,
                               frm, to, removed, new_mover, new_opponent)
        if moves == 0:
            finished[i] = -1  # fewer than 3 pieces, or no legal move: lost
        offsets[i + 1] = offsets[i] + moves
    successors = np.empty(offsets[n], dtype=np.int32)
    for i in range(n):  # second pass: where the moves lead
        if finished[i] != 0:
            continue
        side, white, black = keys[i] >> 32, (keys[i] >> 16) & 0xFFFF, keys[i] & 0xFFFF
        mover, opponent = (white, black) if side == 0 else (black, white)
        moves = _six_moves(mover, opponent, False, neighbours, mills,
                           frm, to, removed, new_mover, new_opponent)
        for k in range(moves):
            if side == 0:
                key = (1 << 32) | (new_mover[k] << 16) | new_opponent[k]
            else:
                key = (new_opponent[k] << 16) | new_mover[k]
            j = np.searchsorted(keys, key)
            if j >= n or keys[j] != key:
                raise ValueError("a move leaves the enumerated positions")
            successors[offsets[i] + k] = j
    return finished, offsets, successors


class SixGraph(NamedTuple):
    side: np.ndarray  # int8: 0 White, 1 Black to move
    white: np.ndarray  # int64 bitboards
    black: np.ndarray
    offsets: np.ndarray  # int64, len + 1
    successors: np.ndarray  # int32 position numbers, one per legal move
    finished: np.ndarray  # int8: -1 finished (lost by the mover), 0 not finished


class SixSolution(NamedTuple):
    side: np.ndarray  # int8: 0 White, 1 Black to move
    white: np.ndarray  # int64 bitboards (bit = point number)
    black: np.ndarray
    winner: np.ndarray  # int8: 0 White, 1 Black, -1 draw
    plies: np.ndarray  # int32: distance to the end, -1 for a draw


def six_mens_morris_moving_graph(max_pieces: int = 3) -> SixGraph:
    """The moving-phase positions of six men's morris with at most ``max_pieces`` per
    side (sorted by side, white, black) with the successor list of each."""
    keys = six_moving_positions(max_pieces)
    finished, offsets, successors = _six_graph(keys, SIX_NEIGHBOURS, SIX_MILL_MASKS)
    return SixGraph((keys >> 32).astype(np.int8), (keys >> 16) & 0xFFFF, keys & 0xFFFF,
                    offsets, successors, finished)


def six_index(graph: SixGraph | SixSolution, side: int, white: int, black: int) -> int:
    """The number of a position in the enumeration (KeyError if it is not there)."""
    keys = _six_key(graph.side.astype(np.int64), graph.white, graph.black)
    key = _six_key(int(side), int(white), int(black))
    j = int(np.searchsorted(keys, key))
    if j >= len(keys) or keys[j] != key:
        raise KeyError(six_text(side, white, black))
    return j


def solve_six_mens_morris_moving(max_pieces: int = 3) -> SixSolution:
    """Every moving-phase position of six men's morris with at most ``max_pieces``
    pieces on the board per side (hands ``0 0``), with its value: winner (0 White, 1
    Black, -1 draw) and plies (-1 for a draw). Text of position i:
    ``six_text(s.side[i], s.white[i], s.black[i])``."""
    graph = six_mens_morris_moving_graph(max_pieces)
    outcome, plies = value_iteration(graph.offsets, graph.successors, graph.finished)
    side = graph.side.astype(np.int8)
    winner = np.where(outcome == 0, -1, np.where(outcome > 0, side, 1 - side)).astype(np.int8)
    return SixSolution(side, graph.white, graph.black, winner, plies)
