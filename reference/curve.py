"""BLS12-381 G1 and G2: points, the ZCash serialization, fast subgroup checks, batch affine.

Points are py_ecc.optimized_bls12_381 homogeneous projective tuples (X, Y, Z) meaning the affine
point (X/Z, Y/Z); Z = 0 is the point at infinity (the identity). G1 lives on E: y^2 = x^3 + 4
over Fq, G2 on the M-type sextic twist E': y^2 = x^3 + 4(u + 1) over Fq2 = Fq[u]/(u^2 + 1).
py_ecc's FQ2([c0, c1]) is c0 + c1*u.

Wire format: the ZCash BLS12-381 serialization, as zkcrypto/bls12_381, blst and bellman write it
(zkcrypto/bls12_381 src/notes/serialization.rs):

* an Fq element is 48 bytes big-endian; an Fq2 element is c1 then c0 (96 bytes);
* G1: compressed = x (48 bytes), uncompressed = x || y (96 bytes);
  G2: compressed = x.c1 || x.c0 (96 bytes), uncompressed = x.c1 || x.c0 || y.c1 || y.c0 (192);
* the three top bits of the first byte are flags: 0x80 compression (set exactly on compressed
  encodings), 0x40 infinity (then every other bit is zero), 0x20 sort (compressed only: y is the
  lexicographically largest of the two square roots);
* "lexicographically largest": for Fq, y > (p - 1)/2; for Fq2, compare c1 first, c0 if c1 == 0.

Decoding validates everything (length, flags, x and y < p, on the curve, in the prime-order
subgroup) and raises reference.errors.PointEncodingError(field, problem) on the first failure.

Decoding (square roots, subgroup checks) runs on plain Python ints, not py_ecc's FQ/FQ2 objects:
every vector load validates thousands of key points, and ints are several times faster because
py_ecc allocates an object per field operation. Everything else here uses py_ecc.
"""
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

from .errors import PointEncodingError
from .field import P

__all__ = [
    "FQ", "FQ2", "G1", "G2", "Z1", "Z2", "add", "double", "multiply", "neg", "normalize",
    "BLS_X", "BETA", "PSI_COEFF_X", "PSI_COEFF_Y",
    "is_identity", "g1_eq", "g2_eq", "g1_sum", "g2_sum", "to_affine_batch",
    "g1_is_on_curve", "g2_is_on_curve", "mul_by_bls_x", "g1_endomorphism", "g2_psi",
    "g1_in_subgroup", "g2_in_subgroup",
    "g1_to_bytes", "g1_from_bytes", "g2_to_bytes", "g2_from_bytes",
    "encode_g1", "decode_g1", "encode_g2", "decode_g2", "encode_g1_many", "encode_g2_many",
    "fq_sqrt", "fq2_sqrt",
]

# ---------------------------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------------------------

BLS_X = -0xD201000000010000
"""The BLS12-381 curve parameter x (negative): p and r are polynomials in it (r = x^4 - x^2 + 1)."""

BLS_X_ABS = -BLS_X
"""|x|, the exponent of the double-and-add chains; low Hamming weight (6), so [x]P is cheap."""

BLS_X_SQUARED = BLS_X**2
"""x^2 (128 bits, Hamming weight 17): the G1 check's multiplier, one chain over the affine P."""

BETA = 0x5F19672FDF76CE51BA69C6076A0F77EADDB3A93BE6F89688DE17D813620A00022E01FFFFFFFEFFFE
"""A primitive cube root of unity in Fq, beta^3 = 1 and beta != 1: phi(x, y) = (beta*x, y) is an
endomorphism of E that acts on G1 as multiplication by -x^2 (only this one of the two primitive
cube roots has that eigenvalue; the other, beta^2, gives x^2 - 1). Value of BETA in
zkcrypto/bls12_381 src/g1.rs (stored there in Montgomery form), converted to canonical form."""

PSI_COEFF_X = FQ2([0, 0x1A0111EA397FE699EC02408663D4DE85AA0D857D89759AD4897D29650FB85F9B409427EB4F49FFFD8BFD00000000AAAD])
"""1 / (u + 1)^((p - 1)/3), the x-coefficient of psi (zkcrypto/bls12_381 src/g2.rs psi_coeff_x)."""

PSI_COEFF_Y = FQ2([
    0x135203E60180A68EE2E9C448D77A2CD91C3DEDD930B1CF60EF396489F61EB45E304466CF3E67FA0AF1EE7B04121BDEA2,
    0x06AF0E0437FF400B6831E36D6BD17FFE48395DABC2D3435E77F76E17009241C5EE67992F72EC05F4C81084FBEDE3CC09,
])
"""1 / (u + 1)^((p - 1)/2), the y-coefficient of psi (zkcrypto/bls12_381 src/g2.rs psi_coeff_y)."""

