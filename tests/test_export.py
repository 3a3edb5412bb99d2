"""Win/draw/loss exports (``retro export --wdl``): every answer equal to the full
database's winner, damage refused, every bad command one line.

Tic-tac-toe is checked position by position against a plain negamax written here; the
3-piece nine men's morris against the full database (which tests/test_nine_oracle.py
checks against an independent solver) on a sample of every tier's entries.
"""

from __future__ import annotations

import io
import random
import sys
from functools import lru_cache

import h5py
import pytest

from retro import ChecksumError, open_database
from retro.cli import main
from retro.db.database import WdlDatabase
from retro.db.format import DatabaseFile
from retro.db.wdl import export_wdl
from retro.errors import DatabaseError, NotADatabaseError

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@lru_cache(maxsize=None)
def negamax(board: str) -> int:
    """+1 when the side to move wins, -1 when it loses, 0 for a draw (X moves first)."""
    for a, b, c in LINES:
        if board[a] != "." and board[a] == board[b] == board[c]:
            return -1  # the side that just moved has three in a row
    if "." not in board:
        return 0
    mover = "X" if board.count("X") == board.count("O") else "O"
    return max(-negamax(board[:i] + mover + board[i + 1:]) for i, p in enumerate(board) if p == ".")


def reachable(start):
    seen, todo = {start}, [start]
    while todo:
        position = todo.pop()
        for move in position.legal_moves():
            after = position.play(move)
            if after not in seen:
                seen.add(after)
                todo.append(after)
    return seen


@pytest.fixture(scope="module")
def ttt_export(db_ttt, tmp_path_factory):
    out = tmp_path_factory.mktemp("exports") / "tic-tac-toe-wdl.h5"
    export_wdl(db_ttt, out)
    return out


@pytest.fixture(scope="module")
def nine_export(db_9mm3, tmp_path_factory):
    out = tmp_path_factory.mktemp("exports") / "nine-3-wdl.h5"
    export_wdl(db_9mm3, out, threads=2)
    return out


def board_text(position) -> str:
    """The 9 cells of a tic-tac-toe position, X/O/., from its notation."""
    cells = "".join(ch for ch in str(position).upper() if ch in "XO.")
    return cells[-9:]


def test_every_tic_tac_toe_position_has_the_winner_a_plain_negamax_finds(ttt_export):
    with open_database(ttt_export) as db:
        assert isinstance(db, WdlDatabase)
        positions = reachable(db.game.start())
        assert len(positions) == 5478
        for position in positions:
            outcome = db.probe(position)
            score = negamax(board_text(position))
            if score == 0:
                assert outcome.is_draw, position
            else:
                assert outcome.side_to_move_wins == (score > 0), position
                # a finished position's distance is known (0); any other win's is not kept
                assert outcome.plies == (0 if position.is_over() else None), position


def test_the_nine_mens_morris_export_agrees_with_its_database(db_9mm3, nine_export):
    rng = random.Random(7)
    with open_database(db_9mm3) as full, open_database(nine_export) as wdl:
        assert wdl.source_digest == full.digest
        game, checked = full.game, 0
        for tier in full.tiers:
            size = int(full._values[tier].shape[0])
            for entry in rng.sample(range(size), min(size, 1000)):
                position = game.position_at(tier, entry)
                if position is None or position.is_over():
                    continue
                expected, got = full.probe(position), wdl.probe(position)
                assert got.winner is expected.winner, position
                assert got.plies is None or got.is_draw, position
                checked += 1
        assert checked > 2_000
        start = full.game.start()
        def winners(db):
            return sorted((str(move), str(outcome.winner)) for move, outcome in db.moves(start))

        assert winners(wdl) == winners(full)
        with pytest.raises(DatabaseError, match="no principal line"):
            wdl.line(start)


def test_the_export_is_a_fraction_of_the_database(db_9mm3, nine_export):
    assert nine_export.stat().st_size < db_9mm3.stat().st_size


