"""The CPU benchmarks of bench/ answer --help, and refuse a missing prerequisite in one line, not a traceback."""
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import bench_module, run_bench_script

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


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "bench").glob("*.py")
                                          if p.name not in ("gpu_required.py", "output_folders.py")))  # no parser
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


OUTPUTS = {
    "bench_ntt.py": ("output", "--json"),
    "bench_prove.py": ("--json",),
    "bench_msm.py": ("--json",),
    "kernel_times.py": ("--json", "--md"),
    "sppark_ratio.py": ("--json", "--md"),
    "probe_prep.py": ("--json",),
    **{f"probe_{name}.py": ("--json", "--md")
       for name in ("affine_pieces", "batched_affine", "circuit_patterns", "fixed_base", "fp64_madd", "fp64_pieces",
                    "fp64_product", "pipes", "segment_buckets", "sort_overlap", "window_kernels")},
}
"""The scripts that write files after their runs (bench/output_folders.py), and their outputs ('output': bench_ntt's
positional markdown file)."""


def test_the_output_table_names_every_script_that_declares_outputs():
    """A script that declares its outputs through bench/output_folders.py (or probe_fixed_base's parse_run_arguments)
    joins OUTPUTS, so that the test below checks it too."""
    declares = ("add_output_arguments(", "parse_run_arguments(")  # the latter: probe_fixed_base's, which calls it
    declaring = {p.name for p in (ROOT / "bench").glob("*.py")
                 if p.name != "output_folders.py" and any(call in p.read_text() for call in declares)}
    assert declaring == set(OUTPUTS)


@pytest.mark.parametrize("under, problem", [("", "{file} exists and is not a folder"),
                                            ("sub/out", "{file} is not a folder")])
def test_bench_staging_refuses_a_file_in_place_of_its_output_folder_before_any_work(tmp_path, under, problem):
    """--out is made if missing; a file in its place, or above it, is a usage error (exit 2) before the device work,
    not an OSError after it."""
    file = tmp_path / "file"
    file.write_text("x")
    done = run_bench_script("bench_staging.py", "--out", str(file / under) if under else str(file))
    assert (done.returncode, done.stdout) == (2, "") and done.stderr.endswith(
        f"error: argument --out: {problem.format(file=file)}\n"), done.stderr[-300:]


def test_sppark_ratio_requires_both_outputs():
    """Its tables are its only result: without --md or --json it is a usage error, not a None written to."""
    for given, missing in (("--json", "--md"), ("--md", "--json")):
        done = run_bench_script("sppark_ratio.py", "--sppark", "none.log", given, "out.x")
        assert done.returncode == 2 and f"the following arguments are required: {missing}" in done.stderr


def outputs_argv(script: str, tmp_path: Path, special: str, special_path: Path) -> list[str]:
    """The script's arguments with every output of OUTPUTS[script] in tmp_path but ``special`` at ``special_path``
    (sppark_ratio's required input named too)."""
    argv = ["--sppark", str(tmp_path / "none.log")] if script == "sppark_ratio.py" else []
    for output in OUTPUTS[script]:
        path = str(special_path if output == special else tmp_path / f"out{output.lstrip('-')}")
        argv += [path] if output == "output" else [output, path]
    return argv


@pytest.mark.parametrize("script, missing", [(s, o) for s, outputs in OUTPUTS.items() for o in outputs])
def test_an_output_in_a_missing_folder_is_refused_before_any_work(tmp_path, script, missing):
    """An output whose folder does not exist is a usage error (exit 2) when the arguments are parsed, with
    the other outputs in a folder that exists: nothing printed, nothing written (they failed at the end, after the
    runs' device time, or wrote the other output first)."""
    folder = tmp_path / "missing"
    done = run_bench_script(script, *outputs_argv(script, tmp_path, missing, folder / f"out{missing.lstrip('-')}"))
    error = f"error: argument {missing}: the folder {folder} does not exist\n"
    assert (done.returncode, done.stdout) == (2, "") and done.stderr.endswith(error), done.stderr[-400:]
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("script, output", [(s, o) for s, outputs in OUTPUTS.items() for o in outputs])
def test_an_output_that_is_a_folder_is_refused_before_any_work(tmp_path, script, output):
    """An output path naming an existing folder is a usage error when parsed (the write failed at the end, after the
    runs' device time), with the other outputs fine: nothing printed, nothing written."""
    folder = tmp_path / "a_folder"
    folder.mkdir()
    done = run_bench_script(script, *outputs_argv(script, tmp_path, output, folder))
    error = f"error: argument {output}: {folder} is a folder, not a file\n"
    assert (done.returncode, done.stdout) == (2, "") and done.stderr.endswith(error), done.stderr[-400:]
    assert [p.name for p in tmp_path.iterdir()] == ["a_folder"] and not any(folder.iterdir())


@pytest.mark.parametrize("kind, below", [("output_folder", "new/out"), ("output_path", "out.json")])
def test_an_output_in_a_folder_that_cannot_be_written_to_is_refused(tmp_path, monkeypatch, kind, below):
    """output_folder asks the nearest existing folder above the output, output_path the output file's folder, whether
    it can be written to (os.access, made to say no here: root may write anywhere), and refuses it by name."""
    import argparse

    output_folders = bench_module("output_folders")
    asked = []
    monkeypatch.setattr(output_folders.os, "access", lambda path, mode: asked.append(path) and False)
    with pytest.raises(argparse.ArgumentTypeError, match=f"^the folder {tmp_path} cannot be written to$"):
        getattr(output_folders, kind)(str(tmp_path / below))
    assert asked == [tmp_path]


def test_an_existing_output_file_that_cannot_be_written_to_is_refused(tmp_path, monkeypatch):
    """output_path asks an existing output file whether it can be written to (os.access, made to say no for it only:
    root may write anywhere) and refuses it by name; a new file in a writable folder passes."""
    import argparse

    output_folders = bench_module("output_folders")
    existing = tmp_path / "out.json"
    existing.write_text("{}")
    monkeypatch.setattr(output_folders.os, "access", lambda path, mode: Path(path) != existing)
    with pytest.raises(argparse.ArgumentTypeError, match=f"^{existing} exists and cannot be written to$"):
        output_folders.output_path(str(existing))
    assert output_folders.output_path(str(tmp_path / "new.json")) == tmp_path / "new.json"
