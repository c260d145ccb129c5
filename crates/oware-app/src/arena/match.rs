//! A match between two players: paired openings, every game in flight at once, the
//! MCTS players' leaf evaluations of all games batched.
//!
//! Each round, every game whose mover is an MCTS player starts a search in that
//! player's `SearchedGames` (one per player, one slot per game in flight); the searches
//! are stepped together, so each step is one evaluator call for all those games. Then
//! every game gets its move: from the finished search, or from the alpha-beta, random
//! or engine player. Openings come in pairs (`schedule`); the games' records and the
//! figures are kept as they finish (`tally`).
//!
//! Deterministic for a given configuration and seed, except for players limited by
//! wall-clock time (`alphabeta:movetime`, engines).

use std::time::Instant;

use super::driver::{Driver, ask_moves, chosen_move, place, play_move, step_searches};
use super::match_config::{MatchConfig, MatchError};
use super::player::Player;
use super::record::{MatchProgress, MatchReport};
use super::schedule::{Live, Schedule};
use super::tally::Tally;

/// Plays a match of `player` (A) against `opponent` (B); every figure of the report is
/// from A's point of view. `progress` is called after every finished game.
pub fn run_match_with(
    cfg: &MatchConfig,
    player: &mut Player,
    opponent: &mut Player,
    progress: &mut dyn FnMut(&MatchProgress),
) -> Result<MatchReport, MatchError> {
    let t0 = Instant::now();
    cfg.check()?;
    let games = cfg.games.div_ceil(2) * 2;
    let slots = cfg.slots(games);
    let names = [player.name(), opponent.name()];
    let mut drivers = [
        Driver::new(player, cfg, slots, 0)?,
        Driver::new(opponent, cfg, slots, 1)?,
    ];
    let clocks = [drivers[0].clock(), drivers[1].clock()];
    let mut schedule = Schedule::new(cfg, games, clocks);
    let mut tally = Tally::new(games);
    let mut live: Vec<Option<Live>> = (0..slots).map(|_| None).collect();
    for (s, l) in live.iter_mut().enumerate() {
        *l = schedule.start(tally.stopped());
        place(&mut drivers, s, l);
    }
    let mut evaluations = 0u64;
    while live.iter().any(Option::is_some) {
        // 1. Every game whose mover searches begins a search; all are stepped together.
        evaluations += step_searches(&mut drivers, &live);
        // 2. Alpha-beta and engine moves of all games at once, over threads.
        let (mut pending, spent) = ask_moves(&mut drivers, &live);
        // 3. Every game gets its move; a finished game's slot takes the next game.
        for (s, slot) in live.iter_mut().enumerate() {
            let Some(l) = slot.as_mut() else { continue };
            let mut chosen = chosen_move(&mut drivers, s, l, &mut pending[s]);
            if let Err(late) = l.clocks.charge(l.mover(), spent[s]) {
                chosen = Err(late);
            }
            let Some(end) = play_move(cfg, &mut drivers, s, l, chosen) else {
                continue;
            };
            let l = slot.take().expect("the slot is live");
            tally.add(l.finish(end), cfg.sprt);
            progress(&tally.progress(games, t0));
            *slot = schedule.start(tally.stopped());
            place(&mut drivers, s, slot);
        }
    }
    Ok(tally.report(cfg, names, evaluations, t0))
}

