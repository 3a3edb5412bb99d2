"""Chess endgame rules (retro.games.chess.rules, the kit's kernels over cell sets)
against python-chess, the independent oracle, on thousands of random positions of 2 to
5 pieces (both sides to move, pawns, en-passant squares): the outcome (checkmate,
stalemate, illegal), the children of every legal move, the un-moves both ways; and
the FEN converter (retro.games.chess.fen) against python-chess's FEN.

The positions are built with python-chess and turned into rows by the converter here
(``row_of``), written from the kit's conventions, not from the code under test:
squares a1 = 0, kinds K Q R B N P as 1..6 (the other side's) and 7..12 (the mover's),
the board mirrored (python-chess's ``square_mirror``) for Black to move, then the
en-passant file + 1. The kernels hold the en-passant state as a kind: the pawn that may
be taken en passant moved from kind 6 to kind 13 (``kernel_args``, ``from_kernel``).

Illegal, the rules' list: python-chess's status flags of kings, pawns on the back rank,
the side not to move in check (kings side by side among them) and an invalid
en-passant square; and an en-passant square (as python-chess keeps one after every
double step, capturable or not) that allows no legal capture, or whose double step
could not have been the last move (the side to move in check before it; this covers
python-chess's STATUS_IMPOSSIBLE_CHECK with an en-passant square). python-chess's
STATUS_TOO_MANY_CHECKERS and STATUS_IMPOSSIBLE_CHECK without an en-passant square are
unreachable checks the rules keep as positions (their values are the rules').
"""

from __future__ import annotations

import random

import chess
import numpy as np
import pytest

from retro.errors import NotationError, PositionError
from retro.games.chess import fen, rules
from retro.games.kit import DRAWN, ILLEGAL, LOST, OPEN

CONSTS = rules.tables()
ORDER = (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)
OUR_FLAGS = (chess.STATUS_NO_WHITE_KING | chess.STATUS_NO_BLACK_KING | chess.STATUS_TOO_MANY_KINGS
             | chess.STATUS_PAWNS_ON_BACKRANK | chess.STATUS_OPPOSITE_CHECK | chess.STATUS_INVALID_EP_SQUARE)


def signed(m: int) -> int:
    return m - (1 << 64) if m >= 1 << 63 else m


def view(board: chess.Board, sq: int) -> int:
    return sq if board.turn == chess.WHITE else chess.square_mirror(sq)


def row_of(board: chess.Board, ep: int | None = None) -> tuple:
    """The kernels' row of a python-chess board: empty squares, the 12 kinds, then the
    en-passant state (``ep``, or python-chess's when a capture en passant is legal)."""
    sets = [0] * 13
    for sq, piece in board.piece_map().items():
        kind = ORDER.index(piece.piece_type) + (7 if piece.color == board.turn else 1)
        sets[kind] |= 1 << view(board, sq)
    sets[0] = ((1 << 64) - 1) ^ (sum(sets[1:]))
    if ep is None:
        ep = chess.square_file(board.ep_square) + 1 if board.has_legal_en_passant() else 0
    return tuple(signed(m) for m in sets) + (ep,)


def board_of(row, turn: bool) -> chess.Board:
    """A row (from ``turn``'s view) as a python-chess board."""
    board = chess.Board(None)
    board.turn = turn
    for kind in range(1, 13):
        m = int(row[kind]) & ((1 << 64) - 1)
        for s in range(64):
            if m >> s & 1:
                color = turn if kind >= 7 else not turn
                board.set_piece_at(s if turn == chess.WHITE else chess.square_mirror(s),
                                   chess.Piece(ORDER[(kind - 1) % 6], color))
    if row[13]:
        board.ep_square = chess.square(int(row[13]) - 1, 5 if turn == chess.WHITE else 2)
    return board


def kernel_args(row):
    """The kernels' masks and tier of a row: the other side's pawn on ``32 + file`` of the
    en-passant state as kind 13; None for a state with no pawn there (no kernel row can
    hold it: no position)."""
    masks = [int(m) for m in row[:13]] + [0]
    if row[13]:
        bit = 1 << (32 + int(row[13]) - 1)
        if not masks[6] & bit:
            return None
        masks[6] &= ~bit
        masks[13] = bit
    counts = [bin(m & ((1 << 64) - 1)).count("1") for m in masks[1:]]
    return np.array(masks, dtype=np.int64), np.array(counts, dtype=np.int64)


