#!/usr/bin/env python3
"""Builds frontier.csv: strength (Elo against v1 at 64 simulations a move) against machine
hours for every shipped network and every recorded run that can be put on that scale.

    python3 experiments/recorded/frontier/build.py            # writes frontier.csv
    python3 experiments/recorded/frontier/build.py --table    # and prints README.md's table

Standard library only. Every figure comes from a file in the repository (the matches of
this folder, the runs' metrics.csv and match JSON) or, where a record kept no file, from
the record's README, quoted below with its path. README.md says how each point was made.
"""
import csv
import gzip
import io
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REC = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(REC))

# Seconds an iteration of configs/default.toml on an idle machine: the 10-minute timing
# of long-1204/README.md ("Idle timing", 2-vCPU AMD EPYC with AVX-512, 2026-12-04).
IDLE_DEFAULT_S = 7.6

# v2 against v1, 2 000 games at 64 simulations, paired 6-ply openings, seed 4
# (default-1203/README.md and ship-v2/README.md; no JSON was kept): the bridge for every
# point measured against v2.
V2_VS_V1 = (78.0, 65.0, 91.0)
V2_VS_V1_SOURCE = "default-1203/README.md: v2 vs v1 +1 123 =194 −683 of 2 000, seed 4"

# The quick runs whose networks are gone against alphabeta:depth=12 (200 games, 64
# simulations, eval's defaults then: seed 1, paired 4-ply openings), from their records.
QUICK_D12 = {
    "quick": ((215.0, 168.0, 270.0), "experiments/README.md, recorded/quick row: +149 =12 −39"),
    "quick-avx2": ((108.0, 61.0, 158.0), "quick-avx2/README.md: +124 =12 −64"),
    "quick-xeon": ((141.0, 96.0, 191.0), "quick-xeon/README.md: +134 =9 −57"),
}


def params(blocks, width, dim=354):
    """Parameters of the residual MLP: input layer, two layers a block, policy (6) and
    value (4) heads."""
    return dim * width + width + blocks * 2 * (width * width + width) + 6 * width + 6 + 4 * width + 4


assert params(1, 256) == 225034 and params(2, 256) == 356618  # long-1204/README.md
assert params(1, 128) * 4 + 1756 == 320772  # the quick network's model.bpk, in bytes

RUNS = {
    # id: (label, blocks, width, machine, date, commit, command, load)
    "quick-1130": ("quick config, 12 min", 1, 128, "AMD EPYC, AVX-512", "2026-11-30", "00fc5a6",
                   "`oware train --config configs/quick.toml`", "builds beside it"),
    "quick": ("quick config, 12 min", 1, 128, "AMD EPYC, AVX-512", "2026-11-30", "6f93555",
              "`cargo run --release -- train --config configs/quick.toml` on a fresh clone", "idle"),
    "quick-avx2": ("quick config, 12 min", 1, 128, "AMD EPYC, AVX2", "2026-12-01", "8670010",
                   "`oware train --config configs/quick.toml`", "idle"),
    "quick-xeon": ("quick config, 12 min", 1, 128, "Intel Xeon, AVX-512", "2026-12-02", "ed9658e",
                   "`oware train --config configs/quick.toml`", "idle"),
    "default-55min": ("default config, stopped at 55 min", 1, 256, "AMD EPYC, AVX-512", "2026-11-30", "00fc5a6",
                      "`oware train --config configs/default.toml --set train.time_limit_minutes=55`",
                      "not recorded"),
    "default": ("default config, 2 h (v1)", 1, 256, "AMD EPYC, AVX-512", "2026-11-30", "04d1d62",
                "`oware train --config configs/default.toml --run-dir experiments/default-2h`",
                "nearly idle (niced builds, one niced CI run)"),
    "default-1202": ("default config, 2 h", 1, 256, "Intel Xeon, AVX-512", "2026-12-02", "26c3529",
                     "`oware train --config configs/default.toml`", "builds at nice 19 for about 80 of 120 min"),
    "default-1203": ("default config, 2 h (v2)", 1, 256, "Intel Xeon, AVX-512", "2026-12-03", "fe4fbe3",
                     "`oware train --config configs/default.toml`", "idle"),
    "continuation": ("v1 continued at lr 1e-4, 110 min", 1, 256, "AMD EPYC, AVX2", "2026-12-01", "25858e2",
                     "`oware train --config configs/default.toml --set train.init_from=checkpoints/oware-abapa-v1 "
                     "--set train.learning_rate=0.0001 …` (the whole command in its README)",
                     "shared (load average 4–6), idle for its last 15 min"),
    "continuation-5e-4": ("v1 continued at lr 5e-4, stopped", 1, 256, "AMD EPYC, AVX2", "2026-12-01", "25858e2",
                          "the same with `--set train.learning_rate=0.0005`, stopped at iteration 23", "shared"),
    "long-1204": ("long config, 3 000 iterations in legs", 1, 256, "AMD EPYC, AVX-512", "2026-12-04/05",
                  "25f1778 … d4f3bb8 (legs)", "`oware train --config configs/long.toml --capsule CAPSULE`, each later leg `--resume`",
                  "legs 1–4 at nice 19 beside other work, leg 6 idle"),
}

