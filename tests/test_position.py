"""Rules, positions, moves and the text notation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retro.games.musketeers.position import (
    BoardSizeError,
    IllegalMoveError,
    Move,
    MoveSyntaxError,
    MusketeerCountError,
    OverlapError,
    Position,
    PositionError,
    RowCountError,
    RowLengthError,
    Side,
    SideError,
    UnknownCharacterError,
)
from strategies import positions

START = "M XXXXO XXXXX XXOXX XXXXX OXXXX"


def test_start_position_matches_the_standard_setup():
    start = Position.start()
    assert str(start) == START
    assert start.musketeer_squares() == ("e1", "c3", "a5")
    assert start.enemy_count == 22
    assert start.side is Side.MUSKETEERS


@pytest.mark.parametrize(
    "size, text",
    [(3, "M XXO XOX OXX"), (4, "M XXXO XXXX XXOX OXXX"), (5, START)],
)
def test_start_on_every_board(size, text):
    assert str(Position.start(size)) == text


def test_start_rejects_unsupported_board():
    with pytest.raises(BoardSizeError):
        Position.start(6)


def test_moves_from_the_start():
    moves = sorted(str(m) for m in Position.start().legal_moves())
    assert moves == sorted(["e1-d1", "e1-e2", "c3-c2", "c3-c4", "c3-b3", "c3-d3", "a5-a4", "a5-b5"])


def test_playing_a_capture_and_an_enemy_reply():
    after = Position.start().play("e1-d1")
    assert str(after) == "E XXXO. XXXXX XXOXX XXXXX OXXXX"
    assert after.enemy_count == 21
    replies = sorted(str(m) for m in after.legal_moves())
    assert replies == ["e2-e1"]  # the only man next to the one empty square
    assert str(after.play(Move.parse("e2-e1"))) == "M XXXOX XXXX. XXOXX XXXXX OXXXX"


@pytest.mark.parametrize(
    "text, move, reason",
    [
        (START, "e1-e3", "one square"),
        (START, "a1-b1", "does not hold a musketeer"),
        ("E XXXO. XXXXX XXOXX XXXXX OXXXX", "a1-b1", "empty square"),
        ("M XXXX. XXXXO XXOXX XXXXX OXXXX", "e2-e1", "only move onto an enemy"),
    ],
)
def test_illegal_moves_are_refused_with_a_reason(text, move, reason):
    with pytest.raises(IllegalMoveError, match=reason):
        Position.parse(text).play(move)


def test_musketeers_in_a_line_lose_first_whoever_is_to_move():
    # Rule 3 comes before rule 4: even a blocked side or a full board does not matter.
    for text in ["M OOOXX XXXXX XXXXX XXXXX XXXXX", "E OXXXX OXXXX OXXXX XXXXX XXXXX",
                 "M O.... O.... O.... ..... ....."]:
        position = Position.parse(text)
        assert position.winner() is Side.ENEMY
        assert position.legal_moves() == []
        with pytest.raises(IllegalMoveError, match="game is over"):
            position.play("a1-b1")


def test_a_blocked_enemy_loses():
    position = Position.parse("E XXXXO XXXXX XXOXX XXXXX OXXXX")
    assert position.legal_moves() == []
    assert position.winner() is Side.MUSKETEERS


def test_musketeers_without_a_capture_win():
    position = Position.parse("M O...O ..... ..O.. ..... X....")
    assert position.winner() is Side.MUSKETEERS


def test_game_goes_on():
    assert Position.start().winner() is None
    assert not Position.start().is_over()


@pytest.mark.parametrize(
    "text, error, words",
    [
        ("", SideError, "empty"),
        ("XXXXO XXXXX XXOXX XXXXX OXXXX", SideError, "missing side"),
        ("Q XXXXO XXXXX XXOXX XXXXX OXXXX", SideError, "unknown side"),
        ("M", RowCountError, "no rows"),
        ("M XXXXO XXXX XXOXX XXXXX OXXXX", RowLengthError, "row 2 has 4"),
        ("M XXXXO XXXXX XXOXX XXXXX", RowCountError, "needs 5 rows"),
        ("M XXXXO XXXXX XXOZX XXXXX OXXXX", UnknownCharacterError, "'Z' in row 3"),
        ("M XXXXO XXXXX XXXXX XXXXX OXXXX", MusketeerCountError, "2 musketeers"),
        ("M XXXXO XXXXX XXOOX XXXXX OXXXX", MusketeerCountError, "4 musketeers"),
        ("M XXXXXO XXXXXX XXOXXX XXXXXX OXXXXX XXXXXX", BoardSizeError, "rows of 6"),
        ("M OO O.", BoardSizeError, "rows of 2"),
    ],
)
def test_bad_position_text_names_the_problem(text, error, words):
    with pytest.raises(error, match=words):
        Position.parse(text)


def test_errors_are_value_errors():
    for error in (SideError, RowLengthError, RowCountError, UnknownCharacterError,
                  MusketeerCountError, BoardSizeError, MoveSyntaxError, IllegalMoveError,
                  OverlapError):
        assert issubclass(error, PositionError) and issubclass(error, ValueError)


def test_constructor_checks_pieces():
    with pytest.raises(OverlapError):
        Position(Side.MUSKETEERS, 0b111, 0b1)
    with pytest.raises(OverlapError):
        Position(Side.MUSKETEERS, 0b111, 1 << 25)
    with pytest.raises(MusketeerCountError):
        Position(Side.MUSKETEERS, 0b11, 0)


@pytest.mark.parametrize("text", ["e1-d1", "a5-a4", "c3-c2"])
def test_move_round_trip(text):
    assert str(Move.parse(text)) == text


@pytest.mark.parametrize("text", ["", "e1", "e1-", "e1d", "f1-e1", "e0-e1", "e1-e6", 42, "e1--d1", "e1-d1-c1"])
def test_bad_move_text(text):
    with pytest.raises(MoveSyntaxError):
        Move.parse(text)


@given(positions())
def test_notation_round_trips(position):
    assert Position.parse(str(position)) == position


@given(st.text(alphabet="MEOX. \n\tZ", max_size=40))
@settings(max_examples=600)
def test_parse_fuzz_raises_only_documented_errors(text):
    try:
        position = Position.parse(text)
    except PositionError:
        return
    assert str(position).split() == text.split()


@given(positions(), st.data())
@settings(max_examples=400)
def test_parse_fuzz_on_mutated_positions(position, data):
    text = list(str(position))
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["replace", "delete", "insert"]))
        at = data.draw(st.integers(0, len(text)))
        char = data.draw(st.sampled_from(list("MEOX. Z1")))
        if op == "replace" and at < len(text):
            text[at] = char
        elif op == "delete" and at < len(text):
            del text[at]
        else:
            text.insert(at, char)
    try:
        Position.parse("".join(text))
    except PositionError:
        pass


@given(st.one_of(st.none(), st.integers(), st.binary()))
def test_parse_rejects_non_text(value):
    with pytest.raises(PositionError):
        Position.parse(value)


@given(positions())
def test_every_move_changes_the_side_and_keeps_three_musketeers(position):
    for move in position.legal_moves():
        child = position.play(move)
        assert child.side is position.side.other
        assert child.musketeers.bit_count() == 3
        captured = position.enemy_count - child.enemy_count
        assert captured == (1 if position.side is Side.MUSKETEERS else 0)


# --- issue 23: the fields of a position, the words of its errors ---------------------


def _every_game():
    from retro import games

    return games.every_game()


@pytest.mark.parametrize("game", _every_game(), ids=lambda g: g.full_name)
def test_every_position_constructor_takes_ints_only(game):
    """A float or a bool where the rules want a whole number is a TypeError naming the
    field (``6.0`` pieces in hand printed '6.0' and then broke the jitted rules); a
    numpy integer, as arrays hand them out, becomes an int."""
    import dataclasses

    import numpy as np

    start = game.start()
    numbers = [f.name for f in dataclasses.fields(start) if type(getattr(start, f.name)) is int]
    cells = [f.name for f in dataclasses.fields(start)  # a kit game's board: a tuple of ints
             if isinstance(getattr(start, f.name), tuple) and getattr(start, f.name)
             and all(type(v) is int for v in getattr(start, f.name))]
    assert len(numbers) >= 2 or cells  # the bitboards at least, or the cells
    for name in cells:
        board = getattr(start, name)
        for wrong in (float(board[0]), str(board[0]), bool(board[0]), None):
            with pytest.raises(TypeError, match=f"^the {name} of a position must hold ints, not "
                                                f"{type(wrong).__name__}$"):
                dataclasses.replace(start, **{name: (wrong,) + board[1:]})
        same = dataclasses.replace(start, **{name: tuple(np.int64(v) for v in board)})
        assert same == start and all(type(v) is int for v in getattr(same, name))
        assert str(same) == str(start) and hash(same) == hash(start)
    for name in numbers:
        value = getattr(start, name)
        for wrong in (float(value), str(value), bool(value), None):
            with pytest.raises(TypeError, match=f"^the {name} of a position must be an int, not "
                                                f"{type(wrong).__name__}$"):
                dataclasses.replace(start, **{name: wrong})
        same = dataclasses.replace(start, **{name: np.int64(value)})
        assert same == start and type(getattr(same, name)) is int and str(same) == str(start)
        assert hash(same) == hash(start)


def test_a_morris_position_of_six_point_zero_pieces_in_hand_is_refused():
    from retro import games
    from retro.games.morris import Position as MorrisPosition
    from retro.games.morris import Side as MorrisSide

    with pytest.raises(TypeError, match="white_hand"):
        MorrisPosition("six-mens-morris", MorrisSide.WHITE, 0, 0, 6.0, 6)
    with pytest.raises(PositionError, match="tic-tac-toe is not a morris game"):
        MorrisPosition("tic-tac-toe", MorrisSide.WHITE, 0, 0, 6, 6)
    with pytest.raises(PositionError, match="White has far too many pieces in hand"):
        MorrisPosition("six-mens-morris", MorrisSide.WHITE, 0, 0, 10 ** 5000, 6)
    with pytest.raises(PositionError, match="^White has 7 pieces in hand: Six men's morris has 6 each$"):
        games.get("six-mens-morris").parse("W 7 6 ... ... .... ... ...")
    with pytest.raises(PositionError, match="^White has 1 piece on the board and 1 in hand: Three men's "
                                            "morris has 3 each, none captured$"):
        games.get("three-mens-morris").parse("B 1 2 W.. B.. ...")
    with pytest.raises(TypeError):
        MorrisPosition(6, MorrisSide.WHITE, 0, 0, 6, 6)


def test_a_tic_tac_toe_mark_off_the_board_is_named():
    from retro.games.tictactoe import Position as TicTacToePosition
    from retro.games.tictactoe import Side as TicTacToeSide

    from retro import games

    game = games.get("tic-tac-toe")
    for board in ((0,) * 9 + (1,), (0,) * 70 + (2,), (0,) * 8, (3,) + (0,) * 8):
        with pytest.raises(PositionError, match="^a mark lies off the 3x3 board$"):
            TicTacToePosition(game, TicTacToeSide.X, board)
    with pytest.raises(SideError):
        TicTacToePosition(game, "X", (0,) * 9)


@pytest.mark.parametrize("text, words", [
    ("E ..O ... ...", "the position has 1 musketeer, it needs exactly 3"),
    ("E ... ... ...", "the position has 0 musketeers, it needs exactly 3"),
    ("M XXXXO XXXXX XXOXX XXXXX OXXXX X", "row 6 has 1 square but row 1 has 5"),
])
def test_counts_take_the_right_number(text, words):
    with pytest.raises(PositionError) as error:
        Position.parse(text)
    assert str(error.value) == words
