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

A kind may be confined to a *domain*, a set of cells its pieces may stand on (chess:
pawns never on the first or last rank; the pawn that has just made a double step, on
its fourth rank): its cells are ranked colex among the domain's, whatever the kinds
ranked before it took (so its radix is fixed). A board where a confined piece shares a
cell with another is no position: :func:`masks_at` says so (stabiliser 0), and its
entry is left unused. A domain must be kept in place by the symmetries of every tier
holding that kind; a kind without one (the usual case) is ranked as above.

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

VERSION = 2  # of the tables' layout: part of the disk cache's key
CACHE_ABOVE = 2_000_000  # combinations: tables larger than this are cached on disk
MAX_KINDS = 16  # scratch arrays' width: stored kinds a board may hold, and one


class Tables(NamedTuple):
    """The numbering's tables, for jitted code (a tuple of arrays)."""

    binom: np.ndarray  # int64 (n + 1, n + 1): C(a, b)
    combo_off: np.ndarray  # int64: where each key count's combinations start (and the end)
    combo_class: np.ndarray  # int32: each combination's class (within its count; -1 left out)
    combo_sym: np.ndarray  # int8: a symmetry taking it to its class's representative
    class_off: np.ndarray  # int64: where each key count's classes start (and the end)
    class_rep: np.ndarray  # int64 (classes, 2): each class's representative (cells of each key kind)
    class_stab: np.ndarray  # int64: each class's stabiliser (bit g: symmetry g keeps it)
    sym: np.ndarray  # int64 (symmetries, n): symmetry g takes cell c to sym[g, c]
    order: np.ndarray  # int64: the stored kinds in the numbering's order, the key kinds first
    key: np.ndarray  # int64 (2,): the key kinds (1 or 2), and their greatest count + 1
    block: np.ndarray  # int64: per combination of the first key kind's cells, the first class
    # whose representative has the least of their images (the run of classes holding them)
    domain: np.ndarray  # int64 (2, MAX_KINDS): the cells each stored kind may stand on, and how many
    # (-1: every cell, unconfined); counted here once: counted in the multiplier's loop (by
    # ``popcount``, a call) it halved the speed of every rank and unrank, measured


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
def all_cells(cells):
    """The set of the board's ``cells`` cells, 1 to 64 (64: every bit of the int64, where
    ``1 << 64`` would be undefined)."""
    top = np.int64(1) << (cells - 1)
    return (top - 1) | top


@njit(cache=True, inline="always")
def squeezed_unrank(rank, count, taken, cells, binom):
    """The set of ``count`` cells outside ``taken`` of squeezed colex rank ``rank``."""
    return deposit(colex_unrank(rank, count, binom), ~taken & all_cells(cells))


@njit(cache=True, inline="always")
def _kind(tables, keys, j):
    """The stored kind at place j of the numbering's order (kind j + 1 for a key of one kind)."""
    return j + 1 if keys == 1 else tables.order[j]


@njit(cache=True, inline="always")
def key_count(counts, tables, keys):
    """The index of the key's counts among the tables' (the count of kind 1, or of both
    key kinds as digits of ``key[1]``)."""
    kc = counts[_kind(tables, keys, 0) - 1]
    if keys == 2:
        kc = kc * tables.key[1] + counts[tables.order[1] - 1]
    return kc


@njit(cache=True, inline="always")
def part_slot(code, slots):
    """The first slot of a part's code in the kit's hash table of a tier's parts
    (``slots``: a power of two; ``PieceGame._part_codes`` fills it, the kernels read it)."""
    return (code ^ (code >> 13) ^ (code >> 29)) & (slots - 1)


@njit(cache=True, inline="always")
def confined(tables, kind):
    """Whether ``kind`` has a domain smaller than the board."""
    return tables.domain[1, kind] >= 0


