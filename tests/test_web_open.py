"""`retro serve` in the open (issue 17): what a careless client, an attacker or an
operator can do to the server, each case against a live server where it needs one.

Most cases share the session's live server (``web_server``, conftest.py) or one live
server of this module with short limits (``strict_server``); only what needs a real
process (signals, workers, the loader, two servers on one port) starts ``retro serve``.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
import warnings

import httpx
import pytest

from retro import open_database
from retro.cli import main as cli
from retro.errors import quoted
from retro.web import Service, create_app
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
    from tests.test_web_api import every_position

    positions = [p for i, p in enumerate(every_position(4)) if i % 97 == 0][:3000]
    reads, bodies = [], []
    for texts in ([str(p) for p in positions], [str(p).replace(" ", "  ", 1) for p in positions],
                  [str(p).replace(" ", "\t_ ") for p in positions]):
        service = Service.open([db4])
        try:
            bodies.append(json.loads(service.batch(texts)))
            reads.append(service.boards[4].batch_db().chunk_reads)
        finally:
            service.close()
    assert reads[0] == reads[1] == reads[2] > 0
    assert bodies[0] == bodies[1] == bodies[2]
    assert [r["position"] for r in bodies[0]["results"]] == [str(p) for p in positions]


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
    assert max(z - a for a, z in pings) < 0.1, sorted(z - a for a, z in pings)[-5:]


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
    shared = SharedValues(db4, 4, digest)
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
