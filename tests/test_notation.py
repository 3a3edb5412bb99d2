"""Notation that forgives: every unambiguous spelling of a position or a move is read,
by every game, in the library, the CLI and the API alike (retro.games.notation).

The expected positions are written out here by hand (bitboards from the rules' square
numbering), never taken from the parser under test.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from retro import games
from retro.cli import main
from retro.errors import MoveSyntaxError
from retro.games.musketeers.position import Position, Side

START = "M XXXXO XXXXX XXOXX XXXXX OXXXX"
# Musketeers on e1 (bit 4), c3 (bit 12) and a5 (bit 20); enemy men everywhere else.
START_BITS = (1 << 4 | 1 << 12 | 1 << 20, ((1 << 25) - 1) & ~(1 << 4 | 1 << 12 | 1 << 20))

SPELLINGS = [
    "M XXXXO XXXXX XXOXX XXXXX OXXXX",
    "M_XXXXO_XXXXX_XXOXX_XXXXX_OXXXX",  # the page's links
    "m xxxxo xxxxx xxoxx xxxxx oxxxx",
    "M+XXXXO+XXXXX+XXOXX+XXXXX+OXXXX",  # a query string's spaces
    "  M   XXXXO/XXXXX/XXOXX/XXXXX/OXXXX  ",
    "M,XXXXO,XXXXX,XXOXX,XXXXX,OXXXX",
    "M\tXXXXo xxxxX_XXOXX__XXXXX OXXXX\n",
]


@pytest.mark.parametrize("text", SPELLINGS)
def test_every_spelling_of_a_three_musketeers_position(text):
    position = Position.parse(text)
    assert (position.side, position.musketeers, position.enemies, position.size) == \
        (Side.MUSKETEERS, *START_BITS, 5)
    assert str(position) == START
    game, found = games.identify(text)
    assert game.name == "three-musketeers" and found == position


@pytest.mark.parametrize("name, texts, canonical", [
    ("tic-tac-toe", ["x x.. .o. ...", "X_X.._.O._...", "x+x..+.o.+...", " x/X../.O./... "],
     "X X.. .O. ..."),
    ("three-mens-morris", ["w 2 2 w.. .b. ...", "W_2_2_W.._.B._...", "w,2,2,w..,.b.,..."],
     "W 2 2 W.. .B. ..."),
    ("six-mens-morris", ["w_6_6_..._..._...._..._...", "w 6 6 ... ... .... ... ..."],
     "W 6 6 ... ... .... ... ..."),
])
def test_every_game_reads_the_same_spellings(name, texts, canonical):
    game = games.get(name)
    for text in texts:
        assert str(game.parse(text)) == canonical
        found, position = games.identify(text)
        assert found is game and str(position) == canonical


@pytest.mark.parametrize("text", ["b2-b3", "b2b3", "B2B3", "b2 b3", " b2 - b3 ", "b2_b3",
                                  "b2\u2013b3", "b2xb3", "B2-B3"])
def test_every_spelling_of_a_musketeers_move(text):
    move = games.get().parse_move(text)
    assert (move.source, move.target) == ("b2", "b3") and str(move) == "b2-b3"


@pytest.mark.parametrize("text, canonical", [
    ("b2", "b2"), ("B2", "b2"), ("b2c2", "b2-c2"), ("b2 c2", "b2-c2"),
    ("b2-c2 x d4", "b2-c2xd4"), ("B2C2XD4", "b2-c2xd4"), ("b2 x d4", "b2xd4"),
])
def test_every_spelling_of_a_morris_move(text, canonical):
    assert str(games.get("six-mens-morris").parse_move(text)) == canonical


@pytest.mark.parametrize("text", ["b2-b", "b2-b3-b4", "b2b", "z9-z8", "", "b2--b3", "b2-b3x"])
def test_what_is_still_not_a_move(text):
    with pytest.raises(MoveSyntaxError):
        games.get().parse_move(text)


def test_the_cli_reads_every_spelling(db4, capsys):
    start = "M XXXO XXXX XXXX OXXO"
    expected = None
    for argv in (["--json", start], ["--json", "M_XXXO_XXXX_XXXX_OXXO"],
                 ["--json", "m", "xxxo", "xxxx", "xxxx", "oxxo"],  # unquoted: one word a group
                 ["--json", "m xxxo xxxx xxxx oxxo"]):
        assert main(["probe", "--db", str(db4), *argv]) == 0
        answer = json.loads(capsys.readouterr().out)
        assert answer["position"] == start
        expected = expected or answer
        assert answer == expected
    assert main(["probe", "--db", str(db4), "M", "XXXO", "XXXX"]) == 2  # still checked
    assert "2 rows of 4 squares: a 4x4 board needs 4 rows" in capsys.readouterr().err
    assert main(["probe", "--db", str(db4), "m_xxxo"]) == 2
    assert "error: 1 row of 4 squares" in capsys.readouterr().err


def test_the_api_reads_every_spelling(web_client):
    answers = [web_client.get("/api/v1/probe", params={"position": text}).json()
               for text in ("M .O. XOX .O.", "m_.o._xox_.o.", "m .o. xox .o.")]
    assert all(a == answers[0] for a in answers) and answers[0]["position"] == "M .O. XOX .O."
    games_answer = web_client.get("/api/v1/probe", params={"position": "x_..._..._..."}).json()
    assert games_answer["position"] == "X ... ... ..." and games_answer["game"] == "tic-tac-toe"


def test_the_terminal_game_reads_every_spelling(db4):
    import io

    from retro import open_database
    from retro.play import play_game

    start = "M OX.. .O.. .... ...O"  # a1-b1 and b2-b1 both end the game at once
    for spelling in ("A1B1", "a1 b1", "a1_b1", "a1xb1"):
        out = io.StringIO()
        with open_database(db4) as db:
            play_game(db, "musketeers", start, input_stream=io.StringIO(spelling + "\n"),
                      output_stream=out, strict=True)
        assert out.getvalue().splitlines()[-1] == "moves: 1. a1-b1"


def test_an_empty_position_is_an_error_not_standard_input(db4, capsys):
    assert main(["probe", "--db", str(db4), ""]) == 2
    assert capsys.readouterr().err == "retro: error: empty position: expected M or E, then one group per row\n"
    assert main(["solve", ""]) == 2
    assert "empty position" in capsys.readouterr().err


def test_play_starts_from_an_unquoted_position(db4):
    result = subprocess.run([sys.executable, "-m", "retro.cli", "play", "--db", str(db4), "--start",
                             "m", "ox..", ".o..", "....", "...o"], input="a1b1\n",
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "moves: 1. a1-b1"
