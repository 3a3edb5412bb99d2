"""``retro serve``: find the databases, share their values, run uvicorn.

:func:`serve` runs in the ``retro`` process. It checks every database (a missing,
foreign or unfinished file, or one that is not a regular file, is the user's
mistake: one line, exit status 2) and notes its digest (every worker, and the
loader, check that they open that same database, see :func:`worker_app`), binds
and listens on the socket itself (so ``--port 0`` can print the port it got, and a
port taken by another server fails here, before the URL is printed), prints the
URL, starts the loader of the shared values (:mod:`retro.web.shared`) and runs
uvicorn: in this process with one worker, or with N workers forked from this
process once it has built the probe tables and loaded the compiled kernels
(:class:`Supervisor`), so each answers within a fraction of a second and shares
those pages. Workers build their application with
:func:`worker_app` from the configuration in the environment variable
:data:`ENVIRONMENT` (databases, their digests and shared-value files). Ctrl-C or
SIGTERM stops the workers, the loader and the server cleanly (exit status 0); no
process of the server outlives it, even after ``kill -9``.

The server is stateless and read-only: more capacity is more workers, or more
machines with the same file behind any load balancer.
"""

from __future__ import annotations

import collections
import gc
import ipaddress
import json
import logging
import os
import select
import signal
import socket
import sys
import time
import traceback
import warnings
from pathlib import Path

import uvicorn

from .. import games
from ..db import locations
from ..db.format import DatabaseFile
from ..errors import DatabaseError, DatabaseNotFoundError, NotADatabaseError
from . import http
from .limits import Limits
from .shared import die_with_parent

ENVIRONMENT = "RETRO_SERVE_CONFIG"
EXIT_USAGE = 2
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
BACKLOG = 2048  # uvicorn's default


def find_databases(dbs: list[Path] | None) -> list[Path]:
    """The databases to serve: those given, else the default file of each game found."""
    if dbs:
        return [Path(db) for db in dbs]
    found = [path for path in (locations.find(f"{game.file_stem}.h5") for game in games.all_variants())
             if path is not None]
    if not found:
        raise DatabaseNotFoundError(
            f"no database found (looked in {locations.searched()}); build one with: retro build "
            "(Three Musketeers 5x5, under a minute) or retro build --game tic-tac-toe "
            f"('retro games' lists the games), or name one with --db PATH or its folder with "
            f"${locations.ENVIRONMENT}")
    return found


def check_databases(paths: list[Path], *, skip_refused: bool = False) -> list[tuple[Path, object, str, str]]:
    """(absolute path, game, digest, name) of each database, or the CLI's error; the
    name is the board's as the server's messages give it (:attr:`Board.name`: its key,
    and what it holds when not the whole game).

    Each database is opened as a worker opens it, so a damaged file is refused here,
    before the server says it serves (a tiered game's values and their SHA-256 are all
    read; Three Musketeers' header and tables). With ``skip_refused`` (the default files
    found, none named by the user) a file that cannot be served is left out, saying why
    in one line, and the others are served; only when none can be is it an error.
    """
    from ..db.database import open_database
    from .service import Board

    checked, sizes, seen, refused = [], {}, {}, []
    for path in paths:
        try:
            file = DatabaseFile(path, cache_bytes=0)
        except DatabaseNotFoundError:
            open_database(path).close()  # raises the CLI's words: the build hint, a resumable build
            raise
        except DatabaseError as error:
            if not skip_refused:
                raise
            refused.append((path, error))
            continue
        try:
            digest, game = file.content_digest(), file.game
        except DatabaseError as error:
            if not skip_refused:
                raise
            refused.append((path, error))
            continue
        finally:
            file.close()
        if skip_refused and path.stem != game.file_stem:  # a default file's name is its game's
            refused.append((path, NotADatabaseError(
                f"{path.absolute()} holds {game.full_name}, not {path.stem}")))
            continue
        try:
            with open_database(path) as db:
                name = Board(db, digest, {}).name
        except DatabaseError as error:
            if not skip_refused:
                raise
            refused.append((path, error))
            continue
        identity = (path.stat().st_dev, path.stat().st_ino)
        if identity in seen:
            raise ValueError(f"{path} is given twice" + ("" if str(seen[identity]) == str(path)
                                                         else f" (as {seen[identity]} too)"))
        seen[identity] = path
        if game in sizes:
            raise ValueError(f"{sizes[game]} and {path} are both {game.full_name} databases; "
                             "serve one file per game (and Three Musketeers board size)")
        sizes[game] = path
        checked.append((path.resolve(), game, digest, name))
    if refused and not checked and len(refused) == 1:
        raise refused[0][1]
    for _, error in refused:  # the error names its file
        print(f"retro serve: not served (the other files are): {error}", file=sys.stderr, flush=True)
    if refused and not checked:
        raise type(refused[0][1])(f"none of the {len(refused)} databases found can be served "
                                  "(the lines above say why)")
    return checked


