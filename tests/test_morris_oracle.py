"""Self-checks of the morris oracle (tests/morris_oracle.py), before it checks anything.

Nothing here comes from retro. The board tables are compared with tables derived here
from coordinates; the position counts with combinatorial counts; move generation and
values with hand-made positions worked out in the comments; the values with the
symmetries of the boards (the oracle uses none, so this is a real check) and with
the definition of the value, position by position, over the oracle's successor lists.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb

import numpy as np
import pytest

from morris_oracle import (
    BLACK, SIX_EDGES, SIX_MILLS, SIX_POINTS, SIX_ROWS, THREE_POINTS, WHITE,
    six_index, six_mens_morris_moving_graph, six_moves, six_parse, six_text,
    solve_six_mens_morris_moving, solve_three_mens_morris, three_board,
    three_mens_morris_graph, three_moves, three_parse, three_text,
    value_iteration,
)


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "diagonal"])
def three(request):
    """(diagonal, graph, values by text, outcome, plies) of one three men's morris variant."""
    diagonal = request.param
    graph = three_mens_morris_graph(diagonal)
    outcome, plies = value_iteration(graph.offsets, graph.successors, graph.finished)
    return diagonal, graph, solve_three_mens_morris(diagonal), outcome, plies


@pytest.fixture(scope="module")
def six3():
    """The moving-phase graph of six men's morris, at most 3 pieces a side, solved."""
    graph = six_mens_morris_moving_graph(3)
    outcome, plies = value_iteration(graph.offsets, graph.successors, graph.finished)
    return graph, outcome, plies


# --- the definition of the value, checked over successor lists ---------------------------


def check_definition(offsets, successors, finished, outcome, plies):
    """The values satisfy the definition at every position, given its successors:

    finished positions have no successors and their finished value in 0 plies; a win
    in n has a successor that is a loss in n-1 and none that is a loss in fewer; a
    loss in n has only winning successors, the slowest in n-1; a draw has no losing
    successor and at least one drawn one. These local conditions pin the values down
    (by induction on plies a true win or loss in n can only be labelled so, and a
    labelled one is a true one), so this checks the whole iteration.
    """
    n = len(offsets) - 1
    count = np.diff(offsets)
    parent = np.repeat(np.arange(n), count)
    child_outcome = outcome[successors]
    child_plies = plies[successors].astype(np.int64)
    big = 1 << 40
    fastest_loss = np.full(n, big)  # the child losing soonest (for its mover)
    np.minimum.at(fastest_loss, parent[child_outcome == -1], child_plies[child_outcome == -1])
    slowest_win = np.full(n, -1)
    np.maximum.at(slowest_win, parent[child_outcome == 1], child_plies[child_outcome == 1])
    wins = np.bincount(parent[child_outcome == 1], minlength=n)
    draws = np.bincount(parent[child_outcome == 0], minlength=n)

    done = finished != 0
    assert np.array_equal(count == 0, done)
    assert np.array_equal(outcome[done], finished[done]) and (plies[done] == 0).all()
    win = ~done & (outcome == 1)
    assert (fastest_loss[win] == plies[win] - 1).all()
    loss = ~done & (outcome == -1)
    assert (wins[loss] == count[loss]).all() and (slowest_win[loss] == plies[loss] - 1).all()
    draw = outcome == 0
    assert not (done & draw).any() and (plies[draw] == -1).all()
    assert (fastest_loss[draw] == big).all() and (draws[draw] > 0).all()
    assert ((outcome != 0) == (plies >= 0)).all()


def test_value_iteration_on_small_graphs():
    # 0: finished, lost. 1 -> 0: win in 1. 2 -> 1: loss in 2. 3 -> {2, 4}, 4 -> {3}:
    # 3 wins in 3 by moving to 2 (the cycle with 4 does not matter); 4's only move
    # leads to 3, a win: 4 loses in 4. 5 <-> 6 only: a cycle, both draws.
    # 7 -> {1, 5}: moving to 1 gives the opponent a win, to 5 a draw: a draw.
    # 8 -> {1, 2, 2}: a loss in 2 is there: win in 3 (duplicates are harmless).
    # 9 -> {1, 3}: both successors are wins (in 1 and 3): loss in 4, the slowest.
    # 10: finished, won (the side to move has won: 0 plies).
    edges = {0: [], 1: [0], 2: [1], 3: [2, 4], 4: [3], 5: [6], 6: [5], 7: [1, 5],
             8: [1, 2, 2], 9: [1, 3], 10: []}
    offsets = np.cumsum([0] + [len(edges[i]) for i in range(11)])
    successors = np.array([c for i in range(11) for c in edges[i]], dtype=np.int64)
    finished = np.array([-1] + [0] * 9 + [1], dtype=np.int8)
    outcome, plies = value_iteration(offsets, successors, finished)
    assert outcome.tolist() == [-1, 1, -1, 1, -1, 0, 0, 0, 1, -1, 1]
    assert plies.tolist() == [0, 1, 2, 3, 4, -1, -1, -1, 3, 4, 0]
    check_definition(offsets, successors, finished, outcome, plies)


