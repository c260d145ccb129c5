// The Training tab: every run under the server's --runs folder with its state, live
// charts of the runs picked (the page asks GET /api/v1/runs… again every few seconds
// while the tab is open and the page is seen), runs compared on the same charts by
// iterations, games or hours, and the focused run's checkpoints and latest self-play
// games, each of which opens on the study board.

import { api } from './api.js';
import { drawChart, fmt } from './chart.js';
import { $, START, changed, el, plural } from './ui.js';

// Seconds between two looks at the runs.
const POLL_MS = 3000;
const COLORS = ['#b5541c', '#1c7ed6', '#2f9e44', '#862e9c', '#e8590c', '#0b7285', '#c2255c', '#5c940d'];
const X_MODES = {
  iteration: { label: 'iteration', x: (c, i) => c.iteration[i] },
  games: { label: 'games', x: (c, i) => c.total_games && c.total_games[i] },
  hours: { label: 'hours', x: (c, i) => c.wall_seconds && c.wall_seconds[i] / 3600 },
};
// The charts: their columns, an interval's columns, and whether the line is smoothed
// (evaluations are sparse and carry their own intervals: not smoothed).
const CHARTS = [
  { id: 'policy_loss', title: 'Policy loss (cross-entropy)', smooth: true },
  { id: 'value_loss', title: 'Value loss (W/D/L cross-entropy)', smooth: true },
  { id: 'store_diff_loss', title: 'Store-difference loss', smooth: true },
  { id: 'value_accuracy', title: 'Value accuracy (W/D/L argmax)', smooth: true },
  { id: 'policy_accuracy', title: "Policy accuracy (the network's likeliest move is the target's)", smooth: true },
  { id: 'policy_entropy', title: 'Policy entropy', smooth: true },
  { id: 'eval_elo', title: 'Elo against the evaluation opponent, 95% interval', band: ['eval_elo_low', 'eval_elo_high'], byOpponent: true },
  { id: 'eval_score', title: 'Evaluation score (wins + draws/2)', byOpponent: true },
  { id: 'pool_elo', title: "Rating in the run's pool, 95% interval", band: ['pool_elo_low', 'pool_elo_high'] },
  { id: 'tb_outcome_accuracy', title: 'Perfect-play accuracy (tables)' },
  { id: 'simulations_per_second', title: 'Self-play simulations per second', smooth: true },
  { id: 'games_per_second', title: 'Games per second of run clock', smooth: true },
  { id: 'learning_rate', title: 'Learning rate' },
  { id: 'avg_game_length', title: 'Self-play game length (plies)', smooth: true },
  { id: 'draw_rate', title: 'Self-play draw rate', smooth: true },
];

// The Training tab's state: the runs read, those on the charts, the charts' settings
// and the polling.
const training = {
  runs: [],            // the last GET /api/v1/runs
  picked: [],          // ids on the charts, in the order picked (their colours)
  focus: null,         // the run whose checkpoints and games are shown
  detailFor: null,     // the run whose checkpoints and games were fetched last
  data: new Map(),     // id → { rows, cols }
  x: 'iteration',
  xLog: false,
  smoothing: 0.6,
  filter: '',
  timer: null,
  open: false,
  started: false,
  polls: 0,
};

const colorOf = (id) => COLORS[training.picked.indexOf(id) % COLORS.length];

