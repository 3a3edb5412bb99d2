"""The database file: one HDF5 file per game variant, naming its game, one dataset per tier.

Layout (format ``retro``, version 2)::

    /                      attributes: format, format_version, game, variant, rules,
                           value_encoding, value_dtype, tiers (the tiers held, in
                           solving order, as JSON), complete, retro_version,
                           build_seconds, threads, created; and the game's own
                           (Three Musketeers: board_size, stored_side, layout, ...)
    /<group>/<tier name>   each tier's values as the game stores them (gzip,
                           Fletcher32 on every chunk, attribute sha256 of the raw
                           values); <group> is the game's (Three Musketeers:
                           enemy_to_move/layer_KK, as in retro 0.2; others: tiers/).
                           A tier with attribute codes (nine men's morris) stores
                           each value's index in codes (its values, most frequent
                           first): value = codes[stored]; sha256 is of the values
    /<table>               tables the game adds (Three Musketeers: placements,
                           storage_order)

Values are encoded as :mod:`retro.values` says. Files of retro 0.2 (format
``retro-three-musketeers``, version 1: Three Musketeers only, the same datasets) are
read as they are. :class:`DatabaseFile` reads a file with every check a reader needs;
:func:`write_header` writes the header of a database or checkpoint file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import h5py
import numpy as np

from .. import games
from ..errors import (  # re-exported: their historic home
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
from ..games.protocol import Game
from ..values import ENCODING, GENERIC_ENCODING
from . import locations
from .hdf5io import (
    HDF5_ERRORS,
    _first_line,
    _plain,
    check_readable,
    chunk_shape,
    damaged,
    dataset_damage,
    get_text,
    read_values,
    set_text,
    starts_like_hdf5,
)

FORMAT = "retro"
FORMAT_VERSION = 2
LEGACY_FORMAT = "retro-three-musketeers"  # retro 0.2: Three Musketeers only
LEGACY_VERSION = 1


def dataset_path(game: Game, tier) -> str:
    """Where a tier's values sit in the file: ``<group>/<tier name>``."""
    return f"{game.dataset_group}/{game.tier_name(tier)}"


def default_path(game: Game | int | None = None) -> Path:
    """The default file of ``game`` (an int: the Three Musketeers board of that size):
    ``<game>[-<variant>].h5`` where :mod:`retro.db.locations` finds it, else where a
    build would write it."""
    return locations.default(f"{_game(game).file_stem}.h5")


def build_path(game: Game | int | None = None) -> Path:
    """Where ``retro build`` writes ``game``'s file without ``--out``."""
    return locations.build_target(f"{_game(game).file_stem}.h5")


def _game(game: Game | int | None) -> Game:
    if game is None:
        return games.get()
    if isinstance(game, int):
        return games.musketeers_board(game)
    return game


# --- build commands and the checkpoint manifest ----------------------------------


def partial_path(out: Path) -> Path:
    """``<out>.partial/``: the checkpoint folder of a build of ``out``."""
    return out.with_name(out.name + ".partial")


def manifest_path(out: Path) -> Path:
    """The manifest of a build's checkpoints: format, game and the build's options."""
    return partial_path(out) / "build.json"


def read_manifest(out: Path) -> dict | None:
    """The checkpoint manifest of a build of ``out``, or None if absent or unreadable."""
    try:
        manifest = json.loads(manifest_path(out).read_text())
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def build_command(path: str | os.PathLike, game: Game | int | None = None,
                  max_enemy_men: int | None = None, stage: str | None = None) -> str:
    """The ``retro build`` command that writes the database ``path`` of ``game``.

    Without ``game``, a file name that names a Three Musketeers board (``...-4x4.h5``)
    or a game (``tic-tac-toe.h5``) supplies it.
    """
    path = Path(path)
    if game is None:
        game = _named_by(path.name)
    if game is None:
        command = "retro build --game GAME"
    elif game.name == games.DEFAULT_GAME:
        command = f"retro build --board {game.size}"
    else:
        command = f"retro build --game {game.name}"
        if game.variant and game.variant != type(game).variants[0]:
            command += f" {game.variant_option} {game.variant}"
    if max_enemy_men is not None:
        command += f" --max-enemy-men {max_enemy_men}"
    if stage is not None:
        command += f" --stage {stage}"
    if game is None or Path(os.path.abspath(path)) != Path(os.path.abspath(build_path(game))):
        command += f" --out {shlex.quote(str(path))}"
    return command


def _named_by(name: str) -> Game | None:
    """The game a file name names: ``...-NxN.h5`` a Three Musketeers board, else a game's
    default file name."""
    board = re.search(r"([0-9])x\1", name)
    if board:
        try:
            return games.musketeers_board(int(board[1]))
        except games.UnknownGameError:
            return None
    for game in games.all_variants():
        if name == f"{game.file_stem}.h5":
            return game
    return None


