#!/bin/bash
# The ending rule's speed, before and after, alternating (README.md beside this file).
#   BEFORE=path/to/oware-before AFTER=path/to/oware-after experiments/recorded/ending-rule/bench.sh
# From the repository's root; pauses the size A/B's training runs while it measures.
set -u
trap 'experiments/ab/arms.sh experiments/ab/size cont' EXIT
experiments/ab/arms.sh experiments/ab/size pause
sleep 2; date; uptime
for round in 1 2; do
  for b in "$BEFORE" "$AFTER"; do
    echo "== $b round $round"
    "$b" bench env --games 4096 --threads 2 --seconds 1 --runs 3 2>&1 | tail -6
    "$b" bench game 2>&1 | tail -4
  done
done
date
