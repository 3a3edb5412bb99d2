"""Prove a database correct without trusting the builder.

The game is acyclic (every musketeer move captures), so a table is the game's
solution exactly when every finished position holds its finished value and every
other position holds the best outcome over its children (the winner hurries, the
loser delays). :func:`verify` checks both, for every stored position, reading
each layer of the file once:

* musketeers-to-move layer k is resolved from the *stored* enemy-to-move layer
  k-1, capture by capture (a musketeers-to-move value is never stored);
* every stored enemy-to-move value of layer k must equal the best over its enemy
  moves, each a musketeers-to-move position of layer k just resolved.

By induction on k, local consistency everywhere plus correct finished values
proves every stored value. The move generation here is written independently of
:mod:`retro.kernels`: it works directly in the file's storage order (no
conversion to the builder's square order), derives its own capture and
symmetry tables from the board's coordinates, and orders outcomes with its own
preference tables. It shares only the indexer's colex ranking, the storage
layout and the rules' constants.

The file's metadata, every chunk's Fletcher32 checksum (HDF5 checks it on read)
and every layer's SHA-256 digest are checked too.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from math import comb
from pathlib import Path
from typing import NamedTuple

import h5py
import numpy as np
from numba import njit, prange

from ..games.musketeers import rules
from ..games.musketeers.index import indexer, layer_masks, mask_rank
from .report import Check, JsonReport
from ..values import ENCODING, Outcome
from ..games.musketeers.position import Position, Side
from ..db.format import ChecksumError, DatabaseFile, NotADatabaseError
from ..progress import progress_bar
from ..db.hdf5io import get_text
from ..games.musketeers.layout import RULES_TEXT, STORED_SIDE, storage_order

MAX_CAPTURES = 4 * rules.MUSKETEER_COUNT
# Kernel calls per layer for the large layers: enough for a live progress bar.
PROGRESS_STEPS = 8

# --- outcome preferences (own tables, not the builder's) ---------------------------
#
# A mover ranks a child value by a key, larger is better: a win beats every loss, a
# faster win a slower one, a slower loss a faster one; key 0 means "no move". True
# values never exceed 2 * 22 + 1 plies, so one byte holds every key; a nonsense
# byte in a damaged file (127 plies or more) may share a key with another, but it
# is reported at its own position, which its children contradict.

NO_MOVE = 0
LONGEST = 126  # plies with a key of their own


def _keys(mover_is_musketeers: bool) -> np.ndarray:
    keys = np.zeros(256, dtype=np.uint8)
    for value in range(256):
        plies = min(value >> 1, LONGEST)
        mover_wins = bool(value & 1) == mover_is_musketeers
        keys[value] = 255 - plies if mover_wins else plies + 1
    return keys


def _values(mover_is_musketeers: bool) -> np.ndarray:
    """``values[best key]``: the mover's value, one ply more than its best child's."""
    values = np.zeros(256, dtype=np.int16)
    values[NO_MOVE] = 1  # rule 4: whoever cannot move, the musketeers have won
    for key in range(1, 256):
        if key >= 255 - LONGEST:
            musketeers_win, plies = mover_is_musketeers, 255 - key
        elif key <= LONGEST + 1:
            musketeers_win, plies = not mover_is_musketeers, key - 1
        else:
            continue  # no value has this key
        values[key] = 2 * (plies + 1) + int(musketeers_win)
    return values


MUSKETEER_KEYS, MUSKETEER_VALUES = _keys(True), _values(True)
ENEMY_KEYS, ENEMY_VALUES = _keys(False), _values(False)


# --- geometry in storage order -----------------------------------------------------


class Geometry(NamedTuple):
    """Move tables of one board size with mask bits in the file's storage order.

    Storage bit t of placement p stands for square ``bit_square[p, t]``; enemy
    masks and ranks below are always storage masks and storage ranks, so the
    stored tables are read exactly as laid out on disk.
    """

    size: int
    free: int
    placements: np.ndarray  # int64 (P,): canonical musketeer bitboards, ascending
    aligned: np.ndarray  # bool (P,): the musketeers stand in one row or column
    bit_square: np.ndarray  # int64 (P, F): square of each storage bit
    square_bit: np.ndarray  # int64 (P, squares): storage bit of each square, -1 on musketeers
    capture_count: np.ndarray  # int64 (P,)
    capture_bit: np.ndarray  # int64 (P, 12): storage bit of the captured man
    capture_child: np.ndarray  # int64 (P, 12): placement after the capture
    capture_perm: np.ndarray  # int32 (P, 12, 3, 256): child storage bits of each mask byte
    pair_lo: np.ndarray  # int64 (Q,): lower storage bit of each adjacent free pair
    pair_hi: np.ndarray  # int64 (Q,): higher storage bit
    pair_count: np.ndarray  # int64 (P,)
    pair_ids: np.ndarray  # int64 (P, max pairs): the pairs of each placement
    neighbour_bits: np.ndarray  # int64 (P, F): storage mask of the free neighbours of bit t
    stabilizer_count: np.ndarray  # int64 (P,): non-identity symmetries fixing the placement
    stabilizer_perm: np.ndarray  # int32 (P, 7, 3, 256): their action on storage masks

    @property
    def placement_count(self) -> int:
        return len(self.placements)


def _image(bb: int, sym: int, table: np.ndarray) -> int:
    out = 0
    for s in range(table.shape[1]):
        if (bb >> s) & 1:
            out |= 1 << int(table[sym, s])
    return out


@cache
def symmetries(size: int) -> np.ndarray:
    """(8, squares): the square each square goes to under the 8 symmetries of the board.

    Derived here from coordinates (the identity, then each composition of a quarter
    turn and a mirror) rather than taken from :mod:`retro.rules`, so that a wrong
    symmetry table there cannot make builder and verifier agree on wrong values. Their
    numbering may differ from the rules'; nothing here depends on it.
    """
    n = size
    last = n - 1
    table = np.zeros((8, n * n), dtype=np.int64)
    for g in range(8):
        for s in range(n * n):
            r, c = divmod(s, n)
            for _ in range(g % 4):
                r, c = c, last - r  # a quarter turn
            if g >= 4:
                c = last - c  # then a mirror
            table[g, s] = r * n + c
    table.setflags(write=False)
    return table


def _canonical(bb: int, table: np.ndarray) -> tuple[int, int]:
    """Smallest image of a bitboard under the 8 symmetries, and the lowest symmetry giving it."""
    return min((_image(bb, g, table), g) for g in range(8))


def _byte_tables(images: list[int]) -> np.ndarray:
    """(3, 256) int32: OR of ``images[t]`` over the set bits t of each byte of a mask."""
    images = list(images) + [0] * (24 - len(images))
    out = np.zeros((3, 256), dtype=np.int32)
    for chunk in range(3):
        for byte in range(256):
            acc = 0
            for j in range(8):
                if (byte >> j) & 1:
                    acc |= images[chunk * 8 + j]
            out[chunk, byte] = acc
    return out


@cache
def geometry(size: int) -> Geometry:
    """Storage-order move and symmetry tables for a board size (built once)."""
    n, squares = size, size * size
    free = squares - rules.MUSKETEER_COUNT
    sym = symmetries(size)
    trios = [(1 << x) | (1 << y) | (1 << z)
             for z in range(squares) for y in range(z) for x in range(y)]
    placements = sorted({_canonical(t, sym)[0] for t in trios})
    number = {bb: p for p, bb in enumerate(placements)}
    count = len(placements)
    order = storage_order(size).astype(np.int64)

    aligned = np.zeros(count, dtype=np.bool_)
    bit_square = np.zeros((count, free), dtype=np.int64)
    square_bit = np.full((count, squares), -1, dtype=np.int64)
    capture_count = np.zeros(count, dtype=np.int64)
    capture_bit = np.full((count, MAX_CAPTURES), -1, dtype=np.int64)
    capture_child = np.zeros((count, MAX_CAPTURES), dtype=np.int64)
    capture_perm = np.zeros((count, MAX_CAPTURES, 3, 256), dtype=np.int32)
    neighbour_bits = np.zeros((count, free), dtype=np.int64)
    stabilizer_count = np.zeros(count, dtype=np.int64)
    stabilizer_perm = np.zeros((count, 7, 3, 256), dtype=np.int32)
    pair_sets: list[list[tuple[int, int]]] = []

    for p, musketeers in enumerate(placements):
        cells = [s for s in range(squares) if (musketeers >> s) & 1]
        rows = {s // n for s in cells}
        cols = {s % n for s in cells}
        aligned[p] = len(rows) == 1 or len(cols) == 1
        empty = [s for s in range(squares) if not (musketeers >> s) & 1]  # square order
        for t in range(free):
            bit_square[p, t] = empty[order[p, t]]
            square_bit[p, bit_square[p, t]] = t

    def neighbours(s: int) -> list[int]:
        r, c = divmod(s, n)
        steps = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        return [rr * n + cc for rr, cc in steps if 0 <= rr < n and 0 <= cc < n]

    for p, musketeers in enumerate(placements):
        slot = 0
        for s in range(squares):
            if not (musketeers >> s) & 1:
                continue
            for target in neighbours(s):
                if (musketeers >> target) & 1:
                    continue
                child, g = _canonical(musketeers ^ (1 << s) ^ (1 << target), sym)
                q = number[child]
                images = [0] * free
                for t in range(free):
                    square = int(bit_square[p, t])
                    if square != target:
                        images[t] = 1 << int(square_bit[q, sym[g, square]])
                capture_bit[p, slot] = square_bit[p, target]
                capture_child[p, slot] = q
                capture_perm[p, slot] = _byte_tables(images)
                slot += 1
        capture_count[p] = slot

        pairs = set()
        for t in range(free):
            for other in neighbours(int(bit_square[p, t])):
                u = int(square_bit[p, other])
                if u >= 0:
                    neighbour_bits[p, t] |= 1 << u
                    pairs.add((min(t, u), max(t, u)))
        pair_sets.append(sorted(pairs))

        fixing = [g for g in range(1, 8) if _image(musketeers, g, sym) == musketeers]
        stabilizer_count[p] = len(fixing)
        for i, g in enumerate(fixing):
            images = [1 << int(square_bit[p, sym[g, bit_square[p, t]]]) for t in range(free)]
            stabilizer_perm[p, i] = _byte_tables(images)

    all_pairs = sorted(set().union(*pair_sets))
    pair_number = {pair: i for i, pair in enumerate(all_pairs)}
    pair_count = np.array([len(s) for s in pair_sets], dtype=np.int64)
    pair_ids = np.zeros((count, max(1, int(pair_count.max()))), dtype=np.int64)
    for p, pairs in enumerate(pair_sets):
        pair_ids[p, : len(pairs)] = [pair_number[pair] for pair in pairs]
    tables = Geometry(
        size, free, np.array(placements, dtype=np.int64), aligned, bit_square, square_bit,
        capture_count, capture_bit, capture_child, capture_perm,
        np.array([lo for lo, _ in all_pairs], dtype=np.int64),
        np.array([hi for _, hi in all_pairs], dtype=np.int64),
        pair_count, pair_ids, neighbour_bits, stabilizer_count, stabilizer_perm,
    )
    for table in tables[2:]:
        table.setflags(write=False)
    return tables


def entry_position(geo: Geometry, side: Side, placement: int, storage_mask: int) -> Position:
    """The position stored at (placement, storage mask)."""
    enemies = 0
    for t in range(geo.free):
        if (storage_mask >> t) & 1:
            enemies |= 1 << int(geo.bit_square[placement, t])
    return Position(side, int(geo.placements[placement]), enemies, geo.size)


def entry_of(geo: Geometry, position: Position) -> tuple[int, int]:
    """(placement, storage mask) of a position: its canonical image, read in storage order."""
    table = symmetries(geo.size)
    musketeers, g = _canonical(position.musketeers, table)
    p = int(np.searchsorted(geo.placements, musketeers))
    mask = 0
    for s in range(geo.size * geo.size):
        if (position.enemies >> s) & 1:
            mask |= 1 << int(geo.square_bit[p, table[g, s]])
    return p, mask


# --- kernels -----------------------------------------------------------------------


@njit(cache=True, parallel=True, nogil=True)
def bit_lists(masks, free, length):
    """``out[t]``: ascending ranks of the layer's masks with bit t set."""
    out = np.empty((free, length), dtype=np.int32)
    for t in prange(free):
        bit = np.int64(1) << t
        i = 0
        for r in range(len(masks)):
            if np.int64(masks[r]) & bit:
                out[t, i] = r
                i += 1
    return out


