"""Host builds of the GPU curve kernels, for tests on machines without a GPU.

``host_library(kernel_file)`` compiles tests/native/ec_emulate.cu around gpu/kernels/<kernel_file>
into a shared library with the host C++ compiler (g++/clang++: field.cuh and the ec headers are
plain C++ outside CUDA, and it takes ~2 s instead of nvcc's ~25 s), or with nvcc where no plain
C++ compiler is found, once per source version: the library's name
holds a digest of every source it is built from, and a build writes to a temporary name and renames,
so parallel pytest-xdist workers share one build. ``emulation_backend()`` is a gpu.points.Backend
that runs the kernels' bodies from those libraries over NumPy arrays (see ec_emulate.cu), so the
Python drivers in gpu/ run unchanged on the CPU.

No compiler at all: ``NoHostCompiler`` is raised; the tests turn it into a skip that prints the reason.
"""
from __future__ import annotations

import ctypes
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import types
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
KERNEL_DIR = ROOT / "gpu" / "kernels"
EMULATOR_SOURCE = Path(__file__).resolve().parent / "ec_emulate.cu"
BUILD_DIR = Path(os.environ.get("EC_HOST_BUILD_DIR", Path(tempfile.gettempdir()) / "ec_host_builds"))
EMULATED_FILES = {"msm.cu": "EC_EMULATE_MSM", "batch_add.cu": "EC_EMULATE_BATCH_ADD", "keygen.cu": "EC_EMULATE_KEYGEN",
                  "assemble.cu": "EC_EMULATE_ASSEMBLE"}
CXX_CANDIDATES = ("c++", "g++", "clang++")
CXX_FLAGS = ("-std=c++17", "-O2", "-x", "c++", "-shared", "-fPIC")
NVCC_FLAGS = ("-std=c++17", "-O2", "-x", "cu", "-shared", "-Xcompiler", "-fPIC", "-arch=sm_90")


class NoHostCompiler(RuntimeError):
    """Neither a C++ compiler nor nvcc is on PATH: the host builds of the kernels cannot be made."""


def _compiler() -> list[str]:
    for name in CXX_CANDIDATES:
        path = shutil.which(name)
        if path:
            return [path, *CXX_FLAGS]
    nvcc = shutil.which("nvcc")
    if nvcc:
        return [nvcc, *NVCC_FLAGS]
    raise NoHostCompiler(f"none of {', '.join(CXX_CANDIDATES)} or nvcc is on PATH, so the kernels cannot be built for the host")


def _sources_digest(kernel_file: str) -> str:
    digest = hashlib.sha256()
    for path in sorted(KERNEL_DIR.glob("*.cuh")) + [KERNEL_DIR / kernel_file, EMULATOR_SOURCE]:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


@functools.lru_cache(maxsize=None)
def host_library(kernel_file: str) -> ctypes.CDLL:
    """The host build of gpu/kernels/<kernel_file> (see module docstring), loaded with ctypes."""
    compiler = _compiler()
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    target = BUILD_DIR / f"ec_{Path(kernel_file).stem}_{_sources_digest(kernel_file)}_{Path(compiler[0]).name}.so"
    if not target.exists():
        scratch = target.with_suffix(f".{os.getpid()}.tmp")
        command = [*compiler, f"-I{KERNEL_DIR}", f'-DEC_KERNEL_FILE="{kernel_file}"',
                   f"-D{EMULATED_FILES[kernel_file]}", str(EMULATOR_SOURCE), "-o", str(scratch)]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"host build of {kernel_file} failed:\n{result.stderr}")
        os.replace(scratch, target)  # atomic: another worker may have finished first; same content
    return ctypes.CDLL(str(target))


class _HostKernel:
    """A kernel of a host library: calling it runs the body for every thread index of the grid."""

    def __init__(self, library: ctypes.CDLL, name: str):
        self.name = name
        self.function = getattr(library, f"emu_{name}")
        self.function.restype = None
        self.function.argtypes = [ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_void_p)]

    def __call__(self, grid, block, args, shared_mem: int = 0):
        keep = [_as_ctypes(arg, self.name, k) for k, arg in enumerate(args)]
        pointers = (ctypes.c_void_p * max(len(keep), 1))(*[ctypes.addressof(v) for v in keep])
        self.function(grid[0] * block[0], pointers)


def _as_ctypes(arg, kernel: str, position: int):
    """A kernel argument as the ctypes value whose address goes into the argument array, as CuPy
    would pass it: an array by its data pointer, a numpy scalar by value in its own width."""
    if isinstance(arg, np.ndarray):
        if not arg.flags.c_contiguous:
            raise ValueError(f"{kernel} argument {position}: array is not C-contiguous")
        return ctypes.c_void_p(arg.ctypes.data)
    if isinstance(arg, np.uint32):
        return ctypes.c_uint32(int(arg))
    if isinstance(arg, np.uint64):
        return ctypes.c_uint64(int(arg))
    raise TypeError(f"{kernel} argument {position}: {type(arg).__name__} is not a device array or numpy scalar")


class _HostModule:
    def __init__(self, kernel_file: str):
        self.library = host_library(kernel_file)

    def get_function(self, name: str) -> _HostKernel:
        return _HostKernel(self.library, name)


def _numpy_as_xp() -> types.SimpleNamespace:
    """The part of CuPy's interface the drivers use, provided by NumPy."""
    return types.SimpleNamespace(
        uint32=np.uint32, uint64=np.uint64, empty=np.empty, zeros=np.zeros, asarray=np.asarray,
        ascontiguousarray=np.ascontiguousarray, asnumpy=np.asarray, cumsum=np.cumsum,
        concatenate=np.concatenate, stack=np.stack, int64=np.int64, arange=np.arange, argsort=np.argsort,
        searchsorted=np.searchsorted, flatnonzero=np.flatnonzero, empty_like=np.empty_like,
        broadcast_to=np.broadcast_to, maximum=np.maximum,
    )


def _host_launch(kernel, grid, block, args, what: str) -> None:
    if any(g <= 0 for g in grid) or any(b <= 0 for b in block):
        raise ValueError(f"{what}: grid {grid} and block {block} must be positive")
    kernel(grid, block, args)


@functools.lru_cache(maxsize=1)
def emulation_backend():
    """A gpu.points.Backend running the kernels' host builds over NumPy arrays."""
    from gpu.points import Backend

    modules = {}

    def load(cu_file: str, options: tuple = ()) -> _HostModule:
        # One host build holds both groups' bodies, so the per-group options change nothing here.
        if cu_file not in modules:
            modules[cu_file] = _HostModule(cu_file)
        return modules[cu_file]

    return Backend(xp=_numpy_as_xp(), load=load, launch=_host_launch, check=lambda what: None,
                   reserve=lambda bytes_needed, what: None, address=lambda array: array.ctypes.data)
