"""The un-move solver's lists of entries to decide, bounded: every budget gives the same
values as lists without a bound (the levels beyond the horizon wait in the solver's
state words, and are gathered again, or handed out straight from them, when the solve
reaches them)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from retro import games
from retro.engine import unmove
from retro.engine.solvers import solve


def _tiers_solved(game) -> dict:
    """Every tier of ``game``'s variant, children first, by the build's own solver."""
    values: dict = {}
    for tier in game.tiers():
        values[tier] = solve(game, tier, {c: values[c] for c in game.child_tiers(tier)})
    return values


CASES = [("dobutsu", "C"), ("chess", "KRvK"), ("teeko", "4x4-3")]


@pytest.fixture(scope="module", params=CASES, ids=[f"{g} {v}" for g, v in CASES])
def solved(request):
    game = games.get(*request.param)
    return game, _tiers_solved(game)


@pytest.mark.parametrize("share", [None, 20], ids=["one entry", "a twentieth"])
def test_a_bounded_schedule_gives_the_same_values(solved, share, monkeypatch):
    """Lists of one entry (every level handed out from the state words), or of a
    twentieth of the tier (levels gathered again at the horizon)."""
    game, values = solved
    gathered = []
    collect = unmove.collect_pending

    def counting(aux, start, low, high, out):
        gathered.append(high - low)
        return collect(aux, start, low, high, out)

    monkeypatch.setattr(unmove, "collect_pending", counting)
    for tier in game.tiers():
        if not game.loopy(tier):
            continue
        children = {c: values[c] for c in game.child_tiers(tier)}
        kernels = game.tier_kernels(tier, children)
        assert kernels.schedule_budget is not None  # the kit bounds its lists
        budget = 1 if share is None else max(1, game.tier_size(tier) // share)
        bounded = dataclasses.replace(kernels, schedule_budget=budget)
        got = unmove.solve_loopy(bounded, np.dtype(game.value_dtype).type)
        assert np.array_equal(got, values[tier]), game.tier_name(tier)
    # the levels were handed out from the state words: one at a time, or gathered
    assert gathered
    if share is None:
        assert set(gathered) == {1}
    else:
        assert max(gathered) > 1
