"""`retro serve` in the open (issue 17): what a careless client, an attacker or an
operator can do to the server, each case against a live server where it needs one.

Most cases share the session's live server (``web_server``, conftest.py) or one live
server of this module with short limits (``strict_server``); only what needs a real
process (signals, workers, the loader, two servers on one port) starts ``retro serve``.
"""

from __future__ import annotations

import gc
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import httpx
import pytest

from retro import Position, open_database
from retro.cli import main as cli
from retro.errors import quoted
from retro.web import Service, create_app
from retro.web.server import host_warning, url
from retro.web.shared import SharedValues, fill, supported

START3 = "M .O. XOX .O."


def strict_json(text: str):
    """``text`` parsed as a strict parser would: no NaN or Infinity, no lone surrogate."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    text.encode("utf-8")  # a lone surrogate cannot be encoded
    return json.loads(text, parse_constant=refuse)


# --- bodies and messages (items 4, 5, 6) ------------------------------------------------


def test_every_batch_answer_is_strict_json(web_client):
    body = (b'{"positions": [1e400, -1e400, [1e400, {"a": "\\ud800"}], "\\udc00x", 17, '
            + b"9" * 5000 + b', "' + START3.encode() + b'"]}')
    response = web_client.post("/api/v1/probe", content=body)
    assert response.status_code == 200
    results = strict_json(response.text)["results"]
    assert [r["position"] for r in results[:5]] == [None, None, [None, {"a": "?"}], "?x", 17]
    assert results[5] == {"position": None, "error": "a position must be text, not a number"}
    assert results[6]["position"] == START3 and "plies" in results[6]
    for huge in (b'{"positions": ' + b"9" * 5000 + b"}", b'{"positions": [1' + b"0" * 5000 + b"]}"):
        answer = web_client.post("/api/v1/probe", content=huge)
        strict_json(answer.text)
        assert "sys." not in answer.text and "int_max_str_digits" not in answer.text


def test_messages_quote_user_text_in_retro_words(web_client, db3, capsys):
    assert quoted("Z") == "'Z'" and quoted("\x00") == "'\\u0000'" and quoted("it's") == "'it\\'s'"
    assert quoted("a\nb\u2028") == "'a\\nb\\u2028'" and quoted("x" * 50, 10) == "'xxxxxxxxxx'..."
    answer = web_client.get("/api/v1/probe", params={"position": "M .O. XOX .O\x00"}).json()
    assert answer == {"error": "unknown character '\\u0000' in row 3: use O (musketeer), "
                               "X (enemy man) or . (empty)"}
    answer = web_client.get("/api/v1/probe", params={"position": START3, "\x00\x7f": "1"}).json()
    assert "unknown parameter '\\u0000\\u007f'" in answer["error"]
    bad = web_client.post("/api/v1/probe", content=b'{"positions": [1,')
    assert bad.json()["error"].startswith("the body is not valid JSON (expecting value at line 1, "
                                          "column 18)")
    capsys.readouterr()
    assert cli(["probe", "--db", str(db3), "M .O. XOX .O\x01"]) == 2
    assert "'\\u0001' in row 3" in capsys.readouterr().err
    for argv in (["--port", "²"], ["--port", "9" * 5000], ["--workers", "³"]):
        with pytest.raises(SystemExit) as stop:
            cli(["serve", *argv])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(f"retro serve: error: argument {argv[0]}: must be a ") and \
            err.count("\n") == 1 and "invalid" not in err and "sys." not in err, err
        assert quoted(argv[1]) in err


def test_other_spacing_is_probed_as_an_array(db4):
    """A batch written with two spaces after the side reads each chunk once, as the same
    batch in canonical spacing does (not one probe, and one chunk read, per position)."""
    from tests.test_web_api import random_positions

    positions = random_positions(4, 3000, seed=17)
    reads, bodies = [], []
    for texts in ([str(p) for p in positions], [str(p).replace(" ", "  ", 1) for p in positions],
                  [str(p).replace(" ", "\t_ ") for p in positions]):
        service = Service.open([db4])
        try:
            bodies.append(json.loads(service.batch(texts)))
            reads.append(service.boards["three-musketeers-4x4"].batch_db().chunk_reads)
        finally:
            service.close()
    assert reads[0] == reads[1] == reads[2] > 0
    assert bodies[0] == bodies[1] == bodies[2]
    assert [r["position"] for r in bodies[0]["results"]] == [str(p) for p in positions]
    del bodies, positions
    gc.collect()  # not left for a collection inside the next test's timed answers


def test_health_answers_during_batches(web_server):
    """Batches run off the event loop: /health and a probe answer in well under 100 ms,
    many times, while each of four batches of 10,000 positions is being answered (on
    the event loop none could: each batch held it until its answer was written)."""
    items = ["M .O. XOX .OZ", "Q OOO ... ...", "E XXXXO XXXXX XXOXX XXXXX OXXXX", START3] * 2500
    batches = []

    def post() -> None:
        with httpx.Client(base_url=web_server, timeout=60) as client:
            for _ in range(4):
                start = time.perf_counter()
                assert client.post("/api/v1/probe", json={"positions": items}).status_code == 200
                batches.append((start, time.perf_counter()))

    pings = []
    with httpx.Client(base_url=web_server, timeout=10) as client:
        client.get("/health")
        thread = threading.Thread(target=post)
        thread.start()
        while thread.is_alive():
            start = time.perf_counter()
            assert client.get("/health").status_code == 200
            assert client.get("/api/v1/probe", params={"position": START3}).status_code == 200
            pings.append((start, time.perf_counter()))
            time.sleep(0.002)
        thread.join()
    inside = [(a, z) for a, z in pings if any(a0 < a and z < z0 for a0, z0 in batches)]
    assert len(batches) == 4 and len(inside) >= 8, (batches, pings)
    # On the event loop a ping sent during a batch waited for the batch's end (1-2 s):
    # none would answer inside one. Off it, nine in ten answer in well under 100 ms and
    # none waits a batch out; the slowest tenth is left to the scheduler of a shared,
    # 2-core machine running other tests beside this one (a 0.24 s pause was seen once).
    waits = sorted(z - a for a, z in pings)
    shortest_batch = min(z0 - a0 for a0, z0 in batches)
    assert waits[int(0.9 * len(waits))] < 0.1, waits[-5:]
    assert waits[-1] < shortest_batch / 2, (waits[-5:], shortest_batch)


# --- the HTTP layer (items 1, 2, 7, 8, 9) ---------------------------------------------------

STRICT = dict(head_timeout=0.6, body_timeout=0.6, keep_alive=0.6, max_connections=8)


@pytest.fixture(scope="module")
def strict_server(web_app):
    """The session's app on a second live server with short timeouts and a small cap."""
    from retro.web.limits import Limits
    from tests.conftest import live_server

    with live_server(web_app, Limits(**STRICT)) as url:
        yield url


