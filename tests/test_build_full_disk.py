"""A write that fails in an out-of-core build (issue 40, item 2): a full disk or the
file-size limit, at each of the build's writes (a tier's raw values, its packed
checkpoint, the database streamed from them), is one line naming the file that failed
and saying to run the same command to resume; resuming then builds the same bytes.

The file-size limit is real (``RLIMIT_FSIZE`` in a subprocess, set only while the chosen
file is written, so HDF5 and numpy fail as they do under ``ulimit -f``); a full disk
cannot be had without root, so its errors are raised as HDF5 and the OS raise them."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import h5py
import pytest

import retro
from retro.cli import main
from retro.engine import rawstore
from retro.engine.build import build

from test_hardening import one_error_line

NINE_3 = ["build", "--game", "nine-mens-morris", "--variant", "3", "--quiet"]


def chunks(path) -> dict:
    """Every tier's chunks as stored (compressed bytes) and its SHA-256."""
    out = {}
    with h5py.File(path, "r") as f:
        for name, dataset in f["tiers"].items():
            out[name] = ([dataset.id.read_direct_chunk(dataset.id.get_chunk_info(i).chunk_offset)[1]
                          for i in range(dataset.id.get_num_chunks())], dataset.attrs.get("sha256"))
    return out


def left_behind(out) -> list[str]:
    """Temporary files a failed write left (there must be none)."""
    return sorted(str(p) for p in out.parent.rglob("*.tmp"))


LIMITED_BUILD = r"""
import json, resource, sys
from pathlib import Path

from retro.cli import main
from retro.engine import rawstore

which, out = sys.argv[1], Path(sys.argv[2])
partial = out.with_name(out.name + ".partial")
target = {"raw": partial / "moving_3_3.npy", "packed": partial / "hand_1_0_board_2_3.h5",
          "database": out}[which]
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)


def limited(real):
    def call(path, *args, **kwargs):
        if Path(path) != target:
            return real(path, *args, **kwargs)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, hard))  # as under ulimit -f 4
        done = real(path, *args, **kwargs)  # failed: the limit stays, as a ulimit would
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        return done
    return call


real_raw, real_stream = rawstore.write_raw, rawstore.stream_database
rawstore.write_raw, rawstore.stream_database = limited(real_raw), limited(real_stream)
words = ["build", "--game", "nine-mens-morris", "--variant", "3", "--quiet", "--out", str(out)]
failed = main(words)
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
rawstore.write_raw, rawstore.stream_database = real_raw, real_stream
print(json.dumps({"failed": failed, "kept": sorted(p.name for p in partial.glob("*"))}))
sys.stdout.flush()
sys.exit(main(words))  # the limit lifted: the same command resumes
"""


@pytest.mark.parametrize("which, failing", [
    ("raw", "n3.h5.partial/moving_3_3.npy"),
    ("packed", "n3.h5.partial/hand_1_0_board_2_3.h5"),
    ("database", "n3.h5"),
])
def test_the_file_size_limit_names_the_file_that_failed_and_the_same_command_resumes(
        which, failing, tmp_path, db_9mm3):
    out = tmp_path / "n3.h5"
    here = str(Path(retro.__file__).parents[1])  # the child runs the retro under test
    run = subprocess.run([sys.executable, "-c", LIMITED_BUILD, which, str(out)], capture_output=True,
                         text=True, timeout=600, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(
                             [here, *filter(None, [os.environ.get("PYTHONPATH")])])})
    assert run.returncode == 0, run.stderr
    first = json.loads(run.stdout.splitlines()[0])
    assert first["failed"] == 2
    errors = [line for line in run.stderr.splitlines() if line.startswith("retro: error")]
    assert errors == [f"retro: error: file too large writing {tmp_path / failing}: this process may "
                      "write files of at most 4.0 kB (ulimit -f); raise the limit (ulimit -f unlimited) "
                      "and run the same command to resume"], run.stderr
    assert "Traceback" not in run.stderr
    if which == "packed":  # the tier before is kept, packed, and resumed from
        assert "moving_3_3.h5" in first["kept"]
    if which == "database":  # every tier is kept: only the database is written again
        assert "hand_3_3_board_0_0.h5" in first["kept"]
    assert not left_behind(out)
    assert chunks(out) == chunks(db_9mm3)


