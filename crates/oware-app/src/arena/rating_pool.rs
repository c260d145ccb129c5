//! A rating pool: a file of games between named players, one JSON object per line, from
//! which [`rating`](super::rating) recomputes every rating on demand.
//!
//! Each line is a game record of `oware eval --out` (its `#` JSON) with the game itself
//! and the match it came from:
//!
//! ```text
//! {"match":"…","game":0,"pair":0,"south":"alphabeta:depth=2","north":"random",
//!  "rules":"abapa","opening_plies":4,"winner":"S","reason":"…","stores":[30,18],
//!  "record":"4-4-4-4-4-4-4-4-4-4-4-4-0-0-S;FfBe…"}
//! ```
//!
//! `south`, `north`, `winner` (`S`, `N` or `draw`), `rules`, `record` (`FEN;moves`, what
//! `oware replay` reads) and `opening_plies` are required; the rest is for people. The
//! opening of a game is the position after its first `opening_plies` moves. New games are
//! appended by rewriting the whole file to a temporary name and renaming it, so a pool is
//! never left with half a match; a damaged line is an error naming the line.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde_json::json;

use super::r#match::run_match_with;
use super::match_config::MatchConfig;
use super::openings::{Openings, random_openings};
use super::player::Player;
use super::rating::{IntervalMethod, RatedGame, RatingError, RatingTable, rate};
use super::record::{MatchProgress, MatchReport};
use oware_core::game::{Game, Position, RuleSet};

/// One game of a pool.
#[derive(Clone, Debug, PartialEq)]
pub struct PoolGame {
    /// South's name.
    pub south: String,
    /// North's name.
    pub north: String,
    /// South's score: 1, ½ or 0.
    pub south_score: f64,
    /// The rule set's name.
    pub rules: String,
    /// The position after the opening (FEN): games of a matchup from equal openings are
    /// one unit of the bootstrap.
    pub opening: String,
}

impl PoolGame {
    /// Whether this game is between `x` and `y` (either colours).
    pub fn between(&self, x: &str, y: &str) -> bool {
        (self.south == x && self.north == y) || (self.south == y && self.north == x)
    }
}

/// The pool's lines for a match's games: `player` and `opponent` as the report names
/// them (or as given, e.g. a checkpoint's name in a training run).
pub fn match_lines(
    report: &MatchReport,
    player: &str,
    opponent: &str,
    rules: RuleSet,
    match_id: &str,
) -> String {
    let mut s = String::new();
    for g in &report.games {
        let mut v = json!({ "match": match_id });
        let r = g.result_json(player, opponent);
        if let (Some(o), Some(r)) = (v.as_object_mut(), r.as_object()) {
            o.extend(r.clone());
            o.insert("rules".into(), rules.name().into());
            o.insert("record".into(), g.replay_line().into());
        }
        s += &v.to_string();
        s.push('\n');
    }
    s
}

/// Parses one line of a pool file (one JSON game record).
pub fn parse_line(line: &str) -> Result<PoolGame, String> {
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("not a JSON game record ({e})"))?;
    let text = |k: &str| -> Result<String, String> {
        v[k].as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("no `{k}` text"))
    };
    let (south, north) = (text("south")?, text("north")?);
    if south == north {
        return Err(format!("`{south}` plays itself"));
    }
    let south_score = match text("winner")?.as_str() {
        "S" => 1.0,
        "N" => 0.0,
        "draw" => 0.5,
        w => return Err(format!("winner `{w}` is not S, N or draw")),
    };
    let rules_name = text("rules")?;
    let rules: RuleSet = rules_name
        .parse()
        .map_err(|e| format!("rules `{rules_name}`: {e}"))?;
    let record = text("record")?;
    let plies = v["opening_plies"]
        .as_u64()
        .ok_or("no `opening_plies` number")? as usize;
    let (fen, moves) = record.split_once(';').ok_or("`record` is not FEN;moves")?;
    let start: Position = fen.parse().map_err(|e| format!("record: {e}"))?;
    let opening: String = moves.chars().take(plies).collect();
    if opening.chars().count() < plies {
        return Err(format!("record has fewer than {plies} moves"));
    }
    let mut g = Game::new(rules, start);
    g.play_text(&opening)
        .map_err(|e| format!("record's opening: {e}"))?;
    Ok(PoolGame {
        south,
        north,
        south_score,
        rules: rules_name,
        opening: g.position().to_string(),
    })
}

/// Reads a pool (an absent file is an empty pool). Every game must be played under the
/// same rules; an error names the line.
pub fn read_pool(path: &Path) -> Result<Vec<PoolGame>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let mut games: Vec<PoolGame> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let g = parse_line(line)
            .map_err(|e| anyhow::anyhow!("{} line {}: {e}", path.display(), i + 1))?;
        if let Some(first) = games.first()
            && first.rules != g.rules
        {
            bail!(
                "{} line {}: rules {}, but the pool's games are played under {}",
                path.display(),
                i + 1,
                g.rules,
                first.rules
            );
        }
        games.push(g);
    }
    Ok(games)
}

