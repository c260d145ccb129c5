//! The search against plain minimax written here from the rules, and hand-built wins.

use super::*;
use crate::game::{EndReason, Preset};
use crate::rng::Rng;

/// Plain minimax over `Game` (no pruning, no table): a finished game is worth
/// ±(10 000 − plies) or 0, a leaf 100 per seed of store difference plus `ROW_WEIGHT`
/// per seed of row difference, mover's view.
fn minimax(g: &Game, depth: u32, ply: i32) -> i32 {
    let side = g.position().side;
    if let Some(o) = g.outcome() {
        return match o.winner() {
            None => 0,
            Some(w) if w == side => 10_000 - ply,
            Some(_) => ply - 10_000,
        };
    }
    if depth == 0 {
        let p = g.position();
        let (me, you) = (side.base(), side.opponent().base());
        let rows: i32 = (0..6)
            .map(|i| p.pits[me + i] as i32 - p.pits[you + i] as i32)
            .sum();
        return 100 * (p.stores[side.index()] as i32 - p.stores[side.opponent().index()] as i32)
            + ROW_WEIGHT * rows;
    }
    let mut best = i32::MIN;
    for a in 0..6 {
        if g.legal_moves() & (1 << a) == 0 {
            continue;
        }
        let mut c = g.clone();
        c.play(a).unwrap();
        let v = minimax(&c, depth - 1, ply + 1);
        best = best.max(if c.position().side == side { v } else { -v });
    }
    best
}

/// A game after `plies` random moves from the start (history kept), or `None` if over.
fn random_game(rules: RuleSet, rng: &mut Rng, plies: u32) -> Option<Game> {
    let mut g = Game::new(rules, Position::start());
    for _ in 0..plies {
        if g.is_over() {
            return None;
        }
        let a = rng.pick_bit(g.legal_moves());
        g.play(a).unwrap();
    }
    (!g.is_over()).then_some(g)
}

fn equals_minimax(preset: Preset, positions: usize, seed: u64) {
    let rules = RuleSet::from_preset(preset);
    let mut rng = Rng::new(seed);
    let mut ab = AlphaBeta::new(rules, 1);
    let mut done = 0;
    let mut repeated_lines = 0;
    while done < positions {
        let plies = rng.below(90);
        let Some(g) = random_game(rules, &mut rng, plies) else {
            continue;
        };
        let depth = 1 + (done % 6) as u32;
        let want = minimax(&g, depth, 0);
        let got = ab.search(&g, &Limits::depth(depth));
        assert_eq!(
            got.score_cp,
            want,
            "{} depth {depth} after {}: {}",
            rules,
            g.move_text(),
            g.position()
        );
        // The best move must achieve the value.
        let mut c = g.clone();
        c.play(got.best_move.unwrap() as usize).unwrap();
        let v = minimax(&c, depth - 1, 1);
        let v = if c.position().side == g.position().side {
            v
        } else {
            -v
        };
        assert_eq!(
            v,
            want,
            "best move {:?} of {}",
            got.best_letter(),
            g.position()
        );
        if g.history().len() > 8 {
            repeated_lines += 1;
        }
        done += 1;
    }
    // Many positions come with a long history, so repetition inside the search is tried.
    assert!(repeated_lines > positions / 10, "{repeated_lines}");
}

#[test]
fn equals_minimax_abapa() {
    equals_minimax(Preset::Abapa, 240, 1);
}

#[test]
fn equals_minimax_awari() {
    equals_minimax(Preset::Awari, 240, 2);
}

#[test]
fn equals_minimax_other_rule_sets() {
    equals_minimax(Preset::GrandSlamCaptures, 80, 3);
    equals_minimax(Preset::Ouril, 80, 4);
    equals_minimax(Preset::Traditional, 80, 5);
}

/// Sparse endgames after long random games: few moves per node, so minimax can look
/// 8 to 13 plies ahead, where lines often repeat positions of the game or of the line.
fn equals_minimax_in_endgames(preset: Preset, positions: usize, seed: u64) {
    let rules = RuleSet::from_preset(preset);
    let mut rng = Rng::new(seed);
    let mut ab = AlphaBeta::new(rules, 1);
    let mut done = 0;
    let mut with_repetition = 0;
    while done < positions {
        let Some(g) = sparse_endgame(rules, &mut rng, 9, 12) else {
            continue;
        };
        let depth = 8 + (done % 6) as u32;
        let want = minimax(&g, depth, 0);
        let got = ab.search(&g, &Limits::depth(depth));
        assert_eq!(
            got.score_cp,
            want,
            "{rules} depth {depth}: fen {} moves {}",
            g.start(),
            g.move_text()
        );
        if ab.repetition_seen {
            with_repetition += 1;
        }
        done += 1;
    }
    assert!(with_repetition > 0);
}

