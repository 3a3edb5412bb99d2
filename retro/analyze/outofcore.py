"""Statistics of a database stored as nine men's morris stores itself (values from the
side to move's view, one colour, symmetric images sharing an index range), read a
tier at a time and a chunk at a time, so that the standard game's files fit.

Per tier: the table entries, the distinct positions (canonical entries: each stands
for a position up to the 16 symmetries and the exchange of colours), and how many the
side to move wins, loses and draws; the longest win and the longest loss with an
example (per tier too: Gasser tabulated them by sector); the value of the start and of
every first move. The positions reachable from the start are not counted (a forward
search over 10^10 positions is a build of its own).
"""

from __future__ import annotations

import os
import time

import numpy as np

from ..db.format import DatabaseFile
from ..values import draw_value, not_a_position
from .tiers import _start

CHUNK = 1 << 22
MOVER, OTHER = "side_to_move", "other_side"


def analyze(path: str | os.PathLike, *, progress: bool = True, reach: bool = True) -> dict:
    """The statistics of an out-of-core game's database at ``path`` (see the module
    docstring; ``reach`` is accepted and ignored)."""
    from ..progress import progress_bar

    started = time.perf_counter()
    file = DatabaseFile(path)
    path, game, tiers = file.path, file.game, list(file.tiers)
    dtype = np.dtype(game.value_dtype).type
    draw, invalid = draw_value(dtype), not_a_position(dtype)
    per_tier = []
    total = {"entries": _zero(), "distinct": _zero()}
    placed_tier = getattr(game, "after_placement_tier", lambda: None)()
    placed = _zero() if placed_tier in tiers else None
    longest: dict = {MOVER: None, OTHER: None}
    bar = progress_bar(sum(game.tier_size(t) for t in tiers), "analyzing", enabled=progress)
    try:
        for tier in tiers:
            row_entries, row_distinct = _zero(), _zero()
            row_longest: dict = {MOVER: None, OTHER: None}
            size = game.tier_size(tier)
            for first in range(0, size, CHUNK):
                stop = min(size, first + CHUNK)
                values = file.read(tier, slice(first, stop))
                entries = np.arange(first, stop, dtype=np.int64)
                canonical = game.canonical_entries(tier, entries) == entries
                held = values != invalid
                for counts, mask in ((row_entries, held), (row_distinct, held & canonical)):
                    _add(counts, values[mask], draw)
                if placed is not None and tier == placed_tier:
                    _add(placed, values[held & canonical & game.mill_free(tier, entries)], draw)
                decided = held & canonical & (values != draw)
                for key, won in ((MOVER, decided & ((values & 1) == 1)),
                                 (OTHER, decided & ((values & 1) == 0))):
                    if won.any():
                        plies = values[won] >> 1
                        best = int(plies.max())
                        if row_longest[key] is None or best > row_longest[key]["plies"]:
                            entry = first + int(np.flatnonzero(won)[int(np.argmax(plies))])
                            row_longest[key] = {"plies": best,
                                                "position": str(game.position_at(tier, entry))}
                if bar is not None:
                    bar.update(stop - first)
            per_tier.append({"tier": game.tier_name(tier), "entries": sum(row_entries.values()),
                             "by_side": {"mover": {"entries": row_entries, "distinct": row_distinct}},
                             "longest_win": row_longest[MOVER], "longest_loss": row_longest[OTHER]})
            for key, found in row_longest.items():
                if found and (longest[key] is None or found["plies"] > longest[key]["plies"]):
                    longest[key] = found
            for key in total["entries"]:
                total["entries"][key] += row_entries[key]
                total["distinct"][key] += row_distinct[key]
    finally:
        if bar is not None:
            bar.close()
        file.close()
    return {
        "path": str(path), "game": game.name, "variant": game.variant, "title": game.title,
        "positions": {"entries": sum(total["entries"].values()),
                      "distinct": sum(total["distinct"].values()), "all": game.positions(tiers)},
        "sides": {MOVER: total},
        "longest_win": {"the side to move": longest[MOVER], "the side not to move": longest[OTHER]},
        "tiers": per_tier,
        "start": _start(path, game) if game.tier_of(game.start()) in tiers else None,
        "reachable": None,
        "after_placement": None if placed is None else {
            "tier": game.tier_name(placed_tier), "pieces": game.pieces,
            "counted": "distinct positions up to symmetry with every piece on the board, no "
                       "mill and White to move: what the last placement reaches when no piece "
                       "was taken (each mill closed while placing takes one)",
            "positions": sum(placed.values()), "white_wins": placed["wins"],
            "black_wins": placed["losses"], "draws": placed["draws"]},
        "seconds": round(time.perf_counter() - started, 3),
    }


def _zero() -> dict:
    return {"wins": 0, "losses": 0, "draws": 0}


def _add(counts: dict, values: np.ndarray, draw) -> None:
    draws = int(np.count_nonzero(values == draw))
    wins = int(np.count_nonzero((values & 1) == 1)) - (draws if draw & 1 else 0)
    counts["wins"] += wins
    counts["draws"] += draws
    counts["losses"] += len(values) - wins - draws
