//! An evaluation cache: what the evaluator said about a position, kept so that a
//! position met again (a transposition in the tree, the same opening in many games, the
//! subtree of the last move) is not evaluated again.
//!
//! The key is everything an evaluation depends on and nothing else: the position (pits,
//! stores, side to move) and its legal-move mask (the priors are a softmax over the legal
//! moves, and the mask is where the rule set enters). The history does not enter: the
//! network never sees it (repetition is decided by the tree, not by the evaluator).
//!
//! [`EvalCache`] is a fixed table of entries (its memory is set when it is made and never
//! grows), split in shards behind their own locks so that threads share it; a new entry
//! replaces whatever was in its slot. [`CachedEvaluator`] wraps any evaluator: a batch's
//! hits are answered from the table and only its misses reach the evaluator, in one call.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{Evaluation, Evaluator};
use crate::game::{Position, RuleSet};

/// Shards of the table (each behind its own lock).
const SHARDS: usize = 16;

/// One remembered evaluation. `key == 0` marks an empty slot (a real key has a non-zero
/// legal-move mask in its top byte).
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u128,
    priors: [f32; 6],
    value: f32,
}

/// The cache key of `pos` with legal moves `legal`: the position's exact identity with
/// the mask in its spare top byte.
#[inline]
pub fn cache_key(pos: &Position, legal: u8) -> u128 {
    pos.key() | (u128::from(legal) << 120)
}

/// Where `key` lives: a shard and a slot in it.
#[inline]
fn slot_of(key: u128, slots_per_shard: usize) -> (usize, usize) {
    let x = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
    let h = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (x >> 31);
    let h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let shard = (h >> 60) as usize % SHARDS;
    (shard, (h as usize) % slots_per_shard)
}

/// A bounded table of evaluations, shared by threads.
#[derive(Debug)]
pub struct EvalCache {
    shards: Vec<Mutex<Vec<Entry>>>,
    slots_per_shard: usize,
    lookups: AtomicU64,
    hits: AtomicU64,
}

impl EvalCache {
    /// A cache of about `bytes` of memory (at least one slot per shard).
    pub fn with_bytes(bytes: usize) -> EvalCache {
        let entries = bytes / std::mem::size_of::<Entry>();
        EvalCache::with_entries(entries)
    }

    /// A cache of about `entries` evaluations.
    pub fn with_entries(entries: usize) -> EvalCache {
        let per = (entries / SHARDS).max(1);
        EvalCache {
            shards: (0..SHARDS)
                .map(|_| Mutex::new(vec![Entry::default(); per]))
                .collect(),
            slots_per_shard: per,
            lookups: AtomicU64::new(0),
            hits: AtomicU64::new(0),
        }
    }

    /// Evaluations it can hold.
    pub fn capacity(&self) -> usize {
        self.slots_per_shard * SHARDS
    }

    /// Bytes of its table.
    pub fn bytes(&self) -> usize {
        self.capacity() * std::mem::size_of::<Entry>()
    }

    /// The evaluation stored under `key`, if any (counted as a lookup, and a hit if found).
    pub fn get(&self, key: u128) -> Option<Evaluation> {
        let (s, i) = slot_of(key, self.slots_per_shard);
        self.lookups.fetch_add(1, Ordering::Relaxed);
        let shard = self.shards[s].lock().unwrap_or_else(|e| e.into_inner());
        let e = shard[i];
        drop(shard);
        (e.key == key).then(|| {
            self.hits.fetch_add(1, Ordering::Relaxed);
            Evaluation {
                priors: e.priors,
                value: e.value,
            }
        })
    }

    /// Stores `eval` under `key` (replacing what its slot held).
    pub fn put(&self, key: u128, eval: &Evaluation) {
        let (s, i) = slot_of(key, self.slots_per_shard);
        let mut shard = self.shards[s].lock().unwrap_or_else(|e| e.into_inner());
        shard[i] = Entry {
            key,
            priors: eval.priors,
            value: eval.value,
        };
    }

