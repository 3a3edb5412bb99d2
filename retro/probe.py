"""Probing a built database: the value of any position of its board size.

>>> with retro.open_database("db/three-musketeers-5x5.h5") as db:
...     db.probe(Position.start())
Outcome(winner=<Side.ENEMY: 'enemy'>, plies=..., side_to_move=<Side.MUSKETEERS: ...>)
"""

from __future__ import annotations

import os
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numba
import numpy as np
from numba import njit

from . import rules
from .bits import popcount
from .indexing import encode
from .outcome import ENEMY_WON, MUSKETEERS_WON, PREFERENCE_KEYS, VALUE_OF_BEST_KEY, Outcome
from .position import Position, Side
from .storage import (
    BoardMismatchError,
    DatabaseFile,
    PositionNotInDatabaseError,
    default_path,
    storage_perm,
    storage_rank,
)

CACHED_CHUNKS = 1024  # decompressed chunks kept per database (64 KiB each)


@njit(cache=True)
def stored_location(musketeers, enemies, ix, perm):
    """(layer, placement, column) of an enemy-to-move position in the stored tables."""
    p, mask = encode(musketeers, enemies, ix)
    return popcount(mask), p, storage_rank(p, mask, perm, ix.rank_table)


@njit(cache=True)
def capture_locations(musketeers, enemies, ix, perm, out):
    """Stored locations of the positions after each capture; their number.

    -1 when the musketeers stand in a line (the game is over, the enemy has won).
    """
    b = ix.board
    if rules.aligned(musketeers, b):
        return -1
    moves = np.empty((4 * b.squares, 2), dtype=np.int64)
    count = rules.legal_moves(rules.MUSKETEERS, musketeers, enemies, b, moves)
    for i in range(count):
        child_m, child_e = rules.play(rules.MUSKETEERS, musketeers, enemies, moves[i, 0], moves[i, 1])
        out[i, 0], out[i, 1], out[i, 2] = stored_location(child_m, child_e, ix, perm)
    return count


# probe_many status codes, one per position
OK, BAD_SIDE, BAD_PIECES, TOO_MANY_MEN = 0, 1, 2, 3


