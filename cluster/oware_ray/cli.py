"""`oware-ray train`: `oware train` as the learner on this (the head) node, fed by
self-play actors placed across a Ray cluster.

- The learner is `oware train --set train.local_selfplay=false` (unless --head-selfplay):
  it plays no games itself and each iteration waits for `train.min_new_samples` new
  samples in RUN/samples.
- Each actor keeps a private directory on its own node (config.toml, the newest
  checkpoint, the `oware` binary) and runs `oware selfplay --batches 1` there; the chunk's
  bytes come back through Ray's object store, and this process writes them into
  RUN/samples atomically (temporary name, then rename) as
  `ray-sSSS-wWW-NNNNN.bin`: SSS numbers the starts of oware-ray on this run directory
  (RUN/ray/starts), WW the worker, NNNNN its chunks in this start. A name is never used
  twice, so the learner (which takes each name once) never counts a chunk twice.
- Each new checkpoint is read once from RUN/checkpoints, put into the object store, and
  fetched by each actor before its next chunk: no filesystem is shared.
- The `oware` binary travels the same way (put once, written by each actor into its
  directory), unless --worker-oware names a binary installed on every node.
- Faults: an actor (or its node) that dies costs its chunk in flight, which was never
  written; Ray restarts the actor (max_restarts=-1) where there is room and the same chunk
  number is asked of it again. A learner killed and restarted resumes as `oware train`
  does; chunks written but not yet taken are taken then.

Every chunk written is recorded in RUN/ray/chunks.jsonl (name, worker, games, samples,
sha256, node, checkpoint, time).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None


def log(msg):
    print(f"oware-ray: {msg}", file=sys.stderr, flush=True)


def fail(msg):
    """Bad input: one line, exit 2."""
    print(f"oware-ray: error: {msg}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def atomic_write(path, data):
    """Writes `data` to `path` through `.NAME.tmp-PID` and a rename (the Rust side's
    convention, so `oware train` clears such a file left by a killed process)."""
    path = Path(path)
    tmp = path.parent / f".{path.name}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --------------------------------------------------------------------------------------
# The actor (runs on any node).


def _selfplay_actor_class():
    import ray

    class SelfPlayActor:
        """Plays chunks with `oware selfplay` in a private directory on its node."""

        def __init__(self, tag, config_text):
            self.tag = tag
            # A directory left on this node by an earlier life of this actor goes.
            for old in Path(tempfile.gettempdir()).glob(f"oware-ray-{tag}-*"):
                shutil.rmtree(old, ignore_errors=True)
            self.dir = Path(tempfile.mkdtemp(prefix=f"oware-ray-{tag}-"))
            (self.dir / "config.toml").write_text(config_text)
            self.exe = None
            self.checkpoint = None

        def _install_binary(self, binary):
            if isinstance(binary, list):
                exe = self.dir / "oware"
                exe.write_bytes(ray.get(binary[0]))
                exe.chmod(0o755)
                self.exe = str(exe)
            else:
                if not os.access(binary, os.X_OK):
                    raise RuntimeError(f"--worker-oware {binary}: not an executable on this node")
                self.exe = binary

        def node(self):
            return ray.util.get_node_ip_address()

        def _install_checkpoint(self, name, ref):
            files = ray.get(ref)
            cks = self.dir / "checkpoints"
            new = cks / name
            tmp = cks / f".{name}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir(parents=True)
            for fname, data in files.items():
                (tmp / fname).write_bytes(data)
            shutil.rmtree(new, ignore_errors=True)
            os.replace(tmp, new)
            (cks / ".latest.tmp").write_text(name + "\n")
            os.replace(cks / ".latest.tmp", cks / "latest")
            for old in cks.iterdir():
                if old.is_dir() and old.name != name:
                    shutil.rmtree(old, ignore_errors=True)
            self.checkpoint = name

        def play(self, n, checkpoint, games, threads, binary):
            """Plays chunk number `n` with `checkpoint` = [name, [ref]]; returns its bytes.
            `binary`: [ref] of the oware binary's bytes, or its path on this node."""
            if self.exe is None:
                self._install_binary(binary)
            name, ref = checkpoint
            if name != self.checkpoint:
                self._install_checkpoint(name, ref[0])
            # The chunk's number decides its seed (with the worker's name), so a chunk asked
            # again after a crash is the same chunk, and two numbers never share games.
            workers = self.dir / "workers"
            workers.mkdir(exist_ok=True)
            (workers / f"{self.tag}.next").write_text(f"{n}\n")
            samples = self.dir / "samples"
            shutil.rmtree(samples, ignore_errors=True)
            samples.mkdir()
            cmd = [self.exe, "selfplay", "--run-dir", str(self.dir), "--worker", self.tag,
                   "--batches", "1", "--threads", str(threads)]
            if games:
                cmd += ["--games", str(games)]
            t0 = time.time()
            p = subprocess.run(cmd, capture_output=True, text=True)
            seconds = time.time() - t0
            if p.returncode != 0:
                raise RuntimeError(f"oware selfplay failed ({p.returncode}): {p.stderr.strip()}")
            chunks = list(samples.glob("*.bin"))
            if len(chunks) != 1:
                raise RuntimeError(f"oware selfplay left {len(chunks)} chunks, expected 1")
            data = chunks[0].read_bytes()
            chunks[0].unlink()
            m = re.search(r": (\d+) games, (\d+) samples", p.stderr)
            return {
                "n": n,
                "data": data,
                "games": int(m.group(1)) if m else None,
                "samples": int(m.group(2)) if m else None,
                "seconds": seconds,
                "checkpoint": name,
                "node": ray.util.get_node_ip_address(),
            }

        def close(self):
            shutil.rmtree(self.dir, ignore_errors=True)

    return SelfPlayActor


