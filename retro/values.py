"""Game values and their encoding, for every game: the one place that defines them.

A value says how a position ends under perfect play: a win for one side in so many
plies (the winner hurries, the loser delays, a finished position is 0 plies) or a
draw (neither side can force a win: with perfect play the game never ends, or ends
drawn). Stored as one unsigned integer of W bits (8 or 16, the game's choice)::

    value = 2 * plies + (1 if the first side wins else 0)    for a win
    value = 2**W - 1                                          for a draw (DRAW)
    value = 2**W - 2                                          for an index entry that
                                                              is not a position

The first side is the one that moves first (code 0: the musketeers, X, White). For
Three Musketeers this is exactly the encoding of retro 0.2 (``2 * plies + 1 if the
musketeers win``), so its files keep their values byte for byte. A value of W bits
holds at most ``2**(W-1) - 2`` plies: 126 in a byte.

Solvers and probes rank a child's value from the mover's side with a *key*, larger
is better: a loss in p plies has key p + 1 (a slower loss is better), a draw key
2**(W-1), a win in p plies key 2**W - 1 - p (a faster win is better), and 0 means
"no child". :data:`PREFERENCE_KEYS` and :data:`VALUE_OF_BEST_KEY` are those maps for
bytes; :func:`preference_keys` and :func:`value_of_best_key` for any width.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

ENCODING = "value = 2 * plies + (1 if the musketeers win else 0), uint8"  # Three Musketeers' header
GENERIC_ENCODING = ("value = 2 * plies + (1 if the first side wins else 0); 2**W - 1 for a draw; "
                    "2**W - 2 for an entry that is not a position; W = 8 or 16 bits")

ENEMY_WON = 0  # Three Musketeers: a finished position the enemy has won (the second side)
MUSKETEERS_WON = 1  # Three Musketeers: a finished position the musketeers have won (the first side)
NO_MOVE_KEY = 0  # best key of a mover without a legal move


def draw_value(dtype) -> int:
    """The draw code of values of ``dtype`` (uint8: 255, uint16: 65535)."""
    return int(np.iinfo(dtype).max)


def not_a_position(dtype) -> int:
    """The code of index entries that are not positions (uint8: 254, uint16: 65534)."""
    return int(np.iinfo(dtype).max) - 1


def max_plies(dtype) -> int:
    """The longest distance a value of ``dtype`` holds (uint8: 126 plies)."""
    return (int(np.iinfo(dtype).max) + 1) // 2 - 2


def won_text(side) -> str:
    """``the musketeers have won``, ``White has won``: a side's win in words."""
    return f"{side.title} {'have' if side.plural else 'has'} won"


def encode(first_side_wins: bool, plies: int) -> int:
    """The value of a win in ``plies`` for the first side (True) or the second (False)."""
    return 2 * plies + (1 if first_side_wins else 0)


@lru_cache(maxsize=None)
def preference_keys(dtype) -> np.ndarray:
    """``keys[mover, value]``: how good a child of that value is for ``mover`` (0 = first
    side, 1 = second side); larger is better, every value of a position has a key >= 1."""
    top = int(np.iinfo(dtype).max)
    half = (top + 1) // 2
    keys = np.zeros((2, top + 1), dtype=dtype)
    values = np.arange(top + 1)
    plies = np.minimum(values >> 1, half - 2)
    for mover in (0, 1):
        mover_wins = (values & 1) == (1 - mover)
        keys[mover] = np.where(mover_wins, top - plies, plies + 1)
        keys[mover, draw_value(dtype)] = half
        keys[mover, not_a_position(dtype)] = 0
    keys.setflags(write=False)
    return keys


@lru_cache(maxsize=None)
def value_of_best_key(dtype) -> np.ndarray:
    """``values[mover, best_key]``: the mover's value when its best child has that key
    (one ply further from the end; a draw stays a draw; key 0 maps to "not a position",
    which a game with a rule for a side without moves replaces)."""
    top = int(np.iinfo(dtype).max)
    half = (top + 1) // 2
    values = np.zeros((2, top + 1), dtype=dtype)
    for mover in (0, 1):
        first_wins_if_mover_wins = mover == 0
        for key in range(1, top + 1):
            if key > half:  # the mover wins: one ply more than the child's loss
                plies = top - key + 1
                values[mover, key] = encode(first_wins_if_mover_wins, min(plies, half - 2))
            elif key < half:  # the mover loses: one ply more than the child's win
                values[mover, key] = encode(not first_wins_if_mover_wins, min(key, half - 2))
            else:
                values[mover, key] = draw_value(dtype)
        values[mover, NO_MOVE_KEY] = not_a_position(dtype)
    values.setflags(write=False)
    return values


def _three_musketeers_tables() -> tuple[np.ndarray, np.ndarray]:
    """The byte tables with Three Musketeers' rule 4: a mover without a legal move
    leaves the musketeers the winners (0 plies)."""
    keys = preference_keys(np.uint8)
    values = value_of_best_key(np.uint8).copy()
    values[:, NO_MOVE_KEY] = MUSKETEERS_WON
    values.setflags(write=False)
    return keys, values


# Indexed by the mover's side code (0 = first side, 1 = second side), over bytes.
PREFERENCE_KEYS, VALUE_OF_BEST_KEY = _three_musketeers_tables()


