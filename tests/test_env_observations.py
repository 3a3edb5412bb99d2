"""What an agent observes is the whole position (issue 40, item 6): in every environment
(the planes alone, Gymnasium, PettingZoo, OpenSpiel), two positions whose values differ
never share an observation, over sampled positions of every registered game.

The samples are built to meet what the board alone does not show: positions of random
play, positions drawn from the database (the same index in every tier, as tiers split
by what is in hand and who is to move), and each of those with one word of its notation
replaced by the same word of another sample (another side to move, another count in
hand, another row).
"""

from __future__ import annotations

import random
from collections import defaultdict

import numpy as np
import pytest

from retro import games, open_database
from retro.env import Encoding
from retro.errors import DatabaseError, PositionError
from registered import small

GAMES = list(games.every_game())
# The session's databases (tests/conftest.py): every variant small enough, and Three
# Musketeers 5x5 up to 4 enemy men.
PARTIAL = {"three-musketeers 5x5": "db5_low"}
WITH_DATABASE = [g for g in GAMES if small(g) or g.full_name in PARTIAL]


def database(game, request):
    if game.full_name in PARTIAL:
        return request.getfixturevalue(PARTIAL[game.full_name])
    return request.getfixturevalue("databases")(game)


def random_play(game, rng: random.Random, count: int) -> list:
    """Positions of random games from the start, finished ones among them."""
    out = []
    for _ in range(count):
        position = game.start()
        for _ in range(rng.randrange(0, 60)):
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(rng.choice(moves))
        out.append(position)
    return out


def from_database(db, rng: random.Random, indexes: int) -> list:
    """The positions at the same random indexes of every tier."""
    game, out = db.game, []
    sizes = {tier: game.tier_size(tier) for tier in db.tiers}
    for _ in range(indexes):
        index = rng.randrange(max(sizes.values()))
        for tier, size in sizes.items():
            position = game.position_at(tier, index % size)
            if position is not None:
                out.append(position)
    return out


def neighbours(game, positions: list, rng: random.Random, count: int) -> list:
    """Positions whose notation is that of a sample with one word taken from another."""
    words = [str(p).split() for p in positions]
    out = []
    for _ in range(count):
        mine, theirs = rng.choice(words), rng.choice(words)
        if len(mine) != len(theirs) or mine == theirs:
            continue
        k = rng.randrange(len(mine))
        try:
            position = game.parse(" ".join(mine[:k] + [theirs[k]] + mine[k + 1:]))
        except PositionError:  # not a position (more pieces than the game has, ...)
            continue
        if game.for_position(position).full_name == game.full_name:  # not another variant's
            out.append(position)
    return out


def distinct(positions: list) -> list:
    seen = {}
    for position in positions:
        seen.setdefault(str(position), position)
    return list(seen.values())


def sampled(game, db=None, seed: int = 0) -> list:
    rng = random.Random(seed)
    base = random_play(game, rng, 60) + (from_database(db, rng, 15) if db is not None else [])
    # Neighbours of neighbours too: the pair differs from a played position in a
    # hand count and a row.
    first = neighbours(game, base, rng, 400)
    return distinct(base + first + neighbours(game, base + first, rng, 400))


def _key(observation) -> bytes:
    if isinstance(observation, dict):
        return b"".join(np.ascontiguousarray(observation[k]).tobytes() for k in sorted(observation))
    return np.asarray(observation, dtype=np.float32).tobytes()


def observers(game) -> dict:
    """Each environment's observation of a position by the side to move, as a function."""
    encoding = Encoding(game)
    out = {"planes": encoding.observation}
    try:
        from retro.env import gymnasium_env, pettingzoo_env
    except ImportError:  # pragma: no cover - the rl extra is missing
        return out
    variant = game.variant or None
    gym = {side: gymnasium_env(game.name, variant, side=side.value, opponent="random") for side in game.sides}
    zoo = pettingzoo_env(game.name, variant)

    def gymnasium(position):
        return gym[position.side].reset(options={"position": position})[0]

    def pettingzoo(position):
        zoo.reset(options={"position": position})
        return zoo.observe(position.side.value)

    out |= {"gymnasium": gymnasium, "pettingzoo": pettingzoo}
    try:
        import pyspiel

        from retro.env.openspiel_env import short_name
    except ImportError:  # pragma: no cover - no open_spiel wheel here
        return out
    spiel = pyspiel.load_game(short_name(game.name), {"variant": game.variant} if game.variant else {})

    def openspiel(position):
        state = spiel.new_initial_state()
        state.position = position
        return state.observation_tensor(position.side.code)

    out["openspiel"] = openspiel
    return out


def board_tells_the_side(game, positions) -> bool:
    """Whether none of the positions is still one with another side to move (tic-tac-toe:
    the marks say whose turn it is)."""
    for position in positions:
        rest = str(position).split()[1:]
        for side in game.sides:
            if side is not position.side:
                try:
                    game.parse(" ".join([side.letter, *rest]))
                except PositionError:
                    continue
                return False
    return True


@pytest.mark.parametrize("game", WITH_DATABASE, ids=lambda g: g.full_name)
def test_no_two_positions_of_different_values_share_an_observation(game, request):
    with open_database(database(game, request)) as db:
        values = {}
        for position in sampled(game, db):
            try:
                values[str(position)] = (position, repr(db.probe(position)))
            except (DatabaseError, PositionError):  # not in this small database
                continue
    by_board = defaultdict(set)
    for position, value in values.values():
        by_board[game.cells(position)].add(value)
    # The samples reach positions the board alone does not tell apart (another side to
    # move, other hands), except where the board says who is to move (tic-tac-toe).
    positions = [position for position, _ in values.values()]
    assert board_tells_the_side(game, positions) or any(len(v) > 1 for v in by_board.values())
    assert game.name != "tic-tac-toe" or board_tells_the_side(game, positions)
    for environment, observe in observers(game).items():
        seen = {}
        for position, value in values.values():
            other = seen.setdefault(_key(observe(position)), (position, value))
            assert other[1] == value, (f"{environment}: {other[0]} ({other[1]}) and {position} ({value}) "
                                       "share an observation")


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.full_name)
def test_every_environment_tells_every_two_positions_apart(game):
    """Without a database (nine men's morris 4 to 9 pieces have none small), the stronger
    claim: distinct positions, distinct observations."""
    positions = sampled(game, seed=1)
    for environment, observe in observers(game).items():
        seen = {}
        for position in positions:
            other = seen.setdefault(_key(observe(position)), position)
            assert other is position, f"{environment}: {other} and {position} share an observation"


@pytest.mark.parametrize("name", ["nine-mens-morris 4", "nine-mens-morris 9"])
def test_the_pieces_in_hand_are_observed(name):
    """The issue's pair: Black with 1 piece in hand draws; with none it has lost."""
    game = next(g for g in GAMES if g.full_name == name)
    pair = [game.parse(f"B 0 {n} B.. WW. ... .W.... B.. W.. ...") for n in (1, 0)]
    assert not pair[0].is_over() and pair[1].is_over()
    for environment, observe in observers(game).items():
        assert _key(observe(pair[0])) != _key(observe(pair[1])), environment
