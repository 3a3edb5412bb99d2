"""The df-pn solver against the plain minimax of tests/minimax.py and the databases.

Every 3x3 position and a sample of 4x4 are compared with the minimax (who wins and
the exact distance); hypothesis-drawn positions of 4x4 and of the low 5x5 layers
with the databases the tests build, including the winning move's legality and the
principal line's optimality. The expected values always come from the minimax or
the database, never from the solver. Tables are small on purpose, so that entries
are overwritten and must be found again.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings

from minimax import new_memo, solve_many
from retro import Position, open_database
from retro.search import dfpn
from retro.search import games
from retro.search.alphabeta import WIN, Solution
from retro.crosscheck import crosscheck
from retro.search.dfpn import DfpnSolver, musketeers_dfpn_solver, solve
from retro.search.games import musketeers_state
from retro.games.musketeers.index import decode_many, indexer
from retro.games.musketeers.position import Side
from strategies import positions

MEMOS: dict[int, object] = {}


def minimax(position: Position) -> tuple[Side, int]:
    """(winner, plies) by the tests' own minimax."""
    if position.size not in MEMOS:  # the board's own memo: a plain array for 3x3 and 4x4
        MEMOS[position.size] = new_memo(position.size)
    memo = MEMOS[position.size]
    value = int(solve_many(np.array([position.side.code]), np.array([position.musketeers]),
                           np.array([position.enemies]), position.size, memo)[0])
    return (Side.MUSKETEERS if value & 1 else Side.ENEMY), value >> 1


def negamax_value(position: Position, winner: Side, plies: int) -> int:
    """The solvers' exact value convention for the side to move."""
    return WIN - plies if winner is position.side else -(WIN - plies)


@pytest.fixture(scope="module")
def solvers():
    # Small tables on purpose: entries are overwritten and must be found again.
    return {n: musketeers_dfpn_solver(n, table_bits=bits) for n, bits in ((3, 12), (4, 16), (5, 17))}


def every_position(n: int):
    for trio in combinations(range(n * n), 3):
        m = sum(1 << s for s in trio)
        free = [s for s in range(n * n) if s not in trio]
        for subset in range(1 << len(free)):
            e = sum(1 << free[b] for b in range(len(free)) if subset >> b & 1)
            for side in Side:
                yield Position(side, m, e, n)


def random_positions(n: int, count: int, seed: int, max_men: int | None = None) -> list[Position]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        squares = rng.permutation(n * n)
        men = int(rng.integers(0, (n * n - 3 if max_men is None else max_men) + 1))
        out.append(Position(Side.from_code(int(rng.integers(2))),
                            sum(1 << int(s) for s in squares[:3]),
                            sum(1 << int(s) for s in squares[3:3 + men]), n))
    return out


def test_every_3x3_position_against_the_minimax(solvers):
    every = list(every_position(3))
    assert len(every) == 84 * 64 * 2
    states = np.array([musketeers_state(p) for p in every], dtype=np.int64)
    expected = np.array([negamax_value(p, *minimax(p)) for p in every])
    assert (solvers[3].values(states, exact=False) == np.sign(expected)).all()
    assert (solvers[3].values(states, exact=True) == expected).all()


def test_a_sample_of_4x4_against_the_minimax(solvers):
    for position in random_positions(4, 40, seed=11):
        value = solvers[4].value(musketeers_state(position))
        assert value == negamax_value(position, *minimax(position)), str(position)


def test_who_wins_on_an_eighth_of_the_whole_4x4_table(db4):
    """Every 8th table entry of 4x4 (both sides, every placement, every mask), one
    solver and its table throughout, against the database."""
    ix = indexer(4)
    entries = np.arange(0, 2 * ix.placement_count << ix.free, 8, dtype=np.int64)
    side, rest = entries // (ix.placement_count << ix.free), entries % (ix.placement_count << ix.free)
    musketeers, enemies = np.empty_like(rest), np.empty_like(rest)
    decode_many(rest >> ix.free, rest & ((1 << ix.free) - 1), ix, musketeers, enemies)
    states = side | (musketeers << games.MUSKETEER_SHIFT) | (enemies << games.ENEMY_SHIFT)
    values = musketeers_dfpn_solver(4, table_bits=20).values(states, exact=False)
    with open_database(db4) as db:
        musketeers_win, _ = db.probe_many((side, musketeers, enemies))
    assert len(values) == 2 * 77 * 2**13 // 8
    assert np.array_equal(np.where(side == 0, values > 0, values < 0), musketeers_win)


@settings(max_examples=100)
@given(position=positions(sizes=(4, 5)))
def test_drawn_positions_against_the_databases(solvers, db4, db5_low, position):
    """Who wins, a winning move that keeps the win, the distance and a principal line
    whose every move is optimal, all checked in the database."""
    if position.size == 5:  # the low layers only: keep the four lowest men
        men = [s for s in range(25) if position.enemies >> s & 1][:4]
        position = Position(position.side, position.musketeers, sum(1 << s for s in men), 5)
    solver = solvers[position.size]
    with open_database(db4 if position.size == 4 else db5_low) as db:
        outcome = db.probe(position)
        who = solve(position, solver=solver, proof=False)
        assert who.winner is outcome.winner and who.plies is None
        if position.winner() is None and outcome.winner is position.side:
            assert who.best_move in position.legal_moves()
            assert db.probe(position.play(who.best_move)).winner is position.side
        else:
            assert who.best_move is None
        exact = solve(position, exact=True, solver=solver, proof=False)
        assert (exact.winner, exact.plies) == (outcome.winner, outcome.plies)
        assert len(exact.line) == outcome.plies
        for plies_left, move in zip(range(outcome.plies, 0, -1), exact.line):
            position = position.play(move)
            after = db.probe(position)
            assert (after.winner, after.plies) == (outcome.winner, plies_left - 1), str(move)
        assert position.winner() is outcome.winner


