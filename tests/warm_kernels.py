"""Compile retro's numba kernels before the test workers start.

A fresh checkout has no numba cache, and the two xdist workers would each compile the
same kernels at the same moment (most of a cold run's extra minutes). conftest.py runs
this script twice, side by side, once per part, before the workers start: each part
runs small real workloads through the CLI, so that its kernels are compiled once and
cached, and the workers then read them from numba's cache. Nothing here is asserted
and a failing command is ignored: the tests report what is wrong. A kit game of the
tests' own (tests/teeko_board.py) is warmed by a step of its own (``STEPS``): numba
caches the kit's kernels by the file of the game's module, so that module is one this
script can import (not a test module).

``python tests/warm_kernels.py PART`` (0 or 1); the parts are balanced by their cold
compile time on a 2-core machine.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time

PARTS = {
    "0": [  # nine men's morris: its rules, unmove solver, out-of-core verify, analyze, export
        "build --game nine-mens-morris --variant 3 --out {d}/n3.h5",
        "verify {d}/n3.h5",
        "analyze {d}/n3.h5",
        "export --wdl {d}/n3.h5 --out {d}/n3-wdl.h5",
        "probe --db {d}/n3.h5 W 3 3 ... ... ... ...... ... ... ...",
        "solve --db {d}/n3.h5 W 3 3 ... ... ... ...... ... ... ...",
        "solve --method dfpn M XXXO XXXX XXOX OXXX",
        # the kit's kernels compiled into Dōbutsu shōgi's module (its parts and own un-moves)
        "build --game dobutsu --variant C --out {d}/dob.h5",
        "verify {d}/dob.h5",
        "analyze {d}/dob.h5",
        "probe --db {d}/dob.h5 S_-l-_---_-C-_-L-_-",
        # the kit's kernels compiled into tests/teeko_board.py (Teeko over a board)
        "board-teeko",
        # what tests call straight from Python: the kit's numbering, chess's rules kernels
        "numbering-and-chess-rules",
        # what only tests compile: the positions' passes, a census, an oracle's solver
        "passes-and-oracles",
    ],
    "1": [  # Three Musketeers, the small morris games, tic-tac-toe, the race, Teeko; alpha-beta
        "build --board 4 --out {d}/m4.h5",
        "verify {d}/m4.h5",
        "analyze {d}/m4.h5",
        "probe --db {d}/m4.h5 M XXXO XXXX XXOX OXXX",
        "solve --method alphabeta --exact M XXXO XXXX XXOX OXXX",
        "build --game three-mens-morris --out {d}/3mm.h5",
        "verify {d}/3mm.h5",
        "analyze {d}/3mm.h5",
        "build --game tic-tac-toe --out {d}/ttt.h5",
        "verify {d}/ttt.h5",
        "crosscheck --db {d}/m4.h5 --samples 20",
        "build --game four-player-race --out {d}/race.h5",
        "verify {d}/race.h5",
        "analyze {d}/race.h5",
        "probe --db {d}/race.h5 P1 a1 d1 d4 a4",
        # the kit's kernels, compiled into Teeko's module (every variant shares them)
        "build --game teeko --variant 4x4-3 --out {d}/teeko.h5",
        "verify {d}/teeko.h5",
        "analyze {d}/teeko.h5",
        "probe --db {d}/teeko.h5 B .... .... .... ....",
        # chess: the kit's kernels of tiers of parts with child tiers, its two symmetry groups
        "build --game chess --variant 3 --out {d}/chess.h5",
        "verify {d}/chess.h5",
        "analyze {d}/chess.h5",
        "probe --db {d}/chess.h5 8/8/8/8/8/2k5/8/KQ6 w - -",
    ],
}


def board_teeko(d: str) -> int:
    """The kit's kernels compiled into tests/teeko_board.py, as tests/test_kit_board.py
    runs them: its build (explicit: the expansion), the positions' moves."""
    from pathlib import Path

    from retro.engine.build import build
    from teeko_board import BoardTeeko

    game = BoardTeeko("4x4-3")
    build(game, Path(d) / "board-teeko.h5", progress=False)
    game.parse("B .... .... .... ....").play("a1").legal_moves()
    return 0


