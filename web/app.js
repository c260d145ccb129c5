// oware-zero's web app: play the network, study positions on an analysis board, review
// a game, solve puzzles. Plain JavaScript, no dependencies; every rule is the server's
// (POST /api/v1/position), the page only draws and animates what the server says.
'use strict';

const START = '4-4-4-4-4-4-4-4-4-4-4-4-0-0-S';
const RULES = ['abapa', 'awari', 'grand-slam-captures', 'ouril', 'traditional'];
const LEVELS = ['novice', 'amateur', 'strong', 'master'];
// What each level is, and how strong (README, "Play and study"; experiments/recorded/levels/).
const LEVEL_NOTES = {
  novice: 'novice: 8 simulations a move, moves drawn at random by their visits; about as strong as alpha-beta searching 3 plies (rated about +400 on the README\'s scale, where alpha-beta at depth 1 is 0).',
  amateur: 'amateur: 64 simulations, some randomness; stronger than alpha-beta at depth 10 (+14 =0 −6 against it; depth 10 is rated +1604).',
  strong: 'strong: 400 simulations, always the most visited move; rated about +2600 (alpha-beta at depth 16: +2162).',
  master: 'master: 1 600 simulations, always the most visited move; rated about +2700, and scores 58% against strong.',
};
const ENGINE_SIMS = 800;
const $ = (sel) => document.querySelector(sel);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const S = {
  tab: 'play',
  rules: 'abapa',
  start: START,
  moves: '',
  level: 'amateur',
  human: 'S',
  pos: null,          // the last /position answer of the game played
  anim: 140,          // ms per seed sown; 0: no animation
  busy: 0,
  hint: null,         // {move, value}
  redo: '',           // moves taken back by Undo, for Redo
  showEval: false,    // the evaluation bar while playing
  tables: false,      // the server has endgame tables
  evalToken: 0,       // the latest engine request; older answers are dropped
  navToken: 0,        // the latest move on the analysis board; older ones are dropped
  review: null,       // the /analyze answer for S.reviewed
  reviewed: null,     // the game (start;moves) the review is of
  A: null,            // the analysis board: a tree of moves (see newTree)
  engineOn: true,
  edit: null,         // the position editor: {pits, stores, side}
  trainer: null,      // the endgame trainer: {side, slipped}
  puzzles: [],
  pz: -1,
  pzPos: null,
  pzView: null,       // what the puzzle board shows now: {pos, marks, legal}
  pzDone: false,
  tries: 0,
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

const gameBody = (moves) => ({ fen: S.start, moves: moves === undefined ? S.moves : moves, rules: S.rules });

// ---------- small helpers ----------

const sideName = (s) => (s === 'S' ? 'South' : 'North');
const other = (s) => (s === 'S' ? 'N' : 'S');
const sideOf = (letter) => (letter === letter.toUpperCase() ? 'S' : 'N');
// Absolute pit index (0..11) of a move letter.
const pitOf = (letter) => (sideOf(letter) === 'S' ? letter.charCodeAt(0) - 65 : 6 + letter.charCodeAt(0) - 97);
const letterOf = (pit) => String.fromCharCode(pit < 6 ? 65 + pit : 97 + pit - 6);
// A value in [−1, 1] (P(win) − P(loss)) as an expected score in per cent.
const pct = (v) => Math.round(50 + 50 * Math.max(-1, Math.min(1, v)));
const plural = (n, one, many) => `${n} ${n === 1 ? one : (many || one + 's')}`;

function parseFen(fen) {
  const f = fen.split('-');
  return { pits: f.slice(0, 12).map(Number), stores: [Number(f[12]), Number(f[13])], side: f[14] };
}

function fenOf(p) { return p.pits.join('-') + '-' + p.stores[0] + '-' + p.stores[1] + '-' + p.side; }

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function say(text, cls) {
  const e = $('#status');
  e.textContent = text;
  e.className = 'status' + (cls ? ' ' + cls : '');
}

function setBusy(delta) {
  S.busy = Math.max(0, S.busy + delta);
  document.body.dataset.busy = S.busy > 0 ? '1' : '0';
  for (const id of ['#new-game', '#undo', '#redo', '#hint', '#analyze', '#load']) $(id).disabled = S.busy > 0;
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

// An inline question under the board; resolves to true for `yes`.
function ask(text, yes, no) {
  return new Promise((resolve) => {
    const box = $('#ask');
    $('#ask-text').textContent = text;
    $('#ask-yes').textContent = yes;
    $('#ask-no').textContent = no;
    box.classList.remove('hidden');
    const done = (v) => {
      box.classList.add('hidden');
      $('#ask-yes').onclick = null;
      $('#ask-no').onclick = null;
      resolve(v);
    };
    $('#ask-yes').onclick = () => done(true);
    $('#ask-no').onclick = () => done(false);
  });
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
    b.addEventListener('contextmenu', (e) => { if (S.edit) { e.preventDefault(); editPit(letterOf(p), -1); } });
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

// ---------- the evaluation bar and the engine's lines ----------

// Shows South's expected score `v` (South's view, [−1, 1]) on the bar, or hides it.
function drawEvalBar(v, text) {
  const bar = $('#evalbar');
  if (v === null) { bar.classList.add('hidden'); return; }
  bar.classList.remove('hidden');
  bar.querySelector('.fill').style.width = pct(v) + '%';
  bar.dataset.south = String(pct(v));
  $('#eval-label').textContent = text || `South ${pct(v)}% · North ${100 - pct(v)}%`;
}

// The final store difference a margin of future captures gives the mover.
function finalWords(margin, pos) {
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
function tablesWords(tb, pos) {
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

// Asks the engine about `pos` (a /position answer of `body`'s game) and calls `show`
// with its answer, unless a newer request was made meanwhile.
async function evaluate(body, pos, sims, show) {
  const token = ++S.evalToken;
  if (pos.result) { show(null); return; }
  try {
    const b = await api('bestmove', Object.assign({}, body, { sims }));
    if (token === S.evalToken) show(b);
  } catch (e) {
    if (token === S.evalToken) show({ error: e.message });
  }
}

// ---------- words ----------

function describePly(ply, mover) {
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

function resultWords(result, human) {
  const head = result.winner === 'draw' ? 'A draw.' : (result.winner === human ? 'You win!' : 'oware wins.');
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
  $('#redo').disabled = S.busy > 0 || !S.redo;
}

function drawMoveList() {
  const ol = $('#move-list');
  ol.replaceChildren();
  const plies = S.pos.plies;
  plies.forEach((ply, i) => {
    const li = el('li');
    const mv = el('span', ply.captured ? 'cap' : '', ply.move + (ply.captured ? '×' + ply.captured : ''));
    li.append(el('span', 'n', (i + 1) + '. '), mv);
    if (i === plies.length - 1) li.classList.add('cur');
    ol.appendChild(li);
  });
  ol.scrollTop = ol.scrollHeight;
}

// The evaluation bar while playing, when asked for: the engine on the game's position.
function playEval() {
  if (!S.showEval || S.tab !== 'play') return;
  const pos = S.pos;
  if (pos.result) {
    const w = pos.result.winner;
    drawEvalBar(w === 'S' ? 1 : w === 'N' ? -1 : 0, pos.result.text);
    return;
  }
  evaluate(gameBody(), pos, 400, (b) => {
    if (!b || b.error || S.tab !== 'play') return;
    const v = pos.to_move === 'S' ? b.value : -b.value;
    drawEvalBar(v);
  });
}

function recordText() {
  const p = S.pos;
  const me = S.human, them = other(S.human);
  const names = { [me]: 'You', [them]: `oware-zero (${S.level})` };
  const result = !p || !p.result ? 'unfinished' : `${p.result.winner} (${p.result.text})`;
  const head = [
    '# Event: oware-zero web app',
    `# Date: ${new Date().toISOString().slice(0, 10)}`,
    `# Rules: ${S.rules}`,
    `# South: ${names.S}`,
    `# North: ${names.N}`,
    `# Level: ${S.level}`,
    `# Result: ${result}`,
  ];
  return head.join('\n') + '\n' + (S.start !== START ? S.start + ';' : '') + S.moves + '\n';
}

function updateUrl() {
  const q = new URLSearchParams();
  if (S.start !== START) q.set('start', S.start);
  if (S.moves) q.set('moves', S.moves);
  if (S.rules !== 'abapa') q.set('rules', S.rules);
  q.set('level', S.level);
  q.set('side', S.human);
  if (S.tab !== 'play') q.set('tab', S.tab);
  const anim = new URLSearchParams(location.search).get('anim');
  if (anim !== null) q.set('anim', anim);
  history.replaceState(null, '', '?' + q.toString());
  $('#record').value = recordText();
}

// Plays `letter` in the game: asks the server for the new position, animates it.
// Returns what happened, in words.
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
  const words = describePly(ply, mover);
  say(words);
  return words;
}

// Lets the computer move while it is its turn. `said` is what the status line says of
// the player's own move: it stays, and the replies are added to it.
async function computerMoves(said) {
  let words = said || '';
  while (!S.pos.result && S.pos.to_move !== S.human) {
    say((words ? words + ' ' : '') + 'oware is thinking…');
    const b = await api('bestmove', Object.assign(gameBody(), { level: S.level }));
    const reply = await playMove(b.move);
    words = (words ? words + ' ' : '') + reply;
    say(words);
  }
  if (S.pos.result) say((words ? words + ' ' : '') + resultWords(S.pos.result, S.human), 'over');
  playEval();
}

async function onPit(letter) {
  if (S.edit) return editPit(letter, Number($('#edit-mode').value));
  if (S.tab === 'puzzles') return onPuzzlePit(letter);
  if (S.tab === 'analysis') return onAnalysisPit(letter);
  if (S.tab !== 'play' || S.busy > 0 || !S.pos) return;
  const p = S.pos;
  if (p.result || p.to_move !== S.human || !p.legal.includes(letter)) return;
  await guarded(async () => {
    S.redo = '';
    const words = await playMove(letter);
    await computerMoves(words);
  });
}

// Loads the game `moves` from `start` (the server checks it; a bad one throws and the
// game on the board stays). With `partial` (a shared link), a game that goes wrong part
// way keeps the moves before the bad one, and says so.
async function loadGame(start, moves, partial) {
  let pos, note = '';
  try {
    pos = await api('position', { fen: start, moves, rules: S.rules });
  } catch (e) {
    if (!partial) throw e;
    let keep = /^[A-Fa-f]*/.exec(moves)[0].length;
    const m = /after (\d+) move/.exec(e.message);
    if (m) keep = Math.min(keep, Number(m[1]));
    pos = await api('position', { fen: start, moves: moves.slice(0, keep), rules: S.rules })
      .catch(() => api('position', { fen: START, moves: '', rules: S.rules }));
    const n = pos.moves.length;
    note = `The link's game could not be loaded as given (${e.message}); ` +
      (n ? `its first ${plural(n, 'move')} are shown.` : 'a new game instead.') + ' ';
  }
  S.start = pos.start;
  S.moves = pos.moves;
  S.pos = pos;
  S.hint = null;
  drawGame();
  updateUrl();
  const last = pos.plies[pos.plies.length - 1];
  const words = last ? describePly(last, moverName(last.side))
    : 'A new game. ' + (S.human === 'S' ? 'You move first: click one of your pits.' : 'oware moves first.');
  say(note + words, note ? 'error' : '');
  return note + words;
}

async function newGame() {
  await guarded(async () => {
    S.redo = '';
    const words = await loadGame(S.start === START ? START : S.start, '');
    await computerMoves(words);
  });
}

async function undo() {
  await guarded(async () => {
    const plies = S.pos.plies;
    let k = -1;
    for (let i = plies.length - 1; i >= 0; i--) if (plies[i].side === S.human) { k = i; break; }
    if (k < 0) { say('Nothing to take back: you have not moved yet.'); return; }
    const taken = plies.length - k;
    S.redo = S.moves.slice(k) + S.redo;
    await loadGame(S.start, S.moves.slice(0, k));
    say(`Took back ${plural(taken, 'move')}. Your move (Redo plays ${taken > 1 ? 'them' : 'it'} again).`);
    playEval();
  });
}

// Plays again what Undo took back: your move and the replies after it.
async function redo() {
  if (!S.redo) return;
  await guarded(async () => {
    let n = 1;
    while (n < S.redo.length && sideOf(S.redo[n]) !== S.human) n++;
    const moves = S.moves + S.redo.slice(0, n);
    S.redo = S.redo.slice(n);
    await loadGame(S.start, moves);
    say(`Played again: ${moves.slice(moves.length - n)}.`);
    await computerMoves($('#status').textContent);
  });
}

async function hint() {
  if (S.pos.result || S.pos.to_move !== S.human) return;
  await guarded(async () => {
    say('Thinking about your move…');
    const b = await api('bestmove', Object.assign(gameBody(), { level: 'strong' }));
    S.hint = { move: b.move, value: b.value };
    drawGame();
    let t = `Hint: ${b.move}. With it your expected score is ${pct(b.value)}% ` +
      `(the search's value ${b.value >= 0 ? '+' : '−'}${Math.abs(b.value).toFixed(2)}, P(win) − P(loss)); the line ${b.pv}.`;
    const tw = tablesWords(b.tablebase, S.pos);
    if (tw) t += ' ' + tw.head;
    say(t);
  });
}

async function changeSetting(what, apply, revert) {
  if (S.moves && !S.pos.result) {
    const ok = await ask(`Changing ${what} starts a new game; the ${plural(S.moves.length, 'move')} played so far will be left (the Analysis tab keeps them until then).`,
      'Start a new game', 'Keep playing');
    if (!ok) { revert(); return; }
  }
  apply();
  S.start = START;
  await newGame();
}

function saveRecord() {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([recordText()], { type: 'text/plain' }));
  a.download = 'oware-game.txt';
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

// A record: `# Key: value` headers, then a line of moves, after `start;` if any.
function parseRecord(text) {
  const headers = {};
  let line = '';
  for (const raw of text.split('\n')) {
    const h = /^\s*#\s*([A-Za-z]+)\s*:\s*(.*)$/.exec(raw);
    if (h) { headers[h[1].toLowerCase()] = h[2].trim(); continue; }
    const l = raw.replace(/#.*/, '').trim();
    if (l && !line) line = l;
  }
  let start = START, moves = line;
  if (line.includes(';')) [start, moves] = line.split(';').map((s) => s.trim());
  return { headers, start: start || START, moves: moves.replace(/\s+/g, '') };
}

async function loadRecord(text) {
  const r = parseRecord(text);
  const h = r.headers;
  if (h.rules) {
    if (!RULES.includes(h.rules)) { say(`Rules: '${h.rules}' is not one of ${RULES.join(', ')}.`, 'error'); return; }
    S.rules = h.rules;
  }
  if (h.south === 'You') S.human = 'S';
  if (h.north === 'You') S.human = 'N';
  if (LEVELS.includes(h.level)) S.level = h.level;
  syncControls();
  await guarded(async () => {
    S.redo = '';
    const words = await loadGame(r.start, r.moves);
    // A record shows its position and moves for no one; oware goes on with the game
    // only when the record says which side you played.
    if (h.south === 'You' || h.north === 'You') {
      if (!S.pos.result && S.pos.to_move !== S.human) await computerMoves(words);
    } else if (!S.pos.result) {
      S.human = S.pos.to_move;
      syncControls();
      drawGame();
      updateUrl();
    }
  });
}

function syncControls() {
  $('#level').value = S.level;
  $('#side').value = S.human;
  $('#rules').value = S.rules;
  $('#level-note').textContent = LEVEL_NOTES[S.level];
}

// ---------- the analysis board ----------

// A tree of moves: each node is a position, reached from its parent by `move`; the
// first child continues the main line, the others are variations.
let nodeIds = 0;
const nodes = new Map();
function mkNode(parent, move) {
  const n = { id: ++nodeIds, parent, move, children: [], pos: null };
  nodes.set(n.id, n);
  if (parent) parent.children.push(n);
  return n;
}

function newTree(start, moves, rules) {
  nodes.clear();
  const root = mkNode(null, '');
  let n = root;
  for (const m of moves) n = mkNode(n, m);
  return { start, rules, root, cur: n };
}

function pathOf(node) {
  let s = '';
  for (let n = node; n.parent; n = n.parent) s = n.move + s;
  return s;
}

function mainLine() {
  const line = [S.A.root];
  while (line[line.length - 1].children.length) line.push(line[line.length - 1].children[0]);
  return line;
}

async function ensurePos(node) {
  if (!node.pos) node.pos = await api('position', { fen: S.A.start, moves: pathOf(node), rules: S.A.rules });
  return node.pos;
}

// The analysis board follows the game played: a new game starts a new tree; moves
// played on after the tree's main line extend it.
function syncTree() {
  const A = S.A;
  if (A && A.start === S.start && A.rules === S.rules) {
    const main = mainLine().slice(1).map((n) => n.move).join('');
    if (S.moves.startsWith(main)) {
      let n = mainLine().pop();
      for (const m of S.moves.slice(main.length)) n = mkNode(n, m);
      return;
    }
    if (main.startsWith(S.moves)) return;
  }
  S.A = newTree(S.start, S.moves, S.rules);
}

async function goTo(node, animate) {
  if (!node) return;
  const A = S.A;
  const prev = A.cur;
  const token = ++S.navToken;
  await ensurePos(node);
  // A later click was answered first: its position stays on the board.
  if (token !== S.navToken || S.A !== A) return;
  A.cur = node;
  if (animate && node.parent === prev && prev.pos) {
    const ply = node.pos.plies[node.pos.plies.length - 1];
    await animateMove(prev.pos, node.move, node.pos, ply, { bottom: S.human, fen: node.pos.fen });
    if (token !== S.navToken) return;
  }
  drawAnalysis();
  refreshEngine();
}

// The review's entry for the move after `node`, where `node` is on the reviewed line.
function reviewAfter(node) {
  const rv = S.review;
  if (!rv || S.reviewed !== S.A.start + ';' + mainLine().slice(1).map((n) => n.move).join('')) return null;
  const main = mainLine();
  const i = main.indexOf(node);
  return i >= 0 && i < rv.plies.length ? rv.plies[i] : null;
}

function drawAnalysis() {
  const A = S.A;
  const node = A.cur;
  const pos = node.pos;
  const marks = {};
  const r = reviewAfter(node);
  if (r) {
    if (r.best === r.move) marks[r.move] = ['played best', 'played · best'];
    else { marks[r.move] = ['played', 'played']; marks[r.best] = ['best', 'better']; }
  } else if (node.move) marks[node.move] = ['last', ''];
  drawBoard(pos, { bottom: S.human, legal: pos.result ? '' : pos.legal, marks, fen: pos.fen });
  const k = pathOf(node).length;
  $('#banner').textContent = pos.result ? `after move ${k}: game over`
    : k ? `after move ${k}: ${sideName(pos.to_move)} to move` : `start: ${sideName(pos.to_move)} to move`;
  drawTree();
  let t = '';
  if (r) {
    t = `Move ${r.ply}: ${sideName(r.side)} played ${r.move}, ${r.tie ? `best (as good as ${r.best})` : r.grade}`;
    if (r.grade !== 'best') t += `; better was ${r.best} (line ${r.pv})`;
    t += `. ${sideName(r.side)}'s expected score ${pct(r.value_before)}% before, ${pct(r.value_after)}% after` +
      (r.loss > 0 ? `, ${r.loss.toFixed(2)} lost.` : '.');
    if (r.proof_before) t += ` Proven before the move: a ${r.proof_before} for ${sideName(r.side)}.`;
  } else if (node.move) {
    t = describePly(pos.plies[pos.plies.length - 1], sideName(sideOf(node.move)));
  }
  if (pos.result) t += (t ? ' ' : '') + pos.result.text;
  say(t);
  for (const tr of document.querySelectorAll('#analysis-table tbody tr')) tr.classList.toggle('sel', r !== null && tr.dataset.ply === String(r.ply));
  drawGraphCursor();
}

function drawTree() {
  const box = $('#tree');
  box.replaceChildren();
  const A = S.A;
  const span = (n, numbered) => {
    const k = pathOf(n).length;
    const s = el('span', 'mv' + (n === A.cur ? ' cur' : '') + (sideOf(n.move) === 'S' ? ' south' : ' north'),
      (numbered || sideOf(n.move) === 'S' ? k + '.' : '') + n.move);
    s.dataset.id = String(n.id);
    s.addEventListener('click', () => guarded(() => goTo(n)));
    return s;
  };
  const line = (from, out, first) => {
    let n = from, numbered = first;
    while (n.children.length) {
      const [main, ...vars] = n.children;
      // A space after each move: where the line may wrap.
      out.append(span(main, numbered), ' ');
      numbered = false;
      for (const v of vars) {
        const wrap = el('span', 'var');
        wrap.append('(', span(v, true), ' ');
        line(v, wrap, false);
        wrap.append(')');
        out.append(wrap, ' ');
        numbered = true;
      }
      n = main;
    }
  };
  if (!A.root.children.length) box.appendChild(el('span', 'muted small', 'No moves yet: click a pit.'));
  line(A.root, box, true);
  const cur = box.querySelector('.mv.cur');
  if (cur && (cur.offsetTop < box.scrollTop || cur.offsetTop > box.scrollTop + box.clientHeight - 20)) {
    box.scrollTop = cur.offsetTop - box.clientHeight / 2;
  }
}

async function onAnalysisPit(letter) {
  const A = S.A;
  if (!A || S.busy > 0) return;
  const pos = A.cur.pos;
  if (!pos || pos.result || !pos.legal.includes(letter)) return;
  await guarded(async () => {
    const node = A.cur.children.find((c) => c.move === letter) || mkNode(A.cur, letter);
    await goTo(node, true);
    if (S.trainer) await trainerReply();
  });
}

function refreshEngine() {
  const A = S.A;
  const pos = A.cur.pos;
  const lines = $('#lines');
  const tables = $('#tables');
  if (!S.engineOn && !S.trainer) {
    lines.replaceChildren();
    tables.classList.add('hidden');
    drawEvalBar(null);
    return;
  }
  if (pos.result) {
    const w = pos.result.winner;
    drawEvalBar(w === 'S' ? 1 : w === 'N' ? -1 : 0, pos.result.text);
    lines.replaceChildren(el('li', 'muted', 'The game is over.'));
    tables.classList.add('hidden');
    return;
  }
  lines.replaceChildren(el('li', 'muted', 'Searching…'));
  lines.dataset.fen = '';
  const body = { fen: A.start, moves: pathOf(A.cur), rules: A.rules };
  evaluate(body, pos, ENGINE_SIMS, (b) => showEngine(b, pos));
}

// Lines with fewer visits show no score.
const FEW_VISITS = 10;

function showEngine(b, pos) {
  const lines = $('#lines');
  const tables = $('#tables');
  if (!b || b.error) {
    lines.replaceChildren(el('li', 'error', b ? b.error : ''));
    return;
  }
  const v = pos.to_move === 'S' ? b.value : -b.value;
  drawEvalBar(v);
  lines.replaceChildren();
  lines.dataset.fen = pos.fen;
  for (const l of b.lines) {
    const li = el('li', 'line');
    li.dataset.move = l.move;
    // A score from a handful of visits is noise: shown only from FEW_VISITS on.
    const sure = l.q !== null && l.visits >= FEW_VISITS;
    li.append(el('b', 'mv', l.move), el('span', 'score', sure ? `${pct(l.q)}%` : '–'),
      el('span', 'visits muted', plural(l.visits, 'visit')), el('span', 'pv', l.pv));
    li.title = sure ? `${sideName(pos.to_move)}'s expected score after ${l.move}; click to play it`
      : `Too few visits for a score (under ${FEW_VISITS}); click to play ${l.move}`;
    li.addEventListener('click', () => onAnalysisPit(l.move));
    lines.appendChild(li);
  }
  const tw = tablesWords(b.tablebase, pos);
  tables.classList.toggle('hidden', !tw);
  if (tw) {
    tables.replaceChildren(el('p', 'tb-head', tw.head));
    const ul = el('ul', 'tb-moves');
    for (const [m, words] of tw.moves) {
      const li = el('li', words.startsWith('win') ? 'tb-win' : words === 'draw' ? 'tb-draw'
        : words.startsWith('loss') ? 'tb-loss' : 'tb-unknown');
      li.dataset.move = m;
      li.append(el('b', '', m), ' ' + words);
      ul.appendChild(li);
    }
    tables.appendChild(ul);
    const canTrain = b.tablebase.outcome === 'win' && !S.trainer;
    if (canTrain) {
      const btn = el('button', 'train', 'Practise this win against perfect defence');
      btn.id = 'trainer-start';
      btn.addEventListener('click', () => startTrainer(b.tablebase, pos));
      tables.appendChild(btn);
    }
  }
  if (S.trainer) trainerCheck(b, pos);
}

// ---------- the endgame trainer ----------

// Play a won table position against the tables' best defence; the trainer says where
// the win slipped.
function startTrainer(tb, pos) {
  S.trainer = { side: pos.to_move, from: S.A.cur, slipped: null };
  $('#trainer').classList.remove('hidden');
  $('#trainer-text').textContent = `Win this as ${sideName(pos.to_move)}: the tables defend perfectly. ` +
    `${finalWords(tb.margin, pos)[0].toUpperCase() + finalWords(tb.margin, pos).slice(1)} is what perfect play gets.`;
  drawAnalysis();
  refreshEngine();
}

// After each of the trainee's moves: still won? (the answer for the position after it).
function trainerCheck(b, pos) {
  const T = S.trainer;
  const tb = b.tablebase;
  if (pos.to_move === T.side) return;
  // The defender is to move: the trainee kept the win if the defender is proven lost.
  if (tb && tb.outcome && tb.outcome !== 'loss' && !T.slipped) {
    T.slipped = { node: S.A.cur, move: S.A.cur.move };
    const holds = tb.outcome === 'win' ? 'win' : 'hold a draw';
    $('#trainer-text').textContent = `The win slipped with ${S.A.cur.move}: ` +
      `after it ${sideName(pos.to_move)} can ${holds} with best play. Go back one move (◀) and the tables show the moves that keep the win.`;
  }
}

// The defender's reply: the tables' best move (the largest margin for the defender).
async function trainerReply() {
  const T = S.trainer;
  const node = S.A.cur;
  const pos = node.pos;
  if (pos.result) {
    const w = pos.result.winner;
    let t = pos.result.text;
    if (!T.slipped && w !== T.side && sideOf(node.move) === T.side) T.slipped = { node, move: node.move };
    if (T.slipped) t = `The win slipped with ${T.slipped.move}. ${t}`;
    else if (w === T.side) t = 'Won, and the tables could not stop it. ' + t;
    $('#trainer-text').textContent = t;
    return;
  }
  if (pos.to_move === T.side) return;
  const b = await api('bestmove', { fen: S.A.start, moves: pathOf(node), rules: S.A.rules, sims: 100 });
  const tb = b.tablebase;
  let move = b.move;
  const proven = tb && tb.moves ? Object.entries(tb.moves).filter(([, v]) => v !== null) : [];
  if (proven.length) move = proven.sort((x, y) => y[1] - x[1])[0][0];
  if (tb && tb.outcome && tb.outcome !== 'loss' && !T.slipped) trainerCheck(b, pos);
  const child = node.children.find((c) => c.move === move) || mkNode(node, move);
  await goTo(child, true);
  if (!T.slipped) $('#trainer-text').textContent = `The tables answer ${move}. Your move: keep the win.`;
  if (child.pos.result) await trainerReply();
}

function stopTrainer() {
  S.trainer = null;
  $('#trainer').classList.add('hidden');
  refreshEngine();
}

// ---------- the position editor ----------

function startEditor() {
  const pos = S.A.cur.pos;
  S.edit = { pits: pos.pits.slice(), stores: pos.stores.slice(), side: pos.to_move };
  $('#editor').classList.remove('hidden');
  drawEditor();
}

function drawEditor() {
  const E = S.edit;
  $('#edit-store-s').value = String(E.stores[0]);
  $('#edit-store-n').value = String(E.stores[1]);
  $('#edit-side').value = E.side;
  $('#edit-fen').value = fenOf(E);
  const total = E.pits.reduce((a, b) => a + b, 0) + E.stores[0] + E.stores[1];
  const msg = $('#edit-msg');
  msg.textContent = total === 48 ? 'The seeds add up to 48.'
    : `The pits and stores hold ${total} seeds; a game has 48: ${total < 48 ? 'add ' + (48 - total) : 'take away ' + (total - 48)}.`;
  msg.dataset.ok = total === 48 ? '1' : '0';
  drawBoard(E, { bottom: 'S', legal: 'ABCDEFabcdef', marks: {}, fen: fenOf(E) });
  $('#banner').textContent = 'setting up a position';
}

function editPit(letter, delta) {
  const E = S.edit;
  const p = pitOf(letter);
  E.pits[p] = Math.max(0, Math.min(48, E.pits[p] + delta));
  drawEditor();
}

function editFromInputs() {
  const E = S.edit;
  const n = (id) => Math.max(0, Math.min(48, Math.floor(Number($(id).value) || 0)));
  E.stores = [n('#edit-store-s'), n('#edit-store-n')];
  E.side = $('#edit-side').value;
  drawEditor();
}

function editFromFen() {
  const f = $('#edit-fen').value.trim();
  if (!/^(\d+-){14}[SN]$/.test(f)) {
    $('#edit-msg').textContent = `'${f}' is not a position: 12 pits, 2 stores and the side to move, joined by '-' (${START}).`;
    $('#edit-msg').dataset.ok = '0';
    return;
  }
  const p = parseFen(f);
  S.edit = { pits: p.pits, stores: p.stores, side: p.side };
  drawEditor();
}

async function finishEditor() {
  const fen = fenOf(S.edit);
  const msg = $('#edit-msg');
  if (msg.dataset.ok !== '1') return;
  let pos;
  try {
    pos = await api('position', { fen, moves: '', rules: S.rules });
  } catch (e) {
    msg.textContent = e.message;
    msg.dataset.ok = '0';
    return;
  }
  if (pos.result) {
    msg.textContent = `This position is already over: ${pos.result.text} Change it so that the player to move can play.`;
    msg.dataset.ok = '0';
    return;
  }
  closeEditor();
  S.A = newTree(pos.start, '', S.rules);
  S.A.root.pos = pos;
  S.review = null;
  clearReview();
  await goTo(S.A.root);
  $('#analysis-status').textContent = 'A position of your own: play moves from it, or Play from here against oware.';
}

function closeEditor() {
  S.edit = null;
  $('#editor').classList.add('hidden');
}

// ---------- the review ----------

async function analyze() {
  await guarded(async () => {
    const main = mainLine();
    const moves = main.slice(1).map((n) => n.move).join('');
    if (!moves) { $('#analysis-status').textContent = 'There are no moves to review: play some first.'; return; }
    $('#analysis-status').textContent = `Reviewing ${plural(moves.length, 'move')}…`;
    const rv = await api('analyze', { fen: S.A.start, moves, rules: S.A.rules });
    S.review = rv;
    S.reviewed = S.A.start + ';' + moves;
    $('#analysis-status').textContent = `${plural(rv.plies.length, 'move')} reviewed: ${rv.simulations} simulations a position, ` +
      `alpha-beta proofs ${rv.exact_depth} plies deep` + (rv.tablebase_seeds ? `, endgame tables to ${rv.tablebase_seeds} seeds.` : '.');
    drawReview();
    let worst = 0;
    rv.plies.forEach((p, i) => { if (p.loss > rv.plies[worst].loss) worst = i; });
    await goTo(main[worst]);
  });
}

function clearReview() {
  $('#review-box').classList.add('hidden');
  $('#analysis-table tbody').replaceChildren();
  $('#graph').replaceChildren();
  $('#summary').replaceChildren();
}

const graphX = (i, n) => (n <= 1 ? 300 : 8 + 584 * i / n);

function drawReview() {
  $('#review-box').classList.remove('hidden');
  const rv = S.review;
  const svg = $('#graph');
  const n = rv.plies.length;
  const H = 180, pad = 8;
  const y = (v) => H / 2 - (H / 2 - pad) * v;
  const south = (p, v) => (p.side === 'S' ? v : -v);
  const vals = rv.plies.map((p) => south(p, p.value_before));
  const last = rv.plies[n - 1];
  const winner = rv.result ? rv.result.winner : null;
  vals.push(winner === 'S' ? 1 : winner === 'N' ? -1 : winner === 'draw' ? 0 : south(last, last.value_after));
  const pts = vals.map((v, i) => [graphX(i, n), y(v)]);
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
  mk('rect', { x: 0, y: 0, width: 600, height: H / 2 }, mk('clipPath', { id: 'above' }, defs));
  mk('rect', { x: 0, y: H / 2, width: 600, height: H / 2 }, mk('clipPath', { id: 'below' }, defs));
  const area = `M${graphX(0, n)} ${y(0)} ` + pts.map((p) => 'L' + p[0].toFixed(1) + ' ' + p[1].toFixed(1)).join(' ') + ` L${graphX(n, n)} ${y(0)} Z`;
  mk('path', { d: area, class: 'south', 'clip-path': 'url(#above)' });
  mk('path', { d: area, class: 'north', 'clip-path': 'url(#below)' });
  mk('line', { x1: 0, x2: 600, y1: y(0), y2: y(0), class: 'zero' });
  mk('path', { d: line, class: 'line' });
  rv.plies.forEach((p, i) => {
    if (p.grade === 'blunder' || p.grade === 'mistake') {
      mk('circle', { cx: graphX(i + 1, n), cy: y(vals[i + 1]), r: 4, class: 'dot-' + p.grade });
    }
  });
  mk('line', { x1: 0, x2: 0, y1: 0, y2: H, class: 'cursor', id: 'graph-cursor' });

  const tb = $('#analysis-table tbody');
  tb.replaceChildren();
  const main = mainLine();
  rv.plies.forEach((p, i) => {
    const tr = el('tr');
    tr.dataset.ply = String(i + 1);
    const better = p.grade === 'best' ? '' : p.best;
    const grade = p.tie ? 'best (tie)' : p.grade;
    for (const [text, cls] of [[String(p.ply), ''], [p.move, ''], [grade, 'grade g-' + p.grade], [better, ''], [p.loss.toFixed(2), '']]) {
      const td = el('td');
      if (cls) td.appendChild(el('span', cls, text));
      else td.textContent = text;
      tr.appendChild(td);
    }
    tr.addEventListener('click', () => guarded(() => goTo(main[i])));
    tb.appendChild(tr);
  });

  const sum = $('#summary');
  sum.replaceChildren();
  for (const side of ['S', 'N']) {
    const mine = rv.plies.filter((p) => p.side === side);
    if (!mine.length) continue;
    const count = (g) => mine.filter((p) => p.grade === g).length;
    const who = side === S.human ? `You (${sideName(side)})` : `oware (${sideName(side)})`;
    sum.appendChild(el('div', '', `${who}: ${count('best') + count('excellent')} best or excellent, ${count('good')} good, ` +
      `${plural(count('inaccuracy'), 'inaccuracy', 'inaccuracies')}, ${plural(count('mistake'), 'mistake')}, ` +
      `${plural(count('blunder'), 'blunder')}`));
  }
}

function drawGraphCursor() {
  const c = $('#graph-cursor');
  const rv = S.review;
  if (!c || !rv) return;
  const i = mainLine().indexOf(S.A.cur);
  c.classList.toggle('hidden', i < 0);
  const x = graphX(Math.max(0, i), rv.plies.length);
  c.setAttribute('x1', x);
  c.setAttribute('x2', x);
}

function graphClick(ev) {
  if (!S.review) return;
  const r = $('#graph').getBoundingClientRect();
  const n = S.review.plies.length;
  const i = Math.max(0, Math.min(n, Math.round(((ev.clientX - r.left) / r.width * 600 - 8) / (584 / n))));
  guarded(() => goTo(mainLine()[i]));
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
    S.pzMoves = z.moves;
    S.tries = 0;
    S.pzDone = false;
    const level = z.difficulty ? ` · difficulty: ${z.difficulty}` : '';
    $('#puzzle-title').textContent = `${sideName(z.to_move)} to move and win (the win takes ${z.plies} plies)${level}.`;
    setPuzzleStatus('none', 'Find the one move that wins by force. Click a pit.');
    drawPuzzle({});
    say('Only one move forces the win; the others let it slip.');
  });
}

function drawPuzzle(marks) {
  const p = S.pzPos;
  const z = S.puzzles[S.pz];
  S.pzView = { marks };
  drawBoard(p, { bottom: z.to_move, legal: S.pzDone || p.to_move !== z.to_move ? '' : p.legal, marks, fen: p.fen });
  $('#banner').textContent = `puzzle ${S.pz + 1} of ${S.puzzles.length}`;
}

function setPuzzleStatus(state, text) {
  const e = $('#puzzle-status');
  e.dataset.state = state;
  e.textContent = text;
  $('#puzzle-score').textContent = S.score.tried ? `Solved ${S.score.solved} of ${S.score.tried}.` : '';
}

// Plays `letter` on the puzzle board.
async function puzzlePlay(letter) {
  const z = S.puzzles[S.pz];
  const after = await api('position', { fen: z.fen, moves: S.pzMoves + letter });
  await animateMove(S.pzPos, letter, after, after.plies[after.plies.length - 1], { bottom: z.to_move, fen: after.fen });
  S.pzMoves += letter;
  S.pzPos = after;
}

function puzzleSolved(letter) {
  const z = S.puzzles[S.pz];
  S.pzDone = true;
  S.score.tried++;
  S.score.solved++;
  // Stars by the wrong moves tried on the way (three end the puzzle).
  const grade = S.tries === 0 ? 'no wrong move: ★★★' : S.tries === 1 ? 'one wrong move: ★★' : 'two wrong moves: ★';
  drawPuzzle({ [letter]: ['best', 'win'] });
  setPuzzleStatus('solved', `Solved, ${grade}. ${S.pzPos.result ? S.pzPos.result.text : ''} The line was ${z.line}.`);
}

async function onPuzzlePit(letter) {
  if (S.busy > 0 || S.pzDone || !S.pzPos || !S.pzPos.legal.includes(letter)) return;
  const z = S.puzzles[S.pz];
  if (S.pzPos.to_move !== z.to_move) return;
  await guarded(async () => {
    // Which moves keep a forced win from here (the first move: the one solution).
    const first = S.pzMoves === z.moves;
    let wins = first ? z.solution : '';
    if (!first) {
      const s = await api('solve', { fen: z.fen, moves: S.pzMoves, depth: Math.max(2, z.plies) });
      wins = Object.entries(s.moves).filter(([, v]) => v.result === 'win').map(([m]) => m).join('');
    }
    if (!wins.includes(letter)) {
      S.tries++;
      const wrong = { [letter]: ['wrong', 'no'] };
      if (S.tries >= 3) {
        S.pzDone = true;
        S.score.tried++;
        for (const w of wins) wrong[w] = ['best', 'win'];
        drawPuzzle(wrong);
        setPuzzleStatus('missed', `${letter} does not force a win either. ${wins.length > 1 ? 'Winning moves were' : 'The winning move was'} ${wins.split('').join(', ')}.`);
        return;
      }
      drawPuzzle(wrong);
      setPuzzleStatus('wrong', `${letter} does not force a win. Try again (${plural(3 - S.tries, 'try', 'tries')} left).`);
      return;
    }
    await puzzlePlay(letter);
    if (S.pzPos.result) { puzzleSolved(letter); return; }
    // The engine defends: alpha-beta's best reply (the longest resistance).
    while (!S.pzPos.result && S.pzPos.to_move !== z.to_move) {
      setPuzzleStatus('going', `${letter} keeps the win. The engine defends…`);
      const s = await api('solve', { fen: z.fen, moves: S.pzMoves, depth: Math.max(2, z.plies) });
      await puzzlePlay(s.best);
    }
    if (S.pzPos.result) { puzzleSolved(letter); return; }
    drawPuzzle({ [S.pzMoves[S.pzMoves.length - 1]]: ['last', ''] });
    setPuzzleStatus('going', `Right: ${letter} keeps the win; the engine answered ${S.pzMoves[S.pzMoves.length - 1]}. Your move: keep it.`);
  });
}

function showSolution() {
  if (S.pz < 0 || S.pzDone) return;
  const z = S.puzzles[S.pz];
  S.pzDone = true;
  S.score.tried++;
  const first = S.pzMoves === z.moves;
  drawPuzzle(first ? { [z.solution]: ['best', 'win'] } : {});
  setPuzzleStatus('missed', `The winning move is ${z.solution} (line ${z.line}).`);
}

// ---------- tabs and start-up ----------

async function showTab(tab) {
  if (S.edit) closeEditor();
  S.tab = tab;
  for (const b of document.querySelectorAll('.tab')) b.classList.toggle('active', b.dataset.tab === tab);
  for (const t of ['play', 'analysis', 'puzzles']) $('#pane-' + t).classList.toggle('hidden', t !== tab);
  $('#evalbar').classList.add('hidden');
  updateUrl();
  if (tab === 'play') {
    drawGame();
    const last = S.pos.plies[S.pos.plies.length - 1];
    say(S.pos.result ? resultWords(S.pos.result, S.human) : last ? describePly(last, moverName(last.side)) : 'Your move.', S.pos.result ? 'over' : '');
    playEval();
  } else if (tab === 'analysis') {
    syncTree();
    if (!S.review || S.reviewed !== S.A.start + ';' + mainLine().slice(1).map((n) => n.move).join('')) {
      clearReview();
      const n = mainLine().length - 1;
      $('#analysis-status').textContent = n ? `The game has ${plural(n, 'move')}. Review it to see each move graded.` : 'Play moves here, or set up a position.';
    } else drawReview();
    await guarded(() => goTo(S.A.cur));
  } else if (tab === 'puzzles') {
    if (S.pz < 0 || !S.pzPos) nextPuzzle();
    else { drawPuzzle(S.pzView ? S.pzView.marks : {}); say(''); }
  }
}

function bind() {
  $('#level').addEventListener('change', (e) => { S.level = e.target.value; syncControls(); updateUrl(); });
  $('#side').addEventListener('change', (e) => changeSetting('the side you play',
    () => { S.human = e.target.value; }, () => { e.target.value = S.human; }));
  $('#rules').addEventListener('change', (e) => changeSetting('the rules',
    () => { S.rules = e.target.value; }, () => { e.target.value = S.rules; }));
  $('#show-eval').addEventListener('change', (e) => {
    S.showEval = e.target.checked;
    if (S.showEval) playEval(); else drawEvalBar(null);
  });
  $('#new-game').addEventListener('click', () => newGame());
  $('#undo').addEventListener('click', () => undo());
  $('#redo').addEventListener('click', () => redo());
  $('#hint').addEventListener('click', () => hint());
  $('#save').addEventListener('click', saveRecord);
  $('#load').addEventListener('click', () => loadRecord($('#record').value));
  $('#record-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    if (f) loadRecord(await f.text());
    e.target.value = '';
  });
  $('#analyze').addEventListener('click', () => analyze());
  const nav = (f) => () => { if (S.A && !S.edit) guarded(() => goTo(f(S.A.cur))); };
  const end = (n) => { while (n.children.length) n = n.children[0]; return n; };
  $('#first-ply').addEventListener('click', nav(() => S.A.root));
  $('#prev-ply').addEventListener('click', nav((n) => n.parent));
  $('#next-ply').addEventListener('click', nav((n) => n.children[0]));
  $('#last-ply').addEventListener('click', nav(end));
  $('#delete-var').addEventListener('click', () => {
    const n = S.A && S.A.cur;
    if (!n || !n.parent) return;
    n.parent.children = n.parent.children.filter((c) => c !== n);
    guarded(() => goTo(n.parent));
  });
  $('#engine-on').addEventListener('change', (e) => { S.engineOn = e.target.checked; if (S.A) refreshEngine(); });
  $('#play-here').addEventListener('click', () => playFromHere());
  $('#edit-position').addEventListener('click', () => startEditor());
  $('#edit-done').addEventListener('click', () => guarded(finishEditor));
  $('#edit-cancel').addEventListener('click', () => { closeEditor(); drawAnalysis(); });
  $('#edit-start').addEventListener('click', () => { const p = parseFen(START); S.edit = { pits: p.pits, stores: p.stores, side: 'S' }; drawEditor(); });
  $('#edit-clear').addEventListener('click', () => { S.edit.pits = Array(12).fill(0); S.edit.stores = [0, 0]; drawEditor(); });
  for (const id of ['#edit-store-s', '#edit-store-n', '#edit-side']) $(id).addEventListener('change', editFromInputs);
  $('#edit-fen').addEventListener('change', editFromFen);
  $('#trainer-stop').addEventListener('click', stopTrainer);
  $('#graph').addEventListener('click', graphClick);
  $('#next-puzzle').addEventListener('click', () => nextPuzzle());
  $('#show-solution').addEventListener('click', showSolution);
  for (const b of document.querySelectorAll('.tab')) b.addEventListener('click', () => showTab(b.dataset.tab));
  document.addEventListener('keydown', (e) => {
    if (S.tab !== 'analysis' || !S.A || S.edit || e.target.matches('input, textarea, select')) return;
    const keys = { ArrowLeft: 'prev-ply', ArrowRight: 'next-ply', Home: 'first-ply', End: 'last-ply' };
    if (keys[e.key]) { e.preventDefault(); $('#' + keys[e.key]).click(); }
  });
}

// Play the position on the analysis board against oware, as the side to move.
async function playFromHere() {
  const A = S.A;
  if (!A || A.cur.pos.result) return;
  if (S.trainer) stopTrainer();
  S.human = A.cur.pos.to_move;
  S.start = A.start;
  S.rules = A.rules;
  syncControls();
  await guarded(() => loadGame(A.start, pathOf(A.cur)));
  await showTab('play');
}

async function init() {
  buildBoard();
  bind();
  const q = new URLSearchParams(location.search);
  if (q.has('anim')) S.anim = Math.max(0, Math.min(1000, Number(q.get('anim')) || 0));
  if (LEVELS.includes(q.get('level'))) S.level = q.get('level');
  if (RULES.includes(q.get('rules'))) S.rules = q.get('rules');
  if (q.get('side') === 'N') S.human = 'N';
  try {
    const h = await api('health');
    $('#model').textContent = `${h.model} · ${h.rules} rules` + (h.tablebase ? ` · tables to ${h.tablebase.max_seeds} seeds` : '');
    S.tables = !!h.tablebase;
    if (!q.has('rules') && RULES.includes(h.rules)) S.rules = h.rules;
  } catch (e) {
    say('The server does not answer: ' + e.message, 'error');
  }
  syncControls();
  // A start position that is not one makes the board empty: fall back to the start.
  let start = q.get('start') || START;
  if (!/^(\d+-){14}[SN]$/.test(start)) start = START;
  const tab = q.get('tab');
  await guarded(async () => {
    const words = await loadGame(start, q.get('moves') || '', true);
    if ($('#status').classList.contains('error')) return;
    // A link shows a position; it plays no move for anyone. Without `side` you are the
    // side to move; oware moves first only when the link gives your side and asks for
    // a game (no other tab).
    if (!q.has('side')) {
      if (!S.pos.result) S.human = S.pos.to_move;
      syncControls();
      drawGame();
      updateUrl();
    } else if (!tab || tab === 'play') {
      await computerMoves(words);
    }
  });
  if (tab === 'analysis' || tab === 'puzzles') await showTab(tab);
  document.body.dataset.ready = '1';
}

document.addEventListener('DOMContentLoaded', init);
