//! Puzzles: positions from the network's self-play games where exactly one move forces
//! a win, proved by alpha-beta.
//!
//! "Exactly one" is proved within a horizon: the solution wins by force within
//! [`ProofLimits::depth`] plies (alpha-beta returns a decided score), and after every
//! other legal move a search [`ProofLimits::depth`] − 1 plies deep, finished to that
//! depth, finds no forced win for the solver. A position whose searches hit the node cap
//! before finishing is not a puzzle. [`unique_win`] is the one place that decides this,
//! so an exact source (an endgame tablebase) can be consulted there first.
//!
//! The games: the network against itself with few simulations, root noise and
//! temperature 1 (so the games differ and contain mistakes to punish); from each game
//! the first position (after the opening) with a unique win becomes a puzzle, given as
//! the position at the last capture before it plus the moves since, so that repetition
//! is seen.

use std::sync::{Arc, RwLock};

use serde::Serialize;

use crate::player::Level;
use oware_core::game::{Game, RuleSet, move_letter};
use oware_core::rng::Rng;
use oware_core::search::alphabeta::{AlphaBeta, WIN};
use oware_core::search::mcts::{Algorithm, MctsConfig, SearchedGames};
use oware_core::search::{Evaluator, Limits};

/// How hard the prover works on one position.
#[derive(Clone, Copy, Debug)]
pub struct ProofLimits {
    /// Horizon in plies: the win must be forced within it, and no other move may force
    /// one within it.
    pub depth: u32,
    /// Alpha-beta node cap per search.
    pub nodes: u64,
}

impl Default for ProofLimits {
    fn default() -> Self {
        ProofLimits {
            depth: 14,
            nodes: 2_000_000,
        }
    }
}

/// A proved unique win.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Proof {
    /// The winning action (0..5, mover-relative).
    pub action: usize,
    /// The winning line as move letters, the solution first.
    pub line: String,
    /// Plies to the end of the game along that line, with best defence.
    pub plies: u32,
}

/// The one move of the side to move in `game` that forces a win within
/// `limits.depth` plies, when exactly one does (see the module's notes); `None`
/// otherwise, or when the searches could not finish.
pub fn unique_win(game: &Game, ab: &mut AlphaBeta, limits: &ProofLimits) -> Option<Proof> {
    if game.is_over() || limits.depth < 2 {
        return None;
    }
    let mover = game.position().side;
    let at = |depth: u32| Limits {
        depth: Some(depth.min(oware_core::search::alphabeta::MAX_DEPTH)),
        nodes: Some(limits.nodes),
        movetime: None,
        soft: None,
    };
    let r = ab.search(game, &at(limits.depth));
    if !(r.is_decided() && r.score_cp > 0) {
        return None;
    }
    let action = r.best_move? as usize;
    let legal = game.legal_moves();
    for other in (0..6).filter(|&a| a != action && legal & (1 << a) != 0) {
        let mut g = game.clone();
        g.play(other).ok()?;
        if let Some(o) = g.outcome() {
            if o.score_for(mover) > 0 {
                return None;
            }
            continue;
        }
        let r2 = ab.search(&g, &at(limits.depth - 1));
        let mover_view = if g.position().side == mover {
            r2.score_cp
        } else {
            -r2.score_cp
        };
        if r2.is_decided() {
            if mover_view > 0 {
                return None;
            }
        } else if r2.depth < limits.depth - 1 {
            // Cut off by the node cap: not proved either way.
            return None;
        }
    }
    Some(Proof {
        action,
        line: r.pv.clone(),
        plies: (WIN - r.score_cp).max(1) as u32,
    })
}

/// What alpha-beta proved of one move (or a position), from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Proven {
    /// `win`, `loss` or `draw` where proven within the horizon; `None` otherwise.
    pub result: Option<&'static str>,
    /// Plies to the end of the game with best play, where proven.
    pub plies: Option<u32>,
}

/// Every legal move of a position searched to a horizon: `solve`'s answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solution {
    /// The position itself, mover's view.
    pub position: Proven,
    /// The best move (alpha-beta's: a forced win, else the longest resistance).
    pub best: usize,
    /// Alpha-beta's line, the best move first.
    pub line: String,
    /// Each legal move's proof (`None`: illegal).
    pub moves: [Option<Proven>; 6],
}

fn proven(score_cp: i32, decided: bool) -> Proven {
    if !decided {
        return Proven {
            result: None,
            plies: None,
        };
    }
    Proven {
        result: Some(if score_cp > 0 { "win" } else { "loss" }),
        plies: Some((WIN - score_cp.abs()).max(0) as u32),
    }
}

