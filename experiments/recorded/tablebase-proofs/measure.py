#!/usr/bin/env python3
"""How often `oware tablebase probe` proves a value: positions and legal moves.

Draws random positions with no history (a seed count uniform in [--min-seeds,
--max-seeds], then a board uniform among those with that count -- as `oware tablebase
verify` draws them --, the side to move uniform, and the 48 - n seeds off the board
split between the stores uniformly among the splits that leave the game running:
neither store at 25 or more, not 24-24), probes them all with one `oware tablebase
probe --fens` call per node budget, and prints one JSON object:
for each budget the share of positions whose value (the margin) is proven, whose
outcome is proven, the share of legal moves whose value is proven, and the probe's time
per position (the `seconds` of each answer: the proof, the tables already open), and the
same counts per seed count (`by_seeds`: positions, values, outcomes, exact entries,
moves, moves proven).
With --per-call each position is one `oware tablebase probe --fen F --json` process
instead (for binaries without --fens), and its time is the process's wall time, the
opening of the tables included.

  python3 measure.py --oware target/release/oware --tb tablebases/abapa \
      --min-seeds 2 --max-seeds 12 --positions 300 --seed 1 --budgets 2000000,100000
"""
import argparse
import json
import random
import subprocess
import sys
import tempfile
import time


def draw(rng, lo, hi):
    n = rng.randint(lo, hi)
    # Stars and bars: 11 bars among n + 11 slots, uniform over the boards with n seeds.
    bars = sorted(rng.sample(range(n + 11), 11))
    pits, prev = [], -1
    for b in bars + [n + 11]:
        pits.append(b - prev - 1)
        prev = b
    assert sum(pits) == n and len(pits) == 12
    off = 48 - n
    splits = [s for s in range(off + 1) if s < 25 and off - s < 25 and not (s == 24 and off - s == 24)]
    south = rng.choice(splits)
    side = rng.choice("SN")
    return "-".join(map(str, pits + [south, off - south])) + "-" + side


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else None


def by_seeds(fens, rows):
    """Per seed count on the board: positions, and the shares of values, outcomes, exact
    entries and legal moves' values proven (where the failures are)."""
    out = {}
    for fen, row in zip(fens, rows):
        n = sum(map(int, fen.split("-")[:12]))
        d = out.setdefault(str(n), {"positions": 0, "value": 0, "outcome": 0, "exact": 0,
                                    "moves": 0, "moves_proven": 0})
        d["positions"] += 1
        d["value"] += row["value"] is not None
        d["outcome"] += row["outcome"] is not None
        d["exact"] += bool(row["exact"])
        d["moves"] += len(row["moves"])
        d["moves_proven"] += sum(v is not None for v in row["moves"].values())
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--oware", default="target/release/oware")
    ap.add_argument("--tb", required=True)
    ap.add_argument("--min-seeds", type=int, required=True)
    ap.add_argument("--max-seeds", type=int, required=True)
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--budgets", default="2000000,100000")
    ap.add_argument("--fens-out", help="also write the drawn positions here")
    ap.add_argument("--rows-out", help="also write every probe's answer here (JSON lines, "
                    "the budget added)")
    ap.add_argument("--per-call", action="store_true",
                    help="one process per position; time = its wall time")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    fens = [draw(rng, a.min_seeds, a.max_seeds) for _ in range(a.positions)]
    if a.fens_out:
        with open(a.fens_out, "w") as f:
            f.write("\n".join(fens) + "\n")
    out = {"oware": a.oware, "tb": a.tb, "seeds": [a.min_seeds, a.max_seeds],
           "positions": a.positions, "seed": a.seed,
           "time": "process wall time, tables opened each call" if a.per_call
           else "the probe's seconds (proof only, tables open)", "budgets": {}}
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(fens) + "\n")
        f.flush()
        for budget in [int(b) for b in a.budgets.split(",")]:
            t0 = time.time()
            if a.per_call:
                rows, secs = [], []
                for fen in fens:
                    t1 = time.time()
                    r = subprocess.run([a.oware, "tablebase", "probe", "--tb", a.tb, "--fen", fen,
                                        "--node-limit", str(budget), "--json"],
                                       capture_output=True, text=True)
                    secs.append(time.time() - t1)
                    if r.returncode != 0:
                        sys.exit(f"oware failed on {fen}: {r.stderr.strip()}")
                    rows.append(json.loads(r.stdout))
            else:
                r = subprocess.run([a.oware, "tablebase", "probe", "--tb", a.tb, "--fens", f.name,
                                    "--node-limit", str(budget)], capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit(f"oware failed: {r.stderr.strip()}")
                rows = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
                secs = [row["seconds"] for row in rows]
            wall = time.time() - t0
            assert len(rows) == len(fens)
            if a.rows_out:
                with open(a.rows_out, "a") as ro:
                    for row in rows:
                        ro.write(json.dumps(dict(row, budget=budget)) + "\n")
            moves = [v for row in rows for v in row["moves"].values()]
            out["budgets"][str(budget)] = {
                "value_proven": sum(row["value"] is not None for row in rows) / len(rows),
                "outcome_proven": sum(row["outcome"] is not None for row in rows) / len(rows),
                "moves": len(moves),
                "moves_proven": sum(v is not None for v in moves) / max(1, len(moves)),
                "positions_all_moves_proven": sum(all(v is not None for v in row["moves"].values())
                                                  for row in rows) / len(rows),
                "exact_entries": sum(row["exact"] for row in rows) / len(rows),
                "seconds_mean": sum(secs) / len(secs),
                "seconds_median": quantile(secs, 0.5),
                "seconds_p95": quantile(secs, 0.95),
                "seconds_max": max(secs),
                "over_1s": sum(s > 1.0 for s in secs),
                "wall_seconds": round(wall, 2),
                "by_seeds": by_seeds(fens, rows),
            }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
