"""bench/candidates/: the device scripts refuse a call without its arguments before doing anything (a device call's
seconds are scarce), and every patch the README lists is there."""
import os
import re
import subprocess

import pytest

from conftest import BENCH_DIR

CANDIDATES = BENCH_DIR / "candidates"


@pytest.mark.parametrize("script", ["device_ab.sh", "device_gate.sh", "device_prove_ab.sh", "ntt_ab.sh"])
def test_device_scripts_refuse_a_call_without_their_arguments(script, tmp_path):
    done = subprocess.run(["bash", str(CANDIDATES / script)], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("usage: ") and done.stdout == ""
    assert not any(tmp_path.iterdir())


def test_the_readme_names_exactly_the_patches_in_the_folder():
    named = set(re.findall(r"^## (\S+\.patch):", (CANDIDATES / "README.md").read_text(), re.MULTILINE))
    assert named == {p.name for p in CANDIDATES.glob("*.patch")}


@pytest.mark.parametrize("script, arguments", [("device_ab.sh", ["missing", "base"]), ("device_gate.sh", ["missing"]),
                                               ("device_prove_ab.sh", ["missing", "base"]),
                                               ("ntt_ab.sh", ["missing", "base"])])
def test_device_scripts_refuse_an_output_folder_that_is_not_there(script, arguments, tmp_path):
    done = subprocess.run(["bash", str(CANDIDATES / script), *arguments], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 2 and "error: OUT: 'missing' is not a folder" in done.stderr and done.stdout == ""
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("missing, environment", [("BASE_TREE", {}), ("BASE_COMMIT", {"tree": True}),
                                                  ("THIS_COMMIT", {"tree": True, "BASE_COMMIT": "abc"})])
def test_device_prove_ab_refuses_a_call_without_its_tree_or_commits(missing, environment, tmp_path):
    """A landing's first call names the base tree and both commits before it spends device time on the proofs."""
    (tmp_path / "out").mkdir()
    if environment.pop("tree", False):
        (tmp_path / "base" / "bench").mkdir(parents=True)
        (tmp_path / "base" / "bench" / "device_session.sh").write_text("exit 0\n")
    env = {k: v for k, v in os.environ.items() if k not in ("BASE_COMMIT", "THIS_COMMIT")} | environment
    done = subprocess.run(["bash", str(CANDIDATES / "device_prove_ab.sh"), "out", "base"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith(f"error: {missing}: ") and done.stdout == ""
    assert not any((tmp_path / "out").iterdir())


def test_ntt_ab_packs_its_files_into_one_archive(tmp_path):
    """ntt_ab.sh hands back one file (a device call brings back eight): the A/B's log and folder in ab_ntt.tgz, nothing
    else left in OUT, the comparison's head printed and bench/ab.sh's exit status kept (here a stand-in ab.sh that
    writes what the real one writes and fails with 3)."""
    import shutil
    import tarfile

    (tmp_path / "bench" / "candidates").mkdir(parents=True)
    shutil.copy(CANDIDATES / "ntt_ab.sh", tmp_path / "bench" / "candidates" / "ntt_ab.sh")
    (tmp_path / "bench" / "ab.sh").write_text(
        'mkdir -p "$2/compare" && echo "| 2^27 x1 | gpu | ntt_h | faster |" > "$2/compare/comparison.md"\n'
        'echo "ab.sh ran on $3"\nexit 3\n')
    (tmp_path / "out").mkdir()
    done = subprocess.run(["bash", "bench/candidates/ntt_ab.sh", "out", "base"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 3 and done.stdout == "| 2^27 x1 | gpu | ntt_h | faster |\n", done.stderr
    assert [p.name for p in (tmp_path / "out").iterdir()] == ["ab_ntt.tgz"]
    with tarfile.open(tmp_path / "out" / "ab_ntt.tgz") as packed:
        assert packed.extractfile("ab_ntt.log").read().decode() == "ab.sh ran on base\n"
        assert packed.extractfile("ab_ntt/compare/comparison.md").read().decode().startswith("| 2^27 x1 |")


@pytest.mark.parametrize("commit", ["dfedcfa8", "DFEDCFAE03E1D1E98C512158ABC7A47787640FED", "dfedcfae03e1+dirty"])
def test_device_session_refuses_a_bench_commit_that_is_not_a_full_hash(tmp_path, commit):
    """The records carry BENCH_COMMIT as given; a retyped short hash (dfedcfa8 for dfedcfae03e1, session 46's gate) names
    no commit. Refused before any step runs: exit 2, one error line, nothing in OUT."""
    (tmp_path / "out").mkdir()
    env = os.environ | {"BENCH_COMMIT": commit}
    done = subprocess.run(["bash", str(CANDIDATES.parent / "device_session.sh"), "out", "tests"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"error: BENCH_COMMIT: '{commit}' is not a full commit hash (40 lowercase hex digits: git rev-parse HEAD)\n"
    assert not any((tmp_path / "out").iterdir())
