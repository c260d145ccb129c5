// oware-zero's web app: play the network, review a game, solve puzzles.
// Plain JavaScript, no dependencies; every rule is the server's (POST /api/v1/position),
// the page only draws and animates what the server says.
'use strict';

const START = '4-4-4-4-4-4-4-4-4-4-4-4-0-0-S';
const $ = (sel) => document.querySelector(sel);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const S = {
  tab: 'play',
  start: START,
  moves: '',
  level: 'amateur',
  human: 'S',
  pos: null,          // the last /position answer of the game played
  anim: 140,          // ms per seed sown; 0: no animation
  busy: 0,
  hint: null,         // {move, value}
  review: null,       // the /analyze answer for S.reviewed
  reviewed: null,     // the game record the review is of
  ply: 0,             // analysis: the move looked at (1-based; 0: none)
  puzzles: [],
  pz: -1,
  pzPos: null,
  tries: 0,
  pzDone: false,
  score: { solved: 0, tried: 0 },
};

// ---------- talking to the server ----------

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  };
  const r = await fetch('/api/v1/' + path, opts);
  let j;
  try { j = await r.json(); } catch (e) { j = { error: 'the server answered ' + r.status }; }
  if (!r.ok) throw new Error(j.error || ('HTTP ' + r.status));
  return j;
}

const gameBody = (moves) => ({ fen: S.start, moves: moves === undefined ? S.moves : moves });

// ---------- small helpers ----------

const sideName = (s) => (s === 'S' ? 'South' : 'North');
const sideOf = (letter) => (letter === letter.toUpperCase() ? 'S' : 'N');
// Absolute pit index (0..11) of a move letter.
const pitOf = (letter) => (sideOf(letter) === 'S' ? letter.charCodeAt(0) - 65 : 6 + letter.charCodeAt(0) - 97);
const letterOf = (pit) => String.fromCharCode(pit < 6 ? 65 + pit : 97 + pit - 6);
const fmtValue = (v) => (v >= 0 ? '+' : '−') + Math.abs(v).toFixed(2);

function parseFen(fen) {
  const f = fen.split('-');
  return { pits: f.slice(0, 12).map(Number), stores: [Number(f[12]), Number(f[13])], side: f[14] };
}

function say(text, cls) {
  const el = $('#status');
  el.textContent = text;
  el.className = 'status' + (cls ? ' ' + cls : '');
}

function setBusy(delta) {
  S.busy = Math.max(0, S.busy + delta);
  document.body.dataset.busy = S.busy > 0 ? '1' : '0';
  for (const id of ['#new-game', '#undo', '#hint', '#analyze', '#load']) $(id).disabled = S.busy > 0;
}

// Runs an action with the page marked busy; errors go to the status line.
async function guarded(fn) {
  setBusy(+1);
  try {
    await fn();
  } catch (e) {
    say(e.message, 'error');
  } finally {
    setBusy(-1);
  }
}

// ---------- drawing the board ----------

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

// The board's pits are made once; `drawBoard` only changes their contents.
const pitEls = [];
function buildBoard() {
  for (let p = 0; p < 12; p++) {
    const b = document.createElement('button');
    b.className = 'pit';
    b.type = 'button';
    b.dataset.pit = String(p);
    b.dataset.letter = letterOf(p);
    b.innerHTML = '<span class="letter"></span><div class="seeds"></div><span class="count"></span>';
    b.querySelector('.letter').textContent = letterOf(p);
    b.addEventListener('click', () => onPit(letterOf(p)));
    pitEls.push(b);
  }
}

// Draws `pos` ({pits, stores}) with `bottom` ('S' or 'N') nearest the player,
// `legal` pits clickable and `marks` ({letter: [class, tag text]}) highlighted.
function drawBoard(pos, opts) {
  const o = Object.assign({ bottom: 'S', legal: '', marks: {}, fen: '' }, opts);
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
    const el = pitEls[p];
    const n = pos.pits[p];
    drawSeeds(el.querySelector('.seeds'), n, false, p);
    el.querySelector('.count').textContent = String(n);
    const letter = letterOf(p);
    const legal = o.legal.includes(letter);
    el.classList.toggle('legal', legal);
    el.tabIndex = legal ? 0 : -1;
    el.setAttribute('aria-label', `pit ${letter}: ${n} seeds${legal ? ', playable' : ''}`);
    el.querySelector('.tag')?.remove();
    const m = o.marks[letter];
    if (m) {
      for (const c of m[0].split(' ')) el.classList.add(c);
      if (m[1]) {
        const tag = document.createElement('span');
        tag.className = 'tag ' + m[0].split(' ').pop();
        tag.textContent = m[1];
        el.appendChild(tag);
      }
    }
  }
  const top = o.bottom === 'S' ? 1 : 0;   // the opponent's store is on the left
  for (const [id, s] of [['#store-top', top], ['#store-bottom', 1 - top]]) {
    const el = $(id);
    drawSeeds(el.querySelector('.seeds'), pos.stores[s], true, s);
    el.querySelector('.count').textContent = String(pos.stores[s]);
    el.querySelector('.store-label').textContent = s === 0 ? 'South' : 'North';
  }
}

