"""Shared fixtures: small databases built once per test session."""

from __future__ import annotations

import contextlib
import os

# Two xdist workers on two cores each run numba's OpenMP threads: a thread that waits
# for work should sleep, not spin on a core the other worker needs (about 7 % of the
# suite's time). Read by libgomp when numba first loads it, after this.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import pytest
from hypothesis import settings

import retro.engine.build as builder
from retro.engine.build import build

# First calls compile jitted code or build tables: per-example deadlines would be noise.
settings.register_profile("retro", deadline=None)
settings.load_profile("retro")


def pytest_configure(config):
    """Under xdist, compile the numba kernels once before the workers start (see
    tests/warm_kernels.py): two processes, each a share of them, side by side. On a warm
    cache this costs a few seconds; RETRO_TEST_WARMUP=0 skips it."""
    import subprocess
    import sys
    from pathlib import Path

    if hasattr(config, "workerinput") or os.environ.get("RETRO_TEST_WARMUP") == "0":
        return
    if not getattr(config.option, "numprocesses", None) or config.option.collectonly:
        return
    script = Path(__file__).with_name("warm_kernels.py")
    parts = [subprocess.Popen([sys.executable, str(script), part], stdin=subprocess.DEVNULL)
             for part in ("0", "1")]
    for process in parts:
        process.wait()


@pytest.fixture(scope="session", autouse=True)
def no_user_databases(tmp_path_factory):
    """The tests never read or write the user's own databases: the per-user data folder
    is a fresh one, and $RETRO_DB_DIR is not set (tests that want it set it)."""
    import os

    saved = {name: os.environ.get(name) for name in ("XDG_DATA_HOME", "RETRO_DB_DIR")}
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("user-data"))
    os.environ.pop("RETRO_DB_DIR", None)
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def own_user_folder(tmp_path_factory, monkeypatch):
    """Each test its own per-user data and cache folders: what one test's builds record
    there (so the search finds them from anywhere), or its verifications log, never
    reaches another test."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("user-data")))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


@pytest.fixture(scope="session")
def db_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("databases")


# Files the session builds under another name than the game's default one: the search
# for a game's default file in db_dir must not find them (tests/test_probe.py).
FILE_NAMES = {"three-musketeers 3x3": "3x3.h5", "three-musketeers 4x4": "4x4.h5"}


@pytest.fixture(scope="session")
def databases(db_dir):
    """``databases(game)`` (a game, or its name and variant): the path of the whole
    database of any registered game variant small enough (tests/registered.py), built on
    first use and shared by the session, so that a new game's tests need no fixture here.
    The fixtures below are the same files by the names the tests have used."""
    from retro import games
    from registered import SMALL_ENTRIES, entries

    built: dict = {}

    def database(game, variant: str | None = None):
        if isinstance(game, str):
            game = games.get(game, variant)
        if game.full_name not in built:
            if entries(game) > SMALL_ENTRIES:
                raise ValueError(f"{game.full_name} has {entries(game):,} table entries: too many to "
                                 f"build in a test session (at most {SMALL_ENTRIES:,})")
            out = db_dir / FILE_NAMES.get(game.full_name, f"{game.file_stem}.h5")
            built[game.full_name] = build(game, out, progress=False).path
        return built[game.full_name]
    return database


@pytest.fixture(scope="session")
def db3(databases):
    return databases("three-musketeers", "3x3")


@pytest.fixture(scope="session")
def db4(databases):
    return databases("three-musketeers", "4x4")


@pytest.fixture(scope="session")
def db5_low(db_dir):
    return build(5, db_dir / "5x5-low.h5", max_enemy_men=4, progress=False).path


@pytest.fixture(scope="session")
def db_ttt(databases):
    return databases("tic-tac-toe")


@pytest.fixture(scope="session")
def db_3mm(databases):
    return databases("three-mens-morris")


@pytest.fixture(scope="session")
def db_3mm_diagonal(databases):
    return databases("three-mens-morris-diagonal")


@pytest.fixture(scope="session")
def db_6mm(databases):
    return databases("six-mens-morris")


@pytest.fixture(scope="session")
def db_9mm3(databases):
    """Nine men's morris with 3 pieces each, the whole game (about 2 s)."""
    return databases("nine-mens-morris", "3")


@pytest.fixture(scope="session")
def db_race(databases):
    """The four-player race, every player's game (under a second)."""
    return databases("four-player-race")


@pytest.fixture(scope="session")
def db_race_jump(databases):
    return databases("four-player-race", "jump")


class Run:
    """What a command line run gave: its exit status and its two streams."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr

    def __iter__(self):  # code, out, err = retro(...)
        return iter((self.returncode, self.stdout, self.stderr))


@pytest.fixture
def retro(capsys):
    """``retro(*args)``: the command line, run in this process (no interpreter start-up);
    argparse's own refusals (SystemExit) count as their exit status."""
    from retro.cli import main

    def run(*args):
        capsys.readouterr()
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit:
            code = exit.code
        out, err = capsys.readouterr()
        return Run(code, out, err)
    return run


@pytest.fixture
def interrupt_at(monkeypatch):
    """``interrupt_at(k)``: the next builds stop with Ctrl-C when they reach layer k."""
    solve = builder._solve_tier

    def arm(layer: int | None) -> None:
        def solve_or_interrupt(game, tier, children, advance):
            if tier == layer:
                raise KeyboardInterrupt
            return solve(game, tier, children, advance)

        monkeypatch.setattr(builder, "_solve_tier", solve_or_interrupt)

    return arm


# --- the web server (tests/test_web_api.py, tests/test_web_page.py) ---------------------


@pytest.fixture(scope="session")
def web_service(db3, db4, db5_low, db_ttt, db_3mm, db_6mm, db_race):
    """One :class:`retro.web.Service` over the small databases: Three Musketeers on disk
    (3x3, 4x4, 5x5 up to 4 enemy men), tic-tac-toe, three and six men's morris, the
    four-player race."""
    from retro.web import Service

    service = Service.open([db3, db4, db5_low, db_ttt, db_3mm, db_6mm, db_race])
    yield service
    service.close()


@pytest.fixture(scope="session")
def web_app(web_service):
    from retro.web import create_app

    return create_app(web_service)


@pytest.fixture(scope="session")
def web_client(web_app):
    """A Starlette TestClient of the app (its lifespan run once)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's notice about httpx versions
        from starlette.testclient import TestClient

        client = TestClient(web_app, raise_server_exceptions=False)
    with client:
        yield client


@contextlib.contextmanager
def live_server(app, limits=None):
    """``app`` on a live uvicorn server in a thread, on a free loopback port, configured as
    ``retro serve`` configures it (with ``limits``, a :class:`retro.web.http.Limits`): its URL."""
    import socket
    import threading
    import time

    import uvicorn

    from retro.web import http

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(http.config(app, limits or http.Limits()))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture(scope="session")
def web_server(web_app):
    """The app on a live uvicorn server in a thread, on a free loopback port: its URL."""
    with live_server(web_app) as url:
        yield url


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="session")
def browser():
    """One headless Chromium (Debian's package, driven by Playwright) for the page tests."""
    import os
    from pathlib import Path

    executable = os.environ.get("RETRO_CHROMIUM", CHROMIUM)
    if not Path(executable).exists():
        pytest.skip(f"the browser tests need Chromium at {executable}: apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the browser tests need Playwright: pip install -e '.[test]' "
                    "(and Chromium: apt-get install chromium)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()
