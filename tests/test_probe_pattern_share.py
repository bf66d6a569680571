"""bench/probe_pattern_share.py: BatchAdder with the pattern path forced on and off (0002's PATTERN_SHARE fit). Its
sums are compared on the device before any timing; here it runs at a small size in both groups, and its rows must
say the two paths' sums were equal (BatchAdder's own correctness is tests/test_gpu_msm.py's)."""
import pytest
from conftest import run_bench_script


@pytest.mark.gpu
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_the_probe_runs_and_both_paths_agree_on_the_device(group):
    done = run_bench_script("probe_pattern_share.py", "--group", group, "--log2", "12", "--circuits", "4",
                            "--densities", "0.5", "0.25", "--repeats", "1")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| 0.")]
    assert len(rows) == 2 and all(row.rstrip().endswith("| yes |") for row in rows), done.stdout
