"""Dōbutsu shōgi's build: the one tier solved by the engine's un-move solver, for the
whole game or a smaller material (``--material GEC``: the pieces in play besides the lions).
Standard output: JSON (entries, seconds, entries/s, peak memory, the seconds of each
of the solver's kernels (``phases_seconds``: the scan weighing each entry's moves, the
un-moves, the runs their parents lie in, the duplicates' canonical entries), the longest
win and the drawn entries; the start's value for the whole game). The kernels are
compiled first, on the smallest material, so that the time is the solve's.

``--probe PATH`` times probes of a built file instead: ``retro.open_database(PATH)``
(values read from disk a chunk at a time), then one probe each of ``--positions``
random positions (random entries, either side to move) whose chunks no earlier probe
read, so that each reads and decompresses its chunk (the file itself may be in the
operating system's page cache): the median and the 99th percentile, in milliseconds."""

from __future__ import annotations

import argparse
import json
import resource
import time

import numpy as np

from retro.engine.solvers import solve
from retro.games.dobutsu import Dobutsu


PHASES = {"scan": "scan", "parents": "unmoves", "parent_blocks": "parent_runs", "canonical_of": "duplicates"}


class Material(Dobutsu):
    variants = ("",) + tuple("G" * g + "E" * e + "C" * c for g in range(3) for e in range(3) for c in range(3))
    phases: dict = {}

    def tier_kernels(self, tier, children):
        kernels = super().tier_kernels(tier, children)
        for attribute, name in PHASES.items():
            setattr(kernels, attribute, self._timed(name, getattr(kernels, attribute)))
        return kernels

    def _timed(self, name, kernel):
        def timed(*args):
            began = time.perf_counter()
            result = kernel(*args)
            self.phases[name] = self.phases.get(name, 0.0) + time.perf_counter() - began
            return result

        return timed


def probe_times(path: str, count: int) -> dict:
    """Cold probes of ``path`` (see the module docstring)."""
    from retro import open_database
    from retro.db.format import DatabaseFile

    file = DatabaseFile(path)
    (tier,) = file.tiers
    chunk = file.dataset(tier).chunks[0]
    file.close()
    db = open_database(path)
    game = db.game
    rng = np.random.default_rng(0)
    seen, times = set(), []
    while len(times) < count:
        entry = int(rng.integers(0, game.tier_size(tier)))
        position = game.position_at(tier, entry)
        if position is None or entry // chunk in seen:
            continue
        seen.add(entry // chunk)
        if rng.integers(2):
            text = str(position)
            position = game.parse(("G" if text[0] == "S" else "S") + text[1:])
        began = time.perf_counter()
        db.probe(position)
        times.append((time.perf_counter() - began) * 1000)
    db.close()
    return {"file": path, "probes": count, "cold_probe_ms_median": round(float(np.median(times)), 3),
            "cold_probe_ms_p99": round(float(np.percentile(times, 99)), 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--material", default="", help="GEC... (the whole game: GGEECC, the default)")
    parser.add_argument("--probe", metavar="PATH", help="time cold probes of this built file instead")
    parser.add_argument("--positions", type=int, default=300, help="probes to time (with --probe)")
    args = parser.parse_args()
    if args.probe:
        print(json.dumps(probe_times(args.probe, args.positions)))
        return
    variant = "" if args.material in ("", "GGEECC") else args.material
    warm = Material("C")
    solve(warm, warm.tiers()[0], {})  # the kernels compiled (the same for every material)
    game = Material(variant)
    tier = game.tiers()[0]
    Material.phases = {}
    began = time.perf_counter()
    size = game.tier_size(tier)
    values = solve(game, tier, {})
    seconds = time.perf_counter() - began
    out = {"game": "dobutsu", "material": list(game.material), "entries": size,
           "parts": len(game.parts(tier)), "seconds": round(seconds, 2),
           "entries_per_second": round(size / seconds), "value_bytes": int(values.nbytes),
           "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
           "phases_seconds": {name: round(Material.phases.get(name, 0.0), 2) for name in PHASES.values()}}
    decided = values[values < np.iinfo(values.dtype).max - 1]
    out["longest_win_plies"] = int(decided[(decided & 1) == 1].max(initial=0) >> 1)
    out["drawn_entries"] = int((values == np.iinfo(values.dtype).max).sum())
    if variant == "":
        start = game.start()
        v = int(values[game.index(start)])
        out["start"] = {"value": v, "result": "draw" if v == np.iinfo(values.dtype).max
                        else ("win" if v & 1 else "loss") + f" in {v >> 1} plies for sente"}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
