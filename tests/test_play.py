"""The game engine behind ``retro play``: the computer's choices and scripted sessions.

Expected choices are computed here with the plain minimax (tests/minimax.py) and the
move generator of test_probe.py, never with retro's own search.
"""

from __future__ import annotations

import io
from fractions import Fraction

import pytest
from test_probe import children, position, random_positions, value

from retro import BoardMismatchError, IllegalMoveError, Move, Position, Side, open_database
from retro.play import (
    UnknownCommandError,
    board_text,
    chances,
    computer_move,
    play_game,
    score,
)
from retro.db.database import GameOverError

MUSKETEERS, ENEMY = 0, 1


def mover_wins(v: int, side: int) -> bool:
    return (v & 1) == (1 if side == MUSKETEERS else 0)


def reference_chances(side: int, m: int, e: int, n: int) -> dict[str, tuple[Fraction, int, int, int]]:
    """move -> (blunder share, plies after the move, replies, blunders), by minimax."""
    out = {}
    for text, cs, cm, ce in children(side, m, e, n):
        replies = children(cs, cm, ce, n)
        blunders = sum(mover_wins(value(gs, gm, ge, n), side) for _, gs, gm, ge in replies)
        share = Fraction(blunders, len(replies)) if replies else Fraction(0)
        out[text] = (share, value(cs, cm, ce, n) >> 1, len(replies), blunders)
    return out


def expected_choices(side: int, m: int, e: int, n: int) -> set[str]:
    """The moves the documented rule allows, computed independently."""
    kids = {t: value(cs, cm, ce, n) for t, cs, cm, ce in children(side, m, e, n)}
    winning = {t: v >> 1 for t, v in kids.items() if mover_wins(v, side)}
    if winning:
        fastest = min(winning.values())
        return {t for t, plies in winning.items() if plies == fastest}
    table = reference_chances(side, m, e, n)
    top = max((share, plies) for share, plies, _, _ in table.values())
    return {t for t, (share, plies, _, _) in table.items() if (share, plies) == top}


# --- the computer's choice ---------------------------------------------------------


def test_lost_position_plays_for_the_opponents_mistakes(db4):
    # Constructed position: the enemy to move has lost. Its longest resistance
    # leaves the musketeers no way to go wrong, while c3-b3 resists one ply less
    # but half of the musketeers' replies after it throw the win away.
    n = 4
    p = Position.parse("E ..XO X.O. ..X. .X.O")
    side, m, e = ENEMY, p.musketeers, p.enemies
    assert not mover_wins(value(side, m, e, n), side)
    table = reference_chances(side, m, e, n)
    ranked = sorted(table.items(), key=lambda item: (item[1][0], item[1][1]), reverse=True)
    (best, (share, plies, _, _)), (_, (second_share, _, _, _)) = ranked[0], ranked[1]
    assert best == "c3-b3" and share == Fraction(1, 2) > second_share
    longest = max(table.values(), key=lambda row: row[1])
    assert longest[1] > plies and longest[0] == 0  # the old rule would play differently

    with open_database(db4) as db:
        assert {str(computer_move(db, p, rng=seed)) for seed in range(10)} == {"c3-b3"}
        assert str(computer_move(db, p)) == "c3-b3"
        got = {str(c.move): (c.share, c.outcome.plies, c.replies, c.blunders) for c in chances(db, p)}
    assert got == table


def test_lost_positions_follow_the_rule(db4):
    n = 4
    checked = 0
    with open_database(db4) as db:
        for side, m, e in random_positions(n, 300, seed=11, max_men=9):
            if not children(side, m, e, n) or mover_wins(value(side, m, e, n), side):
                continue
            allowed = expected_choices(side, m, e, n)
            p = position(side, m, e, n)
            assert str(computer_move(db, p)) in allowed
            assert computer_move(db, p) == computer_move(db, p)  # deterministic without rng
            seen = {str(computer_move(db, p, rng=seed)) for seed in range(12)}
            assert seen <= allowed
            if len(allowed) > 1:
                assert len(seen) > 1  # varies among the equals
            checked += 1
    assert checked > 30


