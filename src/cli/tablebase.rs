//! `oware tablebase`: build the endgame tables, probe a position, check the tables
//! against a search that carries the history.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Result, bail};

use oware_core::game::{Position, Side, move_letter};
use oware_core::rng::Rng;
use oware_core::tablebase::prove::{Known, Prover, Source, since_capture};
use oware_core::tablebase::solve::Solver;
use oware_core::tablebase::{self, Tablebase, index};

/// `oware tablebase …`.
#[derive(clap::Subcommand, Debug)]
pub enum Tb {
    /// Build the tables of every board with at most N seeds (retrograde analysis); an
    /// interrupted build resumes at the seed count it was on.
    Build(BuildArgs),
    /// The value of a position with best play: the margin the mover can force, the
    /// outcome with the stores, and each legal move's value, each proven or said not to be.
    ///
    /// Repetition: under abapa (and grand-slam-captures, ouril) a repeated position ends
    /// the game with each player taking the seeds of his own row, so inside a cycle of
    /// non-capturing moves a value can depend on the moves since the last capture. A
    /// table entry is the value of its board with no history since the last capture
    /// (as right after one), and it is proven ("exact") only where no repetition can
    /// enter the play that decides it, here or in any smaller table. Elsewhere, and for
    /// a position with history (`--moves` without a capture since), the value is found
    /// by a search that carries the history from the position, within `--node-limit`
    /// nodes; what it cannot finish is printed as "not proven", with the bounds the
    /// table guarantees when there is no history. Under awari and traditional a
    /// repetition splits the seeds evenly and every entry is exact. The section
    /// "Repetition" of docs/tablebase.md gives the details; `oware tablebase verify`
    /// checks the tables against the same search.
    Probe(ProbeArgs),
    /// Check the tables against an exact search that carries the history, on random
    /// boards: every exact entry must be the search's value and every value must lie in
    /// the entry's bounds (a disagreement fails the command); how often the stored
    /// repetition score happens to be right is reported too.
    Verify(VerifyArgs),
    /// Count the strongly connected components of each seed count's non-capturing
    /// moves, and where the inexact entries sit: the history outside a position's
    /// component cannot change its value (docs/tablebase.md, "Components of a count"),
    /// so a small component can be solved with every history it can hold.
    Components(ComponentsArgs),
}

/// Arguments of `oware tablebase components`.
#[derive(clap::Args, Debug)]
pub struct ComponentsArgs {
    /// Directory of the tables.
    #[arg(long)]
    tb: PathBuf,
    /// The smallest seed count to count (every count up to the tables' largest).
    #[arg(long, default_value_t = 1)]
    min_seeds: usize,
    /// Print one JSON object a seed count instead of text.
    #[arg(long)]
    json: bool,
}

/// Arguments of `oware tablebase build`.
#[derive(clap::Args, Debug)]
pub struct BuildArgs {
    /// Rule set: abapa, awari, grand-slam-captures, ouril, traditional.
    #[arg(long, default_value = "abapa")]
    rules: String,
    /// Solve every board with at most this many seeds (20: 225.8 M boards).
    #[arg(long)]
    max_seeds: usize,
    /// Directory of the tables (created; an existing build there is resumed).
    #[arg(long)]
    out: PathBuf,
    /// Threads (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Also prove, by the search that carries the history, the value with no history of
    /// every board with at most this many seeds that the retrograde analysis leaves
    /// inexact; a proved entry is exact, and larger counts take it as an exit (0: none).
    #[arg(long, default_value_t = 0)]
    prove_seeds: usize,
    /// Nodes of each of those searches.
    #[arg(long, default_value_t = 20_000)]
    prove_nodes: u64,
    /// `SEEDS=NODES`: the boards of that seed count searched within NODES nodes each
    /// instead of --prove-nodes, also above --prove-seeds (repeatable; 0 nodes: not
    /// searched). The small counts have few open boards, and every larger count takes
    /// their proofs as exits.
    #[arg(long, value_parser = parse_nodes_at)]
    prove_nodes_at: Vec<(usize, u64)>,
    /// Narrow the bounds of every board with at most this many seeds by what the
    /// repetition rule itself proves (a game over the non-capturing moves solved for
    /// each threshold; docs/tablebase.md), so that more entries are exact (default: the
    /// same as --prove-seeds; 0: none).
    #[arg(long)]
    cycle_seeds: Option<usize>,
    /// Then search the repetition rule's game itself (a co-Büchi game asked again at
    /// every position of each line; docs/tablebase.md) for every board with at most
    /// this many seeds still inexact; a proved entry is exact (0: none).
    #[arg(long, default_value_t = 0)]
    game_seeds: usize,
    /// Work units of each of those searches (a unit is one open position in one
    /// position's games).
    #[arg(long, default_value_t = 1_000_000)]
    game_work: u64,
    /// `SEEDS=WORK`: the boards of that seed count searched by the game within WORK
    /// units each instead of --game-work, also above --game-seeds (repeatable; 0: not
    /// searched). Every larger count takes a small count's proofs as exits.
    #[arg(long, value_parser = parse_game_work_at)]
    game_work_at: Vec<(usize, u64)>,
    /// Print one JSON object at the end instead of text.
    #[arg(long)]
    json: bool,
}

