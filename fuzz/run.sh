#!/usr/bin/env bash
# Runs every fuzz target (or those named) for SECONDS each, one after the other, and
# prints a line per target: executions, executions per second, corpus size, crashes.
#
# usage: fuzz/run.sh SECONDS [TARGET...]
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Builds
# without a sanitizer (`-s none`: the code under test is safe Rust, and the fuzzer runs
# several times faster) and with optimisations. The corpus grows in fuzz/corpus/TARGET,
# starting from the committed seeds in fuzz/seeds/TARGET; a crash is saved in
# fuzz/artifacts/TARGET and makes the script exit non-zero (turn it into a unit test).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:?usage: fuzz/run.sh SECONDS [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list)
fi
cargo +nightly fuzz build -s none -O >/dev/null
failed=0
printf '%-18s %12s %10s %8s %s\n' target execs execs/s corpus result
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t"
  cp -n fuzz/seeds/"$t"/* "fuzz/corpus/$t/" 2>/dev/null || true
  log=$(mktemp)
  set +e
  cargo +nightly fuzz run -s none -O "$t" "fuzz/corpus/$t" -- \
    -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 \
    -max_len=65536 -timeout=20 >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  secs=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
  corpus=$(ls "fuzz/corpus/$t" | wc -l)
  if [ $rc -eq 0 ]; then
    result=ok
  else
    result="CRASH (exit $rc): $(grep -m1 -o 'Test unit written to .*' "$log" || tail -1 "$log")"
    failed=1
    cp "$log" "fuzz/artifacts/$t.log" 2>/dev/null || true
  fi
  printf '%-18s %12s %10s %8s %s\n' "$t" "${execs:-0}" "${secs:-0}" "$corpus" "$result"
  rm -f "$log"
done
exit $failed
