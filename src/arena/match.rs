//! A match between two players: paired openings, every game in flight at once, the
//! MCTS players' leaf evaluations of all games batched.
//!
//! Each round, every game whose mover is an MCTS player starts a search in that
//! player's `SearchedGames` (one per player, one slot per game in flight); the searches
//! are stepped together, so each step is one evaluator call for all those games. Then
//! every game gets its move: from the finished search, or from the alpha-beta, random
//! or engine player. Openings come in pairs: game 2k plays opening k with the player
//! (A) as South, game 2k+1 the same opening with colours swapped.
//!
//! Deterministic for a given configuration and seed, except for players limited by
//! wall-clock time (`alphabeta:movetime`, engines).

use std::time::Instant;

use super::player::Player;
use super::stats::{Decision, Pentanomial, Sprt, SprtConfig, Summary, Wdl};
use crate::game::{Game, Outcome, Position, RuleSet, Side};
use crate::rng::Rng;
use std::time::Duration;

use super::player::AlphaBetaLimit;
use crate::engine::client::EngineProcess;
use crate::search::mcts::{MctsConfig, SearchedGames};
use crate::search::{AlphaBeta, Evaluator, Limits};

/// A start position for a pair of games: a position and moves played from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Where the game starts (its history for repetition starts here).
    pub start: Position,
    /// Moves (mover-relative actions) played from `start` before the players take over.
    pub moves: Vec<u8>,
}

/// Where the openings come from.
#[derive(Clone, Debug, PartialEq)]
pub enum Openings {
    /// `plies` uniformly random legal moves from the start position, distinct where
    /// possible (see [`random_openings`]).
    Random {
        /// Plies per opening.
        plies: u32,
    },
    /// These openings in order, taken again from the first when there are more pairs.
    List(Vec<Opening>),
}

/// Reads openings, one per line: `FEN`, moves (`FfBe`), or `FEN;moves`. Blank lines
/// and lines starting with `#` are skipped. Errors name the line.
pub fn parse_openings(text: &str, rules: RuleSet) -> Result<Vec<Opening>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let (fen, moves) = match t.split_once(';') {
            Some((f, m)) => (Some(f.trim()), m.trim()),
            // A FEN has dashes; a move list never does.
            None if t.contains('-') => (Some(t), ""),
            None => (None, t),
        };
        let start = match fen {
            Some(f) => f
                .parse::<Position>()
                .map_err(|e| format!("line {}: {e}", n + 1))?,
            None => Position::start(),
        };
        let mut g = Game::new(rules, start);
        g.play_text(moves).map_err(|e| {
            format!(
                "line {}: {}: {e}",
                n + 1,
                crate::game::after_moves(g.moves().len())
            )
        })?;
        if g.is_over() {
            return Err(format!("line {}: the game is already over there", n + 1));
        }
        out.push(Opening {
            start,
            moves: g.moves().iter().map(|&(_, a)| a).collect(),
        });
    }
    if out.is_empty() {
        return Err("no openings found".into());
    }
    Ok(out)
}

/// The longest random opening a match accepts, in plies.
pub const MAX_OPENING_PLIES: u32 = 60;

/// Games in flight under an SPRT when `concurrency` is 0.
pub const SPRT_CONCURRENCY: usize = 64;

/// Games in flight at most when `concurrency` is 0: each MCTS player keeps a search tree
/// per game in flight, and batches of a few hundred leaves already keep an evaluator busy.
pub const MAX_CONCURRENCY: usize = 512;

