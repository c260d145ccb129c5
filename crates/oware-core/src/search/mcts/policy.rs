//! Action selection: PUCT, and Gumbel AlphaZero's root (sequential halving) and
//! interior rules with completed Q-values (Danihelka et al. 2022, as in mctx).
//!
//! All functions take one node's edge statistics and return an action 0..5 or a
//! distribution over the six actions (0 on illegal moves).

use super::MctsConfig;
use super::tree::Node;

/// One node's edges as PUCT reads them: plain arrays, whichever tree they come from
/// (a [`Node`] of one game's tree, or an [`super::atomic::AtomicNode`] read once).
#[derive(Clone, Copy, Debug)]
pub struct Edges {
    /// Legal moves (6-bit mask of actions).
    pub legal: u8,
    /// The node's own value (evaluator's), mover's view.
    pub value: f32,
    /// Prior of each action.
    pub prior: [f32; 6],
    /// Visits through each edge.
    pub n: [u32; 6],
    /// Sum of backed-up values through each edge, mover's view.
    pub w: [f32; 6],
}

/// PUCT: argmax over legal `a` of Q(a) + c_puct·P(a)·√N/(1 + n(a)), N = Σ n (at least
/// 1); Q(a) = w(a)/n(a), and an unvisited edge gets first-play urgency: the node's mean
/// value (value + Σ w)/(1 + N) minus `fpu_reduction`. Ties go to the lowest action. The
/// one PUCT of both searches: the same sums in the same order give the same choice.
#[inline]
pub fn puct(e: &Edges, c_puct: f32, fpu_reduction: f32) -> usize {
    let total: u32 = e.n.iter().sum();
    let sqrt_n = (total.max(1) as f32).sqrt();
    let fpu = (e.value + e.w.iter().sum::<f32>()) / (1 + total) as f32 - fpu_reduction;
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for a in 0..6 {
        if e.legal & (1 << a) == 0 {
            continue;
        }
        let q = if e.n[a] > 0 {
            e.w[a] / e.n[a] as f32
        } else {
            fpu
        };
        let u = c_puct * e.prior[a] * sqrt_n / (1 + e.n[a]) as f32;
        if q + u > best_score {
            best_score = q + u;
            best = a;
        }
    }
    best
}

/// [`puct`] at a node of one game's tree.
#[inline]
pub fn puct_select(node: &Node, cfg: &MctsConfig) -> usize {
    let e = Edges {
        legal: node.legal,
        value: node.value,
        prior: node.prior,
        n: node.n,
        w: node.w,
    };
    puct(&e, cfg.c_puct, cfg.fpu_reduction)
}

/// Log-priors shifted so the largest legal one is 0; −∞ on illegal moves.
#[inline]
pub fn logits(node: &Node) -> [f32; 6] {
    let mut l = [f32::NEG_INFINITY; 6];
    let mut max = f32::NEG_INFINITY;
    for a in 0..6 {
        if node.legal & (1 << a) != 0 {
            l[a] = node.prior[a].max(1e-30).ln();
            max = max.max(l[a]);
        }
    }
    for x in &mut l {
        *x -= max;
    }
    l
}

/// Completed Q, mover's view: a visited edge's mean value; an unvisited legal edge gets
/// the mixed value (the evaluator's value at the node mixed with the prior-weighted Q of
/// the visited edges, weighted by their visits). 0 on illegal moves.
pub fn completed_q(node: &Node) -> [f32; 6] {
    let mixed = mixed_value(node);
    std::array::from_fn(|a| completed(node, a, mixed))
}

/// Edge `a`'s completed Q given the node's mixed value: what [`completed_q`] holds at
/// `a`. Written as selects over values computed on every edge (a division by 0 on an
/// unvisited edge is computed and dropped), so that the callers' loops over the six
/// edges become vector code and their arrays never pass through memory element by
/// element (a wide read of narrow writes waits for them to leave the core).
#[inline]
fn completed(node: &Node, a: usize, mixed: f32) -> f32 {
    let q = node.w[a] / node.n[a] as f32;
    let q = if node.n[a] > 0 { q } else { mixed };
    if node.legal & (1 << a) != 0 { q } else { 0.0 }
}

