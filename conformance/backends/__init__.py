"""Backends under test, by the names the command line uses:

    reference       reference/ (pure Python)
    gpu             gpu/ (CuPy, CUDA kernels) on the current device, through the adapters in backends/gpu.py
    gpu:K           the same on CUDA device K (``run --gpus N`` names gpu:0 .. gpu:N-1, one suite per GPU)
    fault:<name>    the reference with one planted fault (conformance/faults.py)
"""
from reference.errors import InvalidInputError

from .base import Backend, PhaseNotImplemented, PhaseRun
from .reference import ReferenceBackend

BACKEND_NAMES = ("reference", "gpu")


def make_backend(name: str) -> Backend:
    """The backend called ``name``; InvalidInputError names an unknown one."""
    if name == "reference":
        return ReferenceBackend()
    if name == "gpu" or name.startswith("gpu:"):
        from .gpu import GpuBackend

        index = name.partition(":")[2]
        if index and not index.isdigit():
            raise InvalidInputError("--backends", f"{name!r}: the GPU is named by its device number, e.g. gpu:0")
        return GpuBackend(int(index) if index else None)
    if name.startswith("fault:"):
        from ..faults import FAULTS, faulty_backend

        try:
            return faulty_backend(name)
        except KeyError:
            raise InvalidInputError("--backends", f"unknown planted fault {name!r}; known: {', '.join('fault:' + f for f in FAULTS)}") from None
    raise InvalidInputError("--backends", f"unknown backend {name!r}; use reference, gpu, gpu:K or fault:<name>")


__all__ = ["Backend", "PhaseNotImplemented", "PhaseRun", "ReferenceBackend", "BACKEND_NAMES", "make_backend"]
