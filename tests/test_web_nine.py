"""Nine men's morris on `retro serve`: the API (and, with Chromium, the page) over the
3-piece database, and two variants of the game served at once.

The variants of nine men's morris write their positions alike (only the pieces tell
them apart), so the server keys each database by its board's key
(``nine-mens-morris-3``), which the ``game`` parameter may name; a game named without
its variant, or no game, is answered by the served variant whose positions include
the position. Expected values come from :func:`retro.open_database`, the rules
(:meth:`Position.play`), :func:`retro.play.computer_move` and the CLI, never from the
server's own answers.
"""

from __future__ import annotations

import warnings

import pytest

from retro import games, open_database
from retro.cli import main as cli
from retro.engine.build import build
from retro.errors import PositionError
from retro.play import computer_move
from retro.web import Service, create_app

NINE = "nine-mens-morris"
KEY = "nine-mens-morris-3"
START = "W 3 3 ... ... ... ...... ... ... ..."
START9 = "W 9 9 ... ... ... ...... ... ... ..."
MILL = "W 1 1 WW. ... ... ...B.. ... ... ..B"  # g1 closes a1-d1-g1: remove e4 or g7
MOVING = "W 0 0 WWW ... ... ...... ... ... BBB"  # in the 3-piece game and in 4,3


def client_of(*paths):
    """A TestClient of a server over ``paths`` (its lifespan run: the kernels warmed)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette's notice about httpx versions
        from starlette.testclient import TestClient

        return TestClient(create_app(Service.open(list(paths)), close=True),
                          raise_server_exceptions=False)


@pytest.fixture(scope="module")
def nine3(db_9mm3):
    """The 3-piece database (conftest: ``build("nine-mens-morris", ..., variant="3")``,
    once per session), opened here."""
    with open_database(db_9mm3) as db:
        yield db


@pytest.fixture(scope="module")
def client(db_9mm3):
    with client_of(db_9mm3) as c:
        yield c
        assert c.app.state.unexpected_errors == 0  # nothing answered as a hidden exception


def get(client, path, **params):
    """A GET of the API, the position's groups joined by ``_`` (as links write them)."""
    if "position" in params:
        params["position"] = params["position"].replace(" ", "_")
    return client.get(f"/api/v1/{path}", params=params)


def cli_error(capsys, path, text) -> str:
    """What ``retro probe --db PATH TEXT`` says is wrong with ``text``."""
    capsys.readouterr()
    assert cli(["probe", "--db", str(path), text]) != 0
    return capsys.readouterr().err.strip().removeprefix("retro: error: ")


def test_info_names_the_game_and_its_variant(client, nine3):
    info = client.get("/api/v1/info").json()
    assert len(info["boards"]) == 1
    board = info["boards"][0]
    game = games.get(NINE, "3")
    assert nine3.game is game
    assert {k: board[k] for k in ("key", "game", "variant", "full_name", "title", "short_name",
                                  "label", "start", "holds", "positions")} == {
        "key": KEY, "game": NINE, "variant": "3", "full_name": "nine-mens-morris 3",
        "title": "Nine men's morris", "short_name": "Nine men's morris with 3 pieces",
        "label": "Nine men's morris with 3 pieces", "start": START, "holds": None,
        "positions": game.positions(nine3.tiers)}
    assert board["geometry"] == game.geometry()
    assert len(board["geometry"]["points"]) == 24 and len(board["geometry"]["mills"]) == 16
    assert [side["name"] for side in board["sides"]] == ["white", "black"]


def test_the_start_as_the_database_says(client, nine3):
    start = nine3.game.start()
    outcome = nine3.probe(start)
    answer = get(client, "probe", position=START)
    assert answer.status_code == 200
    body = answer.json()
    assert {k: body[k] for k in ("position", "game", "side", "winner", "plies", "value", "over")} == {
        "position": START, "game": "nine-mens-morris 3", "side": "white", **outcome.as_dict(),
        "value": str(outcome), "over": False}
    assert [(m["move"], m["position"], m["winner"], m["plies"]) for m in body["moves"]] == [
        (str(move), str(after), value.as_dict()["winner"], value.as_dict()["plies"])
        for move, after, value in nine3.children(start)]
    assert len(body["moves"]) == 24  # a placement on any point
    # The game named in any way gives the same answer.
    for game in (KEY, NINE, "nine-mens-morris 3"):
        assert get(client, "probe", position=START, game=game).json() == body
    batch = client.post("/api/v1/probe", json={"positions": [START]}).json()
    assert batch == {"results": [{"position": START, **outcome.as_dict()}]}


