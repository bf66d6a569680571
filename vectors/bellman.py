"""bellman / bellperson interoperability: the Groth16 Parameters file, the VerifyingKey and proofs.

The byte layout is bellman's ``groth16/mod.rs`` (``Parameters::write``, ``VerifyingKey::write``,
``Proof::write``), which bellperson keeps; FORMAT.md, "Interoperability", documents it:

    VerifyingKey = alpha_g1 | beta_g1 | beta_g2 | gamma_g2 | delta_g1 | delta_g2 | u32 len(ic) | ic...
    Parameters   = VerifyingKey | u32 len(h) | h... | u32 len(l) | l... | u32 len(a) | a...
                   | u32 len(b_g1) | b_g1... | u32 len(b_g2) | b_g2...
    Proof        = a (G1 compressed) | b (G2 compressed) | c (G1 compressed)          192 bytes

Lengths are u32 big-endian; points are the ZCash encoding (reference/encoding.py), uncompressed in keys
(G1 96 bytes, G2 192) and compressed in proofs. The file holds no densities: the reader takes them from
the R1CS. bellman's reader refuses the point at infinity in ic, h, l, a, b_g1, b_g2 and in proofs
("point at infinity"), so this reader and writer refuse it there too.
"""
import json
from dataclasses import dataclass
from pathlib import Path

from reference.assemble import Proof
from reference.curve import is_identity
from reference.encoding import (
    G1_COMPRESSED_BYTES,
    G1_UNCOMPRESSED_BYTES,
    G2_COMPRESSED_BYTES,
    G2_UNCOMPRESSED_BYTES,
    g1_to_bytes,
    g2_to_bytes,
)
from reference.domain import BELLMAN
from reference.errors import InvalidInputError, PointEncodingError, SizeMismatchError
from reference.field import scalar_to_hex
from reference.keys import VK_SECRET_POINTS, ProvingKey, VerifyingKey, check_verifying_key
from reference.prover import Witness
from reference.safe_files import read_regular_file
from reference.r1cs import R1CS

from .decoding import PointDecoder
from .format import Vector, printable_text, write_files_atomically
from .generate import check_imported_key, vector_from_key

LENGTH_BYTES = 4
"""Each list is preceded by its length as a u32, big-endian (byteorder's write_u32::<BigEndian>)."""
PROOF_BYTES = 2 * G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES
"""A proof is A, B, C compressed: 48 + 96 + 48 = 192 bytes."""
VK_POINTS = (("alpha_g1", "g1"), ("beta_g1", "g1"), ("beta_g2", "g2"), ("gamma_g2", "g2"), ("delta_g1", "g1"), ("delta_g2", "g2"))
"""The verifying key's single points, in file order."""
QUERIES = (("h", "g1"), ("l", "g1"), ("a", "g1"), ("b_g1", "g1"), ("b_g2", "g2"))
"""The Parameters file's lists after the verifying key, in file order."""
UNCOMPRESSED_BYTES = {"g1": G1_UNCOMPRESSED_BYTES, "g2": G2_UNCOMPRESSED_BYTES}
IDENTITY_REFUSED = "is the point at infinity, which bellman refuses here"

PARAMETERS_FILE = "groth16.params"
VERIFYING_KEY_FILE = "groth16.vk"
PROOFS_FILE = "proofs.bin"
PUBLIC_INPUTS_FILE = "public_inputs.json"
"""The files ``export_bellman`` writes into its folder."""


# ----------------------------------------------------------------------------------------------
# Writing


def _point_bytes(point, group: str, where: str, compressed: bool) -> bytes:
    """ZCash encoding of a point bellman will read back: the identity is refused (bellman: "point at infinity")."""
    if is_identity(point):
        raise PointEncodingError(where, IDENTITY_REFUSED)
    return (g1_to_bytes if group == "g1" else g2_to_bytes)(point, compressed=compressed)


def _list_bytes(points, group: str, where: str) -> bytes:
    """u32 big-endian count, then each point uncompressed."""
    body = b"".join(_point_bytes(p, group, f"{where}[{i}]", compressed=False) for i, p in enumerate(points))
    return len(points).to_bytes(LENGTH_BYTES, "big") + body


def verifying_key_bytes(vk: VerifyingKey) -> bytes:
    """bellman's VerifyingKey::write: alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2 (uncompressed), u32 BE len, ic."""
    singles = b"".join((g1_to_bytes if g == "g1" else g2_to_bytes)(getattr(vk, name), compressed=False) for name, g in VK_POINTS)
    return singles + _list_bytes(vk.ic, "g1", "verifying_key.ic")


