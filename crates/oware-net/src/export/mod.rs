//! Export a checkpoint for other programs: ONNX (any ONNX runtime) or safetensors (the
//! weights for Python users), each with a JSON manifest beside it (`FILE.json`) that says
//! how to encode a position and how to read the outputs.
//!
//! - `onnx`: the graph via burn-onnx's exporter, with its tensors renamed to `features`,
//!   `policy_logits`, `wdl_logits` and `store_diff`.
//! - `safetensors`: the weights in PyTorch's layout, written by hand (the format is a
//!   length-prefixed JSON header and raw little-endian data).
//!
//! Every file is written atomically (a temporary file beside the target, then renamed), so
//! a failed export never leaves half a file under the requested name.

pub mod onnx;
pub mod safetensors;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::net::model::STORE_DIFF_SCALE;
use crate::net::{Checkpoint, DeviceKind, NetError, resolve_model_path};

/// What `oware export` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An ONNX model (opset 18): input `features [batch, dim]`, outputs
    /// `policy_logits [batch, 6]`, `wdl_logits [batch, 3]`, `store_diff [batch, 1]`.
    Onnx,
    /// The weights alone, PyTorch layout (`nn.Linear.weight` is `[out, in]`).
    Safetensors,
}

impl Format {
    /// The name used on the command line and in the manifest.
    pub fn name(self) -> &'static str {
        match self {
            Format::Onnx => "onnx",
            Format::Safetensors => "safetensors",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "onnx" => Ok(Format::Onnx),
            "safetensors" => Ok(Format::Safetensors),
            _ => Err(format!(
                "unknown export format '{s}': expected onnx or safetensors"
            )),
        }
    }
}

/// What an export wrote.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The model file.
    pub file: PathBuf,
    /// Its manifest (`FILE.json`).
    pub manifest: PathBuf,
    /// Size of the model file in bytes.
    pub bytes: usize,
}

/// The manifest's path for an exported `file`: the file name with `.json` appended.
pub fn manifest_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".json");
    PathBuf::from(name)
}

/// Exports the checkpoint at `model` (a checkpoint directory or a run directory, see
/// [`resolve_model_path`]) as `format` into `out`, with the manifest beside it.
pub fn export(model: &Path, format: Format, out: &Path) -> Result<Exported, NetError> {
    let dir = resolve_model_path(model)?;
    let ck = Checkpoint::load(&dir, &DeviceKind::Cpu.device()?)?;
    let manifest = manifest_json(&ck, &dir, format);
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|e| NetError::Config(format!("serialising the manifest: {e}")))?;
    let bytes = match format {
        Format::Onnx => {
            let meta = [(onnx::MANIFEST_KEY, manifest.to_string())];
            onnx::to_onnx(&ck.model, ck.manifest.model.input_dim(), &meta)?
        }
        Format::Safetensors => safetensors::to_safetensors(&ck.model, &ck.manifest)?,
    };
    let mpath = manifest_path(out);
    write_atomic(out, &bytes)?;
    write_atomic(&mpath, format!("{text}\n").as_bytes())?;
    Ok(Exported {
        file: out.to_path_buf(),
        manifest: mpath,
        bytes: bytes.len(),
    })
}

/// The manifest written beside an export: everything a frontend in another language
/// needs to feed the network and read its answers.
pub fn manifest_json(ck: &Checkpoint, source: &Path, format: Format) -> serde_json::Value {
    let m = &ck.manifest;
    let enc = m.model.encoding;
    let io = match format {
        Format::Onnx => serde_json::json!({
            "inputs": [{"name": onnx::INPUT, "shape": ["batch", enc.dim()], "dtype": "float32"}],
            "outputs": [
                {"name": onnx::OUTPUTS[0], "shape": ["batch", 6], "dtype": "float32"},
                {"name": onnx::OUTPUTS[1], "shape": ["batch", 3], "dtype": "float32"},
                {"name": onnx::OUTPUTS[2], "shape": ["batch", 1], "dtype": "float32"},
            ],
            "opset": onnx::OPSET,
        }),
        Format::Safetensors => serde_json::json!({
            "layout": "PyTorch: a linear layer's weight is [out, in] (y = x·Wᵀ + b); LayerNorm's scale and shift are `weight` and `bias`",
            "architecture": safetensors::ARCHITECTURE,
        }),
    };
    serde_json::json!({
        "format": format!("oware-zero-{}", format.name()),
        "format_version": 1,
        "encoding": {
            "name": enc.name(),
            "version": enc.version(),
            "dim": enc.dim(),
            "layout": enc.layout(),
            "perspective": "always the side to move: its own pits first (A..F for South, a..f for North, in sowing order), then the opponent's, then own store, opponent store",
        },
        "model": m.model,
        "io": io,
        "outputs": {
            "policy_logits": "6 unnormalised scores for the mover's pits in sowing order (A..F for South, a..f for North); mask the illegal moves, then softmax",
            "wdl_logits": "3 unnormalised scores for win, draw, loss from the mover's view; softmax, then value = P(win) - P(loss) in [-1, 1]",
            "store_diff": format!("tanh output in [-1, 1]: predicted final (own - opponent) store difference divided by {STORE_DIFF_SCALE}; multiply by {STORE_DIFF_SCALE} for seeds"),
        },
        "rules": m.rules,
        "step": m.step,
        "parent": m.parent,
        "source_checkpoint": source.display().to_string(),
        "exported_by": format!("oware-zero {}", env!("CARGO_PKG_VERSION")),
    })
}

/// Writes `bytes` to `path` via a temporary file in the same directory and a rename, so
/// readers see either the old file or the whole new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), NetError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |source| NetError::Io { path: p, source }
    };
    let name = path
        .file_name()
        .ok_or_else(|| NetError::Config(format!("{}: not a file name", path.display())))?;
    if path.is_dir() {
        return Err(NetError::Config(format!(
            "{}: is a directory; give a file name",
            path.display()
        )));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp_name = name.to_owned();
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = parent.join(tmp_name);
    let written = fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io(path)(e));
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io(path)(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_sits_beside_the_file() {
        assert_eq!(
            manifest_path(Path::new("out/net.onnx")),
            PathBuf::from("out/net.onnx.json")
        );
        assert_eq!("onnx".parse::<Format>(), Ok(Format::Onnx));
        assert!("pt".parse::<Format>().unwrap_err().contains("safetensors"));
    }

    #[test]
    fn atomic_write_reports_a_missing_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("no/such/dir/x.onnx");
        let e = write_atomic(&p, b"x").unwrap_err().to_string();
        assert!(e.contains("no/such/dir"), "{e}");
        let ok = tmp.path().join("x.bin");
        write_atomic(&ok, b"abc").unwrap();
        assert_eq!(fs::read(&ok).unwrap(), b"abc");
        assert!(write_atomic(tmp.path(), b"x").is_err());
    }
}
