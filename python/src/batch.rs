//! `BatchEnv`: the root crate's batched environment with numpy arrays in and out.

use numpy::{
    PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use oware_core::env::{AutoReset, BatchEnv, Encoding, EnvConfig, Openings, StepOut};

use crate::errors::{Int, Seed, index_error, int_in, parse_rules, type_error, value_error};
use crate::game::PyPosition;

/// Opening plies: one count, or an inclusive (min, max) range; checked as it is read
/// (0 <= min <= max <= `Openings::MAX_PLIES`).
pub struct OpeningArg {
    min: u32,
    max: u32,
}

impl OpeningArg {
    /// No opening: every game starts at the start position.
    pub const NONE: OpeningArg = OpeningArg { min: 0, max: 0 };
}

impl<'py> FromPyObject<'py> for OpeningArg {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        let (min, max) = if let Ok(k) = ob.extract::<Int>() {
            (k.clone(), k)
        } else if let Ok((a, b)) = ob.extract::<(Int, Int)>() {
            (a, b)
        } else {
            return Err(type_error(
                "opening_plies as an integer or a (min, max) pair",
                ob,
            ));
        };
        let most = Openings::MAX_PLIES as i64;
        if min.value < 0 || max.value < min.value || max.value > most {
            return Err(value_error(format!(
                "opening_plies {min}..={max} is not a valid range: need 0 <= min <= max <= {most}"
            )));
        }
        Ok(OpeningArg {
            min: min.value as u32,
            max: max.value as u32,
        })
    }
}

/// The most games one `BatchEnv` holds: its arrays take about 1.5 KB a game (onehot),
/// so this is 1.5 GB; beyond it an allocation could fail, which aborts the interpreter.
pub const MAX_GAMES: i64 = 1 << 20;

/// The arrays a step writes into, allocated once (`BatchEnv` returns these same arrays).
struct Buffers {
    obs: Py<PyArray2<f32>>,
    mask: Py<PyArray2<bool>>,
    to_play: Py<PyArray1<i8>>,
    rewards: Py<PyArray1<f32>>,
    terminated: Py<PyArray1<bool>>,
    truncated: Py<PyArray1<bool>>,
    final_scores: Py<PyArray2<f32>>,
}

/// N games stepped together by the root crate's `BatchEnv`.
#[pyclass(module = "oware_zero", name = "BatchEnv")]
pub struct PyBatchEnv {
    env: BatchEnv,
    config: EnvConfig,
    games: usize,
    encoding: Encoding,
    pool: Option<rayon::ThreadPool>,
    serial: bool,
    legal: Vec<u8>,
    actions: Vec<u8>,
    buf: Buffers,
}

fn build_env(games: usize, config: EnvConfig, serial: bool) -> PyResult<BatchEnv> {
    let env = BatchEnv::new(games, config).map_err(value_error)?;
    Ok(if serial { env.serial() } else { env })
}

impl PyBatchEnv {
    /// Runs `f` on the env's thread pool (or the global one), the GIL released.
    fn run<R: Send>(
        &mut self,
        py: Python<'_>,
        f: impl FnOnce(&mut BatchEnv, &mut Vec<u8>, &mut Vec<u8>) -> R + Send,
    ) -> R {
        let (env, legal, actions, pool) = (
            &mut self.env,
            &mut self.legal,
            &mut self.actions,
            &self.pool,
        );
        py.allow_threads(|| match pool {
            Some(p) => p.install(|| f(env, legal, actions)),
            None => f(env, legal, actions),
        })
    }

    /// Writes the masks, the side to move and (if `features`) the observations of the
    /// current positions into the buffers.
    fn fill_current(&mut self, py: Python<'_>, features: bool) -> PyResult<()> {
        let obs = self.buf.obs.bind(py).clone();
        let mask = self.buf.mask.bind(py).clone();
        let to_play = self.buf.to_play.bind(py).clone();
        let mut obs_w = obs.try_readwrite().map_err(value_error)?;
        let mut mask_w = mask.try_readwrite().map_err(value_error)?;
        let mut tp_w = to_play.try_readwrite().map_err(value_error)?;
        let obs_s = obs_w.as_slice_mut().map_err(value_error)?;
        let mask_s = mask_w.as_slice_mut().map_err(value_error)?;
        let tp_s = tp_w.as_slice_mut().map_err(value_error)?;
        let encoding = self.encoding;
        self.run(py, |env, legal, _| {
            if features {
                env.encode(encoding, obs_s)
                    .expect("buffer sized for the batch");
            }
            legal.copy_from_slice(env.legal_masks());
            for ((m, row), (p, t)) in legal
                .iter()
                .zip(mask_s.chunks_exact_mut(6))
                .zip(env.positions().iter().zip(tp_s.iter_mut()))
            {
                for (a, b) in row.iter_mut().enumerate() {
                    *b = m & (1 << a) != 0;
                }
                *t = p.side.index() as i8;
            }
        });
        Ok(())
    }

