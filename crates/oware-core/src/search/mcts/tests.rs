//! MCTS against hand-checked positions and brute-force game values.

use super::*;
use crate::game::{Game, History, Position, RuleSet};
use crate::rng::Rng;
use crate::search::{Evaluation, Evaluator, UniformEvaluator};

fn pos(fen: &str) -> Position {
    fen.parse().unwrap()
}

fn cfg(algorithm: Algorithm, sims: u32) -> MctsConfig {
    MctsConfig {
        algorithm,
        simulations: sims,
        ..MctsConfig::default()
    }
}

fn search(fen: &str, c: MctsConfig, rules: RuleSet) -> RootStats {
    let mut b = SearchedGames::new(c.clone(), rules, 1, 7);
    b.set_game(0, Game::new(rules, pos(fen)));
    assert!(b.begin(0, c.simulations, false));
    b.run(&mut UniformEvaluator);
    b.result(0)
}

/// The exact game value (+1 win, 0 draw, −1 loss for the mover) by plain minimax with
/// the repetition rule; `None` if the game does not end within `depth` plies.
fn minimax(p: &Position, rules: RuleSet, hist: &mut Vec<u128>, depth: u32) -> Option<i8> {
    if let Some(o) = p.status(rules) {
        return Some(o.score_for(p.side));
    }
    if depth == 0 {
        return None;
    }
    let mut best = -2i8;
    for a in 0..6 {
        if p.legal_moves(rules) & (1 << a) == 0 {
            continue;
        }
        let mut q = *p;
        let info = q.apply(rules, a);
        let v = if info.captured == 0 && hist.contains(&q.key()) {
            let o = q.share_out(crate::game::EndReason::Repetition, rules.repetition);
            o.score_for(q.side)
        } else {
            hist.push(q.key());
            let v = minimax(&q, rules, hist, depth - 1);
            hist.pop();
            v?
        };
        let mine = if q.side == p.side { v } else { -v };
        best = best.max(mine);
    }
    Some(best)
}

#[test]
fn finds_the_winning_capture() {
    // docs/rules.md example 4: C captures 11 and wins; F does not.
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        let r = search(
            "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S",
            cfg(alg, 64),
            RuleSet::abapa(),
        );
        assert_eq!(r.best, 2, "{alg:?}: {r:?}");
        assert!(r.value > 0.5, "{alg:?}: {r:?}");
    }
}

#[test]
fn avoids_the_grand_slam_trap() {
    // F would capture all 5 of North's seeds, so under abapa it captures nothing; E takes
    // 2 and reaches 25. Under grand-slam-captures F wins too.
    let fen = "0-0-0-0-2-2-1-2-0-0-0-0-23-18-S";
    for alg in [Algorithm::Puct, Algorithm::Gumbel] {
        let r = search(fen, cfg(alg, 200), RuleSet::abapa());
        assert_eq!(r.best, 4, "{alg:?}: {r:?}");
        assert_eq!(r.q[4], Some(1.0));
    }
}

#[test]
fn gumbel_improved_policy_prefers_the_winning_move() {
    let r = search(
        "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S",
        cfg(Algorithm::Gumbel, 8),
        RuleSet::abapa(),
    );
    // Uniform prior: 0.5 on each of C and F.
    assert_eq!(r.prior[2], 0.5);
    assert!(r.policy[2] > 0.9, "{:?}", r.policy);
    assert!((r.policy.iter().sum::<f32>() - 1.0).abs() < 1e-5);
}

#[test]
fn root_value_converges_to_minimax_on_small_endgames() {
    let rules = RuleSet::abapa();
    // Small endgames (found by a random scan for positions that plain minimax solves
    // within 14 plies), two each won, drawn and lost for the mover.
    let endgames = [
        "1-1-0-0-1-0-0-0-0-0-0-2-20-23-S",
        "1-0-1-0-1-0-0-0-0-0-0-1-21-23-S",
        "1-1-0-0-0-0-0-0-0-1-0-1-22-22-N",
        "0-1-1-0-0-0-0-0-0-0-1-0-21-24-S",
        "0-0-0-0-1-1-1-1-0-0-0-0-21-23-S",
        "0-0-0-1-1-0-1-0-0-0-0-0-21-24-S",
    ];
    let mut checked = 0;
    for fen in endgames {
        let p = pos(fen);
        let mut hist = vec![p.key()];
        let Some(exact) = minimax(&p, rules, &mut hist, 14) else {
            continue;
        };
        checked += 1;
        let errs: Vec<f32> = [50, 400, 3000]
            .iter()
            .map(|&n| (search(fen, cfg(Algorithm::Puct, n), rules).value - exact as f32).abs())
            .collect();
        assert!(errs[2] < 0.15, "{fen}: exact {exact}, errors {errs:?}");
        assert!(
            errs[2] <= errs[0] + 1e-3,
            "{fen}: exact {exact}, errors {errs:?}"
        );
    }
    assert_eq!(checked, endgames.len(), "every endgame is solvable");
}

