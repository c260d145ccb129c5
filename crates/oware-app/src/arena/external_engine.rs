//! An external engine as a match player: one process spoken to over the engine text
//! protocol, started with the handshake, restarted after any failure (the game it failed
//! in is lost), given up after repeated failed starts.

use std::time::{Duration, Instant};

use super::player::AlphaBetaLimit;
use crate::engine::client::EngineProcess;
use oware_core::game::{Game, RuleSet, Side};

/// Time an engine gets to start and answer the `uci`/`isready` handshake.
const ENGINE_HANDSHAKE: Duration = Duration::from_secs(10);
/// After this many failed starts in a row, an engine is given up for the match: its
/// remaining games are forfeited at once instead of waiting for it again and again.
const ENGINE_MAX_START_FAILURES: u32 = 3;

/// One external engine process, asked for its share of the games' moves in turn,
/// restarted after any failure (the game it failed in is lost).
pub(super) struct ExternalEngine {
    command: String,
    /// How long it may think: a depth, a time per move, or a clock.
    pub(super) limit: AlphaBetaLimit,
    go_args: String,
    move_timeout: Duration,
    rules: RuleSet,
    process: Option<EngineProcess>,
    start_failures: u32,
    given_up: Option<String>,
}

impl ExternalEngine {
    /// The engine `command`, to think within `limit` under `rules`; its process starts
    /// when it is first asked for a move.
    pub(super) fn new(command: &str, limit: AlphaBetaLimit, rules: RuleSet) -> ExternalEngine {
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
        ExternalEngine {
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

    /// A new process, past the handshake and set to the match's rules.
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
    pub(super) fn best_move(
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
    let engine = ExternalEngine::new(command, AlphaBetaLimit::Depth(1), rules);
    engine.start()?.quit();
    Ok(())
}

impl Drop for ExternalEngine {
    fn drop(&mut self) {
        if let Some(p) = self.process.take() {
            p.quit();
        }
    }
}