/// Each legal move of `game`'s position searched by alpha-beta to `depth` − 1 plies
/// after it (so the position to `depth`), capped at `nodes` nodes a search: which
/// moves force a win or lose by force within the horizon. `None` when the game is over.
pub fn solve(game: &Game, ab: &mut AlphaBeta, depth: u32, nodes: u64) -> Option<Solution> {
    if game.is_over() || depth == 0 {
        return None;
    }
    let mover = game.position().side;
    let at = |depth: u32| Limits {
        depth: Some(depth.min(oware_core::search::alphabeta::MAX_DEPTH)),
        nodes: Some(nodes),
        movetime: None,
        soft: None,
    };
    let root = ab.search(game, &at(depth));
    let mut moves = [None; 6];
    let legal = game.legal_moves();
    for a in (0..6).filter(|&a| legal & (1 << a) != 0) {
        let mut g = game.clone();
        g.play(a).ok()?;
        moves[a] = Some(match g.outcome() {
            Some(o) => Proven {
                result: Some(match o.score_for(mover) {
                    1 => "win",
                    -1 => "loss",
                    _ => "draw",
                }),
                plies: Some(1),
            },
            None if depth < 2 => proven(0, false),
            None => {
                let r = ab.search(&g, &at(depth - 1));
                let sign = if g.position().side == mover { 1 } else { -1 };
                let p = proven(sign * r.score_cp, r.is_decided());
                Proven {
                    plies: p.plies.map(|n| n + 1),
                    ..p
                }
            }
        });
    }
    Some(Solution {
        position: proven(root.score_cp, root.is_decided()),
        best: root
            .best_move
            .map_or_else(|| legal.trailing_zeros() as usize, |m| m as usize),
        line: root.pv,
        moves,
    })
}

/// One puzzle, as the API serves it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Puzzle {
    /// The position at the last capture before the puzzle (or the game's start).
    pub fen: String,
    /// The moves from `fen` to the puzzle position.
    pub moves: String,
    /// The puzzle position itself.
    pub position: String,
    /// Who is to move and must find the win: `S` or `N`.
    pub to_move: char,
    /// The one winning move (letter).
    pub solution: char,
    /// A winning line, the solution first.
    pub line: String,
    /// Plies to the end of the game along `line`.
    pub plies: u32,
    /// The weakest play level whose search (no noise, its simulations) finds the
    /// solution: `novice`, `amateur`, `strong`, `master`, or `beyond master`.
    pub difficulty: &'static str,
}

/// Fewest legal moves a puzzle position may have (fewer could be solved by trying
/// each within the three tries allowed).
pub const MIN_LEGAL: u32 = 4;
/// Fewest plies to the end along a puzzle's line: the solver moves at least twice
/// (a win in one move is no puzzle).
pub const MIN_PLIES: u32 = 3;

/// The first position of `game` from ply `from` on with a unique win, at least
/// [`MIN_LEGAL`] legal moves and a line of at least [`MIN_PLIES`], as a puzzle;
/// `rate` gives its difficulty from the position and the solution.
pub fn first_puzzle(
    game: &Game,
    from: usize,
    ab: &mut AlphaBeta,
    limits: &ProofLimits,
    rate: &mut dyn FnMut(&Game, usize) -> &'static str,
) -> Option<Puzzle> {
    let rules = game.rules();
    let mut g = Game::new(rules, *game.start());
    let mut since = Game::new(rules, *game.start());
    for (i, &(_, a)) in game.moves().iter().enumerate() {
        if i >= from
            && g.legal_moves().count_ones() >= MIN_LEGAL
            && let Some(p) = unique_win(&g, ab, limits)
            && p.plies >= MIN_PLIES
        {
            let side = g.position().side;
            return Some(Puzzle {
                fen: since.start().to_string(),
                moves: since.move_text(),
                position: g.position().to_string(),
                to_move: side.letter(),
                solution: move_letter(side, p.action),
                line: p.line,
                plies: p.plies,
                difficulty: rate(&g, p.action),
            });
        }
        let info = g.play(a as usize).ok()?;
        if info.captured > 0 {
            since = Game::new(rules, *g.position());
        } else {
            since.play(a as usize).ok()?;
        }
    }
    None
}

/// The weakest play level whose search finds `solution` in `game` (each level's
/// simulations, no noise, the most visited move), or `beyond master`.
pub fn difficulty(
    game: &Game,
    solution: usize,
    search: &mut SearchedGames,
    evaluator: &mut dyn Evaluator,
) -> &'static str {
    for level in Level::ALL {
        let (sims, ..) = level.settings();
        search.set_game(0, game.clone());
        search.begin(0, sims, false);
        search.run(evaluator);
        if search.result(0).best == solution {
            return level.name();
        }
    }
    "beyond master"
}

/// Puzzles found so far, shared between the generator and the server.
#[derive(Debug, Default)]
pub struct PuzzleBook {
    puzzles: RwLock<Vec<Puzzle>>,
}

