"""Score an agent against the perfect player, move by move: what no other tool can
measure without a strong solution.

:func:`evaluate` plays ``games`` games of the agent against each opponent (``perfect``:
``retro play``'s choice from the database; ``random``), the agent taking each side in
turn, and judges every move of the agent by the database: did it keep the value of the
position for the agent (a win stays a win, a draw a draw; a lost position has nothing
to lose)? It reports, per opponent:

* ``kept``: the share of the agent's moves that kept the value;
* ``at_stake``: the same over the moves made from a won or drawn position only (from a
  lost one every move keeps the value: nothing is left to lose);
* ``first_thrown``: over the games where the agent threw a win or a draw away, the ply
  where it first did (the mean, and each game's);
* ``results``: the agent's wins, draws and losses (a game cut at ``max_plies`` counts as
  a draw);
* ``phases``: ``kept`` per phase of the game (morris: ``placement`` while pieces are in
  hand, then ``moving``; the other games: ``game``).

An agent is any callable ``agent(observation, legal_actions) -> action`` over the
encoding of :mod:`.encoding` (``observation`` as the environments give it, with the
``action_mask``, and ``notation``: the position's text, for an agent that searches with
a model of the game, as MCTS does; ``legal_actions`` the list of legal action ids).
"""

from __future__ import annotations

import importlib
from collections import defaultdict
from typing import Callable

import numpy as np

from .encoding import Encoding

RESULTS = ("win", "draw", "loss")
RANK = {"loss": 0, "draw": 1, "win": 2}


class AgentError(ValueError):
    """An agent that cannot be loaded, or that answers something other than a legal action."""


def load_agent(text: str) -> Callable:
    """The agent ``module:function`` names (the module importable from here)."""
    module_name, _, function_name = text.partition(":")
    if not module_name or not function_name:
        raise AgentError(f"an agent is module:function (a function of the observation and the legal "
                         f"actions), not {text!r}")
    import os
    import sys

    if os.getcwd() not in sys.path and "" not in sys.path:  # a console script: modules from here too
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise AgentError(f"cannot import {module_name!r} for the agent: {error}") from None
    agent = getattr(module, function_name, None)
    if not callable(agent):
        raise AgentError(f"{module_name} has no function {function_name!r}")
    return agent


def evaluate(agent: Callable, db, *, games: int = 20, opponents=("perfect", "random"),
             seed: int = 0, max_plies: int = 300) -> dict:
    """Play ``games`` games against each opponent and judge the agent's moves (see the
    module docstring); ``db`` an open database of the game. Returns a JSON-ready dict."""
    from ..play import computer_move

    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    game = db.game
    encoding = Encoding(game)
    sides = list(game.sides)
    report = {"game": game.full_name, "games": games, "max_plies": max_plies, "opponents": {}}
    for opponent in opponents:
        if opponent not in ("perfect", "random"):
            raise ValueError(f"an opponent is perfect or random, not {opponent!r}")
        rng = np.random.default_rng(seed)
        moves = kept = stake_moves = stake_kept = 0
        phases: dict = defaultdict(lambda: [0, 0])
        thrown: list = []
        results = dict.fromkeys(RESULTS, 0)
        for number in range(games):
            side = sides[number % len(sides)]
            position = game.start()
            first_thrown = None
            for ply in range(max_plies):
                if position.is_over():
                    break
                if position.side is side:
                    legal = encoding.legal(position)
                    observation = {"observation": encoding.observation(position),
                                   "hands": encoding.hand_counts(position),
                                   "action_mask": encoding.mask(position),
                                   "notation": str(position)}
                    action = agent(observation, sorted(legal))
                    if action not in legal:
                        raise AgentError(f"the agent answered {action!r}, not a legal action of {position}")
                    after = position.play(legal[action])
                    before_value, after_value = _result(db, position, side), _result(db, after, side)
                    held = RANK[after_value] >= RANK[before_value]
                    moves += 1
                    kept += held
                    if before_value != "loss":
                        stake_moves += 1
                        stake_kept += held
                    phase = _phase(encoding, position)
                    phases[phase][0] += 1
                    phases[phase][1] += held
                    if not held and first_thrown is None:
                        first_thrown = ply
                    position = after
                elif opponent == "perfect":
                    position = position.play(computer_move(db, position, rng=int(rng.integers(2**63))))
                else:
                    moves_here = position.legal_moves()
                    position = position.play(moves_here[int(rng.integers(len(moves_here)))])
            winner = position.winner() if position.is_over() else None
            results["draw" if winner is None else "win" if winner is side else "loss"] += 1
            if first_thrown is not None:
                thrown.append(first_thrown)
        report["opponents"][opponent] = {
            "moves": moves, "kept": round(kept / moves, 4) if moves else None,
            "at_stake": {"moves": stake_moves,
                         "kept": round(stake_kept / stake_moves, 4) if stake_moves else None},
            "first_thrown": {"games": len(thrown), "mean_ply": round(float(np.mean(thrown)), 2) if thrown else None,
                             "plies": thrown},
            "results": results,
            "phases": {name: {"moves": n, "kept": round(k / n, 4)} for name, (n, k) in sorted(phases.items())},
        }
    return report


def _result(db, position, side) -> str:
    """``win``, ``draw`` or ``loss`` of ``position`` for ``side``, by the database."""
    value = db.probe(position)
    own = getattr(value, "values", None)
    if own is not None:  # more players: the side's own value against the others
        return value[side].result
    return "draw" if value.winner is None else "win" if value.winner is side else "loss"


def _phase(encoding: Encoding, position) -> str:
    if not encoding.hands:
        return "game"
    return "placement" if encoding.hand_counts(position).any() else "moving"


def report_text(report: dict) -> str:
    """The text of ``retro evaluate``."""
    lines = [f"{report['game']}: {report['games']} games against each opponent, the agent on each side in turn"]
    for opponent, row in report["opponents"].items():
        r = row["results"]
        kept = "no move" if row["kept"] is None else f"{100 * row['kept']:.1f} % of {row['moves']:,} moves kept the value"
        lines.append(f"against {opponent} play: {kept}; won {r['win']}, drew {r['draw']}, lost {r['loss']}")
        stake = row["at_stake"]
        if stake["moves"]:
            lines.append(f"  from won or drawn positions: {100 * stake['kept']:.1f} % of {stake['moves']:,} moves kept the value")
        first = row["first_thrown"]
        if first["games"]:
            lines.append(f"  threw a win or a draw away in {first['games']} game{'' if first['games'] == 1 else 's'}, first at ply "
                         f"{first['mean_ply']} on average")
        for phase, p in row["phases"].items():
            if len(row["phases"]) > 1:
                lines.append(f"  {phase}: {100 * p['kept']:.1f} % of {p['moves']:,} moves kept the value")
    return "\n".join(lines)


def plot(report: dict, directory) -> list:
    """A chart of the share of value-keeping moves per phase and opponent, as a PNG in
    ``directory``; the files written."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    figure, axes = plt.subplots(figsize=(6, 3.2))
    labels, values = [], []
    for opponent, row in report["opponents"].items():
        for phase, p in row["phases"].items():
            labels.append(f"{opponent}\n{phase}")
            values.append(100 * p["kept"])
    axes.bar(range(len(values)), values, color="#1f5fbf")
    axes.set_xticks(range(len(values)), labels)
    axes.set_ylim(0, 100)
    axes.set_ylabel("moves keeping the value (%)")
    axes.set_title(f"{report['game']}: {report['games']} games per opponent")
    figure.tight_layout()
    path = directory / f"evaluate-{report['game'].replace(' ', '-')}.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return [path]
