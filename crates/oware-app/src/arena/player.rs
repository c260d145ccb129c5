//! Player specifications (`alphabeta:depth=4`, `mcts:sims=64:eval=rollout`, `random`,
//! `model:PATH:sims=N`, `engine:"COMMAND"`) and the players built from them.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;

use oware_core::game::RuleSet;
use oware_core::search::mcts::{Algorithm, MctsConfig};
use oware_core::search::{Evaluator, RolloutEvaluator, UniformEvaluator};
use oware_core::tablebase::{self, Tablebase};
use oware_net::net;

/// Simulations per move when a spec does not say (the self-play default).
pub const DEFAULT_SIMS: u32 = 64;

/// Random playouts per leaf of `mcts:…:eval=rollout`.
pub const ROLLOUTS_PER_LEAF: u32 = 1;

/// The evaluator of an `mcts:` player.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MctsEval {
    /// Uniform priors, value 0.
    Uniform,
    /// Uniform priors, value from random playouts.
    Rollout,
}

/// How an `alphabeta:` player limits its search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlphaBetaLimit {
    /// Exactly this many plies (deterministic).
    Depth(u32),
    /// This many milliseconds of wall-clock time per move (not deterministic).
    MoveTime(u64),
    /// A clock (engines only): `base_ms` for the game and `inc_ms` added after each
    /// move; the engine is told both clocks (`go wtime … winc …`), and a player whose
    /// clock runs out loses on time.
    Clock {
        /// The clock at the start of the game, ms.
        base_ms: u64,
        /// Added after each move, ms.
        inc_ms: u64,
    },
}

/// `engine:"PROGRAM ARGS"[:depth=N|:movetime=MS|:tc=BASE+INC]` after `engine:`; quotes
/// are optional without spaces.
fn parse_engine(rest: &str) -> Result<PlayerSpec, String> {
    let r = rest.trim();
    let (command, opts) = match r.chars().next() {
        Some(q @ ('"' | '\'')) => {
            let body = &r[1..];
            let end = body
                .find(q)
                .ok_or_else(|| format!("unclosed {q} in the engine command"))?;
            let after = &body[end + 1..];
            if !(after.is_empty() || after.starts_with(':')) {
                return Err(format!("unexpected `{after}` after the quoted command"));
            }
            (&body[..end], after)
        }
        _ => match r.find(':') {
            Some(i) => (&r[..i], &r[i..]),
            None => (r, ""),
        },
    };
    let command = command.trim();
    if command.is_empty() {
        return Err("engine needs a command: engine:\"PROGRAM ARGS\"".into());
    }
    let mut limit = None;
    for (k, v) in options(opts)? {
        let l = match k {
            "depth" => AlphaBetaLimit::Depth(positive(k, v)?),
            "movetime" => AlphaBetaLimit::MoveTime(positive(k, v)?),
            "tc" => parse_clock(v)?,
            _ => {
                return Err(format!(
                    "unknown option `{k}` (engine takes depth=, movetime= or tc=)"
                ));
            }
        };
        if limit.replace(l).is_some() {
            return Err("give one of depth=, movetime= or tc=, once".into());
        }
    }
    Ok(PlayerSpec::Engine {
        command: command.to_string(),
        limit: limit.unwrap_or(DEFAULT_ENGINE_LIMIT),
    })
}

/// Parses `tc=BASE+INC` (seconds, decimals allowed: `60+0.5`, `5`).
fn parse_clock(v: &str) -> Result<AlphaBetaLimit, String> {
    let (base, inc) = v.split_once('+').unwrap_or((v, "0"));
    let ms = |x: &str| {
        x.trim()
            .parse::<f64>()
            .ok()
            .filter(|s| s.is_finite() && *s >= 0.0 && *s < 1e6)
            .map(|s| (s * 1000.0).round() as u64)
            .ok_or_else(|| format!("tc={v}: expected BASE+INC in seconds, like 60+0.5"))
    };
    let (base_ms, inc_ms) = (ms(base)?, ms(inc)?);
    if base_ms == 0 {
        return Err(format!("tc={v}: the clock must start above 0"));
    }
    Ok(AlphaBetaLimit::Clock { base_ms, inc_ms })
}

