"""`retro serve` in the open (issue 17): what a careless client, an attacker or an
operator can do to the server, each case against a live server where it needs one.

Most cases share the session's live server (``web_server``, conftest.py) or one live
server of this module with short limits (``strict_server``); only what needs a real
process (signals, workers, the loader, two servers on one port) starts ``retro serve``.
"""

from __future__ import annotations

import json
import threading
import time

import httpx
import pytest

from retro import Position
from retro.cli import main as cli
from retro.errors import quoted
from retro.web import Service

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
