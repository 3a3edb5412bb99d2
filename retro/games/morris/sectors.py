"""The one-colour index of nine men's morris: sectors, symmetry classes, canonical entries.

Every position is stored from the side to move's point of view: its pieces are the
*mover's*, the others the *other's* (a position with Black to move is stored as its
colour-swapped image). A *sector* ``(mover_hand, other_hand, mover_on, other_on)``
holds the positions with those counts; its entry of a position is::

    class of the other's pieces * C(24 - other_on, mover_on) + rank of the mover's pieces

* the other's pieces (the side *not* to move) are brought to the least image of their
  set under the board's 16 symmetries; the sector keeps one *class* per such least
  set (its *representative*), numbered in increasing order. Keying by the side not
  to move puts every position with a move to a given position (a slide of the other
  side's pieces, undone) into one class: the un-move generator canonicalises once;
* the mover's pieces, moved by the same symmetry, are ranked colexicographically
  among the sets of as many points that the representative leaves free.

When the representative is symmetric itself, the symmetries keeping it in place
(its *stabiliser*) move the mover's pieces to other entries of the same position:
the *canonical* entry is the least of them (the least bitboard: the rank order is
the bitboard order). The other entries are *duplicates*: the solver skips them and
copies their canonical entry's value (about 3 % of the moving phase's entries).

One table over all 2**24 sets of points packs, in one int32 a set, what indexing a
position needs of its key set: the class, the symmetry taking the set to its
representative, and which stabiliser the class has (a number among the 32 distinct
ones). Indexing a child is then one cache miss into it (this table does not fit in any
cache): the representative is the key set's image under that symmetry (``sym_bytes``
stays in cache), and the usual trivial stabiliser is read from the same word. The
tables take 70 MB and a second or two to build with numba, once per process.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ...bits import lowest_bit_index, popcount
from .boards import NINE, board

POINTS = 24
ALL = (1 << POINTS) - 1


# A set's word in ``set_index``: its class among the sets of its size (classes of one
# size: at most 170,854 < 2**18), the symmetry taking it to its representative, and
# the number of its class's stabiliser in ``stabilisers`` (0: the identity alone).
CLASS_BITS = 18
CLASS_MASK = (1 << CLASS_BITS) - 1
SYM_SHIFT = CLASS_BITS
STAB_SHIFT = SYM_SHIFT + 4  # 16 symmetries
STAB_LIMIT = 1 << (31 - STAB_SHIFT)  # stabiliser numbers that keep the word positive


class Tables(NamedTuple):
    """The index tables (see the module docstring), for jitted code."""

    set_index: np.ndarray  # int32 (2**24,): class | symmetry << SYM_SHIFT | stabiliser << STAB_SHIFT
    class_base: np.ndarray  # int64 (25 + 1,): first global class of each set size
    class_count: np.ndarray  # int64 (25,): classes of each set size
    representatives: np.ndarray  # int32 (classes,): each class's least set (decoding)
    # int64 (32,): the distinct stabilisers, bit g set when symmetry g keeps the set;
    # the first is the identity alone (1)
    stabilisers: np.ndarray
    binomial: np.ndarray  # int64 (25, 25)
    sym_bytes: np.ndarray  # int64 (16, 3, 256): images of each byte of a bitboard
    # uint8 (2**21,): bit s set when set s has a symmetry besides the identity (rare: a
    # 2 MB bitmap that stays in cache, where set_index takes 64 MB)
    symmetric: np.ndarray


@njit(cache=True, inline="always")
def image(bb, g, sym_bytes):
    """Bitboard ``bb`` (24 points) under symmetry ``g``."""
    return (sym_bytes[g, 0, bb & 0xFF] | sym_bytes[g, 1, (bb >> 8) & 0xFF]
            | sym_bytes[g, 2, (bb >> 16) & 0xFF])


@njit(cache=True, inline="always")
def point_image(p, g, sym_bytes):
    """The bitboard of point ``p``'s image under symmetry ``g`` (one look-up)."""
    return sym_bytes[g, p >> 3, 1 << (p & 7)]