# --------------------------------------------------------------------------------------
# The head.


def _term_with_parent():
    """In the learner's child process before exec: SIGTERM when oware-ray dies."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 - not Linux: the learner outlives a killed oware-ray
        pass


def exit_code(code):
    """A child's return code as a shell reports it (a signal N as 128 + N)."""
    return 128 - code if code < 0 else code


def find_oware(given):
    if given:
        p = Path(given)
        if not (p.is_file() and os.access(p, os.X_OK)):
            fail(f"--oware {given}: not an executable file")
        return str(p.resolve())
    env = os.environ.get("OWARE_BIN")
    if env:
        return find_oware(env)
    w = shutil.which("oware")
    if w:
        return w
    fail("no `oware` binary: put it on PATH, set OWARE_BIN or pass --oware PATH "
         "(cargo build --release builds target/release/oware)")


def next_start(run):
    """Numbers this start of oware-ray on the run (RUN/ray/starts), before any chunk of
    it is written, so the names of two starts never meet."""
    d = run / "ray"
    d.mkdir(parents=True, exist_ok=True)
    f = d / "starts"
    n = 0
    if f.exists():
        text = f.read_text().strip()
        if not text.isdigit():
            fail(f"{f}: expected a number, found '{text}'")
        n = int(text)
    atomic_write(f, f"{n + 1}\n".encode())
    return n + 1


class CheckpointFeed:
    """The newest checkpoint of the run, put into the object store once per checkpoint."""

    def __init__(self, run):
        self.run = run
        self.name = None
        self.ref = None

    def refresh(self):
        import ray

        latest = self.run / "checkpoints" / "latest"
        try:
            name = latest.read_text().strip()
        except FileNotFoundError:
            return False
        if not name or name == self.name:
            return False
        d = self.run / "checkpoints" / name
        try:
            # The optimizer's state stays with the learner.
            files = {f.name: f.read_bytes() for f in d.iterdir()
                     if f.is_file() and f.name != "optimizer.bpk" and not f.name.startswith(".")}
        except FileNotFoundError:
            return False  # pruned meanwhile: a newer one is named next time
        if "manifest.json" not in files:
            return False
        self.ref = ray.put(files)
        self.name = name
        return True

    def arg(self):
        # The ref inside a list: Ray passes it unresolved, so an actor fetches a checkpoint
        # only when it is new to it.
        return [self.name, [self.ref]]


class Parser(argparse.ArgumentParser):
    def error(self, message):
        fail(f"{message} (oware-ray train --help)")


