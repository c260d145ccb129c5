#!/bin/sh
# Rates the fixed alpha-beta anchors into pool.jsonl (depth 1 = 0), then the shipped
# network against the deepest of them (its games kept apart in oware-abapa-v1.jsonl).
# Run from the repository root after `cargo build --release`; resumable: a pair of
# players that already has its games plays nothing more.
set -e
B=target/release/oware
D=experiments/recorded/anchors
P=$D/pool.jsonl
MAX=${MAX:-15}
G=${GAMES:-40}
d=2
while [ $d -le $MAX ]; do
  # Depth d against d-1 and d-2 only (a round robin would pair it with every depth).
  AGAINST="alphabeta:depth=$((d - 1))"
  [ $d -ge 3 ] && AGAINST="$AGAINST alphabeta:depth=$((d - 2))"
  nice -n 10 $B rate --pool $P --add alphabeta:depth=$d --schedule gauntlet \
    --against $AGAINST --games-per-pair $G --threads 2 >/dev/null
  d=$((d + 1))
done
nice -n 10 $B rate --pool $P
# The network: the anchor pool plus its games, which are then kept apart.
T=$(mktemp)
cat $P $D/oware-abapa-v1.jsonl > $T 2>/dev/null || cp $P $T
nice -n 10 $B rate --pool $T --add model:checkpoints/oware-abapa-v1:sims=64 --schedule gauntlet \
  --against alphabeta:depth=$((MAX - 3)) alphabeta:depth=$((MAX - 2)) alphabeta:depth=$((MAX - 1)) \
  alphabeta:depth=$MAX --games-per-pair $G --threads 2
grep -F '"model:checkpoints/oware-abapa-v1:sims=64"' $T > $D/oware-abapa-v1.jsonl
rm $T
