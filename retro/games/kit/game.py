"""A game of pieces on cells, from its jitted rules: everything but the rules.

A kit game (a subclass of :class:`PieceGame`) writes, in its own module:

* ``moves(board, tier, consts, out) -> n`` (jitted): the boards after each legal move
  of the side to move, at ``out[i, :cells]``, seen from the *next* side to move (and
  any extras of the child's tier after the cells); ``outcome(board, tier, consts)``
  (jitted): :data:`OPEN` while the game goes on, :data:`WON` / :data:`LOST` when the
  side to move has won / lost, :data:`DRAWN`, or :data:`ILLEGAL` for a board that is
  no position. Optionally ``unmoves(board, tier, consts, out) -> n``: the parents in
  the tier (``unmoves = "own"``); or ``unmoves = "steps"`` when the moves inside a
  tier are steps of the mover's pieces that can be taken back (Teeko's, morris
  slides): the kit turns the moves around. The faster form (``kernels = "masks"``,
  Teeko's): the same kernels over cell sets, ``moves(masks, tier, consts, out)`` with
  ``masks[k]`` the cells of stored kind k as bits (``masks[0]`` the empty cells) and
  each child a row of int64 ``out[i, 0..kinds]`` (its empty cells, then each kind's,
  seen from the next side to move; extras after), ``outcome(masks, tier, consts)``;
  the kit's kernels then never touch a board of bytes. Write them
  ``@njit(cache=True, inline="always")``: inlined, they pass no arrays by call.
  Optionally, over masks, ``outcome_moves(masks, tier, consts, out) -> (code, n)``:
  ``outcome``'s code and, when OPEN, ``moves``' children (the scans call it once
  where they would call both; chess's ``outcome`` generates moves up to a legal one);
  and ``outcome_moves_quiet(masks, tier, consts, out) -> (code, n, counted)``, the
  same with the moves into the tier to positions of stabiliser order 1 counted, not
  written (the scan of a tier of parts with child tiers weighs them 1, unranked);
  and ``unmoves_moved(masks, tier, consts, out) -> n``, the parents of ``unmoves`` as
  the board turned to their view (``out``'s last row) and, for parent j, the kind,
  the cell left and the cell gone back to of the one piece moved, then a cell whose
  piece changes kind (-1: none), its kind and its new kind (``out[j, 0..5]``): the
  un-moves of a tier of parts then rank the parents from what they share;
* the class: its sides, ``piece_kinds`` (notation character -> kind; side 0's first,
  as many for each side), ``rows``/``cols``, ``symmetry`` (cell permutations, from
  :func:`~.cells.grid_symmetries`), ``max_moves``, ``consts`` (a tuple of arrays the
  rules read: lines, neighbours), the tiers (``tiers``, ``child_tiers``, ``loopy``,
  ``tier_name``, ``sides_of``) and ``check`` (why a board is no position).

Boards are uint8 arrays over the cells from the side to move's view (values are
stored from that view, ``relative_values``): stored kind ``t + 1`` is the *other*
side's piece of type t, kind ``T + t + 1`` the mover's (T types a side). Kind 1 (the
other side's first type) is the key the numbering folds symmetries by
(:mod:`.numbering`), or the one or two kinds ``key_kinds`` names; ``key_allowed``
leaves out the placements of the key whose positions the rules decide (their values
``outcome``'s, no entry). A tier is a tuple: the count of each stored kind, then the
game's extras (pieces in hand, ...), which ``moves`` writes after the cells.

A game may also give: ``turn`` (a cell permutation: the board as side 1 sees it, so
that the mover always plays the same way; Dōbutsu shōgi's 180° turn), a ``hand`` on
its positions (its extras from no side's view; ``extras_of``/``hand_of`` turn them to
and from the mover's view), ``parts(tier)`` when a tier holds several count tuples
numbered one after the other (moves between them both ways: Dōbutsu shōgi's captures
and drops; ``tier_of_part``; such a tier is solved by the un-move solver with the
game's own ``unmoves``, ``max_unmoves`` of them at most, or else explicitly), and an
``outcome`` of 2 or more: a value known without looking at the moves (``2 * plies +
1`` won, ``2 * plies`` lost; Dōbutsu shōgi: 3 when the lion can be taken) while play
goes on: the exact value, which no move changes (the explicit solver and the parts'
scan read it, and the un-move solver neither weighs nor undoes such a position's
moves; the one-part scan does not read it).
A game may also keep its own numbering and values (tic-tac-toe's): ``relative_values =
False`` stores kinds as the notation's codes for both sides (kind 1 side 0's first
piece, whatever the side to move) and values from the first side's view, each tier
with one side to move (``sides_of``), ``outcome`` still from the side to move's view;
such a game is solved explicitly. ``fold = False``: the numbering folds no symmetry,
every board its own entry (``symmetry_classes`` still gives the least entry among a
board's images). And ``position_class`` (a subclass of :class:`Position`: more
properties, another order of ``legal_moves``), ``drop_prefix`` (a drop's text before
its cell: Dōbutsu shōgi's ``C*``), ``title_in_sentence`` and ``move_example`` (for
messages).

The kit gives the rest: the numbering and the tiers' sizes, ``index`` and
``position_at``, ``expand``/``expand_range`` (explicit), ``tier_kernels`` (the
engine's un-move solver), ``positions_in`` and ``symmetry_classes``, the
:class:`Position` (``legal_moves``, ``play``, ``symmetric_images``, ``is_over``,
``winner``) and the notation (the side's letter, then the rows from row 1).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numba import njit

from ...errors import (
    BuildError,
    IllegalMoveError,
    MoveSyntaxError,
    NotationError,
    PositionError,
    RowCountError,
    RowLengthError,
    SideError,
    UnknownCharacterError,
    counted,
    quoted,
)
from ...values import draw_value, not_a_position
from ..notation import invisible_character, position_tokens, tidy_move
from ..protocol import DUPLICATE, OPEN, Expansion, GridGame, TierKernels, child_values
from ..protocol import Side as SideBase
from . import compiler, numbering
from .cells import FILES
from .compiler import CopyPropagatingCompiler

LOST, WON, ILLEGAL, DRAWN = 0, 1, -2, -4  # outcome() codes besides OPEN (-1)

_TEMPLATES = Path(__file__).with_name("templates.py")


def _game_sources(module) -> list:
    """The files a game's rules may live in: its package's (the module's folder, when
    that holds an ``__init__.py``), else the module's own file."""
    path = Path(module.__file__)
    if (path.parent / "__init__.py").exists():
        return sorted(path.parent.glob("*.py"))
    return [path]


def _kit_digest(module) -> str:
    """A digest of the kit's kernel sources and of the game's. numba keys a cached kernel
    by its own file's time stamp and bytecode, not by what it inlines or calls: a kernel
    compiled into a game's module would outlive a change of the kit's templates,
    numbering, bit tricks or compile options (this file), or of the game's rules in
    another file of its package (chess's ``rules.py``: kernels calling a stale copy of
    its moves crashed on the new rules' tables). The digest goes into the kernels'
    names, so a changed kit or game compiles anew."""
    digest = hashlib.sha256()
    for path in (_TEMPLATES, Path(__file__), Path(compiler.__file__), Path(numbering.__file__),
                 Path(numbering.__file__).parents[2] / "bits.py", *_game_sources(module)):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:10]


