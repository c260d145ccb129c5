//! The agents: the network (`Network`), its MCTS (`Network.search`), alpha-beta
//! (`alphabeta`) and the endgame tables (`Tablebase.probe`).

use std::path::PathBuf;
use std::sync::Arc;

use numpy::{
    PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use oware_app::player::Level;
use oware_core::game::{Game, Position, RuleSet};
use oware_core::search::mcts::SearchedGames;
use oware_core::search::{AlphaBeta, Limits};
use oware_core::tablebase::Tablebase;
use oware_net::net::checkpoint::default_model_path;
use oware_net::net::fast::{FastNet, FastScratch};
use oware_net::net::model::{POLICY_DIM, WDL_DIM, wdl_value};
use oware_net::net::{Manifest, NetEvaluator};

use crate::errors::{Int, Seed, int_in, not_found, type_error, value_error};
use crate::game::{PositionArg, PyGame, mask_actions};

const HEAD_DIM: usize = POLICY_DIM + WDL_DIM + 1;

/// What `evaluate` returns: policy logits [N, 6] and values [N].
type Evaluation<'py> = (Bound<'py, PyArray2<f32>>, Bound<'py, PyArray1<f32>>);

/// A game to search: a `Game` (its history counts for repetition), a `Position` or
/// position text (searched as a fresh game under `rules`).
pub enum GameArg {
    Game(PyGame),
    Position(PositionArg),
}

impl<'py> FromPyObject<'py> for GameArg {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(g) = ob.downcast::<PyGame>() {
            return Ok(GameArg::Game(g.borrow().clone()));
        }
        match PositionArg::extract_bound(ob) {
            Ok(p) => Ok(GameArg::Position(p)),
            Err(_) => Err(type_error("a Game, a Position or position text", ob)),
        }
    }
}

impl GameArg {
    fn resolve(self, rules: RuleSet) -> PyResult<Game> {
        match self {
            GameArg::Game(g) => Ok(g.game),
            GameArg::Position(p) => Ok(Game::new(rules, p.resolve()?)),
        }
    }
}

/// What a search found.
#[pyclass(module = "oware_zero", name = "SearchResult", frozen, get_all)]
#[derive(Clone)]
pub struct PySearchResult {
    /// The move to play (action 0..5), None when the game is over.
    pub r#move: Option<usize>,
    /// Its letter ("A".."F" for South, "a".."f" for North), None when the game is over.
    pub letter: Option<char>,
    /// Visits of each action (MCTS; all 0 for alpha-beta).
    pub visits: Vec<u32>,
    /// The position's value for the player to move: MCTS in [-1, 1]; alpha-beta in
    /// centi-seeds (±(100 000 - plies) for a forced result).
    pub value: f64,
    /// Alpha-beta: the principal variation as letters; MCTS: empty.
    pub pv: String,
    /// Alpha-beta: the depth searched; MCTS: the simulations run.
    pub depth: u32,
}

#[pymethods]
impl PySearchResult {
    fn __repr__(&self) -> String {
        format!(
            "SearchResult(move={:?}, letter={:?}, visits={:?}, value={}, pv='{}', depth={})",
            self.r#move, self.letter, self.visits, self.value, self.pv, self.depth
        )
    }
}

/// The move letter of `action` for the side to move in `game`.
fn letter(game: &Game, action: Option<usize>) -> Option<char> {
    action.map(|a| oware_core::game::move_letter(game.position().side, a))
}

/// A trained network: batched evaluation and MCTS.
#[pyclass(module = "oware_zero", name = "Network")]
pub struct PyNetwork {
    evaluator: NetEvaluator,
    fast: FastNet,
    scratch: FastScratch,
    manifest: Manifest,
    rules: RuleSet,
    path: PathBuf,
    threads: usize,
}

