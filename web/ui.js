// What every part of the page shares: the game's constants, words, the status line, the
// busy mark, the inline question, which tab is open and the hook that keeps the page's
// address up to date.

export const START = '4-4-4-4-4-4-4-4-4-4-4-4-0-0-S';
export const RULES = ['abapa', 'awari', 'grand-slam-captures', 'ouril', 'traditional'];
export const LEVELS = ['novice', 'amateur', 'strong', 'master'];

export const $ = (sel) => document.querySelector(sel);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const sideName = (s) => (s === 'S' ? 'South' : 'North');
export const other = (s) => (s === 'S' ? 'N' : 'S');
export const sideOf = (letter) => (letter === letter.toUpperCase() ? 'S' : 'N');
// Absolute pit index (0..11) of a move letter.
export const pitOf = (letter) => (sideOf(letter) === 'S' ? letter.charCodeAt(0) - 65 : 6 + letter.charCodeAt(0) - 97);
export const letterOf = (pit) => String.fromCharCode(pit < 6 ? 65 + pit : 97 + pit - 6);
// A value in [−1, 1] (P(win) − P(loss)) as an expected score in per cent.
export const pct = (v) => Math.round(50 + 50 * Math.max(-1, Math.min(1, v)));
export const plural = (n, one, many) => `${n} ${n === 1 ? one : (many || one + 's')}`;

// A position text (`4-4-…-0-0-S`) is well formed (the server judges the rest).
export const isFen = (f) => /^(\d+-){14}[SN]$/.test(f);

export function parseFen(fen) {
  const f = fen.split('-');
  return { pits: f.slice(0, 12).map(Number), stores: [Number(f[12]), Number(f[13])], side: f[14] };
}

export function fenOf(p) { return p.pits.join('-') + '-' + p.stores[0] + '-' + p.stores[1] + '-' + p.side; }

// Whether keys typed at `target` are text for it (a text field) rather than commands
// for the page; a checkbox or a button that has the focus takes no arrow keys.
export const typingIn = (target) => target instanceof Element && (target.isContentEditable ||
  target.matches('textarea, select, input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=file])'));

export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Saves `text` as the file `name` (the browser's download).
export function download(name, text) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
}

export function say(text, cls) {
  const e = $('#status');
  e.textContent = text;
  e.className = 'status' + (cls ? ' ' + cls : '');
}

// Requests in flight that the user waits for: while any runs, the buttons that would
// start another are off and `body[data-busy]` is 1 (the browser tests wait on it).
let busy = 0;

export const isBusy = () => busy > 0;

function setBusy(delta) {
  busy = Math.max(0, busy + delta);
  document.body.dataset.busy = busy > 0 ? '1' : '0';
  for (const id of ['#new-game', '#undo', '#redo', '#hint', '#analyze', '#load']) $(id).disabled = busy > 0;
}

// Runs an action with the page marked busy; errors go to the status line.
export async function guarded(fn) {
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
export function ask(text, yes, no) {
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

// The tab open now, and how to open another (the app sets it: a tab may send the user
// to another, as "Play from here" does).
let tab = 'play';
let opener = null;

export const activeTab = () => tab;

export function setActiveTab(t, open) {
  tab = t;
  if (open) opener = open;
}

export const openTab = (t) => opener(t);

// Whoever keeps the page's address (the app) listens here; a part whose state the
// address holds calls `changed` after each change.
let onChange = () => {};

export function listen(fn) { onChange = fn; }

export const changed = () => onChange();