/// Arguments of `oware tablebase probe`.
#[derive(clap::Args, Debug)]
pub struct ProbeArgs {
    /// Directory of the tables.
    #[arg(long)]
    tb: PathBuf,
    /// Position (FEN); default: the start.
    #[arg(long)]
    fen: Option<String>,
    /// Moves to play first.
    #[arg(long)]
    moves: Option<String>,
    /// Probe every position of this file instead (one FEN a line, optionally followed by
    /// `;` and the moves to play first), printing one JSON object a line: the tables
    /// are opened once.
    #[arg(long, conflicts_with_all = ["fen", "moves"])]
    fens: Option<PathBuf>,
    /// Nodes the search that carries the history may take for the position, and for
    /// each move, where the table does not prove the value.
    #[arg(long, default_value_t = 2_000_000)]
    node_limit: u64,
    /// Print one JSON object: `value` and `outcome` for the mover (null where not
    /// proven), `proven_by` (`table`, `search` or null), `bounds` ([low, high] where not
    /// proven and the position has no history), `table_value` and `exact` (the entry as
    /// stored), `history` (positions since the last capture), `moves` (letter → value,
    /// or null where not proven), `nodes`, `seconds` (the proof's time, the tables
    /// already open).
    #[arg(long)]
    json: bool,
}

/// Arguments of `oware tablebase verify`.
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Directory of the tables.
    #[arg(long)]
    tb: PathBuf,
    /// Random boards to check.
    #[arg(long, default_value_t = 10_000)]
    positions: usize,
    /// Most seeds on a checked board (a seed count drawn uniformly from 1 to this, then
    /// a board uniformly among those with that count).
    #[arg(long, default_value_t = 12)]
    max_seeds: usize,
    /// Check only boards with exactly this many seeds (instead of 1..=--max-seeds).
    #[arg(long)]
    seeds: Option<usize>,
    /// Seed of the random boards.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Give up on a board after this many search nodes (it is counted as unsolved).
    #[arg(long, default_value_t = 5_000_000)]
    node_limit: u64,
    /// Nodes of the probe's proof search for the board and for each of its moves (as
    /// `probe --node-limit`); every value it proves is checked against the brute-force
    /// search wherever that one finishes.
    #[arg(long, default_value_t = 200_000)]
    prover_nodes: u64,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

/// Runs `oware tablebase …`.
pub fn run(t: Tb) -> Result<()> {
    match t {
        Tb::Build(a) => build(a),
        Tb::Probe(a) => probe(a),
        Tb::Verify(a) => verify(a),
        Tb::Components(a) => components(a),
    }
}

/// `--prove-nodes-at SEEDS=NODES`.
fn parse_nodes_at(s: &str) -> std::result::Result<(usize, u64), String> {
    parse_count_budget(s, "SEEDS=NODES, such as 4=2000000")
}

/// `--game-work-at SEEDS=WORK`.
fn parse_game_work_at(s: &str) -> std::result::Result<(usize, u64), String> {
    parse_count_budget(s, "SEEDS=WORK, such as 8=10000000")
}

