"""The ZCash BLS12-381 point serialization, as zkcrypto/bls12_381, blst and bellman write it
(zkcrypto/bls12_381 src/notes/serialization.rs), and the vectors' hex form of it.

* an Fq element is 48 bytes big-endian; an Fq2 element is c1 then c0 (96 bytes);
* G1: compressed = x (48 bytes), uncompressed = x || y (96 bytes);
  G2: compressed = x.c1 || x.c0 (96 bytes), uncompressed = x.c1 || x.c0 || y.c1 || y.c0 (192);
* the three top bits of the first byte are flags: 0x80 compression (set exactly on compressed
  encodings), 0x40 infinity (then every other bit is zero), 0x20 sort (compressed only: y is the
  lexicographically largest of the two square roots);
* "lexicographically largest": for Fq, y > (p - 1)/2; for Fq2, compare c1 first, c0 if c1 == 0.

Decoding validates everything (length, flags, x and y < p, on the curve, in the prime-order subgroup)
and raises reference.errors.PointEncodingError(field, problem) on the first failure. G1 and G2 share
one encoder and one decoder, parametrized by a ``WireGroup``; the arithmetic is reference/fq.py's and
reference/curve.py's, the subgroup test reference/subgroup.py's.
"""
from dataclasses import dataclass
from typing import Callable

from .curve import FQ, FQ2, G1_INTS, G2_INTS, Z1, Z2, Jacobian, affine_ints, is_py_ecc_point
from .errors import PointEncodingError
from .field import P
from .subgroup import g1_affine_in_subgroup, g2_affine_in_subgroup

__all__ = [
    "FQ_BYTES", "g1_to_bytes", "g1_from_bytes", "g2_to_bytes", "g2_from_bytes",
    "encode_g1", "decode_g1", "encode_g2", "decode_g2", "encode_g1_many", "encode_g2_many", "canonical_words", "hex_to_bytes",
]

FQ_BYTES = 48
"""Bytes of one big-endian Fq element (381 bits rounded up; the 3 spare top bits carry flags)."""

COMPRESSION_FLAG = 0x80
"""First-byte bit 7: the encoding is compressed."""
INFINITY_FLAG = 0x40
"""First-byte bit 6: the point at infinity (every other bit must be zero)."""
SORT_FLAG = 0x20
"""First-byte bit 5 (compressed only): y is the lexicographically largest square root."""
FLAG_MASK = COMPRESSION_FLAG | INFINITY_FLAG | SORT_FLAG

G1_COMPRESSED_BYTES = FQ_BYTES
G1_UNCOMPRESSED_BYTES = 2 * FQ_BYTES
G2_COMPRESSED_BYTES = 2 * FQ_BYTES
G2_UNCOMPRESSED_BYTES = 4 * FQ_BYTES


@dataclass(frozen=True)
class WireGroup:
    """What the wire format needs to know about G1 or G2."""

    name: str
    curve: Jacobian
    degree: int
    """Fq coefficients per coordinate: 1 (G1) or 2 (G2)."""
    py_ecc_field: type
    identity: tuple
    in_subgroup: Callable
    b_text: str
    """The curve constant as written in error messages."""

    @property
    def field(self):
        return self.curve.field

    def wire_words(self, value) -> list[int]:
        """A coordinate's Fq coefficients in wire order (Fq2: c1 then c0)."""
        return [value] if self.degree == 1 else [value[1], value[0]]

    def from_wire_words(self, words: list[int]):
        return words[0] if self.degree == 1 else (words[1], words[0])

    def coordinate_names(self, compressed: bool) -> list[str]:
        coords = ["x"] if compressed else ["x", "y"]
        if self.degree == 1:
            return coords
        return [f"{c}.{part}" for c in coords for part in ("c1", "c0")]

    def to_py_ecc(self, value):
        return FQ(value) if self.degree == 1 else FQ2(list(value))


G1_WIRE = WireGroup("G1", G1_INTS, 1, FQ, Z1, g1_affine_in_subgroup, "4")
G2_WIRE = WireGroup("G2", G2_INTS, 2, FQ2, Z2, g2_affine_in_subgroup, "4(u + 1)")