def from_kernel(out) -> tuple:
    """A kernel's row as a row here: a pawn of kind 13 back among kind 6, its file + 1 last."""
    masks = [int(v) for v in out[:14]]
    ep = 0
    if masks[13]:
        ep = ((masks[13] & -masks[13]).bit_length() - 1) % 8 + 1
        masks[6] |= masks[13]
    return tuple(masks[:13]) + (ep,)


def expected_illegal(board: chess.Board) -> bool:
    if board.status() & OUR_FLAGS:
        return True
    if board.ep_square is None:
        return False
    return not board.has_legal_en_passant() or checked_before(board)


def checked_before(board: chess.Board) -> bool:
    """Whether the side to move was in check before the double step that the
    en-passant square says was the last move (python-chess's valid square assumed)."""
    before = board.copy(stack=False)
    down = -8 if board.turn == chess.WHITE else 8
    pawn = before.remove_piece_at(board.ep_square + down)
    before.set_piece_at(board.ep_square - down, pawn)
    before.turn = not board.turn
    before.ep_square = None
    return before.was_into_check()


def random_board(rng: random.Random) -> chess.Board:
    """Two kings and 0..3 more pieces (pawns often, mostly on ranks 2..7), either side to
    move; a third of them with an en-passant square: after a double step played by
    python-chess, or set at random on the right rank with a pawn in front of it."""
    while True:
        board = chess.Board(None)
        squares = rng.sample(range(64), 5)
        board.turn = rng.random() < 0.5
        if rng.random() < 0.3:  # the mover's king on the edge, the other's facing it: mates
            file, rank = rng.randrange(8), rng.choice((0, 7))
            kings = [chess.square(file, rank), chess.square(file, 2 if rank == 0 else 5)]
            if board.turn == chess.BLACK:
                kings.reverse()
            squares = kings + [s for s in squares if s not in kings]
        board.set_piece_at(squares[0], chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(squares[1], chess.Piece(chess.KING, chess.BLACK))
        way = rng.random()
        for sq in squares[2:2 + rng.randrange(4)]:
            kind = rng.choice((chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN, chess.PAWN))
            if kind == chess.PAWN and rng.random() < 0.95:
                sq = chess.square(chess.square_file(sq), rng.randrange(1, 7))
                if board.piece_at(sq):
                    continue
            board.set_piece_at(sq, chess.Piece(kind, rng.random() < 0.5))
        if way < 0.2:  # a double step of the side not to move, played
            pusher = not board.turn
            file = rng.randrange(8)
            start = chess.square(file, 1 if pusher == chess.WHITE else 6)
            beside = chess.square(file + rng.choice((-1, 1)) if 0 < file < 7 else (1 if file == 0 else 6),
                                  3 if pusher == chess.WHITE else 4)
            if board.piece_map().__len__() > 4 or board.piece_at(start) or board.piece_at(beside):
                continue
            board.set_piece_at(start, chess.Piece(chess.PAWN, pusher))
            if rng.random() < 0.8:
                board.set_piece_at(beside, chess.Piece(chess.PAWN, not pusher))
            if len(board.piece_map()) > 5:
                continue
            board.turn = pusher
            if not board.is_valid():
                continue
            move = chess.Move(start, start + (16 if pusher == chess.WHITE else -16))
            if move not in board.legal_moves:
                continue
            board.push(move)
            board = board.copy(stack=False)
        elif way < 0.36:  # an en-passant square set at random, a pawn of the other side before it,
            # often one of the mover's beside it, the mover's king sometimes where the pawn
            # before its double step attacked it
            file = rng.randrange(8)
            rank, ahead = (4, 1) if board.turn == chess.WHITE else (3, -1)
            pawn = chess.square(file, rank)
            side = file + rng.choice((-1, 1)) if 0 < file < 7 else (1 if file == 0 else 6)
            if board.piece_at(pawn) or len(board.piece_map()) > 4:
                continue
            board.set_piece_at(pawn, chess.Piece(chess.PAWN, not board.turn))
            if rng.random() < 0.7 and not board.piece_at(chess.square(side, rank)) and len(board.piece_map()) < 5:
                board.set_piece_at(chess.square(side, rank), chess.Piece(chess.PAWN, board.turn))
            if rng.random() < 0.3 and not board.piece_at(chess.square(side, rank + ahead)):
                board.remove_piece_at(board.king(board.turn))
                board.set_piece_at(chess.square(side, rank + ahead), chess.Piece(chess.KING, board.turn))
            board.ep_square = chess.square(file, rank + ahead)
        elif way < 0.45:  # pawns side by side on the fifth rank of the side not to move: its
            # parents may have an en-passant state (the side to move's double step)
            file = rng.randrange(8)
            side = file + rng.choice((-1, 1)) if 0 < file < 7 else (1 if file == 0 else 6)
            rank = 4 if board.turn == chess.BLACK else 3
            if len(board.piece_map()) > 3 or board.piece_at(chess.square(file, rank)) \
                    or board.piece_at(chess.square(side, rank)):
                continue
            board.set_piece_at(chess.square(file, rank), chess.Piece(chess.PAWN, not board.turn))
            board.set_piece_at(chess.square(side, rank), chess.Piece(chess.PAWN, board.turn))
        elif way < 0.6:  # a line from the mover's king through one piece to a slider of the
            # other side: the mover's piece pinned, or the other side's, whose leaving opens it
            if len(board.piece_map()) > 3:
                continue
            king = board.king(board.turn)
            df, dr = rng.choice(((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)))
            near = rng.randint(1, 3)
            far = near + rng.randint(1, 4)
            f, r = chess.square_file(king) + df * near, chess.square_rank(king) + dr * near
            g, q = chess.square_file(king) + df * far, chess.square_rank(king) + dr * far
            if not (0 <= f < 8 and 0 <= r < 8 and 0 <= g < 8 and 0 <= q < 8):
                continue
            if any(board.piece_at(sq) for sq in chess.SquareSet(chess.between(king, chess.square(g, q)))) \
                    or board.piece_at(chess.square(g, q)):
                continue
            kinds = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT) + ((chess.PAWN,) if 0 < r < 7 else ())
            board.set_piece_at(chess.square(f, r), chess.Piece(rng.choice(kinds), rng.random() < 0.5))
            slider = rng.choice((chess.QUEEN, chess.ROOK if df == 0 or dr == 0 else chess.BISHOP))
            board.set_piece_at(chess.square(g, q), chess.Piece(slider, not board.turn))
        return board


