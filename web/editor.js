// The position editor of the study board: seeds added or taken away pit by pit, the
// stores, the side to move, or the position's text; the server checks the result.

import { api } from './api.js';
import { drawBoard } from './board.js';
import { $, START, fenOf, guarded, isFen, parseFen, pitOf } from './ui.js';

// The position being set up: {pits, stores, side}, or null when the editor is shut.
let E = null;
// The rule set the position is for, and what to do with a good one (set by `startEditor`).
let rules = 'abapa';
let done = null;

export const editing = () => E !== null;

// Opens the editor on `pos` (a /position answer); `use(pos)` gets the position set up,
// checked by the server under `ruleSet`, when the user is done.
export function startEditor(pos, ruleSet, use) {
  E = { pits: pos.pits.slice(), stores: pos.stores.slice(), side: pos.to_move };
  rules = ruleSet;
  done = use;
  $('#editor').classList.remove('hidden');
  drawEditor();
}

function drawEditor() {
  $('#edit-store-s').value = String(E.stores[0]);
  $('#edit-store-n').value = String(E.stores[1]);
  $('#edit-side').value = E.side;
  $('#edit-fen').value = fenOf(E);
  const total = E.pits.reduce((a, b) => a + b, 0) + E.stores[0] + E.stores[1];
  const msg = $('#edit-msg');
  msg.textContent = total === 48 ? 'The seeds add up to 48.'
    : `The pits and stores hold ${total} seeds; a game has 48: ${total < 48 ? 'add ' + (48 - total) : 'take away ' + (total - 48)}.`;
  msg.dataset.ok = total === 48 ? '1' : '0';
  drawBoard(E, { bottom: 'S', legal: 'ABCDEFabcdef', marks: {}, fen: fenOf(E) });
  $('#banner').textContent = 'setting up a position';
}

// A click on a pit: one seed more (`delta` 1) or fewer (−1); 0: as the mode selector says.
export function editPit(letter, delta) {
  const p = pitOf(letter);
  E.pits[p] = Math.max(0, Math.min(48, E.pits[p] + (delta || Number($('#edit-mode').value))));
  drawEditor();
}

function editFromInputs() {
  const n = (id) => Math.max(0, Math.min(48, Math.floor(Number($(id).value) || 0)));
  E.stores = [n('#edit-store-s'), n('#edit-store-n')];
  E.side = $('#edit-side').value;
  drawEditor();
}

function editFromFen() {
  const f = $('#edit-fen').value.trim();
  if (!isFen(f)) {
    $('#edit-msg').textContent = `'${f}' is not a position: 12 pits, 2 stores and the side to move, joined by '-' (${START}).`;
    $('#edit-msg').dataset.ok = '0';
    return;
  }
  const p = parseFen(f);
  E = { pits: p.pits, stores: p.stores, side: p.side };
  drawEditor();
}

async function finishEditor() {
  const fen = fenOf(E);
  const msg = $('#edit-msg');
  if (msg.dataset.ok !== '1') return;
  let pos;
  try {
    pos = await api('position', { fen, moves: '', rules });
  } catch (e) {
    msg.textContent = e.message;
    msg.dataset.ok = '0';
    return;
  }
  if (pos.result) {
    msg.textContent = `This position is already over: ${pos.result.text} Change it so that the player to move can play.`;
    msg.dataset.ok = '0';
    return;
  }
  closeEditor();
  await done(pos);
}

export function closeEditor() {
  E = null;
  $('#editor').classList.add('hidden');
}

// `cancel` redraws what the board showed before.
export function bindEditor(cancel) {
  $('#edit-done').addEventListener('click', () => guarded(finishEditor));
  $('#edit-cancel').addEventListener('click', () => { closeEditor(); cancel(); });
  $('#edit-start').addEventListener('click', () => { const p = parseFen(START); E = { pits: p.pits, stores: p.stores, side: 'S' }; drawEditor(); });
  $('#edit-clear').addEventListener('click', () => { E.pits = Array(12).fill(0); E.stores = [0, 0]; drawEditor(); });
  for (const id of ['#edit-store-s', '#edit-store-n', '#edit-side']) $(id).addEventListener('change', editFromInputs);
  $('#edit-fen').addEventListener('change', editFromFen);
}
