"""Nine men's morris through the whole pipeline (issue 24): the out-of-core build (raw
checkpoints, resumed after a kill, a damaged one rebuilt, a stage then the rest), the
file probed a chunk at a time, verify catching a changed value, and the CLI's
``--pieces`` and ``--stage``.

The values themselves are checked against an independent solver in
tests/test_nine_oracle.py and against the engine's explicit solver in
tests/test_nine_engine.py; here the checks are the pipeline's and the rules' (a
colour-swapped position has the same value for the other side; a side left with 2
pieces has lost).
"""

from __future__ import annotations

import json
import random

import h5py
import numpy as np
import pytest

import retro
from retro import games
from retro.cli import main
from retro.db.format import DatabaseFile, dataset_path, partial_path
from retro.engine import build as builder
from retro.engine.build import build
from retro.verify import verify
from retro.games.morris import Position, Side

NINE = "nine-mens-morris"


def swapped(position: Position) -> Position:
    """The same position with the colours exchanged (the other side to move)."""
    return Position(position.game, position.side.other, position.black, position.white,
                    position.black_hand, position.white_hand)


def digests(path) -> dict:
    with h5py.File(path, "r") as f:
        return {name: f["tiers"][name].attrs["sha256"] for name in f["tiers"]}


@pytest.fixture(scope="module")
def four_three(tmp_path_factory):
    """White 4, Black 3: the whole game (unequal counts: either side may move with both
    hands empty)."""
    out = tmp_path_factory.mktemp("nine") / "nine-4-3.h5"
    return build(NINE, out, variant="4,3", progress=False).path


def sample(db, count: int, seed: int) -> list:
    """Positions met in random games from the start, and their colour swaps."""
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        position = db.game.start()
        for _ in range(rng.randrange(1, 60)):
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(rng.choice(moves))
        found.append(position)
    return found


def test_a_colour_swap_changes_only_who_wins(db_9mm3):
    """Once both hands are empty the 3-piece game is the same for both colours: a
    position and its colour swap (the other side to move) have the same value, won by
    the swapped side. Both are read from the one entry they share, so this checks the
    turn of relative values."""
    with retro.open_database(db_9mm3) as db:
        assert type(db).__name__ == "DiskTierDatabase"
        moving = [p for p in sample(db, 600, 1) if p.white_hand == p.black_hand == 0]
        assert len(moving) > 100
        for position in moving:
            outcome, other = db.probe(position), db.probe(swapped(position))
            assert other.plies == outcome.plies
            assert other.winner == (None if outcome.winner is None else outcome.winner.other)


def test_each_move_s_value_is_one_ply_from_the_position_s(db_9mm3):
    with retro.open_database(db_9mm3) as db:
        for position in sample(db, 200, 2):
            outcome = db.probe(position)
            moves = db.moves(position)
            if not moves:
                assert position.is_over() and outcome.plies == 0
                continue
            best = moves[0][1]
            if outcome.winner is None:
                assert best.winner is None
            else:
                assert best.winner == outcome.winner and best.plies == outcome.plies - 1


def test_a_side_left_with_two_pieces_has_lost_by_the_rules(db_9mm3):
    with retro.open_database(db_9mm3) as db:
        lost = db.game.parse("W 0 0 WW. ... ... ...... ... BBB ...")
        assert not db.game.stored(lost) and lost.is_over()
        outcome = db.probe(lost)
        assert outcome.winner is Side.BLACK and outcome.plies == 0
        # One ply before: Black closes a mill and takes the third white piece.
        before = db.game.parse("B 0 0 WW. ..W ... ...... ... BB. ..B")
        assert db.probe(before).winner is Side.BLACK and db.probe(before).plies == 1


def killed_at(game, out, tier, interrupt_at) -> None:
    """A build of ``game`` into ``out`` killed as ``tier`` begins: its checkpoints stay."""
    interrupt_at(tier)
    with pytest.raises(KeyboardInterrupt):
        build(game, out, progress=False)
    interrupt_at(None)


def resumed(game, out):
    """The same build run again: its summary and what it said."""
    notes: list[str] = []
    return build(game, out, progress=False, log=notes.append), notes


