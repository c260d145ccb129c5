//! `Position`, `Outcome` and `Game`: one game at a time, with the root crate's rules.

use numpy::PyArray1;
use pyo3::prelude::*;

use oware_core::env::Encoding;
use oware_core::game::{Game, Outcome, Position, Side, mask_letters, move_letter};

use crate::errors::{Int, check_action, index_error, parse_rules, type_error, value_error};

/// The actions (0..5) set in a legal-move mask, in pit order.
pub fn mask_actions(mask: u8) -> Vec<usize> {
    (0..6).filter(|a| mask & (1 << a) != 0).collect()
}

/// A position: 12 pits, 2 stores and the side to move.
///
/// Built from position text (`"4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"`: pits A..F, a..f in
/// sowing order, South's store, North's store, side to move; docs/notation.md); the
/// start position when no text is given. Immutable and hashable.
#[pyclass(module = "oware_zero", name = "Position", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyPosition {
    pub pos: Position,
}

/// A position given as a `Position` or as its text.
pub enum PositionArg {
    Position(PyPosition),
    Text(String),
}

impl<'py> FromPyObject<'py> for PositionArg {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(p) = ob.downcast::<PyPosition>() {
            return Ok(PositionArg::Position(*p.get()));
        }
        if let Ok(t) = ob.extract::<String>() {
            return Ok(PositionArg::Text(t));
        }
        Err(type_error("a Position or position text", ob))
    }
}

impl PositionArg {
    pub fn resolve(self) -> PyResult<Position> {
        match self {
            PositionArg::Position(p) => Ok(p.pos),
            PositionArg::Text(t) => t.parse().map_err(value_error),
        }
    }
}

#[pymethods]
impl PyPosition {
    #[new]
    #[pyo3(signature = (text = None))]
    fn new(text: Option<&str>) -> PyResult<Self> {
        let pos = match text {
            None => Position::start(),
            Some(t) => t.parse().map_err(value_error)?,
        };
        Ok(PyPosition { pos })
    }

    /// The start position: 4 seeds in every pit, South to move.
    #[staticmethod]
    fn start() -> Self {
        PyPosition {
            pos: Position::start(),
        }
    }

    /// Seeds in the 12 pits, A..F (South's) then a..f (North's).
    #[getter]
    fn pits(&self) -> Vec<u32> {
        // u32, not u8: pyo3 turns a Vec<u8> into bytes.
        self.pos.pits.iter().map(|&p| p as u32).collect()
    }

    /// Captured seeds (South, North).
    #[getter]
    fn stores(&self) -> (u8, u8) {
        (self.pos.stores[0], self.pos.stores[1])
    }

    /// The player to move: 0 South, 1 North.
    #[getter]
    #[allow(clippy::wrong_self_convention)] // a pyo3 getter takes &self; the name is Python's
    fn to_play(&self) -> usize {
        self.pos.side.index()
    }

    /// The player to move as in position text: "S" or "N".
    #[getter]
    fn side(&self) -> char {
        self.pos.side.letter()
    }

    /// Legal actions (0..5, counted from the mover's pit A or a), before repetition:
    /// empty when the position itself ends the game.
    #[pyo3(signature = (rules = "abapa"))]
    fn legal_moves(&self, rules: &str) -> PyResult<Vec<usize>> {
        let rules = parse_rules(rules)?;
        Ok(mask_actions(self.pos.legal_moves(rules)))
    }

    /// The position after `action` (0..5); `ValueError` if it is illegal here.
    #[pyo3(signature = (action, rules = "abapa"))]
    fn apply(&self, action: Int, rules: &str) -> PyResult<PyPosition> {
        let rules = parse_rules(rules)?;
        let a = check_action(&action)?;
        let legal = self.pos.legal_moves(rules);
        if legal & (1 << a) == 0 {
            return Err(value_error(format!(
                "move {} is illegal in {} (legal: {})",
                move_letter(self.pos.side, a),
                self.pos,
                if legal == 0 {
                    "none, the game is over".to_string()
                } else {
                    mask_letters(self.pos.side, legal)
                }
            )));
        }
        let mut pos = self.pos;
        pos.apply(rules, a);
        Ok(PyPosition { pos })
    }

