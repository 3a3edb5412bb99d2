"""Chess tablebases probed the way python-chess probes Gaviota's (``chess.gaviota``).

Switching from Gaviota is one line::

    import retro.chess
    with retro.chess.open_tablebase("db") as tablebase:          # a folder or a file
        board = chess.Board("8/8/8/8/8/8/8/K2kr3 w - - 0 1")
        tablebase.probe_dtm(board)                                # -10: mated in 10 plies
        tablebase.probe_wdl(board)                                # -1

A board is a python-chess ``Board`` (the optional ``chess`` extra) or a FEN. Values are
distances to mate in plies (half-moves), positive when the side to move mates, negative
when it is mated (0 when checkmated), 0 for a draw; the fifty-move rule is ignored, as
in Gaviota's and Nalimov's tables. A position whose table no file holds (more than 5
pieces, castling rights, or a table not built) raises
:class:`MissingTableError`, a ``KeyError``; text that is no position raises
:class:`retro.errors.PositionError`, a ``ValueError``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from .db.database import Database, open_database
from .errors import DatabaseError, NotationError, PositionError

__all__ = ["MissingTableError", "Tablebase", "open_tablebase"]


class MissingTableError(KeyError):
    """No table of the opened files holds the position (``chess.gaviota``'s name)."""


class Tablebase:
    """Chess tables built by ``retro build --game chess`` (files of any piece count or
    material), probed by position."""

    def __init__(self) -> None:
        self._files: list[Database] = []
        self._by_table: dict[str, Database] = {}

    def add_file(self, path: str | os.PathLike) -> None:
        """Open one file of chess tables (``chess-4.h5``, ``chess-KRPvKR.h5``)."""
        self._add(open_database(path, game="chess"))

    def add_directory(self, directory: str | os.PathLike) -> None:
        """Open every file of chess tables in ``directory`` (other files are skipped)."""
        folder = Path(directory)
        if not folder.is_dir():
            raise OSError(f"not a directory: {str(directory)!r}")
        for path in sorted(folder.glob("*.h5")):
            try:
                db = open_database(path)
            except (DatabaseError, OSError):
                continue  # not a database of retro's
            if db.game.name == "chess":
                self._add(db)
            else:
                db.close()

    def _add(self, db: Database) -> None:
        self._files.append(db)
        for name in db.game.materials:
            self._by_table.setdefault(name, db)

    @property
    def tables(self) -> list[str]:
        """The tables the opened files hold (``KQvKR``, ...)."""
        return sorted(self._by_table, key=lambda n: (len(n), n))

    def _probe(self, board):
        text = board if isinstance(board, str) else board.fen()
        try:
            db = self._files[0] if self._files else None
            if db is None:
                raise MissingTableError("no chess tables opened: add a file or a folder")
            position = db.game.parse(text)
        except NotationError:
            fields = text.split() if isinstance(text, str) else []
            if len(fields) >= 3 and fields[2] != "-":
                raise MissingTableError(f"{text}: no table holds positions with castling rights") from None
            raise
        except PositionError as error:
            if "pieces" in str(error):
                raise MissingTableError(str(error)) from None
            raise
        name = position.game.tier_name(position.game.tier_of(position))
        found = self._by_table.get(name)
        if found is None:
            raise MissingTableError(f"no opened file holds the table {name}")
        return found.probe(str(position))

    def probe_dtm(self, board) -> int:
        """The distance to mate in plies: positive when the side to move mates, negative
        when it is mated (0: checkmated), 0 for a draw."""
        outcome = self._probe(board)
        if outcome.is_draw:
            return 0
        return outcome.plies if outcome.side_to_move_wins else -outcome.plies

    def probe_wdl(self, board) -> int:
        """1 when the side to move wins, 0 a draw, -1 when it loses."""
        outcome = self._probe(board)
        return 0 if outcome.is_draw else 1 if outcome.side_to_move_wins else -1

    def get_dtm(self, board, default: Any = None) -> Any:
        """:meth:`probe_dtm`, or ``default`` when no table holds the position."""
        try:
            return self.probe_dtm(board)
        except MissingTableError:
            return default

    def get_wdl(self, board, default: Any = None) -> Any:
        """:meth:`probe_wdl`, or ``default`` when no table holds the position."""
        try:
            return self.probe_wdl(board)
        except MissingTableError:
            return default

    def close(self) -> None:
        for db in self._files:
            db.close()
        self._files, self._by_table = [], {}

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_tablebase(path: str | os.PathLike) -> Tablebase:
    """The chess tables of a file, or of every ``chess*.h5`` file in a folder."""
    tablebase = Tablebase()
    if Path(path).is_dir():
        tablebase.add_directory(path)
    else:
        tablebase.add_file(path)
    return tablebase