def connect(url: str, timeout: float = 5) -> socket.socket:
    host, port = url.split("//")[1].rstrip("/").split(":")
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    return sock


def read_answer(sock: socket.socket) -> tuple[int, dict, bytes]:
    """Status, headers and body of one answer; the connection must then be closed."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def check_error(status: int, headers: dict, body: bytes, expected: int, words: str) -> None:
    assert status == expected, (status, body)
    assert headers["content-type"] == "application/json"
    assert headers["access-control-allow-origin"] == "*" and headers["connection"] == "close"
    answer = strict_json(body.decode())
    assert set(answer) == {"error"} and words in answer["error"], answer


def test_a_big_head_is_refused_before_it_is_buffered(web_server):
    sock = connect(web_server)
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ")
    sent = 0
    while not select.select([sock], [], [], 0.01)[0]:
        sock.sendall(b"a" * 4096)
        sent += 4096
        assert sent < 1 << 20, "no answer after 1 MiB of header"
    check_error(*read_answer(sock), 431, "the request head is larger than 32,768 bytes")
    assert sent < 256 << 10
    sock.close()
    sock = connect(web_server)
    sock.sendall(b"GET /" + b"a" * 40_000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    check_error(*read_answer(sock), 414, "the request line is longer than 32,768 bytes")
    sock.close()
    big = httpx.get(web_server + "health", headers={"X-Big": "a" * 20_000})  # under the limit
    assert big.status_code == 200 and big.json() == {"status": "ok"}
    for garbage in (b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" + b"\x00" * 40, b"GET / HTTP/9\r\n\r\n"):
        sock = connect(web_server)
        sock.sendall(garbage)
        check_error(*read_answer(sock), 400, "the request is not valid HTTP")
        sock.close()


def test_heads_of_many_clients_leave_others_unaffected(web_server):
    """Ten clients each trying to send 4 MiB heads, five times: each is cut off after a
    few tens of KiB, and /health stays fast meanwhile."""
    cut_off = []

    def attack() -> None:
        for _ in range(5):
            sock = connect(web_server)
            try:
                sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ")
                for _ in range(64):
                    sock.sendall(b"a" * (64 << 10))
            except OSError:
                cut_off.append(True)  # refused and closed while sending: what is wanted
            sock.close()

    threads = [threading.Thread(target=attack) for _ in range(10)]
    for thread in threads:
        thread.start()
    latencies = []
    with httpx.Client(base_url=web_server) as client:
        while any(thread.is_alive() for thread in threads) or len(latencies) < 5:
            start = time.perf_counter()
            assert client.get("/health").status_code == 200
            latencies.append(time.perf_counter() - start)
    assert len(cut_off) == 50 and max(latencies) < 0.1, (len(cut_off), latencies)


def test_slow_clients_are_timed_out(strict_server):
    timeout = STRICT["head_timeout"]
    clients = [connect(strict_server) for _ in range(4)]
    clients[1].sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")  # half a head
    clients[2].sendall(b"POST /api/v1/probe HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                       b"Content-Length: 100\r\n\r\n" + b'{"positions": [')  # a short body
    clients[3].sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")  # then idle
    start = time.perf_counter()
    assert clients[0].recv(100) == b""  # nothing sent: closed without a word
    assert timeout * 0.9 < time.perf_counter() - start < timeout + 1
    check_error(*read_answer(clients[1]), 408, f"the request head did not arrive within {timeout:g} s")
    check_error(*read_answer(clients[2]), 408, f"the request body did not arrive within {timeout:g} s")
    status, headers, body = read_answer(clients[3])  # the answer, then closed when idle
    assert status == 200 and body == b'{"status":"ok"}'
    assert time.perf_counter() - start < timeout + 1
    for sock in clients:
        sock.close()


def test_connections_past_the_cap_get_503(strict_server):
    held = []
    for _ in range(STRICT["max_connections"]):
        sock = connect(strict_server)
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")  # open, and counted
        held.append(sock)
    extra = connect(strict_server)
    extra.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
    status, headers, body = read_answer(extra)
    check_error(status, headers, body, 503, "connections open; try again shortly")
    assert headers["retry-after"] == "1"
    for sock in held:
        sock.close()
    deadline = time.monotonic() + 5
    while True:  # once the others are gone, a new connection is served
        response = httpx.get(strict_server + "health")
        if response.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert response.status_code == 200


def test_no_redirect_to_a_host_the_client_named(web_server, web_client):
    for path in ("/health/", "/api/v1/probe/", "/api/v1/info/", "/static/app.js/"):
        response = httpx.get(web_server.rstrip("/") + path, headers={"Host": "evil.example"})
        assert response.status_code == 404 and "location" not in response.headers, path
        assert response.json()["error"].startswith("no such path")
        assert response.headers["access-control-allow-origin"] == "*"


def test_every_answer_is_json_or_the_page_with_cors(web_server, web_client):
    """The rule: every answer carries Access-Control-Allow-Origin: *; every answer but
    the page's files (/, /static/*, /api/v1/docs) is JSON; the paths of the API and
    /health refuse query parameters they do not take, the page's files take any."""
    for path in ("/", "/static/app.js", "/static/style.css", "/api/v1/docs", "/api/v1/openapi.json",
                 "/health", "/?start=M_XXXXO_XXXXX_XXOXX_XXXXX_OXXXX&moves=e1-e2", "/static/app.js?v=1"):
        response = web_client.get(path)
        assert response.status_code == 200, path
        assert response.headers["access-control-allow-origin"] == "*", path
        again = web_client.get(path, headers={"If-None-Match": response.headers.get("etag", '"x"')})
        assert again.headers["access-control-allow-origin"] == "*", path
    for path in ("/health", "/api/v1/openapi.json", "/api/v1/docs", "/api/v1/info"):
        response = web_client.get(path + "?verbose=1")
        assert response.status_code == 400 and "unknown parameter 'verbose'" in response.json()["error"]
        assert response.headers["access-control-allow-origin"] == "*"
    upgrade = httpx.get(web_server + "health", headers={
        "Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
    assert upgrade.status_code == 200 and upgrade.json() == {"status": "ok"}
    assert upgrade.headers["access-control-allow-origin"] == "*"
    socket_path = httpx.get(web_server + "ws", headers={"Connection": "Upgrade", "Upgrade": "websocket"})
    assert socket_path.status_code == 404 and set(socket_path.json()) == {"error"}


@pytest.mark.skipif(not supported(), reason="shared values need Linux (memfd_create)")
def test_the_info_etag_covers_what_info_says(db4):
    with open_database(db4) as db:
        digest = db.digest
    shared = SharedValues(db4, "three-musketeers-4x4", digest)
    service = Service.open([db4], shared={str(db4): shared.path})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from starlette.testclient import TestClient

            client = TestClient(create_app(service, warm=False))
        with client:
            loading = client.get("/api/v1/info")
            assert loading.json()["boards"][0]["values"] == "disk"
            assert loading.json()["boards"][0]["loading"] is True
            tag = loading.headers["etag"]
            assert client.get("/api/v1/info", headers={"If-None-Match": tag}).status_code == 304
            fill(db4, shared.path, digest)
            deadline = time.monotonic() + 10
            while client.get("/api/v1/info").json()["boards"][0]["values"] != "memory":
                assert time.monotonic() < deadline
                time.sleep(0.05)
            loaded = client.get("/api/v1/info", headers={"If-None-Match": tag})
            assert loaded.status_code == 200 and loaded.headers["etag"] != tag
            assert loaded.json()["boards"][0]["loading"] is False
            assert loaded.headers["etag"] == service.etag
            again = client.get("/api/v1/info", headers={"If-None-Match": loaded.headers["etag"]})
            assert again.status_code == 304
    finally:
        service.close()
        shared.close()


# --- the server's processes (items 3, 10, 11, 12, 13, 14) ---------------------------------


def children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            kids += [int(k) for k in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def is_loader(pid: int) -> bool:
    try:
        return b"retro.web.loader" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def start_server(*arguments: str, cwd) -> tuple[subprocess.Popen, str, list[str]]:
    """``retro serve`` on a free port: the process, its URL, its standard error so far
    (a list that a thread keeps filling)."""
    server = subprocess.Popen([sys.executable, "-m", "retro.cli", "serve", "--port", "0", *arguments],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd)
    log: list[str] = []
    reader = threading.Thread(target=lambda: log.extend(iter(server.stderr.readline, "")), daemon=True)
    reader.start()
    server.reader = reader  # joined by stop_server
    line = server.stdout.readline()
    match = re.search(r"(http://127\.0\.0\.1:\d+/)", line)
    assert match, (line, log)
    return server, match[1], log


def ended(server: subprocess.Popen, seconds: float = 30) -> str:
    """Wait for the server to end; the rest of its standard output (its standard error
    is all in its log once this returns)."""
    server.wait(seconds)
    out = server.stdout.read()
    server.reader.join(10)
    return out


def terminated(server: subprocess.Popen) -> tuple[str, list[int]]:
    """SIGTERM to the server: the rest of its standard output, and its processes before."""
    processes = [server.pid, *children(server.pid)]
    server.send_signal(signal.SIGTERM)
    return ended(server), processes


def wait_until(condition, seconds: float = 30, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out: {what}"
        time.sleep(0.02)


def workers_of(server: subprocess.Popen) -> list[int]:
    """The server's workers: its children with its own command line (forked from it),
    alive (not the loader, not a process on its way out, whose command line is empty)."""
    def command(pid: int) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return b""

    own = command(server.pid)
    return [pid for pid in children(server.pid) if command(pid) == own and alive(pid)]


def test_workers_are_always_replaced_and_sigterm_stops_everything(db4, tmp_path):
    """2 workers: 12 workers killed one after the other are all replaced (past 10 a
    minute, each after a pause the log announces) and the server keeps answering;
    SIGTERM stops every process of the server, exit status 0, one line."""
    server, url, log = start_server("--db", str(db4), "--workers", "2", cwd=tmp_path)
    try:
        wait_until(lambda: len(workers_of(server)) == 2, what="the workers")
        with httpx.Client(base_url=url, timeout=10) as client:
            for _ in range(12):
                before = workers_of(server)
                assert len(before) == 2
                os.kill(before[0], signal.SIGKILL)
                def replaced(killed=before[0]) -> bool:
                    now = workers_of(server)
                    return len(now) == 2 and killed not in now

                wait_until(replaced, what=f"a new worker: {log}")
                assert server.poll() is None
            for _ in range(10):
                probe = client.get("/api/v1/probe", params={"position": str(Position.start(4))})
                assert probe.status_code == 200
        out, processes = terminated(server)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0, log
    assert out == "retro serve: stopped\n"  # after the URL line
    assert not any(alive(pid) for pid in processes)
    replaced = [line for line in log if "ended (killed by SIGKILL); starting another" in line]
    assert len(replaced) == 12, "".join(log)
    assert any("starting another in " in line and "restarts in the last 60 s" in line for line in replaced)
    assert "Traceback" not in "".join(log) and "could not start" not in "".join(log)


def test_one_port_one_server_and_one_database_for_its_life(db3, db4, tmp_path):
    """A second server on the port fails at once, in one line. A database replaced by
    rename while serving: every worker keeps answering from the file checked at start,
    and a worker started later refuses the new file, which stops the server, saying so."""
    served = tmp_path / "served.h5"
    shutil.copy(db4, served)
    server, url, log = start_server("--db", str(served), "--workers", "2", cwd=tmp_path)
    try:
        port = url.rstrip("/").rsplit(":", 1)[1]
        second = subprocess.run([sys.executable, "-m", "retro.cli", "serve", "--db", str(served),
                                 "--port", port], capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr == f"retro: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
        with httpx.Client(base_url=url, timeout=10) as client:
            digest = client.get("/api/v1/info").json()["boards"][0]["digest"]
            other = tmp_path / "other.h5"
            shutil.copy(db3, other)
            os.replace(other, served)  # a 3x3 database where the 4x4 one was
            for _ in range(10):
                boards = client.get("/api/v1/info").json()["boards"]
                assert [(b["size"], b["digest"]) for b in boards] == [(4, digest)]
                probe = client.get("/api/v1/probe", params={"position": str(Position.start(4))})
                assert probe.status_code == 200
        wait_until(lambda: len(workers_of(server)) == 2, what="the workers")
        os.kill(workers_of(server)[0], signal.SIGKILL)
        out = ended(server)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 2 and out == ""
    assert f"retro serve: {served} changed since the server started (its digest is not the one " \
           "checked then); restart the server to serve the new file\n" in log
    assert log[-1].startswith("retro: error: worker ") and log[-1].endswith(
        " could not start (exit status 3; the lines above say why)\n")
    assert "Traceback" not in "".join(log)


@pytest.mark.skipif(not supported(), reason="needs Linux (/proc, PR_SET_PDEATHSIG)")
def test_nothing_outlives_a_killed_server(db4, tmp_path):
    """kill -9 of a server with 2 workers: its workers and its loader die with it (the
    loader is stopped first, so only the kernel's death signal can end it)."""
    server, url, log = start_server("--db", str(db4), "--workers", "2", cwd=tmp_path)
    try:
        wait_until(lambda: any(is_loader(pid) for pid in children(server.pid)), what="the loader")
        loader = next(pid for pid in children(server.pid) if is_loader(pid))

        def niceness(pid: int) -> int:
            return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])

        wait_until(lambda: niceness(loader) == 10, what="the loader's first lines")  # past PR_SET_PDEATHSIG
        os.kill(loader, signal.SIGSTOP)
        wait_until(lambda: len(children(server.pid)) == 3, what="the workers")
        processes = children(server.pid)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(10)
        wait_until(lambda: not any(alive(pid) for pid in processes), seconds=10, what="orphans")
    finally:
        server.kill()
        for pid in children(server.pid) if server.poll() is None else []:
            os.kill(pid, signal.SIGKILL)


def test_sigterm_stops_one_worker_cleanly(db3, tmp_path):
    server, url, log = start_server("--db", str(db3), cwd=tmp_path)
    try:
        wait_until(lambda: httpx.get(url + "health").status_code == 200, what="the server")
        out, processes = terminated(server)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0 and out == "retro serve: stopped\n"  # after the URL line
    wait_until(lambda: not any(alive(pid) for pid in processes), seconds=10, what="the loader")


def test_a_signal_right_after_the_banner_stops_the_server(db_ttt, tmp_path):
    """SIGTERM or Ctrl-C at once or a moment after the banner, while the worker is still
    starting: the server stops (exit 0, one line), never keeps running."""
    for sig, delay in ((signal.SIGTERM, 0), (signal.SIGINT, 0), (signal.SIGTERM, 0.05)):
        server, url, log = start_server("--db", str(db_ttt), cwd=tmp_path)
        try:
            time.sleep(delay)
            server.send_signal(sig)
            out = ended(server, 30)
        finally:
            if server.poll() is None:
                server.kill()
        assert server.returncode == 0 and out == "retro serve: stopped\n", (sig, delay, out, log)


@pytest.mark.skipif(not supported(), reason="shared values need Linux (memfd_create)")
def test_a_killed_loader_is_logged_then_started_again_or_given_up(db4, capfd):
    from retro.web.shared import Loader

    with open_database(db4) as db:
        digest = db.digest
    shared = [SharedValues(db4, "three-musketeers-4x4", digest) for _ in range(2)]
    try:
        loader = Loader([shared[0]])
        os.kill(loader.process.pid, signal.SIGKILL)  # long before it can have loaded anything
        assert loader.wait(60) and shared[0].ready()
        err = capfd.readouterr().err
        assert "retro serve: the loader of the shared values was killed (SIGKILL) before it " \
               "finished; starting it again (1 of 2)\n" in err and "4x4.h5 loaded" in err

        service = Service.open([db4], shared={str(db4): shared[1].path})
        try:
            loader = Loader([shared[1]], retries=0)
            os.kill(loader.process.pid, signal.SIGKILL)
            assert loader.wait(60) and not shared[1].ready()
            assert "was killed (SIGKILL); after 1 attempts, answering from disk" in capfd.readouterr().err
            assert service.info()["boards"][0]["loading"] is True
            service.refresh()  # what a worker does every POLL_SECONDS
            board = service.info()["boards"][0]
            assert board["values"] == "disk" and board["loading"] is False and not service.waiting()
        finally:
            service.close()
    finally:
        for values in shared:
            values.close()


def test_two_sockets_cannot_both_listen_on_one_port():
    from retro.web.server import bind

    first = bind("127.0.0.1", 0)
    try:
        with pytest.raises(OSError):  # without listen(), SO_REUSEADDR let both bind
            bind("127.0.0.1", first.getsockname()[1])
    finally:
        first.close()


def test_start_up_edge_cases(db3, tmp_path, capsys):
    fifo = tmp_path / "pipe.h5"
    os.mkfifo(fifo)
    refused = subprocess.run([sys.executable, "-m", "retro.cli", "serve", "--db", str(fifo), "--port", "0"],
                             capture_output=True, text=True, timeout=60)  # no hang
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == f"retro: error: {fifo} is a named pipe, not a retro database file\n"
    capsys.readouterr()
    assert cli(["serve", "--db", str(db3), "--db", str(db3)]) == 2
    assert capsys.readouterr().err == f"retro: error: {db3} is given twice\n"
    link = tmp_path / "again.h5"
    link.symlink_to(db3)
    assert cli(["serve", "--db", str(db3), "--db", str(link)]) == 2
    assert capsys.readouterr().err == f"retro: error: {link} is given twice (as {db3} too)\n"
    for host, words in (("", "must be an address or a host name, not empty"),
                        ("[::1", "'[::1' is not an IPv6 address"), ("::1]", "'::1]' is not an IPv6"),
                        ("a b", "'a b' is not an address or a host name")):
        with pytest.raises(SystemExit) as stop:
            cli(["serve", "--db", str(db3), "--host", host])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1
        assert err.startswith(f"retro serve: error: argument --host: {words}"), err
    for option, value in (("--head-timeout", "0"), ("--body-timeout", "nan"), ("--keep-alive", "-1"),
                          ("--head-timeout", "1e999"), ("--max-connections", "0"),
                          ("--max-connections", "¹0")):
        with pytest.raises(SystemExit) as stop:
            cli(["serve", "--db", str(db3), option, value])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err.count("\n") == 1 and quoted(value) in err
        assert err.startswith(f"retro serve: error: argument {option}: must be a"), err
    with pytest.raises(SystemExit):
        cli(["serve", "--help"])
    usage = " ".join(capsys.readouterr().out.split())
    for words in ("--max-connections N open connections per worker; a request on one more gets 503 "
                  "(default: 500)", "(default: 10)", "(default: 30)", "(default: 5)"):
        assert words in usage, usage
    for host in ("::ffff:127.0.0.1", "[::ffff:127.0.0.1]", "[::1]", "127.0.0.2"):
        assert host_warning(host) is None, host
    assert "warning" in host_warning("::ffff:10.0.0.1")
    assert url("::1", 8000) == "http://[::1]:8000/"


def _damage_a_value(path: Path, game_name: str) -> None:
    """Rewrite one stored value through h5py: its chunk's Fletcher32 is written anew, the
    tier's SHA-256 is left as it was (the damage only a digest check sees)."""
    import h5py

    from retro import games
    from retro.db.format import dataset_path

    game = games.get(game_name)
    with h5py.File(path, "r+") as f:
        dataset = f[dataset_path(game, game.tiers()[-1])]
        values = dataset[()]
        values.flat[0] ^= 2
        dataset[...] = values


def test_a_damaged_file_is_refused_before_the_banner_and_others_are_served(db_ttt, db_3mm, tmp_path):
    """Issue 23, item 13: a damaged --db file is one error line, with no banner, however
    many workers; among the default files found, a damaged one is left out (one line
    says why) and the healthy ones are served."""
    folder = tmp_path / "dbs"
    folder.mkdir()
    shutil.copy(db_ttt, folder / "tic-tac-toe.h5")
    shutil.copy(db_3mm, folder / "three-mens-morris.h5")
    _damage_a_value(folder / "three-mens-morris.h5", "three-mens-morris")
    environment = dict(os.environ, RETRO_DB_DIR=str(folder))
    for workers in ("1", "2"):
        refused = subprocess.run([sys.executable, "-m", "retro.cli", "serve", "--port", "0",
                                  "--workers", workers, "--db", str(folder / "three-mens-morris.h5")],
                                 capture_output=True, text=True, timeout=60, env=environment)
        assert refused.returncode == 2 and refused.stdout == "", refused
        assert refused.stderr.count("\n") == 1 and "SHA-256" in refused.stderr, refused.stderr
    server = subprocess.Popen([sys.executable, "-m", "retro.cli", "serve", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=tmp_path, env=environment)
    try:
        banner = server.stdout.readline()
        assert banner.startswith("retro serve: tic-tac-toe at http://127.0.0.1:"), banner
        # SIGTERM once it answers: one sent right after the banner, while the server was
        # still starting on a loaded machine, was once lost (the server kept running; to
        # be found and mended). These tests are about the files it serves, not that race.
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", banner)[1]
        wait_until(lambda: httpx.get(url + "health").status_code == 200, what="the server")
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    finally:
        if server.poll() is None:
            server.kill()
    err = server.stderr.read()
    assert err.startswith("retro serve: not served (the other files are): "), err
    assert f"{folder / 'three-mens-morris.h5'}" in err and "Traceback" not in err
    (folder / "tic-tac-toe.h5").unlink()  # the only one left is damaged: an error
    alone = subprocess.run([sys.executable, "-m", "retro.cli", "serve", "--port", "0"],
                           capture_output=True, text=True, timeout=60, env=environment, cwd=tmp_path)
    assert alone.returncode == 2 and alone.stdout == "" and alone.stderr.count("\n") == 1


def test_a_default_file_of_another_game_is_left_out(db_ttt, db3, tmp_path):
    """Without --db, a default file that holds another game than its name says (a
    Three Musketeers 3x3 file named tic-tac-toe.h5) is left out like a damaged one,
    rather than stopping the server as a second database of a game it serves."""
    folder = tmp_path / "dbs"
    folder.mkdir()
    shutil.copy(db_ttt, folder / "tic-tac-toe.h5")
    shutil.copy(db_ttt, folder / "three-mens-morris.h5")  # tic-tac-toe under another name
    shutil.copy(db3, folder / "three-musketeers-5x5.h5")  # 3x3 where the 5x5 file goes
    server = subprocess.Popen([sys.executable, "-m", "retro.cli", "serve", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=tmp_path, env=dict(os.environ, RETRO_DB_DIR=str(folder)))
    try:
        banner = server.stdout.readline()
        assert banner.startswith("retro serve: tic-tac-toe at http://127.0.0.1:"), banner
        # SIGTERM once it answers: one sent right after the banner, while the server was
        # still starting on a loaded machine, was once lost (the server kept running; to
        # be found and mended). These tests are about the files it serves, not that race.
        url = re.search(r"(http://127\.0\.0\.1:\d+/)", banner)[1]
        wait_until(lambda: httpx.get(url + "health").status_code == 200, what="the server")
        server.send_signal(signal.SIGTERM)
        server.wait(30)
    finally:
        if server.poll() is None:
            server.kill()
    lines = [line for line in server.stderr.read().splitlines() if line.startswith("retro serve: not")]
    assert sorted(lines) == [
        f"retro serve: not served (the other files are): {folder / 'three-mens-morris.h5'} holds "
        "tic-tac-toe, not three-mens-morris",
        f"retro serve: not served (the other files are): {folder / 'three-musketeers-5x5.h5'} holds "
        "three-musketeers 3x3, not three-musketeers-5x5"], lines
