#!/bin/bash
# Issue 59 item 3: `oware bench mcts` (two threads) against `oware bench net` (fast-2 at
# batch 512), before and after alternating, two rounds. Usage: bench-net-ratio.sh BEFORE AFTER
# (two `oware` binaries). Each command holds the machine's heavy-job lock alone.
set -u
grep -m1 'model name' /proc/cpuinfo
grep -o 'avx512[a-z]*\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
for r in 1 2; do
  for b in "$@"; do
    echo "== $b round $r"
    uptime
    flock /tmp/oware-heavy.lock "$b" bench mcts --threads 2 --games 256,1024,4096 2>&1 | grep 'games in flight'
    flock /tmp/oware-heavy.lock "$b" bench net --no-train 2>&1 | grep -E '^(path|fast-2)'
  done
done
uptime
