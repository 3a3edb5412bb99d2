"""Probing a built database, for every game: values, moves, best moves, lines, batches.

>>> with retro.open_database("db/three-musketeers-5x5.h5") as db:
...     db.probe(db.game.start())
Outcome(winner=<Side.ENEMY: 'enemy'>, plies=33, side_to_move=<Side.MUSKETEERS: ...>)

:func:`open_database` reads the file's header and returns the :class:`Database` of
its game: the values of every position, and everything derived from them (each
move's outcome, best first; the principal line; batches). The game supplies the
rules (legal moves, finished positions, the index); the database only looks values
up. Three Musketeers has a faster backend of its own (:mod:`retro.db.musketeers`:
on-disk chunk caches, jitted kernels, one-ply search for the unstored side); the
other games' tables are small and are read into memory when opened
(:class:`TierDatabase`).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterable
from pathlib import Path

import h5py
import numpy as np

from .. import games
from ..errors import (  # BatchPositionError and GameOverError re-exported
    BatchPositionError,
    BoardMismatchError,
    ChecksumError,
    DatabaseClosedError,
    DatabaseError,
    DatabaseNotFoundError,
    GameMismatchError,
    GameOverError,
    IncompleteDatabaseError,
    PositionError,
    PositionNotInDatabaseError,
)
from ..games.protocol import Game
from ..values import Outcome, draw_value, not_a_position, preference_keys, won_text
from . import locations
from .format import (
    DatabaseFile,
    dataset_path,
    build_command,  # re-exported
    default_path,
    partial_path,
    resume_command,
)
from .hdf5io import CHUNK_BYTES, CODES, HDF5_ERRORS, digest, get_text, read_values
from .wdl import FIRST_WINS, WdlFile, WdlReader, is_wdl_file, wdl_value

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


def open_database(path: str | os.PathLike | None = None, *, game: Game | str | None = None,
                  size: int | None = None, in_memory: bool = False,
                  cache_bytes: int = DEFAULT_CACHE_BYTES, hint: Game | None = None) -> Database:
    """Open a database built by ``retro build`` (default: ``db/three-musketeers-5x5.h5``).

    ``game`` (a game or its name) or ``size`` (a Three Musketeers board size) picks the
    default file of that game when ``path`` is None; with ``path``, the file must hold
    that game (any variant for a name, that very variant for a game object), else
    :class:`~retro.errors.GameMismatchError` (a ``ValueError``). ``hint`` only names the
    game in the build command of the error when the file is missing (``game`` does
    too). Raises
    :class:`~retro.errors.DatabaseNotFoundError` (with the command that builds it),
    :class:`~retro.errors.NotADatabaseError` for other files,
    :class:`~retro.errors.IncompleteDatabaseError` for an unfinished build (a file not
    marked complete, or no file yet but the ``<path>.partial/`` checkpoints of an
    interrupted build) and :class:`~retro.errors.ChecksumError` when loading finds
    damage. Three Musketeers: ``in_memory=True`` loads every layer at once instead of
    reading chunks on demand; ``cache_bytes`` bounds the decompressed chunks kept on disk.
    """
    asked = game
    if isinstance(game, str):
        game = games.get(game)
    if game is None and size is not None:
        game = asked = games.musketeers_board(size)
    target = default_path(game) if path is None else Path(os.path.abspath(path))
    game = game or hint
    try:
        db = _open(target, in_memory=in_memory, cache_bytes=cache_bytes)
    except DatabaseNotFoundError as error:
        # An interrupted build leaves only its checkpoints: the file appears once the
        # build finishes, so "build it" would hide that resuming is all it takes.
        partial = partial_path(target)
        if partial.is_dir():
            tiers = sum(1 for p in partial.iterdir() if p.suffix in (".h5", ".npy"))
            command = resume_command(target, game)
            what = "layers" if command.startswith("retro build --board") else "tiers"
            raise IncompleteDatabaseError(
                f"the build of {target} did not finish ({tiers} {what} checkpointed in "
                f"{partial}); to resume it, run: {command}"
            ) from error
        if path is None:  # the default file: say where it was looked for
            wanted = (game or games.get()).full_name
            elsewhere = locations.built_elsewhere(wanted)
            if elsewhere:  # under another name: the search never reads it, --db does
                raise DatabaseNotFoundError(
                    f"no {wanted} database found under its default name (looked in "
                    f"{locations.searched()}); retro build wrote one at {elsewhere[0]}: name it "
                    f"with --db {elsewhere[0]}, or build the default file with: "
                    f"{build_command(target, game)}"
                ) from error
            raise DatabaseNotFoundError(
                f"no {wanted} database found (looked in {locations.searched()}); build it "
                f"with: {build_command(target, game)}, or name its file with --db PATH or its "
                f"folder with ${locations.ENVIRONMENT}"
            ) from error
        raise DatabaseNotFoundError(
            f"no database at {target}; build it with: {build_command(target, game)}"
        ) from error
    if path is not None and asked is not None:
        _check_game(db, asked)
    return db


def _check_game(db: Database, asked: Game | str) -> None:
    """Close ``db`` and raise GameMismatchError unless it holds the game ``asked``."""
    held = db.game
    if isinstance(asked, str):
        same, name, held_name = asked == held.name, asked, held.name
    else:
        same, name, held_name = asked is held, asked.full_name, held.full_name
    if not same:
        db.close()
        raise GameMismatchError(name, held_name, db.path)


def _open(path: Path, *, in_memory: bool, cache_bytes: int) -> Database:
    from .musketeers import HDF5_CACHE_BYTES, MusketeersDatabase

    if is_wdl_file(path):
        wdl = WdlFile(path)
        try:
            return WdlDatabase(wdl)
        except BaseException:
            wdl.close()
            raise
    file = DatabaseFile(path, cache_bytes=0 if in_memory else HDF5_CACHE_BYTES)
    try:
        file.check_layout()
        if file.game.name == games.DEFAULT_GAME:
            return MusketeersDatabase(file, in_memory=in_memory, cache_bytes=cache_bytes)
        if file.game.out_of_core:
            return DiskTierDatabase(file)
        if file.game.players > 2:
            from .players import PlayersDatabase

            return PlayersDatabase(file)
        return TierDatabase(file)
    except BaseException:
        file.close()
        raise


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


class DatabasePool:
    """Databases opened on demand, one per game variant, for batches of mixed games.

    With ``path`` every position is answered from that one file (a position of another
    game or board size then raises :class:`~retro.errors.BoardMismatchError`), and the
    file is opened at once: a missing, foreign or unfinished file, or one of another game
    than ``game``, is the caller's mistake, not a line's, so it raises here instead of
    failing every line. Without
    ``path`` each game uses its default file (``db/three-musketeers-NxN.h5``,
    ``db/tic-tac-toe.h5``, ...), opened when a line first needs it; ``game`` reads
    every line in that game's notation (for games whose notations look alike).
    """

    def __init__(self, path: str | os.PathLike | None = None, *, in_memory: bool = False,
                 game: Game | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self.in_memory = in_memory
        self.game = game
        self._open: dict[Path, Database] = {}
        if self.path is not None:  # with ``game``, the file must hold that game
            self._open[self.path] = open_database(self.path, in_memory=in_memory,
                                                  game=game.name if game else None)

    def resolve(self, text: str) -> tuple[Database, object]:
        """The database that answers the position ``text``, and the position: with
        ``path``, that file's (its game reads the text); else the default file of the
        game whose notation reads it."""
        if self.path is not None:
            db = self._open[self.path]
            return db, db._position(text)
        if self.game is not None:
            position = self.game.parse(text)
            game = self.game.for_position(position)
        else:
            game, position = games.identify(text)
        return self.get(game), position

    def get(self, game: Game | int) -> Database:
        """The database that answers positions of ``game`` (a Three Musketeers board
        size works too), opened once."""
        if isinstance(game, int):
            game = games.musketeers_board(game)
        if self.path is not None:
            return self._open[self.path]
        target = default_path(game)
        db = self._open.get(target)
        if db is None:  # not found: the error names the folders searched, --db and the variable
            db = self._open[target] = open_database(game=game, in_memory=self.in_memory)
        return db

    def close(self) -> None:
        for db in self._open.values():
            db.close()
        self._open.clear()

    def __enter__(self) -> DatabasePool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = [
    "BatchPositionError", "BoardMismatchError", "Database", "DatabasePool", "GameOverError",
    "RNG", "TierDatabase", "WdlDatabase", "build_command", "choose", "open_database", "preference",
]
