"""python -m vectors {generate,regenerate,check,import-snarkjs,export-bellman,import-bellman}: make, validate,
import and export test vectors."""
import dataclasses
import sys
from pathlib import Path

from reference.cli import EXIT_OK, ArgumentParser, Progress, run_main, single_line
from reference.errors import InvalidInputError
from reference.safe_files import check_outputs_before_work

from .bellman import export_bellman, import_bellman
from .bundled import BUNDLED, DATA_DIR, SNARKJS_INTEROP, SNARKJS_INTEROP_IMPORT
from .checking import check_vector_values
from .edge_cases import EDGE_CASES, select_cases, write_edge_vectors
from .fast_library import curve_primitive
from .flags import FlagDoesNotHold, check_flag, checker
from .format import (
    MAX_VECTOR_ID, check_comment, check_vector_id, document_bytes, load_vector, vector_document, write_files_atomically, write_vector,
)
from .generate import MAX_GENERATED_LOG_N, MAX_GENERATED_ROWS, SHAPES, build_vector, shape_flag
from .snarkjs import import_snarkjs, read_circom_circuit, read_file


REFERENCE_HELP = ("compute every value with the pure-Python reference, even where the fast library is installed (which "
                  "otherwise computes the keys' points and the MSM phases' group sums)")
SIDECAR_HELP = ("store arrays of at least this many elements in binary sidecar files beside --out (default: none, every "
                "array inline in the JSON)")
QUIET_HELP = "no progress lines on stderr"
ID_HELP = f"vector id: 1 to {MAX_VECTOR_ID} letters, digits and ._-+ (default: the output file's stem)"


def _parser() -> ArgumentParser:
    p = ArgumentParser(prog="python -m vectors", description="Generate and validate BLS12-381 Groth16 test vectors (format: vectors/FORMAT.md).")
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser(
        "generate",
        help="write a vector with a synthetic circuit and every phase's expected output",
        description="Build a synthetic satisfiable circuit (deterministic in --seed), a TEST-ONLY setup whose secrets "
        "derive from the seed, witnesses, and every phase's expected output from the reference prover; write them as a vector.",
    )
    g.add_argument("--log-n", type=int, required=True, help=f"log2 of the domain size, 1..{MAX_GENERATED_LOG_N} (the pure-Python "
                   "reference, with --reference or without the fast library, takes minutes above about 12)")
    g.add_argument("--seed", required=True, help="seed string; the same seed gives the same vector, bit for bit")
    g.add_argument("--circuits", type=int, default=1, help="circuits of one shape proved in one call (default 1; "
                   f"circuits * 2^log_n at most {MAX_GENERATED_ROWS})")
    g.add_argument("--shape", choices=SHAPES, default="porep", help="porep: mostly 0/1 witness, PoRep-like densities (default); random: uniformly random scalars")
    g.add_argument("--public-inputs", type=int, help="number of public inputs, ONE not counted (default: min(3, n/4))")
    g.add_argument("--constraints", type=int, help="number of constraints (default: about 7/8 of the domain); with the "
                   "inputs they must need a domain of exactly 2^log_n rows")
    g.add_argument("--id", help=ID_HELP)
    g.add_argument("--comment", help="comment stored in the vector: one line of printable ASCII")
    g.add_argument("--flag", action="append", default=[], help="a flag of vectors/FORMAT.md's Flags to add to the vector's flags "
                   "(repeatable; shape-<shape> is added anyway): refused, nothing written, unless the generated vector has its "
                   "property, as `check` judges it (vectors/flags.py)")
    g.add_argument("--sidecar-min", type=int, help=SIDECAR_HELP)
    g.add_argument("--out", required=True, help="output JSON path (sidecars are written beside it)")
    g.add_argument("--reference", action="store_true", help=REFERENCE_HELP)
    g.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    rg = sub.add_parser(
        "regenerate",
        help="rewrite the bundled vectors under vectors/data/ (or --check them bit for bit)",
        description="Run the generate command of every bundled vector (vectors/bundled.py), remake the edge-* vectors "
                    "(vectors/edge_cases.py) and import snarkjs-interop from the fixtures of interop/snarkjs/ (the last step "
                    "of its regenerate.sh): every file of vectors/data/.",
    )
    rg.add_argument("--check", action="store_true", help="do not write; exit 1 if any bundled file differs from a fresh generation "
                    "(without names: or a file in vectors/data/ is made by none)")
    rg.add_argument("names", nargs="*", help="only these bundled vectors (default: all)")
    rg.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    c = sub.add_parser(
        "check",
        help="read and fully validate vectors",
        description="Decode and validate every field of each vector, then check every value it states against the "
        "reference: the keys against the trapdoor (if any), every expected output recomputed from the R1CS, keys, "
        "witnesses, r and s, and every proof by the pairing check; then that every flag's property holds in the vector's "
        "data (vectors/flags.py). Exit 2 naming the first wrong field.",
    )
    c.add_argument("vectors", nargs="+", help="vector JSON files")
    c.add_argument("--fast", action="store_true", help="judge by the oracles instead of recomputing (trapdoor at both ends of "
                   "every query, h identity, trapdoor MSMs, pairing), flags as without it: for large vectors; it does not pin the "
                   "proof to r, s")
    c.add_argument("--reference", action="store_true", help="decode and recompute with the pure-Python reference alone "
                   "(the default decodes points and recomputes the keys and MSM sums with the fast library where installed)")
    c.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    _interop_parsers(sub)
    return p


