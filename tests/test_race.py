"""The four-player race (issue 26): every position of both variants against the plain
solver of tests/race_oracle.py, the report's max^n tree, the notation, the perfect
player and the command line."""

from __future__ import annotations

import json

import h5py
import numpy as np
import pytest

import race_oracle as oracle
from retro import games, open_database
from retro.cli import main
from retro.errors import IllegalMoveError, MoveSyntaxError, NotationError, PositionError, SideError
from retro.games.race import Position, Side
from retro.values import PlayerValue

VARIANTS = ["", "jump"]


@pytest.fixture(scope="module")
def race_files(db_race, db_race_jump):
    return {"": db_race, "jump": db_race_jump}


def entry_of(position) -> int:
    """The file's entry of a position, from the index the game documents: mover * 16**4
    + s1 * 16**3 + s2 * 16**2 + s3 * 16 + s4, a square numbered 4 * (row - 1) + column."""
    mover, squares = position
    entry = mover
    for column, row in squares:
        entry = entry * 16 + 4 * (row - 1) + (column - 1)
    return entry


def stored_value(code: int):
    """A stored byte as the oracle writes a value (the player's game: odd, it wins)."""
    return ("draw", None) if code == 255 else ("win" if code & 1 else "loss", code >> 1)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_position_and_every_player_against_the_plain_solver(race_files, variant, capsys):
    """Every legal position of the variant, each player's value, read from the file's
    tiers by the documented index; every other entry is marked not a position; the
    perfect player and the probe answer against the same reference."""
    expected = oracle.solve(variant == "jump")
    # At most one player can force a win anywhere (a check of the reference too).
    assert all(sum(v[0] == "win" for v in values) <= 1 for values in expected.values())
    with h5py.File(race_files[variant], "r") as f:
        tiers = [f[f"tiers/player_{k}"][:] for k in range(1, 5)]
    entries = np.array([entry_of(p) for p in expected], dtype=np.int64)
    wrong = [(oracle.text(p), values) for p, values, entry in zip(expected, expected.values(), entries.tolist())
             if tuple(stored_value(int(t[entry])) for t in tiers) != values]
    assert not wrong, wrong[:5]
    others = np.ones(len(tiers[0]), dtype=bool)
    others[entries] = False
    assert all((t[others] == 254).all() for t in tiers)  # not a position
    with open_database(race_files[variant]) as db:
        assert db.game.positions() == len(expected)
        check_the_perfect_player(db, expected, variant == "jump")
    check_the_probe_answer(race_files[variant], expected, capsys)
    check_the_analysis(race_files[variant], expected)


def check_the_analysis(path, expected):
    """`retro analyze`'s counts per player, by the reference's values."""
    from retro.analyze import analyze

    report = analyze(path, progress=False, reach=False)
    for k, row in enumerate(report["players"].values()):
        for part, keep in (("all", lambda p: True), ("to_move", lambda p: p[0] == k),
                           ("others_to_move", lambda p: p[0] != k)):
            counts = {"wins": 0, "losses": 0, "draws": 0}
            for position, values in expected.items():
                if keep(position):
                    counts[{"win": "wins", "loss": "losses", "draw": "draws"}[values[k][0]]] += 1
            assert row[part] == counts, (k, part)
        longest = max((values[k][1] for values in expected.values() if values[k][0] == "win"), default=None)
        assert (row["longest_win"] or {}).get("plies") == longest


def check_the_perfect_player(db, expected, jump):
    """A player with a forced win takes a fastest one; otherwise, where it can, a move
    after which no player can force a win (sampled positions)."""
    checked = 0
    for position, values in list(expected.items())[::53]:
        p = db._position(oracle.text(position))
        if p.is_over():
            continue
        mover = position[0]
        move = str(db.best_move(p))
        after = expected[oracle.play(position, (position[1][mover], target_of(move)))]
        kids = [expected[oracle.play(position, m)] for m in oracle.moves(position, jump)]
        if values[mover][0] == "win":
            assert after[mover] == ("win", values[mover][1] - 1), oracle.text(position)
        elif any(all(v[0] != "win" for v in kid) for kid in kids):
            assert all(v[0] != "win" for v in after), oracle.text(position)
        else:  # every move lets another player win: the slowest such win
            assert after_win(after) == max(after_win(kid) for kid in kids), oracle.text(position)
        checked += 1
    assert checked > 1000


