/* retro's page: drawing a board (squares of a grid, or points joined by lines) from
 * /api/v1/info's geometry, turned as the viewer likes, and operating it by pointer
 * or keyboard. It draws what it is told (pieces, marks, targets, arrows) and names
 * the point a click or a key acts on; it knows no rules. */

import {parseMove} from './notation.js';
import {FIGURES, allFigures, drawFigure} from './pieces.js';

const SVG = 'http://www.w3.org/2000/svg';
const FILES = 'abcdefghijklmnopqrstuvwxyz';

export function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const key in attrs) node.setAttribute(key, attrs[key]);
  if (parent) parent.appendChild(node);
  return node;
}

/** The drawing's coordinates of a point of the board's own (x right, y down, from 0 to
 *  columns and rows), after the viewer's turns: ``flip`` mirrors top and bottom (row 1
 *  at the bottom), then ``quarter`` quarter turns clockwise. Only the drawing moves:
 *  every point keeps its name. */
export function turner(columns, rows, orient) {
  return function (px, py) {
    let x = px;
    let y = orient.flip ? rows - py : py;
    let w = columns;
    let h = rows;
    for (let i = 0; i < (orient.quarter || 0); i++) {  // (x, y) -> (h - y, x), w and h swapped
      const nx = h - y;
      y = x;
      x = nx;
      const t = w;
      w = h;
      h = t;
    }
    return {x: x, y: y};
  };
}

function turnedSize(columns, rows, orient) {
  return (orient.quarter || 0) % 2 ? {w: rows, h: columns} : {w: columns, h: rows};
}

function arrow(svg, at, move, kind) {
  const p = parseMove(move);
  if (p.drop) p.from = null;  // a drop from the hand: a placement
  if (!p.to || !at[p.to] || (p.from && !at[p.from])) return;
  if (!p.from) {  // a placement: a ring on its point
    el('circle', {cx: at[p.to].x, cy: at[p.to].y, r: 0.3, 'class': 'arrow ' + kind}, svg);
  } else {
    const a = at[p.from];
    const b = at[p.to];
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const length = Math.sqrt(dx * dx + dy * dy);
    const ux = dx / length;
    const uy = dy / length;
    const tip = {x: b.x - ux * 0.18, y: b.y - uy * 0.18};
    el('line', {x1: a.x + ux * 0.18, y1: a.y + uy * 0.18, x2: tip.x - ux * 0.16, y2: tip.y - uy * 0.16,
      'class': 'arrow ' + kind}, svg);
    const px = -uy * 0.17;
    const py = ux * 0.17;
    el('polygon', {points: [tip.x + ux * 0.06, tip.y + uy * 0.06, tip.x - ux * 0.2 + px, tip.y - uy * 0.2 + py,
      tip.x - ux * 0.2 - px, tip.y - uy * 0.2 - py].join(' '), 'class': 'arrow-head ' + kind}, svg);
  }
  if (p.remove && at[p.remove]) {
    const r = at[p.remove];
    const d = 0.22;
    el('line', {x1: r.x - d, y1: r.y - d, x2: r.x + d, y2: r.y + d, 'class': 'arrow ' + kind}, svg);
    el('line', {x1: r.x + d, y1: r.y - d, x2: r.x - d, y2: r.y + d, 'class': 'arrow ' + kind}, svg);
  }
}

/** A piece: its shape's drawing (a chess figure: pieces.js); in a game of several kinds
 *  of piece a side (``lettered``), a token of its side's colour (``side``: 0 or 1) with
 *  its letter. */
function drawPiece(svg, at, shape, char, lettered, side) {
  const g = el('g', {'class': 'piece', 'data-piece': char}, svg);
  if (FIGURES[shape]) {
    drawFigure(g, shape, side, at.x - 0.46, at.y - 0.47, 0.92);
  } else if (lettered) {
    el('rect', {x: at.x - 0.34, y: at.y - 0.34, width: 0.68, height: 0.68, rx: 0.12,
      'class': 'token side-' + side}, g);
    el('text', {x: at.x, y: at.y, 'text-anchor': 'middle', 'dominant-baseline': 'central',
      'class': 'token-letter side-' + side}, g).textContent = char.toUpperCase();
  } else if (shape === 'ring') {
    el('circle', {cx: at.x, cy: at.y, r: 0.34, 'class': 'musketeer'}, g);
    el('circle', {cx: at.x, cy: at.y, r: 0.17, 'class': 'musketeer-ring'}, g);
  } else if (shape === 'cross') {
    const d = 0.2;
    el('line', {x1: at.x - d, y1: at.y - d, x2: at.x + d, y2: at.y + d, 'class': 'enemy'}, g);
    el('line', {x1: at.x + d, y1: at.y - d, x2: at.x - d, y2: at.y + d, 'class': 'enemy'}, g);
  } else {
    el('circle', {cx: at.x, cy: at.y, r: 0.3, 'class': 'stone ' + shape}, g);
  }
}

