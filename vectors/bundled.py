"""The generated vectors checked in under vectors/data/, each with the exact command that made it (BUNDLED); the
edge-* vectors beside them are made by vectors/edge_cases.py, SNARKJS_INTEROP is imported from snarkjs's files, and
bundled_paths lists them all.

`python -m vectors regenerate` rewrites the generated and edge-case ones; `python -m vectors regenerate --check` (and the
test suite) regenerates each in memory and demands the same bytes as the checked-in files.
"""
import shlex
from dataclasses import dataclass
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class BundledVector:
    name: str
    """File stem under vectors/data/."""
    args: tuple[str, ...]
    """Arguments of `python -m vectors generate` (without --out); all with --reference, so that the files (their
    ``computed_by`` included) are the same with or without the fast library."""

    @property
    def path(self) -> Path:
        return DATA_DIR / f"{self.name}.json"

    @property
    def command(self) -> str:
        return "python -m vectors generate " + " ".join(shlex.quote(a) for a in self.args) + f" --out vectors/data/{self.name}.json"


BUNDLED = (
    *(BundledVector(f"porep-log{k:02d}", ("--log-n", str(k), "--seed", f"bundled-porep-{k}", "--reference")) for k in range(1, 11)),
    BundledVector("random-log06", ("--log-n", "6", "--seed", "bundled-random-6", "--shape", "random", "--reference")),
    # Uniformly random scalars leave every query unsplit; at 2^11 the B query has 1349 points, so its G2 tail MSM takes
    # c = 8 windows (gpu/msm.py kernel_window_bits: from 1121 points), whose bucket segments are summed by msm.cu's
    # sum_groups_g2 (no PoRep shape reaches it: their B tails hold ONE alone; 2^10 holds at most ~770 B points).
    BundledVector("random-log11", ("--log-n", "11", "--seed", "bundled-random-11", "--shape", "random", "--reference")),
    BundledVector(
        "multi-circuit-log07",
        ("--log-n", "7", "--seed", "bundled-multi-7", "--circuits", "4", "--flag", "multi-circuit", "--reference"),
    ),
    BundledVector(
        "sidecar-log08",
        ("--log-n", "8", "--seed", "bundled-sidecar-8", "--sidecar-min", "64", "--flag", "sidecar", "--reference"),
    ),
)


SNARKJS_INTEROP = DATA_DIR / "snarkjs-interop.json"
"""The one imported vector: circom and snarkjs's own files (interop/snarkjs/) through `python -m vectors import-snarkjs`,
made by SNARKJS_INTEROP_IMPORT (run by interop/snarkjs/regenerate.sh and `python -m vectors regenerate`) and checked bit
for bit by `python -m vectors regenerate --check` (tests/test_vectors.py). It is the only vector in the snarkjs
convention, so the conformance gate runs that convention's phases (evaluate's c = a b, ntt_h's coset values)."""


INTEROP_DIR = DATA_DIR.parents[1] / "interop" / "snarkjs"
SNARKJS_INTEROP_IMPORT = (
    "import-snarkjs", str(INTEROP_DIR / "circuit.r1cs"), str(INTEROP_DIR / "witness.wtns"), str(INTEROP_DIR / "circuit.zkey"),
    "--witness", str(INTEROP_DIR / "witness2.wtns"), "--seed", "interop-snarkjs", "--id", SNARKJS_INTEROP.stem, "--reference",
)
"""The `python -m vectors` command (without --out) that makes SNARKJS_INTEROP from the fixtures in interop/snarkjs/:
what `python -m vectors regenerate` runs for it, also as interop/snarkjs/regenerate.sh's last step."""


def bundled_paths() -> list[Path]:
    """Every checked-in vector JSON file (bundled, edge-case and SNARKJS_INTEROP), sorted by name."""
    return sorted(DATA_DIR.glob("*.json"))
