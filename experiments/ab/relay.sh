#!/usr/bin/env bash
# What moving a run costs: the quick config as one unbroken 12-minute run, and the same
# run stopped by SIGTERM after 6 minutes, its capsule copied to a new directory (as on a
# new machine: no samples, no other checkpoints) and resumed to the same 12 minutes of
# the run's clock, once per refill rule. Then the matches, 400 games each with paired
# openings at 64 simulations. The record: experiments/ab/relay.md.
#
#   experiments/ab/relay.sh DIR [times]    # times: train | eval | both (default)
#
# The training steps need the machine to themselves (equal wall time); the matches do not.
set -euo pipefail
O=${OWARE:-target/release/oware}
D=${1:?usage: relay.sh DIR [train|eval|both]}
what=${2:-both}
mkdir -p "$D"
if [ "$what" != eval ]; then
  date -u +"unbroken start %FT%TZ" >> "$D/times"
  "$O" train --config configs/quick.toml --run-dir "$D/unbroken" --no-progress > "$D/unbroken.log" 2>&1
  date -u +"leg 1 start %FT%TZ" >> "$D/times"
  timeout -s TERM 360 "$O" train --config configs/quick.toml --run-dir "$D/leg1" \
    --capsule "$D/capsule" --no-progress > "$D/leg1.log" 2>&1 || true
  for f in 1 0; do
    rm -rf "$D/moved-$f"
    cp -r "$D/capsule" "$D/moved-$f"
    date -u +"leg 2 (refill $f) start %FT%TZ" >> "$D/times"
    "$O" train --resume --run-dir "$D/moved-$f" --set train.refill_fraction=$f \
      --no-progress > "$D/moved-$f.log" 2>&1
  done
  date -u +"end %FT%TZ" >> "$D/times"
fi
if [ "$what" != train ]; then
  for pair in "moved-1 unbroken" "moved-0 unbroken" "moved-1 moved-0"; do
    set -- $pair
    "$O" eval --model "$D/$1" --opponent "model:$D/$2:sims=64" --games 400 --seed 3 \
      --openings-plies 6 --json -q > "$D/eval-$1-vs-$2.json"
  done
fi