/// Match settings.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// The rules played.
    pub rules: RuleSet,
    /// Games to play; rounded up to an even number (pairs).
    pub games: usize,
    /// The openings.
    pub openings: Openings,
    /// Seeds the openings, random players and search randomness.
    pub seed: u64,
    /// Stop early once this SPRT decides (checked as each pair completes; games already
    /// in flight are finished and counted).
    pub sprt: Option<SprtConfig>,
    /// Games in flight at once (the evaluator batch is at most this); 0 = all of them
    /// up to [`MAX_CONCURRENCY`], or [`SPRT_CONCURRENCY`] with an SPRT (with every game
    /// in flight at once, nothing is left to save when the test decides).
    pub concurrency: usize,
    /// Settings of the MCTS players' searches, for players without their own (a model's
    /// are those of its manifest); each player's `sims` overrides `simulations`, and no
    /// root noise is used in matches.
    pub mcts: MctsConfig,
    /// A game still running after this many plies is adjudicated on the stores (a
    /// guard; real games end by the rules far sooner).
    pub max_plies: usize,
    /// Threads for the alpha-beta players' moves (0 = all the machine has). Results do
    /// not depend on it.
    pub threads: usize,
}

impl MatchConfig {
    /// Threads to use: `threads`, or the machine's parallelism when 0.
    pub fn threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    }
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            rules: RuleSet::default(),
            games: 100,
            openings: Openings::Random { plies: 4 },
            seed: 1,
            sprt: None,
            concurrency: 0,
            mcts: MctsConfig::default(),
            max_plies: 2000,
            threads: 0,
        }
    }
}

/// How a game ended.
#[derive(Clone, Debug, PartialEq)]
pub enum GameEnd {
    /// By the rules.
    Rules {
        /// The outcome.
        outcome: Outcome,
    },
    /// The side to move failed to move (an engine that crashed, timed out or answered
    /// nonsense): it loses.
    Forfeit {
        /// Who forfeited.
        loser: Side,
        /// What went wrong.
        reason: String,
    },
    /// Stopped at `max_plies`, decided by the stores so far.
    PlyLimit,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// Game number in the match (0-based); pair = index / 2.
    pub index: usize,
    /// The side the player (A) had.
    pub player_side: Side,
    /// The game: start position, every move (opening included), final position.
    pub game: Game,
    /// Plies of the opening at the start of `game.moves()`.
    pub opening_plies: usize,
    /// How it ended.
    pub end: GameEnd,
    /// The player's score: 1, ½ or 0.
    pub score: f64,
}

impl GameRecord {
    /// The pair this game belongs to.
    pub fn pair(&self) -> usize {
        self.index / 2
    }

    /// The winner, `None` for a draw.
    pub fn winner(&self) -> Option<Side> {
        if self.score > 0.75 {
            Some(self.player_side)
        } else if self.score < 0.25 {
            Some(self.player_side.opponent())
        } else {
            None
        }
    }

    /// The game as `oware replay` reads it: `FEN;moves`.
    pub fn replay_line(&self) -> String {
        format!("{};{}", self.game.start(), self.game.move_text())
    }

    /// The result as JSON (for the `#` line above each game in record files).
    pub fn result_json(&self, player: &str, opponent: &str) -> serde_json::Value {
        let (south, north) = match self.player_side {
            Side::South => (player, opponent),
            Side::North => (opponent, player),
        };
        let winner = match self.winner() {
            Some(Side::South) => "S",
            Some(Side::North) => "N",
            None => "draw",
        };
        let mut v = serde_json::json!({
            "game": self.index,
            "pair": self.pair(),
            "south": south,
            "north": north,
            "opening_plies": self.opening_plies,
            "winner": winner,
        });
        match &self.end {
            GameEnd::Rules { outcome } => {
                v["reason"] = outcome.reason.name().into();
                // Whole seeds as integers; halves appear only with "split evenly".
                let st = outcome.stores().map(|x| {
                    if x.fract() == 0.0 {
                        serde_json::json!(x as i64)
                    } else {
                        serde_json::json!(x)
                    }
                });
                v["stores"] = serde_json::json!(st);
            }
            GameEnd::Forfeit { loser, reason } => {
                v["reason"] = "forfeit".into();
                v["forfeit"] =
                    serde_json::json!({"loser": loser.letter().to_string(), "why": reason});
            }
            GameEnd::PlyLimit => v["reason"] = "ply-limit".into(),
        }
        v
    }
}

