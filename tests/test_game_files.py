"""A database answers only for its own game (issue 23, items 1, 2, 4, 7, 8, 13): a
position object of another game is refused, not looked up in the wrong table; a file
of another game than --game is refused; a value rewritten behind its SHA-256 is
caught at open; damage messages name the command that rebuilds that very file."""

from __future__ import annotations

import io
import shutil
import sys

import h5py
import pytest

import retro
from retro import games
from retro.cli import main
from retro.db.format import dataset_path
from retro.errors import BoardMismatchError, ChecksumError, DamagedDatabaseError, GameMismatchError
from registered import smallest_variants


class Result:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def run_retro(capsys, monkeypatch):
    """``retro ARGS`` in this process (no interpreter start-up): exit status and output."""
    def run(*args: str, stdin: str | None = None) -> Result:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin or ""))
        capsys.readouterr()
        code = main(list(args))
        out = capsys.readouterr()
        return Result(code, out.out, out.err)
    return run


def one_error_line(stderr: str, words: str) -> None:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("retro: error: "), stderr
    assert words in lines[0] and "Traceback" not in stderr, stderr


@pytest.fixture(scope="module")
def files(databases, db4):
    """One database per registered game, of its smallest variant (Three Musketeers: two
    board sizes; nine men's morris: 3 pieces each)."""
    return {game.full_name: databases(game) for game in smallest_variants()} | {"three-musketeers 4x4": db4}


def test_every_game_covered(files):
    """Every registered game has a variant small enough for a test session's database."""
    assert {g.name for g in games.every_game()} == {name.split()[0] for name in files}


def test_a_position_object_of_another_game_is_refused_by_every_method(files):
    starts = {g.full_name: g.start() for g in games.every_game()}
    for held, path in files.items():
        with retro.open_database(path) as db:
            for name, position in starts.items():
                if name == held:
                    db.probe(position)  # its own game: answered
                    continue
                if name == "three-musketeers 5x5":
                    continue  # the small files answer 3x3 / 4x4; the 5x5 start is another board
                for method in (db.probe, db.moves, db.line, db.best_move, db.value,
                               db.children, lambda p: db.probe_many([p])):
                    with pytest.raises(BoardMismatchError):
                        method(position)


def test_the_morris_games_never_read_each_other_s_table(db_3mm, db_3mm_diagonal, db_6mm):
    plain = games.get("three-mens-morris").start()
    with retro.open_database(db_3mm_diagonal) as db:
        with pytest.raises(BoardMismatchError, match="Three men's morris position but"):
            db.probe(plain)
        # Its text is read in the file's own notation: the diagonal game's start.
        assert db.probe(str(plain)).winner is not None
    with retro.open_database(db_6mm) as db, pytest.raises(BoardMismatchError):
        db.probe(plain)


def test_open_database_refuses_a_file_of_another_game(db_3mm_diagonal, db4):
    with pytest.raises(GameMismatchError) as refused:
        retro.open_database(db_3mm_diagonal, game="three-mens-morris")
    assert isinstance(refused.value, ValueError)
    assert refused.value.held == "three-mens-morris-diagonal"
    assert refused.value.asked == "three-mens-morris"
    # A name asks for the game, any variant; a game object for that very variant.
    retro.open_database(db4, game="three-musketeers").close()
    retro.open_database(db4, game=games.get("three-musketeers", "4x4")).close()
    with pytest.raises(GameMismatchError):
        retro.open_database(db4, game=games.get("three-musketeers", "5x5"))
    from retro.db.database import DatabasePool

    with pytest.raises(GameMismatchError):
        DatabasePool(db_3mm_diagonal, game=games.get("three-mens-morris"))


@pytest.mark.parametrize("argv, stdin", [
    (["probe", "--db", "{diag}", "--game", "three-mens-morris", "W 3 3 ... ... ..."], None),
    (["probe", "--db", "{diag}", "--game", "three-mens-morris"], "W 3 3 ... ... ...\n"),
    (["play", "--db", "{diag}", "--game", "three-mens-morris"], "quit\n"),
    (["verify", "--game", "three-mens-morris", "{six}"], None),
    (["analyze", "--game", "three-mens-morris", "{six}"], None),
])
def test_game_and_a_file_of_another_game_is_one_error_line(argv, stdin, db_3mm_diagonal, db_6mm, run_retro):
    argv = [a.format(diag=db_3mm_diagonal, six=db_6mm) for a in argv]
    result = run_retro(*argv, stdin=stdin)
    held = "six-mens-morris" if "{six}" in " ".join(argv) or str(db_6mm) in argv else \
        "three-mens-morris-diagonal"
    path = db_6mm if held == "six-mens-morris" else db_3mm_diagonal
    assert result.returncode == 2 and result.stdout == ""
    one_error_line(result.stderr, f"--game three-mens-morris but {path} holds {held}")


def test_play_with_an_empty_start_says_so(db_ttt, run_retro):
    for argv in (["play", "--start", ""], ["play", "--db", str(db_ttt), "--start", ""]):
        result = run_retro(*argv, stdin="quit\n")
        assert result.returncode == 2
        one_error_line(result.stderr, "empty position")


