"""python -m gpu prove: the GPU prover on a test vector (same output as python -m reference prove).

``--format snarkjs`` and ``--public`` behave exactly as in ``python -m reference prove``; the proof and
public-signal documents come from the writers both commands share (reference/proof_files.py).
"""
import argparse
import sys
from pathlib import Path

from reference.cli import EXIT_OK, Progress, run_main
from reference.proof_files import add_prove_arguments, check_prove_arguments, json_bytes, write_proofs
from reference.errors import ToolkitError
from vectors.format import load_vector

from .device import GpuKernelError, GpuMemoryError, GpuUnavailableError
from .multi import prove_multi


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m gpu", description="The CuPy GPU Groth16 prover (BLS12-381; the vector's domain convention: bellman or snarkjs).")
    sub = p.add_subparsers(dest="command", required=True)
    pr = sub.add_parser(
        "prove",
        help="prove every circuit of a vector on the GPU",
        description="Run every phase on the GPU for all circuits of VECTOR and write the proofs exactly as "
        "`python -m reference prove` does ({\"a\", \"b\", \"c\"} compressed hex, a list for several circuits).",
    )
    add_prove_arguments(pr)
    pr.add_argument("--timings", action="store_true", help="print the per-phase breakdown (CUDA events; transfers apart) on stderr")
    pr.add_argument("--timings-json", help="also write the breakdown (milliseconds per phase and transfer) to this JSON file")
    pr.add_argument("--gpus", type=int, default=1, metavar="N",
                    help="spread the circuits over GPUs 0..N-1 in contiguous blocks, keys on every GPU (default 1)")
    pr.add_argument("--devices", type=_device_list, metavar="D,D,...",
                    help="the device of each block instead of --gpus; a device may repeat (several blocks on one GPU)")
    return p


def _device_list(text: str) -> list[int]:
    try:
        devices = [int(d) for d in text.split(",") if d.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated device numbers, got {text!r}") from None
    if not devices:
        raise argparse.ArgumentTypeError("names no device")
    return devices


def _prove(args) -> int:
    check_prove_arguments(args)
    say = Progress(args.quiet)
    vector = load_vector(args.vector, progress=say)
    run = prove_multi(vector.r1cs, vector.pk, vector.witnesses, gpus=args.gpus, devices=args.devices, progress=say,
                      convention=vector.convention)
    blocks = [{"device": d, "circuits": [b.start, b.stop], "milliseconds": r.ms if r else {}}
              for d, b, r in zip(run.devices, run.blocks, run.runs)]
    timings = {Path(args.timings_json): json_bytes({"blocks": blocks})} if args.timings_json else {}
    write_proofs(args, vector, run.proofs, say, extra_files=timings)
    if args.timings:
        print(run.breakdown() if len(run.blocks) > 1 else run.runs[0].breakdown(), file=sys.stderr)
    return EXIT_OK


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return {"prove": _prove}[args.command](args)
    except (GpuUnavailableError, GpuMemoryError, GpuKernelError) as exc:
        raise ToolkitError(f"gpu: {exc}") from exc


if __name__ == "__main__":
    sys.exit(run_main(main))
