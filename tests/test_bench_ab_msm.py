"""bench/ab_msm.sh without a GPU: two stub trees whose bench/bench_msm.py writes given rows (as timing records made by
bench_msm's own timing_record), the comparison's verdicts checked against the runs' values; the usage error. (On the
device the trees are real checkouts.)"""
import importlib.util
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "bench" / "ab_msm.sh"
ENV = {"date": "2026-12-03T09:00:00+00:00", "commit": "abc123def456",
       "gpu": {"name": "NVIDIA H200", "driver": "580.159.04", "cuda_driver_api": 13000, "cupy": "14.2.0"}}

STUB = """import sys
args = sys.argv[1:]
if "--compile-only" in args:
    sys.exit(0)
open(args[args.index("--json") + 1], "w").write({document!r})
"""


def _bench_msm():
    spec = importlib.util.spec_from_file_location("bench_msm", ROOT / "bench" / "bench_msm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(tmp_path: Path, name: str, rows: list) -> Path:
    document = {"header": {}, "rows": rows, "timings": _bench_msm().timing_record(rows, "bench/bench_msm.py", ENV)}
    tree = tmp_path / name
    (tree / "bench").mkdir(parents=True)
    (tree / "bench" / "bench_msm.py").write_text(STUB.format(document=json.dumps(document)))
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
    assert done.stderr.startswith("usage: ab_msm.sh")


def test_ab_refuses_a_tree_that_is_not_a_checkout_before_any_work(tmp_path):
    good = _tree(tmp_path, "good", [_msm("g1", 24, [1.0] * 5)])
    for trees in ([tmp_path / "missing", good], [good, tmp_path / "missing"]):
        done = subprocess.run(["bash", str(SCRIPT), str(tmp_path / "out"), *map(str, trees)], capture_output=True,
                              text=True, timeout=30)
        assert done.returncode == 2 and "missing: not a checkout of this repository" in done.stderr
        assert not (tmp_path / "out").exists()
