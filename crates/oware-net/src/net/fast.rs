//! A plain-Rust copy of the network for inference: the weights copied out of the burn
//! module into `Vec<f32>`, the same function computed with `gemm` (the matrix kernel burn's
//! `flex` backend itself uses) and fused bias/activation loops.
//!
//! Why: a burn forward call costs a tensor allocation per op, separate bias and
//! activation passes, and a host copy each way. Here the whole forward pass works in
//! buffers kept between calls, and the input layer exploits the encoding's sparsity
//! (`onehot` rows hold 14 ones and 14 small counts out of 354 entries, so the input
//! layer is a sum of ~28 weight rows instead of a 354-long dot product per output).
//! The burn model stays the reference: tests check both agree to 1e-5.

use gemm::{Parallelism, gemm};

use super::NetError;
use super::model::{Activation, LAYERNORM_EPS, Norm, POLICY_DIM, PolicyValueNet, WDL_DIM};
use burn::module::Param;
use burn::nn::{LayerNorm, Linear};
use burn::tensor::Tensor;

/// Outputs per position of [`FastNet::forward`]: 6 policy logits, 3 W/D/L logits, then
/// the store difference (already through tanh).
pub const HEAD_DIM: usize = POLICY_DIM + WDL_DIM + 1;

/// Below this many rows per thread, splitting a batch costs more than it saves.
const MIN_ROWS_PER_THREAD: usize = 32;

/// A linear layer's weights on the host.
#[derive(Clone, Debug)]
pub(crate) struct Dense {
    /// `[k, m]` row-major (burn's `Linear` layout: `y = x·W + b`).
    pub(crate) w: Vec<f32>,
    /// `[m]` (zeros for a layer without bias).
    pub(crate) b: Vec<f32>,
    pub(crate) k: usize,
    pub(crate) m: usize,
}

#[derive(Clone, Debug)]
struct LayerNormW {
    gamma: Vec<f32>,
    beta: Vec<f32>,
}

#[derive(Clone, Debug)]
struct Block {
    fc1: Dense,
    norm1: Option<LayerNormW>,
    fc2: Dense,
    norm2: Option<LayerNormW>,
}

/// The network's weights as plain arrays, and the forward pass over them.
#[derive(Clone, Debug)]
pub struct FastNet {
    input: Dense,
    input_norm: Option<LayerNormW>,
    blocks: Vec<Block>,
    /// The three heads fused into one `[width, 10]` layer (policy, W/D/L, store diff).
    heads: Dense,
    activation: Activation,
    width: usize,
}

/// Per-thread working buffers of the forward pass (grown on demand, never shrunk).
#[derive(Clone, Debug, Default)]
struct RowScratch {
    h: Vec<f32>,
    t: Vec<f32>,
    u: Vec<f32>,
}

/// Buffers that [`FastNet::forward`] reuses between calls.
#[derive(Clone, Debug, Default)]
pub struct FastScratch {
    per_thread: Vec<RowScratch>,
}

/// A tensor's values as f32, row-major.
pub(crate) fn tensor_vec<const D: usize>(t: Tensor<D>, what: &str) -> Result<Vec<f32>, NetError> {
    t.into_data()
        .try_into_vec::<f32>()
        .map_err(|e| NetError::Model(format!("reading {what}: {e:?}")))
}

/// A burn `Linear` layer's weights copied to the host.
pub(crate) fn dense(l: &Linear, what: &str) -> Result<Dense, NetError> {
    let w = l.weight.val();
    let [k, m] = w.dims();
    let b = match &l.bias {
        Some(b) => tensor_vec(b.val(), what)?,
        None => vec![0.0; m],
    };
    Ok(Dense {
        w: tensor_vec(w, what)?,
        b,
        k,
        m,
    })
}

fn layer_norm(n: &Option<LayerNorm>, what: &str) -> Result<Option<LayerNormW>, NetError> {
    let Some(n) = n else { return Ok(None) };
    let gamma = tensor_vec(n.gamma.val(), what)?;
    let beta = match &n.beta {
        Some(b) => tensor_vec(Param::val(b), what)?,
        None => vec![0.0; gamma.len()],
    };
    Ok(Some(LayerNormW { gamma, beta }))
}

