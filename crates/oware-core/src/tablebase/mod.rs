//! The endgame tablebase: the exact value of every board with up to N seeds.
//!
//! # What a value means
//! Stores only grow, and every way a game ends gives each player his store plus the
//! seeds the rules hand him, so the final result depends on the stores now and on the
//! *margin of future captures* (mover's gains minus the opponent's, the seeds left at an
//! ending counted as the rules give them). The table stores that margin, −n..n, for the
//! player to move, as best play forces it. The stores do not enter the index: the
//! outcome with stores `own`, `opp` is the sign of `own − opp + value`. The early ends
//! (a store reaching 25, a 24–24 split) cut a line short but never change who wins, since
//! the leader's store cannot fall afterwards, so the table is exact for them too.
//!
//! # Repetition
//! A position that recurs since the last capture ends the game. A table holds one value
//! per board, so it is the value **with no position played since the last capture**
//! (exactly the situation right after a capture, which is how every lower table is
//! reached). Inside one seed count, the retrograde analysis ([`build`]) finds for each
//! board the interval of margins that the two sides can force without any repetition;
//! where the interval is a single value, that is the value. Where it is not, a
//! repetition decides the game:
//! - when the rules split the seeds left evenly (`awari`, `traditional`) a repetition
//!   scores 0 whatever the path, and the value (0 clamped into the interval) is exact too;
//! - when each player takes his own row (`abapa`, `grand-slam-captures`, `ouril`) the
//!   score depends on where the cycle closes, which one value per board cannot hold; the
//!   table takes the score of a repetition at this board (own row minus the opponent's),
//!   clamped into the interval. This is the table's one approximation; its disagreement
//!   with a search that carries the history is measured (`oware tablebase verify`).
//!
//! A value decided without repetition at its own count can still rest on such an
//! approximate value in a smaller table that a capture reaches (a capture empties the
//! history, so the smaller board is met exactly as its table defines it, but its value may
//! be the approximation). So the build also carries, for every board, bounds that no
//! repetition score can break (the same analysis with each exit valued by the smaller
//! board's bounds instead of its value), and bit 7 of an entry, **exact**, says those
//! bounds meet: the value is then proven, through every smaller table.
//!
//! Where an entry is not exact, or the position has a history, [`prove`] proves the
//! value by a search that carries the history ([`history_search`]), checked against the
//! brute-force [`solve::Solver`].
//!
//! # Layout
//! One file per seed count (`seeds-NN.tb`, see [`file`]) and `manifest.json`; the
//! board index is the combinatorial rank of the 12 pit counts ([`index`]).

pub mod build;
pub mod file;
pub mod games;
pub mod history_search;
pub mod index;
mod keys;
pub mod knot;
pub mod prove;
pub mod scc;
pub mod solve;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use thiserror::Error;

use crate::game::{Position, RuleSet};
pub use build::{CountStats, Step, decode, encode, mover_pits};
pub use file::{FileEntry, Manifest};

/// What can go wrong with a table directory.
#[derive(Debug, Error)]
pub enum TablebaseError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A file is truncated, corrupt or of another format.
    #[error("{path}: {what}")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The tables are for other rules.
    #[error("{path}: a table for the {found} rules, not {expected}")]
    Rules {
        /// The file.
        path: PathBuf,
        /// The rules asked for.
        expected: String,
        /// The rules of the file.
        found: String,
    },
    /// The directory has no manifest.
    #[error("{0}: no tablebase here (no manifest.json); build one with `oware tablebase build`")]
    Missing(PathBuf),
    /// A bad argument.
    #[error("{0}")]
    Argument(String),
}

impl TablebaseError {
    fn io(path: &Path, source: std::io::Error) -> TablebaseError {
        TablebaseError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Who wins with best play, for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TbOutcome {
    /// The mover wins.
    Win,
    /// A draw.
    Draw,
    /// The mover loses.
    Loss,
}

impl TbOutcome {
    /// `win`, `draw` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            TbOutcome::Win => "win",
            TbOutcome::Draw => "draw",
            TbOutcome::Loss => "loss",
        }
    }

