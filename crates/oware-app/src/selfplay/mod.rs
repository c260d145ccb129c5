//! Self-play: many games at once, each move chosen by the batched MCTS, yielding
//! training samples.
//!
//! The games are split over worker threads. Each worker keeps its games in flight in a
//! batched environment ([`BatchEnv`]: positions, repetition history, endings, openings,
//! the moves of each game) and searches them with one [`BatchSearch`], slot `i` reading
//! lane `i`; the search hands back one move per lane whose search finished, and the env
//! steps them. Each worker has its own evaluator, so no two threads share anything but
//! the progress counters. Game `g`'s randomness (opening, noise, move sampling) is drawn
//! from stream `g` of the seed, so the same seed, config and thread count give the
//! same games.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::dataio::{LabelRule, Sample, Searched, label_game};
use oware_core::env::{AutoReset, BatchEnv, EnvConfig, Openings, SKIP, StepOut};
use oware_core::game::{Outcome, Position, RuleSet};
use oware_core::search::Evaluator;
use oware_core::search::cache::{CachedEvaluator, EvalCache};
use oware_core::search::mcts::{BatchSearch, MctsConfig, Pick};

/// Self-play settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfPlayConfig {
    /// Worker threads (0 = one per core); the learner's are `train.threads`.
    pub threads: usize,
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
    /// Gumbel only: during the first `gumbel_noise_plies` plies the played move is the
    /// search's own choice, which its Gumbel noise shapes; after them it is the argmax of
    /// the improved policy (the policy target, no noise). The search itself keeps its
    /// noise on every move: a noisy choice explores the openings, a noisy move late in a
    /// game only spoils the game's result (`experiments/ab/gumbel-noise-plies.md`).
    pub gumbel_noise_plies: u32,
    /// MiB of evaluation cache per self-play thread (`oware train`): a position met again
    /// in the iteration (a transposition, an opening many games share, a subtree pruned
    /// and grown again) is not evaluated again. Each thread has its own, so runs stay
    /// reproducible, and it starts empty every iteration (the network changed). A hit is
    /// the network's answer from an earlier batch, which its kernels may have rounded
    /// differently in the last bits. 0: none. It won its match at equal wall time
    /// (`experiments/ab/selfplay-cache.md`).
    pub cache_mb: usize,
    /// λ per ply of the value the target mixes in (`train.value_target_mix`): 0 keeps
    /// each full search's own root value; above 0 each sample takes the λ-weighted blend
    /// of the root values of the searches after it and the game's result, so ply `k`
    /// ahead weighs `(1 − λ)·λ^k` (`dataio::label::lambda_values`). 1 is the result alone.
    pub value_lambda: f32,
}

impl Default for SelfPlayConfig {
    fn default() -> Self {
        SelfPlayConfig {
            threads: 0,
            games_per_iteration: 256,
            games_in_flight: 256,
            opening_plies: 6,
            temperature: 1.0,
            temperature_plies: 20,
            gumbel_noise_plies: 20,
            cache_mb: 64,
            // With `train.value_target_mix = 0.5`: experiments/ab/value-lambda.md.
            value_lambda: 0.9,
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
        if self.opening_plies > Openings::MAX_PLIES {
            return Err(format!(
                "opening_plies = {} must be at most {}",
                self.opening_plies,
                Openings::MAX_PLIES
            ));
        }
        if !(self.temperature.is_finite() && self.temperature >= 0.0) {
            return Err(format!("temperature = {} must be ≥ 0", self.temperature));
        }
        if !(0.0..=1.0).contains(&self.value_lambda) {
            return Err(format!(
                "value_lambda = {} must be in [0, 1]",
                self.value_lambda
            ));
        }
        if self.cache_mb > 65_536 {
            return Err(format!("cache_mb = {} is more than 64 GiB", self.cache_mb));
        }
        Ok(())
    }
}

/// A finished self-play game.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayGame {
    /// Global game number within the call.
    pub id: u64,
    /// Moves from the start position as (mover-relative) actions, openings included.
    pub moves: Vec<u8>,
    /// How it ended.
    pub outcome: Outcome,
    /// Training samples it gave (one per full search).
    pub samples: usize,
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
    pub games: Vec<SelfPlayGame>,
    /// Simulations run.
    pub simulations: u64,
    /// Positions evaluated.
    pub evaluations: u64,
    /// Seconds spent inside the evaluator (summed over threads).
    pub eval_seconds: f64,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Share of the evaluations the self-play caches answered (`selfplay.cache_mb`).
    pub cache_hit_rate: Option<f64>,
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
        out: &mut [oware_core::search::Evaluation],
    ) {
        let t = Instant::now();
        self.inner.evaluate(rules, p, l, out);
        self.seconds += t.elapsed().as_secs_f64();
    }
    fn name(&self) -> String {
        self.inner.name()
    }
}

