"""The moving phase of nine men's morris packed for a search: 2 bits an entry (loss,
draw, win for the side to move, or not a position), read from a database or from a
build's raw checkpoints. :mod:`retro.search.nine` searches the placement phase down to
these values (Gasser's method)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..values import draw_value
from .format import DatabaseFile


class LeavesError(ValueError):
    """A file or folder that holds no moving phase to search down to (one line)."""


@njit(cache=True)
def _pack(values, draw, out, first):
    """2 bits per entry into ``out`` from entry ``first``: 0 loss, 1 draw, 2 win (for the
    side to move), 3 not a position."""
    for i in range(len(values)):
        v = values[i]
        if v == draw:
            code = 1
        elif v >= draw - 1:
            code = 3
        elif v & 1:
            code = 2
        else:
            code = 0
        e = first + i
        out[e >> 2] |= np.uint8(code << ((e & 3) * 2))


class Leaves:
    """The moving phase's values, 2 bits per entry, and where each tier starts: from a
    database holding it (``path``), or from the raw checkpoints of a build
    (``<out>.partial/``, with ``game``: a moving-phase tier's values are the same in
    every variant whose pieces it fits)."""

    def __init__(self, path, game=None) -> None:
        from pathlib import Path

        path = Path(path)
        if path.is_dir():
            if game is None:
                raise LeavesError("a checkpoint folder needs the game it is read for")
            moving = [t for t in game.stage_tiers("moving")
                      if (path / f"{game.tier_name(t)}.npy").is_file()]
            self._load(game, moving, lambda t, a, b: np.load(path / f"{game.tier_name(t)}.npy",
                                                               mmap_mode="r")[a:b], str(path))
            return
        file = DatabaseFile(path)
        try:
            moving = [t for t in file.tiers if t[0] == t[1] == 0]
            self._load(file.game, moving, lambda t, a, b: file.read(t, slice(a, b)), str(file.path))
        finally:
            file.close()

    def for_game(self, game) -> Leaves:
        """The same values for another variant (a moving-phase tier's values do not depend
        on the pieces each side started with): the standard game's moving phase decides
        every game with fewer pieces."""
        view = Leaves.__new__(Leaves)
        order, own = game.tiers(), self.game.tiers()
        view.game, view.packed, view.entries = game, self.packed, self.entries
        view.tiers = [t for t in self.tiers if t in order]
        view.base = np.full(len(order), -1, dtype=np.int64)
        for tier in view.tiers:
            view.base[order.index(tier)] = self.base[own.index(tier)]
        return view

    def _load(self, game, moving, read, where: str) -> None:
        if not moving:
            raise LeavesError(f"{where} holds no moving-phase tier of {game.full_name}")
        self.game = game
        order = game.tiers()
        self.base = np.full(len(order), -1, dtype=np.int64)
        total = 0
        for tier in moving:
            self.base[order.index(tier)] = total
            total += game.tier_size(tier)
        self.packed = np.zeros((total + 3) // 4, dtype=np.uint8)
        draw = draw_value(np.dtype(game.value_dtype).type)
        step = 1 << 24
        for tier in moving:
            size = game.tier_size(tier)
            base = int(self.base[order.index(tier)])
            for first in range(0, size, step):
                _pack(np.ascontiguousarray(read(tier, first, min(size, first + step))), draw,
                      self.packed, base + first)
        self.entries = total
        self.tiers = moving


