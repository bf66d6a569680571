"""The optional fast library: BLS12-381 curve arithmetic by an independent implementation.

py-arkworks-bls12381 (arkworks' BLS12-381 through Python bindings; the optional extra ``fast``, chosen by
measurement in bench/RESULTS_fast_library.md) is written by other people in another language. Where it is
installed, the vector tools use it for what costs time in pure Python: multi-scalar multiplications, sums of
many points, and multiples of the generators. The reference (reference/msm.py, py_ecc) stays the definition:
`python -m vectors check --reference` recomputes every value with it. Without the library everything works
the same, only slower.

Points cross over in affine coordinates (big-endian x || y, each Fq2 as c0 || c1, the identity all zeros,
as the library writes them), without the library's on-curve and subgroup checks: they are points this
process already holds as py_ecc points, checked when they were read or computed. Results come back the
same way and are checked to lie on the curve. Scalars cross as canonical big-endian 32 bytes, which the
library refuses when >= r (``Scalar(int)`` would reduce silently: never used here).
"""
from importlib import metadata

from py_ecc.optimized_bls12_381 import FQ, FQ2, Z1, Z2, b, b2, is_on_curve

from reference.encoding import G1_WIRE, G2_WIRE, canonical_words
from reference.errors import InvalidInputError, PointEncodingError, ToolkitError
from reference.field import P, batch_inverse


PACKAGE, DISTRIBUTION, EXTRA = "py_arkworks_bls12381", "py-arkworks-bls12381", "fast"
ARKWORKS = "arkworks"
REFERENCE = "reference"
"""The implementation names a vector records (vectors/FORMAT.md, `computed_by`)."""
SCALAR_BYTES = 32
FQ_BYTES = 48


def _import():
    try:
        import py_arkworks_bls12381
    except ImportError:
        return None
    return py_arkworks_bls12381


def available() -> bool:
    """True when the library is installed."""
    return _import() is not None


def load_library():
    """The library module, or InvalidInputError when it is not installed."""
    library = _import()
    if library is None:
        raise InvalidInputError(
            "fast library", f"{ARKWORKS} needs {DISTRIBUTION}, which is not installed: pip install -e '.[{EXTRA}]'"
        )
    return library


def unavailable_reason() -> str | None:
    """Why the library cannot be used here (for tests' skip messages), or None."""
    return None if available() else f"{DISTRIBUTION} is not installed (pip install -e '.[{EXTRA}]')"


def implementation() -> str:
    """The library and its version, e.g. 'py-arkworks-bls12381 0.5.0', as recorded in a vector."""
    return f"{DISTRIBUTION} {metadata.version(DISTRIBUTION)}"


# ---------------------------------------------------------------------------------------------
# Crossing over: py_ecc points and ints <-> the library's


def is_g2(point) -> bool:
    """True for a py_ecc G2 point (Fq2 coordinates), False for G1."""
    return isinstance(point[0], FQ2)


def _affine_many(points) -> list:
    """(x, y) of every py_ecc Jacobian point, None for the identity, with one shared inversion (batch_inverse)."""
    zs = [p[2] for p in points]
    finite = [z for z in zs if z != z.zero()]
    inverses = iter(_batch_inverse_fq(finite))
    out = []
    for p, z in zip(points, zs):
        if z == z.zero():
            out.append(None)
            continue
        z_inv = next(inverses)
        out.append((p[0] * z_inv, p[1] * z_inv))
    return out


def _batch_inverse_fq(values: list) -> list:
    """Inverses of Fq or Fq2 elements: Fq through reference.field.batch_inverse mod p, Fq2 one by one."""
    if values and isinstance(values[0], FQ2):
        return [v.inv() for v in values]
    return [FQ(i) for i in batch_inverse([v.n for v in values], P)]


def _coordinate_bytes(value) -> bytes:
    if isinstance(value, FQ2):
        return b"".join(int(c).to_bytes(FQ_BYTES, "big") for c in value.coeffs)
    return value.n.to_bytes(FQ_BYTES, "big")


def to_library_many(points) -> list:
    """py_ecc points (all G1 or all G2, already checked) as the library's, the identity included."""
    if not points:
        return []
    ark = load_library()
    point_type = ark.G2Point if is_g2(points[0]) else ark.G1Point
    identity = point_type.identity()
    return [
        identity if xy is None else point_type.from_xy_bytes_unchecked_be(_coordinate_bytes(xy[0]) + _coordinate_bytes(xy[1]))
        for xy in _affine_many(points)
    ]


def to_library(point):
    """One py_ecc point as the library's."""
    return to_library_many([point])[0]


