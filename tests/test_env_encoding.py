"""The action and observation encoding of every registered game (retro.env.encoding):
every legal move of sampled positions round-trips through its action id, the mask is
exactly the legal moves, and the planes show the pieces the notation writes."""

from __future__ import annotations

import random

import numpy as np
import pytest

from retro import games
from retro.env import ActionError, Encoding, EncodingError

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
    drops = len(set((game.geometry().get("hand_pieces") or "").upper()))  # kinds a hand holds: a drop's from
    assert encoding.size == (n + drops + 1) * n * (n + 1)
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
        sides = len(game.sides)
        assert planes[len(encoding.pieces) + position.side.code].min() == 1.0
        assert planes[len(encoding.pieces):len(encoding.pieces) + sides].sum() == planes[0].size
        assert planes[-1].sum() == len(geometry["points"])
        assert planes.min() >= 0.0 and planes.max() <= 1.0
        hands = encoding.hand_counts(position)
        if geometry.get("hand_pieces"):  # the letters after the rows: a plane per letter, 1 - 2**-count
            held = str(position).split()[-1]
            first = len(encoding.pieces) + sides
            for k, letter in enumerate(geometry["hand_pieces"]):
                assert planes[first + k].min() == planes[first + k].max() == 1.0 - 0.5 ** held.count(letter)
            assert hands.tolist() == [sum(held.count(c) for c in geometry["hand_pieces"]
                                          if geometry["pieces"][c]["side"] == side.value) for side in game.sides]
        elif geometry.get("hands"):
            in_hand = [float(t) for t in str(position).split()[1:3]]
            assert hands.tolist() == in_hand
            # The planes alone give the hands back: each side's plane is its share of its pieces.
            shares = planes[len(encoding.pieces) + sides:len(encoding.pieces) + 2 * sides]
            for share, count in zip(shares, in_hand):
                assert share.min() == share.max()
                assert round(float(share.max()) * geometry["pieces_per_side"]) == count
            assert encoding.planes == len(encoding.pieces) + 2 * sides + 1
        else:
            assert not hands.any() and encoding.planes == len(encoding.pieces) + sides + 1


def test_an_action_outside_the_space_is_refused():
    encoding = Encoding(games.get("tic-tac-toe"))
    assert encoding.size == 900
    with pytest.raises(EncodingError, match="outside the action space 0..899"):
        encoding.text(900)


def test_an_action_is_an_integer_of_the_space_and_nothing_else():
    """What ``gymnasium.spaces.Discrete`` holds is an action; nothing is rounded."""
    encoding = Encoding(games.get("tic-tac-toe"))
    position = games.get("tic-tac-toe").start()
    action = encoding.action("b2")
    for given in (action, np.int64(action), np.int8(action), np.uint32(action), np.array(action),
                  np.array(action, dtype=np.uint16)):
        assert encoding.action_id(given) == action and type(encoding.action_id(given)) is int
        assert str(encoding.move(position, given)) == "b2"
    for given in (action + 0.5, float(action), np.float32(action), float("nan"), True, np.bool_(True), "b2",
                  str(action), None, [action], np.array([action]), np.array(float(action)), complex(action),
                  900, -1, np.int64(10**6)):
        for call in (encoding.action_id, encoding.text, lambda a: encoding.move(position, a)):
            with pytest.raises(ActionError) as error:
                call(given)
            message = str(error.value)
            assert "0..899" in message and "\n" not in message, (given, message)
    assert issubclass(ActionError, EncodingError) and issubclass(ActionError, ValueError)


def test_a_position_is_one_of_the_game_or_its_text():
    game = games.get("three-musketeers", "3x3")
    encoding = Encoding(game)
    start = game.start()
    assert str(encoding.position(start)) == str(start) == str(encoding.position(str(start)))
    for given in (5, None, b"M XXO XOX OXX", games.get("tic-tac-toe").start()):
        with pytest.raises(TypeError, match="a three-musketeers 3x3 position or its text"):
            encoding.position(given)
    from retro.errors import PositionError

    other = games.get("three-musketeers", "4x4").start()
    for given in (other, str(other)):  # a position of another board, or its text
        with pytest.raises(PositionError, match="a position of three-musketeers 4x4, not of three-musketeers 3x3"):
            encoding.position(given)
