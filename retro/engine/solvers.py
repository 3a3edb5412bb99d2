"""The engine's tier solvers, for games without a fast solver of their own.

Both work on a tier's :class:`~retro.games.protocol.Expansion` (each entry's side, its
value when finished, its children as (tier, entry) pairs) and the values of the child
tiers, and return the tier's values in the encoding of :mod:`retro.values`.

* :func:`solve_acyclic`: no move leads back into the tier, so every child's value is
  known: an entry's value is the best over its children, one ply further from the end
  (a win if some child is lost for the opponent, the fastest; else a draw if some
  child is drawn; else a loss, the slowest). One pass, in parallel.
* :func:`retro.engine.retrograde.solve_loopy`: moves lead back into the tier
  (:meth:`Game.loopy`), so values are found backwards from the decided positions.
"""

from __future__ import annotations

import mmap

import numpy as np
from numba import njit, prange

from ..errors import BuildError
from ..games.protocol import OPEN, Expansion, Game
from ..values import max_plies, preference_keys, value_of_best_key


def solve(game: Game, tier, children: dict) -> np.ndarray:
    """The values of ``tier``, from the game's un-move kernels when it has them, else
    from its expansion, and its child tiers' values."""
    dtype = np.dtype(game.value_dtype).type
    kernels = game.tier_kernels(tier, children)
    if kernels is not None:
        from . import unmove

        if game.loopy(tier):
            # The children are read by the scan only: their pages leave the resident
            # set before the un-moves, when the solver holds the most, and every
            # ``release_every`` entries during the scan (a scan reads a part of each
            # child at a time: the children need not be resident whole).
            scanned = [0]

            def advance(n: int) -> None:
                scanned[0] += n
                if scanned[0] >= kernels.release_every:
                    release_pages(children.values())
                    scanned[0] = 0

            values = unmove.solve_loopy(kernels, dtype, advance=advance if kernels.release_every else None,
                                        after_scan=lambda: release_pages(children.values()))
        else:
            values = unmove.solve_acyclic(kernels, dtype)
        check_width(game, tier, values, dtype)
        return values
    return solve_explicit(game, tier, children)


def release_pages(arrays) -> None:
    """Drop the pages of memory-mapped arrays from the process's resident set (the page
    cache keeps them: reading them again costs a minor fault). Others are left alone."""
    for array in arrays:
        while array is not None and not isinstance(array, np.memmap):
            array = array.base if isinstance(array, np.ndarray) else None
        handle = getattr(array, "_mmap", None)
        if handle is not None and hasattr(handle, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
            handle.madvise(mmap.MADV_DONTNEED)


def solve_explicit(game: Game, tier, children: dict) -> np.ndarray:
    """The values of ``tier`` from its explicit expansion (every edge in memory)."""
    expansion = game.expand(tier)
    dtype = np.dtype(game.value_dtype).type
    flat, offsets = child_values(expansion, children, dtype)
    flip = 1 if game.relative_values else 0
    if game.loopy(tier):
        from .retrograde import solve_loopy

        values = solve_loopy(expansion, flat, offsets, dtype, flip)
    else:
        values = np.empty(expansion.size, dtype=dtype)
        inside = solve_acyclic(expansion.side, expansion.finished, expansion.starts,
                               expansion.child_tier, expansion.child_entry, flat, offsets,
                               preference_keys(dtype), value_of_best_key(dtype), values, flip)
        if inside:
            raise BuildError(f"{game.full_name}: a move leads from tier {game.tier_name(tier)} "
                             "back into it, but the game does not say the tier is loopy")
    check_width(game, tier, values, dtype)
    return values


def child_values(expansion: Expansion, children: dict, dtype) -> tuple[np.ndarray, np.ndarray]:
    """The child tiers' values in one array, and where each starts (slot 0, the tier
    itself, is empty: its values are the ones being solved)."""
    parts = [np.empty(0, dtype=dtype)] + [children[t] for t in expansion.tiers[1:]]
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum([len(p) for p in parts], out=offsets[1:])
    return (np.concatenate(parts) if len(parts) > 1 else parts[0]), offsets


def check_width(game: Game, tier, values: np.ndarray, dtype) -> None:
    """Refuse values that reached the longest distance the encoding holds: a longer
    one would have been cut short."""
    limit = max_plies(dtype)
    decided = values[values < np.iinfo(dtype).max - 1]
    if len(decided) and int(decided.max() >> 1) >= limit:
        raise BuildError(f"{game.full_name}: tier {game.tier_name(tier)} has distances of {limit} "
                         f"plies or more, beyond what {np.dtype(dtype).name} values hold")


@njit(cache=True, parallel=True)
def solve_acyclic(side, finished, starts, child_tier, child_entry, flat, offsets, keys,
                  best_values, out, flip=0):
    """Values of an acyclic tier into ``out``; the number of moves into the tier itself
    (which an acyclic tier must not have: the caller refuses them). ``flip`` 1: the
    child tiers' values are from their side to move's point of view."""
    inside = 0
    for i in prange(len(side)):
        if finished[i] != OPEN:
            out[i] = finished[i]
            continue
        mover = side[i]
        best = 0
        for e in range(starts[i], starts[i + 1]):
            slot = child_tier[e]
            if slot == 0:
                inside += 1
                continue
            child = -1 - slot if slot < 0 else flat[offsets[slot] + child_entry[e]]  # < 0: not stored
            key = keys[mover ^ flip, child]
            if key > best:
                best = key
        out[i] = best_values[mover, best]
    return inside
