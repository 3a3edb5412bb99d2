"""The kit's contract, on every registered game built on it (tests/test_kit*.py): the
numbering round-trips, symmetric positions share an entry (or, in a numbering that folds
no symmetry, a class of entries) and a value, un-moves agree
with moves (weights included), a tier needs no more than twice the memory the build
estimates, and the kit's kernels are served from numba's cache in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from retro import games
from retro.db.format import DatabaseFile
from retro.engine import peak_rss, solvers
from retro.engine.build import build
from retro.errors import PositionError
from retro.games.kit import OPEN, PieceGame
from retro.values import not_a_position

LIMIT = 400_000  # entries of the variants checked whole


def kit_games() -> list:
    out = []
    for name, cls in games.GAMES.items():
        if issubclass(cls, PieceGame):
            variants = [games.get(name, v) for v in cls.variants]
            small = [g for g in variants if sum(g.tier_size(t) for t in g.tiers()) <= LIMIT]
            out.append(min(small or variants, key=lambda g: sum(g.tier_size(t) for t in g.tiers())))
    return out


GAMES = kit_games()
IDS = [g.full_name for g in GAMES]


@pytest.fixture(scope="module", params=GAMES, ids=IDS)
def built(request, tmp_path_factory):
    game = request.param
    out = build(game, tmp_path_factory.mktemp("kit") / f"{game.file_stem}.h5", progress=False).path
    file = DatabaseFile(out)
    try:
        values = {t: game.from_stored(t, file.read(t)) for t in file.tiers}
    finally:
        file.close()
    return game, values


def sample(size: int, most: int = 3000) -> np.ndarray:
    return np.unique(np.random.default_rng(41).integers(0, size, min(size, most)))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_numbering_round_trips(game):
    for tier in game.tiers():
        entries = sample(game.tier_size(tier))
        canonical = game.canonical_entries(tier, entries)
        for entry, least in zip(entries.tolist(), canonical.tolist()):
            position = game.position_at(tier, entry)
            if position is None:
                assert least < entry or game.position_at(tier, least) is None
                continue
            assert least == entry
            assert game.tier_of(position) == tuple(tier)
            assert game.index(position) == entry
            assert game.parse(str(position)) == position


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_board_of_the_wrong_size_or_an_unknown_code_is_a_position_error(game):
    side = next(iter(game.sides))
    cells, codes = game.cells_count, len(game.piece_kinds)
    for board, words in (((0,) * (cells - 1), f"has {cells} cells, not {cells - 1}"),
                         ((0,) * (cells + 1), f"has {cells} cells, not {cells + 1}"),
                         ((codes + 1,) + (0,) * (cells - 1), f"0 (empty) to {codes}"),
                         ((-1,) + (0,) * (cells - 1), "not -1")):
        with pytest.raises(PositionError) as raised:
            game.position_class(game, side, board)
        if type(game).check_cells is PieceGame.check_cells:  # (tic-tac-toe words its own)
            assert words in str(raised.value)
        assert "\n" not in str(raised.value)


def test_symmetric_positions_share_an_entry_and_a_value(built):
    game, values = built
    for tier in game.tiers():
        classes = game.symmetry_classes(tier)
        for entry in sample(game.tier_size(tier), 300).tolist():
            position = game.position_at(tier, entry)
            if position is None:
                continue
            images = position.symmetric_images()
            assert images[0] == position
            if game.fold:
                assert {game.index(image) for image in images} == {entry}
            else:  # a numbering that folds no symmetry: an entry per board, one class
                assert len({game.index(image) for image in images}) == len(set(images))
                assert {int(classes[game.index(image)]) for image in images} == {min(game.index(i) for i in images)}
            assert len({game.value_for(image, int(values[tier][game.index(image)])) for image in images}) == 1


def test_unmoves_undo_moves_with_the_stabiliser_weights(built):
    """In every loopy tier: each parent of an entry has a move to it, each move into the
    tier is undone (but those of a position whose value the rules know, and in a tier of
    parts those into a child whose value the rules know: the scan counts that child as
    one out of the tier), and each entry's counter (the scan's) is the number of times
    the un-moves of the tier's entries reach it."""
    game, _ = built
    for tier in game.tiers():
        if not game.loopy(tier):
            continue
        kernels = game.tier_kernels(tier, {c: np.zeros(game.tier_size(c), dtype=game.value_dtype)
                                           for c in game.child_tiers(tier)})
        size = kernels.size
        _, parents_of = unmove_census(kernels, game.value_dtype)
        for entry in sample(size, 400).tolist():
            position = game.position_at(tier, entry)  # None: a duplicate
            if position is None or position.is_over():
                continue
            known = position._outcome() >= 2  # a value the rules know: its moves are not undone
            for child in position.successors().values():  # a child whose mover has lost is not stored
                if game.stored(child) and game.tier_of(child) == tuple(tier):
                    ruled = game.rules_decide_children(tier) and child._outcome() != OPEN
                    assert (entry in parents_of.get(game.index(child), ())) == (not known and not ruled)
            for parent in parents_of.get(entry, ()):
                before = game.position_at(tier, parent)
                assert any(game.index(child) == entry for child in before.successors().values())


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_a_tier_needs_at_most_twice_the_estimate(game):
    tier = max(game.tiers(), key=game.tier_size)
    children = {c: np.zeros(game.tier_size(c), dtype=game.value_dtype) for c in game.child_tiers(tier)}
    solvers.solve(game, tier, children)  # compiled and warm
    with open("/proc/self/status") as handle:
        now = next(int(line.split()[1]) * 1024 for line in handle if line.startswith("VmRSS:"))
    if not peak_rss.reset():
        pytest.skip("no peak resident set here")
    solvers.solve(game, tier, children)
    used = peak_rss.read() - now
    assert used <= 2 * game.tier_memory(tier)


