"""bench/probe_circuit_patterns.py on the CPU: one pass over the bases' circuit patterns, against py_ecc.

The probe times gpu/msm.py's one-window pass over patterns p_i = sum_k b_ki 2^k against BatchAdder; the time means
something only if that pass sums sum_k 2^k S_k, S_k circuit k's batch_add sum. Under the kernels' host build
(tests/native/ec_host.py) the same drivers run here, on bases with known discrete logs: the pattern pass and the
probe's own check (BatchAdder's sums, combined) against sums py_ecc makes from the bits.
"""
from __future__ import annotations


import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1, curve_order, eq, multiply

from conftest import assert_usage_errors, bench_module
from gpu.points import G1_GROUP, backend, download_points

probe = bench_module("probe_circuit_patterns")


@pytest.fixture
def emulated(kernel_emulation):
    with kernel_emulation("msm.cu", "batch_add.cu"):
        yield


def test_bitmaps_and_patterns_are_laid_out_as_prep_lays_out_its_bits():
    """Bit i of row k is bit i mod 32 of word i div 32; base i's pattern has bit k set exactly when row k selects it."""
    bitmaps = probe.random_bitmaps(3, 70, 0.5, seed=4)
    assert bitmaps.shape == (3, 3) and bitmaps.dtype == np.uint32
    bits = [[(int(bitmaps[k, i // 32]) >> (i % 32)) & 1 for i in range(96)] for k in range(3)]
    assert not any(bits[k][i] for k in range(3) for i in range(70, 96))  # nothing past n
    assert 60 < sum(map(sum, bits)) < 150  # about half of 210
    patterns = probe.pattern_scalars(bitmaps, 70)
    assert patterns.shape == (70, 8) and not patterns[:, 1:].any()
    assert [int(p) for p in patterns[:, 0]] == [sum(bits[k][i] << k for k in range(3)) for i in range(70)]


@pytest.mark.parametrize("circuits, density", [(3, 0.5), (4, 0.125)])
def test_the_pattern_pass_sums_every_circuits_selection_weighted_by_its_bit(emulated, circuits, density):
    """40 bases (3 - 5 i) G: the pattern pass gives (sum_k 2^k sum_{i selected by k} (3 - 5 i)) G, and the probe's check
    (BatchAdder's S_k, combined) agrees."""
    count = 40
    bases = probe.progression_bases(count, G1, G1_GROUP)
    bitmaps = probe.random_bitmaps(circuits, count, density, seed=circuits)
    selected = [[i for i in range(count) if (int(bitmaps[k, i // 32]) >> (i % 32)) & 1] for k in range(circuits)]
    logs = sum((1 << k) * (3 - 5 * i) for k in range(circuits) for i in selected[k]) % curve_order
    scalars = backend().xp.asarray(probe.pattern_scalars(bitmaps, count))
    [patterned] = download_points(probe.pattern_pass(bases, scalars, circuits), G1_GROUP)
    assert eq(patterned, multiply(G1, logs))
    assert probe.check(bases, bitmaps, circuits)


def test_the_probe_refuses_bad_arguments_before_looking_for_a_gpu():
    assert_usage_errors("probe_circuit_patterns.py", [
        (["--circuits", "17"], "--circuits must lie in 1..16"),
        (["--densities", "0.7"], "every --densities value must lie in (0, 0.5]"),
        (["--log2-points", "30"], "need 12 <= --log2-points <= 28"),
    ])
