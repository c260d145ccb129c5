//! Weight averaging: one network whose every parameter is the mean of the same parameter
//! in several checkpoints of one run (stochastic weight averaging, as KataGo ships its
//! networks). Consecutive checkpoints of a run scatter around the weights the run is
//! heading for; their mean sits nearer the middle and usually plays better than any one
//! of them. `oware average` writes it as a checkpoint.

use std::path::{Path, PathBuf};

use burn::module::{Module, ModuleMapper, ModuleVisitor, Param};
use burn::tensor::{Device, Tensor, TensorData};

use super::checkpoint::{self, Checkpoint, Manifest, resolve_model_path};
use super::fast::tensor_vec;
use super::model::PolicyValueNet;
use super::{NetError, catch_burn};

/// One parameter: its shape and its values, row-major.
type Values = (Vec<usize>, Vec<f32>);

/// Every float parameter's values, in the module's own visiting order.
#[derive(Default)]
struct Collect {
    params: Vec<Values>,
    error: Option<NetError>,
}

impl ModuleVisitor for Collect {
    fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
        let t = param.val();
        let shape = t.dims().to_vec();
        match tensor_vec(t, "the weights") {
            Ok(v) => self.params.push((shape, v)),
            Err(e) => self.error = self.error.take().or(Some(e)),
        }
    }
}

/// Puts the given values into each float parameter in turn (the same visiting order).
struct Replace {
    values: std::vec::IntoIter<Vec<f32>>,
}

impl ModuleMapper for Replace {
    fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
        let v = self.values.next().expect("one value per parameter");
        param.map(|t| {
            let shape = t.shape();
            Tensor::from_data(TensorData::new(v, shape), &t.device())
        })
    }
}

fn parameters(model: &PolicyValueNet) -> Result<Vec<Values>, NetError> {
    let mut c = Collect::default();
    catch_burn("reading the weights", || model.visit(&mut c))?;
    match c.error {
        Some(e) => Err(e),
        None => Ok(c.params),
    }
}

/// The network whose every parameter is the mean of that parameter over `models` (all of
/// one shape). Sums are taken in f64.
pub fn average(models: &[PolicyValueNet]) -> Result<PolicyValueNet, NetError> {
    let first = models
        .first()
        .ok_or_else(|| NetError::Config("nothing to average".into()))?;
    let mut sums: Vec<(Vec<usize>, Vec<f64>)> = parameters(first)?
        .into_iter()
        .map(|(s, v)| (s, v.into_iter().map(f64::from).collect()))
        .collect();
    for (i, m) in models.iter().enumerate().skip(1) {
        let p = parameters(m)?;
        let same = p.len() == sums.len() && p.iter().zip(&sums).all(|(a, b)| a.0 == b.0);
        if !same {
            return Err(NetError::Config(format!(
                "network {} has another shape than the first",
                i + 1
            )));
        }
        for ((_, sum), (_, v)) in sums.iter_mut().zip(p) {
            for (s, x) in sum.iter_mut().zip(v) {
                *s += f64::from(x);
            }
        }
    }
    let n = models.len() as f64;
    let values: Vec<Vec<f32>> = sums
        .into_iter()
        .map(|(_, s)| s.into_iter().map(|x| (x / n) as f32).collect())
        .collect();
    let mut r = Replace {
        values: values.into_iter(),
    };
    catch_burn("writing the averaged weights", || first.clone().map(&mut r))
}

/// What [`average_checkpoints`] wrote.
#[derive(Debug)]
pub struct Averaged {
    /// The checkpoints averaged, as resolved (a run directory means its latest).
    pub inputs: Vec<PathBuf>,
    /// The new checkpoint's manifest.
    pub manifest: Manifest,
}

