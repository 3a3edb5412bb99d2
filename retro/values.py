"""Game values and their one-byte encoding.

A value says who wins under perfect play and in how many plies: the winner hurries,
the loser delays, and a finished position is 0 plies. Stored as one byte::

    value = 2 * plies + (1 if the musketeers win else 0)

so 0 is "the enemy has won" (musketeers in a line) and 1 is "the musketeers have won"
(the side to move is stuck). No game lasts longer than 2 * 22 + 1 plies, so a value
always fits in 7 bits.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .games.musketeers.position import Side

ENCODING = "value = 2 * plies + (1 if the musketeers win else 0), uint8"

ENEMY_WON = 0  # value of a finished position the enemy has won
MUSKETEERS_WON = 1  # value of a finished position the musketeers have won


@dataclass(frozen=True)
class Outcome:
    """The value of a position under perfect play."""

    winner: Side
    plies: int
    side_to_move: Side

    @property
    def side_to_move_wins(self) -> bool:
        return self.winner is self.side_to_move

    @classmethod
    def from_value(cls, value: int, side_to_move: Side) -> Outcome:
        """The outcome an encoded value stands for (one shared object per value and side)."""
        key = (int(value), side_to_move)
        outcome = _OUTCOMES.get(key)
        if outcome is None:
            winner = Side.MUSKETEERS if key[0] & 1 else Side.ENEMY
            outcome = _OUTCOMES[key] = cls(winner, key[0] >> 1, side_to_move)
        return outcome

    @property
    def value(self) -> int:
        return encode(self.winner is Side.MUSKETEERS, self.plies)

    def as_dict(self) -> dict:
        return {"winner": self.winner.value, "plies": self.plies}

    def __str__(self) -> str:
        if self.winner is Side.MUSKETEERS:
            who, has, wins = "the musketeers", "have", "win"
        else:
            who, has, wins = "the enemy", "has", "wins"
        if self.plies == 0:
            return f"{who} {has} won"
        return f"{who} {wins} in {self.plies} {'ply' if self.plies == 1 else 'plies'}"


_OUTCOMES: dict[tuple[int, Side], Outcome] = {}


def encode(musketeers_win: bool, plies: int) -> int:
    return 2 * plies + (1 if musketeers_win else 0)


NO_MOVE_KEY = 0  # best key of a mover without legal moves: rule 4, the musketeers win


def _preference_keys(mover_is_musketeers: bool) -> np.ndarray:
    """``keys[child_value]``: larger is better for the mover choosing that child.

    A win ranks above every loss, a faster win above a slower one, a slower loss
    above a faster one; every key is at least 1, so 0 (:data:`NO_MOVE_KEY`) means
    "no legal move". The builder takes the maximum key over the children.
    """
    keys = np.zeros(256, dtype=np.uint8)
    for value in range(256):
        plies = min(value >> 1, 126)
        mover_wins = bool(value & 1) == mover_is_musketeers
        keys[value] = 254 - plies if mover_wins else plies + 1
    return keys


def _values_from_keys(mover_is_musketeers: bool) -> np.ndarray:
    """``values[best_key]``: the mover's value when its best child has ``best_key``."""
    values = np.zeros(256, dtype=np.uint8)
    values[NO_MOVE_KEY] = MUSKETEERS_WON
    for key in range(1, 255):
        if key >= 128:
            winner_is_musketeers, plies = mover_is_musketeers, 255 - key
        else:
            winner_is_musketeers, plies = not mover_is_musketeers, key
        values[key] = encode(winner_is_musketeers, plies)
    return values


# Indexed by the mover's side code (0 = musketeers, 1 = enemy).
PREFERENCE_KEYS = np.stack([_preference_keys(True), _preference_keys(False)])
VALUE_OF_BEST_KEY = np.stack([_values_from_keys(True), _values_from_keys(False)])
PREFERENCE_KEYS.setflags(write=False)
VALUE_OF_BEST_KEY.setflags(write=False)