/// Who plays self-play: one evaluator per worker thread (each thread owns one), and the
/// share of the players' own policy (the root prior) in the policy target
/// ([`LabelRule::prior_mix`]): 0 for a network playing itself, `train.teacher_policy_mix`
/// while a teacher plays for the learner.
pub struct Players {
    pub evaluators: Vec<Box<dyn Evaluator>>,
    pub prior_mix: f32,
}

impl Players {
    /// Networks that play themselves: their own prior is not in the target.
    pub fn own(evaluators: Vec<Box<dyn Evaluator>>) -> Players {
        Players {
            evaluators,
            prior_mix: 0.0,
        }
    }
}

/// Plays `games` self-play games with `players`, one worker thread per evaluator.
/// Deterministic for a given (seed, config, number of evaluators).
pub fn play(
    cfg: &SelfPlayConfig,
    mcts: &MctsConfig,
    rules: RuleSet,
    games: usize,
    seed: u64,
    players: Players,
    progress: &Progress,
) -> SelfPlayOutput {
    let t0 = Instant::now();
    let label = LabelRule {
        value_lambda: cfg.value_lambda,
        prior_mix: players.prior_mix,
    };
    let evaluators = players.evaluators;
    let threads = evaluators.len().clamp(1, games.max(1));
    let jobs: Vec<_> = evaluators.into_iter().take(threads).enumerate().collect();
    let outputs = on_threads(jobs, |(t, mut e)| {
        let ids: Vec<u64> = (t..games).step_by(threads).map(|g| g as u64).collect();
        let slots = (cfg.games_in_flight / threads).max(1).min(ids.len().max(1));
        let mut games = InFlight::new(cfg, mcts, rules, slots, seed, label);
        worker(&mut games, &ids, cfg, progress, e.as_mut())
    });
    merge(outputs, t0)
}

/// Runs `work` on each job, one thread per job, and returns their outputs in job order.
fn on_threads<J: Send>(jobs: Vec<J>, work: impl Fn(J) -> WorkerOutput + Sync) -> Vec<WorkerOutput> {
    let work = &work;
    std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .into_iter()
            .map(|j| scope.spawn(move || work(j)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("self-play worker panicked"))
            .collect()
    })
}

/// One output from the workers': games in id order (not finishing order, so the output
/// does not depend on timing), their samples in the same order.
fn merge(outputs: Vec<WorkerOutput>, t0: Instant) -> SelfPlayOutput {
    let mut out = SelfPlayOutput::default();
    let mut finished = Vec::new();
    for o in outputs {
        out.simulations += o.simulations;
        out.evaluations += o.evaluations;
        out.eval_seconds += o.eval_seconds;
        finished.extend(o.finished);
    }
    finished.sort_by_key(|(g, _): &(SelfPlayGame, Vec<Sample>)| g.id);
    for (g, s) in finished {
        out.samples.extend(s);
        out.games.push(g);
    }
    out.seconds = t0.elapsed().as_secs_f64();
    out
}

struct WorkerOutput {
    finished: Vec<(SelfPlayGame, Vec<Sample>)>,
    simulations: u64,
    evaluations: u64,
    eval_seconds: f64,
}