/// A seed count and a budget, `SEEDS=N`; `expected` says what the flag takes.
fn parse_count_budget(s: &str, expected: &str) -> std::result::Result<(usize, u64), String> {
    let bad = || format!("{s:?}: expected {expected}");
    let (n, nodes) = s.split_once('=').ok_or_else(bad)?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    let nodes: u64 = nodes.trim().parse().map_err(|_| bad())?;
    if n == 0 || n > 30 {
        return Err(format!("{s:?}: the seed count must be 1 to 30"));
    }
    Ok((n, nodes))
}

/// Peak resident memory of this process, MiB (Linux; 0 elsewhere).
fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// A flag's `SEEDS=BUDGET` pairs sorted by count; a count given twice is an error.
fn per_count(pairs: &[(usize, u64)], flag: &str) -> Result<Vec<(usize, u64)>> {
    let mut v = pairs.to_vec();
    v.sort_unstable();
    if let Some(w) = v.windows(2).find(|w| w[0].0 == w[1].0) {
        bail!("{flag}: seed count {} given twice", w[0].0);
    }
    Ok(v)
}

fn build(a: BuildArgs) -> Result<()> {
    let rules = super::parse_rules(&a.rules)?;
    let t0 = Instant::now();
    if !a.json {
        super::out(&format!(
            "{} rules, boards with at most {} seeds ({} boards) into {}\n{:>5} {:>12} {:>8} {:>8} {:>13} {:>9}\n",
            rules.name(),
            a.max_seeds,
            index::boards_up_to(a.max_seeds),
            a.out.display(),
            "seeds",
            "boards",
            "exact",
            "decided",
            "inner moves",
            "seconds"
        ))?;
    }
    let json = a.json;
    let nodes_at = per_count(&a.prove_nodes_at, "--prove-nodes-at")?;
    let game_work_at = per_count(&a.game_work_at, "--game-work-at")?;
    // The counts searched are narrowed first by default, as up to --prove-seeds.
    let searched = nodes_at
        .iter()
        .filter(|&&(_, nodes)| nodes > 0)
        .map(|&(n, _)| n)
        .fold(a.prove_seeds, usize::max);
    let proving = tablebase::Proving {
        seeds: a.prove_seeds,
        nodes: if a.prove_seeds > 0 { a.prove_nodes } else { 0 },
        cycles: a.cycle_seeds.unwrap_or(searched),
        nodes_at,
        games: a.game_seeds,
        game_work: if a.game_seeds > 0 { a.game_work } else { 0 },
        game_work_at,
    };
    let m = tablebase::build_proving(rules, a.max_seeds, &a.out, a.threads, proving, |r| {
        if json {
            return;
        }
        let e = &r.entry;
        let line = format!(
            "{:>5} {:>12} {:>7.2}% {:>7.2}% {:>13} {:>9}\n",
            e.seeds,
            e.boards,
            100.0 * e.exact as f64 / e.boards as f64,
            100.0 * e.decided as f64 / e.boards as f64,
            e.inner_moves,
            if r.resumed {
                "(done)".to_string()
            } else {
                format!("{:.2}", e.build_seconds)
            }
        );
        let _ = super::out(&line);
    })?;
    let secs = t0.elapsed().as_secs_f64();
    let bytes: u64 = m.files.iter().map(|f| f.bytes).sum();
    if json {
        let v = serde_json::json!({
            "rules": m.rules, "max_seeds": m.max_seeds, "seconds": secs,
            "bytes": bytes, "peak_rss_mib": peak_rss_mib(), "files": m.files,
        });
        super::out(&format!("{v}\n"))
    } else {
        super::out(&format!(
            "done in {secs:.1} s: {:.1} MB on disk, peak memory {:.0} MiB\n",
            bytes as f64 / 1e6,
            peak_rss_mib()
        ))
    }
}

/// `Known` as text: "+2", or "not proven (between −2 and +2)".
fn known_text(k: &Known) -> String {
    match k {
        Known::Proven(v, _) => format!("{v:+}"),
        Known::Unproven {
            bounds: Some([lo, hi]),
            ..
        } => format!("not proven (between {lo:+} and {hi:+})"),
        Known::Unproven { .. } => "not proven".into(),
    }
}

