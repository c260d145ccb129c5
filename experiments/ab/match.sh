#!/usr/bin/env bash
# The decision matches of a side-by-side A/B (arms.sh beside this file): each arm's final
# network, from its committed capsule, against a reference network and against each other
# arm, GAMES (default 400) games at 64 simulations a move, paired 6-ply openings, seed
# SEED (default 7). Simulations count, not time, so the machine's load does not change
# the games.
#   experiments/ab/match.sh DIR [OWARE]
# From the repository's root. DIR is the experiment's directory (each ARM.toml an arm, in
# the order ls gives, or as ARMS="a b c" says); REF (default the long run's final network,
# experiments/recorded/long-1204/capsule/checkpoints/iter-3000) is the reference, named
# REF_NAME (default long-3000); OWARE is a release binary (default target/release/oware).
# Writes DIR/matches/A-vs-B.json (A's view) and prints one line a match.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=${1:?usage: $0 DIR [OWARE]}
here=${here%/}
bin=${2:-target/release/oware}
ref=${REF:-experiments/recorded/long-1204/capsule/checkpoints/iter-3000}
ref_name=${REF_NAME:-long-3000}
games=${GAMES:-400}
seed=${SEED:-7}
arms=${ARMS:-$(cd "$here" && ls ./*.toml | sed 's|^\./||; s|\.toml$||' | tr '\n' ' ')}
[ -n "$arms" ] || { echo "$here: no ARM.toml" >&2; exit 2; }
mkdir -p "$here/matches"

net() { # the checkpoint an arm's committed capsule names as its latest
  local cap="$here/$1/capsule/checkpoints"
  echo "$cap/$(tr -d '[:space:]' < "$cap/latest")"
}

match() { # NAME-A MODEL-A NAME-B MODEL-B
  local out="$here/matches/$1-vs-$3.json"
  "$bin" eval --model "$2" --opponent "model:$4:sims=64" --games "$games" --seed "$seed" \
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

for a in $arms; do
  match "$a" "$(net "$a")" "$ref_name" "$ref"
done
set -- $arms
while [ $# -gt 1 ]; do
  a=$1; shift
  for b in "$@"; do match "$a" "$(net "$a")" "$b" "$(net "$b")"; done
done
