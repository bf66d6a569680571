"""python -m reference {prove,verify}: the reference prover and verifier on a test vector.

Besides the toolkit's own proof JSON (ZCash compressed hex), ``prove --format snarkjs`` writes snarkjs's
proof.json and public.json, and ``verify`` reads snarkjs proofs, public signals and verification keys,
and bellman's 192-byte binary proofs (vectors/snarkjs.py, vectors/bellman.py). Being the reference, it decodes
points with reference/encoding.py alone, even where the fast library is installed.
"""
import sys
from pathlib import Path

from vectors.bellman import parse_proofs
from vectors.decoding import PointDecoder
from vectors.format import load_vector, parse_vector
from vectors.snarkjs import (
    is_snarkjs_proof,
    is_snarkjs_verifying_key,
    proof_from_json,
    public_from_json,
    verifying_key_from_json,
)

from .cli import EXIT_INVALID_PROOF, EXIT_OK, ArgumentParser, Progress, each_document, parse_proof, read_json, run_main
from .errors import InvalidInputError, SizeMismatchError
from .proof_files import add_prove_arguments, check_prove_arguments, write_proofs
from .prover import prove
from .safe_files import MAX_JSON_BYTES, parse_json, read_regular_file
from .verifier import check_public_inputs, verify

JSON_OPENERS = (ord("{"), ord("["))
"""A proof file whose first non-blank byte is one of these is JSON; anything else is read as bellman's binary proofs."""


def _parser() -> ArgumentParser:
    p = ArgumentParser(
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
    add_prove_arguments(pr)
    ve = sub.add_parser(
        "verify",
        help="verify proofs against a verifying key and public inputs",
        description="Check e(A,B) = e(alpha,beta) e(sum x_i IC_i, gamma) e(C,delta) for each proof in PROOF. KEY is a "
        "test vector (its verifying key, and each circuit's public inputs) or a snarkjs verification_key.json (then "
        "--public is required). PROOF is `prove`'s JSON, snarkjs's proof.json, or bellman's binary proofs (192 bytes "
        "each). Exit 0 if all verify, 1 if any does not.",
    )
    ve.add_argument("key", help="test vector JSON, or snarkjs verification_key.json")
    ve.add_argument("proof", help="proof file: `prove` JSON or snarkjs proof.json (one object, or a list), or bellman proofs")
    ve.add_argument("--public", help="snarkjs public.json: the public signals (a list of lists for several proofs); overrides the vector's")
    ve.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    return p


def _prove(args) -> int:
    check_prove_arguments(args)
    say = Progress(args.quiet)
    vector = load_vector(args.vector, progress=say, reference=True)  # the reference tool decodes with the reference too
    outputs, _ = prove(vector.r1cs, vector.pk, vector.witnesses, vector.convention, progress=say)
    write_proofs(args, vector, outputs.assemble, say)
    return EXIT_OK


def _load_any_proofs(path) -> list:
    """Proofs from ``prove``'s JSON, snarkjs proof.json (an object or a list), or bellman's concatenated 192-byte proofs.
    Read once, at most MAX_JSON_BYTES (as any JSON file; 2^24 bellman proofs take 3 GiB): a larger file is refused by
    its size instead of read into memory."""
    name = Path(path).name
    data = read_regular_file(path, "proof file", MAX_JSON_BYTES)
    if data.lstrip()[:1] and data.lstrip()[0] in JSON_OPENERS:
        doc = parse_json(data, str(path))
        return each_document(doc, name, proof_from_json if is_snarkjs_proof(doc) else parse_proof)
    return parse_proofs(data, name, PointDecoder(reference=True))


def _load_public(path) -> list[list[int]]:
    """snarkjs public.json: one list of decimal strings, or (several proofs) a list of such lists."""
    doc = read_json(path)
    name = Path(path).name
    if isinstance(doc, list) and doc and all(isinstance(d, list) for d in doc):
        return [public_from_json(d, f"{name}[{i}]") for i, d in enumerate(doc)]
    return [public_from_json(doc, name)]


def _list_names(name: str, count: int) -> list[str]:
    """How errors name each of ``count`` lists of public inputs in the file ``name``: name[i], or name for one list."""
    return [name] if count == 1 else [f"{name}[{i}]" for i in range(count)]


def _verify(args) -> int:
    """Every input is read and checked (key, proofs, each list of public inputs against the key) before any pairing,
    and the verdicts are printed together at the end: no verdict line precedes an error exit."""
    say = Progress(args.quiet)
    key_doc = read_json(args.key)
    if not isinstance(key_doc, dict):  # named here: a vector's own errors name its fields, not its file
        raise InvalidInputError(Path(args.key).name, "is not a JSON object: expected a snarkjs verification key or a test vector")
    if is_snarkjs_verifying_key(key_doc):
        if not args.public:
            raise InvalidInputError("--public", "is required with a snarkjs verification key (it holds no public inputs)")
        vk, inputs = verifying_key_from_json(key_doc, Path(args.key).name), None
    else:
        vector = parse_vector(key_doc, Path(args.key).parent, say, reference=True)
        vk, inputs = vector.pk.vk, [w.public_inputs for w in vector.witnesses]
        names = [f"circuits[{c}].public_inputs" for c in range(len(inputs))]
        source = f"the vector has {len(inputs)} circuit(s)"
    proofs = _load_any_proofs(args.proof)
    if args.public:
        inputs = _load_public(args.public)
        names = _list_names(Path(args.public).name, len(inputs))
        source = f"{args.public} has public inputs for {len(inputs)}"
    if len(proofs) != len(inputs):
        raise SizeMismatchError(args.proof, f"holds {len(proofs)} proof(s); {source}")
    for where, public_inputs in zip(names, inputs):
        check_public_inputs(vk, public_inputs, where)
    valid = [verify(vk, public_inputs, proof) for proof, public_inputs in zip(proofs, inputs)]
    print("\n".join(f"circuit {c}: {'valid' if ok else 'INVALID'}" for c, ok in enumerate(valid)))
    return EXIT_OK if all(valid) else EXIT_INVALID_PROOF


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    return {"prove": _prove, "verify": _verify}[args.command](args)


if __name__ == "__main__":
    sys.exit(run_main(main))