@njit(cache=True, parallel=True)
def _least_images(sym_bytes, least, which):
    for s in prange(1 << POINTS):
        best = image(s, 0, sym_bytes)  # the identity (a copy: the loop index stays as it is)
        chosen = 0
        for g in range(1, sym_bytes.shape[0]):
            moved = image(s, g, sym_bytes)
            if moved < best:
                best = moved
                chosen = g
        least[s] = best
        which[s] = chosen


@njit(cache=True)
def _number_classes(least, class_count, sym_bytes):
    """Number each size's representatives in increasing order: the representatives,
    their stabiliser masks, and each representative's class (at the representative,
    in a table over all sets)."""
    count = 0
    for s in range(1 << POINTS):
        if least[s] == s:
            count += 1
    reps = np.empty(count, dtype=np.int64)
    sizes = np.empty(count, dtype=np.int64)
    at = 0
    for s in range(1 << POINTS):
        if least[s] == s:
            reps[at] = s
            sizes[at] = popcount(s)
            at += 1
    # Representatives grouped by size, each group in increasing order (a stable sort).
    order = np.argsort(sizes, kind="mergesort")
    reps = reps[order]
    number = np.zeros(1 << POINTS, dtype=np.int32)
    for i in range(count):
        k = popcount(reps[i])
        number[reps[i]] = class_count[k]
        class_count[k] += 1
    stabiliser = np.zeros(count, dtype=np.int64)
    for i in range(count):
        for g in range(sym_bytes.shape[0]):
            if image(reps[i], g, sym_bytes) == reps[i]:
                stabiliser[i] |= np.int64(1) << g
    return reps, stabiliser, number


@njit(cache=True)
def _pack(least, which, number, reps, stab_number, set_index, symmetric):
    """Each set's word: its representative's class and stabiliser number (added to
    ``number`` at the representatives first), and its symmetry; the sets with a
    symmetry besides the identity marked in ``symmetric``."""
    for i in range(len(reps)):
        number[reps[i]] |= np.int32(stab_number[i] << STAB_SHIFT)
    for s in range(1 << POINTS):
        word = number[least[s]]
        set_index[s] = word | (np.int32(which[s]) << SYM_SHIFT)
        if word >> STAB_SHIFT:
            symmetric[s >> 3] |= np.uint8(1 << (s & 7))


@njit(cache=True, inline="always")
def is_symmetric(bb, symmetric):
    """Whether set ``bb`` has a symmetry besides the identity."""
    return (symmetric[bb >> 3] >> (bb & 7)) & 1


@lru_cache(maxsize=None)
def tables() -> Tables:
    """The index tables (built once per process)."""
    b = board(NINE)
    sym_bytes = np.ascontiguousarray(b.symmetry_bytes, dtype=np.int64)
    least = np.empty(1 << POINTS, dtype=np.int32)
    which = np.empty(1 << POINTS, dtype=np.int8)
    _least_images(sym_bytes, least, which)
    class_count = np.zeros(POINTS + 1, dtype=np.int64)
    reps, stabiliser, number = _number_classes(least, class_count, sym_bytes)
    assert class_count.max() <= CLASS_MASK + 1
    class_base = np.zeros(POINTS + 2, dtype=np.int64)
    np.cumsum(class_count, out=class_base[1:])
    binomial = np.array([[comb(n, k) for k in range(POINTS + 1)] for n in range(POINTS + 1)],
                        dtype=np.int64)
    # Every mask holds the identity (bit 0): the identity alone, 1, is the least, number 0.
    stabilisers, stab_number = np.unique(stabiliser, return_inverse=True)
    assert stabilisers[0] == 1 and len(stabilisers) <= STAB_LIMIT
    set_index = np.empty(1 << POINTS, dtype=np.int32)
    symmetric = np.zeros(1 << (POINTS - 3), dtype=np.uint8)
    _pack(least, which, number, reps, stab_number.astype(np.int64), set_index, symmetric)
    del least, which, number
    result = Tables(set_index, class_base, class_count, reps.astype(np.int32), stabilisers,
                    binomial, sym_bytes, symmetric)
    for table in result:
        table.setflags(write=False)
    return result


@njit(cache=True, inline="always")
def squeezed_rank(mover, rep, binomial):
    """Colex rank of ``mover`` among the sets of as many points that ``rep`` leaves free."""
    rank = 0
    j = 0
    rest = mover
    while rest:
        p = lowest_bit_index(rest)
        rest &= rest - 1
        j += 1
        free_below = p - popcount(rep & ((np.int64(1) << p) - 1))
        rank += binomial[free_below, j]
    return rank


