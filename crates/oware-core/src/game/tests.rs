//! The worked examples of `docs/rules.md`, hand-made examples for the other presets,
//! and property tests against a slow, obviously-correct reference implementation.

use proptest::prelude::*;

use super::*;
use crate::rng::Rng;

fn pos(fen: &str) -> Position {
    fen.parse().unwrap_or_else(|e| panic!("{e}"))
}

fn rules(name: &str) -> RuleSet {
    name.parse().unwrap()
}

fn legal_letters(fen: &str, r: RuleSet) -> String {
    let p = pos(fen);
    mask_letters(p.side, p.legal_moves(r))
}

// ---------------------------------------------------------------- docs/rules.md examples

#[test]
fn example_1_perft_from_start() {
    let expected = [
        6u64, 36, 190, 1_014, 5_219, 27_332, 139_157, 711_414, 3_592_872, 18_137_964,
    ];
    let counts = perft_all(&Position::start(), RuleSet::abapa(), expected.len() as u32);
    assert_eq!(counts, expected);
}

#[test]
fn example_2_legal_moves() {
    assert_eq!(
        legal_letters("1-0-9-0-0-1-1-0-0-0-0-0-18-18-S", RuleSet::abapa()),
        "ACF"
    );
}

#[test]
fn example_3_must_feed() {
    assert_eq!(
        legal_letters("1-0-0-0-0-1-0-0-0-0-0-0-23-23-S", RuleSet::abapa()),
        "F"
    );
}

#[test]
fn example_4_five_pit_capture_wins() {
    let mut g = Game::new(RuleSet::abapa(), pos("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S"));
    let info = g.play_letter('C').unwrap();
    assert_eq!(info.last_pit, 10);
    assert_eq!(info.captured, 11);
    assert!(!info.grand_slam);
    assert_eq!(g.position().to_string(), "0-0-0-1-1-2-0-0-0-0-0-3-26-15-N");
    let o = g.outcome().expect("26 seeds end the game");
    assert_eq!(o.winner(), Some(Side::South));
    assert_eq!(o.reason, EndReason::Threshold);
}

#[test]
fn example_5_chain_stops_at_four() {
    let mut g = Game::new(RuleSet::abapa(), pos("0-0-8-0-0-1-3-1-1-1-2-0-15-16-S"));
    let info = g.play_letter('C').unwrap();
    assert_eq!(info.captured, 9);
    assert_eq!(g.position().to_string(), "0-0-0-1-1-2-4-0-0-0-0-0-24-16-N");
    assert!(!g.is_over());
}

#[test]
fn example_6_no_capture_on_own_side() {
    let mut g = Game::new(RuleSet::abapa(), pos("3-1-1-1-0-0-0-0-8-0-0-1-16-17-N"));
    let info = g.play_letter('c').unwrap();
    assert_eq!(info.captured, 0);
    assert_eq!(info.last_pit, 4);
    assert_eq!(g.position().to_string(), "4-2-2-2-1-0-0-0-0-1-1-2-16-17-S");
}

#[test]
fn example_7_grand_slam_captures_nothing() {
    let mut g = Game::new(RuleSet::abapa(), pos("1-1-1-1-1-0-0-0-8-0-0-1-17-17-N"));
    let info = g.play_letter('c').unwrap();
    assert!(info.grand_slam && info.grand_slam_refused);
    assert_eq!(info.captured, 0);
    assert_eq!(g.position().to_string(), "2-2-2-2-2-0-0-0-0-1-1-2-17-17-S");
}

#[test]
fn example_8_feeding_grand_slam_is_legal() {
    let fen = "0-0-4-0-0-17-0-0-0-0-0-0-15-12-S";
    assert_eq!(legal_letters(fen, RuleSet::abapa()), "CF");
    let mut g = Game::new(RuleSet::abapa(), pos(fen));
    let info = g.play_letter('F').unwrap();
    assert_eq!(info.captured, 0);
    assert_eq!(g.position().to_string(), "1-1-5-1-1-0-2-2-2-2-2-2-15-12-N");
}

#[test]
fn example_9_reaching_24_does_not_end() {
    let mut g = Game::new(RuleSet::abapa(), pos("0-0-0-0-0-1-1-2-0-19-1-0-22-2-S"));
    let info = g.play_letter('F').unwrap();
    assert_eq!(info.captured, 2);
    assert_eq!(g.position().stores[0], 24);
    assert!(!g.is_over());
    assert_eq!(mask_letters(Side::North, g.legal_moves()), "d");
}

