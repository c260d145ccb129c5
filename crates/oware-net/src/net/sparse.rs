//! The training step's input layer on the host, for sparse features.
//!
//! The one-hot encoding sets at most 28 of its 354 features (14 scaled counts, of which
//! the empty pits are 0, and one bit per pit and store). burn's product multiplies all
//! 354 columns for `z = x·W + b` and again for the weight's gradient `xᵀ·∂z`; these
//! kernels touch only the non-zero entries:
//!
//! - forward, per position: `z = b + Σ_{x_i ≠ 0} x_i·W[i]`;
//! - backward, per feature: `∂W[i] = Σ_{positions with x_i ≠ 0} x_i·∂z`, and `∂b = Σ ∂z`.
//!
//! Both keep a block of outputs in registers while they run over the non-zero entries
//! (positions' entries forward, features' entries backward), so that each output is
//! written once. Same results as the dense products up to the order of the float sums;
//! the tests check them against plain loops.

use super::fast::{VectorIsa, vector_isa};

/// Outputs kept in registers per pass: 8 AVX2 or 4 AVX-512 vectors.
const BLOCK: usize = 64;

/// A batch's non-zero features, by position and by feature. Keep one and refill it.
#[derive(Debug, Default)]
pub struct SparseBatch {
    n: usize,
    dim: usize,
    /// By position: `row_start[r]..row_start[r + 1]` index `row_col` / `row_val`.
    row_start: Vec<usize>,
    row_col: Vec<u32>,
    row_val: Vec<f32>,
    /// By feature: `col_start[i]..col_start[i + 1]` index `col_row` / `col_val`.
    col_start: Vec<usize>,
    col_row: Vec<u32>,
    col_val: Vec<f32>,
    /// The counting sort's write cursor per feature.
    next: Vec<usize>,
}

impl SparseBatch {
    /// Reads `[n, dim]` row-major features (`n = x.len() / dim`).
    pub fn gather(&mut self, x: &[f32], dim: usize) {
        let n = x.len() / dim;
        self.n = n;
        self.dim = dim;
        self.row_start.clear();
        self.row_col.clear();
        self.row_val.clear();
        self.row_start.push(0);
        for row in x[..n * dim].chunks_exact(dim) {
            // Eight features at a time: one-hot rows are mostly runs of zeros, and the OR
            // of eight magnitudes' bits is one vector test (−0.0 counts as zero).
            for (c, chunk) in row.chunks(8).enumerate() {
                if chunk.iter().fold(0u32, |a, v| a | (v.to_bits() << 1)) == 0 {
                    continue;
                }
                for (j, &v) in chunk.iter().enumerate() {
                    if v != 0.0 {
                        self.row_col.push((c * 8 + j) as u32);
                        self.row_val.push(v);
                    }
                }
            }
            self.row_start.push(self.row_col.len());
        }
        // The same entries by feature: a counting sort on the column.
        self.col_start.clear();
        self.col_start.resize(dim + 1, 0);
        for &c in &self.row_col {
            self.col_start[c as usize + 1] += 1;
        }
        for i in 0..dim {
            self.col_start[i + 1] += self.col_start[i];
        }
        let nnz = self.row_col.len();
        self.col_row.resize(nnz, 0);
        self.col_val.resize(nnz, 0.0);
        self.next.clear();
        self.next.extend_from_slice(&self.col_start[..dim]);
        for r in 0..n {
            for e in self.row_start[r]..self.row_start[r + 1] {
                let c = self.row_col[e] as usize;
                self.col_row[self.next[c]] = r as u32;
                self.col_val[self.next[c]] = self.row_val[e];
                self.next[c] += 1;
            }
        }
    }

    /// Positions gathered.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Whether no position was gathered.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Non-zero features gathered.
    pub fn nonzeros(&self) -> usize {
        self.row_col.len()
    }