def test_value_iteration_refuses_a_malformed_graph():
    with pytest.raises(ValueError):  # an unfinished position without moves
        value_iteration(np.array([0, 0]), np.zeros(0, dtype=np.int64),
                        np.array([0], dtype=np.int8))
    with pytest.raises(ValueError):  # a finished position with a move
        value_iteration(np.array([0, 1]), np.array([0]), np.array([-1], dtype=np.int8))


# --- board tables from coordinates ---------------------------------------------------------


def xy(name: str) -> tuple[int, int]:
    """(column, row) from 0: a1 = (0, 0)."""
    return "abcde".index(name[0]), int(name[1:]) - 1


def test_three_men_board_matches_the_geometry():
    points = [(x, y) for y in range(3) for x in range(3)]
    assert [xy(name) for name in THREE_POINTS] == points  # point = 3*(row-1) + column
    for diagonal in (False, True):
        board = three_board(diagonal)
        rows = [[3 * y + x for x in range(3)] for y in range(3)]
        lines = rows + [list(col) for col in zip(*rows)]
        if diagonal:
            lines += [[0, 4, 8], [2, 4, 6]]
        assert sorted(board.lines) == sorted(sum(1 << p for p in line) for line in lines)
        for p, (x, y) in enumerate(points):
            expected = set()
            for q, (u, v) in enumerate(points):
                orthogonal = abs(x - u) + abs(y - v) == 1
                corner_centre = diagonal and abs(x - u) == abs(y - v) == 1 and 4 in (p, q)
                if orthogonal or corner_centre:
                    expected.add(q)
            assert set(board.neighbours[p]) == expected, THREE_POINTS[p]


def test_six_men_board_matches_the_geometry():
    # Point numbers follow the notation: row by row from row 1, left to right.
    assert list(SIX_POINTS) == sorted(SIX_POINTS, key=lambda name: (xy(name)[1], xy(name)[0]))
    assert [sum(1 for name in SIX_POINTS if xy(name)[1] == r) for r in range(5)] == list(SIX_ROWS)
    ring = {name: max(abs(xy(name)[0] - 2), abs(xy(name)[1] - 2)) for name in SIX_POINTS}
    assert Counter(ring.values()) == {1: 8, 2: 8}  # two squares, corners and midpoints
    # Mills: the three points of each side of each square.
    mills = set()
    for r in (1, 2):
        for fixed in (0, 1):
            for value in (2 - r, 2 + r):
                mills.add(frozenset(n for n in SIX_POINTS
                                    if ring[n] == r and xy(n)[fixed] == value))
    assert all(len(m) == 3 for m in mills) and len(mills) == 8
    assert {frozenset(m) for m in SIX_MILLS} == mills and len(SIX_MILLS) == 8
    # Edges: consecutive points along a side (r apart), and spokes joining a side's
    # midpoint to the other square's (1 apart, on the axis x = 2 or y = 2).
    edges = set()
    for a, b in combinations(SIX_POINTS, 2):
        (x, y), (u, v) = xy(a), xy(b)
        distance = abs(x - u) + abs(y - v)
        if ring[a] == ring[b] and distance == ring[a] and any(
                {a, b} <= m for m in mills):
            edges.add(frozenset((a, b)))
        if ring[a] != ring[b] and distance == 1 and 2 in (x, y) and 2 in (u, v):
            edges.add(frozenset((a, b)))
    assert len(edges) == 20
    assert {frozenset(e) for e in SIX_EDGES} == edges and len(SIX_EDGES) == 20


