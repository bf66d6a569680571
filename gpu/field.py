"""Field elements on the device: upload, Montgomery conversion, download, element-wise operations.

Device arrays hold elements in Montgomery form (x R mod m, R = 2^(32 N)) as uint32 limb arrays of
shape (..., N) (see gpu/limbs.py). Conversions in and out of Montgomery form run on the device
(kernels fr_to_mont / fr_from_mont / fq_* of gpu/kernels/field.cuh, built with FIELD_KERNELS).
"""
from __future__ import annotations

import numpy as np

from reference.errors import InvalidInputError

from . import device
from .limbs import FQ, FR, FieldSpec, ints_to_limbs, limbs_to_ints

FIELD_OPS = {"add": 0, "sub": 1, "mul": 2, "sqr": 3, "neg": 4, "inv": 5, "dbl": 6, "eq": 7, "is_zero": 8}
"""Operation codes of the field_op_fr / field_op_fq test kernels (FIELD_OP_* in field.cuh)."""

THREADS_PER_BLOCK = 256

BUILDS = {
    "ptx": (),  # PTX carry chains, even/odd CIOS: what the phases use
    "split-chains": ("-DFIELD_MUL_SPLIT_CHAINS",),  # PTX, CIOS rows as separate low/high chains
    "portable": ("-DFIELD_PORTABLE",),  # plain C++ with 64-bit accumulators
}
"""Builds of field.cuh that the test and benchmark kernels can be compiled as (name: NVRTC options)."""

_KERNEL_SOURCE = '#define FIELD_KERNELS\n#include "field.cuh"\n'
_PREFIX = {FR.name: "fr", FQ.name: "fq"}


def kernel_module(build: str = "ptx"):
    """The module of field.cuh's kernels, in one of BUILDS."""
    if build not in BUILDS:
        raise InvalidInputError("build", f"{build!r} is not one of {sorted(BUILDS)}")
    return device.compile_source(_KERNEL_SOURCE, BUILDS[build])


def _kernel(name: str, field: FieldSpec, build: str = "ptx"):
    module = kernel_module(build)
    prefix = _PREFIX[field.name]
    return module.get_function(name.format(f=prefix))


def check_device_array(x, field: FieldSpec, name: str):
    """Refuse anything but a C-contiguous cupy uint32 array of shape (..., N)."""
    import cupy

    if not isinstance(x, cupy.ndarray):
        raise InvalidInputError(name, f"must be a cupy array on the device, got {type(x).__name__}")
    if x.dtype != np.uint32 or x.ndim < 1 or x.shape[-1] != field.num_limbs:
        raise InvalidInputError(
            name, f"must be uint32 limbs of shape (..., {field.num_limbs}) for {field.name}; got {x.dtype} {x.shape}"
        )
    if not x.flags.c_contiguous:
        raise InvalidInputError(name, "must be C-contiguous")


def _elementwise(kernel_name: str, x, out, field: FieldSpec) -> None:
    count = x.size // field.num_limbs
    if count == 0:
        return
    kernel = _kernel(kernel_name, field)
    blocks = (count + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    device.launch(kernel, blocks, THREADS_PER_BLOCK, (x, out, np.uint64(count)), f"{field.name} {kernel_name}")


def _conversion_output(x, field: FieldSpec):
    """A new array shaped like x for an out-of-place conversion: one pass over memory instead of a copy and then an
    in-place pass (the witnesses of a 2^27 circuit are gigabytes)."""
    import cupy

    check_device_array(x, field, "x")
    return cupy.empty_like(x)


def to_montgomery(x, field: FieldSpec = FR):
    """A new device array of x_i R mod m (plain limbs -> Montgomery form); x is not modified."""
    out = _conversion_output(x, field)
    _elementwise("{f}_to_mont", x, out, field)
    return out


def to_montgomery_(x, field: FieldSpec = FR) -> None:
    """x_i <- x_i R mod m in place (plain limbs -> Montgomery form), on the device."""
    check_device_array(x, field, "x")
    _elementwise("{f}_to_mont", x, x, field)


def from_montgomery(x, field: FieldSpec = FR):
    """A new device array of x_i R^-1 mod m (Montgomery form -> plain limbs); x is not modified."""
    out = _conversion_output(x, field)
    _elementwise("{f}_from_mont", x, out, field)
    return out


def from_montgomery_(x, field: FieldSpec = FR) -> None:
    """x_i <- x_i R^-1 mod m in place (Montgomery form -> plain limbs), on the device."""
    check_device_array(x, field, "x")
    _elementwise("{f}_from_mont", x, x, field)


def limbs_to_device(limbs: np.ndarray, field: FieldSpec = FR):
    """Upload plain limbs (values already checked < m) and convert them to Montgomery form on the device."""
    import cupy

    x = cupy.asarray(np.ascontiguousarray(limbs, dtype=np.uint32))
    to_montgomery_(x, field)
    return x


def to_device(values, field: FieldSpec = FR, name: str = "values"):
    """Device array (len(values), N) of the ints ``values`` (each in [0, m)) in Montgomery form."""
    device.require_device()
    return limbs_to_device(ints_to_limbs(values, field, name), field)


def to_host_limbs(x, field: FieldSpec = FR) -> np.ndarray:
    """Plain limbs of a Montgomery-form device array (converted into a new device array), as numpy."""
    plain = from_montgomery(x, field)
    device.launch_check("copy back", sync=True)
    return plain.get()


def to_ints(x, field: FieldSpec = FR) -> list[int]:
    """Python ints of a Montgomery-form device array, flattened over the leading axes in C order."""
    return limbs_to_ints(to_host_limbs(x, field))


def apply_op(op: str, a, b, field: FieldSpec = FR, build: str = "ptx"):
    """out_i = op(a_i, b_i) on Montgomery-form device arrays, through field_op_fr / field_op_fq.

    For tests: ``build`` picks the field.cuh variant (BUILDS). 'eq' puts [a == b, a != b] and 'is_zero' [a == 0] into the
    first limbs of out (plain integers, not Montgomery form).
    """
    import cupy

    if op not in FIELD_OPS:
        raise InvalidInputError("op", f"{op!r} is not one of {sorted(FIELD_OPS)}")
    check_device_array(a, field, "a")
    check_device_array(b, field, "b")
    if a.shape != b.shape:
        raise InvalidInputError("b", f"shape {b.shape} differs from a's {a.shape}")
    out = cupy.empty_like(a)
    count = a.size // field.num_limbs
    if count:
        kernel = _kernel("field_op_{f}", field, build)
        blocks = (count + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
        args = (np.int32(FIELD_OPS[op]), a, b, out, np.uint64(count))
        device.launch(kernel, blocks, THREADS_PER_BLOCK, args, f"{field.name} {op}")
    return out


def mul_chain_(x, iters: int, field: FieldSpec = FR, build: str = "ptx") -> None:
    """x_i <- x_i (x_i^2)^iters in place: iters dependent Montgomery products per element (throughput probe)."""
    check_device_array(x, field, "x")
    count = x.size // field.num_limbs
    kernel = _kernel("{f}_mul_chain", field, build)
    blocks = (count + THREADS_PER_BLOCK - 1) // THREADS_PER_BLOCK
    device.launch(kernel, blocks, THREADS_PER_BLOCK, (x, np.uint64(count), np.uint32(iters)), f"{field.name} mul chain")
