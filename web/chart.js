// A line chart in SVG, for the training page: several series on one pair of axes, a
// shaded interval where a series has one, linear or logarithmic x, exponential
// smoothing, and the values under the pointer. No dependencies.
//
// A series: { label, color, dash, points: [[x, y, extra]], band: [[x, low, high]],
//             smooth: bool, markers: bool }; `extra` is shown beside the value on hover.

const NS = 'http://www.w3.org/2000/svg';
const W = 560, H = 220;
const PAD = { left: 56, right: 12, top: 10, bottom: 28 };
// Most points drawn of a series: a longer one is thinned (every point stays for hover).
const MAX_DRAWN = 900;

function svgEl(tag, attrs, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

// Exponential moving average with TensorBoard's bias correction: `w` in [0, 1).
export function smooth(points, w) {
  if (!(w > 0)) return points;
  let acc = 0, n = 0;
  return points.map(([x, y, extra]) => {
    acc = acc * w + (1 - w) * y;
    n++;
    return [x, acc / (1 - Math.pow(w, n)), extra];
  });
}

// About `count` round tick values covering [lo, hi].
function ticks(lo, hi, count) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

// Powers of ten (and 2×, 5× when few) within [lo, hi], for a log axis.
function logTicks(lo, hi) {
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * Math.pow(10, e);
      if (v >= lo && v <= hi) out.push(v);
    }
  }
  return out.length > 8 ? out.filter((v) => Math.log10(v) % 1 === 0) : out;
}

// A number in few characters: 1.23k, 0.0012, 1.2e-5.
export function fmt(v) {
  if (v === null || v === undefined || !Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  if (a >= 1e6) return (v / 1e6).toFixed(a >= 1e7 ? 0 : 1) + 'M';
  if (a >= 1e4) return (v / 1e3).toFixed(a >= 1e5 ? 0 : 1) + 'k';
  if (a >= 100) return v.toFixed(0);
  if (a >= 1) return v.toFixed(2).replace(/\.?0+$/, '');
  if (a === 0) return '0';
  if (a >= 1e-3) return v.toPrecision(2);
  return v.toExponential(1);
}

// The labels of an axis's ticks: as short as fmt makes them, with more digits where
// that would write two ticks alike (a learning rate from 5.0e-4 to 4.98e-4, a loss from
// 0.600 to 0.612).
export function tickLabels(values) {
  for (let extra = 0; extra <= 6; extra++) {
    const labels = values.map((v) => (extra === 0 ? fmt(v) : fmtDigits(v, extra)));
    if (new Set(labels).size === labels.length) return labels;
  }
  return values.map(String);
}

function fmtDigits(v, extra) {
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1e6) return (v / 1e6).toFixed(1 + extra) + 'M';
  if (a >= 1e4) return (v / 1e3).toFixed(1 + extra) + 'k';
  if (a >= 1e-3) return String(+v.toPrecision(2 + extra));
  return v.toExponential(1 + extra);
}

function thin(points) {
  if (points.length <= MAX_DRAWN) return points;
  const k = Math.ceil(points.length / MAX_DRAWN);
  const out = points.filter((_, i) => i % k === 0);
  if (out[out.length - 1] !== points[points.length - 1]) out.push(points[points.length - 1]);
  return out;
}

// Index of the point of `pts` (sorted by x) nearest to `x`.
function nearest(pts, x) {
  let lo = 0, hi = pts.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (pts[mid][0] < x) lo = mid; else hi = mid;
  }
  return Math.abs(pts[lo][0] - x) <= Math.abs(pts[hi][0] - x) ? lo : hi;
}

