#!/usr/bin/env bash
# A real multi-node Ray cluster on one machine, for oware-ray. Run as root:
#
#   cluster/multinode_test.sh
#
# It makes a bridge and three network namespaces (a head and two worker nodes, each with
# its own address on the bridge), and starts `ray start --block` in each, every node in a
# PID namespace of its own (unshare --pid), so that a node's processes are ended by their
# ids and `ray stop`, which would end every Ray process on the machine, is never used.
# The worker nodes have one Ray CPU each and are pinned to a core each (taskset).
#
# Then: `oware-ray train` on the head with two actors; a phase with one worker node
# (the second actor waits for room), a phase with both; `kill -9` of every process of
# the second worker node mid-run; a phase without it; the node started again (Ray
# restarts the lost actor there); SIGTERM to oware-ray and a second start, which resumes
# the run. Checks: the run went on after the kill, every chunk in the window is whole and
# the one written, no name or content twice, every chunk written was taken or still waits,
# the metrics rows run 1..N. Prints games/s with one worker node and with two, and ends
# with the line
#
#   chunks_lost=N chunks_duplicated=N gps_1node=X gps_2nodes=Y
#
# exiting non-zero when a chunk was lost or duplicated or a check failed. Everything it
# made (namespaces, bridge, processes, temporary files) goes when it exits; KEEP=DIR
# keeps the logs, the ledger and state.json in DIR.
#
# Settings (environment): OWARE_BIN (default target/release/oware), PYTHON (python3,
# with Ray), PHASE1_SECONDS / PHASE2_SECONDS / AFTER_KILL_SECONDS / RESUME_SECONDS
# (75/75/45/40), GAMES_PER_CHUNK (256), CORE_A / CORE_B (0/1), HEAD_NICE (0; on a
# machine with no core to spare for the head, a positive niceness keeps the head's
# processes, learner included, from taking the worker nodes' cores).

set -euo pipefail

say() { echo "multinode_test: $*" >&2; }
die() { say "error: $*"; exit 2; }

[ "$(id -u)" -eq 0 ] || die "run as root (it makes network namespaces and a bridge)"
REPO=$(cd "$(dirname "$0")/.." && pwd)
OWARE=${OWARE_BIN:-$REPO/target/release/oware}
PY=${PYTHON:-python3}
[ -x "$OWARE" ] || die "no oware binary at $OWARE (cargo build --release, or set OWARE_BIN)"
"$PY" -c 'import ray' 2>/dev/null || die "$PY cannot import ray (pip install ./cluster)"
RAY=$(dirname "$("$PY" -c 'import sys; print(sys.executable)')")/ray
[ -x "$RAY" ] || die "no ray command next to $PY"
for c in ip unshare nsenter taskset; do command -v $c >/dev/null || die "needs $c"; done
P1=${PHASE1_SECONDS:-75}
P2=${PHASE2_SECONDS:-75}
P3=${AFTER_KILL_SECONDS:-45}
P4=${RESUME_SECONDS:-40}
GAMES=${GAMES_PER_CHUNK:-256}
CORE_A=${CORE_A:-0}
CORE_B=${CORE_B:-1}
HEAD_NICE=${HEAD_NICE:-0}

ID=$$
BR="owbr$ID"
NET="10.213.$((ID % 200 + 20))"
HEAD_IP="$NET.1"
declare -A IP=([head]="$NET.1" [a]="$NET.2" [b]="$NET.3")
WORK=$(mktemp -d /tmp/oware-multinode.XXXXXX)
RUN="$WORK/run"
# A fresh token for this cluster's authentication, in every node's and driver's env.
export RAY_AUTH_MODE=token
RAY_AUTH_TOKEN=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
export RAY_AUTH_TOKEN
export RAY_USAGE_STATS_ENABLED=0
export PYTHONPATH="$REPO/cluster${PYTHONPATH:+:$PYTHONPATH}"
DRIVER_PID=""
MADE_NS=()