    /// The outcome if the position itself ends the game (every ending but repetition,
    /// which needs the game's history: see `Game`), else None.
    #[pyo3(signature = (rules = "abapa"))]
    fn outcome(&self, rules: &str) -> PyResult<Option<PyOutcome>> {
        let rules = parse_rules(rules)?;
        Ok(self.pos.status(rules).map(PyOutcome::from))
    }

    /// The network's input features from the mover's view: float32, shape [dim]
    /// (`onehot`: 354, `counts`: 14).
    #[pyo3(signature = (encoding = "onehot"))]
    fn encode<'py>(&self, py: Python<'py>, encoding: &str) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let e: Encoding = encoding.parse().map_err(value_error)?;
        let mut out = vec![0.0f32; e.dim()];
        e.encode(&self.pos, &mut out);
        Ok(PyArray1::from_vec(py, out))
    }

    /// A board diagram as seen from South.
    fn diagram(&self) -> String {
        oware_core::game::diagram(&self.pos)
    }

    fn __str__(&self) -> String {
        self.pos.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Position('{}')", self.pos)
    }
}

/// How a finished game ended.
#[pyclass(module = "oware_zero", name = "Outcome", frozen, eq)]
#[derive(Clone, Copy, PartialEq)]
pub struct PyOutcome {
    pub outcome: Outcome,
}

impl From<Outcome> for PyOutcome {
    fn from(outcome: Outcome) -> Self {
        PyOutcome { outcome }
    }
}

#[pymethods]
impl PyOutcome {
    /// Why the game ended: "store-threshold", "even-split", "cannot-feed", "no-seeds",
    /// "only-grand-slams" or "repetition".
    #[getter]
    fn reason(&self) -> &'static str {
        self.outcome.reason.name()
    }

    /// Final stores in seeds (South, North), after the seeds left were shared out
    /// (halves only where the rules split them evenly).
    #[getter]
    fn scores(&self) -> (f32, f32) {
        let s = self.outcome.stores();
        (s[0], s[1])
    }

    /// The winner: 0 South, 1 North, None for a draw.
    #[getter]
    fn winner(&self) -> Option<usize> {
        self.outcome.winner().map(Side::index)
    }

    /// +1 if `player` (0 South, 1 North) won, 0 for a draw, -1 if it lost.
    fn returns_for(&self, player: Int) -> PyResult<i8> {
        let side = player_side(&player)?;
        Ok(self.outcome.score_for(side))
    }

    /// The returns of both players (South, North): +1, 0 or -1 each.
    #[getter]
    fn returns(&self) -> (f32, f32) {
        (
            self.outcome.score_for(Side::South) as f32,
            self.outcome.score_for(Side::North) as f32,
        )
    }

    fn __repr__(&self) -> String {
        let s = self.outcome.stores();
        format!(
            "Outcome(reason='{}', scores=({}, {}), winner={})",
            self.outcome.reason.name(),
            s[0],
            s[1],
            match self.outcome.winner() {
                Some(w) => w.index().to_string(),
                None => "None".to_string(),
            }
        )
    }
}

/// The side of player number `player` (0 South, 1 North), or an `IndexError`.
pub fn player_side(player: &Int<'_>) -> PyResult<Side> {
    match player.value {
        0 => Ok(Side::South),
        1 => Ok(Side::North),
        _ => Err(index_error(format!(
            "player {player} does not exist: expected 0 (South) or 1 (North)"
        ))),
    }
}

/// A move given as an action number or as move letters.
pub enum MoveArg<'py> {
    Action(Int<'py>),
    Text(String),
}

impl<'py> FromPyObject<'py> for MoveArg<'py> {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(t) = ob.extract::<String>() {
            return Ok(MoveArg::Text(t));
        }
        match ob.extract::<Int>() {
            Ok(a) => Ok(MoveArg::Action(a)),
            Err(_) => Err(type_error("an action 0..5 or move letters", ob)),
        }
    }
}