@njit(cache=True, inline="always")
def spread(rank, count, rep, binomial):
    """The set of ``count`` points among those ``rep`` leaves free with colex ``rank``."""
    # The free indices, the largest first: each the largest c with C(c, j) <= rank,
    # searched down from the one before (they decrease).
    mask = np.int64(0)
    c = POINTS - popcount(rep)
    for j in range(count, 0, -1):
        c -= 1
        while binomial[c, j] > rank:
            c -= 1
        rank -= binomial[c, j]
        mask |= np.int64(1) << c
    # Free index -> point: a gap opened at each point of rep, the lowest first.
    rest = rep
    while rest:
        low = (np.int64(1) << lowest_bit_index(rest)) - 1
        rest &= rest - 1
        mask = (mask & low) | ((mask & ~low) << 1)
    return mask


@njit(cache=True, inline="always")
def next_within(mover, free):
    """The set after ``mover`` in the order of ranks among the sets of as many points of
    ``free`` (the numeric order: squeezing keeps it), or -1 after the last."""
    if mover == 0:  # the empty set is the only one of its size
        return np.int64(-1)
    low = mover & -mover
    carried = (mover | (ALL & ~free)) + low  # the carry skips the points that are not free
    if carried > ALL:
        return np.int64(-1)
    high = carried & free
    refill = popcount(mover) - popcount(high)  # the lowest free points take the rest
    rest = free
    for _ in range(refill):
        high |= rest & -rest
        rest &= rest - 1
    return high


@njit(cache=True, inline="always")
def least_over(moved, stab, sym_bytes):
    """The least image of ``moved`` under the symmetries of ``stab`` (a mask holding the
    identity, bit 0)."""
    best = moved
    rest = stab & (stab - 1)
    while rest:
        h = lowest_bit_index(rest)
        rest &= rest - 1
        candidate = image(moved, h, sym_bytes)
        if candidate < best:
            best = candidate
    return best


@njit(cache=True, inline="always")
def stabiliser_order(moved, stab, sym_bytes):
    """How many symmetries of ``stab`` (a mask holding the identity) map the position
    with key set fixed by them and mover ``moved`` onto itself."""
    order = 1
    if stab != 1:
        for h in range(1, sym_bytes.shape[0]):
            if (stab >> h) & 1 and image(moved, h, sym_bytes) == moved:
                order += 1
    return order


@njit(cache=True, inline="always")
def canonical(mover, other, set_index, stabilisers, sym_bytes):
    """``(class, representative, mover)`` of the canonical image of a position, and the
    order of its stabiliser (the symmetries mapping the position onto itself)."""
    word = set_index[other]  # the one load that misses the cache
    klass = word & CLASS_MASK
    g = (word >> SYM_SHIFT) & 15
    rep = image(other, g, sym_bytes)
    moved = image(mover, g, sym_bytes)
    number = word >> STAB_SHIFT
    if number == 0:  # the identity alone: the usual case
        return klass, rep, moved, 1
    stab = stabilisers[number]
    return klass, rep, least_over(moved, stab, sym_bytes), stabiliser_order(moved, stab, sym_bytes)


@njit(cache=True, inline="always")
def sector_entry(mover, other, set_index, stabilisers, sym_bytes, binomial):
    """``(entry in its sector, order of its stabiliser)`` of a position."""
    klass, rep, best, order = canonical(mover, other, set_index, stabilisers, sym_bytes)
    m = popcount(mover)
    k = popcount(other)
    return klass * binomial[POINTS - k, m] + squeezed_rank(best, rep, binomial), order


@njit(cache=True, inline="always")
def class_stabiliser(rep, set_index, stabilisers):
    """The stabiliser mask of the class of representative ``rep``."""
    return stabilisers[set_index[rep] >> STAB_SHIFT]


def sector_size(tables: Tables, mover_on: int, other_on: int) -> int:
    """Entries of a sector with these numbers of pieces on the board."""
    return int(tables.class_count[other_on]) * comb(POINTS - other_on, mover_on)
