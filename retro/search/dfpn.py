"""A second independent weak solver: depth-first proof-number search (df-pn).

Proof-number search follows the cheapest proof. Every node carries two numbers for
the question "does the side to move win?": the *proof number* φ, how many leaves at
least must still be shown won to prove it, and the *disproof number* δ, how many to
refute it. In the negamax form used here both are the side to move's, so every node
is an OR node for its mover and an AND node for the opponent:

* a won position has (φ, δ) = (0, ∞), a lost one (∞, 0);
* an inner node has φ = min over the children of their δ (one refuted reply is a
  win) and δ = Σ of their φ (every reply must be shown to win for the opponent).

Nagai's df-pn (2002) searches depth-first with thresholds instead of walking down
from the root each time: a node is searched until its φ or δ reaches its
thresholds, and the child with the smallest δ is searched with the thresholds

    φ-threshold = δ-threshold(node) − δ(node) + φ(child)
    δ-threshold = min(φ-threshold(node), max(δ₂ + 1, ⌈δ₂ · (1 + ε)⌉))

where δ₂ is the second smallest δ among the children. Nagai used δ₂ + 1; the factor
1 + ε (Pawlewicz and Lew, 2007) lets the search stay longer in a subtree before
switching to a sibling whose numbers are barely larger, which cuts the
re-expansions that make plain df-pn thrash (ε was chosen by measurement, see
``DEFAULT_EPSILON``). Three Musketeers suits proof-number search: the musketeers
only capture, so they have few moves, and the narrow proofs of an enemy win are
found first. A fresh node's numbers come from a one-ply look ahead (see
``_fresh``, INIT_LOOKAHEAD): a capture that lines the musketeers up loses at once,
so only their other captures need refuting, and an enemy step that leaves no
capture loses, one that leaves only such captures wins. Ties go to the move that
alpha-beta would try first. (On the start, this look ahead expands about 30 % fewer
nodes than δ = the number of legal moves, and decides exact distances about twice
as fast; ``benchmarks/weak_vs_retro.py`` measures the default.)

The numbers of searched nodes live in a transposition table of bounded size, keyed
by the canonical image of the position under the 8 symmetries (the side to move
included) and hashed with Zobrist keys. A bucket holds two entries of 32 bytes on
one 64-byte cache line, and a node's children's buckets are prefetched together
before any is read. A new entry replaces the one with the least work under it (the
nodes expanded to compute it, summed over its searches), so that expensive results
near the root survive while the cheap leaves near the frontier are recomputed.

Every musketeer move captures, so the game graph is acyclic: the graph-history
interaction that makes df-pn unsound with repetitions cannot arise, and a table
entry is valid wherever the position recurs.

**Exact distances.** "Does the winner W win within d plies?" is a proof-number
question too, with the remaining budget as part of the node: at W's turn the
question is "W wins within d", at the loser's "the loser survives d plies", each a
win for the side to move exactly when some move answers the child's question no.
An unfinished position with d = 0 is a win for the loser. Every path from the root
to a position has the same length (each musketeer move captures one man), so within
one search a position always meets the same budget. Each table entry keeps, beside
its numbers (valid for the budget they were computed at), what is known for *every*
budget: the least d at which W was shown to win (W then wins within any larger
budget) and the greatest at which W was shown not to (nor within any smaller one),
so every search of a bisection over d inherits the bounds of the earlier ones. The
distance is the least d proven, with d − 1 disproven.

Shares the game primitives of :mod:`retro.games` and the Zobrist hashing and
:class:`~retro.alphabeta.Solution` of :mod:`retro.alphabeta`, and no code with the
retrograde builder or the database.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from . import games
from ..games.musketeers import rules
from .alphabeta import WIN, SearchStats, Solution, plies_of, prefetch, winner_of, zobrist_hash
from ..bits import lowest_bit_index, popcount, triple_rank
from .games import GameTables, generate, result, terminal
from ..games.musketeers.position import Position, Side, as_position

INFINITY = (1 << 31) - 1  # a proof or disproof number that can never be met
LARGE = INFINITY - 1  # where sums saturate: "very hard", but still finite
DEFAULT_TABLE_BITS = 24  # 2**24 entries of 32 bytes: 512 MiB, as alpha-beta's default CLI table
DEFAULT_EPSILON = 0.25
MAX_PLY = 128
WAYS = 2  # entries per 64-byte bucket
NO_DEPTH = -1  # who-wins questions have no budget

# Entry words: KEY (the canonical state and the question asked of it), NUMBERS
# (φ | δ << 32), BOUNDS (see _bounds) and WORK (nodes expanded under the entry).
KEY, NUMBERS, BOUNDS, WORK = 0, 1, 2, 3
# Question tags in the key's high bits: who wins, or "does the musketeers' (the
# enemy's) side win within d plies".
WHO_WINS, MUSKETEERS_WITHIN, ENEMY_WITHIN = 1, 2, 3
TAG_SHIFT = 56
UNKNOWN_WIN = 255  # BOUNDS: no budget known within which W wins
# Initial numbers of a fresh node.
INIT_ONE, INIT_MOBILITY, INIT_LOOKAHEAD, INIT_DEEP = 0, 1, 2, 3
DEFAULT_INIT = INIT_LOOKAHEAD  # measured fastest: see the module's docstring
# ctx.stats counters.
NODES, CHILDREN, PROBES, HITS, STORES, REPLACEMENTS = range(6)
STAT_COUNT = 6

_ZOBRIST_SEED = 20020901  # any fixed seed: hashing must be reproducible, not secret


class Context(NamedTuple):
    """The search state handed to the jitted df-pn."""

    table: np.ndarray  # int64 (buckets, WAYS, 4)
    zobrist: np.ndarray  # int64 (8, 256)
    captures: np.ndarray  # int64 (trios, 6): see capture_masks
    frames: np.ndarray  # int64 (MAX_PLY, FRAME_FIELDS): the explicit recursion stack
    moves: np.ndarray  # int64 (MAX_PLY, MAX_MOVES)
    order: np.ndarray  # int64 (MAX_PLY, MAX_MOVES): tie-break between equal δ, lower first
    keys: np.ndarray  # int64 (MAX_PLY, MAX_MOVES): the children's table keys (0: settled)
    buckets: np.ndarray  # int64 (MAX_PLY, MAX_MOVES): their buckets
    phi: np.ndarray  # int64 (MAX_PLY, MAX_MOVES): the children's φ
    delta: np.ndarray  # int64 (MAX_PLY, MAX_MOVES): the children's δ
    states: np.ndarray  # int64 (MAX_PLY, MAX_MOVES): the children
    scores: np.ndarray  # int64 (MAX_MOVES,): scratch for move ordering
    buffer: np.ndarray  # int64 (MAX_MOVES,): scratch for move generation
    stats: np.ndarray  # int64 (STAT_COUNT,)
    epsilon: float  # the 1 + ε threshold factor
    init: int  # INIT_ONE, INIT_MOBILITY, INIT_LOOKAHEAD or INIT_DEEP
    weak: bool  # δ = max φ + (unsolved children − 1) (weak proof numbers) instead of Σ φ


@lru_cache(maxsize=None)
def capture_masks(size: int) -> np.ndarray:
    """Per musketeer trio (by colex rank, as :func:`retro.bits.triple_rank`), per
    musketeer (lowest square first): the squares it would capture on, then those of
    them where the capture does not line the three up ("safe" captures); then the
    unions of both over the three musketeers."""
    tables = games.game_tables(games.MUSKETEERS, size)
    squares = size * size

    # rules.in_line and triple_rank in plain Python: calling the jitted ones from here,
    # once per square, makes this table take seconds instead of 0.1 s.
    def in_line(bb: int) -> bool:
        low = (bb & -bb).bit_length() - 1
        return (bb & int(tables.row_mask[low])) == bb or (bb & int(tables.col_mask[low])) == bb

    out = np.zeros((squares * (squares - 1) * (squares - 2) // 6, 8), dtype=np.int64)
    for c in range(squares):
        for b in range(c):
            for a in range(b):
                trio = (1 << a) | (1 << b) | (1 << c)
                rank = a + b * (b - 1) // 2 + c * (c - 1) * (c - 2) // 6  # triple_rank(trio)
                for i, s in enumerate((a, b, c)):
                    near = int(tables.neighbour_mask[s]) & ~trio
                    safe = sum(1 << t for t in range(squares)
                               if near >> t & 1 and not in_line(trio ^ (1 << s) ^ (1 << t)))
                    out[rank, i], out[rank, 3 + i] = near, safe
                out[rank, 6] = out[rank, 0] | out[rank, 1] | out[rank, 2]
                out[rank, 7] = out[rank, 3] | out[rank, 4] | out[rank, 5]
    return out


# --- the game, through games.py's primitives ---------------------------------------------
#
# What the search calls for every child is inlined into it (calls cost a quarter of
# each at one call site only: numba inlines per call site, and games.py's primitives,
# written for one search serving three games, would otherwise multiply the compile time.


@njit(cache=True)
def _generate(state, n, full, not_first, not_last, row_mask, col_mask, out):
    return games._generate(state, games.MUSKETEERS, n, full, not_first, not_last, row_mask,
                           col_mask, out)


@njit(cache=True, inline="always")
def _result(state, move):
    return games._result(state, move, games.MUSKETEERS)


@njit(cache=True)
def _key(state, tag, full, symmetry_bytes, trios):
    """The table key of ``state``: its canonical image, tagged with the question.

    games._canonical's Three Musketeers branch (a test checks that they agree),
    without the other games' branches, which cost seconds of compile time here.
    """
    musketeers = (state >> games.MUSKETEER_SHIFT) & full
    enemies = state >> games.ENEMY_SHIFT
    trio = triple_rank(musketeers)
    best_sym = trios[trio, 0]
    best = games._image(enemies, best_sym, symmetry_bytes)
    for i in range(1, 8):
        sym = trios[trio, i]
        if sym < 0:
            break
        best = min(best, games._image(enemies, sym, symmetry_bytes))
    moved = games._image(musketeers, best_sym, symmetry_bytes)
    return ((state & 1) | (moved << games.MUSKETEER_SHIFT) | (best << games.ENEMY_SHIFT)
            | (tag << TAG_SHIFT))


@njit(cache=True)
def table_key(state, tag, g):
    """:func:`_key` for callers outside the search (and the tests)."""
    return _key(state, tag, g.full, g.symmetry_bytes, g.trio_symmetries)


@njit(cache=True)
def _scores(state, full, row_mask, col_mask, neighbour_mask, moves, count, scores):
    games._scores(state, games.MUSKETEERS, full, row_mask, col_mask, neighbour_mask, moves,
                  count, scores)


# --- the table --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _probe(table, bucket, key, budget, winner_to_move):
    """(found, φ, δ) for ``key`` in ``bucket``: the stored numbers when they answer
    this budget, or what is known for every budget when that settles it."""
    for way in range(WAYS):
        if table[bucket, way, KEY] == key:
            numbers = table[bucket, way, NUMBERS]
            if budget == NO_DEPTH:
                return True, numbers & 0xFFFFFFFF, numbers >> 32
            bounds = table[bucket, way, BOUNDS]
            settled = -1  # whether the mover wins, when what is known settles it
            if budget >= (bounds >> 8) & 0xFF:  # W wins within less, so within this too
                settled = 1 if winner_to_move else 0
            elif budget <= ((bounds >> 16) & 0xFF) - 1:  # nor within more
                settled = 0 if winner_to_move else 1
            if settled >= 0:
                phi = 0 if settled else INFINITY
                return True, phi, INFINITY - phi
            if (bounds & 0xFF) - 1 == budget:
                return True, numbers & 0xFFFFFFFF, numbers >> 32
            break
    return False, 0, 0


@njit(cache=True, inline="always")
def _store(table, bucket, key, phi, delta, depth, win_from, no_win_upto, work):
    """Keep a node's numbers: in its own entry (adding the work, merging what is known
    for every budget), else in an empty entry, else in place of the one with least
    work. True when another position's entry was replaced."""
    victim = -1
    for way in range(WAYS):
        if table[bucket, way, KEY] == key:
            victim = way
            bounds = table[bucket, way, BOUNDS]
            win_from = min(win_from, (bounds >> 8) & 0xFF)
            no_win_upto = max(no_win_upto, ((bounds >> 16) & 0xFF) - 1)
            work += table[bucket, way, WORK]
            break
    replaced = False
    if victim < 0:
        for way in range(WAYS):
            if table[bucket, way, KEY] == 0:
                victim = way
                break
    if victim < 0:
        victim = 0
        for way in range(1, WAYS):
            if table[bucket, way, WORK] < table[bucket, victim, WORK]:
                victim = way
        replaced = True
    table[bucket, victim, KEY] = key
    table[bucket, victim, NUMBERS] = phi | (delta << 32)
    # BOUNDS: the budget the numbers are for, the least budget within which W is known
    # to win (UNKNOWN_WIN: none) and the greatest within which W is known not to (+ 1).
    table[bucket, victim, BOUNDS] = (depth + 1) | (win_from << 8) | ((no_win_upto + 1) << 16)
    table[bucket, victim, WORK] = work
    return replaced


