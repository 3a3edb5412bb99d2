"""The games retro solves, and how to find one.

Each game is a module (or package) with a subclass of
:class:`retro.games.protocol.Game`; :data:`GAMES` lists them. Adding a game is that
module plus one line here (see "Adding a game" in the README).
"""

from __future__ import annotations

from functools import lru_cache

from ..errors import NotationError, PositionError, quoted
from .morris import SixMensMorris, ThreeMensMorris, ThreeMensMorrisDiagonal
from .musketeers import ThreeMusketeers
from .protocol import Game, Side
from .tictactoe import TicTacToe

GAMES: dict[str, type[Game]] = {
    game.name: game
    for game in (
        ThreeMusketeers,
        TicTacToe,
        ThreeMensMorris,
        ThreeMensMorrisDiagonal,
        SixMensMorris,
    )
}
DEFAULT_GAME = ThreeMusketeers.name


class UnknownGameError(ValueError):
    """A game name (or variant) that retro does not know."""


def get(name: str = DEFAULT_GAME, variant: str | None = None) -> Game:
    """The game ``name`` in ``variant`` (its first variant by default); one object each,
    however it is asked for (so games compare by identity)."""
    cls = GAMES.get(name)
    if cls is None:
        raise UnknownGameError(f"unknown game {quoted(name)}; the games are: {', '.join(GAMES)}")
    if variant is None:
        variant = cls.variants[0]
    if variant not in cls.variants:
        raise UnknownGameError(f"{name} has no variant {quoted(variant)}; its variants are: "
                               f"{', '.join(cls.variants)}")
    return _instance(cls, variant)


@lru_cache(maxsize=None)
def _instance(cls: type[Game], variant: str) -> Game:
    return cls(variant)


def musketeers_board(size: int) -> Game:
    """Three Musketeers on the ``size``×``size`` board (UnknownGameError for another size)."""
    return get(DEFAULT_GAME, f"{size}x{size}")


def every_game() -> list[Game]:
    """Every variant of every game, in registry order."""
    return [get(name, variant) for name, cls in GAMES.items() for variant in cls.variants]


def identify(text: str) -> tuple[Game, object]:
    """The game whose notation reads ``text``, and the position: ``(game, position)``.

    Games are tried in registry order; the error is the one of the game whose
    notation the text resembles most (the default game's when none does).
    """
    errors: list = []
    for game in _parsers():
        try:
            position = game.parse(text)
        except PositionError as error:
            errors.append((game.resemblance(text), error))
            continue
        return game.for_position(position), position
    best = max(errors, key=lambda pair: pair[0])
    raise best[1]


@lru_cache(maxsize=None)
def _parsers() -> tuple[Game, ...]:
    return tuple(get(name) for name in GAMES)


__all__ = ["DEFAULT_GAME", "GAMES", "Game", "NotationError", "Side", "UnknownGameError",
           "every_game", "get", "identify", "musketeers_board"]
