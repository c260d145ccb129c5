//! Self-play: many games at once, each move chosen by the batched MCTS, yielding
//! training samples.
//!
//! The games are split over worker threads; each worker owns a `BatchSearch` over its
//! games in flight and its own evaluator, so no two threads share anything but the
//! progress counters. Game `g`'s randomness (opening, noise, move sampling) is drawn
//! from stream `g` of the seed, so the same seed, config and thread count give the
//! same games.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::game::{Game, Outcome, Position, RuleSet};
use crate::rng::Rng;
use crate::search::Evaluator;
use crate::search::mcts::{Algorithm, BatchSearch, MctsConfig};

/// One training sample: a position searched with a full search, its targets filled in
/// when the game ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    /// The position (features are computed from it by the trainer's encoding).
    pub position: Position,
    /// Legal moves there (6-bit mask of mover-relative actions).
    pub legal: u8,
    /// The search's policy target over the six actions (0 on illegal moves).
    pub policy: [f32; 6],
    /// The game's result for the mover here: +1 win, 0 draw, −1 loss.
    pub outcome: i8,
    /// Final store difference (own − opponent) for the mover here, in seeds.
    pub store_diff: f32,
    /// The search's root value for the mover, [−1, 1] (for mixing into the value target).
    pub search_value: f32,
}

/// Self-play settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Games played per training iteration.
    pub games_per_iteration: usize,
    /// Games in flight at once over all threads (the evaluator batch is about this
    /// size divided by the thread count).
    pub games_in_flight: usize,
    /// Each game starts with a uniformly random number of uniformly random plies in
    /// 0..=opening_plies (not recorded), for diversity.
    pub opening_plies: u32,
    /// PUCT only: moves sampled ∝ visits^(1/temperature) during the first
    /// `temperature_plies` plies, then the most visited. Gumbel samples by its noise.
    pub temperature: f32,
    /// See `temperature`.
    pub temperature_plies: u32,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            games_per_iteration: 256,
            games_in_flight: 256,
            opening_plies: 8,
            temperature: 1.0,
            temperature_plies: 20,
        }
    }
}

impl SelfPlayConfig {
    /// Checks every value; the message names the key.
    pub fn validate(&self) -> Result<(), String> {
        if self.games_per_iteration == 0 {
            return Err("games_per_iteration must be at least 1".into());
        }
        if self.games_in_flight == 0 {
            return Err("games_in_flight must be at least 1".into());
        }
        if !(self.temperature.is_finite() && self.temperature >= 0.0) {
            return Err(format!("temperature = {} must be ≥ 0", self.temperature));
        }
        Ok(())
    }
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Global game number within the call.
    pub id: u64,
    /// Moves from the start position as (mover-relative) actions, openings included.
    pub moves: Vec<u8>,
    /// How it ended.
    pub outcome: Outcome,
}

/// Live counters, readable from another thread (for progress display).
#[derive(Debug, Default)]
pub struct Progress {
    /// Games finished.
    pub games: AtomicU64,
    /// Samples recorded.
    pub samples: AtomicU64,
    /// Simulations run.
    pub simulations: AtomicU64,
    /// Moves played.
    pub moves: AtomicU64,
    /// Set to stop: the games in flight are abandoned at the next search step, and the
    /// call returns the games finished so far.
    pub stop: std::sync::atomic::AtomicBool,
}

/// What a self-play call produced and how fast.
#[derive(Clone, Debug, Default)]
pub struct SelfPlayOutput {
    /// Training samples, in game order.
    pub samples: Vec<Sample>,
    /// Finished games, by id.
    pub games: Vec<GameRecord>,
    /// Simulations run.
    pub simulations: u64,
    /// Positions evaluated.
    pub evaluations: u64,
    /// Seconds spent inside the evaluator (summed over threads).
    pub eval_seconds: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

/// Per-slot bookkeeping of the game it plays.
struct SlotState {
    id: u64,
    active: bool,
    full: bool,
    pending: Vec<(Position, u8, [f32; 6], f32)>,
}

/// Wraps an evaluator to time it.
struct Timed<'a> {
    inner: &'a mut dyn Evaluator,
    seconds: f64,
}

