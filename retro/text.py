"""Text for every front end: outcomes, probes and batch answers, in one place.

The command line, the terminal game and the web server all print through these
helpers, so a position's value reads the same everywhere: ``E33`` for "the enemy
wins in 33 plies", ``format_probe`` for the two-line probe, ``probe_json`` for the
JSON object of ``retro probe --json`` and of the web API.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import numpy as np

from .errors import ChecksumError, DatabaseError, PositionError
from .outcome import Outcome
from .position import Move, Position, Side


def result_text(position: Position) -> str:
    """How a position stands in words: who has won, or that the game goes on."""
    winner = position.winner()
    if winner is None:
        return "the game goes on"
    return "the musketeers have won" if winner is Side.MUSKETEERS else "the enemy has won"


def outcome_code(outcome: Outcome) -> str:
    """Short form of an outcome, as the existing program prints it: ``E33``, ``M5``."""
    return f"{'M' if outcome.winner is Side.MUSKETEERS else 'E'}{outcome.plies}"


def format_probe(position: Position, outcome: Outcome, moves: list[tuple[Move, Outcome]],
                 *, one_line: bool = False) -> str:
    """Human-readable probe: the value in words, then every move with its outcome.

    ::

        M XXXXO XXXXX XXOXX XXXXX OXXXX: the enemy wins in 33 plies
        E33 -> [e1-d1 E32, e1-e2 E32, ...]

    Each move is followed by the outcome of the position it leads to (winner letter,
    plies). ``one_line=True`` joins the two lines with ``"; "`` (batch mode).
    """
    listing = ", ".join(f"{move} {outcome_code(after)}" for move, after in moves)
    first, second = f"{position}: {outcome}", f"{outcome_code(outcome)} -> [{listing}]"
    return f"{first}; {second}" if one_line else f"{first}\n{second}"


def probe_json(position: Position, outcome: Outcome, moves: list[tuple[Move, Outcome]]) -> dict:
    """``{"position", "winner", "plies", "moves": [{"move", "winner", "plies"}, ...]}``."""
    return {
        "position": str(position),
        "winner": outcome.winner.value,
        "plies": outcome.plies,
        "moves": [{"move": str(move), **after.as_dict()} for move, after in moves],
    }


@dataclass(frozen=True)
class BatchAnswer:
    """One answer line of :func:`probe_lines`; ``ok`` is False for an error line."""

    text: str
    ok: bool

    def __str__(self) -> str:
        return self.text


def probe_lines(lines: Iterable[str], databases, *, as_json: bool = False) -> Iterator[BatchAnswer]:
    """Answer one position per line of text, one answer line each (batch mode).

    Blank lines are skipped. An answer is :func:`format_probe` on one line, or
    ``json.dumps(probe_json(...))`` with ``as_json``. A line that cannot be answered
    (bad notation, illegal position, wrong board size, too many men for the file, a
    missing or foreign database for that size) gets an error line and the batch goes
    on: ``<line>: error: <message>``, or ``{"position": <line>, "error": <message>}``.
    A damaged file (:class:`~retro.storage.ChecksumError`) stops the batch.

    ``databases`` answers positions of every board size the lines hold: a
    :class:`~retro.probe.Database` (one size), a :class:`~retro.probe.DatabasePool`
    or a function from board size to database.
    """
    if hasattr(databases, "probe"):
        get = lambda size: databases  # noqa: E731
    elif hasattr(databases, "get"):
        get = databases.get
    else:
        get = databases
    for line in lines:
        text = line.strip()
        if not text:
            continue
        try:
            position = Position.parse(text)
            db = get(position.size)
            outcome = db.probe(position)
            moves = db.moves(position)
        except ChecksumError:
            raise
        except (PositionError, DatabaseError) as error:
            if as_json:
                yield BatchAnswer(json.dumps({"position": text, "error": str(error)}), False)
            else:
                yield BatchAnswer(f"{text}: error: {error}", False)
            continue
        if as_json:
            yield BatchAnswer(json.dumps(probe_json(position, outcome, moves)), True)
        else:
            yield BatchAnswer(format_probe(position, outcome, moves, one_line=True), True)


# --- JSON answers of the web API ---------------------------------------------------
#
# The web API answers with the object of ``retro probe --json`` plus a few fields; the
# helpers below build those objects so the server holds no formatting of its own.


def position_text(side: Side, musketeers: int, enemies: int, size: int) -> str:
    """``str(Position(side, musketeers, enemies, size))`` for valid bitboards, faster.

    A probe answer names the position after each legal move; building and printing a
    :class:`Position` for each costs more than the probe itself, so rows are looked up
    whole in a table (``(musketeer row bits << size) | enemy row bits`` -> text).
    """
    return _formatter(size)(side.letter, musketeers, enemies)


@cache
def _formatter(size: int):
    texts = []
    for index in range(1 << (2 * size)):
        m, e = index >> size, index & ((1 << size) - 1)
        texts.append("".join("O" if m >> c & 1 else "X" if e >> c & 1 else "." for c in range(size)))
    table, mask, shifts = tuple(texts), (1 << size) - 1, range(0, size * size, size)

    def text(letter: str, m: int, e: int) -> str:
        return letter + " " + " ".join([table[(((m >> s) & mask) << size) | ((e >> s) & mask)]
                                        for s in shifts])

    return text


def link_text(position: Position) -> str:
    """The position with ``_`` between its groups, for URLs: ``M_XXXXO_XXXXX_...``."""
    return str(position).replace(" ", "_")


def finish_text(position: Position) -> str | None:
    """Why a finished position is finished, in words; None while the game goes on."""
    winner = position.winner()
    if winner is None:
        return None
    if winner is Side.ENEMY:
        return "the three musketeers stand in one row or column: the enemy has won"
    if position.side is Side.MUSKETEERS:
        return "the musketeers have no enemy man next to them to capture: the musketeers have won"
    return "the enemy has no man that can move: the musketeers have won"


def move_json(move: Move, after: Position | str, outcome: Outcome) -> dict:
    """``{"move", "position", "winner", "plies"}``: a move, where it leads and that position's value."""
    return {"move": str(move), "position": str(after), **outcome.as_dict()}


