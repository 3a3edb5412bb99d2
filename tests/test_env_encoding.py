"""The action and observation encoding of every registered game (retro.env.encoding):
every legal move of sampled positions round-trips through its action id, the mask is
exactly the legal moves, and the planes show the pieces the notation writes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from retro import games
from retro.env import Encoding, EncodingError

# Nine men's morris with 3 pieces stands for its variants: the same points, the same moves.
GAMES = [g for g in games.every_game() if g.name != "nine-mens-morris" or g.variant == "3"]


def sampled_positions(game, count=30, seed=1):
    """Positions of random games from the start (the start included)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        position = game.start()
        for _ in range(rng.randrange(0, 40)):
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(rng.choice(moves))
        out.append(position)
    return out


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.full_name)
def test_every_legal_move_round_trips_and_the_mask_is_the_legal_moves(game):
    encoding = Encoding(game)
    n = len(game.geometry()["points"])
    assert encoding.size == (n + 1) * n * (n + 1)
    for position in sampled_positions(game):
        moves = position.legal_moves()
        actions = [encoding.action(m) for m in moves]
        assert len(set(actions)) == len(moves)  # distinct moves, distinct actions
        for move, action in zip(moves, actions):
            assert 0 <= action < encoding.size
            assert encoding.move(position, action) == move
            assert encoding.text(action) == str(move)
        assert encoding.legal(position) == dict(zip(actions, moves))
        mask = encoding.mask(position)
        assert mask.sum() == len(moves) and all(mask[a] == 1 for a in actions)
        illegal = int(np.flatnonzero(mask == 0)[0])
        with pytest.raises(EncodingError, match="is not a legal move"):
            encoding.move(position, illegal)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.full_name)
def test_the_planes_show_the_pieces_the_notation_writes(game):
    encoding = Encoding(game)
    geometry = game.geometry()
    for position in sampled_positions(game, count=10, seed=2):
        planes = encoding.observation(position)
        assert planes.shape == (encoding.planes, geometry["rows"], geometry["columns"])
        cells = game.cells(position)
        for point, cell in zip(geometry["points"], cells):
            stack = planes[:len(encoding.pieces), point["y"], point["x"]]
            assert stack.tolist() == [1.0 if cell == char else 0.0 for char in encoding.pieces]
            assert planes[-1, point["y"], point["x"]] == 1.0
        assert planes[len(encoding.pieces) + position.side.code].min() == 1.0
        assert planes[-1].sum() == len(geometry["points"])
        hands = encoding.hand_counts(position)
        if geometry.get("hands"):
            assert hands.tolist() == [float(t) for t in str(position).split()[1:3]]
        else:
            assert not hands.any()


def test_an_action_outside_the_space_is_refused():
    encoding = Encoding(games.get("tic-tac-toe"))
    assert encoding.size == 900
    with pytest.raises(EncodingError, match="outside 0..899"):
        encoding.text(900)
