#!/usr/bin/env bash
# Nsight Compute counters of msm_digits and msm_scatter in msm_h at 2^24 and 2^27 (one timed call each): time, L2
# requests by kind (atomics that return a value, reductions that do not, reads, writes), DRAM bytes, throughput as % of
# peak, and the warp stalls that say why (bench/RESULTS_msm.md, "What bounds msm_scatter"). On the device machine,
# after the wheel prelude:  bash bench/ncu_msm_scatter.sh "$OUT"   (44 s on the H200, 2026-12-04; 32 s on 2026-12-06)
# -> ncu-scatter-2p24.csv, ncu-scatter-2p27.csv (kernel_times' table, then ncu's raw CSV page). msm_scatter runs a
# launch a slice of the magnitudes (gpu/msm.py _Plan.scatter_slices: 4 at c = 20): a row each; sum them.
usage="usage: ncu_msm_scatter.sh OUT_DIR"
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
out=$1
source "$(dirname "$0")/ncu_common.sh"  # ncu_bin, require_folder, require_ncu, require_profiled
require_folder "$out" "$usage"
require_ncu
status=0
metrics=gpu__time_duration.sum,lts__t_sectors_op_atom.sum,lts__t_sectors_op_red.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_requests_op_atom.sum,lts__t_requests_op_red.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_drain_per_warp_active.pct,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct
for n in 24 27; do
  timeout 200 "$ncu_bin" --clock-control none --cache-control none --metrics "$metrics" --kernel-name regex:"msm_digits|msm_scatter" \
    --nvtx --nvtx-include "kernel_times/" --csv --page raw \
    python3 bench/kernel_times.py --log2 $n --repeats 1 --phases msm_h --nvtx > "$out/ncu-scatter-2p$n.csv" 2> "$out/ncu-scatter-2p$n.log"
  rc=$?; echo "2^$n rc=$rc"; [ $rc -eq 0 ] || status=$rc
  require_profiled "2^$n" "$out/ncu-scatter-2p$n.csv" "msm_digits|msm_scatter" || status=1  # ncu exits 0 on no launch
done
exit $status  # a failed, timed-out or empty profile is the script's failure
