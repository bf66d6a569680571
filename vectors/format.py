"""Reading and writing test vectors (the format is specified in vectors/FORMAT.md).

The reader validates everything before returning: every point decodes (ZCash encoding), lies on
the curve and in the prime-order subgroup; every scalar is < r; every size agrees with the R1CS and
the densities; every sidecar's sha256 matches. Any problem raises an ``InvalidInputError`` subclass
naming the JSON field (``proving_key.h[17]``) and the problem.

The writer writes each file to a temporary name and renames it into place, so a failed run leaves
no partial vector behind.
"""
import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from reference.assemble import Proof
from reference.cli import read_json
from reference.encoding import encode_g1_many, encode_g2_many, hex_to_bytes
from reference.domain import CONVENTIONS, DomainConvention
from reference.errors import InvalidInputError, ScalarRangeError, SidecarError, SizeMismatchError
from reference.evaluate import Evaluations, evaluate_satisfied
from reference.field import R, SCALAR_BYTES
from reference.keys import QUERIES, ProvingKey, QuerySums, VerifyingKey, check_proving_key, check_verifying_key
from reference.prep import PREP_QUERIES, WORD_BITS, Prep, QuerySplit, bitmap_bytes
from reference.prover import PHASES, CircuitOutputs, Witness
from reference.r1cs import R1CS, Density, witness_vector
from reference.safe_files import MAX_BINARY_BYTES, check_outputs, check_replaceable, read_regular_file
from reference.setup import TEST_ONLY_BANNER, Trapdoor

from .decoding import PointDecoder

FORMAT_NAME = "groth16-bls12-381-test-vector"
FORMAT_VERSION = 1
ELEMENT_BYTES = {"scalar": SCALAR_BYTES, "g1": 48, "g2": 96}
"""Bytes per element of each array kind: 32-byte big-endian scalars, ZCash-compressed G1 and G2 points."""

EXPECTED_ENTRIES = ("evaluate", "ntt_h", "msm_h", "prep", "batch_add", "tail_msm", "proof")
"""One expected entry per phase; ``proof`` is the output of the ``assemble`` phase."""

COSET_OMEGA_2N = "omega_2n"
"""``domain.coset_generator`` of a convention whose coset is omega_2n*H (snarkjs): g depends on n, so the file names it."""


def domain_fields(convention: DomainConvention) -> dict:
    """The ``domain`` entries after ``log_n``: {"root_generator": 7, "coset_generator": 7} for bellman,
    {"root_generator": 5, "coset_generator": "omega_2n"} for snarkjs (FORMAT.md, "Interoperability")."""
    coset = COSET_OMEGA_2N if convention.coset_generator is None else convention.coset_generator
    return {"root_generator": convention.root_generator, "coset_generator": coset}


@dataclass
class CircuitCase:
    witness: Witness
    expected: CircuitOutputs | None = None
    """This circuit's expected phase outputs (prep's shared tail layout is merged in), or None."""


@dataclass
class Vector:
    id: str
    comment: str
    flags: list[str]
    convention: DomainConvention
    r1cs: R1CS
    pk: ProvingKey
    circuits: list[CircuitCase]
    trapdoor: Trapdoor | None = None
    expected_prep: Prep | None = None
    generator: dict = field(default_factory=dict)
    computed_by: dict = field(default_factory=dict)
    """Which implementation computed the keys and each phase's expected output (FORMAT.md, ``computed_by``)."""
    source_files: list[Path] = field(default_factory=list, compare=False)
    """The files it was read from (JSON and sidecars): a command must not write over them."""

    @property
    def witnesses(self) -> list[Witness]:
        return [c.witness for c in self.circuits]


# ----------------------------------------------------------------------------------------------
# Primitive decoders: each names the field it reads.

_LOWER_HEX = frozenset("0123456789abcdef")


def _is_lower_hex(value: str) -> bool:
    """Only the digits 0-9a-f: int(x, 16) and bytes.fromhex also take upper case, signs, '_' and spaces."""
    return _LOWER_HEX.issuperset(value)


