"""Nine men's morris: the independent oracle (tests/nine_oracle.py) checked on its own,
then retro's 3-piece game against it.

The oracle's own checks use nothing from retro: its board against the mills and
adjacencies typed here from the rules; its notation and move generator against
positions worked out by hand in the comments; its position count against a count by
formula; its values against the definition of the value at every position (over the
successors its solver's tables give) and, on a sample, over the plain move generator;
its tables against the plain move generator; its values against the 16 symmetries of
the board and the colour swap, which it never uses; and the 3-3 flying sector against
the published counts (Gasser 1996; Malom / eigenraum).

Then retro (imported only here): every one of the 6,778,241 positions of the 3-piece
game is compared, value and distance, with the database retro's engine builds (read
in bulk by retro's own index, itself checked against ``game.index`` and ``db.probe``
on samples); the start and its moves; and retro's legal moves (and, on a smaller
sample, the positions they lead to) with the oracle's, for positions of the 3-piece
game, of the 9-piece game (slides) and of unequal variants.
"""

from __future__ import annotations

import ast
from collections import Counter
from functools import lru_cache
from math import comb
from pathlib import Path

import numpy as np
import pytest

import nine_oracle as oracle
from nine_oracle import (
    BLACK, EDGES, MILLS, N, NEIGHBOURS, POINTS, ROW_SIZES, WHITE, Sector,
    dense_children, moves, parse, position_count, sets, solve,
    table_moves, text, turn_states, valid,
)

try:  # retro's side of the comparison; the oracle's own checks run without it
    from retro.games.morris.nine import NineMensMorris
except ImportError:  # pragma: no cover - nine men's morris not there yet
    NineMensMorris = None

needs_retro = pytest.mark.skipif(NineMensMorris is None,
                                 reason="retro.games.morris.nine is not there")

START = "W 3 3 ... ... ... ...... ... ... ..."
MOVING_W = Sector(WHITE, 0, 0, 3, 3)


@pytest.fixture(scope="module")
def solution():
    return solve(3)


def _names(bitboard: int) -> set[str]:
    return {POINTS[p] for p in range(N) if bitboard >> p & 1}


def _board(*names: str) -> int:
    return sum(1 << POINTS.index(n) for n in names)


# --- the oracle imports nothing from retro ----------------------------------------------------


