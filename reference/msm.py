"""Multi-scalar multiplication over G1 or G2: what the phases compute, and how the kernels compute it.

``msm(points, scalars)`` = sum_i s_i * P_i is the definition msm_h and tail_msm use; it is all a reader of
those phases needs. Every correct method gives the same group element.

The rest of this module is the *model for the GPU kernels* (gpu/msm.py), not part of the specification:
msm_pippenger, the bucket method with signed-digit windows, written plainly so that each step (digits,
buckets, running sums, Horner) can be compared with a kernel's; msm_naive, the oracle (one
double-and-add per point); and FixedBaseTable, the fixed-base windows the test-only setup uses.
Points are py_ecc projective tuples; py_ecc's add works for G1 and G2.

Pippenger, "On the evaluation of powers and monomials", SIAM J. Comput. 9 (1980); the bucket
form with running sums as in Bernstein, Doumen, Lange, Oosterwijk, "Faster batch forgery
identification", INDOCRYPT 2012, section 4.
"""
from .curve import FQ2, add, double, is_identity, multiply, neg
from .errors import InvalidInputError, ScalarRangeError, SizeMismatchError
from .field import R

SCALAR_BITS = 256
"""Bits the windows cover. Scalars are < r < 2^255, so bit 255 is always zero: room for the carry."""

MAX_WINDOW_BITS = 20
"""Largest window width accepted: 2^19 buckets per window is already far past any useful size."""

DEFAULT_TABLE_WINDOW_BITS = 8
"""FixedBaseTable default: 32 windows x 128 multiples = 4096 precomputed points per base."""


