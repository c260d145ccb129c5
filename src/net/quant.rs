//! Integer inference for the hidden layers ([`super::InferencePath::FastInt16`]).
//!
//! A hidden layer `y += x·W` is computed in whole numbers: each row of `x` is scaled to
//! codes `a = round(x / sx)` and each column of `W` to codes `b = round(W / sw)`, both
//! within `±q`; the products are summed exactly in 32-bit integers, and
//! `y += (Σ a·b)·sx·sw`. The code range `q = ⌊√((2³¹ − 1) / k)⌋` (4 095 for k = 128, 2 896
//! for k = 256) keeps every sum inside i32 whatever the values, so the result differs
//! from f32 only by the two roundings: about `1/q` of the row's and the column's largest
//! value per term.
//!
//! Why: `vpmaddwd` multiplies sixteen (AVX2) or thirty-two (AVX-512BW) pairs of 16-bit
//! integers and adds each pair into a 32-bit lane, where an f32 FMA does eight or
//! sixteen multiplies. The weights are stored as interleaved row pairs, so one
//! instruction multiplies a broadcast pair of a row's codes by the pairs of eight or
//! sixteen columns. The sums being exact, every kernel gives the same bits as the plain
//! loop ([`dot_generic`]), which the tests check.

/// A linear layer's weights as 16-bit codes.
#[derive(Clone, Debug)]
pub(crate) struct QDense {
    /// Codes with row pairs interleaved: `(p·m + j)·2 + t` holds row `2p + t`, column `j`
    /// (a zero row pads an odd `k`).
    w: Vec<i16>,
    /// Per column, the value of one code.
    scale: Vec<f32>,
    k: usize,
    /// `k` rounded up to even.
    kp: usize,
    m: usize,
    /// The largest code.
    q: f32,
}

/// Per-thread buffers of [`QDense::matmul_acc`] (grown on demand, never shrunk).
#[derive(Clone, Debug, Default)]
pub(crate) struct QScratch {
    /// `[n, kp]` codes of the input rows.
    a: Vec<i16>,
    /// `[n]` value of one code per input row.
    sx: Vec<f32>,
}

/// The largest code for sums of `kp` products to stay inside i32.
fn code_range(kp: usize) -> f32 {
    (((i32::MAX as f64) / kp as f64).sqrt().floor()).min(i16::MAX as f64) as f32
}

impl QDense {
    /// Codes for `w` (`[k, m]` row-major), each column on its own scale.
    pub(crate) fn new(w: &[f32], k: usize, m: usize) -> QDense {
        assert_eq!(w.len(), k * m, "weights must be {k}×{m}");
        let kp = k.div_ceil(2) * 2;
        let q = code_range(kp);
        let mut scale = vec![0.0f32; m];
        for (j, s) in scale.iter_mut().enumerate() {
            let mx = (0..k).fold(0.0f32, |a, i| a.max(w[i * m + j].abs()));
            *s = if mx > 0.0 { mx / q } else { 0.0 };
        }
        let mut codes = vec![0i16; kp * m];
        for i in 0..k {
            let (p, t) = (i / 2, i % 2);
            for j in 0..m {
                let c = if scale[j] > 0.0 {
                    (w[i * m + j] / scale[j]).round_ties_even().clamp(-q, q)
                } else {
                    0.0
                };
                codes[(p * m + j) * 2 + t] = c as i16;
            }
        }
        QDense {
            w: codes,
            scale,
            k,
            kp,
            m,
            q,
        }
    }

