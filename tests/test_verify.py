"""``retro.verify.musketeers``: it passes sound databases and names every value it was not given.

Corrupted copies are made here with h5py; the expected values of the corrupted
positions come from the plain minimax of tests/minimax.py.
"""

from __future__ import annotations

import hashlib
import shutil
from math import comb

import h5py
import numpy as np
import pytest
from minimax import new_memo, solve_many

from retro import (
    DatabaseNotFoundError,
    IncompleteDatabaseError,
    NotADatabaseError,
    Position,
    Side,
)
from retro.games.musketeers.index import encode, indexer
from retro.games.musketeers.layout import LAYER_GROUP, storage_perm, storage_rank
from retro.cli import main
from retro.verify.musketeers import symmetries, verify

PLACEMENTS = {3: 16, 4: 77, 5: 319}  # canonical musketeer placements (3-sets up to symmetry)


def _minimax(position: Position) -> int:
    return int(solve_many(np.array([position.side.code]), np.array([position.musketeers]),
                          np.array([position.enemies]), position.size, new_memo())[0])


def _location(position: Position) -> tuple[int, int, int]:
    """(layer, row, column) of an enemy-to-move position in the stored tables."""
    ix = indexer(position.size)
    p, mask = encode(position.musketeers, position.enemies, ix)
    col = storage_rank(p, mask, storage_perm(position.size), ix.rank_table)
    return position.enemy_count, int(p), int(col)


def _rewrite(path, changes: dict, *, update_digest: bool) -> None:
    """Set stored values {(k, row, col): value}; keep or refresh the layers' digests."""
    with h5py.File(path, "r+") as f:
        for k in sorted({k for k, _, _ in changes}):
            dataset = f[LAYER_GROUP][f"layer_{k:02d}"]
            values = dataset[()]
            for (layer, p, col), value in changes.items():
                if layer == k:
                    values[p, col] = value
            dataset[...] = values
            if update_digest:
                dataset.attrs["sha256"] = hashlib.sha256(values.tobytes()).hexdigest()


def _stored(path, k: int, p: int, col: int) -> int:
    with h5py.File(path, "r") as f:
        return int(f[LAYER_GROUP][f"layer_{k:02d}"][p, col])


def _images(position: Position) -> set[str]:
    return {str(image) for image in position.symmetric_images()}


def _check(report, name):
    return next(c for c in report.checks if c.name == name)


@pytest.mark.parametrize("fixture, n, top", [("db3", 3, 6), ("db4", 4, 13), ("db5_low", 5, 4)])
def test_sound_databases_pass(fixture, n, top, request):
    report = verify(request.getfixturevalue(fixture), progress=False)
    assert report.ok, [c for c in report.checks if not c.ok]
    assert report.disagreement_count == 0 and report.disagreements == []
    free = n * n - 3
    assert report.positions_checked == PLACEMENTS[n] * sum(comb(free, k) for k in range(top + 1))
    assert report.musketeer_positions_resolved == report.positions_checked
    assert report.size == n and report.max_enemy_men == top
    names = {c.name for c in report.checks}
    assert {"rules", "placements", "storage order", "Fletcher32 checksums",
            "SHA-256 digests", "terminal rules", "local consistency"} <= names
    assert report.terminal_positions > 0
    assert report.as_dict()["ok"] is True


# A 4×4 position with the enemy to move, five men, play left in it.
FLIPPED = Position.parse("E .O.X XOX. .X.. O..X")


@pytest.mark.parametrize("update_digest", [False, True])
def test_a_flipped_value_is_named(db4, tmp_path, update_digest):
    assert FLIPPED.winner() is None and FLIPPED.legal_moves()
    path = tmp_path / "flipped.h5"
    shutil.copy(db4, path)
    k, p, col = _location(FLIPPED)
    true_value = _minimax(FLIPPED)
    assert _stored(path, k, p, col) == true_value
    wrong = true_value ^ 2  # one ply off, same winner: the subtlest change
    _rewrite(path, {(k, p, col): wrong}, update_digest=update_digest)

    report = verify(path, progress=False)
    assert not report.ok
    first = report.disagreements[0]
    assert first.position in _images(FLIPPED)
    assert (first.enemy_men, first.placement, first.column) == (k, p, col)
    assert first.stored == wrong and first.expected == true_value
    assert Position.parse(first.position).side is Side.ENEMY
    assert "best over the enemy's moves" in first.rule
    assert first.expected_outcome == str(_outcome(true_value))
    # Only the flipped value disagrees within its own layer.
    assert [d for d in report.disagreements if d.enemy_men == k] == [first]
    assert _check(report, "SHA-256 digests").ok is update_digest
    if not update_digest:
        assert f"[{k}]" in _check(report, "SHA-256 digests").detail
    assert not _check(report, "local consistency").ok
    assert _check(report, "terminal rules").ok
    assert _check(report, "Fletcher32 checksums").ok