# --- fresh nodes ------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _move_count(state, n, full, not_first, not_last):
    """Legal moves of an unfinished Three Musketeers state, by popcounts."""
    return rules.move_count(state & 1, (state >> games.MUSKETEER_SHIFT) & full,
                            state >> games.ENEMY_SHIFT, n, full, not_first, not_last)


@njit(cache=True, inline="always")
def _count(captures, rank, first, bb):
    """Captures onto ``bb`` by the musketeer trio ``rank``: all of them (``first`` = 0)
    or the safe ones (``first`` = 3), see :func:`capture_masks`."""
    return (popcount(captures[rank, first] & bb) + popcount(captures[rank, first + 1] & bb)
            + popcount(captures[rank, first + 2] & bb))


@njit(cache=True, inline="always")
def _musketeer_guess(safe_captures, budget, winner):
    """(φ, δ) of a fresh musketeers-to-move node with ``safe_captures`` captures that
    do not line them up: each must be refuted, and with none they have lost."""
    if safe_captures == 0:
        return INFINITY, 0
    if budget == 1 and winner == 1:  # they survive this ply: the enemy did not win within 1
        return 0, INFINITY
    return 1, safe_captures


@njit(cache=True, inline="always")
def _enemy_forces(captures, rank, enemies, empty, n, full, not_first, not_last):
    """Whether the enemy to move, against the musketeer trio ``rank``, has a step after
    which the musketeers can capture but every capture lines them up (a win in two
    plies), by set operations on the unions of capture_masks."""
    near, safe = captures[rank, 6], captures[rank, 7]
    on_safe = enemies & safe
    if on_safe & (on_safe - 1):
        return False  # two men on safe squares: one step cannot clear both
    free = empty & ~safe  # a step must not land on a safe square
    if on_safe:  # the one man there must step off, leaving some man to capture
        arrivals = rules.reach(on_safe, n, full, not_first, not_last) & free
        return arrivals != 0 and ((enemies & near & ~on_safe) != 0 or (arrivals & near) != 0)
    exposed = enemies & near  # the men the musketeers could capture now
    if exposed & (exposed - 1):  # two or more: any step keeps one there
        return (rules.reach(enemies, n, full, not_first, not_last) & free) != 0
    if exposed:  # one: another man steps, or it steps next to a musketeer again
        others = rules.reach(enemies & ~exposed, n, full, not_first, not_last) & free
        return others != 0 or (rules.reach(exposed, n, full, not_first, not_last) & free & near) != 0
    return (rules.reach(enemies, n, full, not_first, not_last) & free & near) != 0


