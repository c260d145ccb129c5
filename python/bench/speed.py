"""Speed of oware_zero from Python against OpenSpiel's `oware` and our Rust benchmarks.

One run, one machine; every figure below comes from this process or its children:

- random-move game steps per second through ``BatchEnv`` at 1, 64 and 4 096 games
  (actions drawn in numpy from the legal masks, observations written every step);
- OpenSpiel's ``oware`` stepped from Python, one game at a time (random legal moves);
- ``oware bench env`` (the Rust batched environment, its "features" figure: random
  actions, legal masks and the onehot features written every step, as BatchEnv does);
- ``Network.evaluate`` at batch 512 against ``oware bench net``'s fast path for a
  model of the shipped network's shape, both on one thread and on every core.

Usage: python python/bench/speed.py --oware target/release/oware [--seconds 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import time

import numpy as np

import oware_zero as oz


def batch_env_rate(games: int, seconds: float) -> float:
    env = oz.BatchEnv(games, seed=1)
    _, mask, _ = env.reset()
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while True:
        # A uniformly random legal action per game: argmax of noise on the legal ones.
        actions = np.argmax(rng.random((games, 6)) * mask, axis=1)
        _, _, _, _, info = env.step(actions)
        mask = info["legal_mask"]
        steps += games
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def openspiel_rate(seconds: float) -> float | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("oware")
    rng = random.Random(0)
    state = game.new_initial_state()
    steps, start = 0, time.perf_counter()
    while True:
        for _ in range(256):
            if state.is_terminal():
                state = game.new_initial_state()
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def evaluate_rate(net: oz.Network, batch: int, seconds: float) -> float:
    env = oz.BatchEnv(batch * 8, seed=2, opening_plies=(0, 40))
    obs = env.reset()[0].copy()
    chunks = [obs[i * batch:(i + 1) * batch] for i in range(8)]
    net.evaluate(chunks[0])
    evals, start, i = 0, time.perf_counter(), 0
    while True:
        net.evaluate(chunks[i % 8])
        i += 1
        evals += batch
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return evals / elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--oware", default="target/release/oware", help="the oware binary")
    ap.add_argument("--seconds", type=float, default=2.0, help="seconds per figure")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args()
    cores = os.cpu_count()
    out: dict = {"cores": cores}

    out["batch_env_steps_per_second"] = {n: batch_env_rate(n, a.seconds) for n in (1, 64, 4096)}
    out["openspiel_steps_per_second"] = openspiel_rate(a.seconds)
    rust_env = json.loads(subprocess.run(
        [a.oware, "bench", "env", "--games", "1", "--games", "64", "--games", "4096",
         "--seconds", str(a.seconds / 2), "--json"],
        check=True, capture_output=True, text=True).stdout)
    out["rust_env"] = {
        r["games"]: r["steps_per_second"] for r in rust_env["results"] if r["mode"] == "features"
    }

    manifest = json.load(open(os.path.join(oz.Network.load().path, "manifest.json")))
    width, blocks = manifest["model"]["width"], manifest["model"]["blocks"]
    rust_net = json.loads(subprocess.run(
        [a.oware, "bench", "net", "--width", str(width), "--blocks", str(blocks), "--no-train",
         "--seconds", str(a.seconds / 2), "--json"],
        check=True, capture_output=True, text=True).stdout)
    out["evaluate_512"] = {}
    for threads in sorted({1, cores}):
        net = oz.Network.load(threads=threads)
        key = f"fast-{threads}"
        rust = rust_net["paths"].get(key, {}).get("evals_per_second", {}).get("512")
        out["evaluate_512"][threads] = {"python": evaluate_rate(net, 512, a.seconds), "rust": rust}

    py4096 = out["batch_env_steps_per_second"][4096]
    spiel = out["openspiel_steps_per_second"]
    print(f"cores: {cores}")
    print("random-move steps/s    Python BatchEnv    Rust bench env (features)    ratio")
    for n in (1, 64, 4096):
        p, r = out["batch_env_steps_per_second"][n], out["rust_env"].get(n)
        ratio = f"{p / r:.2f}" if r else "-"
        print(f"  {n:>5} games        {p:>14,.0f}    {r or 0:>14,.0f}               {ratio}")
    if spiel:
        print(f"OpenSpiel oware from Python: {spiel:,.0f} steps/s; BatchEnv at 4 096 games: {py4096 / spiel:,.0f}x")
    for t, e in out["evaluate_512"].items():
        ratio = f"{e['python'] / e['rust']:.2f}" if e["rust"] else "-"
        print(f"evaluate, batch 512, {t} thread(s): Python {e['python']:,.0f}/s, Rust fast path {e['rust'] or 0:,.0f}/s, ratio {ratio}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
