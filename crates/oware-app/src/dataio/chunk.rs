//! Sample chunk files: compact binary, checksummed, written atomically.
//!
//! Self-play (in the trainer or in separate `oware selfplay` workers) writes each batch
//! of samples as one chunk file under `RUN/samples/`; the learner reads them. A
//! chunk is either complete and valid or rejected with a clear message: it is written
//! to a temporary name and renamed, and it ends with a checksum.
//!
//! Layout (little-endian): `b"OWZS"`, u32 version (1), u8 rule-set name length, the name,
//! u32 sample count, then 52 bytes per sample — pits\[12\], stores\[2\], side, legal mask,
//! policy 6×f32, outcome i8, 3 zero bytes, store_diff f32, search_value f32 — then the
//! FNV-1a 64 checksum of everything before it.

use std::fs;
use std::path::Path;

use anyhow::{Context, Result, bail};

use super::Sample;
use oware_core::files::atomic_write;
use oware_core::game::{Position, RuleSet, Side};
use oware_net::net::checkpoint::fnv1a64;

const MAGIC: &[u8; 4] = b"OWZS";
const VERSION: u32 = 1;
/// Bytes per sample record.
pub const RECORD: usize = 52;

/// Encodes samples as a chunk file's bytes.
pub fn encode_chunk(rules: RuleSet, samples: &[Sample]) -> Vec<u8> {
    let name = rules.name().as_bytes();
    let mut b = Vec::with_capacity(16 + name.len() + samples.len() * RECORD);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.push(name.len() as u8);
    b.extend_from_slice(name);
    b.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    for s in samples {
        b.extend_from_slice(&s.position.pits);
        b.extend_from_slice(&s.position.stores);
        b.push(s.position.side as u8);
        b.push(s.legal);
        for p in s.policy {
            b.extend_from_slice(&p.to_le_bytes());
        }
        b.push(s.outcome as u8);
        b.extend_from_slice(&[0, 0, 0]);
        b.extend_from_slice(&s.store_diff.to_le_bytes());
        b.extend_from_slice(&s.search_value.to_le_bytes());
    }
    let h = fnv1a64(&b);
    b.extend_from_slice(&h.to_le_bytes());
    b
}

/// Decodes a chunk file's bytes; `what` names the file in error messages.
pub fn decode_chunk(bytes: &[u8], what: &str) -> Result<(RuleSet, Vec<Sample>)> {
    if bytes.len() < 17 || &bytes[..4] != MAGIC {
        bail!("{what}: not a sample chunk (bad magic or too short)");
    }
    let body = &bytes[..bytes.len() - 8];
    let stored = u64::from_le_bytes(bytes[bytes.len() - 8..].try_into().expect("8 bytes"));
    if fnv1a64(body) != stored {
        bail!("{what}: checksum mismatch (the file is truncated or damaged)");
    }
    let version = u32::from_le_bytes(body[4..8].try_into().expect("4 bytes"));
    if version != VERSION {
        bail!("{what}: sample format version {version}, this program reads {VERSION}");
    }
    let n = body[8] as usize;
    let name_end = 9 + n;
    if body.len() < name_end + 4 {
        bail!("{what}: truncated header");
    }
    let name = std::str::from_utf8(&body[9..name_end])
        .with_context(|| format!("{what}: rule-set name"))?;
    let rules: RuleSet = name.parse().with_context(|| format!("{what}: rule set"))?;
    let count =
        u32::from_le_bytes(body[name_end..name_end + 4].try_into().expect("4 bytes")) as usize;
    let data = &body[name_end + 4..];
    if data.len() != count * RECORD {
        bail!(
            "{what}: {count} samples announced but {} bytes of records",
            data.len()
        );
    }
    let f32_at = |r: &[u8], o: usize| f32::from_le_bytes(r[o..o + 4].try_into().expect("4 bytes"));
    let mut out = Vec::with_capacity(count);
    for (k, r) in data.chunks_exact(RECORD).enumerate() {
        let mut pits = [0u8; 12];
        pits.copy_from_slice(&r[..12]);
        let side = match r[14] {
            0 => Side::South,
            1 => Side::North,
            x => bail!("{what}: sample {k}: side byte {x} is neither 0 nor 1"),
        };
        let position = Position {
            pits,
            stores: [r[12], r[13]],
            side,
        };
        let policy = std::array::from_fn(|a| f32_at(r, 16 + 4 * a));
        out.push(Sample {
            position,
            legal: r[15],
            policy,
            outcome: r[40] as i8,
            store_diff: f32_at(r, 44),
            search_value: f32_at(r, 48),
        });
    }
    Ok((rules, out))
}

/// Writes a chunk file atomically.
pub fn write_chunk(path: &Path, rules: RuleSet, samples: &[Sample]) -> Result<()> {
    atomic_write(path, &encode_chunk(rules, samples))
}

/// Reads a chunk file, checking that it was made under `rules`.
pub fn read_chunk(path: &Path, rules: RuleSet) -> Result<Vec<Sample>> {
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let (r, s) = decode_chunk(&bytes, &path.display().to_string())?;
    if r != rules {
        bail!(
            "{}: samples are for rule set {}, this run plays {}",
            path.display(),
            r,
            rules
        );
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(k: u8) -> Sample {
        let mut p = Position::start();
        p.pits[0] = k;
        p.pits[1] = 8 - k;
        Sample {
            position: p,
            legal: 0b111111,
            policy: [0.5, 0.25, 0.125, 0.125, 0.0, 0.0],
            outcome: -1,
            store_diff: -3.5,
            search_value: 0.25,
        }
    }

    #[test]
    fn round_trip_is_exact() {
        let s: Vec<Sample> = (0..5).map(sample).collect();
        let b = encode_chunk(RuleSet::abapa(), &s);
        let (r, back) = decode_chunk(&b, "x").unwrap();
        assert_eq!(r, RuleSet::abapa());
        assert_eq!(back, s);
    }

    #[test]
    fn damage_is_detected() {
        let s: Vec<Sample> = (0..5).map(sample).collect();
        let b = encode_chunk(RuleSet::abapa(), &s);
        let e = decode_chunk(&b[..b.len() - 20], "f.bin").unwrap_err();
        assert!(e.to_string().contains("checksum"), "{e}");
        let mut c = b.clone();
        c[30] ^= 1;
        assert!(decode_chunk(&c, "f.bin").is_err());
        let e = decode_chunk(b"hello", "f.bin").unwrap_err();
        assert!(e.to_string().contains("not a sample chunk"), "{e}");
    }

    #[test]
    fn atomic_write_replaces_whole_files() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("a.bin");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two two").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two two");
        // No temporary files are left behind.
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 1);
    }
}
