"""reference/msm.py: Pippenger MSM, signed digits, window choice, fixed-base tables.

Oracles: the bases are P_i = e_i * G with known e_i, so sum_i s_i P_i = (sum_i s_i e_i mod r) * G,
one py_ecc multiply (scalar arithmetic mod r, independent of any MSM code); and msm_naive, the
double-and-add oracle, on random inputs (hypothesis).
"""
import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.curve import G1, G2, Z1, Z2, add, g1_eq, g2_eq, is_identity, multiply, neg
from reference.errors import InvalidInputError, ScalarRangeError, SizeMismatchError
from reference.field import R
from reference.msm import (
    REFERENCE_CURVE,
    FixedBaseTable,
    _generator_table,
    msm_naive,
    msm_pippenger,
    num_windows,
    signed_digits,
    pippenger_window_bits,
)

HALF_R = R // 2
SPECIAL_SCALARS = [0, 1, 2, R - 1, R - 2, 2**254, (R - 1) // 2, (R + 1) // 2, HALF_R - 1, HALF_R, HALF_R + 1, HALF_R + 2]
"""Edge scalars: the ends of [0, r), the top bit, and the values around r/2 where signed digits flip."""

MAX_BASES = 33


@functools.lru_cache(maxsize=None)
def g1_bases(seed: int = 381) -> tuple[tuple[int, ...], tuple]:
    """(e_i, P_i = e_i * G1) for i < MAX_BASES, e_i = e_0 + i*step mod r (cheap: one add per base)."""
    rng = random.Random(seed)
    first, step = rng.randrange(1, R), rng.randrange(1, R)
    exponents = tuple((first + i * step) % R for i in range(MAX_BASES))
    point, step_point, points = multiply(G1, first), multiply(G1, step), []
    for _ in range(MAX_BASES):
        points.append(point)
        point = add(point, step_point)
    return exponents, tuple(points)


def expected_g1(exponents, scalars):
    """sum_i s_i (e_i G) = (sum_i s_i e_i mod r) G."""
    return multiply(G1, sum(s * e for s, e in zip(scalars, exponents)) % R)


def _scalar_patterns(n: int, rng: random.Random) -> dict[str, list[int]]:
    equal = rng.randrange(R)
    return {
        "all 0": [0] * n,
        "all 1": [1] * n,
        "all r-1": [R - 1] * n,
        "all equal": [equal] * n,
        "0,1,r-1 mix": [(0, 1, R - 1)[i % 3] for i in range(n)],
        "2^254": [2**254] * n,
        "(r-1)/2": [(R - 1) // 2] * n,
        "(r+1)/2": [(R + 1) // 2] * n,
        "around r/2": [HALF_R - 1 + (i % 4) for i in range(n)],
        "random": [rng.randrange(R) for _ in range(n)],
    }


PATTERN_CASES = [
    pytest.param(n, name, id=f"n={n}-{name}")
    for n in (1, 2, 31, 33)
    for name in _scalar_patterns(1, random.Random(0))
]


@pytest.mark.parametrize("n, pattern", PATTERN_CASES)
def test_pippenger_g1_special_scalars(n, pattern):
    exponents, points = g1_bases()
    scalars = _scalar_patterns(n, random.Random(n))[pattern]
    assert g1_eq(msm_pippenger(list(points[:n]), scalars), expected_g1(exponents[:n], scalars))


@pytest.mark.parametrize("window_bits", [1, 2, 5, 8, 15, 16, 17])
def test_pippenger_g1_window_widths(window_bits):
    exponents, points = g1_bases()
    rng = random.Random(window_bits)
    scalars = [rng.randrange(R) for _ in points]
    scalars[:len(SPECIAL_SCALARS)] = SPECIAL_SCALARS
    assert g1_eq(msm_pippenger(list(points), scalars, window_bits), expected_g1(exponents, scalars))


def test_pippenger_repeated_bases_double_in_a_bucket():
    _, points = g1_bases()
    scalar = 0x5A5A_5A5A_1234
    assert g1_eq(msm_pippenger([points[0]] * 5, [scalar] * 5), multiply(points[0], 5 * scalar))
    assert g1_eq(msm_pippenger([points[0]] * 2, [R - 1, R - 1], 8), multiply(points[0], R - 2))


def test_pippenger_point_with_its_negation_cancels():
    exponents, points = g1_bases()
    rng = random.Random(7)
    s = rng.randrange(R)
    assert is_identity(msm_pippenger([points[3], neg(points[3])], [s, s]))
    t = rng.randrange(R)
    got = msm_pippenger([points[3], neg(points[3]), points[4]], [s, s, t], 5)
    assert g1_eq(got, multiply(G1, t * exponents[4] % R))


def test_pippenger_identity_among_bases():
    exponents, points = g1_bases()
    rng = random.Random(11)
    bases = [points[0], Z1, points[1], Z1]
    scalars = [rng.randrange(R) for _ in bases]
    assert g1_eq(msm_pippenger(bases, scalars), expected_g1([exponents[0], 0, exponents[1], 0], scalars))


def test_pippenger_all_bases_identity():
    assert is_identity(msm_pippenger([Z1] * 4, [1, 2, R - 1, 12345]))


def test_pippenger_empty_input_needs_the_identity():
    assert msm_pippenger([], [], identity=Z2) == Z2
    assert msm_naive([], [], identity=Z1) == Z1
    with pytest.raises(SizeMismatchError, match="identity"):
        msm_pippenger([], [])


def test_pippenger_g2_small():
    rng = random.Random(2)
    exponents = [rng.randrange(1, R) for _ in range(3)]
    points = [multiply(G2, e) for e in exponents]
    for scalars in ([R - 1, (R + 1) // 2, 2**254], [rng.randrange(R) for _ in range(3)], [0, 1, 0]):
        want = multiply(G2, sum(s * e for s, e in zip(scalars, exponents)) % R)
        assert g2_eq(msm_pippenger(points, scalars), want)
    assert g2_eq(msm_pippenger([points[0], neg(points[0])], [5, 5], 3), Z2)


def test_naive_agrees_with_the_exponent_oracle():
    exponents, points = g1_bases()
    scalars = [R - 1, 0, 1, 2**254, (R + 1) // 2]
    assert g1_eq(msm_naive(list(points[:5]), scalars), expected_g1(exponents[:5], scalars))


@settings(max_examples=15, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, MAX_BASES - 1), st.integers(0, R - 1)), min_size=1, max_size=4),
    st.sampled_from([None, 3, 5, 8]),
)
def test_pippenger_equals_naive(pairs, window_bits):
    _, points = g1_bases()
    bases = [points[i] for i, _ in pairs]
    scalars = [s for _, s in pairs]
    assert g1_eq(msm_pippenger(bases, scalars, window_bits), msm_naive(bases, scalars))


# --- signed digits and the window rule ----------------------------------------------------------
def _check_digits(scalar: int, c: int) -> None:
    digits = signed_digits(scalar, c)
    assert len(digits) == num_windows(c) == -(-256 // c)
    assert sum(d << (c * j) for j, d in enumerate(digits)) == scalar
    assert all(abs(d) <= 1 << (c - 1) for d in digits)


@pytest.mark.parametrize("c", range(1, 21))
def test_signed_digits_recompose_special_scalars(c):
    for scalar in SPECIAL_SCALARS:
        _check_digits(scalar, c)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, R - 1), st.integers(1, 20))
def test_signed_digits_recompose_random_scalars(scalar, c):
    _check_digits(scalar, c)


def test_signed_digits_examples():
    assert signed_digits(0b1100_0111, 4)[:3] == [7, -4, 1]  # 0xc7 = 7 + (-4)*16 + 1*256
    assert signed_digits(8, 4)[:2] == [8, 0]  # v = 2^(c-1) stays positive
    assert signed_digits(9, 4)[:2] == [-7, 1]


def test_window_rule_examples():
    # W(c) * (n + 2^c): n = 1 -> c = 2 (640 < 768 at c = 1, 774 at c = 3); n = 1000 -> c = 8
    # (32 * 1256 = 40192 < 37 * 1128 = 41736 at c = 7 and 29 * 1512 = 43848 at c = 9).
    assert pippenger_window_bits(1) == 2
    assert pippenger_window_bits(33) == 4
    assert pippenger_window_bits(1000) == 8
    assert pippenger_window_bits(2**20) == 16


# --- fixed-base tables ----------------------------------------------------------------------------
def test_fixed_base_table_g1():
    table = FixedBaseTable(G1, window_bits=6)
    rng = random.Random(5)
    for k in SPECIAL_SCALARS + [rng.randrange(R) for _ in range(3)]:
        assert g1_eq(table.mul(k), multiply(G1, k))
    ks = [rng.randrange(R) for _ in range(3)]
    assert all(g1_eq(a, multiply(G1, k)) for a, k in zip(table.mul_many(ks), ks, strict=True))


def test_fixed_base_table_default_window():
    table = FixedBaseTable(G1)
    assert table.window_bits == 8 and len(table.rows) == 32 and len(table.rows[0]) == 128
    for k in (R - 1, (R + 1) // 2, 0xFF, 0x80, 0x81):
        assert g1_eq(table.mul(k), multiply(G1, k))


def test_fixed_base_table_g2():
    table = FixedBaseTable(G2, window_bits=3)
    for k in (0, 1, R - 1, (R + 1) // 2, 0x1234_5678_9ABC):
        assert g2_eq(table.mul(k), multiply(G2, k))


# --- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [R, -1, R + 5, 1.0, True, "1"])
def test_scalars_outside_the_field_are_rejected(bad):
    _, points = g1_bases()
    with pytest.raises(ScalarRangeError) as info:
        msm_pippenger(list(points[:2]), [1, bad])
    assert info.value.field == "scalars[1]"
    with pytest.raises(ScalarRangeError):
        msm_naive(list(points[:2]), [bad, 1])
    with pytest.raises(ScalarRangeError):
        signed_digits(bad, 4)


def test_table_rejects_bad_scalars_by_index():
    table = FixedBaseTable(G1, window_bits=2)
    with pytest.raises(ScalarRangeError) as info:
        table.mul_many([1, 2, R])
    assert info.value.field == "scalars[2]"


def test_length_mismatch_is_rejected():
    _, points = g1_bases()
    with pytest.raises(SizeMismatchError, match="2 scalars for 3 points"):
        msm_pippenger(list(points[:3]), [1, 2])


@pytest.mark.parametrize("bad", [0, 21, -3, 2.0, "8"])
def test_bad_window_widths_are_rejected(bad):
    with pytest.raises(InvalidInputError, match="window_bits"):
        msm_pippenger([G1], [1], bad)


def test_generator_multiples_build_one_table_a_base_and_compute_k_times_it():
    scalars = [0, 1, 2, R - 1, 2**254]
    for base, identity, eq in ((G1, Z1, g1_eq), (G2, Z2, g2_eq)):
        got = REFERENCE_CURVE.generator_multiples(base, scalars)
        assert all(eq(p, multiply(base, k) if k else identity) for p, k in zip(got, scalars, strict=True))
    equal_copy_of_g1 = tuple(type(c)(c.n) for c in G1)
    assert _generator_table(equal_copy_of_g1) is _generator_table(G1)
    assert _generator_table(G2) is not _generator_table(G1)


def test_msm_h_needs_one_h_query_point_per_scalar():
    """reference/msm_h.py: the H query has exactly one point per scalar of h; one point more or one fewer is a
    SizeMismatchError naming proving_key.h (not an error from deeper down). The sum itself: 2*G + 3*(5G) = 17G."""
    from reference.msm_h import msm_h

    for h, query in (((1, 2), (G1,)), ((1,), (G1, G1))):
        with pytest.raises(SizeMismatchError) as info:
            msm_h(h, query)
        assert info.value.field == "proving_key.h"
    assert g1_eq(msm_h((2, 3), (G1, multiply(G1, 5))), multiply(G1, 17))
