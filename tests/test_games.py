"""The game protocol's contract, for every registered game; and files of retro 0.2.

Each game must keep its promises to the engine: the index is a bijection between a
tier's entries and its positions, every move lands in the tier itself or in one the
game declares (and declared tiers come first in solving order), finished positions
are exactly those without moves, the notation round-trips, the jitted expansion
agrees with the positions' own moves, and symmetric positions share a value.
"""

from __future__ import annotations

import random
from collections import Counter

import h5py
import numpy as np
import pytest

from retro import games, open_database
from retro.games.protocol import OPEN, Game
from registered import entries, smallest_variants

SAMPLES = 150  # entries per tier (every entry of smaller tiers)


def ids(game):
    return game.full_name.replace(" ", "-")


def sample_entries(game, tier, rng, count=SAMPLES):
    size = game.tier_size(tier)
    if size <= count:
        return range(size)
    return sorted(rng.sample(range(size), count))


def sample_positions(game, rng, count=SAMPLES):
    for tier in game.tiers():
        for entry in sample_entries(game, tier, rng, count):
            position = game.position_at(tier, entry)
            if position is not None:
                yield tier, entry, position


# table entries, cheap to count (positions take a pass over a kit game's tables): six men's
# morris, nine men's morris with 3 pieces, not with 4
SMALL_GAMES = [g for g in games.every_game() if entries(g) < 7 * 10**6]


@pytest.mark.parametrize("game", SMALL_GAMES, ids=ids)
def test_index_round_trips_and_children_land_in_declared_tiers(game):
    rng = random.Random(1)
    order = {tier: i for i, tier in enumerate(game.tiers())}
    for tier in game.tiers():
        assert all(order[child] < order[tier] for child in game.child_tiers(tier)), tier
    seen = 0
    big = sum(game.tier_size(t) for t in game.tiers()) > 10**6
    for tier, entry, position in sample_positions(game, rng, 40 if big else SAMPLES):
        seen += 1
        # A game of more than two players holds each position in every player's tier.
        assert game.tier_of(position) == tier or (game.players > 2 and tier in game.player_tiers())
        assert game.index(position) == entry
        assert game.parse(str(position)) == position
        allowed = {tier, *game.child_tiers(tier)}
        moves = position.legal_moves()
        assert position.is_over() == (not moves)
        for move in moves:
            child = position.play(move)
            if not game.stored(child):  # its mover has lost, or the rules decide it: their value
                assert game.index(child) == -1
                game.finished_value(child)  # raises when the rules give none
                continue
            # Each player's tier of a game of more players holds the children too.
            assert (tier if game.players > 2 else game.tier_of(child)) in allowed, (position, move)
            assert game.parse_move(str(move)) == move
    assert seen > 0


# The games that describe their tiers to the engine's solvers (Three Musketeers solves
# its own: it has no expansion).
EXPANDED = [g for g in SMALL_GAMES if type(g).expand is not Game.expand]


@pytest.mark.parametrize("game", EXPANDED, ids=ids)
def test_the_expansion_is_the_positions_own_moves(game):
    """The jitted expansion (what the solvers and verify read) against Position.legal_moves
    and play, entry by entry."""
    rng = random.Random(2)
    for tier in game.tiers():
        expansion = game.expand(tier)
        assert expansion.tiers[0] == tier
        declared = set(game.child_tiers(tier))
        # nine men's morris: and a slot for children lost at once, past its child tiers
        lost_slot = {expansion.tiers[-1]} if game.relative_values else set()
        assert declared <= set(expansion.tiers[1:]) <= declared | lost_slot
        for entry in sample_entries(game, tier, rng, 30 if game.positions() > 10**6 else SAMPLES):
            position = game.position_at(tier, entry)
            # slot -1 - v: a child not stored, of value v (its mover's view) by the rules; nine
            # men's morris's last slot (past its child tiers), entry 0: a child lost at once
            children = Counter(("rules", -1 - int(expansion.child_tier[e])) if expansion.child_tier[e] < 0
                               else ("rules", 0) if expansion.tiers[expansion.child_tier[e]] in lost_slot - declared - {tier}
                               else (expansion.tiers[expansion.child_tier[e]], int(expansion.child_entry[e]))
                               for e in range(expansion.starts[entry], expansion.starts[entry + 1]))
            if position is None:
                assert not children and expansion.finished[entry] != OPEN
                continue
            # A game storing values from the mover's view stores one side: the mover, 0;
            # a player's tier of a game of more players: that player 0, the others 1.
            player = game.player_tiers().index(tier) if game.players > 2 else None
            side = (0 if game.relative_values else position.side.code if player is None
                    else int(position.side.code != player))
            assert expansion.side[entry] == side
            if position.is_over():
                finished = game.value_for(position, int(expansion.finished[entry]))
                which = () if player is None else (player,)
                assert not children and finished == game.finished_value(position, *which)
                continue
            if expansion.finished[entry] != OPEN:  # a value the rules know while play goes on
                known_win_in_one(game, position, int(expansion.finished[entry]), children)
                continue
            expected = Counter()
            for move in position.legal_moves():
                child = position.play(move)
                if game.stored(child):
                    expected[(tier if player is not None else game.tier_of(child), game.index(child))] += 1
                else:  # its mover has lost, or the rules decide it: their value, its mover's view
                    expected[("rules", game.finished_value(child) ^ child.side.code)] += 1
            assert children == expected, position


