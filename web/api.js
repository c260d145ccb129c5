// Talking to the server (docs/http-api.md): every rule and every search is the server's.

export async function api(path, body) {
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

// Asks the engine about `pos` (a /position answer of `body`'s game) and calls `show`
// with its answer, unless a newer request was made meanwhile.
export async function evaluate(body, pos, sims, show) {
  const token = ++evalToken;
  if (pos.result) { show(null); return; }
  try {
    const b = await api('bestmove', Object.assign({}, body, { sims }));
    if (token === evalToken) show(b);
  } catch (e) {
    if (token === evalToken) show({ error: e.message });
  }
}