/// The value [`completed_q`] gives unvisited legal edges: the evaluator's value at the
/// node mixed with the prior-weighted Q of the visited edges, weighted by their visits.
#[inline]
fn mixed_value(node: &Node) -> f32 {
    // Each visited edge's Q once (one division), and the sums the mixed value needs,
    // added in the order and rounding of the definition's terms.
    let mut c = [0.0f32; 6];
    let (mut sum_n, mut sum_p, mut weighted) = (0u32, 0.0f32, 0.0f32);
    for a in 0..6 {
        if node.n[a] > 0 {
            c[a] = node.w[a] / node.n[a] as f32;
            sum_p += node.prior[a].max(f32::MIN_POSITIVE);
            sum_n += node.n[a];
        }
    }
    if sum_p > 0.0 {
        for a in 0..6 {
            if node.n[a] > 0 {
                weighted += node.prior[a].max(f32::MIN_POSITIVE) * c[a] / sum_p;
            }
        }
    }
    let sum_n = sum_n as f32;
    (node.value + sum_n * weighted) / (sum_n + 1.0)
}

/// σ(completed Q): visited edges keep their Q, unvisited ones get the mixed value
/// (the evaluator's value mixed with the prior-weighted Q of visited edges); then the
/// values are rescaled to [0, 1] over legal moves by their min and max (mctx's
/// `rescale_values`, so moves whose values barely differ still get distinct logits) and
/// multiplied by (c_visit + max visits)·c_scale. 0 on illegal moves.
pub fn transformed_q(node: &Node, cfg: &MctsConfig) -> [f32; 6] {
    let mixed = mixed_value(node);
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for a in 0..6 {
        if node.legal & (1 << a) != 0 {
            let c = completed(node, a, mixed);
            lo = lo.min(c);
            hi = hi.max(c);
        }
    }
    let max_n = *node.n.iter().max().unwrap_or(&0) as f32;
    let scale = (cfg.gumbel_c_visit + max_n) * cfg.gumbel_c_scale;
    let span = (hi - lo).max(1e-8);
    // Each completed Q again rather than read back from the loop above: see `completed`.
    std::array::from_fn(|a| {
        let c = scale * (completed(node, a, mixed) - lo) / span;
        if node.legal & (1 << a) != 0 { c } else { 0.0 }
    })
}

/// Gumbel's improved policy: softmax(logits + σ(completed Q)) over the legal moves,
/// computed as prior(a)·exp(σ(a) − max σ), normalised: the same distribution without a
/// logarithm per move (the interior rule calls this at every step of every descent).
pub fn improved_policy(node: &Node, cfg: &MctsConfig) -> [f32; 6] {
    let (mut out, sum) = improved_weights(node, cfg);
    if sum > 0.0 {
        for o in &mut out {
            *o /= sum;
        }
    }
    out
}

/// [`improved_policy`] before its normalisation: each legal move's prior(a)·exp(σ(a) −
/// max σ) (0 on illegal moves) and their sum, added in action order. Inlined always: a
/// returned array is copied in wider pieces than it was written in, and such a read
/// waits for the writes to leave the core.
#[inline(always)]
fn improved_weights(node: &Node, cfg: &MctsConfig) -> ([f32; 6], f32) {
    let q = transformed_q(node, cfg);
    let mut max = f32::NEG_INFINITY;
    for a in 0..6 {
        if node.legal & (1 << a) != 0 {
            max = max.max(q[a]);
        }
    }
    let mut out = [0.0f32; 6];
    let mut sum = 0.0;
    for a in 0..6 {
        if node.legal & (1 << a) != 0 {
            out[a] = node.prior[a].max(1e-30) * (q[a] - max).exp();
            sum += out[a];
        }
    }
    (out, sum)
}

/// Applies a policy softmax temperature `t` to probabilities: p ↦ p^(1/t), which is
/// softmax(logits / t) once renormalised (the tree renormalises over the legal moves).
/// `t = 1` leaves `p` untouched; `t = 2` (the shipped configs' and the engine's) takes a
/// square root, several times cheaper than the general power.
pub fn temper(p: &mut [f32; 6], t: f32) {
    if t == 2.0 {
        p.iter_mut().for_each(|x| *x = x.max(0.0).sqrt());
    } else if t != 1.0 {
        let inv = 1.0 / t;
        p.iter_mut().for_each(|x| *x = x.max(0.0).powf(inv));
    }
}