#[pymethods]
impl PyNetwork {
    /// Loads the checkpoint directory `path` (a run directory means its latest
    /// checkpoint); the shipped network (checkpoints/oware-abapa) when None.
    /// `FileNotFoundError` if the path does not exist, `ValueError` if it is no
    /// checkpoint or a damaged one. `threads`: cores one `evaluate` call may use.
    #[staticmethod]
    #[pyo3(signature = (path = None, threads = None))]
    fn load(py: Python<'_>, path: Option<PathBuf>, threads: Option<Int>) -> PyResult<PyNetwork> {
        let threads = match &threads {
            None => None,
            Some(t) => Some(int_in("threads", t, 1..=1024)?),
        };
        let path = path.unwrap_or_else(default_model_path);
        if !path.exists() {
            return Err(not_found(format!(
                "checkpoint {}: does not exist",
                path.display()
            )));
        }
        let threads = threads.map_or_else(oware_app::player::mcts::default_threads, |t| t as usize);
        let p = path.clone();
        let (evaluator, manifest) = py
            .allow_threads(|| NetEvaluator::from_checkpoint(&p, Default::default()))
            .map_err(value_error)?;
        let rules = manifest.rule_set().map_err(value_error)?;
        let fast = FastNet::from_model(evaluator.model()).map_err(value_error)?;
        Ok(PyNetwork {
            evaluator,
            fast,
            scratch: FastScratch::default(),
            manifest,
            rules,
            path,
            threads,
        })
    }