def test_winning_positions_take_a_fastest_win(db4):
    n = 4
    checked = 0
    with open_database(db4) as db:
        for side, m, e in random_positions(n, 200, seed=12, max_men=9):
            if not children(side, m, e, n) or not mover_wins(value(side, m, e, n), side):
                continue
            allowed = expected_choices(side, m, e, n)
            p = position(side, m, e, n)
            assert {str(computer_move(db, p, rng=seed)) for seed in range(8)} <= allowed
            checked += 1
    assert checked > 30


def test_no_move_in_a_finished_game(db3):
    assert children(ENEMY, 0b111, 0b11000, 3) == []
    with open_database(db3) as db, pytest.raises(GameOverError):
        computer_move(db, Position.parse("E OOO XX. ..."))


# --- sessions ----------------------------------------------------------------------


def run(db_path, script: str, **kwargs) -> tuple[int, str]:
    out = io.StringIO()
    with open_database(db_path) as db:
        code = play_game(db, input_stream=io.StringIO(script), output_stream=out, **kwargs)
    return code, out.getvalue()


def test_board_shows_coordinates():
    text = board_text(Position.parse("M ..XO X.O. ..X. .X.O"))
    assert text.splitlines() == [
        "    a b c d",
        " 1  . . X O",
        " 2  X . O .",
        " 3  . . X .",
        " 4  . X . O",
    ]


def test_scripted_short_game_with_every_command(db4):
    # Musketeers a1, b2, d4 and one enemy man on b1: either capture leaves the enemy
    # without a move, so the human's capture ends the game at once.
    start = "M OX.. .O.. .... ...O"
    m, e = 1 << 0 | 1 << 5 | 1 << 15, 1 << 1
    assert Position.parse(start) == Position(Side.MUSKETEERS, m, e, 4)
    captures = children(MUSKETEERS, m, e, 4)
    assert sorted(t for t, *_ in captures) == ["a1-b1", "b2-b1"]
    assert all(children(cs, cm, ce, 4) == [] and value(cs, cm, ce, 4) == 1
               for _, cs, cm, ce in captures)
    script = "help\nhint\neval\nfrobnicate\nb1-c1\nd4-d5\nundo\n  A1-B1  \n"
    code, out = run(db4, script, human="musketeers", start=start, seed=3)
    assert code == 0
    lines = out.splitlines()
    assert "    a b c d" in lines and " 1  O X . ." in lines
    assert f"position: {start}" in lines
    assert any(line.startswith("  hint") for line in lines)
    assert any("hint: " in line and "you win" in line for line in lines)
    assert any("eval: the musketeers win in 1 ply" in line for line in lines)
    assert any("M1 -> [" in line for line in lines)
    assert any("'frobnicate' is neither a move" in line for line in lines)
    assert any("illegal move b1-c1" in line for line in lines)
    assert any("not on the 4x4 board" in line for line in lines)
    assert any("nothing to undo" in line for line in lines)
    # One board for the end, the move's two squares in brackets; the result in the
    # player's words (b1's enemy man was the last: the enemy cannot move), the score.
    assert lines[-8:-3] == ["    a b c d", " 1 [. O]. .", " 2  . O . .", " 3  . . . .", " 4  . . . O"]
    assert lines[-3] == "position: E .O.. .O.. .... ...O"
    assert lines[-2] == "You win: the enemy has no man that can move."
    assert lines[-1] == "moves: 1. a1-b1"
    assert "Traceback" not in out


def test_end_of_input_and_quit_end_the_game_cleanly(db4):
    code, out = run(db4, "", human=Side.ENEMY)
    assert code == 0 and out.rstrip().endswith("end of input: game abandoned")
    assert "The computer plays" in out  # the musketeers move first
    code, out = run(db4, "quit\n", human=Side.MUSKETEERS)
    assert code == 0 and out.rstrip().endswith("game abandoned")


def test_strict_mode_raises(db4):
    with pytest.raises(IllegalMoveError):
        run(db4, "a1-a2\n", human="musketeers", strict=True)
    with pytest.raises(UnknownCommandError):
        run(db4, "castle\n", human="musketeers", strict=True)


