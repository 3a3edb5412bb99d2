"""A fast independent chess endgame solver for the tests, for whole 4-piece tables.

It shares no code with retro: it imports nothing of it (tests/test_layers.py checks
every ``tests/*_oracle.py``), and its move generator is written here from the rules of
chess and checked against python-chess (rules written by others) on random positions
of each table (tests/test_chess_oracle4.py). tests/chess_oracle.py is the slower one
(python-chess's own moves, for tables of 3 pieces).

**Nodes.** A table is a material, White's pieces and Black's (``"KR", "KP"``); a
piece of it is a *slot* (White's king, White's other pieces in ``QRBNP`` order,
Black's king, Black's others), and a node is the square of each slot, an en-passant
state and the side to move, numbered densely::

    index = ((sq[0] * 64 + sq[1]) * 64 + ... + sq[n-1]) * E + ep) * 2 + side

(``side`` 0 White to move, 1 Black). ``ep`` is 0, or ``e`` > 0: the ``e``-th pawn (in
slot order) of the side that just moved has just made a double step and the side to
move may take it en passant; ``E`` is 1 for tables without pawns of both sides (no
capture en passant can arise) and 1 + the most pawns of a side otherwise. Most
indices are no position (two pieces on a square, a pawn on the first or last rank,
the side not to move in check, an en-passant state without a legal capture en
passant or whose double step could not have been the last move): ``legal`` says which
are. Checks no move could give (three checkers, ...) are kept, as python-chess's
``STATUS_TOO_MANY_CHECKERS`` / ``STATUS_IMPOSSIBLE_CHECK`` without an en-passant square
are: the rules still play them.

**Values** (int16, from the side to move's view): ``+n`` wins in ``n`` plies, ``-(n +
1)`` loses in ``n`` plies (checkmated: -1), 0 a draw (stalemate, or play that never
ends; no fifty-move rule, no castling). :func:`value_pairs` turns them into
``("win", n)`` / ``("loss", n)`` / ``("draw", None)``.

**Solving**, plain, ply by ply (:func:`solve`): first every child table (a capture or a
promotion leads there), solved the same way; a table and its colour-swapped twin
(``KQ`` v ``KR`` and ``KR`` v ``KQ``) are read from one another by turning the board
over. Ply 0: the checkmated lose, the stalemated draw. Ply L = 1, 2, ...: a position
not yet decided wins in L when one of its moves leads to a loss in L - 1; it loses in
L when every move leads to a win in fewer than L plies (so the longest is L - 1); the
moves out of the table read the child table's values. What is never decided is a
draw. (Losses come in even plies, wins in odd ones, from the checkmates' 0: at an
even ply no child can lose in L - 1, so the look at a position's moves stops at the
first that is no win.) Each ply looks at every open position again, through the move generator: no
un-moves, no counters. The positions of one class under the board's symmetries (the
8 of the square without pawns, the left-right mirror with them) have one value: each
ply evaluates one of them (the least index) and writes all. The kernels are numba's,
run over chunks of the nodes in parallel.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from chess_oracle import _transforms

TYPES = "KQRBNP"
KING, QUEEN, ROOK, BISHOP, KNIGHT, PAWN = range(6)
WHITE, BLACK = 0, 1
MAX_SLOTS = 8
MAX_MOVES = 256  # more than 4 pieces (or 5) can have: a queen 27, a rook 14, a king 8, ...
OPEN, DONE = 1, 2  # state of a legal node: undecided, decided (or drawn by stalemate)
CHUNK = 1 << 14


# --- the board's geometry, from the rules -----------------------------------------

def _build_geometry():
    steps = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1)]  # orthogonal, then diagonal
    jumps = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
    king_to = np.full((64, 8), -1, dtype=np.int64)
    knight_to = np.full((64, 8), -1, dtype=np.int64)
    ray = np.full((64, 8, 7), -1, dtype=np.int64)
    between = np.zeros((64, 64), dtype=np.int64)
    line = np.zeros((64, 64), dtype=np.int64)  # 1 same rank or file, 2 same diagonal
    pawn_takes = np.full((2, 64, 2), -1, dtype=np.int64)  # the squares a pawn of a colour attacks
    for s in range(64):
        r, f = divmod(s, 8)
        for table, deltas in ((king_to, steps), (knight_to, jumps)):
            found = [8 * (r + dr) + f + df for dr, df in deltas if 0 <= r + dr < 8 and 0 <= f + df < 8]
            table[s, :len(found)] = found
        for d, (dr, df) in enumerate(steps):
            passed = 0
            for k in range(1, 8):
                rr, ff = r + k * dr, f + k * df
                if not (0 <= rr < 8 and 0 <= ff < 8):
                    break
                t = 8 * rr + ff
                ray[s, d, k - 1] = t
                line[s, t] = 1 if d < 4 else 2
                between[s, t] = passed - (1 << 64) if passed >= 1 << 63 else passed
                passed |= 1 << t
        for colour, dr in ((WHITE, 1), (BLACK, -1)):
            found = [8 * (r + dr) + f + df for df in (-1, 1) if 0 <= r + dr < 8 and 0 <= f + df < 8]
            pawn_takes[colour, s, :len(found)] = found
    return king_to, knight_to, ray, between, line, pawn_takes


# Symmetry g takes square s to _SYM[g, s]: g & 4 swaps rank and file, g & 2 turns the
# ranks over, g & 1 the files (g = 1: the left-right mirror, the one of tables with
# pawns); the same eight as the plain oracle's.
_SYM = np.array(_transforms(False), dtype=np.int64)


# --- the rules (jitted) -------------------------------------------------------------

@njit(cache=True, inline="always")
def _bit(s):
    return np.int64(1) << np.int64(s)


@njit(cache=True, inline="always")
def _attacks(kind, colour, frm, to, occ):
    """Whether a piece of ``kind`` and ``colour`` on ``frm`` attacks square ``to`` with
    the squares ``occ`` occupied."""
    dr = (to >> 3) - (frm >> 3)
    df = (to & 7) - (frm & 7)
    if kind == KING:
        return max(abs(dr), abs(df)) == 1
    if kind == KNIGHT:
        return abs(dr) * abs(df) == 2
    if kind == PAWN:
        return dr == (1 if colour == WHITE else -1) and abs(df) == 1
    line = _LINE[frm, to]
    if line == 0 or (kind == ROOK and line != 1) or (kind == BISHOP and line != 2):
        return False
    return (_BETWEEN[frm, to] & occ) == 0


@njit(cache=True, inline="always")
def _in_check(colour, sq, n, ptype, pcol, occ, gone):
    """Whether the king of ``colour`` is attacked (slot ``gone``, taken, attacks nothing)."""
    king = -1
    for k in range(n):
        if pcol[k] == colour and ptype[k] == KING:
            king = sq[k]
    for k in range(n):
        if k != gone and pcol[k] != colour and _attacks(ptype[k], pcol[k], sq[k], king, occ):
            return True
    return False


@njit(cache=True, inline="always")
def _occupancy(sq, n):
    occ = np.int64(0)
    for k in range(n):
        occ |= _bit(sq[k])
    return occ


@njit(cache=True, inline="always")
def _slot_at(sq, n, s):
    for k in range(n):
        if sq[k] == s:
            return k
    return -1


@njit(cache=True, inline="always")
def _pawn_slot(e, colour, n, ptype, pcol):
    """The slot of the e-th pawn (1-based, slot order) of ``colour``, or -1."""
    seen = 0
    for k in range(n):
        if ptype[k] == PAWN and pcol[k] == colour:
            seen += 1
            if seen == e:
                return k
    return -1


@njit(cache=True, inline="always")
def _pawn_number(slot, n, ptype, pcol):
    """Which pawn of its side (1-based, slot order) the pawn in ``slot`` is."""
    seen = 0
    for k in range(slot + 1):
        if ptype[k] == PAWN and pcol[k] == pcol[slot]:
            seen += 1
    return seen


@njit(cache=True)
def _can_take_en_passant(sq, n, ptype, pcol, colour, p):
    """Whether ``colour`` (to move) has a legal capture en passant of the pawn in slot
    ``p`` (which has just made a double step; the square it passed is empty)."""
    target = sq[p] + (8 if colour == WHITE else -8)
    occ = _occupancy(sq, n)
    for s in range(n):
        if pcol[s] == colour and ptype[s] == PAWN and (sq[s] >> 3) == (sq[p] >> 3) \
                and abs((sq[s] & 7) - (sq[p] & 7)) == 1:
            frm = sq[s]
            after = (occ & ~_bit(frm) & ~_bit(sq[p])) | _bit(target)
            sq[s] = target
            bad = _in_check(colour, sq, n, ptype, pcol, after, p)
            sq[s] = frm
            if not bad:
                return True
    return False


@njit(cache=True, inline="always")
def _decode(index, n, E, sq):
    """The squares of the node ``index`` into ``sq``; returns (side to move, ep)."""
    side = index & 1
    index >>= 1
    ep = index % E
    index //= E
    for k in range(n - 1, -1, -1):
        sq[k] = index & 63
        index >>= 6
    return side, ep


@njit(cache=True, inline="always")
def _encode(sq, n, E, ep, side):
    index = np.int64(0)
    for k in range(n):
        index = index * 64 + sq[k]
    return (index * E + ep) * 2 + side


@njit(cache=True)
def _legal(sq, n, ptype, pcol, side, ep):
    """Whether the node is a position (see the module's docstring)."""
    occ = np.int64(0)
    for k in range(n):
        if (occ >> sq[k]) & 1:
            return False
        occ |= _bit(sq[k])
        if ptype[k] == PAWN and (sq[k] < 8 or sq[k] >= 56):
            return False
    if _in_check(1 - side, sq, n, ptype, pcol, occ, -1):
        return False
    if ep:
        p = _pawn_slot(ep, 1 - side, n, ptype, pcol)
        if p < 0:
            return False
        back = -8 if pcol[p] == WHITE else 8  # towards the square it came from
        if (sq[p] >> 3) != (3 if pcol[p] == WHITE else 4):
            return False
        passed, origin = sq[p] + back, sq[p] + 2 * back
        if (occ >> passed) & 1 or (occ >> origin) & 1:
            return False
        landed = sq[p]  # the position before the double step: the side to move not in check
        sq[p] = origin
        before = (occ & ~_bit(landed)) | _bit(origin)
        bad = _in_check(side, sq, n, ptype, pcol, before, -1)
        sq[p] = landed
        if bad or not _can_take_en_passant(sq, n, ptype, pcol, side, p):
            return False
    return True


@njit(cache=True, inline="always")
def _push(s, to, taken, promo, mfrom, mto, mpromo, mtaken, count):
    """Append a move (not yet checked for legality) to the lists."""
    mfrom[count] = s
    mto[count] = to
    mpromo[count] = promo
    mtaken[count] = taken
    return count + 1


@njit(cache=True, inline="always")
def _pseudo_moves(sq, n, ptype, pcol, side, ep, mfrom, mto, mpromo, mtaken):
    """Every move the pieces of the side to move can make, legal or not (onto an empty
    square or taking a piece of the other side, never its king): slot, square
    reached, promotion (0 or the piece's type), slot taken (-1 none). Returns how many."""
    occ = _occupancy(sq, n)
    count = 0
    for s in range(n):
        if pcol[s] != side:
            continue
        kind = ptype[s]
        frm = sq[s]
        if kind == PAWN:
            forward = 8 if side == WHITE else -8
            last = 7 if side == WHITE else 0
            one = frm + forward
            for j in range(3):  # the step forward, then the two captures
                to = one if j == 0 else _PAWN_TAKES[side, frm, j - 1]
                if to < 0:
                    continue
                k = _slot_at(sq, n, to)
                if j == 0 and k >= 0:
                    continue
                if j > 0 and (k < 0 or pcol[k] == side or ptype[k] == KING):
                    continue
                if (to >> 3) == last:
                    for promo in range(QUEEN, PAWN):  # queen, rook, bishop, knight
                        count = _push(s, to, k, promo, mfrom, mto, mpromo, mtaken, count)
                else:
                    count = _push(s, to, k, 0, mfrom, mto, mpromo, mtaken, count)
            two = one + forward
            if (frm >> 3) == (1 if side == WHITE else 6) and not (occ >> one) & 1 and not (occ >> two) & 1:
                count = _push(s, two, -1, 0, mfrom, mto, mpromo, mtaken, count)
            if ep:
                p = _pawn_slot(ep, 1 - side, n, ptype, pcol)
                if (sq[p] >> 3) == (frm >> 3) and abs((sq[p] & 7) - (frm & 7)) == 1:
                    count = _push(s, sq[p] + forward, p, 0, mfrom, mto, mpromo, mtaken, count)
            continue
        first = 4 if kind == BISHOP else 0
        end = 4 if kind == ROOK else 8
        reach = 1 if kind == KING or kind == KNIGHT else 7
        for d in range(first, end):
            for j in range(reach):
                if kind == KING:
                    to = _KING_TO[frm, d]
                elif kind == KNIGHT:
                    to = _KNIGHT_TO[frm, d]
                else:
                    to = _RAY[frm, d, j]
                if to < 0:
                    break
                k = _slot_at(sq, n, to)
                if k < 0 or (pcol[k] != side and ptype[k] != KING):
                    count = _push(s, to, k, 0, mfrom, mto, mpromo, mtaken, count)
                if k >= 0:
                    break
    return count


@njit(cache=True, inline="always")
def _leaves_king_safe(sq, n, ptype, pcol, side, s, to, taken):
    """Whether the move of slot ``s`` to ``to`` (taking slot ``taken`` or -1) leaves the
    mover's king unattacked: a legal move."""
    frm = sq[s]
    after = (_occupancy(sq, n) & ~_bit(frm)) | _bit(to)
    if taken >= 0:
        after = (after & ~_bit(sq[taken])) | _bit(to)
    sq[s] = to
    bad = _in_check(side, sq, n, ptype, pcol, after, taken)
    sq[s] = frm
    return not bad


@njit(cache=True, inline="always")
def _moves(sq, n, ptype, pcol, side, ep, mfrom, mto, mpromo, mtaken):
    """The legal moves of the side to move (as :func:`_pseudo_moves` lists them)."""
    count = _pseudo_moves(sq, n, ptype, pcol, side, ep, mfrom, mto, mpromo, mtaken)
    legal = 0
    for i in range(count):
        if _leaves_king_safe(sq, n, ptype, pcol, side, mfrom[i], mto[i], mtaken[i]):
            legal = _push(mfrom[i], mto[i], mtaken[i], mpromo[i], mfrom, mto, mpromo, mtaken, legal)
    return legal


@njit(cache=True, inline="always")
def _child(sq, n, E, ptype, pcol, side, s, to, promo, taken, exits, perm, child_n, child_e, out):
    """(child table, node) after a move: -1 and a node of this table, or the child
    table's number (``exits``/``perm``: the table and each slot's slot there, by
    (taken + 1, slot moved, promotion)) and its node. ``out``: scratch."""
    if taken < 0 and promo == 0:
        frm = sq[s]
        sq[s] = to
        ep = 0
        if E > 1 and ptype[s] == PAWN and abs(to - frm) == 16 and _can_take_en_passant(sq, n, ptype, pcol, 1 - side, s):
            ep = _pawn_number(s, n, ptype, pcol)
        index = _encode(sq, n, E, ep, 1 - side)
        sq[s] = frm
        return -1, index
    key = ((taken + 1) * n + s) * 5 + promo
    table = exits[key]
    m = child_n[table]
    for k in range(n):
        if k != taken:
            out[perm[key, k]] = to if k == s else sq[k]
    return table, _encode(out, m, child_e[table], 0, 1 - side)


@njit(cache=True, inline="always")
def _image(sq, n, E, ep, side, g, out):
    for k in range(n):
        out[k] = _SYM[g, sq[k]]
    return _encode(out, n, E, ep, side)


@njit(cache=True, inline="always")
def _scratch():
    """A task's arrays: the squares of a node and of its image, and the moves."""
    return (np.empty(MAX_SLOTS, dtype=np.int64), np.empty(MAX_SLOTS, dtype=np.int64),
            np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64),
            np.empty(MAX_MOVES, dtype=np.int64), np.empty(MAX_MOVES, dtype=np.int64))


