"""The build record (``retro.db.locations``: which files ``retro build`` wrote, in the
per-user data folder) goes through the output guard like every file retro writes: a
link, a named pipe or a device at its place is neither followed, replaced nor read."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from retro.db import locations


@pytest.fixture
def record_path():
    folder = locations.user_directory()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / locations.RECORD


def test_a_link_at_the_build_record_is_neither_followed_nor_replaced(record_path, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text('{"built": []}')
    record_path.symlink_to(victim)
    built = tmp_path / "tic-tac-toe.h5"
    built.write_bytes(b"")
    locations.record(built, "Tic-tac-toe")
    assert record_path.is_symlink() and victim.read_text() == '{"built": []}'
    assert not [p for p in record_path.parent.iterdir() if p != record_path]  # no temporary left


def test_a_named_pipe_at_the_build_record_is_not_read_or_replaced(record_path, tmp_path):
    os.mkfifo(record_path)
    answers = []
    # Reading a pipe with no writer would block for ever: run it aside, bounded.
    reader = threading.Thread(target=lambda: answers.append(locations.recorded()), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock it before failing
        with open(record_path, "w"):
            pass
        pytest.fail("reading the build record blocked on a named pipe")
    assert answers == [[]]
    built = tmp_path / "tic-tac-toe.h5"
    built.write_bytes(b"")
    locations.record(built, "Tic-tac-toe")
    assert stat.S_ISFIFO(os.lstat(record_path).st_mode)


def test_the_build_record_still_remembers_what_was_built(record_path, tmp_path):
    built = tmp_path / "tic-tac-toe.h5"
    built.write_bytes(b"")
    locations.record(built, "Tic-tac-toe")
    assert locations.built_elsewhere("Tic-tac-toe") == [built.resolve()]
    assert stat.S_ISREG(os.lstat(record_path).st_mode)
