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
import io
import json
import os
import re
import shlex
import stat
from functools import lru_cache
from math import comb
from pathlib import Path

import h5py
import numpy as np
from numba import njit, prange

from . import rules
from .errors import (  # re-exported: their historic home
    BoardMismatchError,
    ChecksumError,
    DamagedDatabaseError,
    DatabaseAccessError,
    DatabaseClosedError,
    DatabaseError,
    DatabaseNotFoundError,
    IncompleteDatabaseError,
    NotADatabaseError,
    PositionNotInDatabaseError,
)
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


def layer_name(k: int) -> str:
    return f"layer_{k:02d}"


def default_path(size: int = rules.DEFAULT_SIZE) -> Path:
    """``db/three-musketeers-NxN.h5``, relative to the working directory."""
    return Path("db") / f"three-musketeers-{size}x{size}.h5"


# --- build commands and the checkpoint manifest ----------------------------------


def partial_path(out: Path) -> Path:
    """``<out>.partial/``: the checkpoint folder of a build of ``out``."""
    return out.with_name(out.name + ".partial")


def manifest_path(out: Path) -> Path:
    """The manifest of a build's checkpoints: format, board and the build's options."""
    return partial_path(out) / "build.json"


def read_manifest(out: Path) -> dict | None:
    """The checkpoint manifest of a build of ``out``, or None if absent or unreadable."""
    try:
        manifest = json.loads(manifest_path(out).read_text())
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def build_command(path: str | os.PathLike, size: int | None, max_guards: int | None = None) -> str:
    """The ``retro build`` command that writes the database ``path`` of board ``size``.

    Without ``size``, a file name that names its board (``...-4x4.h5``) supplies it.
    """
    path = Path(path)
    if size is None:
        named = re.search(r"([0-9])x\1", path.name)
        if named and int(named[1]) in rules.SIZES:
            size = int(named[1])
    command = f"retro build --board {size if size is not None else 'N'}"
    if max_guards is not None:
        command += f" --max-guards {max_guards}"
    if size is None or path != default_path(size):
        command += f" --out {shlex.quote(str(path))}"
    return command


def resume_command(out: str | os.PathLike, size: int | None = None) -> str:
    """The command that resumes an interrupted build of ``out``, with the options the
    checkpoints recorded (board size, ``--max-guards``)."""
    manifest = read_manifest(Path(out)) or {}
    board = manifest.get("board_size")
    max_guards = manifest.get("max_guards")
    return build_command(
        out,
        board if isinstance(board, int) else size,
        max_guards if isinstance(max_guards, int) else None,
    )


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
    set_text(dataset.attrs, "sha256", sha256)
    return dataset


def copy_layer(source: h5py.Dataset, group: h5py.Group) -> None:
    """Copy a layer chunk by chunk, still compressed: no recompression, no decoding.

    Each chunk's Fletcher32 checksum is checked on the way (over the compressed
    bytes, as HDF5 stores it), so a chunk damaged on disk is never copied into a
    new file; raises :class:`ChecksumError` naming the layer.
    """
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
        if not chunk_intact(data):
            raise ChecksumError(f"layer {source.attrs.get('enemy_men')}: the chunk at {offset} "
                                "failed its Fletcher32 checksum")
        target.id.write_direct_chunk(offset, data, mask)
    for key, value in source.attrs.items():
        target.attrs[key] = value


@njit(cache=True)
def fletcher32(data):
    """HDF5's Fletcher32 of a byte array, computed as its filter does (H5_checksum_fletcher32).

    Sums are folded every 360 words, as there, which also keeps them exact in 64 bits.
    """
    n = len(data)
    words = n // 2
    sum1 = 0
    sum2 = 0
    i = 0
    while words:
        block = min(words, 360)
        words -= block
        for _ in range(block):
            sum1 += (np.int64(data[i]) << 8) | np.int64(data[i + 1])
            sum2 += sum1
            i += 2
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    if n % 2:
        sum1 += np.int64(data[i]) << 8
        sum2 += sum1
        sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
        sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    sum1 = (sum1 & 0xFFFF) + (sum1 >> 16)
    sum2 = (sum2 & 0xFFFF) + (sum2 >> 16)
    return ((sum2 << 16) | sum1) & 0xFFFFFFFF


def chunk_intact(raw: bytes) -> bool:
    """True when a raw chunk (compressed bytes, then the 4-byte Fletcher32 trailer) checks.

    Like HDF5, the trailer is accepted in either byte order (old HDF5 versions
    wrote it swapped).
    """
    if len(raw) < 4:
        return False
    data = np.frombuffer(raw, dtype=np.uint8)
    stored = int.from_bytes(raw[-4:], "little")
    value = int(fletcher32(data[:-4]))
    swapped = ((value & 0xFF) << 24) | ((value & 0xFF00) << 8) | ((value >> 8) & 0xFF00) | (value >> 24)
    return stored in (value, swapped)


