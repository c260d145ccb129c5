//! Keys of positions for the searches that carry a history (the brute-force
//! [`super::solve::Solver`] and [`super::history_search`]): the pits and the side to
//! move as one integer, the stores left out (both value the margin of future captures,
//! which the stores do not change, and both meet the same board with other stores), and
//! a hash for the maps and sets keyed by them.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::game::Position;

/// The pits and the side to move of `p` as one integer (its stores left out).
#[inline]
pub(super) fn key(p: &Position) -> u128 {
    let mut b = [0u8; 16];
    b[..12].copy_from_slice(&p.pits);
    b[12] = p.side as u8;
    u128::from_le_bytes(b)
}

/// A hash for keys: the two halves mixed by one multiplication each. The keys are
/// exact, so a weak hash costs time, never a wrong answer; the standard library's
/// SipHash took a fifth of the brute-force solver's time.
#[derive(Default)]
pub(super) struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u128(&mut self, k: u128) {
        let x = (k as u64) ^ ((k >> 64) as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        self.0 = (x ^ (x >> 29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 ^= self.0 >> 32;
    }
}

/// A map from keys.
pub(super) type KeyMap<V> = HashMap<u128, V, BuildHasherDefault<KeyHasher>>;

/// A set of keys.
pub(super) type KeySet = HashSet<u128, BuildHasherDefault<KeyHasher>>;
