"""The registry drives the tests (issue 41): registering a game breaks no existing test,
and the tests' lists of games, side-letter tables and databases grow with the registry.

The proof registers a throwaway game (tests/toy_game.py: "A to Z", tic-tac-toe under
other names, sides A and Z) in a child process, so that this process's registry stays
as it is, and runs there the registry-driven tests: every message test of
tests/test_notation.py (their lists of side letters now name A or Z too), and each
parametrized test over the registry for the new game (its own database built by the
``databases`` fixture of conftest.py, as any new game's would be), with no edit of any
test, fixture or table.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

CHILD = """
import json, sys
sys.path.insert(0, {tests!r})
if {toy!r}:
    import toy_game
    toy_game.register()
import pytest

outcomes = {{}}

class Record:
    def pytest_runtest_logreport(self, report):
        if report.when == "call" or report.outcome != "passed":
            outcomes[report.nodeid] = report.outcome

code = pytest.main({args!r}, plugins=[Record()])
with open({out!r}, "w") as f:
    json.dump({{"code": int(code), "outcomes": outcomes}}, f)
"""

# The registry-driven tests: the new game's own cases of each test parametrized over the
# registry, and the messages that list every game's side letters or variants.
SELECTION = [
    ("test_notation.py", "a-to-z or resembles_most or side_letters or unknown_variant or hands"),
    ("test_games.py", "a-to-z or registered_once"),
    ("test_game_files.py", "every_game_covered or another_game"),
    ("test_position.py", "a-to-z"),
    ("test_env_encoding.py", "a-to-z"),
    ("test_env_observations.py", "a-to-z"),
    ("test_env_gymnasium.py", "a-to-z"),
    ("test_layers.py", "games_know_nothing or oracle"),
    ("test_cli_hardening.py", "help_names_every_game"),
]

# Tests with a case for the new game only because the registry holds it.
GROWN = [
    "test_notation.py::test_an_unknown_side_letter_names_the_side_letters_of_the_game",
    "test_notation.py::test_an_invisible_character_in_a_row_is_named",
    "test_notation.py::test_no_game_reads_digits_of_another_script",
    "test_notation.py::test_an_unknown_variant_lists_the_variants",
    "test_games.py::test_index_round_trips_and_children_land_in_declared_tiers",
    "test_games.py::test_the_expansion_is_the_positions_own_moves",
    "test_games.py::test_symmetric_positions_share_a_value",  # its database, built
    "test_position.py::test_every_position_constructor_takes_ints_only",
    "test_env_encoding.py::test_every_legal_move_round_trips_and_the_mask_is_the_legal_moves",
    "test_env_observations.py::test_no_two_positions_of_different_values_share_an_observation",
    "test_env_gymnasium.py::test_gymnasium_s_checker",
]


def run_selection(tmp_path: Path, toy: bool) -> tuple[dict, str]:
    """The selected tests run in a child process, with the throwaway game registered or
    not: each case's outcome (passed, failed or skipped), and the run's output."""
    where = tmp_path / ("with" if toy else "without")
    args = ["-q", "-n", "0", "-p", "no:cacheprovider", f"--basetemp={where / 'basetemp'}"]
    args += [str(TESTS / name) for name, _ in SELECTION]
    args += ["-k", " or ".join(f"({name} and ({selected}))" for name, selected in SELECTION)]
    where.mkdir()
    out = where / "outcomes.json"
    script = CHILD.format(tests=str(TESTS), toy=toy, args=args, out=str(out))
    env = {**os.environ, "RETRO_TEST_WARMUP": "0"}
    result = subprocess.run([sys.executable, "-c", script], cwd=TESTS.parent, env=env,
                            capture_output=True, text=True, timeout=600)
    output = result.stdout[-3000:] + result.stderr[-3000:]
    assert out.exists(), output
    report = json.loads(out.read_text())
    return {nodeid.split("tests/", 1)[-1]: outcome for nodeid, outcome in report["outcomes"].items()}, output


def test_a_registered_game_breaks_no_test_and_the_lists_grow(tmp_path):
    """Every selected case passes with the throwaway game added (the same cases without
    it run in the suite itself), and the new game's own cases pass."""
    outcomes, output = run_selection(tmp_path, toy=True)
    passed = [case for case, outcome in outcomes.items() if outcome == "passed"]
    failed = sorted(case for case, outcome in outcomes.items() if outcome == "failed")
    assert failed == [], output
    assert [case for case in outcomes if "a-to-z" in case and case not in passed] == [], output
    assert [test for test in GROWN
            if not any(case.startswith(test + "[") and case.endswith("a-to-z]") for case in passed)] == []
    # The message tests ran: those listing every game's letters passed naming A or Z too.
    assert sum(1 for case in passed if "side_letters_named_are_of_the_games" in case) == 12
