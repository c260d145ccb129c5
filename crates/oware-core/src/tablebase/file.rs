//! Table files and the manifest: the on-disk format, written atomically, read with every
//! check a truncated, corrupt or foreign file can fail.
//!
//! A table file `seeds-NN.tb` is a 32-byte header, then one byte per board in rank order
//! (the entry: value and exact bit), then two per board in rank order (the bounds: the
//! lowest and highest value no repetition can break, each an `i8`):
//!
//! | bytes | what |
//! |---|---|
//! | 0..4 | magic `OWTB` |
//! | 4..8 | format version, u32 little-endian (3; version 2 had no bounds, and is still read: an exact entry's bounds are its value, another's ±n; version 1's bit 7 only meant "decided without repetition at this count") |
//! | 8 | seed count `n` |
//! | 9 | rule set (index in the preset list: 0 abapa, 1 awari, 2 grand-slam-captures, 3 ouril, 4 traditional) |
//! | 10..16 | zero |
//! | 16..24 | boards, u64 little-endian: C(n+11, 11) |
//! | 24..32 | checksum of the entries then the bounds, u64 little-endian |
//!
//! The checksum is FNV-1a taken over the bytes after the header as little-endian 64-bit
//! words (the last word zero-padded), so checking 678 MB takes a fraction of a second.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::TablebaseError;
use super::build::{Bounds, decode};
use super::index::boards_with;
use crate::game::{Preset, RuleSet};

/// The table file format version written.
pub const FORMAT_VERSION: u32 = 3;
/// The version before bounds were stored; still read.
const VERSION_NO_BOUNDS: u32 = 2;
const MAGIC: &[u8; 4] = b"OWTB";
const HEADER: usize = 32;
/// The manifest's file name inside a table directory.
pub const MANIFEST: &str = "manifest.json";

/// What the value of an entry means, written into every manifest.
pub const VALUE_MEANING: &str = "margin of future captures (mover's minus opponent's, seeds still on the board shared as the rules end the game) that the player to move can force with best play from this board, with no position repeated since the last capture; stores do not enter (the outcome is the sign of store difference + value). Bit 7 set (exact): the value is proven, through every smaller table its lines reach: by the analysis where no repetition score enters it, or by a search of the repetition rule's game (builds with --prove-seeds or --game-seeds). Bit 7 clear: a repetition may decide; where it does at this count, the value is the repetition score of this board (own-row rules: mover's row minus opponent's; split-evenly rules: 0) clamped into the interval both sides can force. Bounds (format 3): the lowest and highest value that no repetition score can break, at this count or any smaller; the value with no history lies between them, and they meet exactly where bit 7 is set.";

/// The manifest: `manifest.json` in the table directory.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Manifest {
    /// Always `oware-tablebase`.
    pub format: String,
    /// [`FORMAT_VERSION`].
    pub version: u32,
    /// The rule set's name.
    pub rules: String,
    /// The highest seed count whose file is complete.
    pub max_seeds: usize,
    /// What an entry means ([`VALUE_MEANING`]).
    pub value: String,
    /// One entry per seed count, 0..=max_seeds in order.
    pub files: Vec<FileEntry>,
    /// Boards of at most this many seeds were also proved by the search that carries
    /// the history (`oware tablebase build --prove-seeds`; 0: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub prove_seeds: usize,
    /// Nodes of each of those searches (`--prove-nodes`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub prove_nodes: u64,
    /// The bounds of the counts up to this one were narrowed by the repetition rule
    /// (`--cycle-seeds`; 0: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub prove_cycles: usize,
    /// `[count, nodes]`: the nodes of each search at that count instead of
    /// `prove_nodes` (`--prove-nodes-at`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prove_nodes_at: Vec<(usize, u64)>,
    /// Boards of at most this many seeds still open were then searched by the
    /// repetition rule's game (`--game-seeds`; 0: none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub prove_games: usize,
    /// Work units of each of those searches (`--game-work`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub prove_game_work: u64,
    /// `[count, work]`: the work of each of those searches at that count instead of
    /// `prove_game_work` (`--game-work-at`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prove_game_work_at: Vec<(usize, u64)>,
}

fn is_zero<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
}

/// One seed count's file in the manifest.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FileEntry {
    /// Seeds on every board of the file.
    pub seeds: usize,
    /// File name inside the directory.
    pub file: String,
    /// Boards (entries): C(seeds+11, 11).
    pub boards: u64,
    /// File size in bytes (header included).
    pub bytes: u64,
    /// Checksum of the entries, 16 hex digits.
    pub checksum: String,
    /// Boards whose value is proven (the exact bit): no repetition score enters it, at
    /// this count or in any smaller table its lines reach.
    pub exact: u64,
    /// Boards decided without repetition at this count, given the smaller tables'
    /// values (a superset of `exact`).
    #[serde(default)]
    pub decided: u64,
    /// Non-capturing moves among the boards (edges of the solved graph).
    pub inner_moves: u64,
    /// Wall-clock seconds this count took to solve and write.
    pub build_seconds: f64,
}

