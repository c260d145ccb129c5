#!/usr/bin/env bash
# Kills a training run with SIGKILL at random moments, resumes it each time, then checks
# that nothing was damaged:
#   - every checkpoint left in the run loads (`oware infer`);
#   - metrics.csv has one row per iteration, 1..N in order, none doubled or missing;
#   - each kill lost at most the iteration in flight (the committed iteration after the
#     kill is at least the last one the log reported finished before it);
#   - no temporary file is left anywhere in the run directory.
#
# usage: scripts/kill-test.sh [KILLS=20] [SEED=1] [CONFIG=configs/quick.toml]
# Needs a release build (cargo build --release). Prints one line per kill and a verdict;
# exits non-zero on the first failed check.
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-20}
seed=${2:-1}
config=${3:-configs/quick.toml}
bin=target/release/oware
[ -x "$bin" ] || { echo "error: $bin missing; run cargo build --release first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run="$work/run"
RANDOM=$seed
# Small iterations, so a kill lands in every phase: self-play, training, checkpoint,
# evaluation, metrics and state writes.
args=(train --no-progress --config "$config" --run-dir "$run"
      --set selfplay.games_per_iteration=64 --set selfplay.games_in_flight=64
      --set train.max_steps_per_iteration=20 --set eval.every=3 --set eval.games=8
      --set eval.gauntlet_games=4 --set train.time_limit_minutes=0 --set train.iterations=100000)
committed() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iteration"])' "$run/state.json" 2>/dev/null || echo 0; }
for k in $(seq 1 "$kills"); do
  log="$work/log-$k"
  "$bin" "${args[@]}" >"$log" 2>&1 &
  pid=$!
  # Wait for the first iteration of this session, then a random 0.1-4 s more.
  start=$(committed)
  for _ in $(seq 1 600); do
    [ "$(committed)" -gt "$start" ] && break
    kill -0 "$pid" 2>/dev/null || { echo "error: the run exited early:"; tail -5 "$log"; exit 1; }
    sleep 0.1
  done
  sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.1 + 3.9 * r / 32767 }')"
  finished=$(grep -o '^iter [0-9]*' "$log" | tail -1 | awk '{print $2}')
  kill -9 "$pid"; wait "$pid" 2>/dev/null || true
  now=$(committed)
  echo "kill $k: pid $pid, log reported iteration ${finished:-none} finished, state.json says $now"
  if [ -n "${finished:-}" ] && [ "$now" -lt "$finished" ]; then
    echo "FAIL: a finished iteration ($finished) was lost (committed $now)"; exit 1
  fi
done
# A last clean session of two more iterations.
n=$(committed)
"$bin" "${args[@]/train.iterations=100000/train.iterations=$((n + 2))}" >"$work/log-final" 2>&1 \
  || { echo "FAIL: the final resume failed:"; tail -5 "$work/log-final"; exit 1; }
n=$(committed)
rows=$(tail -n +2 "$run/metrics.csv" | cut -d, -f1 | tr '\n' ' ')
want=$(seq 1 "$n" | tr '\n' ' ')
[ "$rows" = "$want" ] || { echo "FAIL: metrics rows '$rows' are not 1..$n"; exit 1; }
temps=$(find "$run" -name '*.tmp*' | wc -l)
[ "$temps" -eq 0 ] || { echo "FAIL: temporary files left:"; find "$run" -name '*.tmp*'; exit 1; }
loaded=0
for c in "$run"/checkpoints/iter-*; do
  "$bin" infer --model "$c" >/dev/null 2>&1 || { echo "FAIL: checkpoint $c does not load"; exit 1; }
  loaded=$((loaded + 1))
done
echo "ok: $kills kills, $n iterations, metrics rows 1..$n, $loaded checkpoints load, no temporary files"
