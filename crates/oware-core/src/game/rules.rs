//! The rule set: one small value holding every rule combination the engine supports.
//!
//! Passed by value to everything that plays the game; nothing reads a global.
//! The presets are the ones `docs/rules.md` describes.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a move that would capture every seed of the opponent's row does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GrandSlam {
    /// Legal, but captures nothing: the seeds stay where they were sown (`abapa`).
    CapturesNothing,
    /// Illegal unless every legal move is one; then the game ends and each player
    /// takes his own row (`awari`).
    Illegal,
    /// Captures all; the capturer also takes every seed left and the game ends
    /// (`grand-slam-captures`).
    CapturesAllAndEnds,
    /// Captures all; the opponent, left empty, cannot move, so the capturer moves
    /// again (`ouril`).
    CapturesAllMoveAgain,
    /// Captures all, nothing special happens afterwards (`traditional`).
    CapturesAll,
}

/// Who gets the seeds left on the board when the game ends by repetition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Leftover {
    /// Each player adds the seeds of his own row to his store.
    OwnRow,
    /// The seeds left are split evenly (half seeds possible).
    SplitEvenly,
}

/// The named presets (`docs/rules.md`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Preset {
    /// International competition rules (the default).
    Abapa,
    /// Computer Olympiad rules.
    Awari,
    /// A grand slam captures everything and ends the game.
    GrandSlamCaptures,
    /// Cape Verde rules.
    Ouril,
    /// An older description: no feeding obligation, no 25 rule.
    Traditional,
}

impl Preset {
    /// Every preset, in the order of `docs/rules.md`.
    pub const ALL: [Preset; 5] = [
        Preset::Abapa,
        Preset::Awari,
        Preset::GrandSlamCaptures,
        Preset::Ouril,
        Preset::Traditional,
    ];

    /// The preset's name as written in configs and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Abapa => "abapa",
            Preset::Awari => "awari",
            Preset::GrandSlamCaptures => "grand-slam-captures",
            Preset::Ouril => "ouril",
            Preset::Traditional => "traditional",
        }
    }
}

/// One value holding every rule switch. `Copy`, 8 bytes: pass it by value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    /// The preset these switches came from (its name is what gets recorded).
    pub preset: Preset,
    /// If the opponent's row is empty the mover must play a move that reaches it.
    pub must_feed: bool,
    /// What a capture of the whole opponent row does.
    pub grand_slam: GrandSlam,
    /// Who takes the seeds left when a position repeats.
    pub repetition: Leftover,
    /// A store reaching this many seeds ends the game (25 with 48 seeds); `None`: play on
    /// until the mover has no seeds (`traditional`).
    pub win_threshold: Option<u8>,
    /// A pit holding one seed may not be played while the mover has a pit with more (`ouril`).
    pub single_seed_restriction: bool,
}

/// Seeds in each pit at the start.
pub const SEEDS_PER_PIT: u8 = 4;
/// Seeds in the whole game.
pub const TOTAL_SEEDS: u8 = 12 * SEEDS_PER_PIT;

impl RuleSet {
    /// The switches of a preset.
    pub const fn from_preset(preset: Preset) -> RuleSet {
        let win = Some(TOTAL_SEEDS / 2 + 1);
        match preset {
            Preset::Abapa => RuleSet {
                preset,
                must_feed: true,
                grand_slam: GrandSlam::CapturesNothing,
                repetition: Leftover::OwnRow,
                win_threshold: win,
                single_seed_restriction: false,
            },
            Preset::Awari => RuleSet {
                preset,
                must_feed: true,
                grand_slam: GrandSlam::Illegal,
                repetition: Leftover::SplitEvenly,
                win_threshold: win,
                single_seed_restriction: false,
            },
            Preset::GrandSlamCaptures => RuleSet {
                preset,
                must_feed: true,
                grand_slam: GrandSlam::CapturesAllAndEnds,
                repetition: Leftover::OwnRow,
                win_threshold: win,
                single_seed_restriction: false,
            },
            Preset::Ouril => RuleSet {
                preset,
                must_feed: true,
                grand_slam: GrandSlam::CapturesAllMoveAgain,
                repetition: Leftover::OwnRow,
                win_threshold: win,
                single_seed_restriction: true,
            },
            Preset::Traditional => RuleSet {
                preset,
                must_feed: false,
                grand_slam: GrandSlam::CapturesAll,
                repetition: Leftover::SplitEvenly,
                win_threshold: None,
                single_seed_restriction: false,
            },
        }
    }

    /// The international competition rules.
    pub const fn abapa() -> RuleSet {
        RuleSet::from_preset(Preset::Abapa)
    }

    /// The name recorded in configs, manifests and JSON output.
    pub fn name(&self) -> &'static str {
        self.preset.name()
    }

    /// Every preset's rule set.
    pub fn all() -> [RuleSet; 5] {
        Preset::ALL.map(RuleSet::from_preset)
    }
}

impl Default for RuleSet {
    fn default() -> Self {
        RuleSet::abapa()
    }
}

impl fmt::Display for RuleSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown rule-set name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown rule set '{0}': expected one of abapa, awari, grand-slam-captures, ouril, traditional"
)]
pub struct UnknownRuleSet(pub String);

impl FromStr for RuleSet {
    type Err = UnknownRuleSet;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(s.trim()))
            .map(RuleSet::from_preset)
            .ok_or_else(|| UnknownRuleSet(s.to_string()))
    }
}

impl Serialize for RuleSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for RuleSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in RuleSet::all() {
            assert_eq!(r.name().parse::<RuleSet>().unwrap(), r);
        }
        // Names are case-insensitive: `Awari` is `awari`.
        assert_eq!("Awari".parse::<RuleSet>().unwrap().preset, Preset::Awari);
        assert_eq!("ABAPA".parse::<RuleSet>().unwrap().preset, Preset::Abapa);
        let err = "abapaa".parse::<RuleSet>().unwrap_err();
        assert!(err.to_string().contains("abapaa"));
    }

    #[test]
    fn abapa_is_default_and_ends_at_25() {
        assert_eq!(RuleSet::default().preset, Preset::Abapa);
        assert_eq!(RuleSet::abapa().win_threshold, Some(25));
        assert_eq!(
            RuleSet::from_preset(Preset::Traditional).win_threshold,
            None
        );
    }
}
