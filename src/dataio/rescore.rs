//! Endgame samples relabelled from the tables (lc0's "rescorer"): where the endgame
//! tables prove a sample's outcome, its value targets become that outcome instead of the
//! game's noisy result, and its policy keeps only the moves that hold it. The network
//! still sees and learns these positions, so it plays them without tables.

use super::Sample;
use crate::game::Position;
use crate::tablebase::{Tablebase, TbOutcome};

/// Relabels `s` when `tb` proves its position's outcome (the table's entry is exact, or
/// its bounds give one outcome; `Tablebase::proven`): the result and the search value
/// become that outcome (+1, 0, −1), and, when every legal move's outcome is proven, the
/// policy keeps only the moves that hold it (the search's own shares of them,
/// renormalised, or equal shares if the search gave them nothing). The store difference
/// stays the game's. Returns whether it changed anything.
pub fn rescore(s: &mut Sample, tb: &Tablebase) -> bool {
    let Some(o) = tb.proven(&s.position) else {
        return false;
    };
    let z = o.score();
    s.outcome = z as i8;
    s.search_value = z as f32;
    if let Some(keep) = holding_moves(&s.position, o, tb) {
        let kept: f32 = (0..6)
            .filter(|&a| keep & (1 << a) != 0)
            .map(|a| s.policy[a])
            .sum();
        for a in 0..6 {
            s.policy[a] = match (keep & (1 << a) != 0, kept > 0.0) {
                (false, _) => 0.0,
                (true, true) => s.policy[a] / kept,
                (true, false) => 1.0 / keep.count_ones() as f32,
            };
        }
    }
    true
}

/// The legal moves of `pos` after which the mover still gets `o` with best play, as a
/// mask; `None` when some move's outcome is not proven (then which moves hold `o` is not
/// known).
pub fn holding_moves(pos: &Position, o: TbOutcome, tb: &Tablebase) -> Option<u8> {
    let rules = tb.rules();
    let legal = pos.legal_moves(rules);
    let mut keep = 0u8;
    for a in (0..6).filter(|&a| legal & (1 << a) != 0) {
        let mut c = *pos;
        c.apply(rules, a);
        let score = match c.status(rules) {
            Some(end) => i32::from(end.score_for(pos.side)),
            None => {
                let theirs = tb.proven(&c)?.score();
                if c.side == pos.side { theirs } else { -theirs }
            }
        };
        if score == o.score() {
            keep |= 1 << a;
        }
    }
    Some(keep)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{RuleSet, Side};
    use crate::rng::Rng;
    use crate::tablebase::solve::Solver;

    fn sample(pos: Position, legal: u8) -> Sample {
        let n = legal.count_ones() as f32;
        Sample {
            position: pos,
            legal,
            policy: std::array::from_fn(|a| if legal & (1 << a) != 0 { 1.0 / n } else { 0.0 }),
            outcome: 0,
            store_diff: 0.0,
            search_value: 0.3,
        }
    }

    #[test]
    fn rescored_samples_take_the_outcome_a_solver_proves() {
        let rules = RuleSet::abapa();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tablebases/abapa");
        let tb = Tablebase::open(&dir).expect("the shipped tables");
        let mut rng = Rng::new(21);
        let (mut checked, mut policies, mut solved) = (0, 0, 0);
        while checked < 150 {
            // A random endgame: 3 to 8 seeds on the board, the rest in the stores with
            // neither past 24, so the board decides.
            let n = 3 + rng.below(6) as u8;
            let mut pos = Position::start();
            pos.pits = [0; 12];
            for _ in 0..n {
                pos.pits[rng.below(12) as usize] += 1;
            }
            let rest = 48 - n;
            let south = rest - 24 + rng.below(u32::from(24 - (rest - 24)) + 1) as u8;
            pos.stores = [south, rest - south];
            pos.side = if rng.below(2) == 0 {
                Side::South
            } else {
                Side::North
            };
            let legal = pos.legal_moves(rules);
            if pos.status(rules).is_some() || legal == 0 {
                continue;
            }
            let mut s = sample(pos, legal);
            let before = s;
            if !rescore(&mut s, &tb) {
                assert_eq!(s, before, "an unproven sample changed");
                continue;
            }
            checked += 1;
            // An independent check: the exact solver's result from this board with no
            // history (what the tables assume where they prove an outcome).
            // (Many endgames cycle without a capture, which the solver cannot settle
            // within a small budget; those go unchecked here.)
            let mut solver = Solver::new(rules, 200_000);
            let guess = tb.value(&pos).map_or(0, |v| v.0);
            if let Ok(v) = solver.solve_near(&pos, guess) {
                solved += 1;
                let me = pos.side.index();
                let margin = pos.stores[me] as i32 - pos.stores[1 - me] as i32 + v;
                assert_eq!(i32::from(s.outcome), margin.signum(), "{pos:?}");
            }
            assert_eq!(s.search_value, f32::from(s.outcome));
            let sum: f32 = s.policy.iter().sum();
            assert!((sum - 1.0).abs() < 1e-5, "{:?}", s.policy);
            if s.policy != before.policy {
                policies += 1;
                // Every move kept holds the outcome: after it, the tables prove the
                // same result for the mover.
                for a in (0..6).filter(|&a| s.policy[a] > 0.0) {
                    let mut c = pos;
                    c.apply(rules, a);
                    let r = match c.status(rules) {
                        Some(end) => i32::from(end.score_for(pos.side)),
                        None => {
                            let t = tb.proven(&c).unwrap().score();
                            if c.side == pos.side { t } else { -t }
                        }
                    };
                    assert_eq!(r, i32::from(s.outcome));
                }
            }
        }
        assert!(policies > 10, "only {policies} policies rewritten");
        assert!(
            solved >= 20,
            "the solver checked only {solved} of {checked}"
        );
    }
}