    /// `won`, `drawn` or `lost`.
    pub fn past(self) -> &'static str {
        match self {
            TbOutcome::Win => "won",
            TbOutcome::Draw => "drawn",
            TbOutcome::Loss => "lost",
        }
    }

    /// +1, 0, −1.
    pub fn score(self) -> i32 {
        match self {
            TbOutcome::Win => 1,
            TbOutcome::Draw => 0,
            TbOutcome::Loss => -1,
        }
    }

    /// The outcome of a game whose final store difference (the mover's minus the
    /// opponent's) is `final_margin`.
    pub fn of(final_margin: i32) -> TbOutcome {
        match final_margin.signum() {
            1 => TbOutcome::Win,
            0 => TbOutcome::Draw,
            _ => TbOutcome::Loss,
        }
    }
}

/// One probe's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// Margin of future captures the mover can force (−n..n seeds), as stored: proven
    /// when `exact`, else the repetition score of the board clamped into the bounds.
    pub value: i32,
    /// The value is proven: no repetition score enters it (see the module docs).
    pub exact: bool,
    /// The lowest and highest margin no repetition can break: the value of a game that
    /// starts here (no history) lies between them. Equal when `exact`.
    pub bounds: [i32; 2],
    /// The outcome that `value` gives, given the stores (a guess unless `exact`).
    pub outcome: TbOutcome,
    /// The outcome with best play of a game that starts here, where the bounds decide
    /// it (always when `exact`; elsewhere when both bounds give the same outcome).
    pub proven: Option<TbOutcome>,
}

/// A tablebase in memory: one table per seed count 0..=max_seeds.
pub struct Tablebase {
    rules: RuleSet,
    dir: PathBuf,
    tables: Vec<Vec<u8>>,
    bounds: Vec<build::Bounds>,
    /// Whether every count's bounds came from the files (format 3), not from the exact
    /// bits alone (format 2).
    stored_bounds: bool,
    /// The counts up to this one had their bounds narrowed by the repetition rule's game
    /// with no history (`--cycle-seeds`): that game proves nothing more there.
    narrowed: usize,
    /// The graphs of the counts whose games the provers have played, built once for
    /// every prover of these tables (a `serve` request, a `probe --fens` line).
    graphs: Vec<OnceLock<build::CountGraph>>,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Tablebase({}, {} rules, up to {} seeds)",
            self.dir.display(),
            self.rules.name(),
            self.max_seeds()
        )
    }
}

impl Tablebase {
    /// Loads and checks every table of `dir` (manifest, sizes, headers, checksums).
    pub fn open(dir: &Path) -> Result<Tablebase, TablebaseError> {
        let m = Manifest::read(dir)?.ok_or_else(|| TablebaseError::Missing(dir.to_path_buf()))?;
        if m.files.is_empty() {
            return Err(TablebaseError::Corrupt {
                path: dir.join(file::MANIFEST),
                what: "lists no table file".into(),
            });
        }
        let rules: RuleSet = m.rules.parse().expect("checked by Manifest::read");
        let read = m
            .files
            .iter()
            .map(|e| file::read_table(dir, rules, e))
            .collect::<Result<Vec<_>, _>>()?;
        let stored_bounds = read.iter().all(|r| r.stored_bounds);
        let (tables, bounds): (Vec<_>, Vec<_>) =
            read.into_iter().map(|r| (r.entries, r.bounds)).unzip();
        let graphs = (0..tables.len()).map(|_| OnceLock::new()).collect();
        Ok(Tablebase {
            rules,
            dir: dir.to_path_buf(),
            tables,
            bounds,
            stored_bounds,
            narrowed: m.prove_cycles,
            graphs,
        })
    }

    /// `open`, and checks the rule set is `rules`.
    pub fn open_for(dir: &Path, rules: RuleSet) -> Result<Tablebase, TablebaseError> {
        let tb = Tablebase::open(dir)?;
        if tb.rules != rules {
            return Err(TablebaseError::Rules {
                path: dir.join(file::MANIFEST),
                expected: rules.name().into(),
                found: tb.rules.name().into(),
            });
        }
        Ok(tb)
    }

