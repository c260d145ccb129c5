//! Maximum-likelihood ratings of every player in a pool of games, as Ordo and BayesElo
//! compute them, anchored at one player with a fixed rating.
//!
//! The model (Bradley–Terry, logistic, draws as half a point): a game between players
//! i and j scores `s ∈ {0, ½, 1}` for i with likelihood `p^s·(1 − p)^(1−s)`,
//! `p = 1/(1 + 10^(−(r_i − r_j)/400))`. The log-likelihood of the pool is concave in the
//! ratings, and depends on them only through each matchup's games `n_ij` and i's score
//! `S_ij`; it is maximized by Newton's method with step halving, the anchor held at its
//! rating. With two players the maximum is the closed form `elo(S/n)` of one match.
//!
//! The maximum exists when the graph "i scored something against j" is strongly
//! connected. Where it is not (a player won every game it played against some group),
//! the estimate moves half a game across each such boundary, as a single match does
//! (`Summary::elo_clamped`), and the interval is one-sided on that side: a player above
//! the anchor's component gets `[low, +∞)`, below it `(−∞, high]`, both unbounded when it
//! is neither (the finite end then moves each perfect matchup to its 97.5%
//! Clopper–Pearson bound, [`perfect_score_bound`], instead of half a game).
//!
//! 95% intervals: by bootstrap over openings (default): each matchup's games are grouped
//! by opening (the two colour-swapped games of a pair, and every repeat of that
//! opening), the groups are drawn with replacement, the pool is refitted, and the 2.5%
//! and 97.5% percentiles of each rating are its interval. Grouping keeps the pairs'
//! correlation (the pentanomial model's point) and makes a repeated opening between
//! deterministic players count once. Or by the Hessian: `r ± 1.96·σ` with `σ²` the
//! diagonal of the inverse of the observed information. A bootstrap cannot see a spread
//! the sample does not show (a matchup of only draws, or of pairs all split 1–1): a player
//! whose bootstrap interval has no width gets the Hessian's instead. The anchor's rating
//! is fixed by definition; every interval is relative to it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::rating_fit::{Clamp, Edge, Fit, clamp_edges, connected, fit, reach};
use super::stats::Z95;
use oware_core::rng::Rng;

/// One opening's games of a matchup: (games, the first player's score).
type Unit = (f64, f64);
/// A matchup: the two players' indices, the lower first.
type Pair = (usize, usize);
/// The (low, high) ends of an interval.
type Ends = (f64, f64);

/// One game as the rating sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedGame {
    /// The first player (an index into the names).
    pub a: usize,
    /// The second player.
    pub b: usize,
    /// The first player's score: 1, ½ or 0.
    pub score: f64,
    /// The opening it was played from; a matchup's games with equal keys are one unit
    /// of the bootstrap.
    pub opening: String,
}

/// How the 95% intervals are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntervalMethod {
    /// Percentiles over refits of resampled openings.
    Bootstrap {
        /// Refits.
        resamples: usize,
        /// Seed of the resampling (fixed: the same pool gives the same table).
        seed: u64,
    },
    /// `±1.96·σ` from the inverse of the observed information.
    Hessian,
}

impl Default for IntervalMethod {
    fn default() -> Self {
        IntervalMethod::Bootstrap {
            resamples: 400,
            seed: 1,
        }
    }
}

/// What is known about one end of a player's rating.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    /// The anchor: its rating is fixed.
    Anchor,
    /// A two-sided interval.
    TwoSided,
    /// It won every game across some boundary upward: `[low, +∞)`.
    LowerOnly,
    /// It lost every game across some boundary downward: `(−∞, high]`.
    UpperOnly,
    /// Neither end is bounded by the games.
    Unbounded,
    /// No chain of games links it to the anchor: no rating.
    NotConnected,
}

/// One player's rating.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerRating {
    /// The player's name.
    pub player: String,
    /// The estimate (`None` when not connected to the anchor).
    pub elo: Option<f64>,
    /// Low end of the 95% interval (`None`: unbounded).
    pub elo_low: Option<f64>,
    /// High end of the 95% interval (`None`: unbounded).
    pub elo_high: Option<f64>,
    /// Games played.
    pub games: u64,
    /// Mean score per game over them.
    pub score: f64,
    /// Which ends the games bound.
    pub bound: Bound,
}