def new_image() -> tuple[io.BytesIO, h5py.File]:
    """An HDF5 file built in memory, to be written to disk by :func:`write_atomically`.

    HDF5 never writes to the disk itself, so a full disk or a permission problem
    surfaces as one clean ``OSError`` from Python's own write, never as an HDF5
    error stack or a crash in the middle of a half-written file.
    """
    buffer = io.BytesIO()
    return buffer, h5py.File(buffer, "w", **file_options())


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomically(data, path: Path) -> None:
    """Write ``data`` (bytes or a buffer) to ``path`` so that it is there whole or not at all.

    Written under ``<path>.tmp``, flushed to the disk, renamed into place, and the
    rename made durable, so a crash or power loss can leave the old file or the
    new one, never a renamed but empty one. On any error the temporary file is
    removed and the error raised.
    """
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as error:
        tmp.unlink(missing_ok=True)
        if isinstance(error, OSError) and error.filename is None:
            error.filename = str(path)  # a failed write() names no file: say which
        raise
    fsync_directory(path.parent)


def set_text(attrs: h5py.AttributeManager, name: str, value: str) -> None:
    """Store text as a fixed-length string attribute.

    Fixed-length strings live in the object header, which carries a checksum;
    h5py's default variable-length strings live in HDF5's global heap, which does
    not, and a damaged global heap can send a reader into an endless loop.
    """
    attrs.create(name, np.bytes_(value.encode("utf-8")))


def get_text(attrs: h5py.AttributeManager, name: str) -> str | None:
    """A text attribute as ``str`` (fixed- or variable-length); None if absent or not text."""
    value = attrs.get(name)
    if isinstance(value, bytes):
        try:
            return value.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return value if isinstance(value, str) else None


def write_header(f: h5py.File, ix: Indexer) -> None:
    """Root attributes and tables common to database and checkpoint files."""
    set_text(f.attrs, "format", FORMAT)
    f.attrs["format_version"] = FORMAT_VERSION
    f.attrs["board_size"] = ix.size
    set_text(f.attrs, "rules", RULES_TEXT)
    set_text(f.attrs, "value_encoding", ENCODING)
    set_text(f.attrs, "stored_side", STORED_SIDE)
    set_text(f.attrs, "stored_side_note", STORED_SIDE_TEXT)
    set_text(f.attrs, "layout", LAYOUT_TEXT)
    f.attrs["complete"] = False
    f.create_dataset("placements", data=np.asarray(ix.placements))
    f.create_dataset("storage_order", data=storage_order(ix.size))
    f.create_group(LAYER_GROUP)


HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
# Where HDF5 looks for its superblock: offset 0, then 512, 1024, 2048, ... bytes.
SIGNATURE_OFFSETS = (0, 512, 1024, 2048, 4096)
# HDF5 and h5py report a damaged structure with any of these (a KeyError for a link
# they cannot follow, a RuntimeError for a bad message, an OSError for a bad read).
HDF5_ERRORS = (OSError, RuntimeError, KeyError, ValueError, TypeError, AttributeError)


def file_options() -> dict:
    """Options of every HDF5 file retro writes.

    The 1.10 file format puts a checksum on every piece of metadata (superblock,
    object headers, chunk indexes), so HDF5 itself refuses a damaged header instead
    of following a corrupted pointer; the data chunks carry Fletcher32 as before.
    """
    return {"libver": ("v110", "v110")}