_PARALLEL = {"_kit_scan", "_kit_parents_steps", "_kit_parents_own", "_kit_parent_blocks",
             "_kit_expand", "_kit_positions", "_kit_scan_parts", "_kit_scan_linked", "_kit_parents_parts",
             "_kit_canonical_parts", "_kit_canonical", "_kit_parent_classes"}
# Inlined into the kernels (numba's IR): a call that passes arrays costs atomic reference
# counts, which were most of the time a child took.
_INLINE = {"_kit_finished", "_kit_scan_entry", "_kit_slot", "_kit_block", "_kit_preference", "_kit_child_tier",
           "_kit_part_of", "_kit_take_plan", "_kit_part_at", "_kit_parent_key", "_kit_key_class",
           "_kit_moves_of_masks", "_kit_unmoves_of_masks", "_kit_outcome_of_masks", "_kit_outcome_moves_apart",
           "_kit_outcome_moves_of_masks", "_kit_outcome_moves_quiet_apart", "_kit_outcome_moves_quiet_of_masks",
           "_kit_unmoves_moved_of_masks", "_kit_part_code", "_kit_part_of_code", "_kit_toggle",
           "_kit_parents_entry", "_kit_key_kept"}


def instantiate(module, kinds: int | None = None, extras: int = 0, kernels: str = "board", keys: int = 1) -> None:
    """Compile the kit's generic kernels (:mod:`.templates`) into ``module`` (a game's
    rules module), jitted with numba's cache keyed by that module's file. Once.
    ``kinds``/``extras``: the game's stored kinds and tier extras; ``keys``: the kinds of
    its numbering's key (a constant the compiler folds into the numbering); ``kernels``: the form
    of the game's ``moves``/``outcome``/``unmoves`` (``"board"``: over a uint8 board,
    ``"masks"``: over cell sets, see :class:`PieceGame`)."""
    namespace = module.__dict__
    if namespace.get("_kit_instantiated"):
        return
    tree = ast.parse(_TEMPLATES.read_text())
    kept = [node for node in tree.body if isinstance(node, ast.FunctionDef)
            or (isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) and t.id.startswith("_KIT_")
                                                     for t in node.targets))]
    namespace.setdefault("kit_numbering", numbering)
    namespace.setdefault("np", np)
    from numba import prange

    namespace.setdefault("prange", prange)
    namespace["_KIT_KINDS"] = numbering.MAX_KINDS - 1 if kinds is None else kinds
    namespace["_KIT_EXTRAS"] = extras
    namespace["_KIT_KEYS"] = keys
    namespace["_KIT_QUIET"] = kernels == "masks" and "outcome_moves_quiet" in namespace
    namespace["_KIT_MOVED"] = kernels == "masks" and "unmoves_moved" in namespace
    exec(compile(ast.Module(body=kept, type_ignores=[]), module.__file__, "exec"), namespace)
    digest = _kit_digest(module)
    for node in kept:
        if isinstance(node, ast.FunctionDef):
            namespace[node.name].__qualname__ = f"{node.name}_{digest}"  # the cache file's name
            options = {"parallel": True} if node.name in _PARALLEL else {}
            if node.name in _INLINE:
                options["inline"] = "always"
            if node.name.endswith("_span"):  # one parallel task's work: compiled as numba
                # compiles a parallel loop's body (see .compiler), no zero-division checks
                options.update(error_model="numpy", pipeline_class=CopyPropagatingCompiler)
            namespace[node.name] = njit(cache=True, **options)(namespace[node.name])
    if kernels == "masks":
        namespace["_kit_moves"] = namespace["_kit_moves_of_masks"]
        namespace["_kit_unmoves"] = namespace["_kit_unmoves_of_masks"]
        namespace["_kit_outcome"] = namespace["_kit_outcome_of_masks"]
        namespace["_kit_board_moves"] = namespace["_kit_board_moves_via_masks"]
        namespace["_kit_board_outcome"] = namespace["_kit_board_outcome_via_masks"]
    else:
        namespace["_kit_moves"] = namespace["_kit_moves_via_board"]
        namespace["_kit_unmoves"] = namespace["_kit_unmoves_via_board"]
        namespace["_kit_outcome"] = namespace["_kit_outcome_via_board"]
        namespace["_kit_board_moves"] = namespace["moves"]
        namespace["_kit_board_outcome"] = namespace["outcome"]
    if kernels == "masks" and "outcome_moves" in namespace:
        namespace["_kit_outcome_moves"] = namespace["_kit_outcome_moves_of_masks"]
    else:
        namespace["_kit_outcome_moves"] = namespace["_kit_outcome_moves_apart"]
    if namespace["_KIT_QUIET"]:
        namespace["_kit_outcome_moves_quiet"] = namespace["_kit_outcome_moves_quiet_of_masks"]
    else:
        namespace["_kit_outcome_moves_quiet"] = namespace["_kit_outcome_moves_quiet_apart"]
    if namespace["_KIT_MOVED"]:
        namespace["_kit_unmoves_moved"] = namespace["_kit_unmoves_moved_of_masks"]
    namespace["_kit_instantiated"] = True


def _variant(cls, variant: str):
    """One object per variant: the registry's when the class is registered (read from
    the loaded registry, so that the kit imports no game), else one of the kit's own."""
    registry = sys.modules.get("retro.games")
    if registry is not None and getattr(registry, "GAMES", {}).get(cls.name) is cls:
        return registry.get(cls.name, variant)
    return _OWN.setdefault((cls, variant), cls(variant))


_OWN: dict = {}
_RULES: dict = {}  # a kit game's class -> its rules module


class LetterSide(SideBase):
    """Sides written by their value (a letter: ``B``, ``S``), titled by their name
    (``Black``, ``Sente``); a game's Side subclasses it with its members."""

    @property
    def letter(self) -> str:
        return self.value

    @property
    def title(self) -> str:
        return self.name.capitalize()