@njit(cache=True, parallel=True)
def _init(values, state, rep, n, E, ptype, pcol, symmetries):
    """Ply 0: which nodes are positions, the checkmated (lost in 0) and stalemated
    (drawn), the others open; ``rep``: the least index of its class."""
    size = values.shape[0]
    chunks = (size + CHUNK - 1) // CHUNK
    for c in prange(chunks):
        sq, other, mfrom, mto, mpromo, mtaken = _scratch()
        for index in range(c * CHUNK, min(size, (c + 1) * CHUNK)):
            side, ep = _decode(index, n, E, sq)
            values[index] = 0
            rep[index] = False
            if not _legal(sq, n, ptype, pcol, side, ep):
                state[index] = 0
                continue
            count = _moves(sq, n, ptype, pcol, side, ep, mfrom, mto, mpromo, mtaken)
            if count == 0:
                state[index] = DONE
                if _in_check(side, sq, n, ptype, pcol, _occupancy(sq, n), -1):
                    values[index] = -1
            else:
                state[index] = OPEN
            least = index
            for g in range(1, symmetries):
                least = min(least, _image(sq, n, E, ep, side, g, other))
            rep[index] = least == index


@njit(cache=True, parallel=True)
def _sweep(ply, values, state, rep, n, E, ptype, pcol, symmetries, exits, perm, child_n, child_e, child_at,
           child_values):
    """Ply ``ply``: every open node (one of each class) wins when a move leads to a loss
    in ply - 1, loses when every move leads to a win in fewer plies; the class takes
    its value. Values written during the ply are of ply ``ply`` and read as undecided
    (a win in ``ply`` is no win "in fewer"). Returns the classes decided."""
    size = values.shape[0]
    chunks = (size + CHUNK - 1) // CHUNK
    decided = np.zeros(chunks, dtype=np.int64)
    for c in prange(chunks):
        sq, other, mfrom, mto, mpromo, mtaken = _scratch()
        here = 0
        for index in range(c * CHUNK, min(size, (c + 1) * CHUNK)):
            if state[index] != OPEN or not rep[index]:
                continue
            side, ep = _decode(index, n, E, sq)
            count = _pseudo_moves(sq, n, ptype, pcol, side, ep, mfrom, mto, mpromo, mtaken)
            wins = False
            all_won = True
            for i in range(count):
                if not _leaves_king_safe(sq, n, ptype, pcol, side, mfrom[i], mto[i], mtaken[i]):
                    continue
                table, child = _child(sq, n, E, ptype, pcol, side, mfrom[i], mto[i], mpromo[i], mtaken[i], exits,
                                      perm, child_n, child_e, other)
                v = values[child] if table < 0 else child_values[child_at[table] + child]
                if v == -ply:  # the child loses in ply - 1
                    wins = True
                    break
                if not (0 < v < ply):  # not a win in fewer than ply plies
                    all_won = False
                    if ply % 2 == 0:  # and no child loses in ply - 1, an odd number: no win either
                        break
            if wins:
                value = ply
            elif all_won:
                value = -(ply + 1)
            else:
                continue
            here += 1
            for g in range(symmetries):
                image = _image(sq, n, E, ep, side, g, other)
                values[image] = value
                state[image] = DONE
        decided[c] = here
    return decided.sum()


