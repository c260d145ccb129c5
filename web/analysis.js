// The Analysis tab: a board to study positions on. The game's moves and variations make
// a tree, a study: marks, comments and arrows and circles drawn on the board, kept in the
// page's address and in a file (docs/notation.md, "Study files"). Beside it the engine's
// lines and evaluation bar, the endgame tables, the endgame trainer, the position editor
// and the review.

import { api, cancelEngine, evaluate, infinite, stopInfinite } from './api.js';
import { animateMove, describePly, drawBoard, drawEvalBar, finalWords, tablesWords } from './board.js';
import { bindEditor, closeEditor, editing, startEditor } from './editor.js';
import { game, playFrom } from './play.js';
import {
  analyze, bindReview, clearReview, drawGraphCursor, drawReview, forgetReview, isCurrent, learnHides, learnTry,
  learnWords, learning, reviewAfter,
} from './review.js';
import {
  addLine, annotated, childOf, cleanComment, mainLine, mainMoves, newTree, nodeAt, parseStudy, pathOf, promotable,
  promote, studyText,
} from './tree.js';
import {
  $, RULES, START, activeTab, changed, download, el, guarded, isBusy, openTab, other, pct, plural, say, sideName, sideOf,
  typingIn,
} from './ui.js';

const ENGINE_SIMS = 800;
// Lines with fewer visits show no score.
const FEW_VISITS = 10;

// The board's tree (see tree.js), with `synced`: the game played (rules;start;moves) it
// last followed, and `playedFrom`: the moves to the position "Play from here" played
// from, if it did. Null until the tab is first opened; `pending`: a study a link gave,
// for then, and `pendingAt`: the moves to the position the link was on (`at`).
let A = null;
let pending = null;
let pendingAt = null;
// A study a link gave that was refused: its text, kept in the Study box to correct.
let refused = null;
// The board seen from the other side; drawing mode (a tap on a pit draws, for phones);
// the pit a drawing starts from.
let flipped = false;
let drawing = false;
let drawFrom = null;
// The latest move on the board; older ones are dropped.
let navToken = 0;
let engineOn = true;
// Infinite analysis: the server searches the position on until the page stops it (another
// position, another tab, the box unticked) or its time limit (`maxSeconds`, from /health)
// is reached, and sends its lines a few times a second.
let infiniteOn = false;
let maxSeconds = null;
// The endgame trainer: {side, from, verdict: the tables' verdict on the trainee's last
// judged move}, or null.
let trainer = null;

async function ensurePos(node) {
  if (!node.pos) node.pos = await api('position', { fen: A.start, moves: pathOf(node), rules: A.rules });
  return node.pos;
}

const gameKey = () => { const g = game(); return [g.rules, g.start, g.moves].join(';'); };

// The analysis board follows the game played. A game that shares the tree's start and
// rules goes into it as a line (a variation where it leaves the tree), so that nothing
// written on the tree is lost: the study's own main line, a game played from it, or a
// game that goes on from its main line. Only another game on a tree with nothing but its
// main line (the earlier game) starts a new tree; a new tree is an edit, and undone as one.
function syncTree() {
  const g = game();
  const key = gameKey();
  if (pending) {
    [A, pending] = [pending, null];
    if (A.start === g.start && A.rules === g.rules && g.moves && !nodeAt(A, g.moves)) addLine(A, g.moves);
  } else if (A && A.synced === key) {
    return;
  } else if (A && A.start === g.start && A.rules === g.rules && (annotated(A) || A.playedFrom !== undefined
      || g.moves.startsWith(mainMoves(A)) || mainMoves(A).startsWith(g.moves))) {
    let n = nodeAt(A, g.moves);
    if (!n) {
      record(A.playedFrom !== undefined ? `the game played from ${labelAt(A.playedFrom)}` : 'the game played');
      n = addLine(A, g.moves);
      if (A.playedFrom !== undefined && annotated(A)) {
        $('#analysis-status').textContent = `The game played from ${labelAt(A.playedFrom)} is in the study as a line: ` +
          'the study is as it was, with the game added.';
      }
    }
    A.cur = n;
  } else {
    if (A && (A.root.children.length || annotated(A))) record('the board before the game played');
    A = newTree(g.start, g.moves, g.rules);
  }
  A.synced = key;
  if (pendingAt !== null) {
    A.cur = nodeAt(A, pendingAt) || A.cur;
    pendingAt = null;
  }
}

