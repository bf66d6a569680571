"""Curve points between py_ecc and the GPU's word layout, and the kernel-launch plumbing.

Device layout (gpu/kernels/ec.cuh): an Fq element is 12 little-endian u32 limbs in Montgomery form
(x * 2^384 mod p); an Fq2 element c0 + c1*u is c0's limbs then c1's. An affine point is x then y:
24 words in G1, 48 in G2; the identity is (0, 0), which is on neither curve. An XYZZ accumulator
(X, Y, ZZ, ZZZ) is 48 words in G1, 96 in G2. Scalars are 8 little-endian u32 limbs, plain or in
Montgomery form (s * 2^256 mod r).

The array module and the kernel loader form a ``Backend``: CuPy and gpu.device on a GPU machine;
the tests on machines without a GPU swap in tests/native/ec_host.py emulation_backend(), which runs the same kernel
bodies compiled for the host, so the drivers here are exercised unchanged.
"""
from __future__ import annotations

import contextlib
import functools
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from py_ecc.optimized_bls12_381 import FQ, FQ2, Z1, Z2

from reference.curve import affine_ints
from reference.errors import InvalidInputError, ScalarRangeError
from reference.field import P, R

from .limbs import FQ as FQ_SPEC  # (FQ here is py_ecc's field element class)
from .limbs import FQ_LIMBS, FR, FR_LIMBS, LIMB_BITS, ints_to_limbs, limbs_to_ints

FQ_MONT_R = pow(2, LIMB_BITS * FQ_LIMBS, P)
"""Fq's Montgomery radix 2^384 mod p."""
FQ_MONT_R_INV = pow(FQ_MONT_R, -1, P)
FR_MONT_R = pow(2, LIMB_BITS * FR_LIMBS, R)
"""Fr's Montgomery radix 2^256 mod r."""
THREADS_PER_BLOCK = 128
"""Block size of every launch; equal to EC_THREADS_PER_BLOCK in gpu/kernels/ec_kernels.cuh."""
COORDINATES_AFFINE = 2
COORDINATES_XYZZ = 4


@dataclass(frozen=True)
class Group:
    """G1 or G2 as the kernels see it: the suffix of its kernels and the words of its points."""

    name: str
    """'g1' or 'g2': the suffix of the group's kernels (msm_piece_sum_g1, ...)."""
    degree: int
    """Coordinates live in Fq (1) or Fq2 (2)."""
    identity: tuple
    """py_ecc's identity of the group (Z1 or Z2)."""

    @property
    def field_words(self) -> int:
        return FQ_LIMBS * self.degree

    @property
    def affine_words(self) -> int:
        return COORDINATES_AFFINE * self.field_words

    @property
    def xyzz_words(self) -> int:
        return COORDINATES_XYZZ * self.field_words

    def kernel(self, name: str) -> str:
        return f"{name}_{self.name}"

    def module(self, cu_file: str) -> tuple[str, tuple[str, ...]]:
        """(cu_file, NVRTC options) of the module holding this group's kernels of cu_file: one module
        per group (-DEC_GROUP=1 or 2, see ec_kernels.cuh), so that each compiles quickly."""
        return cu_file, (f"-DEC_GROUP={self.degree}",)


G1_GROUP = Group("g1", 1, Z1)
G2_GROUP = Group("g2", 2, Z2)


# ---------------------------------------------------------------------------------------------
# Backend: array module + kernel loader
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Backend:
    """Where kernels run.

    ``xp`` is the array module; ``load(cu_file, options)`` returns a module whose ``get_function(name)``
    gives a kernel; ``launch(kernel, grid, block, args, what)`` runs it; ``check(what)`` waits for
    the device and raises GpuKernelError, naming ``what``, on any CUDA error of the work so far;
    ``reserve(bytes, what)`` raises GpuMemoryError if that much device memory is not free;
    ``address(array)`` is the address a kernel reads the array at (for tables of arrays, as the
    MSM's job table, gpu/msm.py _job_table); ``side_stream()`` is a context for launches that may run
    at the same time as those queued after it: it yields ``join``, which makes the work queued after
    the call wait for them (_cupy_side_stream); on the host, where launches run one after another,
    both do nothing."""

    xp: Any
    load: Callable[[str, tuple], Any]
    launch: Callable[..., None]
    check: Callable[[str], None]
    reserve: Callable[[int, str], None]
    address: Callable[[Any], int]
    side_stream: Callable[[], Any] = lambda: contextlib.nullcontext(lambda: None)