@njit(cache=True, inline="always")
def multiplier(counts, tables, keys):
    """M: the arrangements of the other kinds on the cells the key leaves (a confined
    kind's on its domain)."""
    free = tables.sym.shape[1]
    for j in range(keys):
        free -= counts[_kind(tables, keys, j) - 1]
    m = 1
    for j in range(keys, len(counts)):
        kind = _kind(tables, keys, j)
        n = counts[kind - 1]
        d = tables.domain[1, kind]
        m *= tables.binom[d if d >= 0 else free, n]
        free -= n
    return m


PLAN_HEAD = 5  # a plan's head: the key's count index, M, the kinds after the key with pieces, the key's counts
PLAN = PLAN_HEAD + 3 * MAX_KINDS  # a plan's int64 width


@njit(cache=True)
def plan_of(counts, tables, keys, plan):
    """Write into ``plan`` (:data:`PLAN` int64) what ranking a board of ``counts`` needs:
    the key's count index (:func:`key_count`), the multiplier M, and, for each kind after
    the key with pieces, in the numbering's order, its kind, its count and its radix.
    The kernels work one out per count tuple once (per tier, part or child tier) and rank
    boards from it: the loops over every kind (most of them empty in a game of many
    kinds, chess's 13) cost more than the rank's arithmetic, measured."""
    plan[0] = key_count(counts, tables, keys)
    plan[1] = multiplier(counts, tables, keys)
    plan[3] = counts[_kind(tables, keys, 0) - 1]
    plan[4] = counts[tables.order[1] - 1] if keys == 2 else 0
    free = tables.sym.shape[1] - plan[3] - plan[4]
    t = 0
    for j in range(keys, len(counts)):
        kind = _kind(tables, keys, j)
        n = counts[kind - 1]
        if n == 0:
            continue
        d = tables.domain[1, kind]
        plan[PLAN_HEAD + 3 * t] = kind
        plan[PLAN_HEAD + 3 * t + 1] = n
        plan[PLAN_HEAD + 3 * t + 2] = tables.binom[d if d >= 0 else free, n]
        free -= n
        t += 1
    plan[2] = t


@njit(cache=True)
def plans_of(rows, kinds, tables, keys):
    """The plans (:func:`plan_of`) of the count tuples ``rows[i, :kinds]``, one row each."""
    out = np.empty((len(rows), PLAN), dtype=np.int64)
    for i in range(len(rows)):
        plan_of(rows[i, :kinds], tables, keys, out[i])
    return out


@njit(cache=True)
def tier_size(counts, tables):
    kc = key_count(counts, tables, tables.key[0])
    classes = tables.class_off[kc + 1] - tables.class_off[kc]
    return classes * multiplier(counts, tables, tables.key[0])


@njit(cache=True, inline="always")
def _rest_rank(masks, plan, g, h, key, sym, binom, domain):
    """The mixed-radix rank of the kinds after the key (the plan's, :func:`plan_of`;
    ``masks[k]``: kind k's cells, ``key`` the key's) under symmetry g, then h (0: the
    identity)."""
    taken = key
    rank = 0
    for t in range(plan[2]):
        kind = plan[PLAN_HEAD + 3 * t]
        n = plan[PLAN_HEAD + 3 * t + 1]
        moved = masks[kind]
        if g:
            moved = image(moved, g, sym)
        if h:
            moved = image(moved, h, sym)
        if domain[1, kind] >= 0:  # confined: its rank among its domain's cells
            cells = domain[0, kind]
            if n == 1:
                digit = popcount(cells & (moved - 1))
            else:
                digit = colex_rank(extract(moved, cells), binom)
        else:
            if n == 1:  # its rank: the cells left free below it
                digit = popcount(~taken & (moved - 1))
            else:
                digit = squeezed_rank(moved, taken, binom)
        rank = rank * plan[PLAN_HEAD + 3 * t + 2] + digit
        taken |= moved
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
        masks[0] = ~(one | two) & all_cells(len(board))
        masks[1] = one
        masks[2] = two
        return
    for k in range(kinds + 1):
        masks[k] = 0
    for c in range(len(board)):
        masks[board[c]] |= np.int64(1) << c