/// The games between two players.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Matchup {
    /// The first player's name.
    pub a: String,
    /// The second.
    pub b: String,
    /// Games played.
    pub games: u64,
    /// The first player's total score.
    pub score: f64,
    /// Distinct openings among them.
    pub openings: u64,
}

/// The ratings of a pool.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingTable {
    /// Every player, best first (the unconnected last).
    pub players: Vec<PlayerRating>,
    /// Every pair of players that met.
    pub matchups: Vec<Matchup>,
    /// The anchor and its rating.
    pub anchor: (String, f64),
    /// How the intervals were computed.
    pub interval: IntervalMethod,
    /// What the reader should know (repeated openings, unconnected players).
    pub warnings: Vec<String>,
}

/// A rating that could not be computed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RatingError(pub String);

/// The value at fraction `q` of sorted `v` (nearest rank).
fn percentile(v: &[f64], q: f64) -> f64 {
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i]
}

/// Rates every player of `games` (indices into `names`), with `names[anchor]` held at
/// `anchor_elo`.
pub fn rate(
    names: &[String],
    games: &[RatedGame],
    anchor: usize,
    anchor_elo: f64,
    interval: IntervalMethod,
) -> Result<RatingTable, RatingError> {
    let n = names.len();
    if anchor >= n {
        return Err(RatingError("the anchor is not among the players".into()));
    }
    if !anchor_elo.is_finite() {
        return Err(RatingError(format!(
            "the anchor's rating {anchor_elo} is not a number"
        )));
    }
    let (groups, played) = OpeningGroups::new(n, games, anchor, anchor_elo)?;
    if played[anchor].0 == 0 {
        return Err(RatingError(format!(
            "the anchor `{}` has played no game in the pool",
            names[anchor]
        )));
    }
    let edges = groups.edges(&mut |u| sum_units(u));
    let links = Links::new(n, &edges, anchor);
    let point = groups.fit(&edges, Clamp::HalfGame);
    let pessimistic = links
        .one_sided()
        .then(|| groups.fit(&edges, Clamp::ClopperPearson));
    let intervals = match interval {
        IntervalMethod::Hessian => Intervals::hessian(n, &point, pessimistic.as_ref()),
        IntervalMethod::Bootstrap { resamples, seed } => {
            groups.bootstrap(resamples, seed, &links, &point)
        }
    };
    let players = player_ratings(names, &played, &links, &point, &intervals, anchor_elo);
    let matchups = groups.matchups(names);
    let warnings = warnings(&matchups, &players, &names[anchor]);
    Ok(RatingTable {
        players,
        matchups,
        anchor: (names[anchor].clone(), anchor_elo),
        interval,
        warnings,
    })
}

/// Each player's games and total score.
type Played = (u64, f64);

/// The games of a pool as the fits see them: each matchup's games grouped by opening.
struct OpeningGroups {
    /// Players.
    n: usize,
    anchor: usize,
    anchor_elo: f64,
    /// Each matchup's groups: (games, first player's score) per opening.
    units: Vec<(Pair, Vec<Unit>)>,
}

impl OpeningGroups {
    /// Groups `games` (checked) by matchup and opening; also returns what each player
    /// played and scored.
    fn new(
        n: usize,
        games: &[RatedGame],
        anchor: usize,
        anchor_elo: f64,
    ) -> Result<(OpeningGroups, Vec<Played>), RatingError> {
        let mut by_opening: BTreeMap<Pair, BTreeMap<&str, Unit>> = BTreeMap::new();
        let mut played = vec![(0u64, 0.0f64); n];
        for g in games {
            if g.a >= n || g.b >= n || g.a == g.b {
                return Err(RatingError(format!(
                    "a game between players {} and {} (of {n})",
                    g.a, g.b
                )));
            }
            if ![0.0, 0.5, 1.0].contains(&g.score) {
                return Err(RatingError(format!("a game scored {}", g.score)));
            }
            let (a, b, s) = if g.a < g.b {
                (g.a, g.b, g.score)
            } else {
                (g.b, g.a, 1.0 - g.score)
            };
            let u = by_opening
                .entry((a, b))
                .or_default()
                .entry(&g.opening)
                .or_default();
            u.0 += 1.0;
            u.1 += s;
            played[g.a].0 += 1;
            played[g.a].1 += g.score;
            played[g.b].0 += 1;
            played[g.b].1 += 1.0 - g.score;
        }
        let units = by_opening
            .iter()
            .map(|(&k, u)| (k, u.values().copied().collect()))
            .collect();
        let groups = OpeningGroups {
            n,
            anchor,
            anchor_elo,
            units,
        };
        Ok((groups, played))
    }

