"""``retro serve``: find the databases, share their values, run uvicorn.

:func:`serve` runs in the ``retro`` process. It checks every database (a missing,
foreign or unfinished file is the user's mistake: one line, exit status 2), binds
the listening socket itself (so ``--port 0`` can print the port it got), prints the
URL, starts the loader of the shared values (:mod:`retro.web.shared`) and runs
uvicorn: in this process with one worker, or with N workers forked from this process
once it has built the probe tables and loaded the compiled kernels
(:class:`Supervisor`), so each answers within a fraction of a second and shares those
pages. Workers build their application with :func:`worker_app` from the
configuration in the environment variable :data:`ENVIRONMENT` (databases and
shared-value files). Ctrl-C stops the workers, the loader and the server cleanly.

The server is stateless and read-only: more capacity is more workers, or more
machines with the same file behind any load balancer.
"""

from __future__ import annotations

import gc
import ipaddress
import json
import logging
import os
import signal
import socket
import sys
import time
import traceback
from pathlib import Path

from .. import rules
from ..errors import DatabaseNotFoundError
from ..storage import DatabaseFile, default_path
from . import http
from .limits import Limits

ENVIRONMENT = "RETRO_SERVE_CONFIG"
EXIT_USAGE = 2
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def find_databases(dbs: list[Path] | None) -> list[Path]:
    """The databases to serve: those given, else the default file of each board size found."""
    if dbs:
        return [Path(db) for db in dbs]
    found = [default_path(n) for n in sorted(rules.SIZES, reverse=True) if default_path(n).is_file()]
    if not found:
        raise DatabaseNotFoundError(
            f"no database found in {default_path().parent}/; build one with: retro build "
            "(the 5x5 board, under a minute) or retro build --board 4")
    return found


def check_databases(paths: list[Path]) -> list[tuple[Path, int, str]]:
    """(absolute path, board size, digest) of each database, or the CLI's error.

    Only the files' headers are read here: the workers open the databases.
    """
    from ..probe import open_database

    checked, sizes = [], {}
    for path in paths:
        try:
            file = DatabaseFile(path, cache_bytes=0)
        except DatabaseNotFoundError:
            open_database(path).close()  # raises the CLI's words: the build hint, a resumable build
            raise
        try:
            digest, size = file.content_digest(), int(file.metadata["board_size"])
        finally:
            file.close()
        if size in sizes:
            raise ValueError(f"{sizes[size]} and {path} are both {size}x{size} databases; "
                             "serve one file per board size")
        sizes[size] = path
        checked.append((path.resolve(), size, digest))
    return checked


def host_warning(host: str) -> str | None:
    """The warning printed when the server listens beyond this machine, else None."""
    if host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host.strip("[]")).is_loopback:
            return None
    except ValueError:
        pass
    return (f"retro serve: warning: listening on {host}, not the loopback address: other "
            "machines can reach this server (it has no authentication and no TLS)")


def url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