/// Softmax over the finite entries of `x` (−∞ entries get 0).
pub fn softmax(x: &[f32; 6]) -> [f32; 6] {
    let max = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    let mut out = [0.0; 6];
    if !max.is_finite() {
        return out;
    }
    let mut sum = 0.0;
    for a in 0..6 {
        if x[a].is_finite() {
            out[a] = (x[a] - max).exp();
            sum += out[a];
        }
    }
    for o in &mut out {
        *o /= sum;
    }
    out
}

/// Gumbel interior rule (deterministic): argmax of π'(a) − n(a)/(1 + N), π' the
/// improved policy: visits follow the improved policy.
pub fn gumbel_interior_select(node: &Node, cfg: &MctsConfig) -> usize {
    // The improved policy normalised here, move by move, as `improved_policy` does (the
    // same divisions), not read back from a loop over all six.
    let (p, sum) = improved_weights(node, cfg);
    let total = node.visits() as f32;
    let mut best = 0;
    let mut best_score = f32::NEG_INFINITY;
    for a in 0..6 {
        if node.legal & (1 << a) == 0 {
            continue;
        }
        let p = if sum > 0.0 { p[a] / sum } else { p[a] };
        let s = p - node.n[a] as f32 / (1.0 + total);
        if s > best_score {
            best_score = s;
            best = a;
        }
    }
    best
}

/// The visit count each simulation's root action should have under sequential halving
/// with `m` considered actions and `n` simulations (mctx's table): the first visits go
/// round all m actions, then the better half, and so on down to 2.
pub fn considered_visits(m: usize, n: usize) -> Vec<u32> {
    if m <= 1 {
        return (0..n as u32).collect();
    }
    let log2max = (m as f64).log2().ceil() as usize;
    let mut seq = Vec::with_capacity(n);
    let mut visits = vec![0u32; m];
    let mut considered = m;
    while seq.len() < n {
        let extra = (n / (log2max * considered)).max(1);
        for _ in 0..extra {
            seq.extend_from_slice(&visits[..considered]);
            for v in visits.iter_mut().take(considered) {
                *v += 1;
            }
        }
        considered = (considered / 2).max(2);
    }
    seq.truncate(n);
    seq
}

/// Gumbel root rule: among the actions whose visit count equals `considered_visit`,
/// argmax of g + logits + σ(q). With all counts 0 this picks the top action of
/// g + logits; sequential halving then keeps the better half.
pub fn gumbel_root_select(
    node: &Node,
    cfg: &MctsConfig,
    gumbel: &[f32; 6],
    considered_visit: u32,
) -> usize {
    score_considered(node, cfg, gumbel, considered_visit)
}

/// The action Gumbel search plays: among the most-visited considered actions, argmax
/// of g + logits + σ(q).
pub fn gumbel_final_action(node: &Node, cfg: &MctsConfig, gumbel: &[f32; 6]) -> usize {
    let max_n = (0..6)
        .filter(|&a| node.legal & (1 << a) != 0)
        .map(|a| node.n[a])
        .max()
        .unwrap_or(0);
    score_considered(node, cfg, gumbel, max_n)
}

fn score_considered(
    node: &Node,
    cfg: &MctsConfig,
    gumbel: &[f32; 6],
    considered_visit: u32,
) -> usize {
    let l = logits(node);
    let q = transformed_q(node, cfg);
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    let mut fallback = 0;
    for a in 0..6 {
        if node.legal & (1 << a) == 0 {
            continue;
        }
        fallback = a;
        if node.n[a] != considered_visit {
            continue;
        }
        let s = (gumbel[a] + l[a] + q[a]).max(-1e9);
        if best.is_none() || s > best_score {
            best_score = s;
            best = Some(a);
        }
    }
    best.unwrap_or(fallback)
}

