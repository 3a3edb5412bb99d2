"""The web API (retro.web): every field against the probe API and the CLI, every error
status, caching headers, a fuzz of every parameter and body, shared values, `retro serve`.

Expected values are computed here from :class:`retro.db.database.Database`,
:meth:`Position.play`, :func:`retro.play.computer_move` and ``retro probe --json``,
never copied from the server's own answers. One app and one TestClient serve the
whole module (session fixtures in conftest.py, over db3, db4 and db5_low).
"""

from __future__ import annotations

import json
import random
import re
import signal
import subprocess
import sys
import time
import warnings
from urllib.parse import quote_from_bytes

import httpx
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from retro import Position, games, open_database
from retro.cli import main as cli
from retro.play import computer_move
from retro.games.musketeers.position import Side
from retro.games.musketeers.position import parse_canonical
from retro.text import link_text, result_text
from retro.web import Service, create_app
from retro.web.server import host_warning
from retro.web.service import MAX_BATCH
from retro.web.shared import Attachment, SharedValues, fill, supported

STATUSES = {200, 304, 400, 404, 405, 413}
START5 = "M XXXXO XXXXX XXOXX XXXXX OXXXX"


@pytest.fixture(scope="module")
def dbs(db3, db4, db5_low):
    """The databases, opened by the test on its own: {size: Database}."""
    opened = {3: open_database(db3), 4: open_database(db4), 5: open_database(db5_low)}
    yield opened
    for db in opened.values():
        db.close()


def sample(dbs, count: int = 12, seed: int = 1) -> list[Position]:
    """Positions of every board: random games on 3x3 and 4x4, few-men positions on 5x5."""
    rng = random.Random(seed)
    out = []
    for size in (3, 4):
        while sum(p.size == size for p in out) < count:
            position = Position.start(size)
            while True:
                if rng.random() < 0.4:
                    out.append(position)
                moves = position.legal_moves()
                if not moves:
                    out.append(position)
                    break
                position = position.play(rng.choice(moves))
    while sum(p.size == 5 for p in out) < count:
        squares = rng.sample(range(25), 3 + rng.randint(0, dbs[5].max_enemy_men))
        musketeers = sum(1 << s for s in squares[:3])
        enemies = sum(1 << s for s in squares[3:])
        out.append(Position(rng.choice([Side.MUSKETEERS, Side.ENEMY]), musketeers, enemies, 5))
    return out


def cli_json(capsys, path, text) -> dict:
    capsys.readouterr()
    assert cli(["probe", "--db", str(path), "--json", text]) == 0
    return json.loads(capsys.readouterr().out)


def cli_error(capsys, path, text) -> str:
    """What ``retro probe`` says of ``text``: with ``--db path``, or (``path`` None) with the
    game read from the notation, as the API does when no ``game`` is given."""
    capsys.readouterr()
    assert cli(["probe", *(["--db", str(path)] if path is not None else []), text]) == 2
    return capsys.readouterr().err.strip().removeprefix("retro: error: ")


# --- answers ----------------------------------------------------------------------------


def test_probe_matches_the_database_and_the_cli(web_client, dbs, db3, db4, db5_low, capsys):
    paths = {3: db3, 4: db4, 5: db5_low}
    positions = sample(dbs)
    for i, position in enumerate(positions):
        db = dbs[position.size]
        text = str(position)
        answer = web_client.get("/api/v1/probe", params={"position": link_text(position)}).json()
        outcome, moves = db.probe(position), db.moves(position)
        assert answer["position"] == text
        assert answer["size"] == position.size
        assert answer["side"] == position.side.value
        assert (answer["winner"], answer["plies"]) == (outcome.winner.value, outcome.plies)
        assert answer["value"] == str(outcome)
        assert [(m["move"], m["winner"], m["plies"]) for m in answer["moves"]] == \
            [(str(move), after.winner.value, after.plies) for move, after in moves]
        assert [m["position"] for m in answer["moves"]] == [str(position.play(move)) for move, _ in moves]
        assert answer["over"] == position.is_over()
        assert answer["result"] == (answer["result"] if position.is_over() else result_text(position))
        if position.is_over():
            assert answer["moves"] == [] and "won" in answer["result"]
            assert ("row or column" in answer["result"]) == (position.winner() is Side.ENEMY)
        if i % 3 == 0:  # every field of `retro probe --json`, with the same values and order
            expected = cli_json(capsys, paths[position.size], text)
            assert {k: answer[k] for k in expected if k != "moves"} == \
                {k: v for k, v in expected.items() if k != "moves"}
            assert [{k: m[k] for k in ("move", "winner", "plies")} for m in answer["moves"]] == \
                expected["moves"]


