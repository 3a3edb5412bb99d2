"""The rules of the morris games on bitboards (jitted): every primitive, written once.

Both games share them, told apart by one flag, ``lines_win``:

* three men's morris (``lines_win``): a move that puts three of the mover's pieces on
  a line wins at once; nothing is captured;
* six men's morris: a move whose destination completes a mill of the mover's also
  removes an opponent piece (one not in a mill of the opponent's, or any when all are;
  none when the opponent has no piece on the board; one even for two mills at once),
  each choice of removal its own move; a player with fewer than 3 pieces (board and
  hand together) has lost.

In both, a player with pieces in hand places one on an empty point; when both hands
are empty a move slides a piece to an adjacent empty point (no flying); a side to move
without a legal move has lost.

The index (see :mod:`retro.games.morris`) and the expansion kernels that the engine's
solvers and verify read are here too, so that every fast path sees the same rules.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...bits import lowest_bit_index, popcount

WHITE, BLACK = 0, 1
OPEN = -1  # as retro.games.protocol.OPEN: the game goes on


@njit(cache=True, inline="always")
def has_line(pieces, lines):
    """Whether ``pieces`` hold a whole line (mill)."""
    for line in lines:
        if pieces & line == line:
            return True
    return False


@njit(cache=True, inline="always")
def mill_points(pieces, lines):
    """The points of ``pieces`` that stand in one of their mills."""
    inside = 0
    for line in lines:
        if pieces & line == line:
            inside |= line
    return inside


@njit(cache=True, inline="always")
def closes_mill(pieces, point, lines, lines_through):
    """Whether a mill of ``pieces`` (after a move) runs through ``point``."""
    for k in range(lines_through.shape[1]):
        i = lines_through[point, k]
        if i < 0:
            return False
        if pieces & lines[i] == lines[i]:
            return True
    return False


@njit(cache=True, inline="always")
def removals(opponent, lines):
    """The opponent pieces a completed mill may remove: those outside the opponent's
    mills, or all of them when every one stands in a mill (none when there are none)."""
    free = opponent & ~mill_points(opponent, lines)
    return free if free else opponent


@njit(cache=True)
def finished_value(side, white, black, white_hand, black_hand, lines_win, neighbours, lines):
    """The value of a finished position (0 plies: ``2 * 0 + 1`` when White has won, 0 when
    Black has), or OPEN while the game goes on; -2 when both players have a line (not a
    position, three men's morris)."""
    if lines_win:
        white_line = has_line(white, lines)
        black_line = has_line(black, lines)
        if white_line and black_line:
            return -2
        if white_line:
            return 1
        if black_line:
            return 0
    else:
        total = popcount(white) + white_hand if side == WHITE else popcount(black) + black_hand
        if total < 3:
            return 1 if side == BLACK else 0
    if not has_move(side, white, black, white_hand, black_hand, neighbours):
        return 1 if side == BLACK else 0
    return OPEN


@njit(cache=True, inline="always")
def has_move(side, white, black, white_hand, black_hand, neighbours):
    """Whether the side to move has a legal move (before the finished rules)."""
    hand = white_hand if side == WHITE else black_hand
    empty = ~(white | black)
    if hand > 0:
        return True  # a board of 9 or 16 points always has an empty one in the placement phase
    mine = white if side == WHITE else black
    rest = mine
    while rest:
        p = lowest_bit_index(rest)
        rest &= rest - 1
        if neighbours[p] & empty:
            return True
    return False


@njit(cache=True, inline="always")
def image(bb, g, symmetry_bytes):
    """Bitboard ``bb`` (at most 16 points) under symmetry ``g``."""
    return symmetry_bytes[g, 0, bb & 0xFF] | symmetry_bytes[g, 1, (bb >> 8) & 0xFF]


@njit(cache=True, inline="always")
def entry_of(side, white, black, white_hand, black_hand, white_class, white_sym, class_base,
             class_count, free_index, rank, binomial, size, symmetry_bytes, tier_of, tier_slots):
    """``(tier, entry)`` of a position: its tier's number and the entry of its canonical
    image (the symmetry bringing White's pieces to their class's least image)."""
    wb = popcount(white)
    bb = popcount(black)
    tier = tier_of[white_hand, black_hand, wb, bb]
    g = white_sym[white]
    moved = image(black, g, symmetry_bytes)
    klass = class_base[wb] + white_class[white]
    squeezed = 0
    rest = moved
    while rest:
        p = lowest_bit_index(rest)
        rest &= rest - 1
        squeezed |= np.int64(1) << free_index[klass, p]
    per_class = binomial[size - wb, bb]
    slot = tier_slots[tier, side]
    return tier, (slot * class_count[wb] + white_class[white]) * per_class + rank[squeezed]


@njit(cache=True, inline="always")
def board_at(entry, wb, bb, sides, class_base, class_count, representatives, free_points,
             masks, mask_base, binomial, size):
    """``(side, white, black)`` stored at ``entry`` of a tier (``sides``: its side codes)."""
    per_class = binomial[size - wb, bb]
    per_side = class_count[wb] * per_class
    slot = entry // per_side
    rest = entry - slot * per_side
    local = rest // per_class
    rank = rest - local * per_class
    klass = class_base[wb] + local
    white = representatives[klass]
    spread = masks[mask_base[bb] + rank]
    black = 0
    while spread:
        i = lowest_bit_index(spread)
        spread &= spread - 1
        black |= np.int64(1) << free_points[klass, i]
    return sides[slot], white, black


@njit(cache=True, inline="always")
def _land(side, mine, theirs, source, t, hand, placing, white_hand, black_hand, lines_win, lines,
          lines_through, white_class, white_sym, class_base, class_count, free_index, rank,
          binomial, size, symmetry_bytes, tier_of, tier_slots, slot_of_tier, mode, child_tier,
          child_entry, moves, at):
    """The moves of a piece from ``source`` (0: placed from the hand) to point ``t``:
    one, or one per removal when it closes a mill. ``mode``: 0 count, 1 write each child
    as (expansion slot, entry) at ``at``, 2 write each move as (source point or -1,
    target, removed point or -1). Returns how many."""
    after = (mine ^ source) | (np.int64(1) << t)
    taken = np.int64(0)
    if not lines_win and theirs and closes_mill(after, t, lines, lines_through):
        taken = removals(theirs, lines)
    new_hand = hand - 1 if placing else hand
    count = 0
    while True:
        r = taken & -taken
        taken ^= r
        if mode == 1:
            left = theirs ^ r
            cw = after if side == WHITE else left
            cb = left if side == WHITE else after
            wh = new_hand if side == WHITE else white_hand
            bh = black_hand if side == WHITE else new_hand
            tier, entry = entry_of(1 - side, cw, cb, wh, bh, white_class, white_sym, class_base,
                                   class_count, free_index, rank, binomial, size, symmetry_bytes,
                                   tier_of, tier_slots)
            child_tier[at + count] = slot_of_tier[tier]
            child_entry[at + count] = entry
        elif mode == 2:
            moves[at + count, 0] = lowest_bit_index(source) if source else -1
            moves[at + count, 1] = t
            moves[at + count, 2] = lowest_bit_index(r) if r else -1
        count += 1
        if not taken:
            return count


@njit(cache=True, inline="always")
def _visit(side, white, black, white_hand, black_hand, lines_win, neighbours, lines, lines_through,
           white_class, white_sym, class_base, class_count, free_index, rank, binomial, size,
           symmetry_bytes, tier_of, tier_slots, slot_of_tier, mode, child_tier, child_entry,
           moves, at):
    """Every move of an open position (see :func:`_land` for ``mode``); how many."""
    mine = white if side == WHITE else black
    theirs = black if side == WHITE else white
    hand = white_hand if side == WHITE else black_hand
    empty = ((np.int64(1) << size) - 1) & ~(white | black)
    count = 0
    if hand > 0:  # place a piece on any empty point
        targets = empty
        while targets:
            t = lowest_bit_index(targets)
            targets &= targets - 1
            count += _land(side, mine, theirs, np.int64(0), t, hand, True, white_hand, black_hand,
                           lines_win, lines, lines_through, white_class, white_sym, class_base,
                           class_count, free_index, rank, binomial, size, symmetry_bytes, tier_of,
                           tier_slots, slot_of_tier, mode, child_tier, child_entry, moves,
                           at + count)
        return count
    rest = mine  # slide a piece to an adjacent empty point
    while rest:
        s = lowest_bit_index(rest)
        rest &= rest - 1
        targets = neighbours[s] & empty
        while targets:
            t = lowest_bit_index(targets)
            targets &= targets - 1
            count += _land(side, mine, theirs, np.int64(1) << s, t, hand, False, white_hand,
                           black_hand, lines_win, lines, lines_through, white_class, white_sym,
                           class_base, class_count, free_index, rank, binomial, size,
                           symmetry_bytes, tier_of, tier_slots, slot_of_tier, mode, child_tier,
                           child_entry, moves, at + count)
    return count


@njit(cache=True)
def legal_moves(side, white, black, white_hand, black_hand, lines_win, neighbours, lines,
                lines_through, size, moves):
    """The legal moves of an open position as rows (source point or -1 for a placement,
    target, removed point or -1) into ``moves``; how many."""
    no_int = np.empty((1, 1), dtype=np.int64)
    no_tier = np.empty(0, dtype=np.int8)
    no_entry = np.empty(0, dtype=np.int64)
    return _visit(side, white, black, white_hand, black_hand, lines_win, neighbours, lines,
                  lines_through, no_entry, no_entry, no_entry, no_entry, no_int, no_entry,
                  no_int, size, np.empty((1, 2, 256), dtype=np.int64), np.empty((1, 1, 1, 1), dtype=np.int64),
                  no_int, no_tier, 2, no_tier, no_entry, moves, 0)


@njit(cache=True, parallel=True)
def expand_counts(wh, bh, wb, bb, sides, tier_size, lines_win, neighbours, lines,
                  lines_through, white_class, white_sym, class_base, class_count, representatives,
                  free_points, free_index, masks, mask_base, rank, binomial, size, symmetry_bytes,
                  tier_of, tier_slots, slot_of_tier, not_a_position, side_out, finished_out,
                  counts_out):
    """Pass 1 of a tier's expansion: each entry's side, finished value and move count."""
    dummy_tier = np.empty(0, dtype=np.int8)
    dummy_entry = np.empty(0, dtype=np.int64)
    dummy_moves = np.empty((1, 3), dtype=np.int64)
    for e in prange(tier_size):
        side, white, black = board_at(e, wb, bb, sides, class_base, class_count, representatives,
                                      free_points, masks, mask_base, binomial, size)
        side_out[e] = side
        counts_out[e] = 0
        value = finished_value(side, white, black, wh, bh, lines_win, neighbours, lines)
        if value == -2:
            finished_out[e] = not_a_position
        elif value != OPEN:
            finished_out[e] = value
        else:
            finished_out[e] = OPEN
            counts_out[e] = _visit(side, white, black, wh, bh, lines_win, neighbours, lines,
                                   lines_through, white_class, white_sym, class_base, class_count,
                                   free_index, rank, binomial, size, symmetry_bytes, tier_of,
                                   tier_slots, slot_of_tier, 0, dummy_tier, dummy_entry,
                                   dummy_moves, 0)


@njit(cache=True, parallel=True)
def expand_children(wh, bh, wb, bb, sides, tier_size, lines_win, neighbours, lines, lines_through,
                    white_class, white_sym, class_base, class_count, representatives, free_points,
                    free_index, masks, mask_base, rank, binomial, size, symmetry_bytes, tier_of,
                    tier_slots, slot_of_tier, finished, starts, child_tier, child_entry):
    """Pass 2: every move of every open entry, as (expansion slot, child entry)."""
    dummy_moves = np.empty((1, 3), dtype=np.int64)
    for e in prange(tier_size):
        if finished[e] != OPEN:
            continue
        side, white, black = board_at(e, wb, bb, sides, class_base, class_count, representatives,
                                      free_points, masks, mask_base, binomial, size)
        _visit(side, white, black, wh, bh, lines_win, neighbours, lines, lines_through,
               white_class, white_sym, class_base, class_count, free_index, rank, binomial, size,
               symmetry_bytes, tier_of, tier_slots, slot_of_tier, 1, child_tier, child_entry,
               dummy_moves, starts[e])


@njit(cache=True, parallel=True)
def classes(wh, bh, wb, bb, sides, tier_size, white_class, white_sym, class_base, class_count,
            representatives, free_points, free_index, masks, mask_base, rank, binomial, size,
            symmetry_bytes, tier_of, tier_slots, out):
    """For every entry of a tier, the least entry among the images of its position under
    the board's symmetries (entries of one position when its White pieces are symmetric)."""
    for e in prange(tier_size):
        side, white, black = board_at(e, wb, bb, sides, class_base, class_count, representatives,
                                      free_points, masks, mask_base, binomial, size)
        best = e
        for g in range(symmetry_bytes.shape[0]):
            _, entry = entry_of(side, image(white, g, symmetry_bytes), image(black, g, symmetry_bytes),
                                wh, bh, white_class, white_sym, class_base, class_count,
                                free_index, rank, binomial, size, symmetry_bytes, tier_of,
                                tier_slots)
            if entry < best:
                best = entry
        out[e] = best


@njit(cache=True)
def entries_of(side, white, black, white_hand, black_hand, white_class, white_sym, class_base,
               class_count, free_index, rank, binomial, size, symmetry_bytes, tier_of, tier_slots,
               tiers_out, entries_out):
    """:func:`entry_of` over arrays of positions."""
    for i in range(len(side)):
        tiers_out[i], entries_out[i] = entry_of(side[i], white[i], black[i], white_hand[i],
                                                black_hand[i], white_class, white_sym, class_base,
                                                class_count, free_index, rank, binomial, size,
                                                symmetry_bytes, tier_of, tier_slots)
