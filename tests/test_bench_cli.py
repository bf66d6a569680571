"""The CPU benchmarks of bench/ answer --help, and refuse a missing prerequisite in one line, not a traceback."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _bench(*argv):
    return subprocess.run([sys.executable, str(ROOT / "bench" / argv[0]), *argv[1:]], capture_output=True, text=True,
                          timeout=120)


def test_bench_fast_library_has_help():
    """It had no argument parser: --help started the benchmark (and a missing pyblst ended it in a traceback)."""
    done = _bench("bench_fast_library.py", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: ") and "py-arkworks-bls12381 vs pyblst" in done.stdout


@pytest.mark.skipif(importlib.util.find_spec("pyblst") is not None and importlib.util.find_spec("py_arkworks_bls12381") is not None,
                    reason="both libraries are installed: the benchmark would run")
def test_bench_fast_library_without_its_libraries_says_so_in_one_line():
    done = _bench("bench_fast_library.py")
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "not installed" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr and done.stdout == ""
