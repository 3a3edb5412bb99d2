"""The spellings every game accepts besides its own: one place, so that the CLI, the API
and the page forgive the same things.

A position may be written with underscores, ``+``, ``/`` or ``,`` between its groups
(underscores are the page's link form, ``+`` a query string's space) and in any case;
a move in any case, with or without spaces, underscores or a hyphen between its squares
(``e1-d1``, ``E1D1``, ``e1 d1``, ``e1_d1``). Every game's parser tidies its text with
:func:`position_tokens` (a position) or :func:`tidy_move` (a move) and then reads only its
canonical form, so the answer always prints the canonical text; it calls
:func:`invisible_character` on its row groups before it counts them. What each parser
must call, and why, is listed in :mod:`retro.games.protocol` ("What a parser must
call"). :func:`resemblance` and :func:`looks_like_count` serve
:meth:`retro.games.protocol.Game.resemblance` (whose error to show when no game reads a
text); a parser need not call them.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Sequence

_POSITION_SEPARATORS = re.compile(r"[\s_+/,]+")
_MOVE_NOISE = re.compile(r"[\s_]+")
_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-", ":": "-"})
# ASCII letters only change case: str.upper would turn 'ß' into 'SS' (a row one point
# longer) and 'ı' into 'I', so the error would name a character never typed.
_UPPER = str.maketrans(string.ascii_lowercase, string.ascii_uppercase)
_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def tidy_position(text: str) -> str:
    """``text`` with one space between groups, upper case: ``m_xxxxo_...`` → ``M XXXXO ...``
    (parsers call :func:`position_tokens`, its groups)."""
    tidy = " ".join(_POSITION_SEPARATORS.split(text.strip())).strip()
    return tidy.upper() if tidy.isascii() else tidy.translate(_UPPER)


def position_tokens(text: str) -> list[str]:
    """The groups of a position (side, then whatever the game writes), tidied: what
    every game's ``parse`` reads, never ``text.split()`` (which would miss the other
    spellings)."""
    return tidy_position(text).split()


def tidy_move(text: str) -> str:
    """``text`` lowercase, without spaces or underscores, every dash a hyphen: ``E1 D1`` → ``e1d1``
    (what every game's ``parse_move`` reads)."""
    tidy = _MOVE_NOISE.sub("", text.translate(_DASHES))
    return tidy.lower() if tidy.isascii() else tidy.translate(_LOWER)


def invisible_character(groups: Iterable[str]) -> tuple[int, str] | None:
    """``(row number, character)`` of the first character of the row groups that does not
    print (a NUL, a zero-width space, ...), or None. Such a character makes a row look
    right and count wrong, so parsers name it before they count rows and points.

    Every game's ``parse`` must call it on the groups after the side to move (and the
    hands), before any count, and raise :class:`~retro.errors.UnknownCharacterError`
    naming the character (with :func:`retro.errors.quoted`, which escapes it) and the row
    number returned: ``unknown character '\\u0000' in row 1: use ...``. The tests hold
    every registered game to it."""
    for number, group in enumerate(groups, start=1):
        if not group.isprintable():
            return number, next(c for c in group if not c.isprintable())
    return None


def looks_like_count(token: str) -> bool:
    """Whether a group is meant as a number (a morris hand): it holds a digit of any
    script (``6``, ``²``, ``٣``, ``6.0``, ``-1``)."""
    return any(c.isnumeric() for c in token)


def resemblance(text: str, sides: Sequence[str], alphabet: str,
                layouts: Iterable[Sequence[int]], hands: int = 0) -> int:
    """How much ``text`` looks like a notation (0: not at all), to choose whose error to
    show when no game reads a text: 3 for a side letter in ``sides``; for the numbers
    after it, 1 each up to ``hands`` and 1 more for all ``hands`` of them; for the row
    groups, 1 per group of ``alphabet``'s characters as long as the layout's row (the
    best of ``layouts``), 1 for as many groups as the layout has and 1 when every
    character is in ``alphabet``. A first group of board characters is a row (no side)."""
    tokens = position_tokens(text) if isinstance(text, str) else []
    if not tokens:
        return 0
    score, board = 0, set(alphabet)
    if tokens[0] in sides:
        score, rest = 3, tokens[1:]
    elif len(tokens[0]) > 1 and set(tokens[0]) <= board:
        rest = tokens  # the side is missing: the first group is a row
    else:
        rest = tokens[1:]
    found = 0
    while found < min(len(rest), hands) and looks_like_count(rest[found]):
        found += 1
    score += found + (0 < found == hands)
    groups = rest[found:]
    score += max((sum(len(g) == n and set(g) <= board for g, n in zip(groups, layout))
                  + (len(groups) == len(layout)) for layout in layouts), default=0)
    return score + (bool(groups) and set("".join(groups)) <= board)
