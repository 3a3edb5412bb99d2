"""The games retro solves, and how to find one.

Each game is a module (or package) with a subclass of
:class:`retro.games.protocol.Game`; :data:`GAMES` lists them. Adding a game is that
module plus one line here (see "Adding a game" in the README).
"""

from __future__ import annotations

from functools import lru_cache

from ..errors import NotationError, PositionError, SideError, quoted
from .chess.game import Chess
from .dobutsu import Dobutsu
from .morris import SixMensMorris, ThreeMensMorris, ThreeMensMorrisDiagonal
from .morris.nine import NineMensMorris
from .musketeers import ThreeMusketeers
from .notation import position_tokens
from .protocol import Game, Side
from .race import FourPlayerRace
from .teeko import Teeko
from .tictactoe import TicTacToe

GAMES: dict[str, type[Game]] = {
    game.name: game
    for game in (
        ThreeMusketeers,
        TicTacToe,
        ThreeMensMorris,
        ThreeMensMorrisDiagonal,
        SixMensMorris,
        NineMensMorris,
        FourPlayerRace,
        Teeko,
        Dobutsu,
        Chess,
    )
}
DEFAULT_GAME = ThreeMusketeers.name


class UnknownGameError(ValueError):
    """A game name (or variant) that retro does not know."""


def get(name: str = DEFAULT_GAME, variant: str | None = None) -> Game:
    """The game ``name`` in ``variant`` (its first variant by default); one object each,
    however it is asked for (so games compare by identity)."""
    cls = GAMES.get(name) if isinstance(name, str) else None
    if cls is None:
        raise UnknownGameError(f"unknown game {quoted(str(name))}; the games are: {', '.join(GAMES)}")
    if variant is None:
        variant = cls.variants[0]
    asked = variant
    if isinstance(variant, str) and variant not in cls.variants:
        variant = cls.variant_named(variant)
    if variant not in cls.variants:
        variant = asked
        if cls.variants == ("",):
            raise UnknownGameError(f"{name} has no variants, so no variant {quoted(str(variant))} "
                                   f"(the games and their variants: {games_text()})")
        raise UnknownGameError(f"{name} has no variant {quoted(str(variant))}; its variants are: "
                               f"{variants_text(name)}")
    return _instance(cls, variant)


def variants_text(name: str) -> str:
    """A game's variants as messages list them (``5x5, 4x4, 3x3``), or ``none``."""
    cls = GAMES[name]
    if cls.variants == ("",):
        return "none"
    return cls.variants_summary or ", ".join(v or "the game itself (no --variant)" for v in cls.variants)


def games_text() -> str:
    """Every game, with its variants where it has some: ``three-musketeers (5x5, 4x4,
    3x3), tic-tac-toe, ...``."""
    return ", ".join(name if cls.variants == ("",) else f"{name} ({variants_text(name)})"
                     for name, cls in GAMES.items())


@lru_cache(maxsize=None)
def _instance(cls: type[Game], variant: str) -> Game:
    return cls(variant)


def musketeers_board(size: int) -> Game:
    """Three Musketeers on the ``size``×``size`` board (UnknownGameError for another size)."""
    return get(DEFAULT_GAME, f"{size}x{size}")


def every_game() -> list[Game]:
    """Every listed variant of every game, in registry order (nine men's morris: the
    equal piece counts; :func:`all_variants` adds the unequal ones)."""
    return [get(name, variant) for name, cls in GAMES.items()
            for variant in (cls.listed_variants or cls.variants)]


def all_variants() -> list[Game]:
    """Every variant of every game, in registry order."""
    return [get(name, variant) for name, cls in GAMES.items() for variant in cls.variants]


def identify(text: str) -> tuple[Game, object]:
    """The game whose notation reads ``text``, and the position: ``(game, position)``.

    Games are tried in registry order; the error is the one of the game whose
    notation the text resembles most (the first of them in registry order). When the
    side to move is no game's and games of several notations resemble the text as
    much, the error names the side letters of each of them (of every game when the
    text resembles none); its first word is a missing side only when it could be a row
    of one of those games (a word whose letters only several games write together, such
    as ``HELLO``, is an unknown side).
    """
    errors: list = []
    for game in _parsers():
        try:
            position = game.parse(text)
        except PositionError as error:
            errors.append((game, error))
            continue
        return game.for_position(position), position
    scores = [game.resemblance(text) for game, _ in errors]
    closest = [pair for pair, score in zip(errors, scores) if score == max(scores)]
    if len(closest) > 1:  # side letters are named for the notations that start with them
        closest = [pair for pair in closest if not pair[0].board_first] or closest
    tokens = position_tokens(text) if isinstance(text, str) else None
    letters = {side.letter for game in _parsers() for side in game.sides}
    families = {game.family: game for game, _ in closest}
    if tokens is not None and len(families) > 1 and (not tokens or tokens[0] not in letters):
        sides = ", ".join(f"{game.side_letters} ({family})" for family, game in families.items())
        if not tokens:
            raise SideError(f"empty position: start with the side to move: {sides}")
        if any(set(tokens[0]) <= set(game.cell_characters) for game in families.values()):
            raise SideError(f"missing side to move: start the position with {sides}")
        raise SideError(f"unknown side to move {quoted(tokens[0])}: expected {sides}")
    raise closest[0][1]


@lru_cache(maxsize=None)
def _parsers() -> tuple[Game, ...]:
    return tuple(get(name) for name in GAMES)


__all__ = ["DEFAULT_GAME", "GAMES", "Game", "NotationError", "Side", "UnknownGameError",
           "all_variants", "every_game", "games_text", "get", "identify", "musketeers_board", "variants_text"]
