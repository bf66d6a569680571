"""Shared pytest configuration.

GPU tests carry the ``gpu`` marker. Where no CUDA device can be used they are
skipped with the reason printed (``-ra`` is on by default), never passed
silently; ``--require-gpu`` turns that skip into a failure, for the device
machine and for any CI that has a GPU.
"""
import contextlib
import dataclasses
import functools
import importlib.util
import struct
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1

from reference.field import R

NATIVE_DIR = Path(__file__).resolve().parent / "native"
BENCH_DIR = Path(__file__).resolve().parent.parent / "bench"
PROBE_GATHER_HASH = 2654435761  # bench/probes/probe_gather.cuh probe_index (Knuth's multiplicative hash)


def pytest_addoption(parser):
    parser.addoption(
        "--require-gpu",
        action="store_true",
        default=False,
        help="fail (instead of skip) GPU tests when no usable CUDA device is present",
    )


@functools.lru_cache(maxsize=1)
def gpu_unavailable_reason():
    """None when a CUDA device is usable through CuPy, else a sentence saying why not (gpu/device.py decides)."""
    from gpu.device import _unavailable_reason

    return _unavailable_reason()


def pytest_collection_modifyitems(config, items):
    reason = gpu_unavailable_reason()
    if reason is None:
        return
    require = config.getoption("--require-gpu")
    for item in items:
        if "gpu" in item.keywords:
            if not require:
                item.add_marker(pytest.mark.skip(reason=f"GPU test skipped: {reason}"))


def pytest_runtest_setup(item):
    if "gpu" in item.keywords and item.config.getoption("--require-gpu"):
        reason = gpu_unavailable_reason()
        if reason is not None:
            pytest.fail(f"--require-gpu was given but {reason}", pytrace=False)