/// A worker's games in flight, slot `i` holding one game: lane `i` of the env (its
/// position, repetition history, moves and random stream: the opening, the search's
/// root noise and the move choices are drawn from one stream from the game's start to
/// its end), slot `i` of the search (its tree), and record `i` (what self-play keeps of
/// it).
struct InFlight {
    env: BatchEnv,
    search: BatchSearch,
    records: Vec<Record>,
    /// How a finished game becomes samples.
    label: LabelRule,
    /// The env's actions for a step: [`SKIP`] but where a move is played.
    actions: Vec<u8>,
}

/// What self-play keeps of a game in flight besides its lane and its tree.
struct Record {
    /// The game's number in the call (its random stream is stream `id` of the seed).
    id: u64,
    /// Whether the slot holds a game (false once the worker has none left to start).
    active: bool,
    /// Whether its current search is a full one (its position becomes a sample).
    full: bool,
    /// The full searches of its game so far, waiting for the result.
    pending: Vec<Searched>,
}

impl InFlight {
    /// `slots` games under `rules` searched under `mcts`, none started; a game's opening
    /// is up to `cfg.opening_plies` random plies, drawn with the rest of its randomness
    /// from stream `game` of `seed`.
    fn new(
        cfg: &SelfPlayConfig,
        mcts: &MctsConfig,
        rules: RuleSet,
        slots: usize,
        seed: u64,
        label: LabelRule,
    ) -> InFlight {
        let config = EnvConfig {
            rules,
            seed,
            openings: Openings {
                min_plies: 0,
                max_plies: cfg.opening_plies,
            },
            auto_reset: AutoReset::Off,
            record_moves: true,
        };
        let env = BatchEnv::new(slots, config).expect("openings checked by validate");
        let records = (0..slots)
            .map(|_| Record {
                id: 0,
                active: false,
                full: false,
                pending: Vec::with_capacity(256),
            })
            .collect();
        InFlight {
            env: env.serial(),
            search: BatchSearch::new(mcts.clone(), rules, slots),
            records,
            label,
            actions: vec![SKIP; slots],
        }
    }

    /// Starts the next game of `ids` in slot `i` (or parks the slot when none is left):
    /// the env plays its random opening, the tree starts afresh after it, and its first
    /// search begins. A game that the forced moves after its opening end is finished
    /// into `out`, and the next one taken.
    fn start_next(
        &mut self,
        i: usize,
        ids: &mut impl Iterator<Item = u64>,
        progress: &Progress,
        out: &mut WorkerOutput,
    ) {
        loop {
            let Some(id) = ids.next() else {
                self.records[i].active = false;
                return;
            };
            self.env.start_game(i, id).expect("a lane of the batch");
            self.search.set_root(i, self.env.position(i));
            let r = &mut self.records[i];
            (r.id, r.active) = (id, true);
            r.pending.clear();
            if self.begin(i) {
                return;
            }
            self.finish(i, progress, out);
        }
    }

    /// Plays game `i`'s forced moves, then begins its next search, full or cheap as the
    /// search's playout cap draws from the game's stream. False if the game is over.
    fn begin(&mut self, i: usize) -> bool {
        loop {
            let m = self.env.legal(i);
            if m == 0 {
                return false;
            }
            if m.count_ones() != 1 {
                break;
            }
            self.play(&[(i, m.trailing_zeros() as usize)]);
        }
        let legal = self.env.legal(i);
        match self.search.begin_capped(i, legal, self.env.rng_mut(i)) {
            Some(full) => {
                self.records[i].full = full;
                true
            }
            None => false,
        }
    }

    /// Game `i`'s move from its finished search (a full search's position joins the
    /// game's samples first), picked as the search's rule says ([`Pick`]): by temperature
    /// over the first `temperature_plies` (PUCT), by the search's noisy choice over the
    /// first `gumbel_noise_plies` (Gumbel).
    fn choose(&mut self, i: usize, cfg: &SelfPlayConfig) -> usize {
        let r = self.search.result(i);
        let ply = self.env.ply(i);
        let rec = &mut self.records[i];
        if rec.full {
            rec.pending.push(Searched {
                position: *self.env.position(i),
                ply,
                legal: r.legal,
                policy: r.policy,
                prior: r.prior,
                search_value: r.value,
            });
        }
        let pick = Pick {
            temperature: if ply < cfg.temperature_plies {
                cfg.temperature
            } else {
                0.0
            },
            noisy: ply < cfg.gumbel_noise_plies,
        };
        self.search.choose(&r, pick, self.env.rng_mut(i))
    }