#[test]
fn example_10_repetition_draw() {
    let mut g = Game::new(RuleSet::abapa(), pos("1-0-0-0-0-0-1-0-0-0-0-0-23-23-S"));
    let moves: Vec<char> = "AaBbCcDdEeFf".chars().collect();
    for (i, &m) in moves.iter().enumerate() {
        assert!(!g.is_over(), "over before move {i}");
        g.play_letter(m).unwrap();
    }
    assert_eq!(g.position(), &pos("1-0-0-0-0-0-1-0-0-0-0-0-23-23-S"));
    let o = g.outcome().expect("repetition ends the game");
    assert_eq!(o.reason, EndReason::Repetition);
    assert_eq!(o.stores(), [24.0, 24.0]);
    assert_eq!(o.winner(), None);
}

/// A grand slam of 16 seeds with 13 left in the mover's row (docs/rules.md example 11).
const SLAM16: &str = "3-3-3-2-2-6-2-2-2-2-1-1-10-9-S";

#[test]
fn example_11_traditional_wipe_out_vs_abapa() {
    let mut t = Game::new(rules("traditional"), pos(SLAM16));
    let info = t.play_letter('F').unwrap();
    assert_eq!(info.captured, 16);
    let o = t.outcome().expect("North has no seeds: the game ends");
    assert_eq!(o.reason, EndReason::NoSeeds);
    // South also takes the 13 seeds left on his side.
    assert_eq!(o.stores(), [10.0 + 16.0 + 13.0, 9.0]);

    let mut a = Game::new(RuleSet::abapa(), pos(SLAM16));
    let info = a.play_letter('F').unwrap();
    assert!(info.grand_slam_refused);
    assert_eq!(a.position().to_string(), "3-3-3-2-2-0-3-3-3-3-2-2-10-9-N");
    assert!(!a.is_over());
}

// ------------------------------------------------------------ other presets, by hand

#[test]
fn awari_grand_slam_is_illegal() {
    assert_eq!(legal_letters(SLAM16, rules("awari")), "ABCDE");
    assert_eq!(legal_letters(SLAM16, RuleSet::abapa()), "ABCDEF");
}

#[test]
fn awari_only_grand_slams_ends_the_game() {
    let p = pos("0-0-0-0-0-6-2-2-2-2-1-1-16-16-S");
    assert_eq!(p.legal_moves(RuleSet::abapa()), 1 << 5);
    let o = p.status(rules("awari")).expect("only a grand slam is left");
    assert_eq!(o.reason, EndReason::OnlyGrandSlams);
    assert_eq!(o.stores(), [22.0, 26.0]);
    assert_eq!(o.winner(), Some(Side::North));
}

#[test]
fn awari_repetition_splits_evenly() {
    let p = pos("1-0-0-0-0-0-1-0-0-0-0-1-22-23-S");
    let o = p.share_out(EndReason::Repetition, rules("awari").repetition);
    assert_eq!(o.stores(), [23.5, 24.5]);
    let o = p.share_out(EndReason::Repetition, RuleSet::abapa().repetition);
    assert_eq!(o.stores(), [23.0, 25.0]);
}

#[test]
fn grand_slam_captures_takes_everything_and_ends() {
    let mut g = Game::new(rules("grand-slam-captures"), pos(SLAM16));
    let info = g.play_letter('F').unwrap();
    assert_eq!(info.captured, 16);
    assert_eq!(g.position().to_string(), "0-0-0-0-0-0-0-0-0-0-0-0-39-9-N");
    assert_eq!(g.outcome().unwrap().winner(), Some(Side::South));

    // Without reaching 25: 22 + 2 = 24 against 24, a draw.
    let mut g = Game::new(
        rules("grand-slam-captures"),
        pos("2-0-0-0-0-6-1-1-1-1-1-1-10-24-S"),
    );
    g.play_letter('F').unwrap();
    let o = g.outcome().expect("the grand slam ends the game");
    assert_eq!(o.stores(), [24.0, 24.0]);
    assert_eq!(o.winner(), None);
}

#[test]
fn ouril_grand_slam_then_moves_again() {
    let mut g = Game::new(rules("ouril"), pos("3-3-3-2-2-6-2-2-2-2-1-1-0-19-S"));
    let info = g.play_letter('F').unwrap();
    assert_eq!(info.captured, 16);
    assert!(info.moves_again);
    assert_eq!(g.position().side, Side::South);
    assert!(!g.is_over());
    // South must feed: only E (2 seeds from pit 4) reaches North.
    assert_eq!(mask_letters(Side::South, g.legal_moves()), "E");
    g.play_letter('E').unwrap();
    assert_eq!(g.position().to_string(), "3-3-3-2-0-1-1-0-0-0-0-0-16-19-N");
}