    /// The rule set the network was trained for.
    #[getter]
    fn rules(&self) -> &'static str {
        self.rules.name()
    }

    /// Its input encoding ("onehot" or "counts").
    #[getter]
    fn encoding(&self) -> &'static str {
        self.evaluator.config().encoding.name()
    }

    /// Features per observation.
    #[getter]
    fn input_dim(&self) -> usize {
        self.fast.input_dim()
    }

    /// The checkpoint directory it was loaded from.
    #[getter]
    fn path(&self) -> PathBuf {
        self.path.clone()
    }

    /// Runs the network on observations (float32 [N, input_dim], the encoding of
    /// `BatchEnv` or `Position.encode`), the interpreter lock released. Returns (policy
    /// logits float32 [N, 6], value float32 [N]: P(win) - P(loss) for the player to move).
    /// The logits are raw: mask the illegal actions before a softmax.
    fn evaluate<'py>(
        &mut self,
        py: Python<'py>,
        observations: &Bound<'py, PyAny>,
    ) -> PyResult<Evaluation<'py>> {
        let d = self.fast.input_dim();
        let arr = observations.downcast::<PyUntypedArray>().map_err(|_| {
            value_error("observations must be a numpy array of float32, shape [N, input_dim]")
        })?;
        if arr.ndim() != 2 || arr.shape()[1] != d {
            return Err(value_error(format!(
                "observations must have shape (N, {d}), got {:?}",
                arr.shape()
            )));
        }
        let x: PyReadonlyArray2<'py, f32> = observations.extract().map_err(|_| {
            value_error(format!(
                "observations must be float32, got dtype {}",
                arr.dtype()
            ))
        })?;
        let n = arr.shape()[0];
        // A row-major (C-contiguous) array is read in place; any other layout (a
        // Fortran-order array, a strided slice) is copied in row order first: its
        // memory order is not the rows'.
        let copied: Vec<f32>;
        let x = if arr.is_c_contiguous() {
            x.as_slice().map_err(value_error)?
        } else {
            copied = x.as_array().iter().copied().collect();
            &copied
        };
        let mut out = vec![0.0f32; n * HEAD_DIM];
        let (fast, scratch, threads) = (&self.fast, &mut self.scratch, self.threads);
        py.allow_threads(|| {
            if n > 0 {
                fast.forward(x, &mut out, scratch, threads)
            }
        });
        let mut logits = Vec::with_capacity(n * POLICY_DIM);
        let mut values = Vec::with_capacity(n);
        for row in out.chunks_exact(HEAD_DIM) {
            logits.extend_from_slice(&row[..POLICY_DIM]);
            let mut wdl = [0.0f32; WDL_DIM];
            wdl.copy_from_slice(&row[POLICY_DIM..POLICY_DIM + WDL_DIM]);
            values.push(wdl_value(&wdl).1);
        }
        let logits = PyArray1::from_vec(py, logits).reshape([n, POLICY_DIM])?;
        Ok((logits, PyArray1::from_vec(py, values)))
    }

    /// The network's MCTS (PUCT, the engine's settings for this network) from `game` (a
    /// `Game`, whose history counts, or a `Position` / position text). Either
    /// `simulations` (default 64; no noise, the most visited move) or `level`, one of
    /// the playing levels of `oware play` ("novice", "amateur", "strong", "master": their
    /// simulations, root noise, move temperature and policy temperature; the two weaker
    /// ones sample their move from `seed`'s generator). Returns a `SearchResult`: the
    /// move, the visits per action and the root value in [-1, 1] for the player to move.
    #[pyo3(
        signature = (game, simulations = None, seed = Seed(0), level = None),
        text_signature = "($self, game, simulations=None, seed=0, level=None)"
    )]
    fn search(
        &mut self,
        py: Python<'_>,
        game: GameArg,
        simulations: Option<Int>,
        seed: Seed,
        level: Option<&str>,
    ) -> PyResult<PySearchResult> {
        let level = match level {
            None => None,
            Some(name) => Some(Level::from_name(name).ok_or_else(|| {
                value_error(format!(
                    "level '{name}': expected novice, amateur, strong or master"
                ))
            })?),
        };
        if level.is_some() && simulations.is_some() {
            return Err(value_error(
                "give either simulations or level, not both (a level sets its simulations)",
            ));
        }
        let simulations = match &simulations {
            None => 64,
            Some(s) => int_in("simulations", s, 1..=1_000_000)?,
        };
        let game = game.resolve(self.rules)?;
        if game.rules() != self.rules {
            return Err(value_error(format!(
                "the game is played under {} but the network was trained for {}",
                game.rules(),
                self.rules
            )));
        }
        if game.is_over() {
            return Ok(PySearchResult {
                r#move: None,
                letter: None,
                visits: vec![0; 6],
                value: 0.0,
                pv: String::new(),
                depth: 0,
            });
        }
        let (sims, noise, temperature) = match level {
            Some(l) => l.settings(),
            None => (simulations as u32, false, 0.0),
        };
        let mut cfg = self.manifest.search_settings().anytime(sims, false);
        if let Some(t) = level.and_then(Level::policy_temperature) {
            cfg.policy_temperature = t;
        }
        let evaluator = &mut self.evaluator;
        let rules = self.rules;
        let (r, action) = py.allow_threads(|| {
            let mut sg = SearchedGames::new(cfg, rules, 1, seed.0);
            sg.set_game(0, game.clone());
            sg.begin(0, sims, noise);
            sg.run(evaluator);
            let action = sg.choose(0, temperature);
            (sg.result(0), action)
        });
        Ok(PySearchResult {
            r#move: Some(action),
            letter: letter(&game, Some(action)),
            visits: r.visits.to_vec(),
            value: r.value as f64,
            pv: String::new(),
            depth: r.simulations,
        })
    }

    fn __repr__(&self) -> String {
        format!("Network.load('{}')", self.path.display())
    }
}

/// The engine's alpha-beta search of `game` (a `Game`, whose history counts for
/// repetition, or a `Position` / position text under `rules`) to `depth` plies (1..64).
/// Returns a `SearchResult` whose value is in centi-seeds for the player to move.
#[pyfunction]
#[pyo3(
    signature = (game, depth, rules = "abapa", tt_mb = None),
    text_signature = "(game, depth, rules='abapa', tt_mb=16)"
)]
pub fn alphabeta(
    py: Python<'_>,
    game: GameArg,
    depth: Int,
    rules: &str,
    tt_mb: Option<Int>,
) -> PyResult<PySearchResult> {
    let rules = crate::errors::parse_rules(rules)?;
    let depth = int_in(
        "depth",
        &depth,
        1..=oware_core::search::alphabeta::MAX_DEPTH as i64,
    )?;
    let tt_mb = match &tt_mb {
        None => 16,
        Some(t) => int_in("tt_mb", t, 1..=65_536)?,
    };
    let game = game.resolve(rules)?;
    let r = py.allow_threads(|| {
        let mut ab = AlphaBeta::new(game.rules(), tt_mb as usize);
        ab.search(&game, &Limits::depth(depth as u32))
    });
    let mv = r.best_move.map(|a| a as usize);
    Ok(PySearchResult {
        r#move: mv,
        letter: letter(&game, mv),
        visits: vec![0; 6],
        value: r.score_cp as f64,
        pv: r.pv.clone(),
        depth: r.depth,
    })
}

