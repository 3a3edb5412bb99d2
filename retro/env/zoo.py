"""PettingZoo AEC environments for every registered game (``pip install 'retro[rl]'``).

``retro.env.pettingzoo_env("six-mens-morris")`` (``variant=`` where a game has them; this
module is ``retro.env.zoo``): the
agents are the game's sides by name (``"white"``, ``"black"``; the race's ``"P1"`` ..
``"P4"``), in turn as the rules say. Each agent observes ``{"observation": planes,
"hands": counts, "action_mask": mask}`` (:mod:`.encoding`); the action space is the
game's fixed discrete space of ``[from-]to[xremove]`` moves. At the end the winner gets
+1 and every other agent -1 (a draw or a game without a winner: 0 for all);
``max_plies`` (default 300) truncates play that could go on forever. An action that is
no action at all (a float, a string, ``None``, an array, a number outside the space)
raises :class:`~retro.env.encoding.ActionError`, one that is not a legal move
:class:`~retro.env.encoding.EncodingError` (PettingZoo's own games raise on both). ``render_mode``
``"ansi"`` returns the terminal board, ``"rgb_array"`` a picture drawn from the game's
geometry.
"""

from __future__ import annotations

import numpy as np

from .encoding import Encoding, plies_limit

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("the environments need the rl extra: pip install 'retro[rl]'") from error

CELL = 24  # pixels a point of the board takes in an rgb_array picture
COLOURS = np.array([[250, 250, 245], [40, 44, 52], [192, 57, 43], [31, 95, 191], [35, 128, 74],
                    [176, 120, 0]], dtype=np.uint8)


class RetroAECEnv(AECEnv):
    """A registered game as a PettingZoo AEC environment (see the module docstring)."""

    metadata = {"render_modes": ["ansi", "rgb_array"], "is_parallelizable": False}

    def __init__(self, game, *, max_plies: int = 300, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.game = game
        self.encoding = Encoding(game)
        self.max_plies = plies_limit(max_plies)
        self.render_mode = render_mode
        self.metadata = dict(self.metadata, name=f"retro_{game.file_stem.replace('-', '_')}_v0")
        self.possible_agents = [side.value for side in game.sides]
        shape = (self.encoding.planes, self.encoding.rows, self.encoding.columns)
        self.observation_spaces = {agent: spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, shape, dtype=np.float32),
            "hands": spaces.Box(0.0, 255.0, (len(game.sides),), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.encoding.size,), dtype=np.int8),
        }) for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(self.encoding.size) for agent in self.possible_agents}
        self.position = game.start()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """The game's start (or ``options["position"]``, a position or its text)."""
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict such as {{'position': ...}} or None, not {type(options).__name__}")
        start = (options or {}).get("position")
        self.position = self.game.start() if start is None else self.encoding.position(start)
        self.plies = 0
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.position.side.value
        self._finish_if_over()

    def observe(self, agent):
        mask = (self.encoding.mask(self.position) if agent == self.position.side.value
                and not self.position.is_over() else np.zeros(self.encoding.size, dtype=np.int8))
        return {"observation": self.encoding.observation(self.position),
                "hands": self.encoding.hand_counts(self.position), "action_mask": mask}

    def step(self, action) -> None:
        """Play ``action`` for the agent to move (``None`` once it is done, as PettingZoo asks)."""
        if not getattr(self, "agents", None):
            raise RuntimeError("no agent is left to step (before the first reset, or every agent is done): "
                               "call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)  # refuses anything but None itself
            return
        self._cumulative_rewards[agent] = 0
        move = self.encoding.move(self.position, action)  # raises on no action or an illegal one
        self.position = self.position.play(move)
        self.plies += 1
        self.rewards = {a: 0 for a in self.agents}
        self.agent_selection = self.position.side.value
        if not self._finish_if_over() and self.plies >= self.max_plies:
            self.truncations = {a: True for a in self.agents}
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            self.render()

    def _finish_if_over(self) -> bool:
        if not self.position.is_over():
            return False
        winner = self.position.winner()
        for a in self.agents:
            self.rewards[a] = 0 if winner is None else (1 if a == winner.value else -1)
            self.terminations[a] = True
        return True

    def render(self):
        if self.render_mode == "ansi":
            return self.game.board_text(self.position)
        if self.render_mode == "rgb_array":
            return self._picture()
        return None

    def _picture(self) -> np.ndarray:
        e = self.encoding
        image = np.full((e.rows * CELL, e.columns * CELL, 3), 225, dtype=np.uint8)
        cells = self.game.cells(self.position)
        for (row, column), cell in zip(e.cells_at, cells):
            y, x = row * CELL, column * CELL
            image[y + CELL // 2 - 2:y + CELL // 2 + 2, x + CELL // 2 - 2:x + CELL // 2 + 2] = 120  # the point
            if cell in e.pieces:
                colour = COLOURS[e.pieces.index(cell) % len(COLOURS)]
                image[y + 4:y + CELL - 4, x + 4:x + CELL - 4] = colour
        return image

    def close(self) -> None:
        pass


def pettingzoo_env(name: str, variant: str | None = None, **options) -> RetroAECEnv:
    """The AEC environment of game ``name`` (``variant`` where it has them); options:
    ``max_plies``, ``render_mode``."""
    from .. import games

    return RetroAECEnv(games.get(name, variant), **options)