@njit(cache=True)
def _fresh(state, budget, winner, init, captures, n, full, not_first, not_last):
    """(φ, δ) of an unfinished node the table knows nothing of.

    INIT_LOOKAHEAD: a capture that lines the musketeers up loses at once, so only the
    others ("safe" captures) need refuting, and a musketeers' node starts at δ = its
    safe captures (none: lost). An enemy node looks one step ahead: a step after
    which the musketeers cannot capture loses at once, one after which every capture
    lines them up wins in two plies; otherwise φ is the fewest safe captures a step
    leaves, and δ the steps that do not lose at once, each to be refuted.
    """
    if init == INIT_ONE:
        return 1, 1
    if init == INIT_MOBILITY:
        return 1, _move_count(state, n, full, not_first, not_last)
    musketeers = (state >> games.MUSKETEER_SHIFT) & full
    enemies = state >> games.ENEMY_SHIFT
    rank = triple_rank(musketeers)
    if state & 1 == 0:
        phi, delta = _musketeer_guess(_count(captures, rank, 3, enemies), budget, winner)
        if init == INIT_LOOKAHEAD or phi == 0 or delta == 0:
            return phi, delta
        # INIT_DEEP: a safe capture the enemy answers with a forcing step costs nothing
        # to refute, and if every one is so answered the enemy wins within 3 plies.
        unanswered = 0
        rest = musketeers
        for i in range(3):
            source = rest & -rest
            rest ^= source
            targets = captures[rank, 3 + i] & enemies
            while targets:
                target = targets & -targets
                targets ^= target
                moved = musketeers ^ source ^ target
                left = enemies ^ target
                if not _enemy_forces(captures, triple_rank(moved), left, full & ~(moved | left),
                                     n, full, not_first, not_last):
                    unanswered += 1
        if unanswered > 0:
            return 1, unanswered
        if budget == NO_DEPTH or winner == 0 or budget >= 3:
            return INFINITY, 0
        return 1, 1
    if budget == 1 and winner == 1:  # an enemy step never wins at once
        return INFINITY, 0
    empty = full & ~(musketeers | enemies)
    best, steps = INFINITY, 0
    for direction in range(4):
        arrivals = rules.step(enemies, direction, n, full, not_first, not_last) & empty
        step = rules.step_offset(direction, n)
        while arrivals:
            b = lowest_bit_index(arrivals)
            arrivals &= arrivals - 1
            after = enemies ^ (np.int64(1) << b) ^ (np.int64(1) << (b - step))
            if _count(captures, rank, 0, after) == 0:
                continue  # the musketeers cannot capture: they have won
            safe_captures = _count(captures, rank, 3, after)
            if safe_captures == 0:  # every capture lines them up: the enemy wins in 2
                return 0, INFINITY
            best = min(best, safe_captures)
            steps += 1
    if steps == 0:  # every step lets the musketeers win at once
        return INFINITY, 0
    return best, steps