def numbering_and_chess_rules(d: str) -> int:
    """The kit's numbering (tests/test_kit_numbering.py) and chess's rules kernels
    (tests/test_chess_rules.py) called from Python: their own dispatchers, compiled for
    the arrays those tests pass (half a minute each on a fresh checkout)."""
    import numpy as np

    from retro.games.chess import rules
    from retro.games.kit import numbering
    from retro.games.kit.cells import grid_symmetries

    tables = numbering.build_tables(grid_symmetries(3, 4), 2)
    counts = np.array([1, 1, 0], dtype=np.int64)
    masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    board = np.zeros(12, dtype=np.uint8)
    numbering.tier_size(counts, tables)
    numbering.masks_at(0, counts, tables, masks, 1)
    numbering.entry_of_masks(masks, counts, tables, 1)
    numbering.advance(masks, counts, tables, 1)
    numbering.board_at(0, counts, tables, board, masks)
    numbering.entry_of(board, counts, tables, masks)
    row = np.zeros(rules.WIDTH, dtype=np.int64)
    row[1], row[7] = 1 << 60, 1  # the kings on a1 and e8
    row[0] = ~(row[1] | row[7])
    tier = np.zeros(13, dtype=np.int64)
    out = np.zeros((256, rules.WIDTH), dtype=np.int64)
    rules.outcome(row, tier, rules.tables())
    rules.moves(row, tier, rules.tables(), out)
    rules.unmoves(row, tier, rules.tables(), out)
    return 0


def passes_and_oracles(d: str) -> int:
    """What tests compile that no command does: the kit's pass counting positions, in
    chess's module and in Dōbutsu shōgi's (tests/test_chess.py, tests/test_dobutsu.py);
    the un-move census of chess KQvK (tests/test_kit_contract.py); the nine men's morris
    oracle's general solver (tests/test_nine_oracle.py). Each was ten seconds or so of
    compiling inside the tests on a fresh checkout; here it runs beside part 1, which
    takes longer."""
    import numpy as np

    import nine_oracle
    from retro import games
    from retro.games.kit import PieceGame
    from test_kit_contract import unmove_census

    chess = games.get("chess", "KQvK")
    tier = chess.tiers()[-1]
    chess.count_positions(tier)
    kernels = chess.tier_kernels(tier, {c: np.zeros(chess.tier_size(c), dtype=chess.value_dtype)
                                        for c in chess.child_tiers(tier)})
    unmove_census(kernels, chess.value_dtype)
    dobutsu = games.get("dobutsu", "C")
    PieceGame.positions_in(dobutsu, dobutsu.tiers()[0])
    nine_oracle.solve_game(3, 3)
    return 0


# steps that are no command: a function of the folder
STEPS = {"board-teeko": board_teeko, "numbering-and-chess-rules": numbering_and_chess_rules,
         "passes-and-oracles": passes_and_oracles}


def main(part: str) -> None:
    with tempfile.TemporaryDirectory(prefix="retro-warm-") as d:
        # The builds record themselves and verify keeps proof logs in the user's folders:
        # here, folders of this run's own (the same file proven before would be skipped).
        os.environ["XDG_DATA_HOME"] = os.environ["XDG_CACHE_HOME"] = d
        os.environ.pop("RETRO_DB_DIR", None)
        from retro.cli import main as retro

        for command in PARTS[part]:
            words = command.format(d=d).split()
            if words[0] in {"build", "verify", "analyze", "export", "crosscheck"}:
                words.append("--quiet")
            out = io.StringIO()
            started, code = time.perf_counter(), None
            with contextlib.suppress(BaseException), contextlib.redirect_stdout(out), \
                    contextlib.redirect_stderr(out):
                code = STEPS[command](d) if command in STEPS else retro(words)
            if os.environ.get("RETRO_WARM_VERBOSE"):  # to balance the parts
                print(f"{time.perf_counter() - started:6.1f} s  exit {code}  {command}",
                      file=sys.stderr)
                if code != 0:  # None: the step raised
                    print(out.getvalue()[-500:], file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
