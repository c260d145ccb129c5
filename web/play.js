// The Play tab: a game against the network, with undo, redo, a hint, the evaluation bar
// on request, and the game's record (save, load, open a file).

import { api, evaluate } from './api.js';
import { animateMove, describePly, drawBoard, drawEvalBar, tablesWords } from './board.js';
import {
  $, START, RULES, LEVELS, activeTab, ask, changed, download, el, guarded, isBusy, other, pct, plural, say,
  sideOf,
} from './ui.js';

// What each level is, and how strong (README, "Play and study"; experiments/recorded/levels/).
const LEVEL_NOTES = {
  novice: 'novice: 8 simulations a move, moves drawn at random by their visits; about as strong as alpha-beta searching 3 plies (rated about +400 on the README\'s scale, where alpha-beta at depth 1 is 0).',
  amateur: 'amateur: 64 simulations, some randomness; stronger than alpha-beta at depth 10 (+14 =0 −6 against it; depth 10 is rated +1604).',
  strong: 'strong: 400 simulations, always the most visited move; rated about +2600 (alpha-beta at depth 16: +2162).',
  master: 'master: 1 600 simulations, always the most visited move; rated about +2700, and scores 58% against strong.',
};

// The game played, with the Play tab's settings for it.
const played = {
  rules: 'abapa',
  start: START,
  moves: '',
  level: 'amateur',
  human: 'S',
  pos: null,          // the last /position answer of the game
  hint: null,         // {move, value}
  redo: '',           // moves taken back by Undo, for Redo
  showEval: false,    // the evaluation bar while playing
};

// The game as the other tabs see it (read only).
export const game = () => ({ rules: played.rules, start: played.start, moves: played.moves, human: played.human, pos: played.pos });

const gameBody = (moves) => ({ fen: played.start, moves: moves === undefined ? played.moves : moves, rules: played.rules });

function resultWords(result, human) {
  const head = result.winner === 'draw' ? 'A draw.' : (result.winner === human ? 'You win!' : 'oware wins.');
  return `${head} ${result.text}`;
}

function moverName(side) { return side === played.human ? 'You' : 'oware'; }

function drawGame(marks) {
  const p = played.pos;
  const yourTurn = !p.result && p.to_move === played.human && activeTab() === 'play';
  const m = Object.assign({}, marks || {});
  const last = p.plies[p.plies.length - 1];
  if (last && !m[last.move]) m[last.move] = ['last', ''];
  if (played.hint && yourTurn) m[played.hint.move] = ['hint', 'hint'];
  drawBoard(p, { bottom: played.human, legal: yourTurn ? p.legal : '', marks: m, fen: p.fen });
  drawMoveList();
  $('#banner').textContent = p.result ? 'game over' : (p.to_move === played.human ? 'your move' : 'oware to move');
  $('#redo').disabled = isBusy() || !played.redo;
}

function drawMoveList() {
  const ol = $('#move-list');
  ol.replaceChildren();
  const plies = played.pos.plies;
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
  if (!played.showEval || activeTab() !== 'play') return;
  const pos = played.pos;
  if (pos.result) {
    const w = pos.result.winner;
    drawEvalBar(w === 'S' ? 1 : w === 'N' ? -1 : 0, pos.result.text);
    return;
  }
  evaluate(gameBody(), pos, 400, (b) => {
    if (!b || b.error || activeTab() !== 'play') return;
    const v = pos.to_move === 'S' ? b.value : -b.value;
    drawEvalBar(v);
  });
}

function recordText() {
  const p = played.pos;
  const me = played.human, them = other(played.human);
  const names = { [me]: 'You', [them]: `oware-zero (${played.level})` };
  const result = !p || !p.result ? 'unfinished' : `${p.result.winner} (${p.result.text})`;
  const head = [
    '# Event: oware-zero web app',
    `# Date: ${new Date().toISOString().slice(0, 10)}`,
    `# Rules: ${played.rules}`,
    `# South: ${names.S}`,
    `# North: ${names.N}`,
    `# Level: ${played.level}`,
    `# Result: ${result}`,
  ];
  return head.join('\n') + '\n' + (played.start !== START ? played.start + ';' : '') + played.moves + '\n';
}