# The first process below $1 (a launcher's pid) that lives in another PID namespace: the
# node's init.
ns_init() {
    local p=$1 mine kids k
    mine=$(readlink /proc/self/ns/pid)
    for _ in 1 2 3 4 5 6; do
        [ "$(readlink "/proc/$p/ns/pid" 2>/dev/null)" != "$mine" ] && [ -e "/proc/$p" ] && {
            echo "$p"
            return 0
        }
        kids=$(pgrep -P "$p" || true)
        k=${kids%%$'\n'*}
        [ -n "$k" ] || return 1
        p=$k
    done
    return 1
}

# kill -9 every process of node $1: each process whose PID namespace is the node's.
kill_node() {
    local f="$WORK/$1.pid" init ns p
    [ -f "$f" ] || return 0
    init=$(ns_init "$(cat "$f")") || { rm -f "$f"; return 0; }
    ns=$(readlink "/proc/$init/ns/pid") || return 0
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] && kill -9 "${p#/proc/}" 2>/dev/null || true
    done
    wait "$(cat "$f")" 2>/dev/null || true
    rm -f "$f"
}

# The driver's own pid (nsenter, entering a PID namespace, runs it as its child).
driver_proc() { pgrep -P "$DRIVER_PID" | head -1; }

stop_driver() {
    [ -n "$DRIVER_PID" ] || return 0
    local d
    d=$(driver_proc || true)
    [ -n "$d" ] && kill -TERM "$d" 2>/dev/null || true
    for _ in $(seq 120); do
        kill -0 "$DRIVER_PID" 2>/dev/null || break
        sleep 0.5
    done
    kill -9 "$DRIVER_PID" 2>/dev/null || true
    set +e
    wait "$DRIVER_PID"
    DRIVER_RC=$?
    set -e
    DRIVER_PID=""
}

