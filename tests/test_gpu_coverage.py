"""Coverage of the GPU code in a conformance run (conformance/gpu_coverage.py), on the CPU: the kernel
parser on the real sources, the mapping of recorded launches to kernels, the allow-list, the gate's
verdict, line coverage and the report's section. The recording itself runs on the device
(`python -m conformance run --coverage`); here launches are recorded through gpu.device.launch with a
stand-in kernel object."""
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import gpu_coverage as gc
from conformance.fingerprint import GATE_REPORT
from conformance.sources import fingerprint
from conformance.gpu_coverage import ALLOWLIST, KernelParseError, UnlaunchedKernelsError
from gpu import device
from reference.errors import InvalidInputError

REPO_ROOT = Path(__file__).resolve().parent.parent

EXPECTED_KERNELS = {
    "assemble.cu": ["linear_combination_g1", "linear_combination_g2"],
    "batch_add.cu": ["batch_chunk_keys", "batch_add_chunks_g1", "batch_add_chunks_g2", "batch_patterns",
                     "pattern_row_sums_g1", "pattern_row_sums_g2", "batch_add_finish_g1", "batch_add_finish_g2",
                     "bitmap_popcount", "sum_groups_g1", "sum_groups_g2"],
    "evaluate.cu": ["evaluate_rows", "first_unsatisfied_rows"],
    "field.cuh": ["fr_mul_chain", "fq_mul_chain", "fr_to_mont", "fr_from_mont", "fq_to_mont", "fq_from_mont",
                  "field_op_fr", "field_op_fq"],
    "keygen.cu": ["qap_pieces", "qap_columns", "fr_combine", "fixed_base_g1", "fixed_base_g2"],
    "msm.cu": ["msm_digits", "msm_scatter", "msm_piece_count", "msm_piece_keys", "msm_piece_sum_g1", "msm_piece_sum_g2",
               "msm_bucket_sum_g1", "msm_bucket_sum_g2", "msm_window_segments_g1", "msm_window_segments_g2",
               "msm_combine_g1", "msm_combine_g2", "sum_groups_g1", "sum_groups_g2", "progression_points_g1",
               "progression_points_g2"],
    "ntt.cu": ["ntt_pass_grouped", "ntt_pass", "ntt_pass_fused", "fr_powers", "fr_scale_table", "fr_mul_sub"],
}
"""The `.entry` symbols of the PTX that nvcc -arch=sm_90 --ptx makes of each .cu file (field.cuh with
FIELD_KERNELS defined), listed by hand: 50 kernels (sum_groups_g1 and _g2 are in msm.cu and batch_add.cu both)."""


# ---------------------------------------------------------------------------------------------
# Kernels defined


def test_parser_names_every_kernel_of_the_real_sources():
    assert gc.defined_kernels() == EXPECTED_KERNELS
    assert len(gc.kernel_ids(gc.defined_kernels())) == 50


def test_parser_reads_declarations_not_comments_or_macro_definitions():
    source = '''
    // extern "C" __global__ void in_a_comment(int x) {}
    /* EC_KERNEL(in_a_block_comment, (int x), (x)) */
    #define MY_KERNEL(name) extern "C" __global__ void name(int x) { } \\
        EC_KERNEL(in_a_continued_define, (int x), (x))
    extern "C" __global__ void __launch_bounds__(256) plain(int x) {}
    EC_KERNEL_G1_G2(pair, (const unsigned int* in), (EC_TID, in))
    EC_KERNEL_G2(second, (int x), (x))
    EC_GLOBAL direct(int x) {}
    '''
    assert gc.kernels_in_source(source) == ["plain", "pair_g1", "pair_g2", "second_g2", "direct"]


@pytest.mark.parametrize("source", [
    "__global__ void mangled(int x) {}",  # not extern "C": a kernel the parser could not name
    'extern "C" __global__ int not_void(int x) {}',
    "EC_KERNEL_G1_G2((parenthesised), (int x), (x))",
    "EC_KERNEL_G3(unknown_macro, (int x), (x))",
])
def test_parser_refuses_a_kernel_it_cannot_name(source):
    with pytest.raises(KernelParseError):
        gc.kernels_in_source(source, "x.cu")


