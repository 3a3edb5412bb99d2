"""The command line: retro build, retro probe, and one-line errors."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest

from retro import Position, Side, open_database
from retro.cli import main


def run(capsys, *argv) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exit:  # argparse refuses a bad option value itself
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def test_build_and_probe(tmp_path, capsys):
    out = tmp_path / "3x3.h5"
    code, stdout, _ = run(capsys, "build", "--board", "3", "--out", str(out), "--quiet")
    assert code == 0
    assert f"built {out.resolve()}: 2,048 positions" in stdout
    kilobytes = out.stat().st_size / 1000  # a small file in kB, not "0.0 MB"
    assert f"{kilobytes:.1f} kB" in stdout and " M positions/s" not in stdout
    assert re.search(r"\(\d[\d,]* positions/s\)", stdout)
    assert f"--db {out.resolve()}" in stdout  # not in the folders searched: how to name it
    start = str(Position.start(3))
    code, stdout, _ = run(capsys, "probe", "--db", str(out), "--json", start)
    assert code == 0
    position = Position.start(3)
    with open_database(out) as db:
        expected = db.probe(position)
        after = {str(m): db.probe(position.play(m)) for m in position.legal_moves()}
    answer = json.loads(stdout)
    assert answer["position"] == start
    assert (answer["winner"], answer["plies"]) == (expected.winner.value, expected.plies)
    assert {m["move"]: (m["winner"], m["plies"]) for m in answer["moves"]} == {
        move: (o.winner.value, o.plies) for move, o in after.items()}
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
        (["build", "--board", "3", "--max-enemy-men", "7", "--out", "{tmp}/x.h5"], "between 0 and 6"),
        (["build", "--board", "3", "--threads", "99", "--out", "{tmp}/x.h5"], "--threads"),
        (["build", "--board", "3", "--out", "{tmp}/junk.h5"], "not a retro database"),
    ],
)
def test_errors_are_one_line_with_status_2(tmp_path, db3, capsys, argv, words):
    (tmp_path / "junk.h5").write_text("junk")
    argv = [a.format(tmp=tmp_path, db3=db3) for a in argv]
    code, stdout, stderr = run(capsys, *argv)
    assert code == 2
    assert stderr.count("\n") == 1 and words in stderr
    assert stderr.startswith(("retro: error: ", f"retro {argv[0]}: error: "))  # ours, argparse's
    assert stdout == ""
    assert (tmp_path / "junk.h5").read_text() == "junk"


def test_usage_errors_exit_2_without_traceback():
    for argv in (["frobnicate"], ["build", "--board", "7"], ["probe", "--bogus"], ["solve"]):
        result = subprocess.run([sys.executable, "-m", "retro.cli", *argv],
                                capture_output=True, text=True)
        assert result.returncode == 2, argv
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_help_explains_each_command(capsys):
    # The console entry point once in a process of its own; each command's help in this one.
    result = subprocess.run([sys.executable, "-m", "retro.cli", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "usage: retro" in result.stdout
    commands = ["build", "probe", "play", "verify", "analyze", "solve", "crosscheck"]
    helps = {}
    for name in commands:
        with pytest.raises(SystemExit) as exit_:
            main([name, "--help"])
        assert exit_.value.code == 0
        helps[name] = capsys.readouterr().out
        assert helps[name].startswith(f"usage: retro {name}")
    for option in ("--board", "--out", "--max-enemy-men", "--threads", "resume"):
        assert option in helps["build"]


def test_probe_reads_positions_from_standard_input(db4):
    lines = "M XXXO XXXX XXOX OXXX\nnot a position\n\nE XXXO XXXX XXOX OXX.\n"
    result = subprocess.run([sys.executable, "-m", "retro.cli", "probe", "--db", str(db4), "--json"],
                            input=lines, capture_output=True, text=True)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 1  # one line could not be answered; the others were
    assert [a.get("error") is None for a in answers] == [True, False, True]
    with open_database(db4) as db:
        for answer in (answers[0], answers[2]):
            outcome = db.probe(Position.parse(answer["position"]))
            assert (answer["winner"], answer["plies"]) == (outcome.winner.value, outcome.plies)
    assert "not a position" in answers[1]["position"] and answers[1]["error"]


class _Player(io.StringIO):
    """Standard input that answers each prompt with a legal move for the position shown."""

    def __init__(self, screen: io.StringIO, choose):
        super().__init__()
        self.screen, self.choose, self.moves = screen, choose, []

    def readline(self, *args) -> str:
        shown = [line for line in self.screen.getvalue().splitlines() if line.startswith("position: ")]
        move = self.choose(Position.parse(shown[-1].removeprefix("position: ")))
        self.moves.append(str(move))
        return f"{move}\n"

    def isatty(self) -> bool:
        return False


@pytest.mark.parametrize("side", ["musketeers", "enemy"])
def test_play_a_game_to_the_end(db4, monkeypatch, side):
    """A full game on 4x4, then the same moves again through a real pipe."""
    screen = io.StringIO()
    # The human plays the first legal move (often a poor one) to reach the end quickly.
    player = _Player(screen, lambda position: position.legal_moves()[0])
    monkeypatch.setattr(sys, "stdin", player)
    monkeypatch.setattr(sys, "stdout", screen)
    code = main(["play", "--db", str(db4), "--as", side, "--seed", "7"])
    monkeypatch.undo()
    transcript = screen.getvalue()
    assert code == 0
    final = Position.parse([line for line in transcript.splitlines()
                            if line.startswith("position: ")][-1].removeprefix("position: "))
    verdict = "You win: " if final.winner() is Side(side) else "You lose: "
    assert transcript.splitlines()[-2].startswith(verdict)
    assert player.moves and "The computer plays " in transcript
    replay = subprocess.run([sys.executable, "-m", "retro.cli", "play", "--db", str(db4),
                             "--as", side, "--seed", "7"],
                            input="".join(f"{m}\n" for m in player.moves),
                            capture_output=True, text=True)
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.splitlines()[-1] == transcript.splitlines()[-1]


def test_play_rejects_an_illegal_scripted_move(db3):
    result = subprocess.run([sys.executable, "-m", "retro.cli", "play", "--db", str(db3)],
                            input="a1-c3\n", capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.startswith("retro: error: ") and result.stderr.count("\n") == 1


def test_verify_and_analyze(db4, tmp_path, capsys):
    code, stdout, _ = run(capsys, "verify", str(db4), "--quiet")
    assert code == 0 and "the database is correct" in stdout
    code, stdout, _ = run(capsys, "analyze", str(db4), "--quiet", "--json",
                          "--plot", str(tmp_path / "charts"))
    report = json.loads(stdout)
    for side in ("musketeers_to_move", "enemy_to_move"):
        for key in ("entries", "distinct", "longest"):
            assert set(report["sides"][side][key]) == {"musketeers", "enemy"}
        assert report["sides"][side]["reachable_distinct"] > 0
    assert sorted(p.name for p in (tmp_path / "charts").iterdir()) == [
        "musketeer_share.png", "plies_histogram.png"]
    code, stdout, _ = run(capsys, "analyze", str(db4), "--quiet")
    assert code == 0 and "reachable from" in stdout


def test_solve_agrees_with_the_database(db4, capsys):
    start = str(Position.start(4))
    with open_database(db4) as db:
        expected = db.probe(Position.start(4))
    for method in ("dfpn", "alphabeta"):
        code, stdout, _ = run(capsys, "solve", "--method", method, "--exact", "--json",
                              "--table-bits", "20", start)
        assert code == 0
        answer = json.loads(stdout)
        assert (answer["winner"], answer["plies"]) == (expected.winner.value, expected.plies)
        assert len(answer["line"]) == expected.plies and answer["stats"]["nodes"] > 0
        assert answer["method"] == method
    code, stdout, _ = run(capsys, "solve", start)  # df-pn by default, with its proof's size
    assert code == 0 and expected.winner.value in stdout and "df-pn:" in stdout
    assert "proof:" in stdout
    code, stdout, _ = run(capsys, "solve", "--method", "alphabeta", start)
    assert code == 0 and expected.winner.value in stdout and "cut-offs" in stdout
    code, _, stderr = run(capsys, "solve", "--method", "minimax", start)  # argparse's own error
    assert code == 2 and "invalid choice: 'minimax'" in stderr
    code, _, stderr = run(capsys, "solve", "--board", "5", start)
    assert code == 2 and "--board 5" in stderr


def test_crosscheck(db4, capsys):
    code, stdout, _ = run(capsys, "crosscheck", "--db", str(db4), "--samples", "60", "--quiet")
    assert code == 0
    assert "60 positions (30 uniform, 30 games; " in stdout and "0 disagree" in stdout
    assert "by df-pn (winner)" in stdout
    code, stdout, _ = run(capsys, "crosscheck", "--db", str(db4), "--samples", "20", "--quiet",
                          "--method", "alphabeta", "--table-bits", "20", "--workers", "1")
    assert code == 0 and "by alpha-beta (winner)" in stdout and "0 disagree" in stdout


def _damaged_copy(db4, tmp_path):
    """A copy of db4 with one byte of layer 6's first chunk flipped, and a position there."""
    import h5py

    from retro.games.musketeers.layout import LAYER_GROUP

    path = tmp_path / "damaged.h5"
    path.write_bytes(db4.read_bytes())
    with h5py.File(path, "r") as f:
        info = f[LAYER_GROUP]["layer_06"].id.get_chunk_info(0)
        m = int(f["placements"][0])
    with open(path, "r+b") as handle:
        handle.seek(info.byte_offset + info.size // 2)
        byte = handle.read(1)[0]
        handle.seek(info.byte_offset + info.size // 2)
        handle.write(bytes([byte ^ 0xFF]))
    # Enemy to move, placement 0, men on its first 6 free squares: row 0 of layer 6.
    free = [s for s in range(16) if not m >> s & 1]
    return path, Position(Side.ENEMY, m, sum(1 << s for s in free[:6]), 4)


def test_every_database_and_position_error_is_one_line(db4, db5_low, tmp_path, capsys,
                                                       interrupt_at):
    import h5py

    from retro.engine.build import build

    damaged, position = _damaged_copy(db4, tmp_path)
    foreign = tmp_path / "foreign.h5"
    with h5py.File(foreign, "w") as f:
        f["x"] = 1
    unfinished = tmp_path / "unfinished.h5"
    interrupt_at(5)
    with pytest.raises(KeyboardInterrupt):
        build(4, unfinished, progress=False)
    start4 = str(Position.start(4))
    cases = [
        (["probe", "--db", str(damaged), str(position)], "checksum"),
        (["probe", "--db", str(foreign), start4], "not a retro database"),
        (["probe", "--db", str(unfinished), start4], "did not finish"),
        (["probe", "--db", str(db5_low), str(Position.start(5))], "22 enemy men"),
        (["probe", "--db", str(db4), "M XXXO XXXX XXXX OXXX"], "2 musketeers"),
        (["play", "--db", str(db4), "--start", "M XXO XOX OXX"], "3x3 board"),
        (["play", "--db", str(unfinished)], "did not finish"),
    ]
    for argv, words in cases:
        code, stdout, stderr = run(capsys, *argv)
        assert code == 2, argv
        assert stderr.count("\n") == 1 and stderr.startswith("retro: error: "), argv
        assert words in stderr, (argv, stderr)


def test_batch_with_a_bad_database_file_stops_before_reading(tmp_path):
    result = subprocess.run([sys.executable, "-m", "retro.cli", "probe", "--db", str(tmp_path / "no.h5")],
                            input="M XXXO XXXX XXOX OXXX\n", capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "retro build" in result.stderr


def test_a_reader_that_leaves_early_gets_no_traceback(db3):
    lines = "M XXO XOX OXX\n" * 20000
    reader = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.readline()"],
                              stdin=subprocess.PIPE)
    result = subprocess.run([sys.executable, "-c", "from retro.cli import run; run()",
                             "probe", "--db", str(db3)],
                            input=lines, stdout=reader.stdin, stderr=subprocess.PIPE, text=True)
    reader.stdin.close()
    reader.wait()
    assert "Traceback" not in result.stderr and result.returncode in (0, 141)


# --- polish: the command list, help, progress bars, units, names -------------------------


def test_retro_alone_lists_the_commands(capsys):
    assert main([]) == 2
    err = capsys.readouterr().err
    for command in ("games", "build", "probe", "play", "verify", "analyze", "solve", "crosscheck",
                    "serve"):
        assert f"\n    {command}" in err


def test_only_commands_that_take_positions_explain_them(capsys):
    def help_of(command: str) -> str:
        with pytest.raises(SystemExit):
            main([command, "--help"])
        return capsys.readouterr().out

    for command in ("probe", "play", "solve"):
        assert "Positions, by game:" in help_of(command)
    for command in ("games", "build", "verify", "analyze", "crosscheck", "serve"):
        assert "Positions, by game:" not in help_of(command)


def test_no_progress_bar_into_a_pipe(tmp_path):
    result = subprocess.run([sys.executable, "-m", "retro.cli", "build", "--board", "3", "--out",
                             str(tmp_path / "3x3.h5")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stderr and "%|" not in result.stderr and "it/s" not in result.stderr


def test_building_again_says_it_is_built_for_every_game(db3, db_ttt, db_3mm, db_6mm, capsys):
    for argv in (["--board", "3", "--out", str(db3)], ["--game", "tic-tac-toe", "--out", str(db_ttt)],
                 ["--game", "three-mens-morris", "--out", str(db_3mm)],
                 ["--game", "six-mens-morris", "--out", str(db_6mm)]):
        assert main(["build", *argv]) == 0
        assert "is already built" in capsys.readouterr().out


def test_sizes_and_rates_in_units_people_read():
    from retro.units import rate_text, size_text

    assert [size_text(n) for n in (0, 999, 1000, 7_479, 11_264, 1_894_000, 249_867_468,
                                   2_600_000_000, 999_600, 9_960)] == [
        "0 bytes", "999 bytes", "1.0 kB", "7.5 kB", "11 kB", "1.9 MB", "250 MB", "2.6 GB",
        "1.0 MB", "10 kB"]
    assert [rate_text(r) for r in (3_890.4, 999_999, 16_600_000)] == [
        "3,890 positions/s", "999,999 positions/s", "16.6 M positions/s"]


def test_a_slow_step_says_what_it_is_doing(capsys):
    import time

    from retro.cli import _notice_if_slow

    with _notice_if_slow("compiling", after=0.01):
        time.sleep(0.3)
    assert capsys.readouterr().err == "retro: compiling...\n"
    with _notice_if_slow("compiling", after=60):
        pass
    time.sleep(0.05)
    assert capsys.readouterr().err == ""


def test_the_old_name_of_max_enemy_men_still_works(tmp_path, capsys):
    assert main(["build", "--board", "4", "--max-guards", "2", "--out", str(tmp_path / "a.h5"),
                 "--quiet"]) == 0
    assert "layers 0..2" in capsys.readouterr().out
    with open_database(tmp_path / "a.h5") as db:
        assert db.max_enemy_men == 2 and db.max_guards == 2
