"""The placement phase decided by search over a moving-phase database (issue 24, item
4: Gasser's method), against the retrograde database of the whole game: two ways to
the same answer that share no solver code (the search reads only the moving phase's
values and generates the rest by the rules)."""

from __future__ import annotations

import json
import random

import pytest

import retro
from retro import games
from retro.cli import main
from retro.db.leaves import Leaves
from retro.search.nine import solve

NINE = "nine-mens-morris"


@pytest.fixture(scope="module")
def leaves(db_9mm3):
    return Leaves(db_9mm3)


def placement_positions(game, count: int, seed: int) -> list:
    """Positions of random games from the start, before both hands are empty."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = game.start()
        for _ in range(rng.randrange(0, game.white_pieces + game.black_pieces)):
            moves = position.legal_moves()
            if not moves:
                break
            after = position.play(rng.choice(moves))
            if after.white_hand == after.black_hand == 0:
                break
            position = after
        found.append(position)
    return found


def test_the_search_agrees_with_the_whole_database(db_9mm3, leaves):
    game = games.get(NINE, "3")
    with retro.open_database(db_9mm3) as db:
        for position in [game.start()] + placement_positions(game, 150, 1):
            outcome = db.probe(position)
            expected = 0 if outcome.winner is None else (1 if outcome.winner is position.side else -1)
            result = solve(position, leaves, table_bits=16)
            assert result.result == expected, position
            if result.best_move is not None and not position.is_over():
                after = db.probe(position.play(result.best_move))
                assert (after.winner is None) == (outcome.winner is None)
                assert after.winner == outcome.winner


def test_the_cli_solves_a_placement_position(db_9mm3, capsys):
    assert main(["solve", "--db", str(db_9mm3), "--json", "W 3 3 ... ... ... ...... ... ... ..."]) == 0
    answer = json.loads(capsys.readouterr().out)
    with retro.open_database(db_9mm3) as db:
        outcome = db.probe(db.game.start())
    assert answer["winner"] == outcome.winner.value and answer["result"] == "win"
    assert answer["nodes"] > 0


@pytest.mark.parametrize("args, words", [
    (["solve", "--pieces", "3", "W 3 3 ... ... ... ...... ... ... ..."], "give --db"),
    (["solve", "--pieces", "4", "--db", "DB", "W 4 4 ... ... ... ...... ... ... ..."],
     "the search reached"),  # the 3-piece file lacks the 4-piece sectors
    (["solve", "--db", "DB", "--exact", "W 3 3 ... ... ... ...... ... ... ..."], "without --method or --exact"),
])
def test_bad_searches_are_one_line(db_9mm3, capsys, args, words):
    args = [str(db_9mm3) if a == "DB" else a for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err


def test_a_search_beyond_the_database_s_pieces_is_refused(tmp_path, db_9mm3):
    """Leaves from checkpoints holding only the 3-3 sector: the 4,3 game's placements
    reach the 4-3 sector, which the search must not guess."""
    import numpy as np

    from retro.db.format import DatabaseFile
    from retro.search.nine import SearchError

    three = games.get(NINE, "3")
    file = DatabaseFile(db_9mm3)
    try:
        np.save(tmp_path / "moving_3_3.npy", file.read(three.tiers()[0]))
    finally:
        file.close()
    four_three = games.get(NINE, "4,3")
    leaves = Leaves(tmp_path, four_three)
    assert [four_three.tier_name(t) for t in leaves.tiers] == ["moving_3_3"]
    with pytest.raises(SearchError, match="does not hold"):
        solve(four_three.start(), leaves)


def test_another_variant_s_moving_phase_decides_a_smaller_game(tmp_path, capsys):
    """The moving-phase tiers are the same positions with the same values in every
    variant: a 4,3 moving phase decides the 3-piece game (and agrees with its own
    database, built whole)."""
    from retro.engine.build import build

    out = tmp_path / "n43m.h5"
    build(NINE, out, variant="4,3", stage="moving", progress=False)
    assert main(["solve", "--pieces", "3", "--db", str(out), "--json", "W 3 3 ... ... ... ...... ... ... ..."]) == 0
    assert json.loads(capsys.readouterr().out)["winner"] == "white"
