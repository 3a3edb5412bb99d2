"""The page of `retro serve` in a real headless Chromium (Debian's, driven by Playwright).

One live server (a uvicorn thread over db3, db4, db5_low, tic-tac-toe, three and six
men's morris) and one browser serve the module (session fixtures in conftest.py), one
page per test; without Chromium or Playwright every test
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
        best = db.moves(position)[0][0]  # the human plays a best move (values hidden: listed by name)
        page.click(f'#moves button[data-move="{best}"]')
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
    # The end in the player's words (the player is the enemy), the reason under it.
    won = db.probe(replay).winner is Side.ENEMY
    assert page.text_content("#value") == ("You win" if won else "You lose")
    assert "won" in page.text_content("#turn")
    assert page.locator("#moves .empty").count() == 1
    assert page.locator("#chart .bar").count() == 0  # values hidden while playing
    page.click("#show-values")
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
        # The same link in other spellings the CLI reads: lower case, E1E2, e1 e2.
        moves = [str(m).upper().replace("-", "") if i % 2 else str(m).replace("-", "%20")
                 for i, m in enumerate(line)]
        odd = f"{web_server}?start={str(start).lower().replace(' ', '_')}&moves={','.join(moves)}&ply=3"
        load(other, odd)
        wait_for(other, here)
        assert other.locator("#game button").count() == 5
        assert [b.text_content() for b in other.locator("#game button").all()] == [str(m) for m in line]
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
    assert page.locator("#line button").count() == db.probe(after).plies
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
    # No chessboard here: squares of one colour, its own pieces, no note.
    assert page.locator("#board .chessboard, #board .figure, #board .sq.dark").count() == 0
    assert page.is_hidden("#game-note")


# --- playing, the editor, variations, the keyboard (issue 20) ------------------------------


@pytest.fixture(scope="module")
def game_dbs(db_ttt, db_6mm):
    opened = {"tic-tac-toe": open_database(db_ttt), "six-mens-morris": open_database(db_6mm)}
    yield opened
    for db in opened.values():
        db.close()


def url_of(web_server: str, start, moves=(), **params) -> str:
    query = [f"start={str(start).replace(' ', '_')}"]
    if moves:
        query.append("moves=" + ",".join(map(str, moves)))
    query += [f"{key}={value}" for key, value in params.items()]
    return web_server + "?" + "&".join(query)


GAME_BUTTONS = "n => document.querySelectorAll('#game button:not(.variation)').length >= n"
MARKS = {"win": "✓", "draw": "=", "loss": "✗"}


def kind(outcome, mover: str) -> str:
    """What a move's outcome gives its mover: the page's classes (and its marks)."""
    return "draw" if outcome.winner is None else "win" if outcome.winner.value == mover else "loss"


def play_best_to_the_end(page, db, start, human: str):
    """Play best moves (by their names: values are hidden) for ``human`` against the
    computer until the game ends; the last position."""
    position, plies = start, len(moves_in_url(page))
    while True:
        if not position.is_over() and position.side.value != human:  # the computer answers
            page.wait_for_function(GAME_BUTTONS, arg=plies + 1)
            position = position.play(moves_in_url(page)[plies])
            plies += 1
        wait_for(page, position)
        if position.is_over():
            return position
        assert "your move" in page.text_content("#turn")
        assert page.locator("#moves .mark").count() == 0 and page.locator("#moves .words").count() == 0
        best = db.moves(position)[0][0]
        page.click(f'#moves button[data-move="{best}"]')
        page.wait_for_function(GAME_BUTTONS, arg=plies + 1)
        position = position.play(str(best))
        plies += 1


def the_end(outcome, human: str) -> str:
    if outcome.winner is None:
        return "A draw"
    return "You win" if outcome.winner.value == human else "You lose"


def test_playing_with_values_hidden_to_the_end(page, web_server, dbs, game_dbs):
    """Values hidden while playing (the value line, the marks, the chart, the target
    colours), one click shows them (for the session); the end in the player's words."""
    from retro import games

    db = dbs[3]
    start = Position.start(3)
    load(page, url_of(web_server, start, play="musketeers", seed=4))
    assert page.text_content("#value") == "You play the musketeers"
    assert page.is_hidden("#chart") and page.is_visible("#chart-hidden")
    assert page.locator("#moves .mark").count() == 0
    assert page.text_content("#moves-order") == "in notation order"
    listed = page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.dataset.move)")
    assert listed == sorted(str(m) for m, _ in db.moves(start))  # not best first: that would tell
    page.click('rect[data-square="b2"]')  # a musketeer: its targets, not coloured
    assert page.locator("#board .dot, #board .ring").count() > 0
    assert page.locator("#board .win, #board .loss, #board .draw").count() == 0
    page.keyboard.press("Escape")
    end = play_best_to_the_end(page, db, start, "musketeers")
    assert page.text_content("#value") == the_end(db.probe(end), "musketeers") == "You win"
    assert "won" in page.text_content("#turn")

    ttt = games.get("tic-tac-toe")
    tdb = game_dbs["tic-tac-toe"]
    load(page, url_of(web_server, ttt.start(), play="O", seed=2, game="tic-tac-toe"))
    page.wait_for_function(GAME_BUTTONS, arg=1)  # the computer (X) opens
    first = ttt.start().play(moves_in_url(page)[0])
    wait_for(page, first)
    page.click("#show-values")  # one click: the values
    assert page.text_content("#value") == value_text(tdb.probe(first))
    marks = page.eval_on_selector_all("#moves .mark", "ms => ms.map(m => m.textContent)")
    assert marks == [MARKS[kind(o, "O")] for _, o in tdb.moves(first)]
    assert page.locator("#chart .bar").count() == 2
    page.reload()  # remembered for the session
    page.wait_for_selector("#moves li .mark")
    page.click("#show-values")  # and hidden again
    assert page.locator("#moves .mark").count() == 0
    end = play_best_to_the_end(page, tdb, first, "O")
    assert page.text_content("#value") == the_end(tdb.probe(end), "O") == "A draw"
    assert page.text_content("#turn") == value_text(ttt.finished_reason(end)) + "."


