"""Win/draw/loss exports: who wins every position, without the distance, for apps.

``retro export --wdl`` writes one from a built database of a tier game (every game but
Three Musketeers, whose one-byte file is already small); :func:`open_database` opens it
like a database, and its probes say who wins (``plies`` is None) or that it is a draw.

Layout (format ``retro-wdl``, version 1)::

    /                      attributes: format, format_version, game, variant, rules,
                           tiers (JSON, in solving order), source_digest (the content
                           digest of the database exported), block_entries, lzma_filters
                           (JSON), symbols, created, retro_version
    /wdl/<tier name>/blocks    uint8, Fletcher32 on every chunk: the tier's blocks one
                               after another, each ``block_entries`` entries of 2 bits
                               (4 a byte, the first in the low bits) compressed as raw
                               LZMA2 with ``lzma_filters``
    /wdl/<tier name>/offsets   uint64: block b is blocks[offsets[b]:offsets[b + 1]];
                               attributes entries and sha256 (of the packed 2-bit entries)

An entry is 0 when the second side wins, 1 when the first side wins and 2 for a draw,
in the frame the tier stores its values (see :meth:`Game.value_for`); an entry that is no
position repeats the entry before it (a probe never reads it; repeats compress best).
A block is 2^18 entries, 64 KB unpacked: one probe decompresses one block (about a
millisecond) and keeps the last few.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import os
import stat
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import h5py
import numpy as np

from .. import games
from .._version import __version__
from ..errors import ChecksumError, DatabaseError, NotADatabaseError
from ..games.protocol import Game
from ..outputs import check_output, open_output
from ..values import draw_value, encode, max_plies, not_a_position
from .format import DatabaseFile
from .hdf5io import HDF5_ERRORS, _first_line, check_readable, get_text, set_text, value_table

FORMAT = "retro-wdl"
FORMAT_VERSION = 1
BLOCK_ENTRIES = 1 << 18
FILTERS = [{"id": lzma.FILTER_LZMA2, "preset": 6, "dict_size": 1 << 16}]
SYMBOLS = "0: the second side wins, 1: the first side wins, 2: a draw (in the tier's stored frame)"
SECOND_WINS, FIRST_WINS, DRAW = 0, 1, 2
BLOCKS_AT_ONCE = 64  # blocks read from the source and compressed together
FILE_CHUNK = 1 << 16  # bytes in each HDF5 chunk of a tier's blocks; a cold probe reads the one or two
# holding its block (about 18 kB of LZMA for the standard game), not a MiB
NOT_FOR_MUSKETEERS = ("the win/draw/loss export covers the tier games; Three Musketeers' "
                      "database already stores one byte a position")
NOT_FOR_MORE_PLAYERS = ("the win/draw/loss export covers two-sided games; the four-player race's "
                        "database is a few hundred kB, every player's value in it")


def is_wdl_file(path: Path) -> bool:
    """Whether ``path`` is a readable HDF5 file of this format (False on any doubt)."""
    try:
        with h5py.File(path, "r") as f:
            return get_text(f.attrs, "format") == FORMAT
    except Exception:  # noqa: BLE001 - any failure: let the database reader explain it
        return False


def symbol_table(dtype, table: np.ndarray | None) -> np.ndarray:
    """``lookup[stored number]``: its entry (0, 1, 2), or 3 for an entry that is no position."""
    top = int(np.iinfo(dtype).max)
    values = np.arange(top + 1, dtype=np.int64) if table is None else table.astype(np.int64)
    lookup = (values & 1).astype(np.uint8)
    lookup[values == draw_value(dtype)] = DRAW
    lookup[values == not_a_position(dtype)] = 3
    return lookup


def fill_gaps(symbols: np.ndarray, previous: int) -> np.ndarray:
    """``symbols`` with each 3 (no position) replaced by the entry before it."""
    gaps = symbols == 3
    if not gaps.any():
        return symbols
    where = np.where(gaps, 0, np.arange(1, len(symbols) + 1))
    np.maximum.accumulate(where, out=where)
    return np.concatenate([np.array([previous], np.uint8), symbols])[where]


def pack(symbols: np.ndarray) -> np.ndarray:
    """Four 2-bit entries a byte, the first in the low bits (zeros pad the last byte)."""
    padded = np.zeros(-(-len(symbols) // 4) * 4, np.uint8)
    padded[:len(symbols)] = symbols
    quads = padded.reshape(-1, 4)
    return quads[:, 0] | (quads[:, 1] << 2) | (quads[:, 2] << 4) | (quads[:, 3] << 6)


def _compress(packed: np.ndarray) -> bytes:
    return lzma.compress(packed.tobytes(), format=lzma.FORMAT_RAW, filters=FILTERS)


def export_wdl(source: str | os.PathLike, out: str | os.PathLike, *, threads: int | None = None,
               progress=None, option: str | None = None) -> dict:
    """Write the win/draw/loss export of the database ``source`` to ``out``.

    Written to ``<out>.tmp`` and renamed when whole, so an interrupted export leaves no
    half file. ``progress(entries)`` is called as entries are done. Returns a summary:
    entries, bytes, seconds and bits an entry. ``out`` and ``<out>.tmp`` must each be a
    regular file or missing: anything else (a symbolic link, a device, a named pipe, a
    socket, a folder) raises :class:`~retro.errors.OutputPathError` before anything is
    written, naming ``option`` (the flag that gave ``out``) when given.
    """
    started = time.monotonic()
    # The rename would replace whatever ``out`` is, and HDF5 would write through a link
    # at ``<out>.tmp``: both are checked before the source is even opened.
    out = check_output(out, option)
    tmp = check_output(out.with_name(out.name + ".tmp"))
    file = DatabaseFile(source)
    try:
        game = file.game
        if game.name == games.DEFAULT_GAME:
            raise DatabaseError(NOT_FOR_MUSKETEERS)
        if game.players > 2:
            raise DatabaseError(NOT_FOR_MORE_PLAYERS)
        digest = file.content_digest()
        entries = 0
        # Created by the guard's own opening (no link followed, a regular file or an
        # error), so that HDF5 then truncates that file rather than opening by name
        # whatever was planted since the check.
        open_output(tmp).close()
        with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool, \
                h5py.File(tmp, "w") as f:
            _write_header(f, game, file.tiers, digest)
            group = f.create_group("wdl")
            for tier in file.tiers:
                entries += _export_tier(file, tier, group.create_group(game.tier_name(tier)),
                                        pool, progress)
            f.attrs["complete"] = True
        # An export takes minutes: what ``out`` and the file written are is checked
        # again just before the rename.
        check_output(out, option)
        check_output(tmp)
        os.replace(tmp, out)
    except BaseException:
        _remove_own(tmp)
        raise
    finally:
        file.close()
    size = out.stat().st_size
    return {"entries": entries, "bytes": size, "seconds": time.monotonic() - started,
            "bits_per_entry": 8 * size / max(1, entries)}


def _remove_own(tmp: Path) -> None:
    """Remove the half-written ``tmp``, but only a regular file: a link, a pipe or a
    device found there is not the export's to remove."""
    try:
        if stat.S_ISREG(os.lstat(tmp).st_mode):
            tmp.unlink()
    except FileNotFoundError:
        pass


