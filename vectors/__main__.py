"""python -m vectors {generate,check}: make and validate test vectors."""
import argparse
import sys
from pathlib import Path

from reference.cli import EXIT_OK, Progress, run_main

from .bundled import BUNDLED
from .format import document_bytes, load_vector, vector_document, write_files_atomically, write_vector
from .generate import SHAPES, build_vector


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m vectors", description="Generate and validate BLS12-381 Groth16 test vectors (format: vectors/FORMAT.md).")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser(
        "generate",
        help="write a vector with a synthetic circuit and every phase's expected output",
        description="Build a synthetic satisfiable circuit (deterministic in --seed), a TEST-ONLY setup whose secrets "
        "derive from the seed, witnesses, and every phase's expected output from the reference prover; write them as a vector.",
    )
    g.add_argument("--log-n", type=int, required=True, help="log2 of the domain size (1..16 is practical for the reference)")
    g.add_argument("--seed", required=True, help="seed string; the same seed gives the same vector, bit for bit")
    g.add_argument("--circuits", type=int, default=1, help="circuits of one shape proved in one call (default 1)")
    g.add_argument("--shape", choices=SHAPES, default="porep", help="porep: mostly 0/1 witness, PoRep-like densities (default); random: uniformly random scalars")
    g.add_argument("--public-inputs", type=int, help="number of public inputs, ONE not counted (default: min(3, n/4))")
    g.add_argument("--constraints", type=int, help="number of constraints (default: about 7/8 of the domain)")
    g.add_argument("--id", help="vector id (default derived from the parameters)")
    g.add_argument("--comment", help="one-line comment stored in the vector")
    g.add_argument("--flag", action="append", default=[], help="edge-case tag to add to the vector's flags (repeatable)")
    g.add_argument("--sidecar-min", type=int, help="store arrays of at least this many elements in binary sidecar files")
    g.add_argument("--out", required=True, help="output JSON path (sidecars are written beside it)")
    g.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    rg = sub.add_parser(
        "regenerate",
        help="rewrite the bundled vectors under vectors/data/ (or --check them bit for bit)",
        description="Run the generate command of every bundled vector (vectors/bundled.py).",
    )
    rg.add_argument("--check", action="store_true", help="do not write; exit 1 if any bundled file differs from a fresh generation")
    rg.add_argument("names", nargs="*", help="only these bundled vectors (default: all)")
    rg.add_argument("--quiet", action="store_true")
    c = sub.add_parser("check", help="read and fully validate vectors", description="Decode and validate every field of each vector; exit 2 on the first invalid one.")
    c.add_argument("vectors", nargs="+", help="vector JSON files")
    c.add_argument("--quiet", action="store_true")
    return p


def _generate(args) -> int:
    say = Progress(args.quiet)
    vector = _build(args, say)
    written = write_vector(vector, args.out, sidecar_min=args.sidecar_min)
    say("wrote " + ", ".join(str(p) for p in written))
    return EXIT_OK


def _build(args, say):
    return build_vector(
        args.log_n,
        args.seed,
        circuits=args.circuits,
        shape=args.shape,
        num_public=args.public_inputs,
        num_constraints=args.constraints,
        vector_id=args.id or Path(args.out).name.removesuffix(".json"),
        comment=args.comment,
        flags=args.flag,
        progress=say,
    )


def generate_from_args(argv: list[str], out: str, progress) -> dict:
    """Parse `generate` arguments and build (without writing) the document and sidecars of that vector."""
    args = _parser().parse_args(["generate", *argv, "--out", out])
    vector = _build(args, progress)
    stem = Path(out).name.removesuffix(".json")
    return vector_document(vector, stem, args.sidecar_min)


def _regenerate(args) -> int:
    say = Progress(args.quiet)
    chosen = [b for b in BUNDLED if not args.names or b.name in args.names]
    stale = []
    for b in chosen:
        say(f"{b.name}: {b.command}")
        doc, sidecars = generate_from_args(list(b.args), str(b.path), say)
        files = {b.path: document_bytes(doc), **{b.path.parent / k: v for k, v in sidecars.items()}}
        if args.check:
            stale += [str(p) for p, data in files.items() if not p.exists() or p.read_bytes() != data]
        else:
            write_files_atomically(files)
    if stale:
        print("differ from a fresh generation: " + ", ".join(stale))
        return 1
    return EXIT_OK


def _check(args) -> int:
    say = Progress(args.quiet)
    for path in args.vectors:
        v = load_vector(path, progress=say)
        print(f"ok  {path}: {v.id} (2^{v.r1cs.log_n}, {len(v.circuits)} circuit(s))")
    return EXIT_OK


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    return {"generate": _generate, "check": _check, "regenerate": _regenerate}[args.command](args)


if __name__ == "__main__":
    sys.exit(run_main(main))
