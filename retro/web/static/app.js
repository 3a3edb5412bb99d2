/* retro: the page of `retro serve`. Plain JavaScript (native modules), no build step, no CDN.
 *
 * The page knows no rules: every legal move, where it leads and every value come
 * from the JSON API (/api/v1/probe, /api/v1/play, /api/v1/line); every game's board
 * (squares of a grid, or points joined by lines), its sides and its pieces come from
 * /api/v1/info. It reads the notation only to draw a board and to write one in the
 * editor (notation.js).
 *
 * The modules: api.js (requests), notation.js (positions, moves and values in words),
 * board.js (drawing and operating a board), chart.js (the game's chart), and this one:
 * the game (a tree of moves: every continuation played stays a variation), the modes
 * (explore; play a side against the perfect player, values hidden until asked for),
 * the position editor (a palette of the pieces where a side has several kinds), the
 * choice among moves that differ only in what the piece becomes (a pawn's promotion),
 * and the page's wiring. pieces.js draws the chess figures.
 *
 * The URL holds the current line of the game:
 * ?start=<position>&moves=e1-e2,d1-e1[&ply=N][&play=<side>&seed=S][&game=<name>];
 * ?game=<name> alone opens that game's start.
 *
 * Moves are numbered as `retro play`'s score numbers them: "1. e1-d1 d2-d1 2. ...",
 * one number for a move of the side that moves first and the answer to it.
 */

import {ApiError, api, linkText, probe} from './api.js';
import {drawBoard} from './board.js';
import {drawChart} from './chart.js';
import {
  capitalize, code, compose, drawable, kind, manyPlayers, numberText, numbering, parseMove, playerWords, possessive,
  promotedTo, rank, readPosition, sameMove, score, sideIs, sideOf, tone, words,
} from './notation.js';
import {FIGURES, allFigures, figureIcon} from './pieces.js';

const $ = (id) => document.getElementById(id);
const PLY = 'a ply is one move of one side';
const SHOW_VALUES = 'retro.show-values';  // sessionStorage: values shown while playing
const EDIT_HELP = 'Click a point (or Enter on it) to change it: empty, then each piece in turn. ' +
  'The value shows as you go.';  // the editor's help without a palette

// --- boards ----------------------------------------------------------------------------

let boards = [];  // from /api/v1/info

/** The board (game) an answer belongs to: Three Musketeers' answers name their size,
 *  the others their game. */
function boardOf(answer) {
  return boards.find((b) => (answer.game ? b.full_name === answer.game
    : b.size === answer.size && b.game === 'three-musketeers')) || null;
}

function currentBoard() {
  if (editor) return editor.board;
  const here = current();
  return here ? boardOf(here) : null;
}

/** The board to open of ``among``: the largest Three Musketeers board whose database
 *  holds its start, else the first board holding its start. */
function preferred(among) {
  const withStart = among.filter((b) => b.start);
  const musketeers = withStart.filter((b) => b.game === 'three-musketeers')
    .reduce((a, b) => (!a || b.size > a.size ? b : a), null);
  return musketeers || withStart[0] || null;
}

/** The board a new visit opens. */
function defaultBoard() { return preferred(boards); }

/** The boards a link's ``game`` names: a game's name, or a board's key. */
function boardsNamed(name) { return boards.filter((b) => b.game === name || b.key === name); }

/** What buttons and headings call a board: info's label (the game's title, and its
 *  variant where it has several: a Three Musketeers board's size, nine men's morris's
 *  pieces). */
function boardLabel(board) {
  return board.label || board.title + (board.game === 'three-musketeers' ? ' ' + board.size + '×' + board.size : '');
}

/** The ``game`` parameter a board's requests carry: the game's registry name where the
 *  position says which board it is of (Three Musketeers' sizes), else the board's key,
 *  which names its variant (the variants of nine men's morris write their positions
 *  alike: only the pieces tell them apart). */
function gameParam(board) {
  if (!board) return null;
  return board.game === 'three-musketeers' ? board.game : board.key;
}

/** The pieces each side has in all (morris): the hands of the board's start; none
 *  when the database does not hold the start (a build stopped after the placing). */
function fullHands(board) {
  if (board.geometry.hand_pieces) return ['', ''];  // pieces in hand as letters: none
  if (!board.start) return [0, 0];
  const start = board.geometry.hands ? readPosition(board, board.start).hands : null;
  const full = board.geometry.pieces_per_side || 0;
  return start && start.every((n) => Number.isInteger(n)) ? start : [full, full];
}

/** What a database that does not hold its game's start holds, in info's words. */
function holds(board) {
  return board.holds || 'positions with at most ' + board.max_enemy_men + ' enemy men';
}

// --- the game: a tree of moves ------------------------------------------------------------

/** A position of the game: the move that led there (null at the root), its probe
 *  answer, the moves played from it (children) and which of them the current line
 *  follows (next). A move played where another was played before adds a child: the
 *  old continuation stays, a variation to go back to. */
class Node {
  constructor(move, answer, parent) {
    this.move = move;
    this.answer = answer;
    this.parent = parent;
    this.children = [];
    this.next = null;
  }

  child(move) { return this.children.find((c) => c.move === move) || null; }

  add(move, answer) {
    const node = new Node(move, answer, this);
    this.children.push(node);
    return node;
  }

  depth() { return this.parent ? this.parent.depth() + 1 : 0; }
}

let root = null;  // the game's first position
let line = [];  // the current line: root, then each node it follows
const state = {start: null, moves: [], at: 0, mode: 'explore', seed: null, game: null};
const view = {selected: null, placing: null, promoting: null, hover: null, hint: null, busy: false, line: null,
  preview: null};
let editor = null;  // the position editor, while open
let showValues = recall(SHOW_VALUES) === '1';
const orientations = {};  // board key -> {flip, quarter}: how the viewer turned it
let epoch = 0;  // bumped by every change of game: late answers of an older one are dropped

/** The current line from the tree, and the fields the rest of the page reads. */
function syncLine() {
  line = [root];
  for (let node = root; node.next; node = node.next) line.push(node.next);
  state.start = root.answer.position;
  state.moves = line.slice(1).map((n) => n.move);
}

function current() { return line[state.at] ? line[state.at].answer : undefined; }
function answers() { return line.map((n) => n.answer); }
function last() { return line.length - 1; }
/** The side of each move of the line: the side to move before it. */
function movers() { return line.slice(0, -1).map((n) => n.answer.side); }

/** The numbers of the line's moves, then of ``more`` moves after its first ``plies``
 *  (by their sides), as the game list writes them. */
function numbersFrom(board, plies, more) { return numbering(board, movers().slice(0, plies).concat(more)); }

function humanSide() { return state.mode === 'explore' ? null : state.mode; }
function computerSide() {
  const human = humanSide();
  const here = current();
  const board = here && boardOf(here);
  if (human === null || !board || here.side === human) return null;
  return here.side;  // every side but the player's is the computer's
}
function canMove() {
  const here = current();
  if (!here || here.over || view.busy || view.preview || editor) return false;
  return humanSide() === null || here.side === humanSide();
}

/** Values (the value line, the moves' marks, the chart, the targets' colours) are
 *  hidden in a game against the computer until the player asks for them. */
function valuesShown() { return humanSide() === null || showValues; }

/** The session's storage, which a browser may refuse (private modes, sandboxes): then
 *  the page simply forgets. */
function recall(key) {
  try { return sessionStorage.getItem(key); } catch (e) { return null; }
}

function remember(key, value) {
  try { sessionStorage.setItem(key, value); } catch (e) { /* forgotten at the next visit */ }
}

function orientation(board) {
  if (!orientations[board.key]) {
    let saved = null;
    try { saved = JSON.parse(recall('retro.orient.' + board.key)); } catch (e) { saved = null; }
    orientations[board.key] = saved && typeof saved.flip === 'boolean' && saved.quarter >= 0 && saved.quarter < 4
      ? saved : {flip: false, quarter: 0};
  }
  return orientations[board.key];
}

function randomSeed() { return String(Math.floor(Math.random() * 1e9)); }

// --- the URL -----------------------------------------------------------------------------

