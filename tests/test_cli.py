"""The command line: retro build, retro probe, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from retro import Position, open_database
from retro.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_build_and_probe(tmp_path, capsys):
    out = tmp_path / "3x3.h5"
    code, stdout, _ = run(capsys, "build", "--board", "3", "--out", str(out), "--quiet")
    assert code == 0
    assert "built" in stdout and "2,048 positions" in stdout and "MB" in stdout
    start = str(Position.start(3))
    code, stdout, _ = run(capsys, "probe", "--db", str(out), "--json", start)
    assert code == 0
    with open_database(out) as db:
        expected = db.probe(Position.start(3))
    assert json.loads(stdout) == {"winner": expected.winner.value, "plies": expected.plies}
    code, stdout, _ = run(capsys, "probe", "--db", str(out), start)
    assert code == 0 and start in stdout and expected.winner.value in stdout

    code, stdout, _ = run(capsys, "build", "--board", "3", "--out", str(out))
    assert code == 0 and "already built" in stdout


@pytest.mark.parametrize(
    "argv, words",
    [
        (["probe", "--db", "{tmp}/missing.h5", "M XXO XOX OXX"], "retro build --board 3"),
        (["probe", "--db", "{db3}", "M XXO XOX OX"], "row 3 has 2 squares"),
        (["probe", "--db", "{db3}", "Z XXO XOX OXX"], "unknown side"),
        (["probe", "--db", "{db3}", "M XXXO XXXX XXOX OXXX"], "4x4 board"),
        (["probe", "--db", "{tmp}/junk.h5", "M XXO XOX OXX"], "not an HDF5 file"),
        (["build", "--board", "3", "--max-guards", "7", "--out", "{tmp}/x.h5"], "between 0 and 6"),
        (["build", "--board", "3", "--threads", "99", "--out", "{tmp}/x.h5"], "--threads"),
        (["build", "--board", "3", "--out", "{tmp}/junk.h5"], "not a retro database"),
    ],
)
def test_errors_are_one_line_with_status_2(tmp_path, db3, capsys, argv, words):
    (tmp_path / "junk.h5").write_text("junk")
    argv = [a.format(tmp=tmp_path, db3=db3) for a in argv]
    code, stdout, stderr = run(capsys, *argv)
    assert code == 2
    assert stderr.count("\n") == 1 and stderr.startswith("retro: error: ") and words in stderr
    assert stdout == ""
    assert (tmp_path / "junk.h5").read_text() == "junk"


def test_usage_errors_exit_2_without_traceback():
    for argv in (["frobnicate"], ["build", "--board", "7"], ["probe"]):
        result = subprocess.run([sys.executable, "-m", "retro.cli", *argv],
                                capture_output=True, text=True)
        assert result.returncode == 2, argv
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_help_explains_each_command():
    for argv in (["--help"], ["build", "--help"], ["probe", "--help"]):
        result = subprocess.run([sys.executable, "-m", "retro.cli", *argv],
                                capture_output=True, text=True)
        assert result.returncode == 0
        assert "usage: retro" in result.stdout
    build_help = subprocess.run([sys.executable, "-m", "retro.cli", "build", "--help"],
                                capture_output=True, text=True).stdout
    for option in ("--board", "--out", "--max-guards", "--threads", "resume"):
        assert option in build_help