    /// `y += x·W` for `n` rows: `x` is `[n, k]`, `y` `[n, m]`, row-major.
    pub(crate) fn matmul_acc(&self, x: &[f32], y: &mut [f32], n: usize, s: &mut QScratch) {
        let (k, kp, m) = (self.k, self.kp, self.m);
        assert!(x.len() >= n * k && y.len() >= n * m, "buffers too short");
        if s.a.len() < n * kp {
            s.a.resize(n * kp, 0);
        }
        if s.sx.len() < n {
            s.sx.resize(n, 0.0);
        }
        let (a, sx) = (&mut s.a[..n * kp], &mut s.sx[..n]);
        quantize_rows(&x[..n * k], k, kp, self.q, a, sx);
        let y = &mut y[..n * m];
        match int_isa() {
            // SAFETY: `int_isa` found the instructions on this CPU; the shapes are
            // checked above, and each arm checks the column tiling its kernel needs.
            #[cfg(target_arch = "x86_64")]
            IntIsa::Avx512Bw if m.is_multiple_of(32) => unsafe {
                dot_avx512(a, kp, &self.w, m, sx, &self.scale, y)
            },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            IntIsa::Avx512Bw | IntIsa::Avx2 if m.is_multiple_of(16) => unsafe {
                dot_avx2(a, kp, &self.w, m, sx, &self.scale, y)
            },
            _ => dot_generic(a, kp, &self.w, m, sx, &self.scale, y),
        }
    }
}

/// Each `k`-long row of `x` as codes within `±q` in a `kp`-long row of `a` (the padding
/// zero), and the value of one code in `sx`; codes round to nearest, ties to even, in
/// every version.
fn quantize_rows(x: &[f32], k: usize, kp: usize, q: f32, a: &mut [i16], sx: &mut [f32]) {
    match int_isa() {
        // SAFETY: `int_isa` found the instructions on this CPU.
        #[cfg(target_arch = "x86_64")]
        IntIsa::Avx512Bw => unsafe { quantize_rows_avx512(x, k, kp, q, a, sx) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        IntIsa::Avx2 => unsafe { quantize_rows_avx2(x, k, kp, q, a, sx) },
        _ => quantize_rows_generic(x, k, kp, q, a, sx),
    }
}

/// The plain loop of [`quantize_rows`] (`round_ties_even` is a library call on baseline
/// x86-64, hence the vector versions).
fn quantize_rows_generic(x: &[f32], k: usize, kp: usize, q: f32, a: &mut [i16], sx: &mut [f32]) {
    for ((xr, ar), s) in x
        .chunks_exact(k)
        .zip(a.chunks_exact_mut(kp))
        .zip(sx.iter_mut())
    {
        let mx = xr.iter().fold(0.0f32, |acc, v| acc.max(v.abs()));
        let Some(inv) = row_scale(mx, q, s) else {
            ar.fill(0);
            continue;
        };
        for (c, &v) in ar.iter_mut().zip(xr) {
            *c = (v * inv).round_ties_even().clamp(-q, q) as i16;
        }
        ar[k..].fill(0);
    }
}

/// A row whose largest magnitude is `mx`: sets the value of one code `s` and returns the
/// factor from values to codes, or `None` (and `s` = 0) for a row of zeros (or not finite).
#[inline(always)]
fn row_scale(mx: f32, q: f32, s: &mut f32) -> Option<f32> {
    if mx > 0.0 && mx.is_finite() {
        *s = mx / q;
        Some(q / mx)
    } else {
        *s = 0.0;
        None
    }
}

/// [`quantize_rows`] with AVX-512: sixteen values at a time, `vcvtps2dq` (nearest, ties
/// to even) and a saturating narrowing to 16 bits (the codes are within ±q already).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn quantize_rows_avx512(
    x: &[f32],
    k: usize,
    kp: usize,
    q: f32,
    a: &mut [i16],
    sx: &mut [f32],
) {
    use std::arch::x86_64::*;
    let body = k / 16 * 16;
    for ((xr, ar), s) in x
        .chunks_exact(k)
        .zip(a.chunks_exact_mut(kp))
        .zip(sx.iter_mut())
    {
        let mut vm = _mm512_setzero_ps();
        for c in (0..body).step_by(16) {
            // SAFETY: c + 16 ≤ k = xr.len().
            let v = unsafe { _mm512_loadu_ps(xr.as_ptr().add(c)) };
            vm = _mm512_max_ps(vm, _mm512_abs_ps(v));
        }
        let mx = xr[body..]
            .iter()
            .fold(_mm512_reduce_max_ps(vm), |acc, v| acc.max(v.abs()));
        let Some(inv) = row_scale(mx, q, s) else {
            ar.fill(0);
            continue;
        };
        let vinv = _mm512_set1_ps(inv);
        for c in (0..body).step_by(16) {
            // SAFETY: c + 16 ≤ k ≤ kp, within both rows.
            unsafe {
                let v = _mm512_mul_ps(_mm512_loadu_ps(xr.as_ptr().add(c)), vinv);
                let codes = _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(v));
                _mm256_storeu_si256(ar.as_mut_ptr().add(c).cast(), codes);
            }
        }
        for (c, &v) in ar[body..k].iter_mut().zip(&xr[body..]) {
            *c = (v * inv).round_ties_even().clamp(-q, q) as i16;
        }
        ar[k..].fill(0);
    }
}