/// Plays a match without progress reports; see [`run_match_with`].
pub fn run_match(
    cfg: &MatchConfig,
    player: &mut Player,
    opponent: &mut Player,
) -> Result<MatchReport, MatchError> {
    run_match_with(cfg, player, opponent, &mut |_| {})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::openings::{Openings, parse_openings};
    use crate::arena::player::PlayerSpec;
    use crate::arena::record::GameEnd;
    use crate::arena::stats::{Decision, Pentanomial, SprtConfig};
    use oware_core::game::{Game, Position, RuleSet, Side};

    fn player(spec: &str) -> Player {
        Player::from_spec(&spec.parse::<PlayerSpec>().unwrap(), RuleSet::default(), 7).unwrap()
    }

    fn cfg(games: usize) -> MatchConfig {
        MatchConfig {
            games,
            seed: 42,
            ..MatchConfig::default()
        }
    }

    #[test]
    fn mcts_beats_random_clearly() {
        let r = run_match(&cfg(40), &mut player("mcts:sims=64"), &mut player("random")).unwrap();
        assert_eq!(r.summary.games, 40);
        assert!(r.summary.score > 0.7, "{}", r.summary.text());
        assert!(r.evaluations > 0);
        // Seen from the other side, the same match is the mirror image.
        let r2 = run_match(&cfg(40), &mut player("random"), &mut player("mcts:sims=64")).unwrap();
        assert!(r2.summary.score < 0.3, "{}", r2.summary.text());
    }

    #[test]
    fn colours_swap_within_each_pair_on_the_same_opening() {
        let r = run_match(&cfg(11), &mut player("random"), &mut player("random")).unwrap();
        // 11 games are rounded up to 6 pairs.
        assert_eq!(r.games.len(), 12);
        assert_eq!(r.summary.pentanomial.iter().sum::<u64>(), 6);
        for (i, g) in r.games.iter().enumerate() {
            assert_eq!(g.index, i);
            let want = if i.is_multiple_of(2) {
                Side::South
            } else {
                Side::North
            };
            assert_eq!(g.player_side, want);
            assert_eq!(g.opening_plies, 4);
        }
        let mut openings = std::collections::HashSet::new();
        let mut positions = std::collections::HashSet::new();
        for pair in r.games.chunks(2) {
            let a = &pair[0].game.moves()[..4];
            let b = &pair[1].game.moves()[..4];
            assert_eq!(a, b, "both games of a pair share the opening");
            assert_eq!(pair[0].game.start(), pair[1].game.start());
            openings.insert(a.to_vec());
            let mut g = Game::new(RuleSet::default(), Position::start());
            for &(_, m) in a {
                g.play(m as usize).unwrap();
            }
            positions.insert(*g.position());
        }
        assert_eq!(
            positions.len(),
            6,
            "every pair gets its own opening position"
        );
        // Pentanomial counts agree with the games.
        let mut p = Pentanomial::default();
        for pair in r.games.chunks(2) {
            p.add_pair(pair[0].score, pair[1].score);
        }
        assert_eq!(p.0, r.summary.pentanomial);
    }

    #[test]
    fn records_replay_through_game() {
        let r = run_match(&cfg(8), &mut player("mcts:sims=16"), &mut player("random")).unwrap();
        let text = r.records_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 8);
        for (line, g) in lines.iter().zip(&r.games) {
            let (game, result) = line.split_once(" # ").unwrap();
            let v: serde_json::Value = serde_json::from_str(result).unwrap();
            assert!(v["winner"].is_string() && v["reason"].is_string(), "{v}");
            assert_eq!(v["game"], g.index);
            let (fen, moves) = game.split_once(';').unwrap();
            let mut replay = Game::new(RuleSet::default(), fen.parse().unwrap());
            replay.play_text(moves).unwrap();
            let GameEnd::Rules { outcome } = &g.end else {
                panic!("no forfeits here")
            };
            assert_eq!(replay.outcome().as_ref(), Some(outcome));
            let want = (outcome.score_for(g.player_side) as f64 + 1.0) / 2.0;
            assert_eq!(g.score, want);
        }
    }

    #[test]
    fn same_seed_same_games_and_concurrency_does_not_matter() {
        let run = |c: usize, seed: u64| {
            let mut m = cfg(10);
            m.concurrency = c;
            m.seed = seed;
            let r = run_match(&m, &mut player("mcts:sims=8"), &mut player("random")).unwrap();
            r.games
                .iter()
                .map(|g| g.game.move_text())
                .collect::<Vec<_>>()
        };
        let a = run(0, 3);
        assert_eq!(a, run(0, 3));
        assert_eq!(a, run(3, 3), "games in flight change nothing");
        assert_ne!(a, run(0, 4));
        // Rollouts draw from one generator in batch order: the same for the same
        // settings, but not across concurrency.
        let rollout = || {
            let r = run_match(
                &cfg(6),
                &mut player("mcts:sims=8:eval=rollout"),
                &mut player("random"),
            );
            r.unwrap()
                .games
                .iter()
                .map(|g| g.game.move_text())
                .collect::<Vec<_>>()
        };
        assert_eq!(rollout(), rollout());
    }

    #[test]
    fn sprt_stops_early_with_complete_pairs() {
        let mut m = cfg(400);
        m.sprt = Some(SprtConfig::new(0.0, 35.0));
        m.concurrency = 16;
        let r = run_match(&m, &mut player("mcts:sims=32"), &mut player("random")).unwrap();
        assert!(r.stopped_early, "{}", r.summary.text());
        assert!(r.games.len() < 400 && r.games.len().is_multiple_of(2));
        assert_eq!(
            r.summary.pentanomial.iter().sum::<u64>() * 2,
            r.summary.games
        );
        let s = r.summary.sprt.unwrap();
        assert_eq!(s.decision, Decision::AcceptH1);
        assert!(s.llr >= s.bounds[1]);
    }

    #[test]
    fn a_list_of_openings_is_used_in_order_and_again_from_the_first() {
        let text = "FfBe\n4-4-4-4-4-4-4-4-4-4-4-4-0-0-S\n4-4-4-4-4-4-4-4-4-4-4-4-0-0-S;Cc\n";
        let o = parse_openings(text, RuleSet::default()).unwrap();
        let mut m = cfg(6);
        m.openings = Openings::List(o);
        let g = run_match(&m, &mut player("random"), &mut player("random")).unwrap();
        assert!(g.games[0].game.move_text().starts_with("FfBe"));
        assert!(g.games[5].game.move_text().starts_with("Cc"));
    }

    #[test]
    fn bad_settings_are_errors() {
        let e = run_match(&cfg(0), &mut player("random"), &mut player("random")).unwrap_err();
        assert!(e.to_string().contains("at least 1 game"));
        let mut m = cfg(2);
        m.openings = Openings::List(vec![]);
        assert!(run_match(&m, &mut player("random"), &mut player("random")).is_err());
        m.openings = Openings::Random { plies: 61 };
        let e = run_match(&m, &mut player("random"), &mut player("random")).unwrap_err();
        assert!(e.to_string().contains("at most 60"), "{e}");
    }

    #[test]
    fn alphabeta_is_deterministic_whatever_the_threads() {
        let run = |threads: usize, concurrency: usize| {
            let mut m = cfg(12);
            m.threads = threads;
            m.concurrency = concurrency;
            let r = run_match(
                &m,
                &mut player("alphabeta:depth=3"),
                &mut player("mcts:sims=16"),
            )
            .unwrap();
            r.games
                .iter()
                .map(|g| g.game.move_text())
                .collect::<Vec<_>>()
        };
        let a = run(1, 0);
        assert_eq!(a, run(3, 0));
        assert_eq!(a, run(2, 5));
    }

    #[test]
    fn deeper_alphabeta_beats_random_and_shallower() {
        let r = run_match(
            &cfg(20),
            &mut player("alphabeta:depth=4"),
            &mut player("random"),
        )
        .unwrap();
        assert!(r.summary.score > 0.9, "{}", r.summary.text());
        let r = run_match(
            &cfg(40),
            &mut player("alphabeta:depth=5"),
            &mut player("alphabeta:depth=1"),
        )
        .unwrap();
        assert!(r.summary.score > 0.6, "{}", r.summary.text());
    }
}
