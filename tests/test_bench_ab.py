"""bench/ab.sh (and bench/ab_msm.sh, its msm form) without a GPU: two stub trees whose bench/bench_msm.py,
bench/bench_ntt.py or bench/bench_prove.py writes given rows (as timing records made by the script's own record
builder: timing_record, or bench_prove's timing_entries), the comparison's verdicts checked against the runs' values;
the usage errors. (On the device the trees are real checkouts.)"""
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import bench_module

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "ab_msm.sh"
AB = ROOT / "bench" / "ab.sh"
CEILINGS = {"copy": 4e12, "fr_mul": 1e11}
"""bench_ntt's ceilings (bytes/s, products/s), which only its table's floors use."""
ENV = {"date": "2026-12-03T09:00:00+00:00", "commit": "abc123def456",
       "gpu": {"name": "NVIDIA H200", "driver": "580.159.04", "cuda_driver_api": 13000, "cupy": "14.2.0"}}

STUB = """import sys
args = sys.argv[1:]
if "--compile-only" in args:
    sys.exit(0)
if not args[0].startswith("--"):  # bench_ntt.py's first argument: where its table goes
    open(args[0], "w").write("table")
open(args[args.index("--json") + 1], "w").write({document!r})
"""


def _tree(tmp_path: Path, name: str, rows: list, tool: str = "msm") -> Path:
    record = bench_module(f"bench_{tool}").timing_record(rows, f"bench/bench_{tool}.py", ENV)
    tree = tmp_path / name
    (tree / "bench").mkdir(parents=True)
    (tree / "bench" / f"bench_{tool}.py").write_text(STUB.format(document=json.dumps({"rows": rows, "timings": record})))
    return tree


def _msm(group, log2, runs):
    return {"op": "msm", "group": group, "log2": log2, "window_bits": 16, "median_ms": sorted(runs)[2], "times_ms": runs}


def test_ab_compares_the_two_trees_rows(tmp_path):
    a = _tree(tmp_path, "a", [_msm("g1", 24, [140.0, 140.2, 139.9, 140.1, 140.0]), _msm("g2", 24, [480.0] * 5)])
    b = _tree(tmp_path, "b", [_msm("g1", 24, [70.0, 70.1, 69.9, 70.0, 70.2]), _msm("g2", 24, [600.0, 601.0, 599.0, 600.0, 600.5])])
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(SCRIPT), str(out), str(a), str(b)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = {e["case"]: e["verdict"] for e in json.loads((out / "compare" / "comparison.json").read_text())["rows"]}
    assert verdicts == {"G1 2^24": "faster", "G2 2^24": "slower"}
    assert "cold compile, tree a" in (out / "compile_a.log").read_text()