function readUrl() {
  const q = new URLSearchParams(location.search);
  const start = (q.get('start') || '').replace(/_/g, ' ').trim();
  const ply = q.get('ply');
  const play = q.get('play');
  const name = q.get('game');
  return {
    start: start || null,
    moves: (q.get('moves') || '').split(',').map((m) => m.trim()).filter(Boolean),
    at: ply !== null && /^\d{1,3}$/.test(ply) ? parseInt(ply, 10) : null,
    mode: play && /^[A-Za-z]{1,20}$/.test(play) ? play : 'explore',
    seed: /^\d{1,18}$/.test(q.get('seed') || '') ? q.get('seed') : null,
    game: name && /^[A-Za-z0-9-]{1,40}$/.test(name) ? name : null,  // a board's key: dobutsu-GEC
  };
}

function urlOf() {
  const parts = ['start=' + encodeURIComponent(linkText(state.start))];
  if (state.moves.length) parts.push('moves=' + state.moves.join(','));
  if (state.at !== last()) parts.push('ply=' + state.at);
  if (state.mode !== 'explore') parts.push('play=' + state.mode, 'seed=' + state.seed);
  if (state.game) parts.push('game=' + state.game);
  return '?' + parts.join('&');
}

/** New moves and new games get a history entry (Back undoes them); stepping replaces it. */
function saveUrl(push) {
  const url = urlOf();
  if (url === location.search) return;
  history[push ? 'pushState' : 'replaceState'](null, '', url);
}

// --- loading games -------------------------------------------------------------------------

/** The path of nodes from ``start`` along ``moves`` (probing each new position), in the
 *  current tree when it starts there (Back and Forward keep the variations), else in a
 *  new one; stops before a move that is not legal. */
function resolve(start, moves, name) {
  return probe(start, name).then((first) => {
    const same = root && state.game === name && root.answer.position === first.position;
    const tree = same ? root : new Node(null, first, null);
    const path = [tree];
    const step = (i) => {
      const node = path[path.length - 1];
      if (i >= moves.length) return {path: path, bad: null};
      // A link's move in any spelling the CLI reads (E1E2, e1 e2, e1xe2): the legal move
      // it names, as the API writes it.
      const move = node.answer.moves.find((m) => sameMove(m.move, moves[i]));
      if (!move) return {path: path, bad: moves[i]};
      const known = node.child(move.move);
      if (known) { path.push(known); return step(i + 1); }
      return probe(move.position, name).then((next) => {
        path.push(node.child(move.move) || node.add(move.move, next));
        return step(i + 1);
      });
    };
    return step(0);
  });
}

/** Make ``path`` (root first) the current line: it ends where the path ends. */
function follow(path) {
  path.forEach((node, i) => { node.next = path[i + 1] || null; });
  root = path[0];
  syncLine();
}

function loadFromUrl() {
  const mine = ++epoch;
  const wanted = readUrl();
  let fallback = defaultBoard();
  if (!wanted.start && wanted.game) {  // ?game=NAME alone: that game's start
    const named = boardsNamed(wanted.game);
    if (named.length && !preferred(named)) {  // endgame databases only: compose a position
      openEditor(named[0], null);
      return Promise.resolve();
    }
    if (named.length) fallback = preferred(named);
    else say('The link\'s game ' + wanted.game + ' is not served here.', true);
  }
  const start = wanted.start || (fallback && fallback.start);
  let name = wanted.start ? wanted.game : gameParam(fallback);
  if (!start) {  // only endgame databases, which do not hold a start: ask for a position
    say('This server holds endgame databases only: compose a position (choose a board above) or paste one ' +
      'in the Position box.');
    return Promise.resolve();
  }
  return resolve(start, wanted.moves, name).catch((error) => {
    notationError('The link\'s position: ' + error.message);
    if (!fallback) throw error;
    name = gameParam(fallback);
    root = null;
    return resolve(fallback.start, [], name);
  }).then((got) => {
    if (mine !== epoch) return;
    view.busy = false;
    state.game = name;
    follow(got.path);
    state.at = wanted.at === null ? last() : Math.max(0, Math.min(wanted.at, last()));
    const board = boardOf(root.answer);
    const sides = board ? board.sides.map((s) => s.name) : [];
    state.mode = sides.indexOf(wanted.mode) >= 0 ? wanted.mode : 'explore';
    state.seed = wanted.seed || (state.mode === 'explore' ? null : randomSeed());
    resetView();
    if (got.bad) say('The move ' + got.bad + ' of the link is not legal there: the game stops before it.', true);
    render();
    if (got.bad || !wanted.start) saveUrl(false);
    computerTurn(false);
  }).catch((error) => say(error.message, true));
}

function newGame(answer, push, name) {
  epoch++;
  view.busy = false;
  root = new Node(null, answer, null);
  syncLine();
  state.at = 0;
  if (name !== undefined) state.game = name;
  const board = boardOf(answer);
  if (board && state.mode !== 'explore' && !board.sides.some((s) => s.name === state.mode)) {
    state.mode = 'explore';
  }
  resetView();
  say('');
  render();
  saveUrl(push !== false);
  computerTurn(false);
}

function resetView() {
  view.selected = null;
  view.placing = null;
  view.promoting = null;
  view.hover = null;
  view.hint = null;
  view.line = null;
  view.preview = null;
}

// --- moving ---------------------------------------------------------------------------

/** Play a legal move of the current position (from the API's list); false for any
 *  other. A move already played here follows its old continuation again. ``push``: a
 *  new history entry (by default for the player's moves; the computer's answer shares
 *  the entry of the move it answers). */
function play(moveText, byComputer, push) {
  const here = current();
  const move = here && !here.over && here.moves.find((m) => m.move === moveText);
  if (!move) return Promise.resolve(false);
  const node = line[state.at];
  const known = node.child(moveText);
  const mine = ++epoch;
  view.busy = true;
  return (known ? Promise.resolve(known.answer) : probe(move.position, state.game)).then((next) => {
    if (mine !== epoch) return false;
    node.next = node.child(moveText) || node.add(moveText, next);
    syncLine();
    state.at += 1;
    view.busy = false;
    resetView();
    say(byComputer ? 'The computer played ' + (move.san || moveText) + '.' : '');
    render();
    saveUrl(push === undefined ? !byComputer : push);
    return true;
  }, (error) => {
    if (mine === epoch) { view.busy = false; say(error.message, true); render(); }
    return false;
  });
}

function humanMove(moveText) {
  if (!canMove()) return;
  play(moveText, false).then((moved) => { if (moved) computerTurn(true); });
}

/** In a game against the computer, on its turn: its move. ``answering``: right after
 *  the player's move, wherever it was played; otherwise only at the end of the line
 *  (stepping back through a game does not make the computer play). */
function computerTurn(answering) {
  const here = current();
  if (editor || !here || computerSide() === null || here.over || here.side !== computerSide()) return;
  if (!answering && state.at !== last()) return;
  const mine = epoch;
  view.busy = true;
  say('The computer is thinking…');
  render();
  api('play', {position: linkText(here.position), seed: state.seed, game: state.game}).then((reply) => {
    if (mine !== epoch) return;
    view.busy = false;
    // With more players the next may be the computer's again: it answers in turn.
    return play(reply.move, true).then((moved) => { if (moved) computerTurn(true); });
  }).catch((error) => {
    if (mine === epoch) { view.busy = false; say(error.message, true); render(); }
  });
}

function go(ply) {
  ply = Math.max(0, Math.min(ply, last()));
  if ((ply === state.at && !view.preview) || view.busy || editor) return;
  state.at = ply;
  resetView();
  say('');
  render();
  saveUrl(false);
}

/** Undo and redo step one ply, or in a game against the computer to the player's next turn. */
function undo() {
  let target = state.at - 1;
  const human = humanSide();
  if (human !== null) while (target > 0 && line[target].answer.side !== human) target--;
  go(target);
}

function redo() {
  let target = state.at + 1;
  const human = humanSide();
  if (human !== null) while (target < last() && line[target].answer.side !== human) target++;
  go(target);
}

/** Follow a variation: the line goes through ``node`` (and on along its own next moves). */
function switchTo(node) {
  if (view.busy || editor) return;
  node.parent.next = node;
  syncLine();
  state.at = node.depth();
  resetView();
  say('Variation: ' + state.moves.slice(node.parent.depth()).join(' ') + '.');
  render();
  saveUrl(true);
}

/** The legal moves matching a chosen source (null: a placement) and target. */
function movesTo(from, to) {
  return current().moves.filter((m) => {
    const p = parseMove(m.move);
    return p.from === from && p.to === to;
  });
}

/** A click (or Enter) on a point: choose a piece, its target, or (when a move removes a
 *  piece) the piece to remove; a placement is a click on its point. A click that does
 *  nothing says why, from the moves and the pieces alone. */
