//! Bad input becomes a Python exception with a one-line message, never a panic.

use std::fmt::Display;

use pyo3::PyErr;
use pyo3::exceptions::{PyFileNotFoundError, PyIndexError, PyValueError};

use oware_zero::game::RuleSet;

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