def _interop_parsers(sub) -> None:
    """import-snarkjs, export-bellman, import-bellman (FORMAT.md, "Interoperability")."""
    s = sub.add_parser(
        "import-snarkjs",
        help="make a vector (snarkjs convention) from a circom .r1cs, a .wtns and a snarkjs Groth16 .zkey (bls12381)",
        description="Read a circom R1CS, its witness and a snarkjs Groth16 proving key for BLS12-381, check that they "
        "belong together, and write a vector with domain convention 'snarkjs' and every phase's expected output from the "
        "reference prover. r and s derive from --seed (default: the SHA-256 of the input files).",
    )
    s.add_argument("r1cs", help="circom .r1cs file (compiled with -p bls12381)")
    s.add_argument("wtns", help=".wtns witness file (snarkjs wtns calculate)")
    s.add_argument("zkey", help="snarkjs Groth16 .zkey for the same circuit, on bls12381")
    s.add_argument("--witness", action="append", default=[], help="a further .wtns: one more circuit in the vector (repeatable)")
    s.add_argument("--seed", help="seed of the blinding scalars r, s (default: SHA-256 of the input files)")
    s.add_argument("--id", help=ID_HELP)
    s.add_argument("--sidecar-min", type=int, help=SIDECAR_HELP)
    s.add_argument("--out", required=True, help="output vector JSON path")
    s.add_argument("--reference", action="store_true", help=REFERENCE_HELP)
    s.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    e = sub.add_parser(
        "export-bellman",
        help="write a vector's keys and proofs as bellman/bellperson files",
        description="Write groth16.params (bellman Parameters), groth16.vk (VerifyingKey), proofs.bin (192-byte "
        "compressed proofs, one per circuit) and public_inputs.json into DIR. The vector must use the bellman convention.",
    )
    e.add_argument("vector", help="vector JSON")
    e.add_argument("--out", required=True, metavar="DIR", help="output folder (made if missing)")
    e.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    i = sub.add_parser(
        "import-bellman",
        help="make a vector from a bellman Parameters file plus an R1CS and witnesses",
        description="Read a bellman/bellperson Parameters file for the R1CS given by --r1cs (circom .r1cs, with --wtns "
        "witnesses) or by --circuit (a vector: its R1CS, witnesses, r and s), check every list length against the "
        "R1CS's densities, and write a vector (bellman convention) with every phase's expected output.",
    )
    i.add_argument("parameters", help="bellman Parameters file (e.g. groth16.params from export-bellman)")
    source = i.add_mutually_exclusive_group(required=True)
    source.add_argument("--r1cs", help="circom .r1cs file (bls12381)")
    source.add_argument("--circuit", help="vector JSON whose R1CS and witnesses (with r, s) to use")
    i.add_argument("--wtns", action="append", default=[], help="witness for --r1cs, one per circuit (repeatable)")
    i.add_argument("--seed", help="with --r1cs: seed of r, s (default: SHA-256 of the input files)")
    i.add_argument("--id", help=ID_HELP)
    i.add_argument("--sidecar-min", type=int, help=SIDECAR_HELP)
    i.add_argument("--out", required=True, help="output vector JSON path")
    i.add_argument("--reference", action="store_true", help=REFERENCE_HELP)
    i.add_argument("--quiet", action="store_true", help=QUIET_HELP)


