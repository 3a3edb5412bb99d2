"""Misuse of the command line's newer parts: outputs that are not regular files, options
past any sensible bound, agents that misbehave, notations with garbage, the help texts.
Every case is one line on standard error and exit status 2, with nothing written."""

from __future__ import annotations

import json
import os
import re
import socket
import stat
import sys
from pathlib import Path

import h5py
import numpy as np
import pytest

from retro import games, open_database
from retro.cli import main
from retro.errors import OutputPathError, PositionError
from retro.outputs import check_output, write_atomically
from retro.values import not_a_position

RACE_START = "P1 a1 d1 d4 a4"


def one_line(err: str, *words: str) -> None:
    assert err.startswith("retro") and ": error: " in err and err.count("\n") == 1, err
    assert "Traceback" not in err
    for word in words:
        assert word in err, err


# --- 1. one guard for every file written ----------------------------------------------


def _things_in_the_way(folder: Path) -> dict[str, Path]:
    """A symbolic link (to a regular file), a named pipe, a socket and a directory."""
    target = folder / "target.bin"
    target.write_bytes(b"keep me")
    link = folder / "link.h5"
    link.symlink_to(target)
    pipe = folder / "pipe.h5"
    os.mkfifo(pipe)
    sock = folder / "sock.h5"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    server.close()
    directory = folder / "dir.h5"
    directory.mkdir()
    return {"link": link, "pipe": pipe, "socket": sock, "directory": directory}


def _mode(path: Path) -> int:
    return os.lstat(path).st_mode


def test_the_guard_refuses_everything_but_a_regular_file_or_nothing(tmp_path):
    for kind, path in _things_in_the_way(tmp_path).items():
        with pytest.raises(OutputPathError) as caught:
            check_output(path, "--out")
        assert str(path) in str(caught.value) and "\n" not in str(caught.value), kind
        before = _mode(path)
        with pytest.raises(OutputPathError):
            write_atomically(b"x", path)
        assert _mode(path) == before, kind  # not replaced
    with pytest.raises(OutputPathError):
        check_output("/dev/null")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    with pytest.raises(OutputPathError, match="does not exist"):
        check_output(tmp_path / "missing" / "x.h5")
    assert check_output(tmp_path / "new.h5") == tmp_path / "new.h5"
    (tmp_path / "old.h5").write_bytes(b"old")
    write_atomically(b"new", tmp_path / "old.h5")
    assert (tmp_path / "old.h5").read_bytes() == b"new"
    assert (tmp_path / "target.bin").read_bytes() == b"keep me"  # the link's target untouched


def test_export_force_replaces_no_device_link_or_pipe(db_9mm3, tmp_path, retro):
    for kind, path in [*_things_in_the_way(tmp_path).items(), ("device", Path("/dev/null"))]:
        before = _mode(path)
        code, out, err = retro("export", "--wdl", db_9mm3, "--out", path, "--force", "--quiet")
        assert code == 2, (kind, out, err)
        one_line(err, str(path))
        assert _mode(path) == before, kind
    assert (tmp_path / "target.bin").read_bytes() == b"keep me"
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_export_refuses_a_temporary_file_that_is_a_link(db_9mm3, tmp_path, retro):
    out = tmp_path / "x.h5"
    (tmp_path / "elsewhere").write_bytes(b"keep me")
    (tmp_path / "x.h5.tmp").symlink_to(tmp_path / "elsewhere")
    code, _, err = retro("export", "--wdl", db_9mm3, "--out", out, "--quiet")
    assert code == 2
    one_line(err, "x.h5.tmp")
    assert (tmp_path / "elsewhere").read_bytes() == b"keep me" and not out.exists()


def test_chart_folders_and_charts_go_through_the_guard(db3, db_ttt, tmp_path, retro):
    pytest.importorskip("matplotlib")
    things = _things_in_the_way(tmp_path)
    for kind in ("link", "pipe", "socket"):
        code, _, err = retro("analyze", db3, "--plot", things[kind], "--quiet")
        assert code == 2, kind
        one_line(err, "--plot")
    # a chart whose file is a link: refused, and the link's target kept
    charts = tmp_path / "charts"
    charts.mkdir()
    (charts / "musketeer_share.png").symlink_to(tmp_path / "target.bin")
    code, _, err = retro("analyze", db3, "--plot", charts, "--quiet")
    assert code == 2
    one_line(err, "musketeer_share.png")
    assert (tmp_path / "target.bin").read_bytes() == b"keep me"
    # the evaluator's chart folder too
    code, _, err = retro("evaluate", "examples.agents:first", "--db", db_ttt, "--games", "1",
                         "--plot", things["pipe"])
    assert code == 2
    one_line(err, "--plot")


