"""Where retro finds its databases, and where a build writes one: one search order.

A game's default file (``three-musketeers-5x5.h5``, ``tic-tac-toe.h5``, ...) is looked
for in these folders, in order, and read from the first that holds it:

1. ``$RETRO_DB_DIR``, when the variable is set;
2. ``db/`` in the working directory, when there is one (where retro 0.2 built; a
   Python package's folder, such as the source's ``retro/db/``, is not one);
3. the checkout's ``db/``, when retro runs from a source checkout (an editable
   install) and the working directory is inside that checkout;
4. the per-user data folder (``platformdirs.user_data_dir("retro")``:
   ``~/.local/share/retro`` on Linux);
5. the files ``retro build`` wrote (it records each in ``built.json`` in the user
   folder), the latest first: so a database built in the checkout, or with
   ``$RETRO_DB_DIR`` set at the time, is found from anywhere without a variable.

``retro build`` without ``--out`` writes into ``$RETRO_DB_DIR`` when it is set, else
into the checkout's ``db/`` when run inside the checkout, else into the user folder:
never into some other ``db/`` that happens to be here. It says how to reach the file
when the search would not find it from everywhere (:func:`reach`). ``--db PATH``
always names a file directly. Every path is absolute, in messages too.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from ..errors import OutputPathError
from ..outputs import check_output, open_output

ENVIRONMENT = "RETRO_DB_DIR"
RECORD = "built.json"  # in the user folder: the files retro build wrote
_RECORDED_MAX = 100
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
    """The folders searched, in order (see the module docstring), absolute."""
    found = []
    variable = os.environ.get(ENVIRONMENT, "").strip()
    if variable:
        found.append(_absolute(Path(variable).expanduser()))
    if _database_folder(Path("db")):
        found.append(_absolute(Path("db")))
    root = checkout()
    if root is not None and not any(_same(root / "db", folder) for folder in found):
        found.append(root / "db")
    found.append(_absolute(user_directory()))
    return found


def _absolute(path: Path) -> Path:
    """``path`` made absolute without resolving links (the name the user gave stays)."""
    try:
        return Path(os.path.abspath(path))
    except OSError:  # the working directory was removed
        return path


# --- the files retro build wrote -----------------------------------------------------


def recorded() -> list[dict]:
    """What :func:`record` kept: ``{"path", "game"}`` entries, the latest first (an
    unreadable or damaged record is no record)."""
    path = user_directory() / RECORD
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):  # a named pipe would block the read
            return []
        entries = json.loads(path.read_text())["built"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    if not isinstance(entries, list):
        return []
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("path"), str)
            and isinstance(e.get("game"), str)]


def record(path: Path, game: str) -> None:
    """Remember that ``retro build`` wrote ``path``, a database of ``game`` (its full
    name), so the search finds it from anywhere. Best effort: a read-only or missing
    home only means the file is not remembered."""
    where = str(_absolute(path))
    entries = [{"path": where, "game": game}]
    entries += [e for e in recorded() if e["path"] != where and Path(e["path"]).is_file()]
    folder = user_directory()
    target = folder / RECORD
    temporary = folder / f".{RECORD}.{os.getpid()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Through the output guard: the rename would replace a link, a pipe or a device
        # at ``target``, and the temporary is opened without following a link.
        check_output(target)
        with open_output(temporary, mode="w") as handle:
            handle.write(json.dumps({"built": entries[:_RECORDED_MAX]}, indent=1))
        os.replace(temporary, target)
    except (OSError, OutputPathError):  # not remembered; the build itself stands
        try:
            if stat.S_ISREG(os.lstat(temporary).st_mode):  # only our own file
                temporary.unlink()
        except OSError:
            pass


def built_elsewhere(game: str) -> list[Path]:
    """Files of ``game`` (its full name) that retro build wrote and that still exist."""
    return [Path(e["path"]) for e in recorded() if e["game"] == game and Path(e["path"]).is_file()]


def _database_folder(folder: Path) -> bool:
    """A folder of databases: a directory, and not a Python package's."""
    return folder.is_dir() and not (folder / "__init__.py").exists()


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def find(name: str) -> Path | None:
    """The first file called ``name`` in the folders searched, then among the files
    retro build wrote; None when there is none."""
    for folder in directories():
        candidate = folder / name
        if candidate.is_file():
            return candidate
    for entry in recorded():
        candidate = Path(entry["path"])
        if candidate.name == name and candidate.is_file():
            return candidate
    return None


def build_target(name: str) -> Path:
    """Where ``retro build`` writes ``name`` without ``--out`` (see the module docstring)."""
    variable = os.environ.get(ENVIRONMENT, "").strip()
    root = checkout()
    folder = (Path(variable).expanduser() if variable else root / "db" if root is not None
              else user_directory())
    return _absolute(folder / name)


def default(name: str) -> Path:
    """The default file ``name``: where it is found, else where a build would write it."""
    return find(name) or build_target(name)


def searched() -> str:
    """The search order in words, for messages."""
    variable = os.environ.get(ENVIRONMENT, "").strip()
    parts = [] if variable else [f"${ENVIRONMENT} (not set)"]
    parts += [f"{folder}/" for folder in directories()]
    return ", ".join(parts + ["the files retro build wrote"])


def reach(path: Path, name: str) -> str:
    """How retro finds the file ``path`` later, ``name`` being its game's default file
    name: a note for ``retro build`` to print ('' when the search finds it from any
    working directory: in the user folder, ``$RETRO_DB_DIR`` or recorded by
    :func:`record`, and read before any other copy here)."""
    where = Path(path).resolve()
    direct = f"--db {where}"
    if where.name != name:  # the search looks for the default name only
        return f"retro finds it with {direct} (the default name, found by itself, is {name})"
    found = find(name)
    if found is None or not _same(found, where):
        first = f"; {found.resolve()} is read first" if found is not None else ""
        return f"retro finds it with {direct} (or {ENVIRONMENT}={where.parent}){first}"
    variable = os.environ.get(ENVIRONMENT, "").strip()
    if variable and _same(Path(variable).expanduser(), where.parent):
        return ""
    user = user_directory() / name
    if user.is_file() and not _same(user, where):  # read before the files builds recorded
        return (f"retro finds it when run in {where.parent.parent}; elsewhere it reads {user} "
                f"first (this one with {direct})")
    if _same(user_directory(), where.parent) or any(
            _same(Path(entry["path"]), where) for entry in recorded()):
        return ""
    return (f"retro finds it when run in {where.parent.parent} (from anywhere with "
            f"{ENVIRONMENT}={where.parent} or {direct})")
