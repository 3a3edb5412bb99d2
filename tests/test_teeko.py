"""Teeko on the kit: rules, notation, and every position of the 4x4-3 variant against an
independent retrograde solver (tests/teeko_oracle.py)."""

from __future__ import annotations

from operator import itemgetter

import numpy as np
import pytest

import teeko_oracle
from retro import games
from retro.db.format import DatabaseFile
from retro.engine.build import build
from retro.errors import IllegalMoveError, MoveSyntaxError, NotationError, SideError
from retro.values import Outcome

START = "B ..... ..... ..... ..... ....."


@pytest.fixture(scope="session")
def teeko43(tmp_path_factory):
    """(game, values by tier) of the 4x4-3 variant, built whole."""
    game = games.get("teeko", "4x4-3")
    out = build(game, tmp_path_factory.mktemp("teeko") / "teeko-4x4-3.h5", progress=False).path
    file = DatabaseFile(out)
    try:
        values = {t: game.from_stored(t, file.read(t)) for t in file.tiers}
    finally:
        file.close()
    return game, values


def test_the_start_and_the_notation():
    game = games.get("teeko")
    assert str(game.parse(START)) == START == str(game.start())
    assert str(game.parse("b_....._....._....._....._.....")) == START
    position = game.parse(START).play("c3")
    assert str(position) == "W ..... ..... ..B.. ..... ....."
    assert str(position.play("C 2")) == "B ..... ..W.. ..B.. ..... ....."
    assert len(game.parse(START).legal_moves()) == 25


def test_steps_wins_and_errors():
    game = games.get("teeko")
    moving = game.parse("B BB.WW ..... ..... BBWW. .....")
    steps = {str(m) for m in moving.legal_moves()}
    assert "a1-a2" in steps and "b4-c5" in steps and "a1-b2" in steps and "a1-c1" not in steps
    assert not moving.is_over()
    won = game.parse("W BBBB. WWW.. ..... ....W .....")
    assert won.is_over() and won.winner().letter == "B" and won.legal_moves() == []
    square = game.parse("W BB... BB... WWW.. ...W. .....")
    assert square.winner().letter == "B"
    assert game.finished_value(square) == 1
    with pytest.raises(IllegalMoveError):
        moving.play("a1-c3")
    with pytest.raises(MoveSyntaxError):
        game.parse_move("z9")
    with pytest.raises(SideError):
        game.parse("W ..... ..... ..... ..... .....")
    with pytest.raises(NotationError):
        game.parse("B BBBB. WWWW. ..... ..... .....")  # both have a line
    with pytest.raises(NotationError):
        game.parse("B BBB.. ..... ..... ..... .....")


def test_symmetric_images_share_an_entry():
    game = games.get("teeko")
    position = game.parse("W B.... ..... .BW.. ..... .....")
    entries = {game.index(image) for image in position.symmetric_images()}
    assert len(entries) == 1
    assert len(position.symmetric_images()) == 8


def test_every_position_of_4x4_3_against_the_oracle(teeko43):
    """Value and distance of every position (each entry's images, both sides where the
    entry stands for both) against a plain retrograde solver written from the rules."""
    game, values = teeko43
    oracle = teeko_oracle.solve(4, 3, False)
    # the images of a board's cells (as text, row 1 first) under each symmetry
    inverse = np.argsort(game.symmetry, axis=1)
    images = [itemgetter(*row) for row in inverse.tolist()]
    seen = set()
    for tier in game.tiers():
        stored = values[tier]
        for entry in range(game.tier_size(tier)):
            position = game.position_at(tier, entry)
            if position is None:
                continue
            board, _ = game.view(position)  # from the mover's view: an entry stands for both colours
            for code in game.sides_of(tier):
                side = game.sides.from_code(code)
                mine = position if side == position.side else game.position_of(board, side)
                cells = "".join(str(mine).split()[1:])
                outcome = Outcome.from_value(game.value_for(mine, int(stored[entry])), side)
                value = (None if outcome.winner is None else outcome.winner.letter, outcome.plies)
                for image in images:
                    flat = "".join(image(cells))
                    text = " ".join([side.letter, flat[0:4], flat[4:8], flat[8:12], flat[12:16]])
                    if text in seen:
                        continue
                    seen.add(text)
                    assert oracle[text] == value, text
    assert len(seen) == len(oracle) == game.positions()
    start = game.parse("B .... .... .... ....")
    assert oracle[str(start)] == ("B", 5)


def test_the_tiers_and_counts():
    game = games.get("teeko")
    assert game.tiers()[0] == (4, 4) and game.loopy((4, 4)) and not game.loopy((4, 3))
    assert [game.tier_name(t) for t in game.tiers()[:3]] == ["moving", "drop_4_3", "drop_3_3"]
    assert sum(game.tier_size(t) for t in game.tiers()) == 12_765_414
    assert np.all(game.tier_sides((4, 3)) == 1)
