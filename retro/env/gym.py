"""A Gymnasium environment for every registered game: one learning side against an
opponent (``pip install 'retro[rl]'``).

``retro.env.gymnasium_env("six-mens-morris", opponent="perfect")`` (this module is
``retro.env.gym``): the agent plays
``side`` (default: the side that moves first) and the opponent plays every other side:

* ``"perfect"``: the perfect player of ``retro play`` (from the database: a fastest win,
  else among the moves that keep the value the one that sets the most traps);
* ``"perfect-random"``: a move keeping the value, at random among the equally good;
* ``"random"``: a legal move at random;
* any callable ``f(position) -> move`` (a move object or its text).

Observations and actions are those of :mod:`.encoding` (the observation a dict of
``observation``, ``hands`` and ``action_mask``). The reward is +1 for a win, -1 for a
loss, 0 for a draw or a game without a winner, at the end; an action that is not a
legal move ends the episode with -1 (``info["illegal_action"]``). What is no action at
all (a float, a string, ``None``, an array, a number outside the space) raises
:class:`~retro.env.encoding.ActionError`; a step after the episode ended (or before
the first reset) raises :class:`ResetNeeded`. ``max_plies`` (at least 1) truncates play
that could go on forever.

Starts: the game's start, or (``start={"result": "win", "max_plies": 10}``, a
curriculum) positions drawn at random from the database whose value for the agent is
that result, within that many plies.
"""

from __future__ import annotations

import numpy as np

from .encoding import Encoding, plies_limit

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("the environments need the rl extra: pip install 'retro[rl]'") from error

OPPONENTS = ("perfect", "perfect-random", "random")
RESULTS = ("win", "draw", "loss")
DRAWS = 10_000  # positions drawn from the database to find one of a curriculum's kind


class ResetNeeded(gymnasium.error.ResetNeeded, RuntimeError):
    """``step()`` before ``reset()`` or after the episode ended (a RuntimeError too, as
    it was before Gymnasium's own class)."""


def _start_spec(start) -> dict | None:
    """``start`` checked: None (the game's start) or a curriculum's dict."""
    if start is None:
        return None
    if not isinstance(start, dict):
        raise TypeError(f"start must be None or a dict such as {{'result': 'win', 'max_plies': 10}}, "
                        f"not {type(start).__name__} {start!r}")
    unknown = sorted(set(start) - {"result", "max_plies"})
    if unknown:
        raise ValueError(f"start takes the keys 'result' and 'max_plies', not {', '.join(map(repr, unknown))}")
    if start.get("result", "win") not in RESULTS:
        raise ValueError(f"start['result'] must be one of {', '.join(RESULTS)}, not {start['result']!r}")
    if start.get("max_plies") is not None:
        plies_limit(start["max_plies"], "start['max_plies']")
    return dict(start)


