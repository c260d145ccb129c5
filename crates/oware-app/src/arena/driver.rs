//! Each player's move-making machinery in a match ([`Driver`]): a random player's
//! generator, an MCTS player's `SearchedGames` (one slot per game in flight, the searches of
//! all games stepped together so each step is one evaluator call), alpha-beta searchers
//! or external engines asked over threads.

use std::time::Duration;

use super::clock::TimeControl;
use super::external_engine::ExternalEngine;
use super::match_config::{MAX_CONCURRENCY, MatchConfig, MatchError};
use super::player::{AlphaBetaLimit, Player};
use super::record::GameEnd;
use super::schedule::Live;
use oware_core::game::Game;
use oware_core::rng::Rng;
use oware_core::search::mcts::SearchedGames;
use oware_core::search::{AlphaBeta, Evaluator, Limits};

/// One player's move-making machinery for the match.
pub(super) enum Driver<'p> {
    Random,
    Search {
        search: Box<SearchedGames>,
        sims: u32,
        evaluator: &'p mut dyn Evaluator,
    },
    AlphaBeta {
        limits: Limits,
        /// One searcher per thread, kept across moves: each search sees only its own
        /// table entries, so a fixed-depth move depends on the game alone, whichever
        /// thread or order searches it.
        searchers: Vec<AlphaBeta>,
    },
    /// One engine process per worker thread.
    Engine(Vec<ExternalEngine>),
}

/// Transposition table of each alpha-beta searcher, in MiB.
const ALPHABETA_TT_MB: usize = 16;