@dataclass(frozen=True, order=True)
class Move:
    """A move, written as the cells it touches: ``c3`` (a drop), ``c3-d4`` (a step)."""

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, eq=True)
class Position:
    """A position of a kit game: the side to move and what stands on each cell (0 empty,
    else the code of a notation character, 1 for the first of ``piece_kinds``)."""

    game: Any = field(compare=False, repr=False, hash=False)
    side: Any
    board: tuple
    hand: tuple = ()  # the game's extras from no side's view (Dōbutsu shōgi: pieces in hand)

    def __post_init__(self) -> None:
        if not isinstance(self.side, self.game.sides):
            raise SideError(f"side to move must be a {self.game.title_in_sentence} Side, not {self.side!r}")
        # ints only, as every game's positions (protocol: whole_numbers): a 1.0 or a True
        # would print wrong and break the jitted rules; numpy integers become ints
        for name in ("board", "hand"):  # the hand too: pieces in hand are counts
            cells = getattr(self, name)
            if not isinstance(cells, (tuple, list, np.ndarray)):
                raise TypeError(f"the {name} of a position must be a tuple of ints, not {type(cells).__name__}")
            for value in cells:
                if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                    raise TypeError(f"the {name} of a position must hold ints, not {type(value).__name__}")
            object.__setattr__(self, name, tuple(int(v) for v in cells))
        self.game.check_cells(self)
        self.game.check(self)

    def __copy__(self) -> Position:
        return self

    def __deepcopy__(self, memo) -> Position:
        return self  # immutable, and its game is one object per variant: nothing to copy

    def __str__(self) -> str:
        return self.game.position_text(self)

    def __repr__(self) -> str:
        return f"{type(self.game).__name__}.parse({str(self)!r})"

    def count(self, code: int) -> int:
        return sum(1 for v in self.board if v == code)

    def _outcome(self) -> int:
        code = self.__dict__.get("_code")
        if code is None:  # once a position: is_over, winner, play and successors all ask
            stored, tier = self.game.view(self)
            code = int(self.game.rules_module._kit_board_outcome(stored, np.array(tier, dtype=np.int64),
                                                                 self.game.consts))
            object.__setattr__(self, "_code", code)
        return code

    def is_over(self) -> bool:
        code = self._outcome()
        return code != OPEN and code < 2  # a value outcome() knows (2 or more): play goes on

    def winner(self):
        code = self._outcome()
        return self.side if code == WON else self.side.other if code == LOST else None

    def _move_rows(self) -> tuple[dict, np.ndarray]:
        """``({move text: its row}, rows)``: each legal move's child as the rules give it
        (a board from the next mover's view, then extras); kept for :meth:`play`, rows
        rather than positions (a walk would keep its tree)."""
        rows = self.__dict__.get("_rows")
        if rows is None:
            game = self.game
            out = np.empty((game.max_moves, game.cells_count + game.extras), dtype=np.uint8)
            n = 0
            if not self.is_over():
                stored, tier = game.view(self)
                n = game.rules_module._kit_board_moves(stored, np.array(tier, dtype=np.int64), game.consts, out)
            texts = game.move_texts(self, out[:n])
            rows = ({text: i for i, text in enumerate(texts)}, out[:n].copy())
            object.__setattr__(self, "_rows", rows)
        return rows

    def successors(self) -> dict:
        """``{move text: position}`` for every legal move (none once the game is over)."""
        texts, rows = self._move_rows()
        other = self.side.other  # the rules' own children: positions, not checked again
        return {text: self.game.position_of(rows[i], other, checked=False) for text, i in texts.items()}

    def legal_moves(self) -> list[Move]:
        return sorted(Move(text) for text in self._move_rows()[0])

    def play(self, move) -> Position:
        if isinstance(move, str):
            move = self.game.parse_move(move)
        elif not isinstance(move, Move):
            raise TypeError(f"expected a Move or move text like {self.game.move_example!r}, "
                            f"got {type(move).__name__}")
        if self.is_over():
            winner = self.winner()
            result = "a draw" if winner is None else f"{winner.title} has won"
            raise IllegalMoveError(f"the game is over ({result}): no move {move} allowed")
        texts, rows = self._move_rows()  # only the child played is made a position
        i = texts.get(move.text)
        found = None if i is None else self.game.position_of(rows[i], self.side.other, checked=False)
        if found is None:
            raise IllegalMoveError(f"illegal move {move}: {self.game.why_illegal(self, move)}")
        return found

    def symmetric_images(self) -> list[Position]:
        """The position under each symmetry of its tier (identity first)."""
        sym = self.game.symmetry_of(self.game.tier_of(self))
        out = []
        for g in range(len(sym)):
            board = [0] * len(self.board)
            for cell, v in enumerate(self.board):
                board[int(sym[g, cell])] = v
            out.append(type(self)(self.game, self.side, tuple(board), self.hand))
        return out


