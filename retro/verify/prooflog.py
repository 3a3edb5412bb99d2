"""The proof log of ``retro verify`` on an out-of-core database: which tiers an earlier
run has proven, so that an interrupted verification (hours for nine men's morris)
resumes after its last proven tier.

A tier's proof depends only on its values and its child tiers' values. The log keeps,
per proven tier, the SHA-256 of those values as the verifier itself computed them
while reading the file (never the digests the builder stored). A later run reads and
hashes every tier again (minutes, against hours of move generation) and takes a tier
as proven only when its digest and every child's equal what the log says; anything
else is proven again. ``retro verify --fresh`` ignores the log.

The log lives in the per-user cache folder (``platformdirs.user_cache_dir("retro")``,
``verify/``), named after the file's stored digests, so that it never sits beside a
database and a rebuilt file starts afresh. A cache that cannot be written only costs
the resume. The log and its ``.tmp`` go through the output guard
(:func:`retro.outputs.check_output`): a link, a named pipe or a device found there is
refused before anything is proven (:class:`~retro.errors.OutputPathError`), never
read, followed or replaced; one planted during the run ends the logging, not the run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..errors import OutputPathError
from ..outputs import check_output, write_atomically

FORMAT = 1


def log_path(game_name: str, stored_digests: list[str]) -> Path:
    """Where the proof log of a file holding ``game_name`` with these tier digests is."""
    import platformdirs

    key = hashlib.sha256("\n".join([game_name, *stored_digests]).encode()).hexdigest()[:32]
    return Path(platformdirs.user_cache_dir("retro", appauthor=False)) / "verify" / f"{key}.json"


class ProofLog:
    """Tiers proven by earlier runs (``proven``), and this run's (``record``)."""

    def __init__(self, path: Path | None, fresh: bool = False):
        """Read the log at ``path`` (None: keep none) unless ``fresh``; raises
        :class:`~retro.errors.OutputPathError` when the log or its ``.tmp`` is anything
        but a regular file or missing (reading a named pipe would block, and writing
        would follow a link or replace what is there)."""
        self.path = path
        self.tiers: dict[str, dict] = {}
        if path is not None and path.parent.is_dir():  # no folder yet: nothing in the way
            check_output(path)
            check_output(_tmp(path))
        if path is None or fresh:
            return
        try:
            saved = json.loads(path.read_text())
            if saved.get("format") == FORMAT and isinstance(saved.get("tiers"), dict):
                self.tiers = saved["tiers"]
        except (OSError, ValueError, AttributeError):
            pass  # no log, or an unreadable one: prove everything

    def proven(self, name: str, sha256: str | None, children: list[str | None]) -> dict | None:
        """The record of tier ``name`` when an earlier run proved it with these values."""
        record = self.tiers.get(name)
        if (record is None or sha256 is None or None in children
                or record.get("sha256") != sha256 or record.get("children") != children):
            return None
        return record

    def record(self, name: str, sha256: str, children: list[str], checked: int,
               terminal: int, entries: int | None = None, duplicates: int = 0) -> None:
        """Tier ``name`` is proven; written at once (a run killed later keeps it).
        ``checked`` stored values, ``entries`` of them positions, ``duplicates`` symmetric
        copies of smaller entries, ``terminal`` finished."""
        self.tiers[name] = {"sha256": sha256, "children": children, "checked": checked,
                            "terminal": terminal,
                            "entries": checked if entries is None else entries,
                            "duplicates": duplicates}
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # <path>.tmp, flushed, renamed: never through a link, never over a device
            write_atomically(json.dumps({"format": FORMAT, "tiers": self.tiers}).encode(),
                             self.path)
        except (OSError, OutputPathError):
            # An unwritable cache, or a link or a pipe planted there since the run began
            # (refused, not written through): this run goes on without a log.
            self.path = None


def _tmp(path: Path) -> Path:
    return path.with_name(path.name + ".tmp")
