"""The boards of the morris games: points, adjacency, lines, symmetries, as plain tables.

A board is declared by its points (named as on a grid: ``a1`` .. ``g7``, listed in
the notation's order, row by row from row 1), the rows the notation groups them in,
the adjacent pairs, the lines (three men's morris) or mills (six men's morris), and
the maps of the points that generate its symmetries. Everything else (bitboards of
neighbours and lines, the whole symmetry group, byte tables for moving bitboards
through a symmetry) is derived here, and checked: every symmetry must map the
adjacency and the lines onto themselves.

Point numbers are the order of ``points``: bit p of a bitboard is point p.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...bits import symmetry_byte_tables

FILES = "abcdefg"


@dataclass(frozen=True)
class BoardSpec:
    """What a morris board is, as its rules state it."""

    points: tuple[str, ...]  # in the notation's order
    rows: tuple[int, ...]  # points per row group in the notation
    edges: tuple[tuple[str, str], ...]  # adjacent points
    lines: tuple[tuple[str, str, str], ...]  # lines (three men's) or mills (six men's)
    generators: tuple[tuple[tuple[str, str], ...], ...]  # point maps generating the symmetries


@dataclass(frozen=True)
class Board:
    """A board's tables, derived from its :class:`BoardSpec`."""

    spec: BoardSpec
    size: int  # number of points
    neighbours: np.ndarray  # int64 (P,): bitboard of each point's neighbours
    lines: np.ndarray  # int64 (L,): bitboard of each line (mill)
    lines_through: np.ndarray  # int64 (P, 4): lines through each point, -1 after the last
    symmetry: np.ndarray  # int64 (G, P): the point each point goes to, identity first
    symmetry_bytes: np.ndarray  # int64 (G, 2, 256): images of each byte of a bitboard
    coordinates: tuple[tuple[int, int], ...]  # (column, row) on the 3×3, 5×5 or 7×7 grid

    @property
    def names(self) -> tuple[str, ...]:
        return self.spec.points

    @property
    def full(self) -> int:
        return (1 << self.size) - 1

    def image(self, bb: int, g: int) -> int:
        """Bitboard ``bb`` under symmetry ``g``."""
        image = 0
        for chunk in range(self.symmetry_bytes.shape[1]):
            image |= int(self.symmetry_bytes[g, chunk, (bb >> (8 * chunk)) & 0xFF])
        return image


def _coordinates(name: str) -> tuple[int, int]:
    return FILES.index(name[0]), int(name[1]) - 1


def _square_maps(names: tuple[str, ...], n: int) -> tuple[tuple, tuple]:
    """A quarter turn and a mirror of an n×n grid, as maps (pairs) of the named points."""
    last = n - 1

    def name(col: int, row: int) -> str:
        return f"{FILES[col]}{row + 1}"

    turn, mirror = {}, {}
    for point in names:
        col, row = _coordinates(point)
        turn[point] = name(last - row, col)
        mirror[point] = name(last - col, row)
    return tuple(turn.items()), tuple(mirror.items())


@lru_cache(maxsize=None)
def board(spec: BoardSpec) -> Board:
    """The tables of a board (built once)."""
    names = spec.points
    number = {name: i for i, name in enumerate(names)}
    size = len(names)
    neighbours = np.zeros(size, dtype=np.int64)
    for a, b in spec.edges:
        neighbours[number[a]] |= 1 << number[b]
        neighbours[number[b]] |= 1 << number[a]
    lines = np.array([sum(1 << number[p] for p in line) for line in spec.lines], dtype=np.int64)
    lines_through = np.full((size, 4), -1, dtype=np.int64)
    for p in range(size):
        through = [i for i, line in enumerate(lines) if (int(line) >> p) & 1]
        lines_through[p, :len(through)] = through
    # The group: closure of the generators under composition, identity first.
    identity = tuple(range(size))
    generators = [tuple(number[dict(g)[p]] for p in names) for g in spec.generators]
    group = [identity]
    frontier = [identity]
    while frontier:
        fresh = []
        for element in frontier:
            for generator in generators:
                composed = tuple(generator[element[p]] for p in range(size))
                if composed not in group:
                    group.append(composed)
                    fresh.append(composed)
        frontier = fresh
    symmetry = np.array(group, dtype=np.int64)
    edge_set = {frozenset((number[a], number[b])) for a, b in spec.edges}
    line_set = {frozenset(number[p] for p in line) for line in spec.lines}
    for g in group:
        if {frozenset(g[p] for p in e) for e in edge_set} != edge_set or \
                {frozenset(g[p] for p in line) for line in line_set} != line_set:
            raise ValueError("a generator is not a symmetry of the board")
    symmetry_bytes = symmetry_byte_tables(symmetry)
    for table in (neighbours, lines, lines_through, symmetry, symmetry_bytes):
        table.setflags(write=False)
    return Board(spec, size, neighbours, lines, lines_through, symmetry, symmetry_bytes,
                 tuple(_coordinates(p) for p in names))


