"""The game protocol: what a game tells retro so that retro can solve, store and serve it.

retro is an engine: the builder, the database, the checks and the front ends know
nothing of any game's rules. A game is one object (a subclass of :class:`Game`, one
instance per variant) that answers the questions below; the registry in
:mod:`retro.games` lists the games. Adding a game is one module with such a class
and one line in that registry.

Positions, sides, moves and their notation
------------------------------------------
* ``sides``: an enum of the two sides (a subclass of :class:`Side`); the first member
  moves first and has code 0. Each side has a name (its value, used in JSON: ``"X"``,
  ``"white"``), a letter (``X``, ``W``), a title for sentences and whether that title
  is plural ("the musketeers win", "White wins").
* ``parse(text)`` reads a position in the game's notation and raises a
  :class:`~retro.errors.PositionError` subclass naming the problem;
  ``str(position)`` writes it back (the two round-trip); ``parse_move(text)`` reads a
  move; ``start()`` is the start of the game; ``notation`` explains the notation in
  a sentence. ``cell_characters``, ``hand_counts`` and ``row_layouts()`` say what
  the notation writes, so that :meth:`Game.resemblance` can tell which game a text
  no game reads looks like (whose error to show); ``family`` names the games that
  share side letters in such an error (``morris``).
* A position's fields are ints (:func:`whole_numbers`): a bool or a float is a
  TypeError naming the field.

What a parser must call
~~~~~~~~~~~~~~~~~~~~~~~
Every game reads the same spellings and words its errors alike, so that the CLI, the
API and the page forgive the same things and :func:`retro.games.identify` can tell
which game a text meant. The tests hold every registered game to this
(``tests/test_notation.py``); the parsers of tic-tac-toe, morris, the race and Three
Musketeers are the examples. ``parse(text)``:

1. refuses text that is no ``str`` with a :class:`~retro.errors.NotationError`
   (``a position must be text, not int``);
2. splits it with :func:`.notation.position_tokens` (never ``str.split``): underscores,
   ``+``, ``/`` and ``,`` separate groups, and ASCII letters are upper case, so it
   reads only its canonical form and the answer prints the canonical text;
3. reads the side to move from the first group and raises a
   :class:`~retro.errors.SideError` otherwise, worded ``empty position: ...`` for no
   group and ``unknown side to move 'Q': expected X or O`` (the sides' letters as
   :attr:`Game.side_letters` lists them) for another word;
4. reads its numbers (morris: the pieces in hand, ``hand_counts`` of them) in the
   ASCII digits 0-9 only (``²``, ``٣``, ``6.0`` are errors naming the field) and
   never converts thousands of digits (Python refuses past 4,300);
5. calls :func:`.notation.invisible_character` on its row groups *before* it counts
   rows or points, and raises :class:`~retro.errors.UnknownCharacterError` for what
   it finds, worded ``unknown character '\\u200b' in row 1: use X, O or . (empty)``:
   a NUL or a zero-width space makes a row look right and count wrong, and the error
   must name that character, not a row length (the race, which writes squares:
   ``in player 1's square``);
6. quotes user text in every message with :func:`retro.errors.quoted` (it escapes
   invisible characters and cuts long text), and raises only
   :class:`~retro.errors.PositionError` subclasses (``RowCountError``,
   ``RowLengthError``, ``UnknownCharacterError``, ...), never another exception.

``parse_move(text)`` tidies its text with :func:`.notation.tidy_move` (case, spaces,
underscores, dashes) and raises :class:`~retro.errors.MoveSyntaxError`. For the
errors of text no game reads, :meth:`Game.resemblance` scores the text with
:func:`.notation.resemblance` from ``sides``' letters, ``cell_characters``,
``hand_counts`` and ``row_layouts()``: a game whose notation is not the side, the
hands and rows of cells (the race writes squares) overrides it. ``family`` groups the
games that share side letters in the error :func:`retro.games.identify` raises when
several notations resemble the text as much.
* A position object has ``side`` (whose turn), ``legal_moves()`` (none when the game
  is over), ``play(move)`` (a new position; an illegal move raises
  :class:`~retro.errors.IllegalMoveError`), ``is_over()`` and ``winner()`` (the side
  that has won, or None: still going, or a finished draw), and
  ``symmetric_images()`` (the position under each of the game's symmetries, itself
  first).

Values
------
Every value is encoded as :mod:`retro.values` says (a win for a side in so many plies,
or a draw), in ``value_dtype`` (uint8 holds distances up to 126 plies, uint16 more).
``finished_value(position)`` is the value of a finished position (0 plies, or a draw).

Tiers: how the positions are split and solved
---------------------------------------------
The positions are split into *tiers* (Three Musketeers: the number of enemy men;
tic-tac-toe: the number of marks; morris: the pieces each side has in hand and on the
board). A move leads to a position of the same tier or of one of the tier's
``child_tiers``; ``tiers()`` lists every tier so that each comes after all of its
child tiers (the order the builder solves them in). A tier is *loopy* when a move can
lead back into it (morris pieces slide back and forth); such tiers need the
retrograde solver with draws.

Each tier is a table: ``tier_size(tier)`` entries, and a bijection between entries
and the positions stored there. Symmetric positions may share one entry: the game
chooses a canonical image (Three Musketeers keeps one of the 8 symmetric images of
each musketeer placement). ``tier_of(position)`` is the tier of any position,
``index(position)`` its entry (the entry of its canonical image), or -1 for a
position whose value the game does not store (Three Musketeers stores only enemy-to-
move values and derives the others by a one-ply search); ``position_at(tier, entry)``
is the position stored at an entry (None when the entry is not a position: some
index schemes number impossible boards too). ``tier_name(tier)`` names its dataset in
the file.

Solving a tier
--------------
``expand(tier)`` describes a tier to the generic solvers of :mod:`retro.engine` as
plain arrays (:class:`Expansion`): each entry's side to move, its value if it is
finished (or not a position), and its children as (child tier, entry) pairs, from
the game's own move generation (a jitted kernel over the tier). The engine solves an
acyclic tier from its children's values, a loopy one by retrograde analysis.
``solve_tier(tier, children)`` may instead solve a tier by a faster method of the
game's own (Three Musketeers has one: it is why its full build takes about a
minute); it returns None when the game has none.

The game may also store a tier in another order than its entries' (``to_stored`` /
``from_stored``: Three Musketeers reorders its masks so that gzip compresses better)
and add header attributes and tables (``header``). ``compressed_fraction`` bounds the
compressed bytes per stored byte over its tiers, for the build's disk-space estimate.

More than two players
---------------------
A game of more than two ``players`` (the four-player race) is solved as one two-sided
game per player: that player (side 0) against the others together (side 1). Each tier
is one player's game; ``player_tiers()`` lists them in the order of ``sides``, and a
position has the same entry, ``index(position)``, in each (``tier_of`` names the first
player's). ``Side.other`` means nothing there; the probe API answers every player's
value (:meth:`retro.db.database.Database.probe_players`).

Presentation
------------
``geometry()`` describes the board to a page that knows no rules (squares of a grid,
or points and lines, each point with its drawing's ``x`` and ``y``, y down; the points
in the notation's order and its groups of them; ``pieces``: each character's side,
shape and name; ``hands``: pieces in hand, written as a count per side after the side
to move (morris, with ``pieces_per_side``) or, with ``hand_pieces`` (the letters a hand
may hold), as letters in one group after the rows, ``-`` for none (Dōbutsu shōgi, whose
drops are written ``C*b2``); ``empty``: the character of an empty point when it is not
``.``), ``cells(position)`` what stands on each point, ``marked_lines(position)`` the lines to draw over it (a line
that finished the game, the morris mills), and ``board_text(position)`` draws the
board for the terminal. ``references`` lists papers and articles on the game
(``{"title", "url"}``), which /api/v1/info serves and the page links.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, ClassVar, Collection, Hashable, Sequence

import numpy as np

from .notation import resemblance

Tier = Hashable


class Side(enum.Enum):
    """Base of every game's sides. Members in order: the first moves first (code 0).

    A subclass defines its members (value = the side's name in JSON) and the
    properties ``letter``, ``title`` and ``plural``.
    """

    @property
    def code(self) -> int:
        """0 for the side that moves first, 1 for the other."""
        code = self.__dict__.get("_code")  # kept on the member: an enum member hashes in Python
        if code is None:
            for number, member in enumerate(type(self)):
                member.__dict__["_code"] = number
            code = self._code
        return code

    @property
    def other(self) -> Side:
        return type(self).from_code(1 - self.code)

    @classmethod
    def from_code(cls, code: int) -> Side:
        members = _MEMBERS.get(cls)
        if members is None:
            members = _MEMBERS[cls] = tuple(cls)
        return members[int(code)]

    @property
    def letter(self) -> str:  # pragma: no cover - every game defines it
        raise NotImplementedError

    @property
    def title(self) -> str:  # pragma: no cover
        raise NotImplementedError

    @property
    def plural(self) -> bool:
        return False


_MEMBERS: dict[type, tuple] = {}  # Side.from_code: each Side class's members in order


@dataclass
class Expansion:
    """A tier as the generic solvers see it: plain arrays, one row per entry.

    ``side[i]``: the side to move (0 or 1); ``finished[i]``: the value of a finished
    position, :data:`OPEN` while the game goes on, or the "not a position" code of
    :mod:`retro.values`; ``starts[i]:starts[i+1]``: the entry's children in
    ``child_tier`` (an index into ``tiers``) and ``child_entry``, one per legal move
    (two moves to the same position give two children). ``tiers`` lists the tier
    itself first, then its child tiers.
    """

    tiers: tuple
    side: np.ndarray  # int8 (n,)
    finished: np.ndarray  # int32 (n,)
    starts: np.ndarray  # int64 (n + 1,)
    child_tier: np.ndarray  # int8 (edges,)
    child_entry: np.ndarray  # int64 (edges,)

    @property
    def size(self) -> int:
        return len(self.side)

    @property
    def edges(self) -> int:
        return len(self.child_entry)


OPEN = -1  # Expansion.finished: the game goes on


def child_values(children: dict, slots, dtype) -> tuple:
    """The values of a tier's child tiers (``slots``: their keys in ``children``) as a
    tuple of read-only arrays for a tier's kernels: read-only whether they come from
    memory or from a file, so that a kernel taking them compiles once, not once per kind
    of array; one array of zeros when there are none (a kernel indexes a tuple of
    arrays, never an empty one)."""
    views = []
    for key in slots or [None]:
        view = np.asarray(children[key]).view() if key is not None else np.zeros(1, dtype=dtype)
        view.flags.writeable = False
        views.append(view)
    return tuple(views)


@dataclass
class TierKernels:
    """A tier as the engine's un-move solver sees it (:mod:`retro.engine.unmove`): the
    game's jitted kernels over chunks of entries, wrapped as plain callables.

    ``scan(first, stop, width, finished, counter, counts, child_values)`` describes
    entries ``first..stop-1``: ``finished[i]`` the value of a finished entry, OPEN, or
    DUPLICATE (a smaller entry holds the same position); ``counter[i]`` its moves into
    the tier, each weighed by its child's stabiliser order, divided by its own; the
    values of the children of its moves out of the tier (read from ``children``; 0 for a
    child lost at once) at ``i * width``, ``counts[i]`` of them (only ``width`` written).
    It returns -1, or an entry whose weights do not divide. ``parents(entries, width,
    out, counts)`` writes the entries of the tier with a move to each of ``entries`` at
    ``out[i * width:]`` (``out`` may be uint32: a tier has fewer than 2**32 entries),
    ``counts[i]`` of them, once per move (moves leaving the tier not undone); None for
    an acyclic tier. ``canonical_of(entries)`` gives the canonical
    entry of duplicates. ``children``: the child tiers' values, by slot from 1.
    ``parent_blocks(entries, out)`` (with ``parents``) writes, for each entry, the first
    entry of a run of the tier that holds all its parents (runs of different entries
    are the same or disjoint): the solver undoes the moves of entries in the order of
    their runs, so that the parents it updates stay in the cache, and gives each
    thread its own runs. ``schedule_budget``: at most about so many entries held in the
    solver's lists of entries to decide (None: no bound; see
    :class:`retro.engine.unmove._Schedule`). ``release_every``: the entries scanned
    between two drops of the children's memory-mapped pages from the resident set (0:
    once, when the scan is done).
    """

    size: int
    scan: Any
    parents: Any
    children: tuple
    moves_width: int
    parents_width: int
    canonical_of: Any
    name: str = "tier"
    parent_blocks: Any = None
    schedule_budget: int | None = None
    release_every: int = 0


DUPLICATE = -3  # TierKernels' finished: a smaller entry holds the same position


def whole_numbers(position: Any, *fields: str) -> None:
    """Check that the named fields of a (frozen dataclass) position are ints: numpy
    integers become ints (arrays and kernels hand them out); a bool, a float (``6.0``
    would print as ``6.0`` and break the jitted rules) or anything else is a TypeError
    naming the field."""
    for field in fields:
        value = getattr(position, field)
        if type(value) is int:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"the {field} of a position must be an int, not {type(value).__name__}")
        object.__setattr__(position, field, int(value))


def slots(cells: Sequence[str], marked: Sequence[bool]) -> str:
    """Cells in two-character slots (`` X``), marked ones in brackets (``[X]``, ``[X .]``
    for neighbours: a closing bracket takes the next cell's leading space)."""
    out = []
    for i, (cell, mark) in enumerate(zip(cells, marked)):
        before = bool(i) and marked[i - 1]
        out.append(("[" if mark and not before else "]" if before and not mark else " ") + cell)
    if len(marked) and marked[-1]:
        out.append("]")
    return "".join(out).rstrip()


FILES = "abcdefgh"  # the columns' letters of every grid, from the left


def grid_text(rows: list[str], files: str = FILES, marked: Collection[str] = ()) -> str:
    """A grid board for the terminal: a header of column letters, then one numbered line
    per row (``rows``: each row's cells, from row 1); the squares named in ``marked``
    (``"e1"``, ...) in brackets."""
    lines = ["    " + " ".join(files[:len(rows[0])])]
    for number, row in enumerate(rows, start=1):
        lines.append(f"{number:>2} " + slots(row, [f"{files[c]}{number}" in marked
                                                   for c in range(len(row))]))
    return "\n".join(lines)


class Game:
    """One variant of one game (see the module docstring for what each member means)."""

    name: ClassVar[str]  # the registry's name: "tic-tac-toe"
    title: ClassVar[str]  # "Tic-tac-toe"
    family: ClassVar[str]  # how a message names the games sharing this notation: "morris"
    cell_characters: ClassVar[str]  # what the notation writes on a point: "OX." (empty last)
    hand_counts: ClassVar[int] = 0  # numbers written after the side to move (morris: 2)
    description: ClassVar[str]  # one line for `retro games`
    rules: ClassVar[str]  # the rules in one paragraph, written into every file's header
    notation: ClassVar[str]  # the notation in a sentence or two
    references: ClassVar[tuple[dict[str, str], ...]] = ()  # {"title", "url"} each
    sides: ClassVar[type[Side]]
    players: ClassVar[int] = 2  # more: each tier is one player's game against the rest
    value_dtype: ClassVar[Any] = np.uint8
    variants: ClassVar[tuple[str, ...]] = ("",)
    symmetries: ClassVar[int] = 1
    relative_values: ClassVar[bool] = False  # values stored from the side to move's view
    dataset_group: ClassVar[str] = "tiers"  # the file's group holding the tiers' datasets
    gzip_level: ClassVar[int] = 3  # of the stored tiers (Three Musketeers: 3, as in retro 0.2)
    compressed_fraction: ClassVar[float] = 0.5  # compressed / stored bytes, an upper bound
    # Games too large to hold in memory: checkpoints are raw files read through memory
    # maps, the database is written as it streams and probed a chunk at a time.
    out_of_core: ClassVar[bool] = False
    variant_option: ClassVar[str] = "--variant"  # how the CLI names a variant
    listed_variants: ClassVar[tuple[str, ...] | None] = None  # `retro games`' rows (None: all)
    variants_summary: ClassVar[str | None] = None  # the variants in messages (None: listed)
    unlisted_how: ClassVar[str | None] = None  # how `retro games` says to name the others
    # A notation that writes the board before the side to move (chess's FEN): the side
    # letters of messages and the first group's name (``first_row_name``) say so.
    board_first: ClassVar[bool] = False
    first_row_name: ClassVar[str] = "row 1"  # what the notation calls its first group of points
    stages: ClassVar[tuple[str, ...]] = ()  # named parts a build may stop after (`--stage`)
    values_note: ClassVar[str | None] = None  # what the values leave out, said once beside them (chess: the 50-move rule)

    def __init__(self, variant: str = "") -> None:
        if variant not in self.variants:
            raise ValueError(f"{self.name} has no variant {variant!r}")
        self.variant = variant
        self.full_name = f"{self.name} {variant}" if variant else self.name
        # The default database's name: ``three-musketeers-5x5``, ``tic-tac-toe``.
        self.file_stem = f"{self.name}-{variant}" if variant else self.name

    @classmethod
    def variant_named(cls, text: str) -> str:
        """The variant ``text`` names, forgiving how it is written (identity by default)."""
        return text

    # --- names ----------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<game {self.full_name}>"

    @property
    def short_name(self) -> str:
        """How messages name this variant briefly (Three Musketeers: its board, ``5x5``)."""
        return self.full_name

    @property
    def side_letters(self) -> str:
        """The letters of the sides as a message lists them: ``M or E``."""
        return " or ".join(side.letter for side in self.sides)

    def tier_words(self, tier: Tier) -> str:
        """How messages name a tier (``tier marks_5``; Three Musketeers: ``layer 5``)."""
        return f"tier {self.tier_name(tier)}"

    # --- positions ------------------------------------------------------------

    def parse(self, text: str):
        raise NotImplementedError

    def parse_move(self, text: str):
        raise NotImplementedError

    def start(self):
        raise NotImplementedError

    def row_layouts(self) -> list[tuple[int, ...]]:
        """The points of each row group, for every board the game's ``parse`` reads."""
        raise NotImplementedError

    def resemblance(self, text: str) -> int:
        """How much ``text`` looks like this game's notation (0: not at all), to choose
        whose error to show when no game reads a text (see :func:`.notation.resemblance`)."""
        return resemblance(text, [side.letter for side in self.sides], self.cell_characters,
                           self.row_layouts(), self.hand_counts)

    def for_position(self, position) -> Game:
        """The variant of this game that ``position`` belongs to (this one by default)."""
        return self

    def finished_value(self, position) -> int:
        """The encoded value of a finished position."""
        raise NotImplementedError

    def finished_reason(self, position) -> str:
        """Why a finished position is finished, in words ("... : X has won")."""
        raise NotImplementedError

    # --- tiers ----------------------------------------------------------------

    def tiers(self) -> Sequence[Tier]:
        raise NotImplementedError

    def tier_name(self, tier: Tier) -> str:
        raise NotImplementedError

    def tier_size(self, tier: Tier) -> int:
        raise NotImplementedError

    def child_tiers(self, tier: Tier) -> tuple[Tier, ...]:
        raise NotImplementedError

    def loopy(self, tier: Tier) -> bool:
        """Whether a move can lead from the tier back into it."""
        return False

    def tier_of(self, position) -> Tier:
        raise NotImplementedError

    def index(self, position) -> int:
        raise NotImplementedError

    def position_at(self, tier: Tier, entry: int):
        raise NotImplementedError

    def stored(self, position) -> bool:
        """Whether the database holds ``position``'s value (nine men's morris does not
        store positions whose mover has just lost: their value comes from the rules)."""
        return True

    def value_for(self, position, stored: int) -> int:
        """The value of ``position`` from the value stored at its entry (games storing
        values from the side to move's view turn them to the first side's)."""
        return stored

    def stage_tiers(self, stage: str) -> list:
        """The tiers of a build stopped after ``stage`` (one of :attr:`stages`): always a
        prefix of :meth:`tiers`, so that a later full build extends it."""
        raise ValueError(f"{self.name} has no stage {stage!r}")

    def tier_memory(self, tier: Tier) -> int:
        """Bytes a solve of the tier may hold at its peak (an estimate, for a cluster's
        scheduler): by default the explicit expansion's arrays, about 64 bytes an
        entry, and the child tiers' values."""
        item = np.dtype(self.value_dtype).itemsize
        return 64 * self.tier_size(tier) + sum(item * self.tier_size(c) for c in self.child_tiers(tier))

    def positions_in(self, tier: Tier) -> int:
        """Positions the tier stands for (both sides; with every symmetric image)."""
        return self.tier_size(tier)

    def positions(self, tiers: Sequence[Tier] | None = None) -> int:
        """Positions the tiers stand for (every tier of the game by default)."""
        return sum(self.positions_in(t) for t in (self.tiers() if tiers is None else tiers))

    def tier_sides(self, tier: Tier) -> np.ndarray:
        """The side to move (0 or 1) of every entry of the tier."""
        return self.expand(tier).side

    def symmetry_classes(self, tier: Tier) -> np.ndarray:
        """For every entry, the entry that stands for its class of positions equal up to
        the game's symmetries (the least one); an entry stands for itself when the
        game folds no symmetry into its index."""
        return np.arange(self.tier_size(tier), dtype=np.int64)

    # --- solving --------------------------------------------------------------

    def expand(self, tier: Tier) -> Expansion:
        raise NotImplementedError

    def expand_range(self, tier: Tier, first: int, stop: int) -> Expansion:
        """:meth:`expand` of entries ``first..stop-1`` only (children's entries as in
        :meth:`expand`; ``starts`` from 0): verifying a tier too large to expand whole."""
        whole = self.expand(tier)
        a, b = int(whole.starts[first]), int(whole.starts[stop])
        return Expansion(whole.tiers, whole.side[first:stop], whole.finished[first:stop],
                         whole.starts[first:stop + 1] - a, whole.child_tier[a:b],
                         whole.child_entry[a:b])

    def tier_kernels(self, tier: Tier, children: dict) -> TierKernels | None:
        """The tier as the engine's un-move solver sees it, or None (then ``expand``)."""
        return None

    def solve_tier(self, tier: Tier, children: dict, advance=None) -> np.ndarray | None:
        """The tier's values by the game's own fast method, or None (the engine's).

        ``children`` maps each child tier to its values; ``advance(positions)``, when
        given, is told of the progress."""
        return None

    def to_stored(self, tier: Tier, values: np.ndarray) -> np.ndarray:
        return values

    def from_stored(self, tier: Tier, stored: np.ndarray) -> np.ndarray:
        return stored

    def stored_shape(self, tier: Tier) -> tuple[int, ...]:
        return (self.tier_size(tier),)

    def tier_attrs(self, tier: Tier) -> dict:
        """Extra attributes of a tier's dataset (Three Musketeers: ``enemy_men``)."""
        return {}

    def header(self, tiers: Sequence[Tier]) -> tuple[dict, dict]:
        """Extra root attributes and datasets of a file holding ``tiers``."""
        return {}, {}

    # --- presentation ---------------------------------------------------------

    def geometry(self) -> dict:
        raise NotImplementedError

    def cells(self, position) -> str:
        """What stands on each point, one notation character per point, in the order of
        ``geometry()["points"]``."""
        raise NotImplementedError

    def written_move(self, position, move) -> str | None:
        """The move as players write it where that differs from the notation's text
        (chess: SAN, ``Nf3``, where moves are read and written in UCI), else None."""
        return None

    def checked_points(self, position) -> list[str]:
        """The points of pieces in check, marked on the board (chess: the king of the
        side to move, attacked). None by default (an empty list)."""
        return []

    def marked_lines(self, position) -> list[dict]:
        """Lines to mark on the board: ``{"side": name, "points": [...]}`` for a line that
        finished the game (Three Musketeers' musketeers in a row, tic-tac-toe's three in
        a line) or, in morris, each mill standing. None by default."""
        return []

    def board_text(self, position, marked: Collection[str] = ()) -> str:
        """The board for the terminal, with coordinates; the points named in ``marked``
        (the last move's, say) in brackets."""
        raise NotImplementedError

    def changed_points(self, before, after) -> list[str]:
        """The points whose content differs between two positions: those a move touched."""
        names = [point["name"] for point in self.geometry()["points"]]
        return [name for name, a, b in zip(names, self.cells(before), self.cells(after)) if a != b]


class GridGame(Game):
    """A game on a square grid whose notation is the side to move, then one group per
    row from row 1 (Three Musketeers, tic-tac-toe): its geometry, cells and terminal
    board from :attr:`grid_size` and :attr:`piece_kinds`."""

    piece_kinds: ClassVar[dict]  # notation character -> {"side", "shape", "name"}

    @property
    def grid_size(self) -> int:
        raise NotImplementedError

    def geometry(self) -> dict:
        n = self.grid_size
        return {
            "kind": "grid", "columns": n, "rows": n,
            "points": [{"name": f"{FILES[c]}{r + 1}", "x": c, "y": r}
                       for r in range(n) for c in range(n)],
            "lines": [],
            "groups": [n] * n,
            "pieces": {char: dict(kind) for char, kind in self.piece_kinds.items()},
            "hands": False,
        }

    @property
    def cell_characters(self) -> str:  # type: ignore[override]
        return "".join(self.piece_kinds) + "."

    def row_layouts(self) -> list[tuple[int, ...]]:
        return [(self.grid_size,) * self.grid_size]

    def cells(self, position) -> str:
        """The groups after the side to move, up to a character per point (not the pieces
        in hand a game writes after them: ``geometry()["hand_pieces"]``)."""
        return "".join(str(position).split()[1:])[:len(self.geometry()["points"])]

    def board_text(self, position, marked: Collection[str] = ()) -> str:
        """The board with coordinates: a header of column letters, one numbered line per
        row in the notation's order (from row 1, or Dōbutsu shōgi's from the far rank),
        then the pieces in hand of a game that writes them (``hand_pieces``)."""
        geometry, cells = self.geometry(), self.cells(position)
        names = [point["name"] for point in geometry["points"]]
        lines, at = ["    " + " ".join(FILES[:geometry["columns"]])], 0
        for n in geometry["groups"]:
            lines.append(f"{names[at][1:]:>2} " + slots(cells[at:at + n], [name in marked for name in names[at:at + n]]))
            at += n
        if geometry.get("hand_pieces"):
            hand = str(position).split()[-1]
            held = [", ".join(f"{geometry['pieces'][c]['name'].lower()} ({c})" for c in hand
                              if c in geometry["hand_pieces"] and geometry["pieces"][c]["side"] == side.value)
                    or "none" for side in self.sides]
            lines.append("in hand: " + "; ".join(f"{side.title} {text}" for side, text in zip(self.sides, held)))
        return "\n".join(lines)