fn probe(a: ProbeArgs) -> Result<()> {
    let tb = Tablebase::open(&a.tb)?;
    let Some(path) = &a.fens else {
        let game = super::game_from(tb.rules(), a.fen.as_deref(), a.moves.as_deref())?;
        return super::out(&probe_one(&tb, &a, &game, a.json)?);
    };
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("--fens {}: {e}", path.display()))?;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let (fen, moves) = match line.split_once(';') {
            Some((f, m)) => (f.trim(), Some(m.trim()).filter(|m| !m.is_empty())),
            None => (line, None),
        };
        let game = super::game_from(tb.rules(), Some(fen), moves)
            .map_err(|e| anyhow::anyhow!("--fens {} line {}: {e:#}", path.display(), i + 1))?;
        super::out(&probe_one(&tb, &a, &game, true)?)?;
    }
    Ok(())
}

/// The probe of one game's position, as text or one JSON line.
fn probe_one(
    tb: &Tablebase,
    a: &ProbeArgs,
    game: &oware_core::game::Game,
    json: bool,
) -> Result<String> {
    let pos = *game.position();
    let Some(p) = tb.probe(&pos) else {
        bail!(
            "the position has {} seeds on the board; the table in {} holds at most {}",
            pos.board_seeds(),
            a.tb.display(),
            tb.max_seeds()
        );
    };
    let history = since_capture(game);
    let t0 = Instant::now();
    let prover = Prover::new(tb, a.node_limit);
    let (known, moves) = prover.position_and_moves(&pos, &history).expect("covered");
    let seconds = t0.elapsed().as_secs_f64();
    let me = pos.side.index();
    let stores = pos.stores[me] as i32 - pos.stores[1 - me] as i32;
    let outcome = known.outcome(stores);
    let nodes = |k: &Known| match *k {
        Known::Proven(_, Source::Search(n)) | Known::Unproven { nodes: n, .. } => n,
        Known::Proven(_, Source::Table) => 0,
    };
    let legal: Vec<(char, Known)> = (0..6)
        .filter_map(|act| moves[act].map(|k| (move_letter(pos.side, act), k)))
        .collect();
    let total_nodes = nodes(&known) + legal.iter().map(|(_, k)| nodes(k)).sum::<u64>();
    if json {
        let moves: serde_json::Map<_, _> = legal
            .iter()
            .map(|(l, k)| (l.to_string(), k.value().into()))
            .collect();
        let (proven_by, bounds) = match known {
            Known::Proven(_, Source::Table) => (Some("table"), None),
            Known::Proven(_, Source::Search(_)) => (Some("search"), None),
            Known::Unproven { bounds, .. } => (None, bounds),
        };
        let v = serde_json::json!({
            "fen": pos.to_string(), "to_move": pos.side.letter().to_string(),
            "value": known.value(), "outcome": outcome.map(|o| o.name()),
            "proven_by": proven_by, "bounds": bounds,
            "table_value": p.value, "exact": p.exact, "history": history.len(),
            "moves": moves, "nodes": total_nodes, "game_over": game.outcome().is_some(),
            "seconds": (seconds * 1e6).round() / 1e6,
        });
        return Ok(format!("{v}\n"));
    }
    let mover = match pos.side {
        Side::South => "South",
        Side::North => "North",
    };
    let stores_text = format!("stores {}–{}", pos.stores[me], pos.stores[1 - me]);
    let mut s = match (known, outcome) {
        (Known::Proven(v, src), Some(o)) => format!(
            "{mover} to move: {} with best play (future captures {v:+}, {stores_text}), {}\n",
            o.past(),
            match src {
                Source::Table => "from the table".to_string(),
                Source::Search(n) =>
                    format!("proven by a search that carries the history ({n} nodes)"),
            }
        ),
        (Known::Unproven { bounds, nodes, .. }, o) => format!(
            "{mover} to move: not proven: future captures {} ({stores_text}){}; a repetition \
             may decide, so the value depends on the moves since the last capture, and a \
             search that carries the history gave up after {nodes} nodes (--node-limit)\n",
            bounds.map_or("unknown".to_string(), |[lo, hi]| format!(
                "between {lo:+} and {hi:+}"
            )),
            o.map_or(String::new(), |o| format!(
                ", {} with best play either way",
                o.past()
            )),
        ),
        (Known::Proven(..), None) => unreachable!("a proven value has an outcome"),
    };
    if !p.exact || !history.is_empty() {
        s.push_str(&format!(
            "the table's entry: {:+} for the board with no history since the last capture, {}\n",
            p.value,
            if p.exact {
                "proven".to_string()
            } else {
                format!(
                    "not proven (a repetition may decide it; between {:+} and {:+})",
                    p.bounds[0], p.bounds[1]
                )
            }
        ));
    }
    if !history.is_empty() {
        s.push_str(&format!(
            "{} positions since the last capture\n",
            history.len()
        ));
    }
    if game.outcome().is_some() {
        s.push_str("the game is already over\n");
    }
    for (l, k) in &legal {
        s.push_str(&format!("  {l} {}\n", known_text(k)));
    }
    if total_nodes > 0 {
        // The same count as the JSON's `nodes`.
        s.push_str(&format!(
            "search nodes in all: {total_nodes} (the position's search and each move's), \
             {seconds:.3} s\n"
        ));
    }
    Ok(s)
}

