"""Dōbutsu shōgi's build: the one tier solved by the engine's un-move solver, for the
whole game or a smaller material (``--material GEC``: the pieces in play besides the lions).
Standard output: JSON (entries, seconds, entries/s, peak memory, the seconds of each
of the solver's kernels (``phases_seconds``: the scan weighing each entry's moves, the
un-moves, the runs their parents lie in, the duplicates' canonical entries), the longest
win and the drawn entries; the start's value for the whole game). The kernels are
compiled first, on the smallest material, so that the time is the solve's."""

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--material", default="", help="GEC... (the whole game: GGEECC, the default)")
    args = parser.parse_args()
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