def first_blunder(db, start, seed=5):
    """Random play from ``start`` until a position whose side to move wins and has a move
    that throws the win away: (the moves to it, the position, that move)."""
    rng = random.Random(seed)
    here, moves = start, []
    while True:
        bad = next((m for m, after in db.moves(here) if after.winner is not here.side), None)
        if bad is not None and db.probe(here).winner is here.side:
            return moves, here, bad
        if here.is_over():
            here, moves = start, []
            continue
        move = rng.choice(here.legal_moves())
        moves.append(str(move))
        here = here.play(move)


def test_a_blunder_line_counts_the_moves_that_kept_the_result(page, web_server, dbs, game_dbs):
    from retro import games

    db = dbs[4]
    moves, here, bad = first_blunder(db, Position.start(4))
    human = here.side.value
    kept = sum(1 for _, after in db.moves(here) if after.winner is here.side)
    load(page, url_of(web_server, Position.start(4), moves, play=human, seed=3))
    wait_for(page, here)
    assert page.text_content("#note") == ""
    page.click(f'#moves button[data-move="{bad}"]')
    expected = f"{bad} threw the win away: {kept} of the {len(db.moves(here))} moves there kept it."
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('The computer')")
    assert page.text_content("#note") == expected  # still there once the computer has answered

    ttt = games.get("tic-tac-toe")  # a draw thrown away: O's edge against X in the centre
    tdb = game_dbs["tic-tac-toe"]
    after_x = ttt.start().play("b2")
    edge = next(m for m, o in tdb.moves(after_x) if o.winner is not None)
    drawn = sum(1 for _, o in tdb.moves(after_x) if o.winner is None)
    load(page, url_of(web_server, ttt.start(), ["b2"], game="tic-tac-toe"))
    # Explore: the targets coloured by their value, as in the move list.
    targets = page.eval_on_selector_all("#board .dot", "ds => ds.map(d => [d.dataset.target, d.classList[1]])")
    assert sorted(map(tuple, targets)) == sorted((str(m), kind(o, "O")) for m, o in tdb.moves(after_x))
    page.click(f'rect[data-square="{edge}"]')
    wait_for(page, after_x.play(edge))
    assert page.text_content("#note") == (f"{edge} threw the draw away: {drawn} of the "
                                          f"{len(tdb.moves(after_x))} moves there kept it.")


def line_ends(page) -> list[dict]:
    """Each marked line: its side's class, its points, and whether its two ends sit on
    the centres of its two farthest points."""
    return page.evaluate("""() => [...document.querySelectorAll('#board .aligned')].map(line => {
        const centre = name => { const b = document.querySelector(`[data-square="${name}"]`).getBBox();
                                 return [b.x + b.width / 2, b.y + b.height / 2]; };
        const points = line.dataset.points.split(' ');
        const ends = [[+line.getAttribute('x1'), +line.getAttribute('y1')],
                      [+line.getAttribute('x2'), +line.getAttribute('y2')]];
        const on = ends.map(e => points.some(p => Math.hypot(centre(p)[0] - e[0], centre(p)[1] - e[1]) < 1e-6));
        return {tone: line.classList.contains('s0') ? 's0' : 's1', points, on: on.every(Boolean)};
    })""")


def test_the_finishing_line_and_the_mills_are_marked(page, web_server, dbs, game_dbs):
    from retro import games

    row = Position.parse("E OOO X.. ...")  # the musketeers in a row: the enemy has won
    assert db_winner(dbs[3], row) == "enemy"
    load(page, url_of(web_server, row))
    wait_for(page, row)
    assert line_ends(page) == [{"tone": "s1", "points": ["a1", "b1", "c1"], "on": True}]
    page.click("#rotate")  # the mark turns with the board
    assert line_ends(page) == [{"tone": "s1", "points": ["a1", "b1", "c1"], "on": True}]

    ttt = games.get("tic-tac-toe")
    won = ttt.parse("O XXX OO. ...")
    assert game_dbs["tic-tac-toe"].probe(won).winner.value == "X"
    load(page, url_of(web_server, won, game="tic-tac-toe"))
    wait_for(page, won)
    assert line_ends(page) == [{"tone": "s0", "points": ["a1", "b1", "c1"], "on": True}]

    six = games.get("six-mens-morris")
    mill = six.parse("B 0 0 WWW B.. .... B.. B..")  # White's mill a1-c1-e1 stands; the game goes on
    load(page, url_of(web_server, mill, game="six-mens-morris"))
    wait_for(page, mill)
    assert line_ends(page) == [{"tone": "s0", "points": ["a1", "c1", "e1"], "on": True}]
    move = next(m for m, _ in game_dbs["six-mens-morris"].moves(mill) if str(m).startswith("b4-b3"))
    page.click('circle[data-square="b4"]')
    page.click('circle[data-square="b3"]')
    wait_for(page, mill.play(move))
    assert line_ends(page) == [{"tone": "s0", "points": ["a1", "c1", "e1"], "on": True}]


def db_winner(db, position):
    outcome = db.probe(position)
    return None if outcome.winner is None else outcome.winner.value


