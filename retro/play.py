"""A terminal game against the perfect player: the engine behind ``retro play``.

:func:`play_game` runs one game of any game on text streams: it shows the board with
its coordinates (rows numbered from 1 at the top, as in the notation; columns a, b,
...), reads the human's moves (``c3-c2``, ``b2``) and commands (``hint``, ``eval``,
``undo``, ``help``, ``quit``), and answers with the computer's moves.

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
from .text import format_probe, result_text
from .values import Outcome

COMMANDS = {
    "hint": "show a best move",
    "eval": "show who wins from here and every move's outcome",
    "undo": "take back your last move (and the computer's answer)",
    "help": "show this list",
    "quit": "end the game",
}


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


def _describe(outcome: Outcome, human) -> str:
    if outcome.winner is None:
        return f"{outcome} with perfect play"
    verdict = "you win" if outcome.winner is human else "you lose"
    if outcome.plies == 0:
        return f"{outcome}: {verdict}"
    return f"{outcome}: {verdict} with perfect play"


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
              strict: bool = False) -> int:
    """Play one game between a human (on the streams) and the perfect player; exit code 0.

    ``human`` is the side the human plays (a side of the database's game, or its name;
    default: the side that moves first); ``start`` the starting position (default: the
    start of the game); ``seed`` makes the computer's choices among equally good moves
    reproducible (None: they vary from game to game). The game ends when it is over, on
    ``quit``, or at the end of the input. An illegal move or unknown command gets a
    one-line explanation and the prompt again; with ``strict=True`` (scripted,
    non-interactive input) it raises :class:`~retro.errors.IllegalMoveError` or
    :class:`UnknownCommandError` instead.

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
    computer = human.other
    echo = not _is_terminal(inp)

    def say(text: str = "") -> None:
        print(text, file=out)

    glyph = _glyph(game, human)
    say(f"You play {human.title}{f' ({glyph})' if glyph != human.title else ''}; "
        f"the computer plays {computer.title}. Enter moves like "
        f"'{_example(position, human)}', or: {', '.join(COMMANDS)}.")
    history: list = []  # positions where the human was to move, before their move
    show = True
    while True:
        if show:
            say()
            say(game.board_text(position))
            say(f"position: {position}")
            show = False
        if position.is_over():
            winner = position.winner()
            verdict = ("a draw" if winner is None else "you win" if winner is human
                       else "the computer wins")
            say(f"game over: {result_text(position)} ({verdict})")
            return 0
        if position.side is computer:
            move = computer_move(db, position, rng)
            position = position.play(move)
            say(f"computer ({computer.value}) plays {move}")
            show = True
            continue
        out.write(f"your move ({human.value}): ")
        out.flush()
        line = inp.readline()
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
            say(f"  or a move such as {_example(position, human)}")
        elif command == "hint":
            move, after = db.best_moves(position)[0]
            say(f"hint: {move}, after which {_describe(after, human)}")
        elif command == "eval":
            outcome = db.probe(position)
            say(f"eval: {_describe(outcome, human)}")
            say(format_probe(position, outcome, db.moves(position)).splitlines()[1])
        elif command == "undo":
            if not history:
                say("nothing to undo")
            else:
                position = history.pop()
                say("undone: your last move and the computer's answer")
                show = True
        else:
            try:
                move = game.parse_move(command)
                after = position.play(move)
            except IllegalMoveError as error:
                if strict:
                    raise
                say(str(error))
                continue
            except NotationError as error:
                if strict:
                    raise UnknownCommandError(
                        f"{quoted(command)} is neither a move like '{_example(position, human)}' "
                        f"nor a command ({', '.join(COMMANDS)})") from error
                say(f"{quoted(command)} is neither a move like '{_example(position, human)}' "
                    f"nor a command ({', '.join(COMMANDS)})")
                continue
            history.append(position)
            position = after
            say(f"you play {move}")
            show = True


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
    if position.side is side:
        moves = position.legal_moves()
    else:
        moves = next((after.legal_moves() for after in (position.play(m) for m in position.legal_moves())
                      if after.legal_moves()), [])
    return str(moves[0]) if moves else "c3-c2"


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