# The same constants as plain ints, for the int arithmetic of decoding; an Fq2 element is (c0, c1).
G1_B_INT = G1_B.n
G2_B_INTS = tuple(G2_B.coeffs)
PSI_COEFF_X_INTS = tuple(PSI_COEFF_X.coeffs)
PSI_COEFF_Y_INTS = tuple(PSI_COEFF_Y.coeffs)

FQ_BYTES = 48
"""Bytes of one big-endian Fq element (381 bits rounded up; the 3 spare top bits carry flags)."""

G1_COMPRESSED_BYTES = FQ_BYTES
G1_UNCOMPRESSED_BYTES = 2 * FQ_BYTES
G2_COMPRESSED_BYTES = 2 * FQ_BYTES
G2_UNCOMPRESSED_BYTES = 4 * FQ_BYTES

COMPRESSION_FLAG = 0x80
"""First-byte bit 7: the encoding is compressed."""
INFINITY_FLAG = 0x40
"""First-byte bit 6: the point at infinity (every other bit must be zero)."""
SORT_FLAG = 0x20
"""First-byte bit 5 (compressed only): y is the lexicographically largest square root."""
FLAG_MASK = COMPRESSION_FLAG | INFINITY_FLAG | SORT_FLAG

HALF_P = (P - 1) // 2
"""An Fq element y is "lexicographically largest" when y > (p - 1)/2."""

G1_CURVE = "y^2 = x^3 + 4"
G2_CURVE = "y^2 = x^3 + 4(u + 1)"

# ---------------------------------------------------------------------------------------------
# Identity, equality, sums, batch affine
# ---------------------------------------------------------------------------------------------


def is_identity(point) -> bool:
    """True when point is the identity O (projective Z = 0); works for G1 and G2."""
    return point[2] == point[2].zero()


def _projective_eq(p1, p2) -> bool:
    """(X1 : Y1 : Z1) == (X2 : Y2 : Z2) as points: both O, or X1*Z2 == X2*Z1 and Y1*Z2 == Y2*Z1."""
    if is_identity(p1) or is_identity(p2):
        return is_identity(p1) and is_identity(p2)
    x1, y1, z1 = p1
    x2, y2, z2 = p2
    return x1 * z2 == x2 * z1 and y1 * z2 == y2 * z1


def g1_eq(p1, p2) -> bool:
    """P1 == P2 in G1, comparing projective representatives (every identity equals every identity)."""
    return _projective_eq(p1, p2)


def g2_eq(p1, p2) -> bool:
    """P1 == P2 in G2, comparing projective representatives (every identity equals every identity)."""
    return _projective_eq(p1, p2)


def _sum(points, identity):
    total = identity
    for point in points:
        total = add(total, point)
    return total


def g1_sum(points) -> tuple:
    """sum_i P_i in G1 (O for no points), left to right with py_ecc's add."""
    return _sum(points, Z1)


def g2_sum(points) -> tuple:
    """sum_i P_i in G2 (O for no points), left to right with py_ecc's add."""
    return _sum(points, Z2)


def _batch_invert(values: list) -> list:
    """[v^-1 for v in values] in Fq or Fq2 with one inversion (Montgomery's trick: prefix products,
    one inverse of the total, then unwind). P. L. Montgomery, "Speeding the Pollard and elliptic
    curve methods of factorization", Math. Comp. 48 (1987), section 10.3.1."""
    if not values:
        return []
    prefix = [values[0].one()]
    for v in values:
        prefix.append(prefix[-1] * v)
    running = prefix[-1].one() / prefix[-1]
    inverses = [None] * len(values)
    for i in range(len(values) - 1, -1, -1):
        inverses[i] = running * prefix[i]
        running = running * values[i]
    return inverses


def to_affine_batch(points) -> list:
    """[(X/Z, Y/Z) for each point] (py_ecc field elements), None where the point is O.

    One field inversion for the whole list (Montgomery's trick, see _batch_invert) instead of one
    per point; G1 and G2 points may not be mixed in one call.
    """
    finite_z = [pt[2] for pt in points if not is_identity(pt)]
    z_inverses = iter(_batch_invert(finite_z))
    affine = []
    for pt in points:
        if is_identity(pt):
            affine.append(None)
        else:
            z_inv = next(z_inverses)
            affine.append((pt[0] * z_inv, pt[1] * z_inv))
    return affine


# ---------------------------------------------------------------------------------------------
# Curve membership, [x], and the endomorphisms phi (G1) and psi (G2) on py_ecc points
# ---------------------------------------------------------------------------------------------


def g1_is_on_curve(point) -> bool:
    """Y^2 Z == X^3 + 4 Z^3 (the projective form of y^2 = x^3 + 4); O counts as on the curve."""
    return is_on_curve(point, G1_B)