// `3.C`: the move a path of moves ends with, by its number.
const labelAt = (moves) => (moves ? `${moves.length}.${moves[moves.length - 1]}` : 'the start');
const label = (n) => labelAt(pathOf(n));

// The side at the bottom of the board.
const bottom = () => (flipped ? other(game().human) : game().human);

async function goTo(node, animate) {
  if (!node) return;
  const tree = A;
  const prev = tree.cur;
  const token = ++navToken;
  await ensurePos(node);
  // A later click was answered first: its position stays on the board.
  if (token !== navToken || A !== tree) return;
  if (tree.cur !== node) typing = null;
  tree.cur = node;
  // The link holds the move on the board (`at`).
  changed();
  if (animate && node.parent === prev && prev.pos) {
    const ply = node.pos.plies[node.pos.plies.length - 1];
    await animateMove(prev.pos, node.move, node.pos, ply, { bottom: bottom(), fen: node.pos.fen });
    if (token !== navToken) return;
  }
  drawAnalysis();
  refreshEngine();
}

function drawAnalysis() {
  const node = A.cur;
  const pos = node.pos;
  const marks = {};
  // While the user looks for a better move the review's answer stays hidden.
  const hide = learnHides();
  const r = hide ? null : reviewAfter(node);
  if (r) {
    if (r.best === r.move) marks[r.move] = ['played best', 'played · best'];
    else { marks[r.move] = ['played', 'played']; marks[r.best] = ['best', 'better']; }
  } else if (node.move) marks[node.move] = ['last', ''];
  if (drawFrom) marks[drawFrom] = ['draw-from', ''];
  drawBoard(pos, { bottom: bottom(), legal: pos.result ? '' : pos.legal, marks, fen: pos.fen, shapes: node.shapes });
  // Not while the user types a position there.
  if (document.activeElement !== $('#fen')) $('#fen').value = pos.fen;
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
  if (hide) say(learnWords());
  else say(t);
  for (const tr of document.querySelectorAll('#analysis-table tbody tr')) tr.classList.toggle('sel', r !== null && tr.dataset.ply === String(r.ply));
  drawGraphCursor();
  drawNotes();
}

// The current move's mark and comment in their controls.
function drawNotes() {
  const n = A.cur;
  for (const b of document.querySelectorAll('#marks .mark')) {
    b.classList.toggle('on', n.mark === b.dataset.mark);
    b.disabled = !n.parent;
  }
  const c = $('#comment');
  // Not while the user types in it, unless it is another move's comment.
  if (document.activeElement !== c || c.dataset.node !== String(n.id)) {
    c.value = n.comment;
    c.dataset.node = String(n.id);
  }
  c.placeholder = n.parent ? `A comment on ${pathOf(n).length}.${n.move}` : 'A comment on the start position';
  $('#draw-toggle').classList.toggle('on', drawing);
  $('#draw-toggle').setAttribute('aria-pressed', String(drawing));
  $('#flip').setAttribute('aria-pressed', String(flipped));
  // Not while the user types a study there.
  if (document.activeElement !== $('#study-text')) $('#study-text').value = refused !== null ? refused : studyFile();
  drawUndo();
}

// The review's grade of the move into `n`, where `n` is on the reviewed main line.
function gradeOf(n) {
  if (!n.parent || n.parent.children[0] !== n) return null;
  const r = reviewAfter(n.parent);
  return r && r.move === n.move ? r : null;
}

// The review's grades as marks in the tree.
const GRADE_MARKS = { inaccuracy: '?!', mistake: '?', blunder: '??' };