def _generate(args) -> int:
    say = Progress(args.quiet)
    check_outputs_before_work({"--out": args.out}, {})
    doc, sidecars = _generated_document(args, say)
    say(f"writing {args.out}")
    written = write_files_atomically(_vector_files(Path(args.out), doc, sidecars))
    say("wrote " + ", ".join(str(p) for p in written))
    return EXIT_OK


def _vector_files(path: Path, doc: dict, sidecars: dict[str, bytes]) -> dict[Path, bytes]:
    """{file: bytes} of a vector document at ``path`` and its sidecars beside it."""
    return {path: document_bytes(doc), **{path.parent / name: data for name, data in sidecars.items()}}


def _check_at_least(args, bounds: dict[str, int]) -> None:
    """Refuse an option below its least meaningful value ({dest: least}; unset options pass), naming the option: a
    negative --constraints or --public-inputs would otherwise fail later under another field's name, and a negative
    --sidecar-min would silently act as 0."""
    for dest, least in bounds.items():
        value = getattr(args, dest)
        if value is not None and value < least:
            raise InvalidInputError("--" + dest.replace("_", "-"), f"must be at least {least}, got {value}")


def _check_flag_names(args) -> None:
    """Each --flag a flag of FORMAT.md that `check` can judge, given once, and not the shape flag generate adds."""
    given = {shape_flag(args.shape): "--shape"}
    for flag in args.flag:
        if checker(flag) is None:
            raise InvalidInputError("--flag", f"{flag!r} is not a flag of vectors/FORMAT.md (section Flags)")
        if flag in given:
            raise InvalidInputError("--flag", f"{flag!r} is given by {given[flag]} already: each flag at most once")
        given[flag] = "--flag"


def _check_flags_hold(vector, args) -> None:
    """Refuse the generated vector unless every flag's property holds (vectors/flags.py, as `check` judges it): a
    false flag would make a vector that `check` refuses."""
    for flag in vector.flags:
        try:
            check_flag(vector, flag)
        except FlagDoesNotHold as exc:
            option = "--flag" if flag in args.flag else "--shape"
            raise InvalidInputError(option, f"{flag!r} does not hold for the generated vector: {exc}") from None


def _build(args, say):
    _check_at_least(args, {"constraints": 1, "public_inputs": 0, "sidecar_min": 0})
    if args.comment is not None:
        check_comment(args.comment, "--comment")
    _check_flag_names(args)
    return build_vector(
        args.log_n,
        args.seed,
        circuits=args.circuits,
        shape=args.shape,
        num_public=args.public_inputs,
        num_constraints=args.constraints,
        vector_id=_vector_id(args),
        comment=args.comment,
        flags=args.flag,
        progress=say,
        reference=args.reference,
    )


