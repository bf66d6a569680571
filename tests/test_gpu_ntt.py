"""GPU NTTs, ntt_h and evaluate against independent computations.

Expected values come from: the O(n^2) DFT definition in Python ints (small n); reference/domain.py,
reference/ntt_h.py and reference/evaluate.py (n up to 2^14); Horner's rule in Python ints at
sampled points (n up to 2^20); and, up to 2^27, inputs with few non-zero coefficients, whose
transforms and quotient h are known in closed form:

* NTT of v = sum_k v_k e_(i_k):   X_j = sum_k v_k omega^(i_k j)   (checked at sampled j in Python,
  and in full against sums of geometric sequences made by the separate fr_powers kernel);
* for sparse a(X), b(X) and c = a b on H, c(X) = a(X) b(X) mod (X^n - 1) and
  h(X) = sum over term pairs with e + f >= n of alpha beta X^(e + f - n)  (the whole vector is checked).

The snarkjs convention (omega = 5^((r-1)/n), coset = odd powers of omega_2n, ntt_h leaves n coset
values, evaluate sets c = a*b) is checked against reference/domain.py and reference/ntt_h.py with
SNARKJS: on the CPU through the host emulation of ntt.cu, on the GPU for log n 1..12.

GPU tests carry @pytest.mark.gpu; sizes above 2^14 also carry @pytest.mark.slow.
"""
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from reference.domain import BELLMAN, SNARKJS, EvaluationDomain
from reference.errors import InvalidInputError, SizeMismatchError
from reference.field import R
from vectors.bundled import SNARKJS_INTEROP
from conftest import queue_busy_work, readable

ROOT = Path(__file__).resolve().parent.parent
EMULATOR_SOURCE = ROOT / "tests" / "native" / "ntt_emulate.cpp"
SEED = 20261202
PASS_ARGUMENTS = 19
"""ntt.cu ntt_pass's parameters; ntt_pass_fused has three more (out_factor, out_minus, factor_shared)."""
TWIDDLE_MODE_ARGUMENT = 10
"""Position of tw_mode among a pass's launch arguments (gpu/ntt.py _launch_passes)."""
SMALL_LOG_NS = range(1, 15)
NAIVE_MAX_LOG_N = 7
LARGE_LOG_NS = [15, 17, 20, 22, 24, 26, 27]
SPARSE_TERMS = 4
TOP_LIMB_MASK = 0x3FFFFFFF
"""Masking limb 7 to 30 bits keeps a random element below 2^254 < r."""
HALF_LIMB_BITS = 16
SAMPLED_OUTPUTS = 24
BELLMAN_ROOT_GENERATOR = 7
SNARKJS_ROOT_GENERATOR = 5
"""ffjavascript's Fr.w: omega_n = 5^((r-1)/n) (reference/domain.py SNARKJS)."""
SNARKJS_LOG_NS = range(1, 13)
EMULATED_NTT_H_MAX_LOG_N = 10


def omega(log_n: int, root_generator: int = BELLMAN_ROOT_GENERATOR) -> int:
    return pow(root_generator, (R - 1) >> log_n, R)


def naive_dft(values: list[int], root: int) -> list[int]:
    """sum_i v_i root^(ij) for every j, straight from the definition."""
    n = len(values)
    return [sum(v * pow(root, i * j, R) for i, v in enumerate(values)) % R for j in range(n)]


def horner(coeffs: list[int], x: int) -> int:
    acc = 0
    for c in reversed(coeffs):
        acc = (acc * x + c) % R
    return acc


def random_ints(count: int, rng: random.Random) -> list[int]:
    return [rng.randrange(R) for _ in range(count)]


def random_device_fr(shape: tuple, seed: int):
    """Random Montgomery-form Fr elements (each < 2^254 < r), generated on the device."""
    import cupy

    rs = cupy.random.RandomState(seed)
    high = rs.randint(0, 1 << HALF_LIMB_BITS, size=shape + (8,), dtype=cupy.uint32)
    low = rs.randint(0, 1 << HALF_LIMB_BITS, size=shape + (8,), dtype=cupy.uint32)
    x = (high << HALF_LIMB_BITS) | low
    del high, low
    x[..., 7] &= TOP_LIMB_MASK
    return x


def sparse_device_vector(n: int, terms: dict):
    """Device (n, 8) Montgomery array with value terms[i] at index i and zeros elsewhere."""
    import cupy

    from gpu.field import to_device

    x = cupy.zeros((n, 8), dtype=np.uint32)
    if terms:
        index = cupy.asarray(list(terms.keys()), dtype=cupy.int64)
        x[index] = to_device(list(terms.values()))
    return x


def sparse_terms(n: int, count: int, rng: random.Random) -> dict:
    positions = {0, n - 1} | {rng.randrange(n) for _ in range(count)}
    return {i: rng.randrange(1, R) for i in sorted(positions)}


# ---------------------------------------------------------------- CPU: the algebra ntt_h fuses


def _bellman_ntt_h_by_seven_transforms(a, b, c, domain):
    """reference/ntt_h.py's seven transforms, without its check of h_(n-1): every one of the n coefficients."""
    a_c, b_c, c_c = (domain.coset_ntt(domain.intt(x)) for x in (a, b, c))
    z_inv = pow(domain.z_at(domain.g), -1, R)
    return domain.coset_intt([(x * y - z) * z_inv % R for x, y, z in zip(a_c, b_c, c_c)])


def test_snarkjs_scales_put_values_on_the_odd_powers_of_omega_2n():
    """ntt_h_scales(SNARKJS)'s first factor g^i / n, g = omega_2n = 5^((r-1)/2n): NTT_n(INTT_n(x)_i g^i)_j = x(g omega_n^j),
    checked at each j by Horner on the coefficients of the naive inverse DFT with omega_n = 5^((r-1)/n)."""
    from gpu.ntt_h import ntt_h_scales

    rng = random.Random(SEED + 1)
    for log_n in (1, 2, 4, 6):
        n = 1 << log_n
        w_n, w_2n = omega(log_n, SNARKJS_ROOT_GENERATOR), omega(log_n + 1, SNARKJS_ROOT_GENERATOR)
        to_coset = ntt_h_scales(log_n, SNARKJS).to_coset
        values = random_ints(n, rng)
        n_times_intt = naive_dft(values, pow(w_n, -1, R))
        scaled = [x * to_coset.constant * pow(to_coset.base, i, R) % R for i, x in enumerate(n_times_intt)]
        coefficients = [x * pow(n, -1, R) % R for x in n_times_intt]
        assert naive_dft(scaled, w_n) == [horner(coefficients, pow(w_2n, 2 * j + 1, R)) for j in range(n)]


