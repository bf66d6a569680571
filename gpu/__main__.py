"""python -m gpu prove: the GPU prover on a test vector (same output as python -m reference prove)."""
import argparse
import json
import sys
from pathlib import Path

from reference.cli import EXIT_OK, Progress, proofs_document, run_main
from reference.errors import ToolkitError
from vectors.format import load_vector, write_files_atomically

from .device import GpuKernelError, GpuMemoryError, GpuUnavailableError
from .prover import prove


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gpu", description="The CuPy GPU Groth16 prover (BLS12-381, bellman conventions).")
    sub = p.add_subparsers(dest="command", required=True)
    pr = sub.add_parser(
        "prove",
        help="prove every circuit of a vector on the GPU",
        description="Run every phase on the GPU for all circuits of VECTOR and write the proofs exactly as "
        "`python -m reference prove` does ({\"a\", \"b\", \"c\"} compressed hex, a list for several circuits).",
    )
    pr.add_argument("vector", help="test vector JSON (vectors/FORMAT.md)")
    pr.add_argument("--out", help="write the proofs here (default: standard output)")
    pr.add_argument("--timings", action="store_true", help="print the per-phase breakdown (CUDA events; transfers apart) on stderr")
    pr.add_argument("--timings-json", help="also write the breakdown (milliseconds per phase and transfer) to this JSON file")
    pr.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


def _prove(args) -> int:
    say = Progress(args.quiet)
    vector = load_vector(args.vector, progress=say)
    run = prove(vector.r1cs, vector.pk, vector.witnesses, progress=say)
    files = {}
    text = json.dumps(proofs_document(run.proofs), indent=1) + "\n"
    if args.timings_json:
        files[Path(args.timings_json)] = (json.dumps({"milliseconds": run.ms}, indent=1) + "\n").encode()
    if args.out:
        files[Path(args.out)] = text.encode()
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
