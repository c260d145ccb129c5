//! The one checkpoint format: a directory
//!
//! ```text
//! NAME/
//!   manifest.json    what the weights are (see [`Manifest`]), with each file's size and hash
//!   model.bpk        the weights (burnpack, via burn-store)
//!   optimizer.bpk    the optimizer state (burnpack; only in checkpoints written by training)
//! ```
//!
//! A run directory keeps its checkpoints as `RUN/checkpoints/iter-NNNN/` (see
//! [`checkpoint_name`]) and names the newest in the text file `RUN/checkpoints/latest`;
//! [`resolve_model_path`] turns either kind of path into a checkpoint directory.
//!
//! Writes are atomic: everything is written into `NAME.tmp-PID-NANOS/` beside the target,
//! flushed, then renamed to `NAME/`, so a crash leaves either no checkpoint or a whole one.
//! Loading checks the manifest against the code (format, encoding name, version and width)
//! and each file's size and FNV-1a hash before burn reads it, so a missing, truncated or
//! corrupted file gives a message naming it rather than a panic deep inside burn.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use burn::module::Module;
use burn::optim::ModuleOptimizer;
use burn::store::{BurnpackStore, ModuleSnapshot};
use burn::tensor::Device;
use serde::{Deserialize, Serialize};

use super::learner_config::LearnerConfig;
use super::model::{ModelConfig, PolicyValueNet};
use super::{NetError, catch_burn};
use oware_core::env::encoding::Encoding;
use oware_core::game::RuleSet;
use oware_core::search::mcts::{MctsConfig, SearchValue};

/// The manifest's file name inside a checkpoint directory.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The weights' file name inside a checkpoint directory.
pub const MODEL_FILE: &str = "model.bpk";
/// The optimizer state's file name inside a checkpoint directory.
pub const OPTIMIZER_FILE: &str = "optimizer.bpk";
/// The value of [`Manifest::format`].
pub const FORMAT: &str = "oware-zero-checkpoint";
/// The current [`Manifest::format_version`]; bumped when the layout changes.
pub const FORMAT_VERSION: u32 = 1;

/// The encoding a model was trained with, as recorded in the manifest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EncodingInfo {
    /// [`Encoding::name`].
    pub name: String,
    /// [`Encoding::version`].
    pub version: u32,
    /// [`Encoding::dim`]: features per position.
    pub dim: usize,
}

/// One file of the checkpoint, so loading can tell truncation and corruption apart.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileEntry {
    /// File name inside the checkpoint directory.
    pub name: String,
    /// Size in bytes.
    pub bytes: u64,
    /// FNV-1a 64-bit hash of the contents, 16 lowercase hex digits.
    pub fnv1a64: String,
}

/// `manifest.json`: everything needed to rebuild and trust the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`FORMAT_VERSION`] when written.
    pub format_version: u32,
    /// The network's shape.
    pub model: ModelConfig,
    /// The input encoding (repeats `model.encoding` with its version and width, so a
    /// reader can check them without knowing this code).
    pub encoding: EncodingInfo,
    /// Rule-set name the model was trained for (e.g. `abapa`).
    pub rules: String,
    /// Training steps (optimizer updates) taken to reach these weights.
    pub step: u64,
    /// Name or path of the checkpoint these weights were trained from, if any.
    pub parent: Option<String>,
    /// Creation time, seconds since the Unix epoch (UTC).
    pub created_unix: u64,
    /// The training config, present when the optimizer state was saved too.
    pub training: Option<LearnerConfig>,
    /// The search settings the model was trained with (self-play's MCTS), which players
    /// of this model search with unless told otherwise. Absent in checkpoints written
    /// before they were recorded: those mean [`UNRECORDED_SEARCH`].
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "recorded_search"
    )]
    pub search: Option<MctsConfig>,
    /// The files of the checkpoint with their sizes and hashes.
    pub files: Vec<FileEntry>,
}