// The game in the page's address (`q`, URLSearchParams), to share it.
export function gameParams(q) {
  if (played.start !== START) q.set('start', played.start);
  if (played.moves) q.set('moves', played.moves);
  if (played.rules !== 'abapa') q.set('rules', played.rules);
  q.set('level', played.level);
  q.set('side', played.human);
}

function updateUrl() {
  changed();
  $('#record').value = recordText();
}

// Plays `letter` in the game: asks the server for the new position, animates it.
// Returns what happened, in words.
async function playMove(letter) {
  const before = played.pos;
  const after = await api('position', gameBody(played.moves + letter));
  const mover = moverName(before.to_move);
  played.moves += letter;
  played.hint = null;
  const ply = after.plies[after.plies.length - 1];
  await animateMove(before, letter, after, ply, { bottom: played.human, fen: after.fen });
  played.pos = after;
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
  while (!played.pos.result && played.pos.to_move !== played.human) {
    say((words ? words + ' ' : '') + 'oware is thinking…');
    const b = await api('bestmove', Object.assign(gameBody(), { level: played.level }));
    const reply = await playMove(b.move);
    words = (words ? words + ' ' : '') + reply;
    say(words);
  }
  if (played.pos.result) say((words ? words + ' ' : '') + resultWords(played.pos.result, played.human), 'over');
  playEval();
}

export async function onPlayPit(letter) {
  if (isBusy() || !played.pos) return;
  const p = played.pos;
  if (p.result || p.to_move !== played.human || !p.legal.includes(letter)) return;
  await guarded(async () => {
    played.redo = '';
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
    pos = await api('position', { fen: start, moves, rules: played.rules });
  } catch (e) {
    if (!partial) throw e;
    let keep = /^[A-Fa-f]*/.exec(moves)[0].length;
    const m = /after (\d+) move/.exec(e.message);
    if (m) keep = Math.min(keep, Number(m[1]));
    pos = await api('position', { fen: start, moves: moves.slice(0, keep), rules: played.rules })
      .catch(() => api('position', { fen: START, moves: '', rules: played.rules }));
    const n = pos.moves.length;
    note = `The link's game could not be loaded as given (${e.message}); ` +
      (n ? `its first ${plural(n, 'move')} are shown.` : 'a new game instead.') + ' ';
  }
  played.start = pos.start;
  played.moves = pos.moves;
  played.pos = pos;
  played.hint = null;
  drawGame();
  updateUrl();
  const last = pos.plies[pos.plies.length - 1];
  const words = last ? describePly(last, moverName(last.side))
    : 'A new game. ' + (played.human === 'S' ? 'You move first: click one of your pits.' : 'oware moves first.');
  say(note + words, note ? 'error' : '');
  return note + words;
}

async function newGame() {
  await guarded(async () => {
    played.redo = '';
    const words = await loadGame(played.start === START ? START : played.start, '');
    await computerMoves(words);
  });
}

async function undo() {
  await guarded(async () => {
    const plies = played.pos.plies;
    let k = -1;
    for (let i = plies.length - 1; i >= 0; i--) if (plies[i].side === played.human) { k = i; break; }
    if (k < 0) { say('Nothing to take back: you have not moved yet.'); return; }
    const taken = plies.length - k;
    played.redo = played.moves.slice(k) + played.redo;
    await loadGame(played.start, played.moves.slice(0, k));
    say(`Took back ${plural(taken, 'move')}. Your move (Redo plays ${taken > 1 ? 'them' : 'it'} again).`);
    playEval();
  });
}

// Plays again what Undo took back: your move and the replies after it.
async function redo() {
  if (!played.redo) return;
  await guarded(async () => {
    let n = 1;
    while (n < played.redo.length && sideOf(played.redo[n]) !== played.human) n++;
    const moves = played.moves + played.redo.slice(0, n);
    played.redo = played.redo.slice(n);
    await loadGame(played.start, moves);
    say(`Played again: ${moves.slice(moves.length - n)}.`);
    await computerMoves($('#status').textContent);
  });
}

async function hint() {
  if (played.pos.result || played.pos.to_move !== played.human) return;
  await guarded(async () => {
    say('Thinking about your move…');
    const b = await api('bestmove', Object.assign(gameBody(), { level: 'strong' }));
    played.hint = { move: b.move, value: b.value };
    drawGame();
    let t = `Hint: ${b.move}. With it your expected score is ${pct(b.value)}% ` +
      `(the search's value ${b.value >= 0 ? '+' : '−'}${Math.abs(b.value).toFixed(2)}, P(win) − P(loss)); the line ${b.pv}.`;
    const tw = tablesWords(b.tablebase, played.pos);
    if (tw) t += ' ' + tw.head;
    say(t);
  });
}

async function changeSetting(what, apply, revert) {
  if (played.moves && !played.pos.result) {
    const ok = await ask(`Changing ${what} starts a new game; the ${plural(played.moves.length, 'move')} played so far will be left (the Analysis tab keeps them until then).`,
      'Start a new game', 'Keep playing');
    if (!ok) { revert(); return; }
  }
  apply();
  played.start = START;
  await newGame();
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
    played.rules = h.rules;
  }
  if (h.south === 'You') played.human = 'S';
  if (h.north === 'You') played.human = 'N';
  if (LEVELS.includes(h.level)) played.level = h.level;
  syncControls();
  await guarded(async () => {
    played.redo = '';
    const words = await loadGame(r.start, r.moves);
    // A record shows its position and moves for no one; oware goes on with the game
    // only when the record says which side you played.
    if (h.south === 'You' || h.north === 'You') {
      if (!played.pos.result && played.pos.to_move !== played.human) await computerMoves(words);
    } else if (!played.pos.result) {
      played.human = played.pos.to_move;
      syncControls();
      drawGame();
      updateUrl();
    }
  });
}