def test_an_interrupted_build_resumes_to_the_same_bytes(tmp_path, db_9mm3, interrupt_at):
    game = games.get(NINE, "3")
    out = tmp_path / "n3.h5"
    killed_at(game, out, game.tiers()[4], interrupt_at)
    tiers = game.tiers()
    packed = sorted(p.name for p in partial_path(out).glob("*.h5"))
    assert packed == sorted(f"{game.tier_name(t)}.h5" for t in tiers[:4])
    # Raw values only of the finished tiers that a tier still to come reads.
    read_later = {c for t in tiers[4:] for c in game.child_tiers(t)}
    raw = sorted(p.name for p in partial_path(out).glob("*.npy"))
    assert raw == sorted(f"{game.tier_name(t)}.npy" for t in tiers[:4] if t in read_later)
    assert len(raw) < 4
    # The first run's tiers took (say) an hour: the file's build time counts it.
    with h5py.File(partial_path(out) / f"{game.tier_name(tiers[2])}.h5", "r+") as f:
        f[dataset_path(game, tiers[2])].attrs["seconds"] = 3600.0
    summary, notes = resumed(game, out)
    assert summary.resumed_from == game.tiers()[4]
    assert any("resuming" in note for note in notes)
    assert digests(out) == digests(db_9mm3)
    assert not partial_path(out).exists()
    with h5py.File(out, "r") as f:
        assert f.attrs["build_seconds"] > 3600