@njit(cache=True)
def _list_moves(index, n, E, ptype, pcol, exits, perm, child_n, child_e):
    """The legal moves of one node, for the checks against python-chess: rows (from
    square, to square, promotion, child table, child node); and whether it is a
    position, and whether the side to move is in check."""
    sq = np.empty(MAX_SLOTS, dtype=np.int64)
    other = np.empty(MAX_SLOTS, dtype=np.int64)
    mfrom = np.empty(MAX_MOVES, dtype=np.int64)
    mto = np.empty(MAX_MOVES, dtype=np.int64)
    mpromo = np.empty(MAX_MOVES, dtype=np.int64)
    mtaken = np.empty(MAX_MOVES, dtype=np.int64)
    side, ep = _decode(index, n, E, sq)
    rows = np.zeros((MAX_MOVES, 5), dtype=np.int64)
    if not _legal(sq, n, ptype, pcol, side, ep):
        return rows[:0], False, False
    check = _in_check(side, sq, n, ptype, pcol, _occupancy(sq, n), -1)
    count = _moves(sq, n, ptype, pcol, side, ep, mfrom, mto, mpromo, mtaken)
    for i in range(count):
        table, child = _child(sq, n, E, ptype, pcol, side, mfrom[i], mto[i], mpromo[i], mtaken[i], exits, perm,
                              child_n, child_e, other)
        rows[i, 0] = sq[mfrom[i]]
        rows[i, 1] = mto[i]
        rows[i, 2] = mpromo[i]
        rows[i, 3] = table
        rows[i, 4] = child
    return rows[:count], True, check