impl FastNet {
    /// Copies the weights out of `model` (any device; the model is read, not changed).
    pub fn from_model(model: &PolicyValueNet) -> Result<FastNet, NetError> {
        let input = dense(&model.input, "input layer")?;
        let width = input.m;
        let blocks = model
            .blocks
            .iter()
            .map(|b| {
                Ok(Block {
                    fc1: dense(&b.fc1, "block fc1")?,
                    norm1: layer_norm(&b.norm1, "block norm1")?,
                    fc2: dense(&b.fc2, "block fc2")?,
                    norm2: layer_norm(&b.norm2, "block norm2")?,
                })
            })
            .collect::<Result<Vec<_>, NetError>>()?;
        let p = dense(&model.policy, "policy head")?;
        let v = dense(&model.value, "value head")?;
        let s = dense(&model.store_diff, "store-diff head")?;
        // Fuse the heads column-wise: row i of the fused [width, 10] matrix is row i of
        // each head's matrix side by side.
        let mut w = Vec::with_capacity(width * HEAD_DIM);
        for i in 0..width {
            w.extend_from_slice(&p.w[i * p.m..(i + 1) * p.m]);
            w.extend_from_slice(&v.w[i * v.m..(i + 1) * v.m]);
            w.extend_from_slice(&s.w[i * s.m..(i + 1) * s.m]);
        }
        let mut b = p.b.clone();
        b.extend_from_slice(&v.b);
        b.extend_from_slice(&s.b);
        Ok(FastNet {
            input_norm: layer_norm(&model.input_norm, "input norm")?,
            input,
            blocks,
            heads: Dense {
                w,
                b,
                k: width,
                m: HEAD_DIM,
            },
            activation: model.activation,
            width,
        })
    }

    /// Input features per position.
    pub fn input_dim(&self) -> usize {
        self.input.k
    }

    /// The trunk's normalisation.
    pub fn norm(&self) -> Norm {
        if self.input_norm.is_some() {
            Norm::Layernorm
        } else {
            Norm::None
        }
    }

    /// Forward pass for `n = x.len() / input_dim()` positions: `x` is `[n, dim]`
    /// row-major, `out` is `[n, HEAD_DIM]` (overwritten). With `threads > 1` the batch is
    /// split in row blocks run on rayon's current pool.
    pub fn forward(&self, x: &[f32], out: &mut [f32], scratch: &mut FastScratch, threads: usize) {
        let d = self.input_dim();
        let n = x.len() / d;
        assert_eq!(x.len(), n * d, "input length is not a multiple of {d}");
        assert_eq!(
            out.len(),
            n * HEAD_DIM,
            "output must hold {n}×{HEAD_DIM} floats"
        );
        let parts = threads.max(1).min(n.div_ceil(MIN_ROWS_PER_THREAD)).max(1);
        if scratch.per_thread.len() < parts {
            scratch.per_thread.resize_with(parts, RowScratch::default);
        }
        if parts == 1 {
            self.forward_rows(x, out, &mut scratch.per_thread[0]);
            return;
        }
        let rows = n.div_ceil(parts);
        rayon::scope(|s| {
            for ((xc, oc), sc) in x
                .chunks(rows * d)
                .zip(out.chunks_mut(rows * HEAD_DIM))
                .zip(scratch.per_thread.iter_mut())
            {
                s.spawn(move |_| self.forward_rows(xc, oc, sc));
            }
        });
    }

