#!/usr/bin/env python3
"""The heaviest crates of `cargo build --timings` reports (HTML, or gzipped HTML).

    python3 timings.py REPORT.html[.gz] ... [--top N]

For each report: the wall time, the number of units, the sum of the units' durations
(above the wall time where two units compiled at once), and the N crates (default 25)
whose units took longest, summed over each crate's units.
"""

import gzip
import json
import re
import sys
from collections import defaultdict


def main(args):
    top = 25
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i : i + 2]
    for path in args:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            html = f.read()
        units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S).group(1))
        total = re.search(r"<td>Total time:</td><td>([^<]*)</td>", html).group(1)
        per = defaultdict(float)
        for u in units:
            per[f"{u['name']} {u['version']}"] += u["duration"]
        print(f"== {path}: {total}, {len(units)} units, unit durations {sum(per.values()):.0f} s")
        for name, secs in sorted(per.items(), key=lambda kv: -kv[1])[:top]:
            print(f"   {secs:6.1f} s  {name}")


if __name__ == "__main__":
    main(sys.argv[1:])