def host_warning(host: str) -> str | None:
    """The warning printed when the server listens beyond this machine, else None."""
    if host == "localhost":
        return None
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        address = None
    if address is not None:
        mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is 127.0.0.1
        if address.is_loopback or (mapped is not None and mapped.is_loopback):
            return None
    return (f"retro serve: warning: listening on {host}, not the loopback address: other "
            "machines can reach this server (it has no authentication and no TLS)")


def url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (inheritable, for the workers).

    It listens at once: two servers started at the same moment may both bind a port
    (SO_REUSEADDR lets sockets that do not listen yet share it), but only one can
    listen, and the other must fail here rather than inside uvicorn's event loop,
    which would swallow the error and leave a server that serves nothing."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
        sock.listen(BACKLOG)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def serve(dbs: list[Path] | None, *, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT,
          workers: int = 1, share: bool | None = None, limits: Limits = Limits()) -> int:
    """Run the server until Ctrl-C or SIGTERM; the exit status (0, or 2 when it cannot
    start).

    ``share`` (default: when the system supports it) loads each database's values once
    into memory shared by every worker; without it workers answer from disk.
    ``limits`` bound what a client may hold of a worker (:class:`retro.web.limits.Limits`).
    """
    from .shared import Loader, SharedValues, supported

    databases = check_databases(find_databases(dbs), skip_refused=not dbs)
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
    paths = [str(path) for path, *_ in databases]
    digests = {str(path): digest for path, _, digest, _ in databases}
    shared: list[SharedValues] = []
    loader: Loader | None = None
    # SIGTERM stops the server as Ctrl-C does (uvicorn raises again the signal that
    # stopped it: with the default action, SIGTERM would kill this process there). Once
    # the one worker's server is made, either only asks it to stop: an exception raised
    # at any point of its start (a signal sent right after the banner) could be caught
    # on the way and lost, and the server would keep running.
    running: list = []

    def stop(signum, frame):
        if running:
            running[0].should_exit = True
        else:
            raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        if share:  # Three Musketeers' tables; the other games' are small, in each worker
            shared = [SharedValues(path, game.file_stem, digest) for path, game, digest, _ in databases
                      if game.name == games.DEFAULT_GAME]
        os.environ[ENVIRONMENT] = json.dumps({
            "databases": paths,
            "digests": digests,
            "shared": {str(values.database): values.path for values in shared},
        })
        config = http.config("retro.web.server:worker_app", limits, factory=True, workers=workers,
                             timeout_graceful_shutdown=5)
        if workers == 1:
            running.append(uvicorn.Server(config))
        # As the API's messages name and order them (Three Musketeers' boards first, by size).
        boards = ", ".join(name for _, game, _, name in sorted(
            databases, key=lambda d: (d[1].name != games.DEFAULT_GAME,
                                      d[1].size if d[1].name == games.DEFAULT_GAME else 0)))
        where = url(host, sock.getsockname()[1])
        print(f"retro serve: {boards} at {where} ({workers} worker{'s' if workers > 1 else ''}; "
              "Ctrl-C stops)", flush=True)
        if shared:
            loader = Loader(shared)
        try:
            if workers == 1:
                with warnings.catch_warnings():
                    # Ctrl-C or SIGTERM just before uvicorn's event loop runs leaves its
                    # coroutine never awaited: a stop like any other, not worth a warning.
                    warnings.filterwarnings("ignore", "coroutine 'Server.serve' was never awaited",
                                            RuntimeWarning)
                    try:
                        running[0].run(sockets=[sock])
                    except KeyboardInterrupt:  # (here, so that the coroutine goes inside the filter)
                        pass
            elif hasattr(os, "fork") and os.environ.get("RETRO_SERVE_FORK", "1").strip() != "0":
                prepare(paths)
                failure = Supervisor(config, sock, workers).run()
                if failure:
                    print(f"retro: error: {failure}", file=sys.stderr)
                    return EXIT_USAGE
            else:
                from uvicorn.supervisors import Multiprocess

                Multiprocess(config, sockets=[sock]).run()
        except SystemExit as stop:  # a worker that could not start (uvicorn logged why)
            if stop.code not in (None, 0):
                print("retro: error: the server could not start (the lines above say why)",
                      file=sys.stderr)
                return EXIT_USAGE
        except KeyboardInterrupt:
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if loader is not None:
            loader.stop()
        for values in shared:
            values.close()
        sock.close()
        os.environ.pop(ENVIRONMENT, None)
    print("retro serve: stopped", flush=True)
    return 0


