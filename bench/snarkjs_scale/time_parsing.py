"""The parsing stage of `python -m vectors import-snarkjs` on the circuit make.sh builds, step by step: everything
import_snarkjs does before the reference prover computes the expected outputs. For bench/RESULTS_import.md.

    python bench/snarkjs_scale/time_parsing.py [--reference] [OUT]     # OUT: make.sh's folder (default /tmp/snarkjs_scale)

--reference decodes the zkey's points with reference/encoding.py alone (slow: about 1.5 ms a G1 point).
"""
import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from reference.cli import Progress  # noqa: E402
from vectors import fast_library  # noqa: E402
from vectors.decoding import PointDecoder  # noqa: E402
from vectors.snarkjs import parse_r1cs, parse_wtns, parse_zkey, proving_key_from_zkey, read_file, split_witness  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default="/tmp/snarkjs_scale")
    parser.add_argument("--reference", action="store_true")
    args = parser.parse_args()
    out = Path(args.out)
    decoder = PointDecoder(reference=args.reference, progress=Progress())
    print(f"point decoding: {'reference' if not decoder.fast else fast_library.implementation()}, {decoder.workers} workers")
    steps = {}

    def step(name, function):
        start = time.perf_counter()
        result = function()
        steps[name] = time.perf_counter() - start
        return result

    data = step("read files", lambda: {k: read_file(out / f, k) for k, f in (("r1cs", "chain.r1cs"), ("wtns", "witness.wtns"), ("zkey", "chain.zkey"))})
    circuit = step("parse .r1cs", lambda: parse_r1cs(data["r1cs"], "chain.r1cs"))
    step("parse .wtns", lambda: split_witness(parse_wtns(data["wtns"], "witness.wtns"), circuit.r1cs, "witness.wtns"))
    zkey = step("parse .zkey (every point checked)", lambda: parse_zkey(data["zkey"], "chain.zkey", decoder))
    step("proving key from the zkey (checked against the R1CS)", lambda: proving_key_from_zkey(zkey, circuit.r1cs, "chain.zkey"))
    points = sum(len(getattr(zkey, q)) for q in ("a", "b_g1", "b_g2", "c", "h")) + len(zkey.vk.ic) + 6
    print(f"{circuit.r1cs.num_constraints} constraints, 2^{circuit.r1cs.log_n} rows, {points} zkey points ({len(zkey.b_g2)} of them G2)")
    for name, seconds in steps.items():
        print(f"| {name} | {seconds:.1f} s |")
    print(f"| parsing in all | {sum(steps.values()):.1f} s |")


if __name__ == "__main__":
    main()
