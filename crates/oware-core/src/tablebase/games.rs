//! The repetition rule's games over one count, played for a prover, each game's winning
//! region kept.
//!
//! [`CountGraph`]'s co-Büchi games bound the value of a position with a history: for a
//! threshold `x`, the history's positions as ends (sinks), A wins the game at a node
//! only where he forces at least `x` from it (see `build::cycle_bounds`). One game is
//! fixed by its threshold and its sinks, and its solution is every node A wins,
//! whichever node was asked. The moves of a position with history `H` are each valued
//! with `H` and the position behind them: the same sinks, other roots. So the games are
//! kept by (sinks, threshold), and the binary search of each move's value finds most of
//! its thresholds already played by an earlier move's (at 12 seeds a game visits 2.7 M
//! nodes, 0.1–0.3 s; a position's five moves took 14 games, now one per threshold).

use super::build::{CountGraph, Cycles, bit, pack};

/// Winning regions kept (one bit a node: 340 KB at 12 seeds); the oldest goes first.
const KEPT: usize = 32;

/// One game played: its sinks (nodes of the doubled graph, sorted), its threshold, and
/// the nodes A wins (a bit each).
struct Played {
    sinks: Vec<u32>,
    x: i32,
    won: Vec<u64>,
}

/// The games of one count's graph with what they have won (see the module).
pub struct CountGames<'g> {
    g: &'g CountGraph,
    c: Cycles<'g>,
    /// The sinks of the game being played, one flag a node (cleared after).
    sink: Vec<bool>,
    kept: Vec<Played>,
    played: u64,
    asked: u64,
}

impl CountGraph {
    /// The games over this count's graph, for the bounds of positions with a history.
    pub fn games(&self) -> CountGames<'_> {
        CountGames {
            g: self,
            c: self.cycles(),
            sink: vec![false; 2 * self.rep.len()],
            kept: Vec::new(),
            played: 0,
            asked: 0,
        }
    }
}

impl CountGames<'_> {
    /// Games asked about since these were made, and games played for them (the rest
    /// were answered by a kept winning region).
    pub fn asked_played(&self) -> (u64, u64) {
        (self.asked, self.played)
    }

    /// Whether A wins the game of threshold `x` at node `at` of the doubled graph with
    /// the positions `history` (`(rank, same mover as the root)`) as ends, A being the
    /// root's mover or his opponent.
    fn wins(&mut self, history: &[(u32, bool)], a_is_mover: bool, x: i32, at: usize) -> bool {
        self.asked += 1;
        // (k, A) where A moves there: A is the root's mover and so is k's, or neither is.
        let mut sinks: Vec<u32> = history
            .iter()
            .map(|&(k, same)| 2 * k + (same != a_is_mover) as u32)
            .collect();
        sinks.sort_unstable();
        sinks.dedup();
        if let Some(p) = self.kept.iter().find(|p| p.x == x && p.sinks == sinks) {
            return bit(&p.won, at);
        }
        self.played += 1;
        // Start from the nearest games of the same sinks above and below x.
        let same = |p: &&Played| p.sinks == sinks;
        let above = self
            .kept
            .iter()
            .filter(same)
            .filter(|p| p.x > x)
            .min_by_key(|p| p.x);
        let below = self
            .kept
            .iter()
            .filter(same)
            .filter(|p| p.x < x)
            .max_by_key(|p| p.x);
        sinks.iter().for_each(|&s| self.sink[s as usize] = true);
        let start = [
            above.map(|p| p.won.as_slice()),
            below.map(|p| p.won.as_slice()),
        ];
        let won = pack(self.c.wins_from(x, Some(&self.sink), start));
        sinks.iter().for_each(|&s| self.sink[s as usize] = false);
        if self.kept.len() == KEPT {
            self.kept.remove(0);
        }
        let r = bit(&won, at);
        self.kept.push(Played { sinks, x, won });
        r
    }

    /// Proven bounds `[low, high]` on the margin the mover of board `root` (rank, his
    /// view) can force with the positions `history` behind him: each `(rank, same)`, a
    /// board of this count and whether its mover is the root's. Each bound is the
    /// largest threshold A wins (binary search: a node A wins at `x` he wins below it),
    /// A being the root's mover for `low`, his opponent for `high`.
    pub fn bounds(&mut self, root: u32, history: &[(u32, bool)]) -> [i32; 2] {
        let (n, step) = (self.g.n as i32, self.g.step);
        let at = 2 * root as usize;
        // A wins everything at −n; find the largest x he wins.
        let low = largest_won(|x| self.wins(history, true, x, at), [-n, n], [n, step]);
        let high = -largest_won(|x| self.wins(history, false, x, at + 1), [-n, n], [n, step]);
        [low, high]
    }

    /// The margin the mover of board `root` (rank, his view) can force with the
    /// positions `history` behind him (as in [`CountGames::bounds`]), where the games'
    /// bounds meet; `None` where they do not. `no_history` are proven bounds on the
    /// value with no history (the table's). By fact 2 of the history search (a bound on
    /// the value with no history bounds every history, weakened to the history's
    /// repetition scores), the value with this history lies in `no_history` widened to
    /// the scores of the history's positions for the root's mover, and only the
    /// thresholds inside it are played: about log2 of its width games, and one more for
    /// the high bound, instead of [`CountGames::bounds`]' 2·log2(2n). Both bounds met
    /// are proven (the games' and fact 2's), so where they meet that is the value.
    pub fn value(
        &mut self,
        root: u32,
        history: &[(u32, bool)],
        no_history: [i32; 2],
    ) -> Option<i32> {
        let [low, high] = self.proven(root, history, no_history);
        (low == high).then_some(low)
    }

    /// Proven bounds `[low, high]` on the value of [`CountGames::value`]: `low` the
    /// largest threshold the game proves, `high` equal to it where the opponent's game
    /// proves that, else the top of `no_history` widened by the history's scores.
    pub fn proven(&mut self, root: u32, history: &[(u32, bool)], no_history: [i32; 2]) -> [i32; 2] {
        let g = self.g;
        let (n, step) = (g.n as i32, g.step);
        let score = |&(k, same): &(u32, bool)| {
            let r = g.rep[k as usize] as i32;
            if same { r } else { -r }
        };
        let lo = history.iter().map(score).fold(no_history[0], i32::min);
        let hi = history.iter().map(score).fold(no_history[1], i32::max);
        // (The top the value can take: of the count's parity under the own-row rules.)
        let hi = hi - (hi - n).rem_euclid(step);
        let at = 2 * root as usize;
        // The largest threshold in [lo, hi] the mover wins (lo itself is proven).
        let low = largest_won(|x| self.wins(history, true, x, at), [lo, hi], [n, step]);
        if low == hi {
            return [low, hi];
        }
        // The opponent, as A at (root, B), wins −low exactly where the mover's high
        // bound is at most `low`.
        if self.wins(history, false, -low, at + 1) {
            [low, low]
        } else {
            [low, hi]
        }
    }
}

