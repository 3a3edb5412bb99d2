"""``retro verify``: prove a database correct without trusting its builder.

* :mod:`.musketeers`: Three Musketeers, with move generation, symmetry and preference
  tables of its own (it shares nothing with the layer kernels);
* :mod:`.tiers`: every other game, with the game's move generation and a proof that
  holds for games whose positions repeat.

:func:`verify` picks the one for the file's game.
"""

from __future__ import annotations

import os

from .. import games
from ..db.format import DatabaseFile


def verify(path: str | os.PathLike, *, progress: bool = True, max_reports: int = 10,
           fresh: bool = False):
    """Verify the database at ``path`` (see :mod:`.musketeers` and :mod:`.tiers`).
    ``fresh``: prove every tier of an out-of-core game again, ignoring the proof log of
    an earlier, interrupted run (:mod:`.prooflog`)."""
    if max_reports < 0:
        raise ValueError(f"max_reports must be 0 or more, not {max_reports}")
    file = DatabaseFile(path)
    if file.game.name == games.DEFAULT_GAME:
        file.close()
        from .musketeers import verify as verify_musketeers

        return verify_musketeers(path, progress=progress, max_reports=max_reports)
    from .tiers import verify as verify_tiers

    return verify_tiers(path, progress=progress, max_reports=max_reports, file=file,
                        fresh=fresh)