    /// Tables built in memory (tests, and the build itself): entries and bounds per count.
    pub fn from_tables(
        rules: RuleSet,
        tables: Vec<Vec<u8>>,
        bounds: Vec<build::Bounds>,
    ) -> Tablebase {
        assert_eq!(tables.len(), bounds.len(), "bounds for every count");
        let graphs = (0..tables.len()).map(|_| OnceLock::new()).collect();
        Tablebase {
            rules,
            dir: PathBuf::from("(memory)"),
            tables,
            bounds,
            stored_bounds: true,
            narrowed: 0,
            graphs,
        }
    }

    /// Whether the bounds of count `n` were narrowed by the repetition rule's game with
    /// no history when they were built.
    pub fn narrowed_at(&self, n: usize) -> bool {
        n > 0 && n <= self.narrowed
    }

    /// The graph of count `n`'s non-capturing moves for the repetition rule's game
    /// ([`build::CountGraph`]), built on first use and kept for every later prover
    /// (1.35 M boards, about 25 MB, at 12 seeds). `n` must be in the tables.
    pub fn count_graph(&self, n: usize) -> &build::CountGraph {
        self.graphs[n].get_or_init(|| {
            build::CountGraph::new(self.rules, n, &self.tables[..n], &self.bounds[..n])
        })
    }

    /// Whether the bounds of inexact entries were stored (format 3). Tables of format 2
    /// know only `[−n, n]` there.
    pub fn has_bounds(&self) -> bool {
        self.stored_bounds
    }

    /// The rule set.
    pub fn rules(&self) -> RuleSet {
        self.rules
    }

    /// The directory it was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The most seeds on a board the table knows.
    pub fn max_seeds(&self) -> usize {
        self.tables.len() - 1
    }

    /// Whether a position's board is in the table.
    #[inline]
    pub fn covers(&self, pos: &Position) -> bool {
        (pos.board_seeds() as usize) < self.tables.len()
    }

    /// The raw entry of a board seen from its mover: (value, exact), or `None` beyond the
    /// table. No allocation; a rank and one load.
    #[inline]
    pub fn value(&self, pos: &Position) -> Option<(i32, bool)> {
        let n = pos.board_seeds() as usize;
        let t = self.tables.get(n)?;
        let (v, e) = decode(t[index::rank(&mover_pits(pos)) as usize]);
        Some((v as i32, e))
    }

    /// The value, exactness, bounds and outcomes of `pos` (stores included), or `None`
    /// beyond the table. No allocation; a rank and two loads.
    #[inline]
    pub fn probe(&self, pos: &Position) -> Option<Probe> {
        let n = pos.board_seeds() as usize;
        let t = self.tables.get(n)?;
        let r = index::rank(&mover_pits(pos)) as usize;
        let (value, exact) = decode(t[r]);
        let [lo, hi] = self.bounds[n][r].map(i32::from);
        let me = pos.side.index();
        let store_diff = pos.stores[me] as i32 - pos.stores[1 - me] as i32;
        let (low, high) = (
            TbOutcome::of(store_diff + lo),
            TbOutcome::of(store_diff + hi),
        );
        Some(Probe {
            value: value as i32,
            exact,
            bounds: [lo, hi],
            outcome: TbOutcome::of(store_diff + value as i32),
            proven: (low == high).then_some(low),
        })
    }

    /// The outcome with best play of a game that starts at `pos` when the table proves
    /// it (the entry is exact, or its bounds give one outcome), or `None` beyond the table
    /// or where a repetition may decide: there the stored value is the repetition score
    /// of the board, a guess about the history, and a search that took it as the game's
    /// result would play or learn the guess. Searches use this at positions with no
    /// history since the last capture.
    #[inline]
    pub fn proven(&self, pos: &Position) -> Option<TbOutcome> {
        self.probe(pos)?.proven
    }