def test_5x5_low_layers_exact_distances(solvers, db5_low):
    sample = random_positions(5, 150, seed=5, max_men=4)
    states = np.array([musketeers_state(p) for p in sample], dtype=np.int64)
    values = solvers[5].values(states)
    with open_database(db5_low) as db:
        expected = [negamax_value(p, db.probe(p).winner, db.probe(p).plies) for p in sample]
    assert values.tolist() == expected


def test_wins_within_is_exactly_the_distance(solvers, db5_low):
    """The depth-bounded question at every budget around the distance, table kept."""
    solver = solvers[5]
    with open_database(db5_low) as db:
        for position in random_positions(5, 40, seed=6, max_men=4):
            outcome = db.probe(position)
            winner, plies, state = outcome.winner, outcome.plies, musketeers_state(position)
            for budget in range(max(0, plies - 3), plies + 3):
                assert solver.wins_within(state, winner, budget) == (budget >= plies), (position, budget)
                assert not solver.wins_within(state, winner.other, budget)


@pytest.mark.parametrize("options", [dict(init=dfpn.INIT_ONE), dict(init=dfpn.INIT_MOBILITY),
                                     dict(init=dfpn.INIT_LOOKAHEAD), dict(weak=True),
                                     dict(epsilon=0.0), dict(epsilon=1.0)])
def test_options_do_not_change_values(db4, options):
    """Initial numbers, weak proof numbers and ε steer the search, never the answer."""
    solver = musketeers_dfpn_solver(4, table_bits=20, **options)
    sample = random_positions(4, 40, seed=44)
    with open_database(db4) as db:
        for position in sample:
            outcome = db.probe(position)
            assert solver.value(musketeers_state(position)) == negamax_value(position, outcome.winner,
                                                                             outcome.plies)


def test_proofs(solvers, db4):
    solver = solvers[3]
    # Over: the proof is the position itself.
    assert solver.proof(musketeers_state(Position.parse("M OOO X.. ..."))) == (1, 0)
    # The musketeers' one capture leaves the enemy without men, stuck: two positions.
    one = Position.parse("M XO. .O. ..O")
    assert len(one.legal_moves()) == 1 and minimax(one) == (Side.MUSKETEERS, 1)
    assert solver.proof(musketeers_state(one)) == (2, 1)
    # A proof holds the loser's longest defence (at least the distance) and no more
    # positions than the game can reach.
    rng = np.random.default_rng(3)
    every = list(every_position(3))
    for i in rng.choice(len(every), 40, replace=False):
        position = every[i]
        reachable, frontier = {position}, [position]
        while frontier:
            for move in (here := frontier.pop()).legal_moves():
                if (child := here.play(move)) not in reachable:
                    reachable.add(child)
                    frontier.append(child)
        size, depth = solver.proof(musketeers_state(position))
        plies = minimax(position)[1]
        assert depth >= plies and depth + 1 <= size <= len(reachable), str(position)
    # With the table too small to keep the proof, the walk searches again.
    start = Position.start(4)
    small = musketeers_dfpn_solver(4, table_bits=15)
    size, depth = small.proof(musketeers_state(start))
    with open_database(db4) as db:
        assert depth >= db.probe(start).plies and size > small.table_capacity


def test_the_table_key_is_games_canonical_image():
    """dfpn's own canonical key (kept small to compile fast) must be games'."""
    tables = games.game_tables(games.MUSKETEERS, 5)
    for position in random_positions(5, 300, seed=8):
        state = musketeers_state(position)
        expected = int(games.canonical(state, tables)[0])
        assert dfpn.table_key(state, dfpn.WHO_WINS, tables) == expected | dfpn.WHO_WINS << dfpn.TAG_SHIFT


def test_solve_returns_alphabetas_solution_with_proof_and_table_figures():
    solution = solve("M XXXO XXXX XOXX OXXX", solver=musketeers_dfpn_solver(4, table_bits=16))
    assert isinstance(solution, Solution)
    assert solution.winner is minimax(solution.position)[0]
    stats = solution.as_dict()["stats"]
    assert stats["nodes"] > 0 and stats["proof_size"] > 0 and stats["table_stores"] > 0
    assert stats["proof_seconds"] >= 0
    assert 0 < stats["table_entries"] <= stats["table_capacity"] == 2**16
    assert solve("M XXO XOX OXX").winner is solve(Position.parse("M XXO XOX OXX")).winner


def test_crosscheck_with_dfpn(db4):
    report = crosscheck(db4, samples=40, seed=2, exact=True, workers=1, method="dfpn", table_bits=16)
    assert report.samples == 40 and report.ok and report.nodes > 0


def test_what_it_refuses():
    with pytest.raises(ValueError, match="Three Musketeers"):
        DfpnSolver(games.game_tables(games.NIM))
    with pytest.raises(ValueError, match="between 10 and 30"):
        musketeers_dfpn_solver(3, table_bits=5)
    with pytest.raises(ValueError, match="3x3"):
        solve(Position.start(4), solver=musketeers_dfpn_solver(3, table_bits=10))
    with pytest.raises(TypeError):
        solve(42)
    with pytest.raises(ValueError, match="method"):
        crosscheck(None, samples=1, method="minimax")