def _write_header(f: h5py.File, game: Game, tiers, digest: str) -> None:
    set_text(f.attrs, "format", FORMAT)
    f.attrs["format_version"] = FORMAT_VERSION
    set_text(f.attrs, "game", game.name)
    set_text(f.attrs, "variant", game.variant)
    set_text(f.attrs, "rules", game.rules)
    set_text(f.attrs, "tiers", json.dumps([game.tier_name(t) for t in tiers]))
    set_text(f.attrs, "source_digest", digest)
    f.attrs["block_entries"] = BLOCK_ENTRIES
    set_text(f.attrs, "lzma_filters", json.dumps(FILTERS))
    set_text(f.attrs, "symbols", SYMBOLS)
    set_text(f.attrs, "created", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    set_text(f.attrs, "retro_version", __version__)
    f.attrs["complete"] = False


def _export_tier(file: DatabaseFile, tier, group: h5py.Group, pool: ThreadPoolExecutor,
                 progress) -> int:
    dataset = file.dataset(tier)
    length = dataset.shape[0]
    lookup = symbol_table(dataset.dtype, value_table(dataset))
    offsets = [0]
    sha256 = hashlib.sha256()
    previous = 0
    step = BLOCK_ENTRIES * BLOCKS_AT_ONCE
    pending = None  # the last slice's compression, written while the next slice is read

    compressed: list[bytes] = []  # the tier's blocks, written at its end (at most ~150 MB)

    def write(futures) -> None:
        for future in futures:
            compressed.append(future.result())
            offsets.append(offsets[-1] + len(compressed[-1]))

    for start in range(0, length, step):
        try:
            stored = dataset[start:start + step]
        except HDF5_ERRORS as error:
            raise file.checksum_error(tier, error) from error
        symbols = fill_gaps(lookup[stored], previous)
        previous = int(symbols[-1])
        packed = [pack(symbols[i:i + BLOCK_ENTRIES]) for i in range(0, len(symbols), BLOCK_ENTRIES)]
        for block in packed:
            sha256.update(block.data)
        futures = [pool.submit(_compress, block) for block in packed]
        if pending is not None:
            write(pending)
        pending = futures
        if progress is not None:
            progress(len(stored))
    if pending is not None:
        write(pending)
    data = np.frombuffer(b"".join(compressed), np.uint8)
    # Chunks of equal size, so that the last one wastes a few bytes, not most of a chunk.
    count = max(1, -(-len(data) // FILE_CHUNK))
    group.create_dataset("blocks", data=data, chunks=(max(1, -(-len(data) // count)),),
                         fletcher32=True)
    group.create_dataset("offsets", data=np.asarray(offsets, np.uint64))
    group["offsets"].attrs["entries"] = length
    set_text(group["offsets"].attrs, "sha256", sha256.hexdigest())
    return length


class WdlFile:
    """Read access to an export, with the checks a reader needs (the part of
    :class:`~retro.db.format.DatabaseFile` a :class:`~retro.db.database.Database` uses)."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(os.path.abspath(path))
        check_readable(self.path)
        try:
            self.file = h5py.File(self.path, "r")
        except HDF5_ERRORS as error:
            raise NotADatabaseError(f"{self.path} cannot be read: {_first_line(error)}") from error
        try:
            self._read_header()
        except BaseException:
            self.file.close()
            raise

    def _read_header(self) -> None:
        attrs = self.file.attrs
        try:
            version = int(attrs["format_version"])
            if version != FORMAT_VERSION:
                raise NotADatabaseError(f"{self.path} is a win/draw/loss export of version "
                                        f"{version}; this retro reads version {FORMAT_VERSION}")
            if not bool(attrs["complete"]):
                raise DatabaseError(f"{self.path} is an unfinished export; export again")
            self.game = games.get(get_text(attrs, "game"), get_text(attrs, "variant"))
            by_name = {self.game.tier_name(t): t for t in self.game.tiers()}
            self.tiers = [by_name[name] for name in json.loads(get_text(attrs, "tiers"))]
            self.block_entries = int(attrs["block_entries"])
            self.filters = json.loads(get_text(attrs, "lzma_filters"))
            self.source_digest = get_text(attrs, "source_digest")
        except (games.UnknownGameError, *HDF5_ERRORS) as error:
            raise ChecksumError(f"{self.path}: its header is damaged ({_first_line(error)})") from error
        if self.block_entries <= 0 or self.block_entries % 4:
            raise ChecksumError(f"{self.path}: its header is damaged (blocks of {self.block_entries} entries)")

    @property
    def metadata(self) -> dict:
        """The export's self-description."""
        return {key: (get_text(self.file.attrs, key) if isinstance(value, bytes) else
                      value.item() if hasattr(value, "item") else value)
                for key, value in self.file.attrs.items()}

    def content_digest(self) -> str:
        """The content digest of the database it was exported from."""
        return self.source_digest or ""

    def group(self, tier) -> h5py.Group:
        return self.file["wdl"][self.game.tier_name(tier)]

    def close(self) -> None:
        self.file.close()


class WdlReader:
    """Entries of an export, block by block, with the last ``keep`` blocks kept."""

    def __init__(self, file: WdlFile, keep: int = 16) -> None:
        self._file = file
        self._tiers: dict = {}
        self._blocks: OrderedDict = OrderedDict()
        self._keep = keep

    def tier(self, tier) -> tuple[h5py.Dataset, np.ndarray, int]:
        held = self._tiers.get(tier)
        if held is None:
            try:
                group = self._file.group(tier)
                offsets = group["offsets"][:]
                entries = int(group["offsets"].attrs["entries"])
                held = self._tiers[tier] = (group["blocks"], offsets, entries)
            except HDF5_ERRORS as error:
                raise self._damaged(tier, error) from error
            if len(offsets) != -(-entries // self._file.block_entries) + 1:
                raise self._damaged(tier, "its block offsets do not cover its entries")
        return held

    def block(self, tier, number: int) -> np.ndarray:
        """Block ``number`` of ``tier``, packed (4 entries a byte)."""
        key = (tier, number)
        packed = self._blocks.get(key)
        if packed is not None:
            self._blocks.move_to_end(key)
            return packed
        blocks, offsets, entries = self.tier(tier)
        try:
            raw = blocks[int(offsets[number]):int(offsets[number + 1])].tobytes()
            data = lzma.decompress(raw, format=lzma.FORMAT_RAW, filters=self._file.filters)
        except (lzma.LZMAError, *HDF5_ERRORS) as error:
            raise self._damaged(tier, error) from error
        wanted = -(-min(self._file.block_entries, entries - number * self._file.block_entries) // 4)
        if len(data) != wanted:
            raise self._damaged(tier, f"block {number} holds {len(data)} bytes, not {wanted}")
        packed = np.frombuffer(data, np.uint8)
        self._blocks[key] = packed
        if len(self._blocks) > self._keep:
            self._blocks.popitem(last=False)
        return packed

    def entry(self, tier, entry: int) -> int:
        """The entry (0, 1, 2) at ``entry`` of ``tier``."""
        number, within = divmod(entry, self._file.block_entries)
        return int(self.block(tier, number)[within >> 2] >> (2 * (within & 3))) & 3

    def check(self, tier) -> str | None:
        """Why ``tier`` cannot be trusted (every block decoded and hashed), or None."""
        blocks, offsets, entries = self.tier(tier)
        sha256 = hashlib.sha256()
        try:
            for number in range(len(offsets) - 1):
                sha256.update(self.block(tier, number).data)
        except ChecksumError as error:
            return str(error)
        recorded = get_text(self._file.group(tier)["offsets"].attrs, "sha256")
        return None if sha256.hexdigest() == recorded else "its entries do not match their SHA-256"

    def _damaged(self, tier, error) -> ChecksumError:
        what = error if isinstance(error, str) else _first_line(error)
        return ChecksumError(f"{self._file.path}: the tier {self._file.game.tier_name(tier)} "
                             f"is damaged ({what}); export it again")


def wdl_value(entry: int, dtype) -> int:
    """The stored-frame value an entry stands for: a draw, or a win in :func:`max_plies`
    plies, which stands for "a win, distance not kept" (:meth:`WdlDatabase._outcome`)."""
    return draw_value(dtype) if entry == DRAW else encode(entry == FIRST_WINS, max_plies(dtype))


__all__ = ["FORMAT", "WdlFile", "WdlReader", "export_wdl", "is_wdl_file", "wdl_value"]
