"""Statistics of a tiered game's database (every game but Three Musketeers).

:func:`analyze` reads every tier once and counts, per tier and per side to move, the
positions the side to move wins, loses and draws, two ways: *entries* (as stored)
and *distinct positions* up to the game's symmetries (the game says which entries
stand for the same position: :meth:`~retro.games.protocol.Game.symmetry_classes`).
It records the longest win of each side with an example, the value of the start and
of every first move, and the positions reachable from the start (a forward search
over the game's moves, tier by tier from the start's, closing each loopy tier).
"""

from __future__ import annotations

import os
import time

import numpy as np
from numba import njit

from ..db.database import open_database
from ..db.format import DatabaseFile
from ..games.protocol import OPEN, Game
from ..values import Outcome, draw_value, not_a_position


def analyze(path: str | os.PathLike, *, progress: bool = True, reach: bool = True) -> dict:
    """Statistics of the database at ``path`` as one JSON-ready dict (see the module
    docstring); ``reach=False`` skips the positions reachable from the start."""
    started = time.perf_counter()
    file = DatabaseFile(path)
    path = file.path  # absolute, as every message and report shows it
    try:
        game, tiers = file.game, list(file.tiers)
        values = {t: game.from_stored(t, file.read(t)) for t in tiers}
    finally:
        file.close()
    dtype = np.dtype(game.value_dtype).type
    draw, invalid = draw_value(dtype), not_a_position(dtype)
    sides = [side.value for side in game.sides]
    report: dict = {"path": str(path), "game": game.name, "variant": game.variant,
                    "title": game.title}
    per_tier, totals = [], {s: _empty_counts() for s in sides}
    longest: dict = {s: None for s in sides}
    classes = {}
    for tier in tiers:
        v = values[tier]
        expansion_side = game.tier_sides(tier)
        classes[tier] = game.symmetry_classes(tier)
        representative = classes[tier] == np.arange(len(v))
        row = {"tier": game.tier_name(tier), "entries": int(np.count_nonzero(v != invalid)),
               "by_side": {}}
        for code, name in enumerate(sides):
            mine = (expansion_side == code) & (v != invalid)
            counts = _counts(v[mine], code, draw)
            distinct = _counts(v[mine & representative], code, draw)
            row["by_side"][name] = {"entries": counts, "distinct": distinct}
            for key in ("wins", "losses", "draws"):
                totals[name]["entries"][key] += counts[key]
                totals[name]["distinct"][key] += distinct[key]
            decided = mine & (v != draw)
            for winner_code, winner in enumerate(sides):
                won = decided & (((v & 1) == 1) == (winner_code == 0))
                if won.any():
                    plies = (v[won] >> 1)
                    best = int(plies.max())
                    if longest[winner] is None or best > longest[winner]["plies"]:
                        entry = int(np.flatnonzero(won)[int(np.argmax(plies))])
                        longest[winner] = {"plies": best,
                                           "position": str(game.position_at(tier, entry))}
        per_tier.append(row)
    report["positions"] = {
        "entries": sum(r["entries"] for r in per_tier),
        "distinct": sum(sum(totals[s]["distinct"].values()) for s in sides),
        "all": game.positions(tiers),
    }
    report["sides"] = {f"{s}_to_move": totals[s] for s in sides}
    report["longest_win"] = longest
    report["tiers"] = per_tier
    report["start"] = _start(path, game)
    report["reachable"] = _reachable(game, tiers, classes, progress) if reach else None
    report["seconds"] = round(time.perf_counter() - started, 3)
    return report


def _empty_counts() -> dict:
    return {"entries": {"wins": 0, "losses": 0, "draws": 0},
            "distinct": {"wins": 0, "losses": 0, "draws": 0}}


def _counts(values: np.ndarray, mover: int, draw: int) -> dict:
    """Wins, losses and draws of the side to move (code ``mover``) among ``values``."""
    draws = values == draw
    first_wins = (values & 1) == 1
    mover_wins = first_wins if mover == 0 else ~first_wins
    wins = int(np.count_nonzero(mover_wins & ~draws))
    return {"wins": wins, "losses": int(len(values) - wins - np.count_nonzero(draws)),
            "draws": int(np.count_nonzero(draws))}


def _start(path, game: Game) -> dict | None:
    """The value of the start and of every first move (None when the file lacks it)."""
    with open_database(path) as db:
        start = game.start()
        try:
            outcome = db.probe(start)
        except Exception:  # noqa: BLE001 - an endgame file without the start's tier
            return None
        return {"position": str(start), **outcome.as_dict(), "value": str(outcome),
                "moves": [{"move": str(m), **o.as_dict(), "value": str(o)} for m, o in db.moves(start)]}


