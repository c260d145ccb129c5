//! A match's settings ([`MatchConfig`]), the checks that refuse a match that cannot be
//! played as configured, and how many games are in flight at once.

use super::openings::{MAX_OPENING_PLIES, Openings};
use super::stats::SprtConfig;
use oware_core::game::RuleSet;
use oware_core::search::mcts::MctsConfig;

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

/// A match that could not start.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// A setting is wrong.
    #[error("{0}")]
    Config(String),
}

impl MatchConfig {
    /// Refuses a match that cannot be played as configured.
    pub(super) fn check(&self) -> Result<(), MatchError> {
        if self.games == 0 {
            return Err(MatchError::Config("a match needs at least 1 game".into()));
        }
        if let Some(s) = &self.sprt {
            s.validate().map_err(MatchError::Config)?;
        }
        match &self.openings {
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

    /// Games in flight at once for a match of `games` games (see `concurrency`).
    pub(super) fn slots(&self, games: usize) -> usize {
        if self.concurrency == 0 && self.sprt.is_some() {
            SPRT_CONCURRENCY.min(games)
        } else if self.concurrency == 0 {
            games.min(MAX_CONCURRENCY)
        } else {
            self.concurrency.min(games)
        }
    }
}