# ---------------------------------------------------------------------------------------------
# Launches


def test_device_launch_records_only_while_recording(monkeypatch):
    class StandIn:
        """A kernel as RawModule.get_function hands it out: the module's source and the kernel's name."""

        def __init__(self, code, name):
            self.code, self.name, self.calls = code, name, 0

        def __call__(self, grid, block, args, shared_mem=0):
            self.calls += 1

    monkeypatch.setattr(device, "launch_check", lambda what, sync=None: None)
    before, after = StandIn("source A", "k1"), StandIn("source B", "k2")
    device.launch(before, 1, 1, (), "before")
    try:
        launches = device.record_launches()
        device.launch(StandIn("source A", "k1"), 2, 32, (), "first")
        device.launch(StandIn("source A", "k1"), 1, 32, (), "again")
        device.launch(StandIn("source B", "k3"), 1, 32, (), "other")
    finally:
        device.stop_recording_launches()
    device.launch(after, 1, 1, (), "after")
    assert launches == {("source A", "k1"), ("source B", "k3")}
    assert before.calls == after.calls == 1 and device._launches is None


def test_launches_map_to_the_file_that_defines_the_kernel():
    msm, batch_add = device._module_source(("msm.cu",)), device._module_source(("batch_add.cu",))
    field_kernels = "// headers sha256 0\n#define FIELD_KERNELS\n#include \"field.cuh\"\n"  # gpu/field.py's source
    test_kernel = '// headers sha256 0\nextern "C" __global__ void probe(int x) {}\n'
    launches = {(msm, "sum_groups_g1"), (batch_add, "sum_groups_g1"), (batch_add, "bitmap_popcount"),
                (field_kernels, "fr_to_mont"), (test_kernel, "probe"), (msm, "ntt_pass")}
    launched, others = gc.launched_kernel_ids(launches, gc.defined_kernels())
    assert launched == {"msm.cu:sum_groups_g1", "batch_add.cu:sum_groups_g1", "batch_add.cu:bitmap_popcount", "field.cuh:fr_to_mont"}
    assert others == {"probe", "ntt_pass"}


def test_no_gpu_module_but_device_builds_kernels_itself():
    """Every kernel comes from device.load_module / compile_source (run through device.launch) or device.fused
    (which records its calls the same way): no other module of gpu/ makes CuPy kernels of its own."""
    builders = ("RawModule(", "RawKernel(", "ElementwiseKernel(", "ReductionKernel(", "cupy.fuse", "@fuse")
    offenders = [
        f"{path.name}: {b}" for path in sorted((REPO_ROOT / "gpu").glob("*.py")) if path.name != "device.py"
        for b in builders if b in path.read_text()
    ]
    assert offenders == []


def test_importing_the_conformance_command_does_not_import_gpu():
    """Line coverage starts when `run` begins; a gpu/ module imported before that would count its
    module-level lines as not run."""
    code = "import sys, conformance.__main__; print(sorted(m for m in sys.modules if m == 'gpu' or m.startswith('gpu.')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(REPO_ROOT), "PATH": ""})
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------------------------------
# Allow-list


def test_the_committed_allowlist_names_real_kernels_with_reasons():
    allowed = gc.load_allowlist(REPO_ROOT / ALLOWLIST, gc.kernel_ids(gc.defined_kernels()))
    assert "msm.cu:msm_digits" not in allowed
    assert all(reason.strip() for reason in allowed.values())


def test_the_allowlist_holds_exactly_what_the_recorded_gate_left_unlaunched():
    """No stale entry: every allow-listed kernel went unlaunched in the committed gate run, and it launched all others."""
    kernels = json.loads((REPO_ROOT / GATE_REPORT).read_text())["coverage"]["kernels"]
    allowed = gc.load_allowlist(REPO_ROOT / ALLOWLIST, gc.kernel_ids(gc.defined_kernels()))
    assert set(kernels["never_launched"]) == set(allowed)
    assert len(kernels["launched"]) + len(allowed) == kernels["defined"] == len(gc.kernel_ids(gc.defined_kernels()))


