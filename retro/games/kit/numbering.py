"""The numbering of a kit game's boards (jitted): ranks of arrangements, symmetry folded.

A board is a uint8 array over the cells: 0 empty, k > 0 a piece of kind k (stored
kinds, from the side to move's view: see :mod:`retro.games.kit.game`). A tier fixes
``counts[k - 1]``, the number of pieces of each kind on the board. Its entry of a board::

    class of kind 1's cells * M + rank of the other kinds on the cells kind 1 leaves

* kind 1's cell set (the *key*) is ranked colexicographically; a table per count
  gives each rank's *class* (the least rank among its images under the symmetries,
  the class's *representative*, numbered in increasing order) and a symmetry taking
  it there; each class has its *stabiliser* (the symmetries keeping the
  representative in place, as a bitmask over the symmetries);
* the board is moved by that symmetry, and the other kinds ranked one after the
  other (a mixed radix: kind 2's cells colex among the cells kind 1 leaves, kind 3's
  among those left, ...): ``M`` is the product of those binomials.

When the stabiliser is not the identity alone, the images of the board under it give
other entries of the same position: the *canonical* entry is the least of them, the
others are duplicates (the scan marks them, ``canonical_of`` maps them back). A
position's stabiliser order (the symmetries keeping the whole board in place) is
what the un-move solver's counters weigh moves by.

The tables are small (one int32 and one int8 per combination of the key's count:
C(25, 4) = 12,650 for Teeko) and built in well under a second; tables over more than
:data:`CACHE_ABOVE` combinations are kept on disk once per machine (:func:`tables`).
"""

from __future__ import annotations

import hashlib
from math import comb
from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from ...bits import deposit, extract, lowest_bit_index, popcount

VERSION = 1  # of the tables' layout: part of the disk cache's key
CACHE_ABOVE = 2_000_000  # combinations: tables larger than this are cached on disk
MAX_KINDS = 16  # scratch arrays' width: stored kinds a board may hold, and one


class Tables(NamedTuple):
    """The numbering's tables, for jitted code (a tuple of arrays)."""

    binom: np.ndarray  # int64 (n + 1, n + 1): C(a, b)
    combo_off: np.ndarray  # int64 (kmax + 2,): where each key count's combinations start
    combo_class: np.ndarray  # int32: each combination's class (within its count)
    combo_sym: np.ndarray  # int8: a symmetry taking it to its class's representative
    class_off: np.ndarray  # int64 (kmax + 2,): where each key count's classes start
    class_rep: np.ndarray  # int64: each class's representative (a bitmask of cells)
    class_stab: np.ndarray  # int64: each class's stabiliser (bit g: symmetry g keeps it)
    sym: np.ndarray  # int64 (symmetries, n): symmetry g takes cell c to sym[g, c]


@njit(cache=True, inline="always")
def colex_rank(mask, binom):
    """Rank of the cell set ``mask`` among the sets of as many cells (colexicographic)."""
    rank = 0
    t = 1
    while mask:
        rank += binom[lowest_bit_index(mask), t]
        mask &= mask - 1
        t += 1
    return rank


