//! Bad input becomes a Python exception with a one-line message, never a panic.

use std::fmt::Display;

use pyo3::exceptions::{PyFileNotFoundError, PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyInt;

use oware_core::game::RuleSet;

/// `ValueError` with `e`'s message on one line.
pub fn value_error(e: impl Display) -> PyErr {
    PyValueError::new_err(one_line(e))
}

/// `IndexError` with `e`'s message on one line.
pub fn index_error(e: impl Display) -> PyErr {
    PyIndexError::new_err(one_line(e))
}

/// `FileNotFoundError` with `e`'s message on one line.
pub fn not_found(e: impl Display) -> PyErr {
    PyFileNotFoundError::new_err(one_line(e))
}

/// `TypeError` for an argument that is none of the types it may be: `expected` says
/// which, the message names the type it got. One line, unlike the messages pyo3
/// derives for an enum of types (one line per variant).
pub fn type_error(expected: &str, got: &Bound<'_, PyAny>) -> PyErr {
    let name = got
        .get_type()
        .name()
        .map_or_else(|_| "?".to_string(), |n| n.to_string());
    PyTypeError::new_err(format!("expected {expected}, got {name}"))
}

/// An integer argument as i64: a Python int or anything with `__index__` (numpy's
/// integers), `Ok(None)` for any other type; one beyond i64 gives `i64::MAX` or
/// `i64::MIN`, which the caller's range check rejects with its own message.
pub fn extract_int(ob: &Bound<'_, PyAny>) -> PyResult<Option<i64>> {
    if let Ok(v) = ob.extract::<i64>() {
        return Ok(Some(v));
    }
    let Ok(index) = ob.call_method0("__index__") else {
        return Ok(None);
    };
    let index = index.downcast_into::<PyInt>()?;
    Ok(Some(if index.lt(0)? { i64::MIN } else { i64::MAX }))
}

/// A random seed: an integer 0..2^64-1, else a one-line `ValueError` (pyo3's own
/// conversion raises `OverflowError` for a negative one).
pub struct Seed(pub u64);

impl<'py> FromPyObject<'py> for Seed {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(v) = ob.extract::<u64>() {
            return Ok(Seed(v));
        }
        if extract_int(ob)?.is_some() {
            return Err(value_error(format!(
                "seed {ob} is out of range: expected 0..2**64-1"
            )));
        }
        Err(type_error("an integer seed", ob))
    }
}

/// The message with any line breaks (an error chain's, say) joined by "; ".
pub fn one_line(e: impl Display) -> String {
    e.to_string()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

/// The rule set named `name` (`abapa`, `awari`, …), or a `ValueError`.
pub fn parse_rules(name: &str) -> Result<RuleSet, PyErr> {
    name.parse().map_err(value_error)
}

/// An action 0..5 from a Python integer, or an `IndexError`.
pub fn check_action(action: i64) -> Result<usize, PyErr> {
    if (0..6).contains(&action) {
        Ok(action as usize)
    } else {
        Err(index_error(format!(
            "action {action} is out of range: expected 0..5 (the mover's pits A..F or a..f)"
        )))
    }
}