def _require_point(point, group: WireGroup, field: str) -> None:
    """Refuse anything but a py_ecc projective tuple of the group's field (catches G1/G2 mix-ups)."""
    cls = group.py_ecc_field
    if not is_py_ecc_point(point, cls):
        raise PointEncodingError(
            field, f"expected a py_ecc {group.name} point (a tuple of 3 {cls.__name__}), got {type(point).__name__}"
        )


def _affine_to_bytes(affine, group: WireGroup, compressed: bool) -> bytes:
    """The encoding of an affine point ((x, y) as ints / pairs) or of O (None)."""
    words_per_coordinate = group.degree
    length = FQ_BYTES * words_per_coordinate * (1 if compressed else 2)
    if affine is None:
        return bytes([INFINITY_FLAG | (COMPRESSION_FLAG if compressed else 0)]) + bytes(length - 1)
    x, y = affine
    words = group.wire_words(x) if compressed else group.wire_words(x) + group.wire_words(y)
    body = b"".join(w.to_bytes(FQ_BYTES, "big") for w in words)
    flags = COMPRESSION_FLAG | (SORT_FLAG if group.field.is_largest(y) else 0) if compressed else 0
    return bytes([body[0] | flags]) + body[1:]


def _to_bytes(point, group: WireGroup, compressed: bool) -> bytes:
    _require_point(point, group, f"{group.name.lower()} point")
    return _affine_to_bytes(affine_ints([point])[0], group, compressed)


def canonical_words(data, group: WireGroup, field: str, compressed: bool) -> tuple[int, list[int]] | None:
    """The checks of decoding that need no curve arithmetic: bytes, length, flags, the one form of the identity,
    every coefficient < p. Returns None for the identity, else (the flag bits, the Fq words in wire order).
    vectors/fast_library.py runs exactly these before the library's curve checks."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise PointEncodingError(field, f"expected bytes, got {type(data).__name__}")
    data = bytes(data)
    expected = FQ_BYTES * group.degree * (1 if compressed else 2)
    if len(data) != expected:
        raise PointEncodingError(field, f"expected {expected} bytes, got {len(data)}")
    flags = data[0] & FLAG_MASK
    if compressed and not flags & COMPRESSION_FLAG:
        raise PointEncodingError(field, f"compression flag (0x80) not set on a {expected}-byte compressed encoding")
    if not compressed and flags & COMPRESSION_FLAG:
        raise PointEncodingError(field, f"compression flag (0x80) set on a {expected}-byte uncompressed encoding")
    if not compressed and flags & SORT_FLAG and not flags & INFINITY_FLAG:
        raise PointEncodingError(field, "sort flag (0x20) set on an uncompressed encoding")
    body = bytes([data[0] & ~FLAG_MASK]) + data[1:]
    words = [int.from_bytes(body[i:i + FQ_BYTES], "big") for i in range(0, len(body), FQ_BYTES)]
    names = group.coordinate_names(compressed)
    if flags & INFINITY_FLAG:
        if flags & SORT_FLAG:
            raise PointEncodingError(field, "infinity flag set but sort flag also set")
        for value, name in zip(words, names):
            if value != 0:
                raise PointEncodingError(field, f"infinity flag set but {name.split('.')[0]} bits non-zero")
        return None
    for value, name in zip(words, names):
        if value >= P:
            raise PointEncodingError(field, f"{name} >= p")
    return flags, words


def _from_bytes(data, group: WireGroup, field: str, compressed: bool) -> tuple:
    """Decode and validate; see g1_from_bytes."""
    canonical = canonical_words(data, group, field, compressed)
    if canonical is None:
        return group.identity
    flags, words = canonical
    f, curve = group.field, group.curve
    x = group.from_wire_words(words[: group.degree])
    rhs = curve.rhs(x)
    if compressed:
        y = f.sqrt(rhs)
        if y is None:
            raise PointEncodingError(field, f"not on the curve {curve.name}: x^3 + {group.b_text} is not a square")
        if f.is_largest(y) != bool(flags & SORT_FLAG):
            y = f.neg(y)
    else:
        y = group.from_wire_words(words[group.degree:])
        if f.sqr(y) != rhs:
            raise PointEncodingError(field, f"not on the curve {curve.name}")
    if not group.in_subgroup(x, y):
        raise PointEncodingError(field, "not in the prime-order subgroup")
    return (group.to_py_ecc(x), group.to_py_ecc(y), group.py_ecc_field.one())


def g1_to_bytes(point, compressed: bool = True) -> bytes:
    """ZCash encoding of a G1 point: compressed x|flags (48 bytes) or x || y (96 bytes), big-endian.
    Flags in the first byte: 0x80 compressed, 0x40 infinity (0xc0 then zeros / 0x40 then zeros),
    0x20 when y > (p - 1)/2 (compressed only)."""
    return _to_bytes(point, G1_WIRE, compressed)


def g2_to_bytes(point, compressed: bool = True) -> bytes:
    """ZCash encoding of a G2 point: compressed x.c1|flags || x.c0 (96 bytes) or x.c1 || x.c0 || y.c1 || y.c0
    (192 bytes); the sort flag is set when y.c1 > (p-1)/2, or y.c1 == 0 and y.c0 > (p-1)/2."""
    return _to_bytes(point, G2_WIRE, compressed)


def g1_from_bytes(data, field: str = "g1 point", compressed: bool = True) -> tuple:
    """Decode the ZCash encoding of a G1 point into a py_ecc point, validating it.

    Rejects with PointEncodingError(field, problem): wrong length; compression flag that does not
    match `compressed`; infinity flag with the sort flag or any x (or y) bit; sort flag on an
    uncompressed encoding; x or y >= p; a point not on y^2 = x^3 + 4; a point outside G1.
    Compressed: y = sqrt(x^3 + 4), the root that is > (p-1)/2 iff the sort flag is set."""
    return _from_bytes(data, G1_WIRE, field, compressed)


def g2_from_bytes(data, field: str = "g2 point", compressed: bool = True) -> tuple:
    """Decode a G2 point as g1_from_bytes does, per coordinate (x.c1, x.c0, y.c1, y.c0 < p), on the twist
    y^2 = x^3 + 4(u + 1) and in G2; compressed: the root that is lexicographically largest iff the sort flag is set."""
    return _from_bytes(data, G2_WIRE, field, compressed)


HEX_DIGITS = frozenset("0123456789abcdef")


def hex_to_bytes(text, field: str) -> bytes:
    """The bytes of a point's hex form: lowercase digits, no 0x prefix, an even number of them; else PointEncodingError."""
    if not isinstance(text, str):
        raise PointEncodingError(field, f"expected a lowercase hex string, got {type(text).__name__}")
    if text[:2] in ("0x", "0X"):
        raise PointEncodingError(field, "has a 0x prefix; expected bare lowercase hex")
    for position, char in enumerate(text):
        if char not in HEX_DIGITS:
            raise PointEncodingError(field, f"expected lowercase hex digits, found {char!r} at position {position}")
    if len(text) % 2:
        raise PointEncodingError(field, f"odd number of hex digits ({len(text)})")
    return bytes.fromhex(text)


