"""The memory the largest tier of a game's solve needs, measured: JSON on standard output.

    python benchmarks/tier_peak.py NAME VARIANT

The tier is solved as the build solves it (the game's own solver, else the engine's),
after the whole of the game's smallest variant (its kernels compiled and warm, the
thread pool up) and the tiers before it (its children's real values). The process's
high-water mark of its resident set is reset (``retro.engine.peak_rss``) just before the
solve and read after it: the peak less the resident set before is what the solve needs
(``peak_bytes``); the children's values are copied after that baseline, so that they
count, as the estimate (``estimate_bytes``, ``Game.tier_memory``) counts them. A solve
during which numba compiled is measured again (``compiles``: the compiles seen during
the measured solve). ``null`` where the system cannot reset the high-water mark.

Run by ``benchmarks/games.py`` (also against older commits, so it uses only what they
have) and by ``tests/test_tier_memory.py``.
"""

import gc
import json
import sys
import time

from numba.core import event
from retro import games
from retro.engine import peak_rss, solvers


def resident():
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) * 1024 for line in handle if line.startswith("VmRSS:"))


def solve(game, tier, children):
    values = game.solve_tier(tier, children, None)
    return solvers.solve(game, tier, children) if values is None else values


class Compiles(event.Listener):
    count = 0

    def on_start(self, event):
        Compiles.count += 1

    def on_end(self, event):
        pass


game = games.get(sys.argv[1], sys.argv[2] or None)
tier = max(game.tiers(), key=game.tier_size)
smallest = min((games.get(game.name, v) for v in type(game).variants),
               key=lambda g: sum(g.tier_size(t) for t in g.tiers()))
values = {}
for each in smallest.tiers():  # the kernels compiled and warm, the thread pool up
    values[each] = solve(smallest, each, {c: values[c] for c in smallest.child_tiers(each)})
values = {}
for each in game.tiers():  # the children's real values
    if each == tier:
        break
    values[each] = solve(game, each, {c: values[c] for c in game.child_tiers(each)})
kept = {c: values[c] for c in game.child_tiers(tier)}
del values
event.register("numba:compile", Compiles())
for attempt in (1, 2):  # again if the first compiled a kernel the smallest variant did not need
    gc.collect()
    if not peak_rss.reset():
        print(json.dumps(None))
        sys.exit()
    Compiles.count = 0
    before = resident()
    children = {c: v.copy() for c, v in kept.items()}
    started = time.perf_counter()
    solve(game, tier, children)
    seconds = time.perf_counter() - started
    used = peak_rss.read() - before
    del children
    if Compiles.count == 0:
        break
print(json.dumps({"peak_bytes": used, "seconds": round(seconds, 3), "compiles": Compiles.count,
                  "estimate_bytes": game.tier_memory(tier), "tier": game.tier_name(tier),
                  "entries": game.tier_size(tier)}))