def test_ab_refuses_missing_arguments(tmp_path):
    done = subprocess.run(["bash", str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stderr.startswith("usage: ab.sh")


def test_ab_compares_two_trees_ntt_rows_and_writes_each_table(tmp_path):
    """ab.sh ntt: bench_ntt.py gets its table's path first; ntt_h 10% slower with tight spreads is named slower."""
    bench = bench_module("bench_ntt")
    rows = lambda ntt_h_ms: [bench.row("forward", 27, 1, [50.0, 50.1, 49.9, 50.0, 50.05], 1e9, 1e9, CEILINGS),
                             bench.row("ntt_h", 27, 1, [ntt_h_ms * f for f in (1.0, 1.001, 0.999, 1.0, 1.0)], 1e9,
                                       1e9, CEILINGS)]
    trees = [_tree(tmp_path, name, rows(ms), "ntt") for name, ms in (("a", 370.0), ("b", 407.0))]
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(AB), "ntt", str(out), *map(str, trees)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = {(e["case"], e["phase"]): e["verdict"]
                for e in json.loads((out / "compare" / "comparison.json").read_text())["rows"]}
    assert verdicts == {("2^27 x1", "forward"): "within noise", ("2^27 x1", "ntt_h"): "slower"}
    assert (out / "ntt_a.md").read_text() == "table" and (out / "ntt_b.md").read_text() == "table"


def _prove_tree(tmp_path: Path, name: str, prep_runs_ms: list, assemble_runs_ms: list) -> Path:
    """A stub tree whose bench_prove.py writes one 2^20 x1 batch (bench_prove's own timing_entries): every phase at
    10 ms but prep and assemble at the given runs."""
    bench = bench_module("bench_prove")
    runs = {p: [10.0, 10.01, 9.99] for p in bench.PHASES}
    runs.update(prep=prep_runs_ms, assemble=assemble_runs_ms)
    batch = {"fits": True, "log_n": 20, "circuits": 1, "phase_runs_ms": runs, "upload_witnesses_ms": 5.0,
             "download_runs_ms": [0.2, 0.2, 0.2]}
    record = bench.timing_document("bench_prove", "bench/bench_prove.py", bench.timing_entries([{"batches": [batch]}],
                                                                                                 "seed"), ENV)
    tree = tmp_path / name
    (tree / "bench").mkdir(parents=True)
    (tree / "bench" / "bench_prove.py").write_text(STUB.format(document=json.dumps({"meta": {}, "sizes": [],
                                                                                    "timings": record})))
    return tree


def test_ab_compares_two_trees_whole_proofs_phase_by_phase(tmp_path):
    """ab.sh prove: bench_prove's phases compared one by one; prep halved is faster, assemble unchanged within noise."""
    trees = [_prove_tree(tmp_path, "a", [30.0, 30.1, 29.9], [23.3, 23.4, 23.2]),
             _prove_tree(tmp_path, "b", [15.0, 15.1, 14.9], [23.3, 23.2, 23.4])]
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(AB), "prove", str(out), *map(str, trees)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    verdicts = {e["phase"]: e["verdict"] for e in json.loads((out / "compare" / "comparison.json").read_text())["rows"]
                if e["case"] == "2^20 x1"}
    assert verdicts["prep"] == "faster"
    assert verdicts["assemble"] == "within noise" and verdicts["ntt_h"] == "within noise"
    assert (out / "prove_a.json").exists() and (out / "prove_b.json").exists()


def test_ab_refuses_an_unknown_tool(tmp_path):
    good = _tree(tmp_path, "good", [_msm("g1", 24, [1.0] * 5)])
    done = subprocess.run(["bash", str(AB), "fft", str(tmp_path / "out"), str(good), str(good)], capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 2 and "tool: 'fft' is not msm, ntt or prove" in done.stderr
    assert not (tmp_path / "out").exists()


def test_ab_refuses_a_tree_that_is_not_a_checkout_before_any_work(tmp_path):
    good = _tree(tmp_path, "good", [_msm("g1", 24, [1.0] * 5)])
    for trees in ([tmp_path / "missing", good], [good, tmp_path / "missing"]):
        done = subprocess.run(["bash", str(SCRIPT), str(tmp_path / "out"), *map(str, trees)], capture_output=True,
                              text=True, timeout=30)
        assert done.returncode == 2 and "missing: not a checkout of this repository" in done.stderr
        assert not (tmp_path / "out").exists()


ROUND_STUB = """import json, pathlib, sys
args = sys.argv[1:]
if "--compile-only" in args:
    sys.exit(0)
counter = pathlib.Path(__file__).with_name("round")
k = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(k + 1))
open(args[args.index("--json") + 1], "w").write(json.dumps({documents!r}[k]))
"""


def _rounds_tree(tmp_path: Path, name: str, runs_per_round: list) -> Path:
    """A stub tree whose bench_msm.py writes its k-th record on its k-th call (G1 2^24 with the given runs)."""
    bench = bench_module("bench_msm")
    documents = [{"timings": bench.timing_record([_msm("g1", 24, runs)], "bench/bench_msm.py", ENV)} for runs in runs_per_round]
    tree = tmp_path / name
    (tree / "bench").mkdir(parents=True)
    (tree / "bench" / "bench_msm.py").write_text(ROUND_STUB.format(documents=documents))
    return tree


def test_ab_abba_pools_each_trees_rounds_so_a_drift_in_the_call_is_noise_not_a_regression(tmp_path):
    """Every round 2 ms slower than the one before it (A 100, B 104, B 106, A 110 ms; the code unchanged): run once
    in the order A B, B is 'slower'; in the order A B B A each side pools to a median of 105 ms and the drift is
    within the noise rule. The pooled records hold both rounds' runs in order."""
    def trees(folder):
        return (_rounds_tree(folder, "a", [[100.0] * 5, [110.0] * 5]), _rounds_tree(folder, "b", [[104.0] * 5, [106.0] * 5]))

    verdicts = {}
    for order in ("ab", "abba"):
        out = tmp_path / order / "out"
        done = subprocess.run(["bash", str(AB), "msm", str(out), *map(str, trees(tmp_path / order))],
                              env={**os.environ, "AB_ORDER": order}, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        [row] = json.loads((out / "compare" / "comparison.json").read_text())["rows"]
        verdicts[order] = row["verdict"]
    assert verdicts == {"ab": "slower", "abba": "within noise"}
    pooled = json.loads((tmp_path / "abba" / "out" / "msm_a.json").read_text())
    [entry] = pooled["entries"]
    assert entry["runs"] == [0.1] * 5 + [0.11] * 5 and entry["median"] == pytest.approx(0.105)
    assert [Path(r["path"]).name for r in pooled["pooled_from"]] == ["msm_a1.json", "msm_a2.json"]
    assert all((tmp_path / "abba" / "out" / f"msm_{r}.json").exists() for r in ("a1", "b1", "b2", "a2"))


ORDER_STUB = """import json, pathlib, sys
args = sys.argv[1:]
if "--compile-only" in args:
    sys.exit(0)
here = pathlib.Path(__file__).resolve().parents[1]
log_path = here.parent / "order.log"
earlier = log_path.read_text().split().count(here.name) if log_path.exists() else 0
with open(log_path, "a") as log:
    log.write(here.name + " " + pathlib.Path(args[args.index("--json") + 1]).name + "\\n")
document = {document!r}
if earlier:  # a tree's second round: each run 1 ns later, as a real second round differs (pool refuses the same runs)
    for entry in document["timings"]["entries"]:
        entry["runs"] = [run + 1e-9 for run in entry["runs"]]
        entry["median"], entry["min"], entry["max"] = (x + 1e-9 for x in (entry["median"], entry["min"], entry["max"]))
open(args[args.index("--json") + 1], "w").write(json.dumps(document))
"""


def _ordered_tree(tmp_path: Path, name: str, runs: list) -> Path:
    """A stub tree whose bench_msm.py writes G1 2^24 with the given runs and appends its tree and record name to
    tmp_path/order.log, so that a test reads the order of the rounds."""
    document = {"timings": bench_module("bench_msm").timing_record([_msm("g1", 24, runs)], "bench/bench_msm.py", ENV)}
    tree = tmp_path / name
    (tree / "bench").mkdir(parents=True)
    (tree / "bench" / "bench_msm.py").write_text(ORDER_STUB.format(document=document))
    return tree


@pytest.mark.parametrize("order, rounds", [
    ("ab", ["base msm_a.json", "half msm_b.json", "same msm_c.json"]),
    ("abba", ["base msm_a1.json", "half msm_b1.json", "same msm_c1.json", "same msm_c2.json", "half msm_b2.json",
              "base msm_a2.json"]),
])
def test_ab_compares_each_further_tree_with_the_first_in_one_call(tmp_path, order, rounds):
    """Three trees: the base at 100 ms, one at 50 ms, one at the base's 100 ms. Each runs in the order AB_ORDER says
    (abba: forth and back, each tree's rounds pooled), and each is compared with the first: B in compare/ (faster),
    C in compare_c/ (within noise); options after the trees reach every tree's script."""
    runs = {name: [ms, ms * 1.001, ms * 0.999, ms, ms] for name, ms in (("base", 100.0), ("half", 50.0), ("same", 100.0))}
    runs["same"][0] += 1e-6  # the base's times from another run, 1 ns apart (compare refuses a record's own runs)
    trees = [_ordered_tree(tmp_path, name, times) for name, times in runs.items()]
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(AB), "msm", str(out), *map(str, trees), "--msm-sizes", "24"],
                          env={**os.environ, "AB_ORDER": order}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "order.log").read_text().splitlines() == rounds
    verdicts = {folder: [row["verdict"] for row in json.loads((out / folder / "comparison.json").read_text())["rows"]]
                for folder in ("compare", "compare_c")}
    assert verdicts == {"compare": ["faster"], "compare_c": ["within noise"]}


def test_ab_refuses_one_tree_or_more_than_eight_before_any_work(tmp_path):
    good = _tree(tmp_path, "good", [_msm("g1", 24, [1.0] * 5)])
    one = subprocess.run(["bash", str(AB), "msm", str(tmp_path / "out"), str(good), "--msm-sizes", "24"],
                         capture_output=True, text=True, timeout=30)
    assert one.returncode == 2 and one.stderr.startswith("error: trees: 1 given, a comparison needs 2")
    nine = subprocess.run(["bash", str(AB), "msm", str(tmp_path / "out"), *[str(good)] * 9], capture_output=True,
                          text=True, timeout=30)
    assert nine.returncode == 2 and nine.stderr.startswith("error: trees: 9 given, at most 8")
    assert not (tmp_path / "out").exists()


def test_ab_refuses_an_unknown_order(tmp_path):
    a = _tree(tmp_path, "a", [_msm("g1", 24, [1.0] * 5)])
    done = subprocess.run(["bash", str(AB), "msm", str(tmp_path / "out"), str(a), str(a)],
                          env={**os.environ, "AB_ORDER": "ba"}, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stderr.startswith("error: AB_ORDER: 'ba' is not ab or abba")


def test_device_session_refuses_an_unknown_step_before_running_any(tmp_path):
    """bench/device_session.sh (its steps run only on the device): a mistyped step, even after a good one, costs no
    device time: nothing runs, exit 2, the steps it has named."""
    done = subprocess.run(["bash", str(ROOT / "bench" / "device_session.sh"), str(tmp_path), "tests", "gates"],
                          capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("error: step: 'gates' is not one of: tests gate tests+gate seeded faults slow tail prove probes "
                           "coldstart\n")
    assert not any(tmp_path.iterdir())


def test_device_session_refuses_a_missing_output_folder_before_running_any(tmp_path):
    """No OUT_DIR, or one that is not a folder: one line on stderr, exit 2, no step run (each costs device time)."""
    script = str(ROOT / "bench" / "device_session.sh")
    none = subprocess.run(["bash", script], capture_output=True, text=True, timeout=30)
    assert (none.returncode, none.stdout) == (2, "") and none.stderr.startswith("usage: device_session.sh OUT_DIR")
    missing = subprocess.run(["bash", script, str(tmp_path / "missing"), "tests"], capture_output=True, text=True,
                             timeout=30)
    assert (missing.returncode, missing.stdout) == (2, "")
    assert missing.stderr.startswith(f"error: OUT_DIR: '{tmp_path / 'missing'}' is not a folder")


def test_device_session_probes_step_passes_every_probe_its_arguments(tmp_path):
    """The probes step's command lines (bench/device_session.sh) parse: here, without a device, every probe gets past
    its argument checks to the device check (its one-line GPU error, not a usage error, exit 2), so that none of them
    can spend a device call on a typo."""
    from gpu.device import GpuUnavailableError, require_device

    try:
        require_device()
        pytest.skip("a CUDA device is usable here: the probes would run")
    except GpuUnavailableError:
        pass
    import sys

    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", str(ROOT / "bench" / "device_session.sh"), str(tmp_path), "probes"], env=env,
                          capture_output=True, text=True, timeout=300)
    import tarfile

    assert sorted(p.name for p in tmp_path.iterdir()) == ["probes.tgz"]  # one file: a device call brings back eight
    with tarfile.open(tmp_path / "probes.tgz") as packed:
        logs = {m.name: packed.extractfile(m).read().decode() for m in packed.getmembers() if m.name.endswith(".log")}
    script = (ROOT / "bench" / "device_session.sh").read_text()
    listed = script.split("<<'PROBES'\n", 1)[1].split("\nPROBES\n", 1)[0].splitlines()  # one probe a line
    assert done.returncode == 1 and len(logs) == len(listed) == 6
    for name, text in logs.items():
        assert text.startswith("error: gpu: the GPU phases need a CUDA device"), name


NCU_SCRIPTS = [("ncu_ntt.sh", ["27"]), ("ncu_msm_scatter.sh", []), ("ncu_pipes.sh", ["24"]), ("ncu_batch_add.sh", [])]
"""The scripts that run Nsight Compute, with their arguments after OUT_DIR."""


@pytest.mark.parametrize("script, args", NCU_SCRIPTS)
def test_the_nsight_compute_scripts_check_their_arguments_and_name_a_missing_ncu(tmp_path, script, args):
    """The NCU_SCRIPTS: a usage error, a missing folder, a bad size and a machine without ncu (PATH without it, no
    /opt/nvidia/nsight-compute) each end in one line on stderr, exit 2, nothing written."""
    path = ROOT / "bench" / script

    def run(*argv):
        env = {"PATH": "/usr/bin:/bin"}
        return subprocess.run(["bash", str(path), *argv], capture_output=True, text=True, env=env, timeout=60)

    no_args = run()
    assert no_args.returncode == 2 and no_args.stderr.startswith(f"usage: {script}")
    missing = run(str(tmp_path / "missing"), *args)
    assert missing.returncode == 2 and missing.stderr.startswith("error: OUT_DIR: ")
    if script == "ncu_ntt.sh":
        bad = run(str(tmp_path), "5")
        assert bad.returncode == 2 and bad.stderr.startswith("error: LOG2: '5' is not an integer in 10..28")
    if script == "ncu_pipes.sh":
        bad = run(str(tmp_path), "5")
        assert bad.returncode == 2 and bad.stderr.startswith("error: MSM_LOG2: '5' is not an integer in 16..27")
    if (shutil.which("ncu", path="/usr/bin:/bin") or Path("/opt/nvidia/nsight-compute").exists()
            or Path("/usr/local/cuda/bin/ncu").exists()):
        pytest.skip("Nsight Compute is installed here: the scripts would run it")
    no_ncu = run(str(tmp_path), *args)
    assert no_ncu.returncode == 2 and no_ncu.stderr == "error: ncu: not on PATH nor in /opt/nvidia/nsight-compute\n"
    assert not any(tmp_path.iterdir())


def _run_with_fake_ncu(tmp_path, script, args, profile_run: str) -> subprocess.CompletedProcess:
    """bench/SCRIPT ARGS with an ncu on PATH that prints its version, and on every profiling run a pipe counter's name
    and then ``profile_run`` (shell lines: what the run prints and its exit)."""
    fake = tmp_path / "bin" / "ncu"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\n[ "$1" = --version ] && { echo "fake ncu"; exit 0; }\necho "sm__pipe_alu_cycles_active"\n'
                    + profile_run)
    fake.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    return subprocess.run(["bash", str(ROOT / "bench" / script), str(out), *args], capture_output=True, text=True,
                          env={"PATH": f"{fake.parent}:/usr/bin:/bin"}, cwd=ROOT, timeout=60)


@pytest.mark.parametrize("script, args", NCU_SCRIPTS)
def test_the_nsight_compute_scripts_fail_when_a_profile_fails(tmp_path, script, args):
    """A profile that fails (here an ncu on PATH that prints its version, and on every run a pipe counter's name and a
    line naming the kernels before it fails) is the script's failure: its exit status is not 0, so a device call's log
    cannot read as a finished profile. The scripts find ncu through bench/ncu_common.sh."""
    done = _run_with_fake_ncu(tmp_path, script, args, 'echo "ntt_pass msm_scatter"\nexit 3\n')
    assert "fake ncu" in done.stdout and "rc=3" in done.stdout
    assert done.returncode != 0


@pytest.mark.parametrize("script, args", NCU_SCRIPTS)
def test_the_nsight_compute_scripts_fail_when_ncu_profiled_no_kernel(tmp_path, script, args):
    """ncu exits 0 when no launch matched its --kernel-name: each script fails then (only ncu_batch_add.sh did), with
    the one check of bench/ncu_common.sh (require_profiled) naming the profile that holds no launch."""
    done = _run_with_fake_ncu(tmp_path, script, args, 'echo "ID,Kernel Name,Metric"\nexit 0\n')
    assert "fake ncu" in done.stdout and "rc=0" in done.stdout
    assert done.returncode != 0 and "launch profiled" in done.stderr, done.stderr[-400:]


def device_session_stub(tmp_path, fail: bool, prove_fails: bool | None = None, steps=("gate", "faults")):
    """A copy of the repository's device_session.sh in a bare tree with committed-looking (old, passing) reports, and
    a python3 on PATH standing in for the gate, the prover and the fault table: failing before it records anything
    (fail) or writing fresh reports and passing; the prover fails with them unless prove_fails says."""
    import time

    tree = tmp_path / "tree"
    (tree / "bench").mkdir(parents=True)
    shutil.copy(ROOT / "bench" / "device_session.sh", tree / "bench")
    reports = tree / "conformance" / "reports"
    (reports / "faults-gpu-reports" / "old").mkdir(parents=True)
    for name in ("gpu-latest.json", "gpu-latest.md", "faults-gpu.md", "faults-gpu-reports/old/report.json"):
        (reports / name).write_text("OLD PASS\n")
        os.utime(reports / name, (time.time() - 3600,) * 2)
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    code = 1 if fail else 0
    fake.write_text(f'''#!/bin/bash
case "$*" in
  *"conformance run"*) [ {code} = 0 ] && echo NEW > conformance/reports/gpu-latest.json && echo NEW > conformance/reports/gpu-latest.md; exit {code} ;;
  *"gpu prove"*) echo "prove output"; exit {int(fail if prove_fails is None else prove_fails)} ;;
  *"conformance faults"*) [ {code} = 0 ] && mkdir -p conformance/reports/faults-gpu-reports/new && echo NEW > conformance/reports/faults-gpu-reports/new/report.json && echo "NEW TABLE" > conformance/reports/faults-gpu.md; exit {code} ;;
esac
exit 9
''')
    fake.chmod(0o755)
    out = tmp_path / "out"
    out.mkdir()
    env = {"PATH": f"{fake.parent}:/usr/bin:/bin"}
    return subprocess.run(["bash", "bench/device_session.sh", str(out), *steps], capture_output=True,
                          text=True, env=env, cwd=tree, timeout=60), out


def test_device_session_never_passes_off_an_earlier_runs_reports_nor_a_crashed_prover(tmp_path):
    """gate and faults steps whose commands fail before recording: exit 1, and neither the committed (old, passing)
    gpu-latest.* and faults-gpu.md are copied or shown as this run's, and the crashed `gpu prove` counts (its pipeline's
    status was discarded, and the old reports were copied and printed)."""
    done, out = device_session_stub(tmp_path, fail=True)
    assert done.returncode == 1
    assert sorted(p.name for p in out.iterdir()) == ["conformance.log", "faults.log"]
    assert "OLD PASS" not in done.stdout and "NO new gate report" in done.stdout and "NO new fault table" in done.stdout
    assert "per-phase breakdown (python3 -m gpu prove) FAILED" in done.stdout


def test_device_session_copies_the_reports_its_run_wrote(tmp_path):
    import tarfile

    done, out = device_session_stub(tmp_path, fail=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (out / "gpu-latest.json").read_text() == "NEW\n" and (out / "faults-gpu.md").read_text() == "NEW TABLE\n"
    assert "NEW TABLE" in done.stdout and "NO new" not in done.stdout
    with tarfile.open(out / "faults-gpu-reports.tgz") as packed:
        assert packed.getnames() == ["faults-gpu-reports/new/report.json"]  # this run's only


def test_device_session_gate_fails_when_only_the_prover_crashes(tmp_path):
    """The gate records, then `python3 -m gpu prove` (the per-phase breakdown, piped into tail and tee) crashes: the
    session exits 1 (the pipeline's status was discarded: exit 0)."""
    done, out = device_session_stub(tmp_path, fail=False, prove_fails=True, steps=("gate",))
    assert done.returncode == 1 and "per-phase breakdown (python3 -m gpu prove) FAILED" in done.stdout
    assert (out / "gpu-latest.json").read_text() == "NEW\n"


@pytest.mark.parametrize("rc, printed, expected", [(0, "result: PASS: none slower", 0),
                                                   (1, "result: FAIL: slower by more than 5%", 0),
                                                   (1, "result: INCOMPLETE: none of the 7 judged", 0),
                                                   (2, "error: baseline: not a timing record", 1),
                                                   (1, "Traceback (most recent call last):", 1),
                                                   (3, "", 1)])
def test_slowdown_example_fails_when_compare_gives_no_verdict(tmp_path, rc, printed, expected):
    """bench/slowdown_example.sh: a verdict of compare (PASS exit 0, FAIL or INCOMPLETE exit 1) is the example's
    expected outcome, exit 0; bad input (exit 2), a crash or another status fails it (it exited 0 whatever compare
    did)."""
    fake = tmp_path / "bin" / "python3"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/bash\ncase "$*" in *"conformance compare"*) echo "{printed}"; exit {rc} ;; esac\nexit 0\n')
    fake.chmod(0o755)
    done = subprocess.run(["bash", str(ROOT / "bench" / "slowdown_example.sh"), str(tmp_path / "out")],
                          capture_output=True, text=True, env={"PATH": f"{fake.parent}:/usr/bin:/bin"}, cwd=ROOT,
                          timeout=60)
    assert done.returncode == expected, done.stdout + done.stderr
    assert f"compare exit status: {rc}" in done.stdout
