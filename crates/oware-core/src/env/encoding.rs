//! The network's input features: how a position becomes a flat `f32` vector.
//!
//! Defined once, here; the batched environment writes them, the network reads them,
//! and the export manifest describes them. Every encoding is from the mover's point of
//! view: "own" pits are the mover's `A`..`F` (or `a`..`f`) in sowing order, then the
//! opponent's six pits in sowing order, then the mover's store, then the opponent's.
//!
//! | name | version | dim | layout |
//! |---|---|---|---|
//! | `counts` | 1 | 14 | `[0..12)` own pits then opponent pits, seeds/48; `[12]` own store/48; `[13]` opponent store/48 |
//! | `onehot` | 1 | 354 | the 14 `counts` features, then for each of the 12 pits (same order) 24 one-hot bits for 0..=22 seeds and "23 or more", then for each store (own, opponent) 26 one-hot bits for 0..=24 and "25 or more" |
//!
//! Top CodinGame Oware bots report that binary inputs learn far faster than 14 floats;
//! `onehot` keeps the scaled counts too, so pits above the cap stay distinguishable.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::game::{Position, TOTAL_SEEDS};

/// One-hot bins per pit (0..=22 exact, the last bin "23 or more").
pub const PIT_BINS: usize = 24;
/// One-hot bins per store (0..=24 exact, the last bin "25 or more").
pub const STORE_BINS: usize = 26;

/// A named, versioned input encoding.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Encoding {
    /// 14 seed counts scaled to [0, 1].
    Counts,
    /// The 14 scaled counts plus one-hot bits per pit and store (354 features).
    #[default]
    Onehot,
}

impl Encoding {
    /// Every encoding.
    pub const ALL: [Encoding; 2] = [Encoding::Counts, Encoding::Onehot];

    /// The name recorded in configs and manifests.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Counts => "counts",
            Encoding::Onehot => "onehot",
        }
    }

    /// The layout's version; bumped whenever the layout changes.
    pub fn version(self) -> u32 {
        1
    }

    /// Number of features per position.
    pub const fn dim(self) -> usize {
        match self {
            Encoding::Counts => 14,
            Encoding::Onehot => 14 + 12 * PIT_BINS + 2 * STORE_BINS,
        }
    }

    /// Writes the features of `pos` into `out` (exactly `dim()` floats, overwritten).
    #[inline]
    pub fn encode(self, pos: &Position, out: &mut [f32]) {
        debug_assert_eq!(out.len(), self.dim());
        let (pits, stores) = pos.relative();
        let total = TOTAL_SEEDS as f32;
        for (o, &p) in out.iter_mut().zip(pits.iter().chain(&stores)) {
            *o = p as f32 / total;
        }
        if self == Encoding::Onehot {
            let rest = &mut out[14..];
            rest.fill(0.0);
            for (i, &p) in pits.iter().enumerate() {
                rest[i * PIT_BINS + (p as usize).min(PIT_BINS - 1)] = 1.0;
            }
            let base = 12 * PIT_BINS;
            for (i, &s) in stores.iter().enumerate() {
                rest[base + i * STORE_BINS + (s as usize).min(STORE_BINS - 1)] = 1.0;
            }
        }
    }

    /// Encodes a batch into `out` (`positions.len() * dim()` floats, row-major).
    pub fn encode_batch(self, positions: &[Position], out: &mut [f32]) {
        let d = self.dim();
        debug_assert_eq!(out.len(), positions.len() * d);
        for (p, row) in positions.iter().zip(out.chunks_exact_mut(d)) {
            self.encode(p, row);
        }
    }

    /// A machine-readable description of the layout, for export manifests.
    pub fn layout(self) -> serde_json::Value {
        let counts = serde_json::json!({
            "offset": 0, "length": 14,
            "meaning": "own pits (mover's A..F in sowing order), opponent pits, own store, opponent store; each seeds/48"
        });
        match self {
            Encoding::Counts => serde_json::json!({"blocks": [counts]}),
            Encoding::Onehot => serde_json::json!({"blocks": [
                counts,
                {"offset": 14, "length": 12 * PIT_BINS, "per_item": PIT_BINS,
                 "meaning": "for each of the 12 pits in the same order: one-hot of min(seeds, 23)"},
                {"offset": 14 + 12 * PIT_BINS, "length": 2 * STORE_BINS, "per_item": STORE_BINS,
                 "meaning": "own store then opponent store: one-hot of min(seeds, 25)"},
            ]}),
        }
    }
}

impl fmt::Display for Encoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Encoding {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| format!("unknown encoding '{s}': expected counts or onehot"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_a_north_position_are_from_norths_view() {
        // North to move: North's pits a..f (6..11) come first, then South's.
        let p: Position = "1-0-9-0-0-1-2-0-0-0-0-0-18-17-N".parse().unwrap();
        let mut f = [0.0f32; 14];
        Encoding::Counts.encode(&p, &mut f);
        let expect =
            [2., 0., 0., 0., 0., 0., 1., 0., 9., 0., 0., 1., 17., 18.].map(|x: f32| x / 48.0);
        assert_eq!(f, expect);
    }

    #[test]
    fn onehot_sets_one_bit_per_item() {
        let p: Position = "30-0-0-0-0-1-1-0-0-0-0-0-16-0-S".parse().unwrap();
        let e = Encoding::Onehot;
        let mut f = vec![7.0f32; e.dim()];
        e.encode(&p, &mut f);
        assert_eq!(e.dim(), 354);
        let bits = &f[14..];
        assert_eq!(bits.iter().filter(|&&x| x == 1.0).count(), 14);
        assert_eq!(bits.iter().filter(|&&x| x == 0.0).count(), 340 - 14);
        // Pit A holds 30: capped into the last bin; pit F holds 1; opponent's pit a holds 1.
        assert_eq!(bits[PIT_BINS - 1], 1.0);
        assert_eq!(bits[5 * PIT_BINS + 1], 1.0);
        assert_eq!(bits[6 * PIT_BINS + 1], 1.0);
        assert_eq!(bits[7 * PIT_BINS], 1.0);
        // Own store 16, opponent store 0.
        assert_eq!(bits[12 * PIT_BINS + 16], 1.0);
        assert_eq!(bits[12 * PIT_BINS + STORE_BINS], 1.0);
        assert_eq!(f[0], 30.0 / 48.0);
    }
}
