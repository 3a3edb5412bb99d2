"""Raw checkpoints and streamed databases, for games too large for memory.

A game with ``out_of_core`` (nine men's morris: its largest tier holds about 10^9
values) cannot keep its solved tiers in memory, nor build its database as an image
in memory. Its build checkpoints each tier as a raw ``.npy`` file, which later tiers
read through a memory map (the operating system's page cache keeps what is used),
with a small ``.sha256`` file beside it: the values' SHA-256 (the digest the
database records) and the seconds the tier took. Both are written under a temporary
name, flushed and renamed, the digest last, so a checkpoint without its digest is
one a kill cut off. The database is then written tier by tier into ``<out>.tmp``
straight from the memory maps, flushed and renamed to ``<out>``.
"""

from __future__ import annotations

import errno
import json
import os
import re
import zlib
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import h5py
import numba
import numpy as np

from ..db.hdf5io import (CODES, chunks_of, digest, encoder, file_options, fletcher32,
                          frequency_codes, fsync_directory, set_text, write_atomically)

BLOCK_VALUES = 1 << 24  # values hashed or copied at a time


def raw_path(directory: Path, name: str) -> Path:
    """``<dir>/<tier name>.npy``: a raw checkpoint."""
    return directory / f"{name}.npy"


def digest_path(raw: Path) -> Path:
    return raw.with_suffix(".sha256")


def write_raw(path: Path, values: np.ndarray, seconds: float, peak_rss: int | None = None,
              sha256: str | None = None) -> str:
    """Write ``values`` to ``path`` (.npy) and its digest beside it (computed unless
    given; with the seconds and the peak resident set the tier took, when known);
    returns the digest."""
    values = np.ascontiguousarray(values)
    with _replaced(path) as handle:
        # Through write() alone: on a real file numpy calls tofile(), whose OSError says
        # "N requested and M written" without the errno (a full disk, a size limit).
        np.lib.format.write_array(_Writes(handle), values, allow_pickle=False)
    sha256 = sha256 or digest(values)
    record = {"sha256": sha256, "seconds": round(float(seconds), 3), "values": int(values.size),
              "dtype": values.dtype.name}
    if peak_rss is not None:
        record["peak_rss_bytes"] = int(peak_rss)
    write_atomically(json.dumps(record).encode(), digest_path(path))
    fsync_directory(path.parent)
    return sha256


class _Writes:
    """A file seen only through its ``write`` (numpy then writes a block at a time)."""

    def __init__(self, handle) -> None:
        self.write = handle.write