@njit(cache=True, parallel=True, nogil=True)
def pair_lists(masks, pair_lo, pair_hi, length):
    """For each pair (lo, hi): ascending ranks of the masks holding lo but not hi, and of
    those holding hi but not lo. The i-th of one list and the i-th of the other differ
    by one man moving across the pair: adding ``2**hi - 2**lo`` keeps masks in order."""
    count = len(pair_lo)
    lows = np.empty((count, length), dtype=np.int32)
    highs = np.empty((count, length), dtype=np.int32)
    for q in prange(count):
        lo = np.int64(1) << pair_lo[q]
        hi = np.int64(1) << pair_hi[q]
        a = 0
        b = 0
        for r in range(len(masks)):
            m = np.int64(masks[r]) & (lo | hi)
            if m == lo:
                lows[q, a] = r
                a += 1
            elif m == hi:
                highs[q, b] = r
                b += 1
    return lows, highs


@njit(cache=True, parallel=True, nogil=True)
def musketeer_values(first, last, masks, previous, out, aligned, capture_count, capture_bit,
                     capture_child, capture_perm, with_bit, rank_table, keys, values):
    """Musketeers-to-move values of placements first..last-1 of a layer (storage ranks),
    each the best over its captures read from stored enemy-to-move layer k-1."""
    length = out.shape[1]
    for p in prange(first, last):
        row = out[p]
        if aligned[p]:
            row[:] = 0  # rule 3 comes first: the enemy has won
            continue
        best = np.zeros(length, dtype=np.uint8)
        for c in range(capture_count[p]):
            ranks = with_bit[capture_bit[p, c]]
            perm = capture_perm[p, c]
            child_row = previous[capture_child[p, c]]
            for i in range(len(ranks)):
                r = ranks[i]
                m = np.int64(masks[r])
                child = perm[0, m & 0xFF] | perm[1, (m >> 8) & 0xFF] | perm[2, (m >> 16) & 0xFF]
                best[r] = max(best[r], keys[child_row[mask_rank(np.int64(child), rank_table)]])
        for r in range(length):
            row[r] = values[best[r]]


