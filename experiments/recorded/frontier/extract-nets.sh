#!/usr/bin/env bash
# The networks of the frontier that are no longer in the working tree, taken out of git's
# history into DIR (default /tmp/frontier-nets), one checkpoint directory each.
#   experiments/recorded/frontier/extract-nets.sh [DIR]
# From anywhere inside the repository. Each was committed once: the first two as the
# shipped network (checkpoints/oware-abapa) before v1, the others in the long run's capsule
# at the end of its legs 1 to 4.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out=${1:-/tmp/frontier-nets}
take() { # NAME COMMIT PATH
  mkdir -p "$out/$1"
  for f in manifest.json model.bpk optimizer.bpk; do
    git show "$2:$3/$f" > "$out/$1/$f"
  done
  echo "$out/$1: $2:$3 (step $(grep -o '"step": [0-9]*' "$out/$1/manifest.json" | grep -o '[0-9]*$'))"
}
cap=experiments/recorded/long-1204/capsule/checkpoints
take quick-1130    f976753 checkpoints/oware-abapa      # shipped 2026-11-30 07:01-07:48
take default-55min 00fc5a6 checkpoints/oware-abapa      # shipped 2026-11-30 07:48-10:28
take long-0103     4b9babd "$cap/iter-0103"
take long-0936     752ca97 "$cap/iter-0936"
take long-1178     9786d01 "$cap/iter-1178"
take long-1720     c9273eb "$cap/iter-1720"