#[test]
fn batch_results_do_not_depend_on_the_other_games() {
    // The same position searched alone or among others gives the same result.
    let fen = "0-0-8-0-0-1-3-1-1-1-2-0-15-16-S";
    let c = cfg(Algorithm::Puct, 100);
    let alone = search(fen, c.clone(), RuleSet::abapa());
    let mut b = SearchedGames::new(c.clone(), RuleSet::abapa(), 3, 7);
    b.set_game(1, Game::new(RuleSet::abapa(), pos(fen)));
    for i in 0..3 {
        b.begin(i, if i == 1 { 100 } else { 37 }, false);
    }
    b.run(&mut UniformEvaluator);
    assert_eq!(b.result(1), alone);
}

#[test]
fn tree_reuse_keeps_the_subtree() {
    let c = cfg(Algorithm::Puct, 200);
    let rules = RuleSet::abapa();
    let mut b = SearchedGames::new(c, rules, 1, 1);
    b.begin(0, 200, false);
    b.run(&mut UniformEvaluator);
    let best = b.result(0).best;
    let child_visits = b.result(0).visits[best];
    b.play(0, best).unwrap();
    let kept = b.tree(0).root_node().visits();
    // The child had `child_visits` visits through it; one of them expanded it.
    assert_eq!(kept + 1, child_visits);
    b.begin(0, 50, false);
    b.run(&mut UniformEvaluator);
    assert_eq!(b.result(0).simulations, 50);
    assert_eq!(b.tree(0).root_node().visits(), kept + 50);
}

#[test]
fn repetition_inside_the_tree_is_a_draw() {
    // docs/rules.md example 10: after AaBbCcDdEeF, North's f repeats the start: a draw. The
    // search at that point must see f as a draw (value 0), not as a fresh position.
    let rules = RuleSet::abapa();
    let mut g = Game::new(rules, pos("1-0-0-0-0-0-1-0-0-0-0-0-23-23-S"));
    g.play_text("AaBbCcDdEeF").unwrap();
    let mut b = SearchedGames::new(cfg(Algorithm::Puct, 20), rules, 1, 1);
    b.set_game(0, g);
    b.begin(0, 20, false);
    b.run(&mut UniformEvaluator);
    let r = b.result(0);
    assert_eq!(r.legal, 1 << 5);
    assert_eq!(r.q[5], Some(0.0));
}

/// An evaluator that counts its calls, to check that leaves are batched.
struct Counting(u32, usize);

impl Evaluator for Counting {
    fn evaluate(&mut self, r: RuleSet, p: &[Position], l: &[u8], out: &mut [Evaluation]) {
        self.0 += 1;
        self.1 = self.1.max(p.len());
        UniformEvaluator.evaluate(r, p, l, out);
    }
    fn name(&self) -> String {
        "counting".into()
    }
}

#[test]
fn one_evaluator_call_per_step_for_all_games() {
    let rules = RuleSet::abapa();
    let mut b = SearchedGames::new(cfg(Algorithm::Gumbel, 16), rules, 64, 3);
    for i in 0..64 {
        b.begin(i, 16, true);
    }
    let mut e = Counting(0, 0);
    let mut steps = 0;
    while b.step(&mut e) > 0 {
        steps += 1;
    }
    steps += 1;
    assert_eq!(e.0, steps);
    assert_eq!(e.1, 64);
    let _ = History::default();
}

/// Misleading priors: 0.9 on F, 0.1 on the winning C.
struct Misleading;

