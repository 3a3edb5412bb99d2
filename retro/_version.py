"""retro's version, in a module of its own: ``pyproject.toml`` reads it here, and modules
inside the package import it from here rather than from the package root (which imports
them)."""

__version__ = "0.3.0"
