//! [`Level`]: the four playing strengths of `oware play` and `oware serve` (MCTS with
//! PUCT; noise is Dirichlet noise on the root priors, temperature T samples the move
//! ∝ visits^(1/T); T = 0 plays the most visited move):
//!
//! | level | simulations | root noise | temperature | policy temperature |
//! |---|---|---|---|---|
//! | novice | 8 | yes | 1.0 | 1 |
//! | amateur | 64 | yes | 0.5 | 1 |
//! | strong | 400 | no | 0 | the network's own |
//! | master | 1600 | no | 0 | the network's own |
//!
//! The two levels that sample their move name their policy temperature: a network
//! trained with flattened priors (`search.policy_temperature` 2) spreads 8 or 64
//! simulations so evenly that sampling by visits plays almost at random (`novice` fell
//! from about alpha-beta depth 6 to below depth 2 with such a network).

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

    /// The policy softmax temperature the level searches with, where it names one
    /// (`None`: the one the network was trained with, from its manifest).
    pub fn policy_temperature(self) -> Option<f32> {
        match self {
            Level::Novice | Level::Amateur => Some(1.0),
            Level::Strong | Level::Master => None,
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