    fn forward_rows(&self, x: &[f32], out: &mut [f32], s: &mut RowScratch) {
        let d = self.input_dim();
        let w = self.width;
        let n = x.len() / d;
        if n == 0 {
            return;
        }
        if s.h.len() < n * w {
            s.h.resize(n * w, 0.0);
            s.t.resize(n * w, 0.0);
            if self.blocks.iter().any(|b| b.norm2.is_some()) {
                s.u.resize(n * w, 0.0);
            }
        }
        let h = &mut s.h[..n * w];
        let t = &mut s.t[..n * w];
        let act = self.activation;

        // Input layer, sparse: each row starts at the bias and adds v·W[i] for every
        // non-zero feature v = x[i].
        fill_bias(h, &self.input.b);
        sparse_acc(x, &self.input, h, n);
        finish(h, w, self.input_norm.as_ref(), Some(act));

        for b in &self.blocks {
            fill_bias(t, &b.fc1.b);
            matmul_acc(h, &b.fc1, t, n);
            finish(t, w, b.norm1.as_ref(), Some(act));
            // u = norm2(t·W2 + b2), then h = act(h + u). Without norm2 the skip connection
            // is folded into the accumulation (h += t·W2 + b2) to save a pass.
            match &b.norm2 {
                None => {
                    for hr in h.chunks_exact_mut(w) {
                        for (o, &bv) in hr.iter_mut().zip(&b.fc2.b) {
                            *o += bv;
                        }
                    }
                    matmul_acc(t, &b.fc2, h, n);
                    for v in h.iter_mut() {
                        *v = act.apply(*v);
                    }
                }
                Some(ln) => {
                    let u = &mut s.u[..n * w];
                    fill_bias(u, &b.fc2.b);
                    matmul_acc(t, &b.fc2, u, n);
                    finish(u, w, Some(ln), None);
                    for (o, &uv) in h.iter_mut().zip(u.iter()) {
                        *o = act.apply(*o + uv);
                    }
                }
            }
        }

        fill_bias(out, &self.heads.b);
        matmul_acc(h, &self.heads, out, n);
        for r in out.chunks_exact_mut(HEAD_DIM) {
            r[HEAD_DIM - 1] = r[HEAD_DIM - 1].tanh();
        }
    }
}

/// Sets every row of `y` (`[n, m]`) to `bias` (`[m]`).
fn fill_bias(y: &mut [f32], bias: &[f32]) {
    for r in y.chunks_exact_mut(bias.len()) {
        r.copy_from_slice(bias);
    }
}

/// Batches up to this size skip `gemm` and run [`sparse_acc`]: for one position a
/// matrix-vector product that skips the zeros ReLU leaves beats `gemm`'s packing.
const SPARSE_MAX_ROWS: usize = 8;

/// `y += x·W` for `x` `[n, k]`, `W` `[k, m]`, `y` `[n, m]`, all row-major.
fn matmul_acc(x: &[f32], l: &Dense, y: &mut [f32], n: usize) {
    if n <= SPARSE_MAX_ROWS {
        sparse_acc(x, l, y, n);
        return;
    }
    let (k, m) = (l.k, l.m);
    assert!(x.len() >= n * k && y.len() >= n * m && l.w.len() == k * m);
    // SAFETY: the pointers cover `n·k`, `k·m` and `n·m` floats (checked above) with the
    // given strides, and `y` does not overlap `x` or `W` (distinct borrows).
    unsafe {
        gemm(
            n,
            m,
            k,
            y.as_mut_ptr(),
            1,
            m as isize,
            true,
            x.as_ptr(),
            1,
            k as isize,
            l.w.as_ptr(),
            1,
            m as isize,
            1.0f32,
            1.0f32,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}

/// Applies the optional LayerNorm to each `w`-long row of `y`, then the activation.
fn finish(y: &mut [f32], w: usize, norm: Option<&LayerNormW>, act: Option<Activation>) {
    if let Some(ln) = norm {
        let eps = LAYERNORM_EPS as f32;
        for r in y.chunks_exact_mut(w) {
            let mean = r.iter().sum::<f32>() / w as f32;
            let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / w as f32;
            let inv = 1.0 / (var + eps).sqrt();
            for ((v, &g), &b) in r.iter_mut().zip(&ln.gamma).zip(&ln.beta) {
                *v = (*v - mean) * inv * g + b;
            }
        }
    }
    match act {
        Some(Activation::Relu) => {
            for v in y.iter_mut() {
                *v = v.max(0.0);
            }
        }
        Some(a) => {
            for v in y.iter_mut() {
                *v = a.apply(*v);
            }
        }
        None => {}
    }
}

/// `y += x·W` row by row, adding `x[r][i]·W[i]` only for the non-zero `x[r][i]`: the
/// input layer (one-hot features are mostly zero) and small batches use it.
fn sparse_acc(x: &[f32], l: &Dense, y: &mut [f32], n: usize) {
    let (k, m) = (l.k, l.m);
    assert!(x.len() >= n * k && y.len() >= n * m && l.w.len() == k * m);
    match vector_isa() {
        // SAFETY: `vector_isa` found the instruction set on this CPU.
        #[cfg(target_arch = "x86_64")]
        VectorIsa::Avx512 => unsafe { sparse_acc_avx512(x, &l.w, y, n, k, m) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        VectorIsa::Avx2Fma => unsafe { sparse_acc_avx2(x, &l.w, y, n, k, m) },
        _ => sparse_acc_generic::<SPARSE_TILE>(x, &l.w, y, n, k, m),
    }
}

/// The widest vector instructions this CPU offers to the host kernels (here and in
/// [`super::sparse`]), each compiled in a copy with `#[target_feature]`: the crate itself
/// is built for baseline x86-64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VectorIsa {
    /// AVX-512F.
    Avx512,
    /// AVX2 with FMA.
    Avx2Fma,
    /// Whatever the build targets.
    Baseline,
}

/// Detects [`VectorIsa`] (the standard library caches the CPU's answer).
pub(crate) fn vector_isa() -> VectorIsa {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return VectorIsa::Avx512;
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return VectorIsa::Avx2Fma;
        }
    }
    VectorIsa::Baseline
}

