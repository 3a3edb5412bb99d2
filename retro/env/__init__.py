"""Environments for learning agents over every registered game, with the database as a
perfect oracle (work in progress: the encoding of actions and observations,
:mod:`.encoding`)."""

from .encoding import Encoding, EncodingError

__all__ = ["Encoding", "EncodingError"]
