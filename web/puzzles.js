// The Puzzles tab: positions from the network's self-play games where exactly one move
// forces a win; after it, every move must keep the win while alpha-beta defends.

import { api } from './api.js';
import { animateMove, drawBoard } from './board.js';
import { $, activeTab, guarded, isBusy, plural, say, sideName } from './ui.js';

// The puzzles fetched, and which one is on the board.
const puzzles = {
  list: [],
  i: -1,
  pos: null,          // the puzzle board's position (a /position answer)
  moves: '',          // the moves played from the puzzle's start
  view: null,         // what the board shows now: {marks}
  done: false,
  tries: 0,           // wrong moves tried on this puzzle
  score: { solved: 0, tried: 0 },
};

// The moves played on the puzzle board, also in `#pane-puzzles[data-moves]` (where the
// browser test reads them).
function setMoves(moves) {
  puzzles.moves = moves;
  $('#pane-puzzles').dataset.moves = moves;
}

async function nextPuzzle() {
  await guarded(async () => {
    puzzles.i++;
    if (puzzles.i >= puzzles.list.length) {
      puzzles.list = await api('puzzles?n=20');
      puzzles.i = 0;
    }
    if (!puzzles.list.length) {
      $('#puzzle-title').textContent = 'Finding puzzles in self-play games…';
      $('#puzzle-status').textContent = 'The server proves each one; the first take a few seconds.';
      setTimeout(() => { if (activeTab() === 'puzzles' && !puzzles.list.length) { puzzles.i = -1; nextPuzzle(); } }, 2000);
      return;
    }
    const z = puzzles.list[puzzles.i];
    puzzles.pos = await api('position', { fen: z.fen, moves: z.moves });
    setMoves(z.moves);
    puzzles.tries = 0;
    puzzles.done = false;
    const level = z.difficulty ? ` · difficulty: ${z.difficulty}` : '';
    $('#puzzle-title').textContent = `${sideName(z.to_move)} to move and win (the win takes ${z.plies} plies)${level}.`;
    setPuzzleStatus('none', 'Find the one move that wins by force. Click a pit.');
    drawPuzzle({});
    say('Only one move forces the win; the others let it slip.');
  });
}

function drawPuzzle(marks) {
  const p = puzzles.pos;
  const z = puzzles.list[puzzles.i];
  puzzles.view = { marks };
  drawBoard(p, { bottom: z.to_move, legal: puzzles.done || p.to_move !== z.to_move ? '' : p.legal, marks, fen: p.fen });
  $('#banner').textContent = `puzzle ${puzzles.i + 1} of ${puzzles.list.length}`;
}

function setPuzzleStatus(state, text) {
  const e = $('#puzzle-status');
  e.dataset.state = state;
  e.textContent = text;
  $('#puzzle-score').textContent = puzzles.score.tried ? `Solved ${puzzles.score.solved} of ${puzzles.score.tried}.` : '';
}

// Plays `letter` on the puzzle board.
async function puzzlePlay(letter) {
  const z = puzzles.list[puzzles.i];
  const after = await api('position', { fen: z.fen, moves: puzzles.moves + letter });
  await animateMove(puzzles.pos, letter, after, after.plies[after.plies.length - 1], { bottom: z.to_move, fen: after.fen });
  setMoves(puzzles.moves + letter);
  puzzles.pos = after;
}

function puzzleSolved(letter) {
  const z = puzzles.list[puzzles.i];
  puzzles.done = true;
  puzzles.score.tried++;
  puzzles.score.solved++;
  // Stars by the wrong moves tried on the way (three end the puzzle).
  const grade = puzzles.tries === 0 ? 'no wrong move: ★★★' : puzzles.tries === 1 ? 'one wrong move: ★★' : 'two wrong moves: ★';
  drawPuzzle({ [letter]: ['best', 'win'] });
  setPuzzleStatus('solved', `Solved, ${grade}. ${puzzles.pos.result ? puzzles.pos.result.text : ''} The line was ${z.line}.`);
}

export async function onPuzzlePit(letter) {
  if (isBusy() || puzzles.done || !puzzles.pos || !puzzles.pos.legal.includes(letter)) return;
  const z = puzzles.list[puzzles.i];
  if (puzzles.pos.to_move !== z.to_move) return;
  await guarded(async () => {
    // Which moves keep a forced win from here (the first move: the one solution).
    const first = puzzles.moves === z.moves;
    let wins = first ? z.solution : '';
    if (!first) {
      const s = await api('solve', { fen: z.fen, moves: puzzles.moves, depth: Math.max(2, z.plies) });
      wins = Object.entries(s.moves).filter(([, v]) => v.result === 'win').map(([m]) => m).join('');
    }
    if (!wins.includes(letter)) {
      puzzles.tries++;
      const wrong = { [letter]: ['wrong', 'no'] };
      if (puzzles.tries >= 3) {
        puzzles.done = true;
        puzzles.score.tried++;
        for (const w of wins) wrong[w] = ['best', 'win'];
        drawPuzzle(wrong);
        setPuzzleStatus('missed', `${letter} does not force a win either. ${wins.length > 1 ? 'Winning moves were' : 'The winning move was'} ${wins.split('').join(', ')}.`);
        return;
      }
      drawPuzzle(wrong);
      setPuzzleStatus('wrong', `${letter} does not force a win. Try again (${plural(3 - puzzles.tries, 'try', 'tries')} left).`);
      return;
    }
    await puzzlePlay(letter);
    if (puzzles.pos.result) { puzzleSolved(letter); return; }
    // The engine defends: alpha-beta's best reply (the longest resistance).
    while (!puzzles.pos.result && puzzles.pos.to_move !== z.to_move) {
      setPuzzleStatus('going', `${letter} keeps the win. The engine defends…`);
      const s = await api('solve', { fen: z.fen, moves: puzzles.moves, depth: Math.max(2, z.plies) });
      await puzzlePlay(s.best);
    }
    if (puzzles.pos.result) { puzzleSolved(letter); return; }
    drawPuzzle({ [puzzles.moves[puzzles.moves.length - 1]]: ['last', ''] });
    setPuzzleStatus('going', `Right: ${letter} keeps the win; the engine answered ${puzzles.moves[puzzles.moves.length - 1]}. Your move: keep it.`);
  });
}

function showSolution() {
  if (puzzles.i < 0 || puzzles.done) return;
  const z = puzzles.list[puzzles.i];
  puzzles.done = true;
  puzzles.score.tried++;
  const first = puzzles.moves === z.moves;
  drawPuzzle(first ? { [z.solution]: ['best', 'win'] } : {});
  setPuzzleStatus('missed', `The winning move is ${z.solution} (line ${z.line}).`);
}

// The tab opened: the puzzle on the board, or the first one.
export function showPuzzles() {
  if (puzzles.i < 0 || !puzzles.pos) nextPuzzle();
  else { drawPuzzle(puzzles.view ? puzzles.view.marks : {}); say(''); }
}

export function bindPuzzles() {
  $('#next-puzzle').addEventListener('click', () => nextPuzzle());
  $('#show-solution').addEventListener('click', showSolution);
}
