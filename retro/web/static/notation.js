/* retro's page: reading and writing the notation, and saying values in words.
 *
 * The page knows no rules. It reads the notation only to draw a board: the side to
 * move, the pieces in hand (morris: a count each), then one character per point in the
 * order /api/v1/info lists the points, in the groups info gives (geometry.groups), then
 * the pieces in hand of a game that writes them as letters (geometry.hand_pieces, '-'
 * for none: Dōbutsu shōgi); or, where geometry.writes is 'fen' (chess), FEN: the ranks
 * separated by '/', a digit for so many empty squares, then the side to move in lower
 * case; and a move's points: `from-to`, a placement `to`, a removal `...xpoint`, a drop
 * from the hand `C*b2` (its source is `C*`), or in UCI (geometry.moves 'uci': `e2e4`,
 * and `e7e8q` for a pawn that becomes a queen). */

const MOVE = /^(?:([a-z][0-9]{1,2})-|([A-Za-z])\*)?([a-z][0-9]{1,2})(?:x([a-z][0-9]{1,2}))?$/;
const UCI = /^([a-z][0-9]{1,2})([a-z][0-9]{1,2})([a-z])?$/;

export function capitalize(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

export function sideOf(board, name) {
  return board.sides.find((s) => s.name === name) || {name: name, title: name, letter: '?', plural: false};
}

/** The other side of a two-sided game. */
export function otherSide(board, name) {
  return board.sides[0].name === name ? board.sides[1] : board.sides[0];
}

/** "the enemy's", "the musketeers'", "White's". */
export function possessive(side) {
  return side.title + (/s$/.test(side.title) ? '\'' : '\'s');
}

/** "the musketeers are", "the enemy is". */
export function sideIs(side) { return side.title + (side.plural ? ' are' : ' is'); }

function drawn(outcome) { return outcome.winner === null || outcome.winner === undefined; }

/** Whether the board's game has more than two players: then every answer carries each
 *  player's value (``values``: {name: {result, plies}}) and ``winner`` is the player who
 *  can force a win, if any. */
export function manyPlayers(board) { return board.sides.length > 2; }

/** 's0', 's1' or 'd': who an outcome favours, for colours ('q0'..'q3': one of more players). */
export function tone(board, outcome) {
  if (drawn(outcome)) return 'd';
  const i = board.sides.findIndex((s) => s.name === outcome.winner);
  return manyPlayers(board) ? 'q' + i : i === 0 ? 's0' : 's1';
}

/** 'W5', 'L16', 'D': one player's value in a few characters. */
export function playerCode(value) {
  return value.result === 'draw' ? 'D' : value.result.charAt(0).toUpperCase() + value.plies;
}

/** 'M25', 'E3', 'D': an outcome in a few characters ('L16 L14 L8 L22': every player's). */
export function code(board, outcome) {
  if (outcome.values) return board.sides.map((s) => playerCode(outcome.values[s.name])).join(' ');
  if (drawn(outcome)) return 'D';
  return sideOf(board, outcome.winner).letter + outcome.plies;
}

/** One player's value in words: "Player 2 wins in 5 plies", "Player 1 loses in 16 plies". */
export function playerWords(side, value) {
  if (value.result === 'draw') return side.title + ' draws';
  const plies = value.plies + (value.plies === 1 ? ' ply' : ' plies');
  if (value.result === 'win') return side.title + (value.plies === 0 ? ' has won' : ' wins in ' + plies);
  return side.title + (value.plies === 0 ? ' has lost' : ' loses in ' + plies);
}

export function words(board, outcome) {
  if (outcome.values) {
    if (!drawn(outcome)) return playerWords(sideOf(board, outcome.winner), outcome.values[outcome.winner]);
    return 'no player can force a win';
  }
  if (drawn(outcome)) return 'a draw';
  const side = sideOf(board, outcome.winner);
  if (outcome.plies === 0) return side.title + (side.plural ? ' have won' : ' has won');
  const plies = outcome.plies + (outcome.plies === 1 ? ' ply' : ' plies');
  // A game that counts moves (chess: info's side says ``mates``): "White mates in 6 (11 plies)".
  if (side.mates) return side.title + ' ' + side.mates + ' in ' + Math.floor((outcome.plies + 1) / 2) + ' (' + plies + ')';
  return side.title + (side.plural ? ' win' : ' wins') + ' in ' + plies;
}

/** An outcome for ``side``: 2 a win, 1 a draw, 0 a loss (of more players: its own value). */
export function rank(outcome, side) {
  if (outcome.values && outcome.values[side]) return {win: 2, draw: 1, loss: 0}[outcome.values[side].result];
  if (drawn(outcome)) return 1;
  return outcome.winner === side ? 2 : 0;
}

/** 'win', 'draw' or 'loss': what a move (its outcome) gives the side that plays it. */
export function kind(outcome, mover) { return ['loss', 'draw', 'win'][rank(outcome, mover)]; }

/** The pieces on the board and in hand: {side (letter), cells: {point: char}, hands: [w, b] | null}. */
export function readPosition(board, text) {
  const tokens = text.trim().split(/\s+/);
  const geometry = board.geometry;
  if (geometry.writes === 'fen') return readFen(board, tokens);
  if (geometry.writes === 'squares') {  // the side, then each piece's square, in the pieces' order
    const cells = {};
    geometry.points.forEach((point) => { cells[point.name] = '.'; });
    Object.keys(geometry.pieces).forEach((char, i) => {
      const square = (tokens[1 + i] || '').toLowerCase();
      if (square in cells) cells[square] = char;
    });
    return {side: tokens[0], cells: cells, hands: null};
  }
  const letters = geometry.hand_pieces;
  if (letters) {  // the ranks, then the pieces in hand as letters: [side 0's, side 1's]
    const groups = (geometry.groups || [geometry.points.length]).length;
    const chars = tokens.slice(1, 1 + groups).join('');
    const cells = {};
    geometry.points.forEach((point, i) => { cells[point.name] = chars[i] || '.'; });
    const held = tokens[1 + groups] || '';
    const hands = board.sides.map((side) => held.split('').filter((c) => letters.includes(c) &&
      geometry.pieces[c] && geometry.pieces[c].side === side.name).join(''));
    return {side: tokens[0], cells: cells, hands: hands};
  }
  const chars = tokens.slice(1 + (geometry.hands ? 2 : 0)).join('');
  const cells = {};
  geometry.points.forEach((point, i) => { cells[point.name] = chars[i] || '.'; });
  return {side: tokens[0], cells: cells, hands: geometry.hands ? [+tokens[1], +tokens[2]] : null};
}

/** The side's letter as info writes it ('W'), of a FEN's side to move ('w'). */
function fenSide(board, letter) {
  const side = board.sides.find((s) => s.letter.toLowerCase() === String(letter || '').toLowerCase());
  return side ? side.letter : letter;
}

/** A FEN's pieces, rank by rank in info's order of the points: null when its ranks do
 *  not fill the board exactly (what the editor cannot show; the API says what is wrong). */
function fenCells(board, placement) {
  const geometry = board.geometry;
  const chars = [];
  const ranks = String(placement || '').split('/');
  if (ranks.length !== (geometry.groups || []).length) return null;
  for (let r = 0; r < ranks.length; r++) {
    let width = 0;
    for (const c of ranks[r]) {
      if (/[1-9]/.test(c)) {
        for (let i = 0; i < +c; i++) chars.push('.');
        width += +c;
      } else if (geometry.pieces[c]) {
        chars.push(c);
        width += 1;
      } else {
        return null;
      }
    }
    if (width !== geometry.groups[r]) return null;
  }
  const cells = {};
  geometry.points.forEach((point, i) => { cells[point.name] = chars[i]; });
  return cells;
}

function readFen(board, tokens) {
  const cells = fenCells(board, tokens[0]);
  const empty = {};
  board.geometry.points.forEach((point) => { empty[point.name] = '.'; });
  return {side: fenSide(board, tokens[1]), cells: cells || empty, hands: null, readable: !!cells};
}

/** Whether ``text`` is a position the board's notation can draw (the editor opens it;
 *  whether it is legal is the API's to say). */
export function drawable(board, text) {
  if (board.geometry.writes !== 'fen') return true;
  const tokens = String(text || '').trim().split(/\s+/);
  return fenCells(board, tokens[0]) !== null && board.sides.some((s) => s.letter.toLowerCase() === (tokens[1] || '').toLowerCase());
}

/** FEN's pieces: each rank's squares, a run of empty ones as its length. */
function fenPlacement(board, cells) {
  const geometry = board.geometry;
  const ranks = [];
  let at = 0;
  (geometry.groups || [geometry.points.length]).forEach((n) => {
    let rank = '';
    let run = 0;
    geometry.points.slice(at, at + n).forEach((point) => {
      const c = cells[point.name];
      if (geometry.pieces[c]) {
        if (run) rank += String(run);
        run = 0;
        rank += c;
      } else {
        run += 1;
      }
    });
    ranks.push(rank + (run ? String(run) : ''));
    at += n;
  });
  return ranks.join('/');
}

/** The letters a side holds in a game that writes its hands as letters, each as that
 *  side writes it (what an editor's user typed in either case: 'cg' for Gote is 'cg'). */
function handLetters(board, i, typed) {
  const geometry = board.geometry;
  return String(typed || '').split('').map((t) => geometry.hand_pieces.split('').find((c) =>
    c.toLowerCase() === t.toLowerCase() && geometry.pieces[c] && geometry.pieces[c].side === board.sides[i].name) || t)
    .filter((c) => c.trim() && c !== '-').join('');
}

/** The text of a position: the side's letter, the hands (morris), then the points in
 *  info's order, cut into its groups. */
export function compose(board, letter, cells, hands) {
  const geometry = board.geometry;
  if (geometry.writes === 'fen') {  // no castling (the editor sets none), no en-passant square
    return [fenPlacement(board, cells), String(letter).toLowerCase(), '-', '-'].join(' ');
  }
  if (geometry.writes === 'squares') {  // a piece not on the board: '?', which the server names
    return [letter].concat(Object.keys(geometry.pieces).map((char) =>
      geometry.points.map((p) => p.name).find((name) => cells[name] === char) || '?')).join(' ');
  }
  const empty = geometry.empty || '.';
  const chars = geometry.points.map((point) => (geometry.pieces[cells[point.name]] ? cells[point.name] : empty)).join('');
  const groups = [];
  let at = 0;
  (geometry.groups || [chars.length]).forEach((n) => { groups.push(chars.slice(at, at + n)); at += n; });
  if (geometry.hand_pieces) {
    const held = [0, 1].map((i) => handLetters(board, i, hands && hands[i])).join('');
    return [letter].concat(groups, [held || '-']).join(' ');
  }
  return [letter].concat(geometry.hands ? [String(hands[0]), String(hands[1])] : [], groups).join(' ');
}

/** Whether ``typed`` names the legal move ``canonical`` (as the API writes it): the same
 * squares in order, whatever the case, spaces, underscores or dashes, and Three
 * Musketeers' capture written with an x (e1xe2). */
export function sameMove(canonical, typed) {
  const compact = (text) => String(text || '').toLowerCase().replace(/[\s_\-\u2013\u2014]+/g, '');
  const want = compact(canonical);
  const got = compact(typed);
  return got === want || (!want.includes('x') && /^[a-e][1-5]x[a-e][1-5]$/.test(got) && got.replace('x', '') === want);
}

/** A move's points: {from, to, remove, drop, promotion}; a drop's ``from`` is its piece
 *  and '*' (``C*``: the hand's piece a click chooses), ``drop`` the piece's letter; a
 *  UCI move's ``promotion`` the letter of what its piece becomes ('q' of e7e8q). */
export function parseMove(text) {
  const m = MOVE.exec(text || '');
  if (!m) {
    const u = UCI.exec(text || '');
    if (u) return {from: u[1], to: u[2], remove: null, drop: null, promotion: u[3] || null};
    return {from: null, to: null, remove: null, drop: null, promotion: null};
  }
  return {from: m[1] || (m[2] ? m[2] + '*' : null), to: m[3], remove: m[4] || null, drop: m[2] || null, promotion: null};
}

/** The piece a UCI move's piece becomes (its notation character, in the mover's case:
 *  'Q' for White's e7e8q), or null. */
export function promotedTo(board, move, mover) {
  const letter = parseMove(move).promotion;
  if (!letter) return null;
  const pieces = board.geometry.pieces;
  return Object.keys(pieces).find((c) => c.toLowerCase() === letter && pieces[c].side === mover) || null;
}

/** Moves numbered as `retro play`'s score numbers them ("1. e1-d1 d2-d1 2. c3-c2", and
 *  "1. ... d2-d1" when the first move is the second side's): a move of the side that
 *  moves first opens a number, the answer to it shares it. ``movers``: the side (its
 *  name) of each move, from the game's first; for each, {number, first}. */
export function numbering(board, movers) {
  const opener = board.sides[0].name;
  const closer = board.sides[board.sides.length - 1].name;  // its move ends a round
  let number = 1;
  return movers.map((side) => {
    const out = {number: number, first: side === opener};
    if (side === closer) number += 1;
    return out;
  });
}

/** "3." before a move of the side that moves first, "3. ..." before the other's. */
export function numberText(n) { return n.number + (n.first ? '.' : '. ...'); }

/** Moves as a score from any move on: "3. ... d1-e1 4. e2-e1 c1-d1" (``numbers`` from
 *  :func:`numbering`, one per move). */
export function score(moves, numbers) {
  return moves.map((move, i) => (i === 0 || numbers[i].first ? numberText(numbers[i]) + ' ' : '') + move).join(' ');
}