/// [`quantize_rows`] with AVX2: sixteen values at a time, two `vcvtps2dq` and a
/// saturating pack (whose lane order one permutation restores).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn quantize_rows_avx2(
    x: &[f32],
    k: usize,
    kp: usize,
    q: f32,
    a: &mut [i16],
    sx: &mut [f32],
) {
    use std::arch::x86_64::*;
    let body = k / 16 * 16;
    let sign = _mm256_set1_ps(-0.0);
    for ((xr, ar), s) in x
        .chunks_exact(k)
        .zip(a.chunks_exact_mut(kp))
        .zip(sx.iter_mut())
    {
        let mut vm = _mm256_setzero_ps();
        for c in (0..body).step_by(8) {
            // SAFETY: c + 8 ≤ k = xr.len().
            let v = unsafe { _mm256_loadu_ps(xr.as_ptr().add(c)) };
            vm = _mm256_max_ps(vm, _mm256_andnot_ps(sign, v));
        }
        let mut lanes = [0.0f32; 8];
        // SAFETY: `lanes` holds eight floats.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), vm) };
        let mx = lanes
            .iter()
            .chain(&xr[body..])
            .fold(0.0f32, |acc, v| acc.max(v.abs()));
        let Some(inv) = row_scale(mx, q, s) else {
            ar.fill(0);
            continue;
        };
        let vinv = _mm256_set1_ps(inv);
        for c in (0..body).step_by(16) {
            // SAFETY: c + 16 ≤ k ≤ kp, within both rows.
            unsafe {
                let lo =
                    _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(xr.as_ptr().add(c)), vinv));
                let hi = _mm256_cvtps_epi32(_mm256_mul_ps(
                    _mm256_loadu_ps(xr.as_ptr().add(c + 8)),
                    vinv,
                ));
                // packs interleaves 128-bit halves: (lo₀, hi₀, lo₁, hi₁) → (lo₀, lo₁, hi₀, hi₁).
                let codes = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0b11_01_10_00);
                _mm256_storeu_si256(ar.as_mut_ptr().add(c).cast(), codes);
            }
        }
        for (c, &v) in ar[body..k].iter_mut().zip(&xr[body..]) {
            *c = (v * inv).round_ties_even().clamp(-q, q) as i16;
        }
        ar[k..].fill(0);
    }
}

/// The integer instructions the kernels may use on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntIsa {
    /// AVX-512 with its byte and word instructions (BW).
    Avx512Bw,
    /// AVX2.
    Avx2,
    /// The plain loop.
    Baseline,
}

/// Detects [`IntIsa`] (the standard library caches the CPU's answer).
pub(crate) fn int_isa() -> IntIsa {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512bw") {
            return IntIsa::Avx512Bw;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return IntIsa::Avx2;
        }
    }
    IntIsa::Baseline
}