class RetroGymEnv(gymnasium.Env):
    """One side of a registered game against an opponent (see the module docstring)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, game, *, opponent="random", side=None, db=None, start=None,
                 max_plies: int = 300, render_mode: str | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be 'ansi' or None, not {render_mode!r}")
        if not callable(opponent) and opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {', '.join(OPPONENTS)} or a callable, not {opponent!r}")
        self.game = game
        self.encoding = Encoding(game)
        self.side = self._side(side)
        self.opponent = opponent
        self.max_plies = plies_limit(max_plies)
        self.render_mode = render_mode
        self.start_spec = _start_spec(start)
        self._db = db
        shape = (self.encoding.planes, self.encoding.rows, self.encoding.columns)
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, shape, dtype=np.float32),
            "hands": spaces.Box(0.0, 255.0, (len(game.sides),), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.encoding.size,), dtype=np.int8),
        })
        self.action_space = spaces.Discrete(self.encoding.size)
        self.position = game.start()
        self.plies = 0
        self._ended = True  # no episode until reset()

    def _side(self, side):
        sides = self.game.sides
        if side is None:
            return sides.from_code(0)
        if isinstance(side, sides):
            return side
        for member in sides:
            if side == member.value:
                return member
        raise ValueError(f"side must be one of {', '.join(repr(m.value) for m in sides)} "
                         f"({self.game.full_name}), not {side!r}")

    @property
    def db(self):
        """The database (opened on first use, the game's default file unless ``db`` named one)."""
        if self._db is None or isinstance(self._db, (str, bytes)) or hasattr(self._db, "__fspath__"):
            from ..db.database import open_database

            self._db = open_database(self._db, game=self.game) if self._db is not None \
                else open_database(game=self.game)
        return self._db

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """A new episode from the game's start, the curriculum's, or
        ``options["position"]`` (a position of this game or its text)."""
        super().reset(seed=seed)
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict such as {{'position': ...}} or None, not {type(options).__name__}")
        given = (options or {}).get("position")
        if given is not None:
            self.position = self.encoding.position(given)
        elif self.start_spec is None:
            self.position = self.game.start()
        else:
            self.position = self._curriculum_start()
        self.plies = 0
        self._opponent_moves()
        # Even past max_plies after the opponent's first moves the agent gets its step: a
        # reset cannot say "truncated", the step that follows can.
        self._ended = self.position.is_over()
        return self._observation(), {}

    def step(self, action):
        """Play ``action`` (an action id; see :mod:`.encoding`), then the opponent."""
        if self._ended:
            raise ResetNeeded("the episode is over (or was never begun): call reset() before step()")
        action = self.encoding.action_id(action)  # no action at all: raises, as Gymnasium's envs do
        move = self.encoding.legal(self.position).get(action)
        if move is None:
            self._ended = True
            return self._observation(), -1.0, True, False, {"illegal_action": True}
        self.position = self.position.play(move)
        self.plies += 1
        self._opponent_moves()
        terminated = self.position.is_over()
        reward = self._reward() if terminated else 0.0
        truncated = not terminated and self.plies >= self.max_plies
        self._ended = terminated or truncated
        return self._observation(), reward, terminated, truncated, {}

    def render(self):
        return self.game.board_text(self.position) if self.render_mode == "ansi" else None

    def close(self) -> None:
        if self._db is not None and hasattr(self._db, "close") and not isinstance(self._db, (str, bytes)):
            self._db.close()

    # --- inside ------------------------------------------------------------------------------

    def _opponent_moves(self) -> None:
        while not self.position.is_over() and self.position.side is not self.side and self.plies < self.max_plies:
            self.position = self.position.play(self._opponent_move())
            self.plies += 1

    def _opponent_move(self):
        moves = self.position.legal_moves()
        if callable(self.opponent):
            move = self.opponent(self.position)
            return self.game.parse_move(move) if isinstance(move, str) else move
        if self.opponent == "random":
            return moves[int(self.np_random.integers(len(moves)))]
        if self.opponent == "perfect-random":
            return self.db.best_move(self.position, rng=int(self.np_random.integers(2**63)))
        from ..play import computer_move

        return computer_move(self.db, self.position, rng=int(self.np_random.integers(2**63)))

    def _reward(self) -> float:
        winner = self.position.winner()
        return 0.0 if winner is None else (1.0 if winner is self.side else -1.0)

    def _observation(self) -> dict:
        mask = (self.encoding.mask(self.position) if not self.position.is_over()
                and self.position.side is self.side else np.zeros(self.encoding.size, dtype=np.int8))
        return {"observation": self.encoding.observation(self.position),
                "hands": self.encoding.hand_counts(self.position), "action_mask": mask}

    def _curriculum_start(self):
        """A random position of the database, the agent to move, whose value for the agent
        is ``start["result"]`` within ``start["max_plies"]`` plies."""
        want = self.start_spec.get("result", "win")
        most = self.start_spec.get("max_plies")
        db, game = self.db, self.game
        tiers = list(db.tiers)
        sizes = np.array([game.tier_size(t) for t in tiers], dtype=np.float64)
        for _ in range(DRAWS):
            tier = tiers[int(self.np_random.choice(len(tiers), p=sizes / sizes.sum()))]
            position = game.position_at(tier, int(self.np_random.integers(game.tier_size(tier))))
            if position is None or position.side is not self.side or position.is_over():
                continue
            value = db.probe(position)
            values = getattr(value, "values", None)
            if values is not None:  # more players: this side's own value
                mine = value[self.side]
                result, plies = mine.result, mine.plies
            else:
                result = "draw" if value.winner is None else "win" if value.winner is self.side else "loss"
                plies = value.plies
            if result == want and (most is None or plies is None or plies <= most):
                return position
        raise ValueError(f"no position of {game.full_name} found whose value for {self.side.value} is a "
                         f"{want}{'' if most is None else f' within {most} plies'} in {DRAWS} draws")


def gymnasium_env(name: str, variant: str | None = None, **options) -> RetroGymEnv:
    """The Gymnasium environment of game ``name`` (``variant`` where it has them); options:
    ``opponent``, ``side``, ``db``, ``start``, ``max_plies``, ``render_mode``."""
    from .. import games

    return RetroGymEnv(games.get(name, variant), **options)
