//! The figures of a match kept as its games finish: W/D/L, the pentanomial of complete
//! pairs, and the SPRT's decision when it first decides.

use std::time::Instant;

use super::match_config::MatchConfig;
use super::record::{GameRecord, MatchProgress, MatchReport};
use super::stats::{Decision, Pentanomial, Sprt, SprtConfig, Summary, Wdl};

/// The finished games and the figures kept as they finish.
pub(super) struct Tally {
    /// Every finished game, by index.
    results: Vec<Option<GameRecord>>,
    wdl: Wdl,
    penta: Pentanomial,
    finished: usize,
    /// The SPRT's result when it first decided.
    decided: Option<Sprt>,
}

impl Tally {
    pub(super) fn new(games: usize) -> Self {
        Tally {
            results: (0..games).map(|_| None).collect(),
            wdl: Wdl::default(),
            penta: Pentanomial::default(),
            finished: 0,
            decided: None,
        }
    }

    /// Whether the SPRT has decided: no new pair starts.
    pub(super) fn stopped(&self) -> bool {
        self.decided.is_some()
    }

    /// Counts a finished game; once its pair is complete, the pair, and `sprt` if any.
    pub(super) fn add(&mut self, record: GameRecord, sprt: Option<SprtConfig>) {
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

    pub(super) fn progress(&self, planned: usize, t0: Instant) -> MatchProgress {
        MatchProgress {
            finished: self.finished,
            planned,
            wdl: self.wdl,
            seconds: t0.elapsed().as_secs_f64(),
        }
    }

    pub(super) fn report(
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