def test_a_move_that_removes_a_piece(client, nine3):
    position = nine3.game.parse(MILL)
    body = get(client, "probe", position=MILL, game=KEY).json()
    removals = [m for m in body["moves"] if "x" in m["move"]]
    assert {m["move"] for m in removals} == {"g1xe4", "g1xg7"}
    for m in body["moves"]:
        after = position.play(m["move"])
        assert m["position"] == str(after)
        assert (m["winner"], m["plies"]) == tuple(nine3.probe(after).as_dict().values())
    after = position.play("g1xe4")
    ended = get(client, "probe", position=str(after), game=KEY).json()
    assert ended["over"] and ended["moves"] == [] and ended["winner"] == "white" and ended["plies"] == 0
    assert ended["result"] == nine3.game.finished_reason(after)
    assert ended["lines"] == [{"side": "white", "points": ["a1", "d1", "g1"]}]  # the mill
    played = get(client, "play", position=MILL, seed="5", game=KEY).json()
    assert played["move"] == str(computer_move(nine3, position, rng=5))
    line = get(client, "line", position=MILL, game=KEY).json()
    assert [step["move"] for step in line["line"]] == [str(m) for m in nine3.line(position)]


@pytest.mark.parametrize("text", [
    "W 3 3 ... ... ... ...... ... ... Q..",  # an unknown character
    "B 3 3 ... ... ... ...... ... ... ...",  # not Black's move
    "W 3 3 W.. ... ... ...... ... ... ...",  # 4 white pieces, board and hand
    "W x 3 ... ... ... ...... ... ... ...",  # a hand that is no number
    "W 3 3 ... ... ... ...... ... ...",  # a row short
])
def test_a_bad_position_is_a_400_in_the_cli_words(client, capsys, db_9mm3, nine3, text):
    with pytest.raises(PositionError) as raised:
        nine3.probe(text)
    words = {"error": str(raised.value)}
    assert cli_error(capsys, db_9mm3, text) == words["error"]
    for path in ("probe", "line", "play"):
        answer = get(client, path, position=text, game=KEY)
        assert answer.status_code == 400 and answer.headers["content-type"] == "application/json"
        assert answer.json() == words
    result = client.post("/api/v1/probe", json={"positions": [text], "game": KEY}).json()["results"]
    assert result == [{"position": text, **words}]


def test_a_position_of_another_game_is_a_404(client, capsys, db_9mm3):
    text = "W 3 3 ... ... ..."  # three men's morris
    assert "Three men's morris position" in cli_error(capsys, db_9mm3, text)
    answer = get(client, "probe", position=text)
    assert answer.status_code == 404 and str(db_9mm3) not in answer.text
    # The game it needs as `retro games` names it, and the boards served by their keys.
    error = answer.json()["error"]
    assert error.startswith(f"no {games.get('three-mens-morris').full_name} database is served here")
    assert error.endswith(f"(boards served: {KEY})")


def test_a_position_of_another_variant_is_a_4xx(client, capsys, db_9mm3, nine3):
    # The 9-piece start: a position of nine men's morris, whose database is not served.
    # The error names the variant the position needs, as `retro games` and `retro probe`
    # name it, and its pieces.
    nine = games.get(NINE, "9")
    for game in (None, NINE):
        answer = get(client, "probe", position=START9, **({"game": game} if game else {}))
        assert answer.status_code == 404
        error = answer.json()["error"]
        assert error.startswith(f"no {nine.full_name} database (9 pieces each) is served here"), error
        assert error.endswith(f"(boards served: {KEY})")
    # Read as the 3-piece game (its key, or --pieces 3 / --db on the command line), the
    # CLI's words.
    answer = get(client, "probe", position=START9, game=KEY)
    with pytest.raises(PositionError) as raised:
        nine3.probe(START9)
    assert answer.status_code == 400
    assert answer.json() == {"error": str(raised.value)} == {"error": cli_error(capsys, db_9mm3, START9)}
    assert "3 each" in answer.json()["error"]
    # Another variant named, or a variant the game does not have.
    assert get(client, "probe", position=START, game="nine-mens-morris-5").status_code == 404
    assert get(client, "probe", position=START9, game="nine-mens-morris 9").status_code == 404
    unknown = get(client, "probe", position=START, game="nine-mens-morris 10")
    assert unknown.status_code == 400 and "has no variant '10'" in unknown.json()["error"]
    assert get(client, "probe", position=START, game="nine-mens-morris-x").status_code == 400
    # Either names the boards the game parameter takes.
    for game in ("nine-mens-morris 10", "nine-mens-morris-x"):
        assert get(client, "probe", position=START, game=game).json()["error"].endswith(
            f"(boards served: {KEY})")
    batch = client.post("/api/v1/probe", json={"positions": [START, START9]}).json()["results"]
    assert "winner" in batch[0] and batch[1]["error"] == error


