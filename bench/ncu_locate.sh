# Sourced by the scripts that run Nsight Compute (ncu_ntt.sh, ncu_msm_scatter.sh, ncu_pipes.sh, bench_vs_sppark.sh):
# sets ncu_bin to the ncu binary, looked up on PATH, then in /opt/nvidia/nsight-compute and /usr/local/cuda/bin; empty
# when there is none. NCU_MISSING says so; require_ncu, for the scripts that need it, exits 2 with it.
ncu_bin=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)
NCU_MISSING="ncu: not on PATH nor in /opt/nvidia/nsight-compute"

require_ncu() {  # a script that only profiles: no ncu is its usage error; else print the version it runs
  [ -n "$ncu_bin" ] || { echo "error: $NCU_MISSING" >&2; exit 2; }
  "$ncu_bin" --version
}