def g2_is_on_curve(point) -> bool:
    """Y^2 Z == X^3 + 4(u + 1) Z^3 (projective y^2 = x^3 + 4(u+1) on the twist); O counts as on it."""
    return is_on_curve(point, G2_B)


def mul_by_bls_x(point):
    """[x]P for the (negative) BLS parameter x: -( [|x|] P ), G1 or G2."""
    return neg(multiply(point, BLS_X_ABS))


def g1_endomorphism(point):
    """phi(X : Y : Z) = (beta*X : Y : Z), i.e. phi(x, y) = (beta*x, y) with beta = BETA.

    GLV endomorphism of E; on G1 it equals multiplication by -x^2 (Scott, ePrint 2021/1130, sec. 6).
    """
    x, y, z = point
    return (x * BETA, y, z)


def _conjugate(element):
    """The Frobenius map of Fq2: (c0 + c1*u)^p = c0 - c1*u."""
    c0, c1 = element.coeffs
    return FQ2([c0, -c1])


def g2_psi(point):
    """psi = untwist o Frobenius o twist on E'(Fq2):
    psi(x, y) = (conj(x) * PSI_COEFF_X, conj(y) * PSI_COEFF_Y); projectively Z -> conj(Z).

    Galbraith-Scott, "Exponentiation in pairing-friendly groups using homomorphisms" (2008);
    coefficients as in zkcrypto/bls12_381 src/g2.rs. On G2, psi acts as multiplication by p = x (mod r).
    """
    x, y, z = point
    return (_conjugate(x) * PSI_COEFF_X, _conjugate(y) * PSI_COEFF_Y, _conjugate(z))


# ---------------------------------------------------------------------------------------------
# Plain-int arithmetic for decoding (ints, not py_ecc objects: see the module docstring)
#
# An Fq2 element is a pair (c0, c1) meaning c0 + c1*u, u^2 = -1; every helper returns canonical
# values in [0, p). A Jacobian point (X, Y, Z) means the affine (X/Z^2, Y/Z^3); Z = 0 is O.
# ---------------------------------------------------------------------------------------------

FQ2_ZERO_INTS = (0, 0)
FQ2_ONE_INTS = (1, 0)
# O in Jacobian coordinates is any (X, Y, 0); (1, 1, 0) is the usual representative.
G1_JACOBIAN_IDENTITY = (1, 1, 0)
G2_JACOBIAN_IDENTITY = (FQ2_ONE_INTS, FQ2_ONE_INTS, FQ2_ZERO_INTS)


def _fq2_add(a, b):
    """a + b in Fq2, coefficient-wise."""
    (a0, a1), (b0, b1) = a, b
    return (a0 + b0) % P, (a1 + b1) % P


def _fq2_sub(a, b):
    """a - b in Fq2, coefficient-wise."""
    (a0, a1), (b0, b1) = a, b
    return (a0 - b0) % P, (a1 - b1) % P


def _fq2_neg(a):
    """-a in Fq2."""
    a0, a1 = a
    return -a0 % P, -a1 % P


def _fq2_mul_small(k: int, a):
    """k * a in Fq2 for a small int k (the formulas' constants 2, 3, 4, 8)."""
    a0, a1 = a
    return k * a0 % P, k * a1 % P


def _fq2_mul(a, b):
    """a * b in Fq2 by Karatsuba, three Fq products instead of four (u^2 = -1):
    (a0 + a1 u)(b0 + b1 u) = (v0 - v1) + ((a0 + a1)(b0 + b1) - v0 - v1) u, v0 = a0 b0, v1 = a1 b1.

    Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and squaring on pairing-friendly
    fields", ePrint 2006/471 (Karatsuba multiplication in a quadratic extension).
    """
    (a0, a1), (b0, b1) = a, b
    v0, v1 = a0 * b0, a1 * b1
    return (v0 - v1) % P, ((a0 + a1) * (b0 + b1) - v0 - v1) % P


def _fq2_sqr(a):
    """a^2 in Fq2 by complex squaring, two Fq products (u^2 = -1):
    (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. Devegili et al., ePrint 2006/471 ("complex" squaring).
    """
    a0, a1 = a
    return (a0 + a1) * (a0 - a1) % P, 2 * a0 * a1 % P


def _fq2_conj(a):
    """The Frobenius map of Fq2 on a pair: (c0 + c1 u)^p = c0 - c1 u."""
    a0, a1 = a
    return a0, -a1 % P


def _fq2_inv(a):
    """1 / a in Fq2 (a != 0): conj(a) / N(a), the norm N(a) = a * conj(a) = a0^2 + a1^2 lying in Fq."""
    a0, a1 = a
    norm_inverse = pow(a0 * a0 + a1 * a1, -1, P)
    return a0 * norm_inverse % P, -a1 * norm_inverse % P


EFD_JACOBIAN_A0 = "https://hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html"
"""The Explicit-Formulas Database (Bernstein-Lange) page for Jacobian coordinates on short
Weierstrass curves y^2 = x^3 + b with a = 0. Its formulas never use b, so they serve E and E'."""