@njit(cache=True, inline="always")
def key_rank(masks, plan, tables, keys):
    """The rank of the key's cells among the combinations of its counts (the plan's,
    :func:`plan_of`): the first key kind colex, then the second's among the cells left."""
    # A key kind of one piece (chess's kings) is ranked by its cell alone, without the
    # loop over its cells and the table lookups a set takes.
    first = masks[_kind(tables, keys, 0)]
    r = lowest_bit_index(first) if plan[3] == 1 else colex_rank(first, tables.binom)
    if keys == 2:
        n = tables.sym.shape[1] - plan[3]
        second = masks[tables.order[1]]
        if plan[4] == 1:  # the free cells below it
            low = popcount(~first & (second - 1))
        else:
            low = squeezed_rank(second, first, tables.binom)
        r = r * tables.binom[n, plan[4]] + low
    return r


@njit(cache=True, inline="always")
def key_class_of_plan(masks, plan, tables, keys):
    """``(class, symmetry, row)`` of the key of the cell sets ``masks`` in the tier of
    the plan ``plan``: its class among the key's count (-1 when left out), the symmetry
    taking it to the class's representative, and the class's row of the tables (its
    stabiliser ``class_stab[row]``, its cells ``class_rep[row]``)."""
    kc = plan[0]
    at = tables.combo_off[kc] + key_rank(masks, plan, tables, keys)
    c = np.int64(tables.combo_class[at])
    return c, np.int64(tables.combo_sym[at]), tables.class_off[kc] + c


@njit(cache=True, inline="always")
def rest_rank(masks, plan, tables, g, row):
    """The rank of the kinds after the key (the plan's) under symmetry ``g``, their key
    of class row ``row`` (:func:`key_class_of_plan`) in place: an entry's offset in its
    key's class when that class's stabiliser is the identity alone."""
    key = tables.class_rep[row, 0] | tables.class_rep[row, 1]
    return _rest_rank(masks, plan, g, 0, key, tables.sym, tables.binom, tables.domain)


@njit(cache=True, inline="always")
def entry_of_plan(masks, plan, tables, keys):
    """``(entry, stabiliser order)`` of the board of the cell sets ``masks`` (canonical)
    in the tier of the plan ``plan`` (:func:`plan_of`); ``(-1, 0)`` when its key's class
    is left out. ``keys``: the key's kinds (the tables' ``key[0]``; a kernel passes its
    constant, which the compiler folds: a key of one kind, kind 1, then takes no branch
    nor lookup)."""
    c, g, cl = key_class_of_plan(masks, plan, tables, keys)
    if c < 0:
        return np.int64(-1), np.int64(0)
    stab = tables.class_stab[cl]
    best = rest_rank(masks, plan, tables, g, cl)
    order = np.int64(1)
    if stab != 1:
        key = tables.class_rep[cl, 0] | tables.class_rep[cl, 1]
        best, order = _least_rest_rank(masks, plan, g, stab, key, best, tables.sym, tables.binom, tables.domain)
    return c * plan[1] + best, order


@njit(cache=True)
def _least_rest_rank(masks, plan, g, stab, key, mine, sym, binom, domain):
    """``(least rank, how many of the stabiliser's symmetries give mine)`` over the
    symmetries ``stab`` keeping the key in place. Called, not inlined: the rare case (a
    symmetric key), and every kernel that ranks inlined it at seconds of compiling each."""
    best = mine
    order = 1
    for h in range(1, sym.shape[0]):
        if (stab >> h) & 1:
            rank = _rest_rank(masks, plan, g, h, key, sym, binom, domain)
            if rank == mine:
                order += 1
            if rank < best:
                best = rank
    return best, order


@njit(cache=True, inline="always")
def order_of_plan(masks, plan, tables, keys):
    """The stabiliser order of the board of ``masks`` (1 unless its key's class is
    symmetric: then as :func:`entry_of_plan` finds it; 0 when its class is left out)."""
    kc = plan[0]
    c = np.int64(tables.combo_class[tables.combo_off[kc] + key_rank(masks, plan, tables, keys)])
    if c < 0:
        return np.int64(0)
    if tables.class_stab[tables.class_off[kc] + c] == 1:
        return np.int64(1)
    return entry_of_plan(masks, plan, tables, keys)[1]


