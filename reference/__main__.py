"""python -m reference {prove,verify}: the reference prover and verifier on a test vector."""
import argparse
import json
import sys
from pathlib import Path

from vectors.format import load_vector, write_files_atomically

from .cli import EXIT_INVALID_PROOF, EXIT_OK, Progress, load_proofs, proofs_document, run_main
from .errors import SizeMismatchError
from .prover import prove
from .verifier import verify


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m reference",
        description="Reference (pure-Python, readable, slow) BLS12-381 Groth16 prover and verifier.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    pr = sub.add_parser(
        "prove",
        help="prove every circuit of a vector",
        description="Run every prover phase on every circuit of VECTOR (with the vector's keys, witnesses, r and s) "
        "and write the proofs: {\"a\", \"b\", \"c\"} in ZCash compressed hex, or a list with several circuits.",
    )
    pr.add_argument("vector", help="test vector JSON (see vectors/FORMAT.md)")
    pr.add_argument("--out", help="write the proofs here (default: standard output)")
    pr.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    ve = sub.add_parser(
        "verify",
        help="verify proofs against a vector's verifying key and public inputs",
        description="Check e(A,B) = e(alpha,beta) e(sum x_i IC_i, gamma) e(C,delta) for each proof in PROOF "
        "against the vector's verifying key and each circuit's public inputs. Exit 0 if all verify, 1 if any does not.",
    )
    ve.add_argument("vector", help="test vector JSON")
    ve.add_argument("proof", help="proof JSON written by `prove` (one object, or a list for several circuits)")
    ve.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


def _prove(args) -> int:
    say = Progress(args.quiet)
    vector = load_vector(args.vector, progress=say)
    outputs, seconds = prove(vector.r1cs, vector.pk, vector.witnesses, vector.convention, progress=say)
    text = json.dumps(proofs_document(outputs.assemble), indent=1) + "\n"
    if args.out:
        write_files_atomically({Path(args.out): text.encode()})
        say(f"wrote {len(outputs.assemble)} proof(s) to {args.out}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def _verify(args) -> int:
    say = Progress(args.quiet)
    vector = load_vector(args.vector, progress=say)
    proofs = load_proofs(args.proof)
    if len(proofs) != len(vector.circuits):
        raise SizeMismatchError(args.proof, f"holds {len(proofs)} proof(s); the vector has {len(vector.circuits)} circuit(s)")
    failures = 0
    for c, (proof, case) in enumerate(zip(proofs, vector.circuits)):
        ok = verify(vector.pk.vk, case.witness.public_inputs, proof)
        print(f"circuit {c}: {'valid' if ok else 'INVALID'}")
        failures += not ok
    return EXIT_INVALID_PROOF if failures else EXIT_OK


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    return {"prove": _prove, "verify": _verify}[args.command](args)


if __name__ == "__main__":
    sys.exit(run_main(main))