/// A game: rules, start, moves, the current position, its history for the repetition
/// rule, and the outcome once it is over.
#[pyclass(module = "oware_zero", name = "Game")]
#[derive(Clone)]
pub struct PyGame {
    pub game: Game,
}

#[pymethods]
impl PyGame {
    /// A game under `rules` from `position` (the start by default), then `moves`
    /// (move letters such as "FfBe") played.
    #[new]
    #[pyo3(signature = (rules = "abapa", position = None, moves = None))]
    fn new(rules: &str, position: Option<PositionArg>, moves: Option<&str>) -> PyResult<Self> {
        let rules = parse_rules(rules)?;
        let start = match position {
            Some(p) => p.resolve()?,
            None => Position::start(),
        };
        let mut game = Game::new(rules, start);
        if let Some(m) = moves {
            game.play_text(m).map_err(value_error)?;
        }
        Ok(PyGame { game })
    }

    /// The rule set's name.
    #[getter]
    fn rules(&self) -> &'static str {
        self.game.rules().name()
    }

    /// The current position.
    #[getter]
    fn position(&self) -> PyPosition {
        PyPosition {
            pos: *self.game.position(),
        }
    }

    /// Where the game started.
    #[getter]
    fn start(&self) -> PyPosition {
        PyPosition {
            pos: *self.game.start(),
        }
    }

    /// The player to move: 0 South, 1 North.
    #[getter]
    fn to_play(&self) -> usize {
        self.game.position().side.index()
    }

    /// The moves played, as letters ("FfBe").
    #[getter]
    fn moves(&self) -> String {
        self.game.move_text()
    }

    /// The moves played as actions 0..5, in order.
    #[getter]
    fn actions(&self) -> Vec<u32> {
        self.game.moves().iter().map(|&(_, a)| a as u32).collect()
    }

    /// Legal actions (0..5); empty once the game is over.
    fn legal_moves(&self) -> Vec<usize> {
        mask_actions(self.game.legal_moves())
    }

    /// Legal moves as letters, in pit order ("ACF").
    fn legal_move_letters(&self) -> String {
        mask_letters(self.game.position().side, self.game.legal_moves())
    }

    /// Plays a move: an action 0..5 of the side to move, or move letters ("F", "FfBe").
    /// `ValueError` for an illegal move, a move after the end or bad text (moves before
    /// the bad one stay played); `IndexError` for an action outside 0..5.
    fn play(&mut self, mv: MoveArg) -> PyResult<()> {
        match mv {
            MoveArg::Action(a) => {
                let a = check_action(&a)?;
                self.game.play(a).map(|_| ()).map_err(value_error)
            }
            MoveArg::Text(t) => self.game.play_text(&t).map_err(value_error),
        }
    }

    /// Takes back the last move (the game is replayed from its start without it);
    /// `IndexError` when no move was played.
    fn undo(&mut self) -> PyResult<()> {
        let moves = self.game.moves();
        if moves.is_empty() {
            return Err(index_error("no move to undo: the game is at its start"));
        }
        let mut g = Game::new(self.game.rules(), *self.game.start());
        for &(_, a) in &moves[..moves.len() - 1] {
            g.play(a as usize)
                .expect("a move played before is legal when replayed");
        }
        self.game = g;
        Ok(())
    }

    /// The outcome once the game is over, else None.
    #[getter]
    fn outcome(&self) -> Option<PyOutcome> {
        self.game.outcome().map(PyOutcome::from)
    }

    /// Whether the game is over.
    #[getter]
    fn is_over(&self) -> bool {
        self.game.is_over()
    }

    /// Whether `position` occurred since the last capture (reaching it again ends the
    /// game by repetition).
    fn seen(&self, position: PositionArg) -> PyResult<bool> {
        Ok(self.game.history().contains(&position.resolve()?))
    }

    /// Positions since the last capture, the current one included.
    #[getter]
    fn positions_since_capture(&self) -> usize {
        self.game.history().len()
    }

    /// An independent copy.
    fn copy(&self) -> PyGame {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Game(rules='{}', position='{}', moves='{}')",
            self.game.rules().name(),
            self.game.start(),
            self.game.move_text()
        )
    }
}
