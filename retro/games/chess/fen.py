"""FEN to and from the kit's board and extras, in plain Python (the future notation).

A position is FEN's first four fields: the pieces (rank 8 first, ``KQRBNP`` White's,
``kqrbnp`` Black's, digits for empty squares), the side to move (``w``/``b``), the
castling rights (always ``-``: no castling here) and the en-passant square (``-`` or
the square behind the pawn that has just made a double step). The half-move clock and
move number may follow; they are read as numbers and dropped.

The kit's board (:func:`parse_fen`'s ``board``): 64 notation codes, square a1 = 0 ..
h8 = 63, 0 empty, 1..6 White's K Q R B N P, 7..12 Black's (``PIECES``); the extras,
one: the en-passant state, 0 none or ``1 + file``. :func:`stored` turns a board to the
kernels' view (the side to move's: kinds 1..6 the other side's K..P, 7..12 the
mover's, squares mirrored rank-wise, s ^ 56, for Black to move), :func:`unstored`
back.

An en-passant square counts only where a capture en passant is legal: one that could
be there (the pawn that just moved two squares in front of it, it and the square
behind it empty, the side to move not in check before the double step) but allows no
legal capture is dropped, as FEN written by python-chess leaves it out; one that could
not be there is an error. Every error is one line, a :class:`~retro.errors.NotationError`
for text that is no FEN (or castling rights), a :class:`~retro.errors.PositionError`
for a board that is no position here: a side without exactly one king, more than 5
pieces, a pawn on rank 1 or 8, kings side by side, the side not to move in check, an
impossible en-passant square.
"""

from __future__ import annotations

import re

from ...errors import (
    NotationError,
    PositionError,
    RowCountError,
    RowLengthError,
    SideError,
    UnknownCharacterError,
    quoted,
)

PIECES = "KQRBNPkqrbnp"  # notation codes 1..12: White's K Q R B N P, then Black's
FILES = "abcdefgh"
MAX_PIECES = 5
WHITE, BLACK = 0, 1
SIDE_NAMES = ("White", "Black")
_NAMES = ("king", "queen", "rook", "bishop", "knight", "pawn")
_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_KNIGHT = ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))


def square_name(s: int) -> str:
    return f"{FILES[s % 8]}{s // 8 + 1}"


def _code(side: int, kind: int) -> int:
    """The notation code of ``side``'s piece of type ``kind`` (0 K .. 5 P)."""
    return 1 + kind + 6 * side


def attacked(board, square: int, by: int) -> bool:
    """Whether ``square`` is attacked by side ``by``'s pieces on ``board`` (codes)."""
    r, f = divmod(square, 8)

    def at(dr, df):
        rr, ff = r + dr, f + df
        return board[8 * rr + ff] if 0 <= rr < 8 and 0 <= ff < 8 else -1

    king, queen, rook, bishop, knight, pawn = (_code(by, k) for k in range(6))
    if any(at(dr, df) == king for dr in (-1, 0, 1) for df in (-1, 0, 1) if dr or df):
        return True
    if any(at(dr, df) == knight for dr, df in _KNIGHT):
        return True
    behind = -1 if by == WHITE else 1  # White's pawns attack up the board
    if at(behind, -1) == pawn or at(behind, 1) == pawn:
        return True
    for steps, sliders in ((_ORTHOGONAL, (queen, rook)), (_DIAGONAL, (queen, bishop))):
        for dr, df in steps:
            i = 1
            while (code := at(dr * i, df * i)) == 0:
                i += 1
            if code in sliders:
                return True
    return False


def _king(board, side: int) -> int:
    return board.index(_code(side, 0))


def _capture_en_passant(board, side: int, file: int) -> bool:
    """Whether ``side`` (to move) may legally capture en passant on ``file``."""
    rank, ahead = (4, 1) if side == WHITE else (3, -1)
    victim, target = 8 * rank + file, 8 * (rank + ahead) + file
    for df in (-1, 1):
        if 0 <= file + df < 8 and board[victim + df] == _code(side, 5):
            after = list(board)
            after[victim + df] = after[victim] = 0
            after[target] = _code(side, 5)
            if not attacked(after, _king(after, side), 1 - side):
                return True
    return False


