#!/usr/bin/env bash
# Why a batch addition costs more an addition than the MSM's bucket additions (the same madd-2008-s loop into an XYZZ
# running sum): Nsight Compute's sections for batch_add_chunks_g1 at 2^27 bases, density 1/2, one row (bench_msm's
# batch rows' first two launches: the sum T of all bases and then the row when the random row has more than half of its
# bits set, else the row twice; the grid in the CSV tells which) and for msm_piece_sum_g1 in msm_h at 2^24
# (kernel_times.py, as ncu_pipes.sh). On the device machine, after the wheel prelude:
#   bash bench/ncu_batch_add.sh "$OUT"
# -> ncu-batch-add-2p27.csv, ncu-piece-sum-2p24.csv (ncu's details page, every section below), and their .log
usage="usage: ncu_batch_add.sh OUT_DIR"
source "$(dirname "$0")/ncu_common.sh"  # ncu_bin, require_folder, require_ncu, require_profiled
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
out=$1
require_folder "$out" "$usage"
require_ncu
sections=()
for s in SpeedOfLight ComputeWorkloadAnalysis MemoryWorkloadAnalysis Occupancy SchedulerStats WarpStateStats LaunchStats; do
  sections+=(--section "$s")
done
status=0
profile() {  # name, kernel regex, launches, then the command that launches it (the first launches are profiled)
  local name=$1 kernels=$2 launches=$3
  shift 3
  timeout 240 "$ncu_bin" --clock-control none "${sections[@]}" --kernel-name regex:"$kernels" \
    --launch-count "$launches" --csv --page details "$@" > "$out/ncu-$name.csv" 2>> "$out/ncu-$name.log"
  local rc=$?
  echo "$name rc=$rc"
  [ $rc -eq 0 ] || status=$rc
  require_profiled "$name" "$out/ncu-$name.csv" "$kernels" || status=1  # ncu exits 0 when no launch matched
}
profile batch-add-2p27 "batch_add_chunks_g1" 2 \
  python3 bench/bench_msm.py --msm-sizes --g2-sizes --batch-sizes 27 --repeats 1 --budget-s 60
profile piece-sum-2p24 "msm_piece_sum_g1" 1 --nvtx --nvtx-include "kernel_times/" \
  python3 bench/kernel_times.py --log2 24 --repeats 1 --phases msm_h --nvtx
exit $status
