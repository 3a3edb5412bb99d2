"""Tiers solved from the game's moves and un-moves, in a few bytes per entry.

The explicit solvers (:mod:`retro.engine.solvers`, :mod:`retro.engine.retrograde`)
expand a tier into its edges and turn them around in memory: about 110 bytes per
entry, too much for nine men's morris (a billion entries in one tier). This solver
keeps two small arrays per entry (the value, and a word holding a level, its state
and a move counter: 6 bytes with 16-bit values) and asks the game for the rest, a
chunk of entries at a time:

* ``scan(first, stop, ...)``: for entries ``first..stop-1``, each one's value if it is
  finished (or that it is a duplicate of a smaller entry of the same position), the
  values of its children out of the tier, and its *counter*: its moves into the
  tier, each weighed by the order of its child's stabiliser and the sum divided by
  the order of its own. That is exactly how often the un-moves of its children
  reach it (a move from P to a position C is found once from each image of P with a
  move to C: ``U(C -> P) = N(P -> [C]) * |Stab C| / |Stab P|``), so a parent's counter
  reaches zero exactly when every one of its moves into the tier is known to lose;
* ``parents(entries, ...)``: for each entry, the entries of the tier with a move to it
  (un-moves, once per move; moves that leave the tier are not undone);
* ``parent_blocks(entries, ...)``: for each entry, the run of the tier that holds its
  parents (nine men's morris: the class of the pieces that moved last).

Then, as in :mod:`retro.engine.retrograde`: an entry with a move out of the tier to a
position lost for the opponent wins in one ply more (the least); moves out to
positions won by the opponent bound how long it resists; a move out to a draw saves
it from losing. Levels are decided in increasing order: a child lost at level L makes
its parents win at L + 1; a child won takes one from its parents' counters, and a
parent whose counter reaches zero (and has no move out to a win or a draw) loses at
the later of L and its resistance, plus one. What is never decided is a draw.

Values are from the side to move's point of view (``2 * plies + 1`` when it wins,
``2 * plies`` when it loses): a child's value is the opponent's. A level's entries are
ordered by the run of their parents, and each thread takes whole runs: the parents it
tells are its own (no two threads touch one) and stay in the cache while their run
lasts. What a level decides does not depend on the order, so the values are the same
whatever the number of threads.

Acyclic tiers (no move back into the tier) need only the scan: :func:`solve_acyclic`.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from ..errors import BuildError
from ..games.protocol import DUPLICATE, OPEN, TierKernels
from ..values import draw_value, max_plies, not_a_position

TERMINAL = -1  # child slot of a child lost at once for its mover (value 0)
LATER = -5  # the scan's finished mark of an entry absorb leaves to a second call
NEVER = 255  # counter of an entry with a move out of the tier to a draw: it never loses

# aux = level | state << 14 | counter << COUNT_SHIFT: one word, so that telling a parent
# touches one cache line, not two
COUNT_SHIFT = 16
UNDECIDED, PENDING_WIN, PENDING_LOSS, DONE = 0, 1, 2, 3
LEVEL_MASK = (1 << 14) - 1
NO_HORIZON = 1 << 62  # a schedule whose lists hold every level


@njit(cache=True, parallel=True)
def absorb(first, finished, counter_in, counts, child_value, width, draw, invalid, levels, values,
           aux, push_entry, push_level):
    """Pass A's verdicts for a chunk of entries: finished ones, wins by a move out of the
    tier, losses with no move into it; the others wait with their resistance. Writes
    the entries to schedule (entry, level) at ``push_*[i]`` (level -1: none). Returns
    -1, -2 for a child that is not a position, or an entry past ``levels`` plies."""
    status = -1
    for i in prange(len(finished)):
        e = first + i
        push_level[i] = -1
        push_entry[i] = e
        f = finished[i]
        if f == LATER:
            continue
        if f == DUPLICATE:
            values[e] = invalid
            aux[e] = DONE << 14
            continue
        if f != OPEN:
            values[e] = f
            aux[e] = (DONE << 14) | (f >> 1)
            if f >> 1 == 0:  # lost at once: its moves are undone at level 0 (a longer finished value's are not)
                push_level[i] = 0
            continue
        fastest = levels + 1
        resist = -1
        drawn = False
        for k in range(min(counts[i], width)):
            v = np.int64(child_value[i * width + k])
            if v == draw:
                drawn = True
            elif v == invalid:
                status = -2
            elif v & 1:  # won for the child's mover, the opponent
                resist = max(resist, v >> 1)
            else:
                fastest = min(fastest, (v >> 1) + 1)
        n = counter_in[i]
        values[e] = draw
        if fastest <= levels:
            aux[e] = (PENDING_WIN << 14) | fastest
            push_level[i] = fastest
        elif n == 0 and not drawn:
            if resist + 1 > levels:
                status = e
            aux[e] = (PENDING_LOSS << 14) | (resist + 1)
            push_level[i] = resist + 1
        else:
            aux[e] = (UNDECIDED << 14) | (resist + 1) | ((NEVER if drawn else n) << COUNT_SHIFT)
    return status


@njit(cache=True, parallel=True)
def confirm(items, level, values, aux):
    """The items of a level's list decided at that level: pending verdicts become
    values; finished entries (level 0) pass as they are. (A list holds an entry at most
    once, so the items are independent.)"""
    keep = np.empty(len(items), dtype=np.bool_)
    for i in prange(len(items)):
        e = items[i]
        a = aux[e]
        state = (a >> 14) & 3
        keep[i] = False
        if (a & LEVEL_MASK) != level:
            continue
        if state == PENDING_WIN:
            values[e] = 2 * level + 1
        elif state == PENDING_LOSS:
            values[e] = 2 * level
        elif not (state == DONE and level == 0):
            continue
        aux[e] = (DONE << 14) | level
        keep[i] = True
    return items[keep]


@njit(cache=True, parallel=True)
def apply(children_of, counts, width, lost, cuts, level, levels, aux, push_entry, push_level,
          pushed):
    """Tell the parents (``children_of[i * width:][:counts[i]]``) of a level's decided
    entries: a lost child makes them win at ``level + 1``, a won one takes one from
    their counters. Thread t takes the entries ``cuts[t]:cuts[t + 1]`` (whose parents no
    other thread's entries have) and writes what it schedules from ``push_*[t * cap]``;
    returns -1 or an entry past ``levels`` plies."""
    threads = len(cuts) - 1
    cap = len(push_entry) // threads
    status = -1
    for t in prange(threads):
        n = 0
        for i in range(cuts[t], cuts[t + 1]):
            for k in range(counts[i]):
                p = children_of[i * width + k]
                a = aux[p]
                state = (a >> 14) & 3
                if state == DONE or state == PENDING_LOSS:
                    continue
                if lost[i]:
                    if state == UNDECIDED or (a & LEVEL_MASK) > level + 1:
                        if level + 1 > levels:
                            status = p
                            continue
                        aux[p] = (PENDING_WIN << 14) | (level + 1)
                        push_entry[t * cap + n] = p
                        push_level[t * cap + n] = level + 1
                        n += 1
                elif state == UNDECIDED and (a >> COUNT_SHIFT) != NEVER:
                    if (a >> COUNT_SHIFT) > 1:
                        aux[p] = a - (1 << COUNT_SHIFT)
                    else:
                        at = max(level, (a & LEVEL_MASK) - 1) + 1
                        if at > levels:
                            status = p
                            continue
                        aux[p] = (PENDING_LOSS << 14) | at
                        push_entry[t * cap + n] = p
                        push_level[t * cap + n] = at
                        n += 1
        pushed[t] = n
    return status


@njit(cache=True)
def by_bucket(items, keys, shift, buckets):
    """``items`` ordered by their bucket ``keys >> shift`` (stable, a counting sort), and
    where each bucket starts in that order (and the last ends)."""
    start = np.zeros(buckets + 1, dtype=np.int64)
    for k in keys:
        start[(k >> shift) + 1] += 1
    for b in range(buckets):
        start[b + 1] += start[b]
    bounds = start.copy()
    out = np.empty_like(items)
    for i in range(len(items)):
        b = keys[i] >> shift
        out[start[b]] = items[i]
        start[b] += 1
    return out, bounds


@njit(cache=True)
def thread_cuts(bounds, first, stop, cuts):
    """Cut the entries ``first:stop`` of a bucket-ordered group (``bounds``: where its
    buckets start) into one share per thread, ``first + cuts[t]:first + cuts[t + 1]``,
    about even and never inside a bucket: no two threads then touch one parent."""
    threads = len(cuts) - 1
    cuts[0] = 0
    for t in range(1, threads):
        target = first + (stop - first) * t // threads
        c = bounds[np.searchsorted(bounds, target)]  # the first bucket start from there
        cuts[t] = max(min(c, stop) - first, cuts[t - 1])
    cuts[threads] = stop - first


@njit(cache=True, parallel=True)
def fill_duplicates(entries, canonical, values):
    for i in prange(len(entries)):
        values[entries[i]] = values[canonical[i]]


@njit(cache=True)
def _by_level(entries, levels, horizon):
    """The entries with a level (``levels >= 0``) below ``horizon`` as uint32, grouped by
    level (a counting sort, stable): ``(grouped, the levels found, where each one's
    group starts and the last ends, whether an entry at the horizon or after was left
    out)``."""
    low, high = np.int64(1) << 62, np.int64(-1)
    beyond = False
    for v in levels:
        if v >= horizon:
            beyond = True
        elif v >= 0:
            low = min(low, v)
            high = max(high, v)
    if high < 0:
        return np.empty(0, dtype=np.uint32), np.empty(0, dtype=np.int64), np.zeros(1, dtype=np.int64), beyond
    start = np.zeros(high - low + 2, dtype=np.int64)
    for v in levels:
        if 0 <= v < horizon:
            start[v - low + 1] += 1
    found = np.flatnonzero(start[1:]) + low
    for b in range(high - low + 1):
        start[b + 1] += start[b]
    grouped = np.empty(start[high - low + 1], dtype=np.uint32)
    for i in range(len(entries)):
        v = levels[i]
        if 0 <= v < horizon:
            grouped[start[v - low]] = entries[i]
            start[v - low] += 1
    # After the fill, start[b] is where level b + low's group ends.
    bounds = np.zeros(len(found) + 1, dtype=np.int64)
    for j in range(len(found)):
        bounds[j + 1] = start[found[j] - low]
    return grouped, found, bounds, beyond


@njit(cache=True, parallel=True)
def pending_levels(aux, low, blocks):
    """How many entries wait with a pending verdict at each level from ``low`` on
    (``out[level - low]``), counted by ``blocks`` threads."""
    width = LEVEL_MASK + 1 - low
    counts = np.zeros((blocks, width), dtype=np.int64)
    step = (len(aux) + blocks - 1) // blocks
    for b in prange(blocks):
        for e in range(b * step, min(len(aux), (b + 1) * step)):
            a = aux[e]
            state = (a >> 14) & 3
            if state == PENDING_WIN or state == PENDING_LOSS:
                level = np.int64(a & LEVEL_MASK)
                if level >= low:
                    counts[b, level - low] += 1
    out = np.zeros(width, dtype=np.int64)
    for b in range(blocks):
        out += counts[b]
    return out


@njit(cache=True)
def collect_pending(aux, start, low, high, out):
    """The entries from ``start`` on with a pending verdict at a level of
    ``low..high-1`` into ``out`` (at most its length): ``(how many, where the search
    stopped)``."""
    n = 0
    e = start
    while e < len(aux) and n < len(out):
        a = aux[e]
        state = (a >> 14) & 3
        if state == PENDING_WIN or state == PENDING_LOSS:
            level = np.int64(a & LEVEL_MASK)
            if low <= level < high:
                out[n] = e
                n += 1
        e += 1
    return n, e


class _Schedule:
    """The entries to decide, one list per level (chunks of arrays), held as uint32 (a
    tier has fewer than 2**32 entries; the largest of nine men's morris may have most of
    its 10**9 entries waiting at once) and handed out as int64, one level at a time.

    With a ``budget`` (entries), the lists hold at most about that many: when they
    would hold more, the farthest levels' lists are let go and every level from the
    *horizon* on waits in ``aux`` alone (its pending verdict holds its level). When the
    solve reaches the horizon, a pass over ``aux`` counts the entries waiting at each
    level from there, and the levels that fit the budget are gathered into lists again;
    a level larger than the budget by itself is handed out straight from ``aux``, a
    piece at a time. What a level decides does not depend on the order of its entries,
    so the values are the same with a budget or without."""

    def __init__(self, aux: np.ndarray | None = None, budget: int | None = None) -> None:
        self.lists: dict[int, list] = {}
        self.aux = aux
        self.budget = budget
        self.held = 0  # entries in the lists
        self.horizon = NO_HORIZON  # levels from here on wait in aux alone
        self.beyond = False  # whether an entry may wait at the horizon or after

    def add(self, entries: np.ndarray, levels: np.ndarray) -> None:
        grouped, found, bounds, beyond = _by_level(entries, levels, self.horizon)
        self.beyond |= beyond
        for j in range(len(found)):
            # A copy: a view would hold all of ``grouped`` until its last level is done.
            self.lists.setdefault(int(found[j]), []).append(grouped[bounds[j]:bounds[j + 1]].copy())
        self.held += len(grouped)
        # Level 0 is never let go: its finished entries are not pending in aux.
        while self.budget is not None and self.held > self.budget and max(self.lists, default=0) > 0:
            farthest = max(self.lists)
            self.held -= sum(len(part) for part in self.lists.pop(farthest))
            self.horizon, self.beyond = farthest, True

    def pop(self, level: int, most: int, keep):
        """A level's entries that ``keep`` keeps (it takes int64 entries, returns those
        it keeps), at most ``most`` at a time. The lists are let go as they are handed
        out: a level can hold a good part of the tier, and an int64 copy of all of it
        at once was the largest thing the solver held."""
        if level >= self.horizon:
            streamed = self._gather(level, most)
            if streamed:
                yield from self._from_aux(level, most, keep)
                return
        parts = self.lists.pop(level, [])
        self.held -= sum(len(part) for part in parts)
        parts.reverse()
        held, n = [], 0
        while parts:
            part = parts.pop()
            if len(part) > most:
                parts.append(part[most:])
                part = part[:most]
            kept = keep(part.astype(np.int64))
            if n + len(kept) > most:
                yield np.concatenate(held)
                held, n = [], 0
            held.append(kept)
            n += len(kept)
        if n:
            yield np.concatenate(held)

    def _gather(self, level: int, most: int) -> bool:
        """At the horizon: the levels from ``level`` on that fit the budget into lists,
        and the horizon after them. True when ``level`` alone is over the budget (its
        entries are then handed out straight from ``aux``)."""
        counts = pending_levels(self.aux, level, numba.get_num_threads())
        waiting = np.flatnonzero(counts)
        if not len(waiting):
            self.horizon, self.beyond = NO_HORIZON, False
            return False
        if counts[0] > self.budget:
            self.horizon, self.beyond = level + 1, True
            return True
        fit = int(np.searchsorted(np.cumsum(counts), self.budget, side="right"))
        last = int(waiting[-1]) + 1
        self.horizon, self.beyond = (NO_HORIZON, False) if fit >= last else (level + fit, True)
        out = np.empty(min(CHUNK, len(self.aux)), dtype=np.int64)
        start = 0
        while start < len(self.aux):
            n, start = collect_pending(self.aux, start, level, level + fit, out)
            self.add(out[:n], (self.aux[out[:n]] & LEVEL_MASK).astype(np.int64))
        return False

    def _from_aux(self, level: int, most: int, keep):
        """The entries waiting at ``level`` (larger than the budget), a piece at a time."""
        out = np.empty(min(most, len(self.aux)), dtype=np.int64)
        start = 0
        while start < len(self.aux):
            n, start = collect_pending(self.aux, start, level, level + 1, out)
            kept = keep(out[:n].copy())
            if len(kept):
                yield kept

    def __bool__(self) -> bool:
        return bool(self.lists) or self.beyond


CHUNK = 1 << 18
# Entries whose moves are undone are taken GROUP at a time and ordered by where their
# parents lie (2**BUCKET_BITS runs of the tier): a run's counters then stay in the
# cache while its parents are told, where in the order the levels hand them out each
# parent update was a cache miss.
GROUP = 1 << 23
BUCKET_BITS = 16


def _scan_chunks(source: TierKernels, dtype, on_chunk) -> np.ndarray:
    """Run the scan over the tier in chunks; ``on_chunk(first, finished, counter, counts,
    child_values, width)`` takes each. Entries with more moves out than the width are
    scanned again with room for all."""
    width = source.moves_width
    size = source.size
    finished = np.empty(CHUNK, dtype=np.int64)
    counter = np.empty(CHUNK, dtype=np.int64)
    counts = np.empty(CHUNK, dtype=np.int64)
    child_values = np.empty(CHUNK * width, dtype=dtype)
    duplicates = []
    entry_type = np.uint32 if size < 1 << 32 else np.int64
    for first in range(0, size, CHUNK):
        stop = min(first + CHUNK, size)
        n = stop - first
        bad = source.scan(first, stop, width, finished[:n], counter[:n], counts[:n], child_values)
        if bad >= 0:
            raise BuildError(f"{source.name}: the moves of entry {bad} do not weigh up (an index bug)")
        over = np.flatnonzero(counts[:n] > width)
        # Entries with more moves out than the room are left to the rescan below (so
        # that each is scheduled once).
        saved = finished[over]
        finished[over] = LATER
        on_chunk(first, finished[:n], counter[:n], counts[:n], child_values, width)
        finished[over] = saved
        for i in over.tolist():  # rare: more moves out of the tier than the room
            big = int(counts[i])
            f1, c1, n1 = (np.empty(1, dtype=np.int64) for _ in range(3))
            v1 = np.empty(big, dtype=dtype)
            source.scan(first + i, first + i + 1, big, f1, c1, n1, v1)
            on_chunk(first + i, f1, c1, n1, v1, big)
        # uint32 where it holds them: a quarter of a game's entries may be duplicates
        duplicates.append((first + np.flatnonzero(finished[:n] == DUPLICATE)).astype(entry_type))
    return np.concatenate(duplicates) if duplicates else np.empty(0, dtype=entry_type)


def _fill_duplicates(source: TierKernels, duplicates: np.ndarray, values: np.ndarray) -> None:
    """Each duplicate entry takes its canonical entry's value, a chunk at a time (the
    canonical entries of all of them at once were as large as the list)."""
    for start in range(0, len(duplicates), CHUNK * 16):
        entries = duplicates[start:start + CHUNK * 16].astype(np.int64)
        fill_duplicates(entries, source.canonical_of(entries), values)


def solve_loopy(source: TierKernels, dtype, advance=None, after_scan=None) -> np.ndarray:
    """The values of a loopy tier (see the module docstring); ``after_scan()`` is called
    once the scan is done (the children are not read after it)."""
    size = source.size
    levels = min(max_plies(dtype), LEVEL_MASK - 1)
    draw, invalid = draw_value(dtype), not_a_position(dtype)
    values = np.empty(size, dtype=dtype)
    aux = np.empty(size, dtype=np.uint32)
    if size >= 1 << 32:
        raise BuildError(f"{source.name}: {size:,} entries, more than the solver's schedule holds (2**32)")
    schedule = _Schedule(aux, source.schedule_budget)
    push_entry = np.empty(CHUNK, dtype=np.int64)
    push_level = np.empty(CHUNK, dtype=np.int64)

    def on_chunk(first, finished, count_in, counts, child_values, width):
        if count_in.max(initial=0) >= NEVER:
            raise BuildError(f"{source.name}: an entry has {int(count_in.max())} moves into its tier, "
                             f"more than the solver's counters hold ({NEVER - 1})")
        n = len(finished)
        status = absorb(first, finished, count_in, counts, child_values, width, draw, invalid,
                        levels, values, aux, push_entry[:n], push_level[:n])
        _check(status, source, levels)
        schedule.add(push_entry[:n], push_level[:n])
        if advance is not None:
            advance(n)

    duplicates = _scan_chunks(source, dtype, on_chunk)
    if after_scan is not None:
        after_scan()
    threads = numba.get_num_threads()
    width = source.parents_width
    batch = max(1, CHUNK // 4)
    found = np.empty(batch * width, dtype=np.uint32)  # entries of a tier: < 2**32
    counts = np.empty(batch, dtype=np.int64)
    cap = batch * width
    out_entry = np.empty(threads * cap, dtype=np.int64)
    out_level = np.empty(threads * cap, dtype=np.int64)
    pushed = np.empty(threads, dtype=np.int64)
    level = 0
    shift = max(0, size.bit_length() - BUCKET_BITS)
    keys = np.empty(min(GROUP, size), dtype=np.int64)
    cuts = np.empty(threads + 1, dtype=np.int64)
    while schedule:
        # What a level decides goes to later levels only, so its list is complete here.
        for group in schedule.pop(level, GROUP, lambda items: confirm(items, level, values, aux)):
            source.parent_blocks(group, keys[:len(group)])
            group, bounds = by_bucket(group, keys[:len(group)], shift, 1 << BUCKET_BITS)
            for start in range(0, len(group), batch):
                part = group[start:start + batch]
                n = len(part)
                source.parents(part, width, found, counts[:n])
                lost = (values[part] & 1) == 0
                thread_cuts(bounds, start, start + n, cuts)
                status = apply(found, counts[:n], width, lost, cuts, level, levels, aux, out_entry,
                               out_level, pushed)
                _check(status, source, levels)
                for t in range(threads):
                    k = int(pushed[t])
                    schedule.add(out_entry[t * cap:t * cap + k], out_level[t * cap:t * cap + k])
        level += 1
    _fill_duplicates(source, duplicates, values)
    return values


def solve_acyclic(source: TierKernels, dtype, advance=None) -> np.ndarray:
    """The values of a tier none of whose moves lead back into it: each entry's from its
    children's, one scan."""
    levels = min(max_plies(dtype), LEVEL_MASK - 1)
    draw, invalid = draw_value(dtype), not_a_position(dtype)
    values = np.empty(source.size, dtype=dtype)
    aux = np.empty(source.size, dtype=np.uint32)
    push_entry = np.empty(CHUNK, dtype=np.int64)
    push_level = np.empty(CHUNK, dtype=np.int64)

    def on_chunk(first, finished, count_in, counts, child_values, width):
        if count_in.any():
            raise BuildError(f"{source.name}: a move leads back into the tier, which is not loopy")
        n = len(finished)
        status = absorb(first, finished, count_in, counts, child_values, width, draw, invalid,
                        levels, values, aux, push_entry[:n], push_level[:n])
        _check(status, source, levels)
        if advance is not None:
            advance(n)

    duplicates = _scan_chunks(source, dtype, on_chunk)
    _settle(values, aux)
    _fill_duplicates(source, duplicates, values)
    return values


@njit(cache=True, parallel=True)
def _settle(values, aux):
    """Pending verdicts of an acyclic tier become values (nothing can change them)."""
    for e in prange(len(values)):
        a = aux[e]
        state = (a >> 14) & 3
        if state == PENDING_WIN:
            values[e] = 2 * (a & LEVEL_MASK) + 1
        elif state == PENDING_LOSS:
            values[e] = 2 * (a & LEVEL_MASK)


def _check(status: int, source: TierKernels, levels: int) -> None:
    if status == -2:
        raise BuildError(f"{source.name}: a move leads into an entry that is not a position: the "
                         "game's index is wrong")
    if status >= 0:
        raise BuildError(f"{source.name}: entry {status} needs a distance of more than {levels} plies")