// Sows `letter` seed by seed from `before` ({pits, stores}), then shows `after` (the
// server's position after the move, captures done) with the captured pits marked.
async function animateMove(before, letter, after, ply, view) {
  const start = pitOf(letter);
  const cur = { pits: before.pits.slice(), stores: before.stores.slice() };
  if (S.anim > 0) {
    let n = cur.pits[start];
    cur.pits[start] = 0;
    const delay = n > 12 ? S.anim * 0.55 : S.anim;
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
      await sleep(S.anim * 4);
    }
  }
  drawBoard(after, view);
}

// ---------- words ----------

function describePly(ply, mover) {
  if (!ply) return '';
  let t = `${mover} ${mover === 'You' ? 'play' : 'plays'} ${ply.move}`;
  if (ply.captured > 0) {
    const pits = ply.captured_pits.split('').join(', ');
    t += ` and ${mover === 'You' ? 'capture' : 'captures'} ${ply.captured} seed${ply.captured > 1 ? 's' : ''} (from ${pits})`;
  } else if (ply.grand_slam_refused) {
    t += ': a grand slam, so nothing is captured';
  }
  if (ply.moves_again) t += '; the opponent cannot move, so the same player moves again';
  return t + '.';
}

function resultWords(result, human) {
  let head = result.winner === 'draw' ? 'A draw.' : (result.winner === human ? 'You win!' : 'oware wins.');
  return `${head} ${result.text}`;
}

// ---------- play ----------

function moverName(side) { return side === S.human ? 'You' : 'oware'; }

function drawGame(marks) {
  const p = S.pos;
  const yourTurn = !p.result && p.to_move === S.human && S.tab === 'play';
  const m = Object.assign({}, marks || {});
  const last = p.plies[p.plies.length - 1];
  if (last && !m[last.move]) m[last.move] = ['last', ''];
  if (S.hint && yourTurn) m[S.hint.move] = ['hint', 'hint'];
  drawBoard(p, { bottom: S.human, legal: yourTurn ? p.legal : '', marks: m, fen: p.fen });
  drawMoveList();
  $('#banner').textContent = p.result ? 'game over' : (p.to_move === S.human ? 'your move' : 'oware to move');
}

function drawMoveList() {
  const ol = $('#move-list');
  ol.replaceChildren();
  const plies = S.pos.plies;
  plies.forEach((ply, i) => {
    const li = document.createElement('li');
    const n = document.createElement('span');
    n.className = 'n';
    n.textContent = (i + 1) + '. ';
    const mv = document.createElement('span');
    mv.textContent = ply.move + (ply.captured ? '×' + ply.captured : '');
    if (ply.captured) mv.className = 'cap';
    li.append(n, mv);
    if (i === plies.length - 1) li.classList.add('cur');
    ol.appendChild(li);
  });
  ol.scrollTop = ol.scrollHeight;
}

function updateUrl() {
  const q = new URLSearchParams();
  if (S.start !== START) q.set('start', S.start);
  if (S.moves) q.set('moves', S.moves);
  q.set('level', S.level);
  q.set('side', S.human);
  if (S.tab !== 'play') q.set('tab', S.tab);
  const anim = new URLSearchParams(location.search).get('anim');
  if (anim !== null) q.set('anim', anim);
  history.replaceState(null, '', '?' + q.toString());
  $('#record').value = (S.start !== START ? S.start + ';' : '') + S.moves;
}

function announce() {
  const p = S.pos;
  if (p.result) {
    say(resultWords(p.result, S.human), 'over');
  }
}

// Plays `letter` in the game: asks the server for the new position, animates it.
async function playMove(letter) {
  const before = S.pos;
  const after = await api('position', gameBody(S.moves + letter));
  const mover = moverName(before.to_move);
  S.moves += letter;
  S.hint = null;
  const ply = after.plies[after.plies.length - 1];
  await animateMove(before, letter, after, ply, { bottom: S.human, fen: after.fen });
  S.pos = after;
  drawGame();
  updateUrl();
  say(describePly(ply, mover));
}

