"""The independence claims and the layering, as a test: read every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "retro"

# The independent checks share no algorithm with the retrograde builder.
INDEPENDENT = ["verify", "games", "alphabeta", "dfpn", "crosscheck"]
BUILDER = {"kernels", "build"}
# Weak solvers do not look at the database either: they are what it is checked against.
WEAK_SOLVERS = ["games", "alphabeta", "dfpn"]
DATABASE = {"storage", "probe", "lookup", "indexing"}
# Front ends sit on top: nothing below them imports them.
FRONT_ENDS = {"cli", "play", "analyze", "web", "crosscheck"}
CORE = ["bits", "rules", "position", "outcome", "errors", "text", "indexing", "kernels",
        "storage", "lookup", "build", "probe", "verify", "games", "alphabeta", "dfpn"]


def retro_imports(module: str) -> set[str]:
    """The retro modules (first name below ``retro``) that ``module`` imports."""
    path = PACKAGE / f"{module}.py"
    if not path.exists():
        path = PACKAGE / module / "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 1:
                found.update(alias.name for alias in node.names)
            elif node.module and node.module.split(".")[0] == "retro" and "." in node.module:
                found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names
                         if a.name.startswith("retro."))
    return found


def existing(modules):
    return [m for m in modules if (PACKAGE / f"{m}.py").exists()]


@pytest.mark.parametrize("module", existing(INDEPENDENT))
def test_the_checks_do_not_use_the_builder(module):
    assert not retro_imports(module) & BUILDER


@pytest.mark.parametrize("module", existing(WEAK_SOLVERS))
def test_the_weak_solvers_do_not_read_the_database(module):
    assert not retro_imports(module) & DATABASE


@pytest.mark.parametrize("module", existing(CORE))
def test_the_core_does_not_import_front_ends(module):
    assert not retro_imports(module) & FRONT_ENDS


def test_the_import_graph_has_no_cycles():
    graph = {path.stem: retro_imports(path.stem) for path in PACKAGE.glob("*.py")
             if path.stem != "__init__"}
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        if state.get(node) == 2:
            return
        assert state.get(node) != 1, " -> ".join(trail + [node])
        state[node] = 1
        for child in graph.get(node, ()):
            visit(child, trail + [node])
        state[node] = 2

    for node in graph:
        visit(node, [])
