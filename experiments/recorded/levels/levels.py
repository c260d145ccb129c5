#!/usr/bin/env python3
"""The levels of `oware play` and `oware serve` against alpha-beta at fixed depths.

Plays each (level, depth) pairing from random openings of OPENING_PLIES plies, each
opening twice with the colours swapped. The level's moves come from `oware serve`'s
`/api/v1/bestmove` with `"level"` (the app's own search: root noise and temperature at
novice and amateur), alpha-beta's from `oware search --depth D`. Prints one line per
pairing: the level's wins, draws, losses and score.

usage: levels.py OWARE_BINARY PORT GAMES LEVEL:DEPTH...
"""
import json
import random
import subprocess
import sys
import time
import urllib.request

OPENING_PLIES = 4


def post(port, path, body):
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/v1/{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.load(r)


def alphabeta(oware, moves, depth):
    out = subprocess.run(
        [oware, "search", "--moves", moves, "--depth", str(depth), "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    return json.loads(out)["best"]


def game(oware, port, level, depth, level_side, opening):
    moves = ""
    pos = post(port, "position", {"moves": moves})
    for _ in range(OPENING_PLIES):
        if pos["result"] is not None:
            break
        moves += opening.choice(pos["legal"])
        pos = post(port, "position", {"moves": moves})
    while pos["result"] is None:
        if pos["to_move"] == level_side:
            m = post(port, "bestmove", {"moves": moves, "level": level})["move"]
        else:
            m = alphabeta(oware, moves, depth)
        moves += m
        pos = post(port, "position", {"moves": moves})
    w = pos["result"]["winner"]
    return 0.5 if w == "draw" else (1.0 if w == level_side else 0.0)


def main():
    oware, port, games = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    server = subprocess.Popen(
        [oware, "serve", "--port", str(port), "--puzzles", "1", "--seed", "7"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                post(port, "position", {"moves": ""})
                break
            except OSError:
                time.sleep(0.2)
        for pairing in sys.argv[4:]:
            level, depth = pairing.split(":")
            depth = int(depth)
            t0 = time.time()
            w = d = l = 0
            for k in range(games):
                # Opening k // 2, played with the level as South, then as North.
                opening = random.Random(1000 * depth + k // 2)
                s = game(oware, port, level, depth, "S" if k % 2 == 0 else "N", opening)
                w, d, l = w + (s == 1.0), d + (s == 0.5), l + (s == 0.0)
            score = (w + d / 2) / games
            print(f"{level} vs alphabeta:depth={depth}: +{w} ={d} -{l} of {games}, "
                  f"score {score:.3f} ({time.time() - t0:.0f} s)", flush=True)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
