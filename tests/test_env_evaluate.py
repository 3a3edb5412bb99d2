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
                        (["examples.agents:first", "--games", "0"], "--games must be at least 1")):
        assert main(["evaluate", *args, "--db", str(db_ttt)]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1