fn verify(a: VerifyArgs) -> Result<()> {
    let tb = Tablebase::open(&a.tb)?;
    if a.max_seeds > tb.max_seeds() {
        bail!(
            "--max-seeds {}: the table in {} holds at most {} seeds",
            a.max_seeds,
            a.tb.display(),
            tb.max_seeds()
        );
    }
    if let Some(n) = a.seeds
        && (n == 0 || n > tb.max_seeds())
    {
        bail!("--seeds {n}: expected 1 to {}", tb.max_seeds());
    }
    if a.max_seeds == 0 || a.positions == 0 {
        bail!("--max-seeds and --positions must be positive");
    }
    let rules = tb.rules();
    let order = |p: &Position| -> [i32; 6] {
        let mv = tb.move_values(p).unwrap_or([None; 6]);
        std::array::from_fn(|i| mv[i].unwrap_or(i32::MIN / 2))
    };
    let mut solver = Solver::new(rules, a.node_limit).with_order(&order);
    let prover = Prover::new(&tb, a.prover_nodes);
    let mut rng = Rng::new(a.seed);
    let t0 = Instant::now();
    let (mut exact, mut agree, mut bad_exact, mut bad_rep, mut unsolved) = (0, 0, 0, 0, 0);
    let (mut outcome_bad, mut nodes, mut out_of_bounds) = (0u64, 0u64, 0u64);
    let mut examples = Vec::new();
    let mut proofs = ProofCheck::default();
    for _ in 0..a.positions {
        let n = match a.seeds {
            Some(n) => n,
            None => 1 + rng.below(a.max_seeds as u32) as usize,
        };
        let r = rng.bits() % index::boards_with(n);
        let pos = Position {
            pits: index::unrank(n, r),
            stores: [0, 0],
            side: Side::South,
        };
        let p = tb.probe(&pos).expect("covered");
        let (v, e, [lo, hi]) = (p.value, p.exact, p.bounds);
        exact += e as u64;
        let brute = solver.solve_near(&pos, &[], v);
        let brute_nodes = solver.nodes();
        proofs.board(&prover, &mut solver, &pos, brute.ok(), &mut examples);
        match brute {
            Ok(s) => {
                nodes += brute_nodes;
                if !(lo..=hi).contains(&s) {
                    out_of_bounds += 1;
                    if examples.len() < 5 {
                        examples.push(format!("{pos} bounds {lo:+}..{hi:+} search {s:+}"));
                    }
                }
                if s == v {
                    agree += 1;
                } else {
                    if e {
                        bad_exact += 1;
                    } else {
                        bad_rep += 1;
                    }
                    if s.signum() != v.signum() {
                        outcome_bad += 1;
                    }
                    if e && examples.len() < 5 {
                        examples.push(format!("{pos} exact table {v:+} search {s:+}"));
                    }
                }
            }
            Err(_) => unsolved += 1,
        }
    }
    let solved = a.positions as u64 - unsolved;
    let secs = t0.elapsed().as_secs_f64();
    let bad = bad_exact + out_of_bounds + proofs.disagree;
    if a.json {
        let v = serde_json::json!({
            "positions": a.positions, "max_seeds": a.max_seeds, "seeds": a.seeds,
            "seed": a.seed, "exact_entries": exact, "solved": solved, "unsolved": unsolved,
            "agree": agree, "disagree_exact": bad_exact, "disagree_repetition": bad_rep,
            "disagree_sign": outcome_bad, "outside_bounds": out_of_bounds,
            "disagreements": bad, "bounds_stored": tb.has_bounds(),
            "search_nodes": nodes, "seconds": secs, "examples": examples,
            "prover": {
                "nodes": a.prover_nodes, "boards_proven": proofs.boards_proven,
                "moves": proofs.moves, "moves_proven": proofs.moves_proven,
                "checked": proofs.checked, "disagree": proofs.disagree,
            },
        });
        super::out(&format!("{v}\n"))?;
        if bad > 0 {
            bail!("{bad} disagreements with the brute-force search");
        }
        return Ok(());
    }
    let pct = |x: u64, of: u64| 100.0 * x as f64 / of.max(1) as f64;
    let mut s = format!(
        "{} random boards with {} seeds ({} rules, seed {}), {:.1} s\n\
         exact entries (proven: no repetition score enters them): {exact} ({:.2}%)\n\
         solved by the history-aware search: {solved} (unsolved within {} nodes: {unsolved})\n\
         disagreements: {} (exact entries that differ: {bad_exact}; values outside the bounds: {out_of_bounds})\n\
         the stored value (the repetition score where not exact) is the search's in {agree} ({:.3}% of solved); \
         repetition entries that differ: {bad_rep}, with the sign of the margin in {outcome_bad}\n\
         the probe's proofs (--prover-nodes {}): {} of the boards and {} of their {} moves proven; \
         {} of those values checked against the brute-force search, {} disagree\n",
        a.positions,
        a.seeds
            .map_or(format!("1..={}", a.max_seeds), |n| n.to_string()),
        rules.name(),
        a.seed,
        secs,
        pct(exact, a.positions as u64),
        a.node_limit,
        bad_exact + out_of_bounds,
        pct(agree, solved),
        a.prover_nodes,
        proofs.boards_proven,
        proofs.moves_proven,
        proofs.moves,
        proofs.checked,
        proofs.disagree,
    );
    for e in &examples {
        s.push_str(&format!("  {e}\n"));
    }
    super::out(&s)?;
    if bad > 0 {
        bail!(
            "{bad} disagreements with the search: {bad_exact} exact entries, {out_of_bounds} \
             values outside the bounds, {} values the probe proved",
            proofs.disagree
        );
    }
    if !tb.has_bounds() {
        eprintln!(
            "note: these tables predate stored bounds (format 2); `oware tablebase build` with \
             the same --out writes them"
        );
    }
    Ok(())
}

