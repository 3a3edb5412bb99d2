"""The spellings every game accepts besides its own: one place, so that the CLI, the API
and the page forgive the same things.

A position may be written with underscores, ``+``, ``/`` or ``,`` between its groups
(underscores are the page's link form, ``+`` a query string's space) and in any case;
a move in any case, with or without spaces, underscores or a hyphen between its squares
(``e1-d1``, ``E1D1``, ``e1 d1``, ``e1_d1``). Every game's parser tidies its text with these
two functions and then reads only its canonical form, so the answer always prints the
canonical text.
"""

from __future__ import annotations

import re

_POSITION_SEPARATORS = re.compile(r"[\s_+/,]+")
_MOVE_NOISE = re.compile(r"[\s_]+")
_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-", ":": "-"})


def tidy_position(text: str) -> str:
    """``text`` with one space between groups, upper case: ``m_xxxxo_...`` → ``M XXXXO ...``."""
    return " ".join(_POSITION_SEPARATORS.split(text.strip())).strip().upper()


def position_tokens(text: str) -> list[str]:
    """The groups of a position (side, then whatever the game writes), tidied."""
    return tidy_position(text).split()


def tidy_move(text: str) -> str:
    """``text`` lowercase, without spaces or underscores, every dash a hyphen: ``E1 D1`` → ``e1d1``."""
    return _MOVE_NOISE.sub("", text.translate(_DASHES)).lower()
