#!/bin/sh
# Extends the anchor pool (pool.jsonl) beyond rate-anchors.sh: alpha-beta at depth 16,
# alpha-beta with the shipped endgame tables (tablebases/abapa, up to 12 seeds) at depth
# 12, and alpha-beta at 100 ms per move (a time anchor: its strength depends on the
# machine, see README.md); then the shipped network against depth 16 (its games kept
# apart in oware-abapa-v1.jsonl, as rate-anchors.sh does). Resumable, like rate-anchors.sh.
set -e
B=${B:-target/release/oware}
D=experiments/recorded/anchors
P=$D/pool.jsonl
G=${GAMES:-40}
nice -n 15 $B rate --pool $P --add alphabeta:depth=16 --schedule gauntlet \
  --against alphabeta:depth=15 alphabeta:depth=14 --games-per-pair $G --threads 2 >/dev/null
nice -n 15 $B rate --pool $P --add alphabeta:depth=12:tb=tablebases/abapa --schedule gauntlet \
  --against alphabeta:depth=12 alphabeta:depth=13 alphabeta:depth=14 --games-per-pair $G --threads 2 >/dev/null
nice -n 15 $B rate --pool $P --add alphabeta:movetime=100 --schedule gauntlet \
  --against alphabeta:depth=12 alphabeta:depth=14 --games-per-pair $G --threads 2 >/dev/null
nice -n 15 $B rate --pool $P
T=$(mktemp)
cat $P $D/oware-abapa-v1.jsonl > $T
nice -n 15 $B rate --pool $T --add model:checkpoints/oware-abapa-v1:sims=64 --schedule gauntlet \
  --against alphabeta:depth=16 --games-per-pair $G --threads 2
grep -F '"model:checkpoints/oware-abapa-v1:sims=64"' $T > $D/oware-abapa-v1.jsonl
rm $T