/** A line to mark (a finishing line, a mill): one stroke between its two farthest points. */
function markLine(svg, at, line, sideClass) {
  const points = line.points.filter((name) => at[name]);
  let best = null;
  points.forEach((a) => points.forEach((b) => {
    const d = (at[a].x - at[b].x) ** 2 + (at[a].y - at[b].y) ** 2;
    if (!best || d > best.d) best = {a: a, b: b, d: d};
  }));
  if (!best || best.d === 0) return;
  el('line', {x1: at[best.a].x, y1: at[best.a].y, x2: at[best.b].x, y2: at[best.b].y,
    'class': 'aligned ' + sideClass, 'data-points': line.points.join(' ')}, svg);
}

/** The nearest point from ``from`` in a direction of the drawing (dx, dy), or null. */
function neighbour(at, from, dx, dy) {
  let best = null;
  Object.keys(at).forEach((name) => {
    const vx = at[name].x - at[from].x;
    const vy = at[name].y - at[from].y;
    const along = vx * dx + vy * dy;
    if (along < 0.1) return;
    const score = along + 2.5 * Math.abs(vx * dy - vy * dx);
    if (!best || score < best.score) best = {name: name, score: score};
  });
  return best && best.name;
}

const KEYS = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};

/**
 * Draw a board into ``box``. ``spec``: board (from info), cells {point: char}, orient
 * {flip, quarter}, last {from, to} (the last move), selected (a point), sources {point:
 * true} (pieces that can move), targets and removals {point: 'win'|'draw'|'loss'|'plain'}
 * (where a click goes, coloured by value, or plain while values are hidden), lines
 * [{tone, points}] (lines to mark), check [point] (pieces in check), arrows [{move, kind}], label(point) (its spoken
 * name), caption (the whole board in words), onPoint(point) (a click, Enter or Space).
 *
 * Every point is a button of its own, in the notation's order (Tab), and the arrow
 * keys move between them as they are drawn; the focused point keeps its focus when
 * the board is drawn again.
 */
