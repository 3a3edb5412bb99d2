"""Where retro finds its databases, and where a build writes one: one search order.

A game's default file (``three-musketeers-5x5.h5``, ``tic-tac-toe.h5``, ...) is looked
for in these folders, in order, and read from the first that holds it:

1. ``$RETRO_DB_DIR``, when the variable is set;
2. ``db/`` in the working directory, when there is one (where retro 0.2 built; a
   Python package's folder, such as the source's ``retro/db/``, is not one);
3. the checkout's ``db/``, when retro runs from a source checkout (an editable
   install) and the working directory is inside that checkout;
4. the per-user data folder (``platformdirs.user_data_dir("retro")``:
   ``~/.local/share/retro`` on Linux).

``retro build`` without ``--out`` writes into ``$RETRO_DB_DIR`` when it is set, else
into the checkout's ``db/`` when run inside the checkout, else into the user folder:
never into some other ``db/`` that happens to be here. It says how to reach the file
when the search would not find it from everywhere (:func:`reach`). ``--db PATH``
always names a file directly.
"""

from __future__ import annotations

import os
from pathlib import Path

ENVIRONMENT = "RETRO_DB_DIR"
_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the retro package


def checkout() -> Path | None:
    """The source checkout retro runs from, when the working directory is inside it."""
    if not ((_ROOT / "pyproject.toml").is_file() and (_ROOT / "retro" / "__init__.py").is_file()):
        return None
    try:
        here = Path.cwd().resolve()
    except OSError:  # the working directory was removed
        return None
    return _ROOT if here == _ROOT or _ROOT in here.parents else None


def user_directory() -> Path:
    """The per-user data folder (``~/.local/share/retro`` on Linux)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("retro", appauthor=False))


def directories() -> list[Path]:
    """The folders searched, in order (see the module docstring)."""
    found = []
    variable = os.environ.get(ENVIRONMENT, "").strip()
    if variable:
        found.append(Path(variable).expanduser())
    if _database_folder(Path("db")):
        found.append(Path("db"))
    root = checkout()
    if root is not None and not any(_same(root / "db", folder) for folder in found):
        found.append(root / "db")
    found.append(user_directory())
    return found


def _database_folder(folder: Path) -> bool:
    """A folder of databases: a directory, and not a Python package's."""
    return folder.is_dir() and not (folder / "__init__.py").exists()


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def shown(path: Path) -> Path:
    """``path`` as messages show it: relative to the working directory when inside it."""
    try:
        relative = Path(os.path.relpath(path))
    except (OSError, ValueError):
        return path
    return relative if not str(relative).startswith("..") else path


def find(name: str) -> Path | None:
    """The first file called ``name`` in the folders searched, or None."""
    for folder in directories():
        candidate = folder / name
        if candidate.is_file():
            return shown(candidate)
    return None


def build_target(name: str) -> Path:
    """Where ``retro build`` writes ``name`` without ``--out`` (see the module docstring)."""
    variable = os.environ.get(ENVIRONMENT, "").strip()
    root = checkout()
    folder = (Path(variable).expanduser() if variable else root / "db" if root is not None
              else user_directory())
    return shown(folder / name)


def default(name: str) -> Path:
    """The default file ``name``: where it is found, else where a build would write it."""
    return find(name) or build_target(name)


def searched() -> str:
    """The search order in words, for messages."""
    variable = os.environ.get(ENVIRONMENT, "").strip()
    parts = [] if variable else [f"${ENVIRONMENT} (not set)"]
    parts += [f"{shown(folder)}/" for folder in directories()]
    return ", ".join(parts)


def reach(path: Path, name: str) -> str:
    """How retro finds the file ``path`` later, ``name`` being its game's default file
    name: a note for ``retro build`` to print ('' when the search finds it from any
    working directory)."""
    where = Path(path).resolve()
    direct = f"--db {where}"
    if where.name != name:  # the search looks for the default name only
        return f"retro finds it with {direct} (the default name, found by itself, is {name})"
    found = find(name)
    if found is None or not _same(found, where):
        first = f"; {found.resolve()} is read first" if found is not None else ""
        return f"retro finds it with {direct} (or {ENVIRONMENT}={where.parent}){first}"
    variable = os.environ.get(ENVIRONMENT, "").strip()
    everywhere = [user_directory()] + ([Path(variable).expanduser()] if variable else [])
    if any(_same(folder, where.parent) for folder in everywhere):
        return ""
    return (f"retro finds it when run in {where.parent.parent} (from anywhere with "
            f"{ENVIRONMENT}={where.parent} or {direct})")
