"""Environments for learning agents over every registered game, with the database as a
perfect oracle (``pip install 'retro[rl]'``).

* :func:`pettingzoo_env`: a PettingZoo AEC environment (:mod:`.zoo`);
* :func:`gymnasium_env`: one side against an opponent, the perfect player among them
  (:mod:`.gym`);
* OpenSpiel: importing this package registers every game with OpenSpiel as
  ``retro_<name>`` (:mod:`.openspiel_env`), where ``open_spiel`` is installed;
* :mod:`.evaluate`: an agent scored move by move against the perfect player
  (``retro evaluate``).

Actions and observations come from the game protocol alone (:mod:`.encoding`).

No submodule is named as a function of this package: importing a submodule binds its
name on the package, and a module of the same name would replace the function.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .encoding import ActionError, Encoding, EncodingError

if TYPE_CHECKING:  # pragma: no cover
    from .gym import RetroGymEnv
    from .zoo import RetroAECEnv

try:  # OpenSpiel has no wheel for every platform: then its games are not registered
    from . import openspiel_env  # noqa: F401  (registers the games)
except ImportError:
    openspiel_env = None


def pettingzoo_env(name: str, variant: str | None = None, **options) -> RetroAECEnv:
    """The PettingZoo AEC environment of game ``name`` (see :mod:`.zoo`)."""
    from .zoo import pettingzoo_env as make

    return make(name, variant, **options)


def gymnasium_env(name: str, variant: str | None = None, **options) -> RetroGymEnv:
    """The Gymnasium environment of game ``name`` (see :mod:`.gym`)."""
    from .gym import gymnasium_env as make

    return make(name, variant, **options)


__all__ = ["ActionError", "Encoding", "EncodingError", "gymnasium_env", "openspiel_env", "pettingzoo_env"]
