"""HDF5 that protects a user's data: checksums, atomic writes, damage detected at once.

Nothing here knows any game. Every file retro writes is built in memory and written
by Python (:func:`new_image`, :func:`write_atomically`: flushed, renamed, the rename
made durable), uses HDF5's 1.10 format (a checksum on every piece of metadata) and
Fletcher32 on every data chunk, and keeps a SHA-256 of each dataset's raw values
(:func:`digest`). :func:`check_readable` and :func:`damaged` turn what can go wrong
when opening a file into retro's own errors.
"""

from __future__ import annotations

import errno
import hashlib
import io
import math
import os
import stat
from pathlib import Path

import h5py
import numpy as np
from numba import njit

from ..values import not_a_position
from ..errors import ChecksumError, DamagedDatabaseError, DatabaseAccessError, DatabaseNotFoundError, NotADatabaseError
from ..outputs import check_output, file_kind, fsync_directory, write_atomically  # noqa: F401 (their home before)

CHUNK_BYTES = 1 << 16
CHECK_BLOCK_BYTES = 1 << 25  # values read at a time when checking a dataset's digest
GZIP_LEVEL = 3


def chunk_shape(placements: int, length: int) -> tuple[int, int]:
    """About CHUNK_BYTES per chunk: whole rows of several placements for small layers."""
    if length >= CHUNK_BYTES:
        return 1, CHUNK_BYTES
    return min(placements, max(1, CHUNK_BYTES // length)), length


def chunks_of(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """The chunk shape retro gives a dataset of ``shape``: :func:`chunk_shape` for a
    table of rows, about CHUNK_BYTES of values for a flat one."""
    if len(shape) == 2:
        return chunk_shape(*shape)
    return (max(1, min(shape[0], CHUNK_BYTES // itemsize)),)


def chunk_count(shape: tuple[int, ...], itemsize: int) -> int:
    """How many chunks a dataset of ``shape`` is stored in."""
    return math.prod(-(-n // c) for n, c in zip(shape, chunks_of(shape, itemsize)))


def digest(values: np.ndarray) -> str:
    """SHA-256 of a layer's raw bytes (storage order), kept beside each layer."""
    return hashlib.sha256(np.ascontiguousarray(values).data).hexdigest()


CODES = "codes"  # a tier's attribute: the values its stored numbers stand for, most frequent first


def frequency_codes(values: np.ndarray, block: int = 1 << 24) -> np.ndarray:
    """The distinct values of ``values`` (memory-mapped or not), most frequent first
    (ties by value): stored as their ranks, a tier's values compress about a quarter
    smaller (the few commonest values, draws and the short distances, become the
    small numbers whose high bytes are zero)."""
    if values.dtype.itemsize > 2:
        raise ValueError("frequency codes are for 8- and 16-bit values")
    counts = np.zeros(1 << (8 * values.dtype.itemsize), dtype=np.int64)
    for start in range(0, len(values), block):
        counts += np.bincount(np.asarray(values[start:start + block]).ravel(),
                              minlength=len(counts))
    present = np.flatnonzero(counts)
    order = np.argsort(-counts[present], kind="stable")
    return present[order].astype(values.dtype)


def encoder(codes: np.ndarray) -> np.ndarray:
    """The table taking each value of ``codes`` to its rank (what is stored)."""
    table = np.zeros(1 << (8 * codes.dtype.itemsize), dtype=codes.dtype)
    table[codes] = np.arange(len(codes), dtype=codes.dtype)
    return table


def value_table(dataset: h5py.Dataset) -> np.ndarray | None:
    """The table from a dataset's stored numbers to its values (None when it stores the
    values themselves). Numbers past its codes (only a damaged file has them) read as
    "not a position", which every reader refuses, rather than as another value."""
    codes = dataset.attrs.get(CODES)
    if codes is None:
        return None
    dtype = dataset.dtype
    table = np.full(1 << (8 * dtype.itemsize), not_a_position(dtype), dtype=dtype)
    table[:len(codes)] = np.asarray(codes, dtype=dtype)
    return table


def decoded(stored: np.ndarray, table: np.ndarray | None) -> np.ndarray:
    """A dataset's values from what it stores (see :func:`value_table`)."""
    return stored if table is None else table[stored]


def read_values(dataset: h5py.Dataset, key=()) -> np.ndarray:
    """The values of ``dataset[key]`` (all of them by default), decoded."""
    return decoded(dataset[key], value_table(dataset))


def dataset_damage(dataset: h5py.Dataset) -> str | None:
    """Why a dataset's values cannot be trusted, or None when they can: every chunk is
    decoded (HDF5 checks its Fletcher32 on the way) and the values are compared with
    the SHA-256 recorded beside them."""
    recorded = get_text(dataset.attrs, "sha256")
    sha256 = hashlib.sha256()  # over blocks of whole rows: digest() of the values, in less memory
    rows = dataset.shape[0] if dataset.shape else 1
    row_bytes = max(1, dataset.dtype.itemsize * math.prod(dataset.shape[1:]))
    step = dataset.chunks[0] if dataset.chunks else rows
    step = max(1, step * max(1, CHECK_BLOCK_BYTES // (row_bytes * step)))
    table = value_table(dataset)
    try:
        for start in range(0, rows, step):
            block = dataset[start:start + step] if dataset.shape else dataset[()]
            sha256.update(np.ascontiguousarray(decoded(block, table)).data)
    except HDF5_ERRORS:
        return "a data chunk failed its Fletcher32 checksum"
    if sha256.hexdigest() != recorded:
        return "its values do not match their SHA-256"
    return None


def create_dataset(group: h5py.Group, name: str, values: np.ndarray, sha256: str,
                   level: int = GZIP_LEVEL) -> h5py.Dataset:
    """Write one tier (in its stored order) with the standard filters (gzip at ``level``,
    Fletcher32) and its digest."""
    shape = values.shape
    dataset = group.create_dataset(
        name,
        data=values,
        chunks=chunks_of(shape, values.itemsize),
        compression="gzip",
        compression_opts=level,
        fletcher32=True,
    )
    set_text(dataset.attrs, "sha256", sha256)
    return dataset


def copy_dataset(source: h5py.Dataset, group: h5py.Group, what: str) -> None:
    """Copy a dataset chunk by chunk, still compressed: no recompression, no decoding.

    Each chunk's Fletcher32 checksum is checked on the way (over the compressed
    bytes, as HDF5 stores it), so a chunk damaged on disk is never copied into a
    new file; raises :class:`ChecksumError` naming ``what``.
    """
    target = group.create_dataset(
        source.name.rsplit("/", 1)[1],
        shape=source.shape,
        dtype=source.dtype,
        chunks=source.chunks,
        compression="gzip",
        compression_opts=source.compression_opts,
        shuffle=source.shuffle,  # the chunks are copied as they are: the same filters
        fletcher32=True,
    )
    for chunk in source.iter_chunks():
        offset = tuple(s.start for s in chunk)
        mask, data = source.id.read_direct_chunk(offset)
        if not chunk_intact(data):
            raise ChecksumError(f"{what}: the chunk at {offset} failed its Fletcher32 checksum")
        target.id.write_direct_chunk(offset, data, mask)
    for key, value in source.attrs.items():
        target.attrs[key] = value


@njit(cache=True, nogil=True)
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
        raise NotADatabaseError(f"{path} is {file_kind(mode)}, not a retro database file")
    try:
        with open(path, "rb"):
            pass
    except PermissionError as error:
        raise DatabaseAccessError(f"permission denied reading {path}") from error
    except OSError as error:
        raise NotADatabaseError(f"cannot read {path}: {error.strerror or error}") from error


def damaged(path: Path, what: str, rebuild: str) -> DamagedDatabaseError:
    """The error for a file that starts like a database but cannot be read as one;
    ``rebuild`` is the command that writes it again."""
    return DamagedDatabaseError(
        f"{path} is damaged or truncated ({what}); rebuild it with '{rebuild}' or restore a copy"
    )

def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _plain(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    return value
