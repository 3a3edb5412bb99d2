"""The kit's generic kernels, written once and compiled into each game's module.

These functions are never called from here: :func:`retro.games.kit.game.instantiate`
compiles their definitions with the *game module's* file name into that module's
namespace and jits them there (``cache=True``). numba then keys their cache by the
game's file (``teeko.<name>-<line>.nbi``) and a second process loads them from it; a
jitted function handed to another as an argument, or a closure, is never cached
(numba keys those by an address that changes from run to run).

Inside a game's module the names below resolve to the game's own jitted rules
(``moves``, ``outcome``, and ``unmoves`` if it writes them) and to ``kit_numbering``,
the module :mod:`retro.games.kit.numbering`, which :func:`instantiate` puts there.
Only the function definitions and the ``_KIT_`` constants are compiled: nothing else
of this file reaches the game's namespace.
"""

# ruff: noqa: F821 - moves, outcome, unmoves and kit_numbering live in the game's module

import numpy as np
from numba import prange

_KIT_OPEN = -1  # outcome(): the game goes on
_KIT_ILLEGAL = -2  # outcome(): the board is no position
_KIT_DUPLICATE = -3  # scan: a smaller entry holds the same position (protocol.DUPLICATE)
_KIT_DRAWN = -4  # outcome(): finished, a draw
_KIT_SPAN = 4096  # entries a parallel task scans


def _kit_finished(code, draw, invalid):
    """The stored value of an outcome code (0 lost, 1 won for the side to move)."""
    if code == _KIT_DRAWN:
        return draw
    if code == _KIT_ILLEGAL:
        return invalid
    return code


def _kit_slot(slot_keys, counts_masks, out_row, cells, kinds):
    """The slot of a child (its counts from ``counts_masks``, extras from ``out_row``
    after the cells) among ``slot_keys``, or -1."""
    for s in range(slot_keys.shape[0]):
        same = True
        for j in range(kinds):
            if slot_keys[s, j] != kit_numbering.popcount(counts_masks[j + 1]):
                same = False
                break
        if same:
            for j in range(kinds, slot_keys.shape[1]):
                if slot_keys[s, j] != out_row[cells + j - kinds]:
                    same = False
                    break
        if same:
            return s
    return -1


def _kit_scan(first, stop, kinds, tier, consts, tables, slot_keys, children, width, finished,
              counter, counts_out, child_value, draw, invalid, max_moves, out_width):
    """The un-move solver's scan of entries ``first..stop-1`` (see TierKernels): each
    entry's finished value (or OPEN, or DUPLICATE), its counter (moves into the tier,
    each weighed by its child's stabiliser order, divided by its own) and the values of
    its children out of the tier. Returns -1, or an entry whose weights do not divide
    or that has a child in no tier the game named."""
    bad = np.full(1, -1, dtype=np.int64)
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    spans = (stop - first + _KIT_SPAN - 1) // _KIT_SPAN
    for s in prange(spans):
        board = np.empty(cells, dtype=np.uint8)
        out = np.empty((max_moves, out_width), dtype=np.uint8)
        masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
        child_counts = np.empty(kinds, dtype=np.int64)
        for e in range(first + s * _KIT_SPAN, min(first + (s + 1) * _KIT_SPAN, stop)):
            i = e - first
            counts_out[i] = 0
            counter[i] = 0
            order = 1
            stab = kit_numbering.board_at(e, counts, tables, board, masks)
            if stab != 1:
                canonical, order = kit_numbering.entry_of(board, counts, tables, masks)
                if canonical != e:
                    finished[i] = _KIT_DUPLICATE
                    continue
            code = outcome(board, tier, consts)
            if code != _KIT_OPEN:
                finished[i] = _kit_finished(code, draw, invalid)
                continue
            finished[i] = _KIT_OPEN
            n = moves(board, tier, consts, out)
            weight = 0
            k = 0
            for m in range(n):
                kit_numbering.masks_of(out[m, :cells], kinds, masks)
                slot = _kit_slot(slot_keys, masks, out[m], cells, kinds)
                if slot < 0:
                    bad[0] = e
                    continue
                for j in range(kinds):
                    child_counts[j] = slot_keys[slot, j]
                if slot == 0:  # a move into the tier: only its weight counts
                    weight += kit_numbering.order_of_masks(masks, child_counts, tables)
                else:
                    if k < width:
                        entry = kit_numbering.entry_of_masks(masks, child_counts, tables)[0]
                        child_value[i * width + k] = children[slot - 1][entry]
                    k += 1
            counts_out[i] = k
            if weight % order:
                bad[0] = e
            counter[i] = weight // order
    return bad[0]


def _kit_parents_steps(entries, kinds, tier, consts, tables, swap, width, out, counts_out,
                       max_moves, out_width):
    """Un-moves derived from moves: a parent of C is C with the pieces' sides swapped
    (``swap``: stored kind -> the same piece seen from the other side), one move
    played, swapped back, kept when it is of the tier and not finished."""
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    parts = (len(entries) + 255) // 256
    for part in prange(parts):
        board = np.empty(cells, dtype=np.uint8)
        turned = np.empty(cells, dtype=np.uint8)
        parent = np.empty(cells, dtype=np.uint8)
        found = np.empty((max_moves, out_width), dtype=np.uint8)
        masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
        for i in range(part * 256, min((part + 1) * 256, len(entries))):
            kit_numbering.board_at(entries[i], counts, tables, board, masks)
            for c in range(cells):
                turned[c] = swap[board[c]]
            n = moves(turned, tier, consts, found)
            m = 0
            for j in range(n):
                same = True
                for x in range(kinds, len(tier)):
                    if found[j, cells + x - kinds] != tier[x]:
                        same = False
                for c in range(cells):
                    parent[c] = swap[found[j, c]]
                kit_numbering.masks_of(parent, kinds, masks)
                for x in range(kinds):
                    if kit_numbering.popcount(masks[x + 1]) != counts[x]:
                        same = False
                if not same or outcome(parent, tier, consts) != _KIT_OPEN:
                    continue
                out[i * width + m] = kit_numbering.entry_of_masks(masks, counts, tables)[0]
                m += 1
            counts_out[i] = m


