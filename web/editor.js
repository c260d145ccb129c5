// The position editor of the study board: seeds added or taken away pit by pit, the
// stores, the side to move, or the position's text; the server checks the result.

import { api } from './api.js';
import { drawBoard } from './board.js';
import { $, START, fenOf, guarded, isFen, parseFen, pitOf } from './ui.js';

// The editor's state: `draft`, the position being set up ({pits, stores, side}), or null
// when the editor is shut; `rules`, the rule set it is for, and `done`, what to do with a
// good one (both set by `startEditor`).
const editor = {
  draft: null,
  rules: 'abapa',
  done: null,
};

export const editing = () => editor.draft !== null;

// Opens the editor on `pos` (a /position answer); `use(pos)` gets the position set up,
// checked by the server under `ruleSet`, when the user is done.
export function startEditor(pos, ruleSet, use) {
  editor.draft = { pits: pos.pits.slice(), stores: pos.stores.slice(), side: pos.to_move };
  editor.rules = ruleSet;
  editor.done = use;
  $('#editor').classList.remove('hidden');
  drawEditor();
}

function drawEditor() {
  const { draft } = editor;
  $('#edit-store-s').value = String(draft.stores[0]);
  $('#edit-store-n').value = String(draft.stores[1]);
  $('#edit-side').value = draft.side;
  $('#edit-fen').value = fenOf(draft);
  const total = draft.pits.reduce((a, b) => a + b, 0) + draft.stores[0] + draft.stores[1];
  const msg = $('#edit-msg');
  msg.textContent = total === 48 ? 'The seeds add up to 48.'
    : `The pits and stores hold ${total} seeds; a game has 48: ${total < 48 ? 'add ' + (48 - total) : 'take away ' + (total - 48)}.`;
  msg.dataset.ok = total === 48 ? '1' : '0';
  drawBoard(draft, { bottom: 'S', legal: 'ABCDEFabcdef', marks: {}, fen: fenOf(draft) });
  $('#banner').textContent = 'setting up a position';
}

// A click on a pit: one seed more (`delta` 1) or fewer (−1); 0: as the mode selector says.
export function editPit(letter, delta) {
  const p = pitOf(letter);
  editor.draft.pits[p] = Math.max(0, Math.min(48, editor.draft.pits[p] + (delta || Number($('#edit-mode').value))));
  drawEditor();
}

function editFromInputs() {
  const n = (id) => Math.max(0, Math.min(48, Math.floor(Number($(id).value) || 0)));
  editor.draft.stores = [n('#edit-store-s'), n('#edit-store-n')];
  editor.draft.side = $('#edit-side').value;
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
  editor.draft = { pits: p.pits, stores: p.stores, side: p.side };
  drawEditor();
}

async function finishEditor() {
  const fen = fenOf(editor.draft);
  const msg = $('#edit-msg');
  if (msg.dataset.ok !== '1') return;
  let pos;
  try {
    pos = await api('position', { fen, moves: '', rules: editor.rules });
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
  await editor.done(pos);
}

export function closeEditor() {
  editor.draft = null;
  $('#editor').classList.add('hidden');
}

// `cancel` redraws what the board showed before.
export function bindEditor(cancel) {
  $('#edit-done').addEventListener('click', () => guarded(finishEditor));
  $('#edit-cancel').addEventListener('click', () => { closeEditor(); cancel(); });
  $('#edit-start').addEventListener('click', () => { const p = parseFen(START); editor.draft = { pits: p.pits, stores: p.stores, side: 'S' }; drawEditor(); });
  $('#edit-clear').addEventListener('click', () => { editor.draft.pits = Array(12).fill(0); editor.draft.stores = [0, 0]; drawEditor(); });
  for (const id of ['#edit-store-s', '#edit-store-n', '#edit-side']) $(id).addEventListener('change', editFromInputs);
  $('#edit-fen').addEventListener('change', editFromFen);
}
