//! `oware_zero._oware_zero`: the native half of the `oware_zero` Python package.
//!
//! Thin wrappers over the root crate (`oware-zero`): every rule, step, evaluation and
//! search is the command-line program's own code. Inputs are checked here, before they
//! reach code that may panic, and bad ones raise `ValueError`, `IndexError` or
//! `FileNotFoundError`.

use pyo3::prelude::*;

mod agents;
mod batch;
mod errors;
mod game;

/// The native module; `oware_zero/__init__.py` re-exports its classes.
#[pymodule]
fn _oware_zero(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<game::PyPosition>()?;
    m.add_class::<game::PyOutcome>()?;
    m.add_class::<game::PyGame>()?;
    m.add_class::<batch::PyBatchEnv>()?;
    m.add_class::<agents::PyNetwork>()?;
    m.add_class::<agents::PySearchResult>()?;
    m.add_class::<agents::PyTablebase>()?;
    m.add_class::<agents::PyProbe>()?;
    m.add_function(wrap_pyfunction!(agents::alphabeta, m)?)?;
    m.add(
        "RULE_SETS",
        oware_core::game::Preset::ALL.map(|p| p.name()).to_vec(),
    )?;
    Ok(())
}