/// The probe's proofs against the brute-force search, in `verify`.
#[derive(Default)]
struct ProofCheck {
    boards_proven: u64,
    moves: u64,
    moves_proven: u64,
    checked: u64,
    disagree: u64,
}

impl ProofCheck {
    /// The probe's proofs of `pos` and of each of its moves against the brute-force
    /// search (`brute`: its value of the board, if it finished).
    fn board(
        &mut self,
        prover: &Prover,
        solver: &mut Solver,
        pos: &Position,
        brute: Option<i32>,
        examples: &mut Vec<String>,
    ) {
        let (known, moves) = prover.position_and_moves(pos, &[]).expect("covered");
        self.check(pos, "the board", known.value(), brute, examples);
        let brute_moves = solver.move_values(pos, &[]);
        for (act, (k, b)) in moves.iter().zip(brute_moves).enumerate() {
            if let Some(k) = k {
                let what = format!("move {}", move_letter(pos.side, act));
                let b = b.and_then(|r| r.ok());
                self.check_move(pos, &what, k.value(), b, examples);
            }
        }
    }

    fn check(
        &mut self,
        pos: &Position,
        what: &str,
        proven: Option<i32>,
        brute: Option<i32>,
        examples: &mut Vec<String>,
    ) {
        self.boards_proven += proven.is_some() as u64;
        self.compare(pos, what, proven, brute, examples);
    }

    fn check_move(
        &mut self,
        pos: &Position,
        what: &str,
        proven: Option<i32>,
        brute: Option<i32>,
        examples: &mut Vec<String>,
    ) {
        self.moves += 1;
        self.moves_proven += proven.is_some() as u64;
        self.compare(pos, what, proven, brute, examples);
    }

