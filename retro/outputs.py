"""The one guard every file retro writes goes through.

retro writes its outputs by a rename (``<path>.tmp`` then ``os.replace``) or by
opening them for writing; either would put a regular file where a device, a named
pipe or a socket was, or write through a symbolic link to whatever it points at
(run as root, ``--force`` once replaced ``/dev/null``). So a path to be written must
be a regular file or nothing at all, whatever ``--force`` says, and its folder must
exist. :func:`check_output` says so in one line; :func:`open_output` opens a file for
writing without following a link planted after the check.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import OutputPathError


def file_kind(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, for messages: ``a named pipe``, ``a device``..."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def check_output(path: Path | str, option: str | None = None) -> Path:
    """Return ``path`` if it may be written: missing, or a regular file (not a link).

    Raises :class:`OutputPathError` (one line naming ``option``, the flag that gave the
    path, when there is one) for a directory, a symbolic link, a device, a named pipe,
    a socket, or a folder that does not exist. Nothing is followed or created.
    """
    path = Path(path)
    named = f"{option} {path}" if option else str(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        parent = path.parent
        if not parent.is_dir():
            raise OutputPathError(f"{named}: the folder {parent} does not exist") from None
        return path
    except OSError as error:
        raise OutputPathError(f"cannot write {named}: {error.strerror or error}") from None
    if stat.S_ISREG(mode):
        return path
    if stat.S_ISDIR(mode):
        raise OutputPathError(f"{named} is a directory; name a file")
    if stat.S_ISLNK(mode):
        target = Path(os.path.realpath(path))
        hint = f" (name the file itself: {target})" if target.is_file() else ""
        raise OutputPathError(f"{named} is a symbolic link: writing would replace the link or "
                              f"write where it points; name a regular file{hint}")
    raise OutputPathError(f"{named} is {file_kind(mode)}, which writing would replace; "
                          "name a regular file")


def check_output_folder(folder: Path | str, option: str | None = None) -> Path:
    """Return ``folder`` if files may be written into it: an existing directory (not a
    link to one) or a missing path (which :func:`make_output_folder` creates)."""
    folder = Path(folder)
    named = f"{option} {folder}" if option else str(folder)
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return folder
    except OSError as error:  # a parent that is a file: ENOTDIR
        raise OutputPathError(f"cannot create {named}: {error.strerror or error}") from None
    if stat.S_ISDIR(mode):
        return folder
    raise OutputPathError(f"{named} is {file_kind(mode)}, not a directory; name a folder")


def make_output_folder(folder: Path | str, option: str | None = None) -> Path:
    """:func:`check_output_folder`, then create the folder if missing and check that
    files can be written into it; :class:`OutputPathError` otherwise."""
    folder = check_output_folder(folder, option)
    named = f"{option} {folder}" if option else str(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputPathError(f"cannot create {named}: {error.strerror or error}") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OutputPathError(f"cannot write into {named}: permission denied")
    return folder


def open_output(path: Path | str, option: str | None = None, mode: str = "wb"):
    """Open ``path`` for writing after :func:`check_output`; ``O_NOFOLLOW`` refuses a link
    planted since, and a file that turned into something else is refused too."""
    path = check_output(path, option)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags | getattr(os, "O_NONBLOCK", 0), 0o644)
    try:
        kind = os.fstat(fd).st_mode
        if not stat.S_ISREG(kind):
            raise OutputPathError(f"{path} is {file_kind(kind)}, which writing would replace; "
                                  "name a regular file")
        os.set_blocking(fd, True)
        return open(fd, mode, closefd=True)
    except BaseException:
        os.close(fd)
        raise


def fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (no-op where directories cannot be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomically(data, path: Path) -> None:
    """Write ``data`` (bytes or a buffer) to ``path`` so that it is there whole or not at all.

    Written under ``<path>.tmp``, flushed to the disk, renamed into place, and the
    rename made durable, so a crash or power loss can leave the old file or the
    new one, never a renamed but empty one. On any error the temporary file is
    removed and the error raised. Neither ``path`` nor ``<path>.tmp`` may be anything
    but a regular file or missing (:func:`check_output`): a link, a device or a named
    pipe is neither followed nor replaced, and :class:`OutputPathError` says so.
    """
    path = check_output(path)  # the rename would replace a device, a pipe or a link
    tmp = path.with_name(path.name + ".tmp")
    try:
        mode = os.lstat(tmp).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise OutputPathError(f"{tmp} is {file_kind(mode)}, in the way of {path}; move it away")
    try:
        # O_NOFOLLOW: a link planted after the check above fails here, never followed
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with open(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as error:
        tmp.unlink(missing_ok=True)
        if isinstance(error, OSError) and error.filename is None:
            error.filename = str(path)  # a failed write() names no file: say which
        raise
    fsync_directory(path.parent)


def save_figure(figure, path: Path | str, option: str | None = None, dpi: int = 100) -> Path:
    """Render a matplotlib figure to PNG and write it to ``path`` through the guard,
    whole or not at all (matplotlib's own ``savefig`` would follow a link or write
    into a device)."""
    import io

    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    path = check_output(path, option)
    write_atomically(buffer.getbuffer(), path)
    return path