HDF5_FULL = ("Can't decrement id ref count (unable to extend file properly, errno = 28, "
             "error message = 'No space left on device')")


def raise_when_writing(monkeypatch, failing) -> None:
    """The next writes of ``failing`` (a checkpoint's or the database's name) fail as on a
    full disk: HDF5's RuntimeError for the packed files, the OS's OSError for raw values."""
    real_dataset = rawstore.write_dataset

    def dataset(group, name, *args, **kwargs):
        if name == failing:
            raise RuntimeError(HDF5_FULL)
        return real_dataset(group, name, *args, **kwargs)

    monkeypatch.setattr(rawstore, "write_dataset", dataset)

    class Full:
        def __init__(self, handle) -> None:
            self.name = handle.name

        def write(self, data) -> None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    real_writes = rawstore._Writes

    def writes(handle):
        if failing.endswith(".npy") and os.path.basename(handle.name).startswith(failing):
            return Full(handle)
        return real_writes(handle)

    monkeypatch.setattr(rawstore, "_Writes", writes)


@pytest.mark.parametrize("failing, where", [
    ("moving_3_3.npy", "n3.h5.partial/moving_3_3.npy"),  # raw values: the OS's ENOSPC
    ("hand_1_1_board_2_2", "n3.h5.partial/hand_1_1_board_2_2.h5"),  # a packed tier: HDF5's
])
def test_a_full_disk_names_the_file_and_the_same_command_resumes(failing, where, tmp_path, db_9mm3,
                                                                  monkeypatch, capsys):
    out = tmp_path / "n3.h5"
    raise_when_writing(monkeypatch, failing)
    assert main(NINE_3 + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    one_error_line(err, f"no space left on device writing {tmp_path / where}: free about ")
    assert err.rstrip().endswith(" and run the same command to resume")
    assert not left_behind(out) and not out.exists()
    monkeypatch.undo()
    messages: list[str] = []
    summary = build("nine-mens-morris", out, variant="3", progress=False, log=messages.append)
    assert not any("damaged" in m for m in messages)
    if failing.startswith("hand"):
        assert summary.resumed_from is not None  # the tiers before were kept
    assert chunks(out) == chunks(db_9mm3)


def test_the_database_s_own_write_on_a_full_disk(tmp_path, db_9mm3, monkeypatch, capsys):
    """The streamed database fails as HDF5 fails: its close, with the write's error inside."""
    out = tmp_path / "n3.h5"
    real = rawstore.stream_database

    def full(path, write):
        if path != out:
            return real(path, write)

        def fails(f):
            write(f)
            try:
                raise OSError(errno.ENOSPC, "Can't write unprocessed chunk data (file write failed: "
                              "errno = 28, error message = 'No space left on device')")
            except OSError:
                raise RuntimeError("Driver truncate request failed (slist already enabled?)")

        return real(path, fails)

    monkeypatch.setattr(rawstore, "stream_database", full)
    assert main(NINE_3 + ["--out", str(out)]) == 2
    one_error_line(capsys.readouterr().err, f"no space left on device writing {out}: free about ")
    assert not left_behind(out) and not out.exists()
    monkeypatch.undo()
    summary = build("nine-mens-morris", out, variant="3", progress=False)
    assert summary.computed_positions == 0  # every tier from its checkpoint
    assert chunks(out) == chunks(db_9mm3)


def test_other_errors_of_hdf5_are_not_taken_for_a_full_disk(tmp_path):
    def broken(f):
        raise RuntimeError("Unable to create attribute (object header message is too large)")

    with pytest.raises(RuntimeError, match="object header"):
        rawstore.stream_database(tmp_path / "x.h5", broken)
    assert list(tmp_path.iterdir()) == []