// Draws `series` into the container `box` (its content replaced): `opts` = { xLog,
// xLabel, smoothing }. Returns the number of points drawn.
export function drawChart(box, series, opts) {
  box.textContent = '';
  box.dataset.draws = String(Number(box.dataset.draws || 0) + 1);
  const xOk = (x) => Number.isFinite(x) && (!opts.xLog || x > 0);
  const shown = series.map((s) => {
    const raw = s.points.filter(([x, y]) => xOk(x) && Number.isFinite(y));
    const line = s.smooth ? smooth(raw, opts.smoothing) : raw;
    return Object.assign({}, s, { raw, line, band: (s.band || []).filter(([x, a, b]) => xOk(x) && Number.isFinite(a) && Number.isFinite(b)) });
  }).filter((s) => s.line.length > 0);
  const svg = svgEl('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart-svg', role: 'img' });
  box.appendChild(svg);
  const n = shown.reduce((a, s) => a + s.line.length, 0);
  box.dataset.points = String(n);
  if (n === 0) {
    svg.appendChild(svgEl('text', { x: W / 2, y: H / 2, class: 'chart-empty', 'text-anchor': 'middle' }, 'no data yet'));
    return 0;
  }
  const xs = [], ys = [];
  for (const s of shown) {
    for (const [x, y] of s.raw) { xs.push(x); ys.push(y); }
    for (const [x, a, b] of s.band) { xs.push(x); ys.push(a, b); }
  }
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (x1 === x0) { x0 = opts.xLog ? x0 / 2 : x0 - 1; x1 = opts.xLog ? x1 * 2 : x1 + 1; }
  if (y1 === y0) { y0 -= Math.abs(y0) * 0.1 || 1; y1 += Math.abs(y1) * 0.1 || 1; }
  const pad = (y1 - y0) * 0.05;
  y0 -= pad; y1 += pad;
  const lx = (x) => (opts.xLog ? Math.log10(x) : x);
  const [lx0, lx1] = [lx(x0), lx(x1)];
  const px = (x) => PAD.left + ((lx(x) - lx0) / (lx1 - lx0)) * (W - PAD.left - PAD.right);
  const py = (y) => H - PAD.bottom - ((y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);

  const grid = svgEl('g', { class: 'chart-grid' });
  const yt = ticks(y0, y1, 4);
  tickLabels(yt).forEach((label, i) => {
    const t = yt[i];
    grid.appendChild(svgEl('line', { x1: PAD.left, x2: W - PAD.right, y1: py(t), y2: py(t) }));
    grid.appendChild(svgEl('text', { x: PAD.left - 6, y: py(t) + 4, 'text-anchor': 'end', class: 'tick-y' }, label));
  });
  const xt = opts.xLog ? logTicks(x0, x1) : ticks(x0, x1, 6);
  tickLabels(xt).forEach((label, i) => {
    const t = xt[i];
    grid.appendChild(svgEl('line', { x1: px(t), x2: px(t), y1: PAD.top, y2: H - PAD.bottom, class: 'v' }));
    grid.appendChild(svgEl('text', { x: px(t), y: H - PAD.bottom + 16, 'text-anchor': 'middle', class: 'tick-x' }, label));
  });
  svg.appendChild(grid);

  for (const s of shown) {
    if (s.band.length > 1) {
      const top = s.band.map(([x, , b]) => `${px(x).toFixed(1)},${py(b).toFixed(1)}`);
      const bottom = s.band.slice().reverse().map(([x, a]) => `${px(x).toFixed(1)},${py(a).toFixed(1)}`);
      svg.appendChild(svgEl('polygon', { points: top.concat(bottom).join(' '), fill: s.color, class: 'chart-band' }));
    }
    if (s.smooth && opts.smoothing > 0) {
      svg.appendChild(svgEl('polyline', { points: thin(s.raw).map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' '), stroke: s.color, class: 'chart-raw' }));
    }
    const attrs = { points: thin(s.line).map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' '), stroke: s.color, class: 'chart-line' };
    if (s.dash) attrs['stroke-dasharray'] = s.dash;
    svg.appendChild(svgEl('polyline', attrs));
    if (s.markers || s.line.length < 3) {
      for (const [x, y] of thin(s.line)) svg.appendChild(svgEl('circle', { cx: px(x), cy: py(y), r: 2.5, fill: s.color }));
    }
  }
  svg.appendChild(svgEl('text', { x: W - PAD.right, y: H - 2, 'text-anchor': 'end', class: 'chart-xlabel' }, opts.xLabel));
  hover(box, svg, shown, { px, py, lx, lx0, lx1, opts });
  return n;
}

