// The Analysis tab's study board: a board to study positions on. The game's moves and
// variations make a tree, a study: marks, comments and arrows and circles drawn on the
// board, kept in the page's address and in a file (docs/notation.md, "Study files").
// Beside it the engine panel (engine-panel.js), the endgame trainer (endgame-trainer.js),
// the position editor (editor.js) and the game's review (review.js).

import { api, stopInfinite } from './api.js';
import { animateMove, describePly, drawBoard } from './board.js';
import { bindEditor, closeEditor, editing, startEditor } from './editor.js';
import { bindTrainer, practising, startTrainer, stopTrainer, trainerReply } from './endgame-trainer.js';
import { bindEnginePanel, refreshEngine } from './engine-panel.js';
import { game, playFrom } from './play.js';
import {
  analyze, bindReview, clearReview, drawGraphCursor, drawReview, forgetReview, isCurrent, learnHides, learnTry,
  learnWords, learning, reviewAfter,
} from './review.js';
import {
  addLine, annotated, childOf, cleanComment, labelAt, mainLine, mainMoves, newTree, nodeAt, parseStudy, pathOf,
  promotable, promote, studyText,
} from './tree.js';
import {
  $, RULES, START, activeTab, changed, download, el, guarded, isBusy, openTab, other, pct, plural, say, sideName, sideOf,
  typingIn,
} from './ui.js';

// The study board's state.
const study = {
  // The board's tree (see tree.js), with `synced`: the game played (rules;start;moves) it
  // last followed, and `playedFrom`: the moves to the position "Play from here" played
  // from, if it did. Null until the tab is first opened.
  tree: null,
  // A study a link gave, for then, and the moves to the position the link was on (`at`).
  pending: null,
  pendingAt: null,
  // A study a link gave that was refused: its text, kept in the Study box to correct.
  refused: null,
  // The board seen from the other side; drawing mode (a tap on a pit draws, for phones);
  // the pit a drawing starts from.
  flipped: false,
  drawing: false,
  drawFrom: null,
  // The latest move on the board; older ones are dropped.
  navToken: 0,
  // Undo and redo: the study before each edit, and after each undone one (see `record`);
  // the move whose comment is being typed (one edit), or null.
  past: [],
  future: [],
  typing: null,
};

async function ensurePos(node) {
  if (!node.pos) node.pos = await api('position', { fen: study.tree.start, moves: pathOf(node), rules: study.tree.rules });
  return node.pos;
}

const gameKey = () => { const g = game(); return [g.rules, g.start, g.moves].join(';'); };

// The study board follows the game played. A game that shares the tree's start and
// rules goes into it as a line (a variation where it leaves the tree), so that nothing
// written on the tree is lost: the study's own main line, a game played from it, or a
// game that goes on from its main line. Only another game on a tree with nothing but its
// main line (the earlier game) starts a new tree; a new tree is an edit, and undone as one.
function syncTree() {
  const g = game();
  const key = gameKey();
  if (study.pending) {
    [study.tree, study.pending] = [study.pending, null];
    if (study.tree.start === g.start && study.tree.rules === g.rules && g.moves && !nodeAt(study.tree, g.moves)) addLine(study.tree, g.moves);
  } else if (study.tree && study.tree.synced === key) {
    return;
  } else if (study.tree && study.tree.start === g.start && study.tree.rules === g.rules && (annotated(study.tree) || study.tree.playedFrom !== undefined
      || g.moves.startsWith(mainMoves(study.tree)) || mainMoves(study.tree).startsWith(g.moves))) {
    let n = nodeAt(study.tree, g.moves);
    if (!n) {
      record(study.tree.playedFrom !== undefined ? `the game played from ${labelAt(study.tree.playedFrom)}` : 'the game played');
      n = addLine(study.tree, g.moves);
      if (study.tree.playedFrom !== undefined && annotated(study.tree)) {
        $('#analysis-status').textContent = `The game played from ${labelAt(study.tree.playedFrom)} is in the study as a line: ` +
          'the study is as it was, with the game added.';
      }
    }
    study.tree.cur = n;
  } else {
    if (study.tree && (study.tree.root.children.length || annotated(study.tree))) record('the board before the game played');
    study.tree = newTree(g.start, g.moves, g.rules);
  }
  study.tree.synced = key;
  if (study.pendingAt !== null) {
    study.tree.cur = nodeAt(study.tree, study.pendingAt) || study.tree.cur;
    study.pendingAt = null;
  }
}

const label = (n) => labelAt(pathOf(n));

// The side at the bottom of the board.
const bottom = () => (study.flipped ? other(game().human) : game().human);

