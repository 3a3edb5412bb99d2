"""PettingZoo AEC environments of every registered game (issue 28): PettingZoo's own API
test, the rewards at the end, truncation, and both renderings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pettingzoo = pytest.importorskip("pettingzoo", reason="pip install -e '.[test]' installs the rl extra")

from pettingzoo.test import api_test  # noqa: E402

from retro import games  # noqa: E402
from retro.env import ActionError, EncodingError, pettingzoo_env  # noqa: E402

GAMES = [g for g in games.every_game() if g.name != "nine-mens-morris" or g.variant == "3"]


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.full_name)
def test_pettingzoo_s_api_test(game):
    env = pettingzoo_env(game.name, game.variant or None, max_plies=80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Observation is not a NumPy array": it is a dict, as the API allows
        api_test(env, num_cycles=100)


def test_the_winner_gets_one_and_the_others_minus_one():
    env = pettingzoo_env("four-player-race")
    env.reset(options={"position": "P1 c4 a3 b1 a4"})  # P1 steps onto d4 and wins
    env.step(env.encoding.action("c4-d4"))
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"P1": 1, "P2": -1, "P3": -1, "P4": -1}
    env = pettingzoo_env("tic-tac-toe")
    env.reset(options={"position": "X XX. OO. ..."})
    env.step(env.encoding.action("c1"))
    assert env._cumulative_rewards == {"X": 1, "O": -1}


def test_play_that_goes_on_is_truncated_and_rendered():
    env = pettingzoo_env("six-mens-morris", max_plies=5, render_mode="rgb_array")
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(5):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.shape == (5 * 24, 5 * 24, 3)
    text = pettingzoo_env("tic-tac-toe", render_mode="ansi")
    text.reset()
    assert text.render() == games.get("tic-tac-toe").board_text(games.get("tic-tac-toe").start())
    with pytest.raises(ValueError, match="render_mode must be one of"):
        pettingzoo_env("tic-tac-toe", render_mode="human")


def _one_line(error) -> str:
    text = str(error.value)
    assert text and "\n" not in text
    return text


def test_what_is_no_action_raises_and_an_illegal_move_says_so():
    env = pettingzoo_env("tic-tac-toe")
    size = env.action_space("X").n
    env.reset()
    mask = env.observe("X")["action_mask"]
    legal, illegal = int(np.flatnonzero(mask)[0]), int(np.flatnonzero(mask == 0)[0])
    start = str(env.position)
    for action in (float("nan"), "a1", None, np.array([legal]), legal + 0.5, float(legal), True,
                   np.bool_(False), [legal], size, -1):
        with pytest.raises(ActionError) as error:
            env.step(action)
        assert f"0..{size - 1}" in _one_line(error), action
        assert str(env.position) == start and env.agent_selection == "X"  # nothing was played
    with pytest.raises(EncodingError, match="is not a legal move") as error:
        env.step(illegal)
    _one_line(error)
    for action in (np.int64(legal), np.array(legal)):
        env.reset()
        env.step(action)
        assert env.agent_selection == "O", action


def test_the_options_are_checked_and_a_finished_game_takes_no_step():
    with pytest.raises(RuntimeError, match="call reset"):
        pettingzoo_env("tic-tac-toe").step(0)  # before any reset
    for options, kind in ((dict(max_plies=0), ValueError), (dict(max_plies=2.5), TypeError),
                          (dict(max_plies=True), TypeError)):
        with pytest.raises(kind, match="at least 1") as error:
            pettingzoo_env("tic-tac-toe", **options)
        _one_line(error)
    env = pettingzoo_env("tic-tac-toe")
    for options, kind, words in (({"position": 5}, TypeError, "position or its text"),
                                 ({"position": "X ..."}, ValueError, "3 rows"),
                                 (7, TypeError, "options must be a dict")):
        with pytest.raises(kind) as error:
            env.reset(options=options)
        assert words in _one_line(error)
    env.reset(options={"position": "X XX. OO. ..."})
    env.step(env.encoding.action("c1"))  # X wins: every agent is done
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(0)  # PettingZoo's own check for an agent that is done
    while env.agents:
        env.step(None)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(None)