def test_the_position_editor(page, web_server, dbs, game_dbs, db5_low):
    from retro import games

    db = dbs[4]
    load(page, web_server)  # 4x4
    page.click("#edit")
    assert page.is_visible("#editor") and page.is_hidden("#controls")
    assert page.is_hidden("#edit-palette")  # one kind of piece a side: a click cycles
    page.click("#edit-clear")
    wanted = Position.parse("E OX.. .O.. ..O. X...")
    clicks = {"a1": 1, "b1": 2, "b2": 1, "c3": 1, "a4": 2}  # empty -> O -> X -> empty
    for name, n in clicks.items():
        for _ in range(n):
            page.click(f'rect[data-square="{name}"]')
    page.check('input[name=edit-side][value="E"]')
    expected = value_text(db.probe(wanted))
    page.wait_for_function("text => document.getElementById('value').textContent === text", arg=expected)
    assert shown(page) == str(wanted)
    assert page.is_enabled("#edit-done")
    listed = page.eval_on_selector_all("#moves button", "bs => bs.map(b => b.dataset.move)")
    assert listed == [str(m) for m, _ in db.moves(wanted)]

    page.click('rect[data-square="a1"]')  # O -> X: two musketeers, not a position
    bad = "E XX.. .O.. ..O. X..."
    with pytest.raises(PositionError) as error:
        games.get("three-musketeers").parse(bad)
    page.wait_for_function("() => document.getElementById('edit-error').textContent !== ''")
    assert page.text_content("#edit-error") == str(error.value)
    assert page.text_content("#value") == "Not a position" and page.is_disabled("#edit-done")
    page.click('rect[data-square="a1"]')
    page.click('rect[data-square="a1"]')  # X -> empty -> O
    page.wait_for_function("text => document.getElementById('value').textContent === text", arg=expected)
    page.click("#edit-done")  # a new game from there
    wait_for(page, wanted)
    assert page.is_hidden("#editor") and moves_in_url(page) == []
    assert parse_qs(urlparse(page.url).query)["start"] == [str(wanted).replace(" ", "_")]
    assert page.text_content("#value") == expected

    # An endgame database (5x5, up to 4 enemy men) holds no start: its button opens the
    # editor on an empty board.
    page.click('#boards button[data-size="5"]')
    assert page.is_visible("#editor") and page.is_disabled("#edit-start")
    assert page.locator("#board .piece").count() == 0
    for name, n in {"a1": 1, "c3": 1, "e5": 1, "b1": 2, "d4": 2}.items():
        for _ in range(n):
            page.click(f'rect[data-square="{name}"]')
    endgame = Position.parse("M OX... ..... ..O.. ...X. ....O")
    with open_database(db5_low) as db5:
        expected = value_text(db5.probe(endgame))
    page.wait_for_function("text => document.getElementById('value').textContent === text", arg=expected)
    page.click("#edit-cancel")  # back to the game left
    wait_for(page, wanted)

    six = games.get("six-mens-morris")  # the pieces in hand, and the side to move
    sdb = game_dbs["six-mens-morris"]
    page.click('#boards button[data-key="six-mens-morris"]')
    wait_for(page, six.start())
    page.click("#edit")
    page.click("#edit-clear")
    page.click('circle[data-square="a1"]')  # White's piece: one fewer in White's hand
    page.click('circle[data-square="c2"]')
    page.click('circle[data-square="c2"]')  # Black's
    assert page.input_value("#hand-0") == "5" and page.input_value("#hand-1") == "5"
    placed = six.parse("W 5 5 W.. .B. .... ... ...")
    expected = value_text(sdb.probe(placed))
    page.wait_for_function("text => document.getElementById('value').textContent === text", arg=expected)
    assert shown(page) == str(placed)
    page.fill("#hand-1", "4")
    with pytest.raises(PositionError) as error:
        six.parse("W 5 4 W.. .B. .... ... ...")
    page.wait_for_function("() => document.getElementById('edit-error').textContent !== ''")
    assert page.text_content("#edit-error") == str(error.value)
    page.fill("#hand-0", "4")  # 4 and 4 in hand: White to place
    fewer = six.parse("W 4 4 W.. .B. .... ... ...")
    expected = value_text(sdb.probe(fewer))
    page.wait_for_function("text => document.getElementById('value').textContent === text", arg=expected)
    page.check('input[name=edit-side][value="B"]')  # but not Black
    with pytest.raises(PositionError) as error:
        six.parse("B 4 4 W.. .B. .... ... ...")
    page.wait_for_function("() => document.getElementById('edit-error').textContent !== ''")
    assert page.text_content("#edit-error") == str(error.value)
    page.click("#edit-cancel")  # back to the game, unchanged
    wait_for(page, six.start())


def centre(page, name: str) -> tuple[float, float]:
    box = page.locator(f'[data-square="{name}"]').bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_flip_and_rotate_turn_the_drawing_and_clicks_name_the_right_points(page, web_server, dbs):
    db = dbs[4]
    start = Position.start(4)
    load(page, web_server)
    a1, a4, d1 = centre(page, "a1"), centre(page, "a4"), centre(page, "d1")
    assert a1[1] < a4[1] and a1[0] < d1[0]  # row 1 at the top, file a on the left
    page.click("#flip")
    assert page.get_attribute("#flip", "aria-pressed") == "true"
    assert centre(page, "a1")[1] > centre(page, "a4")[1]  # row 1 at the bottom
    page.click("#rotate")  # then a quarter turn clockwise: file a along the top, row 1 on the left
    a1, a4, d1 = centre(page, "a1"), centre(page, "a4"), centre(page, "d1")
    assert abs(a1[1] - a4[1]) < 1 and a1[0] < a4[0] and d1[1] > a1[1] and abs(d1[0] - a1[0]) < 1
    # The coordinates turned with the board: the files' letters on the left, the rows'
    # numbers along the top (the board spans 0..4 in the drawing's units).
    labels = page.eval_on_selector_all("#board .coord", "ts => ts.map(t => { const b = t.getBBox(); "
                                       "return [t.textContent, b.x + b.width, b.y + b.height]; })")
    assert all(right < 0 for text, right, _ in labels if text.isalpha()) and len(labels) == 8
    assert all(bottom < 0 for text, _, bottom in labels if text.isdigit())
    move = db.moves(start)[0][0]
    for name in (move.source, move.target):  # clicks where the points are drawn now
        page.mouse.click(*centre(page, name))
    wait_for(page, start.play(move))
    page.reload()  # the view is kept for the session
    page.wait_for_selector("#moves li")
    assert page.get_attribute("#flip", "aria-pressed") == "true"


def focused_point(page) -> str | None:
    return page.evaluate("() => document.activeElement && document.activeElement.getAttribute('data-square')")