def probe_answer(position: Position, outcome: Outcome, moves: list[tuple[Move, Outcome]],
                 after: list[str]) -> dict:
    """The web API's probe object: :func:`probe_json` plus the side to move, the board
    size, the value in words, whether (and why) the game is over, and for each move the
    position it leads to (``after``, in the order of ``moves``)."""
    answer = probe_json(position, outcome, moves)
    answer["moves"] = [{"move": entry["move"], "position": text, "winner": entry["winner"],
                        "plies": entry["plies"]} for entry, text in zip(answer["moves"], after)]
    reason = finish_text(position)
    return {
        "position": answer["position"],
        "size": position.size,
        "side": position.side.value,
        "winner": answer["winner"],
        "plies": answer["plies"],
        "value": str(outcome),
        "over": reason is not None,
        "result": reason if reason is not None else result_text(position),
        "moves": answer["moves"],
    }


def line_json(position: Position, outcome: Outcome,
              steps: list[tuple[Move, Position, Outcome]]) -> dict:
    """``{"position", "winner", "plies", "value", "line": [move_json, ...]}`` of a principal line."""
    return {
        "position": str(position),
        **outcome.as_dict(),
        "value": str(outcome),
        "line": [move_json(move, after, value) for move, after, value in steps],
    }


def parse_canonical(texts: list[str | None]) -> dict[int, tuple[np.ndarray, ...]]:
    """Parse the texts that are positions in canonical notation, a whole array at once.

    Canonical is exactly what ``str(position)`` prints: ``M`` or ``E``, then one group
    per row, single spaces, ``O``/``X``/``.``, exactly three musketeers. For those
    texts the result is what :meth:`Position.parse` gives, about 20 times faster, for
    batches; anything else (None, other spacing, any error) is left out, for
    :meth:`Position.parse` to parse or to explain.

    Returns ``{size: (index, side, musketeers, enemies, enemy_men)}``, int64 arrays:
    the indices in ``texts`` of the canonical positions of that board size, and
    their side code (0 musketeers, 1 enemy), bitboards and enemy counts.
    """
    lengths = {1 + n * (n + 1): n for n in (3, 4, 5)}
    groups: dict[int, list[int]] = {}
    for i, text in enumerate(texts):
        if text is not None and len(text) in lengths and text.isascii():
            groups.setdefault(lengths[len(text)], []).append(i)
    parsed = {}
    for n, index in groups.items():
        width = 1 + n * (n + 1)
        rows = np.frombuffer("".join([texts[i] for i in index]).encode("ascii"),
                             dtype=np.uint8).reshape(-1, width)
        gaps = np.arange(1, width, n + 1)
        cells = rows[:, [g + 1 + c for g in gaps for c in range(n)]]
        musketeer, enemy = cells == ord("O"), cells == ord("X")
        ok = (((rows[:, 0] == ord("M")) | (rows[:, 0] == ord("E")))
              & (rows[:, gaps] == ord(" ")).all(axis=1)
              & (musketeer | enemy | (cells == ord("."))).all(axis=1)
              & (np.count_nonzero(musketeer, axis=1) == 3))
        parsed[n] = (np.asarray(index, dtype=np.int64)[ok],
                     (rows[ok, 0] == ord("E")).astype(np.int64),
                     _bitboards(musketeer[ok]), _bitboards(enemy[ok]),
                     np.count_nonzero(enemy[ok], axis=1).astype(np.int64))
    return parsed