def test_the_oracle_does_not_import_retro():
    tree = ast.parse((Path(__file__).parent / "nine_oracle.py").read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            imported.add(node.module)
    assert not {m for m in imported if m.split(".")[0] == "retro"}
    assert {m.split(".")[0] for m in imported} <= {"__future__", "functools", "itertools", "math",
                                                   "time", "typing", "numpy", "numba"}


# --- the board ----------------------------------------------------------------------------------

# The rules, typed: the 12 sides of the three squares and the 4 half-midlines, each in
# order along its line (consecutive points are adjacent).
TYPED_MILLS = [
    "a1 d1 g1", "g1 g4 g7", "a7 d7 g7", "a1 a4 a7",  # outer square
    "b2 d2 f2", "f2 f4 f6", "b6 d6 f6", "b2 b4 b6",  # middle square
    "c3 d3 e3", "e3 e4 e5", "c5 d5 e5", "c3 c4 c5",  # inner square
    "a4 b4 c4", "e4 f4 g4", "d1 d2 d3", "d5 d6 d7",  # half-midlines
]


def test_the_board_is_the_rules_board():
    # Points in the notation's order: row 1 first, left to right; groups 3/3/3/6/3/3/3.
    assert list(POINTS) == sorted(POINTS, key=lambda n: (int(n[1]), n[0]))
    assert len(POINTS) == 24 == sum(ROW_SIZES) and ROW_SIZES == (3, 3, 3, 6, 3, 3, 3)
    assert [sum(1 for n in POINTS if n[1] == str(r)) for r in range(1, 8)] == list(ROW_SIZES)
    # 16 mills, the typed ones.
    typed = {_board(*m.split()) for m in TYPED_MILLS}
    assert len(MILLS) == 16 == len(set(MILLS)) and set(MILLS) == typed
    # 32 adjacent pairs: consecutive points of the typed lines; 2 to 4 neighbours each.
    typed_edges = set()
    for m in TYPED_MILLS:
        a, b, c = m.split()
        typed_edges |= {frozenset((a, b)), frozenset((b, c))}
    edges = {frozenset((POINTS[a], POINTS[b])) for a, b in EDGES}
    assert len(EDGES) == 32 == len(edges) and edges == typed_edges
    degrees = Counter(len(NEIGHBOURS[p]) for p in range(N))
    assert degrees == {2: 12, 3: 8, 4: 4}  # corners; side midpoints of outer/inner; middle's
    assert sorted(POINTS[q] for q in NEIGHBOURS[POINTS.index("d2")]) == ["b2", "d1", "d3", "f2"]
    assert sorted(POINTS[q] for q in NEIGHBOURS[POINTS.index("c4")]) == ["b4", "c3", "c5"]
    assert sorted(POINTS[q] for q in NEIGHBOURS[POINTS.index("a1")]) == ["a4", "d1"]
    for p in range(N):  # symmetric adjacency
        assert all(p in NEIGHBOURS[q] for q in NEIGHBOURS[p])


def _symmetries() -> list[list[int]]:
    """The 16 symmetries of the board as permutations of the point numbers: the 8 of
    the square (about the centre d4), each with or without the swap of the inner and
    outer squares, derived from coordinates."""
    number = {oracle.xy(n): p for p, n in enumerate(POINTS)}
    square = [lambda x, y: (x, y), lambda x, y: (6 - x, y), lambda x, y: (x, 6 - y),
              lambda x, y: (6 - x, 6 - y), lambda x, y: (y, x), lambda x, y: (6 - y, x),
              lambda x, y: (y, 6 - x), lambda x, y: (6 - y, 6 - x)]

    def swap(x, y):  # ring r = 1 (inner) <-> 3 (outer), same direction from the centre
        dx, dy = x - 3, y - 3
        r = max(abs(dx), abs(dy))
        s = 4 - r
        return 3 + dx // r * s, 3 + dy // r * s

    perms = []
    for f in square:
        for inner_outer in (False, True):
            perm = []
            for name in POINTS:
                x, y = oracle.xy(name)
                if inner_outer:
                    x, y = swap(x, y)
                perm.append(number[f(x, y)])
            perms.append(perm)
    assert len({tuple(p) for p in perms}) == 16
    return perms


def test_the_symmetries_preserve_the_board():
    edges = {frozenset(e) for e in EDGES}
    for perm in _symmetries():
        assert sorted(perm) == list(range(N))
        assert {sum(1 << perm[p] for p in oracle.bits(m)) for m in MILLS} == set(MILLS)
        assert {frozenset((perm[a], perm[b])) for a, b in EDGES} == edges


# --- notation and moves --------------------------------------------------------------------------


def test_notation():
    assert text(WHITE, 3, 3, 0, 0) == START and parse(START) == (WHITE, 3, 3, 0, 0)
    position = "B 0 1 W.W ... ... ..B... ... ... ..W"
    side, wh, bh, white, black = parse(position)
    assert (side, wh, bh) == (BLACK, 0, 1)
    assert _names(white) == {"a1", "g1", "g7"} and _names(black) == {"c4"}
    assert text(side, wh, bh, white, black) == position
    rng = np.random.default_rng(3)
    for _ in range(300):
        colours = rng.integers(0, 3, N)
        white = sum(1 << p for p in range(N) if colours[p] == 1)
        black = sum(1 << p for p in range(N) if colours[p] == 2)
        t = text(int(rng.integers(2)), int(rng.integers(10)), int(rng.integers(10)), white, black)
        assert text(*parse(t)) == t
    for bad in ("W 3 3 ... ... ... ..... ... ... ...", "X 3 3 ... ... ... ...... ... ... ...",
                "W 3 3 ... ... ... ...... ... ... ..Z"):
        with pytest.raises(ValueError):
            parse(bad)


def _moves(position: str) -> dict[str, str]:
    out = {}
    for move, child in moves(parse(position)):
        assert move not in out
        out[move] = text(*child)
    return out


def test_moves_by_hand():
    # The start: 24 placements; Black to move next, White with 2 in hand.
    start = _moves(START)
    assert len(start) == 24 and start["d2"] == "B 2 3 ... .W. ... ...... ... ... ..."
    # Slides (hands empty, White with 4 on the board): W a1 d1 b4 g7, B g1 d2 c4.
    # a1-a4 (d1 is white); d1 is boxed in (a1 W, g1 B, d2 B); b4-a4, b4-b2, b4-b6 (c4 is
    # black); g7-g4, g7-d7. None closes a mill.
    position = "W 0 0 WWB .B. ... .WB... ... ... ..W"
    assert sorted(_moves(position)) == ["a1-a4", "b4-a4", "b4-b2", "b4-b6", "g7-d7", "g7-g4"]
    assert _moves(position)["b4-b2"] == "B 0 0 WWB WB. ... ..B... ... ... ..W"
    # Flying (hands empty, White with exactly 3): W a1 d1 a7, B f4 g4 c5 g7; 17 empty
    # points, 3 x 17 flights. Two close a mill: a7-g1 (a1 d1 g1) and d1-a4 (a1 a4 a7);
    # no black piece stands in a mill (e4 and g1 are empty), so each has 4 removals.
    position = "W 0 0 WW. ... ... ....BB B.. ... W.B"
    flights = _moves(position)
    assert len(flights) == 3 * 17 - 2 + 2 * 4
    assert sorted(m for m in flights if "x" in m) == [
        "a7-g1xc5", "a7-g1xf4", "a7-g1xg4", "a7-g1xg7",
        "d1-a4xc5", "d1-a4xf4", "d1-a4xg4", "d1-a4xg7"]
    assert "a7-g1" not in flights and "a1-g1" in flights and "d1-g1" in flights
    assert flights["a7-g1xf4"] == "B 0 0 WWW ... ... .....B B.. ... ..B"
    # Removal: only pieces outside Black's mills (b2 d2 f2 stand in one, g7 not).
    position = "W 1 1 WW. BBB ... ...... ... ... ..B"
    assert sorted(m for m in _moves(position) if m.startswith("g1")) == ["g1xg7"]
    # All of Black's pieces in mills: any may go.
    position = "W 1 1 WW. BBB ... ...... ... ... ..."
    assert sorted(m for m in _moves(position) if m.startswith("g1")) == ["g1xb2", "g1xd2", "g1xf2"]
    assert _moves(position)["g1xd2"] == "B 0 1 WWW B.B ... ...... ... ... ..."
    # Two mills at once (g1 closes a1-d1-g1 and g1-g4-g7): still one removal per move,
    # f6 (b2 d2 f2 stand in a mill).
    position = "W 1 1 WW. BBB ... .....W ... ..B ..W"
    assert sorted(m for m in _moves(position) if m.startswith("g1")) == ["g1xf6"]
    # A mill closed while Black has no piece on the board is no move at all (Malom).
    position = "W 6 6 WW. ... ... ...... ... ... ..."
    placements = _moves(position)
    assert len(placements) == 21 and "g1" not in placements and "d2" in placements
    # Unequal counts (4 and 5): White's hand is empty while Black still places; White
    # slides: a4-a7 and b4-b2 (a1 and d1 are boxed in, c4 and b6 are black).
    assert turn_states(4, 5)[8] == (0, 1, WHITE)
    position = "W 0 1 WWB .B. ... WWB... ... B.. ..."
    assert _moves(position) == {"a4-a7": "B 0 1 WWB .B. ... .WB... ... B.. W..",
                                "b4-b2": "B 0 1 WWB WB. ... W.B... ... B.. ..."}
    # Black's placement lowers Black's hand.
    assert _moves("B 0 1 WWB .B. ... WWB... ... B.. ...")["d3"] == "W 0 0 WWB .B. .B. WWB... ... B.. ..."
    # A side to move with 2 pieces has lost; so has one with no move (W a1 g1 a7 g7
    # sliding, each corner boxed in by black midpoints).
    assert oracle.finished(parse("W 0 0 WW. ... ... ...... ... ... BBB")) == -1
    assert moves(parse("W 0 0 WW. ... ... ...... ... ... BBB")) == []
    boxed = parse("W 0 0 WBW ... ... B....B ... ... WBW")
    assert moves(boxed) == [] and oracle.finished(boxed) == -1
    assert oracle.finished(parse("B 0 0 WBW ... ... B....B ... ... WBW")) == 0


def test_turn_states():
    assert turn_states(3, 3) == [(3, 3, WHITE), (2, 3, BLACK), (2, 2, WHITE), (1, 2, BLACK),
                                 (1, 1, WHITE), (0, 1, BLACK), (0, 0, WHITE), (0, 0, BLACK)]
    assert turn_states(3, 4) == [(3, 4, WHITE), (2, 4, BLACK), (2, 3, WHITE), (1, 3, BLACK),
                                 (1, 2, WHITE), (0, 2, BLACK), (0, 1, WHITE), (0, 1, BLACK),
                                 (0, 0, WHITE), (0, 0, BLACK)]
    assert len(turn_states(9, 9)) == 20


# --- the 3-piece game: positions and values -------------------------------------------------


def test_position_count(solution):
    # By formula, from the legality rule: for each turn state, White w <= 3 - hand on
    # the board, Black likewise, the side to move with at least 2 pieces in all, the
    # other with at least 3.
    total = 0
    for wh, bh, side in turn_states(3, 3):
        for w in range(4 - wh):
            for b in range(4 - bh):
                mover, other = (w + wh, b + bh) if side == WHITE else (b + bh, w + wh)
                if mover >= 2 and other >= 3:
                    total += comb(24, w) * comb(24 - w, b)
    assert total == position_count(3, 3) == len(solution) == 6_778_241
    # The sectors hold those positions, each once; every entry is a position or marked
    # as none.
    for sector in solution.sectors:
        ok = valid(sector)
        assert ok.sum() == comb(24, sector.mover_on) * comb(24 - sector.mover_on, sector.other_on)
        assert (solution.plies[sector][~ok] == -2).all() and (solution.plies[sector][ok] >= -1).all()
        assert ((solution.outcome[sector][ok] == 0) == (solution.plies[sector][ok] == -1)).all()
    assert len(sets(3)) == 2024 and (np.diff(sets(3)) > 0).all()


def _check_definition(solution, sector):
    """The definition of the value at every position of ``sector``, over the moves the
    solver's tables give (a move closing a mill leads to a loss in 0):

    a win in n has a move to a loss in n-1 and none to a loss in fewer; a loss in n
    has only moves to wins, the slowest in n-1; a draw has no move to a loss and one
    to a draw; a position without a legal move is lost in 0. (These local conditions
    pin the values down: by induction on n a win or loss in n can only be labelled so,
    and what is labelled so is one.)"""
    ok = valid(sector)
    outcome, plies = solution.outcome[sector], solution.plies[sector]
    if sector.lost:  # fewer than 3 pieces: finished, lost in 0
        assert (outcome[ok] == -1).all() and (plies[ok] == 0).all()
        return
    big = 1 << 14
    for start in range(0, ok.shape[0], 128):
        rows = slice(start, start + 128)
        legal, child_outcome, child_plies = dense_children(solution, sector, rows)
        here = ok[rows]
        legal &= here[:, None, :]
        count = legal.sum(axis=1)
        loss, win, draw = (legal & (child_outcome == v) for v in (-1, 1, 0))
        fastest_loss = np.where(loss, child_plies, big).min(axis=1)
        slowest_win = np.where(win, child_plies, -1).max(axis=1)
        all_win = win.sum(axis=1) == count
        out, n = outcome[rows], plies[rows].astype(np.int64)
        assert (count[here] > 0).all()  # 18 or more empty points: there is always a move
        w, lo, d = here & (out == 1), here & (out == -1), here & (out == 0)
        assert (fastest_loss[w] == n[w] - 1).all()
        assert all_win[lo].all() and (slowest_win[lo] == n[lo] - 1).all()
        assert (fastest_loss[d] == big).all() and draw.any(axis=1)[d].all() and (n[d] == -1).all()


def test_values_follow_the_definition_at_every_position(solution):
    for sector in solution.sectors:
        _check_definition(solution, sector)


def _sample(sector, count, rng):
    """Up to ``count`` positions of a sector (all of a small one), as tuples."""
    a, b = np.nonzero(valid(sector))
    if len(a) > count:
        pick = rng.choice(len(a), count, replace=False)
        a, b = a[pick], b[pick]
    out = []
    for i, j in zip(a.tolist(), b.tolist()):
        mover, other = int(sets(sector.mover_on)[i]), int(sets(sector.other_on)[j])
        white, black = (mover, other) if sector.side == WHITE else (other, mover)
        out.append((sector.side, sector.white_hand, sector.black_hand, white, black))
    return out


def test_the_tables_and_the_values_agree_with_the_plain_move_generator(solution):
    """On a sample of every sector: the solver's move tables are the plain generator's
    moves, and the values satisfy the definition over the plain generator's moves."""
    rng = np.random.default_rng(2024)
    checked = 0
    for sector in solution.sectors:
        for position in _sample(sector, 1000, rng):
            plain = moves(position)
            outcome, plies = solution.mover_value(position)
            if sector.lost:
                assert plain == [] and (outcome, plies) == (-1, 0)
                continue
            # The tables: the same (from, to) steps; a step closes a mill iff the plain
            # generator lists it with removals; the same position after it otherwise.
            by_step: dict = {}
            for move, child in plain:
                by_step.setdefault(move.split("x")[0], []).append((move, child))
            tabled = table_moves(position)
            assert len(tabled) == len(by_step)
            for frm, to, closes, after in tabled:
                step = oracle.move_text(frm, to, None)
                listed = by_step[step]
                if closes:
                    # each removal leaves the opponent 2 pieces: lost in 0
                    assert listed and all("x" in m for m, _ in listed)
                    assert all(solution.mover_value(c) == (-1, 0) for _, c in listed)
                else:
                    assert listed == [(step, after)]
            # The definition over the plain moves.
            values = [solution.mover_value(c) for _, c in plain]
            losses = [p for o, p in values if o == -1]
            if outcome == 1:
                assert min(losses) == plies - 1
            elif outcome == -1:
                assert all(o == 1 for o, _ in values) and max(p for _, p in values) == plies - 1
            else:
                assert not losses and any(o == 0 for o, _ in values) and plies == -1
            checked += 1
    assert checked > 5000


def _set_maps(perm):
    """For each k: the number in ``sets(k)`` of the image of each set under ``perm``."""
    maps = {}
    for k in range(4):
        s = sets(k)
        image = np.zeros_like(s)
        for p in range(N):
            image |= ((s >> p) & 1) << perm[p]
        maps[k] = np.searchsorted(s, image)
        assert (sets(k)[maps[k]] == image).all()
    return maps


def test_values_are_invariant_under_the_symmetries(solution):
    # The oracle uses no symmetry: its values must not change under the board's
    # symmetries. Three generate all 16: a quarter turn, a mirror, the square swap.
    perms = _symmetries()
    number = {oracle.xy(n): p for p, n in enumerate(POINTS)}
    quarter = [number[(6 - oracle.xy(n)[1], oracle.xy(n)[0])] for n in POINTS]
    mirror = [number[(6 - oracle.xy(n)[0], oracle.xy(n)[1])] for n in POINTS]
    swap = perms[1]  # the identity with the inner and outer squares swapped
    generated = {tuple(range(N))}
    frontier = list(generated)
    while frontier:
        g = frontier.pop()
        for h in (quarter, mirror, swap):
            c = tuple(h[g[p]] for p in range(N))
            if c not in generated:
                generated.add(c)
                frontier.append(c)
    assert generated == {tuple(p) for p in perms}
    for perm in (quarter, mirror, swap):
        maps = _set_maps(perm)
        for sector in solution.sectors:
            rows, cols = maps[sector.mover_on][:, None], maps[sector.other_on][None, :]
            for table in (solution.outcome[sector], solution.plies[sector]):
                assert np.array_equal(table[rows, cols], table), sector


def test_values_do_not_depend_on_the_colour(solution):
    # White to move and Black to move are solved apart: in the moving phase the same
    # pieces (the mover's and the other's) must have the same value.
    for lost in (False, True):
        on = 2 if lost else 3
        w, b = Sector(WHITE, 0, 0, on, 3), Sector(BLACK, 0, 0, on, 3)
        assert np.array_equal(solution.outcome[w], solution.outcome[b])
        assert np.array_equal(solution.plies[w], solution.plies[b])
    # W a1 d1 a7 flies a7-g1 (or d1-a4) into a mill: a win in 1, either colour.
    assert solution.value("W 0 0 WW. ... ... ...... ... ..B WBB") == ("white", 1)
    assert solution.value("B 0 0 BB. ... ... ...... ... ..W BWW") == ("black", 1)
    # W a1 d1 g1 (a mill standing) cannot close another at once.
    assert solution.value("W 0 0 WWW ... ... ...... ... ... BBB") != ("white", 1)


def _classes_of(sector):
    """The valid entries ``(a, b)`` of a 3-3 sector and which are the least of their class
    under the 16 symmetries."""
    ok = valid(sector)
    n = ok.shape[0]
    a, b = np.nonzero(ok)
    key = a.astype(np.int64) * n + b
    least = key.copy()
    for perm in _symmetries():
        maps = _set_maps(perm)
        np.minimum(least, maps[3][a].astype(np.int64) * n + maps[3][b], out=least)
    return a, b, least == key


def test_the_flying_sector_matches_the_published_counts(solution):
    # The 3-3 sector (hands empty, 3 each), one position per class under the 16
    # symmetries: 140,621 won for the side to move, 28,736 lost, 269 drawn (Malom's and
    # eigenraum's counts); the longest loss 26 plies (Gasser 1996).
    a, b, first = _classes_of(MOVING_W)
    outcome = solution.outcome[MOVING_W][a, b][first]
    plies = solution.plies[MOVING_W][a, b][first]
    assert ((outcome == 1).sum(), (outcome == -1).sum(), (outcome == 0).sum()) == (140_621, 28_736, 269)
    assert plies[outcome == -1].max() == 26


@needs_retro
def test_the_positions_after_the_last_placement(solution, retro):
    # What the sixth placement reaches with no piece taken: 3 against 3 with no mill (each
    # mill closed while placing takes a piece), White to move, one per symmetry class.
    from retro.analyze.outofcore import analyze

    a, b, first = _classes_of(MOVING_W)
    white, black = sets(3)[a], sets(3)[b]
    no_mill = np.ones(len(a), dtype=bool)
    for mill in MILLS:
        no_mill &= ((white & mill) != mill) & ((black & mill) != mill)
    outcome = solution.outcome[MOVING_W][a, b][first & no_mill]
    placed = analyze(retro[0].path, progress=False)["after_placement"]
    assert placed["tier"] == "moving_3_3" and placed["pieces"] == 3
    assert (placed["positions"], placed["white_wins"], placed["black_wins"], placed["draws"]) == (
        len(outcome), int((outcome == 1).sum()), int((outcome == -1).sum()), int((outcome == 0).sum()))


def test_the_start(solution):
    # White wins the 3-piece game in 23 plies (the oracle's own figure).
    assert solution.value(START) == ("white", 23)
    children = {move: solution.value(child) for move, child in moves(parse(START))}
    best = [m for m, (winner, plies) in children.items() if (winner, plies) == ("white", 22)]
    assert best and all(winner in ("white", None) for winner, _ in children.values())


# --- the general solver (any piece counts; tests/test_nine_oracle_four.py for 4 pieces) -----------


def test_the_set_numbers_are_those_of_the_sorted_tables():
    # The kernels number a set by formula (colex); the numbering is the sorted tables'.
    colex = oracle.colex_table()
    for k in range(6):
        for i, mask in enumerate(sets(k).tolist()):
            assert oracle._number(mask, colex) == i == oracle.number_of(mask)
    with pytest.raises(KeyError):
        oracle.number_of(1 << 24)


def test_the_kernel_tables_are_the_board():
    neighbours, through, mills, third = oracle.board_arrays()
    for p in range(N):
        assert sorted(q for q in neighbours[p] if q >= 0) == sorted(NEIGHBOURS[p])
        assert sorted(through[p]) == sorted(m for m in MILLS if m >> p & 1)
    assert sorted(mills) == sorted(MILLS)
    on_a_mill = {}
    for m in TYPED_MILLS:
        line = [POINTS.index(n) for n in m.split()]
        for p in line:
            for q in line:
                if p != q:
                    on_a_mill[p, q] = ({*line} - {p, q}).pop()
    for p in range(N):
        for q in range(N):
            assert third[p, q] == on_a_mill.get((p, q), -1)


def _swapped(position):
    side, wh, bh, white, black = position
    return 1 - side, bh, wh, black, white


def test_swapping_the_colours_swaps_the_moves():
    """The general solver keeps one table per (hands, counts) from the side to move's
    view, whatever the colour: the rules must not look at colours. They do not: a
    position's colour-swapped image has the colour-swapped moves (same texts) and is
    finished alike, so the two game graphs are the same and so are the values."""
    rng = np.random.default_rng(8)
    positions = []
    for w, b in [(3, 3), (4, 4), (4, 3), (3, 5), (6, 6), (9, 9)]:
        positions += _random_positions(w, b, 300, rng)
    positions += [parse(t) for t in ("W 0 0 WBW ... ... B....B ... ... WBW",
                                     "W 6 6 WW. ... ... ...... ... ... ...",
                                     "W 1 1 WW. BBB ... .....W ... ..B ..W")]
    for position in positions:
        image = _swapped(position)
        assert sorted(oracle.moves(image)) == sorted((m, _swapped(c)) for m, c in oracle.moves(position))
        assert oracle.finished(image) == oracle.finished(position)
        assert oracle.part_of(image) == oracle.part_of(position)


def test_the_solving_order():
    parts = oracle.game_parts(4, 4)
    assert len(parts) == 31 and all(not p.lost for p in parts)
    assert oracle.moving_parts(4, 4) == [oracle.Part(0, 0, m, o) for m in (3, 4) for o in (3, 4)]
    groups = oracle._groups(parts)
    assert sorted(p for g in groups for p in g) == parts
    assert [g for g in groups if len(g) > 1] == [(oracle.Part(0, 0, 3, 4), oracle.Part(0, 0, 4, 3))]
    done: set = set()
    for group in groups:
        for part in group:
            assert all(c in done or c in group for c in oracle.child_parts(part))
        done.update(group)
    with pytest.raises(ValueError):
        oracle._groups([oracle.Part(0, 0, 4, 4)])  # its removals lead to 3-4, not given


def test_the_general_solver_agrees_with_the_3_piece_solver(solution):
    """Every position of the 3-piece game: the general solver (one colour, the
    retrograde kernels) and the 3-piece solver above (both colours apart, value
    iteration over whole sectors) give the same value and distance."""
    general = oracle.solve_game(3, 3)
    parts = {oracle.part_of_sector(s) for s in solution.sectors if not s.lost}
    assert sorted(parts) == general.parts == oracle.game_parts(3, 3)
    assert len(general) == sum(oracle.part_size(p) for p in parts) == 3_187_365
    for sector in solution.sectors:
        part = oracle.part_of_sector(sector)
        ok = valid(sector)
        if part.lost:
            continue
        state, plies = general.table(part)
        assert np.array_equal(state[ok], solution.outcome[sector][ok]), sector
        assert np.array_equal(plies[ok], solution.plies[sector][ok]), sector
        assert (state[~ok] == -2).all() and (plies[~ok] == -2).all()
    # Its own check of the definition (the kernel the 4-piece tests use) passes too.
    assert general.check_definition(oracle.Part(0, 0, 3, 3)) == (2_691_920, 0, None)


# --- retro against the oracle -------------------------------------------------------------------


@pytest.fixture(scope="module")
def retro(tmp_path_factory):
    """retro's database of the 3-piece game, built by its engine: (summary, database)."""
    if NineMensMorris is None:
        pytest.skip("retro.games.morris.nine is not there")
    from retro.db.database import open_database
    from retro.engine.build import build

    from retro import games as registry

    summary = build(registry.get("nine-mens-morris", "3"), out=tmp_path_factory.mktemp("nine") / "nine-3.h5",
                    progress=False)
    db = open_database(summary.path)
    yield summary, db
    db.close()


@lru_cache(maxsize=None)
def _entry_kernel():
    """A loop over retro's own index function (what ``game.index`` calls per position)."""
    from numba import njit

    from retro.games.morris.sectors import sector_entry

    @njit
    def entries(mover, other, set_index, stabilisers, sym_bytes, binomial, out):
        for i in range(len(mover)):
            out[i] = sector_entry(mover[i], other[i], set_index, stabilisers, sym_bytes,
                                  binomial)[0]

    return entries


def _retro_entries(game, sector, mover, other):
    """retro's index entries (and tier) of positions of one oracle sector, in bulk: its
    sector entries plus the sector's offset in its tier, taken from ``game.index`` of
    the first position (and checked against it on a sample)."""
    t = game.index_tables
    out = np.empty(len(mover), dtype=np.int64)
    _entry_kernel()(np.ascontiguousarray(mover), np.ascontiguousarray(other), t.set_index,
                    t.stabilisers, t.sym_bytes, t.binomial, out)

    def position(i):
        white, black = (mover[i], other[i]) if sector.side == WHITE else (other[i], mover[i])
        return game.parse(text(sector.side, sector.white_hand, sector.black_hand, int(white), int(black)))

    first = position(0)
    offset = game.index(first) - int(out[0])
    for i in np.random.default_rng(5).choice(len(mover), min(len(mover), 200), replace=False):
        assert game.index(position(i)) == offset + out[i]
    return game.tier_of(first), offset + out


def _stored(db, tier) -> np.ndarray:
    """A tier's values as the file stores them (nine men's morris: from the side to
    move's view), read through the file's reader (which decodes the ranks it holds)."""
    return np.asarray(db._file.read(tier))


@needs_retro
def test_every_position_matches_retro(solution, retro):
    """All 6,778,241 positions: the 5,879,285 retro stores, value and distance, and the
    positions whose mover has just lost (below, through the probe API)."""
    from retro.values import draw_value

    summary, db = retro
    game = db.game
    assert summary.positions == sum(int(valid(s).sum()) for s in solution.sectors if not s.lost)
    draw = draw_value(np.dtype(game.value_dtype).type)
    compared = 0
    for sector in solution.sectors:
        if sector.lost:
            continue
        white, black, outcome, plies = solution.positions(sector)
        mover, other = (white, black) if sector.side == WHITE else (black, white)
        tier, entries = _retro_entries(game, sector, mover, other)
        values = _stored(db, tier)[entries].astype(np.int64)
        drawn = values == draw
        retro_outcome = np.where(drawn, 0, np.where(values & 1, 1, -1))  # bit 0: the mover wins
        retro_plies = np.where(drawn, -1, values >> 1)
        wrong = np.flatnonzero((retro_outcome != outcome) | (retro_plies != plies))
        assert len(wrong) == 0, [
            (text(sector.side, sector.white_hand, sector.black_hand, int(white[i]), int(black[i])),
             "oracle", int(outcome[i]), int(plies[i]), "retro", int(retro_outcome[i]), int(retro_plies[i]))
            for i in wrong[:5]]
        compared += len(values)
    assert compared == summary.positions == 5_879_285


@needs_retro
def test_the_probe_api_agrees(solution, retro):
    """``db.probe`` (text in, winner and plies out) on every position of the first four
    plies' sectors and a sample of every other sector, those lost at once included."""
    _, db = retro
    rng = np.random.default_rng(17)
    probed = 0
    for sector in solution.sectors:
        for position in _sample(sector, 7000 if sector.white_hand >= 1 and sector.black_hand >= 2 else 400, rng):
            outcome = db.probe(text(*position))
            found = oracle.as_value(outcome)
            assert found == solution.value(position), text(*position)
            probed += 1
    assert probed > 9000


@needs_retro
def test_the_start_and_its_moves(solution, retro):
    _, db = retro
    start = db.game.start()
    assert str(start) == START
    outcome = db.probe(start)
    assert (outcome.winner.value, outcome.plies) == solution.value(START) == ("white", 23)
    oracle_children = dict(moves(parse(START)))
    children = db.children(start)
    assert sorted(str(m) for m, _, _ in children) == sorted(oracle_children)
    for move, after, outcome in children:
        assert str(after) == text(*oracle_children[str(move)])
        found = oracle.as_value(outcome)
        assert found == solution.value(str(after)), move


def _random_positions(white_pieces, black_pieces, count, rng):
    """``count`` random legal positions of a game (any turn state, board counts, points)."""
    states = turn_states(white_pieces, black_pieces)
    out = []
    while len(out) < count:
        wh, bh, side = states[rng.integers(len(states))]
        w = int(rng.integers(0, white_pieces - wh + 1))
        b = int(rng.integers(0, black_pieces - bh + 1))
        mover, other = (w + wh, b + bh) if side == WHITE else (b + bh, w + wh)
        if mover < 2 or other < 3:
            continue
        points = rng.permutation(N).tolist()
        white = sum(1 << p for p in points[:w])
        black = sum(1 << p for p in points[w:w + b])
        out.append((side, wh, bh, white, black))
    return out


@needs_retro
def test_legal_moves_match_retro(solution):
    """retro's legal moves are the oracle's, move for move (text), for positions of the
    3-piece game (every sector) and random positions of other piece counts (slides,
    flying, removals, unequal counts, Malom's rule); and the positions they lead to
    are the oracle's on part of them. Finished positions: none, and the same winner."""
    rng = np.random.default_rng(99)
    cases = []
    for sector in solution.sectors:
        cases += [("3", p) for p in _sample(sector, 150, rng)]
    for variant, (w, b) in [("9", (9, 9)), ("6", (6, 6)), ("4", (4, 4)), ("4,3", (4, 3)),
                            ("3,5", (3, 5)), ("9,8", (9, 8))]:
        cases += [(variant, p) for p in _random_positions(w, b, 400, rng)]
    # By hand: Malom's rule, all pieces in mills, two mills at once, a boxed-in side.
    cases += [("9", parse(t)) for t in ("W 6 6 WW. ... ... ...... ... ... ...",
                                        "W 1 1 WW. BBB ... ...... ... ... ...",
                                        "W 1 1 WW. BBB ... .....W ... ..B ..W",
                                        "W 0 0 WBW ... ... B....B ... ... WBW")]
    games = {}
    with_children = 0
    removals = Counter()
    for i, (variant, position) in enumerate(cases):
        game = games.setdefault(variant, NineMensMorris(variant))
        retro_position = game.parse(text(*position))
        assert str(retro_position) == text(*position)
        expected = moves(position)
        found = [str(m) for m in retro_position.legal_moves()]
        assert sorted(found) == sorted(m for m, _ in expected), text(*position)
        assert len(found) == len(set(found))
        lost = oracle.finished(position) == -1
        assert retro_position.is_over() == lost, text(*position)
        if lost:
            assert retro_position.winner().value == oracle.COLOURS[1 - position[0]]
        removals.update("x" in m for m, _ in expected)
        if i % 5 == 0:
            for move, child in expected:
                assert str(retro_position.play(move)) == text(*child), (text(*position), move)
                with_children += 1
    assert removals[True] > 1000 and with_children > 2000
