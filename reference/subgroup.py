"""Membership of the prime-order subgroups G1 and G2, by the BLS12-381 endomorphisms.

    G1:  P in G1  <=>  phi(P) == -[x^2] P      phi(x, y) = (beta x, y)
    G2:  P in G2  <=>  psi(P) == [x] P         psi = untwist o Frobenius o twist

Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly curves", ePrint
2021/1130, sections 6 (G1) and 4 (G2); proofs corrected in ePrint 2022/352. These are the tests
zkcrypto/bls12_381 uses (G1Affine::is_torsion_free, G2Affine::is_torsion_free). The chains run on plain
ints with reference/curve.py's one Jacobian group law (G1_INTS, G2_INTS): decoding checks thousands of key
points. g1_endomorphism and g2_psi are the same maps on py_ecc points, for tests and readers.
"""
from py_ecc.optimized_bls12_381 import FQ2

from .curve import G1_INTS, G2_INTS, affine_ints, is_identity
from .fq import FQ2_INTS

BLS_X = -0xD201000000010000
"""The BLS12-381 curve parameter x (negative): p and r are polynomials in it (r = x^4 - x^2 + 1)."""

BLS_X_ABS = -BLS_X
"""|x|, the exponent of the G2 chain; low Hamming weight (6), so [x]P is cheap."""

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


def g1_endomorphism(point):
    """phi(X : Y : Z) = (beta*X : Y : Z), i.e. phi(x, y) = (beta*x, y): the GLV endomorphism of E; on G1 it
    equals multiplication by -x^2 (Scott, ePrint 2021/1130, sec. 6)."""
    x, y, z = point
    return (x * BETA, y, z)


def _conjugate(element):
    """The Frobenius map of Fq2 on py_ecc elements: (c0 + c1*u)^p = c0 - c1*u."""
    c0, c1 = element.coeffs
    return FQ2([c0, -c1])


def g2_psi(point):
    """psi(x, y) = (conj(x) * PSI_COEFF_X, conj(y) * PSI_COEFF_Y); projectively Z -> conj(Z).

    Galbraith-Scott, "Exponentiation in pairing-friendly groups using homomorphisms" (2008); coefficients as
    in zkcrypto/bls12_381 src/g2.rs. On G2, psi acts as multiplication by p = x (mod r)."""
    x, y, z = point
    return (_conjugate(x) * PSI_COEFF_X, _conjugate(y) * PSI_COEFF_Y, _conjugate(z))


PSI_COEFF_X_INTS = FQ2_INTS.from_py_ecc(PSI_COEFF_X)
PSI_COEFF_Y_INTS = FQ2_INTS.from_py_ecc(PSI_COEFF_Y)


def g1_affine_in_subgroup(px: int, py: int) -> bool:
    """The G1 test for a finite affine point (px, py) of E, on ints: with [x^2]P = (X : Y : Z) (Jacobian),
    -[x^2]P = (X/Z^2, -Y/Z^3) and phi(P) = (beta*px, py), compared as X == beta*px*Z^2 and -Y == py*Z^3
    (no inversion). x^2 = |x|^2: the sign of x drops out; a 128-bit chain instead of a 255-bit r*P."""
    f = G1_INTS.field
    qx, qy, qz = G1_INTS.mul(px, py, BLS_X_SQUARED)
    if qz == f.zero:  # [x^2]P = O, while phi(P) != O as P != O
        return False
    qz2 = f.sqr(qz)
    return qx == f.mul(f.mul(BETA, px), qz2) and f.neg(qy) == f.mul(py, f.mul(qz2, qz))


def g2_affine_in_subgroup(px, py) -> bool:
    """The G2 test for a finite affine point (px, py) of E' (Fq2 pairs), on ints: with [|x|]P = (X : Y : Z),
    [x]P = -[|x|]P = (X/Z^2, -Y/Z^3) as x < 0, and psi(P) = (conj(px)*PSI_COEFF_X, conj(py)*PSI_COEFF_Y),
    compared as X == psi_x*Z^2 and -Y == psi_y*Z^3 (no inversion); a 64-bit chain."""
    f = G2_INTS.field
    qx, qy, qz = G2_INTS.mul(px, py, BLS_X_ABS)
    if qz == f.zero:  # [x]P = O, while psi(P) != O as P != O
        return False
    psi_x = f.mul(f.conj(px), PSI_COEFF_X_INTS)
    psi_y = f.mul(f.conj(py), PSI_COEFF_Y_INTS)
    qz2 = f.sqr(qz)
    return qx == f.mul(psi_x, qz2) and f.neg(qy) == f.mul(psi_y, f.mul(qz2, qz))


def g1_in_subgroup(point) -> bool:
    """True iff the py_ecc point P (on E) lies in G1: phi(P) == -[x^2] P (O is in G1)."""
    return is_identity(point) or g1_affine_in_subgroup(*affine_ints([point])[0])


def g2_in_subgroup(point) -> bool:
    """True iff the py_ecc point P (on E') lies in G2: psi(P) == [x] P (O is in G2)."""
    return is_identity(point) or g2_affine_in_subgroup(*affine_ints([point])[0])
