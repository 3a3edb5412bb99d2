"""An independent top-down solver: alpha-beta negamax with a transposition table.

It shares nothing with the retrograde sweep but the rules and the notation, so it
can check the database. One jitted negamax serves every game of :mod:`retro.games`.

Values are from the side to move's point of view and relative to the position:

* exact mode: ``WIN - d`` for a win in d plies, ``-(WIN - d)`` for a loss in d
  plies, 0 for a draw. A child's value ``s`` is worth ``shift(-s)`` to its parent,
  where ``shift`` moves a decisive value one ply further from the end. Because
  values are relative to the position, a table entry is valid wherever the position
  recurs, at any depth: no ply adjustment.
* who-wins mode: +1, -1 or 0, with a window (-1, 1): the fast question.

The transposition table stores each value with its bound type: exact, lower bound
(the search failed high) or upper bound (it failed low). The 2017 weak solve stored
every value as if exact, and hashed the board without the side to move; both
mistakes can be switched on (``bounds_as_exact``, ``hash_side=False``) to show the
wrong answers they give. Keys are the smallest of the 8 symmetric images of the
state, hashed by Zobrist keys over the state's bits, the side to move included.
Moves are ordered by the table's best move, two killer moves per ply, then the
history heuristic.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from . import games
from ..bits import triple_rank
from .games import GameTables, generate, result, terminal
from ..games.musketeers.position import Move, Position, Side

WIN = 10_000
INFINITY = 30_000
MAX_PLY = 128
DEFAULT_TABLE_BITS = 22
WAYS = 4  # entries per bucket: 4 x 16 bytes, one cache line

EMPTY, EXACT, LOWER, UPPER = 0, 1, 2, 3
NODES, TABLE_PROBES, TABLE_HITS, CUTOFFS = 0, 1, 2, 3  # ctx.stats

_ZOBRIST_SEED = 20171209  # any fixed seed: hashing must be reproducible, not secret


class Context(NamedTuple):
    """Mutable search state handed to the jitted negamax."""

    table: np.ndarray  # int64 (buckets, WAYS, 2): per entry [key, packed data], see _pack
    zobrist: np.ndarray  # int64 (8, 256): random keys per byte value of the state
    killers: np.ndarray  # int64 (MAX_PLY, 2)
    history: np.ndarray  # int64 (4096,)
    moves: np.ndarray  # int64 (MAX_PLY, MAX_MOVES)
    scores: np.ndarray  # int64 (MAX_PLY, MAX_MOVES)
    child_keys: np.ndarray  # int64 (MAX_PLY, MAX_MOVES): table keys of the children
    child_buckets: np.ndarray  # int64 (MAX_PLY, MAX_MOVES): their buckets
    frames: np.ndarray  # int64 (MAX_PLY, FRAME_FIELDS): the explicit recursion stack
    stats: np.ndarray  # int64: NODES, TABLE_PROBES, TABLE_HITS, CUTOFFS
    exact: bool  # distances (True) or who wins (False)
    bounds_as_exact: bool  # the 2017 bug: store bounds as exact values
    hash_side: bool  # False: the 2017 bug, key without the side to move
    symmetry: bool  # key positions by a canonical symmetric image
    transposition_cutoffs: bool  # look the children up before searching any (ETC)


# A table entry is two words: the key (canonical state) and
#   data = value (32 bits) | bound << 32 | (move + 1) << 34 | log2(work) << 50.
# A bucket holds WAYS entries on one 64-byte cache line: one cache miss per probe.
# A new entry evicts the one with the least work under it (subtrees near the root are
# expensive to redo). Measured on the standard start with 2**25 entries: 4 ways on
# aligned lines cut the nodes by 7% against 2 ways (depth-preferred + always-replace)
# on 32-byte buckets, and prefetching the children's buckets before the enhanced
# transposition cut-off reads them took a third off the time.


@njit(cache=True, inline="always")
def _pack(value, bound, move, work):
    return (value & 0xFFFFFFFF) | (bound << 32) | ((move + 1) << 34) | (work << 50)


@njit(cache=True, inline="always")
def _value(data):
    value = data & 0xFFFFFFFF
    return value - (1 << 32) if value >= (1 << 31) else value


@njit(cache=True, inline="always")
def _bound(data):
    return (data >> 32) & 3


@njit(cache=True, inline="always")
def _move(data):
    return ((data >> 34) & 0xFFFF) - 1


@njit(cache=True, inline="always")
def _probe(table, bucket, key):
    """Data of the entry for ``key`` in ``bucket``, or 0."""
    for entry in range(WAYS):
        data = table[bucket, entry, 1]
        if data != 0 and table[bucket, entry, 0] == key:
            return data
    return 0


@njit(cache=True, inline="always")
def _store(table, bucket, key, data):
    """Keep ``data`` for ``key``: in its own entry if it has one, else in an empty
    entry, else in place of the entry with the least work under it."""
    victim = 0
    for entry in range(WAYS):
        kept = table[bucket, entry, 1]
        if kept == 0 or table[bucket, entry, 0] == key:
            victim = entry
            break
        if (kept >> 50) < (table[bucket, victim, 1] >> 50):
            victim = entry
    table[bucket, victim, 0] = key
    table[bucket, victim, 1] = data


@intrinsic
def prefetch(typingctx, array, index):
    """Ask the CPU to start loading ``array[index]`` into cache; no effect on results."""
    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]],
                                           wraparound=False)
        byte_pointer, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
            "llvm.prefetch.p0")
        # read, keep in all cache levels, data cache
        builder.call(function, [builder.bitcast(pointer, byte_pointer), ir.Constant(i32, 0),
                                ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@njit(cache=True, inline="always")
def _log2(n):
    bits = 0
    while n > 1:
        n >>= 1
        bits += 1
    return bits


@njit(cache=True, inline="always")
def shift(value):
    """A child's value (negated) one ply further from the end."""
    if value > 0:
        return value - 1
    if value < 0:
        return value + 1
    return 0


