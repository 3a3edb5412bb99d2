"""Nine men's morris with 4 pieces: retro against the independent oracle's general solver
(tests/nine_oracle.py: slides, flying, removals into smaller parts, placement), on
every position.

One test runs by default (a few seconds): every position of the moving phase with 3
or 4 stones a side short of 4-4, that is the parts 3-3, 4-3 and 3-4 with either side
to move (the moving phase of White 4 against Black 3), the oracle's values against
those of the database retro builds with ``--pieces 4,3 --stage moving``.

The others are heavy (a few minutes on two cores) and run only when asked::

    RETRO_SLOW_TESTS=1 python -m pytest -n 0 -s tests/test_nine_oracle_four.py

(``-n 0``: one process, so that the whole-game solution, 1.5 GB, is made once;
``-s`` shows the times.)

They solve the whole 4-piece game with the oracle (about 100 million positions from
the side to move's view, 178 million with the colours) and check, on its own: the
definition of the value at every position, its values over the plain move generator
on samples of every sector (both colours, the lost ones too), and their invariance
under the board's 16 symmetries, which it never uses; then retro: every position of
the whole 4-piece game (``build(..., variant="4")``) and of its moving phase alone
(``build(..., variant="4", stage="moving")``: 3 and 4 stones a side, 4-4 included),
value and distance, read in bulk by retro's index (checked against ``game.index`` on
samples); ``db.probe`` (colours, positions lost at once) on samples; the start and
its moves; and, the same way, the whole games White 4 against Black 3 and White 3
against Black 4 (``--pieces 4,3`` and ``3,4``: a player whose hand is empty moves while
the other still places).

Values are compared from the side to move's view, which is how both sides keep them:
the oracle's parts and retro's sectors are the same positions whatever the colour (the
colour reduction is proved for the oracle in tests/test_nine_oracle.py), so one
comparison per (mover's set, other's set) covers a position with White to move and its
colour-swapped image with Black to move; ``db.probe`` checks the colours.
"""

from __future__ import annotations

import os
import time
from math import comb

import numpy as np
import pytest
from numba import njit

import nine_oracle as oracle
from nine_oracle import N, POINTS, WHITE, Part, parse, sectors, sets, text
from retro.games.morris.sectors import sector_entry

NINE = "nine-mens-morris"
SLOW = os.environ.get("RETRO_SLOW_TESTS") == "1"
slow = pytest.mark.skipif(
    not SLOW, reason="heavy (minutes): run with RETRO_SLOW_TESTS=1 python -m pytest -n 0 -s "
                     "tests/test_nine_oracle_four.py")
DRAW = 65535  # retro's uint16 draw code; 65534: an entry that is no position


def _say(message: str) -> None:  # shown with pytest -s
    print(message, flush=True)


# --- retro, read in bulk ----------------------------------------------------------------------


@njit(cache=True)
def _entries(mover, other, set_index, stabilisers, sym_bytes, binomial, out):
    """A loop over retro's own index function (what ``game.index`` calls per position)."""
    for i in range(len(mover)):
        out[i] = sector_entry(mover[i], other[i], set_index, stabilisers, sym_bytes, binomial)[0]


def _colour(part: Part, pieces: tuple[int, int]):
    """A coloured sector of the game with those pieces holding the part's positions."""
    for sector in sectors(*pieces):
        if oracle.part_of_sector(sector) == part:
            return sector
    raise AssertionError(f"{part} is not in the game {pieces}")


def _stored(db, tier) -> np.ndarray:
    """A tier's stored values (from the side to move's view)."""
    return np.asarray(db._file.read(tier))


class Retro:
    """retro's database of a game, read by (mover's set, other's set) in bulk."""

    def __init__(self, db, pieces: tuple[int, int]) -> None:
        self.db, self.game, self.pieces = db, db.game, pieces
        self.tiers: dict = {}
        self.offsets: dict[Part, tuple] = {}

    def _position(self, part: Part, mover: int, other: int):
        sector = _colour(part, self.pieces)
        white, black = (mover, other) if sector.side == WHITE else (other, mover)
        return self.game.parse(text(sector.side, sector.white_hand, sector.black_hand, white, black))

    def values(self, part: Part, mover: np.ndarray, other: np.ndarray) -> np.ndarray:
        """retro's stored values (side to move's view) of positions of one part."""
        game, t = self.game, self.game.index_tables
        out = np.empty(len(mover), dtype=np.int64)
        _entries(np.ascontiguousarray(mover), np.ascontiguousarray(other), t.set_index,
                 t.stabilisers, t.sym_bytes, t.binomial, out)
        if part not in self.offsets:
            first = self._position(part, int(mover[0]), int(other[0]))
            self.offsets[part] = (game.tier_of(first), game.index(first) - int(out[0]))
        tier, offset = self.offsets[part]
        for i in np.random.default_rng(len(mover)).choice(len(mover), min(len(mover), 50),
                                                           replace=False):
            position = self._position(part, int(mover[i]), int(other[i]))
            assert game.tier_of(position) == tier and game.index(position) == offset + out[i]
        if tier not in self.tiers:
            self.tiers[tier] = _stored(self.db, tier)
        return self.tiers[tier][offset + out].astype(np.int64)


