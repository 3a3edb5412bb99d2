"""`retro evaluate` (issue 28): a perfect agent keeps every value, a random one does not,
and the command's errors are one line."""

from __future__ import annotations

import json
import random

import pytest

from retro import open_database
from retro.cli import main
from retro.env import Encoding
from retro.env.evaluate import evaluate


def test_a_perfect_agent_keeps_every_value_and_a_random_one_does_not(db_ttt):
    for path in (db_ttt,):
        with open_database(path) as db:
            encoding = Encoding(db.game)

            # A perfect agent sees only the planes: it looks every reachable position up by them.
            positions, frontier = {}, [db.game.start()]
            while frontier:
                position = frontier.pop()
                key = encoding.observation(position).tobytes() + encoding.hand_counts(position).tobytes()
                if key not in positions:
                    positions[key] = position
                    frontier.extend(position.play(m) for m in position.legal_moves())

            def perfect(observation, legal, db=db, encoding=encoding, positions=positions):
                key = observation["observation"].tobytes() + observation["hands"].tobytes()
                return encoding.action(db.best_move(positions[key]))

            report = evaluate(perfect, db, games=6, max_plies=60)
            for row in report["opponents"].values():
                assert row["kept"] == 1.0 and row["first_thrown"]["games"] == 0
                assert row["at_stake"]["kept"] == 1.0 and 0 < row["at_stake"]["moves"] <= row["moves"]
            rng = random.Random(1)
            report = evaluate(lambda observation, legal: rng.choice(legal), db, games=10, max_plies=60)
            assert report["opponents"]["perfect"]["kept"] < 1.0
            assert report["opponents"]["perfect"]["results"]["win"] == 0  # nobody beats the perfect player here


def test_the_command(db_ttt, capsys):
    assert main(["evaluate", "examples.agents:first", "--db", str(db_ttt), "--games", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["opponents"]) == {"perfect", "random"} and report["games"] == 4
    for args, words in ((["examples.agents:missing"], "has no function 'missing'"),
                        (["nothing"], "an agent is module:function"),
                        (["examples.agents:first", "--games", "0"], "--games: must be a whole number of at least 1")):
        try:
            code = main(["evaluate", *args, "--db", str(db_ttt)])
        except SystemExit as exit:  # argparse refuses the number itself
            code = exit.code
        assert code == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


def test_the_observation_s_notation_is_the_position_the_planes_show(db_3mm):
    """A searching agent rebuilds the position from ``notation``: it is the position
    whose planes, hands and legal actions the agent was given."""
    with open_database(db_3mm) as db:
        encoding, seen = Encoding(db.game), []

        def agent(observation, legal):
            position = db.game.parse(observation["notation"])
            assert (encoding.observation(position) == observation["observation"]).all()
            assert (encoding.hand_counts(position) == observation["hands"]).all()
            assert sorted(encoding.action(m) for m in position.legal_moves()) == legal
            seen.append(observation["notation"])
            return legal[len(seen) % len(legal)]

        evaluate(agent, db, games=2, max_plies=30)
        assert len(set(seen)) > 5


def test_the_mcts_example_plays_every_budget_and_writes_its_report(db_ttt, tmp_path, capsys):
    """examples/mcts.py: OpenSpiel's MCTS as an agent of the evaluator, a report per budget."""
    pytest.importorskip("pyspiel", reason="open_spiel has no wheel for this platform")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent.parent / "examples" / "mcts.py"
    spec = importlib.util.spec_from_file_location("mcts_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    out = tmp_path / "mcts.json"
    assert example.main(["--game", "tic-tac-toe", "--db", str(db_ttt), "--budgets", "2", "200",
                         "--games", "2", "--json", str(out), "--plot", str(tmp_path)]) == 0
    report = json.loads(out.read_text())
    assert set(report["budgets"]) == {"2", "200"}
    for budget in report["budgets"].values():
        for row in budget["opponents"].values():
            assert 0 <= row["kept"] <= 1 and sum(row["results"].values()) == 2
            assert row["at_stake"]["moves"] <= row["moves"]
    # Against perfect play in tic-tac-toe the best an agent can do is draw.
    assert report["budgets"]["200"]["opponents"]["perfect"]["results"]["win"] == 0
    assert (tmp_path / "mcts-tic-tac-toe.png").stat().st_size > 0
    assert "OpenSpiel MCTS" in capsys.readouterr().out