SHIPPED = {
    "quick-1130": "shipped 2026-11-30 07:01–07:48 (f976753)",
    "default-55min": "shipped 2026-11-30 07:48–10:28 (00fc5a6)",
    "default": "v1, shipped 2026-11-30 to 2026-12-04",
    "default-1203": "v2, shipped since 2026-12-04",
}


def rec(*p):
    return os.path.join(REC, *p)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def git_csv(rev_path):
    text = subprocess.run(["git", "-C", ROOT, "show", rev_path], check=True,
                          capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(text)))


def match(path):
    with open(path) as f:
        m = json.load(f)
    lo, hi = m["elo_ci95"]
    return (m["elo"], lo, hi), m


def opt_match(path):
    """A match of this record, or None where it was not played (build.py still runs)."""
    return match(path) if os.path.exists(path) and os.path.getsize(path) > 0 else (None, None)


def add(a, b):
    e = a[0] + b[0]
    return (e, e - math.hypot(a[0] - a[1], b[0] - b[1]), e + math.hypot(a[2] - a[0], b[2] - b[0]))


def neg(a):
    return (-a[0], -a[2], -a[1])


def fmt(e):
    return f"{e[0]:+.0f} [{e[1]:+.0f}, {e[2]:+.0f}]".replace("-", "−")


def wdl(m):
    return f"+{m['wins']} ={m['draws']} −{m['losses']} of {m['games']}"


points = []
checks = []


def point(run, point_, iteration, clock_s, idle_s, elo, method, source, shipped=""):
    label, blocks, width, machine, date, commit, *_ = RUNS[run]
    points.append(dict(
        run=run, label=label, date=date, commit=commit, blocks=blocks, width=width, params=params(blocks, width),
        machine=machine,
        point=point_, iteration=iteration, run_clock_h=round(clock_s / 3600, 3),
        idle_h=round(idle_s / 3600, 3), x_h=round(idle_s / 3600, 3),
        elo=round(elo[0], 1), elo_low=round(elo[1], 1), elo_high=round(elo[2], 1),
        method=method, shipped=shipped, source=source))


M = os.path.join(HERE, "matches")

# --- Runs on the 2026-11-30 AMD EPYC (AVX-512) -------------------------------------------
q0 = git_csv("00fc5a6:experiments/quick/metrics.csv")  # the first quick run's own metrics
q6 = read_csv(rec("quick", "metrics.csv"))             # the idle quick run of 6f93555
assert len(q0) == 266 and sum(int(r["train_steps"]) for r in q0) == 29138  # = the network's step
e, m = match(os.path.join(M, "quick-1130-vs-v1.json"))
point("quick-1130", "final (iteration 266)", 266, float(q0[-1]["wall_seconds"]),
      float(q6[265]["wall_seconds"]), e, "measured",
      f"matches/quick-1130-vs-v1.json ({wdl(m)}); clock 00fc5a6:experiments/quick/metrics.csv; "
      "idle: quick/metrics.csv (6f93555, idle) at iteration 266", SHIPPED["quick-1130"])
