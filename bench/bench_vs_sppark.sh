#!/usr/bin/env bash
# Ours against sppark in ONE device call: the ratio table of issue 18 (bench/sppark_ratio.py), with date, GPU,
# driver and commit, plus (--kernels) the per-kernel breakdown of msm_h and ntt_h (bench/kernel_times.py).
#
# Usage on the device machine, after the wheel prelude (docs/PERFORMANCE.md):
#   BENCH_COMMIT=<hash> bash bench/bench_vs_sppark.sh OUT_DIR [--budget-s 200] [--no-g1-26] [--kernels] [--ncu]
# OUT_DIR receives bench_vs_sppark.tgz (every log, JSON and table) and ratio.md (also printed last). The commit
# recorded is $BENCH_COMMIT, else git's HEAD (+dirty) where the tree has its history (conformance/timing.py).
#
# Steps, in this order (expected on an H200, warm machine, cold NVRTC cache; the step times land in steps.log):
#   compile  bench_msm.py --compile-only: the G1/G2 MSM and batch-add modules, NVRTC in parallel (cold start) ~25 s
#   sppark   the anchor's ./bench --no-host --reps 5 (G1 2^20..2^26, G2 2^20, 2^24, NTT 2^20..2^27, verified):
#            the binary is built on the CPU machine into bench/.sppark/ (git-ignored, carried); built here when
#            it is missing or does not run (about 80 s)                                                  ~40 s
#   msm      bench_msm.py: G1 MSM 2^20, 2^24, 2^26 and G2 MSM 2^24, median of 5, within what the budget leaves ~25 s
#   ntt      bench_ntt.py --sizes 24,27 --batch 1: the four transforms and ntt_h, ceilings first (compiles) ~35 s
#   kernels  (--kernels) kernel_times.py --log2 24: CUDA events around every launch of msm_h and ntt_h     ~15 s
#   ncu      (--ncu) each phase under Nsight Compute: every kernel's time, SM and memory % of peak   ~2 x 30 s?
#   table    sppark_ratio.py: ratio.md and ratio.json
# Expected: about 3.5 min with --kernels --ncu (estimates, not yet measured as one call: the compile step from nvcc
# on the CPU machine, msm.cu G1 11 s and G2 19 s on 2 shared cores; the rest from earlier runs' figures). --budget-s
# bounds the whole: the MSM section stops at its budget, --kernels and --ncu are skipped or cut when it is spent;
# bench_ntt (~30 s) always runs. Add the machine's start and the wheel install (device time, outside the script).
set -uo pipefail
usage="usage: bench_vs_sppark.sh OUT_DIR [--budget-s S] [--no-g1-26] [--kernels] [--ncu]"
[ $# -ge 1 ] && [ "${1#-}" = "$1" ] || { echo "$usage" >&2; exit 2; }
out=$1
shift
budget=200 g1_sizes="20 24 26" kernels=0 ncu=0
while [ $# -gt 0 ]; do
  case $1 in
    --budget-s) [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "--budget-s needs whole seconds; $usage" >&2; exit 2; }
                budget=$2; shift ;;
    --no-g1-26) g1_sizes="20 24" ;;
    --kernels) kernels=1 ;;
    --ncu) ncu=1 ;;
    *) echo "unknown option $1; $usage" >&2; exit 2 ;;
  esac
  shift
done
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
mkdir -p "$out"
work=$(mktemp -d)
start=$(date +%s)
left() { echo $(( budget - ($(date +%s) - start) )); }
step() {  # the archive is renewed at every step, so that a call stopped at its limit still brings back the logs
  tar czf "$out/bench_vs_sppark.tgz" -C "$work" . 2>/dev/null
  echo "[$(( $(date +%s) - start )) s] $*" | tee -a "$work/steps.log"
}
status=0

step "environment"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem,pstate --format=csv > "$work/nvidia-smi.csv" 2>&1
python3 -c "import json; from conformance.timing import environment; print(json.dumps(environment(with_gpu=True), indent=1))" \
  > "$work/env.json" 2> "$work/env.err" || status=1

step "compile (cold NVRTC: MSM and batch-add modules)"
t0=$(date +%s)
python3 bench/bench_msm.py --compile-only > "$work/compile.log" 2>&1 || status=1
compile_s=$(( $(date +%s) - t0 ))

step "sppark"
sp=bench/.sppark
run_sppark() { (cd "$sp" && timeout 180 ./bench --no-host --reps 5) > "$work/sppark.log" 2> "$work/sppark.err"; }
if [ -x "$sp/bench" ]; then run_sppark; rc=$?; else rc=127; fi
# rebuild only when the carried binary cannot run here: missing (127), not executable (126), illegal instruction
# (132: built with ADX for a CPU without it), or a system library the loader cannot find
if { [ $rc -eq 126 ] || [ $rc -eq 127 ] || [ $rc -eq 132 ] || grep -q "error while loading shared libraries\|GLIBC" "$work/sppark.err" 2>/dev/null; } \
   && [ -x "$sp/build.sh" ]; then
  step "sppark: binary missing or not runnable here (rc $rc): building it here"
  (cd "$sp" && ./build.sh) > "$work/sppark-build.log" 2>&1 && { run_sppark; rc=$?; }
