"""Decoder and encoder for the EIP-2537 (BLS12-381 precompiles) byte format, used to check the
reference curve layer against the published EIP-2537 test vectors in vectors/external/eip-2537/.

EIP-2537 encoding (https://eips.ethereum.org/EIPS/eip-2537, "Fine points and encoding"), which is
NOT the ZCash encoding the rest of the toolkit uses:

* an Fp element: 64 bytes big-endian, the top 16 bytes zero, the value < p;
* G1: x || y (128 bytes); G2: x.c0 || x.c1 || y.c0 || y.c1 (256 bytes, c0 first);
* the point at infinity: all zero bytes;
* a scalar: 32 bytes big-endian, any value (the points are in the order-r subgroup, so it acts mod r);
* MSM input: (point || scalar) pairs; pairing input: (G1 || G2) pairs; ADD input: two points.

Points are checked to be on the curve, and (except for ADD, which the EIP does not subgroup-check)
in the prime-order subgroup, with the reference's checks (reference/curve.py, reference/subgroup.py). Every failure raises an
reference.errors.InvalidInputError subclass naming the input position and the problem.
"""
import json
from pathlib import Path

from reference.curve import FQ, FQ2, Z1, Z2, g1_is_on_curve, g2_is_on_curve, to_affine_batch
from reference.subgroup import g1_in_subgroup, g2_in_subgroup
from reference.errors import PointEncodingError, SizeMismatchError
from reference.field import P, R

VECTORS_DIR = Path(__file__).resolve().parent / "external" / "eip-2537"
"""The published vector files, copied verbatim (see the README there for provenance)."""

FP_BYTES = 64
FP_PADDING_BYTES = 16
"""Top bytes of each 64-byte Fp element that must be zero (the value has 381 bits)."""
G1_BYTES = 2 * FP_BYTES
G2_BYTES = 4 * FP_BYTES
SCALAR_BYTES = 32
G1_MSM_PAIR_BYTES = G1_BYTES + SCALAR_BYTES
G2_MSM_PAIR_BYTES = G2_BYTES + SCALAR_BYTES
PAIRING_PAIR_BYTES = G1_BYTES + G2_BYTES

GROUPS = ("g1", "g2")


def load_vectors(file_name: str) -> list[dict]:
    """The JSON list of cases in vectors/external/eip-2537/<file_name>."""
    return json.loads((VECTORS_DIR / file_name).read_text())


def decode_fp(data: bytes, field: str) -> int:
    """The Fp element of 64 big-endian bytes: top 16 bytes must be zero and the value < p."""
    if len(data) != FP_BYTES:
        raise PointEncodingError(field, f"expected {FP_BYTES} bytes, got {len(data)}")
    if any(data[:FP_PADDING_BYTES]):
        raise PointEncodingError(field, f"top {FP_PADDING_BYTES} bytes of the field element are not zero")
    value = int.from_bytes(data, "big")
    if value >= P:
        raise PointEncodingError(field, "field element >= p")
    return value


def _coordinates(data: bytes, count: int, field: str, names: tuple[str, ...]) -> list[int]:
    if len(data) != count * FP_BYTES:
        raise PointEncodingError(field, f"expected {count * FP_BYTES} bytes, got {len(data)}")
    return [decode_fp(data[i * FP_BYTES:(i + 1) * FP_BYTES], f"{field}.{names[i]}") for i in range(count)]


def decode_g1(data: bytes, field: str, subgroup_check: bool = True) -> tuple:
    """x || y (128 bytes) -> py_ecc G1 point; all zeros is O. Checks y^2 = x^3 + 4 and, unless
    subgroup_check is False, membership of G1."""
    x, y = _coordinates(data, 2, field, ("x", "y"))
    if x == 0 and y == 0:
        return Z1
    point = (FQ(x), FQ(y), FQ.one())
    if not g1_is_on_curve(point):
        raise PointEncodingError(field, "not on the curve y^2 = x^3 + 4")
    if subgroup_check and not g1_in_subgroup(point):
        raise PointEncodingError(field, "not in the prime-order subgroup")
    return point