@njit(cache=True, parallel=True, nogil=True)
def check_enemy(first, last, stored, current, aligned, pair_count, pair_ids, lows, highs,
                keys, values, bad_count, bad_terminal, bad_col, bad_expected, stuck):
    """Compare stored enemy-to-move values of placements first..last-1 with the best over
    their enemy moves into ``current`` (musketeers-to-move, same layer, storage ranks).

    Per placement: ``bad_count`` disagreements (``bad_terminal`` of them on finished
    positions), the first ones in ``bad_col``/``bad_expected``, and ``stuck`` positions
    where the enemy has no move.
    """
    length = stored.shape[1]
    reports = bad_col.shape[1]
    for p in prange(first, last):
        row = stored[p]
        bad = 0
        terminal = 0
        if aligned[p]:
            for r in range(length):
                if row[r] != 0:
                    if bad < reports:
                        bad_col[p, bad] = r
                        bad_expected[p, bad] = 0
                    bad += 1
            bad_count[p] = bad
            bad_terminal[p] = bad
            stuck[p] = 0
            continue
        child_key = np.empty(length, dtype=np.uint8)
        mover = current[p]
        for r in range(length):
            child_key[r] = keys[mover[r]]
        best = np.zeros(length, dtype=np.uint8)
        for e in range(pair_count[p]):
            lo = lows[pair_ids[p, e]]
            hi = highs[pair_ids[p, e]]
            for i in range(len(lo)):
                a = lo[i]
                b = hi[i]
                best[a] = max(best[a], child_key[b])
                best[b] = max(best[b], child_key[a])
        blocked = 0
        for r in range(length):
            if best[r] == NO_MOVE:
                blocked += 1
            expected = values[best[r]]
            if row[r] != expected:
                if bad < reports:
                    bad_col[p, bad] = r
                    bad_expected[p, bad] = expected
                bad += 1
                if best[r] == NO_MOVE:
                    terminal += 1
        bad_count[p] = bad
        bad_terminal[p] = terminal
        stuck[p] = blocked