def bind(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket on ``host:port`` (inheritable, for the workers)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve(dbs: list[Path] | None, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          workers: int = 1, share: bool | None = None, limits: Limits = Limits()) -> int:
    """Run the server until Ctrl-C; the exit status (0, or 2 when it cannot start).

    ``share`` (default: when the system supports it) loads each database's values once
    into memory shared by every worker; without it workers answer from disk.
    ``limits`` bound what a client may hold of a worker (:class:`retro.web.http.Limits`).
    """
    import uvicorn

    from .shared import Loader, SharedValues, supported

    databases = check_databases(find_databases(dbs))
    warning = host_warning(host)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    try:
        sock = bind(host, port)
    except OSError as error:
        print(f"retro: error: cannot listen on {host}:{port}: {error.strerror or error}",
              file=sys.stderr)
        return EXIT_USAGE
    if share is None:  # RETRO_SERVE_SHARE=0: every worker answers from disk
        share = os.environ.get("RETRO_SERVE_SHARE", "1").strip() != "0"
    share = share and supported()
    shared: list[SharedValues] = []
    loader: Loader | None = None
    try:
        if share:
            shared = [SharedValues(path, size, digest) for path, size, digest in databases]
        os.environ[ENVIRONMENT] = json.dumps({
            "databases": [str(path) for path, *_ in databases],
            "shared": {str(values.database): values.path for values in shared},
        })
        config = http.config("retro.web.server:worker_app", limits, factory=True, workers=workers,
                             timeout_graceful_shutdown=5)
        boards = ", ".join(f"{size}x{size}" for _, size, _ in databases)
        where = url(host, sock.getsockname()[1])
        print(f"retro serve: {boards} at {where} ({workers} worker{'s' if workers > 1 else ''}; "
              "Ctrl-C stops)", flush=True)
        if shared:
            loader = Loader(shared)
        try:
            if workers == 1:
                uvicorn.Server(config).run(sockets=[sock])
            elif hasattr(os, "fork") and os.environ.get("RETRO_SERVE_FORK", "1").strip() != "0":
                prepare([path for path, *_ in databases])
                if Supervisor(config, sock, workers).run() != 0:
                    print("retro: error: the server could not start", file=sys.stderr)
                    return EXIT_USAGE
            else:
                from uvicorn.supervisors import Multiprocess

                Multiprocess(config, sockets=[sock]).run()
        except SystemExit as stop:  # a worker that could not start (uvicorn logged why)
            if stop.code not in (None, 0):
                print("retro: error: the server could not start", file=sys.stderr)
                return EXIT_USAGE
        except KeyboardInterrupt:
            pass
    finally:
        if loader is not None:
            loader.stop()
        for values in shared:
            values.close()
        sock.close()
        os.environ.pop(ENVIRONMENT, None)
    print("retro serve: stopped", flush=True)
    return 0


def prepare(paths: list[Path]) -> None:
    """Build the probe tables and load the compiled kernels here, before forking the
    workers: each worker inherits them (copy-on-write) instead of building its own."""
    from .service import Service

    service = Service.open(paths)
    try:
        service.warm()
    finally:
        service.close()


class Supervisor:
    """N uvicorn workers forked from this process, sharing its listening socket.

    uvicorn's own supervisor starts each worker as a new interpreter that imports
    everything and builds its tables again (1.5-2 s per worker, ~50 MB each); a fork
    of this process, already prepared (:func:`prepare`), answers within a fraction of
    a second and shares those pages. A worker that dies is replaced; one that cannot
    start stops the server. Ctrl-C or SIGTERM stops every worker gracefully.
    """

    RESTARTS = 10  # replacements before giving up on a crashing worker

    def __init__(self, config, sock: socket.socket, workers: int) -> None:
        self.config, self.sock, self.workers = config, sock, workers
        self.children: set[int] = set()
        self.stopping = False

    def run(self) -> int:
        """Serve until stopped; 0, or 1 when a worker could not start."""
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        status, restarts = 0, 0
        # Objects made so far are shared with the workers: kept out of garbage collection,
        # which would otherwise write to every one of them and copy their pages.
        gc.collect()
        gc.freeze()
        try:
            for _ in range(self.workers):
                self._fork()
            while not self.stopping and self.children:
                for pid in list(self.children):
                    done, code = os.waitpid(pid, os.WNOHANG)
                    if done == 0:
                        continue
                    self.children.discard(pid)
                    exit_code = os.waitstatus_to_exitcode(code)
                    if self.stopping:
                        continue
                    if exit_code == STARTUP_FAILURE or restarts >= self.RESTARTS:
                        status = 1
                        self.stopping = True
                        break
                    restarts += 1
                    print(f"retro serve: worker {pid} ended (status {exit_code}); starting another",
                          file=sys.stderr, flush=True)
                    self._fork()
                time.sleep(0.1)
        finally:
            self._terminate()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return status

    def _stop(self, signum, frame) -> None:
        self.stopping = True

    def _fork(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the worker: serve, then leave without running the parent's code
            code = 0
            try:
                _die_with_parent()
                for sig in (signal.SIGINT, signal.SIGTERM):
                    signal.signal(sig, signal.SIG_DFL)
                import uvicorn

                uvicorn.Server(self.config).run(sockets=[self.sock])
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
            except KeyboardInterrupt:
                code = 0
            except BaseException:  # noqa: BLE001 - reported, then the worker ends
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        self.children.add(pid)

    def _terminate(self) -> None:
        for pid in self.children:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while self.children and time.monotonic() < deadline:
            for pid in list(self.children):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    self.children.discard(pid)
            time.sleep(0.05)
        for pid in self.children:
            _signal(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        self.children.clear()


STARTUP_FAILURE = 3  # uvicorn's exit status for a worker that could not start


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _die_with_parent() -> None:
    """Linux: end this worker when the supervisor dies (even by kill -9)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def worker_app():
    """The application of one worker, from :data:`ENVIRONMENT` (uvicorn's factory)."""
    from .app import create_app
    from .service import Service

    logger = logging.getLogger("retro.web")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("retro serve: %(levelname)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    config = json.loads(os.environ[ENVIRONMENT])
    service = Service.open([Path(p) for p in config["databases"]], shared=config.get("shared"))
    return create_app(service, close=True)
