"""The process's peak resident set since the last reset: a tier's own peak memory.

Linux keeps the high-water mark of the resident set (``VmHWM`` in /proc/self/status)
and resets it when "5" is written to /proc/self/clear_refs (Linux 4.0 on); a build
resets it before each tier and records it with the tier. Elsewhere there is no figure
(``read`` returns None) and nothing fails. Memory-mapped pages the process has touched
count, as in ``/usr/bin/time -v``'s maximum resident set size.
"""

from __future__ import annotations

_STATUS = "/proc/self/status"
_CLEAR_REFS = "/proc/self/clear_refs"


def reset() -> bool:
    """Start a new peak from the current resident set; False where that cannot be done."""
    try:
        with open(_CLEAR_REFS, "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


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