def test_keyboard_play(page, web_server, dbs):
    db = dbs[4]
    start = Position.start(4)
    load(page, web_server)
    for _ in range(40):  # Tab to the board: its first point
        page.keyboard.press("Tab")
        if focused_point(page):
            break
    assert focused_point(page) == "a1"
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == "a1, enemy man"
    move = db.moves(start)[0][0]

    def walk(frm: str, to: str) -> None:
        for _ in range(ord(to[0]) - ord(frm[0])):
            page.keyboard.press("ArrowRight")
        for _ in range(ord(frm[0]) - ord(to[0])):
            page.keyboard.press("ArrowLeft")
        for _ in range(int(to[1]) - int(frm[1])):
            page.keyboard.press("ArrowDown")
        for _ in range(int(frm[1]) - int(to[1])):
            page.keyboard.press("ArrowUp")
        assert focused_point(page) == to

    walk("a1", move.source)
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert label == f"{move.source}, musketeer, can move"
    page.keyboard.press("Enter")
    assert page.get_attribute(f'[data-square="{move.source}"]', "aria-pressed") == "true"
    walk(move.source, move.target)
    page.keyboard.press(" ")
    wait_for(page, start.play(move))
    assert focused_point(page) == move.target  # the focus stays on the board
    page.keyboard.press("ArrowLeft")  # on the board the arrows move between points, not through the game
    assert moves_in_url(page) == [str(move)] and "ply 1" in page.text_content("#turn")
    page.click("#value")  # off the board, the arrows step through the game
    page.keyboard.press("ArrowLeft")
    wait_for(page, start)


def test_a_variation_is_kept_and_the_perfect_line_previewed(page, web_server, dbs):
    db = dbs[4]
    start = Position.start(4)
    load(page, web_server)
    (first, _), (other, _) = db.moves(start)[:2]
    after = start.play(first)
    reply = db.moves(after)[0][0]
    page.click(f'#moves button[data-move="{first}"]')
    wait_for(page, after)
    page.click(f'#moves button[data-move="{reply}"]')
    wait_for(page, after.play(reply))
    page.click("#to-start")
    page.click(f'#moves button[data-move="{other}"]')  # another move at ply 1
    wait_for(page, start.play(other))
    assert moves_in_url(page) == [str(other)]
    variation = page.locator("#game button.variation")
    assert variation.count() == 1 and variation.text_content() == f"(variation: 1. {first} {reply})"
    variation.click()  # back to the old line
    wait_for(page, after)
    assert moves_in_url(page) == [str(first), str(reply)]
    assert page.get_attribute("#game button.current", "data-ply") == "1"
    assert page.locator("#game button.variation").text_content() == f"(variation: 1. {other})"
    page.click("#to-end")
    wait_for(page, after.play(reply))
    page.go_back()  # Back and Forward keep the variations
    page.go_forward()
    wait_for(page, after.play(reply))
    page.wait_for_function("() => document.querySelectorAll('#game button.variation').length === 1")

    here = after.play(reply)
    line = db.line(here)
    page.click("#show-line")
    page.wait_for_selector("#line li button")
    page.click("#line button >> nth=2")  # a preview of the line's third move
    previewed = here
    for move in line[:3]:
        previewed = previewed.play(move)
    wait_for(page, previewed)
    # Ply 5: the musketeers' third move, numbered as in the game list.
    assert page.is_visible("#preview") and f"after 3. {line[2]}" in page.text_content("#preview")
    assert moves_in_url(page) == [str(first), str(reply)]
    assert page.locator("#game button:not(.variation)").count() == 2
    page.click(f'[data-square="{line[0].source}"]')  # no moves in a preview
    assert "preview" in page.text_content("#message")
    page.click("#preview-back")
    wait_for(page, here)
    assert page.is_hidden("#preview")
    page.click("#line button >> nth=0")
    wait_for(page, here.play(line[0]))
    page.keyboard.press("Escape")
    wait_for(page, here)