@pytest.fixture(scope="module")
def moving43(tmp_path_factory):
    """White 4, Black 3, the moving stage only (a few seconds; no start)."""
    out = tmp_path_factory.mktemp("nine-web") / "nine-mens-morris-4-3.h5"
    return build(NINE, out, variant="4,3", stage="moving", progress=False).path


def test_two_variants_served_at_once(db_9mm3, nine3, moving43):
    with client_of(db_9mm3, moving43) as client, open_database(moving43) as db43:
        boards = client.get("/api/v1/info").json()["boards"]
        assert [(b["key"], b["label"], b["start"], b["holds"]) for b in boards] == [
            (KEY, "Nine men's morris with 3 pieces", START, None),
            ("nine-mens-morris-4-3", "Nine men's morris with 4 white and 3 black pieces", None,
             "the positions of the moving stage")]
        # Positions of one variant only: whatever names the game.
        for game in ({}, {"game": NINE}, {"game": KEY}):
            assert get(client, "probe", position=START, **game).json()["game"] == "nine-mens-morris 3"
        slide = "W 0 0 WWW W.. ... ...... ... BBB ..."  # 4 white pieces: 4,3 only
        for game in ({}, {"game": NINE}, {"game": "nine-mens-morris-4-3"}, {"game": "nine-mens-morris 4-3"}):
            body = get(client, "probe", position=slide, **game).json()
            assert body["game"] == "nine-mens-morris 4,3"
            assert (body["winner"], body["plies"]) == tuple(db43.probe(slide).as_dict().values())
        # A position of both: the board its key names.
        for key, db in ((KEY, nine3), ("nine-mens-morris-4-3", db43)):
            body = get(client, "probe", position=MOVING, game=key).json()
            assert body["game"] == db.game.full_name
            assert [(m["move"], m["winner"], m["plies"]) for m in body["moves"]] == [
                (str(move), *value.as_dict().values()) for move, _, value in db.children(MOVING)]
        # The placing of 4,3: not in the file served.
        placing = get(client, "probe", position="W 4 3 ... ... ... ...... ... ... ...")
        assert placing.status_code == 404 and placing.json() == {"error": (
            f"the {db43.game.full_name} database served here holds the positions of the moving stage only")}
        assert client.app.state.unexpected_errors == 0


def test_the_page_plays_the_3_piece_game(browser, db_9mm3, nine3):
    from tests.conftest import live_server

    with live_server(create_app(Service.open([db_9mm3]), close=True)) as url:
        context = browser.new_context(viewport={"width": 1100, "height": 900})
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(10_000)
        page.goto(url)
        page.wait_for_selector("#moves li button")
        start = nine3.game.start()
        assert page.input_value("#position-text") == START
        assert page.text_content("#game-name") == "Nine men's morris with 3 pieces"
        assert page.get_attribute("#boards button[aria-pressed=true]", "data-key") == KEY
        assert page.locator("#board [data-square]").count() == 24
        assert page.text_content("#value").lower() == str(nine3.probe(start)).lower()
        assert page.text_content("#hands") == "In hand: White 3, Black 3"
        page.click('[data-square="d1"]')  # a placement
        after = start.play("d1")
        page.wait_for_function("t => document.getElementById('position-text').value === t", arg=str(after))
        assert page.text_content("#value").lower() == str(nine3.probe(after)).lower()
        assert f"game={KEY}" in page.url and "moves=d1" in page.url
        page.goto(url + "?start=" + MILL.replace(" ", "_") + "&game=" + KEY)
        page.wait_for_selector("#moves li button")
        page.click('[data-square="g1"]')  # closes a mill: two pieces to choose from
        page.wait_for_function("() => document.getElementById('message').textContent.includes('remove')")
        page.click('[data-square="g7"]')
        ended = nine3.game.parse(MILL).play("g1xg7")
        page.wait_for_function("t => document.getElementById('position-text').value === t", arg=str(ended))
        assert page.text_content("#value").lower() == str(nine3.probe(ended)).lower()
        context.close()
        assert errors == []


