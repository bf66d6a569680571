"""Backends under test, by the names the command line uses:

    reference       reference/ (pure Python)
    gpu             gpu/ (CuPy, CUDA kernels), through the adapters in backends/gpu.py
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
    if name == "gpu":
        from .gpu import GpuBackend

        return GpuBackend()
    if name.startswith("fault:"):
        from ..faults import FAULTS, faulty_backend

        try:
            return faulty_backend(name)
        except KeyError:
            raise InvalidInputError("--backends", f"unknown planted fault {name!r}; known: {', '.join('fault:' + f for f in FAULTS)}") from None
    raise InvalidInputError("--backends", f"unknown backend {name!r}; use reference, gpu or fault:<name>")


__all__ = ["Backend", "PhaseNotImplemented", "PhaseRun", "ReferenceBackend", "BACKEND_NAMES", "make_backend"]