// Lets the computer move while it is its turn.
async function computerMoves() {
  while (!S.pos.result && S.pos.to_move !== S.human) {
    const prev = $('#status').textContent;
    say((prev ? prev + ' ' : '') + 'oware is thinking…');
    const b = await api('bestmove', Object.assign(gameBody(), { level: S.level }));
    await playMove(b.move);
  }
  announce();
}

async function onPit(letter) {
  if (S.tab === 'puzzles') return onPuzzlePit(letter);
  if (S.tab !== 'play' || S.busy > 0 || !S.pos) return;
  const p = S.pos;
  if (p.result || p.to_move !== S.human || !p.legal.includes(letter)) return;
  await guarded(async () => {
    await playMove(letter);
    await computerMoves();
  });
}

async function loadGame(start, moves) {
  const pos = await api('position', { fen: start, moves });
  S.start = pos.start;
  S.moves = pos.moves;
  S.pos = pos;
  S.hint = null;
  drawGame();
  updateUrl();
  say(pos.plies.length ? describePly(pos.plies[pos.plies.length - 1], moverName(pos.plies[pos.plies.length - 1].side)) : 'A new game. ' + (S.human === 'S' ? 'You move first: click one of your pits.' : 'oware moves first.'));
  announce();
}

async function newGame() {
  await guarded(async () => {
    await loadGame(S.start === START ? START : S.start, '');
    await computerMoves();
  });
}

async function undo() {
  await guarded(async () => {
    const plies = S.pos.plies;
    let k = -1;
    for (let i = plies.length - 1; i >= 0; i--) if (plies[i].side === S.human) { k = i; break; }
    if (k < 0) { say('Nothing to take back: you have not moved yet.'); return; }
    const taken = plies.length - k;
    await loadGame(S.start, S.moves.slice(0, k));
    say(`Took back ${taken} move${taken > 1 ? 's' : ''}. Your move.`);
  });
}

async function hint() {
  if (S.pos.result || S.pos.to_move !== S.human) return;
  await guarded(async () => {
    say('Thinking about your move…');
    const b = await api('bestmove', Object.assign(gameBody(), { level: 'strong' }));
    S.hint = { move: b.move, value: b.value };
    drawGame();
    say(`Hint: ${b.move} (your value ${fmtValue(b.value)}; the line ${b.pv}).`);
  });
}