def test_start_that_does_not_fit_the_database(db4):
    out = io.StringIO()
    with open_database(db4) as db, pytest.raises(BoardMismatchError):
        play_game(db, start=Position.start(5), input_stream=io.StringIO(""), output_stream=out)
    assert out.getvalue() == ""


class Opponent(io.StringIO):
    """Scripted stdin of a whole game: reads the transcript so far, answers a move.

    It plays the first legal move of the reference generator, and on its way tries
    an illegal move, asks for a hint and an evaluation and takes a move back once.
    """

    def __init__(self, transcript: io.StringIO, n: int) -> None:
        super().__init__()
        self.transcript, self.n = transcript, n
        self.turns = 0
        self.extras = ["a1-a1", "hint", "eval"]
        self.undone = False

    def readline(self, *args) -> str:
        self.turns += 1
        assert self.turns < 500, "the game does not end"
        if self.extras:
            return self.extras.pop(0) + "\n"
        if self.turns > 8 and not self.undone:
            self.undone = True
            return "undo\n"
        last = [ln for ln in self.transcript.getvalue().splitlines() if ln.startswith("position: ")][-1]
        p = Position.parse(last.removeprefix("position: "))
        side = MUSKETEERS if p.side is Side.MUSKETEERS else ENEMY
        return children(side, p.musketeers, p.enemies, self.n)[0][0] + "\n"


def test_whole_game_through_piped_input(db4):
    # The 4x4 start is a musketeers' win, so the computer playing them must win
    # whatever the human does.
    start = Position.start(4)
    assert mover_wins(value(MUSKETEERS, start.musketeers, start.enemies, 4), MUSKETEERS)
    out = io.StringIO()
    with open_database(db4) as db:
        code = play_game(db, human="enemy", seed=1, input_stream=Opponent(out, 4), output_stream=out)
    text = out.getvalue()
    assert code == 0
    lines = text.rstrip().splitlines()
    assert lines[-2].startswith("You lose: ") and lines[-1].startswith("moves: 1. ")
    assert "undone" in text and "hint: " in text and "eval: " in text and "illegal move a1-a1" in text
    final = Position.parse([ln for ln in lines if ln.startswith("position: ")][-1][10:])
    assert final.winner() is Side.MUSKETEERS
    # The score replays from the start to the final position, and every computer move
    # in it kept the win, getting one ply closer each time.
    moves = [word for word in lines[-1].removeprefix("moves: ").split() if not word.endswith(".")]
    position = start
    for move in moves:
        after = position.play(Move.parse(move))
        if position.side is Side.MUSKETEERS:
            v_before = value(MUSKETEERS, position.musketeers, position.enemies, 4)
            v_after = value(ENEMY, after.musketeers, after.enemies, 4)
            assert v_after & 1 and v_after >> 1 == (v_before >> 1) - 1
        position = after
    assert position == final


# --- the terminal game's board, score, value and repetitions -----------------------------