def _outcome(value: int):
    from retro.values import Outcome

    return Outcome.from_value(value, Side.ENEMY)


@pytest.mark.parametrize("text, rule", [
    ("E OOO. XX.. .... ...X", "in a line"),  # aligned musketeers: the enemy has won
    ("E O.O. .O.. .... ....", "no move"),  # no enemy man: the musketeers have won
    ("E XO.. O... .... ..O.", "no move"),  # the only man is blocked
])
def test_a_wrong_finished_value_breaks_the_terminal_rules(db4, tmp_path, text, rule):
    position = Position.parse(text)
    assert position.winner() is not None
    path = tmp_path / "terminal.h5"
    shutil.copy(db4, path)
    k, p, col = _location(position)
    true_value = _minimax(position)
    _rewrite(path, {(k, p, col): true_value + 4}, update_digest=True)
    report = verify(path, progress=False)
    assert not report.ok and not _check(report, "terminal rules").ok
    first = report.disagreements[0]
    assert first.position in _images(position)
    assert first.expected == true_value and first.stored == true_value + 4
    assert rule in first.rule


def test_every_flip_in_a_layer_is_found_and_nothing_else(db3, tmp_path):
    path = tmp_path / "many.h5"
    shutil.copy(db3, path)
    k = 3
    rng = np.random.default_rng(3)
    with h5py.File(path, "r") as f:
        values = f[LAYER_GROUP][f"layer_{k:02d}"][()]
    cells = {(int(p), int(c)) for p, c in zip(rng.integers(0, values.shape[0], 12),
                                              rng.integers(0, values.shape[1], 12))}
    _rewrite(path, {(k, p, c): int(values[p, c]) ^ 1 for p, c in cells}, update_digest=True)
    report = verify(path, progress=False, max_reports=100)
    found = {(d.placement, d.column) for d in report.disagreements if d.enemy_men == k}
    assert found == cells
    assert not any(d.enemy_men < k for d in report.disagreements)
    assert report.disagreement_count >= len(cells)


def test_reports_are_capped(db4, tmp_path):
    path = tmp_path / "capped.h5"
    shutil.copy(db4, path)
    with h5py.File(path, "r") as f:
        row = f[LAYER_GROUP]["layer_06"][10]
    _rewrite(path, {(6, 10, c): int(row[c]) ^ 2 for c in range(5)}, update_digest=False)
    report = verify(path, progress=False, max_reports=2)
    assert report.disagreement_count >= 5 and len(report.disagreements) == 2
    assert [d.column for d in report.disagreements] == [0, 1]


