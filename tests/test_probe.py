"""The probing API: probe, moves, best_move, line, probe_many, both modes, text, errors.

Expected values come from the plain minimax of tests/minimax.py, and moves from the
small move generator below; neither shares code with retro.
"""

from __future__ import annotations

import json
import random
import shutil

import h5py
import numpy as np
import pytest
from minimax import new_memo, solve_many

from retro import (
    BoardMismatchError,
    BoardSizeError,
    ChecksumError,
    DatabaseNotFoundError,
    IllegalMoveError,
    IncompleteDatabaseError,
    MusketeerCountError,
    NotADatabaseError,
    Position,
    PositionNotInDatabaseError,
    RowCountError,
    RowLengthError,
    Side,
    SideError,
    UnknownCharacterError,
    open_database,
)
from retro.db.database import BatchPositionError, DatabasePool, GameOverError
from retro.text import format_probe, probe_json, probe_lines
from retro.engine.build import build
from retro.games.musketeers.layout import LAYER_GROUP

FILES = "abcde"
MEMOS = {}


# --- an independent reference ------------------------------------------------------


def in_line(m: int, n: int) -> bool:
    squares = [s for s in range(n * n) if m >> s & 1]
    return len({s // n for s in squares}) == 1 or len({s % n for s in squares}) == 1


def children(side: int, m: int, e: int, n: int) -> list[tuple[str, int, int, int]]:
    """(move text, child side, child musketeers, child enemies) of every legal move."""
    if in_line(m, n):
        return []
    out = []
    for s in range(n * n):
        if not ((m if side == 0 else e) >> s & 1):
            continue
        r, c = divmod(s, n)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if not (0 <= rr < n and 0 <= cc < n):
                continue
            t = rr * n + cc
            text = f"{FILES[c]}{r + 1}-{FILES[cc]}{rr + 1}"
            if side == 0 and e >> t & 1:
                out.append((text, 1, m ^ (1 << s) ^ (1 << t), e ^ (1 << t)))
            elif side == 1 and not (m | e) >> t & 1:
                out.append((text, 0, m, e ^ (1 << s) ^ (1 << t)))
    return out


def values(sides, ms, es, n: int) -> np.ndarray:
    """Minimax values ``2 * plies + musketeers_win``."""
    if n not in MEMOS:  # the board's own memo: a plain array for 3x3 and 4x4
        MEMOS[n] = new_memo(n)
    memo = MEMOS[n]
    return solve_many(np.asarray(sides, dtype=np.int64), np.asarray(ms, dtype=np.int64),
                      np.asarray(es, dtype=np.int64), n, memo)


def value(side: int, m: int, e: int, n: int) -> int:
    return int(values([side], [m], [e], n)[0])


def mover_key(v: int, side: int) -> tuple[int, int]:
    """Smaller is better for ``side`` choosing a child of value ``v``."""
    wins = (v & 1) == (1 if side == 0 else 0)
    return (0, v >> 1) if wins else (1, -(v >> 1))


def random_positions(n: int, count: int, seed: int, max_men: int | None = None):
    """(side, musketeers, enemies) of random positions, finished ones included."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        squares = rng.permutation(n * n)
        m = sum(1 << int(s) for s in squares[:3])
        top = n * n - 3 if max_men is None else max_men
        k = int(rng.integers(0, top + 1))
        e = sum(1 << int(s) for s in squares[3:3 + k])
        out.append((int(rng.integers(0, 2)), m, e))
    return out


def position(side: int, m: int, e: int, n: int) -> Position:
    return Position(Side.MUSKETEERS if side == 0 else Side.ENEMY, m, e, n)


def as_value(outcome) -> int:
    return 2 * outcome.plies + (1 if outcome.winner is Side.MUSKETEERS else 0)


# --- single positions --------------------------------------------------------------


@pytest.mark.parametrize("in_memory", [False, True])
def test_probe_moves_best_move_and_line_against_minimax(db4, in_memory):
    n = 4
    with open_database(db4, in_memory=in_memory) as db:
        for side, m, e in random_positions(n, 120, seed=1, max_men=10):
            p = position(side, m, e, n)
            expected = value(side, m, e, n)
            outcome = db.probe(p)
            assert as_value(outcome) == expected == db.value(p)
            assert outcome.side_to_move is p.side
            assert outcome.side_to_move_wins == ((expected & 1) == (1 - side))

            kids = children(side, m, e, n)
            kid_values = {text: value(cs, cm, ce, n) for text, cs, cm, ce in kids}
            moves = db.moves(p)
            assert {str(mv): as_value(o) for mv, o in moves} == kid_values
            assert len(moves) == len(kids)
            keys = [mover_key(as_value(o), side) for _, o in moves]
            assert keys == sorted(keys), "moves are not best first"
            if not kids:
                assert p.is_over()
                with pytest.raises(GameOverError):
                    db.best_move(p)
                assert db.line(p) == []
                continue
            best_key = min(keys)
            best = db.best_move(p)
            assert mover_key(kid_values[str(best)], side) == best_key
            assert kid_values[str(best)] >> 1 == (expected >> 1) - 1

            line = db.line(p)
            assert len(line) == expected >> 1
            walk = p
            for move in line:
                walk = walk.play(move)
            assert walk.is_over()
            assert (walk.winner() is Side.MUSKETEERS) == bool(expected & 1)


def test_low_5x5_layers_against_minimax(db5_low):
    n = 5
    with open_database(db5_low) as db:
        for side, m, e in random_positions(n, 60, seed=2, max_men=4):
            p = position(side, m, e, n)
            expected = value(side, m, e, n)
            assert as_value(db.probe(p)) == expected
            kid_values = {t: value(cs, cm, ce, n) for t, cs, cm, ce in children(side, m, e, n)}
            assert {str(mv): as_value(o) for mv, o in db.moves(p)} == kid_values
            line = db.line(p)
            assert len(line) == expected >> 1


# Finished 4x4 positions, each with the winner the rules give it, worked out by hand:
# rule 3 (musketeers in one line: the enemy has won) comes before rule 4 (the side
# to move has no move: the musketeers have won).
FINISHED = [
    ("M OOO. XXXX .... ....", Side.ENEMY),  # in a line, captures available
    ("E OOO. XXXX .... ....", Side.ENEMY),  # in a line, enemy moves available
    ("M O... O... O... XXXX", Side.ENEMY),  # in a column
    ("M OOO. .... .... ....", Side.ENEMY),  # in a line and stuck: rule 3 first
    ("E XO.. O... .... ...O", Side.MUSKETEERS),  # the one enemy man is boxed in
    ("E O... .O.. ..O. ....", Side.MUSKETEERS),  # no enemy man left
    ("M O... .O.. ..O. ...X", Side.MUSKETEERS),  # no capture
]


@pytest.mark.parametrize("in_memory", [False, True])
def test_finished_positions(db4, in_memory):
    positions = [Position.parse(text) for text, _ in FINISHED]
    winners = [winner for _, winner in FINISHED]
    for p, winner in zip(positions, winners):  # the hand-worked winners, checked
        side = 0 if p.side is Side.MUSKETEERS else 1
        assert children(side, p.musketeers, p.enemies, 4) == []
        assert value(side, p.musketeers, p.enemies, 4) == (1 if winner is Side.MUSKETEERS else 0)
    with open_database(db4, in_memory=in_memory) as db:
        for p, winner in zip(positions, winners):
            outcome = db.probe(p)
            assert (outcome.winner, outcome.plies) == (winner, 0)
            assert db.moves(p) == [] and db.line(p) == []
            with pytest.raises(GameOverError, match="game is over"):
                db.best_move(p, rng=1)
        win, plies = db.probe_many(positions)
        assert win.tolist() == [w is Side.MUSKETEERS for w in winners]
        assert plies.tolist() == [0] * len(positions)
        arrays = ([0 if p.side is Side.MUSKETEERS else 1 for p in positions],
                  [p.musketeers for p in positions], [p.enemies for p in positions])
        assert db.probe_many(arrays)[0].tolist() == win.tolist()


def test_batches_with_lines_and_stuck_sides_agree_with_single_probes(db4, db5_low):
    # Random positions are rarely in a line or stuck: build such positions on purpose.
    for path, n, men in ((db4, 4, 9), (db5_low, 5, 4)):
        rng = np.random.default_rng(n)
        sample = []
        for line in range(2 * n):
            squares = ([line * n + c for c in range(n)] if line < n
                       else [r * n + line - n for r in range(n)])
            m = sum(1 << s for s in rng.choice(squares, 3, replace=False))
            free = [s for s in range(n * n) if not m >> s & 1]
            e = sum(1 << int(s) for s in rng.choice(free, int(rng.integers(0, men + 1)), replace=False))
            sample += [(0, m, e), (1, m, e)]
        for side, m, e in random_positions(n, 400, seed=13, max_men=men):
            if not children(side, m, e, n):
                sample.append((side, m, e))
            # Fill every empty square next to a musketeer or enemy man: the side to
            # move is then often stuck.
            near = 0
            for s in range(n * n):
                if (m | e) >> s & 1:
                    r, c = divmod(s, n)
                    for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                        if 0 <= rr < n and 0 <= cc < n:
                            near |= 1 << (rr * n + cc)
            crowded = e | (near & ~m)
            if bin(crowded).count("1") <= men:
                sample.append((side, m, crowded))
        expected = values(*zip(*sample), n)
        assert sum(not children(*s, n) for s in sample) > 20
        with open_database(path) as disk, open_database(path, in_memory=True) as memory:
            for db in (disk, memory):
                win, plies = db.probe_many(tuple(np.array(c) for c in zip(*sample)))
                assert np.array_equal(2 * plies + win, expected)
                singles = [as_value(db.probe(position(*s, n))) for s in sample]
                assert singles == expected.tolist()


def test_position_text_is_accepted(db4):
    with open_database(db4) as db:
        text = "M X..O XX.. X.OX O..X"
        m, e = 0, 0
        for r, row in enumerate(text.split()[1:]):
            for c, ch in enumerate(row):
                if ch == "O":
                    m |= 1 << (r * 4 + c)
                elif ch == "X":
                    e |= 1 << (r * 4 + c)
        assert as_value(db.probe(text)) == value(0, m, e, 4)
        assert [str(mv) for mv, _ in db.moves(text)] == [str(mv) for mv, _ in db.moves(Position.parse(text))]


def test_best_move_ties_random_with_rng_and_fixed_without(db4):
    n = 4
    with open_database(db4) as db:
        # A position with several equally good moves, found with the reference.
        for side, m, e in random_positions(n, 400, seed=3):
            kids = children(side, m, e, n)
            if len(kids) < 3:
                continue
            keyed = {t: mover_key(value(cs, cm, ce, n), side) for t, cs, cm, ce in kids}
            best = min(keyed.values())
            ties = {t for t, k in keyed.items() if k == best}
            if len(ties) >= 3:
                break
        else:
            pytest.fail("no position with three equally good moves")
        p = position(side, m, e, n)
        first = db.best_move(p)
        assert str(first) in ties
        assert all(db.best_move(p) == first for _ in range(5))
        seen = {str(db.best_move(p, rng=seed)) for seed in range(60)}
        assert seen == ties
        assert db.best_move(p, rng=7) == db.best_move(p, rng=7)
        generator = np.random.default_rng(0)
        assert {str(db.best_move(p, rng=generator)) for _ in range(60)} == ties
        stdlib = random.Random(0)
        assert {str(db.best_move(p, rng=stdlib)) for _ in range(60)} == ties
        with pytest.raises(TypeError):
            db.best_move(p, rng="seed")


def test_start_of_the_full_5x5_game_if_built():
    from retro.db.format import default_path

    path = default_path(5)
    if not path.exists():
        pytest.skip("the full 5x5 database is not built")
    with open_database(path) as db:
        start = Position.start()
        outcome = db.probe(start)
        moves = db.moves(start)
        # Every child's value plus one ply gives the parent's, for the best child.
        assert moves[0][1].plies == outcome.plies - 1 and moves[0][1].winner is outcome.winner
        assert len(moves) == len(children(0, start.musketeers, start.enemies, 5))
        line = db.line(start)
        assert len(line) == outcome.plies
        walk = start
        for move in line:
            walk = walk.play(move)
        assert walk.winner() is outcome.winner


# --- batches and modes -------------------------------------------------------------


def test_modes_and_batches_agree(db4):
    n = 4
    sample = random_positions(n, 1500, seed=4, max_men=8)
    sides = np.array([s for s, _, _ in sample])
    ms = np.array([m for _, m, _ in sample])
    es = np.array([e for _, _, e in sample])
    expected = values(sides, ms, es, n)
    # A tiny chunk cache makes the on-disk probes evict and read chunks again.
    with open_database(db4) as disk, open_database(db4, in_memory=True) as memory, \
            open_database(db4, cache_bytes=1) as tiny:
        assert memory.in_memory and not disk.in_memory
        for db in (disk, memory, tiny):
            win, plies = db.probe_many((sides, ms, es))
            assert win.dtype == bool and plies.dtype == np.int64
            assert np.array_equal(2 * plies + win, expected)
            win, plies = db.probe_many([position(s, m, e, n) for s, m, e in sample[:300]])
            assert np.array_equal(2 * plies + win, expected[:300])
            singles = [db.value(position(s, m, e, n)) for s, m, e in sample[:300]]
            assert singles == expected[:300].tolist()
        # Other integer types and plain sequences are accepted too.
        win, plies = disk.probe_many((sides.astype(np.uint8), ms.astype(np.uint32), es.astype(np.int32)))
        assert np.array_equal(2 * plies + win, expected)
        win, plies = disk.probe_many(([int(sides[0])], [int(ms[0])], [int(es[0])]))
        assert 2 * plies[0] + win[0] == expected[0]
        win, plies = disk.probe_many((np.array([], dtype=np.int64),) * 3)
        assert len(win) == len(plies) == 0


def test_in_memory_batches_split_over_threads(db4):
    n = 4
    sample = random_positions(n, 500, seed=5, max_men=10)
    sides, ms, es = (np.array(column) for column in zip(*sample))
    expected = values(sides, ms, es, n)
    reps = 500  # 250,000 positions: above the threading threshold
    with open_database(db4, in_memory=True) as db:
        win, plies = db.probe_many((np.tile(sides, reps), np.tile(ms, reps), np.tile(es, reps)))
    assert np.array_equal(2 * plies + win, np.tile(expected, reps))


def test_on_disk_reads_only_touched_chunks(db5_low):
    with open_database(db5_low) as db:
        with h5py.File(db5_low, "r") as f:
            total = sum(int(np.prod([-(-a // b) for a, b in zip(d.shape, d.chunks)]))
                        for d in f[LAYER_GROUP].values())
        assert db.chunk_reads == 0
        db.probe(Position.parse("E O.... ..... ..O.. XX... ....O"))
        assert db.chunk_reads == 1
        db.probe(Position.parse("E O.... ..... ..O.. XX... ....O"))
        assert db.chunk_reads == 1  # warm: from the cache
        sample = random_positions(5, 40, seed=6, max_men=4)
        db.probe_many([position(*s, 5) for s in sample])
        assert 1 < db.chunk_reads < total


def test_batch_entries_that_are_not_positions(db4, db5_low):
    with open_database(db4) as db:
        good = Position.start(4)
        for side, m, e in [(2, good.musketeers, good.enemies),  # no such side
                           (0, 0b111 | 1 << 20, 0),  # a piece off the board
                           (0, 0b11, 0),  # two musketeers
                           (1, 0b111, 0b1)]:  # overlapping pieces
            with pytest.raises(BatchPositionError, match="position 1"):
                db.probe_many(([0, side], [good.musketeers, m], [good.enemies, e]))
        with pytest.raises(ValueError, match="one length"):
            db.probe_many((np.zeros(2, int), np.zeros(3, int), np.zeros(2, int)))
        with pytest.raises(TypeError):
            db.probe_many((np.zeros(2), np.zeros(2), np.zeros(2)))
        with pytest.raises(TypeError):
            db.probe_many([1, 2, 3])
    with open_database(db5_low) as db:
        start = Position.start(5)
        with pytest.raises(PositionNotInDatabaseError, match="0..4"):
            db.probe_many(([1], [start.musketeers], [start.enemies]))


# --- errors ------------------------------------------------------------------------


def test_missing_file_says_how_to_build_it(tmp_path):
    with pytest.raises(DatabaseNotFoundError, match="retro build --board 4 --out"):
        open_database(tmp_path / "none.h5", size=4)
    with pytest.raises(DatabaseNotFoundError, match="no database at"):
        open_database(tmp_path / "none.h5")


def test_missing_file_names_the_board_of_its_name(tmp_path):
    with pytest.raises(DatabaseNotFoundError, match="retro build --board 4 --out .*db-4x4.h5"):
        open_database(tmp_path / "db-4x4.h5")
    with pytest.raises(DatabaseNotFoundError, match="retro build --game GAME --out"):
        open_database(tmp_path / "mine.h5")


def test_interrupted_build_says_to_resume(tmp_path, interrupt_at):
    out = tmp_path / "3x3.h5"
    interrupt_at(4)
    with pytest.raises(KeyboardInterrupt):
        build(3, out, progress=False)
    assert not out.exists()
    with pytest.raises(IncompleteDatabaseError, match="did not finish.*4 layers.*resume") as error:
        open_database(out)
    assert "retro build --board 3 --out" in str(error.value)
    with pytest.raises(IncompleteDatabaseError):
        DatabasePool(out)


def test_files_that_are_not_databases(tmp_path, db3):
    text = tmp_path / "text.h5"
    text.write_text("not hdf5")
    with pytest.raises(NotADatabaseError):
        open_database(text)
    foreign = tmp_path / "foreign.h5"
    with h5py.File(foreign, "w") as f:
        f["data"] = np.arange(3)
    with pytest.raises(NotADatabaseError):
        open_database(foreign, in_memory=True)
    unfinished = tmp_path / "unfinished.h5"
    shutil.copy(db3, unfinished)
    with h5py.File(unfinished, "r+") as f:
        f.attrs["complete"] = False
    with pytest.raises(IncompleteDatabaseError):
        open_database(unfinished)
    truncated = tmp_path / "truncated.h5"
    truncated.write_bytes(db3.read_bytes()[: db3.stat().st_size // 2])
    with pytest.raises(NotADatabaseError):
        open_database(truncated)


def test_a_damaged_chunk_is_reported_by_every_api(db4, tmp_path):
    path = tmp_path / "damaged.h5"
    shutil.copy(db4, path)
    layer = 5
    with h5py.File(path, "r") as f:
        info = f[LAYER_GROUP][f"layer_{layer:02d}"].id.get_chunk_info(0)
    with open(path, "r+b") as handle:
        handle.seek(info.byte_offset + info.size // 2)
        byte = handle.read(1)
        handle.seek(info.byte_offset + info.size // 2)
        handle.write(bytes([byte[0] ^ 0xFF]))
    # Every enemy-to-move position with 5 men lives in layer 5; the first chunk holds
    # whole rows of the first placements, so many random such positions hit it.
    with h5py.File(db4, "r") as f:
        placements = f["placements"][()]
    m = int(placements[0])
    free = [s for s in range(16) if not m >> s & 1]
    e = sum(1 << s for s in free[:layer])
    damaged = position(1, m, e, 4)
    with open_database(path) as db:
        with pytest.raises(ChecksumError, match="checksum"):
            db.probe(damaged)
        with pytest.raises(ChecksumError):
            db.probe_many([damaged])
    with pytest.raises(ChecksumError):
        open_database(path, in_memory=True)


def test_board_size_mismatch(db4):
    with open_database(db4) as db:
        five = Position.start(5)
        for call in (db.probe, db.moves, db.best_move, db.line):
            with pytest.raises(BoardMismatchError, match="5x5"):
                call(five)
        with pytest.raises(BoardMismatchError):
            db.probe_many([Position.start(4), five])


def test_malformed_text_and_illegal_moves(db4):
    with open_database(db4) as db:
        with pytest.raises(RowLengthError):
            db.probe("M XXXO XXXX XXOX OXX")
        with pytest.raises(SideError):
            db.moves("XXXO XXXX XXOX OXXX")
        with pytest.raises(UnknownCharacterError):
            db.line("M XXXO XXXX XXOX OXXZ")
        with pytest.raises(RowCountError):
            db.probe("M XXXO XXXX XXOX")
        with pytest.raises(BoardSizeError):
            db.probe("M OO OX")
        with pytest.raises(MusketeerCountError):
            db.probe("M XXXO XXXX XXXX OXXX")
        with pytest.raises(IllegalMoveError):
            Position.start(4).play("a1-a2")
        with pytest.raises(TypeError):
            db.probe(42)


def test_positions_beyond_an_endgame_database(db5_low):
    with open_database(db5_low) as db:
        for call in (db.probe, db.moves, db.best_move, db.line):
            with pytest.raises(PositionNotInDatabaseError, match="22 enemy men.*0..4"):
                call(Position.start(5))


# --- text for the command line -----------------------------------------------------


def test_format_probe_and_json(db4):
    n = 4
    side, m, e = 1, 0b1000_0000_0100_1000, 0b0010_0100_0001_0100
    p = position(side, m, e, n)
    expected = value(side, m, e, n)
    kid_values = {t: value(cs, cm, ce, n) for t, cs, cm, ce in children(side, m, e, n)}
    with open_database(db4) as db:
        outcome, moves = db.probe(p), db.moves(p)
    letter = lambda v: ("M" if v & 1 else "E") + str(v >> 1)

    text = format_probe(p, outcome, moves)
    first, second = text.split("\n")
    assert first.startswith(f"{p}: the ") and f"in {expected >> 1} plies" in first
    head, listing = second.split(" -> ")
    assert head == letter(expected)
    entries = listing.strip("[]").split(", ")
    assert {entry.split()[0]: entry.split()[1] for entry in entries} == {
        t: letter(v) for t, v in kid_values.items()}
    assert format_probe(p, outcome, moves, one_line=True) == f"{first}; {second}"

    data = json.loads(json.dumps(probe_json(p, outcome, moves)))
    assert data["position"] == str(p)
    assert data["winner"] == ("musketeers" if expected & 1 else "enemy")
    assert data["plies"] == expected >> 1
    assert {d["move"]: 2 * d["plies"] + (d["winner"] == "musketeers") for d in data["moves"]} == kid_values
    assert set(data) == {"position", "winner", "plies", "moves"}
    assert all(set(d) == {"move", "winner", "plies"} for d in data["moves"])


def test_finished_position_text(db3):
    p = Position.parse("M OOO XX. ...")  # musketeers in a line: the enemy has won
    with open_database(db3) as db:
        outcome, moves = db.probe(p), db.moves(p)
    assert moves == []
    assert format_probe(p, outcome, moves) == f"{p}: the enemy has won\nE0 -> []"
    assert probe_json(p, outcome, moves)["moves"] == []


def test_probe_lines_answers_each_line_and_survives_bad_ones(db3):
    good3, good4 = "M XXO XOX OXX", "E XXXO XXXX XO.X OXXX"
    lines = [good3 + "\n", "\n", "M XXO XOX\n", good4 + "\n", "Q XXO XOX OXX\n", "  " + good3]
    with open_database(db3) as db:
        answers = list(probe_lines(lines, db))
        as_json = list(probe_lines(lines, db, as_json=True))
    assert len(answers) == len(as_json) == 5  # the blank line is skipped
    assert [a.ok for a in answers] == [a.ok for a in as_json] == [True, False, False, False, True]
    assert answers[0].text.startswith(good3 + ": ") and " -> [" in answers[0].text
    assert str(answers[0]) == answers[0].text
    assert answers[1].text.startswith("M XXO XOX: error: ")
    assert "4x4" in answers[2].text and "error" in answers[2].text
    assert "unknown side" in answers[3].text
    assert answers[4].text == answers[0].text
    assert "\n" not in "".join(a.text for a in answers + as_json)

    records = [json.loads(a.text) for a in as_json]
    m3 = sum(1 << s for s, ch in enumerate("XXOXOXOXX") if ch == "O")
    e3 = sum(1 << s for s, ch in enumerate("XXOXOXOXX") if ch == "X")
    v3 = value(0, m3, e3, 3)
    assert records[0]["plies"] == v3 >> 1
    assert records[0]["winner"] == ("musketeers" if v3 & 1 else "enemy")
    assert records[1] == {"position": "M XXO XOX", "error": records[1]["error"]}
    assert "4x4" in records[2]["error"]


def test_database_pool_opens_the_default_file_of_each_size(db3, db4, tmp_path, monkeypatch):
    (tmp_path / "db").mkdir()
    shutil.copy(db3, tmp_path / "db" / "three-musketeers-3x3.h5")
    shutil.copy(db4, tmp_path / "db" / "three-musketeers-4x4.h5")
    monkeypatch.chdir(tmp_path)
    lines = ["M XXO XOX OXX", "M XXXO XXXX XXOX OXXX", "M XXXXO XXXXX XXOXX XXXXX OXXXX"]
    with DatabasePool() as pool:
        assert pool.get(3).size == 3 and pool.get(4).size == 4
        answers = list(probe_lines(lines, pool))
    assert [a.ok for a in answers] == [True, True, False]
    assert "retro build --board 5" in answers[2].text


def test_database_pool_refuses_a_bad_file_at_once(tmp_path):
    # A bad --db is not one line's fault: the batch must not start.
    with pytest.raises(DatabaseNotFoundError):
        DatabasePool(tmp_path / "none.h5")
    (tmp_path / "text.h5").write_text("not hdf5")
    with pytest.raises(NotADatabaseError):
        DatabasePool(tmp_path / "text.h5")


def test_database_pool_uses_one_file_when_given(db4):
    with DatabasePool(db4) as pool:
        assert pool.get(4) is pool.get(3)
        answers = list(probe_lines(["M XXO XOX OXX", "M XXXO XXXX XXOX OXXX"], pool))
    assert [a.ok for a in answers] == [False, True]
    assert "3x3" in answers[0].text


def test_a_batch_never_stops_on_bad_input_and_echoes_at_most_40_characters(db_ttt, db_3mm, db_6mm,
                                                                             db_dir, monkeypatch):
    """Issue 23: hands in other digits, thousands of digits, invisible characters, a 5 MB
    line, a game without a database: one error line each, and the batch goes on."""
    monkeypatch.setenv("RETRO_DB_DIR", str(db_dir))  # the session's files have default names
    huge = "x" * 5_000_000
    lines = ["X ... ... ...", "W ² 6 ... ... .... ... ...", "W ٣ 3 ... ... ...", "W 6.0 6 ... ... .... ... ...",
             "W " + "9" * 5000 + " 6 ... ... .... ... ...", "W 3 3 .\x00. ... ...", "X .\u200b. ... ...",
             "Q", "W 6 6 ... ... .... ... ... extra", huge, "M XXO XOX OXX", "W 6 6 ... ... .... ... ...",
             "W 3 3 ... ... ...", ""]
    with DatabasePool() as pool:
        answers = list(probe_lines(lines, pool))
    with DatabasePool() as pool:
        records = [json.loads(a.text) for a in probe_lines(lines, pool, as_json=True)]
    good = {0, 11, 12}
    assert len(answers) == len(records) == len(lines) - 1  # the blank line is skipped
    assert [a.ok for a in answers] == [i in good for i in range(len(lines) - 1)]
    assert answers[0].text.startswith("X ... ... ...: a draw; D -> [")
    assert answers[11].text.startswith("W 6 6 ... ... .... ... ...: ")
    assert answers[12].text.startswith("W 3 3 ... ... ...: a draw; ")
    errors = {i: a.text for i, a in enumerate(answers) if i not in good}
    assert errors[1] == ("W ² 6 ... ... .... ... ...: error: White's pieces in hand must be a number "
                         "from 0 to 6 in the digits 0-9, not '²'")
    assert "not '٣'" in errors[2] and "not '6.0'" in errors[3]
    assert errors[4] == ("W " + "9" * 38 + "...: error: White has a 5,000-digit number of pieces in hand: "
                         "Six men's morris has 6 each")
    assert errors[5] == ("W 3 3 .\\u0000. ... ...: error: unknown character '\\u0000' in row 1: use W "
                         "(white), B (black) or . (empty)")
    assert errors[6].startswith("X .\\u200b. ... ...: error: unknown character '\\u200b' in row 1")
    assert errors[8].endswith("error: 6 rows: the Six men's morris board has 5 (of 3, 3, 4, 3, 3 points)")
    assert errors[9] == ("x" * 40 + "...: error: missing side to move: start the position with M or E "
                         "(Three Musketeers), X or O (tic-tac-toe)")  # a row of X's, but how long
    assert "no three-musketeers 3x3 database found" in errors[10]
    assert all("\n" not in text for text in errors.values())
    # Echoes are cut: only the not-found line (the folders searched) may be long.
    assert all(len(text) < 400 for i, text in errors.items() if i != 10)
    # JSON: the line cut as the text cuts it, the characters as they are (JSON escapes them).
    assert records[9] == {"position": "x" * 40 + "...", "error": errors[9].split(": error: ", 1)[1]}
    assert records[5]["position"] == "W 3 3 .\x00. ... ..."
    assert records[4]["position"] == "W " + "9" * 38 + "..."
    assert all("error" in records[i] for i in errors) and not any("error" in records[i] for i in good)


def test_the_cli_answers_every_line_after_bad_digits(db_3mm, capsys, monkeypatch):
    import io
    import sys

    from retro.cli import main

    lines = "W ² 3 ... ... ...\nW ٣ 3 ... ... ...\nW 3 3 ... ... ...\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    assert main(["probe", "--db", str(db_3mm)]) == 1  # answered, with errors
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ", 1)[1][:6] for line in out] == ["error:", "error:", "a draw"]
    assert main(["probe", "--db", str(db_3mm), "W ² 3 ... ... ..."]) == 2
    assert capsys.readouterr().err == ("retro: error: White's pieces in hand must be a number from 0 "
                                       "to 3 in the digits 0-9, not '²'\n")