def boards(seed: int, count: int):
    rng = random.Random(seed)
    return [random_board(rng) for _ in range(count)]


def children(row) -> set:
    masks, tier = kernel_args(row)
    out = np.zeros((256, rules.WIDTH), dtype=np.int64)
    n = rules.moves(masks, tier, CONSTS, out)
    assert n < rules.MAX_MOVES  # its last row is scratch
    found = [from_kernel(out[i]) for i in range(n)]
    assert len(set(found)) == n, "a child listed twice"
    return set(found)


def parents(row) -> list:
    masks, tier = kernel_args(row)
    out = np.zeros((256, rules.WIDTH), dtype=np.int64)
    n = rules.unmoves(masks, tier, CONSTS, out)
    assert n < rules.MAX_UNMOVES
    return [from_kernel(out[i]) for i in range(n)]


def outcome(row) -> int:
    args = kernel_args(row)
    return ILLEGAL if args is None else int(rules.outcome(*args, CONSTS))


@pytest.fixture(scope="module")
def sample():
    """(board, row) of 5,000 random boards, the row with python-chess's en-passant
    square as it holds it (capturable or not)."""
    found = []
    for board in boards(1, 5000):
        ep = chess.square_file(board.ep_square) + 1 if board.ep_square is not None else 0
        found.append((board, row_of(board, ep)))
    return found


