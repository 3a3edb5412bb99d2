"""Three Musketeers: 3 musketeers against the enemy men, on 3x3, 4x4 and 5x5 boards.

* :mod:`.rules`: the rules on bitboards (every jitted primitive, written once);
* :mod:`.position`: :class:`Position`, :class:`Move`, :class:`Side` and the notation;
* :mod:`.index`: canonical musketeer placements and enemy masks (the index);
* :mod:`.sweep`: the fast layer kernels of the retrograde sweep;
* :mod:`.layout`: how a layer is stored (the storage order, retro 0.2's format);
* :mod:`.lookup`: where a position's value sits in a file, and the probing kernels.

The tiers are the layers: layer k holds the positions with k enemy men, and every
musketeer move captures, so layer k depends only on layer k - 1. Only enemy-to-move
values are stored (see :mod:`.layout`).
"""

from __future__ import annotations

from math import comb

import numpy as np

from ..protocol import GridGame
from . import layout, rules
from .index import encode, indexer, layer_masks, mask_rank, position_at
from .position import Move, Position, Side, as_position
from .sweep import move_tables, solve_layer

NOTATION = ("Positions are written like 'M XXXXO XXXXX XXOXX XXXXX OXXXX': side to move "
            "(M or E), then one group per row from row 1, columns a to e; O musketeer, "
            "X enemy man, . empty. Moves are written like 'e1-d1'.")


_BY_SIZE: dict = {}  # board size -> its variant's game (for_position, on every request)


