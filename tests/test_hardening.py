"""Faults and misuse: racing builds, damaged checkpoints and files, full disks,
permissions, closed databases and streams. Each case is one of issue 12's."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import h5py
import numpy as np
import pytest

import retro.engine.build as builder
from retro import (
    BoardMismatchError,
    DatabaseError,
    Position,
    PositionError,
    open_database,
)
from retro.engine.build import BuildError, BuildLockedError, build
from retro.cli import main
from retro.errors import DamagedDatabaseError, DatabaseAccessError, DatabaseClosedError
from retro.db.hdf5io import chunk_intact, fletcher32
from retro.games.musketeers.layout import LAYER_GROUP
from retro.verify.musketeers import verify

from test_build import assert_same_values

START3 = "M XXO XOX OXX"
START4 = str(Position.start(4))
SETPRIV = shutil.which("setpriv")


def run_retro(*args: str, stdin=subprocess.DEVNULL, timeout: float = 120, **kwargs):
    return subprocess.run([sys.executable, "-m", "retro.cli", *args], stdin=stdin,
                          capture_output=True, text=True, timeout=timeout, **kwargs)


def one_error_line(stderr: str, words: str) -> None:
    lines = [line for line in stderr.splitlines() if not line.startswith("retro: warning")]
    assert len(lines) == 1 and lines[0].startswith("retro: error: "), stderr
    assert words in lines[0] and "Traceback" not in stderr, stderr


# --- 1. racing builds ---------------------------------------------------------------


def test_a_second_build_of_one_output_is_refused_and_the_first_one_verifies(
        db4, tmp_path, monkeypatch):
    out = tmp_path / "race.h5"
    reached, release = threading.Event(), threading.Event()
    solve = builder._solve_tier

    def slow_layer(game, k, children, advance):
        if k == 6:
            # The writer thread checkpoints layer 5 while layer 6 is solved: let it
            # finish, so that the folder is still while the second build is refused.
            deadline = time.monotonic() + 60
            while not (tmp_path / "race.h5.partial" / "layer_05.h5").exists() \
                    and time.monotonic() < deadline:
                time.sleep(0.01)
            reached.set()
            release.wait(60)
        return solve(game, k, children, advance)

    monkeypatch.setattr(builder, "_solve_tier", slow_layer)
    first: dict = {}
    thread = threading.Thread(target=lambda: first.update(summary=build(4, out, progress=False)))
    thread.start()
    try:
        assert reached.wait(60)
        before = sorted(p.name for p in (tmp_path / "race.h5.partial").iterdir())
        with pytest.raises(BuildLockedError, match=f"another build of .* is running \\(process {os.getpid()}\\)"):
            build(4, out, progress=False)
        with pytest.raises(BuildLockedError):
            build(4, out, progress=False, force=True)  # --force does not break the lock either
        assert sorted(p.name for p in (tmp_path / "race.h5.partial").iterdir()) == before
    finally:
        release.set()
        thread.join(120)
    assert first["summary"].max_enemy_men == 13
    assert verify(out, progress=False).ok
    assert_same_values(out, db4)
    assert not (tmp_path / "race.h5.lock").exists()


def test_the_command_names_the_other_process_and_touches_nothing(tmp_path, capsys):
    out = tmp_path / "x.h5"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
         "fcntl.flock(fd, fcntl.LOCK_EX)\n"
         "os.write(fd, f'{os.getpid()}\\n'.encode())\n"
         "print('locked', flush=True)\n"
         "time.sleep(60)\n", str(tmp_path / "x.h5.lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        assert main(["build", "--board", "3", "--out", str(out), "--quiet"]) == 2
        assert time.monotonic() - started < 5  # refused at once, not after waiting
        one_error_line(capsys.readouterr().err, f"(process {holder.pid})")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["x.h5.lock"]
    finally:
        holder.kill()
        holder.wait()
    # The kernel dropped the dead holder's lock: the same command now builds.
    assert main(["build", "--board", "3", "--out", str(out), "--quiet"]) == 0
    assert verify(out, progress=False).ok


# --- 2. damaged checkpoints --------------------------------------------------------


def flip_inside_a_chunk(path, dataset: str, count: int = 4) -> None:
    with h5py.File(path, "r") as f:
        info = f[dataset].id.get_chunk_info(0)
    offset = info.byte_offset + info.size // 2
    with open(path, "r+b") as handle:
        handle.seek(offset)
        data = handle.read(count)
        handle.seek(offset)
        handle.write(bytes(b ^ 0xFF for b in data))


def test_a_damaged_checkpoint_is_rebuilt_not_assembled(db4, tmp_path, interrupt_at):
    out = tmp_path / "4x4.h5"
    interrupt_at(9)
    with pytest.raises(KeyboardInterrupt):
        build(4, out, progress=False)
    flip_inside_a_chunk(tmp_path / "4x4.h5.partial" / "layer_05.h5", f"{LAYER_GROUP}/layer_05")
    interrupt_at(None)
    messages: list[str] = []
    summary = build(4, out, progress=False, log=messages.append)
    assert any("layer_05.h5 is damaged" in m and "rebuilding from layer 5" in m for m in messages)
    assert summary.resumed_from_layer == 5
    assert verify(out, progress=False).ok
    assert_same_values(out, db4)


def test_fletcher32_is_hdf5s(db4):
    # Every chunk HDF5 wrote checks, and flipping any one bit of one is caught.
    rng = np.random.default_rng(5)
    with h5py.File(db4, "r") as f:
        for dataset in f[LAYER_GROUP].values():
            for chunk in dataset.iter_chunks():
                _, raw = dataset.id.read_direct_chunk(tuple(s.start for s in chunk))
                assert chunk_intact(raw)
                damaged = bytearray(raw)
                damaged[int(rng.integers(len(raw) - 4))] ^= 1 << int(rng.integers(8))
                assert not chunk_intact(bytes(damaged))
    # The definition, on a case small enough to work by hand: words 0x0102, 0x03(00).
    assert int(fletcher32(np.array([1, 2, 3], dtype=np.uint8))) == (0x0102 + 0x0402) << 16 | 0x0402


def test_a_checkpoint_damaged_after_its_check_is_never_copied(db4, tmp_path, interrupt_at,
                                                             monkeypatch):
    out = tmp_path / "4x4.h5"
    interrupt_at(13)
    with pytest.raises(KeyboardInterrupt):
        build(4, out, progress=False)
    interrupt_at(None)
    checked = builder._Checkpoints._problem

    def check_then_damage(self, k):  # damage layer 3 after the resume checked it
        problem = checked(self, k)
        if k == 3:
            flip_inside_a_chunk(self.path(k), f"{LAYER_GROUP}/layer_03")
        return problem

    monkeypatch.setattr(builder._Checkpoints, "_problem", check_then_damage)
    with pytest.raises(BuildError, match="layer_03.h5 was damaged after it was written"):
        build(4, out, progress=False)
    assert not out.exists()
    monkeypatch.undo()
    build(4, out, progress=False)
    assert_same_values(out, db4)


# --- 3 and 7. damaged database files --------------------------------------------------


def old_format_copy(source, target) -> None:
    """The file as retro wrote it before metadata checksums (HDF5's default format).

    Every dataset is read and written again rather than copied by HDF5 (H5Ocopy): with
    the session's server holding the same file open (its chunks cached), the process
    aborted on a corrupted heap inside H5Ocopy's deflate filter (HDF5 2.0 of h5py 3.16's
    wheel; retro itself never calls H5Ocopy).
    """
    with h5py.File(source, "r") as src, h5py.File(target, "w") as dst:
        def rewrite(name, item):
            if isinstance(item, h5py.Group):
                dst.require_group(name)
            else:
                dst.create_dataset(name, data=item[()], chunks=item.chunks, compression=item.compression,
                                   compression_opts=item.compression_opts, shuffle=item.shuffle,
                                   fletcher32=item.fletcher32)
            for key, value in item.attrs.items():
                dst[name].attrs[key] = value

        src.visititems(rewrite)
        for key, value in src.attrs.items():
            dst.attrs[key] = value


@pytest.mark.parametrize("key, value", [("max_guards", 386547056648), ("layers", -7),
                                        ("board_size", 1 << 40)])
def test_a_damaged_header_number_is_refused_at_once(db5_low, tmp_path, key, value):
    path = tmp_path / "old.h5"
    old_format_copy(db5_low, path)
    with h5py.File(path, "r+") as f:
        f.attrs[key] = value  # what one flipped byte did to an older file
    started = time.monotonic()
    with pytest.raises(DamagedDatabaseError, match="damaged or truncated"):
        open_database(path)
    with pytest.raises(DamagedDatabaseError):
        verify(path, progress=False)
    assert time.monotonic() - started < 1


def test_corrupted_bytes_anywhere_in_the_metadata_never_hang_crash_or_mislead(db3, tmp_path):
    """A byte changed at offsets across a whole 3x3 file: each probe in a child process
    must answer right or fail with a DatabaseError, within a time bound."""
    data = db3.read_bytes()
    start = Position.start(3)
    with open_database(db3) as db:
        truth = (db.probe(start), db.moves(start))
    offsets = list(range(0, len(data), max(1, len(data) // 240)))
    outcomes: dict[str, list[int]] = {}
    for offset in offsets:
        path = tmp_path / f"c{offset}.h5"
        damaged = bytearray(data)
        damaged[offset] ^= 0x5A
        path.write_bytes(damaged)
        pid = os.fork()
        if pid == 0:  # the child: probe, and report how it went in the exit status
            signal.alarm(5)
            code = 1
            try:
                with open_database(path) as db:
                    code = 0 if (db.probe(start), db.moves(start)) == truth else 3
            except DatabaseError:
                code = 0
            except BaseException:
                code = 4
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        kind = ("ok" if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
                else f"status {status}")
        outcomes.setdefault(kind, []).append(offset)
        path.unlink()
    assert set(outcomes) == {"ok"}, {k: v[:10] for k, v in outcomes.items()}


@pytest.mark.parametrize("damage", ["zero the end", "truncate to half", "truncate to 100 bytes"])
def test_damaged_or_truncated_files_are_named_so(db4, tmp_path, damage):
    data = db4.read_bytes()
    path = tmp_path / "damaged.h5"
    path.write_bytes({"zero the end": data[:-4096] + bytes(4096),
                      "truncate to half": data[:len(data) // 2],
                      "truncate to 100 bytes": data[:100]}[damage])
    with pytest.raises(DamagedDatabaseError, match="damaged or truncated"):
        open_database(path)


# --- 4. full disks ------------------------------------------------------------------


@contextlib.contextmanager
def small_disk(tmp_path, megabytes: int, read_only: bool = False):
    """A tmpfs of the given size (root only; the test is skipped elsewhere)."""
    mount = tmp_path / f"disk{megabytes}"
    mount.mkdir()
    options = f"size={megabytes}m" + (",ro" if read_only else "")
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a small tmpfs needs root")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_disk_too_small_is_refused_before_starting(tmp_path, capsys):
    with small_disk(tmp_path, 2) as disk:  # 5x5 needs about 540 MB (4x4 fits: 0.4 MB)
        assert main(["build", "--board", "5", "--out", str(disk / "f.h5"), "--quiet"]) == 2
        one_error_line(capsys.readouterr().err, "not enough space for")
        assert list(disk.iterdir()) == []


def test_a_disk_that_fills_up_mid_build_then_resume(db4, tmp_path, monkeypatch, capsys):
    with small_disk(tmp_path, 8) as disk:
        out = disk / "f.h5"
        solve = builder._solve_tier

        def fill_the_disk_at_layer_10(game, k, children, advance):
            if k == 10:  # layer 7's checkpoint is written by now (one layer in flight)
                with open(disk / "filler", "wb") as handle:
                    with contextlib.suppress(OSError):
                        while True:
                            handle.write(bytes(1 << 16))
            return solve(game, k, children, advance)

        monkeypatch.setattr(builder, "_solve_tier", fill_the_disk_at_layer_10)
        assert main(["build", "--board", "4", "--out", str(out), "--quiet"]) == 2
        one_error_line(capsys.readouterr().err, "no space left on device writing")
        partial = disk / "f.h5.partial"
        assert not out.exists() and not list(disk.glob("*.tmp")) and not list(partial.glob("*.tmp"))
        kept = sorted(p.name for p in partial.glob("layer_*.h5"))
        assert "layer_07.h5" in kept

        monkeypatch.undo()
        (disk / "filler").unlink()
        messages: list[str] = []
        summary = build(4, out, progress=False, log=messages.append)
        assert summary.resumed_from_layer is not None and summary.resumed_from_layer >= 8
        assert not any("damaged" in m for m in messages)  # the kept checkpoints are sound
        assert_same_values(out, db4)
        assert verify(out, progress=False).ok


def test_a_failing_write_is_one_line_when_no_disk_can_be_mounted(tmp_path, monkeypatch, capsys):
    real = builder.write_atomically

    def full(data, path):
        if path.name == "layer_04.h5":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(data, path)

    monkeypatch.setattr(builder, "write_atomically", full)
    assert main(["build", "--board", "3", "--out", str(tmp_path / "f.h5"), "--quiet"]) == 2
    one_error_line(capsys.readouterr().err, "no space left on device writing")
    monkeypatch.undo()
    assert build(3, tmp_path / "f.h5", progress=False).resumed_from_layer == 4


def test_a_read_only_file_system(tmp_path, capsys):
    with small_disk(tmp_path, 1, read_only=True) as disk:
        assert main(["build", "--board", "3", "--out", str(disk / "f.h5"), "--quiet"]) == 2
        one_error_line(capsys.readouterr().err, "read-only file system")


# --- 5. permissions -----------------------------------------------------------------


def without_root_powers() -> list[str]:
    """A command prefix under which permission bits apply (root drops its overrides)."""
    if os.geteuid() != 0:
        return []
    if SETPRIV is None:
        pytest.skip("needs setpriv (util-linux) to test permissions as root")
    return [SETPRIV, "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def test_permission_problems_are_named(db3, tmp_path):
    prefix = without_root_powers()
    secret = tmp_path / "secret.h5"
    shutil.copy(db3, secret)
    locked = tmp_path / "locked"
    locked.mkdir()
    if os.geteuid() == 0:  # files of another user, so that owning them does not help
        os.chown(secret, 65534, 65534)
        os.chown(locked, 65534, 65534)
    secret.chmod(0o000)
    locked.chmod(0o555)
    try:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        probe = subprocess.run([*prefix, sys.executable, "-m", "retro.cli", "probe", "--db",
                                str(secret), START3], capture_output=True, text=True, env=env,
                               timeout=120)
        assert probe.returncode == 2
        one_error_line(probe.stderr, "permission denied reading")
        made = subprocess.run([*prefix, sys.executable, "-m", "retro.cli", "build", "--board", "3",
                               "--out", str(locked / "x.h5"), "--quiet"], capture_output=True,
                              text=True, env=env, timeout=120)
        assert made.returncode == 2
        one_error_line(made.stderr, "permission denied writing")
        assert list(locked.iterdir()) == []
    finally:
        secret.chmod(0o600)
        locked.chmod(0o755)


def test_unreadable_is_not_reported_as_not_hdf5(db3, tmp_path, monkeypatch):
    # In-process too, where permission bits cannot be tested (as root without setpriv).
    import retro.db.hdf5io as storage

    real_open = open

    def refuse(path, *args, **kwargs):
        if str(path).endswith("secret.h5"):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    shutil.copy(db3, tmp_path / "secret.h5")
    monkeypatch.setattr(storage, "open", refuse, raising=False)
    with pytest.raises(DatabaseAccessError, match="permission denied reading"):
        open_database(tmp_path / "secret.h5")


# --- 6 and 11. the Python API -------------------------------------------------------


def test_every_method_of_a_closed_database_says_so(db4):
    db = open_database(db4)
    db.close()
    start = Position.start(4)
    calls = {
        "probe": lambda: db.probe(start), "value": lambda: db.value(start),
        "moves": lambda: db.moves(start), "best_moves": lambda: db.best_moves(start),
        "best_move": lambda: db.best_move(start), "line": lambda: db.line(start),
        "probe_many": lambda: db.probe_many([start]),
        "probe_many arrays": lambda: db.probe_many(([0], [start.musketeers], [start.enemies])),
        "load": db.load, "metadata": lambda: db.metadata,
    }
    for name, call in calls.items():
        with pytest.raises(DatabaseClosedError, match="is closed"):
            call()
    assert isinstance(DatabaseClosedError("x"), ValueError) and db.closed
    db.close()  # closing twice is harmless


def test_api_misuse_gets_precise_errors(db3, db4):
    with pytest.raises(TypeError, match="Move"):
        Position.start().play(None)
    with open_database(db3) as db:
        for wrong in ({}, "M XXO XOX OXX", {Position.start(3)}, 7):
            with pytest.raises(TypeError):
                db.probe_many(wrong)
        with pytest.raises(BoardMismatchError, match="^position 2: .*4x4 board"):
            db.probe_many([START3, START3, START4])
        with pytest.raises(PositionError, match="^position 1: "):
            db.probe_many([START3, "M XXO"])


# --- 8. the resume hint -------------------------------------------------------------


def test_the_resume_hint_is_the_command_that_resumes(tmp_path, interrupt_at, capsys):
    out = tmp_path / "x.h5"
    interrupt_at(5)
    with pytest.raises(KeyboardInterrupt):
        build(4, out, max_enemy_men=8, progress=False)
    interrupt_at(None)
    assert main(["probe", "--db", str(out), START4]) == 2
    err = capsys.readouterr().err
    command = err.split("to resume it, run: ")[1].strip()
    assert command == f"retro build --board 4 --max-enemy-men 8 --out {out}"
    assert main(command.split()[1:] + ["--quiet"]) == 0
    with open_database(out) as db:
        assert db.max_enemy_men == 8


# --- 9. standard streams ------------------------------------------------------------


@pytest.mark.parametrize("args, redirect, words", [
    (["play"], "<&-", "standard input is closed"),
    (["probe"], "<&-", "standard input is closed"),
    (["probe", START3], ">&-", "standard output is closed"),
    (["probe", START3], ">/dev/full", "No space left on device"),
    (["verify", "--quiet"], ">/dev/full", "No space left on device"),
])
def test_closed_or_failing_streams(db3, args, redirect, words):
    if redirect == ">/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    argv = args[:1] + (["--db", str(db3)] if args[0] in ("play", "probe") else [str(db3)]) + args[1:]
    script = " ".join([f"'{sys.executable}'", "-m", "retro.cli", *[f"'{a}'" for a in argv], redirect])
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    one_error_line(result.stderr, words)


# --- 10. an unwritable numba cache --------------------------------------------------


def test_an_unwritable_cache_falls_back_with_one_warning(tmp_path):
    """numba can cache neither next to retro (a read-only copy of the package) nor in
    the user's cache folder: every command still runs, after one warning line."""
    import retro

    site, cache = tmp_path / "site", tmp_path / "home-cache"
    package = site / "retro"
    shutil.copytree(os.path.dirname(retro.__file__), package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (package / "__pycache__").mkdir()
    cache.mkdir()
    frozen = [package, *package.rglob("*"), cache]
    for path in frozen:
        if os.geteuid() == 0:  # another user's files: owning them must not help
            os.chown(path, 65534, 65534)
        path.chmod(0o555 if path.is_dir() else 0o444)
    env = {**os.environ, "PYTHONPATH": str(site), "HOME": str(cache),
           "XDG_CACHE_HOME": str(cache), "TMPDIR": str(tmp_path)}
    env.pop("NUMBA_CACHE_DIR", None)
    script = ("import numba, retro.cli, retro.bits\n"
              "assert retro.bits.popcount(7) == 3\n"  # compiles, and caches in the fallback
              "print(numba.config.CACHE_DIR)\n")
    try:
        result = subprocess.run([*without_root_powers(), sys.executable, "-c", script],
                                capture_output=True, text=True, env=env, timeout=300,
                                cwd=tmp_path)
    finally:
        for path in frozen:
            path.chmod(0o755 if path.is_dir() else 0o644)
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line]
    assert len(warnings) == 1 and warnings[0].startswith("retro: warning: cannot write numba's cache")
    fallback = result.stdout.strip()
    assert fallback.startswith(str(tmp_path)) and any(Path(fallback).rglob("*.nbi"))
