"""Chess endgames: tables against an independent solver (tests/chess_oracle.py:
python-chess's legal moves, a plain retrograde analysis), the longest mates published
since Ströhlein and Thompson, both colours from one table, the notation.

The oracle solves a table from White's pieces and Black's; retro's table holds both
colours, so every position is probed as it is and with the colours swapped (the board
mirrored top to bottom, python-chess's ``Board.mirror``): the same value from the side to
move's view. The heavy tables (every 3-piece table, two of 4 pieces) run with
``RETRO_SLOW_TESTS=1 python -m pytest -n 0 tests/test_chess.py``.
"""

from __future__ import annotations

import os

import chess
import numpy as np
import pytest

import chess_oracle
from retro import games
from retro.db.database import open_database
from retro.db.format import DatabaseFile
from retro.games.kit import numbering
from retro.errors import IllegalMoveError, MoveSyntaxError, NotationError, PositionError
from retro.values import draw_value, not_a_position

_SLOW = pytest.mark.skipif(os.environ.get("RETRO_SLOW_TESTS") != "1",
                           reason="heavy: run with RETRO_SLOW_TESTS=1 python -m pytest -n 0 tests/test_chess.py")


@pytest.fixture(scope="session")
def chess3(databases):
    return databases("chess", "3")


def _board(key) -> chess.Board:
    turn, pieces = key
    board = chess.Board(None)
    board.turn = turn
    for square, symbol in pieces:
        board.set_piece_at(square, chess.Piece.from_symbol(symbol))
    return board


def _expected(value, dtype) -> int:
    result, plies = value
    return draw_value(dtype) if result == "draw" else 2 * plies + (result == "win")


def _entries(game, tier, keys) -> np.ndarray:
    """The table entry of each oracle position, from the stored view the kit documents:
    the side to move's pieces kinds 7..12 (K Q R B N P), the other's 1..6, the board
    mirrored rank-wise for Black to move; the parts numbered one after the other."""
    parts, offsets, number = game._part_offsets(tier)
    tables = game.tables_of(tier)
    board = np.zeros(64, dtype=np.uint8)
    masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    out = np.empty(len(keys), dtype=np.int64)
    for i, (turn, pieces) in enumerate(keys):
        board[:] = 0
        for square, symbol in pieces:
            kind = "KQRBNP".index(symbol.upper()) + (7 if symbol.isupper() == turn else 1)
            board[square if turn == chess.WHITE else square ^ 56] = kind
        part = tuple(int(c) for c in np.bincount(board, minlength=13)[1:]) + (0,)
        entry = numbering.entry_of(board, np.array(part[:12], dtype=np.int64), tables, masks)[0]
        out[i] = offsets[number[part]] + entry
    return out


