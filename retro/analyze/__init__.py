"""``retro analyze``: what a database says about its game.

* :mod:`.musketeers`: Three Musketeers (per side to move and enemy count, with
  reachability from the standard start and charts);
* :mod:`.tiers`: every other game (per tier and side to move: wins, losses and draws,
  the longest wins, the start and its first moves, reachability);
* :mod:`.outofcore`: games too large for memory (nine men's morris), a chunk at a time;
* :mod:`.players`: games of more than two players (the four-player race), per player.

:func:`analyze` picks the one for the file's game; :func:`analysis_text` prints either
report.
"""

from __future__ import annotations

import os

from .. import games
from ..db.format import DatabaseFile
from .musketeers import AnalysisError, MatplotlibMissingError, plot, plot_directory


def analyze(path: str | os.PathLike, *, progress: bool = True, reach: bool = True) -> dict:
    """The statistics of the database at ``path`` as one JSON-ready dict."""
    file = DatabaseFile(path)
    game = file.game
    file.close()
    if game.name == games.DEFAULT_GAME:
        from .musketeers import analyze as analyze_musketeers

        return analyze_musketeers(path, progress=progress, reach=reach)
    if game.players > 2:
        from .players import analyze as analyze_players

        return analyze_players(path, progress=progress, reach=reach)
    if game.out_of_core:
        from .outofcore import analyze as analyze_out_of_core

        return analyze_out_of_core(path, progress=progress, reach=reach)
    from .tiers import analyze as analyze_tiers

    return analyze_tiers(path, progress=progress, reach=reach)


def analysis_text(report: dict) -> str:
    """The text of ``retro analyze`` for either kind of report."""
    if "board_size" in report:
        from ..text import analysis_text as musketeers_text

        return musketeers_text(report)
    if "players" in report:
        from .players import report_text as players_text

        return players_text(report)
    from .tiers import report_text

    return report_text(report)


__all__ = ["AnalysisError", "MatplotlibMissingError", "analysis_text", "analyze", "plot",
           "plot_directory"]
