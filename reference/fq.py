"""The base field Fq and its quadratic extension Fq2 = Fq[u]/(u^2 + 1), on plain Python ints.

py_ecc's FQ / FQ2 objects carry the readable arithmetic (reference/curve.py re-exports them). This module
is the fast path used where thousands of key points are decoded and checked (reference/encoding.py,
reference/subgroup.py) and where the GPU side converts points (gpu/points.py): py_ecc allocates an object
per field operation, ints are several times faster.

Both fields are objects with the same methods (``add, sub, neg, mul, sqr, mul_small, inv, sqrt, ...``),
so that one set of curve formulas (reference/curve.py ``Jacobian``) serves G1 over ``FQ_INTS`` and G2
over ``FQ2_INTS``, as py_ecc's formulas serve FQ and FQ2. An Fq element is an int in [0, p); an Fq2
element c0 + c1*u is the pair (c0, c1). Every method returns canonical values.
"""
from .field import P

HALF = pow(2, -1, P)
"""1/2 in Fq."""

FQ_SQRT_EXPONENT = (P + 1) // 4
"""p = 3 (mod 4), so a square a has the root a^((p + 1)/4)."""

HALF_P = (P - 1) // 2
"""An Fq element y is "lexicographically largest" (ZCash) when y > (p - 1)/2."""


class _Fq:
    """Fq on ints."""

    zero, one = 0, 1

    @staticmethod
    def add(a, b):
        return (a + b) % P

    @staticmethod
    def sub(a, b):
        return (a - b) % P

    @staticmethod
    def neg(a):
        return -a % P

    @staticmethod
    def mul(a, b):
        return a * b % P

    @staticmethod
    def sqr(a):
        return a * a % P

    @staticmethod
    def mul_small(k: int, a):
        """k * a for a small int k (the curve formulas' constants 2, 3, 4, 8)."""
        return k * a % P

    @staticmethod
    def inv(a):
        return pow(a, -1, P)

    @staticmethod
    def sqrt(a):
        """A y with y^2 = a, or None when a is not a square: y = a^((p+1)/4) since p = 3 mod 4."""
        y = pow(a, FQ_SQRT_EXPONENT, P)
        return y if y * y % P == a % P else None

    @staticmethod
    def is_largest(y) -> bool:
        """ZCash "lexicographically largest": y > (p - 1)/2."""
        return y > HALF_P

    @staticmethod
    def from_py_ecc(element):
        return int(element) % P


class _Fq2:
    """Fq2 on pairs (c0, c1) = c0 + c1*u, u^2 = -1."""

    zero, one = (0, 0), (1, 0)

    @staticmethod
    def add(a, b):
        return (a[0] + b[0]) % P, (a[1] + b[1]) % P

    @staticmethod
    def sub(a, b):
        return (a[0] - b[0]) % P, (a[1] - b[1]) % P

    @staticmethod
    def neg(a):
        return -a[0] % P, -a[1] % P

    @staticmethod
    def mul(a, b):
        """Karatsuba, three Fq products instead of four (u^2 = -1):
        (a0 + a1 u)(b0 + b1 u) = (v0 - v1) + ((a0 + a1)(b0 + b1) - v0 - v1) u, v0 = a0 b0, v1 = a1 b1.
        Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and squaring on pairing-friendly fields",
        ePrint 2006/471."""
        (a0, a1), (b0, b1) = a, b
        v0, v1 = a0 * b0, a1 * b1
        return (v0 - v1) % P, ((a0 + a1) * (b0 + b1) - v0 - v1) % P

    @staticmethod
    def sqr(a):
        """Complex squaring, two Fq products: (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u (ePrint 2006/471)."""
        a0, a1 = a
        return (a0 + a1) * (a0 - a1) % P, 2 * a0 * a1 % P

    @staticmethod
    def mul_small(k: int, a):
        return k * a[0] % P, k * a[1] % P

    @staticmethod
    def conj(a):
        """The Frobenius map: (c0 + c1 u)^p = c0 - c1 u."""
        return a[0], -a[1] % P

    @staticmethod
    def norm(a) -> int:
        """N(a) = a * conj(a) = a0^2 + a1^2, an element of Fq."""
        return (a[0] * a[0] + a[1] * a[1]) % P

    @staticmethod
    def inv(a):
        """1 / a (a != 0): conj(a) / N(a)."""
        norm_inverse = pow(_Fq2.norm(a), -1, P)
        return a[0] * norm_inverse % P, -a[1] * norm_inverse % P

    @staticmethod
    def sqrt(a):
        """A y with y^2 = a, or None when a is not a square; norm ("complex") method, Fq arithmetic only
        (Adj and Rodriguez-Henriquez, "Square root computation over even extension fields", ePrint 2012/685,
        section 3): (x0 + x1 u)^2 = a0 + a1 u  <=>  x0^2 - x1^2 = a0 and 2 x0 x1 = a1, so the norm
        N = a0^2 + a1^2 = (x0^2 + x1^2)^2 has a root g in Fq (a is a square iff N is), and
        x0^2 = (a0 + g)/2 or (a0 - g)/2 (whichever is a square), x1 = a1 / (2 x0).
        For a1 = 0: sqrt(a0), or sqrt(-a0) * u when a0 is not a square (-1 is not one).
        The result is checked by squaring."""
        a0, a1 = a
        if a1 == 0:
            root = _Fq.sqrt(a0)
            candidate = (root, 0) if root is not None else (0, _Fq.sqrt(-a0 % P))
        else:
            norm_root = _Fq.sqrt(_Fq2.norm(a))
            if norm_root is None:
                return None
            x0 = _Fq.sqrt((a0 + norm_root) * HALF % P)
            if x0 is None:
                x0 = _Fq.sqrt((a0 - norm_root) * HALF % P)
            if x0 is None:
                return None
            candidate = (x0, a1 * pow(2 * x0, -1, P) % P)
        return candidate if candidate[1] is not None and _Fq2.sqr(candidate) == (a0 % P, a1 % P) else None

    @staticmethod
    def is_largest(y) -> bool:
        """ZCash "lexicographically largest" for Fq2: decided by c1, or by c0 when c1 == 0."""
        c0, c1 = y
        return _Fq.is_largest(c1) if c1 != 0 else _Fq.is_largest(c0)

    @staticmethod
    def from_py_ecc(element):
        return tuple(int(c) % P for c in element.coeffs)


FQ_INTS = _Fq()
FQ2_INTS = _Fq2()