function drawTree() {
  const box = $('#tree');
  box.replaceChildren();
  const span = (n, numbered) => {
    const k = pathOf(n).length;
    const s = el('span', 'mv' + (n === A.cur ? ' cur' : '') + (sideOf(n.move) === 'S' ? ' south' : ' north'),
      (numbered || sideOf(n.move) === 'S' ? k + '.' : '') + n.move + n.mark);
    s.dataset.id = String(n.id);
    const g = gradeOf(n);
    if (g) {
      s.dataset.grade = g.grade;
      s.title = `${g.tie ? 'best (a tie)' : g.grade}, ${g.loss.toFixed(2)} lost`;
      if (GRADE_MARKS[g.grade]) s.appendChild(el('sup', 'grade-mark g-' + g.grade, GRADE_MARKS[g.grade]));
    }
    s.addEventListener('click', () => guarded(() => goTo(n)));
    const wrap = document.createDocumentFragment();
    wrap.append(s);
    if (n.comment) wrap.append(' ', el('span', 'comment', n.comment));
    return wrap;
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
  if (A.root.comment) box.append(el('span', 'comment', A.root.comment), ' ');
  if (!A.root.children.length) box.appendChild(el('span', 'muted small', 'No moves yet: click a pit.'));
  line(A.root, box, true);
  const cur = box.querySelector('.mv.cur');
  if (cur && (cur.offsetTop < box.scrollTop || cur.offsetTop > box.scrollTop + box.clientHeight - 20)) {
    box.scrollTop = cur.offsetTop - box.clientHeight / 2;
  }
}

export async function onAnalysisPit(letter) {
  if (!A || isBusy()) return;
  if (drawing) { drawTap(letter); return; }
  if (learning()) { await guarded(() => learnTry(letter)); return; }
  const pos = A.cur.pos;
  if (!pos || pos.result || !pos.legal.includes(letter)) return;
  await guarded(async () => {
    if (!A.cur.children.some((c) => c.move === letter)) record(`the move ${labelAt(pathOf(A.cur) + letter)}`);
    const node = childOf(A.cur, letter);
    changed();
    await goTo(node, true);
    if (trainer) await trainerReply();
  });
}

// A number as the page writes it: 3 200.
const count = (n) => String(n).replace(/\B(?=(\d{3})+$)/g, ' ');
// Visits in a line's narrow column: 8 741, 63k, 1.2M (an infinite analysis counts high).
const visitWords = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M visits` : n >= 1e4 ? `${Math.round(n / 1e3)}k visits`
  : plural(n, 'visit').replace(/^\d+/, count));

function refreshEngine() {
  const pos = A.cur.pos;
  const lines = $('#lines');
  const tables = $('#tables');
  const stats = $('#engine-stats');
  stopInfinite();
  stats.classList.toggle('hidden', !(infiniteOn && engineOn));
  stats.textContent = '';
  $('#engine-label').textContent = !infiniteOn ? `Engine: ${count(ENGINE_SIMS)} simulations a position`
    : `Engine: infinite analysis${maxSeconds ? `, up to ${maxSeconds} s a position` : ''}`;
  if (learnHides()) {
    cancelEngine();
    lines.replaceChildren(el('li', 'muted', 'The engine waits until you have found the move or viewed the solution.'));
    lines.dataset.fen = '';
    tables.classList.add('hidden');
    stats.classList.add('hidden');
    drawEvalBar(null);
    return;
  }
  if (!engineOn && !trainer) {
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
  lines.dataset.sims = '';
  const body = { fen: A.start, moves: pathOf(A.cur), rules: A.rules };
  if (infiniteOn && engineOn) infinite(body, (u) => { if (A.cur.pos === pos) showInfinite(u, pos); });
  else evaluate(body, pos, ENGINE_SIMS, (b) => showEngine(b, pos));
}

// An update of the infinite analysis: the lines, and its figures beside them.
function showInfinite(u, pos) {
  showEngine(u, pos);
  if (u.error) return;
  const stats = $('#engine-stats');
  const secs = u.elapsed_ms / 1000;
  stats.textContent = `${count(u.simulations)} simulations · ${count(u.nps)}/s · depth ${u.depth} · ${secs.toFixed(secs < 10 ? 1 : 0)} s`;
  stats.title = 'Simulations so far, simulations a second, the deepest position searched (plies ahead), time';
  if (u.done) {
    // The server's limit: this position's analysis stops; the next one is analysed
    // again, up to the limit.
    stats.textContent += ` · stopped: ${u.seconds} s is this server's limit for a position; another position is analysed again`;
  }
}