KNOWN = ["msm.cu:msm_digits", "ntt.cu:ntt_pass"]


@pytest.mark.parametrize("text, problem", [
    ('[never_launched]\n"msm.cu:msm_digits" = ""\n', "msm.cu:msm_digits: needs a reason"),
    ('[never_launched]\n"msm.cu:msm_digits" = "   "\n', "msm.cu:msm_digits: needs a reason"),
    ('[never_launched]\n"msm.cu:msm_digits" = 3\n', "msm.cu:msm_digits: needs a reason"),
    ('[never_launched]\n"msm_digits" = "no file"\n', "msm_digits: no such kernel"),
    ('[never_launched]\n"msm.cu:msm_digitz" = "typo"\n', "msm.cu:msm_digitz: no such kernel"),
    ('[allowed]\n"msm.cu:msm_digits" = "other table"\n', "must hold only the table [never_launched]"),
    ('never_launched = "x"\n', "must hold only the table [never_launched]"),
    ('[never_launched\n', "not valid TOML"),
])
def test_allowlist_refuses(tmp_path, text, problem):
    path = tmp_path / "allow.toml"
    path.write_text(text)
    with pytest.raises(InvalidInputError) as caught:
        gc.load_allowlist(path, KNOWN)
    assert problem in str(caught.value)


def test_allowlist_reads_reasons_and_refuses_a_missing_file(tmp_path):
    path = tmp_path / "allow.toml"
    path.write_text('[never_launched]\n"ntt.cu:ntt_pass" = "  a reason  "\n')
    assert gc.load_allowlist(path, KNOWN) == {"ntt.cu:ntt_pass": "a reason"}
    with pytest.raises(InvalidInputError, match="missing"):
        gc.load_allowlist(tmp_path / "absent.toml", KNOWN)


# ---------------------------------------------------------------------------------------------
# Verdict and report


def _section(allowed):
    kernels = gc.kernel_section(["a.cu:k1", "a.cu:k2", "b.cu:k3"], {"a.cu:k1", "b.cu:k3"}, {"probe"}, allowed)
    lines = {"tool": "coverage 7", "statements": 7, "run": 4, "share": 4 / 7, "imported_before_start": [],
             "files": {"gpu/mod.py": {"statements": 5, "run": 4, "not_run": "4"}, "gpu/other.py": {"statements": 2, "run": 0, "not_run": "1-2"}}}
    return {"kernels": kernels, "lines": lines}


def test_kernel_section_lists_the_kernels_never_launched():
    kernels = _section({"a.cu:k2": "why", "b.cu:k3": "stale"})["kernels"]
    assert kernels == {
        "defined": 3,
        "launched": ["a.cu:k1", "b.cu:k3"],
        "never_launched": {"a.cu:k2": "why"},
        "allowlisted_but_launched": ["b.cu:k3"],
        "launched_outside_kernel_dir": ["probe"],
    }


def test_gate_refuses_a_kernel_never_launched_unless_allowlisted():
    with pytest.raises(UnlaunchedKernelsError) as caught:
        gc.check_gate(_section({}))
    assert caught.value.kernels == ["a.cu:k2"] and "a.cu:k2" in str(caught.value)
    gc.check_gate(_section({"a.cu:k2": "why"}))  # allow-listed: no error


def test_record_gate_refuses_a_passing_run_with_an_unlisted_kernel(tmp_path, monkeypatch, capsys):
    import conformance.__main__ as cli

    monkeypatch.setattr(cli, "REPO_ROOT", tmp_path)
    messages = []
    assert cli._record_gate({"result": "pass", "coverage": _section({})}, fingerprint(), messages.append) is False
    assert not (tmp_path / GATE_REPORT).exists()
    err = capsys.readouterr().err
    assert err.startswith("error: --record-gate: 1 kernel(s)") and "never launched" in err and "a.cu:k2" in err
    assert messages[-1] == f"not recording {GATE_REPORT}"


def _document(coverage):
    from conformance.report import RunInfo, report_document

    info = RunInfo(command="python -m conformance run --coverage", mode="isolated", prefer_oracle=False, phases=("ntt_h",),
                   backends={}, gpu_fingerprint={"sha256": "0" * 64, "files": {}}, coverage=coverage)
    return report_document([], info)