def _g1_jacobian_double(point):
    """[2](X1 : Y1 : Z1) on E, Jacobian coordinates over Fq (ints): "dbl-2009-l", 2M + 5S
    (EFD_JACOBIAN_A0#doubling-dbl-2009-l).

    Needs no special case: Z1 = 0 (O) or Y1 = 0 (a point of order 2) gives Z3 = 0, the identity.
    """
    x1, y1, z1 = point
    a = x1 * x1 % P
    b = y1 * y1 % P
    c = b * b % P
    d = 2 * ((x1 + b) ** 2 - a - c) % P
    e = 3 * a % P
    f = e * e % P
    x3 = (f - 2 * d) % P
    y3 = (e * (d - x3) - 8 * c) % P
    z3 = 2 * y1 * z1 % P
    return x3, y3, z3


def _g1_jacobian_add_affine(point, x2: int, y2: int):
    """(X1 : Y1 : Z1) + (x2, y2) on E, Jacobian plus affine ("mixed") over Fq: "madd-2007-bl",
    7M + 4S (EFD_JACOBIAN_A0#addition-madd-2007-bl).

    The formula assumes two distinct finite points; the exceptions are decided first, as points
    of small order outside G1 reach them: O + Q = Q; equal x (H = 0) means Q = P, so [2]P, when
    also r = 0 (equal y), else Q = -P and the sum is O.
    """
    x1, y1, z1 = point
    if z1 == 0:
        return x2, y2, 1
    z1z1 = z1 * z1 % P
    u2 = x2 * z1z1 % P
    s2 = y2 * z1 * z1z1 % P
    h = (u2 - x1) % P
    r = 2 * (s2 - y1) % P
    if h == 0:
        return _g1_jacobian_double(point) if r == 0 else G1_JACOBIAN_IDENTITY
    hh = h * h % P
    i = 4 * hh % P
    j = h * i % P
    v = x1 * i % P
    x3 = (r * r - j - 2 * v) % P
    y3 = (r * (v - x3) - 2 * y1 * j) % P
    z3 = ((z1 + h) ** 2 - z1z1 - hh) % P
    return x3, y3, z3


def _g2_jacobian_double(point):
    """[2](X1 : Y1 : Z1) on E', Jacobian coordinates over Fq2 (pairs): "dbl-2009-l"
    (EFD_JACOBIAN_A0#doubling-dbl-2009-l), line by line as _g1_jacobian_double."""
    x1, y1, z1 = point
    a = _fq2_sqr(x1)
    b = _fq2_sqr(y1)
    c = _fq2_sqr(b)
    d = _fq2_mul_small(2, _fq2_sub(_fq2_sub(_fq2_sqr(_fq2_add(x1, b)), a), c))
    e = _fq2_mul_small(3, a)
    f = _fq2_sqr(e)
    x3 = _fq2_sub(f, _fq2_mul_small(2, d))
    y3 = _fq2_sub(_fq2_mul(e, _fq2_sub(d, x3)), _fq2_mul_small(8, c))
    z3 = _fq2_mul_small(2, _fq2_mul(y1, z1))
    return x3, y3, z3


def _g2_jacobian_add_affine(point, x2, y2):
    """(X1 : Y1 : Z1) + (x2, y2) on E', Jacobian plus affine over Fq2 (pairs): "madd-2007-bl"
    (EFD_JACOBIAN_A0#addition-madd-2007-bl), line by line, exceptions included, as
    _g1_jacobian_add_affine."""
    x1, y1, z1 = point
    if z1 == FQ2_ZERO_INTS:
        return x2, y2, FQ2_ONE_INTS
    z1z1 = _fq2_sqr(z1)
    u2 = _fq2_mul(x2, z1z1)
    s2 = _fq2_mul(y2, _fq2_mul(z1, z1z1))
    h = _fq2_sub(u2, x1)
    r = _fq2_mul_small(2, _fq2_sub(s2, y1))
    if h == FQ2_ZERO_INTS:
        return _g2_jacobian_double(point) if r == FQ2_ZERO_INTS else G2_JACOBIAN_IDENTITY
    hh = _fq2_sqr(h)
    i = _fq2_mul_small(4, hh)
    j = _fq2_mul(h, i)
    v = _fq2_mul(x1, i)
    x3 = _fq2_sub(_fq2_sub(_fq2_sqr(r), j), _fq2_mul_small(2, v))
    y3 = _fq2_sub(_fq2_mul(r, _fq2_sub(v, x3)), _fq2_mul_small(2, _fq2_mul(y1, j)))
    z3 = _fq2_sub(_fq2_sub(_fq2_sqr(_fq2_add(z1, h)), z1z1), hh)
    return x3, y3, z3