# --- the report ----------------------------------------------------------------------


@dataclass(frozen=True)
class Disagreement:
    """A stored value that its children (or the finished-game rules) contradict."""

    position: str  # in the standard notation, enemy to move
    enemy_men: int
    placement: int
    column: int  # column of the layer dataset (storage rank)
    stored: int  # the encoded value in the file
    expected: int  # the encoded value its children give
    stored_outcome: str
    expected_outcome: str
    rule: str  # which rule the stored value breaks


@dataclass
class VerifyReport(JsonReport):
    """What :func:`verify` checked and found."""

    path: Path
    size: int
    max_enemy_men: int
    ok: bool
    positions_checked: int  # stored enemy-to-move values compared with their children
    musketeer_positions_resolved: int  # musketeers-to-move values derived on the way
    terminal_positions: int  # finished enemy-to-move positions among those checked
    seconds: float
    checks: list[Check] = field(default_factory=list)
    disagreement_count: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)


# --- verification ----------------------------------------------------------------------


def verify(path: str | os.PathLike, *, progress: bool = True, max_reports: int = 10) -> VerifyReport:
    """Check every stored value of a database against its children and the rules.

    Raises a :class:`~retro.storage.DatabaseError` subclass for a file that cannot be
    opened as a database; every other problem (damaged chunks, wrong digests, wrong
    metadata, wrong values) is reported in the returned :class:`VerifyReport`.
    """
    if max_reports < 0:
        raise ValueError(f"max_reports must be 0 or more, not {max_reports}")
    started = time.perf_counter()
    try:
        db = DatabaseFile(path)
    except ValueError as error:  # e.g. a board size the indexer refuses
        raise NotADatabaseError(f"{path} has damaged metadata: {error}") from error
    try:
        return _verify(db, started, progress, max_reports)
    finally:
        db.close()