def test_wrong_clicks_are_explained(page, web_server, game_dbs):
    from retro import games

    load(page, web_server)  # 4x4: M XXXO XXXX XXOX OXXX
    page.click('rect[data-square="a1"]')
    assert page.text_content("#message") == "That is an enemy man: the musketeers are to move."
    page.click('rect[data-square="d1"]')
    page.click('rect[data-square="a3"]')
    assert page.text_content("#message") == "d1 cannot go to a3."
    end = Position.parse("E OOO X.. ...")
    load(page, url_of(web_server, end))
    wait_for(page, end)
    page.click('rect[data-square="a2"]')
    assert page.text_content("#message") == ("The game is over: the three musketeers stand in one row or "
                                             "column: the enemy has won.")
    ttt = games.get("tic-tac-toe")
    load(page, url_of(web_server, ttt.start(), ["b2"], game="tic-tac-toe"))
    page.click('rect[data-square="b2"]')
    assert page.text_content("#message") == "That square is not empty."
    six = games.get("six-mens-morris")
    sliding = six.parse("B 0 0 WWW B.. .... B.. B..")
    load(page, url_of(web_server, sliding, game="six-mens-morris"))
    page.click('circle[data-square="c4"]')
    assert page.text_content("#message") == ("c4 is empty: choose one of Black's pieces first, "
                                             "then where it goes.")
    page.click('circle[data-square="a1"]')
    assert page.text_content("#message") == "That is a white piece: Black is to move."


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two CSS rgb() colours."""
    def luminance(css: str) -> float:
        channels = [int(v) / 255 for v in css[css.index("(") + 1:css.index(")")].split(",")[:3]]
        r, g, bl = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * r + 0.7152 * g + 0.0722 * bl
    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_page_s_details(browser, page, web_server, dbs, game_dbs):
    from retro import games

    db = dbs[4]
    start = Position.start(4)
    line = db.line(start)
    # The last move's outline: at least 3:1 against the squares it sits on and the board.
    load(page, url_of(web_server, start, line[:1]))
    colours = page.evaluate("""() => {
        const style = s => getComputedStyle(document.querySelector(s));
        return {last: style('#board .last').stroke, to: style('#board .sq.to').fill,
                square: style('#board .sq:not(.to):not(.from)').fill};
    }""")
    assert contrast(colours["last"], colours["to"]) >= 3 and contrast(colours["last"], colours["square"]) >= 3
    six = games.get("six-mens-morris")
    load(page, url_of(web_server, six.start(), ["a1"], game="six-mens-morris"))
    plank = page.evaluate("getComputedStyle(document.querySelector('#board .plank')).fill")
    last = page.evaluate("getComputedStyle(document.querySelector('#board .last')).stroke")
    assert contrast(last, plank) >= 3

    # The chart's labels are the game list's move numbers, each under the position its
    # move is played from (move n from ply 2(n - 1): the musketeers move first), and they
    # never overlap, whatever the game's length.
    rng, here, long_game = random.Random(3), six.start(), []  # 60 plies of six men's morris
    while len(long_game) < 60:
        here, long_game = (six.start(), []) if here.is_over() else (here, long_game)
        move = rng.choice(here.legal_moves())
        long_game.append(move)
        here = here.play(move)
    for moves in (long_game, line[:11], line[:17], line[:24]):
        first = six.start() if moves is long_game else start  # White and the musketeers move first
        load(page, url_of(web_server, first, moves, **({"game": "six-mens-morris"} if moves is long_game else {})))
        boxes = page.eval_on_selector_all(
            "#chart text.move", "ts => ts.map(t => [+t.textContent, +t.dataset.ply, t.getBBox().x, t.getBBox().width])")
        assert len(boxes) >= 5 and all(ply == 2 * (n - 1) for n, ply, _, _ in boxes)
        assert boxes[0][:2] == ([1, 0] if len(moves) <= 24 else [2, 2])  # "1" while it has room
        for (_, _, x, w), (_, _, nx, _) in zip(boxes, boxes[1:]):
            assert x + w < nx, (plies, boxes)

    # A whole 5x5 position fits the position box, at the phone's width too.
    five = "M XXXXO XXXXX XXOXX XXXXX OXXXX"
    page.fill("#position-text", five)
    assert page.evaluate("(i => i.scrollWidth <= i.clientWidth)(document.getElementById('position-text'))")

    # "ply" explained where it first appears; the links.
    assert page.get_attribute("#turn abbr", "title") == "a ply is one move of one side"
    hrefs = page.eval_on_selector_all("footer a", "as => as.map(a => a.getAttribute('href'))")
    assert {"static/README.md", "https://github.com/jlaire/3M",
            "https://github.com/alielabridi/Weakly-Solving-Three-Musketeers-Game"} <= set(hrefs)
    readme = page.request.get(web_server + "static/README.md")
    assert readme.ok and readme.headers["content-type"] == "text/plain; charset=utf-8"
    assert readme.headers["access-control-allow-origin"] == "*" and readme.text().startswith("# retro")
    docs = page.request.get(web_server + "api/v1/docs").text()
    assert "`" not in docs and "<code>retro probe --json</code>" in docs

    phone = browser.new_page(viewport={"width": 375, "height": 640})
    try:
        phone.goto(url_of(web_server, start, line))
        phone.wait_for_selector("#moves li")
        phone.fill("#position-text", five)
        assert phone.evaluate("(i => i.scrollWidth <= i.clientWidth)(document.getElementById('position-text'))")
        # Stepping through a game scrolls the game list's box, never the page.
        phone.evaluate("window.scrollTo(0, 0)")
        phone.click("#value")
        listed = phone.locator("#game")
        assert phone.evaluate("(l => l.scrollHeight > l.clientHeight)(document.getElementById('game'))")
        for key in ("Home", "ArrowRight", "ArrowRight", "End", "ArrowLeft"):
            phone.keyboard.press(key)
        phone.wait_for_function("ply => document.querySelector('#game .current').dataset.ply === String(ply)",
                                arg=len(line) - 1)
        assert phone.evaluate("window.scrollY") == 0
        inside = phone.evaluate("""() => {
            const l = document.getElementById('game'), b = l.querySelector('.current');
            return b.offsetTop >= l.scrollTop && b.offsetTop + b.offsetHeight <= l.scrollTop + l.clientHeight;
        }""")
        assert inside and listed.evaluate("l => l.scrollTop") > 0
        assert phone.evaluate("document.documentElement.scrollWidth") <= 375
    finally:
        phone.close()


# --- each game's page, the editor, the chart, the lists and the numbering (issue 23) -------


def label_of(game) -> str:
    """What the page calls a board: the game's title, and a Three Musketeers board's size
    or a variant's name (the race without jumps)."""
    if game.name == "three-musketeers":
        return f"Three Musketeers {game.size}×{game.size}"
    return game.short_name if game.short_name != game.full_name else game.title


FIXED_LINKS = ["static/README.md", "static/app.js", "api/v1/docs"]  # the footer's links on every page


def test_each_game_is_named_opened_by_name_and_links_its_own_references(page, web_server, web_service):
    from retro import games

    served = [board.game for board in web_service.boards.values()]
    load(page, web_server)
    # Each button named in full; the boards of one game side by side after its name.
    labels = page.eval_on_selector_all("#boards button", "bs => bs.map(b => b.getAttribute('aria-label'))")
    assert sorted(labels) == sorted(label_of(game) for game in served)
    assert "Three Musketeers 4×4" in labels and "Six men's morris" in labels
    assert page.text_content("#boards .board-group") == "Three Musketeers3×34×45×5"
    assert page.text_content('#boards button[data-key="six-mens-morris"]') == "Six men's morris"
    assert page.text_content("#game-name") == "Three Musketeers 4×4"  # the board a visit opens
    info = page.request.get(web_server + "api/v1/info").json()
    for board in info["boards"]:  # info serves each game's references, as declared
        assert board["references"] == [dict(r) for r in games.get(board["game"], board["variant"]).references]
    for name in ("six-mens-morris", "tic-tac-toe", "three-mens-morris", "three-musketeers"):
        load(page, f"{web_server}?game={name}")  # the game's name alone: its start
        game = games.get(name, "4x4" if name == "three-musketeers" else None)
        wait_for(page, game.start())
        assert page.text_content("#game-name") == label_of(game)
        assert page.get_attribute("#boards button[aria-pressed=true]", "data-key") == game.file_stem
        query = parse_qs(urlparse(page.url).query)
        assert query["start"] == [str(game.start()).replace(" ", "_")] and query["game"] == [name]
        links = page.eval_on_selector_all("footer a", "as => as.map(a => a.getAttribute('href').split('?')[0])")
        assert links == FIXED_LINKS + [r["url"] for r in game.references]
    expected = {  # the references each page links (besides README, source and API)
        "three-musketeers": ["https://github.com/jlaire/3M",
                             "https://github.com/alielabridi/Weakly-Solving-Three-Musketeers-Game"],
        "tic-tac-toe": ["https://en.wikipedia.org/wiki/Tic-tac-toe"],
        "three-mens-morris": ["https://en.wikipedia.org/wiki/Three_men%27s_morris"],
        "six-mens-morris": ["https://en.wikipedia.org/wiki/Nine_men%27s_morris",
                            "https://library.slmath.org/books/Book29/files/gasser.pdf"],
    }
    for name, urls in expected.items():
        assert [r["url"] for r in games.get(name).references] == urls


