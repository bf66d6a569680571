"""Every GPU benchmark in bench/ refuses to run without a CUDA device in one line (bench/gpu_required.py), after
its arguments are checked: no traceback. Skipped where a device is usable (the tools then run)."""
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.__main__ import EXIT_GPU_REQUIRED
from gpu.device import GpuUnavailableError, require_device

ROOT = Path(__file__).resolve().parents[1]
TOOLS = [["probe_pipes.py"], ["probe_batched_affine.py"], ["probe_affine_pieces.py"], ["probe_prep.py", "--log2", "12"],
         ["bench_msm.py", "--compile-only"], ["bench_ntt.py", "table.md"], ["bench_prove.py", "--log-n", "10"],
         ["kernel_times.py", "--log2", "10"], ["bench_staging.py", "--out", "staging", "--log-n", "10"]]


def _device_usable() -> bool:
    try:
        require_device()
    except GpuUnavailableError:
        return False
    return True


@pytest.mark.skipif(_device_usable(), reason="a CUDA device is usable here: the tools would run")
@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool[0])
def test_a_gpu_benchmark_without_a_device_says_so_in_one_line(tmp_path, tool):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / tool[0]), *tool[1:]], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == EXIT_GPU_REQUIRED
    assert done.stderr.startswith("error: gpu: the GPU phases need a CUDA device") and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stdout + done.stderr


def test_a_usage_error_comes_before_the_device_check():
    """--help and bad arguments work on a machine without a GPU (the device is checked after them)."""
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "probe_pipes.py"), "--iterations", "0"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--iterations must be in 1 .. 2^31 - 1" in done.stderr


def test_bench_prove_refuses_check_with_devices_before_the_device_check():
    """--devices times multi-GPU throughput and runs no check: --check with it would print no check and exit 0."""
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_prove.py"), "--devices", "0,0", "--check"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--check and --key-transfer are for the single-device run" in done.stderr