impl PuzzleBook {
    /// How many puzzles are ready.
    pub fn len(&self) -> usize {
        self.puzzles.read().map_or(0, |p| p.len())
    }

    /// Whether none is ready yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Up to `n` different puzzles drawn at random by `rng`.
    pub fn sample(&self, n: usize, rng: &mut Rng) -> Vec<Puzzle> {
        let Ok(all) = self.puzzles.read() else {
            return Vec::new();
        };
        let mut idx: Vec<usize> = (0..all.len()).collect();
        let n = n.min(idx.len());
        for i in 0..n {
            let j = i + rng.below((idx.len() - i) as u32) as usize;
            idx.swap(i, j);
        }
        idx[..n].iter().map(|&i| all[i].clone()).collect()
    }

    fn add(&self, p: Puzzle) {
        if let Ok(mut all) = self.puzzles.write()
            && !all.iter().any(|q| q.position == p.position)
        {
            all.push(p);
        }
    }
}

/// Simulations per move of the generator's self-play games.
const GAME_SIMULATIONS: u32 = 16;
/// Plies skipped before looking for puzzles (the opening has none worth asking).
const OPENING_PLIES: usize = 12;
/// Plies after which a generator game is abandoned.
const MAX_GAME_PLIES: usize = 300;

/// Plays self-play games with `evaluator` under `rules` (seeded by `seed`) on a new
/// thread, adding one puzzle per game that has one to `book`, until `book` holds
/// `target` puzzles.
pub fn spawn_generator(
    mut evaluator: Box<dyn Evaluator>,
    rules: RuleSet,
    book: Arc<PuzzleBook>,
    target: usize,
    seed: u64,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("puzzles".into())
        .spawn(move || {
            let cfg = MctsConfig {
                algorithm: Algorithm::Puct,
                simulations: GAME_SIMULATIONS,
                cheap_simulations: 1,
                tree_reuse: true,
                ..MctsConfig::default()
            };
            let (most, ..) = Level::Master.settings();
            let mut judge = SearchedGames::new(cfg.anytime(most, false), rules, 1, seed);
            let mut search = SearchedGames::new(cfg, rules, 1, seed);
            let mut ab = AlphaBeta::new(rules, 16);
            let limits = ProofLimits::default();
            while book.len() < target {
                let game = self_play_game(&mut search, evaluator.as_mut(), rules);
                let mut rate =
                    |g: &Game, a: usize| difficulty(g, a, &mut judge, evaluator.as_mut());
                if let Some(p) = first_puzzle(&game, OPENING_PLIES, &mut ab, &limits, &mut rate) {
                    book.add(p);
                }
            }
        })
        .map(|_| ())
}