def _int_field(value, where: str, minimum: int = 0) -> int:
    """A JSON integer >= minimum (bool is not an integer here, although Python says it is)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InvalidInputError(where, f"expected an integer >= {minimum}, got {value!r:.80}")
    return value


def _scalar(value, where: str) -> int:
    if not isinstance(value, str) or len(value) != 2 * SCALAR_BYTES:
        raise InvalidInputError(where, f"expected a scalar as {2 * SCALAR_BYTES} hex digits, got {value!r:.80}")
    if not _is_lower_hex(value):
        raise InvalidInputError(where, f"is not lowercase hexadecimal: {value!r:.80}")
    x = int(value, 16)
    if x >= R:
        raise ScalarRangeError(where, f"{value} is not < r")
    return x


def _bitmap(value, where: str, count: int) -> tuple[bool, ...]:
    """A bitmap: {"bits": count, "hex": bytes as hex}, bit i = bit (i mod 8) of byte (i div 8), zero-padded to 64-bit words."""
    if not isinstance(value, dict) or set(value) != {"bits", "hex"}:
        raise InvalidInputError(where, 'expected {"bits": N, "hex": "..."}')
    _int_field(value["bits"], f"{where}.bits")
    if value["bits"] != count:
        raise SizeMismatchError(where, f"has {value['bits']} bits; expected {count}")
    raw = _hex_bytes(value["hex"], where)
    words = -(-count // WORD_BITS)
    if len(raw) != words * WORD_BITS // 8:
        raise SizeMismatchError(where, f"has {len(raw)} bytes; {count} bits need {words} 64-bit words = {words * 8} bytes")
    bits = [bool(raw[i // 8] >> (i % 8) & 1) for i in range(len(raw) * 8)]
    if any(bits[count:]):
        raise InvalidInputError(where, "padding bits beyond the last position are set")
    return tuple(bits[:count])


def _hex_bytes(value, where: str) -> bytes:
    if not isinstance(value, str) or len(value) % 2 or not _is_lower_hex(value):
        raise InvalidInputError(where, f"expected lowercase hex with an even number of digits, got {value!r:.80}")
    return bytes.fromhex(value)


def point_from_hex(kind: str, hex_value, where: str) -> bytes:
    """The encoding of a ``kind`` point stored as hex (PointDecoder's ``prepare``, bound to ``kind``)."""
    if not isinstance(hex_value, str):
        raise InvalidInputError(where, f"expected a {kind.upper()} point as hex")
    return hex_to_bytes(hex_value, where)


SHA256_HEX_DIGITS = 64
SIDECAR_SUFFIX = ".bin"
SIDECAR_NAME_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-+")
MAX_SIDECAR_NAME = 255
"""The longest file name common file systems take."""


def check_sidecar_name(name, where: str) -> str:
    """A sidecar name readers accept and writers produce: a plain file name (letters, digits, ``._-+``) in the vector's
    folder, not starting with a dot, ending in .bin, at most 255 characters (FORMAT.md, "Arrays and sidecars")."""
    if not (
        isinstance(name, str)
        and 0 < len(name) <= MAX_SIDECAR_NAME
        and SIDECAR_NAME_CHARACTERS.issuperset(name)
        and not name.startswith(".")
        and name.endswith(SIDECAR_SUFFIX)
    ):
        raise SidecarError(where, f"{name!r:.80} must be a plain file name in the vector's folder: letters, digits and ._-+, "
                           f"not starting with a dot, ending in {SIDECAR_SUFFIX}, at most {MAX_SIDECAR_NAME} characters")
    return name


MAX_VECTOR_ID = MAX_SIDECAR_NAME
"""An id is a file name stem (FORMAT.md, *Top level*)."""
COMMENT_CHARACTERS = frozenset(map(chr, range(ord(" "), ord("~") + 1)))
"""Printable ASCII: one rule in every language (Unicode's printable classes change between versions)."""


def check_vector_id(value, where: str) -> str:
    """An id readers accept and writers produce: 1 to 255 letters, digits and ``._-+`` (FORMAT.md, "Canonical input"),
    so that no line that prints it can be split or forged."""
    if not (isinstance(value, str) and 0 < len(value) <= MAX_VECTOR_ID and SIDECAR_NAME_CHARACTERS.issuperset(value)):
        raise InvalidInputError(where, f"{value!r:.80} must be 1 to {MAX_VECTOR_ID} letters, digits and ._-+")
    return value


def check_comment(value, where: str) -> str:
    """A comment readers accept and writers produce: one line of printable ASCII (FORMAT.md, "Canonical input")."""
    if not (isinstance(value, str) and COMMENT_CHARACTERS.issuperset(value)):
        raise InvalidInputError(where, f"{value!r:.80} must be one line of printable ASCII characters (space to ~)")
    return value


def printable_text(text: str) -> str:
    """``text`` with every character outside printable ASCII escaped as Python does (a file name in a comment)."""
    return ascii(text)[1:-1]


class _ArrayReader:
    """Reads arrays stored inline (a JSON list of hex strings) or in a binary sidecar file."""

    def __init__(self, base_dir: Path, decoder: PointDecoder):
        self.base_dir = base_dir
        self.decoder = decoder
        self.sidecar_paths: list[Path] = []

    def read(self, value, kind: str, where: str, expected_len: int) -> list:
        """The ``expected_len`` elements of the array (the length the vector's shape requires)."""
        items, from_sidecar = self._items(value, kind, where, expected_len)
        if len(items) != expected_len:
            raise SizeMismatchError(where, f"has {len(items)} elements; expected {expected_len}")
        if kind == "scalar":
            return [_scalar(item.hex() if from_sidecar else item, f"{where}[{i}]") for i, item in enumerate(items)]
        return self.decoder.many(items, kind, where, prepare=None if from_sidecar else functools.partial(point_from_hex, kind))

    def point(self, hex_value, kind: str, where: str) -> tuple:
        """One point stored inline as hex."""
        return self.decoder.one(hex_value, kind, where, prepare=functools.partial(point_from_hex, kind))

    def _items(self, value, kind: str, where: str, expected_len: int) -> tuple[list, bool]:
        """(the elements: JSON values, or the sidecar's raw bytes of each; True for a sidecar)."""
        if isinstance(value, list):
            return value, False
        if isinstance(value, dict) and "sidecar" in value:
            return self._sidecar_items(value, kind, where, expected_len), True
        raise InvalidInputError(where, "expected a JSON list or a sidecar reference")

    def _sidecar_items(self, ref: dict, kind: str, where: str, expected_len: int) -> list[bytes]:
        required = {"sidecar", "sha256", "count", "element", "element_bytes"}
        if set(ref) != required:
            raise SidecarError(where, f"a sidecar reference has exactly the keys {sorted(required)}")
        if ref["element"] != kind or ref["element_bytes"] != ELEMENT_BYTES[kind]:
            raise SidecarError(where, f"sidecar holds {ref['element']} elements of {ref['element_bytes']} bytes; expected {kind} of {ELEMENT_BYTES[kind]}")
        # The count is checked against the vector's shape before the file is opened, so that the bytes read follow what
        # the vector needs, not what the reference claims.
        if _int_field(ref["count"], f"{where}.count") != expected_len:
            raise SizeMismatchError(f"{where}.count", f"is {ref['count']}; expected {expected_len}")
        name = check_sidecar_name(ref["sidecar"], where)
        if not isinstance(ref["sha256"], str) or len(ref["sha256"]) != SHA256_HEX_DIGITS or not _is_lower_hex(ref["sha256"]):
            raise SidecarError(f"{where}.sha256", f"expected {SHA256_HEX_DIGITS} lowercase hex digits")
        size = ref["count"] * ref["element_bytes"]
        if size > MAX_BINARY_BYTES:
            raise SidecarError(where, f"{ref['count']} elements need {size} bytes; a sidecar is read up to {MAX_BINARY_BYTES}")
        try:  # a regular file, not a link, at most the size the reference claims (checked before reading)
            data = read_regular_file(self.base_dir / name, "sidecar", max_bytes=size, follow_links=False)
        except InvalidInputError as exc:
            raise SidecarError(where, f"sidecar {name}: {exc.problem}") from None
        self.sidecar_paths.append(self.base_dir / name)
        if len(data) != size:
            raise SidecarError(where, f"sidecar {name} has {len(data)} bytes; {ref['count']} elements need {size} (truncated or corrupted)")
        digest = hashlib.sha256(data).hexdigest()
        if digest != ref["sha256"]:
            raise SidecarError(where, f"sidecar {name} sha256 is {digest}; the vector says {ref['sha256']} (corrupted or replaced)")
        step = ref["element_bytes"]
        return [data[i : i + step] for i in range(0, size, step)]


# ----------------------------------------------------------------------------------------------
# Reading


def load_vector(path, progress=None, reference: bool = False) -> Vector:
    """Read and fully validate a vector file; raise InvalidInputError (naming the field) on any problem.
    Points are decoded with the fast library where installed, by reference/encoding.py alone with ``reference``
    (vectors/decoding.py)."""
    path = Path(path)
    vector = parse_vector(read_json(path), path.parent, progress or (lambda message: None), reference)
    vector.source_files = [path, *vector.source_files]
    return vector


def _get(doc: dict, key: str, where: str):
    if not isinstance(doc, dict) or key not in doc:
        raise InvalidInputError(f"{where}.{key}" if where else key, "is missing")
    return doc[key]


def parse_vector(doc: dict, base_dir: Path, say=lambda m: None, reference: bool = False) -> Vector:
    """Validate a parsed vector document (see load_vector)."""
    _check_top_level(doc)
    arrays = _ArrayReader(base_dir, PointDecoder(reference=reference, progress=say))
    convention = _parse_domain(_get(doc, "domain", ""))
    r1cs = _parse_r1cs(_get(doc, "r1cs", ""))
    if r1cs.log_n != doc["domain"]["log_n"]:
        raise SizeMismatchError("domain.log_n", f"is {doc['domain']['log_n']}; the R1CS's {r1cs.num_rows} rows need log n = {r1cs.log_n}")
    density = _parse_density(_get(doc, "density", ""), r1cs)
    say(f"{doc.get('id', '?')}: decoding keys")
    vk = _parse_vk(_get(doc, "verifying_key", ""), arrays, r1cs.num_inputs)
    h_length = convention.h_length(r1cs.n)
    pk = _parse_pk(_get(doc, "proving_key", ""), arrays, vk, r1cs, density, h_length)
    circuits_doc = _get(doc, "circuits", "")
    if not isinstance(circuits_doc, list) or not circuits_doc:
        raise InvalidInputError("circuits", "expected a non-empty list")
    for i, circuit_doc in enumerate(circuits_doc):
        if not isinstance(circuit_doc, dict):
            raise InvalidInputError(f"circuits[{i}]", "expected an object")
    # Before any circuit is decoded: a vector the rule refuses costs no reading of its circuits' sidecars.
    check_sections(["expected" in circuit_doc for circuit_doc in circuits_doc], has_prep="prep" in doc)
    say(f"{doc.get('id', '?')}: decoding {len(circuits_doc)} circuit(s)")
    circuits = [_parse_circuit(c, i, arrays, r1cs, h_length) for i, c in enumerate(circuits_doc)]
    expected_prep = None
    if "prep" in doc:
        expected_prep = _parse_prep(doc["prep"], circuits_doc, r1cs, pk)
        for case in circuits:
            if case.expected is not None:
                case.expected = dataclasses.replace(case.expected, prep=expected_prep)
    trapdoor = _parse_trapdoor(doc["trapdoor"], r1cs.n) if "trapdoor" in doc else None
    flags = doc.get("flags", [])
    return Vector(
        id=doc["id"],
        comment=doc.get("comment", ""),
        flags=flags,
        convention=convention,
        r1cs=r1cs,
        pk=pk,
        circuits=circuits,
        trapdoor=trapdoor,
        expected_prep=expected_prep,
        generator=doc.get("generator", {}),
        computed_by=_parse_computed_by(doc.get("computed_by"), has_expected=any(c.expected is not None for c in circuits)),
        source_files=arrays.sidecar_paths,
    )


def check_sections(with_expected: list[bool], has_prep: bool) -> None:
    """FORMAT.md "Canonical input", Sections: expected outputs for every circuit, with the shared prep, or none of
    them: a section present for some circuits only would leave its stated values unjudged by any reader that takes
    the other branch (conformance would skip those phases, or judge them by oracles)."""
    if any(with_expected) and not all(with_expected):
        missing = with_expected.index(False)
        raise InvalidInputError(f"circuits[{missing}].expected", "is missing while other circuits have one: all or none")
    if all(with_expected) and not has_prep:
        raise InvalidInputError("prep", "is missing: the circuits' expected outputs need the shared prep layout")
    if not any(with_expected) and has_prep:
        raise InvalidInputError("prep", "is present but no circuit has expected outputs: all or none")


TOP_LEVEL_REQUIRED = ("format", "format_version", "id", "curve", "domain", "r1cs", "density", "verifying_key", "proving_key", "circuits")
TOP_LEVEL_OPTIONAL = ("comment", "flags", "generator", "computed_by", "trapdoor", "prep")
CURVE_NAME = "bls12-381"


def _check_top_level(doc) -> None:
    """The document is an object with exactly the known top-level fields, each in its one canonical form
    (``format_version`` the integer 1, not true or 1.0; ``curve`` exactly "bls12-381")."""
    if not isinstance(doc, dict):
        raise InvalidInputError("(document)", "expected a JSON object (a test vector)")
    unknown = sorted(set(doc) - set(TOP_LEVEL_REQUIRED) - set(TOP_LEVEL_OPTIONAL))
    if unknown:
        raise InvalidInputError(unknown[0], "is not a field of this format (version 1); a reader would ignore what it says")
    for key in TOP_LEVEL_REQUIRED:
        _get(doc, key, "")
    if doc["format"] != FORMAT_NAME:
        raise InvalidInputError("format", f"expected {FORMAT_NAME!r}")
    if type(doc["format_version"]) is not int or doc["format_version"] != FORMAT_VERSION:
        raise InvalidInputError("format_version", f"expected the integer {FORMAT_VERSION}: this reader understands version {FORMAT_VERSION}")
    if doc["curve"] != CURVE_NAME:
        raise InvalidInputError("curve", f"expected {CURVE_NAME!r}")
    check_vector_id(doc["id"], "id")
    if "comment" in doc:
        check_comment(doc["comment"], "comment")
    if "generator" in doc and not isinstance(doc["generator"], dict):
        raise InvalidInputError("generator", "expected an object")
    flags = doc.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise InvalidInputError("flags", "expected a list of strings")
    check_flags_listed_once(flags, "flags")
    _check_all_object_fields(doc)


def check_flags_listed_once(flags: list[str], where: str) -> None:
    """Each flag at most once (FORMAT.md, "Canonical input"): a repeated claim is one a reader might count twice."""
    first = {}
    for i, flag in enumerate(flags):
        if flag in first:
            raise InvalidInputError(f"{where}[{i}]", f"{flag!r:.80} is listed already ({where}[{first[flag]}]): each flag at most once")
        first[flag] = i


_SUMS = {"l": None, "a": None, "b_g1": None, "b_g2": None}
_PREP_SHARED = {"split": None, "tail_indices": None}
_PREP_CIRCUIT = {"bitmap": {"bits": None, "hex": None}, "tail_scalars": None}
OBJECT_FIELDS = {
    "domain": {"convention": None, "log_n": None, "root_generator": None, "coset_generator": None},
    "r1cs": {"num_inputs": None, "num_aux": None, "num_constraints": None, "a": None, "b": None, "c": None},
    "density": {name: {"bits": None, "hex": None} for name in ("a_aux", "b_input", "b_aux")},
    "verifying_key": dict.fromkeys(("alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2", "ic")),
    "proving_key": dict.fromkeys(("h", "l", "a", "b_g1", "b_g2")),
    "trapdoor": dict.fromkeys(("warning", "tau", "alpha", "beta", "gamma", "delta")),
    "prep": {q: _PREP_SHARED for q in PREP_QUERIES},
    "circuits[]": {
        "public_inputs": None, "aux_assignment": None, "r": None, "s": None,
        "expected": {
            "evaluate": dict.fromkeys("abc"), "ntt_h": {"h": None}, "msm_h": {"h": None},
            "prep": {q: _PREP_CIRCUIT for q in PREP_QUERIES}, "batch_add": _SUMS, "tail_msm": _SUMS, "proof": dict.fromkeys("abc"),
        },
    },
}
"""The fields each object of the format may hold (None: a leaf, checked by its parser); any other field is refused."""


def _check_object_fields(value, schema: dict, where: str) -> None:
    """Refuse a field the format does not define, at any depth of ``schema`` (missing fields are refused by the parsers)."""
    if not isinstance(value, dict):
        return
    unknown = sorted(set(value) - set(schema))
    if unknown:
        raise InvalidInputError(f"{where}.{unknown[0]}", "is not a field of this format (version 1); a reader would ignore what it says")
    for key, sub in schema.items():
        if sub is not None and key in value:
            _check_object_fields(value[key], sub, f"{where}.{key}")


def _check_all_object_fields(doc: dict) -> None:
    for key, schema in OBJECT_FIELDS.items():
        if key == "circuits[]":
            for i, circuit in enumerate(doc["circuits"] if isinstance(doc["circuits"], list) else []):
                _check_object_fields(circuit, schema, f"circuits[{i}]")
        elif key in doc:
            _check_object_fields(doc[key], schema, key)


COMPUTED_BY_KEYS_ENTRY = "proving_key"
"""``computed_by``'s entry for the keys, present when this toolkit's setup computed them (absent for imported keys)."""


def _parse_computed_by(d, has_expected: bool) -> dict:
    """``computed_by`` (optional): non-empty strings naming an implementation, for every phase when the circuits have
    expected outputs, and optionally for the keys."""
    if d is None:
        return {}
    if not isinstance(d, dict):
        raise InvalidInputError("computed_by", "expected an object")
    allowed = {COMPUTED_BY_KEYS_ENTRY, *PHASES}
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise InvalidInputError(f"computed_by.{unknown[0]}", f"is not a field of this format: expected {COMPUTED_BY_KEYS_ENTRY!r} or a phase")
    for key, value in d.items():
        if not isinstance(value, str) or not value:
            raise InvalidInputError(f"computed_by.{key}", "expected a non-empty string naming an implementation")
    missing = [p for p in PHASES if p not in d]
    if has_expected and missing:
        raise InvalidInputError(f"computed_by.{missing[0]}", "is missing: every phase with an expected output names its implementation")
    return dict(d)


def _parse_domain(d) -> DomainConvention:
    name = _get(d, "convention", "domain")
    if not isinstance(name, str) or name not in CONVENTIONS:
        raise InvalidInputError("domain.convention", f"unknown convention {name!r}; known: {sorted(CONVENTIONS)}")
    convention = CONVENTIONS[name]
    for key, value in domain_fields(convention).items():
        if _get(d, key, "domain") != value:
            raise InvalidInputError(f"domain.{key}", f"is {d[key]!r}; the {name} convention uses {value!r}")
    log_n = _get(d, "log_n", "domain")
    if not isinstance(log_n, int) or isinstance(log_n, bool) or not 1 <= log_n < 32:
        raise SizeMismatchError("domain.log_n", f"{log_n!r} is outside 1..31 (Fr has 2-adicity 32)")
    return convention


def _parse_r1cs(d) -> R1CS:
    num_inputs = _int_field(_get(d, "num_inputs", "r1cs"), "r1cs.num_inputs", minimum=1)
    num_aux = _int_field(_get(d, "num_aux", "r1cs"), "r1cs.num_aux")
    matrices = {}
    for m in ("a", "b", "c"):
        rows = _get(d, m, "r1cs")
        if not isinstance(rows, list):
            raise InvalidInputError(f"r1cs.{m}", "expected a list of rows")
        parsed = []
        for j, row in enumerate(rows):
            if not isinstance(row, list):
                raise InvalidInputError(f"r1cs.{m}[{j}]", "expected a list of [variable, coefficient] terms")
            terms = []
            for k, term in enumerate(row):
                if not (isinstance(term, list) and len(term) == 2 and isinstance(term[0], int) and not isinstance(term[0], bool)):
                    raise InvalidInputError(f"r1cs.{m}[{j}][{k}]", "expected [variable index, coefficient hex]")
                terms.append((term[0], _scalar(term[1], f"r1cs.{m}[{j}][{k}][1]")))
            parsed.append(tuple(terms))
        matrices[m] = tuple(parsed)
    num_constraints = _int_field(_get(d, "num_constraints", "r1cs"), "r1cs.num_constraints")
    if num_constraints != len(matrices["a"]):
        raise SizeMismatchError("r1cs.num_constraints", f"is {num_constraints}; the matrices have {len(matrices['a'])} rows")
    return R1CS(num_inputs=num_inputs, num_aux=num_aux, **matrices)


def _parse_density(d, r1cs: R1CS) -> Density:
    density = Density(
        a_aux=_bitmap(_get(d, "a_aux", "density"), "density.a_aux", r1cs.num_aux),
        b_input=_bitmap(_get(d, "b_input", "density"), "density.b_input", r1cs.num_inputs),
        b_aux=_bitmap(_get(d, "b_aux", "density"), "density.b_aux", r1cs.num_aux),
    )
    implied = r1cs.density()
    for name in ("a_aux", "b_input", "b_aux"):
        mine, theirs = getattr(density, name), getattr(implied, name)
        if mine != theirs:
            first = next(i for i, (x, y) in enumerate(zip(mine, theirs)) if x != y)
            raise SizeMismatchError(f"density.{name}", f"bit {first} is {int(mine[first])} but the R1CS says {int(theirs[first])}")
    return density


def _parse_vk(d, arrays: _ArrayReader, num_inputs: int) -> VerifyingKey:
    def g1(key):
        return arrays.point(_get(d, key, "verifying_key"), "g1", f"verifying_key.{key}")

    def g2(key):
        return arrays.point(_get(d, key, "verifying_key"), "g2", f"verifying_key.{key}")

    vk = VerifyingKey(
        alpha_g1=g1("alpha_g1"),
        beta_g1=g1("beta_g1"),
        beta_g2=g2("beta_g2"),
        gamma_g2=g2("gamma_g2"),
        delta_g1=g1("delta_g1"),
        delta_g2=g2("delta_g2"),
        ic=tuple(arrays.read(_get(d, "ic", "verifying_key"), "g1", "verifying_key.ic", num_inputs)),
    )
    check_verifying_key(vk)
    return vk


def _parse_pk(d, arrays: _ArrayReader, vk: VerifyingKey, r1cs: R1CS, density: Density, h_length: int) -> ProvingKey:
    n_in = r1cs.num_inputs
    sizes = {
        "h": h_length,
        "l": r1cs.num_aux,
        "a": len(density.a_variables(n_in)),
        "b_g1": len(density.b_variables(n_in)),
        "b_g2": len(density.b_variables(n_in)),
    }
    kinds = {"h": "g1", "l": "g1", "a": "g1", "b_g1": "g1", "b_g2": "g2"}
    queries = {}
    for q, size in sizes.items():
        queries[q] = tuple(arrays.read(_get(d, q, "proving_key"), kinds[q], f"proving_key.{q}", size))
    pk = ProvingKey(vk=vk, density=density, **queries)
    check_proving_key(pk)
    return pk


def _parse_circuit(d, i: int, arrays: _ArrayReader, r1cs: R1CS, h_length: int) -> CircuitCase:
    where = f"circuits[{i}]"
    witness = Witness(
        public_inputs=arrays.read(_get(d, "public_inputs", where), "scalar", f"{where}.public_inputs", r1cs.num_inputs - 1),
        aux=arrays.read(_get(d, "aux_assignment", where), "scalar", f"{where}.aux_assignment", r1cs.num_aux),
        r=_scalar(_get(d, "r", where), f"{where}.r"),
        s=_scalar(_get(d, "s", where), f"{where}.s"),
    )
    expected = _parse_expected(d["expected"], f"{where}.expected", arrays, r1cs, h_length) if "expected" in d else None
    return CircuitCase(witness=witness, expected=expected)


def _query_sums(d, where: str, arrays: _ArrayReader) -> QuerySums:
    return QuerySums(**{q: arrays.point(_get(d, q, where), "g2" if q == "b_g2" else "g1", f"{where}.{q}") for q in QUERIES})


def _parse_expected(d, where: str, arrays: _ArrayReader, r1cs: R1CS, h_length: int) -> CircuitOutputs:
    n = r1cs.n
    ev = _get(d, "evaluate", where)
    proof = _get(d, "proof", where)
    return CircuitOutputs(
        prep=None,  # filled in from the shared prep section once all circuits are read
        evaluate=Evaluations(
            *(tuple(arrays.read(_get(ev, k, f"{where}.evaluate"), "scalar", f"{where}.evaluate.{k}", n)) for k in "abc")
        ),
        ntt_h=tuple(arrays.read(_get(_get(d, "ntt_h", where), "h", f"{where}.ntt_h"), "scalar", f"{where}.ntt_h.h", h_length)),
        msm_h=arrays.point(_get(_get(d, "msm_h", where), "h", f"{where}.msm_h"), "g1", f"{where}.msm_h.h"),
        batch_add=_query_sums(_get(d, "batch_add", where), f"{where}.batch_add", arrays),
        tail_msm=_query_sums(_get(d, "tail_msm", where), f"{where}.tail_msm", arrays),
        assemble=Proof(
            a=arrays.point(_get(proof, "a", f"{where}.proof"), "g1", f"{where}.proof.a"),
            b=arrays.point(_get(proof, "b", f"{where}.proof"), "g2", f"{where}.proof.b"),
            c=arrays.point(_get(proof, "c", f"{where}.proof"), "g1", f"{where}.proof.c"),
        ),
    )


def _query_lengths(r1cs: R1CS, pk: ProvingKey) -> dict[str, int]:
    return {"l": len(pk.l), "a": len(pk.a), "b": len(pk.b_g1)}


def _parse_prep(shared, circuits_doc: list, r1cs: R1CS, pk: ProvingKey) -> Prep:
    """Merge the shared prep layout (split, tail_indices) with each circuit's bitmap and tail scalars."""
    lengths = _query_lengths(r1cs, pk)
    splits = {}
    for q in PREP_QUERIES:
        where = f"prep.{q}"
        s = _get(shared, q, "prep")
        split = _get(s, "split", where)
        indices = _get(s, "tail_indices", where)
        if not isinstance(split, bool) or not isinstance(indices, list):
            raise InvalidInputError(where, "expected {split: bool, tail_indices: [int]}")
        if any(not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < lengths[q] for k in indices) or indices != sorted(set(indices)):
            raise InvalidInputError(f"{where}.tail_indices", f"must be ascending distinct positions in 0..{lengths[q] - 1}")
        bitmaps, scalars = [], []
        for i, c in enumerate(circuits_doc):
            cw = f"circuits[{i}].expected.prep.{q}"
            cq = _get(_get(_get(c, "expected", f"circuits[{i}]"), "prep", f"circuits[{i}].expected"), q, f"circuits[{i}].expected.prep")
            _bitmap(_get(cq, "bitmap", cw), f"{cw}.bitmap", lengths[q])  # validates length and padding
            bitmaps.append(bytes.fromhex(cq["bitmap"]["hex"]))
            tail = _get(cq, "tail_scalars", cw)
            if not isinstance(tail, list):
                raise InvalidInputError(f"{cw}.tail_scalars", "expected a JSON list of hex scalars (tail scalars are never a sidecar)")
            if len(tail) != len(indices):
                raise SizeMismatchError(f"{cw}.tail_scalars", f"must have one scalar per tail index ({len(indices)})")
            scalars.append(tuple(_scalar(x, f"{cw}.tail_scalars[{k}]") for k, x in enumerate(tail)))
        splits[q] = QuerySplit(split=split, tail_indices=tuple(indices), bitmaps=tuple(bitmaps), tail_scalars=tuple(scalars))
    return Prep(**splits)


def _parse_trapdoor(d, n: int) -> Trapdoor:
    """The setup secrets: non-zero (gamma and delta are inverted; derive() never gives 0), and tau not a 2n-th root of
    unity (the Lagrange basis at tau, and at tau/g on snarkjs's coset omega_2n*H, needs tau outside both). The warning
    is text like a comment (it is printed), required so that a file never holds the secrets without it."""
    check_comment(_get(d, "warning", "trapdoor"), "trapdoor.warning")
    secrets = {k: _scalar(_get(d, k, "trapdoor"), f"trapdoor.{k}") for k in ("tau", "alpha", "beta", "gamma", "delta")}
    for k, value in secrets.items():
        if value == 0:
            raise InvalidInputError(f"trapdoor.{k}", "is 0: a setup secret must be non-zero")
    if pow(secrets["tau"], 2 * n, R) == 1:
        raise InvalidInputError("trapdoor.tau", f"is a {2 * n}-th root of unity: the keys' Lagrange basis is undefined there")
    return Trapdoor(**secrets)


def check_witnesses_satisfied(vector: Vector) -> None:
    """UnsatisfiedConstraintError (bad input) unless every circuit's witness satisfies the R1CS: expected outputs, and
    any backend's verdict, for an unsatisfied witness would be meaningless."""
    for c, w in enumerate(vector.witnesses):
        z = witness_vector(vector.r1cs, w.public_inputs, w.aux, c)
        evaluate_satisfied(vector.r1cs, z, vector.convention, c)


# ----------------------------------------------------------------------------------------------
# Writing


def bitmap_json(bits) -> dict:
    """{"bits": N, "hex": ...} for a sequence of booleans (see _bitmap)."""
    return {"bits": len(bits), "hex": bitmap_bytes(list(bits)).hex()}


class _ArrayWriter:
    """Emits arrays inline, or as sidecar files when they hold at least ``sidecar_min`` elements."""

    def __init__(self, stem: str, sidecar_min: int | None):
        self.stem = stem
        self.sidecar_min = sidecar_min
        self.sidecars: dict[str, bytes] = {}

    def write(self, hex_items: list[str], kind: str, name: str):
        if self.sidecar_min is None or len(hex_items) < self.sidecar_min:
            return hex_items
        data = bytes.fromhex("".join(hex_items))
        file_name = check_sidecar_name(f"{self.stem}.{name}{SIDECAR_SUFFIX}", f"--out (sidecar of {name})")
        self.sidecars[file_name] = data
        return {
            "sidecar": file_name,
            "sha256": hashlib.sha256(data).hexdigest(),
            "count": len(hex_items),
            "element": kind,
            "element_bytes": ELEMENT_BYTES[kind],
        }


def _scalars_hex(values) -> list[str]:
    return [int(v).to_bytes(SCALAR_BYTES, "big").hex() for v in values]


def vector_document(vector: Vector, stem: str, sidecar_min: int | None = None) -> tuple[dict, dict[str, bytes]]:
    """The JSON document of ``vector`` and the sidecar files it names ({file name: bytes})."""
    arrays = _ArrayWriter(stem, sidecar_min)
    r1cs, pk, vk = vector.r1cs, vector.pk, vector.pk.vk
    check_vector_id(vector.id, "id")  # a writer writes nothing that its readers refuse
    check_comment(vector.comment, "comment")
    check_flags_listed_once(vector.flags, "flags")
    doc = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "id": vector.id,
        "comment": vector.comment,
        "flags": list(vector.flags),
        "generator": vector.generator,
        **({"computed_by": dict(vector.computed_by)} if vector.computed_by else {}),
        "curve": CURVE_NAME,
        "domain": {
            "convention": vector.convention.name,
            "log_n": r1cs.log_n,
            **domain_fields(vector.convention),
        },
        "r1cs": {
            "num_inputs": r1cs.num_inputs,
            "num_aux": r1cs.num_aux,
            "num_constraints": r1cs.num_constraints,
            **{m: [[[var, f"{coeff:064x}"] for var, coeff in row] for row in getattr(r1cs, m)] for m in ("a", "b", "c")},
        },
        "density": {name: bitmap_json(getattr(pk.density, name)) for name in ("a_aux", "b_input", "b_aux")},
        "verifying_key": {
            "alpha_g1": encode_g1_many([vk.alpha_g1])[0],
            "beta_g1": encode_g1_many([vk.beta_g1])[0],
            "beta_g2": encode_g2_many([vk.beta_g2])[0],
            "gamma_g2": encode_g2_many([vk.gamma_g2])[0],
            "delta_g1": encode_g1_many([vk.delta_g1])[0],
            "delta_g2": encode_g2_many([vk.delta_g2])[0],
            "ic": arrays.write(encode_g1_many(list(vk.ic)), "g1", "ic"),
        },
        "proving_key": {
            q: arrays.write((encode_g2_many if q == "b_g2" else encode_g1_many)(list(getattr(pk, q))), "g2" if q == "b_g2" else "g1", q)
            for q in ("h", "l", "a", "b_g1", "b_g2")
        },
    }
    if vector.trapdoor is not None:
        t = vector.trapdoor
        doc["trapdoor"] = {
            "warning": TEST_ONLY_BANNER + "; these are the setup secrets of this vector, for checking phases at scale",
            **{k: f"{getattr(t, k):064x}" for k in ("tau", "alpha", "beta", "gamma", "delta")},
        }
    if vector.expected_prep is not None:
        doc["prep"] = {
            q: {"split": s.split, "tail_indices": list(s.tail_indices)}
            for q, s in ((q, getattr(vector.expected_prep, q)) for q in PREP_QUERIES)
        }
    doc["circuits"] = [_circuit_document(case, c, vector, arrays) for c, case in enumerate(vector.circuits)]
    return doc, arrays.sidecars


