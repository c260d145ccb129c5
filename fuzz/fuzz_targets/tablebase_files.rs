//! Tablebase files: `manifest.json` text, a line `--`, then the file of one seed count.
//! The harness fixes the size and checksum in the manifest when it parses as JSON, so the
//! fuzzer reaches the header and entry checks. Opening and probing end in values or
//! errors, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;
use oware_zero::game::Position;
use oware_zero::tablebase::{Tablebase, file::checksum};

fuzz_target!(|data: &[u8]| {
    let sep = b"\n--\n";
    let Some(at) = data.windows(sep.len()).position(|w| w == sep) else {
        return;
    };
    let (manifest, table) = (&data[..at], &data[at + sep.len()..]);
    let mut manifest = manifest.to_vec();
    let mut name = String::from("seeds-00.owtb");
    if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&manifest) {
        if let Some(f) = v
            .get_mut("files")
            .and_then(|f| f.as_array_mut())
            .and_then(|f| f.last_mut())
        {
            if let Some(n) = f.get("file").and_then(|n| n.as_str()) {
                // A name the file system can hold (the harness writes it).
                let plain = n.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b));
                if plain && !n.starts_with('.') && !n.is_empty() && n.len() <= 64 {
                    name = n.to_string();
                }
            }
            f["bytes"] = (table.len() as u64).into();
            f["checksum"] = format!("{:016x}", checksum(table)).into();
        }
        manifest = serde_json::to_vec(&v).expect("a JSON value prints");
    }
    let d = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(d.path().join("manifest.json"), &manifest).expect("write");
    std::fs::write(d.path().join(&name), table).expect("write");
    if let Ok(tb) = Tablebase::open(d.path()) {
        for fen in ["0-0-0-0-0-1-0-0-0-0-0-1-23-23-S", "1-0-0-0-0-0-0-0-0-2-0-0-22-23-N"] {
            let p: Position = fen.parse().expect("a valid position");
            if tb.covers(&p) {
                let _ = tb.probe(&p);
            }
        }
    }
});