def test_damaged_raw_values_are_written_again_from_their_packed_tier(tmp_path, db_9mm3,
                                                                     interrupt_at):
    game = games.get(NINE, "3")
    tiers = game.tiers()
    out = tmp_path / "n3.h5"
    killed_at(game, out, tiers[4], interrupt_at)
    read_later = [t for t in tiers[:4] if any(t in game.child_tiers(u) for u in tiers[4:])]
    damaged = partial_path(out) / f"{game.tier_name(read_later[0])}.npy"
    values = np.load(damaged)
    values[len(values) // 2] ^= 1
    np.save(damaged, values)
    summary, notes = resumed(game, out)
    assert summary.resumed_from == tiers[4]
    assert any("are damaged" in note and "do not match their SHA-256" in note and "written again"
               in note for note in notes)
    assert digests(out) == digests(db_9mm3)


def test_a_damaged_packed_checkpoint_is_rebuilt(tmp_path, db_9mm3, interrupt_at):
    game = games.get(NINE, "3")
    tiers = game.tiers()
    out = tmp_path / "n3.h5"
    killed_at(game, out, tiers[3], interrupt_at)
    with h5py.File(partial_path(out) / f"{game.tier_name(tiers[1])}.h5", "r+") as f:
        f[dataset_path(game, tiers[1])].attrs["sha256"] = "0" * 64
    summary, notes = resumed(game, out)
    assert summary.resumed_from == tiers[1]
    assert any("is damaged" in note for note in notes)
    assert digests(out) == digests(db_9mm3)


def test_the_moving_stage_then_the_rest(tmp_path, four_three):
    game = games.get(NINE, "4,3")
    out = tmp_path / "n43.h5"
    moving = build(game, out, stage="moving", progress=False)
    assert list(moving.tiers) == game.stage_tiers("moving") and all(t[0] == t[1] == 0 for t in moving.tiers)
    with retro.open_database(out) as db:
        assert len(db.tiers) == len(game.stage_tiers("moving"))
        slide = game.parse("W 0 0 WWW W.. ... ...... ... BBB ...")
        assert db.probe(slide) == retro.open_database(four_three).probe(slide)
        with pytest.raises(retro.errors.PositionNotInDatabaseError, match="--pieces 4,3"):
            db.probe(game.start())
    whole = build(game, out, progress=False)
    assert len(whole.tiers) == len(game.tiers())
    assert digests(out) == digests(four_three)


def test_verify_proves_the_file_and_finds_a_changed_value(tmp_path, db_9mm3):
    from retro.db.hdf5io import read_values

    report = verify(db_9mm3, progress=False)
    assert report.ok and report.positions_checked > 10**5
    bad = tmp_path / "bad.h5"
    game = games.get(NINE, "3")
    with h5py.File(db_9mm3, "r") as source, h5py.File(bad, "w") as f:
        for key, value in source.attrs.items():
            f.attrs[key] = value
        for name in source:
            source.copy(source[name], f, name)
        tier = game.tiers()[1]
        where = dataset_path(game, tier)
        values = read_values(f[where])  # the file stores ranks: their values
        # An entry with a position that is won: claim a draw instead (written back as plain
        # values, without codes: a file may store either).
        entry = next(e for e in range(len(values))
                     if game.position_at(tier, e) is not None and values[e] < 100)
        values[entry] = np.iinfo(values.dtype).max - 1  # the draw code
        sha = f[where].attrs["sha256"]
        del f[where]
        ds = f.create_dataset(where, data=values, chunks=(min(32768, len(values)),),
                              compression="gzip", shuffle=True, fletcher32=True)
        ds.attrs["sha256"] = sha
    report = verify(bad, progress=False)
    assert not report.ok and report.disagreement_count >= 1
    assert any(d.entry == entry for d in report.disagreements)
    assert any(not c.ok and c.name == "digests" for c in report.checks)
    # Same stored digests, so the good file's proof log applies: the tiers whose values
    # (and children's) are unchanged are taken from it, the changed one is proven again.
    assert 0 < report.resumed_tiers < report.tiers


def test_an_interrupted_verify_resumes_after_the_tiers_it_proved(db_9mm3, monkeypatch):
    import retro.verify.outofcore as outofcore

    whole = verify(db_9mm3, progress=False, fresh=True)
    assert whole.ok and whole.resumed_tiers == 0 and whole.proof_log
    real, calls, armed = outofcore._check_tier, [], [True]

    class Stopped(Exception):
        """The run stopped (Ctrl-C, a killed process) while it proved its fourth tier."""

    def stopped_at_the_fourth(*args, **kwargs):
        calls.append(args[1])
        if armed[0] and len(calls) == 4:
            armed[0] = False
            raise Stopped
        return real(*args, **kwargs)

    monkeypatch.setattr(outofcore, "_check_tier", stopped_at_the_fourth)
    with pytest.raises(Stopped):
        verify(db_9mm3, progress=False, fresh=True)
    calls.clear()
    again = verify(db_9mm3, progress=False)
    assert again.ok and again.resumed_tiers == 3 and len(calls) == whole.tiers - 3
    assert (again.positions_checked, again.terminal_positions) == (
        whole.positions_checked, whole.terminal_positions)
    assert verify(db_9mm3, progress=False).resumed_tiers == whole.tiers


def test_the_cli_builds_probes_and_verifies_a_pieces_variant(tmp_path, capsys, db_9mm3):
    out = tmp_path / "n3.h5"
    assert main(["build", "--pieces", "3", "--out", str(out), "--quiet"]) == 0
    assert digests(out) == digests(db_9mm3)
    capsys.readouterr()
    start = "W 3 3 ... ... ... ...... ... ... ..."
    assert main(["probe", "--pieces", "3", "--db", str(out), "--json", start]) == 0
    answer = json.loads(capsys.readouterr().out)
    with retro.open_database(db_9mm3) as db:
        expected = db.probe(db.game.start())
    assert answer["plies"] == expected.plies and len(answer["moves"]) == 24
    assert main(["verify", "--pieces", "3", str(out), "--quiet"]) == 0
    assert "the database is correct" in capsys.readouterr().out


@pytest.mark.parametrize("args, words", [
    (["build", "--pieces", "10"], "nine-mens-morris has no variant '10'"),
    (["build", "--pieces", "4,x"], "nine-mens-morris has no variant '4,x'"),
    (["build", "--pieces", "5", "--stage", "placing"], "no stage 'placing'; its stages are: moving"),
    (["build", "--game", "six-mens-morris", "--pieces", "5"], "--pieces is for nine-mens-morris"),
    (["build", "--game", "tic-tac-toe", "--stage", "moving"], "tic-tac-toe has no stage 'moving'"),
    (["probe", "--pieces", "5", "W 9 9 ... ... ... ...... ... ... ..."], "White has 9 pieces in hand"),
    (["probe", "--pieces", "4,3", "W 3 4 ... ... ... ...... ... ... ..."], "this game gives White 4 and Black 3"),
])
def test_bad_pieces_and_stages_are_one_line(args, words, capsys):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("retro: error: ") and words in err, err


def test_a_probe_of_another_variant_s_file_is_refused(db_9mm3, capsys):
    assert main(["probe", "--pieces", "4", "--db", str(db_9mm3), "W 4 4 ... ... ... ...... ... ... ..."]) == 2
    err = capsys.readouterr().err
    assert "holds nine-mens-morris 3" in err and err.count("\n") == 1


def test_the_file_records_the_build_and_reads_a_chunk_per_probe(db_9mm3):
    file = DatabaseFile(db_9mm3)
    try:
        assert file.game is games.get(NINE, "3")
        dataset = file.dataset(file.tiers[0])
        assert dataset.fletcher32 and dataset.shuffle and dataset.chunks[0] * 2 <= 1 << 16
        assert "seconds" in dataset.attrs
    finally:
        file.close()


def test_analyze_counts_each_position_once_from_the_mover_s_view(db_9mm3):
    from retro.analyze import analysis_text, analyze

    report = analyze(db_9mm3, progress=False)
    game = games.get(NINE, "3")
    canonical = sum(int(np.count_nonzero(game.canonical_entries(t, np.arange(game.tier_size(t)))
                                         == np.arange(game.tier_size(t)))) for t in game.tiers())
    assert report["positions"]["distinct"] == canonical
    assert report["positions"]["entries"] == sum(game.tier_size(t) for t in game.tiers())
    with retro.open_database(db_9mm3) as db:
        start = db.probe(game.start())
        assert report["start"]["plies"] == start.plies
        # The side to move's wins over the canonical entries, counted here by probing.
        tier = min((t for t in game.tiers() if game.tier_size(t) > 500), key=game.tier_size)
        wins, longest = 0, {True: 0, False: 0}
        for entry in range(game.tier_size(tier)):
            position = game.position_at(tier, entry)
            if position is not None:
                outcome = db.probe(position)
                wins += outcome.winner is position.side
                if outcome.winner is not None:
                    won = outcome.winner is position.side
                    longest[won] = max(longest[won], outcome.plies)
        row = next(r for r in report["tiers"] if r["tier"] == game.tier_name(tier))
        assert row["by_side"]["mover"]["distinct"]["wins"] == wins
        assert row["longest_win"]["plies"] == longest[True]
        assert row["longest_loss"]["plies"] == longest[False]
        example = db.probe(game.parse(row["longest_win"]["position"]))
        assert example.plies == longest[True] and example.winner is not None
    text = analysis_text(report)
    assert "side to move: wins" in text and game.tier_name(game.tiers()[-1]) in text


def test_tiers_store_ranks_by_frequency_and_read_back_as_values(db_9mm3):
    """Each tier stores its values' ranks by frequency (attribute codes): the reader
    gives the values back, the digest is of the values, and a number past the codes
    (a damaged file) reads as "not a position", never as another value."""
    from retro.db.format import DatabaseFile
    from retro.db.hdf5io import decoded, digest, get_text, value_table
    from retro.values import not_a_position

    file = DatabaseFile(db_9mm3)
    try:
        for tier in file.tiers:
            dataset = file.dataset(tier)
            stored = dataset[()]
            codes = np.asarray(dataset.attrs["codes"])
            values = file.read(tier)
            assert np.array_equal(values, codes[stored])
            assert digest(values) == get_text(dataset.attrs, "sha256")
            counts = [int(np.count_nonzero(values == c)) for c in codes]
            assert counts == sorted(counts, reverse=True) and min(counts) > 0
        table = value_table(dataset)
        past = np.array([len(codes), 65535], dtype=np.uint16)
        assert list(decoded(past, table)) == [not_a_position(np.uint16)] * 2
    finally:
        file.close()


def test_the_space_estimate_covers_the_real_peak_of_an_out_of_core_build(tmp_path, monkeypatch):
    """Measured after every file the build writes (a packed tier beside the raw values
    still to be read; the database beside every packed tier), in the disk's blocks."""
    import os

    from retro.engine import rawstore

    game = games.get(NINE, "3")
    out = tmp_path / "n3.h5"
    real_stream = rawstore.stream_database
    peak = [0]

    def blocks(path):
        return os.lstat(path).st_blocks * 512

    def measure(path, write):
        real_stream(path, write)
        used = sum(blocks(p) for p in partial_path(out).iterdir()) if partial_path(out).exists() else 0
        peak[0] = max(peak[0], used + (blocks(out) if out.exists() else 0))

    monkeypatch.setattr(rawstore, "stream_database", measure)
    estimate = builder._Job(game, tuple(game.tiers()), out, None).space_needed(0)
    build(game, out, progress=False)
    assert 0 < peak[0] <= estimate, (peak[0], estimate)
    print(peak[0], estimate)


def test_verify_reads_the_tiers_read_again_into_scratch_files_and_removes_them(db_9mm3, monkeypatch):
    """The whole game's tiers do not fit in memory at once: a tier that a later tier reads
    is read once, into a memory-mapped scratch file removed after its last reader; a tier
    no later tier reads is read into memory."""
    import retro.verify.outofcore as outofcore

    game = games.get(NINE, "3")
    real, reads = outofcore.read_tier, []

    def spy(db, tier, into=None):
        values, sha256 = real(db, tier, into)
        reads.append((tier, into, isinstance(values, np.memmap)))
        return values, sha256

    monkeypatch.setattr(outofcore, "read_tier", spy)
    report = verify(db_9mm3, progress=False, fresh=True)
    assert report.ok and report.resumed_tiers == 0
    tiers = game.tiers()
    assert sorted(map(str, (t for t, _, _ in reads))) == sorted(map(str, tiers))  # each once
    spilled = 0
    for tier, into, mapped in reads:
        read_later = any(tier in game.child_tiers(p) for p in tiers[tiers.index(tier) + 1:])
        assert (into is not None) == read_later == mapped, game.tier_name(tier)
        if into is not None:
            spilled += 1
            assert not into.exists() and not into.parent.exists()
    assert 0 < spilled < len(tiers)


def test_verify_without_the_scratch_space_it_needs_says_so_and_leaves_nothing(db_9mm3, monkeypatch):
    import errno
    from collections import namedtuple
    from pathlib import Path

    import platformdirs

    import retro.verify.outofcore as outofcore

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(outofcore.shutil, "disk_usage", lambda path: usage(10**6, 10**6 - 1000, 1000))
    with pytest.raises(OSError) as raised:
        verify(db_9mm3, progress=False, fresh=True)
    assert raised.value.errno == errno.ENOSPC
    assert "of scratch space for the tiers read more than once" in raised.value.strerror
    cache = Path(platformdirs.user_cache_dir("retro", appauthor=False)) / "verify"
    assert not list(cache.glob("verify-*"))  # its scratch folder removed


def test_verify_removes_the_scratch_folders_of_killed_runs_and_no_other(db_9mm3):
    """A verification killed midway (SIGKILL, the end of a session) leaves its scratch
    files; the next run removes the folders no running verification holds."""
    import fcntl
    from pathlib import Path

    import platformdirs

    cache = Path(platformdirs.user_cache_dir("retro", appauthor=False)) / "verify"
    abandoned, running = cache / "verify-killed", cache / "verify-running"
    for folder in (abandoned, running):
        folder.mkdir(parents=True)
        (folder / "hand_0_0_board_3_3.npy").write_bytes(b"\0" * 100)
        (folder / "lock").touch()
    with open(running / "lock", "a+b") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert verify(db_9mm3, progress=False, fresh=True).ok
        assert not abandoned.exists()
        assert (running / "hand_0_0_board_3_3.npy").exists()
    assert sorted(p.name for p in cache.glob("verify-*")) == ["verify-running"]


def test_verify_of_a_file_whose_tiers_are_never_read_again(tmp_path):
    """The 3-piece moving stage is one tier, read only by itself: no scratch folder,
    and the run ends cleanly."""
    out = tmp_path / "moving3.h5"
    build(games.get(NINE, "3"), out, stage="moving", progress=False)
    report = verify(out, progress=False, fresh=True)
    assert report.ok and report.positions_checked > 10**5
