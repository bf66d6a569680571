"""BLS12-381 G1 and G2: points and the group law, one set of formulas for both groups.

Points are py_ecc.optimized_bls12_381 homogeneous projective tuples (X, Y, Z) meaning the affine
point (X/Z, Y/Z); Z = 0 is the point at infinity (the identity). G1 lives on E: y^2 = x^3 + 4
over Fq, G2 on the M-type sextic twist E': y^2 = x^3 + 4(u + 1) over Fq2 = Fq[u]/(u^2 + 1).
py_ecc's FQ2([c0, c1]) is c0 + c1*u. py_ecc's add / double / multiply / neg serve both groups; they are
re-exported here as the project's point arithmetic.

The fast path on plain ints (reference/fq.py) has one Jacobian group law, ``Jacobian(field, b)``, that
serves E over FQ_INTS and E' over FQ2_INTS; ``G1_INTS`` and ``G2_INTS`` are its two instances. Decoding
(reference/encoding.py) and the subgroup checks (reference/subgroup.py) use it.

The other concerns live in their own modules: the ZCash wire format in reference/encoding.py, the
prime-order subgroup checks and endomorphisms in reference/subgroup.py.
"""
from dataclasses import dataclass

from py_ecc.optimized_bls12_381 import (  # re-exported: the project's point arithmetic
    FQ,
    FQ2,
    G1,
    G2,
    Z1,
    Z2,
    add,
    b as G1_B,
    b2 as G2_B,
    double,
    is_on_curve,
    multiply,
    neg,
    normalize,
)

from .field import P, batch_inverse
from .fq import FQ2_INTS, FQ_INTS

__all__ = [
    "FQ", "FQ2", "G1", "G2", "Z1", "Z2", "add", "double", "multiply", "neg", "normalize",
    "is_py_ecc_point", "is_identity", "g1_eq", "g2_eq", "to_affine_batch", "affine_ints",
    "g1_is_on_curve", "g2_is_on_curve", "Jacobian", "G1_INTS", "G2_INTS",
]


# ---------------------------------------------------------------------------------------------
# py_ecc points: identity, equality, affine form, curve membership
# ---------------------------------------------------------------------------------------------


def is_py_ecc_point(value, coordinate_field) -> bool:
    """True when ``value`` has the shape of a py_ecc projective point over ``coordinate_field`` (FQ for G1, FQ2 for
    G2): a tuple of three elements of that field. Curve arithmetic on anything else raises or, for a G2 point where a
    G1 point belongs, computes in the wrong field; so a backend's output and a writer's input are held to it first."""
    return isinstance(value, tuple) and len(value) == 3 and all(isinstance(c, coordinate_field) for c in value)


def is_identity(point) -> bool:
    """True when point is the identity O (projective Z = 0); works for G1 and G2."""
    return point[2] == point[2].zero()


def points_eq(p1, p2) -> bool:
    """(X1 : Y1 : Z1) == (X2 : Y2 : Z2) as points of G1 or G2: both O, or X1*Z2 == X2*Z1 and Y1*Z2 == Y2*Z1."""
    if is_identity(p1) or is_identity(p2):
        return is_identity(p1) and is_identity(p2)
    x1, y1, z1 = p1
    x2, y2, z2 = p2
    return x1 * z2 == x2 * z1 and y1 * z2 == y2 * z1


g1_eq = g2_eq = points_eq
"""P1 == P2 in G1 / G2 (the same projective comparison; two names for readable call sites)."""


def affine_ints(points) -> list:
    """[(x, y) for each point] as ints (G1) or (c0, c1) pairs (G2), None where the point is O.

    One Fq inversion for the whole list (field.batch_inverse): of Z in G1, of the norm N(Z) = z0^2 + z1^2
    in G2 (1/Z = conj(Z)/N(Z)). G1 and G2 points may not be mixed in one call.
    """
    field = FQ2_INTS if points and isinstance(points[0][2], FQ2) else FQ_INTS
    coordinates = [tuple(field.from_py_ecc(c) for c in point) for point in points]
    finite = [i for i, (_, _, z) in enumerate(coordinates) if z != field.zero]
    if field is FQ_INTS:
        z_inverses = batch_inverse([coordinates[i][2] for i in finite], P)
    else:
        norm_inverses = batch_inverse([FQ2_INTS.norm(coordinates[i][2]) for i in finite], P)
        z_inverses = [FQ2_INTS.mul(FQ2_INTS.conj(coordinates[i][2]), (n, 0)) for i, n in zip(finite, norm_inverses)]
    out: list = [None] * len(points)
    for i, z_inverse in zip(finite, z_inverses):
        x, y, _ = coordinates[i]
        out[i] = (field.mul(x, z_inverse), field.mul(y, z_inverse))
    return out


