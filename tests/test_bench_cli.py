"""The CPU benchmarks of bench/ answer --help, and refuse a missing prerequisite in one line, not a traceback."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_bench_script

ROOT = Path(__file__).resolve().parents[1]


def test_bench_fast_library_has_help():
    """It had no argument parser: --help started the benchmark (and a missing pyblst ended it in a traceback)."""
    done = run_bench_script("bench_fast_library.py", "--help")
    assert done.returncode == 0 and done.stdout.startswith("usage: ") and "py-arkworks-bls12381 vs pyblst" in done.stdout


@pytest.mark.skipif(importlib.util.find_spec("pyblst") is not None and importlib.util.find_spec("py_arkworks_bls12381") is not None,
                    reason="both libraries are installed: the benchmark would run")
def test_bench_fast_library_without_its_libraries_says_so_in_one_line():
    done = run_bench_script("bench_fast_library.py")
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "not installed" in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr and done.stdout == ""


CAPTURE = """
import argparse, runpy, sys
def capture(self, args=None, namespace=None):
    for a in self._actions:
        if not isinstance(a, argparse._HelpAction) and not a.help:
            print("no help:", "/".join(a.option_strings) or a.dest)
        elif a.option_strings and a.default not in (None, False, [], argparse.SUPPRESS) and "default" not in a.help:
            print("default not stated:", "/".join(a.option_strings))
    raise SystemExit(0)
argparse.ArgumentParser.parse_args = capture
sys.argv = [sys.argv[1]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "bench").glob("*.py") if p.name != "gpu_required.py"))
def test_every_bench_option_is_explained_with_its_default(script):
    """--help of each bench/ script explains every option and states every default (about 40 options had no text, or
    no default, before)."""
    done = subprocess.run([sys.executable, "-c", CAPTURE, str(ROOT / "bench" / script)], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr


def test_the_gpu_benchmarks_refuse_bad_sizes_and_counts_before_looking_for_a_gpu():
    """bench_ntt's --sizes and bench_prove's counts are usage errors (exit 2) on any machine, not a ValueError, a
    StatisticsError after the runs, or a timing record with one case twice."""
    from conftest import assert_usage_errors

    assert_usage_errors("bench_ntt.py", [
        (["t.md", "--sizes", "24,x"], "--sizes: expected comma-separated integers"),
        (["t.md", "--sizes", "24,24"], "--sizes: distinct log2 sizes in 1..27"),
        (["t.md", "--sizes", "28"], "--sizes: distinct log2 sizes in 1..27"),
    ])
    assert_usage_errors("bench_prove.py", [(["--runs", "0"], "--runs and --circuits must be at least 1"),
                                           (["--log-n", "28"], "--log-n in 2..27")])
    assert_usage_errors("probe_fixed_base.py", [(["--md", "/nonexistent-folder/t.md"],
                                                 "--md: the folder /nonexistent-folder does not exist")])