def _bits_below_the_top(scalar: int) -> str:
    """The binary digits of scalar >= 1 after its leading 1, most significant first."""
    return bin(scalar)[3:]


def _g1_jacobian_mul(x: int, y: int, scalar: int):
    """[scalar](x, y) for an affine point of E and scalar >= 1, as a Jacobian point: left-to-right
    double-and-add, so every addition adds the affine base (mixed addition)."""
    acc = (x, y, 1)
    for bit in _bits_below_the_top(scalar):
        acc = _g1_jacobian_double(acc)
        if bit == "1":
            acc = _g1_jacobian_add_affine(acc, x, y)
    return acc


def _g2_jacobian_mul(x, y, scalar: int):
    """[scalar](x, y) for an affine point of E' (pairs) and scalar >= 1: as _g1_jacobian_mul."""
    acc = (x, y, FQ2_ONE_INTS)
    for bit in _bits_below_the_top(scalar):
        acc = _g2_jacobian_double(acc)
        if bit == "1":
            acc = _g2_jacobian_add_affine(acc, x, y)
    return acc


def _g1_affine_ints(point) -> tuple[int, int]:
    """(X/Z, Y/Z) as ints for a finite py_ecc G1 point (one inversion)."""
    x, y, z = (c.n for c in point)
    z_inverse = pow(z, -1, P)
    return x * z_inverse % P, y * z_inverse % P


def _g2_affine_ints(point):
    """(X/Z, Y/Z) as pairs for a finite py_ecc G2 point (one inversion)."""
    x, y, z = (tuple(int(c) % P for c in coordinate.coeffs) for coordinate in point)
    z_inverse = _fq2_inv(z)
    return _fq2_mul(x, z_inverse), _fq2_mul(y, z_inverse)


# ---------------------------------------------------------------------------------------------
# The prime-order subgroup checks
# ---------------------------------------------------------------------------------------------


def _g1_affine_in_subgroup(px: int, py: int) -> bool:
    """g1_in_subgroup for a finite affine point P = (px, py) of E, on ints.

    With [x^2]P = (X : Y : Z) (Jacobian), -[x^2]P = (X/Z^2, -Y/Z^3) and phi(P) = (beta*px, py):
    compared as X == beta*px*Z^2 and -Y == py*Z^3, so no inversion.
    """
    qx, qy, qz = _g1_jacobian_mul(px, py, BLS_X_SQUARED)
    if qz == 0:  # [x^2]P = O, while phi(P) != O as P != O
        return False
    qz2 = qz * qz % P
    return qx == BETA * px * qz2 % P and -qy % P == py * qz2 * qz % P


def _g2_affine_in_subgroup(px, py) -> bool:
    """g2_in_subgroup for a finite affine point P = (px, py) of E' (Fq2 pairs), on ints.

    With [|x|]P = (X : Y : Z) (Jacobian), [x]P = -[|x|]P = (X/Z^2, -Y/Z^3) as x < 0, and
    psi(P) = (conj(px)*PSI_COEFF_X, conj(py)*PSI_COEFF_Y): compared as X == psi_x*Z^2 and
    -Y == psi_y*Z^3, so no inversion.
    """
    qx, qy, qz = _g2_jacobian_mul(px, py, BLS_X_ABS)
    if qz == FQ2_ZERO_INTS:  # [x]P = O, while psi(P) != O as P != O
        return False
    psi_x = _fq2_mul(_fq2_conj(px), PSI_COEFF_X_INTS)
    psi_y = _fq2_mul(_fq2_conj(py), PSI_COEFF_Y_INTS)
    qz2 = _fq2_sqr(qz)
    return qx == _fq2_mul(psi_x, qz2) and _fq2_neg(qy) == _fq2_mul(psi_y, _fq2_mul(qz2, qz))


def g1_in_subgroup(point) -> bool:
    """True iff P (on E) lies in the order-r subgroup G1: phi(P) == -[x^2] P.

    Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly curves",
    ePrint 2021/1130, section 6; proof corrected in ePrint 2022/352. The test zkcrypto/bls12_381
    uses (G1Affine::is_torsion_free). One 128-bit chain [x^2]P (x^2 = |x|^2: the sign of x drops
    out) instead of a 255-bit r*P. Runs on plain ints in Jacobian coordinates (see the section
    above), not py_ecc's FQ, for the speed of decoding thousands of key points; phi on py_ecc
    points is g1_endomorphism.
    """
    if is_identity(point):
        return True
    return _g1_affine_in_subgroup(*_g1_affine_ints(point))