/// Runs `f` on every job (slot, game), the jobs split into one contiguous share per
/// worker, each share on its own thread with its own worker. Results come back in job
/// order, so they do not depend on the number of workers.
fn in_parallel<W: Send, J: Sync, R: Send>(
    workers: &mut [W],
    jobs: &[(usize, &J)],
    f: &(impl Fn(&mut W, &J) -> R + Sync),
) -> Vec<(usize, R)> {
    if workers.len() <= 1 || jobs.len() <= 1 {
        let w = &mut workers[0];
        return jobs.iter().map(|&(s, g)| (s, f(w, g))).collect();
    }
    let chunk = jobs.len().div_ceil(workers.len());
    std::thread::scope(|scope| {
        let handles: Vec<_> = workers
            .iter_mut()
            .zip(jobs.chunks(chunk))
            .map(|(w, js)| {
                scope.spawn(move || js.iter().map(|&(s, g)| (s, f(w, g))).collect::<Vec<_>>())
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a match worker thread panicked"))
            .collect()
    })
}

impl<'p> Driver<'p> {
    /// The player's clock (base, increment, ms), if it plays on one.
    pub(super) fn clock(&self) -> Option<TimeControl> {
        match self {
            Driver::Engine(e) => match e.first()?.limit {
                AlphaBetaLimit::Clock { base_ms, inc_ms } => Some((base_ms, inc_ms)),
                _ => None,
            },
            _ => None,
        }
    }

    /// The machinery of `player` for a match under `cfg` with `slots` games in flight;
    /// `which` (0: A, 1: the opponent) tells the two players' search seeds apart.
    pub(super) fn new(
        player: &'p mut Player,
        cfg: &MatchConfig,
        slots: usize,
        which: u64,
    ) -> Result<Self, MatchError> {
        Ok(match player {
            Player::Random => Driver::Random,
            Player::Search {
                sims,
                evaluator,
                tablebase,
                mcts: own,
                ..
            } => {
                let mut mcts = own.clone().unwrap_or_else(|| cfg.mcts.clone());
                mcts.simulations = *sims;
                mcts.cheap_simulations = *sims;
                mcts.validate()
                    .map_err(|e| MatchError::Config(format!("mcts: {e}")))?;
                let seed = cfg.seed ^ 0x5EA2_C400_0000_0000 ^ which;
                let mut search = SearchedGames::new(mcts, cfg.rules, slots, seed);
                search.set_tablebase(tablebase.clone());
                Driver::Search {
                    search: Box::new(search),
                    sims: *sims,
                    evaluator: evaluator.as_mut(),
                }
            }
            Player::AlphaBeta(_) | Player::AlphaBetaTb { .. } => {
                let (limit, tb) = match player {
                    Player::AlphaBetaTb { limit, tb } => (limit, Some(tb.clone())),
                    Player::AlphaBeta(limit) => (limit, None),
                    _ => unreachable!(),
                };
                let limits = match *limit {
                    AlphaBetaLimit::Depth(d) => Limits::depth(d),
                    AlphaBetaLimit::MoveTime(ms) => Limits::movetime_ms(ms),
                    AlphaBetaLimit::Clock { .. } => {
                        return Err(MatchError::Config(
                            "a clock (tc=) is for engine players".into(),
                        ));
                    }
                };
                let threads = match limit {
                    // Timed searches would steal each other's time when run side by side.
                    AlphaBetaLimit::MoveTime(_) | AlphaBetaLimit::Clock { .. } => 1,
                    AlphaBetaLimit::Depth(_) => cfg.threads(),
                };
                Driver::AlphaBeta {
                    limits,
                    searchers: (0..threads)
                        .map(|_| {
                            let mut ab = AlphaBeta::new(cfg.rules, ALPHABETA_TT_MB);
                            ab.set_tablebase(tb.clone());
                            ab
                        })
                        .collect(),
                }
            }
            Player::Engine { command, limit } => {
                // Timed searches side by side would steal each other's time: one process.
                let processes = match limit {
                    AlphaBetaLimit::MoveTime(_) | AlphaBetaLimit::Clock { .. } => 1,
                    AlphaBetaLimit::Depth(_) => cfg.threads(),
                };
                Driver::Engine(
                    (0..processes)
                        .map(|_| ExternalEngine::new(command, *limit, cfg.rules))
                        .collect(),
                )
            }
        })
    }
}

/// Gives the MCTS players the game just started in slot `s`, if any.
pub(super) fn place(drivers: &mut [Driver; 2], s: usize, l: &Option<Live>) {
    if let Some(l) = l {
        for d in drivers.iter_mut() {
            if let Driver::Search { search, .. } = d {
                search.set_game(s, l.game.clone());
            }
        }
    }
}

/// Begins a search in every game whose mover is an MCTS player and steps each player's
/// searches together; returns the leaf evaluations made.
pub(super) fn step_searches(drivers: &mut [Driver; 2], live: &[Option<Live>]) -> u64 {
    let mut evaluations = 0;
    for (p, d) in drivers.iter_mut().enumerate() {
        if let Driver::Search {
            search,
            sims,
            evaluator,
        } = d
        {
            let mut any = false;
            for (s, l) in live.iter().enumerate() {
                if let Some(l) = l
                    && l.mover() == p
                {
                    any |= search.begin(s, *sims, false);
                }
            }
            if any {
                let before = search.search().evaluated;
                search.run(&mut **evaluator);
                evaluations += search.search().evaluated - before;
            }
        }
    }
    evaluations
}

/// A move asked of an alpha-beta or engine player, or why there is none.
pub(super) type Answer = Result<usize, String>;

/// The alpha-beta and engine players' moves in every game where they are to move, all
/// at once over threads, by slot (`None` where another kind of player moves), and the
/// time each engine took.
pub(super) fn ask_moves(
    drivers: &mut [Driver; 2],
    live: &[Option<Live>],
) -> (Vec<Option<Answer>>, Vec<Option<Duration>>) {
    let mut pending: Vec<Option<Answer>> = vec![None; live.len()];
    let mut spent = vec![None; live.len()];
    for (p, d) in drivers.iter_mut().enumerate() {
        let jobs: Vec<(usize, &Live)> = live
            .iter()
            .enumerate()
            .filter_map(|(s, l)| l.as_ref().filter(|l| l.mover() == p).map(|l| (s, l)))
            .collect();
        let moves = match d {
            Driver::AlphaBeta { limits, searchers } => {
                let limits = *limits;
                in_parallel(searchers, &jobs, &|ab: &mut AlphaBeta, l: &Live| {
                    let m = ab.search(&l.game, &limits).best_move.map(usize::from);
                    (
                        m.ok_or_else(|| "alpha-beta found no move".to_string()),
                        None,
                    )
                })
            }
            Driver::Engine(engines) => {
                in_parallel(engines, &jobs, &|e: &mut ExternalEngine, l: &Live| {
                    e.best_move(&l.game, l.clocks.by_side(l.player_side))
                })
            }
            Driver::Random | Driver::Search { .. } => continue,
        };
        for (s, (m, t)) in moves {
            pending[s] = Some(m);
            spent[s] = t;
        }
    }
    (pending, spent)
}

/// The mover's move in the game `l` of slot `s`: drawn, from its finished search, or
/// the answer `ask_moves` left in `pending`.
pub(super) fn chosen_move(
    drivers: &mut [Driver; 2],
    s: usize,
    l: &mut Live,
    pending: &mut Option<Answer>,
) -> Answer {
    let p = l.mover();
    match &mut drivers[p] {
        Driver::Random => Ok(l.rng[p].pick_bit(l.game.legal_moves())),
        Driver::Search { search, .. } => Ok(search.result(s).best),
        Driver::AlphaBeta { .. } | Driver::Engine(_) => pending
            .take()
            .unwrap_or_else(|| Err("no move was asked for (a bug)".into())),
    }
}

/// Plays `chosen` in the game `l` of slot `s` (and in the MCTS players' copies of it);
/// returns how the game ended, if it did.
pub(super) fn play_move(
    cfg: &MatchConfig,
    drivers: &mut [Driver; 2],
    s: usize,
    l: &mut Live,
    chosen: Answer,
) -> Option<GameEnd> {
    let a = match chosen {
        Ok(a) => a,
        Err(reason) => {
            return Some(GameEnd::Forfeit {
                loser: l.game.position().side,
                reason,
            });
        }
    };
    if let Err(e) = l.game.play(a) {
        return Some(GameEnd::Forfeit {
            loser: l.game.position().side,
            reason: format!("illegal move: {e}"),
        });
    }
    for d in drivers.iter_mut() {
        if let Driver::Search { search, .. } = d {
            // The same move was legal in the match's copy of the game.
            let _ = search.play(s, a);
        }
    }
    if let Some(o) = l.game.outcome() {
        Some(GameEnd::Rules { outcome: o })
    } else if l.game.moves().len() >= cfg.max_plies {
        Some(GameEnd::PlyLimit)
    } else {
        None
    }
}

/// `player`'s move in each of `games` (none may be over), asked as in a match: MCTS
/// players search all the games as one batch, alpha-beta and engines over `cfg`'s
/// threads. A move an engine fails to give is an error naming the game.
pub fn choose_moves(
    cfg: &MatchConfig,
    player: &mut Player,
    games: &[Game],
) -> Result<Vec<usize>, MatchError> {
    let mut out = Vec::with_capacity(games.len());
    for (c, chunk) in games.chunks(MAX_CONCURRENCY).enumerate() {
        let mut driver = Driver::new(player, cfg, chunk.len(), 0)?;
        match &mut driver {
            Driver::Random => {
                for (i, g) in chunk.iter().enumerate() {
                    let mut rng =
                        Rng::stream(cfg.seed ^ 0xACC0_0000, (c * MAX_CONCURRENCY + i) as u64);
                    out.push(rng.pick_bit(g.legal_moves()));
                }
            }
            Driver::Search {
                search,
                sims,
                evaluator,
            } => {
                for (s, g) in chunk.iter().enumerate() {
                    search.set_game(s, g.clone());
                    search.begin(s, *sims, false);
                }
                search.run(&mut **evaluator);
                out.extend((0..chunk.len()).map(|s| search.result(s).best));
            }
            Driver::AlphaBeta { limits, searchers } => {
                let limits = *limits;
                let jobs: Vec<(usize, &Game)> = chunk.iter().enumerate().collect();
                for (s, m) in in_parallel(searchers, &jobs, &|ab: &mut AlphaBeta, g: &Game| {
                    ab.search(g, &limits).best_move.map(usize::from)
                }) {
                    let m = m.ok_or_else(|| {
                        MatchError::Config(format!(
                            "alpha-beta found no move in {}",
                            chunk[s].position()
                        ))
                    })?;
                    out.push(m);
                }
            }
            Driver::Engine(engines) => {
                let jobs: Vec<(usize, &Game)> = chunk.iter().enumerate().collect();
                for (s, m) in in_parallel(engines, &jobs, &|e: &mut ExternalEngine, g: &Game| {
                    e.best_move(g, None).0
                }) {
                    let m = m.map_err(|e| {
                        MatchError::Config(format!(
                            "the engine gave no move in {}: {e}",
                            chunk[s].position()
                        ))
                    })?;
                    out.push(m);
                }
            }
        }
    }
    Ok(out)
}