@dataclass(frozen=True)
class Outcome:
    """The value of a position under perfect play.

    ``winner`` is a side of the position's game, or None for a draw; ``plies`` the
    plies to the end for a win (None for a draw); ``side_to_move`` the side to move in
    the position.
    """

    winner: object | None
    plies: int | None
    side_to_move: object

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    @property
    def side_to_move_wins(self) -> bool:
        return self.winner is self.side_to_move

    @classmethod
    def from_value(cls, value: int, side_to_move, dtype=np.uint8) -> Outcome:
        """The outcome a value stands for (one shared object per value, side and width)."""
        key = (value, side_to_move, dtype)
        outcome = _OUTCOMES.get(key)
        if outcome is None:
            value = int(value)
            if value == draw_value(dtype):
                outcome = cls(None, None, side_to_move)
            elif value == not_a_position(dtype):
                raise ValueError("the value of an index entry that is not a position")
            else:
                sides = type(side_to_move)
                outcome = cls(sides.from_code(0 if value & 1 else 1), value >> 1, side_to_move)
            _OUTCOMES[key] = outcome
        return outcome

    @property
    def value(self) -> int:
        """The encoded value (a draw: the byte code 255; see :meth:`encoded`)."""
        return self.encoded(np.uint8)

    def encoded(self, dtype) -> int:
        if self.winner is None:
            return draw_value(dtype)
        plies = max_plies(dtype) if self.plies is None else self.plies  # as an export stores it
        return encode(self.winner.code == 0, plies)

    def as_dict(self) -> dict:
        """``{"winner": side name or None, "plies": plies or None}``."""
        return {"winner": None if self.winner is None else self.winner.value, "plies": self.plies}

    def code(self) -> str:
        """The short form: the winner's letter and the plies (``E33``, ``X5``), or ``D``
        (a win whose distance is not known: the letter alone)."""
        if self.winner is None:
            return "D"
        return self.winner.letter if self.plies is None else f"{self.winner.letter}{self.plies}"

    def __str__(self) -> str:
        if self.winner is None:
            return "a draw"
        who, plural = self.winner.title, self.winner.plural
        if self.plies is None:  # a win/draw/loss export: who wins, not how fast
            return f"{who} {'win' if plural else 'wins'}"
        if self.plies == 0:
            return won_text(self.winner)
        plies = f"{self.plies} {'ply' if self.plies == 1 else 'plies'}"
        mates = getattr(self.winner, "mates", None)  # chess counts moves: "White mates in 6 (11 plies)"
        if mates:
            return f"{who} {mates} in {(self.plies + 1) // 2} ({plies})"
        return f"{who} {'win' if plural else 'wins'} in {plies}"


_OUTCOMES: dict[tuple, Outcome] = {}


# --- games of more than two players ------------------------------------------------------

WIN, LOSS, DRAW = "win", "loss", "draw"


@dataclass(frozen=True)
class PlayerValue:
    """One player's value in a game of more than two players: that player against the
    others together. ``result`` is ``"win"`` (it can force being first on its goal, in
    ``plies``: it hurries, the others delay), ``"loss"`` (the others together can force
    that it is not, in ``plies``: they hurry, it delays) or ``"draw"`` (neither: play can
    go on forever; ``plies`` None)."""

    player: object
    result: str
    plies: int | None

    @classmethod
    def from_value(cls, value: int, player, dtype=np.uint8) -> PlayerValue:
        """The value stored in ``player``'s game (the first side is that player)."""
        value = int(value)
        if value == draw_value(dtype):
            return cls(player, DRAW, None)
        if value == not_a_position(dtype):
            raise ValueError("the value of an index entry that is not a position")
        return cls(player, WIN if value & 1 else LOSS, value >> 1)

    def code(self) -> str:
        """The short form: ``W5``, ``L16`` or ``D``."""
        return "D" if self.result == DRAW else f"{self.result[0].upper()}{self.plies}"

    def as_dict(self) -> dict:
        """``{"result": "win" | "loss" | "draw", "plies": n or None}``."""
        return {"result": self.result, "plies": self.plies}

    def __str__(self) -> str:
        who = self.player.title
        if self.result == DRAW:
            return f"{who} draws"
        plies = f"{self.plies} {'ply' if self.plies == 1 else 'plies'}"
        if self.result == WIN:
            return f"{who} has won" if self.plies == 0 else f"{who} wins in {plies}"
        return f"{who} has lost" if self.plies == 0 else f"{who} loses in {plies}"


@dataclass(frozen=True)
class Standing:
    """Every player's value in a position of a game of more than two players (in the
    order of the game's sides), and whose turn it is."""

    values: tuple[PlayerValue, ...]
    side_to_move: object

    def __getitem__(self, player) -> PlayerValue:
        """The value of ``player`` (a side, its name such as ``"P1"``, or its code)."""
        if isinstance(player, str):
            player = type(self.side_to_move)(player)
        return self.values[player if isinstance(player, int) else player.code]

    def __iter__(self):
        return iter(self.values)

    @property
    def winner(self):
        """The player who can force a win (at most one can), or None."""
        return next((v.player for v in self.values if v.result == WIN), None)

    @property
    def plies(self) -> int | None:
        """The plies of the forced win, or None."""
        return next((v.plies for v in self.values if v.result == WIN), None)

    def code(self) -> str:
        """The short form: each player's code, ``L16 L14 L8 L22``."""
        return " ".join(v.code() for v in self.values)

    def as_dict(self) -> dict:
        """``{"P1": {"result", "plies"}, ...}``."""
        return {v.player.value: v.as_dict() for v in self.values}

    def summary(self) -> str:
        """Who can force a win, in words: ``Player 3 wins in 8 plies``, ``Player 1 has
        won``, ``no player can force a win`` (``nobody wins`` once the game is over)."""
        for v in self.values:
            if v.result == WIN:
                return str(v)
        if all(v.result == LOSS and v.plies == 0 for v in self.values):
            return "nobody wins"
        return "no player can force a win"

    def __str__(self) -> str:
        return "; ".join(str(v) for v in self.values)
