"""The kit's numbering at its edges: the bit instructions against their portable loops,
colex ranks of every count up to the 64th cell, ``advance`` (the scan's step to the
next entry) against ``masks_at`` of that entry, kinds of no pieces among the others, and
a key of two kinds with classes left out, against every board counted by brute force."""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from numba import njit

from retro import bits
from retro.games.kit import numbering
from retro.games.kit.cells import grid_symmetries


@njit  # not cached: numba would not see a change of retro.bits under it
def _both_ways(a, b, out):
    for i in range(len(a)):
        out[i, 0] = bits.deposit(a[i], b[i])
        out[i, 1] = bits._deposit_loop(a[i], b[i])
        out[i, 2] = bits.extract(a[i], b[i])
        out[i, 3] = bits._extract_loop(a[i], b[i])


def test_deposit_and_extract_are_the_portable_loops():
    rng = np.random.default_rng(7)
    a = rng.integers(-(1 << 63), (1 << 63) - 1, 20_000, dtype=np.int64)
    b = rng.integers(-(1 << 63), (1 << 63) - 1, 20_000, dtype=np.int64)
    b[:5000] &= rng.integers(0, 1 << 12, 5000)  # sparse spaces, as a board's free cells
    out = np.empty((len(a), 4), dtype=np.int64)
    _both_ways(a, b, out)
    assert np.array_equal(out[:, 0], out[:, 1])
    assert np.array_equal(out[:, 2], out[:, 3])


@pytest.mark.parametrize("cells", [12, 25, 64])
def test_colex_ranks_round_trip_for_every_count(cells):
    binom = np.array([[comb(a, b) for b in range(cells + 1)] for a in range(cells + 1)], dtype=np.int64)
    for count in range(5):
        total = comb(cells, count)
        ranks = range(total) if total <= 20_000 else [*range(5000), *range(total - 5000, total)]
        seen = set()
        for rank in ranks:
            mask = int(numbering.colex_unrank(rank, count, binom)) & ((1 << 64) - 1)
            assert bin(mask).count("1") == count and mask < 1 << cells
            # colex order is the order of the sets as numbers
            assert int(numbering.colex_rank(mask if mask < 1 << 63 else mask - (1 << 64), binom)) == rank
            seen.add(mask)
        assert len(seen) == len(ranks)


def test_advance_steps_to_the_next_entry_over_kinds_of_no_pieces():
    sym = grid_symmetries(3, 4)
    tables = numbering.build_tables(sym, 2)
    masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    after = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    for counts in ([1, 0, 2, 0, 1, 0], [2, 1, 0, 0, 0], [1, 0, 0, 0], [1, 1, 1, 0, 0, 2]):
        counts = np.array(counts, dtype=np.int64)
        kinds = len(counts)
        size = int(numbering.tier_size(counts, tables))
        stepped = 0
        for e in range(size - 1):
            numbering.masks_at(e, counts, tables, masks, 1)
            if numbering.advance(masks, counts, tables, 1):
                numbering.masks_at(e + 1, counts, tables, after, 1)
                assert np.array_equal(masks[:kinds + 1], after[:kinds + 1]), (counts, e)
                stepped += 1
        if counts[1:].any():  # the key alone: every step is to another class
            assert stepped > size // 2  # most steps are taken in place


def test_a_board_of_64_cells_numbers_every_cell_and_steps_to_the_last():
    """On 8×8 (its 8 symmetries), h8 is the int64's sign bit: every board's empty cells
    and pieces cover the 64 cells, ``advance`` steps as ``masks_at`` (the carry past h8
    is a wrap), and each board's entry is the least of its images'."""
    tables = numbering.build_tables(grid_symmetries(8, 8), 1)
    masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    after = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    board = np.empty(64, dtype=np.uint8)
    rng = np.random.default_rng(64)
    for counts in ([1, 1, 1], [1, 2, 0, 1]):
        counts = np.array(counts, dtype=np.int64)
        kinds = len(counts)
        size = int(numbering.tier_size(counts, tables))
        m = int(numbering.multiplier(counts, tables, 1))
        assert size == 10 * m  # a king's 64 squares: 10 classes under the 8 symmetries
        entries = np.unique(np.concatenate([rng.integers(0, size - 1, 4000), np.arange(m - 300, m + 300),
                                            np.arange(size - 300, size - 1)]))
        stepped = 0
        for e in entries.tolist():
            numbering.masks_at(e, counts, tables, masks, 1)
            pieces = 0
            for k in range(1, kinds + 1):
                cells = int(masks[k])
                assert cells & pieces == 0 and bin(cells & ((1 << 64) - 1)).count("1") == counts[k - 1]
                pieces |= cells
            assert int(masks[0]) == ~pieces  # the empty cells: the rest of all 64
            numbering.board_at(e, counts, tables, board, after)
            entry, order = numbering.entry_of(board, counts, tables, after)
            assert entry <= e and order >= 1
            if numbering.advance(masks, counts, tables, 1):
                numbering.masks_at(e + 1, counts, tables, after, 1)
                assert np.array_equal(masks[:kinds + 1], after[:kinds + 1]), (counts, e)
                stepped += 1
        assert stepped > len(entries) // 2


def _adjacent(a: int, b: int) -> bool:
    (r1, f1), (r2, f2) = divmod(a, 3), divmod(b, 3)
    return max(abs(r1 - r2), abs(f1 - f2)) <= 1