/// Averages the checkpoints (or run directories: their latest checkpoint) in `inputs`
/// and saves the result as a new checkpoint at `out`, without optimizer state. They must
/// share the network's shape and rule set; the manifest keeps the first one's training
/// and search settings, and the largest step.
pub fn average_checkpoints(inputs: &[PathBuf], out: &Path) -> Result<Averaged, NetError> {
    if inputs.len() < 2 {
        return Err(NetError::Config(
            "give at least two checkpoints to average".into(),
        ));
    }
    let device = Device::flex();
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut cks: Vec<Checkpoint> = Vec::new();
    for p in inputs {
        let dir = resolve_model_path(p)?;
        let ck = Checkpoint::load(&dir, &device)?;
        if let Some(first) = cks.first() {
            let (a, b) = (&first.manifest, &ck.manifest);
            if a.model != b.model {
                return Err(NetError::Config(format!(
                    "{}: its network ({} wide, {} blocks, {}) differs from {}'s ({} wide, {} blocks, {})",
                    dir.display(),
                    b.model.width,
                    b.model.blocks,
                    b.model.encoding,
                    dirs[0].display(),
                    a.model.width,
                    a.model.blocks,
                    a.model.encoding
                )));
            }
            if a.rules != b.rules {
                return Err(NetError::Config(format!(
                    "{}: trained for rules {}, {} for {}",
                    dir.display(),
                    b.rules,
                    dirs[0].display(),
                    a.rules
                )));
            }
        }
        dirs.push(dir);
        cks.push(ck);
    }
    let models: Vec<PolicyValueNet> = cks.iter().map(|c| c.model.clone()).collect();
    let model = average(&models)?;
    let first = &cks[0].manifest;
    let names: Vec<String> = dirs
        .iter()
        .map(|d| {
            d.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| d.display().to_string())
        })
        .collect();
    let step = cks.iter().map(|c| c.manifest.step).max().unwrap_or(0);
    let mut m = Manifest::new(
        &first.model,
        first.rule_set()?,
        step,
        Some(format!("average of {}", names.join(", "))),
    );
    m.training = first.training.clone();
    m.search = first.search.clone();
    checkpoint::save(out, &m, &model, None)?;
    Ok(Averaged {
        inputs: dirs,
        manifest: checkpoint::read_manifest(out)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::model::{ModelConfig, Norm};

    #[test]
    fn each_parameter_is_the_mean_of_the_inputs() {
        let cfg = ModelConfig {
            width: 24,
            blocks: 2,
            norm: Norm::Layernorm,
            ..ModelConfig::default()
        };
        let device = Device::flex();
        let models: Vec<PolicyValueNet> = (0..3)
            .map(|s| {
                device.seed(s);
                let m = cfg.init(&device);
                // Draw the (lazily initialised) weights now, under this seed.
                parameters(&m).unwrap();
                m
            })
            .collect();
        let p: Vec<_> = models.iter().map(|m| parameters(m).unwrap()).collect();
        assert_ne!(p[0][0].1, p[1][0].1, "the inputs differ");
        let avg = parameters(&average(&models).unwrap()).unwrap();
        // Linear weights and biases of 4 layers, 2 LayerNorm pairs... every one of them.
        assert_eq!(avg.len(), p[0].len());
        assert_eq!(avg.len(), 2 * (1 + 2 * 2 + 3) + 2 * (1 + 2 * 2));
        for (k, (shape, v)) in avg.iter().enumerate() {
            assert_eq!(shape, &p[0][k].0);
            for (j, x) in v.iter().enumerate() {
                let want = (p[0][k].1[j] + p[1][k].1[j] + p[2][k].1[j]) / 3.0;
                assert!((x - want).abs() < 1e-6, "parameter {k}[{j}]: {x} vs {want}");
            }
        }
        // The mean of copies of one network is that network.
        let same = average(&[models[1].clone(), models[1].clone()]).unwrap();
        assert_eq!(parameters(&same).unwrap(), p[1]);
        // Networks of two shapes are refused.
        let other = ModelConfig {
            width: 16,
            ..cfg.clone()
        }
        .init(&device);
        let e = average(&[models[0].clone(), other])
            .unwrap_err()
            .to_string();
        assert!(e.contains("another shape"), "{e}");
    }
}
