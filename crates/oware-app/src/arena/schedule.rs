//! The games of a match in the order they start: game 2k plays pair k's opening with
//! the player (A) as South, game 2k+1 the same opening with colours swapped; each game
//! in flight ([`Live`]) until it becomes a [`GameRecord`].

use super::clock::{GameClocks, TimeControl};
use super::match_config::MatchConfig;
use super::openings::{Opening, Openings, random_openings};
use super::record::{GameEnd, GameRecord};
use oware_core::game::{Game, Side};
use oware_core::rng::Rng;

/// A game in flight.
pub(super) struct Live {
    index: usize,
    pub(super) game: Game,
    pub(super) player_side: Side,
    opening_plies: usize,
    /// Random players' generators: [player, opponent].
    pub(super) rng: [Rng; 2],
    /// The players' clocks, if either plays on one.
    pub(super) clocks: GameClocks,
}

impl Live {
    /// 0 if the player (A) is to move, 1 if the opponent is.
    pub(super) fn mover(&self) -> usize {
        usize::from(self.game.position().side != self.player_side)
    }

    /// The record of the game, ended by `end`, scored from the player's (A's) view.
    pub(super) fn finish(self, end: GameEnd) -> GameRecord {
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
                    let p = self.game.position();
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
        let score = score_for(self.player_side);
        GameRecord {
            index: self.index,
            player_side: self.player_side,
            game: self.game,
            opening_plies: self.opening_plies,
            end,
            score,
        }
    }
}

/// The games of a match in the order they start, each from its pair's opening.
pub(super) struct Schedule<'c> {
    cfg: &'c MatchConfig,
    /// Games planned (even).
    games: usize,
    /// One opening per pair.
    openings: Vec<Opening>,
    /// The index of the next game to start.
    next: usize,
    /// Each player's time control, if on one.
    clocks: [Option<TimeControl>; 2],
}

impl<'c> Schedule<'c> {
    /// The `games` games (even) of a match under `cfg`, the players on `clocks`.
    pub(super) fn new(
        cfg: &'c MatchConfig,
        games: usize,
        clocks: [Option<TimeControl>; 2],
    ) -> Self {
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
    pub(super) fn start(&mut self, stop: bool) -> Option<Live> {
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
            clocks: GameClocks::start(self.clocks),
        })
    }
}