def after_win(values) -> int:
    return next(n for r, n in values if r == "win")


def target_of(move: str):
    square = move.split("-")[1]
    return ("abcd".index(square[0]) + 1, int(square[1]))


def check_the_probe_answer(path, expected, capsys):
    start = (0, oracle.HOMES)
    as_json = lambda values: {f"P{k + 1}": {"result": r, "plies": n} for k, (r, n) in enumerate(values)}
    assert main(["probe", "--db", str(path), "--json", "P1 a1 d1 d4 a4"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["to_move"] == "P1" and answer["game"].startswith("four-player-race")
    assert answer["values"] == as_json(expected[start])
    assert {m["move"] for m in answer["moves"]} == {"a1-b1", "a1-a2"}
    for move in answer["moves"]:
        after = oracle.play(start, ((1, 1), target_of(move["move"])))
        assert move["position"] == oracle.text(after) and move["values"] == as_json(expected[after])
    assert main(["probe", "--db", str(path), "P1 a1 d1 d4 a4"]) == 0
    codes = " ".join("D" if r == "draw" else f"{r[0].upper()}{n}" for r, n in expected[start])
    assert capsys.readouterr().out.splitlines()[1].startswith(codes + " -> [")


def test_the_report_s_max_n_tree(capsys):
    """The report: 19,068 states without jumps, 24,929 repeated, the root {P1: 220, P2:
    330, P3: 440, P4: 500}; retro's tree and the plain one agree in both variants."""
    for variant in VARIANTS:
        value, states, repeated = oracle.maxn_tree(variant == "jump")
        args = ["solve", "--method", "maxn", "--json", "--game", "four-player-race", "P1 a1 d1 d4 a4"]
        assert main(args + (["--variant", variant] if variant else [])) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["value"] == dict(zip(["P1", "P2", "P3", "P4"], value))
        assert (result["states"], result["repeated"]) == (states, repeated)
        if not variant:
            assert value == (220, 330, 440, 500) and (states, repeated) == (19068, 24929)


def test_other_utilities_change_the_max_n_value(capsys):
    vectors = ((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1))
    value, _, _ = oracle.maxn_tree(False, vectors)
    assert main(["solve", "--method", "maxn", "--json", "--utilities", "1,0,0,0/0,1,0,0/0,0,1,0/0,0,0,1",
                 "P1 a1 d1 d4 a4"]) == 0
    assert tuple(json.loads(capsys.readouterr().out)["value"].values()) == value
    for bad, words in (("1,2,3,4/5,6,7,8", "needs 4 vectors"), ("1,2,3/1,2,3/1,2,3/1,2,3", "has 3 numbers"),
                       ("a,b,c,d/1,2,3,4/1,2,3,4/1,2,3,4", "is not 4 whole numbers")):
        assert main(["solve", "--method", "maxn", "--utilities", bad, "P1 a1 d1 d4 a4"]) == 2
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1


@pytest.mark.parametrize("text, words", [
    ("P1 a1 a1 d4 a4", "players 1 and 2 both stand on a1"),
    ("P1 a1 d1 d4 e5", "player 4's square 'e5' is not a square of the 4x4 board"),
    ("P1 a1 d1 d4", "3 squares after the player to move"),
    ("P5 a1 d1 d4 a4", "unknown side to move 'P5': expected P1, P2, P3 or P4"),
    ("P2 d4 a4 b2 c2", "players 1 and 2 both stand on their goals"),
    ("P3 d4 b1 b2 c2", "player 1 stands on its goal d4 but player 2 moved last"),
    ("", "empty position"),
])
def test_every_illegal_position_gets_one_line_naming_the_problem(text, words, capsys):
    with pytest.raises(PositionError, match=words):
        games.get("four-player-race").parse(text)
    assert main(["probe", "--game", "four-player-race", text]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "Traceback" not in err


def test_notation_round_trips_and_forgives():
    game = games.get("four-player-race")
    start = game.parse("p1_A1_d1_D4_a4")
    assert str(start) == "P1 a1 d1 d4 a4" and start == game.start()
    assert games.identify("P1 a1 d1 d4 a4") == (game, start)
    assert game.parse_move("A1B1") == game.parse_move("a1 - b1") == game.parse_move("a1_b1")
    with pytest.raises(MoveSyntaxError):
        game.parse_move("a1-e1")
    with pytest.raises(SideError):
        Position("P1", 0, 3, 15, 12)
    with pytest.raises(TypeError, match="the p2 of a position must be an int, not float"):
        Position(Side.P1, 0, 3.0, 15, 12)


def test_moves_steps_and_jumps_as_the_rules_say():
    plain, jump = games.get("four-player-race"), games.get("four-player-race", "jump")
    # Player 1 on b2 with Player 2 on c2 beside it, d2 empty: a jump only in the variant.
    text = "P1 b2 c2 d4 a4"
    assert {str(m) for m in plain.parse(text).legal_moves()} == {"b2-a2", "b2-b1", "b2-b3"}
    assert {str(m) for m in jump.parse(text).legal_moves()} == {"b2-a2", "b2-b1", "b2-b3", "b2-d2"}
    for variant, game in (("", plain), ("jump", jump)):
        for p in [(0, ((2, 2), (3, 2), (4, 4), (1, 4))), (1, ((1, 2), (4, 1), (3, 1), (1, 4)))]:
            assert ({str(m) for m in game.parse(oracle.text(p)).legal_moves()}
                    == {f"{oracle.name(a)}-{oracle.name(b)}" for a, b in oracle.moves(p, variant == "jump")})
    with pytest.raises(IllegalMoveError, match="may go from b2 to"):
        plain.parse(text).play("b2-d2")
    with pytest.raises(IllegalMoveError, match="stands on b2, not a1"):
        plain.parse(text).play("a1-a2")
    # Player 1 reaches d4: the game is over, Player 1 has won.
    won = plain.parse("P1 c4 a3 b1 a4").play("c4-d4")
    assert won.is_over() and won.winner() is Side.P1 and not won.legal_moves()
    with pytest.raises(IllegalMoveError, match="the game is over"):
        won.play("a3-a2")


def test_a_player_value_in_words():
    assert str(PlayerValue(Side.P2, "win", 3)) == "Player 2 wins in 3 plies"
    assert str(PlayerValue(Side.P4, "loss", 0)) == "Player 4 has lost"
    assert PlayerValue(Side.P1, "draw", None).code() == "D"


def test_verify_proves_both_variants_and_catches_a_wrong_value(race_files, tmp_path, capsys):
    for path in race_files.values():
        assert main(["verify", str(path)]) == 0
        assert "the database is correct" in capsys.readouterr().out
    # A value two plies off, behind a recomputed SHA-256: only the proof finds it.
    bad = tmp_path / "bad.h5"
    bad.write_bytes(race_files[""].read_bytes())
    from retro.db.hdf5io import digest

    start = entry_of((0, oracle.HOMES))
    with h5py.File(bad, "r+") as f:
        dataset = f["tiers/player_3"]
        values = dataset[:]
        values[start] += 2
        dataset[:] = values
        dataset.attrs["sha256"] = digest(values)
    assert main(["verify", str(bad)]) == 1
    out = capsys.readouterr().out
    assert "P1 a1 d1 d4 a4: stored 'Player 3 loses in " in out and "NOT correct" in out


def test_what_the_race_refuses_says_why_in_one_line(race_files, tmp_path, capsys):
    for args, words in (
        (["export", "--wdl", str(race_files[""]), "--out", str(tmp_path / "x.h5")], "covers two-sided games"),
        (["crosscheck", "--db", str(race_files[""]), "--samples", "5"], "no weak solver here"),
        (["solve", "--method", "dfpn", "P1 a1 d1 d4 a4"], "is searched by --method maxn"),
        (["play", "--db", str(race_files[""]), "--as", "P5"], "'P5' is not a side of Four-player race"),
        (["probe", "--variant", "jump", "P1 a1 d1 d4 a4"], "--variant needs --game"),
    ):
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert words in err and err.count("\n") == 1 and "Traceback" not in err, err
    assert not (tmp_path / "x.h5").exists()
