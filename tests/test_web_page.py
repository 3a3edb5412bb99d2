"""The page of `retro serve` in a real headless Chromium (Debian's, driven by Playwright).

One live server (a uvicorn thread over db3, db4 and db5_low) and one browser serve the
module (session fixtures in conftest.py); without Chromium or Playwright every test
here skips, saying how to install them. Expected values come from the databases
opened here and from :func:`retro.play.computer_move`, not from the page.
"""

from __future__ import annotations

import random
from urllib.parse import parse_qs, urlparse

import pytest

from retro import Position, PositionError, open_database
from retro.play import computer_move
from retro.games.musketeers.position import Side


@pytest.fixture(scope="module")
def dbs(db3, db4):
    opened = {3: open_database(db3), 4: open_database(db4)}
    yield opened
    for db in opened.values():
        db.close()


@pytest.fixture
def page(browser, web_server):
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    tab = context.new_page()
    tab.errors = []
    tab.on("pageerror", lambda error: tab.errors.append(str(error)))
    tab.set_default_timeout(10_000)
    yield tab
    assert tab.errors == []
    context.close()


def load(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#moves li")


def shown(page) -> str:
    """The position on the board (the notation box shows it)."""
    return page.input_value("#position-text")


def wait_for(page, position: Position | str) -> None:
    page.wait_for_function("text => document.getElementById('position-text').value === text",
                           arg=str(position))


def moves_in_url(page) -> list[str]:
    moves = parse_qs(urlparse(page.url).query).get("moves", [""])[0]
    return [m for m in moves.split(",") if m]


def value_text(outcome) -> str:
    text = str(outcome)
    return text[0].upper() + text[1:]


def test_value_moves_clicks_undo_redo_and_history(page, web_server, dbs):
    db = dbs[4]
    load(page, web_server)  # the largest board whose database holds its start: 4x4
    start = Position.start(4)
    assert shown(page) == str(start)
    assert page.text_content("#value") == value_text(db.probe(start))
    assert "Musketeers" in page.text_content("#turn")
    listed = page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.dataset.move)")
    assert listed == [str(move) for move, _ in db.moves(start)]
    keeps = page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.classList.contains('win'))")
    assert keeps == [after.winner is Side.MUSKETEERS for _, after in db.moves(start)]

    page.hover("#moves li:nth-child(2) button")  # pointing at a move draws it on the board
    assert page.locator("#board .arrow").count() == 1

    page.click('rect[data-square="a1"]')  # an enemy man, and the musketeers are to move
    page.click('rect[data-square="b2"]')
    assert shown(page) == str(start) and page.locator("#game button").count() == 0

    move = db.moves(start)[0][0]
    page.click(f'rect[data-square="{move.source}"]')
    page.click('rect[data-square="a1"]' if move.target != "a1" else 'rect[data-square="b1"]')  # not a target
    assert shown(page) == str(start)
    page.click(f'rect[data-square="{move.target}"]')
    first = start.play(move)
    wait_for(page, first)
    assert page.text_content("#value") == value_text(db.probe(first))

    reply = db.moves(first)[-1][0]  # a move in the list, clicked there
    page.click(f'#moves button[data-move="{reply}"]')
    second = first.play(reply)
    wait_for(page, second)
    assert moves_in_url(page) == [str(move), str(reply)]

    page.click("#undo")
    wait_for(page, first)
    page.click("#redo")
    wait_for(page, second)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_for(page, start)
    page.keyboard.press("End")
    wait_for(page, second)
    page.go_back()  # each move is a history entry
    wait_for(page, first)
    page.go_forward()
    wait_for(page, second)
    page.click("#to-start")
    wait_for(page, start)


def test_a_game_against_the_computer_to_its_end(page, web_server, dbs):
    db = dbs[3]
    load(page, web_server)
    page.click('#boards button[data-size="3"]')
    wait_for(page, Position.start(3))
    page.check('input[name=mode][value="enemy"]')  # the computer plays the musketeers, who start
    position = Position.start(3)
    plies = 0
    count = "n => document.querySelectorAll('#game button').length >= n"
    while True:
        if not position.is_over() and position.side is Side.MUSKETEERS:  # the computer answers
            page.wait_for_function(count, arg=plies + 1)
            position = position.play(moves_in_url(page)[plies])
            plies += 1
        wait_for(page, position)
        if position.is_over():
            break
        assert "your move" in page.text_content("#turn")
        page.click("#moves li:first-child button")  # the human plays a best move
        page.wait_for_function(count, arg=plies + 1)
        position = position.play(moves_in_url(page)[plies])
        plies += 1
    seed = int(parse_qs(urlparse(page.url).query)["seed"][0])
    replay = Position.start(3)
    for move in moves_in_url(page):
        if replay.side is Side.MUSKETEERS:  # the computer's side: exactly `retro play`'s choice
            assert move == str(computer_move(db, replay, rng=seed))
        replay = replay.play(move)
    assert replay.is_over()
    assert page.text_content("#value") == value_text(db.probe(replay))
    assert "won" in page.text_content("#turn")
    assert page.locator("#moves .empty").count() == 1
    assert page.locator("#chart .bar").count() == len(moves_in_url(page)) + 1