/// Columns of `y` summed in registers at a time by [`sparse_acc_generic`]: 8 AVX-512
/// vectors (of 32 registers), or 8 AVX2 vectors (of 16) and the baseline's; eight
/// independent sums keep the adder busy.
const SPARSE_TILE_AVX512: usize = 128;
const SPARSE_TILE: usize = 64;

/// Inputs of one row that [`sparse_acc_generic`] lists without a heap buffer; wider
/// inputs take the plain loop.
const SPARSE_MAX_K: usize = 1024;

/// The loop of [`sparse_acc`], written once and compiled for several instruction sets
/// (the crate is built for baseline x86-64; these copies let LLVM use wider vectors).
/// Per row it first lists the non-zero inputs (a branch per 16 inputs), then sums
/// their weight rows into `y` one tile of `TILE` columns at a time, the tile
/// held in registers: `y` is read and written once per row and tile, not once per
/// non-zero input. Each output adds the same products in the same order as a plain
/// loop over the inputs, so the result is the same to the bit.
#[inline(always)]
fn sparse_acc_generic<const TILE: usize>(
    x: &[f32],
    w: &[f32],
    y: &mut [f32],
    n: usize,
    k: usize,
    m: usize,
) {
    if k > SPARSE_MAX_K {
        return sparse_acc_plain(x, w, y, n, k, m);
    }
    let mut nz = [0u16; SPARSE_MAX_K];
    for (xr, yr) in x[..n * k]
        .chunks_exact(k)
        .zip(y[..n * m].chunks_exact_mut(m))
    {
        // The non-zero inputs, 16 at a time: a mask of the chunk (one vector compare),
        // then its set bits.
        let mut count = 0;
        for (c, chunk) in xr.chunks(16).enumerate() {
            let mut bits = 0u32;
            for (j, &v) in chunk.iter().enumerate() {
                bits |= ((v != 0.0) as u32) << j;
            }
            while bits != 0 {
                nz[count] = (c * 16 + bits.trailing_zeros() as usize) as u16;
                count += 1;
                bits &= bits - 1;
            }
        }
        let nz = &nz[..count];
        let tiles = m / TILE;
        for t in 0..tiles {
            let c0 = t * TILE;
            let out: &mut [f32; TILE] = (&mut yr[c0..c0 + TILE]).try_into().unwrap();
            let mut acc = *out;
            for &i in nz {
                let i = i as usize;
                let v = xr[i];
                let wr: &[f32; TILE] = w[i * m + c0..i * m + c0 + TILE].try_into().unwrap();
                for (a, &wv) in acc.iter_mut().zip(wr) {
                    *a += v * wv;
                }
            }
            *out = acc;
        }
        let c0 = tiles * TILE;
        if c0 < m {
            for &i in nz {
                let i = i as usize;
                let v = xr[i];
                for (o, &wv) in yr[c0..].iter_mut().zip(&w[i * m + c0..(i + 1) * m]) {
                    *o += v * wv;
                }
            }
        }
    }
}