function onPoint(name) {
  if (editor) { if (editor.brush) paint(name); else cycle(name); return; }
  if (view.preview) { say('This is a preview of the perfect line: “Back to the game” to move.', 'warn'); return; }
  const here = current();
  if (!here || view.busy) return;
  if (here.over) { say('The game is over: ' + here.result + '.', 'warn'); return; }
  if (humanSide() !== null && here.side !== humanSide()) { say('It is the computer’s move.', 'warn'); return; }
  if (view.promoting) {  // a click on the board instead of a choice: no move
    view.promoting = view.selected = null;
    say('');
    paintBoard();
    return;
  }
  if (view.placing) {  // a move that removes: which piece
    const removing = view.placing.find((m) => parseMove(m.move).remove === name);
    if (removing) { humanMove(removing.move); return; }
    if (parseMove(view.placing[0].move).to === name) {  // the same point again: choose another move
      view.placing = null;
      view.selected = null;
      say('');
      paintBoard();
      return;
    }
    say(name + ' cannot be removed: choose one of the ringed pieces (Esc: another move).', 'warn');
    return;
  }
  const choose = (candidates) => {
    if (candidates.length === 1) { humanMove(candidates[0].move); return true; }
    if (candidates.length > 1 && candidates.every((m) => parseMove(m.move).promotion)) {
      view.promoting = candidates;  // the same squares: what the piece becomes
      say('Choose what the piece becomes.');
      paintBoard();
      return true;
    }
    if (candidates.length > 1) {
      view.placing = candidates;
      say('Choose the piece to remove.');
      paintBoard();
      return true;
    }
    return false;
  };
  if (view.selected) {
    if (choose(movesTo(view.selected, name))) return;
    if (name === view.selected) { view.selected = null; say(''); paintBoard(); return; }
  }
  if (choose(movesTo(null, name))) return;
  if (here.moves.some((m) => parseMove(m.move).from === name)) {
    view.selected = name;
    say('');
    paintBoard();
    return;
  }
  say(whyNot(boardOf(here), here, name), 'warn');
}

/** Why a click on ``name`` plays nothing: what the legal moves and the pieces say. */
function whyNot(board, here, name) {
  const pos = readPosition(board, here.position);
  const mover = sideOf(board, here.side);
  const piece = board.geometry.pieces[pos.cells[name]];
  const placing = here.moves.some((m) => !parseMove(m.move).from);
  const point = board.geometry.kind === 'grid' ? 'square' : 'point';
  if (piece && placing) return 'That ' + point + ' is not empty.';
  if (view.selected && !(piece && piece.side === here.side)) {
    const drop = parseMove(view.selected + name).drop;
    const held = drop && board.geometry.pieces[drop];
    return (held ? 'The ' + held.name.toLowerCase() + ' in hand' : view.selected) + ' cannot go to ' + name + '.';
  }
  if (piece && piece.side !== here.side) {
    // A name both sides' pieces have (chess's King) says whose it is: "That is Black's king".
    const shared = piece.name && Object.values(board.geometry.pieces).some((p) => p.name === piece.name && p.side !== piece.side);
    const what = shared ? 'That is ' + possessive(sideOf(board, piece.side)) + ' ' + piece.name.toLowerCase()
      : piece.name ? 'That is ' + (/^[aeiou]/i.test(piece.name) ? 'an ' : 'a ') + piece.name
        : 'That piece is ' + possessive(sideOf(board, piece.side));
    return what + ': ' + sideIs(mover) + ' to move.';
  }
  if (piece) return 'The piece on ' + name + ' cannot move.';
  if (placing) return 'No move places a piece on ' + name + '.';
  const drops = here.moves.some((m) => parseMove(m.move).drop);
  return name + ' is empty: choose one of ' + possessive(mover) + ' pieces' + (drops ? ' (on the board or in hand)' : '') +
    ' first, then where it goes.';
}

// --- the position editor -----------------------------------------------------------------

/** Open the editor on ``board`` with ``text`` (a position of it), or an empty board. */
function openEditor(board, text) {
  const pos = text ? readPosition(board, text) : null;
  const cells = {};
  board.geometry.points.forEach((p) => { cells[p.name] = pos ? pos.cells[p.name] : '.'; });
  const letters = board.sides.map((s) => s.letter);
  const brush = editor && editor.board.game === board.game ? editor.brush : null;
  editor = {
    board: board, cells: cells,
    letter: pos && letters.indexOf(pos.side) >= 0 ? pos.side : letters[0],
    hands: pos && pos.hands ? pos.hands.slice() : fullHands(board),
    taken: {},  // point -> the side whose hand its piece came out of (see setCell)
    // The palette's choice (games of several kinds of piece a side): what a click puts
    // down, '.' the eraser; the first piece to begin with.
    brush: palette(board) ? (brush || Object.keys(board.geometry.pieces)[0]) : null,
    answer: null, error: '', epoch: 0,
  };
  epoch++;  // a computer's move on its way belongs to the game left behind
  view.busy = false;
  view.selected = view.placing = view.hint = view.hover = view.preview = null;
  drawEditorSides();
  drawPalette();
  say('');
  probeEditor();
}

/** Whether the editor offers a palette: a game with several kinds of piece a side
 *  (chess, Dōbutsu shōgi), where going through every piece on each click is too long. */
function palette(board) {
  const kinds = {};
  Object.values(board.geometry.pieces).forEach((p) => { kinds[p.side] = (kinds[p.side] || 0) + 1; });
  return Object.values(kinds).some((n) => n > 1);
}

function editorText() { return compose(editor.board, editor.letter, editor.cells, editor.hands); }

/** The value of the setup, live: the API's answer, or its error when the setup is not
 *  a position. ``follow``: after a change of the pieces or the hands, the side to move
 *  follows them where the API says it must (morris's hands, tic-tac-toe's marks): when
 *  the setup is not a position with this side to move and is one with the other, the
 *  other is to move. */
function probeEditor(follow) {
  const mine = ++editor.epoch;
  const shown = editor;
  const board = shown.board;
  shown.answer = null;
  shown.error = '';
  render();
  const other = board.sides.map((s) => s.letter).find((l) => l !== shown.letter);
  probe(editorText(), gameParam(board)).then((answer) => ({answer: answer}), (error) => {
    if (!follow) return {error: error};
    return probe(compose(board, other, shown.cells, shown.hands), gameParam(board))
      .then((answer) => ({answer: answer, letter: other}), () => ({error: error}));
  }).then((got) => {
    if (editor !== shown || mine !== shown.epoch) return;
    if (got.letter) {
      shown.letter = got.letter;
      document.querySelectorAll('input[name=edit-side]').forEach((r) => { r.checked = r.value === got.letter; });
    }
    if (got.error) shown.error = got.error.message;
    else shown.answer = got.answer;
    // The API answers from the board of the game that holds the setup (chess: the set
    // of its number of pieces): the editor is on that board now.
    const answering = got.answer && boardOf(got.answer);
    if (answering && answering !== board && answering.game === board.game) shown.board = answering;
    render();
  });
}

/** A point of the editor goes through empty and each of the game's pieces in turn.
 *  With pieces in hand (morris), a piece put on the board comes out of its side's
 *  hand when the two together would be more than the side has (its hand at the start),
 *  and goes back when the point changes again (until the hands are set by hand). */
function cycle(name) {
  const chars = ['.'].concat(Object.keys(editor.board.geometry.pieces));
  setCell(name, chars[(chars.indexOf(editor.cells[name]) + 1) % chars.length]);
}

/** A click of the editor with a palette: the chosen piece goes on the point, or off it
 *  when it stands there already; the eraser empties it. */
function paint(name) {
  const brush = editor.brush;
  setCell(name, brush !== '.' && editor.cells[name] === brush ? '.' : brush);
}