    /// Each legal move's margin for the mover (`None` for an illegal move), and the
    /// terminal margin if the game is over: the move values of `probe`.
    pub fn move_values(&self, pos: &Position) -> Option<[Option<i32>; 6]> {
        let n = pos.board_seeds() as usize;
        let t = self.tables.get(n)?;
        let mut out = [None; 6];
        let pits = mover_pits(pos);
        build::steps(self.rules, &pits, n, &self.tables, |a, s| {
            out[a] = Some(match s {
                Step::Exit(v) => v,
                Step::Inner(q) => -(decode(t[q as usize]).0 as i32),
            });
        });
        Some(out)
    }

    /// Whether each legal move's value in [`Tablebase::move_values`] is proven: the board
    /// it leads to has an exact entry (a finished game's entry is exact). `false` for an
    /// illegal move; `None` beyond the table.
    pub fn move_proven(&self, pos: &Position) -> Option<[bool; 6]> {
        self.tables.get(pos.board_seeds() as usize)?;
        let p = Position {
            pits: mover_pits(pos),
            stores: [0, 0],
            side: crate::game::Side::South,
        };
        let legal = p.legal_moves(self.rules);
        Some(std::array::from_fn(|a| {
            legal & (1 << a) != 0 && {
                let mut q = p;
                q.apply(self.rules, a);
                self.value(&q).is_some_and(|(_, exact)| exact)
            }
        }))
    }

    /// Memory held by the tables, bytes.
    pub fn bytes(&self) -> usize {
        self.tables.iter().map(Vec::len).sum()
    }
}

/// Opens `dir` once per process: later calls for the same directory share the tables
/// in memory (a 20-seed table is 226 MB, and a match builds many players).
pub fn open_shared(dir: &Path) -> Result<std::sync::Arc<Tablebase>, TablebaseError> {
    use std::sync::Weak;
    static OPEN: OnceLock<Mutex<HashMap<PathBuf, Weak<Tablebase>>>> = OnceLock::new();
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut open = OPEN
        .get_or_init(|| Mutex::new(HashMap::new()))
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(tb) = open.get(&key).and_then(Weak::upgrade) {
        return Ok(tb);
    }
    let tb = Arc::new(Tablebase::open(dir)?);
    open.insert(key, Arc::downgrade(&tb));
    Ok(tb)
}

/// Progress of a build, one call per finished seed count.
pub struct BuildReport {
    /// The manifest entry written.
    pub entry: FileEntry,
    /// Whether it was loaded from an earlier, interrupted build instead of solved now.
    pub resumed: bool,
}

/// Builds (or finishes) the tables of every board with at most `max_seeds` seeds in `dir`
/// under `rules` with `threads` threads (0: one per core). A directory holding a
/// complete prefix of the tables resumes after it; tables of other rules are an error.
pub fn build(
    rules: RuleSet,
    max_seeds: usize,
    dir: &Path,
    threads: usize,
    on_count: impl FnMut(&BuildReport),
) -> Result<Manifest, TablebaseError> {
    build_proving(rules, max_seeds, dir, threads, Proving::default(), on_count)
}

/// What a build proves beyond the plain analysis: the bounds of the counts up to
/// `cycles` narrowed by the repetition rule itself ([`build::solve_count`]'s `cycles`),
/// and the boards of at most `seeds` seeds whose bounds still do not meet proved by the
/// search that carries the history ([`history_search::prove_top_count`]), each within
/// `nodes` nodes, or within the nodes `nodes_at` gives their count. The default proves
/// nothing more.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proving {
    /// The largest seed count searched with `nodes` (0: none).
    pub seeds: usize,
    /// Nodes of each board's search.
    pub nodes: u64,
    /// The largest seed count whose bounds the repetition rule narrows (0: none).
    pub cycles: usize,
    /// `(count, nodes)`: the nodes of each search at that count instead of `nodes`
    /// (searched even above `seeds`; 0 nodes: not searched). The small counts, with few
    /// open boards, whose proofs every larger count takes as exits, are worth more.
    pub nodes_at: Vec<(usize, u64)>,
    /// The largest seed count whose boards still open are then searched by the
    /// repetition rule's game ([`knot::prove_count`]; 0: none).
    pub games: usize,
    /// Work units of each of those searches.
    pub game_work: u64,
    /// `(count, work)`: the work of each search at that count instead of `game_work`
    /// (searched even above `games`; 0 work: not searched). A small count's proofs are
    /// every larger count's exits.
    pub game_work_at: Vec<(usize, u64)>,
}