def test_the_sample_covers_the_cases(sample):
    kinds = {"illegal": 0, "mate": 0, "stalemate": 0, "ep": 0, "ep illegal": 0, "ep checked before": 0,
             "promotion": 0, "black": 0, "pinned": 0, "shielding": 0, "pieces": set()}
    for board, row in sample:
        bad = expected_illegal(board)
        kinds["illegal"] += bad
        kinds["ep"] += row[13] > 0 and not bad
        kinds["ep illegal"] += row[13] > 0 and bad
        kinds["ep checked before"] += (row[13] > 0 and not board.status() & OUR_FLAGS
                                       and board.has_legal_en_passant() and checked_before(board))
        if not bad:
            kinds["mate"] += board.is_checkmate()
            kinds["stalemate"] += board.is_stalemate()
            kinds["promotion"] += any(m.promotion for m in board.legal_moves)
            kinds["black"] += board.turn == chess.BLACK
            kinds["pieces"].add(len(board.piece_map()))
            # the moves of a pinned piece, and the un-moves that open a line to the mover's king
            kinds["pinned"] += any(board.is_pinned(board.turn, sq) for sq in board.pieces(chess.PAWN, board.turn)
                                   | board.pieces(chess.KNIGHT, board.turn) | board.pieces(chess.BISHOP, board.turn)
                                   | board.pieces(chess.ROOK, board.turn) | board.pieces(chess.QUEEN, board.turn))
            kinds["shielding"] += shielding(board)
    assert kinds["pieces"] == {2, 3, 4, 5}
    for name in ("illegal", "mate", "stalemate", "ep", "ep illegal", "ep checked before", "promotion", "black",
                 "pinned", "shielding"):
        assert kinds[name] >= 10, (name, kinds)


def shielding(board) -> bool:
    """Whether a piece of the side not to move stands alone between a slider of its own
    and the mover's king, on the slider's line: its leaving would give check."""
    king = board.king(board.turn)
    other = not board.turn
    for sq in board.pieces(chess.QUEEN, other) | board.pieces(chess.ROOK, other) | board.pieces(chess.BISHOP, other):
        between = chess.SquareSet(chess.between(sq, king)) & board.occupied
        piece = board.piece_type_at(sq)
        straight = chess.square_file(sq) == chess.square_file(king) or chess.square_rank(sq) == chess.square_rank(king)
        if (len(between) == 1 and board.color_at(between.pop()) == other
                and (piece == chess.QUEEN or (piece == chess.ROOK) == straight)):
            return True
    return False


def test_outcome_agrees_with_python_chess(sample):
    for board, row in sample:
        got = outcome(row)
        if board.ep_square is not None and board.status() & chess.STATUS_IMPOSSIBLE_CHECK:
            assert expected_illegal(board), board.fen(en_passant="fen")
        if expected_illegal(board):
            assert got == ILLEGAL, board.fen(en_passant="fen")
        elif board.is_checkmate():
            assert got == LOST, board.fen()
        elif board.is_stalemate():
            assert got == DRAWN, board.fen()
        else:
            assert got == OPEN, board.fen()


def test_impossible_checks_without_en_passant_are_kept():
    """Three checkers, or two on one line through the king: python-chess calls them
    invalid, the rules keep them (the mover, in check from two sides, may have moves)."""
    for text in ("3r3k/8/8/1n6/3K4/1n6/8/8 w - - 0 1", "7k/8/8/8/r3K2r/8/8/8 w - - 0 1"):
        board = chess.Board(text)
        assert board.status() & (chess.STATUS_TOO_MANY_CHECKERS | chess.STATUS_IMPOSSIBLE_CHECK)
        assert not expected_illegal(board)
        expected = LOST if board.is_checkmate() else DRAWN if board.is_stalemate() else OPEN
        assert outcome(row_of(board)) == expected
        assert children(row_of(board)) == {row_of(_pushed(board, m)) for m in board.legal_moves}


def _pushed(board: chess.Board, move: chess.Move) -> chess.Board:
    after = board.copy(stack=False)
    after.push(move)
    return after


def test_kings_and_pawns_on_the_back_rank_are_illegal():
    for text in ("4k3/8/8/8/8/8/8/K3K3 w - - 0 1", "4k3/8/8/8/8/8/8/K2P4 b - - 0 1",
                 "3Pk3/8/8/8/8/8/8/K7 w - - 0 1", "8/8/8/8/8/8/1k6/K7 w - - 0 1"):
        board = chess.Board(text)
        assert expected_illegal(board)
        assert outcome(row_of(board, 0)) == ILLEGAL