/// What a match produced.
#[derive(Clone, Debug)]
pub struct MatchReport {
    /// The player's name (A: the point of view of every figure).
    pub player: String,
    /// The opponent's name.
    pub opponent: String,
    /// Statistics from the player's view.
    pub summary: Summary,
    /// Every finished game, by index.
    pub games: Vec<GameRecord>,
    /// Whether the SPRT stopped the match before `games`.
    pub stopped_early: bool,
    /// Leaf evaluations made by the MCTS players.
    pub evaluations: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl MatchReport {
    /// The game records file, one game per line: `FEN;moves # {json result}` (`oware
    /// replay` reads the game and takes the `#` part as a comment).
    pub fn records_text(&self) -> String {
        let mut s = String::new();
        for g in &self.games {
            s += &format!(
                "{} # {}\n",
                g.replay_line(),
                g.result_json(&self.player, &self.opponent)
            );
        }
        s
    }

    /// The report as one JSON object (what `oware eval --json` prints): at least
    /// `games`, `wins`, `draws`, `losses`, `score`, `elo`, `elo_ci95` `[low, high]`,
    /// `los`, `pentanomial`, and `sprt` when one ran.
    pub fn json(&self) -> serde_json::Value {
        let r = self;
        let s = &r.summary;
        let mut v = serde_json::json!({
            "player": r.player,
            "opponent": r.opponent,
            "games": s.games,
            "wins": s.wins,
            "draws": s.draws,
            "losses": s.losses,
            "score": s.score,
            "elo": s.elo,
            "elo_clamped": s.elo_clamped,
            "elo_ci95": s.elo_ci95,
            "ci_model": s.ci_model,
            "elo_ci95_trinomial": s.elo_ci95_trinomial,
            "los": s.los,
            "pentanomial": {
                "LL": s.pentanomial[0], "LD": s.pentanomial[1], "DD_WL": s.pentanomial[2],
                "WD": s.pentanomial[3], "WW": s.pentanomial[4],
            },
            "stopped_early": r.stopped_early,
            "forfeits": r.forfeits().iter().map(|(g, side, why)| {
                serde_json::json!({"game": g, "side": side.letter().to_string(), "reason": why})
            }).collect::<Vec<_>>(),
            "evaluations": r.evaluations,
            "seconds": r.seconds,
        });
        if let Some(t) = &s.sprt {
            v["sprt"] = serde_json::json!({
                "elo0": t.config.elo0, "elo1": t.config.elo1,
                "alpha": t.config.alpha, "beta": t.config.beta,
                "llr": t.llr, "bounds": t.bounds, "decision": t.decision,
                "model": t.model, "games": t.games,
            });
        }
        v
    }

    /// The games forfeited, with reasons (for reports).
    pub fn forfeits(&self) -> Vec<(usize, Side, String)> {
        self.games
            .iter()
            .filter_map(|g| match &g.end {
                GameEnd::Forfeit { loser, reason } => Some((g.index, *loser, reason.clone())),
                _ => None,
            })
            .collect()
    }
}

/// Progress so far, passed to the callback after every finished game.
#[derive(Clone, Debug)]
pub struct MatchProgress {
    /// Games finished.
    pub finished: usize,
    /// Games planned.
    pub planned: usize,
    /// Results so far, from the player's view.
    pub wdl: Wdl,
    /// Seconds since the start.
    pub seconds: f64,
}

/// A match that could not start.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// A setting is wrong.
    #[error("{0}")]
    Config(String),
}

/// One player's move-making machinery for the match.
enum Driver<'p> {
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
    Engine(Vec<EngineDriver>),
}

/// Transposition table of each alpha-beta searcher, in MiB.
const ALPHABETA_TT_MB: usize = 16;
/// Time an engine gets to start and answer the `uci`/`isready` handshake.
const ENGINE_HANDSHAKE: Duration = Duration::from_secs(10);
/// After this many failed starts in a row, an engine is given up for the match: its
/// remaining games are forfeited at once instead of waiting for it again and again.
const ENGINE_MAX_START_FAILURES: u32 = 3;