#[test]
fn ouril_grand_slam_then_cannot_feed() {
    let fen = "1-0-0-0-0-6-2-2-2-2-1-1-8-23-S";
    // The single seed in A may not be played while F holds more.
    assert_eq!(legal_letters(fen, rules("ouril")), "F");
    let mut g = Game::new(rules("ouril"), pos(fen));
    g.play_letter('F').unwrap();
    let o = g.outcome().expect("South cannot feed");
    assert_eq!(o.reason, EndReason::CannotFeed);
    assert_eq!(o.stores(), [25.0, 23.0]);
}

#[test]
fn ouril_single_seed_restriction() {
    assert_eq!(
        legal_letters("1-2-0-0-0-1-4-4-4-4-4-4-10-10-S", rules("ouril")),
        "B"
    );
    assert_eq!(
        legal_letters("1-0-0-0-0-1-4-4-4-4-4-4-10-12-S", rules("ouril")),
        "AF"
    );
}

#[test]
fn traditional_has_no_feeding_obligation() {
    let fen = "1-0-0-0-0-1-0-0-0-0-0-0-23-23-S";
    assert_eq!(legal_letters(fen, rules("traditional")), "AF");
    let mut g = Game::new(rules("traditional"), pos(fen));
    g.play_letter('A').unwrap();
    // North has no seeds: South takes the 2 left and wins 25–23 (no 25 rule needed).
    let o = g.outcome().unwrap();
    assert_eq!(o.stores(), [25.0, 23.0]);
    assert_eq!(o.winner(), Some(Side::South));
}

#[test]
fn traditional_plays_past_25() {
    let p = pos("4-4-4-4-4-0-0-0-0-0-1-1-0-26-S");
    assert!(p.status(rules("traditional")).is_none());
    assert!(p.status(RuleSet::abapa()).is_some());
}

#[test]
fn cannot_feed_each_takes_own_row() {
    // North to move, South empty, North's seeds cannot reach South.
    let p = pos("0-0-0-0-0-0-1-1-0-0-0-0-23-23-N");
    let o = p.status(RuleSet::abapa()).unwrap();
    assert_eq!(o.reason, EndReason::CannotFeed);
    assert_eq!(o.stores(), [23.0, 25.0]);
}

#[test]
fn illegal_moves_are_refused_with_reasons() {
    let mut g = Game::new(RuleSet::abapa(), pos("1-0-0-0-0-1-0-0-0-0-0-0-23-23-S"));
    let e = g.play_letter('A').unwrap_err();
    assert_eq!(e.to_string(), "move A is illegal here (legal: F)");
    let e = g.play_letter('a').unwrap_err();
    assert!(e.to_string().contains("North's"), "{e}");
    let e = g.play_letter('x').unwrap_err();
    assert!(e.to_string().contains("'x'"), "{e}");
    assert_eq!(g.position(), &pos("1-0-0-0-0-1-0-0-0-0-0-0-23-23-S"));
}

// ------------------------------------------------ the slow reference implementation

/// Sows seed by seed and captures by the rule text; returns (position, captured, grand slam).
fn ref_apply(p: &Position, r: RuleSet, action: usize) -> (Position, u8, bool) {
    let mut q = *p;
    let me = p.side.index();
    let from = me * 6 + action;
    let mut seeds = q.pits[from];
    q.pits[from] = 0;
    let mut i = from;
    while seeds > 0 {
        i = (i + 1) % 12;
        if i == from {
            continue;
        }
        q.pits[i] += 1;
        seeds -= 1;
    }
    let opp = 1 - me;
    let in_opp = |k: usize| k / 6 == opp;
    let mut captured_pits = vec![];
    let mut k = i as isize;
    while k >= 0 && in_opp(k as usize) && (q.pits[k as usize] == 2 || q.pits[k as usize] == 3) {
        captured_pits.push(k as usize);
        k -= 1;
    }
    let taken: u8 = captured_pits.iter().map(|&k| q.pits[k]).sum();
    let opp_total: u8 = (opp * 6..opp * 6 + 6).map(|k| q.pits[k]).sum();
    let slam = taken > 0 && taken == opp_total;
    let mut captured = 0;
    let refuse = slam
        && matches!(
            r.grand_slam,
            GrandSlam::CapturesNothing | GrandSlam::Illegal
        );
    if !refuse {
        for &k in &captured_pits {
            q.stores[me] += q.pits[k];
            captured += q.pits[k];
            q.pits[k] = 0;
        }
        if slam && r.grand_slam == GrandSlam::CapturesAllAndEnds {
            for k in me * 6..me * 6 + 6 {
                q.stores[me] += q.pits[k];
                q.pits[k] = 0;
            }
        }
    }
    q.side = p.side.opponent();
    let opp_row: u8 = (opp * 6..opp * 6 + 6).map(|k| q.pits[k]).sum();
    let my_row: u8 = (me * 6..me * 6 + 6).map(|k| q.pits[k]).sum();
    if r.grand_slam == GrandSlam::CapturesAllMoveAgain && opp_row == 0 && my_row > 0 {
        q.side = p.side;
    }
    (q, captured, slam)
}