q1130_v1 = e

d55 = read_csv(rec("default-55min", "metrics.csv"))
dv1 = read_csv(rec("default", "metrics.csv"))
assert sum(int(r["train_steps"]) for r in d55) == 58725 and sum(int(r["train_steps"]) for r in dv1) == 206362
e, m = opt_match(os.path.join(M, "default-55min-vs-v1.json"))
clock55 = "; clock default-55min/metrics.csv; idle: default/metrics.csv (v1's run, same config and machine, nearly idle) at iteration 261"
if e:
    point("default-55min", "final (iteration 261)", 261, float(d55[-1]["wall_seconds"]),
          float(dv1[260]["wall_seconds"]), e, "measured",
          f"matches/default-55min-vs-v1.json ({wdl(m)})" + clock55, SHIPPED["default-55min"])
    checks.append(("the 55-minute network", fmt(e),
                   "−102 [−148, −59]: v1 against it +117 =23 −60 of 200, 4-ply openings (experiments/README.md)"))
else:
    e = (-102.0, -148.0, -59.0)
    point("default-55min", "final (iteration 261)", 261, float(d55[-1]["wall_seconds"]),
          float(dv1[260]["wall_seconds"]), e, "recorded (4-ply)",
          "experiments/README.md: v1 against it +117 =23 −60 of 200, 4-ply openings" + clock55, SHIPPED["default-55min"])
checks.append(("the first quick network", fmt(q1130_v1),
               fmt(add(e, (-131.0, -180.0, -87.0))) + ": the 55-minute network against it "
               "+129 =14 −57 of 200, 4-ply (00fc5a6:experiments/README.md), added to the 55-minute network's point"))

v1_clock = float(dv1[-1]["wall_seconds"])
point("default", "final (iteration 874)", 874, v1_clock, v1_clock, (0.0, 0.0, 0.0), "reference",
      "checkpoints/oware-abapa-v1; clock default/metrics.csv", SHIPPED["default"])

# --- The quick runs whose networks are gone: through alphabeta:depth=12 ------------------
e12, m12 = opt_match(os.path.join(M, "quick-1130-vs-depth12.json"))
if e12:
  checks.append(("the first quick network against `alphabeta:depth=12`", fmt(e12) + f" ({wdl(m12)}, today's binary)",
               "+152 =12 −36 of 200 (0.790) with the binary of 00fc5a6 (00fc5a6:experiments/README.md)"))
for run, rows in () if not e12 else (("quick", q6), ("quick-avx2", read_csv(rec("quick-avx2", "metrics.csv"))),
                  ("quick-xeon", read_csv(rec("quick-xeon", "metrics.csv")))):
    d12, src = QUICK_D12[run]
    e = add(add(q1130_v1, d12), neg(e12))
    clock = float(rows[-1]["wall_seconds"])
    point(run, f"final (iteration {len(rows)})", len(rows), clock, clock, e, "chained via depth 12",
          f"{src}, minus the first quick network's matches/quick-1130-vs-depth12.json, "
          f"plus its matches/quick-1130-vs-v1.json; clock {run}/metrics.csv")

# --- The Intel Xeon (AVX-512) 2-hour runs -------------------------------------------------
r1202 = read_csv(rec("default-1202", "metrics.csv"))
e, m = opt_match(os.path.join(M, "default-1202-vs-v1.json"))
c = float(r1202[-1]["wall_seconds"])
if e:
    point("default-1202", f"final (iteration {len(r1202)})", len(r1202), c, c, e, "measured",
          f"matches/default-1202-vs-v1.json ({wdl(m)}); clock default-1202/metrics.csv")
else:
    e = (10.0, -19.0, 40.0)
    point("default-1202", f"final (iteration {len(r1202)})", len(r1202), c, c, e, "recorded",
          "default-1202/README.md: against v1 +183 =46 −171 of 400, seed 3, 6-ply; clock default-1202/metrics.csv")
checks.append(("the 2026-12-02 network", fmt(e),
               "+10 [−19, +40] over 400 games, seed 3 (default-1202/README.md); "
               + fmt(add(V2_VS_V1, (-99.0, -130.0, -69.0))) + " through v2 (v2 against it +99 [+69, +130], default-1203/README.md)"))