/** Put ``char`` (a piece, or '.') on point ``name`` of the editor, then ask its value. */
function setCell(name, char) {
  const geometry = editor.board.geometry;
  const full = fullHands(editor.board);
  const taken = editor.taken[name];
  if (taken !== undefined) {
    editor.hands[taken] = Math.min(full[taken], editor.hands[taken] + 1);
    delete editor.taken[name];
  }
  // A notation of one square per piece (the four-player race): the piece moves here
  // from wherever it stood, so that each player keeps exactly one.
  if (geometry.writes === 'squares' && char !== '.') {
    Object.keys(editor.cells).forEach((n) => { if (editor.cells[n] === char) editor.cells[n] = '.'; });
  }
  editor.cells[name] = char;
  if (geometry.hands && geometry.pieces[char]) {
    const i = editor.board.sides.findIndex((s) => s.name === geometry.pieces[char].side);
    const onBoard = Object.keys(editor.cells).filter((n) => editor.cells[n] === char).length;
    const hand = editor.hands[i];  // a count typed out of range stays as typed
    if (i >= 0 && Number.isInteger(hand) && hand > 0 && onBoard + hand > full[i]) {
      editor.hands[i] -= 1;
      editor.taken[name] = i;
    }
  }
  if (geometry.hands) [0, 1].forEach((i) => { $('hand-' + i).value = String(editor.hands[i]); });
  probeEditor(true);
}

function drawEditorSides() {
  const box = $('edit-sides');
  box.textContent = '';
  editor.board.sides.forEach((side) => {
    const input = html('input', {type: 'radio', name: 'edit-side', value: side.letter});
    input.checked = side.letter === editor.letter;
    input.addEventListener('change', () => {
      if (!input.checked || !editor) return;
      editor.letter = side.letter;
      probeEditor();
    });
    const label = html('label');
    label.appendChild(input);
    label.appendChild(document.createTextNode(' ' + capitalize(side.title)));
    box.appendChild(label);
  });
  const hands = editor.board.geometry.hands;
  $('edit-hands').hidden = !hands;
  if (hands) {
    const letters = editor.board.geometry.hand_pieces;  // pieces in hand as letters ('CG')
    [0, 1].forEach((i) => {
      $('hand-' + i + '-name').textContent = capitalize(editor.board.sides[i].title);
      const input = $('hand-' + i);
      input.type = letters ? 'text' : 'number';
      input.inputMode = letters ? 'text' : 'numeric';
      if (letters) input.removeAttribute('max');
      else input.max = String(fullHands(editor.board)[i]);
      input.placeholder = letters ? 'letters, such as ' + letters.slice(0, 2) : '';
      input.value = String(editor.hands[i]);
    });
  }
}

/** The palette: a button per piece, then the eraser; the chosen one pressed. */
function drawPalette() {
  const box = $('edit-palette');
  const board = editor.board;
  box.hidden = !editor.brush;
  $('edit-help').textContent = editor.brush
    ? 'Choose a piece (or the eraser), then click squares to put it there; a click on the same piece takes it ' +
      'off. The value shows as you go. The Position box shows the setup, and takes one pasted there.'
    : EDIT_HELP;
  box.textContent = '';
  if (!editor.brush) return;
  const pieces = board.geometry.pieces;
  board.sides.forEach((side, i) => {
    const row = html('span', {'class': 'palette-row', role: 'presentation'});
    Object.keys(pieces).filter((c) => pieces[c].side === side.name).forEach((char) => {
      const name = capitalize(side.title) + ' ' + pieces[char].name.toLowerCase();
      row.appendChild(paletteButton(char, name, FIGURES[pieces[char].shape]
        ? figureIcon(pieces[char].shape, i, 34) : html('span', {'class': 'token-text side-' + i}, char.toUpperCase())));
    });
    box.appendChild(row);
  });
  box.lastChild.appendChild(paletteButton('.', 'Eraser: empties a square',
    html('span', {'class': 'eraser', 'aria-hidden': 'true'}, '✕')));
}

function paletteButton(char, name, face) {
  const button = html('button', {type: 'button', 'class': 'palette-piece', 'data-piece': char, title: name,
    'aria-label': name, 'aria-pressed': String(editor.brush === char)});
  button.appendChild(face);
  button.addEventListener('click', () => {
    if (!editor) return;
    editor.brush = char;
    $('edit-palette').querySelectorAll('button').forEach((b) => {
      b.setAttribute('aria-pressed', String(b.getAttribute('data-piece') === char));
    });
  });
  return button;
}

function closeEditor(answer) {
  const board = (answer && boardOf(answer)) || editor.board;
  editor = null;
  if (answer) { newGame(answer, true, gameParam(board)); return; }
  say('');
  render();
  computerTurn(false);
}

// --- drawing -------------------------------------------------------------------------

