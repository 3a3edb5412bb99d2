"""Text for every front end: outcomes, probes and batch answers, in one place.

The command line, the terminal game and the web server all print through these
helpers, so a position's value reads the same everywhere: ``E33`` for "the enemy
wins in 33 plies" (``X5``, ``D`` for a draw), ``format_probe`` for the two-line
probe, ``probe_json`` for the JSON object of ``retro probe --json`` and of the web API.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from numba import njit

from . import games
from .errors import ChecksumError, DatabaseError, PositionError, echoed
from .games.musketeers.position import Position, Side
from .values import Outcome, Standing, won_text

GOES_ON = "the game goes on"  # what result_text says of a position that is not over
ECHO_LIMIT = 40  # characters of a bad batch line repeated in its error line (as quoted)


def result_text(position) -> str:
    """How a position stands in words: who has won, a draw, or that the game goes on."""
    if not position.is_over():
        return GOES_ON
    winner = position.winner()
    return "the game has ended in a draw" if winner is None else won_text(winner)


def outcome_code(outcome: Outcome) -> str:
    """Short form of an outcome, as the existing program prints it: ``E33``, ``M5``, ``D``."""
    return outcome.code()


def format_probe(position, outcome: Outcome, moves: list, *, one_line: bool = False) -> str:
    """Human-readable probe: the value in words, then every move with its outcome.

    ::

        M XXXXO XXXXX XXOXX XXXXX OXXXX: the enemy wins in 33 plies
        E33 -> [e1-d1 E32, e1-e2 E32, ...]

    Each move is followed by the outcome of the position it leads to (winner letter,
    plies; ``D`` for a draw). ``one_line=True`` joins the two lines with ``"; "``
    (batch mode).
    """
    listing = ", ".join(f"{move} {outcome_code(after)}" for move, after in moves)
    first, second = f"{position}: {outcome}", f"{outcome_code(outcome)} -> [{listing}]"
    if isinstance(outcome, Standing):  # every player's value: "L16 L14 L8 L22"
        first += f" ({position.side.title} to move)"
    return f"{first}; {second}" if one_line else f"{first}\n{second}"


def probe_json(position, outcome: Outcome, moves: list, game=None) -> dict:
    """``{"position", "game", "winner", "plies", "moves": [{"move", "winner", "plies"}, ...]}``.

    ``winner`` is a side's name, or None for a draw (``plies`` None too). Three
    Musketeers' object keeps the form of retro 0.2, without ``game``. A game of more
    than two players answers ``{"position", "game", "to_move", "values": {"P1":
    {"result", "plies"}, ...}, "moves": [{"move", "position", "values"}, ...]}``.
    """
    if isinstance(outcome, Standing):
        return {"position": str(position), "game": game.full_name, "to_move": position.side.value,
                "values": outcome.as_dict(),
                "moves": [{"move": str(move), "position": str(position.play(move)),
                           "values": after.as_dict()} for move, after in moves]}
    head = {"position": str(position)}
    if game is not None and game.name != games.DEFAULT_GAME:
        head["game"] = game.full_name
    return {
        **head,
        **outcome.as_dict(),
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
    (bad notation, illegal position, another game or board size, too many men for
    the file, a missing or foreign database for that game) gets an error line and the
    batch goes on: ``<line>: error: <message>``, or ``{"position": <line>, "error":
    <message>}``, the line cut after 40 characters (then ``...``) as messages quote
    it, and in text its invisible characters escaped (:func:`~retro.errors.echoed`).
    A damaged file (:class:`~retro.errors.ChecksumError`) stops the batch.

    ``databases`` answers the positions: a :class:`~retro.db.database.Database` (one
    game) or a :class:`~retro.db.database.DatabasePool` (the game of each line, from
    its notation).
    """
    for line in lines:
        text = line.strip()
        if not text:
            continue
        try:
            if hasattr(databases, "resolve"):
                db, position = databases.resolve(text)
            else:
                db, position = databases, databases._position(text)
            outcome = db.probe(position)
            moves = db.moves(position)
        except ChecksumError:
            raise
        except (PositionError, DatabaseError, ValueError) as error:  # ValueError: any bad input
            if as_json:
                shown = text if len(text) <= ECHO_LIMIT else text[:ECHO_LIMIT] + "..."
                yield BatchAnswer(json.dumps({"position": shown, "error": str(error)}), False)
            else:
                yield BatchAnswer(f"{echoed(text, ECHO_LIMIT)}: error: {error}", False)
            continue
        if as_json:
            yield BatchAnswer(json.dumps(probe_json(position, outcome, moves, db.game)), True)
        else:
            yield BatchAnswer(format_probe(position, outcome, moves, one_line=True), True)