def read_record(path: Path) -> dict | None:
    """The digest record beside a raw checkpoint, or None when absent or unreadable."""
    try:
        record = json.loads(digest_path(path).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def open_raw(path: Path) -> np.ndarray:
    """A raw checkpoint's values, memory-mapped read-only."""
    return np.load(path, mmap_mode="r", allow_pickle=False)


def raw_problem(path: Path, size: int, dtype) -> str | None:
    """Why a raw checkpoint cannot be used (None when it is sound): its digest record,
    its shape and type, and the SHA-256 of every value."""
    record = read_record(path)
    if record is None or not isinstance(record.get("sha256"), str):
        return "its digest is missing"
    try:
        values = open_raw(path)
    except (OSError, ValueError) as error:
        return f"unreadable: {error}"
    if values.shape != (size,) or values.dtype != np.dtype(dtype):
        return "wrong shape"
    if streamed_digest(values) != record["sha256"]:
        return "its values do not match their SHA-256"
    return None


def streamed_digest(values: np.ndarray) -> str:
    """:func:`digest` of a memory-mapped array, a block at a time (same result)."""
    import hashlib

    sha256 = hashlib.sha256()
    for start in range(0, len(values), BLOCK_VALUES):
        sha256.update(np.ascontiguousarray(values[start:start + BLOCK_VALUES]).data)
    return sha256.hexdigest()


def write_dataset(group: h5py.Group, name: str, values: np.ndarray, sha256: str,
                  level: int, threads: int | None = None) -> h5py.Dataset:
    """A tier's dataset written from (memory-mapped) values a block at a time: each
    value stored as its rank among the tier's values by frequency (attribute ``codes``:
    the values, most frequent first), then gzip at ``level`` after byte shuffling
    (uint16 values compress about twice as well, ranks a quarter better still),
    Fletcher32 on every chunk, the SHA-256 of the values (not of the ranks) as an
    attribute.

    The chunks are filtered here, as HDF5's own filters would (shuffle, deflate,
    Fletcher32), by ``threads`` threads (default: numba's), and written as they are:
    HDF5 filters one chunk at a time under h5py's lock, and compressing was most of
    the time a large build took to write its database."""
    codes = frequency_codes(values)
    table = encoder(codes)
    chunk = chunks_of(values.shape, values.itemsize)[0]
    dataset = group.create_dataset(name, shape=values.shape, dtype=values.dtype,
                                   chunks=(chunk,), compression="gzip", compression_opts=level,
                                   shuffle=True, fletcher32=True)
    dataset.attrs[CODES] = codes
    batch = max(1, BATCH_BYTES // (chunk * values.itemsize))  # chunks a task filters
    starts = range(0, len(values), chunk * batch)

    def pack(start: int) -> list[bytes]:
        ranks = table[values[start:start + chunk * batch]]
        return [pack_chunk(ranks[i:i + chunk], chunk, level) for i in range(0, len(ranks), chunk)]

    workers = max(1, threads or numba.get_num_threads())
    with ThreadPoolExecutor(workers, thread_name_prefix="retro-pack") as pool:
        for start, packed in zip(starts, _ahead(pool, pack, starts, 2 * workers)):
            for i, data in enumerate(packed):
                dataset.id.write_direct_chunk((start + i * chunk,), data, 0)
    set_text(dataset.attrs, "sha256", sha256)
    return dataset


BATCH_BYTES = 1 << 22  # values one packing task filters (64 chunks of 64 KiB)


def _ahead(pool: ThreadPoolExecutor, work, items, depth: int):
    """``work(item)`` of each item in order, at most ``depth`` running ahead (a map
    that does not queue every item at once: each result holds a few MB)."""
    pending: deque = deque()
    for item in items:
        pending.append(pool.submit(work, item))
        if len(pending) >= depth:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def pack_chunk(values: np.ndarray, chunk: int, level: int) -> bytes:
    """One chunk as HDF5's filters store it: the values (padded with zeros to a whole
    chunk, as HDF5 fills an edge chunk) byte-shuffled, deflated at ``level`` (zlib's
    format, as the gzip filter writes it), then the Fletcher32 of those bytes, little
    end first."""
    if len(values) < chunk:
        values = np.concatenate([values, np.zeros(chunk - len(values), dtype=values.dtype)])
    shuffled = np.ascontiguousarray(values).view(np.uint8).reshape(chunk, values.itemsize).T.tobytes()
    data = zlib.compress(shuffled, level)
    check = int(fletcher32(np.frombuffer(data, dtype=np.uint8)))
    return data + check.to_bytes(4, "little")


def stream_database(out: Path, write) -> None:
    """Write the database ``out`` by ``write(h5py.File)`` into ``<out>.tmp``, flush it
    and rename it into place (the old file, if any, stays until then). HDF5 opens the
    file itself: through a Python file object every read and write would be a Python
    call, and HDF5 reads back what it wrote (a write-only handle fails once files grow)."""
    try:
        with _replacing(out) as tmp:
            with h5py.File(tmp, "w", **file_options()) as f:
                write(f)
    except (RuntimeError, OSError) as error:
        failed = write_error(error, out)
        if failed is None:
            raise
        raise failed from error
    fsync_directory(out.parent)


# What HDF5 reports of a failed write(2), in the text of the error h5py raises (a
# RuntimeError or an OSError, often the one closing the file, the write's own in its
# __context__): "... errno = 28, error message = 'No space left on device' ...".
_HDF5_ERRNO = re.compile(r"errno = (\d+)")
WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def write_error(error: BaseException, path: Path) -> OSError | None:
    """An ``OSError`` naming ``path`` for a write that failed as the disk filled or the
    file passed a size limit (``error`` or one it was raised while handling, with the
    errno as an attribute or in HDF5's text), else None."""
    seen: BaseException | None = error
    for _ in range(8):  # a chain of a few: the close's error, the write's
        if seen is None:
            break
        number = seen.errno if isinstance(seen, OSError) else None
        if number not in WRITE_ERRNOS and (found := _HDF5_ERRNO.search(str(seen))):
            number = int(found.group(1))
        if number in WRITE_ERRNOS:
            return OSError(number, os.strerror(number), str(path))
        seen = seen.__cause__ or seen.__context__
    return None


@contextmanager
def _replacing(path: Path):
    """The path ``<path>.tmp`` to write; once the block ends, flushed to the disk and
    renamed to ``path``; removed if it fails."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)  # never write through whatever a killed run left there
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException as error:
        tmp.unlink(missing_ok=True)
        if isinstance(error, OSError) and error.filename in (None, str(tmp)):
            error.filename = str(path)  # a failed write() names no file: the one being made
        raise


@contextmanager
def _replaced(path: Path):
    """A file object writing ``<path>.tmp`` (see :func:`_replacing`)."""
    with _replacing(path) as tmp, open(tmp, "wb") as handle:
        yield handle