@njit(cache=True, inline="always")
def _tag(depth, winner):
    if depth == NO_DEPTH:
        return WHO_WINS
    return MUSKETEERS_WITHIN if winner == 0 else ENEMY_WITHIN


@njit(cache=True)
def lookup(state, depth, winner, g, ctx):
    """(φ, δ, key, bucket) of ``state`` from the rules, the table or a fresh guess,
    without searching (key 0 when the rules settle it)."""
    winner_to_move = (state & 1) == winner
    # The rules (games.terminal's test, on this search's own primitives): musketeers
    # in line, the enemy has won; else a side without a move, the musketeers have.
    lined_up = rules.in_line((state >> games.MUSKETEER_SHIFT) & g.full, g.row_mask, g.col_mask)
    stuck = _move_count(state, g.size, g.full, g.not_first_col, g.not_last_col) == 0
    if lined_up or stuck or depth == 0:
        # Finished: the outcome answers every question (W won within any budget, or
        # never). Out of budget while the game goes on: W has not won within it.
        if lined_up:
            mover_wins = state & 1 == 1
        elif stuck:
            mover_wins = state & 1 == 0
        else:
            mover_wins = not winner_to_move
        phi = 0 if mover_wins else INFINITY
        return phi, INFINITY - phi, 0, 0
    key = _key(state, _tag(depth, winner), g.full, g.symmetry_bytes, g.trio_symmetries)
    bucket = zobrist_hash(key, ctx.zobrist) & (ctx.table.shape[0] - 1)
    found, phi, delta = _probe(ctx.table, bucket, key, depth, winner_to_move)
    if not found:
        phi, delta = _fresh(state, depth, winner, ctx.init, ctx.captures, g.size, g.full,
                            g.not_first_col, g.not_last_col)
    return phi, delta, key, bucket


# --- the search -------------------------------------------------------------------------

# Fields of a stack frame (one per ply).
STATE, DEPTH, TH_PHI, TH_DELTA, FKEY, FBUCKET, COUNT, BEST, NODES_BEFORE = range(9)
FRAME_FIELDS = 9
_EXPAND, _LOOP = 0, 1