/// A player as written on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayerSpec {
    /// The alpha-beta baseline.
    AlphaBeta(AlphaBetaLimit),
    /// The alpha-beta baseline probing endgame tables (`alphabeta:depth=N:tb=DIR`).
    AlphaBetaTb {
        /// Its search limit.
        limit: AlphaBetaLimit,
        /// The table directory.
        tb: PathBuf,
    },
    /// MCTS with a stand-in evaluator.
    Mcts {
        /// Simulations per move.
        sims: u32,
        /// The evaluator.
        eval: MctsEval,
    },
    /// A uniformly random legal move.
    Random,
    /// A trained checkpoint searched by MCTS, with the search settings its manifest
    /// records (those it was trained with).
    Model {
        /// The checkpoint (a directory, or a run directory whose latest is taken).
        path: PathBuf,
        /// Simulations per move.
        sims: u32,
        /// Endgame tables: a covered position is a finished game with the table's result.
        tb: Option<PathBuf>,
        /// The search algorithm instead of the trained one (`:algorithm=puct|gumbel`).
        algorithm: Option<Algorithm>,
    },
    /// An external program speaking the engine protocol (`docs/engine-protocol.md`).
    Engine {
        /// The command line (split on whitespace; no shell).
        command: String,
        /// What it is told to search for each move (`go depth N` or `go movetime MS`).
        limit: AlphaBetaLimit,
    },
}

/// An engine's limit when its SPEC gives none: `go movetime 100`.
pub const DEFAULT_ENGINE_LIMIT: AlphaBetaLimit = AlphaBetaLimit::MoveTime(100);

/// A SPEC that could not be read; the message says what was wrong and what is accepted.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("player `{spec}`: {message}")]
pub struct SpecError {
    /// The text given.
    pub spec: String,
    /// What was wrong.
    pub message: String,
}

/// What SPECs look like, for error messages and `--help`.
pub const SPEC_HELP: &str = "alphabeta:depth=N[:tb=DIR], alphabeta:movetime=MS[:tb=DIR], \
     mcts:sims=N[:eval=uniform|rollout], random, \
     model:PATH[:sims=N][:algorithm=puct|gumbel][:tb=DIR], engine:\"COMMAND\"[:depth=N|:movetime=MS|:tc=BASE+INC]";

fn positive<T: FromStr + PartialOrd + Default>(key: &str, v: &str) -> Result<T, String> {
    match v.parse::<T>() {
        Ok(x) if x > T::default() => Ok(x),
        _ => Err(format!("{key}={v}: expected a positive whole number")),
    }
}

/// Splits `k=v` options separated by `:`; rejects anything else.
fn options(rest: &str) -> Result<Vec<(&str, &str)>, String> {
    rest.split(':')
        .filter(|s| !s.is_empty())
        .map(|o| {
            o.split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| format!("option `{o}` is not KEY=VALUE"))
        })
        .collect()
}

