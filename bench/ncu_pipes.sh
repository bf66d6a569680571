#!/usr/bin/env bash
# Nsight Compute's per-pipe counters of the two phases that take most of a 2^27 proof: the NTT passes (ntt_h at 2^27,
# its first two transforms, three passes each) and the MSM's bucket additions (msm_piece_sum_g1 in msm_h at 2^MSM_LOG2),
# and of G2's bucket additions (msm_piece_sum_g2, bench_msm's G2 MSM at 2^22: issue 18's G2 row).
# For every pipe the chip counts: the cycles it was busy as % of its peak while the SM was active, and the warp
# instructions it executed; the measured counterpart of the "multiply-add pipe bound" model (bench/RESULTS_ntt.md,
# RESULTS_msm.md). On the device machine, after the wheel prelude:
#   bash bench/ncu_pipes.sh "$OUT" [MSM_LOG2, 16..27, default 24]
# -> ncu-pipes-metrics.txt (the pipe counters `ncu --query-metrics` lists here), ncu-pipes-ntt-2p27.csv,
#    ncu-pipes-msm-2p<MSM_LOG2>.csv and ncu-pipes-msm-g2-2p22.csv (ncu's raw page), their summaries .md / .json
#    (bench/ncu_pipes_summary.py) and .log
usage="usage: ncu_pipes.sh OUT_DIR [MSM_LOG2, 16..27, default 24]"
source "$(dirname "$0")/ncu_common.sh"  # ncu_bin, out_and_size, require_profiled
out_and_size "$usage" MSM_LOG2 24 16 27 "$@"
msm_log2=$size
# The chip's own list, so that no counter it lacks is asked for (ncu would refuse the whole run).
"$ncu_bin" --query-metrics > "$out/ncu-pipes-metrics-all.txt" 2>&1
grep -oE '^sm__(pipe_[a-z0-9_]+_cycles_active|inst_executed_pipe_[a-z0-9_]+)\b' "$out/ncu-pipes-metrics-all.txt" |
  sort -u > "$out/ncu-pipes-metrics.txt"
rm -f "$out/ncu-pipes-metrics-all.txt"
[ -s "$out/ncu-pipes-metrics.txt" ] || { echo "error: ncu --query-metrics: no sm__pipe_* counters" >&2; exit 1; }
echo "$(wc -l < "$out/ncu-pipes-metrics.txt") pipe counters"
metrics="gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg"
while read -r name; do
  case $name in
    sm__pipe_*) metrics="$metrics,$name.avg.pct_of_peak_sustained_active" ;;
    *) metrics="$metrics,$name.sum" ;;
  esac
done < "$out/ncu-pipes-metrics.txt"
# If the listed set is refused, these few (Hopper's names in the Profiling Guide) are asked for instead.
fallback="gpu__time_duration.sum,smsp__inst_executed.sum"
for pipe in alu fma fmaheavy lsu; do
  fallback="$fallback,sm__pipe_${pipe}_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_$pipe.sum"
done
status=0
profile() {  # name, kernel regex, launches, then the command that launches it (the first launches are profiled)
  local name=$1 kernels=$2 launches=$3 csv="$out/ncu-pipes-$1.csv" rc set
  shift 3
  for set in "$metrics" "$fallback"; do
    timeout 240 "$ncu_bin" --clock-control none --cache-control none --metrics "$set" --kernel-name regex:"$kernels" \
      --launch-count "$launches" --csv --page raw "$@" > "$csv" 2>> "$out/ncu-pipes-$name.log"
    rc=$?; echo "$name rc=$rc"
    if [ $rc -eq 0 ] || [ $rc -eq 124 ] || [ "$set" = "$fallback" ]; then break; fi
    echo "$name: refused; trying the fallback counters"
  done
  [ $rc -eq 0 ] || status=$rc
  require_profiled "$name" "$csv" "$kernels" || status=1  # ncu exits 0 when no launch matched
  python3 bench/ncu_pipes_summary.py "$csv" --md "$out/ncu-pipes-$name.md" --json "$out/ncu-pipes-$name.json" || status=1
}
in_range=(--nvtx --nvtx-include "kernel_times/")  # kernel_times.py's timed call of one phase, in its NVTX range
profile ntt-2p27 "ntt_pass" 6 "${in_range[@]}" \
  python3 bench/kernel_times.py --log2 27 --repeats 1 --phases ntt_h --nvtx
profile "msm-2p$msm_log2" "msm_piece_sum_g1" 1 "${in_range[@]}" \
  python3 bench/kernel_times.py --log2 "$msm_log2" --repeats 1 --phases msm_h --nvtx
# bench_msm's first G2 MSM (its warm-up call: the modules are built before it launches)
profile msm-g2-2p22 "msm_piece_sum_g2" 1 python3 bench/bench_msm.py --msm-sizes --g2-sizes 22 --batch-sizes --repeats 1
exit $status  # a failed, timed-out or empty profile is the script's failure