#[test]
fn equals_minimax_in_endgames_abapa() {
    equals_minimax_in_endgames(Preset::Abapa, 120, 11);
}

#[test]
fn equals_minimax_in_endgames_awari() {
    equals_minimax_in_endgames(Preset::Awari, 120, 12);
}

#[test]
fn repetition_inside_the_search_is_exact() {
    // docs/rules.md example 10: after AaBbCcDdEe, F then f returns to the start position.
    let rules = RuleSet::abapa();
    let mut g = Game::new(rules, "1-0-0-0-0-0-1-0-0-0-0-0-23-23-S".parse().unwrap());
    g.play_text("AaBbCcDdEe").unwrap();
    for depth in 1..=8 {
        let want = minimax(&g, depth, 0);
        let got = AlphaBeta::new(rules, 1).search(&g, &Limits::depth(depth));
        assert_eq!(got.score_cp, want, "depth {depth}");
    }
}

#[test]
fn finds_the_multi_pit_capture_chain() {
    // docs/rules.md example 4: C captures pits 10..6 (3 2 2 2 2 = 11 seeds): 26 seeds, a win.
    // Every other move (F) captures at most one pit and does not reach 25.
    let rules = RuleSet::abapa();
    let pos: Position = "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S".parse().unwrap();
    let mut check = Game::new(rules, pos);
    check.play_letter('C').unwrap();
    assert_eq!(check.outcome().unwrap().winner(), Some(Side::South));
    for depth in [1, 4, 7] {
        let r = AlphaBeta::new(rules, 4).search_position(&pos, &Limits::depth(depth));
        assert_eq!(r.best_letter(), Some('C'));
        assert_eq!(r.score_cp, WIN - 1);
        assert_eq!(r.pv, "C");
    }
}

#[test]
fn finds_the_win_when_the_opponent_cannot_be_fed() {
    // South: A=1, D=2; North: f=1; stores 22-22. After A and North's only move f (into
    // pit A), North's row is empty and South's seeds (A=1, B=1, D=2) cannot reach it:
    // the game ends and South takes his 4 seeds, 26-22. After D instead, F=1 can feed,
    // so the game goes on. The fastest win is A, two plies deep.
    let rules = RuleSet::abapa();
    let pos: Position = "1-0-0-2-0-0-0-0-0-0-0-1-22-22-S".parse().unwrap();
    let mut check = Game::new(rules, pos);
    check.play_text("Af").unwrap();
    let o = check.outcome().unwrap();
    assert_eq!(o.reason, EndReason::CannotFeed);
    assert_eq!(o.winner(), Some(Side::South));
    let mut other = Game::new(rules, pos);
    other.play_text("Df").unwrap();
    assert!(!other.is_over());
    for depth in [2, 5, 9] {
        let r = AlphaBeta::new(rules, 4).search_position(&pos, &Limits::depth(depth));
        assert_eq!(r.best_letter(), Some('A'), "depth {depth}");
        assert_eq!(r.score_cp, WIN - 2);
        assert_eq!(r.pv, "Af");
        assert_eq!(r.pv_moves, [0, 5]);
    }
}

#[test]
fn fixed_depth_is_deterministic() {
    let rules = RuleSet::abapa();
    let mut g = Game::new(rules, Position::start());
    g.play_text("FfBeCa").unwrap();
    let mut ab = AlphaBeta::new(rules, 8);
    let a = ab.search(&g, &Limits::depth(9));
    // An unrelated search in between must not change the next one.
    ab.search_position(&Position::start(), &Limits::depth(10));
    let b = ab.search(&g, &Limits::depth(9));
    let c = AlphaBeta::new(rules, 64).search(&g, &Limits::depth(9));
    assert_eq!(
        (a.best_move, a.score_cp, &a.pv, a.nodes),
        (b.best_move, b.score_cp, &b.pv, b.nodes)
    );
    assert_eq!((a.best_move, a.score_cp), (c.best_move, c.score_cp));
}

