# Sourced by the scripts that run Nsight Compute (ncu_ntt.sh, ncu_msm_scatter.sh, bench_vs_sppark.sh): sets ncu_bin
# to the ncu binary, looked up on PATH, then in /opt/nvidia/nsight-compute and /usr/local/cuda/bin; empty when there
# is none (each script then says so its own way).
ncu_bin=$(command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | tail -1)