def positions(sample):
    """The sample's positions, each with its en-passant square as it counts: only where a
    capture en passant is legal (a board illegal for another reason, or whose square
    marks a double step that could not have been the last move, left out)."""
    for board, _ in sample:
        if expected_illegal(board) and (board.ep_square is None or board.status() & OUR_FLAGS):
            continue
        if board.ep_square is not None and expected_illegal(board):
            board = board.copy(stack=False)
            if board.has_legal_en_passant():
                continue  # a double step that could not have been the last move
            board.ep_square = None
        yield board


def test_moves_agree_with_python_chess(sample):
    checked = 0
    for board in positions(sample):
        expected = {row_of(_pushed(board, m)) for m in board.legal_moves}
        assert children(row_of(board)) == expected, board.fen()
        checked += 1
    assert checked >= 2000


def test_outcome_moves_is_outcome_then_moves(sample):
    """The scan's one call: outcome's code, and the children of moves exactly when OPEN
    (the masks left as they were)."""
    for board, row in sample:
        args = kernel_args(row)
        if args is None:
            continue
        masks, tier = args
        before = masks.copy()
        out = np.zeros((rules.MAX_MOVES, rules.WIDTH), dtype=np.int64)
        code, n = rules.outcome_moves(masks, tier, CONSTS, out)
        assert (masks == before).all()
        assert code == outcome(row), board.fen()
        if code == OPEN:
            assert {from_kernel(out[i]) for i in range(n)} == children(row), board.fen()
        else:
            assert n == 0, board.fen()


def _one_long_diagonal(a: int, b: int) -> bool:
    return all(chess.square_rank(s) == chess.square_file(s) for s in (a, b)) or all(
        chess.square_rank(s) + chess.square_file(s) == 7 for s in (a, b))


def test_outcome_moves_quiet_counts_the_moves_of_order_one(sample):
    """The scan's call with counted moves: the moves that keep the material and lead to
    a position no reflection keeps in place (with pawns: none; without, unless both
    kings stand on one long diagonal) are counted, the others written, as python-chess
    has them."""
    checked = counted = diagonal = 0
    for board in positions(sample):
        row = row_of(board)
        masks, tier = kernel_args(row)
        out = np.zeros((rules.MAX_MOVES, rules.WIDTH), dtype=np.int64)
        code, n, quiet = rules.outcome_moves_quiet(masks, tier, CONSTS, out)
        assert code == outcome(row), board.fen()
        pawnless = not board.pieces(chess.PAWN, chess.WHITE) and not board.pieces(chess.PAWN, chess.BLACK)
        written, rest = set(), 0
        for move in board.legal_moves:
            after = _pushed(board, move)
            if board.is_capture(move) or move.promotion:
                written.add(row_of(after))
            elif pawnless and _one_long_diagonal(after.king(chess.WHITE), after.king(chess.BLACK)):
                written.add(row_of(after))
                diagonal += 1
            else:
                rest += 1
        assert {from_kernel(out[i]) for i in range(n)} == written, board.fen()
        assert quiet == rest, board.fen()
        checked += 1
        counted += rest
    assert checked >= 2000 and counted > 0 and diagonal > 0


def test_children_are_positions(sample):
    """Every child the rules give is a position (python-chess's view of it, converted
    back from the row, is legal), with its en-passant state where python-chess has a
    capture en passant."""
    for board, _ in sample[:800]:
        if expected_illegal(board):
            continue
        for child in children(row_of(board)):
            after = board_of(child, not board.turn)
            assert not expected_illegal(after), after.fen(en_passant="fen")


