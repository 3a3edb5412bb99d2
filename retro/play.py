"""A terminal game against the perfect player: the engine behind ``retro play``.

:func:`play_game` runs one game of any game on text streams: it shows one board a turn
with its coordinates (rows numbered from 1 at the top, as in the notation; columns a,
b, ...) and the last move's points in brackets, reads the human's moves (``c3-c2``,
``c3c2``, ``b2``) and commands (see :data:`COMMANDS`), answers with the computer's
moves, and ends with the result in the player's words and the score.

How the computer chooses (:func:`computer_move`):

* **When it can win** it plays a fastest win: among the moves after which it still
  wins, those with the fewest plies to the end; equally fast wins are chosen at
  random (with the game's seed).
* **When it can draw but not win** it plays a drawing move, the one that sets the
  opponent the most chances to go wrong (as below).
* **When it cannot win** (every move loses against perfect play) it plays for the
  opponent's mistakes instead of moving meaninglessly. For each of its moves it
  counts the opponent's legal replies and, among them, the *blunders*: the replies
  after which the computer wins. It picks the move with

  1. the highest share of blunders among the opponent's replies (a move after which
     the opponent has no reply, because the game is over, has share 0);
  2. then the longest resistance: the most plies to the end under perfect play;
  3. then at random among the moves still equal (with the game's seed).

Without a random generator (``rng=None``) ties go to the first move in
:meth:`~retro.db.database.Database.moves` order, so the choice is deterministic.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import TextIO

import numpy as np

from .db.database import RNG, Database, GameOverError, choose
from .errors import IllegalMoveError, NotationError, UnknownCommandError, quoted  # re-exported
from .text import format_probe
from .values import Outcome, Standing

COMMANDS = {
    "hint": "show a best move",
    "eval": "show who wins from here and every move's outcome",
    "value": "show the value after every move, or stop showing it",
    "moves": "show the moves played so far",
    "undo": "take back your last move (and the computer's answer)",
    "help": "show this list",
    "quit": "end the game",
}
REPETITIONS = 3  # the same position this many times (same side to move) is a draw


@dataclass(frozen=True)
class Chances:
    """One move of a side that cannot win, and the opponent's chances to go wrong after it."""

    move: object
    outcome: Outcome  # of the position after the move (the opponent to move)
    replies: int  # the opponent's legal replies
    blunders: int  # replies after which the mover wins

    @property
    def share(self) -> Fraction:
        """Blunders per reply (0 when the opponent has no reply)."""
        return Fraction(self.blunders, self.replies) if self.replies else Fraction(0)


def chances(db: Database, position, moves: list | None = None) -> list[Chances]:
    """Legal moves of ``position`` (every one, or those of ``moves``: ``(move, after,
    outcome)`` as :meth:`~retro.db.database.Database.children` gives them) with the
    opponent's replies and blunders after each, in that order. A blunder is a reply
    after which the side to move in ``position`` wins under perfect play.
    """
    position = db._position(position)
    mover = position.side
    steps = db.children(position) if moves is None else moves
    replies, owners = [], []
    for number, (_, after, _) in enumerate(steps):
        for reply in after.legal_moves():
            replies.append(after.play(reply))
            owners.append(number)
    counts = np.zeros(len(steps), dtype=np.int64)
    blunders = np.zeros(len(steps), dtype=np.int64)
    if replies:
        first_wins, plies = db.probe_many(replies)
        mover_wins = (first_wins if mover.code == 0 else ~first_wins & (plies >= 0))
        owner = np.array(owners)
        counts = np.bincount(owner, minlength=len(steps))
        blunders = np.bincount(owner, weights=mover_wins.astype(np.int64),
                               minlength=len(steps)).astype(np.int64)
    return [Chances(move, outcome, int(r), int(k))
            for (move, _, outcome), r, k in zip(steps, counts, blunders)]


def computer_move(db: Database, position, rng: RNG = None):
    """The computer's choice in ``position`` (see the module docstring for the rule).

    Raises :class:`~retro.db.database.GameOverError` when the game is over.
    """
    position = db._position(position)
    if db.game.players > 2:  # the perfect player of every player (retro.db.players)
        return db.best_move(position, rng)
    best = db.best_moves(position)
    if best[0][1].winner is position.side:
        return choose(best, rng)[0]
    if best[0][1].winner is None:  # a draw: the drawing move that sets the most traps
        drawing = [step for step in db.children(position) if step[2].winner is None]
        options = chances(db, position, drawing)
        top = max(c.share for c in options)
        return choose([c for c in options if c.share == top], rng).move
    options = chances(db, position)
    top = max((c.share, c.outcome.plies) for c in options)
    return choose([c for c in options if (c.share, c.outcome.plies) == top], rng).move


def board_text(position, game=None) -> str:
    """The board with coordinates: a header of column letters, one numbered line per row."""
    from . import games

    if game is None:
        game, position = games.identify(str(position))
    return game.board_text(position)