/// Appends `lines` (whole lines, each ending in a newline) to the pool: the old content
/// and the new are written to a temporary file that is renamed over the pool.
pub fn append(path: &Path, lines: &str) -> Result<()> {
    let mut bytes = if path.exists() {
        std::fs::read(path).with_context(|| format!("reading {}", path.display()))?
    } else {
        Vec::new()
    };
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(lines.as_bytes());
    oware_core::files::atomic_write(path, &bytes)
}

/// Removes every game of `player` from the pool file (rewritten atomically) and from
/// `pool`; returns how many were removed. A training run uses it for the games of a
/// checkpoint that a killed session evaluated but never committed: the name is reused
/// by the network that replaces it.
pub fn drop_player(path: &Path, pool: &mut Vec<PoolGame>, player: &str) -> Result<usize> {
    let before = pool.len();
    pool.retain(|g| g.south != player && g.north != player);
    if pool.len() == before {
        return Ok(0);
    }
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let kept: String = text
        .lines()
        .filter(|l| {
            parse_line(l).map_or(!l.trim().is_empty(), |g| {
                g.south != player && g.north != player
            })
        })
        .map(|l| format!("{l}\n"))
        .collect();
    oware_core::files::atomic_write(path, kept.as_bytes())?;
    Ok(before - pool.len())
}

/// The players of a pool, in order of first appearance.
pub fn players(games: &[PoolGame]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for g in games {
        for p in [&g.south, &g.north] {
            if seen.insert(p.clone()) {
                out.push(p.clone());
            }
        }
    }
    out
}

/// Rates every player of the pool with `anchor` held at `anchor_elo`.
pub fn rate_pool(
    games: &[PoolGame],
    anchor: &str,
    anchor_elo: f64,
    interval: IntervalMethod,
) -> Result<RatingTable, RatingError> {
    let names = players(games);
    let index = |p: &str| names.iter().position(|n| n == p);
    let a = index(anchor).ok_or_else(|| {
        RatingError(format!(
            "the anchor `{anchor}` has played no game in the pool (its players: {})",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ))
    })?;
    let rated: Vec<RatedGame> = games
        .iter()
        .map(|g| RatedGame {
            a: index(&g.south).expect("listed"),
            b: index(&g.north).expect("listed"),
            score: g.south_score,
            opening: g.opening.clone(),
        })
        .collect();
    rate(&names, &rated, a, anchor_elo, interval)
}