def test_a_damaged_block_is_refused_and_verify_finds_it(nine_export, tmp_path, retro):
    damaged = tmp_path / "damaged.h5"
    damaged.write_bytes(nine_export.read_bytes())
    with h5py.File(damaged, "r") as f:
        name = max(f["wdl"], key=lambda n: f["wdl"][n]["blocks"].shape[0])
        info = f["wdl"][name]["blocks"].id.get_chunk_info(0)
    with open(damaged, "r+b") as handle:
        handle.seek(info.byte_offset + info.size // 2)
        byte = handle.read(1)
        handle.seek(-1, 1)
        handle.write(bytes([byte[0] ^ 0x5A]))
    run = retro("verify", damaged)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAIL" in run.stdout and name in run.stdout and "NOT intact" in run.stdout
    with open_database(damaged) as db:
        tier = next(t for t in db.tiers if db.game.tier_name(t) == name)
        with pytest.raises(ChecksumError, match=name):
            db._reader.block(tier, 0)


def test_verify_passes_an_intact_export(nine_export, retro):
    run = retro("verify", nine_export)
    assert run.returncode == 0, run.stderr
    assert "the export is intact" in run.stdout


def test_an_interrupted_export_leaves_nothing(db_9mm3, tmp_path):
    out = tmp_path / "wdl.h5"

    def interrupt(done):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        export_wdl(db_9mm3, out, progress=interrupt)
    assert list(tmp_path.iterdir()) == []


class Run:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def retro(capsys):
    """``retro(*args)``: the command line, run in this process (no interpreter start-up)."""
    def run(*args):
        capsys.readouterr()
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return Run(code, out, err)
    return run


@pytest.mark.parametrize("case", ["no kind", "exists", "musketeers", "an export", "itself", "threads"])
def test_bad_export_commands_are_one_line_and_exit_2(case, db_9mm3, db3, nine_export, tmp_path, retro):
    args = {
        "no kind": ["export", db_9mm3, "--out", tmp_path / "x.h5"],
        "exists": ["export", "--wdl", db_9mm3, "--out", nine_export],
        "musketeers": ["export", "--wdl", db3, "--out", tmp_path / "x.h5"],
        "an export": ["export", "--wdl", nine_export, "--out", tmp_path / "x.h5"],
        "itself": ["export", "--wdl", db_9mm3, "--out", db_9mm3, "--force"],
        "threads": ["export", "--wdl", db_9mm3, "--out", tmp_path / "x.h5", "--threads", "0"],
    }[case]
    run = retro(*args)
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.startswith("retro: error: ") and run.stderr.count("\n") == 1, run.stderr
    assert not (tmp_path / "x.h5").exists()


def test_the_cli_exports_probes_and_refuses_to_play_from_an_export(db_9mm3, tmp_path, retro,
                                                                  monkeypatch):
    source = tmp_path / "nine-3.h5"
    source.write_bytes(db_9mm3.read_bytes())
    run = retro("export", "--wdl", source, "--quiet")
    assert run.returncode == 0, run.stderr
    out = tmp_path / "nine-3-wdl.h5"
    assert out.exists() and f"wrote {out.name}" in run.stdout.replace(str(tmp_path) + "/", "")
    with open_database(source) as full:
        start = str(full.game.start())
        expected = full.probe(start).winner
    probe = retro("probe", "--db", out, "--json", start)
    assert probe.returncode == 0, probe.stderr
    assert f'"winner": {"null" if expected is None else chr(34) + expected.value + chr(34)}' in probe.stdout
    assert '"plies": null' in probe.stdout
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    play = retro("play", "--db", out)
    assert play.returncode == 2 and "full database" in play.stderr
    analyze = retro("analyze", out)
    assert analyze.returncode == 2 and "win/draw/loss export" in analyze.stderr
    with pytest.raises(NotADatabaseError, match="win/draw/loss export"):
        DatabaseFile(out)
