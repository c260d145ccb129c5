#!/bin/bash
# Before/after speed of self-play: bench mcts and oware selfplay, alternating, with the
# long run's leg paused and other heavy work held off (run under flock /work/heavy.lock).
LEG=$(pgrep -f 'oware-leg4 train' | head -1)
[ -n "$LEG" ] && kill -STOP $LEG
trap '[ -n "$LEG" ] && kill -CONT $LEG' EXIT
sleep 5
date -u +%FT%TZ
for r in 1 2; do
  for b in "$@"; do
    echo "== $b bench mcts run $r"
    /work/runs/bin/oware-$b bench mcts --games 256,1024,4096 2>&1 | grep 'games in flight'
  done
done
for r in 1 2; do
  for b in "$@"; do
    echo "== $b selfplay run $r"
    /work/runs/bin/oware-$b selfplay --run-dir /work/runs/sp-bench --batches 2 --games 512 2>&1 | tail -2
  done
done
exit 0
echo "== net"
/work/runs/bin/oware-$1 bench net --no-train 2>&1 | tail -6
date -u +%FT%TZ
