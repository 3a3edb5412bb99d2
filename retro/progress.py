"""Progress bars for long work (builds, verification, analysis, crosschecks): one way
of drawing them, on standard error with tqdm."""

from __future__ import annotations


def progress_bar(total: int, desc: str, *, enabled: bool = True, unit: str = "pos",
                 unit_scale: bool = True, smoothing: float = 0.3):
    """A tqdm bar of ``total`` steps named ``desc``, or None when ``enabled`` is False or
    there is nothing to do (callers then skip their updates)."""
    if not enabled or total <= 0:
        return None
    from tqdm import tqdm  # only when a bar is drawn: a second off every start-up else

    return tqdm(total=total, unit=unit, unit_scale=unit_scale, smoothing=smoothing, desc=desc,
                dynamic_ncols=True)