    /// One edge per matchup, its games and score those `pick` takes from its groups.
    fn edges(&self, pick: &mut dyn FnMut(&[Unit]) -> Unit) -> Vec<Edge> {
        self.units
            .iter()
            .map(|&((a, b), ref u)| {
                let (n, s) = pick(u);
                Edge {
                    a,
                    b,
                    n,
                    s,
                    units: u.len() as u64,
                }
            })
            .collect()
    }

    /// The maximum-likelihood fit of `edges`, perfect matchups moved by `clamp`.
    fn fit(&self, edges: &[Edge], clamp: Clamp) -> Fit {
        fit(
            self.n,
            &clamp_edges(self.n, edges, clamp),
            self.anchor,
            self.anchor_elo,
        )
    }

    /// Bootstrap intervals: each rating's percentiles over `resamples` refits of the
    /// groups drawn with replacement (and of the pessimistic fit where some interval is
    /// one-sided); a player whose interval has no width gets the Hessian's of `point`.
    fn bootstrap(&self, resamples: usize, seed: u64, links: &Links, point: &Fit) -> Intervals {
        let (n, one_sided) = (self.n, links.one_sided());
        let mut rng = Rng::new(seed);
        let mut samples = vec![Vec::with_capacity(resamples); n];
        let mut samples_p = vec![Vec::with_capacity(resamples); n];
        for _ in 0..resamples.max(1) {
            let drawn = self.edges(&mut |u| {
                (0..u.len()).fold((0.0, 0.0), |t, _| {
                    let x = u[rng.below(u.len() as u32) as usize];
                    (t.0 + x.0, t.1 + x.1)
                })
            });
            let f = self.fit(&drawn, Clamp::HalfGame);
            for i in 0..n {
                samples[i].push(f.elo[i]);
            }
            if one_sided {
                let f = self.fit(&drawn, Clamp::ClopperPearson);
                for i in 0..n {
                    samples_p[i].push(f.elo[i]);
                }
            }
        }
        let mut ends: Vec<Ends> = samples.iter_mut().map(|s| percentile_ends(s)).collect();
        for (i, x) in ends.iter_mut().enumerate() {
            if i != self.anchor && links.conn[i] && x.1 - x.0 < 1e-6 {
                *x = hessian_ends(point, i);
            }
        }
        Intervals {
            ends,
            pessimistic: samples_p.iter_mut().map(|s| percentile_ends(s)).collect(),
        }
    }

    /// Every matchup's totals.
    fn matchups(&self, names: &[String]) -> Vec<Matchup> {
        self.units
            .iter()
            .map(|&((a, b), ref u)| {
                let (games, score) = sum_units(u);
                Matchup {
                    a: names[a].clone(),
                    b: names[b].clone(),
                    games: games as u64,
                    score,
                    openings: u.len() as u64,
                }
            })
            .collect()
    }
}

/// The total games and score of `u`.
fn sum_units(u: &[Unit]) -> Unit {
    u.iter().fold((0.0, 0.0), |t, x| (t.0 + x.0, t.1 + x.1))
}

/// How each player is linked to the anchor by the results (over all the games).
struct Links {
    anchor: usize,
    /// Linked by games at all.
    conn: Vec<bool>,
    /// `reach[i][j]`: a chain of "scored something against" leads from i to j.
    reach: Vec<Vec<bool>>,
}

impl Links {
    fn new(n: usize, edges: &[Edge], anchor: usize) -> Links {
        Links {
            anchor,
            conn: connected(n, edges, anchor),
            reach: reach(n, edges),
        }
    }

    /// Which ends of player `i`'s rating the games bound.
    fn bound(&self, i: usize) -> Bound {
        let anchor = self.anchor;
        if i == anchor {
            Bound::Anchor
        } else if !self.conn[i] {
            Bound::NotConnected
        } else {
            match (self.reach[i][anchor], self.reach[anchor][i]) {
                (true, true) => Bound::TwoSided,
                (true, false) => Bound::LowerOnly,
                (false, true) => Bound::UpperOnly,
                (false, false) => Bound::Unbounded,
            }
        }
    }

    /// Whether some player's interval is one-sided (a pessimistic fit is then needed).
    fn one_sided(&self) -> bool {
        (0..self.conn.len()).any(|i| matches!(self.bound(i), Bound::LowerOnly | Bound::UpperOnly))
    }
}