@functools.lru_cache(maxsize=1)
def ec_host_module():
    """tests/native/ec_host.py (host builds of the curve kernels), loaded by path: tests/ is not a package."""
    spec = importlib.util.spec_from_file_location("ec_host", NATIVE_DIR / "ec_host.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_module(name: str):
    """bench/<name>.py loaded by path (bench/ is not a package), registered in sys.modules first: dataclasses look
    their module up while a class is made."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BENCH_DIR / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def probe_host_library(tmp_path_factory, source: Path):
    """A bench/probes source built for the host (-DPROBE_HOST: its kernel bodies as plain C++ with g++, against
    gpu/kernels and bench/probes), loaded with ctypes; skips, saying why, without a host C++ compiler."""
    import ctypes
    import shutil
    import subprocess

    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no host C++ compiler (g++ or c++) on PATH: the probe cannot be built for the CPU")
    library = tmp_path_factory.mktemp("probe") / f"{source.stem}.so"
    subprocess.run([compiler, "-std=c++17", "-O2", "-x", "c++", "-shared", "-fPIC", "-DPROBE_HOST",
                    f"-I{BENCH_DIR.parent / 'gpu' / 'kernels'}", f"-I{BENCH_DIR / 'probes'}", str(source), "-o",
                    str(library)], check=True)
    return ctypes.CDLL(str(library))


def probe_gather_index(t: int, i: int, s: int, k: int, steps: int, points: int) -> int:
    """bench/probes/probe_gather.cuh probe_index: the point accumulator i of thread t (k a thread) adds at step s, in
    the kernels' u64 arithmetic."""
    flat = (t * k + i) * steps + s
    return (flat * PROBE_GATHER_HASH % (1 << 64)) % points


def captured_edge_case_piece_sum(group, generator, identity, count: int, window_bits: int):
    """The msm_piece_sum launch (bench/probe_affine_pieces.py PieceSumLaunch) of an MSM of ``count`` bases run through
    gpu/msm.py; call it inside ``kernel_emulation("msm.cu")``. The bases are random multiples of the generator with
    base 1 = -base 0 and base 3 = base 2 under the same scalars, so that P then -P and Q then Q meet in every bucket
    they share, in index order (P, -P, P would not do: a wrong tangent slope at P followed by -P gives back P whatever
    the slope), and base 4 the identity: every special case of a bucket addition happens."""
    import random

    from py_ecc.optimized_bls12_381 import curve_order, multiply, neg

    from gpu.msm import MsmJob, msm_batch
    from gpu.points import points_to_words

    rng = random.Random(count)
    p, q = (multiply(generator, rng.randrange(1, curve_order)) for _ in range(2))
    points = [p, neg(p), q, q, identity] + [multiply(generator, rng.randrange(1, curve_order)) for _ in range(count - 5)]
    scalars = [rng.randrange(curve_order) for _ in range(count)]
    scalars[1] = scalars[0]  # -P with P's digits: P + (-P) in every bucket they share
    scalars[3] = scalars[2]  # Q twice: Q + Q
    bases = np.ascontiguousarray(points_to_words(points, group))
    limbs = np.array([[(s >> (32 * i)) & 0xFFFFFFFF for i in range(8)] for s in scalars], dtype=np.uint32)
    with bench_module("probe_affine_pieces").captured_piece_sum_launches(group) as launches:
        msm_batch([MsmJob(bases, limbs)], group, montgomery=False, window_bits=window_bits)
    [captured] = launches
    captured.owners = (bases,)
    return captured


def run_bench_script(name: str, *argv: str):
    """bench/<name> run as a script in a fresh interpreter (what a user types): its CompletedProcess, text captured."""
    import subprocess

    return subprocess.run([sys.executable, str(BENCH_DIR / name), *argv], capture_output=True,
                          text=True, timeout=120)


def assert_usage_errors(name: str, cases) -> None:
    """bench/<name> refuses each (argv, message) of ``cases`` as a usage error: exit 2, the message on stderr, before
    it looks for a GPU (so on a machine without one too)."""
    for argv, message in cases:
        done = run_bench_script(name, *argv)
        assert done.returncode == 2 and message in done.stderr, (argv, done.returncode, done.stderr[-400:])


def vectors_refusal(argv, capsys) -> str:
    """`python -m vectors ARGV` (in-process) refuses: exit 2, nothing on stdout, one 'error: ' line; returns it."""
    from reference.cli import EXIT_BAD_INPUT, run_main
    from vectors.__main__ import main as vectors_main

    assert run_main(vectors_main, argv) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.endswith("\n") and err.count("\n") == 1, (out, err)
    return err


@pytest.fixture
def kernel_emulation():
    """``with kernel_emulation("msm.cu", ...):`` runs gpu/'s drivers on the host builds of those kernel files
    (tests/native/ec_host.py) instead of CuPy; skips, saying why, where no compiler can build them."""
    from gpu.points import use_backend

    ec_host = ec_host_module()

    @contextlib.contextmanager
    def emulate(*cu_files):
        try:
            for cu_file in cu_files:
                ec_host.host_library(cu_file)
        except ec_host.NoHostCompiler as exc:
            pytest.skip(f"host build of the kernels skipped: {exc}")
        with use_backend(ec_host.emulation_backend()):
            yield

    return emulate


# gpu/ntt_h.py's route on stand-in transforms: the route fixture of tests/test_ntt_h_route.py (O(n^2) DFTs) and of
# tests/test_gpu_ntt.py (the ntt.cu kernels in host emulation).

GARBAGE = "garbage"
"""What a stand-in transform leaves in its scratch: any read of it fails."""


class StandInTransforms:
    """transform and transform_in_pair of gpu/ntt.py over object arrays, with ``passes`` passes, each vector transformed
    by ``dft`` (dfts' arguments; default dfts); ``copies``: the inputs copied because the first pass would have
    overwritten them (gpu/ntt.py _launch_passes)."""

    def __init__(self, passes: int, dft=None):
        self.passes = passes
        self.copies = 0
        self.dft = dft or dfts

    def transform(self, x, *, inverse=False, in_scale=None, out_scale=None, out=None, scratch=None,
                  root_generator, half_table=None, out_factor=None):
        out = empty_like(x) if out is None else out
        scratch = empty_like(x) if scratch is None else scratch
        assert not np.shares_memory(scratch, x) and not np.shares_memory(scratch, out)
        assert out_factor is None or not (np.shares_memory(out_factor, out) or np.shares_memory(out_factor, scratch))
        first_target = out if (self.passes - 1) % 2 == 0 else scratch
        self.copies += self.passes > 1 and np.shares_memory(x, first_target)
        y = self.dft(x, inverse, root_generator, in_scale, out_scale, out_factor, None, half_table)
        scratch[...] = GARBAGE
        out[...] = y
        return out

    def transform_in_pair(self, x, other, *, inverse=False, in_scale=None, out_scale=None, root_generator,
                          half_table, out_factor=None, out_minus=None):
        assert not np.shares_memory(x, other), "a pair of one buffer: its passes would run in place"
        for extra in (out_factor, out_minus):
            assert extra is None or not (np.shares_memory(extra, x) or np.shares_memory(extra, other))
        dst, scratch = (other, x) if self.passes % 2 else (x, other)
        y = self.dft(x, inverse, root_generator, in_scale, out_scale, out_factor, out_minus, half_table)
        scratch[...] = GARBAGE
        dst[...] = y
        return dst


def empty_like(x):
    return np.full(x.shape, GARBAGE, dtype=object)


def factors(scale, n: int) -> list[int]:
    """gpu/ntt.py Scale: constant * base^i."""
    return [scale.constant * pow(scale.base, i, R) % R for i in range(n)]


def dfts(x, inverse, root_generator, in_scale, out_scale, out_factor, out_minus, half_table=None):
    """Every vector of x transformed as gpu/ntt.py defines it; out_factor one vector for all or one for each
    (``half_table``: where the kernels read twiddles, the same values)."""
    batch, n, _ = x.shape
    w = pow(root_generator, (R - 1) // n, R)
    w = pow(w, -1, R) if inverse else w
    s = factors(in_scale, n) if in_scale else [1] * n
    t = factors(out_scale, n) if out_scale else [1] * n
    y = np.empty(x.shape, dtype=object)
    for k in range(batch):
        values = readable(x[k])
        f = readable(out_factor if out_factor is None or out_factor.ndim == 2 else out_factor[k])
        m = readable(None if out_minus is None else out_minus[k])
        for j in range(n):
            v = sum(values[i] * s[i] * pow(w, i * j, R) for i in range(n)) * t[j]
            v = v * (f[j] if f else 1) - (m[j] if m else 0)
            y[k, j, 0] = v % R
    return y


def queue_busy_work() -> None:
    """Some milliseconds of work on the current CUDA stream: what is queued after it is still pending when the host
    has queued it (a test of what waits for a stream and what does not)."""
    import cupy

    busy = cupy.ones(1 << 26, dtype=cupy.float64)
    for _ in range(20):
        busy = cupy.sqrt(busy)


def readable(vector):
    if vector is None:
        return None
    values = list(vector[:, 0])
    assert GARBAGE not in values, "a transform read a buffer another one left as scratch"
    return values


@pytest.fixture
def route(monkeypatch):
    """gpu.ntt_h with the stand-ins in place of the device, its transforms, its tables and its element-wise kernel."""
    import gpu.ntt_h as ntt_h_module

    copies, allocations = [], []

    def copyto(dst, src):
        copies.append(dst)
        dst[...] = src

    def allocate(x):
        allocations.append(x.shape)
        return empty_like(x)

    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(empty_like=allocate, copyto=copyto))
    monkeypatch.setattr(ntt_h_module, "device", types.SimpleNamespace(require_device=lambda: None,
                                                                      launch_check=lambda *a, **k: None))
    monkeypatch.setattr(ntt_h_module, "_check_inputs", lambda a, b, c, log_n: a.shape[0])
    monkeypatch.setattr(ntt_h_module, "require_memory", lambda *a, **k: None)
    monkeypatch.setattr(ntt_h_module, "scale_table",
                        lambda log_n, kind, root: np.array([[v] for v in factors(kind, 1 << log_n)], dtype=object))

    def fr_mul_sub(kernel, what, e, x, y):
        assert kernel == "fr_mul_sub"
        e[...] = (e * x - y) % R

    monkeypatch.setattr(ntt_h_module, "_elementwise", fr_mul_sub)
    checked = []  # the full inverse transforms check_top_coefficients was handed (h_(n-1) included)

    def check_top_coefficients(h, first=0):
        checked.append(h.copy())
        if not all(v == 0 for v in h[:, -1, 0]) and not accept_unsatisfied:
            pytest.fail("h_(n-1) != 0")

    monkeypatch.setattr(ntt_h_module, "check_top_coefficients", check_top_coefficients)
    accept_unsatisfied = False

    def run(a, b, c, log_n, convention, passes, dft=None, unsatisfied=False, **kwargs):
        """(h, inputs copied by in-place transforms, copies ntt_h made itself, vectors it allocated). ``dft``: the
        stand-ins' transform of each vector (StandInTransforms). ``unsatisfied``: rows that do not hold, h_(n-1) != 0
        accepted; h is then the full inverse transform ntt_h checked (bellman), n coefficients."""
        nonlocal accept_unsatisfied
        accept_unsatisfied = unsatisfied
        stand_ins = StandInTransforms(passes, dft)
        monkeypatch.setattr(ntt_h_module, "transform", stand_ins.transform)
        monkeypatch.setattr(ntt_h_module, "transform_in_pair", stand_ins.transform_in_pair)
        copies.clear()
        allocations.clear()
        checked.clear()
        h = ntt_h_module.ntt_h(a, b, c, log_n, convention, **kwargs)
        return checked[-1] if unsatisfied else h, stand_ins.copies, len(copies), len(allocations)

    return run


def key_with_a_foreign_l_point(vector):
    """The vector's proving key with one L point (of an aux variable that circuit 0 sets non-zero) replaced by the G1
    generator: a proving key that does not belong to its verifying key, as an edited zkey or Parameters file holds."""
    i = next(i for i, x in enumerate(vector.witnesses[0].aux) if x)
    return dataclasses.replace(vector.pk, l=(*vector.pk.l[:i], G1, *vector.pk.l[i + 1:]))


IDEN3_MAGIC_AND_VERSION_BYTES = 8
"""An iden3 binary file (.r1cs, .wtns, .zkey) opens with a 4-byte magic and a u32 version, then a u32 section count."""
IDEN3_COUNT = struct.Struct("<I")
IDEN3_SECTION_HEADER = struct.Struct("<IQ")
"""Each section: u32 type, u64 size, then its bytes (little-endian)."""


def iden3_rebuilt(raw: bytes, drop: int | None = None, extra: int | None = None) -> bytes:
    """The iden3 file ``raw`` with section ``drop`` removed and an empty section of type ``extra`` appended."""
    (count,) = IDEN3_COUNT.unpack_from(raw, IDEN3_MAGIC_AND_VERSION_BYTES)
    pos, kept = IDEN3_MAGIC_AND_VERSION_BYTES + IDEN3_COUNT.size, []
    for _ in range(count):
        kind, size = IDEN3_SECTION_HEADER.unpack_from(raw, pos)
        start = pos + IDEN3_SECTION_HEADER.size
        if kind != drop:
            kept.append((kind, raw[start : start + size]))
        pos = start + size
    if extra is not None:
        kept.append((extra, b""))
    body = b"".join(IDEN3_SECTION_HEADER.pack(kind, len(payload)) + payload for kind, payload in kept)
    return raw[:IDEN3_MAGIC_AND_VERSION_BYTES] + IDEN3_COUNT.pack(len(kept)) + body
