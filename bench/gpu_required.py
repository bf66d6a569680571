"""The benchmarks' common first step: a CUDA device, or a one-line error instead of a traceback."""
from __future__ import annotations

import sys


def require_gpu() -> None:
    """Every benchmark in bench/ needs a CUDA device. Without one: 'error: gpu: <why>' on stderr and the exit code of
    `python -m conformance run --require-gpu` in the same case (conformance/__main__.py EXIT_GPU_REQUIRED), not a
    traceback. Called after the arguments are parsed, so that --help and usage errors work anywhere."""
    from gpu.device import GpuUnavailableError, require_device

    try:
        require_device()
    except GpuUnavailableError as exc:
        from conformance.__main__ import EXIT_GPU_REQUIRED  # only here: the CLI module is not needed on a GPU machine

        print(f"error: gpu: {exc}", file=sys.stderr)
        sys.exit(EXIT_GPU_REQUIRED)
