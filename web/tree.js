// The study board's tree of moves, and a study's text (docs/notation.md, "Study
// files"). Each node is a position, reached from its parent by `move`; the first child
// continues the main line, the others are variations. A node carries what the user
// wrote on it: a `mark` on its move (!, ?, …), a `comment`, and `shapes` drawn on the
// position after the move (arrows {from, to} and circles {from, to: null}).

import { START, isFen } from './ui.js';

export const MARKS = ['!!', '!', '!?', '?!', '?', '??'];

let nodeIds = 0;

export function mkNode(parent, move) {
  const n = { id: ++nodeIds, parent, move, children: [], pos: null, mark: '', comment: '', shapes: [] };
  if (parent) parent.children.push(n);
  return n;
}

// A tree whose main line is `moves` from `start` under `rules`, at the line's end.
export function newTree(start, moves, rules) {
  const root = mkNode(null, '');
  let n = root;
  for (const m of moves) n = mkNode(n, m);
  return { start, rules, root, cur: n };
}

// The moves from the root to `node`.
export function pathOf(node) {
  let s = '';
  for (let n = node; n.parent; n = n.parent) s = n.move + s;
  return s;
}

// `3.C`: the move a path of moves ends with, by its number.
export const labelAt = (moves) => (moves ? `${moves.length}.${moves[moves.length - 1]}` : 'the start');

// The root and the main line's nodes after it.
export function mainLine(tree) {
  const line = [tree.root];
  while (line[line.length - 1].children.length) line.push(line[line.length - 1].children[0]);
  return line;
}

// The main line's moves.
export const mainMoves = (tree) => mainLine(tree).slice(1).map((n) => n.move).join('');

// The child of `node` reached by `move`, made if there is none.
export const childOf = (node, move) => node.children.find((c) => c.move === move) || mkNode(node, move);

// The node `moves` reach from the root, or null where the tree does not hold them.
export function nodeAt(tree, moves) {
  let n = tree.root;
  for (const m of moves) {
    n = n.children.find((c) => c.move === m);
    if (!n) return null;
  }
  return n;
}

// The line of `moves` from the root added where the tree does not hold it yet (a
// variation where it leaves the tree; the main line goes on where it ends); its last node.
export function addLine(tree, moves) {
  let n = tree.root;
  for (const m of moves) n = childOf(n, m);
  return n;
}

// The first move of `node`'s line that is not its parent's first child, or null on the
// main line.
function branchOf(node) {
  let n = node;
  while (n.parent && n.parent.children[0] === n) n = n.parent;
  return n.parent ? n : null;
}

// Whether `promote` would change anything.
export const promotable = (node) => branchOf(node) !== null;

// Makes the line through `node` the main line where it leaves it: the variation it is in
// becomes its parent's first child. Returns whether anything changed.
export function promote(node) {
  const n = branchOf(node);
  if (!n) return false;
  const sibs = n.parent.children;
  sibs.splice(sibs.indexOf(n), 1);
  sibs.unshift(n);
  return true;
}

// Whether the tree holds more than its main line's moves: a variation, a mark, a
// comment or a drawing.
export function annotated(tree) {
  const walk = (n) => n.children.length > 1 || n.mark || n.comment || n.shapes.length || n.children.some(walk);
  return Boolean(walk(tree.root));
}

const shapeText = (s) => (s.to ? `${s.from}>${s.to}` : s.from);

// What follows a move: its mark, comment and drawing.
function notes(n) {
  let t = n.mark;
  if (n.comment) t += ` {${n.comment.replace(/[\\}]/g, '\\$&')}}`;
  if (n.shapes.length) t += ` [${n.shapes.map(shapeText).join(' ')}]`;
  return t;
}

// The study's text: `start;` where the tree does not start from the start position,
// then the moves, each followed by its notes, with each variation in parentheses after
// the move it replaces; moves without notes run together (`FfBe`).
export function studyText(tree) {
  const tokens = [];
  const push = (out, t) => {
    const last = out.length - 1;
    if (/^[A-Fa-f]$/.test(t) && last >= 0 && /^[A-Fa-f]+$/.test(out[last])) out[last] += t;
    else out.push(t);
  };
  const line = (n, out) => {
    while (n.children.length) {
      const [main, ...vars] = n.children;
      push(out, main.move + notes(main));
      for (const v of vars) {
        const inner = [v.move + notes(v)];
        line(v, inner);
        out.push('(' + inner.join(' ') + ')');
      }
      n = main;
    }
  };
  const head = notes(tree.root).trim();
  if (head) tokens.push(head);
  line(tree.root, tokens);
  return (tree.start !== START ? tree.start + ';' : '') + tokens.join(' ');
}

// A comment as the study text holds it: one line (a brace or a backslash in it is
// written escaped, `\}` and `\\`).
export const cleanComment = (t) => t.replace(/\s+/g, ' ').trim();

// The end of the comment opened at `body[i]`: the index of its `}`, past escaped
// characters, or -1.
function commentEnd(body, i) {
  for (let j = i + 1; j < body.length; j++) {
    if (body[j] === '\\') j++;
    else if (body[j] === '}') return j;
  }
  return -1;
}

// The tree of a study's text, under `rules`, at its root; throws an Error that says what
// is wrong (the moves' legality is the server's to judge, when each position is shown).
export function parseStudy(text, rules) {
  let body = text.trim();
  let start = START;
  const semi = body.indexOf(';');
  const brace = body.indexOf('{');
  if (semi >= 0 && (brace < 0 || semi < brace)) {
    start = body.slice(0, semi).trim();
    body = body.slice(semi + 1);
    if (!isFen(start)) throw new Error(`'${start}' is not a position: 12 pits, 2 stores and the side to move, joined by '-'`);
  }
  const root = mkNode(null, '');
  const stack = [];
  let cur = root;
  const at = (i) => `at character ${i + 1} of the study`;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (/[\s,]/.test(c)) continue;
    if (/[A-Fa-f]/.test(c)) {
      cur = childOf(cur, c);
    } else if (c === '!' || c === '?') {
      const m = /^[!?]{1,2}/.exec(body.slice(i))[0];
      if (!MARKS.includes(m) || cur === root) throw new Error(`'${m}' ${at(i)} is not a mark after a move`);
      cur.mark = m;
      i += m.length - 1;
    } else if (c === '{' || c === '[') {
      const j = c === '{' ? commentEnd(body, i) : body.indexOf(']', i);
      if (j < 0) throw new Error(`the '${c}' ${at(i)} is not closed`);
      const inner = body.slice(i + 1, j);
      if (c === '{') cur.comment = cleanComment(inner.replace(/\\(.)/g, '$1'));
      else {
        cur.shapes = inner.split(/\s+/).filter(Boolean).map((s) => {
          const m = /^([A-Fa-f])(?:>([A-Fa-f]))?$/.exec(s);
          if (!m) throw new Error(`'${s}' ${at(i)} is neither an arrow (B>e) nor a circle (B)`);
          return { from: m[1], to: m[2] || null };
        });
      }
      i = j;
    } else if (c === '(') {
      if (cur === root) throw new Error(`the variation ${at(i)} follows no move`);
      stack.push(cur);
      cur = cur.parent;
    } else if (c === ')') {
      if (!stack.length) throw new Error(`the ')' ${at(i)} closes no variation`);
      cur = stack.pop();
    } else {
      throw new Error(`'${c}' ${at(i)} is not part of a study (moves A–F and a–f, marks, {comments}, [drawings], (variations))`);
    }
  }
  if (stack.length) throw new Error('a variation is not closed: a \')\' is missing');
  return { start, rules, root, cur: root };
}
