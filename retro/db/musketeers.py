"""Three Musketeers' database backend: on-disk chunk caches and jitted probing kernels.

Only enemy-to-move values are stored (see :mod:`retro.games.musketeers.layout`); a
musketeers-to-move value is the best over its captures, one lookup each.

Two modes:

* **on disk** (the default): a probe reads only the chunks it touches. Decompressed
  chunks are kept in an LRU cache keyed by chunk (``cache_bytes``, 64 MiB by
  default), so a warm probe touches no HDF5 machinery at all; HDF5's own chunk cache
  is kept small (:data:`HDF5_CACHE_BYTES`) because it would only hold second copies.
  :meth:`MusketeersDatabase.probe_many` groups the requested table entries by chunk
  and reads each touched chunk once.
* **in memory** (``open_database(path, in_memory=True)``, or
  :meth:`MusketeersDatabase.load`): every layer is read once into one flat array;
  probes are then pure array lookups.

The kernels that locate a position's table entries live in
:mod:`retro.games.musketeers.lookup`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np

from ..errors import (
    BatchPositionError,
    BoardMismatchError,
    PositionError,
    PositionNotInDatabaseError,
    DatabaseError,
)
from ..games.musketeers import rules
from ..games.musketeers.lookup import (
    ALIGNED,
    BAD_PIECES,
    BAD_SIDE,
    board_arguments,
    children_in_memory,
    chunk_geometry,
    child_positions,
    combine_many,
    first_invalid,
    locate_many,
    memory_arguments,
    position_addresses,
    probe_memory,
    probe_tables,
    status,
    value_in_memory,
)
from ..games.musketeers.position import Move, Position
from ..values import ENEMY_WON, PREFERENCE_KEYS, VALUE_OF_BEST_KEY, Outcome
from .base import DEFAULT_CACHE_BYTES, Database
from .format import DatabaseFile
from .hdf5io import HDF5_ERRORS

HDF5_CACHE_BYTES = 4 << 20  # HDF5's own cache: a few raw chunks, retro caches the rest
BATCH_PIECE = 1 << 19  # on-disk batches are located in pieces of this many positions
THREAD_MIN_POSITIONS = 100_000  # in-memory batches split over threads above this size

_MUSKETEER_KEYS = PREFERENCE_KEYS[rules.MUSKETEERS].tolist()
_MUSKETEER_VALUES = VALUE_OF_BEST_KEY[rules.MUSKETEERS].tolist()


class MusketeersDatabase(Database):
    """A Three Musketeers database: on disk by default, or in memory (see the module
    docstring). Use :func:`retro.open_database`."""

    def __init__(self, file: DatabaseFile, *, in_memory: bool = False,
                 cache_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        super().__init__(file)
        self.size = self._file.size
        self.max_enemy_men = self._file.max_enemy_men
        self.max_guards = self.max_enemy_men  # the name of retro 0.2
        self._board = rules.board(self.size)
        self._tables = probe_tables(self.size, self.max_enemy_men)
        self._memory_arguments = memory_arguments(self._tables)
        self._board_arguments = board_arguments(self._board)
        self._datasets = [self._file.dataset(k) for k in range(self.max_enemy_men + 1)]
        self._geometry = chunk_geometry(self._datasets, self._tables.offsets)
        self._cache_chunks = max(1, cache_bytes // (1 << 16))
        # chunk number -> its padded values as bytes: indexing bytes gives plain ints fast
        self._chunks: OrderedDict[int, bytes] = OrderedDict()
        self._addresses = np.empty((4 * rules.MUSKETEER_COUNT, 2), dtype=np.int64)
        self._flat: np.ndarray | None = None
        self.chunk_reads = 0  # chunks decompressed so far (on-disk mode)
        if in_memory:
            try:
                self.load()
            except BaseException:
                self.close()
                raise

    @property
    def in_memory(self) -> bool:
        """True once every layer has been read into memory."""
        return self._flat is not None

    @property
    def table_size(self) -> int:
        """Values in the whole table (bytes of :meth:`load`'s array)."""
        return int(self._tables.offsets[-1])

    def load(self, into: np.ndarray | None = None) -> None:
        """Read every layer into memory (once); later probes touch no file.

        ``into``, a writable uint8 array of :attr:`table_size` values (shared memory,
        say), receives the table instead of a new array.
        """
        self._check_open()
        if self._flat is not None:
            return
        offsets = self._tables.offsets
        flat = np.empty(self.table_size, dtype=np.uint8) if into is None else into
        self._check_table(flat)
        for k, dataset in enumerate(self._datasets):
            view = flat[offsets[k]:offsets[k + 1]].reshape(dataset.shape)
            try:
                dataset.read_direct(view)
            except HDF5_ERRORS as error:
                raise self._file.checksum_error(k, error) from error
        self._in_memory(flat)

    def attach(self, table: np.ndarray) -> None:
        """Answer from ``table``, the whole table already in memory (as :meth:`load`
        fills it, perhaps by another process into memory they share)."""
        self._check_open()
        self._check_table(table)
        self._in_memory(table)

    def _in_memory(self, table: np.ndarray) -> None:
        """Answer from ``table`` from now on, and free what reading from disk held: the
        decompressed chunks, and each layer's own HDF5 chunk cache (up to
        HDF5_CACHE_BYTES per layer, about 90 MB for 5x5 after many probes on disk),
        dropped with the datasets that hold it."""
        self._flat = table
        self._chunks.clear()
        self._datasets = []  # never read again: probes in memory touch no file

    def _check_table(self, table: np.ndarray) -> None:
        if not (isinstance(table, np.ndarray) and table.dtype == np.uint8 and table.ndim == 1
                and len(table) == self.table_size):
            raise ValueError(f"the table must be a 1-d uint8 array of {self.table_size:,} values")

    def close(self) -> None:
        """Close the file and free the cached values; later calls raise DatabaseClosedError."""
        super().close()
        self._chunks.clear()
        self._flat = None

    def children(self, position: Position | str) -> list[tuple[Move, Position, Outcome]]:
        """:meth:`moves` with the position each move leads to: ``(move, after, outcome)``."""
        position = self._position(position)
        after, n = position.side.other, self.size
        make, between, outcome = Position._make, Move.between, Outcome.from_value
        return [(between(s, t, n), make(after, m, e, n), outcome(v, after))
                for s, t, m, e, v in self._rows(position, with_value=False)[1].tolist()]

    def child_rows(self, position: Position | str) -> np.ndarray:
        """:meth:`children` as an int64 array, one row per move, best first:
        (source square, target square, child's musketeers, child's enemies, child's
        encoded value). The fast form, for front ends that format many answers."""
        return self._rows(self._position(position), with_value=False)[1]

    def probe_rows(self, position: Position | str) -> tuple[Outcome, np.ndarray]:
        """:meth:`probe` and :meth:`child_rows` together, in one pass when in memory."""
        return self._rows(self._position(position), with_value=True)

    def _rows(self, position: Position, with_value: bool) -> tuple[Outcome | None, np.ndarray]:
        """(outcome, child rows) of a checked position; on disk the outcome costs a
        probe of its own, so it is None unless ``with_value``."""
        side = position.side.code
        out = np.empty((4 * self._board.squares, 5), dtype=np.int64)
        if self._flat is not None:  # one kernel: the value, the moves, their values, the order
            count, value = children_in_memory(side, position.musketeers, position.enemies,
                                              *self._board_arguments, *self._memory_arguments,
                                              self._flat, out)
            return Outcome.from_value(value, position.side), out[:count]
        outcome = Outcome.from_value(self._value(position), position.side) if with_value else None
        count = child_positions(side, position.musketeers, position.enemies, self._board, out)
        if count == 0:
            return outcome, out[:0]
        rows = out[:count]
        # Children of a valid position are valid, with no more men: no checks needed.
        values = self._values_unchecked(np.full(count, 1 - side, dtype=np.int64),
                                        np.ascontiguousarray(rows[:, 2]),
                                        np.ascontiguousarray(rows[:, 3]))
        rows[:, 4] = values
        keys = PREFERENCE_KEYS[side][values]
        return outcome, rows[np.argsort(-keys.astype(np.int64), kind="stable")]

    def probe_many(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """Values of many positions at once: ``(musketeers_win, plies)`` arrays.

        ``positions`` is an iterable of :class:`Position`, or the fast path: a tuple of
        three equal-length integer arrays ``(side, musketeers, enemies)`` with side 0
        for the musketeers to move and 1 for the enemy, and bitboards whose bit
        ``row * n + col`` stands for row ``row + 1``, column ``"abcde"[col]``.
        On disk only the chunks the batch touches are read, each once.
        Raises :class:`BatchPositionError` for an entry that is not a position.
        """
        values = self._values(*self._as_arrays(positions))
        return (values & 1).astype(bool), (values >> 1).astype(np.int64)

    def _values(self, side: np.ndarray, musketeers: np.ndarray, enemies: np.ndarray) -> np.ndarray:
        """Encoded values of int64 arrays; raises for the first invalid entry."""
        self._check_open()
        bad = first_invalid(side, musketeers, enemies, self._tables, self.max_enemy_men)
        if bad >= 0:
            self._raise_for(bad, side, musketeers, enemies)
        return self._values_unchecked(side, musketeers, enemies)

    def _values_unchecked(self, side: np.ndarray, musketeers: np.ndarray,
                          enemies: np.ndarray) -> np.ndarray:
        if self._flat is not None:
            return self._values_in_memory(side, musketeers, enemies)
        return self._values_on_disk(side, musketeers, enemies)

    def _values_in_memory(self, side, musketeers, enemies) -> np.ndarray:
        n = len(side)
        values = np.empty(n, dtype=np.uint8)
        # numba.get_num_threads() costs more than probing a few positions: ask only when
        # the batch is large enough to split.
        threads = 1 if n < 2 * THREAD_MIN_POSITIONS else min(numba.get_num_threads(),
                                                              n // THREAD_MIN_POSITIONS)
        if threads == 1:
            probe_memory(side, musketeers, enemies, self._tables, self._flat, values)
            return values
        bounds = np.linspace(0, n, threads + 1).astype(np.int64)
        with ThreadPoolExecutor(threads) as pool:
            jobs = [pool.submit(probe_memory, side[a:z], musketeers[a:z], enemies[a:z],
                                self._tables, self._flat, values[a:z])
                    for a, z in zip(bounds[:-1], bounds[1:])]
            for job in jobs:
                job.result()
        return values

    def _values_on_disk(self, side, musketeers, enemies) -> np.ndarray:
        n = len(side)
        values = np.empty(n, dtype=np.uint8)
        for a in range(0, n, BATCH_PIECE):
            z = min(n, a + BATCH_PIECE)
            s, m, e = side[a:z], musketeers[a:z], enemies[a:z]
            addresses = np.empty((4 * rules.MUSKETEER_COUNT * (z - a), 2), dtype=np.int64)
            first = np.empty(z - a + 1, dtype=np.int64)
            used = locate_many(s, m, e, self._tables, self._geometry, addresses, first)
            addresses = addresses[:used]
            got = np.empty(used, dtype=np.uint8)
            # Group the entries by chunk so that each touched chunk is read once.
            order = np.argsort(addresses[:, 0], kind="stable")
            chunk_ids = addresses[order, 0]
            starts = np.flatnonzero(np.diff(chunk_ids, prepend=-1))
            ends = np.append(starts[1:], used)
            for lo, hi in zip(starts.tolist(), ends.tolist()):
                block = self._chunk_array(int(chunk_ids[lo]))
                entries = order[lo:hi]
                got[entries] = block[addresses[entries, 1]]
            combine_many(s, m, self._tables, got, first, values[a:z])
        return values

    def _as_arrays(self, positions) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if (isinstance(positions, tuple) and len(positions) == 3
                and not any(isinstance(p, Position) for p in positions)):
            arrays = [np.asarray(a) for a in positions]
            if len({a.shape for a in arrays}) != 1 or arrays[0].ndim != 1:
                raise ValueError("side, musketeers and enemies must be 1-d arrays of one length")
            if not all(np.issubdtype(a.dtype, np.integer) or a.size == 0 for a in arrays):
                raise TypeError("side, musketeers and enemies must be integer arrays")
            return tuple(np.ascontiguousarray(a, dtype=np.int64) for a in arrays)
        if isinstance(positions, (str, bytes, dict, set, frozenset, Position)) or not isinstance(
                positions, Iterable):
            raise TypeError("positions must be a list of positions (Position or text) or a "
                            f"(side, musketeers, enemies) tuple of arrays, not {type(positions).__name__}")
        checked = []
        for i, p in enumerate(positions):
            try:
                checked.append(self._position(p, check_layer=False))
            except (PositionError, DatabaseError, TypeError) as error:
                raise type(error)(f"position {i}: {error}") from error
        positions = checked
        return (
            np.array([p.side.code for p in positions], dtype=np.int64),
            np.array([p.musketeers for p in positions], dtype=np.int64),
            np.array([p.enemies for p in positions], dtype=np.int64),
        )

    def _raise_for(self, i: int, side, musketeers, enemies) -> None:
        code = status(side[i], musketeers[i], enemies[i], self._tables.full, self.max_enemy_men)
        where = f"position {i} (side={side[i]}, musketeers={musketeers[i]:#x}, enemies={enemies[i]:#x})"
        if code == BAD_SIDE:
            raise BatchPositionError(f"{where}: side must be 0 (musketeers) or 1 (enemy)")
        if code == BAD_PIECES:
            raise BatchPositionError(f"{where}: not a {self.size}x{self.size} position with exactly "
                                     "3 musketeers and enemy men on other squares")
        raise PositionNotInDatabaseError(
            f"{where} has {int(enemies[i]).bit_count()} enemy men; {self.path} holds positions "
            f"with 0..{self.max_enemy_men} (built with --max-enemy-men {self.max_enemy_men})"
        )

    # --- internals -----------------------------------------------------------

    def probe(self, position: Position | str) -> Outcome:
        """Who wins ``position`` under perfect play and in how many plies (see
        :meth:`Database.probe`; the same, without the generic layers: a probe costs a
        few microseconds)."""
        position = self._position(position)
        return Outcome.from_value(self._value(position), position.side)

    def _position(self, position: Position | str, *, check_layer: bool = True) -> Position:
        if self._closed or not isinstance(position, Position):
            position = super()._position(position)  # closed, text or another game's
        if position.size != self.size:
            raise BoardMismatchError(
                f"the position is on a {position.size}x{position.size} board but "
                f"{self.path} holds the {self.size}x{self.size} database"
            )
        if check_layer and position.enemy_count > self.max_enemy_men:
            raise PositionNotInDatabaseError(
                f"the position has {position.enemy_count} enemy men; {self.path} holds "
                f"positions with 0..{self.max_enemy_men} (built with --max-enemy-men {self.max_enemy_men})"
            )
        return position

    def _value(self, position: Position) -> int:
        side = position.side.code
        if self._flat is not None:
            return int(value_in_memory(side, position.musketeers, position.enemies,
                                       *self._memory_arguments, self._flat))
        count = position_addresses(side, position.musketeers, position.enemies,
                                   self._tables, self._geometry, self._addresses)
        if count == ALIGNED:
            return ENEMY_WON
        entries = [self._entry(*address) for address in self._addresses[:count].tolist()]
        if side == rules.ENEMY:
            return entries[0]
        return _MUSKETEER_VALUES[max((_MUSKETEER_KEYS[v] for v in entries), default=0)]

    def _entry(self, chunk: int, offset: int) -> int:
        data = self._chunks.get(chunk)
        if data is None:
            self._chunk_array(chunk)
            data = self._chunks[chunk]
        else:
            self._chunks.move_to_end(chunk)
        return data[offset]

    def _chunk_array(self, chunk: int) -> np.ndarray:
        """The values of a chunk, padded to the full chunk shape, flat (LRU-cached)."""
        data = self._chunks.get(chunk)
        if data is not None:
            self._chunks.move_to_end(chunk)
            return np.frombuffer(data, dtype=np.uint8)
        g = self._geometry
        k = int(np.searchsorted(g.first_chunk, chunk, side="right")) - 1
        chunk_row, chunk_col = divmod(chunk - int(g.first_chunk[k]), int(g.col_chunks[k]))
        rows, cols = int(g.chunk_rows[k]), int(g.chunk_cols[k])
        r0, c0 = chunk_row * rows, chunk_col * cols
        try:
            block = self._datasets[k][r0:r0 + rows, c0:c0 + cols]
        except HDF5_ERRORS as error:
            raise self._file.checksum_error(k, error) from error
        if block.shape != (rows, cols):  # an edge chunk
            padded = np.zeros((rows, cols), dtype=np.uint8)
            padded[:block.shape[0], :block.shape[1]] = block
            block = padded
        self.chunk_reads += 1
        data = block.tobytes()
        self._chunks[chunk] = data
        if len(self._chunks) > self._cache_chunks:
            self._chunks.popitem(last=False)
        return np.frombuffer(data, dtype=np.uint8)
