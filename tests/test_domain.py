"""Field and evaluation-domain properties; galois as an independent NTT oracle."""
import random

import galois
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.domain import BELLMAN, SNARKJS, EvaluationDomain, evaluate_polynomial
from reference.field import R, TWO_ADICITY, batch_inverse, inv

scalars = st.integers(min_value=0, max_value=R - 1)


@pytest.fixture(scope="module")
def gf():
    # verify=False: galois would otherwise prove r prime and search a primitive element, which is slow.
    return galois.GF(R, primitive_element=7, verify=False)


def test_seven_generates_the_two_adic_subgroup():
    # omega_{2^32} = 7^((r-1)/2^32) has order exactly 2^32, so 7 is a non-residue and every domain exists.
    root = pow(7, (R - 1) >> TWO_ADICITY, R)
    assert pow(root, 1 << TWO_ADICITY, R) == 1
    assert pow(root, 1 << (TWO_ADICITY - 1), R) == R - 1


@pytest.mark.parametrize("log_n", [0, 1, 2, 5, 10, 31])
def test_root_has_exact_order_n(log_n):
    d = EvaluationDomain(log_n)
    assert pow(d.omega, d.n, R) == 1
    if log_n:
        assert pow(d.omega, d.n // 2, R) == R - 1  # order exactly n, not a divisor
    assert d.omega * d.omega_inv % R == 1 and d.n * d.n_inv % R == 1


BLS12_381_SCALAR_ROOT_OF_UNITY_MONTGOMERY = (0xB9B58D8C5F0E466A, 0x5B1B4C801819D7EC, 0x0AF53AE352A31E64, 0x5BF3ADDA19E9B27B)
"""zkcrypto/bls12_381 src/scalar.rs ``ROOT_OF_UNITY`` (the 2^32-th root bellman's EvaluationDomain::from_coeffs squares
down), as published: little-endian u64 limbs in Montgomery form (value * 2^256 mod r)."""


def test_bellman_root_of_unity_squares_down():
    # bellman (src/domain.rs from_coeffs): omega_n = ROOT_OF_UNITY squared 32 - k times. The constant is the published
    # one, not recomputed here from 7, so this also checks the claim ROOT_OF_UNITY = 7^((r-1)/2^32).
    montgomery = sum(limb << (64 * i) for i, limb in enumerate(BLS12_381_SCALAR_ROOT_OF_UNITY_MONTGOMERY))
    root = montgomery * pow(2, -256, R) % R
    assert root == 0x16A2A19EDFE81F20D09B681922C813B4B63683508C2280B93829971F439F0D2B
    for k in (1, 7, 20, 31):
        assert EvaluationDomain(k).omega == pow(root, 1 << (TWO_ADICITY - k), R)


def test_five_is_the_least_quadratic_non_residue():
    """The snarkjs convention's root generator (reference/domain.py): ffjavascript takes the least non-residue, found
    by Euler's criterion here, not taken from SNARKJS.root_generator."""
    least = next(a for a in range(2, 100) if pow(a, (R - 1) // 2, R) == R - 1)
    assert least == SNARKJS.root_generator == 5


def test_log_n_32_is_rejected():
    with pytest.raises(ValueError, match="2-adicity"):
        EvaluationDomain(32)


def test_snarkjs_coset_shift_is_a_primitive_2n_th_root_and_needs_one():
    """SNARKJS's g = omega_2n must have order exactly 2n (checked by powering, not by the domain code); at log_n = 31 that
    is a 2^32-th root, the largest Fr has, and log_n = 32 asks for a 2^33-th root, which does not exist: refused, not a
    wrong g (5^((r-1)/2^33) is no root of unity of order 2^33, as r - 1 = 2^32 * odd)."""
    for log_n in (0, 1, 5, 31):
        g = SNARKJS.coset_shift(log_n)
        assert pow(g, 2 << log_n, R) == 1 and pow(g, 1 << log_n, R) == R - 1
    with pytest.raises(ValueError, match="2-adicity"):
        SNARKJS.coset_shift(32)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=6).flatmap(lambda k: st.lists(scalars, min_size=1 << k, max_size=1 << k)))
def test_ntt_round_trips(values):
    d = EvaluationDomain(len(values).bit_length() - 1)
    assert d.intt(d.ntt(values)) == values
    assert d.coset_intt(d.coset_ntt(values)) == values


@pytest.mark.parametrize("log_n", [2, 5, 8])
def test_ntt_matches_galois_fft(gf, log_n):
    d = EvaluationDomain(log_n)
    rng = random.Random(100 + log_n)
    coeffs = [rng.randrange(R) for _ in range(d.n)]
    # galois implements numpy.fft.fft on a prime-field FieldArray as the NTT with omega = primitive_element^((p-1)/n).
    expected = np.fft.fft(gf(coeffs))
    assert d.ntt(coeffs) == [int(x) for x in expected]
    assert d.intt([int(x) for x in expected]) == coeffs


@pytest.mark.parametrize("log_n", [1, 4, 7])
def test_coset_ntt_evaluates_on_the_coset(log_n):
    d = EvaluationDomain(log_n)
    rng = random.Random(log_n)
    coeffs = [rng.randrange(R) for _ in range(d.n)]
    evals = d.coset_ntt(coeffs)
    for j in rng.sample(range(d.n), min(d.n, 4)):
        assert evals[j] == evaluate_polynomial(coeffs, BELLMAN.coset_generator * pow(d.omega, j, R) % R)


def test_lagrange_basis_matches_interpolation():
    d = EvaluationDomain(4)
    rng = random.Random(4)
    evals = [rng.randrange(R) for _ in range(d.n)]
    x = rng.randrange(R)
    by_lagrange = sum(e * l for e, l in zip(evals, d.lagrange_at(x))) % R
    assert by_lagrange == evaluate_polynomial(d.intt(evals), x)


def test_z_on_coset_is_constant():
    d = EvaluationDomain(5)
    for j in (0, 3, 31):
        assert d.z_at(d.g * pow(d.omega, j, R) % R) == (pow(BELLMAN.coset_generator, d.n, R) - 1) % R != 0


@given(st.lists(st.integers(min_value=1, max_value=R - 1), min_size=1, max_size=20))
def test_batch_inverse(values):
    assert batch_inverse(values) == [inv(v) for v in values]
    assert all(v * w % R == 1 for v, w in zip(values, batch_inverse(values)))


@pytest.mark.parametrize("x", [0, R, 2 * R, -R])
def test_inverse_of_a_multiple_of_r_is_refused(x):
    """x = 0 (mod r) has no inverse, whatever representative is passed: inv must not return pow(0, r - 2, r) = 0."""
    with pytest.raises(ZeroDivisionError):
        inv(x)
    with pytest.raises(ZeroDivisionError):
        batch_inverse([1, x % R, 2])


@pytest.mark.parametrize("x", [R + 2, 3 * R - 1, -5])
def test_inverse_of_an_unreduced_value_is_the_inverse_of_its_residue(x):
    """Checked by multiplication mod r and Python's own pow(x, -1, r), not by reference/field.py."""
    assert inv(x) == pow(x % R, -1, R) and x * inv(x) % R == 1


@pytest.mark.parametrize("j", [0, 1, 7])
def test_lagrange_basis_is_refused_on_the_domain_itself(j):
    """l_j(x) = omega^j Z(x) / (n (x - omega^j)) is 0/0 at a domain point: lagrange_at says so (ValueError) instead
    of failing in an inversion."""
    d = EvaluationDomain(3)
    with pytest.raises(ValueError, match="lies in the domain"):
        d.lagrange_at(pow(d.omega, j, R))
