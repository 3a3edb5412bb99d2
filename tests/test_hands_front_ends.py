"""Pieces in hand written as letters after the rows (``geometry()["hand_pieces"]``:
Dōbutsu shōgi's captured pieces), in every front end: the terminal's board and a
scripted game that drops a piece (``retro play``), ``retro probe``, ``verify`` and
``analyze``, the API's moves, the environments' actions, and the page (the hands shown
under the board, a piece chosen there and dropped by a click).

For every registered game that writes its hands so, on its smallest variant small
enough to build (tests/registered.py). Expected positions come from the game's rules
(``Position.play``) and values from the database file read here, never from the front
end under test.
"""

from __future__ import annotations

import io
import random
import re

import pytest

from retro import open_database
from registered import smallest_variants

HANDED = [g for g in smallest_variants() if g.geometry().get("hand_pieces")]
DROP = re.compile(r"^([A-Za-z])\*([a-z][0-9]{1,2})$")  # how the page and the environments read a drop


def test_a_game_writes_its_hands_as_letters():
    """The list is not empty by accident: Dōbutsu shōgi is registered and writes them."""
    assert "dobutsu" in {g.name for g in HANDED}


def held(game, position) -> dict:
    """Each side's letters in hand (its last group), by side."""
    letters, pieces = str(position).split()[-1], game.geometry()["pieces"]
    return {side: [c for c in letters if c in game.geometry()["hand_pieces"] and pieces[c]["side"] == side.value]
            for side in game.sides}


def with_a_drop(game, seed: int = 5):
    """A position of random play from the start whose mover can drop a piece, and one
    such drop."""
    rng = random.Random(seed)
    for _ in range(500):
        position = game.start()
        for _ in range(rng.randrange(1, 30)):
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(rng.choice(moves))
            drops = [m for m in position.legal_moves() if DROP.match(str(m))]
            if drops and not position.is_over():
                return position, drops[-1]
    pytest.fail(f"random play of {game.full_name} reached no drop")


@pytest.mark.parametrize("game", HANDED, ids=lambda g: g.full_name)
def test_the_terminal_shows_the_hands_and_plays_a_drop(databases, game):
    from retro.play import play_game

    position, drop = with_a_drop(game)
    board = game.board_text(position)
    line = board.splitlines()[-1]
    assert line.startswith("in hand: ")
    pieces = game.geometry()["pieces"]
    for side, letters in held(game, position).items():
        part = next(p for p in line[len("in hand: "):].split("; ") if p.startswith(side.title))
        assert part == f"{side.title} " + (", ".join(f"{pieces[c]['name'].lower()} ({c})" for c in letters) or "none")
    assert len(board.splitlines()) == 1 + game.geometry()["rows"] + 1  # the columns, the rows, the hands
    out = io.StringIO()
    with open_database(databases(game)) as db:
        play_game(db, human=position.side, start=position, seed=1, input_stream=io.StringIO(f"{drop}\nquit\n"),
                  output_stream=out, strict=True)
    shown = re.findall(r"^position: (.+)$", out.getvalue(), flags=re.M)
    after = position.play(drop)
    assert shown[0] == str(position)
    # The computer's answer to the drop, or the drop itself when it ended the game.
    assert shown[-1] in {str(child) for child in after.successors().values()} | {str(after)}


@pytest.mark.parametrize("game", HANDED, ids=lambda g: g.full_name)
def test_the_api_and_the_environments_name_the_drops(databases, game):
    import warnings

    from retro.env import Encoding
    from retro.web import Service, create_app

    position, drop = with_a_drop(game)
    path = databases(game)
    service = Service.open([path])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # starlette's notice about httpx versions
            from starlette.testclient import TestClient
        with TestClient(create_app(service)) as client, open_database(path) as db:
            answer = client.get("/api/v1/probe", params={"position": str(position).replace(" ", "_"),
                                                         "game": game.name}).json()
            expected = {str(move): (outcome.winner.value if outcome.winner else None, outcome.plies)
                        for move, outcome in db.moves(position)}
        got = {m["move"]: (m["winner"], m["plies"]) for m in answer["moves"]}
        assert got == expected and str(drop) in got
        assert {m["move"]: m["position"] for m in answer["moves"]}[str(drop)] == str(position.play(drop))
    finally:
        service.close()
    encoding = Encoding(game)
    action = encoding.action(drop)
    assert encoding.text(action) == str(drop) and encoding.move(position, action) == drop
    n = len(game.geometry()["points"])
    assert action // (n * (n + 1)) > n  # a drop's origin is past the points


@pytest.mark.parametrize("game", HANDED, ids=lambda g: g.full_name)
def test_the_page_shows_the_hands_and_drops_a_piece_by_clicks(browser, databases, game):
    from conftest import live_server

    from retro.web import Service, create_app

    position, drop = with_a_drop(game)
    letter, square = DROP.match(str(drop)).groups()
    service = Service.open([databases(game)])
    key = service.info()["boards"][0]["key"]
    try:
        with live_server(create_app(service)) as url:
            context = browser.new_context(viewport={"width": 1100, "height": 900})
            page = context.new_page()
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.set_default_timeout(10_000)
            page.goto(f"{url}?game={key}&start={str(position).replace(' ', '_')}")
            page.wait_for_selector("#moves li")
            assert page.input_value("#position-text") == str(position)
            buttons = page.query_selector_all("#hands .hand-piece")
            assert sorted(b.get_attribute("data-hand") for b in buttons) == sorted(
                c for letters in held(game, position).values() for c in letters)
            mine = [c for c in held(game, position)[position.side] if c.lower() == letter.lower()]
            page.click(f"#hands .hand-piece[data-hand='{mine[0]}']")
            page.wait_for_selector(f"[data-target='{square}']")
            page.click(f".hit[data-square='{square}']")
            page.wait_for_function("text => document.getElementById('position-text').value === text",
                                   arg=str(position.play(drop)))
            assert "moves=" + str(drop) in page.url
            assert errors == []
            context.close()
    finally:
        service.close()


@pytest.mark.parametrize("game", HANDED, ids=lambda g: g.full_name)
def test_probe_verify_and_analyze_on_the_command_line(databases, game, retro):
    from registered import entries

    position, drop = with_a_drop(game)
    path = databases(game)
    code, out, err = retro("probe", "--db", path, str(position))
    with open_database(path) as db:
        assert code == 0 and out.splitlines()[0] == f"{position}: {db.probe(position)}", err
        assert str(drop) in out.splitlines()[1]
    code, out, err = retro("verify", path)
    assert code == 0 and "the database is correct" in out, out + err
    code, out, err = retro("analyze", path)
    assert code == 0, err
    assert f"{entries(game):,} table entries standing for {game.positions():,} positions" in out.splitlines()[0]
    assert f"start {game.start()}: " in out