function html(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const key in attrs || {}) {
    if (key === 'class') node.className = attrs[key];
    else node.setAttribute(key, attrs[key]);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

function describe(board, pos) {
  const parts = [board.title + ', ' + board.geometry.columns + ' by ' + board.geometry.rows + ' board.'];
  const pieces = board.geometry.pieces;
  const kinds = (side) => Object.values(pieces).filter((p) => p.side === side).length;
  Object.keys(pieces).forEach((char) => {
    const names = Object.keys(pos.cells).filter((n) => pos.cells[n] === char);
    const side = sideOf(board, pieces[char].side);
    const what = kinds(pieces[char].side) > 1 ? ' ' + pieces[char].name.toLowerCase() : '';  // Sente lion: b1.
    parts.push(capitalize(side.title) + what + ': ' + (names.length ? names.join(', ') : 'none') + '.');
  });
  return parts.join(' ');
}

function pointLabel(board, pos, name, extra) {
  const piece = board.geometry.pieces[pos.cells[name]];
  const what = piece ? piece.name || sideOf(board, piece.side).name : 'empty';
  return name + ', ' + what + (extra[name] ? ', ' + extra[name] : '');
}

/** The board of the current position (or of the preview, or of the editor). */
function paintBoard() {
  const box = $('board');
  const board = currentBoard();
  if (!board) { box.textContent = ''; return; }
  const spec = {board: board, orient: orientation(board), onPoint: onPoint, arrows: [], lines: []};
  const notes = {};
  let hands = null;
  if (editor) {
    const pos = {cells: editor.cells};
    spec.cells = editor.cells;
    hands = null;
    if (editor.answer && editor.answer.lines) spec.lines = tonedLines(board, editor.answer.lines);
    spec.caption = describe(board, pos) + ' Editing: Enter on a point changes it.';
    spec.label = (name) => pointLabel(board, pos, name, notes);
  } else if (view.preview) {
    const pos = readPosition(board, view.preview.step.position);
    spec.cells = pos.cells;
    spec.last = parseMove(view.preview.step.move);
    spec.lines = tonedLines(board, view.preview.step.lines || []);
    hands = pos.hands;
    spec.caption = 'Preview. ' + describe(board, pos);
    spec.label = (name) => pointLabel(board, pos, name, notes);
  } else {
    const here = current();
    const pos = readPosition(board, here.position);
    const values = valuesShown();
    const mover = here.side;
    const colour = (m) => (values ? kind(m, mover) : 'plain');
    spec.cells = pos.cells;
    hands = pos.hands;
    spec.last = state.at > 0 ? parseMove(state.moves[state.at - 1]) : null;
    // While choosing what a move removes, its point is the one chosen.
    spec.selected = view.placing ? parseMove(view.placing[0].move).to : view.selected;
    if (view.promoting) spec.arrows.push({move: view.promoting[0].move, kind: 'hover'});
    spec.lines = tonedLines(board, here.lines || []);
    spec.check = here.check || [];
    const targets = {};
    const removals = {};
    const sources = {};
    // Moves are best first: a point reached by several shows the best of them.
    if (view.placing) {
      view.placing.forEach((m) => { const r = parseMove(m.move).remove; if (!removals[r]) removals[r] = colour(m); });
    } else if (view.selected) {
      here.moves.forEach((m) => {
        const p = parseMove(m.move);
        if (p.from === view.selected && !targets[p.to]) targets[p.to] = colour(m);
      });
    }
    if (canMove()) {
      here.moves.forEach((m) => {
        const p = parseMove(m.move);
        if (p.from) sources[p.from] = true;
        else if (!view.selected && !view.placing && !targets[p.to]) targets[p.to] = colour(m);
      });
    }
    Object.keys(sources).forEach((n) => { notes[n] = 'can move'; });
    Object.keys(targets).forEach((n) => { notes[n] = 'a move' + (values ? ' that ' + verb(targets[n]) : ''); });
    Object.keys(removals).forEach((n) => { notes[n] = 'remove it' + (values ? ': ' + verb(removals[n]) : ''); });
    if (view.selected) notes[view.selected] = 'selected';
    spec.targets = targets;
    spec.removals = removals;
    spec.sources = sources;
    if (view.hint) spec.arrows.push({move: view.hint, kind: 'hint'});
    if (view.hover && view.hover !== view.hint) spec.arrows.push({move: view.hover, kind: 'hover'});
    spec.caption = describe(board, pos);
    spec.label = (name) => pointLabel(board, pos, name, notes);
  }
  box.classList.toggle('editing', !!editor);
  drawBoard(box, spec);
  drawHands(board, hands, editor || view.preview ? null : current());
  drawPromotion(board);
}

/** The choice of what the piece becomes, over the board: a button per move (the
 *  figure it becomes, and with values shown what the move gives), in the order of the
 *  game's pieces (queen, rook, bishop, knight). */
function drawPromotion(board) {
  const box = $('promotion');
  const choices = $('promotion-choices');
  const candidates = !editor && !view.preview && view.promoting;
  if (!candidates) {
    if (!box.hidden) { box.hidden = true; choices.textContent = ''; }
    return;
  }
  const here = current();
  const values = valuesShown();
  const order = Object.keys(board.geometry.pieces);
  const mover = board.sides.findIndex((s) => s.name === here.side);
  const at = (m) => order.indexOf(promotedTo(board, m.move, here.side));
  const focused = box.contains(document.activeElement) ? document.activeElement.getAttribute('data-move') : null;
  choices.textContent = '';
  candidates.slice().sort((a, b) => at(a) - at(b)).forEach((m) => {
    const char = promotedTo(board, m.move, here.side);
    const piece = board.geometry.pieces[char] || {name: parseMove(m.move).promotion, shape: ''};
    const k = kind(m, here.side);
    const button = html('button', {type: 'button', 'class': 'promotion-choice ' + (values ? k : 'plain'),
      'data-move': m.move, 'aria-label': piece.name + ' (' + m.move + ')' + (values ? ': ' + words(board, m) : ''),
      title: piece.name + (values ? ': ' + words(board, m) : '')});
    button.appendChild(FIGURES[piece.shape] ? figureIcon(piece.shape, mover, 44)
      : html('span', {'class': 'token-text'}, String(char || '?').toUpperCase()));
    button.appendChild(html('span', {'class': 'choice-name'}, piece.name));
    if (values) button.appendChild(html('span', {'class': 'choice-value'}, code(board, m)));
    button.addEventListener('click', () => { view.promoting = null; humanMove(m.move); });
    choices.appendChild(button);
  });
  const opening = box.hidden;
  box.hidden = false;
  const again = focused && choices.querySelector('[data-move="' + focused + '"]');
  if (again) again.focus({preventScroll: true});
  else if (opening) choices.querySelector('button').focus({preventScroll: true});
}

/** The pieces in hand under the board: a count each (morris), or, in a game that writes
 *  them as letters (geometry.hand_pieces), a button per piece; a click on one of the
 *  mover's chooses it to drop (its drops' source, ``C*``), as a click on a piece of the
 *  board chooses it to move. ``here``: the position played (null: preview, editor). */
function drawHands(board, hands, here) {
  const line = $('hands');
  line.hidden = !hands;
  if (!hands) return;
  if (!board.geometry.hand_pieces) {
    line.textContent = 'In hand: ' + board.sides[0].title + ' ' + hands[0] + ', ' +
      board.sides[1].title + ' ' + hands[1];
    return;
  }
  line.textContent = 'In hand: ';
  const drops = {};  // a piece's letter (lower case) -> its drops' source
  if (here) {
    here.moves.forEach((m) => {
      const p = parseMove(m.move);
      if (p.drop) drops[p.drop.toLowerCase()] = p.from;
    });
  }
  board.sides.forEach((side, i) => {
    const part = html('span', {'class': 'hand-side', 'data-side': side.name}, capitalize(side.title) + ' ');
    if (!hands[i]) part.appendChild(document.createTextNode('none'));
    hands[i].split('').forEach((c) => {
      const piece = board.geometry.pieces[c] || {name: c, side: side.name};
      const source = here && here.side === side.name ? drops[c.toLowerCase()] : undefined;
      const button = html('button', {type: 'button', 'class': 'hand-piece side-' + i + (source && canMove() ? ' source' : ''),
        'data-hand': c, title: piece.name, 'aria-label': possessive(side) + ' ' + piece.name.toLowerCase() + ' in hand'},
      c.toUpperCase());
      if (source && view.selected === source) button.setAttribute('aria-pressed', 'true');
      button.addEventListener('click', () => {
        if (source) { onPoint(source); return; }
        if (!here) return;
        const mover = sideOf(board, here.side);
        say(here.side !== side.name ? 'That is ' + possessive(side) + ' ' + piece.name.toLowerCase() + ': ' +
          sideIs(mover) + ' to move.' : 'No move drops the ' + piece.name.toLowerCase() + '.', 'warn');
      });
      part.appendChild(button);
    });
    line.appendChild(part);
  });
}

function verb(k) { return k === 'win' ? 'keeps the win' : k === 'draw' ? 'draws' : 'loses'; }

/** The probe's lines to mark, with the colour of the side they belong to. */
function tonedLines(board, lines) {
  return lines.map((l) => ({points: l.points, tone: board.sides[0].name === l.side ? 's0' : 's1'}));
}

/** Moves that threw a result away: the mover could win (or draw) before and not after. */
function blunders() {
  const all = answers();
  const out = {};
  for (let i = 1; i < all.length; i++) {
    const before = all[i - 1];
    if (rank(all[i], before.side) < rank(before, before.side)) out[i] = true;
  }
  return out;
}

/** The line under the value after a move that threw a result away: the player's last
 *  move (in a game against the computer, also once the computer has answered it). */
function blunderNote() {
  const all = answers();
  let p = state.at;
  if (humanSide() !== null && p > 0 && all[p - 1].side !== humanSide()) p -= 1;
  if (p < 1 || !blunders()[p]) return '';
  const before = all[p - 1];
  const was = rank(before, before.side);
  const kept = before.moves.filter((m) => rank(m, before.side) >= was).length;
  return state.moves[p - 1] + ' threw the ' + (was === 2 ? 'win' : 'draw') + ' away: ' + kept + ' of the ' +
    before.moves.length + ' moves there kept it.';
}

function plyWord(text) {
  const abbr = html('abbr', {title: PLY}, text);
  return abbr;
}

function drawVerdict() {
  const value = $('value');
  const turn = $('turn');
  const note = $('note');
  const toggle = $('show-values');
  turn.textContent = '';
  note.textContent = '';
  if (editor) {
    const board = editor.board;
    toggle.hidden = true;
    const answer = editor.answer;
    value.textContent = answer ? capitalize(answer.value) : editor.error ? 'Not a position' : '…';
    value.className = 'value ' + (answer ? tone(board, answer) : editor.error ? 'invalid' : '');
    turn.textContent = 'Editing · ' + capitalize(sideIs(board.sides.find((s) => s.letter === editor.letter))) +
      ' to move' + (answer && answer.over ? ' · ' + answer.result : '');
    drawPlayers(board, answer || {});
    return;
  }
  const here = current();
  const board = boardOf(here);
  const human = humanSide();
  toggle.hidden = human === null;
  toggle.textContent = showValues ? 'Hide values' : 'Show values';
  toggle.setAttribute('aria-pressed', String(showValues));
  if (human !== null && here.over) {  // the end of a game against the computer: in the player's words
    const won = here.winner === human;
    const draw = here.winner === null || here.winner === undefined;
    value.textContent = draw ? (manyPlayers(board) ? 'Nobody wins' : 'A draw') : won ? 'You win' : 'You lose';
    value.className = 'value end ' + (draw ? 'd' : won ? 'won' : 'lost');
    turn.textContent = capitalize(here.result) + '.';
  } else if (!valuesShown()) {
    value.textContent = 'You play ' + sideOf(board, human).title;
    value.className = 'value quiet';
  } else {
    value.textContent = capitalize(here.value);
    value.className = 'value ' + tone(board, here);
    if (here.over) turn.textContent = capitalize(here.result) + '.';
  }
  drawPlayers(board, here);
  if (!here.over) {
    turn.appendChild(html('b', {}, sideName(board, here.side)));
    let text = ' to move';
    if (human !== null) text += here.side === human ? ': your move' : ': the computer\'s move';
    // The number of the move to play, as the game list numbers moves, and the ply.
    const next = numbersFrom(board, state.at, [here.side])[state.at];
    turn.appendChild(document.createTextNode(text + ' · '));
    const where = html('span', {'class': 'where'}, 'move ' + next.number + ' · ');
    where.appendChild(plyWord('ply'));
    where.appendChild(document.createTextNode(' ' + state.at + (last() ? ' of ' + last() : '')));
    turn.appendChild(where);
  }
  note.textContent = view.preview ? '' : blunderNote();
}

/** The side to move as the turn line names it: its name (Musketeers, White), or its
 *  title where the name is its letter (chess's W: White). */
function sideName(board, name) {
  const side = sideOf(board, name);
  return capitalize(side.name === side.letter && side.title.length > side.name.length ? side.title : side.name);
}

/** Beside the board, in a game of more than two players: every player's value (its
 *  colour, its name, its win or loss), the player to move first marked. */
function drawPlayers(board, here) {
  const list = $('players');
  list.textContent = '';
  list.hidden = !manyPlayers(board) || !here.values || !valuesShown();
  if (list.hidden) return;
  board.sides.forEach((side, i) => {
    const value = here.values[side.name];
    const item = html('li', {'class': 'player ' + value.result + (side.name === here.side ? ' to-move' : '')});
    item.appendChild(html('span', {'class': 'key q' + i, 'aria-hidden': 'true'}));
    item.appendChild(html('span', {'class': 'words'}, playerWords(side, value)));
    item.appendChild(html('span', {'class': 'code mono', 'aria-hidden': 'true'},
      value.result === 'draw' ? 'D' : value.result.charAt(0).toUpperCase() + value.plies));
    list.appendChild(item);
  });
}

function drawMoves() {
  const list = $('moves');
  list.textContent = '';
  const here = editor ? editor.answer : current();
  if (!here) {
    list.appendChild(html('li', {'class': 'empty'}, editor && editor.error ? 'Not a position.' : '…'));
    return;
  }
  const board = boardOf(here);
  if (here.over) {
    list.appendChild(html('li', {'class': 'empty'}, 'No moves: ' + here.result + '.'));
    return;
  }
  const values = editor ? true : valuesShown();
  const enabled = canMove();
  // Best first gives the best move away: with values hidden, the moves in the
  // notation's order (as text) instead.
  const moves = values ? here.moves : here.moves.slice().sort((a, b) => (a.move < b.move ? -1 : a.move > b.move ? 1 : 0));
  $('moves-order').textContent = values ? 'best first' : 'in notation order';
  list.style.setProperty('--chars', String(Math.max(5, ...moves.map((m) => (m.san || m.move).length))));
  moves.forEach((m) => {
    const k = kind(m, here.side);
    const button = html('button', {type: 'button', 'class': (values ? k : 'plain') + (view.hint === m.move ? ' hinted' : ''),
      'data-move': m.move, 'aria-label': values ? (m.san || m.move) + ': ' + verb(k) + ', ' + words(board, m) + (m.values
        ? ' (' + board.sides.map((s) => playerWords(s, m.values[s.name])).join('; ') + ')' : '') : m.san || m.move});
    if (!enabled) button.disabled = true;
    if (values) button.appendChild(html('span', {'class': 'mark', 'aria-hidden': 'true'}, k === 'win' ? '✓' : k === 'draw' ? '=' : '✗'));
    button.appendChild(html('span', {'class': 'name mono'}, m.san || m.move));
    if (values) {
      // More players: the mover's own value after the move (every player's in the code).
      const said = manyPlayers(board) ? playerWords(sideOf(board, here.side), m.values[here.side]) : words(board, m);
      button.appendChild(html('span', {'class': 'words'}, said));
      button.appendChild(html('span', {'class': 'code mono', 'aria-hidden': 'true'}, code(board, m)));
    }
    button.addEventListener('click', () => humanMove(m.move));
    const show = () => { view.hover = m.move; paintBoard(); };
    const hide = () => { if (view.hover === m.move) { view.hover = null; paintBoard(); } };
    button.addEventListener('mouseenter', show);
    button.addEventListener('focus', show);
    button.addEventListener('mouseleave', hide);
    button.addEventListener('blur', hide);
    const li = html('li');
    li.appendChild(button);
    list.appendChild(li);
  });
}

/** A move as players write it (chess: SAN), from the answer listing it, else its text. */
function written(answer, move) {
  const found = answer && answer.moves && answer.moves.find((m) => m.move === move);
  return (found && found.san) || move;
}

/** A variation's first moves, numbered as the list numbers them (``ply``: its first's),
 *  for its button. */
function variationText(board, node, ply) {
  const nodes = [];
  for (let n = node; n && nodes.length < 3; n = n.next) nodes.push(n);
  const numbers = numbersFrom(board, ply - 1, nodes.map((n) => n.parent.answer.side)).slice(ply - 1);
  return score(nodes.map((n) => written(n.parent.answer, n.move)), numbers) + (nodes[nodes.length - 1].next ? ' …' : '');
}

/** The row of ``list`` a move numbered ``number`` goes in: ``row`` (the list's last),
 *  or a new one headed by the number when the move opens one (or the list is empty). */
function numberedRow(list, row, number) {
  if (row && !number.first) return row;
  const next = html('li', {'class': 'row'});
  next.appendChild(html('span', {'class': 'n', 'aria-hidden': 'true'}, numberText(number)));
  list.appendChild(next);
  return next;
}

/** The game's moves numbered by pairs, as the terminal's score writes them: one row per
 *  number ("1." then a move of each side; "1. ..." when the game began with the second
 *  side), each move a button to go there; variations after the row of the move they
 *  replace. While the editor is open, the setup instead. */
function drawGame() {
  const board = currentBoard();
  const list = $('game');
  list.textContent = '';
  if (editor) {
    $('game-count').textContent = '';
    list.appendChild(html('li', {'class': 'empty'}, 'A new position: “Play from here” starts a game from it.'));
    return;
  }
  if (!root) return;  // no game yet (an endgame database's position being composed)
  const thrown = valuesShown() ? blunders() : {};
  $('game-count').textContent = last() ? last() + (last() === 1 ? ' ply' : ' plies') : '';
  if (!last()) list.appendChild(html('li', {'class': 'empty'}, 'No moves yet.'));
  const numbers = numbersFrom(board, last(), []);
  let pending = [];  // the variations of the row being written, listed after it
  const variations = (node, ply) => {
    // The moves once played at ``ply`` (from ``node``) and not followed now: variations.
    node.children.filter((c) => c !== node.next).forEach((alt) => {
      const text = variationText(board, alt, ply);
      const button = html('button', {type: 'button', 'class': 'variation', 'data-ply': ply, 'data-move': alt.move,
        'aria-label': 'Variation: ' + text + '; switch to it'}, '(variation: ' + text + ')');
      button.addEventListener('click', () => switchTo(alt));
      const li = html('li', {'class': 'variation'});
      li.appendChild(button);
      pending.push(li);
    });
  };
  const flush = () => { pending.forEach((li) => list.appendChild(li)); pending = []; };
  let row = null;
  line.slice(1).forEach((node, i) => {
    const ply = i + 1;
    const number = numbers[i];
    if (!row || number.first) flush();
    row = numberedRow(list, row, number);
    const move = written(line[ply - 1].answer, node.move);
    const mover = sideOf(board, line[ply - 1].answer.side);
    const button = html('button', {type: 'button', 'class': 'mono' + (ply === state.at ? ' current' : '') +
        (thrown[ply] ? ' blunder' : ''),
      'aria-label': numberText(number) + ' ' + move + ' (' + mover.title + ')' +
        (thrown[ply] ? ', threw the result away' : '') + (valuesShown() ? '; then ' + words(board, node.answer) : ''),
      'data-ply': ply, 'data-move': node.move}, move);
    if (ply === state.at) button.setAttribute('aria-current', 'step');
    button.addEventListener('click', () => go(ply));
    row.appendChild(button);
    variations(line[ply - 1], ply);
  });
  flush();
  variations(line[last()], last() + 1);  // continuations once played after the line's end
  flush();
  // Scroll the list's own box to the current move, never the page (stepping through a
  // game must not move the page under the reader's eyes).
  const shown = list.querySelector('.current');
  if (state.at === 0) list.scrollTop = 0;
  else if (shown) {
    const top = shown.offsetTop;
    const bottom = top + shown.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
  }
}

/** The chart of the game's values (while editing: of the setup alone). */
function paintChart() {
  const shown = editor ? (editor.answer ? [editor.answer] : []) : root ? answers() : [];
  // The editor shows values, as its move list does.
  const values = (!!editor || valuesShown()) && shown.length > 0;
  $('chart').hidden = !values;
  $('legend').hidden = !values;
  $('chart-hidden').hidden = !!editor || valuesShown();
  if (!values) { $('chart').textContent = ''; return; }
  const board = currentBoard();
  const numbers = numbering(board, shown.map((a) => a.side));  // of the move played from each position
  const moves = editor ? [] : state.moves;
  drawChart($('chart'), {board: board, answers: shown, at: editor ? 0 : state.at,
    names: moves.map((move, i) => numberText(numbers[i]) + ' ' + move),
    starts: numbers.map((n, i) => (n.first && !shown[i].over ? n.number : null)),
    thrown: editor ? {} : blunders(), onPick: editor ? () => {} : go});
}

function drawLegend() {
  const board = currentBoard();
  if (!board) return;
  const many = manyPlayers(board);
  const keys = document.querySelectorAll('#legend .side-key');
  keys.forEach((item, i) => {
    const side = board.sides[i];
    item.hidden = !side;
    if (!side) return;
    item.querySelector('.key').className = 'key ' + (many ? 'q' + i : 's' + i);
    item.querySelector('.label').textContent = capitalize(side.title) + (side.plural ? ' win' : ' wins');
  });
  $('legend-draw').textContent = many ? 'no player can force a win' : 'a draw';
}

/** A "Play" choice for each side of the board's game, after "Explore". */
function chooseMode(radio) {
  if (!radio.checked || !current()) return;
  state.mode = radio.value;
  if (state.mode !== 'explore' && !state.seed) state.seed = randomSeed();
  resetView();
  const board = boardOf(current());
  if (state.mode !== 'explore' && allFigures(board.geometry.pieces)) {
    // The player's side nearest, as over a real board (Flip turns it back).
    const orient = orientation(board);
    orient.flip = state.mode !== board.sides[0].name;
    remember('retro.orient.' + board.key, JSON.stringify(orient));
  }
  say(state.mode === 'explore' ? 'Explore: move every side.' : 'You play ' + sideOf(board, state.mode).title +
    (valuesShown() ? '.' : ': values are hidden (“Show values” shows them).'));
  render();
  saveUrl(true);
  computerTurn(false);  // not while editing: the game waits for the editor to close
}

function drawModes() {
  const board = currentBoard();
  if (!board) return;
  const box = $('modes');
  const wanted = ['explore'].concat(board.sides.map((s) => s.name));
  const have = Array.from(box.querySelectorAll('input[name=mode]')).map((r) => r.value);
  if (wanted.join() !== have.join()) {
    box.querySelectorAll('label.play').forEach((label) => label.remove());
    board.sides.forEach((side) => {
      const label = html('label', {'class': 'play'});
      const radio = html('input', {type: 'radio', name: 'mode', value: side.name});
      radio.addEventListener('change', () => chooseMode(radio));
      label.appendChild(radio);
      label.appendChild(document.createTextNode(' Play ' + side.title));
      box.appendChild(label);
    });
  }
  box.querySelectorAll('input[name=mode]').forEach((radio) => { radio.checked = radio.value === state.mode; });
}

function drawControls() {
  const here = current();
  const board = currentBoard();
  $('controls').hidden = !!editor;
  $('editor').hidden = !editor;
  $('edit').setAttribute('aria-pressed', String(!!editor));
  if (!editor) {
    $('to-start').disabled = view.busy || state.at === 0;
    $('undo').disabled = view.busy || state.at === 0;
    $('redo').disabled = view.busy || state.at === last();
    $('to-end').disabled = view.busy || state.at === last();
    $('hint').disabled = !canMove();
    $('show-line').disabled = view.busy || !here || here.over;
  } else {
    $('edit-done').disabled = !editor.answer;
    $('edit-cancel').disabled = !root;  // no game to go back to (an endgame database's first position)
    $('edit-start').disabled = !editor.board.start;
    $('edit-error').textContent = editor.error;
  }
  $('edit').disabled = !board;
  if (board) {
    const orient = orientation(board);
    $('flip').setAttribute('aria-pressed', String(orient.flip));
    $('flip').title = allFigures(board.geometry.pieces) ? 'Turn the board round: the other side\'s view; only the drawing changes'
      : 'Turn the board over, top to bottom; only the drawing changes';
    $('rotate').title = 'Turn the board a quarter turn clockwise (turned ' + orient.quarter * 90 + '° now)';
  }
  drawModes();
  document.querySelectorAll('#boards button').forEach((button) => {
    button.setAttribute('aria-pressed', String(board !== null && button.getAttribute('data-key') === board.key));
  });
  if (board) {
    $('game-name').textContent = boardLabel(board) + (board.start ? '' : ': ' + holds(board));
    $('rules').textContent = board.rules;
    $('game-note').hidden = !board.note;
    $('game-note').textContent = board.note || '';
    $('notation-help').textContent = board.notation;
    drawReferences(board);
    document.title = boardLabel(board) + ', solved · retro';
  }
}

/** The footer's links on the game shown: the references info gives for it. */
function drawReferences(board) {
  const box = $('references');
  if (box.getAttribute('data-key') === board.key) return;
  box.setAttribute('data-key', board.key);
  box.textContent = '';
  (board.references || []).forEach((reference, i) => {
    box.appendChild(document.createTextNode(i ? ' · ' : ' · ' + board.title + ': '));
    box.appendChild(html('a', {href: reference.url}, reference.title));
  });
}

/** The numbers of the perfect line's moves, continuing the game's: the side of each is
 *  the side to move before it (the current position's, then each step's). */
function lineNumbers(board) {
  const steps = view.line.line;
  const sides = [current().side].concat(steps.slice(0, -1).map((step) => {
    const letter = readPosition(board, step.position).side;
    return (board.sides.find((s) => s.letter === letter) || board.sides[0]).name;
  }));
  return numbersFrom(board, state.at, sides).slice(state.at);
}

/** The perfect line from the current position, numbered as the game list is. */
function drawLine() {
  const board = currentBoard();
  const card = $('line-card');
  if (!view.line || editor) { card.hidden = true; return; }
  card.hidden = false;
  const values = valuesShown();
  const list = $('line');
  list.textContent = '';
  const count = view.line.line.length;
  $('line-count').textContent = values ? count + (count === 1 ? ' ply' : ' plies') +
    (view.line.winner === null ? ' (a draw: until a position comes back)' : '') : '';
  const numbers = lineNumbers(board);
  let row = null;
  view.line.line.forEach((step, i) => {
    const number = numbers[i];
    row = numberedRow(list, row, number);
    const previewing = view.preview && view.preview.index === i;
    const button = html('button', {type: 'button', 'data-index': i, 'aria-pressed': String(!!previewing),
      'aria-label': 'Preview ' + numberText(number) + ' ' + (step.san || step.move) + (values ? '; then ' + words(board, step) : '')});
    button.appendChild(html('span', {'class': 'mono'}, step.san || step.move));
    if (values) button.appendChild(html('span', {'class': 'code mono'}, code(board, step)));
    button.addEventListener('click', () => preview(previewing ? null : i));
    row.appendChild(button);
  });
  $('play-line').hidden = humanSide() !== null;
}

/** Show the position after the perfect line's ``index``-th move, without changing the
 *  game (null: back to the game). */
function preview(index) {
  if (index === null || !view.line) {
    view.preview = null;
  } else {
    view.preview = {index: index, step: view.line.line[index]};
    view.selected = view.placing = view.hover = null;
  }
  render();
}

function drawPreview() {
  const box = $('preview');
  box.hidden = !view.preview;
  if (!view.preview) return;
  const board = currentBoard();
  const step = view.preview.step;
  const number = lineNumbers(board)[view.preview.index];
  $('preview-text').textContent = 'Preview of the perfect line: after ' + numberText(number) + ' ' + step.move +
    (valuesShown() ? ' (' + words(board, step) + ')' : '') + '. The game is unchanged.';
}

function drawNotation() {
  const input = $('position-text');
  const text = editor ? editorText() : view.preview ? view.preview.step.position : current().position;
  if (document.activeElement !== input) input.value = text;
}

function render() {
  if (!editor && !current()) return;
  drawVerdict();
  drawPreview();
  paintBoard();
  drawMoves();
  drawGame();
  paintChart();
  drawLegend();
  drawControls();
  drawLine();
  drawNotation();
}

/** The message line under the board; ``kind``: true (an error) or 'warn' (a click
 *  that did nothing, and why). */
function say(text, kind) {
  const box = $('message');
  box.textContent = text;
  box.className = 'message' + (kind === 'warn' ? ' warn' : kind ? ' error' : '');
}

function notationError(text) {
  $('notation-error').textContent = text;
  $('position-text').setAttribute('aria-invalid', text ? 'true' : 'false');
}

// --- wiring ----------------------------------------------------------------------------

function copy(text, what) {
  const done = () => say(what + ' copied.');
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(text).then(done, () => say(text));
  } else {
    say(text);
  }
}

