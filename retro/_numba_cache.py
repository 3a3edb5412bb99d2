"""A writable place for numba's cache of compiled kernels, found before any is compiled.

Every kernel is ``@njit(cache=True)``: numba writes the compiled code next to the
source (``retro/__pycache__``) or in the user's cache folder, and refuses to even
define a cached function when neither is writable (a read-only install and an
unwritable home). retro then caches in a private folder under the system's
temporary directory instead, and says so in one line.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=directory).close()
    except OSError:
        return False
    return True


def _private(directory: Path) -> bool:
    """A folder of this user's own that no one else can write to (not a planted one)."""
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(directory)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and _writable(directory))


def ensure_numba_cache() -> None:
    """Point numba's cache at a writable folder when its usual places are not writable."""
    from numba.core import config
    from numba.misc.appdirs import AppDirs

    if config.CACHE_DIR:
        places = [Path(config.CACHE_DIR)]
    else:
        places = [Path(__file__).parent / "__pycache__",
                  Path(AppDirs(appname="numba", appauthor=False).user_cache_dir)]
    if any(_writable(place) for place in places):
        return
    fallback = Path(tempfile.gettempdir()) / f"retro-numba-cache-{os.getuid()}"
    if not _private(fallback):
        fallback = Path(tempfile.mkdtemp(prefix="retro-numba-cache-"))
    config.CACHE_DIR = str(fallback)
    print(f"retro: warning: cannot write numba's cache in {places[0]}; compiled kernels "
          f"are cached in {fallback} instead (set NUMBA_CACHE_DIR to choose)", file=sys.stderr)