def decode_g2(data: bytes, field: str, subgroup_check: bool = True) -> tuple:
    """x.c0 || x.c1 || y.c0 || y.c1 (256 bytes) -> py_ecc G2 point; all zeros is O. Checks
    y^2 = x^3 + 4(u + 1) and, unless subgroup_check is False, membership of G2."""
    x0, x1, y0, y1 = _coordinates(data, 4, field, ("x.c0", "x.c1", "y.c0", "y.c1"))
    if x0 == x1 == y0 == y1 == 0:
        return Z2
    point = (FQ2([x0, x1]), FQ2([y0, y1]), FQ2.one())
    if not g2_is_on_curve(point):
        raise PointEncodingError(field, "not on the curve y^2 = x^3 + 4(u + 1)")
    if subgroup_check and not g2_in_subgroup(point):
        raise PointEncodingError(field, "not in the prime-order subgroup")
    return point


def decode_point(group: str, data: bytes, field: str, subgroup_check: bool = True) -> tuple:
    """decode_g1 or decode_g2 by group name ("g1" or "g2")."""
    return (decode_g1 if group == "g1" else decode_g2)(data, field, subgroup_check)


def decode_scalar_mod_r(data: bytes, field: str) -> int:
    """A 32-byte big-endian scalar (any value), reduced mod r."""
    if len(data) != SCALAR_BYTES:
        raise SizeMismatchError(field, f"expected {SCALAR_BYTES} bytes, got {len(data)}")
    return int.from_bytes(data, "big") % R


def encode_g1(point) -> bytes:
    """The 128-byte EIP-2537 encoding x || y of a G1 point (all zeros for O)."""
    affine = to_affine_batch([point])[0]
    if affine is None:
        return bytes(G1_BYTES)
    return b"".join(c.n.to_bytes(FP_BYTES, "big") for c in affine)


def encode_g2(point) -> bytes:
    """The 256-byte EIP-2537 encoding x.c0 || x.c1 || y.c0 || y.c1 of a G2 point (zeros for O)."""
    affine = to_affine_batch([point])[0]
    if affine is None:
        return bytes(G2_BYTES)
    return b"".join(int(c).to_bytes(FP_BYTES, "big") for coordinate in affine for c in coordinate.coeffs)


def encode_point(group: str, point) -> bytes:
    """encode_g1 or encode_g2 by group name."""
    return (encode_g1 if group == "g1" else encode_g2)(point)


def _point_bytes(group: str) -> int:
    return G1_BYTES if group == "g1" else G2_BYTES


def _check_input_length(data: bytes, unit: int, field: str) -> int:
    """Number of unit-sized records in data: it must be a positive multiple of unit."""
    if len(data) == 0 or len(data) % unit:
        raise SizeMismatchError(field, f"invalid input length {len(data)}: expected a positive multiple of {unit}")
    return len(data) // unit


def decode_add_input(group: str, data: bytes) -> tuple[tuple, tuple]:
    """The two points of an ADD input (2 x 128 or 2 x 256 bytes); no subgroup check, as in the EIP."""
    size = _point_bytes(group)
    if len(data) != 2 * size:
        raise SizeMismatchError("input", f"invalid input length {len(data)}: expected {2 * size}")
    return (decode_point(group, data[:size], "input.a", subgroup_check=False),
            decode_point(group, data[size:], "input.b", subgroup_check=False))


def decode_msm_input(group: str, data: bytes) -> tuple[list, list]:
    """(points, scalars mod r) of an MUL/MSM input: (point || 32-byte scalar) pairs, points in the subgroup."""
    size = _point_bytes(group)
    count = _check_input_length(data, size + SCALAR_BYTES, "input")
    points, scalars = [], []
    for i in range(count):
        record = data[i * (size + SCALAR_BYTES):(i + 1) * (size + SCALAR_BYTES)]
        points.append(decode_point(group, record[:size], f"input[{i}].point"))
        scalars.append(decode_scalar_mod_r(record[size:], f"input[{i}].scalar"))
    return points, scalars


def decode_pairing_input(data: bytes) -> list[tuple[tuple, tuple]]:
    """[(G1 point, G2 point), ...] of a pairing-check input (384-byte pairs), points in the subgroups."""
    count = _check_input_length(data, PAIRING_PAIR_BYTES, "input")
    pairs = []
    for i in range(count):
        record = data[i * PAIRING_PAIR_BYTES:(i + 1) * PAIRING_PAIR_BYTES]
        pairs.append((decode_g1(record[:G1_BYTES], f"input[{i}].g1"), decode_g2(record[G1_BYTES:], f"input[{i}].g2")))
    return pairs
