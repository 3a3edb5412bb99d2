"""Hypothesis strategies shared by the tests."""

from __future__ import annotations

from hypothesis import strategies as st

from retro.games.musketeers.position import Position, Side


@st.composite
def positions(draw, sizes=(3, 4, 5)):
    """Any position (finished or not) of the given board sizes."""
    size = draw(st.sampled_from(sizes))
    squares = size * size
    musketeers = draw(st.sets(st.integers(0, squares - 1), min_size=3, max_size=3))
    others = [s for s in range(squares) if s not in musketeers]
    enemies = draw(st.sets(st.sampled_from(others)))
    side = draw(st.sampled_from([Side.MUSKETEERS, Side.ENEMY]))
    return Position(side, sum(1 << s for s in musketeers), sum(1 << s for s in enemies), size)
