#!/usr/bin/env bash
# The arms of an A/B trained side by side at equal machine time: each ARM.toml in the
# experiment's directory is one arm, run with the same niceness and the same run-clock
# limit (its config's train.time_limit_minutes), its capsule kept in DIR/ARM/capsule.
#   experiments/ab/arms.sh DIR start   start each arm, or resume it: from its run
#                                      directory, else from its committed capsule
#   experiments/ab/arms.sh DIR stop    SIGTERM every arm (each ends at once, keeping its
#                                      last complete iteration) and wait
#   experiments/ab/arms.sh DIR save    copy each arm's capsule into the repository
#                                      (replacing the one there), checked against its own
#                                      file sums, and print the arms' CPU time
#   experiments/ab/arms.sh DIR status  iteration, run clock and CPU time of each arm
#   experiments/ab/arms.sh DIR pause|cont   SIGSTOP / SIGCONT every arm (timed matches)
# DIR is the experiment's directory from the repository's root (experiments/ab/size); the
# configs name checkpoints by paths from the root. RUNS (default /work/runs/NAME, NAME the
# directory's last part) holds the run directories, outside git; OWARE (default
# target/release/oware) is the binary. CORES (default none) pins the arms to CPUs, one
# taskset list an arm in the order ls gives the ARM.toml files (CORES="0 1": the first arm
# on CPU 0, the second on CPU 1), so that each arm's threads, its learner's included, share
# only its own CPUs: an arm that spends more on learning spends it out of its own
# self-play, not the other arm's.
set -euo pipefail
cd "$(dirname "$0")/../.."
here=${1:?usage: $0 DIR start|stop|save|status|pause|cont}
here=${here%/}
[ -d "$here" ] || { echo "$here: no such experiment directory" >&2; exit 2; }
runs=${RUNS:-/work/runs/$(basename "$here")}
bin=${OWARE:-target/release/oware}
arms=$(cd "$here" && ls ./*.toml | sed 's|^\./||; s|\.toml$||' | tr '\n' ' ')
[ -n "$arms" ] || { echo "$here: no ARM.toml" >&2; exit 2; }
mkdir -p "$runs"

alive() { [ -f "$runs/$1.pid" ] && kill -0 "$(cat "$runs/$1.pid")" 2>/dev/null; }

cpu() { # CPU seconds of an arm's process so far, all threads
  alive "$1" && ps -o cputimes= -p "$(cat "$runs/$1.pid")" | tr -d ' ' || echo "-"
}

start() {
  # shellcheck disable=SC2206
  local cores=(${CORES:-}) i=0 pin
  if [ ${#cores[@]} -gt 0 ] && [ ${#cores[@]} -ne "$(wc -w <<< "$arms")" ]; then
    echo "CORES=\"${CORES}\": one CPU list for each arm (${arms% })" >&2; exit 2
  fi
  for arm in $arms; do
    pin=""; [ ${#cores[@]} -gt 0 ] && pin="taskset -c ${cores[$i]}"
    i=$((i + 1))
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
    nohup $pin nice -n 19 "$bin" train $args --capsule "$cap" --no-progress \
      >> "$runs/$arm.log" 2>&1 &
    echo $! > "$runs/$arm.pid"
    echo "$arm: started (pid $!): ${pin:+$pin }$args"
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

signal() { # SIG: send it to every arm that is alive
  for arm in $arms; do alive "$arm" && kill "-$1" "$(cat "$runs/$arm.pid")" && echo "$arm: $1"; done
  true
}

case "${2:-}" in
  start) start ;; stop) stop ;; save) save ;; status) status ;;
  pause) signal STOP ;; cont) signal CONT ;;
  *) echo "usage: $0 DIR start|stop|save|status|pause|cont" >&2; exit 2 ;;
esac