def test_a_shared_link_reopens_the_game(page, browser, web_server, dbs):
    db = dbs[4]
    start = Position.start(4)
    line = db.line(start)[:5]
    url = f"{web_server}?start={str(start).replace(' ', '_')}&moves={','.join(map(str, line))}&ply=3"
    load(page, url)
    here = start
    for move in line[:3]:
        here = here.play(move)
    wait_for(page, here)
    assert page.locator("#game button").count() == 5
    assert page.get_attribute("#game button.current", "data-ply") == "3"
    other = browser.new_page()
    try:
        other.goto(page.url)
        other.wait_for_function("text => document.getElementById('position-text').value === text",
                                arg=str(here))
        assert other.text_content("#value") == page.text_content("#value")
        assert other.locator("#game button").count() == 5
    finally:
        other.close()


def test_a_bad_position_shows_the_api_error(page, web_server):
    load(page, web_server)
    before = shown(page)
    for text in ("M OO. X.. ...", "M XXXX"):
        with pytest.raises(PositionError) as error:
            Position.parse(text)
        page.fill("#position-text", text)
        page.press("#position-text", "Enter")
        page.wait_for_function("() => document.getElementById('notation-error').textContent !== ''")
        assert page.text_content("#notation-error") == str(error.value)
        assert page.get_attribute("#position-text", "aria-invalid") == "true"
        assert page.text_content("#value") != "" and moves_in_url(page) == []
    page.fill("#position-text", "E .O. XOX O..")
    page.press("#position-text", "Enter")
    wait_for(page, "E .O. XOX O..")
    assert page.text_content("#notation-error") == ""
    assert before != shown(page)


def positions(start: Position, moves: list[str]) -> list[Position]:
    out = [start]
    for move in moves:
        out.append(out[-1].play(move))
    return out


def test_hint_line_blunders_and_phone_width(browser, page, web_server, dbs, tmp_path):
    db = dbs[4]
    rng = random.Random(5)
    game, start = [], Position.start(4)  # random play until a move that throws a win away
    here = start
    while True:
        mover = here.side
        blunder = next((m for m, after in db.moves(here) if after.winner is not mover), None)
        if blunder is not None and db.probe(here).winner is mover:
            break
        if here.is_over():
            game, here = [], start
            continue
        move = rng.choice(here.legal_moves())
        game.append(str(move))
        here = here.play(move)
    game.append(str(blunder))
    after = here.play(blunder)
    load(page, f"{web_server}?start={str(start).replace(' ', '_')}&moves={','.join(game)}")
    wait_for(page, after)
    thrown = [i + 1 for i, (a, b) in enumerate(zip(positions(start, game), positions(start, game)[1:]))
              if db.probe(a).winner is a.side and db.probe(b).winner is not a.side]
    assert thrown[-1] == len(game)
    assert page.eval_on_selector_all("#game button.blunder", "bs => bs.map(b => +b.dataset.ply)") == thrown
    assert page.locator("#chart .blunder").count() == len(thrown)
    page.click("#hint")
    assert page.locator("#board .arrow.hint").count() == 1
    page.click("#show-line")
    page.wait_for_selector("#line li")
    assert page.locator("#line li").count() == db.probe(after).plies
    page.screenshot(path=tmp_path / "page.png", full_page=True)

    phone = browser.new_page(viewport={"width": 375, "height": 740})
    try:
        phone.goto(web_server)
        phone.wait_for_selector("#moves li")
        assert phone.evaluate("document.documentElement.scrollWidth") <= 375
        box = phone.locator("#board svg").bounding_box()
        assert box["width"] > 250 and box["x"] >= 0 and box["x"] + box["width"] <= 375
        phone.screenshot(path=tmp_path / "phone.png", full_page=True)
    finally:
        phone.close()
    for name in ("page.png", "phone.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_morris_and_tic_tac_toe_on_the_page(page, web_server, db_6mm, db_ttt):
    """Points and lines from info; placements, slides and removals by clicking; draws in
    their own colour; the pieces in hand shown."""
    from retro import games

    six = games.get("six-mens-morris")
    load(page, web_server)
    page.click('#boards button[data-key="six-mens-morris"]')
    wait_for(page, six.start())
    assert page.locator("#board circle.hit").count() == 16 and page.locator("#board .edge").count() == 20
    assert page.text_content("#hands") == "In hand: White 6, Black 6"
    assert "value d" in page.get_attribute("#value", "class")  # a draw
    page.click('circle[data-square="c2"]')  # a placement: one click
    wait_for(page, six.start().play("c2"))
    assert moves_in_url(page) == ["c2"] and page.text_content("#hands") == "In hand: White 5, Black 6"

    mill = six.parse("W 1 1 WW. B.. .... B.. B..")  # e1 closes a1-c1-e1: remove one of three
    load(page, f"{web_server}?start={str(mill).replace(' ', '_')}&game=six-mens-morris")
    wait_for(page, mill)
    page.click('circle[data-square="e1"]')
    assert "remove" in page.text_content("#message")
    page.click('circle[data-square="b4"]')
    wait_for(page, mill.play("e1xb4"))
    with open_database(db_6mm) as db:
        listed = page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.dataset.move)")
        assert listed == [str(m) for m, _ in db.moves(mill.play("e1xb4"))]

    ttt = games.get("tic-tac-toe")
    page.click('#boards button[data-key="tic-tac-toe"]')
    wait_for(page, ttt.start())
    page.click('rect[data-square="b2"]')
    wait_for(page, ttt.start().play("b2"))
    with open_database(db_ttt) as db:
        marks = page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.querySelector('.mark').textContent)")
        expected = ["=" if o.winner is None else "✓" if o.winner.value == "O" else "✗"
                    for _, o in db.moves(ttt.start().play("b2"))]
        assert marks == expected
