"""The registered games as the tests iterate over them: every list of games, every table
of side letters and every database of a game the tests use comes from the registry
(:data:`retro.games.GAMES`) through here or through the ``databases`` fixture of
conftest.py, so that registering a game needs no test edit and breaks no test
(tests/test_registry_drives_tests.py registers a throwaway game and runs them).

What a test states about the games it was written for (a value, a message, a variant
list) stays written out in the test, as its independent oracle; a game registered
later is checked against what the registry says of it (its sides' letters, its
variants) and what every game promises (the protocol).
"""

from __future__ import annotations

from retro import games

# The table entries of a database a test session builds whole, in seconds (six men's
# morris: 5.1 M; nine men's morris with 4 pieces each, 7.3 M, is not built).
SMALL_ENTRIES = 6_000_000


def entries(game) -> int:
    """The table entries of the game's whole database (cheap: the tiers' sizes)."""
    return sum(game.tier_size(tier) for tier in game.tiers())


def small(game) -> bool:
    """Whether a test session may build the game's whole database."""
    return entries(game) <= SMALL_ENTRIES


def small_games() -> list:
    """Every listed variant small enough to build whole, in registry order."""
    return [game for game in games.every_game() if small(game)]


def smallest_variants() -> list:
    """For each registered game that has one, its smallest listed variant that is small
    enough to build whole (Three Musketeers: 3x3), in registry order."""
    out = []
    for name in games.GAMES:
        variants = [g for g in games.every_game() if g.name == name and small(g)]
        if variants:
            out.append(min(variants, key=entries))
    return out


def in_family(family: str) -> list[str]:
    """The names of the registered games of a family (``morris``), in registry order."""
    return [name for name, cls in games.GAMES.items() if cls.family == family]


def listed(words) -> str:
    """Words as a message lists them: ``M or E``, ``P1, P2, P3 or P4``."""
    words = list(words)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def side_letters(game) -> str:
    """The game's side letters as its messages list them, from its sides' own letters."""
    return listed(side.letter for side in game.sides)


def families() -> dict:
    """Each family of notation (``morris``) whose positions start with the side to move,
    and its first registered game, in registry order (what an unknown side's message
    names; not chess's FEN, which writes the board first)."""
    out: dict = {}
    for name in games.GAMES:
        game = games.get(name)
        if not game.board_first:
            out.setdefault(game.family, game)
    return out


def sides_text(named) -> str:
    """The side letters of the families ``named`` as an error lists them: one family's
    letters alone, or each family's letters with its name (``M or E (Three Musketeers),
    X or O (tic-tac-toe)``), in registry order."""
    every = families()
    named = [family for family in every if family in set(named)]
    if len(named) == 1:
        return side_letters(every[named[0]])
    return ", ".join(f"{side_letters(every[family])} ({family})" for family in named)