def test_position_groups_by_spaces_or_underscores(web_client):
    text = "M .O. XOX .O."
    answers = [web_client.get(url).json() for url in (
        "/api/v1/probe?position=M_.O._XOX_.O.",
        "/api/v1/probe?position=M%20.O.%20XOX%20.O.",
        "/api/v1/probe?position=M+.O.+XOX+.O.",
        "/api/v1/probe?position=%20M_.O.__XOX_.O.%20",
    )]
    assert all(a == answers[0] for a in answers)
    assert answers[0]["position"] == text


def test_line_matches_the_database(web_client, dbs):
    for position in sample(dbs, count=4, seed=2):
        db = dbs[position.size]
        answer = web_client.get("/api/v1/line", params={"position": str(position)}).json()
        outcome = db.probe(position)
        assert (answer["position"], answer["winner"], answer["plies"]) == \
            (str(position), outcome.winner.value, outcome.plies)
        here = position
        line = db.line(position)
        assert [step["move"] for step in answer["line"]] == [str(m) for m in line]
        for step, move in zip(answer["line"], line):
            here = here.play(move)
            after = db.probe(here)
            assert (step["position"], step["winner"], step["plies"]) == \
                (str(here), after.winner.value, after.plies)
        assert len(answer["line"]) == outcome.plies


def test_play_is_the_computer_move_of_retro_play(web_client, dbs):
    checked_losing = 0
    for position in sample(dbs, count=8, seed=3):
        if position.is_over():
            response = web_client.get("/api/v1/play", params={"position": str(position), "seed": 1})
            assert response.status_code == 400
            assert "the game is over" in response.json()["error"]
            continue
        db = dbs[position.size]
        checked_losing += db.probe(position).winner is not position.side
        for seed in (0, 1, 7, 2**64 - 1):
            answer = web_client.get("/api/v1/play", params={"position": str(position), "seed": seed}).json()
            move = computer_move(db, position, rng=seed)
            after = position.play(move)
            assert answer == {"move": str(move), "position": str(after),
                              "winner": db.probe(after).winner.value, "plies": db.probe(after).plies,
                              "board": db.game.file_stem}  # the board that answered
    assert checked_losing > 0  # the swindle choice was exercised too
    start = Position.start(4)
    best = {str(move) for move, _ in dbs[4].best_moves(start)}
    unseeded = web_client.get("/api/v1/play", params={"position": str(start)})
    assert unseeded.json()["move"] in best  # the musketeers win the 4x4 start: a fastest win
    assert unseeded.headers["cache-control"] == "no-cache"
    assert unseeded.headers["etag"].startswith('W/"')


def test_batch_matches_the_database_and_keeps_going(web_client, dbs):
    positions = sample(dbs, count=20, seed=4)
    items = [str(p) if i % 2 else link_text(p) for i, p in enumerate(positions)]
    bad = ["", "M", 17, None, ["M .O. XOX .O."], {"p": 1}, "M XXXXO XXXXX XXOXX XXXXX OXXXX",
           "E .O. XOX ...", "M  .O.   XOX .O.", "Q OOO ... ...", "M OO. X.. ..O" + "." * 200]
    items += bad
    response = web_client.post("/api/v1/probe", json={"positions": items})
    assert response.status_code == 200
    results = response.json()["results"]
    assert len(results) == len(items)
    for position, result in zip(positions, results):
        outcome = dbs[position.size].probe(position)
        assert result == {"position": str(position), "winner": outcome.winner.value, "plies": outcome.plies}
    tail = results[len(positions):]
    for item, result in zip(bad, tail):
        if item == "M  .O.   XOX .O.":  # other spacing: still a position
            outcome = dbs[3].probe(Position.parse(item))
            assert result == {"position": "M .O. XOX .O.", "winner": outcome.winner.value,
                              "plies": outcome.plies}
            continue
        assert set(result) == {"position", "error"} and result["position"] == item
    errors = {item if isinstance(item, str) else json.dumps(item): r["error"] for item, r in zip(bad, tail)
              if "error" in r}
    assert errors["E .O. XOX ..."] == "the position has 2 musketeers, it needs exactly 3"
    assert errors["17"] == "a position must be text, not a number"
    assert "22 enemy men" in errors[START5] and "0..4" in errors[START5]
    # Rows of 3 of O and .: Three Musketeers' 3x3 board and tic-tac-toe alike.
    assert errors["Q OOO ... ..."] == ("unknown side to move 'Q': expected M or E (Three Musketeers), "
                                       "X or O (tic-tac-toe)")


