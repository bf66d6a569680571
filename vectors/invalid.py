"""Invalid inputs, built from valid bundled vectors, for the bad-input tests.

Each ``InvalidCase`` copies a valid bundled vector (with its sidecars) into a folder, breaks exactly one
thing in the JSON document or a sidecar, and names what the readers must do about it: the error class,
the field the message names, and words of the problem. ``stage`` says who rejects it: ``load``
(vectors.format.load_vector, hence `python -m vectors check`, `python -m reference prove` and `verify`)
or ``prove`` (a well-formed vector whose witness does not satisfy its R1CS: the reference prover raises
UnsatisfiedConstraintError before any proof exists).

Bad points are made from the curve equations, not from valid encodings with a flipped bit, so each one
fails exactly the check it is meant for: ``off_curve_*`` have x^3 + b not a square, ``off_subgroup_*``
are on the curve but outside the order-r subgroup (BLS12-381's cofactors are > 1, so the curve has such
points), and ``x_at_least_p_*`` put p itself in a coordinate.
"""
import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from reference.curve import FQ, FQ2, G1_INTS, G2_INTS
from reference.encoding import COMPRESSION_FLAG, FQ_BYTES, INFINITY_FLAG, SORT_FLAG
from reference.subgroup import g1_in_subgroup, g2_in_subgroup
from reference.errors import (
    InvalidInputError,
    PointEncodingError,
    ScalarRangeError,
    SidecarError,
    SizeMismatchError,
    UnsatisfiedConstraintError,
)
from reference.field import P, R, SCALAR_BYTES

from .bundled import DATA_DIR
from .format import ELEMENT_BYTES

G1_HEX_DIGITS = 2 * FQ_BYTES
G2_HEX_DIGITS = 4 * FQ_BYTES
MAX_SEARCH = 1000
"""Candidates x = 0, 1, ... tried when looking for a bad point (each try succeeds with probability ~1/2)."""
LOG_N_TOO_LARGE = 32
"""Fr has 2-adicity 32: no domain of 2^32 points exists."""
INPUTS_NEEDING_2_POW_32_ROWS = 1 << 32
"""num_inputs whose input rows alone exceed the largest domain (2^31 rows)."""


# ----------------------------------------------------------------------------------------------
# Bad points, as compressed hex


def _compressed_g1(x: int, flags: int = COMPRESSION_FLAG) -> str:
    data = x.to_bytes(FQ_BYTES, "big")
    return (bytes([data[0] | flags]) + data[1:]).hex()


def _compressed_g2(c0: int, c1: int, flags: int = COMPRESSION_FLAG) -> str:
    return _compressed_g1(c1, flags) + c0.to_bytes(FQ_BYTES, "big").hex()


def _g1_candidates():
    """(x, y or None) for x = 0, 1, ...: y with y^2 = x^3 + 4, None when x^3 + 4 is not a square."""
    for x in range(MAX_SEARCH):
        yield x, G1_INTS.field.sqrt(G1_INTS.rhs(x))


def _g2_candidates():
    """(x, y or None) for x = k + u, k = 0, 1, ...: y with y^2 = x^3 + 4(u + 1), None when not a square."""
    for k in range(MAX_SEARCH):
        root = G2_INTS.field.sqrt(G2_INTS.rhs((k, 1)))
        yield FQ2([k, 1]), None if root is None else FQ2(list(root))


def off_curve_g1() -> str:
    """A G1 encoding whose x (the smallest such) has x^3 + 4 not a square in Fq: on no curve point."""
    return _compressed_g1(next(x for x, y in _g1_candidates() if y is None))


def off_subgroup_g1() -> str:
    """A G1 encoding of the first curve point (x = 0, 1, ...) that is outside the order-r subgroup."""
    x = next(x for x, y in _g1_candidates() if y is not None and not g1_in_subgroup((FQ(x), FQ(y), FQ.one())))
    return _compressed_g1(x)