def _kit_parents_own(entries, kinds, tier, consts, tables, width, out, counts_out, max_moves,
                     out_width):
    """Un-moves from the game's ``unmoves`` kernel (parents of the tier, not finished)."""
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    parts = (len(entries) + 255) // 256
    for part in prange(parts):
        board = np.empty(cells, dtype=np.uint8)
        found = np.empty((max_moves, out_width), dtype=np.uint8)
        masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
        for i in range(part * 256, min((part + 1) * 256, len(entries))):
            kit_numbering.board_at(entries[i], counts, tables, board, masks)
            n = unmoves(board, tier, consts, found)
            m = 0
            for j in range(n):
                if outcome(found[j, :cells], tier, consts) != _KIT_OPEN:
                    continue
                out[i * width + m] = kit_numbering.entry_of(found[j, :cells], counts, tables, masks)[0]
                m += 1
            counts_out[i] = m


def _kit_parent_blocks(entries, kinds, tier, tables, swap, out):
    """For step un-moves: the parents of C keep C's mover's pieces, which become the
    parent's kind 1 (its key): all lie in the run of that key's class."""
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    k = counts[0]
    m = kit_numbering.multiplier(counts, cells, tables.binom)
    for part in prange((len(entries) + 255) // 256):
        board = np.empty(cells, dtype=np.uint8)
        masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
        for i in range(part * 256, min((part + 1) * 256, len(entries))):
            kit_numbering.board_at(entries[i], counts, tables, board, masks)
            key = 0
            for c in range(cells):
                if swap[board[c]] == 1:
                    key |= np.int64(1) << c
            r = kit_numbering.colex_rank(key, tables.binom)
            out[i] = tables.combo_class[tables.combo_off[k] + r] * m


def _kit_expand(first, stop, kinds, tier, consts, tables, slot_keys, finished, counts_out,
                starts, child_slot, child_entry, draw, invalid, max_moves, out_width, fill):
    """The explicit expansion of entries ``first..stop-1``: with ``fill`` False each
    entry's finished value and its number of moves (``counts_out``); with ``fill`` True
    its children from ``starts[i]`` (slot and entry). Duplicates are marked
    DUPLICATE; returns -1 or an entry with a child in no tier the game named."""
    bad = np.full(1, -1, dtype=np.int64)
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    spans = (stop - first + _KIT_SPAN - 1) // _KIT_SPAN
    for s in prange(spans):
        board = np.empty(cells, dtype=np.uint8)
        out = np.empty((max_moves, out_width), dtype=np.uint8)
        masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
        child_counts = np.empty(kinds, dtype=np.int64)
        for e in range(first + s * _KIT_SPAN, min(first + (s + 1) * _KIT_SPAN, stop)):
            i = e - first
            if not fill:
                counts_out[i] = 0
                stab = kit_numbering.board_at(e, counts, tables, board, masks)
                if stab != 1 and kit_numbering.entry_of(board, counts, tables, masks)[0] != e:
                    finished[i] = _KIT_DUPLICATE
                    continue
                code = outcome(board, tier, consts)
                finished[i] = _KIT_OPEN if code == _KIT_OPEN else _kit_finished(code, draw, invalid)
                if code == _KIT_OPEN:
                    counts_out[i] = moves(board, tier, consts, out)
                continue
            if finished[i] != _KIT_OPEN:
                continue
            kit_numbering.board_at(e, counts, tables, board, masks)
            n = moves(board, tier, consts, out)
            at = starts[i]
            for m in range(n):
                kit_numbering.masks_of(out[m, :cells], kinds, masks)
                slot = _kit_slot(slot_keys, masks, out[m], cells, kinds)
                if slot < 0:
                    bad[0] = e
                    slot = 0
                for j in range(kinds):
                    child_counts[j] = slot_keys[slot, j]
                child_slot[at + m] = slot
                child_entry[at + m] = kit_numbering.entry_of_masks(masks, child_counts, tables)[0]
    return bad[0]


def _kit_positions(kinds, tier, consts, tables, size):
    """The positions the tier's entries stand for, one side to move each: every
    symmetric image of each canonical entry that is a position."""
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    symmetries = tables.sym.shape[0]
    total = 0
    for s in prange((size + _KIT_SPAN - 1) // _KIT_SPAN):
        board = np.empty(cells, dtype=np.uint8)
        masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
        here = 0
        for e in range(s * _KIT_SPAN, min((s + 1) * _KIT_SPAN, size)):
            order = 1
            if kit_numbering.board_at(e, counts, tables, board, masks) != 1:
                canonical, order = kit_numbering.entry_of(board, counts, tables, masks)
                if canonical != e:
                    continue
            if outcome(board, tier, consts) != _KIT_ILLEGAL:
                here += symmetries // order
        total += here
    return total