impl Evaluator for Misleading {
    fn evaluate(&mut self, r: RuleSet, p: &[Position], l: &[u8], out: &mut [Evaluation]) {
        UniformEvaluator.evaluate(r, p, l, out);
        if let Some(o) = out.first_mut()
            && l[0] == 0b100100
        {
            o.priors = [0.0, 0.0, 0.1, 0.0, 0.0, 0.9];
        }
    }
    fn name(&self) -> String {
        "misleading".into()
    }
}

#[test]
fn gumbel_improved_policy_corrects_a_misleading_prior() {
    let rules = RuleSet::abapa();
    let c = cfg(Algorithm::Gumbel, 16);
    let mut b = SearchedGames::new(c, rules, 1, 7);
    b.set_game(0, Game::new(rules, pos("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S")));
    b.begin(0, 16, false);
    b.run(&mut Misleading);
    let r = b.result(0);
    assert!((r.prior[2] - 0.1).abs() < 1e-6, "{r:?}");
    assert!(r.policy[2] > r.prior[2], "{r:?}");
    assert!(r.policy[2] > 0.5, "{r:?}");
    assert_eq!(r.best, 2);
}

#[test]
fn improved_search_value_weights_each_move_by_the_policy_target() {
    // With every legal move visited, completed Q is each move's Q: the improved value is
    // Σ π(a)·Q(a) from the result's own fields, and lies within the moves' Q range.
    let fen = "0-0-8-0-0-1-3-1-1-1-2-0-15-16-S";
    for alg in [Algorithm::Gumbel, Algorithm::Puct] {
        let mean = search(fen, cfg(alg, 400), RuleSet::abapa());
        let c = MctsConfig {
            search_value: SearchValue::Improved,
            ..cfg(alg, 400)
        };
        let r = search(fen, c, RuleSet::abapa());
        // Only the reported value changes.
        assert_eq!(
            (r.visits, r.policy, r.best),
            (mean.visits, mean.policy, mean.best)
        );
        let mut want = 0.0f32;
        let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
        for a in 0..6 {
            if r.legal & (1 << a) != 0 {
                let q = r.q[a].expect("every legal move visited at 400 simulations");
                want += r.policy[a] * q;
                lo = lo.min(q);
                hi = hi.max(q);
            }
        }
        assert!(
            (r.value - want).abs() < 1e-5,
            "{alg:?}: {} vs {want}",
            r.value
        );
        assert!(lo - 1e-6 <= r.value && r.value <= hi + 1e-6);
    }
}

#[test]
fn anytime_searches_keep_the_trained_constants() {
    let trained = MctsConfig {
        algorithm: Algorithm::Gumbel,
        c_puct: 2.5,
        fpu_reduction: 0.05,
        search_value: SearchValue::Improved,
        full_search_fraction: 0.25,
        ..MctsConfig::default()
    };
    let a = trained.anytime(500, true);
    assert_eq!(a.algorithm, Algorithm::Puct);
    assert_eq!((a.c_puct, a.fpu_reduction), (2.5, 0.05));
    assert_eq!(a.search_value, SearchValue::Improved);
    assert_eq!(
        (a.simulations, a.full_search_fraction, a.tree_reuse),
        (500, 1.0, true)
    );
    let t = MctsConfig {
        policy_temperature: 1.3,
        ..trained.clone()
    };
    assert_eq!(t.anytime(500, true).policy_temperature, 1.3);
    assert!(a.validate().is_ok());
    // A different c_puct changes what the search does.
    let fen = "0-0-8-0-0-1-3-1-1-1-2-0-15-16-S";
    let plain = search(
        fen,
        MctsConfig::default().anytime(300, false),
        RuleSet::abapa(),
    );
    let wide = search(fen, trained.anytime(300, false), RuleSet::abapa());
    assert_ne!(plain.visits, wide.visits);
}

/// The same skewed priors everywhere, value 0.
pub(super) struct Skewed;

pub(super) const SKEW: [f32; 6] = [0.5, 0.2, 0.1, 0.1, 0.05, 0.05];

impl Evaluator for Skewed {
    fn evaluate(&mut self, _: RuleSet, _: &[Position], _: &[u8], out: &mut [Evaluation]) {
        for o in out {
            o.priors = SKEW;
            o.value = 0.0;
        }
    }
    fn name(&self) -> String {
        "skewed".into()
    }
}

/// softmax(ln p / t), computed apart from `policy::temper`.
pub(super) fn tempered(p: [f32; 6], t: f32) -> [f32; 6] {
    let e = p.map(|x| (x.ln() / t).exp());
    let sum: f32 = e.iter().sum();
    e.map(|x| x / sum)
}

