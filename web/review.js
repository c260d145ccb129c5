// The review of the study board's main line (POST /api/v1/analyze): every move graded,
// the value graph beside the board, a table of the moves, each side's accuracy and
// summary, and "learn from the mistakes": each position where a side slipped, to play
// again until a move as good as the engine's is found.

import { api } from './api.js';
import { mainLine, mainMoves } from './tree.js';
import { $, el, guarded, plural, say, sideName } from './ui.js';

// The review's state: `answer`, the /analyze answer, and `of`, the game (`start;moves`)
// it is of; `tree`, a function that returns the study board's tree, and `goTo`, how to
// go to one of its nodes (both set by `bindReview`); `learn`, learning from the mistakes
// ({list: the slips, k: the one on the board, solved, tries}), or null.
const review = {
  answer: null,
  of: null,
  tree: null,
  goTo: null,
  learn: null,
};

const keyOf = (tree) => tree.start + ';' + mainMoves(tree);

// Whether the review is of the board's main line as it stands.
export const isCurrent = () => review.answer !== null && review.of === keyOf(review.tree());

// The review's entry for the move after `node`, where `node` is on the reviewed line.
export function reviewAfter(node) {
  if (!isCurrent()) return null;
  const i = mainLine(review.tree()).indexOf(node);
  return i >= 0 && i < review.answer.plies.length ? review.answer.plies[i] : null;
}

export function forgetReview() {
  review.answer = null;
  review.of = null;
  clearReview();
}

export async function analyze() {
  await guarded(async () => {
    const tree = review.tree();
    const main = mainLine(tree);
    const moves = mainMoves(tree);
    if (!moves) { $('#analysis-status').textContent = 'There are no moves to review: play some first.'; return; }
    $('#analysis-status').textContent = `Reviewing ${plural(moves.length, 'move')}…`;
    let rv;
    try {
      rv = await api('analyze', { fen: tree.start, moves, rules: tree.rules });
    } catch (e) {
      $('#analysis-status').textContent = `The review failed: ${e.message}`;
      throw e;
    }
    review.answer = rv;
    review.of = keyOf(tree);
    $('#analysis-status').textContent = `${plural(rv.plies.length, 'move')} reviewed: ${rv.simulations} simulations a position, ` +
      `alpha-beta proofs ${rv.exact_depth} plies deep` + (rv.tablebase_seeds ? `, endgame tables to ${rv.tablebase_seeds} seeds.` : '.');
    drawReview();
    let worst = 0;
    rv.plies.forEach((p, i) => { if (p.loss > rv.plies[worst].loss) worst = i; });
    await review.goTo(main[worst]);
  });
}

export function clearReview() {
  stopLearning();
  $('#review-box').classList.add('hidden');
  $('#graph-box').classList.add('hidden');
  $('#analysis-table tbody').replaceChildren();
  $('#graph').replaceChildren();
  $('#summary').replaceChildren();
}

const graphX = (i, n) => (n <= 1 ? 300 : 8 + 584 * i / n);

export function drawReview() {
  $('#review-box').classList.remove('hidden');
  $('#graph-box').classList.remove('hidden');
  const rv = review.answer;
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
  const main = mainLine(review.tree());
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
    tr.addEventListener('click', () => guarded(() => review.goTo(main[i])));
    tb.appendChild(tr);
  });

  const sum = $('#summary');
  sum.replaceChildren();
  for (const side of ['S', 'N']) {
    const mine = rv.plies.filter((p) => p.side === side);
    if (!mine.length) continue;
    const count = (g) => mine.filter((p) => p.grade === g).length;
    // The board's moves may be anyone's: each side by its name.
    const who = sideName(side);
    const acc = accuracy(mine);
    const div = el('div', 'side-summary');
    div.dataset.side = side;
    div.dataset.accuracy = acc.toFixed(1);
    div.append(el('b', '', `${who}: accuracy ${Math.round(acc)}%`), ` · ${count('best') + count('excellent')} best or excellent, ${count('good')} good, ` +
      `${plural(count('inaccuracy'), 'inaccuracy', 'inaccuracies')}, ${plural(count('mistake'), 'mistake')}, ` +
      `${plural(count('blunder'), 'blunder')}`);
    sum.appendChild(div);
  }
  $('#learn').classList.toggle('hidden', !slips().length);
}

// A move's accuracy in per cent, from its value loss (`loss`, in [0, 2]): lichess's curve
// on the expected score, whose drop in percentage points is 50 × loss
// (docs/playing.md, "Accuracy").
const moveAccuracy = (loss) => Math.max(0, Math.min(100, 103.1668 * Math.exp(-0.04354 * 50 * loss) - 3.1669));

// A side's accuracy: the mean of its moves'.
const accuracy = (plies) => plies.reduce((a, p) => a + moveAccuracy(p.loss), 0) / plies.length;

export function drawGraphCursor() {
  const c = $('#graph-cursor');
  const rv = review.answer;
  if (!c || !rv) return;
  const i = mainLine(review.tree()).indexOf(review.tree().cur);
  c.classList.toggle('hidden', i < 0);
  const x = graphX(Math.max(0, i), rv.plies.length);
  c.setAttribute('x1', x);
  c.setAttribute('x2', x);
}

