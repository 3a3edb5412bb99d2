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

The kernels work on cell sets (``masks[k]``: the cells of stored kind k as bits,
``masks[0]`` the empty cells), never on boards of bytes: a child is a row of masks
(``row[0..kinds]``, then the child tier's extras). :func:`instantiate` binds
``_kit_moves``, ``_kit_outcome`` and ``_kit_unmoves`` to the game's kernels when it
writes them over masks (``kernels = "masks"``), or to the adapters below over its
board kernels; and ``_kit_board_moves`` / ``_kit_board_outcome`` (what the Python
``Position`` calls) the other way round. ``_KIT_KINDS``, ``_KIT_EXTRAS`` and ``_KIT_KEYS``
(the game's stored kinds, extras, and the kinds of its numbering's key) are set there too,
``_KIT_QUIET`` (whether it writes ``outcome_moves_quiet``) and ``_KIT_MOVED`` (whether it
writes ``unmoves_moved``).
"""

# ruff: noqa: F821 - moves, outcome, unmoves and kit_numbering live in the game's module

import numpy as np
from numba import prange

_KIT_OPEN = -1  # outcome(): the game goes on
_KIT_ILLEGAL = -2  # outcome(): the board is no position
_KIT_DUPLICATE = -3  # scan: a smaller entry holds the same position (protocol.DUPLICATE)
_KIT_DRAWN = -4  # outcome(): finished, a draw
_KIT_SPAN = 4096  # entries a parallel task scans
_KIT_PART = 1024  # entries a parallel task undoes


def _kit_finished(code, draw, invalid):
    """The stored value of an outcome code (0 lost, 1 won for the side to move)."""
    if code == _KIT_DRAWN:
        return draw
    if code == _KIT_ILLEGAL:
        return invalid
    return code


def _kit_child_tier(child_counts, row, kinds, child_tier):
    """A child's tier row: its counts, then its extras (from the move's ``row``)."""
    for j in range(kinds):
        child_tier[j] = child_counts[j]
    for x in range(_KIT_EXTRAS):
        child_tier[kinds + x] = row[kinds + 1 + x]


def _kit_rule_value(child, child_counts, row, kinds, consts, scratch, child_tier, draw, invalid):
    """The value (its mover's view) ``outcome`` gives a child (``child``: its masks;
    ``row``: the move's row, for the extras; ``child_tier``: scratch), or ``invalid``
    when play goes on (every position the numbering leaves out must have a value).
    Called, not inlined: the rare case (a child left out of a tier of one part)."""
    _kit_child_tier(child_counts, row, kinds, child_tier)
    code = _kit_outcome(child, child_tier, consts, scratch)
    return invalid if code == _KIT_OPEN else _kit_finished(code, draw, invalid)


def _kit_preference(v, draw):
    """How much the mover likes a child of value ``v`` (the child's mover's view): a
    child lost soonest best, then a draw, then a child won latest."""
    if v == draw:
        return np.int64(1) << 40
    if v & 1:
        return np.int64(v)
    return (np.int64(1) << 41) - v


# --- between the two forms of a game's kernels ------------------------------------


def _kit_board_of(masks, board, cells):
    """``board[c]``: the kind on cell c of the cell sets ``masks``."""
    for c in range(cells):
        board[c] = 0
    for k in range(1, _KIT_KINDS + 1):
        m = masks[k]
        while m:
            board[kit_numbering.lowest_bit_index(m)] = k
            m &= m - 1


def _kit_row_of(row, cells, out):
    """A child written as a board (cells, then extras) as a row of masks."""
    for k in range(_KIT_KINDS + 1):
        out[k] = 0
    for c in range(cells):
        out[row[c]] |= np.int64(1) << c
    for x in range(_KIT_EXTRAS):
        out[_KIT_KINDS + 1 + x] = row[cells + x]


def _kit_moves_via_board(masks, tier, consts, out, scratch):
    """``_kit_moves`` of a game whose ``moves`` reads a board (``scratch``: uint8
    (max_moves + 1, cells + extras))."""
    cells = scratch.shape[1] - _KIT_EXTRAS
    last = scratch.shape[0] - 1
    _kit_board_of(masks, scratch[last], cells)
    n = moves(scratch[last], tier, consts, scratch[:last])
    for i in range(n):
        _kit_row_of(scratch[i], cells, out[i])
    return n


def _kit_unmoves_via_board(masks, tier, consts, out, scratch):
    cells = scratch.shape[1] - _KIT_EXTRAS
    last = scratch.shape[0] - 1
    _kit_board_of(masks, scratch[last], cells)
    n = unmoves(scratch[last], tier, consts, scratch[:last])
    for i in range(n):
        _kit_row_of(scratch[i], cells, out[i])
    return n


def _kit_outcome_via_board(masks, tier, consts, scratch):
    cells = scratch.shape[1] - _KIT_EXTRAS
    last = scratch.shape[0] - 1
    _kit_board_of(masks, scratch[last], cells)
    return outcome(scratch[last, :cells], tier, consts)


def _kit_moves_of_masks(masks, tier, consts, out, scratch):
    return moves(masks, tier, consts, out)


def _kit_unmoves_of_masks(masks, tier, consts, out, scratch):
    return unmoves(masks, tier, consts, out)


def _kit_unmoves_moved_of_masks(masks, tier, consts, out, scratch):
    return unmoves_moved(masks, tier, consts, out)


def _kit_outcome_of_masks(masks, tier, consts, scratch):
    return outcome(masks, tier, consts)


def _kit_outcome_moves_apart(masks, tier, consts, out, scratch):
    """``_kit_outcome_moves`` of a game without ``outcome_moves``: ``outcome``, then
    ``moves`` when it is OPEN (else none: 0)."""
    code = _kit_outcome(masks, tier, consts, scratch)
    if code != _KIT_OPEN:
        return code, np.int64(0)
    return code, np.int64(_kit_moves(masks, tier, consts, out, scratch))


def _kit_outcome_moves_of_masks(masks, tier, consts, out, scratch):
    return outcome_moves(masks, tier, consts, out)


def _kit_outcome_moves_quiet_apart(masks, tier, consts, out, scratch):
    """``_kit_outcome_moves_quiet`` of a game without ``outcome_moves_quiet``: every child
    written, none counted."""
    code, n = _kit_outcome_moves(masks, tier, consts, out, scratch)
    return code, n, np.int64(0)


def _kit_outcome_moves_quiet_of_masks(masks, tier, consts, out, scratch):
    return outcome_moves_quiet(masks, tier, consts, out)


def _kit_masks_of_board(board):
    masks = np.zeros(kit_numbering.MAX_KINDS, dtype=np.int64)
    for c in range(len(board)):
        masks[board[c]] |= np.int64(1) << c
    return masks


def _kit_board_moves_via_masks(board, tier, consts, out):
    """``moves`` over a board (cells, then children written as boards in ``out``) of a
    game that writes its moves over masks."""
    cells = len(board)
    rows = np.empty((out.shape[0], _KIT_KINDS + 1 + _KIT_EXTRAS), dtype=np.int64)
    n = moves(_kit_masks_of_board(board), tier, consts, rows)
    for i in range(n):
        for c in range(cells):
            out[i, c] = 0
        for k in range(1, _KIT_KINDS + 1):
            m = rows[i, k]
            while m:
                out[i, kit_numbering.lowest_bit_index(m)] = k
                m &= m - 1
        for x in range(_KIT_EXTRAS):
            out[i, cells + x] = rows[i, _KIT_KINDS + 1 + x]
    return n


def _kit_board_outcome_via_masks(board, tier, consts):
    return outcome(_kit_masks_of_board(board), tier, consts)


# --- the kernels ------------------------------------------------------------------


def _kit_slot(slot_keys, out, m, kinds):
    """The slot of a child (row ``m`` of ``out``: masks, then its extras) among
    ``slot_keys``, or -1."""
    for s in range(slot_keys.shape[0]):
        same = True
        for j in range(kinds):
            if slot_keys[s, j] != kit_numbering.popcount(out[m, j + 1]):
                same = False
                break
        if same:
            for j in range(kinds, slot_keys.shape[1]):
                if slot_keys[s, j] != out[m, j + 1]:
                    same = False
                    break
        if same:
            return s
    return -1


def _kit_plan(counts, tables):
    """The numbering's plan of a tier of ``counts`` (see ``plan_of``), which a span's ranks share."""
    plan = np.empty(kit_numbering.PLAN, dtype=np.int64)
    kit_numbering.plan_of(counts, tables, _KIT_KEYS, plan)
    return plan


def _kit_group_plans(rows, kinds, group, tables_a, tables_b):
    """The plans of the count tuples ``rows[i, :kinds]``, each numbered by the tables of
    its group ``group[i]`` (``tables_a`` or ``tables_b``)."""
    plans = np.empty((len(rows), kit_numbering.PLAN), dtype=np.int64)
    for i in range(len(rows)):
        kit_numbering.plan_of(rows[i, :kinds], tables_b if group[i] else tables_a, _KIT_KEYS, plans[i])
    return plans


# The parallel kernels below hold a call in their parallel loop, not the work: numba's
# parallel passes copy and analyse a loop's whole body, and these bodies, with the
# numbering inlined, took most of a game's compile time (a span is one task's entries).


def _kit_scan_entry(e, lo, i, masks, counts, plan, tier, consts, tables, out, scratch, finished, stab, draw,
                    invalid, quiet_moves):
    """The start of a scan's entry ``e`` (``i`` in the span's arrays), as the scans take
    it: its cells into ``masks`` (stepped on from the previous entry's), then
    ``finished[i]``: DUPLICATE, its value when the game is over, else OPEN, and then
    its children in ``out``. Returns the stabiliser of its key's class, the entry's
    stabiliser order (0: nothing more to scan), its children's count, and the moves
    counted, not written (``quiet_moves``: a scan that weighs them, of a game that
    writes ``outcome_moves_quiet``; else none)."""
    # after no board (stabiliser 0) the masks cannot step on: the cells the clash freed
    # would give the later kinds more room than their radix
    if e == lo or stab == 0 or not kit_numbering.advance(masks, counts, tables, _KIT_KEYS):
        stab = kit_numbering.masks_of_plan(e, plan, tables, masks, _KIT_KEYS)
    if stab == 0:  # no board: a confined piece on another's cell
        finished[i] = invalid
        return stab, np.int64(0), np.int64(0), np.int64(0)
    order = np.int64(1)
    if stab != 1:
        canonical, order = kit_numbering.entry_of_plan(masks, plan, tables, _KIT_KEYS)
        if canonical != e:
            finished[i] = _KIT_DUPLICATE
            return stab, np.int64(0), np.int64(0), np.int64(0)
    quiet = np.int64(0)
    if _KIT_QUIET and quiet_moves:  # (a constant: the other games' scans compile without it)
        code, n, quiet = _kit_outcome_moves_quiet(masks, tier, consts, out, scratch)
    else:
        code, n = _kit_outcome_moves(masks, tier, consts, out, scratch)
    if code != _KIT_OPEN:
        finished[i] = _kit_finished(code, draw, invalid)
        return stab, np.int64(0), np.int64(0), np.int64(0)
    finished[i] = _KIT_OPEN
    return stab, order, n, quiet


def _kit_scan(first, stop, kinds, tier, consts, tables, slot_keys, children, width, finished,
              counter, counts_out, child_value, draw, invalid, max_moves, out_width):
    """The un-move solver's scan of entries ``first..stop-1`` (see TierKernels): each
    entry's finished value (or OPEN, or DUPLICATE), its counter (moves into the tier,
    each weighed by its child's stabiliser order, divided by its own) and the values of
    its children out of the tier. Returns -1, or an entry whose weights do not divide
    or that has a child in no tier the game named."""
    bad = np.full(1, -1, dtype=np.int64)
    for s in prange((stop - first + _KIT_SPAN - 1) // _KIT_SPAN):
        lo = first + s * _KIT_SPAN
        found = _kit_scan_span(first, lo, min(lo + _KIT_SPAN, stop), kinds, tier, consts, tables, slot_keys,
                               children, width, finished, counter, counts_out, child_value, draw, invalid,
                               max_moves, out_width)
        if found >= 0:
            bad[0] = found
    return bad[0]


def _kit_scan_span(first, lo, hi, kinds, tier, consts, tables, slot_keys, children, width, finished,
                   counter, counts_out, child_value, draw, invalid, max_moves, out_width):
    """:func:`_kit_scan` of entries ``lo..hi-1``."""
    bad = -1
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    out = np.empty((max_moves, kinds + 1 + out_width - cells), dtype=np.int64)
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    child_counts = np.empty(kinds, dtype=np.int64)
    child = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    child_tier = np.empty(len(tier), dtype=np.int64)
    plan = _kit_plan(counts, tables)
    slot_plans = kit_numbering.plans_of(slot_keys, kinds, tables, _KIT_KEYS)
    child_plan = np.empty(kit_numbering.PLAN, dtype=np.int64)  # the plan of a child's part (or slot)
    plan_held = -1
    stab = 1
    for e in range(lo, hi):
        i = e - first
        counts_out[i] = 0
        counter[i] = 0
        stab, order, n, _ = _kit_scan_entry(e, lo, i, masks, counts, plan, tier, consts, tables, out, scratch,
                                            finished, stab, draw, invalid, False)
        if order == 0:  # a duplicate, or finished
            continue
        weight = 0
        k = 0
        for m in range(n):
            slot = _kit_slot(slot_keys, out, m, kinds)
            if slot < 0:
                bad = e
                continue
            for x in range(kinds + 1):
                child[x] = out[m, x]
            for j in range(kinds):
                child_counts[j] = slot_keys[slot, j]
            plan_held = _kit_take_plan(slot_plans, slot, child_plan, plan_held)
            if slot == 0:  # a move into the tier: only its weight counts
                o = kit_numbering.order_of_plan(child, child_plan, tables, _KIT_KEYS)
                if o > 0:
                    weight += o
                    continue
            entry = kit_numbering.entry_of_plan(child, child_plan, tables, _KIT_KEYS)[0]
            if k < width:
                if entry < 0:  # left out of the numbering: the rules' value
                    child_value[i * width + k] = _kit_rule_value(child, child_counts, out[m], kinds, consts,
                                                                 scratch, child_tier, draw, invalid)
                else:
                    child_value[i * width + k] = children[slot - 1][entry]
            k += 1
        counts_out[i] = k
        if weight % order:
            bad = e
        counter[i] = weight // order
    return bad


def _kit_parents_steps(entries, kinds, tier, consts, tables, swap, width, out, counts_out,
                       max_moves, out_width):
    """Un-moves derived from moves: a parent of C is C with the pieces' sides swapped
    (``swap``: stored kind -> the same piece seen from the other side), one move
    played, swapped back, kept when it is of the tier and not finished."""
    for part in prange((len(entries) + _KIT_PART - 1) // _KIT_PART):
        _kit_parents_steps_span(part * _KIT_PART, min((part + 1) * _KIT_PART, len(entries)), entries, kinds,
                                tier, consts, tables, swap, width, out, counts_out, max_moves, out_width)


def _kit_parents_steps_span(lo, hi, entries, kinds, tier, consts, tables, swap, width, out, counts_out,
                            max_moves, out_width):
    """:func:`_kit_parents_steps` of ``entries[lo:hi]``."""
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    turned = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    parent = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    found = np.empty((max_moves, kinds + 1 + out_width - cells), dtype=np.int64)
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    plan = _kit_plan(counts, tables)
    for i in range(lo, hi):
        kit_numbering.masks_of_plan(entries[i], plan, tables, masks, _KIT_KEYS)
        turned[0] = masks[0]
        for x in range(1, kinds + 1):
            turned[swap[x]] = masks[x]
        n = _kit_moves(turned, tier, consts, found, scratch)
        m = 0
        for j in range(n):
            same = True
            for x in range(kinds, len(tier)):
                if found[j, x + 1] != tier[x]:
                    same = False
            parent[0] = found[j, 0]
            for x in range(1, kinds + 1):
                parent[swap[x]] = found[j, x]
            for x in range(kinds):
                if kit_numbering.popcount(parent[x + 1]) != counts[x]:
                    same = False
            if not same or _kit_outcome(parent, tier, consts, scratch) != _KIT_OPEN:
                continue
            found_entry = kit_numbering.entry_of_plan(parent, plan, tables, _KIT_KEYS)[0]
            if found_entry >= 0:  # (a left-out position is decided by the rules: never OPEN)
                out[i * width + m] = found_entry
                m += 1
        counts_out[i] = m


def _kit_parents_own(entries, kinds, tier, consts, tables, width, out, counts_out, max_moves,
                     out_width):
    """Un-moves from the game's ``unmoves`` kernel (parents of the tier, not finished)."""
    for part in prange((len(entries) + _KIT_PART - 1) // _KIT_PART):
        _kit_parents_own_span(part * _KIT_PART, min((part + 1) * _KIT_PART, len(entries)), entries, kinds,
                              tier, consts, tables, width, out, counts_out, max_moves, out_width)


def _kit_parents_own_span(lo, hi, entries, kinds, tier, consts, tables, width, out, counts_out, max_moves,
                          out_width):
    """:func:`_kit_parents_own` of ``entries[lo:hi]``."""
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    found = np.empty((max_moves, kinds + 1 + out_width - cells), dtype=np.int64)
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    plan = _kit_plan(counts, tables)
    for i in range(lo, hi):
        kit_numbering.masks_of_plan(entries[i], plan, tables, masks, _KIT_KEYS)
        n = _kit_unmoves(masks, tier, consts, found, scratch)
        m = 0
        for j in range(n):
            for x in range(kinds + 1):
                masks[x] = found[j, x]
            if _kit_outcome(masks, tier, consts, scratch) != _KIT_OPEN:
                continue
            found_entry = kit_numbering.entry_of_plan(masks, plan, tables, _KIT_KEYS)[0]
            if found_entry >= 0:
                out[i * width + m] = found_entry
                m += 1
        counts_out[i] = m


def _kit_parent_blocks(entries, kinds, tier, tables, swap, out):
    """For step un-moves: the parents of C keep C's mover's pieces, which become the
    parent's kind 1 (its key): all lie in the run of that key's class."""
    for part in prange((len(entries) + _KIT_PART - 1) // _KIT_PART):
        _kit_parent_blocks_span(part * _KIT_PART, min((part + 1) * _KIT_PART, len(entries)), entries, kinds,
                                tier, tables, swap, out)


def _kit_parent_blocks_span(lo, hi, entries, kinds, tier, tables, swap, out):
    """:func:`_kit_parent_blocks` of ``entries[lo:hi]``."""
    counts = tier[:kinds]
    k = counts[0]
    plan = _kit_plan(counts, tables)
    m = plan[1]
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    for i in range(lo, hi):
        kit_numbering.masks_of_plan(entries[i], plan, tables, masks, _KIT_KEYS)
        key = np.int64(0)
        for x in range(1, kinds + 1):
            if swap[x] == 1:
                key |= masks[x]
        r = kit_numbering.colex_rank(key, tables.binom)
        out[i] = max(0, tables.combo_class[tables.combo_off[k] + r]) * m


def _kit_expand(first, stop, kinds, tier, consts, tables, slot_keys, tables_a, tables_b, slot_group, finished,
                counts_out, starts, child_slot, child_entry, draw, invalid, max_moves, out_width, fill):
    """The explicit expansion of entries ``first..stop-1``: with ``fill`` False each
    entry's finished value and its number of moves (``counts_out``); with ``fill`` True
    its children from ``starts[i]`` (slot and entry; slot ``-1 - v`` for a child the
    numbering leaves out, ``v`` its value by the rules). A child of ``slot_keys``'s row
    s is numbered by the tables of the game's group ``slot_group[s]`` (``tables_a``,
    ``tables_b``: a game has one or two; numba passes no tuple of them to a parallel
    loop). Duplicates are marked DUPLICATE;
    returns -1 or an entry with a child in no tier the game named."""
    bad = np.full(1, -1, dtype=np.int64)
    for s in prange((stop - first + _KIT_SPAN - 1) // _KIT_SPAN):
        lo = first + s * _KIT_SPAN
        found = _kit_expand_span(first, lo, min(lo + _KIT_SPAN, stop), kinds, tier, consts, tables, slot_keys,
                                 tables_a, tables_b, slot_group, finished, counts_out, starts, child_slot,
                                 child_entry, draw, invalid, max_moves, out_width, fill)
        if found >= 0:
            bad[0] = found
    return bad[0]


def _kit_expand_span(first, lo, hi, kinds, tier, consts, tables, slot_keys, tables_a, tables_b, slot_group, finished,
                     counts_out, starts, child_slot, child_entry, draw, invalid, max_moves, out_width, fill):
    """:func:`_kit_expand` of entries ``lo..hi-1``."""
    bad = -1
    cells = tables.sym.shape[1]
    counts = tier[:kinds]
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    out = np.empty((max_moves, kinds + 1 + out_width - cells), dtype=np.int64)
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    child_counts = np.empty(kinds, dtype=np.int64)
    child = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    child_tier = np.empty(len(tier), dtype=np.int64)
    plan = _kit_plan(counts, tables)
    slot_plans = _kit_group_plans(slot_keys, kinds, slot_group, tables_a, tables_b)
    child_plan = np.empty(kit_numbering.PLAN, dtype=np.int64)  # the plan of a child's part (or slot)
    plan_held = -1
    stab = 1
    held = -2  # the entry masks holds
    for e in range(lo, hi):
        i = e - first
        if not fill:
            counts_out[i] = 0
        elif finished[i] != _KIT_OPEN:
            continue
        if held != e - 1 or stab == 0 or not kit_numbering.advance(masks, counts, tables, _KIT_KEYS):
            stab = kit_numbering.masks_of_plan(e, plan, tables, masks, _KIT_KEYS)
        held = e
        if not fill:
            if stab == 0:  # no board
                finished[i] = invalid
                continue
            if stab != 1 and kit_numbering.entry_of_plan(masks, plan, tables, _KIT_KEYS)[0] != e:
                finished[i] = _KIT_DUPLICATE
                continue
            code = _kit_outcome(masks, tier, consts, scratch)
            finished[i] = _KIT_OPEN if code == _KIT_OPEN else _kit_finished(code, draw, invalid)
            if code == _KIT_OPEN:
                counts_out[i] = _kit_moves(masks, tier, consts, out, scratch)
            continue
        n = _kit_moves(masks, tier, consts, out, scratch)
        at = starts[i]
        for m in range(n):
            slot = _kit_slot(slot_keys, out, m, kinds)
            if slot < 0:
                bad = e
                slot = 0
            for x in range(kinds + 1):
                child[x] = out[m, x]
            for j in range(kinds):
                child_counts[j] = slot_keys[slot, j]
            plan_held = _kit_take_plan(slot_plans, slot, child_plan, plan_held)
            entry = kit_numbering.entry_of_plan(child, child_plan, tables_b if slot_group[slot] else tables_a,
                                                _KIT_KEYS)[0]
            if entry < 0:  # left out of the numbering: slot -1 - the rules' value
                v = _kit_rule_value(child, child_counts, out[m], kinds, consts, scratch, child_tier, draw,
                                    invalid)
                if v > 127:
                    bad = e
                child_slot[at + m] = -1 - min(v, 127)
                child_entry[at + m] = 0
            else:
                child_slot[at + m] = slot
                child_entry[at + m] = entry
    return bad


def _kit_positions(kinds, tier, consts, tables, size, out_width, max_moves):
    """The positions the tier's entries stand for, one side to move each: every
    symmetric image of each canonical entry that is a position."""
    total = 0
    for s in prange((size + _KIT_SPAN - 1) // _KIT_SPAN):
        total += _kit_positions_span(s * _KIT_SPAN, min((s + 1) * _KIT_SPAN, size), kinds, tier, consts, tables,
                                     out_width, max_moves)
    return total


def _kit_positions_span(lo, hi, kinds, tier, consts, tables, out_width, max_moves):
    """:func:`_kit_positions` of entries ``lo..hi-1``."""
    counts = tier[:kinds]
    symmetries = tables.sym.shape[0]
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    here = 0
    stab = 1
    plan = _kit_plan(counts, tables)
    for e in range(lo, hi):
        if e == lo or stab == 0 or not kit_numbering.advance(masks, counts, tables, _KIT_KEYS):
            stab = kit_numbering.masks_of_plan(e, plan, tables, masks, _KIT_KEYS)
        if stab == 0:  # no board
            continue
        order = 1
        if stab != 1:
            canonical, order = kit_numbering.entry_of_plan(masks, plan, tables, _KIT_KEYS)
            if canonical != e:
                continue
        if _kit_outcome(masks, tier, consts, scratch) != _KIT_ILLEGAL:
            here += symmetries // order
    return here


# --- tiers of several parts (count tuples numbered one after the other) -------------


def _kit_part_of(rows, m, codes, code_part, bits):
    """The part of row ``m`` of ``rows`` (masks, then extras) among a tier's parts: its
    :data:`_KIT_KINDS` counts and its extras as digits of ``bits`` bits each
    (``PieceGame._code_table``'s), the first count lowest, found in the hash table
    ``codes`` (from its ``part_slot`` on; -1 an empty slot); -1 if none. (The rows and an
    index, not the row: a row taken as an array of its own costs two atomic reference
    counts.)"""
    return _kit_part_of_code(_kit_part_code(rows, m, bits), codes, code_part)


def _kit_part_code(rows, m, bits):
    """The code of row ``m``'s part (see :func:`_kit_part_of`)."""
    code = np.int64(0)
    for j in range(_KIT_KINDS):
        code += kit_numbering.popcount(rows[m, j + 1]) << (bits * j)
    for x in range(_KIT_EXTRAS):
        code += rows[m, _KIT_KINDS + 1 + x] << (bits * (_KIT_KINDS + x))
    return code


def _kit_part_of_code(code, codes, code_part):
    """The part of code ``code`` (see :func:`_kit_part_of`); -1 if none."""
    slot = kit_numbering.part_slot(code, len(codes))
    while codes[slot] != code:
        if codes[slot] == -1:
            return -1
        slot = (slot + 1) & (len(codes) - 1)
    return code_part[slot]


def _kit_take_plan(plans, q, plan, held):
    """``plan`` holds the plan ``plans[q]`` (copied when it held another, ``held``):
    returns q. A row of ``plans`` taken as an array of its own cost two atomic reference
    counts per rank, the parts' kernels' largest cost after the ranks themselves."""
    if q != held:
        for x in range(kit_numbering.PLAN_HEAD + 3 * plans[q, 2]):
            plan[x] = plans[q, x]
    return q


def _kit_part_at(offsets, e):
    """The part holding entry ``e`` of a tier (``offsets``: where each part starts, and the end)."""
    lo, hi = 0, len(offsets) - 1
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if offsets[mid] <= e:
            lo = mid
        else:
            hi = mid
    return lo


def _kit_scan_parts(first, stop, kinds, part, consts, tables, codes, code_part, bits, part_rows, finished,
                    counter, counts_out, child_value, width, draw, invalid, max_moves, out_width):
    """:func:`_kit_scan` of entries ``first..stop-1`` of one part of a tier whose moves
    all stay in the tier (the other parts count as the tier). A value ``outcome`` knows
    (2 or more: won or lost in so many plies) is the entry's finished value: nothing its
    moves lead to can change it, and they are neither weighed nor undone (Dōbutsu
    shōgi's positions whose mover can take the lion are four in ten of its table). A
    child whose value the rules give (finished, known, or left out of the numbering)
    counts as one child out of the tier, the best of them for the mover: its un-moves
    are never taken. ``part_rows``: the tier's parts, ``code_part``'s numbering. Returns
    -1, or an entry with an undecided child of no part of the tier (a decided child's part
    is not looked up)."""
    bad = np.full(1, -1, dtype=np.int64)
    for s in prange((stop - first + _KIT_SPAN - 1) // _KIT_SPAN):
        lo = first + s * _KIT_SPAN
        found = _kit_scan_parts_span(first, lo, min(lo + _KIT_SPAN, stop), kinds, part, consts, tables, codes,
                                     code_part, bits, part_rows, finished, counter, counts_out, child_value, width,
                                     draw, invalid, max_moves, out_width)
        if found >= 0:
            bad[0] = found
    return bad[0]


def _kit_scan_parts_span(first, lo, hi, kinds, part, consts, tables, codes, code_part, bits, part_rows, finished,
                         counter, counts_out, child_value, width, draw, invalid, max_moves, out_width):
    """:func:`_kit_scan_parts` of entries ``lo..hi-1``."""
    bad = -1
    cells = tables.sym.shape[1]
    counts = part[:kinds]
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    out = np.empty((max_moves, kinds + 1 + out_width - cells), dtype=np.int64)
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    child_counts = np.empty(kinds, dtype=np.int64)
    child = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    child_tier = np.empty(len(part), dtype=np.int64)
    plan = _kit_plan(counts, tables)
    plans = kit_numbering.plans_of(part_rows, kinds, tables, _KIT_KEYS)
    child_plan = np.empty(kit_numbering.PLAN, dtype=np.int64)  # the plan of a child's part (or slot)
    plan_held = -1
    stab = 1
    for e in range(lo, hi):
        i = e - first
        counts_out[i] = 0
        counter[i] = 0
        stab, order, n, _ = _kit_scan_entry(e, lo, i, masks, counts, plan, part, consts, tables, out, scratch,
                                            finished, stab, draw, invalid, False)
        if order == 0:  # a duplicate, or finished
            continue
        weight = 0
        best = -1  # the best child the numbering leaves out, for the mover
        for m in range(n):
            for x in range(kinds + 1):
                child[x] = out[m, x]
            for j in range(kinds):
                child_counts[j] = kit_numbering.popcount(out[m, j + 1])
            # a child decided by the rules (left out, finished, or a value they know)
            # counts as one out of the tier: its un-moves are never taken
            _kit_child_tier(child_counts, out[m], kinds, child_tier)
            code = _kit_outcome(child, child_tier, consts, scratch)
            if code != _KIT_OPEN:
                v = _kit_finished(code, draw, invalid)
                if v == invalid:
                    bad = e
                elif best < 0 or _kit_preference(v, draw) > _kit_preference(best, draw):
                    best = v
                continue
            q = _kit_part_of(out, m, codes, code_part, bits)
            if q < 0:  # numbered below: of a part
                bad = e
                continue
            plan_held = _kit_take_plan(plans, q, child_plan, plan_held)
            o = kit_numbering.order_of_plan(child, child_plan, tables, _KIT_KEYS)
            if o == 0:  # left out, yet the rules give no value
                bad = e
            weight += o
        if best >= 0:
            counts_out[i] = 1
            child_value[i * width] = best
        if weight % order:
            bad = e
        counter[i] = weight // order
    return bad


def _kit_scan_linked(first, stop, kinds, part, consts, tables, tables_a, tables_b, codes, code_part, bits,
                     part_slot, part_offset, part_group, part_rows, children, finished, counter, counts_out,
                     child_value, width, draw, invalid, max_moves, out_width):
    """:func:`_kit_scan` of entries ``first..stop-1`` of one part of a tier of parts
    with child tiers (chess: a material's two sides to move, captures and promotions
    into other materials). ``codes``/``code_part`` find a child's part among the tier's
    parts and its child tiers' (rows ``part_rows``): ``part_slot`` 0 for the tier's
    own (a move into the tier: its weight counts), else the child tier's slot, whose
    values ``children[slot - 1]`` hold the part's entries from ``part_offset``,
    numbered by the tables of group ``part_group`` (``tables_a``, ``tables_b``). The
    children out of the tier count as one, the best of them for the mover. The moves
    the game's ``outcome_moves_quiet`` counts (where it writes one) lead into the tier
    to positions of stabiliser order 1: they weigh 1 each, unranked. Returns -1, or an
    entry whose weights do not divide or with a child of no part named."""
    bad = np.full(1, -1, dtype=np.int64)
    for s in prange((stop - first + _KIT_SPAN - 1) // _KIT_SPAN):
        lo = first + s * _KIT_SPAN
        found = _kit_scan_linked_span(first, lo, min(lo + _KIT_SPAN, stop), kinds, part, consts, tables, tables_a,
                                      tables_b, codes, code_part, bits, part_slot, part_offset, part_group,
                                      part_rows, children, finished, counter, counts_out, child_value, width, draw,
                                      invalid, max_moves, out_width)
        if found >= 0:
            bad[0] = found
    return bad[0]


def _kit_scan_linked_span(first, lo, hi, kinds, part, consts, tables, tables_a, tables_b, codes, code_part, bits,
                          part_slot, part_offset, part_group, part_rows, children, finished, counter, counts_out,
                          child_value, width, draw, invalid, max_moves, out_width):
    """:func:`_kit_scan_linked` of entries ``lo..hi-1``."""
    bad = -1
    cells = tables.sym.shape[1]
    counts = part[:kinds]
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    out = np.empty((max_moves, kinds + 1 + out_width - cells), dtype=np.int64)
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    child = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    plan = _kit_plan(counts, tables)
    plans = _kit_group_plans(part_rows, kinds, part_group, tables_a, tables_b)  # the tier's own: its group's
    # the plans of the last child in the tier and of the last out of it, held apart: a
    # capture between two moves in the tier would copy the tier's plan in again
    own_plan = np.empty(kit_numbering.PLAN, dtype=np.int64)
    own_held = -1
    child_plan = np.empty(kit_numbering.PLAN, dtype=np.int64)
    plan_held = -1
    stab = 1
    for e in range(lo, hi):
        i = e - first
        counts_out[i] = 0
        counter[i] = 0
        stab, order, n, quiet = _kit_scan_entry(e, lo, i, masks, counts, plan, part, consts, tables, out, scratch,
                                                finished, stab, draw, invalid, True)
        if order == 0:  # a duplicate, or finished
            continue
        weight = quiet  # moves the rules counted: into the tier, each of order 1
        best = -1  # the best child out of the tier, for the mover
        for m in range(n):
            q = _kit_part_of(out, m, codes, code_part, bits)
            if q < 0:
                bad = e
                continue
            for x in range(kinds + 1):
                child[x] = out[m, x]
            slot = part_slot[q]
            if slot == 0:
                own_held = _kit_take_plan(plans, q, own_plan, own_held)
                o = kit_numbering.order_of_plan(child, own_plan, tables, _KIT_KEYS)
                if o == 0:  # left out of the numbering, yet a move leads there
                    bad = e
                weight += o
                continue
            plan_held = _kit_take_plan(plans, q, child_plan, plan_held)
            entry = kit_numbering.entry_of_plan(child, child_plan, tables_b if part_group[q] else tables_a,
                                                _KIT_KEYS)[0]
            if entry < 0:
                bad = e
                continue
            v = np.int64(children[slot - 1][part_offset[q] + entry])
            if v == invalid:
                bad = e
            elif best < 0 or _kit_preference(v, draw) > _kit_preference(best, draw):
                best = v
        if best >= 0:
            counts_out[i] = 1
            child_value[i * width] = best
        if weight % order:
            bad = e
        counter[i] = weight // order
    return bad


def _kit_block(first, tables):
    """The run of classes (the first class, over every key count) holding the boards
    whose first key kind is on the cells ``first``: with a key of one kind, their class."""
    k = kit_numbering.popcount(first)
    at = kit_numbering.colex_rank(first, tables.binom)
    for j in range(k):
        at += tables.binom[tables.sym.shape[1], j]
    return tables.block[at]


def _kit_parent_key(masks, kinds, tables, swap, turn):
    """The cells of a position's parents' first key kind when the un-moves leave the side
    to move's pieces in place: its kinds that become that kind (``swap``), turned as its
    children are (``turn``: where each cell goes)."""
    key = np.int64(0)
    for x in range(1, kinds + 1):
        m = masks[x] if swap[x] == tables.order[0] else 0
        while m:
            key |= np.int64(1) << turn[kit_numbering.lowest_bit_index(m)]
            m &= m - 1
    return key


def _kit_key_class(masks, kinds, tables, swap, turn):
    """The run of classes of a position's parents (see :func:`_kit_parent_key`)."""
    return _kit_block(_kit_parent_key(masks, kinds, tables, swap, turn), tables)


def _kit_parent_classes(entries, offsets, part_rows, kinds, tables, swap, turn, step, out):
    """For the un-moves of a tier of several parts (they keep the side to move's pieces
    in place, as :func:`_kit_parents_parts` checks): each entry's parents share its key's
    class, so runs of ``step`` entries per class order them (parents of different classes
    are different entries)."""
    for piece in prange((len(entries) + _KIT_PART - 1) // _KIT_PART):
        _kit_parent_classes_span(piece * _KIT_PART, min((piece + 1) * _KIT_PART, len(entries)), entries, offsets,
                                 part_rows, kinds, tables, swap, turn, step, out)


def _kit_parent_classes_span(lo, hi, entries, offsets, part_rows, kinds, tables, swap, turn, step, out):
    """:func:`_kit_parent_classes` of ``entries[lo:hi]``."""
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    plans = kit_numbering.plans_of(part_rows, kinds, tables, _KIT_KEYS)
    plan = np.empty(kit_numbering.PLAN, dtype=np.int64)
    plan_held = -1
    for i in range(lo, hi):
        p = _kit_part_at(offsets, entries[i])
        plan_held = _kit_take_plan(plans, p, plan, plan_held)
        kit_numbering.masks_of_plan(entries[i] - offsets[p], plan, tables, masks, _KIT_KEYS)
        out[i] = _kit_key_class(masks, kinds, tables, swap, turn) * step


def _kit_parents_entry(e, offsets, part_rows, plans, plan, plan_held, tables, masks, consts, scratch, decided):
    """The start of entry ``e``'s un-moves in a tier of parts: its cells into ``masks``
    and ``(its part, the part whose plan ``plan`` holds)``; the part is -1 when the rules
    decide the entry (``decided``: it tells no parent)."""
    p = _kit_part_at(offsets, e)
    plan_held = _kit_take_plan(plans, p, plan, plan_held)
    kit_numbering.masks_of_plan(e - offsets[p], plan, tables, masks, _KIT_KEYS)
    if decided and _kit_outcome(masks, part_rows[p], consts, scratch) != _KIT_OPEN:
        return np.int64(-1), plan_held
    return p, plan_held


def _kit_key_kept(first, want, want_block, tables):
    """Whether a parent's first key kind on the cells ``first`` lies in the run of
    classes :func:`_kit_parent_classes` gave its entry (``want``'s, whose block
    ``want_block`` is -1 until worked out), and that block: ``(kept, want_block)``."""
    if first == want:
        return True, want_block
    if want_block < 0:
        want_block = _kit_block(want, tables)
    return _kit_block(first, tables) == want_block, want_block


def _kit_parents_parts(entries, offsets, part_rows, kinds, consts, tables, codes, code_part, bits,
                       width, out, counts_out, max_moves, out_width, swap, turn, decided):
    """Un-moves from the game's ``unmoves`` kernel over a tier of several parts:
    ``entries`` and the parents written are the tier's (a part's offset plus its entry).
    Returns -1, or an entry with a parent whose key is not where :func:`_kit_parent_classes`
    expects it. ``decided``: the scan took the value of each child the rules decide
    (:func:`_kit_scan_parts`), so such an entry tells no parent and a parent the rules
    decide has no counter; else (:func:`_kit_scan_linked`) every entry tells its
    parents, none of which the rules decide (a parent has the move undone). A game that
    writes ``unmoves_moved`` (``_KIT_MOVED``, a constant: the others compile without that
    branch) has its parents ranked by :func:`_kit_parents_moved_span`."""
    bad = np.full(1, -1, dtype=np.int64)
    for piece in prange((len(entries) + _KIT_PART - 1) // _KIT_PART):
        lo, hi = piece * _KIT_PART, min((piece + 1) * _KIT_PART, len(entries))
        if _KIT_MOVED:
            found = _kit_parents_moved_span(lo, hi, entries, offsets, part_rows, kinds, consts, tables, codes,
                                            code_part, bits, width, out, counts_out, max_moves, out_width, swap,
                                            turn, decided)
        else:
            found = _kit_parents_parts_span(lo, hi, entries, offsets, part_rows, kinds, consts, tables, codes,
                                            code_part, bits, width, out, counts_out, max_moves, out_width, swap,
                                            turn, decided)
        if found >= 0:
            bad[0] = found
    return bad[0]


def _kit_parents_parts_span(lo, hi, entries, offsets, part_rows, kinds, consts, tables, codes, code_part, bits,
                            width, out, counts_out, max_moves, out_width, swap, turn, decided):
    """:func:`_kit_parents_parts` of ``entries[lo:hi]``."""
    cells = tables.sym.shape[1]
    bad = -1
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    found = np.empty((max_moves, kinds + 1 + out_width - cells), dtype=np.int64)
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    plans = kit_numbering.plans_of(part_rows, kinds, tables, _KIT_KEYS)
    plan = np.empty(kit_numbering.PLAN, dtype=np.int64)  # the entry's part's
    plan_held = -1
    child_plan = np.empty(kit_numbering.PLAN, dtype=np.int64)  # a parent's part's
    parent_held = -1
    for i in range(lo, hi):
        e = entries[i]
        p, plan_held = _kit_parents_entry(e, offsets, part_rows, plans, plan, plan_held, tables, masks, consts,
                                          scratch, decided)
        if p < 0:
            counts_out[i] = 0  # decided by the rules: its parents' scan counted it so
            continue
        want = _kit_parent_key(masks, kinds, tables, swap, turn)
        want_block = -1  # its run of classes, worked out at the first parent whose key moved
        n = _kit_unmoves(masks, part_rows[p], consts, found, scratch)
        m = 0
        for j in range(n):
            q = _kit_part_of(found, j, codes, code_part, bits)
            if q < 0:
                continue
            for x in range(kinds + 1):
                masks[x] = found[j, x]
            if decided and _kit_outcome(masks, part_rows[q], consts, scratch) != _KIT_OPEN:
                continue  # finished, or a value the rules know: no counter to tell
            kept, want_block = _kit_key_kept(masks[tables.order[0]], want, want_block, tables)
            if not kept:
                bad = e
            parent_held = _kit_take_plan(plans, q, child_plan, parent_held)
            found_entry = kit_numbering.entry_of_plan(masks, child_plan, tables, _KIT_KEYS)[0]
            if found_entry < 0:  # left out, yet not decided by the rules
                bad = e
                continue
            out[i * width + m] = offsets[q] + found_entry
            m += 1
        counts_out[i] = m
    return bad


def _kit_parents_moved_span(lo, hi, entries, offsets, part_rows, kinds, consts, tables, codes, code_part, bits,
                            width, out, counts_out, max_moves, out_width, swap, turn, decided):
    """:func:`_kit_parents_parts` of ``entries[lo:hi]`` from the game's ``unmoves_moved``
    (each parent the entry's board turned, with one piece moved and maybe one
    retyped): the same parents, ranked from what they share. A parent whose moved piece is
    not of the key keeps the turned board's key: its class, symmetry and part (or the
    retyped one's) are worked out once an entry, and its rank is that of the turned
    board's cells under the key's symmetry (``images``) with the moved piece's two
    cells changed. A parent whose key moved, or of a symmetric key class, is ranked
    as :func:`_kit_parents_parts_span` ranks them."""
    cells = tables.sym.shape[1]
    sym = tables.sym
    bad = -1
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    images = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    found = np.empty((max_moves, kinds + 1 + out_width - cells), dtype=np.int64)
    last = max_moves - 1
    scratch = np.empty((max_moves + 1, out_width), dtype=np.uint8)
    plans = kit_numbering.plans_of(part_rows, kinds, tables, _KIT_KEYS)
    plan = np.empty(kit_numbering.PLAN, dtype=np.int64)  # the entry's part's
    plan_held = -1
    base_plan = np.empty(kit_numbering.PLAN, dtype=np.int64)  # the turned board's part's
    base_held = -1
    other_plan = np.empty(kit_numbering.PLAN, dtype=np.int64)  # a retyped parent's part's
    other_held = -1
    first_key = tables.order[0]
    second_key = tables.order[1] if _KIT_KEYS == 2 else -1
    for i in range(lo, hi):
        e = entries[i]
        p, plan_held = _kit_parents_entry(e, offsets, part_rows, plans, plan, plan_held, tables, masks, consts,
                                          scratch, decided)
        if p < 0:
            counts_out[i] = 0  # decided by the rules: its parents' scan counted it so
            continue
        want = _kit_parent_key(masks, kinds, tables, swap, turn)
        want_block = -1  # its run of classes, worked out at the first parent whose key moved
        n = _kit_unmoves_moved(masks, part_rows[p], consts, found, scratch)
        for x in range(kinds + 1):
            masks[x] = found[last, x]
        base_code = _kit_part_code(found, last, bits)
        q_base = _kit_part_of_code(base_code, codes, code_part)
        shared = False  # the turned board's key class and images hold
        c, g, row = np.int64(-1), np.int64(0), np.int64(0)
        # (its key where the parents' un-moves keep it: else each parent is checked)
        key_kept, want_block = _kit_key_kept(masks[first_key], want, want_block, tables)
        if q_base >= 0:
            base_held = _kit_take_plan(plans, q_base, base_plan, base_held)
        if q_base >= 0 and key_kept:
            c, g, row = kit_numbering.key_class_of_plan(masks, base_plan, tables, _KIT_KEYS)
            if c >= 0 and tables.class_stab[row] == 1:
                shared = True
                for x in range(1, kinds + 1):
                    images[x] = kit_numbering.image(masks[x], g, sym) if g else masks[x]
        q_other = np.int64(-2)  # the retyped parents' part, once worked out
        m = 0
        for j in range(n):
            k, a, b, r = found[j, 0], found[j, 1], found[j, 2], found[j, 3]
            was = becomes = np.int64(0)
            if r >= 0:
                was, becomes = found[j, 4], found[j, 5]
            _kit_toggle(masks, sym, 0, k, a, b, r, was, becomes)  # the parent's cells
            q = q_base
            keyed = k == first_key or k == second_key
            if r >= 0:
                keyed |= was == first_key or was == second_key or becomes == first_key or becomes == second_key
                if q_other == -2:
                    q_other = _kit_part_of_code(base_code + (np.int64(1) << (bits * (becomes - 1)))
                                                - (np.int64(1) << (bits * (was - 1))), codes, code_part)
                q = q_other
            if q >= 0 and not (decided and _kit_outcome(masks, part_rows[q], consts, scratch) != _KIT_OPEN):
                if r >= 0:
                    other_held = _kit_take_plan(plans, q, other_plan, other_held)
                    held = other_plan
                else:
                    held = base_plan
                if shared and not keyed and held[0] == base_plan[0]:
                    _kit_toggle(images, sym, g, k, a, b, r, was, becomes)
                    found_entry = c * held[1] + kit_numbering.rest_rank(images, held, tables, 0, row)
                    _kit_toggle(images, sym, g, k, a, b, r, was, becomes)  # (its own inverse)
                else:
                    kept, want_block = _kit_key_kept(masks[first_key], want, want_block, tables)
                    if not kept:
                        bad = e
                    found_entry = kit_numbering.entry_of_plan(masks, held, tables, _KIT_KEYS)[0]
                if found_entry < 0:  # left out, yet not decided by the rules
                    bad = e
                else:
                    out[i * width + m] = offsets[q] + found_entry
                    m += 1
            _kit_toggle(masks, sym, 0, k, a, b, r, was, becomes)  # back to the turned board
        counts_out[i] = m
    return bad


def _kit_toggle(sets, sym, g, k, a, b, r, was, becomes):
    """Move a piece of kind k between cells a and b (either way: the change is its own
    inverse) in the cell sets ``sets`` under symmetry g (0: the identity), the empty
    cells' set with it, and, with a cell r >= 0, its piece between kinds ``was`` and
    ``becomes``."""
    moved = (np.int64(1) << sym[g, a]) | (np.int64(1) << sym[g, b])
    sets[k] ^= moved
    sets[0] ^= moved
    if r >= 0:
        sets[was] ^= np.int64(1) << sym[g, r]
        sets[becomes] ^= np.int64(1) << sym[g, r]


def _kit_canonical(entries, counts, tables, out):
    """The canonical entry of the position stored at each of ``entries`` of a tier of
    one part."""
    for piece in prange((len(entries) + _KIT_SPAN - 1) // _KIT_SPAN):
        _kit_canonical_span(piece * _KIT_SPAN, min((piece + 1) * _KIT_SPAN, len(entries)), entries, counts, tables,
                            out)


def _kit_canonical_span(lo, hi, entries, counts, tables, out):
    """:func:`_kit_canonical` of ``entries[lo:hi]``."""
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    plan = _kit_plan(counts, tables)
    for i in range(lo, hi):
        if kit_numbering.masks_of_plan(entries[i], plan, tables, masks, _KIT_KEYS) <= 1:  # (0: no board)
            out[i] = entries[i]
        else:
            out[i] = kit_numbering.entry_of_plan(masks, plan, tables, _KIT_KEYS)[0]


def _kit_canonical_parts(entries, offsets, part_rows, kinds, tables, out):
    """The canonical entry of the position stored at each of ``entries`` of a tier of
    several parts."""
    for piece in prange((len(entries) + _KIT_SPAN - 1) // _KIT_SPAN):
        _kit_canonical_parts_span(piece * _KIT_SPAN, min((piece + 1) * _KIT_SPAN, len(entries)), entries, offsets,
                                  part_rows, kinds, tables, out)


def _kit_canonical_parts_span(lo, hi, entries, offsets, part_rows, kinds, tables, out):
    """:func:`_kit_canonical_parts` of ``entries[lo:hi]``."""
    masks = np.empty(kit_numbering.MAX_KINDS, dtype=np.int64)
    plans = kit_numbering.plans_of(part_rows, kinds, tables, _KIT_KEYS)
    plan = np.empty(kit_numbering.PLAN, dtype=np.int64)
    plan_held = -1
    for i in range(lo, hi):
        e = entries[i]
        p = _kit_part_at(offsets, e)
        plan_held = _kit_take_plan(plans, p, plan, plan_held)
        if kit_numbering.masks_of_plan(e - offsets[p], plan, tables, masks, _KIT_KEYS) <= 1:  # (0: no board)
            out[i] = e
        else:
            out[i] = offsets[p] + kit_numbering.entry_of_plan(masks, plan, tables, _KIT_KEYS)[0]