def compare(solved: oracle.Solved, retro: Retro, parts) -> int:
    """Every position of ``parts``: the oracle's value and distance against retro's
    (both from the side to move's view). Returns the positions compared."""
    compared = 0
    for part in parts:
        movers = len(sets(part.mover_on))
        step = max(1, 4_000_000 // len(sets(part.other_on)))
        for start in range(0, movers, step):
            mover, other, state, plies = solved.positions(part, slice(start, start + step))
            values = retro.values(part, mover, other)
            assert not (values == DRAW - 1).any(), "an entry marked as no position"
            drawn = values == DRAW
            outcome = np.where(drawn, 0, np.where(values & 1, 1, -1))
            distance = np.where(drawn, -1, values >> 1)
            wrong = np.flatnonzero((outcome != state) | (distance != plies))
            assert len(wrong) == 0, (f"{len(wrong)} positions of {part} differ, e.g.", [
                (_text(part, int(mover[i]), int(other[i]), retro.pieces),
                 "oracle", int(state[i]), int(plies[i]), "retro", int(outcome[i]), int(distance[i]))
                for i in wrong[:5]])
            compared += len(values)
    return compared


def _text(part: Part, mover: int, other: int, pieces) -> str:
    sector = _colour(part, pieces)
    white, black = (mover, other) if sector.side == WHITE else (other, mover)
    return text(sector.side, sector.white_hand, sector.black_hand, white, black)


def coloured_positions(pieces, moving_only: bool = False) -> int:
    """The positions of a game retro stores (mover not lost), counted with colours."""
    return sum(comb(N, s.mover_on) * comb(N - s.mover_on, s.other_on) for s in sectors(*pieces)
               if not s.lost and (not moving_only or s.white_hand == s.black_hand == 0))


def _build(path, variant: str, stage: str | None = None):
    from retro.db.database import open_database
    from retro.engine.build import build

    started = time.perf_counter()
    summary = build(NINE, path, variant=variant, stage=stage, progress=False)
    _say(f"retro build {variant} {stage or 'whole'}: {time.perf_counter() - started:.1f} s, "
         f"{summary.positions:,} positions")
    return summary, open_database(summary.path)


# --- by default: the moving phase with 3 and 4 stones, 4-4 left out -----------------------------


def test_the_moving_phase_of_4_against_3_matches_retro(tmp_path):
    """Every position of the moving parts 3-3, 4-3 and 3-4 (2,691,920 + 2 x 12,113,640
    from the side to move's view; 29,611,120 with the colours the game 4,3 has)."""
    started = time.perf_counter()
    solved = oracle.solve_moving(4, 3)
    parts = [Part(0, 0, 3, 3), Part(0, 0, 3, 4), Part(0, 0, 4, 3)]
    assert sorted(solved.parts) == parts
    _say(f"oracle, moving phase 4,3: {time.perf_counter() - started:.1f} s")
    summary, db = _build(tmp_path / "nine-4-3-moving.h5", "4,3", "moving")
    try:
        assert summary.positions == coloured_positions((4, 3), moving_only=True) == 29_611_120
        started = time.perf_counter()
        compared = compare(solved, Retro(db, (4, 3)), parts)
        _say(f"compared {compared:,} positions in {time.perf_counter() - started:.1f} s")
        assert compared == len(solved) == 2_691_920 + 2 * 12_113_640
    finally:
        db.close()
    # By hand, both colours. W a1 d1 b2 (flying), B d2 c3 e3 d6 (in no mill): b2-g1
    # closes a1-d1-g1; removing c3 or e3 leaves Black a 3-3 position lost in 18 plies,
    # and no move does better: White wins in 19.
    position = "W 0 0 WW. WB. B.B ...... ... .B. ..."
    assert solved.value(position) == ("white", 19)
    assert solved.value("B 0 0 BB. BW. W.W ...... ... .W. ...") == ("black", 19)


# --- opt-in: the whole 4-piece game ------------------------------------------------------------


@pytest.fixture(scope="module")
def four():
    started = time.perf_counter()
    solved = oracle.solve_game(4, 4)
    _say(f"oracle, whole 4-piece game: {time.perf_counter() - started:.1f} s, "
         f"{len(solved):,} positions from the side to move's view")
    return solved


@slow
def test_the_oracle_follows_the_definition_at_every_position(four):
    """At every position of every part: the value is the one its best move gives (win
    in n: a move to a loss in n - 1 and none to a shorter loss; loss in n: every move to
    a win, the slowest in n - 1; draw: no move to a loss, one to a draw; no move: lost
    in 0), over every move, removals and placements included (the local conditions
    pin the values down; see tests/test_nine_oracle.py)."""
    checked = 0
    for part in four.parts:
        n, wrong, first = four.check_definition(part)
        assert wrong == 0, (part, wrong, first)
        checked += n
    assert checked == len(four) == 99_878_841


def _sample(sector, count: int, rng) -> list:
    """Up to ``count`` positions of a coloured sector (all of a small one), as tuples."""
    movers, others = sets(sector.mover_on), sets(sector.other_on)
    if comb(N, sector.mover_on) * comb(N - sector.mover_on, sector.other_on) <= count:
        a, b = np.nonzero((movers[:, None] & others[None, :]) == 0)
        pairs = list(zip(movers[a].tolist(), others[b].tolist()))
    else:
        pairs = set()
        while len(pairs) < count:
            x, y = int(movers[rng.integers(len(movers))]), int(others[rng.integers(len(others))])
            if not x & y:
                pairs.add((x, y))
        pairs = sorted(pairs)
    out = []
    for mover, other in pairs:
        white, black = (mover, other) if sector.side == WHITE else (other, mover)
        out.append((sector.side, sector.white_hand, sector.black_hand, white, black))
    return out


@slow
def test_the_oracle_agrees_with_the_plain_move_generator(four):
    """On samples of every sector (both colours): the value satisfies the definition
    over the moves of :func:`nine_oracle.moves`, the plain rules (not the kernels'
    move loops); sectors lost at once (a mover with 2) are lost in 0."""
    rng = np.random.default_rng(4)
    checked = 0
    for sector in sectors(4, 4):
        part = oracle.part_of_sector(sector)
        for position in _sample(sector, 300, rng):
            outcome, plies = four.mover_value(position)
            children = oracle.moves(position)
            if part.lost:
                assert children == [] and (outcome, plies) == (-1, 0)
                continue
            values = [four.mover_value(child) for _, child in children]
            losses = [p for o, p in values if o == -1]
            if not children:
                assert (outcome, plies) == (-1, 0), text(*position)
            elif outcome == 1:
                assert min(losses) == plies - 1, text(*position)
            elif outcome == -1:
                assert all(o == 1 for o, _ in values), text(*position)
                assert max(p for _, p in values) == plies - 1, text(*position)
            else:
                assert not losses and any(o == 0 for o, _ in values) and plies == -1, text(*position)
            checked += 1
    assert checked > 8_000


def _generators() -> list[list[int]]:
    """Three symmetries of the board generating its 16 (a quarter turn about d4, a
    mirror, the swap of the inner and outer squares), as permutations of the points."""
    number = {oracle.xy(n): p for p, n in enumerate(POINTS)}

    def swap(x, y):
        dx, dy = x - 3, y - 3
        r = max(abs(dx), abs(dy))
        return 3 + dx // r * (4 - r), 3 + dy // r * (4 - r)

    quarter = [number[(6 - oracle.xy(n)[1], oracle.xy(n)[0])] for n in POINTS]
    mirror = [number[(6 - oracle.xy(n)[0], oracle.xy(n)[1])] for n in POINTS]
    inner_outer = [number[swap(*oracle.xy(n))] for n in POINTS]
    return [quarter, mirror, inner_outer]


@slow
def test_the_oracle_is_invariant_under_the_symmetries(four):
    """The oracle uses no symmetry of the board: its tables must not change when every
    position is replaced by its image under a symmetry (three generating all 16)."""
    mills = set(oracle.MILLS)
    edges = {frozenset(e) for e in oracle.EDGES}
    for perm in _generators():
        assert {sum(1 << perm[p] for p in oracle.bits(m)) for m in mills} == mills
        assert {frozenset((perm[a], perm[b])) for a, b in oracle.EDGES} == edges
        maps = {}
        for k in range(5):
            image = np.zeros_like(sets(k))
            for p in range(N):
                image |= ((sets(k) >> p) & 1) << perm[p]
            maps[k] = np.searchsorted(sets(k), image)
            assert (sets(k)[maps[k]] == image).all()
        for part in four.parts:
            for table in four.table(part):
                rows = maps[part.mover_on]
                for start in range(0, len(rows), 2000):  # the image of rows start.. in one go
                    block = table[rows[start:start + 2000]][:, maps[part.other_on]]
                    assert np.array_equal(block, table[start:start + 2000]), part


@pytest.fixture(scope="module")
def retro_four(tmp_path_factory):
    summary, db = _build(tmp_path_factory.mktemp("nine4") / "nine-4.h5", "4")
    yield summary, db
    db.close()


@slow
def test_every_position_of_the_4_piece_game_matches_retro(four, retro_four):
    summary, db = retro_four
    assert summary.positions == coloured_positions((4, 4)) == 178_281_011
    started = time.perf_counter()
    compared = compare(four, Retro(db, (4, 4)), four.parts)
    _say(f"compared {compared:,} positions in {time.perf_counter() - started:.1f} s")
    assert compared == len(four) == 99_878_841


@slow
def test_every_position_of_the_moving_phase_matches_retro(four, tmp_path):
    """The moving phase built alone (3 and 4 stones a side, 4-4 included)."""
    parts = oracle.moving_parts(4, 4)
    assert parts == [Part(0, 0, m, o) for m in (3, 4) for o in (3, 4)]
    summary, db = _build(tmp_path / "nine-4-moving.h5", "4", "moving")
    try:
        assert summary.positions == coloured_positions((4, 4), moving_only=True) == 156_804_340
        compared = compare(four, Retro(db, (4, 4)), parts)
        assert compared == sum(oracle.part_size(p) for p in parts) == 78_402_170
    finally:
        db.close()


@slow
@pytest.mark.parametrize("pieces", [(4, 3), (3, 4)])
def test_every_position_of_the_unequal_games_matches_retro(pieces, tmp_path):
    """White 4 against Black 3 and the other way round, whole games (a player whose hand
    is empty moves on the board while the other still places): the oracle's definition
    check, then every position against retro's and the start by ``db.probe``."""
    started = time.perf_counter()
    solved = oracle.Solved(oracle.game_parts(*pieces)).solve()
    _say(f"oracle, whole game {pieces}: {time.perf_counter() - started:.1f} s")
    # 3,4: White's hand is empty at ply 6 while Black still places its last piece.
    assert any(p.mover_hand == 0 and p.other_hand > 0 for p in solved.parts) == (pieces == (3, 4))
    for part in solved.parts:
        assert solved.check_definition(part)[1] == 0, part
    variant = f"{pieces[0]},{pieces[1]}"
    summary, db = _build(tmp_path / "nine-unequal.h5", variant)
    try:
        assert summary.positions == coloured_positions(pieces)
        assert compare(solved, Retro(db, pieces), solved.parts) == len(solved)
        start = db.game.start()
        outcome = db.probe(start)
        found = oracle.as_value(outcome)
        assert found == solved.value(str(start)) == (None, None)  # a draw both ways
    finally:
        db.close()


@slow
def test_the_probe_api_agrees(four, retro_four):
    """``db.probe`` (text in, winner and plies out) on samples of every sector of the
    game, with either colour to move and those lost at once included."""
    _, db = retro_four
    rng = np.random.default_rng(44)
    probed = 0
    for sector in sectors(4, 4):
        for position in _sample(sector, 300, rng):
            outcome = db.probe(text(*position))
            found = oracle.as_value(outcome)
            assert found == four.value(position), text(*position)
            probed += 1
    assert probed > 10_000


@slow
def test_the_start_and_its_moves(four, retro_four):
    _, db = retro_four
    start = db.game.start()
    assert str(start) == "W 4 4 ... ... ... ...... ... ... ..."
    outcome = db.probe(start)
    assert (outcome.winner, outcome.plies) == (None, None)
    assert four.value(str(start)) == (None, None)  # a draw
    oracle_children = dict(oracle.moves(parse(str(start))))
    children = db.children(start)
    assert sorted(str(m) for m, _, _ in children) == sorted(oracle_children)
    for move, after, outcome in children:
        assert str(after) == text(*oracle_children[str(move)])
        found = oracle.as_value(outcome)
        assert found == four.value(str(after)), move