def resume_command(out: str | os.PathLike, game: Game | int | None = None) -> str:
    """The command that resumes an interrupted build of ``out``, with the options the
    checkpoints recorded (game, variant, ``--max-enemy-men``)."""
    manifest = read_manifest(Path(out)) or {}
    recorded = None
    try:
        if isinstance(manifest.get("game"), str):
            recorded = games.get(manifest["game"], manifest.get("variant"))
        elif isinstance(manifest.get("board_size"), int):  # a checkpoint of retro 0.2
            recorded = _game(manifest["board_size"])
    except games.UnknownGameError:
        recorded = None
    max_enemy_men = manifest.get("max_enemy_men", manifest.get("max_guards"))
    stage = manifest.get("stage")
    return build_command(out, recorded or (_game(game) if game is not None else None),
                         max_enemy_men if isinstance(max_enemy_men, int) else None,
                         stage if isinstance(stage, str) else None)


# --- headers -----------------------------------------------------------------------


def write_header(f: h5py.File, game: Game, tiers) -> None:
    """Root attributes, the game's tables and the tier group of a database or checkpoint."""
    set_text(f.attrs, "format", FORMAT)
    f.attrs["format_version"] = FORMAT_VERSION
    set_text(f.attrs, "game", game.name)
    set_text(f.attrs, "variant", game.variant)
    set_text(f.attrs, "rules", game.rules)
    set_text(f.attrs, "value_encoding", ENCODING if game.name == games.DEFAULT_GAME else GENERIC_ENCODING)
    set_text(f.attrs, "value_dtype", np.dtype(game.value_dtype).name)
    set_text(f.attrs, "tiers", json.dumps([game.tier_name(t) for t in tiers]))
    f.attrs["complete"] = False
    attrs, tables = game.header(list(tiers))
    for key, value in attrs.items():
        if isinstance(value, str):
            set_text(f.attrs, key, value)
        else:
            f.attrs[key] = value
    for name, table in tables.items():
        f.create_dataset(name, data=table)
    f.require_group(game.dataset_group)


