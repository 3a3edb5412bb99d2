"""Win/draw/loss exports (``retro export --wdl``): every answer equal to the full
database's winner, damage refused, every bad command one line.

Tic-tac-toe is checked position by position against a plain negamax written here; the
3-piece nine men's morris against the full database (which tests/test_nine_oracle.py
checks against an independent solver) on a sample of every tier's entries.
"""

from __future__ import annotations

import io
import os
import random
import socket
import stat
import sys
from functools import lru_cache
from pathlib import Path

import h5py
import pytest

from retro import ChecksumError, open_database
from retro.db.database import WdlDatabase
from retro.db.format import DatabaseFile
from retro.db.wdl import export_wdl
from retro.errors import DatabaseError, NotADatabaseError, OutputPathError

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
    assert run.stderr.startswith(("retro: error: ", "retro export: error: ")), run.stderr
    assert run.stderr.count("\n") == 1, run.stderr
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


# --- writing only where a regular file is, or nothing (issue 40, defect 1) ------------------

KINDS = ["symbolic link", "dangling link", "named pipe", "socket", "device"]


def kind_of(path: Path) -> str:
    mode = os.lstat(path).st_mode
    return {stat.S_IFLNK: "link", stat.S_IFIFO: "named pipe", stat.S_IFSOCK: "socket",
            stat.S_IFCHR: "device", stat.S_IFREG: "regular file"}.get(stat.S_IFMT(mode), "other")


def null_device(tmp_path: Path) -> Path:
    """A character device to write to: a null device made in ``tmp_path`` when this runs
    as root (a broken guard then replaces that one, never the system's /dev/null), else
    the system's /dev/null, which an unprivileged test cannot harm."""
    if os.geteuid() != 0:
        return Path("/dev/null")
    made = tmp_path / "null"
    try:
        os.mknod(made, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except OSError:
        pytest.skip("running as root without the right to make a device node")
    return made


@pytest.fixture
def in_the_way(tmp_path, monkeypatch):
    """``in_the_way(kind, path)``: puts a ``kind`` of file at ``path`` (the device: returns
    a device's path instead) and a regular file ``victim`` a link may point at."""
    monkeypatch.chdir(tmp_path)  # a socket's path must be short: bind it by a relative name
    victim = tmp_path / "victim"
    victim.write_bytes(b"not to be written")
    sockets = []

    def make(kind: str, path: Path) -> Path:
        if kind == "symbolic link":
            path.symlink_to(victim)
        elif kind == "dangling link":
            path.symlink_to(tmp_path / "nowhere")
        elif kind == "named pipe":
            os.mkfifo(path)
        elif kind == "socket":
            sockets.append(socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
            sockets[-1].bind(os.path.relpath(path, tmp_path))
        else:
            return null_device(tmp_path)
        return path

    yield make
    for s in sockets:
        s.close()
    assert victim.read_bytes() == b"not to be written"
    assert not (tmp_path / "nowhere").exists()


def expected_kind(kind: str) -> str:
    return {"symbolic link": "link", "dangling link": "link"}.get(kind, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_the_export_writes_no_out_that_is_not_a_regular_file(kind, db_ttt, tmp_path, in_the_way):
    out = in_the_way(kind, tmp_path / "wdl.h5")
    with pytest.raises(OutputPathError) as refused:
        export_wdl(db_ttt, out)
    assert "\n" not in str(refused.value)
    assert kind_of(out) == expected_kind(kind)
    assert not out.with_name(out.name + ".tmp").exists()


@pytest.mark.parametrize("kind", KINDS[:4])
def test_the_export_writes_through_no_tmp_that_is_not_a_regular_file(kind, db_ttt, tmp_path,
                                                                     in_the_way):
    out = tmp_path / "wdl.h5"
    tmp = in_the_way(kind, out.with_name(out.name + ".tmp"))
    with pytest.raises(OutputPathError, match=".tmp"):
        export_wdl(db_ttt, out)
    assert kind_of(tmp) == expected_kind(kind)
    assert not out.exists()


def test_the_system_null_device_is_refused_as_out(db_ttt, tmp_path):
    """The device case with no link in the way: ``/dev/null`` itself, checked before any
    byte is written (so even as root nothing there is touched)."""
    device = null_device(tmp_path)
    with pytest.raises(OutputPathError, match="device"):
        export_wdl(db_ttt, device)
    assert kind_of(device) == "device"


@pytest.mark.parametrize("kind", KINDS)
def test_a_forced_export_over_what_is_not_a_regular_file_is_one_line_and_exit_2(
        kind, db_ttt, tmp_path, in_the_way, retro):
    out = in_the_way(kind, tmp_path / "wdl.h5")
    run = retro("export", "--wdl", db_ttt, "--out", out, "--force", "--quiet")
    assert run.returncode == 2, run.stdout + run.stderr
    assert run.stderr.startswith("retro: error: ") and run.stderr.count("\n") == 1, run.stderr
    assert kind_of(out) == expected_kind(kind)
