"""Nine men's morris's index and the engine's un-move solver (issue 24, first steps).

The un-move solver (:mod:`retro.engine.unmove`) must give, byte for byte, what the
explicit solver gives on the same tiers (every edge expanded and turned around in
memory); the one-colour canonical index must round-trip; and the 3-3 sector must
agree with the published record: 210,140 index entries (Malom's count), of which
140,621 positions are won for the side to move, 28,736 lost and 269 drawn (one
entry per position up to symmetry, as eigenraum counts them), the longest loss 26
plies (Gasser 1996).
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from retro.engine import solvers
from retro.games.morris.nine import LOST, NineMensMorris
from retro.values import draw_value, not_a_position

DRAW = draw_value(np.uint16)
NOT_A_POSITION = not_a_position(np.uint16)


@pytest.fixture(scope="module")
def three():
    return NineMensMorris("3")


@pytest.fixture(scope="module")
def both_ways(three):
    """Every tier of the 3-piece game solved both ways: ``{tier: (explicit, unmove)}``."""
    explicit: dict = {}
    unmoves: dict = {}
    for tier in three.tiers():
        kids = three.child_tiers(tier)
        given = {k: explicit[k] for k in kids}
        given[LOST] = np.zeros(1, dtype=np.uint16)
        values = solvers.solve_explicit(three, tier, given)
        duplicates = np.flatnonzero(values == NOT_A_POSITION)
        values[duplicates] = values[three.canonical_entries(tier, duplicates)]
        explicit[tier] = values
        unmoves[tier] = solvers.solve(three, tier, {k: unmoves[k] for k in kids})
    return {tier: (explicit[tier], unmoves[tier]) for tier in three.tiers()}


def test_the_unmove_solver_equals_the_explicit_one_on_every_tier(both_ways):
    for tier, (explicit, unmoves) in both_ways.items():
        assert explicit.dtype == unmoves.dtype == np.uint16
        assert np.array_equal(explicit, unmoves), tier


def test_entries_with_more_moves_out_than_the_room_are_solved_from_all_of_them(three, both_ways):
    # Room for one move out of the tier: most entries with moves out are scanned twice,
    # the second time with room for all, and must be scheduled once, from all of them.
    from dataclasses import replace

    from retro.engine import unmove

    solved: dict = {}
    for tier in three.tiers():
        kernels = replace(three.tier_kernels(tier, {k: solved[k] for k in three.child_tiers(tier)}),
                          moves_width=1)
        solve = unmove.solve_loopy if three.loopy(tier) else unmove.solve_acyclic
        solved[tier] = solve(kernels, np.uint16)
        assert np.array_equal(solved[tier], both_ways[tier][0]), tier


def test_small_groups_and_children_read_from_memory_maps_give_the_same_values(three, both_ways,
                                                                           tmp_path, monkeypatch):
    # A level's schedule handed out a few entries at a time, and child tiers mapped from
    # disk (their pages dropped after the scan, as a build's are): the same values.
    from retro.engine import unmove

    monkeypatch.setattr(unmove, "GROUP", 5)
    for tier in three.tiers():
        kids = {}
        for k in three.child_tiers(tier):
            path = tmp_path / f"{three.tier_name(k)}.npy"
            np.save(path, both_ways[k][0])
            kids[k] = np.load(path, mmap_mode="r")
        values = solvers.solve(three, tier, kids)
        assert np.array_equal(values, both_ways[tier][0]), tier
        for k, mapped in kids.items():  # still readable after its pages were dropped
            assert np.array_equal(mapped, both_ways[k][0])


def test_a_schedule_hands_out_what_keep_keeps_in_pieces_of_at_most_most():
    from retro.engine import unmove

    schedule = unmove._Schedule()
    rng = np.random.default_rng(5)
    entries = rng.permutation(1000).astype(np.int64)
    levels = rng.integers(0, 3, size=1000)
    for start in range(0, 1000, 64):
        schedule.add(entries[start:start + 64], levels[start:start + 64])
    pieces = list(schedule.pop(1, 50, lambda items: items[items % 3 != 0]))
    assert all(len(piece) <= 50 and piece.dtype == np.int64 for piece in pieces)
    wanted = [e for e, v in zip(entries.tolist(), levels.tolist()) if v == 1 and e % 3 != 0]
    assert np.concatenate(pieces).tolist() == wanted
    assert sorted(schedule.lists) == [0, 2]


def test_the_peak_resident_set_is_reset_and_read():
    from retro.engine import peak_rss

    def resident() -> int:
        with open("/proc/self/status") as status:
            return next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmRSS:"))

    if not peak_rss.reset():
        pytest.skip("this system cannot reset the peak resident set")
    block = np.ones(256 << 20, dtype=np.uint8)  # touched, then given back
    high = peak_rss.read()
    assert high >= resident() - (4 << 20) and resident() >= block.nbytes
    del block
    assert high - resident() > 192 << 20  # the peak stays where the block took it
    assert peak_rss.reset()
    assert peak_rss.read() < high - (128 << 20)
    # The whole process's peak survives the reset (the kernel's record does not; it is
    # updated lazily, so a few pages freed meanwhile may not count).
    assert peak_rss.highest() >= high - (4 << 20)


def test_an_in_core_build_leaves_the_kernels_peak_alone(tmp_path):
    # Only an out-of-core build resets it (per tier): for the others it stays what
    # /usr/bin/time and the benchmarks read.
    from retro.engine import peak_rss
    from retro.engine.build import build

    if peak_rss.read() is None:
        pytest.skip("this system keeps no peak resident set")
    block = np.ones(256 << 20, dtype=np.uint8)
    high = peak_rss.read()
    del block
    build("tic-tac-toe", tmp_path / "t.h5", progress=False)
    assert peak_rss.read() >= high - (4 << 20)


def test_the_3_3_sector_agrees_with_the_published_counts(three, both_ways):
    tier = (0, 0, 3, 3)
    values = both_ways[tier][1]
    assert len(values) == 210_140
    canonical = three.expand(tier).finished != NOT_A_POSITION
    kept = values[canonical]
    drawn = kept == DRAW
    won = ~drawn & ((kept & 1) == 1)
    lost = ~drawn & ((kept & 1) == 0)
    assert (int(won.sum()), int(lost.sum()), int(drawn.sum())) == (140_621, 28_736, 269)
    assert int((kept[lost] >> 1).max()) == 26


def test_the_same_bytes_whatever_the_threads(three, both_ways):
    tier = (0, 0, 3, 3)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        alone = solvers.solve(three, tier, {})
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(alone, both_ways[tier][1])


def test_entries_round_trip_and_symmetric_images_share_one(three):
    rng = np.random.default_rng(7)
    for tier in three.tiers():
        size = three.tier_size(tier)
        entries = rng.choice(size, size=min(size, 300), replace=False)
        canonical = three.canonical_entries(tier, entries)
        for entry, home in zip(entries.tolist(), canonical.tolist()):
            position = three.position_at(tier, entry)
            if home != entry:  # an image of the position at its canonical entry: none here
                assert position is None and three.position_at(tier, home) is not None
                continue
            assert position is not None
            assert three.tier_of(position) == tuple(tier)
            assert three.index(position) == home
            for image in position.symmetric_images():
                assert three.index(image) == home
            if home == entry:  # each position once: the canonical entry is the least
                assert min(three.index(p) for p in position.symmetric_images()) == entry
