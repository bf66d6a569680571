"""The worked example of docs/PERFORMANCE.md: bench/bench_prove.py with a deliberate slowdown planted in one phase,
from outside the product code (this script wraps gpu/prover.py's ``ntt_h`` in-process; nothing under gpu/ changes).

    python3 bench/plant_slowdown.py [bench_prove.py's arguments, e.g. --log-n 20 --circuits 1 --runs 5 --json slowed.json]

The planted slowdown: after each ntt_h, its output h makes a needless round trip through a page-locked host buffer
(device -> host -> device, the same values back), the kind of stray synchronising copy that creeps into a prover.
The proofs are unchanged; only ntt_h's time grows. ``python -m conformance compare`` of a plain run against this one
should name ntt_h slower and every other phase within noise (bench/slowdown_example.sh runs the whole example).
"""
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import gpu.prover  # noqa: E402

PLANTED_PHASE = "ntt_h"


def _needless_round_trip(original):
    def slowed(*args):
        import cupyx

        h = original(*args)
        host = cupyx.empty_pinned(h.shape, dtype=h.dtype)
        h.get(out=host)
        h.set(host)
        return h

    return slowed


def main(argv=None) -> int:
    if not callable(getattr(gpu.prover, PLANTED_PHASE, None)):
        raise SystemExit(f"gpu/prover.py no longer calls {PLANTED_PHASE} by that name: update this example")
    setattr(gpu.prover, PLANTED_PHASE, _needless_round_trip(getattr(gpu.prover, PLANTED_PHASE)))
    spec = importlib.util.spec_from_file_location("bench_prove", ROOT / "bench" / "bench_prove.py")
    bench_prove = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench_prove)
    return bench_prove.main(argv)


if __name__ == "__main__":
    sys.exit(main())
