"""Example agents for `retro evaluate` (module:function, a function of the observation
and the legal action ids): run `retro evaluate examples.agents:first --game tic-tac-toe`
from the checkout."""

from __future__ import annotations

import random

_RNG = random.Random(0)


def first(observation, legal_actions):
    """Always the legal action with the smallest id."""
    return legal_actions[0]


def uniform(observation, legal_actions):
    """A legal action at random."""
    return _RNG.choice(legal_actions)