/// One external engine process, asked for its share of the games' moves in turn,
/// restarted after any failure (the game it failed in is lost).
struct EngineDriver {
    command: String,
    limit: AlphaBetaLimit,
    go_args: String,
    move_timeout: Duration,
    rules: RuleSet,
    process: Option<EngineProcess>,
    start_failures: u32,
    given_up: Option<String>,
}

impl EngineDriver {
    fn new(command: &str, limit: AlphaBetaLimit, rules: RuleSet) -> EngineDriver {
        let (go_args, move_timeout) = match limit {
            // A fixed-depth search has no clock; allow it a generous minute.
            AlphaBetaLimit::Depth(d) => (format!("depth {d}"), Duration::from_secs(60)),
            AlphaBetaLimit::MoveTime(ms) => (
                format!("movetime {ms}"),
                Duration::from_millis(2 * ms + 5000),
            ),
            // In a match the words follow the clocks move by move; alone (a position to
            // judge), each move gets a full clock.
            AlphaBetaLimit::Clock { base_ms, inc_ms } => (
                format!("wtime {base_ms} btime {base_ms} winc {inc_ms} binc {inc_ms}"),
                Duration::from_millis(base_ms + 5000),
            ),
        };
        EngineDriver {
            command: command.to_string(),
            limit,
            go_args,
            move_timeout,
            rules,
            process: None,
            start_failures: 0,
            given_up: None,
        }
    }

    fn start(&self) -> Result<EngineProcess, String> {
        let mut p =
            EngineProcess::start(&self.command, ENGINE_HANDSHAKE).map_err(|e| e.to_string())?;
        if p.options()
            .iter()
            .any(|o| o.name.eq_ignore_ascii_case("rules"))
        {
            p.set_option("Rules", self.rules.name())
                .map_err(|e| e.to_string())?;
        } else if self.rules != RuleSet::default() {
            return Err(format!(
                "engine '{}' has no Rules option, and this match plays {}",
                self.command, self.rules
            ));
        }
        Ok(p)
    }

    /// The running process, started (with the handshake) if there is none.
    fn process(&mut self) -> Result<&mut EngineProcess, String> {
        if let Some(why) = &self.given_up {
            return Err(format!(
                "engine given up after {ENGINE_MAX_START_FAILURES} failed starts: {why}"
            ));
        }
        if self.process.is_none() {
            match self.start() {
                Ok(p) => {
                    self.process = Some(p);
                    self.start_failures = 0;
                }
                Err(e) => {
                    self.start_failures += 1;
                    if self.start_failures >= ENGINE_MAX_START_FAILURES {
                        self.given_up = Some(e.clone());
                    }
                    return Err(e);
                }
            }
        }
        Ok(self.process.as_mut().expect("started above"))
    }

    /// The engine's move in `game`, or why it has none (the game is then forfeited), and
    /// the time it took from sending `position`/`go` to its answer (none if it was never
    /// asked). Starting the process (before the first move, or the first after a
    /// failure) is not part of that time: a clock charges the thinking, not the loading
    /// of a network or tables. `clocks` (South's, North's, ms) replace the fixed limit for
    /// an engine on a clock.
    fn best_move(
        &mut self,
        game: &Game,
        clocks: Option<[u64; 2]>,
    ) -> (Result<usize, String>, Option<Duration>) {
        let (go, timeout) = match (self.limit, clocks) {
            (AlphaBetaLimit::Clock { inc_ms, .. }, Some([w, b])) => {
                let mine = if game.position().side == Side::South {
                    w
                } else {
                    b
                };
                (
                    format!("wtime {w} btime {b} winc {inc_ms} binc {inc_ms}"),
                    Duration::from_millis(mine + 5000),
                )
            }
            _ => (self.go_args.clone(), self.move_timeout),
        };
        let p = match self.process() {
            Ok(p) => p,
            Err(e) => return (Err(e), None),
        };
        let asked = Instant::now();
        let answer = p.best_move(game, &go, timeout);
        let took = Some(asked.elapsed());
        let m = match answer {
            Ok(Some(a)) => return (Ok(a as usize), took),
            Ok(None) => format!(
                "engine '{}' answered no move in a game that is not over",
                self.command
            ),
            // Its state is unknown (it may still be searching): drop kills it, and the
            // next game it plays starts a fresh one.
            Err(e) => e.to_string(),
        };
        self.process = None;
        (Err(m), took)
    }
}