class ThreeMusketeers(GridGame):
    """Three Musketeers on an n×n board (variants ``5x5``, ``4x4``, ``3x3``)."""

    name = "three-musketeers"
    title = "Three Musketeers"
    family = "Three Musketeers"
    description = ("three musketeers capture enemy men, who win by lining the musketeers up "
                   "(5x5; 3x3 and 4x4 too)")
    rules = layout.RULES_TEXT
    notation = NOTATION
    references = (
        {"title": "J. Laire's 2009 strong solution: database and notes",
         "url": "https://github.com/jlaire/3M"},
        {"title": "Weakly Solving the Three Musketeers Game (2017)",
         "url": "https://github.com/alielabridi/Weakly-Solving-Three-Musketeers-Game"},
    )
    sides = Side
    value_dtype = np.uint8
    variants = ("5x5", "4x4", "3x3")
    symmetries = 8
    dataset_group = layout.LAYER_GROUP
    compressed_fraction = 0.2  # 5x5: 0.12 to 0.23 a layer, 0.186 over any first layers
    piece_kinds = {"O": {"side": Side.MUSKETEERS.value, "shape": "ring", "name": "musketeer"},
                   "X": {"side": Side.ENEMY.value, "shape": "cross", "name": "enemy man"}}

    def __init__(self, variant: str = "5x5") -> None:
        super().__init__(variant)
        self.size = int(variant.split("x")[0])

    @staticmethod
    def variant_of(size: int) -> str:
        return f"{size}x{size}"

    # --- positions ------------------------------------------------------------

    def parse(self, text: str) -> Position:
        return Position.parse(text)

    def parse_move(self, text: str) -> Move:
        return Move.parse(text)

    def start(self) -> Position:
        return Position.start(self.size)

    def finished_value(self, position: Position) -> int:
        winner = position.winner()
        if winner is None:
            raise ValueError(f"{position} is not finished")
        return 1 if winner is Side.MUSKETEERS else 0

    def finished_reason(self, position: Position) -> str:
        winner = position.winner()
        if winner is Side.ENEMY:
            return "the three musketeers stand in one row or column: the enemy has won"
        if position.side is Side.MUSKETEERS:
            return "the musketeers have no enemy man next to them to capture: the musketeers have won"
        return "the enemy has no man that can move: the musketeers have won"

    # --- tiers ----------------------------------------------------------------

    def tiers(self, max_enemy_men: int | None = None) -> range:
        """Layers 0..max_enemy_men (every layer by default)."""
        free = indexer(self.size).free
        return range(free + 1 if max_enemy_men is None else max_enemy_men + 1)

    def tier_name(self, tier: int) -> str:
        return layout.layer_name(tier)

    @property
    def grid_size(self) -> int:
        return self.size

    def tier_words(self, tier: int) -> str:
        return f"layer {tier}"

    @property
    def short_name(self) -> str:
        return self.variant

    def tier_size(self, tier: int) -> int:
        ix = indexer(self.size)
        return ix.placement_count * comb(ix.free, tier)

    def stored_shape(self, tier: int) -> tuple[int, int]:
        ix = indexer(self.size)
        return ix.placement_count, comb(ix.free, tier)

    def tier_memory(self, tier: int) -> int:
        """Its solver's peak (``solve_layer``): both sides' values of the layer (a byte an
        entry each), the layer below, the layer's masks and its lists of masks by the
        squares they hold (4 bytes a mask and square or pair of squares): 0.79 GB measured
        for layer 11 of the 5x5 board."""
        free = indexer(self.size).free
        lists = 0 if tier == 0 else 4 * max(free * comb(free - 1, tier - 1), 2 * len(
            move_tables(self.size).pair_low) * comb(free - 2, tier - 1))
        return (2 * self.tier_size(tier) + sum(self.tier_size(c) for c in self.child_tiers(tier))
                + lists + 8 * comb(free, tier))

    def positions_in(self, tier: int) -> int:
        return 2 * self.tier_size(tier)  # both sides; musketeers-to-move values are derived

    def child_tiers(self, tier: int) -> tuple[int, ...]:
        return (tier - 1,) if tier > 0 else ()

    def tier_of(self, position: Position) -> int:
        return position.enemy_count

    def index(self, position: Position) -> int:
        """The entry of an enemy-to-move position (its canonical image's); -1 for the
        musketeers to move, whose values are not stored."""
        position = as_position(position)
        if position.side is Side.MUSKETEERS:
            return -1
        ix = indexer(self.size)
        placement, mask = encode(position.musketeers, position.enemies, ix)
        k = position.enemy_count
        return int(placement) * comb(ix.free, k) + int(mask_rank(mask, ix.rank_table))

    def position_at(self, tier: int, entry: int) -> Position:
        ix = indexer(self.size)
        row = comb(ix.free, tier)
        placement, rank = divmod(int(entry), row)
        return position_at(Side.ENEMY.code, placement, int(layer_masks(ix.free, tier)[rank]),
                           self.size)

    # --- solving --------------------------------------------------------------

    def solve_tier(self, tier: int, children: dict, advance=None) -> np.ndarray:
        return solve_layer(self.size, tier, children.get(tier - 1), advance)

    def to_stored(self, tier: int, values: np.ndarray) -> np.ndarray:
        ix = indexer(self.size)
        return layout.to_storage_order(values, layer_masks(ix.free, tier),
                                       layout.storage_perm(self.size), ix.rank_table)

    def from_stored(self, tier: int, stored: np.ndarray) -> np.ndarray:
        return layout.square_order_layer(stored, self.size, tier)

    def tier_attrs(self, tier: int) -> dict:
        return {"enemy_men": tier}

    def for_position(self, position: Position) -> ThreeMusketeers:
        game = _BY_SIZE.get(position.size)
        if game is None:
            from .. import get

            game = _BY_SIZE[position.size] = get(self.name, self.variant_of(position.size))
        return game

    def row_layouts(self) -> list[tuple[int, ...]]:
        return [(n,) * n for n in rules.SIZES]  # parse reads every board size

    def header(self, tiers) -> tuple[dict, dict]:
        ix = indexer(self.size)
        top = max(tiers) if len(tiers) else -1
        attrs = {"board_size": self.size, "stored_side": layout.STORED_SIDE,
                 "stored_side_note": layout.STORED_SIDE_TEXT, "layout": layout.LAYOUT_TEXT,
                 "max_guards": top, "layers": top + 1}
        datasets = {"placements": np.asarray(ix.placements),
                    "storage_order": layout.storage_order(self.size)}
        return attrs, datasets

    # --- presentation ---------------------------------------------------------

    def marked_lines(self, position: Position) -> list[dict]:
        if position.winner() is Side.ENEMY:  # rule 3: the musketeers in one row or column
            return [{"side": Side.ENEMY.value, "points": list(position.musketeer_squares())}]
        return []


__all__ = ["Move", "Position", "Side", "ThreeMusketeers", "rules"]