def g2_in_subgroup(point) -> bool:
    """True iff P (on E') lies in the order-r subgroup G2: psi(P) == [x] P.

    Scott, ePrint 2021/1130, section 4; proof corrected in ePrint 2022/352. The test
    zkcrypto/bls12_381 uses (G2Affine::is_torsion_free). [x]P = -[|x|]P with a 64-bit chain.
    Runs on plain ints (Fq2 as pairs, Jacobian coordinates), not py_ecc's FQ2, for the speed of
    decoding key points; psi and [x] on py_ecc points are g2_psi and mul_by_bls_x.
    """
    if is_identity(point):
        return True
    return _g2_affine_in_subgroup(*_g2_affine_ints(point))


# ---------------------------------------------------------------------------------------------
# Square roots (plain ints)
# ---------------------------------------------------------------------------------------------

HALF = pow(2, -1, P)
"""1/2 in Fq."""

FQ_SQRT_EXPONENT = (P + 1) // 4
"""p = 3 (mod 4), so a square a has the root a^((p + 1)/4)."""


def fq_sqrt(a: int) -> int | None:
    """A y with y^2 = a (mod p), or None when a is not a square: y = a^((p+1)/4) since p = 3 mod 4."""
    y = pow(a, FQ_SQRT_EXPONENT, P)
    return y if y * y % P == a % P else None


def _fq2_sqrt_ints(a):
    """fq2_sqrt on a canonical pair a = (a0, a1); returns a pair or None."""
    a0, a1 = a
    if a1 == 0:
        root = fq_sqrt(a0)
        candidate = (root, 0) if root is not None else (0, fq_sqrt(-a0 % P))
    else:
        norm_root = fq_sqrt((a0 * a0 + a1 * a1) % P)
        if norm_root is None:
            return None
        x0 = fq_sqrt((a0 + norm_root) * HALF % P)
        if x0 is None:
            x0 = fq_sqrt((a0 - norm_root) * HALF % P)
        if x0 is None:
            return None
        candidate = (x0, a1 * pow(2 * x0, -1, P) % P)
    return candidate if _fq2_sqr(candidate) == a else None


def fq2_sqrt(a):
    """A y in Fq2 with y^2 = a, or None when a is not a square; Fq2 = Fq[u]/(u^2 + 1), p = 3 mod 4.

    Norm ("complex") method, with Fq arithmetic on ints only (see Adj and Rodriguez-Henriquez,
    "Square root computation over even extension fields", ePrint 2012/685, section 3):
    (x0 + x1 u)^2 = a0 + a1 u  <=>  x0^2 - x1^2 = a0 and 2 x0 x1 = a1, so the norm
    N = a0^2 + a1^2 = (x0^2 + x1^2)^2 has a root g in Fq (a is a square iff N is), and
    x0^2 = (a0 + g)/2 or (a0 - g)/2 (whichever is a square), x1 = a1 / (2 x0).
    For a1 = 0: sqrt(a0), or sqrt(-a0) * u when a0 is not a square (-1 is not one).
    The result is checked by squaring.
    """
    root = _fq2_sqrt_ints(tuple(int(c) % P for c in a.coeffs))
    return None if root is None else FQ2(list(root))


# ---------------------------------------------------------------------------------------------
# Serialization: helpers
# ---------------------------------------------------------------------------------------------


def _fq_is_largest(y: int) -> bool:
    """ZCash "lexicographically largest" for Fq: y > (p - 1)/2."""
    return y > HALF_P


def _fq2_is_largest(c0: int, c1: int) -> bool:
    """ZCash "lexicographically largest" for Fq2: decided by c1, or by c0 when c1 == 0."""
    return _fq_is_largest(c1) if c1 != 0 else _fq_is_largest(c0)


def _to_fq_bytes(value: int) -> bytes:
    return value.to_bytes(FQ_BYTES, "big")


def _with_flags(body: bytes, flags: int) -> bytes:
    return bytes([body[0] | flags]) + body[1:]


def _infinity_encoding(length: int, compressed: bool) -> bytes:
    flags = INFINITY_FLAG | (COMPRESSION_FLAG if compressed else 0)
    return bytes([flags]) + bytes(length - 1)


def _require_point(point, field_class, field: str) -> None:
    """Refuse anything but a py_ecc projective tuple over field_class (catches G1/G2 mix-ups)."""
    if not (isinstance(point, tuple) and len(point) == 3 and all(isinstance(c, field_class) for c in point)):
        group = "G1" if field_class is FQ else "G2"
        raise PointEncodingError(
            field, f"expected a py_ecc {group} point (a tuple of 3 {field_class.__name__}), got {type(point).__name__}"
        )


def _g1_affine_to_bytes(affine, compressed: bool) -> bytes:
    if affine is None:
        return _infinity_encoding(G1_COMPRESSED_BYTES if compressed else G1_UNCOMPRESSED_BYTES, compressed)
    x, y = affine[0].n, affine[1].n
    if compressed:
        return _with_flags(_to_fq_bytes(x), COMPRESSION_FLAG | (SORT_FLAG if _fq_is_largest(y) else 0))
    return _to_fq_bytes(x) + _to_fq_bytes(y)


