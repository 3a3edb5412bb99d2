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
from registered import families, in_family, sides_text, side_letters

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


# --- issue 23: digits, invisible characters, whose error, the side letters ------------

MORRIS = in_family("morris")  # the games writing White's and Black's pieces in hand
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")


@pytest.mark.parametrize("name", MORRIS)
@pytest.mark.parametrize("hand", ["²", "٣", "６", "6.0", "-1", "3a"])
def test_the_hands_are_ascii_digits_and_an_error_names_the_field(name, hand):
    from retro.errors import NotationError

    game = games.get(name)
    rows = str(game.start()).split()[3:]
    for who, text in (("White", f"W {hand} 0 {' '.join(rows)}"), ("Black", f"W 0 {hand} {' '.join(rows)}")):
        for parse in (game.parse, lambda t: games.identify(t)[1]):
            with pytest.raises(NotationError) as error:
                parse(text)
            assert str(error.value).startswith(f"{who}'s pieces in hand must be a number from 0 to ")
            assert f"not '{hand.upper()}'" in str(error.value)  # as tidied: upper case


@pytest.mark.parametrize("name", MORRIS)
def test_a_hand_of_thousands_of_digits_is_refused_without_converting_it(name):
    from retro.errors import PositionError

    game = games.get(name)
    rows = " ".join(str(game.start()).split()[3:])
    pieces = int(str(game.start()).split()[1])  # the start: every piece in hand
    with pytest.raises(PositionError) as error:
        game.parse(f"W {'9' * 5000} {pieces} {rows}")
    assert str(error.value) == (f"White has a 5,000-digit number of pieces in hand: {game.title} "
                                f"has {pieces} each")
    # Leading zeros are only zeros: the canonical text prints the number.
    assert str(game.parse(f"W {'0' * 5000}{pieces} {pieces} {rows}")) == f"W {pieces} {pieces} {rows}"


@pytest.mark.parametrize("game", games.every_game(), ids=lambda g: g.full_name)
def test_no_game_reads_digits_of_another_script(game):
    from retro.errors import MoveSyntaxError, PositionError

    start = game.start()
    text = str(start)
    # The hands in Arabic-Indic digits (morris), a point written as a digit (every game).
    bad = {text.translate(ARABIC_INDIC), text[:-1] + "٣", text[:-1] + "²", text[:-1] + "3"} - {text}
    if game.players > 2:  # the race writes squares: 'a3' is one
        bad.discard(text[:-1] + "3")
    assert len(bad) == (4 if game.hand_counts or game.board_first else 3)  # the hands' (FEN's ranks') digits too
    for variant in bad:
        with pytest.raises(PositionError):
            game.parse(variant)
        with pytest.raises(PositionError):
            games.identify(variant)
    for move in start.legal_moves():
        with pytest.raises(MoveSyntaxError):
            game.parse_move(str(move).translate(ARABIC_INDIC))


@pytest.mark.parametrize("game", games.every_game(), ids=lambda g: g.full_name)
@pytest.mark.parametrize("char, shown", [("\x00", "\\u0000"), ("\u200b", "\\u200b"), ("\x7f", "\\u007f")])
def test_an_invisible_character_in_a_row_is_named(game, char, shown):
    from retro.errors import UnknownCharacterError

    tokens = str(game.start()).split()
    first_row = 0 if game.board_first else 1 + game.hand_counts  # after the side to move and the hands
    for at in (0, 1):  # before the row's first point, and after it: the row is one too long
        row = tokens[first_row]
        tokens_bad = tokens[:first_row] + [row[:at] + char + row[at:]] + tokens[first_row + 1:]
        text = " ".join(tokens_bad)
        for parse in (game.parse, lambda t: games.identify(t)[1]):
            with pytest.raises(UnknownCharacterError) as error:
                parse(text)
            where = "player 1's square: " if game.players > 2 else f"{game.first_row_name}: use "
            assert str(error.value).startswith(f"unknown character '{shown}' in {where}")


def test_case_changes_only_ascii_letters():
    from retro.errors import UnknownCharacterError

    # 'ß'.upper() is 'SS': the row would grow a point and the error name an 'S'.
    with pytest.raises(UnknownCharacterError, match="unknown character 'ß' in row 1"):
        games.identify("m ..ß. .... .... ....")
    with pytest.raises(MoveSyntaxError):
        games.get().parse_move("ı1-b1")  # a dotless i: 'I' in upper case, never an 'i'