async function goTo(node, animate) {
  if (!node) return;
  const tree = study.tree;
  const prev = tree.cur;
  const token = ++study.navToken;
  await ensurePos(node);
  // A later click was answered first: its position stays on the board.
  if (token !== study.navToken || study.tree !== tree) return;
  if (tree.cur !== node) study.typing = null;
  tree.cur = node;
  // The link holds the move on the board (`at`).
  changed();
  if (animate && node.parent === prev && prev.pos) {
    const ply = node.pos.plies[node.pos.plies.length - 1];
    await animateMove(prev.pos, node.move, node.pos, ply, { bottom: bottom(), fen: node.pos.fen });
    if (token !== study.navToken) return;
  }
  drawStudy();
  refreshEngine();
}

function drawStudy() {
  const node = study.tree.cur;
  const pos = node.pos;
  const marks = {};
  // While the user looks for a better move the review's answer stays hidden.
  const hide = learnHides();
  const r = hide ? null : reviewAfter(node);
  if (r) {
    if (r.best === r.move) marks[r.move] = ['played best', 'played · best'];
    else { marks[r.move] = ['played', 'played']; marks[r.best] = ['best', 'better']; }
  } else if (node.move) marks[node.move] = ['last', ''];
  if (study.drawFrom) marks[study.drawFrom] = ['draw-from', ''];
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
  const n = study.tree.cur;
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
  $('#draw-toggle').classList.toggle('on', study.drawing);
  $('#draw-toggle').setAttribute('aria-pressed', String(study.drawing));
  $('#flip').setAttribute('aria-pressed', String(study.flipped));
  // Not while the user types a study there.
  if (document.activeElement !== $('#study-text')) $('#study-text').value = study.refused !== null ? study.refused : studyFile();
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
    const s = el('span', 'mv' + (n === study.tree.cur ? ' cur' : '') + (sideOf(n.move) === 'S' ? ' south' : ' north'),
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
  if (study.tree.root.comment) box.append(el('span', 'comment', study.tree.root.comment), ' ');
  if (!study.tree.root.children.length) box.appendChild(el('span', 'muted small', 'No moves yet: click a pit.'));
  line(study.tree.root, box, true);
  const cur = box.querySelector('.mv.cur');
  if (cur && (cur.offsetTop < box.scrollTop || cur.offsetTop > box.scrollTop + box.clientHeight - 20)) {
    box.scrollTop = cur.offsetTop - box.clientHeight / 2;
  }
}

export async function onStudyPit(letter) {
  if (!study.tree || isBusy()) return;
  if (study.drawing) { drawTap(letter); return; }
  if (learning()) { await guarded(() => learnTry(letter)); return; }
  const pos = study.tree.cur.pos;
  if (!pos || pos.result || !pos.legal.includes(letter)) return;
  await guarded(async () => {
    if (!study.tree.cur.children.some((c) => c.move === letter)) record(`the move ${labelAt(pathOf(study.tree.cur) + letter)}`);
    const node = childOf(study.tree.cur, letter);
    changed();
    await goTo(node, true);
    if (practising()) await trainerReply();
  });
}

// The board's tree as the page's address holds it (`study`, the study's text) when it is
// more than the game played; the move on the board (`at`: the moves to it); the board's
// side (`flip`).
export function studyParams(q) {
  const tree = study.tree || study.pending;
  const g = game();
  if (tree && (annotated(tree) || tree.start !== g.start || mainMoves(tree) !== g.moves)) q.set('study', studyText(tree));
  if (study.tree) q.set('at', pathOf(study.tree.cur));
  else if (study.pendingAt !== null) q.set('at', study.pendingAt);
  if (study.flipped) q.set('flip', '1');
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
// corrected). Returns {start, moves} of its main line, or {error}.
export async function initStudy(q, rules) {
  study.flipped = q.get('flip') === '1';
  if (q.has('at') && /^[A-Fa-f]*$/.test(q.get('at'))) study.pendingAt = q.get('at');
  const text = q.get('study');
  if (!text) return {};
  let tree;
  try {
    tree = parseStudy(text, rules);
    await checkStudy(tree);
  } catch (e) {
    study.refused = text;
    $('#study-box').open = true;
    return { error: `The link's study could not be loaded: ${e.message.replace(/\.$/, '')}. Its text is in the Study box, to correct and Load.` };
  }
  study.pending = tree;
  return { start: tree.start, moves: mainMoves(tree) };
}

// Edited: the tree and the page's address drawn again.
function edited() {
  changed();
  drawTree();
  drawNotes();
}

function setMark(mark) {
  const n = study.tree.cur;
  if (!n.parent) return;
  record(`the mark on ${label(n)}`);
  n.mark = n.mark === mark ? '' : mark;
  edited();
}

// Typing a comment is one edit until another move or another edit.
function setComment(text) {
  if (study.typing !== study.tree.cur) {
    record(study.tree.cur.parent ? `the comment on ${label(study.tree.cur)}` : 'the comment on the start');
    study.typing = study.tree.cur;
  }
  study.tree.cur.comment = cleanComment(text);
  edited();
}

// A shape from `from` to `to` (the same pit: a circle) drawn, or taken away if it is
// there already.
function toggleShape(from, to) {
  const n = study.tree.cur;
  const target = from === to ? null : to;
  const i = n.shapes.findIndex((s) => s.from === from && s.to === target);
  record(`${i >= 0 ? 'removing ' : ''}${target ? `the arrow ${from}>${target}` : `the circle on ${from}`}`);
  if (i >= 0) n.shapes.splice(i, 1);
  else n.shapes.push({ from, to: target });
  drawStudy();
  changed();
}

// Deletes the move on the board and what follows it, and says what went: the moves,
// comments, marks and drawings (Undo brings them back).
function deleteMove() {
  const n = study.tree && study.tree.cur;
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

const snapshot = (what) => ({ what, text: studyText(study.tree), rules: study.tree.rules, at: pathOf(study.tree.cur), playedFrom: study.tree.playedFrom });

// Called before each edit of the tree.
function record(what) {
  if (!study.tree) return;
  study.past.push(snapshot(what));
  if (study.past.length > MAX_UNDO) study.past.shift();
  study.future = [];
  study.typing = null;
  study.refused = null;
  drawUndo();
}

// The tree a snapshot holds, at its move; the positions the board knows are kept.
function restore(s) {
  const tree = parseStudy(s.text, s.rules);
  if (study.tree && study.tree.start === tree.start && study.tree.rules === tree.rules) {
    const keep = (from, to) => {
      to.pos = from.pos;
      for (const c of to.children) {
        const f = from.children.find((x) => x.move === c.move);
        if (f) keep(f, c);
      }
    };
    keep(study.tree.root, tree.root);
  }
  tree.cur = nodeAt(tree, s.at) || tree.root;
  tree.playedFrom = s.playedFrom;
  // The game played stays the one this tree follows: going back to the tab keeps it.
  tree.synced = gameKey();
  study.tree = tree;
  study.typing = null;
  forgetReviewUnlessCurrent();
}

function forgetReviewUnlessCurrent() {
  if (!isCurrent()) clearReview();
}

async function undoRedo(from, to, done) {
  if (!study.tree || !from.length || editing()) return;
  const s = from.pop();
  to.push(snapshot(s.what));
  restore(s);
  changed();
  await goTo(study.tree.cur);
  say(`${done}: ${s.what}.`);
}

const undo = () => guarded(() => undoRedo(study.past, study.future, 'Undone'));
const redo = () => guarded(() => undoRedo(study.future, study.past, 'Redone'));

function drawUndo() {
  const u = $('#study-undo'), r = $('#study-redo');
  u.disabled = !study.past.length;
  r.disabled = !study.future.length;
  u.title = study.past.length ? `undo ${study.past[study.past.length - 1].what} (Ctrl+Z)` : 'nothing to undo (Ctrl+Z)';
  r.title = study.future.length ? `redo ${study.future[study.future.length - 1].what} (Ctrl+Y)` : 'nothing to redo (Ctrl+Y)';
}

// Drawing by taps: the first pit, then the pit the arrow goes to (the same one: a circle).
function drawTap(letter) {
  if (!study.drawFrom) { study.drawFrom = letter; drawStudy(); return; }
  const from = study.drawFrom;
  study.drawFrom = null;
  toggleShape(from, letter);
}

// Right-button drags on the board: an arrow from the pit pressed to the pit released;
// a right click on a pit: a circle.
function bindDrawing() {
  const pitAt = (e) => document.elementFromPoint(e.clientX, e.clientY)?.closest('.pit')?.dataset.letter;
  let from = null;
  $('#board').addEventListener('pointerdown', (e) => {
    if (e.button !== 2 || activeTab() !== 'analysis' || editing() || !study.tree) return;
    from = pitAt(e) || null;
  });
  $('#board').addEventListener('pointerup', (e) => {
    if (e.button !== 2 || !from) return;
    const to = pitAt(e);
    if (to) toggleShape(from, to);
    from = null;
  });
  window.addEventListener('resize', () => { if (activeTab() === 'analysis' && study.tree && study.tree.cur.pos && !editing()) drawStudy(); });
}

// The study as a file: headers, then its one line (what `oware replay` reads).
function studyFile() {
  return [
    '# Event: oware-zero study',
    `# Rules: ${study.tree.rules}`,
    studyText(study.tree),
  ].join('\n') + '\n';
}

// A study file: `# Rules: …` among its headers, then the study's line. A study with an
// illegal move is refused whole, and the board keeps its own.
async function loadStudy(text) {
  let rules = study.tree.rules;
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
  study.tree = Object.assign(tree, { synced: gameKey() });
  forgetReview();
  changed();
  await goTo(study.tree.root);
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
  if (!study.tree || !fen || fen === study.tree.cur.pos.fen) return;
  let pos;
  try {
    pos = await api('position', { fen, moves: '', rules: study.tree.rules });
  } catch (e) {
    $('#fen').value = study.tree.cur.pos.fen;
    throw new Error(`The position was not set up: ${e.message}`);
  }
  await usePosition(pos);
}

// ---------- the tab ----------

// A position from the editor: a new tree from it.
async function usePosition(pos) {
  record('a position of your own');
  study.tree = Object.assign(newTree(pos.start, '', study.tree.rules), { synced: gameKey() });
  study.tree.root.pos = pos;
  changed();
  forgetReview();
  await goTo(study.tree.root);
  $('#analysis-status').textContent = 'A position of your own: play moves from it, or Play from here against oware. ' +
    'Undo (Ctrl+Z) brings back the board before.';
}

// Play the position on the board against oware, as the side to move. The game played
// goes into the study as a line when the tab is opened again.
async function playFromHere() {
  if (!study.tree || study.tree.cur.pos.result) return;
  if (practising()) stopTrainer();
  study.tree.playedFrom = pathOf(study.tree.cur);
  await playFrom(study.tree.start, study.tree.playedFrom, study.tree.rules, study.tree.cur.pos.to_move);
  await openTab('play');
}

// The tab opened: the tree follows the game played.
export async function showStudy() {
  $('#analysis-status').textContent = '';
  syncTree();
  $('#fen-row').classList.remove('hidden');
  if (!isCurrent()) {
    clearReview();
    const n = mainLine(study.tree).length - 1;
    if (!$('#analysis-status').textContent) {
      $('#analysis-status').textContent = n ? `The game has ${plural(n, 'move')}. Review it to see each move graded.`
        : 'Play moves here, or set up a position.';
    }
  } else drawReview();
  await guarded(() => goTo(study.tree.cur));
}

// The tab closed: the editor does not stay open behind another tab.
export function hideStudy() {
  stopInfinite();
  if (editing()) closeEditor();
  $('#fen-row').classList.add('hidden');
  $('#graph-box').classList.add('hidden');
}

// Keys on the study board, whatever has the focus but a text field: ← → Home End
// move through the game, Ctrl+Z undoes an edit of the study, Ctrl+Y (or Ctrl+Shift+Z)
// redoes it.
function onKey(e) {
  if (activeTab() !== 'analysis' || !study.tree || editing() || typingIn(e.target)) return;
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

export function bindStudy() {
  bindReview(() => study.tree, goTo);
  bindEditor(() => drawStudy());
  $('#analyze').addEventListener('click', () => analyze());
  const nav = (f) => () => { if (study.tree && !editing()) guarded(() => goTo(f(study.tree.cur))); };
  const end = (n) => { while (n.children.length) n = n.children[0]; return n; };
  $('#first-ply').addEventListener('click', nav(() => study.tree.root));
  $('#prev-ply').addEventListener('click', nav((n) => n.parent));
  $('#next-ply').addEventListener('click', nav((n) => n.children[0]));
  $('#last-ply').addEventListener('click', nav(end));
  $('#delete-var').addEventListener('click', deleteMove);
  $('#study-undo').addEventListener('click', undo);
  $('#study-redo').addEventListener('click', redo);
  bindEnginePanel({ tree: () => study.tree, play: onStudyPit, practising, practise: startTrainer });
  $('#play-here').addEventListener('click', () => playFromHere());
  $('#edit-position').addEventListener('click', () => startEditor(study.tree.cur.pos, study.tree.rules, usePosition));
  bindTrainer({ tree: () => study.tree, draw: drawStudy, goTo, record });
  $('#promote').addEventListener('click', () => {
    if (!study.tree || !promotable(study.tree.cur)) return;
    record(`promoting ${label(study.tree.cur)}`);
    promote(study.tree.cur);
    edited();
  });
  for (const b of document.querySelectorAll('#marks .mark')) b.addEventListener('click', () => { if (study.tree) setMark(b.dataset.mark); });
  $('#comment').addEventListener('input', (e) => { if (study.tree) setComment(e.target.value); });
  $('#draw-toggle').addEventListener('click', () => { study.drawing = !study.drawing; study.drawFrom = null; if (study.tree) drawStudy(); });
  $('#flip').addEventListener('click', () => { study.flipped = !study.flipped; changed(); if (study.tree) drawStudy(); });
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