@pytest.mark.parametrize("key_kinds", [(1, 3), (2, 1)])
def test_a_key_of_two_kinds_leaves_out_what_it_is_told(key_kinds):
    """Every board of one piece of kinds 1 and 3 and two of kind 2 on 3x4 cells, folded
    by the four symmetries of the rectangle: with the key kinds 1 and 3, a board whose
    two key pieces stand side by side has no entry; every other board's entry holds one
    of its images, and the canonical entries are exactly its classes."""
    from itertools import permutations

    sym = grid_symmetries(4, 3)

    def allowed(first: int, second: int) -> bool:
        return not (first and second and _adjacent(first.bit_length() - 1, second.bit_length() - 1))

    tables = numbering.build_tables(sym, 2, key_kinds, 3, allowed if key_kinds == (1, 3) else None)
    counts = np.array([1, 2, 1], dtype=np.int64)
    size = int(numbering.tier_size(counts, tables))
    masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    board = np.zeros(12, dtype=np.uint8)
    classes = set()
    for cells in permutations(range(12), 4):
        if cells[1] > cells[2]:  # the two pieces of kind 2 in one order
            continue
        board[:] = 0
        for cell, kind in zip(cells, (1, 2, 2, 3)):
            board[cell] = kind
        key = [cells[0] if k == 1 else cells[1] if k == 2 else cells[3] for k in key_kinds]
        entry, order = numbering.entry_of(board, counts, tables, masks)
        if key_kinds == (1, 3) and _adjacent(*key):
            assert entry == -1 and order == 0
            continue
        images = {(i[0], *sorted(i[1:3]), i[3]) for i in
                  (tuple(int(sym[g, c]) for c in cells) for g in range(len(sym)))}
        stored = np.zeros(12, dtype=np.uint8)
        numbering.board_at(entry, counts, tables, stored, masks)
        assert tuple(int(c) for k in (1, 2, 3) for c in np.flatnonzero(stored == k)) in images
        classes.add(frozenset(images))
        assert 0 <= entry < size
    assert size - sum(1 for e in range(size) if _duplicate(e, counts, tables, masks)) == len(classes)


def _duplicate(entry, counts, tables, masks) -> bool:
    numbering.masks_at(entry, counts, tables, masks, 2)
    return int(numbering.entry_of_masks(masks, counts, tables, 2)[0]) != entry



@pytest.mark.parametrize("counts", [[1, 1, 1, 1], [1, 2, 1, 0], [1, 1, 0, 2], [1, 0, 2, 1]])
def test_kinds_confined_to_domains_number_their_boards_once(counts):
    """On 4x4 cells folded by the left-right mirror, kind 2 confined to the middle rows
    and kind 4 to the third row (both kept in place by the mirror), kind 3 free: every
    board with each confined piece in its domain has an entry holding one of its
    images; an entry where a confined piece shares a cell with another is no board
    (stabiliser 0); the canonical entries are exactly the classes; and the scan's step
    (``advance``, from a board only) gives the next entry's cells."""
    from itertools import combinations

    mirror = np.array([np.arange(16), [4 * (c // 4) + 3 - c % 4 for c in range(16)]], dtype=np.int64)
    domains = {2: range(4, 12), 4: range(8, 12)}
    tables = numbering.build_tables(mirror, 1, (1,), 4, None, domains)
    counts = np.array(counts, dtype=np.int64)
    size = int(numbering.tier_size(counts, tables))
    masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    after = np.empty(numbering.MAX_KINDS, dtype=np.int64)

    def boards(kind, free, board):
        if kind > 4:
            yield board
            return
        where = [c for c in free if c in domains.get(kind, range(16))]
        for cells in combinations(where, int(counts[kind - 1])):
            placed = dict(board, **{str(c): kind for c in cells})
            yield from boards(kind + 1, [c for c in free if c not in cells], placed)

    classes = set()
    for placed in boards(1, list(range(16)), {}):
        board = np.zeros(16, dtype=np.uint8)
        for c, k in placed.items():
            board[int(c)] = k
        images = set()
        for g in range(2):
            image = np.zeros(16, dtype=np.uint8)
            image[mirror[g]] = board
            images.add(tuple(image.tolist()))
        entry, _ = numbering.entry_of(board, counts, tables, masks)
        assert 0 <= entry < size
        stored = np.zeros(16, dtype=np.uint8)
        assert numbering.board_at(entry, counts, tables, stored, masks) >= 1
        assert tuple(stored.tolist()) in images
        classes.add(frozenset(images))
    canonical = 0
    clashes = 0
    for e in range(size):
        if numbering.masks_at(e, counts, tables, masks, 1) == 0:
            clashes += 1
        elif int(numbering.entry_of_masks(masks, counts, tables, 1)[0]) == e:
            canonical += 1
    assert canonical == len(classes)
    assert clashes > 0
    stab = 0
    for e in range(size):
        if e == 0 or stab == 0 or not numbering.advance(masks, counts, tables, 1):
            stab = numbering.masks_at(e, counts, tables, masks, 1)
        elif stab:
            assert numbering.masks_at(e, counts, tables, after, 1) == stab
            assert np.array_equal(masks[:5], after[:5]), (counts, e)