/// `y[r][j] += (Σₚ a[r][2p]·w[p][j][0] + a[r][2p+1]·w[p][j][1])·sx[r]·sw[j]`: the
/// reference the vector kernels must match bit for bit.
fn dot_generic(a: &[i16], kp: usize, w: &[i16], m: usize, sx: &[f32], sw: &[f32], y: &mut [f32]) {
    for ((ar, yr), &s) in a.chunks_exact(kp).zip(y.chunks_exact_mut(m)).zip(sx) {
        for (j, (o, &c)) in yr.iter_mut().zip(sw).enumerate() {
            let mut acc = 0i32;
            for (p, pair) in ar.chunks_exact(2).enumerate() {
                let wp = &w[(p * m + j) * 2..(p * m + j) * 2 + 2];
                acc += pair[0] as i32 * wp[0] as i32 + pair[1] as i32 * wp[1] as i32;
            }
            *o += acc as f32 * s * c;
        }
    }
}

/// `n` rows as tiles of four (`tile(r0, true)` for rows `r0..r0 + 4`), then one by one
/// (`tile(r0, false)`): the row order both vector kernels share.
#[cfg(target_arch = "x86_64")]
fn row_tiles(n: usize, mut tile: impl FnMut(usize, bool)) {
    let mut r0 = 0;
    while r0 + 4 <= n {
        tile(r0, true);
        r0 += 4;
    }
    while r0 < n {
        tile(r0, false);
        r0 += 1;
    }
}

/// [`dot_generic`] with AVX2: tiles of up to four rows by sixteen columns, eight 32-bit
/// sums in each of two registers per row. Needs `m` a multiple of 16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_avx2(
    a: &[i16],
    kp: usize,
    w: &[i16],
    m: usize,
    sx: &[f32],
    sw: &[f32],
    y: &mut [f32],
) {
    // SAFETY (both calls): the rows `row_tiles` hands out exist; the caller's shapes hold.
    row_tiles(sx.len(), |r0, four| unsafe {
        if four {
            tile_avx2::<4>(a, kp, w, m, sx, sw, y, r0)
        } else {
            tile_avx2::<1>(a, kp, w, m, sx, sw, y, r0)
        }
    });
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn tile_avx2<const R: usize>(
    a: &[i16],
    kp: usize,
    w: &[i16],
    m: usize,
    sx: &[f32],
    sw: &[f32],
    y: &mut [f32],
    r0: usize,
) {
    use std::arch::x86_64::*;
    assert!(m.is_multiple_of(16) && a.len() >= (r0 + R) * kp && y.len() >= (r0 + R) * m);
    assert!(w.len() >= kp * m && sw.len() >= m && sx.len() >= r0 + R);
    for j0 in (0..m).step_by(16) {
        let mut s = [[_mm256_setzero_si256(); 2]; R];
        for p in 0..kp / 2 {
            // SAFETY: p < kp/2 and j0 + 16 ≤ m, so the 32 codes at (p·m + j0)·2 lie in
            // `w` (checked above); each row's pair at (r0 + r)·kp + 2p lies in `a`.
            unsafe {
                let wp = w.as_ptr().add((p * m + j0) * 2);
                let w0 = _mm256_loadu_si256(wp.cast());
                let w1 = _mm256_loadu_si256(wp.add(16).cast());
                for (r, sr) in s.iter_mut().enumerate() {
                    let pair = a.as_ptr().add((r0 + r) * kp + 2 * p).cast::<i32>();
                    let b = _mm256_set1_epi32(pair.read_unaligned());
                    sr[0] = _mm256_add_epi32(sr[0], _mm256_madd_epi16(b, w0));
                    sr[1] = _mm256_add_epi32(sr[1], _mm256_madd_epi16(b, w1));
                }
            }
        }
        for (r, sr) in s.iter().enumerate() {
            // SAFETY: columns j0..j0 + 16 of row r0 + r lie in `y`, and j0 + 16 ≤ m in
            // `sw` (checked above).
            unsafe {
                let scale = _mm256_set1_ps(sx[r0 + r]);
                for (h, &v) in sr.iter().enumerate() {
                    let yp = y.as_mut_ptr().add((r0 + r) * m + j0 + 8 * h);
                    let c = _mm256_loadu_ps(sw.as_ptr().add(j0 + 8 * h));
                    let d = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(v), scale), c);
                    _mm256_storeu_ps(yp, _mm256_add_ps(_mm256_loadu_ps(yp), d));
                }
            }
        }
    }
}

