// The board every tab draws on: pits and stores with their seeds, sowing animated seed by
// seed, the evaluation bar, and the words for a move and for the tables' answer.

import { $, el, sleep, sideName, pitOf, letterOf, pct, plural } from './ui.js';

// ms per seed sown; 0: no animation (`?anim=0`).
let anim = 140;

export function setAnimation(ms) { anim = ms; }

// Seed positions in a pit: a sunflower spiral, the same for every pit.
function seedSpot(i, n, store) {
  if (store) {
    const cols = 3;
    const row = Math.floor(i / cols), col = i % cols;
    const rows = Math.max(1, Math.ceil(n / cols));
    return [22 + col * 28 + (row % 2) * 6, 8 + (row + 0.5) * (78 / Math.max(rows, 9))];
  }
  const a = i * 2.39996;
  const r = 44 * Math.sqrt((i + 0.5) / Math.max(n, 7));
  return [50 + r * Math.cos(a), 50 + r * Math.sin(a)];
}

function drawSeeds(container, n, store, pitIndex) {
  const shown = Math.min(n, store ? 48 : 30);
  if (container.childElementCount === shown && container.dataset.n === String(n)) return;
  container.replaceChildren();
  container.dataset.n = String(n);
  for (let i = 0; i < shown; i++) {
    const d = document.createElement('i');
    d.className = 'seed s' + ((i * 7 + pitIndex * 3) % 4);
    const [x, y] = seedSpot(i, shown, store);
    d.style.left = x + '%';
    d.style.top = y + '%';
    container.appendChild(d);
  }
}

// The board's pits are made once; `drawBoard` only changes their contents. `onPit` gets
// a pit's letter on a click, `onRightPit` on a right click (then the menu stays shut).
const pitEls = [];
export function buildBoard(onPit, onRightPit) {
  for (let p = 0; p < 12; p++) {
    const b = document.createElement('button');
    b.className = 'pit';
    b.type = 'button';
    b.dataset.pit = String(p);
    b.dataset.letter = letterOf(p);
    b.innerHTML = '<span class="letter"></span><div class="seeds"></div><span class="count"></span>';
    b.querySelector('.letter').textContent = letterOf(p);
    b.addEventListener('click', () => onPit(letterOf(p)));
    b.addEventListener('contextmenu', (e) => { if (onRightPit(letterOf(p))) e.preventDefault(); });
    pitEls.push(b);
  }
}

// Draws `pos` ({pits, stores}) with `bottom` ('S' or 'N') nearest the player,
// `legal` pits clickable and `marks` ({letter: [class, tag text]}) highlighted.
export function drawBoard(pos, opts) {
  const o = Object.assign({ bottom: 'S', legal: '', marks: {}, fen: '', shapes: [] }, opts);
  const board = $('#board');
  board.dataset.fen = o.fen;
  board.dataset.bottom = o.bottom;
  const low = o.bottom === 'S' ? 0 : 6;
  const high = 6 - low;
  const rowTop = $('#row-top'), rowBottom = $('#row-bottom');
  for (let k = 0; k < 6; k++) {
    // Sowing runs counter-clockwise: the bottom row left to right, the top row back.
    const b = pitEls[low + k], t = pitEls[high + 5 - k];
    b.className = 'pit bottom';
    t.className = 'pit top';
    b.style.gridColumn = String(2 + k);
    b.style.gridRow = '2';
    t.style.gridColumn = String(2 + k);
    t.style.gridRow = '1';
    if (b.parentElement !== rowBottom) rowBottom.appendChild(b);
    if (t.parentElement !== rowTop) rowTop.appendChild(t);
  }
  for (let p = 0; p < 12; p++) {
    const e = pitEls[p];
    const n = pos.pits[p];
    drawSeeds(e.querySelector('.seeds'), n, false, p);
    e.querySelector('.count').textContent = String(n);
    const letter = letterOf(p);
    const legal = o.legal.includes(letter);
    e.classList.toggle('legal', legal);
    e.tabIndex = legal ? 0 : -1;
    e.setAttribute('aria-label', `pit ${letter}: ${n} seeds${legal ? ', playable' : ''}`);
    e.querySelector('.tag')?.remove();
    const m = o.marks[letter];
    if (m) {
      for (const c of m[0].split(' ')) e.classList.add(c);
      if (m[1]) {
        const tag = el('span', 'tag ' + m[0].split(' ').pop(), m[1]);
        e.appendChild(tag);
      }
    }
  }
  const top = o.bottom === 'S' ? 1 : 0;   // the opponent's store is on the left
  for (const [id, s] of [['#store-top', top], ['#store-bottom', 1 - top]]) {
    const e = $(id);
    drawSeeds(e.querySelector('.seeds'), pos.stores[s], true, s);
    e.querySelector('.count').textContent = String(pos.stores[s]);
    e.querySelector('.store-label').textContent = s === 0 ? 'South' : 'North';
  }
  drawShapes(o.shapes);
}

