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
import sys
from array import array
from importlib import metadata

from py_ecc.optimized_bls12_381 import FQ, FQ2, Z1, Z2, b, b2, is_on_curve

from reference.encoding import G1_WIRE, G2_WIRE, canonical_words
from reference.errors import InvalidInputError, PointEncodingError, ToolkitError
from reference.field import P, batch_inverse
from reference.keys import check_verifying_key
from reference.verifier import check_public_inputs, verification_pairs, verify


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


def from_xy_bytes(xy: bytes | None, g2: bool) -> tuple:
    """The one conversion of the library's affine bytes to a py_ecc point: x || y big-endian (Fq2 as c0 || c1) as
    (x, y, 1); the identity (all zeros, as the library writes it, or None) as Z1 or Z2 itself. No check here: each
    caller has one (from_library; generator_multiples_xy before it sends; the library's in decode_zcash_many)."""
    if xy is None or not any(xy):
        return Z2 if g2 else Z1
    words = _xy_words(xy)
    if g2:
        return (FQ2(words[0:2]), FQ2(words[2:4]), _FQ2_ONE)
    return (FQ(words[0]), FQ(words[1]), _FQ_ONE)


_FQ_ONE, _FQ2_ONE = FQ.one(), FQ2.one()
"""z = 1, one object shared by the points from_xy_bytes makes (py_ecc's arithmetic never changes an element in place),
so that converting a key does not build a new one for each point."""


def _xy_words(xy: bytes) -> list[int]:
    """The library's affine bytes as big-endian Fq words: x, y (G1) or x.c0, x.c1, y.c0, y.c1 (G2)."""
    return [int.from_bytes(xy[i : i + FQ_BYTES], "big") for i in range(0, len(xy), FQ_BYTES)]


def from_library(point) -> tuple:
    """The library's G1 or G2 point as a py_ecc point (from_xy_bytes), checked on the curve."""
    ark = load_library()
    data = point.to_xy_bytes_be()
    g2 = isinstance(point, ark.G2Point)
    result = from_xy_bytes(data, g2)
    if not is_on_curve(result, b2 if g2 else b):  # py_ecc counts the identity as on the curve
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


def verifies(vk, public_inputs: list[int], proof) -> bool:
    """Groth16's equation as reference/verifier.py ``verify`` (its signature, its checks of the key and the inputs, its
    pairs), with X and the pairing product computed by the library."""
    check_verifying_key(vk)
    check_public_inputs(vk, public_inputs)
    x = msm(list(vk.ic), [1] + list(public_inputs), Z1)
    return pairing_product_is_one(verification_pairs(vk, x, proof))


# ---------------------------------------------------------------------------------------------
# Curve primitives for the reference prover and setup
#
# ArkworksCurve has the methods of reference/msm.py ``ReferenceCurve`` (whose docstring says why the phases and the
# setup take the arithmetic as a parameter) and computes the same group elements with the library. Results come
# back as py_ecc points, checked on the curve; the key points this object computed or converted are remembered as
# library points, so that a key's queries cross over once, not once per MSM.


POOL_WINDOW_BITS = 16
"""Fixed-base window of the pool workers: 16 unsigned windows x (2^16 - 1) precomputed multiples (1 M library points:
about 1 s of library additions and 0.2 GB for G1, 4 s and 0.35 GB for G2, once per worker), so that a multiple costs
at most 16 library additions instead of a 252 us (G1) or 850 us (G2) scalar multiplication (bench/RESULTS_generate.md)."""
SMALL_WINDOW_BITS = 8
"""Fixed-base window for fewer multiples, computed in this process: a table of 32 x 255 points, built at once."""
DIGIT_TYPE = {8: "B", 16: "H"}
"""The array type code whose items are the c-bit windows of a scalar's little-endian bytes."""
POOL_MIN_POINTS = 1 << 14
"""Fewest multiples worth a process pool: below, starting the workers and their tables costs more than it saves."""
STRETCH = 1 << 14
"""Multiples per unit of pool work, and between two progress reports."""

_TABLES = {}