@pytest.mark.parametrize("text, error", [
    # More groups than any board: six men's morris by its hands and row lengths.
    ("W 6 6 ... ... .... ... ... extra", "6 rows: the Six men's morris board has 5 (of 3, 3, 4, 3, 3 points)"),
    ("W 3 3 ... ... ... extra", "4 rows: the Three men's morris board has 3 (of 3, 3, 3 points)"),
    ("W 6 6 ... ... ... ... ...", "row 3 has 3 points: it has 4"),
    ("W ² 6 ... ... .... ... ...", "White's pieces in hand must be a number from 0 to 6 in the digits 0-9, not '²'"),
    ("X .. ... ...", "row 1 has 2 squares: a row has 3"),
    ("M XXXXO XXXXX XXOXX XXXXX OXXXX x", "row 6 has 1 square but row 1 has 5"),
])
def test_the_error_is_of_the_game_the_text_resembles_most(text, error):
    from retro.errors import PositionError

    with pytest.raises(PositionError) as raised:
        games.identify(text)
    assert str(raised.value) == error


# The families of notation the side-letter cases below were written for.
KNOWN_FAMILIES = ("Three Musketeers", "tic-tac-toe", "morris", "four-player race")
EVERY = None  # text like no game's: every registered family, in registry order


def _letters_of(game) -> set:
    """The letters a game writes in a position (its cells' and its sides'), as the tidied text has them."""
    return {c.upper() for c in game.cell_characters + "".join(side.letter for side in game.sides)}


# A word no registered game writes (of letters outside every game's notation; "hello"
# before a game wrote H, E and L): its first group is no game's side nor any game's row.
FOREIGN = "".join(c for c in "HELLOQUIZJYVK" if all(c not in _letters_of(games.get(n)) for n in games.GAMES))[:5]


@pytest.mark.parametrize("text, words, named", [
    # The side letters: of the game the text resembles, of every game that fits as well.
    ("Q XXXXO XXXXX XXOXX XXXXX OXXXX", "unknown side to move 'Q': expected ", ["Three Musketeers"]),
    ("Q 6 6 ... ... .... ... ...", "unknown side to move 'Q': expected ", ["morris"]),
    ("Q 3 3 ... ... ...", "unknown side to move 'Q': expected ", ["morris"]),
    # Three groups of three points: tic-tac-toe, Three Musketeers 3x3, morris without hands.
    ("Q ... ... ...", "unknown side to move 'Q': expected ", ["Three Musketeers", "tic-tac-toe", "morris"]),
    ("Q OOO ... ...", "unknown side to move 'Q': expected ", ["Three Musketeers", "tic-tac-toe"]),
    # Text like no game's: every game's letters.
    ("Q", "unknown side to move 'Q': expected ", EVERY),
    pytest.param(f"{FOREIGN.lower()} world", f"unknown side to move '{FOREIGN}': expected ", EVERY,
                 id="a word of no game's letters"),  # the word changes with the registry, the id not
    ("Q a1 d1 d4 a4", "unknown side to move 'Q': expected ", ["four-player race"]),
    ("... ... ...", "missing side to move: start the position with ", ["Three Musketeers", "tic-tac-toe", "morris"]),
    ("XXX ... ...", "missing side to move: start the position with ", ["Three Musketeers", "tic-tac-toe"]),
    ("XXXXO XXXXX XXOXX XXXXX OXXXX", "missing side to move: start the position with ", ["Three Musketeers"]),
    ("", "empty position: start with the side to move: ", EVERY),
])
def test_the_side_letters_named_are_of_the_games_the_text_resembles_most(text, words, named):
    """The families ``named`` are those of the games this table was written for that the
    text resembles most; a game registered later may resemble it as much (then its
    letters are named too, in registry order), never instead of them."""
    from retro.errors import PositionError

    with pytest.raises(PositionError) as raised:
        games.identify(text)
    message = str(raised.value)
    every = families()
    if named is EVERY:
        named = list(every)
    else:
        assert set(named) <= set(every)
        named = named + [family for family, game in every.items() if family not in KNOWN_FAMILIES
                         and f"{side_letters(game)} ({family})" in message]
    assert message == words + sides_text(named)


