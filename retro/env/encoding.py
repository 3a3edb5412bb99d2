"""Actions and observations of any registered game as arrays, from the game protocol
alone: what the environments for learning agents (PettingZoo, Gymnasium, OpenSpiel)
hand to an agent.

**Actions.** Every game's moves are written ``[from-]to[xremove]`` over the points of
its board (``geometry()["points"]``, in that order, numbered 0..n-1): a Three Musketeers
or race step ``e1-d1``, a tic-tac-toe mark or a morris placement ``b2``, a morris slide or
flight ``b2-c2``, a move closing a mill ``b2-c2xd4`` or ``b2xd4``; a game whose hands hold
pieces of several kinds (``geometry()["hand_pieces"]``) also drops ``C*b2``, whose
``from`` is n + the piece's place among the hand's letters (Dōbutsu shōgi: G, E, C;
either case). A move is the action

    action = ((from + 1) * n + to) * (n + 1) + (remove + 1)

with ``from`` and ``remove`` -1 when the move has none; chess's moves, written in UCI
(``geometry()["moves"] == "uci"``: ``e2e4``, ``e7e8q``), take ``remove`` for the piece a
pawn promotes to (0..3: q, r, b, n): a fixed discrete space of
``(n + d + 1) * n * (n + 1)`` actions per game, ``d`` the kinds a hand may hold (0 but
in Dōbutsu shōgi, 3): tic-tac-toe 900, six men's morris 4,624, nine men's morris 15,000,
Three Musketeers 5×5 16,900, Dōbutsu shōgi 2,496, most of them never legal; the
``action_mask`` says which are.

An action is an ``int``, a numpy integer or a 0-d integer array in ``0..size-1``
(what ``gymnasium.spaces.Discrete`` holds); a float (even ``3.0``), a bool, a string,
``None`` or any other array raises :class:`ActionError`: never rounded.

**Observations.** Planes over the board's grid (``rows`` × ``columns`` of the geometry;
morris points sit on a grid too, the cells between them always 0): one plane per kind
of piece, in the order of ``geometry()["pieces"]``, 1 where such a piece stands; then
one plane per side, all 1 for the side to move; then, in the games with pieces in hand
(morris), one plane per side, all ``in hand / pieces_per_side``, or, in a game whose
hands hold pieces of several kinds (Dōbutsu shōgi), one plane per letter of
``hand_pieces`` (each side's kinds), all ``1 - 2**-count`` (0 for none, 1/2 for one,
3/4 for two: no scale to know); last a plane marking the board's points (the squares of
a grid game: all 1). The planes alone are the whole position: two positions differing
in anything (the hands too) differ in their planes. The pieces in hand are also a
vector, one count per side (:meth:`Encoding.hand_counts`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..errors import PositionError
from ..games.protocol import Game

_MOVE = re.compile(r"^(?:([a-z][0-9]{1,2})-|([A-Za-z])\*)?([a-z][0-9]{1,2})(?:x([a-z][0-9]{1,2}))?$")
_UCI = re.compile(r"^([a-z][0-9]{1,2})([a-z][0-9]{1,2})([qrbn])?$")
PROMOTIONS = "qrbn"  # a UCI move's promotion, as its action's remove


class EncodingError(ValueError):
    """An action that is not a legal move of the position, or a move the encoding cannot write."""


class ActionError(EncodingError):
    """Not an action at all: not an integer, or outside the action space."""


def plies_limit(value, name: str = "max_plies") -> int:
    """``value`` checked as a ply limit of the environments: an integer of at least 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer of at least 1, not {_described(value)}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1, not {value}")
    return int(value)


def _described(value) -> str:
    """``value`` as a message names what it was given: its type and a short repr."""
    if isinstance(value, np.ndarray):
        return f"a numpy array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