def test_a_damaged_chunk_is_reported(db4, tmp_path):
    path = tmp_path / "damaged.h5"
    shutil.copy(db4, path)
    with h5py.File(path, "r") as f:
        info = f[LAYER_GROUP]["layer_07"].id.get_chunk_info(0)
    with open(path, "r+b") as handle:
        handle.seek(info.byte_offset + info.size // 2)
        byte = handle.read(1)
        handle.seek(info.byte_offset + info.size // 2)
        handle.write(bytes([byte[0] ^ 0x55]))
    report = verify(path, progress=False)
    assert not report.ok
    check = _check(report, "Fletcher32 checksums")
    assert not check.ok and "layer 7" in check.detail
    for name in ("SHA-256 digests", "terminal rules", "local consistency"):
        check = _check(report, name)
        assert not check.ok and "layers 7..13 not checked" in check.detail
    assert report.positions_checked == 77 * sum(comb(13, k) for k in range(7))


def test_metadata_is_checked(db4, tmp_path):
    path = tmp_path / "rules.h5"
    shutil.copy(db4, path)
    with h5py.File(path, "r+") as f:
        f.attrs["rules"] = "musketeers may jump"
    report = verify(path, progress=False)
    assert not report.ok and not _check(report, "rules").ok
    assert _check(report, "local consistency").ok  # the values are still checked

    path = tmp_path / "order.h5"
    shutil.copy(db4, path)
    with h5py.File(path, "r+") as f:
        order = f["storage_order"][()]
        order[0, [0, 1]] = order[0, [1, 0]]
        f["storage_order"][...] = order
    report = verify(path, progress=False)
    assert not report.ok and not _check(report, "storage order").ok
    assert not _check(report, "values").ok  # a foreign layout is not guessed at


def _replace_layer(f, k, make):
    name = f"layer_{k:02d}"
    values, attrs = f[LAYER_GROUP][name][()], dict(f[LAYER_GROUP][name].attrs)
    del f[LAYER_GROUP][name]
    target = make(f[LAYER_GROUP], name, values)
    for key, value in attrs.items():
        target.attrs[key] = value


def test_a_layer_that_is_not_a_table_is_reported(db4, tmp_path):
    path = tmp_path / "group.h5"
    shutil.copy(db4, path)
    with h5py.File(path, "r+") as f:
        _replace_layer(f, 3, lambda group, name, values: group.create_group(name))
    report = verify(path, progress=False)
    assert not report.ok
    assert "[3]" in _check(report, "layer shapes").detail
    assert not _check(report, "values").ok


def test_an_unchunked_layer_is_still_checked(db4, tmp_path):
    # Without chunks there is no Fletcher32: the filter check fails, the values are sound.
    path = tmp_path / "contiguous.h5"
    shutil.copy(db4, path)
    with h5py.File(path, "r+") as f:
        _replace_layer(f, 3, lambda group, name, values: group.create_dataset(name, data=values))
    report = verify(path, progress=False)
    assert not report.ok and "[3]" in _check(report, "layer filters").detail
    assert _check(report, "local consistency").ok and _check(report, "SHA-256 digests").ok


def test_the_symmetries_are_those_of_the_square():
    # Written out here square by square: (row, col) -> image for each of the 8.
    for n in (3, 4, 5):
        last = n - 1
        expected = {
            tuple(f(r, c)[0] * n + f(r, c)[1] for r in range(n) for c in range(n))
            for f in (
                lambda r, c: (r, c), lambda r, c: (c, last - r),
                lambda r, c: (last - r, last - c), lambda r, c: (last - c, r),
                lambda r, c: (r, last - c), lambda r, c: (last - r, c),
                lambda r, c: (c, r), lambda r, c: (last - c, last - r),
            )
        }
        got = symmetries(n)
        assert {tuple(int(x) for x in row) for row in got} == expected and len(got) == 8


@pytest.mark.parametrize("args, message", [
    (["verify", "{tmp}"], "is a directory"),
    (["verify", "{tmp}/junk.h5"], "not an HDF5 file"),
    (["verify", "{tmp}/missing.h5"], "no database at"),
    (["verify", "{db}", "--max-reports", "-1"], "0 or more"),
])
def test_command_line_errors_are_one_line(db3, tmp_path, capsys, args, message):
    (tmp_path / "junk.h5").write_text("not hdf5")
    assert main([a.format(tmp=tmp_path, db=db3) for a in args] + ["--quiet"]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("retro: error: ") and captured.err.count("\n") == 1
    assert message in captured.err and "Traceback" not in captured.err


def test_the_command_names_a_wrong_value(db4, tmp_path, capsys):
    path = tmp_path / "flipped.h5"
    shutil.copy(db4, path)
    k, p, col = _location(FLIPPED)
    _rewrite(path, {(k, p, col): _minimax(FLIPPED) ^ 2}, update_digest=True)
    assert main(["verify", str(path), "--quiet"]) == 1
    out = capsys.readouterr().out
    named = [line for line in out.splitlines() if line.startswith("  E ")]
    assert named and named[0].split(":")[0].strip() in _images(FLIPPED)
    assert "NOT correct" in out


def test_files_that_are_not_databases(tmp_path, db4):
    with pytest.raises(DatabaseNotFoundError):
        verify(tmp_path / "missing.h5", progress=False)
    (tmp_path / "junk.h5").write_text("not hdf5")
    with pytest.raises(NotADatabaseError):
        verify(tmp_path / "junk.h5", progress=False)
    path = tmp_path / "unfinished.h5"
    shutil.copy(db4, path)
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = False
    with pytest.raises(IncompleteDatabaseError):
        verify(path, progress=False)
    with h5py.File(path, "r+") as f:
        f.attrs["complete"] = True
        f.attrs["board_size"] = 6
    with pytest.raises(NotADatabaseError):
        verify(path, progress=False)
    with pytest.raises(ValueError):
        verify(db4, max_reports=-1)


def test_progress_bar(db3, capsys):
    assert verify(db3, progress=True).ok
    assert "verifying" in capsys.readouterr().err


# --- the out-of-core verifier writes only where a regular file is, or nothing -------------
# (issue 40, defect 1: its scratch files and its proof log go through the output guard)


@pytest.fixture
def victim(tmp_path):
    """A regular file a planted link points at: it must come out unchanged."""
    path = tmp_path / "victim"
    path.write_bytes(b"not to be written")
    yield path
    assert path.read_bytes() == b"not to be written"


def _nine(db_9mm3):
    from retro.db.format import DatabaseFile

    return DatabaseFile(db_9mm3)


@pytest.mark.parametrize("kind", ["symbolic link", "named pipe"])
def test_a_scratch_file_in_the_way_is_refused_not_written_through(kind, db_9mm3, tmp_path, victim):
    import os
    import stat

    from retro.errors import OutputPathError
    from retro.verify.outofcore import read_tier

    scratch = tmp_path / "tier.npy"
    if kind == "symbolic link":
        scratch.symlink_to(victim)
    else:
        os.mkfifo(scratch)
    file = _nine(db_9mm3)
    try:
        with pytest.raises(OutputPathError):
            read_tier(file, file.tiers[0], scratch)
    finally:
        file.close()
    mode = os.lstat(scratch).st_mode
    assert stat.S_ISLNK(mode) if kind == "symbolic link" else stat.S_ISFIFO(mode)


def test_a_scratch_file_holds_the_tier_as_read_into_memory(db_9mm3, tmp_path):
    from retro.verify.outofcore import read_tier

    file = _nine(db_9mm3)
    try:
        tier = max(file.tiers, key=lambda t: file.dataset(t).shape[0])
        in_memory, digest = read_tier(file, tier)
        mapped, mapped_digest = read_tier(file, tier, tmp_path / "tier.npy")
        assert isinstance(mapped, np.memmap) and mapped_digest == digest
        assert np.array_equal(np.asarray(mapped), in_memory)
    finally:
        file.close()


@pytest.mark.parametrize("which", ["log", "its .tmp"])
def test_a_proof_log_in_the_way_is_refused_before_anything_is_proven(which, db_9mm3, victim):
    from pathlib import Path

    from retro.errors import OutputPathError
    from retro.verify.tiers import verify as verify_tiers_file

    first = verify_tiers_file(db_9mm3, progress=False, fresh=True)
    assert first.ok and first.proof_log
    log = Path(first.proof_log)
    planted = log if which == "log" else log.with_name(log.name + ".tmp")
    log.unlink()
    planted.symlink_to(victim)
    with pytest.raises(OutputPathError) as refused:
        verify_tiers_file(db_9mm3, progress=False, fresh=True)
    assert "\n" not in str(refused.value) and str(planted) in str(refused.value)
    assert planted.is_symlink()


def test_verify_with_a_proof_log_in_the_way_is_one_line_and_exit_2(db_9mm3, victim, capsys):
    from pathlib import Path

    from retro.verify.tiers import verify as verify_tiers_file

    log = Path(verify_tiers_file(db_9mm3, progress=False, fresh=True).proof_log)
    log.unlink()
    log.symlink_to(victim)
    capsys.readouterr()
    assert main(["verify", str(db_9mm3), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("retro: error: ") and err.count("\n") == 1, err
    assert log.is_symlink()


def test_a_link_among_the_scratch_folders_is_neither_followed_nor_removed(db_9mm3, tmp_path):
    """Each run removes the scratch folders that killed runs left (``verify-*`` beside the
    proof log); a link of that name leads elsewhere, where nothing is to be written or
    removed."""
    from pathlib import Path

    import platformdirs

    from retro.verify.tiers import verify as verify_tiers_file

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep").write_bytes(b"kept")
    cache = Path(platformdirs.user_cache_dir("retro", appauthor=False)) / "verify"
    cache.mkdir(parents=True)
    (cache / "verify-planted").symlink_to(elsewhere, target_is_directory=True)
    assert verify_tiers_file(db_9mm3, progress=False, fresh=True).ok
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep"]
