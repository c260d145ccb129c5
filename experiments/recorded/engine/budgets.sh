#!/bin/sh
# Small budgets (issue 59, item 4): what starting and stopping a search costs, before and
# after a change of the search (first run: the deadline, e5a8e91, into budgets/; second:
# the worker pool, db62fdd, into pool/; third: the fixed cost from the workers' own times
# and the pool's threads kept awake after a job, into linger/). As first written, before and
# after the search learned its deadline (commit e5a8e91). Two binaries that differ only in
# the search: BEFORE, built from the commit before it with this commit's
# src/cli/bench/engine.rs copied in (the --budgets measurement), and AFTER, this commit.
#   BEFORE=/path/to/oware-before AFTER=target/release/oware sh experiments/recorded/engine/budgets.sh
# Each run: `oware bench engine --threads 1,2 --batch 8 --movetime 300 --budgets 1,10,100
# --searches 100` (the shipped network, 100 positions a budget, each from a new game with
# an empty cache), alternating BEFORE, AFTER, BEFORE, AFTER. Timed: on an idle machine,
# from the repository root; about 3 minutes. Writes one JSON file a run and machine.txt
# under $OUT (default /tmp/budgets) and prints each run's table.
set -e
: "${BEFORE:?the binary before}" "${AFTER:=target/release/oware}"
OUT=${OUT:-/tmp/budgets}
mkdir -p "$OUT"
{
  date -u +%FT%TZ
  git rev-parse --short HEAD
  grep -m1 'model name' /proc/cpuinfo
  grep -o 'avx512[a-z]*\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '
  echo
  uptime
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
for round in 1 2; do
  for which in before after; do
    case $which in
      before) B=$BEFORE ;;
      after) B=$AFTER ;;
    esac
    echo "== $which, run $round"
    $B bench engine --threads 1,2 --batch 8 --movetime 300 --budgets 1,10,100 --searches 100 \
      --json > "$OUT/$which-$round.json"
    python3 - "$OUT/$which-$round.json" <<'EOF'
import json, sys
for e in json.load(open(sys.argv[1]))["engine"]:
    for b in e["budgets"]:
        parts = "".join(f", {k[:-3]} {b[k]:5.1f}" for k in ("wake_us", "wait_us", "stop_us") if k in b)
        print(f"  {e['threads']} thread(s), {b['budget_ms']:>3} ms: {b['mean_simulations']:>7.0f} simulations, "
              f"{b['mean_call_ms']:7.3f} ms a call, fixed cost {b['fixed_cost_us']:5.1f} us{parts}")
EOF
  done
done
date -u +%FT%TZ | tee -a "$OUT/machine.txt"
uptime | tee -a "$OUT/machine.txt"
