"""Prove a database of a tiered game correct (every game but Three Musketeers), without
trusting the solver.

For every stored entry the verifier generates the moves with the game's own move
generation (its expansion kernel: the rules, never the solver's propagation), reads
each child's value from the same file, and checks the entry's value against them:

* a finished position holds its finished value (and an entry that is not a position
  holds that code);
* a win in n has a move to a position lost (for the opponent) in n - 1, and none to
  one lost in fewer;
* a loss in n has only moves to positions won (for the opponent), the longest in
  exactly n - 1;
* a draw has no move to a lost position, and at least one to a drawn one.

Why this is a proof, for games whose positions repeat too (where the value of a
position may depend on itself through a cycle, so "each value is the best over its
children" alone proves nothing). Call the stored values *labels*.

1. *Labels are sound upper bounds*, by induction on n: a position labelled a win in
   n can force a win within n plies (it moves to a child labelled a loss in n - 1,
   which by induction is lost within n - 1 plies whatever its side does); one
   labelled a loss in n loses within n plies (every move leads to a child labelled a
   win in at most n - 1, won within that by induction). Finished positions (n = 0)
   hold their true values, checked directly.
2. *True values get their labels*, by induction on the true distance m: a position
   truly won in m has a move to one truly lost in m - 1, labelled so by induction;
   so it is labelled neither a draw (which has no child labelled a loss) nor a loss
   (whose children are all labelled wins), hence a win in k with k - 1 the least
   distance of its children labelled losses; a child labelled a loss in j < m - 1
   would (by 1) let it win within j + 1 < m plies, so k = m. A position truly lost in
   m has only children truly won, labelled so by induction with the longest m - 1,
   so it is labelled a loss in m. A position truly drawn can be labelled neither a
   win nor a loss (by 1 it would then be won or lost), so it is labelled a draw.

Together with the metadata (format, game, rules), every chunk's Fletcher32 (checked by
HDF5 as it reads) and every tier's SHA-256, this proves the whole table.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numba import njit, prange

from ..db.format import DatabaseFile, dataset_path
from ..db.hdf5io import HDF5_ERRORS, digest, get_text, read_values
from ..games.protocol import OPEN, Game
from ..progress import progress_bar
from .report import Check, JsonReport
from .verdicts import (  # noqa: F401 (BAD_* and RULES re-exported: their home before)
    BAD_DRAW, BAD_FINISHED, BAD_IMAGE, BAD_LOSS, BAD_WIN, NOT_FINISHED_ZERO, OK, RULES, judge,
)
from ..values import Outcome, PlayerValue, draw_value, not_a_position

@dataclass(frozen=True)
class Disagreement:
    """A stored value that its children (or the rules) contradict."""

    position: str
    tier: str
    entry: int
    stored: int
    stored_outcome: str
    rule: str


@dataclass
class TierVerifyReport(JsonReport):
    """What :func:`verify` checked and found."""

    path: Path
    game: str
    tiers: int
    ok: bool
    positions_checked: int  # stored values checked: table entries and slots of no position
    terminal_positions: int  # finished positions among the table entries
    seconds: float
    checks: list[Check] = field(default_factory=list)
    disagreement_count: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    entries_checked: int = 0  # table entries that hold a position (an image's counts once)
    duplicate_entries: int = 0  # entries holding a symmetric image of a smaller one's position
    positions: int = 0  # the positions those entries stand for (symmetric images, every player's game)
    resumed_tiers: int = 0  # tiers an earlier run proved, with the same values (proof log)
    proof_log: str | None = None  # where the proof log is kept (out-of-core games)


@njit(cache=True, parallel=True)
def check_tier(values, side, finished, starts, child_tier, child_entry, flat, offsets,
               draw, invalid, verdict):
    """Each entry's verdict (OK or the rule it breaks) into ``verdict``; the number of
    finished entries. ``flat[offsets[s]:]`` holds the values of child tier slot s (slot
    0: the tier itself, ``values``). Values say who wins (odd: White)."""
    terminal = 0
    for i in prange(len(values)):
        value = values[i]
        if finished[i] != OPEN:
            terminal += 1
            verdict[i] = OK if value == finished[i] else BAD_FINISHED
            continue
        mover = side[i]
        fewest_loss = -1  # the least distance of a child lost for the opponent
        longest_win = -1  # the longest distance of a child won for the opponent
        draws = 0
        bad_child = False
        for e in range(starts[i], starts[i + 1]):
            slot = child_tier[e]
            child = values[child_entry[e]] if slot == 0 else flat[offsets[slot] + child_entry[e]]
            if child == draw:
                draws += 1
                continue
            if child == invalid:
                bad_child = True
                break
            plies = child >> 1
            child_winner = 0 if child & 1 else 1
            if child_winner == mover:
                if fewest_loss == -1 or plies < fewest_loss:
                    fewest_loss = plies
            elif plies > longest_win:
                longest_win = plies
        verdict[i] = judge(value, value != draw and (0 if value & 1 else 1) == mover, draw, invalid,
                           bad_child, fewest_loss, longest_win, draws, starts[i + 1] - starts[i])
    return terminal


def verify(path: str | os.PathLike, *, progress: bool = True, max_reports: int = 10,
           file: DatabaseFile | None = None, fresh: bool = False) -> TierVerifyReport:
    """Check every stored value of a tiered game's database against its children and
    the rules (see the module docstring). Raises a
    :class:`~retro.errors.DatabaseError` for a file that cannot be opened as a
    database; every other problem is reported in the returned report. An out-of-core
    game's verification resumes after the tiers an earlier run proved (see
    :mod:`.prooflog`) unless ``fresh``."""
    if max_reports < 0:
        raise ValueError(f"max_reports must be 0 or more, not {max_reports}")
    started = time.perf_counter()
    db = file if file is not None else DatabaseFile(path)
    try:
        return _verify(db, started, progress, max_reports, fresh)
    finally:
        db.close()


def _verify(db: DatabaseFile, started: float, progress: bool, max_reports: int,
            fresh: bool = False) -> TierVerifyReport:
    game = db.game
    report = TierVerifyReport(db.path, game.full_name, len(db.tiers), True, 0, 0, 0.0)
    report.positions = game.positions(list(db.tiers))
    report.checks.extend(_metadata_checks(db, game))
    if game.out_of_core:
        from .outofcore import verify_tiers

        verify_tiers(db, report, progress, max_reports, _disagreement, fresh)
        return _conclude(report, started)
    dtype = np.dtype(game.value_dtype).type
    values: dict = {}
    bad_digests, unreadable = [], []
    for tier in db.tiers:
        name = game.tier_name(tier)
        try:
            stored = read_values(db.file[dataset_path(game, tier)])
        except HDF5_ERRORS:
            unreadable.append(name)
            continue
        if digest(stored) != get_text(db.dataset(tier).attrs, "sha256"):
            bad_digests.append(name)
        values[tier] = game.from_stored(tier, stored)
    report.checks.append(Check("checksums", not unreadable,
                               "every chunk passed its Fletcher32 checksum" if not unreadable
                               else f"unreadable tiers: {', '.join(unreadable)}"))
    problems = ([f"tiers whose values differ from their SHA-256: {', '.join(bad_digests)}"]
                if bad_digests else [])
    if unreadable:  # an unreadable tier's digest could not be computed: not a pass
        problems.append(f"not checked (unreadable): {', '.join(unreadable)}")
    report.checks.append(Check("digests", not problems,
                               "; ".join(problems) or "every tier matches its SHA-256"))
    bar = progress_bar(sum(len(v) for v in values.values()), "verifying", enabled=progress)
    shown: list[Disagreement] = []
    try:
        for tier in db.tiers:
            if tier not in values:
                continue
            expansion = game.expand(tier)
            if any(t not in values and t != tier for t in expansion.tiers[1:]):
                report.checks.append(Check(f"tier {game.tier_name(tier)}", False,
                                           "a child tier is missing or unreadable"))
                continue
            parts = [np.empty(0, dtype=dtype)] + [values[t] for t in expansion.tiers[1:]]
            offsets = np.zeros(len(parts) + 1, dtype=np.int64)
            np.cumsum([len(p) for p in parts], out=offsets[1:])
            flat = np.concatenate(parts)
            verdict = np.empty(expansion.size, dtype=np.int8)
            no_position = int(np.count_nonzero(expansion.finished == not_a_position(dtype)))
            report.terminal_positions += int(check_tier(
                values[tier], expansion.side, expansion.finished, expansion.starts,
                expansion.child_tier, expansion.child_entry, flat, offsets,
                draw_value(dtype), not_a_position(dtype), verdict)) - no_position
            report.positions_checked += expansion.size
            report.entries_checked += expansion.size - no_position
            wrong = np.flatnonzero(verdict != OK)
            report.disagreement_count += len(wrong)
            for entry in wrong[:max(0, max_reports - len(shown))].tolist():
                shown.append(_disagreement(game, tier, entry, int(values[tier][entry]), int(verdict[entry])))
            if bar is not None:
                bar.update(expansion.size)
    finally:
        if bar is not None:
            bar.close()
    report.disagreements = shown
    return _conclude(report, started)


def _conclude(report: TierVerifyReport, started: float) -> TierVerifyReport:
    report.checks.append(Check("values", report.disagreement_count == 0,
                               f"{report.entries_checked:,} table entries consistent with their moves"
                               if report.disagreement_count == 0 else
                               f"{report.disagreement_count:,} values contradict their moves"))
    report.ok = all(check.ok for check in report.checks)
    report.seconds = time.perf_counter() - started
    return report


def _metadata_checks(db: DatabaseFile, game: Game) -> list[Check]:
    attrs = db.metadata
    checks = [Check("format", True, f"{attrs.get('format')} version {attrs.get('format_version')}, "
                    f"{game.full_name}, complete")]
    same = attrs.get("rules") == game.rules
    checks.append(Check("rules", same, "the rules text is the game's" if same
                        else "not this game's rules text"))
    return checks


def _disagreement(game: Game, tier, entry: int, stored: int, verdict: int) -> Disagreement:
    position = game.position_at(tier, entry)
    dtype = np.dtype(game.value_dtype).type
    if position is None:
        what = "a symmetric image" if verdict == BAD_IMAGE else "not a position"
        text, words = f"entry {entry} ({what})", f"value {stored}"
    else:
        text = str(position)
        try:
            if game.players > 2:  # the value of the tier's player against the others
                player = game.sides.from_code(game.player_tiers().index(tier))
                words = str(PlayerValue.from_value(stored, player, dtype))
            else:
                words = str(Outcome.from_value(game.value_for(position, stored), position.side, dtype))
        except ValueError:
            words = f"value {stored}"
    return Disagreement(text, game.tier_name(tier), entry, stored, words, RULES[verdict])