/// [low, high] of each player's rating: of the estimate, and of the pessimistic fit
/// (the finite end of a one-sided interval).
struct Intervals {
    ends: Vec<Ends>,
    pessimistic: Vec<Ends>,
}

impl Intervals {
    /// `r ± 1.96·σ` of `point` and of `pessimistic` (NaN without it).
    fn hessian(n: usize, point: &Fit, pessimistic: Option<&Fit>) -> Intervals {
        Intervals {
            ends: (0..n).map(|i| hessian_ends(point, i)).collect(),
            pessimistic: (0..n)
                .map(|i| pessimistic.map_or((f64::NAN, f64::NAN), |f| hessian_ends(f, i)))
                .collect(),
        }
    }
}

/// `r ± 1.96·σ` of player `i` in `f`.
fn hessian_ends(f: &Fit, i: usize) -> Ends {
    let h = Z95 * f.var[i].sqrt();
    (f.elo[i] - h, f.elo[i] + h)
}

/// The 2.5% and 97.5% percentiles of bootstrap samples `s` (sorted here); NaN if there
/// are none or any is NaN.
fn percentile_ends(s: &mut [f64]) -> Ends {
    if s.is_empty() || s.iter().any(|x| x.is_nan()) {
        return (f64::NAN, f64::NAN);
    }
    s.sort_by(f64::total_cmp);
    (percentile(s, 0.025), percentile(s, 0.975))
}

/// Every player that played, best first (the unconnected last).
fn player_ratings(
    names: &[String],
    played: &[Played],
    links: &Links,
    point: &Fit,
    intervals: &Intervals,
    anchor_elo: f64,
) -> Vec<PlayerRating> {
    let (ends, ends_pessimistic) = (&intervals.ends, &intervals.pessimistic);
    let mut players: Vec<PlayerRating> = (0..names.len())
        .map(|i| {
            let b = links.bound(i);
            let (low, high) = match b {
                Bound::Anchor => (Some(anchor_elo), Some(anchor_elo)),
                Bound::TwoSided => (Some(ends[i].0), Some(ends[i].1)),
                Bound::LowerOnly => (Some(ends_pessimistic[i].0.min(point.elo[i])), None),
                Bound::UpperOnly => (None, Some(ends_pessimistic[i].1.max(point.elo[i]))),
                Bound::Unbounded | Bound::NotConnected => (None, None),
            };
            PlayerRating {
                player: names[i].clone(),
                elo: links.conn[i].then_some(point.elo[i]),
                elo_low: low,
                elo_high: high,
                games: played[i].0,
                score: if played[i].0 > 0 {
                    played[i].1 / played[i].0 as f64
                } else {
                    0.0
                },
                bound: b,
            }
        })
        .filter(|p| p.games > 0)
        .collect();
    players.sort_by(|x, y| {
        y.elo
            .unwrap_or(f64::NEG_INFINITY)
            .total_cmp(&x.elo.unwrap_or(f64::NEG_INFINITY))
    });
    players
}

/// What the reader should know: matchups with repeated openings, unconnected players.
fn warnings(matchups: &[Matchup], players: &[PlayerRating], anchor: &str) -> Vec<String> {
    let mut warnings = Vec::new();
    for m in matchups {
        if m.games > 2 * m.openings {
            warnings.push(format!(
                "{} vs {}: {} games from {} distinct openings; between deterministic players a \
                 repeated opening replays the same games, so each opening counts once in the \
                 intervals",
                m.a, m.b, m.games, m.openings
            ));
        }
    }
    for p in players {
        if p.bound == Bound::NotConnected {
            warnings.push(format!(
                "{}: no chain of games links it to the anchor {anchor}; it has no rating",
                p.player
            ));
        }
    }
    warnings
}

impl RatingTable {
    /// The rating of `player`, if it is in the table.
    pub fn get(&self, player: &str) -> Option<&PlayerRating> {
        self.players.iter().find(|p| p.player == player)
    }