/// Starts the engine `command` once, as a match would (the `uci`/`isready` handshake and,
/// for rules other than the default, the `Rules` option), then lets it go: an engine that
/// cannot start or does not follow the protocol is refused before a match, instead of
/// losing every game by forfeit.
pub fn check_engine(command: &str, rules: RuleSet) -> Result<(), String> {
    let driver = EngineDriver::new(command, AlphaBetaLimit::Depth(1), rules);
    driver.start()?.quit();
    Ok(())
}

impl Drop for EngineDriver {
    fn drop(&mut self) {
        if let Some(p) = self.process.take() {
            p.quit();
        }
    }
}

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
    fn clock(&self) -> Option<(u64, u64)> {
        match self {
            Driver::Engine(e) => match e.first()?.limit {
                AlphaBetaLimit::Clock { base_ms, inc_ms } => Some((base_ms, inc_ms)),
                _ => None,
            },
            _ => None,
        }
    }

    fn new(
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
                        .map(|_| EngineDriver::new(command, *limit, cfg.rules))
                        .collect(),
                )
            }
        })
    }
}

/// A game in flight.
struct Live {
    index: usize,
    game: Game,
    player_side: Side,
    opening_plies: usize,
    /// Random players' generators: [player, opponent].
    rng: [Rng; 2],
    /// Time left on each player's clock, ms ([player, opponent]; `None`: no clock).
    clock: [Option<i64>; 2],
}

/// `pairs` random openings of `plies` plies, distinct positions where possible: pair k
/// draws from stream k of `seed` and draws again (up to 200 times) while its position
/// repeats an earlier pair's, since a repeated opening between deterministic players
/// repeats the pair's games and would make the interval look tighter than it is.
/// An opening that ends the game is always drawn again.
pub fn random_openings(rules: RuleSet, plies: u32, pairs: usize, seed: u64) -> Vec<Opening> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(pairs);
    for pair in 0..pairs {
        let mut rng = Rng::stream(seed, pair as u64);
        let mut chosen = None;
        for attempt in 0..1000 {
            let mut g = Game::new(rules, Position::start());
            while g.moves().len() < plies as usize && !g.is_over() {
                let a = rng.pick_bit(g.legal_moves());
                let _ = g.play(a);
            }
            if g.is_over() {
                continue;
            }
            let o = Opening {
                start: Position::start(),
                moves: g.moves().iter().map(|&(_, a)| a).collect(),
            };
            if seen.insert(g.position().key()) || attempt >= 200 {
                chosen = Some(o);
                break;
            }
        }
        out.push(chosen.unwrap_or(Opening {
            start: Position::start(),
            moves: Vec::new(),
        }));
    }
    out
}

/// Plays a match of `player` (A) against `opponent` (B); every figure of the report is
/// from A's point of view. `progress` is called after every finished game.
pub fn run_match_with(
    cfg: &MatchConfig,
    player: &mut Player,
    opponent: &mut Player,
    progress: &mut dyn FnMut(&MatchProgress),
) -> Result<MatchReport, MatchError> {
    let t0 = Instant::now();
    check_config(cfg)?;
    let games = cfg.games.div_ceil(2) * 2;
    let slots = slots_for(cfg, games);
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
            if let Err(late) = charge_clock(l, spent[s], clocks) {
                chosen = Err(late);
            }
            let Some(end) = play_move(cfg, &mut drivers, s, l, chosen) else {
                continue;
            };
            let l = slot.take().expect("the slot is live");
            tally.add(finish(l, end), cfg.sprt);
            progress(&tally.progress(games, t0));
            *slot = schedule.start(tally.stopped());
            place(&mut drivers, s, slot);
        }
    }
    Ok(tally.report(cfg, names, evaluations, t0))
}

