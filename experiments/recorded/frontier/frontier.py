#!/usr/bin/env python3
"""Draws frontier.png from frontier.csv: Elo against v1 (64 simulations a move) over the
idle-equivalent machine-hours of a 2-core machine, log scale, one line per run.

    python frontier.py                       # frontier.csv -> frontier.png, beside this file
    python frontier.py --add-run continue=/work/runs/frontier/continue,share=0.3333 \\
                       --add-run search=/work/runs/frontier/search,share=0.3333 \\
                       --add-run blocks2=/work/runs/frontier/blocks2,share=0.3333

--add-run NAME=RUN[,share=F|legs=M:C/M:C...|idle_s=S][,base=RUN:IT][,ref=RUN:IT][,label=TEXT][,machine=TEXT] adds a run that continues from
another point of the picture (--base, default the long run's iteration 3000) and whose
metrics.csv evaluates against that point's network: each evaluation becomes a point at
base Elo + eval_elo (intervals added in quadrature) and base hours + wall_seconds × F / 3600
(F: the share of the 2-core machine the run had), or, with legs=, at the run's CPU seconds
over 7 200 (a point's CPU seconds interpolated within its leg from each leg's end, M
minutes of run clock and C CPU seconds so far). RUN is a run directory or a capsule (its
metrics.csv or metrics.csv.gz, and config.toml) or a metrics.csv. final=MATCH.json puts the
run's last point at its decision match against the base network instead of its last
periodic evaluation. from=scratch adds a run that starts from nothing and evaluates
against v1 itself: each evaluation is a point at its own Elo and at wall_seconds × F / 3600
hours (no base), and final=MATCH.json is then a match against v1. idle_s=S puts a point
at its iteration × S seconds (S: the idle seconds an iteration of the run's config on its
machine) instead of its run clock; base=RUN:ITERATION measures the run from that point
instead of --base (a point of the picture or of a run added before it), and ref=RUN:ITERATION
names the network its evaluations played when that is not the base (a run continued from
one network and evaluated against another: its hours count from base=, its Elo from
ref=); every=N keeps
the periodic evaluations of every N-th iteration; measured=GLOB adds the run's own matches against v1 (files named
NAME-ITERATION-vs-v1.json) as measured points. The added points are
also written to --added-csv (default frontier-added.csv beside the picture).
Needs matplotlib.
"""
import argparse
import csv
import glob
import gzip
import json
import math
import os
import re
import tomllib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def params(blocks, width, dim=354):
    return dim * width + width + blocks * 2 * (width * width + width) + 6 * width + 6 + 4 * width + 4