def off_curve_g2() -> str:
    """A G2 encoding whose x = k + u has x^3 + 4(u + 1) not a square in Fq2."""
    x = next(x for x, y in _g2_candidates() if y is None)
    return _compressed_g2(*(int(c) for c in x.coeffs))


def off_subgroup_g2() -> str:
    """A G2 encoding of the first twist point (x = k + u) that is outside the order-r subgroup."""
    x = next(x for x, y in _g2_candidates() if y is not None and not g2_in_subgroup((x, y, FQ2.one())))
    return _compressed_g2(*(int(c) for c in x.coeffs))


def x_at_least_p_g1() -> str:
    """A compressed G1 encoding with x = p (not reduced)."""
    return _compressed_g1(P)


def x_c0_at_least_p_g2() -> str:
    """A compressed G2 encoding with x.c1 = 1 and x.c0 = p."""
    return _compressed_g2(P, 1)


def infinity_with_sort_g2() -> str:
    """Compressed G2 infinity with the sort flag also set (0xe0 then zeros)."""
    return _compressed_g2(0, 0, COMPRESSION_FLAG | INFINITY_FLAG | SORT_FLAG)


def identity_g1() -> str:
    """The valid compressed encoding of the G1 identity (0xc0 then zeros)."""
    return _compressed_g1(0, COMPRESSION_FLAG | INFINITY_FLAG)


def with_first_byte(hex_point: str, set_bits: int = 0, clear_bits: int = 0) -> str:
    """The encoding with flag bits of its first byte set or cleared."""
    first = (int(hex_point[:2], 16) | set_bits) & ~clear_bits & 0xFF
    return f"{first:02x}{hex_point[2:]}"


def scalar_hex(x: int) -> str:
    """x as 32 big-endian bytes of lowercase hex (x may be >= r: that is the point)."""
    return x.to_bytes(SCALAR_BYTES, "big").hex()


# ----------------------------------------------------------------------------------------------
# Document surgery


def _at(doc, path: tuple):
    for key in path:
        doc = doc[key]
    return doc


def replace(path: tuple, value) -> Callable[[dict, Path], None]:
    """A mutation setting doc[path] = value (value(old) if callable)."""

    def mutate(doc: dict, folder: Path) -> None:
        parent, key = _at(doc, path[:-1]), path[-1]
        parent[key] = value(parent[key]) if callable(value) else value

    return mutate


def delete(path: tuple) -> Callable[[dict, Path], None]:
    """A mutation removing doc[path] (a key, or a list item)."""

    def mutate(doc: dict, folder: Path) -> None:
        del _at(doc, path[:-1])[path[-1]]

    return mutate


def to_sidecar(path: tuple, kind: str, then: Callable[[dict, Path, Path], None] | None = None) -> Callable[[dict, Path], None]:
    """A mutation moving the inline array doc[path] into a sidecar file (a valid one), then applying
    then(reference, sidecar file, folder) to break it."""

    def mutate(doc: dict, folder: Path) -> None:
        items = _at(doc, path)
        data = bytes.fromhex("".join(items))
        name = "invalid." + ".".join(str(k) for k in path) + ".bin"
        (folder / name).write_bytes(data)
        ref = {"sidecar": name, "sha256": hashlib.sha256(data).hexdigest(), "count": len(items),
               "element": kind, "element_bytes": ELEMENT_BYTES[kind]}
        _at(doc, path[:-1])[path[-1]] = ref
        if then is not None:
            then(ref, folder / name, folder)

    return mutate


def in_sidecar(path: tuple, breaker: Callable[[dict, Path], None]) -> Callable[[dict, Path], None]:
    """A mutation breaking the existing sidecar file of doc[path] (a sidecar reference): breaker(reference, file)."""

    def mutate(doc: dict, folder: Path) -> None:
        ref = _at(doc, path)
        breaker(ref, folder / ref["sidecar"])

    return mutate


