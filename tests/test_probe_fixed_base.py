"""bench/probe_fixed_base.py on the CPU: its folded pass (every window's digits in one set of buckets) against py_ecc.

The probe times gpu/msm.py's pass over a fixed-base table as one window; what it times is worth something only if
that pass sums the right points. Under the kernels' host build (tests/native/ec_host.py) the same drivers run here:
the folded sum over a small table of bases with known discrete logs is compared with py_ecc's scalar multiple of the
generator, and with the probe's own check (msm_batch over the same table and digits).
"""
from __future__ import annotations


import pytest
from py_ecc.optimized_bls12_381 import G1, curve_order, eq, multiply

from conftest import assert_usage_errors, bench_module
from gpu.points import G1_GROUP, backend, download_points

probe = bench_module("probe_fixed_base")


@pytest.fixture
def emulated(kernel_emulation):
    with kernel_emulation("msm.cu"):
        yield


@pytest.mark.parametrize("window_bits, copies, expected_sets", [(3, None, 1), (5, None, 1), (5, 13, 4), (8, 1, 32)])
def test_the_folded_pass_sums_every_windows_digits_in_its_sets_buckets(emulated, window_bits, copies, expected_sets):
    """7 bases (3 - 5 i) G in a table of G copies (the whole table: W = 86 windows at c = 3, 52 at c = 5; or 13 of
    the 52, 4 sets; or 1 of the 32 at c = 8, the regular MSM's layout), random scalars below 2^min(S c - 1, 254):
    the folded pass's sum is (sum_k s_k (3 - 5 (k mod 7))) G, and the probe's check agrees."""
    count = 7
    bases = probe.progression_bases(count, G1, G1_GROUP)
    g, sets = probe.table_shape(window_bits, copies)
    assert sets == expected_sets and g == (copies or probe.num_windows(window_bits))
    table = probe.tiled_table(bases, g)
    bits = probe.scalar_bits(window_bits, sets)
    assert bits == min(sets * window_bits - 1, 254)
    scalars = probe.random_scalars_below(count * g, bits, seed=window_bits)
    values = [sum(int(limb) << (32 * j) for j, limb in enumerate(row)) for row in backend().xp.asnumpy(scalars)]
    assert max(values) < 1 << bits < curve_order and len(table) == count * g
    logs = sum(v * (probe.START - probe.STEP * (k % count)) for k, v in enumerate(values)) % curve_order
    [folded] = download_points(probe.folded_msm(table, scalars, window_bits, sets, G1_GROUP), G1_GROUP)
    assert eq(folded, multiply(G1, logs))
    assert probe.check(bases, window_bits, copies, G1_GROUP, seed=1)


def test_the_probe_refuses_bad_arguments_before_looking_for_a_gpu():
    assert_usage_errors("probe_fixed_base.py", [
        (["--bits", "40"], "every --bits value must lie in 2..26"),
        (["--log2-points", "30"], "need 12 <= --log2-points <= 28"),
        (["--copies", "0"], "--copies must be at least 1"),
    ])
