//! The match arguments that `oware eval`, `oware ladder` and `oware rate` share.

use anyhow::Result;

use oware_app::arena::MatchConfig;
use oware_core::game::RuleSet;

/// `--rules` and `--threads`: the rules the command's matches play, and the threads of
/// their alpha-beta players.
#[derive(clap::Args, Debug)]
pub(crate) struct MatchArgs {
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Threads for alpha-beta players' moves (0 = one per core); results do not depend on it.
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

impl MatchArgs {
    /// The rule set `--rules` names.
    pub(crate) fn rules(&self) -> Result<RuleSet> {
        super::parse_rules(&self.rules)
    }

    /// The default match under `rules`, seeded with `seed`, on `--threads`.
    pub(crate) fn config(&self, rules: RuleSet, seed: u64) -> MatchConfig {
        MatchConfig {
            rules,
            seed,
            threads: self.threads,
            ..MatchConfig::default()
        }
    }
}
