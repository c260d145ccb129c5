//! Match statistics: score, Elo difference with a 95% confidence interval, likelihood of
//! superiority and the SPRT, from one player's point of view.
//!
//! Formulas (s = score per game in [0, 1], N = games, M = game pairs):
//!
//! - Elo difference of a score: `elo(s) = −400·log10(1/s − 1)` (the logistic model).
//! - Trinomial standard error (each game an independent trial with result 1, ½ or 0):
//!   `σ² = Σ_games (x − s)² / N`, `se = √(σ²/N)`.
//! - Pentanomial standard error (each colour-swapped pair one trial, its per-game score
//!   x ∈ {0, ¼, ½, ¾, 1}): `σ² = Σ_pairs (x − s)² / M`, `se = √(σ²/M)`. Both games of a
//!   pair start from the same opening, so their results are correlated; counting them as
//!   independent games (trinomial) misstates the error. The pentanomial one is honest for
//!   paired openings, and it is the one `elo_ci95` uses whenever every game is paired.
//! - 95% interval: `[elo(s − z·se), elo(s + z·se)]`, z = 1.959964 (the normal quantile),
//!   the score ends clamped into (0, 1).
//! - Likelihood of superiority (chessprogramming.org): `LOS = ½·(1 + erf((W − L)/√(2(W + L))))`;
//!   draws carry no information on who is stronger. ½ with no decisive game.
//! - SPRT: the generalized SPRT of fishtest's logistic-Elo test (M. Van den Bergh's
//!   normal approximation). With s0, s1 the expected scores of the hypotheses elo0 and
//!   elo1, `LLR = (s1 − s0)·(2·s − s0 − s1) / (2·se²)` where s and se² = σ²/M are the
//!   pentanomial mean and variance of the mean (trinomial ones when results are not
//!   paired). Bounds for error rates α, β: `[ln(β/(1−α)), ln((1−β)/α)]` = ±2.944 for
//!   α = β = 0.05. LLR ≥ upper accepts H1 (the difference is at least elo1), LLR ≤ lower
//!   accepts H0 (at most elo0).
//!
//! A score of exactly 0 or 1 has an infinite Elo difference; the point estimate is then
//! reported for the score with half a game moved the other way (s = 1 − 1/(2N)), and
//! `Summary::elo_clamped` says so. The interval is then one-sided, from a Clopper–Pearson
//! bound (see [`perfect_score_interval`]).

use serde::Serialize;