def _generated_document(args, say) -> tuple[dict, dict[str, bytes]]:
    """The document and sidecars of the vector `generate` makes, refused unless every flag holds of the vector as it
    will be read back (from --out and the sidecars beside it: the ``sidecar`` flag judges those files)."""
    vector = _build(args, say)
    out = Path(args.out)
    doc, sidecars = vector_document(vector, out.name.removesuffix(".json"), args.sidecar_min)
    _check_flags_hold(dataclasses.replace(vector, source_files=[out, *(out.parent / name for name in sidecars)]), args)
    return doc, sidecars


def generate_from_args(argv: list[str], out: str, progress) -> tuple[dict, dict[str, bytes]]:
    """Parse `generate` arguments and build (without writing) the document and sidecars of that vector."""
    return _generated_document(_parser().parse_args(["generate", *argv, "--out", out]), progress)


def _regenerate(args) -> int:
    say = Progress(args.quiet)
    chosen = [b for b in BUNDLED if not args.names or b.name in args.names]
    edge_names = [n for n in args.names if n.startswith("edge-")]
    unknown = sorted(set(args.names) - {b.name for b in BUNDLED} - {c.name for c in EDGE_CASES} - {SNARKJS_INTEROP.stem})
    if unknown:  # a name that matches nothing would check nothing and pass; refused before any vector is written
        raise InvalidInputError("names", f"no bundled vector is named {', '.join(unknown)}")
    stale, compared, made = [], [b.name for b in chosen], {SNARKJS_INTEROP}
    for b in chosen:
        say(f"{b.name}: {b.command}")
        files = _vector_files(b.path, *generate_from_args(list(b.args), str(b.path), say))
        made.update(files)
        if args.check:
            stale += [str(p) for p, data in files.items() if not p.exists() or p.read_bytes() != data]
        else:
            write_files_atomically(files)
    if not args.names or edge_names:
        stale += write_edge_vectors(check=args.check, names=edge_names or None, progress=say)
        cases = select_cases(edge_names or None)
        compared += [case.name for case in cases]
        made.update(case.path for case in cases)
    if not args.names or SNARKJS_INTEROP.stem in args.names:
        stale += _import_snarkjs_interop(args.check, say)
        compared.append(SNARKJS_INTEROP.stem)
    # every file there is bundled (bundled_paths): one that no step makes is not 'ok' either
    unmade = [str(p) for p in sorted(DATA_DIR.iterdir()) if p not in made] if args.check and not args.names else []
    if stale or unmade:
        print("\n".join(f"{what}: {', '.join(paths)}" for what, paths in
                        (("differ from a fresh generation", stale), ("made by no generator", unmade)) if paths))
        return 1
    if args.check:  # the verdict names what it covers: a silent exit 0 does not say which vectors were compared
        print(f"ok: {len(compared)} bundled vectors regenerate bit for bit ({', '.join(compared)})")
    return EXIT_OK


def _import_snarkjs_interop(check: bool, say) -> list[str]:
    """SNARKJS_INTEROP imported again from interop/snarkjs/ (SNARKJS_INTEROP_IMPORT) and written, or with ``check``
    compared: [its path] when it differs."""
    args = _parser().parse_args([*SNARKJS_INTEROP_IMPORT, "--out", str(SNARKJS_INTEROP)])
    say(f"{SNARKJS_INTEROP.stem}: python -m vectors {' '.join(SNARKJS_INTEROP_IMPORT)}")
    vector = import_snarkjs(args.r1cs, [args.wtns, *args.witness], args.zkey, args.id, seed=args.seed, progress=say,
                            curve=curve_primitive(args.reference), reference=args.reference)
    data = document_bytes(vector_document(vector, SNARKJS_INTEROP.stem, args.sidecar_min)[0])
    if check:
        return [] if SNARKJS_INTEROP.exists() and SNARKJS_INTEROP.read_bytes() == data else [str(SNARKJS_INTEROP)]
    write_files_atomically({SNARKJS_INTEROP: data})
    return []


