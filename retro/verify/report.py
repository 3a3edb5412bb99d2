"""What both verifiers report each check as."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Check:
    """One check of the file and whether it passed."""

    name: str
    ok: bool
    detail: str = ""


class JsonReport:
    """``as_dict`` of a report dataclass with a ``path``: JSON-ready, the path as text."""

    def as_dict(self) -> dict:
        """JSON-ready form."""
        out = asdict(self)
        out["path"] = str(self.path)
        return out
