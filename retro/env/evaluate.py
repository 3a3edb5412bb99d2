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
import importlib.util
import inspect
import os
import sys
from collections import defaultdict
from pathlib import Path
from typing import Callable

import numpy as np

from ..errors import quoted
from .encoding import Encoding

RESULTS = ("win", "draw", "loss")
RANK = {"loss": 0, "draw": 1, "win": 2}


class AgentError(ValueError):
    """An agent that cannot be loaded, or that answers something other than a legal action."""


def load_agent(text: str) -> Callable:
    """The agent ``module:function`` or ``path/to/file.py:function`` names: a module
    importable from here (the current folder included), or a Python file anywhere."""
    module_name, _, function_name = text.rpartition(":")
    if not module_name or not function_name:
        raise AgentError(f"an agent is module:function or path/to/file.py:function (a function of the "
                         f"observation and the legal actions), not {quoted(text)}")
    if module_name.endswith(".py") or os.sep in module_name or "/" in module_name:
        module = _module_from_file(Path(module_name))
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:  # a console script: modules from here too
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            raise AgentError(f"cannot import {module_name} for the agent ({error}); name a module "
                             "importable from here, or a file: path/to/agents.py:function") from None
        except Exception as error:
            raise AgentError(f"importing {module_name} for the agent raised {_said(error)}") from None
    if not hasattr(module, function_name):
        raise AgentError(f"{module_name} has no function {function_name!r}")
    agent = getattr(module, function_name)
    if not callable(agent):
        raise AgentError(f"{module_name}:{function_name} is {type(agent).__name__}, not a function "
                         "of the observation and the legal actions")
    _check_signature(agent, f"{module_name}:{function_name}")
    return agent


def _module_from_file(path: Path):
    """The module of a Python file, loaded under a name of its own."""
    if not path.is_file():
        raise AgentError(f"no agent file {path}" + ("" if path.suffix == ".py" else
                                                    " (name a .py file, or a module importable from here)"))
    spec = importlib.util.spec_from_file_location(f"retro_agent_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise AgentError(f"{path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        raise AgentError(f"loading {path} for the agent raised {_said(error)}") from None
    return module


def _said(error: BaseException) -> str:
    """An exception as one line: its type and its message's first line."""
    text = (str(error).strip().splitlines() or [""])[0]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def agent_name(agent: Callable) -> str:
    """How messages name an agent: ``module:function``."""
    name = getattr(agent, "__qualname__", None) or getattr(agent, "__name__", None) or type(agent).__name__
    module = getattr(agent, "__module__", None)
    return f"{module}:{name}" if module else name


def _check_signature(agent: Callable, name: str) -> None:
    """Refuse an agent that cannot be called as ``agent(observation, legal_actions)``."""
    try:
        signature = inspect.signature(agent)
    except (TypeError, ValueError):  # a builtin without one: its call will tell
        return
    try:
        signature.bind(None, None)
    except TypeError:
        raise AgentError(f"the agent {name} takes {signature}, but it is called as "
                         "agent(observation, legal_actions)") from None


def _ask(agent: Callable, name: str, observation: dict, legal: dict, position) -> int:
    """The agent's action in ``position``, or an AgentError saying what it did instead."""
    try:
        action = agent(observation, sorted(legal))
    except Exception as error:
        raise AgentError(f"the agent {name} raised {_said(error)} at {position}") from None
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise AgentError(f"the agent {name} returned {_shown(action)} at {position}: an action is "
                         "one of the legal action ids, a whole number")
    if int(action) not in legal:
        raise AgentError(f"the agent {name} returned {int(action)}, not a legal action at {position} "
                         f"(legal: {', '.join(map(str, sorted(legal)))})")
    return int(action)


def _shown(value) -> str:
    """A value an agent returned, short enough for a one-line message."""
    text = repr(value).replace("\n", " ")
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


def evaluate(agent: Callable, db, *, games: int = 20, opponents=("perfect", "random"),
             seed: int = 0, max_plies: int = 300, name: str | None = None) -> dict:
    """Play ``games`` games against each opponent and judge the agent's moves (see the
    module docstring); ``db`` an open database of the game; ``name`` how messages name
    the agent (default: its module and function). Returns a JSON-ready dict. Raises
    :class:`AgentError`, naming the agent and the position, when the agent raises,
    answers something else than a legal action id, or cannot be called so."""
    from ..play import computer_move

    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    if max_plies < 1:
        raise ValueError(f"max_plies must be at least 1, not {max_plies}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a whole number of at least 0, not {seed!r}")
    if not callable(agent):
        raise AgentError(f"the agent is {type(agent).__name__}, not a function of the observation "
                         "and the legal actions")
    name = name or agent_name(agent)
    _check_signature(agent, name)
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
                    action = _ask(agent, name, observation, legal, position)
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
    import matplotlib

    from ..outputs import make_output_folder, save_figure

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory = make_output_folder(directory, "--plot")
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
    try:
        save_figure(figure, path, dpi=100)
    finally:
        plt.close(figure)
    return [path]