# --- JSON answers of the web API ---------------------------------------------------
#
# The web API answers with the object of ``retro probe --json`` plus a few fields; the
# helpers below build those objects so the server holds no formatting of its own.


# A batch result of POST /api/v1/probe after its position text, by the encoded value
# 2 * plies + (1 if the musketeers win): '","winner":"enemy","plies":33}'.
BATCH_RESULT_ENDINGS = [f'","winner":"{"musketeers" if v & 1 else "enemy"}","plies":{v >> 1}}}'
                        for v in range(256)]


def link_text(position: Position) -> str:
    """The position with ``_`` between its groups, for URLs: ``M_XXXXO_XXXXX_...``."""
    return str(position).replace(" ", "_")


def finish_text(position, game=None) -> str | None:
    """Why a finished position is finished, in words; None while the game goes on."""
    if not position.is_over():
        return None
    if game is None:
        game = games.get()
    return game.finished_reason(position)


def value_json(outcome: Outcome | Standing) -> dict:
    """``{"winner", "plies"}`` of an outcome (None for a draw); for a game of more than two
    players also ``"values"`` (each player's), ``winner`` being the player who can force
    a win, if any."""
    if isinstance(outcome, Standing):
        winner = outcome.winner
        return {"winner": None if winner is None else winner.value, "plies": outcome.plies,
                "values": outcome.as_dict()}
    return outcome.as_dict()


def move_json(move, after, outcome: Outcome | Standing, written: str | None = None) -> dict:
    """``{"move", ["san",] "position", "winner", "plies"}``: a move (and as players write
    it, where the game's notation differs: chess's SAN), where it leads and that
    position's value (``winner`` and ``plies`` None for a draw; see :func:`value_json`)."""
    return {"move": str(move), **({"san": written} if written is not None else {}), "position": str(after),
            **value_json(outcome)}


def probe_answer(position, outcome: Outcome, children: list, game=None) -> dict:
    """The web API's probe object: :func:`probe_json` plus the side to move, the board
    size (Three Musketeers) or the game (the others), the value in words, whether (and
    why) the game is over, and for each move the position it leads to (``children`` as
    :meth:`retro.db.database.Database.children` gives them)."""
    # A position with moves goes on; only one without needs the rules to say why it ended.
    reason = None if children else finish_text(position, game)
    where = ({"size": position.size} if game is None or game.name == games.DEFAULT_GAME
             else {"game": game.full_name})
    rules = game or games.get()
    lines = rules.marked_lines(position)
    check = rules.checked_points(position)
    return {
        "position": str(position),
        **where,
        "side": position.side.value,
        **value_json(outcome),
        "value": outcome.summary() if isinstance(outcome, Standing) else str(outcome),
        "over": reason is not None,
        "result": reason if reason is not None else GOES_ON,
        "moves": [move_json(move, after, value, rules.written_move(position, move)) for move, after, value in children],
        **({"lines": lines} if lines else {}),
        **({"check": check} if check else {}),
    }


def probe_answer_bytes(position: Position, outcome: Outcome, rows: np.ndarray) -> bytes:
    """``json.dumps(probe_answer(...), separators=(",", ":"))``, encoded, from the
    children as :meth:`retro.probe.Database.child_rows` gives them: the same bytes,
    several times faster (the server's hot path; a test holds the two equal)."""
    if len(rows) == 0:  # finished: the rules say why
        return json.dumps(probe_answer(position, outcome, []), separators=(",", ":")).encode()
    n, side = position.size, position.side
    fixed = _PROBE_FIXED.get((n, side, outcome))
    if fixed is None:
        text = (f'","size":{n},"side":"{side.value}","winner":"{outcome.winner.value}",'
                f'"plies":{outcome.plies},"value":"{outcome}","over":false,'
                f'"result":"{GOES_ON}","moves":')
        fixed = _PROBE_FIXED[(n, side, outcome)] = (
            np.frombuffer(text.encode(), dtype=np.uint8), ord(side.letter), ord(side.other.letter))
    middle, letter, child_letter = fixed
    buffer = np.empty(len(middle) + (len(rows) + 1) * _MOVE_JSON_BYTES, dtype=np.uint8)
    used = _probe_json(position.musketeers, position.enemies, letter, child_letter, n, middle,
                       rows, buffer)
    return buffer[:used].tobytes()