def known_win_in_one(game, position, stored: int, children) -> None:
    """A value an expansion gives a position whose game goes on (the kit's outcome() of 2
    or more: Dōbutsu shōgi's lion that can be taken) comes without its moves, and so far
    is a win in one ply for the side to move: one of its moves ends the game, won."""
    value = game.value_for(position, stored)
    first_wins, plies = bool(value & 1), value >> 1
    assert not children and plies == 1 and first_wins == (position.side.code == 0), position
    assert any(position.play(m).is_over() and position.play(m).winner() == position.side
               for m in position.legal_moves()), position


# Each game with symmetries, by its smallest variant (a game without has nothing to check).
SYMMETRIC = [g for g in smallest_variants() if g.symmetries > 1]


@pytest.mark.parametrize("game", SYMMETRIC, ids=ids)
def test_symmetric_positions_share_a_value(databases, game):
    with open_database(databases(game)) as db:
        rng = random.Random(3)
        for _, _, position in sample_positions(db.game, rng, 20 if game.positions() > 10**6 else SAMPLES):
            outcome = db.probe(position)
            for image in position.symmetric_images():
                assert db.probe(image) == outcome, (position, image)
            if position.is_over():
                assert outcome.plies in (0, None)


def test_every_game_is_registered_once_with_a_default_file():
    names = [game.full_name for game in games.every_game()]
    assert len(names) == len(set(names))
    for game in games.every_game():
        assert games.get(game.name, game.variant) is game
        assert game.rules and game.description and game.notation
        assert game.sides.from_code(0).code == 0
        assert len(game.sides) == game.players
        if game.players == 2:
            assert game.sides.from_code(1).other.code == 0


def test_a_retro_0_2_file_opens_with_every_value(db3, tmp_path):
    """tests/data holds the 3x3 database retro 0.2 wrote (format 1): it opens, names its
    game, and holds exactly the values of a fresh build (format 2)."""
    from pathlib import Path

    legacy = Path(__file__).parent / "data" / "three-musketeers-3x3-retro-0.2.h5"
    with h5py.File(legacy, "r") as f:
        assert f.attrs["format"] == b"retro-three-musketeers" and f.attrs["format_version"] == 1
    with open_database(legacy) as old, open_database(db3) as new:
        assert old.game is new.game is games.get("three-musketeers", "3x3")
        assert old.digest == new.digest
        for layer in old.tiers:
            assert np.array_equal(old._file.read(layer), new._file.read(layer))
        start = old.game.start()
        assert old.probe(start) == new.probe(start)
        assert old.moves(start) == new.moves(start)
    from retro.verify import verify

    assert verify(legacy, progress=False).ok


def test_the_file_names_its_game(db_ttt):
    with h5py.File(db_ttt, "r") as f:
        assert f.attrs["format"] == b"retro" and f.attrs["format_version"] == 2
        assert f.attrs["game"] == b"tic-tac-toe" and f.attrs["variant"] == b""
        assert f.attrs["rules"].decode() == games.get("tic-tac-toe").rules
        for name in ("marks_0", "marks_9"):
            dataset = f["tiers"][name]
            assert dataset.fletcher32 and dataset.compression == "gzip" and "sha256" in dataset.attrs