r1203 = read_csv(rec("default-1203", "metrics.csv"))
c = float(r1203[-1]["wall_seconds"])
point("default-1203", f"final (iteration {len(r1203)})", len(r1203), c, c, V2_VS_V1, "recorded",
      V2_VS_V1_SOURCE + "; clock default-1203/metrics.csv", SHIPPED["default-1203"])
e, m = opt_match(os.path.join(M, "v2-vs-v1.json"))
if e:
  checks.append(("v2", fmt(V2_VS_V1) + " (2 000 games, seed 4; plotted and used as the bridge)",
               fmt(e) + f" ({wdl(m)}, seed 5, matches/v2-vs-v1.json); +94 [+64, +126] over 400, seed 3 (default-1203/README.md)"))

# --- v1 continued (AMD EPYC, AVX2, shared): the runs' own evaluations against v1 ---------
cont = read_csv(rec("continuation", "metrics.csv"))
w = [float(r["wall_seconds"]) for r in cont]
k = next(i for i, x in enumerate(w) if x >= w[-1] - 900)  # its idle last 15 minutes
idle_it = (w[-1] - w[k - 1]) / (len(w) - k)
for name, rows in (("continuation", cont), ("continuation-5e-4", read_csv(rec("continuation", "lr5e-4-metrics.csv")))):
    point(name, "start: v1", 0, v1_clock, v1_clock, (0.0, 0.0, 0.0), "reference", "v1")
    for r in rows:
        if r["eval_score"]:
            it = int(r["iteration"])
            if name == "continuation" and it == len(rows):
                continue  # the final network's 400-game match below stands for it
            point(name, f"iteration {it}", it, v1_clock + float(r["wall_seconds"]), v1_clock + it * idle_it,
                  (float(r["eval_elo"]), float(r["eval_elo_low"]), float(r["eval_elo_high"])),
                  "recorded (4-ply)",
                  f"continuation/{'metrics.csv' if name == 'continuation' else 'lr5e-4-metrics.csv'}: "
                  f"periodic match against v1, 200 games, 4-ply openings (score {float(r['eval_score']):.3f}); "
                  f"idle: v1's 2 h + {it} × {idle_it:.1f} s (continuation's idle last 15 minutes)")
cf, m = match(rec("continuation", "final-vs-shipped.json"))
point("continuation", f"final (iteration {len(cont)})", len(cont), v1_clock + w[-1], v1_clock + len(cont) * idle_it,
      cf, "recorded (4-ply)", f"continuation/final-vs-shipped.json: against v1 {wdl(m)}, seed 5, 4-ply openings; "
      f"idle: v1's 2 h + {len(cont)} × {idle_it:.1f} s")
last = cont[-1]
checks.append(("the continuation's final network (iteration 166)", fmt(cf) + f" ({wdl(m)}, 4-ply openings, seed 5; "
               "continuation/final-vs-shipped.json)",
               fmt((float(last["eval_elo"]), float(last["eval_elo_low"]), float(last["eval_elo_high"])))
               + " in its own periodic match at iteration 166 (200 games, 4-ply)"))

# --- The long run ------------------------------------------------------------------------
with gzip.open(rec("long-1204", "capsule", "metrics.csv.gz"), "rt", newline="") as f:
    long_rows = list(csv.DictReader(f))
assert [int(r["iteration"]) for r in long_rows] == list(range(1, 3001))


def long_point(it, e, method, source):
    point("long-1204", f"iteration {it}", it, float(long_rows[it - 1]["wall_seconds"]), it * IDLE_DEFAULT_S,
          e, method, source + f"; clock long-1204/capsule/metrics.csv.gz; idle: {it} × {IDLE_DEFAULT_S} s")


progress = {}
for fn in sorted(os.listdir(rec("long-1204", "progress"))):
    it = int(fn[len("match-"):-len(".json")])
    progress[it] = match(rec("long-1204", "progress", fn))
