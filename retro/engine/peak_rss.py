"""The process's peak resident set since the last reset: a tier's own peak memory.

Linux keeps the high-water mark of the resident set (``VmHWM`` in /proc/self/status)
and resets it when "5" is written to /proc/self/clear_refs (Linux 4.0 on); a build
resets it before each tier and records it with the tier. Elsewhere there is no figure
(``read`` returns None) and nothing fails. Memory-mapped pages the process has touched
count, as in ``/usr/bin/time -v``'s maximum resident set size, which a reset also
resets: a build records the whole process's peak itself (:func:`highest`).
"""

from __future__ import annotations

_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"
_cleared = [0]  # the largest peak a reset has cleared


def reset() -> bool:
    """Start a new peak from the current resident set; False where that cannot be done.

    The kernel's own record of the process's peak (``getrusage``'s ``ru_maxrss``, what
    ``/usr/bin/time -v`` reports) is reset with it: :func:`highest` keeps the whole
    process's peak."""
    before = read()
    try:
        with open(_CLEAR_REFS, "w") as handle:
            handle.write("5")
    except OSError:
        return False
    _cleared[0] = max(_cleared[0], before or 0)
    return True


def highest() -> int | None:
    """The process's peak resident set in bytes since it started, across resets."""
    now = read()
    return None if now is None else max(now, _cleared[0])


def read() -> int | None:
    """The peak resident set in bytes since the last :func:`reset` (or the start)."""
    try:
        with open(_STATUS) as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None