@pytest.mark.parametrize("order", ["3 first", "4,3 first"])
def test_the_variant_that_answers_follows_the_rule_the_api_states(db_9mm3, nine3, moving43, order):
    """A game named without its variant, or none: the position's own variant (its pieces,
    board and hand together) answers when served, whatever the order of the files; else
    the first served variant holding it. Every answer names the board that answered,
    and the API's document says so."""
    paths = [db_9mm3, moving43] if order == "3 first" else [moving43, db_9mm3]
    slide = "W 0 0 WWW W.. ... ...... ... BBB ..."  # 4 white and 3 black pieces
    with client_of(*paths) as client:
        for game in ({}, {"game": NINE}):
            for path in ("probe", "line", "play"):
                mine = get(client, path, position=MOVING, **game).json()  # 3 and 3 pieces: both hold it
                assert mine["board"] == KEY, (path, mine)
                theirs = get(client, path, position=slide, **game).json()
                assert theirs["board"] == games.get(NINE, "4,3").file_stem
            assert get(client, "probe", position=MOVING, **game).json()["game"] == nine3.game.full_name
        # The board named answers, and says so.
        assert get(client, "probe", position=MOVING, game="nine-mens-morris-4-3").json()["board"] == \
            "nine-mens-morris-4-3"
        spec = client.get("/api/v1/openapi.json").json()
        game_parameter = next(p for p in spec["paths"]["/api/v1/probe"]["get"]["parameters"] if p["name"] == "game")
        assert "own variant" in game_parameter["description"] and "`board`" in game_parameter["description"]
        probe = get(client, "probe", position=MOVING).json()
        assert set(probe) <= set(spec["components"]["schemas"]["Probe"]["properties"])
        for path in ("line", "play"):
            schema = spec["paths"][f"/api/v1/{path}"]["get"]["responses"]["200"]["content"]["application/json"]
            schema = schema["schema"]
            if "$ref" in schema:
                schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
            answer = get(client, path, position=MOVING).json()
            assert "board" in schema["properties"] and set(answer) <= set(schema["properties"]), path
        assert client.app.state.unexpected_errors == 0
    # Its own variant not served: the one that holds it answers, and says so.
    with client_of(moving43) as client:
        body = get(client, "probe", position=MOVING).json()
        assert body["board"] == "nine-mens-morris-4-3" and body["game"] == "nine-mens-morris 4,3"
        with open_database(moving43) as db43:
            assert (body["winner"], body["plies"]) == tuple(db43.probe(MOVING).as_dict().values())


def test_the_banner_names_every_board_as_the_api_does(db3, db5_low, db_ttt, db_9mm3, moving43, monkeypatch,
                                                       capsys):
    """`retro serve`'s first line names each board by its key (what the game parameter
    and the page's links take), saying what a file holds when it is not the whole game:
    a moving-stage-only file, whose start is not held, says so."""
    import uvicorn.server

    from retro.web.server import serve

    def interrupted(coroutine, **options):  # stop at once, as Ctrl-C does
        coroutine.close()
        raise KeyboardInterrupt

    monkeypatch.setattr(uvicorn.server, "asyncio_run", interrupted)
    paths = [db_ttt, moving43, db5_low, db_9mm3, db3]
    assert serve(paths, port=0, share=False) == 0
    out = capsys.readouterr().out
    banner = out.splitlines()[0]
    assert banner.startswith("retro serve: ") and " at http://127.0.0.1:" in banner
    named = banner.removeprefix("retro serve: ").split(" at http://")[0].split(", ")
    with open_database(db5_low) as low:
        expected = [games.musketeers_board(3).file_stem,
                    f"{games.musketeers_board(5).file_stem} (at most {low.max_enemy_men} enemy men)",
                    games.get("tic-tac-toe").file_stem, KEY,
                    f"{games.get(NINE, '4,3').file_stem} (moving stage only)"]
    assert sorted(named) == sorted(expected)
    with client_of(*paths) as client:  # the keys are the API's, in the order its messages list them
        keys = [board["key"] for board in client.get("/api/v1/info").json()["boards"]]
        error = get(client, "probe", position=START9).json()["error"]
    assert [name.split(" (")[0] for name in named] == keys
    assert error.endswith(f"(boards served: {', '.join(named)})")