def _reachable(game: Game, tiers: list, classes: dict, progress: bool) -> dict:
    """Entries reachable from the start by legal moves: a search over the tiers from the
    start's (parents come after their children in solving order, so in reverse order
    every tier is reached before it is left), closing each loopy tier on itself."""
    start = game.start()
    start_tier = game.tier_of(start)
    held = set(tiers)
    reached = {t: np.zeros(game.tier_size(t), dtype=np.bool_) for t in tiers}
    if start_tier not in held:
        return None
    reached[start_tier][game.index(start)] = True
    for tier in reversed(tiers):
        if not reached[tier].any():
            continue
        expansion = game.expand(tier)
        if game.loopy(tier):
            close_tier(reached[tier], expansion.starts, expansion.child_tier, expansion.child_entry)
        for slot, child in enumerate(expansion.tiers[1:], start=1):
            if child in held:
                mark(reached[tier], expansion.starts, expansion.child_tier, expansion.child_entry,
                     slot, reached[child])
    entries = sum(int(r.sum()) for r in reached.values())
    distinct = sum(len(np.unique(classes[t][reached[t]])) for t in tiers)
    by_side = {}
    for code, side in enumerate(game.sides):
        count = 0
        for t in tiers:
            count += int(np.count_nonzero(reached[t] & (game.tier_sides(t) == code)))
        by_side[side.value] = count
    return {"start": str(start), "entries": entries, "distinct": distinct, "by_side": by_side}


@njit(cache=True)
def close_tier(reached, starts, child_tier, child_entry):
    """Add to ``reached`` every entry of the tier reachable from it by moves inside it."""
    stack = np.empty(len(reached), dtype=np.int64)
    top = 0
    for i in range(len(reached)):
        if reached[i]:
            stack[top] = i
            top += 1
    while top:
        top -= 1
        i = stack[top]
        for e in range(starts[i], starts[i + 1]):
            if child_tier[e] == 0 and not reached[child_entry[e]]:
                reached[child_entry[e]] = True
                stack[top] = child_entry[e]
                top += 1


@njit(cache=True)
def mark(reached, starts, child_tier, child_entry, slot, target):
    """Mark in ``target`` the children in tier slot ``slot`` of the reached entries."""
    for i in np.flatnonzero(reached):
        for e in range(starts[i], starts[i + 1]):
            if child_tier[e] == slot:
                target[child_entry[e]] = True


def _plies(found: dict | None) -> str:
    if not found:
        return "-"
    return f"{found['plies']} pl{'y' if found['plies'] == 1 else 'ies'}"


def report_text(report: dict) -> str:
    """The text report of ``retro analyze`` for a tiered game."""
    game = f"{report['title']}{' ' + report['variant'] if report['variant'] else ''}"
    positions = report["positions"]
    lines = [f"{report['path']}: {game}, {len(report['tiers'])} tier{'s' * (len(report['tiers']) != 1)}, "
             f"{positions['entries']:,} table entries standing for {positions['all']:,} "
             f"positions, {positions['distinct']:,} distinct up to symmetry"]
    start = report.get("start")
    if start:
        lines.append(f"\nstart {start['position']}: {start['value']}")
        lines.append("  first moves: " + ", ".join(f"{m['move']} {m['value']}" for m in start["moves"]))
    for key, side in report["sides"].items():
        name = key.replace("_to_move", "")
        e, d = side["entries"], side["distinct"]
        lines.append(f"\n{name} to move: wins {e['wins']:,} ({d['wins']:,} distinct), losses "
                     f"{e['losses']:,} ({d['losses']:,}), draws {e['draws']:,} ({d['draws']:,})")
    for winner, longest in report["longest_win"].items():
        if longest:
            lines.append(f"longest win of {winner}: {longest['plies']} plies, e.g. {longest['position']}")
    width = max([16] + [len(row["tier"]) for row in report["tiers"]])
    longest = any("longest_win" in row for row in report["tiers"])
    lines.append(f"\n  {'tier':<{width}} {'side':>8} {'wins':>12} {'losses':>12} {'draws':>12}"
                 + (f" {'longest win':>11} {'longest loss':>12}" if longest else ""))
    for row in report["tiers"]:
        for side, counts in row["by_side"].items():
            c = counts["entries"]
            if sum(c.values()):
                line = (f"  {row['tier']:<{width}} {side:>8} {c['wins']:>12,} {c['losses']:>12,} "
                        f"{c['draws']:>12,}")
                if longest:
                    line += "".join(f" {_plies(row.get(key)):>{w}}" for key, w in
                                    (("longest_win", 11), ("longest_loss", 12)))
                lines.append(line)
    placed = report.get("after_placement")
    if placed and placed["positions"]:
        n = placed["positions"]
        lines.append(f"\nafter the last placement with no piece taken ({placed['pieces']} against "
                     f"{placed['pieces']} pieces, no mill, White to move): {n:,} distinct positions; "
                     f"White wins {placed['white_wins'] / n:.1%}, Black wins "
                     f"{placed['black_wins'] / n:.1%}, draws {placed['draws'] / n:.1%}")
    reach = report.get("reachable")
    if reach:
        lines.append(f"\nreachable from {reach['start']}: {reach['entries']:,} positions, "
                     f"{reach['distinct']:,} up to symmetry")
    return "\n".join(lines)


__all__ = ["analyze", "report_text", "Outcome", "OPEN"]
