//! The maximum-likelihood fit behind [`rating`](super::rating): the Bradley–Terry
//! log-likelihood of a pool's matchups, maximized by Newton's method with step halving
//! with the anchor held at its rating, the variances from the inverse of the observed
//! information, and the clamping of perfect matchups across the boundaries of the
//! strongly connected components, without which the maximum would not exist.

use super::stats::perfect_score_bound;

/// Natural-log odds per Elo: `p = σ(K·(r_i − r_j))`.
pub(super) const K: f64 = std::f64::consts::LN_10 / 400.0;

/// The totals of one matchup.
#[derive(Clone, Copy, Debug)]
pub(super) struct Edge {
    /// The first player.
    pub(super) a: usize,
    /// The second player.
    pub(super) b: usize,
    /// Games.
    pub(super) n: f64,
    /// `a`'s score.
    pub(super) s: f64,
    /// Resampling units (distinct openings).
    pub(super) units: u64,
}

/// How a perfect matchup across a boundary is moved to make the maximum finite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Clamp {
    /// Half a game (the estimate).
    HalfGame,
    /// To its 97.5% Clopper–Pearson bound (the finite end of a one-sided interval).
    ClopperPearson,
}

/// `r[i][j]`: a chain of "scored something against" leads from i to j.
pub(super) fn reach(n: usize, edges: &[Edge]) -> Vec<Vec<bool>> {
    let mut r = vec![vec![false; n]; n];
    for (i, row) in r.iter_mut().enumerate() {
        row[i] = true;
    }
    for e in edges {
        if e.s > 0.0 {
            r[e.a][e.b] = true;
        }
        if e.s < e.n {
            r[e.b][e.a] = true;
        }
    }
    for k in 0..n {
        for i in 0..n {
            if r[i][k] {
                for j in 0..n {
                    if r[k][j] {
                        r[i][j] = true;
                    }
                }
            }
        }
    }
    r
}

/// Moves every matchup across a boundary of the strongly connected components (it is
/// necessarily perfect) by `clamp`, so that the maximum exists.
pub(super) fn clamp_edges(n: usize, edges: &[Edge], clamp: Clamp) -> Vec<Edge> {
    let r = reach(n, edges);
    edges
        .iter()
        .map(|&e| {
            if r[e.a][e.b] && r[e.b][e.a] {
                return e;
            }
            let d = match clamp {
                Clamp::HalfGame => 0.5,
                Clamp::ClopperPearson => e.n * perfect_score_bound(e.units),
            };
            let s = if e.s <= 0.0 { d } else { e.n - d };
            Edge { s, ..e }
        })
        .collect()
}

/// Players linked to `anchor` by games (either result).
pub(super) fn connected(n: usize, edges: &[Edge], anchor: usize) -> Vec<bool> {
    let mut seen = vec![false; n];
    seen[anchor] = true;
    let mut stack = vec![anchor];
    while let Some(p) = stack.pop() {
        for e in edges {
            for (x, y) in [(e.a, e.b), (e.b, e.a)] {
                if x == p && !seen[y] {
                    seen[y] = true;
                    stack.push(y);
                }
            }
        }
    }
    seen
}

/// `ln σ(x)`, stable for large |x|.
fn ln_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// `σ(x) = 1/(1 + e^−x)`.
fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// The log-likelihood of `edges` at ratings `r`.
fn log_likelihood(edges: &[Edge], r: &[f64]) -> f64 {
    edges
        .iter()
        .map(|e| {
            let x = K * (r[e.a] - r[e.b]);
            e.s * ln_sigmoid(x) + (e.n - e.s) * ln_sigmoid(-x)
        })
        .sum()
}