cleanup() {
    trap - EXIT INT TERM
    stop_driver || true
    for n in b a head; do kill_node "$n" || true; done
    for ns in "${MADE_NS[@]}"; do ip netns del "$ns" 2>/dev/null || true; done
    ip link del "$BR" 2>/dev/null || true
    if [ -n "${KEEP:-}" ]; then
        mkdir -p "$KEEP"
        cp "$WORK"/*.log "$KEEP"/ 2>/dev/null || true
        cp "$RUN/ray/chunks.jsonl" "$RUN/state.json" "$RUN/metrics.csv" "$KEEP"/ 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- The network: a bridge, a namespace per node with a veth on it.
ip link add "$BR" type bridge
ip addr add "$NET.254/24" dev "$BR"
ip link set "$BR" up
for n in head a b; do
    ns="ow$ID-$n"
    ip netns add "$ns"
    MADE_NS+=("$ns")
    ip link add "ow$ID$n" type veth peer name eth0 netns "$ns"
    ip link set "ow$ID$n" master "$BR" up
    ip netns exec "$ns" ip addr add "${IP[$n]}/24" dev eth0
    ip netns exec "$ns" ip link set eth0 up
    ip netns exec "$ns" ip link set lo up
    # A default route lets Ray find the node's own address (no packet leaves the bridge).
    ip netns exec "$ns" ip route add default via "$NET.254"
done
say "bridge $BR, nodes head ${IP[head]}, a ${IP[a]}, b ${IP[b]}; head niceness $HEAD_NICE; work dir $WORK"

# start_node NAME CORE|- RAY-START-ARGS...
start_node() {
    local n=$1 core=$2
    shift 2
    local pin=()
    [ "$core" != - ] && pin=(taskset -c "$core")
    [ "$n" = head ] && pin=(nice -n "$HEAD_NICE")
    mkdir -p "$WORK/tmp-$n"
    # TMPDIR: the actors' private directories, in the node's own folder.
    mkdir -p "$WORK/tmp-$n/actors"
    ip netns exec "ow$ID-$n" env TMPDIR="$WORK/tmp-$n/actors" \
        unshare --pid --fork --mount-proc "${pin[@]}" \
        "$RAY" start --block --node-ip-address "${IP[$n]}" --temp-dir "$WORK/tmp-$n" \
        --object-store-memory 100000000 --disable-usage-stats "$@" >>"$WORK/node-$n.log" 2>&1 &
    echo $! >"$WORK/$n.pid"
}

# wait_nodes N: until the cluster has N live nodes (3 minutes at most).
wait_nodes() {
    local t0=$SECONDS k
    while :; do
        k=$(ip netns exec "ow$ID-head" "$RAY" status --address "$HEAD_IP:6379" 2>/dev/null |
            sed -n '/^Active:/,/^Pending:/p' | grep -c ' node_' || true)
        [ "$k" -ge "$1" ] && return 0
        [ $((SECONDS - t0)) -lt 180 ] || die "the cluster has $k nodes, not $1, after 3 minutes"
        sleep 2
    done
}

ledger_count() { # ledger_count PYTHON-CONDITION-ON-r (chunks of the ledger matching)
    "$PY" - "$RUN/ray/chunks.jsonl" "$1" <<'EOF'
import json, sys
try:
    rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
except FileNotFoundError:
    rows = []
print(sum(1 for r in rows if eval(sys.argv[2], {}, {"r": r})))
EOF
}

# wait_chunk CONDITION SECONDS: until the ledger holds a chunk matching CONDITION.
wait_chunk() {
    local t0=$SECONDS
    while [ "$(ledger_count "$1")" -eq 0 ]; do
        [ $((SECONDS - t0)) -lt "$2" ] || return 1
        driver_alive || die "oware-ray ended early (see its log below)"$'\n'"$(tail -20 "$WORK/driver.log")"
        sleep 1
    done
}

driver_alive() { [ -n "$DRIVER_PID" ] && kill -0 "$DRIVER_PID" 2>/dev/null; }

iteration() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["iteration"])' "$RUN/state.json" 2>/dev/null || echo 0; }

start_driver() {
    ip netns exec "ow$ID-head" true # the namespace exists
    nsenter --target "$(ns_init "$(cat "$WORK/head.pid")")" --pid --mount --net \
        nice -n "$HEAD_NICE" "$PY" -m oware_ray train --config "$WORK/config.toml" --run-dir "$RUN" \
        --address "$HEAD_IP:6379" --workers 2 --worker-threads 1 --games "$GAMES" \
        --oware "$OWARE" >>"$WORK/driver.log" 2>&1 &
    DRIVER_PID=$!
}

cat >"$WORK/config.toml" <<'EOF'
# multinode_test.sh: the network and search of configs/quick.toml, a learner that takes
# little CPU.
seed = 11
[model]
encoding = "onehot"
width = 128
blocks = 1
[search]
algorithm = "gumbel"
simulations = 64
cheap_simulations = 16
full_search_fraction = 0.25
search_value = "improved"
[selfplay]
threads = 1
games_per_iteration = 64
games_in_flight = 64
opening_plies = 6
[train]
time_limit_minutes = 60
batch_size = 256
samples_per_new_sample = 2
max_steps_per_iteration = 10
min_new_samples = 1
keep_checkpoints = 3
[train.window]
min = 20000
max = 100000
exponent = 0.65
[eval]
every = 0
EOF

# --- Phase 1: the head and one worker node.
start_node head - --head --port 6379 --num-cpus 0 --include-dashboard=false
sleep 3
start_node a "$CORE_A" --address "$HEAD_IP:6379" --num-cpus 1
wait_nodes 2
say "head and worker node a up"
start_driver
wait_chunk "r['node'] == '${IP[a]}'" 240 || die "no chunk from node a in 4 minutes"
T0=$(date +%s.%N)
say "phase 1: one worker node for ${P1}s"
sleep "$P1"
T1=$(date +%s.%N)

# --- Phase 2: the second worker node joins; the waiting actor starts there.
start_node b "$CORE_B" --address "$HEAD_IP:6379" --num-cpus 1
wait_chunk "r['node'] == '${IP[b]}'" 240 || die "no chunk from node b in 4 minutes"
T1B=$(date +%s.%N)
say "phase 2: two worker nodes for ${P2}s"
sleep "$P2"
T2=$(date +%s.%N)

# --- The fault: kill -9 every process of worker node b.
IT_KILL=$(iteration)
CHUNKS_KILL=$(ledger_count "True")
kill_node b
TK=$(date +%s.%N)
say "killed worker node b (kill -9 of all its processes) at iteration $IT_KILL, $CHUNKS_KILL chunks written"
sleep "$P3"
driver_alive || die "oware-ray died with the node"
IT_AFTER=$(iteration)
say "iteration $IT_AFTER ${P3}s after the kill"

# --- Node b again (a fresh node): Ray restarts the lost actor there.
start_node b "$CORE_B" --address "$HEAD_IP:6379" --num-cpus 1
RESTARTED=yes
wait_chunk "r['worker'] == 1 and r['t'] > $TK" 240 || RESTARTED=no
say "actor of the killed node restarted on the new node b: $RESTARTED"

# --- The learner stopped (SIGTERM to oware-ray) and started again: it resumes.
stop_driver
say "oware-ray stopped by SIGTERM (exit $DRIVER_RC) at iteration $(iteration)"
IT_STOP=$(iteration)
start_driver
wait_chunk "r['name'].startswith('ray-s002-')" 240 || die "no chunk from the second start"
sleep "$P4"
stop_driver
IT_END=$(iteration)
say "second start: iterations $IT_STOP -> $IT_END (exit $DRIVER_RC)"

# --- Checks and figures.
echo "--- oware-ray log (faults and restarts):"
grep -E "lost chunk|is back|failed chunk|start [0-9]+ of|signal|exited" "$WORK/driver.log" || true
CHECK=$("$PY" -m oware_ray.check "$RUN") || true
echo "--- check: $CHECK"
FIG=$("$PY" - "$RUN/ray/chunks.jsonl" "$T0" "$T1" "$T1B" "$T2" "${IP[a]}" "${IP[b]}" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
t0, t1, t1b, t2 = map(float, sys.argv[2:6])
a, b = sys.argv[6:8]

def rate(node, s, e):
    # Completion to completion: the games of the chunks after the first one in [s, e]
    # over the time between the first and the last.
    rs = sorted((r for r in rows if r["node"] == node and s <= r["t"] <= e), key=lambda r: r["t"])
    if len(rs) < 2:
        return float("nan")
    return sum(r["games"] for r in rs[1:]) / (rs[-1]["t"] - rs[0]["t"])

g1 = rate(a, t0, t1)
g2a, g2b = rate(a, t1b, t2), rate(b, t1b, t2)
print(f"{g1:.2f} {g2a + g2b:.2f} {g2a:.2f} {g2b:.2f}")
EOF
)
read -r GPS1 GPS2 GPS2A GPS2B <<<"$FIG"
LOST=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["chunks_lost"])' "$CHECK")
DUP=$("$PY" -c 'import json,sys; print(json.loads(sys.argv[1])["chunks_duplicated"])' "$CHECK")
FAULTS=$("$PY" -c 'import json,sys; print(len(json.loads(sys.argv[1])["faults"]))' "$CHECK")
echo "games/s: one worker node $GPS1; two worker nodes $GPS2 (a $GPS2A, b $GPS2B); ratio $("$PY" -c "print(f'{$GPS2/$GPS1:.2f}')")"
echo "iterations: $IT_KILL at the kill, $IT_AFTER ${P3}s later; $IT_STOP at the stop, $IT_END after the second start"
ok=1
[ "$IT_AFTER" -gt "$IT_KILL" ] || { say "FAIL: the run did not go on after the kill"; ok=0; }
[ "$IT_END" -gt "$IT_STOP" ] || { say "FAIL: the second start made no iteration"; ok=0; }
[ "$FAULTS" -eq 0 ] || { say "FAIL: $FAULTS faults (see the check above)"; ok=0; }
[ "$RESTARTED" = yes ] || { say "FAIL: the killed node's actor was not restarted"; ok=0; }
echo "chunks_lost=$LOST chunks_duplicated=$DUP gps_1node=$GPS1 gps_2nodes=$GPS2"
[ "$LOST" -eq 0 ] && [ "$DUP" -eq 0 ] && [ "$ok" -eq 1 ]