def editor_shows(page, text: str) -> None:
    page.wait_for_function("t => document.getElementById('position-text').value === t && "
                           "document.getElementById('value').textContent !== '…'", arg=text)


def test_the_editor_s_side_follows_the_hands_and_counts_out_of_range_say_why(page, web_server, game_dbs):
    from retro import games

    six = games.get("six-mens-morris")
    sdb = game_dbs["six-mens-morris"]
    load(page, f"{web_server}?game=six-mens-morris")
    page.click("#edit")
    page.click("#edit-clear")
    page.click('circle[data-square="a1"]')  # White places: 5 and 6 in hand, so Black is to move
    placed = six.parse("B 5 6 W.. ... .... ... ...")
    editor_shows(page, str(placed))
    assert page.text_content("#value") == value_text(sdb.probe(placed))
    assert page.is_checked('input[name=edit-side][value="B"]') and page.text_content("#edit-error") == ""
    page.click('circle[data-square="c2"]')  # a white piece, then a black one: 5 and 5, White to move
    page.click('circle[data-square="c2"]')
    both = six.parse("W 5 5 W.. .B. .... ... ...")
    editor_shows(page, str(both))
    assert page.text_content("#value") == value_text(sdb.probe(both))
    assert page.is_checked('input[name=edit-side][value="W"]')
    for count in ("7", "-1"):  # what the CLI says of that position, where the editor says it
        page.fill("#hand-0", count)
        text = f"W {count} 5 W.. .B. .... ... ..."
        with pytest.raises(PositionError) as error:
            six.parse(text)
        page.wait_for_function("t => document.getElementById('edit-error').textContent === t", arg=str(error.value))
        assert shown(page) == text and page.text_content("#value") == "Not a position"
        assert page.is_disabled("#edit-done")
    page.fill("#hand-0", "4")  # 4 and 5: Black places next
    fewer = six.parse("B 4 5 W.. .B. .... ... ...")
    editor_shows(page, str(fewer))
    assert page.text_content("#value") == value_text(sdb.probe(fewer)) and page.text_content("#edit-error") == ""

    ttt = games.get("tic-tac-toe")  # the marks decide too: X marks, then O is to move
    load(page, f"{web_server}?game=tic-tac-toe")
    page.click("#edit")
    page.click('rect[data-square="b2"]')
    marked = ttt.parse("O ... .X. ...")
    editor_shows(page, str(marked))
    assert page.text_content("#value") == value_text(game_dbs["tic-tac-toe"].probe(marked))
    assert page.is_checked('input[name=edit-side][value="O"]')


def test_the_chart_follows_an_edit_and_play_it_out_is_one_history_entry(page, web_server, dbs):
    db = dbs[4]
    start = Position.start(4)
    line = db.line(start)
    load(page, url_of(web_server, start, line[:3]))
    assert page.locator("#chart .bar").count() == 4
    page.click("#edit")  # the chart shows the setup, not the game left behind
    here = positions(start, line[:3])[-1]
    page.wait_for_function("() => document.querySelectorAll('#chart .bar').length === 1")
    outcome = db.probe(here)
    tone = {Side.MUSKETEERS: "s0", Side.ENEMY: "s1", None: "d"}[outcome.winner]
    assert page.get_attribute("#chart .bar", "class").split()[1] == tone
    assert page.text_content("#chart .bar title") == f"start: {outcome}"
    enemy = next(name for name in ("a1", "b1", "c1", "d1") if str(here).split()[1]["abcd".index(name[0])] == "X")
    page.click(f'rect[data-square="{enemy}"]')  # an enemy man less
    fewer = Position.parse(str(here)[:2 + "abcd".index(enemy[0])] + "." + str(here)[3 + "abcd".index(enemy[0]):])
    editor_shows(page, str(fewer))
    assert page.locator("#chart .bar").count() == 1
    assert page.text_content("#chart .bar title") == f"start: {db.probe(fewer)}"
    page.click("#edit-cancel")
    wait_for(page, here)
    assert page.locator("#chart .bar").count() == 4

    page.click("#show-line")
    page.wait_for_selector("#line button")
    entries = page.evaluate("history.length")
    page.click("#play-line")
    end = positions(here, db.line(here))[-1]
    wait_for(page, end)
    assert moves_in_url(page) == [str(m) for m in line[:3] + db.line(here)]
    assert page.evaluate("history.length") == entries + 1  # one entry for the whole line
    page.go_back()
    wait_for(page, here)


def straddling(page, box: str) -> list[str]:
    """The rows of a scrolling list that its box cuts at its bottom edge (none when the
    box shows whole rows), after checking the list does overflow."""
    return page.evaluate("""box => {
        const list = document.querySelector(box);
        if (list.scrollHeight <= list.clientHeight) return ['no overflow'];
        const bottom = list.getBoundingClientRect().top + list.clientTop + list.clientHeight;
        return [...list.children].filter(li => {
            const r = li.getBoundingClientRect();
            return r.top < bottom - 0.5 && r.bottom > bottom + 0.5;
        }).map(li => li.textContent);
    }""", box)