function showEngine(b, pos) {
  const lines = $('#lines');
  const tables = $('#tables');
  if (!b || b.error) {
    lines.replaceChildren(el('li', 'error', b ? b.error : ''));
    return;
  }
  lines.dataset.sims = String(b.simulations);
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
      el('span', 'visits muted', visitWords(l.visits)), el('span', 'pv', l.pv));
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
    const canTrain = b.tablebase.outcome === 'win' && !trainer;
    if (canTrain) {
      const btn = el('button', 'train', 'Practise this win against perfect defence');
      btn.id = 'trainer-start';
      btn.addEventListener('click', () => startTrainer(b.tablebase, pos));
      tables.appendChild(btn);
    }
  }
}

// ---------- the endgame trainer ----------

// Play a won table position against the tables' best defence; the trainer judges each
// of the trainee's moves by the tables: it keeps the win, lets it slip, or is not proven.
function startTrainer(tb, pos) {
  trainer = { side: pos.to_move, from: A.cur, verdict: null };
  A.cur.tb = tb;
  $('#trainer').classList.remove('hidden');
  $('#trainer-text').textContent = `Win this as ${sideName(pos.to_move)}: the tables defend perfectly. ` +
    `${finalWords(tb.margin, pos)[0].toUpperCase() + finalWords(tb.margin, pos).slice(1)} is what perfect play gets.`;
  drawAnalysis();
  refreshEngine();
}

// The tables' answer for the position of `node` (the `tablebase` field of /bestmove).
async function tablesAt(node) {
  if (node.tb === undefined) {
    const b = await api('bestmove', { fen: A.start, moves: pathOf(node), rules: A.rules, sims: 1 });
    node.tb = b.tablebase;
  }
  return node.tb;
}

// The trainee's `move` from `pos`, a win the tables prove (`tb`, their answer there):
// {kept: true, false, or null where the tables prove nothing of the move, words}.
function judgeMove(tb, move, pos) {
  const proven = Object.entries(tb.moves || {}).filter(([, v]) => v !== null).sort((x, y) => y[1] - x[1]);
  const best = proven.length ? `${proven[0][0]} would ${finalWords(proven[0][1], pos)}` : null;
  const v = tb.moves ? tb.moves[move] : null;
  if (v === null || v === undefined) {
    return {
      kept: null,
      words: `The tables do not prove that ${move} keeps the win${best ? ` (${best})` : ''}: ` +
        'go back one move (◀) and play a move they prove.',
    };
  }
  const w = finalWords(v, pos);
  if (w.startsWith('win')) {
    return { kept: true, words: `${move} keeps the win: ${w} with best play${v < proven[0][1] ? ` (${best})` : ''}.` };
  }
  return {
    kept: false,
    words: `The win slipped with ${move}: ${w} with best play after it${best ? ` (${best})` : ''}. ` +
      'Go back one move (◀) and the tables show the moves that keep the win.',
  };
}

// After a move on the board: the trainee's move judged (where the position before it is
// a proven win), then the defender's reply, the tables' best move (the largest margin
// for the defender).
async function trainerReply() {
  const T = trainer;
  const node = A.cur;
  const pos = node.pos;
  const before = node.parent;
  if (before && before.pos && before.pos.to_move === T.side) {
    const tb = await tablesAt(before);
    if (tb && tb.outcome === 'win') T.verdict = judgeMove(tb, node.move, before.pos);
  }
  const v = T.verdict;
  const slipped = v !== null && v.kept !== true;
  if (pos.result) {
    const t = pos.result.text;
    $('#trainer-text').textContent = slipped ? `${v.words} ${t}`
      : pos.result.winner === T.side ? `Won, and the tables could not stop it. ${t}` : t;
    return;
  }
  if (pos.to_move === T.side) {
    if (v) $('#trainer-text').textContent = v.words;
    return;
  }
  const b = await api('bestmove', { fen: A.start, moves: pathOf(node), rules: A.rules, sims: 100 });
  const tb = b.tablebase;
  node.tb = tb;
  let move = b.move;
  const proven = tb && tb.moves ? Object.entries(tb.moves).filter(([, x]) => x !== null) : [];
  if (proven.length) move = proven.sort((x, y) => y[1] - x[1])[0][0];
  if (!node.children.some((c) => c.move === move)) record(`the tables' reply ${labelAt(pathOf(node) + move)}`);
  const child = childOf(node, move);
  changed();
  await goTo(child, true);
  $('#trainer-text').textContent = slipped ? `${v.words} The tables answer ${move}.`
    : `${v ? v.words + ' ' : ''}The tables answer ${move}. Your move: keep the win.`;
  if (child.pos.result) await trainerReply();
}