def _g2_affine_to_bytes(affine, compressed: bool) -> bytes:
    if affine is None:
        return _infinity_encoding(G2_COMPRESSED_BYTES if compressed else G2_UNCOMPRESSED_BYTES, compressed)
    (x0, x1), (y0, y1) = affine[0].coeffs, affine[1].coeffs
    x_bytes = _to_fq_bytes(int(x1)) + _to_fq_bytes(int(x0))
    if compressed:
        return _with_flags(x_bytes, COMPRESSION_FLAG | (SORT_FLAG if _fq2_is_largest(int(y0), int(y1)) else 0))
    return x_bytes + _to_fq_bytes(int(y1)) + _to_fq_bytes(int(y0))


def _require_bytes(data, field: str) -> bytes:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise PointEncodingError(field, f"expected bytes, got {type(data).__name__}")
    return bytes(data)


def _check_length(data: bytes, expected: int, field: str) -> None:
    if len(data) != expected:
        raise PointEncodingError(field, f"expected {expected} bytes, got {len(data)}")


def _check_compression_flag(flags: int, compressed: bool, length: int, field: str) -> None:
    if compressed and not flags & COMPRESSION_FLAG:
        raise PointEncodingError(field, f"compression flag (0x80) not set on a {length}-byte compressed encoding")
    if not compressed and flags & COMPRESSION_FLAG:
        raise PointEncodingError(field, f"compression flag (0x80) set on a {length}-byte uncompressed encoding")


def _split_coordinates(data: bytes) -> list[int]:
    """The 48-byte big-endian integers of an encoding, flag bits cleared from the first."""
    body = bytes([data[0] & ~FLAG_MASK]) + data[1:]
    return [int.from_bytes(body[i:i + FQ_BYTES], "big") for i in range(0, len(body), FQ_BYTES)]


def _check_infinity(flags: int, coordinates: list[int], names: list[str], field: str) -> None:
    """An encoding with the infinity flag must have no sort flag and all coordinate bits zero."""
    if flags & SORT_FLAG:
        raise PointEncodingError(field, "infinity flag set but sort flag also set")
    for value, name in zip(coordinates, names):
        if value != 0:
            raise PointEncodingError(field, f"infinity flag set but {name.split('.')[0]} bits non-zero")


def _check_canonical(coordinates: list[int], names: list[str], field: str) -> None:
    for value, name in zip(coordinates, names):
        if value >= P:
            raise PointEncodingError(field, f"{name} >= p")


def _decode_prologue(data, field: str, compressed: bool, sizes: tuple[int, int]):
    """Length and flag checks common to G1 and G2: returns (flags, coordinates)."""
    data = _require_bytes(data, field)
    expected = sizes[0] if compressed else sizes[1]
    _check_length(data, expected, field)
    flags = data[0] & FLAG_MASK
    _check_compression_flag(flags, compressed, expected, field)
    if not compressed and flags & SORT_FLAG and not flags & INFINITY_FLAG:
        raise PointEncodingError(field, "sort flag (0x20) set on an uncompressed encoding")
    return flags, _split_coordinates(data)


# ---------------------------------------------------------------------------------------------
# Serialization: G1
# ---------------------------------------------------------------------------------------------

G1_COORDINATE_NAMES = {True: ["x"], False: ["x", "y"]}


def g1_to_bytes(point, compressed: bool = True) -> bytes:
    """ZCash encoding of a G1 point: compressed x|flags (48 bytes) or x || y (96 bytes), big-endian.

    Flags in the first byte: 0x80 compressed, 0x40 infinity (0xc0 then zeros / 0x40 then zeros),
    0x20 when y > (p - 1)/2 (compressed only).
    """
    _require_point(point, FQ, "g1 point")
    return _g1_affine_to_bytes(to_affine_batch([point])[0], compressed)


def g1_from_bytes(data, field: str = "g1 point", compressed: bool = True) -> tuple:
    """Decode the ZCash encoding of a G1 point (see g1_to_bytes) into a py_ecc point, validating it.

    Rejects with PointEncodingError(field, problem): wrong length; compression flag that does not
    match `compressed`; infinity flag with the sort flag or any x (or y) bit; sort flag on an
    uncompressed encoding; x or y >= p; a point not on y^2 = x^3 + 4; a point outside G1.
    Compressed: y = sqrt(x^3 + 4), the root that is > (p-1)/2 iff the sort flag is set.
    """
    flags, coordinates = _decode_prologue(data, field, compressed, (G1_COMPRESSED_BYTES, G1_UNCOMPRESSED_BYTES))
    names = G1_COORDINATE_NAMES[compressed]
    if flags & INFINITY_FLAG:
        _check_infinity(flags, coordinates, names, field)
        return Z1
    _check_canonical(coordinates, names, field)
    x = coordinates[0]
    rhs = (x * x * x + G1_B_INT) % P
    if compressed:
        y = fq_sqrt(rhs)
        if y is None:
            raise PointEncodingError(field, f"not on the curve {G1_CURVE}: x^3 + 4 is not a square")
        if _fq_is_largest(y) != bool(flags & SORT_FLAG):
            y = P - y
    else:
        y = coordinates[1]
        if y * y % P != rhs:
            raise PointEncodingError(field, f"not on the curve {G1_CURVE}")
    if not _g1_affine_in_subgroup(x, y):
        raise PointEncodingError(field, "not in the prime-order subgroup")
    return (FQ(x), FQ(y), FQ.one())