def prepare(paths: list[str]) -> None:
    """Build the probe tables and load the compiled kernels here, before forking the
    workers: each worker inherits them (copy-on-write) instead of building its own."""
    from .service import Service

    service = Service.open([Path(p) for p in paths])
    try:
        service.warm()
    finally:
        service.close()


class Supervisor:
    """N uvicorn workers forked from this process, sharing its listening socket.

    uvicorn's own supervisor starts each worker as a new interpreter that imports
    everything and builds its tables again (1.5-2 s per worker, ~50 MB each); a fork
    of this process, already prepared (:func:`prepare`), answers within a fraction of
    a second and shares those pages.

    A worker tells the supervisor once it serves (a byte on a pipe). A worker that
    ends before that, by itself, could not start (uvicorn or the application said
    why): the server stops, saying so. A worker that dies while serving, however
    often, is replaced: at once up to :attr:`RESTART_BURST` times in
    :attr:`RESTART_WINDOW` seconds, then one every :attr:`RESTART_INTERVAL` seconds
    (the log says when it waits), so that a worker that keeps crashing cannot make
    the supervisor fork without pause. Ctrl-C or SIGTERM stops every worker gracefully.
    """

    RESTART_BURST = 10
    RESTART_WINDOW = 60.0
    RESTART_INTERVAL = 1.0

    def __init__(self, config, sock: socket.socket, workers: int) -> None:
        self.config, self.sock, self.workers = config, sock, workers
        self.children: dict[int, int] = {}  # pid -> read end of its ready pipe (-1: serving)
        self.restarts: collections.deque[float] = collections.deque()
        self.due: list[float] = []  # when each replacement still to start is due
        self.stopping = False

    def run(self) -> str | None:
        """Serve until stopped; None, or what went wrong when a worker could not start."""
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        failure = None
        # Objects made so far are shared with the workers: kept out of garbage collection,
        # which would otherwise write to every one of them and copy their pages.
        gc.collect()
        gc.freeze()
        try:
            for _ in range(self.workers):
                self._fork()
            while not self.stopping and (self.children or self.due):
                self._wait_for_ready(0.1)
                failure = self._reap()
                if failure:
                    break
                now = time.monotonic()
                while self.due and self.due[0] <= now and not self.stopping:
                    self.due.pop(0)
                    self._fork()
        finally:
            self._terminate()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        return failure

    def _wait_for_ready(self, seconds: float) -> None:
        pipes = {fd: pid for pid, fd in self.children.items() if fd >= 0}
        try:
            readable = select.select(list(pipes), [], [], seconds)[0] if pipes else []
        except InterruptedError:
            return
        if not pipes:
            time.sleep(seconds)
        for fd in readable:
            if os.read(fd, 1):
                self.children[pipes[fd]] = -1
                os.close(fd)

    def _reap(self) -> str | None:
        for pid in list(self.children):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == 0:
                continue
            pipe = self.children.pop(pid)
            # (It may have said "ready" since the last look: the pipe holds that byte.)
            started = pipe < 0 or os.read(pipe, 1) == b"1"
            self._close_pipe(pipe)
            if self.stopping:
                continue
            what = _ending(status)
            if not started and not os.WIFSIGNALED(status):
                return f"worker {pid} could not start ({what}; the lines above say why)"
            self._replace(pid, what)
        return None

    def _replace(self, pid: int, what: str) -> None:
        now = time.monotonic()
        while self.restarts and self.restarts[0] < now - self.RESTART_WINDOW:
            self.restarts.popleft()
        due = now
        if len(self.restarts) >= self.RESTART_BURST:
            due = max(now, self.restarts[-1] + self.RESTART_INTERVAL, *self.due)
        self.restarts.append(due)
        self.due.append(due)
        wait = f" in {due - now:.1f} s ({len(self.restarts) - 1} restarts in the last " \
               f"{self.RESTART_WINDOW:g} s)" if due > now else ""
        print(f"retro serve: worker {pid} ended ({what}); starting another{wait}",
              file=sys.stderr, flush=True)

    def _stop(self, signum, frame) -> None:
        self.stopping = True

    def _fork(self) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        ready, tell = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker: serve, then leave without running the parent's code
            for fd in (ready, *self.children.values()):  # the other workers' pipes are not its own
                self._close_pipe(fd)
            code = 0
            try:
                die_with_parent()
                for sig in (signal.SIGINT, signal.SIGTERM):
                    signal.signal(sig, signal.SIG_DFL)
                WorkerServer(self.config, tell).run(sockets=[self.sock])
            except SystemExit as stop:
                code = stop.code if isinstance(stop.code, int) else 1
            except KeyboardInterrupt:
                code = 0
            except DatabaseError as error:  # in the CLI's words, one line
                print(f"retro serve: {error}", file=sys.stderr)
                code = STARTUP_FAILURE
            except BaseException:  # noqa: BLE001 - reported, then the worker ends
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        os.close(tell)
        self.children[pid] = ready

    def _terminate(self) -> None:
        for pid in self.children:
            _signal(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while self.children and time.monotonic() < deadline:
            for pid in list(self.children):
                if os.waitpid(pid, os.WNOHANG)[0]:
                    self._close_pipe(self.children.pop(pid))
            time.sleep(0.05)
        for pid in list(self.children):
            _signal(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            self._close_pipe(self.children.pop(pid))

    @staticmethod
    def _close_pipe(fd: int) -> None:
        if fd >= 0:
            os.close(fd)


def _ending(status: int) -> str:
    """How a child ended, in words, from its wait status."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return f"killed by {signal.Signals(number).name}"
        except ValueError:
            return f"killed by signal {number}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


class WorkerServer(uvicorn.Server):
    """uvicorn's server, telling the supervisor (a byte on ``tell``) once it serves."""

    def __init__(self, config, tell: int) -> None:
        super().__init__(config)
        self.tell = tell

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        if self.started and self.tell >= 0:
            os.write(self.tell, b"1")
            os.close(self.tell)
            self.tell = -1


STARTUP_FAILURE = 3  # uvicorn's exit status for a worker that could not start


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
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
    # Every worker serves the databases checked at start, or none: a worker started
    # later (one replacing a worker that died) finds out here whether a file was
    # replaced meanwhile, and then refuses to start, which stops the server.
    digests = config.get("digests", {})
    for board in service.boards.values():
        if digests.get(str(board.db.path), board.digest) != board.digest:
            service.close()
            raise DatabaseError(f"{board.db.path} changed since the server started (its digest is "
                                "not the one checked then); restart the server to serve the new file")
    return create_app(service, close=True)