@njit(cache=True)
def _is_position(index, n, E, ptype, pcol):
    sq = np.empty(MAX_SLOTS, dtype=np.int64)
    side, ep = _decode(index, n, E, sq)
    return _legal(sq, n, ptype, pcol, side, ep)


# --- tables ----------------------------------------------------------------------

def _tidy(pieces: str) -> str:
    """``"K"`` then the other pieces in ``QRBNP`` order."""
    return "K" + "".join(sorted(pieces.replace("K", ""), key=TYPES.index))


def _slots(white: str, black: str) -> list[tuple[int, int]]:
    """(colour, type) of each slot."""
    return [(WHITE, TYPES.index(p)) for p in white] + [(BLACK, TYPES.index(p)) for p in black]


class Table:
    """One material's nodes and, once solved, their values (see the module's docstring)."""

    def __init__(self, white: str, black: str) -> None:
        self.white, self.black = _tidy(white), _tidy(black)
        slots = _slots(self.white, self.black)
        self.n = len(slots)
        self.pcol = np.array([c for c, _ in slots], dtype=np.int64)
        self.ptype = np.array([t for _, t in slots], dtype=np.int64)
        pawns = ("P" in self.white, "P" in self.black)
        self.E = 1 + max(self.white.count("P"), self.black.count("P")) if all(pawns) else 1
        self.symmetries = 2 if any(pawns) else 8
        self.size = 64 ** self.n * self.E * 2
        self.unique = len(set(slots)) == len(slots)  # no two pieces alike (KRRvK's rooks: two nodes a board)
        self._exits()
        self.values: np.ndarray | None = None
        self.legal: np.ndarray | None = None

    @property
    def name(self) -> str:
        return f"{self.white}v{self.black}"

    def _exits(self) -> None:
        """For each (slot taken + 1, slot moved, promotion): the child table and where
        each slot goes there (moves within the table: -1)."""
        n = self.n
        keys = (n + 1) * n * 5
        self.exits = np.full(keys, -2, dtype=np.int64)
        self.perm = np.full((keys, n), -1, dtype=np.int64)
        self.children: list[tuple[str, str]] = []
        for taken in range(-1, n):
            for s in range(n):
                for promo in range(5):
                    key = ((taken + 1) * n + s) * 5 + promo
                    if taken < 0 and promo == 0:
                        self.exits[key] = -1
                        continue
                    if taken >= 0 and (self.pcol[taken] == self.pcol[s] or self.ptype[taken] == KING):
                        continue
                    if promo and (self.ptype[s] != PAWN or promo == PAWN):
                        continue
                    left = [(int(self.pcol[k]), int(promo) if k == s and promo else int(self.ptype[k]), k)
                            for k in range(n) if k != taken]
                    white = _tidy("".join(TYPES[t] for c, t, _ in left if c == WHITE))
                    black = _tidy("".join(TYPES[t] for c, t, _ in left if c == BLACK))
                    if (white, black) not in self.children:
                        self.children.append((white, black))
                    self.exits[key] = self.children.index((white, black))
                    free = _slots(white, black)
                    used = [False] * len(free)
                    for c, t, k in left:  # each piece to the first free slot of its kind
                        j = next(j for j, f in enumerate(free) if f == (c, t) and not used[j])
                        used[j] = True
                        self.perm[key, k] = j

    # --- nodes as python-chess boards, for the checks -------------------------

    def squares(self, index: int) -> tuple[list[int], int, int]:
        """(each slot's square, side to move, ep) of a node."""
        sq = np.empty(MAX_SLOTS, dtype=np.int64)
        side, ep = _decode(np.int64(index), self.n, self.E, sq)
        return [int(s) for s in sq[:self.n]], int(side), int(ep)

    def index(self, squares, side: int, ep: int = 0) -> int:
        return int(_encode(np.array(list(squares) + [0] * (MAX_SLOTS - self.n), dtype=np.int64), self.n, self.E,
                           ep, side))

    def board(self, index: int):
        """The node as a python-chess board (its en-passant square set when ep > 0)."""
        import chess

        squares, side, ep = self.squares(index)
        board = chess.Board(None)
        board.turn = chess.WHITE if side == WHITE else chess.BLACK
        for s, colour, kind in zip(squares, self.pcol, self.ptype):
            board.set_piece_at(s, chess.Piece(_PYCHESS_TYPE[int(kind)], bool(colour == WHITE)))
        if ep:
            p = int(_pawn_slot(ep, 1 - side, self.n, self.ptype, self.pcol))
            board.ep_square = squares[p] + (-8 if self.pcol[p] == WHITE else 8)
        return board

    def index_of_board(self, board) -> int:
        """The node of a python-chess board of this material (its en-passant square
        kept when a capture en passant is legal)."""
        squares = [-1] * self.n
        for s, piece in sorted(board.piece_map().items()):
            want = (WHITE if piece.color else BLACK, _PYCHESS_TYPE.index(piece.piece_type))
            k = next(k for k in range(self.n) if squares[k] < 0 and (self.pcol[k], self.ptype[k]) == want)
            squares[k] = s
        side = WHITE if board.turn else BLACK
        ep = 0
        if board.has_legal_en_passant():
            taken = board.ep_square + (-8 if side == WHITE else 8)  # the pawn that passed it
            k = squares.index(taken)
            ep = int(_pawn_number(k, self.n, self.ptype, self.pcol))
        return self.index(squares, side, ep)

    def is_position(self, index: int) -> bool:
        return bool(_is_position(np.int64(index), self.n, self.E, self.ptype, self.pcol))

    def moves(self, index: int, tables: list) -> tuple[bool, bool, list]:
        """(a position?, in check?, [(uci, child Table, child node), ...]); ``tables``:
        the solved child tables, in ``self.children``'s order (or Tables unsolved)."""
        import chess

        n = [t.n for t in tables] or [0]
        e = [t.E for t in tables] or [1]
        rows, legal, check = _list_moves(np.int64(index), self.n, self.E, self.ptype, self.pcol, self.exits,
                                         self.perm, np.array(n, dtype=np.int64), np.array(e, dtype=np.int64))
        out = []
        for frm, to, promo, table, child in rows.tolist():
            uci = chess.square_name(frm) + chess.square_name(to) + ("" if not promo else TYPES[promo].lower())
            out.append((uci, self if table < 0 else tables[table], child))
        return legal, check, out