def _fixed_base_table(g2: bool, window_bits: int) -> list:
    """rows[w][d - 1] = d * 2^(c*w) * generator for d in 1..2^c - 1 (unsigned windows), library points built by
    library additions, once per process and window width."""
    key = (g2, window_bits)
    if key not in _TABLES:
        ark = load_library()
        window_base = ark.G2Point() if g2 else ark.G1Point()  # the library's default point is the generator
        rows = []
        for _ in range(SCALAR_BYTES * 8 // window_bits):
            row = [window_base]
            for _ in range((1 << window_bits) - 2):
                row.append(row[-1] + window_base)
            rows.append(row)
            window_base = row[-1] + window_base  # (2^c - 1) + 1 = 2^c times the window's base
        _TABLES[key] = rows
    return _TABLES[key]


def _windows(k: int, window_bits: int) -> array:
    """k's unsigned c-bit windows, lowest first: sum_w d_w 2^(c*w) = k."""
    digits = array(DIGIT_TYPE[window_bits], k.to_bytes(SCALAR_BYTES, "little"))
    if sys.byteorder == "big":
        digits.byteswap()
    return digits


def generator_multiples_xy(g2: bool, window_bits: int, scalars: list[int]) -> bytes:
    """k * G1 (or G2) for each k in [0, r), as the library's affine bytes one after the other (a pool worker's unit
    of work): sum_w table[w][d_w] over k's c-bit windows. Each result is checked on the curve here, in integers
    (reference/curve.py), before it is sent."""
    from reference.curve import G1_INTS, G2_INTS

    ark = load_library()
    rows = _fixed_base_table(g2, window_bits)
    identity = ark.G2Point.identity() if g2 else ark.G1Point.identity()
    curve = G2_INTS if g2 else G1_INTS
    out = []
    for k in scalars:
        acc = identity
        for row, digit in zip(rows, _windows(k, window_bits)):
            if digit:
                acc = acc + row[digit - 1]
        xy = acc.to_xy_bytes_be()
        if any(xy) and not _on_curve_xy(xy, curve, g2):
            raise ToolkitError(f"{DISTRIBUTION} returned a point that is not on the curve: {xy.hex()}")
        out.append(xy)
    return b"".join(out)


def _on_curve_xy(xy: bytes, curve, g2: bool) -> bool:
    """y^2 == x^3 + b for the library's affine bytes (Fq2 as c0 || c1)."""
    words = _xy_words(xy)
    x, y = ((words[0], words[1]), (words[2], words[3])) if g2 else (words[0], words[1])
    return curve.field.sqr(y) == curve.rhs(x)


_POOL = []


def _pool():
    """One process pool per process (os.cpu_count() workers), started on first use. The workers are forked: they
    need no re-import of the caller's main module, and run only library additions and conversions, never the
    library's threaded multiexp (whose threads a fork does not copy)."""
    if not _POOL:
        import atexit
        import multiprocessing
        import os
        from concurrent.futures import ProcessPoolExecutor

        _POOL.append(ProcessPoolExecutor(max_workers=os.cpu_count(), mp_context=multiprocessing.get_context("fork")))
        atexit.register(_POOL[0].shutdown)  # before the interpreter's teardown, which the pool's own clean-up outlives
    return _POOL[0]


class ArkworksCurve:
    """reference/msm.py ``ReferenceCurve``'s arithmetic by the library (see this section's opening comment)."""

    def __init__(self):
        self.name = implementation()
        self._known = {}  # id(py_ecc point) -> (that point, the same point as the library's)

    # crossing over, remembered

    def _library_points(self, points) -> list:
        """``points`` (py_ecc) as library points: the remembered ones looked up, the others converted together."""
        found = [self._known.get(id(p)) for p in points]
        missing = [p for p, hit in zip(points, found) if hit is None]
        converted = iter(to_library_many(missing))
        out = []
        for p, hit in zip(points, found):
            if hit is None:
                hit = (p, next(converted))
                self._known[id(p)] = hit
            out.append(hit[1])
        return out

    def _py_ecc_points(self, data: bytes, g2: bool) -> list:
        """The affine bytes generator_multiples_xy sends (checked on the curve there) as py_ecc points, remembered."""
        ark = load_library()
        point_type, identity = (ark.G2Point, Z2) if g2 else (ark.G1Point, Z1)
        size = (4 if g2 else 2) * FQ_BYTES
        out = []
        for start in range(0, len(data), size):
            xy = data[start : start + size]
            point = from_xy_bytes(xy, g2)
            library_point = point_type.identity() if point is identity else point_type.from_xy_bytes_unchecked_be(xy)
            self._known[id(point)] = (point, library_point)
            out.append(point)
        return out

    # the methods of ReferenceCurve

    def msm(self, points, scalars, identity) -> tuple:
        """sum_i scalars[i] * points[i]."""
        return self.msm_at(points, range(len(points)), scalars, identity)

    def msm_at(self, points, indices, scalars, identity) -> tuple:
        """sum_k scalars[k] * points[indices[k]]."""
        if len(indices) != len(scalars):
            raise InvalidInputError("msm", f"{len(indices)} points but {len(scalars)} scalars")
        if not indices:
            return identity
        library_points = self._library_points(points)
        return msm([library_points[i] for i in indices], list(scalars), identity)

    def sum_at(self, points, indices, identity) -> tuple:
        """sum_{i in indices} points[i]."""
        if not indices:
            return identity
        library_points = self._library_points(points)
        total = library_points[indices[0]]
        for i in indices[1:]:
            total = total + library_points[i]
        return from_library(total)

    def generator_multiples(self, base, scalars, progress=None) -> list:
        """[k * base for k in scalars], base G1 or G2 (the generators only), by a fixed-base table of library
        points, in a process pool for many scalars; ``progress(done)`` after each stretch."""
        from py_ecc.optimized_bls12_381 import G1, G2

        g2 = is_g2(base)
        if base != (G2 if g2 else G1):
            raise InvalidInputError("base", "the library's fixed-base tables are of the generators G1 and G2 only")
        from reference.field import R

        for i, k in enumerate(scalars):
            if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < R:
                raise InvalidInputError(f"scalars[{i}]", f"expected an int in [0, r), got {k!r}")
        stretches = [scalars[start : start + STRETCH] for start in range(0, len(scalars), STRETCH)]
        if len(scalars) >= POOL_MIN_POINTS:
            bits = [POOL_WINDOW_BITS] * len(stretches)
            results = _pool().map(generator_multiples_xy, [g2] * len(stretches), bits, stretches)
        else:
            results = (generator_multiples_xy(g2, SMALL_WINDOW_BITS, stretch) for stretch in stretches)
        out = []
        for data in results:
            out += self._py_ecc_points(data, g2)
            if progress:
                progress(len(out))
        return out


def verifier_for(curve):
    """Groth16's verification to go with ``curve`` (the group arithmetic a vector tool computes with): the library's
    (``verifies``) where ``curve`` is the library's, else reference/verifier.py ``verify`` (py_ecc)."""
    from reference.msm import REFERENCE_CURVE

    return verify if curve is REFERENCE_CURVE else verifies


def curve_primitive(reference: bool = False):
    """The arithmetic for the prover and setup: the library's when installed (and not ``reference``), else the
    pure-Python definition (reference/msm.py REFERENCE_CURVE)."""
    from reference.msm import REFERENCE_CURVE

    return ArkworksCurve() if available() and not reference else REFERENCE_CURVE
