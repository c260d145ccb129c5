//! The batch against the scalar `Game`, played one game at a time; hand-checked endings;
//! bad input.

use super::*;
use crate::env::AutoReset;
use crate::env::lanes::OPENING_TRIES;
use crate::game::Game;
use crate::game::{EndReason, Side};

/// The scalar reference of one slot: a `Game` plus the slot's RNG stream, following the
/// documented procedure (opening: `k` uniform in min..=max, one draw, then `k` uniform legal plies,
/// redrawn if the game ends; then one uniform legal action per step).
struct RefSlot {
    rng: Rng,
    game: Game,
    last: Option<Outcome>,
}

fn ref_begin(rules: RuleSet, openings: Openings, rng: &mut Rng) -> Game {
    for _ in 0..OPENING_TRIES {
        let mut g = Game::new(rules, Position::start());
        let span = openings.max_plies - openings.min_plies;
        let k = openings.min_plies + rng.below(span + 1);
        for _ in 0..k {
            let a = rng.pick_bit(g.legal_moves());
            g.play(a).unwrap();
            if g.is_over() {
                break;
            }
        }
        if !g.is_over() {
            return g;
        }
    }
    Game::new(rules, Position::start())
}

impl RefSlot {
    fn new(config: &EnvConfig, i: usize) -> RefSlot {
        let mut rng = Rng::stream(config.seed, i as u64);
        let game = ref_begin(config.rules, config.openings, &mut rng);
        RefSlot {
            rng,
            game,
            last: None,
        }
    }

