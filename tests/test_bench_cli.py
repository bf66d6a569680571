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


def test_the_bench_scripts_read_plain_ascii_decimals_only():
    """int() took '\u0662' and ' +1_0 ' (10) where the toolkit's own commands refuse them (reference/cli.py
    CANONICAL_TYPES); the bench scripts' parser now registers the same types."""
    from conftest import assert_usage_errors

    assert_usage_errors("bench_prove.py", [(["--runs", "\u0662"], "--runs: expected a decimal integer"),
                                           (["--circuits", " +1_0 "], "--circuits: expected a decimal integer")])
    assert_usage_errors("bench_msm.py", [(["--repeats", "1_0"], "--repeats: expected a decimal integer"),
                                         (["--budget-s", "1e3"], "--budget-s: expected a decimal number")])


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
    assert (done.returncode, done.stdout) == (2, "") and done.stderr == (
        f"error: --out: {problem.format(file=file)}\n"), done.stderr[-300:]


def test_sppark_ratio_requires_both_outputs():
    """Its tables are its only result: without --md or --json it is a usage error, not a None written to."""
    for given, missing in (("--json", "--md"), ("--md", "--json")):
        done = run_bench_script("sppark_ratio.py", "--sppark", "none.log", given, "out.x")
        assert done.returncode == 2 and done.stderr == f"error: {missing}: is required\n"


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
    error = f"error: {missing}: the folder {folder} does not exist\n"
    assert (done.returncode, done.stdout) == (2, "") and done.stderr == error, done.stderr[-400:]
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("script, output", [(s, o) for s, outputs in OUTPUTS.items() for o in outputs])
def test_an_output_that_is_a_folder_is_refused_before_any_work(tmp_path, script, output):
    """An output path naming an existing folder is a usage error when parsed (the write failed at the end, after the
    runs' device time), with the other outputs fine: nothing printed, nothing written."""
    folder = tmp_path / "a_folder"
    folder.mkdir()
    done = run_bench_script(script, *outputs_argv(script, tmp_path, output, folder))
    error = f"error: {output}: {folder} is a folder, not a file\n"
    assert (done.returncode, done.stdout) == (2, "") and done.stderr == error, done.stderr[-400:]
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


def _prove_sizes(*batches):
    """bench_prove's sizes with one size, 2^27, and these batches: (circuits, None) did not fit, else its checks' oks."""
    rows = []
    for circuits, oks in batches:
        if oks is None:
            rows.append({"log_n": 27, "circuits": circuits, "fits": False, "largest": 6})
        else:
            rows.append({"log_n": 27, "circuits": circuits, "fits": True,
                         "checks": [{"circuit": k, "check": f"c{i}", "ok": ok} for i, ok in enumerate(oks)
                                    for k in sorted({0, circuits - 1})]})
    return [{"log_n": 27, "batches": rows}]


def test_bench_prove_check_names_the_batch_that_was_not_run():
    """--log-n 27 --circuits 1 10 --check with x10 not fitting: the closing lines say x1 was checked and x10 not run
    (does not fit), and the verdict counts only the batch that ran (it said nothing of x10 before)."""
    bench = bench_module("bench_prove")
    lines, passed = bench.check_summary(_prove_sizes((1, [True, True]), (10, None)))
    assert passed
    assert lines == ["checks, per batch:", "  2^27 x1: checked circuits 0: 2 of 2 checks ok",
                     "  2^27 x10: not run (does not fit: largest batch 6): not checked",
                     "checks: every check passed in the 1 batch(es) that ran; not run, so not checked: "
                     "2^27 x10 (does not fit: largest batch 6)"]
    lines, passed = bench.check_summary(_prove_sizes((1, None), (10, None)))
    assert not passed and lines[-1].startswith("checks: FAIL: no batch fitted")
    lines, passed = bench.check_summary(_prove_sizes((1, [True]), (10, [True, False])))
    assert not passed and "  2^27 x10: checked circuits 0, 9: 2 of 4 checks ok" in lines
    unchecked = _prove_sizes((1, [True]))
    del unchecked[0]["batches"][0]["checks"]
    lines, passed = bench.check_summary(unchecked)
    assert not passed and "  2^27 x1: ran, NOT checked" in lines


def test_bench_prove_check_exit_status_and_output(monkeypatch, capsys):
    """main with the device work stood in: a batch that ran and passed with one not run exits 0 and prints x10 as not
    run; none run exits 1 with the reason on stderr."""
    import types

    bench = bench_module("bench_prove")
    pool = types.SimpleNamespace(free_all_blocks=lambda: None)
    cupy = types.SimpleNamespace(get_default_memory_pool=lambda: pool, cuda=types.SimpleNamespace(
        runtime=types.SimpleNamespace(getDeviceProperties=lambda d: {"name": b"Stand-in GPU"})))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    monkeypatch.setattr(bench, "require_gpu", lambda: None)
    monkeypatch.setattr(bench, "measured_commit", lambda: "abc")
    monkeypatch.setattr(bench, "gpu_sources", lambda: {})
    monkeypatch.setattr(bench, "build", lambda *a: {"summary": "s", "built_s": 0, "keygen_s": 0, "resident_bytes": 0})
    monkeypatch.setattr(bench, "print_table", lambda meta, sizes: None)
    for fits, code in (({1}, 0), (set(), 1)):
        batches = {c: _prove_sizes((c, [True] if c in fits else None))[0]["batches"][0] for c in (1, 10)}
        monkeypatch.setattr(bench, "run_batch", lambda built, c, runs, check, rng: batches[c])
        assert bench.main(["--log-n", "27", "--circuits", "1", "10", "--check"]) == code
        out, err = capsys.readouterr()
        assert "  2^27 x10: not run (does not fit: largest batch 6): not checked" in out
        assert ("checks: every check passed in the 1 batch(es) that ran" in out) == (code == 0)
        assert (err == "") == (code == 0) and ("no batch fitted" in err) == (code == 1)


def test_bench_prove_devices_compares_every_timed_runs_proofs(monkeypatch):
    """--devices said 'proofs identical' having compared the warm-up proofs only: a timed run whose proofs differ
    from the warm-up's is now an error."""
    bench = bench_module("bench_prove")
    monkeypatch.setattr(bench, "proof_to_json", lambda proof: {"proof": proof})
    calls = iter([(5.0, ["p"]), (4.0, ["p"]), (3.0, ["q"])])
    with pytest.raises(SystemExit, match="timed run 2's proofs differ from the warm-up run's"):
        bench.timed_and_compared(lambda on: next(calls), [0, 1], 2, "x")
    calls = iter([(5.0, ["p"]), (4.0, ["p"]), (3.0, ["p"])])
    assert bench.timed_and_compared(lambda on: next(calls), [0, 1], 2, "x") == ([4.0, 3.0], [{"proof": "p"}])


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "bench").glob("*.py")
                                          if p.name not in ("gpu_required.py", "output_folders.py", "probe_build.py")))  # no parser
def test_every_bench_script_refuses_a_bad_argument_in_one_error_line(script):
    """A bad argument printed argparse's usage text and 'script.py: error: ...' (several lines, not the toolkit's
    'error: <field>: <problem>'); now one line, exit 2, nothing on stdout, before any GPU is looked for."""
    done = run_bench_script(script, "--no-such-option")
    assert (done.returncode, done.stdout) == (2, ""), done.stderr[-400:]
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1 and "usage:" not in done.stderr, done.stderr
