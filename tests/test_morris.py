"""The morris games against the independent oracle of tests/morris_oracle.py.

The oracle shares nothing with retro: its own boards, move generation, enumeration and
a plain value iteration over explicit successor lists. Every position of three men's
morris (both variants) and every moving-phase position of six men's morris with at
most 3 pieces a side is compared, value and distance; then the notation, the moves'
words, verify (and a wrong value it must find), analyze, resuming an interrupted
build, the computer's play and the command line.
"""

from __future__ import annotations

import io
import json
import shutil

import h5py
import numpy as np
import pytest

from morris_oracle import six_text, solve_six_mens_morris_moving, solve_three_mens_morris
from retro import games, open_database
from retro.cli import main
from retro.engine.build import build
from retro.errors import IllegalMoveError, PositionError
from retro.verify import verify

THREE = games.get("three-mens-morris")
DIAGONAL = games.get("three-mens-morris-diagonal")
SIX = games.get("six-mens-morris")


@pytest.mark.parametrize("diagonal", [False, True])
def test_every_three_mens_morris_position_matches_the_oracle(db_3mm, db_3mm_diagonal, diagonal):
    oracle = solve_three_mens_morris(diagonal)
    assert len(oracle) == 5686
    with open_database(db_3mm_diagonal if diagonal else db_3mm) as db:
        for text, expected in oracle.items():
            outcome = db.probe(text)
            found = (None if outcome.winner is None else outcome.winner.value, outcome.plies)
            assert found == expected, text
        start = db.probe(db.game.start())
        # The plain game is a draw; with the diagonals White wins, only by b2.
        if diagonal:
            assert (start.winner, start.plies) == (games.get(DIAGONAL.name).sides.WHITE, 9)
            wins = [str(m) for m, o in db.moves(db.game.start()) if o.winner is start.winner]
            assert wins == ["b2"]
        else:
            assert start.is_draw


def test_six_mens_morris_moving_phase_matches_the_oracle(db_6mm):
    solution = solve_six_mens_morris_moving(3)
    n = len(solution.side)
    assert n == 407_680
    with open_database(db_6mm) as db:
        zeros = np.zeros(n, dtype=np.int64)
        tiers, entries = SIX.index_many(solution.side, solution.white, solution.black, zeros, zeros)
        values = np.array([db._values[t][e] for t, e in zip(tiers, entries.tolist())], dtype=np.int64)
        draws = values == 255
        winner = np.where(draws, -1, np.where(values & 1, 0, 1))
        plies = np.where(draws, -1, values >> 1)
        wrong = np.flatnonzero((winner != solution.winner) | (plies != solution.plies))
        assert len(wrong) == 0, [six_text(solution.side[i], solution.white[i], solution.black[i])
                                 for i in wrong[:5]]
        for i in range(0, n, 40_000):  # the probe API says the same
            text = six_text(solution.side[i], solution.white[i], solution.black[i])
            outcome = db.probe(text)
            assert outcome.plies == (None if plies[i] < 0 else plies[i]), text


def test_six_mens_morris_is_a_draw_from_the_start(db_6mm):
    with open_database(db_6mm) as db:
        assert db.probe(SIX.start()).is_draw
        assert all(o.is_draw for _, o in db.moves(SIX.start()))
        assert len(db.line(SIX.start())) > 0  # a drawing line, to a repetition


def test_notation_and_moves():
    position = SIX.parse("W 0 0 WW. ... W... ... BBB")
    assert str(position) == "W 0 0 WW. ... W... ... BBB" and SIX.parse(str(position)) == position
    moves = {str(m) for m in position.legal_moves()}
    assert "c1-e1" in moves and "a3-a5" not in moves  # a5 holds a black piece
    closing = position.play("c1-e1").play("e5-e3")
    assert {str(m) for m in THREE.parse("W 2 2 B.. .W. ...").legal_moves()} == {
        "b1", "c1", "a2", "c2", "a3", "b3", "c3"}
    mill = SIX.parse("W 1 1 WW. B.. .... B.. B..")
    assert [str(m) for m in mill.legal_moves() if m.target == "e1"] == ["e1xb2", "e1xb4", "e1xa5"]
    assert str(SIX.parse_move("b2-c2xd4")) == "b2-c2xd4" and str(SIX.parse_move("E1")) == "e1"
    with pytest.raises(IllegalMoveError, match="closes a mill, so name the piece"):
        mill.play("e1")
    with pytest.raises(IllegalMoveError, match="closes no mill"):
        mill.play("d2xb2")
    with pytest.raises(IllegalMoveError, match="has pieces in hand and must place"):
        mill.play("a1-a3")
    for text, words in [("W 3 3 ... ...", "2 rows"), ("X 3 3 ... ... ...", "unknown side"),
                        ("B 3 3 ... ... ...", "White places next"), ("W 3 ... ... ...", "pieces in hand"),
                        ("W 0 0 WWW BBB ...", "not a position"),  # both have a line
                        ("W 3 3 .Z. ... ...", "unknown character")]:
        with pytest.raises(PositionError, match=words):
            THREE.parse(text)
    with pytest.raises(PositionError, match="left with 2"):
        SIX.parse("B 0 0 WW. ... .... ... BBB")  # White, not to move, has 2
    assert closing.side is SIX.sides.WHITE


