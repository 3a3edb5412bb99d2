"""What every open database is: :class:`Database` (values, moves, best moves, lines,
batches) and the backends of the tier games (:class:`TierDatabase` in memory,
:class:`DiskTierDatabase` a chunk at a time, :class:`WdlDatabase` for win/draw/loss
exports).

This module sits below every backend and below :func:`retro.db.database.open_database`,
which picks the backend of a file: the backends (:mod:`.musketeers`, :mod:`.players`)
subclass these classes, and ``open_database`` imports the backends, so nothing here
may import them (or :mod:`.database`) back. Import from :mod:`retro.db.database`,
which re-exports everything public here.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import h5py
import numpy as np

from .. import games
from ..errors import (
    BoardMismatchError,
    ChecksumError,
    DatabaseClosedError,
    DatabaseError,
    GameOverError,
    PositionError,
    PositionNotInDatabaseError,
)
from ..games.protocol import Game
from ..values import Outcome, draw_value, not_a_position, preference_keys, won_text
from .format import DatabaseFile, build_command, dataset_path
from .hdf5io import CHUNK_BYTES, CODES, HDF5_ERRORS, digest, get_text, read_values
from .wdl import FIRST_WINS, WdlFile, WdlReader, wdl_value

DEFAULT_CACHE_BYTES = 64 << 20  # decompressed chunks kept per database (Three Musketeers)

RNG = int | np.random.Generator | random.Random | None
"""``rng`` arguments: None (deterministic), a seed, or a numpy/stdlib generator."""


def preference(outcome: Outcome, mover) -> tuple[int, int]:
    """Sort key of a move leading to ``outcome``: smaller is better for ``mover``.

    A win beats a draw, a draw beats a loss; a faster win beats a slower one, a
    slower loss a faster one.
    """
    if outcome.winner is None:
        return (1, 0)
    if outcome.winner is mover:
        return (0, outcome.plies)
    return (2, -outcome.plies)


def finished_text(position) -> str:
    """How a finished position ended, in words (its game's sides)."""
    winner = position.winner()
    return "a draw" if winner is None else won_text(winner)


class Database:
    """An open database of one game. Use :func:`open_database`; close it, or use it as a
    context manager.

    ``game`` is the file's game (variant included) and ``tiers`` the tiers it holds.
    Positions may be given as objects of the game or as text in its notation.
    """

    def __init__(self, file: DatabaseFile) -> None:
        self._file = file
        self._closed = False
        self.path = file.path
        self.game: Game = file.game
        self.tiers = tuple(file.tiers)
        self.value_dtype = np.dtype(self.game.value_dtype)
        self._value_type = self.value_dtype.type
        self._keys = preference_keys(self._value_type)
        self._position_type = type(self.game.start())

    # --- the file ---------------------------------------------------------------

    @property
    def digest(self) -> str:
        """SHA-256 naming the values (see :meth:`retro.db.format.DatabaseFile.content_digest`)."""
        self._check_open()
        return self._file.content_digest()

    @property
    def metadata(self) -> dict:
        """The file's self-description: format, game, rules, encoding, build information."""
        self._check_open()
        return self._file.metadata

    @property
    def in_memory(self) -> bool:
        """True once every value is in memory."""
        return True

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Close the file and free the values; later calls raise DatabaseClosedError."""
        self._closed = True
        self._file.close()

    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise DatabaseClosedError(f"the database {self.path} is closed")

    # --- single positions ---------------------------------------------------------

    def probe(self, position) -> Outcome:
        """Who wins ``position`` under perfect play and in how many plies (or a draw).

        ``position`` may be text in the game's notation; bad text raises a
        :class:`~retro.errors.PositionError` subclass naming the problem.
        """
        position = self._position(position)
        return self._outcome(self._value(position), position.side)

    def value(self, position) -> int:
        """The encoded value (see :mod:`retro.values`) of ``position``."""
        return self._value(self._position(position))

    def moves(self, position) -> list[tuple[object, Outcome]]:
        """Every legal move with the outcome of the position it leads to, best first.

        Best for the side to move: wins before draws before losses, faster wins first,
        slower losses first; equally good moves keep the order of the position's
        ``legal_moves()``. A finished position has none.
        """
        return [(move, outcome) for move, _, outcome in self.children(position)]

    def children(self, position) -> list[tuple[object, object, Outcome]]:
        """:meth:`moves` with the position each move leads to: ``(move, after, outcome)``."""
        position = self._position(position)
        moves = position.legal_moves()
        if not moves:
            return []
        after = [position.play(move) for move in moves]
        values = self._values_of(after)
        keys = self._keys[position.side.code][values].astype(np.int64)
        order = np.argsort(-keys, kind="stable")
        side = after[0].side
        return [(moves[i], after[i], self._outcome(int(values[i]), side)) for i in order.tolist()]

    def best_moves(self, position) -> list[tuple[object, Outcome]]:
        """The optimal moves (all equally good) with their outcome; raises when finished."""
        position = self._position(position)
        moves = self.moves(position)
        if not moves:
            raise GameOverError(f"the game is over in {position} ({finished_text(position)}): "
                                "no move to play")
        best = preference(moves[0][1], position.side)
        return [pair for pair in moves if preference(pair[1], position.side) == best]

    def best_move(self, position, rng: RNG = None):
        """One optimal move: the first in :meth:`moves` order, or a random one of the
        equally good when ``rng`` (a seed, ``numpy.random.Generator`` or
        ``random.Random``) is given. Raises :class:`GameOverError` when finished."""
        return choose(self.best_moves(position), rng)[0]

    def line(self, position) -> list:
        """The principal line: optimal moves (deterministic) to the end of the game.

        For a win its length is the value in plies. A drawn position's line stops when
        the game ends drawn or a position comes back (play could go on forever).
        """
        return [move for move, _, _ in self.line_steps(position)]

    def line_steps(self, position) -> list[tuple[object, object, Outcome]]:
        """:meth:`line` with each move's position and outcome: ``(move, after, outcome)``."""
        position = self._position(position)
        steps: list = []
        outcome = self.probe(position)
        limit = outcome.plies
        seen = {position}
        while not position.is_over():
            if limit is not None and len(steps) > limit:  # only a damaged table could get here
                raise ChecksumError(f"{self.path}: the principal line of {position} does not end")
            steps.append(self.children(position)[0])  # the first best move, as best_move()
            position = steps[-1][1]
            if limit is None:
                if position in seen:
                    break
                seen.add(position)
        return steps

    # --- many positions -----------------------------------------------------------

    def probe_many(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """Values of many positions at once: ``(first_side_wins, plies)`` arrays.

        ``positions``: an iterable of positions (objects or text). A draw has
        ``plies`` -1 (and ``first_side_wins`` False). Raises
        :class:`BatchPositionError` for an entry that is not a position, naming its index.
        """
        values = self._values_of(self._checked(positions)).astype(np.int64)
        draws = values == draw_value(self.value_dtype.type)
        return ((values & 1) == 1) & ~draws, np.where(draws, -1, values >> 1)

    def _checked(self, positions) -> list:
        if isinstance(positions, (str, bytes, dict, set, frozenset)) or not isinstance(positions, Iterable):
            raise TypeError("positions must be a list of positions (objects or text), not "
                            f"{type(positions).__name__}")
        checked = []
        for i, p in enumerate(positions):
            try:
                checked.append(self._position(p))
            except (PositionError, DatabaseError, TypeError) as error:
                raise type(error)(f"position {i}: {error}") from error
        return checked

    # --- what a backend provides -------------------------------------------------------

    def _outcome(self, value: int, side) -> Outcome:
        return Outcome.from_value(value, side, self._value_type)

    def _position(self, position):
        """``position`` checked to be one of this database's game (text is parsed)."""
        self._check_open()
        if isinstance(position, str):
            try:
                return self.game.parse(position)
            except PositionError:
                self._refuse_other_game(position)
                raise
        if not isinstance(position, self._position_type):
            if hasattr(position, "legal_moves") and hasattr(position, "side"):
                raise BoardMismatchError(f"the position is not a {self.game.title} position, and "
                                         f"{self.path} holds {self.game.title}")
            raise TypeError(f"expected a {self.game.title} position or its text, got "
                            f"{type(position).__name__}")
        other = self.game.for_position(position)
        if other is not self.game:  # games sharing a Position class (the morris games)
            same_title = other.title == self.game.title  # variants: say which
            raise BoardMismatchError(
                f"the position is a {other.short_name if same_title else other.title} position but "
                f"{self.path} holds {self.game.short_name if same_title else self.game.title}")
        return position

    def _refuse_other_game(self, text: str) -> None:
        """Raise BoardMismatchError when ``text`` is a position of another game."""
        try:
            other, _ = games.identify(text)
        except PositionError:
            return
        if other.name != self.game.name:
            raise BoardMismatchError(f"the position is a {other.title} position but {self.path} "
                                     f"holds {self.game.title}")

    def _value(self, position) -> int:
        raise NotImplementedError

    def _values_of(self, positions: list) -> np.ndarray:
        return np.array([self._value(p) for p in positions], dtype=self.value_dtype)


class TierDatabase(Database):
    """A database whose tiers are read into memory when it opens (every game but Three
    Musketeers: their tables are a few megabytes at most).

    Opening checks every tier's SHA-256 as well as each chunk's Fletcher32, so a value
    rewritten with its chunk's checksum kept is refused rather than answered (a few
    milliseconds for six men's morris: hashing costs a fraction of decompressing).
    """

    def __init__(self, file: DatabaseFile) -> None:
        super().__init__(file)
        self._values: dict = {}
        for tier in self.tiers:
            try:
                dataset = file.dataset(tier)
                stored = read_values(dataset)
                recorded = get_text(dataset.attrs, "sha256")
            except HDF5_ERRORS as error:
                raise file.checksum_error(tier, error) from error
            if digest(stored) != recorded:
                raise file.checksum_error(tier, "its values differ from their SHA-256")
            self._values[tier] = self.game.from_stored(tier, stored)

    @property
    def table_size(self) -> int:
        """Values in the whole table."""
        return sum(len(values) for values in self._values.values())

    def load(self) -> None:
        """Nothing to do: the values are in memory from the start."""
        self._check_open()

    def close(self) -> None:
        super().close()
        self._values = {}

    def _value(self, position) -> int:
        game = self.game
        if not game.stored(position):
            return game.finished_value(position)
        tier = game.tier_of(position)
        values = self._values.get(tier)
        if values is None:
            raise _not_held(self.path, game, position, tier)
        return game.value_for(position, self._read(tier, values, game.index(position)))

    def _read(self, tier, values, entry: int) -> int:
        return int(values[entry])


def _not_held(path, game: Game, position, tier) -> PositionNotInDatabaseError:
    return PositionNotInDatabaseError(
        f"{path} does not hold the tier of {position} ({game.tier_name(tier)}): it holds part "
        f"of the game; build the rest with: {build_command(path, game)}")


class DiskTierDatabase(TierDatabase):
    """A database too large to load (nine men's morris): each probe reads the one HDF5
    chunk holding its value (64 KB, decompressed once and kept in HDF5's chunk cache).

    Opening checks the layout only; ``retro verify`` checks every value against its
    SHA-256 and its moves, and each chunk read is checked against its Fletcher32.
    """

    CACHE_BYTES = 32 << 20  # HDF5's chunk caches over all tiers (each at least one chunk)

    def __init__(self, file: DatabaseFile) -> None:
        Database.__init__(self, file)
        self._values: dict = {}  # tier -> its HDF5 dataset, read as probed
        self._codes: dict = {}  # tier -> the values its stored numbers stand for (None: themselves)
        # HDF5 keeps a chunk cache per open dataset: one budget for them all, so that a
        # server worker of the standard game's 525 tiers stays small (a cache smaller
        # than a chunk would keep none).
        access = h5py.h5p.create(h5py.h5p.DATASET_ACCESS)
        access.set_chunk_cache(521, max(CHUNK_BYTES, self.CACHE_BYTES // max(1, len(self.tiers))), 0.75)
        for tier in self.tiers:
            try:
                name = dataset_path(self.game, tier).encode()
                self._values[tier] = h5py.Dataset(h5py.h5d.open(file.file.id, name, dapl=access))
                codes = self._values[tier].attrs.get(CODES)
                self._codes[tier] = None if codes is None else [int(c) for c in codes]
            except HDF5_ERRORS as error:
                raise file.checksum_error(tier, error) from error
        self._invalid = not_a_position(self._value_type)

    def load(self) -> None:
        """Nothing to do: values are read as they are probed."""
        self._check_open()

    def _read(self, tier, values, entry: int) -> int:
        try:
            stored = int(values[entry])
        except HDF5_ERRORS as error:
            raise self._file.checksum_error(tier, error) from error
        codes = self._codes[tier]
        if codes is None:
            return stored
        # A number past the codes (only a damaged file has one) reads as "not a
        # position", which every reader refuses, as hdf5io.value_table has it.
        return codes[stored] if stored < len(codes) else self._invalid


class WdlDatabase(Database):
    """A win/draw/loss export (``retro export --wdl``): who wins each position, not in
    how many plies. Probes and moves answer with ``plies`` None for a win (0 for a
    finished position); a principal line needs the full database.

    Each probe decompresses the one block holding its entry (2^18 entries, about a
    millisecond) and keeps the last few; every block read is checked against its
    Fletcher32, ``retro verify`` checks every tier against its SHA-256.
    """

    def __init__(self, file: WdlFile) -> None:
        super().__init__(file)
        self._reader = WdlReader(file)
        self._held = frozenset(self.tiers)
        self._unknown = wdl_value(FIRST_WINS, self._value_type) >> 1  # the plies standing for "unknown"

    @property
    def in_memory(self) -> bool:
        return False

    @property
    def source_digest(self) -> str:
        """The content digest of the database it was exported from."""
        return self._file.source_digest

    def load(self) -> None:
        """Nothing to do: entries are read as they are probed."""
        self._check_open()

    def check(self, tier) -> str | None:
        """Why a tier cannot be trusted (every block decoded, its SHA-256 compared), or None."""
        self._check_open()
        return self._reader.check(tier)

    def line_steps(self, position) -> list[tuple[object, object, Outcome]]:
        raise DatabaseError(f"{self.path} is a win/draw/loss export: it holds who wins, not in "
                            "how many plies, so it has no principal line; use the full database")

    def _outcome(self, value: int, side) -> Outcome:
        outcome = super()._outcome(value, side)
        if outcome.winner is not None and outcome.plies == self._unknown:
            return Outcome(outcome.winner, None, side)
        return outcome

    def _value(self, position) -> int:
        game = self.game
        if not game.stored(position) or position.is_over():  # a finished one's 0 plies are known
            return game.finished_value(position)
        tier = game.tier_of(position)
        if tier not in self._held:
            raise PositionNotInDatabaseError(
                f"{self.path} does not hold the tier of {position} ({game.tier_name(tier)}): "
                "it was exported from a database of part of the game")
        entry = self._reader.entry(tier, game.index(position))
        return game.value_for(position, wdl_value(entry, self._value_type))


def choose(candidates: list, rng: RNG = None):
    """The first candidate when ``rng`` is None, else a random one (seed or generator)."""
    if not candidates:
        raise ValueError("nothing to choose from")
    if rng is None or len(candidates) == 1:
        return candidates[0]
    if isinstance(rng, bool):
        raise TypeError("rng must be None, an int seed, a numpy Generator or a random.Random")
    if isinstance(rng, (int, np.integer)):
        rng = np.random.default_rng(int(rng))
    if isinstance(rng, np.random.Generator):
        return candidates[int(rng.integers(len(candidates)))]
    if isinstance(rng, random.Random):
        return candidates[rng.randrange(len(candidates))]
    raise TypeError("rng must be None, an int seed, a numpy Generator or a random.Random")



__all__ = [
    "DEFAULT_CACHE_BYTES", "RNG", "Database", "DiskTierDatabase", "TierDatabase", "WdlDatabase",
    "choose", "finished_text", "preference",
]