def test_unmoves_lead_back(sample):
    """Every parent the un-moves give is a position of the other side to move, and one
    of its moves, neither a capture nor a promotion, leads to the child."""
    checked = with_en_passant = 0
    for board, _ in sample[:1500]:
        if expected_illegal(board) and board.ep_square is None:
            continue
        row = row_of(board)  # the en-passant state as it counts
        if outcome(row) == ILLEGAL:
            continue
        found = parents(row)
        assert len(set(found)) == len(found), "a parent listed twice"
        for parent in found:
            before = board_of(parent, not board.turn)
            assert not expected_illegal(before), (board.fen(), before.fen(en_passant="fen"))
            assert row_of(before) == parent  # its en-passant state is python-chess's too
            left = [sq for sq, piece in before.piece_map().items() if board.piece_at(sq) != piece]
            came = [sq for sq, piece in board.piece_map().items() if before.piece_at(sq) != piece]
            assert len(left) == len(came) == 1, (board.fen(), before.fen())
            move = chess.Move(left[0], came[0])
            assert before.is_legal(move) and not before.is_capture(move), (board.fen(), before.fen())
            assert row_of(_pushed(before, move)) == row, (board.fen(), before.fen())
            checked += 1
            with_en_passant += parent[13] > 0
    assert checked >= 5000 and with_en_passant >= 20, (checked, with_en_passant)


def test_unmoves_moved_are_the_unmoves(sample):
    """``unmoves_moved`` (what the solver's un-moves call) gives the parents of
    ``unmoves``, in its order, as the board turned (its last row) with one piece moved
    and maybe one pawn as kind 13: each, applied, is ``unmoves``' row."""
    checked = retyped = 0
    for board, _ in sample[:1500]:
        args = kernel_args(row_of(board))
        if args is None or outcome(row_of(board)) == ILLEGAL:
            continue
        masks, tier = args
        rows = np.zeros((rules.MAX_UNMOVES, rules.WIDTH), dtype=np.int64)
        steps = np.zeros((rules.MAX_UNMOVES, rules.WIDTH), dtype=np.int64)
        n = rules.unmoves(masks.copy(), tier, CONSTS, rows)
        assert rules.unmoves_moved(masks, tier, CONSTS, steps) == n
        assert np.array_equal(masks, args[0])  # the board as it was
        base = [int(v) for v in steps[-1, :rules.WIDTH]]
        assert base[rules.GHOST] == 0
        for j in range(n):
            kind, start, back, cell, was, becomes = (int(v) for v in steps[j, :6])
            parent = list(base)
            moved = (1 << start) | (1 << back)
            parent[kind] ^= moved
            parent[0] ^= moved
            if cell >= 0:
                parent[was] ^= 1 << cell
                parent[becomes] ^= 1 << cell
                retyped += 1
            assert [signed(v & (1 << 64) - 1) for v in parent] == [int(v) for v in rows[j, :rules.WIDTH]], board.fen()
            checked += 1
    assert checked >= 5000 and retyped >= 20, (checked, retyped)


def test_every_quiet_move_is_undone(sample):
    """Every legal move neither a capture nor a promotion is undone: the child's
    un-moves list the parent (with its en-passant state)."""
    checked = 0
    for board, _ in sample[:1500]:
        row = row_of(board)
        if expected_illegal(board) and (board.ep_square is None or board.status() & OUR_FLAGS):
            continue
        if outcome(row) == ILLEGAL:
            continue
        for move in board.legal_moves:
            if board.is_capture(move) or move.promotion:
                continue
            assert row in parents(row_of(_pushed(board, move))), (board.fen(), move.uci())
            checked += 1
    assert checked >= 6000


def test_double_steps_and_en_passant_both_ways():
    """A double step answered by a legal capture en passant gives the state; one whose
    capture would leave the king in check does not, and is undone from the child
    without it."""
    board = chess.Board("4k3/8/8/8/5p2/8/4P3/4K3 w - - 0 1")
    after = _pushed(board, chess.Move.from_uci("e2e4"))
    assert row_of(after)[13] == 5
    assert row_of(after) in children(row_of(board))
    assert row_of(board) in parents(row_of(after))
    assert len(parents(row_of(after))) == 1  # the state: only the double step undone
    pinned = chess.Board("8/8/8/8/R4p1k/8/4P3/1K6 w - - 0 1")  # after e2e4, fxe3 bares the rank
    after = _pushed(pinned, chess.Move.from_uci("e2e4"))
    assert not after.has_legal_en_passant() and row_of(after)[13] == 0
    assert row_of(pinned) in parents(row_of(after))
    assert row_of(after) in children(row_of(pinned))


