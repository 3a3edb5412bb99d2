/* retro's page: the chess figures, drawn in SVG (no font needed), for the pieces whose
 * shape /api/v1/info names king, queen, rook, bishop, knight or pawn. Each figure is
 * drawn on a 45 by 45 grid: its outline (``body``, filled in its side's colour) and the
 * lines inside it (``detail``, in the other colour), the light figure for the side that
 * moves first (White), the dark one for the other. */

const SVG = 'http://www.w3.org/2000/svg';

// A plinth under a figure, from x = a to x = b.
const plinth = (a, b) => 'M' + a + ',39 H' + b + ' V36.5 Q' + b + ',34 ' + (b - 2.5) + ',34 H' + (a + 2.5) +
  ' Q' + a + ',34 ' + a + ',36.5 Z';

/** Each shape: its parts, [element, attributes, 'body' | 'detail' | 'eye']. */
export const FIGURES = {
  king: [
    ['path', {d: 'M22.5,13.5 V5 M18.5,8.5 H26.5'}, 'line'],
    ['path', {d: 'M12,34 C8,27 6,20.5 11.5,17 C16,14.5 20.5,17.5 22.5,22 C24.5,17.5 29,14.5 33.5,17 ' +
      'C39,20.5 37,27 33,34 Z'}, 'body'],
    ['path', {d: 'M22.5,23 C19.5,19.5 19.5,15.5 22.5,13.5 C25.5,15.5 25.5,19.5 22.5,23 Z'}, 'body'],
    ['path', {d: plinth(10, 35)}, 'body'],
    ['path', {d: 'M13,30.5 C19,28.5 26,28.5 32,30.5 M22.5,23 V28.8'}, 'detail'],
  ],
  queen: [
    ['path', {d: 'M12,34 L8.5,15 L15.5,27 L16,12.5 L20.5,26 L22.5,10.5 L24.5,26 L29,12.5 L29.5,27 ' +
      'L36.5,15 L33,34 Z'}, 'body'],
    ['circle', {cx: 8.5, cy: 13.5, r: 2.4}, 'body'],
    ['circle', {cx: 16, cy: 10.8, r: 2.4}, 'body'],
    ['circle', {cx: 22.5, cy: 9, r: 2.4}, 'body'],
    ['circle', {cx: 29, cy: 10.8, r: 2.4}, 'body'],
    ['circle', {cx: 36.5, cy: 13.5, r: 2.4}, 'body'],
    ['path', {d: plinth(10, 35)}, 'body'],
    ['path', {d: 'M12.8,30.5 C19,28.8 26,28.8 32.2,30.5'}, 'detail'],
  ],
  rook: [
    ['path', {d: 'M14.5,31 L16,17 H29 L30.5,31 Z'}, 'body'],
    ['path', {d: 'M12,17 V9 H16.8 V12 H20.2 V9 H24.8 V12 H28.2 V9 H33 V17 Z'}, 'body'],
    ['path', {d: 'M12,34 V31 H33 V34 Z'}, 'body'],
    ['path', {d: plinth(9.5, 35.5)}, 'body'],
    ['path', {d: 'M16,17 H29 M14.8,28.5 H30.2'}, 'detail'],
  ],
  bishop: [
    ['circle', {cx: 22.5, cy: 8.3, r: 2.7}, 'body'],
    ['path', {d: 'M17,30 C13,25 14.5,17.5 22.5,11 C30.5,17.5 32,25 28,30 Z'}, 'body'],
    ['path', {d: 'M15.5,34 L17,29.5 H28 L29.5,34 Z'}, 'body'],
    ['path', {d: plinth(10.5, 34.5)}, 'body'],
    ['path', {d: 'M25.8,16.6 L20.6,23.4 M17.4,27.4 C20.8,26.6 24.2,26.6 27.6,27.4'}, 'detail'],
  ],
  knight: [
    ['path', {d: 'M14.5,34 C15,29 18,26.5 21.5,24 C20,23.2 17.5,23.8 15.5,25.3 C13,27.2 10.5,27.5 9.2,25.8 ' +
      'C7.8,24 8.6,22 10.5,19.6 C12.8,16.6 14.5,13.5 17.8,11.3 L17.2,6.5 L20.8,9.6 L22.6,6.8 L24.2,10.3 ' +
      'C31,12 35.2,18.5 34.5,26 C34.1,29.5 33.2,32 32.5,34 Z'}, 'body'],
    ['path', {d: plinth(11, 35)}, 'body'],
    ['circle', {cx: 17.4, cy: 15.6, r: 1.35}, 'eye'],
    ['path', {d: 'M10.6,23.4 L12.1,22.6 M24.8,13.4 C28.8,16.5 30.6,21 30.4,26.5'}, 'detail'],
  ],
  pawn: [
    ['path', {d: 'M15,34 C15.8,29.5 18.5,26.5 20,24 H25 C26.5,26.5 29.2,29.5 30,34 Z'}, 'body'],
    ['path', {d: 'M17.2,24.6 H27.8 Q29,22.8 27.8,21 H17.2 Q16,22.8 17.2,24.6 Z'}, 'body'],
    ['circle', {cx: 22.5, cy: 15.6, r: 5.6}, 'body'],
    ['path', {d: plinth(12, 33)}, 'body'],
  ],
};

/** Whether every piece of a geometry is a chess figure (then the board is a chessboard). */
export function allFigures(pieces) {
  const kinds = Object.values(pieces || {});
  return kinds.length > 0 && kinds.every((p) => FIGURES[p.shape]);
}

/** Draw the figure ``shape`` of side ``side`` (0 light, 1 dark) into ``parent``, ``size``
 *  wide with its top left corner at (x, y) of the parent's coordinates. */
export function drawFigure(parent, shape, side, x, y, size) {
  const g = document.createElementNS(SVG, 'g');
  g.setAttribute('class', 'figure side-' + side);
  g.setAttribute('transform', 'translate(' + x + ' ' + y + ') scale(' + size / 45 + ')');
  FIGURES[shape].forEach(([name, attrs, part]) => {
    const node = document.createElementNS(SVG, name);
    for (const key in attrs) node.setAttribute(key, attrs[key]);
    node.setAttribute('class', part);
    g.appendChild(node);
  });
  parent.appendChild(g);
  return g;
}

/** A figure on its own, for a button (the editor's palette, the promotion's choice):
 *  an <svg> ``px`` pixels wide, its name for screen readers left to the button. */
export function figureIcon(shape, side, px) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 45 45');
  svg.setAttribute('width', String(px));
  svg.setAttribute('height', String(px));
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  drawFigure(svg, shape, side, 0, 0, 45);
  return svg;
}
