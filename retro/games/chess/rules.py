"""Chess endgame rules as the kit's jitted kernels over cell sets (``kernels = "masks"``).

Squares: a1 = 0, b1 = 1, ..., h8 = 63 (``8 * rank + file``). Types, in this order:
K Q R B N P (0..5). Stored kinds, from the side to move's view: ``t + 1`` the other
side's type t (1 K .. 6 P), ``7 + t`` the mover's (7 K .. 12 P); ``masks[0]`` the
empty squares, ``masks[k]`` the squares of kind k, as int64 bit sets (h8 is bit 63,
the sign bit: every test of a square is ``m >> s & 1``, every square's bit
``np.int64(1) << s``; no mask is shifted as a whole). For Black to move the board is
seen mirrored rank-wise (square s as s ^ 56, the kit's ``turn``), so the mover's
pawns always move up the board (+8) and the other side's down.

The en-passant state is a kind of its own, kind 13 (:data:`GHOST`, ``masks[13]``, the
13th count of a tier): the other side's pawn that has just made a double step, where a
capture en passant is possible (from the mover's view it stands on ``32 + file``, the
capture goes to ``40 + file``; the file is the same in both views). So the numbering
gives the few boards with that right their own small part (that pawn on 8 squares),
with no extra. Everywhere else that pawn is a pawn of the other side. It is set only
where it matters and is possible: ``40 + file`` and ``48 + file`` empty, a capture en
passant legal (the mover's king not in check after it), and the position before the
double step legal (the pawn back on ``48 + file``: the mover's king not in check
there). Any other (two such pawns, one off its fourth rank) is ILLEGAL. ``moves``
gives a child that pawn after a double step exactly when the capture is legal (the
position before is the parent: legal).

``outcome``: ILLEGAL for a board without exactly one king a side, a pawn on rank 1
or 8, kings side by side, the side not to move in check, or an impossible
en-passant state (above); else LOST (checkmate: the mover has no legal move and is in
check), DRAWN (stalemate), or OPEN. Positions with checks that no legal move can give
(three checkers, two on one line through the king: python-chess's
STATUS_TOO_MANY_CHECKERS / STATUS_IMPOSSIBLE_CHECK without an en-passant square) are
kept: unreachable, but their values are those of the rules. ``outcome_moves``: the
code of ``outcome`` and, when OPEN, the children of ``moves``, the moves generated once.
``outcome_moves_quiet`` (what the solver's scan calls): the same, with the moves that
keep the material and lead to a position of stabiliser order 1 counted, not written:
every move but captures and promotions, and without pawns but those that leave both
kings on one long diagonal (the numbering folds the board's 8 symmetries there, and a
reflection along that diagonal may keep such a position in place).

``moves``: every legal move (no castling; promotion to Q, R, B or N), each child a row
of ``out``: its empty squares, then its 13 kinds (from the next mover's view: turned
rank-wise, owners swapped; the pawn of a double step as kind 13 where it may be taken
en passant).

``unmoves``: the parents, positions of the other side to move (from their own view,
rows as ``moves`` writes them) from which a legal move that is neither a capture nor
a promotion leads here: each of the other side's pieces (kinds 1..6 here) stepped back
to a square it came from over empty squares; a pawn back one square (never from its
first rank) or two (from rank 4 to rank 2 of its side, both squares empty). The child's
en-passant state says which: a position with state f has only the double step on
file f undone; one without it no double step after which a capture en passant would
be legal (that move leads to the state f instead). Each parent comes once with no
en-passant state and once more for each file on which its own en-passant state is
possible (the other side, the child's mover, may just have made that double step: its
pawn there as kind 13).
A parent is listed only if it is a position (the child's mover not in check there).
``unmoves_moved`` (what the solver's un-moves call) gives the same parents in the same
order as the kit's moved pieces: the board turned once, then each parent's piece (its
kind, the square it leaves, the square it goes back to) and, for a parent with its own
en-passant state, the pawn that becomes kind 13.

The bounds: at most 89 moves (the king and three queens), 89 un-moves (with three
queens the other side has no pawn, so no parent has an en-passant state; with pawns on
both sides the origins are fewer): :data:`MAX_MOVES` and :data:`MAX_UNMOVES` rows, the
last of which the kernels use as scratch (the board turned, every child's start).

``consts`` (:func:`tables`): one table, a row of 64 int64 sets each: king steps, knight
jumps, the pawns' captures (the squares a pawn moving up attacks from each square, then
one moving down) and the squares of each of 8 rays from each square (the square itself
left out; 0..3 N S E W, 4..7 NE NW SE SW): a slider's first piece on a ray is the
lowest square of the ray's occupied ones going up the board (N, E, NE, NW), the highest
going down, a bit scan instead of a walk square by square.

Legality is tested where it can fail: out of check, a move of a piece that shields no
line to its king (a slider right behind it) cannot leave the king in check, nor can
an un-move of the other side put it there but by the piece stepped back, or by a line
the piece opens by leaving its square.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from numba.cpython.unsafe.numbers import leading_zeros

from ...bits import lowest_bit_index, popcount
from ..kit import DRAWN, ILLEGAL, LOST, OPEN

KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN = range(6)  # types; kinds t + 1 (other's), t + 7 (mover's)
TYPES = 6
KINDS = 12
GHOST = 13  # the kind of the other side's pawn that may be taken en passant
WIDTH = 14  # a row: the empty squares, 13 kinds
MAX_MOVES = 96  # rows: 89 children at most, and scratch
MAX_UNMOVES = 96

_ONE = np.int64(1)
_LOW = 0x00FF00FF00FF00FF
_LOW2 = 0x0000FFFF0000FFFF
_LOW4 = 0x00000000FFFFFFFF
_RISING = 0b110101  # the rays whose squares rise from their start: N, E, NE, NW
# rows of the consts table
_KING_STEPS, _KNIGHT_JUMPS, _PAWN_UP, _PAWN_DOWN, _RAY = 0, 1, 2, 3, 4


def tables() -> tuple:
    """The kernels' ``consts``: one int64 table of 12 rows over the 64 squares (one array,
    indexed ``c[row, square]``: a tuple of arrays cost each kernel call a reference count
    per array): rows ``_KING_STEPS``, ``_KNIGHT_JUMPS``, ``_PAWN_UP`` (the squares a pawn
    moving up attacks from a square), ``_PAWN_DOWN``, then ``_RAY + d``, the squares of
    ray d."""
    c = np.zeros((_RAY + 8, 64), dtype=np.int64)
    directions = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))  # (rank, file)

    def bit(r, f):
        return int(np.int64(1) << np.int64(8 * r + f))

    for s in range(64):
        r, f = divmod(s, 8)
        for dr in (-1, 0, 1):
            for df in (-1, 0, 1):
                if (dr or df) and 0 <= r + dr < 8 and 0 <= f + df < 8:
                    c[_KING_STEPS, s] |= bit(r + dr, f + df)
        for dr, df in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
            if 0 <= r + dr < 8 and 0 <= f + df < 8:
                c[_KNIGHT_JUMPS, s] |= bit(r + dr, f + df)
        for row, dr in ((_PAWN_UP, 1), (_PAWN_DOWN, -1)):
            for df in (-1, 1):
                if 0 <= r + dr < 8 and 0 <= f + df < 8:
                    c[row, s] |= bit(r + dr, f + df)
        for d, (dr, df) in enumerate(directions):
            step = 1
            while 0 <= r + step * dr < 8 and 0 <= f + step * df < 8:
                c[_RAY + d, s] |= bit(r + step * dr, f + step * df)
                step += 1
    return (c,)


@njit(cache=True, inline="always")
def flip(x):
    """A set of squares mirrored rank-wise (s -> s ^ 56): its bytes reversed."""
    x = ((x >> 8) & _LOW) | ((x & _LOW) << 8)
    x = ((x >> 16) & _LOW2) | ((x & _LOW2) << 16)
    return ((x >> 32) & _LOW4) | (x << 32)


@njit(cache=True, inline="always")
def _reach(d, s, occ, c):
    """The squares of ray d from s up to its first piece, that one's square included
    (``occ``: the occupied squares)."""
    ray = c[_RAY + d, s]
    hit = ray & occ
    if not hit:
        return ray
    first = lowest_bit_index(hit) if (_RISING >> d) & 1 else 63 - leading_zeros(hit)
    return ray & ~c[_RAY + d, first]


@njit(cache=True, inline="always")
def _attacked(sq, occ, kings, orth, diag, knights, pawns, downward, c):
    """Whether square ``sq`` is attacked, the board's occupied squares ``occ``, by the
    given pieces (``orth``: rooks and queens, ``diag``: bishops and queens); the pawns
    move down the board (``downward``: the other side's) or up."""
    if c[_KING_STEPS, sq] & kings or c[_KNIGHT_JUMPS, sq] & knights:
        return True
    if c[_PAWN_UP if downward else _PAWN_DOWN, sq] & pawns:
        return True
    if orth:
        for d in range(4):
            if c[_RAY + d, sq] & orth and _reach(d, sq, occ, c) & orth:  # the first piece a rook or queen
                return True
    if diag:
        for d in range(4, 8):
            if c[_RAY + d, sq] & diag and _reach(d, sq, occ, c) & diag:
                return True
    return False


@njit(cache=True, inline="always")
def _shields(king, occ, pieces, orth, diag, c):
    """The squares of ``pieces`` that stand first on a line from ``king`` with a slider
    of ``orth`` or ``diag`` (moving along that line) right behind: the pieces whose
    leaving would open the line (pinned pieces, with ``pieces`` the king's own)."""
    found = np.int64(0)
    for d in range(8):
        sliders = orth if d < 4 else diag
        if not c[_RAY + d, king] & sliders:
            continue
        first = _reach(d, king, occ, c) & occ
        if first & pieces and _reach(d, lowest_bit_index(first), occ, c) & occ & sliders:
            found |= first
    return found


@njit(cache=True, inline="always")
def _capture_en_passant(empty, kings, orth, diag, knights, pawns, king, mine, f, c):
    """Whether the mover may legally capture en passant on file f: the other side's pawn
    (``pawns``; its ``kings``, ``orth``, ``diag``, ``knights``) on 32 + f, 40 + f and 48 + f
    ``empty``, a pawn of the mover's (``mine``) beside it, its king (on ``king``) not in
    check after the capture. (The board as single sets, not a row: a row of an array
    taken as an array of its own cost a reference count.)"""
    v = 32 + f
    t = 40 + f
    if not (pawns >> v & 1) or not (empty >> t & 1) or not (empty >> (48 + f) & 1):
        return False
    takers = c[_PAWN_DOWN, t] & mine
    if not takers:
        return False
    gone = _ONE << v
    occ = ~empty
    while takers:
        s = lowest_bit_index(takers)
        takers &= takers - 1
        after = (occ & ~(_ONE << s) & ~gone) | (_ONE << t)
        if not _attacked(king, after, kings, orth, diag, knights, pawns & ~gone, True, c):
            return True
    return False


@njit(cache=True, inline="always")
def _en_passant_possible(empty, kings, orth, diag, knights, pawns, king, mine, f, c):
    """Whether en-passant state f (file) is possible on a board (as
    :func:`_capture_en_passant` takes it): a capture en passant is legal and, the pawn
    back on 48 + f, the mover's king was not in check."""
    if not _capture_en_passant(empty, kings, orth, diag, knights, pawns, king, mine, f, c):
        return False
    before = _ONE << (48 + f)
    gone = _ONE << (32 + f)
    occ = (~empty & ~gone) | before
    return not _attacked(king, occ, kings, orth, diag, knights, (pawns & ~gone) | before, True, c)


@njit(cache=True, inline="always")
def en_passant_possible(m, f, c):
    """:func:`_en_passant_possible` of board ``m`` (masks)."""
    return _en_passant_possible(m[0], m[1], m[2] | m[3], m[2] | m[4], m[5], m[6], lowest_bit_index(m[7]), m[12],
                                f, c)


@njit(cache=True, inline="always")
def _merge(masks):
    """Put the pawn of kind 13 among the other side's pawns, in place (no copy: the
    kernels run once an entry, and an array a call cost more than the rest), and return
    it and the en-passant state: 0 none, ``1 + file``, or -1 for a kind 13 that cannot
    be (two pawns, or one off the mover's fifth rank). :func:`_unmerge` puts it back."""
    g = masks[GHOST]
    if not g:
        return g, 0
    masks[6] |= g
    masks[GHOST] = 0
    s = lowest_bit_index(g)
    if g & (g - 1) or s < 32 or s >= 40:
        return g, -1
    return g, s - 31


@njit(cache=True, inline="always")
def _unmerge(masks, g):
    if g:
        masks[6] &= ~g
        masks[GHOST] = g


@njit(cache=True, inline="always")
def _targets(k, s, occ, open_to, c):
    """The squares the mover's piece of kind k (not a pawn) on s reaches (occupied by
    none of the mover's pieces, nor the other king: ``open_to``)."""
    if k == 7:
        return c[_KING_STEPS, s] & open_to
    if k == 11:
        return c[_KNIGHT_JUMPS, s] & open_to
    found = np.int64(0)
    first = 4 if k == 10 else 0
    last = 4 if k == 9 else 8
    for d in range(first, last):
        found |= _reach(d, s, occ, c)  # up to the first piece, taken or not
    return found & open_to


@njit(cache=True, inline="always")
def _turn(m, out, row):
    """``out[row]``: board ``m`` from the other side's view (turned rank-wise, owners
    swapped), the start of every child."""
    out[row, 0] = flip(m[0])
    for k in range(1, 7):
        out[row, k] = flip(m[k + 6])
        out[row, k + 6] = flip(m[k])


@njit(cache=True, inline="always")
def _one_long_diagonal(a, b):
    """Whether squares a and b both stand on a1-h8, or both on a8-h1 (a reflection of the
    board keeps both in place)."""
    return ((a >> 3) == (a & 7) and (b >> 3) == (b & 7)) or ((a >> 3) + (a & 7) == 7 and (b >> 3) + (b & 7) == 7)


@njit(cache=True, inline="always")
def _generate(m, ep, c, out, write):
    """The legal moves of board ``m`` (en-passant state ``ep``): ``(written, counted)``.
    ``write`` 1: each child at ``out[n]`` (its last row then scratch), all written; 2:
    the moves that keep the material (the table's) and lead to a position of stabiliser
    order 1 counted, the others written; 0: none written, the first found ends it
    (``(1, 0)``)."""
    n = 0
    quiet = 0
    # Without pawns a position's kings fixed by a symmetry (both on one long diagonal)
    # may give it stabiliser order 2: such children are written, for the kit to weigh.
    pawnless = (m[6] | m[12]) == 0
    other_king = lowest_bit_index(m[1])
    theirs = m[1] | m[2] | m[3] | m[4] | m[5] | m[6]
    mine = m[7] | m[8] | m[9] | m[10] | m[11] | m[12]
    occ = theirs | mine
    open_to = ~(mine | m[1])
    king = lowest_bit_index(m[7])
    orth, diag = m[2] | m[3], m[2] | m[4]
    ep_to = 40 + ep - 1 if ep else -1
    # a move of a piece but the king keeps both kings where they stand
    diagonal = pawnless and _one_long_diagonal(king, other_king)
    # Out of check, a move of a piece that shields no line to the king leaves it out of
    # check: only the king's moves, those of pinned pieces and captures en passant (two
    # squares left) are tested.
    checked = _attacked(king, occ, m[1], orth, diag, m[5], m[6], True, c)
    pinned = np.int64(-1) if checked else _shields(king, occ, mine, orth, diag, c)
    last = out.shape[0] - 1
    if write:
        _turn(m, out, last)
    for k in range(7, 13):
        pieces = m[k]
        while pieces:
            s = lowest_bit_index(pieces)
            pieces &= pieces - 1
            if k == 12:
                up = s + 8  # a pawn never stands on rank 8
                targets = c[_PAWN_UP, s] & theirs & ~m[1]
                if ep_to >= 0 and c[_PAWN_UP, s] >> ep_to & 1:
                    targets |= _ONE << ep_to
                if m[0] >> up & 1:
                    targets |= _ONE << up
                    if s < 16 and m[0] >> (up + 8) & 1:
                        targets |= _ONE << (up + 8)
            else:
                targets = _targets(k, s, occ, open_to, c)
            free = k != 7 and not (pinned >> s & 1)
            if write == 2 and free and k != 12 and not diagonal:
                # its moves to empty squares: legal, the material kept, order 1, all counted at once
                quiet += popcount(targets & ~theirs)
                targets &= theirs
            while targets:
                t = lowest_bit_index(targets)
                targets &= targets - 1
                gone = (_ONE << t) & theirs
                passant = t == ep_to and k == 12
                if passant:
                    gone = _ONE << (t - 8)
                if not free or passant:
                    after = (occ & ~(_ONE << s) & ~gone) | (_ONE << t)
                    if _attacked(t if k == 7 else king, after, m[1], orth & ~gone, diag & ~gone, m[5] & ~gone,
                                 m[6] & ~gone, True, c):
                        continue
                if not write:
                    return 1, 0
                promotes = k == 12 and t >= 56
                if write == 2 and not gone and not promotes and not (
                        pawnless and _one_long_diagonal(t if k == 7 else king, other_king)):
                    quiet += 1
                    continue
                for p in range(8 if promotes else k, 12 if promotes else k + 1):
                    for j in range(13):
                        out[n, j] = out[last, j]
                    out[n, k - 6] ^= _ONE << (s ^ 56)
                    out[n, p - 6] |= _ONE << (t ^ 56)
                    out[n, 0] = (out[n, 0] | (_ONE << (s ^ 56))) & ~(_ONE << (t ^ 56))
                    if gone:
                        g = lowest_bit_index(gone)
                        if g != t:  # en passant: the pawn taken leaves its square
                            out[n, 0] |= _ONE << (g ^ 56)
                        for x in range(1, 7):
                            out[n, x + 6] &= ~(_ONE << (g ^ 56))
                    out[n, GHOST] = 0
                    if k == 12 and t == s + 16 and _capture_en_passant(
                            out[n, 0], out[n, 1], out[n, 2] | out[n, 3], out[n, 2] | out[n, 4], out[n, 5],
                            out[n, 6], lowest_bit_index(out[n, 7]), out[n, 12], t & 7, c):
                        out[n, 6] &= ~(_ONE << (t ^ 56))  # the pawn may be taken: kind 13
                        out[n, GHOST] = _ONE << (t ^ 56)
                    n += 1
    return n, quiet


@njit(cache=True)  # called, not inlined: each kit kernel links one compiled copy
def outcome(masks, tier, consts):
    """ILLEGAL, LOST (checkmate), DRAWN (stalemate) or OPEN (see the module docstring)."""
    g, ep = _merge(masks)
    found = ILLEGAL if ep < 0 else _outcome(masks, ep, consts[0])
    _unmerge(masks, g)
    return found


@njit(cache=True, inline="always")
def _outcome(masks, ep, c):
    if _illegal(masks, ep, c):
        return ILLEGAL
    if _generate(masks, ep, c, c, 0)[0]:  # (nothing written: c stands for the rows)
        return OPEN
    return _ended(masks, c)


@njit(cache=True, inline="always")
def _illegal(masks, ep, c):
    """Whether the board is no position (see :func:`outcome`)."""
    back = np.int64(0xFF) | (np.int64(0xFF) << 56)
    if popcount(masks[1]) != 1 or popcount(masks[7]) != 1 or (masks[6] | masks[12]) & back:
        return True
    king = lowest_bit_index(masks[7])
    other = lowest_bit_index(masks[1])
    if c[_KING_STEPS, king] >> other & 1:
        return True
    if _attacked(other, ~masks[0], masks[7], masks[8] | masks[9], masks[8] | masks[10], masks[11], masks[12],
                 False, c):
        return True
    return ep != 0 and not en_passant_possible(masks, ep - 1, c)


@njit(cache=True, inline="always")
def _ended(masks, c):
    """LOST (checkmate) or DRAWN (stalemate) of a position whose mover has no legal move."""
    if _attacked(lowest_bit_index(masks[7]), ~masks[0], masks[1], masks[2] | masks[3], masks[2] | masks[4],
                 masks[5], masks[6], True, c):
        return LOST
    return DRAWN


@njit(cache=True)  # called, not inlined: each kit kernel links one compiled copy
def moves(masks, tier, consts, out):
    """The children of every legal move, rows of ``out`` (see the module docstring; its
    last row is scratch); their count."""
    g, ep = _merge(masks)
    n = _generate(masks, max(ep, 0), consts[0], out, 1)[0]
    _unmerge(masks, g)
    return n


@njit(cache=True, inline="always")
def _outcome_generate(masks, consts, out, write):
    """``outcome``'s code and, when OPEN, the moves of :func:`_generate` in mode ``write``
    (1 or 2): (code, written, counted), the moves generated once."""
    g, ep = _merge(masks)
    c = consts[0]
    n = quiet = 0
    if ep < 0 or _illegal(masks, ep, c):
        code = ILLEGAL
    else:
        n, quiet = _generate(masks, ep, c, out, write)
        code = OPEN if n + quiet else _ended(masks, c)
    _unmerge(masks, g)
    return code, n, quiet


@njit(cache=True)  # called, not inlined: each kit kernel links one compiled copy
def outcome_moves(masks, tier, consts, out):
    """``outcome``, and the children of ``moves`` when it is OPEN: (code, their count),
    the moves generated once (``outcome`` generates up to the first legal one)."""
    code, n, _ = _outcome_generate(masks, consts, out, 1)
    return code, n


@njit(cache=True)  # called, not inlined: each kit kernel links one compiled copy
def outcome_moves_quiet(masks, tier, consts, out):
    """``outcome_moves`` with the moves that keep the material (into the table) and lead
    to a position of stabiliser order 1 counted, not written: (code, written, counted).
    Captures, promotions, and (without pawns) moves to kings on one long diagonal are
    written."""
    return _outcome_generate(masks, consts, out, 2)


@njit(cache=True)  # called, not inlined: each kit kernel links one compiled copy
def unmoves(masks, tier, consts, out):
    """The parents (see the module docstring): rows of ``out`` from their mover's view
    (its last row is scratch); their count."""
    g, ep = _merge(masks)
    n = _unmoves(masks, max(ep, 0), consts[0], out, True)
    _unmerge(masks, g)
    return n


@njit(cache=True)
def unmoves_moved(masks, tier, consts, out):
    """The parents of :func:`unmoves` as the kit's moved pieces: the last row of ``out``
    the board turned to the parents' view (the pawn of kind 13 among the pawns), row j
    parent j: that board with the piece of kind ``out[j, 0]`` moved from square
    ``out[j, 1]`` back to ``out[j, 2]``, and the piece on ``out[j, 3]`` (-1: none) of
    kind ``out[j, 4]`` then of kind ``out[j, 5]`` (the parent's own en-passant state: a
    pawn of kind 6 as kind 13). Their count."""
    g, ep = _merge(masks)
    n = _unmoves(masks, max(ep, 0), consts[0], out, False)
    _unmerge(masks, g)
    return n


@njit(cache=True, inline="always")
def _unmoves(masks, ep, c, out, rows):
    """The parents: rows (``rows``), else moved pieces (:func:`unmoves_moved`)."""
    n = 0
    empty = masks[0]
    occ = ~empty
    mover_king = lowest_bit_index(masks[7])
    theirs = masks[1] | masks[2] | masks[3] | masks[4] | masks[5] | masks[6]
    orth, diag = masks[2] | masks[3], masks[2] | masks[4]
    # The child's mover out of check here, a parent puts it in check only by the piece
    # stepped back, or by a line its leaving opens: only those are tested then.
    checked = _attacked(mover_king, occ, masks[1], orth, diag, masks[5], masks[6], True, c)
    opens = np.int64(-1) if checked else _shields(mover_king, occ, theirs, orth, diag, c)
    last = out.shape[0] - 1
    _turn(masks, out, last)
    for k in range(1, 7):
        pieces = masks[k]
        if ep:
            pieces = masks[6] & (_ONE << (32 + ep - 1)) if k == 6 else np.int64(0)
        while pieces:
            d = lowest_bit_index(pieces)
            pieces &= pieces - 1
            if k == 6:
                origins = np.int64(0)
                if d < 48 and empty >> (d + 8) & 1:
                    if not ep:
                        origins |= _ONE << (d + 8)
                    if 32 <= d < 40 and empty >> (d + 16) & 1:
                        if ep or not _capture_en_passant(empty, masks[1], orth, diag, masks[5], masks[6], mover_king,
                                                         masks[12], d & 7, c):
                            origins |= _ONE << (d + 16)
            elif k == 1:
                origins = c[_KING_STEPS, d] & empty
            elif k == 5:
                origins = c[_KNIGHT_JUMPS, d] & empty
            else:
                origins = np.int64(0)
                for r in range(4 if k == 4 else 0, 4 if k == 3 else 8):
                    origins |= _reach(r, d, occ, c) & empty  # the empty squares before the first piece
            every = opens >> d & 1  # test against every piece, not the one stepped back alone
            while origins:
                o = lowest_bit_index(origins)
                origins &= origins - 1
                moved = (_ONE << d) | (_ONE << o)
                if every:
                    kings, queens, rooks, bishops, knights, pawns = (masks[1], masks[2], masks[3], masks[4],
                                                                     masks[5], masks[6])
                else:
                    kings = queens = rooks = bishops = knights = pawns = np.int64(0)
                after = (masks[k] ^ moved) if every else _ONE << o  # kind k's squares in the parent
                if k == 1:
                    kings = after
                elif k == 2:
                    queens = after
                elif k == 3:
                    rooks = after
                elif k == 4:
                    bishops = after
                elif k == 5:
                    knights = after
                else:
                    pawns = after
                if _attacked(mover_king, occ ^ moved, kings, queens | rooks, queens | bishops, knights, pawns,
                             True, c):
                    continue  # the child's mover in check before the move: no position
                flipped = (_ONE << (d ^ 56)) | (_ONE << (o ^ 56))
                if rows:
                    for j in range(13):
                        out[n, j] = out[last, j]
                    out[n, k + 6] ^= flipped
                    out[n, 0] ^= flipped
                    out[n, GHOST] = 0
                else:
                    out[n, 0] = k + 6
                    out[n, 1] = d ^ 56
                    out[n, 2] = o ^ 56
                    out[n, 3] = -1
                n += 1
                # the other side's pawns (the child's mover's) on their fifth rank: a
                # parent's own en-passant state (kind 6 there is the turned board's)
                files = out[last, 6] & (np.int64(0xFF) << 32)
                empty_p = out[last, 0] ^ flipped
                king_p = lowest_bit_index(out[last, 7] ^ flipped if k == 1 else out[last, 7])
                pawns_p = out[last, 12] ^ flipped if k == 6 else out[last, 12]
                while files:
                    g = lowest_bit_index(files) & 7
                    files &= files - 1
                    p = n - 1
                    if _en_passant_possible(empty_p, out[last, 1], out[last, 2] | out[last, 3],
                                            out[last, 2] | out[last, 4], out[last, 5], out[last, 6], king_p, pawns_p,
                                            g, c):
                        if rows:
                            for j in range(13):  # that pawn as kind 13
                                out[n, j] = out[p, j]
                            out[n, 6] &= ~(_ONE << (32 + g))
                            out[n, GHOST] = _ONE << (32 + g)
                        else:
                            out[n, 0] = k + 6
                            out[n, 1] = d ^ 56
                            out[n, 2] = o ^ 56
                            out[n, 3] = 32 + g
                            out[n, 4] = 6
                            out[n, 5] = GHOST
                        n += 1
    if not rows:
        out[last, GHOST] = 0
    return n
