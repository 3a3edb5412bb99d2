"""The code lines of each game's module(s), as JSON: blank lines, comments and
docstrings aside.

    python benchmarks/lines.py

A line counts when a token of code is on it (a string spanning lines counts each of
its lines); a docstring is a string standing alone as a statement (a module's, a
class's, a function's, or one under an attribute), found with ``ast``, and its lines do
not count. Each folder under ``retro/games/`` is reported with the registered games it
holds (the morris family shares one), its files and their total, the kit's folder with
the games built on it.
"""

from __future__ import annotations

import ast
import io
import json
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
        tokenize.ENCODING, tokenize.ENDMARKER}


def code_lines(source: str) -> int:
    """The lines of ``source`` holding code (see the module docstring)."""
    docstrings: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            docstrings.update(range(node.lineno, node.end_lineno + 1))
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in SKIP:
            lines.update(range(token.start[0], token.end[0] + 1))
    return len(lines - docstrings)


def folder_figures(folder: Path, games: list[str]) -> dict:
    files = {str(path.relative_to(folder)): code_lines(path.read_text(encoding="utf-8"))
             for path in sorted(folder.rglob("*.py")) if "__pycache__" not in path.parts}
    return {"games": games, "code_lines": sum(files.values()), "files": files}


def main() -> None:
    import sys

    sys.path.insert(0, str(ROOT))
    from retro import games
    from retro.games.kit import PieceGame

    held: dict[Path, list[str]] = {}
    for name, cls in games.GAMES.items():
        module = Path(sys.modules[cls.__module__].__file__).resolve()
        folder = module.parent
        while folder.parent != ROOT / "retro" / "games":
            folder = folder.parent
        held.setdefault(folder, []).append(name)
    kit = ROOT / "retro" / "games" / "kit"
    held[kit] = [name for name, cls in games.GAMES.items() if issubclass(cls, PieceGame)]
    out = {str(folder.relative_to(ROOT)): folder_figures(folder, names) for folder, names in held.items()}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
