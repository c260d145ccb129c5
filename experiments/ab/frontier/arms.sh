#!/usr/bin/env bash
# The three arms of the frontier A/B (README.md beside this file), side by side.
#   experiments/ab/frontier/arms.sh start   start each arm, or resume it: from its run
#                                           directory, else from its committed capsule
#   experiments/ab/frontier/arms.sh stop    SIGTERM every arm (each ends at once, keeping
#                                           its last complete iteration) and wait
#   experiments/ab/frontier/arms.sh save    copy each arm's capsule into the repository
#                                           (replacing the one there), checked against its
#                                           own file sums, and print the arms' CPU time
#   experiments/ab/frontier/arms.sh status  iteration, run clock and CPU time of each arm
# From the repository's root (the configs name the long run's checkpoint by a path from
# there). RUNS (default /work/runs/frontier) holds the run directories, outside git;
# OWARE (default target/release/oware) is the binary.
set -euo pipefail
cd "$(dirname "$0")/../../.."
here=experiments/ab/frontier
runs=${RUNS:-/work/runs/frontier}
bin=${OWARE:-target/release/oware}
arms="continue search blocks2"
mkdir -p "$runs"

alive() { [ -f "$runs/$1.pid" ] && kill -0 "$(cat "$runs/$1.pid")" 2>/dev/null; }

cpu() { # CPU seconds of an arm's process so far, all threads
  alive "$1" && ps -o cputimes= -p "$(cat "$runs/$1.pid")" | tr -d ' ' || echo "-"
}

start() {
  for arm in $arms; do
    if alive "$arm"; then echo "$arm: already running"; continue; fi
    local run="$runs/$arm" cap="$runs/$arm-capsule" args
    if [ -d "$run" ]; then
      args="--resume --run-dir $run"
    elif [ -d "$here/$arm/capsule" ]; then
      cp -r "$here/$arm/capsule" "$run"
      args="--resume --run-dir $run"
    else
      args="--config $here/$arm.toml --run-dir $run"
    fi
    # shellcheck disable=SC2086
    nohup nice -n 19 "$bin" train $args --capsule "$cap" --no-progress \
      >> "$runs/$arm.log" 2>&1 &
    echo $! > "$runs/$arm.pid"
    echo "$arm: started (pid $!): $args"
  done
}

stop() {
  for arm in $arms; do alive "$arm" && kill -TERM "$(cat "$runs/$arm.pid")" || true; done
  for arm in $arms; do
    while alive "$arm"; do sleep 1; done
    echo "$arm: stopped"
  done
}

# FNV-1a (64 bits) of every file the capsule lists, against its capsule.json.
check() {
  python3 - "$1" <<'PY'
import json, sys
root = sys.argv[1]
for f in json.load(open(f"{root}/capsule.json"))["files"]:
    h = 0xcbf29ce484222325
    for b in open(f"{root}/{f['name']}", "rb").read():
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    if f"{h:016x}" != f["fnv1a64"]:
        sys.exit(f"{root}/{f['name']}: sum {h:016x}, capsule says {f['fnv1a64']}")
PY
}

save() {
  for arm in $arms; do
    local cap="$runs/$arm-capsule" tmp="$here/$arm/capsule.tmp"
    [ -d "$cap" ] || { echo "$arm: no capsule yet"; continue; }
    mkdir -p "$here/$arm"
    rm -rf "$tmp"
    cp -r "$cap" "$tmp"
    check "$tmp"
    rm -rf "$here/$arm/capsule"
    mv "$tmp" "$here/$arm/capsule"
    echo "$arm: capsule of iteration $(python3 -c "import json;print(json.load(open('$here/$arm/capsule/capsule.json'))['iteration'])") saved; CPU $(cpu "$arm") s"
  done
}

status() {
  for arm in $arms; do
    local m="$runs/$arm/metrics.csv"
    [ -f "$m" ] || { echo "$arm: no metrics yet"; continue; }
    tail -n 1 "$m" | awk -F, -v a="$arm" -v c="$(cpu "$arm")" \
      '{ printf "%s: iteration %s, run clock %.1f min, games %s, CPU %s s\n", a, $1, $2 / 60, $3, c }'
  done
}

case "${1:-}" in
  start) start ;; stop) stop ;; save) save ;; status) status ;;
  *) echo "usage: $0 start|stop|save|status" >&2; exit 2 ;;
esac