/// z of a two-sided 95% normal interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Elo difference of a score per game `s` in (0, 1) under the logistic model.
pub fn elo_of_score(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The expected score per game of an Elo difference (the inverse of [`elo_of_score`]).
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The error function, by Abramowitz & Stegun 7.1.26 (absolute error < 1.5·10⁻⁷, ample
/// for a probability reported with three decimals; `std` has no `erf`).
pub fn erf(x: f64) -> f64 {
    let sign = if x < 0.0 { -1.0 } else { 1.0 };
    let x = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    sign * (1.0 - poly * (-x * x).exp())
}

/// Likelihood of superiority from the decisive games: `½·(1 + erf((W − L)/√(2(W + L))))`.
pub fn los(wins: u64, losses: u64) -> f64 {
    let n = (wins + losses) as f64;
    if n == 0.0 {
        return 0.5;
    }
    0.5 * (1.0 + erf((wins as f64 - losses as f64) / (2.0 * n).sqrt()))
}

/// Counts of game pairs by the player's total over the pair's two games, from its point
/// of view: index 0 = LL (0 points), 1 = LD (½), 2 = DD or WL (1), 3 = WD (1½), 4 = WW (2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Pentanomial(pub [u64; 5]);

impl Pentanomial {
    /// Adds a pair from the player's two game scores (each 0, ½ or 1).
    pub fn add_pair(&mut self, a: f64, b: f64) {
        let k = ((a + b) * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[k] += 1;
    }

    /// Number of pairs.
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    /// Mean score per game over the pairs and the variance of a pair's per-game score.
    /// `None` with no pair.
    pub fn mean_var(&self) -> Option<(f64, f64)> {
        let m = self.pairs();
        if m == 0 {
            return None;
        }
        let m = m as f64;
        let x = |k: usize| k as f64 / 4.0;
        let mean = (0..5).map(|k| self.0[k] as f64 * x(k)).sum::<f64>() / m;
        let var = (0..5)
            .map(|k| self.0[k] as f64 * (x(k) - mean).powi(2))
            .sum::<f64>()
            / m;
        Some((mean, var))
    }
}

/// Wins, draws and losses of single games, from the player's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
}

impl Wdl {
    /// Adds one game scored 1, ½ or 0.
    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// Mean score per game and the per-game variance. `None` with no game.
    pub fn mean_var(&self) -> Option<(f64, f64)> {
        let n = self.games();
        if n == 0 {
            return None;
        }
        let n = n as f64;
        let s = (self.wins as f64 + 0.5 * self.draws as f64) / n;
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        Some((s, var))
    }
}

/// Which model of the results an interval or a test used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// One trial per colour-swapped game pair (five outcomes).
    Pentanomial,
    /// One trial per game (three outcomes).
    Trinomial,
}

/// The mean score per game and the standard error of that mean under `model`; `None`
/// when there is nothing to count.
fn mean_se(wdl: &Wdl, penta: &Pentanomial, model: Model) -> Option<(f64, f64)> {
    match model {
        Model::Pentanomial => penta
            .mean_var()
            .map(|(s, v)| (s, (v / penta.pairs() as f64).sqrt())),
        Model::Trinomial => wdl
            .mean_var()
            .map(|(s, v)| (s, (v / wdl.games() as f64).sqrt())),
    }
}

/// The 95% Elo interval of a score per game `s` with standard error `se`.
pub fn elo_interval(s: f64, se: f64) -> [f64; 2] {
    // Keep the ends strictly inside (0, 1) so they stay finite; an end at 0 or 1 means
    // "unbounded", shown as ±2 000 Elo (far beyond any measurable difference).
    let lo = (s - Z95 * se).clamp(1e-6, 1.0 - 1e-6);
    let hi = (s + Z95 * se).clamp(1e-6, 1.0 - 1e-6);
    [
        elo_of_score(lo).clamp(-2000.0, 2000.0),
        elo_of_score(hi).clamp(-2000.0, 2000.0),
    ]
}

/// With every one of `trials` lost, the 97.5% Clopper–Pearson upper bound on the chance
/// that a trial is not lost: `1 − 0.025^(1/trials)` (the mirror image for all won).
pub fn perfect_score_bound(trials: u64) -> f64 {
    1.0 - 0.025f64.powf(1.0 / trials.max(1) as f64)
}

/// The 95% Elo interval when every trial (game or pair) was lost (`s` = 0) or won
/// (`s` = 1): the normal interval has zero width there, which would claim certainty.
/// With all `trials` lost, the chance that a trial is not lost is below
/// `q = 1 − 0.025^(1/trials)` with 97.5% confidence (Clopper–Pearson), and the score
/// per game is at most that chance; so the interval is `[−∞, elo(q)]` (−∞ shown as
/// −2 000), and its mirror image for all won.
pub fn perfect_score_interval(s: f64, trials: u64) -> [f64; 2] {
    let q = perfect_score_bound(trials);
    if s <= 0.5 {
        [-2000.0, elo_of_score(q)]
    } else {
        [elo_of_score(1.0 - q), 2000.0]
    }
}

/// The SPRT's hypotheses and error rates.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct SprtConfig {
    /// H0: the Elo difference is at most this.
    pub elo0: f64,
    /// H1: the Elo difference is at least this.
    pub elo1: f64,
    /// Probability of accepting H1 when H0 holds.
    pub alpha: f64,
    /// Probability of accepting H0 when H1 holds.
    pub beta: f64,
}

impl SprtConfig {
    /// The test `elo0` against `elo1` with α = β = 0.05.
    pub fn new(elo0: f64, elo1: f64) -> SprtConfig {
        SprtConfig {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
        }
    }

    /// Bounds on the log-likelihood ratio: `[ln(β/(1−α)), ln((1−β)/α)]`.
    pub fn bounds(&self) -> [f64; 2] {
        [
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        ]
    }