def test_analyze_plot_of_a_game_without_charts_fails_before_the_analysis(db_ttt, tmp_path, retro):
    code, _, err = retro("analyze", db_ttt, "--plot", tmp_path / "charts", "--quiet")
    assert code == 2
    one_line(err, "--plot", "tic-tac-toe")
    assert not (tmp_path / "charts").exists()


# --- 4 and 9: numbers past any sensible bound ---------------------------------------


@pytest.mark.parametrize("args", [
    ["export", "--wdl", "--game", "tic-tac-toe", "--threads", "1000"],
    ["export", "--wdl", "--game", "tic-tac-toe", "--threads", "0"],
    ["build", "--game", "tic-tac-toe", "--threads", "1000"],
    ["build", "--game", "tic-tac-toe", "--cluster", "local", "--workers", "1000"],
    ["crosscheck", "--workers", "1000"],
    ["crosscheck", "--samples", "-5"],
    ["evaluate", "examples.agents:first", "--game", "tic-tac-toe", "--seed", "-1"],
    ["evaluate", "examples.agents:first", "--game", "tic-tac-toe", "--games", "0"],
    ["play", "--game", "tic-tac-toe", "--seed", "-1"],
])
def test_numbers_out_of_bounds_name_their_option(args, retro, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = retro(*args)
    assert code == 2
    option = next(a for a in args if a in ("--threads", "--workers", "--samples", "--seed",
                                           "--games", "--max-reports"))
    assert err.count("\n") == 1 and option in err and "Traceback" not in err, err
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("pieces", [",3", "-3", "3,", "5,,4", "3 ,", ",", "--3"])
def test_malformed_piece_counts_are_refused(pieces, retro):
    code, _, err = retro("probe", f"--pieces={pieces}", "W 3 3 ... ... ... ...... ... ... ...")
    assert code == 2
    one_line(err, "variant")


@pytest.mark.parametrize("pieces, white, black", [("5,4", 5, 4), ("5-4", 5, 4), (" 5 _ 4 ", 5, 4),
                                                  ("4,4", 4, 4), ("3", 3, 3)])
def test_piece_counts_written_every_forgiving_way_still_read(pieces, white, black):
    game = games.get("nine-mens-morris", pieces)
    assert (game.white_pieces, game.black_pieces) == (white, black)


# --- 10: messages that named the wrong thing ----------------------------------------


def test_garbage_after_the_race_squares_names_no_fifth_player():
    race = games.get("four-player-race")
    for text in (RACE_START + " zz\x00", RACE_START + " b2\u200b"):
        with pytest.raises(PositionError) as caught:
            race.parse(text)
        message = str(caught.value)
        assert "player 5" not in message and "after the 4 players' squares" in message, message


# --- 5 and 16: agents ----------------------------------------------------------------


AGENTS = '''
import numpy as np

def raises(observation, legal):
    raise RuntimeError("the model is not loaded")

def a_list(observation, legal):
    return [legal[0]]

def a_float(observation, legal):
    return float(legal[0])

def too_many(observation, legal, temperature):
    return legal[0]

def numpy_int(observation, legal):
    return np.int64(legal[-1])

NOT_CALLABLE = 3
'''


@pytest.fixture
def agents_file(tmp_path):
    path = tmp_path / "my agents.py"  # a file anywhere, a space in its name
    path.write_text(AGENTS)
    return path


@pytest.mark.parametrize("name, words", [
    ("raises", ["my agents.py:raises", "RuntimeError: the model is not loaded", "X "]),
    ("a_list", ["a_list", "returned list"]),
    ("a_float", ["a_float", "returned float"]),
    ("too_many", ["too_many", "temperature", "agent(observation, legal_actions)"]),
    ("NOT_CALLABLE", ["NOT_CALLABLE", "int, not a function"]),
    ("missing", ["has no function 'missing'"]),
])
def test_an_agent_that_misbehaves_is_one_line_naming_it(name, words, agents_file, db_ttt, retro):
    code, out, err = retro("evaluate", f"{agents_file}:{name}", "--db", db_ttt, "--games", "2")
    assert code == 2, out + err
    one_line(err, *words)


def test_an_agent_from_a_file_anywhere_is_evaluated(agents_file, db_ttt, retro, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # not the checkout: examples.agents is not importable here
    code, out, err = retro("evaluate", f"{agents_file}:numpy_int", "--db", db_ttt, "--games", "2",
                           "--opponent", "random", "--json")
    assert code == 0, err
    assert '"moves"' in out


def test_the_checkout_examples_are_found_by_file(db_ttt, retro, tmp_path, monkeypatch):
    examples = Path(__file__).resolve().parent.parent / "examples" / "agents.py"
    monkeypatch.chdir(tmp_path)
    code, _, err = retro("evaluate", f"{examples}:uniform", "--db", db_ttt, "--games", "1",
                         "--opponent", "random")
    assert code == 0, err


def test_export_without_a_database_asks_for_one(retro):
    code, _, err = retro("export", "--wdl")
    assert code == 2
    one_line(err, "PATH", "--game", "tic-tac-toe", "nine-mens-morris")
    assert "three-musketeers" not in err and "four-player-race" not in err


# --- 13: the help -------------------------------------------------------------------


def test_the_help_names_every_game_and_every_notation(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    top = capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["probe", "--help"])
    probe = capsys.readouterr().out
    for name in games.GAMES:
        game = games.get(name)
        assert game.title.split(" (")[0] in " ".join(top.split()), name
        assert str(game.start()) in " ".join(probe.split()) or game.notation.split("'")[1] in probe, name
    usage = probe.split("\n\n")[0]
    assert "[POSITION]" in usage and "POSITION ..." not in usage


def test_analyze_help_is_not_only_three_musketeers(capsys):
    with pytest.raises(SystemExit):
        main(["analyze", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "per tier" in text and "enemy men" in text


def test_the_mcts_example_refuses_its_outputs_before_playing(db_ttt, tmp_path, capsys):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "examples"))
    try:
        import mcts
    finally:
        sys.path.pop(0)
    pipe = tmp_path / "report.json"
    os.mkfifo(pipe)
    for option, path in (("--json", pipe), ("--plot", pipe)):
        with pytest.raises(SystemExit) as caught:
            mcts.main(["--game", "tic-tac-toe", "--db", str(db_ttt), option, str(path)])
        assert caught.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and option in err and "named pipe" in err, err


# --- 14: verify counts positions and table entries ------------------------------------


@pytest.mark.parametrize("fixture", ["db_ttt", "db_race", "db_3mm", "db_9mm3"])
def test_verify_counts_positions_and_table_entries_as_games_does(fixture, request, retro):
    path = request.getfixturevalue(fixture)
    with h5py.File(path, "r") as f:  # the file's own values: slots holding no position aside
        stored, entries = 0, 0
        def visit(name, item):
            nonlocal stored, entries
            if isinstance(item, h5py.Dataset) and item.dtype.kind == "u" and item.ndim >= 1:
                values = item[()]
                stored += values.size
                entries += int(np.count_nonzero(values != not_a_position(values.dtype.type)))
        f.visititems(visit)
    code, out, _ = retro("verify", path, "--quiet")
    assert code == 0
    _, listed, _ = retro("games", "--json")
    with open_database(path) as db:
        name, variant = db.game.name, db.game.variant
    positions = next(r["positions"] for r in json.loads(listed)
                     if r["game"] == name and r["variant"] == variant)
    line = next(line for line in out.splitlines() if "checked against their children" in line)
    copies = re.search(r"([\d,]+) entries holding a symmetric copy", line)
    copies = int(copies.group(1).replace(",", "")) if copies else 0
    assert line.startswith(f"{positions:,} positions in {entries - copies:,} table entries"), line
    if stored > entries:
        assert f"{stored - entries:,} slots of no position" in line
    assert "stored values" not in out