def _sums_document(sums: QuerySums) -> dict:
    g1 = encode_g1_many([sums.l, sums.a, sums.b_g1])
    return {"l": g1[0], "a": g1[1], "b_g1": g1[2], "b_g2": encode_g2_many([sums.b_g2])[0]}


def _circuit_document(case: CircuitCase, c: int, vector: Vector, arrays: _ArrayWriter) -> dict:
    w = case.witness
    doc = {
        "public_inputs": _scalars_hex(w.public_inputs),
        "aux_assignment": arrays.write(_scalars_hex(w.aux), "scalar", f"circuit{c}.aux_assignment"),
        "r": f"{w.r:064x}",
        "s": f"{w.s:064x}",
    }
    e = case.expected
    if e is None:
        return doc
    proof = e.assemble
    g1 = encode_g1_many([e.msm_h, proof.a, proof.c])
    doc["expected"] = {
        "evaluate": {k: arrays.write(_scalars_hex(getattr(e.evaluate, k)), "scalar", f"circuit{c}.evaluate.{k}") for k in "abc"},
        "ntt_h": {"h": arrays.write(_scalars_hex(e.ntt_h), "scalar", f"circuit{c}.ntt_h.h")},
        "msm_h": {"h": g1[0]},
        "prep": {
            q: {
                "bitmap": {"bits": _query_lengths(vector.r1cs, vector.pk)[q], "hex": getattr(vector.expected_prep, q).bitmaps[c].hex()},
                "tail_scalars": _scalars_hex(getattr(vector.expected_prep, q).tail_scalars[c]),
            }
            for q in PREP_QUERIES
        },
        "batch_add": _sums_document(e.batch_add),
        "tail_msm": _sums_document(e.tail_msm),
        "proof": {"a": g1[1], "b": encode_g2_many([proof.b])[0], "c": g1[2]},
    }
    return doc


