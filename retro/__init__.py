"""retro: a retrograde-analysis engine that strongly solves games.

Quick start::

    import retro
    with retro.open_database("db/three-musketeers-5x5.h5") as db:
        print(db.probe(retro.Position.start()))
    with retro.open_database("db/six-mens-morris.h5") as db:
        print(db.probe(db.game.start()))          # a draw
    with retro.open_database("db/four-player-race.h5") as db:
        print(db.probe("P1 a1 d1 d4 a4").code())  # every player's value: L16 L14 L8 L22

``retro.games`` lists the games (``retro.games.get("tic-tac-toe")``); ``Position``,
``Move`` and ``Side`` are Three Musketeers'; ``retro.dfpn`` and ``retro.alphabeta`` are
the weak solvers (imported on first use).
"""

from __future__ import annotations

# The version lives below the package (pyproject reads it there), so that modules
# inside retro name it without importing the package root.
from ._version import __version__

from ._numba_cache import ensure_numba_cache

ensure_numba_cache()  # before the first @njit(cache=True) below

from . import games
from .values import Outcome, PlayerValue, Standing
from .games.musketeers.position import (
    BoardSizeError,
    IllegalMoveError,
    Move,
    MoveSyntaxError,
    MusketeerCountError,
    NotationError,
    OverlapError,
    Position,
    PositionError,
    RowCountError,
    RowLengthError,
    Side,
    SideError,
    UnknownCharacterError,
)
from .db.database import BatchPositionError, Database, GameOverError, open_database
from .errors import (
    BoardMismatchError,
    ChecksumError,
    DatabaseError,
    DatabaseNotFoundError,
    GameMismatchError,
    IncompleteDatabaseError,
    NotADatabaseError,
    PositionNotInDatabaseError,
)

def __getattr__(name: str):
    """The weak solvers, imported on first use (``from retro import dfpn``)."""
    if name in ("alphabeta", "dfpn", "crosscheck"):
        import importlib

        module = importlib.import_module(f".search.{name}" if name != "crosscheck" else ".crosscheck",
                                         __name__)
        globals()[name] = module
        return module
    raise AttributeError(f"module 'retro' has no attribute {name!r}")


__all__ = [
    "BatchPositionError",
    "BoardMismatchError",
    "BoardSizeError",
    "ChecksumError",
    "Database",
    "DatabaseError",
    "DatabaseNotFoundError",
    "GameMismatchError",
    "GameOverError",
    "IllegalMoveError",
    "IncompleteDatabaseError",
    "Move",
    "MoveSyntaxError",
    "MusketeerCountError",
    "NotADatabaseError",
    "NotationError",
    "Outcome",
    "OverlapError",
    "PlayerValue",
    "Position",
    "PositionError",
    "PositionNotInDatabaseError",
    "RowCountError",
    "RowLengthError",
    "Side",
    "SideError",
    "Standing",
    "UnknownCharacterError",
    "open_database",
]