impl Manifest {
    /// An empty manifest for `rules`.
    pub fn new(rules: RuleSet) -> Manifest {
        Manifest {
            format: "oware-tablebase".into(),
            version: FORMAT_VERSION,
            rules: rules.name().into(),
            max_seeds: 0,
            value: VALUE_MEANING.into(),
            files: Vec::new(),
            prove_seeds: 0,
            prove_nodes: 0,
            prove_cycles: 0,
            prove_nodes_at: Vec::new(),
            prove_games: 0,
            prove_game_work: 0,
            prove_game_work_at: Vec::new(),
        }
    }

    /// What the build proved by search ([`super::Proving`]).
    pub fn proving(&self) -> super::Proving {
        super::Proving {
            seeds: self.prove_seeds,
            nodes: self.prove_nodes,
            cycles: self.prove_cycles,
            nodes_at: self.prove_nodes_at.clone(),
            games: self.prove_games,
            game_work: self.prove_game_work,
            game_work_at: self.prove_game_work_at.clone(),
        }
    }

    /// Records `proving` as what the build proves.
    pub fn set_proving(&mut self, proving: &super::Proving) {
        self.prove_seeds = proving.seeds;
        self.prove_nodes = proving.nodes;
        self.prove_cycles = proving.cycles;
        self.prove_nodes_at = proving.nodes_at.clone();
        self.prove_games = proving.games;
        self.prove_game_work = proving.game_work;
        self.prove_game_work_at = proving.game_work_at.clone();
    }

    /// Reads and checks `dir/manifest.json`; `Ok(None)` if there is none.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, TablebaseError> {
        let path = dir.join(MANIFEST);
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(TablebaseError::io(&path, e)),
        };
        let m: Manifest = serde_json::from_str(&text).map_err(|e| TablebaseError::Corrupt {
            path: path.clone(),
            what: format!("not a tablebase manifest ({e})"),
        })?;
        let bad = |what: String| TablebaseError::Corrupt {
            path: path.clone(),
            what,
        };
        if m.format != "oware-tablebase" {
            return Err(bad(format!(
                "format `{}`, expected `oware-tablebase`",
                m.format
            )));
        }
        if m.version != FORMAT_VERSION && m.version != VERSION_NO_BOUNDS {
            return Err(bad(format!(
                "format version {}, this program reads {VERSION_NO_BOUNDS} and \
                 {FORMAT_VERSION}: build the tables again with `oware tablebase build`",
                m.version
            )));
        }
        if m.rules.parse::<RuleSet>().is_err() {
            return Err(bad(format!("unknown rule set `{}`", m.rules)));
        }
        for (i, f) in m.files.iter().enumerate() {
            if f.seeds != i {
                return Err(bad(format!("entry {i} is for {} seeds", f.seeds)));
            }
        }
        if !m.files.is_empty() && m.max_seeds + 1 != m.files.len() {
            return Err(bad(format!(
                "max_seeds {} but {} files listed",
                m.max_seeds,
                m.files.len()
            )));
        }
        Ok(Some(m))
    }

    /// Writes `dir/manifest.json` atomically.
    pub fn write(&self, dir: &Path) -> Result<(), TablebaseError> {
        let text = serde_json::to_string_pretty(self).expect("manifest serialises");
        write_atomic(&dir.join(MANIFEST), text.as_bytes())
    }
}

/// The file name of a seed count's table.
pub fn file_name(seeds: usize) -> String {
    format!("seeds-{seeds:02}.tb")
}

/// FNV-1a over little-endian 64-bit words (the last zero-padded).
pub fn checksum(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        h ^= u64::from_le_bytes(c.try_into().unwrap());
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h ^= u64::from_le_bytes(w);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn preset_index(rules: RuleSet) -> u8 {
    Preset::ALL.iter().position(|&p| p == rules.preset).unwrap() as u8
}

/// Writes `data` to `path` through a temporary file in the same directory, synced, then
/// renamed over `path`: a reader sees the old file or the new one, never half of one.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<(), TablebaseError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        TablebaseError::io(path, e)
    })
}

/// Writes the table of `seeds` seeds, entries and bounds; returns its manifest entry
/// (timing left at 0).
pub fn write_table(
    dir: &Path,
    rules: RuleSet,
    seeds: usize,
    entries: &[u8],
    bounds: &Bounds,
) -> Result<FileEntry, TablebaseError> {
    assert_eq!(entries.len(), bounds.len(), "one pair of bounds per entry");
    let mut body = Vec::with_capacity(3 * entries.len());
    body.extend_from_slice(entries);
    body.extend(bounds.iter().flat_map(|b| b.map(|x| x as u8)));
    let sum = checksum(&body);
    let mut buf = Vec::with_capacity(HEADER + body.len());
    buf.extend_from_slice(MAGIC);
    buf.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    buf.push(seeds as u8);
    buf.push(preset_index(rules));
    buf.extend_from_slice(&[0u8; 6]);
    buf.extend_from_slice(&(entries.len() as u64).to_le_bytes());
    buf.extend_from_slice(&sum.to_le_bytes());
    buf.extend_from_slice(&body);
    let name = file_name(seeds);
    write_atomic(&dir.join(&name), &buf)?;
    Ok(FileEntry {
        seeds,
        file: name,
        boards: entries.len() as u64,
        bytes: buf.len() as u64,
        checksum: format!("{sum:016x}"),
        exact: 0,
        decided: 0,
        inner_moves: 0,
        build_seconds: 0.0,
    })
}

