"""reference/curve.py (group law), subgroup.py, encoding.py, fq.py: constants, subgroup checks, ZCash
serialization, batch affine, the int arithmetic.

Independent sources: the curve's defining formulas (p, r, cofactors as polynomials in x), plain
r*P == O with py_ecc's multiply, py_ecc.bls.point_compression (a separate implementation of the
ZCash encoding), py_ecc's Fq2 square root, and the published ZCash generator encodings.
"""
import hashlib
import random
from functools import cache
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from py_ecc.bls.point_compression import (
    compress_G1,
    compress_G2,
    decompress_G1,
    decompress_G2,
    modular_squareroot_in_FQ2,
)
from py_ecc.optimized_bls12_381 import eq as py_ecc_eq
from py_ecc.optimized_bls12_381 import FQ12, is_inf

from reference.curve import (
    FQ,
    FQ2,
    G1,
    G1_INTS,
    G2,
    G2_INTS,
    Z1,
    Z2,
    add,
    double,
    g1_eq,
    g1_is_on_curve,
    g2_eq,
    g2_is_on_curve,
    is_identity,
    is_py_ecc_point,
    multiply,
    neg,
    normalize,
    to_affine_batch,
)
from reference.encoding import (
    COMPRESSION_FLAG,
    FLAG_MASK,
    SORT_FLAG,
    decode_g1,
    decode_g2,
    encode_g1,
    encode_g1_many,
    encode_g2,
    encode_g2_many,
    g1_from_bytes,
    g1_to_bytes,
    g2_from_bytes,
    g2_to_bytes,
)
from reference.fq import FQ2_INTS, FQ_INTS
from reference.subgroup import (
    BETA,
    BLS_X,
    BLS_X_ABS,
    PSI_COEFF_X,
    PSI_COEFF_Y,
    g1_endomorphism,
    g1_in_subgroup,
    g2_in_subgroup,
    g2_psi,
)
from reference.errors import PointEncodingError
from reference.field import P, R

def fq2_sqrt(a):
    """reference/fq.py's Fq2 square root on py_ecc elements (None for a non-square)."""
    root = FQ2_INTS.sqrt(FQ2_INTS.from_py_ecc(a))
    return None if root is None else FQ2(list(root))


# --- the curve's defining data, from the BLS12 family polynomials (independent of curve.py) ---
G1_COFACTOR = (BLS_X - 1) ** 2 // 3
"""h1 = (x - 1)^2 / 3: #E(Fq) = h1 * r."""
G2_COFACTOR = (BLS_X**8 - 4 * BLS_X**7 + 5 * BLS_X**6 - 4 * BLS_X**4 + 6 * BLS_X**3 - 4 * BLS_X**2 - 4 * BLS_X + 13) // 9
"""h2: #E'(Fq2) = h2 * r (Budroni-Pintore, ePrint 2017/419, section 2)."""
G1_SMALL_TORSION = 3
"""A prime dividing h1 exactly once, so [h1 r / 3] Q has order 3 or 1."""
G2_SMALL_TORSION = 2713
"""A prime dividing h2 exactly once."""
SCALARS = st.integers(min_value=1, max_value=R - 1)

# Published ZCash encodings of the standard generators (zkcrypto/bls12_381 tests, blst, the
# Ethereum consensus specs): compressed G1 and G2, and G1 uncompressed (x || y).
G1_GENERATOR_COMPRESSED = (
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
)
G1_GENERATOR_UNCOMPRESSED = (
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"
)
G2_GENERATOR_COMPRESSED = (
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
)
G1_INFINITY_COMPRESSED = "c0" + "00" * 47
G1_INFINITY_UNCOMPRESSED = "40" + "00" * 95
G2_INFINITY_COMPRESSED = "c0" + "00" * 95
G2_INFINITY_UNCOMPRESSED = "40" + "00" * 191


# --- points on the curves that need not be in the subgroup: hash-and-try, no cofactor clearing ---
def _hash_to_int(label: str, counter: int) -> int:
    digest = hashlib.sha512(f"{label}/{counter}".encode()).digest()
    return int.from_bytes(digest, "big") % P