    fn compare(
        &mut self,
        pos: &Position,
        what: &str,
        proven: Option<i32>,
        brute: Option<i32>,
        examples: &mut Vec<String>,
    ) {
        if let (Some(p), Some(b)) = (proven, brute) {
            self.checked += 1;
            if p != b {
                self.disagree += 1;
                if examples.len() < 10 {
                    examples.push(format!(
                        "{pos} {what}: the probe proved {p:+}, brute force {b:+}"
                    ));
                }
            }
        }
    }
}

/// The largest component size of each bucket of `oware tablebase components` (the last
/// bucket holds the rest).
const BUCKETS: [u32; 6] = [1, 8, 16, 24, 32, 1024];

fn components(a: ComponentsArgs) -> Result<()> {
    let tb = Tablebase::open(&a.tb)?;
    if a.min_seeds == 0 || a.min_seeds > tb.max_seeds() {
        bail!(
            "--min-seeds {}: expected 1 to {}",
            a.min_seeds,
            tb.max_seeds()
        );
    }
    for n in a.min_seeds..=tb.max_seeds() {
        let t0 = Instant::now();
        let c = tablebase::build::count_components(tb.rules(), n);
        let census = census(&tb, n, &c);
        let seconds = t0.elapsed().as_secs_f64();
        let largest = c.sizes.iter().copied().max().unwrap_or(0);
        if a.json {
            let v = serde_json::json!({
                "seeds": n,
                "positions": c.of.len(),
                "components": c.sizes.len(),
                "largest": largest,
                "bucket_max": BUCKETS,
                "boards": census[0],
                "inexact": census[1],
                "inexact_exits_exact": census[2],
                "seconds": seconds,
            });
            println!("{v}");
        } else {
            println!(
                "{n} seeds: {} positions in {} components (largest {largest}); by the size of \
                 their component (up to {BUCKETS:?}, more): boards {:?}, inexact {:?}, \
                 inexact with every exit exact {:?} ({seconds:.2} s)",
                c.of.len(),
                c.sizes.len(),
                census[0],
                census[1],
                census[2]
            );
        }
    }
    Ok(())
}

/// For the boards of `n` seeds (South to move: node `2k` of `c`), counts by the size of
/// their component ([`BUCKETS`]): all of them, the inexact ones, and the inexact ones in
/// a component whose every move out of it leads to an exact entry (a capture's smaller
/// board, or a board of another component): those a search over the component alone
/// would settle.
fn census(tb: &Tablebase, n: usize, c: &tablebase::scc::Components) -> [[u64; 7]; 3] {
    let node = |p: &Position| 2 * index::rank(&tablebase::mover_pits(p)) as usize + p.side.index();
    let board = |k: usize| Position {
        pits: index::unrank(n, k as u64),
        stores: [0, 0],
        side: Side::South,
    };
    // Whether some move out of each component leads to an inexact entry.
    let mut open_exit = vec![false; c.sizes.len()];
    for v in 0..c.of.len() {
        let p = Position {
            side: Side::from_index(v % 2),
            ..board(v / 2)
        };
        let proven = tb.move_proven(&p).expect("n is in the tables");
        for (act, &proven) in proven.iter().enumerate() {
            if p.legal_moves(tb.rules()) & (1 << act) == 0 {
                continue;
            }
            let mut q = p;
            q.apply(tb.rules(), act);
            let inside = q.board_seeds() as usize == n && c.of[node(&q)] == c.of[v];
            if !inside && !proven {
                open_exit[c.of[v] as usize] = true;
            }
        }
    }
    let mut out = [[0u64; 7]; 3];
    for k in 0..c.of.len() / 2 {
        let size = c.size_of(2 * k);
        let b = BUCKETS
            .iter()
            .position(|&m| size <= m)
            .unwrap_or(BUCKETS.len());
        let exact = tb.value(&board(k)).expect("n is in the tables").1;
        out[0][b] += 1;
        if !exact {
            out[1][b] += 1;
            out[2][b] += !open_exit[c.of[2 * k] as usize] as u64;
        }
    }
    out
}