    /// Checks the values; the message says which is wrong.
    pub fn validate(&self) -> Result<(), String> {
        if !(self.elo0.is_finite() && self.elo1.is_finite()) {
            return Err("SPRT Elo bounds must be numbers".into());
        }
        if self.elo0 >= self.elo1 {
            return Err(format!(
                "SPRT needs elo0 < elo1 (got {}, {})",
                self.elo0, self.elo1
            ));
        }
        for (k, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(format!("SPRT {k} = {v} must be in (0, 0.5)"));
            }
        }
        Ok(())
    }
}

impl std::str::FromStr for SprtConfig {
    type Err = String;

    /// Parses `elo0,elo1` (α = β = 0.05).
    fn from_str(s: &str) -> Result<SprtConfig, String> {
        let (a, b) = s
            .split_once(',')
            .ok_or_else(|| format!("`{s}` is not `elo0,elo1` (e.g. `0,35`)"))?;
        let p = |t: &str| {
            t.trim()
                .parse::<f64>()
                .map_err(|_| format!("`{t}` in `{s}` is not a number"))
        };
        let c = SprtConfig::new(p(a)?, p(b)?);
        c.validate()?;
        Ok(c)
    }
}

/// What the SPRT says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// H1 accepted: the difference is at least elo1.
    AcceptH1,
    /// H0 accepted: the difference is at most elo0.
    AcceptH0,
    /// Neither bound reached yet.
    Continue,
}

/// An SPRT's state.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Sprt {
    /// The test.
    pub config: SprtConfig,
    /// The log-likelihood ratio of H1 against H0.
    pub llr: f64,
    /// `[lower, upper]` bounds on `llr`.
    pub bounds: [f64; 2],
    /// The decision.
    pub decision: Decision,
    /// Which model of the results the LLR used.
    pub model: Model,
    /// Games the LLR was computed from.
    pub games: u64,
}

/// The GSPRT log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`) for results with
/// mean score per game `s` and variance of that mean `var_mean` (see the module docs).
/// 0 when the variance is 0 (no information about the spread yet).
pub fn gsprt_llr(elo0: f64, elo1: f64, s: f64, var_mean: f64) -> f64 {
    if var_mean <= 1e-12 {
        return 0.0;
    }
    let s0 = score_of_elo(elo0);
    let s1 = score_of_elo(elo1);
    (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var_mean)
}

/// Runs the SPRT on results: pentanomial if any pair is complete, else trinomial.
pub fn sprt(config: SprtConfig, wdl: &Wdl, penta: &Pentanomial) -> Sprt {
    let model = if penta.pairs() > 0 {
        Model::Pentanomial
    } else {
        Model::Trinomial
    };
    let llr = match mean_se(wdl, penta, model) {
        Some((s, se)) => gsprt_llr(config.elo0, config.elo1, s, se * se),
        None => 0.0,
    };
    let bounds = config.bounds();
    let decision = if llr >= bounds[1] {
        Decision::AcceptH1
    } else if llr <= bounds[0] {
        Decision::AcceptH0
    } else {
        Decision::Continue
    };
    Sprt {
        config,
        llr,
        bounds,
        decision,
        model,
        games: wdl.games(),
    }
}

/// Everything reported about a match, from the player's point of view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// Games counted.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Score per game in [0, 1].
    pub score: f64,
    /// Elo difference (player − opponent).
    pub elo: f64,
    /// True when the score was 0 or 1 and `elo` is that of the score with half a game
    /// moved (the true estimate is unbounded).
    pub elo_clamped: bool,
    /// 95% interval of `elo`, from `ci_model`.
    pub elo_ci95: [f64; 2],
    /// Which model `elo_ci95` used: pentanomial when every game is paired.
    pub ci_model: Model,
    /// The trinomial interval, for comparison (too narrow or too wide with paired openings).
    pub elo_ci95_trinomial: [f64; 2],
    /// Likelihood of superiority.
    pub los: f64,
    /// Pair counts `[LL, LD, DD+WL, WD, WW]`.
    pub pentanomial: [u64; 5],
    /// The SPRT, when one was asked for.
    pub sprt: Option<Sprt>,
}

