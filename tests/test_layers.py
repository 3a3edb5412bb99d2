"""The independence claims and the layering, as a test: read every module's imports.

Modules are named by their dotted path below ``retro`` (``games.musketeers.sweep``);
a rule about a package covers every module in it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "retro"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "__init__"


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    base = module.split(".") if module != "__init__" else []
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


ROOT = "__init__"  # the package root, retro/__init__.py


def retro_imports(module: str, *, top_level_only: bool = False) -> set[str]:
    """The retro modules ``module`` imports (as dotted names below ``retro``; the package
    root as ``__init__``), deferred imports inside functions too; with ``top_level_only``
    only the imports run when the module loads."""
    path = MODULES[module]
    tree = ast.parse(path.read_text())
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = _resolve(module, path.name == "__init__.py", node.level, node.module)
            elif node.module == "retro":
                base = ""
            elif node.module and node.module.startswith("retro."):
                base = node.module[len("retro."):]
            else:
                continue
            for alias in node.names:
                candidate = f"{base}.{alias.name}" if base else alias.name
                # A name that is no module (``from .. import __version__``) is read from
                # the package it is imported from: that package's __init__.
                found.add(candidate if candidate in MODULES else base or ROOT)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "retro":
                    found.add(ROOT)
                elif alias.name.startswith("retro."):
                    found.add(alias.name[len("retro."):])
    return {m for m in found if m}


def within(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def modules_in(*prefixes) -> list[str]:
    return sorted(m for m in MODULES if within(m, prefixes))


# The independent checks share no algorithm with the builders.
INDEPENDENT = modules_in("verify.musketeers", "search", "crosscheck")
BUILDERS = ("engine", "games.musketeers.sweep")
# Weak solvers do not look at the database either: they are what it is checked against.
DATABASE = ("db", "games.musketeers.lookup", "games.musketeers.layout", "games.musketeers.index")
# Front ends sit on top: nothing below them imports them.
FRONT_ENDS = ("cli", "play", "analyze", "web", "crosscheck", "text", "env")
CORE = modules_in("bits", "values", "errors", "games", "engine", "db", "search", "verify")


@pytest.mark.parametrize("module", INDEPENDENT)
def test_the_checks_do_not_use_the_builders(module):
    assert not {m for m in retro_imports(module) if within(m, BUILDERS)}


@pytest.mark.parametrize("module", modules_in("search"))
def test_the_weak_solvers_do_not_read_the_database(module):
    assert not {m for m in retro_imports(module) if within(m, DATABASE)}


@pytest.mark.parametrize("module", CORE)
def test_the_core_does_not_import_front_ends(module):
    assert not {m for m in retro_imports(module) if within(m, FRONT_ENDS)}


def game_modules() -> list[str]:
    """Every module of retro.games, and of the package of each registered game wherever
    in retro it lives (a game registered from outside retro, as a test's, has none)."""
    from retro.games import GAMES

    packages = {cls.__module__[len("retro."):] for cls in GAMES.values() if cls.__module__.startswith("retro.")}
    # A game defined in a package's __init__: every module of the package; in a module: it.
    return sorted(set(modules_in("games")) | set(modules_in(*packages)))


@pytest.mark.parametrize("module", game_modules())
def test_games_know_nothing_of_the_engine_or_the_database(module):
    assert not {m for m in retro_imports(module) if within(m, ("engine", "db", "verify", "search"))}


@pytest.mark.parametrize("module", ["games.musketeers.sweep", "games.musketeers.lookup",
                                    "search.games", "search.dfpn", "games.musketeers.position"])
def test_every_fast_path_imports_its_games_rules(module):
    assert "games.musketeers.rules" in retro_imports(module)


def test_the_tic_tac_toe_search_uses_its_rules():
    assert "games.tictactoe.rules" in retro_imports("search.games")


def test_the_independent_verifier_keeps_its_own_move_generation():
    """verify.musketeers may read the rules' constants and the storage layout, never the
    index tables of the sweep or of probing."""
    imported = retro_imports("verify.musketeers")
    assert not {m for m in imported if within(m, ("games.musketeers.sweep", "games.musketeers.lookup"))}


def import_cycles() -> list[list[str]]:
    """Every circle of imports (each strongly connected set of modules, sorted), counting
    every import, deferred ones inside functions too: a deferred import only hides a
    circle until the function runs. A module importing its own package's ``__init__``
    (``from . import x`` in a package) is not a circle; the package root is no exception
    to the rule of ``test_nothing_below_the_package_root_imports_it``."""
    graph = {m: {i for i in retro_imports(m) if i in MODULES and i != m
                 and not (i != ROOT and m.startswith(i + "."))}  # a package's own __init__
             for m in MODULES}
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for child in sorted(graph[node]):
            if child not in order:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], order[child])
        if low[node] == order[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return sorted(cycles)


def test_the_import_graph_has_no_cycles():
    assert import_cycles() == []


def test_a_deferred_import_closing_a_circle_is_found(monkeypatch, tmp_path):
    """The cycle check reads imports inside functions too, not only at the top."""
    (tmp_path / "a.py").write_text("from . import b\n")
    (tmp_path / "b.py").write_text("def later():\n    from .a import x\n")
    monkeypatch.setitem(MODULES, "a", tmp_path / "a.py")
    monkeypatch.setitem(MODULES, "b", tmp_path / "b.py")
    assert ["a", "b"] in import_cycles()


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m != ROOT))
def test_nothing_below_the_package_root_imports_it(module):
    """``retro/__init__.py`` imports the package's modules; one importing it back (``from
    .. import __version__``, ``import retro``) closes a circle through the root. The
    version is read from ``retro._version``."""
    assert ROOT not in retro_imports(module)


def test_the_root_import_check_sees_each_way_of_importing_the_root(monkeypatch, tmp_path):
    ways = ["from .. import __version__\n", "import retro\n", "from retro import __version__\n",
            "def later():\n    from .. import __version__\n"]
    for i, text in enumerate(ways):
        (tmp_path / f"m{i}.py").write_text(text)
        monkeypatch.setitem(MODULES, f"db.m{i}", tmp_path / f"m{i}.py")
        assert ROOT in retro_imports(f"db.m{i}"), text
    (tmp_path / "fine.py").write_text("from .. import games\nfrom .._version import __version__\n")
    monkeypatch.setitem(MODULES, "db.fine", tmp_path / "fine.py")
    assert ROOT not in retro_imports("db.fine")


# The references the tests check the games with: every tests/*_oracle.py (a new game's
# too), and the generic minimax.
ORACLES = ["minimax.py", *sorted(p.name for p in Path(__file__).parent.glob("*_oracle.py")
                                 if not p.name.startswith("test_"))]


def test_the_oracles_are_found():
    assert {"minimax.py", "morris_oracle.py", "nine_oracle.py", "race_oracle.py"} <= set(ORACLES)


@pytest.mark.parametrize("oracle", ORACLES)
def test_the_test_oracles_share_no_code_with_retro(oracle):
    """The references the tests compare every game with are written from the rules alone."""
    tree = ast.parse((Path(__file__).parent / oracle).read_text())
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert not {name for name in imported if name == "retro" or name.startswith("retro.")}