/// Legal moves by the rule text, one candidate at a time.
fn ref_legal(p: &Position, r: RuleSet) -> u8 {
    let me = p.side.index();
    let opp = 1 - me;
    let opp_empty = (opp * 6..opp * 6 + 6).all(|k| p.pits[k] == 0);
    let mut cands: Vec<usize> = (0..6).filter(|&a| p.pits[me * 6 + a] > 0).collect();
    if r.must_feed && opp_empty {
        cands.retain(|&a| {
            let (q, _, _) = ref_apply(p, RuleSet::abapa(), a);
            (opp * 6..opp * 6 + 6).any(|k| q.pits[k] > 0)
        });
    }
    if r.grand_slam == GrandSlam::Illegal {
        cands.retain(|&a| !ref_apply(p, r, a).2);
    }
    if r.single_seed_restriction && cands.iter().any(|&a| p.pits[me * 6 + a] > 1) {
        cands.retain(|&a| p.pits[me * 6 + a] > 1);
    }
    cands.iter().fold(0, |m, &a| m | (1 << a))
}

fn seeds(p: &Position) -> u32 {
    p.pits.iter().map(|&x| x as u32).sum::<u32>() + p.stores[0] as u32 + p.stores[1] as u32
}

/// A random position reachable in play: `plies` random moves from the start.
fn random_position(r: RuleSet, seed: u64, plies: u32) -> Position {
    let mut rng = Rng::new(seed);
    let mut g = Game::new(r, Position::start());
    for _ in 0..plies {
        let m = g.legal_moves();
        if m == 0 {
            break;
        }
        g.play(rng.pick_bit(m)).unwrap();
    }
    *g.position()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random games under every preset: seeds conserved, legal mask and every move equal
    /// to the reference, every game ends, the outcome adds up to 48.
    #[test]
    fn random_games_match_the_reference(seed in any::<u64>(), preset in 0usize..5) {
        let r = RuleSet::all()[preset];
        let mut rng = Rng::new(seed);
        let mut g = Game::new(r, Position::start());
        let mut plies = 0;
        while !g.is_over() {
            let p = *g.position();
            prop_assert_eq!(seeds(&p), 48);
            let m = g.legal_moves();
            prop_assert_eq!(m, ref_legal(&p, r), "legal moves of {}", p);
            prop_assert!(m != 0);
            let a = rng.pick_bit(m);
            let (expected, captured, slam) = ref_apply(&p, r, a);
            let info = g.play(a).unwrap();
            prop_assert_eq!(g.position(), &expected, "{} then action {}", p, a);
            prop_assert_eq!(info.captured, captured);
            prop_assert_eq!(info.grand_slam, slam);
            plies += 1;
            prop_assert!(plies < 5_000, "game does not end");
        }
        let o = g.outcome().unwrap();
        if o.reason == EndReason::Threshold {
            // Seeds still on the board stay uncounted.
            prop_assert_eq!(o.halves, [2 * g.position().stores[0] as u16, 2 * g.position().stores[1] as u16]);
        } else {
            prop_assert_eq!(o.halves[0] + o.halves[1], 96);
        }
        if r.win_threshold.is_none() {
            // Traditional games end only when the mover has no seeds (or by repetition).
            prop_assert!(matches!(o.reason, EndReason::NoSeeds | EndReason::Repetition));
        }
    }

    /// Arbitrary positions (not only reachable ones): the fast legal mask equals the
    /// reference under every preset, and the position text round-trips.
    #[test]
    fn arbitrary_positions_match_the_reference(
        cuts in proptest::collection::vec(0u8..=48, 13),
        side in any::<bool>(),
        preset in 0usize..5,
    ) {
        let mut c = cuts.clone();
        c.sort();
        let mut vals = [0u8; 14];
        let mut prev = 0;
        for (i, &x) in c.iter().enumerate() {
            vals[i] = x - prev;
            prev = x;
        }
        vals[13] = 48 - prev;
        let mut pits = [0u8; 12];
        pits.copy_from_slice(&vals[..12]);
        let p = Position { pits, stores: [vals[12], vals[13]], side: if side { Side::North } else { Side::South } };
        let r = RuleSet::all()[preset];
        prop_assert_eq!(p.legal_moves(r), ref_legal(&p, r));
        let text = p.to_string();
        prop_assert_eq!(text.parse::<Position>().unwrap(), p);
        for a in 0..6 {
            if p.legal_moves(r) & (1 << a) != 0 {
                let mut q = p;
                q.apply(r, a);
                prop_assert_eq!(q, ref_apply(&p, r, a).0);
            }
        }
    }
}