impl Summary {
    /// Summarizes single-game results `wdl` and the complete pairs among them `penta`.
    pub fn new(wdl: &Wdl, penta: &Pentanomial, sprt_config: Option<SprtConfig>) -> Summary {
        let n = wdl.games();
        let (score, _) = wdl.mean_var().unwrap_or((0.5, 0.0));
        let (elo, elo_clamped) = if n == 0 {
            (0.0, false)
        } else if score <= 0.0 || score >= 1.0 {
            let half = 0.5 / n as f64;
            (elo_of_score(score.clamp(half, 1.0 - half)), true)
        } else {
            (elo_of_score(score), false)
        };
        let interval = |model| {
            let trials = match model {
                Model::Pentanomial => penta.pairs(),
                Model::Trinomial => n,
            };
            match mean_se(wdl, penta, model) {
                Some((s, _)) if elo_clamped => perfect_score_interval(s, trials),
                Some((s, se)) => elo_interval(s, se),
                None => [0.0, 0.0],
            }
        };
        let paired = penta.pairs() * 2 == n && n > 0;
        let ci_model = if paired {
            Model::Pentanomial
        } else {
            Model::Trinomial
        };
        Summary {
            games: n,
            wins: wdl.wins,
            draws: wdl.draws,
            losses: wdl.losses,
            score,
            elo,
            elo_clamped,
            elo_ci95: interval(ci_model),
            ci_model,
            elo_ci95_trinomial: interval(Model::Trinomial),
            los: los(wdl.wins, wdl.losses),
            pentanomial: penta.0,
            sprt: sprt_config.map(|c| sprt(c, wdl, penta)),
        }
    }

