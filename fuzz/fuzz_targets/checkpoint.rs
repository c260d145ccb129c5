//! Checkpoints: `manifest.json` text, a line `--`, then the weights file. The harness
//! writes the manifest's size and hash of the weights into it when it parses as JSON, so
//! the fuzzer reaches the weights decoder instead of stopping at the checksum. Loading
//! must end in a network or an error, never a panic or an abort.
#![no_main]
use libfuzzer_sys::fuzz_target;
use oware_zero::net::checkpoint::fnv1a64;
use oware_zero::net::{DeviceKind, NetEvaluator};

fuzz_target!(
    init: {
        // Panics that the loader catches (inside burn) must not count as crashes; one that
        // escapes still aborts the process.
        let _ = std::panic::take_hook();
    },
    |data: &[u8]| {
    let sep = b"\n--\n";
    let Some(at) = data.windows(sep.len()).position(|w| w == sep) else {
        return;
    };
    let (manifest, weights) = (&data[..at], &data[at + sep.len()..]);
    let mut manifest = manifest.to_vec();
    if let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(&manifest) {
        if let Some(files) = v.get_mut("files").and_then(|f| f.as_array_mut()) {
            for f in files {
                if f.get("name").and_then(|n| n.as_str()) == Some("model.bpk") {
                    f["bytes"] = (weights.len() as u64).into();
                    f["fnv1a64"] = format!("{:016x}", fnv1a64(weights)).into();
                }
            }
        }
        manifest = serde_json::to_vec(&v).expect("a JSON value prints");
    }
    let d = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(d.path().join("manifest.json"), &manifest).expect("write");
    std::fs::write(d.path().join("model.bpk"), weights).expect("write");
    let _ = NetEvaluator::from_checkpoint(d.path(), DeviceKind::Cpu);
});
