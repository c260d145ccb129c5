//! A small, fast, portable random number generator (xoshiro256++ seeded by SplitMix64).
//!
//! Written out here rather than taken from `rand::rngs::SmallRng` because that one may
//! change between `rand` versions, and a run's seed must give the same games forever.
//! It implements `rand::RngCore`, so `rand` and `rand_distr` work on it.

/// xoshiro256++: 256 bits of state, period 2^256 − 1, passes BigCrush.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    s: [u64; 4],
}

/// One SplitMix64 step: how seeds are expanded into state.
#[inline]
pub fn splitmix64(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator from a 64-bit seed.
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let s = [
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
            splitmix64(&mut x),
        ];
        Rng { s }
    }

    /// An independent generator for stream `stream` of `seed` (game `i` of a batch,
    /// worker `w`, …): the same (seed, stream) always gives the same numbers.
    pub fn stream(seed: u64, stream: u64) -> Rng {
        let mut x = seed ^ 0xA076_1D64_78BD_642F;
        let a = splitmix64(&mut x);
        let mut y = stream.wrapping_mul(0xE703_7ED1_A0B4_28DB) ^ a;
        Rng::new(splitmix64(&mut y))
    }

    /// The next 64 random bits.
    #[inline]
    pub fn bits(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    /// A uniform integer in `0..n` (n ≥ 1), by Lemire's multiply-shift (bias < n/2^64).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.bits() >> 32) * n as u64) >> 32) as u32
    }

    /// A uniform float in [0, 1).
    #[inline]
    pub fn unit_f32(&mut self) -> f32 {
        (self.bits() >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
    }

    /// A uniform float in [0, 1).
    #[inline]
    pub fn unit_f64(&mut self) -> f64 {
        (self.bits() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniformly chosen set bit of `mask` (which must not be 0), as its index.
    #[inline]
    pub fn pick_bit(&mut self, mask: u8) -> usize {
        debug_assert!(mask != 0);
        let k = self.below(mask.count_ones());
        // A table instead of clearing k bits in a loop: the loop's length is random, so
        // its branch was mispredicted on most calls.
        SELECT[mask as usize][k as usize & 7] as usize
    }
}

/// `SELECT[m][k]`: the index of the `k`-th lowest set bit of `m` (0 where there is none).
static SELECT: [[u8; 8]; 256] = build_select();

const fn build_select() -> [[u8; 8]; 256] {
    let mut t = [[0u8; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let mut k = 0;
        let mut b = 0;
        while b < 8 {
            if m & (1 << b) != 0 {
                t[m][k] = b as u8;
                k += 1;
            }
            b += 1;
        }
        m += 1;
    }
    t
}

impl rand::RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        (self.bits() >> 32) as u32
    }

    fn next_u64(&mut self) -> u64 {
        self.bits()
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for chunk in dest.chunks_mut(8) {
            let b = self.bits().to_le_bytes();
            chunk.copy_from_slice(&b[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_numbers_and_streams_differ() {
        let a: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(Rng::new(7), |r, _| Some(r.bits()))
            .collect();
        let b: Vec<u64> = (0..4)
            .map(|_| 0)
            .scan(Rng::new(7), |r, _| Some(r.bits()))
            .collect();
        assert_eq!(a, b);
        assert_ne!(Rng::stream(7, 0).bits(), Rng::stream(7, 1).bits());
    }

    #[test]
    fn pick_bit_is_uniform_over_set_bits() {
        let mut r = Rng::new(1);
        let mut counts = [0u32; 6];
        for _ in 0..60_000 {
            counts[r.pick_bit(0b101001)] += 1;
        }
        assert_eq!(counts[1] + counts[2] + counts[4], 0);
        for i in [0, 3, 5] {
            assert!((counts[i] as i32 - 20_000).abs() < 800, "{counts:?}");
        }
    }

    #[test]
    fn pick_bit_picks_the_kth_set_bit() {
        // Same draws as counting k set bits off one by one.
        for mask in 1..=255u8 {
            let (mut a, mut b) = (Rng::new(mask as u64), Rng::new(mask as u64));
            for _ in 0..20 {
                let mut k = b.below(mask.count_ones());
                let mut m = mask;
                while k > 0 {
                    m &= m - 1;
                    k -= 1;
                }
                assert_eq!(a.pick_bit(mask), m.trailing_zeros() as usize, "{mask:#b}");
            }
        }
    }

    #[test]
    fn below_stays_in_range() {
        let mut r = Rng::new(3);
        for n in 1..50 {
            for _ in 0..100 {
                assert!(r.below(n) < n);
            }
        }
        let x = r.unit_f32();
        assert!((0.0..1.0).contains(&x));
    }
}