/// Refuses a match that cannot be played as configured.
fn check_config(cfg: &MatchConfig) -> Result<(), MatchError> {
    if cfg.games == 0 {
        return Err(MatchError::Config("a match needs at least 1 game".into()));
    }
    if let Some(s) = &cfg.sprt {
        s.validate().map_err(MatchError::Config)?;
    }
    match &cfg.openings {
        Openings::List(l) if l.is_empty() => {
            Err(MatchError::Config("the opening list is empty".into()))
        }
        Openings::Random { plies } if *plies > MAX_OPENING_PLIES => {
            Err(MatchError::Config(format!(
                "openings of {plies} random plies: at most {MAX_OPENING_PLIES} (random games \
                 last about 97 plies; longer openings would mostly be decided by chance)"
            )))
        }
        _ => Ok(()),
    }
}

/// Games in flight at once for a match of `games` games (see `MatchConfig::concurrency`).
fn slots_for(cfg: &MatchConfig, games: usize) -> usize {
    if cfg.concurrency == 0 && cfg.sprt.is_some() {
        SPRT_CONCURRENCY.min(games)
    } else if cfg.concurrency == 0 {
        games.min(MAX_CONCURRENCY)
    } else {
        cfg.concurrency.min(games)
    }
}

/// The games of a match in the order they start, each from its pair's opening.
struct Schedule<'c> {
    cfg: &'c MatchConfig,
    /// Games planned (even).
    games: usize,
    /// One opening per pair.
    openings: Vec<Opening>,
    /// The index of the next game to start.
    next: usize,
    /// Each player's clock (base, increment, ms), if on one.
    clocks: [Option<(u64, u64)>; 2],
}

impl<'c> Schedule<'c> {
    fn new(cfg: &'c MatchConfig, games: usize, clocks: [Option<(u64, u64)>; 2]) -> Self {
        let openings = match &cfg.openings {
            Openings::List(list) => (0..games / 2)
                .map(|k| list[k % list.len()].clone())
                .collect(),
            Openings::Random { plies } => random_openings(cfg.rules, *plies, games / 2, cfg.seed),
        };
        Schedule {
            cfg,
            games,
            openings,
            next: 0,
            clocks,
        }
    }

    /// The next game, set up after its opening; `None` when none is left to start.
    /// Under an SPRT stop no new pair starts, but a pair half started is completed, so
    /// that every counted game stays paired (games start in index order: 2k, then 2k+1).
    fn start(&mut self, stop: bool) -> Option<Live> {
        if self.next >= self.games || (stop && self.next.is_multiple_of(2)) {
            return None;
        }
        let index = self.next;
        self.next += 1;
        let cfg = self.cfg;
        let opening = &self.openings[index / 2];
        let mut game = Game::new(cfg.rules, opening.start);
        for &a in &opening.moves {
            // Legal: the openings were played through `Game` when they were made.
            let _ = game.play(a as usize);
        }
        Some(Live {
            index,
            player_side: if index.is_multiple_of(2) {
                Side::South
            } else {
                Side::North
            },
            opening_plies: game.moves().len(),
            rng: [
                Rng::stream(cfg.seed ^ 0xA11C_E000, index as u64),
                Rng::stream(cfg.seed ^ 0xB0B0_0000, index as u64),
            ],
            game,
            clock: self.clocks.map(|c| c.map(|(base, _)| base as i64)),
        })
    }
}