// Arrows ({from, to}: pit letters) and circles ({from, to: null}) over the board, in
// the board's own pixels (drawn again when its size changes).
function drawShapes(shapes) {
  const svg = $('#shapes');
  svg.replaceChildren();
  svg.dataset.n = String(shapes.length);
  if (!shapes.length) return;
  const box = $('#board').getBoundingClientRect();
  svg.setAttribute('viewBox', `0 0 ${box.width} ${box.height}`);
  const ns = 'http://www.w3.org/2000/svg';
  const mk = (tag, attrs, parent) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    (parent || svg).appendChild(e);
    return e;
  };
  const spot = (letter) => {
    const r = pitEls[pitOf(letter)].getBoundingClientRect();
    return { x: r.left + r.width / 2 - box.left, y: r.top + r.height / 2 - box.top, r: r.width / 2 };
  };
  const head = mk('marker', { id: 'arrow-head', viewBox: '0 0 10 10', refX: '5', refY: '5', markerWidth: '3', markerHeight: '3', orient: 'auto-start-reverse' }, mk('defs', {}));
  mk('path', { d: 'M0 0 L10 5 L0 10 z', class: 'arrow-head' }, head);
  for (const s of shapes) {
    const a = spot(s.from);
    if (!s.to) {
      mk('circle', { cx: a.x, cy: a.y, r: a.r * 0.92, class: 'ring', 'data-pit': s.from, 'stroke-width': a.r * 0.16 });
      continue;
    }
    const b = spot(s.to);
    // From the first pit's edge to short of the second's centre, where the head ends.
    const d = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const ux = (b.x - a.x) / d, uy = (b.y - a.y) / d;
    const w = a.r * 0.22;
    mk('line', {
      x1: a.x + ux * a.r * 0.5, y1: a.y + uy * a.r * 0.5, x2: b.x - ux * w * 1.5, y2: b.y - uy * w * 1.5,
      class: 'arrow', 'data-from': s.from, 'data-to': s.to, 'stroke-width': w, 'marker-end': 'url(#arrow-head)',
    });
  }
}

// Sows `letter` seed by seed from `before` ({pits, stores}), then shows `after` (the
// server's position after the move, captures done) with the captured pits marked.
export async function animateMove(before, letter, after, ply, view) {
  const start = pitOf(letter);
  const cur = { pits: before.pits.slice(), stores: before.stores.slice() };
  if (anim > 0) {
    let n = cur.pits[start];
    cur.pits[start] = 0;
    const delay = n > 12 ? anim * 0.55 : anim;
    let p = start;
    drawBoard(cur, Object.assign({}, view, { marks: { [letter]: ['sowing', ''] } }));
    await sleep(delay);
    while (n > 0) {
      p = (p + 1) % 12;
      if (p === start) continue; // a lap skips the pit sown from
      cur.pits[p]++;
      n--;
      drawBoard(cur, Object.assign({}, view, { marks: { [letterOf(p)]: ['sowing', ''] } }));
      await sleep(delay);
    }
    if (ply && ply.captured > 0) {
      const marks = {};
      for (const c of ply.captured_pits) marks[c] = ['captured', ''];
      drawBoard(cur, Object.assign({}, view, { marks }));
      await sleep(anim * 4);
    }
  }
  drawBoard(after, view);
}

// Shows South's expected score `v` (South's view, [−1, 1]) on the bar, or hides it.
export function drawEvalBar(v, text) {
  const bar = $('#evalbar');
  if (v === null) { bar.classList.add('hidden'); return; }
  bar.classList.remove('hidden');
  bar.querySelector('.fill').style.width = pct(v) + '%';
  bar.dataset.south = String(pct(v));
  $('#eval-label').textContent = text || `South ${pct(v)}% · North ${100 - pct(v)}%`;
}

// The final store difference a margin of future captures gives the mover.
export function finalWords(margin, pos) {
  const me = pos.to_move === 'S' ? 0 : 1;
  const d = pos.stores[me] - pos.stores[1 - me] + margin;
  return d > 0 ? `win by ${d}` : d < 0 ? `loss by ${-d}` : 'draw';
}

// A proven outcome whose margin is not proven: the outcome, and the final difference the
// bounds allow when there are any ("win (by 1 to 3; the margin is not proven)").
function rangeWords(outcome, bounds, pos) {
  if (!bounds) return `${outcome} (the margin is not proven)`;
  const me = pos.to_move === 'S' ? 0 : 1;
  const [lo, hi] = bounds.map((b) => Math.abs(pos.stores[me] - pos.stores[1 - me] + b)).sort((a, b) => a - b);
  const by = lo === hi ? `by ${lo}` : `by ${lo} to ${hi}`;
  return outcome === 'draw' ? 'draw' : `${outcome} (${by}; the margin is not proven)`;
}

// The tables' answer (`tb`, the `tablebase` field of /bestmove) in words, or null.
export function tablesWords(tb, pos) {
  if (!tb) return null;
  if (!tb.outcome) return { head: `Endgame tables: ${tb.summary}`, moves: [] };
  // Where the outcome is proven but not the margin, the words say so: an unknown margin
  // is never taken as 0.
  const result = tb.margin !== null && tb.margin !== undefined ? finalWords(tb.margin, pos)
    : rangeWords(tb.outcome, tb.bounds, pos);
  const head = `Endgame tables: ${sideName(pos.to_move)} to move, ${result} with best play` +
    (tb.proven_by === 'search' ? ' (proven by a search that carries the game\'s history)' : '') + '.';
  // Each move's result where proven (given the history it adds), best first.
  const moves = Object.entries(tb.moves)
    .map(([m, v]) => [m, v === null ? 'not proven' : finalWords(v, pos), v === null ? -999 : v])
    .sort((a, b) => b[2] - a[2]);
  return { head, moves };
}

export function describePly(ply, mover) {
  if (!ply) return '';
  let t = `${mover} ${mover === 'You' ? 'play' : 'plays'} ${ply.move}`;
  if (ply.captured > 0) {
    const pits = ply.captured_pits.split('').join(', ');
    t += ` and ${mover === 'You' ? 'capture' : 'captures'} ${plural(ply.captured, 'seed')} (from ${pits})`;
  } else if (ply.grand_slam_refused) {
    t += ': a grand slam, so nothing is captured';
  }
  if (ply.moves_again) t += '; the opponent cannot move, so the same player moves again';
  return t + '.';
}