_PYCHESS_TYPE = [6, 5, 4, 3, 2, 1]  # python-chess's KING .. PAWN, for our KING .. PAWN


# --- solving ---------------------------------------------------------------------

_SOLVED: dict[tuple[str, str], Table] = {}


def solve(white: str, black: str, *, keep: bool = True, log=None) -> Table:
    """The table of ``white`` v ``black`` with every node's value, its child tables
    solved first (kept for later calls when ``keep``)."""
    key = (_tidy(white), _tidy(black))
    if key in _SOLVED:
        return _SOLVED[key]
    if key[::-1] in _SOLVED:
        table = flip(_SOLVED[key[::-1]])
    else:
        table = Table(*key)
        children = [solve(w, b, keep=keep, log=log) for w, b in table.children]
        _retrograde(table, children, log)
    if keep:
        _SOLVED[key] = table
    return table


def forget() -> None:
    """Drop the tables kept by :func:`solve` (their memory)."""
    _SOLVED.clear()


def child_tables(table: Table) -> list[Table]:
    """The child tables of ``table`` (unsolved), in the order of its ``children``."""
    return [Table(w, b) for w, b in table.children]


def _retrograde(table: Table, children: list[Table], log=None) -> None:
    import time

    start = time.perf_counter()
    values = np.zeros(table.size, dtype=np.int16)
    state = np.zeros(table.size, dtype=np.int8)
    rep = np.zeros(table.size, dtype=np.bool_)
    _init(values, state, rep, table.n, table.E, table.ptype, table.pcol, table.symmetries)
    if children:
        child_values = np.concatenate([c.values for c in children])
        child_at = np.cumsum([0] + [c.size for c in children])[:-1].astype(np.int64)
        longest = max(int(np.abs(c.values.astype(np.int64)).max()) for c in children)
    else:
        child_values, child_at, longest = np.zeros(1, dtype=np.int16), np.zeros(1, dtype=np.int64), 0
    child_n = np.array([c.n for c in children] or [0], dtype=np.int64)
    child_e = np.array([c.E for c in children] or [1], dtype=np.int64)
    ply = 0
    while True:
        ply += 1
        decided = _sweep(ply, values, state, rep, table.n, table.E, table.ptype, table.pcol, table.symmetries,
                         table.exits, table.perm, child_n, child_e, child_at, child_values)
        if decided == 0 and ply > longest + 2:  # no move out of the table can decide anything any more
            break
    table.values = values
    table.legal = state != 0
    table.plies = ply
    if log is not None:
        log(f"{table.name}: {int(table.legal.sum()):,} positions, {ply} plies, {time.perf_counter() - start:.1f} s")


def flip(table: Table) -> Table:
    """The colour-swapped twin of a solved table (Black's pieces as White's, the board
    turned over rank-wise, the other side to move): the same values."""
    out = Table(table.black, table.white)
    n, nw = table.n, len(table.white)
    shape = (64,) * n + (table.E, 2)
    mirror = np.arange(64) ^ 56
    arrays = []
    for array in (table.values, table.legal):
        a = array.reshape(shape)
        for axis in range(n):
            a = np.take(a, mirror, axis=axis)
        a = a[..., ::-1]
        order = [nw + j for j in range(n - nw)] + list(range(nw)) + [n, n + 1]
        arrays.append(np.ascontiguousarray(a.transpose(order)).reshape(-1))
    out.values, out.legal = arrays
    out.plies = getattr(table, "plies", None)
    return out


def value_pairs(values: np.ndarray) -> list:
    """Values as ``("win", n)``, ``("loss", n)``, ``("draw", None)``."""
    return [("win", int(v)) if v > 0 else ("loss", -int(v) - 1) if v < 0 else ("draw", None) for v in values]