def parse_args(argv):
    ap = Parser(prog="oware-ray", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)
    t = sub.add_parser("train", help="train with self-play actors on a Ray cluster")
    t.add_argument("--config", required=True, help="the run's config (TOML)")
    t.add_argument("--run-dir", required=True, help="the run directory, on the head node")
    t.add_argument("--capsule", default=None,
                   help="keep this folder up to date as the run's capsule (oware train "
                        "--capsule): copy it to any machine and resume there")
    t.add_argument("--address", default=None,
                   help="Ray cluster to join ('auto': the one this node is part of); "
                        "default: start a Ray instance in this process")
    t.add_argument("--workers", type=int, default=2, help="self-play actors (default 2)")
    t.add_argument("--worker-threads", type=int, default=1,
                   help="threads (and Ray CPUs) per actor (default 1)")
    t.add_argument("--games", type=int, default=0,
                   help="games per chunk (default: the config's selfplay.games_per_iteration)")
    t.add_argument("--min-new-samples", type=int, default=1,
                   help="train.min_new_samples for the learner when the config leaves it "
                        "at 0 (default 1: an iteration per arrival)")
    t.add_argument("--head-selfplay", action="store_true",
                   help="the learner plays its own self-play games too")
    t.add_argument("--oware", default=None,
                   help="the oware binary on this node (default: $OWARE_BIN, then PATH)")
    t.add_argument("--worker-oware", default=None,
                   help="the oware binary's path on every node, when installed there; "
                        "default: ship this node's binary through the object store")
    t.add_argument("--num-cpus", type=int, default=None,
                   help="CPUs of the Ray instance started without --address")
    a = ap.parse_args(argv)
    for k in ("workers", "worker_threads"):
        if getattr(a, k) < 1:
            fail(f"--{k.replace('_', '-')} must be at least 1")
    if a.games < 0 or a.min_new_samples < 1:
        fail("--games must be ≥ 0 and --min-new-samples ≥ 1")
    return a


def learner_sets(args, config):
    train = config.get("train", {})
    sets = []
    if not args.head_selfplay:
        sets.append("train.local_selfplay=false")
    if not train.get("min_new_samples"):
        sets.append(f"train.min_new_samples={args.min_new_samples}")
    return sets