    /// A few human-readable lines.
    pub fn text(&self) -> String {
        let mut t = format!(
            "games {}: +{} ={} -{}  score {:.3}\n",
            self.games, self.wins, self.draws, self.losses, self.score
        );
        let clamp = if self.elo_clamped {
            " (score 0 or 1: bound, not estimate)"
        } else {
            ""
        };
        t += &format!(
            "Elo {:+.1}{clamp}  95% CI [{:+.1}, {:+.1}] ({})  trinomial CI [{:+.1}, {:+.1}]\n",
            self.elo,
            self.elo_ci95[0],
            self.elo_ci95[1],
            match self.ci_model {
                Model::Pentanomial => "pentanomial",
                Model::Trinomial => "trinomial",
            },
            self.elo_ci95_trinomial[0],
            self.elo_ci95_trinomial[1],
        );
        let p = self.pentanomial;
        t += &format!(
            "LOS {:.1}%  pairs LL {} LD {} DD/WL {} WD {} WW {}\n",
            100.0 * self.los,
            p[0],
            p[1],
            p[2],
            p[3],
            p[4]
        );
        if let Some(s) = &self.sprt {
            t += &format!(
                "SPRT elo0 {} elo1 {}: LLR {:.3} after {} games, bounds [{:.3}, {:.3}] -> {}\n",
                s.config.elo0,
                s.config.elo1,
                s.llr,
                s.games,
                s.bounds[0],
                s.bounds[1],
                match s.decision {
                    Decision::AcceptH1 => "H1 accepted",
                    Decision::AcceptH0 => "H0 accepted",
                    Decision::Continue => "undecided",
                }
            );
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oware_core::rng::Rng;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_known_scores() {
        // −400·log10(1/0.75 − 1) = −400·log10(1/3) = 400·0.477121 = 190.8485
        assert!(close(elo_of_score(0.75), 190.8485, 1e-3));
        assert!(close(elo_of_score(0.5), 0.0, 1e-12));
        assert!(close(elo_of_score(0.25), -190.8485, 1e-3));
        assert!(close(score_of_elo(elo_of_score(0.3)), 0.3, 1e-12));
    }

    #[test]
    fn erf_and_los_match_tables() {
        assert!(close(erf(0.5), 0.520_499_878, 2e-7));
        assert!(close(erf(-1.0), -0.842_700_793, 2e-7));
        // W 10, L 8: ½(1 + erf(2/√36)) = ½(1 + erf(0.3333)) = ½(1 + 0.362648) = 0.681324
        assert!(close(los(10, 8), 0.681_324, 1e-6));
        assert_eq!(los(0, 0), 0.5);
        assert!(los(8, 10) < 0.5);
    }

    #[test]
    fn trinomial_interval_by_hand() {
        // W 60, D 20, L 20 (N = 100): s = 0.7;
        // σ² = (60·0.3² + 20·0.2² + 20·0.7²)/100 = (5.4 + 0.8 + 9.8)/100 = 0.16; se = √(0.16/100) = 0.04
        // elo(0.7) = 147.19; CI = elo(0.7 ∓ 1.96·0.04) = elo(0.62160), elo(0.77840) = [86.23, 218.25]
        let wdl = Wdl {
            wins: 60,
            draws: 20,
            losses: 20,
        };
        let s = Summary::new(&wdl, &Pentanomial::default(), None);
        assert_eq!(s.ci_model, Model::Trinomial);
        assert!(close(s.score, 0.7, 1e-12));
        assert!(close(s.elo, 147.19, 0.01));
        assert!(close(s.elo_ci95[0], 86.23, 0.01), "{:?}", s.elo_ci95);
        assert!(close(s.elo_ci95[1], 218.25, 0.01), "{:?}", s.elo_ci95);
        // 100 games at 50%, no draws: se = 0.05, ±elo(0.598) = ±69.0
        let even = Wdl {
            wins: 50,
            draws: 0,
            losses: 50,
        };
        let s = Summary::new(&even, &Pentanomial::default(), None);
        assert!(close(s.elo_ci95[1], 69.0, 0.1), "{:?}", s.elo_ci95);
    }

    #[test]
    fn pentanomial_interval_by_hand() {
        // Pairs LL 5, LD 10, DD/WL 15, WD 12, WW 8 (M = 50, per-game x = 0, ¼, ½, ¾, 1):
        // s = (10·0.25 + 15·0.5 + 12·0.75 + 8)/50 = 27/50 = 0.54
        // σ² = (5·0.54² + 10·0.29² + 15·0.04² + 12·0.21² + 8·0.46²)/50 = 4.545/50 = 0.0909
        // se = √(0.0909/50) = 0.042638; elo(0.54) = 27.85
        // CI = [elo(0.54 − 0.083569), elo(0.54 + 0.083569)] = [elo(0.456431), elo(0.623569)]
        //    = [−30.35, +87.68]
        let penta = Pentanomial([5, 10, 15, 12, 8]);
        // Matching games: LL→2L, LD→L+D, DD/WL→ (say) 15 DD, WD→W+D, WW→2W.
        let wdl = Wdl {
            wins: 12 + 16,
            draws: 10 + 30 + 12,
            losses: 10 + 10,
        };
        let s = Summary::new(&wdl, &penta, None);
        assert_eq!(s.games, 100);
        assert_eq!(s.ci_model, Model::Pentanomial);
        assert!(close(s.score, 0.54, 1e-12));
        assert!(close(s.elo, 27.85, 0.01));
        assert!(close(s.elo_ci95[0], -30.35, 0.01), "{:?}", s.elo_ci95);
        assert!(close(s.elo_ci95[1], 87.68, 0.01), "{:?}", s.elo_ci95);
        // SPRT 0,35: s0 = 0.5, s1 = 1/(1 + 10^(−35/400)) = 0.550199
        // LLR = (0.050199)·(1.08 − 1.050199)/(2·0.0909/50) = 0.0014960/0.003636 = 0.41143
        let t = sprt(SprtConfig::new(0.0, 35.0), &wdl, &penta);
        assert!(close(t.llr, 0.41143, 1e-4), "{}", t.llr);
        assert_eq!(t.decision, Decision::Continue);
        assert!(close(t.bounds[0], -2.944_439, 1e-5));
        assert!(close(t.bounds[1], 2.944_439, 1e-5));
    }

    #[test]
    fn perfect_scores_are_flagged() {
        let wdl = Wdl {
            wins: 10,
            draws: 0,
            losses: 0,
        };
        let s = Summary::new(&wdl, &Pentanomial([0, 0, 0, 0, 5]), None);
        assert!(s.elo_clamped);
        // s clamped to 1 − 1/20 = 0.95: elo = 400·log10(19) = 511.5
        assert!(close(s.elo, 511.5, 0.1));
        assert!(s.elo.is_finite() && s.elo_ci95.iter().all(|x| x.is_finite()));
        // 5 pairs all won: q = 1 − 0.025^(1/5) = 1 − 0.478176 = 0.521824; the lower end is
        // elo(1 − q) = −400·log10(1/0.478176 − 1) = −15.17, the upper one unbounded (+2 000).
        assert!(close(s.elo_ci95[0], -15.17, 0.01), "{:?}", s.elo_ci95);
        assert_eq!(s.elo_ci95[1], 2000.0);
        // 100 pairs all lost: q = 1 − 0.025^(1/100) = 0.0362167; elo(q) = −570.03.
        let lost = Wdl {
            wins: 0,
            draws: 0,
            losses: 200,
        };
        let s = Summary::new(&lost, &Pentanomial([100, 0, 0, 0, 0]), None);
        assert!(s.elo_clamped && s.elo < -1000.0);
        assert_eq!(s.elo_ci95[0], -2000.0);
        assert!(close(s.elo_ci95[1], -570.03, 0.01), "{:?}", s.elo_ci95);
    }

    #[test]
    fn sprt_parsing() {
        let c: SprtConfig = "0,35".parse().unwrap();
        assert_eq!((c.elo0, c.elo1), (0.0, 35.0));
        assert!(
            "35,0"
                .parse::<SprtConfig>()
                .unwrap_err()
                .contains("elo0 < elo1")
        );
        assert!(
            "x,3"
                .parse::<SprtConfig>()
                .unwrap_err()
                .contains("not a number")
        );
        assert!("10".parse::<SprtConfig>().is_err());
    }

    /// Plays simulated pairs whose games each score with win/draw/loss probabilities
    /// giving `true_elo`, until the SPRT decides; returns the decision and the pairs used.
    fn simulate(true_elo: f64, seed: u64) -> (Decision, u64) {
        let s = score_of_elo(true_elo);
        let draw = 0.3;
        let win = s - draw / 2.0;
        let mut rng = Rng::new(seed);
        let mut game = || {
            let u = rng.unit_f64();
            if u < win {
                1.0
            } else if u < win + draw {
                0.5
            } else {
                0.0
            }
        };
        let cfg = SprtConfig::new(0.0, 35.0);
        let mut wdl = Wdl::default();
        let mut penta = Pentanomial::default();
        for pair in 1..=100_000u64 {
            let (a, b) = (game(), game());
            wdl.add(a);
            wdl.add(b);
            penta.add_pair(a, b);
            let t = sprt(cfg, &wdl, &penta);
            if t.decision != Decision::Continue {
                return (t.decision, pair);
            }
        }
        (Decision::Continue, 100_000)
    }

    #[test]
    fn sprt_stops_where_expected_on_simulated_results() {
        // A clearly stronger player (+100 Elo) passes a 0,35 test, a clearly weaker one
        // (−50) fails it, both well before a fixed-length test would end; at the
        // hypotheses themselves the test decides with error rates near α = β = 0.05.
        for seed in 0..5 {
            let (d, pairs) = simulate(100.0, seed);
            assert_eq!(d, Decision::AcceptH1, "seed {seed}");
            assert!(pairs < 200, "seed {seed}: {pairs} pairs");
            let (d, pairs) = simulate(-50.0, seed);
            assert_eq!(d, Decision::AcceptH0, "seed {seed}");
            assert!(pairs < 300, "seed {seed}: {pairs} pairs");
        }
        let runs = 200;
        let false_accepts = (0..runs)
            .filter(|&seed| simulate(0.0, 1000 + seed).0 == Decision::AcceptH1)
            .count();
        let false_rejects = (0..runs)
            .filter(|&seed| simulate(35.0, 5000 + seed).0 == Decision::AcceptH0)
            .count();
        // Expected about 10 of 200 each; 25 is beyond 3.5 standard deviations.
        assert!(false_accepts <= 25, "{false_accepts} of {runs}");
        assert!(false_rejects <= 25, "{false_rejects} of {runs}");
    }
}