# --- the boards -----------------------------------------------------------------------

_THREE_POINTS = ("a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3")
_THREE_EDGES = (("a1", "b1"), ("b1", "c1"), ("a2", "b2"), ("b2", "c2"), ("a3", "b3"), ("b3", "c3"),
                ("a1", "a2"), ("a2", "a3"), ("b1", "b2"), ("b2", "b3"), ("c1", "c2"), ("c2", "c3"))
_THREE_LINES = (("a1", "b1", "c1"), ("a2", "b2", "c2"), ("a3", "b3", "c3"),
                ("a1", "a2", "a3"), ("b1", "b2", "b3"), ("c1", "c2", "c3"))
_THREE_DIAGONALS = (("a1", "b2", "c3"), ("c1", "b2", "a3"))
_THREE_DIAGONAL_EDGES = (("a1", "b2"), ("c1", "b2"), ("a3", "b2"), ("c3", "b2"))

THREE = BoardSpec(_THREE_POINTS, (3, 3, 3), _THREE_EDGES, _THREE_LINES,
                  _square_maps(_THREE_POINTS, 3))
THREE_DIAGONAL = BoardSpec(_THREE_POINTS, (3, 3, 3), _THREE_EDGES + _THREE_DIAGONAL_EDGES,
                           _THREE_LINES + _THREE_DIAGONALS, _square_maps(_THREE_POINTS, 3))

_SIX_POINTS = ("a1", "c1", "e1", "b2", "c2", "d2", "a3", "b3", "d3", "e3",
               "b4", "c4", "d4", "a5", "c5", "e5")
_SIX_OUTER = ("a1", "c1", "e1", "e3", "e5", "c5", "a5", "a3")  # around the square
_SIX_INNER = ("b2", "c2", "d2", "d3", "d4", "c4", "b4", "b3")
_SIX_EDGES = tuple((ring[i], ring[(i + 1) % 8]) for ring in (_SIX_OUTER, _SIX_INNER)
                   for i in range(8)) + (("c1", "c2"), ("e3", "d3"), ("c5", "c4"), ("a3", "b3"))
_SIX_MILLS = tuple((ring[i], ring[i + 1], ring[(i + 2) % 8]) for ring in (_SIX_OUTER, _SIX_INNER)
                   for i in (0, 2, 4, 6))
_SWAP = tuple(zip(_SIX_OUTER + _SIX_INNER, _SIX_INNER + _SIX_OUTER))

SIX = BoardSpec(_SIX_POINTS, (3, 3, 4, 3, 3), _SIX_EDGES, _SIX_MILLS,
                (*_square_maps(_SIX_POINTS, 5), _SWAP))

# Nine men's morris: three concentric squares on a 7×7 grid, joined at the midpoints
# of their sides; mills are the 12 sides and the 4 half-midlines.
_NINE_POINTS = ("a1", "d1", "g1", "b2", "d2", "f2", "c3", "d3", "e3",
                "a4", "b4", "c4", "e4", "f4", "g4", "c5", "d5", "e5",
                "b6", "d6", "f6", "a7", "d7", "g7")
_NINE_OUTER = ("a1", "d1", "g1", "g4", "g7", "d7", "a7", "a4")  # around each square
_NINE_MIDDLE = ("b2", "d2", "f2", "f4", "f6", "d6", "b6", "b4")
_NINE_INNER = ("c3", "d3", "e3", "e4", "e5", "d5", "c5", "c4")
_NINE_SPOKES = (("d1", "d2", "d3"), ("a4", "b4", "c4"), ("e4", "f4", "g4"), ("d5", "d6", "d7"))
_NINE_EDGES = tuple((ring[i], ring[(i + 1) % 8]) for ring in (_NINE_OUTER, _NINE_MIDDLE, _NINE_INNER)
                    for i in range(8)) + tuple(pair for a, b, c in _NINE_SPOKES for pair in ((a, b), (b, c)))
_NINE_MILLS = tuple((ring[i], ring[i + 1], ring[(i + 2) % 8])
                    for ring in (_NINE_OUTER, _NINE_MIDDLE, _NINE_INNER) for i in (0, 2, 4, 6)) + _NINE_SPOKES
_NINE_SWAP = tuple(zip(_NINE_OUTER + _NINE_INNER + _NINE_MIDDLE, _NINE_INNER + _NINE_OUTER + _NINE_MIDDLE))

NINE = BoardSpec(_NINE_POINTS, (3, 3, 3, 6, 3, 3, 3), _NINE_EDGES, _NINE_MILLS,
                 (*_square_maps(_NINE_POINTS, 7), _NINE_SWAP))