/// [`dot_generic`] with AVX-512BW: tiles of up to four rows by thirty-two columns. Needs
/// `m` a multiple of 32.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn dot_avx512(
    a: &[i16],
    kp: usize,
    w: &[i16],
    m: usize,
    sx: &[f32],
    sw: &[f32],
    y: &mut [f32],
) {
    // SAFETY (both calls): the rows `row_tiles` hands out exist; the caller's shapes hold.
    row_tiles(sx.len(), |r0, four| unsafe {
        if four {
            tile_avx512::<4>(a, kp, w, m, sx, sw, y, r0)
        } else {
            tile_avx512::<1>(a, kp, w, m, sx, sw, y, r0)
        }
    });
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
#[allow(clippy::too_many_arguments)]
unsafe fn tile_avx512<const R: usize>(
    a: &[i16],
    kp: usize,
    w: &[i16],
    m: usize,
    sx: &[f32],
    sw: &[f32],
    y: &mut [f32],
    r0: usize,
) {
    use std::arch::x86_64::*;
    assert!(m.is_multiple_of(32) && a.len() >= (r0 + R) * kp && y.len() >= (r0 + R) * m);
    assert!(w.len() >= kp * m && sw.len() >= m && sx.len() >= r0 + R);
    for j0 in (0..m).step_by(32) {
        let mut s = [[_mm512_setzero_si512(); 2]; R];
        for p in 0..kp / 2 {
            // SAFETY: p < kp/2 and j0 + 32 ≤ m, so the 64 codes at (p·m + j0)·2 lie in
            // `w` (checked above); each row's pair at (r0 + r)·kp + 2p lies in `a`.
            unsafe {
                let wp = w.as_ptr().add((p * m + j0) * 2);
                let w0 = _mm512_loadu_si512(wp.cast());
                let w1 = _mm512_loadu_si512(wp.add(32).cast());
                for (r, sr) in s.iter_mut().enumerate() {
                    let pair = a.as_ptr().add((r0 + r) * kp + 2 * p).cast::<i32>();
                    let b = _mm512_set1_epi32(pair.read_unaligned());
                    sr[0] = _mm512_add_epi32(sr[0], _mm512_madd_epi16(b, w0));
                    sr[1] = _mm512_add_epi32(sr[1], _mm512_madd_epi16(b, w1));
                }
            }
        }
        for (r, sr) in s.iter().enumerate() {
            // SAFETY: columns j0..j0 + 32 of row r0 + r lie in `y`, and j0 + 32 ≤ m in
            // `sw` (checked above).
            unsafe {
                let scale = _mm512_set1_ps(sx[r0 + r]);
                for (h, &v) in sr.iter().enumerate() {
                    let yp = y.as_mut_ptr().add((r0 + r) * m + j0 + 16 * h);
                    let c = _mm512_loadu_ps(sw.as_ptr().add(j0 + 16 * h));
                    let d = _mm512_mul_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(v), scale), c);
                    _mm512_storeu_ps(yp, _mm512_add_ps(_mm512_loadu_ps(yp), d));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn random(n: usize, rng: &mut Rng, scale: f32, relu: bool) -> Vec<f32> {
        (0..n)
            .map(|_| {
                let v = (rng.unit_f32() * 2.0 - 1.0) * scale;
                if relu { v.max(0.0) } else { v }
            })
            .collect()
    }

    fn f32_matmul(x: &[f32], w: &[f32], n: usize, k: usize, m: usize) -> Vec<f32> {
        let mut y = vec![0.0f32; n * m];
        for r in 0..n {
            for i in 0..k {
                for j in 0..m {
                    y[r * m + j] += x[r * k + i] * w[i * m + j];
                }
            }
        }
        y
    }

    #[test]
    fn code_range_keeps_every_sum_inside_i32() {
        for kp in [2usize, 6, 128, 256, 354, 384, 512, 1024, 4096] {
            let q = code_range(kp) as i64;
            assert!(
                kp as i64 * q * q <= i32::MAX as i64,
                "kp {kp}: q {q} overflows"
            );
            // And it is the largest such range (or the i16 limit).
            assert!(q == i16::MAX as i64 || kp as i64 * (q + 1) * (q + 1) > i32::MAX as i64);
        }
    }

    #[test]
    fn extreme_values_do_not_overflow() {
        // Row 0 all at its maximum and column 0 all at its: the sum there is k·q², the
        // largest the codes allow; the other entries mix signs. Every code is exact
        // (±q), so the result matches f32 up to f32's own rounding.
        for k in [128usize, 256, 384] {
            let (n, m) = (5, 32);
            let x: Vec<f32> = (0..n * k)
                .map(|i| if i < k || i % 3 != 0 { 1.0 } else { -1.0 })
                .collect();
            let w: Vec<f32> = (0..k * m)
                .map(|i| {
                    if i % m == 0 || (i / m) % 3 != 0 {
                        2.0
                    } else {
                        -2.0
                    }
                })
                .collect();
            let q = QDense::new(&w, k, m);
            let mut y = vec![0.0; n * m];
            q.matmul_acc(&x, &mut y, n, &mut QScratch::default());
            let want = f32_matmul(&x, &w, n, k, m);
            assert_eq!(want[0], 2.0 * k as f32);
            for (a, b) in y.iter().zip(&want) {
                assert!(
                    (a - b).abs() <= 1e-4 * b.abs().max(1.0),
                    "k {k}: {a} against {b}"
                );
            }
        }
    }

    #[test]
    fn close_to_f32_on_hidden_layer_shapes() {
        let mut rng = Rng::new(5);
        for (n, k, m) in [
            (37, 128, 128),
            (9, 256, 256),
            (4, 7, 16),
            (3, 5, 10),
            (64, 384, 384),
        ] {
            let x = random(n * k, &mut rng, 3.0, true);
            let w = random(k * m, &mut rng, 0.2, false);
            let bias = random(n * m, &mut rng, 1.0, false);
            let q = QDense::new(&w, k, m);
            let mut y = bias.clone();
            q.matmul_acc(&x, &mut y, n, &mut QScratch::default());
            let want = f32_matmul(&x, &w, n, k, m);
            // Each term is off by at most about half a code of the row's and the
            // column's maximum: bound the sum by k of them.
            let bound = k as f32 * 3.0 * 0.2 / code_range(k.div_ceil(2) * 2) * 1.5;
            for (r, ((a, b), c)) in y.iter().zip(&want).zip(&bias).enumerate() {
                assert!(
                    (a - (b + c)).abs() <= bound,
                    "shape {n}×{k}×{m}, entry {r}: {a} against {}",
                    b + c
                );
            }
        }
    }

    #[test]
    fn every_kernel_gives_the_plain_loops_bits() {
        let mut rng = Rng::new(9);
        for (n, k, m) in [
            (1usize, 128usize, 128usize),
            (7, 128, 32),
            (13, 256, 64),
            (4, 9, 16),
        ] {
            let x = random(n * k, &mut rng, 2.0, false);
            let w = random(k * m, &mut rng, 0.5, false);
            let q = QDense::new(&w, k, m);
            let mut s = QScratch::default();
            s.a.resize(n * q.kp, 0);
            s.sx.resize(n, 0.0);
            quantize_rows(&x, k, q.kp, q.q, &mut s.a, &mut s.sx);
            let start = random(n * m, &mut rng, 1.0, false);
            let mut want = start.clone();
            dot_generic(&s.a, q.kp, &q.w, m, &s.sx, &q.scale, &mut want);
            #[cfg(target_arch = "x86_64")]
            {
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut y = start.clone();
                    // SAFETY: AVX2 is present; m is a multiple of 16.
                    unsafe { dot_avx2(&s.a, q.kp, &q.w, m, &s.sx, &q.scale, &mut y) };
                    assert_eq!(y, want, "AVX2, shape {n}×{k}×{m}");
                }
                if std::arch::is_x86_feature_detected!("avx512bw") && m.is_multiple_of(32) {
                    let mut y = start.clone();
                    // SAFETY: AVX-512BW is present; m is a multiple of 32.
                    unsafe { dot_avx512(&s.a, q.kp, &q.w, m, &s.sx, &q.scale, &mut y) };
                    assert_eq!(y, want, "AVX-512, shape {n}×{k}×{m}");
                }
            }
            // And the dispatching entry point agrees too.
            let mut y = start.clone();
            q.matmul_acc(&x, &mut y, n, &mut QScratch::default());
            assert_eq!(y, want, "matmul_acc, shape {n}×{k}×{m}");
        }
    }

    #[test]
    fn every_quantizer_gives_the_plain_loops_codes() {
        let mut rng = Rng::new(13);
        for (n, k) in [(3usize, 128usize), (5, 37), (2, 16), (4, 256)] {
            let kp = k.div_ceil(2) * 2;
            let q = code_range(kp);
            let mut x = random(n * k, &mut rng, 4.0, false);
            // A row of zeros, and a row whose maximum is 1 with values near half a code.
            x[..k].fill(0.0);
            if n > 2 {
                x[2 * k..3 * k].iter_mut().for_each(|v| *v *= 0.2);
                x[2 * k] = 1.0;
                x[2 * k + 1] = 0.5 / q;
                x[2 * k + 2] = -1.5 / q;
            }
            let (mut want, mut want_s) = (vec![7i16; n * kp], vec![0.0f32; n]);
            quantize_rows_generic(&x, k, kp, q, &mut want, &mut want_s);
            assert!(want[..kp].iter().all(|&c| c == 0));
            let (mut got, mut got_s) = (vec![7i16; n * kp], vec![0.0f32; n]);
            quantize_rows(&x, k, kp, q, &mut got, &mut got_s);
            assert_eq!(got, want, "{n}×{k}");
            assert_eq!(got_s, want_s, "{n}×{k}");
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                let (mut got, mut got_s) = (vec![7i16; n * kp], vec![0.0f32; n]);
                // SAFETY: AVX2 is present.
                unsafe { quantize_rows_avx2(&x, k, kp, q, &mut got, &mut got_s) };
                assert_eq!(got, want, "AVX2, {n}×{k}");
                assert_eq!(got_s, want_s, "AVX2, {n}×{k}");
            }
        }
    }

    #[test]
    fn zero_rows_and_columns_stay_exact() {
        let (n, k, m) = (3, 8, 16);
        let mut x = vec![0.0f32; n * k];
        x[k..2 * k]
            .iter_mut()
            .enumerate()
            .for_each(|(i, v)| *v = i as f32);
        let mut w = vec![0.0f32; k * m];
        for i in 0..k {
            w[i * m + 3] = 1.0;
        }
        let q = QDense::new(&w, k, m);
        let mut y = vec![0.5f32; n * m];
        q.matmul_acc(&x, &mut y, n, &mut QScratch::default());
        for r in 0..n {
            for j in 0..m {
                let want = if r == 1 && j == 3 { 0.5 + 28.0 } else { 0.5 };
                // Row 1's codes round 0..7 to steps of 7/q: eight half-steps at most.
                assert!(
                    (y[r * m + j] - want).abs() < 1e-2,
                    "row {r} column {j}: {}",
                    y[r * m + j]
                );
            }
        }
    }
}