def test_batch_canonical_parser_agrees_with_position_parse(dbs):
    positions = sample(dbs, count=30, seed=5)
    texts = [str(p) for p in positions] + ["M OOO XXX ...", "E O.O X.X .O.", "M XXXXO XXXXX XXOXX XXXXX OXXXO",
                                           "M  .O. XOX .O.", "m .O. XOX .O.", None, "E ... ... ...",
                                           "M .O. XOX .Oé", "M .O._XOX .O."]
    for size, (index, side, musketeers, enemies, men) in parse_canonical(texts).items():
        for i, s, m, e, k in zip(index, side, musketeers, enemies, men):
            p = Position.parse(texts[i])
            assert (p.size, p.side.code, p.musketeers, p.enemies, p.enemy_count) == (size, s, m, e, k)
            assert str(p) == texts[i]
    found = {int(i) for index, *_ in parse_canonical(texts).values() for i in index}
    assert found == set(range(len(positions) + 2))  # only the canonical positions


def test_info_health_docs_and_page(web_client, dbs, db3, db4, db5_low, db_ttt, db_3mm, db_6mm):
    info = web_client.get("/api/v1/info")
    body = info.text
    for path in (db3, db4, db5_low, db_ttt, db_3mm, db_6mm):
        assert str(path) not in body and path.name not in body and str(path.parent) not in body
    data = info.json()
    assert data["retro_version"] and [b["key"] for b in data["boards"]] == [
        "three-musketeers-3x3", "three-musketeers-4x4", "three-musketeers-5x5", "tic-tac-toe",
        "three-mens-morris", "six-mens-morris", "four-player-race"]
    race = data["boards"][6]
    assert [s["name"] for s in race["sides"]] == ["P1", "P2", "P3", "P4"] and race["start"] == "P1 a1 d1 d4 a4"
    assert race["geometry"]["writes"] == "squares" and race["geometry"]["goals"]["P1"] == "d4"
    others = data["boards"][3:6]
    assert [b["geometry"]["kind"] for b in others] == ["grid", "points", "points"]
    assert [b["start"] for b in others] == ["X ... ... ...", "W 3 3 ... ... ...", "W 6 6 ... ... .... ... ..."]
    assert [b["positions"] for b in others] == [5890, 5686, 70_967_891]
    six = others[2]
    assert [p["name"] for p in six["geometry"]["points"]] == [
        "a1", "c1", "e1", "b2", "c2", "d2", "a3", "b3", "d3", "e3", "b4", "c4", "d4", "a5", "c5", "e5"]
    assert len(six["geometry"]["lines"]) == 20 and len(six["geometry"]["mills"]) == 8
    assert [s["name"] for s in six["sides"]] == ["white", "black"]
    for board in data["boards"][:3]:
        db = dbs[board["size"]]
        assert board["max_enemy_men"] == db.max_enemy_men
        assert board["format_version"] == db.metadata["format_version"]
        assert board["built"] == db.metadata["created"]
        assert re.fullmatch(r"[0-9a-f]{64}", board["digest"])
        table = sum(int(np.prod(ds.shape)) for ds in db._datasets)
        assert board["positions"] == 2 * table
    assert data["boards"][2]["start"] is None  # the 5x5 endgame database lacks the start
    assert data["boards"][1]["start"] == str(Position.start(4))
    assert web_client.get("/health").json() == {"status": "ok"}
    spec = web_client.get("/api/v1/openapi.json").json()
    assert {"/api/v1/probe", "/api/v1/line", "/api/v1/play", "/api/v1/info"} <= set(spec["paths"])
    for page in ("/", "/api/v1/docs"):
        text = web_client.get(page).text
        # Nothing loaded from elsewhere (scripts, styles, images); plain links may leave.
        assert "<html" in text and not re.search(r"""(src|<link[^>]*href)=["']?(https?:)?//""", text)
    page = web_client.get("/").text
    # Every script and style, and every module the scripts import, by content tag.
    assets = re.findall(r'"(static/[^"]+\.(?:js|css)(?:\?[^"]*)?)"', page)
    checked = set()
    while assets:
        asset = assets.pop()
        if asset in checked:
            continue
        checked.add(asset)
        response = web_client.get("/" + asset)
        assert response.status_code == 200 and "http://" not in response.text.replace(
            "http://www.w3.org/2000/svg", "")
        assert "immutable" in response.headers["cache-control"] and "?v=" in asset
        assets += ["static/" + name for name in
                   re.findall(r"""(?:from|import)\s*\(?\s*['"]\./([^'"]+)['"]""", response.text)]
    assert {a.split("?")[0] for a in checked} >= {"static/app.js", "static/api.js", "static/board.js",
                                                   "static/chart.js", "static/style.css"}
    readme = web_client.get("/static/README.md")  # a document: served as text, revalidated
    assert readme.status_code == 200 and readme.headers["content-type"].startswith("text/plain")


