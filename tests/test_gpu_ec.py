"""Curve arithmetic of the GPU kernels (gpu/kernels/ec.cuh, fq2.cuh), checked against py_ecc.

Two layers:
* host tests: the very same __host__ __device__ code built for the CPU by a host compiler
  (tests/native/ec_host.py), one operation at a time, on random points in random XYZZ
  representations and on every special case the formulas must handle (P + P, P + (-P), O);
  they need a C++ compiler (or nvcc), not a GPU, and skip with the reason printed without one;
* GPU tests (marker ``gpu``): device-generated points with known discrete logs.
"""
import ctypes
import importlib.util
import random
from pathlib import Path

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import FQ2, G1, G2, add, curve_order, double, multiply, neg, normalize

from gpu.limbs import FQ, ints_to_limbs
from gpu.points import (
    FQ_LIMBS,
    FQ_MONT_R,
    FQ_MONT_R_INV,
    G1_GROUP,
    G2_GROUP,
    limbs_to_ints,
    points_to_words,
    use_backend,
    words_to_points,
    xyzz_words_to_points,
)
from reference.field import P


def _load_host_module():
    spec = importlib.util.spec_from_file_location("ec_host", Path(__file__).parent / "native" / "ec_host.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ec_host = _load_host_module()
GROUPS = {"g1": (G1_GROUP, G1), "g2": (G2_GROUP, G2)}


@pytest.fixture(scope="module")
def host():
    try:
        return ec_host.host_library("msm.cu")
    except ec_host.NoHostCompiler as exc:
        pytest.skip(f"host build of the kernels skipped: {exc}")


def same_point(a, b) -> bool:
    """Equal group elements (py_ecc's eq mishandles some identity encodings, so compare affine)."""
    a_inf, b_inf = a[2] == a[2].zero(), b[2] == b[2].zero()
    if a_inf or b_inf:
        return a_inf and b_inf
    return normalize(a) == normalize(b)


# ------------------------------------------------------------------ word helpers for one point


def _coefficients(element) -> list[int]:
    return [int(c) for c in element.coeffs] if isinstance(element, FQ2) else [int(element)]


def _to_words(values: list[int]) -> np.ndarray:
    return ints_to_limbs([v * FQ_MONT_R % P for v in values], FQ).reshape(-1)


def xyzz_words(point, z, group) -> np.ndarray:
    """XYZZ words of an affine-normalizable point scaled by z: (x z^2, y z^3, z^2, z^3); O -> (1, 1, 0, 0)."""
    if point[2] == point[2].zero():
        one, zero = [1] + [0] * (group.degree - 1), [0] * group.degree
        return _to_words(one + one + zero + zero)
    x, y = normalize(point)
    zz, zzz = z * z, z * z * z
    return _to_words(_coefficients(x * zz) + _coefficients(y * zzz) + _coefficients(zz) + _coefficients(zzz))


def random_z(group, rng):
    if group.degree == 1:
        return type(G1[0])(rng.randrange(1, P))
    return FQ2([rng.randrange(P), rng.randrange(1, P)])


def call_xyzz(host, name, group, *inputs, scalar=None):
    out = np.zeros(group.xyzz_words, dtype=np.uint32)
    arrays = [np.ascontiguousarray(a, dtype=np.uint32) for a in inputs]
    args = [ptr(a) for a in arrays]
    if scalar is not None:
        args.append(ctypes.c_uint32(scalar))
    getattr(host, f"ec_{name}_{group.name}")(*args, ptr(out))
    return xyzz_words_to_points(out, group)[0]


def ptr(array: np.ndarray) -> ctypes.c_void_p:
    """A NumPy array's data pointer as a C pointer argument (a bare int would be passed as a C int).
    The caller keeps the array alive until the call returns."""
    return ctypes.c_void_p(array.ctypes.data)


def random_point(base, rng):
    return multiply(base, rng.randrange(1, curve_order))


# ------------------------------------------------------------------ Fq2


def _fq2_words(element) -> np.ndarray:
    return _to_words(_coefficients(element))


def _fq2_from_words(words) -> FQ2:
    return FQ2([v * FQ_MONT_R_INV % P for v in limbs_to_ints(words.reshape(2, FQ_LIMBS))])


@pytest.mark.parametrize("seed", range(4))
def test_fq2_mul_sqr_inverse_match_py_ecc(host, seed):
    rng = random.Random(seed)
    a = FQ2([rng.randrange(P), rng.randrange(P)])
    b = FQ2([rng.randrange(P), rng.randrange(P)])
    out = np.zeros(2 * FQ_LIMBS, dtype=np.uint32)
    a_words, b_words = _fq2_words(a), _fq2_words(b)  # kept alive across the calls
    host.ec_fq2_mul(ptr(a_words), ptr(b_words), ptr(out))
    assert _fq2_from_words(out) == a * b
    host.ec_fq2_sqr(ptr(a_words), ptr(out))
    assert _fq2_from_words(out) == a * a
    host.ec_fq2_inverse(ptr(a_words), ptr(out))
    assert _fq2_from_words(out) == FQ2.one() / a


def test_fq2_inverse_of_zero_is_zero(host):
    out = np.ones(2 * FQ_LIMBS, dtype=np.uint32)
    zero = _fq2_words(FQ2.zero())
    host.ec_fq2_inverse(ptr(zero), ptr(out))
    assert not out.any()


def test_fq2_u_squared_is_minus_one(host):
    u = FQ2([0, 1])
    out = np.zeros(2 * FQ_LIMBS, dtype=np.uint32)
    u_words = _fq2_words(u)
    host.ec_fq2_sqr(ptr(u_words), ptr(out))
    assert _fq2_from_words(out) == FQ2([P - 1, 0])


# ------------------------------------------------------------------ point formulas


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_mixed_addition_madd_2008_s(host, name):
    group, base = GROUPS[name]
    rng = random.Random(f"madd-{name}")
    p, q = random_point(base, rng), random_point(base, rng)
    z = random_z(group, rng)
    cases = {
        "P + Q": (p, q, add(p, q)),
        "P + P (doubling)": (p, p, double(p)),
        "P + (-P)": (p, neg(p), group.identity),
        "O + Q": (group.identity, q, q),
        "P + O": (p, group.identity, p),
        "O + O": (group.identity, group.identity, group.identity),
    }
    for label, (left, right, expected) in cases.items():
        got = call_xyzz(host, "add_affine", group, xyzz_words(left, z, group), points_to_words([right], group))
        assert same_point(got, expected), label


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_general_addition_add_2008_s(host, name):
    group, base = GROUPS[name]
    rng = random.Random(f"add-{name}")
    p, q = random_point(base, rng), random_point(base, rng)
    z1, z2 = random_z(group, rng), random_z(group, rng)
    cases = {
        "P + Q": (p, q, add(p, q)),
        "P + P, different Z (doubling)": (p, p, double(p)),
        "P + (-P)": (p, neg(p), group.identity),
        "O + Q": (group.identity, q, q),
        "P + O": (p, group.identity, p),
    }
    for label, (left, right, expected) in cases.items():
        got = call_xyzz(host, "add", group, xyzz_words(left, z1, group), xyzz_words(right, z2, group))
        assert same_point(got, expected), label


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_doubling_dbl_2008_s_1_and_mdbl(host, name):
    group, base = GROUPS[name]
    rng = random.Random(f"dbl-{name}")
    p = random_point(base, rng)
    assert same_point(call_xyzz(host, "double", group, xyzz_words(p, random_z(group, rng), group)), double(p))
    assert same_point(call_xyzz(host, "double", group, xyzz_words(group.identity, None, group)), group.identity)
    assert same_point(call_xyzz(host, "double_affine", group, points_to_words([p], group)), double(p))
    assert same_point(call_xyzz(host, "double_affine", group, points_to_words([group.identity], group)), group.identity)


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_to_affine_and_from_affine(host, name):
    group, base = GROUPS[name]
    rng = random.Random(f"affine-{name}")
    p = random_point(base, rng)
    out = np.zeros(group.affine_words, dtype=np.uint32)
    host_fn = getattr(host, f"ec_to_affine_{group.name}")
    p_words = xyzz_words(p, random_z(group, rng), group)
    host_fn(ptr(p_words), ptr(out))
    assert np.array_equal(out, points_to_words([p], group)[0]), "affine words differ from the normalized point"
    identity_words = xyzz_words(group.identity, None, group)
    host_fn(ptr(identity_words), ptr(out))
    assert not out.any(), "the identity must map to (0, 0)"
    back = call_xyzz(host, "from_affine", group, points_to_words([p], group))
    assert same_point(back, p)
    assert same_point(call_xyzz(host, "from_affine", group, points_to_words([group.identity], group)), group.identity)


@pytest.mark.parametrize("name", ["g1", "g2"])
@pytest.mark.parametrize("k", [0, 1, 2, 3, 31, 1 << 19, 0xFFFFFFFF])
def test_small_scalar_multiple(host, name, k):
    group, base = GROUPS[name]
    rng = random.Random(f"mul-{name}-{k}")
    p = random_point(base, rng)
    got = call_xyzz(host, "mul_small", group, xyzz_words(p, random_z(group, rng), group), scalar=k)
    assert same_point(got, multiply(p, k) if k else group.identity)


def test_identity_words_round_trip():
    for group in (G1_GROUP, G2_GROUP):
        words = points_to_words([group.identity, G1 if group is G1_GROUP else G2], group)
        assert not words[0].any()
        back = words_to_points(words, group)
        assert back[0] == group.identity
        assert same_point(back[1], G1 if group is G1_GROUP else G2)


# ------------------------------------------------------------------ generated bases


def _progression_expected(count, b, a, base):
    return [multiply(base, (b + i * a) % curve_order) for i in range(count)]


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_progression_bases_host_emulation(host, name):
    """progression_points: point i = (b + i a) G, several threads, a run that crosses the identity."""
    from gpu.msm import progression_bases

    group, base = GROUPS[name]
    a = 5
    b = curve_order - 3 * a  # point 3 is (r) G = O
    count = 7
    with use_backend(ec_host.emulation_backend()):
        words = progression_bases(count, multiply(base, b), multiply(base, a), group, run=3)
        got = words_to_points(np.asarray(words), group)
    for i, (g, e) in enumerate(zip(got, _progression_expected(count, b, a, base))):
        assert same_point(g, e), i
    assert not np.asarray(words)[3].any(), "the identity is (0, 0)"


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["g1", "g2"])
def test_progression_bases_on_gpu(name):
    from gpu.msm import progression_bases
    from gpu.points import download_points

    group, base = GROUPS[name]
    rng = random.Random(f"gpu-progression-{name}")
    a, b = rng.randrange(1, curve_order), rng.randrange(1, curve_order)
    count = 600
    got = download_points(progression_bases(count, multiply(base, b), multiply(base, a), group, run=64), group)
    for i in rng.sample(range(count), 12) + [0, count - 1]:
        assert same_point(got[i], multiply(base, (b + i * a) % curve_order)), i