    /// Reads `actions` (a 1-D integer array of N values in 0..5) into `self.actions`.
    fn read_actions(&mut self, actions: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = actions.py();
        let arr: Bound<'_, PyAny> = if actions.downcast::<PyUntypedArray>().is_ok() {
            actions.clone()
        } else {
            py.import("numpy")?.call_method1("asarray", (actions,))?
        };
        let untyped = arr.downcast::<PyUntypedArray>().map_err(value_error)?;
        let kind = untyped.dtype().kind();
        if kind != b'i' && kind != b'u' {
            return Err(value_error(format!(
                "actions must be an integer array, got dtype {}",
                untyped.dtype()
            )));
        }
        if untyped.shape() != [self.games] {
            return Err(value_error(format!(
                "actions must have shape ({},), got {:?}",
                self.games,
                untyped.shape()
            )));
        }
        // Unsigned values beyond i64 would wrap to negative numbers in the cast: clip
        // them to i64::MAX first, which the range check below rejects as written.
        let arr = if kind == b'u' {
            let np = py.import("numpy")?;
            let cap = np.call_method1("uint64", (i64::MAX as u64,))?;
            np.call_method1("minimum", (&arr, cap))?
        } else {
            arr
        };
        let as_i64 = arr.call_method1("astype", ("int64",))?;
        let a = as_i64
            .downcast::<PyArray1<i64>>()
            .map_err(value_error)?
            .readonly();
        let a = a.as_array();
        for (i, (&v, out)) in a.iter().zip(self.actions.iter_mut()).enumerate() {
            if !(0..6).contains(&v) {
                return Err(index_error(format!(
                    "game {i}: action {v} is out of range: expected 0..5"
                )));
            }
            *out = v as u8;
        }
        Ok(())
    }
}

