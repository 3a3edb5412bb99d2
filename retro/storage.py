"""The HDF5 database format: layout, layer files, checksums and metadata.

One file per board size. Only enemy-to-move values are stored; a
musketeers-to-move value is the best over its captures, each an enemy-to-move
position of the layer below (a one-ply search, as chess tablebases do for their
one-sided tables). That halves the file, and the stored side is the more
compressible one.

Layout (format version 1)::

    /                     attributes: format, format_version, board_size, rules,
                          value_encoding, stored_side, layout, max_guards,
                          layers, complete, retro_version, build_seconds, created
    /placements           int64 (P,)    canonical musketeer bitboards
    /storage_order        int8  (P, F)  storage bit t holds mask bit storage_order[p, t]
    /enemy_to_move/layer_KK  uint8 (P, C(F, K)), gzip + Fletcher32, attribute sha256

The value of enemy-to-move position (placement p, mask m) with K enemy men is
``layer_KK[p, colex_rank(storage_mask)]`` where ``storage_mask`` has bit t set when
``m`` has bit ``storage_order[p, t]`` set. The storage order puts the squares far
from the musketeers in the low (fast-varying) bits: far men rarely change the
value, so equal values form runs and the file compresses ~30% better.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from math import comb
from pathlib import Path

import h5py
import numpy as np
from numba import njit, prange

from . import rules
from .indexing import Indexer, indexer, layer_masks, mask_rank
from .outcome import ENCODING

FORMAT = "retro-three-musketeers"
FORMAT_VERSION = 1
STORED_SIDE = "enemy"
CHUNK_BYTES = 1 << 16
GZIP_LEVEL = 3
LAYER_GROUP = "enemy_to_move"

RULES_TEXT = (
    "1. A musketeer moves to an orthogonally adjacent square holding an enemy man and "
    "captures it. 2. An enemy man moves to an orthogonally adjacent empty square. "
    "3. If the three musketeers stand in one row or one column, the enemy has won "
    "(tested first). 4. Otherwise, if the player to move has no legal move, the "
    "musketeers have won."
)
STORED_SIDE_TEXT = (
    "Only enemy-to-move values are stored. A musketeers-to-move position with the "
    "musketeers in a line has value 0; one without a capture has value 1; any other "
    "is the best over its captures, each an enemy-to-move position with one man fewer."
)
LAYOUT_TEXT = (
    "Canonical placement p: the musketeer bitboard, smallest of its 8 symmetric images, "
    "numbered in ascending order (/placements); a position is first mapped by the "
    "symmetry taking its musketeers there (lowest symmetry number if several). Mask m: "
    "bit i set when the i-th free square (square order, bit row*n+col) holds an enemy "
    "man. Value of enemy-to-move (p, m) with K men: /enemy_to_move/layer_KK[p, r], r the "
    "colexicographic rank among K-bit masks of the storage mask, whose bit t is bit "
    "storage_order[p, t] of m."
)


class DatabaseError(Exception):
    """Base class of the errors raised when a database cannot answer."""


class DatabaseNotFoundError(DatabaseError, FileNotFoundError):
    """The database file does not exist."""


class NotADatabaseError(DatabaseError):
    """The file is not a retro database (or of a format version this retro cannot read)."""


class IncompleteDatabaseError(DatabaseError):
    """The file belongs to a build that did not finish."""


class ChecksumError(DatabaseError):
    """Stored data failed its checksum: the file is damaged."""


class BoardMismatchError(DatabaseError):
    """A position of one board size probed in a database of another."""


class PositionNotInDatabaseError(DatabaseError):
    """A position with more enemy men than the database holds (built with --max-guards)."""


def layer_name(k: int) -> str:
    return f"layer_{k:02d}"


def default_path(size: int = rules.DEFAULT_SIZE) -> Path:
    """``db/three-musketeers-NxN.h5``, relative to the working directory."""
    return Path("db") / f"three-musketeers-{size}x{size}.h5"


# --- storage order ---------------------------------------------------------------


@lru_cache(maxsize=None)
def storage_order(size: int) -> np.ndarray:
    """``(P, F)`` int8: storage bit t of placement p holds square-order mask bit [p, t].

    Free squares sorted by their distances to the three musketeers, farthest first
    (compared as sorted distance triples), ties by square number.
    """
    ix = indexer(size)
    n = ix.size
    order = np.zeros((ix.placement_count, ix.free), dtype=np.int8)
    for p, musketeers in enumerate(ix.placements):
        homes = [divmod(s, n) for s in range(n * n) if (int(musketeers) >> s) & 1]

        def farness(i: int, p: int = p, homes: list = homes) -> tuple:
            row, col = divmod(int(ix.free_squares[p, i]), n)
            distances = sorted(abs(row - r) + abs(col - c) for r, c in homes)
            return tuple(-d for d in distances) + (i,)

        order[p] = sorted(range(ix.free), key=farness)
    order.setflags(write=False)
    return order


@lru_cache(maxsize=None)
def storage_perm(size: int) -> np.ndarray:
    """``(P, 3, 256)`` int32: storage-mask bits contributed by each byte of a mask."""
    ix = indexer(size)
    order = storage_order(size)
    perm = np.zeros((ix.placement_count, 3, 256), dtype=np.int32)
    byte_bits = (np.arange(256)[:, None] >> np.arange(8)[None, :]) & 1 == 1
    for p in range(ix.placement_count):
        target = np.zeros(24, dtype=np.int64)
        target[order[p].astype(np.int64)] = 1 << np.arange(ix.free)
        for chunk in range(3):
            images = target[chunk * 8 : chunk * 8 + 8]
            perm[p, chunk] = np.bitwise_or.reduce(np.where(byte_bits, images, 0), axis=1)
    perm.setflags(write=False)
    return perm


@njit(cache=True)
def storage_rank(placement, mask, perm, rank_table):
    """Column of (placement, square-order mask) in its layer dataset."""
    m = perm[placement, 0, mask & 0xFF] | perm[placement, 1, (mask >> 8) & 0xFF]
    m |= perm[placement, 2, (mask >> 16) & 0xFF]
    return mask_rank(m, rank_table)


@njit(cache=True, parallel=True, nogil=True)
def to_storage_order(values, masks, perm, rank_table):
    """Layer values by square-order rank → by storage rank."""
    out = np.empty_like(values)
    for p in prange(values.shape[0]):
        for r in range(len(masks)):
            out[p, storage_rank(p, np.int64(masks[r]), perm, rank_table)] = values[p, r]
    return out


@njit(cache=True, parallel=True, nogil=True)
def from_storage_order(stored, masks, perm, rank_table):
    """Layer values by storage rank → by square-order rank."""
    out = np.empty_like(stored)
    for p in prange(stored.shape[0]):
        for r in range(len(masks)):
            out[p, r] = stored[p, storage_rank(p, np.int64(masks[r]), perm, rank_table)]
    return out


# --- files -----------------------------------------------------------------------


def chunk_shape(placements: int, length: int) -> tuple[int, int]:
    """About CHUNK_BYTES per chunk: whole rows of several placements for small layers."""
    if length >= CHUNK_BYTES:
        return 1, CHUNK_BYTES
    return min(placements, max(1, CHUNK_BYTES // length)), length


def digest(values: np.ndarray) -> str:
    """SHA-256 of a layer's raw bytes (storage order), kept beside each layer."""
    return hashlib.sha256(np.ascontiguousarray(values).data).hexdigest()


