"""Statistics of a game of more than two players (the four-player race): per player.

Each player's tier holds its game against the others together. For every player
:func:`analyze` counts the positions it wins (can force being first on its goal), loses
and draws, split by whether it is to move; the longest forced win and the longest loss
with an example; the start's values and its first moves'; and the positions reachable
from the start by legal moves (a forward search over the game's own moves), with the
same counts over them.
"""

from __future__ import annotations

import os
import time

import numpy as np
from numba import njit

from ..db.database import open_database
from ..db.format import DatabaseFile
from ..values import draw_value, not_a_position


def analyze(path: str | os.PathLike, *, progress: bool = True, reach: bool = True) -> dict:
    """Statistics of the database at ``path`` as one JSON-ready dict (see the module
    docstring); ``reach=False`` skips the positions reachable from the start."""
    started = time.perf_counter()
    file = DatabaseFile(path)
    path = file.path
    try:
        game = file.game
        tiers = game.player_tiers()
        values = [game.from_stored(t, file.read(t)) for t in tiers]
    finally:
        file.close()
    dtype = np.dtype(game.value_dtype).type
    draw, invalid = draw_value(dtype), not_a_position(dtype)
    legal = values[0] != invalid
    report: dict = {"path": str(path), "game": game.name, "variant": game.variant, "title": game.title,
                    "positions": int(np.count_nonzero(legal))}
    reachable = None
    if reach:
        reachable = np.zeros(len(values[0]), dtype=np.bool_)
        expansion = game.expand(tiers[0])
        _reach(game.index(game.start()), expansion.starts, expansion.child_entry, reachable)
        report["reachable"] = {"from": str(game.start()), "positions": int(np.count_nonzero(reachable))}
    report["players"] = {}
    for k, (side, v) in enumerate(zip(game.sides, values)):
        own = game.tier_sides(tiers[k]) == 0  # in a player's tier, side 0 is that player
        row = {"all": _counts(v[legal], draw),
               "to_move": _counts(v[legal & own], draw),
               "others_to_move": _counts(v[legal & ~own], draw),
               "longest_win": _longest(game, tiers[k], v, legal & (v != draw) & ((v & 1) == 1)),
               "longest_loss": _longest(game, tiers[k], v, legal & (v != draw) & ((v & 1) == 0))}
        if reachable is not None:
            row["reachable"] = _counts(v[reachable], draw)
        report["players"][side.value] = row
    with open_database(path) as db:
        start = game.start()
        report["start"] = {"position": str(start), "values": db.probe(start).as_dict(),
                           "moves": [{"move": str(m), "values": s.as_dict()} for m, s in db.moves(start)]}
    report["seconds"] = round(time.perf_counter() - started, 3)
    return report


def _counts(v: np.ndarray, draw: int) -> dict:
    draws = int(np.count_nonzero(v == draw))
    wins = int(np.count_nonzero((v != draw) & ((v & 1) == 1)))
    return {"wins": wins, "losses": len(v) - draws - wins, "draws": draws}


def _longest(game, tier, v: np.ndarray, mask: np.ndarray) -> dict | None:
    if not mask.any():
        return None
    plies = np.where(mask, v.astype(np.int64) >> 1, -1)
    entry = int(np.argmax(plies))
    return {"plies": int(plies[entry]), "position": str(game.position_at(tier, entry))}


@njit(cache=True)
def _reach(start, starts, child_entry, seen):
    """Mark every entry reachable from ``start`` by moves (depth first, an explicit stack)."""
    stack = [start]
    seen[start] = True
    while stack:
        entry = stack.pop()
        for e in range(starts[entry], starts[entry + 1]):
            child = child_entry[e]
            if not seen[child]:
                seen[child] = True
                stack.append(child)


def report_text(report: dict) -> str:
    """The text of ``retro analyze`` for a game of more than two players."""
    game = f"{report['title']}{' (' + report['variant'] + ')' if report['variant'] else ''}"
    lines = [f"{report['path']}: {game}, {report['positions']:,} positions, each player's value "
             "against the other players together"]
    start = report["start"]
    lines.append(f"\nstart {start['position']}: {_values_text(start['values'])}")
    lines.append("  first moves: " + ", ".join(f"{m['move']} {_values_text(m['values'])}"
                                                for m in start["moves"]))
    reach = report.get("reachable")
    lines.append(f"\n  {'player':<8}{'':<16} {'wins':>9} {'losses':>9} {'draws':>9}")
    for name, row in report["players"].items():
        parts = [("all positions", row["all"]), ("it to move", row["to_move"]),
                 ("others to move", row["others_to_move"])]
        if reach:
            parts.append(("reachable", row["reachable"]))
        for i, (label, c) in enumerate(parts):
            lines.append(f"  {name if i == 0 else '':<8}{label:<16} {c['wins']:>9,} {c['losses']:>9,} "
                         f"{c['draws']:>9,}")
    for name, row in report["players"].items():
        win, loss = row["longest_win"], row["longest_loss"]
        lines.append(f"{name}: longest forced win "
                     + (f"{win['plies']} plies, e.g. {win['position']}" if win else "none")
                     + "; longest loss " + (f"{loss['plies']} plies, e.g. {loss['position']}" if loss else "none"))
    if reach:
        lines.append(f"\nreachable from {reach['from']}: {reach['positions']:,} positions")
    return "\n".join(lines)


def _values_text(values: dict) -> str:
    return " ".join("D" if v["result"] == "draw" else f"{v['result'][0].upper()}{v['plies']}"
                    for v in values.values())