def read_points(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("blocks", "width", "params", "iteration"):
            r[k] = int(r[k])
        for k in ("run_clock_h", "idle_h", "x_h", "elo", "elo_low", "elo_high"):
            r[k] = float(r[k])
    return rows


def cpu_hours(wall_seconds, legs):
    """Idle-equivalent hours at a point of a run whose legs' ends are on record as
    MINUTES:CPU_SECONDS pairs separated by '/' (run clock in minutes, the run's CPU seconds
    so far): the CPU seconds at the point, interpolated within its leg, over the 7 200 CPU
    seconds of an hour of the 2-core machine."""
    ends = [(0.0, 0.0)] + [tuple(float(x) for x in leg.split(":")) for leg in legs.split("/")]
    m = wall_seconds / 60
    for (m0, c0), (m1, c1) in zip(ends, ends[1:]):
        if m <= m1 + 0.5:  # the last iteration may end a little after the leg's reading
            return (c0 + (c1 - c0) * min(1.0, (m - m0) / (m1 - m0))) / 7200
    raise SystemExit(f"run clock {m:.1f} min is past the last leg on record ({ends[-1][0]} min)")


def find_base(pts, spec):
    """The point RUN:ITERATION of the picture (not a run's start marker)."""
    brun, bit = spec.split(":")
    found = [p for p in pts if p["run"] == brun and p["iteration"] == int(bit) and p["method"] != "reference"]
    if not found:
        raise SystemExit(f"base {spec}: no such point (add RUN before the runs based on it)")
    return found[-1]


def add_run(spec, base, default_machine, pts=()):
    name, _, rest = spec.partition("=")
    path, *opts = rest.split(",")
    opt = dict(o.split("=", 1) for o in opts)
    if "base" in opt:
        base = find_base(pts, opt["base"])
    ref = find_base(pts, opt["ref"]) if "ref" in opt else base
    share = float(opt.get("share", "1"))
    run_dir = path if os.path.isdir(path) else os.path.dirname(path)
    metrics = os.path.join(path, "metrics.csv") if os.path.isdir(path) else path
    if not os.path.exists(metrics) and os.path.exists(metrics + ".gz"):
        metrics += ".gz"
    blocks, width = base["blocks"], base["width"]
    cfg = os.path.join(run_dir, "config.toml")
    if os.path.exists(cfg):
        with open(cfg, "rb") as f:
            model = tomllib.load(f).get("model", {})
        blocks, width = model.get("blocks", blocks), model.get("width", width)
    label = opt.get("label", f"{name}: from the long run's iteration 3000")
    machine = opt.get("machine", default_machine)
    common = dict(run=name, label=label, date=opt.get("date", ""), commit="", blocks=blocks, width=width, params=params(blocks, width),
                  machine=machine, shipped="")
    scratch = opt.get("from") == "scratch"
    if scratch:  # its evaluations are against v1 already: Elo as played, hours from zero
        base = dict(base, run_clock_h=0.0, idle_h=0.0, x_h=0.0, elo=0.0, elo_low=0.0, elo_high=0.0)
        pts = []
    else:
        pts = [dict(common, point="start", iteration=0, run_clock_h=base["run_clock_h"], idle_h=base["idle_h"],
                    x_h=base["x_h"], elo=base["elo"], elo_low=base["elo_low"], elo_high=base["elo_high"],
                    method="reference", source=f"{base['run']} {base['point']}")]
    opener = gzip.open if metrics.endswith(".gz") else open
    with opener(metrics, "rt", newline="") as f:
        rows = list(csv.DictReader(f))
    last = rows[-1]
    if "final" in opt:
        with open(opt["final"]) as f:
            m = json.load(f)
        if scratch and "oware-abapa-v1" not in m.get("opponent", ""):
            raise SystemExit(f"{name}: from=scratch needs a final match against v1, {opt['final']} is against {m.get('opponent')}")
        last = dict(last, eval_elo=m["elo"], eval_elo_low=m["elo_ci95"][0], eval_elo_high=m["elo_ci95"][1],
                    eval_opponent=f"{opt['final']} ({m['games']} games)", eval_score=m["score"])
        rows = [r for r in rows if r is not rows[-1]] + [last]
    for r in rows:
        if scratch and r.get("eval_elo") and "oware-abapa-v1" not in r.get("eval_opponent", "") \
                and not (r is last and "final" in opt):
            raise SystemExit(f"{name}: from=scratch needs evaluations against v1, found {r.get('eval_opponent')}")
        if not r.get("eval_elo") or not r.get("eval_elo_low") or not r.get("eval_elo_high"):
            continue
        e, lo, hi = float(r["eval_elo"]), float(r["eval_elo_low"]), float(r["eval_elo_high"])
        decision = r is last and "final" in opt  # the run's decision match, not a periodic one
        if "every" in opt and int(r["iteration"]) % int(opt["every"]) and not decision:
            continue
        h = run_hours(r, opt, share)
        elo = ref["elo"] + e
        pts.append(dict(common, point=f"iteration {r['iteration']}", iteration=int(r["iteration"]),
                        run_clock_h=base["run_clock_h"] + float(r["wall_seconds"]) / 3600,
                        idle_h=base["idle_h"] + h, x_h=base["x_h"] + h, elo=round(elo, 1),
                        elo_low=round(elo - math.hypot(e - lo, ref["elo"] - ref["elo_low"]), 1),
                        elo_high=round(elo + math.hypot(hi - e, ref["elo_high"] - ref["elo"]), 1),
                        method=("measured" if decision else "periodic vs v1") if scratch
                        else "chained via the long run" if decision else "chained via the long run, periodic",
                        source=f"{metrics}: eval against {r.get('eval_opponent', '')} "
                               f"(score {r.get('eval_score', '')})"
                               + ("" if scratch else f", plus {ref['run']} {ref['point']}")
                               + hours_text(opt, share)))
    by_iteration = {int(r["iteration"]): r for r in rows}
    for path in sorted(glob.glob(opt["measured"])) if "measured" in opt else []:
        it = int(re.search(r"-(\d+)-vs-v1\.json$", path).group(1))
        with open(path) as f:
            m = json.load(f)
        if "oware-abapa-v1" not in m.get("opponent", ""):
            raise SystemExit(f"{name}: {path} is not a match against v1 ({m.get('opponent')})")
        h = run_hours(by_iteration[it], opt, share)
        pts.append(dict(common, point=f"iteration {it}", iteration=it,
                        run_clock_h=base["run_clock_h"] + float(by_iteration[it]["wall_seconds"]) / 3600,
                        idle_h=base["idle_h"] + h, x_h=base["x_h"] + h, elo=round(m["elo"], 1),
                        elo_low=round(m["elo_ci95"][0], 1), elo_high=round(m["elo_ci95"][1], 1),
                        method="measured", source=f"{path} ({m['games']} games, score {m['score']})" + hours_text(opt, share)))
    return pts


def run_hours(row, opt, share):
    """Idle-equivalent hours a run had spent at a row of its metrics.csv: by legs= (CPU
    seconds), by idle_s= (iterations × the idle seconds an iteration of its config on its
    machine), or by share= (run clock × the machine's share it had)."""
    if "legs" in opt:
        return cpu_hours(float(row["wall_seconds"]), opt["legs"])
    if "idle_s" in opt:
        return int(row["iteration"]) * float(opt["idle_s"]) / 3600
    return float(row["wall_seconds"]) * share / 3600


def hours_text(opt, share):
    if "legs" in opt:
        return f"; CPU seconds of legs {opt['legs']} / 7200"
    if "idle_s" in opt:
        return f"; iterations × {opt['idle_s']} s idle"
    return f"; hours × share {share}"


STYLE = {  # method: marker, filled
    "measured": ("o", True),
    "recorded": ("s", True),
    "recorded (4-ply)": ("s", True),
    "chained via v2": ("o", False),
    "chained via depth 12": ("D", False),
    "chained via the long run": ("^", False),
    "chained via the long run, periodic": ("^", False),
    "periodic vs v1": ("s", False),
    "reference": ("o", True),
}
PERIODIC = ("periodic vs v1", "chained via the long run, periodic")
METHOD_TEXT = {
    "measured": "measured here against v1 (1 000 games, 6-ply)",
    "recorded": "recorded match against v1 (6-ply)",
    "recorded (4-ply)": "recorded match against v1, 4-ply (small: the continuations' periodic 200 games)",
    "chained via v2": "chained: recorded match against v2 + v2 against v1",
    "chained via depth 12": "chained through alphabeta:depth=12 and the first quick network",
    "chained via the long run": "chained: a match against v3 (the long run's iteration 3000) + v3's Elo",
    "chained via the long run, periodic": "chained: a run's periodic match against v3 (100 games) + v3's Elo",
    "periodic vs v1": "a run's periodic match against v1 (100 games, 6-ply)",
}
COLOURS = {
    "quick-1130": "#8c564b", "quick": "#c49c94", "quick-avx2": "#bcbd22", "quick-xeon": "#dbdb8d",
    "default-55min": "#9467bd", "default": "#000000", "default-1202": "#17becf", "default-1203": "#1f77b4",
    "continuation": "#7f7f7f", "continuation-5e-4": "#c7c7c7", "long-1204": "#d62728", "long-1206": "#2f4f4f",
    "continue": "#2ca02c", "search": "#ff7f0e", "blocks2": "#e377c2",
    "size-blocks1": "#8b0000", "size-blocks2": "#ff69b4",
    "size-long-cycle3": "#1e3a8a", "size-long-blocks2": "#6b8e23",
    "reuse4": "#008080", "reuse8": "#b8860b",
}
SHIP_OFFSET = {"quick-1130": (12, 8), "default-55min": (-12, 10), "default": (-12, 10), "default-1203": (-14, 12), "long-1204": (6, -22)}
SHIP_TEXT = {"quick-1130": "shipped 11-30\n07:01", "default-55min": "shipped 11-30\n07:48",
             "default": "v1", "default-1203": "v2", "long-1204": "v3"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--csv", default=os.path.join(HERE, "frontier.csv"))
    ap.add_argument("--out", default=os.path.join(HERE, "frontier.png"))
    ap.add_argument("--add-run", action="append", default=[], metavar="NAME=RUN[,share=F][,label=T][,machine=T]")
    ap.add_argument("--base", default="long-1204:3000", metavar="RUN:ITERATION")
    ap.add_argument("--machine", default="", help="machine of the added runs (default: the base run's)")
    ap.add_argument("--added-csv", default=None)
    a = ap.parse_args()

    pts = read_points(a.csv)
    base = find_base(pts, a.base)
    added = []
    for spec in a.add_run:
        added += add_run(spec, base, a.machine or base["machine"], pts + added)
    if added:
        out = a.added_csv or os.path.join(os.path.dirname(a.out), "frontier-added.csv")
        with open(out, "w", newline="") as f:
            w = csv.DictWriter(f, list(pts[0].keys()))
            w.writeheader()
            w.writerows(added)
        for p in added:
            print(f"{p['run']:>10} {p['point']:>16}  {p['x_h']:6.2f} h  {p['elo']:+7.1f} "
                  f"[{p['elo_low']:+.1f}, {p['elo_high']:+.1f}]")
    pts += added

    runs = []
    for p in pts:
        if p["run"] not in runs:
            runs.append(p["run"])

    # Single-point runs at the same hours are drawn a little apart (±4% in x).
    singles = [r for r in runs if sum(1 for p in pts if p["run"] == r) == 1]
    dodge = {}
    for r in singles:
        x = next(p["x_h"] for p in pts if p["run"] == r)
        group = [s for s in singles if abs(math.log(next(p["x_h"] for p in pts if p["run"] == s) / x)) < 0.03]
        i = group.index(r)
        dodge[r] = 1 + 0.07 * (i - (len(group) - 1) / 2)

    fig, ax = plt.subplots(figsize=(13, 8.5), dpi=110)
    ax.set_xscale("log")
    ax.axhline(0, color="#999999", lw=0.8, ls=":")
    handles = []
    for r in runs:
        rp = sorted((p for p in pts if p["run"] == r), key=lambda p: p["x_h"])
        c = COLOURS.get(r, None)
        f = dodge.get(r, 1.0)
        xs = [p["x_h"] * f for p in rp]
        # A run with three or more points of full matches is drawn through those; its
        # periodic 100-game points (±60) are left as small marks around the line.
        full = [(x, p["elo"]) for p, x in zip(rp, xs) if p["method"] not in PERIODIC]
        lx, ly = zip(*full) if len(full) >= 3 else (xs, [p["elo"] for p in rp])
        line, = ax.plot(lx, ly, "-", color=c, lw=1.6 if len(rp) > 1 else 0, zorder=2)
        c = line.get_color()
        for p, x in zip(rp, xs):
            if p["method"] == "reference" and p["run"] != "default":
                continue  # a continuation's start: the point of the run it continues
            m, filled = STYLE.get(p["method"], ("o", True))
            small = (p["method"] == "recorded (4-ply)" and p["point"].startswith("iteration")) or p["method"] in PERIODIC  # periodic, 100-200 games
            ax.errorbar(x, p["elo"], yerr=[[p["elo"] - p["elo_low"]], [p["elo_high"] - p["elo"]]], fmt="none",
                        ecolor=c, elinewidth=0.8 if small else 1.1, capsize=0 if small else 3,
                        alpha=0.3 if small else 0.8, zorder=3)
            ax.plot(x, p["elo"], m, ms=4.5 if small else 8 if m != "D" else 7, mfc=c if filled else "white",
                    mec=c, mew=1.6, zorder=4)
            if p["shipped"]:
                ax.plot(x, p["elo"], "*", ms=22, mfc="none", mec="#222222", mew=1.2, zorder=5)
                ax.annotate(SHIP_TEXT.get(p["run"], "shipped"), (x, p["elo"]), textcoords="offset points",
                            xytext=SHIP_OFFSET.get(p["run"], (-14, 14)), ha="left" if p["run"] == "quick-1130" else "right",
                            fontsize=9, fontweight="bold", color="#222222")
        p0 = rp[-1]
        handles.append(Line2D([], [], color=c, marker="o", lw=1.6 if len(rp) > 1 else 0,
                              label=f"{p0['label']}{' (' + p0['date'] if p0.get('date') else ''}"
                                    f"{', ' + p0['commit'] if p0.get('commit') and ' ' not in p0['commit'] else ''}"
                                    f"{')' if p0.get('date') else ''} · {p0['blocks']}×{p0['width']}, "
                                    + f"{p0['params']:,}".replace(",", "\u2009") + f" params · {p0['machine']}"))
    leg1 = ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0, -0.07), fontsize=8, title="run (network: blocks × width, "
                     "parameters; machine: 2-vCPU)", title_fontsize=8.5, framealpha=0.92)
    ax.add_artist(leg1)
    used = {p["method"] for p in pts if p["method"] != "reference"}
    mh = [Line2D([], [], ls="", marker=STYLE[m][0], mfc="#555555" if STYLE[m][1] else "white", mec="#555555",
                 mew=1.5, ms=7, label=METHOD_TEXT[m]) for m in METHOD_TEXT if m in used]
    mh.append(Line2D([], [], ls="", marker="*", ms=14, mfc="none", mec="#222222", label="shipped network"))
    leg2 = ax.legend(handles=mh, loc="upper right", bbox_to_anchor=(1, -0.07), fontsize=8, framealpha=0.92)
    # The first periodic points of a run from scratch are far below and say little (±100
    # or more): the axis keeps to where the frontier is, those points' bars clipped.
    ax.set_ylim(max(ax.get_ylim()[0], -420), ax.get_ylim()[1])

    ticks = [0.1, 0.25, 0.5, 1, 2, 4, 8, 16]
    lo = min(p["x_h"] for p in pts) * 0.8
    hi = max(p["x_h"] for p in pts) * 1.35
    ax.set_xticks([t for t in ticks if lo <= t <= hi])
    ax.set_xticklabels([f"{t:g} h" for t in ticks if lo <= t <= hi])
    ax.set_xlim(lo, hi)
    ax.minorticks_off()
    ax.grid(True, which="major", color="#e5e5e5", lw=0.8)
    ax.set_xlabel("machine-hours of a 2-core machine, idle-equivalent (log scale); a continued run "
                  "counts the hours of the network it started from")
    ax.set_ylabel("Elo against v1 (checkpoints/oware-abapa-v1), both at 64 simulations a move; 95% intervals")
    ax.set_title("oware-zero: strength against training time, every shipped network and recorded run "
                 "(experiments/recorded/frontier)", fontsize=11)
    fig.tight_layout()
    fig.savefig(a.out, bbox_inches="tight", bbox_extra_artists=[leg1, leg2])  # the legends sit below the axes
    print(f"wrote {a.out}: {len(pts)} points, {len(runs)} runs")


if __name__ == "__main__":
    main()