_override: list[Backend] = []


@functools.lru_cache(maxsize=None)
def _side_stream(device_id: int):
    """One non-blocking stream a device, kept: CuPy's memory pool keeps freed blocks per stream, so a stream made anew
    on every call would strand its blocks."""
    import cupy

    with cupy.cuda.Device(device_id):
        return cupy.cuda.Stream(non_blocking=True)


@contextlib.contextmanager
def _cupy_side_stream():
    """Launches inside run on the side stream, after everything the current stream has queued so far, while the
    current stream goes on with what is queued after the context. The context yields ``join``: calling it makes the
    current stream wait (on the device, not the host) for the side launches, so what is queued after it sees their
    results (call it after the context). Arrays that outlive the context must be allocated before it, on the current stream: a block that CuPy's
    pool returns to the side stream may be handed out there again while the current stream still reads it."""
    import cupy

    from .device import current_device_id

    main, side = cupy.cuda.get_current_stream(), _side_stream(current_device_id())
    side.wait_event(main.record())
    finished = []
    with side:
        yield lambda: main.wait_event(finished[0])
    finished.append(side.record())


@functools.lru_cache(maxsize=1)
def _cupy_backend() -> Backend:
    from . import device  # raises GpuUnavailableError (saying why) without CuPy or a device

    device.require_device()
    import cupy

    return Backend(
        xp=cupy,
        load=lambda cu_file, options: device.load_module(cu_file, options=options),
        launch=device.launch,
        check=lambda what: device.launch_check(what, sync=True),
        reserve=device.check_free_memory,
        address=lambda array: array.data.ptr,
        side_stream=_cupy_side_stream,
    )


def backend() -> Backend:
    """The active backend: the innermost ``use_backend``, else CuPy on the current device."""
    return _override[-1] if _override else _cupy_backend()


@contextlib.contextmanager
def use_backend(replacement: Backend):
    """Run the enclosed code on another backend (the host emulation in the tests)."""
    _override.append(replacement)
    try:
        yield replacement
    finally:
        _override.pop()


def load_group_module(group: Group, cu_file: str):
    """The module of ``group``'s kernels of cu_file (Group.module), as ``launch`` loads it."""
    return backend().load(*group.module(cu_file))


