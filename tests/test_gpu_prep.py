"""gpu/prep.py's vectorised split equals reference/prep.py's, element for element (numpy path, no GPU needed;
the same code runs on CuPy arrays on the device)."""
import json
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpu.limbs import ints_to_limbs
from gpu.prep import prep as gpu_prep
from gpu.prep import to_reference
from reference.field import R
from reference.prep import prep as reference_prep
from reference.r1cs import Density
from vectors.bundled import DATA_DIR

SEED = 20261204


def _z_limbs(zs):
    return np.stack([ints_to_limbs(z) for z in zs])


def _density_bits(bitmap: dict) -> tuple[bool, ...]:
    value = int.from_bytes(bytes.fromhex(bitmap["hex"]), "little")
    return tuple(bool(value >> i & 1) for i in range(bitmap["bits"]))


def _witnesses(doc):
    return [[1, *(int(x, 16) for x in c["public_inputs"]), *(int(x, 16) for x in c["aux_assignment"])] for c in doc["circuits"]]


@pytest.mark.parametrize("name", ["multi-circuit-log07", "porep-log09", "random-log06"])
def test_matches_reference_on_bundled_witnesses(name):
    doc = json.loads((DATA_DIR / f"{name}.json").read_text())
    density = Density(**{key: _density_bits(doc["density"][key]) for key in ("a_aux", "b_input", "b_aux")})
    zs = _witnesses(doc)
    n_in, n_aux = doc["r1cs"]["num_inputs"], doc["r1cs"]["num_aux"]
    assert to_reference(gpu_prep(_z_limbs(zs), n_in, n_aux, density)) == reference_prep(zs, n_in, n_aux, density)


scalar = st.sampled_from([0, 1, 2, R - 1, 1 << 64, 1 << 254])


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=3).flatmap(
        lambda circuits: st.tuples(
            st.integers(min_value=1, max_value=3),
            st.integers(min_value=0, max_value=140).flatmap(
                lambda aux: st.lists(st.lists(scalar, min_size=aux, max_size=aux), min_size=circuits, max_size=circuits)
            ),
            st.randoms(use_true_random=False),
        )
    )
)
def test_matches_reference_on_random_splits(case):
    num_inputs, aux_rows, rng = case
    num_aux = len(aux_rows[0])
    density = Density(
        a_aux=tuple(rng.random() < 0.9 for _ in range(num_aux)),
        b_input=tuple([True] + [rng.random() < 0.5 for _ in range(num_inputs - 1)]),
        b_aux=tuple(rng.random() < 0.3 for _ in range(num_aux)),
    )
    zs = [[1, *[rng.randrange(R) for _ in range(num_inputs - 1)], *aux] for aux in aux_rows]
    assert to_reference(gpu_prep(_z_limbs(zs), num_inputs, num_aux, density)) == reference_prep(zs, num_inputs, num_aux, density)


@pytest.mark.gpu
def test_device_prep_equals_the_numpy_path_with_its_fused_classes():
    """On the device the value classes are one fused kernel (gpu.device.fused); the same function runs on numpy in
    the tests above. A witness of 0/1 values with every class of large value (a high limb set, low limb 2, r - 1),
    three circuits, every query split: the device's splits equal the numpy path's."""
    import cupy

    rng = random.Random(SEED)
    num_inputs, num_aux = 5, 4000
    values = [0, 1, 2, R - 1, 1 << 64, 1 << 254, (1 << 32) + 1]
    zs = [[1, *[rng.randrange(R) for _ in range(num_inputs - 1)],
           *[rng.choice(values) if rng.random() < 0.01 else rng.randrange(2) for _ in range(num_aux)]] for _ in range(3)]
    density = Density(a_aux=tuple(rng.random() < 0.997 for _ in range(num_aux)),
                      b_input=tuple([True] + [False] * (num_inputs - 1)),
                      b_aux=tuple(rng.random() < 0.25 for _ in range(num_aux)))
    host = _z_limbs(zs)
    on_host = to_reference(gpu_prep(host, num_inputs, num_aux, density))
    assert to_reference(gpu_prep(cupy.asarray(host), num_inputs, num_aux, density)) == on_host
    assert on_host == reference_prep(zs, num_inputs, num_aux, density)
