"""The alpha-beta solver: first on games whose answers are known independently (Nim,
tic-tac-toe), then against the database and the plain minimax of tests/minimax.py.

Oracles here are written in the tests: the nim-sum, a plain recursive tic-tac-toe
minimax, and tests/minimax.py for Three Musketeers; the database is a second,
independent witness.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

import numpy as np
import pytest

from minimax import new_memo, solve_many
from retro import Position, open_database
from retro.search import games
from retro.search.alphabeta import WIN, Solver, musketeers_solver, plies_of, solve, winner_of
from retro.search.games import musketeers_state
from retro.games.musketeers.index import decode_many, indexer
from retro.games.musketeers.position import Side

# --- value conventions of the oracles ---------------------------------------------------


def negamax_value(mover_wins: bool | None, plies: int) -> int:
    """The solver's exact value: WIN - plies for a win, its negation for a loss, 0 draw."""
    if mover_wins is None:
        return 0
    return WIN - plies if mover_wins else -(WIN - plies)


def _better(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """(result, plies) for the mover, result +1/0/-1: win fast, lose slowly."""
    def key(v):
        result, plies = v
        return (result, -plies if result > 0 else plies)
    return key(a) > key(b)


# --- Nim ---------------------------------------------------------------------------------


@lru_cache(maxsize=None)
def nim_oracle(heaps: tuple[int, ...]) -> tuple[int, int]:
    """(+1 / -1 for the mover, plies), by plain recursion; who cannot move loses."""
    if not any(heaps):
        return -1, 0
    best = None
    for h, size in enumerate(heaps):
        for take in range(1, size + 1):
            child = heaps[:h] + (size - take,) + heaps[h + 1:]
            result, plies = nim_oracle(tuple(sorted(child)))
            candidate = (-result, plies + 1)
            if best is None or _better(candidate, best):
                best = candidate
    return best


def nim_cases():
    for sizes in np.ndindex(5, 5, 5, 4):
        yield tuple(int(s) for s in sizes)


def test_nim_winner_is_the_nim_sum_and_exact_distances_the_oracle_s():
    # One test, one solver: compiling it for nim is most of the cost on a fresh checkout.
    solver = Solver(games.game_tables(games.NIM), table_bits=14)
    for heaps in nim_cases():
        nim_sum = heaps[0] ^ heaps[1] ^ heaps[2] ^ heaps[3]
        assert solver.value(games.nim_state(heaps), exact=False) == (1 if nim_sum else -1), heaps
    for heaps in nim_cases():
        result, plies = nim_oracle(tuple(sorted(heaps)))
        assert solver.value(games.nim_state(heaps)) == negamax_value(result > 0, plies), heaps


# --- tic-tac-toe -------------------------------------------------------------------------

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _ttt_won(cells: str, mark: str) -> bool:
    return any(all(cells[i] == mark for i in line) for line in LINES)


@lru_cache(maxsize=None)
def ttt_oracle(cells: str) -> tuple[int, int]:
    """(+1 / 0 / -1 for the mover, plies) of a board of 9 'X'/'O'/'.' cells, X first."""
    mover = "X" if cells.count("X") == cells.count("O") else "O"
    previous = "O" if mover == "X" else "X"
    if _ttt_won(cells, previous):
        return -1, 0
    if "." not in cells:
        return 0, 0
    best = None
    for i, c in enumerate(cells):
        if c == ".":
            result, plies = ttt_oracle(cells[:i] + mover + cells[i + 1:])
            candidate = (-result, plies + 1)
            if best is None or _better(candidate, best):
                best = candidate
    return best


def ttt_positions() -> list[str]:
    """Every board reachable from the empty one."""
    seen, todo = set(), ["........."]
    while todo:
        cells = todo.pop()
        if cells in seen:
            continue
        seen.add(cells)
        mover = "X" if cells.count("X") == cells.count("O") else "O"
        if not (_ttt_won(cells, "X") or _ttt_won(cells, "O")):
            todo += [cells[:i] + mover + cells[i + 1:] for i, c in enumerate(cells) if c == "."]
    return sorted(seen)


def test_tic_tac_toe_is_a_draw_and_every_position_is_right():
    positions = ttt_positions()
    assert len(positions) == 5478  # the well-known count of legal positions
    solver = Solver(games.game_tables(games.TICTACTOE), table_bits=14)
    assert solver.value(games.ttt_state("........."), exact=False) == 0
    for cells in positions:  # one table for all: entries must stay valid across searches
        result, plies = ttt_oracle(cells)
        state = games.ttt_state(cells)
        assert solver.value(state, exact=False) == result, cells
        assert solver.value(state) == negamax_value(None if result == 0 else result > 0, plies), cells


# --- Three Musketeers against the database -----------------------------------------------


def _every_position(n: int) -> list[Position]:
    squares = n * n
    out = []
    for trio in combinations(range(squares), 3):
        m = sum(1 << s for s in trio)
        free = [s for s in range(squares) if s not in trio]
        for bits in range(1 << len(free)):
            e = sum(1 << s for i, s in enumerate(free) if (bits >> i) & 1)
            out += [Position(Side.MUSKETEERS, m, e, n), Position(Side.ENEMY, m, e, n)]
    return out


def _random_positions(n: int, count: int, seed: int, max_men: int | None = None) -> list[Position]:
    rng = np.random.default_rng(seed)
    squares = n * n
    out = []
    while len(out) < count:
        trio = rng.choice(squares, 3, replace=False)
        m = sum(1 << int(s) for s in trio)
        free = [s for s in range(squares) if not (m >> s) & 1]
        men = int(rng.integers(0, (max_men if max_men is not None else len(free)) + 1))
        e = sum(1 << int(s) for s in rng.choice(free, men, replace=False))
        out.append(Position(Side.from_code(int(rng.integers(2))), m, e, n))
    return out


def _assert_solver_agrees(db_path, positions: list[Position], solver: Solver) -> None:
    with open_database(db_path) as db:
        expected = [db.probe(p) for p in positions]
    for position, outcome in zip(positions, expected):
        state = musketeers_state(position)
        wins = solver.value(state, exact=False)
        assert winner_of(wins, position.side) is outcome.winner, str(position)
        value = solver.value(state)
        assert (winner_of(value, position.side), plies_of(value)) == (outcome.winner, outcome.plies), \
            str(position)


def test_every_3x3_position(db3):
    positions = _every_position(3)
    assert len(positions) == 84 * 2**6 * 2
    _assert_solver_agrees(db3, positions, musketeers_solver(3, table_bits=14))


def test_every_other_4x4_table_entry(db4):
    """Batch solving (one compiled loop, one table) of every other canonical entry of
    4x4 (the entries between are positions of the same layers: the database itself is
    checked at every 4x4 position by tests/test_solution.py)."""
    ix = indexer(4)
    masks = np.tile(np.arange(1 << ix.free, dtype=np.int64), ix.placement_count)
    placements = np.repeat(np.arange(ix.placement_count, dtype=np.int64), 1 << ix.free)
    musketeers, enemies = np.empty_like(masks), np.empty_like(masks)
    decode_many(placements, masks, ix, musketeers, enemies)
    side = np.repeat([0, 1], len(masks))
    musketeers, enemies = np.tile(musketeers, 2), np.tile(enemies, 2)
    side, musketeers, enemies = side[::2], musketeers[::2], enemies[::2]
    states = side | (musketeers << games.MUSKETEER_SHIFT) | (enemies << games.ENEMY_SHIFT)
    values = musketeers_solver(4).values(states)
    with open_database(db4) as db:
        musketeers_win, plies = db.probe_many((side, musketeers, enemies))
    mover_wins = values > 0
    assert np.array_equal(np.where(side == 0, mover_wins, ~mover_wins), musketeers_win)
    assert np.array_equal(WIN - np.abs(values), plies)
    assert len(values) == 77 * 2**13


def test_4x4_sample_of_all_positions(db4):
    """Positions as given, not canonical: the solver's symmetry must not matter."""
    _assert_solver_agrees(db4, _random_positions(4, 200, seed=4), musketeers_solver(4))


def test_5x5_low_layers_sample(db5_low):
    _assert_solver_agrees(db5_low, _random_positions(5, 300, seed=5, max_men=4),
                          musketeers_solver(5))


@pytest.mark.parametrize("options", [dict(symmetry=False), dict(transposition_cutoffs=False)])
def test_search_enhancements_do_not_change_values(db4, options):
    """Each enhancement switched off alone gives the same values: none of them decides."""
    _assert_solver_agrees(db4, _random_positions(4, 100, seed=44), musketeers_solver(4, **options))


def test_principal_line_is_optimal_and_ends_as_predicted(db4):
    start = Position.start(4)
    solution = solve(start, exact=True)
    with open_database(db4) as db:
        outcome = db.probe(start)
        assert (solution.winner, solution.plies) == (outcome.winner, outcome.plies)
        assert len(solution.line) == solution.plies
        position = start
        for plies_left, move in zip(range(solution.plies, 0, -1), solution.line):
            position = position.play(move)
            assert db.probe(position).plies == plies_left - 1, f"{move} is not optimal"
            assert db.probe(position).winner is outcome.winner
    assert position.winner() is outcome.winner
    assert solution.stats.nodes > 0 and solution.stats.seconds >= 0


def test_who_wins_mode_names_a_winning_move(db4):
    with open_database(db4) as db:
        for position in _random_positions(4, 100, seed=7):
            solution = solve(position)
            outcome = db.probe(position)
            assert solution.winner is outcome.winner and solution.plies is None
            if position.winner() is None and outcome.winner is position.side:
                assert db.probe(position.play(solution.best_move)).winner is position.side
            else:
                assert solution.best_move is None


# --- the 2017 mistakes, switched on ------------------------------------------------------


def test_storing_cutoff_bounds_as_exact_gives_wrong_values():
    """The 2017 table stored values found under cut-offs as exact. A table that keeps
    the bound type gets every value right where that one does not."""
    # Tic-tac-toe, one table for every position, who wins: wrong winners appear.
    tables = games.game_tables(games.TICTACTOE)
    correct = Solver(tables, table_bits=14)
    flawed = Solver(tables, table_bits=14, bounds_as_exact=True)
    wrong_winner = []
    for cells in ttt_positions():
        state, (result, _) = games.ttt_state(cells), ttt_oracle(cells)
        assert correct.value(state, exact=False) == result
        if flawed.value(state, exact=False) != result:
            wrong_winner.append(cells)
    assert wrong_winner

    # Three Musketeers, one position from a fresh table, exact distance: the null-window
    # searches of the bisection leave bounds that the flawed table takes for values.
    position = Position.parse("M XXO .OX OX.")
    expected = solve_many(np.array([0]), np.array([position.musketeers]),
                          np.array([position.enemies]), 3, new_memo())[0]
    assert expected == 2 * 6 + 1  # the musketeers win in 6 plies (plain minimax)
    state = musketeers_state(position)
    assert musketeers_solver(3).value(state) == WIN - 6
    assert musketeers_solver(3, bounds_as_exact=True).value(state) != WIN - 6


def test_hashing_without_the_side_to_move_confuses_positions():
    """The 2017 hash ignored the side to move: the same men with the other side to move
    then read the first one's entry. Here the musketeers win either way, so the side
    to move wins one and loses the other."""
    board = "X..X XX.X OXXO OXXX"
    musketeers_to_move = Position.parse(f"M {board}")
    enemy_to_move = Position.parse(f"E {board}")
    values = solve_many(np.array([0, 1]), np.array([musketeers_to_move.musketeers] * 2),
                        np.array([musketeers_to_move.enemies] * 2), 4, new_memo())
    assert list(values) == [2 * 19 + 1, 2 * 20 + 1]  # the musketeers win both (plain minimax)
    for hash_side in (True, False):
        solver = musketeers_solver(4, hash_side=hash_side)
        assert solver.value(musketeers_state(musketeers_to_move), exact=False) == 1
        winner = winner_of(solver.value(musketeers_state(enemy_to_move), exact=False), Side.ENEMY)
        assert (winner is Side.MUSKETEERS) is hash_side


def test_solve_takes_text_and_refuses_what_it_cannot_solve():
    text = "M XXO XOX OXX"
    assert solve(text).winner is solve(Position.parse(text)).winner
    with pytest.raises(TypeError):
        solve(42)
    with pytest.raises(ValueError, match="3x3"):
        solve(text, solver=musketeers_solver(4))
    with pytest.raises(ValueError, match="between 10 and 30"):
        musketeers_solver(3, table_bits=5)
