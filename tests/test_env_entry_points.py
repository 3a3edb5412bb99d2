"""The environments' documented entry points keep working after their first call (issue
40, item 8): a submodule named as a function of ``retro.env`` replaced that function with
itself when it was first imported, so the second call raised "'module' object is not
callable". Run in a fresh interpreter, where no earlier import can hide it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("gymnasium", reason="pip install -e '.[test]' installs the rl extra")
pytest.importorskip("pettingzoo", reason="pip install -e '.[test]' installs the rl extra")

SCRIPT = textwrap.dedent('''
    import importlib
    import pkgutil

    import retro.env as env

    functions = {name for name in env.__all__
                 if callable(getattr(env, name)) and not isinstance(getattr(env, name), type)}
    assert {"pettingzoo_env", "gymnasium_env"} <= functions, functions
    for _ in range(2):  # each documented entry point, twice, through the package
        zoo = env.pettingzoo_env("tic-tac-toe", max_plies=10)
        zoo.reset(seed=0)
        gym = env.gymnasium_env("tic-tac-toe", opponent="random")
        gym.reset(seed=0)
        encoding = env.Encoding(gym.game)
        assert encoding.legal(gym.position)
        from retro.env import gymnasium_env, pettingzoo_env  # the README's form

        pettingzoo_env("tic-tac-toe").reset(seed=0)
        gymnasium_env("tic-tac-toe").reset(seed=0)
        if env.openspiel_env is not None:  # import retro.env registers the OpenSpiel games
            import pyspiel

            pyspiel.load_game(env.openspiel_env.short_name("tic-tac-toe")).new_initial_state()
        from retro.env.evaluate import evaluate

        assert callable(evaluate)
    # Whatever submodule is imported, the package's functions stay functions.
    for module in pkgutil.iter_modules(env.__path__):
        try:
            importlib.import_module(f"retro.env.{module.name}")
        except ImportError:  # open_spiel has no wheel for every platform
            continue
    for name in functions:
        assert callable(getattr(env, name)) and not isinstance(getattr(env, name), type(env)), name
    print("ok")
''')


def test_every_entry_point_works_twice_in_a_fresh_interpreter():
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr[-2000:]