def test_notation_examples():
    assert three_parse("W 2 2 B.. .W. ...") == (WHITE, 2, 2, 1 << 4, 1 << 0)
    assert three_text(WHITE, 3, 3, 0, 0) == "W 3 3 ... ... ..."
    side, white, black, hw, hb = six_parse("B 0 0 WW. ... .B.. ... B.W")
    names = lambda bits: {SIX_POINTS[p] for p in range(16) if bits >> p & 1}
    assert (side, hw, hb) == (BLACK, 0, 0)
    assert names(white) == {"a1", "c1", "e5"} and names(black) == {"b3", "a5"}
    assert six_text(side, white, black) == "B 0 0 WW. ... .B.. ... B.W"
    assert six_text(WHITE, 0, 0, 6, 6) == "W 6 6 ... ... .... ... ..."
    rng = np.random.default_rng(7)
    for _ in range(200):
        colours = rng.integers(0, 3, 16)
        white = sum(1 << p for p in range(16) if colours[p] == 1)
        black = sum(1 << p for p in range(16) if colours[p] == 2)
        text = six_text(int(rng.integers(2)), white, black, 1, 2)
        assert six_text(*six_parse(text)) == text


# --- three men's morris ----------------------------------------------------------------


def test_three_position_counts(three):
    diagonal, graph, values, _, _ = three
    lines = three_board(diagonal).lines
    has_line = lambda bits: any(bits & m == m for m in lines)
    counted = Counter((hw, hb, side) for side, hw, hb, _, _ in graph.positions)
    expected = {}
    for hw in range(4):
        for hb in range(4):
            sides = ([WHITE, BLACK] if hw == hb == 0 else [WHITE] if hw == hb
                     else [BLACK] if hb == hw + 1 else [])
            nw, nb = 3 - hw, 3 - hb
            both = 0  # placements where both players have a line, by brute force
            for ws in combinations(range(9), nw):
                for bs in combinations([p for p in range(9) if p not in ws], nb):
                    if has_line(sum(1 << p for p in ws)) and has_line(sum(1 << p for p in bs)):
                        both += 1
            for side in sides:
                expected[hw, hb, side] = comb(9, nw) * comb(9 - nw, nb) - both
    assert counted == expected
    assert len(values) == len(graph.positions) == sum(expected.values())
    assert expected[0, 0, WHITE] == 1680 - 12  # two disjoint lines: 6 row and 6 column pairs


def test_three_positions_are_the_legal_ones(three):
    diagonal, _, values, _, _ = three
    assert "W 3 3 ... ... ..." in values and "W 2 2 B.. .W. ..." in values
    assert "B 2 3 .W. ... ..." in values  # after White's first placement, Black moves
    assert "W 2 3 .W. ... ..." not in values  # Black, not White, is to move
    assert "B 1 1 WW. BB. ..." not in values  # equal hands: White is to move
    assert "W 1 3 WW. ... ..." not in values  # no side to move with these hands
    assert "W 0 0 WWW ... BBB" not in values  # both players have a line
    assert "B 0 0 WWW ... BBB" not in values


def test_three_hand_made_values(three):
    diagonal, graph, values, _, _ = three
    # W: a1 b1 c2, B: b2 a3 c3 (no line in either variant). White slides c2-c1 and
    # completes row 1: a win in 1. With Black to move, b2-b3 completes row 3 for Black.
    assert values["W 0 0 WW. .BW B.B"] == ("white", 1)
    assert values["B 0 0 WW. .BW B.B"] == ("black", 1)
    # W: a1 b1 a2, B: c1 b2 a3. White's pieces have no empty neighbour (a1: b1 a2,
    # and b2 in the diagonal variant; b1: a1 c1 b2; a2: a1 b2 a3): White cannot move
    # and has lost, in 0 plies. In the diagonal variant Black's c1-b2-a3 is a line:
    # finished as well, Black has won.
    assert values["W 0 0 WWB WB. B.."] == ("black", 0)
    # With Black to move it is finished only in the diagonal variant (Black's line:
    # the side to move has won, 0 plies).
    start = graph.texts.index("B 0 0 WWB WB. B..")
    finished = graph.offsets[start + 1] == graph.offsets[start]
    assert finished == diagonal
    if diagonal:
        assert values["B 0 0 WWB WB. B.."] == ("black", 0)
    # W: a1 b2 c3, B: b1 c1 a3: White's diagonal is a line only in the diagonal variant.
    if diagonal:
        assert values["B 0 0 WBB .W. B.W"] == ("white", 0)
    else:
        assert values["B 0 0 WBB .W. B.W"][1] != 0
    # Placement: the start has a move to each of the 9 points, then Black has 8.
    start = three_parse("W 3 3 ... ... ...")
    assert sorted(m for m, _ in three_moves(start, diagonal)) == sorted(THREE_POINTS)
    after = dict(three_moves(start, diagonal))["b2"]
    assert three_text(*after) == "B 2 3 ... .W. ..."
    assert len(three_moves(after, diagonal)) == 8
    # The last placement (Black's third piece) leads to the moving phase, White to move.
    last = dict(three_moves(three_parse("B 0 1 WW. .W. BB."), diagonal))
    assert three_text(*last["c3"]) == "W 0 0 WW. .W. BBB"
    assert values["W 0 0 WW. .W. BBB"] == ("black", 0)  # Black's row 3: finished
    # A placement that completes a line wins at once: W a1 b1 to place, c1 free.
    assert values["W 1 1 WW. B.. B.."] == ("white", 1)


