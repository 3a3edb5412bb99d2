"""The HDF5 file: self-description, checksums, and refusing to answer from bad files."""

from __future__ import annotations

import shutil

import h5py
import numpy as np
import pytest

from retro import (
    BoardMismatchError,
    ChecksumError,
    DatabaseNotFoundError,
    IncompleteDatabaseError,
    NotADatabaseError,
    Position,
    PositionNotInDatabaseError,
    open_database,
)
from retro.engine.build import build
from retro.games.musketeers.index import indexer, position_at
from retro.values import ENCODING
from retro.db.format import FORMAT, FORMAT_VERSION
from retro.db.hdf5io import digest
from retro.games.musketeers.layout import LAYER_GROUP, storage_order


def test_file_describes_itself(db4):
    with h5py.File(db4, "r") as f:
        attrs = {k: v.decode() if isinstance(v, bytes) else v for k, v in f.attrs.items()}
        assert attrs["format"] == FORMAT and attrs["format_version"] == FORMAT_VERSION
        assert attrs["board_size"] == 4 and attrs["max_guards"] == 13 and attrs["layers"] == 14
        assert attrs["complete"]
        assert "one row or one column" in attrs["rules"]
        assert attrs["value_encoding"] == ENCODING
        assert attrs["stored_side"] == "enemy"
        assert attrs["retro_version"] and attrs["build_seconds"] >= 0 and attrs["created"]
        assert np.array_equal(f["placements"][()], indexer(4).placements)
        assert np.array_equal(f["storage_order"][()], storage_order(4))
        for k in range(14):
            dataset = f[LAYER_GROUP][f"layer_{k:02d}"]
            assert dataset.fletcher32 and dataset.compression == "gzip"
            assert dataset.shape == (77, len(np.atleast_1d(dataset[0])))
            assert dataset.attrs["sha256"].decode() == digest(dataset[()])
        # Text lives in the (checksummed) object headers, not in the global heap.
        for name in ("format", "rules", "created"):
            assert h5py.check_string_dtype(f.attrs.get_id(name).dtype).length is not None
    # Superblock version 2 or later: HDF5 checksums the superblock and every header.
    assert db4.read_bytes()[:9] in (b"\x89HDF\r\n\x1a\n\x02", b"\x89HDF\r\n\x1a\n\x03")


def test_metadata_through_the_api(db4):
    with open_database(db4) as db:
        assert db.metadata["board_size"] == 4
        assert db.metadata["complete"] is True


def _corrupt_chunk(path, layer: int) -> tuple[int, int]:
    """Flip a byte inside the first stored chunk of a layer; return its (row, col) origin."""
    with h5py.File(path, "r") as f:
        info = f[LAYER_GROUP][f"layer_{layer:02d}"].id.get_chunk_info(0)
    with open(path, "r+b") as handle:
        handle.seek(info.byte_offset + info.size // 2)
        byte = handle.read(1)
        handle.seek(info.byte_offset + info.size // 2)
        handle.write(bytes([byte[0] ^ 0x55]))
    return info.chunk_offset


def test_a_damaged_chunk_fails_its_checksum(db4, tmp_path):
    path = tmp_path / "damaged.h5"
    shutil.copy(db4, path)
    k = 6
    row, col = _corrupt_chunk(path, k)
    # The enemy-to-move position stored first in that chunk: storage rank 0 of a
    # placement, i.e. the k storage bits 0..k-1 set.
    order = storage_order(4)[row]
    mask = sum(1 << int(order[t]) for t in range(k))
    position = position_at(1, row, mask, 4)
    with open_database(path) as db, pytest.raises(ChecksumError, match="checksum"):
        db.probe(position)
    with pytest.raises(ChecksumError):
        open_database(path, in_memory=True)


def test_unfinished_build_says_so(tmp_path, interrupt_at):
    out = tmp_path / "4x4.h5"
    interrupt_at(3)
    with pytest.raises(KeyboardInterrupt):
        build(4, out, progress=False)
    checkpoint = out.with_name(out.name + ".partial") / "layer_02.h5"
    with pytest.raises(IncompleteDatabaseError, match="did not finish"):
        open_database(checkpoint)


def test_missing_and_foreign_files(tmp_path, db4):
    with pytest.raises(DatabaseNotFoundError):
        open_database(tmp_path / "nothing.h5")
    text = tmp_path / "text.h5"
    text.write_text("hello")
    with pytest.raises(NotADatabaseError, match="not an HDF5 file"):
        open_database(text)
    other = tmp_path / "other.h5"
    with h5py.File(other, "w") as f:
        f["x"] = 1
    with pytest.raises(NotADatabaseError, match="not a retro database"):
        open_database(other)
    with pytest.raises(NotADatabaseError, match="directory"):
        open_database(tmp_path)
    future = tmp_path / "future.h5"
    shutil.copy(db4, future)
    with h5py.File(future, "r+") as f:
        f.attrs["format_version"] = FORMAT_VERSION + 1
    with pytest.raises(NotADatabaseError, match="format version"):
        open_database(future)


def test_board_size_must_match(db4):
    with open_database(db4) as db, pytest.raises(BoardMismatchError, match="5x5 board"):
        db.probe(Position.start(5))


def test_positions_beyond_an_endgame_database(db5_low):
    with open_database(db5_low) as db:
        assert db.probe(Position.parse("M O.... ..... ..O.. XX... ....O")).plies >= 0
        with pytest.raises(PositionNotInDatabaseError, match="0..4"):
            db.probe(Position.start())


@pytest.mark.parametrize("size,dtype", [(100_003, np.uint16), (5, np.uint16), (70_000, np.uint8),
                                        (3 * 32_768, np.uint16)])
def test_chunks_filtered_by_retro_are_read_by_hdf5_as_its_own(tmp_path, size, dtype):
    """An out-of-core build filters its chunks itself (shuffle, deflate, Fletcher32) on
    several threads: HDF5 reads them back (checking each Fletcher32), and they hold what
    HDF5's own filters write for the same ranks, with the checksum in the same order."""
    import zlib

    from retro.db.hdf5io import dataset_damage, encoder, fletcher32, frequency_codes, read_values
    from retro.engine import rawstore

    values = (np.random.default_rng(size).geometric(0.3, size) % 200).astype(dtype)
    with h5py.File(tmp_path / "t.h5", "w") as f:
        ours = rawstore.write_dataset(f, "ours", values, digest(values), 1, threads=2)
        ranks = encoder(frequency_codes(values))[values]
        f.create_dataset("hdf5", data=ranks, chunks=ours.chunks, compression="gzip",
                         compression_opts=1, shuffle=True, fletcher32=True)
    with h5py.File(tmp_path / "t.h5", "r") as f:
        ours, theirs = f["ours"], f["hdf5"]
        assert np.array_equal(read_values(ours), values)
        assert np.array_equal(ours[:], theirs[:])
        assert dataset_damage(ours) is None
        for offset in range(0, size, ours.chunks[0]):
            _, mine = ours.id.read_direct_chunk((offset,))
            _, hdf5 = theirs.id.read_direct_chunk((offset,))
            assert zlib.decompress(mine[:-4]) == zlib.decompress(hdf5[:-4])
            for data in (mine, hdf5):
                assert int.from_bytes(data[-4:], "little") == fletcher32(np.frombuffer(data[:-4], np.uint8))
