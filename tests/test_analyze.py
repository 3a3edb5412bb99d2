"""``retro.analyze.musketeers`` against enumerations written here, independently of retro.

The reference values of every raw position (no symmetry, no index) come from a plain
layered backward induction over dense arrays, itself checked against the recursive
minimax of tests/minimax.py. Symmetry classes use this file's own square maps;
reachability uses this file's own forward search over raw positions.
"""

from __future__ import annotations

import json
import shutil
import sys
from itertools import combinations
from math import comb

import h5py
import numpy as np
import pytest
from minimax import new_memo, solve_many
from numba import njit

from retro import DatabaseNotFoundError, NotADatabaseError, Position, Side
from retro.analyze.musketeers import (
    AnalysisError,
    MatplotlibMissingError,
    analyze,
    plot,
    plot_directory,
    reachable,
)
from retro.engine.build import build
from retro.cli import main
from retro.games.musketeers.index import encode, indexer
from retro.games.musketeers.layout import storage_perm, storage_rank

# --- an independent model of the game over raw positions ------------------------------


def _symmetry_maps(n: int) -> np.ndarray:
    """(8, n*n): where each square goes under the 8 symmetries of the square board."""
    maps = []
    for f in (
        lambda r, c: (r, c),
        lambda r, c: (c, n - 1 - r),
        lambda r, c: (n - 1 - r, n - 1 - c),
        lambda r, c: (n - 1 - c, r),
        lambda r, c: (r, n - 1 - c),
        lambda r, c: (n - 1 - r, c),
        lambda r, c: (c, r),
        lambda r, c: (n - 1 - c, n - 1 - r),
    ):
        maps.append([f(s // n, s % n)[0] * n + f(s // n, s % n)[1] for s in range(n * n)])
    return np.array(maps, dtype=np.int64)


class Game:
    """Dense tables of every raw position of an n×n board."""

    def __init__(self, n: int) -> None:
        self.n = n
        squares = n * n
        self.trios = np.array(
            [sum(1 << s for s in trio) for trio in combinations(range(squares), 3)], dtype=np.int64
        )
        self.trio_id = np.full(1 << squares, -1, dtype=np.int64)
        self.trio_id[self.trios] = np.arange(len(self.trios))
        by_count = sorted(range(1 << squares), key=int.bit_count)
        self.by_count = np.array(by_count, dtype=np.int64)
        self.maps = _symmetry_maps(n)
        self.values = _solve(n, self.trios, self.trio_id, self.by_count)
        self._raw = None

    def raw(self):
        """(side, musketeers, enemies, value) of every raw position."""
        if self._raw is None:
            self._raw = self._every_position()
        return self._raw

    def _every_position(self):
        sides, musketeers, enemies, values = [], [], [], []
        for t, m in enumerate(self.trios):
            e = np.arange(1 << (self.n * self.n), dtype=np.int64)
            e = e[(e & m) == 0]
            for side in (0, 1):
                sides.append(np.full(len(e), side))
                musketeers.append(np.full(len(e), m))
                enemies.append(e)
                values.append(self.values[side, t, e])
        return (np.concatenate(sides), np.concatenate(musketeers), np.concatenate(enemies),
                np.concatenate(values).astype(np.int64))


@njit(cache=True)
def _line(m, n):
    rows = 0
    cols = 0
    for s in range(n * n):
        if (m >> s) & 1:
            rows |= 1 << (s // n)
            cols |= 1 << (s % n)
    return rows & (rows - 1) == 0 or cols & (cols - 1) == 0


@njit(cache=True)
def _next_to(s, n):
    out = np.full(4, -1, dtype=np.int64)
    r, c = s // n, s % n
    if r > 0:
        out[0] = s - n
    if r < n - 1:
        out[1] = s + n
    if c > 0:
        out[2] = s - 1
    if c < n - 1:
        out[3] = s + 1
    return out


@njit(cache=True)
def _better(mover_is_musketeers, child, best):
    """Whether the mover prefers child value ``child`` to ``best`` (-1: nothing yet)."""
    if best < 0:
        return True
    child_wins = ((child & 1) == 1) == mover_is_musketeers
    best_wins = ((best & 1) == 1) == mover_is_musketeers
    if child_wins != best_wins:
        return child_wins
    if child_wins:
        return child >> 1 < best >> 1
    return child >> 1 > best >> 1


@njit(cache=True)
def _solve(n, trios, trio_id, by_count):
    """values[side, trio, enemies] by induction on the number of enemy men."""
    squares = n * n
    values = np.zeros((2, len(trios), 1 << squares), dtype=np.uint8)
    start = 0
    for k in range(squares - 2):
        stop = start
        while stop < len(by_count) and _popcount(by_count[stop]) == k:
            stop += 1
        for side in (0, 1):  # musketeers first: the enemy's children are theirs
            for t in range(len(trios)):
                m = trios[t]
                for i in range(start, stop):
                    e = by_count[i]
                    if e & m:
                        continue
                    if _line(m, n):
                        values[side, t, e] = 0
                        continue
                    best = -1
                    for s in range(squares):
                        if side == 0 and (m >> s) & 1:
                            for q in _next_to(s, n):
                                if q >= 0 and (e >> q) & 1:
                                    child_m = m ^ (1 << s) ^ (1 << q)
                                    child = values[1, trio_id[child_m], e ^ (1 << q)]
                                    if _better(True, child, best):
                                        best = child
                        elif side == 1 and (e >> s) & 1:
                            for q in _next_to(s, n):
                                if q >= 0 and not ((m | e) >> q) & 1:
                                    child = values[0, t, e ^ (1 << s) ^ (1 << q)]
                                    if _better(False, child, best):
                                        best = child
                    if best < 0:
                        values[side, t, e] = 1  # no move: the musketeers have won
                    else:
                        values[side, t, e] = 2 * ((best >> 1) + 1) + (best & 1)
        start = stop
    return values


@njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _men(enemies):
    out = np.empty(len(enemies), dtype=np.int64)
    for i in range(len(enemies)):
        out[i] = _popcount(enemies[i])
    return out


@njit(cache=True)
def _images(musketeers, enemies, maps, squares):
    """(8, 2): musketeer and enemy bitboards under each symmetry."""
    out = np.zeros((8, 2), dtype=np.int64)
    for g in range(8):
        for s in range(squares):
            if (musketeers >> s) & 1:
                out[g, 0] |= 1 << maps[g, s]
            if (enemies >> s) & 1:
                out[g, 1] |= 1 << maps[g, s]
    return out


def _byte_maps(maps: np.ndarray) -> np.ndarray:
    """(8, 4, 256): image under each symmetry of each byte of a bitboard, by chunk."""
    out = np.zeros((8, 4, 256), dtype=np.int64)
    for g in range(8):
        for chunk in range(4):
            for byte in range(256):
                for j in range(8):
                    s = chunk * 8 + j
                    if (byte >> j) & 1 and s < maps.shape[1]:
                        out[g, chunk, byte] |= 1 << int(maps[g, s])
    return out


@njit(cache=True)
def _mapped(bb, table):
    return table[0, bb & 255] | table[1, (bb >> 8) & 255] | table[2, (bb >> 16) & 255] | \
        table[3, (bb >> 24) & 255]


@njit(cache=True)
def _class_keys_jit(musketeers, enemies, tables, squares):
    keys = np.empty(len(musketeers), dtype=np.int64)
    canonical = np.empty(len(musketeers), dtype=np.bool_)
    for i in range(len(musketeers)):
        best = (musketeers[i] << squares) | enemies[i]
        least_m = musketeers[i]
        for g in range(1, 8):
            m = _mapped(musketeers[i], tables[g])
            best = min(best, (m << squares) | _mapped(enemies[i], tables[g]))
            least_m = min(least_m, m)
        keys[i] = best
        canonical[i] = least_m == musketeers[i]
    return keys, canonical


def _class_keys(musketeers, enemies, maps, squares):
    """Smallest (musketeers, enemies) image of each position, as one integer, and
    whether the musketeer set is the smallest of its images (a table entry)."""
    return _class_keys_jit(musketeers, enemies, _byte_maps(maps), squares)


@njit(cache=True)
def _forward(n, trios, trio_id, by_count, side0, m0, e0):
    """reached[side, trio, enemies]: raw positions reachable from the start by legal play.
    Every capture removes a man, so one sweep down the enemy counts finds them all."""
    squares = n * n
    reached = np.zeros((2, len(trios), 1 << squares), dtype=np.bool_)
    reached[side0, trio_id[m0], e0] = True
    bounds = np.zeros(squares + 2, dtype=np.int64)  # by_count[bounds[k]:bounds[k+1]]: k men
    for i in range(len(by_count)):
        bounds[_popcount(by_count[i]) + 1] = i + 1
    for k in range(squares - 3, -1, -1):  # more men first
        for side in (1, 0):  # the enemy's moves reach musketeer positions of the same count
            for t in range(len(trios)):
                m = trios[t]
                if _line(m, n):
                    continue  # finished: no move
                for i in range(bounds[k], bounds[k + 1]):
                    e = by_count[i]
                    if e & m or not reached[side, t, e]:
                        continue
                    for s in range(squares):
                        if side == 0 and (m >> s) & 1:
                            for q in _next_to(s, n):
                                if q >= 0 and (e >> q) & 1:
                                    reached[1, trio_id[m ^ (1 << s) ^ (1 << q)], e ^ (1 << q)] = True
                        elif side == 1 and (e >> s) & 1:
                            for q in _next_to(s, n):
                                if q >= 0 and not ((m | e) >> q) & 1:
                                    reached[0, t, e ^ (1 << s) ^ (1 << q)] = True
    return reached


@pytest.fixture(scope="module")
def games():
    return {n: Game(n) for n in (3, 4)}


def test_reference_values_agree_with_the_minimax(games):
    # Every 3×3 position, and every 4×4 position with up to four men (the recursive
    # minimax is slow on the rest; the induction is the same code for every layer).
    for n, most in ((3, 6), (4, 4)):
        sides, musketeers, enemies, values = games[n].raw()
        low = _men(enemies) <= most
        expected = solve_many(sides[low], musketeers[low], enemies[low], n, new_memo())
        assert np.array_equal(values[low], expected)
        assert low.sum() > 1000


# --- counts -------------------------------------------------------------------------


def _expected_counts(game: Game):
    """Per side: entries/distinct by [k, value], from every raw position (computed once)."""
    if getattr(game, "_counts", None) is None:
        game._counts = _count(game)
    return game._counts


def _count(game: Game):
    n = game.n
    layers = n * n - 2
    sides, musketeers, enemies, values = game.raw()
    keys, canonical = _class_keys(musketeers, enemies, game.maps, n * n)
    cell = _men(enemies) * 256 + values  # (k, value) as one index

    def histogram(selected):
        return np.bincount(cell[selected], minlength=layers * 256).reshape(layers, 256)

    out = {}
    for side in (0, 1):
        mine = sides == side
        entries = histogram(mine & canonical)
        # One position per class: the one equal to its smallest image.
        distinct = histogram(mine & (keys == ((musketeers << (n * n)) | enemies)))
        assert distinct.sum() == len(np.unique(keys[mine]))  # one smallest member per class
        out[side] = (entries, distinct)
    return out


def _won(hist):
    return {"musketeers": int(hist[1::2].sum()), "enemy": int(hist[0::2].sum())}


@pytest.mark.parametrize("n", [3, 4])
def test_counts_match_an_independent_enumeration(n, games, request):
    report = analyze(request.getfixturevalue(f"db{n}"), progress=False, reach=False)
    json.dumps(report)  # JSON-ready
    expected = _expected_counts(games[n])
    assert report["board_size"] == n and report["symmetry_check"]["mismatched_entries"] == 0
    for side, key in enumerate(("musketeers_to_move", "enemy_to_move")):
        body = report["sides"][key]
        entries, distinct = expected[side]
        assert body["entries"] == _won(entries.sum(axis=0))
        assert body["distinct"] == _won(distinct.sum(axis=0))
        assert len(body["by_enemy_count"]) == n * n - 2
        for k, layer in enumerate(body["by_enemy_count"]):
            assert layer["enemy_men"] == k
            assert layer["entries"] == _won(entries[k])
            assert layer["distinct"] == _won(distinct[k])
            _assert_plies(layer["plies"], entries[k], distinct[k])
        _assert_plies(body["plies"], entries.sum(axis=0), distinct.sum(axis=0))
    both = expected[0][1].sum() + expected[1][1].sum()
    assert report["positions"]["distinct"] == both
    assert report["positions"]["entries"] == expected[0][0].sum() + expected[1][0].sum()
    assert report["reachable"] is None


def _assert_plies(plies, entries, distinct):
    """The reported distribution: per winner, counts by plies, up to the longest game."""
    values = np.flatnonzero(entries)
    longest = values.max() // 2
    for winner, parity in (("musketeers", 1), ("enemy", 0)):
        for name, table in (("entries", entries), ("distinct", distinct)):
            want = [int(table[2 * plies + parity]) for plies in range(longest + 1)]
            assert plies[winner][name] == want
    assert max(plies["musketeers"]["entries"][-1], plies["enemy"]["entries"][-1]) > 0


@pytest.mark.parametrize("n", [3, 4])
def test_longest_wins_and_their_examples(n, games, request):
    report = analyze(request.getfixturevalue(f"db{n}"), progress=False, reach=False)
    game = games[n]
    sides, _, _, values = game.raw()
    for side, key in enumerate(("musketeers_to_move", "enemy_to_move")):
        for winner, parity in (("musketeers", 1), ("enemy", 0)):
            mine = (sides == side) & ((values & 1) == parity)
            longest = report["sides"][key]["longest"][winner]
            assert longest["plies"] == (values[mine] >> 1).max()
            example = Position.parse(longest["position"])
            assert example.side is Side.from_code(side) and example.size == n
            assert example.enemy_count == longest["enemy_men"]
            t = game.trio_id[example.musketeers]
            assert game.values[side, t, example.enemies] == 2 * longest["plies"] + parity


def test_reachability_matches_an_independent_search(games, request):
    game = games[4]
    starts = [Position.start(4)]
    starts.append(starts[0].play(starts[0].legal_moves()[0]))  # enemy to move
    for start in starts:
        got = reachable(4, start, keep=True)
        reached = _forward(4, game.trios, game.trio_id, game.by_count, start.side.code,
                           start.musketeers, start.enemies)
        side, t, e = np.nonzero(reached)
        m = game.trios[t]
        keys, _ = _class_keys(m, e.astype(np.int64), game.maps, 16)
        e = e.astype(np.int64)
        men = _men(e)
        for s in (0, 1):
            for k in range(14):
                classes = len(np.unique(keys[(side == s) & (men == k)]))
                assert got.distinct[s, k] == classes, (str(start), s, k)
        assert got.distinct.sum() > 1000
        # Membership, position by position, on a sample of both kinds.
        rng = np.random.default_rng(4)
        everything = game.raw()
        pick = rng.choice(len(everything[0]), 3000, replace=False)
        for i in pick:
            s, mm, ee = int(everything[0][i]), int(everything[1][i]), int(everything[2][i])
            position = Position(Side.from_code(s), mm, ee, 4)
            images = _images(mm, ee, game.maps, 16)
            expected = any(reached[s, game.trio_id[a], b] for a, b in images)
            assert got.contains(position) == expected
    # The share is relative to every distinct position of both sides.
    all_classes = _expected_counts(game)
    total = sum(all_classes[s][1].sum() for s in (0, 1))
    assert got.all_distinct.sum() * 2 == total
    assert got.share == pytest.approx(got.distinct.sum() / total)


def test_analyze_reports_reachability(db4):
    report = analyze(db4, progress=False)
    search = reachable(4)
    for s, key in enumerate(("musketeers_to_move", "enemy_to_move")):
        body = report["sides"][key]
        assert body["reachable_distinct"] == search.distinct[s].sum()
        assert 0 < body["reachable_share"] < 1
        assert [layer["reachable_distinct"] for layer in body["by_enemy_count"]] == \
            search.distinct[s].tolist()
    assert report["reachable"]["start"] == str(Position.start(4))
    assert report["reachable"]["share"]["total"] == pytest.approx(search.share)


def test_endgame_database(db5_low):
    report = analyze(db5_low, progress=False, reach=False)
    assert report["max_enemy_men"] == 4
    for key in ("musketeers_to_move", "enemy_to_move"):
        layers = report["sides"][key]["by_enemy_count"]
        assert len(layers) == 5
        for k, layer in enumerate(layers):
            assert sum(layer["entries"].values()) == 319 * comb(22, k)
            assert sum(layer["distinct"].values()) <= 319 * comb(22, k)


def test_endgame_database_reports_its_own_layers(games, tmp_path):
    top = 5
    path = build(4, tmp_path / "4x4-low.h5", max_enemy_men=top, progress=False).path
    report = analyze(path, progress=False)
    expected = _expected_counts(games[4])
    for side, key in enumerate(("musketeers_to_move", "enemy_to_move")):
        body = report["sides"][key]
        entries, distinct = expected[side]
        assert body["entries"] == _won(entries[: top + 1].sum(axis=0))
        assert body["distinct"] == _won(distinct[: top + 1].sum(axis=0))
        assert len(body["by_enemy_count"]) == top + 1
    # Reachability is that of the whole game, reported for the file's layers only.
    search = reachable(4)
    sides = [report["sides"][key]["reachable_distinct"] for key in ("musketeers_to_move",
                                                                   "enemy_to_move")]
    assert sides == search.distinct[:, : top + 1].sum(axis=1).tolist()
    assert report["reachable"]["max_enemy_men"] == top
    assert report["reachable"]["distinct"]["total"] == sum(sides)
    all_low = sum(expected[s][1][: top + 1].sum() for s in (0, 1))
    assert report["reachable"]["share"]["total"] == pytest.approx(sum(sides) / all_low)
    assert len(report["reachable"]["by_enemy_count"]) == top + 1


def test_a_value_unlike_its_symmetric_image_is_counted(db4, tmp_path):
    # A musketeer placement fixed by exactly one symmetry g, and two men that g moves:
    # the position and its image are two table entries that must hold the same value.
    maps = _symmetry_maps(4)
    for trio in combinations(range(16), 3):
        images = [frozenset(int(maps[g, s]) for s in trio) for g in range(8)]
        bbs = [sum(1 << s for s in image) for image in images]
        fixing = [g for g in range(1, 8) if images[g] == images[0]]
        if bbs[0] == min(bbs) and len(fixing) == 1:
            break
    g = fixing[0]
    free = [s for s in range(16) if s not in trio]
    men = next(pair for pair in combinations(free, 2)
               if {int(maps[g, s]) for s in pair} != set(pair))
    position = Position(Side.ENEMY, bbs[0], sum(1 << s for s in men), 4)
    ix = indexer(4)
    p, mask = encode(position.musketeers, position.enemies, ix)
    col = storage_rank(p, mask, storage_perm(4), ix.rank_table)

    def flip(f):
        layer = f["enemy_to_move/layer_02"]
        values = layer[()]
        values[p, col] ^= 2
        layer[...] = values

    report = analyze(_copy_with(db4, tmp_path, flip), progress=False, reach=False)
    # The entry against its image, the image against the entry (and perhaps parents).
    assert report["symmetry_check"]["mismatched_entries"] >= 2


def _copy_with(db, tmp_path, change):
    path = tmp_path / "changed.h5"
    shutil.copy(db, path)
    with h5py.File(path, "r+") as f:
        change(f)
    return path


def _swap_storage_bits(f):
    order = f["storage_order"][()]
    order[3, [0, 1]] = order[3, [1, 0]]
    f["storage_order"][...] = order


def _truncate_layer(f):
    values = f["enemy_to_move/layer_02"][:, :5]
    del f["enemy_to_move/layer_02"]
    f["enemy_to_move"].create_dataset("layer_02", data=values)


@pytest.mark.parametrize("change, problem", [
    # 4x4 layers read as 3x3: refused when the file opens, by its layer count
    (lambda f: f.attrs.__setitem__("board_size", 3), "board_size 3 where its tiers say 4"),
    (_swap_storage_bits, "storage order"),
    (_truncate_layer, "layer shapes"),
    (lambda f: f.attrs.__setitem__("max_guards", -1), "max_guards -1 where its tiers say 13"),
])
def test_a_foreign_layout_is_refused(db4, tmp_path, change, problem):
    path = _copy_with(db4, tmp_path, change)
    with pytest.raises(NotADatabaseError, match=problem):
        analyze(path, progress=False, reach=False)


# --- plots and errors -----------------------------------------------------------------


def test_plot_writes_pngs(db3, tmp_path):
    report = analyze(db3, progress=False)
    paths = plot(report, tmp_path / "charts")
    assert {p.name for p in paths} == {"musketeer_share.png", "plies_histogram.png"}
    for path in paths:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_errors(db3, tmp_path, monkeypatch):
    report = analyze(db3, progress=False, reach=False)
    (tmp_path / "file").write_text("x")
    with pytest.raises(AnalysisError, match="not a directory"):
        plot(report, tmp_path / "file")
    with pytest.raises(AnalysisError, match="cannot create"):
        plot(report, tmp_path / "file" / "charts")
    with pytest.raises(AnalysisError, match="cannot create"):
        plot_directory(tmp_path / "file" / "charts")
    assert plot_directory(tmp_path / "new" / "charts").is_dir()
    with pytest.raises(AnalysisError, match="not an analyze"):
        plot({"sides": {}}, tmp_path)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(MatplotlibMissingError, match="matplotlib"):
        plot(report, tmp_path)


def test_bad_inputs(tmp_path):
    with pytest.raises(DatabaseNotFoundError):
        analyze(tmp_path / "missing.h5", progress=False)
    (tmp_path / "junk.h5").write_text("not hdf5")
    with pytest.raises(NotADatabaseError):
        analyze(tmp_path / "junk.h5", progress=False)
    with pytest.raises(AnalysisError):
        reachable(6)
    with pytest.raises(AnalysisError):
        reachable(4, Position.start(5))
    with pytest.raises(AnalysisError):
        reachable(4).contains(Position.start(4))


@pytest.mark.parametrize("args, message", [
    (["analyze", "{tmp}"], "is a directory"),
    (["analyze", "{tmp}/junk.h5"], "not an HDF5 file"),
    (["analyze", "{tmp}/missing.h5"], "no database at"),
    (["analyze", "{db}", "--plot", "{tmp}/junk.h5"], "not a directory"),
    (["analyze", "{db}", "--plot", "{tmp}/junk.h5/charts"], "cannot create"),
])
def test_command_line_errors_are_one_line(db3, tmp_path, capsys, args, message):
    (tmp_path / "junk.h5").write_text("not hdf5")
    argv = [a.format(tmp=tmp_path, db=db3) for a in args] + ["--quiet"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("retro: error: ") and captured.err.count("\n") == 1
    assert message in captured.err and "Traceback" not in captured.err