impl Manifest {
    /// A manifest for a model of shape `model` trained for `rules`, at training `step`.
    /// `files` is filled in by [`save`].
    pub fn new(model: &ModelConfig, rules: RuleSet, step: u64, parent: Option<String>) -> Self {
        let e = model.encoding;
        Manifest {
            format: FORMAT.into(),
            format_version: FORMAT_VERSION,
            model: model.clone(),
            encoding: EncodingInfo {
                name: e.name().into(),
                version: e.version(),
                dim: e.dim(),
            },
            rules: rules.name().into(),
            step,
            parent,
            created_unix: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            training: None,
            search: None,
            files: Vec::new(),
        }
    }

    /// Checks the manifest against this program: format, version, encoding, rules.
    pub fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("format is '{}', expected '{FORMAT}'", self.format));
        }
        if self.format_version != FORMAT_VERSION {
            return Err(format!(
                "format version {} is not the {FORMAT_VERSION} this program reads",
                self.format_version
            ));
        }
        let enc: Encoding = self
            .encoding
            .name
            .parse()
            .map_err(|e| format!("manifest encoding: {e}"))?;
        if enc != self.model.encoding {
            return Err(format!(
                "manifest encoding '{}' differs from the model config's '{}'",
                enc, self.model.encoding
            ));
        }
        if self.encoding.version != enc.version() {
            return Err(format!(
                "encoding {} version {} was used to train this model, but this program has version {}",
                enc,
                self.encoding.version,
                enc.version()
            ));
        }
        if self.encoding.dim != enc.dim() {
            return Err(format!(
                "encoding {} has {} features here but the manifest says {}",
                enc,
                enc.dim(),
                self.encoding.dim
            ));
        }
        self.model.validate()?;
        self.rules
            .parse::<RuleSet>()
            .map_err(|e| format!("manifest rules: {e}"))?;
        Ok(())
    }

    /// The search settings to play this model with: those it was trained with, or
    /// [`UNRECORDED_SEARCH`]'s for a checkpoint that does not record them.
    pub fn search_settings(&self) -> MctsConfig {
        self.search.clone().unwrap_or_else(unrecorded_search)
    }

    /// The rule set, parsed.
    pub fn rule_set(&self) -> Result<RuleSet, NetError> {
        self.rules
            .parse()
            .map_err(|e| NetError::Config(format!("manifest rules: {e}")))
    }
}

/// What a checkpoint that records no search settings was trained with, named here so that
/// its players keep searching as they always have whatever the training defaults become:
/// priors at temperature 1, the root's mean value. The other constants are
/// [`MctsConfig::default`]'s, which the trainer has not changed since.
pub const UNRECORDED_SEARCH: (f32, SearchValue) = (1.0, SearchValue::Mean);

/// [`UNRECORDED_SEARCH`] as a whole config.
fn unrecorded_search() -> MctsConfig {
    let (policy_temperature, search_value) = UNRECORDED_SEARCH;
    MctsConfig {
        policy_temperature,
        search_value,
        ..MctsConfig::default()
    }
}