function stopTrainer() {
  trainer = null;
  $('#trainer').classList.add('hidden');
  refreshEngine();
}

// ---------- the study: marks, comments, drawings, the link and the file ----------

// The board's tree as the page's address holds it (`study`, the study's text) when it is
// more than the game played; the move on the board (`at`: the moves to it); the board's
// side (`flip`).
export function studyParams(q) {
  const tree = A || pending;
  const g = game();
  if (tree && (annotated(tree) || tree.start !== g.start || mainMoves(tree) !== g.moves)) q.set('study', studyText(tree));
  if (A) q.set('at', pathOf(A.cur));
  else if (pendingAt !== null) q.set('at', pendingAt);
  if (flipped) q.set('flip', '1');
}

// Every move of `tree` checked by the server, as a file's are: a study with an illegal
// move is refused whole. Each line's last position is asked for (the positions before it
// come with it when shown).
async function checkStudy(tree) {
  const ends = [];
  const walk = (n) => { if (!n.children.length) ends.push(n); n.children.forEach(walk); };
  walk(tree.root);
  for (const n of ends) n.pos = await api('position', { fen: tree.start, moves: pathOf(n), rules: tree.rules });
}

// A study a link gives (`q`), checked as a file is: kept for the tab, with the game it
// starts from, or refused with an error in words (its text goes to the Study box, to be
// corrected). Returns {start, moves} of its main line, or {error}. `health` (the /health
// answer, or null) gives the server's limits.
export async function initStudy(q, rules, health) {
  if (health) maxSeconds = health.limits.analysis_max_seconds;
  flipped = q.get('flip') === '1';
  if (q.has('at') && /^[A-Fa-f]*$/.test(q.get('at'))) pendingAt = q.get('at');
  const text = q.get('study');
  if (!text) return {};
  let tree;
  try {
    tree = parseStudy(text, rules);
    await checkStudy(tree);
  } catch (e) {
    refused = text;
    $('#study-box').open = true;
    return { error: `The link's study could not be loaded: ${e.message.replace(/\.$/, '')}. Its text is in the Study box, to correct and Load.` };
  }
  pending = tree;
  return { start: tree.start, moves: mainMoves(tree) };
}

// Edited: the tree and the page's address drawn again.
function edited() {
  changed();
  drawTree();
  drawNotes();
}

function setMark(mark) {
  const n = A.cur;
  if (!n.parent) return;
  record(`the mark on ${label(n)}`);
  n.mark = n.mark === mark ? '' : mark;
  edited();
}

// Typing a comment is one edit until another move or another edit.
function setComment(text) {
  if (typing !== A.cur) {
    record(A.cur.parent ? `the comment on ${label(A.cur)}` : 'the comment on the start');
    typing = A.cur;
  }
  A.cur.comment = cleanComment(text);
  edited();
}

// A shape from `from` to `to` (the same pit: a circle) drawn, or taken away if it is
// there already.
function toggleShape(from, to) {
  const n = A.cur;
  const target = from === to ? null : to;
  const i = n.shapes.findIndex((s) => s.from === from && s.to === target);
  record(`${i >= 0 ? 'removing ' : ''}${target ? `the arrow ${from}>${target}` : `the circle on ${from}`}`);
  if (i >= 0) n.shapes.splice(i, 1);
  else n.shapes.push({ from, to: target });
  drawAnalysis();
  changed();
}

