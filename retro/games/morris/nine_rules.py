"""Nine men's morris on the one-colour index (jitted): moves, un-moves, tier kernels.

A position is ``(mover, other, mover_hand, other_hand)``: the side to move's pieces and
the other side's (bitboards of the 24 points), and their pieces in hand. The rules:

* a player with fewer than 3 pieces (board and hand together) when it is to move has
  lost, and so has a player to move without a legal move;
* a player with pieces in hand places one on an empty point; a player without
  slides a piece to an adjacent empty point, or, with exactly 3 pieces on the board
  (and none in hand), flies it to any empty point (whatever the opponent holds in
  hand: the player without pieces in hand moves while the other still places, as in
  Gévay and Danner's extended solution);
* a move whose destination completes a mill of the mover's removes one opponent
  piece, one not in a mill unless all are (one for two mills at once), each choice of
  removal its own move. When the opponent has no piece on the board such a move has
  nothing to remove and is not a legal move (Malom's move generator, which the
  published solutions use, has no such move).

Values are stored from the side to move's point of view: ``2 * plies + 1`` when the
side to move wins, ``2 * plies`` when it loses (the encoding of :mod:`retro.values`
with the side to move as the first side).

Tiers (:mod:`retro.games.morris.nine`): a moving-phase tier is the pair of sectors
``(0, 0, a, b)`` and ``(0, 0, b, a)`` (slides go back and forth between them); every
other sector is a tier of its own. ``tier_number[mh, oh, m, o]`` is a sector's tier
(-1 when the game has no such sector) and ``sector_offset[...]`` where the sector's
entries start in its tier. A child whose mover has fewer than 3 pieces is not
stored: it is the terminal child (value 0, lost for its mover).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...bits import lowest_bit_index, popcount, prefetch
from .rules import closes_mill, removals
from .sectors import (ALL, CLASS_MASK, POINTS, STAB_SHIFT, SYM_SHIFT, class_stabiliser, image,
                      is_symmetric, least_over, next_within, point_image, sector_entry,
                      spread, squeezed_rank, stabiliser_order)

OPEN = -1
DUPLICATE = -3  # an entry whose position has a smaller entry (its canonical one)
TERMINAL = -1  # the child tier of a child lost at once (its mover has fewer than 3 pieces)

# What a move visit does with each move.
COUNT, LIST, EXPAND, SCAN = 0, 1, 2, 3


@njit(cache=True, inline="always")
def _targets(mover, empty, source, hand, neighbours):
    """The points a piece at ``source`` may go to (every empty point when flying)."""
    if popcount(mover) == 3 and hand == 0:
        return empty
    return neighbours[source] & empty


@njit(cache=True, inline="always")
def _prefetch_keys(mover, empty, mover_hand, neighbours, set_index):
    """Ask for the ``set_index`` word of every move's key set (the mover's pieces after
    it) before the moves are indexed: each is a cache miss (the table takes 64 MB), and
    asked for together they overlap instead of coming one after the other."""
    if mover_hand > 0:
        targets = empty
        while targets:
            t = lowest_bit_index(targets)
            targets &= targets - 1
            prefetch(set_index, mover | (np.int64(1) << t))
        return
    sources = mover
    while sources:
        s = lowest_bit_index(sources)
        sources &= sources - 1
        targets = _targets(mover, empty, s, mover_hand, neighbours)
        rest = mover ^ (np.int64(1) << s)
        while targets:
            t = lowest_bit_index(targets)
            targets &= targets - 1
            prefetch(set_index, rest | (np.int64(1) << t))


@njit(cache=True, inline="always")
def _prefetch_mill_keys(mover, empty, closers, neighbours, lines, lines_through, set_index):
    """Ask for the ``set_index`` word of the key set of every slide or flight that closes
    a mill (only those are indexed when the quiet moves stay in the tier)."""
    sources = mover
    while sources:
        s = lowest_bit_index(sources)
        sources &= sources - 1
        targets = _targets(mover, empty, s, 0, neighbours) & closers
        rest = mover ^ (np.int64(1) << s)
        while targets:
            t = lowest_bit_index(targets)
            targets &= targets - 1
            after = rest | (np.int64(1) << t)
            if closes_mill(after, t, lines, lines_through):
                prefetch(set_index, after)


@njit(cache=True, inline="always")
def _child(after, left, mover_hand, other_hand, tier_number, sector_offset, set_index,
           stabilisers, sym_bytes, binomial):
    """``(tier, entry in the tier, stabiliser order)`` of the position after a move
    (``after``: the mover's pieces, ``left``: the other's, hands after the move); tier
    TERMINAL when the new side to move (the other) has fewer than 3 pieces."""
    m = popcount(left)
    o = popcount(after)
    if m + other_hand < 3:
        return TERMINAL, 0, 1
    tier = tier_number[other_hand, mover_hand, m, o]
    entry, order = sector_entry(left, after, set_index, stabilisers, sym_bytes, binomial)
    return tier, sector_offset[other_hand, mover_hand, m, o] + entry, order


@njit(cache=True, inline="always")
def _mill_children(after, other, taken, mover_hand, other_hand, mode, home, tier_number,
                   sector_offset, slot_of_tier, set_index, stabilisers, sym_bytes, binomial,
                   child_slot, child_entry, at, count, limit):
    """The children of a move that closes a mill (the mover's pieces ``after``), one per
    removal in ``taken``, written or weighed as visit does: ``(count, weight)`` after
    them. Every child is keyed by ``after``, so its canonical form is found once and each
    removal only takes a point out of the other side's image."""
    weight = 0
    m = popcount(other) - 1
    o = popcount(after)
    if m + other_hand < 3:  # every removal leaves the other side lost
        while taken:
            taken &= taken - 1
            if count < limit:
                child_slot[at + count] = -1
                child_entry[at + count] = 0
            count += 1
        return count, weight
    tier = tier_number[other_hand, mover_hand, m, o]
    word = set_index[after]
    g = (word >> SYM_SHIFT) & 15
    rep = image(after, g, sym_bytes)
    moved_all = image(other, g, sym_bytes)
    base = sector_offset[other_hand, mover_hand, m, o] + (word & CLASS_MASK) * binomial[POINTS - o, m]
    number = word >> STAB_SHIFT
    slot = slot_of_tier[tier]
    while taken:
        r = taken & -taken
        taken ^= r
        moved = moved_all ^ image(r, g, sym_bytes)
        order = 1
        if number != 0:
            stab = stabilisers[number]
            order = stabiliser_order(moved, stab, sym_bytes)
            moved = least_over(moved, stab, sym_bytes)
        if mode == SCAN and tier == home:
            weight += order
            continue
        if count < limit:
            child_slot[at + count] = slot
            child_entry[at + count] = base + squeezed_rank(moved, rep, binomial)
        count += 1
    return count, weight


@njit(cache=True)
def visit(mover, other, mover_hand, other_hand, neighbours, lines, lines_through, mode, home,
          tier_number, sector_offset, slot_of_tier, set_index, stabilisers, sym_bytes, binomial,
          child_slot, child_entry, moves, at, limit, symmetric):
    """Every legal move of a position, as ``mode`` says:

    * COUNT: only count them;
    * LIST: write each as (source point or -1, target, removed point or -1) in ``moves``;
    * EXPAND: write each child as (slot of its tier, entry) at ``at`` (slot -1: lost at once);
    * SCAN: children in tier ``home`` are not written but weighed (the order of their
      stabiliser, summed into the return value's high part); the others written as in
      EXPAND. A child whose key set (its side not to move's pieces) or whose side to
      move's pieces have no symmetry but the identity weighs 1 without being indexed
      (``symmetric``: the bitmap of sets that have one): most moves stay in their tier,
      and indexing is most of a move's cost.

    At most ``limit`` moves are written (all are counted). Returns the moves written (or
    counted) plus, in SCAN mode, 2**32 times the weight of
    the moves into ``home``."""
    empty = ALL & ~(mover | other)
    count = 0
    weight = 0
    s = -1
    takeable = np.int64(-1)  # what a mill may take: found at the first mill
    # A quiet move's child keeps ``other`` (as its side to move): its stabiliser lies in
    # ``other``'s, so when that is the identity alone (most positions) every such child
    # weighs 1, with no look-up per move; then only the moves to ``closers`` (the empty
    # points of lines holding two of the mover's pieces) can close a mill, and the
    # others are weighed a source at a time, not a move at a time.
    plain = mode == SCAN and not is_symmetric(other, symmetric)
    closers = np.int64(0)
    if plain:
        for line in lines:
            if popcount(mover & line) == 2:
                closers |= line & empty
    placing = mover_hand > 0
    sources = np.int64(0) if placing else mover  # placements: one pass with source 0
    new_hand = mover_hand - 1 if placing else mover_hand
    # Whether a move that removes nothing stays in ``home`` (the same for all moves):
    # then it only weighs, and most weigh 1.
    quiet_home = False
    if mode == SCAN:
        m = popcount(other)
        o = popcount(mover) + (1 if placing else 0)
        quiet_home = m + other_hand >= 3 and tier_number[other_hand, new_hand, m, o] == home
    if mode == EXPAND or (mode == SCAN and not quiet_home):  # (most moves are indexed)
        _prefetch_keys(mover, empty, mover_hand, neighbours, set_index)
    elif plain and quiet_home and closers and not placing:
        _prefetch_mill_keys(mover, empty, closers, neighbours, lines, lines_through, set_index)
    while True:
        if placing:
            source_bit = np.int64(0)
            targets = empty
        else:
            if not sources:
                break
            s = lowest_bit_index(sources)
            sources &= sources - 1
            source_bit = np.int64(1) << s
            targets = _targets(mover, empty, s, mover_hand, neighbours)
        if quiet_home and plain:
            quiet = targets & ~closers
            weight += popcount(quiet)
            targets ^= quiet
        while targets:
            t = lowest_bit_index(targets)
            targets &= targets - 1
            after = (mover ^ source_bit) | (np.int64(1) << t)
            if closes_mill(after, t, lines, lines_through):
                if takeable == -1:
                    takeable = removals(other, lines)
                taken = takeable  # nothing to take: no move
                if mode == EXPAND or mode == SCAN:
                    count, more = _mill_children(after, other, taken, new_hand, other_hand, mode,
                                                 home, tier_number, sector_offset, slot_of_tier,
                                                 set_index, stabilisers, sym_bytes, binomial,
                                                 child_slot, child_entry, at, count, limit)
                    weight += more
                    continue
            else:
                if quiet_home and (plain or not is_symmetric(after, symmetric)):
                    weight += 1
                    continue
                taken = np.int64(-1)  # no removal
            while taken:
                if taken == -1:
                    r = np.int64(0)
                    taken = 0
                else:
                    r = taken & -taken
                    taken ^= r
                if mode == COUNT:
                    count += 1
                    continue
                if mode == LIST:
                    if count >= limit:
                        count += 1
                        continue
                    moves[at + count, 0] = s if not placing else -1
                    moves[at + count, 1] = t
                    moves[at + count, 2] = lowest_bit_index(r) if r else -1
                    count += 1
                    continue
                tier, entry, order = _child(after, other ^ r, new_hand, other_hand, tier_number,
                                            sector_offset, set_index, stabilisers, sym_bytes,
                                            binomial)
                if mode == SCAN and tier == home:
                    weight += order
                    continue
                if count < limit:
                    child_slot[at + count] = -1 if tier == TERMINAL else slot_of_tier[tier]
                    child_entry[at + count] = entry
                count += 1
        if placing:
            break
    return count + (weight << 32)


# The scan's copy of visit, inlined: a call per entry passed a dozen arrays, whose reference
# counts the two threads fought over (7-4's scan 13.8 -> 8.6 s). Only there: inlined into
# every caller, it made the first compilation a minute longer.
_visit_inline = njit(cache=True, inline="always")(visit.py_func)


@njit(cache=True)
def count_moves(mover, other, mover_hand, other_hand, neighbours, lines, lines_through):
    """How many legal moves the side to move has."""
    dummy = np.empty(0, dtype=np.int64)
    none = np.empty((1, 1, 1, 1), dtype=np.int64)
    return visit(mover, other, mover_hand, other_hand, neighbours, lines, lines_through, COUNT,
                 -1, none, none, dummy, np.empty(0, dtype=np.int32), dummy,
                 np.empty((1, 3, 256), dtype=np.int64), np.empty((1, 1), dtype=np.int64), dummy,
                 dummy, np.empty((1, 3), dtype=np.int64), 0, 0, np.empty(0, dtype=np.uint8))


@njit(cache=True)
def finished(mover, other, mover_hand, other_hand, neighbours, lines, lines_through):
    """0 when the side to move has lost (fewer than 3 pieces, or no legal move), else OPEN."""
    if popcount(mover) + mover_hand < 3:
        return 0
    if count_moves(mover, other, mover_hand, other_hand, neighbours, lines, lines_through) == 0:
        return 0
    return OPEN


@njit(cache=True)
def legal_moves(mover, other, mover_hand, other_hand, neighbours, lines, lines_through, moves):
    """The legal moves as rows (source or -1, target, removed or -1); how many."""
    dummy = np.empty(0, dtype=np.int64)
    none = np.empty((1, 1, 1, 1), dtype=np.int64)
    return visit(mover, other, mover_hand, other_hand, neighbours, lines, lines_through, LIST, -1,
                 none, none, dummy, np.empty(0, dtype=np.int32), dummy,
                 np.empty((1, 3, 256), dtype=np.int64), np.empty((1, 1), dtype=np.int64), dummy,
                 dummy, moves, 0, len(moves), np.empty(0, dtype=np.uint8))


# --- entries of a tier -----------------------------------------------------------------


@njit(cache=True, inline="always")
def sector_row(entry, sectors):
    """The row of ``sectors`` (offsets in column 4, increasing) holding ``entry``."""
    i = sectors.shape[0] - 1
    while sectors[i, 4] > entry:
        i -= 1
    return i


@njit(cache=True, inline="always")
def decode(entry, sectors, set_index, class_base, representatives, stabilisers, sym_bytes,
           binomial):
    """``(mover, other, mover_hand, other_hand, canonical)`` at ``entry`` of a tier whose
    sectors are the rows ``(mh, oh, m, o, offset)`` of ``sectors``."""
    i = sector_row(entry, sectors)
    mh, oh, m, o = sectors[i, 0], sectors[i, 1], sectors[i, 2], sectors[i, 3]
    local = entry - sectors[i, 4]
    per_class = binomial[POINTS - o, m]
    klass = local // per_class
    rank = local - klass * per_class
    rep = np.int64(representatives[class_base[o] + klass])
    mover = spread(rank, m, rep, binomial)
    # Entries in order share their class: this load seldom misses.
    stab = class_stabiliser(rep, set_index, stabilisers)
    return mover, rep, mh, oh, is_least(mover, stab, sym_bytes)


@njit(cache=True, inline="always")
def is_least(mover, stab, sym_bytes):
    """Whether no symmetry of ``stab`` (the stabiliser of the key set) takes ``mover`` to
    a smaller set: whether the entry is the canonical one of its position."""
    return least_over(mover, stab, sym_bytes) == mover


@njit(cache=True, parallel=True)
def expand_counts(first, stop, sectors, neighbours, lines, lines_through, tier_number,
                  sector_offset, slot_of_tier, set_index, class_base, representatives,
                  stabilisers, sym_bytes, binomial, finished_out, counts_out):
    """Pass 1 of the explicit expansion of entries ``first..stop-1``: each entry's
    finished value (0 lost, OPEN, DUPLICATE) and move count."""
    # What visit does not use in this mode, allocated once: count_moves allocates its
    # dummies at every call, and an allocation in the loop is made for every entry.
    no_moves = np.empty((1, 3), dtype=np.int64)
    no_children = np.empty(0, dtype=np.int64)
    no_symmetric = np.empty(0, dtype=np.uint8)
    for i in prange(stop - first):
        mover, other, mh, oh, is_canonical = decode(first + i, sectors, set_index, class_base,
                                                    representatives, stabilisers, sym_bytes,
                                                    binomial)
        counts_out[i] = 0
        if not is_canonical:
            finished_out[i] = DUPLICATE
            continue
        n = 0
        if popcount(mover) + mh >= 3:
            n = visit(mover, other, mh, oh, neighbours, lines, lines_through, COUNT, -1,
                      tier_number, sector_offset, slot_of_tier, set_index, stabilisers,
                      sym_bytes, binomial, no_children, no_children, no_moves, 0, 0,
                      no_symmetric)
        finished_out[i] = OPEN if n else 0
        counts_out[i] = n


@njit(cache=True, parallel=True)
def expand_children(first, stop, sectors, neighbours, lines, lines_through, tier_number,
                    sector_offset, slot_of_tier, set_index, class_base, representatives,
                    stabilisers, sym_bytes, binomial, finished_in, starts, child_slot,
                    child_entry):
    """Pass 2: every move of every open entry, as (slot, entry) from ``starts[i]``."""
    # What visit does not use in this mode, allocated once: an allocation in the loop
    # is made for every entry (numba's parfor does not always hoist it).
    no_moves = np.empty((1, 3), dtype=np.int64)
    no_symmetric = np.empty(0, dtype=np.uint8)
    for i in prange(stop - first):
        if finished_in[i] != OPEN:
            continue
        mover, other, mh, oh, _ = decode(first + i, sectors, set_index, class_base,
                                         representatives, stabilisers, sym_bytes, binomial)
        visit(mover, other, mh, oh, neighbours, lines, lines_through, EXPAND, -1, tier_number,
              sector_offset, slot_of_tier, set_index, stabilisers, sym_bytes, binomial,
              child_slot, child_entry, no_moves, starts[i], starts[i + 1] - starts[i],
              no_symmetric)


SPAN = 1 << 12  # the scan's entries in runs: the first of each decoded, the others stepped to


@njit(cache=True, parallel=True)
def scan(first, stop, home, sectors, neighbours, lines, lines_through, tier_number, sector_offset,
         slot_of_tier, set_index, class_base, representatives, stabilisers, sym_bytes, binomial,
         width, finished_out, counter_out, counts_out, children, child_value, symmetric):
    """Pass A of the un-move solver over entries ``first..stop-1``: each entry's
    finished value (0, OPEN, DUPLICATE), its counter of moves into its own tier (each
    move weighed by its child's stabiliser order, divided by the entry's own: the
    un-moves of its children reach it exactly that often), and the values of the
    children of its moves out of the tier (``children``: the child tiers' values by
    slot from 1; 0 for a child lost at once) at ``i * width`` (``counts_out[i]`` of
    them). Returns -1, or an entry whose weights do not divide (a bug of the index)."""
    bad = -1
    no_moves = np.empty((1, 3), dtype=np.int64)  # unused in SCAN mode: allocated once (above)
    spans = (stop - first + SPAN - 1) // SPAN
    for span in prange(spans):
        bad_here = _scan_span(first, first + span * SPAN, min(first + (span + 1) * SPAN, stop),
                              home, sectors, neighbours, lines, lines_through, tier_number,
                              sector_offset, slot_of_tier, set_index, class_base,
                              representatives, stabilisers, sym_bytes, binomial, width,
                              finished_out, counter_out, counts_out, children, child_value,
                              symmetric, no_moves)
        if bad_here >= 0:
            bad = bad_here
    return bad


@njit(cache=True)
def _scan_span(first, lo, hi, home, sectors, neighbours, lines, lines_through, tier_number,
               sector_offset, slot_of_tier, set_index, class_base, representatives, stabilisers,
               sym_bytes, binomial, width, finished_out, counter_out, counts_out, children,
               child_value, symmetric, no_moves):
    """The scan of entries ``lo..hi-1`` (see scan). Entries of one class follow each other
    in the order of their mover's sets: the next one is a step (next_within) where
    decoding one from its number takes a search over binomials for each piece. An
    entry's children are found into a small buffer (their (slot, entry) pairs never
    travel to memory and back) and asked for; their values are read while the next
    entry is scanned: each is a cache miss, which then has the time to arrive."""
    bad = -1
    # Two buffers: the entry being scanned's children, and the one before's.
    child_slot = np.empty(2 * width, dtype=np.int64)
    child_entry = np.empty(2 * width, dtype=np.int64)
    waiting = -1  # the entry whose children's values are still to read (its i)
    waiting_count = 0
    waiting_at = 0  # and where in the buffers they are
    at = 0
    mover = np.int64(-1)
    other = np.int64(0)
    free = np.int64(0)
    stab = np.int64(1)
    mh = oh = np.int64(0)
    for entry in range(lo, hi):
        i = entry - first
        if mover < 0:
            mover, other, mh, oh, is_canonical = decode(entry, sectors, set_index, class_base,
                                                        representatives, stabilisers, sym_bytes,
                                                        binomial)
            free = ALL & ~other
            stab = class_stabiliser(other, set_index, stabilisers)
        else:
            is_canonical = stab == 1 or is_least(mover, stab, sym_bytes)
        current = mover
        mover = next_within(current, free)  # -1: the next entry starts a class
        counts_out[i] = 0
        counter_out[i] = 0
        if not is_canonical:
            finished_out[i] = DUPLICATE
            continue
        if popcount(current) + mh < 3:
            finished_out[i] = 0
            continue
        at = width - at  # the buffer the waiting entry does not use
        both = _visit_inline(current, other, mh, oh, neighbours, lines, lines_through, SCAN, home,
                     tier_number, sector_offset, slot_of_tier, set_index, stabilisers, sym_bytes,
                     binomial, child_slot, child_entry, no_moves, at, width, symmetric)
        counts_out[i] = both & 0xFFFFFFFF
        n = min(counts_out[i], width)
        for k in range(at, at + n):
            if child_slot[k] > 0:
                prefetch(children[child_slot[k] - 1], child_entry[k])
        if waiting >= 0:
            _read_values(waiting, waiting_count, waiting_at, width, child_slot, child_entry,
                         children, child_value)
        waiting = i
        waiting_count = n
        waiting_at = at
        weight = both >> 32
        finished_out[i] = OPEN if both else 0  # no legal move: lost
        # Its own stabiliser's order: ``other`` is its class's representative (symmetry
        # 0) and ``current`` canonical, so canonical() would only add work.
        order = stabiliser_order(current, stab, sym_bytes)
        if weight % order:
            bad = entry
        counter_out[i] = weight // order
    if waiting >= 0:
        _read_values(waiting, waiting_count, waiting_at, width, child_slot, child_entry, children,
                     child_value)
    return bad


@njit(cache=True, inline="always")
def _read_values(i, count, at, width, child_slot, child_entry, children, child_value):
    """The values of entry i's children (from ``at`` in the buffers) into ``child_value``."""
    for k in range(count):
        slot = child_slot[at + k]
        child_value[i * width + k] = 0 if slot < 0 else children[slot - 1][child_entry[at + k]]


@njit(cache=True, inline="always")
def _decoded_ahead(entries, lo, hi, sectors, set_index, class_base, representatives, stabilisers,
                   sym_bytes, binomial, movers, others):
    """Decode ``entries[lo:hi]`` into ``movers`` and ``others`` and ask for each mover's
    ``set_index`` word: a cache miss each, which then overlap instead of following one
    another."""
    for i in range(lo, hi):
        mover, other, mh, oh, _ = decode(entries[i], sectors, set_index, class_base,
                                         representatives, stabilisers, sym_bytes, binomial)
        movers[i - lo] = mover
        others[i - lo] = other
        prefetch(set_index, mover)


AHEAD = 16  # entries decoded (and their words asked for) before they are worked on
PART = 1 << 10  # entries a thread takes at a time


@njit(cache=True, parallel=True)
def parents(entries, sectors, neighbours, lines, lines_through, tier_number, sector_offset,
            set_index, class_base, representatives, stabilisers, sym_bytes, binomial, width, out,
            counts):
    """The un-moves of moving-phase entries (positions with both hands empty): for each,
    the entries of the positions with a slide or a flight to it that closes no mill
    (so of the same tier), at ``out[i * width:]``, ``counts[i]`` of them. A parent with
    several moves to symmetric images of the position appears once per move."""
    for part in prange((len(entries) + PART - 1) // PART):
        movers = np.empty(AHEAD, dtype=np.int64)
        others = np.empty(AHEAD, dtype=np.int64)
        sums = np.empty((3, POINTS + 2), dtype=np.int64)
        for lo in range(part * PART, min((part + 1) * PART, len(entries)), AHEAD):
            hi = min(lo + AHEAD, len(entries), (part + 1) * PART)
            _decoded_ahead(entries, lo, hi, sectors, set_index, class_base, representatives,
                           stabilisers, sym_bytes, binomial, movers, others)
            for i in range(lo, hi):
                counts[i] = _parents_of(movers[i - lo], others[i - lo], neighbours, lines,
                                        lines_through, sector_offset, set_index, stabilisers,
                                        sym_bytes, binomial, out, i * width, sums)


@njit(cache=True, inline="always")
def _parents_of(mover, other, neighbours, lines, lines_through, sector_offset, set_index,
                stabilisers, sym_bytes, binomial, out, at, sums):
    """The parents of one position (see parents), written from ``out[at]``; how many.
    ``sums``: room for three rows of 25 (the rank sums below)."""
    # The parent: the other side (to move there) moved a piece from s to t.
    m = popcount(other)
    o = popcount(mover)
    word = set_index[mover]
    g = (word >> SYM_SHIFT) & 15
    rep = image(mover, g, sym_bytes)
    number = word >> STAB_SHIFT
    stab = stabilisers[number]
    block = _parent_block(m, o, word, sector_offset, binomial)
    moved = image(other, g, sym_bytes)  # the parent's mover, moved as its key set is
    if number == 0:
        # A parent's mover is ``moved`` with one point y out and one x in; its colex rank
        # (sum over its points, the j-th lowest at free index f, of C(f, j)) follows from
        # running sums over ``moved``'s points of C(f, j), C(f, j + 1) and C(f, j - 1):
        # the points between x and y move up or down one place, the others keep theirs.
        _rank_sums(moved, rep, binomial, sums)
    empty = ALL & ~(mover | other)
    flying = m == 3
    n = 0
    rest = other
    while rest:
        t = lowest_bit_index(rest)
        rest &= rest - 1
        if closes_mill(other, t, lines, lines_through):
            continue  # the move to t closed a mill: it removed a piece, from another tier
        y = point_image(t, g, sym_bytes)
        without = moved ^ y
        a = popcount(moved & (y - 1)) + 1  # y's place among moved's points
        sources = empty if flying else neighbours[t] & empty
        while sources:
            s = lowest_bit_index(sources)
            sources &= sources - 1
            x = point_image(s, g, sym_bytes)
            if number != 0:
                rank = squeezed_rank(least_over(without | x, stab, sym_bytes), rep, binomial)
            else:
                k = popcount(moved & (x - 1))  # moved's points below x
                fx = lowest_bit_index(x) - popcount(rep & (x - 1))
                if x < y:
                    rank = (sums[0, k] + binomial[fx, k + 1] + sums[1, a - 1] - sums[1, k]
                            + sums[0, m] - sums[0, a])
                else:
                    rank = (sums[0, a - 1] + sums[2, k] - sums[2, a] + binomial[fx, k]
                            + sums[0, m] - sums[0, k])
            out[at + n] = block + rank
            n += 1
    return n


@njit(cache=True, inline="always")
def _rank_sums(moved, rep, binomial, sums):
    """``sums[d, j]``: the sum over the j lowest points of ``moved`` (the i-th at free
    index f among the points ``rep`` leaves free) of C(f, i), C(f, i + 1), C(f, i - 1)
    for d = 0, 1, 2."""
    sums[0, 0] = sums[1, 0] = sums[2, 0] = 0
    j = 0
    rest = moved
    while rest:
        low = rest & -rest
        rest ^= low
        f = lowest_bit_index(low) - popcount(rep & (low - 1))
        j += 1
        sums[0, j] = sums[0, j - 1] + binomial[f, j]
        sums[1, j] = sums[1, j - 1] + binomial[f, j + 1]
        sums[2, j] = sums[2, j - 1] + binomial[f, j - 1]


@njit(cache=True, inline="always")
def _parent_block(m, o, word, sector_offset, binomial):
    """The first entry of the run holding the parents of a moving-phase position with
    ``m`` pieces of the side not to move and ``o`` of the side to move, whose pieces' set
    has ``word`` in ``set_index``: the parents' sector, that set's class."""
    return sector_offset[0, 0, m, o] + (word & CLASS_MASK) * binomial[POINTS - o, m]


@njit(cache=True, parallel=True)
def parent_blocks(entries, sectors, sector_offset, set_index, class_base, representatives,
                  stabilisers, sym_bytes, binomial, out):
    """For each moving-phase entry, the first entry of the block that holds all its
    parents: they are keyed by its mover's pieces (the side that moved last), so they
    share that set's class, a run of ``C(24 - o, m)`` entries of the parents' sector."""
    for part in prange((len(entries) + PART - 1) // PART):
        movers = np.empty(AHEAD, dtype=np.int64)
        others = np.empty(AHEAD, dtype=np.int64)
        for lo in range(part * PART, min((part + 1) * PART, len(entries)), AHEAD):
            hi = min(lo + AHEAD, len(entries), (part + 1) * PART)
            _decoded_ahead(entries, lo, hi, sectors, set_index, class_base, representatives,
                           stabilisers, sym_bytes, binomial, movers, others)
            for i in range(lo, hi):
                mover = movers[i - lo]
                m = popcount(others[i - lo])
                o = popcount(mover)
                out[i] = _parent_block(m, o, set_index[mover], sector_offset, binomial)


@njit(cache=True, parallel=True)
def canonical_entries(entries, sectors, set_index, class_base, representatives, stabilisers,
                      sym_bytes, binomial, out):
    """The canonical entry of the position stored at each of ``entries`` (its own when
    it is canonical)."""
    for i in prange(len(entries)):
        mover, other, mh, oh, _ = decode(entries[i], sectors, set_index, class_base,
                                         representatives, stabilisers, sym_bytes, binomial)
        j = sector_row(entries[i], sectors)
        entry, _ = sector_entry(mover, other, set_index, stabilisers, sym_bytes, binomial)
        out[i] = sectors[j, 4] + entry


@njit(cache=True, parallel=True)
def mill_free(entries, sectors, set_index, class_base, representatives, stabilisers, sym_bytes,
              binomial, lines, out):
    """Whether the position stored at each of ``entries`` has no mill of either side."""
    for i in prange(len(entries)):
        mover, other, _, _, _ = decode(entries[i], sectors, set_index, class_base,
                                       representatives, stabilisers, sym_bytes, binomial)
        free = True
        for line in lines:
            if (mover & line) == line or (other & line) == line:
                free = False
        out[i] = free