impl Evaluator for Timed<'_> {
    fn evaluate(
        &mut self,
        rules: RuleSet,
        p: &[Position],
        l: &[u8],
        out: &mut [crate::search::Evaluation],
    ) {
        let t = Instant::now();
        self.inner.evaluate(rules, p, l, out);
        self.seconds += t.elapsed().as_secs_f64();
    }
    fn name(&self) -> String {
        self.inner.name()
    }
}

/// Plays `games` self-play games on one worker thread per evaluator in `evaluators`
/// (each thread owns one). Deterministic for a given (seed, config, number of
/// evaluators).
pub fn play(
    cfg: &SelfPlayConfig,
    mcts: &MctsConfig,
    rules: RuleSet,
    games: usize,
    seed: u64,
    evaluators: Vec<Box<dyn Evaluator>>,
    progress: &Progress,
) -> SelfPlayOutput {
    let t0 = Instant::now();
    let threads = evaluators.len().clamp(1, games.max(1));
    let outputs: Vec<WorkerOutput> = std::thread::scope(|scope| {
        let handles: Vec<_> = evaluators
            .into_iter()
            .take(threads)
            .enumerate()
            .map(|(t, mut e)| {
                let ids: Vec<u64> = (t..games).step_by(threads).map(|g| g as u64).collect();
                let slots = (cfg.games_in_flight / threads).max(1).min(ids.len().max(1));
                scope.spawn(move || {
                    worker(cfg, mcts, rules, &ids, slots, seed, e.as_mut(), progress)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("self-play worker panicked"))
            .collect()
    });
    let mut out = SelfPlayOutput::default();
    let mut finished = Vec::with_capacity(games);
    for o in outputs {
        out.simulations += o.simulations;
        out.evaluations += o.evaluations;
        out.eval_seconds += o.eval_seconds;
        finished.extend(o.finished);
    }
    // Game order, not finishing order, so the output does not depend on timing.
    finished.sort_by_key(|(g, _): &(GameRecord, Vec<Sample>)| g.id);
    for (g, s) in finished {
        out.samples.extend(s);
        out.games.push(g);
    }
    out.seconds = t0.elapsed().as_secs_f64();
    out
}

struct WorkerOutput {
    finished: Vec<(GameRecord, Vec<Sample>)>,
    simulations: u64,
    evaluations: u64,
    eval_seconds: f64,
}

/// Plays the games `ids` with `slots` of them in flight at once.
#[allow(clippy::too_many_arguments)]
fn worker(
    cfg: &SelfPlayConfig,
    mcts: &MctsConfig,
    rules: RuleSet,
    ids: &[u64],
    slots: usize,
    seed: u64,
    evaluator: &mut dyn Evaluator,
    progress: &Progress,
) -> WorkerOutput {
    let mut b = BatchSearch::new(mcts.clone(), rules, slots, seed);
    let mut timed = Timed {
        inner: evaluator,
        seconds: 0.0,
    };
    let mut state: Vec<SlotState> = (0..slots)
        .map(|_| SlotState {
            id: 0,
            active: false,
            full: false,
            pending: Vec::with_capacity(256),
        })
        .collect();
    let mut queue = GameQueue {
        ids,
        next: 0,
        cfg,
        mcts,
        rules,
        seed,
        progress,
    };
    let mut out = WorkerOutput {
        finished: Vec::with_capacity(ids.len()),
        simulations: 0,
        evaluations: 0,
        eval_seconds: 0.0,
    };
    let mut sims_reported = 0u64;
    for i in 0..slots {
        queue.start_game(&mut b, &mut state[i], i, &mut out);
    }
    while state.iter().any(|s| s.active) {
        if progress.stop.load(Ordering::Relaxed) {
            break;
        }
        b.step(&mut timed);
        for i in 0..slots {
            if !state[i].active || b.is_searching(i) {
                continue;
            }
            let r = b.result(i);
            if state[i].full {
                let p = *b.game(i).position();
                state[i].pending.push((p, r.legal, r.policy, r.value));
            }
            let ply = b.game(i).moves().len() as u32;
            let temperature = if ply < cfg.temperature_plies {
                cfg.temperature
            } else {
                0.0
            };
            let a = b.choose(i, temperature);
            b.play(i, a).expect("the search chose an illegal move");
            progress.moves.fetch_add(1, Ordering::Relaxed);
            if !begin_search(&mut b, &mut state[i], i, mcts) {
                finish_game(&b, &mut state[i], i, &mut out, progress);
                queue.start_game(&mut b, &mut state[i], i, &mut out);
            }
        }
        progress
            .simulations
            .fetch_add(b.simulations - sims_reported, Ordering::Relaxed);
        sims_reported = b.simulations;
    }
    out.simulations = b.simulations;
    out.evaluations = b.evaluated;
    out.eval_seconds = timed.seconds;
    out
}

/// The games a worker still has to start, and what starting one needs.
struct GameQueue<'a> {
    ids: &'a [u64],
    next: usize,
    cfg: &'a SelfPlayConfig,
    mcts: &'a MctsConfig,
    rules: RuleSet,
    seed: u64,
    progress: &'a Progress,
}

impl GameQueue<'_> {
    /// Starts the next game in slot `i` (or parks the slot when none is left): a random
    /// opening, then the first search.
    fn start_game(
        &mut self,
        b: &mut BatchSearch,
        st: &mut SlotState,
        i: usize,
        out: &mut WorkerOutput,
    ) {
        loop {
            let Some(&id) = self.ids.get(self.next) else {
                st.active = false;
                return;
            };
            st.id = id;
            self.next += 1;
            st.active = true;
            st.pending.clear();
            let mut rng = Rng::stream(self.seed, st.id);
            let mut game = Game::new(self.rules, Position::start());
            let k = rng.below(self.cfg.opening_plies + 1);
            for _ in 0..k {
                let m = game.legal_moves();
                if m == 0 {
                    break;
                }
                game.play(rng.pick_bit(m)).expect("a legal random move");
            }
            b.set_game(i, game);
            *b.rng(i) = rng;
            if begin_search(b, st, i, self.mcts) {
                return;
            }
            // The opening (or the forced moves after it) ended the game: record it, go on.
            finish_game(b, st, i, out, self.progress);
        }
    }
}

/// Plays forced moves, then starts a full or cheap search. False if the game is over.
fn begin_search(b: &mut BatchSearch, st: &mut SlotState, i: usize, mcts: &MctsConfig) -> bool {
    loop {
        let g = b.game(i);
        if g.is_over() {
            return false;
        }
        let m = g.legal_moves();
        if m.count_ones() == 1 {
            b.play(i, m.trailing_zeros() as usize)
                .expect("the only legal move");
            continue;
        }
        break;
    }
    let full = b.rng(i).unit_f32() < mcts.full_search_fraction;
    st.full = full;
    let sims = if full {
        mcts.simulations
    } else {
        mcts.cheap_simulations
    };
    // Playout-cap randomisation: only full searches explore. A cheap search plays a move
    // and records no sample, so Dirichlet noise there would only spoil the move. Gumbel's
    // root sampling is how that algorithm picks among its considered moves, so it stays.
    let noise = full || mcts.algorithm == Algorithm::Gumbel;
    b.begin(i, sims, noise)
}

/// Labels slot `i`'s pending samples with the game's outcome and stores the game.
fn finish_game(
    b: &BatchSearch,
    st: &mut SlotState,
    i: usize,
    out: &mut WorkerOutput,
    progress: &Progress,
) {
    let g = b.game(i);
    let Some(o) = g.outcome() else {
        return;
    };
    let samples: Vec<Sample> = st
        .pending
        .iter()
        .map(|&(position, legal, policy, search_value)| Sample {
            position,
            legal,
            policy,
            outcome: o.score_for(position.side),
            store_diff: o.store_diff_for(position.side),
            search_value,
        })
        .collect();
    progress.games.fetch_add(1, Ordering::Relaxed);
    progress
        .samples
        .fetch_add(samples.len() as u64, Ordering::Relaxed);
    let record = GameRecord {
        id: st.id,
        moves: g.moves().iter().map(|&(_, a)| a).collect(),
        outcome: o,
    };
    out.finished.push((record, samples));
    st.pending.clear();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::UniformEvaluator;
    use crate::search::mcts::Algorithm;

    #[test]
    fn cheap_puct_searches_get_no_dirichlet_noise() {
        for (alg, fraction) in [
            (Algorithm::Puct, 0.0),
            (Algorithm::Puct, 1.0),
            (Algorithm::Puct, 0.5),
            (Algorithm::Gumbel, 0.0),
        ] {
            let mcts = MctsConfig {
                algorithm: alg,
                simulations: 16,
                cheap_simulations: 4,
                full_search_fraction: fraction,
                ..MctsConfig::default()
            };
            let mut b = BatchSearch::new(mcts.clone(), RuleSet::abapa(), 1, 7);
            let mut st = SlotState {
                id: 0,
                active: true,
                full: false,
                pending: Vec::new(),
            };
            let (mut full, mut cheap) = (0, 0);
            for _ in 0..200 {
                assert!(begin_search(&mut b, &mut st, 0, &mcts));
                let want = st.full || alg == Algorithm::Gumbel;
                assert_eq!(b.root_noise(0), want, "{alg:?} full={}", st.full);
                if st.full {
                    full += 1;
                } else {
                    cheap += 1;
                }
            }
            // Both kinds occur as the fraction says.
            assert_eq!(full == 0, fraction == 0.0);
            assert_eq!(cheap == 0, fraction == 1.0);
        }
    }

    fn run(threads: usize, seed: u64, alg: Algorithm) -> SelfPlayOutput {
        let cfg = SelfPlayConfig {
            games_per_iteration: 12,
            games_in_flight: 6,
            ..SelfPlayConfig::default()
        };
        let mcts = MctsConfig {
            algorithm: alg,
            simulations: 16,
            cheap_simulations: 4,
            ..MctsConfig::default()
        };
        let evaluators = (0..threads)
            .map(|_| Box::new(UniformEvaluator) as Box<dyn Evaluator>)
            .collect();
        play(
            &cfg,
            &mcts,
            RuleSet::abapa(),
            12,
            seed,
            evaluators,
            &Progress::default(),
        )
    }

    #[test]
    fn games_are_complete_and_samples_labelled() {
        let out = run(2, 1, Algorithm::Gumbel);
        assert_eq!(out.games.len(), 12);
        let ids: Vec<u64> = out.games.iter().map(|g| g.id).collect();
        assert_eq!(ids, (0..12).collect::<Vec<_>>());
        assert!(!out.samples.is_empty());
        for g in &out.games {
            // Replaying the recorded moves reaches the recorded outcome.
            let mut game = Game::new(RuleSet::abapa(), Position::start());
            for &a in &g.moves {
                game.play(a as usize).unwrap();
            }
            assert_eq!(game.outcome(), Some(g.outcome));
        }
        for s in &out.samples {
            assert_eq!(s.legal, s.position.legal_moves(RuleSet::abapa()));
            assert!((s.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            for a in 0..6 {
                if s.legal & (1 << a) == 0 {
                    assert_eq!(s.policy[a], 0.0);
                }
            }
            assert!((-1..=1).contains(&s.outcome));
            let sign = if s.store_diff > 0.0 {
                1
            } else if s.store_diff < 0.0 {
                -1
            } else {
                0
            };
            assert_eq!(s.outcome, sign);
        }
    }

    #[test]
    fn same_seed_same_games() {
        for alg in [Algorithm::Puct, Algorithm::Gumbel] {
            let a = run(2, 5, alg);
            let b = run(2, 5, alg);
            assert_eq!(a.games, b.games);
            assert_eq!(a.samples, b.samples);
            let c = run(2, 6, alg);
            assert_ne!(a.games, c.games);
        }
    }
}