def test_list_boxes_show_whole_rows(browser, page, web_server, dbs):
    from retro import games

    start = Position.start(4)
    line = dbs[4].line(start)
    assert len(line) >= 24
    six = games.get("six-mens-morris")
    for tab in (page, browser.new_page(viewport={"width": 375, "height": 740})):
        load(tab, url_of(web_server, six.start(), game="six-mens-morris"))  # 16 placements
        assert straddling(tab, "#moves") == []
        load(tab, url_of(web_server, start, line, ply=0))
        assert straddling(tab, "#game") == []
        if tab is not page:  # the perfect line's box, under the board, overflows on a phone
            tab.click("#show-line")
            tab.wait_for_selector("#line button")
            assert straddling(tab, "#line") == []
            tab.close()


def score_on_page(page, box: str) -> str:
    """A list's rows as text: each row's number, then its moves (without their values)."""
    return page.evaluate("""box => [...document.querySelectorAll(box + ' > li.row')].map(li =>
        [...li.children].map(c => c.classList.contains('n') ? c.textContent
                                  : (c.querySelector('.mono') || c).textContent).join(' ')).join(' ')""", box)


def test_moves_are_numbered_by_pairs_as_the_terminal_numbers_them(page, web_server, dbs):
    from retro.play import score

    db = dbs[4]
    start = Position.start(4)
    line = db.line(start)
    load(page, url_of(web_server, start, line[:5]))
    sides = [p.side for p in positions(start, line[:5])]
    assert score_on_page(page, "#game") == score(list(zip(sides, line[:5])), Side.MUSKETEERS)
    assert score_on_page(page, "#game").startswith(f"1. {line[0]} {line[1]} 2. {line[2]}")

    after = start.play(line[0])  # a game that begins with the enemy to move: "1. ... d1-e1"
    game = line[1:4]
    load(page, url_of(web_server, after, game))
    sides = [p.side for p in positions(after, game)]
    assert score_on_page(page, "#game") == score(list(zip(sides, game)), Side.MUSKETEERS)
    assert score_on_page(page, "#game").startswith(f"1. ... {line[1]} 2. {line[2]} {line[3]}")
    assert "to move · move 3 · ply 3 of 3" in page.text_content("#turn")
    page.click("#show-line")  # the perfect line goes on with the game's numbers
    page.wait_for_selector("#line button")
    rest = db.line(positions(after, game)[-1])
    every = game + rest
    whole = score(list(zip([p.side for p in positions(after, every)], every)), Side.MUSKETEERS)
    assert score_on_page(page, "#game") + " " + score_on_page(page, "#line") == whole


def test_four_players_on_the_page(page, web_server, db_race):
    """The race: four colours, the goals, every player's value beside the board (as the
    database says), and a game as Player 2 in which the computer plays the three others
    exactly as `retro play` chooses."""
    from retro import games

    race = games.get("four-player-race")
    load(page, web_server)
    page.click('#boards button[data-key="four-player-race"]')
    wait_for(page, race.start())
    assert page.locator("#board [data-goal]").count() == 4
    assert sorted(page.eval_on_selector_all("#board .piece", "ps => ps.map(p => p.dataset.piece)")) == list("1234")
    with open_database(db_race) as db:
        expected = [str(v) for v in db.probe(race.start())]
        assert page.eval_on_selector_all("#players .words", "ws => ws.map(w => w.textContent)") == expected
        page.check('input[name=mode][value="P2"]')  # the computer plays P1 first
        count = "n => document.querySelectorAll('#game button').length >= n"
        page.wait_for_function(count, arg=1)
        assert "your move" in page.text_content("#turn")
        position = race.start().play(moves_in_url(page)[0])
        wait_for(page, position)
        mine = str(db.moves(position)[0][0])
        page.click(f'#moves button[data-move="{mine}"]')
        page.wait_for_function(count, arg=5)  # P3, P4 and P1 answer in turn
        assert "your move" in page.text_content("#turn")
        seed = int(parse_qs(urlparse(page.url).query)["seed"][0])
        replay = race.start()
        for move in moves_in_url(page):
            if replay.side.value != "P2":
                assert move == str(computer_move(db, replay, rng=seed))
            replay = replay.play(move)
        wait_for(page, replay)
        assert page.text_content("#game").count("2.") == 1  # a number per round of four moves


def test_the_chart_legend_names_the_game_s_own_outcomes_only(page, web_server, web_service):
    """Under the chart, one labelled swatch per side of the game, then the draw and the
    thrown result: a two-player game shows no colour of the race's third and fourth
    players, and no swatch is left without its words."""
    from retro import games

    for key, board in web_service.boards.items():
        if board.start() is None:
            continue  # an endgame database: no game to chart at first
        load(page, f"{web_server}?game={key}")
        page.wait_for_selector("#legend .item", state="visible")
        items = page.eval_on_selector_all(
            "#legend .item", "xs => xs.filter(x => x.getClientRects().length > 0).map(x => ["
            "x.classList.contains('side-key'), x.textContent.trim(), x.querySelector('.key').getBoundingClientRect().width])")
        game = games.get(board.game.name, board.game.variant or None)
        sides = [text for side_key, text, _ in items if side_key]
        assert len(sides) == len(game.sides), (key, items)
        assert all(text and width > 0 for _, text, width in items), (key, items)  # a swatch, and its words
        for side, text in zip(game.sides, sides):
            assert side.title.lower() in text.lower(), (key, items)


# --- chess: a chessboard, its editor, promotion --------------------------------------------


@pytest.fixture(scope="module")
def chess_server(databases):
    """A live server of the 3-piece chess set alone (the session's serves no chess): its
    URL and the database, open."""
    from conftest import live_server
    from retro.web import Service, create_app

    path = databases("chess", "3")
    service = Service.open([path])
    db = open_database(path)
    try:
        with live_server(create_app(service)) as url:
            yield url, db
    finally:
        db.close()
        service.close()


