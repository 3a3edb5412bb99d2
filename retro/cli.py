"""The ``retro`` command line: ``retro build``, ``retro probe``.

Every failure the user can cause prints one line, ``retro: error: ...``, and exits
with status 2; no traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__, rules
from .position import Position, PositionError
from .storage import DatabaseError, DatabaseNotFoundError, default_path

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own usage errors: one line, status 2
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="retro",
        description="Strongly solve Three Musketeers by retrograde analysis, and query the result.",
        epilog="Positions are written like 'M XXXXO XXXXX XXOXX XXXXX OXXXX': side to move "
        "(M or E), then one group per row from row 1, columns a to e; O musketeer, "
        "X enemy man, . empty.",
    )
    parser.add_argument("--version", action="version", version=f"retro {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    build = commands.add_parser(
        "build",
        help="build (or resume) the database of a board size",
        description="Solve every position of a board size, layer by layer, and write the "
        "values to an HDF5 file. Each finished layer is checkpointed next to the output "
        "(<out>.partial/): if the build is interrupted, run the same command again to resume.",
    )
    build.add_argument("--board", type=int, default=rules.DEFAULT_SIZE, choices=rules.SIZES,
                       help="board size (default: 5)")
    build.add_argument("--out", type=Path, metavar="PATH",
                       help="output file (default: db/three-musketeers-NxN.h5)")
    build.add_argument("--max-guards", type=int, metavar="K",
                       help="build only layers 0..K: positions with at most K enemy men")
    build.add_argument("--threads", type=int, metavar="T",
                       help="worker threads (default: one per core)")
    build.add_argument("--force", action="store_true",
                       help="rebuild from scratch even if a database or checkpoints exist")
    build.add_argument("--quiet", action="store_true", help="no progress bar")

    probe = commands.add_parser(
        "probe",
        help="who wins a position, and in how many plies",
        description="Print the value of a position under perfect play: the winner and the "
        "number of plies to the end (the winner hurries, the loser delays).",
    )
    probe.add_argument("position", metavar="POSITION",
                       help="position, e.g. 'M XXXXO XXXXX XXOXX XXXXX OXXXX'")
    probe.add_argument("--db", type=Path, metavar="PATH",
                       help="database file (default: db/three-musketeers-NxN.h5 for the "
                       "position's board size)")
    probe.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            return _build(args)
        return _probe(args)
    except (PositionError, DatabaseError) as error:
        return _fail(str(error))
    except KeyboardInterrupt:
        print("\nretro: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _fail(message: str) -> int:
    print(f"retro: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def _build(args: argparse.Namespace) -> int:
    from .build import BuildError, build

    try:
        summary = build(
            args.board, args.out, args.max_guards, args.threads,
            force=args.force, progress=not args.quiet,
            log=lambda message: print(message, file=sys.stderr),
        )
    except BuildError as error:
        return _fail(str(error))
    except KeyboardInterrupt:
        print("\nretro: interrupted; run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    layers = f"layers 0..{summary.max_guards}"
    if summary.already_built:
        print(f"{summary.path} is already built ({layers}); pass --force to rebuild")
        return 0
    rate = summary.computed_positions / summary.seconds if summary.seconds else 0.0
    print(
        f"built {summary.path}: {summary.positions:,} positions ({layers}), "
        f"{summary.computed_positions:,} solved in {summary.seconds:.1f} s "
        f"({rate / 1e6:.1f} M positions/s), {summary.file_bytes / 1e6:.1f} MB"
    )
    return 0


def _probe(args: argparse.Namespace) -> int:
    from .probe import open_database

    position = Position.parse(args.position)
    path = args.db or default_path(position.size)
    try:
        db = open_database(path)
    except DatabaseNotFoundError:
        hint = f"retro build --board {position.size}"
        if args.db is not None:
            hint += f" --out {path}"
        return _fail(f"no database at {path}; build it with: {hint}")
    with db:
        outcome = db.probe(position)
    if args.json:
        print(json.dumps(outcome.as_dict()))
    else:
        print(f"{position}: {outcome}")
    return 0


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
