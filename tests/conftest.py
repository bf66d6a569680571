"""Shared pytest configuration.

GPU tests carry the ``gpu`` marker. Where no CUDA device can be used they are
skipped with the reason printed (``-ra`` is on by default), never passed
silently; ``--require-gpu`` turns that skip into a failure, for the device
machine and for any CI that has a GPU.
"""
import contextlib
import functools
import importlib.util
from pathlib import Path

import pytest

NATIVE_DIR = Path(__file__).resolve().parent / "native"
BENCH_DIR = Path(__file__).resolve().parent.parent / "bench"


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
    import sys

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


def run_bench_script(name: str, *argv: str):
    """bench/<name> run as a script in a fresh interpreter (what a user types): its CompletedProcess, text captured."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, str(BENCH_DIR / name), *argv], capture_output=True,
                          text=True, timeout=120)


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
