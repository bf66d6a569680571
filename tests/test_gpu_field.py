"""Fr and Fq arithmetic of gpu/kernels/field.cuh against Python ints, and the limb conversions.

* CPU (no marker): tests/native/field_host_test.cu runs the portable C++ path of field.cuh (built
  with nvcc) and the device's carry-chain algorithms with every PTX instruction emulated on the host
  (built with g++ -DFIELD_EMULATE_PTX); each build is skipped, reason printed, without its compiler.
* GPU (@pytest.mark.gpu): the field_op_fr / field_op_fq kernels in every build of gpu.field.BUILDS
  (PTX even/odd CIOS, PTX split chains, portable C++) must match Python ints.
Every expected value is computed here with Python's int arithmetic (pow(x, -1, m) for inverses).
"""
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from gpu.limbs import FQ, FR, ints_to_limbs, limbs_to_ints, reduced_mask
from reference.errors import InvalidInputError, ScalarRangeError

ROOT = Path(__file__).resolve().parent.parent
NATIVE_SOURCE = ROOT / "tests" / "native" / "field_host_test.cu"
KERNEL_DIR = ROOT / "gpu" / "kernels"
FIELDS = {"fr": FR, "fq": FQ}
RANDOM_CASES = 60
SEED = 20261202


def edge_values(m: int) -> list[int]:
    """0, 1, 2, m - 1, m - 2, (m +- 1) / 2 and limb patterns that make long carry chains: all-ones
    low limbs, one all-ones limb, m minus a power of 2^32."""
    values = [0, 1, 2, m - 1, m - 2, (m - 1) // 2, (m + 1) // 2]
    values += [(1 << k) % m for k in (31, 32, 63, 64, 128, 254)]
    limbs = (m.bit_length() + 31) // 32
    values += [((1 << (32 * k)) - 1) % m for k in range(1, limbs + 1)]
    values += [(0xFFFFFFFF << (32 * k)) % m for k in range(limbs)]
    values += [(m - (1 << (32 * k))) % m for k in range(limbs)]
    return list(dict.fromkeys(values))


def operand_pairs(m: int, count: int, rng: random.Random) -> list[tuple[int, int]]:
    edges = edge_values(m)
    pairs = [(a, b) for a in edges for b in edges[:6]]
    pairs += [(rng.randrange(m), rng.randrange(m)) for _ in range(count)]
    pairs += [(x, x) for x in edges[:4]]  # equal operands: a - a, a == a
    return pairs


def expected(op: str, a: int, b: int, m: int) -> int:
    return {
        "add": (a + b) % m,
        "sub": (a - b) % m,
        "mul": a * b % m,
        "sqr": a * a % m,
        "neg": -a % m,
        "inv": pow(a, -1, m) if a else 0,
        "dbl": 2 * a % m,
    }[op]


ARITHMETIC_OPS = ("add", "sub", "mul", "sqr", "neg", "inv", "dbl")


# ---------------------------------------------------------------- limb conversions (CPU)


def test_ints_to_limbs_round_trip_and_layout():
    rng = random.Random(SEED)
    for field in (FR, FQ):
        values = edge_values(field.modulus) + [rng.randrange(field.modulus) for _ in range(50)]
        limbs = ints_to_limbs(values, field)
        assert limbs.shape == (len(values), field.num_limbs) and limbs.dtype == np.uint32
        assert limbs_to_ints(limbs) == values
        # limb k of x is (x >> 32k) & 0xffffffff
        x = values[-1]
        assert [int(v) for v in limbs[-1]] == [(x >> (32 * k)) & 0xFFFFFFFF for k in range(field.num_limbs)]


def test_out_of_range_values_name_the_index():
    with pytest.raises(ScalarRangeError, match=r"w\[2\]"):
        ints_to_limbs([0, 1, FR.modulus], FR, "w")
    with pytest.raises(ScalarRangeError, match=r"w\[1\]"):
        ints_to_limbs([0, -1], FR, "w")


def test_reduced_mask_matches_integer_comparison():
    rng = random.Random(SEED + 2)
    for field in (FR, FQ):
        m = field.modulus
        values = [m - 1, m, m + 1, (1 << (32 * field.num_limbs)) - 1, 0] + [rng.randrange(2 * m) for _ in range(40)]
        values = [v for v in values if v < 1 << (32 * field.num_limbs)]
        data = b"".join(v.to_bytes(field.element_bytes, "little") for v in values)
        limbs = np.frombuffer(data, dtype="<u4").reshape(len(values), field.num_limbs)
        assert reduced_mask(limbs, field).tolist() == [v < m for v in values]


# ---------------------------------------------------------------- host build of field.cuh (CPU)


NATIVE_BUILDS = {
    # name: (compiler, options). portable: the host path of the real CUDA build (nvcc);
    # emulated-ptx*: the device's carry-chain algorithms with each PTX instruction emulated on the host
    # (-O0 for the emulated builds: optimizing the fully unrolled chains costs more than it saves here)
    "portable": ("nvcc", ["-O1"]),
    "emulated-ptx": ("g++", ["-O0", "-DFIELD_EMULATE_PTX"]),
    "emulated-ptx-split-chains": ("g++", ["-O0", "-DFIELD_EMULATE_PTX", "-DFIELD_MUL_SPLIT_CHAINS"]),
}


@pytest.fixture(scope="module", params=sorted(NATIVE_BUILDS))
def native_calculator(request, tmp_path_factory):
    """Path of the compiled host calculator; skips (reason printed) when its compiler is not installed."""
    compiler, options = NATIVE_BUILDS[request.param]
    if not shutil.which(compiler):
        pytest.skip(f"{compiler} is not installed: cannot build the {request.param} host test of field.cuh")
    out = tmp_path_factory.mktemp("native") / f"field_host_test_{request.param}"
    language = ["-x", "c++"] if compiler == "g++" else []
    cmd = [compiler, "-std=c++17", *language, *options, f"-I{KERNEL_DIR}", str(NATIVE_SOURCE), "-o", str(out)]
    build = subprocess.run(cmd, capture_output=True, text=True)
    assert build.returncode == 0, f"{' '.join(cmd)} failed:\n{build.stderr}"
    return out


def run_calculator(binary, queries: list[str]) -> list[str]:
    result = subprocess.run([str(binary)], input="\n".join(queries) + "\n", capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-500:] + result.stderr
    return result.stdout.split()


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_host_arithmetic_matches_python_ints(native_calculator, name):
    field = FIELDS[name]
    m = field.modulus
    pairs = operand_pairs(m, RANDOM_CASES, random.Random(SEED + len(name) + field.num_limbs))
    queries, wanted = [], []
    for op in ARITHMETIC_OPS:
        for a, b in pairs if op not in ("inv",) else pairs[:: max(1, len(pairs) // 40)]:
            queries.append(f"{name} {op} {a:x} {b:x}")
            wanted.append(expected(op, a, b, m))
    answers = run_calculator(native_calculator, queries)
    assert [int(x, 16) for x in answers] == wanted


SQUARING_CASES = 1500


def carry_heavy_montgomery_limbs(m: int, limbs: int, count: int, rng: random.Random) -> list[int]:
    """Values whose Montgomery-form limbs (what sqr_even_odd's carry chains see) are long runs of 0xffffffff and
    0, next to m, or random: the cases where a dropped or doubled carry would show."""
    words = (0xFFFFFFFF, 0, 0xFFFFFFFE, 0x80000000, 0x7FFFFFFF, 1)
    values = [m - 1, m - 2, (m - 1) // 2, (m + 1) // 2, 1, 2] + [(1 << (32 * k)) - 1 for k in range(1, limbs)]
    while len(values) < count:
        x = sum(rng.choice(words) << (32 * k) if rng.random() < 0.7 else rng.getrandbits(32) << (32 * k)
                for k in range(limbs))
        values.append(x % m)
    return values


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_host_squaring_matches_python_ints_on_carry_heavy_limbs(native_calculator, name):
    """sqr against Python ints on SQUARING_CASES values chosen by their Montgomery-form limbs (x = a R mod m is
    what the kernel squares), so that the symmetric-product rows of sqr_even_odd meet long carry runs."""
    field = FIELDS[name]
    m, r_inv = field.modulus, pow(1 << (32 * field.num_limbs), -1, field.modulus)
    internal = carry_heavy_montgomery_limbs(m, field.num_limbs, SQUARING_CASES, random.Random(SEED + 7 * field.num_limbs))
    plain = [x * r_inv % m for x in internal]
    answers = run_calculator(native_calculator, [f"{name} sqr {a:x} 0" for a in plain])
    assert [int(x, 16) for x in answers] == [a * a % m for a in plain]


LAZY_CASES = 400


def lazy_operands(m: int, limbs: int, count: int, rng: random.Random) -> list[int]:
    """Operands for the lazily reduced products: carry-heavy Montgomery limbs (as the squaring test) and edge values,
    mapped back to plain integers, so that the wide products, their differences mod m R and the reductions meet long
    carry runs, borrows and values next to m."""
    r_inv = pow(1 << (32 * limbs), -1, m)
    internal = carry_heavy_montgomery_limbs(m, limbs, count, rng)
    return [x * r_inv % m for x in internal] + edge_values(m)


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_host_mul_sub_matches_python_ints(native_calculator, name):
    """a b - c d with one reduction (field.cuh mul_sub_lazy) against Python ints; a b < c d half of the time, so the
    difference mod m R adds m R back."""
    field = FIELDS[name]
    m = field.modulus
    rng = random.Random(SEED + 11 * field.num_limbs)
    values = lazy_operands(m, field.num_limbs, LAZY_CASES, rng)
    quads = [tuple(rng.choice(values) for _ in range(4)) for _ in range(len(values))]
    quads += [(v, v, v, v) for v in values[:20]] + [(m - 1, m - 1, 0, 0), (0, 0, m - 1, m - 1)]
    answers = run_calculator(native_calculator, [f"{name} mulsub {a:x}:{c:x} {b:x}:{d:x}" for a, b, c, d in quads])
    assert [int(x, 16) for x in answers] == [(a * b - c * d) % m for a, b, c, d in quads]


def fq2_mul(x: tuple[int, int], y: tuple[int, int], p: int) -> tuple[int, int]:
    """(x0 + x1 u)(y0 + y1 u) with u^2 = -1, schoolbook: an independent form of fq2.cuh's Karatsuba."""
    return (x[0] * y[0] - x[1] * y[1]) % p, (x[0] * y[1] + x[1] * y[0]) % p


def test_host_fq2_lazy_products_match_python_ints(native_calculator):
    """Fq2 product, squaring and a b - c d (two reductions where the carry chains run) against schoolbook Python
    ints."""
    p = FQ.modulus
    rng = random.Random(SEED + 2)
    values = lazy_operands(p, FQ.num_limbs, LAZY_CASES, rng)
    pick = lambda: (rng.choice(values), rng.choice(values))  # noqa: E731
    pairs = [(pick(), pick()) for _ in range(len(values))] + [((p - 1, p - 1), (p - 1, p - 1)), ((0, p - 1), (p - 1, 0))]
    quads = [(pick(), pick(), pick(), pick()) for _ in range(len(values))] + [((0, 0), (0, 0), (p - 1, p - 1), (p - 1, p - 1))]
    queries = [f"fq2 mul {a[0]:x}:{a[1]:x} {b[0]:x}:{b[1]:x}" for a, b in pairs]
    queries += [f"fq2 sqr {a[0]:x}:{a[1]:x} 0:0" for a, _ in pairs]
    queries += [f"fq2 mulsub {a[0]:x}:{a[1]:x}:{c[0]:x}:{c[1]:x} {b[0]:x}:{b[1]:x}:{d[0]:x}:{d[1]:x}"
                for a, b, c, d in quads]
    wanted = [fq2_mul(a, b, p) for a, b in pairs] + [fq2_mul(a, a, p) for a, _ in pairs]
    for a, b, c, d in quads:
        ab, cd = fq2_mul(a, b, p), fq2_mul(c, d, p)
        wanted.append(((ab[0] - cd[0]) % p, (ab[1] - cd[1]) % p))
    answers = [int(x, 16) for x in run_calculator(native_calculator, queries)]
    assert list(zip(answers[0::2], answers[1::2])) == wanted


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_host_montgomery_form_and_predicates(native_calculator, name):
    field = FIELDS[name]
    m, radix = field.modulus, field.montgomery_radix
    rng = random.Random(SEED + 7)
    values = edge_values(m)[:8] + [rng.randrange(m) for _ in range(10)]
    queries = [f"{name} one 0 0"]
    queries += [f"{name} tomont {v:x} 0" for v in values]
    queries += [f"{name} frommont {v * radix % m:x} 0" for v in values]
    queries += [f"{name} iszero {v:x} 0" for v in values]
    queries += [f"{name} eq {v:x} {w:x}" for v, w in zip(values, values[1:] + values[:1])]
    queries += [f"{name} eq {v:x} {v:x}" for v in values]
    answers = run_calculator(native_calculator, queries)
    k = len(values)
    assert int(answers[0], 16) == 1
    assert [int(x, 16) for x in answers[1 : 1 + k]] == [v * radix % m for v in values]
    assert [int(x, 16) for x in answers[1 + k : 1 + 2 * k]] == values
    assert [int(x) for x in answers[1 + 2 * k : 1 + 3 * k]] == [int(v == 0) for v in values]
    pairs = list(zip(values, values[1:] + values[:1]))
    assert [int(x) for x in answers[1 + 3 * k : 1 + 4 * k]] == [1 if v == w else 2 for v, w in pairs]
    assert [int(x) for x in answers[1 + 4 * k :]] == [1] * k


# ---------------------------------------------------------------- device (PTX and portable paths)


def device_binary_op(op, a_values, b_values, field, build):
    from gpu.field import apply_op, to_device, to_ints

    a = to_device(a_values, field)
    b = to_device(b_values, field)
    return to_ints(apply_op(op, a, b, field, build=build), field)


@pytest.mark.gpu
@pytest.mark.parametrize("build", ["ptx", "split-chains", "portable"])
@pytest.mark.parametrize("name", sorted(FIELDS))
def test_device_arithmetic_matches_python_ints(name, build):
    field = FIELDS[name]
    m = field.modulus
    pairs = operand_pairs(m, 4 * RANDOM_CASES, random.Random(SEED + 11))
    a_values = [a for a, _ in pairs]
    b_values = [b for _, b in pairs]
    for op in ARITHMETIC_OPS:
        got = device_binary_op(op, a_values, b_values, field, build)
        assert got == [expected(op, a, b, m) for a, b in pairs], op


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(FIELDS))
def test_device_predicates(name):
    import cupy

    from gpu.field import apply_op, to_device

    field = FIELDS[name]
    values = edge_values(field.modulus)
    others = values[1:] + values[:1]
    a, b = to_device(values, field), to_device(others, field)
    eq = cupy.asnumpy(apply_op("eq", a, b, field))[:, :2].tolist()
    assert eq == [[int(v == w), int(v != w)] for v, w in zip(values, others)]
    same = cupy.asnumpy(apply_op("eq", a, a, field))[:, :2].tolist()
    assert same == [[1, 0]] * len(values)
    zero = cupy.asnumpy(apply_op("is_zero", a, a, field))[:, 0].tolist()
    assert zero == [int(v == 0) for v in values]


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(FIELDS))
def test_device_montgomery_conversion(name):
    import cupy

    from gpu.field import from_montgomery, from_montgomery_, to_device, to_ints, to_montgomery

    field = FIELDS[name]
    rng = random.Random(SEED + 13)
    values = edge_values(field.modulus) + [rng.randrange(field.modulus) for _ in range(1000)]
    montgomery = [v * field.montgomery_radix % field.modulus for v in values]
    x = to_device(values, field)
    assert limbs_to_ints(cupy.asnumpy(x)) == montgomery
    assert to_ints(x, field) == values
    plain = from_montgomery(x, field)  # out of place: x is kept
    assert limbs_to_ints(cupy.asnumpy(plain)) == values and limbs_to_ints(cupy.asnumpy(x)) == montgomery
    again = to_montgomery(plain, field)
    assert limbs_to_ints(cupy.asnumpy(again)) == montgomery and limbs_to_ints(cupy.asnumpy(plain)) == values
    from_montgomery_(x, field)
    assert limbs_to_ints(cupy.asnumpy(x)) == values


@pytest.mark.gpu
def test_device_rejects_bad_arrays():
    import cupy

    from gpu.field import apply_op, to_device

    a = to_device([1, 2, 3], FR)
    with pytest.raises(InvalidInputError, match="uint32 limbs"):
        apply_op("add", a.astype(np.int64), a, FR)
    with pytest.raises(InvalidInputError, match="cupy array"):
        apply_op("add", np.zeros((3, 8), np.uint32), a, FR)
    with pytest.raises(InvalidInputError, match="shape"):
        apply_op("add", a, cupy.zeros((2, 8), np.uint32), FR)
    with pytest.raises(ScalarRangeError, match=r"values\[1\]"):
        to_device([0, FR.modulus], FR)


@pytest.mark.gpu
def test_memory_check_names_the_amounts():
    from gpu.device import GpuMemoryError, check_free_memory

    with pytest.raises(GpuMemoryError, match=r"huge thing: needs .* GiB .* free"):
        check_free_memory(1 << 60, "huge thing")
    check_free_memory(1 << 20, "small thing")