def test_a_first_word_of_several_games_cells_is_an_unknown_side_not_a_missing_one():
    """A first group whose characters are cells of registered games but of no one game
    together (no game's row, as HELLO once Dōbutsu writes H, E and L and Three
    Musketeers O) is an unknown side to move; one game's cells alone, a missing side."""
    from retro.errors import SideError

    every = [games.get(name) for name in games.GAMES]
    cells = [{c.upper() for c in game.cell_characters} for game in every]
    pairs = [(a, b) for x in cells for y in cells for a in sorted(x - y) for b in sorted(y - x)
             if a.isalpha() and b.isalpha() and not any({a, b} <= z for z in cells)]
    assert pairs  # with the games registered, such a word exists
    a, b = pairs[0]
    with pytest.raises(SideError, match=f"^unknown side to move '{a}{b}'"):
        games.identify(f"{a}{b} {a}")
    with pytest.raises(SideError, match="^missing side to move"):
        games.identify(f"{a}{a} {a}")


def test_the_side_letters_of_the_games_the_tables_were_written_for():
    """What the tables above derive from the sides' letters, written out."""
    every = families()
    assert {family: side_letters(every[family]) for family in KNOWN_FAMILIES} == {
        "Three Musketeers": "M or E", "tic-tac-toe": "X or O", "morris": "W or B",
        "four-player race": "P1, P2, P3 or P4"}
    assert sides_text(["morris", "Three Musketeers"]) == "M or E (Three Musketeers), W or B (morris)"
    assert sides_text(["morris"]) == "W or B"


@pytest.mark.parametrize("game", [g for g in games.every_game() if not g.board_first], ids=lambda g: g.full_name)
def test_an_unknown_side_letter_names_the_side_letters_of_the_game(game):
    from retro.errors import SideError

    text = "Q " + " ".join(str(game.start()).split()[1:])
    letters = side_letters(game)  # its sides' letters: "M or E", "P1, P2, P3 or P4"
    with pytest.raises(SideError) as own:
        game.parse(text)
    assert str(own.value) == f"unknown side to move 'Q': expected {letters}"
    with pytest.raises(SideError) as found:
        games.identify(text)
    assert letters in str(found.value)
    # Never the letters of the first game tried alone (Three Musketeers').
    first = games.get(next(iter(games.GAMES)))
    if game.family != first.family:
        assert not str(found.value).endswith(f"expected {side_letters(first)}")


# The variants as the messages list them, written out for the games this table was
# written for; a game registered later: as its class declares them.
VARIANTS = {
    "three-musketeers": "its variants are: 5x5, 4x4, 3x3",
    "nine-mens-morris": "its variants are: 9, 8, 7, 6, 5, 4, 3 pieces each, or W,B for unequal "
                        "counts such as 5,4",
    "four-player-race": "its variants are: jump",
}


def declared_variants(name: str) -> str:
    cls = games.GAMES[name]
    if cls.variants == ("",):
        return f"{name} has no variants"
    return VARIANTS.get(name) or f"its variants are: {cls.variants_summary or ', '.join(v or 'the game itself (no --variant)' for v in cls.variants)}"


@pytest.mark.parametrize("name", list(games.GAMES))
def test_an_unknown_variant_lists_the_variants(name, capsys):
    variants = declared_variants(name)
    with pytest.raises(games.UnknownGameError) as error:
        games.get(name, "x")
    assert variants in str(error.value) and "'x'" in str(error.value)
    if "no variants" in variants:  # then where the variants are: every game's
        assert "three-musketeers (5x5, 4x4, 3x3)" in str(error.value)
        assert all(other in str(error.value) for other in games.GAMES)
    assert main(["build", "--game", name, "--variant", "x"]) == 2
    assert capsys.readouterr().err == f"retro: error: {error.value}\n"


@pytest.mark.parametrize("text, variant", [("5,4", "5,4"), ("5-4", "5,4"), ("5_4", "5,4"), (" 5 4 ", "5,4"),
                                           ("5,5", "5"), ("9", "9"), ("3;4", "3,4")])
def test_nine_mens_morris_piece_counts_forgive_their_spelling(text, variant):
    assert games.get("nine-mens-morris", text).variant == variant


def test_nine_mens_morris_hands_may_differ_only_in_unequal_games():
    from retro.errors import PositionError

    four_three = games.get("nine-mens-morris", "4,3")
    rows = " ".join(str(four_three.start()).split()[3:])
    assert str(four_three.start()) == f"W 4 3 {rows}"
    # White has placed its last piece with Black's hand already empty: Black moves on the
    # board, then White (both hands empty, either side to move).
    assert four_three.parse("B 0 0 WWW W.. ... ...... ... BBB ...").side.code == 1
    assert four_three.parse("W 0 0 WWW W.. ... ...... ... BBB ...").side.code == 0
    with pytest.raises(PositionError, match="more than the 3 Black has"):
        four_three.parse("W 0 0 WWW W.. ... ...... ..B BBB ...")