#[test]
fn random_playouts_end_with_all_seeds_counted() {
    let mut rng = Rng::new(11);
    let mut h = History::default();
    let mut repetitions = 0;
    for _ in 0..2_000 {
        let (o, plies) = random_playout(&Position::start(), RuleSet::abapa(), &mut rng, &mut h);
        if o.reason != EndReason::Threshold {
            assert_eq!(o.halves[0] + o.halves[1], 96);
        }
        assert!(plies > 0 && plies < 2_000);
        repetitions += (o.reason == EndReason::Repetition) as u32;
    }
    // docs/rules.md: random play ends by repetition in about 9% of games.
    assert!(
        (100..300).contains(&repetitions),
        "{repetitions} repetitions in 2000 games"
    );
}

#[test]
fn perft_matches_on_midgame_positions_for_every_preset() {
    // Perft by the fast engine against a brute-force count with the reference rules.
    fn ref_perft(p: &Position, r: RuleSet, depth: u32, hist: &mut Vec<u128>) -> u64 {
        if depth == 0 {
            return 1;
        }
        if p.status(r).is_some() {
            return 0;
        }
        let mut n = 0;
        for a in 0..6 {
            if ref_legal(p, r) & (1 << a) == 0 {
                continue;
            }
            let (q, captured, _) = ref_apply(p, r, a);
            let saved = hist.clone();
            if captured > 0 {
                hist.clear();
            } else if hist.contains(&q.key()) {
                continue;
            }
            hist.push(q.key());
            n += ref_perft(&q, r, depth - 1, hist);
            *hist = saved;
        }
        n
    }
    for r in RuleSet::all() {
        for seed in 0..6 {
            let p = random_position(r, seed, 20 + 7 * seed as u32);
            if p.status(r).is_some() {
                continue;
            }
            let mut hist = vec![p.key()];
            assert_eq!(
                perft(&p, r, 5),
                ref_perft(&p, r, 5, &mut hist),
                "{} {}",
                r,
                p
            );
        }
    }
}

/// The one ending rule against its definition, written out without the fast path: a
/// repetition ends the game by the repetition rule, anything else by the position's
/// status. Random games of every rule set; the repetition flag comes from a plain list of
/// the positions since the last capture, and is also forced on at random plies so the
/// repetition branch is met under every rule set's leftover rule.
#[test]
fn the_ending_rule_is_repetition_first_then_the_positions_own_endings() {
    let mut rng = Rng::new(2024);
    let (mut ended, mut repeated_ends, mut checked) = (0, 0, 0);
    for r in RuleSet::all() {
        for _ in 0..300 {
            let mut p = Position::start();
            let mut since_capture = vec![p];
            for _ in 0..400 {
                let legal = p.legal_moves(r);
                if legal == 0 {
                    break;
                }
                let info = p.apply(r, rng.pick_bit(legal));
                if info.captured > 0 {
                    since_capture.clear();
                }
                let repeated = since_capture.contains(&p) || rng.below(50) == 0;
                since_capture.push(p);
                let definition = if repeated {
                    Some(p.share_out(EndReason::Repetition, r.repetition))
                } else {
                    p.status(r)
                };
                let got = p.end_after_move(r, info.captured, p.legal_moves(r), repeated);
                assert_eq!(got, definition, "{r:?} at {p:?}");
                checked += 1;
                if let Some(o) = got {
                    ended += 1;
                    repeated_ends += (o.reason == EndReason::Repetition) as u32;
                    break;
                }
            }
        }
    }
    // The test saw both kinds of ending, many times.
    assert!(ended > 1000 && repeated_ends > 100 && ended - repeated_ends > 100);
    assert!(checked > 50_000, "{checked}");
}