/// `y += x·W` skipping zero inputs, one weight row at a time (inputs wider than
/// [`SPARSE_MAX_K`], and the reference the tiled loop is tested against).
#[inline(always)]
fn sparse_acc_plain(x: &[f32], w: &[f32], y: &mut [f32], n: usize, k: usize, m: usize) {
    for (xr, yr) in x[..n * k]
        .chunks_exact(k)
        .zip(y[..n * m].chunks_exact_mut(m))
    {
        for (i, &v) in xr.iter().enumerate() {
            if v != 0.0 {
                for (o, &wv) in yr.iter_mut().zip(&w[i * m..(i + 1) * m]) {
                    *o += v * wv;
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn sparse_acc_avx512(x: &[f32], w: &[f32], y: &mut [f32], n: usize, k: usize, m: usize) {
    sparse_acc_generic::<SPARSE_TILE_AVX512>(x, w, y, n, k, m)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn sparse_acc_avx2(x: &[f32], w: &[f32], y: &mut [f32], n: usize, k: usize, m: usize) {
    sparse_acc_generic::<SPARSE_TILE>(x, w, y, n, k, m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::rng::Rng;

    /// Random `[rows, cols]` values, each zero with probability `zeros`.
    fn sparse(rng: &mut Rng, len: usize, zeros: f32) -> Vec<f32> {
        (0..len)
            .map(|_| {
                if rng.unit_f32() < zeros {
                    0.0
                } else {
                    rng.unit_f32() * 2.0 - 1.0
                }
            })
            .collect()
    }

    #[test]
    fn tiled_sparse_acc_is_the_plain_loop_to_the_bit() {
        // Every shape the tiles meet: widths below, at, between and above whole tiles,
        // inputs as sparse as one-hot features and as dense as ReLU's output, and an
        // input wider than the index buffer (which takes the plain loop).
        let mut rng = Rng::new(7);
        for (k, m) in [
            (354, 128),
            (354, 256),
            (20, 1),
            (20, 63),
            (128, 130),
            (40, 200),
            (33, 64),
            (1500, 70),
        ] {
            for zeros in [0.0f32, 0.5, 0.95, 1.0] {
                let n = 5;
                let l = Dense {
                    w: sparse(&mut rng, k * m, 0.0),
                    b: vec![0.0; m],
                    k,
                    m,
                };
                let x = sparse(&mut rng, n * k, zeros);
                let y0 = sparse(&mut rng, n * m, 0.0);
                let mut want = y0.clone();
                sparse_acc_plain(&x, &l.w, &mut want, n, k, m);
                let mut got = y0.clone();
                sparse_acc(&x, &l, &mut got, n);
                let mut small = y0.clone();
                sparse_acc_generic::<SPARSE_TILE>(&x, &l.w, &mut small, n, k, m);
                let mut large = y0.clone();
                sparse_acc_generic::<SPARSE_TILE_AVX512>(&x, &l.w, &mut large, n, k, m);
                for y in [&got, &small, &large] {
                    let same = want.iter().zip(y).all(|(a, b)| a.to_bits() == b.to_bits());
                    assert!(same, "k {k} m {m} zeros {zeros}");
                }
                // And the plain loop is x·W: checked against a dense product in f64.
                for r in 0..n {
                    for c in 0..m {
                        let dot: f64 = (0..k)
                            .map(|i| x[r * k + i] as f64 * l.w[i * m + c] as f64)
                            .sum();
                        let e = y0[r * m + c] as f64 + dot;
                        assert!(
                            (want[r * m + c] as f64 - e).abs() < 1e-3,
                            "k {k} m {m} r {r} c {c}"
                        );
                    }
                }
            }
        }
    }
}