    /// Forgets every entry and the counts (a new network, or a new game's settings).
    pub fn clear(&self) {
        for s in &self.shards {
            s.lock()
                .unwrap_or_else(|e| e.into_inner())
                .fill(Entry::default());
        }
        self.lookups.store(0, Ordering::Relaxed);
        self.hits.store(0, Ordering::Relaxed);
    }

    /// Lookups and hits since it was made or cleared.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.lookups.load(Ordering::Relaxed),
            self.hits.load(Ordering::Relaxed),
        )
    }

    /// Hits ÷ lookups (0 before any lookup).
    pub fn hit_rate(&self) -> f64 {
        let (l, h) = self.counts();
        if l == 0 { 0.0 } else { h as f64 / l as f64 }
    }
}

/// An evaluator that asks a shared [`EvalCache`] first and its inner evaluator for the
/// misses only. The buffers live between calls (no allocation per batch once warm).
pub struct CachedEvaluator {
    inner: Box<dyn Evaluator>,
    cache: std::sync::Arc<EvalCache>,
    miss_pos: Vec<Position>,
    miss_legal: Vec<u8>,
    miss_at: Vec<(usize, u128)>,
    miss_out: Vec<Evaluation>,
}

impl CachedEvaluator {
    /// `inner` behind `cache`.
    pub fn new(inner: Box<dyn Evaluator>, cache: std::sync::Arc<EvalCache>) -> CachedEvaluator {
        CachedEvaluator {
            inner,
            cache,
            miss_pos: Vec::new(),
            miss_legal: Vec::new(),
            miss_at: Vec::new(),
            miss_out: Vec::new(),
        }
    }

    /// The shared cache.
    pub fn cache(&self) -> &std::sync::Arc<EvalCache> {
        &self.cache
    }
}

impl Evaluator for CachedEvaluator {
    fn evaluate(
        &mut self,
        rules: RuleSet,
        positions: &[Position],
        legal: &[u8],
        out: &mut [Evaluation],
    ) {
        self.miss_pos.clear();
        self.miss_legal.clear();
        self.miss_at.clear();
        for (k, (p, &m)) in positions.iter().zip(legal).enumerate() {
            let key = cache_key(p, m);
            match self.cache.get(key) {
                Some(e) => out[k] = e,
                None => {
                    self.miss_pos.push(*p);
                    self.miss_legal.push(m);
                    self.miss_at.push((k, key));
                }
            }
        }
        let n = self.miss_pos.len();
        if n == 0 {
            return;
        }
        if self.miss_out.len() < n {
            self.miss_out.resize(n, Evaluation::default());
        }
        self.inner.evaluate(
            rules,
            &self.miss_pos,
            &self.miss_legal,
            &mut self.miss_out[..n],
        );
        for (&(k, key), e) in self.miss_at.iter().zip(&self.miss_out[..n]) {
            out[k] = *e;
            self.cache.put(key, e);
        }
    }

