set -u
python3 - <<'PY'
import json, os, subprocess, sys
from conformance.faults import GPU_FAULTS, patched_gpu_tree
root = os.getcwd(); out = os.environ["OUT"]
env = dict(os.environ, PYTHONPATH=root + ":" + os.environ.get("PYTHONPATH", ""))
with patched_gpu_tree(GPU_FAULTS["gpu-msm-racy-bucket"]) as folder:
    for rep, sync in (("a", "0"), ("b", "0"), ("c", "1")):
        e = dict(env, GPU_SYNC_CHECK=sync)
        done = subprocess.run([sys.executable, "-m", "conformance", "run", root + "/vectors/data/porep-log05.json",
                               "--backends", "gpu", "--mode", "prover", "--require-gpu", "--repeat", "2",
                               "--report", f"{out}/racy_{rep}", "--quiet"], cwd=folder, env=e, capture_output=True, text=True)
        print(f"== run {rep} (GPU_SYNC_CHECK={sync}) rc={done.returncode}; stderr tail: {done.stderr[-300:]!r}")
        doc = json.load(open(f"{out}/racy_{rep}/report.json"))
        for v in doc["vectors"]:
            for p in v["phases"]:
                b = p["backends"].get("gpu", {})
                print(" ", p["phase"], b.get("status"), (b.get("message") or "")[:400], json.dumps(b.get("mismatch"))[:300])
PY