def document_bytes(doc: dict) -> bytes:
    """The bytes of a vector file: JSON with one-space indentation and a final newline."""
    return (json.dumps(doc, indent=1) + "\n").encode()


def write_vector(vector: Vector, path, sidecar_min: int | None = None, inputs=()) -> list[Path]:
    """Write the vector (and its sidecars) atomically: temporary files first, renamed only when all are written."""
    path = Path(path)
    stem = path.name[: -len(".json")] if path.name.endswith(".json") else path.name
    doc, sidecars = vector_document(vector, stem, sidecar_min)
    files = {path: document_bytes(doc)}
    files.update({path.parent / name: data for name, data in sidecars.items()})
    return write_files_atomically(files, inputs)


def write_files_atomically(files: dict[Path, bytes], inputs=()) -> list[Path]:
    """Write every file of {path: bytes} or none: the one output writer of every command (docs/HOSTILE_INPUTS.md).

    Every file is first written under a temporary name in its folder, which proves the folder exists (or can be
    made) and is writable; only when all are written are they renamed into place. Refused before anything is
    renamed (InvalidInputError naming the path): two targets that are one file, a target that is one of ``inputs``,
    a target that exists and is not a regular file (reference/safe_files.py check_replaceable), a target whose folder
    cannot be written. Should a rename still fail (or the run be
    interrupted) midway, the targets already renamed are undone: a new file is removed, a replaced file is put back
    from the second name (a hard link) it was given before the rename, folders made for the targets are removed.

    What can remain after such a failure: on a filesystem without hard links, a replaced file is moved aside
    instead, so it is absent from its path between the two renames; and should putting it back fail too, it is
    left beside its path as ``.<name>.<random>.old``."""
    check_outputs({str(target): target for target in files}, {f"input {p}": p for p in inputs})
    for target in files:
        check_replaceable(str(target), target)
    outputs: list[_Output] = []
    made_folders: list[Path] = []
    target = None
    try:
        for target, data in files.items():
            made_folders += _make_folders(target.parent)
            outputs.append(_Output(target, _write_temporary(target, data)))
        for output in outputs:
            target = output.target
            output.rename()
    except BaseException as exc:
        _undo(outputs, made_folders)
        if isinstance(exc, OSError):
            raise InvalidInputError(str(target), f"cannot write: {exc.strerror or exc}") from None
        raise
    for output in outputs:
        output.drop_backup()
    return [output.target for output in outputs]


