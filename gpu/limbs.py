"""Python ints <-> little-endian uint32 limb arrays, the layout of field elements on the device.

An element of a field with N limbs is N consecutive little-endian uint32 words (limb 0 least
significant), so an array of elements is a numpy/cupy uint32 array of shape (..., N): Fr has
N = 8 (32 bytes), Fq has N = 12 (48 bytes). These helpers work on plain integers; Montgomery
form is a device-side step (gpu/field.py).

Conversions of large arrays go through one bytes object and numpy (``b"".join`` of
``int.to_bytes``, ``np.frombuffer``), never per-limb Python arithmetic.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reference.errors import InvalidInputError, ScalarRangeError
from reference.field import P, R

LIMB_BITS = 32
LIMB_BYTES = 4
LIMB_DTYPE = np.dtype("<u4")


@dataclass(frozen=True)
class FieldSpec:
    """A prime field as the device stores it: modulus and number of 32-bit limbs."""

    name: str
    modulus: int
    num_limbs: int

    @property
    def element_bytes(self) -> int:
        """Bytes per element: 4 N."""
        return self.num_limbs * LIMB_BYTES

    @property
    def montgomery_radix(self) -> int:
        """R = 2^(32 N): x is stored as x R mod m."""
        return 1 << (LIMB_BITS * self.num_limbs)

    def to_montgomery(self, x: int) -> int:
        """x R mod m, for the few scalars the host prepares itself (kernel parameters)."""
        return x * self.montgomery_radix % self.modulus

    def from_montgomery(self, x: int) -> int:
        """x R^-1 mod m."""
        return x * pow(self.montgomery_radix, -1, self.modulus) % self.modulus


FR = FieldSpec("Fr", R, 8)
FQ = FieldSpec("Fq", P, 12)
FR_LIMBS = FR.num_limbs
"""u32 limbs of a scalar (255 bits)."""
FQ_LIMBS = FQ.num_limbs
"""u32 limbs of an Fq element (381 bits)."""


def modulus_limbs(field: FieldSpec) -> np.ndarray:
    """The modulus as a (N,) limb array."""
    return np.frombuffer(field.modulus.to_bytes(field.element_bytes, "little"), dtype=LIMB_DTYPE).copy()


def reduced_mask(limbs: np.ndarray, field: FieldSpec) -> np.ndarray:
    """Boolean array over elements: True where the element's value is < the modulus.

    Compares limb by limb from the most significant end: the first limb that differs decides.
    """
    limbs = np.asarray(limbs, dtype=LIMB_DTYPE)
    mod = modulus_limbs(field)
    below = np.zeros(limbs.shape[:-1], dtype=bool)
    decided = np.zeros(limbs.shape[:-1], dtype=bool)
    for k in range(field.num_limbs - 1, -1, -1):  # N iterations, each vectorized over all elements
        column = limbs[..., k]
        below |= ~decided & (column < mod[k])
        decided |= column != mod[k]
    return below


def ints_to_limbs(values, field: FieldSpec = FR, name: str = "values") -> np.ndarray:
    """(len(values), N) uint32 limbs of ints in [0, m); raises ScalarRangeError naming ``name[i]`` otherwise."""
    values = list(values)
    try:
        data = b"".join(v.to_bytes(field.element_bytes, "little") for v in values)
    except (OverflowError, AttributeError, TypeError):
        index = next(i for i, v in enumerate(values) if not isinstance(v, int) or not 0 <= v < field.modulus)
        raise ScalarRangeError(f"{name}[{index}]", f"{values[index]!r} is not an integer in [0, {field.name} modulus)")
    limbs = np.frombuffer(data, dtype=LIMB_DTYPE).reshape(len(values), field.num_limbs).copy()
    _require_reduced(limbs, field, name)
    return limbs


def limbs_to_ints(limbs) -> list[int]:
    """Python ints of a (..., N) limb array, flattened over the leading axes in C order."""
    limbs = np.ascontiguousarray(limbs, dtype=LIMB_DTYPE)
    if limbs.ndim == 0 or limbs.shape[-1] == 0:
        raise InvalidInputError("limbs", f"shape {limbs.shape} has no limb axis")
    width = limbs.shape[-1] * LIMB_BYTES
    data = limbs.tobytes()
    return [int.from_bytes(data[k : k + width], "little") for k in range(0, len(data), width)]


def _require_reduced(limbs: np.ndarray, field: FieldSpec, name: str) -> None:
    ok = reduced_mask(limbs, field)
    if not ok.all():
        index = int(np.argmin(ok))
        value = limbs_to_ints(limbs[index : index + 1])[0]
        raise ScalarRangeError(f"{name}[{index}]", f"{value:#x} is not below the {field.name} modulus")
