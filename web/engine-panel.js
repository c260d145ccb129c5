// The study board's engine panel: the network's lines for the position on the board
// (800 simulations, or an infinite analysis that goes on until stopped), the evaluation
// bar, and the endgame tables' verdict on each move, with the offer to practise a win
// the tables prove (endgame-trainer.js).

import { cancelEngine, evaluate, infinite, stopInfinite } from './api.js';
import { drawEvalBar, tablesWords } from './board.js';
import { learnHides } from './review.js';
import { pathOf } from './tree.js';
import { $, activeTab, el, pct, plural, sideName } from './ui.js';

const ENGINE_SIMS = 800;
// Lines with fewer visits show no score.
const FEW_VISITS = 10;

// The panel's state. `board`: what it shows and answers to, given by `bindEnginePanel`.
const enginePanel = {
  on: true,
  // Infinite analysis: the server searches the position on until the page stops it
  // (another position, another tab, the box unticked) or its time limit (`maxSeconds`,
  // from /health) is reached, and sends its lines a few times a second.
  infinite: false,
  maxSeconds: null,
  board: null,
};

// A number as the page writes it: 3 200.
const count = (n) => String(n).replace(/\B(?=(\d{3})+$)/g, ' ');
// Visits in a line's narrow column: 8 741, 63k, 1.2M (an infinite analysis counts high).
const visitWords = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M visits` : n >= 1e4 ? `${Math.round(n / 1e3)}k visits`
  : plural(n, 'visit').replace(/^\d+/, count));

// The lines, the tables and the evaluation bar of the position on the board, searched
// again.
export function refreshEngine() {
  const { on, infinite: infiniteOn, maxSeconds, board } = enginePanel;
  const tree = board.tree();
  const pos = tree.cur.pos;
  const lines = $('#lines');
  const tables = $('#tables');
  const stats = $('#engine-stats');
  stopInfinite();
  stats.classList.toggle('hidden', !(infiniteOn && on));
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
  if (!on && !board.practising()) {
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
  const body = { fen: tree.start, moves: pathOf(tree.cur), rules: tree.rules };
  if (infiniteOn && on) infinite(body, (u) => { if (board.tree().cur.pos === pos) showInfinite(u, pos); });
  else evaluate(body, pos, ENGINE_SIMS, (b) => showEngine(b, pos));
}

// An update of the infinite analysis: the lines, and its figures beside them.
function showInfinite(u, pos) {
  showEngine(u, pos);
  if (u.error) return;
  const stats = $('#engine-stats');
  const secs = u.elapsed_ms / 1000;
  // Visits kept from the analysis of the position before (a step along its line).
  const kept = u.reused_visits ? ` · ${count(u.reused_visits)} kept` : '';
  stats.textContent = `${count(u.simulations)} simulations${kept} · ${count(u.nps)}/s · depth ${u.depth} · ${secs.toFixed(secs < 10 ? 1 : 0)} s`;
  stats.title = 'Simulations so far' + (kept ? ', visits kept from the analysis of the move before' : '')
    + ', simulations a second, the deepest position searched (plies ahead), time';
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
    li.addEventListener('click', () => enginePanel.board.play(l.move));
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
    const canTrain = b.tablebase.outcome === 'win' && !enginePanel.board.practising();
    if (canTrain) {
      const btn = el('button', 'train', 'Practise this win against perfect defence');
      btn.id = 'trainer-start';
      btn.addEventListener('click', () => enginePanel.board.practise(b.tablebase, pos));
      tables.appendChild(btn);
    }
  }
}

// The server's limit on an infinite analysis, from `health` (the /health answer, or null).
export function initEnginePanel(health) {
  if (health) enginePanel.maxSeconds = health.limits.analysis_max_seconds;
}

// `board`: {tree(): the study's tree, whose move on the board the panel shows (null until
// the tab is first opened); play(move): a line clicked, played on the board;
// practising(): whether the endgame trainer is on; practise(tb, pos): the trainer started
// on the win the tables prove (`tb`, their answer for `pos`)}.
export function bindEnginePanel(board) {
  enginePanel.board = board;
  $('#engine-on').addEventListener('change', (e) => { enginePanel.on = e.target.checked; if (board.tree()) refreshEngine(); });
  $('#engine-infinite').addEventListener('change', (e) => {
    enginePanel.infinite = e.target.checked;
    if (board.tree() && activeTab() === 'analysis') refreshEngine();
  });
  // A page out of sight does not keep a search thread busy; back in sight, it goes on.
  document.addEventListener('visibilitychange', () => {
    const tree = board.tree();
    if (!enginePanel.infinite || activeTab() !== 'analysis' || !tree || !tree.cur.pos) return;
    if (document.hidden) stopInfinite();
    else refreshEngine();
  });
}
