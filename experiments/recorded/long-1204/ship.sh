#!/bin/bash
# The ship rule's two matches for a candidate network against the shipped one
# (experiments/recorded/ship-v2/README.md, "The ship rule"):
#   1. >= 0.60 over 1 000 games at 64 simulations a move, paired 6-ply openings;
#   2. >= 0.55 over 200 games at 100 ms a move through `oware engine` with its defaults.
#
# Usage, from the repository's root, with a release build:
#   experiments/recorded/long-1204/ship.sh CANDIDATE OUT [LEG_PID]
# CANDIDATE: a checkpoint directory (model.bpk + manifest.json), e.g. the run's last;
# OUT: a new directory for the matches' JSON and game files;
# LEG_PID: a training process to pause (SIGSTOP) for the timed match and resume after.
# Match 2 takes about an hour of an idle 2-core machine; nothing else should run then.
set -euo pipefail
cand=${1:?candidate checkpoint directory}
out=${2:?output directory}
leg=${3:-}
bin=$(pwd)/target/release/oware
shipped=checkpoints/oware-abapa
[ -x "$bin" ] || { echo "ship.sh: no $bin; run cargo build --release first" >&2; exit 1; }
[ -f "$cand/model.bpk" ] || { echo "ship.sh: $cand holds no model.bpk" >&2; exit 1; }
mkdir -p "$out"
date -u +%FT%TZ > "$out/started"

# 1. Simulations count, not time: the machine's load does not change the result.
"$bin" eval --model "$cand" --opponent "model:$shipped:sims=64" --games 1000 --seed 4 \
  --openings-plies 6 --json --out "$out/games-64.txt" > "$out/match-64.json"

# 2. Time a move: the machine to itself.
if [ -n "$leg" ]; then
  kill -STOP "$leg"
  trap 'kill -CONT "$leg"' EXIT
fi
date -u +%FT%TZ > "$out/timed-started"
"$bin" eval --player "engine:\"$bin engine --model $cand\":movetime=100" \
  --opponent "engine:\"$bin engine --model $shipped\":movetime=100" \
  --games 200 --seed 3 --openings-plies 6 --json --out "$out/games-100ms.txt" \
  > "$out/match-100ms.json"
date -u +%FT%TZ > "$out/finished"

python3 - "$out" <<'EOF'
import json, sys
out = sys.argv[1]
for name, need, games in [("match-64.json", 0.60, 1000), ("match-100ms.json", 0.55, 200)]:
    m = json.load(open(f"{out}/{name}"))
    ok = m["games"] >= games and m["score"] >= need
    lo, hi = m["elo_ci95"]
    print(f"{name}: +{m['wins']} ={m['draws']} -{m['losses']} score {m['score']:.3f} "
          f"Elo {m['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}] (need >= {need} over {games}): "
          f"{'passed' if ok else 'FAILED'}")
EOF