def test_report_renders_the_coverage_section():
    from conformance.report import markdown_text, terminal_text

    document = _document(_section({"a.cu:k2": "bench only", "b.cu:k3": "stale"}))
    markdown = markdown_text(document)
    assert "kernels launched 2 / 3 defined in gpu/kernels/; lines of gpu/*.py run 4 / 7 (57.1%)" in markdown
    assert "| a.cu:k2 | bench only |" in markdown and "| gpu/other.py | 0 | 2 | 1-2 |" in markdown
    assert "in conformance/kernel_allowlist.toml but launched (remove them): b.cu:k3" in markdown
    unlisted = _document(_section({}))
    assert "| a.cu:k2 | **not allow-listed** |" in markdown_text(unlisted)
    assert "never launched and not in conformance/kernel_allowlist.toml: a.cu:k2" in terminal_text(unlisted)
    plain = _document(None)
    assert plain["coverage"] is None and "Coverage" not in markdown_text(plain) + terminal_text(plain)


# ---------------------------------------------------------------------------------------------
# Lines


MODULE = """def used():
    return 1


def unused():
    return 2


X = used()
"""


def test_line_coverage_counts_the_statements_that_ran(tmp_path):
    pytest.importorskip("coverage")
    package = tmp_path / "gpu"
    package.mkdir()
    (package / "mod.py").write_text(MODULE)
    (package / "other.py").write_text("A = 1\nB = 2\n")  # never imported
    cov = gc.start_line_coverage(package)
    try:
        spec = importlib.util.spec_from_file_location("coverage_probe_mod", package / "mod.py")
        spec.loader.exec_module(importlib.util.module_from_spec(spec))
    finally:
        cov.stop()
    lines = gc.line_section(cov, package)
    assert lines["files"] == {"gpu/mod.py": {"statements": 5, "run": 4, "not_run": "6"}, "gpu/other.py": {"statements": 2, "run": 0, "not_run": "1-2"}}
    assert (lines["statements"], lines["run"]) == (7, 4) and lines["share"] == pytest.approx(4 / 7)


def test_run_with_coverage_reports_the_section(tmp_path):
    """--coverage on a machine without a GPU: nothing launched, every kernel not allow-listed listed."""
    pytest.importorskip("coverage")
    from conformance.__main__ import main
    from reference.cli import run_main
    from vectors.bundled import DATA_DIR

    argv = ["run", str(DATA_DIR / "porep-log03.json"), "--backends", "reference", "--phases", "ntt_h", "--coverage",
            "--report", str(tmp_path), "--quiet"]
    assert run_main(main, argv) == 0
    coverage = json.loads((tmp_path / "report.json").read_text())["coverage"]
    allowed = gc.load_allowlist(REPO_ROOT / ALLOWLIST, gc.kernel_ids(EXPECTED_KERNELS))
    assert coverage["kernels"]["launched"] == [] and coverage["kernels"]["defined"] == 50
    assert sorted(k for k, why in coverage["kernels"]["never_launched"].items() if why is None) == sorted(
        set(gc.kernel_ids(EXPECTED_KERNELS)) - set(allowed))
    assert coverage["lines"]["statements"] > 0 and "gpu/msm.py" in coverage["lines"]["files"]
    assert "## Coverage of the GPU code" in (tmp_path / "report.md").read_text()
    assert device._launches is None


def test_without_the_coverage_package_the_flag_that_needs_it_is_named(monkeypatch, capsys):
    from conformance.__main__ import main
    from reference.cli import run_main
    from vectors.bundled import DATA_DIR

    monkeypatch.setitem(sys.modules, "coverage", None)  # import coverage raises ImportError
    assert run_main(main, ["run", str(DATA_DIR / "porep-log03.json"), "--backends", "reference", "--coverage", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: --coverage: line coverage of gpu/*.py needs the coverage package")
    assert run_main(main, ["run", "--record-gate", "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: --record-gate: line coverage of gpu/*.py needs the coverage package")
    assert device._launches is None