// Deletes the move on the board and what follows it, and says what went: the moves,
// comments, marks and drawings (Undo brings them back).
function deleteMove() {
  const n = A && A.cur;
  if (!n || !n.parent) return;
  record(`deleting ${label(n)}`);
  let moves = 0, comments = 0, marks = 0, shapes = 0;
  const walk = (x) => {
    moves++;
    if (x.comment) comments++;
    if (x.mark) marks++;
    shapes += x.shapes.length;
    x.children.forEach(walk);
  };
  walk(n);
  n.parent.children = n.parent.children.filter((c) => c !== n);
  const parts = [comments && plural(comments, 'comment'), marks && plural(marks, 'mark'), shapes && plural(shapes, 'drawing')]
    .filter(Boolean);
  const words = `Deleted ${label(n)}` + (moves > 1 ? ` and the ${plural(moves - 1, 'move')} after it` : '') +
    (parts.length ? `, with ${parts.join(', ')}` : '') + '. Undo (Ctrl+Z) brings it back.';
  changed();
  guarded(async () => {
    await goTo(n.parent);
    say(words);
  });
}

// ---------- undo and redo ----------

// Every edit of the study can be undone and redone: before it, the study as it stood is
// kept (its text holds every move, mark, comment and drawing) with the move on the board
// and, in words, what the edit was.
const MAX_UNDO = 200;
let past = [];
let future = [];
// The move whose comment is being typed (one edit), or null.
let typing = null;

const snapshot = (what) => ({ what, text: studyText(A), rules: A.rules, at: pathOf(A.cur), playedFrom: A.playedFrom });

// Called before each edit of the tree.
function record(what) {
  if (!A) return;
  past.push(snapshot(what));
  if (past.length > MAX_UNDO) past.shift();
  future = [];
  typing = null;
  refused = null;
  drawUndo();
}

// The tree a snapshot holds, at its move; the positions the board knows are kept.
function restore(s) {
  const tree = parseStudy(s.text, s.rules);
  if (A && A.start === tree.start && A.rules === tree.rules) {
    const keep = (from, to) => {
      to.pos = from.pos;
      for (const c of to.children) {
        const f = from.children.find((x) => x.move === c.move);
        if (f) keep(f, c);
      }
    };
    keep(A.root, tree.root);
  }
  tree.cur = nodeAt(tree, s.at) || tree.root;
  tree.playedFrom = s.playedFrom;
  // The game played stays the one this tree follows: going back to the tab keeps it.
  tree.synced = gameKey();
  A = tree;
  typing = null;
  forgetReviewUnlessCurrent();
}

function forgetReviewUnlessCurrent() {
  if (!isCurrent()) clearReview();
}

async function undoRedo(from, to, done) {
  if (!A || !from.length || editing()) return;
  const s = from.pop();
  to.push(snapshot(s.what));
  restore(s);
  changed();
  await goTo(A.cur);
  say(`${done}: ${s.what}.`);
}

const undo = () => guarded(() => undoRedo(past, future, 'Undone'));
const redo = () => guarded(() => undoRedo(future, past, 'Redone'));

function drawUndo() {
  const u = $('#study-undo'), r = $('#study-redo');
  u.disabled = !past.length;
  r.disabled = !future.length;
  u.title = past.length ? `undo ${past[past.length - 1].what} (Ctrl+Z)` : 'nothing to undo (Ctrl+Z)';
  r.title = future.length ? `redo ${future[future.length - 1].what} (Ctrl+Y)` : 'nothing to redo (Ctrl+Y)';
}

// Drawing by taps: the first pit, then the pit the arrow goes to (the same one: a circle).
function drawTap(letter) {
  if (!drawFrom) { drawFrom = letter; drawAnalysis(); return; }
  const from = drawFrom;
  drawFrom = null;
  toggleShape(from, letter);
}

