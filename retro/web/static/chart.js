/* retro's page: the chart of a game, one bar per position (plies to the end, or a
 * draw at half height), coloured by who wins, and under the bars the move numbers of
 * the game's list (the number of the move played from that position). */

import {el} from './board.js';
import {code, tone, words} from './notation.js';

const WIDTH = 340;
const HEIGHT = 120;
const LEFT = 22;
const TOP = 14;
const BOTTOM = 16;
const DIGIT = 6.2;  // the width of a digit of the ticks' 10-unit font, and a little more

/** Whether labels of up to ``digits`` digits, ``gap`` units apart, leave room between them. */
function fits(gap, digits) { return gap >= digits * DIGIT + 4; }

/** Label every k-th move number, k the smallest of 1, 2, 5, 10, 20, 50, ... whose labels
 *  (of up to ``digits`` digits, on slots ``slot`` units apart) leave a gap between
 *  them: the labels never overlap, whatever the length of the game. */
export function labelEvery(slot, digits) {
  for (let scale = 1; ; scale *= 10) {
    for (const k of [1, 2, 5]) {
      if (fits(k * scale * slot, digits)) return k * scale;
    }
  }
}

/** ``o``: board, answers (the probe answer of each position of the game), names (for
 *  each position after the first, the move that led there as the list writes it:
 *  "3. ... d1-e1"), starts (for each position, the number of the move played from it
 *  when that move opens a number, else null), at (the position shown), thrown ({ply:
 *  true} for moves that threw a result away), onPick(ply). */
export function drawChart(box, o) {
  const board = o.board;
  const answers = o.answers;
  box.textContent = '';
  const decided = answers.map((a) => (a.plies === null || a.plies === undefined ? 0 : a.plies));
  const topPlies = Math.max(4, Math.max.apply(null, decided));
  const slot = Math.min(24, (WIDTH - LEFT - 4) / answers.length);
  const numbers = o.starts.filter((n) => n !== null);
  const digits = String(Math.max(1, Math.max.apply(null, numbers.concat([1])))).length;
  const every = labelEvery(2 * slot, digits);  // a move number spans two positions
  const first = every === 1 || fits((every - 1) * 2 * slot, digits);  // "1" too, when it has room
  const svg = el('svg', {viewBox: '0 0 ' + WIDTH + ' ' + HEIGHT, role: 'img',
    'aria-label': 'Plies to the end after each move: ' + answers.map((a) => code(board, a)).join(', ')});
  const base = HEIGHT - BOTTOM;
  el('line', {x1: LEFT, y1: base + 0.5, x2: WIDTH, y2: base + 0.5, 'class': 'axis'}, svg);
  el('text', {x: LEFT - 4, y: TOP + 4, 'text-anchor': 'end', 'class': 'tick'}, svg).textContent = String(topPlies);
  el('text', {x: LEFT - 4, y: base, 'text-anchor': 'end', 'class': 'tick'}, svg).textContent = '0';
  answers.forEach((a, i) => {
    const drawn = a.plies === null || a.plies === undefined;
    const h = drawn ? (base - TOP) * 0.5 : Math.max(1.5, (base - TOP) * a.plies / topPlies);
    const x = LEFT + i * slot + slot * 0.12;
    const bar = el('rect', {x: x, y: base - h, width: Math.max(1, slot * 0.76), height: h, rx: Math.min(2, slot / 6),
      'class': 'bar ' + tone(board, a) + (i === o.at ? ' current' : ''), 'data-ply': i}, svg);
    el('title', {}, bar).textContent = (i === 0 ? 'start' : 'after ' + o.names[i - 1]) + ': ' +
      words(board, a) + (o.thrown[i] ? '; this move threw the result away' : '');
    bar.addEventListener('click', () => o.onPick(i));
    if (o.thrown[i]) {
      el('text', {x: x + slot * 0.38, y: base - h - 2, 'text-anchor': 'middle', 'class': 'blunder'}, svg).textContent = '▼';
    }
    const n = o.starts[i];
    if (n !== null && (n % every === 0 || (n === 1 && first))) {
      el('text', {x: x + slot * 0.38, y: HEIGHT - 3, 'text-anchor': 'middle', 'class': 'tick move', 'data-ply': i},
        svg).textContent = String(n);
    }
  });
  box.appendChild(svg);
}
