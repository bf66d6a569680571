"""python -m gpu prove: the GPU prover on a test vector (same output as python -m reference prove).

``--format snarkjs`` and ``--public`` behave exactly as in ``python -m reference prove``; the proof and
public-signal documents come from the reference's own writers (reference/__main__.py, vectors/snarkjs.py).
"""
import argparse
import json
import sys
from pathlib import Path

from reference.__main__ import PROOF_FORMATS, _json_bytes, _one_or_list
from reference.cli import EXIT_OK, Progress, proofs_document, run_main
from reference.errors import InvalidInputError, ToolkitError
from vectors.format import load_vector, write_files_atomically
from vectors.snarkjs import proof_to_json, public_to_json

from .device import GpuKernelError, GpuMemoryError, GpuUnavailableError
from .prover import prove


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gpu", description="The CuPy GPU Groth16 prover (BLS12-381; the vector's domain convention: bellman or snarkjs).")
    sub = p.add_subparsers(dest="command", required=True)
    pr = sub.add_parser(
        "prove",
        help="prove every circuit of a vector on the GPU",
        description="Run every phase on the GPU for all circuits of VECTOR and write the proofs exactly as "
        "`python -m reference prove` does ({\"a\", \"b\", \"c\"} compressed hex, a list for several circuits).",
    )
    pr.add_argument("vector", help="test vector JSON (vectors/FORMAT.md)")
    pr.add_argument("--out", help="write the proofs here (default: standard output)")
    pr.add_argument(
        "--format",
        choices=PROOF_FORMATS,
        default="zcash",
        help="zcash: {\"a\", \"b\", \"c\"} compressed hex (default); snarkjs: snarkjs's proof.json "
        "{pi_a, pi_b, pi_c, protocol, curve: bls12381}, as `python -m reference prove --format snarkjs` writes it",
    )
    pr.add_argument("--public", help="with --format snarkjs: also write the public signals (snarkjs public.json) here")
    pr.add_argument("--timings", action="store_true", help="print the per-phase breakdown (CUDA events; transfers apart) on stderr")
    pr.add_argument("--timings-json", help="also write the breakdown (milliseconds per phase and transfer) to this JSON file")
    pr.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


def _documents(args, vector, proofs):
    """(proofs document, public document or None) for ``--format``, built by the reference's writers."""
    if args.format == "snarkjs":
        return (
            _one_or_list([proof_to_json(p) for p in proofs]),
            _one_or_list([public_to_json(w.public_inputs) for w in vector.witnesses]),
        )
    return proofs_document(proofs), None


def _prove(args) -> int:
    if args.public and args.format != "snarkjs":
        raise InvalidInputError("--public", "goes with --format snarkjs (snarkjs's public.json)")
    say = Progress(args.quiet)
    vector = load_vector(args.vector, progress=say)
    run = prove(vector.r1cs, vector.pk, vector.witnesses, progress=say, convention=vector.convention)
    proofs, public = _documents(args, vector, run.proofs)
    files = {}
    text = _json_bytes(proofs).decode()
    if args.timings_json:
        files[Path(args.timings_json)] = (json.dumps({"milliseconds": run.ms}, indent=1) + "\n").encode()
    if args.out:
        files[Path(args.out)] = text.encode()
    if args.public:
        files[Path(args.public)] = _json_bytes(public)
    write_files_atomically(files)
    if not args.out:
        sys.stdout.write(text)
    if args.timings:
        print(run.breakdown(), file=sys.stderr)
    return EXIT_OK


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return {"prove": _prove}[args.command](args)
    except (GpuUnavailableError, GpuMemoryError, GpuKernelError) as exc:
        raise ToolkitError(f"gpu: {exc}") from exc


if __name__ == "__main__":
    sys.exit(run_main(main))