def from_library(point) -> tuple:
    """The library's G1 or G2 point as a py_ecc point (Jacobian, z = 1; the identity as Z1/Z2), checked on the curve."""
    ark = load_library()
    data = point.to_xy_bytes_be()
    words = [int.from_bytes(data[i : i + FQ_BYTES], "big") for i in range(0, len(data), FQ_BYTES)]
    g2 = isinstance(point, ark.G2Point)
    if not any(words):
        return Z2 if g2 else Z1
    if g2:
        x, y, one, curve_b = FQ2(words[0:2]), FQ2(words[2:4]), FQ2.one(), b2
    else:
        x, y, one, curve_b = FQ(words[0]), FQ(words[1]), FQ.one(), b
    result = (x, y, one)
    if not is_on_curve(result, curve_b):
        raise ToolkitError(f"{DISTRIBUTION} returned a point that is not on the curve: {data.hex()}")
    return result


def to_library_scalar(value: int):
    """An int in [0, r) as the library's scalar; anything else is refused, never reduced."""
    ark = load_library()
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInputError("scalar", f"expected an int in [0, r), got {value!r}")
    try:
        return ark.Scalar.from_be_bytes(value.to_bytes(SCALAR_BYTES, "big"))
    except (OverflowError, ValueError):
        raise InvalidInputError("scalar", f"{value:#x} is not in [0, r)") from None


# ---------------------------------------------------------------------------------------------
# Decoding: the ZCash encoding, with the library's curve checks


def decode_zcash_many(encodings: list[bytes], g2: bool, compressed: bool) -> tuple[list, int | None]:
    """Decode ZCash encodings (reference/encoding.py) in order, up to the first one refused.

    Each gets reference/encoding.py's canonical-form checks (canonical_words: length, flags, the one form of the
    identity, coordinates < p), then the library's: square root and sort flag (compressed), on the curve, in the
    prime-order subgroup. Returns (one entry per accepted encoding: None for the identity, else the affine
    x || y as the library writes it, see from_xy_bytes; the index of the first refused encoding or None). The
    caller decodes that one again with the reference, which names the problem (vectors/decoding.py)."""
    ark = load_library()
    point_type, wire = (ark.G2Point, G2_WIRE) if g2 else (ark.G1Point, G1_WIRE)
    decoded = []
    for index, data in enumerate(encodings):
        try:
            canonical = canonical_words(data, wire, "", compressed)
            if canonical is None:
                decoded.append(None)
                continue
            words = canonical[1]
            if compressed:
                xy = point_type.from_compressed_bytes(bytes(data)).to_xy_bytes_be()
            elif not any(words):  # the library reads (0, 0) as the identity; the reference: not on the curve
                return decoded, index
            else:
                xy = _library_coordinate_order(words, g2)
                point_type.from_xy_bytes_be(xy)
        except (PointEncodingError, ValueError):
            return decoded, index
        decoded.append(xy)
    return decoded, None


def _library_coordinate_order(wire_words: list[int], g2: bool) -> bytes:
    """Uncompressed wire words (Fq2 as c1, c0) as the library's x || y bytes (Fq2 as c0 || c1)."""
    if g2:
        wire_words = [wire_words[1], wire_words[0], wire_words[3], wire_words[2]]
    return b"".join(w.to_bytes(FQ_BYTES, "big") for w in wire_words)


def from_xy_bytes(xy: bytes | None, g2: bool) -> tuple:
    """A py_ecc point (z = 1) from the library's affine x || y bytes (Fq2 as c0 || c1), None for the identity;
    for points the library has checked (decode_zcash_many), so no check here."""
    if xy is None:
        return Z2 if g2 else Z1
    words = [int.from_bytes(xy[i : i + FQ_BYTES], "big") for i in range(0, len(xy), FQ_BYTES)]
    if g2:
        return (FQ2(words[0:2]), FQ2(words[2:4]), FQ2.one())
    return (FQ(words[0]), FQ(words[1]), FQ.one())


# ---------------------------------------------------------------------------------------------
# Arithmetic


def msm(points: list, scalars: list[int], identity: tuple) -> tuple:
    """sum_i s_i * P_i by the library, as a py_ecc point. ``points`` are py_ecc points or the library's
    (to_library_many, converted once for many MSMs over one key); ``identity`` (Z1 or Z2) is the empty sum."""
    if len(points) != len(scalars):
        raise InvalidInputError("msm", f"{len(points)} points but {len(scalars)} scalars")
    if not points:
        return identity
    ark = load_library()
    library_points = points if isinstance(points[0], (ark.G1Point, ark.G2Point)) else to_library_many(points)
    point_type = type(library_points[0])
    return from_library(point_type.multiexp_unchecked(library_points, [to_library_scalar(s) for s in scalars]))


def pairing_product_is_one(pairs: list[tuple[tuple, tuple]]) -> bool:
    """prod_k e(P_k, Q_k) == 1 by the library, for py_ecc (G1 point P_k, G2 point Q_k)."""
    ark = load_library()
    return ark.GT.pairing_check(to_library_many([p for p, _ in pairs]), to_library_many([q for _, q in pairs]))
