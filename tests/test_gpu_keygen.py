"""The GPU key generator (gpu/keygen.py) against the reference setup, bit for bit.

On machines without a GPU the kernels run through their host build (tests/native/ec_host.py), so the
same drivers and kernel bodies are checked; the @gpu tests repeat the comparison on the device with
the CuPy backend. The expected keys are the checked-in vectors' (made by reference/setup.py from the
recorded trapdoor), compared through their ZCash encodings.
"""

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1, G2, multiply

from gpu.circuit import DeviceCircuit, QueryDensity
from gpu.evaluate import DeviceR1cs, build_csr
from gpu.limbs import FR, ints_to_limbs, limbs_to_ints
from gpu.points import G1_GROUP, G2_GROUP
from reference.encoding import encode_g1, encode_g2
from reference.errors import InvalidInputError
from reference.field import R
from reference.setup import trapdoor_from_seed
from vectors.bundled import DATA_DIR
from vectors.format import load_vector


@pytest.fixture
def emulated(kernel_emulation):
    """The host emulation, for one test at a time (the @gpu tests of this module must see the CuPy backend)."""
    with kernel_emulation("msm.cu", "keygen.cu"):
        yield


def host_circuit(r1cs) -> DeviceCircuit:
    """The DeviceCircuit with numpy arrays (what the host emulation runs on); coefficients to Montgomery form by Python ints."""
    csr = build_csr(r1cs)
    coeff = ints_to_limbs([FR.to_montgomery(c) for c in limbs_to_ints(csr.coeff)], FR) if len(csr.var) else np.zeros((1, 8), np.uint32)
    var = csr.var if len(csr.var) else np.zeros(1, np.int32)
    device_r1cs = DeviceR1cs(csr.log_n, csr.num_variables, csr.row_start, var, coeff, r1cs.num_rows)
    return DeviceCircuit(device_r1cs, r1cs.num_inputs, r1cs.num_aux, QueryDensity.from_density(r1cs.density()))


def assert_same_keys(got, expected):
    assert [encode_g1(p) for p in got.h] == [encode_g1(p) for p in expected.h]
    assert [encode_g1(p) for p in got.l] == [encode_g1(p) for p in expected.l]
    assert [encode_g1(p) for p in got.a] == [encode_g1(p) for p in expected.a]
    assert [encode_g1(p) for p in got.b_g1] == [encode_g1(p) for p in expected.b_g1]
    assert [encode_g2(p) for p in got.b_g2] == [encode_g2(p) for p in expected.b_g2]
    vk, ref = got.vk, expected.vk
    assert [encode_g1(p) for p in vk.ic] == [encode_g1(p) for p in ref.ic]
    for name in ("alpha_g1", "beta_g1", "delta_g1"):
        assert encode_g1(getattr(vk, name)) == encode_g1(getattr(ref, name)), name
    for name in ("beta_g2", "gamma_g2", "delta_g2"):
        assert encode_g2(getattr(vk, name)) == encode_g2(getattr(ref, name)), name


@pytest.mark.parametrize("name, piece_terms", [("porep-log04", 256), ("porep-log04", 2), ("random-log06", 3),
                                               ("edge-density-boundaries", 256)])
def test_keys_equal_the_reference_setup(emulated, monkeypatch, name, piece_terms):
    """piece_terms: columns cut into pieces of that many terms (2 and 3 make most columns several pieces)."""
    import gpu.keygen
    from gpu.keygen import generate_keys, to_proving_key

    monkeypatch.setattr(gpu.keygen, "QAP_PIECE_TERMS", piece_terms)

    vector = load_vector(DATA_DIR / f"{name}.json")
    assert vector.trapdoor is not None, "the vector must record its trapdoor"
    circuit = host_circuit(vector.r1cs)
    key = generate_keys(circuit, vector.trapdoor)
    assert_same_keys(to_proving_key(key, circuit), vector.pk)


def test_fixed_base_multiplication_matches_py_ecc(emulated):
    """Every 8-bit window, zero, one, r - 1 and random scalars, in G1 and G2, against py_ecc's multiply."""
    import random

    from gpu.keygen import fixed_base_mul
    from gpu.points import download_points

    rng = random.Random(7)
    scalars = [0, 1, 2, 255, 256, R - 1, R - 2, 1 << 254] + [1 << (8 * k) for k in range(32)] + [rng.randrange(R) for _ in range(8)]
    scalars = [s % R for s in scalars]
    limbs = ints_to_limbs([FR.to_montgomery(s) for s in scalars], FR)
    for group, generator, encode in ((G1_GROUP, G1, encode_g1), (G2_GROUP, G2, encode_g2)):
        got = download_points(fixed_base_mul(limbs, group), group)
        assert [encode(p) for p in got] == [encode(multiply(generator, s)) for s in scalars], group.name


def test_kept_scalars_are_the_discrete_logs(emulated):
    """DeviceKey.scalars[q][i] * G is the key's point i of query q (the trapdoor checks rely on it)."""
    from gpu.keygen import generate_keys

    vector = load_vector(DATA_DIR / "porep-log03.json")
    key = generate_keys(host_circuit(vector.r1cs), vector.trapdoor, keep_scalars=True)
    for name, points in (("h", vector.pk.h), ("l", vector.pk.l), ("a", vector.pk.a), ("b", vector.pk.b_g1)):
        logs = [FR.from_montgomery(v) for v in limbs_to_ints(key.scalars[name])]
        assert [encode_g1(multiply(G1, k)) for k in logs] == [encode_g1(p) for p in points], name


def test_only_bellman_keys(emulated):
    from gpu.keygen import generate_keys
    from reference.domain import SNARKJS

    vector = load_vector(DATA_DIR / "porep-log02.json")
    with pytest.raises(InvalidInputError, match="bellman"):
        generate_keys(host_circuit(vector.r1cs), trapdoor_from_seed("x"), SNARKJS)


@pytest.mark.gpu
def test_keys_equal_the_reference_setup_on_the_gpu():
    from gpu.keygen import generate_keys, to_proving_key

    for name in ("porep-log08", "multi-circuit-log07", "edge-density-boundaries"):
        vector = load_vector(DATA_DIR / f"{name}.json")
        circuit = DeviceCircuit.from_r1cs(vector.r1cs)
        assert_same_keys(to_proving_key(generate_keys(circuit, vector.trapdoor), circuit), vector.pk)


@pytest.mark.parametrize("g2", [False, True])
def test_the_trapdoor_point_check_compares_every_coordinate(g2):
    """A compressed encoding keeps x and y's sign only: a point whose y is off by one encodes like the right point (the
    check used to compare encodings, and passed it); gpu.trapdoor compares coordinates, and fails it."""
    from py_ecc.optimized_bls12_381 import FQ, FQ2, G1, G2, multiply

    from gpu.trapdoor import _point_check
    from reference.encoding import encode_g1, encode_g2

    right = multiply(G2 if g2 else G1, 7)
    x, y, z = right
    wrong = (x, y + (FQ2([1, 0]) if g2 else FQ(1)) * z, z)  # (affine y + 1)
    encode = encode_g2 if g2 else encode_g1
    assert encode(wrong) == encode(right)
    assert _point_check("right", right, 7, g2).ok
    result = _point_check("wrong", wrong, 7, g2)
    assert not result.ok and "expected affine" in result.detail
    assert not _point_check("identity", multiply(G1, 0), 7, g2=False).ok