/// A manifest's search settings as any version of the trainer wrote them. A setting
/// since removed is read where it holds the only behaviour the search still has
/// (`gumbel_rescale_q = true`: the completed Q is always rescaled by its min and max),
/// and refused otherwise, since the network would be played other than it was trained.
fn recorded_search<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<MctsConfig>, D::Error> {
    let Some(mut v) = Option::<serde_json::Value>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(old) = v.as_object_mut().and_then(|m| m.remove("gumbel_rescale_q"))
        && old != serde_json::Value::Bool(true)
    {
        return Err(serde::de::Error::custom(format!(
            "search.gumbel_rescale_q = {old} was removed: the completed Q is always rescaled \
             by its min and max, so this network cannot be searched as it was trained"
        )));
    }
    serde_json::from_value(v)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

/// A loaded checkpoint: its manifest and the model on the requested device.
#[derive(Debug)]
pub struct Checkpoint {
    /// The checked manifest.
    pub manifest: Manifest,
    /// The weights, on the device given to [`Checkpoint::load`].
    pub model: PolicyValueNet,
    /// The directory it was read from.
    pub dir: PathBuf,
}

/// FNV-1a, 64 bits: a fast hash that catches truncation and flipped bytes (not an
/// integrity guarantee against tampering, which is not the threat here).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01B3);
    }
    h
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> NetError + '_ {
    move |source| NetError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn ck_err(path: &Path, message: impl Into<String>) -> NetError {
    NetError::Checkpoint {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn file_entry(path: &Path, name: &str) -> Result<FileEntry, NetError> {
    let bytes = fs::read(path).map_err(io_err(path))?;
    Ok(FileEntry {
        name: name.into(),
        bytes: bytes.len() as u64,
        fnv1a64: format!("{:016x}", fnv1a64(&bytes)),
    })
}

fn sync_file(path: &Path) -> Result<(), NetError> {
    fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(io_err(path))
}

/// Writes a checkpoint directory at `dir` (which must not exist): the weights of `model`,
/// the optimizer state if given, and `manifest` (its `files` list is filled in here).
/// Atomic: see the module docs.
pub fn save(
    dir: &Path,
    manifest: &Manifest,
    model: &PolicyValueNet,
    optimizer: Option<&ModuleOptimizer>,
) -> Result<(), NetError> {
    if fs::symlink_metadata(dir).is_ok() {
        return Err(ck_err(
            dir,
            "already exists; checkpoints are never overwritten",
        ));
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&parent).map_err(io_err(&parent))?;
    let name = dir
        .file_name()
        .ok_or_else(|| ck_err(dir, "has no directory name"))?
        .to_string_lossy()
        .into_owned();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = parent.join(format!("{name}.tmp-{}-{nanos}", std::process::id()));
    fs::create_dir(&tmp).map_err(io_err(&tmp))?;
    let result = write_into(&tmp, manifest, model, optimizer).and_then(|()| {
        fs::rename(&tmp, dir).map_err(io_err(dir))?;
        // Make the rename itself durable.
        if let Ok(d) = fs::File::open(&parent) {
            let _ = d.sync_all();
        }
        Ok(())
    });
    if result.is_err() {
        let _ = fs::remove_dir_all(&tmp);
    }
    result
}

fn write_into(
    tmp: &Path,
    manifest: &Manifest,
    model: &PolicyValueNet,
    optimizer: Option<&ModuleOptimizer>,
) -> Result<(), NetError> {
    let mut manifest = manifest.clone();
    manifest.files.clear();

    let model_path = tmp.join(MODEL_FILE);
    let mut store = BurnpackStore::from_file(&model_path)
        .auto_extension(false)
        .overwrite(true)
        .metadata("oware-zero", FORMAT);
    catch_burn("saving the weights", || model.save_into(&mut store))?
        .map_err(|e| ck_err(&model_path, format!("writing the weights: {e}")))?;
    sync_file(&model_path)?;
    manifest.files.push(file_entry(&model_path, MODEL_FILE)?);

    if let Some(opt) = optimizer {
        let opt_path = tmp.join(OPTIMIZER_FILE);
        catch_burn("saving the optimizer state", || opt.save(&opt_path))?
            .map_err(|e| ck_err(&opt_path, format!("writing the optimizer state: {e:?}")))?;
        sync_file(&opt_path)?;
        manifest.files.push(file_entry(&opt_path, OPTIMIZER_FILE)?);
    }

    let manifest_path = tmp.join(MANIFEST_FILE);
    let text = serde_json::to_string_pretty(&manifest)
        .map_err(|e| NetError::Config(format!("serialising the manifest: {e}")))?;
    let mut f = fs::File::create(&manifest_path).map_err(io_err(&manifest_path))?;
    f.write_all(text.as_bytes())
        .and_then(|()| f.write_all(b"\n"))
        .and_then(|()| f.sync_all())
        .map_err(io_err(&manifest_path))?;
    Ok(())
}

/// Reads and checks `dir/manifest.json`.
pub fn read_manifest(dir: &Path) -> Result<Manifest, NetError> {
    if !dir.is_dir() {
        return Err(ck_err(
            dir,
            "is not a directory (expected a checkpoint directory)",
        ));
    }
    let path = dir.join(MANIFEST_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ck_err(
                dir,
                format!("has no {MANIFEST_FILE}; not a checkpoint"),
            ));
        }
        Err(e) => return Err(io_err(&path)(e)),
    };
    let m: Manifest = serde_json::from_str(&text)
        .map_err(|e| ck_err(&path, format!("unreadable manifest: {e}")))?;
    m.check().map_err(|e| ck_err(&path, e))?;
    Ok(m)
}