    /// `z = x·W + b` into `z` (`[n, m]`); `w` is `[dim, m]` row-major, `b` `[m]`.
    pub fn forward(&self, w: &[f32], b: &[f32], z: &mut [f32], m: usize) {
        assert!(w.len() == self.dim * m && b.len() == m && z.len() == self.n * m);
        match vector_isa() {
            // SAFETY: `vector_isa` found the instruction set on this CPU.
            #[cfg(target_arch = "x86_64")]
            VectorIsa::Avx512 => unsafe { forward_avx512(self, w, b, z, m) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            VectorIsa::Avx2Fma => unsafe { forward_avx2(self, w, b, z, m) },
            _ => forward_generic(self, w, b, z, m),
        }
    }

    /// `∂W = xᵀ·g` (`[dim, m]`) and `∂b = Σ_r g[r]` (`[m]`) from `g` (`[n, m]`),
    /// overwriting `gw` and `gb`.
    pub fn backward(&self, g: &[f32], gw: &mut [f32], gb: &mut [f32], m: usize) {
        assert!(g.len() == self.n * m && gw.len() == self.dim * m && gb.len() == m);
        match vector_isa() {
            // SAFETY: `vector_isa` found the instruction set on this CPU.
            #[cfg(target_arch = "x86_64")]
            VectorIsa::Avx512 => unsafe { backward_avx512(self, g, gw, gb, m) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            VectorIsa::Avx2Fma => unsafe { backward_avx2(self, g, gw, gb, m) },
            _ => backward_generic(self, g, gw, gb, m),
        }
    }
}

// The kernels below are written once and compiled for several instruction sets: the crate
// is built for baseline x86-64, and these copies let LLVM use wide vectors.

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn forward_avx512(s: &SparseBatch, w: &[f32], b: &[f32], z: &mut [f32], m: usize) {
    forward_generic(s, w, b, z, m)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn forward_avx2(s: &SparseBatch, w: &[f32], b: &[f32], z: &mut [f32], m: usize) {
    forward_generic(s, w, b, z, m)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn backward_avx512(s: &SparseBatch, g: &[f32], gw: &mut [f32], gb: &mut [f32], m: usize) {
    backward_generic(s, g, gw, gb, m)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn backward_avx2(s: &SparseBatch, g: &[f32], gw: &mut [f32], gb: &mut [f32], m: usize) {
    backward_generic(s, g, gw, gb, m)
}

#[inline(always)]
fn forward_generic(s: &SparseBatch, w: &[f32], b: &[f32], z: &mut [f32], m: usize) {
    for (r, zr) in z.chunks_exact_mut(m).enumerate() {
        let (lo, hi) = (s.row_start[r], s.row_start[r + 1]);
        let (cols, vals) = (&s.row_col[lo..hi], &s.row_val[lo..hi]);
        let mut c0 = 0;
        while c0 + BLOCK <= m {
            let mut acc = [0f32; BLOCK];
            acc.copy_from_slice(&b[c0..c0 + BLOCK]);
            for (&c, &v) in cols.iter().zip(vals) {
                let wr = &w[c as usize * m + c0..c as usize * m + c0 + BLOCK];
                for j in 0..BLOCK {
                    acc[j] += v * wr[j];
                }
            }
            zr[c0..c0 + BLOCK].copy_from_slice(&acc);
            c0 += BLOCK;
        }
        // The last outputs when `m` is not a multiple of the block.
        for j in c0..m {
            let mut a = b[j];
            for (&c, &v) in cols.iter().zip(vals) {
                a += v * w[c as usize * m + j];
            }
            zr[j] = a;
        }
    }
}

#[inline(always)]
fn backward_generic(s: &SparseBatch, g: &[f32], gw: &mut [f32], gb: &mut [f32], m: usize) {
    for (i, gwr) in gw.chunks_exact_mut(m).enumerate() {
        let (lo, hi) = (s.col_start[i], s.col_start[i + 1]);
        let (rows, vals) = (&s.col_row[lo..hi], &s.col_val[lo..hi]);
        let mut c0 = 0;
        while c0 + BLOCK <= m {
            let mut acc = [0f32; BLOCK];
            for (&r, &v) in rows.iter().zip(vals) {
                let gr = &g[r as usize * m + c0..r as usize * m + c0 + BLOCK];
                for j in 0..BLOCK {
                    acc[j] += v * gr[j];
                }
            }
            gwr[c0..c0 + BLOCK].copy_from_slice(&acc);
            c0 += BLOCK;
        }
        for j in c0..m {
            let mut a = 0.0;
            for (&r, &v) in rows.iter().zip(vals) {
                a += v * g[r as usize * m + j];
            }
            gwr[j] = a;
        }
    }
    gb.fill(0.0);
    for gr in g.chunks_exact(m) {
        for (o, &v) in gb.iter_mut().zip(gr) {
            *o += v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::evaluator::tests::random_positions;
    use oware_core::env::encoding::Encoding;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    /// Plain loops over every entry, zeros included: the reference.
    fn dense_forward(x: &[f32], w: &[f32], b: &[f32], dim: usize, m: usize) -> Vec<f32> {
        let n = x.len() / dim;
        let mut z = vec![0.0f64; n * m];
        for r in 0..n {
            for j in 0..m {
                let mut a = b[j] as f64;
                for i in 0..dim {
                    a += x[r * dim + i] as f64 * w[i * m + j] as f64;
                }
                z[r * m + j] = a;
            }
        }
        z.into_iter().map(|v| v as f32).collect()
    }

    fn dense_backward(x: &[f32], g: &[f32], dim: usize, m: usize) -> (Vec<f32>, Vec<f32>) {
        let n = x.len() / dim;
        let mut gw = vec![0.0f64; dim * m];
        let mut gb = vec![0.0f64; m];
        for r in 0..n {
            for j in 0..m {
                gb[j] += g[r * m + j] as f64;
                for i in 0..dim {
                    gw[i * m + j] += x[r * dim + i] as f64 * g[r * m + j] as f64;
                }
            }
        }
        let f = |v: Vec<f64>| v.into_iter().map(|v| v as f32).collect();
        (f(gw), f(gb))
    }

    fn worst(a: &[f32], b: &[f32]) -> f32 {
        assert_eq!(a.len(), b.len());
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max)
    }

    /// One-hot positions and random sparse matrices, at widths that are and are not
    /// multiples of the register block.
    #[test]
    fn the_kernels_match_plain_loops() {
        let mut rng = StdRng::seed_from_u64(5);
        let enc = Encoding::Onehot;
        let dim = enc.dim();
        let pos = random_positions(97, 11);
        let mut onehot = vec![0.0; pos.len() * dim];
        enc.encode_batch(&pos, &mut onehot);
        // Random values at random places, negative ones and −0.0 among them.
        let mut random = vec![0.0f32; 61 * dim];
        for v in random.iter_mut() {
            if rng.random::<f32>() < 0.1 {
                *v = rng.random_range(-2.0..2.0);
            } else if rng.random::<f32>() < 0.01 {
                *v = -0.0;
            }
        }
        for x in [&onehot, &random] {
            let n = x.len() / dim;
            let mut s = SparseBatch::default();
            s.gather(x, dim);
            assert_eq!(s.len(), n);
            assert_eq!(s.nonzeros(), x.iter().filter(|v| **v != 0.0).count());
            for m in [1, 37, 64, 128, 200] {
                let w: Vec<f32> = (0..dim * m).map(|_| rng.random_range(-1.0..1.0)).collect();
                let b: Vec<f32> = (0..m).map(|_| rng.random_range(-1.0..1.0)).collect();
                let g: Vec<f32> = (0..n * m).map(|_| rng.random_range(-1.0..1.0)).collect();
                let mut z = vec![f32::NAN; n * m];
                s.forward(&w, &b, &mut z, m);
                let e = worst(&z, &dense_forward(x, &w, &b, dim, m));
                assert!(e < 1e-4, "forward, width {m}: off by {e}");
                let (mut gw, mut gb) = (vec![f32::NAN; dim * m], vec![f32::NAN; m]);
                s.backward(&g, &mut gw, &mut gb, m);
                let (rw, rb) = dense_backward(x, &g, dim, m);
                let (ew, eb) = (worst(&gw, &rw), worst(&gb, &rb));
                assert!(
                    ew < 1e-3 && eb < 1e-3,
                    "backward, width {m}: off by {ew}, {eb}"
                );
            }
        }
        // One-hot rows hold at most 28 non-zeros: 14 counts and 14 bits.
        let mut s = SparseBatch::default();
        s.gather(&onehot, dim);
        assert!(s.nonzeros() <= 28 * pos.len() && s.nonzeros() >= 14 * pos.len());
    }
}