def metadata_checks(db: DatabaseFile, geo: Geometry) -> tuple[list[Check], bool]:
    """Checks of the root attributes and tables; the flag says whether values can be read
    (the layout tables are retro's and every layer is a dataset of the right shape)."""
    attrs = db.metadata
    ix = indexer(db.size)
    checks = [Check("format", True, f"{attrs.get('format')} version {attrs.get('format_version')}, complete")]

    def check(name: str, ok: bool, detail: str) -> None:
        checks.append(Check(name, bool(ok), detail))

    def equal(name: str, expected) -> bool:  # attributes may be arrays in a foreign file
        value = attrs.get(name)
        return type(value) is type(expected) and value == expected

    def either(ok: bool, good: str, bad: str) -> str:
        return good if ok else bad

    ok = equal("rules", RULES_TEXT)
    check("rules", ok, either(ok, "the rules text is retro's", "not retro's rules text"))
    ok = equal("value_encoding", ENCODING)
    check("value encoding", ok, either(ok, ENCODING, f"not {ENCODING!r}"))
    ok = equal("stored_side", STORED_SIDE)
    check("stored side", ok, either(ok, "enemy to move", f"not {STORED_SIDE!r}"))
    layers = attrs.get("layers")
    count_ok = 0 <= db.max_enemy_men <= geo.free
    check("layer count", count_ok and equal("layers", db.max_enemy_men + 1),
          f"max_enemy_men {db.max_enemy_men}, layers {layers} (0..{geo.free} possible)")
    tables = {}
    for name in ("placements", "storage_order"):
        table = db.file.get(name)
        if isinstance(table, h5py.Dataset):
            try:
                tables[name] = table[()]
            except OSError:
                pass
    if len(tables) < 2:
        check("tables", False, "cannot read /placements or /storage_order")
        return checks, False
    placements_ok = np.array_equal(tables["placements"], geo.placements) and np.array_equal(
        geo.placements, ix.placements
    )
    check("placements", placements_ok, either(
        placements_ok, f"{len(geo.placements)} canonical musketeer placements, recomputed here",
        f"differ from the {len(geo.placements)} canonical musketeer placements recomputed here"))
    order_ok = np.array_equal(tables["storage_order"], storage_order(db.size))
    check("storage order", order_ok, either(
        order_ok, "matches the storage order retro reads with",
        "differs from the storage order retro reads with"))
    shapes, filters, labels = [], [], []
    for k in range(db.max_enemy_men + 1):
        dataset = db.dataset(k)
        if not isinstance(dataset, h5py.Dataset):
            shapes.append(k)
            continue
        if dataset.shape != (len(geo.placements), comb(geo.free, k)) or dataset.dtype != np.uint8:
            shapes.append(k)
        if not dataset.fletcher32:
            filters.append(k)
        if not np.array_equal(dataset.attrs.get("enemy_men"), k) or get_text(
            dataset.attrs, "sha256"
        ) is None:
            labels.append(k)
    check("layer shapes", not shapes,
          "uint8 (placements, C(free, k)) each" + (f"; wrong in layers {shapes}" if shapes else ""))
    check("layer filters", not filters,
          "Fletcher32 on every layer" + (f"; missing in layers {filters}" if filters else ""))
    check("layer attributes", not labels,
          "enemy_men and sha256 on every layer" + (f"; wrong in layers {labels}" if labels else ""))
    return checks, count_ok and placements_ok and order_ok and not shapes