/// One probe of the endgame tables.
#[pyclass(module = "oware_zero", name = "Probe", frozen, get_all)]
#[derive(Clone)]
pub struct PyProbe {
    /// "win", "draw" or "loss" for the player to move when the table proves it for a
    /// game starting here; None where a repetition may decide ("not proven").
    pub proven: Option<&'static str>,
    /// Whether the stored value is exact (no repetition score enters it).
    pub exact: bool,
    /// Seeds the mover can force among the future captures (its margin), as stored:
    /// proven when `exact`, else a repetition guess within `bounds`.
    pub value: i32,
    /// The lowest and highest margin no repetition can break.
    pub bounds: (i32, i32),
    /// The outcome `value` gives with the stores (a guess unless `proven` is set).
    pub outcome: &'static str,
}

#[pymethods]
impl PyProbe {
    fn __repr__(&self) -> String {
        format!(
            "Probe(proven={}, exact={}, value={}, bounds={:?}, outcome='{}')",
            self.proven.map_or("None".to_string(), |p| format!("'{p}'")),
            self.exact,
            self.value,
            self.bounds,
            self.outcome
        )
    }
}

/// Endgame tables built by `oware tablebase build`.
#[pyclass(module = "oware_zero", name = "Tablebase", frozen)]
pub struct PyTablebase {
    tb: Arc<Tablebase>,
}

#[pymethods]
impl PyTablebase {
    /// Opens the tables in directory `path`. `FileNotFoundError` if it does not exist,
    /// `ValueError` if it holds no valid tables.
    #[new]
    fn open(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        if !path.exists() {
            return Err(not_found(format!(
                "tables {}: does not exist",
                path.display()
            )));
        }
        let tb = py
            .allow_threads(|| oware_core::tablebase::open_shared(&path))
            .map_err(value_error)?;
        Ok(PyTablebase { tb })
    }

    /// The rule set the tables were built for.
    #[getter]
    fn rules(&self) -> &'static str {
        self.tb.rules().name()
    }

    /// The most seeds on the board a table covers.
    #[getter]
    fn max_seeds(&self) -> usize {
        self.tb.max_seeds()
    }

    /// Whether the tables cover `position` (few enough seeds on the board).
    fn covers(&self, position: PositionArg) -> PyResult<bool> {
        Ok(self.tb.covers(&position.resolve()?))
    }

    /// The tables' answer for `position` as the start of a game (no history), or None
    /// beyond the tables. A `Probe` keeps "not proven" (`proven` is None) apart from a
    /// proven win, draw or loss.
    fn probe(&self, position: PositionArg) -> PyResult<Option<PyProbe>> {
        let pos: Position = position.resolve()?;
        Ok(self.tb.probe(&pos).map(|p| PyProbe {
            proven: p.proven.map(|o| o.name()),
            exact: p.exact,
            value: p.value,
            bounds: (p.bounds[0], p.bounds[1]),
            outcome: p.outcome.name(),
        }))
    }

    /// Legal actions of `position` under the tables' rules (for convenience).
    fn legal_moves(&self, position: PositionArg) -> PyResult<Vec<usize>> {
        Ok(mask_actions(
            position.resolve()?.legal_moves(self.tb.rules()),
        ))
    }
}
