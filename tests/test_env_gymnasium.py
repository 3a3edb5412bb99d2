"""The Gymnasium environment (issue 28): Gymnasium's own checker on every registered
game, the perfect opponent never losing what it holds, the curriculum's starts, and an
illegal action."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="pip install -e '.[test]' installs the rl extra")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from retro import games, open_database  # noqa: E402
from retro.env.gymnasium_env import gymnasium_env  # noqa: E402

GAMES = [g for g in games.every_game() if g.name != "nine-mens-morris" or g.variant == "3"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.full_name)
def test_gymnasium_s_checker(game):
    env = gymnasium_env(game.name, game.variant or None, opponent="random", max_plies=60)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a Dict observation space: the checker's notes, not failures
        check_env(env, skip_render_check=True)


def play_random(env, seed: int) -> float:
    rng = np.random.default_rng(seed)
    observation, _ = env.reset(seed=seed)
    while True:
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observation, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            return reward


@pytest.mark.parametrize("name, fixture", [("tic-tac-toe", "db_ttt")])
def test_the_perfect_opponent_never_loses_what_the_start_gives_it(name, fixture, request):
    path = request.getfixturevalue(fixture)
    game = games.get(name)
    with open_database(path) as db:
        start = db.probe(game.start())
    for opponent in ("perfect", "perfect-random"):
        # The agent plays the second side; the opponent moves first, from a draw (or a win).
        env = gymnasium_env(name, opponent=opponent, db=path, side=game.sides.from_code(1).value, max_plies=200)
        rewards = [play_random(env, seed) for seed in range(12)]
        env.close()
        assert max(rewards) <= 0.0  # the agent never wins
        if start.winner is not None:
            assert rewards == [-1.0] * len(rewards)


def test_a_curriculum_starts_where_it_says(db_ttt):
    env = gymnasium_env("tic-tac-toe", opponent="random", db=db_ttt, start={"result": "win", "max_plies": 3})
    with open_database(db_ttt) as db:
        for seed in range(5):
            env.reset(seed=seed)
            value = db.probe(env.position)
            assert env.position.side.value == "X" and value.winner is env.position.side and value.plies <= 3
    env.close()


def test_an_illegal_action_ends_the_episode_with_minus_one():
    env = gymnasium_env("tic-tac-toe", opponent="random")
    observation, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert reward == -1.0 and terminated and info == {"illegal_action": True}
    with pytest.raises(ValueError, match="opponent must be one of"):
        gymnasium_env("tic-tac-toe", opponent="clever")