// Right-button drags on the board: an arrow from the pit pressed to the pit released;
// a right click on a pit: a circle.
function bindDrawing() {
  const pitAt = (e) => document.elementFromPoint(e.clientX, e.clientY)?.closest('.pit')?.dataset.letter;
  let from = null;
  $('#board').addEventListener('pointerdown', (e) => {
    if (e.button !== 2 || activeTab() !== 'analysis' || editing() || !A) return;
    from = pitAt(e) || null;
  });
  $('#board').addEventListener('pointerup', (e) => {
    if (e.button !== 2 || !from) return;
    const to = pitAt(e);
    if (to) toggleShape(from, to);
    from = null;
  });
  window.addEventListener('resize', () => { if (activeTab() === 'analysis' && A && A.cur.pos && !editing()) drawAnalysis(); });
}

// The study as a file: headers, then its one line (what `oware replay` reads).
function studyFile() {
  return [
    '# Event: oware-zero study',
    `# Rules: ${A.rules}`,
    studyText(A),
  ].join('\n') + '\n';
}

// A study file: `# Rules: …` among its headers, then the study's line. A study with an
// illegal move is refused whole, and the board keeps its own.
async function loadStudy(text) {
  let rules = A.rules;
  let line = '';
  for (const raw of text.split('\n')) {
    const t = raw.trim();
    const h = /^#\s*Rules\s*:\s*(\S+)/i.exec(t);
    if (h) rules = h[1];
    if (t && !t.startsWith('#') && !line) line = t;
  }
  let tree;
  try {
    if (!RULES.includes(rules)) throw new Error(`Rules: '${rules}' is not one of ${RULES.join(', ')}`);
    tree = parseStudy(line || START + ';', rules);
    await checkStudy(tree);
  } catch (e) {
    $('#analysis-status').textContent = 'The study was not loaded: the board keeps the one it had.';
    throw new Error(`The study could not be loaded: ${e.message}`);
  }
  record('loading a study');
  A = Object.assign(tree, { synced: gameKey() });
  forgetReview();
  changed();
  await goTo(A.root);
  $('#analysis-status').textContent = 'Study loaded: click a move, or step through it with ▶. Undo (Ctrl+Z) brings back the board before.';
}

async function copyFen() {
  const f = $('#fen');
  try {
    await navigator.clipboard.writeText(f.value);
  } catch (e) {
    f.select();
    document.execCommand('copy');
  }
  say(`Copied the position's text: ${f.value}`);
}

// A position typed or pasted into the position's text box: a new tree from it (the
// server checks it; a bad one is said, and the board stays).
async function typedPosition(text) {
  const fen = text.trim();
  if (!A || !fen || fen === A.cur.pos.fen) return;
  let pos;
  try {
    pos = await api('position', { fen, moves: '', rules: A.rules });
  } catch (e) {
    $('#fen').value = A.cur.pos.fen;
    throw new Error(`The position was not set up: ${e.message}`);
  }
  await usePosition(pos);
}

// ---------- the tab ----------

// A position from the editor: a new tree from it.
async function usePosition(pos) {
  record('a position of your own');
  A = Object.assign(newTree(pos.start, '', A.rules), { synced: gameKey() });
  A.root.pos = pos;
  changed();
  forgetReview();
  await goTo(A.root);
  $('#analysis-status').textContent = 'A position of your own: play moves from it, or Play from here against oware. ' +
    'Undo (Ctrl+Z) brings back the board before.';
}

// Play the position on the board against oware, as the side to move. The game played
// goes into the study as a line when the tab is opened again.
async function playFromHere() {
  if (!A || A.cur.pos.result) return;
  if (trainer) stopTrainer();
  A.playedFrom = pathOf(A.cur);
  await playFrom(A.start, A.playedFrom, A.rules, A.cur.pos.to_move);
  await openTab('play');
}

// The tab opened: the tree follows the game played.
export async function showAnalysis() {
  $('#analysis-status').textContent = '';
  syncTree();
  $('#fen-row').classList.remove('hidden');
  if (!isCurrent()) {
    clearReview();
    const n = mainLine(A).length - 1;
    if (!$('#analysis-status').textContent) {
      $('#analysis-status').textContent = n ? `The game has ${plural(n, 'move')}. Review it to see each move graded.`
        : 'Play moves here, or set up a position.';
    }
  } else drawReview();
  await guarded(() => goTo(A.cur));
}