_UMASK = os.umask(0)
os.umask(_UMASK)
_FILE_MODE = 0o666 & ~_UMASK
BACKUP_SUFFIX = ".old"
"""Appended to a temporary file's name to name the second name of the file its target replaces."""


@dataclass
class _Output:
    """One file of write_files_atomically: its target, the temporary file holding its bytes, and (once renamed) the
    second name of the file it replaced, if any."""

    target: Path
    temporary: str
    backup: str | None = None
    renamed: bool = False

    def rename(self) -> None:
        if os.path.lexists(self.target):
            self.backup = self.temporary + BACKUP_SUFFIX
            try:
                os.link(self.target, self.backup, follow_symlinks=False)
            except OSError:  # no hard links on this filesystem: move the file aside instead
                os.replace(self.target, self.backup)
        self.renamed = True  # before the rename: an interrupt right after it must still undo it (undo ignores OSError)
        os.replace(self.temporary, self.target)

    def undo(self) -> None:
        """Best effort (called while another error is raised): the target as it was before, no temporary left."""
        with contextlib.suppress(OSError):
            if self.backup is not None:
                os.replace(self.backup, self.target)  # atomic: the old file is back in one step
            elif self.renamed:
                os.unlink(self.target)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.temporary)

    def drop_backup(self) -> None:
        if self.backup is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.backup)


def _make_folders(folder: Path) -> list[Path]:
    """Make ``folder`` and its missing parents; returns those made, outermost first (OSError when one cannot be)."""
    missing = [f for f in (folder, *folder.parents) if not f.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    return missing[::-1]


def _write_temporary(target: Path, data: bytes) -> str:
    """``data`` in a new file beside ``target`` (a hidden, unique name); returns its path."""
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temporary, _FILE_MODE)  # mkstemp makes 0600; give the file the usual permissions
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary


def _undo(outputs: list[_Output], made_folders: list[Path]) -> None:
    """Every output put back as it was, then the folders made for them removed (innermost first, only if empty)."""
    for output in reversed(outputs):
        output.undo()
    for folder in reversed(made_folders):
        with contextlib.suppress(OSError):
            folder.rmdir()
