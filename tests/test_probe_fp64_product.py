"""bench/probes/fp64_field.cuh on the CPU: its Montgomery product on FP64 limbs against Python's integers.

The probe times this product against field.cuh's; the time means something only if the product is right. Built for
the host (-DPROBE_HOST, g++, where __builtin_fma is IEEE's fused multiply-add as the device's fma.rn.f64 is), its
product is compared with a b / R mod m on random values and on the values that stress its columns (limbs at their
maximum, the modulus less one, Fq's lazy inputs up to 2m - 1), its chains with the driver's expectation, and its
constants are recomputed from the moduli.
"""
from __future__ import annotations

import ctypes
import random

import numpy as np
import pytest

from conftest import assert_usage_errors, bench_module, probe_host_library, run_bench_script
from gpu.limbs import FQ, FR

probe = bench_module("probe_fp64_product")
FIELD_INDEX = {"Fr": 0, "Fq": 1}  # fp64_product.cu's host entries: field 0 Fr, 1 Fq
U64_POINTER = ctypes.POINTER(ctypes.c_uint64)


@pytest.fixture(scope="module")
def fp64_library(tmp_path_factory):
    return probe_host_library(tmp_path_factory, probe.PROBE_SOURCE)


def _pointer(array: np.ndarray):
    return array.ctypes.data_as(U64_POINTER)


def _stress_values(field, top: int) -> list[int]:
    """Values below ``top`` whose limbs sit at the edges: 0, 1, top - 1, m - 1, every limb at its maximum (as far as
    below top), single limbs at their maximum, powers of two at the limb borders."""
    limbs, bits = probe.FP64_LIMBS[field.name]
    limb_max = (1 << bits) - 1
    values = {0, 1, 2, top - 1, field.modulus - 1, ((1 << (bits * limbs)) - 1) % top}
    for k in range(limbs):
        values.add((limb_max << (bits * k)) % top)
        values.add((1 << (bits * k)) % top)
        values.add(((1 << (bits * (k + 1))) - 1) % top)
    return sorted(values)


@pytest.mark.parametrize("field", [FR, FQ], ids=["fr", "fq"])
def test_product_is_a_b_over_r_mod_m(fp64_library, field):
    """Fr's product is fully reduced; Fq's may stay below 2m (lazy), so its inputs go up to 2m - 1 too."""
    m, radix = field.modulus, probe.fp64_radix(field)
    lazy = field is FQ
    top = 2 * m if lazy else m
    rng = random.Random(7)
    edges = _stress_values(field, top)
    pairs = [(a, b) for a in edges for b in edges] + [(rng.randrange(top), rng.randrange(top)) for _ in range(3000)]
    a = probe.fp64_limbs([p[0] for p in pairs], field)
    b = probe.fp64_limbs([p[1] for p in pairs], field)
    out = np.zeros_like(a)
    fp64_library.probe_host_mul(FIELD_INDEX[field.name], _pointer(a), _pointer(b), _pointer(out), len(pairs))
    radix_inverse = pow(radix, -1, m)
    got = probe.fp64_ints(out, field)
    wrong = [(x, y) for (x, y), z in zip(pairs, got) if z != x * y * radix_inverse % m]
    assert not wrong, f"{len(wrong)} of {len(pairs)} products wrong, the first {wrong[0]}"
    assert (out < (1 << probe.FP64_LIMBS[field.name][1])).all(), "every output limb below 2^w"


@pytest.mark.parametrize("field", [FR, FQ], ids=["fr", "fq"])
def test_chain_gives_the_drivers_expectation(fp64_library, field):
    """The kernels' chain body on the host: x R -> x^(2 chain + 1) R, which the driver checks on the device."""
    m, radix = field.modulus, probe.fp64_radix(field)
    rng = random.Random(11)
    values = [1, m - 1] + [rng.randrange(1, m) for _ in range(40)]
    chain = 9
    x = probe.fp64_limbs([v * radix % m for v in values], field)
    fp64_library.probe_host_chain(FIELD_INDEX[field.name], _pointer(x), len(values), chain)
    assert probe.fp64_ints(x, field) == [probe.chain_power(v, chain, field) * radix % m for v in values]


@pytest.mark.parametrize("field", [FR, FQ], ids=["fr", "fq"])
def test_constants_follow_from_the_modulus(fp64_library, field):
    """fp64_field.cuh's limbs of m and M_INV = -m^-1 mod 2^w; m below the radix; lazy products only where 4m < R (Fq,
    not Fr); Fq's radix is field.cuh's (2^384), so that an fq_t's words become these limbs by moving bits."""
    m = field.modulus
    limbs, bits = probe.FP64_LIMBS[field.name]
    modulus_limbs = np.zeros(limbs, dtype=np.uint64)
    m_inv, count, limb_bits, lazy = ctypes.c_uint64(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    fp64_library.probe_host_params(FIELD_INDEX[field.name], _pointer(modulus_limbs), ctypes.byref(m_inv),
                                   ctypes.byref(count), ctypes.byref(limb_bits), ctypes.byref(lazy))
    assert (count.value, limb_bits.value) == (limbs, bits) and m < probe.fp64_radix(field)
    assert probe.fp64_ints(modulus_limbs[None, :], field) == [m]
    assert m_inv.value == -pow(m, -1, 1 << bits) % (1 << bits)
    assert bool(lazy.value) == (4 * m < probe.fp64_radix(field))
    if field is FQ:
        assert probe.fp64_radix(field) == FQ.montgomery_radix


@pytest.mark.parametrize("field", [FR, FQ], ids=["fr", "fq"])
def test_limb_conversion_round_trips(field):
    limbs, bits = probe.FP64_LIMBS[field.name]
    values = [0, 1, (1 << bits) - 1, 1 << bits, field.modulus - 1, probe.fp64_radix(field) - 1]
    words = probe.fp64_limbs(values, field)
    assert words.shape == (len(values), limbs) and (words < (1 << bits)).all()
    assert probe.fp64_ints(words, field) == values


def test_the_probe_refuses_bad_arguments_before_looking_for_a_gpu():
    assert_usage_errors("probe_fp64_product.py", [
        (["--log2-elements", "30"], "is not in 10 .. 26"),
        (["--chain", "0"], "--chain must be"),
    ])


@pytest.mark.gpu
def test_the_probe_runs_and_checks_on_the_device(tmp_path):
    done = run_bench_script("probe_fp64_product.py", "--log2-elements", "12", "--chain", "8", "--distinct", "64",
                            "--repeats", "1", "--json", str(tmp_path / "p.json"))
    assert done.returncode == 0, done.stderr
    assert "| Fq | fp64 |" in done.stdout and (tmp_path / "p.json").exists()