/// A table as read: the entries and the bounds (see the module docs), and whether the
/// bounds were stored (format 3) or made from the entries (format 2).
pub struct ReadTable {
    /// One byte per board.
    pub entries: Vec<u8>,
    /// One pair per board.
    pub bounds: Bounds,
    /// The file held the bounds.
    pub stored_bounds: bool,
}

/// Reads and checks the table `entry` of `dir` for `rules`: size, header, rule set and
/// checksum, against the file's own header and the manifest.
pub fn read_table(
    dir: &Path,
    rules: RuleSet,
    entry: &FileEntry,
) -> Result<ReadTable, TablebaseError> {
    let path = dir.join(&entry.file);
    let bytes = fs::read(&path).map_err(|e| TablebaseError::io(&path, e))?;
    let bad = |what: String| TablebaseError::Corrupt {
        path: path.clone(),
        what,
    };
    let boards = boards_with(entry.seeds);
    if bytes.len() < HEADER {
        return Err(bad(format!(
            "{} bytes, shorter than the header",
            bytes.len()
        )));
    }
    if &bytes[0..4] != MAGIC {
        return Err(bad("not a tablebase file (bad magic)".into()));
    }
    let version = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    if version != FORMAT_VERSION && version != VERSION_NO_BOUNDS {
        return Err(bad(format!(
            "format version {version}, this program reads {VERSION_NO_BOUNDS} and {FORMAT_VERSION}"
        )));
    }
    let per_board = if version == FORMAT_VERSION { 3 } else { 1 };
    if bytes[8] as usize != entry.seeds {
        return Err(bad(format!(
            "holds {} seeds, the manifest says {}",
            bytes[8], entry.seeds
        )));
    }
    let preset = Preset::ALL.get(bytes[9] as usize);
    if preset != Some(&rules.preset) {
        let found = preset.map_or("an unknown rule set", |p| p.name());
        return Err(TablebaseError::Rules {
            path: path.clone(),
            expected: rules.name().into(),
            found: found.into(),
        });
    }
    let stated = u64::from_le_bytes(bytes[16..24].try_into().unwrap());
    if stated != boards || entry.boards != boards {
        return Err(bad(format!(
            "{stated} boards in the header, {} in the manifest, {boards} expected",
            entry.boards
        )));
    }
    if bytes.len() as u64 != HEADER as u64 + per_board * boards {
        return Err(bad(format!(
            "{} bytes, expected {} (truncated or padded)",
            bytes.len(),
            HEADER as u64 + per_board * boards
        )));
    }
    let stored = u64::from_le_bytes(bytes[24..32].try_into().unwrap());
    let sum = checksum(&bytes[HEADER..]);
    if sum != stored || format!("{sum:016x}") != entry.checksum {
        return Err(bad(format!(
            "checksum {sum:016x} does not match the header ({stored:016x}) or the manifest ({})",
            entry.checksum
        )));
    }
    let end = HEADER + boards as usize;
    let entries = bytes[HEADER..end].to_vec();
    if entries.iter().any(|&b| {
        (b & 0x7F) as usize > 48 + entry.seeds || ((b & 0x7F) as i32) < 48 - entry.seeds as i32
    }) {
        return Err(bad(format!("an entry lies outside ±{} seeds", entry.seeds)));
    }
    let n = entry.seeds as i32;
    let stored_bounds = version == FORMAT_VERSION;
    let bounds: Bounds = if stored_bounds {
        bytes[end..]
            .chunks_exact(2)
            .map(|c| [c[0] as i8, c[1] as i8])
            .collect()
    } else {
        entries.iter().map(|&b| bounds_of_entry(b, n)).collect()
    };
    // The value lies between the bounds, which meet exactly on the exact entries.
    let holds = |k: usize| {
        let (v, exact) = decode(entries[k]);
        let [lo, hi] = bounds[k];
        let seeds = -n..=n;
        seeds.contains(&(lo as i32))
            && seeds.contains(&(hi as i32))
            && lo <= v
            && v <= hi
            && exact == (lo == hi)
    };
    if let Some(k) = (0..entries.len()).find(|&k| !holds(k)) {
        return Err(bad(format!(
            "board {k}: bounds {:?} do not hold its entry {:?}",
            bounds[k],
            decode(entries[k])
        )));
    }
    Ok(ReadTable {
        entries,
        bounds,
        stored_bounds,
    })
}

/// The bounds a format-2 entry implies: its value if exact, else all of `[−n, n]`.
fn bounds_of_entry(byte: u8, n: i32) -> [i8; 2] {
    match decode(byte) {
        (v, true) => [v, v],
        _ => [-n as i8, n as i8],
    }
}
