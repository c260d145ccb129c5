// Talking to the server (docs/http-api.md): every rule and every search is the server's.

// The training run's checkpoint the engine searches with (`model` in the page's address,
// as the Training tab's Play and Analyse links give it), or null: the server's network.
let engineModel = null;
export const setEngineModel = (m) => { engineModel = m || null; };
export const engineModelName = () => engineModel;
const SEARCHES = ['bestmove', 'analyze', 'infinite'];
const withModel = (path, body) => (engineModel && SEARCHES.includes(path) ? Object.assign({}, body, { model: engineModel }) : body);

export async function api(path, body) {
  if (body !== undefined) body = withModel(path, body);
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

// The latest engine request; older answers are dropped.
let evalToken = 0;
// The infinite analysis streaming, if one is: its AbortController.
let streaming = null;

// Stops the infinite analysis, if one runs: the server stops its search when the
// connection closes.
export function stopInfinite() {
  if (streaming) streaming.abort();
  streaming = null;
}

// Drops every engine answer on its way and stops the infinite analysis: the page shows
// no engine now.
export function cancelEngine() {
  stopInfinite();
  evalToken++;
}

// Asks the engine about `pos` (a /position answer of `body`'s game) and calls `show`
// with its answer, unless a newer request was made meanwhile.
export async function evaluate(body, pos, sims, show) {
  stopInfinite();
  const token = ++evalToken;
  if (pos.result) { show(null); return; }
  try {
    const b = await api('bestmove', Object.assign({}, body, { sims }));
    if (token === evalToken) show(b);
  } catch (e) {
    if (token === evalToken) show({ error: e.message });
  }
}

// An infinite analysis of `body`'s position (POST /api/v1/infinite, JSON lines): `show`
// gets each update as it comes (the last has `done` set: the server's time limit), or
// {error}, until stopInfinite() or a newer engine request.
export async function infinite(body, show) {
  stopInfinite();
  const token = ++evalToken;
  const ctl = new AbortController();
  streaming = ctl;
  const current = () => token === evalToken && !ctl.signal.aborted;
  try {
    const ask = () => fetch('/api/v1/infinite', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(withModel('infinite', body)),
      signal: ctl.signal,
    });
    let r = await ask();
    // The analysis this page just stopped may hold its thread until the server sees the
    // connection closed (a quarter of a second at most): a 503 is asked again a few times.
    for (let i = 0; r.status === 503 && i < 8 && current(); i++) {
      await new Promise((done) => setTimeout(done, 150));
      if (current()) r = await ask();
    }
    if (!current()) return;
    if (!r.ok) {
      let j;
      try { j = await r.json(); } catch (e) { j = { error: 'the server answered ' + r.status }; }
      throw new Error(j.error || ('HTTP ' + r.status));
    }
    const reader = r.body.getReader();
    const text = new TextDecoder();
    let buf = '';
    let last = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done || !current()) break;
      buf += text.decode(value, { stream: true });
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i).trim();
        buf = buf.slice(i + 1);
        if (line && current()) show(last = JSON.parse(line));
      }
    }
    // Only the server's time limit ends a stream with a last update.
    if (current() && !(last && last.done)) show({ error: 'the analysis was cut off; tick it again to go on' });
  } catch (e) {
    if (current()) show({ error: e.message });
  } finally {
    if (streaming === ctl) streaming = null;
  }
}