@njit(cache=True)
def entry_of_masks(masks, counts, tables, keys):
    """:func:`entry_of_plan` of the tier of ``counts`` (its plan worked out: for a board
    now and then; kernels keep their plans)."""
    plan = np.empty(PLAN, dtype=np.int64)
    plan_of(counts, tables, keys, plan)
    return entry_of_plan(masks, plan, tables, keys)


@njit(cache=True)
def entry_of(board, counts, tables, masks):
    """``(entry, stabiliser order)`` of ``board`` in the tier of ``counts``; ``masks``:
    scratch of :data:`MAX_KINDS` int64."""
    masks_of(board, len(counts), masks)
    return entry_of_masks(masks, counts, tables, tables.key[0])


@njit(cache=True)
def board_at(entry, counts, tables, board, masks):
    """Write the board stored at ``entry`` (its key is the class representative) into
    ``board``; returns the class's stabiliser (a bitmask; 1: the identity alone; 0: no
    board, a confined piece on another's cell). ``masks``: scratch."""
    stab = masks_at(entry, counts, tables, masks, tables.key[0])
    if stab == 0:
        return stab
    for c in range(tables.sym.shape[1]):
        board[c] = 0
    for k in range(1, len(counts) + 1):
        mask = masks[k]
        while mask:
            board[lowest_bit_index(mask)] = k
            mask &= mask - 1
    return stab


@njit(cache=True, inline="always")
def masks_of_plan(entry, plan, tables, masks, keys):
    """Write the cell sets of the board stored at ``entry`` of the tier of ``plan``
    (:func:`plan_of`) into ``masks`` (``masks[k]`` kind k's cells, ``masks[0]`` the
    empty ones; :data:`MAX_KINDS` of them, those of no piece 0); returns the class's
    stabiliser (a bitmask; 1: the identity alone), or 0 when a confined piece stands on
    a cell another took (no board: the entry is unused). No board is written: the kit's
    kernels over masks."""
    cells = tables.sym.shape[1]
    c, rest = entry // plan[1], entry % plan[1]
    at = tables.class_off[plan[0]] + c
    for k in range(len(tables.order) + 1):  # the kinds of no piece, and those about to be
        masks[k] = 0
    for t in range(plan[2] - 1, -1, -1):  # digits of the mixed radix, from the last kind
        radix = plan[PLAN_HEAD + 3 * t + 2]
        rest, masks[plan[PLAN_HEAD + 3 * t]] = rest // radix, rest % radix
    masks[_kind(tables, keys, 0)] = tables.class_rep[at, 0]
    taken = tables.class_rep[at, 0]
    if keys == 2:
        masks[_kind(tables, keys, 1)] = tables.class_rep[at, 1]
        taken |= tables.class_rep[at, 1]
    clash = False
    for t in range(plan[2]):
        kind = plan[PLAN_HEAD + 3 * t]
        n = plan[PLAN_HEAD + 3 * t + 1]
        if confined(tables, kind):
            mask = deposit(colex_unrank(masks[kind], n, tables.binom), tables.domain[0, kind])
            clash |= (mask & taken) != 0
        else:
            mask = squeezed_unrank(masks[kind], n, taken, cells, tables.binom)
        masks[kind] = mask
        taken |= mask
    masks[0] = ~taken & all_cells(cells)
    return np.int64(0) if clash else tables.class_stab[at]


@njit(cache=True)
def masks_at(entry, counts, tables, masks, keys):
    """:func:`masks_of_plan` of the tier of ``counts`` (its plan worked out: for a board
    now and then; kernels keep their plans)."""
    plan = np.empty(PLAN, dtype=np.int64)
    plan_of(counts, tables, keys, plan)
    return masks_of_plan(entry, plan, tables, masks, keys)


