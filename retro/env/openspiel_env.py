"""Every registered game as an OpenSpiel Python game (``pip install 'retro[rl]'``, where
``open_spiel`` installs).

``import retro.env.openspiel_env`` registers each game as ``retro_`` and its name with
underscores (``pyspiel.load_game("retro_six_mens_morris")``; a variant as the
``variant`` parameter, ``pyspiel.load_game("retro_three_musketeers", {"variant":
"4x4"})``), so that OpenSpiel's algorithms run on it unchanged. Actions and
observation tensors are those of :mod:`.encoding` (the planes, flattened: the pieces in
hand among them); the returns are +1 for the winner
and -1 for every other player, 0 for a draw or a game without a winner. Positions can
repeat forever in the morris games and the race: ``max_plies`` (a parameter, default
300, at least 1) ends such a game with returns 0.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .encoding import Encoding, plies_limit

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - open_spiel does not install everywhere
    raise ImportError("OpenSpiel is not installed (pip install open_spiel; it has no wheel for "
                      "every platform)") from error

MAX_PLIES = 300


def short_name(name: str) -> str:
    """``retro_six_mens_morris``: a game's name as OpenSpiel registers it."""
    return "retro_" + name.replace("-", "_")


def _game_type(game_class) -> "pyspiel.GameType":
    players = len(game_class.sides)
    first = game_class.variants[0]
    return pyspiel.GameType(
        short_name=short_name(game_class.name),
        long_name=f"retro {game_class.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=(pyspiel.GameType.Utility.ZERO_SUM if players == 2 else pyspiel.GameType.Utility.GENERAL_SUM),
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players,
        min_num_players=players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"variant": first, "max_plies": MAX_PLIES},
    )


@lru_cache(maxsize=None)
def _retro(name: str, variant: str) -> tuple:
    """The retro game and its encoding (shared by every state: states hold only their
    position and plies, which OpenSpiel copies when it clones one)."""
    from .. import games

    game = games.get(name, variant)
    return game, Encoding(game)


def _make_game_class(game_class):
    game_type = _game_type(game_class)

    class RetroSpielGame(pyspiel.Game):
        """One registered retro game as an OpenSpiel game."""

        def __init__(self, params=None):
            params = dict(params or {})
            variant = str(params.get("variant", game_class.variants[0]))
            retro_game, encoding = _retro(game_class.name, variant)
            max_plies = plies_limit(params.get("max_plies", MAX_PLIES))
            players = len(game_class.sides)
            info = pyspiel.GameInfo(
                num_distinct_actions=encoding.size, max_chance_outcomes=0, num_players=players,
                min_utility=-1.0, max_utility=1.0, utility_sum=0.0 if players == 2 else None,
                max_game_length=max_plies)
            super().__init__(game_type, info, {"variant": variant, "max_plies": max_plies})

        def new_initial_state(self):
            return RetroSpielState(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return _Observer(_retro(game_class.name, str(self.get_parameters()["variant"]))[1])

    RetroSpielGame.__name__ = f"Retro{''.join(p.title() for p in game_class.name.split('-'))}Game"
    RetroSpielGame.retro_name = game_class.name
    return game_type, RetroSpielGame


class RetroSpielState(pyspiel.State):
    """A position of a retro game as an OpenSpiel state."""

    def __init__(self, game) -> None:
        super().__init__(game)
        params = game.get_parameters()
        self.key = (type(game).retro_name, str(params["variant"]))
        self.max_plies = int(params["max_plies"])
        self.position = _retro(*self.key)[0].start()
        self.plies = 0
        self._moves_of, self._legal = None, {}

    @property
    def encoding(self) -> Encoding:
        return _retro(*self.key)[1]

    def current_player(self):
        return pyspiel.PlayerId.TERMINAL if self.is_terminal() else self.position.side.code

    def _moves(self) -> dict:
        """The legal moves by action id, worked out once per position (a search asks for
        the legal actions, then applies one)."""
        if self._moves_of is not self.position:
            self._legal = self.encoding.legal(self.position)
            self._moves_of = self.position
        return self._legal

    def _legal_actions(self, player):
        return sorted(self._moves())

    def _apply_action(self, action):
        move = self._moves().get(int(action))
        if move is None:
            move = self.encoding.move(self.position, action)  # raises, naming the action
        self.position = self.position.play(move)
        self.plies += 1

    def _action_to_string(self, player, action):
        return self.encoding.text(action)

    def is_terminal(self):
        return self.position.is_over() or self.plies >= self.max_plies

    def returns(self):
        players = len(type(self.position.side))
        winner = self.position.winner() if self.position.is_over() else None
        if winner is None:
            return [0.0] * players
        return [1.0 if k == winner.code else -1.0 for k in range(players)]

    def __str__(self):
        return str(self.position)


class _Observer:
    """OpenSpiel's PyObserver over :meth:`Encoding.observation` (the planes, flattened)."""

    def __init__(self, encoding: Encoding) -> None:
        self.encoding = encoding
        shape = (encoding.planes, encoding.rows, encoding.columns)
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": np.reshape(self.tensor, shape)}

    def set_from(self, state, player):
        self.dict["observation"][...] = self.encoding.observation(state.position)

    def string_from(self, state, player):
        return str(state.position)


def register_all() -> list[str]:
    """Register every game of the registry with OpenSpiel (once); their short names."""
    from .. import games

    names = []
    for game_class in games.GAMES.values():
        name = short_name(game_class.name)
        if name not in pyspiel.registered_names():
            pyspiel.register_game(*_make_game_class(game_class))
        names.append(name)
    return names


REGISTERED = register_all()
