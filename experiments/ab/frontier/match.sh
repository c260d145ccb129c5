#!/usr/bin/env bash
# The frontier A/B's decision matches (README.md beside this file): each arm's final
# network, from its committed capsule, against the long run's network it started from and
# against each other arm, 400 games at 64 simulations a move, paired 6-ply openings, seed 7
# (experiments/ab/match.sh, which serves every side-by-side A/B, in this A/B's arm order).
#   experiments/ab/frontier/match.sh [OWARE]
# From the repository's root; OWARE is a release binary (default target/release/oware).
# Writes matches/A-vs-B.json (A's view) and prints one line a match.
set -euo pipefail
cd "$(dirname "$0")/../../.."
ARMS="continue search blocks2" exec experiments/ab/match.sh experiments/ab/frontier "$@"