function openBoard(board) {
  if (!board.start) {  // an endgame database: compose a position of it
    if (editor) editor = null;
    openEditor(board, null);
    return;
  }
  editor = null;
  probe(board.start, gameParam(board)).then((answer) => newGame(answer, true, gameParam(board)),
    (error) => say(error.message, true));
}

function turnBoard(change) {
  const board = currentBoard();
  if (!board) return;
  const orient = orientation(board);
  change(orient);
  remember('retro.orient.' + board.key, JSON.stringify(orient));
  paintBoard();
  drawControls();
}

function wireEditor() {
  $('edit').addEventListener('click', () => {
    if (editor) { if (root) closeEditor(null); return; }
    const board = currentBoard();
    if (!board) return;
    const here = current();
    openEditor(board, here && boardOf(here) === board ? (view.preview ? view.preview.step.position : here.position) : null);
  });
  $('edit-clear').addEventListener('click', () => {
    if (!editor) return;
    Object.keys(editor.cells).forEach((n) => { editor.cells[n] = '.'; });
    editor.hands = fullHands(editor.board);
    editor.taken = {};
    drawEditorSides();
    probeEditor(true);
  });
  $('edit-start').addEventListener('click', () => {
    if (!editor || !editor.board.start) return;
    const board = editor.board;
    openEditor(board, board.start);
  });
  $('edit-cancel').addEventListener('click', () => { if (editor) closeEditor(null); });
  $('edit-done').addEventListener('click', () => { if (editor && editor.answer) closeEditor(editor.answer); });
  [0, 1].forEach((i) => {
    $('hand-' + i).addEventListener('input', () => {
      if (!editor) return;
      // Whatever is typed goes to the API, whose error (the CLI's) says what is wrong
      // with a count out of range.
      const typed = $('hand-' + i).value.trim();
      editor.hands[i] = /^[0-9]{1,3}$/.test(typed) ? parseInt(typed, 10) : typed;
      editor.taken = {};  // the hands are the user's now
      probeEditor(true);
    });
  });
}