#[test]
fn limits_stop_the_search() {
    let rules = RuleSet::abapa();
    let mut ab = AlphaBeta::new(rules, 8);
    let r = ab.search_position(&Position::start(), &Limits::nodes(50_000));
    assert!(r.best_move.is_some());
    assert!(r.nodes < 52_000, "{}", r.nodes);
    let t = Instant::now();
    let r = ab.search_position(&Position::start(), &Limits::movetime_ms(100));
    assert!(t.elapsed() < Duration::from_millis(600));
    assert!(r.best_move.is_some() && r.depth >= 2);
    let stop = AtomicBool::new(true);
    let g = Game::new(rules, Position::start());
    let r = ab.search_with(&g, &Limits::default(), Some(&stop), |_| {});
    assert_eq!(
        r.depth, 1,
        "a raised flag still leaves the first iteration's move"
    );
    assert!(r.best_move.is_some());
}

#[test]
fn finished_game_has_no_move() {
    let rules = RuleSet::abapa();
    let pos: Position = "0-0-0-1-1-2-0-0-0-0-0-3-26-15-N".parse().unwrap();
    let r = AlphaBeta::new(rules, 1).search_position(&pos, &Limits::depth(5));
    assert_eq!(r.best_move, None);
    assert_eq!(r.score_cp, -WIN);
    assert_eq!(r.pv, "");
}

/// A match at equal depth between the store-difference evaluation and one with the row
/// term: every 2-ply opening, each side once. Prints the score; run by hand with
/// `cargo test --release --lib row_term_match -- --ignored --nocapture`.
#[test]
#[ignore]
fn row_term_match() {
    let rules = RuleSet::abapa();
    let depth: u32 = std::env::var("MATCH_DEPTH")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(8);
    let weight: i32 = std::env::var("ROW_WEIGHT")
        .ok()
        .and_then(|d| d.parse().ok())
        .unwrap_or(ROW_WEIGHT);
    let mut plain = AlphaBeta::new(rules, 16);
    plain.set_row_weight(0);
    let mut term = AlphaBeta::new(rules, 16);
    term.set_row_weight(weight);
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    for opening in 0..36 {
        for term_side in [Side::South, Side::North] {
            let mut g = Game::new(rules, Position::start());
            g.play(opening / 6).unwrap();
            g.play(opening % 6).unwrap();
            while !g.is_over() {
                let p = if g.position().side == term_side {
                    &mut term
                } else {
                    &mut plain
                };
                let a = p.search(&g, &Limits::depth(depth)).best_move.unwrap();
                g.play(a as usize).unwrap();
            }
            match g.outcome().unwrap().score_for(term_side) {
                1 => wins += 1,
                0 => draws += 1,
                _ => losses += 1,
            }
        }
    }
    println!("row term {weight} cp/seed at depth {depth}: +{wins} ={draws} -{losses}");
}

/// A sparse endgame (at most `max_seeds` on the board) after a long random game, with up
/// to `extra` - 1 more moves so that the history since the last capture grows; `None` if
/// the game ended.
fn sparse_endgame(rules: RuleSet, rng: &mut Rng, max_seeds: u8, extra: u32) -> Option<Game> {
    let mut g = Game::new(rules, Position::start());
    while !g.is_over() && g.position().board_seeds() > max_seeds {
        let a = rng.pick_bit(g.legal_moves());
        g.play(a).unwrap();
    }
    for _ in 0..rng.below(extra) {
        if g.is_over() {
            break;
        }
        let a = rng.pick_bit(g.legal_moves());
        g.play(a).unwrap();
    }
    (!g.is_over()).then_some(g)
}

