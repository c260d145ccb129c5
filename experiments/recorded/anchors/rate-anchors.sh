#!/bin/sh
# Rates the fixed alpha-beta anchors into pool.jsonl (depth 1 = 0), then the shipped
# network against the deepest of them (its games kept apart in oware-abapa.jsonl).
# Run from the repository root after `cargo build --release`; resumable: a pair of
# players that already has its games plays nothing more.
set -e
B=target/release/oware
D=experiments/recorded/anchors
P=$D/pool.jsonl
MAX=${MAX:-14}
G=${GAMES:-40}
nice -n 10 $B rate --pool $P --add alphabeta:depth=1 alphabeta:depth=2 --games-per-pair $G --threads 2 >/dev/null
d=3
while [ $d -le $MAX ]; do
  nice -n 10 $B rate --pool $P --add alphabeta:depth=$d --schedule gauntlet \
    --against alphabeta:depth=$((d - 1)) alphabeta:depth=$((d - 2)) --games-per-pair $G --threads 2 >/dev/null
  d=$((d + 1))
done
nice -n 10 $B rate --pool $P
# The network: a copy of the anchor pool plus its games, which are then kept apart.
T=$(mktemp)
cp $P $T
nice -n 10 $B rate --pool $T --add model:checkpoints/oware-abapa:sims=64 --schedule gauntlet \
  --against alphabeta:depth=$((MAX - 2)) alphabeta:depth=$((MAX - 1)) alphabeta:depth=$MAX \
  --games-per-pair $G --threads 2
grep -F '"model:checkpoints/oware-abapa:sims=64"' $T > $D/oware-abapa.jsonl
rm $T