#[test]
fn the_policy_temperature_reaches_the_batched_tree() {
    for t in [1.0f32, 2.0, 0.5] {
        let c = MctsConfig {
            policy_temperature: t,
            ..MctsConfig::default().anytime(40, false)
        };
        let mut b = SearchedGames::new(c.clone(), RuleSet::abapa(), 1, 7);
        b.set_game(0, Game::new(RuleSet::abapa(), Position::start()));
        assert!(b.begin(0, 40, false));
        b.run(&mut Skewed);
        let got = b.result(0).prior;
        let want = tempered(SKEW, t);
        for a in 0..6 {
            assert!(
                (got[a] - want[a]).abs() < 1e-5,
                "t {t}: {got:?} vs {want:?}"
            );
        }
    }
}

/// Priors and a value that depend on the position alone (a hash of it), so that two
/// evaluations of the same position agree exactly.
struct Hashed;

impl Evaluator for Hashed {
    fn evaluate(&mut self, _: RuleSet, p: &[Position], l: &[u8], out: &mut [Evaluation]) {
        for ((p, &legal), o) in p.iter().zip(l).zip(out.iter_mut()) {
            let mut h = p.key() as u64 ^ ((p.key() >> 64) as u64).rotate_left(17);
            let mut next = || {
                h = h
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((h >> 40) as f32) / (1u64 << 24) as f32
            };
            for a in 0..6 {
                o.priors[a] = if legal & (1 << a) != 0 {
                    0.05 + next()
                } else {
                    0.0
                };
            }
            o.value = 2.0 * next() - 1.0;
        }
    }
    fn name(&self) -> String {
        "hashed".into()
    }
}

#[test]
fn the_played_childs_evaluation_is_the_next_roots() {
    // One game searched by `play` (which keeps the played child's evaluation as the
    // next root's) and the same game given afresh before every search (which evaluates
    // every root): the same moves, visits and values, and exactly one evaluation fewer
    // per move whose child was expanded.
    let rules = RuleSet::abapa();
    for algorithm in [Algorithm::Gumbel, Algorithm::Puct] {
        let c = MctsConfig {
            tree_reuse: false,
            ..cfg(algorithm, 24)
        };
        let mut kept = SearchedGames::new(c.clone(), rules, 1, 5);
        let mut fresh = SearchedGames::new(c.clone(), rules, 1, 5);
        let mut game = Game::new(rules, Position::start());
        kept.set_game(0, game.clone());
        let (mut saved, mut moves) = (0u64, 0);
        while !game.is_over() && moves < 60 {
            fresh.set_game(0, game.clone());
            let root_was_expanded = kept.tree(0).root_node().kind == NodeKind::Expanded;
            let before = (kept.search().evaluated, fresh.search().evaluated);
            assert!(kept.begin(0, 24, true) && fresh.begin(0, 24, true));
            kept.run(&mut Hashed);
            fresh.run(&mut Hashed);
            let (rk, rf) = (kept.result(0), fresh.result(0));
            assert_eq!(rk.visits, rf.visits, "{algorithm:?} move {moves}");
            assert_eq!(rk.q, rf.q, "{algorithm:?} move {moves}");
            assert_eq!(rk.value, rf.value, "{algorithm:?} move {moves}");
            let used = (
                kept.search().evaluated - before.0,
                fresh.search().evaluated - before.1,
            );
            if root_was_expanded {
                saved += 1;
                assert_eq!(used.0 + 1, used.1, "{algorithm:?} move {moves}");
            } else {
                assert_eq!(used.0, used.1, "{algorithm:?} move {moves}");
            }
            let a = kept.choose(0, 0.0);
            assert_eq!(a, fresh.choose(0, 0.0));
            kept.play(0, a).unwrap();
            game.play(a).unwrap();
            moves += 1;
        }
        // Every move but the first (and any whose child a search never expanded).
        assert!(
            saved >= moves as u64 - 3,
            "{algorithm:?}: {saved} of {moves}"
        );
    }
}

