"""Oware from Python: oware-zero's rules, batched environment, network, search and tables.

Everything runs in the same Rust code as the ``oware`` command-line program; this
package only moves numpy arrays and Python values in and out (docs/python.md).
"""

from ._oware_zero import (
    RULE_SETS,
    BatchEnv,
    Game,
    Network,
    Outcome,
    Position,
    Probe,
    SearchResult,
    Tablebase,
    alphabeta,
)

__all__ = [
    "RULE_SETS",
    "BatchEnv",
    "Game",
    "Network",
    "Outcome",
    "Position",
    "Probe",
    "SearchResult",
    "Tablebase",
    "alphabeta",
]

try:  # The Gymnasium environment, when gymnasium is installed.
    import gymnasium as _gym

    if "oware_zero/Oware-v0" not in _gym.registry:
        _gym.register(id="oware_zero/Oware-v0", entry_point="oware_zero.gym_env:OwareEnv")
except ImportError:  # pragma: no cover - gymnasium is optional
    pass