/// Looks for positions where a search with one table guard switched off differs from
/// the guarded search, and prints them with the minimax value (the guarded search must
/// equal it). `GUARD_SCAN=N` positions (default 20 000), `GUARD_SEED`.
/// `cargo test --release --lib guard_scan -- --ignored --nocapture`
#[test]
#[ignore]
fn guard_scan() {
    let n: usize = std::env::var("GUARD_SCAN").map_or(20_000, |v| v.parse().unwrap());
    let seed: u64 = std::env::var("GUARD_SEED").map_or(1, |v| v.parse().unwrap());
    let mut rng = Rng::new(seed);
    let mut found = 0;
    for i in 0..n {
        let rules = if i % 2 == 0 {
            RuleSet::abapa()
        } else {
            RuleSet::from_preset(Preset::Awari)
        };
        let Some(g) = sparse_endgame(rules, &mut rng, 4 + (i % 5) as u8, 16) else {
            continue;
        };
        let depth = 10 + (i % 7) as u32;
        let mut ab = AlphaBeta::new(rules, 1);
        let want = ab.search(&g, &Limits::depth(depth)).score_cp;
        for (name, guards) in [
            (
                "store",
                Guards {
                    store: false,
                    cycle: true,
                },
            ),
            (
                "cycle",
                Guards {
                    store: true,
                    cycle: false,
                },
            ),
        ] {
            let mut off = AlphaBeta::new(rules, 1);
            off.guards = guards;
            let got = off.search(&g, &Limits::depth(depth)).score_cp;
            if got != want {
                let exact = minimax(&g, depth, 0);
                found += 1;
                println!(
                    "{name} guard off: {rules} depth {depth} fen {} moves {}: guarded {want}, \
                     unguarded {got}, minimax {exact}",
                    g.start(),
                    g.move_text()
                );
            }
        }
    }
    println!("{found} differences in {n} positions");
}

/// For each (rules, depth, moves from the start) found by `guard_scan`: the guarded
/// search equals plain minimax, and the search with `guards` does not, so the test fails
/// if that guard goes.
fn guard_is_needed(cases: &[(Preset, u32, &str)], guards: Guards) {
    for &(preset, depth, moves) in cases {
        let rules = RuleSet::from_preset(preset);
        let mut g = Game::new(rules, Position::start());
        g.play_text(moves).unwrap();
        let want = minimax(&g, depth, 0);
        let got = AlphaBeta::new(rules, 1).search(&g, &Limits::depth(depth));
        assert_eq!(got.score_cp, want, "{rules} {moves}");
        let mut off = AlphaBeta::new(rules, 1);
        off.guards = guards;
        let wrong = off.search(&g, &Limits::depth(depth));
        assert_ne!(
            wrong.score_cp, want,
            "{rules} {moves}: {guards:?} is not needed here"
        );
    }
}

/// A table entry whose subtree reaches back into the current path: used for a cutoff
/// there, its score ignores a repetition that this path would meet.
#[test]
fn the_cycle_guard_keeps_the_search_exact() {
    guard_is_needed(
        &[
            (
                Preset::Abapa,
                15,
                "FeCbAaDaEdAaFfEcAaEfCeAaBaEcAeBfDaBcFfEeFcAdAeBbFaEfEdBaFeAaDaFfAaEbFeCcDdEfFeDa\
                 EdFcCdDfEbFaAeBcCf",
            ),
            (
                Preset::Awari,
                14,
                "EeAcEaAdBfDbBcCcAbDaEbCeFcDeAaCbFdDbAeFbDdEcCeDaAeEfAeCcDfBfCcDbEbBfCdCaAeAfAdBd\
                 CeDaFaEcCeFfDbEcAbDaFaCbBdBfEeFf",
            ),
        ],
        Guards {
            store: true,
            cycle: false,
        },
    );
}

/// A score that a repetition below it shaped, stored and then used on another path to
/// the same position where that repetition cannot happen.
#[test]
fn the_store_guard_keeps_the_search_exact() {
    guard_is_needed(
        &[
            (
                Preset::Abapa,
                14,
                "AeEfDdDeFaEdAaEcCeBeCfCcEcBeCbFaDaBfDbBdCcAcCfBeDbBdBeCbAaDfAcEeDdCcFcEdCfAaCbEd\
                 DaBaDbEeBbAdFfCbAaBdCbDcEfCdFcBbCaDeAcBbDfEcFbAdCeAfAcBdCeDfEaA",
            ),
            (
                Preset::Awari,
                14,
                "EdDcAdDbCbFeBcDaEdBfEeAaEbEeCeBdBbFdEcEaFfDbEcCfBeFdAbCeAaFfDbFcEeAaBcCbFfDaEcFb\
                 AcBaCbDdBeFcEfFdAeBfCaDaEaA",
            ),
        ],
        Guards {
            store: false,
            cycle: true,
        },
    );
}