def marked_squares(board_lines: list[str]) -> set[str]:
    """The squares a grid board prints in brackets: a cell at column c sits at 4 + 2c,
    and a bracket opens just before a marked cell or a run of marked cells."""
    marked = set()
    for line in board_lines[1:]:
        row = int(line[:2])
        inside = False
        for c in range((len(line) - 3) // 2):
            before, cell = line[3 + 2 * c], line[4 + 2 * c] if 4 + 2 * c < len(line) else " "
            inside = before == "[" or (inside and before == " ")
            if inside and cell != " ":
                marked.add("abcde"[c] + str(row))
    return marked


def test_marked_squares_reads_what_a_board_shows():
    board = ["    a b c d e", " 1  X X X[O .]", " 2  X X X X X", " 3 [O]X X X X"]
    assert marked_squares(board) == {"d1", "e1", "a3"}


def test_one_board_a_turn_with_the_computer_s_move_marked_and_the_value(db_ttt):
    from retro import games

    out = io.StringIO()
    with open_database(db_ttt) as db:
        play_game(db, "X", seed=5, input_stream=io.StringIO("value\nb2\nmoves\nvalue\na1\nquit\n"),
                  output_stream=out)
    lines = out.getvalue().splitlines()
    boards = [i for i, line in enumerate(lines) if line == "    a b c"]
    assert len(boards) == 3  # the start, then one a turn: after each of the computer's moves
    game = games.get("tic-tac-toe")
    replies = [line.removeprefix("The computer plays ").rstrip(".") for line in lines
               if line.startswith("The computer plays ")]
    assert len(replies) == 2
    for at, reply in zip(boards[1:], replies):
        assert marked_squares(lines[at:at + 4]) == {reply}
    # The value: asked for before the first move, then shown after each board until hidden.
    assert lines[lines.index("your move (X): value") + 1] == "value: a draw with perfect play"
    assert lines[boards[1] + 5].startswith("value: ")
    assert not any(line.startswith("value: ") for line in lines[boards[2]:])
    assert f"moves: 1. b2 {replies[0]}" in lines
    position = game.start()
    for move in ["b2", replies[0], "a1", replies[1]]:
        position = position.play(game.parse_move(move))
    assert lines[boards[2] + 4] == f"position: {position}"


def shuffled_game(db_3mm, monkeypatch, start: str) -> list[str]:
    """The transcript's lines of a three men's morris game from ``start`` (White a1, c2,
    b3 and Black c1, a2, c3, all placed) where the human, White, shuffles a1-b1-a1 and
    the computer (a stand-in) a2-a3-a2: the start stands again every 4 plies."""
    import retro.play as play

    def shuffle(db, position, rng=None):
        return db.game.parse_move("a2-a3" if position.black >> 3 & 1 else "a3-a2")

    monkeypatch.setattr(play, "computer_move", shuffle)
    out = io.StringIO()
    with open_database(db_3mm) as db:
        assert play.play_game(db, "white", start, input_stream=io.StringIO("a1-b1\nb1-a1\n" * 5),
                              output_stream=out, strict=True) == 0
    return out.getvalue().splitlines()


def test_a_position_standing_three_times_is_a_draw(db_3mm, monkeypatch):
    lines = shuffled_game(db_3mm, monkeypatch, "W 0 0 W.B B.W .WB")
    assert lines[-2] == "A draw: the same position has stood 3 times."
    assert lines[-1] == "moves: 1. a1-b1 a2-a3 2. b1-a1 a3-a2 3. a1-b1 a2-a3 4. b1-a1 a3-a2"


def test_the_score_numbers_full_moves():
    from retro import games

    game = games.get("tic-tac-toe")
    x, o = game.sides
    assert score([(x, "b2"), (o, "a1"), (x, "c3")], x) == "1. b2 a1 2. c3"
    assert score([(o, "a1"), (x, "c3")], x) == "1. ... a1 2. c3"


def test_a_draw_by_the_human_s_own_move_shows_its_board_and_the_score_numbers_white(db_3mm,
                                                                                     monkeypatch):
    # Black (the computer) to move first: the human's move brings the start back, and
    # the third time ends the game on the human's move.
    start = "B 0 0 W.B B.W .WB"
    lines = shuffled_game(db_3mm, monkeypatch, start)
    assert lines[-10:-2] == ["    a   b   c",
                             " 1 [W]-[.]--B",
                             "    |   |   |",
                             " 2  B---.---W",
                             "    |   |   |",
                             " 3  .---W---B",
                             "in hand: White 0, Black 0", f"position: {start}"]
    assert lines[-2] == "A draw: the same position has stood 3 times."
    assert lines[-1] == "moves: 1. ... a2-a3 2. a1-b1 a3-a2 3. b1-a1 a2-a3 4. a1-b1 a3-a2 5. b1-a1"


def test_a_hint_in_a_drawn_position_reads_as_a_sentence(db_ttt):
    """Issue 23, item 17: the hint's words fit a draw too ("then a draw with perfect
    play", not "after which a draw"). Every first move of tic-tac-toe draws, as the
    README's table (and any minimax) says."""
    code, out = run(db_ttt, "hint\nquit\n", human="X")
    hints = [line for line in out.splitlines() if line.startswith("hint: ")]
    assert code == 0 and len(hints) == 1
    assert hints[0].endswith(", then a draw with perfect play"), hints[0]
