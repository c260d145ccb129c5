#!/bin/sh
# The engine's speed with v3 (checkpoints/oware-abapa, shipped 2026-12-05) against v2
# (checkpoints/oware-abapa-v2), measured as for v2 in README.md ("v2, the network shipped
# since 2026-12-04"): `oware bench engine --threads 1,2 --batch 8 --movetime 1000`
# (4 positions, 1 s each, no tables), two runs of each network, alternating v2, v3, v2, v3.
#
# Timed: run it on an idle machine (no training run, no build, nothing else), from the
# repository root, after `cargo build --release`. About 1 minute. Writes one JSON file a
# run and machine.txt under $OUT (default /tmp/bench-v3) and prints a line a
# run: simulations/s, mean leaf depth and cache hits for 1 and 2 threads.
set -e
B=${B:-target/release/oware}
OUT=${OUT:-/tmp/bench-v3}
mkdir -p "$OUT"
{
  date -u +%FT%TZ
  git rev-parse --short HEAD
  grep -m1 'model name' /proc/cpuinfo
  grep -o 'avx512[a-z]*\|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '
  echo
  uptime
} > "$OUT/machine.txt"
cat "$OUT/machine.txt"
for round in 1 2; do
  for net in v2 v3; do
    case $net in
      v2) M=checkpoints/oware-abapa-v2 ;;
      v3) M=checkpoints/oware-abapa ;;
    esac
    $B bench engine --model $M --threads 1,2 --batch 8 --movetime 1000 --json > "$OUT/$net-$round.json"
    python3 - "$OUT/$net-$round.json" $net $round <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
cells = [
    f"{e['threads']} thread(s) {e['simulations_per_second'] / 1000:.0f} k/s, "
    f"leaf depth {e['mean_leaf_depth']:.1f}, cache {100 * e['cache_hit_rate']:.0f}%"
    for e in r["engine"]
]
print(f"{sys.argv[2]} run {sys.argv[3]}: " + "; ".join(cells))
EOF
  done
done
date -u +%FT%TZ
