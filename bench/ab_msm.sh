#!/usr/bin/env bash
# bench/ab.sh msm: two trees' MSM and batch-addition benchmarks in one device call (see bench/ab.sh). Kept under this
# name for the commands recorded in bench/RESULTS_*.md.
#   [A_COMMIT=.. B_COMMIT=..] bash bench/ab_msm.sh OUT_DIR TREE_A TREE_B [bench_msm.py options]
exec bash "$(dirname "$0")/ab.sh" msm "$@"