def truncate_file(ref: dict, file: Path, folder: Path | None = None) -> None:
    """Drop the sidecar's last byte (as an interrupted copy would)."""
    file.write_bytes(file.read_bytes()[:-1])


def flip_byte(ref: dict, file: Path, folder: Path | None = None) -> None:
    """Flip the low bit of a byte in the middle of the sidecar (same size, different sha256)."""
    data = bytearray(file.read_bytes())
    data[len(data) // 2] ^= 1
    file.write_bytes(bytes(data))


def remove_file(ref: dict, file: Path, folder: Path | None = None) -> None:
    """Delete the sidecar file (the reference stays)."""
    file.unlink()


def drop_last_element_consistently(ref: dict, file: Path, folder: Path | None = None) -> None:
    """Remove the last element and update count and sha256: a well-formed sidecar of the wrong length."""
    data = file.read_bytes()[: -ref["element_bytes"]]
    file.write_bytes(data)
    ref["count"] -= 1
    ref["sha256"] = hashlib.sha256(data).hexdigest()


def _unsatisfy(doc: dict, folder: Path) -> None:
    """Add 2 to aux value 0: it is defined by constraint 0 (ONE * k = aux_0 in the porep shape)."""
    aux = doc["circuits"][0]["aux_assignment"]
    aux[0] = scalar_hex((int(aux[0], 16) + 2) % R)


# ----------------------------------------------------------------------------------------------
# The cases


@dataclass(frozen=True)
class InvalidCase:
    """One broken input: the valid vector it starts from, how it is broken, and the rejection it must get."""

    name: str
    base: str
    """Stem of the valid bundled vector under vectors/data/ that is copied and broken."""
    mutate: Callable[[dict, Path], None]
    """Breaks the parsed JSON document (and/or sidecar files in the folder) in place."""
    error: type
    field: str
    """The field the error names (``exc.field``); for UnsatisfiedConstraintError, the circuit ("circuit 0")."""
    problem: str
    """Words the problem text contains."""
    stage: str = "load"


SMALL = "porep-log03"
"""3 inputs, 2 aux, n = 8: cheap to load, every array inline."""
SIDECARS = "sidecar-log08"
"""The bundled vector whose large arrays are sidecar files (proving_key.h is the first one read)."""

PK, VK, C0 = "proving_key", "verifying_key", "circuits"

INVALID_CASES = (
    # points: decoding (ZCash compressed encoding)
    InvalidCase("g1-off-curve", SMALL, replace((PK, "h", 0), off_curve_g1()), PointEncodingError,
                "proving_key.h[0]", "not on the curve"),
    InvalidCase("g1-off-subgroup", SMALL, replace((VK, "alpha_g1"), off_subgroup_g1()), PointEncodingError,
                "verifying_key.alpha_g1", "not in the prime-order subgroup"),
    InvalidCase("g1-off-subgroup-ic", SMALL, replace((VK, "ic", 2), off_subgroup_g1()), PointEncodingError,
                "verifying_key.ic[2]", "not in the prime-order subgroup"),
    InvalidCase("g2-off-curve", SMALL, replace((VK, "beta_g2"), off_curve_g2()), PointEncodingError,
                "verifying_key.beta_g2", "not on the curve"),
    InvalidCase("g2-off-subgroup", SMALL, replace((PK, "b_g2", 0), off_subgroup_g2()), PointEncodingError,
                "proving_key.b_g2[0]", "not in the prime-order subgroup"),
    InvalidCase("g1-compression-flag-clear", SMALL, replace((PK, "l", 0), lambda h: with_first_byte(h, clear_bits=COMPRESSION_FLAG)),
                PointEncodingError, "proving_key.l[0]", "compression flag"),
    InvalidCase("g2-compression-flag-clear", SMALL, replace((VK, "delta_g2"), lambda h: with_first_byte(h, clear_bits=COMPRESSION_FLAG)),
                PointEncodingError, "verifying_key.delta_g2", "compression flag"),
    InvalidCase("g1-infinity-flag-on-a-point", SMALL, replace((PK, "a", 1), lambda h: with_first_byte(h, set_bits=INFINITY_FLAG, clear_bits=SORT_FLAG)),
                PointEncodingError, "proving_key.a[1]", "infinity flag set but x bits non-zero"),
    InvalidCase("g2-infinity-with-sort-flag", SMALL, replace((VK, "gamma_g2"), infinity_with_sort_g2()), PointEncodingError,
                "verifying_key.gamma_g2", "infinity flag set but sort flag also set"),
    InvalidCase("g1-short", SMALL, replace((VK, "delta_g1"), lambda h: h[:-2]), PointEncodingError,
                "verifying_key.delta_g1", "expected 48 bytes, got 47"),
    InvalidCase("g2-long", SMALL, replace((VK, "delta_g2"), lambda h: h + "00"), PointEncodingError,
                "verifying_key.delta_g2", "expected 96 bytes, got 97"),
    InvalidCase("g1-uncompressed-length", SMALL, replace((PK, "h", 3), lambda h: with_first_byte(h, clear_bits=COMPRESSION_FLAG) + "00" * FQ_BYTES),
                PointEncodingError, "proving_key.h[3]", "expected 48 bytes, got 96"),
    InvalidCase("g1-x-equals-p", SMALL, replace((PK, "h", 1), x_at_least_p_g1()), PointEncodingError,
                "proving_key.h[1]", "x >= p"),
    InvalidCase("g2-x-c0-equals-p", SMALL, replace((PK, "b_g2", 0), x_c0_at_least_p_g2()), PointEncodingError,
                "proving_key.b_g2[0]", "x.c0 >= p"),
    InvalidCase("g1-uppercase-hex", SMALL, replace((PK, "h", 2), lambda h: h.upper()), PointEncodingError,
                "proving_key.h[2]", "lowercase hex"),
    InvalidCase("expected-proof-off-curve", SMALL, replace((C0, 0, "expected", "proof", "a"), off_curve_g1()),
                PointEncodingError, "circuits[0].expected.proof.a", "not on the curve"),
    InvalidCase("expected-b-g2-off-subgroup", SMALL, replace((C0, 0, "expected", "tail_msm", "b_g2"), off_subgroup_g2()),
                PointEncodingError, "circuits[0].expected.tail_msm.b_g2", "not in the prime-order subgroup"),
    # scalars >= r
    InvalidCase("aux-equals-r", SMALL, replace((C0, 0, "aux_assignment", 0), scalar_hex(R)), ScalarRangeError,
                "circuits[0].aux_assignment[0]", "is not < r"),
    InvalidCase("public-input-equals-r", SMALL, replace((C0, 0, "public_inputs", 1), scalar_hex(R)), ScalarRangeError,
                "circuits[0].public_inputs[1]", "is not < r"),
    InvalidCase("blinding-s-max", SMALL, replace((C0, 0, "s"), scalar_hex(2**256 - 1)), ScalarRangeError,
                "circuits[0].s", "is not < r"),
    InvalidCase("r1cs-coefficient-equals-r", SMALL, replace(("r1cs", "a", 0, 0, 1), scalar_hex(R)), ScalarRangeError,
                "r1cs.a[0][0][1]", "is not < r"),
    InvalidCase("evaluation-above-r", SMALL, replace((C0, 0, "expected", "evaluate", "c", 0), scalar_hex(R + 1)),
                ScalarRangeError, "circuits[0].expected.evaluate.c[0]", "is not < r"),
    InvalidCase("tail-scalar-equals-r", SMALL, replace((C0, 0, "expected", "prep", "a", "tail_scalars", 0), scalar_hex(R)),
                ScalarRangeError, "circuits[0].expected.prep.a.tail_scalars[0]", "is not < r"),
    InvalidCase("trapdoor-equals-r", SMALL, replace(("trapdoor", "tau"), scalar_hex(R)), ScalarRangeError,
                "trapdoor.tau", "is not < r"),
    InvalidCase("scalar-short", SMALL, replace((C0, 0, "aux_assignment", 1), lambda h: h[2:]), InvalidInputError,
                "circuits[0].aux_assignment[1]", "expected a scalar as 64 hex digits"),
    # a witness that does not satisfy the circuit
    InvalidCase("unsatisfied-witness", SMALL, _unsatisfy, UnsatisfiedConstraintError, "circuit 0",
                "constraint 0 is not satisfied", stage="prove"),
    # sizes: queries, densities, witnesses, expected outputs
    InvalidCase("a-query-shorter-than-density", SMALL, delete((PK, "a", -1)), SizeMismatchError,
                "proving_key.a", "has 4 elements; expected 5"),
    InvalidCase("b-g2-query-longer-than-density", SMALL, replace((PK, "b_g2"), lambda q: q + q[:1]), SizeMismatchError,
                "proving_key.b_g2", "has 2 elements; expected 1"),
    InvalidCase("h-query-short", SMALL, delete((PK, "h", 0)), SizeMismatchError, "proving_key.h", "expected 7"),
    InvalidCase("l-query-long", SMALL, replace((PK, "l"), lambda q: q + q[:1]), SizeMismatchError, "proving_key.l", "expected 2"),
    InvalidCase("density-disagrees-with-r1cs", SMALL, replace(("density", "b_aux", "hex"), "0100000000000000"),
                SizeMismatchError, "density.b_aux", "bit 0 is 1 but the R1CS says 0"),
    InvalidCase("density-bit-count", SMALL, replace(("density", "a_aux", "bits"), 3), SizeMismatchError,
                "density.a_aux", "has 3 bits; expected 2"),
    InvalidCase("density-padding-bit", SMALL, replace(("density", "a_aux", "hex"), "0700000000000000"), InvalidInputError,
                "density.a_aux", "padding bits"),
    InvalidCase("density-words", SMALL, replace(("density", "b_input", "hex"), "01"), SizeMismatchError,
                "density.b_input", "need 1 64-bit words"),
    InvalidCase("ic-short", SMALL, delete((VK, "ic", -1)), SizeMismatchError, "verifying_key.ic", "expected 3"),
    InvalidCase("witness-short", SMALL, delete((C0, 0, "aux_assignment", -1)), SizeMismatchError,
                "circuits[0].aux_assignment", "expected 2"),
    InvalidCase("public-inputs-long", SMALL, replace((C0, 0, "public_inputs"), lambda x: x + x[:1]), SizeMismatchError,
                "circuits[0].public_inputs", "expected 2"),
    InvalidCase("ntt-h-length", SMALL, delete((C0, 0, "expected", "ntt_h", "h", -1)), SizeMismatchError,
                "circuits[0].expected.ntt_h.h", "expected 7"),
    InvalidCase("tail-scalars-count", SMALL, delete((C0, 0, "expected", "prep", "l", "tail_scalars", -1)), SizeMismatchError,
                "circuits[0].expected.prep.l.tail_scalars", "one scalar per tail index"),
    InvalidCase("tail-index-out-of-range", SMALL, replace(("prep", "b", "tail_indices"), [1]), InvalidInputError,
                "prep.b.tail_indices", "ascending distinct positions in 0..0"),
    InvalidCase("num-constraints-disagree", SMALL, replace(("r1cs", "num_constraints"), 5), SizeMismatchError,
                "r1cs.num_constraints", "the matrices have 4 rows"),
    InvalidCase("variable-out-of-range", SMALL, replace(("r1cs", "c", 0, 0, 0), 5), SizeMismatchError,
                "r1cs.c[0]", "variable 5 is outside 0..4"),
    # the domain
    InvalidCase("log-n-32", SMALL, replace(("domain", "log_n"), LOG_N_TOO_LARGE), SizeMismatchError,
                "domain.log_n", "outside 1..31"),
    InvalidCase("log-n-0", SMALL, replace(("domain", "log_n"), 0), SizeMismatchError, "domain.log_n", "outside 1..31"),
    InvalidCase("log-n-disagrees", SMALL, replace(("domain", "log_n"), 4), SizeMismatchError,
                "domain.log_n", "need log n = 3"),
    InvalidCase("r1cs-needs-2-pow-32-rows", SMALL, replace(("r1cs", "num_inputs"), INPUTS_NEEDING_2_POW_32_ROWS),
                SizeMismatchError, "r1cs", ">= 2^32"),
    InvalidCase("unknown-convention", SMALL, replace(("domain", "convention"), "arkworks"), InvalidInputError,
                "domain.convention", "unknown convention"),
    # sidecars
    InvalidCase("sidecar-truncated", SIDECARS, in_sidecar((PK, "h"), truncate_file), SidecarError,
                "proving_key.h", "truncated or corrupted"),
    InvalidCase("sidecar-corrupted", SIDECARS, in_sidecar((PK, "h"), flip_byte), SidecarError,
                "proving_key.h", "sha256"),
    InvalidCase("sidecar-missing", SIDECARS, in_sidecar((PK, "h"), remove_file), SidecarError,
                "proving_key.h", "cannot read the sidecar"),
    InvalidCase("sidecar-witness-corrupted", SMALL, to_sidecar((C0, 0, "aux_assignment"), "scalar", flip_byte), SidecarError,
                "circuits[0].aux_assignment", "sha256"),
    InvalidCase("sidecar-count-disagrees-with-density", SMALL, to_sidecar((PK, "a"), "g1", drop_last_element_consistently),
                SizeMismatchError, "proving_key.a.count", "is 4; expected 5"),
    InvalidCase("sidecar-outside-folder", SMALL, to_sidecar((PK, "l"), "g1", lambda ref, f, d: ref.update(sidecar="../" + f.name)),
                SidecarError, "proving_key.l", "plain file name"),
    InvalidCase("sidecar-wrong-element", SMALL, to_sidecar((PK, "b_g2"), "g2", lambda ref, f, d: ref.update(element="g1", element_bytes=48)),
                SidecarError, "proving_key.b_g2", "expected g2 of 96"),
    # the document
    InvalidCase("missing-field", SMALL, delete((VK, "delta_g2")), InvalidInputError, "verifying_key.delta_g2", "is missing"),
    InvalidCase("wrong-format", SMALL, replace(("format",), "groth16-bn254-test-vector"), InvalidInputError,
                "format", "expected 'groth16-bls12-381-test-vector'"),
)


def materialize(case: InvalidCase, folder) -> Path:
    """Copy case.base (and its sidecars) into folder, apply the mutation, and return the broken vector's path."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    source = DATA_DIR / f"{case.base}.json"
    doc = json.loads(source.read_text())
    for sidecar in DATA_DIR.glob(f"{case.base}.*.bin"):
        shutil.copy(sidecar, folder / sidecar.name)
    case.mutate(doc, folder)
    path = folder / f"{case.base}.json"
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def proof_document(vector_path, circuit: int = 0) -> dict:
    """The expected proof of a vector's circuit as a proof file object ({"a", "b", "c"})."""
    doc = json.loads(Path(vector_path).read_text())
    return dict(doc["circuits"][circuit]["expected"]["proof"])


def write_proof(folder, proof, name: str = "proof.json") -> Path:
    """Write a proof file (one object or a list) into folder."""
    path = Path(folder) / name
    path.write_text(json.dumps(proof, indent=1) + "\n")
    return path