/// Plays `a` against `b` until the pool holds `games` games between them (rounded up to
/// whole pairs), appends the new games to the pool file at `path` and to `pool`, and
/// returns the match (`None` when nothing was missing). The openings are the first pairs
/// of `random_openings(rules, plies, pairs, seed)`, those already played skipped, so a
/// killed command resumes where it stopped and never repeats an opening.
#[allow(clippy::too_many_arguments)]
pub fn top_up(
    path: &Path,
    pool: &mut Vec<PoolGame>,
    (a_name, a): (&str, &mut Player),
    (b_name, b): (&str, &mut Player),
    games: usize,
    plies: u32,
    base: &MatchConfig,
    match_id: &str,
    progress: &mut dyn FnMut(&MatchProgress),
) -> Result<Option<MatchReport>> {
    let pairs = games.div_ceil(2);
    let done = pool.iter().filter(|g| g.between(a_name, b_name)).count() / 2;
    if done >= pairs {
        return Ok(None);
    }
    let openings = random_openings(base.rules, plies, pairs, base.seed);
    let cfg = MatchConfig {
        games: 2 * (pairs - done),
        openings: Openings::List(openings[done..].to_vec()),
        ..base.clone()
    };
    let report = run_match_with(&cfg, a, b, progress)?;
    let lines = match_lines(&report, a_name, b_name, base.rules, match_id);
    append(path, &lines)?;
    for l in lines.lines() {
        pool.push(parse_line(l).map_err(|e| anyhow::anyhow!("a game just played: {e}"))?);
    }
    Ok(Some(report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::{MatchConfig, Player, PlayerSpec, run_match};

    fn report(games: usize, seed: u64) -> MatchReport {
        let p = |s: &str| {
            Player::from_spec(&s.parse::<PlayerSpec>().unwrap(), RuleSet::default(), 1).unwrap()
        };
        let cfg = MatchConfig {
            games,
            seed,
            ..MatchConfig::default()
        };
        run_match(&cfg, &mut p("alphabeta:depth=2"), &mut p("random")).unwrap()
    }

    #[test]
    fn games_round_trip_and_append_keeps_what_was_there() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("pool.jsonl");
        assert!(read_pool(&path).unwrap().is_empty());
        let r = report(6, 3);
        let rules = RuleSet::default();
        append(&path, &match_lines(&r, "ab2", "rnd", rules, "m1")).unwrap();
        append(&path, &match_lines(&r, "rnd", "ab2", rules, "m2")).unwrap();
        let games = read_pool(&path).unwrap();
        assert_eq!(games.len(), 12);
        assert_eq!(players(&games), vec!["ab2", "rnd"]);
        for (g, rec) in games.iter().zip(&r.games) {
            assert!(g.between("rnd", "ab2"));
            let player_south = rec.player_side == oware_core::game::Side::South;
            let want = if player_south {
                rec.score
            } else {
                1.0 - rec.score
            };
            assert_eq!(g.south_score, want);
            assert_eq!(g.south == "ab2", player_south);
        }
        // The colour-swapped games of a pair share their opening; pairs differ.
        assert_eq!(games[0].opening, games[1].opening);
        assert_ne!(games[0].opening, games[2].opening);
        // The pool is rated from the games: two players, one closed form.
        let t = rate_pool(&games, "rnd", 0.0, IntervalMethod::Hessian).unwrap();
        assert_eq!(t.get("rnd").unwrap().elo, Some(0.0));
        assert_eq!(t.get("ab2").unwrap().games, 12);
        let e = rate_pool(&games, "nobody", 0.0, IntervalMethod::Hessian).unwrap_err();
        assert!(e.0.contains("`nobody` has played no game"), "{e}");
    }

    #[test]
    fn damaged_lines_are_errors_that_name_the_line() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("pool.jsonl");
        let good = match_lines(&report(2, 1), "a", "b", RuleSet::default(), "m");
        let first = good.lines().next().unwrap().to_string();
        let cases: Vec<(String, &str)> = vec![
            ("{\"south\":".into(), "not a JSON game record"),
            (first.replace("\"winner\":", "\"winnr\":"), "no `winner`"),
            (
                first.replace("\"rules\":\"abapa\"", "\"rules\":\"chess\""),
                "rules `chess`",
            ),
            (
                first.replace("\"north\":\"b\"", "\"north\":\"a\""),
                "plays itself",
            ),
            (first.replace("\"record\":\"", "\"record\":\"x"), "record"),
        ];
        for (bad, want) in &cases {
            std::fs::write(&path, format!("{first}\n\n{bad}\n")).unwrap();
            let e = format!("{:#}", read_pool(&path).unwrap_err());
            assert!(e.contains("line 3:") && e.contains(*want), "{e}");
        }
        let awari = match_lines(&report(2, 1), "a", "b", RuleSet::default(), "m")
            .replace("\"rules\":\"abapa\"", "\"rules\":\"awari\"");
        std::fs::write(&path, format!("{good}{awari}")).unwrap();
        let e = format!("{:#}", read_pool(&path).unwrap_err());
        assert!(e.contains("line 3: rules awari"), "{e}");
        // A pool whose last line lost its newline gets new games on a line of their own.
        std::fs::write(&path, &good[..good.len() - 1]).unwrap();
        append(&path, &good).unwrap();
        assert_eq!(read_pool(&path).unwrap().len(), 4);
    }
    #[test]
    fn top_up_plays_only_what_is_missing_with_new_openings() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("pool.jsonl");
        let p = |s: &str| {
            Player::from_spec(&s.parse::<PlayerSpec>().unwrap(), RuleSet::default(), 1).unwrap()
        };
        let (mut a, mut b) = (p("alphabeta:depth=1"), p("random"));
        let base = MatchConfig {
            seed: 5,
            ..MatchConfig::default()
        };
        let mut pool = Vec::new();
        let mut play = |pool: &mut Vec<PoolGame>, games: usize| {
            top_up(
                &path,
                pool,
                ("ab1", &mut a),
                ("rnd", &mut b),
                games,
                4,
                &base,
                "m",
                &mut |_| {},
            )
            .unwrap()
            .map(|r| r.games.len())
        };
        assert_eq!(play(&mut pool, 4), Some(4));
        // Interrupted here: a new command reads the pool and plays the rest.
        let mut pool = read_pool(&path).unwrap();
        assert_eq!(play(&mut pool, 7), Some(4), "7 games round up to 4 pairs");
        assert_eq!(play(&mut pool, 8), None);
        assert_eq!(pool, read_pool(&path).unwrap());
        assert_eq!(drop_player(&path, &mut pool, "nobody").unwrap(), 0);
        let openings: BTreeSet<&str> = pool.iter().map(|g| g.opening.as_str()).collect();
        assert_eq!(openings.len(), 4, "every pair its own opening");
        assert_eq!(drop_player(&path, &mut pool, "rnd").unwrap(), 8);
        assert!(pool.is_empty() && read_pool(&path).unwrap().is_empty());
    }
}