@njit(cache=True, nogil=True)
def probe_batch(side, musketeers, enemies, ix, perm, flat, offsets, max_guards, values, status):
    """Values of many positions from the in-memory table ``flat``.

    ``flat`` holds every stored layer, layer k starting at ``offsets[k]`` with rows
    of ``C(free, k)`` values; ``status`` receives a code per position (0 when valid).
    """
    b = ix.board
    children = np.empty((4 * rules.MUSKETEER_COUNT, 3), dtype=np.int64)
    keys = PREFERENCE_KEYS[rules.MUSKETEERS]
    best_values = VALUE_OF_BEST_KEY[rules.MUSKETEERS]
    for i in range(len(side)):
        m = np.int64(musketeers[i])
        e = np.int64(enemies[i])
        values[i] = 0
        if side[i] != rules.MUSKETEERS and side[i] != rules.ENEMY:
            status[i] = BAD_SIDE
            continue
        if m < 0 or e < 0 or (m | e) & ~b.full or m & e or popcount(m) != rules.MUSKETEER_COUNT:
            status[i] = BAD_PIECES
            continue
        if popcount(e) > max_guards:
            status[i] = TOO_MANY_MEN
            continue
        status[i] = OK
        if side[i] == rules.ENEMY:
            k, p, col = stored_location(m, e, ix, perm)
            values[i] = flat[offsets[k] + p * ((offsets[k + 1] - offsets[k]) // ix.placements.shape[0]) + col]
            continue
        count = capture_locations(m, e, ix, perm, children)
        if count < 0:
            values[i] = ENEMY_WON
        elif count == 0:
            values[i] = MUSKETEERS_WON
        else:
            best = 0
            for c in range(count):
                k, p, col = children[c, 0], children[c, 1], children[c, 2]
                row = (offsets[k + 1] - offsets[k]) // ix.placements.shape[0]
                best = max(best, keys[flat[offsets[k] + p * row + col]])
            values[i] = best_values[best]


class Database:
    """An open database. Use :func:`open_database`; close it, or use it as a context manager."""

    def __init__(self, path: str | os.PathLike, *, in_memory: bool = False) -> None:
        self._file = DatabaseFile(path)
        self.path = self._file.path
        self.size = self._file.size
        self.max_guards = self._file.max_guards
        self._ix = self._file.indexer
        self._perm = storage_perm(self.size)
        self._chunks: OrderedDict[tuple[int, int, int], np.ndarray] = OrderedDict()
        self._flat: np.ndarray | None = None
        self._offsets: np.ndarray | None = None
        if in_memory:
            self.load()

    def load(self) -> None:
        """Read every layer into memory (once); later probes touch no file."""
        if self._flat is not None:
            return
        sizes = [self._file.dataset(k).size for k in range(self.max_guards + 1)]
        self._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self._flat = np.empty(int(self._offsets[-1]), dtype=np.uint8)
        for k in range(self.max_guards + 1):
            start, stop = self._offsets[k], self._offsets[k + 1]
            self._flat[start:stop] = self._file.read(k).ravel()
    @property
    def metadata(self) -> dict:
        """The file's self-description: format, rules, encoding, build information."""
        return self._file.metadata

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._file.close()

    # --- single positions ----------------------------------------------------

    def probe(self, position: Position) -> Outcome:
        """Who wins ``position`` under perfect play, and in how many plies."""
        return Outcome.from_value(self.value(position), position.side)

    def value(self, position: Position) -> int:
        """The encoded value (see :mod:`retro.outcome`) of ``position``."""
        self._check(position)
        if position.side is Side.ENEMY:
            return self._read(*stored_location(position.musketeers, position.enemies, self._ix, self._perm))
        children = np.empty((4 * rules.MUSKETEER_COUNT, 3), dtype=np.int64)
        count = capture_locations(position.musketeers, position.enemies, self._ix, self._perm, children)
        if count < 0:
            return ENEMY_WON
        if count == 0:
            return MUSKETEERS_WON
        keys = PREFERENCE_KEYS[rules.MUSKETEERS]
        best = max(keys[self._read(*location)] for location in children[:count])
        return int(VALUE_OF_BEST_KEY[rules.MUSKETEERS][best])

    # --- many positions ------------------------------------------------------

    def probe_many(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """Values of many positions at once: ``(musketeers_win, plies)`` arrays.

        ``positions`` is an iterable of :class:`Position`, or the fast path: a tuple of
        three equal-length integer arrays ``(side, musketeers, enemies)`` with side 0
        for the musketeers to move and 1 for the enemy, and bitboards whose bit
        ``row * n + col`` stands for row ``row + 1``, column ``"abcde"[col]``.
        The first call loads the whole table into memory.
        """
        side, musketeers, enemies = self._as_arrays(positions)
        self.load()
        values = np.empty(len(side), dtype=np.uint8)
        status = np.empty(len(side), dtype=np.uint8)
        args = (self._ix, self._perm, self._flat, self._offsets, self.max_guards)
        threads = max(1, min(numba.get_num_threads(), len(side) // 100_000))
        if threads == 1:
            probe_batch(side, musketeers, enemies, *args, values, status)
        else:
            bounds = np.linspace(0, len(side), threads + 1).astype(np.int64)
            with ThreadPoolExecutor(threads) as pool:
                for job in [pool.submit(probe_batch, side[a:z], musketeers[a:z], enemies[a:z],
                                        *args, values[a:z], status[a:z])
                            for a, z in zip(bounds[:-1], bounds[1:])]:
                    job.result()
        bad = np.flatnonzero(status)
        if len(bad):
            self._raise_for(int(bad[0]), int(status[bad[0]]), side, musketeers, enemies)
        return (values & 1).astype(bool), (values >> 1).astype(np.int64)

    def _as_arrays(self, positions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if isinstance(positions, tuple) and len(positions) == 3 and all(
            isinstance(a, np.ndarray) for a in positions
        ):
            arrays = [np.ascontiguousarray(a) for a in positions]
            if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
                raise ValueError("side, musketeers and enemies must be 1-d arrays of one length")
            if not all(np.issubdtype(a.dtype, np.integer) for a in arrays):
                raise TypeError("side, musketeers and enemies must be integer arrays")
            return tuple(a.astype(np.int64, copy=False) for a in arrays)
        positions = list(positions)
        for position in positions:
            if not isinstance(position, Position):
                raise TypeError(f"expected Position objects or a (side, musketeers, enemies) "
                                f"tuple of arrays, got {type(position).__name__}")
            if position.size != self.size:
                self._check(position)
        return (
            np.array([p.side.code for p in positions], dtype=np.int64),
            np.array([p.musketeers for p in positions], dtype=np.int64),
            np.array([p.enemies for p in positions], dtype=np.int64),
        )

    def _raise_for(self, i: int, code: int, side, musketeers, enemies) -> None:
        where = f"position {i} (side={side[i]}, musketeers={musketeers[i]:#x}, enemies={enemies[i]:#x})"
        if code == BAD_SIDE:
            raise ValueError(f"{where}: side must be 0 (musketeers) or 1 (enemy)")
        if code == BAD_PIECES:
            raise ValueError(f"{where}: not a {self.size}x{self.size} position with exactly "
                             "3 musketeers and enemy men on other squares")
        raise PositionNotInDatabaseError(
            f"{where} has {int(enemies[i]).bit_count()} enemy men; {self.path} holds positions "
            f"with 0..{self.max_guards} (built with --max-guards {self.max_guards})"
        )

    def _check(self, position: Position) -> None:
        if position.size != self.size:
            raise BoardMismatchError(
                f"the position is on a {position.size}x{position.size} board but "
                f"{self.path} holds the {self.size}x{self.size} database"
            )
        if position.enemy_count > self.max_guards:
            raise PositionNotInDatabaseError(
                f"the position has {position.enemy_count} enemy men; {self.path} holds "
                f"positions with 0..{self.max_guards} (built with --max-guards {self.max_guards})"
            )

    def _read(self, k, p, col) -> int:
        k, p, col = int(k), int(p), int(col)
        if self._flat is not None:
            row = (self._offsets[k + 1] - self._offsets[k]) // self._ix.placement_count
            return int(self._flat[self._offsets[k] + p * row + col])
        rows, cols = self._file.dataset(k).chunks
        key = (k, p // rows, col // cols)
        block = self._chunks.get(key)
        if block is None:
            r0, c0 = key[1] * rows, key[2] * cols
            block = self._file.read(k, slice(r0, r0 + rows), slice(c0, c0 + cols))
            self._chunks[key] = block
            if len(self._chunks) > CACHED_CHUNKS:
                self._chunks.popitem(last=False)
        else:
            self._chunks.move_to_end(key)
        return int(block[p % rows, col % cols])


def open_database(path: str | os.PathLike | None = None, *, size: int = rules.DEFAULT_SIZE,
                  in_memory: bool = False) -> Database:
    """Open a database built by ``retro build`` (default: ``db/three-musketeers-5x5.h5``).

    Raises :class:`~retro.storage.DatabaseNotFoundError` when the file is missing,
    :class:`~retro.storage.NotADatabaseError` for other files and
    :class:`~retro.storage.IncompleteDatabaseError` for an unfinished build.
    ``in_memory=True`` loads every layer at once instead of reading chunks on demand.
    """
    return Database(Path(path) if path is not None else default_path(size), in_memory=in_memory)