function syncControls() {
  $('#level').value = played.level;
  $('#side').value = played.human;
  $('#rules').value = played.rules;
  $('#level-note').textContent = LEVEL_NOTES[played.level];
}

// The tab opened: the game as it stands.
export function showPlay() {
  drawGame();
  const last = played.pos.plies[played.pos.plies.length - 1];
  say(played.pos.result ? resultWords(played.pos.result, played.human) : last ? describePly(last, moverName(last.side)) : 'Your move.', played.pos.result ? 'over' : '');
  playEval();
}

// Plays the position `moves` from `start` reached under `rules` against oware, as
// `human` (the study board's "Play from here").
export async function playFrom(start, moves, rules, human) {
  played.human = human;
  played.start = start;
  played.rules = rules;
  syncControls();
  await guarded(() => loadGame(start, moves));
}

export function bindPlay() {
  $('#level').addEventListener('change', (e) => { played.level = e.target.value; syncControls(); updateUrl(); });
  $('#side').addEventListener('change', (e) => changeSetting('the side you play',
    () => { played.human = e.target.value; }, () => { e.target.value = played.human; }));
  $('#rules').addEventListener('change', (e) => changeSetting('the rules',
    () => { played.rules = e.target.value; }, () => { e.target.value = played.rules; }));
  $('#show-eval').addEventListener('change', (e) => {
    played.showEval = e.target.checked;
    if (played.showEval) playEval(); else drawEvalBar(null);
  });
  $('#new-game').addEventListener('click', () => newGame());
  $('#undo').addEventListener('click', () => undo());
  $('#redo').addEventListener('click', () => redo());
  $('#hint').addEventListener('click', () => hint());
  $('#save').addEventListener('click', () => download('oware-game.txt', recordText()));
  $('#load').addEventListener('click', () => loadRecord($('#record').value));
  $('#record-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    if (f) loadRecord(await f.text());
    e.target.value = '';
  });
}

// The settings a link gives (`q`, URLSearchParams), then the server's own rules where the
// link names none (`health`, the /health answer, or null).
export function initSettings(q, health) {
  if (LEVELS.includes(q.get('level'))) played.level = q.get('level');
  if (RULES.includes(q.get('rules'))) played.rules = q.get('rules');
  if (q.get('side') === 'N') played.human = 'N';
  if (health && !q.has('rules') && RULES.includes(health.rules)) played.rules = health.rules;
  syncControls();
}

// The game a link gives: `start` and `moves`. A link shows a position; it plays no move
// for anyone. Without `side` you are the side to move; oware moves first only when the
// link gives your side and asks for a game (`playing`: no other tab).
export async function initGame(q, start, moves, playing) {
  await guarded(async () => {
    const words = await loadGame(start, moves, true);
    if ($('#status').classList.contains('error')) return;
    if (!q.has('side')) {
      if (!played.pos.result) played.human = played.pos.to_move;
      syncControls();
      drawGame();
      updateUrl();
    } else if (playing) {
      await computerMoves(words);
    }
  });
}