/// Reads file `name` of the checkpoint and checks it against the manifest's size and hash.
fn read_checked(dir: &Path, m: &Manifest, name: &str) -> Result<Vec<u8>, NetError> {
    let path = dir.join(name);
    let entry = m
        .files
        .iter()
        .find(|f| f.name == name)
        .ok_or_else(|| ck_err(dir, format!("the manifest lists no {name}")))?;
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ck_err(&path, "is missing"));
        }
        Err(e) => return Err(io_err(&path)(e)),
    };
    if bytes.len() as u64 != entry.bytes {
        return Err(ck_err(
            &path,
            format!(
                "is {} bytes but the manifest says {}: truncated or replaced",
                bytes.len(),
                entry.bytes
            ),
        ));
    }
    let h = format!("{:016x}", fnv1a64(&bytes));
    if h != entry.fnv1a64 {
        return Err(ck_err(
            &path,
            format!(
                "is corrupted: its hash {h} differs from the manifest's {}",
                entry.fnv1a64
            ),
        ));
    }
    Ok(bytes)
}

/// Why the weights a store applied do not fit the model, in words: the first layer of
/// another shape (with both sizes), or a layer the file lacks.
fn weights_mismatch(r: &burn::store::ApplyResult) -> Option<String> {
    use burn::store::ApplyError;
    if let Some(e) = r.errors.first() {
        return Some(match e {
            ApplyError::ShapeMismatch {
                path,
                expected,
                found,
            } => format!(
                "layer {path} is {} in the file but {} in the model (is the manifest's model.width or model.blocks right?)",
                dims(found.as_slice()),
                dims(expected.as_slice())
            ),
            ApplyError::DTypeMismatch {
                path,
                expected,
                found,
            } => format!("layer {path} holds {found:?} numbers, the model {expected:?}"),
            ApplyError::AdapterError { path, message }
            | ApplyError::LoadError { path, message } => {
                format!("layer {path}: {message}")
            }
        });
    }
    r.missing
        .first()
        .map(|(path, _)| format!("the file has no weights for layer {path}"))
}

/// Sizes as `256×354`.
fn dims(d: &[usize]) -> String {
    d.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join("×")
}

impl Checkpoint {
    /// Loads the checkpoint in `dir` onto `device` (for training, pass an autodiff
    /// device). Checks the manifest and the weights file first; never panics on bad files.
    pub fn load(dir: &Path, device: &Device) -> Result<Checkpoint, NetError> {
        let manifest = read_manifest(dir)?;
        let bytes = read_checked(dir, &manifest, MODEL_FILE)?;
        let path = dir.join(MODEL_FILE);
        let config = manifest.model.clone();
        let (model, applied) = catch_burn("loading the weights", || {
            let mut model = config.init(device);
            // Checked here rather than by the store, whose message is a debug dump.
            let mut store =
                BurnpackStore::from_bytes(Some(burn::tensor::Bytes::from_bytes_vec(bytes)))
                    .validate(false)
                    .allow_partial(true);
            model.load_from(&mut store).map(|r| (model, r))
        })
        .map_err(|e| ck_err(&path, e.to_string()))?
        .map_err(|e| ck_err(&path, format!("does not match the manifest's model: {e}")))?;
        if let Some(why) = weights_mismatch(&applied) {
            return Err(ck_err(
                &path,
                format!("does not match the manifest's model: {why}"),
            ));
        }
        Ok(Checkpoint {
            manifest,
            model,
            dir: dir.to_path_buf(),
        })
    }

    /// Whether the checkpoint holds an optimizer state.
    pub fn has_optimizer(&self) -> bool {
        self.manifest.files.iter().any(|f| f.name == OPTIMIZER_FILE)
    }

    /// Loads the saved optimizer state into `optimizer` (built from the same config).
    pub fn load_optimizer(&self, optimizer: ModuleOptimizer) -> Result<ModuleOptimizer, NetError> {
        let bytes = read_checked(&self.dir, &self.manifest, OPTIMIZER_FILE)?;
        let path = self.dir.join(OPTIMIZER_FILE);
        catch_burn("loading the optimizer state", || {
            optimizer.from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes))
        })
        .map_err(|e| ck_err(&path, e.to_string()))?
        .map_err(|e| ck_err(&path, format!("unreadable optimizer state: {e:?}")))
    }

    /// Moves the model to `device` (e.g. to get an inference copy elsewhere).
    pub fn to_device(mut self, device: &Device) -> Self {
        self.model = self.model.to_device(device);
        self
    }
}

