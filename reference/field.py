"""The scalar field Fr of BLS12-381, as plain Python ints in [0, r).

Elements are ints reduced modulo r; there is no wrapper class, so every formula in the
prover reads as ordinary modular arithmetic. The base field Fq lives in py_ecc (readable) and
reference/fq.py (plain ints, fast).
"""

R = 0x73EDA753299D7D483339D80809A1D80553BDA402FFFE5BFEFFFFFFFF00000001
"""The prime order r of G1, G2 and GT; the scalar field's modulus."""

P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB
"""The base field's modulus p."""

TWO_ADICITY = 32
"""r - 1 = 2^32 * t with t odd: the largest power-of-two subgroup of Fr* has order 2^32."""

SCALAR_BYTES = 32
"""A scalar is written as 32 big-endian bytes."""


def inv(x: int) -> int:
    """x^-1 mod r (Fermat: x^(r-2)); refuses x = 0, which has no inverse."""
    if x % R == 0:
        raise ZeroDivisionError("0 has no inverse in Fr")
    return pow(x, R - 2, R)


def batch_inverse(values: list[int], modulus: int = R) -> list[int]:
    """[v^-1 mod modulus for v in values] (Fr by default; reference/fq.py uses it for Fq and Fq2) with one
    inversion: Montgomery's trick, prefix products, one inverse of the total, then unwind (P. L. Montgomery,
    "Speeding the Pollard and elliptic curve methods of factorization", Math. Comp. 48 (1987), 10.3.1).
    A zero value raises ZeroDivisionError."""
    prefix = [1] * (len(values) + 1)
    for i, v in enumerate(values):
        prefix[i + 1] = prefix[i] * v % modulus
    if prefix[-1] == 0:
        raise ZeroDivisionError("batch_inverse: a value is 0, which has no inverse")
    running = pow(prefix[-1], -1, modulus)
    out = [0] * len(values)
    for i in range(len(values) - 1, -1, -1):
        out[i] = running * prefix[i] % modulus
        running = running * values[i] % modulus
    return out


def scalar_to_hex(x: int) -> str:
    """32-byte big-endian lowercase hex, the vectors' scalar encoding."""
    return x.to_bytes(SCALAR_BYTES, "big").hex()