def starts_like_hdf5(path: Path) -> bool:
    """True when the file holds HDF5's signature where HDF5 looks for it."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SIGNATURE_OFFSETS[-1] + len(HDF5_SIGNATURE))
    except OSError:
        return False
    return any(head[at:at + len(HDF5_SIGNATURE)] == HDF5_SIGNATURE for at in SIGNATURE_OFFSETS)


def check_readable(path: Path) -> None:
    """Raise the DatabaseError that says why ``path`` cannot be opened for reading."""
    if not path.exists():
        raise DatabaseNotFoundError(f"no database at {path}")
    if path.is_dir():
        raise NotADatabaseError(f"{path} is a directory, not a retro database file")
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):  # a named pipe would block the open below until written to
        kind = "a named pipe" if stat.S_ISFIFO(mode) else "a device" if stat.S_ISCHR(mode) or \
            stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file"
        raise NotADatabaseError(f"{path} is {kind}, not a retro database file")
    try:
        with open(path, "rb"):
            pass
    except PermissionError as error:
        raise DatabaseAccessError(f"permission denied reading {path}") from error
    except OSError as error:
        raise NotADatabaseError(f"cannot read {path}: {error.strerror or error}") from error


def damaged(path: Path, what: str) -> DamagedDatabaseError:
    """The error for a file that starts like a database but cannot be read as one."""
    return DamagedDatabaseError(
        f"{path} is damaged or truncated ({what}); rebuild it with 'retro build --force' "
        "or restore a copy"
    )


class DatabaseFile:
    """Read access to a database file, with every check a reader needs.

    Raises :class:`DatabaseNotFoundError`, :class:`DatabaseAccessError`,
    :class:`NotADatabaseError` (:class:`DamagedDatabaseError` for a file that starts
    like HDF5 but cannot be read as a database) or :class:`IncompleteDatabaseError`
    when the file cannot answer at all. Every number read from the header is
    range-checked before it is used, so a damaged header fails here, at once.
    """

    def __init__(self, path: str | os.PathLike, *, cache_bytes: int = 64 << 20) -> None:
        self.path = Path(path)
        check_readable(self.path)
        try:
            self.file = h5py.File(self.path, "r", rdcc_nbytes=cache_bytes, rdcc_nslots=100_003)
        except HDF5_ERRORS as error:
            if starts_like_hdf5(self.path):
                raise damaged(self.path, _first_line(error)) from error
            raise NotADatabaseError(f"{self.path} is not a retro database (not an HDF5 file)") from error
        try:
            self._read_header()
        except DatabaseError:
            self.file.close()
            raise
        except HDF5_ERRORS as error:
            self.file.close()
            raise damaged(self.path, _first_line(error)) from error
        self.indexer = indexer(self.size)

    def _read_header(self) -> None:
        attrs = self.file.attrs
        # ``in`` asks HDF5 and fails on a damaged header, where ``get`` would say "absent".
        if "format" not in attrs or get_text(attrs, "format") != FORMAT:
            raise NotADatabaseError(f"{self.path} is an HDF5 file but not a retro database")
        version = int(attrs["format_version"])
        if version != FORMAT_VERSION:
            raise NotADatabaseError(
                f"{self.path} has format version {version}; this retro reads version {FORMAT_VERSION}"
            )
        self.size = int(attrs["board_size"])
        if self.size not in rules.SIZES:
            raise damaged(self.path, f"board size {self.size}")
        free = self.size * self.size - rules.MUSKETEER_COUNT
        if "complete" not in attrs or "layers" not in attrs:
            raise damaged(self.path, "its header lacks the build's attributes")
        self.layers = int(attrs["layers"])
        if not 0 <= self.layers <= free + 1:
            raise damaged(self.path, f"{self.layers} layers on a {self.size}x{self.size} board")
        if not bool(attrs["complete"]):
            raise IncompleteDatabaseError(
                f"{self.path} is from a build that did not finish ({self.layers} layers "
                f"written); to resume it, run: {resume_command(self.path, self.size)}"
            )
        self.max_guards = int(attrs["max_guards"])
        if not 0 <= self.max_guards <= free:
            raise damaged(self.path, f"max_guards {self.max_guards} on a {self.size}x{self.size} board")
        self.group = self.file[LAYER_GROUP]
        missing = [k for k in range(self.max_guards + 1) if layer_name(k) not in self.group]
        if missing:
            raise damaged(self.path, f"layers {missing} are missing")

    def check_layout(self) -> None:
        """Raise :class:`DamagedDatabaseError` unless every layer is laid out as retro writes it.

        Probing trusts each layer's shape and chunk shape; :mod:`retro.verify` instead
        reports a wrong layout as a failed check, so it does not call this.
        """
        placements = self.indexer.placement_count
        for k in range(self.max_guards + 1):
            try:
                dataset = self.dataset(k)
                shape = (placements, comb(self.indexer.free, k))
                ok = (isinstance(dataset, h5py.Dataset) and dataset.shape == shape
                      and dataset.dtype == np.uint8 and dataset.chunks == chunk_shape(*shape)
                      and dataset.fletcher32)
            except HDF5_ERRORS as error:
                raise damaged(self.path, f"layer {k}: {_first_line(error)}") from error
            if not ok:
                raise damaged(self.path, f"layer {k} is not laid out as retro writes it")

    @property
    def metadata(self) -> dict:
        """Root attributes as plain Python values."""
        try:
            return {k: _plain(v) for k, v in self.file.attrs.items()}
        except HDF5_ERRORS as error:
            raise damaged(self.path, _first_line(error)) from error

    def dataset(self, k: int) -> h5py.Dataset:
        return self.group[layer_name(k)]

    def content_digest(self) -> str:
        """SHA-256 naming the values: over the board, the layers and each layer's SHA-256.

        Two files with the same values have the same digest, whatever their build.
        """
        try:
            layers = [get_text(self.dataset(k).attrs, "sha256") or "" for k in range(self.max_guards + 1)]
        except HDF5_ERRORS as error:
            raise damaged(self.path, _first_line(error)) from error
        text = f"{FORMAT} {FORMAT_VERSION} {self.size}x{self.size} layers 0..{self.max_guards}\n"
        return hashlib.sha256((text + "\n".join(layers)).encode()).hexdigest()

    def read(self, k: int, rows: slice = slice(None), cols: slice = slice(None)) -> np.ndarray:
        """Stored values of layer k (storage order); checksum failures raise ChecksumError."""
        try:
            return self.dataset(k)[rows, cols]
        except HDF5_ERRORS as error:
            raise self.checksum_error(k, error) from error

    def checksum_error(self, k: int, error: BaseException) -> ChecksumError:
        """The error for layer k's data failing to read back (Fletcher32 or structure)."""
        return ChecksumError(
            f"{self.path}: layer {k} failed its checksum ({_first_line(error)}); the file is damaged"
        )

    def close(self) -> None:
        self.file.close()


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


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