def test_fen_round_trips_with_python_chess(sample):
    checked = 0
    for board, row in sample:
        text = board.fen(en_passant="fen")
        try:
            side, cells, extras = fen.parse_fen(text)
        except PositionError:
            assert board.status() & OUR_FLAGS or (board.ep_square is not None and checked_before(board)), text
            continue
        assert not board.status() & OUR_FLAGS, text
        legal = board.copy(stack=False)
        if not legal.has_legal_en_passant():
            legal.ep_square = None
        assert not expected_illegal(legal), text
        assert fen.fen_of(side, cells, extras) == " ".join(legal.fen().split()[:4])
        assert side == (0 if board.turn == chess.WHITE else 1)
        assert extras == (row_of(board)[13],)
        assert tuple(fen.masks(fen.stored(side, cells))) + extras == row_of(board)
        assert fen.unstored(side, fen.stored(side, cells)) == cells
        checked += 1
    assert checked >= 2000


def test_fen_check_agrees_with_python_chess(sample):
    """The converter's check of a board of codes and an en-passant state (as python-chess
    holds it, capturable or not) raises exactly for the boards the rules call illegal."""
    raised = 0
    for board, row in sample:
        codes = [0] * 64
        for sq, piece in board.piece_map().items():
            codes[sq] = ORDER.index(piece.piece_type) + 1 + (0 if piece.color == chess.WHITE else 6)
        try:
            fen.check(0 if board.turn == chess.WHITE else 1, tuple(codes), (row[13],))
        except PositionError as error:
            assert expected_illegal(board), (board.fen(en_passant="fen"), str(error))
            assert "\n" not in str(error)
            raised += 1
        else:
            assert not expected_illegal(board), board.fen(en_passant="fen")
    assert raised >= 500


@pytest.mark.parametrize("text, error, words", [
    ("4k3/8/8/8/8/8/8/4K3 w KQ - 0 1", NotationError, "castling"),
    ("4k3/8/8/8/8/8/8/4K3 x - -", NotationError, "side to move"),
    ("4k3/8/8/8/8/8/4K3 w - -", NotationError, "7 ranks"),
    ("4k3/8/8/8/8/8/8/4K2 w - -", NotationError, "rank 1 has 7 squares"),
    ("4k3/8/8/8/8/8/8/4K2X w - -", NotationError, "unknown character"),
    ("4k3/8/8/8/8/8/8/4K3", NotationError, "fields"),
    ("4k3/8/8/8/8/8/8/4K3 w - e9", NotationError, "en-passant"),
    ("4k3/8/8/8/8/8/PPPP4/4K3 w - -", PositionError, "6 pieces"),
    ("8/8/8/8/8/8/8/4K3 w - -", PositionError, "Black has 0 kings"),
    ("4k3/8/8/8/8/8/8/3PK3 w - -", PositionError, "rank 1 or 8"),
    ("8/8/8/8/8/3k4/4K3/8 w - -", PositionError, "side by side"),
    ("4k3/8/8/8/8/8/8/r3K3 b - -", PositionError, "White, not to move, is in check"),
    ("4k3/4r3/8/8/8/8/8/4K3 b - -", PositionError, "White, not to move, is in check"),
    ("4k3/8/8/3Pp3/8/8/8/4K3 w - e3", PositionError, "rank 6"),
    ("4k3/8/8/3P4/8/8/8/4K3 w - e6", PositionError, "no black pawn on e5"),
    ("4k3/4n3/8/3Pp3/8/8/8/4K3 w - e6", PositionError, "must be empty"),
    ("4k3/8/8/3Pp3/8/8/8/r3K3 w - e6", PositionError, "in check before Black's double step"),
])
def test_fen_errors_say_what_is_wrong(text, error, words):
    with pytest.raises(error) as raised:
        fen.parse_fen(text)
    message = str(raised.value)
    assert words in message and "\n" not in message


def test_fen_drops_an_en_passant_square_no_capture_answers():
    assert fen.parse_fen("4k3/8/8/4p3/8/8/8/4K3 w - e6 0 2")[2] == (0,)
    side, cells, extras = fen.parse_fen("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 2")
    assert extras == (5,) and fen.fen_of(side, cells, extras) == "4k3/8/8/3Pp3/8/8/8/4K3 w - e6"
    with pytest.raises(PositionError, match="allows no legal capture"):
        fen.check(side, fen.parse_fen("4k3/8/8/4p3/8/8/8/4K3 w - -")[1], (5,))