def test_chess_on_the_page(page, chess_server):
    """A chessboard (light and dark squares, figures, files under it), the moves' values
    in chess words, a promotion's choice, the editor's palette, a pasted FEN, and the
    fifty-move note."""
    from retro import games

    url, db = chess_server
    chess = games.get("chess", "3")
    start = chess.start()
    load(page, f"{url}?game=chess-3")
    wait_for(page, start)
    assert page.locator("#board svg.chessboard").count() == 1
    assert page.locator("#board .sq.dark").count() == 32 and page.locator("#board .sq.light").count() == 32
    corners = page.eval_on_selector("#board", "b => [0, 7, 56, 63].map(i => b.querySelectorAll('rect.sq')[i]"
                                    ".classList.contains('light'))")
    assert corners == [True, False, False, True]  # a8 and h1 light, h8 and a1 dark
    assert sorted(page.eval_on_selector_all("#board .figure", "fs => fs.map(f => f.closest('.piece').dataset.piece)")) \
        == ["K", "P", "k"]
    files = page.eval_on_selector_all("#board .coord", "cs => cs.filter(c => /[a-h]/.test(c.textContent))"
                                      ".map(c => +c.getAttribute('y'))")
    assert len(files) == 8 and min(files) > 8  # under the board: rank 1's side, in White's view
    assert "fifty-move rule" in page.text_content("#game-note") and page.is_visible("#game-note")
    assert page.text_content("#value") == value_text(db.probe(start))  # "White mates in 22 (43 plies)"
    assert page.text_content("#turn").startswith("White to move")
    said = page.eval_on_selector_all("#moves button", "bs => bs.map(b => [b.dataset.move, "
                                     "b.querySelector('.words').textContent])")
    assert said == [[str(m), str(o)] for m, o in db.moves(start)]
    assert any("mates in" in words for _, words in said)
    pychess = pytest.importorskip("chess")  # the moves as players write them, by python-chess
    written = page.eval_on_selector_all("#moves button .name", "ns => ns.map(n => n.textContent)")
    assert written == [pychess.Board(str(start)).san(pychess.Move.from_uci(str(m))) for m, _ in db.moves(start)]
    assert page.locator("#board rect.sq.check").count() == 0
    page.click('rect[data-square="e8"]')
    assert page.text_content("#message") == "That is Black's king: White is to move."
    page.check('input[name=mode][value="B"]')  # playing Black: Black's side nearest
    assert page.get_attribute("#flip", "aria-pressed") == "true"
    page.check('input[name=mode][value="explore"]')
    page.click("#flip")
    assert page.get_attribute("#flip", "aria-pressed") == "false"

    pawn = chess.parse("k7/6P1/8/8/8/8/8/4K3 w - -")  # g7-g8: what the pawn becomes
    load(page, f"{url}?start={str(pawn).replace(' ', '_')}&game=chess-3")
    wait_for(page, pawn)
    page.click('rect[data-square="g7"]')
    page.click('rect[data-square="g8"]')
    assert page.is_visible("#promotion") and shown(page) == str(pawn)
    choices = page.eval_on_selector_all("#promotion-choices button", "bs => bs.map(b => b.dataset.move)")
    assert choices == ["g7g8q", "g7g8r", "g7g8b", "g7g8n"]
    values = dict((str(m), o) for m, o in db.moves(pawn))
    assert page.get_attribute('#promotion button[data-move="g7g8b"]', "aria-label") == \
        f"Bishop (g7g8b): {values['g7g8b']}"
    page.keyboard.press("Escape")  # no move
    assert page.is_hidden("#promotion") and moves_in_url(page) == []
    page.click('rect[data-square="g7"]')
    page.click('rect[data-square="g8"]')
    page.click('#promotion button[data-move="g7g8r"]')
    wait_for(page, pawn.play("g7g8r"))
    assert moves_in_url(page) == ["g7g8r"] and page.is_hidden("#promotion")
    assert page.text_content('#game button[data-ply="1"]') == "g8=R+"  # SAN in the game's score
    checked = page.eval_on_selector_all("#board rect.sq", "rs => rs.flatMap((r, i) => r.classList.contains('check') "
                                        "? [i] : [])")
    assert checked == [0]  # a8 (rank 8 first), Black's king in check

    page.click("#edit")  # the palette: a piece, then squares
    assert page.is_visible("#edit-palette") and page.locator("#edit-palette button").count() == 13
    page.click("#edit-clear")
    page.check('input[name=edit-side][value="W"]')  # (Black was to move after g7g8r)
    for piece, square in (("K", "e1"), ("k", "a8"), ("Q", "d1"), ("Q", "g1")):
        page.click(f'#edit-palette button[data-piece="{piece}"]')
        page.click(f'rect[data-square="{square}"]')
    page.click('rect[data-square="g1"]')  # the same piece again: off
    setup = chess.parse("k7/8/8/8/8/8/8/3QK3 w - -")
    wait_for(page, setup)
    page.wait_for_function("text => document.getElementById('value').textContent === text",
                           arg=value_text(db.probe(setup)))
    page.click('#edit-palette button[data-piece="K"]')
    page.click('rect[data-square="h1"]')  # a second white king: the API's words
    with pytest.raises(PositionError) as error:
        chess.parse("k7/8/8/8/8/8/8/3QK2K w - -")
    page.wait_for_function("() => document.getElementById('edit-error').textContent !== ''")
    assert page.text_content("#edit-error") == str(error.value) and page.is_disabled("#edit-done")
    pasted = chess.parse("8/8/8/8/8/2k5/8/KQ6 w - -")  # a FEN pasted while editing: into the editor
    page.fill("#position-text", str(pasted))
    page.press("#position-text", "Enter")
    page.wait_for_function("text => document.getElementById('value').textContent === text",
                           arg=value_text(db.probe(pasted)))
    assert page.is_visible("#editor") and page.text_content("#notation-error") == ""
    page.fill("#position-text", "8/8/8/8/8/8/8/8 w - -")  # refused, in the API's words
    page.press("#position-text", "Enter")
    with pytest.raises(PositionError) as error:
        chess.parse("8/8/8/8/8/8/8/8 w - -")
    page.wait_for_function("() => document.getElementById('notation-error').textContent !== ''")
    assert page.text_content("#notation-error") == str(error.value)
    page.fill("#position-text", str(pasted))
    page.press("#position-text", "Enter")
    page.wait_for_function("text => document.getElementById('value').textContent === text",
                           arg=value_text(db.probe(pasted)))
    page.click("#edit-done")
    wait_for(page, pasted)
    assert page.is_hidden("#editor") and page.locator("#board .figure").count() == 3
