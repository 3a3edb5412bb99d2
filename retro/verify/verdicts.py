"""The verdicts of the tier verifiers: the rules a stored value must keep, and
:func:`judge`, which applies them to a value and its children's tally.

Both :mod:`.tiers` (a game expanded whole) and :mod:`.outofcore` (a chunk at a time)
judge entries the same way; the rules live here, below both, so that neither imports
the other for them (:mod:`.tiers` hands out-of-core files to :mod:`.outofcore`).
"""

from __future__ import annotations

from numba import njit

OK, BAD_FINISHED, BAD_WIN, BAD_LOSS, BAD_DRAW, NOT_FINISHED_ZERO, BAD_IMAGE = 0, 1, 2, 3, 4, 5, 6
RULES = {
    BAD_FINISHED: "a finished position (or an entry that is not a position) holds another value",
    BAD_WIN: "a win in n needs a move to a loss in n - 1 and none to a faster loss",
    BAD_LOSS: "a loss in n needs only moves to wins, the longest in n - 1",
    BAD_DRAW: "a draw needs no move to a loss and one to a draw",
    BAD_IMAGE: "a symmetric image of a position holds another value than the position",
}


@njit(cache=True, inline="always")
def judge(value, mover_wins, draw, invalid, bad_child, fewest_loss, longest_win, draws, count):
    """The verdict on a stored ``value`` (``mover_wins``: it says the side to move wins)
    from its children's tally: ``fewest_loss`` the least distance of a child lost for
    its mover (-1: none), ``longest_win`` the longest of a child won by its mover,
    ``draws`` the drawn children, ``count`` the moves; ``bad_child``: a move into an
    entry that is not a position."""
    if bad_child or value == invalid:
        return BAD_FINISHED
    if value == draw:
        return OK if fewest_loss == -1 and draws > 0 else BAD_DRAW
    plies = value >> 1
    if mover_wins:
        return OK if plies >= 1 and fewest_loss == plies - 1 else BAD_WIN
    ok = plies >= 1 and fewest_loss == -1 and draws == 0 and count > 0 and longest_win == plies - 1
    return OK if ok else BAD_LOSS