@njit(cache=True, inline="always")
def _least_child_value_reaching(beta):
    """Smallest x with shift(x) >= beta."""
    return beta + 1 if beta > 0 else beta - 1


@njit(cache=True, inline="always")
def _largest_child_value_within(alpha):
    """Largest x with shift(x) <= alpha."""
    return alpha + 1 if alpha >= 0 else alpha - 1


@njit(cache=True, inline="always")
def zobrist_hash(key, zobrist):
    h = 0
    for byte in range(8):
        h ^= zobrist[byte, (key >> (8 * byte)) & 0xFF]
    return h


# Fields of a stack frame (one per ply).
STATE, ALPHA, BETA, WINDOW_ALPHA, BEST, BEST_MOVE, NEXT, COUNT, KEY, SYM, BUCKET, \
    NODES_BEFORE, MOVE = range(13)
FRAME_FIELDS = 13
_ENTER, _NEXT, _FINISH = 0, 1, 2


@njit(cache=True)
def negamax(root, alpha, beta, g, ctx):
    """Value of ``root`` for the side to move, fail-soft within (alpha, beta).

    The recursion runs on an explicit stack (``ctx.frames``): a node is entered
    (finished at once when over, out of the distance window or settled by the
    table), then its moves are taken one by one, each child's value updating the
    node until a cut-off or the last move, and the node's value is stored.
    """
    game, n, full = g.game, g.size, g.full
    not_first, not_last, side_mask = g.not_first_col, g.not_last_col, g.side_mask
    row_mask, col_mask, neighbour_mask = g.row_mask, g.col_mask, g.neighbour_mask
    square_symmetry, symmetry_bytes, trios = g.square_symmetry, g.symmetry_bytes, g.trio_symmetries
    lines, low_shift, high_shift = g.ttt_lines, g.low_shift, g.high_shift
    table, zobrist, killers, history = ctx.table, ctx.zobrist, ctx.killers, ctx.history
    moves, scores, f = ctx.moves, ctx.scores, ctx.frames
    child_keys, child_buckets = ctx.child_keys, ctx.child_buckets
    flat_table = table.reshape(-1)  # prefetch takes one index
    exact, bounds_as_exact, hash_side, symmetry = (ctx.exact, ctx.bounds_as_exact,
                                                   ctx.hash_side, ctx.symmetry)
    transposition_cutoffs = ctx.transposition_cutoffs
    slots = table.shape[0] - 1
    nodes = probes = hits = cutoffs = 0

    ply = 0
    f[0, STATE], f[0, ALPHA], f[0, BETA] = root, alpha, beta
    mode = _ENTER
    value = 0
    while True:
        if mode == _ENTER:
            state, alpha, beta = f[ply, STATE], f[ply, ALPHA], f[ply, BETA]
            nodes += 1
            over, outcome = games._terminal(state, game, n, full, not_first, not_last,
                                            row_mask, col_mask, lines)
            mode = _FINISH
            if over:
                value = outcome * WIN if exact else outcome
                continue
            if exact:
                # A game that goes on lasts at least one more ply: its value lies
                # within +-(WIN - 1). Asked for more (a win within 0 plies, say), answer
                # at once: this bounds the depth of the null-window distance searches.
                if alpha >= WIN - 1:
                    value = WIN - 1
                    continue
                if beta <= -(WIN - 1):
                    value = -(WIN - 1)
                    continue
            if symmetry:
                key, sym = games._canonical(state, game, side_mask, low_shift, high_shift,
                                            full, symmetry_bytes, trios)
            else:
                key, sym = state, 0
            if not hash_side:
                key &= ~side_mask
            bucket = zobrist_hash(key, zobrist) & slots
            probes += 1
            data = _probe(table, bucket, key)
            hint = -1
            if data != 0:
                stored = _value(data)
                if _bound(data) == EXACT:
                    hits += 1
                    value = stored
                    continue
                if _bound(data) == LOWER:
                    alpha = max(alpha, stored)
                else:
                    beta = min(beta, stored)
                if alpha >= beta:
                    hits += 1
                    value = stored
                    continue
                hint = games._map_move(_move(data), games.inverse_symmetry(sym), game,
                                       square_symmetry)
            count = games._generate(state, game, n, full, not_first, not_last, row_mask,
                                    col_mask, moves[ply])
            if transposition_cutoffs:
                # Enhanced transposition cut-off: a child the table already shows to be
                # good enough settles this node without searching anything. An enemy
                # step leaves the musketeers, hence the symmetry, alone: when only one
                # symmetry canonicalises them, the child's key is the parent's with
                # the two squares toggled.
                incremental = (symmetry and game == games.MUSKETEERS and state & 1 == 1
                               and trios[triple_rank((state >> games.MUSKETEER_SHIFT)
                                                     & full), 1] < 0)
                # Two passes: compute every child's bucket and ask for its cache line,
                # then read them; the misses overlap instead of coming one by one.
                for i in range(count):
                    m = moves[ply, i]
                    if incremental:
                        step = ((np.int64(1) << square_symmetry[sym, m >> 5])
                                | (np.int64(1) << square_symmetry[sym, m & 31]))
                        child_key = (key ^ 1) ^ (step << games.ENEMY_SHIFT)
                    elif symmetry:
                        child_key, _ = games._canonical(games._result(state, m, game), game,
                                                        side_mask, low_shift, high_shift, full,
                                                        symmetry_bytes, trios)
                    else:
                        child_key = games._result(state, m, game)
                    if not hash_side:
                        child_key &= ~side_mask
                    child_bucket = zobrist_hash(child_key, zobrist) & slots
                    child_keys[ply, i], child_buckets[ply, i] = child_key, child_bucket
                    prefetch(flat_table, child_bucket * (WAYS * 2))
                bound_value = -INFINITY
                for i in range(count):
                    child_data = _probe(table, child_buckets[ply, i], child_keys[ply, i])
                    if child_data != 0 and _bound(child_data) != LOWER:
                        # The child's value is at most the stored one.
                        bound_value = (shift(-_value(child_data)) if exact
                                       else -_value(child_data))
                        if bound_value >= beta:
                            value = bound_value
                            hits += 1
                            break
                if bound_value >= beta:
                    continue
            games._scores(state, game, full, row_mask, col_mask, neighbour_mask, moves[ply],
                          count, scores[ply])
            for i in range(count):
                m = moves[ply, i]
                if m == hint:
                    scores[ply, i] = 1 << 60
                elif m == killers[ply, 0]:
                    scores[ply, i] = 1 << 50
                elif m == killers[ply, 1]:
                    scores[ply, i] = 1 << 49
                else:
                    # Guess, then history; ties to the lower source square (measured:
                    # a fixed tie order beats generation order by up to 2x in nodes).
                    scores[ply, i] = ((scores[ply, i] << 40) + (history[m & 4095] << 12)
                                      + (4095 - m))
            f[ply, ALPHA], f[ply, BETA], f[ply, WINDOW_ALPHA] = alpha, beta, alpha
            f[ply, BEST], f[ply, BEST_MOVE] = -INFINITY, -1
            f[ply, NEXT], f[ply, COUNT] = 0, count
            f[ply, KEY], f[ply, SYM], f[ply, BUCKET] = key, sym, bucket
            f[ply, NODES_BEFORE] = nodes
            mode = _NEXT
            continue

        elif mode == _NEXT:
            i = f[ply, NEXT]
            if i < f[ply, COUNT]:
                # Selection sort step: the most promising remaining move goes next.
                top = i
                for j in range(i + 1, f[ply, COUNT]):
                    if scores[ply, j] > scores[ply, top]:
                        top = j
                m = moves[ply, top]
                moves[ply, top], scores[ply, top] = moves[ply, i], scores[ply, i]
                moves[ply, i] = m
                f[ply, NEXT], f[ply, MOVE] = i + 1, m
                alpha, beta = f[ply, ALPHA], f[ply, BETA]
                child = games._result(f[ply, STATE], m, game)
                ply += 1
                f[ply, STATE] = child
                if exact:
                    f[ply, ALPHA] = -_least_child_value_reaching(beta)
                    f[ply, BETA] = -_largest_child_value_within(alpha)
                else:
                    f[ply, ALPHA], f[ply, BETA] = -beta, -alpha
                mode = _ENTER
                continue
            value = f[ply, BEST]
            mode = _FINISH
            # the node is done: store it (below)

        else:  # _FINISH: the node at ply has value ``value``; give it to its parent
            if ply == 0:
                break
            ply -= 1
            child_value = shift(-value) if exact else -value
            m = f[ply, MOVE]
            if child_value > f[ply, BEST]:
                f[ply, BEST], f[ply, BEST_MOVE] = child_value, m
            if child_value > f[ply, ALPHA]:
                f[ply, ALPHA] = child_value
            if f[ply, ALPHA] < f[ply, BETA]:
                mode = _NEXT
                continue
            cutoffs += 1
            if killers[ply, 0] != m:
                killers[ply, 1] = killers[ply, 0]
                killers[ply, 0] = m
            history[m & 4095] += 1
            value = f[ply, BEST]
            # the node is done: store it (below), then finish it

        # Store a finished node (after its last move or a cut-off).
        best = f[ply, BEST]
        if bounds_as_exact or f[ply, WINDOW_ALPHA] < best < f[ply, BETA]:
            bound = EXACT
        elif best <= f[ply, WINDOW_ALPHA]:
            bound = UPPER
        else:
            bound = LOWER
        work = _log2(nodes - f[ply, NODES_BEFORE] + 1)
        best_move = games._map_move(f[ply, BEST_MOVE], f[ply, SYM], game, square_symmetry)
        _store(table, f[ply, BUCKET], f[ply, KEY], _pack(best, bound, best_move, work))
        mode = _FINISH

    ctx.stats[NODES] += nodes
    ctx.stats[TABLE_PROBES] += probes
    ctx.stats[TABLE_HITS] += hits
    ctx.stats[CUTOFFS] += cutoffs
    return value


