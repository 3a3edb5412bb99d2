"""Environments for learning agents over every registered game, with the database as a
perfect oracle (``pip install 'retro[rl]'``).

* :func:`pettingzoo_env`: a PettingZoo AEC environment (:mod:`.pettingzoo_env`);
* :func:`gymnasium_env`: one side against an opponent, the perfect player among them
  (:mod:`.gymnasium_env`);
* OpenSpiel: importing this package registers every game with OpenSpiel as
  ``retro_<name>`` (:mod:`.openspiel_env`), where ``open_spiel`` is installed;
* :mod:`.evaluate`: an agent scored move by move against the perfect player
  (``retro evaluate``).

Actions and observations come from the game protocol alone (:mod:`.encoding`).
"""

from __future__ import annotations

from .encoding import Encoding, EncodingError

try:  # OpenSpiel has no wheel for every platform: then its games are not registered
    from . import openspiel_env  # noqa: F401  (registers the games)
except ImportError:
    openspiel_env = None


def pettingzoo_env(name: str, variant: str | None = None, **options):
    """The PettingZoo AEC environment of game ``name`` (see :mod:`.pettingzoo_env`)."""
    from .pettingzoo_env import pettingzoo_env as make

    return make(name, variant, **options)


def gymnasium_env(name: str, variant: str | None = None, **options):
    """The Gymnasium environment of game ``name`` (see :mod:`.gymnasium_env`)."""
    from .gymnasium_env import gymnasium_env as make

    return make(name, variant, **options)


__all__ = ["Encoding", "EncodingError", "gymnasium_env", "openspiel_env", "pettingzoo_env"]