class DatabaseFile:
    """Read access to a database file, with every check a reader needs.

    Raises :class:`DatabaseNotFoundError`, :class:`DatabaseAccessError`,
    :class:`NotADatabaseError` (:class:`DamagedDatabaseError` for a file that starts
    like HDF5 but cannot be read as a database) or :class:`IncompleteDatabaseError`
    when the file cannot answer at all. Every number read from the header is
    range-checked before it is used, so a damaged header fails here, at once.

    ``game`` is the file's game (variant included), ``tiers`` the tiers it holds in
    solving order. For Three Musketeers, ``size``, ``max_enemy_men`` and ``indexer``
    describe the board and the layers held (0..max_enemy_men).
    """

    def __init__(self, path: str | os.PathLike, *, cache_bytes: int = 64 << 20) -> None:
        self.path = Path(os.path.abspath(path))  # messages name it whatever the working folder
        self.game: Game | None = None
        self.tiers: list = []
        check_readable(self.path)
        try:
            self.file = h5py.File(self.path, "r", rdcc_nbytes=cache_bytes, rdcc_nslots=100_003)
        except HDF5_ERRORS as error:
            if starts_like_hdf5(self.path):
                raise self._damaged(_first_line(error)) from error
            raise NotADatabaseError(f"{self.path} is not a retro database (not an HDF5 file)") from error
        try:
            self._read_header()
        except DatabaseError:
            self.file.close()
            raise
        except HDF5_ERRORS as error:
            self.file.close()
            raise self._damaged(_first_line(error)) from error

    def _read_header(self) -> None:
        attrs = self.file.attrs
        # ``in`` asks HDF5 and fails on a damaged header, where ``get`` would say "absent".
        kind = get_text(attrs, "format") if "format" in attrs else None
        if kind == "retro-wdl":  # retro.db.wdl.FORMAT, which open_database opens itself
            raise NotADatabaseError(f"{self.path} is a win/draw/loss export (retro export --wdl); "
                                    "this needs the full database it was exported from")
        if kind not in (FORMAT, LEGACY_FORMAT):
            raise NotADatabaseError(f"{self.path} is an HDF5 file but not a retro database")
        version = int(attrs["format_version"])
        expected = FORMAT_VERSION if kind == FORMAT else LEGACY_VERSION
        if version != expected:
            raise NotADatabaseError(
                f"{self.path} has format version {version}; this retro reads version "
                f"{FORMAT_VERSION} (and {LEGACY_VERSION}, the Three Musketeers files of retro 0.2)"
            )
        self.legacy = kind == LEGACY_FORMAT
        if "complete" not in attrs:
            raise self._damaged("its header lacks the build's attributes")
        if self.legacy:
            self._read_legacy_header(attrs)
        else:
            self._read_tiers(attrs)
        if not bool(attrs["complete"]):
            raise IncompleteDatabaseError(
                f"{self.path} is from a build that did not finish ({len(self.tiers)} tiers "
                f"written); to resume it, run: {resume_command(self.path, self.game)}"
            )
        group = self.game.dataset_group
        if group not in self.file:
            raise self._damaged(f"the group {group} is missing")
        missing = [self.game.tier_name(t) for t in self.tiers if dataset_path(self.game, t) not in self.file]
        if missing:
            raise self._damaged(f"tiers {missing} are missing")
        if not self.legacy:
            self._check_game_header(attrs)

    def _check_game_header(self, attrs) -> None:
        """The game's own header numbers and texts must be what its tiers imply."""
        expected, _ = self.game.header(list(self.tiers))
        for key, value in expected.items():
            recorded = get_text(attrs, key) if isinstance(value, str) else attrs.get(key)
            if isinstance(value, str):
                same = recorded == value
            else:
                same = isinstance(recorded, (int, np.integer)) and int(recorded) == value
            if not same:
                raise self._damaged(f"{key} {_plain(recorded)} where its tiers say {value}")

    def _read_legacy_header(self, attrs) -> None:
        """A Three Musketeers file of retro 0.2: board_size, layers, max_enemy_men."""
        size = int(attrs["board_size"])
        try:
            self.game = games.musketeers_board(size)
        except games.UnknownGameError:
            raise self._damaged(f"board size {size}") from None
        every = list(self.game.tiers())
        if "layers" not in attrs:
            raise self._damaged("its header lacks the build's attributes")
        layers = int(attrs["layers"])
        if not 0 <= layers <= len(every):
            raise self._damaged(f"{layers} layers on a {size}x{size} board")
        if bool(attrs["complete"]):
            top = int(attrs["max_guards"])
            if not 0 <= top < len(every):
                raise self._damaged(f"max_enemy_men {top} on a {size}x{size} board")
            layers = top + 1
        self.tiers = every[:layers]

    def _read_tiers(self, attrs) -> None:
        name, variant = get_text(attrs, "game"), get_text(attrs, "variant")
        if name is None or variant is None:
            raise self._damaged("its header does not name its game")
        try:
            self.game = games.get(name, variant)
        except games.UnknownGameError as error:
            raise NotADatabaseError(f"{self.path} holds {name} {variant}, which this retro does not "
                                    f"know ({error}); a newer retro made it") from None
        if get_text(attrs, "value_dtype") != np.dtype(self.game.value_dtype).name:
            raise self._damaged(f"values of type {get_text(attrs, 'value_dtype')}")
        try:
            names = json.loads(get_text(attrs, "tiers") or "")
        except ValueError:
            names = None
        by_name = {self.game.tier_name(t): t for t in self.game.tiers()}  # in solving order
        if not isinstance(names, list) or not all(isinstance(n, str) and n in by_name for n in names):
            raise self._damaged("its list of tiers")
        self.tiers = [by_name[n] for n in names]
        if bool(attrs["complete"]) and names != list(by_name)[:len(names)]:
            raise self._damaged("its tiers are not a whole prefix of the game's")

    # --- Three Musketeers' view -------------------------------------------------------

    @property
    def size(self) -> int:
        """The board size (Three Musketeers)."""
        return self.game.size

    @property
    def max_enemy_men(self) -> int:
        """The most enemy men in a position held (Three Musketeers: layers 0..max_enemy_men)."""
        return len(self.tiers) - 1

    max_guards = max_enemy_men  # the name of retro 0.2

    @property
    def layers(self) -> int:
        return len(self.tiers)

    @property
    def indexer(self):
        from ..games.musketeers.index import indexer

        return indexer(self.game.size)

    # --- tiers ------------------------------------------------------------------------

    def check_layout(self) -> None:
        """Raise :class:`DamagedDatabaseError` unless every tier is laid out as retro writes it.

        Probing trusts each tier's shape and chunk shape; :mod:`retro.verify` instead
        reports a wrong layout as a failed check, so it does not call this.
        """
        dtype = np.dtype(self.game.value_dtype)
        for tier in self.tiers:
            name = self.game.tier_name(tier)
            try:
                dataset = self.dataset(tier)
                shape = self.game.stored_shape(tier)
                ok = (isinstance(dataset, h5py.Dataset) and dataset.shape == shape
                      and dataset.dtype == dtype and dataset.fletcher32
                      and (len(shape) != 2 or dataset.chunks == chunk_shape(*shape)))
            except HDF5_ERRORS as error:
                raise self._damaged(f"{name}: {_first_line(error)}") from error
            if not ok:
                raise self._damaged(f"{name} is not laid out as retro writes it")

    @property
    def metadata(self) -> dict:
        """Root attributes as plain Python values."""
        try:
            return {k: _plain(v) for k, v in self.file.attrs.items()}
        except HDF5_ERRORS as error:
            raise self._damaged(_first_line(error)) from error

    def dataset(self, tier) -> h5py.Dataset:
        return self.file[dataset_path(self.game, tier)]

    def content_digest(self) -> str:
        """SHA-256 naming the values: over the game, the tiers and each tier's SHA-256.

        Two files with the same values have the same digest, whatever their build (a
        Three Musketeers file of retro 0.2 and its rebuild by this retro too).
        """
        try:
            digests = [get_text(self.dataset(t).attrs, "sha256") or "" for t in self.tiers]
        except HDF5_ERRORS as error:
            raise self._damaged(_first_line(error)) from error
        if self.game.name == games.DEFAULT_GAME:
            text = f"{LEGACY_FORMAT} {LEGACY_VERSION} {self.size}x{self.size} layers 0..{self.max_enemy_men}\n"
        else:
            names = " ".join(self.game.tier_name(t) for t in self.tiers)
            text = f"{FORMAT} {FORMAT_VERSION} {self.game.full_name} tiers {names}\n"
        return hashlib.sha256((text + "\n".join(digests)).encode()).hexdigest()

    def damage(self, advance: Callable[[int], object] | None = None) -> str | None:
        """The first tier whose values cannot be trusted, and why (``layer 7: a data
        chunk failed its Fletcher32 checksum``), or None when every tier is sound.

        Reads and digests every value (about 5 s for the full 5x5 file); ``advance`` is
        called with each tier's positions once it is checked.
        """
        for tier in self.tiers:
            try:
                problem = dataset_damage(self.dataset(tier))
            except HDF5_ERRORS as error:
                problem = _first_line(error)
            if problem is not None:
                return f"{self.game.tier_words(tier)}: {problem}"
            if advance is not None:
                advance(self.game.positions_in(tier))
        return None

    def read(self, tier, rows: slice = slice(None), cols: slice | None = None) -> np.ndarray:
        """Stored values of a tier; checksum failures raise ChecksumError."""
        try:
            dataset = self.dataset(tier)
            return read_values(dataset,
                               rows if cols is None or dataset.ndim == 1 else (rows, cols))
        except HDF5_ERRORS as error:
            raise self.checksum_error(tier, error) from error

    def checksum_error(self, tier, error: BaseException | str) -> ChecksumError:
        """The error for a tier's data failing its checks (Fletcher32, structure, SHA-256)."""
        what = f"layer {tier}" if self.game.name == games.DEFAULT_GAME else self.game.tier_name(tier)
        why = error if isinstance(error, str) else _first_line(error)
        return ChecksumError(
            f"{self.path}: {what} failed its checksum ({why}); the file is damaged: rebuild it "
            f"with '{self.rebuild_command()}' or restore a copy"
        )

    def rebuild_command(self) -> str:
        """The command that writes this file again: its game's build, ``--out`` where the
        file is not that game's default place, and ``--force``. The game comes from the
        header as far as it could be read, else from the file's name."""
        game = self.game
        if game is None:
            game = _named_by(self.path.name)
        if game is None:
            try:
                game = games.get(get_text(self.file.attrs, "game") or "",
                                 get_text(self.file.attrs, "variant"))
            except (games.UnknownGameError, AttributeError, *HDF5_ERRORS):
                game = None
        top = None
        if game is not None and game.name == games.DEFAULT_GAME and self.tiers \
                and len(self.tiers) < len(game.tiers()):
            top = len(self.tiers) - 1
        return f"{build_command(self.path, game, top)} --force"

    def _damaged(self, what: str) -> DamagedDatabaseError:
        return damaged(self.path, what, self.rebuild_command())

    def close(self) -> None:
        self.file.close()


__all__ = [
    "BoardMismatchError", "ChecksumError", "DamagedDatabaseError", "DatabaseAccessError",
    "DatabaseClosedError", "DatabaseError", "DatabaseFile", "DatabaseNotFoundError",
    "FORMAT", "FORMAT_VERSION", "IncompleteDatabaseError", "LEGACY_FORMAT", "NotADatabaseError",
    "PositionNotInDatabaseError", "build_command", "build_path", "dataset_path", "default_path",
    "partial_path", "read_manifest", "resume_command", "write_header",
]
