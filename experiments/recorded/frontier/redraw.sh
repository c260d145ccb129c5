#!/usr/bin/env bash
# Redraws frontier.png with every A/B arm of issue 56 on it (README.md beside this file):
# the three continuations of ../../ab/frontier/ (chained through the long run's network,
# a 0.15 share of the machine each) and the two from-scratch arms of ../../ab/size/
# (evaluated against v1 directly; their hours from the CPU seconds at the end of each leg,
# the legs table of ../../ab/size/README.md); and the second long run (../long-1206/,
# chained through v3 like the first three, at 6.8 s an iteration, its idle rate in leg 2,
# with its own 1 000-game matches against v1); and the two arms of ../../ab/size-long/,
# measured from the second long run's final network (base=) at their CPU seconds, with
# their decision matches against it and their final networks' matches against v1); and the
# two arms of ../../ab/reuse/, continued from the third cycle's final network (base=, their
# hours from its) and evaluated against the second long run's (ref=, their Elo from its).
# From the repository's root:
#   PY=/work/venv-plot/bin/python experiments/recorded/frontier/redraw.sh
# PY is a Python with matplotlib (default python3).
set -euo pipefail
cd "$(dirname "$0")/../../.."
py=${PY:-python3}
A=experiments/ab/frontier
S=experiments/ab/size
L=experiments/ab/size-long
R=experiments/ab/reuse
M=experiments/recorded/frontier/matches
REUSE4_LEGS=19.3:1132/81.7:4396/240.2:13752
REUSE8_LEGS=19.5:1133/82.0:4452/240.3:13809
"$py" experiments/recorded/frontier/build.py
"$py" experiments/recorded/frontier/frontier.py \
  --add-run continue=$A/continue/capsule,share=0.15,final=$A/matches/continue-vs-long-3000.json \
  --add-run search=$A/search/capsule,share=0.15,final=$A/matches/search-vs-long-3000.json \
  --add-run blocks2=$A/blocks2/capsule,share=0.15,final=$A/matches/blocks2-vs-long-3000.json \
  --add-run "size-blocks1=$S/blocks1/capsule,from=scratch,legs=153.3:3052/168.1:3925/331.8:7475/360.3:8324,final=$M/size-blocks1-vs-v1.json,label=size A/B blocks1: from scratch in 360 min at nice 19 (2026-12-06)" \
  --add-run "size-blocks2=$S/blocks2/capsule,from=scratch,legs=153.4:3182/168.1:4090/331.9:7822/360.2:8720,final=$M/size-blocks2-vs-v1.json,label=size A/B blocks2: from scratch in 360 min at nice 19 (2026-12-06)" \
  --add-run "long-1206=experiments/recorded/long-1206/long/capsule,idle_s=6.8,every=100,measured=$M/long-1206-*-vs-v1.json,label=long-1206: v3 continued on a cosine from 0.0005 over 3 000 iterations (2026-12-06/07)" \
  --add-run "size-long-cycle3=$L/cycle3/capsule,base=long-1206:3000,legs=45.2:1368/200.2:6125/212.8:6883/360.3:15561,final=$L/matches/cycle3-vs-long1206-3000.json,measured=$M/size-long-cycle3-*-vs-v1.json,label=size-long A/B cycle3: long-1206 on a third cosine in 360 min at nice 19 (2026-12-07)" \
  --add-run "size-long-blocks2=$L/blocks2/capsule,base=long-1206:3000,legs=45.2:1462/199.8:6381/212.7:7153/360.2:16003,final=$L/matches/blocks2-vs-long1206-3000.json,measured=$M/size-long-blocks2-*-vs-v1.json,label=size-long A/B blocks2: 2 x 256 distilled from long-1206 in 360 min at nice 19 (2026-12-07)" \
  --add-run "reuse4=$R/reuse4/capsule,base=size-long-cycle3:910,ref=long-1206:3000,legs=$REUSE4_LEGS,final=$R/matches/reuse4-vs-long1206-3000.json,measured=$M/reuse-reuse4-*-vs-v1.json,label=reuse A/B reuse4: size-long-cycle3 on a fourth cosine with each sample drawn 4 times in 240 min on one CPU (2026-12-07/08)" \
  --add-run "reuse8=$R/reuse8/capsule,base=size-long-cycle3:910,ref=long-1206:3000,legs=$REUSE8_LEGS,final=$R/matches/reuse8-vs-long1206-3000.json,measured=$M/reuse-reuse8-*-vs-v1.json,label=reuse A/B reuse8: the same with each sample drawn 8 times (2026-12-07/08)" \
  --machine "Intel Xeon, AVX-512"