def _en_passant_problem(board, side: int, file: int) -> str | None:
    """Why an en-passant square on ``file`` (``side`` to move) could not be there, or
    None (it could: the other side's pawn has just moved two squares)."""
    rank, ahead = (4, 1) if side == WHITE else (3, -1)
    name = square_name(8 * (rank + ahead) + file)
    mover, other = SIDE_NAMES[side], SIDE_NAMES[1 - side]
    pawn, behind, start = 8 * rank + file, 8 * (rank + ahead) + file, 8 * (rank + 2 * ahead) + file
    if board[pawn] != _code(1 - side, 5):
        return f"impossible en-passant square {name}: no {other.lower()} pawn on {square_name(pawn)}"
    if board[behind] or board[start]:
        return (f"impossible en-passant square {name}: {square_name(behind)} and {square_name(start)} "
                f"must be empty after {other}'s double step")
    before = list(board)
    before[pawn], before[start] = 0, _code(1 - side, 5)
    if attacked(before, _king(before, side), 1 - side):
        return (f"impossible en-passant square {name}: {mover} would have been in check "
                f"before {other}'s double step")
    return None


def check(side: int, board, extras) -> None:
    """Raise the error that says why (``side`` to move, ``board`` of codes, ``extras``
    the en-passant state) is no position; nothing if it is one."""
    if side not in (WHITE, BLACK):
        raise SideError(f"side to move must be 0 (White) or 1 (Black), not {side!r}")
    if len(board) != 64 or any(not isinstance(c, int) or not 0 <= c <= 12 for c in board):
        raise PositionError("a chess board is 64 squares of codes 0..12")
    if len(extras) != 1 or not isinstance(extras[0], int) or not 0 <= extras[0] <= 8:
        raise PositionError("a chess position has one extra: the en-passant state, 0 or 1 + its file")
    pieces = sum(1 for c in board if c)
    if pieces > MAX_PIECES:
        raise PositionError(f"{pieces} pieces: at most {MAX_PIECES} (the kings and 3 more)")
    for s in (WHITE, BLACK):
        kings = board.count(_code(s, 0))
        if kings != 1:
            raise PositionError(f"{SIDE_NAMES[s]} has {kings} kings: each side has one")
    for sq in list(range(8)) + list(range(56, 64)):
        if board[sq] in (_code(WHITE, 5), _code(BLACK, 5)):
            raise PositionError(f"a pawn on {square_name(sq)}: pawns never stand on rank 1 or 8")
    white, black = _king(board, WHITE), _king(board, BLACK)
    if max(abs(white // 8 - black // 8), abs(white % 8 - black % 8)) == 1:
        raise PositionError(f"the kings stand side by side on {square_name(white)} and {square_name(black)}")
    if attacked(board, _king(board, 1 - side), side):
        raise PositionError(f"{SIDE_NAMES[1 - side]}, not to move, is in check")
    if extras[0]:
        file = extras[0] - 1
        problem = _en_passant_problem(board, side, file)
        if problem:
            raise PositionError(problem)
        if not _capture_en_passant(board, side, file):
            name = square_name(8 * (5 if side == WHITE else 2) + file)
            raise PositionError(f"en-passant square {name} allows no legal capture: write none")


def parse_fen(text: str) -> tuple[int, tuple, tuple]:
    """``(side, board, extras)`` of a FEN (see the module docstring)."""
    if not isinstance(text, str):
        raise NotationError(f"a chess position must be FEN text, not {type(text).__name__}")
    fields = text.split()
    if not 4 <= len(fields) <= 6:
        raise NotationError(f"{len(fields)} fields: a chess position is FEN's first four "
                            "(pieces, side to move, castling '-', en-passant square)")
    placement, turn, castling, ep = fields[:4]
    for clock in fields[4:]:
        if not clock.isdigit():
            raise NotationError(f"{quoted(clock)} is no move count: FEN's last two fields are numbers")
    ranks = placement.split("/")
    if len(ranks) != 8:
        raise RowCountError(f"{len(ranks)} ranks: a chess board has 8, separated by '/'")
    board = [0] * 64
    for number, rank in enumerate(ranks):
        cells = []
        for ch in rank:
            if ch in "12345678":
                cells += [0] * int(ch)
            elif ch in PIECES:
                cells.append(PIECES.index(ch) + 1)
            else:
                raise UnknownCharacterError(f"unknown character {quoted(ch)} in rank {8 - number}: "
                                            "use KQRBNP, kqrbnp or the digits 1-8")
        if len(cells) != 8:
            raise RowLengthError(f"rank {8 - number} has {len(cells)} squares: a rank has 8")
        board[(7 - number) * 8:(8 - number) * 8] = cells
    if turn not in ("w", "b"):
        raise SideError(f"unknown side to move {quoted(turn)}: expected w or b")
    side = WHITE if turn == "w" else BLACK
    if castling != "-":
        raise NotationError(f"castling rights {quoted(castling)}: retro's chess endings have no castling, write '-'")
    state = 0
    if ep != "-":
        if not re.fullmatch(r"[a-h][1-8]", ep):
            raise NotationError(f"{quoted(ep)} is no en-passant square: write one such as e3, or '-'")
        file, rank = FILES.index(ep[0]), int(ep[1])
        if rank != (6 if side == WHITE else 3):
            raise PositionError(f"impossible en-passant square {ep}: with {SIDE_NAMES[side]} to move "
                                f"it stands on rank {6 if side == WHITE else 3}")
        state = file + 1
    check(side, board, (0,))  # the board first: the en-passant square's checks read its kings
    if state:
        problem = _en_passant_problem(board, side, state - 1)
        if problem:
            raise PositionError(problem)
        if not _capture_en_passant(board, side, state - 1):
            state = 0  # a double step no capture can answer: no en-passant state
    return side, tuple(board), (state,)


def fen_of(side: int, board, extras) -> str:
    """The FEN (four fields) of (``side``, ``board`` codes, ``extras``)."""
    check(side, tuple(board), tuple(extras))
    ranks = []
    for r in range(7, -1, -1):
        text, gap = "", 0
        for f in range(8):
            code = board[8 * r + f]
            if code:
                text += (str(gap) if gap else "") + PIECES[code - 1]
                gap = 0
            else:
                gap += 1
        ranks.append(text + (str(gap) if gap else ""))
    ep = "-" if not extras[0] else f"{FILES[extras[0] - 1]}{6 if side == WHITE else 3}"
    return f"{'/'.join(ranks)} {'wb'[side]} - {ep}"


def stored(side: int, board) -> tuple:
    """The board of codes seen by the side to move: the kernels' kinds (1..6 the other
    side's K..P, 7..12 the mover's), mirrored rank-wise for Black."""
    cells = [0] * 64
    for sq, code in enumerate(board):
        if code:
            owner, kind = divmod(code - 1, 6)
            cells[sq if side == WHITE else sq ^ 56] = kind + (7 if owner == side else 1)
    return tuple(cells)


def unstored(side: int, cells) -> tuple:
    """:func:`stored` undone: the board of codes from the side to move's view."""
    board = [0] * 64
    for sq, kind in enumerate(cells):
        if kind:
            mine, t = kind >= 7, (kind - 1) % 6
            board[sq if side == WHITE else sq ^ 56] = _code(side if mine else 1 - side, t)
    return tuple(board)


def masks(cells) -> list:
    """The kernels' cell sets of a stored board: the empty squares, then each kind's
    (ints as int64 holds them: h8, bit 63, makes a set negative)."""
    sets = [0] * 13
    for sq, kind in enumerate(cells):
        sets[kind] |= 1 << sq
    return [m - (1 << 64) if m >= 1 << 63 else m for m in sets]
