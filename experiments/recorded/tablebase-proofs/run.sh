#!/bin/sh
# The measurements of README.md, from the repository root:
#   sh experiments/recorded/tablebase-proofs/run.sh BEFORE_BINARY AFTER_BINARY [TB20 [TBPROVING [TB20PROVING]]]
# BEFORE_BINARY has no `probe --fens` (one process per position, timed with its wall
# time); AFTER_BINARY has. TB20, if given, is a directory of tables built to 20 seeds
# (`oware tablebase build --max-seeds 20 --out TB20`, outside the repository). TBPROVING,
# if given, is a directory of tables to 12 seeds narrowed by the repetition rule and
# proved by search up to 7 seeds, which this script builds (about 4 minutes on two
# cores), and AFTER_BINARY then measures them as it does the shipped ones. TB20PROVING,
# if given, is built the same way to 20 seeds (11 minutes, 2.7 GiB) and measured on
# 13-20 seeds.
#
#   sh experiments/recorded/tablebase-proofs/run.sh --shipped BINARY LABEL
# measures the shipped tables (built proving since 2026-12-06) with BINARY into
# LABEL-2-12.json (the 500 positions of seed 2) and verify-LABEL.json.
#
#   sh experiments/recorded/tablebase-proofs/run.sh --verify-counts BINARY LABEL
# checks the probe's proofs at its CLI budget (2 M nodes: the repetition rule's game is
# played up to 12 seeds) against the brute force on 25 boards of each count from 9 to
# 12 into verify-LABEL-9.json ... verify-LABEL-12.json.
#
#   sh experiments/recorded/tablebase-proofs/run.sh --games BINARY OUT
# builds the tables shipped since 2026-12-06's fourth sitting into OUT (43 minutes on
# two cores; build-games-12.log), then measures them with BINARY into
# games-searched-2-12.json and verify-games-searched.json (copy OUT over
# tablebases/abapa to ship them).
set -e
D=experiments/recorded/tablebase-proofs
M="python3 $D/measure.py"
if [ "$1" = "--verify-counts" ]; then
  for s in 9 10 11 12; do
    "$2" tablebase verify --tb tablebases/abapa --positions 25 --seeds $s --node-limit 50000 \
       --prover-nodes 2000000 --json > $D/verify-$3-$s.json
  done
  exit 0
fi
if [ "$1" = "--games" ]; then
  rm -rf "$3"
  "$2" tablebase build --rules abapa --max-seeds 12 --out "$3" --prove-seeds 7 \
     --prove-nodes 200000 --cycle-seeds 12 --game-seeds 12 --game-work 1000000 --threads 2 \
     | tee $D/build-games-12.log
  $M --oware "$2" --tb "$3" --min-seeds 2 --max-seeds 12 --positions 500 --seed 2 \
     --budgets 2000000,100000 > $D/games-searched-2-12.json
  "$2" tablebase verify --tb "$3" --positions 300 --max-seeds 12 --node-limit 50000 \
     --prover-nodes 200000 --json > $D/verify-games-searched.json
  exit 0
fi
if [ "$1" = "--shipped" ]; then
  $M --oware "$2" --tb tablebases/abapa --min-seeds 2 --max-seeds 12 --positions 500 --seed 2 \
     --budgets 2000000,100000 > $D/$3-2-12.json
  "$2" tablebase verify --tb tablebases/abapa --positions 300 --max-seeds 12 --node-limit 50000 \
     --prover-nodes 200000 --json > $D/verify-$3.json
  exit 0
fi
$M --oware "$2" --tb tablebases/abapa --min-seeds 2 --max-seeds 12 --positions 500 --seed 2 \
   --budgets 2000000,100000 > $D/after-2-12.json
$M --oware "$2" --tb tablebases/abapa --min-seeds 2 --max-seeds 12 --positions 80 --seed 1 \
   --budgets 2000000,100000 --per-call > $D/after-2-12-per-call.json
$M --oware "$1" --tb tablebases/abapa --min-seeds 2 --max-seeds 12 --positions 80 --seed 1 \
   --budgets 2000000,100000 --per-call > $D/before-2-12.json
if [ -n "$3" ]; then
  $M --oware "$2" --tb "$3" --min-seeds 13 --max-seeds 20 --positions 60 --seed 3 \
     --budgets 100000,2000000 > $D/after-13-20.json
fi
if [ -n "$4" ]; then
  rm -rf "$4"
  "$2" tablebase build --rules abapa --max-seeds 12 --out "$4" --prove-seeds 7 \
     --prove-nodes 200000 --cycle-seeds 12 --threads 2
  $M --oware "$2" --tb "$4" --min-seeds 2 --max-seeds 12 --positions 500 --seed 2 \
     --budgets 2000000,100000 > $D/cycles-2-12-proving.json
  $M --oware "$2" --tb tablebases/abapa --min-seeds 2 --max-seeds 12 --positions 500 --seed 2 \
     --budgets 2000000,100000 > $D/cycles-2-12-shipped.json
  "$2" tablebase verify --tb "$4" --positions 300 --max-seeds 12 --node-limit 50000 \
     --prover-nodes 200000 --json > $D/verify-proving.json
fi
if [ -n "$5" ]; then
  rm -rf "$5"
  "$2" tablebase build --rules abapa --max-seeds 20 --out "$5" --prove-seeds 7 \
     --prove-nodes 200000 --cycle-seeds 12 --threads 2
  $M --oware "$2" --tb "$5" --min-seeds 13 --max-seeds 20 --positions 60 --seed 3 \
     --budgets 100000,2000000 > $D/cycles-13-20-proving.json
fi
