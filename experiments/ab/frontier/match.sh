#!/usr/bin/env bash
# The frontier A/B's decision matches (README.md beside this file): each arm's final
# network, from its committed capsule, against the long run's network it started from and
# against each other arm, 400 games at 64 simulations a move, paired 6-ply openings, seed 7.
# Simulations count, not time, so the machine's load does not change the games.
#   experiments/ab/frontier/match.sh [OWARE]
# From the repository's root; OWARE is a release binary (default target/release/oware).
# Writes matches/A-vs-B.json (A's view) and prints one line a match.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=experiments/ab/frontier
bin=${1:-target/release/oware}
start=experiments/recorded/long-1204/capsule/checkpoints/iter-3000
mkdir -p "$here/matches"

net() { # the checkpoint an arm's committed capsule names as its latest
  local cap="$here/$1/capsule/checkpoints"
  echo "$cap/$(tr -d '[:space:]' < "$cap/latest")"
}

match() { # NAME-A MODEL-A NAME-B MODEL-B
  local out="$here/matches/$1-vs-$3.json"
  "$bin" eval --model "$2" --opponent "model:$4:sims=64" --games 400 --seed 7 \
    --openings-plies 6 --json -q > "$out.tmp"
  mv "$out.tmp" "$out"
  python3 - "$out" "$1" "$3" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
lo, hi = m["elo_ci95"]
print(f"{sys.argv[2]} vs {sys.argv[3]}: +{m['wins']} ={m['draws']} -{m['losses']} of {m['games']}, "
      f"score {m['score']:.3f}, Elo {m['elo']:+.0f} [{lo:+.0f}, {hi:+.0f}]")
PY
}

arms="continue search blocks2"
for a in $arms; do
  match "$a" "$(net "$a")" long-3000 "$start"
done
set -- $arms
while [ $# -gt 1 ]; do
  a=$1; shift
  for b in "$@"; do match "$a" "$(net "$a")" "$b" "$(net "$b")"; done
done
