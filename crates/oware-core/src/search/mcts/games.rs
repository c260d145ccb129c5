//! `SearchedGames`: whole games kept beside a [`BatchSearch`] of them, for the callers
//! that need each game itself (its start, moves and outcome): matches, reviews, puzzles.
//! Self-play keeps its games in the batched environment instead, and hands the same
//! search its lanes.

use super::batch::BatchSearch;
use super::root::RootStats;
use super::tree::SearchTree;
use super::{MctsConfig, Pick};
use crate::game::{Game, MoveError, Position, RuleSet};
use crate::rng::Rng;
use crate::search::Evaluator;
use crate::tablebase::Tablebase;
use std::sync::Arc;

/// `slots` games, game `i` searched by slot `i` of one [`BatchSearch`] and drawing its
/// randomness (root noise, move sampling) from its own stream.
pub struct SearchedGames {
    search: BatchSearch,
    games: Vec<Game>,
    rngs: Vec<Rng>,
}

impl SearchedGames {
    /// `slots` games at the start position under `rules`, searched under `cfg`; game
    /// `i` draws its randomness from stream `i` of `seed`.
    pub fn new(cfg: MctsConfig, rules: RuleSet, slots: usize, seed: u64) -> SearchedGames {
        SearchedGames {
            search: BatchSearch::new(cfg, rules, slots),
            games: vec![Game::new(rules, Position::start()); slots],
            rngs: (0..slots).map(|i| Rng::stream(seed, i as u64)).collect(),
        }
    }

    /// The search (its counters: `simulations`, `evaluated`).
    pub fn search(&self) -> &BatchSearch {
        &self.search
    }

    /// See [`BatchSearch::set_tablebase`].
    pub fn set_tablebase(&mut self, tb: Option<Arc<Tablebase>>) {
        self.search.set_tablebase(tb);
    }

    /// The search settings.
    pub fn config(&self) -> &MctsConfig {
        self.search.config()
    }

    /// The rules.
    pub fn rules(&self) -> RuleSet {
        self.search.rules()
    }

    /// Number of games.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// True with no games.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// Game `i`.
    pub fn game(&self, i: usize) -> &Game {
        &self.games[i]
    }

    /// Puts `game` in slot `i` with a fresh tree.
    pub fn set_game(&mut self, i: usize, game: Game) {
        self.search.set_root(i, game.position());
        self.games[i] = game;
    }

    /// Plays `action` in game `i` and moves its tree along.
    pub fn play(&mut self, i: usize, action: usize) -> Result<(), MoveError> {
        self.games[i].play(action)?;
        self.search.advance(i, action, &self.games[..]);
        Ok(())
    }

    /// See [`BatchSearch::begin`]: a search of game `i`'s current position.
    pub fn begin(&mut self, i: usize, simulations: u32, noise: bool) -> bool {
        let legal = self.games[i].legal_moves();
        self.search
            .begin(i, legal, simulations, noise, &mut self.rngs[i])
    }

    /// One simulation in every searching slot (see [`BatchSearch::step`]).
    pub fn step(&mut self, evaluator: &mut dyn Evaluator) -> usize {
        self.search.step(&self.games[..], evaluator)
    }

    /// Steps until no slot is searching.
    pub fn run(&mut self, evaluator: &mut dyn Evaluator) {
        self.search.run(&self.games[..], evaluator);
    }

    /// Game `i`'s random stream.
    pub fn rng(&mut self, i: usize) -> &mut Rng {
        &mut self.rngs[i]
    }

    /// Whether slot `i`'s current (or last) search was begun with root noise.
    pub fn root_noise(&self, i: usize) -> bool {
        self.search.root_noise(i)
    }

    /// Whether slot `i` is still searching.
    pub fn is_searching(&self, i: usize) -> bool {
        self.search.is_searching(i)
    }

    /// Slot `i`'s tree.
    pub fn tree(&self, i: usize) -> &SearchTree {
        self.search.tree(i)
    }

    /// The result of slot `i`'s last search.
    pub fn result(&self, i: usize) -> RootStats {
        self.search.result(i)
    }

    /// A move for game `i` from its last search: with `temperature` > 0 (PUCT) a sample
    /// ∝ N^(1/T) over the root's visits from the game's stream, else the search's best
    /// (see [`BatchSearch::choose`]).
    pub fn choose(&mut self, i: usize, temperature: f32) -> usize {
        let r = self.search.result(i);
        let pick = Pick {
            temperature,
            noisy: true,
        };
        self.search.choose(&r, pick, &mut self.rngs[i])
    }

    /// See [`BatchSearch::principal_variation`].
    pub fn principal_variation(&self, i: usize, max_len: usize) -> Vec<usize> {
        self.search.principal_variation(i, max_len)
    }
}