def test_verify_proves_every_morris_database_and_finds_a_wrong_draw(db_3mm, db_6mm, tmp_path):
    for path in (db_3mm, db_6mm):
        report = verify(path, progress=False)
        assert report.ok and report.disagreement_count == 0, report.checks
    broken = tmp_path / "broken.h5"
    shutil.copy(db_3mm, broken)
    moving = THREE.tier_name((0, 0, 3, 3))
    with h5py.File(broken, "r+") as f:
        values = f["tiers"][moving][()]
        drawn = int(np.flatnonzero(values == 255)[0])
        values[drawn] = 2 * 7 + 1  # a draw said to be a White win in 7
        del f["tiers"][moving]
        from retro.db.hdf5io import create_dataset, digest

        create_dataset(f["tiers"], moving, values, digest(values))
    report = verify(broken, progress=False)
    assert not report.ok and report.disagreement_count >= 1
    assert any(d.entry == drawn and d.tier == moving for d in report.disagreements)


def test_analyze_counts_draws_and_the_start(db_3mm):
    from retro.analyze import analysis_text, analyze

    report = analyze(db_3mm, progress=False)
    # Distinct positions: the oracle's 5,686 positions in classes of symmetric images.
    oracle = solve_three_mens_morris(False)
    classes: dict = {}
    for text, (winner, _) in oracle.items():
        position = THREE.parse(text)
        key = min(str(image) for image in position.symmetric_images())
        mover_wins = winner == position.side.value
        classes[key] = (position.side.value, "draws" if winner is None else "wins" if mover_wins else "losses")
    for side in ("white", "black"):
        counted = report["sides"][f"{side}_to_move"]["distinct"]
        for result in ("wins", "losses", "draws"):
            assert counted[result] == sum(1 for c in classes.values() if c == (side, result)), (side, result)
    assert report["positions"]["distinct"] == len(classes)
    assert report["positions"]["all"] == 5686
    assert report["start"]["winner"] is None and len(report["start"]["moves"]) == 9
    assert report["reachable"]["entries"] > 0
    assert "draws" in analysis_text(report)


def test_an_interrupted_build_resumes_to_the_same_database(tmp_path, interrupt_at, db_6mm):
    out = tmp_path / "six.h5"
    tier = SIX.tiers()[60]
    interrupt_at(tier)
    with pytest.raises(KeyboardInterrupt):
        build("six-mens-morris", out, progress=False)
    assert not out.exists() and len(list((tmp_path / "six.h5.partial").glob("*.h5"))) >= 50
    interrupt_at(None)
    summary = build("six-mens-morris", out, progress=False)
    assert summary.resumed_from is not None
    with open_database(out) as resumed, open_database(db_6mm) as whole:
        assert resumed.digest == whole.digest


def test_the_computer_never_loses_a_drawn_game(db_3mm):
    from retro.play import computer_move, play_game

    rng = np.random.default_rng(5)
    with open_database(db_3mm) as db:
        for _ in range(15):
            position = THREE.start()
            for _ in range(60):
                if position.is_over():
                    break
                if position.side is THREE.sides.WHITE:
                    move = computer_move(db, position, rng)
                else:
                    legal = position.legal_moves()
                    move = legal[int(rng.integers(len(legal)))]
                position = position.play(move)
            assert position.winner() is not THREE.sides.BLACK
        out = io.StringIO()
        assert play_game(db, "black", seed=1, input_stream=io.StringIO("b2\nquit\n"),
                         output_stream=out) == 0
        assert "You play Black (B); the computer plays White" in out.getvalue()
        assert "in hand: White" in out.getvalue()