// The values of every series at the pointer's x: a cursor line, a dot on each series,
// and a box with the numbers. The point shown is kept on the container (`box.hoverAt`,
// in the x axis's units), so that the box stays on the same point when the chart is
// drawn again under a still pointer (the training page redraws every few seconds).
function hover(box, svg, shown, m) {
  const cursor = svgEl('line', { y1: PAD.top, y2: H - PAD.bottom, class: 'chart-cursor hidden' });
  const dots = svgEl('g', {});
  svg.appendChild(cursor);
  svg.appendChild(dots);
  const tip = document.createElement('div');
  tip.className = 'chart-tip hidden';
  box.appendChild(tip);
  const axis = `${m.opts.xLabel}${m.opts.xLog ? ' log' : ''}`;
  const hide = () => {
    box.hoverAt = null;
    cursor.classList.add('hidden');
    tip.classList.add('hidden');
    dots.textContent = '';
  };
  // The values at x (axis units) for a pointer at svg x `sx`; false when no series has
  // a point near it.
  const showAt = (x, sx) => {
    dots.textContent = '';
    tip.textContent = '';
    let at = null;
    for (const s of shown) {
      const p = s.line[nearest(s.line, x)];
      if (Math.abs(m.px(p[0]) - sx) > 40) continue;
      at = at === null ? p[0] : at;
      dots.appendChild(svgEl('circle', { cx: m.px(p[0]), cy: m.py(p[1]), r: 4, fill: s.color, class: 'chart-dot' }));
      const row = document.createElement('div');
      const sw = document.createElement('span');
      sw.className = 'swatch';
      sw.style.background = s.color;
      row.appendChild(sw);
      row.appendChild(document.createTextNode(`${s.label}: ${fmt(p[1])}` + (p[2] ? ` (${p[2]})` : '')));
      tip.appendChild(row);
    }
    if (at === null) return false;
    box.hoverAt = at;
    box.hoverAxis = axis;
    const head = document.createElement('div');
    head.className = 'tip-x';
    head.textContent = `${m.opts.xLabel} ${fmt(at)}`;
    tip.prepend(head);
    cursor.setAttribute('x1', m.px(at));
    cursor.setAttribute('x2', m.px(at));
    cursor.classList.remove('hidden');
    tip.classList.remove('hidden');
    const width = svg.getBoundingClientRect().width;
    const left = (m.px(at) / W) * width;
    tip.style.left = left > width / 2 ? '' : `${left + 12}px`;
    tip.style.right = left > width / 2 ? `${width - left + 12}px` : '';
    return true;
  };
  const show = (ev) => {
    const r = svg.getBoundingClientRect();
    const sx = ((ev.clientX - r.left) / r.width) * W;
    if (sx < PAD.left || sx > W - PAD.right) return hide();
    const l = m.lx0 + ((sx - PAD.left) / (W - PAD.left - PAD.right)) * (m.lx1 - m.lx0);
    if (!showAt(m.opts.xLog ? Math.pow(10, l) : l, sx)) hide();
  };
  svg.addEventListener('pointermove', show);
  svg.addEventListener('pointerdown', show);
  svg.addEventListener('pointerleave', hide);
  // Drawn again while a point was shown: the same point, where the new axes put it (not
  // after the x axis changed, where that x means something else).
  const kept = box.hoverAt;
  if (kept !== null && kept !== undefined && (box.hoverAxis !== axis || !showAt(kept, m.px(kept)))) hide();
}
