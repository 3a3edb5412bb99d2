"""Every exception retro raises on purpose, in one place.

Two families, each under a built-in base so callers can catch broadly:

* :class:`PositionError` (a ``ValueError``): the caller's input is wrong — bad
  notation, an illegal position or move, a move asked of a finished game. A web
  front end answers these with 400.
* :class:`DatabaseError`: a database cannot answer — missing, foreign, unfinished,
  damaged, closed, of another board size, or without the position's layer.

:class:`BuildError` covers a build that cannot start or go on. The modules that
raise these errors re-export them, so ``retro.position.SideError`` and
``retro.storage.ChecksumError`` keep working.
"""

from __future__ import annotations

# --- quoting what the user wrote ------------------------------------------------------

_SHORT_ESCAPES = {"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def counted(count: int, word: str, plural: str | None = None) -> str:
    """``1 row``, ``2 rows``: a count and its noun in the right number."""
    return f"{count:,} {word if count == 1 else plural or word + 's'}"


def quoted(text: str, limit: int = 40) -> str:
    """User text as a message shows it: in single quotes, at most ``limit`` characters
    (then ``...``), with backslashes, quotes and every invisible or control character
    escaped as JSON writes them (``\\u0000``), so a message stays one readable line
    whatever the text holds. Every message that quotes user input (CLI and web) uses it.
    """
    return "'" + _escaped(text[:limit]) + ("'..." if len(text) > limit else "'")


def echoed(text: str, limit: int = 40) -> str:
    """User text as an answer line repeats it (a batch's error line): :func:`quoted`
    without the quotes, so a short line reads as typed (``'`` is not escaped)."""
    return _escaped(text[:limit], quote=False) + ("..." if len(text) > limit else "")


def _escaped(text: str, quote: bool = True) -> str:
    out = []
    for char in text:
        if char in _SHORT_ESCAPES and (quote or char != "'"):
            out.append(_SHORT_ESCAPES[char])
        elif char.isprintable() or char == "'":
            out.append(char)
        else:
            code = ord(char)
            if code > 0xFFFF:  # beyond the BMP: a surrogate pair, as JSON writes it
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
    return "".join(out)


# --- input: positions, moves, notation ---------------------------------------------


class PositionError(ValueError):
    """Text or values that do not describe a valid position or move."""


class NotationError(PositionError):
    """Text that is not in retro's position or move notation."""


class SideError(NotationError):
    """The side to move is missing or is not ``M`` or ``E``."""


class RowLengthError(NotationError):
    """The row groups do not all have the same length."""


class RowCountError(NotationError):
    """The number of row groups does not match their length (the board is square)."""


class UnknownCharacterError(NotationError):
    """A row holds a character other than ``O``, ``X`` or ``.``."""


class MoveSyntaxError(NotationError):
    """Move text that is not of the form ``e1-d1``."""


class BoardSizeError(PositionError):
    """A board size other than 3, 4 or 5."""


class MusketeerCountError(PositionError):
    """A position without exactly three musketeers."""


class OverlapError(PositionError):
    """A square that holds both a musketeer and an enemy man, or lies off the board."""


class IllegalMoveError(PositionError):
    """A move that the rules do not allow in the given position."""


class GameOverError(PositionError):
    """A move was asked of a finished position."""


class BatchPositionError(PositionError):
    """An entry of a batch is not a valid position; the message names its index."""


class UnknownCommandError(NotationError):
    """Input in a game that is neither a move nor a command (raised in strict mode)."""


# --- databases ---------------------------------------------------------------------


class DatabaseError(Exception):
    """Base class of the errors raised when a database cannot answer."""


class DatabaseNotFoundError(DatabaseError, FileNotFoundError):
    """The database file does not exist."""


class DatabaseAccessError(DatabaseError, PermissionError):
    """The database file exists but this user may not read it."""


class NotADatabaseError(DatabaseError):
    """The file is not a retro database (or of a format version this retro cannot read)."""


class DamagedDatabaseError(NotADatabaseError):
    """The file starts like a retro database (or HDF5) but is damaged or truncated."""


class IncompleteDatabaseError(DatabaseError):
    """The file belongs to a build that did not finish."""


class ChecksumError(DatabaseError):
    """Stored data failed its checksum: the file is damaged."""


class BoardMismatchError(DatabaseError):
    """A position of one board size probed in a database of another."""


class GameMismatchError(DatabaseError, ValueError):
    """A database file opened for one game holds another (``--game X`` with a file of Y).

    ``asked`` is the game asked for (its name, or its full name with a variant), ``held``
    the file's game and ``path`` the file.
    """

    def __init__(self, asked: str, held: str, path) -> None:
        super().__init__(f"{path} holds {held}, not {asked}")
        self.asked, self.held, self.path = asked, held, path


class PositionNotInDatabaseError(DatabaseError):
    """A position with more enemy men than the database holds (built with --max-enemy-men)."""


class DatabaseClosedError(DatabaseError, ValueError):
    """A method was called on a database after :meth:`close`, as on a closed file."""


# --- writing -----------------------------------------------------------------------


class OutputPathError(ValueError):
    """A file retro was asked to write is in the way: a directory, a symbolic link, a
    device, a named pipe or a socket, which writing would follow or replace."""


# --- building ----------------------------------------------------------------------


class BuildError(RuntimeError):
    """A build that cannot start or go on (bad arguments, unusable output, no space)."""


class BuildLockedError(BuildError):
    """Another build of the same output is running."""


__all__ = [
    "BatchPositionError",
    "BoardMismatchError",
    "BoardSizeError",
    "BuildError",
    "BuildLockedError",
    "ChecksumError",
    "DamagedDatabaseError",
    "DatabaseAccessError",
    "DatabaseClosedError",
    "DatabaseError",
    "DatabaseNotFoundError",
    "GameMismatchError",
    "GameOverError",
    "IllegalMoveError",
    "IncompleteDatabaseError",
    "MoveSyntaxError",
    "MusketeerCountError",
    "NotADatabaseError",
    "NotationError",
    "OutputPathError",
    "OverlapError",
    "PositionError",
    "PositionNotInDatabaseError",
    "RowCountError",
    "RowLengthError",
    "SideError",
    "UnknownCharacterError",
    "UnknownCommandError",
]