fn parse_spec(s: &str) -> Result<PlayerSpec, String> {
    let (kind, rest) = s.split_once(':').unwrap_or((s, ""));
    match kind.trim() {
        "random" => {
            if rest.is_empty() {
                Ok(PlayerSpec::Random)
            } else {
                Err("`random` takes no options".into())
            }
        }
        "alphabeta" | "ab" => {
            let opts = options(rest)?;
            let mut limit = None;
            let mut tb = None;
            for (k, v) in opts {
                let l = match k {
                    "depth" => AlphaBetaLimit::Depth(positive(k, v)?),
                    "movetime" => AlphaBetaLimit::MoveTime(positive(k, v)?),
                    "tb" if !v.is_empty() => {
                        tb = Some(PathBuf::from(v));
                        continue;
                    }
                    _ => {
                        return Err(format!(
                            "unknown option `{k}` (alphabeta takes depth= or movetime=, and tb=DIR)"
                        ));
                    }
                };
                if limit.replace(l).is_some() {
                    return Err("give one of depth= or movetime=, once".into());
                }
            }
            if let Some(AlphaBetaLimit::Depth(d)) = limit
                && d > 64
            {
                return Err(format!("depth={d}: at most 64"));
            }
            let limit = limit.ok_or("alphabeta needs depth=N or movetime=MS")?;
            Ok(match tb {
                Some(tb) => PlayerSpec::AlphaBetaTb { limit, tb },
                None => PlayerSpec::AlphaBeta(limit),
            })
        }
        "mcts" => {
            let mut sims = DEFAULT_SIMS;
            let mut eval = MctsEval::Uniform;
            for (k, v) in options(rest)? {
                match k {
                    "sims" => sims = positive(k, v)?,
                    "eval" => {
                        eval = match v {
                            "uniform" => MctsEval::Uniform,
                            "rollout" => MctsEval::Rollout,
                            _ => return Err(format!("eval={v}: expected uniform or rollout")),
                        }
                    }
                    _ => return Err(format!("unknown option `{k}` (mcts takes sims= and eval=)")),
                }
            }
            Ok(PlayerSpec::Mcts { sims, eval })
        }
        "model" => {
            // The path may itself hold `:` (rare); options are the trailing `:k=v` parts.
            let mut parts: Vec<&str> = rest.split(':').collect();
            let mut sims = DEFAULT_SIMS;
            let mut tb = None;
            let mut algorithm = None;
            while parts.len() > 1 {
                let last = parts[parts.len() - 1];
                match last.split_once('=') {
                    Some(("sims", v)) => sims = positive("sims", v.trim())?,
                    Some(("tb", v)) if !v.trim().is_empty() => tb = Some(PathBuf::from(v.trim())),
                    Some(("algorithm", v)) => {
                        algorithm = Some(match v.trim() {
                            "puct" => Algorithm::Puct,
                            "gumbel" => Algorithm::Gumbel,
                            _ => return Err(format!("algorithm={v}: expected puct or gumbel")),
                        })
                    }
                    Some((k, _)) => {
                        return Err(format!(
                            "unknown option `{k}` (model takes sims=, algorithm= and tb=)"
                        ));
                    }
                    None => break,
                }
                parts.pop();
            }
            let path = parts.join(":");
            if path.trim().is_empty() {
                return Err("model needs a path: model:PATH[:sims=N]".into());
            }
            Ok(PlayerSpec::Model {
                path: PathBuf::from(path),
                sims,
                tb,
                algorithm,
            })
        }
        "engine" => parse_engine(rest),
        "" => Err(format!("empty; expected one of {SPEC_HELP}")),
        other => Err(format!(
            "unknown player kind `{other}`; expected one of {SPEC_HELP}"
        )),
    }
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<PlayerSpec, SpecError> {
        parse_spec(s.trim()).map_err(|message| SpecError {
            spec: s.to_string(),
            message,
        })
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerSpec::AlphaBeta(AlphaBetaLimit::Depth(d)) => write!(f, "alphabeta:depth={d}"),
            PlayerSpec::AlphaBeta(AlphaBetaLimit::MoveTime(ms)) => {
                write!(f, "alphabeta:movetime={ms}")
            }
            // Not parsed for alpha-beta; written as an engine's would be.
            PlayerSpec::AlphaBeta(AlphaBetaLimit::Clock { base_ms, inc_ms }) => {
                write!(
                    f,
                    "alphabeta:tc={}+{}",
                    *base_ms as f64 / 1e3,
                    *inc_ms as f64 / 1e3
                )
            }
            PlayerSpec::Mcts { sims, eval } => {
                let e = match eval {
                    MctsEval::Uniform => "uniform",
                    MctsEval::Rollout => "rollout",
                };
                write!(f, "mcts:sims={sims}:eval={e}")
            }
            PlayerSpec::AlphaBetaTb { limit, tb } => {
                write!(f, "{}:tb={}", PlayerSpec::AlphaBeta(*limit), tb.display())
            }
            PlayerSpec::Random => write!(f, "random"),
            PlayerSpec::Model {
                path,
                sims,
                algorithm,
                tb,
            } => {
                write!(f, "model:{}:sims={sims}", path.display())?;
                match algorithm {
                    None => {}
                    Some(Algorithm::Puct) => write!(f, ":algorithm=puct")?,
                    Some(Algorithm::Gumbel) => write!(f, ":algorithm=gumbel")?,
                }
                match tb {
                    Some(tb) => write!(f, ":tb={}", tb.display()),
                    None => Ok(()),
                }
            }
            PlayerSpec::Engine { command, limit } => {
                write!(f, "engine:\"{command}\"")?;
                match limit {
                    AlphaBetaLimit::Depth(d) => write!(f, ":depth={d}"),
                    AlphaBetaLimit::MoveTime(ms) => write!(f, ":movetime={ms}"),
                    AlphaBetaLimit::Clock { base_ms, inc_ms } => {
                        write!(f, ":tc={}+{}", *base_ms as f64 / 1e3, *inc_ms as f64 / 1e3)
                    }
                }
            }
        }
    }
}