@njit(cache=True, inline="always")
def advance(masks, counts, tables, keys):
    """Move ``masks`` (of entry e, from :func:`masks_at`) to entry e + 1 in place: the
    cells of the last kind with pieces to their next combination (colex) among the cells
    it may take.
    False when that wraps (a carry to an earlier kind or to the next class: call
    :func:`masks_at`); the class, so its stabiliser, stays the same when True."""
    cells = tables.sym.shape[1]
    j = len(counts) - 1
    while j >= keys and masks[_kind(tables, keys, j)] == 0:  # kinds of none: digits of radix 1
        j -= 1
    if j < keys:  # the key alone: the next entry is the next class
        return False
    last = _kind(tables, keys, j)
    x = masks[last]
    if confined(tables, last):
        return _advance_confined(masks, tables, last, x)
    space = masks[0] | x
    new = _next_combination(x, space, cells)
    if new == 0:
        return False
    masks[last] = new
    masks[0] = space & ~new
    return True


@njit(cache=True, inline="always")
def _next_combination(x, space, cells):
    """The cells after ``x`` (as many) in colex order among the cells of ``space``; 0
    when ``x`` is the last (a wrap)."""
    low = x & -x
    z = x | (all_cells(cells) & ~space)
    y = z + low  # the carry runs over the lowest run (and holes)
    if cells < 64:  # past the last cell: a wrap
        if y >> cells:
            return np.int64(0)
    elif np.uint64(y) < np.uint64(z):  # 64 cells: the carry left the int64
        return np.int64(0)
    high = y & space
    r = popcount(x) - popcount(high)
    spare = space
    for _ in range(r):
        spare &= spare - 1
    return high | (space & ~spare)  # the r lowest cells of the space


@njit(cache=True, inline="always")
def _advance_confined(masks, tables, last, x):
    """:func:`advance` of a confined last kind: its next combination among its domain's
    cells; False also when it shares a cell with another piece before or after (left to
    :func:`masks_at`, which says no board)."""
    cells = tables.sym.shape[1]
    space = tables.domain[0, last]
    others = np.int64(0)
    for k in range(1, len(tables.order) + 1):
        if k != last:
            others |= masks[k]
    if x & others:
        return False
    new = _next_combination(x, space, cells)
    if new == 0 or new & others:
        return False
    masks[last] = new
    masks[0] = all_cells(cells) & ~(others | new)
    return True


@njit(cache=True)
def least_images(entries, counts, tables, sym, out):
    """The least entry among the images under ``sym`` (cell permutations, the identity
    first) of the board at each of ``entries``, in a numbering that folds no symmetry
    (``tables`` over the identity alone): the entries of a class of symmetric boards."""
    masks = np.empty(MAX_KINDS, dtype=np.int64)
    moved = np.empty(MAX_KINDS, dtype=np.int64)
    for i in range(len(entries)):
        masks_at(entries[i], counts, tables, masks, tables.key[0])
        best = entries[i]
        for g in range(1, sym.shape[0]):
            for k in range(1, len(counts) + 1):
                moved[k] = image(masks[k], g, sym)
            best = min(best, entry_of_masks(moved, counts, tables, tables.key[0])[0])
        out[i] = best