@njit(cache=True)
def solve_value(state, exact, g, wins_context, exact_context):
    """Value of ``state``: who wins (+1/-1/0), or with ``exact`` the distance too.

    Exact values are found as the literature's null-window searches do (MTD): first
    who wins, then the distance by bisection, each step asking "does the winner win
    within d plies?". A null window makes every such search depth-bounded, and the
    table keeps the bounds from one step to the next.
    """
    wins = negamax(state, -1, 1, g, wins_context)
    if not exact:
        return wins
    if wins == 0:  # a draw (tic-tac-toe): zero is exact
        return negamax(state, -1, 1, g, exact_context)
    # Bisect: low < value <= high, starting from the winner's range. A fail-soft
    # result bounds the value beyond the question asked.
    if wins > 0:
        low, high = WIN - MAX_PLY - 1, WIN
    else:
        low, high = -WIN - 1, -(WIN - MAX_PLY)
    while high - low > 1:
        guess = (low + high + 2) // 2
        found = negamax(state, guess - 1, guess, g, exact_context)
        if found >= guess:
            low = max(low, found - 1)
        else:
            high = min(high, found)
    return high


@njit(cache=True)
def solve_values(states, exact, g, wins_context, exact_context, out):
    """:func:`solve_value` of each of ``states`` into ``out``."""
    for i in range(len(states)):
        out[i] = solve_value(states[i], exact, g, wins_context, exact_context)