/// Checks every edge of `t` below `id`: what it backed up is its child's own evaluation
/// once plus everything backed up below the child (or the child's exact result at each
/// visit, for a finished game), for the visits and the values (turned to the mover's
/// view) alike. Returns the nodes checked.
fn check_backups(t: &tree::SearchTree, id: tree::NodeId) -> usize {
    let n = t.node(id);
    let mut checked = 1;
    for a in 0..6 {
        let c = n.children[a];
        if c == 0 {
            assert_eq!(n.n[a], 0);
            continue;
        }
        let child = t.node(c);
        let sign = if child.pos.side == n.pos.side {
            1.0
        } else {
            -1.0
        };
        let (visits, w) = match child.kind {
            NodeKind::Terminal => (n.n[a], n.n[a] as f32 * child.value),
            NodeKind::Expanded => (
                1 + child.visits(),
                child.value + child.w.iter().sum::<f32>(),
            ),
            NodeKind::Unexpanded => (0, 0.0),
        };
        assert_eq!(n.n[a], visits, "edge {a} of node {id}");
        assert!(
            (n.w[a] - sign * w).abs() < 1e-3,
            "edge {a} of node {id}: w {} vs {}",
            n.w[a],
            sign * w
        );
        if child.kind == NodeKind::Expanded {
            checked += check_backups(t, c);
        }
    }
    checked
}

#[test]
fn every_edge_holds_what_its_subtree_backed_up() {
    // After a search, each edge's visits and value sum are its child's evaluation plus
    // its child's edges (or the exact result at each visit of a finished game), under
    // both algorithms, from the start, a middle game and a small endgame.
    let rules = RuleSet::abapa();
    let fens = [
        "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S",
        "0-0-8-0-0-1-3-1-1-1-2-0-15-16-S",
        "1-0-0-0-0-1-0-0-0-0-1-1-22-22-N",
    ];
    for fen in fens {
        for algorithm in [Algorithm::Gumbel, Algorithm::Puct] {
            let mut b = SearchedGames::new(cfg(algorithm, 300), rules, 1, 3);
            b.set_game(0, Game::new(rules, pos(fen)));
            assert!(b.begin(0, 300, false));
            b.run(&mut Hashed);
            let t = b.tree(0);
            assert!(check_backups(t, t.root()) > 2, "{fen} {algorithm:?}");
        }
    }
}

/// The same searches over the batched environment's lanes and over whole games: the
/// env's repetition history (stretch keys) must answer what `Game`'s does, so the trees,
/// results and moves agree ply by ply, repetitions in the tree included.
#[test]
fn env_lanes_and_whole_games_search_alike() {
    use crate::env::{AutoReset, BatchEnv, EnvConfig, Openings, SKIP, StepOut};
    let rules = RuleSet::abapa();
    let n = 6;
    let config = EnvConfig {
        rules,
        seed: 3,
        openings: Openings::exactly(4),
        auto_reset: AutoReset::Off,
        record_moves: true,
    };
    let mut env = BatchEnv::new(n, config).unwrap().serial();
    // Lane 0 starts in docs/rules.md example 10 (a repetition within reach).
    env.reset_game(0, pos("1-0-0-0-0-0-1-0-0-0-0-0-23-23-S"))
        .unwrap();
    let mut games = SearchedGames::new(cfg(Algorithm::Gumbel, 24), rules, n, 9);
    let mut lanes = BatchSearch::new(cfg(Algorithm::Gumbel, 24), rules, n);
    let mut rngs: Vec<Rng> = (0..n).map(|i| Rng::stream(9, i as u64)).collect();
    let mut first = Game::new(rules, *env.position(0));
    // AaBbCcDdEeF: North's only move f then repeats the start, a draw.
    for a in [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5] {
        let mut actions = vec![SKIP; n];
        actions[0] = a;
        env.step(&actions, StepOut::default()).unwrap();
        first.play(a as usize).unwrap();
    }
    assert_eq!(first.position(), env.position(0));
    for i in 0..n {
        let g = if i == 0 {
            first.clone()
        } else {
            Game::new(rules, *env.position(i))
        };
        games.set_game(i, g);
        lanes.set_root(i, env.position(i));
    }
    let mut plies = 0;
    for _ in 0..60 {
        let mut actions = vec![SKIP; n];
        for i in 0..n {
            assert_eq!(games.game(i).legal_moves(), env.legal(i), "lane {i}");
            if env.legal(i) == 0 {
                continue;
            }
            assert!(games.begin(i, 24, true));
            assert!(lanes.begin(i, env.legal(i), 24, true, &mut rngs[i]));
        }
        games.run(&mut UniformEvaluator);
        lanes.run(&env, &mut UniformEvaluator);
        if plies == 0 {
            assert_eq!(lanes.result(0).legal, 1 << 5);
            assert_eq!(lanes.result(0).q[5], Some(0.0));
        }
        for i in (0..n).filter(|&i| env.legal(i) != 0) {
            assert_eq!(games.result(i), lanes.result(i), "lane {i}");
            let a = games.choose(i, 1.0);
            let pick = Pick {
                temperature: 1.0,
                noisy: true,
            };
            assert_eq!(lanes.choose(&lanes.result(i), pick, &mut rngs[i]), a);
            actions[i] = a as u8;
            games.play(i, a).unwrap();
            plies += 1;
        }
        env.step(&actions, StepOut::default()).unwrap();
        for (i, &a) in actions.iter().enumerate().filter(|(_, a)| **a != SKIP) {
            lanes.advance(i, a as usize, &env);
            assert_eq!(games.game(i).position(), env.position(i), "lane {i}");
        }
    }
    assert!(plies > 100, "{plies}");
    assert_eq!(
        games.game(0).outcome().map(|o| o.reason),
        Some(crate::game::EndReason::Repetition)
    );
}

