"""The index of the morris games: tiers, symmetry classes of White's pieces, ranks.

A tier is ``(white_hand, black_hand, white_on_board, black_on_board)``: its positions
differ only in where the pieces stand (and, when both hands are empty, in the side to
move). Placing a piece empties a hand and removing one empties the board, so a move
leads into a tier with fewer pieces in hand, or as many and fewer on the board, or
(a slide) into the tier itself: solving the tiers in increasing order of
``(pieces in hand, pieces on the board)`` solves every tier after its children.

Within a tier an entry is ``(side slot, class of White's pieces, rank of Black's)``:

* White's pieces are brought to the least image of their set under the board's
  symmetries (the lowest-numbered symmetry doing so), and the tier keeps one *class*
  per such least set, numbered in increasing order;
* Black's pieces, moved by the same symmetry, are written as a mask over the points
  White leaves free (bit i = the i-th free point) and ranked colexicographically among
  the masks with as many pieces (numeric order: a table lookup).

So a position and its symmetric images share one entry, except when White's set is
symmetric itself: then the images of Black's pieces under the symmetries keeping
White's set in place may take several entries (solved alike; counted once by
:meth:`symmetry_classes`), as Three Musketeers' placements do.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import NamedTuple

import numpy as np

from .boards import Board, BoardSpec, board


class Index(NamedTuple):
    """The index tables of one morris game, for jitted code (see the module docstring)."""

    size: int  # points
    white_class: np.ndarray  # int64 (2**P,): class of each White set among those of its size
    white_sym: np.ndarray  # int64 (2**P,): symmetry taking it to its class's least set
    class_base: np.ndarray  # int64 (P + 2,): first global class of each set size
    class_count: np.ndarray  # int64 (P + 1,): classes of each set size
    representatives: np.ndarray  # int64 (classes,): each class's least set
    free_points: np.ndarray  # int64 (classes, P): the points a class leaves free, in order
    free_index: np.ndarray  # int64 (classes, P): each point's number among them (-1 on White)
    masks: np.ndarray  # int64: every mask of k bits (k = 0..P) in increasing order
    mask_base: np.ndarray  # int64 (P + 2,): where the masks of k bits start
    rank: np.ndarray  # int64 (2**P,): a mask's rank among the masks of as many bits
    binomial: np.ndarray  # int64 (P + 1, P + 1)


@lru_cache(maxsize=None)
def index(spec: BoardSpec) -> Index:
    """The index tables of a board (built once)."""
    b: Board = board(spec)
    size = b.size
    sets = np.arange(1 << size, dtype=np.int64)
    images = np.stack([b.symmetry_bytes[g, 0][sets & 0xFF] | b.symmetry_bytes[g, 1][sets >> 8]
                       for g in range(len(b.symmetry))])
    least = images.min(axis=0)
    white_sym = np.argmax(images == least[None, :], axis=0).astype(np.int64)
    counts = np.array([bin(s).count("1") for s in range(1 << size)], dtype=np.int64)
    white_class = np.zeros(1 << size, dtype=np.int64)
    class_count = np.zeros(size + 1, dtype=np.int64)
    class_base = np.zeros(size + 2, dtype=np.int64)
    representatives = []
    for k in range(size + 1):
        members = counts == k
        reps = np.unique(least[members])
        white_class[members] = np.searchsorted(reps, least[members])
        class_count[k] = len(reps)
        class_base[k + 1] = class_base[k] + len(reps)
        representatives.extend(reps.tolist())
    representatives = np.array(representatives, dtype=np.int64)
    free_points = np.full((len(representatives), size), -1, dtype=np.int64)
    free_index = np.full((len(representatives), size), -1, dtype=np.int64)
    for klass, rep in enumerate(representatives.tolist()):
        free = [p for p in range(size) if not (rep >> p) & 1]
        free_points[klass, :len(free)] = free
        free_index[klass, free] = np.arange(len(free))
    order = np.argsort(counts, kind="stable")  # within a count, increasing: colex order
    masks = sets[order]
    mask_base = np.zeros(size + 2, dtype=np.int64)
    mask_base[1:] = np.cumsum(np.bincount(counts, minlength=size + 1))
    rank = np.empty(1 << size, dtype=np.int64)
    rank[masks] = np.arange(1 << size) - mask_base[counts[masks]]
    binomial = np.array([[comb(n, k) for k in range(size + 1)] for n in range(size + 1)],
                        dtype=np.int64)
    tables = Index(size, white_class, white_sym, class_base, class_count, representatives,
                   free_points, free_index, masks, mask_base, rank, binomial)
    for table in tables[1:]:
        table.setflags(write=False)
    return tables


def sides_to_move(white_hand: int, black_hand: int) -> tuple[int, ...]:
    """The side codes that can be to move with these hands: White first, placements
    alternating, so White when the hands are equal and not empty, Black when Black
    holds one more, either in the moving phase; none otherwise."""
    if white_hand == black_hand:
        return (0, 1) if white_hand == 0 else (0,)
    if black_hand == white_hand + 1:
        return (1,)
    return ()


class Tiers(NamedTuple):
    """Every tier of a morris game, in solving order, with its tables for jitted code."""

    keys: list  # (white_hand, black_hand, white_on_board, black_on_board), solving order
    sides: list  # the side codes of each tier, in slot order
    tier_of: np.ndarray  # int64 (H + 1, H + 1, P + 1, P + 1): a key's tier number, or -1
    tier_slots: np.ndarray  # int64 (tiers, 2): a side's slot in the tier, or -1


@lru_cache(maxsize=None)
def tiers(size: int, pieces: int, captures: bool) -> Tiers:
    """The tiers of a game with ``pieces`` per side on ``size`` points; with
    ``captures`` (six men's morris) a side may have lost pieces, and a side to move
    with 2 has lost while the other has at least 3."""
    found = []
    for white_hand in range(pieces + 1):
        for black_hand in range(pieces + 1):
            sides = sides_to_move(white_hand, black_hand)
            for white_on in range(pieces - white_hand + 1):
                for black_on in range(pieces - black_hand + 1):
                    if white_on + black_on > size:
                        continue
                    if not captures and (white_on + white_hand != pieces
                                         or black_on + black_hand != pieces):
                        continue
                    totals = (white_on + white_hand, black_on + black_hand)
                    valid = tuple(s for s in sides
                                  if not captures or (totals[s] >= 2 and totals[1 - s] >= 3))
                    if valid:
                        found.append(((white_hand, black_hand, white_on, black_on), valid))
    found.sort(key=lambda item: (item[0][0] + item[0][1], item[0][2] + item[0][3], item[0]))
    keys = [key for key, _ in found]
    tier_of = np.full((pieces + 1, pieces + 1, size + 1, size + 1), -1, dtype=np.int64)
    tier_slots = np.full((len(found), 2), -1, dtype=np.int64)
    for number, (key, sides) in enumerate(found):
        tier_of[key] = number
        for slot, side in enumerate(sides):
            tier_slots[number, side] = slot
    tier_of.setflags(write=False)
    tier_slots.setflags(write=False)
    return Tiers(keys, [sides for _, sides in found], tier_of, tier_slots)