@dataclass
class SearchStats:
    """Counters of the searches run by a :class:`Solver` (cumulative)."""

    nodes: int = 0
    table_probes: int = 0
    table_hits: int = 0
    cutoffs: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {"nodes": self.nodes, "table_probes": self.table_probes,
                "table_hits": self.table_hits, "cutoffs": self.cutoffs,
                "seconds": round(self.seconds, 3)}


def _aligned_table(buckets: int) -> np.ndarray:
    """A zeroed (buckets, WAYS, 2) int64 table whose buckets start on cache lines, so
    that a probe costs one cache miss."""
    line = 64
    raw = np.zeros(buckets * WAYS * 2 + line // 8, dtype=np.int64)
    skip = (-raw.ctypes.data % line) // 8
    return raw[skip: skip + buckets * WAYS * 2].reshape(buckets, WAYS, 2)


class Solver:
    """Alpha-beta solver for one game, keeping its transposition table between calls.

    ``table_bits`` sets the table to ``2**table_bits`` entries (16 bytes each).
    """

    def __init__(self, tables: GameTables, *, table_bits: int = DEFAULT_TABLE_BITS,
                 bounds_as_exact: bool = False, hash_side: bool = True,
                 symmetry: bool = True, transposition_cutoffs: bool = True) -> None:
        if not 10 <= table_bits <= 30:
            raise ValueError("table_bits must be between 10 and 30")
        self.tables = tables
        rng = np.random.default_rng(_ZOBRIST_SEED)
        # Who-wins values (+-1) and distances cannot share entries: one table each.
        self._tables = {mode: _aligned_table(1 << (table_bits - 2)) for mode in (True, False)}
        self._arrays = dict(
            zobrist=rng.integers(0, 2**62, size=(8, 256), dtype=np.int64),
            killers=np.full((MAX_PLY, 2), -1, dtype=np.int64),
            history=np.zeros(4096, dtype=np.int64),
            moves=np.zeros((MAX_PLY, games.MAX_MOVES), dtype=np.int64),
            scores=np.zeros((MAX_PLY, games.MAX_MOVES), dtype=np.int64),
            child_keys=np.zeros((MAX_PLY, games.MAX_MOVES), dtype=np.int64),
            child_buckets=np.zeros((MAX_PLY, games.MAX_MOVES), dtype=np.int64),
            frames=np.zeros((MAX_PLY, FRAME_FIELDS), dtype=np.int64),
            stats=np.zeros(4, dtype=np.int64),
        )
        self.bounds_as_exact = bounds_as_exact
        self.hash_side = hash_side
        self.symmetry = symmetry
        self.transposition_cutoffs = transposition_cutoffs
        self.seconds = 0.0

    def touch_table(self) -> None:
        """Write every page of the tables once: the operating system zeroes a page on
        its first touch, which would otherwise be counted in a timed search."""
        for table in self._tables.values():
            table.fill(0)

    def _context(self, exact: bool) -> Context:
        return Context(table=self._tables[exact], **self._arrays, exact=exact,
                       bounds_as_exact=self.bounds_as_exact,
                       hash_side=self.hash_side, symmetry=self.symmetry,
                       transposition_cutoffs=self.transposition_cutoffs)

    @property
    def stats(self) -> SearchStats:
        nodes, probes, hits, cutoffs = (int(x) for x in self._arrays["stats"])
        return SearchStats(nodes, probes, hits, cutoffs, self.seconds)

    def clear(self) -> None:
        """Forget everything learnt: the tables, killer moves and history."""
        for table in self._tables.values():
            table[:] = 0
        self._arrays["killers"][:] = -1
        self._arrays["history"][:] = 0

    def value(self, state: int, *, exact: bool = True) -> int:
        """Negamax value of ``state`` for the side to move (see the module docstring)."""
        started = time.perf_counter()
        try:
            return int(solve_value(state, exact, self.tables, self._context(False),
                                   self._context(True)))
        finally:
            self.seconds += time.perf_counter() - started

    def values(self, states: np.ndarray, *, exact: bool = True) -> np.ndarray:
        """:meth:`value` of every state of an int64 array, in one compiled loop."""
        states = np.ascontiguousarray(states, dtype=np.int64)
        out = np.empty(len(states), dtype=np.int64)
        started = time.perf_counter()
        try:
            solve_values(states, exact, self.tables, self._context(False),
                         self._context(True), out)
        finally:
            self.seconds += time.perf_counter() - started
        return out

    def best_moves(self, state: int, *, exact: bool = True) -> list[int]:
        """Every move reaching the value of ``state`` (all moves if the game is over: none)."""
        target = self.value(state, exact=exact)
        moves = np.empty(games.MAX_MOVES, dtype=np.int64)
        count = generate(state, self.tables, moves)
        best = []
        for m in moves[:count]:
            child = self.value(result(state, m, self.tables), exact=exact)
            if (shift(-child) if exact else -child) == target:
                best.append(int(m))
        return best

    def line(self, state: int) -> list[int]:
        """A principal line: best moves for both sides until the game ends (exact values)."""
        line = []
        while not terminal(state, self.tables)[0]:
            move = self.best_moves(state, exact=True)[0]
            line.append(move)
            state = result(state, move, self.tables)
        return line


# --- Three Musketeers ------------------------------------------------------------------


@dataclass(frozen=True)
class Solution:
    """What a weak solver found for a position (Three Musketeers; alpha-beta: tic-tac-toe too)."""

    position: Position
    winner: Side | None  # None for a draw
    plies: int | None  # None when only who wins was asked, or for a draw
    best_move: Move | None  # a winning move for the winner to move; a best move in exact mode
    line: list[Move] = field(default_factory=list)  # principal line (exact mode)
    stats: SearchStats = field(default_factory=SearchStats)

    def as_dict(self) -> dict:
        return {
            "position": str(self.position),
            "winner": None if self.winner is None else self.winner.value,
            "plies": self.plies,
            "best_move": str(self.best_move) if self.best_move else None,
            "line": [str(m) for m in self.line],
            "stats": self.stats.as_dict(),
        }


def _describe(tables: GameTables) -> str:
    if tables.game == games.MUSKETEERS:
        return f"{tables.size}x{tables.size} Three Musketeers"
    return "tic-tac-toe" if tables.game == games.TICTACTOE else "Nim"


def musketeers_solver(size: int, **options) -> Solver:
    """A :class:`Solver` for Three Musketeers on a ``size``×``size`` board."""
    return Solver(games.game_tables(games.MUSKETEERS, size), **options)


def winner_of(value: int, side_to_move):
    """The winner a value (for the side to move) stands for; None for a draw (0)."""
    if value == 0:
        return None
    return side_to_move if value > 0 else side_to_move.other


def plies_of(value: int) -> int | None:
    """The plies to the end a value stands for; None for a draw (0)."""
    return None if value == 0 else WIN - abs(value)


def solve(position: Position | str, *, exact: bool = False, line: bool = True,
          solver: Solver | None = None) -> Solution:
    """Solve ``position`` by alpha-beta: who wins, and with ``exact`` in how many plies.

    ``position``: a Three Musketeers or tic-tac-toe position, or its text. Pass a
    solver (of the position's game and board size) to reuse its table across calls.
    """
    if isinstance(position, str):
        from .. import games as registry

        _, position = registry.identify(position)
    from ..games.tictactoe import Position as TicTacToePosition

    musketeers = isinstance(position, Position)
    if not musketeers and not isinstance(position, TicTacToePosition):
        raise TypeError(f"expected a Three Musketeers or tic-tac-toe position or its text, "
                        f"got {type(position).__name__}")
    tables = (games.game_tables(games.MUSKETEERS, position.size) if musketeers
              else games.game_tables(games.TICTACTOE))
    solver = solver or Solver(tables)
    if solver.tables.game != tables.game or solver.tables.size != tables.size:
        raise ValueError(f"the solver is for {_describe(solver.tables)}, the position is "
                         f"{_describe(tables)}")
    state = games.pack(position)
    before = solver.stats
    if exact:
        value = solver.value(state, exact=True)
        moves = solver.line(state) if line else solver.best_moves(state)[:1]
        plies = plies_of(value)
    else:
        value = solver.value(state, exact=False)
        moves = solver.best_moves(state, exact=False)[:1] if value > 0 else []
        plies = None
    after = solver.stats
    stats = SearchStats(after.nodes - before.nodes, after.table_probes - before.table_probes,
                        after.table_hits - before.table_hits, after.cutoffs - before.cutoffs,
                        after.seconds - before.seconds)
    as_moves = [games.musketeers_move(m, position.size) if musketeers else games.tictactoe_move(m)
                for m in moves]
    return Solution(position, winner_of(value, position.side), plies,
                    as_moves[0] if as_moves else None,
                    as_moves if exact and line else [], stats)
