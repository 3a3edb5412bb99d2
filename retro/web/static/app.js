/* retro: the page of `retro serve`. Plain JavaScript, no build step, no CDN.
 *
 * The page knows no rules: every legal move, where it leads and every value come
 * from the JSON API (/api/v1/probe, /api/v1/play, /api/v1/line); every game's board
 * (squares of a grid, or points joined by lines), its sides and its pieces come from
 * /api/v1/info. It only reads the notation to draw the board: the side to move, the
 * pieces in hand (morris), then one character per point in the order info lists the
 * points; and a move's squares: `from-to`, a placement `to`, a removal `...xsquare`.
 *
 * The URL holds the game: ?start=<position>&moves=e1-e2,d1-e1[&ply=N][&play=<side>&seed=S][&game=<name>].
 */
(function () {
  'use strict';

  var SVG = 'http://www.w3.org/2000/svg';
  var $ = function (id) { return document.getElementById(id); };
  var MOVE = /^(?:([a-e][1-5])-)?([a-e][1-5])(?:x([a-e][1-5]))?$/;

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

  var probes = new Map();  // game + position text -> promise of its probe answer

  /** The probe answer of a position, in ``game``'s notation (a game's name), or in the
   *  notation of whatever game reads it (null). */
  function probe(text, game) {
    var key = (game || '') + '|' + text;
    var known = probes.get(key);
    if (known) return known;
    var promise = api('probe', {position: linkText(text), game: game}).then(function (answer) {
      if (answer.position !== text) probes.set((game || '') + '|' + answer.position, promise);
      return answer;
    });
    promise.catch(function () { probes.delete(key); });
    probes.set(key, promise);
    return promise;
  }

  // --- boards and games -------------------------------------------------------------------

  var boards = [];  // from /api/v1/info

  /** The board (game) an answer belongs to: Three Musketeers' answers name their size,
   *  the others their game. */
  function boardOf(answer) {
    return boards.find(function (b) {
      return answer.game ? b.full_name === answer.game : b.size === answer.size && b.game === 'three-musketeers';
    }) || null;
  }

  function currentBoard() { var here = current(); return here ? boardOf(here) : null; }

  function sideOf(board, name) {
    return board.sides.find(function (s) { return s.name === name; }) || {name: name, title: name, letter: '?'};
  }

  /** 's0', 's1' or 'd': who an outcome favours, for colours. */
  function tone(board, outcome) {
    if (outcome.winner === null || outcome.winner === undefined) return 'd';
    return board.sides[0].name === outcome.winner ? 's0' : 's1';
  }

  function code(board, outcome) {
    if (outcome.winner === null || outcome.winner === undefined) return 'D';
    return sideOf(board, outcome.winner).letter + outcome.plies;
  }

  function words(board, outcome) {
    if (outcome.winner === null || outcome.winner === undefined) return 'a draw';
    var side = sideOf(board, outcome.winner);
    if (outcome.plies === 0) return side.title + (side.plural ? ' have won' : ' has won');
    return side.title + (side.plural ? ' win' : ' wins') + ' in ' + outcome.plies + (outcome.plies === 1 ? ' ply' : ' plies');
  }

  /** The pieces on the board and in hand: {side, cells: {point: char}, hands: [w, b] | null}. */
  function readPosition(board, text) {
    var tokens = text.trim().split(/\s+/);
    var geometry = board.geometry;
    var skip = geometry.hands ? 2 : 0;
    var chars = tokens.slice(1 + skip).join('');
    var cells = {};
    geometry.points.forEach(function (point, i) { cells[point.name] = chars[i] || '.'; });
    return {side: tokens[0], cells: cells, hands: geometry.hands ? [tokens[1], tokens[2]] : null};
  }

  function parseMove(text) {
    var m = MOVE.exec(text);
    return m ? {from: m[1] || null, to: m[2], remove: m[3] || null} : {from: null, to: null, remove: null};
  }

  // --- state ---------------------------------------------------------------------------

  var state = {start: null, moves: [], at: 0, mode: 'explore', seed: null, game: null};
  var game = {positions: [], answers: []};  // position text and probe answer after each move
  var view = {selected: null, placing: null, hover: null, hint: null, busy: false, line: null};
  var epoch = 0;  // bumped by every change of game: late answers of an older one are dropped

  function current() { return game.answers[state.at]; }
  function last() { return state.moves.length; }

  function humanSide() { return state.mode === 'explore' ? null : state.mode; }
  function computerSide() {
    var human = humanSide();
    var board = currentBoard();
    if (human === null || !board) return null;
    return board.sides[0].name === human ? board.sides[1].name : board.sides[0].name;
  }
  function canMove() {
    var here = current();
    if (!here || here.over || view.busy) return false;
    return humanSide() === null || here.side === humanSide();
  }

  function randomSeed() { return String(Math.floor(Math.random() * 1e9)); }

  function capitalize(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

  // --- the URL -----------------------------------------------------------------------------

  function readUrl() {
    var q = new URLSearchParams(location.search);
    var start = (q.get('start') || '').replace(/_/g, ' ').trim();
    var ply = q.get('ply');
    var play = q.get('play');
    var name = q.get('game');
    return {
      start: start || null,
      moves: (q.get('moves') || '').split(',').map(function (m) { return m.trim(); }).filter(Boolean),
      at: ply !== null && /^\d{1,3}$/.test(ply) ? parseInt(ply, 10) : null,
      mode: play && /^[A-Za-z]{1,20}$/.test(play) ? play : 'explore',
      seed: /^\d{1,18}$/.test(q.get('seed') || '') ? q.get('seed') : null,
      game: name && /^[a-z-]{1,40}$/.test(name) ? name : null
    };
  }

  function urlOf() {
    var parts = ['start=' + encodeURIComponent(linkText(state.start))];
    if (state.moves.length) parts.push('moves=' + state.moves.join(','));
    if (state.at !== last()) parts.push('ply=' + state.at);
    if (state.mode !== 'explore') parts.push('play=' + state.mode, 'seed=' + state.seed);
    if (state.game) parts.push('game=' + state.game);
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
  function resolve(start, moves, name) {
    return probe(start, name).then(function (first) {
      var out = {positions: [first.position], answers: [first], moves: [], bad: null};
      var step = function (i) {
        if (i >= moves.length) return out;
        var here = out.answers[i];
        var move = here.moves.find(function (m) { return m.move === moves[i]; });
        if (!move) { out.bad = moves[i]; return out; }
        return probe(move.position, name).then(function (next) {
          out.positions.push(next.position);
          out.answers.push(next);
          out.moves.push(moves[i]);
          return step(i + 1);
        });
      };
      return step(0);
    });
  }

  /** The board a new visit opens: the largest Three Musketeers board whose database
   *  holds its start, else the first board holding its start. */
  function defaultBoard() {
    var withStart = boards.filter(function (b) { return b.start; });
    var musketeers = withStart.filter(function (b) { return b.game === 'three-musketeers'; })
      .reduce(function (a, b) { return !a || b.size > a.size ? b : a; }, null);
    return musketeers || withStart[0] || null;
  }

  /** The ``game`` parameter a board's requests carry (its registry name). */
  function gameParam(board) { return board ? board.game : null; }

  function loadFromUrl() {
    var mine = ++epoch;
    var wanted = readUrl();
    var fallback = defaultBoard();
    var start = wanted.start || (fallback && fallback.start);
    var name = wanted.start ? wanted.game : gameParam(fallback);
    if (!start) {  // only endgame databases, which do not hold a start: ask for a position
      say('This server holds endgame databases only: paste a position in the Position box.');
      return Promise.resolve();
    }
    return resolve(start, wanted.moves, name).catch(function (error) {
      notationError('The link\'s position: ' + error.message);
      if (!fallback) throw error;
      name = gameParam(fallback);
      return resolve(fallback.start, [], name);
    }).then(function (got) {
      if (mine !== epoch) return;
      view.busy = false;
      game = {positions: got.positions, answers: got.answers};
      state.start = got.positions[0];
      state.moves = got.moves;
      state.at = wanted.at === null ? last() : Math.max(0, Math.min(wanted.at, last()));
      state.game = name;
      var board = boardOf(got.answers[0]);
      var sides = board ? board.sides.map(function (s) { return s.name; }) : [];
      state.mode = sides.indexOf(wanted.mode) >= 0 ? wanted.mode : 'explore';
      state.seed = wanted.seed || (state.mode === 'explore' ? null : randomSeed());
      resetView();
      if (got.bad) say('The move ' + got.bad + ' of the link is not legal there: the game stops before it.', true);
      render();
      if (got.bad || !wanted.start) saveUrl(false);
      computerTurn();
    }).catch(function (error) { say(error.message, true); });
  }

  function newGame(answer, push, name) {
    epoch++;
    view.busy = false;
    game = {positions: [answer.position], answers: [answer]};
    state.start = answer.position;
    state.moves = [];
    state.at = 0;
    if (name !== undefined) state.game = name;
    var board = boardOf(answer);
    if (board && state.mode !== 'explore' && !board.sides.some(function (s) { return s.name === state.mode; })) {
      state.mode = 'explore';
    }
    resetView();
    say('');
    render();
    saveUrl(push !== false);
    computerTurn();
  }

  function resetView() {
    view.selected = null;
    view.placing = null;
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
    return probe(move.position, state.game).then(function (next) {
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
    api('play', {position: linkText(here.position), seed: state.seed, game: state.game}).then(function (reply) {
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

  /** The legal moves matching a chosen source (null: a placement) and target. */
  function movesTo(from, to) {
    return current().moves.filter(function (m) {
      var p = parseMove(m.move);
      return p.from === from && p.to === to;
    });
  }

  /** A click on a point: choose a piece, its target, or (when a mill removes a piece)
   *  the piece to remove; a placement is a click on its point. */
  function onSquare(name) {
    if (!canMove()) return;
    var here = current();
    if (view.placing) {  // a move that removes: which piece
      var removing = view.placing.find(function (m) { return parseMove(m.move).remove === name; });
      if (removing) { humanMove(removing.move); return; }
      view.placing = null;
      view.selected = null;
      drawBoard();
      return;
    }
    var choose = function (candidates) {
      if (candidates.length === 1) { humanMove(candidates[0].move); return true; }
      if (candidates.length > 1) { view.placing = candidates; drawBoard(); say('Choose the piece to remove.'); return true; }
      return false;
    };
    if (view.selected) {
      if (choose(movesTo(view.selected, name))) return;
      if (name === view.selected) { view.selected = null; drawBoard(); return; }
    }
    if (choose(movesTo(null, name))) return;
    if (here.moves.some(function (m) { return parseMove(m.move).from === name; })) {
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

  function centres(board) {
    var out = {};
    board.geometry.points.forEach(function (p) { out[p.name] = {x: p.x + 0.5, y: p.y + 0.5}; });
    return out;
  }

  function arrow(svg, at, move, kind) {
    var p = parseMove(move);
    if (!p.to) return;
    if (!p.from) {  // a placement: a ring on its point
      el('circle', {cx: at[p.to].x, cy: at[p.to].y, r: 0.3, 'class': 'arrow ' + kind}, svg);
    } else {
      var a = at[p.from];
      var b = at[p.to];
      var dx = b.x - a.x;
      var dy = b.y - a.y;
      var length = Math.sqrt(dx * dx + dy * dy);
      var ux = dx / length;
      var uy = dy / length;
      var tip = {x: b.x - ux * 0.18, y: b.y - uy * 0.18};
      el('line', {x1: a.x + ux * 0.18, y1: a.y + uy * 0.18, x2: tip.x - ux * 0.16, y2: tip.y - uy * 0.16,
        'class': 'arrow ' + kind}, svg);
      var px = -uy * 0.17;
      var py = ux * 0.17;
      el('polygon', {points: [tip.x + ux * 0.06, tip.y + uy * 0.06, tip.x - ux * 0.2 + px, tip.y - uy * 0.2 + py,
        tip.x - ux * 0.2 - px, tip.y - uy * 0.2 - py].join(' '), 'class': 'arrow-head ' + kind}, svg);
    }
    if (p.remove) {
      var r = at[p.remove];
      var d = 0.22;
      el('line', {x1: r.x - d, y1: r.y - d, x2: r.x + d, y2: r.y + d, 'class': 'arrow ' + kind}, svg);
      el('line', {x1: r.x + d, y1: r.y - d, x2: r.x - d, y2: r.y + d, 'class': 'arrow ' + kind}, svg);
    }
  }

  function drawPiece(svg, at, shape, char) {
    var g = el('g', {'class': 'piece', 'data-piece': char}, svg);
    if (shape === 'ring') {
      el('circle', {cx: at.x, cy: at.y, r: 0.34, 'class': 'musketeer'}, g);
      el('circle', {cx: at.x, cy: at.y, r: 0.17, 'class': 'musketeer-ring'}, g);
    } else if (shape === 'cross') {
      var d = 0.2;
      el('line', {x1: at.x - d, y1: at.y - d, x2: at.x + d, y2: at.y + d, 'class': 'enemy'}, g);
      el('line', {x1: at.x + d, y1: at.y - d, x2: at.x - d, y2: at.y + d, 'class': 'enemy'}, g);
    } else {
      el('circle', {cx: at.x, cy: at.y, r: 0.3, 'class': 'stone ' + shape}, g);
    }
  }

  function drawBoard() {
    var here = current();
    var box = $('board');
    box.textContent = '';
    var board = here && boardOf(here);
    if (!board) return;
    var geometry = board.geometry;
    var pos = readPosition(board, here.position);
    var at = centres(board);
    var columns = geometry.columns;
    var rows = geometry.rows;
    var svg = el('svg', {viewBox: '-0.55 -0.55 ' + (columns + 0.65) + ' ' + (rows + 0.65), role: 'img',
      'aria-label': describe(board, pos)});
    var lastMove = state.at > 0 ? parseMove(state.moves[state.at - 1]) : {};
    var targets = {};
    var removals = {};
    if (view.placing) view.placing.forEach(function (m) { removals[parseMove(m.move).remove] = true; });
    else if (view.selected) {
      here.moves.forEach(function (m) {
        var p = parseMove(m.move);
        if (p.from === view.selected) targets[p.to] = true;
      });
    }
    var sources = {};
    if (canMove()) {
      here.moves.forEach(function (m) {
        var p = parseMove(m.move);
        if (p.from) sources[p.from] = true;
        else if (!view.selected) targets[p.to] = true;  // placements: their points
      });
    }
    var files = 'abcde';
    for (var c = 0; c < columns; c++) {
      el('text', {x: c + 0.5, y: -0.17, 'text-anchor': 'middle', 'class': 'coord'}, svg).textContent = files[c];
    }
    for (var r = 0; r < rows; r++) {
      el('text', {x: -0.27, y: r + 0.6, 'text-anchor': 'middle', 'class': 'coord'}, svg).textContent = String(r + 1);
    }
    var grid = geometry.kind === 'grid';
    if (!grid) {
      el('rect', {x: 0, y: 0, width: columns, height: rows, 'class': 'plank'}, svg);
      geometry.lines.forEach(function (line) {
        var a = at[line[0]];
        var b = at[line[1]];
        el('line', {x1: a.x, y1: a.y, x2: b.x, y2: b.y, 'class': 'edge'}, svg);
      });
    }
    geometry.points.forEach(function (point) {
      var name = point.name;
      var classes = [grid ? 'sq' : 'pt'];
      if (lastMove.from === name) classes.push('from');
      if (lastMove.to === name) classes.push('to');
      if (view.selected === name) classes.push('selected');
      if (sources[name]) classes.push('source');
      if (targets[name] || removals[name]) classes.push('target');
      if (grid) {
        el('rect', {x: point.x, y: point.y, width: 1, height: 1, 'class': classes.join(' '), 'data-square': name}, svg);
      } else {
        el('circle', {cx: at[name].x, cy: at[name].y, r: 0.42, 'class': 'hit ' + classes.join(' '), 'data-square': name}, svg);
        el('circle', {cx: at[name].x, cy: at[name].y, r: 0.09, 'class': 'point'}, svg);
      }
    });
    geometry.points.forEach(function (point) {
      var name = point.name;
      var cell = pos.cells[name];
      var piece = geometry.pieces[cell];
      if (piece) drawPiece(svg, at[name], piece.shape, cell);
      if (targets[name] || removals[name]) {
        if (!piece) el('circle', {cx: at[name].x, cy: at[name].y, r: 0.12, 'class': 'dot'}, svg);
        else el('circle', {cx: at[name].x, cy: at[name].y, r: 0.44, 'class': 'ring'}, svg);
      }
    });
    if (view.hint) arrow(svg, at, view.hint, 'hint');
    if (view.hover && view.hover !== view.hint) arrow(svg, at, view.hover, 'hover');
    svg.addEventListener('click', function (event) {
      var square = event.target.getAttribute('data-square');
      if (square) onSquare(square);
    });
    box.appendChild(svg);
    var hands = $('hands');
    if (pos.hands) {
      hands.hidden = false;
      hands.textContent = 'In hand: ' + board.sides[0].title + ' ' + pos.hands[0] + ', ' +
        board.sides[1].title + ' ' + pos.hands[1];
    } else {
      hands.hidden = true;
    }
  }

  function describe(board, pos) {
    var parts = [board.title + ', ' + board.geometry.columns + ' by ' + board.geometry.rows + ' board.'];
    Object.keys(board.geometry.pieces).forEach(function (char) {
      var names = Object.keys(pos.cells).filter(function (n) { return pos.cells[n] === char; });
      var side = sideOf(board, board.geometry.pieces[char].side);
      parts.push(capitalize(side.title) + ': ' + (names.length ? names.join(', ') : 'none') + '.');
    });
    return parts.join(' ');
  }

  function drawVerdict() {
    var here = current();
    var board = boardOf(here);
    var value = $('value');
    value.textContent = capitalize(here.value);
    value.className = 'value ' + tone(board, here);
    var turn = $('turn');
    turn.textContent = '';
    if (here.over) {
      turn.textContent = capitalize(here.result) + '.';
      return;
    }
    turn.appendChild(html('b', {}, capitalize(here.side)));
    var text = ' to move';
    if (humanSide() !== null) text += here.side === humanSide() ? ': your move' : ': the computer\'s move';
    text += ' · ply ' + state.at + (last() ? ' of ' + last() : '');
    turn.appendChild(document.createTextNode(text));
  }

  function drawMoves() {
    var here = current();
    var board = boardOf(here);
    var list = $('moves');
    list.textContent = '';
    if (here.over) {
      list.appendChild(html('li', {'class': 'empty'}, 'No moves: ' + here.result + '.'));
      return;
    }
    var enabled = canMove();
    here.moves.forEach(function (m) {
      var drawn = m.winner === null || m.winner === undefined;
      var keeps = m.winner === here.side;
      var kind = keeps ? 'win' : drawn ? 'draw' : 'loss';
      var button = html('button', {type: 'button', 'class': kind + (view.hint === m.move ? ' hinted' : ''),
        'data-move': m.move, 'aria-label': m.move + ': ' + (keeps ? 'keeps the win, ' : drawn ? 'draws, ' : 'loses, ') +
          words(board, m)});
      if (!enabled) button.disabled = true;
      button.appendChild(html('span', {'class': 'mark', 'aria-hidden': 'true'}, keeps ? '✓' : drawn ? '=' : '✗'));
      button.appendChild(html('span', {'class': 'name mono'}, m.move));
      button.appendChild(html('span', {'class': 'words'}, words(board, m)));
      button.appendChild(html('span', {'class': 'code mono', 'aria-hidden': 'true'}, code(board, m)));
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

  /** Moves that threw a result away: the mover could win (or draw) before and not after. */
  function blunders() {
    var rank = function (answer, side) {
      if (answer.winner === null || answer.winner === undefined) return 1;
      return answer.winner === side ? 2 : 0;
    };
    var out = {};
    for (var i = 1; i < game.answers.length; i++) {
      var before = game.answers[i - 1];
      if (rank(game.answers[i], before.side) < rank(before, before.side)) out[i] = true;
    }
    return out;
  }

  function drawGame() {
    var board = currentBoard();
    var list = $('game');
    list.textContent = '';
    var thrown = blunders();
    $('game-count').textContent = last() ? last() + (last() === 1 ? ' move' : ' moves') : '';
    if (!last()) list.appendChild(html('li', {'class': 'empty'}, 'No moves yet.'));
    state.moves.forEach(function (move, i) {
      var ply = i + 1;
      var mover = game.answers[i].side;
      var button = html('button', {type: 'button', 'class': (ply === state.at ? 'current' : '') + (thrown[ply] ? ' blunder' : ''),
        'aria-label': 'Ply ' + ply + ', ' + mover + ' ' + move + (thrown[ply] ? ', threw the result away' : '') +
          '; then ' + words(board, game.answers[ply]), 'data-ply': ply});
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
    var board = currentBoard();
    var box = $('chart');
    box.textContent = '';
    var answers = game.answers;
    var thrown = blunders();
    var width = 340;
    var height = 120;
    var left = 22;
    var top = 14;
    var bottom = 16;
    var decided = answers.map(function (a) { return a.plies === null || a.plies === undefined ? 0 : a.plies; });
    var topPlies = Math.max(4, Math.max.apply(null, decided));
    var slot = Math.min(24, (width - left - 4) / answers.length);
    var svg = el('svg', {viewBox: '0 0 ' + width + ' ' + height, role: 'img',
      'aria-label': 'Plies to the end after each move: ' + answers.map(function (a) { return code(board, a); }).join(', ')});
    var base = height - bottom;
    el('line', {x1: left, y1: base + 0.5, x2: width, y2: base + 0.5, 'class': 'axis'}, svg);
    el('text', {x: left - 4, y: top + 4, 'text-anchor': 'end', 'class': 'tick'}, svg).textContent = String(topPlies);
    el('text', {x: left - 4, y: base, 'text-anchor': 'end', 'class': 'tick'}, svg).textContent = '0';
    answers.forEach(function (a, i) {
      var drawn = a.plies === null || a.plies === undefined;
      var h = drawn ? (base - top) * 0.5 : Math.max(1.5, (base - top) * a.plies / topPlies);
      var x = left + i * slot + slot * 0.12;
      var bar = el('rect', {x: x, y: base - h, width: Math.max(1, slot * 0.76), height: h, rx: Math.min(2, slot / 6),
        'class': 'bar ' + tone(board, a) + (i === state.at ? ' current' : ''), 'data-ply': i}, svg);
      el('title', {}, bar).textContent = (i === 0 ? 'start' : 'after ply ' + i + ' (' + state.moves[i - 1] + ')') + ': ' +
        words(board, a) + (thrown[i] ? '; this move threw the result away' : '');
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

  function drawLegend() {
    var board = currentBoard();
    if (!board) return;
    $('legend-s0').textContent = board.sides[0].title + (board.sides[0].plural ? ' win' : ' wins');
    $('legend-s1').textContent = board.sides[1].title + (board.sides[1].plural ? ' win' : ' wins');
  }

  function drawModes() {
    var board = currentBoard();
    if (!board) return;
    var radios = document.querySelectorAll('input[name=mode]');
    [1, 2].forEach(function (i) {
      var side = board.sides[i - 1];
      radios[i].value = side.name;
      $('mode-' + i).textContent = 'Play ' + side.title;
    });
    radios.forEach(function (radio) { radio.checked = radio.value === state.mode; });
  }

  function drawControls() {
    var here = current();
    $('to-start').disabled = view.busy || state.at === 0;
    $('undo').disabled = view.busy || state.at === 0;
    $('redo').disabled = view.busy || state.at === last();
    $('to-end').disabled = view.busy || state.at === last();
    $('hint').disabled = !canMove();
    $('show-line').disabled = view.busy || here.over;
    drawModes();
    var board = boardOf(here);
    document.querySelectorAll('#boards button').forEach(function (button) {
      button.setAttribute('aria-pressed', String(board !== null && button.getAttribute('data-key') === board.key));
    });
    if (board) {
      $('rules').textContent = board.rules;
      $('notation-help').textContent = board.notation;
      document.title = board.title + ', solved · retro';
    }
  }

  function drawLine() {
    var board = currentBoard();
    var card = $('line-card');
    if (!view.line) { card.hidden = true; return; }
    card.hidden = false;
    var list = $('line');
    list.textContent = '';
    var count = view.line.line.length;
    $('line-count').textContent = count + (count === 1 ? ' ply' : ' plies') +
      (view.line.winner === null ? ' (a draw: until a position comes back)' : '');
    view.line.line.forEach(function (step, i) {
      var li = html('li');
      li.appendChild(html('span', {'class': 'n'}, (state.at + i + 1) + '.'));
      li.appendChild(html('span', {'class': 'mono'}, step.move));
      li.appendChild(html('span', {'class': 'code mono'}, code(board, step)));
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
    drawLegend();
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

  function openBoard(board) {
    probe(board.start, gameParam(board)).then(function (answer) { newGame(answer, true, gameParam(board)); },
      function (error) { say(error.message, true); });
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
      say('Hint: ' + view.hint + ' (' + words(boardOf(here), here.moves[0]) + ').');
      drawBoard();
      drawMoves();
    });
    $('show-line').addEventListener('click', function () {
      var here = current();
      if (!here) return;
      var mine = epoch;
      api('line', {position: linkText(here.position), game: state.game}).then(function (line) {
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
      var board = currentBoard();
      var target = board && board.start ? board : defaultBoard();
      if (target) openBoard(target);
    });
    document.querySelectorAll('input[name=mode]').forEach(function (radio) {
      radio.addEventListener('change', function () {
        if (!radio.checked || !current()) return;
        state.mode = radio.value;
        if (state.mode !== 'explore' && !state.seed) state.seed = randomSeed();
        resetView();
        var board = currentBoard();
        say(state.mode === 'explore' ? 'Explore: move both sides.' : 'You play ' + sideOf(board, state.mode).title + '.');
        render();
        saveUrl(true);
        computerTurn();
      });
    });
    $('notation').addEventListener('submit', function (event) {
      event.preventDefault();
      var text = $('position-text').value.trim();
      var fallback = defaultBoard();
      if (!text) { notationError('Type a position first, e.g. ' + (fallback ? fallback.start : '')); return; }
      var board = currentBoard();
      // The current game's notation first (two games may write a position alike), then any.
      probe(text, gameParam(board)).catch(function () { return probe(text, null); }).then(function (answer) {
        notationError('');
        $('position-text').blur();
        var mine = boardOf(answer);
        newGame(answer, true, mine === board ? gameParam(board) : gameParam(mine));
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

  function boardLabel(board) {
    return board.game === 'three-musketeers' ? board.size + '×' + board.size : board.title;
  }

  function start() {
    wire();
    api('info', {}).then(function (info) {
      boards = info.boards;
      var nav = $('boards');
      boards.forEach(function (board) {
        var attrs = {type: 'button', 'data-key': board.key, 'aria-pressed': 'false',
          title: board.start ? 'New game: ' + board.title + (board.board ? ' ' + board.board : '')
            : 'An endgame database: positions with at most ' + board.max_enemy_men +
              ' enemy men; load one in the Position box'};
        if (board.size) attrs['data-size'] = board.size;
        var button = html('button', attrs, boardLabel(board));
        if (!board.start) button.disabled = true;
        button.addEventListener('click', function () { openBoard(board); });
        nav.appendChild(button);
      });
      return loadFromUrl();
    }).catch(function (error) { say(error.message, true); });
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