def to_affine_batch(points) -> list:
    """[(X/Z, Y/Z) for each point] as py_ecc field elements, None where the point is O (see affine_ints)."""
    in_g2 = bool(points) and isinstance(points[0][2], FQ2)
    wrap = (lambda pair: FQ2(list(pair))) if in_g2 else FQ
    return [None if a is None else (wrap(a[0]), wrap(a[1])) for a in affine_ints(points)]


def g1_is_on_curve(point) -> bool:
    """Y^2 Z == X^3 + 4 Z^3 (the projective form of y^2 = x^3 + 4); O counts as on the curve."""
    return is_on_curve(point, G1_B)


def g2_is_on_curve(point) -> bool:
    """Y^2 Z == X^3 + 4(u + 1) Z^3 (projective y^2 = x^3 + 4(u+1) on the twist); O counts as on it."""
    return is_on_curve(point, G2_B)


# ---------------------------------------------------------------------------------------------
# The group law on ints, once for both groups
# ---------------------------------------------------------------------------------------------

EFD_JACOBIAN_A0 = "https://hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html"
"""The Explicit-Formulas Database (Bernstein-Lange) page for Jacobian coordinates on short
Weierstrass curves y^2 = x^3 + b with a = 0. Its formulas never use b, so they serve E and E'."""


@dataclass(frozen=True)
class Jacobian:
    """y^2 = x^3 + b over ``field`` (reference/fq.py FQ_INTS or FQ2_INTS), Jacobian coordinates:
    (X, Y, Z) means the affine (X/Z^2, Y/Z^3); Z = 0 is O, represented as (1, 1, 0)."""

    field: object
    b: object
    """The curve constant, as an element of ``field``."""
    name: str

    @property
    def identity(self):
        f = self.field
        return f.one, f.one, f.zero

    def rhs(self, x):
        """x^3 + b: y^2 for a point with abscissa x."""
        f = self.field
        return f.add(f.mul(f.sqr(x), x), self.b)

    def double(self, point):
        """[2](X1 : Y1 : Z1): "dbl-2009-l", 2M + 5S (EFD_JACOBIAN_A0#doubling-dbl-2009-l).
        Needs no special case: Z1 = 0 (O) or Y1 = 0 (a point of order 2) gives Z3 = 0, the identity."""
        add, sub, mul, sqr, small = self.field.add, self.field.sub, self.field.mul, self.field.sqr, self.field.mul_small
        x1, y1, z1 = point
        a = sqr(x1)
        b = sqr(y1)
        c = sqr(b)
        d = small(2, sub(sub(sqr(add(x1, b)), a), c))
        e = small(3, a)
        x3 = sub(sqr(e), small(2, d))
        y3 = sub(mul(e, sub(d, x3)), small(8, c))
        z3 = small(2, mul(y1, z1))
        return x3, y3, z3

    def add_affine(self, point, x2, y2):
        """(X1 : Y1 : Z1) + (x2, y2), Jacobian plus affine ("mixed"): "madd-2007-bl", 7M + 4S
        (EFD_JACOBIAN_A0#addition-madd-2007-bl).

        The formula assumes two distinct finite points; the exceptions are decided first, as points of small
        order outside the subgroup reach them: O + Q = Q; equal x (H = 0) means Q = P, so [2]P, when also
        r = 0 (equal y), else Q = -P and the sum is O.
        """
        f = self.field
        x1, y1, z1 = point
        if z1 == f.zero:
            return x2, y2, f.one
        z1z1 = f.sqr(z1)
        u2 = f.mul(x2, z1z1)
        s2 = f.mul(y2, f.mul(z1, z1z1))
        h = f.sub(u2, x1)
        r = f.mul_small(2, f.sub(s2, y1))
        if h == f.zero:
            return self.double(point) if r == f.zero else self.identity
        hh = f.sqr(h)
        i = f.mul_small(4, hh)
        j = f.mul(h, i)
        v = f.mul(x1, i)
        x3 = f.sub(f.sub(f.sqr(r), j), f.mul_small(2, v))
        y3 = f.sub(f.mul(r, f.sub(v, x3)), f.mul_small(2, f.mul(y1, j)))
        z3 = f.sub(f.sub(f.sqr(f.add(z1, h)), z1z1), hh)
        return x3, y3, z3

    def mul(self, x, y, scalar: int):
        """[scalar](x, y) for an affine point and scalar >= 1, as a Jacobian point: left-to-right
        double-and-add, so every addition adds the affine base (mixed addition)."""
        acc = (x, y, self.field.one)
        for bit in bin(scalar)[3:]:  # the bits below the leading 1, most significant first
            acc = self.double(acc)
            if bit == "1":
                acc = self.add_affine(acc, x, y)
        return acc


G1_INTS = Jacobian(FQ_INTS, FQ_INTS.from_py_ecc(G1_B), "y^2 = x^3 + 4")
G2_INTS = Jacobian(FQ2_INTS, FQ2_INTS.from_py_ecc(G2_B), "y^2 = x^3 + 4(u + 1)")