/// Solves `m·X = B` for the columns of `b` (each row of `b` one equation's right-hand
/// sides) by Gaussian elimination with partial pivoting; `None` if `m` is singular.
fn solve(mut m: Vec<Vec<f64>>, mut b: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = b.len();
    let k = b.first().map_or(0, Vec::len);
    for c in 0..n {
        let p = (c..n).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))?;
        if m[p][c].abs() < 1e-300 {
            return None;
        }
        m.swap(c, p);
        b.swap(c, p);
        for i in c + 1..n {
            let f = m[i][c] / m[c][c];
            if f != 0.0 {
                for j in c..n {
                    m[i][j] -= f * m[c][j];
                }
                for j in 0..k {
                    b[i][j] -= f * b[c][j];
                }
            }
        }
    }
    let mut x = vec![vec![0.0; k]; n];
    for i in (0..n).rev() {
        for j in 0..k {
            let s: f64 = (i + 1..n).map(|t| m[i][t] * x[t][j]).sum();
            x[i][j] = (b[i][j] - s) / m[i][i];
        }
    }
    Some(x)
}

/// A maximum-likelihood fit.
pub(super) struct Fit {
    /// Ratings (NaN where not connected to the anchor).
    pub(super) elo: Vec<f64>,
    /// Variance of each rating from the inverse information (0 at the anchor, NaN where
    /// not connected).
    pub(super) var: Vec<f64>,
}

/// Maximizes the likelihood of `edges` (already clamped: the maximum exists on the
/// anchor's component) with the anchor fixed.
pub(super) fn fit(n: usize, edges: &[Edge], anchor: usize, anchor_elo: f64) -> Fit {
    let conn = connected(n, edges, anchor);
    let free: Vec<usize> = (0..n).filter(|&i| conn[i] && i != anchor).collect();
    let mut slot = vec![usize::MAX; n];
    for (k, &i) in free.iter().enumerate() {
        slot[i] = k;
    }
    let edges: Vec<Edge> = edges.iter().copied().filter(|e| conn[e.a]).collect();
    let mut r: Vec<f64> = (0..n)
        .map(|i| if conn[i] { anchor_elo } else { f64::NAN })
        .collect();
    let m = free.len();
    // Gradient and information (negative Hessian) over the free ratings, in Elo units.
    let derivatives = |r: &[f64]| {
        let mut g = vec![0.0; m];
        let mut info = vec![vec![0.0; m]; m];
        for e in &edges {
            let p = sigmoid(K * (r[e.a] - r[e.b]));
            let d = K * (e.s - e.n * p);
            let w = K * K * e.n * p * (1.0 - p);
            let (sa, sb) = (slot[e.a], slot[e.b]);
            if sa != usize::MAX {
                g[sa] += d;
                info[sa][sa] += w;
            }
            if sb != usize::MAX {
                g[sb] -= d;
                info[sb][sb] += w;
            }
            if sa != usize::MAX && sb != usize::MAX {
                info[sa][sb] -= w;
                info[sb][sa] -= w;
            }
        }
        (g, info)
    };
    for _ in 0..500 {
        let (g, info) = derivatives(&r);
        let rhs = g.iter().map(|&x| vec![x]).collect();
        let Some(step) = solve(info, rhs) else { break };
        let step: Vec<f64> = step.iter().map(|x| x[0]).collect();
        let l0 = log_likelihood(&edges, &r);
        let mut t = 1.0;
        let mut next = r.clone();
        loop {
            for (k, &i) in free.iter().enumerate() {
                next[i] = r[i] + t * step[k];
            }
            if log_likelihood(&edges, &next) >= l0 - 1e-12 || t < 1e-12 {
                break;
            }
            t *= 0.5;
        }
        let moved = step.iter().map(|d| (t * d).abs()).fold(0.0, f64::max);
        r = next;
        if moved < 1e-9 {
            break;
        }
    }
    let (_, info) = derivatives(&r);
    let mut var: Vec<f64> = (0..n)
        .map(|i| if conn[i] { 0.0 } else { f64::NAN })
        .collect();
    let identity = (0..m)
        .map(|i| (0..m).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    let cov = solve(info, identity);
    for (k, &i) in free.iter().enumerate() {
        var[i] = cov.as_ref().map_or(f64::INFINITY, |c| c[k][k]);
    }
    Fit { elo: r, var }
}
