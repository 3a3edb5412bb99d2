"""Tic-tac-toe through the whole pipeline, against the plain minimax of tests/minimax.py.

The minimax shares no code with retro: its own board, lines and recursion. Every legal
position (both players' marks counted, not both lines) is compared, value and
distance; then verify, analyze (the figures every reference gives: the empty board is
a draw, 5,478 positions are reachable from it, 765 up to symmetry), the command line,
the terminal game and a crosscheck with the alpha-beta weak solver.
"""

from __future__ import annotations

import json
import shutil

import h5py
import numpy as np

from minimax import ttt_boards, ttt_value
from retro import games, open_database
from retro.analyze import analyze
from retro.cli import main
from retro.verify import verify

GAME = games.get("tic-tac-toe")


def text_of(cells: str) -> str:
    side = "X" if cells.count("X") == cells.count("O") else "O"
    return f"{side} {cells[0:3]} {cells[3:6]} {cells[6:9]}"


def test_every_position_matches_the_minimax(db_ttt):
    memo: dict = {}
    boards = list(ttt_boards())
    assert len(boards) == 5890
    with open_database(db_ttt) as db:
        first_wins, plies = db.probe_many([text_of(b) for b in boards])
        for board, first, distance in zip(boards, first_wins.tolist(), plies.tolist()):
            winner, expected = ttt_value(board, memo)
            if winner is None:
                assert distance == -1, board
            else:
                assert (first, distance) == (winner == "X", expected), board
            outcome = db.probe(text_of(board))
            assert (None if outcome.winner is None else outcome.winner.value, outcome.plies) == (winner, expected)


def test_moves_best_first_and_the_line(db_ttt):
    with open_database(db_ttt) as db:
        start = GAME.start()
        assert db.probe(start).is_draw
        assert [o.winner for _, o in db.moves(start)] == [None] * 9
        moves = db.moves("O X.. ... ...")
        assert str(moves[0][0]) == "b2" and moves[0][1].is_draw  # the only move that holds
        assert all(o.winner is GAME.sides.X and o.plies == 5 for _, o in moves[1:])
        line = db.line_steps("X XO. ... ...")
        assert len(line) == db.probe("X XO. ... ...").plies and line[-1][1].winner() is GAME.sides.X
        assert len(db.line(start)) == 9 and db.line_steps(start)[-1][1].is_over()


def test_verify_proves_it_and_finds_a_wrong_value(db_ttt, tmp_path):
    report = verify(db_ttt, progress=False)
    assert report.ok and report.positions_checked == 6046 and report.disagreement_count == 0
    broken = tmp_path / "broken.h5"
    shutil.copy(db_ttt, broken)
    with h5py.File(broken, "r+") as f:
        dataset = f["tiers"]["marks_1"]
        values = dataset[()]
        values[4] = 1  # entry 4: X on b2, O to move: a draw, now "X has won"
        del f["tiers"]["marks_1"]
        from retro.db.hdf5io import create_dataset, digest

        create_dataset(f["tiers"], "marks_1", values, digest(values))
    report = verify(broken, progress=False)
    # The entry itself (O to move cannot have lost in 0 plies with moves left) and the
    # empty board (a draw, with a move to a position lost for O) both break a rule.
    assert not report.ok and report.disagreement_count == 2
    assert [(d.position, d.tier) for d in report.disagreements] == [
        ("O ... .X. ...", "marks_1"), ("X ... ... ...", "marks_0")]
    assert "a loss in n" in report.disagreements[0].rule and "a draw" in report.disagreements[1].rule


def test_analyze_gives_the_known_figures(db_ttt):
    report = analyze(db_ttt, progress=False)
    assert report["start"]["winner"] is None and report["start"]["plies"] is None
    assert report["reachable"]["entries"] == 5478 and report["reachable"]["distinct"] == 765
    assert report["positions"]["entries"] == 5890


def test_the_command_line(db_ttt, capsys):
    assert main(["probe", "--db", str(db_ttt), "--json", "O X.. ... ..."]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["game"] == "tic-tac-toe" and answer["winner"] is None and answer["plies"] is None
    assert answer["moves"][0] == {"move": "b2", "winner": None, "plies": None}
    assert answer["moves"][1]["winner"] == "X" and answer["moves"][1]["plies"] == 5
    assert main(["probe", "--db", str(db_ttt), "X XO. ... ..."]) == 0
    out = capsys.readouterr().out
    assert out.startswith("X XO. ... ...: X wins in") and "-> [" in out
    assert main(["probe", "--db", str(db_ttt), "M XXO XOX OXX"]) == 2
    assert "Three Musketeers position" in capsys.readouterr().err
    assert main(["verify", str(db_ttt), "--quiet"]) == 0
    assert "the database is correct" in capsys.readouterr().out


def test_the_terminal_game_plays_to_the_end(db_ttt):
    import io

    from retro.play import play_game

    with open_database(db_ttt) as db:
        out = io.StringIO()
        assert play_game(db, "O", seed=3, input_stream=io.StringIO("b2\nhint\nundo\nquit\n"),
                         output_stream=out) == 0
        text = out.getvalue()
        assert "You play O; the computer plays X" in text and "The computer plays " in text
        # The perfect player never loses: against any replies the game ends X win or draw.
        rng = np.random.default_rng(0)
        for _ in range(20):
            moves = []
            position = GAME.start()
            while not position.is_over():
                if position.side is GAME.sides.X:
                    from retro.play import computer_move

                    move = computer_move(db, position, rng)
                else:
                    legal = position.legal_moves()
                    move = legal[int(rng.integers(len(legal)))]
                moves.append(str(move))
                position = position.play(move)
            assert position.winner() in (None, GAME.sides.X), moves