/// Gives the MCTS players the game just started in slot `s`, if any.
fn place(drivers: &mut [Driver; 2], s: usize, l: &Option<Live>) {
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
fn step_searches(drivers: &mut [Driver; 2], live: &[Option<Live>]) -> u64 {
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
                    && mover_index(l) == p
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
type Answer = Result<usize, String>;

/// The alpha-beta and engine players' moves in every game where they are to move, all
/// at once over threads, by slot (`None` where another kind of player moves), and the
/// time each engine took.
fn ask_moves(
    drivers: &mut [Driver; 2],
    live: &[Option<Live>],
) -> (Vec<Option<Answer>>, Vec<Option<Duration>>) {
    let mut pending: Vec<Option<Answer>> = vec![None; live.len()];
    let mut spent = vec![None; live.len()];
    for (p, d) in drivers.iter_mut().enumerate() {
        let jobs: Vec<(usize, &Live)> = live
            .iter()
            .enumerate()
            .filter_map(|(s, l)| l.as_ref().filter(|l| mover_index(l) == p).map(|l| (s, l)))
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
                in_parallel(engines, &jobs, &|e: &mut EngineDriver, l: &Live| {
                    e.best_move(&l.game, side_clocks(l))
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

/// The clocks of game `l` by side (South's, North's, ms, never below 0), if the game is
/// on a clock; a player without one is shown the other's.
fn side_clocks(l: &Live) -> Option<[u64; 2]> {
    let [a, b] = l.clock;
    let (a, b) = match (a, b) {
        (None, None) => return None,
        (a, b) => (a.or(b).unwrap_or(0), b.or(a).unwrap_or(0)),
    };
    let (a, b) = (a.max(0) as u64, b.max(0) as u64);
    Some(if l.player_side == Side::South {
        [a, b]
    } else {
        [b, a]
    })
}

/// Takes the time the mover of `l` spent off its clock and adds its increment; a clock
/// that ran out is a loss on time.
fn charge_clock(
    l: &mut Live,
    spent: Option<Duration>,
    clocks: [Option<(u64, u64)>; 2],
) -> Result<(), String> {
    let p = mover_index(l);
    let (Some(left), Some((_, inc)), Some(spent)) = (l.clock[p].as_mut(), clocks[p], spent) else {
        return Ok(());
    };
    *left -= spent.as_millis() as i64;
    if *left < 0 {
        return Err(format!(
            "lost on time ({} ms over, move took {} ms)",
            -*left,
            spent.as_millis()
        ));
    }
    *left += inc as i64;
    Ok(())
}

/// The mover's move in the game `l` of slot `s`: drawn, from its finished search, or
/// the answer `ask_moves` left in `pending`.
fn chosen_move(
    drivers: &mut [Driver; 2],
    s: usize,
    l: &mut Live,
    pending: &mut Option<Answer>,
) -> Answer {
    let p = mover_index(l);
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
fn play_move(
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

/// The finished games and the figures kept as they finish.
struct Tally {
    /// Every finished game, by index.
    results: Vec<Option<GameRecord>>,
    wdl: Wdl,
    penta: Pentanomial,
    finished: usize,
    /// The SPRT's result when it first decided.
    decided: Option<Sprt>,
}

impl Tally {
    fn new(games: usize) -> Self {
        Tally {
            results: (0..games).map(|_| None).collect(),
            wdl: Wdl::default(),
            penta: Pentanomial::default(),
            finished: 0,
            decided: None,
        }
    }

    /// Whether the SPRT has decided: no new pair starts.
    fn stopped(&self) -> bool {
        self.decided.is_some()
    }

    /// Counts a finished game; once its pair is complete, the pair, and `sprt` if any.
    fn add(&mut self, record: GameRecord, sprt: Option<SprtConfig>) {
        self.wdl.add(record.score);
        let (idx, score) = (record.index, record.score);
        self.results[idx] = Some(record);
        if let Some(mate) = &self.results[idx ^ 1] {
            self.penta.add_pair(score, mate.score);
            if let Some(sc) = sprt {
                let t = super::stats::sprt(sc, &self.wdl, &self.penta);
                if t.decision != Decision::Continue && self.decided.is_none() {
                    self.decided = Some(t);
                }
            }
        }
        self.finished += 1;
    }

    fn progress(&self, planned: usize, t0: Instant) -> MatchProgress {
        MatchProgress {
            finished: self.finished,
            planned,
            wdl: self.wdl,
            seconds: t0.elapsed().as_secs_f64(),
        }
    }

    fn report(
        self,
        cfg: &MatchConfig,
        [player, opponent]: [String; 2],
        evaluations: u64,
        t0: Instant,
    ) -> MatchReport {
        let games: Vec<GameRecord> = self.results.into_iter().flatten().collect();
        let stopped_early = games.len() < cfg.games.div_ceil(2) * 2;
        let mut summary = Summary::new(&self.wdl, &self.penta, cfg.sprt);
        // The decision is the one taken when a bound was crossed; the games in flight then,
        // finished afterwards, count in every other figure.
        if self.decided.is_some() {
            summary.sprt = self.decided;
        }
        MatchReport {
            player,
            opponent,
            summary,
            games,
            stopped_early,
            evaluations,
            seconds: t0.elapsed().as_secs_f64(),
        }
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
                for (s, m) in in_parallel(engines, &jobs, &|e: &mut EngineDriver, g: &Game| {
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

/// Plays a match without progress reports; see [`run_match_with`].
pub fn run_match(
    cfg: &MatchConfig,
    player: &mut Player,
    opponent: &mut Player,
) -> Result<MatchReport, MatchError> {
    run_match_with(cfg, player, opponent, &mut |_| {})
}

/// 0 if the player (A) is to move in `l`, 1 if the opponent is.
fn mover_index(l: &Live) -> usize {
    usize::from(l.game.position().side != l.player_side)
}

fn finish(l: Live, end: GameEnd) -> GameRecord {
    let score_for = |side: Side| -> f64 {
        match &end {
            GameEnd::Rules { outcome } => (outcome.score_for(side) as f64 + 1.0) / 2.0,
            GameEnd::Forfeit { loser, .. } => {
                if *loser == side {
                    0.0
                } else {
                    1.0
                }
            }
            GameEnd::PlyLimit => {
                let p = l.game.position();
                let own = p.stores[side.index()];
                let opp = p.stores[side.opponent().index()];
                match own.cmp(&opp) {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Less => 0.0,
                    std::cmp::Ordering::Equal => 0.5,
                }
            }
        }
    };
    let score = score_for(l.player_side);
    GameRecord {
        index: l.index,
        player_side: l.player_side,
        game: l.game,
        opening_plies: l.opening_plies,
        end,
        score,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::player::PlayerSpec;

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
    fn random_openings_are_distinct_while_they_can_be() {
        let r = RuleSet::default();
        let key = |o: &Opening| {
            let mut g = Game::new(r, o.start);
            for &a in &o.moves {
                g.play(a as usize).unwrap();
            }
            g.position().key()
        };
        let o = random_openings(r, 4, 100, 5);
        assert!(o.iter().all(|x| x.moves.len() == 4));
        let keys: std::collections::HashSet<_> = o.iter().map(key).collect();
        assert_eq!(keys.len(), 100);
        assert_eq!(o, random_openings(r, 4, 100, 5), "same seed, same openings");
        // One ply has only six openings: the seventh pair must repeat one.
        let o = random_openings(r, 1, 8, 5);
        let keys: std::collections::HashSet<_> = o.iter().map(key).collect();
        assert_eq!(keys.len(), 6);
    }

    #[test]
    fn openings_from_text() {
        let r = RuleSet::default();
        let o = parse_openings(
            "# comment\nFfBe\n\n4-4-4-4-4-4-4-4-4-4-4-4-0-0-S\n4-4-4-4-4-4-4-4-4-4-4-4-0-0-S;Cc\n",
            r,
        )
        .unwrap();
        assert_eq!(o.len(), 3);
        assert_eq!(o[0].moves, vec![5, 5, 1, 4]);
        assert!(o[1].moves.is_empty());
        assert_eq!(o[2].moves, vec![2, 2]);
        let e = parse_openings("Ff\nFF\n", r).unwrap_err();
        assert!(e.starts_with("line 2:"), "{e}");
        let e = parse_openings("1-2-3\n", r).unwrap_err();
        assert!(e.starts_with("line 1:"), "{e}");
        assert!(parse_openings("# nothing\n", r).is_err());
        // A list of openings is used in order, and again from the first.
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
