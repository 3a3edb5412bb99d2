"""Sizes and rates in words for people (``1.9 MB``, ``16.6 M positions/s``): used by the
build, which the front ends' text module may not be imported by, and by the CLI."""

from __future__ import annotations

import math


def size_text(nbytes: float, rounding: str = "nearest") -> str:
    """A file size for people: ``940 bytes``, ``11 kB``, ``1.9 MB``, ``250 MB``, ``1.2 GB``.

    ``rounding`` "up" never shows less than ``nbytes`` (space a task needs), "down"
    never more (space that is free); "nearest" otherwise.
    """
    if nbytes < 1000:
        return f"{math.ceil(nbytes) if rounding == 'up' else int(nbytes)} bytes"
    for unit, scale in (("kB", 10**3), ("MB", 10**6), ("GB", 10**9), ("TB", 10**12)):
        value = nbytes / scale
        if rounding != "nearest":  # in whole tenths (or units from 10 on), in integers
            step = scale // 10 if value < 10 else scale
            steps = -(-int(nbytes) // step) if rounding == "up" else int(nbytes) // step
            value = steps * step / scale
        shown = f"{value:.1f}" if value < 9.95 else f"{value:,.0f}"
        if float(shown.replace(",", "")) < 1000 or unit == "TB":  # 999.6 kB is 1.0 MB
            return f"{shown} {unit}"
    raise AssertionError("unreachable")


def rate_text(per_second: float, unit: str = "positions") -> str:
    """A rate for people: ``11,780 positions/s`` below a million, ``16.6 M positions/s``."""
    if per_second < 1e6:
        return f"{per_second:,.0f} {unit}/s"
    return f"{per_second / 1e6:,.1f} M {unit}/s"