/// The largest threshold in `[lo, hi]` that `won` says A wins, `lo` being one he is
/// known to win (a node A wins at `x` he wins below it, so a binary search finds it).
///
/// Under the own-row rules every ending splits the count's `n` seeds between the sides,
/// so every margin has the count's parity and only those thresholds (`step` 2) are
/// played.
fn largest_won(mut won: impl FnMut(i32) -> bool, [lo, hi]: [i32; 2], [n, step]: [i32; 2]) -> i32 {
    // Thresholds lo + step·t, t in [a, b].
    let lo = lo + (lo - n).rem_euclid(step);
    let (mut a, mut b) = (0, (hi - lo).div_euclid(step).max(0));
    while a < b {
        let t = (a + b + 1) / 2;
        if won(lo + step * t) {
            a = t;
        } else {
            b = t - 1;
        }
    }
    lo + step * a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_flags_read_back() {
        let flags: Vec<bool> = (0..200).map(|i| i % 3 == 0 || i % 7 == 5).collect();
        let bits = pack(flags.iter().copied());
        assert_eq!(bits.len(), 4);
        assert!((0..200).all(|i| bit(&bits, i) == flags[i]));
    }

    #[test]
    fn the_binary_search_finds_the_largest_threshold_won() {
        // Every range and every cut, both steps, against a scan of the grid: A wins the
        // thresholds up to `cut`; the answer is the largest grid point in [lo, hi] at
        // most `cut` (lo raised onto the grid is won: a margin has the grid's parity).
        for (n, step) in [(9i32, 1i32), (10, 2), (11, 2)] {
            for lo in -6..=2 {
                let on_grid = lo + (lo - n).rem_euclid(step);
                for hi in on_grid..=8 {
                    for cut in on_grid..=hi + 2 {
                        let mut asked = 0;
                        let won = |x: i32| {
                            asked += 1;
                            x <= cut
                        };
                        let got = largest_won(won, [lo, hi], [n, step]);
                        let grid = (on_grid..=hi).filter(|x| (x - n).rem_euclid(step) == 0);
                        let want = grid.filter(|&x| x <= cut).max().unwrap();
                        assert_eq!(got, want, "n {n} [{lo}, {hi}] cut {cut}");
                        assert!(asked <= 4, "{asked} games for a range of {}", hi - lo);
                    }
                }
            }
        }
    }
}