def encode_g1(point) -> str:
    """Compressed ZCash encoding of a G1 point as lowercase hex (96 digits, no 0x prefix)."""
    return g1_to_bytes(point).hex()


def decode_g1(text: str, field: str = "g1 point") -> tuple:
    """Inverse of encode_g1, validating as g1_from_bytes does (plus: lowercase hex, no prefix)."""
    return g1_from_bytes(hex_to_bytes(text, field), field)


def encode_g2(point) -> str:
    """Compressed ZCash encoding of a G2 point as lowercase hex (192 digits, no 0x prefix)."""
    return g2_to_bytes(point).hex()


def decode_g2(text: str, field: str = "g2 point") -> tuple:
    """Inverse of encode_g2, validating as g2_from_bytes does (plus: lowercase hex, no prefix)."""
    return g2_from_bytes(hex_to_bytes(text, field), field)


def _encode_many(points, group: WireGroup) -> list[str]:
    for i, point in enumerate(points):
        _require_point(point, group, f"{group.name.lower()} points[{i}]")
    return [_affine_to_bytes(a, group, compressed=True).hex() for a in affine_ints(list(points))]


def encode_g1_many(points) -> list[str]:
    """[encode_g1(P) for P in points] with one field inversion for all of them (curve.affine_ints)."""
    return _encode_many(points, G1_WIRE)


def encode_g2_many(points) -> list[str]:
    """[encode_g2(P) for P in points] with one Fq inversion for all of them (curve.affine_ints)."""
    return _encode_many(points, G2_WIRE)