@njit(cache=True)
def search(root, depth, winner, th_phi, th_delta, g, ctx):
    """(φ, δ) of ``root`` for the side to move, searched until φ >= th_phi or δ >= th_delta.

    ``depth`` is the budget in plies of the question "does ``winner`` (a side code)
    win within ``depth`` plies?", or NO_DEPTH for "does the side to move win?". The
    recursion runs on an explicit stack (``ctx.frames``): a node is expanded (its
    children generated and looked up), then its most proving child is searched again
    and again until the node's numbers reach its thresholds, when they are stored and
    handed to the parent.
    """
    n, full, not_first, not_last = g.size, g.full, g.not_first_col, g.not_last_col
    row_mask, col_mask, neighbour_mask = g.row_mask, g.col_mask, g.neighbour_mask
    square_symmetry, trios, symmetry_bytes = g.square_symmetry, g.trio_symmetries, g.symmetry_bytes
    table, zobrist, captures, f = ctx.table, ctx.zobrist, ctx.captures, ctx.frames
    moves, states, order, keys, buckets = ctx.moves, ctx.states, ctx.order, ctx.keys, ctx.buckets
    phis, deltas, scores, buffer = ctx.phi, ctx.delta, ctx.scores, ctx.buffer
    epsilon, init, weak = ctx.epsilon, ctx.init, ctx.weak
    flat_table = table.reshape(-1)
    slots = table.shape[0] - 1
    tag = _tag(depth, winner)
    nodes = children = probes = hits = stores = replacements = 0

    phi, delta, key, bucket = lookup(root, depth, winner, g, ctx)
    if phi >= th_phi or delta >= th_delta:
        return phi, delta
    ply = 0
    f[0, STATE], f[0, DEPTH], f[0, TH_PHI], f[0, TH_DELTA] = root, depth, th_phi, th_delta
    f[0, FKEY], f[0, FBUCKET] = key, bucket
    mode = _EXPAND
    while True:
        if mode == _EXPAND:
            state, budget = f[ply, STATE], f[ply, DEPTH]
            nodes += 1
            f[ply, NODES_BEFORE] = nodes
            # (Into a flat buffer: a row view of ``moves`` would cost reference counting.)
            count = _generate(state, n, full, not_first, not_last, row_mask, col_mask, buffer)
            f[ply, COUNT] = count
            children += count
            child_budget = NO_DEPTH if budget == NO_DEPTH else budget - 1
            child_winner_to_move = (state & 1) != winner  # the children's mover is W
            enemy_to_move = state & 1 == 1
            rank, sym = 0, -1
            if enemy_to_move:
                # Enemy steps leave the musketeers, their capture masks and the symmetry
                # canonicalising them: when one symmetry alone does, a child's key is
                # the node's with the two squares toggled.
                rank = triple_rank((state >> games.MUSKETEER_SHIFT) & full)
                if trios[rank, 1] < 0:
                    sym = trios[rank, 0]
            else:
                # Ties between captures go to alpha-beta's first guess.
                _scores(state, full, row_mask, col_mask, neighbour_mask, buffer, count, scores)
            for i in range(count):
                m = buffer[i]
                child = _result(state, m)
                moves[ply, i], states[ply, i], keys[ply, i] = m, child, 0
                settled = -1  # whether the child's mover wins, when the rules say
                c_phi = c_delta = 1
                if enemy_to_move:
                    enemies = child >> games.ENEMY_SHIFT
                    near_captures = _count(captures, rank, 0, enemies)
                    safe_captures = _count(captures, rank, 3, enemies)
                    # Ties go to the step leaving the fewest safe captures.
                    order[ply, i] = safe_captures * 64 + near_captures
                    if near_captures == 0:  # the musketeers cannot capture: they have won
                        settled = 1
                    elif child_budget == 0:
                        settled = 0 if child_winner_to_move else 1
                    elif init >= INIT_LOOKAHEAD:
                        c_phi, c_delta = _musketeer_guess(safe_captures, child_budget, winner)
                        if c_phi == 0 or c_delta == 0:
                            settled = 1 if c_phi == 0 else 0
                    elif init == INIT_MOBILITY:
                        c_delta = near_captures
                else:
                    order[ply, i] = 64 - scores[i]
                    if rules.in_line((child >> games.MUSKETEER_SHIFT) & full, row_mask, col_mask):
                        settled = 1  # the enemy has won
                    elif _move_count(child, n, full, not_first, not_last) == 0:
                        settled = 0  # the enemy is stuck: the musketeers have won
                    elif child_budget == 0:
                        settled = 0 if child_winner_to_move else 1
                if settled >= 0:
                    c_phi = 0 if settled else INFINITY
                    c_delta = INFINITY - c_phi
                else:
                    if sym >= 0:
                        step = ((np.int64(1) << square_symmetry[sym, m >> 5])
                                | (np.int64(1) << square_symmetry[sym, m & 31]))
                        child_key = (f[ply, FKEY] ^ 1) ^ (step << games.ENEMY_SHIFT)
                    else:
                        child_key = _key(child, tag, full, symmetry_bytes, trios)
                    keys[ply, i] = child_key
                    buckets[ply, i] = zobrist_hash(child_key, zobrist) & slots
                    prefetch(flat_table, buckets[ply, i] * (WAYS * 4))
                phis[ply, i], deltas[ply, i] = c_phi, c_delta
            # Second pass, once every line has been asked for: read the table.
            for i in range(count):
                if keys[ply, i] == 0:
                    continue
                probes += 1
                found, c_phi, c_delta = _probe(table, buckets[ply, i], keys[ply, i],
                                               child_budget, child_winner_to_move)
                if found:
                    hits += 1
                    phis[ply, i], deltas[ply, i] = c_phi, c_delta
                elif not enemy_to_move or init == INIT_DEEP:  # (else set in the first pass)
                    phis[ply, i], deltas[ply, i] = _fresh(states[ply, i], child_budget, winner,
                                                          init, captures, n, full, not_first,
                                                          not_last)
            mode = _LOOP
            continue

        # _LOOP: the node's numbers from its children's; search the most proving child.
        count = f[ply, COUNT]
        phi, delta = INFINITY, 0
        best, second = -1, INFINITY
        largest, open_children = 0, 0
        for i in range(count):
            c_phi, c_delta = phis[ply, i], deltas[ply, i]
            if c_delta < phi or (c_delta == phi and order[ply, i] < order[ply, best]):
                second = phi
                phi, best = c_delta, i
            elif c_delta < second:
                second = c_delta
            if c_phi >= INFINITY:  # a move that wins: the node is won, φ = 0 above
                delta = INFINITY
            elif delta < INFINITY:
                delta = min(delta + c_phi, LARGE)
            if c_phi > 0:
                largest = max(largest, c_phi)
                open_children += 1
        if weak and delta < INFINITY and open_children > 0:
            delta = min(largest + open_children - 1, LARGE)
        if phi >= f[ply, TH_PHI] or delta >= f[ply, TH_DELTA]:
            budget = f[ply, DEPTH]
            win_from, no_win_upto = UNKNOWN_WIN, -1
            if budget != NO_DEPTH and (phi == 0 or delta == 0):
                # Settled for this budget, and so for a range of budgets.
                if (phi == 0) == ((f[ply, STATE] & 1) == winner):
                    win_from = budget
                else:
                    no_win_upto = budget
            stores += 1
            if _store(table, f[ply, FBUCKET], f[ply, FKEY], phi, delta, budget, win_from,
                      no_win_upto, nodes - f[ply, NODES_BEFORE] + 1):
                replacements += 1
            if ply == 0:
                break
            ply -= 1
            i = f[ply, BEST]
            phis[ply, i], deltas[ply, i] = phi, delta
            continue
        # The chosen child's thresholds (the 1 + ε trick on the second-best δ).
        child_th_phi = INFINITY
        if f[ply, TH_DELTA] < INFINITY:
            child_th_phi = min(f[ply, TH_DELTA] - delta + phis[ply, best], INFINITY)
        child_th_delta = f[ply, TH_PHI]
        if second < INFINITY:
            widened = max(second + 1, np.int64(np.ceil(second * (1.0 + epsilon))))
            child_th_delta = min(child_th_delta, widened)
        f[ply, BEST] = best
        budget = f[ply, DEPTH]
        ply += 1
        f[ply, STATE], f[ply, TH_PHI], f[ply, TH_DELTA] = states[ply - 1, best], child_th_phi, child_th_delta
        f[ply, DEPTH] = NO_DEPTH if budget == NO_DEPTH else budget - 1
        f[ply, FKEY], f[ply, FBUCKET] = keys[ply - 1, best], buckets[ply - 1, best]
        mode = _EXPAND
    stats = ctx.stats
    stats[NODES] += nodes
    stats[CHILDREN] += children
    stats[PROBES] += probes
    stats[HITS] += hits
    stats[STORES] += stores
    stats[REPLACEMENTS] += replacements
    return phi, delta