def test_pass_plan_covers_every_size():
    from gpu.ntt import MAX_LOG_N, MAX_LOG_RADIX, plan_passes

    for log_n in range(1, MAX_LOG_N + 1):
        radices = plan_passes(log_n)
        assert sum(radices) == log_n
        assert max(radices) <= MAX_LOG_RADIX and min(radices) >= 1
        assert len(radices) == -(-log_n // MAX_LOG_RADIX)
        assert max(radices) - min(radices) <= 1


def test_only_passes_after_the_first_multiply_by_twiddles():
    """Pass 0's exponents are all 0, so it reads no table, even when it is also the last pass (a transform of at most
    2^MAX_LOG_RADIX elements): a one-pass transform given the last pass's tables would multiply by its placeholders."""
    from gpu.ntt import TWIDDLE_HALF, TWIDDLE_HI, TWIDDLE_HI_LO, TWIDDLE_NONE, pass_twiddle_modes

    for last_mode in (TWIDDLE_HI_LO, TWIDDLE_HALF):
        assert pass_twiddle_modes(1, last_mode) == [TWIDDLE_NONE]
        assert pass_twiddle_modes(2, last_mode) == [TWIDDLE_NONE, last_mode]
        assert pass_twiddle_modes(3, last_mode) == [TWIDDLE_NONE, TWIDDLE_HI, last_mode]


# ---------------------------------------------------------------- CPU: the kernels in host emulation

EMULATOR_CONFIGS = {
    # name: (MAX_LOG_RADIX, BLOCK_LOG_ELEMENTS, largest log n tested, extra options): the GPU's
    # sizes; a tiny radix that reaches 3 and 4 passes (and blocks of several DFTs in every pass, and register
    # groups of 1, 2 and 3 stages) at small n; and the GPU's sizes with field.cuh's carry-chain (PTX) arithmetic
    # emulated
    "gpu-sizes": (10, 10, 12, ["-O1"]),
    "tiny-radix": (3, 4, 10, ["-O1"]),
    "emulated-ptx": (10, 10, 9, ["-O0", "-DFIELD_EMULATE_PTX"]),
    # the GPU's sizes with two DIF stages a register group instead of three (ntt.cu NTT_REGISTER_STAGES)
    "two-stage-groups": (10, 10, 11, ["-O1", "-DNTT_REGISTER_STAGES=2"]),
}


@pytest.fixture(scope="module", params=sorted(EMULATOR_CONFIGS))
def emulator(request, tmp_path_factory):
    """(config name, binary) of tests/native/ntt_emulate.cpp built with g++; skips (reason printed) without g++."""
    if not shutil.which("g++"):
        pytest.skip("g++ is not installed: cannot build the host emulation of ntt.cu")
    max_log_radix, block_log, _, options = EMULATOR_CONFIGS[request.param]
    binary = tmp_path_factory.mktemp("ntt_emulate") / request.param
    cmd = ["g++", "-std=c++17", "-x", "c++", *options, f"-DNTT_MAX_LOG_RADIX={max_log_radix}",
           f"-DNTT_BLOCK_LOG_ELEMENTS={block_log}", f"-I{ROOT / 'gpu' / 'kernels'}", str(EMULATOR_SOURCE),
           "-o", str(binary)]  # fmt: skip
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, f"{' '.join(cmd)} failed:\n{build.stderr}"
    return request.param, binary


def emulate(binary, log_n, values, max_log_radix, *, inverse=False, in_scale=(0, 0, 0), out_scale=(0, 0, 0),
            root_generator=BELLMAN_ROOT_GENERATOR, half_table=False, out_factor=None, out_minus=None,
            out_factor_table=None):
    """Run ntt_pass in host emulation over len(values) / n vectors; scales are (mode, constant, base); the last pass's
    twiddles from the half table if ``half_table`` (gpu/ntt.py), else hi * lo; each pass's mode from gpu/ntt.py's
    pass_twiddle_modes, the function _launch_passes runs; its outputs times ``out_factor``, less ``out_minus`` (lists
    as long as values, out_factor also n long: one for every vector; None: not applied). ``out_factor_table``:
    (constant, base), the factor one table c base^i shared by the batch, made by the emulated fr_scale_table (gpu/ntt.py
    scale_table)."""
    from gpu.ntt import TWIDDLE_HALF, TWIDDLE_HALF_INVERSE, TWIDDLE_HI_LO, pass_twiddle_modes

    forward_root = root_n = omega(log_n, root_generator)
    root_max = omega(max_log_radix, root_generator)
    if inverse:
        root_n, root_max = pow(root_n, -1, R), pow(root_max, -1, R)
    last_mode = (TWIDDLE_HALF_INVERSE if inverse else TWIDDLE_HALF) if half_table else TWIDDLE_HI_LO
    modes = pass_twiddle_modes(-(-log_n // max_log_radix), last_mode)  # the passes of the build's radix (plan_passes)
    lines = [f"{log_n} {len(values) >> log_n}", f"{root_n:x} {root_max:x}", f"{forward_root:x} {len(modes)}",
             " ".join(map(str, modes))]
    lines += [f"{mode} {c:x} {base:x}" for mode, c, base in (in_scale, out_scale)]
    factor_none, factor_per_vector, factor_shared, factor_scale_table = range(4)  # ntt_emulate.cpp's factor kinds
    if out_factor_table is not None:
        lines += [f"{factor_scale_table} {int(out_minus is not None)}", "{:x} {:x}".format(*out_factor_table)]
    else:
        kind = (factor_none if out_factor is None else factor_per_vector if len(out_factor) == len(values)
                else factor_shared)
        lines += [f"{kind} {int(out_minus is not None)}"]
    lines += [f"{v:x}" for v in [*values, *(out_factor or ()), *(out_minus or ())]]
    result = subprocess.run([str(binary)], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return [int(x, 16) for x in result.stdout.split()]


@pytest.mark.parametrize("half_table", [False, True], ids=["hi-lo-twiddles", "half-table"])
def test_emulated_kernels_match_reference_domain(emulator, half_table):
    """The unchanged ntt.cu kernels, run on the CPU, against reference/domain.py for every log n up to the config's
    limit, the last pass's twiddles either way (gpu/ntt.py)."""
    config, binary = emulator
    max_log_radix, _, largest, _ = EMULATOR_CONFIGS[config]
    rng = random.Random(SEED + max_log_radix)
    for log_n in range(1, largest + 1):
        n = 1 << log_n
        domain = EvaluationDomain(log_n)
        vectors = [random_ints(n, rng) for _ in range(2)]
        values = vectors[0] + vectors[1]
        run = lambda **kw: emulate(binary, log_n, values, max_log_radix, half_table=half_table, **kw)  # noqa: E731
        both = lambda f: f(vectors[0]) + f(vectors[1])  # noqa: E731
        assert run() == both(domain.ntt), log_n
        assert run(inverse=True, out_scale=(1, domain.n_inv, 1)) == both(domain.intt), log_n
        assert run(in_scale=(2, 1, domain.g)) == both(domain.coset_ntt), log_n
        assert run(inverse=True, out_scale=(2, domain.n_inv, domain.g_inv)) == both(domain.coset_intt), log_n


def emulated_dft(binary, max_log_radix):
    """The transform of conftest.py's stand-ins (StandInTransforms' ``dft``) computed by the ntt.cu kernels in host
    emulation: one emulate call a transform, the batch's vectors at once."""
    def flat(vectors):
        return [v for vector in vectors for v in readable(vector)]

    def scale(s):
        return (0, 0, 0) if s is None else (s.mode, s.constant, s.base)

    def dft(x, inverse, root_generator, in_scale, out_scale, out_factor, out_minus, half_table):
        batch, n, _ = x.shape
        factor = None if out_factor is None else flat(out_factor[None] if out_factor.ndim == 2 else out_factor)
        y = emulate(binary, n.bit_length() - 1, flat(x), max_log_radix, inverse=inverse, in_scale=scale(in_scale),
                    out_scale=scale(out_scale), root_generator=root_generator, half_table=bool(half_table),
                    out_factor=factor, out_minus=None if out_minus is None else flat(out_minus))
        return np.array(y, dtype=object).reshape(batch, n, 1)

    return dft


@pytest.mark.parametrize("convention, coset_tables", [(BELLMAN, 0), (BELLMAN, 1), (BELLMAN, 2), (SNARKJS, 0), (SNARKJS, 1)],
                         ids=["bellman-coset-factor-products", "bellman-one-coset-table", "bellman-two-coset-tables",
                              "snarkjs-coset-factor-products", "snarkjs-coset-table"])
def test_ntt_h_on_the_emulated_kernels_matches_reference(emulator, route, convention, coset_tables):
    """gpu/ntt_h.py's ntt_h itself, its inputs consumed as the prover hands them over, its transforms run by the ntt.cu
    kernels in host emulation with the build's number of passes (conftest.py's route fixture): its
    products and subtractions fused into the last passes, its coset factors from tables or from two small tables'
    products; against reference/ntt_h.py (rows that hold) and, bellman, all n coefficients of the reference's seven
    transforms (rows that do not: h_(n-1) != 0, which the prover refuses)."""
    from reference.evaluate import Evaluations
    from reference.ntt_h import ntt_h as reference_ntt_h

    config, binary = emulator
    max_log_radix, _, largest, _ = EMULATOR_CONFIGS[config]
    rng = random.Random(SEED + 400 + max_log_radix + coset_tables)
    dft = emulated_dft(binary, max_log_radix)
    for log_n in range(1, min(largest, EMULATED_NTT_H_MAX_LOG_N) + 1):
        n = 1 << log_n
        domain = EvaluationDomain(log_n, convention)
        a, b, junk = (random_ints(n, rng) for _ in range(3))
        c = [x * y % R for x, y in zip(a, b)]

        def h_of(c_rows, unsatisfied=False):
            arrays = [np.array([[[v] for v in x]], dtype=object) for x in (a, b, c_rows)]
            h = route(*arrays, log_n, convention, -(-log_n // max_log_radix), dft=dft, unsatisfied=unsatisfied,
                      consume=True, half_table=True, coset_tables=coset_tables)[0]
            return list(h[0, :, 0])

        assert h_of(c) == list(reference_ntt_h(Evaluations(tuple(a), tuple(b), tuple(c)), domain)), log_n
        if convention is BELLMAN:
            unsatisfied = h_of(junk, unsatisfied=True)
            assert unsatisfied == _bellman_ntt_h_by_seven_transforms(a, b, junk, domain) and unsatisfied[n - 1] != 0, log_n


def test_emulated_last_pass_multiplies_and_subtracts_vectors(emulator):
    """ntt.cu's out_factor and out_minus (the last pass: y_j f_j - m_j, after its scale), per vector of a batch of
    two, against reference/domain.py's transforms and Python's products, for every log n (one pass, two, three)."""
    config, binary = emulator
    max_log_radix, _, largest, _ = EMULATOR_CONFIGS[config]
    rng = random.Random(SEED + 500 + max_log_radix)
    for log_n in range(1, largest + 1):
        n = 1 << log_n
        domain = EvaluationDomain(log_n)
        x, f, m = ([*random_ints(n, rng), *random_ints(n, rng)] for _ in range(3))
        expected = [*domain.coset_intt(x[:n]), *domain.coset_intt(x[n:])]
        got = emulate(binary, log_n, x, max_log_radix, inverse=True, out_scale=(2, domain.n_inv, domain.g_inv),
                      out_factor=f, out_minus=m)
        assert got == [(y * fy - my) % R for y, fy, my in zip(expected, f, m)], log_n
        forward = [*domain.ntt(x[:n]), *domain.ntt(x[n:])]
        assert emulate(binary, log_n, x, max_log_radix, out_factor=f) == [y * fy % R for y, fy in zip(forward, f)], log_n
        shared = f[:n]  # one factor vector for both vectors of the batch
        assert emulate(binary, log_n, x, max_log_radix, out_factor=shared) == [
            y * fy % R for y, fy in zip(forward, shared + shared)], log_n
        table = [domain.n_inv * pow(domain.g, i, R) % R for i in range(n)]  # fr_scale_table's, emulated
        assert emulate(binary, log_n, x, max_log_radix, out_factor_table=(domain.n_inv, domain.g)) == [
            y * t % R for y, t in zip(forward, table + table)], log_n


# ---------------------------------------------------------------- GPU: small sizes, exact


@pytest.mark.gpu
@pytest.mark.parametrize("log_n", range(1, NAIVE_MAX_LOG_N + 1))
def test_transforms_match_naive_dft(log_n):
    from gpu import ntt
    from gpu.field import to_device, to_ints

    n = 1 << log_n
    rng = random.Random(SEED + log_n)
    batch = [random_ints(n, rng) for _ in range(3)]
    x = to_device([v for vec in batch for v in vec]).reshape(3, n, 8)
    w, g = omega(log_n), 7
    n_inv, w_inv, g_inv = pow(n, -1, R), pow(w, -1, R), pow(g, -1, R)
    expected = {
        "forward": [naive_dft(v, w) for v in batch],
        "inverse": [[y * n_inv % R for y in naive_dft(v, w_inv)] for v in batch],
        "coset_forward": [naive_dft([y * pow(g, i, R) % R for i, y in enumerate(v)], w) for v in batch],
        "coset_inverse": [
            [y * n_inv * pow(g_inv, i, R) % R for i, y in enumerate(naive_dft(v, w_inv))] for v in batch
        ],
    }
    before = x.copy()
    for name, want in expected.items():
        got = to_ints(getattr(ntt, name)(x))
        assert got == [y for vec in want for y in vec], name
    assert bool((x == before).all()), "the input must be left unchanged"


@pytest.mark.gpu
@pytest.mark.parametrize("log_n", SMALL_LOG_NS)
def test_transforms_match_reference_domain(log_n):
    from gpu import ntt
    from gpu.field import to_device, to_ints

    n = 1 << log_n
    domain = EvaluationDomain(log_n)
    rng = random.Random(SEED + 100 + log_n)
    batch = [random_ints(n, rng) for _ in range(2)]
    x = to_device([v for vec in batch for v in vec]).reshape(2, n, 8)
    for gpu_name, ref_name in (("forward", "ntt"), ("inverse", "intt"), ("coset_forward", "coset_ntt"),
                               ("coset_inverse", "coset_intt")):  # fmt: skip
        got = to_ints(getattr(ntt, gpu_name)(x))
        assert got == [y for vec in batch for y in getattr(domain, ref_name)(vec)], gpu_name


@pytest.fixture
def ntt_pass_launches(monkeypatch):
    """The argument tuples of the NTT passes gpu/device.launch runs while the test lasts, in launch order: each
    recorded, then launched as it was asked (a test reads a pass's kernel by its argument count, its twiddle mode and
    factor_shared by position)."""
    from gpu import device

    launches = []
    launch = device.launch

    def recording(kernel, grid, threads, args, what):
        if what.startswith("NTT pass"):
            launches.append(args)
        return launch(kernel, grid, threads, args, what)

    monkeypatch.setattr(device, "launch", recording)
    return launches


@pytest.mark.gpu
@pytest.mark.parametrize("log_n", [4, 11, 21])
def test_transform_in_pair_multiplies_and_subtracts_in_its_last_pass(log_n, ntt_pass_launches):
    """transform_in_pair's out_factor and out_minus (gpu/ntt_h.py's fused product and subtraction): y_j f_j - m_j per
    vector of a batch of two, after the coset inverse's scale, against reference/domain.py and Python's products (one
    pass, two, three), the last pass launched as ntt_pass_fused and a plain transform's as ntt_pass (by their
    argument counts); f and m left unchanged; either overlapping the pair's buffers refused before any launch."""
    from gpu import ntt
    from gpu.field import to_device, to_ints

    n = 1 << log_n
    domain = EvaluationDomain(log_n)
    rng = random.Random(SEED + 200 + log_n)
    x_ints, f_ints, m_ints = ([*random_ints(n, rng), *random_ints(n, rng)] for _ in range(3))
    x, f, m = (to_device(v).reshape(2, n, 8) for v in (x_ints, f_ints, m_ints))
    other = x.copy()
    scale = ntt.Scale(domain.n_inv, domain.g_inv)
    got = to_ints(ntt.transform_in_pair(x, other, inverse=True, out_scale=scale, half_table=False, out_factor=f,
                                        out_minus=m))
    expected = [*domain.coset_intt(x_ints[:n]), *domain.coset_intt(x_ints[n:])]
    assert got == [(y * fy - my) % R for y, fy, my in zip(expected, f_ints, m_ints)]
    assert len(ntt_pass_launches[-1]) == PASS_ARGUMENTS + 3, (
        "ntt_pass_fused: the plain arguments, out_factor, out_minus, factor_shared")
    assert to_ints(f) == f_ints and to_ints(m) == m_ints
    ntt.transform(x, inverse=True, out_scale=scale, half_table=False)
    assert len(ntt_pass_launches[-1]) == PASS_ARGUMENTS, (
        "a plain transform's last pass is ntt_pass, without the fused arguments")
    for name, clash in (("out_factor", dict(out_factor=f)), ("out_minus", dict(out_minus=other))):
        with pytest.raises(InvalidInputError, match=f"{name}: must not overlap x or other"):
            ntt.transform_in_pair(f, other, half_table=False, **clash)
    assert to_ints(f) == f_ints, "a refused call launches nothing"


@pytest.mark.gpu
@pytest.mark.parametrize("log_n", [11, 14, 21])
def test_last_pass_twiddles_either_way(log_n, ntt_pass_launches):
    """The last pass's twiddles from the half table and from hi * lo (gpu/ntt.py): each launched as asked (the last
    pass's twiddle mode, recorded at its launch), the same outputs to the bit, and reference/domain.py's up to 2^14
    (2^21: three passes, the half table read after a middle pass's hi-only twiddles)."""
    from gpu import ntt
    from gpu.field import to_ints

    n = 1 << log_n
    x = random_device_fr((2, n), SEED + 700 + log_n)
    domain = EvaluationDomain(log_n) if log_n <= 14 else None
    for inverse, reference_name in ((False, "ntt"), (True, "intt")):
        scale = ntt.Scale(pow(n, -1, R)) if inverse else None
        routes = {}
        for half_table, mode in ((False, ntt.TWIDDLE_HI_LO),
                                 (True, ntt.TWIDDLE_HALF_INVERSE if inverse else ntt.TWIDDLE_HALF)):  # fmt: skip
            routes[half_table] = ntt.transform(x, inverse=inverse, out_scale=scale, half_table=half_table)
            assert int(ntt_pass_launches[-1][TWIDDLE_MODE_ARGUMENT]) == mode, (inverse, half_table)
        assert bool((routes[True] == routes[False]).all()), inverse
        if domain:
            values = to_ints(x)
            expected = [y for k in range(2) for y in getattr(domain, reference_name)(values[k * n : (k + 1) * n])]
            assert to_ints(routes[True]) == expected, inverse


@pytest.mark.gpu
@pytest.mark.parametrize("log_n", [4, 11, 21])
def test_scale_table_and_a_shared_factor(log_n, ntt_pass_launches):
    """ntt.scale_table (fr_scale_table): c base^i for every i < n, against Python's pow (every entry up to 2^11,
    samples at 2^21); handed to transform as one out_factor for a batch of two, the last pass is ntt_pass_fused with
    factor_shared set, and the outputs equal the same transform with the scale made as lo * hi (SCALE_TABLE), to the
    bit, and reference/domain.py's coset inverse where n is small; the table is cached (one per scale, log n and root
    generator) until released."""
    from gpu import ntt
    from gpu.field import to_ints

    n = 1 << log_n
    scale = ntt.Scale(pow(n, -1, R), pow(ntt.COSET_GENERATOR, -1, R))
    ntt.release_large_tables()
    table = ntt.scale_table(log_n, scale)
    assert table.shape == (n, 8) and ntt.large_table_held(log_n, ntt.ROOT_GENERATOR, scale)
    assert ntt.scale_table(log_n, scale) is table, "cached"
    values = to_ints(table)
    picks = range(n) if log_n <= 11 else [0, 1, 2, n // 2 - 1, n // 2, n - 2, n - 1,
                                          *random.Random(SEED).sample(range(n), 64)]
    assert all(values[i] == scale.constant * pow(scale.base, i, R) % R for i in picks)

    x = random_device_fr((2, n), SEED + 900 + log_n)
    ntt_pass_launches.clear()
    by_table = ntt.transform(x, inverse=True, out_factor=table, half_table=False)
    fused = [args for args in ntt_pass_launches if len(args) == PASS_ARGUMENTS + 3]
    assert [int(args[-1]) for args in fused] == [1], "ntt_pass_fused with factor_shared"
    by_products = ntt.transform(x, inverse=True, out_scale=scale, half_table=False)
    assert bool((by_table == by_products).all())
    if log_n <= 14:
        domain = EvaluationDomain(log_n)
        inputs = to_ints(x)
        assert to_ints(by_table) == [y for k in range(2) for y in domain.coset_intt(inputs[k * n : (k + 1) * n])]
    ntt.release_large_tables()
    assert not ntt.large_table_held(log_n, ntt.ROOT_GENERATOR, scale)
    with pytest.raises(ValueError):
        ntt.scale_table(log_n, ntt.Scale(5))  # the same factor everywhere: no table


@pytest.mark.gpu
@pytest.mark.parametrize("coset_tables", [0, 1, 2], ids=["coset-factor-products", "one-coset-table", "two-coset-tables"])
@pytest.mark.parametrize("half_table", [False, True], ids=["hi-lo-twiddles", "half-table"])
@pytest.mark.parametrize("log_n", SMALL_LOG_NS)
def test_ntt_h_matches_reference(log_n, half_table, coset_tables):
    """bellman's ntt_h against reference/ntt_h.py, for a batch of three and for one circuit, each table route as
    asked: the half table is made (gpu/ntt.py caches it) exactly when asked for and a transform has a last pass with
    twiddles (more than one pass), and the coset tables exactly as many as asked for (gpu/ntt.py's large tables)."""
    from gpu import ntt
    from gpu.field import to_device
    from gpu.ntt_h import coset_table_kinds, h_to_ints, ntt_h
    from reference.evaluate import Evaluations
    from reference.ntt_h import ntt_h as reference_ntt_h

    n = 1 << log_n
    circuits = 3
    rng = random.Random(SEED + 200 + log_n)
    values = [[random_ints(n, rng) for _ in range(2)] for _ in range(circuits)]
    for circuit in values:  # c = a*b: rows that hold, as reference ntt_h refuses a non-zero h_(n-1)
        circuit.append([x * y % R for x, y in zip(*circuit)])
    a, b, c = (to_device([v for circuit in values for v in circuit[k]]).reshape(circuits, n, 8) for k in range(3))
    ntt.release_large_tables()
    h = ntt_h(a, b, c, log_n, half_table=half_table, coset_tables=coset_tables)
    assert ntt.half_table_held(log_n) == (half_table and ntt.half_table_size(log_n) > 0)
    assert [ntt.large_table_held(log_n, ntt.ROOT_GENERATOR, kind) for kind in coset_table_kinds(log_n)] == [
        k < coset_tables for k in range(2)]
    assert h.shape == (circuits, n - 1, 8)
    domain = EvaluationDomain(log_n)
    expected = [list(reference_ntt_h(Evaluations(*map(tuple, circuit)), domain)) for circuit in values]
    assert h_to_ints(h) == expected
    single = ntt_h(a[1], b[1], c[1], log_n, half_table=half_table, coset_tables=coset_tables)  # one circuit, 2-D
    assert h_to_ints(single) == expected[1]


@pytest.mark.gpu
def test_ntt_h_refuses_a_non_zero_top_coefficient_naming_the_circuit():
    """c off by one in one row of circuit 1: (a b - c) is not divisible by Z, and the GPU ntt_h raises the reference's
    QuotientNotPolynomialError, with its circuit (offset by first_circuit) and its h_(n-1); snarkjs checks nothing."""
    from gpu.field import to_device
    from gpu.ntt_h import h_to_ints, ntt_h
    from reference.errors import QuotientNotPolynomialError
    from reference.evaluate import Evaluations
    from reference.ntt_h import ntt_h as reference_ntt_h

    log_n, circuits, bad_circuit, bad_row, first_circuit = 4, 3, 1, 5, 10
    n = 1 << log_n
    rng = random.Random(SEED + 250)
    values = [[random_ints(n, rng) for _ in range(2)] for _ in range(circuits)]
    for circuit in values:
        circuit.append([x * y % R for x, y in zip(*circuit)])
    values[bad_circuit][2][bad_row] = (values[bad_circuit][2][bad_row] + 1) % R
    with pytest.raises(QuotientNotPolynomialError) as expected:
        reference_ntt_h(Evaluations(*map(tuple, values[bad_circuit])), EvaluationDomain(log_n), first_circuit + bad_circuit)

    def upload():
        return (to_device([v for circuit in values for v in circuit[k]]).reshape(circuits, n, 8) for k in range(3))

    for consume in (False, True):
        with pytest.raises(QuotientNotPolynomialError) as caught:
            ntt_h(*upload(), log_n, consume=consume, first_circuit=first_circuit)
        assert str(caught.value) == str(expected.value)
        assert (caught.value.circuit, caught.value.top_coefficient) == (first_circuit + bad_circuit, expected.value.top_coefficient)
    a, b, c = upload()
    domain = EvaluationDomain(log_n, SNARKJS)
    assert h_to_ints(ntt_h(a, b, c, log_n, SNARKJS)) == [
        list(reference_ntt_h(Evaluations(*map(tuple, circuit)), domain)) for circuit in values
    ]


def random_r1cs(rng: random.Random, constraints: int, num_inputs: int, num_aux: int):
    from reference.r1cs import R1CS

    variables = num_inputs + num_aux

    def row():
        terms = {}
        for _ in range(rng.randrange(0, 5)):
            terms[rng.randrange(variables)] = rng.choice([1, 1, 0, R - 1, rng.randrange(R)])
        return tuple(terms.items())

    matrices = [tuple(row() for _ in range(constraints)) for _ in range(3)]
    return R1CS(num_inputs, num_aux, *matrices)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 1, 0), (5, 1, 3), (61, 4, 40), (300, 7, 250)])
def test_evaluate_matches_reference(shape):
    from gpu.evaluate import evaluate, evaluations_to_ints, upload_r1cs, witnesses_to_device
    from reference.evaluate import evaluate as reference_evaluate

    rng = random.Random(SEED + sum(shape))
    r1cs = random_r1cs(rng, *shape)
    witnesses = [[1] + random_ints(r1cs.num_variables - 1, rng) for _ in range(3)]
    csr = upload_r1cs(r1cs)
    for _ in range(2):  # the CSR is reused across calls
        a, b, c = evaluate(csr, witnesses_to_device(witnesses, csr.num_variables))
        assert a.shape == (3, r1cs.n, 8)
        expected = [reference_evaluate(r1cs, z) for z in witnesses]
        assert evaluations_to_ints(a) == [list(e.a) for e in expected]
        assert evaluations_to_ints(b) == [list(e.b) for e in expected]
        assert evaluations_to_ints(c) == [list(e.c) for e in expected]


@pytest.mark.gpu
@pytest.mark.parametrize("failing, num_rows", [
    ({}, 13),                            # every row holds
    ({(2, 12): 1}, 13),                  # the last checked row only
    ({(1, 9): 1, (2, 0): -1}, 13),       # circuit order before row order
    ({(0, 3): 1, (0, 1): 1}, 13),        # the least row of a circuit
    ({(1, 14): 1}, 13),                  # a row past num_rows is not checked
])
def test_check_rows_names_the_reference_s_first_failing_row(failing, num_rows):
    """gpu check_rows (first_unsatisfied_rows) on (circuits, n) Fr values with c = a*b except where ``failing`` puts
    c off by +-1: the UnsatisfiedConstraintError of reference/evaluate.py check_satisfied on the first circuit that
    fails, its row, a_j, b_j, c_j and circuit number (offset by first_circuit) the same; none when every checked row
    holds."""
    from gpu.evaluate import check_rows
    from gpu.field import to_device
    from reference.errors import UnsatisfiedConstraintError
    from reference.evaluate import Evaluations, check_satisfied

    log_n, circuits, first_circuit = 4, 3, 20
    n = 1 << log_n
    rng = random.Random(SEED + 260 + len(failing))
    values = [[random_ints(n, rng) for _ in range(2)] for _ in range(circuits)]
    for circuit in values:
        circuit.append([x * y % R for x, y in zip(*circuit)])
    for (circuit, row), delta in failing.items():
        values[circuit][2][row] = (values[circuit][2][row] + delta) % R
    expected = None
    for k, circuit in enumerate(values):
        try:
            check_satisfied(Evaluations(*map(tuple, circuit)), num_rows, first_circuit + k)
        except UnsatisfiedConstraintError as error:
            expected = error
            break
    a, b, c = (to_device([v for circuit in values for v in circuit[m]]).reshape(circuits, n, 8) for m in range(3))
    if expected is None:
        check_rows(a, b, c, num_rows, first_circuit)
        return
    with pytest.raises(UnsatisfiedConstraintError) as caught:
        check_rows(a, b, c, num_rows, first_circuit)
    assert vars(caught.value) == vars(expected) and str(caught.value) == str(expected)


@pytest.mark.gpu
def test_evaluate_satisfied_refuses_what_the_reference_refuses():
    """gpu evaluate_satisfied (the prover's evaluate phase) on a random R1CS: for witnesses that satisfy no row
    the reference's evaluate_satisfied error (its first circuit and row, numbered from first_circuit); on an R1CS
    whose rows are all ONE * ONE = ONE, which every witness satisfies, reference evaluate's values and no error."""
    from gpu.evaluate import evaluate_satisfied, evaluations_to_ints, upload_r1cs, witnesses_to_device
    from reference.errors import UnsatisfiedConstraintError
    from reference.evaluate import evaluate_satisfied as reference_evaluate_satisfied
    from reference.r1cs import R1CS

    rng = random.Random(SEED + 270)
    r1cs = random_r1cs(rng, 40, 3, 30)
    witnesses = [[1] + random_ints(r1cs.num_variables - 1, rng) for _ in range(2)]
    with pytest.raises(UnsatisfiedConstraintError) as expected:
        for k, z in enumerate(witnesses):
            reference_evaluate_satisfied(r1cs, z, BELLMAN, 7 + k)
    with pytest.raises(UnsatisfiedConstraintError) as caught:
        evaluate_satisfied(upload_r1cs(r1cs), witnesses_to_device(witnesses, r1cs.num_variables), BELLMAN, 7)
    assert str(caught.value) == str(expected.value)
    one_row = (((0, 1),),) * 20
    ones = R1CS(2, 5, one_row, one_row, one_row)
    satisfied = [[1] + random_ints(ones.num_variables - 1, rng) for _ in range(2)]
    a, b, c = evaluate_satisfied(upload_r1cs(ones), witnesses_to_device(satisfied, ones.num_variables))
    expected_values = [reference_evaluate_satisfied(ones, z) for z in satisfied]
    for name, values in (("a", a), ("b", b), ("c", c)):
        assert evaluations_to_ints(values) == [list(getattr(e, name)) for e in expected_values]


@pytest.mark.gpu
def test_evaluate_rejects_bad_witnesses():
    from gpu.evaluate import witnesses_to_device
    from reference.errors import ScalarRangeError

    r1cs = random_r1cs(random.Random(SEED), 4, 2, 3)
    with pytest.raises(SizeMismatchError, match=r"witnesses\[1\]"):
        witnesses_to_device([[1, 2, 3, 4, 5], [1, 2]], r1cs.num_variables)
    with pytest.raises(ScalarRangeError, match=r"witnesses\[0\]\[2\]"):
        witnesses_to_device([[1, 2, R, 4, 5]], r1cs.num_variables)


@pytest.mark.gpu
def test_bad_shapes_are_named():
    import cupy

    from gpu import ntt
    from gpu.ntt_h import ntt_h

    with pytest.raises(SizeMismatchError, match="power of two"):
        ntt.forward(cupy.zeros((3, 8), np.uint32))
    with pytest.raises(SizeMismatchError, match="outside"):
        ntt.forward(cupy.zeros((1, 8), np.uint32))
    with pytest.raises(InvalidInputError, match="uint32 limbs"):
        ntt.forward(cupy.zeros((4, 4), np.uint32))
    a = cupy.zeros((2, 8, 8), np.uint32)
    with pytest.raises(SizeMismatchError, match="domain has n = 2\\^4"):
        ntt_h(a, a, a, 4)
    with pytest.raises(SizeMismatchError, match="^c: "):
        ntt_h(a, a, cupy.zeros((1, 8, 8), np.uint32), 3)


@pytest.mark.gpu
def test_ntt_h_memory_error_says_how_much():
    from gpu.device import GpuMemoryError, free_device_memory
    from gpu.ntt_h import memory_needed, require_memory

    log_n = 27
    batch = free_device_memory() // memory_needed(1, log_n) + 1
    needed_gib = memory_needed(batch, log_n) / 2**30
    with pytest.raises(GpuMemoryError, match=rf"ntt_h for {batch} circuit\(s\) at n = 2\^27: needs {needed_gib:.2f} GiB"):
        require_memory(batch, log_n)
    require_memory(1, 10)


# ---------------------------------------------------------------- GPU: large sizes


def check_sparse_forward(log_n: int, rng: random.Random) -> None:
    """forward NTT of a sparse vector: sampled outputs in Python, the whole output against fr_powers sums."""
    import cupy

    from gpu import ntt
    from gpu.field import apply_op, to_ints

    n = 1 << log_n
    terms = sparse_terms(n, SPARSE_TERMS, rng)
    x = sparse_device_vector(n, terms)
    y = ntt.forward(x)
    w = omega(log_n)
    samples = sorted({0, 1, n // 2, n - 1} | {rng.randrange(n) for _ in range(SAMPLED_OUTPUTS)})
    got = to_ints(y[cupy.asarray(samples)])
    assert got == [sum(v * pow(w, i * j, R) for i, v in terms.items()) % R for j in samples]
    expected = None
    for i, v in terms.items():
        series = ntt.powers(pow(w, i, R), n, v)  # v omega^(ij) for every j
        expected = series if expected is None else apply_op("add", expected, series)
        del series
    assert bool((y == expected).all())


def check_round_trips(log_n: int, seed: int) -> None:
    from gpu import ntt

    x = random_device_fr((1 << log_n,), seed)
    y = ntt.forward(x)
    assert not bool((y == x).all())
    assert bool((ntt.inverse(y, out=y) == x).all())
    z = ntt.coset_forward(x)
    assert bool((ntt.coset_inverse(z, out=z) == x).all())


def check_sparse_ntt_h(log_n: int, rng: random.Random, circuits: int) -> None:
    """h for sparse a, b and c = a b on H equals the closed form sum_{e+f>=n} alpha beta X^(e+f-n), in full."""
    import cupy

    from gpu import ntt
    from gpu.field import apply_op
    from gpu.ntt_h import ntt_h

    n = 1 << log_n
    evaluations = {"a": [], "b": [], "c": []}
    expected_h = []
    for _ in range(circuits):
        a_terms, b_terms = sparse_terms(n, SPARSE_TERMS, rng), sparse_terms(n, SPARSE_TERMS, rng)
        a = ntt.forward(sparse_device_vector(n, a_terms))
        b = ntt.forward(sparse_device_vector(n, b_terms))
        evaluations["a"].append(a)
        evaluations["b"].append(b)
        evaluations["c"].append(apply_op("mul", a, b))
        h = {}
        for e, alpha in a_terms.items():
            for f, beta in b_terms.items():
                if e + f >= n:
                    h[e + f - n] = (h.get(e + f - n, 0) + alpha * beta) % R
        expected_h.append(sparse_device_vector(n, {k: v for k, v in h.items() if v})[: n - 1])
    a, b, c = (cupy.stack(evaluations[k]) for k in "abc")
    del evaluations
    got = ntt_h(a, b, c, log_n)
    assert bool((got == cupy.stack(expected_h)).all())


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("log_n", LARGE_LOG_NS)
def test_large_transforms(log_n):
    rng = random.Random(SEED + 300 + log_n)
    check_round_trips(log_n, SEED + log_n)
    check_sparse_forward(log_n, rng)
    check_sparse_ntt_h(log_n, rng, circuits=2 if log_n <= 24 else 1)


@pytest.mark.gpu
@pytest.mark.slow
@pytest.mark.parametrize("log_n", [15, 20])
def test_dense_transform_at_sampled_outputs(log_n):
    """X_j = v(omega^j) by Horner in Python, for a dense random v, at sampled j."""
    import cupy

    from gpu import ntt
    from gpu.field import to_ints

    n = 1 << log_n
    x = random_device_fr((n,), SEED + 400 + log_n)
    y = ntt.forward(x)
    coefficients = to_ints(x)
    rng = random.Random(SEED + log_n)
    samples = [0, n - 1] + [rng.randrange(n) for _ in range(2)]
    got = to_ints(y[cupy.asarray(samples)])
    w = omega(log_n)
    assert got == [horner(coefficients, pow(w, j, R)) for j in samples]


@pytest.mark.gpu
@pytest.mark.slow
def test_h_identity_at_random_point():
    """a(x) b(x) - c(x) = h(x) (x^n - 1) at a random x, for dense random a, b and c = a b on H (n = 2^20)."""
    from gpu import ntt
    from gpu.field import apply_op, to_ints
    from gpu.ntt_h import h_to_ints, ntt_h

    log_n = 20
    n = 1 << log_n
    a = random_device_fr((n,), SEED + 500)
    b = random_device_fr((n,), SEED + 501)
    c = apply_op("mul", a, b)
    h = h_to_ints(ntt_h(a, b, c, log_n))
    x = random.Random(SEED).randrange(R)
    a_x, b_x, c_x = (horner(to_ints(ntt.inverse(v)), x) for v in (a, b, c))
    assert (a_x * b_x - c_x) % R == horner(h, x) * (pow(x, n, R) - 1) % R


@pytest.mark.gpu
@pytest.mark.slow
def test_repeated_runs_are_bit_identical():
    from gpu import ntt
    from gpu.field import apply_op
    from gpu.ntt_h import ntt_h

    log_n = 24
    a, b = (random_device_fr((2, 1 << log_n), SEED + 600 + k) for k in range(2))
    c = apply_op("mul", a, b)  # rows that hold: ntt_h refuses a non-zero h_(n-1)
    first = ntt.forward(a)
    assert bool((ntt.forward(a) == first).all())
    h1 = ntt_h(a, b, c, log_n).copy()
    assert bool((ntt_h(a, b, c, log_n) == h1).all())


# ---------------------------------------------------------------- GPU: the snarkjs convention


@pytest.mark.gpu
@pytest.mark.parametrize("log_n", range(1, NAIVE_MAX_LOG_N + 1))
def test_root_5_transforms_match_snarkjs_domain(log_n):
    """transform(root_generator=5) forward and inverse against reference/domain.py's SNARKJS domain (omega = 5^((r-1)/n))."""
    from gpu import ntt
    from gpu.field import to_device, to_ints

    n = 1 << log_n
    domain = EvaluationDomain(log_n, SNARKJS)
    rng = random.Random(SEED + 700 + log_n)
    batch = [random_ints(n, rng) for _ in range(2)]
    x = to_device([v for vec in batch for v in vec]).reshape(2, n, 8)
    forward = ntt.transform(x, root_generator=SNARKJS_ROOT_GENERATOR)
    assert to_ints(forward) == [y for vec in batch for y in domain.ntt(vec)]
    inverse = ntt.transform(x, inverse=True, out_scale=ntt.Scale(domain.n_inv), root_generator=SNARKJS_ROOT_GENERATOR)
    assert to_ints(inverse) == [y for vec in batch for y in domain.intt(vec)]
    assert to_ints(ntt.forward(x)) == [y for vec in batch for y in EvaluationDomain(log_n).ntt(vec)], "bellman after root 5"


@pytest.mark.gpu
@pytest.mark.parametrize("coset_tables", [0, 1], ids=["coset-factor-products", "coset-table"])
@pytest.mark.parametrize("log_n", SNARKJS_LOG_NS)
def test_snarkjs_ntt_h_matches_reference(log_n, coset_tables):
    """gpu ntt_h(convention=SNARKJS): n values per circuit, bit-identical to reference/ntt_h.py and across runs, the
    coset factors from the coset table or as products."""
    from gpu import ntt
    from gpu.field import to_device
    from gpu.ntt_h import coset_table_kinds, h_to_ints, ntt_h
    from reference.evaluate import Evaluations
    from reference.ntt_h import ntt_h as reference_ntt_h

    n = 1 << log_n
    circuits = 2
    rng = random.Random(SEED + 800 + log_n)
    values = [[random_ints(n, rng) for _ in range(3)] for _ in range(circuits)]
    a, b, c = (to_device([v for circuit in values for v in circuit[k]]).reshape(circuits, n, 8) for k in range(3))
    ntt.release_large_tables()
    h = ntt_h(a, b, c, log_n, SNARKJS, coset_tables=coset_tables)
    (kind,) = coset_table_kinds(log_n, SNARKJS)
    assert ntt.large_table_held(log_n, SNARKJS.root_generator, kind) == bool(coset_tables)
    assert h.shape == (circuits, n, 8)
    domain = EvaluationDomain(log_n, SNARKJS)
    expected = [list(reference_ntt_h(Evaluations(*map(tuple, circuit)), domain)) for circuit in values]
    assert h_to_ints(h) == expected
    assert h_to_ints(ntt_h(a, b, c, log_n, SNARKJS, coset_tables=coset_tables)) == expected, "a second run must be bit-identical"
    assert h_to_ints(ntt_h(a[0], b[0], c[0], log_n, SNARKJS, coset_tables=coset_tables)) == expected[0]


@pytest.mark.gpu
def test_snarkjs_evaluate_sets_c_to_a_times_b():
    """gpu evaluate(convention=SNARKJS) on the snarkjs interop vector equals reference/evaluate.py (c = a*b); an
    unsatisfied witness is refused at the same (circuit, row) as the reference refuses it."""
    from gpu.evaluate import evaluate, evaluations_to_ints, upload_r1cs, witnesses_to_device
    from reference.errors import UnsatisfiedConstraintError
    from reference.evaluate import evaluate as reference_evaluate
    from reference.r1cs import witness_vector
    from vectors.format import load_vector

    vector = load_vector(SNARKJS_INTEROP)
    r1cs = vector.r1cs
    zs = [witness_vector(r1cs, w.public_inputs, w.aux, k) for k, w in enumerate(vector.witnesses)]
    expected = [reference_evaluate(r1cs, z, SNARKJS, k) for k, z in enumerate(zs)]
    csr = upload_r1cs(r1cs)
    for _ in range(2):  # the CSR is reused across calls
        a, b, c = evaluate(csr, witnesses_to_device(zs, csr.num_variables), SNARKJS)
        assert evaluations_to_ints(a) == [list(e.a) for e in expected]
        assert evaluations_to_ints(b) == [list(e.b) for e in expected]
        assert evaluations_to_ints(c) == [list(e.c) for e in expected]
    broken = [zs[0], list(zs[1])]
    broken[1][-1] = (broken[1][-1] + 1) % R
    with pytest.raises(UnsatisfiedConstraintError) as reference_error:
        reference_evaluate(r1cs, broken[1], SNARKJS, 1)
    with pytest.raises(UnsatisfiedConstraintError) as gpu_error:
        evaluate(csr, witnesses_to_device(broken, csr.num_variables), SNARKJS)
    assert str(gpu_error.value) == str(reference_error.value)


@pytest.mark.gpu
def test_kept_tables_are_written_before_they_are_handed_out():
    """Every table gpu/ntt.py keeps for the process is read by every block on its device, each on a stream of its own
    (gpu/multi.py, --devices 0,0), with no event between them: a builder hands its table out only once the stream
    that writes it has run it (ntt._kept). Here work queued ahead would still be running, were the builder to return
    with the table's kernels queued behind it."""
    import cupy

    from gpu import ntt

    device_id, log_n = cupy.cuda.Device().id, 12
    builders = {
        "stage twiddles": lambda: ntt._roots(device_id, False, ntt.ROOT_GENERATOR),
        "pass twiddles": lambda: ntt._twiddles(device_id, log_n, False, ntt.ROOT_GENERATOR),
        "scale tables": lambda: ntt._scale_tables(device_id, log_n, ntt.Scale(3, ntt.COSET_GENERATOR)),
        "placeholder": lambda: ntt._placeholder(device_id),
        "half table": lambda: ntt._half_table(log_n),
    }
    for cached in (ntt._roots, ntt._twiddles, ntt._scale_tables, ntt._placeholder):
        cached.cache_clear()
    ntt.release_large_tables()
    stream = cupy.cuda.get_current_stream()
    for name, build in builders.items():
        queue_busy_work()
        build()
        assert stream.done, f"the {name} were handed out with their kernels still queued"