measured = {it: match(os.path.join(M, f"long-{it:04d}-vs-v1.json")) for it in (103, 936, 1178, 1720, 3000)
            if os.path.exists(os.path.join(M, f"long-{it:04d}-vs-v1.json"))}
for it in sorted(set(progress) | set(measured)):
    if it in measured:
        e, m = measured[it]
        long_point(it, e, "measured", f"matches/long-{it:04d}-vs-v1.json ({wdl(m)})")
        if it in progress:
            checks.append((f"the long run at iteration {it}", fmt(e),
                           fmt(add(progress[it][0], V2_VS_V1)) + " chained (long-1204/progress against v2, plus v2 against v1)"))
    else:
        e, m = progress[it]
        long_point(it, add(e, V2_VS_V1), "chained via v2",
                   f"long-1204/progress/match-{it:04d}.json against v2 ({wdl(m)}, {fmt(e)}) plus v2 against v1 {fmt(V2_VS_V1)}")
e, m = match(rec("long-1204", "ship", "match-64.json"))
if 3000 not in measured:
    long_point(3000, add(e, V2_VS_V1), "chained via v2",
               f"long-1204/ship/match-64.json against v2 ({wdl(m)}, {fmt(e)}) plus v2 against v1 {fmt(V2_VS_V1)}")
else:
  checks.append(("the long run at iteration 3000", fmt(measured[3000][0]),
               fmt(add(e, V2_VS_V1)) + f" chained (long-1204/ship/match-64.json against v2, {wdl(m)}, {fmt(e)}, plus v2 against v1)"))

COLS = ["run", "label", "date", "commit", "blocks", "width", "params", "machine", "point", "iteration", "run_clock_h", "idle_h",
        "x_h", "elo", "elo_low", "elo_high", "method", "shipped", "source"]
with open(os.path.join(HERE, "frontier.csv"), "w", newline="") as f:
    wr = csv.DictWriter(f, COLS)
    wr.writeheader()
    wr.writerows(points)
print(f"frontier.csv: {len(points)} points", file=sys.stderr)

RECORD = {"quick-1130": "00fc5a6:experiments/quick/ (replaced by `../quick/`)", "continuation-5e-4": "../continuation/",
          "default": "../default/", "long-1204": "../long-1204/"}
if "--table" in sys.argv:
    print("| run | date | commit | command | machine (2 vCPU), load | network | record |")
    print("|---|---|---|---|---|---|---|")
    for r, (label, blocks, width, machine, date, commit, command, load) in RUNS.items():
        size = f"{blocks}×{width}, {params(blocks, width):,}".replace(",", " ").replace("  ", ", ")
        print(f"| `{r}`: {label} | {date} | {commit} | {command} | {machine}; {load} | {size} | "
              f"{RECORD.get(r, '../' + r + '/')} |")
    print()
    order = list(RUNS)
    points.sort(key=lambda p: (order.index(p["run"]), p["iteration"]))
    print("| run (machine) | network | point | run clock (h) | idle-equivalent (h), plotted | Elo vs v1 [95%] | how |")
    print("|---|---|---|---:|---:|---|---|")
    for p in points:
        if p["method"] == "reference" and p["run"] != "default":
            continue
        if p["run"].startswith("continuation") and p["iteration"] not in (10, 20, 80, 166):
            continue
        ship = f" **{p['shipped']}**" if p["shipped"] else ""
        run = RUNS[p["run"]]
        size = f"{p['blocks']}×{p['width']}, {p['params']:,}".replace(",", " ").replace("  ", ", ")
        print(f"| `{p['run']}` {run[4]}, {run[5]} ({p['machine']}){ship} | {size} | {p['point']} | "
              f"{p['run_clock_h']:.2f} | {p['idle_h']:.2f} | {fmt((p['elo'], p['elo_low'], p['elo_high']))} | "
              f"{p['method']} |")
    print()
    print("| network | plotted | check |")
    print("|---|---|---|")
    for name, a, b in checks:
        print(f"| {name} | {a} | {b} |")
    print()
    print(f"continuation idle seconds an iteration: {idle_it:.2f} (iterations {k + 1}-{len(w)})", file=sys.stderr)
