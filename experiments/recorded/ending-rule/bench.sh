#!/bin/bash
cd /work/main
trap 'experiments/ab/arms.sh experiments/ab/size cont' EXIT
experiments/ab/arms.sh experiments/ab/size pause
sleep 2; date; uptime
for round in 1 2; do
  for b in oware-6b9dca6 oware-b5a73d6; do
    echo "== $b round $round"
    /work/runs/bin/$b bench env --games 4096 --threads 2 --seconds 1 --runs 3 2>&1 | tail -6
    /work/runs/bin/$b bench game 2>&1 | tail -4
  done
done
date
