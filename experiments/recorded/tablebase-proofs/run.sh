#!/bin/sh
# The measurements of README.md, from the repository root:
#   sh experiments/recorded/tablebase-proofs/run.sh BEFORE_BINARY AFTER_BINARY [TB20_DIR]
# BEFORE_BINARY has no `probe --fens` (one process per position); AFTER_BINARY has.
set -e
D=experiments/recorded/tablebase-proofs
M="python3 $D/measure.py"
B=$1
A=$2
T20=$3
$M --oware "$B" --tb tablebases/abapa --min-seeds 2 --max-seeds 12 --positions 150 --seed 1 \
   --budgets 2000000,100000 --per-call > $D/before-2-12.json
$M --oware "$A" --tb tablebases/abapa --min-seeds 2 --max-seeds 12 --positions 150 --seed 1 \
   --budgets 2000000,100000 --per-call > $D/after-2-12-per-call.json
$M --oware "$A" --tb tablebases/abapa --min-seeds 2 --max-seeds 12 --positions 1000 --seed 2 \
   --budgets 2000000,100000 > $D/after-2-12.json
if [ -n "$T20" ]; then
  $M --oware "$A" --tb "$T20" --min-seeds 13 --max-seeds 20 --positions 150 --seed 3 \
     --budgets 2000000,100000 > $D/after-13-20.json
fi