function hms(s) {
  if (s === null || s === undefined) return '–';
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : `${m} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
}

function leftWords(r) {
  if (r.seconds_left !== null && r.seconds_left !== undefined) return hms(r.seconds_left);
  if (r.iterations_left !== null && r.iterations_left !== undefined) return plural(r.iterations_left, 'iteration');
  return '–';
}

function configWords(c) {
  if (!c) return '';
  const parts = [];
  if (c['model.width'] !== undefined) parts.push(`width ${c['model.width']}` + (c['model.blocks'] !== undefined ? ` × ${plural(c['model.blocks'], 'block')}` : ''));
  if (c['search.simulations'] !== undefined) parts.push(`${c['search.simulations']} sims`);
  if (c['selfplay.games_per_iteration'] !== undefined) parts.push(`${c['selfplay.games_per_iteration']} games/it`);
  if (c['threads'] !== undefined) parts.push(`${c['threads'] || 'all'} threads`);
  if (c['game.rules'] && c['game.rules'] !== 'abapa') parts.push(c['game.rules']);
  return parts.join(' · ');
}

// One machine of a run's record (machines.jsonl) in words.
function machineWords(m) {
  const parts = [m.cpu || 'CPU not known'];
  if (m.logical_cores) parts.push(plural(m.logical_cores, 'logical core'));
  parts.push(Array.isArray(m.vector) && m.vector.length ? m.vector.join(' ') : 'no AVX2');
  if (m.os) parts.push(m.os);
  return parts.join(' · ');
}

// The machines a run trained on, leg by leg (a run moved by its capsule has several).
function drawMachines(r) {
  const box = $('#detail-machine');
  const legs = Array.isArray(r.machines) ? r.machines : [];
  if (!legs.length) {
    box.replaceChildren(el('p', '', r.kind === 'metrics-file' ? '' : 'Machine: not recorded (a run from before machines.jsonl)'));
    return;
  }
  if (legs.length === 1) {
    box.replaceChildren(el('p', 'machine-leg', 'Machine: ' + machineWords(legs[0])));
    return;
  }
  const list = el('ol', 'plain-list machines');
  for (const m of legs) {
    const from = m.iteration ? `from iteration ${m.iteration} (${hms(m.run_seconds)} of run clock)` : 'from the start';
    list.appendChild(el('li', 'machine-leg', `${from}: ${machineWords(m)}`));
  }
  box.replaceChildren(el('p', '', `Machines, ${plural(legs.length, 'leg')}:`), list);
}

// ---- the runs' table ----

// The rows are made once per run and updated in place, so that a click is never lost
// to a row drawn again under the pointer.
const rowsById = new Map();

function makeRow(id) {
  const tr = el('tr');
  tr.dataset.run = id;
  const pick = el('input');
  pick.type = 'checkbox';
  pick.title = 'on the charts';
  pick.setAttribute('aria-label', `compare ${id}`);
  pick.addEventListener('click', (ev) => { ev.stopPropagation(); togglePick(id, pick.checked); });
  const first = el('td');
  first.append(pick, el('span', 'swatch'));
  tr.append(first, el('td', 'run-id', id), el('td'));
  for (let i = 0; i < 4; i++) tr.appendChild(el('td', 'num'));
  tr.appendChild(el('td', 'small'));
  tr.addEventListener('click', () => focusRun(id));
  return tr;
}

function fillRow(tr, r) {
  const c = tr.children;
  tr.classList.toggle('sel', r.id === training.focus);
  const pick = c[0].firstChild;
  pick.checked = training.picked.includes(r.id);
  c[0].lastChild.style.background = pick.checked ? colorOf(r.id) : 'transparent';
  const state = el('span', 'run-state st-' + r.state, r.state);
  if (r.problem) state.title = r.problem;
  c[2].replaceChildren(state);
  if (r.bad_rows > 0) c[2].appendChild(el('span', 'muted small', ` ${plural(r.bad_rows, 'row')} unread`));
  if (r.problem) c[2].appendChild(el('div', 'small error-text', r.problem));
  c[3].textContent = r.iteration === null ? '–' : String(r.iteration);
  c[4].textContent = hms(r.wall_seconds);
  c[5].textContent = fmt(r.games);
  c[6].textContent = leftWords(r);
  c[7].textContent = configWords(r.config);
}

function drawRuns() {
  const body = $('#runs-table tbody');
  const f = training.filter.toLowerCase();
  const shown = training.runs.filter((r) => !f || r.id.toLowerCase().includes(f));
  const keep = new Set(shown.map((r) => r.id));
  for (const [id, tr] of rowsById) if (!keep.has(id)) { tr.remove(); rowsById.delete(id); }
  let at = body.firstElementChild;
  for (const r of shown) {
    if (!rowsById.has(r.id)) rowsById.set(r.id, makeRow(r.id));
    const tr = rowsById.get(r.id);
    fillRow(tr, r);
    // In the list's order: a row out of place is moved (the same element).
    if (tr === at) at = at.nextElementSibling;
    else body.insertBefore(tr, at);
  }
  const n = training.runs.length;
  const running = training.runs.filter((r) => r.state === 'running').length;
  $('#runs-count').textContent = n === 0 ? '' : `${plural(n, 'run')}, ${running} training` +
    (shown.length < n ? `; ${shown.length} shown` : '');
}

function togglePick(id, on) {
  training.picked = training.picked.filter((p) => p !== id);
  if (on) training.picked.push(id);
  changed();
  drawRuns();
  poll();
}

function focusRun(id) {
  training.focus = id;
  if (!training.picked.includes(id)) training.picked.push(id);
  changed();
  drawRuns();
  poll();
  drawDetail(true);
}

// ---- the data: rows appended as the run writes them ----

async function fetchMetrics(id) {
  const have = training.data.get(id);
  // The last row again: a run resumed after a kill may have rewritten it.
  const from = have ? Math.max(0, have.rows - 1) : 0;
  const m = await api(`runs/metrics?run=${encodeURIComponent(id)}&from=${from}`);
  if (!have || m.rows < from || m.from === 0) {
    training.data.set(id, { rows: m.rows, cols: m.columns, problem: m.problem });
    return;
  }
  for (const [k, v] of Object.entries(m.columns)) {
    have.cols[k] = (have.cols[k] || []).slice(0, m.from).concat(v);
  }
  have.rows = m.rows;
  have.problem = m.problem;
}

// The series of chart `c` for run `id`: one per opponent where the chart is by opponent.
function seriesOf(c, id) {
  const d = training.data.get(id);
  if (!d || !d.cols[c.id]) return [];
  const cols = d.cols;
  const xOf = X_MODES[training.x].x;
  const groups = new Map();
  for (let i = 0; i < d.rows; i++) {
    const y = cols[c.id][i];
    const x = xOf(cols, i);
    if (y === null || y === undefined || x === null || x === undefined) continue;
    const opp = c.byOpponent ? (cols.eval_opponent[i] || '') : '';
    if (!groups.has(opp)) groups.set(opp, { points: [], band: [] });
    const g = groups.get(opp);
    g.points.push([x, y, opp]);
    if (c.band) {
      const [lo, hi] = [cols[c.band[0]] && cols[c.band[0]][i], cols[c.band[1]] && cols[c.band[1]][i]];
      if (lo !== null && hi !== null && lo !== undefined && hi !== undefined) g.band.push([x, lo, hi]);
    }
  }
  const dashes = ['', '6 3', '2 3', '8 3 2 3'];
  return [...groups.entries()].map(([opp, g], k) => ({
    label: id + (opp && groups.size > 1 ? ` vs ${opp}` : ''),
    color: colorOf(id),
    dash: dashes[k % dashes.length],
    points: g.points,
    band: g.band,
    smooth: !!c.smooth,
    markers: !c.smooth,
  }));
}

function drawCharts() {
  const box = $('#charts');
  for (const c of CHARTS) {
    let card = box.querySelector(`[data-chart="${c.id}"]`);
    const series = training.picked.flatMap((id) => seriesOf(c, id));
    if (!series.length) { if (card) card.classList.add('hidden'); continue; }
    if (!card) {
      card = el('div', 'chart');
      card.dataset.chart = c.id;
      card.append(el('h3', 'chart-title', c.title), el('div', 'chart-box'));
      box.appendChild(card);
    }
    card.classList.remove('hidden');
    drawChart(card.querySelector('.chart-box'), series, { xLog: training.xLog, xLabel: X_MODES[training.x].label, smoothing: training.smoothing });
  }
  const legend = $('#chart-legend');
  legend.replaceChildren();
  for (const id of training.picked) {
    const d = training.data.get(id);
    const item = el('span', 'legend-item');
    const sw = el('span', 'swatch');
    sw.style.background = colorOf(id);
    item.append(sw, document.createTextNode(`${id}` + (d ? ` (${plural(d.rows, 'iteration')})` : '')));
    legend.appendChild(item);
  }
  $('#charts-empty').classList.toggle('hidden', training.picked.length > 0);
}

// ---- the focused run: checkpoints and games ----

async function drawDetail(now) {
  const box = $('#run-detail');
  const r = training.runs.find((x) => x.id === training.focus);
  box.classList.toggle('hidden', !r);
  if (!r) return;
  $('#detail-title').textContent = r.id;
  const c = r.config || {};
  $('#detail-config').textContent = Object.entries(c).map(([k, v]) => `${k} = ${v}`).join(' · ') || 'no config (a metrics file alone)';
  drawMachines(r);
  if (r.kind === 'metrics-file') {
    for (const id of ['#checkpoints', '#latest-games']) delete $(id).dataset.shown;
    $('#checkpoints').replaceChildren(el('li', 'muted', 'none: a metrics file alone'));
    $('#latest-games').replaceChildren();
    return;
  }
  // Checkpoints and games change once an iteration: every third look is enough, once
  // the focused run's are shown.
  if (!now && training.detailFor === r.id && training.polls % 3 !== 0) return;
  training.detailFor = r.id;
  const [cks, games] = await Promise.all([
    api(`runs/checkpoints?run=${encodeURIComponent(r.id)}`),
    api(`runs/games?run=${encodeURIComponent(r.id)}&n=12`),
  ]);
  if (training.focus !== r.id) return;
  drawCheckpoints(r, cks.checkpoints);
  drawGames(games);
}

// A list is rebuilt only when what it shows changed: a poll that finds the same
// checkpoints (or games) leaves the elements alone, so a link the user is about to
// click, or has focused, is never swapped for a copy under the pointer.
function unchanged(ol, what) {
  const key = JSON.stringify(what);
  if (ol.dataset.shown === key) return true;
  ol.dataset.shown = key;
  return false;
}

function drawCheckpoints(r, list) {
  const ol = $('#checkpoints');
  if (unchanged(ol, [r.id, list])) return;
  ol.replaceChildren();
  if (!list.length) ol.appendChild(el('li', 'muted', 'none yet'));
  for (const ck of list) {
    const li = el('li', 'checkpoint');
    li.dataset.name = ck.name;
    const rating = ck.pool_elo === null ? '' : ` · pool ${fmt(ck.pool_elo)}` +
      (ck.pool_elo_low !== null && ck.pool_elo_high !== null ? ` [${fmt(ck.pool_elo_low)}, ${fmt(ck.pool_elo_high)}]` : '');
    li.appendChild(el('span', 'ck-name', ck.name + (ck.latest ? ' (latest)' : '') + rating));
    const model = `${r.id}/checkpoints/${ck.name}`;
    const play = el('a', 'button-link play-ck', 'Play');
    play.href = `/?model=${encodeURIComponent(model)}`;
    play.title = 'play against this checkpoint';
    const analyse = el('a', 'button-link analyse-ck', 'Analyse');
    analyse.href = `/?tab=analysis&model=${encodeURIComponent(model)}`;
    analyse.title = 'the analysis board with this checkpoint as the engine';
    li.append(play, analyse);
    ol.appendChild(li);
  }
}

function drawGames(g) {
  const ol = $('#latest-games');
  if (unchanged(ol, g)) return;
  ol.replaceChildren();
  $('#games-title').textContent = g.file ? `Latest self-play games (${g.file}, ${plural(g.games_in_file, 'game')})` : 'Latest self-play games';
  if (!g.games.length) ol.appendChild(el('li', 'muted', 'none kept'));
  for (const game of g.games) {
    const li = el('li', 'sp-game');
    const q = new URLSearchParams({ tab: 'analysis', moves: game.moves });
    if (game.start !== START) q.set('start', game.start);
    if (g.rules && g.rules !== 'abapa') q.set('rules', g.rules);
    const a = el('a', 'open-game', `game ${game.index + 1}: ${game.plies} plies`);
    a.href = '/?' + q.toString();
    a.title = 'open it on the analysis board';
    li.append(a, el('span', 'muted mono', ' ' + game.moves.slice(0, 24) + (game.moves.length > 24 ? '…' : '')));
    ol.appendChild(li);
  }
}

// ---- the loop ----

async function poll() {
  if (!training.open) return;
  training.polls++;
  try {
    const list = await api('runs');
    training.runs = list.runs;
    $('#runs-root').textContent = list.exists ? `under ${list.root}` + (list.truncated ? ' (the first runs found: the folder has more)' : '')
      : `${list.root}: no such folder (oware serve --runs DIR)`;
    if (!training.started) {
      training.started = true;
      if (!training.picked.length) {
        const running = training.runs.filter((r) => r.state === 'running').map((r) => r.id);
        const recent = training.runs.slice().sort((a, b) => (a.updated_seconds_ago ?? 1e12) - (b.updated_seconds_ago ?? 1e12));
        training.picked = running.length ? running.slice(0, 3) : recent.slice(0, 1).map((r) => r.id);
      }
      if (!training.focus && training.picked.length) training.focus = training.picked[0];
      changed();
    }
    training.picked = training.picked.filter((id) => training.runs.some((r) => r.id === id));
    drawRuns();
    await Promise.all(training.picked.map(fetchMetrics));
    drawCharts();
    await drawDetail(false);
    $('#training-status').textContent = `${training.runs.length ? '' : 'No runs found. '}Read ${new Date().toLocaleTimeString()}; again every ${POLL_MS / 1000} s while this tab is open.`;
    $('#training-status').classList.remove('error-text');
  } catch (e) {
    $('#training-status').textContent = 'The server does not answer: ' + e.message;
    $('#training-status').classList.add('error-text');
  }
  document.body.dataset.trainingPolls = String(training.polls);
}

function schedule() {
  clearTimeout(training.timer);
  if (!training.open) return;
  training.timer = setTimeout(async () => {
    if (!document.hidden) await poll();
    schedule();
  }, POLL_MS);
}

export async function showTraining() {
  training.open = true;
  await poll();
  schedule();
}

export function hideTraining() {
  training.open = false;
  clearTimeout(training.timer);
}

// The page's address keeps the runs compared, the focused one and the axis.
export function trainingParams(q) {
  if (!training.started && !training.picked.length) return;
  if (training.picked.length) q.set('runs', training.picked.join(','));
  if (training.focus) q.set('run', training.focus);
  if (training.x !== 'iteration') q.set('x', training.x);
  if (training.xLog) q.set('xlog', '1');
}

export function initTraining(q) {
  if (q.get('runs')) training.picked = q.get('runs').split(',').filter(Boolean);
  if (q.get('run')) training.focus = q.get('run');
  if (X_MODES[q.get('x')]) training.x = q.get('x');
  training.xLog = q.get('xlog') === '1';
  $('#x-axis').value = training.x;
  $('#x-log').checked = training.xLog;
  $('#smoothing').value = String(training.smoothing);
}

export function bindTraining() {
  $('#x-axis').addEventListener('change', () => { training.x = $('#x-axis').value; changed(); drawCharts(); });
  $('#x-log').addEventListener('change', () => { training.xLog = $('#x-log').checked; changed(); drawCharts(); });
  $('#smoothing').addEventListener('input', () => {
    training.smoothing = Number($('#smoothing').value);
    $('#smoothing-value').textContent = training.smoothing.toFixed(2);
    drawCharts();
  });
  $('#runs-filter').addEventListener('input', () => { training.filter = $('#runs-filter').value; drawRuns(); });
  document.addEventListener('visibilitychange', () => { if (!document.hidden && training.open) poll(); });
}