def _describe(outcome: Outcome | Standing, human) -> str:
    if isinstance(outcome, Standing):  # every player's value: the human's first
        own = outcome[human]
        verdict = {"win": "you win", "loss": "you lose", "draw": "nobody can force the end"}[own.result]
        others = "; ".join(str(v) for v in outcome if v.player is not human)
        return f"{own}: {verdict} with perfect play ({others})"
    if outcome.winner is None:
        return f"{outcome} with perfect play"
    verdict = "you win" if outcome.winner is human else "you lose"
    if outcome.plies == 0:
        return f"{outcome}: {verdict}"
    return f"{outcome}: {verdict} with perfect play"


def verdict(game, position, human) -> str:
    """The end of a game in the player's words: ``You win: <why>.``, ``You lose: ...``
    or ``A draw: ...``."""
    winner = position.winner()
    nobody = "Nobody wins" if game.players > 2 else "A draw"
    words = nobody if winner is None else "You win" if winner is human else "You lose"
    return f"{words}: {game.finished_reason(position).split(':')[0]}."


def score(moves: list, first_side) -> str:
    """Moves played as a numbered score: ``1. e1-d1 d2-d1 2. c3-c2`` (``1. ... d2-d1``
    when the game began with another side to move); a number per round of every side."""
    parts, number = [], 1
    last = len(type(first_side)) - 1
    for i, (side, move) in enumerate(moves):
        if side is first_side or i == 0:
            parts.append(f"{number}." if side is first_side else f"{number}. ...")
        parts.append(str(move))
        if side.code == last:
            number += 1
    return " ".join(parts)


def side_named(game, name) -> object:
    """The side of ``game`` that ``name`` names (its name or letter, any case)."""
    if isinstance(name, game.sides):
        return name
    for side in game.sides:
        if str(name).strip().lower() in (side.value.lower(), side.letter.lower()):
            return side
    sides = ", ".join(side.value for side in game.sides)
    raise NotationError(f"{quoted(str(name))} is not a side of {game.title}: use {sides}")


def play_game(db: Database, human=None, start=None, seed: int | None = None,
              input_stream: TextIO | None = None, output_stream: TextIO | None = None, *,
              strict: bool = False, show_value: bool = False) -> int:
    """Play one game between a human (on the streams) and the perfect player; exit code 0.

    ``human`` is the side the human plays (a side of the database's game, or its name;
    default: the side that moves first); ``start`` the starting position (default: the
    start of the game); ``seed`` makes the computer's choices among equally good moves
    reproducible (None: they vary from game to game); ``show_value`` prints the value
    under the board after every move (the ``value`` command turns it on and off).

    Each turn prints one board, the last move's points in brackets. The game ends when
    it is over, when a position stands for the third time with the same side to move (a
    draw), on ``quit``, or at the end of the input. An illegal move or unknown command
    gets a one-line explanation and the prompt again; with ``strict=True`` (scripted,
    non-interactive input) it raises :class:`~retro.errors.IllegalMoveError` or
    :class:`UnknownCommandError` instead. On a terminal the prompt has line editing,
    history and completion of moves and commands (Tab), where Python has ``readline``.

    Raises :class:`~retro.errors.BoardMismatchError` (or another database error)
    before the game starts when ``start`` cannot be probed in ``db``.
    """
    game = db.game
    inp = input_stream if input_stream is not None else sys.stdin
    out = output_stream if output_stream is not None else sys.stdout
    human = side_named(game, human) if human is not None else game.sides.from_code(0)
    position = db._position(game.start() if start is None else start)
    db.probe(position)  # refuses a position the database cannot answer, before any output
    rng = np.random.default_rng(seed)
    computers = [side for side in game.sides if side is not human]
    echo = not _is_terminal(inp)
    first_side = game.sides.from_code(0)  # numbers the score: "1." is its move
    played: list = []  # (side, move) from the start
    undo_points: list = []  # (position, moves played) before each of the human's moves
    seen: dict[str, int] = {str(position): 1}  # how often each position has stood
    marked: list[str] = []
    read = _prompter(inp, out, lambda: [str(m) for m in position.legal_moves()] + list(COMMANDS))

    def say(text: str = "") -> None:
        print(text, file=out)

    def show() -> None:
        say()
        say(game.board_text(position, marked))
        say(f"position: {position}")
        if show_value and not position.is_over():
            say(f"value: {_describe(db.probe(position), human)}")

    def example() -> str:
        return _example(position, human)

    say(f"You play {_side_words(game, human)}; the computer plays "
        f"{', '.join(_side_words(game, side) for side in computers)}.")
    if position.side is human or position.is_over():
        show()
    introduced = False
    while True:
        if position.is_over() or seen.get(str(position), 0) >= REPETITIONS:
            say(verdict(game, position, human) if position.is_over()
                else f"A draw: the same position has stood {REPETITIONS} times.")
            if played:
                say(f"moves: {score(played, first_side)}")
            return 0
        if position.side is not human:
            move = computer_move(db, position, rng)
            position, marked = _advance(game, position, move, played, seen)
            say(f"The computer plays {move}.")
            show()
            continue
        if not introduced:  # the example is one of the human's moves here
            say(f"Enter moves like '{example()}'{_forms(example())}, or: {', '.join(COMMANDS)}.")
            introduced = True
        line = read(f"your move ({human.value}): ")
        if echo and line:  # a transcript of scripted input reads like a terminal session
            out.write(line if line.endswith("\n") else line + "\n")
        if not line:
            say()
            say("end of input: game abandoned")
            return 0
        command = line.strip().lower()
        if not command:
            continue
        if command in ("quit", "exit"):
            say("game abandoned")
            return 0
        if command in ("help", "?"):
            for name, text in COMMANDS.items():
                say(f"  {name:<5} {text}")
            say(f"  or a move such as {example()}{_forms(example())}")
        elif command == "hint":
            move, after = db.best_moves(position)[0]
            say(f"hint: {move}, then {_describe(after, human)}")
        elif command == "eval":
            outcome = db.probe(position)
            say(f"eval: {_describe(outcome, human)}")
            say(format_probe(position, outcome, db.moves(position)).splitlines()[1])
        elif command == "value":
            show_value = not show_value
            say(f"value: {_describe(db.probe(position), human)}" if show_value
                else "the value is hidden (value shows it again)")
        elif command == "moves":
            say(f"moves: {score(played, first_side)}" if played else "no move played yet")
        elif command == "undo":
            if not undo_points:
                say("nothing to undo")
            else:
                position, count = undo_points.pop()
                for text in _positions_after(position, played[count:]):
                    seen[text] -= 1
                del played[count:]
                marked = []
                say("undone: your last move and the computer's answer"
                    + ("s" if len(computers) > 1 else ""))
                show()
        else:
            try:
                move = game.parse_move(command)
                position.play(move)
            except IllegalMoveError as error:
                if strict:
                    raise
                say(str(error))
                continue
            except NotationError as error:
                message = (f"{quoted(command)} is neither a move like '{example()}' nor a command "
                           f"({', '.join(COMMANDS)})")
                if strict:
                    raise UnknownCommandError(message) from error
                say(message)
                continue
            undo_points.append((position, len(played)))
            position, marked = _advance(game, position, move, played, seen)
            if position.is_over() or seen[str(position)] >= REPETITIONS:
                show()  # the game ends on the human's move: its board


