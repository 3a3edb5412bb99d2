"""The ``retro`` command line.

``solve`` the game (``build``), ``query`` it (``probe``, ``play``), ``check`` it
(``verify``, ``crosscheck``), ``analyze`` it, and search it top-down (``solve``).

Every failure the user can cause prints one line, ``retro: error: ...``, and exits
with status 2, without a traceback. A check that runs and finds problems (a wrong
value, a disagreement, a batch line that could not be answered) exits with 1.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import ipaddress
import json
import os
import re
import shutil
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from . import games
from ._version import __version__
from .crosscheck import DEFAULT_METHOD, METHODS, SOLVER_NAMES
from .db import locations
from .db.format import DatabaseError, default_path
from .errors import GameMismatchError, counted, quoted
from .outputs import check_output
from .games.musketeers import rules
from .games.musketeers.position import PositionError
from .progress import progress_bar
from .values import won_text
from .web.limits import Limits

EXIT_FOUND_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a process killed by it
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000

TABLE_BITS_HELP = ("transposition table of 2**B entries (default: 512 MiB, that is B=24 of "
                   "32 bytes for dfpn and B=25 of 16 bytes for alphabeta; for nine men's "
                   "morris's search B=26 of 10 bytes, 640 MiB)")
def _position_help() -> str:
    """The footer of the commands that read positions: every registered game's notation."""
    by_notation: dict[str, list[str]] = {}
    for name in games.GAMES:
        game = games.get(name)
        by_notation.setdefault(game.notation, []).append(game.title)
    lines = [f"{' / '.join(titles)} {notation.replace('Positions are written like ', '', 1)}"
             for notation, titles in by_notation.items()]
    return ("Positions, by game:\n\n" + "\n\n".join(lines) + "\n\nIn every game quotes are optional, any "
            "case will do, and groups may be joined by underscores as in the page's links "
            "(M_XXXXO_XXXXX_...); a move may also be written without its dash (e1d1) or as two "
            "words (e1 d1).")


POSITION_HELP = _position_help()

QUIET_HELP = "no progress bar (none is drawn either when standard error is not a terminal)"
FOUND = ("found in $RETRO_DB_DIR, ./db, the checkout's db/ (when run inside it), the user data "
         "folder, then among the files retro build wrote, in that order")


PIECES_HELP = ("nine men's morris with P pieces each (3..9; default 9) or W,B: White's and "
               "Black's counts (5,4), and implies --game nine-mens-morris; with --game chess, every "
               "chess table of up to P pieces (3, 4 or 5)")
MATERIAL_HELP = ("a chess table, such as KRPvKR (any case, the stronger side first or not), with "
                 "every table it leads into; implies --game chess")


class UsageError(Exception):
    """Arguments that are well-formed but cannot be used together."""


def _table_bits(text: str) -> int:
    """argparse type of --table-bits: the solver's table sizes, 2**10 to 2**30 entries."""
    try:
        bits = int(text)
    except ValueError:
        bits = None
    if bits is None or not 10 <= bits <= 30:
        raise argparse.ArgumentTypeError(f"must be a whole number between 10 and 30, not {quoted(text)}")
    return bits


def _whole_number(text: str, digits: int) -> bool:
    """Whether ``text`` is a number of at most ``digits`` ASCII digits (``'²'.isdigit()``
    is true, and a long one would meet Python's limit on conversions)."""
    return text.isascii() and text.isdigit() and len(text) <= digits


def _port(text: str) -> int:
    """argparse type of --port: 0 (any free port) to 65535."""
    if not _whole_number(text, 5) or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"must be a port number from 0 to 65535, not {quoted(text)}")
    return int(text)


def _bounded(low: int, high, noun: str = "a whole number"):
    """argparse type of a whole number from ``low`` to ``high`` (a number, or a function
    giving it, read when the option is: the cores of this machine)."""
    def parse(text: str) -> int:
        top = high() if callable(high) else high
        if not _whole_number(text, 20) or not low <= int(text) <= top:
            bound = f"of at least {low}" if top >= 10**9 else f"from {low} to {top:,}"
            raise argparse.ArgumentTypeError(f"must be {noun} {bound}, not {quoted(text)}")
        return int(text)
    return parse


def _cores() -> int:
    """Threads numba may run here: one per core unless NUMBA_NUM_THREADS says fewer."""
    import numba

    return numba.config.NUMBA_NUM_THREADS


_threads = _bounded(1, _cores, "a number of threads")
_seed = _bounded(0, 2**63 - 1)
_count = _bounded(1, 10**9)


def _workers(text: str) -> int:
    """argparse type of --workers: 1 to 64 processes."""
    if not _whole_number(text, 2) or not 1 <= int(text) <= 64:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 64, not {quoted(text)}")
    return int(text)


def _connections(text: str) -> int:
    """argparse type of --max-connections: 1 to 100,000 per worker."""
    if not _whole_number(text, 6) or not 1 <= int(text) <= 100_000:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 100000, not {quoted(text)}")
    return int(text)


def _seconds(text: str) -> float:
    """argparse type of the --*-timeout options: more than 0, at most a day."""
    try:
        seconds = float(text) if text.isascii() and len(text) <= 20 else None
    except ValueError:
        seconds = None
    if seconds is None or not 0 < seconds <= 86_400:  # NaN fails both comparisons
        raise argparse.ArgumentTypeError(f"must be a number of seconds from 0 to 86400, not {quoted(text)}")
    return seconds