def _three_symmetries():
    """The 8 symmetries of the square as permutations of the 9 points."""
    maps = [lambda x, y: (x, y), lambda x, y: (2 - x, y), lambda x, y: (x, 2 - y),
            lambda x, y: (2 - x, 2 - y), lambda x, y: (y, x), lambda x, y: (2 - y, x),
            lambda x, y: (y, 2 - x), lambda x, y: (2 - y, 2 - x)]
    perms = []
    for f in maps:
        perm = []
        for p in range(9):
            x, y = f(p % 3, p // 3)
            perm.append(3 * y + x)
        perms.append(perm)
    assert len({tuple(p) for p in perms}) == 8
    return perms


def _permute(bits: int, perm) -> int:
    return sum(1 << perm[p] for p in range(len(perm)) if bits >> p & 1)


def test_three_values_are_symmetric(three):
    diagonal, graph, values, _, _ = three
    board = three_board(diagonal)
    for perm in _three_symmetries():
        # the symmetry maps the tables onto themselves ...
        assert sorted(_permute(m, perm) for m in board.lines) == sorted(board.lines)
        for p in range(9):
            assert {perm[q] for q in board.neighbours[p]} == set(board.neighbours[perm[p]])
        # ... and so must map every position onto one of the same value
        for side, hw, hb, white, black in graph.positions:
            text = three_text(side, hw, hb, white, black)
            image = three_text(side, hw, hb, _permute(white, perm), _permute(black, perm))
            assert values[image] == values[text], (text, image)


def test_three_values_are_colour_symmetric_in_the_moving_phase(three):
    _, _, values, _, _ = three
    other = {"white": "black", "black": "white", None: None}
    swap = str.maketrans("WB", "BW")
    for text, (winner, plies) in values.items():
        if text.startswith(("W 0 0", "B 0 0")):
            assert values[text.translate(swap)] == (other[winner], plies), text


def test_three_values_follow_the_definition(three):
    _, graph, values, outcome, plies = three
    check_definition(graph.offsets, graph.successors, graph.finished, outcome, plies)
    # the dictionary reports the same values, by the winner's colour
    for i, (text, position) in enumerate(zip(graph.texts, graph.positions)):
        winner, n = values[text]
        if outcome[i] == 0:
            assert (winner, n) == (None, None)
        else:
            mover_wins = outcome[i] > 0
            assert winner == ("white" if (position[0] == WHITE) == mover_wins else "black")
            assert n == plies[i]


def test_three_successors_are_the_moves(three):
    diagonal, graph, _, _, _ = three
    # the graph's successor lists are the positions the moves lead to, in order
    for i in range(0, len(graph.positions), 7):
        children = graph.successors[graph.offsets[i]:graph.offsets[i + 1]]
        if graph.finished[i] == 0:
            moves = three_moves(graph.positions[i], diagonal)
            assert [graph.texts[c] for c in children] == [three_text(*p) for _, p in moves]


# --- six men's morris: moves --------------------------------------------------------------


def _moves(text: str) -> dict[str, str]:
    side, white, black, hw, hb = six_parse(text)
    out = {}
    for move, (s, w, b, h1, h2) in six_moves(side, white, black, hw, hb):
        assert move not in out
        out[move] = six_text(s, w, b, h1, h2)
    return out


def test_six_moves_by_hand():
    # W: a1 c1 e3, B: b2 d4 c5. a1-a3; c1-e1, c1-c2; e3-e5, e3-d3; and e3-e1 closes
    # a1-c1-e1 and removes any of Black's three (none stands in a mill): 8 moves.
    moves = _moves("W 0 0 WW. B.. ...W ..B .B.")
    assert sorted(moves) == sorted(["a1-a3", "c1-e1", "c1-c2", "e3-e5", "e3-d3",
                                    "e3-e1xb2", "e3-e1xd4", "e3-e1xc5"])
    assert moves["e3-e1xd4"] == "B 0 0 WWW B.. .... ... .B."
    assert moves["a1-a3"] == "B 0 0 .W. B.. W..W ..B .B."
    # Black's pieces all in a mill (b4 c4 d4): any of them may be removed.
    moves = _moves("W 0 0 WW. ... ...W BBB ...")
    assert sorted(m for m in moves if "x" in m) == ["e3-e1xb4", "e3-e1xc4", "e3-e1xd4"]
    # Black's mill b4 c4 d4 and a5 outside it: only a5 may be removed.
    moves = _moves("W 0 0 WW. ... ...W BBB B..")
    assert sorted(m for m in moves if "x" in m) == ["e3-e1xa5"]
    # White's mill a1 c1 e1 stands already; no move forms a new one (a1-a3 leaves a1,
    # e1-e3 leaves e1, and c2 needs b2 and d2): no removal.
    moves = _moves("W 0 0 WWW ... .... B.. B.B")
    assert sorted(moves) == ["a1-a3", "c1-c2", "e1-e3"]
    # The mill a1 c1 e1 still stands while c4 moves: no mill through the destination
    # (c5 would need a5 and e5, b4 and d4 lose c4), so no removal.
    moves = _moves("W 0 0 WWW ..B .... .W. B.B")
    assert sorted(moves) == ["a1-a3", "c1-c2", "c4-b4", "c4-c5", "c4-d4", "e1-e3"]
    # Placement: W a1 c1 e3 e5 placing on e1 closes two mills, still one removal each
    # (b2 or d4): 10 empty points, 9 plain placements and 2 with a removal.
    moves = _moves("W 1 1 WW. B.. ...W ..B ..W")
    assert sorted(m for m in moves if m.startswith("e1")) == ["e1xb2", "e1xd4"]
    assert len(moves) == 11
    assert moves["e1xb2"] == "B 0 1 WWW ... ...W ..B ..W"
    # A mill placed while the opponent has no piece on the board removes nothing.
    moves = _moves("W 3 3 WW. ... .... ... ...")
    assert "e1" in moves and len(moves) == 14 and not any("x" in m for m in moves)
    # Black's placement: its hand goes down, White is to move.
    assert _moves("B 1 2 W.. ... .... ... ...")["c5"] == "W 1 1 W.. ... .... ... .B."


def test_six_hand_made_values(six3):
    graph, outcome, plies = six3

    def value(text):
        side, white, black, _, _ = six_parse(text)
        i = six_index(graph, side, white, black)
        return int(outcome[i]), int(plies[i])

    # W: a1 c1 e3, B: b2 d4 c5: e3-e1 closes a mill and takes one of Black's three;
    # Black is left with 2: a win in 1 for White.
    assert value("W 0 0 WW. B.. ...W ..B .B.") == (1, 1)
    # W: a1 c1 e1 boxed in by B: c2 a3 e3 (a1: c1 a3; c1: a1 e1 c2; e1: c1 e3):
    # White cannot move and has lost.
    assert value("W 0 0 WWW .B. B..B ... ...") == (-1, 0)
    # White to move with 2 pieces has lost; Black to move against 2 is no position.
    assert value("W 0 0 WW. ... .... ... BBB") == (-1, 0)
    with pytest.raises(KeyError):
        value("B 0 0 WW. ... .... ... BBB")
    # Black to move after the win in 1 above: W a1 c1 e1, B d4 c5. Black has 2: lost.
    assert value("B 0 0 WWW ... .... ..B .B.") == (-1, 0)


def test_six_position_counts(six3):
    graph, _, _ = six3

    def count(max_board, hands):
        total = 0
        for hw, hb in hands:
            sides = ([WHITE, BLACK] if hw == hb == 0 else [WHITE] if hw == hb
                     else [BLACK] if hb == hw + 1 else [])
            for side in sides:
                for bw in range(min(6 - hw, max_board) + 1):
                    for bb in range(min(6 - hb, max_board) + 1):
                        mover, other = (bw + hw, bb + hb) if side == WHITE else (bb + hb, bw + hw)
                        if mover >= 2 and other >= 3:
                            total += comb(16, bw) * comb(16 - bw, bb)
        return total

    every_hand = [(hw, hb) for hw in range(7) for hb in range(7)]
    assert count(16, every_hand) == 70_967_891  # the legality rule as the project states it
    assert len(graph.side) == count(3, [(0, 0)]) == 407_680
    keys = (graph.side.astype(np.int64) << 32) | (graph.white << 16) | graph.black
    assert (np.diff(keys) > 0).all() and not (graph.white & graph.black).any()


# --- six men's morris: values -------------------------------------------------------------


def _six_symmetries():
    """The 16 symmetries: the 8 of the square, each with or without the swap of the
    inner and outer squares, as permutations of the point numbers."""
    number = {name: p for p, name in enumerate(SIX_POINTS)}
    maps = [lambda x, y: (x, y), lambda x, y: (4 - x, y), lambda x, y: (x, 4 - y),
            lambda x, y: (4 - x, 4 - y), lambda x, y: (y, x), lambda x, y: (4 - y, x),
            lambda x, y: (y, 4 - x), lambda x, y: (4 - y, 4 - x)]
    by_xy = {xy(name): number[name] for name in SIX_POINTS}
    pairs = ["a1 b2", "c1 c2", "e1 d2", "e3 d3", "e5 d4", "c5 c4", "a5 b4", "a3 b3"]
    swap = list(range(16))
    for pair in pairs:
        a, b = (number[n] for n in pair.split())
        swap[a], swap[b] = b, a
    perms = []
    for f in maps:
        square = [by_xy[f(*xy(name))] for name in SIX_POINTS]
        perms.append(square)
        perms.append([square[swap[p]] for p in range(16)])
    assert len({tuple(p) for p in perms}) == 16
    return perms


def test_six_symmetries_preserve_the_board():
    mills = {frozenset(m) for m in SIX_MILLS}
    edges = {frozenset(e) for e in SIX_EDGES}
    for perm in _six_symmetries():
        image = lambda names: frozenset(SIX_POINTS[perm[SIX_POINTS.index(n)]] for n in names)
        assert {image(m) for m in mills} == mills
        assert {image(e) for e in edges} == edges


def test_six_values_are_symmetric(six3):
    graph, outcome, plies = six3
    keys = (graph.side.astype(np.int64) << 32) | (graph.white << 16) | graph.black
    masks = np.arange(1 << 16, dtype=np.int64)
    for perm in _six_symmetries():
        table = np.zeros(1 << 16, dtype=np.int64)
        for p in range(16):
            table |= ((masks >> p) & 1) << perm[p]
        image = (graph.side.astype(np.int64) << 32) | (table[graph.white] << 16) | table[graph.black]
        j = np.searchsorted(keys, image)
        assert (keys[j] == image).all()
        assert np.array_equal(outcome[j], outcome) and np.array_equal(plies[j], plies)


def test_six_values_are_colour_symmetric(six3):
    graph, outcome, plies = six3
    keys = (graph.side.astype(np.int64) << 32) | (graph.white << 16) | graph.black
    image = ((1 - graph.side.astype(np.int64)) << 32) | (graph.black << 16) | graph.white
    j = np.searchsorted(keys, image)
    assert (keys[j] == image).all()
    assert np.array_equal(outcome[j], outcome) and np.array_equal(plies[j], plies)


def test_six_values_follow_the_definition(six3):
    graph, outcome, plies = six3
    check_definition(graph.offsets, graph.successors, graph.finished, outcome, plies)


def test_six_successors_are_the_moves(six3):
    graph, _, _ = six3
    keys = (graph.side.astype(np.int64) << 32) | (graph.white << 16) | graph.black
    rng = np.random.default_rng(11)
    for i in rng.choice(len(graph.side), 300, replace=False):
        side, white, black = int(graph.side[i]), int(graph.white[i]), int(graph.black[i])
        children = graph.successors[graph.offsets[i]:graph.offsets[i + 1]]
        if graph.finished[i]:
            assert len(children) == 0
            mover = white if side == WHITE else black
            assert bin(mover).count("1") < 3 or not six_moves(side, white, black)
            continue
        moves = six_moves(side, white, black)
        targets = [(s << 32) | (w << 16) | b for _, (s, w, b, _, _) in moves]
        assert keys[children].tolist() == targets


def test_six_solution_matches_the_graph(six3):
    graph, outcome, plies = six3
    solution = solve_six_mens_morris_moving(3)
    assert np.array_equal(solution.side, graph.side)
    assert np.array_equal(solution.white, graph.white)
    assert np.array_equal(solution.black, graph.black)
    assert np.array_equal(solution.plies, plies)
    mover_wins = outcome > 0
    expected = np.where(outcome == 0, -1, np.where(mover_wins, graph.side, 1 - graph.side))
    assert np.array_equal(solution.winner, expected)