def _advance(game, position, move, played: list, seen: dict) -> tuple:
    """Play ``move``: the position after it and the points it touched; ``played`` and
    ``seen`` (the positions' counts) are updated."""
    after = position.play(move)
    played.append((position.side, move))
    seen[str(after)] = seen.get(str(after), 0) + 1
    return after, game.changed_points(position, after)


def _positions_after(position, moves: list) -> list[str]:
    """The positions (as text) that ``moves`` lead through from ``position``."""
    out = []
    for _, move in moves:
        position = position.play(move)
        out.append(str(position))
    return out


def _side_words(game, side) -> str:
    """``the enemy (X)``: a side's name and the character of its pieces."""
    glyph = _glyph(game, side)
    return side.title if glyph == side.title else f"{side.title} ({glyph})"


def _forms(move: str) -> str:
    """The other spellings of a move that are accepted, for the prompt."""
    if "-" in move:
        source, target = move.split("-", 1)
        return f" (or {source}{target})"
    return ""


def _prompter(inp: TextIO, out: TextIO, words):
    """A function ``prompt -> line`` ('' at the end of the input). On a terminal it is
    :func:`input` with readline's editing, history and Tab completion of ``words()``."""
    if inp is sys.stdin and out is sys.stdout and _is_terminal(inp) and _is_terminal(out):
        try:
            import readline
        except ImportError:  # not every Python has it (Windows)
            readline = None
        if readline is not None:
            def complete(text: str, state: int):
                options = [w for w in words() if w.startswith(text.lower())]
                return options[state] if state < len(options) else None

            readline.set_completer(complete)
            readline.set_completer_delims(" ")
            readline.parse_and_bind("tab: complete")

        def read(prompt: str) -> str:
            try:
                return input(prompt) + "\n"
            except EOFError:
                return ""

        return read

    def read(prompt: str) -> str:
        out.write(prompt)
        out.flush()
        return inp.readline()

    return read


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _glyph(game, side) -> str:
    """The character that stands for ``side``'s pieces in the notation."""
    for char, piece in game.geometry()["pieces"].items():
        if piece["side"] == side.value:
            return char
    return side.letter


def _example(position, side) -> str:
    """A legal move of ``side`` to show as an example: one of its moves here, or after
    the opponent's first move when the opponent is to move."""
    for _ in range(len(type(side))):  # the side's moves here, or after the others' first moves
        moves = position.legal_moves()
        if position.side is side or not moves:
            break
        position = position.play(moves[0])
    return str(moves[0]) if moves and position.side is side else "c3-c2"


__all__ = [
    "COMMANDS",
    "Chances",
    "GameOverError",
    "UnknownCommandError",
    "board_text",
    "chances",
    "computer_move",
    "play_game",
    "side_named",
]