/// A player ready to play a match.
pub enum Player {
    /// A uniformly random legal move (from the match seed).
    Random,
    /// The alpha-beta baseline.
    AlphaBeta(AlphaBetaLimit),
    /// The alpha-beta baseline probing endgame tables.
    AlphaBetaTb {
        /// Its search limit.
        limit: AlphaBetaLimit,
        /// The tables.
        tb: Arc<Tablebase>,
    },
    /// MCTS (`SearchedGames`) over every game of the match with `evaluator` judging the
    /// leaves of all of them in one batch. The trainer builds this from its in-memory
    /// network; `oware eval` from a SPEC.
    Search {
        /// Shown in reports.
        name: String,
        /// Simulations per move.
        sims: u32,
        /// The evaluator.
        evaluator: Box<dyn Evaluator>,
        /// Endgame tables ending the search where they cover a position.
        tablebase: Option<Arc<Tablebase>>,
        /// Its search settings (`simulations` aside); `None`: the match's.
        mcts: Option<MctsConfig>,
    },
    /// An external engine (one process, asked for every game's moves in turn).
    Engine {
        /// The command line.
        command: String,
        /// What it is told to search for each move.
        limit: AlphaBetaLimit,
    },
}

impl fmt::Debug for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Player({})", self.name())
    }
}

impl Player {
    /// An MCTS player searching `sims` simulations per move with `evaluator` (e.g. the
    /// trainer's network in memory).
    pub fn search(name: impl Into<String>, sims: u32, evaluator: Box<dyn Evaluator>) -> Player {
        Player::Search {
            name: name.into(),
            sims: sims.max(1),
            evaluator,
            tablebase: None,
            mcts: None,
        }
    }

    /// This player searching with `mcts` (its `simulations` aside) instead of the match's
    /// settings; other players are returned unchanged.
    pub fn with_search(mut self, settings: MctsConfig) -> Player {
        if let Player::Search { mcts, .. } = &mut self {
            *mcts = Some(settings);
        }
        self
    }

    /// Builds the player a SPEC names for games under `rules` (a model trained for other
    /// rules is refused). `seed` seeds any randomness of its evaluator.
    pub fn from_spec(spec: &PlayerSpec, rules: RuleSet, seed: u64) -> Result<Player, PlayerError> {
        match spec {
            PlayerSpec::Random => Ok(Player::Random),
            PlayerSpec::AlphaBeta(l) => Ok(Player::AlphaBeta(*l)),
            PlayerSpec::AlphaBetaTb { limit, tb } => Ok(Player::AlphaBetaTb {
                limit: *limit,
                tb: open_tables(spec, tb, rules)?,
            }),
            PlayerSpec::Mcts { sims, eval } => {
                let e: Box<dyn Evaluator> = match eval {
                    MctsEval::Uniform => Box::new(UniformEvaluator),
                    MctsEval::Rollout => Box::new(RolloutEvaluator::new(ROLLOUTS_PER_LEAF, seed)),
                };
                Ok(Player::search(spec.to_string(), *sims, e))
            }
            PlayerSpec::Model {
                path,
                sims,
                algorithm,
                tb,
            } => {
                let err = |message: String| PlayerError::Model {
                    spec: spec.to_string(),
                    message,
                };
                let (evaluator, manifest) =
                    net::NetEvaluator::from_checkpoint(path, net::DeviceKind::Cpu)
                        .map_err(|e| err(e.to_string()))?;
                let trained = manifest.rule_set().map_err(|e| err(e.to_string()))?;
                if trained != rules {
                    return Err(err(format!(
                        "it was trained for rules {trained}, but the match plays {rules} (--rules)"
                    )));
                }
                let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
                let evaluator = evaluator.with_threads(threads);
                let mut search = manifest.search_settings();
                if let Some(a) = algorithm {
                    search.algorithm = *a;
                }
                let tablebase = match tb {
                    Some(dir) => Some(open_tables(spec, dir, rules)?),
                    None => None,
                };
                let mut p = Player::search(spec.to_string(), *sims, Box::new(evaluator))
                    .with_search(search);
                if let Player::Search { tablebase: t, .. } = &mut p {
                    *t = tablebase;
                }
                Ok(p)
            }
            PlayerSpec::Engine { command, limit } => Ok(Player::Engine {
                command: command.clone(),
                limit: *limit,
            }),
        }
    }

