//! Searches by a training run's checkpoint (`"model": "RUN/checkpoints/iter-NNNN"` in
//! a request): the checkpoint is found among the runs under `--runs`, loaded once, and
//! searched on a one-thread pool of its own (with its own evaluation cache, so that no
//! answer of one network is taken for another's). One checkpoint is kept loaded at a
//! time: asking for another replaces it.

use std::sync::{Arc, Mutex};

use super::ServeLimits;
use super::pool::SearchPool;
use super::runs::{RunError, RunsIndex, real_dir};
use oware_core::search::mcts::MctsConfig;
use oware_core::tablebase::Tablebase;
use oware_net::net::{DeviceKind, NetEvaluator};

/// A checkpoint ready to search: its pool and its search settings.
#[derive(Clone)]
pub struct Loaded {
    /// The one-thread pool searching with it.
    pub pool: Arc<SearchPool>,
    /// The settings it was trained with (its manifest's).
    pub trained: MctsConfig,
    /// Its description, as `health` gives the server's model.
    pub description: String,
}

/// The checkpoint loaded now, if any.
#[derive(Default)]
pub struct CheckpointPools {
    current: Mutex<Option<(String, Loaded)>>,
}

impl CheckpointPools {
    /// The pool of checkpoint `name` (`RUN/checkpoints/iter-NNNN`, RUN an id of `runs`),
    /// loaded now if it is not the one loaded. Blocks while it loads (tens of ms).
    pub fn get(
        &self,
        runs: &RunsIndex,
        name: &str,
        limits: &ServeLimits,
        tablebase: Option<Arc<Tablebase>>,
    ) -> Result<Loaded, String> {
        if let Some((n, l)) = self.lock().as_ref()
            && n == name
        {
            return Ok(l.clone());
        }
        let bad = || {
            format!(
                "model {name:?}: expected RUN/checkpoints/iter-NNNN, RUN a run of GET /api/v1/runs"
            )
        };
        let (run_id, ck) = name.rsplit_once("/checkpoints/").ok_or_else(bad)?;
        let digits = ck.strip_prefix("iter-").ok_or_else(bad)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let run = runs.find(run_id).map_err(|e| match e {
            RunError::Outside(m) | RunError::Unknown(m) => format!("model: {m}"),
        })?;
        let dir = run.path.join("checkpoints").join(ck);
        // A link could lead out of the runs' folder: only a real folder is loaded.
        if !real_dir(&run.path.join("checkpoints")) || !real_dir(&dir) {
            return Err(format!(
                "model {name:?}: run {run_id} has no checkpoint {ck} (GET /api/v1/runs/checkpoints lists them)"
            ));
        }
        let (ev, manifest) = NetEvaluator::from_checkpoint(&dir, DeviceKind::Cpu)
            .map_err(|e| format!("model {name:?}: {e}"))?;
        let trained = manifest.search_settings();
        let loaded = Loaded {
            pool: Arc::new(SearchPool::new(
                vec![Box::new(ev)],
                limits.queue,
                limits.max_sims,
                &trained,
                tablebase,
            )),
            trained,
            description: format!("{name} (step {})", manifest.step),
        };
        *self.lock() = Some((name.to_string(), loaded.clone()));
        Ok(loaded)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<(String, Loaded)>> {
        self.current.lock().unwrap_or_else(|e| e.into_inner())
    }
}