def _read_layer(db: DatabaseFile, k: int):
    """(values, sha256 hex digest, error): every chunk is decoded, so Fletcher32 runs."""
    try:
        values = np.ascontiguousarray(db.read(k))
    except ChecksumError as error:
        return None, None, error
    return values, hashlib.sha256(values.data).hexdigest(), None


def _verify(db: DatabaseFile, started: float, progress: bool, max_reports: int) -> VerifyReport:
    geo = geometry(db.size)
    ix = indexer(db.size)
    checks, readable = metadata_checks(db, geo)
    top = db.max_enemy_men
    count = geo.placement_count
    total = sum(count * comb(geo.free, k) for k in range(top + 1))
    reports: list[tuple] = []
    disagreements = terminal_bad = 0
    checked = resolved = terminal = 0
    damaged: list[str] = []
    digests_bad: list[int] = []
    chunks = 0
    layers_read = 0

    bar = progress_bar(2 * total, "verifying", enabled=progress and readable, smoothing=0.05)
    reader = ThreadPoolExecutor(1, thread_name_prefix="retro-verify-reader")
    try:
        # The next layer decompresses (and is hashed) while this one is checked.
        pending = reader.submit(_read_layer, db, 0) if readable else None
        previous = np.zeros((count, 1), dtype=np.uint8)  # layer -1: never read
        for k in range(top + 1 if readable else 0):
            stored, sha, error = pending.result()
            if k < top:
                pending = reader.submit(_read_layer, db, k + 1)
            if error is not None:
                damaged.append(f"layer {k}: {error}")
                break  # without this layer neither it nor the next one can be checked
            layers_read += 1
            dataset = db.dataset(k)
            chunks += dataset.id.get_num_chunks() if dataset.chunks else 0
            recorded = get_text(dataset.attrs, "sha256")
            if not (isinstance(recorded, str) and recorded == sha):
                digests_bad.append(k)
            masks = layer_masks(geo.free, k)
            length = len(masks)
            current = np.empty((count, length), dtype=np.uint8)
            steps = PROGRESS_STEPS if count * length > 10_000_000 else 1
            bounds = np.linspace(0, count, steps + 1).astype(np.int64)

            with_bit = bit_lists(masks, geo.free, comb(geo.free - 1, k - 1) if k else 0)
            for first, last in itertools.pairwise(bounds):
                musketeer_values(first, last, masks, previous, current, geo.aligned,
                                 geo.capture_count, geo.capture_bit, geo.capture_child,
                                 geo.capture_perm, with_bit, ix.rank_table,
                                 MUSKETEER_KEYS, MUSKETEER_VALUES)
                if bar is not None:
                    bar.update(int((last - first) * length))
            del with_bit

            lows, highs = pair_lists(masks, geo.pair_lo, geo.pair_hi,
                                     comb(geo.free - 2, k - 1) if k else 0)
            bad_count = np.zeros(count, dtype=np.int64)
            bad_terminal = np.zeros(count, dtype=np.int64)
            bad_col = np.zeros((count, max(1, max_reports)), dtype=np.int64)
            bad_expected = np.zeros((count, max(1, max_reports)), dtype=np.int16)
            stuck = np.zeros(count, dtype=np.int64)
            for first, last in itertools.pairwise(bounds):
                check_enemy(first, last, stored, current, geo.aligned, geo.pair_count,
                            geo.pair_ids, lows, highs, ENEMY_KEYS, ENEMY_VALUES,
                            bad_count, bad_terminal, bad_col, bad_expected, stuck)
                if bar is not None:
                    bar.update(int((last - first) * length))
            del lows, highs

            checked += count * length
            resolved += count * length
            terminal += int(stuck.sum()) + int(geo.aligned.sum()) * length
            disagreements += int(bad_count.sum())
            terminal_bad += int(bad_terminal.sum())
            for p in np.flatnonzero(bad_count):
                for j in range(min(int(bad_count[p]), max_reports)):
                    if len(reports) < max_reports:
                        col = int(bad_col[p, j])
                        reports.append((k, int(p), col, int(stored[p, col]),
                                        int(bad_expected[p, j]), int(masks[col])))
            previous = stored
    except BaseException:
        reader.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        if bar is not None:
            bar.close()
    reader.shutdown(wait=True, cancel_futures=True)

    if readable:
        all_read = layers_read == top + 1
        # A damaged layer stops the checks: say which layers they could not reach.
        unread = "" if all_read else f"; layers {layers_read}..{top} not checked (unreadable)"
        checks.append(Check(
            "Fletcher32 checksums", not damaged,
            f"{chunks:,} chunks in {layers_read} layers read" + ("; " + "; ".join(damaged) if damaged else ""),
        ))
        checks.append(Check(
            "SHA-256 digests", not digests_bad and all_read,
            f"{layers_read} layers hashed" + (f"; wrong in layers {digests_bad}" if digests_bad else "")
            + unread,
        ))
        checks.append(Check(
            "terminal rules", terminal_bad == 0 and all_read,
            f"{terminal:,} finished positions hold their finished value"
            + (f"; {terminal_bad:,} do not" if terminal_bad else "") + unread,
        ))
        checks.append(Check(
            "local consistency", disagreements - terminal_bad == 0 and all_read,
            f"{checked:,} enemy-to-move values against {resolved:,} musketeers-to-move children"
            + (f"; {disagreements - terminal_bad:,} disagree" if disagreements > terminal_bad else "")
            + unread,
        ))
    else:
        checks.append(Check("values", False, "not checked: the file's layout cannot be read"))

    found = [_disagreement(geo, *item) for item in reports]
    return VerifyReport(
        path=db.path,
        size=db.size,
        max_enemy_men=top,
        ok=all(c.ok for c in checks) and disagreements == 0,
        positions_checked=checked,
        musketeer_positions_resolved=resolved,
        terminal_positions=terminal,
        seconds=time.perf_counter() - started,
        checks=checks,
        disagreement_count=disagreements,
        disagreements=found,
    )


def _disagreement(geo: Geometry, k: int, p: int, col: int, stored: int, expected: int,
                  mask: int) -> Disagreement:
    position = entry_position(geo, Side.ENEMY, p, mask)
    if geo.aligned[p]:
        rule = "the musketeers stand in a line: the enemy has won (value 0)"
    elif not position.legal_moves():
        rule = "the enemy has no move: the musketeers have won (value 1)"
    else:
        rule = "the value must be the best over the enemy's moves"
    return Disagreement(
        position=str(position),
        enemy_men=k,
        placement=p,
        column=col,
        stored=stored,
        expected=expected,
        stored_outcome=str(Outcome.from_value(stored, Side.ENEMY)),
        expected_outcome=str(Outcome.from_value(expected, Side.ENEMY)),
        rule=rule,
    )
