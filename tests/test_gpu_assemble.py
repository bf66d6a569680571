"""Phase assemble on the device (gpu/assemble.py, gpu/kernels/assemble.cu) against the reference.

Runs on the host build of the kernels where there is no GPU (tests/native/ec_host.py), on the device
under @gpu. Expected values: the checked-in vectors' assemble outputs (reference prover) and py_ecc.
"""
import random

import pytest
from py_ecc.optimized_bls12_381 import G1, G2, Z1, add, multiply, neg

from gpu.points import G1_GROUP, G2_GROUP, points_to_words
from reference.cli import proof_json
from reference.encoding import encode_g1, encode_g2
from reference.field import R
from vectors.bundled import DATA_DIR
from vectors.format import load_vector


@pytest.fixture
def emulated(kernel_emulation):
    """The host emulation, for one test at a time (the @gpu tests of this module must see the CuPy backend)."""
    with kernel_emulation("assemble.cu"):
        yield


def _check_vector_proofs(name):
    """gpu.assemble.assemble and download_proofs (the prover's) over every circuit of the vector, its expected MSM
    outputs uploaded."""
    from conformance.backends.gpu import query_sums_to_device
    from gpu.assemble import assemble, download_proofs
    from gpu.points import G1_GROUP, backend, points_to_words

    vector = load_vector(DATA_DIR / f"{name}.json")
    expected = [case.expected for case in vector.circuits]
    h = backend().xp.asarray(points_to_words([e.msm_h for e in expected], G1_GROUP))
    batch, tail = query_sums_to_device([e.batch_add for e in expected]), query_sums_to_device([e.tail_msm for e in expected])
    got = download_proofs(assemble(vector.pk.vk, h, batch, tail, [(case.witness.r, case.witness.s) for case in vector.circuits]))
    assert [proof_json(p) for p in got] == [proof_json(e.assemble) for e in expected]


@pytest.mark.parametrize("name", ["porep-log03", "multi-circuit-log07", "edge-scalars"])
def test_device_assembly_equals_the_reference(emulated, name):
    _check_vector_proofs(name)


def test_linear_combinations_special_cases(emulated):
    """Zero scalars, identity points, P + P (the doubling case of the addition formula), P - P, and r - 1."""
    import numpy as np

    from gpu.assemble import linear_combinations
    from gpu.points import download_points

    rng = random.Random(3)
    p, q = multiply(G1, rng.randrange(R)), multiply(G1, rng.randrange(R))
    rows = [
        ([p, q], [0, 0], Z1),
        ([Z1, q], [5, 7], multiply(q, 7)),
        ([p, p], [1, 1], add(p, p)),
        ([p, neg(p)], [3, 3], Z1),
        ([p, q], [R - 1, 2], add(neg(p), multiply(q, 2))),
        ([p, q], [k := rng.randrange(R), m := rng.randrange(R)], add(multiply(p, k), multiply(q, m))),
    ]
    words = np.stack([points_to_words(points, G1_GROUP) for points, _, _ in rows])
    got = download_points(linear_combinations(words, [s for _, s, _ in rows], G1_GROUP), G1_GROUP)
    assert [encode_g1(x) for x in got] == [encode_g1(e) for _, _, e in rows]
    t = multiply(G2, 11)
    g2 = download_points(linear_combinations(points_to_words([t, G2], G2_GROUP)[None], [[R - 2, 5]], G2_GROUP), G2_GROUP)
    assert encode_g2(g2[0]) == encode_g2(add(multiply(t, R - 2), multiply(G2, 5)))


@pytest.mark.parametrize("g2", [False, True])
def test_delta_chunks_are_the_multiples_2_to_the_32k_of_delta(emulated, g2):
    """assemble's fixed-base chunks against py_ecc's multiply, and the 32-bit chunks of r recombining to r."""
    from gpu.assemble import DELTA_CHUNK_BITS, DELTA_CHUNKS, _chunks, delta_chunks

    delta = multiply(G2 if g2 else G1, 987654321)
    expected = [multiply(delta, 1 << (DELTA_CHUNK_BITS * k)) for k in range(DELTA_CHUNKS)]
    got = delta_chunks(delta, g2)
    with pytest.raises(ValueError, match="read-only"):  # the cached words cannot be changed through a caller
        got[0, 0] = 0
    assert got.tolist() == points_to_words(expected, G2_GROUP if g2 else G1_GROUP).tolist()
    r = R - 12345
    assert sum(chunk << (DELTA_CHUNK_BITS * j) for j, chunk in enumerate(_chunks(r))) == r
    assert all(chunk < 1 << DELTA_CHUNK_BITS for chunk in _chunks(r))


@pytest.mark.parametrize("point", ["a", "b", "c"])
def test_a_proof_point_off_its_curve_is_a_kernel_error(emulated, point):
    """download_proofs refuses corrupt kernel output instead of handing over a point no verifier was meant to see:
    one word of y changed moves a proof point off its curve (x^3 + 4, or + 4(u + 1) in G2)."""
    import numpy as np

    from gpu.assemble import DeviceProofs, download_proofs
    from gpu.device import GpuKernelError

    words = {"a": points_to_words([G1, multiply(G1, 2)], G1_GROUP), "b": points_to_words([G2, multiply(G2, 3)], G2_GROUP),
             "c": points_to_words([multiply(G1, 5), G1], G1_GROUP)}
    assert len(download_proofs(DeviceProofs(**words))) == 2
    corrupt = dict(words, **{point: np.array(words[point])})
    corrupt[point][1, -1] ^= 1  # (the top limb of y's last coefficient)
    with pytest.raises(GpuKernelError, match=f"proof {point.upper()} of circuit 1 is not on the curve"):
        download_proofs(DeviceProofs(**corrupt))


@pytest.mark.gpu
def test_device_assembly_equals_the_reference_on_the_gpu():
    for name in ("porep-log06", "multi-circuit-log07", "edge-scalars"):
        _check_vector_proofs(name)