@njit(cache=True)
def _key_masks(r, kc, tables_key, cells, binom):
    """The key's cells (first kind, second kind) of rank ``r`` among the combinations of
    the key counts ``kc``."""
    if tables_key[0] == 1:
        return colex_unrank(r, kc, binom), np.int64(0)
    k1, k2 = kc // tables_key[1], kc % tables_key[1]
    radix = binom[cells - k1, k2]
    first = colex_unrank(r // radix, k1, binom)
    return first, squeezed_unrank(r % radix, k2, first, cells, binom)


@njit(cache=True)
def _key_rank_of(first, second, kc, tables_key, cells, binom):
    if tables_key[0] == 1:
        return colex_rank(first, binom)
    k1, k2 = kc // tables_key[1], kc % tables_key[1]
    return colex_rank(first, binom) * binom[cells - k1, k2] + squeezed_rank(second, first, binom)


@njit(cache=True)
def _build(cells, tables_key, sym, binom, combo_off, combo_class, combo_sym, class_off, reps, stabs):
    """Fill the tables (see :class:`Tables`); ``reps``/``stabs`` have room for every
    combination; returns the number of classes."""
    classes = 0
    counts = len(combo_off) - 1
    for kc in range(counts):
        class_off[kc] = classes
        n = combo_off[kc + 1] - combo_off[kc]
        for r in range(n):
            first, second = _key_masks(r, kc, tables_key, cells, binom)
            best = r
            chosen = 0
            for g in range(1, sym.shape[0]):
                q = _key_rank_of(image(first, g, sym), image(second, g, sym), kc, tables_key, cells, binom)
                if q < best:
                    best = q
                    chosen = g
            combo_sym[combo_off[kc] + r] = chosen
            if best == r:  # a representative: numbered in increasing order
                combo_class[combo_off[kc] + r] = classes - class_off[kc]
                reps[classes, 0] = first
                reps[classes, 1] = second
                stab = 0
                for g in range(sym.shape[0]):
                    if image(first, g, sym) == first and image(second, g, sym) == second:
                        stab |= 1 << g
                stabs[classes] = stab
                classes += 1
        for r in range(n):
            g = combo_sym[combo_off[kc] + r]
            if g != 0:
                first, second = _key_masks(r, kc, tables_key, cells, binom)
                q = _key_rank_of(image(first, g, sym), image(second, g, sym), kc, tables_key, cells, binom)
                combo_class[combo_off[kc] + r] = combo_class[combo_off[kc] + q]
    class_off[counts] = classes
    return classes


def domains_array(cells: int, domains: dict | None = None) -> np.ndarray:
    """:attr:`Tables.domain` from ``{stored kind: its cells}`` (the other kinds: every cell)."""
    every = int(np.int64(-1) if cells == 64 else (1 << cells) - 1)
    out = np.full((2, MAX_KINDS), every, dtype=np.int64)
    out[1] = -1
    for kind, where in (domains or {}).items():
        mask = 0
        for c in set(int(c) for c in where):
            mask |= 1 << c
        out[0, kind] = np.array(mask, dtype=np.uint64).astype(np.int64)
        out[1, kind] = bin(mask).count("1")
    return out


def build_tables(sym: np.ndarray, kmax: int, key_kinds: tuple = (1,), kinds: int = MAX_KINDS - 1,
                 allowed=None, domains: dict | None = None) -> Tables:
    """The tables of a board of ``sym.shape[1]`` cells for key counts up to ``kmax``
    (each key kind's); ``key_kinds``: the stored kinds of the key (one or two), the
    other kinds of ``1..kinds`` follow in order; ``allowed(first, second)`` (the key
    kinds' cells of a representative, as ints): False for a class left out (the same
    for every image of it); ``domains``: ``{kind: cells}`` of the confined kinds."""
    sym = np.array(sym, dtype=np.int64, order="C")  # a writable copy: every group's tables of one type
    cells = sym.shape[1]
    if len(key_kinds) not in (1, 2) or (len(key_kinds) == 1 and tuple(key_kinds) != (1,)):
        raise ValueError(f"a key of kinds {key_kinds}: the numbering takes kind 1, or two kinds")
    order = np.array(list(key_kinds) + [k for k in range(1, kinds + 1) if k not in key_kinds], dtype=np.int64)
    key = np.array([len(key_kinds), kmax + 1], dtype=np.int64)
    binom = np.array([[comb(a, b) for b in range(cells + 1)] for a in range(cells + 1)], dtype=np.int64)
    if len(key_kinds) == 1:
        sizes = [comb(cells, k) for k in range(kmax + 1)]
    else:
        sizes = [comb(cells, k1) * comb(cells - k1, k2) for k1 in range(kmax + 1) for k2 in range(kmax + 1)]
    combo_off = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=combo_off[1:])
    total = int(combo_off[-1])
    combo_class = np.zeros(total, dtype=np.int32)
    combo_sym = np.zeros(total, dtype=np.int8)
    class_off = np.zeros(len(sizes) + 1, dtype=np.int64)
    reps = np.zeros((total, 2), dtype=np.int64)
    stabs = np.zeros(total, dtype=np.int64)
    classes = _build(cells, key, sym, binom, combo_off, combo_class, combo_sym, class_off, reps, stabs)
    reps, stabs = reps[:classes].copy(), stabs[:classes].copy()
    if allowed is not None:
        reps, stabs = _leave_out(allowed, combo_off, combo_class, class_off, reps, stabs)
    if len(key_kinds) == 1:  # each combination's own class
        block = class_off[np.repeat(np.arange(kmax + 1), sizes)] + combo_class
    else:
        block = _blocks(sym, kmax, binom, reps)
    return Tables(binom, combo_off, combo_class, combo_sym, class_off, reps, stabs, sym, order, key, block,
                  domains_array(cells, domains))


