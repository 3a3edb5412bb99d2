"""Shared fixtures: small databases built once per test session."""

from __future__ import annotations

import pytest
from hypothesis import settings

import retro.build as builder
from retro.build import build

# First calls compile jitted code or build tables: per-example deadlines would be noise.
settings.register_profile("retro", deadline=None)
settings.load_profile("retro")

@pytest.fixture(scope="session")
def db_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("databases")


@pytest.fixture(scope="session")
def db3(db_dir):
    return build(3, db_dir / "3x3.h5", progress=False).path


@pytest.fixture(scope="session")
def db4(db_dir):
    return build(4, db_dir / "4x4.h5", progress=False).path


@pytest.fixture(scope="session")
def db5_low(db_dir):
    return build(5, db_dir / "5x5-low.h5", max_guards=4, progress=False).path


@pytest.fixture
def interrupt_at(monkeypatch):
    """``interrupt_at(k)``: the next builds stop with Ctrl-C when they reach layer k."""
    solve = builder._solve_layer

    def arm(layer: int | None) -> None:
        def solve_or_interrupt(ix, mt, k, previous, bar):
            if k == layer:
                raise KeyboardInterrupt
            return solve(ix, mt, k, previous, bar)

        monkeypatch.setattr(builder, "_solve_layer", solve_or_interrupt)

    return arm
