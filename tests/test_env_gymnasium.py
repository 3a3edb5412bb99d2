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
from retro.env import ActionError, gymnasium_env  # noqa: E402
from retro.env.gym import ResetNeeded  # noqa: E402

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


def _one_line(error) -> str:
    text = str(error.value)
    assert text and "\n" not in text
    return text


def not_actions(legal: int, size: int) -> list:
    """What an agent might pass that is no action: never rounded, never taken for another."""
    return [float("nan"), "a1", None, np.array([legal]), legal + 0.5, float(legal), np.float64(legal),
            True, np.bool_(False), [legal], np.array(legal, dtype=float), size, -1]


def test_what_is_no_action_raises_and_is_never_rounded():
    env = gymnasium_env("tic-tac-toe", opponent="random")
    size = env.action_space.n
    observation, _ = env.reset(seed=0)
    legal = int(np.flatnonzero(observation["action_mask"])[0])
    start = env.position
    for action in not_actions(legal, size):
        with pytest.raises(ActionError) as error:
            env.step(action)
        assert f"0..{size - 1}" in _one_line(error), action
        assert str(env.position) == str(start)  # nothing was played
    # What Gymnasium's Discrete space holds: Python and numpy integers, 0-d integer arrays.
    for action in (np.int64(legal), np.int32(legal), np.uint16(legal), np.array(legal)):
        assert env.action_space.contains(action)
        env.reset(seed=0)
        info = env.step(action)[4]
        assert env.plies == 2 and info == {}, action  # the agent's move and the opponent's


def test_a_step_after_the_episode_ended_raises():
    env = gymnasium_env("tic-tac-toe", opponent="random")
    with pytest.raises(ResetNeeded, match="call reset"):
        env.step(0)  # before any reset
    observation, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    legal = int(np.flatnonzero(observation["action_mask"])[0])
    assert env.step(illegal)[2]  # terminated
    with pytest.raises(ResetNeeded) as error:
        env.step(legal)  # the illegal action ended it: nothing more is played
    assert "call reset()" in _one_line(error) and isinstance(error.value, RuntimeError)
    env.reset(seed=0)
    assert env.step(legal)[4] == {}  # a new episode plays again
    short = gymnasium_env("tic-tac-toe", opponent="random", max_plies=1)
    short.reset(seed=0)
    assert short.step(legal)[3]  # truncated
    with pytest.raises(ResetNeeded):
        short.step(legal)


def test_the_options_are_checked_and_the_messages_say_what_is_accepted():
    game = games.get("tic-tac-toe")
    sides = [side.value for side in game.sides]
    env = gymnasium_env("tic-tac-toe")
    for options, kind, words in (({"position": 5}, TypeError, "position or its text"),
                                 ({"position": games.get("three-musketeers", "3x3").start()}, TypeError,
                                  "position or its text"),
                                 ({"position": "X ..."}, ValueError, "3 rows"),
                                 (7, TypeError, "options must be a dict")):
        with pytest.raises(kind) as error:
            env.reset(options=options)
        assert words in _one_line(error)
    env.reset(options={"position": str(game.start().play(game.start().legal_moves()[0]))})
    for options, kind, words in ((dict(start="win"), TypeError, "a dict such as"),
                                 (dict(start={"result": "won"}), ValueError, "win, draw, loss"),
                                 (dict(start={"plies": 3}), ValueError, "'result' and 'max_plies'"),
                                 (dict(start={"result": "win", "max_plies": 0}), ValueError, "at least 1"),
                                 (dict(max_plies=0), ValueError, "at least 1"),
                                 (dict(max_plies=-5), ValueError, "at least 1"),
                                 (dict(max_plies=2.5), TypeError, "an integer of at least 1"),
                                 (dict(max_plies=True), TypeError, "an integer of at least 1"),
                                 (dict(side="purple"), ValueError, ", ".join(repr(s) for s in sides))):
        with pytest.raises(kind) as error:
            gymnasium_env("tic-tac-toe", **options)
        assert words in _one_line(error), options
    for side in (game.sides.from_code(1), sides[1]):
        assert gymnasium_env("tic-tac-toe", side=side).side is game.sides.from_code(1)