# ---------------------------------------------------------------------------------------------
# Serialization: G2
# ---------------------------------------------------------------------------------------------

G2_COORDINATE_NAMES = {True: ["x.c1", "x.c0"], False: ["x.c1", "x.c0", "y.c1", "y.c0"]}


def g2_to_bytes(point, compressed: bool = True) -> bytes:
    """ZCash encoding of a G2 point: compressed x.c1|flags || x.c0 (96 bytes) or
    x.c1 || x.c0 || y.c1 || y.c0 (192 bytes), each 48 bytes big-endian.

    Flags as for G1; the sort flag is set when y is lexicographically largest: y.c1 > (p-1)/2, or
    y.c1 == 0 and y.c0 > (p-1)/2.
    """
    _require_point(point, FQ2, "g2 point")
    return _g2_affine_to_bytes(to_affine_batch([point])[0], compressed)


def g2_from_bytes(data, field: str = "g2 point", compressed: bool = True) -> tuple:
    """Decode the ZCash encoding of a G2 point (see g2_to_bytes) into a py_ecc point, validating it.

    Rejects exactly as g1_from_bytes does, per coordinate (x.c1, x.c0, y.c1, y.c0 < p), on the
    twist y^2 = x^3 + 4(u + 1) and in G2. Compressed: y = sqrt(x^3 + 4(u+1)) in Fq2, the root
    that is lexicographically largest iff the sort flag is set.
    """
    flags, coordinates = _decode_prologue(data, field, compressed, (G2_COMPRESSED_BYTES, G2_UNCOMPRESSED_BYTES))
    names = G2_COORDINATE_NAMES[compressed]
    if flags & INFINITY_FLAG:
        _check_infinity(flags, coordinates, names, field)
        return Z2
    _check_canonical(coordinates, names, field)
    x = (coordinates[1], coordinates[0])  # (c0, c1); the wire order is c1, c0
    rhs = _fq2_add(_fq2_mul(_fq2_sqr(x), x), G2_B_INTS)
    if compressed:
        y = _fq2_sqrt_ints(rhs)
        if y is None:
            raise PointEncodingError(field, f"not on the curve {G2_CURVE}: x^3 + 4(u + 1) is not a square")
        if _fq2_is_largest(*y) != bool(flags & SORT_FLAG):
            y = _fq2_neg(y)
    else:
        y = (coordinates[3], coordinates[2])
        if _fq2_sqr(y) != rhs:
            raise PointEncodingError(field, f"not on the curve {G2_CURVE}")
    if not _g2_affine_in_subgroup(x, y):
        raise PointEncodingError(field, "not in the prime-order subgroup")
    return (FQ2(list(x)), FQ2(list(y)), FQ2.one())


# ---------------------------------------------------------------------------------------------
# Hex helpers (the vectors' wire format: compressed, lowercase hex, no 0x prefix)
# ---------------------------------------------------------------------------------------------

HEX_DIGITS = frozenset("0123456789abcdef")


def _hex_to_bytes(text, field: str) -> bytes:
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
    return g1_from_bytes(_hex_to_bytes(text, field), field)


def encode_g2(point) -> str:
    """Compressed ZCash encoding of a G2 point as lowercase hex (192 digits, no 0x prefix)."""
    return g2_to_bytes(point).hex()


def decode_g2(text: str, field: str = "g2 point") -> tuple:
    """Inverse of encode_g2, validating as g2_from_bytes does (plus: lowercase hex, no prefix)."""
    return g2_from_bytes(_hex_to_bytes(text, field), field)


def encode_g1_many(points) -> list[str]:
    """[encode_g1(P) for P in points] with one field inversion for all of them (to_affine_batch)."""
    for i, point in enumerate(points):
        _require_point(point, FQ, f"g1 points[{i}]")
    return [_g1_affine_to_bytes(a, compressed=True).hex() for a in to_affine_batch(points)]


def encode_g2_many(points) -> list[str]:
    """[encode_g2(P) for P in points] with one Fq2 inversion for all of them (to_affine_batch)."""
    for i, point in enumerate(points):
        _require_point(point, FQ2, f"g2 points[{i}]")
    return [_g2_affine_to_bytes(a, compressed=True).hex() for a in to_affine_batch(points)]