def hashed_g1_curve_point(label: str):
    """A point of E(Fq) from the first x = H(label, i) with x^3 + 4 a square (Euler's criterion)."""
    for counter in range(1000):
        x = _hash_to_int(label, counter)
        rhs = (x**3 + 4) % P
        if pow(rhs, (P - 1) // 2, P) == 1:
            return (FQ(x), FQ(pow(rhs, (P + 1) // 4, P)), FQ.one())
    raise AssertionError("no square found")


def hashed_g2_curve_point(label: str):
    """A point of E'(Fq2) from the first x = H(label, i) + H(label, i')*u with a root by py_ecc's sqrt."""
    for counter in range(1000):
        x = FQ2([_hash_to_int(label, 2 * counter), _hash_to_int(label, 2 * counter + 1)])
        y = modular_squareroot_in_FQ2(x**3 + FQ2([4, 4]))
        if y is not None:
            return (x, y, FQ2.one())
    raise AssertionError("no square found")


def plain_subgroup_check(point) -> bool:
    """r * P == O, the definition of membership in the order-r subgroup."""
    return is_inf(multiply(point, R))


def small_torsion_point(hashed, cofactor: int, prime: int, label: str):
    """A point of order `prime` (a prime dividing the cofactor once), from hashed points."""
    for attempt in range(20):
        torsion = multiply(hashed(f"{label}/{attempt}"), cofactor * R // prime)
        if not is_inf(torsion):
            return torsion
    raise AssertionError("no torsion point found")


@cache
def g1_order3_point():
    return small_torsion_point(hashed_g1_curve_point, G1_COFACTOR, G1_SMALL_TORSION, "g1-t")


@cache
def g2_order2713_point():
    return small_torsion_point(hashed_g2_curve_point, G2_COFACTOR, G2_SMALL_TORSION, "g2-t")


# --- constants ---------------------------------------------------------------------------------
def test_bls_parameter_generates_p_and_r():
    assert R == BLS_X**4 - BLS_X**2 + 1
    assert P == (BLS_X - 1) ** 2 * (BLS_X**4 - BLS_X**2 + 1) // 3 + BLS_X
    assert P + 1 - (BLS_X + 1) == G1_COFACTOR * R  # #E(Fq) = p + 1 - t, t = x + 1


def test_beta_is_a_primitive_cube_root_of_unity():
    assert pow(BETA, 3, P) == 1
    assert BETA != 1


def test_beta_is_the_root_whose_endomorphism_is_minus_x_squared():
    minus_x_squared = (-(BLS_X**2)) % R
    assert g1_eq(g1_endomorphism(G1), multiply(G1, minus_x_squared))
    other_root = (G1[0] * pow(BETA, 2, P), G1[1], G1[2])  # the other primitive cube root, beta^2
    assert not g1_eq(other_root, multiply(G1, minus_x_squared))
    assert g1_eq(other_root, multiply(G1, (BLS_X**2 - 1) % R))


def test_psi_coefficients_are_the_frobenius_twist_constants():
    xi = FQ2([1, 1])  # u + 1, the twist's non-residue
    assert PSI_COEFF_X == FQ2.one() / xi ** ((P - 1) // 3)
    assert PSI_COEFF_Y == FQ2.one() / xi ** ((P - 1) // 2)


def test_psi_acts_on_g2_as_multiplication_by_x():
    assert g2_eq(g2_psi(G2), multiply(G2, BLS_X % R))
    k = 0x1234_5678_9ABC_DEF0
    assert g2_eq(g2_psi(multiply(G2, k)), multiply(G2, k * BLS_X % R))


# --- subgroup checks against r * P == O ---------------------------------------------------------
def _g1_cases():
    in_group = [("generator", lambda: G1), ("7G", lambda: multiply(G1, 7)),
                ("(r-1)G", lambda: multiply(G1, R - 1)), ("identity", lambda: Z1),
                ("cleared hash", lambda: multiply(hashed_g1_curve_point("g1-in"), G1_COFACTOR))]
    outside = [(f"hash {i}", lambda i=i: hashed_g1_curve_point(f"g1-out-{i}")) for i in range(3)]
    outside.append(("G + order-3 point", lambda: add(G1, g1_order3_point())))
    outside.append(("order-3 point", g1_order3_point))
    return [pytest.param(make, True, id=f"in:{name}") for name, make in in_group] + [
        pytest.param(make, False, id=f"out:{name}") for name, make in outside
    ]


@pytest.mark.parametrize("make_point, expected", _g1_cases())
def test_g1_subgroup_check_agrees_with_r_times_p(make_point, expected):
    point = make_point()
    assert g1_is_on_curve(point)
    assert plain_subgroup_check(point) is expected
    assert g1_in_subgroup(point) is expected


def _g2_cases():
    in_group = [("generator", lambda: G2), ("5G", lambda: multiply(G2, 5)), ("identity", lambda: Z2),
                ("cleared hash", lambda: multiply(hashed_g2_curve_point("g2-in"), G2_COFACTOR))]
    outside = [(f"hash {i}", lambda i=i: hashed_g2_curve_point(f"g2-out-{i}")) for i in range(2)]
    outside.append(("G + order-2713 point", lambda: add(G2, g2_order2713_point())))
    outside.append(("order-2713 point", g2_order2713_point))
    return [pytest.param(make, True, id=f"in:{name}") for name, make in in_group] + [
        pytest.param(make, False, id=f"out:{name}") for name, make in outside
    ]


@pytest.mark.parametrize("make_point, expected", _g2_cases())
def test_g2_subgroup_check_agrees_with_r_times_p(make_point, expected):
    point = make_point()
    assert g2_is_on_curve(point)
    assert plain_subgroup_check(point) is expected
    assert g2_in_subgroup(point) is expected


@settings(max_examples=10, deadline=None)
@given(k=SCALARS, seed=st.integers(min_value=0, max_value=2**64))
def test_g1_int_subgroup_check_agrees_with_r_times_p_on_random_points(k, seed):
    """Random subgroup points [k]G, random curve points (hashed), and [k]G + an order-3 point."""
    in_group = multiply(G1, k)
    for point in (in_group, hashed_g1_curve_point(f"random-{seed}"), add(in_group, g1_order3_point())):
        assert g1_in_subgroup(point) is plain_subgroup_check(point)


@settings(max_examples=5, deadline=None)
@given(k=SCALARS, seed=st.integers(min_value=0, max_value=2**64))
def test_g2_int_subgroup_check_agrees_with_r_times_p_on_random_points(k, seed):
    """Random subgroup points [k]G, random twist points (hashed), and [k]G + an order-2713 point."""
    in_group = multiply(G2, k)
    for point in (in_group, hashed_g2_curve_point(f"random-{seed}"), add(in_group, g2_order2713_point())):
        assert g2_in_subgroup(point) is plain_subgroup_check(point)


def test_hashed_points_lie_in_the_full_curve_groups():
    """Sanity for the non-subgroup samples: their order divides #E = h * r."""
    assert is_inf(multiply(hashed_g1_curve_point("g1-out-0"), G1_COFACTOR * R))
    assert is_inf(multiply(hashed_g2_curve_point("g2-out-0"), G2_COFACTOR * R))


# --- serialization: published values and py_ecc's independent implementation ------------------
def test_generator_encodings_match_published_values():
    assert encode_g1(G1) == G1_GENERATOR_COMPRESSED
    assert g1_to_bytes(G1, compressed=False).hex() == G1_GENERATOR_UNCOMPRESSED
    assert encode_g2(G2) == G2_GENERATOR_COMPRESSED
    assert g1_eq(decode_g1(G1_GENERATOR_COMPRESSED), G1)
    assert g1_eq(g1_from_bytes(bytes.fromhex(G1_GENERATOR_UNCOMPRESSED), compressed=False), G1)
    assert g2_eq(decode_g2(G2_GENERATOR_COMPRESSED), G2)


def test_infinity_encodings():
    assert g1_to_bytes(Z1).hex() == G1_INFINITY_COMPRESSED
    assert g1_to_bytes(Z1, compressed=False).hex() == G1_INFINITY_UNCOMPRESSED
    assert g2_to_bytes(Z2).hex() == G2_INFINITY_COMPRESSED
    assert g2_to_bytes(Z2, compressed=False).hex() == G2_INFINITY_UNCOMPRESSED
    assert is_identity(g1_from_bytes(bytes.fromhex(G1_INFINITY_COMPRESSED)))
    assert is_identity(g1_from_bytes(bytes.fromhex(G1_INFINITY_UNCOMPRESSED), compressed=False))
    assert is_identity(g2_from_bytes(bytes.fromhex(G2_INFINITY_COMPRESSED)))
    assert is_identity(g2_from_bytes(bytes.fromhex(G2_INFINITY_UNCOMPRESSED), compressed=False))


def _py_ecc_g2_bytes(point) -> bytes:
    z1, z2 = compress_G2(point)
    return z1.to_bytes(48, "big") + z2.to_bytes(48, "big")


@settings(max_examples=12, deadline=None)
@given(SCALARS)
def test_g1_encoding_matches_py_ecc_and_round_trips(k):
    point = multiply(G1, k)
    data = g1_to_bytes(point)
    assert data == compress_G1(point).to_bytes(48, "big")
    assert py_ecc_eq(decompress_G1(int.from_bytes(data, "big")), point)
    assert g1_eq(g1_from_bytes(data), point)
    x, y = normalize(point)
    uncompressed = g1_to_bytes(point, compressed=False)
    assert uncompressed == x.n.to_bytes(48, "big") + y.n.to_bytes(48, "big")
    assert g1_eq(g1_from_bytes(uncompressed, compressed=False), point)


@settings(max_examples=5, deadline=None)
@given(SCALARS)
def test_g2_encoding_matches_py_ecc_and_round_trips(k):
    point = multiply(G2, k)
    data = g2_to_bytes(point)
    assert data == _py_ecc_g2_bytes(point)
    assert py_ecc_eq(decompress_G2((int.from_bytes(data[:48], "big"), int.from_bytes(data[48:], "big"))), point)
    assert g2_eq(g2_from_bytes(data), point)
    (x0, x1), (y0, y1) = (c.coeffs for c in normalize(point))
    uncompressed = g2_to_bytes(point, compressed=False)
    assert uncompressed == b"".join(int(v).to_bytes(48, "big") for v in (x1, x0, y1, y0))
    assert g2_eq(g2_from_bytes(uncompressed, compressed=False), point)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_negation_flips_only_the_sort_flag(group):
    base, to_bytes, from_bytes, eq = (
        (G1, g1_to_bytes, g1_from_bytes, g1_eq) if group == "g1" else (G2, g2_to_bytes, g2_from_bytes, g2_eq)
    )
    point = multiply(base, 0xC0FFEE)
    plus, minus = to_bytes(point), to_bytes(neg(point))
    assert plus[0] ^ minus[0] == SORT_FLAG and plus[1:] == minus[1:]
    assert eq(from_bytes(minus), neg(point))


def test_fq2_sort_rule_compares_c1_first_then_c0():
    half = (P - 1) // 2
    assert FQ2_INTS.is_largest((0, half + 1))
    assert not FQ2_INTS.is_largest((P - 1, half))
    assert FQ2_INTS.is_largest((half + 1, 0))
    assert not FQ2_INTS.is_largest((half, 0))


def test_encode_many_equals_one_by_one_including_identity():
    g1_points = [multiply(G1, k) for k in (1, 2, 3)] + [Z1, double(G1)]
    assert encode_g1_many(g1_points) == [encode_g1(pt) for pt in g1_points]
    g2_points = [G2, Z2, double(G2)]
    assert encode_g2_many(g2_points) == [encode_g2(pt) for pt in g2_points]
    assert encode_g1_many([]) == []


def test_to_affine_batch_equals_normalize():
    points = [G1, Z1, double(G1), add(G1, double(G1))]
    affine = to_affine_batch(points)
    assert [xy is None for xy in affine] == [False, True, False, False]  # None for O only, one entry per point
    for point, xy in zip(points, affine, strict=True):
        if xy is not None:
            assert xy == normalize(point)
    assert [xy == normalize(pt) for pt, xy in zip([G2, double(G2)], to_affine_batch([G2, double(G2)]))] == [True, True]
    assert to_affine_batch([]) == []


# --- decoding rejects bad input, naming the problem ----------------------------------------------
def _g1_bytes(compressed=True, point=G1) -> bytearray:
    return bytearray(g1_to_bytes(point, compressed))


def _set_coordinate(data: bytearray, index: int, value: int) -> bytearray:
    """Overwrite the index-th 48-byte coordinate, keeping the flag bits of the first byte."""
    flags = data[0] & FLAG_MASK
    data[48 * index:48 * (index + 1)] = value.to_bytes(48, "big")
    data[0] |= flags
    return data


def _not_a_square_x() -> int:
    return next(x for x in range(1, 100) if pow((x**3 + 4) % P, (P - 1) // 2, P) != 1)


G1_BAD_ENCODINGS = [
    ("short", lambda: _g1_bytes()[:-1], True, "expected 48 bytes, got 47"),
    ("long uncompressed", lambda: _g1_bytes(False) + b"\0", False, "expected 96 bytes, got 97"),
    ("no compression flag", lambda: bytearray([_g1_bytes()[0] & 0x7F]) + _g1_bytes()[1:], True, "compression flag (0x80) not set"),
    ("compression flag on uncompressed", lambda: bytearray([_g1_bytes(False)[0] | 0x80]) + _g1_bytes(False)[1:], False, "compression flag (0x80) set"),
    ("infinity with sort flag", lambda: bytearray([0xE0]) + bytes(47), True, "infinity flag set but sort flag also set"),
    ("infinity with x bits", lambda: bytearray([0xC0]) + bytes(46) + b"\1", True, "infinity flag set but x bits non-zero"),
    ("infinity with top x bits", lambda: bytearray([0xC1]) + bytes(47), True, "infinity flag set but x bits non-zero"),
    ("uncompressed infinity with y bits", lambda: bytearray([0x40]) + bytes(94) + b"\1", False, "infinity flag set but y bits non-zero"),
    ("sort flag on uncompressed", lambda: bytearray([_g1_bytes(False)[0] | 0x20]) + _g1_bytes(False)[1:], False, "sort flag (0x20) set on an uncompressed"),
    ("x = p", lambda: _set_coordinate(_g1_bytes(), 0, P), True, "x >= p"),
    ("y = p + 2", lambda: _set_coordinate(_g1_bytes(False), 1, P + 2), False, "y >= p"),
    ("x^3 + 4 not a square", lambda: _set_coordinate(_g1_bytes(), 0, _not_a_square_x()), True, "not on the curve y^2 = x^3 + 4"),
    ("y off the curve", lambda: _set_coordinate(_g1_bytes(False), 1, 5), False, "not on the curve y^2 = x^3 + 4"),
    ("outside the subgroup", lambda: _g1_bytes(True, hashed_g1_curve_point("g1-out-0")), True, "not in the prime-order subgroup"),
    ("outside the subgroup, uncompressed", lambda: _g1_bytes(False, hashed_g1_curve_point("g1-out-1")), False, "not in the prime-order subgroup"),
    ("G + order-3 point", lambda: _g1_bytes(True, add(G1, g1_order3_point())), True, "not in the prime-order subgroup"),
]


@pytest.mark.parametrize("make, compressed, problem", [pytest.param(*c[1:], id=c[0]) for c in G1_BAD_ENCODINGS])
def test_g1_decoding_rejects(make, compressed, problem):
    with pytest.raises(PointEncodingError) as info:
        g1_from_bytes(bytes(make()), "pk.h[3]", compressed=compressed)
    assert info.value.field == "pk.h[3]"
    assert problem in info.value.problem


def _g2_bytes(compressed=True, point=G2) -> bytearray:
    return bytearray(g2_to_bytes(point, compressed))


G2_BAD_ENCODINGS = [
    ("short", lambda: _g2_bytes()[:-1], True, "expected 96 bytes, got 95"),
    ("no compression flag", lambda: bytearray([_g2_bytes()[0] & 0x7F]) + _g2_bytes()[1:], True, "compression flag (0x80) not set"),
    ("infinity with x.c0 bits", lambda: bytearray([0xC0]) + bytes(94) + b"\1", True, "infinity flag set but x bits non-zero"),
    ("sort flag on uncompressed", lambda: bytearray([_g2_bytes(False)[0] | 0x20]) + _g2_bytes(False)[1:], False, "sort flag (0x20)"),
    ("x.c1 = p", lambda: _set_coordinate(_g2_bytes(), 0, P), True, "x.c1 >= p"),
    ("x.c0 = p", lambda: _set_coordinate(_g2_bytes(), 1, P), True, "x.c0 >= p"),
    ("y.c0 = p", lambda: _set_coordinate(_g2_bytes(False), 3, P), False, "y.c0 >= p"),
    ("y off the curve", lambda: _set_coordinate(_g2_bytes(False), 3, 5), False, "not on the curve y^2 = x^3 + 4(u + 1)"),
    ("outside the subgroup", lambda: _g2_bytes(True, hashed_g2_curve_point("g2-out-0")), True, "not in the prime-order subgroup"),
    ("G + order-2713 point, uncompressed", lambda: _g2_bytes(False, add(G2, g2_order2713_point())), False, "not in the prime-order subgroup"),
]


@pytest.mark.parametrize("make, compressed, problem", [pytest.param(*c[1:], id=c[0]) for c in G2_BAD_ENCODINGS])
def test_g2_decoding_rejects(make, compressed, problem):
    with pytest.raises(PointEncodingError) as info:
        g2_from_bytes(bytes(make()), "vk.delta_g2", compressed=compressed)
    assert info.value.field == "vk.delta_g2"
    assert problem in info.value.problem


def test_g2_compressed_x_without_a_root_is_rejected():
    x = next(
        FQ2([c, 1]) for c in range(1, 100) if modular_squareroot_in_FQ2(FQ2([c, 1]) ** 3 + FQ2([4, 4])) is None
    )
    data = bytearray(int(x.coeffs[1]).to_bytes(48, "big") + int(x.coeffs[0]).to_bytes(48, "big"))
    data[0] |= COMPRESSION_FLAG
    with pytest.raises(PointEncodingError, match="not on the curve"):
        g2_from_bytes(bytes(data))


@pytest.mark.parametrize(
    "text, problem",
    [
        ("0x" + G1_GENERATOR_COMPRESSED, "0x prefix"),
        (G1_GENERATOR_COMPRESSED.upper(), "lowercase hex"),
        (G1_GENERATOR_COMPRESSED[:-1], "odd number of hex digits"),
        (G1_GENERATOR_COMPRESSED[:-2], "expected 48 bytes, got 47"),
        (12345, "expected a lowercase hex string"),
    ],
)
def test_hex_decoding_rejects(text, problem):
    with pytest.raises(PointEncodingError, match=problem) as info:
        decode_g1(text, "proof.a")
    assert info.value.field == "proof.a"


def test_encoding_refuses_a_point_of_the_other_group():
    with pytest.raises(PointEncodingError, match="expected a py_ecc G1 point"):
        g1_to_bytes(G2)
    with pytest.raises(PointEncodingError, match="expected a py_ecc G2 point"):
        encode_g2_many([G2, G1])


@pytest.mark.parametrize(
    "value, coordinate_field, expected",
    [
        pytest.param(G1, FQ, True, id="g1-generator"),
        pytest.param(Z1, FQ, True, id="g1-identity"),
        pytest.param(G2, FQ2, True, id="g2-generator"),
        pytest.param(Z2, FQ2, True, id="g2-identity"),
        pytest.param(G2, FQ, False, id="g2-point-as-g1"),
        pytest.param(G1, FQ2, False, id="g1-point-as-g2"),
        pytest.param(list(G1), FQ, False, id="list-not-tuple"),
        pytest.param(G1[:2], FQ, False, id="two-coordinates"),
        pytest.param(G1 + (FQ.one(),), FQ, False, id="four-coordinates"),
        pytest.param((1, 2, 1), FQ, False, id="plain-ints"),
        pytest.param((FQ12.one(),) * 3, FQ2, False, id="fq12-coordinates"),
        pytest.param(None, FQ, False, id="none"),
    ],
)
def test_a_py_ecc_point_is_a_tuple_of_three_elements_of_its_coordinate_field(value, coordinate_field, expected):
    """is_py_ecc_point: the shape test that the writer (encoding), conformance's comparison and the proof-point check
    (verifier) share. The points are py_ecc's own generators and identities; an FQ12 coordinate is not an FQ2 one
    although both are py_ecc FQP. Killed mutations: a list accepted, any length accepted, the field not compared."""
    assert is_py_ecc_point(value, coordinate_field) is expected


# --- square roots, equality ---------------------------------------------------------------------
def test_square_roots_against_py_ecc_and_squaring():
    rng = random.Random(2537)
    for _ in range(4):
        a = rng.randrange(P)
        root = FQ_INTS.sqrt(a * a % P)
        assert root is not None and root * root % P == a * a % P
        square = FQ2([rng.randrange(P), rng.randrange(P)]) ** 2
        ours, theirs = fq2_sqrt(square), modular_squareroot_in_FQ2(square)
        assert ours * ours == square and ours in (theirs, -theirs)
    real_square, real_non_square = FQ2([4, 0]), FQ2([P - 4, 0])  # -4 is not a square in Fq (p = 3 mod 4)
    assert fq2_sqrt(real_square) in (FQ2([2, 0]), FQ2([P - 2, 0]))
    assert fq2_sqrt(real_non_square) in (FQ2([0, 2]), FQ2([0, P - 2]))  # (2u)^2 = -4
    imaginary = FQ2([0, rng.randrange(P)])
    assert fq2_sqrt(imaginary**2) in (imaginary, -imaginary)
    non_residue = FQ2([1, 1])  # u + 1 is a non-square in Fq2 (the twist is sextic)
    assert fq2_sqrt(non_residue) is None and modular_squareroot_in_FQ2(non_residue) is None
    assert FQ_INTS.sqrt(P - 1) is None  # p = 3 mod 4: -1 is not a square


def test_projective_equality_ignores_the_representative():
    scale = FQ(0xDEADBEEF)
    scaled = (G1[0] * scale, G1[1] * scale, G1[2] * scale)
    assert g1_eq(scaled, G1) and not g1_eq(G1, neg(G1))
    odd_identity = double(double(Z1))  # py_ecc turns (1:1:0) into (0:0:0) after two doublings
    assert g1_eq(odd_identity, Z1) and not g1_eq(odd_identity, G1) and not g1_eq(G1, odd_identity)
    assert g2_eq(add(G2, G2), double(G2)) and not g2_eq(G2, Z2)


# --- the plain-int arithmetic behind decoding, against py_ecc ---------------------------------------
def _fq2_ints(element) -> tuple[int, int]:
    return tuple(int(c) for c in element.coeffs)


def test_fq2_pair_arithmetic_matches_py_ecc():
    rng = random.Random(381)
    u = (0, 1)
    assert FQ2_INTS.mul(u, u) == (P - 1, 0) and FQ2_INTS.sqr(u) == (P - 1, 0)  # u^2 = -1
    for _ in range(4):
        a, b = FQ2([rng.randrange(P), rng.randrange(P)]), FQ2([rng.randrange(P), rng.randrange(P)])
        a_ints, b_ints = _fq2_ints(a), _fq2_ints(b)
        assert FQ2_INTS.mul(a_ints, b_ints) == _fq2_ints(a * b)
        assert FQ2_INTS.sqr(a_ints) == _fq2_ints(a * a)
        assert FQ2_INTS.add(a_ints, b_ints) == _fq2_ints(a + b)
        assert FQ2_INTS.sub(a_ints, b_ints) == _fq2_ints(a - b)
        assert FQ2_INTS.neg(a_ints) == _fq2_ints(-a)
        assert FQ2_INTS.mul_small(8, a_ints) == _fq2_ints(a * 8)
        assert FQ2_INTS.inv(a_ints) == _fq2_ints(FQ2.one() / a)
    assert FQ2_INTS.conj(a_ints) == _fq2_ints(a**P)  # the Frobenius map is x -> x^p


# Per group: py_ecc's generator and field, converters between py_ecc elements and the int forms
# (an int for Fq, a pair (c0, c1) for Fq2), and the int Jacobian functions under test.
INT_ARITHMETIC = {
    "g1": SimpleNamespace(
        base=G1, to_ints=lambda e: e.n, from_ints=FQ, identity=G1_INTS.identity,
        double=G1_INTS.double, add_affine=G1_INTS.add_affine, mul=G1_INTS.mul,
    ),
    "g2": SimpleNamespace(
        base=G2, to_ints=_fq2_ints, from_ints=lambda pair: FQ2(list(pair)), identity=G2_INTS.identity,
        double=G2_INTS.double, add_affine=G2_INTS.add_affine, mul=G2_INTS.mul,
    ),
}


def _affine_ints(ops, point):
    return tuple(ops.to_ints(c) for c in normalize(point))


def _jacobian_ints(ops, point, scale: int):
    """A Jacobian representative (x s^2, y s^3, s) of a finite point, with Z = s != 1 on purpose."""
    x, y = normalize(point)
    s = x.one() * scale
    return ops.to_ints(x * s**2), ops.to_ints(y * s**3), ops.to_ints(s)


def _to_py_ecc(ops, jacobian):
    """Jacobian (X, Y, Z) -> py_ecc homogeneous (X Z, Y, Z^3): both mean (X/Z^2, Y/Z^3); Z = 0 stays O."""
    x, y, z = (ops.from_ints(c) for c in jacobian)
    return (x * z, y, z**3)


def assert_same_point(result, expected):
    """Equal as points, by affine coordinates (py_ecc's eq takes (0 : 0 : 0) as equal to anything)."""
    assert is_inf(result) == is_inf(expected)
    if not is_inf(expected):
        assert normalize(result) == normalize(expected)


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_int_jacobian_arithmetic_matches_py_ecc(group):
    ops = INT_ARITHMETIC[group]
    p, q = multiply(ops.base, 0x1234_5678_9ABC), multiply(ops.base, 0xFEDC_BA98_7654)
    p_jacobian = _jacobian_ints(ops, p, scale=0xC0FFEE)
    qx, qy = _affine_ints(ops, q)
    px, py = _affine_ints(ops, p)
    minus_px, minus_py = _affine_ints(ops, neg(p))

    assert_same_point(_to_py_ecc(ops, ops.double(p_jacobian)), double(p))
    assert_same_point(_to_py_ecc(ops, ops.add_affine(p_jacobian, qx, qy)), add(p, q))
    assert_same_point(_to_py_ecc(ops, ops.add_affine(p_jacobian, px, py)), double(p))  # P + P
    assert is_inf(_to_py_ecc(ops, ops.add_affine(p_jacobian, minus_px, minus_py)))  # P + (-P) = O
    assert_same_point(_to_py_ecc(ops, ops.add_affine(ops.identity, qx, qy)), q)  # O + Q = Q
    assert is_inf(_to_py_ecc(ops, ops.double(ops.identity)))  # [2]O = O


@pytest.mark.parametrize("group", ["g1", "g2"])
@pytest.mark.parametrize("scalar", [1, 2, 3, 0b1011, BLS_X_ABS])
def test_int_jacobian_double_and_add_matches_py_ecc_multiply(group, scalar):
    ops = INT_ARITHMETIC[group]
    q = multiply(ops.base, 0xFEDC_BA98_7654)
    assert_same_point(_to_py_ecc(ops, ops.mul(*_affine_ints(ops, q), scalar)), multiply(q, scalar))


def test_int_double_and_add_meets_the_exceptional_cases_on_small_order_points():
    """An order-3 T: [2]T = -T, so the chain's additions hit T + T and T + (-T); [k]T depends on k mod 3."""
    ops = INT_ARITHMETIC["g1"]
    torsion = g1_order3_point()
    for scalar in (2, 3, 4, 5, 6):
        assert_same_point(_to_py_ecc(ops, ops.mul(*_affine_ints(ops, torsion), scalar)), multiply(torsion, scalar))