impl Proving {
    /// Whether the open boards of count `n` are searched by the repetition rule's game.
    pub fn games_at(&self, n: usize) -> bool {
        self.game_work_for(n) > 0
    }

    /// Work units of each search of the open boards of count `n` by the repetition
    /// rule's game (0: not searched).
    pub fn game_work_for(&self, n: usize) -> u64 {
        budget_at(n, &self.game_work_at, self.games, self.game_work)
    }

    /// Nodes of each search of the open boards of count `n` (0: not searched).
    pub fn nodes_for(&self, n: usize) -> u64 {
        budget_at(n, &self.nodes_at, self.seeds, self.nodes)
    }

    /// Whether the open boards of count `n` are searched.
    pub fn covers(&self, n: usize) -> bool {
        self.nodes_for(n) > 0
    }

    /// Whether the bounds of count `n` are narrowed by the repetition rule.
    pub fn cycles_at(&self, n: usize) -> bool {
        n > 0 && n <= self.cycles
    }

    /// The arguments of `oware tablebase build` that ask for this proving.
    pub fn arguments(&self) -> String {
        let mut s = format!(
            "--prove-seeds {} --prove-nodes {} --cycle-seeds {}",
            self.seeds, self.nodes, self.cycles
        );
        for (n, nodes) in &self.nodes_at {
            s += &format!(" --prove-nodes-at {n}={nodes}");
        }
        if self.games > 0 {
            s += &format!(
                " --game-seeds {} --game-work {}",
                self.games, self.game_work
            );
        }
        for (n, work) in &self.game_work_at {
            s += &format!(" --game-work-at {n}={work}");
        }
        s
    }
}

/// Count `n`'s budget: its own in `at`, else `budget` up to count `upto`, else 0 (and 0
/// for the empty board, which has nothing to prove).
fn budget_at(n: usize, at: &[(usize, u64)], upto: usize, budget: u64) -> u64 {
    match at.iter().find(|&&(c, _)| c == n) {
        _ if n == 0 => 0,
        Some(&(_, b)) => b,
        None if n <= upto => budget,
        None => 0,
    }
}

/// Solves count `n` (the next one) onto `tables` and `bounds`, and proves what
/// `proving` asks of it.
fn solve_and_prove(
    rules: RuleSet,
    n: usize,
    tables: &mut Vec<Vec<u8>>,
    bounds: &mut Vec<build::Bounds>,
    proving: &Proving,
    pool: &rayon::ThreadPool,
) -> CountStats {
    debug_assert_eq!(tables.len(), n);
    let (t, b, mut stats) = pool
        .install(|| build::solve_count(rules, n, &tables[..], &bounds[..], proving.cycles_at(n)));
    tables.push(t);
    bounds.push(b);
    if proving.covers(n) {
        let nodes = proving.nodes_for(n);
        stats.exact +=
            pool.install(|| history_search::prove_top_count(rules, tables, bounds, nodes));
    }
    if proving.games_at(n) {
        stats.exact +=
            pool.install(|| knot::prove_count(rules, tables, bounds, proving.game_work_for(n)));
    }
    stats
}

