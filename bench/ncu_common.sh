# Sourced by the scripts that run Nsight Compute (ncu_ntt.sh, ncu_msm_scatter.sh, ncu_pipes.sh, ncu_batch_add.sh, bench_vs_sppark.sh):
# what they share (require_profiled: the check that ncu profiled the kernels at all). ncu_bin: the ncu binary, looked up on PATH, then in /opt/nvidia/nsight-compute and
# /usr/local/cuda/bin; empty when there is none, which NCU_MISSING says. The checks below end a script with one line on
# stderr and exit 2 (a usage error), before any device time is spent.
ncu_bin=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)
NCU_MISSING="ncu: not on PATH nor in /opt/nvidia/nsight-compute"

require_ncu() {  # a script that only profiles: no ncu is its usage error; else print the version it runs
  [ -n "$ncu_bin" ] || { echo "error: $NCU_MISSING" >&2; exit 2; }
  "$ncu_bin" --version
}

require_profiled() {  # NAME CSV KERNELS: ncu exits 0 when no launch matched its --kernel-name, so a profile whose
  # CSV names none of KERNELS (an extended regex) is a failure too: prints how many lines name them, returns 1 on none
  local lines
  lines=$(grep -cE "$3" "$2" 2>/dev/null)
  echo "$1: ${lines:-0} line(s) naming $3"
  [ "${lines:-0}" -gt 0 ] || { echo "error: $1: no $3 launch profiled ($2)" >&2; return 1; }
}

require_folder() {  # OUT_DIR USAGE: the output folder exists
  [ -d "$1" ] || { echo "error: OUT_DIR: '$1' is not a folder; $2" >&2; exit 2; }
}

require_int_in() {  # NAME VALUE LOW HIGH USAGE: VALUE is an integer in LOW..HIGH
  [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -ge "$3" ] && [ "$2" -le "$4" ] ||
    { echo "error: $1: '$2' is not an integer in $3..$4; $5" >&2; exit 2; }
}

out_and_size() {  # USAGE NAME DEFAULT LOW HIGH ARG...: the arguments OUT_DIR [NAME]; sets out and size, both checked,
  # then ncu found (the form of ncu_ntt.sh and ncu_pipes.sh)
  local usage=$1 name=$2 default=$3 low=$4 high=$5
  shift 5
  [ $# -ge 1 ] && [ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
  out=$1
  size=${2:-$default}
  require_folder "$out" "$usage"
  require_int_in "$name" "$size" "$low" "$high" "$usage"
  require_ncu
}