def train(args):
    import ray

    oware = find_oware(args.oware)
    cfg_path = Path(args.config)
    if not cfg_path.is_file():
        fail(f"--config {args.config}: no such file")
    config = {}
    if tomllib is not None:
        try:
            config = tomllib.loads(cfg_path.read_text())
        except Exception as e:  # noqa: BLE001 - any parse error is bad input
            fail(f"{cfg_path}: {str(e).splitlines()[0]}")
    run = Path(args.run_dir)
    run.mkdir(parents=True, exist_ok=True)
    cmd = [oware, "train", "--config", str(cfg_path), "--run-dir", str(run), "--no-progress"]
    for s in learner_sets(args, config):
        cmd += ["--set", s]
    if args.capsule:
        cmd += ["--capsule", str(Path(args.capsule))]
    # Its own session: a terminal's Ctrl-C reaches it once, forwarded from here. If this
    # process dies, even by SIGKILL, the learner gets SIGTERM and stops cleanly (Linux).
    learner = subprocess.Popen(cmd, start_new_session=True, preexec_fn=_term_with_parent)
    # The learner has the run once RUN/lock holds its pid, and a checkpoint once
    # RUN/checkpoints/latest names one (RUN/config.toml is written before).
    while True:
        if learner.poll() is not None:
            return exit_code(learner.returncode)
        try:
            locked = (run / "lock").read_text().strip() == str(learner.pid)
        except FileNotFoundError:
            locked = False
        if locked and (run / "checkpoints" / "latest").exists() and (run / "config.toml").exists():
            break
        time.sleep(0.1)
    start = next_start(run)
    log(f"start {start} of this run; learner pid {learner.pid}")

    stop = {"signal": None}

    def on_signal(signum, _frame):
        if stop["signal"] is None:
            log(f"signal {signum}: stopping the learner (it resumes from its last iteration)")
        stop["signal"] = signum
        try:
            learner.send_signal(signum)
        except ProcessLookupError:
            pass

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    try:
        if args.address:
            ray.init(address=args.address, logging_level="WARNING", log_to_driver=False)
        else:
            ray.init(num_cpus=args.num_cpus, logging_level="WARNING", log_to_driver=False,
                     include_dashboard=False)
    except Exception as e:  # noqa: BLE001 - any failure to reach Ray ends the run here
        learner.send_signal(signal.SIGTERM)
        learner.wait()
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        fail(f"cannot start or join Ray (--address {args.address or 'none'}): {first}")
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    config_text = (run / "config.toml").read_text()
    binary = args.worker_oware or [ray.put(Path(oware).read_bytes())]
    Actor = ray.remote(_selfplay_actor_class())
    actors = []
    for i in range(args.workers):
        actors.append(Actor.options(
            num_cpus=args.worker_threads,
            max_restarts=-1,
            max_task_retries=0,
            scheduling_strategy="SPREAD",
        ).remote(f"s{start:03d}w{i:02d}", config_text))

    feed = CheckpointFeed(run)
    feed.refresh()
    samples = run / "samples"
    samples.mkdir(exist_ok=True)
    ledger = open(run / "ray" / "chunks.jsonl", "a")
    nxt = [1] * args.workers  # the next chunk number of each worker in this start
    failures = [0] * args.workers
    inflight = {}  # ref -> (worker, n)
    t_report = time.time()
    games_since = 0
    chunks_since = 0

    retry_at = [0.0] * args.workers  # a worker without a chunk in flight asks again then
    lost_at = [None] * args.workers  # the chunk number a worker lost, until it delivers

    def submit(i):
        ref = actors[i].play.remote(nxt[i], feed.arg(), args.games, args.worker_threads, binary)
        inflight[ref] = (i, nxt[i])

    try:
        while learner.poll() is None:
            feed.refresh()
            busy = {i for i, _ in inflight.values()}
            for i in range(args.workers):
                if i not in busy and time.time() >= retry_at[i]:
                    submit(i)
            if not inflight:
                time.sleep(0.2)
                continue
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=0.5)
            for ref in ready:
                i, n = inflight.pop(ref)
                try:
                    r = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    failures[i] += 1
                    first = str(e).strip().splitlines()[-1] if str(e).strip() else repr(e)
                    log(f"worker {i} failed chunk {n}: {first}")
                    if failures[i] >= 3:
                        raise SystemExit(f"oware-ray: error: worker {i} failed 3 times: {first}")
                    continue
                except ray.exceptions.RayError as e:
                    # The actor or its node died: the chunk in flight is lost (never
                    # written); Ray restarts the actor, which is asked the same number
                    # (every 2 s until it answers).
                    if lost_at[i] != n:
                        log(f"worker {i} lost chunk {n} in flight ({type(e).__name__}); "
                            f"Ray restarts it")
                        lost_at[i] = n
                    retry_at[i] = time.time() + 2.0
                    continue
                if lost_at[i] is not None:
                    log(f"worker {i} is back (restarted on node {r['node']})")
                    lost_at[i] = None
                failures[i] = 0
                name = f"ray-s{start:03d}-w{i:02d}-{n:05d}.bin"
                atomic_write(samples / name, r["data"])
                ledger.write(json.dumps({
                    "name": name, "worker": i, "n": n, "games": r["games"],
                    "samples": r["samples"], "seconds": round(r["seconds"], 3),
                    "node": r["node"], "checkpoint": r["checkpoint"],
                    "sha256": hashlib.sha256(r["data"]).hexdigest(), "t": round(time.time(), 3),
                }) + "\n")
                ledger.flush()
                games_since += r["games"] or 0
                chunks_since += 1
                nxt[i] = n + 1
            if time.time() - t_report >= 30:
                dt = time.time() - t_report
                log(f"{chunks_since} chunks, {games_since} games in {dt:.0f}s "
                    f"({games_since / dt:.1f} games/s); newest checkpoint {feed.name}")
                t_report = time.time()
                games_since = chunks_since = 0
    finally:
        ledger.close()
        if learner.poll() is None:
            learner.send_signal(signal.SIGTERM)
        code = learner.wait()
        try:
            ray.get([a.close.remote() for a in actors], timeout=10)
        except Exception:  # noqa: BLE001 - a dead actor's directory stays on its node
            pass
        for a in actors:
            try:
                ray.kill(a)
            except Exception:  # noqa: BLE001 - best effort at shutdown
                pass
        ray.shutdown()
    log(f"learner exited with code {code}")
    return exit_code(code)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "train":
        return train(args)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
