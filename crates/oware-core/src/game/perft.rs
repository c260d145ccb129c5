//! Perft (counting move sequences) and random playouts: the rules engine's correctness
//! check against published counts, and its speed benchmark.

use super::history::History;
use super::position::{Outcome, Position};
use super::rules::RuleSet;
use crate::rng::Rng;

/// Number of move sequences of exactly `depth` plies from `pos` (games that end earlier
/// are not counted; a position that repeats ends the game). `perft(_, _, 0)` is 1.
///
/// Leaves are counted in bulk (the legal-move count at depth 1), as chess perft does.
pub fn perft(pos: &Position, rules: RuleSet, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut stack: Vec<u128> = Vec::with_capacity(depth as usize + 1);
    stack.push(pos.key());
    perft_rec(pos, rules, depth, &mut stack, 0)
}

/// Counts for every depth 1..=`depth`.
pub fn perft_all(pos: &Position, rules: RuleSet, depth: u32) -> Vec<u64> {
    (1..=depth).map(|d| perft(pos, rules, d)).collect()
}

fn perft_rec(
    pos: &Position,
    rules: RuleSet,
    depth: u32,
    stack: &mut Vec<u128>,
    since: usize,
) -> u64 {
    if let Some(t) = rules.win_threshold {
        let [s, n] = pos.stores;
        if s >= t || n >= t || (s == t - 1 && n == t - 1) {
            return 0;
        }
    }
    let mask = pos.legal_moves(rules);
    if depth == 1 {
        return mask.count_ones() as u64;
    }
    let mut total = 0;
    let mut m = mask;
    while m != 0 {
        let a = m.trailing_zeros() as usize;
        m &= m - 1;
        let mut child = *pos;
        let info = child.apply(rules, a);
        let key = child.key();
        let child_since = if info.captured > 0 {
            stack.len()
        } else {
            if stack[since..].contains(&key) {
                continue; // repetition: the game is over, nothing below counts
            }
            since
        };
        stack.push(key);
        total += perft_rec(&child, rules, depth - 1, stack, child_since);
        stack.pop();
    }
    total
}

/// Plays uniformly random legal moves from `pos` until the game ends. Returns the
/// outcome and the number of plies played. `history` is working storage (reset here).
pub fn random_playout(
    pos: &Position,
    rules: RuleSet,
    rng: &mut Rng,
    history: &mut History,
) -> (Outcome, u32) {
    let mut p = *pos;
    history.reset(&p);
    if let Some(o) = p.status(rules) {
        return (o, 0);
    }
    let mut plies = 0;
    let mut legal = p.legal_moves(rules);
    loop {
        let a = rng.pick_bit(legal);
        let info = p.apply(rules, a);
        plies += 1;
        let repeated = history.record(&p, info.captured);
        legal = p.legal_moves(rules);
        if let Some(o) = p.end_after_move(rules, info.captured, legal, repeated) {
            return (o, plies);
        }
    }
}