// The tab closed: the editor does not stay open behind another tab.
export function hideAnalysis() {
  stopInfinite();
  if (editing()) closeEditor();
  $('#fen-row').classList.add('hidden');
  $('#graph-box').classList.add('hidden');
}

// Keys on the analysis board, whatever has the focus but a text field: ← → Home End
// move through the game, Ctrl+Z undoes an edit of the study, Ctrl+Y (or Ctrl+Shift+Z)
// redoes it.
function onKey(e) {
  if (activeTab() !== 'analysis' || !A || editing() || typingIn(e.target)) return;
  const mod = e.ctrlKey || e.metaKey;
  const k = e.key.toLowerCase();
  if (mod && !e.altKey && (k === 'z' || k === 'y')) {
    e.preventDefault();
    if (k === 'z' && !e.shiftKey) undo();
    else redo();
    return;
  }
  if (mod || e.altKey) return;
  const keys = { ArrowLeft: 'prev-ply', ArrowRight: 'next-ply', Home: 'first-ply', End: 'last-ply' };
  if (keys[e.key]) { e.preventDefault(); $('#' + keys[e.key]).click(); }
}

export function bindAnalysis() {
  bindReview(() => A, goTo);
  bindEditor(() => drawAnalysis());
  $('#analyze').addEventListener('click', () => analyze());
  const nav = (f) => () => { if (A && !editing()) guarded(() => goTo(f(A.cur))); };
  const end = (n) => { while (n.children.length) n = n.children[0]; return n; };
  $('#first-ply').addEventListener('click', nav(() => A.root));
  $('#prev-ply').addEventListener('click', nav((n) => n.parent));
  $('#next-ply').addEventListener('click', nav((n) => n.children[0]));
  $('#last-ply').addEventListener('click', nav(end));
  $('#delete-var').addEventListener('click', deleteMove);
  $('#study-undo').addEventListener('click', undo);
  $('#study-redo').addEventListener('click', redo);
  $('#engine-on').addEventListener('change', (e) => { engineOn = e.target.checked; if (A) refreshEngine(); });
  $('#engine-infinite').addEventListener('change', (e) => { infiniteOn = e.target.checked; if (A && activeTab() === 'analysis') refreshEngine(); });
  // A page out of sight does not keep a search thread busy; back in sight, it goes on.
  document.addEventListener('visibilitychange', () => {
    if (!infiniteOn || activeTab() !== 'analysis' || !A || !A.cur.pos) return;
    if (document.hidden) stopInfinite();
    else refreshEngine();
  });
  $('#play-here').addEventListener('click', () => playFromHere());
  $('#edit-position').addEventListener('click', () => startEditor(A.cur.pos, A.rules, usePosition));
  $('#trainer-stop').addEventListener('click', stopTrainer);
  $('#promote').addEventListener('click', () => {
    if (!A || !promotable(A.cur)) return;
    record(`promoting ${label(A.cur)}`);
    promote(A.cur);
    edited();
  });
  for (const b of document.querySelectorAll('#marks .mark')) b.addEventListener('click', () => { if (A) setMark(b.dataset.mark); });
  $('#comment').addEventListener('input', (e) => { if (A) setComment(e.target.value); });
  $('#draw-toggle').addEventListener('click', () => { drawing = !drawing; drawFrom = null; if (A) drawAnalysis(); });
  $('#flip').addEventListener('click', () => { flipped = !flipped; changed(); if (A) drawAnalysis(); });
  $('#copy-fen').addEventListener('click', copyFen);
  $('#fen').addEventListener('change', (e) => guarded(() => typedPosition(e.target.value)));
  $('#study-save').addEventListener('click', () => download('oware-study.txt', studyFile()));
  $('#study-load').addEventListener('click', () => guarded(() => loadStudy($('#study-text').value)));
  $('#study-file').addEventListener('change', async (e) => {
    const f = e.target.files[0];
    if (f) await guarded(async () => loadStudy(await f.text()));
    e.target.value = '';
  });
  bindDrawing();
  document.addEventListener('keydown', onKey);
}