class PieceGame(GridGame):
    """The kit's base of a game of pieces on the cells of a grid (module docstring)."""

    relative_values = True
    out_of_core = True  # relative values, duplicates: verified as nine men's morris is
    piece_kinds: ClassVar[dict]
    rows: int
    cols: int
    max_moves: ClassVar[int]
    extras: ClassVar[int] = 0
    unmoves: ClassVar[str | None] = None  # "steps", "own", or None (loopy tiers: explicit)
    kernels: ClassVar[str] = "board"  # the form of the game's kernels: "board" or "masks"
    bytes_per_entry: ClassVar[int] = 7  # the un-move solver's peak, measured (values 2, state 4, lists 1)
    # the un-move solver's lists of entries to decide hold at most a tier's entries over
    # this (the rest wait in its state words: see retro.engine.unmove._Schedule)
    schedule_share: ClassVar[int] = 4
    RELEASE_EVERY: ClassVar[int] = 1 << 24  # entries scanned between drops of the children's pages
    max_unmoves: ClassVar[int | None] = None  # un-moves of a position at most (None: max_moves)
    fold: ClassVar[bool] = True  # the numbering folds the symmetries (False: a board, an entry)
    key_kinds: ClassVar[tuple] = (1,)  # the stored kinds the numbering folds by (one or two)
    # stored kind -> the cells its pieces may stand on (chess: no pawn on the first or last
    # rank): the numbering ranks it among those alone (see numbering's "domain")
    domains: ClassVar[dict] = {}
    position_class: ClassVar[type] = Position
    move_example: ClassVar[str] = "c3"  # a move, in messages

    @property
    def title_in_sentence(self) -> str:
        return self.title

    # --- what the game gives ----------------------------------------------------

    consts: tuple  # the arrays (and numbers) the rules read: set by the game per variant

    @cached_property
    def symmetry(self) -> np.ndarray:
        from .cells import grid_symmetries

        return grid_symmetries(self.rows, self.cols)

    def sides_of(self, tier) -> tuple[int, ...]:
        """The side codes a tier's positions may have to move (the first is the one
        :meth:`position_at` gives)."""
        return (0, 1)

    def check_cells(self, position: Position) -> None:
        """Raise a PositionError when ``position``'s board is not one of the game's: as
        many cells, each 0 or a code of its pieces. Before :meth:`check` and the
        numbering read it: a cell past the board or a code past the pieces was an
        IndexError deep in the numbering."""
        cells = self.cells_count
        if len(position.board) != cells:
            raise PositionError(f"a {self.title_in_sentence} board has {cells} cells, not {len(position.board)}")
        codes = len(self.piece_kinds)
        wrong = next((v for v in position.board if not 0 <= v <= codes), None)
        if wrong is not None:
            raise PositionError(f"a {self.title_in_sentence} cell holds 0 (empty) to {codes} "
                                f"(the pieces {''.join(self.piece_kinds)} in turn), not {wrong}")

    def check(self, position: Position) -> None:
        """Raise a PositionError subclass naming why ``position`` is no position (its
        cells checked already: :meth:`check_cells`)."""

    def why_illegal(self, position: Position, move: Move) -> str:
        return f"{move} is not a legal move here"

    # --- derived ----------------------------------------------------------------

    @property
    def rules_module(self):
        """The module holding the game's jitted rules (the kit's kernels are compiled there)."""
        module = _RULES.get(type(self))
        if module is None:  # found once a class (a module in the game's dict would not pickle)
            module = next((sys.modules[c.__module__] for c in type(self).__mro__
                           if hasattr(sys.modules[c.__module__], "moves")), sys.modules[type(self).__module__])
            instantiate(module, self.kinds, self.extras, self.kernels, len(self.key_kinds))  # a subclass elsewhere: its base's rules
            _RULES[type(self)] = module
        return module

    @property
    def grid_size(self) -> int:
        return self.rows

    @property
    def cells_count(self) -> int:
        return self.rows * self.cols

    @cached_property
    def names(self) -> list[str]:
        return [f"{FILES[c]}{r + 1}" for r in range(self.rows) for c in range(self.cols)]

    @cached_property
    def types(self) -> int:
        return len(self.piece_kinds) // 2

    @cached_property
    def kinds(self) -> int:
        return 2 * self.types

    @cached_property
    def _views(self) -> tuple[np.ndarray, np.ndarray]:
        """``to_stored[side][code]`` and ``to_code[side][stored kind]``."""
        t = self.types
        to_stored = np.zeros((2, 2 * t + 1), dtype=np.uint8)
        to_code = np.zeros((2, 2 * t + 1), dtype=np.uint8)
        for side in (0, 1):
            for code in range(1, 2 * t + 1):
                owner, kind = divmod(code - 1, t)
                stored = code if not self.relative_values else kind + 1 if owner != side else t + kind + 1
                to_stored[side, code] = stored
                to_code[side, stored] = code
        return to_stored, to_code

    @cached_property
    def swap(self) -> np.ndarray:
        """Stored kind -> the same piece seen from the other side."""
        t = self.types
        return np.array([0] + [k + t for k in range(1, t + 1)] + [k for k in range(1, t + 1)], dtype=np.uint8)

    turn: ClassVar[np.ndarray | None] = None  # cells seen from side 1: turn[c] (None: as they are)

    def view(self, position: Position) -> tuple[np.ndarray, tuple]:
        """The board from the side to move's view (``turn``ed for side 1), and its part
        (the tier's counts and extras: the tier itself when tiers have one part); kept
        on the position (a probe asks for it three times). Not to be written to."""
        seen = position.__dict__.get("_view")
        if seen is not None:
            return seen
        seen = self._view(position)
        object.__setattr__(position, "_view", seen)
        return seen

    def _view(self, position: Position) -> tuple[np.ndarray, tuple]:
        view = self._views[0][position.side.code]
        board = view[np.array(position.board, dtype=np.int64)].astype(np.uint8)
        if self.turn is not None and position.side.code == 1:
            turned = np.empty_like(board)
            turned[self.turn] = board
            board = turned
        return board, self.tier_of_board(board, position)

    def tier_of_board(self, board: np.ndarray, position: Position | None = None) -> tuple:
        counts = np.bincount(board, minlength=self.kinds + 1)[1:]
        return tuple(int(c) for c in counts) + self.extras_of(position)

    def extras_of(self, position) -> tuple:
        """The extras of ``position``'s part, from its side to move's view."""
        return ()

    def hand_of(self, extras, side) -> tuple:
        """A Position's ``hand`` from a row's extras seen by ``side`` (to move)."""
        return ()

    def position_of(self, row: np.ndarray, side, checked: bool = True) -> Position:
        """The position a row (a board from ``side``'s view, then extras) stands for;
        ``checked=False`` for a row the rules made (a legal move's child): built without
        validating its values or calling :meth:`check` again."""
        cells = row[:self.cells_count]
        if self.turn is not None and side.code == 1:
            cells = cells[self.turn]
        board = tuple(self._views[1][side.code][cells].tolist())
        hand = self.hand_of(tuple(row[self.cells_count:].tolist()), side)
        if checked:
            return self.position_class(self, side, board, hand)
        position = object.__new__(self.position_class)
        for name, value in (("game", self), ("side", side), ("board", board), ("hand", hand)):
            object.__setattr__(position, name, value)
        return position

    # --- parts: a tier made of several count tuples (moves between them both ways) ----

    def parts(self, tier) -> tuple:
        """The count tuples (with extras) whose numberings, one after the other, make the
        tier's entries: the tier itself, unless a game's tiers hold several (Dōbutsu
        shōgi: every spread of its pieces over the board and the hands is one tier,
        since captures and drops move pieces both ways)."""
        return (tuple(tier),)

    def tier_of_part(self, part) -> tuple:
        return tuple(part)

    def _part_offsets(self, tier) -> tuple[tuple, np.ndarray, dict]:
        """The tier's parts, where each starts (and the end), and part -> its number."""
        cache = self.__dict__.setdefault("_offsets_cache", {})
        key = tuple(tier)
        if key not in cache:
            parts = tuple(tuple(p) for p in self.parts(tier))
            tables = self.tables_of(tier)
            sizes = [int(numbering.tier_size(np.array(p[:self.kinds], dtype=np.int64), tables)) for p in parts]
            offsets = np.zeros(len(parts) + 1, dtype=np.int64)
            np.cumsum(sizes, out=offsets[1:])
            cache[key] = (parts, offsets, {p: i for i, p in enumerate(parts)})
        return cache[key]

    def _part_at(self, tier, entry: int) -> tuple[tuple, int]:
        """The part holding ``entry`` of the tier, and the entry within that part."""
        parts, offsets, _ = self._part_offsets(tier)
        i = int(np.searchsorted(offsets, entry, side="right")) - 1
        return parts[i], int(entry - offsets[i])

    def move_texts(self, before: Position, rows: np.ndarray) -> list[str]:
        """The texts of the moves from ``before`` to the children ``rows`` (the rules'
        rows, from the next mover's view): the cells the mover left, then those it
        took (``c3``, ``c3-d4``), a drop (no cell left) after its piece's
        :meth:`drop_prefix`; all at once, no position made. A game that writes its own
        :meth:`move_text` gets that of each child."""
        other = before.side.other
        if type(self).move_text is not PieceGame.move_text:
            return [self.move_text(before, self.position_of(row, other, checked=False)) for row in rows]
        after, left, took = self._moved_cells(before, rows)
        words: list[list[str]] = [[] for _ in range(len(rows))]
        for cells_of in (left, took):  # the cells each move left, then those it took, in order
            at, where = np.nonzero(cells_of)
            for i, c in zip(at.tolist(), where.tolist()):
                words[i].append(self.names[c])
        drops = ~left.any(axis=1) & took.any(axis=1)
        for i in np.flatnonzero(drops).tolist():
            words[i][0] = self.drop_prefix(int(after[i, took[i].argmax()])) + words[i][0]
        return ["-".join(w) for w in words]

    def _moved_cells(self, before: Position, rows: np.ndarray) -> tuple:
        """For the children ``rows`` of ``before`` (the rules' rows): each child's board
        of notation codes, and the cells each move emptied of the mover's pieces and
        those it filled with them (bool arrays, a row a child)."""
        other = before.side.other
        cells = rows[:, :self.cells_count]
        if self.turn is not None and other.code == 1:
            cells = cells[:, self.turn]
        after = self._views[1][other.code][cells]
        was = np.array(before.board)
        mine = self._codes_of[before.side.value]
        changed = after != was
        return after, changed & mine[was], changed & mine[after]

    def move_text(self, before: Position, after: Position) -> str:
        """The text of the move from ``before`` to ``after`` (see :meth:`move_texts`)."""
        return self.move_texts(before, self.view(after)[0][None, :])[0]

    def drop_prefix(self, code: int) -> str:
        """What a drop's text starts with, by the notation code of the piece dropped:
        nothing (Teeko's ``c3``), or the piece (Dōbutsu shōgi's ``C*b2``)."""
        return ""

    @cached_property
    def _codes_of(self) -> dict:
        """A side's value -> whether each notation code (0 empty, 1.. ``piece_kinds``) is
        one of its pieces: a lookup table, made once rather than at every listing of moves."""
        kinds = list(self.piece_kinds.values())
        return {side.value: np.array([False] + [kind["side"] == side.value for kind in kinds], dtype=bool)
                for side in self.sides}

    def key_allowed(self, first: int, second: int) -> bool:
        """Whether the numbering keeps the boards whose key kinds stand on the cells
        ``first`` and ``second`` (bitmasks; ``second`` 0 for a key of one kind). A game
        leaves out keys whose positions its rules decide (Dōbutsu shōgi: lions side by
        side, a lion on the far rank): ``outcome`` must then give their value, never
        OPEN. The same answer for every symmetric image."""
        return True

    def groups(self) -> tuple:
        """The symmetry groups the tiers' numberings fold by (cell permutations, the
        identity first), one or two: the game's ``symmetry`` alone, unless its tiers
        differ (chess: the square's 8 without pawns, the left-right mirror with them)."""
        return (self.symmetry,)

    def group_of(self, tier) -> int:
        """The index in :meth:`groups` of the group ``tier`` folds by (every part of a
        tier folds by the same)."""
        return 0

    @cached_property
    def all_tables(self) -> tuple:
        """The numbering's tables of each of :meth:`groups`, in order."""
        kmax = max(p[k - 1] for t in self.tiers() for p in self.parts(t) for k in self.key_kinds)
        if len(self.key_kinds) > 1 and self.unmoves == "steps":
            raise TypeError(f"{type(self).__name__}: a key of two kinds needs the game's own un-moves")
        if not 1 <= len(self.groups()) <= 2:
            raise TypeError(f"{type(self).__name__}: the kit folds by one or two symmetry groups")
        leaves_out = type(self).key_allowed is not PieceGame.key_allowed
        name = f"{type(self).__module__}.{type(self).__name__}:{self.variant}" if leaves_out else ""
        return tuple(numbering.tables(group if self.fold else np.arange(self.cells_count)[None], kmax,
                                      tuple(self.key_kinds), self.kinds, self.key_allowed if leaves_out else None,
                                      name, self.domains) for group in self.groups())

    @property
    def tables(self) -> numbering.Tables:
        """The tables of the first group (a game of one group: its only tables)."""
        return self.all_tables[0]

    def tables_of(self, tier) -> numbering.Tables:
        """The tables numbering ``tier``'s parts (those of its group)."""
        return self.all_tables[self.group_of(tier)]

    def symmetry_of(self, tier) -> np.ndarray:
        """The symmetries of ``tier``'s positions (its group's cell permutations)."""
        return self.groups()[self.group_of(tier)]

    def _tier_array(self, tier) -> np.ndarray:
        return np.array(tier, dtype=np.int64)

    # --- notation ---------------------------------------------------------------

    def position_text(self, position: Position) -> str:
        """The side's letter, then the rows from row 1 (``.`` an empty cell)."""
        chars = "." + "".join(self.piece_kinds)
        cells = "".join(chars[v] for v in position.board)
        cols = self.cols
        return " ".join([position.side.letter] + [cells[r:r + cols] for r in range(0, len(cells), cols)])

    def parse(self, text: str) -> Position:
        if not isinstance(text, str):
            raise NotationError(f"a position must be text, not {type(text).__name__}")
        letters = [side.letter for side in self.sides]
        tokens = position_tokens(text)
        if not tokens:
            raise SideError(f"empty position: expected {' or '.join(letters)}, then one group per row")
        if tokens[0] not in letters:
            raise SideError(f"unknown side to move {quoted(tokens[0])}: expected {' or '.join(letters)}")
        rows = tokens[1:]
        invisible = invisible_character(rows)
        if invisible is not None:
            raise UnknownCharacterError(self._unknown(*invisible))
        other = self._variant_for(len(rows), len(rows[0]) if rows else 0)
        if other is not None:  # another variant's board: that variant reads it
            return other.parse(text)
        if len(rows) != self.rows:
            raise RowCountError(f"{counted(len(rows), 'row')}: a {self.title_in_sentence} board has "
                                f"{self.rows} rows of {self.cols} squares")
        chars = "." + "".join(self.piece_kinds)
        for number, row in enumerate(rows, start=1):
            if len(row) != self.cols:
                raise RowLengthError(f"row {number} has {counted(len(row), 'square')}: a row has {self.cols}")
            for c in row:
                if c not in chars:
                    raise UnknownCharacterError(self._unknown(number, c))
        board = tuple(chars.index(c) for c in "".join(rows))
        return self.position_class(self, next(s for s in self.sides if s.letter == tokens[0]), board)

    def _variant_for(self, rows: int, cols: int):
        """The first variant of this game whose board has ``rows`` rows of ``cols``, when
        this one's has not (a text names its board by its size), or None."""
        if (rows, cols) == (self.rows, self.cols):
            return None
        for variant in self.variants:
            game = _variant(type(self), variant)
            if (game.rows, game.cols) == (rows, cols):
                return game
        return None

    def for_position(self, position):
        return position.game

    def row_layouts(self) -> list[tuple[int, ...]]:
        layouts = []
        for variant in self.variants:
            game = _variant(type(self), variant)
            if (game.cols,) * game.rows not in layouts:
                layouts.append((game.cols,) * game.rows)
        return layouts

    def _unknown(self, number: int, char: str) -> str:
        allowed = ", ".join(self.piece_kinds)
        return f"unknown character {quoted(char)} in row {number}: use {allowed} or . (empty)"

    def parse_move(self, text: str) -> Move:
        if not isinstance(text, str):
            raise MoveSyntaxError(f"a move must be text like 'c3', not {type(text).__name__}")
        tidy = tidy_move(text)
        found = re.findall(r"[a-z]\d+", tidy)
        if not found or re.sub(r"[a-z]\d+", "", tidy).strip("-") != "" or any(n not in self.names for n in found):
            raise MoveSyntaxError(f"{quoted(text.strip())} is not a move: write the squares, like 'c3' or 'c3-d4'")
        return Move("-".join(found))

    # --- positions and values ---------------------------------------------------

    def start(self) -> Position:
        """An empty board, the first side to move (a game whose start differs says so)."""
        return self.position_class(self, self.sides.from_code(0), (0,) * self.cells_count)

    def finished_value(self, position: Position) -> int:
        """The value of a finished position, or of one the table does not store (its
        rules' value, ``outcome`` 2 or more), from the first side's view."""
        code = position._outcome()
        if code == DRAWN:
            return draw_value(self.value_dtype)
        if code == OPEN or code == ILLEGAL:
            raise ValueError(f"{position} is not finished")
        if code >= 2:
            return code if position.side.code == 0 else code ^ 1
        first_wins = (code == WON) == (position.side.code == 0)
        return 1 if first_wins else 0

    def value_for(self, position: Position, stored: int) -> int:
        if position.side.code == 0 or not self.relative_values or stored >= np.iinfo(self.value_dtype).max - 1:
            return stored  # values of the first side's view, or no win nor loss
        return stored ^ 1

    # --- tiers ------------------------------------------------------------------

    def tier_size(self, tier) -> int:
        return int(self._part_offsets(tier)[1][-1])

    def tier_memory(self, tier) -> int:
        """The un-move solver's peak: about ``bytes_per_entry`` bytes an entry (values,
        its word of state, the lists of the levels), the share of the children's values
        its scan holds at once and the buffers it touches (about 100 MB at most)."""
        item = np.dtype(self.value_dtype).itemsize
        size = self.tier_size(tier)
        slots = (tuple(tier), *self.child_tiers(tier))
        parts = self.unmoves == "own" and any(len(self.parts(s)) > 1 for s in slots)
        width = 1 if parts else self.max_moves  # children's values a scanned entry keeps (parts: the best)
        fixed = (8 << 20) + min(size, 1 << 18) * (24 + item * width) \
            + min(size, 1 << 16) * self.max_moves * 4 + min(size, 1 << 23) * 8
        # The scan reads its children a part at a time, their pages dropped every
        # RELEASE_EVERY entries: about that share of each is resident at once.
        share = min(1.0, self.RELEASE_EVERY / max(size, 1))
        children = sum(item * self.tier_size(c) for c in self.child_tiers(tier))
        return self.bytes_per_entry * size + fixed + int(children * share)

    def positions_in(self, tier) -> int:
        return self._positions(tuple(tier))

    def _positions(self, tier) -> int:
        """Counted by a pass over the tier (a second or so for Teeko's largest), kept
        on disk once per machine (keyed by the game's source and the kit's version)."""
        cache = self.__dict__.get("_positions_cache")
        if cache is None:  # read once a game, not once a tier
            cache = self.__dict__["_positions_cache"] = self._read_positions()
        if tier not in cache:
            parts, offsets, _ = self._part_offsets(tier)
            one_side = sum(int(self.rules_module._kit_positions(
                self.kinds, self._tier_array(part), self.consts, self.tables_of(tier), int(offsets[i + 1] - offsets[i]),
                self.cells_count + self.extras, self.max_moves)) for i, part in enumerate(parts))
            cache[tier] = int(one_side) * len(self.sides_of(tier))
            self._write_positions(cache)
        return cache[tier]

    def _positions_file(self) -> Path:
        from platformdirs import user_cache_dir

        source = Path(sys.modules[type(self).__module__].__file__).read_bytes()
        digest = hashlib.sha256(source + f"{numbering.VERSION}:{self.variant}".encode()).hexdigest()[:16]
        return Path(user_cache_dir("retro")) / "kit" / f"positions-{self.file_stem}-{digest}.json"

    def _read_positions(self) -> dict:
        try:
            saved = json.loads(self._positions_file().read_text())
            return {tuple(json.loads(k)): int(v) for k, v in saved.items()}
        except (OSError, ValueError, TypeError):
            return {}

    def _write_positions(self, cache: dict) -> None:
        path = self._positions_file()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(json.dumps({json.dumps(list(k)): v for k, v in cache.items()}))
            partial.replace(path)
        except OSError:
            pass

    def tier_of(self, position: Position):
        return self.tier_of_part(self.view(position)[1])

    def stored(self, position: Position) -> bool:
        """Whether the table holds ``position``: not one whose mover has lost by the rules
        (Dōbutsu shōgi's side whose lion is taken) nor one the numbering leaves out
        (:meth:`key_allowed`); their values are the rules'."""
        return self.index(position) >= 0

    def index(self, position: Position) -> int:
        """The entry of ``position`` in its tier, or -1 when it is not stored (see :meth:`stored`)."""
        found = position.__dict__.get("_index")
        if found is None:  # kept: a probe asks whether it is stored, then for its entry
            found = self._index(position)
            object.__setattr__(position, "_index", found)
        return found

    def _index(self, position: Position) -> int:
        board, part = self.view(position)
        masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
        tier = self.tier_of_part(part)
        _, offsets, number = self._part_offsets(tier)
        if tuple(part) not in number:
            return -1
        entry = numbering.entry_of(board, self._tier_array(part)[:self.kinds], self.tables_of(tier), masks)[0]
        return -1 if entry < 0 else int(offsets[number[tuple(part)]] + entry)

    def position_at(self, tier, entry: int) -> Position | None:
        """The position stored at ``entry``, with the first of the tier's sides to move
        (None for a duplicate entry or a board that is no position)."""
        part, entry = self._part_at(tier, int(entry))
        counts = self._tier_array(part)[:self.kinds]
        board = np.empty(self.cells_count, dtype=np.uint8)
        masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
        tables = self.tables_of(tier)
        if numbering.board_at(int(entry), counts, tables, board, masks) == 0:
            return None  # no board: a confined piece on another's cell
        if int(numbering.entry_of(board, counts, tables, masks)[0]) != entry:
            return None
        if self.rules_module._kit_board_outcome(board, self._tier_array(part), self.consts) == ILLEGAL:
            return None
        row = np.concatenate([board, np.array(part[self.kinds:], dtype=np.uint8)])
        return self.position_of(row, self.sides.from_code(self.sides_of(tier)[0]))

    def canonical_entries(self, tier, entries: np.ndarray) -> np.ndarray:
        entries = np.ascontiguousarray(entries, dtype=np.int64)
        out = np.empty(len(entries), dtype=np.int64)
        parts, offsets, _ = self._part_offsets(tier)
        if len(parts) == 1:
            self.rules_module._kit_canonical(entries, self._tier_array(tier)[:self.kinds], self.tables_of(tier), out)
            return out
        self.rules_module._kit_canonical_parts(entries, offsets, np.array(parts, dtype=np.int64), self.kinds,
                                               self.tables_of(tier), out)
        return out

    def symmetry_classes(self, tier) -> np.ndarray:
        entries = np.arange(self.tier_size(tier), dtype=np.int64)
        if self.fold:
            return self.canonical_entries(tier, entries)
        out = np.empty(len(entries), dtype=np.int64)  # one part: folding no symmetry, a game has no parts
        numbering.least_images(entries, self._tier_array(tier)[:self.kinds], self.tables_of(tier),
                               self.symmetry_of(tier), out)
        return out

    def tier_sides(self, tier) -> np.ndarray:
        return np.full(self.tier_size(tier), self.sides_of(tier)[0], dtype=np.int8)

    # --- solving ----------------------------------------------------------------

    def _expansion(self, tier, first: int, stop: int):
        slots = (tuple(tier), *self.child_tiers(tier))
        if any(len(self.parts(s)) > 1 for s in slots):
            return self._expansion_of_parts(tier, first, stop)
        keys = np.array(slots, dtype=np.int64).reshape(len(slots), -1)
        groups = np.array([self.group_of(s) for s in slots], dtype=np.int64)
        return (slots, *self._expansion_of(tier, tier, keys, groups, first, stop))

    def _expansion_of(self, tier, part, keys, groups, first: int, stop: int):
        """Entries ``first..stop-1`` of ``part`` of ``tier`` (one numbering): finished
        values, where each one's children start, and each child's row in ``keys`` (whose
        tables are ``all_tables[groups[row]]``) and entry there."""
        n = stop - first
        dtype = self.value_dtype
        finished = np.empty(n, dtype=np.int64)
        counts = np.empty(n, dtype=np.int64)
        args = (self.kinds, self._tier_array(part), self.consts, self.tables_of(tier), keys, self.all_tables[0],
                self.all_tables[-1], groups)
        width = self.cells_count + self.extras
        none = np.empty(0, dtype=np.int64)
        self.rules_module._kit_expand(first, stop, *args, finished, counts, none, none, none,
                               draw_value(dtype), not_a_position(dtype), self.max_moves, width, False)
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        child_slot = np.empty(int(starts[-1]), dtype=np.int64)
        child_entry = np.empty(int(starts[-1]), dtype=np.int64)
        bad = self.rules_module._kit_expand(first, stop, *args, finished, counts, starts, child_slot,
                                     child_entry, draw_value(dtype), not_a_position(dtype),
                                     self.max_moves, width, True)
        if bad >= 0:
            raise ValueError(f"{self.full_name}: entry {bad} of {self.tier_name(self.tier_of_part(part))} "
                             "has a move into a tier not among its child tiers")
        return finished, starts, child_slot, child_entry

    def _linked_parts(self, slots):
        """The parts of every tier of ``slots`` (a tier, then its child tiers) as rows
        (int64, the tier's own first), and for each row its slot, where its entries start
        in its tier, and its tier's symmetry group."""
        rows, slot_of, offset_of, groups = [], [], [], []
        for slot, key in enumerate(slots):
            parts, offsets, _ = self._part_offsets(key)
            rows += parts
            slot_of += [slot] * len(parts)
            offset_of += [int(o) for o in offsets[:-1]]
            groups += [self.group_of(key)] * len(parts)
        return (np.array(rows, dtype=np.int64).reshape(len(rows), -1),
                *(np.array(x, dtype=np.int64) for x in (slot_of, offset_of, groups)))

    def _expansion_of_parts(self, tier, first: int, stop: int):
        """:meth:`_expansion` of a tier of several parts, part by part: each child's part
        is found among every part of the tier and of its child tiers (a row of keys
        each), then turned into its tier's slot and entry."""
        slots = (tuple(tier), *self.child_tiers(tier))
        keys, slot_of, offset_of, groups = self._linked_parts(slots)
        parts, offsets, _ = self._part_offsets(tier)
        pieces = []
        for i, part in enumerate(parts):
            lo, hi = max(first, int(offsets[i])), min(stop, int(offsets[i + 1]))
            if lo < hi:
                finished, starts, row, entry = self._expansion_of(tier, part, keys, groups, lo - int(offsets[i]),
                                                                  hi - int(offsets[i]))
                ruled = row < 0  # a child the numbering leaves out: slot -1 - its value, kept
                pieces.append((finished, np.diff(starts), np.where(ruled, row, slot_of[np.maximum(row, 0)]),
                               np.where(ruled, 0, entry + offset_of[np.maximum(row, 0)])))
        starts = np.zeros(stop - first + 1, dtype=np.int64)
        np.cumsum(np.concatenate([p[1] for p in pieces]), out=starts[1:])
        return (slots, np.concatenate([p[0] for p in pieces]), starts,
                np.concatenate([p[2] for p in pieces]), np.concatenate([p[3] for p in pieces]))

    def expand(self, tier) -> Expansion:
        """The explicit expansion: values from the mover's view (one side, code 0);
        duplicate entries marked not a position."""
        size = self.tier_size(tier)
        slots, finished, starts, child_slot, child_entry = self._expansion(tier, 0, size)
        finished[finished == DUPLICATE] = not_a_position(self.value_dtype)
        return Expansion(slots, self._sides(tier, finished), finished.astype(np.int32), starts,
                         child_slot.astype(np.int8), child_entry)

    def expand_range(self, tier, first: int, stop: int) -> Expansion:
        """:meth:`expand` of entries ``first..stop-1``, duplicates marked DUPLICATE (as
        the out-of-core verifier reads them)."""
        slots, finished, starts, child_slot, child_entry = self._expansion(tier, first, stop)
        return Expansion(slots, self._sides(tier, finished), finished, starts,
                         child_slot, child_entry)

    def _sides(self, tier, finished: np.ndarray) -> np.ndarray:
        """The expansion's sides: the mover (code 0) when values are relative; else the
        tier's side, the finished values turned to the first side's view (in place)."""
        if self.relative_values:
            return np.zeros(len(finished), dtype=np.int8)
        side = self.sides_of(tier)[0]
        finished[(finished == 0) | (finished == 1)] ^= side
        return np.full(len(finished), side, dtype=np.int8)

    def tier_kernels(self, tier, children: dict) -> TierKernels | None:
        if not self.relative_values:
            return None  # values from the first side's view: the explicit solver
        if self.loopy(tier) and self.unmoves is None:
            return None  # no un-moves: the explicit solver
        rules = self.rules_module
        slots = (tuple(tier), *self.child_tiers(tier))
        if any(len(self.parts(s)) > 1 for s in slots):
            return self._part_kernels(tier, children) if self.unmoves == "own" else None
        keys = np.array(slots, dtype=np.int64).reshape(len(slots), -1)
        t = self._tier_array(tier)
        kinds, consts, tables, swap = self.kinds, self.consts, self.tables_of(tier), self.swap
        width = self.cells_count + self.extras
        dtype = self.value_dtype
        draw, invalid = draw_value(dtype), not_a_position(dtype)
        values = child_values(children, slots[1:], dtype)
        most = self.max_moves

        def scan(first, stop, w, finished, counter, counts, child_value):
            return rules._kit_scan(first, stop, kinds, t, consts, tables, keys, values, w, finished,
                                   counter, counts, child_value, draw, invalid, most, width)

        if self.unmoves == "own":
            def parents(entries, w, out, counts):
                rules._kit_parents_own(entries, kinds, t, consts, tables, w, out, counts, most, width)

            def parent_blocks(entries, out):
                out[:] = 0
        else:
            def parents(entries, w, out, counts):
                rules._kit_parents_steps(entries, kinds, t, consts, tables, swap, w, out, counts, most, width)

            def parent_blocks(entries, out):
                rules._kit_parent_blocks(entries, kinds, t, tables, swap, out)

        loopy = self.loopy(tier)
        return TierKernels(self.tier_size(tier), scan, parents if loopy else None, values, most, most,
                           lambda e: self.canonical_entries(tier, e),
                           f"{self.full_name} tier {self.tier_name(tier)}",
                           parent_blocks if loopy else None, self._schedule_budget(tier), self.RELEASE_EVERY)

    def _schedule_budget(self, tier) -> int:
        """The entries the un-move solver's lists hold at most (see :attr:`schedule_share`)."""
        return max(self.tier_size(tier) // self.schedule_share, 1 << 20)

    def _part_codes(self, tier):
        """The tier's parts as a hash table of their codes (see :meth:`_code_table`),
        each slot's part, the bits of a digit, the parts as rows (int64) and where each starts."""
        parts, offsets, _ = self._part_offsets(tier)
        rows = np.array(parts, dtype=np.int64)
        return (*self._code_table(tier, rows), rows, offsets)

    def _code_table(self, tier, rows: np.ndarray):
        """Parts (``rows``) as a hash table of their codes (counts and extras as digits of
        as many bits as the largest needs; -1 an empty slot, first slot
        :func:`numbering.part_slot`), each slot's part, and the bits of a digit. Four
        slots a part or more: a code is found in a probe or two, where a binary search took
        a dozen steps."""
        bits = max(1, int(rows.max()).bit_length())
        if bits * rows.shape[1] > 62:
            raise BuildError(f"{self.title} {self.tier_name(tier)}: parts of {rows.shape[1]} counts up to "
                             f"{int(rows.max())}, more than a 62-bit code holds")
        codes = rows @ (np.int64(1) << (bits * np.arange(rows.shape[1], dtype=np.int64)))
        slots = 1 << max(4, (4 * len(codes) - 1).bit_length())
        table = np.full(slots, -1, dtype=np.int64)
        part_in = np.full(slots, -1, dtype=np.int64)
        for p, code in enumerate(codes.tolist()):
            slot = int(numbering.part_slot(code, slots))
            while table[slot] != -1:
                slot = (slot + 1) & (slots - 1)
            table[slot], part_in[slot] = code, p
        return table, part_in, bits

    def _linked_scan(self, tier, children: dict):
        """The scan of a tier of parts with child tiers (:func:`_kit_scan_linked`) for
        entries of part ``p``: a function of ``(p, lo, hi, i, arrays)``."""
        rules = self.rules_module
        slots = (tuple(tier), *self.child_tiers(tier))
        rows, slot_of, offset_of, group_of = self._linked_parts(slots)
        codes, code_part, bits = self._code_table(tier, rows)
        values = child_values(children, slots[1:], self.value_dtype)
        # 16 arrays (or a greater power of two): the kernel compiles once, not per count of children
        values += (values[-1],) * (max(16, 1 << (len(values) - 1).bit_length()) - len(values))
        kinds, consts, tables = self.kinds, self.consts, self.tables_of(tier)
        first_tables, second_tables = self.all_tables[0], self.all_tables[-1]
        width = self.cells_count + self.extras
        draw, invalid = draw_value(self.value_dtype), not_a_position(self.value_dtype)

        def scan_part(p, lo, hi, w, finished, counter, counts, child_value):  # the tier's parts are rows 0..
            return rules._kit_scan_linked(lo, hi, kinds, rows[p], consts, tables, first_tables, second_tables, codes,
                                          code_part, bits, slot_of, offset_of, group_of, rows, values, finished,
                                          counter, counts, child_value, w, draw, invalid, self.max_moves, width)

        return scan_part

    def rules_decide_children(self, tier) -> bool:
        """Whether the un-move solver takes the value of each child of ``tier`` that the
        rules decide (finished, or a value ``outcome`` knows) from the rules rather than
        from its entry, never undoing its moves: a tier of several parts with no child
        tiers (Dōbutsu shōgi's). Elsewhere every entry's moves are undone."""
        return len(self.parts(tier)) > 1 and not self.child_tiers(tier) and self.unmoves == "own"

    def _part_kernels(self, tier, children: dict) -> TierKernels:
        """The un-move solver's kernels of a loopy tier of several parts (or whose child
        tiers have several), with the game's own un-moves: Dōbutsu shōgi's, whose moves
        all stay in the tier and whose scan takes the value of each child the rules
        decide (:func:`_kit_scan_parts`); or chess's, with child tiers
        (:func:`_kit_scan_linked`)."""
        rules = self.rules_module
        codes, code_part, bits, rows, offsets = self._part_codes(tier)
        kinds, consts, tables = self.kinds, self.consts, self.tables_of(tier)
        width = self.cells_count + self.extras
        dtype = self.value_dtype
        draw, invalid = draw_value(dtype), not_a_position(dtype)
        most, back = self.max_moves, self.max_unmoves or self.max_moves
        decided = self.rules_decide_children(tier)
        if decided:
            def scan_part(p, lo, hi, w, finished, counter, counts, child_value):
                return rules._kit_scan_parts(lo, hi, kinds, rows[p], consts, tables, codes, code_part, bits, rows,
                                             finished, counter, counts, child_value, w, draw, invalid, most, width)
        else:
            scan_part = self._linked_scan(tier, children)

        def scan(first, stop, w, finished, counter, counts, child_value):
            bad = -1
            p = int(np.searchsorted(offsets, first, side="right")) - 1
            while first < stop:
                end = min(stop, int(offsets[p + 1]))
                if end > first:
                    lo = first - int(offsets[p])
                    i = first - scan.base
                    found = scan_part(p, lo, lo + end - first, w, finished[i:], counter[i:], counts[i:],
                                      child_value[i * w:])
                    if found >= 0:
                        bad = found + int(offsets[p])
                first = end
                p += 1
            return bad

        def scan_from(first, stop, w, finished, counter, counts, child_value):
            scan.base = first
            return scan(first, stop, w, finished, counter, counts, child_value)

        swap = self.swap
        turn = np.arange(self.cells_count) if self.turn is None else np.asarray(self.turn, dtype=np.int64)
        step = max(1, self.tier_size(tier) // int(tables.class_off[-1]))

        def parents(entries, w, out, counts):
            bad = rules._kit_parents_parts(np.ascontiguousarray(entries, dtype=np.int64), offsets, rows, kinds,
                                           consts, tables, codes, code_part, bits, w, out, counts, back, width,
                                           swap, turn, decided)
            if bad >= 0:
                raise BuildError(f"{self.full_name}: a parent of entry {bad} moved a piece of the side to move "
                                 "(the un-moves of a tier of parts keep them in place)")

        def parent_blocks(entries, out):
            rules._kit_parent_classes(np.ascontiguousarray(entries, dtype=np.int64), offsets, rows, kinds, tables,
                                      swap, turn, step, out)

        return TierKernels(self.tier_size(tier), scan_from, parents, (np.zeros(1, dtype=dtype),), 1, back,
                           lambda e: self.canonical_entries(tier, e),
                           f"{self.full_name} tier {self.tier_name(tier)}", parent_blocks,
                           self._schedule_budget(tier), self.RELEASE_EVERY)

    # --- presentation -----------------------------------------------------------

    def geometry(self) -> dict:
        return {
            "kind": "grid", "columns": self.cols, "rows": self.rows,
            "points": [{"name": self.names[r * self.cols + c], "x": c, "y": r}
                       for r in range(self.rows) for c in range(self.cols)],
            "lines": [], "groups": [self.cols] * self.rows,
            "pieces": {char: dict(kind) for char, kind in self.piece_kinds.items()},
            "hands": False,
        }


