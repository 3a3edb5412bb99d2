"""The builder: checkpoints, resuming after interruption (even kill -9), extension."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import h5py
import numpy as np
import pytest

from retro.engine.build import BuildError, build
from retro.games.musketeers.layout import LAYER_GROUP


def stored_layers(path) -> dict[str, np.ndarray]:
    with h5py.File(path, "r") as f:
        return {name: dataset[()] for name, dataset in f[LAYER_GROUP].items()}


def assert_same_values(a, b) -> None:
    layers_a, layers_b = stored_layers(a), stored_layers(b)
    assert layers_a.keys() == layers_b.keys()
    for name in layers_a:
        assert np.array_equal(layers_a[name], layers_b[name]), name


def test_interrupted_build_resumes_to_identical_values(db4, tmp_path, interrupt_at):
    out = tmp_path / "4x4.h5"
    interrupt_at(6)
    with pytest.raises(KeyboardInterrupt):
        build(4, out, progress=False)
    assert not out.exists()
    partial = out.with_name(out.name + ".partial")
    assert sorted(p.name for p in partial.glob("layer_*.h5")) == [f"layer_{k:02d}.h5" for k in range(6)]

    interrupt_at(None)
    messages = []
    summary = build(4, out, progress=False, log=messages.append)
    assert summary.resumed_from_layer == 6
    assert any("resuming" in m for m in messages)
    assert not partial.exists()
    assert_same_values(out, db4)


def test_damaged_checkpoint_is_recomputed(db4, tmp_path, interrupt_at):
    out = tmp_path / "4x4.h5"
    interrupt_at(9)
    with pytest.raises(KeyboardInterrupt):
        build(4, out, progress=False)
    partial = out.with_name(out.name + ".partial")
    (partial / "layer_04.h5").write_bytes(b"torn write")  # as if killed mid-rename
    (partial / "layer_05.tmp").write_bytes(b"half a file")
    interrupt_at(None)
    summary = build(4, out, progress=False)
    assert summary.resumed_from_layer == 4
    assert_same_values(out, db4)


def test_kill_9_then_same_command_resumes(tmp_path):
    """A real SIGKILL in the middle of a 5×5 build, then the same command again."""
    out = tmp_path / "5x5.h5"
    command = [sys.executable, "-m", "retro.cli", "build", "--board", "5",
               "--max-enemy-men", "6", "--out", str(out), "--quiet"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    checkpoint = out.with_name(out.name + ".partial") / "layer_04.h5"
    deadline = time.monotonic() + 240
    while not checkpoint.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    assert checkpoint.exists() and not out.exists(), "the build should have been mid-way"

    resumed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming" in resumed.stderr

    reference = build(5, tmp_path / "reference.h5", max_enemy_men=6, progress=False)
    assert_same_values(out, reference.path)


def test_extending_an_endgame_database(db4, tmp_path):
    out = tmp_path / "4x4.h5"
    small = build(4, out, max_enemy_men=5, progress=False)
    assert small.max_enemy_men == 5 and len(stored_layers(out)) == 6
    messages = []
    full = build(4, out, progress=False, log=messages.append)
    assert full.max_enemy_men == 13
    assert any("extending" in m for m in messages)
    assert_same_values(out, db4)


def test_a_finished_database_is_not_rebuilt(db3):
    before = db3.stat().st_mtime_ns
    summary = build(3, db3, progress=False)
    assert summary.already_built and summary.computed_positions == 0
    assert db3.stat().st_mtime_ns == before


def test_thread_count_does_not_change_values(db4, tmp_path):
    one = build(4, tmp_path / "one.h5", threads=1, progress=False)
    assert_same_values(one.path, db4)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"game": 6}, "board size 6"),
        ({"game": 4, "max_enemy_men": 14}, "between 0 and 13"),
        ({"game": 4, "max_enemy_men": -1}, "between 0 and 13"),
        ({"game": 4, "threads": 0}, "--threads"),
    ],
)
def test_bad_build_arguments(tmp_path, kwargs, words):
    with pytest.raises(BuildError, match=words):
        build(out=tmp_path / "x.h5", progress=False, **kwargs)


def test_output_that_is_not_a_database_is_left_alone(tmp_path):
    out = tmp_path / "notes.h5"
    out.write_text("precious")
    with pytest.raises(BuildError, match="not a retro database"):
        build(3, out, progress=False)
    assert out.read_text() == "precious"
    with pytest.raises(BuildError, match="directory"):
        build(3, tmp_path, progress=False)


def test_output_of_another_board_is_left_alone(db3):
    with pytest.raises(BuildError, match="3x3 database"):
        build(4, db3, progress=False)


def test_summary_counts(db_dir):
    summary = build(3, db_dir / "3x3-summary.h5", progress=False)
    assert summary.positions == summary.computed_positions == 16 * 2**6 * 2
    assert summary.file_bytes == summary.path.stat().st_size > 0