# --- errors -----------------------------------------------------------------------------


def test_bad_input_is_400_in_the_cli_words(web_client, db4, capsys):
    for text in ("M OOO", "X .O. XOX .O.", "M .O. XOX .OQ", "M OO.. XXXX XXXX XXXX", "M XXXX XXXX XXXX OOOO",
                 "M .... .... .... ...."):
        response = web_client.get("/api/v1/probe", params={"position": text})
        assert response.status_code == 400
        assert response.json() == {"error": cli_error(capsys, None, text)}
        assert response.headers["access-control-allow-origin"] == "*"
    for url, words in [
        ("/api/v1/probe", "missing parameter 'position'"),
        ("/api/v1/probe?position=M_.O._XOX_.O.&x=1", "unknown parameter 'x'"),
        ("/api/v1/probe?position=M_.O._XOX_.O.&position=M_.O._XOX_.O.", "more than once"),
        ("/api/v1/play?position=M_.O._XOX_.O.&seed=-1", "seed must be a whole number"),
        ("/api/v1/play?position=M_.O._XOX_.O.&seed=18446744073709551616", "seed must be"),
        ("/api/v1/play?position=M_.O._XOX_.O.&seed=1e3", "seed must be"),
        ("/api/v1/probe?position=" + "M" * 101, "at most 100 characters"),
        ("/api/v1/probe?position=" + "x" * 5000, "query string is too long"),
        ("/api/v1/info?verbose=1", "unknown parameter"),
        ("/api/v1/line?position=%FF%FE", "unknown"),
    ]:
        response = web_client.get(url)
        assert response.status_code == 400, url
        assert words in response.json()["error"], (url, response.json())


