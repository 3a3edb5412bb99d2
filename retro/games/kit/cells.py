"""Cells of a board and their symmetries: what a kit game declares about its geometry.

A board is numbered cell by cell: on a grid, cell ``r * cols + c`` is column
``"abcde..."[c]`` of row ``r + 1`` (a1 = 0). A symmetry is a permutation of the cells,
``symmetry[g, cell]`` the cell ``cell`` goes to; the first is the identity. A game may
give its own list (Dōbutsu shōgi: the identity and the left-right mirror).
"""

from __future__ import annotations

import numpy as np

FILES = "abcdefghijklmnopqrstuvwxyz"


def grid_cells(rows: int, cols: int) -> list[str]:
    """The names of a grid's cells in their order: ``a1 b1 ... a2 ...``."""
    return [f"{FILES[c]}{r + 1}" for r in range(rows) for c in range(cols)]


def grid_symmetries(rows: int, cols: int) -> np.ndarray:
    """The symmetries of a grid as cell permutations, identity first: the 8 of the
    square (4 turns, each then mirrored) or the 4 of a rectangle."""
    maps = []
    square = rows == cols
    for turn in range(4 if square else 1):
        for mirror in (False, True):
            for flip in ((False, True) if not square else (False,)):
                table = []
                for cell in range(rows * cols):
                    r, c = divmod(cell, cols)
                    for _ in range(turn):
                        r, c = c, rows - 1 - r  # a quarter turn (square grids)
                    if mirror:
                        c = cols - 1 - c
                    if flip:
                        r = rows - 1 - r
                    table.append(r * cols + c)
                maps.append(table)
    out = np.array(maps, dtype=np.int64)
    assert len({tuple(m) for m in maps}) == len(maps)
    out.setflags(write=False)
    return out


def grid_neighbours(rows: int, cols: int, diagonal: bool = True) -> np.ndarray:
    """``neighbours[cell]``: the bitmask of the cells one step away (8 directions, or 4)."""
    out = np.zeros(rows * cols, dtype=np.int64)
    for cell in range(rows * cols):
        r, c = divmod(cell, cols)
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if (dr or dc) and (diagonal or not (dr and dc)) and 0 <= r + dr < rows and 0 <= c + dc < cols:
                    out[cell] |= 1 << ((r + dr) * cols + c + dc)
    out.setflags(write=False)
    return out


def grid_lines(rows: int, cols: int, length: int, diagonal: bool = True) -> list[int]:
    """Bitmasks of every run of ``length`` cells in a row, a column (and a diagonal)."""
    directions = ((0, 1), (1, 0)) + (((1, 1), (1, -1)) if diagonal else ())
    out = []
    for r in range(rows):
        for c in range(cols):
            for dr, dc in directions:
                cells = [(r + k * dr, c + k * dc) for k in range(length)]
                if all(0 <= y < rows and 0 <= x < cols for y, x in cells):
                    out.append(sum(1 << (y * cols + x) for y, x in cells))
    return out


def grid_squares(rows: int, cols: int) -> list[int]:
    """Bitmasks of every 2x2 square of cells."""
    return [sum(1 << ((r + dr) * cols + c + dc) for dr in (0, 1) for dc in (0, 1))
            for r in range(rows - 1) for c in range(cols - 1)]