    /// Plays each `(i, action)` in game `i`, all in one step of the env, and moves each
    /// game's tree along: the one place a self-play move is played.
    fn play(&mut self, moves: &[(usize, usize)]) {
        if moves.is_empty() {
            return;
        }
        for &(i, a) in moves {
            self.actions[i] = a as u8;
        }
        self.env
            .step(&self.actions, StepOut::default())
            .expect("the search chose an illegal move");
        self.actions.fill(SKIP);
        for &(i, a) in moves {
            self.search.advance(i, a, &self.env);
        }
    }

    /// Labels game `i`'s pending samples with its outcome and stores the game in `out`.
    fn finish(&mut self, i: usize, progress: &Progress, out: &mut WorkerOutput) {
        let Some(o) = self.env.last_outcome(i) else {
            return;
        };
        let moves = self.env.moves(i);
        let rec = &mut self.records[i];
        let samples = label_game(&rec.pending, o, moves.len() as u32, &self.label);
        progress.games.fetch_add(1, Ordering::Relaxed);
        progress
            .samples
            .fetch_add(samples.len() as u64, Ordering::Relaxed);
        let game = SelfPlayGame {
            id: rec.id,
            moves: moves.to_vec(),
            outcome: o,
            samples: samples.len(),
        };
        out.finished.push((game, samples));
        rec.pending.clear();
    }
}

/// Plays the games `ids` with `games`' slots in flight at once: a slot without a game
/// starts the next, a finished game's slot too. Returns when every game has finished, or
/// when `progress.stop` is set.
fn worker(
    games: &mut InFlight,
    ids: &[u64],
    cfg: &SelfPlayConfig,
    progress: &Progress,
    evaluator: &mut dyn Evaluator,
) -> WorkerOutput {
    let slots = games.records.len();
    let mut timed = Timed {
        inner: evaluator,
        seconds: 0.0,
    };
    let mut out = WorkerOutput {
        finished: Vec::with_capacity(64),
        simulations: 0,
        evaluations: 0,
        eval_seconds: 0.0,
    };
    let mut ids = ids.iter().copied();
    let (sims0, evals0) = (games.search.simulations, games.search.evaluated);
    let mut sims_reported = sims0;
    // The games whose search finished in a step, and the move each plays.
    let mut played: Vec<(usize, usize)> = Vec::with_capacity(slots);
    for i in 0..slots {
        games.start_next(i, &mut ids, progress, &mut out);
    }
    while games.records.iter().any(|r| r.active) {
        if progress.stop.load(Ordering::Relaxed) {
            break;
        }
        games.search.step(&games.env, &mut timed);
        played.clear();
        for i in 0..slots {
            if games.records[i].active && !games.search.is_searching(i) {
                played.push((i, games.choose(i, cfg)));
            }
        }
        games.play(&played);
        for &(i, _) in &played {
            progress.moves.fetch_add(1, Ordering::Relaxed);
            if !games.begin(i) {
                games.finish(i, progress, &mut out);
                games.start_next(i, &mut ids, progress, &mut out);
            }
        }
        let sims = games.search.simulations;
        progress
            .simulations
            .fetch_add(sims - sims_reported, Ordering::Relaxed);
        sims_reported = sims;
    }
    out.simulations = games.search.simulations - sims0;
    out.evaluations = games.search.evaluated - evals0;
    out.eval_seconds = timed.seconds;
    out
}

/// Puts each evaluator behind an evaluation cache of its own of `mb` MiB (none for 0):
/// the caches, to read their hit rate.
pub fn with_caches(evaluators: &mut Vec<Box<dyn Evaluator>>, mb: usize) -> Vec<Arc<EvalCache>> {
    if mb == 0 {
        return Vec::new();
    }
    let plain = std::mem::take(evaluators);
    let mut caches = Vec::with_capacity(plain.len());
    for e in plain {
        let cache = Arc::new(EvalCache::with_bytes(mb << 20));
        caches.push(cache.clone());
        evaluators.push(Box::new(CachedEvaluator::new(e, cache)));
    }
    caches
}