export function drawBoard(box, spec) {
  const focused = box.contains(document.activeElement) ? document.activeElement.getAttribute('data-square') : null;
  box.textContent = '';
  const board = spec.board;
  const geometry = board.geometry;
  const columns = geometry.columns;
  const rows = geometry.rows;
  // A chessboard turned over is turned round (Black's view: h1 in the top left corner),
  // not mirrored: its light square stays on each player's right.
  const chess = geometry.kind === 'grid' && allFigures(geometry.pieces);
  const asked = spec.orient || {flip: false, quarter: 0};
  const orient = chess && asked.flip ? {flip: false, quarter: ((asked.quarter || 0) + 2) % 4} : asked;
  const turn = turner(columns, rows, orient);
  const size = turnedSize(columns, rows, orient);
  const at = {};
  geometry.points.forEach((p) => { at[p.name] = turn(p.x + 0.5, p.y + 0.5); });

  // Coordinates outside the board, on whichever sides the turns took them to: each
  // column's letter and each row's number as its points' names say (a game may draw
  // its last row on top: Dōbutsu shōgi's far rank).
  const files = {};
  const numbers = {};
  geometry.points.forEach((p) => {
    const m = /^([a-z])([0-9]{1,2})$/.exec(p.name);
    if (m) { files[p.x] = m[1]; numbers[p.y] = m[2]; }
  });
  // A chessboard (every piece a chess figure): light and dark squares, the files'
  // letters under the board and the ranks' numbers on its left, however it is turned.
  const edge = (a, b) => (chess && b.y - b.x > a.y - a.x ? b : a);
  const labels = [];
  for (let c = 0; c < columns; c++) {
    labels.push({text: files[c] || FILES[c], at: edge(turn(c + 0.5, -0.3), turn(c + 0.5, rows + 0.3))});
  }
  for (let r = 0; r < rows; r++) {
    labels.push({text: numbers[r] || String(r + 1), at: edge(turn(-0.3, r + 0.5), turn(columns + 0.3, r + 0.5))});
  }
  let minX = -0.08;
  let minY = -0.08;
  let maxX = size.w + 0.08;
  let maxY = size.h + 0.08;
  labels.forEach((l) => {
    minX = Math.min(minX, l.at.x - 0.25);
    maxX = Math.max(maxX, l.at.x + 0.25);
    minY = Math.min(minY, l.at.y - 0.25);
    maxY = Math.max(maxY, l.at.y + 0.25);
  });
  const svg = el('svg', {viewBox: [minX, minY, maxX - minX, maxY - minY].join(' '), role: 'group',
    'aria-label': spec.caption || board.title});
  if (chess) svg.setAttribute('class', 'chessboard');
  labels.forEach((l) => {
    el('text', {x: l.at.x, y: l.at.y, 'text-anchor': 'middle', 'dominant-baseline': 'central',
      'class': 'coord'}, svg).textContent = l.text;
  });

  const grid = geometry.kind === 'grid';
  const last = spec.last || {};
  const targets = spec.targets || {};
  const removals = spec.removals || {};
  const sources = spec.sources || {};
  const marks = function (name) {
    const out = [];
    if (last.from === name) out.push('from');
    if (last.to === name) out.push('to');
    if (spec.selected === name) out.push('selected');
    if ((spec.check || []).indexOf(name) >= 0) out.push('check');
    return out;
  };
  if (!grid) {
    el('rect', {x: 0, y: 0, width: size.w, height: size.h, 'class': 'plank'}, svg);
    geometry.lines.forEach((line) => {
      const a = at[line[0]];
      const b = at[line[1]];
      el('line', {x1: a.x, y1: a.y, x2: b.x, y2: b.y, 'class': 'edge'}, svg);
    });
  }
  geometry.points.forEach((point) => {
    const c = at[point.name];
    const classes = marks(point.name);
    if (grid) {
      if (chess) classes.push((point.x + point.y) % 2 ? 'dark' : 'light');  // a8 (top left in White's view) light
      el('rect', {x: c.x - 0.5, y: c.y - 0.5, width: 1, height: 1, 'class': ['sq'].concat(classes).join(' ')}, svg);
    } else {
      el('circle', {cx: c.x, cy: c.y, r: 0.42, 'class': ['spot'].concat(classes).join(' ')}, svg);
      el('circle', {cx: c.x, cy: c.y, r: 0.09, 'class': 'point'}, svg);
    }
    // The last move's points: a dark outline (its contrast with the board is at least
    // 3:1, see style.css) rather than a tint alone (1.13:1).
    if (last.from === point.name || last.to === point.name) {
      if (grid) el('rect', {x: c.x - 0.45, y: c.y - 0.45, width: 0.9, height: 0.9, rx: 0.04, 'class': 'last'}, svg);
      else el('circle', {cx: c.x, cy: c.y, r: 0.4, 'class': 'last'}, svg);
    }
  });
  // Goals (the four-player race): a dashed square in the colour of the piece racing there.
  Object.entries(geometry.goals || {}).forEach(([side, name]) => {
    const char = Object.keys(geometry.pieces).find((c) => geometry.pieces[c].side === side);
    if (!at[name] || !char) return;
    el('rect', {x: at[name].x - 0.4, y: at[name].y - 0.4, width: 0.8, height: 0.8, rx: 0.08,
      'class': 'goal ' + geometry.pieces[char].shape, 'data-goal': side}, svg);
  });
  const kinds = {};  // pieces of each side: several make the pieces lettered tokens
  Object.values(geometry.pieces).forEach((p) => { kinds[p.side] = (kinds[p.side] || 0) + 1; });
  const lettered = Object.values(kinds).some((n) => n > 1);
  if (chess) el('rect', {x: 0, y: 0, width: size.w, height: size.h, 'class': 'frame'}, svg);
  geometry.points.forEach((point) => {
    const name = point.name;
    const cell = spec.cells[name];
    const piece = geometry.pieces[cell];
    if (piece) drawPiece(svg, at[name], piece.shape, cell, lettered, board.sides.findIndex((s) => s.name === piece.side));
    const target = targets[name] || removals[name];
    if (target) {
      const attrs = {cx: at[name].x, cy: at[name].y, 'data-target': name};
      if (!piece) el('circle', Object.assign({r: 0.13, 'class': 'dot ' + target}, attrs), svg);
      else el('circle', Object.assign({r: 0.44, 'class': 'ring ' + target}, attrs), svg);
    }
  });
  (spec.lines || []).forEach((line) => markLine(svg, at, line, line.tone));
  (spec.arrows || []).forEach((a) => arrow(svg, at, a.move, a.kind));

  // On top: one focusable button per point, in the notation's order.
  const hits = {};
  geometry.points.forEach((point) => {
    const name = point.name;
    const c = at[name];
    const classes = ['hit'];
    if (sources[name]) classes.push('source');
    if (targets[name] || removals[name]) classes.push('target');
    const attrs = {'class': classes.join(' '), 'data-square': name, tabindex: '0', role: 'button',
      'aria-label': spec.label ? spec.label(name) : name};
    if (spec.selected === name) attrs['aria-pressed'] = 'true';
    hits[name] = grid ? el('rect', Object.assign({x: c.x - 0.5, y: c.y - 0.5, width: 1, height: 1}, attrs), svg)
      : el('circle', Object.assign({cx: c.x, cy: c.y, r: 0.42}, attrs), svg);
  });
  svg.addEventListener('click', (event) => {
    const name = event.target.getAttribute && event.target.getAttribute('data-square');
    if (name && spec.onPoint) spec.onPoint(name);
  });
  svg.addEventListener('keydown', (event) => {
    const name = event.target.getAttribute && event.target.getAttribute('data-square');
    if (!name || event.altKey || event.ctrlKey || event.metaKey) return;
    if (KEYS[event.key]) {
      event.preventDefault();
      event.stopPropagation();  // on the board the arrows move between points, not through the game
      const next = neighbour(at, name, KEYS[event.key][0], KEYS[event.key][1]);
      if (next) hits[next].focus({preventScroll: true});
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      if (spec.onPoint) spec.onPoint(name);
    }
  });
  box.appendChild(svg);
  if (focused && hits[focused]) hits[focused].focus({preventScroll: true});
}
