#!/bin/bash
# from-empty timing: build then test --no-run
set -u
export CARGO_TARGET_DIR=$1
rm -rf "$CARGO_TARGET_DIR"
cd "$2"
echo "start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
t0=$(date +%s)
/usr/bin/time -f "build: wall %e s user %U sys %S" cargo build --release --timings 2>&1 | grep -v '^ *Compiling\|^ *Downloaded\|^ *Downloading' | tail -5
t1=$(date +%s)
echo "build done $(date -u +%T) $((t1-t0)) s load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "test: wall %e s user %U sys %S" cargo test --release --no-run --timings 2>&1 | grep -v '^ *Compiling\|^ *Downloaded\|^ *Downloading\|Executable' | tail -5
t2=$(date +%s)
echo "test done $(date -u +%T) $((t2-t1)) s load $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$3"; cp "$CARGO_TARGET_DIR"/cargo-timings/cargo-timing-*.html "$3"/
