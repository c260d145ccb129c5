//! The index of a board: a combinatorial rank of the 12 pit counts.
//!
//! A board with `n` seeds in 12 pits is a composition of `n` into 12 parts; there are
//! C(n+11, 11) of them (stars and bars). Writing the parts as stars and the 11 gaps
//! between pits as bars, bar `i` sits at `s_i = p_0 + … + p_i + i`, a strictly
//! increasing sequence in `0..n+11`: an 11-element subset. Its rank in the
//! combinatorial number system, `Σ C(s_i, i+1)`, numbers the boards `0..C(n+11, 11)`
//! without gaps. Ranking costs 11 table look-ups and adds; unranking walks each bar down
//! from the previous one (at most n + 11 steps in all).

/// The most seeds a board of the game holds.
pub const MAX_SEEDS: usize = 48;

/// `BINOMIAL[a][k]` = C(a, k) for a ≤ 60, k ≤ 12.
static BINOMIAL: [[u64; 13]; 61] = build_binomials();

const fn build_binomials() -> [[u64; 13]; 61] {
    let mut t = [[0u64; 13]; 61];
    let mut a = 0;
    while a <= 60 {
        t[a][0] = 1;
        let mut k = 1;
        while k <= 12 && k <= a {
            t[a][k] = t[a - 1][k - 1] + if k < a { t[a - 1][k] } else { 0 };
            k += 1;
        }
        a += 1;
    }
    t
}

/// C(a, k) for a ≤ 60, k ≤ 12.
#[inline]
pub fn binomial(a: usize, k: usize) -> u64 {
    BINOMIAL[a][k]
}

/// Boards with exactly `seeds` seeds: C(seeds + 11, 11).
#[inline]
pub fn boards_with(seeds: usize) -> u64 {
    binomial(seeds + 11, 11)
}

/// Boards with at most `seeds` seeds: C(seeds + 12, 12).
#[inline]
pub fn boards_up_to(seeds: usize) -> u64 {
    binomial(seeds + 12, 12)
}

/// The rank of `pits` among the boards with the same number of seeds
/// (`0..boards_with(n)`).
#[inline]
pub fn rank(pits: &[u8; 12]) -> u64 {
    let mut r = 0u64;
    let mut s = 0usize;
    for i in 0..11 {
        s += pits[i] as usize;
        r += BINOMIAL[s + i][i + 1];
    }
    r
}

/// The board of rank `r` among those with `seeds` seeds (`r < boards_with(seeds)`).
pub fn unrank(seeds: usize, mut r: u64) -> [u8; 12] {
    debug_assert!(r < boards_with(seeds));
    let mut bars = [0usize; 11];
    // The largest bar position is at most seeds + 10.
    let mut s = seeds + 10;
    for i in (0..11).rev() {
        // The largest s ≥ i with C(s, i+1) ≤ r.
        while BINOMIAL[s][i + 1] > r {
            s -= 1;
        }
        bars[i] = s;
        r -= BINOMIAL[s][i + 1];
        s = s.saturating_sub(1);
    }
    let mut pits = [0u8; 12];
    pits[0] = bars[0] as u8;
    for i in 1..11 {
        pits[i] = (bars[i] - bars[i - 1] - 1) as u8;
    }
    pits[11] = (seeds + 10 - bars[10]) as u8;
    pits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_stars_and_bars() {
        // Independent counts: C(n+11, 11) computed by multiplication.
        for n in 0..=24u64 {
            let mut c = 1u64;
            for j in 1..=11u64 {
                c = c * (n + j) / j;
            }
            assert_eq!(boards_with(n as usize), c, "n = {n}");
        }
        assert_eq!(boards_with(12), 1_352_078);
        assert_eq!(boards_with(20), 84_672_315);
        assert_eq!(boards_up_to(20), 225_792_840);
        assert_eq!(boards_up_to(12), 2_704_156);
    }

    #[test]
    fn rank_unrank_round_trip_small_counts() {
        for n in 0..=7 {
            let total = boards_with(n);
            let mut seen = vec![false; total as usize];
            for r in 0..total {
                let pits = unrank(n, r);
                assert_eq!(pits.iter().map(|&p| p as usize).sum::<usize>(), n);
                assert_eq!(rank(&pits), r);
                seen[r as usize] = true;
            }
            assert!(seen.iter().all(|&s| s));
        }
    }

    #[test]
    fn every_board_is_ranked_once() {
        // Enumerate every board with 5 seeds independently (nested counting) and check
        // the ranks are a permutation of 0..C(16, 11).
        let n = 5u8;
        let mut seen = vec![0u32; boards_with(n as usize) as usize];
        let mut pits = [0u8; 12];
        fn rec(i: usize, left: u8, pits: &mut [u8; 12], seen: &mut Vec<u32>) {
            if i == 11 {
                pits[11] = left;
                seen[rank(pits) as usize] += 1;
                return;
            }
            for v in 0..=left {
                pits[i] = v;
                rec(i + 1, left - v, pits, seen);
            }
        }
        rec(0, n, &mut pits, &mut seen);
        assert!(seen.iter().all(|&c| c == 1));
    }

    #[test]
    fn extreme_boards_round_trip_at_48() {
        let mut all_in_last = [0u8; 12];
        all_in_last[11] = 48;
        let mut all_in_first = [0u8; 12];
        all_in_first[0] = 48;
        for pits in [all_in_last, all_in_first, [4; 12]] {
            assert_eq!(unrank(48, rank(&pits)), pits);
            assert!(rank(&pits) < boards_with(48));
        }
    }
}