    /// The table as text: one line per player, best first.
    pub fn text(&self) -> String {
        let w = self
            .players
            .iter()
            .map(|p| p.player.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let mut t = format!(
            "{:<w$}  {:>7}  {:>17}  {:>6}  {:>5}\n",
            "player", "Elo", "95% interval", "games", "score"
        );
        let end = |x: Option<f64>, inf: &str| x.map_or(inf.to_string(), |v| format!("{v:+.0}"));
        for p in &self.players {
            let elo = p.elo.map_or("-".into(), |e| format!("{e:+.0}"));
            let ci = match p.bound {
                Bound::Anchor => "(anchor)".to_string(),
                Bound::NotConnected => "(not connected)".to_string(),
                _ => format!("[{}, {}]", end(p.elo_low, "-inf"), end(p.elo_high, "+inf")),
            };
            t += &format!(
                "{:<w$}  {elo:>7}  {ci:>17}  {:>6}  {:>5.3}\n",
                p.player, p.games, p.score
            );
        }
        let method = match self.interval {
            IntervalMethod::Bootstrap { resamples, .. } => {
                format!("bootstrap over openings, {resamples} resamples")
            }
            IntervalMethod::Hessian => "Hessian".into(),
        };
        t += &format!(
            "anchor {} = {:+.0}; maximum likelihood (Bradley-Terry, draws half a point); \
             95% intervals: {method}\n",
            self.anchor.0, self.anchor.1
        );
        t
    }

    /// The table as JSON: a list of `{player, elo, elo_low, elo_high, games, score,
    /// bound}` (an unbounded end is `null`).
    pub fn json(&self) -> serde_json::Value {
        serde_json::to_value(&self.players).expect("ratings serialize")
    }
}

#[cfg(test)]
mod tests {
    use super::super::rating_fit::K;
    use super::super::stats::{elo_of_score, perfect_score_bound, score_of_elo};
    use super::*;

    fn names(k: usize) -> Vec<String> {
        (0..k).map(|i| format!("p{i}")).collect()
    }