@njit(cache=True)
def walk_proof(stack, top, seen, g, ctx, out):
    """Walk the proof tree of who wins from ``stack[:top]`` (state, ply pairs),
    counting distinct positions (up to symmetry) in the hash set ``seen``.

    At a won node one move that leaves the opponent lost is followed, at a lost node
    every move; finished positions are leaves. Returns (top, state): when a position
    the walk needs is not settled in the table (its entry was overwritten), it stops
    and returns it for the caller to search, then to call again; state is -1 when the
    walk is done, -2 when ``seen`` or ``stack`` is full. ``out`` accumulates
    [positions, deepest ply].
    """
    moves = np.empty(games.MAX_MOVES, dtype=np.int64)
    kids = np.empty(games.MAX_MOVES, dtype=np.int64)
    slots = len(seen) - 1
    # Typed, not literal, arguments: one compiled lookup() and _key() serve every caller.
    who_wins, anyone, who_wins_tag = np.int64(NO_DEPTH), np.int64(0), np.int64(WHO_WINS)
    while top > 0:
        state, ply = stack[top - 1, 0], stack[top - 1, 1]
        canonical = _key(state, who_wins_tag, g.full, g.symmetry_bytes, g.trio_symmetries)
        slot = zobrist_hash(canonical, ctx.zobrist) & slots
        while seen[slot] != 0 and seen[slot] != canonical:
            slot = (slot + 1) & slots
        if seen[slot] == canonical:
            top -= 1
            continue
        phi, delta, _, _ = lookup(state, who_wins, anyone, g, ctx)
        if phi != 0 and delta != 0:
            return top, state
        count = _generate(state, g.size, g.full, g.not_first_col, g.not_last_col, g.row_mask,
                          g.col_mask, moves)  # none when the game is over
        for i in range(count):
            kids[i] = _result(state, moves[i])
        if phi == 0 and count > 0:  # won: keep one move that leaves the opponent lost
            chosen = unknown = -1
            for i in range(count):
                c_phi, c_delta, _, _ = lookup(kids[i], who_wins, anyone, g, ctx)
                if c_delta == 0:
                    chosen = i
                    break
                if c_phi != 0 and unknown < 0:
                    unknown = i
            if chosen < 0:
                # Not in the table any more: let the caller search it. (-3: a won
                # node whose every child is won, which cannot be.)
                return top, kids[unknown] if unknown >= 0 else -3
            kids[0], count = kids[chosen], 1
        if out[0] * 2 >= slots or top - 1 + count > len(stack):
            return top, -2
        seen[slot] = canonical
        out[0] += 1
        out[1] = max(out[1], ply)
        top -= 1
        for i in range(count):
            stack[top, 0], stack[top, 1] = kids[i], ply + 1
            top += 1
    return 0, -1


# --- Python side ------------------------------------------------------------------------
#
# The drivers are plain Python: a compiled caller of search() would compile it again,
# and a call costs microseconds against searches of milliseconds.


@dataclass
class DfpnStats(SearchStats):
    """Counters of df-pn searches: alpha-beta's :class:`SearchStats` (``nodes`` are the
    nodes expanded; df-pn has no cut-offs), plus the table's and the proof's figures."""

    children: int = 0  # positions generated and looked up by the expansions
    table_stores: int = 0
    table_replacements: int = 0  # stores that evicted another position's entry
    table_entries: int | None = None  # entries in use (they are never freed: the peak)
    table_capacity: int | None = None
    proof_size: int | None = None  # distinct positions of the who-wins proof tree
    proof_depth: int | None = None  # its longest line, in plies
    proof_seconds: float | None = None  # walking the proof tree (after ``seconds``)

    def as_dict(self) -> dict:
        out = super().as_dict()
        del out["cutoffs"]
        out.update(children=self.children, table_stores=self.table_stores,
                   table_replacements=self.table_replacements,
                   table_entries=self.table_entries, table_capacity=self.table_capacity,
                   proof_size=self.proof_size, proof_depth=self.proof_depth,
                   proof_seconds=self.proof_seconds)
        return out