/// One game of the network against itself (noise, temperature 1).
fn self_play_game(
    search: &mut SearchedGames,
    evaluator: &mut dyn Evaluator,
    rules: RuleSet,
) -> Game {
    let mut game = Game::new(rules, oware_core::game::Position::start());
    search.set_game(0, game.clone());
    while !game.is_over() && game.moves().len() < MAX_GAME_PLIES {
        search.begin(0, GAME_SIMULATIONS, true);
        search.run(evaluator);
        let a = search.choose(0, 1.0);
        if game.play(a).is_err() || search.play(0, a).is_err() {
            break;
        }
    }
    game
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::game::Position;
    use oware_core::search::UniformEvaluator;

    fn game(fen: &str) -> Game {
        Game::new(RuleSet::abapa(), fen.parse::<Position>().unwrap())
    }

    #[test]
    fn the_one_winning_capture_is_proved() {
        // docs/rules.md example 4: C captures 11 and reaches 26; no other move wins soon.
        let g = game("0-0-8-0-0-1-1-1-1-1-2-3-15-15-S");
        let mut ab = AlphaBeta::new(RuleSet::abapa(), 4);
        let p = unique_win(&g, &mut ab, &ProofLimits::default()).unwrap();
        assert_eq!(p.action, 2);
        assert_eq!(p.plies, 1);
        assert!(p.line.starts_with('C'));
    }

    #[test]
    fn two_winning_moves_are_no_puzzle() {
        // D (sowing E, F, a) and F (sowing a) both make a = 2, capture it and reach 25.
        let g = game("0-0-0-3-0-1-1-1-0-0-0-0-23-19-S");
        let mut ab = AlphaBeta::new(RuleSet::abapa(), 4);
        let r = ab.search(&g, &Limits::depth(2));
        assert!(r.is_decided() && r.score_cp > 0, "{r:?}");
        assert_eq!(unique_win(&g, &mut ab, &ProofLimits::default()), None);
        // With D gone (its seeds on North's side), F is the one win.
        let g = game("0-0-0-0-0-1-1-1-0-0-0-3-23-19-S");
        let p = unique_win(&g, &mut ab, &ProofLimits::default()).unwrap();
        assert_eq!(p.action, 5);
    }

    #[test]
    fn no_win_no_puzzle() {
        let g = game("4-4-4-4-4-4-4-4-4-4-4-4-0-0-S");
        let mut ab = AlphaBeta::new(RuleSet::abapa(), 4);
        let limits = ProofLimits {
            depth: 6,
            nodes: 100_000,
        };
        assert_eq!(unique_win(&g, &mut ab, &limits), None);
    }

    /// Plain minimax to `depth` plies from `me`'s view: +1 / 0 / −1 where the result
    /// is forced within the horizon, `None` where it is not.
    fn minimax(g: &Game, me: oware_core::game::Side, depth: u32) -> Option<i32> {
        if let Some(o) = g.outcome() {
            return Some(o.score_for(me) as i32);
        }
        if depth == 0 {
            return None;
        }
        let maximize = g.position().side == me;
        let (mut best, mut unknown) = (if maximize { -1 } else { 1 }, false);
        for a in (0..6).filter(|&a| g.legal_moves() & (1 << a) != 0) {
            let mut c = g.clone();
            c.play(a).unwrap();
            match minimax(&c, me, depth - 1) {
                Some(v) if v == if maximize { 1 } else { -1 } => return Some(v),
                Some(v) => best = if maximize { best.max(v) } else { best.min(v) },
                None => unknown = true,
            }
        }
        (!unknown).then_some(best)
    }

    #[test]
    fn solve_agrees_with_plain_minimax() {
        let mut ab = AlphaBeta::new(RuleSet::abapa(), 4);
        // D and F both win at once; then endgames of the rules' examples and small ones.
        for fen in [
            "0-0-0-3-0-1-1-1-0-0-0-0-23-19-S",
            "0-0-8-0-0-1-1-1-1-1-2-3-15-15-S",
            "1-1-1-1-2-3-1-1-8-0-0-0-14-15-S",
            "0-2-1-4-0-3-0-0-0-0-0-2-12-24-N",
            "1-0-0-0-2-0-0-3-2-0-0-1-19-20-N",
        ] {
            let g = game(fen);
            let me = g.position().side;
            let depth = 6;
            let s = solve(&g, &mut ab, depth, 1_000_000).unwrap();
            for a in (0..6).filter(|&a| g.legal_moves() & (1 << a) != 0) {
                let mut c = g.clone();
                c.play(a).unwrap();
                let truth = minimax(&c, me, depth - 1);
                let got = s.moves[a].unwrap().result;
                match truth {
                    Some(1) => assert_eq!(got, Some("win"), "{fen} move {a}"),
                    Some(-1) => assert_eq!(got, Some("loss"), "{fen} move {a}"),
                    // Alpha-beta names draws only where the move ends the game.
                    Some(_) => assert!(got.is_none() || got == Some("draw"), "{fen} {a}"),
                    None => assert_eq!(got, None, "{fen} move {a}: {got:?}"),
                }
            }
            let any_win = s.moves.iter().flatten().any(|m| m.result == Some("win"));
            assert_eq!(s.position.result == Some("win"), any_win, "{fen}");
            if any_win {
                assert_eq!(s.moves[s.best].unwrap().result, Some("win"), "{fen}");
            }
        }
    }

    #[test]
    fn generated_puzzles_are_proved_and_replayable() {
        let book = Arc::new(PuzzleBook::default());
        spawn_generator(
            Box::new(UniformEvaluator),
            RuleSet::abapa(),
            book.clone(),
            2,
            7,
        )
        .unwrap();
        let t0 = std::time::Instant::now();
        while book.len() < 2 {
            assert!(t0.elapsed().as_secs() < 120, "no puzzles after 2 minutes");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let mut ab = AlphaBeta::new(RuleSet::abapa(), 4);
        for p in book.sample(2, &mut Rng::new(1)) {
            let mut g = game(&p.fen);
            g.play_text(&p.moves).unwrap();
            assert_eq!(g.position().to_string(), p.position);
            assert_eq!(g.position().side.letter(), p.to_move);
            let proof = unique_win(&g, &mut ab, &ProofLimits::default()).unwrap();
            assert_eq!(move_letter(g.position().side, proof.action), p.solution);
            assert!(p.line.starts_with(p.solution));
            assert!(g.legal_moves().count_ones() >= MIN_LEGAL, "{p:?}");
            assert!(p.plies >= MIN_PLIES, "{p:?}");
            let levels = ["novice", "amateur", "strong", "master", "beyond master"];
            assert!(levels.contains(&p.difficulty), "{p:?}");
        }
    }
}
