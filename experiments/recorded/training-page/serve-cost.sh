#!/bin/bash
# Iterations a minute of the quick config without --serve, and with --serve and a
# poller asking what the Training tab asks (runs and metrics every 3 s, checkpoints and
# games every 9 s), alternating A B A B. Run it with nothing else heavy on the machine.
set -u
# Usage: experiments/recorded/training-page/serve-cost.sh [BINARY]; ARMS=DIR pauses the
# side-by-side A/B in DIR (experiments/ab/arms.sh) while it runs. Needs curl, jq, bc.
BIN=${1:-target/release/oware}
OUT=${OUT:-/tmp/train-serve-bench}
rm -rf $OUT; mkdir -p $OUT
cd "$(dirname "$0")/../../.."
[ -n "${ARMS:-}" ] && experiments/ab/arms.sh "$ARMS" pause >/dev/null
trap '[ -n "${ARMS:-}" ] && experiments/ab/arms.sh "$ARMS" cont >/dev/null' EXIT
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) / $(grep -o 'avx512[a-z]*\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' ')"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
poll() { # base run
  local base=$1 run=$2 n=0 rows=0
  while true; do
    curl -s "$base/api/v1/runs" >/dev/null
    rows=$(curl -s "$base/api/v1/runs/metrics?run=$run&from=$((rows>0?rows-1:0))" | jq -r '.rows // 0')
    if [ $((n % 3)) = 0 ]; then
      curl -s "$base/api/v1/runs/checkpoints?run=$run" >/dev/null
      curl -s "$base/api/v1/runs/games?run=$run&n=12" >/dev/null
    fi
    n=$((n+1)); sleep 3
  done
}
for rep in 1 2; do
  for arm in plain served; do
    run=$OUT/$arm-$rep
    args=(train --config configs/quick.toml --run-dir $run --set train.time_limit_minutes=1 --quiet)
    if [ $arm = served ]; then
      $BIN "${args[@]}" --serve 0 > $OUT/$arm-$rep.out &
      pid=$!
      for i in $(seq 100); do grep -q http $OUT/$arm-$rep.out 2>/dev/null && break; sleep 0.1; done
      base=$(grep -o 'http://[0-9.:]*' $OUT/$arm-$rep.out | head -1)
      poll "$base" "$arm-$rep" & poller=$!
      wait $pid; kill $poller 2>/dev/null; wait $poller 2>/dev/null
    else
      $BIN "${args[@]}"
    fi
    it=$(jq .iteration $run/state.json); wall=$(jq ".wall_seconds - .eval_seconds" $run/state.json)
    echo "$arm rep $rep: $it iterations in $wall s of run clock less evaluations = $(echo "$it * 60 / $wall" | bc -l | cut -c1-6) it/min; games $(jq .total_games $run/state.json)"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
