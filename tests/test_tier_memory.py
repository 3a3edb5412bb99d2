"""The memory a kit game's tier needs, against its estimate (``Game.tier_memory``: what
``retro build`` says before it solves, what a cluster's task declares): within twice
the estimate, both ways, on every registered game built on the kit.

Each game's largest tier is solved in a child process, as the build solves it (the
game's own solver, else the engine's), after the whole of the game's smallest variant
(its kernels compiled and warm, the thread pool up) and the tiers before it (its
children's real values). The process's high-water mark of its resident set is reset
(``retro.engine.peak_rss``) just before the solve and read after it: the peak less the
resident set before (the interpreter, numba, the game's tables) is what the solve
needs. The children's values are copied after that baseline, so that they count, as
the estimate counts them. A solve during which numba compiled (a kernel the smallest
variant did not need) would measure the compiler: it is measured again, and the test
requires a measurement without a compile.

Small tiers are dominated by fixed overhead: a solve's buffers (a chunk of scan
results, the lists handed to the threads) are allocated whole and touched in part, and
numpy backs the large ones with 2 MB huge pages when the kernel has them, so a tier of
a few thousand entries takes anything from 1 to 16 MB depending on the machine's
state, where the estimate allows a fixed 8 MB and more per entry for the buffers (Teeko
4x4's 124,740 entries: 8 to 20 MB measured, 26 MB estimated, of which 1.2 MB for the
entries themselves). So each game is measured on its
smallest variant (of those a test session may build) whose largest tier is estimated
at ``FLOOR`` or more, where the entries dominate, and checked both ways; a game with no
such variant is measured on its smallest and checked from above only (a solve never
needs more than twice the estimate, small or not).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from registered import entries, small
from retro import games
from retro.games.kit import PieceGame

FLOOR = 60 << 20  # bytes: estimates from here on are checked both ways (7.5 times 8 MB)

MEASURE = Path(__file__).resolve().parent.parent / "benchmarks" / "tier_peak.py"


def largest_estimate(game) -> int:
    return game.tier_memory(max(game.tiers(), key=game.tier_size))


def measured_variants() -> list:
    """For each registered kit game, the variant measured (see the module docstring)."""
    out = []
    for name, cls in games.GAMES.items():
        if not issubclass(cls, PieceGame):
            continue
        variants = sorted((games.get(name, v) for v in cls.variants), key=entries)
        buildable = [g for g in variants if small(g)]
        if not buildable:
            out.append(pytest.param(None, marks=pytest.mark.skip(f"{name}: no variant small enough"), id=name))
            continue
        large = [g for g in buildable if largest_estimate(g) >= FLOOR]
        game = (large or buildable)[0]
        out.append(pytest.param(game, id=game.full_name))
    return out


def test_every_kit_game_is_measured():
    """The registry's kit games are all here (the list is not empty by accident)."""
    kit = [name for name, cls in games.GAMES.items() if issubclass(cls, PieceGame)]
    assert "teeko" in kit
    assert [p.id.split()[0] for p in measured_variants()] == kit


@pytest.mark.parametrize("game", measured_variants())
def test_the_largest_tier_needs_the_memory_estimated_within_twice(game):
    result = subprocess.run([sys.executable, str(MEASURE), game.name, game.variant],
                            capture_output=True, text=True, env=dict(os.environ), timeout=600)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    if figures is None:
        pytest.skip("no peak resident set on this system (/proc/self/clear_refs)")
    used, estimate = figures["peak_bytes"], figures["estimate_bytes"]
    assert figures["compiles"] == 0, figures
    assert estimate == largest_estimate(game)
    assert used <= 2 * estimate, figures
    if estimate >= FLOOR:
        assert used >= estimate / 2, figures