fi
[ $rc -eq 0 ] || { echo "sppark exit code $rc" >> "$work/steps.log"; status=1; }
grep -E '^sppark ' "$work/sppark.log" | grep -v '#'

step "msm (budget left $(left) s)"
python3 bench/bench_msm.py --msm-sizes $g1_sizes --g2-sizes 24 --batch-sizes --repeats 5 \
  --budget-s $(( $(left) > 60 ? $(left) - 45 : 15 )) --json "$work/msm.json" > "$work/msm.log" 2>&1 || status=1
tail -8 "$work/msm.log"

step "ntt (budget left $(left) s)"
python3 bench/bench_ntt.py "$work/ntt.md" --sizes 24,27 --batch 1 --repeats 5 --json "$work/ntt.json" \
  > "$work/ntt.log" 2>&1 || status=1

if [ $kernels -eq 1 ] && [ "$(left)" -lt 10 ]; then step "kernels skipped: budget spent"; kernels=0; fi
if [ $ncu -eq 1 ] && [ "$(left)" -lt 30 ]; then step "ncu skipped: less than 30 s of budget left"; ncu=0; fi
if [ $kernels -eq 1 ]; then
  step "kernels (budget left $(left) s)"
  python3 bench/kernel_times.py --log2 24 --json "$work/kernels.json" --md "$work/kernels.md" \
    > "$work/kernels.log" 2>&1 || status=1
fi
source "$(dirname "$0")/ncu_common.sh"  # ncu_bin, NCU_MISSING
if [ $ncu -eq 1 ] && [ -z "$ncu_bin" ]; then step "ncu skipped: $NCU_MISSING"; ncu=0; fi
if [ $ncu -eq 1 ]; then
  "$ncu_bin" --version > "$work/ncu.log" 2>&1
  ncu_metrics=$(python3 -c "import sys; sys.path.insert(0, 'bench'); import kernel_times as k; print(','.join(k.NCU_METRICS))")
  for phase in msm_h ntt_h; do  # one profiled process a phase, so that each table is one phase's kernels
    step "ncu $phase (budget left $(left) s)"
    [ "$(left)" -ge 15 ] || { echo "ncu $phase skipped: budget spent" >> "$work/steps.log"; continue; }
    timeout "$(left)" "$ncu_bin" --clock-control none --cache-control none --metrics "$ncu_metrics" \
      --nvtx --nvtx-include "kernel_times/" --export "$work/ncu-$phase" --force-overwrite \
      python3 bench/kernel_times.py --log2 24 --repeats 1 --phases $phase --nvtx >> "$work/ncu.log" 2>&1 || status=1
    "$ncu_bin" --import "$work/ncu-$phase.ncu-rep" --csv --page raw > "$work/ncu-$phase.csv" 2>> "$work/ncu.log" &&
      python3 bench/kernel_times.py --ncu-csv "$work/ncu-$phase.csv" --title "$phase at 2^24" \
        --md "$work/ncu-$phase.md" --json "$work/ncu-$phase.json" >> "$work/ncu.log" 2>&1 || status=1
  done
fi

step "table"
notes=()  # every skipped step and non-zero exit, from steps.log, as a header line of the table
while IFS= read -r line; do notes+=(--note "$line"); done < <(grep -E "skipped|exit code" "$work/steps.log" | sed 's/^\[[0-9]* s\] //')
python3 bench/sppark_ratio.py "${notes[@]}" --sppark "$work/sppark.log" --msm "$work/msm.json" --ntt "$work/ntt.json" \
  --env "$work/env.json" --note "cold NVRTC compile of the MSM and batch-add modules (4, in parallel): ${compile_s} s" \
  --note "whole call: $(( $(date +%s) - start )) s of a ${budget} s budget; exit status so far ${status}" \
  --md "$work/ratio.md" --json "$work/ratio.json" > /dev/null || status=1
for part in kernels.md ncu-msm_h.md ncu-ntt_h.md; do
  [ -f "$work/$part" ] && { echo; echo "## Per-kernel time ($part)"; echo; cat "$work/$part"; } >> "$work/ratio.md"
done
step "done (exit status $status)"
cp "$work/ratio.md" "$out/ratio.md" 2>/dev/null
tar czf "$out/bench_vs_sppark.tgz" -C "$work" .
cat "$out/ratio.md" 2>/dev/null
exit $status