def create_layer(group: h5py.Group, k: int, values: np.ndarray, sha256: str) -> h5py.Dataset:
    """Write one layer (storage order) with the standard filters and its digest."""
    dataset = group.create_dataset(
        layer_name(k),
        data=values,
        chunks=chunk_shape(*values.shape),
        compression="gzip",
        compression_opts=GZIP_LEVEL,
        fletcher32=True,
    )
    dataset.attrs["enemy_men"] = k
    dataset.attrs["sha256"] = sha256
    return dataset


def copy_layer(source: h5py.Dataset, group: h5py.Group) -> None:
    """Copy a layer chunk by chunk, still compressed: no recompression, no decoding."""
    target = group.create_dataset(
        source.name.rsplit("/", 1)[1],
        shape=source.shape,
        dtype=source.dtype,
        chunks=source.chunks,
        compression="gzip",
        compression_opts=GZIP_LEVEL,
        fletcher32=True,
    )
    for chunk in source.iter_chunks():
        offset = tuple(s.start for s in chunk)
        mask, data = source.id.read_direct_chunk(offset)
        target.id.write_direct_chunk(offset, data, mask)
    for key, value in source.attrs.items():
        target.attrs[key] = value


def write_header(f: h5py.File, ix: Indexer) -> None:
    """Root attributes and tables common to database and checkpoint files."""
    f.attrs["format"] = FORMAT
    f.attrs["format_version"] = FORMAT_VERSION
    f.attrs["board_size"] = ix.size
    f.attrs["rules"] = RULES_TEXT
    f.attrs["value_encoding"] = ENCODING
    f.attrs["stored_side"] = STORED_SIDE
    f.attrs["stored_side_note"] = STORED_SIDE_TEXT
    f.attrs["layout"] = LAYOUT_TEXT
    f.attrs["complete"] = False
    f.create_dataset("placements", data=np.asarray(ix.placements))
    f.create_dataset("storage_order", data=storage_order(ix.size))
    f.create_group(LAYER_GROUP)