def _table(buckets: int) -> np.ndarray:
    """A zeroed (buckets, WAYS, 4) int64 table with each bucket on one cache line."""
    line = 64
    raw = np.zeros(buckets * WAYS * 4 + line // 8, dtype=np.int64)
    skip = (-raw.ctypes.data % line) // 8
    return raw[skip: skip + buckets * WAYS * 4].reshape(buckets, WAYS, 4)


class DfpnSolver:
    """df-pn solver for Three Musketeers, keeping its transposition table between calls.

    ``table_bits`` sets the table to ``2**table_bits`` entries (32 bytes each);
    ``epsilon`` is the 1 + ε threshold factor; ``init`` the fresh nodes' numbers
    (INIT_LOOKAHEAD, the default: a one-ply look ahead, see ``_fresh``;
    INIT_DEEP: two plies at the musketeers' nodes; INIT_MOBILITY: φ = 1 and δ = their
    number of moves; INIT_ONE: 1 and 1); ``weak`` uses weak
    proof numbers (δ = largest φ + open children − 1). Values follow
    :class:`retro.alphabeta.Solver`: +1/-1 for who wins, ±(WIN - plies) with ``exact``.
    """

    def __init__(self, tables: GameTables, *, table_bits: int = DEFAULT_TABLE_BITS,
                 epsilon: float = DEFAULT_EPSILON, init: int = DEFAULT_INIT,
                 weak: bool = False) -> None:
        if tables.game != games.MUSKETEERS:
            raise ValueError("the df-pn solver plays Three Musketeers only (a game without draws)")
        if not 10 <= table_bits <= 30:
            raise ValueError("table_bits must be between 10 and 30")
        if not 0 <= epsilon <= 4:
            raise ValueError("epsilon must be between 0 and 4")
        if init not in (INIT_ONE, INIT_MOBILITY, INIT_LOOKAHEAD, INIT_DEEP):
            raise ValueError("init must be INIT_ONE, INIT_MOBILITY, INIT_LOOKAHEAD or INIT_DEEP")
        self.tables = tables
        rng = np.random.default_rng(_ZOBRIST_SEED)
        plies = (MAX_PLY, games.MAX_MOVES)
        self._context = Context(
            table=_table(1 << (table_bits - 1)),
            zobrist=rng.integers(0, 2**62, size=(8, 256), dtype=np.int64),
            captures=capture_masks(tables.size),
            frames=np.zeros((MAX_PLY, FRAME_FIELDS), dtype=np.int64),
            moves=np.zeros(plies, dtype=np.int64), states=np.zeros(plies, dtype=np.int64),
            order=np.zeros(plies, dtype=np.int64),
            keys=np.zeros(plies, dtype=np.int64),
            buckets=np.zeros(plies, dtype=np.int64), phi=np.zeros(plies, dtype=np.int64),
            delta=np.zeros(plies, dtype=np.int64),
            scores=np.zeros(games.MAX_MOVES, dtype=np.int64),
            buffer=np.zeros(games.MAX_MOVES, dtype=np.int64),
            stats=np.zeros(STAT_COUNT, dtype=np.int64),
            epsilon=float(epsilon), init=int(init), weak=bool(weak),
        )
        self.table_bits = table_bits
        self.seconds = 0.0

    def touch_table(self) -> None:
        """Write every page of the table once: the operating system zeroes a page on
        its first touch, which would otherwise be counted in a timed search."""
        self._context.table.fill(0)

    @property
    def stats(self) -> DfpnStats:
        nodes, children, probes, hits, stores, replacements = (int(x) for x in self._context.stats)
        return DfpnStats(nodes=nodes, table_probes=probes, table_hits=hits, seconds=self.seconds,
                         children=children, table_stores=stores, table_replacements=replacements)

    def clear(self) -> None:
        """Forget everything learnt."""
        self._context.table[:] = 0

    def table_entries(self) -> int:
        """Entries of the table in use: entries are replaced but never freed, so this
        is also the peak."""
        return int(np.count_nonzero(self._context.table[:, :, KEY]))

    @property
    def table_capacity(self) -> int:
        return 1 << self.table_bits

    def _search(self, state: int, depth: int, winner: int) -> tuple[int, int]:
        started = time.perf_counter()
        try:
            phi, delta = search(state, depth, winner, INFINITY, INFINITY, self.tables,
                                self._context)
        finally:
            self.seconds += time.perf_counter() - started
        return int(phi), int(delta)

    def wins(self, state: int) -> bool:
        """Whether the side to move wins ``state`` (one proof or disproof)."""
        return self._search(state, NO_DEPTH, 0)[0] == 0

    def wins_within(self, state: int, winner: Side, plies: int) -> bool:
        """Whether ``winner`` wins ``state`` within ``plies`` plies (a depth-bounded proof)."""
        if plies < 0:
            return False
        phi, _ = self._search(state, plies, winner.code)
        return (phi == 0) == ((state & 1) == winner.code)

    def value(self, state: int, *, exact: bool = True) -> int:
        """Value of ``state`` for the side to move: +1/-1, or ±(WIN - plies) with ``exact``.

        The distance is found by bisection on "the winner wins within d plies", between
        0 and the longest the game can last (each musketeer move captures a man), or
        the depth of the who-wins proof when it is known. An enemy win always ends
        right after a musketeer move, so its distance has the parity of the side to
        move and only those budgets are asked.
        """
        won = self.wins(state)
        if not exact:
            return 1 if won else -1
        if terminal(state, self.tables)[0]:
            return WIN if won else -WIN
        mover = Side.from_code(state & 1)
        winner = mover if won else mover.other
        men = (state >> games.ENEMY_SHIFT).bit_count()
        low, high = 0, 2 * men + (state & 1)  # W does not win within low; W wins within high
        step = 1
        if winner is Side.ENEMY:
            step = 2  # enemy wins end after an odd number of plies from M to move
            low = 1 - (state & 1) - 2  # budgets of the right parity: low + 2k
            if (high - low) % 2:
                high += 1
        while high - low > step:
            middle = low + step * ((high - low) // step // 2)
            if self.wins_within(state, winner, middle):
                high = middle
            else:
                low = middle
        return WIN - high if won else -(WIN - high)

    def values(self, states: np.ndarray, *, exact: bool = True) -> np.ndarray:
        """:meth:`value` of every state of an int64 array."""
        return np.array([self.value(int(s), exact=exact) for s in np.asarray(states)],
                        dtype=np.int64)

    def winning_move(self, state: int) -> int | None:
        """A move after which the side to move still wins (None when it loses or the game is over)."""
        if terminal(state, self.tables)[0] or not self.wins(state):
            return None
        moves = np.empty(games.MAX_MOVES, dtype=np.int64)
        count = generate(state, self.tables, moves)
        children = [result(state, m, self.tables) for m in moves[:count].tolist()]
        # The table usually knows the refuted child already: look before searching.
        for m, child in zip(moves[:count].tolist(), children):
            if lookup(child, NO_DEPTH, 0, self.tables, self._context)[1] == 0:
                return m
        for m, child in zip(moves[:count].tolist(), children):
            if not self.wins(child):
                return m
        raise AssertionError(f"no winning move found from state {state}")

    def best_moves(self, state: int, *, exact: bool = True) -> list[int]:
        """Every move reaching the value of ``state`` (none when the game is over)."""
        target = self.value(state, exact=exact)
        moves = np.empty(games.MAX_MOVES, dtype=np.int64)
        count = generate(state, self.tables, moves)
        best = []
        for m in moves[:count].tolist():
            child = self.value(result(state, m, self.tables), exact=exact)
            if (_shift(-child) if exact else -child) == target:
                best.append(m)
        return best

    def line(self, state: int) -> list[int]:
        """A principal line: best moves for both sides until the game ends.

        With the distance D known, the winner's best moves are those after which it
        still wins within D - 1 plies, the loser's those after which the winner does
        not win within D - 2: one depth-bounded search per move, no bisection.
        """
        value = self.value(state, exact=True)
        winner, plies = winner_of(value, Side.from_code(state & 1)), plies_of(value)
        moves = np.empty(games.MAX_MOVES, dtype=np.int64)
        line = []
        while not terminal(state, self.tables)[0]:
            count = generate(state, self.tables, moves)
            winner_to_move = Side.from_code(state & 1) is winner
            for m in moves[:count].tolist():
                child = result(state, m, self.tables)
                if winner_to_move and self.wins_within(child, winner, plies - 1):
                    break
                if not winner_to_move and not self.wins_within(child, winner, plies - 2):
                    break
            else:
                raise AssertionError(f"no move keeps the distance {plies} from state {state}")
            line.append(m)
            state, plies = child, plies - 1
        return line

    def proof(self, state: int, *, max_positions: int | None = None) -> tuple[int, int] | None:
        """(distinct positions, longest line in plies) of a proof tree of who wins
        ``state``, walked in the table after the proof (positions whose entries were
        overwritten are searched again); None if more than ``max_positions``, or when
        the table is so small that the walk's searches keep evicting each other (more
        searches than ``max_positions``)."""
        if max_positions is None:
            max_positions = 1 << min(27, self.table_bits + 1)
        seen = np.zeros(1 << (2 * max_positions - 1).bit_length(), dtype=np.int64)
        stack = np.zeros((1 << 20, 2), dtype=np.int64)
        stack[0] = (state, 0)
        out = np.zeros(2, dtype=np.int64)
        top = searches = 1
        self.wins(state)
        started = time.perf_counter()
        try:
            while True:
                top, pending = walk_proof(stack, top, seen, self.tables, self._context, out)
                if pending == -1:
                    return int(out[0]), int(out[1])
                if pending == -2:
                    return None
                if pending == -3:
                    raise AssertionError("the table holds a won position with no winning move")
                searches += 1
                if searches > max_positions:
                    return None
                search(pending, NO_DEPTH, 0, INFINITY, INFINITY, self.tables, self._context)
        finally:
            self.seconds += time.perf_counter() - started


def _shift(value: int) -> int:
    """A child's value (negated) one ply further from the end, as alpha-beta's."""
    return value - 1 if value > 0 else value + 1 if value < 0 else 0


def musketeers_dfpn_solver(size: int, **options) -> DfpnSolver:
    """A :class:`DfpnSolver` for Three Musketeers on a ``size``×``size`` board."""
    return DfpnSolver(games.game_tables(games.MUSKETEERS, size), **options)


def solve(position: Position | str, *, exact: bool = False, line: bool = True,
          proof: bool = True, solver: DfpnSolver | None = None) -> Solution:
    """Solve ``position`` by df-pn: who wins and a winning move, with ``exact`` in how
    many plies and a principal line; ``proof`` also walks the proof tree for its size.

    Pass a solver (of the position's board size) to reuse its table across calls.
    """
    position = as_position(position)
    solver = solver or musketeers_dfpn_solver(position.size)
    if solver.tables.size != position.size:
        raise ValueError(f"the solver is for {solver.tables.size}x{solver.tables.size}, "
                         f"the position is {position.size}x{position.size}")
    state = games.musketeers_state(position)
    before = solver.stats
    value = solver.value(state, exact=exact)
    if exact:
        moves = solver.line(state) if line else solver.best_moves(state)[:1]
    else:
        move = solver.winning_move(state)
        moves = [] if move is None else [move]
    after = solver.stats
    stats = DfpnStats(
        nodes=after.nodes - before.nodes, table_probes=after.table_probes - before.table_probes,
        table_hits=after.table_hits - before.table_hits, seconds=after.seconds - before.seconds,
        children=after.children - before.children,
        table_stores=after.table_stores - before.table_stores,
        table_replacements=after.table_replacements - before.table_replacements,
        table_entries=solver.table_entries(), table_capacity=solver.table_capacity)
    if proof:
        started = time.perf_counter()
        found = solver.proof(state)
        stats.proof_seconds = time.perf_counter() - started
        if found is not None:
            stats.proof_size, stats.proof_depth = found
    as_moves = [games.musketeers_move(m, position.size) for m in moves]
    return Solution(position, winner_of(value, position.side), plies_of(value) if exact else None,
                    as_moves[0] if as_moves else None, as_moves if exact and line else [], stats)