def _check(args) -> int:
    """Every vector is checked before any verdict is printed: a bad vector later in the list leaves no 'ok' output."""
    say = Progress(args.quiet)
    verdicts = []
    if args.fast and args.reference:
        raise InvalidInputError("--reference", "recomputes every value; --fast judges by the oracles instead: choose one")
    for path in args.vectors:
        v = load_vector(path, progress=say, reference=args.reference)
        checked = check_vector_values(v, fast=args.fast, say=say, curve=curve_primitive(args.reference))
        verdicts.append(f"ok  {single_line(str(path))}: {v.id} (2^{v.r1cs.log_n}, {len(v.circuits)} circuit(s)): {checked}")
    print("\n".join(verdicts))
    return EXIT_OK


def _vector_id(args) -> str:
    """--id, by default --out's stem; refused before any work if a reader would refuse it (FORMAT.md)."""
    if args.id is not None:
        return check_vector_id(args.id, "--id")
    stem = Path(args.out).name.removesuffix(".json")
    try:
        return check_vector_id(stem, "--out")
    except InvalidInputError as exc:
        raise InvalidInputError("--out", f"its stem is the vector's id (without --id): {exc.problem}") from None


def _import_snarkjs(args) -> int:
    say = Progress(args.quiet)
    _check_at_least(args, {"sidecar_min": 0})
    vector_id = _vector_id(args)
    inputs = [args.r1cs, args.wtns, *args.witness, args.zkey]
    check_outputs_before_work({"--out": args.out}, {f"input {p}": p for p in inputs})
    vector = import_snarkjs(
        args.r1cs, [args.wtns, *args.witness], args.zkey, vector_id, seed=args.seed, progress=say,
        curve=curve_primitive(args.reference), reference=args.reference,
    )
    written = write_vector(vector, args.out, sidecar_min=args.sidecar_min, inputs=inputs)
    say("wrote " + ", ".join(str(p) for p in written))
    return EXIT_OK


def _export_bellman(args) -> int:
    say = Progress(args.quiet)
    written = export_bellman(load_vector(args.vector, progress=say), args.out)
    say("wrote " + ", ".join(str(p) for p in written))
    return EXIT_OK


def _import_bellman(args) -> int:
    say = Progress(args.quiet)
    _check_at_least(args, {"sidecar_min": 0})
    vector_id = _vector_id(args)
    if args.circuit and (args.wtns or args.seed):
        raise InvalidInputError("--circuit", "takes the witnesses, r and s from the vector: drop --wtns and --seed")
    if not args.circuit and not args.wtns:
        raise InvalidInputError("--wtns", "is required with --r1cs (one .wtns per circuit)")
    # The files named here; the circuit vector's sidecars, known once it is read, are checked when the vector is written.
    named = [args.parameters, *([args.circuit] if args.circuit else [args.r1cs, *args.wtns])]
    check_outputs_before_work({"--out": args.out}, {f"input {p}": p for p in named})
    if args.circuit:
        source = load_vector(args.circuit, progress=say, reference=args.reference)
        r1cs, witnesses, origin = source.r1cs, source.witnesses, {"circuit": Path(args.circuit).name}
    else:
        r1cs, witnesses, seed = read_circom_circuit(args.r1cs, args.wtns, args.seed, extra=read_file(args.parameters, "Parameters file"))
        origin = {"r1cs": Path(args.r1cs).name, "wtns": [Path(w).name for w in args.wtns], "seed": seed}
    inputs = [args.parameters, *(source.source_files if args.circuit else [args.r1cs, *args.wtns])]
    vector = import_bellman(args.parameters, r1cs, witnesses, vector_id, origin, progress=say,
                           curve=curve_primitive(args.reference), reference=args.reference)
    written = write_vector(vector, args.out, sidecar_min=args.sidecar_min, inputs=inputs)
    say("wrote " + ", ".join(str(p) for p in written))
    return EXIT_OK


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    commands = {
        "generate": _generate,
        "check": _check,
        "regenerate": _regenerate,
        "import-snarkjs": _import_snarkjs,
        "export-bellman": _export_bellman,
        "import-bellman": _import_bellman,
    }
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(run_main(main))
