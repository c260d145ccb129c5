// The study board's endgame trainer: a won table position played against the tables'
// best defence; the trainer judges each of the trainee's moves by the tables: it keeps
// the win, lets it slip, or is not proven.

import { api } from './api.js';
import { finalWords } from './board.js';
import { refreshEngine } from './engine-panel.js';
import { childOf, labelAt, pathOf } from './tree.js';
import { $, changed, sideName } from './ui.js';

// The trainer's state. `practice`: {side: the trainee's, from: the node practice began
// at, verdict: the tables' verdict on the trainee's last judged move}, or null when off;
// `board`: the study board it plays on, given by `bindTrainer`.
const trainer = {
  practice: null,
  board: null,
};

export const practising = () => trainer.practice !== null;

// Practice from the position on the board, `pos`, a win the tables prove (`tb`, their
// answer there).
export function startTrainer(tb, pos) {
  const { board } = trainer;
  const node = board.tree().cur;
  trainer.practice = { side: pos.to_move, from: node, verdict: null };
  node.tb = tb;
  $('#trainer').classList.remove('hidden');
  $('#trainer-text').textContent = `Win this as ${sideName(pos.to_move)}: the tables defend perfectly. ` +
    `${finalWords(tb.margin, pos)[0].toUpperCase() + finalWords(tb.margin, pos).slice(1)} is what perfect play gets.`;
  board.draw();
  refreshEngine();
}

// The tables' answer for the position of `node` (the `tablebase` field of /bestmove).
async function tablesAt(node) {
  if (node.tb === undefined) {
    const tree = trainer.board.tree();
    const b = await api('bestmove', { fen: tree.start, moves: pathOf(node), rules: tree.rules, sims: 1 });
    node.tb = b.tablebase;
  }
  return node.tb;
}
// The trainee's `move` from `pos`, a win the tables prove (`tb`, their answer there):
// {kept: true, false, or null where the tables prove nothing of the move, words}.
function judgeMove(tb, move, pos) {
  const proven = Object.entries(tb.moves || {}).filter(([, v]) => v !== null).sort((x, y) => y[1] - x[1]);
  const best = proven.length ? `${proven[0][0]} would ${finalWords(proven[0][1], pos)}` : null;
  const v = tb.moves ? tb.moves[move] : null;
  if (v === null || v === undefined) {
    return {
      kept: null,
      words: `The tables do not prove that ${move} keeps the win${best ? ` (${best})` : ''}: ` +
        'go back one move (◀) and play a move they prove.',
    };
  }
  const w = finalWords(v, pos);
  if (w.startsWith('win')) {
    return { kept: true, words: `${move} keeps the win: ${w} with best play${v < proven[0][1] ? ` (${best})` : ''}.` };
  }
  return {
    kept: false,
    words: `The win slipped with ${move}: ${w} with best play after it${best ? ` (${best})` : ''}. ` +
      'Go back one move (◀) and the tables show the moves that keep the win.',
  };
}

// After a move on the board: the trainee's move judged (where the position before it is
// a proven win), then the defender's reply, the tables' best move (the largest margin
// for the defender).
export async function trainerReply() {
  const { board, practice } = trainer;
  const node = board.tree().cur;
  const pos = node.pos;
  const before = node.parent;
  if (before && before.pos && before.pos.to_move === practice.side) {
    const tb = await tablesAt(before);
    if (tb && tb.outcome === 'win') practice.verdict = judgeMove(tb, node.move, before.pos);
  }
  const v = practice.verdict;
  const slipped = v !== null && v.kept !== true;
  if (pos.result) {
    const t = pos.result.text;
    $('#trainer-text').textContent = slipped ? `${v.words} ${t}`
      : pos.result.winner === practice.side ? `Won, and the tables could not stop it. ${t}` : t;
    return;
  }
  if (pos.to_move === practice.side) {
    if (v) $('#trainer-text').textContent = v.words;
    return;
  }
  const tree = board.tree();
  const b = await api('bestmove', { fen: tree.start, moves: pathOf(node), rules: tree.rules, sims: 100 });
  const tb = b.tablebase;
  node.tb = tb;
  let move = b.move;
  const proven = tb && tb.moves ? Object.entries(tb.moves).filter(([, x]) => x !== null) : [];
  if (proven.length) move = proven.sort((x, y) => y[1] - x[1])[0][0];
  if (!node.children.some((c) => c.move === move)) board.record(`the tables' reply ${labelAt(pathOf(node) + move)}`);
  const child = childOf(node, move);
  changed();
  await board.goTo(child, true);
  $('#trainer-text').textContent = slipped ? `${v.words} The tables answer ${move}.`
    : `${v ? v.words + ' ' : ''}The tables answer ${move}. Your move: keep the win.`;
  if (child.pos.result) await trainerReply();
}

export function stopTrainer() {
  trainer.practice = null;
  $('#trainer').classList.add('hidden');
  refreshEngine();
}

// `board`: {tree(): the study's tree, draw(): the board drawn again, goTo(node, animate):
// the board taken to `node`, record(what): an edit of the study about to be made, in
// words (for undo)}.
export function bindTrainer(board) {
  trainer.board = board;
  $('#trainer-stop').addEventListener('click', stopTrainer);
}