def _leave_out(allowed, combo_off, combo_class, class_off, reps, stabs):
    """Drop the classes ``allowed`` refuses: the others renumbered in their order, the
    combinations of the refused ones marked -1 (in place); returns the kept classes."""
    keep = np.array([bool(allowed(int(a), int(b))) for a, b in reps], dtype=bool)
    new_off = np.zeros_like(class_off)
    for kc in range(len(class_off) - 1):
        lo, hi = int(class_off[kc]), int(class_off[kc + 1])
        renumber = np.cumsum(keep[lo:hi]) - 1
        combos = combo_class[combo_off[kc]:combo_off[kc + 1]]
        kept = keep[lo + combos]
        combos[:] = np.where(kept, renumber[combos], -1)
        new_off[kc + 1] = new_off[kc] + int(keep[lo:hi].sum())
    class_off[:] = new_off
    return reps[keep].copy(), stabs[keep].copy()


def _blocks(sym, kmax, binom, reps) -> np.ndarray:
    """Per combination of the first key kind's cells (counts 0..kmax one after the
    other): the first class whose representative's first kind is the least of their
    images (0 if none is kept)."""
    cells = sym.shape[1]
    first_of: dict = {}
    for c in range(len(reps) - 1, -1, -1):
        first_of[int(reps[c, 0])] = c
    out = []
    for k in range(kmax + 1):
        for r in range(comb(cells, k)):
            mask = int(colex_unrank(r, k, binom))
            least = min((int(image(mask, g, sym)) for g in range(sym.shape[0])),
                        key=lambda m: int(colex_rank(m, binom)))
            out.append(first_of.get(least, 0))
    return np.array(out, dtype=np.int64)


def _cache_file(sym: np.ndarray, kmax: int, extra: str) -> Path:
    from platformdirs import user_cache_dir

    digest = hashlib.sha256(np.ascontiguousarray(sym, dtype=np.int64).tobytes()
                            + f"{kmax}:{VERSION}:{extra}".encode()).hexdigest()[:16]
    return Path(user_cache_dir("retro")) / "kit" / f"tables-{sym.shape[1]}-{kmax}-{digest}.npz"


def tables(sym: np.ndarray, kmax: int, key_kinds: tuple = (1,), kinds: int = MAX_KINDS - 1,
           allowed=None, allowed_name: str = "", domains: dict | None = None) -> Tables:
    """:func:`build_tables`, read from the disk cache when they are large (written
    there the first time, atomically; a cache that cannot be written is skipped).
    ``allowed_name`` names the filter in the cache's key; the domains are no part of
    the cached tables (they are set on them)."""
    cells = sym.shape[1]
    if comb(cells, kmax) * (comb(cells, kmax) if len(key_kinds) == 2 else 1) <= CACHE_ABOVE:
        return build_tables(sym, kmax, key_kinds, kinds, allowed, domains)
    path = _cache_file(sym, kmax, f"{key_kinds}:{kinds}:{allowed_name}")
    stored = [name for name in Tables._fields if name != "domain"]
    try:
        with np.load(path) as saved:
            return Tables(*(saved[name] for name in stored), domains_array(cells, domains))
    except (OSError, KeyError, ValueError):
        pass
    made = build_tables(sym, kmax, key_kinds, kinds, allowed, domains)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{id(made)}.tmp.npz")
        np.savez(partial, **{name: getattr(made, name) for name in stored})
        partial.replace(path)
    except OSError:
        pass
    return made