#[pymethods]
impl PyBatchEnv {
    #[new]
    #[pyo3(
        signature = (num_games, rules = "abapa", seed = Seed(0), opening_plies = OpeningArg::NONE, threads = None, encoding = "onehot"),
        text_signature = "(num_games, rules='abapa', seed=0, opening_plies=0, threads=None, encoding='onehot')"
    )]
    fn new(
        py: Python<'_>,
        num_games: Int,
        rules: &str,
        seed: Seed,
        opening_plies: OpeningArg,
        threads: Option<Int>,
        encoding: &str,
    ) -> PyResult<Self> {
        let games = int_in("num_games", &num_games, 1..=MAX_GAMES)? as usize;
        let rules = parse_rules(rules)?;
        let encoding: Encoding = encoding.parse().map_err(value_error)?;
        let threads = match &threads {
            None => None,
            Some(t) => Some(int_in("threads", t, 1..=1024)? as usize),
        };
        let (pool, serial) = match threads {
            None => (None, false),
            Some(1) => (None, true),
            Some(t) => (
                Some(
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(t)
                        .build()
                        .map_err(value_error)?,
                ),
                false,
            ),
        };
        let config = EnvConfig {
            rules,
            seed: seed.0,
            openings: Openings {
                min_plies: opening_plies.min,
                max_plies: opening_plies.max,
            },
            auto_reset: AutoReset::On,
            record_moves: false,
        };
        let env = match &pool {
            Some(p) => p.install(|| build_env(games, config, serial))?,
            None => build_env(games, config, serial)?,
        };
        let buf = Buffers {
            obs: PyArray2::zeros(py, [games, encoding.dim()], false).unbind(),
            mask: PyArray2::from_vec2(py, &vec![vec![false; 6]; games])
                .map_err(value_error)?
                .unbind(),
            to_play: PyArray1::zeros(py, games, false).unbind(),
            rewards: PyArray1::zeros(py, games, false).unbind(),
            terminated: PyArray1::from_vec(py, vec![false; games]).unbind(),
            truncated: PyArray1::from_vec(py, vec![false; games]).unbind(),
            final_scores: PyArray2::zeros(py, [games, 2], false).unbind(),
        };
        Ok(PyBatchEnv {
            env,
            config,
            games,
            encoding,
            pool,
            serial,
            legal: vec![0; games],
            actions: vec![0; games],
            buf,
        })
    }

    /// Games in the batch.
    #[getter]
    fn num_games(&self) -> usize {
        self.games
    }

    /// The rule set's name.
    #[getter]
    fn rules(&self) -> &'static str {
        self.config.rules.name()
    }

    /// The encoding's name ("onehot" or "counts").
    #[getter]
    fn encoding(&self) -> &'static str {
        self.encoding.name()
    }

    /// Features per observation (354 for "onehot", 14 for "counts").
    #[getter]
    fn observation_dim(&self) -> usize {
        self.encoding.dim()
    }

    /// Starts every game again; with `seed`, the batch is rebuilt from that seed
    /// (game i then plays from stream i of it), else each game continues its own
    /// random stream. Returns (observations float32 [N, dim], legal masks bool [N, 6],
    /// side to move int8 [N], 0 South 1 North).
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<Seed>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        match seed {
            Some(Seed(s)) => {
                self.config.seed = s;
                let (games, config, serial) = (self.games, self.config, self.serial);
                let env = match &self.pool {
                    Some(p) => p.install(|| build_env(games, config, serial))?,
                    None => py.allow_threads(|| build_env(games, config, serial))?,
                };
                self.env = env;
            }
            None => {
                let n = self.games;
                self.run(py, |env, _, _| {
                    for i in 0..n {
                        env.restart_game(i).expect("index within the batch");
                    }
                });
            }
        }
        self.fill_current(py, true)?;
        pyo3::types::PyTuple::new(
            py,
            [
                self.buf.obs.bind(py).as_any(),
                self.buf.mask.bind(py).as_any(),
                self.buf.to_play.bind(py).as_any(),
            ],
        )
    }

    /// Plays one action per game (int array [N], 0..5 from the mover's pit A or a).
    /// Returns (observations, rewards, terminated, truncated, info) as Gymnasium's
    /// vector environments do, with same-step auto-reset: a game that ends is restarted
    /// at once and its row of observations is the new game's first.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, pyo3::types::PyTuple>> {
        self.read_actions(actions)?;
        let b = &self.buf;
        let (obs, mask, to_play, rewards, term, trunc, fin) = (
            b.obs.bind(py).clone(),
            b.mask.bind(py).clone(),
            b.to_play.bind(py).clone(),
            b.rewards.bind(py).clone(),
            b.terminated.bind(py).clone(),
            b.truncated.bind(py).clone(),
            b.final_scores.bind(py).clone(),
        );
        let mut obs_w = obs.try_readwrite().map_err(value_error)?;
        let mut mask_w = mask.try_readwrite().map_err(value_error)?;
        let mut tp_w = to_play.try_readwrite().map_err(value_error)?;
        let mut rw_w = rewards.try_readwrite().map_err(value_error)?;
        let mut te_w = term.try_readwrite().map_err(value_error)?;
        let mut tr_w = trunc.try_readwrite().map_err(value_error)?;
        let mut fin_w = fin.try_readwrite().map_err(value_error)?;
        let obs_s = obs_w.as_slice_mut().map_err(value_error)?;
        let mask_s = mask_w.as_slice_mut().map_err(value_error)?;
        let tp_s = tp_w.as_slice_mut().map_err(value_error)?;
        let rw_s = rw_w.as_slice_mut().map_err(value_error)?;
        let te_s = te_w.as_slice_mut().map_err(value_error)?;
        let tr_s = tr_w.as_slice_mut().map_err(value_error)?;
        let fin_s = fin_w.as_slice_mut().map_err(value_error)?;
        let encoding = self.encoding;
        let result = self.run(py, |env, legal, actions| {
            let out = StepOut {
                legal: legal.as_mut_slice(),
                features: obs_s,
                encoding,
                rewards: rw_s,
                done: &mut *te_s,
            };
            env.step(actions, out)?;
            tr_s.fill(false);
            let rows = legal.iter().zip(mask_s.chunks_exact_mut(6));
            let sides = env.positions().iter().zip(tp_s.iter_mut());
            let ends = te_s.iter().zip(fin_s.chunks_exact_mut(2));
            for (i, (((m, row), (p, t)), (&done, f))) in rows.zip(sides).zip(ends).enumerate() {
                for (a, b) in row.iter_mut().enumerate() {
                    *b = m & (1 << a) != 0;
                }
                *t = p.side.index() as i8;
                match env.last_outcome(i) {
                    Some(o) if done => f.copy_from_slice(&o.stores()),
                    _ => f.fill(0.0),
                }
            }
            Ok::<(), oware_core::env::EnvError>(())
        });
        result.map_err(value_error)?;
        let info = PyDict::new(py);
        info.set_item("final_scores", &fin)?;
        info.set_item("legal_mask", &mask)?;
        info.set_item("to_play", &to_play)?;
        pyo3::types::PyTuple::new(
            py,
            [
                obs.as_any(),
                rewards.as_any(),
                term.as_any(),
                trunc.as_any(),
                info.as_any(),
            ],
        )
    }

    /// The current position of game `i`.
    fn position(&self, i: i64) -> PyResult<PyPosition> {
        if i < 0 || i as usize >= self.games {
            return Err(index_error(format!(
                "game {i} does not exist (the batch has {} games)",
                self.games
            )));
        }
        Ok(PyPosition {
            pos: *self.env.position(i as usize),
        })
    }

    /// Games finished in this batch since it was built.
    #[getter]
    fn games_finished(&self) -> u64 {
        self.env.games_finished()
    }

    fn __len__(&self) -> usize {
        self.games
    }
}