def num_windows(window_bits: int) -> int:
    """W = ceil(256 / c), the number of c-bit windows covering a 256-bit scalar."""
    return -(-SCALAR_BITS // window_bits)


def _check_window_bits(window_bits) -> int:
    if isinstance(window_bits, bool) or not isinstance(window_bits, int) or not 1 <= window_bits <= MAX_WINDOW_BITS:
        raise InvalidInputError("window_bits", f"must be an integer in 1..{MAX_WINDOW_BITS}, got {window_bits!r}")
    return window_bits


def _check_scalar(scalar, field: str) -> int:
    if isinstance(scalar, bool) or not isinstance(scalar, int):
        raise ScalarRangeError(field, f"expected an int, got {type(scalar).__name__}")
    if not 0 <= scalar < R:
        raise ScalarRangeError(field, f"{scalar:#x} is not in [0, r)")
    return scalar


def signed_digits(scalar: int, c: int, field: str = "scalar") -> list[int]:
    """Signed base-2^c digits d_0..d_{W-1}, W = ceil(256/c), with sum_j d_j 2^(c*j) = scalar and
    -2^(c-1) < d_j <= 2^(c-1) (so |d_j| <= 2^(c-1): buckets 1..2^(c-1) suffice).

    Recoding, lowest window first: v = (window j of the scalar) + carry; if v > 2^(c-1) then
    d_j = v - 2^c and carry = 1, else d_j = v and carry = 0.

    Why W windows suffice although the recoding may carry: scalar < r < 2^255, and the top window
    starts at bit (W-1)*c >= 256 - c, so it holds at most bits (W-1)*c .. 254 of the scalar, at most
    c - 1 bits, a value <= 2^(c-1) - 1. With the incoming carry its v is <= 2^(c-1): it never
    carries out, and the last carry is absorbed.
    """
    _check_window_bits(c)
    _check_scalar(scalar, field)
    half, radix, mask = 1 << (c - 1), 1 << c, (1 << c) - 1
    digits, carry = [], 0
    for j in range(num_windows(c)):
        v = ((scalar >> (c * j)) & mask) + carry
        carry = 1 if v > half else 0
        digits.append(v - radix if carry else v)
    return digits


def pippenger_window_bits(n: int) -> int:
    """The window width c msm_pippenger picks for n points (gpu/msm.py kernel_window_bits has its own rule for the kernels): the c in 1..20 minimizing W(c) * (n + 2^c).

    Cost model: each of the W = ceil(256/c) windows costs n bucket additions plus about
    2 * 2^(c-1) = 2^c additions for the running sums; ties go to the smaller c.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise SizeMismatchError("n", f"must be a non-negative integer, got {n!r}")
    return min(range(1, MAX_WINDOW_BITS + 1), key=lambda c: num_windows(c) * (n + (1 << c)))


def _identity_like(point) -> tuple:
    """O in the group of point: (1 : 1 : 0) over the same field (py_ecc's Z1 / Z2 form)."""
    one = point[0].one()
    return (one, one, point[0].zero())


def _check_inputs(points, scalars, identity):
    """Validate sizes and scalar ranges; return the group's identity."""
    if len(points) != len(scalars):
        raise SizeMismatchError("scalars", f"{len(scalars)} scalars for {len(points)} points")
    for i, scalar in enumerate(scalars):
        _check_scalar(scalar, f"scalars[{i}]")
    if identity is not None:
        return identity
    if not points:
        raise SizeMismatchError("points", "empty, and no identity given: pass identity=Z1 or Z2 to get O")
    return _identity_like(points[0])


def msm_naive(points, scalars, *, identity=None) -> tuple:
    """sum_i s_i * P_i, one py_ecc double-and-add per point: the oracle for every other MSM.

    Scalars must be ints in [0, r) (ScalarRangeError otherwise). `identity` (Z1 or Z2) is the result
    for an empty input, whose group cannot be inferred.
    """
    total = _check_inputs(points, scalars, identity)
    for point, scalar in zip(points, scalars):
        total = add(total, multiply(point, scalar))
    return total


def _double_times(point, times: int):
    """[2^times] P. O is returned as is: py_ecc's double maps (1 : 1 : 0) to (0 : -27 : 0) and then
    to (0 : 0 : 0), which py_ecc's eq would call equal to every point."""
    if is_identity(point):
        return point
    for _ in range(times):
        point = double(point)
    return point


def _reduce_buckets(buckets: dict, identity):
    """sum_k k * B_k over the non-empty buckets {k: B_k}, by running sums from the top bucket down.

    running_k = B_top + ... + B_k and sum_{k >= 1} running_k counts each B_k exactly k times. Over a
    stretch of g empty buckets running_k does not change, so its g additions into the total are
    made at once as [g] running: the same sum as the plain loop over all 2^(c-1) buckets, without
    walking tens of thousands of empty buckets for a handful of points when c is large.
    """
    running = total = identity
    indices = sorted(buckets, reverse=True) + [0]
    for k, next_k in zip(indices, indices[1:]):
        running = add(running, buckets[k])
        if not is_identity(running):
            total = add(total, multiply(running, k - next_k))
    return total


def _window_sum(points, digits, identity):
    """sum_i d_i * P_i for one window: P_i goes into bucket |d_i|, negated when d_i < 0."""
    buckets = {}
    for point, digit in zip(points, digits):
        if digit != 0:
            signed_point = point if digit > 0 else neg(point)
            buckets[abs(digit)] = add(buckets.get(abs(digit), identity), signed_point)
    return _reduce_buckets(buckets, identity)


def msm_pippenger(points, scalars, window_bits=None, *, identity=None) -> tuple:
    """sum_i s_i * P_i by Pippenger's bucket method with signed c-bit digits (see signed_digits).

    For each window j (top first): S_j = sum_i d_ij * P_i via 2^(c-1) buckets reduced by running
    sums; the windows are combined by Horner: acc = 2^c * acc + S_j (c doublings, then one add).
    window_bits=None picks c with pippenger_window_bits(n): the c in 1..20 minimizing W(c) * (n + 2^c).
    Scalars must be ints in [0, r) (ScalarRangeError otherwise); works for G1 and G2; `identity`
    (Z1 or Z2) is the result for an empty input.
    """
    acc = zero = _check_inputs(points, scalars, identity)
    c = pippenger_window_bits(len(points)) if window_bits is None else _check_window_bits(window_bits)
    digit_rows = [signed_digits(s, c, f"scalars[{i}]") for i, s in enumerate(scalars)]
    for j in reversed(range(num_windows(c))):
        acc = _double_times(acc, c)
        acc = add(acc, _window_sum(points, [row[j] for row in digit_rows], zero))
    return acc


def msm(points, scalars, *, identity) -> tuple:
    """sum_i s_i * P_i over G1 or G2, scalars in [0, r); ``identity`` (Z1 or Z2) is the sum of nothing.

    Computed by msm_pippenger (the kernels' model); the value is the group element above, whatever the method.
    """
    return msm_pippenger(points, scalars, identity=identity)


class FixedBaseTable:
    """Precomputed d * 2^(c*w) * B for every window w < W = ceil(256/c) and digit d in 1..2^(c-1),
    so that k*B = sum_w sign(d_w) * table[w][|d_w|] costs one addition per window (signed digits of k,
    see signed_digits). Used to make many keys from one base (G1 or G2).

    Fixed-base windowing: Brickell, Gordon, McCurley, Wilson, "Fast exponentiation with
    precomputation", EUROCRYPT 1992 (here with signed digits to halve the table).
    """

    def __init__(self, base, window_bits: int = DEFAULT_TABLE_WINDOW_BITS):
        self.window_bits = _check_window_bits(window_bits)
        self.identity = _identity_like(base)
        half = 1 << (self.window_bits - 1)
        self.rows = []  # rows[w][d - 1] = d * 2^(c*w) * base
        window_base = base
        for w in range(num_windows(self.window_bits)):
            row = [window_base]
            for _ in range(half - 1):
                row.append(add(row[-1], window_base))
            self.rows.append(row)
            window_base = _double_times(window_base, self.window_bits)

    def mul(self, k: int, field: str = "scalar") -> tuple:
        """k * base for k in [0, r) (ScalarRangeError otherwise), one table addition per window."""
        acc = self.identity
        for row, digit in zip(self.rows, signed_digits(k, self.window_bits, field)):
            if digit > 0:
                acc = add(acc, row[digit - 1])
            elif digit < 0:
                acc = add(acc, neg(row[-digit - 1]))
        return acc

    def mul_many(self, scalars) -> list:
        """[k * base for k in scalars]; a bad scalar is named by its index."""
        return [self.mul(k, f"scalars[{i}]") for i, k in enumerate(scalars)]


# ---------------------------------------------------------------------------------------------
# The curve primitive the phases and the setup call


class ReferenceCurve:
    """The group arithmetic the prover's phases (msm_h, batch_add, tail_msm) and the test-only setup call, in one
    object: ``prove(..., curve=...)`` and ``setup(..., curve=...)`` take it as a parameter.

    Why it can be swapped: each method returns one group element (or a list of them) that has exactly one correct
    value, whatever the method of computing it. This object, pure Python, is the definition and the default. An
    independent library computes the same values about a hundred times faster (vectors/fast_library.py,
    ``ArkworksCurve``), which is what makes vectors of 2^16..2^20 constraints practical; `python -m vectors check
    --reference` recomputes every value with this object, and tests/test_fast_generation.py shows both agree bit
    for bit. The phases' logic (which points, which scalars, in which order) stays in the phase modules: only the
    arithmetic below is swapped.
    """

    name = "reference"
    """The name a vector records for values computed here (vectors/FORMAT.md, ``computed_by``)."""

    def msm(self, points, scalars, identity) -> tuple:
        """sum_i scalars[i] * points[i] (``msm``)."""
        return msm(list(points), list(scalars), identity=identity)

    def msm_at(self, points, indices, scalars, identity) -> tuple:
        """sum_k scalars[k] * points[indices[k]]."""
        return self.msm([points[i] for i in indices], scalars, identity)

    def sum_at(self, points, indices, identity) -> tuple:
        """sum_{i in indices} points[i]."""
        total = identity
        for i in indices:
            total = add(total, points[i])
        return total

    def generator_multiples(self, base, scalars, progress=None) -> list:
        """[k * base for k in scalars] for base G1 or G2 (py_ecc's generators), by a fixed-base table;
        ``progress(done)`` is called after each stretch of work."""
        table = _generator_table(base)
        out = []
        for start in range(0, len(scalars), PROGRESS_STRETCH):
            out += [table.mul(k, f"scalars[{start + i}]") for i, k in enumerate(scalars[start : start + PROGRESS_STRETCH])]
            if progress:
                progress(len(out))
        return out


PROGRESS_STRETCH = 1 << 12
"""Points computed between two progress reports of ``generator_multiples``."""

_TABLES: dict = {}
"""base's coordinates (_coordinates_key) -> its FixedBaseTable, for the bases seen so far (G1 and G2): each built
once per process."""


def _coordinates_key(point) -> tuple:
    """The point's coordinates as ints, an Fq2 one as its (c0, c1): equal exactly when the coordinates are."""
    return tuple(c.coeffs if isinstance(c, FQ2) else (c.n,) for c in point)


def _generator_table(base) -> FixedBaseTable:
    """The fixed-base table of ``base``, built once per process (seconds in pure Python)."""
    key = _coordinates_key(base)  # a dict lookup, not a list scan; ints, as py_ecc's field elements are unhashable
    if key not in _TABLES:
        _TABLES[key] = FixedBaseTable(base)
    return _TABLES[key]


REFERENCE_CURVE = ReferenceCurve()
"""The default curve primitive: the pure-Python definition."""
