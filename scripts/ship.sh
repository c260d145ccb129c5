#!/usr/bin/env bash
# The ship rule's two matches for a candidate network against the shipped one
# (docs/training.md, "Shipping a network"). The candidate ships when it beats the shipped
# network at both budgets with the 95% interval of its Elo above 0:
#   1. >= 1 000 games at 64 simulations a move, paired 6-ply openings (seed 4);
#   2. >= 200 games at 100 ms a move through `oware engine` with its defaults, paired
#      6-ply openings (seed 3).
#
# Usage, from the repository's root, with a release build:
#   scripts/ship.sh CANDIDATE OUT [PID...]
# CANDIDATE: a checkpoint directory (model.bpk + manifest.json), e.g. a run's last;
# OUT: a new directory for the matches' JSON and game files;
# PID...: training processes to pause (SIGSTOP) for the timed match and resume after.
# Match 1 takes under a minute; match 2 about an hour of an idle 2-core machine, with
# nothing else running. Exits 0 when both matches pass, 1 when one fails, 2 on bad input.
set -euo pipefail
cd "$(dirname "$0")/.."
cand=${1:?usage: scripts/ship.sh CANDIDATE OUT [PID...]}
out=${2:?usage: scripts/ship.sh CANDIDATE OUT [PID...]}
shift 2
bin=$(pwd)/target/release/oware
shipped=checkpoints/oware-abapa
[ -x "$bin" ] || { echo "ship.sh: no $bin; run cargo build --release first" >&2; exit 2; }
[ -f "$cand/model.bpk" ] || { echo "ship.sh: $cand holds no model.bpk" >&2; exit 2; }
mkdir -p "$out"
date -u +%FT%TZ > "$out/started"

# 1. Simulations count, not time: the machine's load does not change the result.
"$bin" eval --model "$cand" --opponent "model:$shipped:sims=64" --games 1000 --seed 4 \
  --openings-plies 6 --json --out "$out/games-64.txt" > "$out/match-64.json"

# 2. Time a move: the machine to itself.
for pid in "$@"; do kill -STOP "$pid"; done
trap 'for pid in "$@"; do kill -CONT "$pid"; done' EXIT
date -u +%FT%TZ > "$out/timed-started"
"$bin" eval --player "engine:\"$bin engine --model $cand\":movetime=100" \
  --opponent "engine:\"$bin engine --model $shipped\":movetime=100" \
  --games 200 --seed 3 --openings-plies 6 --json --out "$out/games-100ms.txt" \
  > "$out/match-100ms.json"
date -u +%FT%TZ > "$out/finished"

python3 - "$out" <<'PY'
import json, sys
out, passed = sys.argv[1], True
for name, games in [("match-64.json", 1000), ("match-100ms.json", 200)]:
    m = json.load(open(f"{out}/{name}"))
    lo, hi = m["elo_ci95"]
    ok = m["games"] >= games and lo > 0
    passed &= ok
    print(f"{name}: +{m['wins']} ={m['draws']} -{m['losses']} score {m['score']:.3f} "
          f"Elo {m['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}] (need the interval above 0 over "
          f">= {games} games): {'passed' if ok else 'FAILED'}")
print("ships" if passed else "does not ship")
sys.exit(0 if passed else 1)
PY
