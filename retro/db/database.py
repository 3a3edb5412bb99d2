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
from pathlib import Path

from .. import games
from ..errors import (  # BatchPositionError and GameOverError re-exported
    BatchPositionError,
    BoardMismatchError,
    DatabaseNotFoundError,
    GameMismatchError,
    GameOverError,
    IncompleteDatabaseError,
)
from ..games.protocol import Game
from . import locations
# The classes every backend shares live in .base, below the backends (which subclass
# them) and below this module (which picks a backend): re-exported here, their home for
# every caller.
from .base import (  # noqa: F401 (re-exported)
    DEFAULT_CACHE_BYTES,
    RNG,
    Database,
    DiskTierDatabase,
    TierDatabase,
    WdlDatabase,
    choose,
    finished_text,
    preference,
)
from .format import (
    DatabaseFile,
    build_command,  # re-exported
    default_path,
    partial_path,
    resume_command,
)
from .musketeers import HDF5_CACHE_BYTES, MusketeersDatabase
from .players import PlayersDatabase
from .wdl import WdlFile, is_wdl_file


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
            return PlayersDatabase(file)
        return TierDatabase(file)
    except BaseException:
        file.close()
        raise


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
    "BatchPositionError", "BoardMismatchError", "Database", "DatabasePool", "DiskTierDatabase",
    "GameOverError", "RNG", "TierDatabase", "WdlDatabase", "build_command", "choose",
    "open_database", "preference",
]