def _tamper(path, game_name: str, text: str) -> None:
    """Rewrite the value of ``text`` through h5py: the chunk's Fletcher32 is written anew,
    the tier's SHA-256 attribute is left as it was."""
    game = games.get(game_name)
    position = game.parse(text)
    tier = game.tier_of(position)
    with h5py.File(path, "r+") as f:
        dataset = f[dataset_path(game, tier)]
        values = game.from_stored(tier, dataset[()])
        entry = game.index(position)
        values[entry] = 2 if values[entry] != 2 else 4
        dataset[...] = game.to_stored(tier, values)


def test_a_value_rewritten_behind_its_digest_is_refused_at_open(db_3mm, tmp_path, run_retro):
    path = tmp_path / "three-mens-morris.h5"
    shutil.copy(db_3mm, path)
    text = "W 0 0 WW. .BW B.B"  # White to move, with moves: never a finished value
    assert retro.games.get("three-mens-morris").parse(text).legal_moves()
    _tamper(path, "three-mens-morris", text)
    with pytest.raises(ChecksumError, match="SHA-256"):
        retro.open_database(path)
    result = run_retro("probe", "--db", str(path), text)
    assert result.returncode == 2 and result.stdout == ""
    one_error_line(result.stderr, "the file is damaged")
    assert f"retro build --game three-mens-morris --out {path} --force" in result.stderr
    verified = run_retro("verify", str(path))
    assert verified.returncode == 1 and "FAIL  digests" in verified.stdout


def test_an_unreadable_tier_is_not_reported_as_a_good_digest(db_ttt, tmp_path, run_retro):
    path = tmp_path / "tic-tac-toe.h5"
    shutil.copy(db_ttt, path)
    game = games.get("tic-tac-toe")
    tier = game.tiers()[-1]
    with h5py.File(path, "r") as f:
        offset = f[dataset_path(game, tier)].id.get_chunk_info(0).byte_offset
    with open(path, "r+b") as f:
        f.seek(offset + 3)
        byte = f.read(1)
        f.seek(offset + 3)
        f.write(bytes([byte[0] ^ 0xFF]))
    result = run_retro("verify", str(path))
    assert result.returncode == 1
    digests = [line for line in result.stdout.splitlines() if "digests" in line]
    assert digests and all(line.strip().startswith("FAIL") for line in digests), result.stdout
    assert "not checked (unreadable)" in digests[0]


@pytest.mark.parametrize("game_name, default", [("six-mens-morris", True), ("tic-tac-toe", False)])
def test_a_damaged_header_names_the_command_for_that_file(game_name, default, files, tmp_path,
                                                          monkeypatch):
    monkeypatch.setenv("RETRO_DB_DIR", str(tmp_path))
    source = files[game_name]
    path = tmp_path / (f"{game_name}.h5" if default else "mine.h5")
    shutil.copy(source, path)
    with h5py.File(path, "r+") as f:
        del f.attrs["complete"]
    with pytest.raises(DamagedDatabaseError) as damaged:
        retro.open_database(path)
    command = f"retro build --game {game_name}" + ("" if default else f" --out {path}") + " --force"
    assert f"rebuild it with '{command}'" in str(damaged.value)
    assert "--board" not in str(damaged.value)


def test_main_in_process_refuses_too(db_3mm_diagonal, capsys):
    assert main(["probe", "--db", str(db_3mm_diagonal), "--game", "three-mens-morris",
                 "W 3 3 ... ... ..."]) == 2
    assert "holds three-mens-morris-diagonal" in capsys.readouterr().err


def test_analyze_counts_entries_and_positions_as_retro_games_does(db_3mm, capsys):
    """Issue 23, item 17: analyze's first line says table entries and the positions they
    stand for, the figure `retro games` prints, so the two never seem to disagree."""
    assert main(["games"]) == 0
    listed = next(line for line in capsys.readouterr().out.splitlines()
                  if line.startswith("three-mens-morris "))
    count = listed.split()[1]
    assert main(["analyze", str(db_3mm), "--quiet"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"{db_3mm}: ") and f"standing for {count} positions" in first
    assert "table entries" in first


def test_in_memory_a_musketeers_database_holds_no_hdf5_dataset(db4):
    """Issue 23, item 19: once a database answers from memory (shared or loaded), it
    frees what reading from disk held: its decompressed chunks and every layer's HDF5
    dataset, whose chunk cache a server worker would otherwise keep (about 90 MB for
    5x5). Answers stay the same."""
    import gc

    import h5py

    with retro.open_database(db4) as db:
        positions = [games.get("three-musketeers", "4x4").start()]
        for _ in range(200):
            moves = db.moves(positions[-1])
            if not moves:
                break
            positions.append(positions[-1].play(moves[len(positions) % len(moves)][0]))
        before = [db.probe(p) for p in positions]
        assert db._chunks
        db.load()
        gc.collect()
        assert not db._chunks
        assert len(h5py.h5f.get_obj_ids(db._file.file.id, types=h5py.h5f.OBJ_DATASET)) == 0
        assert [db.probe(p) for p in positions] == before
