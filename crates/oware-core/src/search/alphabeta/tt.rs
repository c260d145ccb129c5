//! The transposition table: a preallocated array of exact-keyed entries.
//!
//! Entries hold the position's exact key ([`crate::game::Position::key`]), so a hit is never a hash
//! collision. Each search bumps a generation number and only trusts entries of its own
//! generation: a search never sees what an earlier one stored, which keeps fixed-depth
//! and fixed-node searches deterministic without clearing the table each time.

/// How a stored score relates to the true value of the position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Bound {
    /// The score is the exact value (at the stored draft).
    Exact = 0,
    /// The true value is at least the score (a beta cutoff).
    Lower = 1,
    /// The true value is at most the score (every move failed low).
    Upper = 2,
}

/// No move stored.
pub(super) const NO_MOVE: u8 = 6;

/// One slot: 24 bytes.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    /// The exact position key, split so the entry stays 8-byte aligned.
    key: [u64; 2],
    /// Score in centi-seeds from the mover's view; win scores relative to this node.
    score: i16,
    /// Remaining depth (draft) the score was searched to, in plies.
    depth: u8,
    /// `Bound` in bits 0..1, best action (0..5, or `NO_MOVE`) in bits 2..4.
    bound_move: u8,
    /// The search that wrote the entry; 0 means empty.
    generation: u8,
}

/// What a probe found.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hit {
    pub score: i32,
    pub depth: u32,
    pub bound: Bound,
    pub best: u8,
}

/// The table: `1 << bits` entries.
pub(super) struct Table {
    entries: Vec<Entry>,
    shift: u32,
    generation: u8,
}

fn split(key: u128) -> [u64; 2] {
    [key as u64, (key >> 64) as u64]
}

impl Table {
    /// A table using at most `mb` mebibytes (at least 1 024 entries). If the memory
    /// cannot be had, the size is halved until it can: a search never fails for it.
    pub fn new(mb: usize) -> Table {
        let bytes = mb.saturating_mul(1 << 20);
        let want = (bytes / std::mem::size_of::<Entry>()).max(1024);
        // Largest power of two not above the budget.
        let mut bits = usize::BITS - 1 - want.leading_zeros();
        let mut entries = Vec::new();
        while entries.try_reserve_exact(1 << bits).is_err() && bits > 10 {
            bits -= 1;
        }
        entries.resize(1 << bits, Entry::default());
        Table {
            entries,
            shift: 64 - bits,
            generation: 0,
        }
    }

    /// Starts a new search: entries of earlier searches are invisible from now on.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Wrapped: old entries could alias the new generation number.
            self.entries.fill(Entry::default());
            self.generation = 1;
        }
    }

    #[inline]
    fn index(&self, key: u128) -> usize {
        let [lo, hi] = split(key);
        let mut h = lo.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ hi.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 31;
        h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
        (h >> self.shift) as usize
    }

    /// Hints the processor to load `key`'s slot, which will be probed soon.
    #[inline]
    pub fn prefetch(&self, key: u128) {
        crate::search::prefetch::prefetch(self.entries.as_ptr().wrapping_add(self.index(key)));
    }

    /// The entry for `key` written by this search, if any.
    #[inline]
    pub fn probe(&self, key: u128) -> Option<Hit> {
        let e = &self.entries[self.index(key)];
        if e.generation != self.generation || e.key != split(key) {
            return None;
        }
        let bound = match e.bound_move & 3 {
            0 => Bound::Exact,
            1 => Bound::Lower,
            _ => Bound::Upper,
        };
        Some(Hit {
            score: e.score as i32,
            depth: e.depth as u32,
            bound,
            best: e.bound_move >> 2,
        })
    }

    /// Stores a result. Replaces an entry of an older search, of the same position, or
    /// of a draft not deeper than this one.
    #[inline]
    pub fn store(&mut self, key: u128, depth: u32, score: i32, bound: Bound, best: u8) {
        let i = self.index(key);
        let generation = self.generation;
        let e = &mut self.entries[i];
        let k = split(key);
        if e.generation == generation && e.key != k && e.depth as u32 > depth {
            return;
        }
        *e = Entry {
            key: k,
            score: score as i16,
            depth: depth.min(255) as u8,
            bound_move: bound as u8 | (best << 2),
            generation,
        };
    }
}

/// Keeps the compiler honest about the entry size the docs promise.
const _: () = assert!(std::mem::size_of::<Entry>() == 24);
