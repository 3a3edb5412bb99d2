"""Probing a game of more than two players (the four-player race): every player's value.

Such a game is solved as one two-sided game per player, that player against the
others together (see :mod:`retro.games.protocol`), one tier each. :class:`PlayersDatabase`
reads a position's entry in every player's tier and answers a
:class:`~retro.values.Standing`: each player's win, loss or draw and its plies.

The perfect player (:func:`player_preference`) orders the moves for the player to
move: a forced win of its own, fastest first; otherwise a position where no player
can force a win, its own draw before its own loss, that loss as late as possible;
otherwise (every move lets another player force a win) the one that delays that win
longest. Equally good moves keep the order of ``legal_moves()``.

>>> with retro.open_database("db/four-player-race.h5") as db:
...     print(db.probe(db.game.start()).code())
L16 L14 L8 L22
"""

from __future__ import annotations

import numpy as np

from ..errors import ChecksumError, GameOverError
from ..values import DRAW, LOSS, WIN, PlayerValue, Standing
from .base import RNG, TierDatabase, choose

RESULT_CODES = {WIN: 1, DRAW: 0, LOSS: -1}


def player_preference(standing: Standing, mover) -> tuple[int, int]:
    """Sort key of a move leading to ``standing``, smaller is better for ``mover``."""
    own = standing[mover]
    if own.result == WIN:
        return (0, own.plies)
    winner = standing.winner
    if winner is None:
        return (1, 0) if own.result == DRAW else (2, -own.plies)
    return (3, -standing.plies)


class PlayersDatabase(TierDatabase):
    """An open database of a game of more than two players (see the module docstring).

    :meth:`probe` answers a :class:`~retro.values.Standing` (every player's value), and
    :meth:`moves` and :meth:`children` pair each move with the standing it leads to,
    best first for the player to move.
    """

    def probe(self, position) -> Standing:  # type: ignore[override]
        """Every player's value in ``position`` (text or a position of the game)."""
        return self._standing(self._position(position))

    def value(self, position) -> int:
        """Refused: a game of more than two players has a value per player (:meth:`values`)."""
        self._position(position)  # a position of another game says so first
        raise TypeError(f"{self.game.title} has a value per player: use values() or probe()")

    def values(self, position) -> tuple[int, ...]:
        """The encoded value of ``position`` in each player's game (see :mod:`retro.values`:
        the first side is the player)."""
        position = self._position(position)
        entry = self.game.index(position)
        return tuple(int(self._values[tier][entry]) for tier in self.game.player_tiers())

    def moves(self, position) -> list[tuple[object, Standing]]:  # type: ignore[override]
        """Every legal move with the standing it leads to, best first for the player to move."""
        return [(move, standing) for move, _, standing in self.children(position)]

    def children(self, position) -> list[tuple[object, object, Standing]]:  # type: ignore[override]
        """:meth:`moves` with the position each move leads to: ``(move, after, standing)``."""
        position = self._position(position)
        rows = []
        for move in position.legal_moves():
            after = position.play(move)
            rows.append((move, after, self._standing(after)))
        rows.sort(key=lambda row: player_preference(row[2], position.side))  # stable
        return rows

    def best_moves(self, position) -> list[tuple[object, Standing]]:  # type: ignore[override]
        """The moves the perfect player holds equally good, with their standing."""
        position = self._position(position)
        moves = self.moves(position)
        if not moves:
            raise GameOverError(f"the game is over in {position} "
                                f"({self.game.finished_reason(position)}): no move to play")
        best = player_preference(moves[0][1], position.side)
        return [pair for pair in moves if player_preference(pair[1], position.side) == best]

    def best_move(self, position, rng: RNG = None):
        """One of :meth:`best_moves` (the first, or a random one with ``rng``)."""
        return choose(self.best_moves(position), rng)[0]

    def line_steps(self, position) -> list[tuple[object, object, Standing]]:  # type: ignore[override]
        """Perfect play by every player from ``position``: ``(move, after, standing)`` to
        the end of the game, or until a position comes back (play goes on forever)."""
        position = self._position(position)
        standing = self._standing(position)
        limit = standing.plies
        steps: list = []
        seen = {position}
        while not position.is_over():
            if limit is not None and len(steps) > limit:
                raise ChecksumError(f"{self.path}: the principal line of {position} does not end")
            steps.append(self.children(position)[0])
            position = steps[-1][1]
            if position in seen:
                break
            seen.add(position)
        return steps

    def probe_many(self, positions) -> tuple[np.ndarray, np.ndarray]:
        """Every player's value of many positions: ``(results, plies)``, each of shape
        (positions, players); results 1 for a win, -1 a loss, 0 a draw (plies -1)."""
        checked = self._checked(positions)
        results = np.zeros((len(checked), self.game.players), dtype=np.int8)
        plies = np.full((len(checked), self.game.players), -1, dtype=np.int64)
        for i, position in enumerate(checked):
            for k, value in enumerate(self._standing(position)):
                results[i, k] = RESULT_CODES[value.result]
                plies[i, k] = -1 if value.plies is None else value.plies
        return results, plies

    def _standing(self, position) -> Standing:
        entry = self.game.index(position)
        dtype = self._value_type
        return Standing(tuple(PlayerValue.from_value(self._values[tier][entry], side, dtype)
                              for tier, side in zip(self.game.player_tiers(), self.game.sides)),
                        position.side)