function saveRecord() {
  const text = (S.start !== START ? S.start + ';' : '') + S.moves + '\n';
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  a.download = 'oware-game.txt';
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

async function loadRecord(text) {
  const line = text.split('\n').map((l) => l.replace(/#.*/, '').trim()).find((l) => l) || '';
  let start = START, moves = line;
  if (line.includes(';')) [start, moves] = line.split(';').map((s) => s.trim());
  await guarded(async () => {
    await loadGame(start || START, moves);
    await computerMoves();
  });
}

// ---------- analysis ----------

function fenBefore(i) { return i === 0 ? S.start : S.pos.plies[i - 1].fen; }

async function analyze() {
  await guarded(async () => {
    if (!S.moves) { $('#analysis-status').textContent = 'Play some moves first: there is nothing to review.'; return; }
    $('#analysis-status').textContent = `Reviewing ${S.moves.length} moves…`;
    const rv = await api('analyze', gameBody());
    S.review = rv;
    S.reviewed = S.start + ';' + S.moves;
    $('#analysis-status').textContent = `${rv.plies.length} moves reviewed, ${rv.simulations} simulations a move, alpha-beta proofs ${rv.exact_depth} plies deep.`;
    drawReview();
    let worst = 1;
    rv.plies.forEach((p, i) => { if (p.loss > rv.plies[worst - 1].loss) worst = i + 1; });
    showPly(worst);
  });
}

function southValue(p) { return p.side === 'S' ? p.value_before : -p.value_before; }

function drawReview() {
  const rv = S.review;
  const svg = $('#graph');
  const n = rv.plies.length;
  const W = 600, H = 180, pad = 8;
  const x = (i) => (n <= 1 ? W / 2 : pad + (W - 2 * pad) * i / n);
  const y = (v) => H / 2 - (H / 2 - pad) * v;
  const vals = rv.plies.map(southValue);
  // The last point: the result if the game ended, else the value after the last move.
  const lastPly = rv.plies[n - 1];
  const winner = rv.result ? rv.result.winner : null;
  vals.push(winner === 'S' ? 1 : winner === 'N' ? -1 : winner === 'draw' ? 0
    : (lastPly.side === 'S' ? lastPly.value_after : -lastPly.value_after));
  const pts = vals.map((v, i) => [x(i), y(v)]);
  const line = pts.map((p, i) => (i ? 'L' : 'M') + p[0].toFixed(1) + ' ' + p[1].toFixed(1)).join(' ');
  const ns = 'http://www.w3.org/2000/svg';
  svg.replaceChildren();
  const mk = (tag, attrs, parent) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    (parent || svg).appendChild(e);
    return e;
  };
  const defs = mk('defs', {});
  mk('rect', { x: 0, y: 0, width: W, height: H / 2 }, mk('clipPath', { id: 'above' }, defs));
  mk('rect', { x: 0, y: H / 2, width: W, height: H / 2 }, mk('clipPath', { id: 'below' }, defs));
  const area = `M${x(0)} ${y(0)} ` + pts.map((p) => 'L' + p[0].toFixed(1) + ' ' + p[1].toFixed(1)).join(' ') + ` L${x(n)} ${y(0)} Z`;
  mk('path', { d: area, class: 'south', 'clip-path': 'url(#above)' });
  mk('path', { d: area, class: 'north', 'clip-path': 'url(#below)' });
  mk('line', { x1: 0, x2: W, y1: y(0), y2: y(0), class: 'zero' });
  mk('path', { d: line, class: 'line' });
  rv.plies.forEach((p, i) => {
    if (p.grade === 'blunder' || p.grade === 'mistake') {
      mk('circle', { cx: x(i + 1), cy: y(vals[i + 1]), r: 4, class: 'dot-' + p.grade });
    }
  });
  mk('line', { x1: 0, x2: 0, y1: 0, y2: H, class: 'cursor', id: 'graph-cursor' });

  const tb = $('#analysis-table tbody');
  tb.replaceChildren();
  rv.plies.forEach((p, i) => {
    const tr = document.createElement('tr');
    tr.dataset.ply = String(i + 1);
    const better = p.grade === 'best' || p.best === p.move ? '' : p.best;
    for (const [text, cls] of [[String(p.ply), ''], [p.move, ''], [p.grade, 'grade g-' + p.grade], [better, ''], [p.loss.toFixed(2), '']]) {
      const td = document.createElement('td');
      if (cls) {
        const s = document.createElement('span');
        s.className = cls;
        s.textContent = text;
        td.appendChild(s);
      } else td.textContent = text;
      tr.appendChild(td);
    }
    tr.addEventListener('click', () => showPly(i + 1));
    tb.appendChild(tr);
  });

  const sum = $('#summary');
  sum.replaceChildren();
  for (const side of ['S', 'N']) {
    const mine = rv.plies.filter((p) => p.side === side);
    if (!mine.length) continue;
    const count = (g) => mine.filter((p) => p.grade === g).length;
    const d = document.createElement('div');
    const who = side === S.human ? `You (${sideName(side)})` : `oware (${sideName(side)})`;
    const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
    d.textContent = `${who}: ${count('best') + count('excellent')} best or excellent, ${count('good')} good, ` +
      `${n(count('inaccuracy'), 'inaccuracy', 'inaccuracies')}, ${n(count('mistake'), 'mistake', 'mistakes')}, ` +
      `${n(count('blunder'), 'blunder', 'blunders')}`;
    sum.appendChild(d);
  }
}

// Shows the position before move `i` (1-based) with the move played and the better one.
function showPly(i) {
  const rv = S.review;
  if (!rv || !rv.plies.length) return;
  i = Math.max(1, Math.min(rv.plies.length, i));
  S.ply = i;
  const p = rv.plies[i - 1];
  const pos = parseFen(fenBefore(i - 1));
  const marks = {};
  if (p.best === p.move) {
    marks[p.move] = ['played best', 'played · best'];
  } else {
    marks[p.move] = ['played', 'played'];
    marks[p.best] = ['best', 'better'];
  }
  drawBoard(pos, { bottom: S.human, legal: '', marks, fen: fenBefore(i - 1) });
  $('#banner').textContent = `before move ${i}: ${sideName(p.side)} to move`;
  const proof = p.proof_before ? ` Alpha-beta proves a ${p.proof_before} for ${sideName(p.side)} here.` : '';
  let t = `Move ${i}: ${moverName(p.side) === 'You' ? 'you' : 'oware'} played ${p.move}, ${p.grade}`;
  if (p.best !== p.move) t += `; better was ${p.best} (line ${p.pv})`;
  t += `. Value ${fmtValue(p.value_before)} before, ${fmtValue(p.value_after)} after` + (p.loss > 0 ? `, ${p.loss.toFixed(2)} lost.` : '.') + proof;
  say(t);
  for (const tr of document.querySelectorAll('#analysis-table tbody tr')) tr.classList.toggle('sel', tr.dataset.ply === String(i));
  // Scroll the table only (scrollIntoView would scroll the page too).
  const row = document.querySelector(`#analysis-table tbody tr[data-ply="${i}"]`);
  const wrap = document.querySelector('.table-wrap');
  if (row && (row.offsetTop < wrap.scrollTop + 30 || row.offsetTop > wrap.scrollTop + wrap.clientHeight - 30)) {
    wrap.scrollTop = row.offsetTop - wrap.clientHeight / 2;
  }
  const n = rv.plies.length;
  const cx = n <= 1 ? 300 : 8 + (600 - 16) * (i - 1) / n;
  const c = $('#graph-cursor');
  if (c) { c.setAttribute('x1', cx); c.setAttribute('x2', cx); }
}

function graphClick(ev) {
  if (!S.review) return;
  const r = $('#graph').getBoundingClientRect();
  const n = S.review.plies.length;
  const i = Math.round(((ev.clientX - r.left) / r.width * 600 - 8) / (584 / n)) + 1;
  showPly(i);
}

// ---------- puzzles ----------

async function nextPuzzle() {
  await guarded(async () => {
    S.pz++;
    if (S.pz >= S.puzzles.length) {
      S.puzzles = await api('puzzles?n=20');
      S.pz = 0;
    }
    if (!S.puzzles.length) {
      $('#puzzle-title').textContent = 'Finding puzzles in self-play games…';
      $('#puzzle-status').textContent = 'The server proves each one; the first take a few seconds.';
      setTimeout(() => { if (S.tab === 'puzzles' && !S.puzzles.length) { S.pz = -1; nextPuzzle(); } }, 2000);
      return;
    }
    const z = S.puzzles[S.pz];
    S.pzPos = await api('position', { fen: z.fen, moves: z.moves });
    S.tries = 0;
    S.pzDone = false;
    $('#puzzle-title').textContent = `${sideName(z.to_move)} to move and win (the win takes ${z.plies} plies).`;
    setPuzzleStatus('none', 'Find the one move that wins by force. Click a pit.');
    drawPuzzle({});
    say(z.plies <= 1 ? 'One move wins the game at once.' : 'Only one move forces the win; the others let it slip.');
  });
}

function drawPuzzle(marks) {
  const p = S.pzPos;
  const z = S.puzzles[S.pz];
  drawBoard(p, { bottom: z.to_move, legal: S.pzDone ? '' : p.legal, marks, fen: p.fen });
  $('#banner').textContent = `puzzle ${S.pz + 1} of ${S.puzzles.length}`;
}

function setPuzzleStatus(state, text) {
  const el = $('#puzzle-status');
  el.dataset.state = state;
  el.textContent = text;
  $('#puzzle-score').textContent = S.score.tried ? `Solved ${S.score.solved} of ${S.score.tried}.` : '';
}

async function onPuzzlePit(letter) {
  if (S.busy > 0 || S.pzDone || !S.pzPos || !S.pzPos.legal.includes(letter)) return;
  const z = S.puzzles[S.pz];
  S.tries++;
  if (letter === z.solution) {
    S.pzDone = true;
    S.score.tried++;
    S.score.solved++;
    const grade = S.tries === 1 ? 'first try: ★★★' : S.tries === 2 ? 'second try: ★★' : `try ${S.tries}: ★`;
    await guarded(async () => {
      const after = await api('position', { fen: z.fen, moves: z.moves + letter });
      await animateMove(S.pzPos, letter, after, after.plies[after.plies.length - 1], { bottom: z.to_move, fen: after.fen });
      drawBoard(after, { bottom: z.to_move, legal: '', marks: { [letter]: ['best', 'win'] }, fen: after.fen });
    });
    setPuzzleStatus('solved', `Solved, ${grade}. ${letter} wins; a winning line: ${z.line}.`);
    return;
  }
  const wrong = {};
  wrong[letter] = ['wrong', 'no'];
  if (S.tries >= 3) {
    S.pzDone = true;
    S.score.tried++;
    wrong[z.solution] = ['best', 'win'];
    drawPuzzle(wrong);
    setPuzzleStatus('missed', `${letter} does not force a win either. The winning move was ${z.solution} (line ${z.line}).`);
    return;
  }
  drawPuzzle(wrong);
  setPuzzleStatus('wrong', `${letter} does not force a win. Try again (${3 - S.tries} ${3 - S.tries === 1 ? 'try' : 'tries'} left).`);
}

function showSolution() {
  if (S.pz < 0 || S.pzDone) return;
  const z = S.puzzles[S.pz];
  S.pzDone = true;
  S.score.tried++;
  drawPuzzle({ [z.solution]: ['best', 'win'] });
  setPuzzleStatus('missed', `The winning move is ${z.solution} (line ${z.line}).`);
}

// ---------- tabs and start-up ----------

function showTab(tab) {
  S.tab = tab;
  for (const b of document.querySelectorAll('.tab')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const t of ['play', 'analysis', 'puzzles']) $('#pane-' + t).classList.toggle('hidden', t !== tab);
  updateUrl();
  if (tab === 'play') {
    drawGame();
    const last = S.pos.plies[S.pos.plies.length - 1];
    say(S.pos.result ? resultWords(S.pos.result, S.human) : last ? describePly(last, moverName(last.side)) : 'Your move.', S.pos.result ? 'over' : '');
  } else if (tab === 'analysis') {
    if (S.review && S.reviewed === S.start + ';' + S.moves) {
      showPly(S.ply || 1);
    } else {
      S.review = null;
      $('#analysis-table tbody').replaceChildren();
      $('#graph').replaceChildren();
      $('#summary').replaceChildren();
      $('#analysis-status').textContent = S.moves ? `The game has ${S.moves.length} moves. Review it to see each move graded.` : 'Play some moves first.';
      drawBoard(S.pos, { bottom: S.human, fen: S.pos.fen });
      $('#banner').textContent = 'analysis';
      say('');
    }
  } else if (tab === 'puzzles') {
    if (S.pz < 0 || !S.pzPos) nextPuzzle();
    else { drawPuzzle({}); say(''); }
  }
}

async function init() {
  buildBoard();
  const q = new URLSearchParams(location.search);
  if (q.has('anim')) S.anim = Math.max(0, Math.min(1000, Number(q.get('anim')) || 0));
  if (['novice', 'amateur', 'strong', 'master'].includes(q.get('level'))) S.level = q.get('level');
  if (q.get('side') === 'N') S.human = 'N';
  $('#level').value = S.level;
  $('#side').value = S.human;
  $('#level').addEventListener('change', (e) => { S.level = e.target.value; updateUrl(); });
  $('#side').addEventListener('change', (e) => { S.human = e.target.value; S.start = START; newGame(); });
  $('#new-game').addEventListener('click', () => newGame());
  $('#undo').addEventListener('click', () => undo());
  $('#hint').addEventListener('click', () => hint());
  $('#save').addEventListener('click', saveRecord);
  $('#load').addEventListener('click', () => loadRecord($('#record').value));
  $('#record-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    if (f) loadRecord(await f.text());
    e.target.value = '';
  });
  $('#analyze').addEventListener('click', () => analyze());
  $('#prev-ply').addEventListener('click', () => showPly(S.ply - 1));
  $('#next-ply').addEventListener('click', () => showPly(S.ply + 1));
  $('#graph').addEventListener('click', graphClick);
  $('#next-puzzle').addEventListener('click', () => nextPuzzle());
  $('#show-solution').addEventListener('click', showSolution);
  for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => showTab(b.dataset.tab));
  document.addEventListener('keydown', (e) => {
    if (S.tab !== 'analysis' || !S.review) return;
    if (e.key === 'ArrowLeft') showPly(S.ply - 1);
    if (e.key === 'ArrowRight') showPly(S.ply + 1);
  });
  try {
    const h = await api('health');
    $('#model').textContent = `${h.model} · ${h.rules} rules`;
  } catch (e) {
    say('The server does not answer: ' + e.message, 'error');
  }
  await guarded(async () => {
    await loadGame(q.get('start') || START, q.get('moves') || '');
    await computerMoves();
  });
  const tab = q.get('tab');
  if (tab === 'analysis' || tab === 'puzzles') showTab(tab);
  document.body.dataset.ready = '1';
}

document.addEventListener('DOMContentLoaded', init);