/// Hits ÷ lookups over `caches` (`None` without caches).
pub fn hit_rate(caches: &[Arc<EvalCache>]) -> Option<f64> {
    if caches.is_empty() {
        return None;
    }
    let (l, h) = caches
        .iter()
        .map(|c| c.counts())
        .fold((0, 0), |(l, h), (cl, ch)| (l + cl, h + ch));
    Some(if l == 0 { 0.0 } else { h as f64 / l as f64 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::search::UniformEvaluator;
    use oware_core::search::mcts::Algorithm;

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
            let cfg = SelfPlayConfig::default();
            let mut games = InFlight::new(
                &cfg,
                &mcts,
                RuleSet::abapa(),
                1,
                7,
                LabelRule {
                    value_lambda: 0.0,
                    prior_mix: 0.0,
                },
            );
            let (mut full, mut cheap) = (0, 0);
            for _ in 0..200 {
                assert!(games.begin(0));
                let st = &games.records[0];
                let want = st.full || alg == Algorithm::Gumbel;
                assert_eq!(games.search.root_noise(0), want, "{alg:?} full={}", st.full);
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

    #[test]
    fn after_the_noisy_plies_gumbel_plays_the_argmax_of_its_policy_target() {
        // Every search full, so every searched position is a sample, in game order.
        let mcts = full_gumbel_searches();
        let cfg = SelfPlayConfig {
            games_per_iteration: 6,
            games_in_flight: 6,
            gumbel_noise_plies: 0,
            ..SelfPlayConfig::default()
        };
        let evs =
            vec![Box::new(oware_core::search::RolloutEvaluator::new(3, 1)) as Box<dyn Evaluator>];
        let out = play(
            &cfg,
            &mcts,
            RuleSet::abapa(),
            6,
            9,
            Players::own(evs),
            &Progress::default(),
        );
        let mut samples = out.samples.iter();
        let mut checked = 0;
        for g in &out.games {
            let mine: Vec<&Sample> = samples.by_ref().take(g.samples).collect();
            let mut next = mine.iter().peekable();
            let mut game = oware_core::game::Game::new(RuleSet::abapa(), Position::start());
            for &a in &g.moves {
                if let Some(s) = next.peek()
                    && s.position == *game.position()
                {
                    // The largest policy entry among the legal moves, the lowest on ties.
                    let mut want = None::<usize>;
                    for b in (0..6).filter(|&b| s.legal & (1 << b) != 0) {
                        if want.is_none_or(|w| s.policy[b] > s.policy[w]) {
                            want = Some(b);
                        }
                    }
                    assert_eq!(Some(a as usize), want, "game {} {:?}", g.id, s.policy);
                    next.next();
                    checked += 1;
                }
                game.play(a as usize).unwrap();
            }
            assert!(
                next.peek().is_none(),
                "a sample of game {} matched no ply",
                g.id
            );
        }
        assert!(checked > 50, "{checked}");
    }

    /// Gumbel, 16 simulations, every search full (so every searched position is a
    /// sample, in game order).
    fn full_gumbel_searches() -> MctsConfig {
        MctsConfig {
            algorithm: Algorithm::Gumbel,
            simulations: 16,
            cheap_simulations: 16,
            full_search_fraction: 1.0,
            ..MctsConfig::default()
        }
    }

    fn run(threads: usize, seed: u64, alg: Algorithm) -> SelfPlayOutput {
        let mcts = MctsConfig {
            algorithm: alg,
            simulations: 16,
            cheap_simulations: 4,
            ..MctsConfig::default()
        };
        let cfg = SelfPlayConfig {
            games_per_iteration: 12,
            games_in_flight: 6,
            // Every move noisy: with a uniform evaluator the argmax would play the
            // same few games, and these tests want them varied.
            gumbel_noise_plies: u32::MAX,
            ..SelfPlayConfig::default()
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
            Players::own(evaluators),
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
            let mut game = oware_core::game::Game::new(RuleSet::abapa(), Position::start());
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