function wire() {
  $('to-start').addEventListener('click', () => go(0));
  $('undo').addEventListener('click', undo);
  $('redo').addEventListener('click', redo);
  $('to-end').addEventListener('click', () => go(last()));
  $('hint').addEventListener('click', () => {
    const here = current();
    if (!canMove() || !here.moves.length) return;
    view.hint = here.moves[0].move;
    say('Hint: ' + view.hint + (valuesShown() ? ' (' + words(boardOf(here), here.moves[0]) + ')' : '') + '.');
    paintBoard();
    drawMoves();
  });
  $('show-line').addEventListener('click', () => {
    const here = current();
    if (!here) return;
    const mine = epoch;
    api('line', {position: linkText(here.position), game: state.game}).then((got) => {
      if (mine !== epoch || current().position !== got.position) return;
      view.line = got;
      view.preview = null;
      render();
      $('line-card').scrollIntoView({block: 'nearest'});
    }, (error) => say(error.message, true));
  });
  $('play-line').addEventListener('click', () => {
    if (!view.line || humanSide() !== null) return;
    const moves = view.line.line.map((step) => step.move);
    view.preview = null;
    const next = (i) => {  // one history entry for the whole line: its first move's
      if (i >= moves.length) return;
      play(moves[i], false, i === 0).then((moved) => { if (moved) next(i + 1); });
    };
    next(0);
  });
  $('preview-back').addEventListener('click', () => preview(null));
  $('promotion-cancel').addEventListener('click', () => {
    view.promoting = view.selected = null;
    say('');
    paintBoard();
  });
  $('show-values').addEventListener('click', () => {
    showValues = !showValues;
    remember(SHOW_VALUES, showValues ? '1' : '0');
    render();
  });
  $('flip').addEventListener('click', () => turnBoard((o) => { o.flip = !o.flip; }));
  $('rotate').addEventListener('click', () => turnBoard((o) => { o.quarter = (o.quarter + 1) % 4; }));
  $('new-game').addEventListener('click', () => {
    const board = currentBoard();
    const target = board && board.start ? board : defaultBoard();
    if (target) openBoard(target);
  });
  document.querySelectorAll('input[name=mode]').forEach((radio) => {
    radio.addEventListener('change', () => chooseMode(radio));
  });
  $('notation').addEventListener('submit', (event) => {
    event.preventDefault();
    const text = $('position-text').value.trim();
    const fallback = defaultBoard();
    if (!text) { notationError('Type a position first, e.g. ' + (fallback ? fallback.start : '')); return; }
    const board = currentBoard();
    if (editor) {  // into the editor: a position, or a setup to mend (the API says what is wrong)
      const shown = editor;
      probe(text, gameParam(board)).then((answer) => {
        if (editor !== shown) return;
        notationError('');
        $('position-text').blur();
        openEditor(boardOf(answer) || board, answer.position);
      }, (error) => {
        if (editor !== shown) return;
        notationError(error.message);
        if (drawable(board, text)) openEditor(board, text);
      });
      return;
    }
    // The current game's notation first (two games may write a position alike), then any.
    probe(text, gameParam(board)).catch(() => probe(text, null)).then((answer) => {
      notationError('');
      $('position-text').blur();
      const mine = boardOf(answer);
      editor = null;
      newGame(answer, true, mine === board ? gameParam(board) : gameParam(mine));
    }, (error) => notationError(error.message));
  });
  $('position-text').addEventListener('input', () => notationError(''));
  $('copy-position').addEventListener('click', () => {
    const text = editor ? editorText() : current() && current().position;
    if (text) copy(text, 'Position');
  });
  $('copy-link').addEventListener('click', () => copy(location.href, 'Link'));
  wireEditor();
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    const tag = target && target.tagName;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape') {
      if (view.preview) { preview(null); return; }
      if (view.selected || view.placing || view.promoting) {
        view.selected = view.placing = view.promoting = null;
        say('');
        paintBoard();
      }
      return;
    }
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || editor) return;
    if (target && target.closest && target.closest('#board')) return;  // the board's own keys
    const keys = {ArrowLeft: () => go(state.at - 1), ArrowRight: () => go(state.at + 1),
      Home: () => go(0), End: () => go(last())};
    if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
  });
  window.addEventListener('popstate', () => { editor = null; loadFromUrl(); });
}