_HOSTNAME = re.compile(r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                      r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?")


def _host(text: str) -> str:
    """argparse type of --host: an IPv4 or IPv6 address (brackets around it removed) or
    a host name; never empty (which would listen on every interface)."""
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    if not bare:
        raise argparse.ArgumentTypeError("must be an address or a host name, not empty (0.0.0.0 "
                                         "listens on every IPv4 address)")
    if ":" in bare or bare != text:
        try:
            ipaddress.IPv6Address(bare)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{quoted(text)} is not an IPv6 address (write it like ::1 or [::1])") from None
        return bare
    if not _HOSTNAME.fullmatch(bare):
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not an address or a host name")
    return bare


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, keeping blank lines between paragraphs (one per game)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(super(_Formatter, self)._fill_text(part, width, indent)
                             for part in text.split("\n\n"))


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # argparse's own usage errors: one line, status 2
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")

    # A position's groups are several words joined into one position: argparse's
    # "[POSITION ...]" would read as several positions.
    _ONE_POSITION = (("POSITION [POSITION ...]", "POSITION"), ("[POSITION ...]", "[POSITION]"))

    def format_usage(self) -> str:
        return self._one_position(super().format_usage())

    def format_help(self) -> str:
        return self._one_position(super().format_help())

    def _one_position(self, text: str) -> str:
        for many, one in self._ONE_POSITION:
            text = text.replace(many, one)
        return text


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="retro",
        description="Strongly solve games by retrograde analysis ("
        + ", ".join(dict.fromkeys(games.get(name).title.split(" (")[0] for name in games.GAMES))
        + "), and query, play, verify and analyze the result. 'retro games' lists the games "
        "and their variants; 'retro COMMAND --help' explains each command.",
        epilog=POSITION_HELP,
    )
    parser.add_argument("--version", action="version", version=f"retro {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    def command(name: str, summary: str, description: str,
                positions: bool = False) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=summary, description=description,
                                   epilog=POSITION_HELP if positions else None)

    games_command = command(
        "games", "list the games retro solves",
        "Every game retro can build, with its variants, its size in positions and a "
        "one-line description.")
    games_command.add_argument("--json", action="store_true", help="print the list as JSON")

    build = command(
        "build", "build (or resume) the database of a game",
        "Solve every position of a game, tier by tier (Three Musketeers: layer by layer, "
        "by the number of enemy men), and write the values to an HDF5 file. Each finished "
        "tier is checkpointed next to the output (<out>.partial/): if the build is "
        "interrupted, run the same command again to resume. Building again without "
        "--max-enemy-men extends an endgame database.")
    build.add_argument("--game", metavar="NAME",
                       help=f"the game (default: {games.DEFAULT_GAME}; 'retro games' lists them)")
    build.add_argument("--variant", metavar="V", help="the game's variant (default: its first)")
    build.add_argument("--board", type=int, choices=rules.SIZES,
                       help="Three Musketeers board size (default: 5; same as --variant NxN)")
    build.add_argument("--out", type=Path, metavar="PATH",
                       help="output file (default: <game>[-<variant>].h5, e.g. "
                       "three-musketeers-5x5.h5, in $RETRO_DB_DIR when it is set, else in the "
                       "checkout's db/ when run inside the checkout, else in the user data "
                       "folder; never in a ./db merely found here. Every build is recorded, "
                       "so probe, play and serve find a default-named file from anywhere)")
    build.add_argument("--pieces", metavar="P|W,B", help=PIECES_HELP)
    build.add_argument("--material", metavar="TABLE", help=MATERIAL_HELP)
    build.add_argument("--stage", metavar="STAGE",
                       help="build only one stage of the game, which a later build without "
                       "--stage extends (nine men's morris: moving, the positions with both "
                       "hands empty: Gasser's databases)")
    build.add_argument("--max-enemy-men", "--max-guards", dest="max_enemy_men", type=int, metavar="K",
                       help="Three Musketeers: build only layers 0..K, the positions with at "
                       "most K enemy men")
    build.add_argument("--threads", type=_threads, metavar="T",
                       help="worker threads (default: one per core, the most there can be)")
    build.add_argument("--cluster", metavar="ADDRESS",
                       help="run the tiers as tasks on Dask: 'local' starts a LocalCluster of "
                       "--workers processes on this machine; tcp://HOST:PORT or a scheduler file "
                       "names a running cluster whose workers see the output's folder (a shared "
                       "filesystem). Needs pip install 'retro[cluster]'; the database is the one "
                       "a single-process build writes")
    build.add_argument("--workers", type=_workers, metavar="N",
                       help="--cluster local: worker processes (default 2); --threads then sets "
                       "each one's numba threads (default: the cores shared among them)")
    build.add_argument("--force", action="store_true",
                       help="rebuild from scratch even if a database or checkpoints exist")
    build.add_argument("--quiet", action="store_true", help=QUIET_HELP)

    probe = command(
        "probe", "who wins a position, in how many plies, and after each move",
        "Print the value of a position under perfect play (the winner and the plies to "
        "the end: the winner hurries, the loser delays), then every legal move with the "
        "value of the position it leads to, best first: 'E33 -> [e1-d1 E32, ...]'. "
        "Without POSITION, read one position per line from standard input and answer "
        "one line each; a line that cannot be answered gets an error line and the batch "
        "goes on (exit status 1 at the end).", positions=True)
    probe.add_argument("position", metavar="POSITION", nargs="*",
                       help="position (quotes optional); omit it to read positions from "
                       "standard input")
    probe.add_argument("--db", type=Path, metavar="PATH",
                       help="database file (default: the position's game's file, e.g. "
                       f"three-musketeers-5x5.h5, {FOUND})")
    probe.add_argument("--game", metavar="NAME",
                       help="the game, where its notation alone does not say (default: the "
                       "game whose notation reads the position)")
    probe.add_argument("--variant", metavar="V", help="the game's variant, with --game "
                       "(four-player-race: jump)")
    probe.add_argument("--pieces", metavar="P|W,B", help=PIECES_HELP)
    probe.add_argument("--json", action="store_true",
                       help='print {"position", "game", "winner", "plies", "moves": [...]} per '
                       "position (winner null for a draw; Three Musketeers without game)")

    play = command(
        "play", "play a game in the terminal against the perfect player",
        "Play against the database: one board a turn, the last move's squares in "
        "brackets. Enter moves like c3-c2 (or c3c2), or hint (a best move), eval (who wins "
        "from here, and every move's outcome), value (show the value after every move, or "
        "stop), moves (the game so far), undo (your last move and the answer), help, quit; "
        "on a terminal, arrows edit and recall lines and Tab completes moves. A position "
        "standing for the third time is a draw. The computer plays optimally: when it can win, a fastest "
        "win, chosen at random among equally fast ones. In a lost position it plays for "
        "your mistakes: the move after which the largest share of your replies throws "
        "your win away, then the longest resistance, then at random. With input from a "
        "pipe or file, an illegal move or unknown command is an error (exit status 2).",
        positions=True)
    play.add_argument("--db", type=Path, metavar="PATH",
                      help=f"database file (default: the game's file, {FOUND})")
    play.add_argument("--game", metavar="NAME",
                      help="the game, when no --db names it (default: the game of --start, "
                      f"else {games.DEFAULT_GAME})")
    play.add_argument("--variant", metavar="V", help="the game's variant, with --game "
                       "(four-player-race: jump)")
    play.add_argument("--pieces", metavar="P|W,B", help=PIECES_HELP)
    play.add_argument("--as", dest="human", metavar="SIDE",
                      help="your side (default: the side that moves first: musketeers, X, ...)")
    play.add_argument("--start", metavar="POSITION", nargs="+", help="start from this "
                      "position (quotes optional; default: the start of the game)")
    play.add_argument("--seed", type=_seed, metavar="S",
                      help="seed for the computer's choices among equally good moves")
    play.add_argument("--show-value", action="store_true",
                      help="show the value under the board after every move (the 'value' "
                      "command turns it on and off)")

    verify = command(
        "verify", "prove a database correct without trusting the builder",
        "Check the metadata, every chunk's checksum, every layer's digest, the "
        "finished-game rules and that every stored value is the best over its children "
        "read from the same file. Exit status 1 when anything is wrong. A database too "
        "large for memory (nine men's morris) is proven a tier at a time, each proven tier "
        "written to a proof log in the user cache folder: run the same command again after "
        "an interruption and it resumes, after reading and hashing every tier again to "
        "check that the values it proved are still the file's.")
    verify.add_argument("path", metavar="PATH", type=Path, nargs="?",
                        help=f"database file (default: the game's file, {FOUND})")
    verify.add_argument("--game", metavar="NAME", help="the game whose default file to verify "
                        f"(default: {games.DEFAULT_GAME})")
    verify.add_argument("--variant", metavar="V", help="the game's variant, with --game "
                       "(four-player-race: jump)")
    verify.add_argument("--pieces", metavar="P|W,B", help=PIECES_HELP)
    verify.add_argument("--max-reports", type=int, default=10, metavar="N",
                        help="wrong values to list (default: 10)")
    verify.add_argument("--fresh", action="store_true",
                        help="prove every tier again, ignoring what an interrupted earlier "
                        "run proved")
    verify.add_argument("--json", action="store_true", help="print the report as JSON")
    verify.add_argument("--quiet", action="store_true", help=QUIET_HELP)

    analyze = command(
        "analyze", "what the database says about the game",
        "Who wins how many positions (table entries and distinct positions up to symmetry), "
        "plies to the end, the longest wins and the positions reachable from the start: "
        "per tier and side to move (Three Musketeers: per number of enemy men; the "
        "four-player race: per player), with the start's value and its first moves. Out-of-"
        "core games (nine men's morris) are read a chunk at a time.")
    analyze.add_argument("path", metavar="PATH", type=Path, nargs="?",
                         help=f"database file (default: the game's file, {FOUND})")
    analyze.add_argument("--game", metavar="NAME", help="the game whose default file to analyze "
                         f"(default: {games.DEFAULT_GAME})")
    analyze.add_argument("--variant", metavar="V", help="the game's variant, with --game "
                       "(four-player-race: jump)")
    analyze.add_argument("--pieces", metavar="P|W,B", help=PIECES_HELP)
    analyze.add_argument("--json", action="store_true", help="print everything as one JSON object")
    analyze.add_argument("--plot", type=Path, metavar="DIR", help="write PNG charts into DIR "
                         "(Three Musketeers: the musketeers' share by enemy men and the plies "
                         "to the end; needs pip install 'retro[plot]')")
    analyze.add_argument("--quiet", action="store_true", help=QUIET_HELP)

    export = command(
        "export", "write a win/draw/loss export of a database, for apps",
        "Write who wins every position of a built database, without the distance: 2 bits "
        "an entry, compressed in blocks of 2^18 entries (raw LZMA2), a fraction of the "
        "database's size. probe opens it like a database (a win without its plies); "
        "verify checks every block against its tier's SHA-256. The tier games only "
        "(Three Musketeers' file already stores a byte a position). Written to "
        "<out>.tmp and renamed when whole: an interrupted export leaves nothing behind.")
    export.add_argument("path", metavar="PATH", type=Path, nargs="?",
                        help=f"database file to export (default: the game's file, {FOUND})")
    export.add_argument("--wdl", action="store_true",
                        help="win/draw/loss only (the one export there is; required, so that "
                        "later kinds stay explicit)")
    export.add_argument("--game", metavar="NAME", help="the game whose default file to export "
                        "(PATH or --game is required)")
    export.add_argument("--pieces", metavar="P|W,B", help=PIECES_HELP)
    export.add_argument("--out", type=Path, metavar="PATH",
                        help="the export's file (default: the database's name with -wdl, "
                        "beside it: nine-mens-morris-wdl.h5)")
    export.add_argument("--force", action="store_true", help="replace an existing --out file")
    export.add_argument("--threads", type=_threads, metavar="T",
                        help="compressing threads (default: one per core, the most there can be)")
    export.add_argument("--quiet", action="store_true", help=QUIET_HELP)

    solve = command(
        "solve", "solve a position by a weak solver (df-pn or alpha-beta), without the database",
        "Solve a position top-down, independently of the retrograde builder and the "
        "database. --method dfpn (depth-first proof-number search with the 1+epsilon "
        "trick, a transposition table and symmetry) follows the cheapest proof; "
        "--method alphabeta is a negamax with a transposition table, symmetry, killer and "
        "history move ordering. By default it answers who wins and a winning move; "
        "--exact also finds in how many plies and a principal line.", positions=True)
    solve.add_argument("position", metavar="POSITION", nargs="+",
                       help="position to solve (quotes optional)")
    solve.add_argument("--method", choices=(*METHODS, "maxn"),
                       help=f"weak solver (default: {DEFAULT_METHOD} for Three Musketeers, "
                       "alphabeta for tic-tac-toe); maxn: the four-player race's max^n tree, "
                       "grown breadth-first as the 2020 report does (repeated states marked, "
                       "their values ignored), its root vector and size")
    solve.add_argument("--utilities", metavar="V1/V2/V3/V4[/V0]",
                       help="--method maxn: the utility vector of a win by each player, comma-"
                       "separated numbers, vectors separated by '/', then optionally that of "
                       "a game without a winner (default: the report's, "
                       "200,10,30,10/100,300,150,200/150,200,400,300/220,330,440,500/0,0,0,0)")
    solve.add_argument("--board", type=int, choices=rules.SIZES,
                       help="board size (checked against the position's)")
    solve.add_argument("--exact", action="store_true",
                       help="find the number of plies and a principal line too")
    solve.add_argument("--table-bits", type=_table_bits, metavar="B", help=TABLE_BITS_HELP)
    solve.add_argument("--db", type=Path, metavar="PATH",
                       help="nine men's morris: a database holding the moving phase (retro build "
                       "--stage moving); the search runs over the placement phase down to it "
                       "(Gasser's method) and answers who wins")
    solve.add_argument("--variant", metavar="V", help="the game's variant, with --game "
                       "(four-player-race: jump)")
    solve.add_argument("--game", metavar="NAME", help="the game, where its notation alone does "
                       "not say (default: the game whose notation reads the position)")
    solve.add_argument("--pieces", metavar="P|W,B", help=PIECES_HELP)
    solve.add_argument("--json", action="store_true", help="print the result as JSON")

    evaluate = command(
        "evaluate", "score an agent move by move against the perfect player",
        "Play --games games of AGENT against the perfect player and against random play, the "
        "agent on each side in turn, and judge each of its moves by the database: the share "
        "that kept the value of the position (a win stays a win, a draw a draw), overall and "
        "from won or drawn positions, the ply where it first threw a win or a draw away, its "
        "results, and the share per phase "
        "(morris: placement, moving). AGENT is a function of the observation and the legal action "
        "ids returning one of them (see retro.env), named module:function (a module importable "
        "from here, such as examples.agents:uniform in the checkout) or path/to/file.py:function "
        "(a file anywhere: the checkout's examples/agents.py has two). An agent that raises, "
        "returns something else than a legal action id or cannot be called so stops the "
        "evaluation with one line naming it and the position.")
    evaluate.add_argument("agent", metavar="AGENT",
                          help="the agent: module:function or path/to/file.py:function")
    evaluate.add_argument("--game", metavar="NAME", help="the game (default: the database's)")
    evaluate.add_argument("--variant", metavar="V", help="the game's variant, with --game")
    evaluate.add_argument("--db", type=Path, metavar="PATH", help=f"database file (default: the game's file, {FOUND})")
    evaluate.add_argument("--games", type=_count, default=20, metavar="N", help="games against each opponent (default 20)")
    evaluate.add_argument("--opponent", choices=("perfect", "random"), action="append",
                          help="play only this opponent (repeat for both; default both)")
    evaluate.add_argument("--seed", type=_seed, default=0, metavar="S", help="seed of the opponents' choices")
    evaluate.add_argument("--max-plies", type=_count, default=300, metavar="P",
                          help="a game longer than this counts as a draw (default 300)")
    evaluate.add_argument("--plot", type=Path, metavar="DIR", help="write a PNG chart into DIR")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")

    crosscheck = command(
        "crosscheck", "compare a database with a weak solver (df-pn or alpha-beta)",
        "Draw positions uniformly from the whole index space and from random games from "
        "the standard start, solve each by the weak solver (who wins; with --exact, in how "
        "many plies too), probe each in the database, print a summary and every "
        "disagreement. Exit status 1 on any.")
    crosscheck.add_argument("--db", type=Path, metavar="PATH",
                            help=f"database file (default: three-musketeers-5x5.h5, {FOUND})")
    crosscheck.add_argument("--samples", type=_count, default=1000, metavar="N",
                            help="positions to check (default: 1000)")
    crosscheck.add_argument("--seed", type=_seed, default=0, metavar="S", help="random seed")
    crosscheck.add_argument("--exact", action="store_true",
                            help="compare the number of plies too (much slower)")
    crosscheck.add_argument("--workers", type=_bounded(1, lambda: os.cpu_count() or 1, "a number of processes"), metavar="W",
                            help="solver processes (default: one per core)")
    crosscheck.add_argument("--method", choices=METHODS,
                            help=f"weak solver (default: {DEFAULT_METHOD} for Three Musketeers, "
                            "alphabeta for tic-tac-toe)")
    crosscheck.add_argument("--table-bits", type=_table_bits, metavar="B",
                            help=TABLE_BITS_HELP + ", per worker")
    crosscheck.add_argument("--json", action="store_true", help="print the report as JSON")
    crosscheck.add_argument("--quiet", action="store_true", help=QUIET_HELP)

    serve = command(
        "serve", "serve a web page and a JSON API to explore and play the solved game",
        "Serve the databases over HTTP: a page to explore every position and play against "
        "the perfect player, and the JSON API under /api/v1/ (probe, line, play, batch "
        "probes, info). Without --db it serves every game's default file (each Three "
        f"Musketeers board's, tic-tac-toe.h5, ...) {FOUND}. It binds to the loopback "
        "address unless --host says otherwise. Stop it with Ctrl-C.")
    serve.add_argument("--db", type=Path, metavar="PATH", action="append",
                       help="database file to serve (repeat for several games or boards; "
                       "default: every game's file found)")
    serve.add_argument("--host", type=_host, default=DEFAULT_HOST,
                       help=f"address to listen on (default: {DEFAULT_HOST}, this machine only)")
    serve.add_argument("--port", type=_port, default=DEFAULT_PORT,
                       help=f"TCP port (default: {DEFAULT_PORT}; 0 picks a free one)")
    serve.add_argument("--workers", type=_workers, default=1, metavar="N",
                       help="server processes sharing the port and the files (default: 1)")
    limits = Limits()
    serve.add_argument("--max-connections", type=_connections, default=limits.max_connections,
                       metavar="N", help="open connections per worker; a request on one more "
                       f"gets 503 (default: {limits.max_connections})")
    serve.add_argument("--head-timeout", type=_seconds, default=limits.head_timeout, metavar="S",
                       help="seconds a client has to send a request's line and headers, else "
                       f"408 (default: {limits.head_timeout:g})")
    serve.add_argument("--body-timeout", type=_seconds, default=limits.body_timeout, metavar="S",
                       help="seconds a client has to send a request's body once its headers "
                       f"are in, else 408 (default: {limits.body_timeout:g})")
    serve.add_argument("--keep-alive", type=_seconds, default=limits.keep_alive, metavar="S",
                       help="seconds an idle connection stays open between requests "
                       f"(default: {limits.keep_alive:g})")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    if not (sys.argv[1:] if argv is None else list(argv)):  # `retro` alone: what it can do
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    args = parser.parse_args(argv)
    for name in ("position", "start"):  # an unquoted position's groups, joined again
        words = getattr(args, name, None)
        if isinstance(words, list):
            setattr(args, name, " ".join(words) if words else None)
    handler = {
        "games": _games, "build": _build, "probe": _probe, "play": _play, "verify": _verify,
        "analyze": _analyze, "export": _export, "solve": _solve, "crosscheck": _crosscheck, "serve": _serve,
        "evaluate": _evaluate,
    }[args.command]
    try:
        return handler(args)
    except GameMismatchError as error:
        asked = str(error.asked)
        if asked.startswith(NINE + " "):  # a variant asked for by --pieces
            return _fail(f"--pieces {asked[len(NINE) + 1:]} but {error.path} holds {error.held}")
        return _fail(f"--game {asked} but {error.path} holds {error.held}")
    except (PositionError, DatabaseError, UsageError, games.UnknownGameError) as error:
        return _fail(str(error))
    except ValueError as error:  # the library's other documented input errors
        return _fail(str(error))
    except KeyboardInterrupt:
        print("\nretro: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _fail(message: str) -> int:
    print(f"retro: error: {message}", file=sys.stderr)
    return EXIT_USAGE


@contextlib.contextmanager
def _notice_if_slow(message: str, after: float = 0.5):
    """Say ``message`` on standard error if the block is still running ``after`` seconds in."""
    timer = threading.Timer(after, lambda: print(f"retro: {message}...", file=sys.stderr, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()


def _bars(args: argparse.Namespace) -> bool:
    """Progress bars: unless --quiet, and only on a terminal (not into a log or a pipe)."""
    return not args.quiet and _is_terminal(sys.stderr)


def _is_terminal(stream) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (AttributeError, ValueError):
        return False


# --- build -------------------------------------------------------------------------------


def _games(args: argparse.Namespace) -> int:
    rows = []
    for game in games.every_game():
        rows.append({"game": game.name, "variant": game.variant, "title": game.title,
                     "players": game.players, "positions": game.positions(),
                     "description": game.description, "default_file": str(default_path(game))})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(f"{r['game']} {r['variant']}".strip()) for r in rows)
    for row in rows:
        name = f"{row['game']} {row['variant']}".strip()
        print(f"{name:<{width}}  {row['positions']:>15,} positions  {row['description']}")
    for name, cls in games.GAMES.items():
        unlisted = [v for v in cls.variants if v not in (cls.listed_variants or cls.variants)]
        if unlisted:
            how = cls.unlisted_how or f"{cls.variant_option} W,B for unequal counts"
            print(f"{'':<{width}}  and {len(unlisted)} more {name} variants: {how} ({unlisted[0]} to {unlisted[-1]})")
    return 0


NINE = "nine-mens-morris"


CHESS = "chess"


def _pieces_game(args: argparse.Namespace) -> str:
    """The game whose variant ``--pieces`` or ``--material`` names: chess's with
    ``--game chess`` or ``--material``, else nine men's morris's."""
    return CHESS if getattr(args, "game", None) == CHESS or getattr(args, "material", None) is not None else NINE


def _pieces_variant(args: argparse.Namespace) -> str | None:
    """The variant ``--pieces`` or ``--material`` names (None without them): nine men's
    morris's, or chess's (see :func:`_pieces_game`)."""
    pieces = getattr(args, "pieces", None)
    material = getattr(args, "material", None)
    if pieces is None and material is None:
        return None
    name = getattr(args, "game", None)
    option = "--material" if material is not None else "--pieces"
    allowed = (CHESS,) if material is not None else (NINE, CHESS)
    if name is not None and name not in allowed:
        games.get(name)  # an unknown name says so first
        raise UsageError(f"{option} is for {' and '.join(allowed)}, not {name}")
    if material is not None and pieces is not None:
        raise UsageError("--material names one chess table and --pieces every table of a piece count: "
                         "give one of them")
    if getattr(args, "variant", None) is not None:
        raise UsageError(f"{option} names the variant: give {option} or --variant, not both")
    if material is not None:
        return material
    if name == CHESS and pieces not in ("3", "4", "5"):
        raise UsageError(f"--pieces {pieces}: chess tables have 3, 4 or 5 pieces")
    return pieces


def _forced_game(args: argparse.Namespace):
    """The game ``--game`` (and ``--pieces``, ``--material``) name, or None (probe, play,
    verify, analyze)."""
    pieces = _pieces_variant(args)
    if pieces is not None:
        return games.get(_pieces_game(args), pieces)
    name = getattr(args, "game", None)
    variant = getattr(args, "variant", None)
    if variant is not None and not name:
        raise UsageError("--variant needs --game: the game whose variant it is")
    return games.get(name, variant) if name else None


def _game_of(args: argparse.Namespace):
    """The game ``--game``/``--variant``/``--pieces``/``--board`` name (build)."""
    name = getattr(args, "game", None) or games.DEFAULT_GAME
    variant = getattr(args, "variant", None)
    pieces = _pieces_variant(args)
    if pieces is not None:
        name, variant = _pieces_game(args), pieces
    board = getattr(args, "board", None)
    if board is not None:
        if name != games.DEFAULT_GAME:
            raise UsageError(f"--board is for {games.DEFAULT_GAME}; {name} has "
                             f"{'no variants' if games.GAMES[name].variants == ('',) else 'variants: ' + ', '.join(games.GAMES[name].variants)}")
        if variant is not None and variant != f"{board}x{board}":
            raise UsageError(f"--board {board} and --variant {variant} disagree")
        variant = f"{board}x{board}"
    return games.get(name, variant)


def _build(args: argparse.Namespace) -> int:
    from .engine.build import BuildError, build

    try:
        summary = build(
            _game_of(args), args.out, args.max_enemy_men, args.threads,
            stage=args.stage, force=args.force, progress=_bars(args),
            log=lambda message: print(message, file=sys.stderr),
            cluster=args.cluster, workers=args.workers,
        )
    except BuildError as error:
        return _fail(str(error))
    except KeyboardInterrupt:
        print("\nretro: interrupted; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    if summary.game.name == games.DEFAULT_GAME:
        held = f"layers 0..{summary.max_enemy_men}"
    else:
        held = f"{summary.game.full_name}, {counted(len(summary.tiers), 'tier')}"
    locations.record(Path(summary.path), summary.game.full_name)  # found from anywhere
    if summary.already_built:
        print(f"{Path(summary.path).resolve()} is already built ({held}); pass --force to rebuild")
        return 0
    from .units import rate_text, size_text

    rate = summary.computed_positions / summary.seconds if summary.seconds else 0.0
    solved = (f"{summary.computed_positions:,} solved in {summary.seconds:.1f} s ({rate_text(rate)})"
              if summary.computed_positions else
              f"every tier from the checkpoints of earlier runs, written in {summary.seconds:.1f} s")
    print(f"built {Path(summary.path).resolve()}: {summary.positions:,} positions ({held}), "
          f"{solved}, {size_text(summary.file_bytes)}")
    note = locations.reach(Path(summary.path), f"{summary.game.file_stem}.h5")
    if note:
        print(note)
    return 0


# --- probe and play ------------------------------------------------------------------------


def _input(reason: str):
    """Standard input, or a UsageError when the command was started without one."""
    if sys.stdin is None:
        raise UsageError(f"standard input is closed; {reason}")
    return sys.stdin


def _probe(args: argparse.Namespace) -> int:
    from .db.database import DatabasePool, open_database
    from .text import format_probe, probe_json, probe_lines

    forced = _forced_game(args)
    if args.position is None:
        stdin = _input("give a POSITION, or positions one per line on standard input")
        if stdin.isatty():
            print("retro probe: reading positions from standard input, one per line "
                  "(end with Ctrl-D)", file=sys.stderr)
        failed = False
        with DatabasePool(args.db, game=forced) as pool:  # checks --db against --game
            for answer in probe_lines(stdin, pool, as_json=args.json):
                print(answer.text, flush=True)
                failed = failed or not answer.ok
        return EXIT_FOUND_PROBLEMS if failed else 0
    if args.db is not None:
        try:  # the position's game names the build command should the file be missing
            hint = _read_position(args.position, forced)[0]
        except PositionError:
            hint = None
        db = open_database(args.db, game=forced if forced is not None and (args.pieces or args.variant) else args.game,
                           hint=hint)
        position = db._position(args.position)
    else:
        game, position = _read_position(args.position, forced)
        db = open_database(game=game)
    with db:
        outcome, moves = db.probe(position), db.moves(position)
    if args.json:
        print(json.dumps(probe_json(position, outcome, moves, db.game)))
    else:
        print(format_probe(position, outcome, moves))
    return 0


def _read_position(text: str, game=None):
    """``(game, position)``: the position in ``game``'s notation, or in the notation of
    the game that reads it."""
    if game is None:
        return games.identify(text)
    position = game.parse(text)
    return game.for_position(position), position


def _play(args: argparse.Namespace) -> int:
    from .db.database import WdlDatabase, open_database
    from .play import play_game

    stdin = _input("retro play reads your moves from it")
    forced = _forced_game(args)
    if args.db is not None:
        try:
            hint = _read_position(args.start, forced)[0] if args.start is not None else forced
        except PositionError:
            hint = None
        db = open_database(args.db, game=forced if forced is not None and (args.pieces or args.variant) else args.game,
                           hint=hint)
    else:
        game = forced or games.get()
        if args.start is not None:  # an empty one too: "empty position", not the default game
            game, _ = _read_position(args.start, forced)
        db = open_database(game=game)
    with db:
        if isinstance(db, WdlDatabase):
            raise UsageError(f"{db.path} is a win/draw/loss export: the perfect player hurries "
                             "its wins and delays its losses, which takes the full database")
        start = db._position(args.start) if args.start is not None else None
        # Piped input is a script: an illegal move in it is an error, not a retry.
        return play_game(db, args.human, start, args.seed, stdin, strict=not stdin.isatty(),
                         show_value=args.show_value)


# --- verify and analyze --------------------------------------------------------------------


def _default_file(args: argparse.Namespace) -> Path:
    """The file a command reads: the one given, else ``--game``'s default file (when
    missing, the error says where it was looked for and how to build it)."""
    forced = _forced_game(args)
    if args.path is not None:
        if forced is not None:  # an unknown name is an error before the file is read
            _check_game(args.path, forced)
        return args.path
    game = forced or games.get()
    path = default_path(game)
    if not path.is_file():
        from .db.database import open_database

        open_database(game=game).close()  # raises the search order's error, or a resume hint
    return path


def _check_game(path: Path, game) -> None:
    """Raise GameMismatchError when the database ``path`` holds another game than
    ``game`` (with ``--pieces``, another variant); a file that cannot be read is left to
    the command, which says why."""
    from .db.format import DatabaseFile

    try:
        file = DatabaseFile(path, cache_bytes=0)
    except DatabaseError:
        return
    try:
        exact = bool(game.variant) and game.variant_option == "--pieces"
        if file.game.name != game.name or (exact and file.game is not game):
            raise GameMismatchError(game.full_name if exact else game.name, file.game.full_name,
                                    file.path)
    finally:
        file.close()


def _verify(args: argparse.Namespace) -> int:
    from .db.wdl import is_wdl_file
    from .verify import verify

    path = _default_file(args)
    if is_wdl_file(path):
        return _verify_export(path, args)
    try:
        report = verify(path, progress=_bars(args), max_reports=args.max_reports,
                        fresh=args.fresh)
    except KeyboardInterrupt:
        if not _proven_a_tier_at_a_time(path):
            raise
        print("\nretro: interrupted; run the same command again to resume after the tiers "
              "already proven", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
        return 0 if report.ok else EXIT_FOUND_PROBLEMS
    musketeers = hasattr(report, "musketeer_positions_resolved")
    if musketeers:
        print(f"verifying {report.path} ({report.size}x{report.size}, layers 0..{report.max_enemy_men})")
    else:
        print(f"verifying {report.path} ({report.game}, {counted(report.tiers, 'tier')})")
    for check in report.checks:
        detail = f": {check.detail}" if check.detail else ""
        print(f"  {'ok  ' if check.ok else 'FAIL'}  {check.name}{detail}")
    if musketeers:
        print(f"{report.positions_checked:,} stored values checked against their children "
              f"({report.musketeer_positions_resolved:,} musketeers-to-move values resolved, "
              f"{report.terminal_positions:,} finished positions) in {report.seconds:.1f} s")
    else:  # in the words of retro games: positions, and the table entries that hold them
        copies = getattr(report, "duplicate_entries", 0)
        empty = report.positions_checked - report.entries_checked  # copies are not counted there
        slots = (f"; {copies:,} entries holding a symmetric copy checked equal to theirs"
                 if copies else "") + (f"; {empty:,} slots of no position checked empty" if empty else "")
        print(f"{report.positions:,} positions in {report.entries_checked:,} table entries checked "
              f"against their children ({report.terminal_positions:,} finished{slots}) in "
              f"{report.seconds:.1f} s")
    if getattr(report, "resumed_tiers", 0):
        print(f"{report.resumed_tiers} of {report.tiers} tiers proven by an earlier run (their "
              f"values read again and unchanged; --fresh proves them again)")
    if report.disagreement_count:
        print(f"{report.disagreement_count:,} wrong values; the first:")
        for d in report.disagreements:
            if musketeers:
                print(f"  {d.position}: stored '{d.stored_outcome}', its children give "
                      f"'{d.expected_outcome}' ({d.rule})")
            else:
                print(f"  {d.position}: stored '{d.stored_outcome}' ({d.rule})")
    print("the database is correct" if report.ok else "the database is NOT correct")
    return 0 if report.ok else EXIT_FOUND_PROBLEMS


def _export(args: argparse.Namespace) -> int:
    from .db.format import DatabaseFile
    from .db.wdl import NOT_FOR_MORE_PLAYERS, NOT_FOR_MUSKETEERS, export_wdl, is_wdl_file

    if not args.wdl:
        raise UsageError("say which export: --wdl (win/draw/loss, the one there is)")
    if args.path is None and args.game is None and args.pieces is None:
        names = [name for name, cls in games.GAMES.items()
                 if name != games.DEFAULT_GAME and games.get(name).players == 2]
        raise UsageError("say which database to export: its PATH, or --game NAME for the game's "
                         f"file ({', '.join(names)})")
    path = _default_file(args)
    if is_wdl_file(path):
        raise UsageError(f"{path} is already a win/draw/loss export; export the database it came from")
    out = args.out if args.out is not None else path.with_name(f"{path.stem}-wdl.h5")
    if out.resolve() == path.resolve():
        raise UsageError(f"--out {out} is the database itself; name another file")
    check_output(out, "--out")  # --force or not: never a link, a device or a pipe
    check_output(out.with_name(out.name + ".tmp"))
    if out.exists() and not args.force:
        raise UsageError(f"{out} exists; give --force to replace it, or another --out")
    file = DatabaseFile(path, cache_bytes=0)
    try:
        if file.game.name == games.DEFAULT_GAME:
            raise UsageError(NOT_FOR_MUSKETEERS)
        if file.game.players > 2:
            raise UsageError(NOT_FOR_MORE_PLAYERS)
        entries = sum(file.dataset(t).shape[0] for t in file.tiers)
    finally:
        file.close()
    free = shutil.disk_usage(out.parent).free
    needed = entries // 8 + (64 << 20)  # at most about a bit an entry, as measured
    if free < needed:
        raise UsageError(f"not enough space for {out}: about {needed / 1e9:.1f} GB needed, "
                         f"{free / 1e9:.1f} GB free; free {(needed - free) / 1e9:.1f} GB or "
                         "choose another --out")
    bar = progress_bar(entries, "export", enabled=_bars(args), unit="entries")
    try:
        summary = export_wdl(path, out, threads=args.threads, option="--out",
                             progress=bar.update if bar is not None else None)
    finally:
        if bar is not None:
            bar.close()
    print(f"wrote {out}: {summary['entries']:,} entries in {summary['bytes']:,} bytes "
          f"({summary['bits_per_entry']:.3f} bits an entry) in {summary['seconds']:.1f} s")
    return 0


def _verify_export(path: Path, args: argparse.Namespace) -> int:
    """A win/draw/loss export: every block decoded and each tier's SHA-256 compared (its
    values were proven in the database it came from, whose digest it names)."""
    from .db.database import open_database

    started = time.monotonic()
    with open_database(path) as db:
        bar = progress_bar(len(db.tiers), "tiers", enabled=_bars(args), unit="tier", unit_scale=False)
        failed = []
        for tier in db.tiers:
            problem = db.check(tier)
            if problem is not None:
                failed.append({"tier": db.game.tier_name(tier), "problem": problem})
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        report = {"path": str(db.path), "game": db.game.full_name, "tiers": len(db.tiers),
                  "source_digest": db.source_digest, "damaged_tiers": failed,
                  "seconds": round(time.monotonic() - started, 3), "ok": not failed}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"verifying {path} (a win/draw/loss export of {report['game']}, {counted(report['tiers'], 'tier')})")
        print(f"  {'FAIL' if failed else 'ok  '}  every block's Fletcher32 and every tier's SHA-256"
              + "".join(f"\n        {f['tier']}: {f['problem']}" for f in failed[:args.max_reports]))
        print(f"exported from the database of content digest {report['source_digest']}, which "
              "retro verify proves position by position")
        print("the export is intact" if not failed else "the export is NOT intact")
    return 0 if not failed else EXIT_FOUND_PROBLEMS


def _game_in(path: Path):
    """The game of the database at ``path``; None when it cannot be read (the command
    that reads it then says why)."""
    from .db.format import DatabaseFile

    try:
        file = DatabaseFile(path, cache_bytes=0)
    except DatabaseError:
        return None
    try:
        return file.game
    finally:
        file.close()


def _proven_a_tier_at_a_time(path: Path) -> bool:
    """Whether ``retro verify`` keeps a proof log for this file (an out-of-core game)."""
    game = _game_in(path)
    return game is not None and bool(game.out_of_core)


def _analyze(args: argparse.Namespace) -> int:
    from .analyze import analysis_text, analyze, plot, plot_directory

    path = _default_file(args)
    if args.plot is not None:  # fail now, not after the whole analysis
        held = _game_in(path)
        if held is not None and held.name != games.DEFAULT_GAME:
            raise UsageError(f"--plot draws Three Musketeers' charts; {path} holds {held.full_name} "
                             "(retro analyze --json gives its numbers for a chart of your own)")
        plot_directory(args.plot)
    report = analyze(path, progress=_bars(args))
    charts = plot(report, args.plot) if args.plot is not None else []
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(analysis_text(report))
    for chart in charts:
        print(f"wrote {chart}", file=sys.stderr)
    return 0


# --- solve and crosscheck ------------------------------------------------------------------


def _method(args: argparse.Namespace, game) -> str:
    """The weak solver: the one asked for, else df-pn for Three Musketeers and
    alpha-beta for the other games it plays."""
    if args.method is not None:
        return args.method
    return DEFAULT_METHOD if game.name == games.DEFAULT_GAME else "alphabeta"


def _solve(args: argparse.Namespace) -> int:
    from .crosscheck import new_solver, warm_up
    from .search import alphabeta, dfpn

    forced = _forced_game(args)
    if args.db is not None or (forced is not None and forced.name == NINE):
        return _solve_by_search(args, forced)
    game, position = _read_position(args.position, forced)
    if args.method == "maxn" or game.players > 2:
        return _solve_maxn(args, game, position)
    if args.utilities is not None:
        raise UsageError("--utilities is for --method maxn")
    if args.board is not None:
        if game.name != games.DEFAULT_GAME:
            raise UsageError(f"--board is for {games.DEFAULT_GAME}, and the position is {game.title}")
        if args.board != position.size:
            raise UsageError(f"--board {args.board} but the position is {position.size}x{position.size}")
    method = _method(args, game)
    solver = new_solver(method, game, args.table_bits)
    with _notice_if_slow("compiling the solver (first run only; later runs read numba's cache)",
                         after=1.5):
        warm_up(method, game)  # keeps compilation out of the reported time
    solver.touch_table()  # and the first touch of the table's memory
    solve = dfpn.solve if method == "dfpn" else alphabeta.solve
    solution = solve(position, exact=args.exact, solver=solver)
    if args.json:
        print(json.dumps(dict(solution.as_dict(), method=method)))
        return 0
    stats = solution.stats
    print(position)
    winner = solution.winner
    if winner is None:
        print("a draw" + (" (the game is over)" if position.is_over() else " with perfect play"))
    elif position.is_over():
        print(f"{won_text(winner)} (the game is over)")
    elif solution.plies is None:
        print(f"{winner.title} {'win' if winner.plural else 'wins'}")
    else:
        print(f"{winner.title} {'win' if winner.plural else 'wins'} in "
              f"{solution.plies} {'ply' if solution.plies == 1 else 'plies'}")
    if solution.line:
        print("principal line: " + " ".join(str(m) for m in solution.line))
    elif solution.best_move:
        print(f"winning move: {solution.best_move}")
    if method == "dfpn":
        proof = ("" if stats.proof_size is None else
                 f"; proof: {stats.proof_size:,} positions, {stats.proof_depth} plies deep, "
                 f"walked in {stats.proof_seconds:.2f} s")
        print(f"df-pn: {stats.nodes:,} nodes, {stats.table_hits:,} table hits, "
              f"{stats.table_entries:,} of {stats.table_capacity:,} table entries used, "
              f"{stats.seconds:.2f} s{proof}")
    else:
        print(f"alpha-beta: {stats.nodes:,} nodes, {stats.table_hits:,} table hits, "
              f"{stats.cutoffs:,} cut-offs, {stats.seconds:.2f} s")
    return 0


def _solve_maxn(args: argparse.Namespace, game, position) -> int:
    """The max^n value of the tree grown breadth-first from ``position`` (retro.search.maxn)."""
    from .search.maxn import UtilitiesError, maxn, parse_utilities

    if args.method != "maxn":
        raise UsageError(f"{game.name} is searched by --method maxn (the report's max^n tree); "
                         "its exact values for every player are in its database: retro probe")
    for flag, given in (("--exact", args.exact), ("--board", args.board is not None),
                        ("--table-bits", args.table_bits is not None), ("--db", args.db is not None)):
        if given:
            raise UsageError(f"{flag} is not for --method maxn")
    players = len(game.sides)
    try:
        if args.utilities is not None:
            utilities = parse_utilities(args.utilities, players)
        elif hasattr(game, "report_utilities"):
            utilities = game.report_utilities
        else:
            raise UsageError(f"{game.name} has no utility vectors of its own: give --utilities")
        result = maxn(position, utilities, key=getattr(game, "tree_key", None))
    except UtilitiesError as error:
        raise UsageError(str(error)) from None
    names = [side.value for side in game.sides]
    if args.json:
        print(json.dumps(dict(result.as_dict(names), game=game.full_name, method="maxn")))
        return 0
    print(position)
    if result.value is None:
        print("max^n value: none (every move leads to a repeated state)")
    else:
        print("max^n value: {" + ", ".join(f"{n}: {v}" for n, v in zip(names, result.value)) + "}")
    if result.line:
        print("max^n line: " + " ".join(result.line))
    print(f"tree: {result.states:,} states (breadth first), {result.repeated:,} repeated states "
          f"marked, {result.finished:,} finished, {result.depth} plies deep, {result.seconds:.2f} s")
    return 0


def _solve_by_search(args: argparse.Namespace, forced) -> int:
    """Nine men's morris: alpha-beta over the placement phase down to a moving-phase
    database (retro.search.nine)."""
    from .db.format import DatabaseFile
    from .db.leaves import Leaves, LeavesError
    from .search.nine import SearchError, solve

    if args.db is None:
        raise UsageError(f"{NINE}: give --db, a database holding its moving phase (retro build "
                         "--game nine-mens-morris --stage moving)")
    file = DatabaseFile(args.db, cache_bytes=0)
    held = file.game
    file.close()
    if held.name != NINE:
        raise UsageError(f"--db {args.db} holds {held.full_name}: the search is for {NINE}")
    game = forced or held  # another variant's moving phase holds this one's
    position = game.parse(args.position)
    if args.method is not None or args.exact:
        raise UsageError(f"{NINE} is solved by alpha-beta over its placement phase: it answers who "
                         "wins, without --method or --exact")
    try:
        with _notice_if_slow("reading the moving phase's values", after=1.5):
            leaves = Leaves(args.db).for_game(game)
        result = solve(position, leaves, **({"table_bits": args.table_bits} if args.table_bits else {}))
    except (SearchError, LeavesError) as error:
        raise UsageError(str(error)) from None
    if args.json:
        print(json.dumps(result.as_dict()))
        return 0
    print(position)
    if result.winner is None:
        print("a draw" + (" (the game is over)" if position.is_over() else " with perfect play"))
    else:
        side = position.side if result.result == 1 else position.side.other
        print(f"{side.title} wins")
    if result.best_move:
        print(f"{'a move that keeps it' if result.result < 1 else 'winning move'}: {result.best_move}")
    print(f"alpha-beta over the placement phase: {result.nodes:,} nodes, {result.leaves:,} "
          f"moving-phase leaves read, {result.seconds:.2f} s")
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    """Score an agent against the perfect player and random play (retro.env.evaluate)."""
    from .db.database import open_database
    from .env.evaluate import AgentError, evaluate, load_agent, plot, report_text

    forced = _forced_game(args)
    try:
        agent = load_agent(args.agent)
    except AgentError as error:
        raise UsageError(str(error)) from None
    db = open_database(args.db, game=forced) if args.db is not None else open_database(game=forced or games.get())
    with db:
        try:
            report = evaluate(agent, db, games=args.games, opponents=tuple(args.opponent or ("perfect", "random")),
                              seed=args.seed, max_plies=args.max_plies, name=args.agent)
        except AgentError as error:
            raise UsageError(str(error)) from None
    charts = plot(report, args.plot) if args.plot is not None else []
    print(json.dumps(report, indent=2) if args.json else report_text(report))
    for chart in charts:
        print(f"wrote {chart}", file=sys.stderr)
    return 0


def _crosscheck(args: argparse.Namespace) -> int:
    from .crosscheck import crosscheck
    from .db.database import open_database

    with open_database(args.db) as db:  # fails early, with the build hint, if missing
        method = _method(args, db.game)
    bar = progress_bar(args.samples, "crosscheck", enabled=_bars(args), unit_scale=False)
    try:
        report = crosscheck(args.db, samples=args.samples, seed=args.seed, exact=args.exact,
                            workers=args.workers, table_bits=args.table_bits, method=method,
                            progress=(lambda done: bar.update(done - bar.n)) if bar else None)
    finally:
        if bar is not None:
            bar.close()
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        what = "winner and plies" if report.exact else "winner"
        origins = ", ".join(f"{count:,} {origin}" for origin, count in report.by_origin.items())
        print(f"{report.samples:,} positions ({origins}; {report.distinct:,} distinct) solved "
              f"by {SOLVER_NAMES[report.method]} ({what}) and probed in {report.path}: "
              f"{report.agreed:,} agree, "
              f"{len(report.disagreements):,} disagree ({report.seconds:.1f} s, "
              f"{report.nodes:,} nodes)")
        for d in report.disagreements:
            print(f"  {d.position} ({d.origin}): database {d.database}, "
                  f"{SOLVER_NAMES[report.method]} {d.solver}")
    return 0 if report.ok else EXIT_FOUND_PROBLEMS


# --- serve ----------------------------------------------------------------------------------


def _serve(args: argparse.Namespace) -> int:
    from .web.server import serve

    return serve(args.db, host=args.host, port=args.port, workers=args.workers,
                 limits=Limits(head_timeout=args.head_timeout, body_timeout=args.body_timeout,
                               keep_alive=args.keep_alive, max_connections=args.max_connections))


def run() -> None:
    """Console-script entry point."""
    if sys.stderr is None:  # started with 2>&-: errors have nowhere to go but the status
        sys.stderr = open(os.devnull, "w")
    if sys.stdout is None:
        sys.exit(_fail("standard output is closed; retro writes its answers there"))
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader left early (``retro probe < positions | head``): stop quietly.
        _silence_stdout()
        code = EXIT_BROKEN_PIPE
    except OSError as error:  # a full disk behind > file, a closed descriptor, ...
        _silence_stdout()
        code = _fail(_os_error_text(error))
    sys.exit(code)


def _os_error_text(error: OSError) -> str:
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename:
        return f"{error.filename}: {reason}"
    if error.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EBADF, errno.EIO):
        return f"cannot write to standard output: {reason}"
    return reason


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot fail too."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    run()
