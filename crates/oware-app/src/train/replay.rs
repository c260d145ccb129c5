//! The replay window: the most recent samples, whole chunks at a time, in a window that
//! grows with the total data seen (KataGo: window ∝ total^0.65-ish), so early training
//! is not drowned in stale games and late training does not overfit a small window.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::dataio::Sample;
use oware_core::rng::Rng;

/// A chunk of samples in the window, named by its file.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// The chunk file's name (under `RUN/samples/`).
    pub name: String,
    /// Its samples.
    pub samples: Vec<Sample>,
}

/// Window size rule: `min(max, max(min, min · (total/min)^exponent))` samples once more
/// than `min` samples were seen; all samples before that.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct WindowRule {
    /// Smallest window, samples.
    pub min: usize,
    /// Largest window, samples.
    pub max: usize,
    /// Growth exponent (KataGo uses about 0.65).
    pub exponent: f64,
}

impl Default for WindowRule {
    /// 50 000 to 500 000 samples, growing with exponent 0.65.
    fn default() -> Self {
        WindowRule {
            min: 50_000,
            max: 500_000,
            exponent: 0.65,
        }
    }
}

impl WindowRule {
    /// The window size after `total` samples.
    pub fn size(&self, total: u64) -> usize {
        if total as usize <= self.min {
            return self.min;
        }
        let grown = self.min as f64 * (total as f64 / self.min as f64).powf(self.exponent);
        (grown as usize).clamp(self.min, self.max)
    }
}

/// The samples training draws from.
#[derive(Clone, Debug)]
pub struct ReplayWindow {
    chunks: VecDeque<Chunk>,
    len: usize,
    /// Samples ever added (drives the window size).
    pub total_seen: u64,
}

impl ReplayWindow {
    /// An empty window.
    pub fn new() -> ReplayWindow {
        ReplayWindow {
            chunks: VecDeque::new(),
            len: 0,
            total_seen: 0,
        }
    }

    /// Samples in the window.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chunk names in the window, oldest first.
    pub fn chunk_names(&self) -> Vec<String> {
        self.chunks.iter().map(|c| c.name.clone()).collect()
    }

    /// Adds a chunk (counting its samples as new data) and drops the oldest chunks that
    /// no longer fit the window (the newest chunk always stays).
    pub fn add(&mut self, chunk: Chunk, rule: &WindowRule) {
        self.total_seen += chunk.samples.len() as u64;
        self.push_existing(chunk);
        self.trim(rule.size(self.total_seen));
    }

    /// Adds a chunk without counting it as new (when restoring a saved window).
    pub fn push_existing(&mut self, chunk: Chunk) {
        self.len += chunk.samples.len();
        self.chunks.push_back(chunk);
    }

    /// Drops the oldest chunks while the rest still hold at least `size` samples.
    pub fn trim(&mut self, size: usize) {
        while self.chunks.len() > 1 {
            let oldest = self.chunks[0].samples.len();
            if self.len - oldest < size {
                break;
            }
            self.len -= oldest;
            self.chunks.pop_front();
        }
    }

    /// Fills `out` with `n` samples drawn uniformly (with replacement) from the window.
    pub fn draw(&self, rng: &mut Rng, n: usize, out: &mut Vec<Sample>) {
        out.clear();
        if self.len == 0 {
            return;
        }
        for _ in 0..n {
            let mut k = rng.below(self.len as u32) as usize;
            for c in &self.chunks {
                if k < c.samples.len() {
                    out.push(c.samples[k]);
                    break;
                }
                k -= c.samples.len();
            }
        }
    }
}

impl Default for ReplayWindow {
    fn default() -> Self {
        ReplayWindow::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::game::Position;

    fn chunk(name: &str, n: usize, tag: f32) -> Chunk {
        let s = Sample {
            position: Position::start(),
            legal: 63,
            policy: [1.0 / 6.0; 6],
            outcome: 0,
            store_diff: tag,
            search_value: 0.0,
        };
        Chunk {
            name: name.into(),
            samples: vec![s; n],
        }
    }

    #[test]
    fn window_grows_sublinearly_and_is_capped() {
        let r = WindowRule {
            min: 1000,
            max: 5000,
            exponent: 0.5,
        };
        assert_eq!(r.size(10), 1000);
        // 1000 · (4000/1000)^0.5 = 2000.
        assert_eq!(r.size(4000), 2000);
        assert_eq!(r.size(1_000_000), 5000);
    }

    #[test]
    fn oldest_chunks_drop_out() {
        let r = WindowRule {
            min: 100,
            max: 150,
            exponent: 1.0,
        };
        let mut w = ReplayWindow::new();
        w.add(chunk("a", 60, 1.0), &r);
        w.add(chunk("b", 60, 2.0), &r);
        assert_eq!(w.chunk_names(), ["a", "b"]);
        w.add(chunk("c", 60, 3.0), &r);
        // Window 150 after 180 samples: dropping "a" leaves 120 < 150, so it stays.
        assert_eq!(w.chunk_names(), ["a", "b", "c"]);
        w.add(chunk("d", 60, 4.0), &r);
        assert_eq!(w.chunk_names(), ["b", "c", "d"]);
        assert_eq!(w.len(), 180);
        let mut out = Vec::new();
        w.draw(&mut Rng::new(1), 300, &mut out);
        assert_eq!(out.len(), 300);
        assert!(out.iter().all(|s| s.store_diff >= 2.0));
        for tag in [2.0, 3.0, 4.0] {
            assert!(out.iter().any(|s| s.store_diff == tag));
        }
    }
}
