/* retro: the page of `retro serve`. Plain JavaScript, no build step, no CDN.
 *
 * The page knows no rules: every legal move, where it leads and every value come
 * from the JSON API (/api/v1/probe, /api/v1/play, /api/v1/line). It only reads the
 * notation to draw the board.
 *
 * The URL holds the game: ?start=<position>&moves=e1-e2,d1-e1[&ply=N][&play=musketeers|enemy&seed=S].
 */
(function () {
  'use strict';

  var SVG = 'http://www.w3.org/2000/svg';
  var FILES = 'abcde';
  var $ = function (id) { return document.getElementById(id); };

  // --- the API -------------------------------------------------------------------------

  function ApiError(message, status) {
    this.message = message;
    this.status = status;
  }

  /** Position text with "_" between its groups: readable in URLs. */
  function linkText(text) { return text.trim().split(/\s+/).join('_'); }

  function api(path, params) {
    var query = Object.keys(params).filter(function (k) { return params[k] !== null && params[k] !== undefined; })
      .map(function (k) { return k + '=' + encodeURIComponent(String(params[k])); }).join('&');
    return fetch('api/v1/' + path + (query ? '?' + query : ''), {headers: {Accept: 'application/json'}})
      .catch(function () { throw new ApiError('the server cannot be reached', 0); })
      .then(function (response) {
        return response.json().catch(function () { return null; }).then(function (data) {
          if (!response.ok) {
            throw new ApiError((data && data.error) || ('the server answered ' + response.status), response.status);
          }
          return data;
        });
      });
  }

  var probes = new Map();  // position text -> promise of its probe answer

  function probe(text) {
    var known = probes.get(text);
    if (known) return known;
    var promise = api('probe', {position: linkText(text)}).then(function (answer) {
      if (answer.position !== text) probes.set(answer.position, promise);
      return answer;
    });
    promise.catch(function () { probes.delete(text); });
    probes.set(text, promise);
    return promise;
  }

  // --- state ---------------------------------------------------------------------------

  var boards = [];  // from /api/v1/info
  var state = {start: null, moves: [], at: 0, mode: 'explore', seed: null};
  var game = {positions: [], answers: []};  // position text and probe answer after each move
  var view = {selected: null, hover: null, hint: null, busy: false, line: null};
  var epoch = 0;  // bumped by every change of game: late answers of an older one are dropped

  function current() { return game.answers[state.at]; }
  function last() { return state.moves.length; }

  function humanSide() { return state.mode === 'explore' ? null : state.mode; }
  function computerSide() {
    var human = humanSide();
    return human === null ? null : human === 'musketeers' ? 'enemy' : 'musketeers';
  }
  function canMove() {
    var here = current();
    if (!here || here.over || view.busy) return false;
    return humanSide() === null || here.side === humanSide();
  }

  function randomSeed() { return String(Math.floor(Math.random() * 1e9)); }

  function capitalize(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

  function sideName(side) { return side === 'musketeers' ? 'Musketeers' : 'Enemy'; }

  function code(outcome) { return (outcome.winner === 'musketeers' ? 'M' : 'E') + outcome.plies; }

  function words(outcome) {
    if (outcome.plies === 0) return outcome.winner === 'musketeers' ? 'the musketeers have won' : 'the enemy has won';
    var who = outcome.winner === 'musketeers' ? 'musketeers win' : 'enemy wins';
    return who + ' in ' + outcome.plies + (outcome.plies === 1 ? ' ply' : ' plies');
  }

  // --- the URL -----------------------------------------------------------------------------

  function readUrl() {
    var q = new URLSearchParams(location.search);
    var start = (q.get('start') || '').replace(/_/g, ' ').trim();
    var ply = q.get('ply');
    var play = q.get('play');
    return {
      start: start || null,
      moves: (q.get('moves') || '').split(',').map(function (m) { return m.trim(); }).filter(Boolean),
      at: ply !== null && /^\d{1,3}$/.test(ply) ? parseInt(ply, 10) : null,
      mode: play === 'musketeers' || play === 'enemy' ? play : 'explore',
      seed: /^\d{1,18}$/.test(q.get('seed') || '') ? q.get('seed') : null
    };
  }

  function urlOf() {
    var parts = ['start=' + encodeURIComponent(linkText(state.start))];
    if (state.moves.length) parts.push('moves=' + state.moves.join(','));
    if (state.at !== last()) parts.push('ply=' + state.at);
    if (state.mode !== 'explore') parts.push('play=' + state.mode, 'seed=' + state.seed);
    return '?' + parts.join('&');
  }

  /** New moves and new games get a history entry (Back undoes them); stepping replaces it. */
  function saveUrl(push) {
    var url = urlOf();
    if (url === location.search) return;
    history[push ? 'pushState' : 'replaceState'](null, '', url);
  }

  // --- loading games -------------------------------------------------------------------------

  /** Probe the start and every move in turn; stops before a move that is not legal. */
  function resolve(start, moves) {
    return probe(start).then(function (first) {
      var out = {positions: [first.position], answers: [first], moves: [], bad: null};
      var step = function (i) {
        if (i >= moves.length) return out;
        var here = out.answers[i];
        var move = here.moves.find(function (m) { return m.move === moves[i]; });
        if (!move) { out.bad = moves[i]; return out; }
        return probe(move.position).then(function (next) {
          out.positions.push(next.position);
          out.answers.push(next);
          out.moves.push(moves[i]);
          return step(i + 1);
        });
      };
      return step(0);
    });
  }

  /** The start of the largest board served whose database holds it (endgame databases do not). */
  function defaultStart() {
    var largest = boards.filter(function (b) { return b.start; })
      .reduce(function (a, b) { return !a || b.size > a.size ? b : a; }, null);
    return largest ? largest.start : null;
  }

  function loadFromUrl() {
    var mine = ++epoch;
    var wanted = readUrl();
    var start = wanted.start || defaultStart();
    if (!start) {  // only endgame databases, which do not hold a start: ask for a position
      say('This server holds endgame databases only: paste a position in the Position box.');
      return Promise.resolve();
    }
    return resolve(start, wanted.moves).catch(function (error) {
      notationError('The link\'s position: ' + error.message);
      if (!defaultStart()) throw error;
      return resolve(defaultStart(), []);
    }).then(function (got) {
      if (mine !== epoch) return;
      view.busy = false;
      game = {positions: got.positions, answers: got.answers};
      state.start = got.positions[0];
      state.moves = got.moves;
      state.at = wanted.at === null ? last() : Math.max(0, Math.min(wanted.at, last()));
      state.mode = wanted.mode;
      state.seed = wanted.seed || (wanted.mode === 'explore' ? null : randomSeed());
      resetView();
      if (got.bad) say('The move ' + got.bad + ' of the link is not legal there: the game stops before it.', true);
      render();
      if (got.bad || !wanted.start) saveUrl(false);
      computerTurn();
    }).catch(function (error) { say(error.message, true); });
  }

  function newGame(answer, push) {
    epoch++;
    view.busy = false;
    game = {positions: [answer.position], answers: [answer]};
    state.start = answer.position;
    state.moves = [];
    state.at = 0;
    resetView();
    say('');
    render();
    saveUrl(push !== false);
    computerTurn();
  }

  function resetView() {
    view.selected = null;
    view.hover = null;
    view.hint = null;
    view.line = null;
  }

  // --- moving ---------------------------------------------------------------------------

  /** Play a legal move of the current position (from the API's list); false for any other. */
  function play(moveText, byComputer) {
    var here = current();
    var move = here && !here.over && here.moves.find(function (m) { return m.move === moveText; });
    if (!move) return Promise.resolve(false);
    var mine = ++epoch;
    view.busy = true;
    return probe(move.position).then(function (next) {
      if (mine !== epoch) return false;
      state.moves = state.moves.slice(0, state.at).concat([moveText]);
      game.positions = game.positions.slice(0, state.at + 1).concat([next.position]);
      game.answers = game.answers.slice(0, state.at + 1).concat([next]);
      state.at += 1;
      view.busy = false;
      resetView();
      say(byComputer ? 'The computer played ' + moveText + '.' : '');
      render();
      saveUrl(!byComputer);  // the computer's answer shares the entry of the move it answers
      return true;
    }, function (error) {
      if (mine === epoch) { view.busy = false; say(error.message, true); render(); }
      return false;
    });
  }

  function humanMove(moveText) {
    if (!canMove()) return;
    play(moveText, false).then(function (moved) { if (moved) computerTurn(); });
  }

  /** In a game against the computer, at the end of the game and on its turn: its move. */
  function computerTurn() {
    var here = current();
    if (!here || computerSide() === null || here.over || here.side !== computerSide() || state.at !== last()) return;
    var mine = epoch;
    view.busy = true;
    say('The computer is thinking…');
    render();
    api('play', {position: linkText(here.position), seed: state.seed}).then(function (reply) {
      if (mine !== epoch) return;
      view.busy = false;
      return play(reply.move, true);
    }).catch(function (error) {
      if (mine === epoch) { view.busy = false; say(error.message, true); render(); }
    });
  }

  function go(ply) {
    ply = Math.max(0, Math.min(ply, last()));
    if (ply === state.at || view.busy) return;
    state.at = ply;
    resetView();
    say('');
    render();
    saveUrl(false);
  }

  /** Undo and redo step one ply, or in a game against the computer to the player's next turn. */
  function undo() {
    var target = state.at - 1;
    var human = humanSide();
    if (human !== null) while (target > 0 && game.answers[target].side !== human) target--;
    go(target);
  }

  function redo() {
    var target = state.at + 1;
    var human = humanSide();
    if (human !== null) while (target < last() && game.answers[target].side !== human) target++;
    go(target);
  }

  function onSquare(name) {
    if (!canMove()) return;
    var here = current();
    if (view.selected) {
      var move = view.selected + '-' + name;
      if (here.moves.some(function (m) { return m.move === move; })) { humanMove(move); return; }
      if (name === view.selected) { view.selected = null; drawBoard(); return; }
    }
    if (here.moves.some(function (m) { return m.move.split('-')[0] === name; })) {
      view.selected = name;
      drawBoard();
    }
    // any other click is a wrong click: nothing changes
  }

  // --- drawing -------------------------------------------------------------------------

  function el(name, attrs, parent) {
    var node = document.createElementNS(SVG, name);
    for (var key in attrs) node.setAttribute(key, attrs[key]);
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(tag, attrs, text) {
    var node = document.createElement(tag);
    for (var key in attrs || {}) {
      if (key === 'class') node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    }
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** The squares of a position text: {size, side, cells: {a1: 'O' | 'X' | '.'}}. */
  function readPosition(text) {
    var groups = text.trim().split(/\s+/);
    var rows = groups.slice(1);
    var cells = {};
    rows.forEach(function (row, r) {
      for (var c = 0; c < row.length; c++) cells[FILES[c] + (r + 1)] = row[c];
    });
    return {size: rows.length, side: groups[0], cells: cells};
  }

  function centre(name) {
    return {x: FILES.indexOf(name[0]) + 0.5, y: parseInt(name.slice(1), 10) - 0.5};
  }

  function arrow(svg, move, kind) {
    var ends = move.split('-');
    var a = centre(ends[0]);
    var b = centre(ends[1]);
    var dx = b.x - a.x;
    var dy = b.y - a.y;
    var tip = {x: b.x - dx * 0.18, y: b.y - dy * 0.18};
    el('line', {x1: a.x + dx * 0.18, y1: a.y + dy * 0.18, x2: tip.x - dx * 0.16, y2: tip.y - dy * 0.16,
      'class': 'arrow ' + kind}, svg);
    var px = -dy * 0.17;
    var py = dx * 0.17;
    el('polygon', {points: [tip.x + dx * 0.06, tip.y + dy * 0.06, tip.x - dx * 0.2 + px, tip.y - dy * 0.2 + py,
      tip.x - dx * 0.2 - px, tip.y - dy * 0.2 - py].join(' '), 'class': 'arrow-head ' + kind}, svg);
  }

  function drawBoard() {
    var here = current();
    var box = $('board');
    box.textContent = '';
    if (!here) return;
    var pos = readPosition(here.position);
    var n = pos.size;
    var svg = el('svg', {viewBox: '-0.55 -0.55 ' + (n + 0.65) + ' ' + (n + 0.65), role: 'img',
      'aria-label': describe(pos)});
    var lastMove = state.at > 0 ? state.moves[state.at - 1].split('-') : [];
    var targets = {};
    if (view.selected) {
      here.moves.forEach(function (m) {
        var ends = m.move.split('-');
        if (ends[0] === view.selected) targets[ends[1]] = true;
      });
    }
    var sources = {};
    if (canMove()) here.moves.forEach(function (m) { sources[m.move.split('-')[0]] = true; });
    for (var c = 0; c < n; c++) {
      el('text', {x: c + 0.5, y: -0.17, 'text-anchor': 'middle', 'class': 'coord'}, svg).textContent = FILES[c];
    }
    for (var r = 0; r < n; r++) {
      el('text', {x: -0.27, y: r + 0.6, 'text-anchor': 'middle', 'class': 'coord'}, svg).textContent = String(r + 1);
      for (c = 0; c < n; c++) {
        var name = FILES[c] + (r + 1);
        var classes = ['sq'];
        if (lastMove[0] === name) classes.push('from');
        if (lastMove[1] === name) classes.push('to');
        if (view.selected === name) classes.push('selected');
        if (sources[name]) classes.push('source');
        if (targets[name]) classes.push('target');
        el('rect', {x: c, y: r, width: 1, height: 1, 'class': classes.join(' '), 'data-square': name}, svg);
      }
    }
    Object.keys(pos.cells).forEach(function (name) {
      var at = centre(name);
      var cell = pos.cells[name];
      if (cell === 'O') {
        var g = el('g', {'class': 'piece', 'data-piece': 'O'}, svg);
        el('circle', {cx: at.x, cy: at.y, r: 0.34, 'class': 'musketeer'}, g);
        el('circle', {cx: at.x, cy: at.y, r: 0.17, 'class': 'musketeer-ring'}, g);
      } else if (cell === 'X') {
        var x = el('g', {'class': 'piece', 'data-piece': 'X'}, svg);
        var d = 0.2;
        el('line', {x1: at.x - d, y1: at.y - d, x2: at.x + d, y2: at.y + d, 'class': 'enemy'}, x);
        el('line', {x1: at.x + d, y1: at.y - d, x2: at.x - d, y2: at.y + d, 'class': 'enemy'}, x);
      }
      if (targets[name]) {
        if (cell === '.') el('circle', {cx: at.x, cy: at.y, r: 0.12, 'class': 'dot'}, svg);
        else el('circle', {cx: at.x, cy: at.y, r: 0.44, 'class': 'ring'}, svg);
      }
    });
    if (view.hint) arrow(svg, view.hint, 'hint');
    if (view.hover && view.hover !== view.hint) arrow(svg, view.hover, 'hover');
    svg.addEventListener('click', function (event) {
      var square = event.target.getAttribute('data-square');
      if (square) onSquare(square);
    });
    box.appendChild(svg);
  }

  function describe(pos) {
    var musketeers = [];
    var enemies = [];
    Object.keys(pos.cells).forEach(function (name) {
      if (pos.cells[name] === 'O') musketeers.push(name);
      if (pos.cells[name] === 'X') enemies.push(name);
    });
    return pos.size + ' by ' + pos.size + ' board. Musketeers on ' + musketeers.join(', ') + '. ' +
      (enemies.length ? enemies.length + ' enemy men on ' + enemies.join(', ') + '.' : 'No enemy men.');
  }

  function drawVerdict() {
    var here = current();
    var value = $('value');
    value.textContent = capitalize(here.value);
    value.className = 'value ' + (here.winner === 'musketeers' ? 'm' : 'e');
    var turn = $('turn');
    turn.textContent = '';
    if (here.over) {
      turn.textContent = capitalize(here.result) + '.';
      return;
    }
    turn.appendChild(html('b', {}, sideName(here.side)));
    var text = ' to move';
    if (humanSide() !== null) text += here.side === humanSide() ? ': your move' : ': the computer\'s move';
    text += ' · ply ' + state.at + (last() ? ' of ' + last() : '');
    turn.appendChild(document.createTextNode(text));
  }

  function drawMoves() {
    var here = current();
    var list = $('moves');
    list.textContent = '';
    if (here.over) {
      list.appendChild(html('li', {'class': 'empty'}, 'No moves: ' + here.result + '.'));
      return;
    }
    var enabled = canMove();
    here.moves.forEach(function (m) {
      var keeps = m.winner === here.side;
      var button = html('button', {type: 'button', 'class': (keeps ? 'win' : 'loss') + (view.hint === m.move ? ' hinted' : ''),
        'data-move': m.move, 'aria-label': m.move + ': ' + (keeps ? 'keeps the win, ' : 'loses, ') + words(m)});
      if (!enabled) button.disabled = true;
      button.appendChild(html('span', {'class': 'mark', 'aria-hidden': 'true'}, keeps ? '✓' : '✗'));
      button.appendChild(html('span', {'class': 'name mono'}, m.move));
      button.appendChild(html('span', {'class': 'words'}, words(m)));
      button.appendChild(html('span', {'class': 'code mono', 'aria-hidden': 'true'}, code(m)));
      button.addEventListener('click', function () { humanMove(m.move); });
      var show = function () { view.hover = m.move; drawBoard(); };
      var hide = function () { if (view.hover === m.move) { view.hover = null; drawBoard(); } };
      button.addEventListener('mouseenter', show);
      button.addEventListener('focus', show);
      button.addEventListener('mouseleave', hide);
      button.addEventListener('blur', hide);
      var li = html('li');
      li.appendChild(button);
      list.appendChild(li);
    });
  }

  /** Moves that threw a win away: the mover was winning before and is losing after. */
  function blunders() {
    var out = {};
    for (var i = 1; i < game.answers.length; i++) {
      var before = game.answers[i - 1];
      if (before.winner === before.side && game.answers[i].winner !== before.side) out[i] = true;
    }
    return out;
  }

  function drawGame() {
    var list = $('game');
    list.textContent = '';
    var thrown = blunders();
    $('game-count').textContent = last() ? last() + (last() === 1 ? ' move' : ' moves') : '';
    if (!last()) list.appendChild(html('li', {'class': 'empty'}, 'No moves yet.'));
    state.moves.forEach(function (move, i) {
      var ply = i + 1;
      var mover = game.answers[i].side;
      var button = html('button', {type: 'button', 'class': (ply === state.at ? 'current' : '') + (thrown[ply] ? ' blunder' : ''),
        'aria-label': 'Ply ' + ply + ', ' + mover + ' ' + move + (thrown[ply] ? ', threw the win away' : '') +
          '; then ' + words(game.answers[ply]), 'data-ply': ply});
      if (ply === state.at) button.setAttribute('aria-current', 'step');
      button.appendChild(html('span', {'class': 'n'}, ply + '.'));
      button.appendChild(html('span', {'class': 'mono'}, move));
      button.addEventListener('click', function () { go(ply); });
      var li = html('li');
      li.appendChild(button);
      list.appendChild(li);
    });
    var currentButton = list.querySelector('.current');
    if (currentButton && currentButton.scrollIntoView) currentButton.scrollIntoView({block: 'nearest'});
  }

  function drawChart() {
    var box = $('chart');
    box.textContent = '';
    var answers = game.answers;
    var thrown = blunders();
    var width = 340;
    var height = 120;
    var left = 22;
    var top = 14;
    var bottom = 16;
    var top_plies = Math.max(4, Math.max.apply(null, answers.map(function (a) { return a.plies; })));
    var slot = Math.min(24, (width - left - 4) / answers.length);
    var svg = el('svg', {viewBox: '0 0 ' + width + ' ' + height, role: 'img',
      'aria-label': 'Plies to the end after each move: ' + answers.map(code).join(', ')});
    var base = height - bottom;
    el('line', {x1: left, y1: base + 0.5, x2: width, y2: base + 0.5, 'class': 'axis'}, svg);
    el('text', {x: left - 4, y: top + 4, 'text-anchor': 'end', 'class': 'tick'}, svg).textContent = String(top_plies);
    el('text', {x: left - 4, y: base, 'text-anchor': 'end', 'class': 'tick'}, svg).textContent = '0';
    answers.forEach(function (a, i) {
      var h = Math.max(1.5, (base - top) * a.plies / top_plies);
      var x = left + i * slot + slot * 0.12;
      var bar = el('rect', {x: x, y: base - h, width: Math.max(1, slot * 0.76), height: h, rx: Math.min(2, slot / 6),
        'class': 'bar ' + (a.winner === 'musketeers' ? 'm' : 'e') + (i === state.at ? ' current' : ''), 'data-ply': i}, svg);
      el('title', {}, bar).textContent = (i === 0 ? 'start' : 'after ply ' + i + ' (' + state.moves[i - 1] + ')') + ': ' + words(a) +
        (thrown[i] ? '; this move threw the win away' : '');
      bar.addEventListener('click', function () { go(i); });
      if (thrown[i]) {
        el('text', {x: x + slot * 0.38, y: base - h - 2, 'text-anchor': 'middle', 'class': 'blunder'}, svg).textContent = '▼';
      }
      if (answers.length <= 24 || i % 5 === 0) {
        el('text', {x: x + slot * 0.38, y: height - 3, 'text-anchor': 'middle', 'class': 'tick'}, svg).textContent = String(i);
      }
    });
    box.appendChild(svg);
  }

  function drawControls() {
    var here = current();
    $('to-start').disabled = view.busy || state.at === 0;
    $('undo').disabled = view.busy || state.at === 0;
    $('redo').disabled = view.busy || state.at === last();
    $('to-end').disabled = view.busy || state.at === last();
    $('hint').disabled = !canMove();
    $('show-line').disabled = view.busy || here.over;
    document.querySelectorAll('input[name=mode]').forEach(function (radio) { radio.checked = radio.value === state.mode; });
    var size = readPosition(here.position).size;
    document.querySelectorAll('#boards button').forEach(function (button) {
      button.setAttribute('aria-pressed', String(Number(button.getAttribute('data-size')) === size));
    });
  }

  function drawLine() {
    var card = $('line-card');
    if (!view.line) { card.hidden = true; return; }
    card.hidden = false;
    var list = $('line');
    list.textContent = '';
    $('line-count').textContent = view.line.line.length + (view.line.line.length === 1 ? ' ply' : ' plies');
    view.line.line.forEach(function (step, i) {
      var li = html('li');
      li.appendChild(html('span', {'class': 'n'}, (state.at + i + 1) + '.'));
      li.appendChild(html('span', {'class': 'mono'}, step.move));
      li.appendChild(html('span', {'class': 'code mono'}, code(step)));
      list.appendChild(li);
    });
    $('play-line').hidden = humanSide() !== null;
  }

  function drawNotation() {
    var input = $('position-text');
    if (document.activeElement !== input) input.value = current().position;
  }

  function render() {
    if (!current()) return;
    drawVerdict();
    drawBoard();
    drawMoves();
    drawGame();
    drawChart();
    drawControls();
    drawLine();
    drawNotation();
  }

  function say(text, isError) {
    var box = $('message');
    box.textContent = text;
    box.className = 'message' + (isError ? ' error' : '');
  }

  function notationError(text) {
    $('notation-error').textContent = text;
    $('position-text').setAttribute('aria-invalid', text ? 'true' : 'false');
  }

  // --- wiring ----------------------------------------------------------------------------

  function copy(text, what) {
    var done = function () { say(what + ' copied.'); };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(done, function () { say(text); });
    } else {
      say(text);
    }
  }

  function wire() {
    $('to-start').addEventListener('click', function () { go(0); });
    $('undo').addEventListener('click', undo);
    $('redo').addEventListener('click', redo);
    $('to-end').addEventListener('click', function () { go(last()); });
    $('hint').addEventListener('click', function () {
      var here = current();
      if (!canMove() || !here.moves.length) return;
      view.hint = here.moves[0].move;
      say('Hint: ' + view.hint + ' (' + words(here.moves[0]) + ').');
      drawBoard();
      drawMoves();
    });
    $('show-line').addEventListener('click', function () {
      var here = current();
      if (!here) return;
      var mine = epoch;
      api('line', {position: linkText(here.position)}).then(function (line) {
        if (mine !== epoch || current().position !== line.position) return;
        view.line = line;
        drawLine();
        $('line-card').scrollIntoView({block: 'nearest'});
      }, function (error) { say(error.message, true); });
    });
    $('play-line').addEventListener('click', function () {
      if (!view.line || humanSide() !== null) return;
      var moves = view.line.line.map(function (step) { return step.move; });
      var next = function (i) {
        if (i >= moves.length) return;
        play(moves[i], false).then(function (moved) { if (moved) next(i + 1); });
      };
      next(0);
    });
    $('new-game').addEventListener('click', function () {
      if (!current()) return;
      var size = readPosition(current().position).size;
      var board = boards.find(function (b) { return b.size === size && b.start; });
      probe(board ? board.start : defaultStart()).then(function (answer) { newGame(answer); },
        function (error) { say(error.message, true); });
    });
    document.querySelectorAll('input[name=mode]').forEach(function (radio) {
      radio.addEventListener('change', function () {
        if (!radio.checked || !current()) return;
        state.mode = radio.value;
        if (state.mode !== 'explore' && !state.seed) state.seed = randomSeed();
        resetView();
        say(state.mode === 'explore' ? 'Explore: move both sides.' : 'You play the ' + state.mode + '.');
        render();
        saveUrl(true);
        computerTurn();
      });
    });
    $('notation').addEventListener('submit', function (event) {
      event.preventDefault();
      var text = $('position-text').value.trim();
      if (!text) { notationError('Type a position first, e.g. ' + defaultStart()); return; }
      probe(text).then(function (answer) {
        notationError('');
        $('position-text').blur();
        newGame(answer);
      }, function (error) { notationError(error.message); });
    });
    $('position-text').addEventListener('input', function () { notationError(''); });
    $('copy-position').addEventListener('click', function () { if (current()) copy(current().position, 'Position'); });
    $('copy-link').addEventListener('click', function () { copy(location.href, 'Link'); });
    document.addEventListener('keydown', function (event) {
      var tag = event.target && event.target.tagName;
      if (tag === 'INPUT' || tag === 'TEXTAREA' || event.altKey || event.ctrlKey || event.metaKey) return;
      var keys = {ArrowLeft: function () { go(state.at - 1); }, ArrowRight: function () { go(state.at + 1); },
        Home: function () { go(0); }, End: function () { go(last()); }};
      if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
    });
    window.addEventListener('popstate', function () { loadFromUrl(); });
  }

  function start() {
    wire();
    api('info', {}).then(function (info) {
      boards = info.boards;
      var nav = $('boards');
      boards.slice().sort(function (a, b) { return b.size - a.size; }).forEach(function (board) {
        var button = html('button', {type: 'button', 'data-size': board.size, 'aria-pressed': 'false',
          title: board.start ? 'New game on the ' + board.board + ' board'
            : 'An endgame database: positions with at most ' + board.max_enemy_men +
              ' enemy men; load one in the Position box'}, board.size + '×' + board.size);
        if (!board.start) button.disabled = true;
        button.addEventListener('click', function () {
          probe(board.start).then(function (answer) { newGame(answer); }, function (error) { say(error.message, true); });
        });
        nav.appendChild(button);
      });
      return loadFromUrl();
    }).catch(function (error) { say(error.message, true); });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
