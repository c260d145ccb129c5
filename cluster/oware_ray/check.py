"""Checks a run directory written by `oware-ray train`: every chunk it recorded
(RUN/ray/chunks.jsonl) was taken by the learner or still waits in RUN/samples (else
it is lost), no name or content was written twice (else duplicated), every chunk in the
replay window is whole (magic, sample count, checksum) and the one recorded, and the
metrics rows run 1..N.

Usage: python -m oware_ray.check RUN  (prints a JSON summary; exit 1 on any fault)
"""

import hashlib
import json
import struct
import sys
from pathlib import Path


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def chunk_fault(data):
    """None when `data` is a whole sample chunk (src/train/samples.rs), else why not."""
    if len(data) < 17 or data[:4] != b"OWZS":
        return "not a sample chunk"
    k = data[8]
    at = 9 + k
    if len(data) < at + 4 + 8:
        return "truncated"
    (count,) = struct.unpack_from("<I", data, at)
    if len(data) != at + 4 + 52 * count + 8:
        return f"{count} samples announced, {len(data)} bytes"
    (sum_,) = struct.unpack_from("<Q", data, len(data) - 8)
    # Checksumming a whole chunk byte by byte in Python is slow; the header and length
    # checks above catch truncation, and the checksum catches the rest.
    if fnv1a64(data[:-8]) != sum_:
        return "checksum mismatch"
    return None


def check(run):
    run = Path(run)
    state = json.loads((run / "state.json").read_text())
    ledger = [json.loads(line) for line in (run / "ray" / "chunks.jsonl").read_text().splitlines()
              if line.strip()]
    consumed = set(state["consumed"])
    window = state["window"]
    faults = []
    names = [r["name"] for r in ledger]
    shas = [r["sha256"] for r in ledger]
    duplicated = (len(names) - len(set(names))) + (len(shas) - len(set(shas)))
    duplicated += len(window) - len(set(window))
    lost = [n for n in names if n not in consumed and not (run / "samples" / n).exists()]
    by_name = {r["name"]: r for r in ledger}
    window_shas = []
    for n in window:
        p = run / "samples" / n
        if not p.exists():
            faults.append(f"{n}: in the window but not on disk")
            continue
        data = p.read_bytes()
        why = chunk_fault(data)
        if why:
            faults.append(f"{n}: {why}")
        sha = hashlib.sha256(data).hexdigest()
        window_shas.append(sha)
        if n in by_name and by_name[n]["sha256"] != sha:
            faults.append(f"{n}: differs from the chunk written")
    duplicated += len(window_shas) - len(set(window_shas))
    rows = [int(r.split(",")[0]) for r in (run / "metrics.csv").read_text().splitlines()[1:]]
    if rows != list(range(1, state["iteration"] + 1)):
        faults.append(f"metrics rows are not 1..{state['iteration']}")
    return {
        "iteration": state["iteration"],
        "chunks_written": len(ledger),
        "window": len(window),
        "window_ray_chunks": sum(1 for n in window if n.startswith("ray-")),
        "chunks_lost": len(lost),
        "lost": lost[:10],
        "chunks_duplicated": duplicated,
        "faults": faults,
    }


def main():
    if len(sys.argv) != 2:
        print("usage: python -m oware_ray.check RUN", file=sys.stderr)
        return 2
    r = check(sys.argv[1])
    print(json.dumps(r))
    return 1 if (r["chunks_lost"] or r["chunks_duplicated"] or r["faults"]) else 0


if __name__ == "__main__":
    raise SystemExit(main())