KERNEL = """
import sys
from retro import games
game = games.get(sys.argv[1], sys.argv[2])
tier = min(game.tiers(), key=game.tier_size)  # the smallest: a game may have one tier
game.expand(tier)
kernel = game.rules_module._kit_expand
print(sum(kernel.stats.cache_hits.values()), sum(kernel.stats.cache_misses.values()))
"""


def named(game, before, after) -> str:
    """A move's text by the notation, from the two positions: the cells the mover's
    pieces left, then those they took, a drop (no cell left) after its piece's
    ``drop_prefix``."""
    mine = {code for code, kind in enumerate(game.piece_kinds.values(), start=1)
            if kind["side"] == before.side.value}
    changed = [c for c in range(len(before.board)) if before.board[c] != after.board[c]]
    left = [game.names[c] for c in changed if before.board[c] in mine]
    took = [c for c in changed if after.board[c] in mine]
    if game.geometry().get("moves") == "uci":  # chess: from, to, the piece a pawn became
        (origin,), (target,) = [c for c in changed if before.board[c] in mine], took
        promoted = after.board[target] != before.board[origin]
        letter = list(game.piece_kinds)[after.board[target] - 1].lower()
        return left[0] + game.names[target] + (letter if promoted else "")
    prefix = game.drop_prefix(after.board[took[0]]) if took and not left else ""
    return prefix + "-".join(left + [game.names[c] for c in took])


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_move_texts_from_rows_are_the_texts_of_the_children(game):
    """The texts a position's legal moves get from the rules' rows at once name the move
    from the position to each child (and ``move_text`` of the two positions agrees), in
    the rows' order, along random games."""
    rng = np.random.default_rng(41)
    for _ in range(20):
        position = game.start()
        while not position.is_over():
            texts, rows = position._move_rows()
            children = [game.position_of(row, position.side.other) for row in rows]
            assert list(texts) == [named(game, position, child) for child in children]
            assert list(texts) == [game.move_text(position, child) for child in children]
            assert [position.play(text) for text in texts] == children
            position = children[int(rng.integers(len(children)))]
            if len(position.board) > 9 and rng.random() < 0.05:
                break


def test_a_build_compiles_each_scan_once(built):
    """A tier's scan takes its child tiers' values: read-only arrays whether they come
    from memory, from a file or stand for no child, so that a build compiles the scan
    for one kind of array (each kind compiled it anew: seconds each)."""
    game, _ = built
    for name in ("_kit_scan", "_kit_scan_parts"):
        assert len(getattr(game.rules_module, name).signatures) <= 1, name


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_kit_kernels_are_served_from_numbas_cache(game):
    """Compiled into the game's module, the kit's kernels are cached by its file: a
    fresh interpreter after a first run compiles nothing."""
    def run():
        result = subprocess.run([sys.executable, "-c", KERNEL, game.name, game.variant], capture_output=True,
                                text=True, env=dict(os.environ), check=True)
        return [int(x) for x in result.stdout.split()]

    run()
    hits, misses = run()
    assert hits >= 1 and misses == 0


def test_a_change_of_any_file_of_a_games_package_compiles_its_kernels_anew(tmp_path):
    """numba keys a cached kernel by its own file, not by the code it calls: the kit's
    kernels in a game's module are named by a digest of the kit and of every file of the
    game's package, so a change of its rules in another file (chess's rules.py) is not
    served stale kernels; a game in a lone module is named by that file alone."""
    import importlib.util

    from retro.games.kit import game as kit_game

    def load(path, name):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    package = tmp_path / "mygame"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "rules.py").write_text("SPEED = 1\n")
    (package / "game.py").write_text("GAME = 1\n")
    module = load(package / "game.py", "mygame.game")
    before = kit_game._kit_digest(module)
    assert kit_game._kit_digest(module) == before
    (package / "rules.py").write_text("SPEED = 2\n")
    assert kit_game._kit_digest(module) != before

    (tmp_path / "lone.py").write_text("GAME = 1\n")
    (tmp_path / "other.py").write_text("X = 1\n")
    lone = load(tmp_path / "lone.py", "lone")
    before = kit_game._kit_digest(lone)
    (tmp_path / "other.py").write_text("X = 2\n")
    assert kit_game._kit_digest(lone) == before
    (tmp_path / "lone.py").write_text("GAME = 2\n")
    assert kit_game._kit_digest(lone) != before


def unmove_census(kernels, value_dtype):
    """Scan a loopy tier and undo the moves of its canonical entries: ``(finished,
    parents_of)``, after checking that each entry's counter (the scan's) is the number of
    times the un-moves of the tier's entries reach it."""
    size, width = kernels.size, kernels.moves_width
    finished, counter, counts = (np.empty(size, dtype=np.int64) for _ in range(3))
    child_values = np.empty(size * width, dtype=value_dtype)
    assert kernels.scan(0, size, width, finished, counter, counts, child_values) == -1
    # the entries whose moves the solver undoes: not duplicates, nor boards that are no
    # position (a value, never a level)
    canonical = np.flatnonzero((finished != -3) & (finished != not_a_position(value_dtype)))
    pw = kernels.parents_width
    out = np.empty(len(canonical) * pw, dtype=np.uint32)
    found = np.empty(len(canonical), dtype=np.int64)
    kernels.parents(canonical, pw, out, found)
    reached = np.zeros(size, dtype=np.int64)
    parents_of = {}
    for i, child in enumerate(canonical.tolist()):
        mine = out[i * pw:i * pw + found[i]].astype(np.int64)
        np.add.at(reached, mine, 1)
        parents_of[child] = set(mine.tolist())
    assert np.array_equal(reached, np.where(finished == -1, counter, 0))
    return finished, parents_of