/// The directory name of the checkpoint after training iteration `iter`: `iter-NNNN`.
pub fn checkpoint_name(iter: u64) -> String {
    format!("iter-{iter:04}")
}

/// Where a run keeps its checkpoints: `RUN/checkpoints`.
pub fn checkpoints_dir(run: &Path) -> PathBuf {
    run.join("checkpoints")
}

/// Records `name` (a directory inside `RUN/checkpoints`) as the run's newest checkpoint,
/// atomically (write `latest.tmp`, then rename over `latest`).
pub fn write_latest(run: &Path, name: &str) -> Result<(), NetError> {
    let dir = checkpoints_dir(run);
    fs::create_dir_all(&dir).map_err(io_err(&dir))?;
    let tmp = dir.join(format!("latest.tmp-{}", std::process::id()));
    let path = dir.join("latest");
    fs::write(&tmp, format!("{name}\n")).map_err(io_err(&tmp))?;
    fs::rename(&tmp, &path).map_err(io_err(&path))
}

/// Turns `--model PATH` into a checkpoint directory: `PATH` itself if it holds a
/// `manifest.json`; otherwise `PATH` is a run directory and the answer is the checkpoint
/// named by `PATH/checkpoints/latest`.
pub fn resolve_model_path(path: &Path) -> Result<PathBuf, NetError> {
    if path.join(MANIFEST_FILE).is_file() {
        return Ok(path.to_path_buf());
    }
    if !path.exists() {
        return Err(ck_err(path, "does not exist"));
    }
    let latest = checkpoints_dir(path).join("latest");
    match fs::read_to_string(&latest) {
        Ok(text) => {
            let name = text.trim();
            if name.is_empty() || name.contains('/') || name.contains("..") {
                return Err(ck_err(
                    &latest,
                    format!("names '{name}', which is not a checkpoint directory name"),
                ));
            }
            let dir = checkpoints_dir(path).join(name);
            if !dir.join(MANIFEST_FILE).is_file() {
                return Err(ck_err(
                    &dir,
                    format!(
                        "is named by {} but holds no {MANIFEST_FILE}",
                        latest.display()
                    ),
                ));
            }
            Ok(dir)
        }
        Err(_) => Err(ck_err(
            path,
            format!(
                "is neither a checkpoint directory (no {MANIFEST_FILE}) nor a run directory (no checkpoints/latest)"
            ),
        )),
    }
}

