"""A terminal game against the perfect player: the engine behind ``retro play``.

:func:`play_game` runs one game on text streams: it shows the board with its
coordinates (rows numbered from 1 at the top, as in the notation; columns a, b, ...),
reads the human's moves (``c3-c2``) and commands (``hint``, ``eval``, ``undo``,
``help``, ``quit``), and answers with the computer's moves.

How the computer chooses (:func:`computer_move`):

* **When it can win** it plays a fastest win: among the moves after which it still
  wins, those with the fewest plies to the end; equally fast wins are chosen at
  random (with the game's seed).
* **When it cannot win** (every move loses against perfect play) it plays for the
  opponent's mistakes instead of moving meaninglessly. For each of its moves it
  counts the opponent's legal replies and, among them, the *blunders*: the replies
  after which the computer wins. It picks the move with

  1. the highest share of blunders among the opponent's replies (a move after which
     the opponent has no reply, because the game is over, has share 0);
  2. then the longest resistance: the most plies to the end under perfect play;
  3. then at random among the moves still equal (with the game's seed).

Without a random generator (``rng=None``) ties go to the first move in
:meth:`~retro.probe.Database.moves` order, so the choice is deterministic.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import TextIO

import numpy as np

from . import rules
from .errors import UnknownCommandError, quoted  # UnknownCommandError: re-exported
from .outcome import Outcome
from .position import FILES, IllegalMoveError, Move, NotationError, Position, Side
from .lookup import child_positions
from .probe import RNG, Database, GameOverError, choose
from .text import format_probe

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

    move: Move
    outcome: Outcome  # of the position after the move (the opponent to move)
    replies: int  # the opponent's legal replies
    blunders: int  # replies after which the mover wins

    @property
    def share(self) -> Fraction:
        """Blunders per reply (0 when the opponent has no reply)."""
        return Fraction(self.blunders, self.replies) if self.replies else Fraction(0)


def chances(db: Database, position: Position) -> list[Chances]:
    """Every legal move of ``position`` with the opponent's replies and blunders after it.

    In :meth:`~retro.probe.Database.moves` order. A blunder is a reply after which
    the side to move in ``position`` wins under perfect play.
    """
    mover = position.side
    moves = db.moves(position)
    b = rules.board(position.size)
    out = np.empty((4 * b.squares, 4), dtype=np.int64)
    musketeers, enemies, owners = [], [], []
    for number, (move, _) in enumerate(moves):
        child = position.play(move)
        count = child_positions(child.side.code, child.musketeers, child.enemies, b, out)
        musketeers.append(out[:count, 2].copy())
        enemies.append(out[:count, 3].copy())
        owners.append(np.full(count, number))
    replies = np.zeros(len(moves), dtype=np.int64)
    blunders = np.zeros(len(moves), dtype=np.int64)
    if owners:
        owner = np.concatenate(owners)
        sides = np.full(len(owner), mover.code, dtype=np.int64)
        musketeers_win, _ = db.probe_many((sides, np.concatenate(musketeers), np.concatenate(enemies)))
        mover_wins = (musketeers_win if mover is Side.MUSKETEERS else ~musketeers_win).astype(np.int64)
        replies = np.bincount(owner, minlength=len(moves))
        blunders = np.bincount(owner, weights=mover_wins, minlength=len(moves)).astype(np.int64)
    return [Chances(move, outcome, int(r), int(k))
            for (move, outcome), r, k in zip(moves, replies, blunders)]


def computer_move(db: Database, position: Position, rng: RNG = None) -> Move:
    """The computer's choice in ``position`` (see the module docstring for the rule).

    Raises :class:`~retro.probe.GameOverError` when the game is over.
    """
    best = db.best_moves(position)
    if best[0][1].winner is position.side:
        return choose(best, rng)[0]
    options = chances(db, position)
    top = max((c.share, c.outcome.plies) for c in options)
    return choose([c for c in options if (c.share, c.outcome.plies) == top], rng).move


def board_text(position: Position) -> str:
    """The board with coordinates: a header of column letters, one numbered line per row."""
    n = position.size
    lines = ["    " + " ".join(FILES[:n])]
    for row in range(n):
        cells = []
        for col in range(n):
            bit = 1 << (row * n + col)
            cells.append("O" if position.musketeers & bit else "X" if position.enemies & bit else ".")
        lines.append(f"{row + 1:>2}  " + " ".join(cells))
    return "\n".join(lines)


def _describe(outcome: Outcome, human: Side) -> str:
    verdict = "you win" if outcome.winner is human else "you lose"
    if outcome.plies == 0:
        return f"{outcome}: {verdict}"
    return f"{outcome}: {verdict} with perfect play"


def play_game(db: Database, human: Side | str = Side.MUSKETEERS, start: Position | str | None = None,
              seed: int | None = None, input_stream: TextIO | None = None,
              output_stream: TextIO | None = None, *, strict: bool = False) -> int:
    """Play one game between a human (on the streams) and the perfect player; exit code 0.

    ``human`` is the side the human plays (a :class:`Side` or ``"musketeers"`` /
    ``"enemy"``); ``start`` the starting position (default: the standard start of the
    database's board size); ``seed`` makes the computer's choices among equally good
    moves reproducible (None: they vary from game to game). The game ends when it is
    over, on ``quit``, or at the end of the input. An illegal move or unknown command
    gets a one-line explanation and the prompt again; with ``strict=True`` (scripted,
    non-interactive input) it raises :class:`~retro.position.IllegalMoveError` or
    :class:`UnknownCommandError` instead.

    Raises :class:`~retro.storage.BoardMismatchError` (or another database error)
    before the game starts when ``start`` cannot be probed in ``db``.
    """
    inp = input_stream if input_stream is not None else sys.stdin
    out = output_stream if output_stream is not None else sys.stdout
    human = Side(human) if isinstance(human, str) else human
    position = Position.start(db.size) if start is None else start
    if isinstance(position, str):
        position = Position.parse(position)
    db.probe(position)  # refuses a position the database cannot answer, before any output
    rng = np.random.default_rng(seed)
    computer = human.other
    echo = not _is_terminal(inp)

    def say(text: str = "") -> None:
        print(text, file=out)

    say(f"You play the {human.value} ({'O' if human is Side.MUSKETEERS else 'X'}); "
        f"the computer plays the {computer.value}. Enter moves like "
        f"'{_example(position, human)}', or: {', '.join(COMMANDS)}.")
    history: list[Position] = []  # positions where the human was to move, before their move
    show = True
    while True:
        if show:
            say()
            say(board_text(position))
            say(f"position: {position}")
            show = False
        winner = position.winner()
        if winner is not None:
            say(f"game over: the {winner.value} {'have' if winner is Side.MUSKETEERS else 'has'} won "
                f"({'you win' if winner is human else 'the computer wins'})")
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
                move = Move.parse(command)
                after = position.play(move)
            except NotationError as error:
                if strict:
                    raise UnknownCommandError(
                        f"{quoted(command)} is neither a move like '{_example(position, human)}' "
                        f"nor a command ({', '.join(COMMANDS)})") from error
                say(f"{quoted(command)} is neither a move like '{_example(position, human)}' "
                    f"nor a command ({', '.join(COMMANDS)})")
                continue
            except IllegalMoveError as error:
                if strict:
                    raise
                say(str(error))
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


def _example(position: Position, side: Side) -> str:
    """A legal move of ``side`` to show as an example (a generic one when there is none)."""
    probe = Position(side, position.musketeers, position.enemies, position.size)
    moves = probe.legal_moves()
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
]