/// The batched search descends its trees in lockstep, level by level, reading ahead: each
/// slot's search must still be exactly the one it makes alone. More slots than the
/// read-ahead distance, searches of different lengths and depths, root noise, reused
/// subtrees over several moves, both algorithms.
#[test]
fn every_slot_searches_as_it_does_alone() {
    let rules = RuleSet::abapa();
    let n = 23;
    let sims = |i: usize| 6 + (i as u32 * 7) % 45;
    for alg in [Algorithm::Gumbel, Algorithm::Puct] {
        let c = cfg(alg, 64);
        let mut together = SearchedGames::new(c.clone(), rules, n, 5);
        let mut alone: Vec<SearchedGames> = (0..n)
            .map(|_| SearchedGames::new(c.clone(), rules, n, 5))
            .collect();
        for ply in 0..6 {
            for (i, a) in alone.iter_mut().enumerate() {
                assert!(together.begin(i, sims(i + ply), true));
                assert!(a.begin(i, sims(i + ply), true));
                a.run(&mut Hashed);
            }
            together.run(&mut Hashed);
            for (i, a) in alone.iter_mut().enumerate() {
                assert_eq!(
                    together.result(i),
                    a.result(i),
                    "{alg:?}, ply {ply}, slot {i}"
                );
                let m = together.choose(i, 1.0);
                assert_eq!(a.choose(i, 1.0), m, "{alg:?}, ply {ply}, slot {i}");
                together.play(i, m).unwrap();
                a.play(i, m).unwrap();
            }
        }
    }
}

/// Root noise comes from the game's own stream, drawn when the search begins even though
/// the root is evaluated only by its first simulation: the priors a PUCT search follows
/// are (1 − f)·P + f·η, η a Dirichlet sample over the legal moves (one Gamma(α) draw per
/// legal move, in order, normalised), and the stream has moved on by those draws alone.
#[test]
fn dirichlet_noise_comes_from_the_games_stream() {
    use rand_distr::{Distribution, Gamma};
    let c = cfg(Algorithm::Puct, 8);
    let mut b = SearchedGames::new(c.clone(), RuleSet::abapa(), 1, 3);
    let mut stream = b.rng(0).clone();
    assert!(b.begin(0, 8, true));
    b.run(&mut UniformEvaluator);
    let gamma = Gamma::new(c.dirichlet_alpha as f64, 1.0).unwrap();
    let eta: Vec<f64> = (0..6).map(|_| gamma.sample(&mut stream)).collect();
    let sum: f64 = eta.iter().sum();
    let root = b.tree(0).root_node();
    assert_eq!(root.legal, 0b11_1111);
    let f = c.dirichlet_fraction as f64;
    for a in 0..6 {
        let want = (1.0 - f) / 6.0 + f * eta[a] / sum;
        assert!((root.prior[a] as f64 - want).abs() < 1e-6, "{a}: {root:?}");
        assert!((b.tree(0).root_raw_prior()[a] - 1.0 / 6.0).abs() < 1e-7);
    }
    assert_eq!(b.rng(0), &stream);
}