# By board size, side to move and value: the fields between the position and its moves
# (as bytes), and the letters of the side to move before and after a move.
_PROBE_FIXED: dict[tuple[int, Side, Outcome], tuple[np.ndarray, int, int]] = {}
_MOVE_JSON_BYTES = 128  # at most, for one move: 5x5 needs 96
_KEYS_JSON = (np.frombuffer(b'{"position":"', dtype=np.uint8),
              np.frombuffer(b'{"move":"', dtype=np.uint8),
              np.frombuffer(b'","position":"', dtype=np.uint8),
              np.frombuffer(b'","winner":"enemy","plies":', dtype=np.uint8),
              np.frombuffer(b'","winner":"musketeers","plies":', dtype=np.uint8))


@njit(cache=True)
def _put(buffer, at, text):
    for i in range(len(text)):
        buffer[at + i] = text[i]
    return at + len(text)


@njit(cache=True)
def _put_position(buffer, at, letter, musketeers, enemies, n):
    """The notation of a position (``M XXXXO ...``)."""
    buffer[at] = letter
    at += 1
    for square in range(n * n):
        if square % n == 0:
            buffer[at] = ord(" ")
            at += 1
        if (musketeers >> square) & 1:
            buffer[at] = ord("O")
        elif (enemies >> square) & 1:
            buffer[at] = ord("X")
        else:
            buffer[at] = ord(".")
        at += 1
    return at


@njit(cache=True)
def _probe_json(musketeers, enemies, letter, child_letter, n, middle, rows, buffer):
    """Write the probe answer to ``buffer``; the number of bytes. ``middle`` holds the
    fields between the position and its moves, ``rows`` the moves (child_rows)."""
    position_key, move_key, child_key, enemy_wins, musketeers_win = _KEYS_JSON
    at = _put(buffer, 0, position_key)
    at = _put_position(buffer, at, letter, musketeers, enemies, n)
    at = _put(buffer, at, middle)
    buffer[at] = ord("[")
    at += 1
    for i in range(len(rows)):
        if i:
            buffer[at] = ord(",")
            at += 1
        at = _put(buffer, at, move_key)
        for square in (rows[i, 0], rows[i, 1]):
            buffer[at] = ord("a") + square % n
            buffer[at + 1] = ord("1") + square // n
            buffer[at + 2] = ord("-")
            at += 3
        at = _put(buffer, at - 1, child_key)
        at = _put_position(buffer, at, child_letter, rows[i, 2], rows[i, 3], n)
        value = rows[i, 4]
        at = _put(buffer, at, musketeers_win if value & 1 else enemy_wins)
        plies = value >> 1
        if plies >= 100:
            buffer[at] = ord("0") + plies // 100
            at += 1
        if plies >= 10:
            buffer[at] = ord("0") + plies // 10 % 10
            at += 1
        buffer[at] = ord("0") + plies % 10
        buffer[at + 1] = ord("}")
        at += 2
    buffer[at] = ord("]")
    buffer[at + 1] = ord("}")
    return at + 2


def line_json(position, outcome: Outcome, steps: list, game=None) -> dict:
    """``{"position", ["game",] "winner", "plies", "value", "line": [move_json, ...]}`` of a
    principal line (a drawn line stops when a position comes back); a step whose position
    has lines to mark (a finishing line, standing mills) carries them as ``lines``."""
    rules = game or games.get()
    line = []
    before = position
    for move, after, value in steps:
        step = move_json(move, after, value, rules.written_move(before, move))
        before = after
        lines = rules.marked_lines(after)
        line.append({**step, "lines": lines} if lines else step)
    return {
        "position": str(position),
        **({} if game is None or game.name == games.DEFAULT_GAME else {"game": game.full_name}),
        **value_json(outcome),
        "value": outcome.summary() if isinstance(outcome, Standing) else str(outcome),
        "line": line,
    }


def analysis_text(report: dict) -> str:
    """The text report of ``retro analyze`` (see :func:`retro.analyze.analyze`)."""
    n = report["board_size"]
    lines = [f"{report['path']}: {n}x{n}, layers 0..{report['max_enemy_men']}, "
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