    /// `pairs` colour-swapped pairs between a and b, each from its own opening, with a's
    /// per-pair scores in turn from `pair_scores` (each the sum of two games: 0..=2 in
    /// halves).
    fn pairs(a: usize, b: usize, tag: &str, pair_scores: &[f64]) -> Vec<RatedGame> {
        let mut out = Vec::new();
        for (k, &s) in pair_scores.iter().enumerate() {
            let split = [(0.0, 0.0), (0.5, 0.0), (1.0, 0.0), (1.0, 0.5), (1.0, 1.0)];
            let (x, y) = split[(s * 2.0) as usize];
            assert_eq!(x + y, s);
            for v in [x, y] {
                out.push(RatedGame {
                    a,
                    b,
                    score: v,
                    opening: format!("{tag}{k}"),
                });
            }
        }
        out
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    fn elo(t: &RatingTable, p: &str) -> f64 {
        t.get(p).unwrap().elo.unwrap()
    }

    #[test]
    fn two_players_give_the_closed_form_of_the_score() {
        // 30 pairs: 14 won 2-0, 6 split 1-1 (1.0), 10 at 1.5 → a scores 49 of 60.
        let scores: Vec<f64> = [vec![2.0; 14], vec![1.0; 6], vec![1.5; 10]].concat();
        let g = pairs(0, 1, "o", &scores);
        let total: f64 = g.iter().map(|x| x.score).sum();
        assert_eq!(total, 14.0 * 2.0 + 6.0 + 15.0);
        let t = rate(&names(2), &g, 1, 100.0, IntervalMethod::Hessian).unwrap();
        let want = 100.0 + elo_of_score(total / 60.0);
        assert!(
            close(elo(&t, "p0"), want, 1e-6),
            "{} vs {want}",
            elo(&t, "p0")
        );
        assert_eq!(elo(&t, "p1"), 100.0);
        // The Hessian of one match is the binomial one: σ(d) = 1/(K·√(n·p·(1−p))).
        let p = total / 60.0;
        let se = 1.0 / (K * (60.0 * p * (1.0 - p)).sqrt());
        let r = t.get("p0").unwrap();
        assert!(close(r.elo_low.unwrap(), want - Z95 * se, 1e-4));
        assert!(close(r.elo_high.unwrap(), want + Z95 * se, 1e-4));
        assert_eq!(r.bound, Bound::TwoSided);
    }

    #[test]
    fn a_chain_of_matches_adds_up() {
        // No game between p0 and p2: the likelihood splits into two one-match terms, so
        // each difference is its own match's closed form.
        let mut g = pairs(0, 1, "a", &[2.0, 1.0, 1.5, 0.5, 1.0, 2.0]); // p0 scores 8/12
        g.extend(pairs(2, 1, "b", &[0.0, 1.0, 0.5, 1.0])); // p2 scores 2.5/8
        let t = rate(&names(3), &g, 1, 0.0, IntervalMethod::Hessian).unwrap();
        assert!(close(elo(&t, "p0"), elo_of_score(8.0 / 12.0), 1e-6));
        assert!(close(elo(&t, "p2"), elo_of_score(2.5 / 8.0), 1e-6));
    }

    #[test]
    fn a_consistent_triangle_is_solved_exactly() {
        // p1 − p0 = p2 − p1 = 400·log10(3) (score ¾ each), and p2 − p0 = 400·log10(9)
        // (score 0.9): the observed scores are the model's own, so the maximum is there.
        let d = 400.0 * 3f64.log10();
        assert!(close(score_of_elo(d), 0.75, 1e-12));
        assert!(close(score_of_elo(2.0 * d), 0.9, 1e-12));
        let mut g = pairs(1, 0, "a", &[2.0, 1.0]); // 3 of 4
        g.extend(pairs(2, 1, "b", &[2.0, 1.0]));
        g.extend(pairs(2, 0, "c", &[2.0, 2.0, 2.0, 2.0, 1.0])); // 9 of 10
        let t = rate(&names(3), &g, 0, 0.0, IntervalMethod::Hessian).unwrap();
        assert!(close(elo(&t, "p1"), d, 1e-6), "{}", elo(&t, "p1"));
        assert!(close(elo(&t, "p2"), 2.0 * d, 1e-6), "{}", elo(&t, "p2"));
    }

    #[test]
    fn the_maximum_matches_a_brute_force_grid_search() {
        // Four players, uneven matchups, no closed form: search the likelihood on a grid.
        let mut g = pairs(0, 1, "a", &[2.0, 1.5, 1.0, 0.5, 2.0, 1.0, 1.5]);
        g.extend(pairs(1, 2, "b", &[1.0, 0.5, 0.0, 1.5, 0.5]));
        g.extend(pairs(0, 2, "c", &[1.0, 1.0, 0.5]));
        g.extend(pairs(3, 2, "d", &[2.0, 1.5, 2.0, 1.0]));
        g.extend(pairs(3, 0, "e", &[0.5, 1.5]));
        let t = rate(&names(4), &g, 0, 0.0, IntervalMethod::Hessian).unwrap();
        // The log-likelihood straight from the games.
        let ll = |r: [f64; 4]| -> f64 {
            g.iter()
                .map(|x| {
                    let p = score_of_elo(r[x.a] - r[x.b]);
                    x.score * p.ln() + (1.0 - x.score) * (1.0 - p).ln()
                })
                .sum()
        };
        let mut best = (f64::NEG_INFINITY, [0.0; 4]);
        let mut centre = [0.0; 4];
        for (step, span) in [(20.0, 30), (2.0, 15), (0.2, 15), (0.02, 15)] {
            let c = centre;
            for i in -span..=span {
                for j in -span..=span {
                    for k in -span..=span {
                        let r = [
                            0.0,
                            c[1] + i as f64 * step,
                            c[2] + j as f64 * step,
                            c[3] + k as f64 * step,
                        ];
                        let l = ll(r);
                        if l > best.0 {
                            best = (l, r);
                        }
                    }
                }
            }
            centre = best.1;
        }
        for (i, p) in ["p0", "p1", "p2", "p3"].iter().enumerate() {
            assert!(
                close(elo(&t, p), best.1[i], 0.05),
                "{p}: {} vs grid {}",
                elo(&t, p),
                best.1[i]
            );
        }
    }

    #[test]
    fn the_anchor_shifts_every_rating_and_nothing_else() {
        let mut g = pairs(0, 1, "a", &[2.0, 1.5, 1.0, 0.5]);
        g.extend(pairs(1, 2, "b", &[1.0, 0.5, 1.5, 2.0]));
        let m = IntervalMethod::default();
        let a = rate(&names(3), &g, 0, 0.0, m).unwrap();
        let b = rate(&names(3), &g, 2, 500.0, m).unwrap();
        let shift = elo(&b, "p0") - elo(&a, "p0");
        assert!(close(elo(&b, "p2"), 500.0, 1e-9));
        for p in ["p0", "p1", "p2"] {
            assert!(close(elo(&b, p) - elo(&a, p), shift, 1e-6), "{p}");
        }
        let e = rate(&names(4), &g, 3, 0.0, m).unwrap_err();
        assert!(e.0.contains("p3") && e.0.contains("no game"), "{e}");
    }

    #[test]
    fn bootstrap_intervals_contain_the_estimate_and_narrow_with_more_games() {
        let one = [2.0, 1.5, 1.0, 0.5, 1.0, 1.5, 2.0, 0.0, 1.0, 1.5];
        let width = |reps: usize| {
            let s: Vec<f64> = one.iter().copied().cycle().take(one.len() * reps).collect();
            let t = rate(
                &names(2),
                &pairs(0, 1, "o", &s),
                1,
                0.0,
                IntervalMethod::default(),
            )
            .unwrap();
            let r = t.get("p0").unwrap().clone();
            assert!(r.elo_low.unwrap() < r.elo.unwrap() && r.elo.unwrap() < r.elo_high.unwrap());
            r.elo_high.unwrap() - r.elo_low.unwrap()
        };
        let (w1, w4) = (width(1), width(4));
        // Four times the openings: about half the width.
        assert!(w4 < 0.7 * w1 && w4 > 0.3 * w1, "{w1} {w4}");
        // The same games, twice over from the same openings, are no more informative.
        let s: Vec<f64> = one.to_vec();
        let mut g = pairs(0, 1, "o", &s);
        g.extend(pairs(0, 1, "o", &s));
        let t = rate(&names(2), &g, 1, 0.0, IntervalMethod::default()).unwrap();
        let r = t.get("p0").unwrap();
        assert!(close(
            r.elo_high.unwrap() - r.elo_low.unwrap(),
            w1,
            0.15 * w1
        ));
        assert_eq!(t.warnings.len(), 1, "{:?}", t.warnings);
        assert!(t.warnings[0].contains("40 games from 10 distinct openings"));
    }

    #[test]
    fn zero_variance_results_get_one_sided_or_nonzero_intervals() {
        // p1 won every game against p0 (the anchor): above, [low, +inf).
        let g = pairs(1, 0, "a", &[2.0; 20]);
        for m in [IntervalMethod::default(), IntervalMethod::Hessian] {
            let t = rate(&names(2), &g, 0, 0.0, m).unwrap();
            let r = t.get("p1").unwrap();
            assert_eq!(r.bound, Bound::LowerOnly);
            assert_eq!(r.elo_high, None);
            // Half a game moved: 39.5 of 40.
            assert!(close(r.elo.unwrap(), elo_of_score(39.5 / 40.0), 1e-6));
            let low = r.elo_low.unwrap();
            // At most the Clopper–Pearson bound of 20 won pairs.
            let q = perfect_score_bound(20);
            assert!(low <= elo_of_score(1.0 - q) + 1e-6, "{low}");
            assert!(low > 0.0 && low < r.elo.unwrap());
        }
        // Seen from the winner as anchor, the loser is bounded above only.
        let t = rate(&names(2), &g, 1, 0.0, IntervalMethod::default()).unwrap();
        let r = t.get("p0").unwrap();
        assert_eq!((r.bound, r.elo_low), (Bound::UpperOnly, None));
        assert!(r.elo_high.unwrap() < 0.0);
        // Every pair split 1–1: the bootstrap sees no spread, the interval is not empty.
        let t = rate(
            &names(2),
            &pairs(0, 1, "s", &[1.0; 12]),
            1,
            0.0,
            IntervalMethod::default(),
        )
        .unwrap();
        let r = t.get("p0").unwrap();
        assert!(close(r.elo.unwrap(), 0.0, 1e-9));
        assert!(
            r.elo_low.unwrap() < -50.0 && r.elo_high.unwrap() > 50.0,
            "{r:?}"
        );
    }

    #[test]
    fn unconnected_players_get_no_rating_and_a_warning() {
        let mut g = pairs(0, 1, "a", &[1.0, 1.5]);
        g.extend(pairs(2, 3, "b", &[1.0, 1.5]));
        let t = rate(&names(4), &g, 0, 0.0, IntervalMethod::default()).unwrap();
        let r = t.get("p3").unwrap();
        assert_eq!((r.elo, r.bound), (None, Bound::NotConnected));
        assert_eq!(t.warnings.len(), 2);
        assert!(t.text().contains("(not connected)"));
        let j = t.json();
        assert_eq!(j.as_array().unwrap().len(), 4);
        assert!(j[0]["elo_low"].is_number() && j[3]["elo"].is_null());
    }
}