def replace_atomically(tmp: Path, path: Path) -> None:
    """Move a fully written file into place so that ``path`` is never half-written."""
    with open(tmp, "rb+") as handle:
        os.fsync(handle.fileno())
    os.replace(tmp, path)


class DatabaseFile:
    """Read access to a database file, with every check a reader needs.

    Raises :class:`DatabaseNotFoundError`, :class:`NotADatabaseError` or
    :class:`IncompleteDatabaseError` when the file cannot answer at all.
    """

    def __init__(self, path: str | os.PathLike, *, cache_bytes: int = 64 << 20) -> None:
        self.path = Path(path)
        if not self.path.exists():
            raise DatabaseNotFoundError(f"no database at {self.path}")
        if self.path.is_dir():
            raise NotADatabaseError(f"{self.path} is a directory, not a retro database file")
        try:
            self.file = h5py.File(self.path, "r", rdcc_nbytes=cache_bytes, rdcc_nslots=100_003)
        except OSError as error:
            raise NotADatabaseError(f"{self.path} is not a retro database (not an HDF5 file)") from error
        attrs = self.file.attrs
        try:
            if attrs.get("format") != FORMAT:
                raise NotADatabaseError(f"{self.path} is an HDF5 file but not a retro database")
            version = int(attrs["format_version"])
            if version != FORMAT_VERSION:
                raise NotADatabaseError(
                    f"{self.path} has format version {version}; this retro reads version {FORMAT_VERSION}"
                )
            self.size = int(attrs["board_size"])
            self.layers = int(attrs["layers"]) if "layers" in attrs else 0
            if not bool(attrs.get("complete", False)):
                raise IncompleteDatabaseError(
                    f"{self.path} is from a build that did not finish "
                    f"({self.layers} layers written); run 'retro build' again to resume it"
                )
            self.max_guards = int(attrs["max_guards"])
            self.group = self.file[LAYER_GROUP]
            missing = [k for k in range(self.max_guards + 1) if layer_name(k) not in self.group]
            if missing:
                raise NotADatabaseError(f"{self.path} lacks layers {missing}")
        except (KeyError, ValueError, TypeError) as error:
            self.file.close()
            raise NotADatabaseError(f"{self.path} has damaged metadata: {error}") from error
        except DatabaseError:
            self.file.close()
            raise
        self.indexer = indexer(self.size)

    @property
    def metadata(self) -> dict:
        """Root attributes as plain Python values."""
        return {k: _plain(v) for k, v in self.file.attrs.items()}

    def dataset(self, k: int) -> h5py.Dataset:
        return self.group[layer_name(k)]

    def read(self, k: int, rows: slice = slice(None), cols: slice = slice(None)) -> np.ndarray:
        """Stored values of layer k (storage order); checksum failures raise ChecksumError."""
        try:
            return self.dataset(k)[rows, cols]
        except OSError as error:
            raise ChecksumError(
                f"{self.path}: layer {k} failed its Fletcher32 checksum ({error}); the file is damaged"
            ) from error

    def close(self) -> None:
        self.file.close()


def _plain(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    return value


def layer_length(ix: Indexer, k: int) -> int:
    return comb(ix.free, k)


def square_order_layer(stored: np.ndarray, size: int, k: int) -> np.ndarray:
    """A stored layer (storage order) back in square-order rank, as the builder uses it."""
    ix = indexer(size)
    return from_storage_order(stored, layer_masks(ix.free, k), storage_perm(size), ix.rank_table)
