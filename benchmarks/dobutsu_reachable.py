"""Dōbutsu shōgi: the positions reachable from the start, counted by a breadth-first walk
with the game's own moves (retro.games.dobutsu's jitted ``moves`` and ``outcome``).

A position is the board and the hands seen from the side to move, as Tanaka (2009)
counts the game's 1,567,925,964: sente's position and the same one turned 180° with
gote to move are one, mirror images apart. The walk stops at finished positions (a
lion taken, a Try that stood), which are counted when a lion stands on each side. It
stops also, and counts, where the side to move can take the other lion (won in one
ply) with ``--stop-at-capture``, and where the other lion stands out of reach on the
mover's back rank (lost in one ply to its Try) with ``--stop-at-try``; with
``--no-suicide`` no move leaves the mover's lion to be taken. With ``--stop-at-capture
--stop-at-try``, the positions with mirror images counted once are Tanaka's
246,803,167. Printed (JSON): the positions reached, and of them those where play goes
on, where the lion can be taken and the others (finished, or lost to a Try), each
outcome's count; the count with the side to move told apart; with mirror images
counted once; the deepest ply. About 7 minutes on 2 cores, ~3 GB.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np
from numba import njit, prange

from retro.games.dobutsu import Dobutsu, moves, outcome
from retro.games.kit import numbering

WIDTH = 64  # moves of a position at most (Dobutsu.max_moves)
CHUNK = 1 << 19


@njit(cache=True, inline="always")
def _part_of(row, codes, code_part):
    """The part of a child row (masks of kinds 1..10, then the hands), or -1."""
    code = np.int64(0)
    for j in range(10):
        code = code * 3 + numbering.popcount(row[j + 1])
    for x in range(6):
        code = code * 3 + row[11 + x]
    i = np.searchsorted(codes, code)
    return code_part[i] if i < len(codes) and codes[i] == code else -1


@njit(cache=True, parallel=True)
def _expand(frontier, offsets, rows, codes, code_part, tables, consts, out, counts, stop_at_capture, no_suicide,
            stop_at_try):
    """The children of each entry of ``frontier`` (entries of the unfolded numbering) at
    ``out[i * WIDTH:]``, ``counts[i]`` of them; none for a finished position (-1). With
    ``no_suicide``, a move that leaves the mover's lion to be taken is not played; with
    ``stop_at_try``, a position lost in one ply to a Try (the other lion on the mover's
    back rank, out of reach) is not played on."""
    for s in prange((len(frontier) + 4095) // 4096):
        masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
        found = np.empty((WIDTH, 17), dtype=np.int64)
        for i in range(s * 4096, min((s + 1) * 4096, len(frontier))):
            e = np.int64(frontier[i])
            p = np.searchsorted(offsets, e, side="right") - 1
            numbering.masks_at(e - offsets[p], rows[p, :10], tables, masks, 1)
            code = outcome(masks, rows[p], consts)
            if code == 0 or code == 1 or (stop_at_capture and code == 3) or (stop_at_try and code == 2):
                counts[i] = -1
                continue
            n = moves(masks, rows[p], consts, found)
            k = 0
            for m in range(n):
                q = _part_of(found[m], codes, code_part)
                if q < 0:
                    continue  # a lion taken: no part (lions on the board) holds it
                if no_suicide and outcome(found[m], rows[q], consts) == 3:
                    continue  # the child's mover can take the lion this move left
                out[i * WIDTH + k] = offsets[q] + numbering.entry_of_masks(found[m], rows[q, :10], tables, 1)[0]
                k += 1
            counts[i] = k


@njit(cache=True)
def _visit(children, counts, seen, nxt, n):
    """Append the children not seen yet to ``nxt`` (from ``n``), marking them; returns
    the new length and the finished positions among the parents."""
    finished = 0
    for i in range(len(counts)):
        if counts[i] < 0:
            finished += 1
        for k in range(max(counts[i], 0)):
            e = children[i * WIDTH + k]
            if not (seen[e >> 3] >> (e & 7)) & 1:
                seen[e >> 3] |= 1 << (e & 7)
                nxt[n] = e
                n += 1
    return n, finished


@njit(cache=True)
def _census_of(seen, first, stop, offsets, rows, tables, consts, mirror, out):
    """``out``: the positions of ``seen`` (bytes ``first..stop-1``): ``out[0]`` counted
    once with their mirror image, ``out[1:]`` by outcome (play goes on, lost, won, lost
    to a Try, the lion can be taken)."""
    masks = np.empty(numbering.MAX_KINDS, dtype=np.int64)
    for byte in range(first, stop):
        for b in range(8):
            if not (seen[byte] >> b) & 1:
                continue
            e = np.int64(byte) * 8 + b
            p = np.searchsorted(offsets, e, side="right") - 1
            numbering.masks_at(e - offsets[p], rows[p, :10], tables, masks, 1)
            code = outcome(masks, rows[p], consts)
            out[1 + (0 if code == -1 else 1 + code)] += 1  # open, 0 lost, 1 won, 2 lost to a Try, 3
            for k in range(11):
                m = masks[k]
                image = np.int64(0)
                while m:
                    image |= np.int64(1) << mirror[numbering.lowest_bit_index(m)]
                    m &= m - 1
                masks[k] = image
            f = offsets[p] + numbering.entry_of_masks(masks, rows[p, :10], tables, 1)[0]
            if e <= f or not (seen[f >> 3] >> (f & 7)) & 1:
                out[0] += 1


@njit(cache=True, parallel=True)
def _census(seen, offsets, rows, tables, consts, mirror):
    spans = (len(seen) + 4095) // 4096
    counts = np.zeros((spans, 6), dtype=np.int64)
    for s in prange(spans):
        _census_of(seen, s * 4096, min((s + 1) * 4096, len(seen)), offsets, rows, tables, consts, mirror, counts[s])
    return counts.sum(axis=0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stop-at-capture", action="store_true",
                        help="stop also where the side to move can take the other lion")
    parser.add_argument("--no-suicide", action="store_true",
                        help="play no move that leaves the mover's lion to be taken")
    parser.add_argument("--stop-at-try", action="store_true",
                        help="stop also where the other lion's Try stands (lost in one ply)")
    args = parser.parse_args()
    began = time.perf_counter()
    game = Dobutsu()
    (tier,) = game.tiers()
    parts = game.parts(tier)
    rows = np.array(parts, dtype=np.int64)
    tables = numbering.tables(np.arange(12, dtype=np.int64)[None], 1)  # no symmetry folded
    sizes = [int(numbering.tier_size(r[:10].copy(), tables)) for r in rows]
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    total = int(offsets[-1])
    codes = np.zeros(len(parts), dtype=np.int64)
    for j in range(16):
        codes = codes * 3 + rows[:, j]
    order = np.argsort(codes)
    codes, code_part = codes[order], order.astype(np.int64)

    board, part = game.view(game.start())
    masks = np.zeros(numbering.MAX_KINDS, dtype=np.int64)
    for c, k in enumerate(board):
        masks[k] |= 1 << c
    p = parts.index(tuple(part))
    start = offsets[p] + numbering.entry_of_masks(masks, rows[p, :10].copy(), tables, 1)[0]

    seen = [np.zeros(total // 8 + 1, dtype=np.uint8) for _ in range(2)]  # by the side to move
    seen[0][start >> 3] |= 1 << (start & 7)
    frontier = np.array([start], dtype=np.uint32)
    children = np.empty(CHUNK * WIDTH, dtype=np.uint32)
    counts = np.empty(CHUNK, dtype=np.int64)
    depth, finished, reached = 0, 0, 1
    while len(frontier):
        side = (depth + 1) & 1
        nxt = np.empty(max(1 << 20, 8 * len(frontier)), dtype=np.uint32)
        n = 0
        for first in range(0, len(frontier), CHUNK):
            part_of = frontier[first:first + CHUNK]
            _expand(part_of, offsets, rows, codes, code_part, tables, game.consts, children, counts[:len(part_of)],
                    args.stop_at_capture, args.no_suicide, args.stop_at_try)
            if n + WIDTH * len(part_of) > len(nxt):
                nxt = np.concatenate([nxt[:n], np.empty(WIDTH * len(part_of) + len(nxt), dtype=np.uint32)])
            n, done = _visit(children, counts[:len(part_of)], seen[side], nxt, n)
            finished += done
        frontier = nxt[:n].copy()
        reached += n
        depth += 1 if n else 0
        print(f"ply {depth}: {n:,} new, {reached:,} in all", file=sys.stderr, flush=True)
    both = np.bitwise_or(seen[0], seen[1])
    mirror = np.array([r * 3 + 2 - f for r in range(4) for f in range(3)], dtype=np.int64)
    census = [int(x) for x in _census(both, offsets, rows, tables, game.consts, mirror)]
    folded, by_outcome = census[0], dict(zip(("open", "lost", "won", "lost_to_a_try", "lion_en_prise"), census[1:]))
    out = {"game": "dobutsu", "positions": sum(by_outcome.values()), "positions_by_side_to_move": reached,
           "positions_open": by_outcome["open"], "positions_lion_en_prise": by_outcome["lion_en_prise"],
           "positions_finished": sum(by_outcome.values()) - by_outcome["open"] - by_outcome["lion_en_prise"],
           "positions_mirror_folded": folded,
           "positions_by_outcome": by_outcome,
           "stop_at_capture": args.stop_at_capture, "no_suicide": args.no_suicide,
           "stop_at_try": args.stop_at_try, "plies_deepest": depth,
           "numbering": total, "seconds": round(time.perf_counter() - began, 1)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