    fn name(&self) -> String {
        format!("{}+cache", self.inner.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Game, Side};
    use crate::rng::Rng;
    use crate::search::RolloutEvaluator;
    use std::sync::Arc;

    /// An evaluator whose answer is a known function of the position, counting calls.
    struct Counting {
        positions: usize,
    }

    fn made_up(p: &Position, legal: u8) -> Evaluation {
        let s: u32 = p.pits.iter().map(|&x| x as u32).sum::<u32>() + p.stores[0] as u32 * 7;
        let mut priors = [0.0; 6];
        for (a, pr) in priors.iter_mut().enumerate() {
            if legal & (1 << a) != 0 {
                *pr = (a as f32 + 1.0) + (p.pits[a] as f32);
            }
        }
        let sum: f32 = priors.iter().sum();
        priors.iter_mut().for_each(|x| *x /= sum);
        let side = if p.side == Side::South { 1.0 } else { -1.0 };
        Evaluation {
            priors,
            value: side * ((s % 17) as f32 / 17.0),
        }
    }

    impl Evaluator for Counting {
        fn evaluate(&mut self, _: RuleSet, ps: &[Position], legal: &[u8], out: &mut [Evaluation]) {
            self.positions += ps.len();
            for ((o, p), &m) in out.iter_mut().zip(ps).zip(legal) {
                *o = made_up(p, m);
            }
        }
        fn name(&self) -> String {
            "counting".into()
        }
    }

    /// Positions of a few random games (with repeats across games: the same openings).
    fn game_positions(games: usize, seed: u64) -> Vec<(Position, u8)> {
        let rules = RuleSet::abapa();
        let mut rng = Rng::new(seed);
        let mut out = Vec::new();
        for _ in 0..games {
            let mut g = Game::new(rules, Position::start());
            while !g.is_over() && g.moves().len() < 40 {
                let legal = g.legal_moves();
                out.push((*g.position(), legal));
                let moves: Vec<usize> = (0..6).filter(|a| legal & (1 << a) != 0).collect();
                let a = moves[rng.below(moves.len() as u32) as usize];
                g.play(a).unwrap();
            }
        }
        out
    }

    #[test]
    fn answers_as_the_evaluator_does_and_skips_repeats() {
        let rules = RuleSet::abapa();
        let items = game_positions(30, 4);
        let distinct: std::collections::HashSet<u128> =
            items.iter().map(|(p, m)| cache_key(p, *m)).collect();
        let cache = Arc::new(EvalCache::with_entries(1 << 16));
        let mut ev = CachedEvaluator::new(Box::new(Counting { positions: 0 }), cache.clone());
        // In batches of 7, twice over: every answer equals the uncached one.
        for _round in 0..2 {
            for chunk in items.chunks(7) {
                let ps: Vec<Position> = chunk.iter().map(|x| x.0).collect();
                let ls: Vec<u8> = chunk.iter().map(|x| x.1).collect();
                let mut out = vec![Evaluation::default(); ps.len()];
                ev.evaluate(rules, &ps, &ls, &mut out);
                for ((p, m), o) in chunk.iter().zip(&out) {
                    assert_eq!(*o, made_up(p, *m));
                }
            }
        }
        // A table far larger than the positions forgets nothing: the inner evaluator saw
        // each distinct position about once (two in one batch both miss).
        let (lookups, hits) = cache.counts();
        assert_eq!(lookups as usize, 2 * items.len());
        let seen = 2 * items.len() - hits as usize;
        assert!(seen >= distinct.len() && seen <= distinct.len() + items.len() / 7 + 1);
        assert!(
            distinct.len() < items.len(),
            "the games share their openings"
        );
    }

    #[test]
    fn the_key_separates_side_and_legal_moves() {
        let a: Position = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S".parse().unwrap();
        let b: Position = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-N".parse().unwrap();
        assert_ne!(cache_key(&a, 63), cache_key(&b, 63));
        assert_ne!(cache_key(&a, 63), cache_key(&a, 31));
        assert_ne!(cache_key(&a, 1), 0);
    }

    #[test]
    fn a_small_table_stays_small_and_still_answers_right() {
        let rules = RuleSet::abapa();
        let cache = Arc::new(EvalCache::with_entries(64));
        assert_eq!(cache.capacity(), 64);
        let inner = RolloutEvaluator::new(1, 3);
        // Rollouts are random: a cached answer is the first one given for that key.
        let mut ev = CachedEvaluator::new(Box::new(inner), cache.clone());
        let items = game_positions(20, 9);
        for (p, m) in &items {
            let mut out = [Evaluation::default()];
            ev.evaluate(rules, &[*p], &[*m], &mut out);
            let k = cache_key(p, *m);
            // Just stored: the table gives back what the evaluator said.
            assert_eq!(cache.get(k), Some(out[0]));
        }
        assert_eq!(cache.bytes(), 64 * std::mem::size_of::<Entry>());
        cache.clear();
        assert_eq!(cache.counts(), (0, 0));
    }
}