def _bitboards(cells: np.ndarray) -> np.ndarray:
    """int64 bitboards of boolean rows (cell i is bit i)."""
    packed = np.packbits(cells, axis=1, bitorder="little")
    wide = np.zeros((len(cells), 8), dtype=np.uint8)
    wide[:, :packed.shape[1]] = packed
    return wide.view("<i8").ravel().astype(np.int64)


def analysis_text(report: dict) -> str:
    """The text report of ``retro analyze`` (see :func:`retro.analyze.analyze`)."""
    n = report["board_size"]
    lines = [f"{report['path']}: {n}x{n}, layers 0..{report['max_guards']}, "
             f"{report['positions']['entries']:,} table entries, "
             f"{report['positions']['distinct']:,} distinct positions"]
    names = {"musketeers_to_move": "musketeers to move", "enemy_to_move": "enemy to move"}
    for key, name in names.items():
        side = report["sides"][key]
        entries, distinct = side["entries"], side["distinct"]
        lines.append(f"\n{name}:")
        lines.append(f"  won by the musketeers: {entries['musketeers']:,} entries, "
                     f"{distinct['musketeers']:,} distinct")
        lines.append(f"  won by the enemy:      {entries['enemy']:,} entries, "
                     f"{distinct['enemy']:,} distinct")
        for winner in ("musketeers", "enemy"):
            longest = side["longest"][winner]
            if longest:
                lines.append(f"  longest {winner} win: {longest['plies']} plies, "
                             f"e.g. {longest['position']}")
        if side.get("reachable_distinct") is not None:
            lines.append(f"  reachable from the start: {side['reachable_distinct']:,} distinct "
                         f"({100 * side['reachable_share']:.1f}% of all)")
        lines.append(f"  {'':>9}   {'musketeers win':^29}   {'enemy wins':^29}".rstrip())
        lines.append(f"  {'enemy men':>9}   {'entries':>14} {'distinct':>14}   "
                     f"{'entries':>14} {'distinct':>14}   {'reachable':>10}")
        for layer in side["by_enemy_count"]:
            entries, won = layer["entries"], layer["distinct"]
            reached = layer.get("reachable_distinct")
            lines.append(f"  {layer['enemy_men']:>9}   {entries['musketeers']:>14,} "
                         f"{won['musketeers']:>14,}   {entries['enemy']:>14,} {won['enemy']:>14,}"
                         f"   {'' if reached is None else format(reached, ','):>10}")
        plies = side["plies"]
        lines.append(f"  {'plies':>9}   {'musketeers win':>14}   {'enemy wins':>14}   (distinct)")
        for ply, (m, e) in enumerate(zip(plies["musketeers"]["distinct"],
                                         plies["enemy"]["distinct"])):
            if m or e:
                lines.append(f"  {ply:>9}   {m:>14,}   {e:>14,}")
    reach = report.get("reachable")
    if reach:
        lines.append(f"\nreachable from {reach['start']}: {reach['distinct']['total']:,} "
                     f"distinct positions, {100 * reach['share']['total']:.1f}% of all "
                     f"positions with 0..{reach['max_enemy_men']} enemy men")
    return "\n".join(lines)