@njit(cache=True, inline="always")
def colex_unrank(rank, count, binom):
    """The set of ``count`` cells whose colex rank is ``rank``."""
    if count == 1:  # the usual counts of a kind: a searching loop mispredicts its end
        return np.int64(1) << rank
    if count == 2:  # the highest cell b: C(b, 2) <= rank < C(b + 1, 2)
        b = np.int64((1.0 + np.sqrt(1.0 + 8.0 * rank)) * 0.5)
        if b * (b - 1) // 2 > rank:
            b -= 1
        elif b * (b + 1) // 2 <= rank:
            b += 1
        return (np.int64(1) << b) | (np.int64(1) << (rank - b * (b - 1) // 2))
    mask = 0
    for t in range(count, 0, -1):
        bit = t - 1
        while binom[bit + 1, t] <= rank:
            bit += 1
        rank -= binom[bit, t]
        mask |= 1 << bit
    return mask


@njit(cache=True, inline="always")
def image(mask, g, sym):
    """The cell set ``mask`` under symmetry ``g``."""
    out = 0
    while mask:
        out |= 1 << sym[g, lowest_bit_index(mask)]
        mask &= mask - 1
    return out


@njit(cache=True, inline="always")
def squeezed_rank(mask, taken, binom):
    """Colex rank of ``mask`` among the cells outside ``taken``."""
    return colex_rank(extract(mask, ~taken), binom)


@njit(cache=True, inline="always")
def squeezed_unrank(rank, count, taken, cells, binom):
    """The set of ``count`` cells outside ``taken`` of squeezed colex rank ``rank``."""
    return deposit(colex_unrank(rank, count, binom), ~taken & ((np.int64(1) << cells) - 1))


@njit(cache=True, inline="always")
def part_slot(code, slots):
    """The first slot of a part's code in the kit's hash table of a tier's parts
    (``slots``: a power of two; ``PieceGame._part_codes`` fills it, the kernels read it)."""
    return (code ^ (code >> 13) ^ (code >> 29)) & (slots - 1)


@njit(cache=True, inline="always")
def multiplier(counts, cells, binom):
    """M: the arrangements of kinds 2.. on the cells kind 1 leaves."""
    free = cells - counts[0]
    m = 1
    for j in range(1, len(counts)):
        m *= binom[free, counts[j]]
        free -= counts[j]
    return m


@njit(cache=True)
def tier_size(counts, tables):
    k = counts[0]
    classes = tables.class_off[k + 1] - tables.class_off[k]
    return classes * multiplier(counts, tables.sym.shape[1], tables.binom)


@njit(cache=True, inline="always")
def _rest_rank(masks, counts, g, h, key, sym, binom):
    """The mixed-radix rank of kinds 2.. (``masks[k]``: kind k's cells) under symmetry g,
    then h (0: the identity)."""
    taken = key
    rank = 0
    free = sym.shape[1] - counts[0]
    for j in range(1, len(counts)):
        n = counts[j]
        if n == 0:  # a digit 0 of radix 1
            continue
        moved = masks[j + 1]
        if g:
            moved = image(moved, g, sym)
        if h:
            moved = image(moved, h, sym)
        if n == 1:  # its rank: the cells left free below it
            digit = popcount(~taken & (moved - 1))
        else:
            digit = squeezed_rank(moved, taken, binom)
        rank = rank * binom[free, n] + digit
        taken |= moved
        free -= n
    return rank


@njit(cache=True)
def masks_of(board, kinds, masks):
    """``masks[k]``: the cells of kind k on ``board`` (1 <= k <= kinds; ``masks[0]``
    the empty cells)."""
    if kinds == 2:  # the usual case, in registers (a store per cell stalls on the last)
        one = np.int64(0)
        two = np.int64(0)
        for c in range(len(board)):
            v = board[c]
            if v == 1:
                one |= np.int64(1) << c
            elif v == 2:
                two |= np.int64(1) << c
        masks[0] = ~(one | two) & ((np.int64(1) << len(board)) - 1)
        masks[1] = one
        masks[2] = two
        return
    for k in range(kinds + 1):
        masks[k] = 0
    for c in range(len(board)):
        masks[board[c]] |= np.int64(1) << c


@njit(cache=True, inline="always")
def entry_of_masks(masks, counts, tables):
    """``(entry, stabiliser order)`` of the board of the cell sets ``masks`` (canonical)."""
    k = counts[0]
    cells = tables.sym.shape[1]
    r = colex_rank(masks[1], tables.binom)
    at = tables.combo_off[k] + r
    c = np.int64(tables.combo_class[at])
    g = np.int64(tables.combo_sym[at])
    stab = tables.class_stab[tables.class_off[k] + c]
    key = tables.class_rep[tables.class_off[k] + c]
    best = _rest_rank(masks, counts, g, 0, key, tables.sym, tables.binom)
    order = 1
    if stab != 1:
        best, order = _least_rest_rank(masks, counts, g, stab, key, best, tables.sym, tables.binom)
    return c * multiplier(counts, cells, tables.binom) + best, order


@njit(cache=True)
def _least_rest_rank(masks, counts, g, stab, key, mine, sym, binom):
    """``(least rank, how many of the stabiliser's symmetries give mine)`` over the
    symmetries ``stab`` keeping the key in place. Called, not inlined: the rare case (a
    symmetric key), and every kernel that ranks inlined it at seconds of compiling each."""
    best = mine
    order = 1
    for h in range(1, sym.shape[0]):
        if (stab >> h) & 1:
            rank = _rest_rank(masks, counts, g, h, key, sym, binom)
            if rank == mine:
                order += 1
            if rank < best:
                best = rank
    return best, order


@njit(cache=True, inline="always")
def order_of_masks(masks, counts, tables):
    """The stabiliser order of the board of ``masks`` (1 unless its key's class is
    symmetric: then as :func:`entry_of_masks` finds it)."""
    k = counts[0]
    r = colex_rank(masks[1], tables.binom)
    c = np.int64(tables.combo_class[tables.combo_off[k] + r])
    if tables.class_stab[tables.class_off[k] + c] == 1:
        return 1
    return entry_of_masks(masks, counts, tables)[1]


@njit(cache=True)
def entry_of(board, counts, tables, masks):
    """``(entry, stabiliser order)`` of ``board`` in the tier of ``counts``; ``masks``:
    scratch of :data:`MAX_KINDS` int64."""
    masks_of(board, len(counts), masks)
    return entry_of_masks(masks, counts, tables)


@njit(cache=True)
def board_at(entry, counts, tables, board, masks):
    """Write the board stored at ``entry`` (its key is the class representative) into
    ``board``; returns the class's stabiliser (a bitmask; 1: the identity alone).
    ``masks``: scratch."""
    k = counts[0]
    cells = tables.sym.shape[1]
    m = multiplier(counts, cells, tables.binom)
    c, rest = entry // m, entry % m
    key = tables.class_rep[tables.class_off[k] + c]
    # digits of the mixed radix, from the last kind
    free = cells - k
    for j in range(1, len(counts)):
        masks[j] = tables.binom[free, counts[j]]  # the radix, for now
        free -= counts[j]
    for j in range(len(counts) - 1, 0, -1):
        radix = masks[j]
        rest, masks[j] = rest // radix, rest % radix
    for c2 in range(cells):
        board[c2] = 0
    taken = key
    mask = key
    while mask:
        board[lowest_bit_index(mask)] = 1
        mask &= mask - 1
    for j in range(1, len(counts)):
        mask = squeezed_unrank(masks[j], counts[j], taken, cells, tables.binom)
        taken |= mask
        while mask:
            board[lowest_bit_index(mask)] = j + 1
            mask &= mask - 1
    return tables.class_stab[tables.class_off[k] + c]


@njit(cache=True, inline="always")
def masks_at(entry, counts, tables, masks):
    """Write the cell sets of the board stored at ``entry`` into ``masks`` (``masks[k]``
    kind k's cells, ``masks[0]`` the empty ones); returns the class's stabiliser (a
    bitmask; 1: the identity alone). No board is written: the kit's kernels over masks."""
    k = counts[0]
    kinds = len(counts)
    cells = tables.sym.shape[1]
    m = multiplier(counts, cells, tables.binom)
    c, rest = entry // m, entry % m
    key = tables.class_rep[tables.class_off[k] + c]
    free = cells - k
    for j in range(1, kinds):
        free -= counts[j]
    for j in range(kinds - 1, 0, -1):  # digits of the mixed radix, from the last kind
        if counts[j] == 0:  # a digit of radix 1 (most kinds of a game of many)
            masks[j + 1] = 0
            continue
        free += counts[j]
        radix = tables.binom[free, counts[j]]
        rest, masks[j + 1] = rest // radix, rest % radix
    masks[1] = key
    taken = key
    for j in range(1, kinds):
        if counts[j]:
            mask = squeezed_unrank(masks[j + 1], counts[j], taken, cells, tables.binom)
            masks[j + 1] = mask
            taken |= mask
    masks[0] = ~taken & ((np.int64(1) << cells) - 1)
    return tables.class_stab[tables.class_off[k] + c]


@njit(cache=True, inline="always")
def advance(masks, kinds, cells):
    """Move ``masks`` (of entry e, from :func:`masks_at`) to entry e + 1 in place: the
    cells of the last kind with pieces to their next combination (colex) among the cells
    it may take.
    False when that wraps (a carry to an earlier kind or to the next class: call
    :func:`masks_at`); the class, so its stabiliser, stays the same when True."""
    last = kinds
    while last > 1 and masks[last] == 0:  # kinds of none: digits of radix 1
        last -= 1
    if last == 1:  # the key alone: the next entry is the next class
        return False
    x = masks[last]
    space = masks[0] | x
    full = (np.int64(1) << cells) - 1
    low = x & -x
    y = (x | (full & ~space)) + low  # the carry runs over the lowest run (and holes)
    if y >> cells:
        return False
    high = y & space
    r = popcount(x) - popcount(high)
    spare = space
    for _ in range(r):
        spare &= spare - 1
    new = high | (space & ~spare)  # the r lowest cells of the space
    masks[last] = new
    masks[0] = space & ~new
    return True


@njit(cache=True)
def canonical_entries(entries, counts, tables, out):
    """The canonical entry of the position stored at each of ``entries``."""
    masks = np.empty(MAX_KINDS, dtype=np.int64)
    for i in range(len(entries)):
        if masks_at(entries[i], counts, tables, masks) == 1:
            out[i] = entries[i]
        else:
            out[i] = entry_of_masks(masks, counts, tables)[0]


@njit(cache=True)
def least_images(entries, counts, tables, sym, out):
    """The least entry among the images under ``sym`` (cell permutations, the identity
    first) of the board at each of ``entries``, in a numbering that folds no symmetry
    (``tables`` over the identity alone): the entries of a class of symmetric boards."""
    masks = np.empty(MAX_KINDS, dtype=np.int64)
    moved = np.empty(MAX_KINDS, dtype=np.int64)
    for i in range(len(entries)):
        masks_at(entries[i], counts, tables, masks)
        best = entries[i]
        for g in range(1, sym.shape[0]):
            for k in range(1, len(counts) + 1):
                moved[k] = image(masks[k], g, sym)
            best = min(best, entry_of_masks(moved, counts, tables)[0])
        out[i] = best


@njit(cache=True)
def _build(cells, kmax, sym, binom, combo_off, combo_class, combo_sym, class_off, reps, stabs):
    """Fill the tables (see :class:`Tables`); ``reps``/``stabs`` have room for every
    combination; returns the number of classes."""
    classes = 0
    for k in range(kmax + 1):
        class_off[k] = classes
        n = binom[cells, k]
        for r in range(n):
            mask = colex_unrank(r, k, binom)
            best = r
            chosen = 0
            for g in range(1, sym.shape[0]):
                q = colex_rank(image(mask, g, sym), binom)
                if q < best:
                    best = q
                    chosen = g
            combo_sym[combo_off[k] + r] = chosen
            if best == r:  # a representative: numbered in increasing order
                combo_class[combo_off[k] + r] = classes - class_off[k]
                reps[classes] = mask
                stab = 0
                for g in range(sym.shape[0]):
                    if image(mask, g, sym) == mask:
                        stab |= 1 << g
                stabs[classes] = stab
                classes += 1
        for r in range(n):
            if combo_sym[combo_off[k] + r] != 0:
                mask = image(colex_unrank(r, k, binom), combo_sym[combo_off[k] + r], sym)
                combo_class[combo_off[k] + r] = combo_class[combo_off[k] + colex_rank(mask, binom)]
    class_off[kmax + 1] = classes
    return classes


def build_tables(sym: np.ndarray, kmax: int) -> Tables:
    """The tables of a board of ``sym.shape[1]`` cells for key counts up to ``kmax``."""
    sym = np.ascontiguousarray(sym, dtype=np.int64)
    cells = sym.shape[1]
    binom = np.array([[comb(a, b) for b in range(cells + 1)] for a in range(cells + 1)], dtype=np.int64)
    combo_off = np.zeros(kmax + 2, dtype=np.int64)
    for k in range(kmax + 1):
        combo_off[k + 1] = combo_off[k] + comb(cells, k)
    total = int(combo_off[-1])
    combo_class = np.zeros(total, dtype=np.int32)
    combo_sym = np.zeros(total, dtype=np.int8)
    class_off = np.zeros(kmax + 2, dtype=np.int64)
    reps = np.zeros(total, dtype=np.int64)
    stabs = np.zeros(total, dtype=np.int64)
    classes = _build(cells, kmax, sym, binom, combo_off, combo_class, combo_sym, class_off, reps, stabs)
    return Tables(binom, combo_off, combo_class, combo_sym, class_off, reps[:classes].copy(),
                  stabs[:classes].copy(), sym)


def _cache_file(sym: np.ndarray, kmax: int) -> Path:
    from platformdirs import user_cache_dir

    digest = hashlib.sha256(np.ascontiguousarray(sym, dtype=np.int64).tobytes()
                            + f"{kmax}:{VERSION}".encode()).hexdigest()[:16]
    return Path(user_cache_dir("retro")) / "kit" / f"tables-{sym.shape[1]}-{kmax}-{digest}.npz"


def tables(sym: np.ndarray, kmax: int) -> Tables:
    """:func:`build_tables`, read from the disk cache when they are large (written
    there the first time, atomically; a cache that cannot be written is skipped)."""
    if comb(sym.shape[1], kmax) <= CACHE_ABOVE:
        return build_tables(sym, kmax)
    path = _cache_file(sym, kmax)
    try:
        with np.load(path) as saved:
            return Tables(*(saved[name] for name in Tables._fields))
    except (OSError, KeyError, ValueError):
        pass
    made = build_tables(sym, kmax)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{id(made)}.tmp.npz")
        np.savez(partial, **made._asdict())
        partial.replace(path)
    except OSError:
        pass
    return made
