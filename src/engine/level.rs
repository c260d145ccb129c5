//! [`Level`]: the four playing strengths of `oware play` and `oware serve` (MCTS with
//! PUCT; noise is Dirichlet noise on the root priors, temperature T samples the move
//! ∝ visits^(1/T); T = 0 plays the most visited move):
//!
//! | level | simulations | root noise | temperature |
//! |---|---|---|---|
//! | novice | 8 | yes | 1.0 |
//! | amateur | 64 | yes | 0.5 |
//! | strong | 400 | no | 0 |
//! | master | 1600 | no | 0 |

/// A playing strength: search budget and randomness.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Level {
    /// 8 simulations, root noise, temperature 1.
    Novice,
    /// 64 simulations, root noise, temperature 0.5.
    Amateur,
    /// 400 simulations, no noise, best move.
    Strong,
    /// 1600 simulations, no noise, best move.
    Master,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Novice, Level::Amateur, Level::Strong, Level::Master];

    /// (simulations, root noise, temperature) of the level.
    pub fn settings(self) -> (u32, bool, f32) {
        match self {
            Level::Novice => (8, true, 1.0),
            Level::Amateur => (64, true, 0.5),
            Level::Strong => (400, false, 0.0),
            Level::Master => (1600, false, 0.0),
        }
    }

    /// The level's name (`novice`, …), as the command line and the HTTP API write it.
    pub fn name(self) -> &'static str {
        match self {
            Level::Novice => "novice",
            Level::Amateur => "amateur",
            Level::Strong => "strong",
            Level::Master => "master",
        }
    }

    /// The level named `name` (case-insensitive), or `None`.
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for l in Level::ALL {
            assert_eq!(Level::from_name(l.name()), Some(l));
        }
        assert_eq!(Level::from_name("STRONG"), Some(Level::Strong));
        assert_eq!(Level::from_name("grandmaster"), None);
    }
}