    /// A short description for reports.
    pub fn name(&self) -> String {
        match self {
            Player::Random => "random".into(),
            Player::AlphaBeta(l) => PlayerSpec::AlphaBeta(*l).to_string(),
            Player::AlphaBetaTb { limit, tb } => PlayerSpec::AlphaBetaTb {
                limit: *limit,
                tb: tb.dir().to_path_buf(),
            }
            .to_string(),
            Player::Search { name, .. } => name.clone(),
            Player::Engine { command, limit } => PlayerSpec::Engine {
                command: command.clone(),
                limit: *limit,
            }
            .to_string(),
        }
    }
}

/// Opens a player's tables (shared with any other player of the same directory) and
/// checks they are for the match's rules.
fn open_tables(
    spec: &PlayerSpec,
    dir: &std::path::Path,
    rules: RuleSet,
) -> Result<Arc<Tablebase>, PlayerError> {
    let tb = tablebase::open_shared(dir).map_err(|e| PlayerError::Tablebase {
        spec: spec.to_string(),
        message: e.to_string(),
    })?;
    if tb.rules() != rules {
        return Err(PlayerError::Tablebase {
            spec: spec.to_string(),
            message: format!(
                "the tables in {} are for rules {}, but the match plays {rules}",
                dir.display(),
                tb.rules()
            ),
        });
    }
    Ok(tb)
}

