"""Where retro finds its databases (retro.db.locations): $RETRO_DB_DIR, ./db, the
checkout's db/, the per-user data folder, in that order; where `retro build` writes;
and the errors that name --db and the variable."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import retro
from retro.cli import main
from retro.db import locations
from retro.errors import DatabaseNotFoundError

TTT = "tic-tac-toe.h5"


@pytest.fixture
def places(tmp_path, monkeypatch):
    """A working folder outside the checkout, a user data folder and a variable's
    folder, all empty; the working directory is the first."""
    work, user, variable = (tmp_path / name for name in ("work", "user", "variable"))
    for folder in (work, user, variable):
        folder.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(user))
    monkeypatch.delenv(locations.ENVIRONMENT, raising=False)
    monkeypatch.chdir(work)
    return work, user / "retro", variable


def test_the_search_order(places, db_ttt, monkeypatch):
    work, user, variable = places
    assert locations.checkout() is None  # the working folder is outside the checkout
    assert locations.directories() == [user]
    assert locations.find(TTT) is None and locations.build_target(TTT) == user / TTT
    user.mkdir(parents=True)
    shutil.copy(db_ttt, user / TTT)
    assert locations.find(TTT) == user / TTT
    (work / "db").mkdir()  # ./db comes before the user folder...
    assert locations.find(TTT) == user / TTT  # ...but holds no such file yet
    shutil.copy(db_ttt, work / "db" / TTT)
    assert locations.find(TTT) == work / "db" / TTT  # absolute, as every message prints it
    monkeypatch.setenv(locations.ENVIRONMENT, str(variable))  # the variable comes first
    assert locations.directories() == [variable, work / "db", user]
    assert locations.find(TTT) == work / "db" / TTT and locations.build_target(TTT) == variable / TTT
    shutil.copy(db_ttt, variable / TTT)
    assert locations.find(TTT) == variable / TTT


def test_inside_the_checkout_its_db_folder_is_searched(monkeypatch, tmp_path):
    root = Path(retro.__file__).resolve().parents[1]
    if not (root / "pyproject.toml").is_file():
        pytest.skip("retro is installed, not run from a checkout")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.delenv(locations.ENVIRONMENT, raising=False)
    monkeypatch.chdir(root / "tests")  # inside the checkout, no db/ here
    assert locations.checkout() == root
    assert root / "db" in [folder.resolve() for folder in locations.directories()]


def test_the_library_and_the_cli_find_a_database_from_anywhere(places, db_ttt, capsys):
    work, user, _ = places
    with pytest.raises(DatabaseNotFoundError) as missing:
        retro.open_database(game="tic-tac-toe")
    message = str(missing.value)
    assert "--db" in message and locations.ENVIRONMENT in message and str(user) in message
    assert main(["probe", "x ... ... ..."]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--db" in err and locations.ENVIRONMENT in err
    user.mkdir(parents=True)
    shutil.copy(db_ttt, user / TTT)
    with retro.open_database(game="tic-tac-toe") as db:
        assert db.game.name == "tic-tac-toe"
    assert main(["probe", "x ... ... ..."]) == 0
    assert capsys.readouterr().out.startswith("X ... ... ...: a draw")


def test_retro_build_writes_where_it_is_found_and_says_so(places, monkeypatch, capsys):
    work, user, variable = places
    name = "three-mens-morris.h5"
    assert main(["build", "--game", "three-mens-morris", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert (user / name).is_file() and out.startswith(f"built {user / name}: ")
    assert out.count("\n") == 1  # found from anywhere: nothing more to say
    assert main(["build", "--game", "three-mens-morris"]) == 0  # found, not built twice
    assert "is already built" in capsys.readouterr().out
    monkeypatch.setenv(locations.ENVIRONMENT, str(variable))
    assert main(["build", "--game", "three-mens-morris", "--quiet"]) == 0
    assert (variable / name).is_file() and capsys.readouterr().out.count("\n") == 1
    monkeypatch.delenv(locations.ENVIRONMENT)
    # A db/ folder here is searched, but a build never writes into a folder it merely
    # happens to find: the user folder still holds the game's file.
    (work / "db").mkdir()
    assert main(["build", "--game", "three-mens-morris"]) == 0
    assert "is already built" in capsys.readouterr().out and not (work / "db" / name).exists()
    # Written there on purpose, it is found when retro runs here, and the note says so.
    assert main(["build", "--game", "three-mens-morris", "--out", f"db/{name}", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    here = work.resolve() / "db" / name
    assert lines[0].startswith(f"built {here}: ")
    # Elsewhere the user folder's copy comes first (recorded builds are read last).
    assert lines[1] == (f"retro finds it when run in {work.resolve()}; elsewhere it reads "
                        f"{user / name} first (this one with --db {here})")
    # Another name is never searched for: only --db reaches it.
    assert main(["build", "--game", "three-mens-morris", "--out", "mine.h5", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith(f"retro finds it with --db {work.resolve() / 'mine.h5'} (the default "
                               f"name, found by itself, is {name})")


def test_a_python_package_folder_is_not_a_database_folder(places, monkeypatch):
    work, user, _ = places
    (work / "db").mkdir()
    (work / "db" / "__init__.py").write_text("")
    assert locations.directories() == [user]


def test_verify_and_analyze_say_where_they_looked(places, capsys):
    for command in ("verify", "analyze"):
        assert main([command, "--game", "tic-tac-toe", "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("retro: error: no tic-tac-toe database found (looked in ")
        assert "--db" in err and locations.ENVIRONMENT in err and "retro build --game tic-tac-toe" in err


def test_serve_finds_every_game_s_file(places, db_ttt, db_3mm):
    from retro.web.server import find_databases

    work, user, _ = places
    user.mkdir(parents=True)
    shutil.copy(db_ttt, user / TTT)
    shutil.copy(db_3mm, user / "three-mens-morris.h5")
    assert sorted(p.name for p in find_databases(None)) == ["three-mens-morris.h5", TTT]
    assert find_databases([Path("x.h5")]) == [Path("x.h5")]  # given files are served as given


def test_a_batch_line_says_where_its_game_s_file_was_looked_for(places):
    from retro.db.database import DatabasePool
    from retro.text import probe_lines

    with DatabasePool() as pool:
        [answer] = list(probe_lines(["x ... ... ..."], pool))
    assert not answer.ok and "no tic-tac-toe database found (looked in " in answer.text
    assert "--db" in answer.text and locations.ENVIRONMENT in answer.text


def test_a_build_is_found_from_anywhere_without_a_variable(places, tmp_path, monkeypatch, capsys):
    """Issue 23, item 14: built in one folder (as the README's build in the checkout), a
    database is found from any other, with no variable; one built under another name is
    named by the error before it suggests a build."""
    work, user, _ = places
    name = "three-mens-morris.h5"
    assert main(["build", "--game", "three-mens-morris", "--out", f"db/{name}", "--quiet"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"built {work / 'db' / name}: ")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert locations.find(name) == work / "db" / name
    assert main(["probe", "--game", "three-mens-morris", "W 3 3 ... ... ..."]) == 0
    assert capsys.readouterr().out.startswith("W 3 3 ... ... ...: a draw")
    with retro.open_database(game="three-mens-morris") as db:
        assert db.path == work / "db" / name
    # Moved away, the record finds nothing and the search goes on as before.
    (work / "db" / name).rename(work / "moved.h5")
    assert locations.find(name) is None
    # Under another name: never read by itself, but the error names it first.
    assert main(["build", "--game", "tic-tac-toe", "--out", str(work / "mine.h5"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["probe", "X ... ... ..."]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"retro build wrote one at {work / 'mine.h5'}" in err
    assert err.index(f"--db {work / 'mine.h5'}") < err.index("retro build --game tic-tac-toe")


def test_a_damaged_record_is_no_record(places, db_ttt):
    work, user, _ = places
    user.mkdir(parents=True)
    for text in ("{", "[]", '{"built": 3}', '{"built": [{"path": 1}]}'):
        (user / locations.RECORD).write_text(text)
        assert locations.recorded() == [] and locations.find(TTT) is None
    locations.record(db_ttt, "tic-tac-toe")  # and writing replaces it
    assert locations.find(TTT) == db_ttt