def _agree(path, white: str, black: str, probed: int = 300) -> None:
    """Every position of the oracle's table ``white`` v ``black`` has the oracle's value
    in retro's table; ``probed`` of them (spread over the table), and each with its
    colours swapped, probe to it through FEN."""
    values = chess_oracle.solve(white, black)
    game = games.get("chess", "3")
    name = f"{white}v{black}"
    file = DatabaseFile(path)
    try:
        tier = next(t for t in file.tiers if game.tier_name(t) == name)
        table = game.from_stored(tier, file.read(tier))
    finally:
        file.close()
    keys = list(values)
    expected = np.array([_expected(v, game.value_dtype) for v in values.values()], dtype=np.int64)
    assert np.array_equal(table[_entries(game, tier, keys)].astype(np.int64), expected), name
    with open_database(path) as db:
        for key in keys[::max(1, len(keys) // probed)]:
            board = _board(key)
            for shown in (board, board.mirror()):
                outcome = db.probe(shown.fen(en_passant="legal"))
                result, plies = values[key]
                assert outcome.plies == plies and (result == "draw") == outcome.is_draw, shown.fen()
                assert outcome.is_draw or outcome.side_to_move_wins == (result == "win"), shown.fen()


def test_kqk_agrees_with_the_oracle_in_every_position(chess3):
    _agree(chess3, "KQ", "K")


@_SLOW
@pytest.mark.parametrize("white,black", [("KR", "K"), ("KB", "K"), ("KN", "K"), ("KP", "K")])
def test_every_three_piece_table_agrees_with_the_oracle(chess3, white, black):
    _agree(chess3, white, black)


def test_the_longest_mates_are_the_published_ones(chess3):
    """KQK: mate in 10 moves; KRK: in 16; KPK: in 28 (Thompson; Nalimov's tables): a
    win of 2n - 1 plies, the loser to move mated in 2n."""
    game = games.get("chess", "3")
    file = DatabaseFile(chess3)
    try:
        for name, moves in (("KQvK", 10), ("KRvK", 16), ("KPvK", 28)):
            tier = next(t for t in file.tiers if game.tier_name(t) == name)
            values = game.from_stored(tier, file.read(tier)).astype(np.int64)
            known = values < min(draw_value(game.value_dtype), not_a_position(game.value_dtype))
            assert (values[known & (values & 1 == 1)] >> 1).max() == 2 * moves - 1, name
            assert (values[known & (values & 1 == 0)] >> 1).max() == 2 * moves, name
    finally:
        file.close()


def test_the_notation_reads_fen_and_writes_uci():
    game = games.get("chess", "3")
    position = game.parse("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")
    assert str(position) == "8/8/8/8/8/2k5/8/KQ6 w - -"
    assert position.game.materials[-1] == "KPvK" or "KQvK" in position.game.materials
    assert "b1b2" in [m.text for m in position.legal_moves()]
    assert str(position.play("Qb2+")) == str(position.play("b1b2"))
    with pytest.raises(IllegalMoveError):
        position.play("b1h8")
    with pytest.raises(MoveSyntaxError):
        game.parse_move("zz")
    with pytest.raises(NotationError):
        game.parse("8/8/8/8/8/2k5/8/KQ6 w KQ -")
    with pytest.raises(PositionError):
        game.parse("8/8/8/8/8/2k5/8/Kq6 b - -")  # White, not to move, in check
    pawn = game.parse("8/4P3/8/8/8/2k5/8/K7 w - -")
    assert {m.text for m in pawn.legal_moves()} >= {"e7e8q", "e7e8r", "e7e8b", "e7e8n"}
    assert pawn.game.san(pawn, pawn.game.parse_move("e7e8q")) == "e8=Q"


def test_both_colours_share_one_table(chess3):
    with open_database(chess3) as db:
        white = db.probe("8/8/8/8/8/2k5/8/KQ6 w - -")
        black = db.probe("kq6/8/2K5/8/8/8/8/8 b - -")
        assert white.plies == black.plies and white.side_to_move_wins == black.side_to_move_wins


def test_the_positions_counted_are_the_oracles_both_colours():
    """KQvK holds every legal placement of White's king and queen and Black's king with
    either side to move (the oracle's positions, every symmetric image), and as many with
    the colours swapped; the counts ``retro games`` lists (positions.json) are the kit's
    own pass over the tables."""
    game = games.get("chess", "3")
    transforms = chess_oracle._transforms(False)
    images = sum(len({tuple(sorted((t[s], p) for s, p in pieces)) for t in transforms})
                 for _, pieces in chess_oracle.solve("KQ", "K"))
    tier = next(t for t in game.tiers() if game.tier_name(t) == "KQvK")
    assert game.positions_in(tier) == 2 * images
    for tier in game.tiers():
        assert game.positions_in(tier) == game.count_positions(tier), game.tier_name(tier)


def test_the_scan_takes_the_rules_own_kernels():
    """The kit binds chess's combined kernels (a rules kernel the game's module does not
    import is silently replaced by the kit's generic calls): ``outcome_moves`` and
    ``outcome_moves_quiet``, which the scan of a table calls, and ``unmoves_moved``, which
    its un-moves call."""
    module = games.get("chess", "3").rules_module
    assert module._kit_outcome_moves.py_func.__name__ == "_kit_outcome_moves_of_masks"
    assert module._kit_outcome_moves_quiet.py_func.__name__ == "_kit_outcome_moves_quiet_of_masks"
    assert module._KIT_MOVED  # the un-moves as moved pieces: _kit_parents_moved_span
    assert module._kit_unmoves_moved.py_func.__name__ == "_kit_unmoves_moved_of_masks"