/// [`build`], also proving by search what `proving` asks (recorded in the manifest; a
/// resumed build must ask the same).
pub fn build_proving(
    rules: RuleSet,
    max_seeds: usize,
    dir: &Path,
    threads: usize,
    proving: Proving,
    mut on_count: impl FnMut(&BuildReport),
) -> Result<Manifest, TablebaseError> {
    if max_seeds > 30 {
        return Err(TablebaseError::Argument(format!(
            "--max-seeds {max_seeds}: at most 30 (C(41, 11) = 3.2 G boards already need 3 GB per byte of entry)"
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| TablebaseError::io(dir, e))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TablebaseError::Argument(format!("thread pool: {e}")))?;
    let mut manifest = match Manifest::read(dir)? {
        Some(m) => {
            if m.rules != rules.name() {
                return Err(TablebaseError::Rules {
                    path: dir.join(file::MANIFEST),
                    expected: rules.name().into(),
                    found: m.rules,
                });
            }
            m
        }
        None => Manifest::new(rules),
    };
    if manifest.proving() != proving {
        if manifest.files.is_empty() {
            manifest.set_proving(&proving);
        } else {
            return Err(TablebaseError::Argument(format!(
                "{}: these tables were built with {}; resume with the same",
                dir.display(),
                manifest.proving().arguments()
            )));
        }
    }
    let mut tables: Vec<Vec<u8>> = Vec::new();
    // A resumed build solves the counts it has again, in memory, and checks each against
    // its file; a file of format 2 (no bounds) is written again with them.
    let mut bounds: Vec<build::Bounds> = Vec::new();
    for mut e in manifest.files.clone() {
        if e.seeds > max_seeds {
            break;
        }
        let stored = file::read_table(dir, rules, &e)?;
        let n = tables.len();
        solve_and_prove(rules, n, &mut tables, &mut bounds, &proving, &pool);
        if tables[n] != stored.entries || (stored.stored_bounds && bounds[n] != stored.bounds) {
            return Err(TablebaseError::Corrupt {
                path: dir.join(&e.file),
                what: "differs from the same count solved again (built by another version?)".into(),
            });
        }
        if !stored.stored_bounds {
            let again = file::write_table(dir, rules, e.seeds, &tables[n], &bounds[n])?;
            (e.bytes, e.checksum) = (again.bytes, again.checksum);
            manifest.files[e.seeds] = e.clone();
            manifest.version = file::FORMAT_VERSION;
            manifest.write(dir)?;
        }
        on_count(&BuildReport {
            entry: e,
            resumed: true,
        });
    }
    for n in tables.len()..=max_seeds {
        let t0 = Instant::now();
        let stats = solve_and_prove(rules, n, &mut tables, &mut bounds, &proving, &pool);
        let mut entry = file::write_table(dir, rules, n, &tables[n], &bounds[n])?;
        entry.exact = stats.exact;
        entry.decided = stats.decided;
        entry.inner_moves = stats.inner_moves;
        entry.build_seconds = (t0.elapsed().as_secs_f64() * 100.0).round() / 100.0;
        manifest.files.truncate(n);
        manifest.files.push(entry.clone());
        manifest.max_seeds = n;
        manifest.version = file::FORMAT_VERSION;
        manifest.write(dir)?;
        on_count(&BuildReport {
            entry,
            resumed: false,
        });
    }
    Ok(manifest)
}

/// Builds the tables up to `max_seeds` in memory (tests and small tools).
pub fn build_in_memory(rules: RuleSet, max_seeds: usize) -> Tablebase {
    build_in_memory_proving(rules, max_seeds, Proving::default())
}

/// [`build_in_memory`], also proving by search what `proving` asks.
pub fn build_in_memory_proving(rules: RuleSet, max_seeds: usize, proving: Proving) -> Tablebase {
    let mut tables = Vec::new();
    let mut bounds = Vec::new();
    for n in 0..=max_seeds {
        let (t, b, _) = build::solve_count(rules, n, &tables, &bounds, proving.cycles_at(n));
        tables.push(t);
        bounds.push(b);
        if proving.covers(n) {
            let nodes = proving.nodes_for(n);
            history_search::prove_top_count(rules, &mut tables, &mut bounds, nodes);
        }
        if proving.games_at(n) {
            knot::prove_count(rules, &mut tables, &mut bounds, proving.game_work_for(n));
        }
    }
    let mut tb = Tablebase::from_tables(rules, tables, bounds);
    tb.narrowed = proving.cycles.min(max_seeds);
    tb
}

#[cfg(test)]
mod tests;
