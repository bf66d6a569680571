#!/usr/bin/env bash
# Nsight Compute sections of the NTT passes at 2^27 (ntt_h's first two transforms: INTT(a) with g^i / n fused, then
# the coset NTT; three passes each): Speed Of Light, the pipes' utilization, warp stalls, occupancy, memory and
# shared-memory traffic, issue statistics. What bounds the transform that issue 18 asks to make a quarter faster
# (bench/RESULTS_ntt.md, "What bounds the NTT passes"). On the device machine, after the wheel prelude:
#   bash bench/ncu_ntt.sh "$OUT" [log2, default 27]
# -> ncu-ntt-2p<log2>.csv (ncu's details page, every section's metrics a launch, and its rules' diagnoses),
#    ncu-ntt-stalls-2p<log2>.csv (raw page: each warp-stall reason as % of active warps' cycles), and their .log;
#    ncu-ntt-source-2p<log2>-<k>.csv (source page of INTT(a)'s pass k: every SASS instruction's warp-stall samples,
#    by reason, and executions) and their summary ncu-ntt-source-2p<log2>.md / .json (bench/ncu_source_summary.py:
#    the kernel body against its out-of-line products)
usage="usage: ncu_ntt.sh OUT_DIR [LOG2, 10..28, default 27]"
source "$(dirname "$0")/ncu_common.sh"  # ncu_bin, out_and_size, require_profiled
out_and_size "$usage" LOG2 27 10 28 "$@"
log2=$size
sections="--section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy"
sections="$sections --section MemoryWorkloadAnalysis --section LaunchStats --section InstructionStats --section SchedulerStats"
# shellcheck disable=SC2086  # $sections is a list of options
timeout 400 "$ncu_bin" --clock-control none --cache-control none $sections --kernel-name regex:"ntt_pass" \
  --launch-count 6 --nvtx --nvtx-include "kernel_times/" --csv --page details \
  python3 bench/kernel_times.py --log2 "$log2" --repeats 1 --phases ntt_h --nvtx \
  > "$out/ncu-ntt-2p$log2.csv" 2> "$out/ncu-ntt-2p$log2.log"
rc=$?; echo "2^$log2 rc=$rc"; status=$rc
require_profiled "2^$log2" "$out/ncu-ntt-2p$log2.csv" ntt_pass || status=1  # ncu exits 0 when no launch matched
stalls=""
for reason in barrier short_scoreboard long_scoreboard wait math_pipe_throttle mio_throttle lg_throttle not_selected \
              selected dispatch_stall no_instruction branch_resolving drain; do
  stalls="$stalls,smsp__warp_issue_stalled_${reason}_per_warp_active.pct"
done
timeout 300 "$ncu_bin" --clock-control none --cache-control none --metrics "gpu__time_duration.sum$stalls" \
  --kernel-name regex:"ntt_pass" --launch-count 6 --nvtx --nvtx-include "kernel_times/" --csv --page raw \
  python3 bench/kernel_times.py --log2 "$log2" --repeats 1 --phases ntt_h --nvtx \
  > "$out/ncu-ntt-stalls-2p$log2.csv" 2> "$out/ncu-ntt-stalls-2p$log2.log"
rc=$?; echo "stalls 2^$log2 rc=$rc"
[ $rc -eq 0 ] || status=$rc
require_profiled "stalls 2^$log2" "$out/ncu-ntt-stalls-2p$log2.csv" ntt_pass || status=1
report="$out/ncu-ntt-source-2p$log2"
timeout 300 "$ncu_bin" --clock-control none --cache-control none --section WarpStateStats --section SourceCounters \
  --kernel-name regex:"ntt_pass" --launch-count 3 --nvtx --nvtx-include "kernel_times/" --import-source no -o "$report" -f \
  python3 bench/kernel_times.py --log2 "$log2" --repeats 1 --phases ntt_h --nvtx > "$report.log" 2>&1
rc=$?; echo "source 2^$log2 rc=$rc"; [ $rc -eq 0 ] || status=$rc
sources=()
for k in 0 1 2; do  # INTT(a)'s passes: 0 and 1 grouped, 2 the last
  "$ncu_bin" -i "$report.ncu-rep" --page source --csv --print-source sass --launch-skip $k --launch-count 1 \
    > "$report-$k.csv" 2>> "$report.log" || status=1
  sources+=("$report-$k.csv")
done
python3 bench/ncu_source_summary.py "${sources[@]}" --label "pass 0" --label "pass 1" --label "last pass" \
  --md "$report.md" --json "$report.json" > /dev/null || status=1
rm -f "$report.ncu-rep"  # 5 MB; the CSVs hold what the summary reads
exit $status  # a failed, timed-out or empty profile is the script's failure
