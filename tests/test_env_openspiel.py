"""Every game as an OpenSpiel game (issue 28): OpenSpiel's random-simulation test, and
its own minimax over tic-tac-toe agreeing with the database."""

from __future__ import annotations

import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel has no wheel for this platform")

from open_spiel.python.algorithms import minimax  # noqa: E402

from retro import games, open_database  # noqa: E402
from retro.env import EncodingError, openspiel_env  # noqa: E402

GAMES = [g for g in games.every_game() if g.name != "nine-mens-morris" or g.variant == "3"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.full_name)
def test_openspiel_s_random_simulation_test(game):
    name = openspiel_env.short_name(game.name)
    assert name in pyspiel.registered_names()
    params = {"max_plies": 60} | ({"variant": game.variant} if game.variant else {})
    loaded = pyspiel.load_game(name, params)
    assert loaded.num_distinct_actions() == openspiel_env.Encoding(game).size
    pyspiel.random_sim_test(loaded, num_sims=3, serialize=False, verbose=False)


def _after_random_actions(game, rng: random.Random, plies: int):
    """A new state after up to ``plies`` random actions (fewer if the game ends)."""
    state = game.new_initial_state()
    for _ in range(plies):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def _first_player_value(outcome) -> float:
    """The database's outcome as OpenSpiel's value for player 0: 1 a win, -1 a loss, 0 a draw."""
    return 0.0 if outcome.winner is None else (1.0 if outcome.winner.code == 0 else -1.0)


def test_openspiel_s_minimax_solves_tic_tac_toe_as_the_database_does(db_ttt):
    game = pyspiel.load_game("retro_tic_tac_toe")
    rng = random.Random(4)
    seen = {-1.0: 0, 0.0: 0, 1.0: 0}  # positions O wins, draws, X wins: some of each
    with open_database(db_ttt) as db:
        while min(seen.values()) < 3:
            state = _after_random_actions(game, rng, rng.randrange(0, 7))
            outcome = db.probe(state.position)
            expected = _first_player_value(outcome)
            if seen[expected] >= 3:
                continue
            seen[expected] += 1
            value, _ = minimax.alpha_beta_search(game, state=state, maximizing_player_id=0)  # X's value
            assert value == expected, state.position


def test_openspiel_s_minimax_to_a_horizon_solves_three_mens_morris_as_the_database_does(db_3mm):
    """Positions repeat in three men's morris, so OpenSpiel's alpha-beta needs a horizon
    (a position there counts 0). Within it, its value is the database's: a win in at most
    ``depth`` plies is found, and a draw stays 0 at any horizon."""
    depth = 5
    game = pyspiel.load_game("retro_three_mens_morris", {"max_plies": 1000})
    rng = random.Random(5)
    seen = {"win": 0, "draw": 0}
    with open_database(db_3mm) as db:
        while min(seen.values()) < 6:
            state = _after_random_actions(game, rng, rng.randrange(4, 14))
            if state.is_terminal():
                continue
            outcome = db.probe(state.position)
            kind = "draw" if outcome.winner is None else "win" if outcome.plies <= depth else None
            if kind is None or seen[kind] >= 6:
                continue
            seen[kind] += 1
            value, _ = minimax.alpha_beta_search(game, state=state, maximum_depth=depth,
                                                 value_function=lambda s: 0.0,
                                                 maximizing_player_id=0)  # White's value
            assert value == _first_player_value(outcome), (state.position, outcome)


def test_a_ply_limit_below_one_and_what_is_no_move_are_refused():
    for plies in (0, -3):
        with pytest.raises(ValueError, match="max_plies must be at least 1") as error:
            pyspiel.load_game("retro_tic_tac_toe", {"max_plies": plies})
        assert "\n" not in str(error.value)
    game = pyspiel.load_game("retro_tic_tac_toe")
    state = game.new_initial_state()
    size = game.num_distinct_actions()
    illegal = next(a for a in range(size) if a not in state.legal_actions())
    for action, words in ((illegal, "is not a legal move"), (size, f"outside the action space 0..{size - 1}")):
        with pytest.raises(EncodingError, match=words):
            state.apply_action(action)
    with pytest.raises(TypeError):  # OpenSpiel's own binding refuses what is not an integer
        state.apply_action(float(state.legal_actions()[0]))
    assert str(state) == str(games.get("tic-tac-toe").start())  # nothing was played