    /// One step with a random action; returns (done, reward for the mover).
    fn step(&mut self, config: &EnvConfig) -> (bool, f32) {
        if self.game.is_over() {
            return (false, 0.0); // parked
        }
        let a = self.rng.pick_bit(self.game.legal_moves());
        let mover = self.game.position().side;
        self.game.play(a).unwrap();
        match self.game.outcome() {
            None => (false, 0.0),
            Some(o) => {
                self.last = Some(o);
                if config.auto_reset == AutoReset::On {
                    self.game = ref_begin(config.rules, config.openings, &mut self.rng);
                }
                (true, o.score_for(mover) as f32)
            }
        }
    }
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// Plays `games` games for `steps` steps in a batch (in a pool of `threads`) and one by
/// one with `Game`, comparing everything after every step. Returns the longest history
/// seen, to check the overflow path was exercised.
fn compare_with_scalar(
    config: EnvConfig,
    games: usize,
    steps: usize,
    threads: usize,
    fused: bool,
) -> usize {
    let mut refs: Vec<RefSlot> = (0..games).map(|i| RefSlot::new(&config, i)).collect();
    in_pool(threads, || {
        let mut env = BatchEnv::new(games, config).unwrap();
        let enc = Encoding::Counts;
        let mut actions = vec![0u8; games];
        let mut legal = vec![0u8; games];
        let mut feats = vec![0f32; games * enc.dim()];
        let mut rewards = vec![0f32; games];
        let mut done = vec![false; games];
        let mut longest = 0;
        let mut finished = 0u64;
        for step in 0..=steps {
            if step > 0 {
                let out = StepOut {
                    legal: &mut legal,
                    features: &mut feats,
                    encoding: enc,
                    rewards: &mut rewards,
                    done: &mut done,
                };
                let s = if fused {
                    env.step_random(out).unwrap()
                } else {
                    env.random_actions(&mut actions).unwrap();
                    env.step(&actions, out).unwrap()
                };
                finished += s.finished as u64;
            }
            for (i, r) in refs.iter_mut().enumerate() {
                let ctx = || format!("{} game {i} step {step}", config.rules);
                if step > 0 {
                    let (d, rw) = r.step(&config);
                    assert_eq!(done[i], d, "{}", ctx());
                    assert_eq!(rewards[i], rw, "{}", ctx());
                    assert_eq!(legal[i], env.legal(i), "{}", ctx());
                }
                assert_eq!(env.position(i), r.game.position(), "{}", ctx());
                assert_eq!(env.legal(i), r.game.legal_moves(), "{}", ctx());
                assert_eq!(env.ply(i) as usize, r.game.moves().len(), "{}", ctx());
                assert_eq!(env.history(i).keys(), r.game.history().keys(), "{}", ctx());
                assert_eq!(env.history_len(i), r.game.history().len(), "{}", ctx());
                assert_eq!(env.last_outcome(i), r.last, "{}", ctx());
                assert_eq!(env.is_parked(i), r.game.is_over(), "{}", ctx());
                if config.record_moves {
                    let moves: Vec<u8> = r.game.moves().iter().map(|&(_, a)| a).collect();
                    assert_eq!(env.moves(i), moves, "{}", ctx());
                } else {
                    assert!(env.moves(i).is_empty(), "{}", ctx());
                }
                check_seen(&env, i, &r.game, &ctx);
                longest = longest.max(env.history_len(i));
            }
        }
        assert_eq!(env.games_finished(), finished);
        longest
    })
}

/// `env.seen(i, ·)` against the game's own history: on the current position, on every
/// position one move ahead (a capture there changes the stores), and on the current
/// board with other stores.
fn check_seen(env: &BatchEnv, i: usize, game: &Game, ctx: &dyn Fn() -> String) {
    let here = *game.position();
    assert!(env.seen(i, &here), "{}", ctx());
    let mut others = vec![here];
    for a in (0..6).filter(|a| here.legal_moves(env.rules()) & (1 << a) != 0) {
        let mut next = here;
        next.apply(env.rules(), a);
        others.push(next);
    }
    if here.stores[0] > 0 {
        let mut moved = here;
        moved.stores[0] -= 1;
        moved.stores[1] += 1;
        others.push(moved);
    }
    for p in &others {
        assert_eq!(env.seen(i, p), game.history().contains(p), "{} {p}", ctx());
    }
}

#[test]
fn batch_equals_scalar_games_for_every_preset_openings_and_thread_count() {
    let mut longest = 0;
    for rules in RuleSet::all() {
        for openings in [
            Openings::start(),
            Openings {
                min_plies: 2,
                max_plies: 12,
            },
        ] {
            for (threads, fused) in [(1, false), (2, true), (3, false), (4, true)] {
                let config = EnvConfig {
                    rules,
                    seed: 0xC0FFEE,
                    openings,
                    auto_reset: AutoReset::On,
                    record_moves: fused,
                };
                longest = longest.max(compare_with_scalar(config, 70, 350, threads, fused));
            }
        }
    }
    assert!(
        longest > HISTORY_SLOTS,
        "no game spilled its history ({longest} keys at most): the overflow path went untested"
    );
}

#[test]
fn parked_games_keep_their_result_and_wait() {
    let config = EnvConfig {
        rules: RuleSet::abapa(),
        seed: 5,
        openings: Openings::exactly(4),
        auto_reset: AutoReset::Off,
        record_moves: true,
    };
    // The scalar comparison covers parking (ended games stay over and are skipped).
    compare_with_scalar(config, 40, 400, 2, false);

    let mut env = BatchEnv::new(40, config).unwrap();
    let mut actions = vec![0u8; 40];
    for _ in 0..400 {
        env.random_actions(&mut actions).unwrap();
        env.step(&actions, StepOut::default()).unwrap();
    }
    let parked: Vec<usize> = (0..40).filter(|&i| env.is_parked(i)).collect();
    assert!(parked.len() > 30, "random games end within 400 plies");
    let i = parked[0];
    let before = *env.position(i);
    let result = env.last_outcome(i).expect("a parked game has a result");
    assert!(
        env.position(i).status(env.rules()).is_some() || result.reason == EndReason::Repetition
    );
    // Whatever action a parked game is given, it is ignored.
    let mut actions = vec![SKIP; 40];
    actions[i] = 3;
    let s = env.step(&actions, StepOut::default()).unwrap();
    assert_eq!(s.stepped, 0);
    assert_eq!(*env.position(i), before);
    assert_eq!(env.legal(i), 0);
    // A restart brings it back, keeping the last result until the next game ends.
    env.restart_game(i).unwrap();
    assert!(!env.is_parked(i));
    assert_eq!(env.ply(i), 4);
    assert_eq!(env.last_outcome(i), Some(result));
}

#[test]
fn same_seed_same_games_other_seed_other_games() {
    let run = |seed| {
        let config = EnvConfig {
            seed,
            openings: Openings::exactly(3),
            ..EnvConfig::default()
        };
        let mut env = BatchEnv::new(300, config).unwrap();
        for _ in 0..50 {
            env.step_random(StepOut::default()).unwrap();
        }
        env.positions().to_vec()
    };
    assert_eq!(run(1), run(1));
    assert_ne!(run(1), run(2));
}

fn fen(s: &str) -> Position {
    s.parse().unwrap()
}

#[test]
fn repetition_example_ends_in_a_draw_and_resets() {
    // docs/rules.md example 10: AaBbCcDdEeFf returns to the start after 12 plies.
    let mut env = BatchEnv::new(2, EnvConfig::default()).unwrap();
    env.reset_game(1, fen("1-0-0-0-0-0-1-0-0-0-0-0-23-23-S"))
        .unwrap();
    let mut rewards = [9.0f32; 2];
    let mut done = [true; 2];
    for (ply, a) in [0u8, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
        .into_iter()
        .enumerate()
    {
        let s = env
            .step(
                &[SKIP, a],
                StepOut {
                    rewards: &mut rewards,
                    done: &mut done,
                    ..StepOut::default()
                },
            )
            .unwrap();
        assert_eq!(s.stepped, 1);
        assert_eq!(done, [false, ply == 11], "ply {ply}");
        assert_eq!(rewards, [0.0, 0.0]);
    }
    let o = env.last_outcome(1).unwrap();
    assert_eq!(o.reason, EndReason::Repetition);
    assert_eq!(o.halves, [48, 48]);
    // Auto-reset: a fresh game from the start, untouched neighbour.
    assert_eq!(*env.position(1), Position::start());
    assert_eq!(env.ply(1), 0);
    assert_eq!(env.history(1).keys(), &[Position::start().key()]);
    assert_eq!(*env.position(0), Position::start());
    assert_eq!(env.last_outcome(0), None);
}

#[test]
fn winning_capture_rewards_the_mover() {
    // docs/rules.md example 4: South plays C, captures 11 and wins with 26; North's example 6
    // position is a non-ending move.
    let mut env = BatchEnv::new(2, EnvConfig::default()).unwrap();
    env.reset_game(0, fen("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S"))
        .unwrap();
    env.reset_game(1, fen("3-1-1-1-0-0-0-0-8-0-0-1-16-17-N"))
        .unwrap();
    let mut rewards = [9.0f32; 2];
    let mut done = [true; 2];
    let mut legal = [0u8; 2];
    env.step(
        &[2, 2],
        StepOut {
            legal: &mut legal,
            rewards: &mut rewards,
            done: &mut done,
            ..StepOut::default()
        },
    )
    .unwrap();
    assert_eq!(done, [true, false]);
    assert_eq!(rewards, [1.0, 0.0]);
    let o = env.last_outcome(0).unwrap();
    assert_eq!(
        (o.reason, o.halves, o.winner()),
        (EndReason::Threshold, [52, 30], Some(Side::South))
    );
    assert_eq!(
        env.position(1).to_string(),
        "4-2-2-2-1-0-0-0-0-1-1-2-16-17-S"
    );
    // South's pits A..E hold 4 2 2 2 1: every one but F is playable.
    assert_eq!(legal, [0b111111, 0b011111]);
}

#[test]
fn features_are_the_encoding_of_each_position() {
    for enc in Encoding::ALL {
        let config = EnvConfig {
            rules: RuleSet::from_preset(crate::game::Preset::Awari),
            seed: 11,
            openings: Openings::exactly(7),
            auto_reset: AutoReset::On,
            record_moves: false,
        };
        let n = 50;
        let mut env = BatchEnv::new(n, config).unwrap();
        let d = enc.dim();
        let mut feats = vec![-1.0f32; n * d];
        let mut one = vec![0f32; d];
        for step in 0..150 {
            if step == 0 {
                env.encode(enc, &mut feats).unwrap();
            } else {
                env.step_random(StepOut {
                    features: &mut feats,
                    encoding: enc,
                    ..StepOut::default()
                })
                .unwrap();
            }
            for i in 0..n {
                enc.encode(env.position(i), &mut one);
                assert_eq!(
                    &feats[i * d..(i + 1) * d],
                    &one[..],
                    "{enc} game {i} step {step}"
                );
            }
        }
        // North to move at least once (features are from the mover's view).
        assert!(env.positions().iter().any(|p| p.side == Side::North));
    }
}

#[test]
fn illegal_actions_are_reported_and_change_nothing() {
    let mut env = BatchEnv::new(3, EnvConfig::default()).unwrap();
    env.reset_game(2, fen("1-0-9-0-0-1-1-0-0-0-0-0-18-18-S"))
        .unwrap();
    let before = env.positions().to_vec();
    // Pit B is empty in game 2 (legal: A C F).
    let err = env.step(&[0, 1, 1], StepOut::default()).unwrap_err();
    assert_eq!(
        err,
        EnvError::IllegalAction {
            game: 2,
            action: 1,
            legal: "0,2,5".into(),
            letters: "ACF".into()
        }
    );
    assert!(
        err.to_string().contains("game 2: action 1 is illegal"),
        "{err}"
    );
    let err = env.step(&[6, 0, 0], StepOut::default()).unwrap_err();
    assert!(matches!(
        err,
        EnvError::IllegalAction {
            game: 0,
            action: 6,
            ..
        }
    ));
    assert_eq!(env.positions(), &before[..]);
    assert_eq!(env.ply(0), 0);

    let err = env.step(&[0, 0], StepOut::default()).unwrap_err();
    assert!(matches!(
        err,
        EnvError::BufferLength {
            name: "actions",
            got: 2,
            expected: 3,
            ..
        }
    ));
    let mut feats = vec![0f32; 3 * 14];
    let err = env
        .step(
            &[0, 0, 0],
            StepOut {
                features: &mut feats,
                encoding: Encoding::Onehot,
                ..StepOut::default()
            },
        )
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("'features' holds 42 values, expected 1062"),
        "{err}"
    );
    assert_eq!(env.positions(), &before[..]);

    assert!(matches!(
        BatchEnv::new(0, EnvConfig::default()),
        Err(EnvError::NoGames)
    ));
    let bad = EnvConfig {
        openings: Openings {
            min_plies: 5,
            max_plies: 4,
        },
        ..EnvConfig::default()
    };
    assert!(matches!(
        BatchEnv::new(1, bad),
        Err(EnvError::BadOpenings { .. })
    ));
    assert!(matches!(
        env.reset_game(3, Position::start()),
        Err(EnvError::NoSuchGame { game: 3, games: 3 })
    ));
    let mut odd = Position::start();
    odd.pits[3] = 200;
    assert!(matches!(
        env.reset_game(1, odd),
        Err(EnvError::BadSeedCount {
            game: 1,
            seeds: 244,
            expected: 48
        })
    ));
    let over = fen("0-0-0-0-0-1-1-2-0-18-1-0-25-0-S");
    assert!(matches!(
        env.reset_game(0, over),
        Err(EnvError::StartIsOver { game: 0, .. })
    ));
}

#[test]
fn stretch_keys_decode_back_to_their_position() {
    // A left inverse makes the key one-to-one, so comparing keys is comparing positions.
    let mut rng = Rng::new(9);
    let mut extremes = Vec::new();
    for pit in [0, 5, 6, 11] {
        let mut p = Position::start();
        p.pits = [0; 12];
        p.pits[pit] = 48;
        p.stores = [0, 0];
        extremes.push(p);
    }
    for p in extremes {
        assert_eq!(full_key(stretch_key(&p), p.stores), p.key(), "{p}");
    }
    for _ in 0..20_000 {
        let mut p = Position::start();
        p.pits = [0; 12];
        let board = rng.below(49);
        for _ in 0..board {
            p.pits[rng.below(12) as usize] += 1;
        }
        p.stores = [(48 - board) as u8, 0];
        p.side = Side::from_index(rng.below(2) as usize);
        assert_eq!(full_key(stretch_key(&p), p.stores), p.key(), "{p}");
    }
}

#[test]
fn features_of_a_hand_checked_north_position() {
    // docs/rules.md example 6 position, North to move: North's pits a..f come first, then
    // South's A..F, then North's store, then South's (encoding.rs's documented layout).
    let mut env = BatchEnv::new(2, EnvConfig::default()).unwrap();
    env.reset_game(1, fen("3-1-1-1-0-0-0-0-8-0-0-1-16-17-N"))
        .unwrap();
    let mut f = [0f32; 28];
    env.encode(Encoding::Counts, &mut f).unwrap();
    let north = [0., 0., 8., 0., 0., 1., 3., 1., 1., 1., 0., 0., 17., 16.].map(|x: f32| x / 48.0);
    let start = [4.0f32 / 48.0; 12];
    assert_eq!(&f[..12], &start[..]);
    assert_eq!(&f[12..14], &[0.0, 0.0]);
    assert_eq!(&f[14..], &north[..]);
}

#[test]
fn a_numbered_game_is_the_same_in_any_slot_and_serial_steps_equal_parallel_ones() {
    let config = EnvConfig {
        seed: 21,
        openings: Openings {
            min_plies: 0,
            max_plies: 6,
        },
        auto_reset: AutoReset::Off,
        record_moves: true,
        ..EnvConfig::default()
    };
    // Game 7 in slot 0 of a serial batch of 3, and in slot 600 of a parallel one: the
    // same opening, the same stream, and the same game under the same random actions.
    let mut small = BatchEnv::new(3, config).unwrap().serial();
    let mut large = in_pool(4, || BatchEnv::new(700, config).unwrap());
    small.start_game(0, 7).unwrap();
    large.start_game(600, 7).unwrap();
    let mut reference = Rng::stream(21, 7);
    let mut opening = Game::new(config.rules, Position::start());
    for _ in 0..reference.below(7) {
        let a = reference.pick_bit(opening.legal_moves());
        opening.play(a).unwrap();
    }
    assert_eq!(small.position(0), opening.position());
    assert_eq!(small.moves(0), large.moves(600));
    assert_eq!(small.rng(0), &reference);
    assert_eq!(large.rng(600), &reference);
    while !small.is_parked(0) {
        let mut a = vec![SKIP; 3];
        let mut b = vec![SKIP; 700];
        a[0] = small.rng(0).clone().pick_bit(small.legal(0)) as u8;
        b[600] = a[0];
        small.step(&a, StepOut::default()).unwrap();
        in_pool(4, || large.step(&b, StepOut::default())).unwrap();
        assert_eq!(small.position(0), large.position(600));
        assert_eq!(small.legal(0), large.legal(600));
    }
    assert_eq!(small.moves(0), large.moves(600));
    assert_eq!(small.last_outcome(0), large.last_outcome(600));
    assert!(large.is_parked(600));
    assert!(small.start_game(3, 1).is_err());
}