def launch(module: tuple[str, tuple[str, ...]], kernel: str, threads: int, *args) -> None:
    """Run ``kernel`` of ``module`` = (gpu/kernels file, NVRTC options), see Group.module, on
    ``threads`` threads (1-D grid, THREADS_PER_BLOCK a block). Arguments are device arrays
    (C-contiguous) or numpy scalars (np.uint32) matching each kernel parameter's C type. No launch
    for 0 threads (an empty grid is a CUDA error)."""
    if threads == 0:
        return
    active = backend()
    blocks = -(-threads // THREADS_PER_BLOCK)
    function = active.load(*module).get_function(kernel)
    active.launch(function, (blocks,), (THREADS_PER_BLOCK,), args, f"{module[0]}:{kernel}")


def u32(value: int) -> np.uint32:
    """A kernel's `unsigned int` argument; refuses values that do not fit (no silent wrap)."""
    if not 0 <= value < 1 << LIMB_BITS:
        raise InvalidInputError("kernel argument", f"{value} does not fit in 32 bits")
    return np.uint32(value)


# ---------------------------------------------------------------------------------------------
# scalars -> limbs
# ---------------------------------------------------------------------------------------------


def scalars_to_limbs(scalars, field: str) -> np.ndarray:
    """(n, 8) uint32 plain (not Montgomery) limbs of scalars in [0, r); ScalarRangeError names the
    first bad one as field[i]."""
    for i, s in enumerate(scalars):
        if isinstance(s, bool) or not isinstance(s, int):
            raise ScalarRangeError(f"{field}[{i}]", f"expected an int, got {type(s).__name__}")
        if not 0 <= s < R:
            raise ScalarRangeError(f"{field}[{i}]", f"{s:#x} is not in [0, r)")
    return ints_to_limbs(scalars, FR, field)


def scalars_to_montgomery_limbs(scalars) -> np.ndarray:
    """(n, 8) uint32 limbs of s * 2^256 mod r: the form ntt_h leaves h in (for tests)."""
    return ints_to_limbs([s * FR_MONT_R % R for s in scalars], FR, "scalars")


# ---------------------------------------------------------------------------------------------
# py_ecc points <-> affine words
# ---------------------------------------------------------------------------------------------


def _affine_coordinates(points, group: Group) -> list[tuple | None]:
    """Affine (x, y) of each py_ecc projective point as tuples of Fq coefficients (G1: (x,), (y,); G2: pairs),
    None for the identity; reference.curve.affine_ints (one shared inversion)."""
    if group.degree == 1:
        return [None if a is None else ((a[0],), (a[1],)) for a in affine_ints(list(points))]
    return affine_ints(list(points))


def points_to_words(points, group: Group) -> np.ndarray:
    """(n, affine_words) uint32: each py_ecc point as affine Montgomery coordinates; the identity as
    all-zero words."""
    coefficients = []
    for affine in _affine_coordinates(points, group):
        if affine is None:
            coefficients.extend([0] * (COORDINATES_AFFINE * group.degree))
        else:
            coefficients.extend(c * FQ_MONT_R % P for coordinate in affine for c in coordinate)
    return ints_to_limbs(coefficients, FQ_SPEC, "point coordinates").reshape(len(points), group.affine_words)


def words_to_points(words: np.ndarray, group: Group) -> list[tuple]:
    """py_ecc points (Z = 1, or the group's identity) from (n, affine_words) affine Montgomery words."""
    rows = np.asarray(words, dtype=np.uint32).reshape(-1, group.affine_words)
    values = limbs_to_ints(rows.reshape(-1, FQ_LIMBS))
    per_point = COORDINATES_AFFINE * group.degree
    points = []
    for k in range(rows.shape[0]):
        coefficients = [v * FQ_MONT_R_INV % P for v in values[k * per_point : (k + 1) * per_point]]
        if not any(values[k * per_point : (k + 1) * per_point]):
            points.append(group.identity)
        elif group.degree == 1:
            points.append((FQ(coefficients[0]), FQ(coefficients[1]), FQ.one()))
        else:
            points.append((FQ2(coefficients[0:2]), FQ2(coefficients[2:4]), FQ2.one()))
    return points


def xyzz_words_to_points(words: np.ndarray, group: Group) -> list[tuple]:
    """py_ecc points from (n, xyzz_words) XYZZ Montgomery words: (X : Y : ZZ : ZZZ) means
    (X/ZZ, Y/ZZZ), i.e. the projective (X*ZZZ : Y*ZZ : ZZ*ZZZ); ZZ = 0 is the identity."""
    rows = np.asarray(words, dtype=np.uint32).reshape(-1, group.xyzz_words)
    values = [v * FQ_MONT_R_INV % P for v in limbs_to_ints(rows.reshape(-1, FQ_LIMBS))]
    per_point = COORDINATES_XYZZ * group.degree
    points = []
    for k in range(rows.shape[0]):
        c = values[k * per_point : (k + 1) * per_point]
        if group.degree == 1:
            X, Y, ZZ, ZZZ = (FQ(v) for v in c)
        else:
            X, Y, ZZ, ZZZ = (FQ2(c[2 * j : 2 * j + 2]) for j in range(COORDINATES_XYZZ))
        points.append(group.identity if ZZ == ZZ.zero() else (X * ZZZ, Y * ZZ, ZZ * ZZZ))
    return points


def download_points(words, group: Group) -> list[tuple]:
    """py_ecc points from a device array of affine words (see words_to_points)."""
    return words_to_points(backend().xp.asnumpy(words), group)
