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

/// An integer argument: a Python int or anything with `__index__` (numpy's integers),
/// else a one-line `TypeError`. `value` is the integer saturated to i64 (every limit an
/// argument has is far inside it, so a saturated value always fails its range check);
/// `Display` shows the integer exactly as the caller passed it, so the message of that
/// check names 2**70 as 1180591620717411303424, not as i64's largest value. pyo3's own
/// conversion to i64 would raise `OverflowError` instead of the `ValueError` or
/// `IndexError` the range check gives.
#[derive(Clone)]
pub struct Int<'py> {
    pub value: i64,
    ob: Bound<'py, PyAny>,
}

impl<'py> FromPyObject<'py> for Int<'py> {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        let value = match ob.extract::<i64>() {
            Ok(v) => v,
            Err(_) => {
                let Ok(index) = ob.call_method0("__index__") else {
                    return Err(type_error("an integer", ob));
                };
                let index = index.downcast_into::<PyInt>()?;
                if index.lt(0)? { i64::MIN } else { i64::MAX }
            }
        };
        Ok(Int {
            value,
            ob: ob.clone(),
        })
    }
}

impl Display for Int<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.ob.str() {
            Ok(s) => f.write_str(&s.to_string_lossy()),
            Err(_) => write!(f, "{}", self.value),
        }
    }
}

/// `value` if it lies in `range`, else a `ValueError` "NAME must be RANGE, got VALUE".
pub fn int_in(name: &str, value: &Int<'_>, range: std::ops::RangeInclusive<i64>) -> PyResult<i64> {
    if range.contains(&value.value) {
        Ok(value.value)
    } else {
        Err(value_error(format!(
            "{name} must be {}..{}, got {value}",
            range.start(),
            range.end()
        )))
    }
}

/// A random seed: an integer 0..2^64-1, else a one-line `ValueError` (pyo3's own
/// conversion raises `OverflowError` for a negative one).
pub struct Seed(pub u64);

impl<'py> FromPyObject<'py> for Seed {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(v) = ob.extract::<u64>() {
            return Ok(Seed(v));
        }
        let int = ob.extract::<Int>()?;
        Err(value_error(format!(
            "seed {int} is out of range: expected 0..2**64-1"
        )))
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
pub fn check_action(action: &Int<'_>) -> Result<usize, PyErr> {
    if (0..6).contains(&action.value) {
        Ok(action.value as usize)
    } else {
        Err(index_error(format!(
            "action {action} is out of range: expected 0..5 (the mover's pits A..F or a..f)"
        )))
    }
}
