"""A throwaway game for tests/test_registry_drives_tests.py: registered in a child process
only, to show that adding a game to the registry breaks no test and that the tests'
lists, fixtures and side-letter tables grow with the registry.

"A to Z" is tic-tac-toe under other names: sides ``A`` (moves first) and ``Z``, cells
``A``, ``Z`` and ``.``: ``A ... .A. ..Z``. It has its own sides, positions and notation
(so a tic-tac-toe database refuses its positions, and its errors name its letters),
and reuses tic-tac-toe's rules and tiers (the same jitted kernels and numbering of
boards): a game on the kit (:mod:`retro.games.kit`) names its sides and pieces, the kit
writes and reads its notation.
"""

from __future__ import annotations

from retro import games
from retro.games.protocol import Side as SideBase
from retro.games.tictactoe import TicTacToe


class Side(SideBase):
    """A moves first."""

    A = "A"
    Z = "Z"

    @property
    def letter(self) -> str:
        return self.value

    @property
    def title(self) -> str:
        return self.value


class AToZ(TicTacToe):
    """Tic-tac-toe's rules and tiers under other names (see the module docstring)."""

    name = "a-to-z"
    title = "A to Z"
    title_in_sentence = "A to Z"
    family = "A to Z"
    description = "A and Z mark squares of a 3x3 board; three in a line wins (a test's game)"
    rules = "Tic-tac-toe with the marks A (first) and Z."
    notation = "Positions are written like 'A ... .A. ..Z'; a move is the square marked, like 'b2'."
    references = ()
    sides = Side
    piece_kinds = {"A": {"side": "A", "shape": "cross", "name": "A"},
                   "Z": {"side": "Z", "shape": "ring", "name": "Z"}}


def register() -> None:
    """Add the game to the registry (after the others), and forget the registry's caches."""
    games.GAMES[AToZ.name] = AToZ
    games._parsers.cache_clear()