def parameters_bytes(pk: ProvingKey) -> bytes:
    """bellman's Parameters::write: the VerifyingKey, then h, l, a, b_g1, b_g2, each a u32 BE length and uncompressed points."""
    return verifying_key_bytes(pk.vk) + b"".join(_list_bytes(getattr(pk, q), g, f"proving_key.{q}") for q, g in QUERIES)


def proof_bytes(proof: Proof, where: str = "proof") -> bytes:
    """bellman's Proof::write: A (48), B (96), C (48), ZCash compressed: 192 bytes."""
    return (
        _point_bytes(proof.a, "g1", f"{where}.a", compressed=True)
        + _point_bytes(proof.b, "g2", f"{where}.b", compressed=True)
        + _point_bytes(proof.c, "g1", f"{where}.c", compressed=True)
    )


# ----------------------------------------------------------------------------------------------
# Reading


class _Reader:
    """Walks a bellman file front to back, naming the field and offset in every error; ``decoder`` decodes the points
    (the fast library where installed: vectors/decoding.py)."""

    def __init__(self, data: bytes, where: str, decoder: PointDecoder | None = None):
        self.data, self.where, self.pos = data, where, 0
        self.decoder = decoder or PointDecoder()

    def take(self, size: int, field: str) -> bytes:
        if self.pos + size > len(self.data):
            raise SizeMismatchError(
                f"{self.where}: {field}",
                f"needs {size} bytes at offset {self.pos}, but the file ends after {len(self.data)} (truncated)",
            )
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def point(self, group: str, field: str, compressed: bool = False, allow_identity: bool = True):
        size = (G1_COMPRESSED_BYTES if group == "g1" else G2_COMPRESSED_BYTES) if compressed else UNCOMPRESSED_BYTES[group]
        return self.decoder.one(
            self.take(size, field), group, f"{self.where}: {field}", compressed=compressed,
            identity_problem=None if allow_identity else IDENTITY_REFUSED,
        )

    def points(self, group: str, field: str, expected: int | None) -> tuple:
        """u32 BE count (checked against ``expected`` before any point is read), then the points, none the identity."""
        count = int.from_bytes(self.take(LENGTH_BYTES, f"{field} length"), "big")
        if expected is not None and count != expected:
            raise SizeMismatchError(f"{self.where}: {field} length", f"is {count}; the R1CS implies {expected}")
        size = UNCOMPRESSED_BYTES[group]
        complete = min(count, (len(self.data) - self.pos) // size)  # points before a truncation are checked first
        raw = [self.take(size, f"{field}[{i}]") for i in range(complete)]
        points = self.decoder.many(raw, group, f"{self.where}: {field}", compressed=False, identity_problem=IDENTITY_REFUSED)
        for i in range(complete, count):
            self.take(size, f"{field}[{i}]")  # raises: the file ends early
        return tuple(points)

    def done(self) -> None:
        if self.pos != len(self.data):
            raise SizeMismatchError(self.where, f"has {len(self.data) - self.pos} bytes after the last field (at offset {self.pos})")


def _read_verifying_key(reader: _Reader, num_inputs: int | None) -> VerifyingKey:
    singles = {name: reader.point(g, f"verifying_key.{name}") for name, g in VK_POINTS}
    vk = VerifyingKey(**singles, ic=reader.points("g1", "verifying_key.ic", num_inputs))
    check_verifying_key(vk, {name: f"{reader.where}: verifying_key.{name}" for name in (*VK_SECRET_POINTS, "ic")})
    return vk


def parse_verifying_key(
    data: bytes, where: str = "verifying key", num_inputs: int | None = None, decoder: PointDecoder | None = None
) -> VerifyingKey:
    """Decode bellman's VerifyingKey file (see verifying_key_bytes); ``num_inputs``, if given, must equal len(ic)."""
    reader = _Reader(data, where, decoder)
    vk = _read_verifying_key(reader, num_inputs)
    reader.done()
    return vk


@dataclass(frozen=True)
class QueryLengths:
    """The list lengths an R1CS implies for its Parameters (bellman convention, densities from the R1CS)."""

    ic: int
    h: int
    l: int
    a: int
    b_g1: int
    b_g2: int

    @classmethod
    def of(cls, r1cs: R1CS) -> "QueryLengths":
        """ic = num_inputs, h = n - 1, l = num_aux, a = num_inputs + |a_aux|, b = |b_input| + |b_aux|."""
        density = r1cs.density()
        b = len(density.b_variables(r1cs.num_inputs))
        return cls(
            ic=r1cs.num_inputs,
            h=BELLMAN.h_length(r1cs.n),
            l=r1cs.num_aux,
            a=len(density.a_variables(r1cs.num_inputs)),
            b_g1=b,
            b_g2=b,
        )


def parse_parameters(data: bytes, r1cs: R1CS, where: str = "parameters", decoder: PointDecoder | None = None) -> ProvingKey:
    """Decode bellman's Parameters file (see parameters_bytes) for ``r1cs``: every list length must be the one the
    R1CS implies (QueryLengths.of), every point valid and not the identity; the densities come from the R1CS."""
    lengths = QueryLengths.of(r1cs)
    reader = _Reader(data, where, decoder)
    vk = _read_verifying_key(reader, lengths.ic)
    queries = {q: reader.points(g, f"proving_key.{q}", getattr(lengths, q)) for q, g in QUERIES}
    reader.done()
    return ProvingKey(vk=vk, density=r1cs.density(), **queries)


def parse_proofs(data: bytes, where: str = "proofs", decoder: PointDecoder | None = None) -> list[Proof]:
    """Concatenated 192-byte bellman proofs (A, B, C compressed), none with a point at infinity."""
    if not data or len(data) % PROOF_BYTES:
        raise SizeMismatchError(where, f"has {len(data)} bytes; expected a non-zero multiple of {PROOF_BYTES} (one proof each)")
    reader = _Reader(data, where, decoder)
    proofs = []
    for i in range(len(data) // PROOF_BYTES):
        a, b, c = (reader.point(g, f"proof[{i}].{name}", compressed=True, allow_identity=False) for name, g in (("a", "g1"), ("b", "g2"), ("c", "g1")))
        proofs.append(Proof(a=a, b=b, c=c))
    return proofs


# ----------------------------------------------------------------------------------------------
# Folders and vectors


def export_bellman(vector: Vector, out_dir) -> list[Path]:
    """Write ``vector``'s keys and expected proofs as bellman files into ``out_dir`` (atomically):
    groth16.params (Parameters), groth16.vk (VerifyingKey), proofs.bin (one 192-byte proof per circuit) and
    public_inputs.json (per circuit, the public inputs as 32-byte big-endian hex, ONE not included).

    Only the bellman convention fits: its H query has n - 1 points of tau^i Z(tau)/delta.
    """
    if vector.convention != BELLMAN:
        raise InvalidInputError(
            "domain.convention", f"is {vector.convention.name!r}; a bellman Parameters file holds the bellman convention's keys only"
        )
    missing = [c for c, case in enumerate(vector.circuits) if case.expected is None]
    if missing:
        raise InvalidInputError(f"circuits[{missing[0]}].expected", "is missing: the vector has no proof to export")
    out = Path(out_dir)
    proofs = b"".join(proof_bytes(case.expected.assemble, f"circuits[{c}].expected.proof") for c, case in enumerate(vector.circuits))
    public = [[scalar_to_hex(x) for x in case.witness.public_inputs] for case in vector.circuits]
    return write_files_atomically(
        {
            out / PARAMETERS_FILE: parameters_bytes(vector.pk),
            out / VERIFYING_KEY_FILE: verifying_key_bytes(vector.pk.vk),
            out / PROOFS_FILE: proofs,
            out / PUBLIC_INPUTS_FILE: (json.dumps(public, indent=1) + "\n").encode(),
        },
        inputs=vector.source_files,
    )


def import_bellman(
    params_path, r1cs: R1CS, witnesses: list[Witness], vector_id: str, source: dict, progress=None, curve=None, reference: bool = False
) -> Vector:
    """A vector (bellman convention) from a bellman Parameters file and an R1CS with its witnesses (r and s included);
    every phase's expected output from the reference prover. ``source`` records where the R1CS and witnesses came from.
    Points are decoded with the fast library where installed, by reference/encoding.py alone with ``reference``."""
    path = Path(params_path)
    data = read_regular_file(path, "Parameters file")
    if progress:
        progress(f"decoding the points of {path.name}")
    pk = parse_parameters(data, r1cs, path.name, PointDecoder(reference=reference, progress=progress or (lambda m: None)))
    vector = vector_from_key(
        r1cs,
        pk,
        witnesses,
        BELLMAN,
        vector_id=vector_id,
        comment=f"bellman Parameters {printable_text(path.name)} with its R1CS and witnesses",
        flags=["bellman-import"],
        generator={"command": "python -m vectors import-bellman", "parameters": path.name, **source},
        progress=progress,
        curve=curve,
    )
    return check_imported_key(vector, path.name, curve)
