"""retro: a retrograde-analysis endgame database for Three Musketeers.

Quick start::

    import retro
    with retro.open_database("db/three-musketeers-5x5.h5") as db:
        print(db.probe(retro.Position.start()))
"""

from __future__ import annotations

__version__ = "0.2.0"

from ._numba_cache import ensure_numba_cache

ensure_numba_cache()  # before the first @njit(cache=True) below

from .values import Outcome
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
    IncompleteDatabaseError,
    NotADatabaseError,
    PositionNotInDatabaseError,
)

__all__ = [
    "BatchPositionError",
    "BoardMismatchError",
    "BoardSizeError",
    "ChecksumError",
    "Database",
    "DatabaseError",
    "DatabaseNotFoundError",
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
    "Position",
    "PositionError",
    "PositionNotInDatabaseError",
    "RowCountError",
    "RowLengthError",
    "Side",
    "SideError",
    "UnknownCharacterError",
    "open_database",
]