/// Visit counts as a distribution over the six actions.
pub fn visit_policy(node: &Node) -> [f32; 6] {
    let total = node.visits();
    if total == 0 {
        return node.prior;
    }
    std::array::from_fn(|a| node.n[a] as f32 / total as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn puct_picks_the_hand_worked_edge() {
        // Actions 0, 1, 3, 5 legal; 2 is illegal with the largest prior. N = 6, √N =
        // 2.449490; mean value (0.6 + 2 − 1)/7 = 0.228571, so FPU = 0.028571.
        //   a0: Q 2/4 = 0.5      + 1.25·0.1·√6/5 = 0.061237  → 0.561237
        //   a1: Q FPU 0.028571   + 1.25·0.4·√6/1 = 1.224745  → 1.253316  (best)
        //   a2: illegal (FPU + 1.25·0.9·√6 = 2.784 would win)
        //   a3: Q −1/2 = −0.5    + 1.25·0.2·√6/3 = 0.204124  → −0.295876
        //   a5: Q FPU 0.028571   + 1.25·0.3·√6/1 = 0.918559  → 0.947130
        let e = Edges {
            legal: 0b10_1011,
            value: 0.6,
            prior: [0.1, 0.4, 0.9, 0.2, 0.0, 0.3],
            n: [4, 0, 0, 2, 0, 0],
            w: [2.0, 0.0, 0.0, -1.0, 0.0, 0.0],
        };
        assert_eq!(puct(&e, 1.25, 0.2), 1);
        // Exploration nearly off (c_puct 0.01): a0's Q 0.5 + 0.0005 beats a1's
        // 0.0286 + 0.0098.
        assert_eq!(puct(&e, 0.01, 0.2), 0);
        // FPU reduction −1 (unvisited edges optimistic, FPU 1.228571): a1 = 1.2286 +
        // 0.0098 and a5 = 1.2286 + 0.0073 beat a0's 0.5005; a1 by its prior.
        assert_eq!(puct(&e, 0.01, -1.0), 1);
        // A fresh node, uniform priors, moves 1 and 2: a tie, the lower action.
        let fresh = Edges {
            legal: 0b110,
            value: 0.0,
            prior: [1.0 / 6.0; 6],
            n: [0; 6],
            w: [0.0; 6],
        };
        assert_eq!(puct(&fresh, 1.25, 0.2), 1);
    }

    #[test]
    fn completed_q_follows_its_definition() {
        // Visited legal edges: W/N; unvisited legal ones: (v + N·Σ p·q / Σ p)/(N + 1)
        // over the visited edges; illegal ones 0. Random nodes, computed plainly in f64.
        let mut rng = crate::rng::Rng::new(5);
        let mut t = crate::search::mcts::SearchTree::new(8);
        t.reset(crate::game::Position::start());
        let root = t.root();
        for _ in 0..2000 {
            let node = t.node_mut(root);
            node.legal = (rng.below(63) + 1) as u8;
            for a in 0..6 {
                let legal = node.legal & (1 << a) != 0;
                node.prior[a] = if legal { rng.unit_f32() } else { 0.0 };
                node.n[a] = if legal && rng.below(2) == 0 {
                    rng.below(30)
                } else {
                    0
                };
                node.w[a] = node.n[a] as f32 * (rng.unit_f32() * 2.0 - 1.0);
            }
            node.value = rng.unit_f32() * 2.0 - 1.0;
            let node = t.node(root);
            let visited: Vec<usize> = (0..6).filter(|&a| node.n[a] > 0).collect();
            let big_n: f64 = visited.iter().map(|&a| node.n[a] as f64).sum();
            let q = |a: usize| node.w[a] as f64 / node.n[a] as f64;
            let p = |a: usize| (node.prior[a] as f64).max(f32::MIN_POSITIVE as f64);
            let sum_p: f64 = visited.iter().map(|&a| p(a)).sum();
            let pq: f64 = visited.iter().map(|&a| p(a) * q(a)).sum();
            let mean = if visited.is_empty() { 0.0 } else { pq / sum_p };
            let mixed = (node.value as f64 + big_n * mean) / (big_n + 1.0);
            let got = completed_q(node);
            for a in 0..6 {
                let want = if node.legal & (1 << a) == 0 {
                    0.0
                } else if node.n[a] > 0 {
                    q(a)
                } else {
                    mixed
                };
                assert!(
                    (got[a] as f64 - want).abs() < 1e-5,
                    "{a}: {got:?}, want {want}"
                );
            }
        }
    }

    #[test]
    fn improved_policy_is_the_softmax_of_logits_plus_transformed_q() {
        // Against its definition in log space, on random nodes: legal sets, priors down
        // to zero, visits and values.
        let mut rng = crate::rng::Rng::new(11);
        let mut t = crate::search::mcts::SearchTree::new(8);
        t.reset(crate::game::Position::start());
        let root = t.root();
        let cfg = MctsConfig::default();
        for _ in 0..2000 {
            let node = t.node_mut(root);
            node.legal = (rng.below(63) + 1) as u8;
            for a in 0..6 {
                node.prior[a] = if rng.below(5) == 0 {
                    0.0
                } else {
                    rng.unit_f32()
                };
                node.n[a] = if rng.below(2) == 0 { 0 } else { rng.below(40) };
                node.w[a] = node.n[a] as f32 * (rng.unit_f32() * 2.0 - 1.0);
            }
            node.value = rng.unit_f32() * 2.0 - 1.0;
            let node = t.node(root);
            let l = logits(node);
            let q = transformed_q(node, &cfg);
            let x: [f32; 6] = std::array::from_fn(|a| {
                if node.legal & (1 << a) != 0 {
                    l[a] + q[a]
                } else {
                    f32::NEG_INFINITY
                }
            });
            let want = softmax(&x);
            let got = improved_policy(node, &cfg);
            for a in 0..6 {
                assert!(
                    (got[a] - want[a]).abs() < 1e-5,
                    "{got:?} vs {want:?} for {:?}",
                    node.prior
                );
            }
            assert!((got.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn q_rescaling_stretches_close_values_over_the_whole_scale() {
        let mut t = crate::search::mcts::SearchTree::new(8);
        t.reset(crate::game::Position::start());
        let root = t.root();
        let node = t.node_mut(root);
        node.legal = 0b11;
        node.prior = [0.5, 0.5, 0.0, 0.0, 0.0, 0.0];
        // Two moves one visit each, values 0.100 and 0.101.
        node.n = [1, 1, 0, 0, 0, 0];
        node.w = [0.100, 0.101, 0.0, 0.0, 0.0, 0.0];
        let node = t.node(root);
        let cfg = MctsConfig::default();
        let scale = (cfg.gumbel_c_visit + 1.0) * cfg.gumbel_c_scale;
        let q = transformed_q(node, &cfg);
        // Min–max: the 0.001 difference becomes the whole scale (5.1 logits), the lower
        // move 0, the illegal ones 0.
        assert!((q[1] - q[0] - scale).abs() < 1e-3, "{q:?}");
        assert_eq!(q[0], 0.0);
        assert_eq!(&q[2..], &[0.0; 4]);
        // So the improved policy leaves the prior for the better move.
        let p = improved_policy(node, &cfg);
        assert!(p[1] > 0.99, "{p:?}");
    }

    #[test]
    fn temper_is_softmax_of_logits_over_t() {
        // Probabilities from known logits; tempering must give softmax(logits / t).
        let logits = [2.0f32, 0.5, -1.0, 0.0, f32::NEG_INFINITY, 1.0];
        let p = softmax(&logits);
        for t in [0.5f32, 1.0, 1.6, 2.0, 3.0] {
            let mut q = p;
            temper(&mut q, t);
            let sum: f32 = q.iter().sum();
            let want = softmax(&logits.map(|x| x / t));
            for a in 0..6 {
                assert!(
                    (q[a] / sum - want[a]).abs() < 1e-5,
                    "t {t}: {q:?} vs {want:?}"
                );
            }
        }
        // Above 1 it flattens: the top move loses share, the least likely legal one gains.
        let mut q = p;
        temper(&mut q, 2.0);
        let sum: f32 = q.iter().sum();
        assert!(q[0] / sum < p[0] && q[2] / sum > p[2]);
        assert_eq!(q[4], 0.0);
    }

    #[test]
    fn halving_table_matches_hand_count() {
        // m = 4, n = 16: log2(4) = 2; 16/(2*4) = 2 rounds over 4 actions (8 sims,
        // visits 0,0,0,0,1,1,1,1), then 16/(2*2) = 4 rounds over 2 actions.
        let t = considered_visits(4, 16);
        assert_eq!(t, vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        assert_eq!(considered_visits(1, 3), vec![0, 1, 2]);
        assert_eq!(considered_visits(6, 2), vec![0, 0]);
    }

    #[test]
    fn softmax_ignores_minus_infinity() {
        let p = softmax(&[
            0.0,
            f32::NEG_INFINITY,
            0.0,
            f32::NEG_INFINITY,
            f32::NEG_INFINITY,
            0.0,
        ]);
        assert!((p[0] - 1.0 / 3.0).abs() < 1e-6);
        assert_eq!(p[1], 0.0);
        assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    }
}