function graphClick(ev) {
  if (!review.answer) return;
  const r = $('#graph').getBoundingClientRect();
  const n = review.answer.plies.length;
  const i = Math.max(0, Math.min(n, Math.round(((ev.clientX - r.left) / r.width * 600 - 8) / (584 / n))));
  guarded(() => review.goTo(mainLine(review.tree())[i]));
}

// ---------- learn from the mistakes ----------

// The review's slips: the indices of the moves graded a mistake or a blunder.
const slips = () => (review.answer ? review.answer.plies.map((p, i) => [p, i]).filter(([p]) => p.grade === 'mistake' || p.grade === 'blunder').map(([, i]) => i) : []);

export const learning = () => review.learn !== null;

// Whether the answer is hidden: the user looks for the better move and has neither found
// it nor asked for the solution (the board, the status line, the engine and the table
// then show no better move).
export const learnHides = () => review.learn !== null && !review.learn.solved;

// What the trainer says now.
export const learnWords = () => $('#learn-text').textContent;

async function startLearning() {
  review.learn = { list: slips(), k: 0, solved: false, tries: 0 };
  $('#learn-box').classList.remove('hidden');
  await showSlip();
  // On a phone the panel is below the board: the board comes back into view.
  const r = $('#board').getBoundingClientRect();
  if (r.top < 0 || r.bottom > window.innerHeight) $('#board-area').scrollIntoView({ block: 'start' });
}

// The position before the slip, on the board, with the task in words.
async function showSlip() {
  const i = review.learn.list[review.learn.k];
  const p = review.answer.plies[i];
  review.learn.solved = false;
  review.learn.tries = 0;
  $('#review-box').classList.add('learning');
  learnSay('going', `Position ${review.learn.k + 1} of ${review.learn.list.length}: ${sideName(p.side)} played ${p.move} here, a ${p.grade}. ` +
    `Find a better move for ${sideName(p.side)}.`);
  await review.goTo(mainLine(review.tree())[i]);
  $('#learn-next').classList.add('hidden');
  $('#learn-show').classList.remove('hidden');
}

// The trainer's words, beside the review and in the status line under the board.
function learnSay(state, text) {
  const t = $('#learn-text');
  t.dataset.state = state;
  t.textContent = text;
  say(text, state === 'wrong' ? 'error' : '');
}

// A move tried on the board: as good as the engine's when the review's best, or graded
// best (or a tie) by a review of that one move from the position (the same simulations).
export async function learnTry(letter) {
  if (review.learn.solved) return;
  const i = review.learn.list[review.learn.k];
  const p = review.answer.plies[i];
  const node = mainLine(review.tree())[i];
  if (!node.pos.legal.includes(letter)) return;
  if (letter === p.move) { learnSay('wrong', `${letter} is the move played, the ${p.grade}: try again.`); return; }
  let good = letter === p.best;
  let words = '';
  if (!good) {
    const r = await api('analyze', { fen: node.pos.fen, moves: letter, rules: review.tree().rules, sims: review.answer.simulations });
    const g = r.plies[0];
    good = g.grade === 'best';
    words = `${letter} is graded ${g.grade} (${g.loss.toFixed(2)} lost).`;
  }
  if (!good) {
    review.learn.tries++;
    learnSay('wrong', `${words} Try again.`);
    return;
  }
  await reveal();
  const last = review.learn.k + 1 >= review.learn.list.length;
  learnSay('solved', `You found it: ${letter} is as good as the engine's ${p.best}` +
    (last ? `. That was the last of ${plural(review.learn.list.length, 'position')}.` : '.'));
}

// The answer shown: the board, the engine and the review's table again.
async function reveal() {
  review.learn.solved = true;
  $('#review-box').classList.remove('learning');
  $('#learn-show').classList.add('hidden');
  $('#learn-next').classList.toggle('hidden', review.learn.k + 1 >= review.learn.list.length);
  await review.goTo(review.tree().cur);
}

async function learnShow() {
  const p = review.answer.plies[review.learn.list[review.learn.k]];
  await reveal();
  learnSay('shown', `The solution: ${p.best} (line ${p.pv}).`);
}

function stopLearning() {
  review.learn = null;
  $('#review-box').classList.remove('learning');
  $('#learn-box').classList.add('hidden');
}

// `tree`: a function that returns the study board's tree; `goTo`: goes to a node.
export function bindReview(tree, goTo) {
  review.tree = tree;
  review.goTo = goTo;
  $('#graph').addEventListener('click', graphClick);
  $('#learn').addEventListener('click', () => guarded(startLearning));
  $('#learn-next').addEventListener('click', () => { review.learn.k++; guarded(showSlip); });
  $('#learn-show').addEventListener('click', () => guarded(learnShow));
  $('#learn-stop').addEventListener('click', () => { stopLearning(); guarded(() => review.goTo(review.tree().cur)); });
}
