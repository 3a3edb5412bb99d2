"""The kit: a game of pieces on cells is its rules (jitted) and a class; the kit gives
the rest (see :mod:`.game`): the numbering with symmetries folded (:mod:`.numbering`),
the grid's cells and symmetries (:mod:`.cells`), the positions and their notation, the
explicit expansion and the un-move solver's kernels (:mod:`.templates`, compiled into
the game's own module so that numba caches them there)."""

from __future__ import annotations

from .cells import grid_cells, grid_lines, grid_neighbours, grid_squares, grid_symmetries
from .game import DRAWN, ILLEGAL, LOST, WON, LetterSide, Move, PieceGame, Position, instantiate
from .numbering import Tables, build_tables, tables

OPEN = -1

__all__ = ["DRAWN", "ILLEGAL", "LOST", "OPEN", "WON", "LetterSide", "Move", "PieceGame", "Position", "Tables",
           "build_tables", "grid_cells", "grid_lines", "grid_neighbours", "grid_squares",
           "grid_symmetries", "instantiate", "tables"]
