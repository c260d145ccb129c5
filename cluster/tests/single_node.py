"""The CI test of oware-ray: a local single-node Ray instance (ray.init() in oware-ray),
two self-play actors, a short run of a learner without self-play of its own. Checks
that the run finished, that its replay window holds chunks of both actors, and that
every chunk written is recorded once, unchanged, and taken by the learner.

Usage: OWARE_BIN=target/release/oware python3 cluster/tests/single_node.py
Exits non-zero on any failure.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIG = """
seed = 5
[model]
encoding = "onehot"
width = 16
blocks = 1
[search]
algorithm = "gumbel"
simulations = 8
cheap_simulations = 4
[selfplay]
threads = 1
games_per_iteration = 8
games_in_flight = 8
opening_plies = 4
[train]
iterations = 6
time_limit_minutes = 0
batch_size = 32
max_steps_per_iteration = 5
keep_checkpoints = 3
# Two chunks per iteration at least.
min_new_samples = 120
[train.window]
min = 5000
max = 50000
exponent = 0.65
[eval]
every = 0
"""


def main():
    oware = os.environ.get("OWARE_BIN")
    if not oware:
        print("single_node.py: set OWARE_BIN to the oware binary", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as d:
        d = Path(d)
        cfg = d / "tiny.toml"
        cfg.write_text(CONFIG)
        run = d / "run"
        env = dict(os.environ, PYTHONPATH=str(HERE.parent) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        t0 = time.time()
        p = subprocess.run(
            [sys.executable, "-m", "oware_ray", "train", "--config", str(cfg), "--run-dir", str(run),
             "--workers", "2", "--worker-threads", "1", "--games", "4", "--num-cpus", "2",
             "--oware", oware],
            env=env, timeout=600,
        )
        seconds = time.time() - t0
        assert p.returncode == 0, f"oware-ray train exited with {p.returncode}"
        state = json.loads((run / "state.json").read_text())
        assert state["iteration"] == 6, state["iteration"]
        ledger = [json.loads(l) for l in (run / "ray" / "chunks.jsonl").read_text().splitlines()]
        names = [r["name"] for r in ledger]
        assert len(names) == len(set(names)), "a chunk name written twice"
        shas = [r["sha256"] for r in ledger]
        assert len(shas) == len(set(shas)), "two chunks with the same bytes"
        window = state["window"]
        consumed = set(state["consumed"])
        workers = {n.split("-")[2] for n in window}
        assert workers == {"w00", "w01"}, f"the window holds chunks of {sorted(workers)}: {window}"
        assert all(n.startswith("ray-s001-") for n in window), window
        by_name = {r["name"]: r for r in ledger}
        for n in window:
            data = (run / "samples" / n).read_bytes()
            assert hashlib.sha256(data).hexdigest() == by_name[n]["sha256"], f"{n} changed"
        # Every chunk written was taken, or waits in RUN/samples for the next session.
        for n in names:
            assert n in consumed or (run / "samples" / n).exists(), f"{n} lost"
        rows = (run / "metrics.csv").read_text().splitlines()[1:]
        assert [int(r.split(",")[0]) for r in rows] == list(range(1, 7)), "metrics rows"
        print(f"single_node.py: ok: {len(window)} chunks in the window from workers "
              f"{sorted(workers)}, {len(ledger)} written, {seconds:.1f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
