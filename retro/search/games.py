"""A small generic game interface for the alpha-beta solver: Nim, tic-tac-toe, Three Musketeers.

A game state is packed into one int64 so that a single jitted negamax serves every
game (it dispatches on :attr:`GameTables.game`). Each game provides:

* ``generate``: the legal moves (int codes) into a buffer, and their number;
* ``result``: the state after a move;
* ``terminal``: whether the game is over and, if so, its value for the side to move
  (+1 win, -1 loss, 0 draw);
* ``canonical``: a canonical symmetric image of the state (the same for all 8 images),
  with the symmetry used, so that symmetric positions share a table entry;
* ``map_move``: a move carried through a symmetry (best moves are stored in
  canonical coordinates);
* ``static_scores``: cheap move-ordering guesses.

The games whose answers are known independently (Nim by the nim-sum, tic-tac-toe by
exhaustive search) validate the search itself, as the literature did.

Every primitive exists twice: an inlined one over plain numbers and arrays (the
underscored names), which the search calls at millions of nodes a second, and a
wrapper taking :class:`GameTables`, for everything else. Passing a tuple of tables
into a compiled call costs a reference-count round trip per table.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from ..games.musketeers import rules
from ..games.tictactoe import rules as ttt_rules
from ..bits import lowest_bit_index, popcount, symmetry_byte_tables, triple_rank
from ..games.musketeers.position import Move, Position, Side, square_name

NIM, TICTACTOE, MUSKETEERS = 0, 1, 2
MAX_MOVES = 128

# Nim: up to four heaps of at most 15, four bits each.
NIM_HEAPS = 4
# Tic-tac-toe: X bits 0..8, O bits 9..17, bit 18 set when O is to move.
TTT_O_TO_MOVE = 1 << 18
# Three Musketeers: bit 0 = enemy to move, musketeers << 1, enemies << 26.
MUSKETEER_SHIFT, ENEMY_SHIFT = 1, 26


class GameTables(NamedTuple):
    """Everything the jitted search needs about one game."""

    game: int
    side_mask: int  # state bits that say whose turn it is (0 for Nim)
    size: int  # board side (3 for tic-tac-toe and Nim)
    full: int  # bitboard of every square
    not_first_col: int
    not_last_col: int
    low_shift: int  # where the first bitboard of the state starts (X men / musketeers)
    high_shift: int  # where the second one starts (O men / enemy men)
    row_mask: np.ndarray  # int64 (squares,): bitboard of each square's row
    col_mask: np.ndarray  # int64 (squares,): bitboard of each square's column
    neighbour_mask: np.ndarray  # int64 (squares,): bitboard of each square's neighbours
    square_symmetry: np.ndarray  # int64 (8, squares): image of each square
    symmetry_bytes: np.ndarray  # int64 (8, chunks, 256): image of each byte of a bitboard
    trio_symmetries: np.ndarray  # int64 (C(squares, 3), 8): symmetries taking a musketeer
    #   trio to its smallest image, -1 after the last (Three Musketeers only)
    ttt_lines: np.ndarray  # int64 (8,)


def _trio_symmetries(sym: np.ndarray) -> np.ndarray:
    """For each 3-square set, by colex rank: the symmetries reaching its smallest image."""
    squares = sym.shape[1]
    trios = [(a, b, c) for c in range(squares) for b in range(c) for a in range(b)]
    table = np.full((len(trios), 8), -1, dtype=np.int64)
    for rank, trio in enumerate(trios):
        images = [sum(1 << int(sym[g, s]) for s in trio) for g in range(8)]
        best = min(images)
        chosen = [g for g in range(8) if images[g] == best]
        table[rank, : len(chosen)] = chosen
    return table


@lru_cache(maxsize=None)
def game_tables(game: int, size: int = rules.DEFAULT_SIZE) -> GameTables:
    """Tables of ``game`` (NIM, TICTACTOE or MUSKETEERS; ``size`` for the last)."""
    if game not in (NIM, TICTACTOE, MUSKETEERS):
        raise ValueError(f"unknown game {game}")
    b = rules.board(size if game == MUSKETEERS else 3)
    if game == MUSKETEERS:
        side_mask, shifts = 1, (MUSKETEER_SHIFT, ENEMY_SHIFT)
        trios = _trio_symmetries(b.symmetry)
    else:
        side_mask = TTT_O_TO_MOVE if game == TICTACTOE else 0  # Nim is impartial
        shifts, trios = (0, 9), np.zeros((1, 8), dtype=np.int64)
    neighbour_mask = np.array([sum(1 << int(t) for t in b.neighbours[s] if t >= 0)
                               for s in range(b.squares)], dtype=np.int64)
    return GameTables(game, side_mask, b.size, b.full, b.not_first_col, b.not_last_col,
                      *shifts, b.row_mask, b.col_mask, neighbour_mask, b.symmetry,
                      symmetry_byte_tables(b.symmetry), trios, np.asarray(ttt_rules.LINES))


# --- inlined primitives over plain arguments ---------------------------------------------


@njit(cache=True, inline="always")
def _image(bb, sym, symmetry_bytes):
    image = 0
    for chunk in range(symmetry_bytes.shape[1]):
        image |= symmetry_bytes[sym, chunk, (bb >> (8 * chunk)) & 0xFF]
    return image


@njit(cache=True, inline="always")
def _emit(targets, step, out, count):
    """Append a move code for each target square, its mover ``step`` squares back."""
    while targets:
        to = lowest_bit_index(targets)
        targets &= targets - 1
        out[count] = (to - step) * 32 + to
        count += 1
    return count


@njit(cache=True, inline="always")
def _generate(state, game, n, full, not_first_col, not_last_col, row_mask, col_mask, out):
    """Legal moves into ``out``; their number."""
    if game == MUSKETEERS:
        # The rules of retro.rules, bit-parallel: one shift per direction finds
        # every piece that can go that way.
        musketeers = (state >> MUSKETEER_SHIFT) & full
        enemies = state >> ENEMY_SHIFT
        if rules.in_line(musketeers, row_mask, col_mask):
            return 0
        movers, targets = rules.movers_and_targets(state & 1, musketeers, enemies, full)
        count = 0
        for direction in range(4):
            count = _emit(rules.step(movers, direction, n, full, not_first_col, not_last_col) & targets,
                          rules.step_offset(direction, n), out, count)
        return count
    count = 0
    if game == TICTACTOE:
        empty = ttt_rules.FULL & ~(state | (state >> 9))
        while empty:
            out[count] = lowest_bit_index(empty)
            empty &= empty - 1
            count += 1
        return count
    for heap in range(NIM_HEAPS):
        for take in range(1, ((state >> (4 * heap)) & 0xF) + 1):
            out[count] = heap * 16 + take
            count += 1
    return count


@njit(cache=True, inline="always")
def _result(state, move, game):
    if game == MUSKETEERS:
        source, target = move >> 5, move & 31
        step = (1 << source) | (1 << target)
        if state & 1:
            return (state ^ (step << ENEMY_SHIFT)) ^ 1
        captured = 1 << (target + ENEMY_SHIFT)
        return ((state ^ (step << MUSKETEER_SHIFT)) & ~captured) ^ 1
    if game == TICTACTOE:
        shift = 9 if state & TTT_O_TO_MOVE else 0
        return (state | (1 << (move + shift))) ^ TTT_O_TO_MOVE
    return state - ((move & 15) << (4 * (move >> 4)))


@njit(cache=True, inline="always")
def _terminal(state, game, n, full, not_first_col, not_last_col, row_mask, col_mask, lines):
    """(over, value for the side to move): +1 win, -1 loss, 0 draw."""
    if game == MUSKETEERS:
        musketeers = (state >> MUSKETEER_SHIFT) & full
        enemies = state >> ENEMY_SHIFT
        if rules.in_line(musketeers, row_mask, col_mask):  # rule 3
            return True, 1 if state & 1 else -1
        movers, targets = rules.movers_and_targets(state & 1, musketeers, enemies, full)
        if (rules.reach(movers, n, full, not_first_col, not_last_col) & targets) == 0:
            # rule 4: the musketeers have won
            return True, -1 if state & 1 else 1
        return False, 0
    if game == TICTACTOE:
        result = ttt_rules.winner(state & 0x1FF, (state >> 9) & 0x1FF, lines)
        if result == ttt_rules.NO_WINNER:
            return False, 0
        if result == ttt_rules.DRAW:
            return True, 0
        return True, 1 if (result == ttt_rules.O) == ((state & TTT_O_TO_MOVE) != 0) else -1
    return state == 0, -1  # normal play: who cannot move (all heaps empty) loses


@njit(cache=True, inline="always")
def _canonical(state, game, side_mask, low_shift, high_shift, cells, symmetry_bytes, trios):
    """(canonical image of ``state``, symmetry mapping state onto it)."""
    if game == MUSKETEERS:
        # Musketeers first: only the symmetries taking them to their smallest image
        # compete (usually one), and the enemy men decide among those. Every image of
        # a position yields the same candidates, hence the same key.
        musketeers = (state >> MUSKETEER_SHIFT) & cells
        enemies = state >> ENEMY_SHIFT
        trio = triple_rank(musketeers)
        best_sym = trios[trio, 0]
        moved = _image(musketeers, best_sym, symmetry_bytes)
        best = _image(enemies, best_sym, symmetry_bytes)
        for i in range(1, 8):
            sym = trios[trio, i]
            if sym < 0:
                break
            image = _image(enemies, sym, symmetry_bytes)
            if image < best:
                best, best_sym = image, sym
        return (state & 1) | (moved << MUSKETEER_SHIFT) | (best << ENEMY_SHIFT), best_sym
    if game == TICTACTOE:
        low = (state >> low_shift) & cells
        high = (state >> high_shift) & cells
        best, best_sym = state, 0
        for sym in range(1, 8):
            image = ((state & side_mask) | (_image(low, sym, symmetry_bytes) << low_shift)
                     | (_image(high, sym, symmetry_bytes) << high_shift))
            if image < best:
                best, best_sym = image, sym
        return best, best_sym
    # Nim: the heaps in decreasing order.
    heaps = [(state >> (4 * h)) & 0xF for h in range(NIM_HEAPS)]
    heaps.sort()
    canonical = 0
    for h in range(NIM_HEAPS):
        canonical |= heaps[NIM_HEAPS - 1 - h] << (4 * h)
    return canonical, 0


@njit(cache=True, inline="always")
def _captures(musketeers, enemies, neighbour_mask):
    count = 0
    rest = musketeers
    while rest:
        count += popcount(neighbour_mask[lowest_bit_index(rest)] & enemies)
        rest &= rest - 1
    return count


@njit(cache=True, inline="always")
def _scores(state, game, full, row_mask, col_mask, neighbour_mask, moves, count, scores):
    """Move-ordering guesses in 0..40 (higher first; all 0 for games without a guess).

    Three Musketeers: mobility after the move. The enemy wants the musketeers left
    with few captures (none at all loses for the enemy, rule 4); the musketeers want
    few enemy men next to them and must not line up. An enemy step from a to b
    changes the musketeers' captures by the musketeers next to b minus those next
    to a: a few popcounts per move.
    """
    if game != MUSKETEERS:
        for i in range(count):
            scores[i] = 0
        return
    musketeers = (state >> MUSKETEER_SHIFT) & full
    enemies = state >> ENEMY_SHIFT
    if state & 1:
        captures = _captures(musketeers, enemies, neighbour_mask)
        for i in range(count):
            source, target = moves[i] >> 5, moves[i] & 31
            after = (captures - popcount(neighbour_mask[source] & musketeers)
                     + popcount(neighbour_mask[target] & musketeers))
            scores[i] = 20 - after if after > 0 else 0
        return
    for i in range(count):
        source, target = moves[i] >> 5, moves[i] & 31
        moved = musketeers ^ (1 << source) ^ (1 << target)
        if rules.in_line(moved, row_mask, col_mask):
            scores[i] = 0
        else:
            after = _captures(moved, enemies & ~(1 << target), neighbour_mask)
            scores[i] = 40 if after == 0 else 20 - after


@njit(cache=True, inline="always")
def _map_move(move, sym, game, square_symmetry):
    """``move`` seen through symmetry ``sym`` (Nim moves are kept as they are)."""
    if move < 0 or game == NIM:
        return move
    if game == MUSKETEERS:
        return square_symmetry[sym, move >> 5] * 32 + square_symmetry[sym, move & 31]
    return square_symmetry[sym, move]


@njit(cache=True, inline="always")
def inverse_symmetry(sym):
    """The symmetry undoing ``sym`` (quarter turns swap; the rest are involutions)."""
    if sym == 1:
        return 3
    if sym == 3:
        return 1
    return sym


# --- the same, over GameTables -------------------------------------------------------------


@njit(cache=True)
def generate(state, g, out):
    """Write the legal moves of ``state`` into ``out``; return their number."""
    return _generate(state, g.game, g.size, g.full, g.not_first_col, g.not_last_col,
                     g.row_mask, g.col_mask, out)


@njit(cache=True)
def result(state, move, g):
    """The state after ``move``."""
    return _result(state, move, g.game)


@njit(cache=True)
def terminal(state, g):
    """(over, value for the side to move): +1 win, -1 loss, 0 draw."""
    return _terminal(state, g.game, g.size, g.full, g.not_first_col, g.not_last_col,
                     g.row_mask, g.col_mask, g.ttt_lines)


@njit(cache=True)
def canonical(state, g):
    """(canonical image of ``state``, the symmetry mapping ``state`` onto it)."""
    return _canonical(state, g.game, g.side_mask, g.low_shift, g.high_shift, g.full,
                      g.symmetry_bytes, g.trio_symmetries)


@njit(cache=True)
def static_scores(state, g, moves, count, scores):
    """Move-ordering guesses for ``moves[:count]`` into ``scores``."""
    _scores(state, g.game, g.full, g.row_mask, g.col_mask, g.neighbour_mask, moves, count, scores)


@njit(cache=True)
def map_move(move, sym, g):
    """``move`` seen through symmetry ``sym``."""
    return _map_move(move, sym, g.game, g.square_symmetry)


# --- Python side ---------------------------------------------------------------------------


def nim_state(heaps: tuple[int, ...]) -> int:
    """Pack up to four heaps of at most 15."""
    if len(heaps) > NIM_HEAPS or any(not 0 <= h <= 15 for h in heaps):
        raise ValueError("Nim here has at most 4 heaps of at most 15")
    return sum(h << (4 * i) for i, h in enumerate(heaps))


def nim_states(heaps: int = 3, largest: int = 5) -> list[int]:
    """Every Nim state with ``heaps`` heaps of at most ``largest``."""
    return [nim_state(tuple(int(s) for s in sizes))
            for sizes in np.ndindex(*([largest + 1] * heaps))]


def ttt_state(board: str) -> int:
    """Pack a tic-tac-toe board written as 9 characters 'X', 'O' or '.' (row by row).

    X moves first, so the side to move follows from the counts.
    """
    cells = board.replace(" ", "").replace("/", "")
    if len(cells) != 9 or set(cells) - set("XO."):
        raise ValueError(f"a tic-tac-toe board is 9 cells of X, O or '.', not {board!r}")
    x = sum(1 << i for i, c in enumerate(cells) if c == "X")
    o = sum(1 << i for i, c in enumerate(cells) if c == "O")
    if not 0 <= x.bit_count() - o.bit_count() <= 1:
        raise ValueError(f"impossible tic-tac-toe board {board!r}")
    return x | (o << 9) | (TTT_O_TO_MOVE if x.bit_count() > o.bit_count() else 0)


def tictactoe_state(position) -> int:
    """Pack a tic-tac-toe position of :mod:`retro.games.tictactoe`."""
    return position.x | (position.o << 9) | (TTT_O_TO_MOVE if position.side.code else 0)


def weak_game(name: str, variant: str = "") -> GameTables | None:
    """The weak solvers' tables of a registered game (by its registry name), or None
    when they do not play it (the morris games: their positions repeat)."""
    if name == "three-musketeers":
        return game_tables(MUSKETEERS, int(variant.split("x")[0]))
    if name == "tic-tac-toe":
        return game_tables(TICTACTOE)
    return None


def pack(position) -> int:
    """A position of a registered game as the weak solvers' state."""
    if isinstance(position, Position):
        return musketeers_state(position)
    return tictactoe_state(position)


def musketeers_state(position: Position) -> int:
    """Pack a :class:`Position`."""
    return (position.side.code
            | (position.musketeers << MUSKETEER_SHIFT)
            | (position.enemies << ENEMY_SHIFT))


def musketeers_position(state: int, size: int) -> Position:
    full = (1 << (size * size)) - 1
    return Position(Side.from_code(state & 1), (state >> MUSKETEER_SHIFT) & full,
                    state >> ENEMY_SHIFT, size)


def tictactoe_move(code: int):
    """A tic-tac-toe move (the square's number) as the game's move."""
    from ..games.tictactoe import NAMES, Move as TicTacToeMove

    return TicTacToeMove(NAMES[code])


def musketeers_move(code: int, size: int) -> Move:
    return Move(square_name(code >> 5, size), square_name(code & 31, size))