def test_the_command_line(db_6mm, capsys):
    assert main(["probe", "--db", str(db_6mm), "--json", "W 6 6 ... ... .... ... ..."]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["game"] == "six-mens-morris" and answer["winner"] is None and answer["plies"] is None
    assert len(answer["moves"]) == 16
    assert main(["probe", "--db", str(db_6mm), "W 0 0 WW. ... W... ... BBB"]) == 0
    assert capsys.readouterr().out.startswith("W 0 0 WW. ... W... ... BBB: ")
    assert main(["crosscheck", "--db", str(db_6mm), "--quiet"]) == 2
    assert "positions repeat" in capsys.readouterr().err
    assert main(["games"]) == 0
    listed = capsys.readouterr().out
    assert "six-mens-morris" in listed and "70,967,891 positions" in listed


# --- issue 23: examples in move errors, the terminal board ------------------------------


def _walk(game, seed: int, plies: int) -> list:
    """The positions of a random game from the start (the last one may be finished)."""
    import random

    rng = random.Random(seed)
    position, seen = game.start(), []
    for _ in range(plies):
        seen.append(position)
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(rng.choice(moves))
    return seen


@pytest.mark.parametrize("game", [THREE, DIAGONAL, SIX], ids=lambda g: g.name)
def test_every_example_in_a_move_error_is_a_legal_move_there(game):
    import re

    names = game.board.names
    attempts = [*names, *(f"{a}-{b}" for a in names for b in names if a != b), "b2-c2", "b2xd4"]
    examples = 0
    for seed in range(6):
        for position in _walk(game, seed, 30):
            if position.is_over():
                continue
            hand = position.white_hand if position.side is game.sides.WHITE else position.black_hand
            for text in attempts:
                try:
                    position.play(text)
                except IllegalMoveError as error:
                    message = str(error)
                else:
                    continue
                if hand == 0 and text in names:  # a placement in the sliding phase
                    assert "slide a piece, like " in message, message
                for example in re.findall(r"\blike (\S+)\)?$", message):
                    examples += 1
                    position.play(example.rstrip(")"))  # legal: no error
    assert examples > 100


def test_a_placement_in_the_sliding_phase_suggests_a_slide_of_that_position():
    # White on a1, b2, b3 and Black on c1, a2, c3: b2-c2 is no move here.
    position = THREE.parse("W 0 0 W.B BW. .WB")
    with pytest.raises(IllegalMoveError) as error:
        position.play("a3")
    # The one slide onto a3 (b3 and a2 are its neighbours; a2 is Black's): b3-a3.
    assert str(error.value) == "illegal move a3: White has no piece in hand; slide a piece, like b3-a3"


@pytest.mark.parametrize("game, board", [
    (THREE, ["    a   b   c",
             " 1  .---.---.",
             "    |   |   |",
             " 2  .---.---.",
             "    |   |   |",
             " 3  .---.---.",
             "in hand: White 3, Black 3"]),
    (DIAGONAL, ["    a   b   c",
                " 1  .---.---.",
                "    | \\ | / |",
                " 2  .---.---.",
                "    | / | \\ |",
                " 3  .---.---.",
                "in hand: White 3, Black 3"]),
    (SIX, ["    a   b   c   d   e",
           " 1  .-------.-------.",
           "    |       |       |",
           " 2  |   .---.---.   |",
           "    |   |       |   |",
           " 3  .---.       .---.",
           "    |   |       |   |",
           " 4  |   .---.---.   |",
           "    |       |       |",
           " 5  .-------.-------.",
           "in hand: White 6, Black 6"]),
], ids=lambda g: getattr(g, "name", ""))
def test_the_terminal_board_draws_the_lines(game, board):
    assert game.board_text(game.start()).splitlines() == board


def test_the_terminal_board_marks_the_last_move_and_shows_the_pieces():
    position = SIX.parse("B 0 1 W.. BW. W..B .B. ..W")
    assert SIX.board_text(position, {"a1", "c1"}).splitlines() == [
        "    a   b   c   d   e",
        " 1 [W]-----[.]------.",
        "    |       |       |",
        " 2  |   B---W---.   |",
        "    |   |       |   |",
        " 3  W---.       .---B",
        "    |   |       |   |",
        " 4  |   .---B---.   |",
        "    |       |       |",
        " 5  .-------.-------W",
        "in hand: White 0, Black 1"]
    position = DIAGONAL.parse("W 1 1 W.B .W. ..B")
    assert DIAGONAL.board_text(position, {"b2"}).splitlines()[1:6] == [
        " 1  W---.---B", "    | \\ | / |", " 2  .--[W]--.", "    | / | \\ |", " 3  .---.---B"]
