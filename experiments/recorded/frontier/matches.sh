#!/usr/bin/env bash
# The frontier's matches: every network that still exists (in the tree or in git's history)
# against v1 at 64 simulations a move, 1 000 games of paired 6-ply openings, seed 5; and the
# first quick network against alphabeta:depth=12 with the quick records' own settings (the
# bridge to the quick runs whose networks are gone; README.md).
#   experiments/recorded/frontier/matches.sh [OWARE] [NETS]
# From the repository's root. OWARE is a release binary (default target/release/oware),
# NETS the directory extract-nets.sh filled (default /tmp/frontier-nets). Each match waits
# for /tmp/oware-heavy.lock, so it never shares the machine with another heavy job
# that takes the same lock; simulations count, so load does not change the games.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
bin=${1:-target/release/oware}
nets=${2:-/tmp/frontier-nets}
out=experiments/recorded/frontier/matches
mkdir -p "$out"
v1=model:checkpoints/oware-abapa-v1:sims=64
match() { # NAME MODEL
  flock /tmp/oware-heavy.lock "$bin" eval --model "$2" --opponent "$v1" \
    --games 1000 --seed 5 --openings-plies 6 --json -q > "$out/$1-vs-v1.json"
  echo "$1: $(cut -c1-200 "$out/$1-vs-v1.json")"
}
match quick-1130    "$nets/quick-1130"
match default-55min "$nets/default-55min"
match default-1202  experiments/recorded/default-1202/checkpoint
match v2            checkpoints/oware-abapa
match long-0103     "$nets/long-0103"
match long-0936     "$nets/long-0936"
match long-1178     "$nets/long-1178"
match long-1720     "$nets/long-1720"
match long-3000     experiments/recorded/long-1204/capsule/checkpoints/iter-3000
# The quick records played alphabeta:depth=12 with eval's defaults then (seed 1, paired
# 4-ply openings, 64 simulations); 1 000 games here.
flock /tmp/oware-heavy.lock "$bin" eval --model "$nets/quick-1130" --opponent alphabeta:depth=12 \
  --games 1000 --json -q > "$out/quick-1130-vs-depth12.json"
echo "quick-1130 vs depth 12: $(cut -c1-200 "$out/quick-1130-vs-depth12.json")"