/** One button per board, named after its game; the boards of one game (Three
 *  Musketeers' sizes) side by side after the game's name, each button named in full
 *  for screen readers. */
function drawBoardButtons() {
  const nav = $('boards');
  const groups = [];  // the boards of each game, in info's order
  boards.forEach((board) => {
    const group = groups.find((g) => g[0].game === board.game);
    if (group) group.push(board);
    else groups.push([board]);
  });
  groups.forEach((group) => {
    let box = nav;
    if (group.length > 1) {
      box = html('span', {'class': 'board-group', role: 'group', 'aria-label': group[0].title});
      box.appendChild(html('span', {'class': 'group-name', 'aria-hidden': 'true'}, group[0].title));
      nav.appendChild(box);
    }
    group.forEach((board) => {
      const label = boardLabel(board);
      const attrs = {type: 'button', 'data-key': board.key, 'aria-pressed': 'false', 'aria-label': label,
        title: board.start ? 'New game: ' + label
          : label + ', an endgame database: ' + holds(board) +
            '; compose one in the editor, or paste one in the Position box'};
      if (board.size) attrs['data-size'] = board.size;
      const short = group.length > 1 ? label.slice(board.title.length).trim().replace(/^with\s+(?=\d)/, '') || label : label;
      const button = html('button', attrs, short);
      button.addEventListener('click', () => openBoard(board));
      box.appendChild(button);
    });
  });
}

function start() {
  wire();
  api('info', {}).then((info) => {
    boards = info.boards;
    drawBoardButtons();
    return loadFromUrl();
  }).catch((error) => say(error instanceof ApiError ? error.message : String(error), true));
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
else start();