@dataclass(frozen=True)
class Encoding:
    """A game's action and observation encoding (see the module docstring)."""

    game: Game

    def __post_init__(self) -> None:
        geometry = self.game.geometry()
        points = [p["name"] for p in geometry["points"]]
        object.__setattr__(self, "points", points)
        object.__setattr__(self, "point_index", {name: i for i, name in enumerate(points)})
        object.__setattr__(self, "cells_at", np.array([[p["y"], p["x"]] for p in geometry["points"]], dtype=np.int64))
        object.__setattr__(self, "rows", int(geometry["rows"]))
        object.__setattr__(self, "columns", int(geometry["columns"]))
        object.__setattr__(self, "pieces", list(geometry["pieces"]))
        letters = geometry.get("hand_pieces") or ""  # kinds in hand as letters, each side's
        object.__setattr__(self, "hand_letters", letters)
        object.__setattr__(self, "drops", "".join(dict.fromkeys(letters.upper())))  # a drop's letter
        object.__setattr__(self, "hands", bool(geometry.get("hands")) and not letters)  # counts
        object.__setattr__(self, "pieces_per_side", int(geometry.get("pieces_per_side") or 0))
        object.__setattr__(self, "uci", geometry.get("moves") == "uci")
        if self.hands and self.pieces_per_side < 1:  # the hand planes' scale
            raise ValueError(f"{self.game.full_name} has hands but its geometry gives no pieces_per_side")

    # --- actions -------------------------------------------------------------------------

    @property
    def size(self) -> int:
        """The number of actions: ``(n + d + 1) * n * (n + 1)`` for ``n`` points and ``d``
        kinds of piece a hand may hold."""
        n = len(self.points)
        return (n + len(self.drops) + 1) * n * (n + 1)

    def action(self, move) -> int:
        """The action id of a move (a move object or its text)."""
        n = len(self.points)
        if self.uci:
            match = _UCI.match(str(move))
            if match is None:
                raise EncodingError(f"{move} is not a move in UCI (from, to, promotion: e7e8q)")
            origin, target = self._point(match[1]), self._point(match[2])
            return ((origin + 1) * n + target) * (n + 1) + (PROMOTIONS.index(match[3]) + 1 if match[3] else 0)
        match = _MOVE.match(str(move))
        if match is None or (match[2] is not None and match[2].upper() not in self.drops):
            raise EncodingError(f"{move} is not a move of the form [from-]to[xremove]"
                                + (" or piece*to" if self.drops else ""))
        origin, _, target, remove = (self._point(name) for name in (match[1], None, match[3], match[4]))
        if match[2] is not None:
            origin = n + self.drops.index(match[2].upper())
        return ((origin + 1) * n + target) * (n + 1) + (remove + 1)

    def action_id(self, action) -> int:
        """``action`` checked: an ``int``, numpy integer or 0-d integer array in
        ``0..size-1``, as an ``int``; anything else raises :class:`ActionError`."""
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        # bool is an int to Python, but True is no action; a float is never rounded.
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ActionError(f"an action is an integer in 0..{self.size - 1} (int, numpy integer or "
                              f"0-d integer array), not {_described(action)}")
        if not 0 <= action < self.size:
            raise ActionError(f"action {action} is outside the action space 0..{self.size - 1}")
        return int(action)

    def text(self, action) -> str:
        """The move text an action id stands for (legal or not)."""
        n = len(self.points)
        rest, remove = divmod(self.action_id(action), n + 1)
        origin, target = divmod(rest, n)
        if self.uci:
            return (self.points[origin - 1] if origin else "") + self.points[target] \
                + (PROMOTIONS[remove - 1] if 0 < remove <= len(PROMOTIONS) else "")
        if origin > n:  # a drop
            return f"{self.drops[origin - n - 1]}*{self.points[target]}" + (f"x{self.points[remove - 1]}" if remove else "")
        text = (f"{self.points[origin - 1]}-" if origin else "") + self.points[target]
        return text + (f"x{self.points[remove - 1]}" if remove else "")

    def legal(self, position) -> dict:
        """The legal moves of ``position`` by action id."""
        return {self.action(move): move for move in position.legal_moves()}

    def move(self, position, action):
        """The legal move of ``position`` that ``action`` stands for, else EncodingError
        (:class:`ActionError` if it is no action at all)."""
        action = self.action_id(action)
        for move in position.legal_moves():
            if self.action(move) == action:
                return move
        raise EncodingError(f"action {action} ({self.text(action)}) is not a legal move of {position}")

    def mask(self, position) -> np.ndarray:
        """``int8`` of length :attr:`size`: 1 for each legal move's action."""
        out = np.zeros(self.size, dtype=np.int8)
        for move in position.legal_moves():
            out[self.action(move)] = 1
        return out

    def position(self, given):
        """``given`` as a position of this game (variant included): a position or its
        text; anything else raises TypeError, a text or position of another variant
        or not read by this game :class:`~retro.errors.PositionError`."""
        if not isinstance(given, (str, type(self.game.start()))):
            raise TypeError(f"a position is a {self.game.full_name} position or its text, "
                            f"not {_described(given)}")
        # Through the text, so that the position is this game's own object; a game's
        # parse may read its other variants' boards too (Three Musketeers reads every size).
        parsed = self.game.parse(given if isinstance(given, str) else str(given))
        for position in (parsed,) if isinstance(given, str) else (given, parsed):
            owner = self.game.for_position(position)
            if owner.full_name != self.game.full_name:
                raise PositionError(f"{position} is a position of {owner.full_name}, not of {self.game.full_name}")
        return parsed

    def _point(self, name: str | None) -> int:
        if name is None:
            return -1
        index = self.point_index.get(name)
        if index is None:
            raise EncodingError(f"{name} is not a point of {self.game.title}")
        return index

    # --- observations ----------------------------------------------------------------------

    @property
    def planes(self) -> int:
        """Planes of an observation: the piece kinds, one per side (to move), one per
        side (in hand, games with hands only), the board's points."""
        sides = len(self.game.sides)
        return len(self.pieces) + sides + (sides if self.hands else 0) + len(self.hand_letters) + 1

    def observation(self, position) -> np.ndarray:
        """``float32`` planes of shape (:attr:`planes`, rows, columns), values in [0, 1]."""
        out = np.zeros((self.planes, self.rows, self.columns), dtype=np.float32)
        cells = self.game.cells(position)
        rows, columns = self.cells_at[:, 0], self.cells_at[:, 1]
        for k, char in enumerate(self.pieces):
            on = np.array([c == char for c in cells], dtype=bool)
            out[k, rows[on], columns[on]] = 1.0
        sides = len(self.game.sides)
        out[len(self.pieces) + position.side.code] = 1.0
        if self.hands:
            # The hands decide values (a side with 2 on the board and 1 in hand plays on,
            # with none it has lost): an agent that reads only the planes must see them.
            first = len(self.pieces) + sides
            out[first:first + sides] = (self.hand_counts(position) / self.pieces_per_side)[:, None, None]
        if self.hand_letters:  # each kind in hand: 1 - 2**-count
            first = len(self.pieces) + sides
            held = self._held(position)
            for k, letter in enumerate(self.hand_letters):
                out[first + k] = 1.0 - 0.5 ** held.count(letter)
        out[-1, rows, columns] = 1.0
        return out

    def hand_counts(self, position) -> np.ndarray:
        """The pieces each side has in hand (morris, Dōbutsu shōgi; zeros for the others), ``float32``."""
        counts = np.zeros(len(self.game.sides), dtype=np.float32)
        if self.hands:
            tokens = str(position).split()
            counts[:] = [float(t) for t in tokens[1:1 + len(self.game.sides)]]
        elif self.hand_letters:
            pieces = self.game.geometry()["pieces"]
            held = self._held(position)
            counts[:] = [sum(1 for c in held if c in pieces and pieces[c]["side"] == side.value)
                         for side in self.game.sides]
        return counts

    def _held(self, position) -> str:
        """The letters in hand of a game that writes them after its rows (its last group)."""
        return str(position).split()[-1] if self.hand_letters else ""
