"""What both ``prove`` commands share (python -m reference prove, python -m gpu prove): their arguments and
how they write proofs (the toolkit's ZCash JSON or snarkjs's proof.json / public.json, atomically).

A module of its own, not reference/cli.py: it needs vectors/ (snarkjs's JSON, atomic writes), and vectors/
imports reference/cli.py.
"""
import argparse
import json
import sys
from pathlib import Path

from vectors.format import write_files_atomically
from vectors.snarkjs import proof_to_json, public_to_json

from .cli import proofs_document
from .errors import InvalidInputError
from .safe_files import check_outputs, check_outputs_before_work

PROOF_FORMATS = ("zcash", "snarkjs")
"""prove --format: the toolkit's {"a", "b", "c"} ZCash compressed hex, or snarkjs's proof.json."""


def add_prove_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every `prove` command shares (reference and GPU): the vector and where and how to write proofs."""
    parser.add_argument("vector", help="test vector JSON (see vectors/FORMAT.md)")
    parser.add_argument("--out", help="write the proofs here (default: standard output)")
    parser.add_argument(
        "--format",
        choices=PROOF_FORMATS,
        default="zcash",
        help="zcash: {\"a\", \"b\", \"c\"} compressed hex (default); snarkjs: snarkjs's proof.json "
        "{pi_a, pi_b, pi_c, protocol, curve: bls12381}, accepted by `snarkjs groth16 verify`",
    )
    parser.add_argument("--public", help="with --format snarkjs: also write the public signals (snarkjs public.json) here")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def check_prove_arguments(args) -> None:
    """Refuse argument combinations, and outputs that cannot be written, before any work is done: a proof at 2^27
    takes minutes, which an output refused only when write_proofs writes would waste (it checks them again)."""
    if args.public and args.format != "snarkjs":
        raise InvalidInputError("--public", "goes with --format snarkjs (snarkjs's public.json)")
    outputs = {"--out": args.out, "--public": args.public, "--timings-json": getattr(args, "timings_json", None)}
    check_outputs_before_work(outputs, {f"input {args.vector}": args.vector})


def _one_or_list(docs: list):
    """One document for one circuit, the list for several (as proofs_document does)."""
    return docs[0] if len(docs) == 1 else docs


def json_bytes(doc) -> bytes:
    """A JSON document as written by every command: one-space indentation and a final newline."""
    return (json.dumps(doc, indent=1) + "\n").encode()


def write_proofs(args, vector, proofs: list, say, extra_files: dict | None = None) -> None:
    """Write ``proofs`` as `prove --format/--out/--public` ask (standard output without --out), with any
    ``extra_files`` ({path: bytes}), all atomically: no partial output on error."""
    if args.format == "snarkjs":
        document = _one_or_list([proof_to_json(p) for p in proofs])
        public = _one_or_list([public_to_json(w.public_inputs) for w in vector.witnesses])
    else:
        document, public = proofs_document(proofs), None
    outputs = {"--out": args.out, "--public": args.public, **{str(path): path for path in extra_files or {}}}
    check_outputs(outputs, {f"input {p}": p for p in vector.source_files})
    files = dict(extra_files or {})
    if args.out:
        files[Path(args.out)] = json_bytes(document)
    if args.public:
        files[Path(args.public)] = json_bytes(public)
    write_files_atomically(files, inputs=vector.source_files)
    if not args.out:
        sys.stdout.write(json_bytes(document).decode())
    if files:
        say(f"wrote {len(proofs)} proof(s): " + ", ".join(str(f) for f in files))