/// A player that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// Its endgame tables could not be loaded.
    #[error("player `{spec}`: cannot load the tables: {message}")]
    Tablebase {
        /// The spec.
        spec: String,
        /// What went wrong.
        message: String,
    },
    /// A model could not be loaded.
    #[error("player `{spec}`: cannot load the model: {message}")]
    Model {
        /// The spec.
        spec: String,
        /// What went wrong.
        message: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PlayerSpec {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    fn err(s: &str) -> String {
        s.parse::<PlayerSpec>().unwrap_err().to_string()
    }

    #[test]
    fn specs_parse() {
        assert_eq!(p("random"), PlayerSpec::Random);
        assert_eq!(
            p("alphabeta:depth=4"),
            PlayerSpec::AlphaBeta(AlphaBetaLimit::Depth(4))
        );
        assert_eq!(
            p("alphabeta:movetime=50"),
            PlayerSpec::AlphaBeta(AlphaBetaLimit::MoveTime(50))
        );
        assert_eq!(
            p("mcts:sims=64"),
            PlayerSpec::Mcts {
                sims: 64,
                eval: MctsEval::Uniform
            }
        );
        assert_eq!(
            p("mcts:sims=8:eval=rollout"),
            PlayerSpec::Mcts {
                sims: 8,
                eval: MctsEval::Rollout
            }
        );
        assert_eq!(
            p("model:runs/a/ckpt:sims=32"),
            PlayerSpec::Model {
                path: "runs/a/ckpt".into(),
                sims: 32,
                tb: None,
                algorithm: None,
            }
        );
        assert_eq!(
            p("model:runs/a/ckpt:sims=32:tb=tb/abapa"),
            PlayerSpec::Model {
                path: "runs/a/ckpt".into(),
                sims: 32,
                algorithm: None,
                tb: Some("tb/abapa".into()),
            }
        );
        assert_eq!(
            p("alphabeta:depth=8:tb=tb/abapa"),
            PlayerSpec::AlphaBetaTb {
                limit: AlphaBetaLimit::Depth(8),
                tb: "tb/abapa".into()
            }
        );
        assert_eq!(
            p("alphabeta:depth=8:tb=tb/abapa").to_string(),
            "alphabeta:depth=8:tb=tb/abapa"
        );
        assert_eq!(
            p("model:C:/x"),
            PlayerSpec::Model {
                path: "C:/x".into(),
                sims: DEFAULT_SIMS,
                tb: None,
                algorithm: None,
            }
        );
        assert_eq!(
            p("engine:\"./oware engine\""),
            PlayerSpec::Engine {
                command: "./oware engine".into(),
                limit: DEFAULT_ENGINE_LIMIT,
            }
        );
        assert_eq!(
            p("engine:aalina:depth=6"),
            PlayerSpec::Engine {
                command: "aalina".into(),
                limit: AlphaBetaLimit::Depth(6),
            }
        );
        assert_eq!(
            p("engine:'a b':movetime=20"),
            PlayerSpec::Engine {
                command: "a b".into(),
                limit: AlphaBetaLimit::MoveTime(20),
            }
        );
        for s in [
            "random",
            "alphabeta:depth=3",
            "mcts:sims=5:eval=rollout",
            "model:x:sims=3",
            "model:x:sims=3:algorithm=puct",
            "engine:\"a b\"",
            "engine:\"a b\":depth=3",
        ] {
            assert_eq!(p(&p(s).to_string()), p(s), "{s}");
        }
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        assert!(err("minimax").contains("unknown player kind `minimax`"));
        assert!(err("minimax").contains("alphabeta:depth=N"));
        assert!(err("alphabeta").contains("needs depth=N or movetime=MS"));
        assert!(err("alphabeta:depth=0").contains("positive whole number"));
        assert!(err("alphabeta:depth=x").contains("depth=x"));
        assert!(err("alphabeta:depth=2:movetime=4").contains("once"));
        assert!(err("alphabeta:speed=2").contains("unknown option `speed`"));
        assert!(err("mcts:sims=-1").contains("sims=-1"));
        assert!(err("model:x:precision=int16").contains("unknown option `precision`"));
        assert!(err("mcts:eval=net").contains("uniform or rollout"));
        assert!(err("mcts:64").contains("KEY=VALUE"));
        assert!(err("random:x=1").contains("no options"));
        assert!(err("model:").contains("needs a path"));
        assert!(err("model:a:temp=1").contains("unknown option `temp`"));
        assert!(err("model:a:algorithm=mcts").contains("puct or gumbel"));
        assert!(err("engine:").contains("needs a command"));
        assert!(err("engine:\"a b").contains("unclosed"));
        assert!(err("engine:\"a b\"x").contains("unexpected `x`"));
        assert!(err("engine:a:nodes=5").contains("unknown option `nodes`"));
        assert!(err("").contains("empty"));
    }

    #[test]
    fn model_players_load_a_checkpoint_and_check_its_rules() {
        use crate::arena::{MatchConfig, run_match};
        let dir = tempfile::tempdir().unwrap();
        let ck = dir.path().join("ck");
        let cfg = net::ModelConfig::default();
        let device = net::DeviceKind::Cpu.device().unwrap();
        let model = cfg.init(&device);
        let mut manifest = net::Manifest::new(&cfg, RuleSet::default(), 0, None);
        // Trained with PUCT: it plays with PUCT unless the spec says otherwise.
        let trained = MctsConfig {
            algorithm: Algorithm::Puct,
            c_puct: 3.0,
            ..MctsConfig::default()
        };
        manifest.search = Some(trained.clone());
        net::checkpoint::save(&ck, &manifest, &model, None).unwrap();
        let settings = |s: &str| match Player::from_spec(&p(s), RuleSet::default(), 1).unwrap() {
            Player::Search { mcts, .. } => mcts.unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(settings(&format!("model:{}", ck.display())), trained);
        let g = settings(&format!("model:{}:algorithm=gumbel", ck.display()));
        assert_eq!((g.algorithm, g.c_puct), (Algorithm::Gumbel, 3.0));
        let spec = p(&format!("model:{}:sims=8", ck.display()));
        let mut m = Player::from_spec(&spec, RuleSet::default(), 1).unwrap();
        let games = MatchConfig {
            games: 4,
            ..MatchConfig::default()
        };
        let r = run_match(&games, &mut m, &mut Player::Random).unwrap();
        assert_eq!(r.summary.games, 4);
        assert!(r.evaluations > 0);
        let awari: RuleSet = "awari".parse().unwrap();
        let e = Player::from_spec(&spec, awari, 1).unwrap_err().to_string();
        assert!(e.contains("trained for rules abapa"), "{e}");
        let missing = p("model:/nonexistent/ck");
        let e = Player::from_spec(&missing, RuleSet::default(), 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/nonexistent/ck") && e.contains("does not exist"),
            "{e}"
        );
    }
}