def test_not_served_is_404(web_client, db3):
    for url in ("/nowhere", "/api/v2/probe", "/static/secret.txt", "/api/v1/probe/extra"):
        response = web_client.get(url)
        assert response.status_code == 404 and set(response.json()) == {"error"}
    too_many = web_client.get("/api/v1/probe", params={"position": START5})
    assert too_many.status_code == 404
    assert too_many.json()["error"] == ("the position has 22 enemy men; the 5x5 database served "
                                        "here holds positions with 0..4 enemy men")
    only3 = Service.open([db3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

        client = TestClient(create_app(only3, warm=False))
    response = client.get("/api/v1/probe", params={"position": str(Position.start(4))})
    assert response.status_code == 404
    # The board it needs as `retro games` names it; those served by the keys the API takes.
    assert response.json() == {"error": f"no {games.musketeers_board(4).full_name} database is served "
                                        f"here (boards served: {only3.info()['boards'][0]['key']})"}
    unknown = client.get("/api/v1/probe", params={"position": str(Position.start(3)), "game": "go"})
    assert unknown.status_code == 400
    assert unknown.json()["error"].endswith(f"(boards served: {games.musketeers_board(3).file_stem})")
    only3.close()


def test_wrong_method_is_405_and_too_large_is_413(web_client):
    for method, url in (("PUT", "/api/v1/probe"), ("DELETE", "/api/v1/info"), ("POST", "/api/v1/line"),
                        ("POST", "/health"), ("PATCH", "/")):
        response = web_client.request(method, url)
        assert response.status_code == 405, (method, url)
        assert "not allowed" in response.json()["error"] and response.headers["allow"]
    many = web_client.post("/api/v1/probe", json={"positions": ["M .O. XOX .O."] * (MAX_BATCH + 1)})
    assert many.status_code == 413 and "10,000" in many.json()["error"]
    big = web_client.post("/api/v1/probe", content=b'{"positions": ["' + b"M" * (1 << 20) + b'"]}')
    assert big.status_code == 413 and "1,048,576 bytes" in big.json()["error"]

    def chunks():  # no Content-Length: the body is refused as it arrives
        for _ in range(40):
            yield b" " * 32768

    streamed = web_client.post("/api/v1/probe", content=chunks())
    assert streamed.status_code == 413
    exactly = web_client.post("/api/v1/probe", json={"positions": ["M .O. XOX .O."] * MAX_BATCH})
    assert exactly.status_code == 200 and len(exactly.json()["results"]) == MAX_BATCH
    for body in (b"", b"[1, 2]", b'"x"', b"{", b"\xff\xfe\x00", b'{"positions": 5}', b'{"positions": [], "x": 1}',
                 b"[" * 100_000, b'{"positions": {"a": 1}}', b'{"positions": [NaN]}', b'{"positions": [-Infinity]}'):
        response = web_client.post("/api/v1/probe", content=body)
        assert response.status_code == 400, body[:20]
        assert set(response.json()) == {"error"}
    assert web_client.get("/health").status_code == 200


def test_etag_cache_control_and_cors(web_client, web_service):
    url = "/api/v1/probe?position=M_.O._XOX_.O."
    first = web_client.get(url)
    etag = first.headers["etag"]
    assert etag == web_service.etag and first.headers["cache-control"].startswith("public, max-age=")
    assert first.headers["access-control-allow-origin"] == "*"
    for header in (etag, "W/" + etag, f'"other", {etag}', "*"):
        again = web_client.get(url, headers={"If-None-Match": header})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert web_client.get(url, headers={"If-None-Match": '"other"'}).status_code == 200
    for other in ("/api/v1/line?position=M_.O._XOX_.O.", "/api/v1/play?position=M_.O._XOX_O..&seed=3",
                  "/api/v1/info"):
        response = web_client.get(other, headers={"If-None-Match": etag})
        assert response.status_code == 304, other
    bad = web_client.get("/api/v1/probe?position=bad", headers={"If-None-Match": etag})
    assert bad.status_code == 400 and bad.headers["cache-control"] == "no-store"
    preflight = web_client.options("/api/v1/probe")
    assert preflight.status_code == 204 and "POST" in preflight.headers["access-control-allow-methods"]
    # The digest comes from the layers' SHA-256: another database, another ETag.
    assert len({board.digest for board in web_service.boards.values()}) == len(web_service.boards)


# --- fuzz ---------------------------------------------------------------------------------


FUZZ = settings(max_examples=120, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                        HealthCheck.too_slow], deadline=None)
PATHS = ["/api/v1/probe", "/api/v1/line", "/api/v1/play", "/api/v1/info", "/health", "/",
         "/api/v1/openapi.json", "/static/app.js"]
texts = st.one_of(st.text(max_size=60), st.text(alphabet="MEOX._ \t+%", max_size=40),
                  st.sampled_from(["M .O. XOX .O.", "E OOO ... ...", START5, "M_OOOO_...._...._....",
                                   "M XO.. .... .O.. ..O."]))


def check_answer(response, paths) -> None:
    assert response.status_code in STATUSES, (response.status_code, response.text[:200])
    if response.status_code != 304 and response.request.method != "HEAD":
        if response.headers["content-type"].startswith("application/json"):
            data = response.json()
            if response.status_code >= 400:
                assert set(data) == {"error"} and "\n" not in data["error"]
        else:
            assert response.status_code == 200 and response.request.url.path in ("/", "/static/app.js")
    text = response.text
    assert "Traceback" not in text and not any(p in text for p in paths)


@FUZZ
@given(path=st.sampled_from(PATHS), params=st.lists(st.tuples(
    st.sampled_from(["position", "seed", "x", "Position", ""]), texts), max_size=3),
    method=st.sampled_from(["GET", "GET", "HEAD", "POST", "PUT", "OPTIONS"]))
def test_fuzz_parameters(web_client, web_app, db3, db4, db5_low, path, params, method):
    response = web_client.request(method, path, params=params)
    if method == "OPTIONS" and response.status_code == 204:
        return
    check_answer(response, [str(db3), str(db4), str(db5_low)])
    assert web_app.state.unexpected_errors == 0


@FUZZ
@given(raw=st.binary(max_size=300), path=st.sampled_from(PATHS + ["/api/v1/probe"] * 4))
def test_fuzz_raw_query_and_body(web_client, web_app, db3, db4, db5_low, raw, path):
    query = web_client.get(path + "?" + quote_from_bytes(raw, safe="=&+_"))  # bad UTF-8 too
    check_answer(query, [str(db3), str(db4), str(db5_low)])
    body = web_client.post("/api/v1/probe", content=raw)
    check_answer(body, [str(db3), str(db4), str(db5_low)])
    assert web_app.state.unexpected_errors == 0


@FUZZ
@given(items=st.lists(st.one_of(texts, st.integers(), st.none(), st.floats(allow_nan=False, allow_infinity=False),
                                st.lists(st.integers(), max_size=2), st.booleans()), max_size=20),
       extra=st.dictionaries(st.text(max_size=5), st.integers(), max_size=1))
def test_fuzz_batch_bodies(web_client, web_app, dbs, items, extra):
    response = web_client.post("/api/v1/probe", json={"positions": items, **extra})
    check_answer(response, [str(db.path) for db in dbs.values()])
    if extra and set(extra) != {"positions"}:
        assert response.status_code == 400
        return
    results = response.json()["results"]
    assert len(results) == len(items)
    for item, result in zip(items, results):
        if "error" in result:
            continue
        position = Position.parse(item.replace("_", " "))
        outcome = dbs[position.size].probe(position)
        assert result == {"position": str(position), "winner": outcome.winner.value, "plies": outcome.plies}
    assert web_app.state.unexpected_errors == 0


# --- shared values and `retro serve` ---------------------------------------------------------


@pytest.mark.skipif(not supported(), reason="shared values need Linux (memfd_create)")
def test_shared_values_answer_like_the_file(db4):
    with open_database(db4) as db:
        digest = db.digest
    shared = SharedValues(db4, "three-musketeers-4x4", digest)
    try:
        attachment = Attachment(shared.path, shared.nbytes, digest)
        assert attachment.poll() is None  # not loaded yet
        fill(db4, shared.path, digest)
        values = attachment.poll()
        assert values is not None and len(values) == shared.nbytes
        with open_database(db4) as on_disk, open_database(db4, in_memory=True) as loaded:
            on_disk.attach(values)
            assert on_disk.in_memory
            rng = np.random.default_rng(0)
            squares = rng.random((2000, 16)).argsort(axis=1)
            musketeers = (1 << squares[:, :3]).sum(axis=1)
            enemies = ((rng.random((2000, 16)) < 0.5) * (1 << np.arange(16))).sum(axis=1) & ~musketeers
            sides = rng.integers(0, 2, 2000)
            batch = (sides, musketeers, enemies)
            assert all((a == b).all() for a, b in zip(on_disk.probe_many(batch), loaded.probe_many(batch)))
        wrong = Attachment(shared.path, shared.nbytes, "0" * 64)
        assert wrong.poll() is None  # values of another database are never used
    finally:
        shared.close()


def test_host_warning():
    assert host_warning("127.0.0.1") is None and host_warning("::1") is None
    assert host_warning("localhost") is None and host_warning("127.0.0.2") is None
    for host in ("0.0.0.0", "::", "192.168.1.5", "example.org"):
        assert "warning" in host_warning(host) and host in host_warning(host)


def test_serve_without_a_database_exits_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli(["serve"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and err.startswith("retro: error: no database found (looked in ")
    assert "--db" in err and "RETRO_DB_DIR" in err
    assert "retro build" in err
    assert cli(["serve", "--db", str(tmp_path / "missing.h5")]) == 2
    assert "retro build" in capsys.readouterr().err


def test_retro_serve_runs_shares_and_stops(db3, db4, tmp_path):
    """`retro serve` with 2 workers: the URL, the answers, shared values, Ctrl-C."""
    command = [sys.executable, "-m", "retro.cli", "serve", "--db", str(db3), "--db", str(db4),
               "--port", "0", "--workers", "2"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=tmp_path)
    try:
        line = server.stdout.readline()
        match = re.search(r"(http://127\.0\.0\.1:(\d+)/)", line)
        keys = ", ".join(games.musketeers_board(n).file_stem for n in (3, 4))  # as the API names them
        assert match and line.startswith(f"retro serve: {keys} at "), line
        url = match[1]
        deadline = time.monotonic() + 60
        with httpx.Client(base_url=url, timeout=5) as client:
            while True:
                try:
                    info = client.get("/api/v1/info").json()
                    if supported() and not all(b["values"] == "memory" for b in info["boards"]):
                        raise httpx.TransportError("not loaded yet")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline and server.poll() is None
                    time.sleep(0.1)
            answer = client.get("/api/v1/probe", params={"position": str(Position.start(4))}).json()
            with open_database(db4) as db:
                assert answer["plies"] == db.probe(Position.start(4)).plies
            assert str(db3) not in json.dumps(info)
    finally:
        server.send_signal(signal.SIGINT)
        try:
            out, err = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            raise
    assert server.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


def every_position(size: int):
    """Every position of a board: each side, each set of 3 musketeers, each enemy set."""
    from itertools import combinations

    squares = size * size
    for side in Side:
        for trio in combinations(range(squares), 3):
            musketeers = sum(1 << s for s in trio)
            free = [s for s in range(squares) if s not in trio]
            for mask in range(1 << len(free)):
                enemies = sum(1 << s for i, s in enumerate(free) if mask >> i & 1)
                yield Position(side, musketeers, enemies, size)


def random_positions(size: int, count: int, seed: int) -> list[Position]:
    """Random positions of a board: each side, 3 musketeers, each other square an enemy
    man with probability 1/2."""
    rng = random.Random(seed)
    squares = size * size
    out = []
    while len(out) < count:
        trio = rng.sample(range(squares), 3)
        enemies = sum(1 << s for s in range(squares) if s not in trio and rng.random() < 0.5)
        out.append(Position(rng.choice(list(Side)), sum(1 << s for s in trio), enemies, size))
    return out


@pytest.mark.parametrize("in_memory", [False, True])
def test_the_fast_probe_answer_is_the_probe_json(db3, db4, in_memory):
    """The server's jitted probe answer (Database.probe_rows, text.probe_answer_bytes)
    is byte for byte the JSON of text.probe_answer over Database.probe and children:
    every 3x3 position, and random 4x4 ones, from memory and from disk."""
    from retro.text import probe_answer, probe_answer_bytes

    random4 = random_positions(4, 3000, seed=3)
    for path, positions in ((db3, list(every_position(3))), (db4, random4)):
        with open_database(path, in_memory=in_memory) as db:
            for position in positions:
                expected = json.dumps(probe_answer(position, db.probe(position), db.children(position)),
                                      separators=(",", ":")).encode()
                assert probe_answer_bytes(position, *db.probe_rows(position)) == expected, position


# --- every game -----------------------------------------------------------------------------


@pytest.mark.parametrize("name, texts", [
    ("tic-tac-toe", ["X ... ... ...", "O X.. ... ...", "X XO. ... ...", "O XOX XOO OXX"]),
    ("three-mens-morris", ["W 3 3 ... ... ...", "W 0 0 WW. W.B .BB", "B 0 0 WW. WBB B.."]),
    ("six-mens-morris", ["W 6 6 ... ... .... ... ...", "W 0 0 WW. ... W... ... BBB",
                         "W 1 1 WW. B.. .... B.. B.."]),
])
def test_every_game_answers_like_the_cli(web_client, capsys, db_ttt, db_3mm, db_6mm, name, texts):
    path = {"tic-tac-toe": db_ttt, "three-mens-morris": db_3mm, "six-mens-morris": db_6mm}[name]
    with open_database(path) as db:
        for text in texts:
            answer = web_client.get("/api/v1/probe", params={"position": text.replace(" ", "_")}).json()
            expected = cli_json(capsys, path, text)
            assert answer["game"] == expected["game"] == name
            assert {k: answer[k] for k in ("position", "winner", "plies")} == {
                k: expected[k] for k in ("position", "winner", "plies")}
            assert [(m["move"], m["winner"], m["plies"]) for m in answer["moves"]] == [
                (m["move"], m["winner"], m["plies"]) for m in expected["moves"]]
            position = db.game.parse(text)
            assert [m["position"] for m in answer["moves"]] == [str(position.play(m["move"]))
                                                               for m in answer["moves"]]
            assert answer["value"] == str(db.probe(text)) and answer["over"] == position.is_over()
            if position.is_over():
                assert answer["result"] == db.game.finished_reason(position)
            line = web_client.get("/api/v1/line", params={"position": text}).json()
            assert [step["move"] for step in line["line"]] == [str(m) for m in db.line(text)]
            if not position.is_over():
                played = web_client.get("/api/v1/play", params={"position": text, "seed": "4"}).json()
                assert played["move"] == str(computer_move(db, position, rng=4))
        batch = web_client.post("/api/v1/probe", json={"positions": texts + ["W 9 9 bad"]}).json()
        assert [r.get("winner", "error") for r in batch["results"][:-1]] == [
            db.probe(t).as_dict()["winner"] for t in texts]
        assert "error" in batch["results"][-1]


def test_the_game_parameter_picks_a_notation(web_client):
    # Three men's morris with the diagonals writes its positions as the plain game does.
    answer = web_client.get("/api/v1/probe", params={"position": "W 3 3 ... ... ...",
                                                     "game": "three-mens-morris-diagonal"})
    assert answer.status_code == 404 and "three-mens-morris-diagonal" in answer.json()["error"]
    plain = web_client.get("/api/v1/probe", params={"position": "W 3 3 ... ... ...",
                                                    "game": "three-mens-morris"})
    assert plain.status_code == 200 and plain.json()["game"] == "three-mens-morris"
    unknown = web_client.get("/api/v1/probe", params={"position": "W 3 3 ... ... ...", "game": "go"})
    assert unknown.status_code == 400 and "unknown game 'go'" in unknown.json()["error"]
    # It lists the boards the game parameter (and the page's links) take: every key of info.
    served = unknown.json()["error"].rsplit("(boards served: ", 1)[1].rstrip(")")
    keys = [board["key"] for board in web_client.get("/api/v1/info").json()["boards"]]
    assert [name.split(" (")[0] for name in served.split(", ")] == keys
    mixed = web_client.post("/api/v1/probe", json={"positions": ["X ... ... ...", START5]}).json()
    assert mixed["results"][0]["winner"] is None and "error" in mixed["results"][1]  # 5x5: no start here


def test_a_line_marks_the_finishing_line_of_its_steps(web_client):
    # X to move with a1 and b1 marked: c1 wins at once, along row 1.
    answer = web_client.get("/api/v1/line", params={"position": "X XX. OO. ..."}).json()
    assert [step["move"] for step in answer["line"]] == ["c1"]
    assert answer["line"][-1]["lines"] == [{"side": "X", "points": ["a1", "b1", "c1"]}]
    answer = web_client.get("/api/v1/line", params={"position": "M .O. XOX .O."}).json()
    assert all(("lines" in step) == (step is answer["line"][-1] and step["winner"] == "enemy"
                                     and step["plies"] == 0) for step in answer["line"])


def test_bad_digits_in_the_hands_are_a_400_and_one_error_in_a_batch(web_client):
    message = "White's pieces in hand must be a number from 0 to 6 in the digits 0-9, not '²'"
    answer = web_client.get("/api/v1/probe", params={"position": "W ² 6 ... ... .... ... ..."})
    assert answer.status_code == 400 and answer.json() == {"error": message}
    batch = web_client.post("/api/v1/probe", json={"positions": [
        "W ² 6 ... ... .... ... ...", "W ٣ 3 ... ... ...", "W 6 6 ... ... .... ... ..."]})
    assert batch.status_code == 200
    results = batch.json()["results"]
    assert results[0] == {"position": "W ² 6 ... ... .... ... ...", "error": message}
    assert "not '٣'" in results[1]["error"] and "winner" in results[2]