/// The network shipped with the project, used when `--model` is not given:
/// `checkpoints/oware-abapa` under the current directory if it is there, else under the
/// source tree this binary was built from.
pub fn default_model_path() -> PathBuf {
    let local = PathBuf::from("checkpoints").join("oware-abapa");
    if local.join(MANIFEST_FILE).is_file() {
        local
    } else {
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("checkpoints")
            .join("oware-abapa")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::evaluator::tests::random_positions;
    use crate::net::evaluator::{InferencePath, NetEvaluator};

    fn small() -> ModelConfig {
        ModelConfig {
            width: 24,
            ..ModelConfig::default()
        }
    }

    fn saved(dir: &Path) -> (ModelConfig, PolicyValueNet) {
        let cfg = small();
        let model = cfg.init(&Device::flex());
        let m = Manifest::new(&cfg, RuleSet::abapa(), 7, Some("iter-0000".into()));
        save(dir, &m, &model, None).unwrap();
        (cfg, model)
    }

    #[test]
    fn save_then_load_gives_bit_identical_outputs() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ck");
        let (cfg, model) = saved(&dir);
        let ck = Checkpoint::load(&dir, &Device::flex()).unwrap();
        assert_eq!(ck.manifest.step, 7);
        assert_eq!(ck.manifest.model, cfg);
        assert_eq!(ck.manifest.parent.as_deref(), Some("iter-0000"));
        let pos = random_positions(50, 3);
        for path in [InferencePath::Burn, InferencePath::Fast] {
            let mut a = NetEvaluator::new(&model, &cfg).unwrap().with_path(path);
            let mut b = NetEvaluator::new(&ck.model, &cfg).unwrap().with_path(path);
            let x = a.forward_positions(&pos).unwrap().to_vec();
            let y = b.forward_positions(&pos).unwrap().to_vec();
            assert_eq!(
                x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                y.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
            );
        }
        // No temporary directory is left behind.
        let names: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("ck")]);
        // Never overwritten.
        assert!(save(&dir, &ck.manifest, &model, None).is_err());
    }

    fn load_err(dir: &Path) -> String {
        match Checkpoint::load(dir, &Device::flex()) {
            Ok(_) => panic!("loaded a broken checkpoint {}", dir.display()),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn truncated_corrupt_and_missing_files_are_rejected_with_a_message() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ck");
        saved(&dir);
        let weights = dir.join(MODEL_FILE);
        let good = fs::read(&weights).unwrap();

        fs::write(&weights, &good[..good.len() / 2]).unwrap();
        let e = load_err(&dir);
        assert!(e.contains("truncated") && e.contains(MODEL_FILE), "{e}");

        let mut bad = good.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 0x5a;
        fs::write(&weights, &bad).unwrap();
        let e = load_err(&dir);
        assert!(e.contains("corrupted"), "{e}");

        fs::remove_file(&weights).unwrap();
        let e = load_err(&dir);
        assert!(e.contains("missing"), "{e}");

        let e = load_err(&tmp.path().join("nowhere"));
        assert!(e.contains("not a directory"), "{e}");

        fs::write(dir.join(MANIFEST_FILE), "{ not json").unwrap();
        let e = load_err(&dir);
        assert!(e.contains("unreadable manifest"), "{e}");
    }

    #[test]
    fn garbage_weights_with_a_matching_hash_give_an_error_not_a_panic() {
        // A manifest that vouches for a garbage file: burn itself must reject it.
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ck");
        saved(&dir);
        let garbage: Vec<u8> = (0..5000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        fs::write(dir.join(MODEL_FILE), &garbage).unwrap();
        let mut m = read_manifest(&dir).unwrap();
        m.files[0] = file_entry(&dir.join(MODEL_FILE), MODEL_FILE).unwrap();
        fs::write(dir.join(MANIFEST_FILE), serde_json::to_string(&m).unwrap()).unwrap();
        let e = load_err(&dir);
        assert!(e.contains(MODEL_FILE), "{e}");

        // A truncated weights file that the manifest vouches for.
        let dir3 = tmp.path().join("ck3");
        saved(&dir3);
        let w3 = dir3.join(MODEL_FILE);
        let good = fs::read(&w3).unwrap();
        for cut in [good.len() - 100, good.len() / 2, 40, 0] {
            fs::write(&w3, &good[..cut]).unwrap();
            let mut m = read_manifest(&dir3).unwrap();
            m.files[0] = file_entry(&w3, MODEL_FILE).unwrap();
            fs::write(dir3.join(MANIFEST_FILE), serde_json::to_string(&m).unwrap()).unwrap();
            let e = load_err(&dir3);
            assert!(e.contains(MODEL_FILE), "cut at {cut}: {e}");
        }

        // Weights of a different shape than the manifest says.
        let dir2 = tmp.path().join("ck2");
        saved(&dir2);
        let mut m = read_manifest(&dir2).unwrap();
        m.model.width = 25;
        fs::write(dir2.join(MANIFEST_FILE), serde_json::to_string(&m).unwrap()).unwrap();
        let e = load_err(&dir2);
        assert!(e.contains("does not match"), "{e}");
    }

    #[test]
    fn mismatched_manifests_are_rejected() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("ck");
        saved(&dir);
        let good = read_manifest(&dir).unwrap();
        type Edit = Box<dyn Fn(&mut Manifest)>;
        let cases: [(&str, Edit); 4] = [
            (
                "unknown encoding",
                Box::new(|m| m.encoding.name = "bitboard".into()),
            ),
            ("version", Box::new(|m| m.encoding.version = 99)),
            ("features", Box::new(|m| m.encoding.dim = 13)),
            ("format version", Box::new(|m| m.format_version = 2)),
        ];
        for (want, edit) in cases {
            let mut m = good.clone();
            edit(&mut m);
            fs::write(dir.join(MANIFEST_FILE), serde_json::to_string(&m).unwrap()).unwrap();
            let e = load_err(&dir);
            assert!(e.contains(want), "expected '{want}' in: {e}");
        }
    }

    #[test]
    fn run_directories_resolve_to_their_latest_checkpoint() {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path();
        assert!(resolve_model_path(run).is_err());
        let a = checkpoints_dir(run).join(checkpoint_name(1));
        let b = checkpoints_dir(run).join(checkpoint_name(2));
        saved(&a);
        saved(&b);
        write_latest(run, &checkpoint_name(1)).unwrap();
        assert_eq!(resolve_model_path(run).unwrap(), a);
        write_latest(run, "iter-0002").unwrap();
        assert_eq!(resolve_model_path(run).unwrap(), b);
        assert_eq!(resolve_model_path(&b).unwrap(), b);
        let (mut e, m) = NetEvaluator::from_checkpoint(run, crate::net::DeviceKind::Cpu).unwrap();
        assert_eq!(m.step, 7);
        assert_eq!(
            e.forward_positions(&random_positions(3, 1)).unwrap().len(),
            30
        );
        write_latest(run, "iter-0009").unwrap();
        assert!(
            resolve_model_path(run)
                .unwrap_err()
                .to_string()
                .contains("iter-0009")
        );
    }

    #[test]
    fn manifests_without_search_settings_mean_the_unrecorded_search() {
        // v1 predates the field: it loads, with temperature 1 and the root's mean
        // value; the shipped network records the settings it was trained with.
        let v1 = default_model_path().with_file_name("oware-abapa-v1");
        let m = read_manifest(&v1).unwrap();
        assert_eq!(m.search, None);
        let s = m.search_settings();
        assert_eq!((s.policy_temperature, s.search_value), UNRECORDED_SEARCH);
        assert_eq!(s, MctsConfig::default());
        let shipped = read_manifest(&default_model_path()).unwrap();
        assert_eq!(shipped.search_settings().policy_temperature, 2.0);
        // Recorded settings survive the JSON round trip; an unknown key is still refused.
        let mut m2 = m.clone();
        m2.search = Some(MctsConfig {
            algorithm: oware_core::search::mcts::Algorithm::Puct,
            fpu_reduction: 0.5,
            ..MctsConfig::default()
        });
        let text = serde_json::to_string(&m2).unwrap();
        assert!(text.contains("\"search\""));
        let back: Manifest = serde_json::from_str(&text).unwrap();
        assert_eq!(back, m2);
        let bad = text.replace("\"fpu_reduction\"", "\"fpu\"");
        assert!(serde_json::from_str::<Manifest>(&bad).is_err());
        // Manifests written while `gumbel_rescale_q` was a setting still load when it
        // held the rescaling the search always does now, and only then.
        let old = text.replace(
            "\"fpu_reduction\"",
            "\"gumbel_rescale_q\":true,\"fpu_reduction\"",
        );
        assert_eq!(serde_json::from_str::<Manifest>(&old).unwrap(), m2);
        let off = old.replace("\"gumbel_rescale_q\":true", "\"gumbel_rescale_q\":false");
        let e = serde_json::from_str::<Manifest>(&off)
            .unwrap_err()
            .to_string();
        assert!(e.contains("gumbel_rescale_q = false was removed"), "{e}");
    }

    #[test]
    fn recorded_manifests_of_every_trainer_version_load() {
        // Manifests kept in the records, written by trainers that still had since-removed
        // settings (`gumbel_rescale_q`).
        let root = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("experiments/recorded");
        let mut n = 0;
        for dir in [
            "long-1204/capsule/checkpoints/iter-0103",
            "default-1202/checkpoint",
            "default-1203/checkpoint",
        ] {
            let p = root.join(dir);
            if p.exists() {
                let m = read_manifest(&p).unwrap_or_else(|e| panic!("{dir}: {e}"));
                assert!(m.search.is_some(), "{dir}");
                n += 1;
            }
        }
        assert!(n > 0, "no recorded manifest found");
    }
}
