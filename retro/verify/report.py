"""What both verifiers report each check as."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    """One check of the file and whether it passed."""

    name: str
    ok: bool
    detail: str = ""
