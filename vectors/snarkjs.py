"""circom / snarkjs interoperability: iden3 .r1cs, .wtns and Groth16 .zkey files, snarkjs JSON.

Binary files (iden3 binfileutils, src/binfileutils.js): a 4-byte magic ("r1cs", "wtns", "zkey"), a u32
version, a u32 section count, then sections, each a u32 type, a u64 byte size and that many bytes.
Every integer is little-endian. Layouts (checked against r1csfile 0.0.48 src/r1csfile.js, snarkjs
0.7.6 src/wtns_utils.js, src/zkey_new.js, src/zkey_utils.js; FORMAT.md, "Interoperability"):

* .r1cs section 1: n8, prime (n8 bytes), nWires, nPubOut, nPubIn, nPrvIn (u32), nLabels (u64),
  nConstraints (u32); section 2: per constraint the linear combinations A, B, C, each a u32 term count
  and (u32 wire, n8-byte coefficient) terms. Coefficients and witness values are plain integers < r.
* .wtns section 1: n8, prime, nWitness; section 2: nWitness values of n8 bytes.
* .zkey section 1: protocol (1 = Groth16); 2: n8q, q, n8r, r, nVars, nPublic, domainSize, alpha1, beta1,
  beta2, gamma2, delta1, delta2; 3: IC (nPublic + 1 G1); 4: u32 count, then (u32 matrix, u32 row, u32 signal,
  coefficient * R^2 mod r) for A (matrix 0) and B (1), R = 2^256; 5: A, 6: B1 (G1), 7: B2 (G2), nVars points
  each; 8: C (the L query, nVars - nPublic - 1 G1); 9: H (domainSize G1); 10: contributions.
  Every section listed is required once (.r1cs 3 and .zkey 10 are not read); a .r1cs section of another type is
  ignored, as its specification demands; a .wtns or .zkey section of another type is refused.
  Points are affine (x, y) in Montgomery form (x * 2^384 mod p), little-endian, 48 bytes per Fq element,
  G2 coordinates c0 then c1; the identity is all zero bytes.

circom's wires are z = [ONE, outputs, public inputs, private inputs, internal signals]; the public
signals (outputs, then public inputs) are this toolkit's public inputs, so num_inputs = 1 + nPublic.

snarkjs JSON (proof, public signals, verification key): decimal strings; a G1 point is [x, y, "1"]
(identity ["0", "1", "0"]), a G2 point [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]].
"""
import hashlib
from dataclasses import dataclass
from pathlib import Path

from py_ecc.optimized_bls12_381 import FQ12, pairing

from reference.assemble import Proof
from reference.curve import Z1, Z2, is_identity, to_affine_batch
from reference.encoding import INFINITY_FLAG, g1_from_bytes, g2_from_bytes
from reference.domain import SNARKJS, DomainConvention
from reference.errors import InvalidInputError, PointEncodingError, ScalarRangeError, SizeMismatchError
from reference.field import P, R, SCALAR_BYTES
from reference.keys import ProvingKey, VerifyingKey, check_verifying_key
from reference.prover import Witness
from reference.r1cs import R1CS
from reference.safe_files import read_regular_file
from reference.setup import derive_scalar

from .decoding import G1, G2, PointDecoder
from .format import Vector, printable_text
from .generate import check_imported_key, vector_from_key

# ----------------------------------------------------------------------------------------------
# Constants

FQ_BYTES = 48
"""n8q: bytes of one Fq element in iden3 files (381 bits rounded up to 64-bit words)."""
FR_BYTES = SCALAR_BYTES
"""n8r: bytes of one Fr element (255 bits rounded up to 64-bit words)."""
FQ_MONTGOMERY_R = (1 << (8 * FQ_BYTES)) % P
"""ffjavascript/wasmcurves keep Fq in Montgomery form x * 2^384 mod p; zkey points are stored that way."""
FQ_MONTGOMERY_R_INV = pow(FQ_MONTGOMERY_R, -1, P)
FR_MONTGOMERY_R = (1 << (8 * FR_BYTES)) % R
"""2^256 mod r: zkey coefficients are stored as c * R^2 mod r (zkey_new.js writeCoef: Fr.mul(n, R2r))."""
FR_COEFFICIENT_UNSCALE = pow(FR_MONTGOMERY_R * FR_MONTGOMERY_R, -1, R)
"""R^-2 mod r: turns a stored zkey coefficient back into the plain coefficient c."""

G1_ZKEY_BYTES = 2 * FQ_BYTES
G2_ZKEY_BYTES = 4 * FQ_BYTES
U32_BYTES, U64_BYTES = 4, 8
MAGIC_BYTES = 4

R1CS_MAGIC, R1CS_VERSION = b"r1cs", 1
WTNS_MAGIC, WTNS_MAX_VERSION = b"wtns", 2
ZKEY_MAGIC, ZKEY_VERSION = b"zkey", 1
GROTH16_PROTOCOL_ID = 1
"""zkey section 1: 1 = Groth16 (2 = PLONK, 10 = FFLONK; snarkjs src/zkey_constants.js)."""
ZKEY_PROTOCOLS = {1: "groth16", 2: "plonk", 10: "fflonk"}
MATRIX_A, MATRIX_B = 0, 1
"""zkey section 4's matrix ids (C is not stored: snarkjs computes c = a*b per row)."""

R1CS_SECTIONS = {1: "header", 2: "constraints", 3: "wire-to-label map", 4: "custom gates list", 5: "custom gates uses"}
R1CS_CUSTOM_GATE_SECTIONS = (4, 5)
WTNS_SECTIONS = {1: "header", 2: "witness values"}
ZKEY_SECTIONS = {
    1: "protocol", 2: "groth16 header", 3: "IC", 4: "coefficients", 5: "A points", 6: "B1 points",
    7: "B2 points", 8: "C points", 9: "H points", 10: "contributions",
}
R1CS_REQUIRED = (1, 2, 3)
WTNS_REQUIRED = (1, 2)
ZKEY_REQUIRED = tuple(ZKEY_SECTIONS)
"""The sections a file must hold, once each (FORMAT.md, "circom / snarkjs binary files"): every one circom and snarkjs
write, those this reader does not read (.r1cs 3, .zkey 10) included."""
R1CS_IGNORES_UNKNOWN = True
"""r1csfile's doc/r1cs_bin_format.md: a section of another type leaves the file valid and MUST be ignored. The .wtns and
.zkey formats say nothing of the kind: a section type they do not define is refused."""

BN128_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617
BN128_Q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
KNOWN_PRIMES = {
    R: "BLS12-381 scalar field r", P: "BLS12-381 base field p",
    BN128_R: "bn128 (BN254) scalar field r", BN128_Q: "bn128 (BN254) base field q",
}
"""To name the curve of a file made for another one (circom's default prime is bn128's r)."""

SNARKJS_CURVE = "bls12381"
"""snarkjs's name of BLS12-381 (proof.json and verification_key.json ``curve``)."""
SNARKJS_PROTOCOL = "groth16"
SNARKJS_PROOF_POINTS = ("pi_a", "pi_b", "pi_c")
SNARKJS_VK_POINTS = ("vk_alpha_1", "vk_beta_2", "vk_gamma_2", "vk_delta_2", "IC")
SNARKJS_TAGS = ("protocol", "curve")
"""Read where given: they must name Groth16 on BLS12-381 (this toolkit's only protocol and curve)."""
SNARKJS_VK_DERIVED = ("nPublic", "vk_alphabeta_12")
"""Keys of verification_key.json that follow from the others, checked where given: nPublic against IC,
vk_alphabeta_12 against e(vk_alpha_1, vk_beta_2) (snarkjs_pairing)."""
SNARKJS_PROOF_KEYS = frozenset(SNARKJS_PROOF_POINTS + SNARKJS_TAGS)
SNARKJS_VK_KEYS = frozenset(SNARKJS_VK_POINTS + SNARKJS_TAGS + SNARKJS_VK_DERIVED)
"""Every key snarkjs 0.7.6 writes in proof.json (src/groth16_prove.js) and a Groth16 verification_key.json
(src/zkey_export_verificationkey.js); any other key is refused, as the toolkit's own formats refuse unknown fields."""
JSON_IDENTITY_Z = 0
JSON_AFFINE_Z = 1


# ----------------------------------------------------------------------------------------------
# The binary section container (binfileutils)


class _Cursor:
    """Reads little-endian fields from one section, naming the section in every error."""

    def __init__(self, data: bytes, where: str):
        self.data, self.where, self.pos = data, where, 0

    def field(self, what: str) -> str:
        """The error field for ``what`` in this section: section.name, or section[i]."""
        return f"{self.where}{what}" if what.startswith("[") else f"{self.where}.{what}"

    def take(self, size: int, what: str) -> bytes:
        if self.pos + size > len(self.data):
            raise SizeMismatchError(
                self.field(what),
                f"needs {size} bytes at offset {self.pos}, but only {len(self.data) - self.pos} remain "
                "(truncated, or counts that disagree with the section size)",
            )
        chunk = self.data[self.pos : self.pos + size]
        self.pos += size
        return chunk

    def uint(self, size: int, what: str) -> int:
        return int.from_bytes(self.take(size, what), "little")

    def u32(self, what: str) -> int:
        return self.uint(U32_BYTES, what)

    def u64(self, what: str) -> int:
        return self.uint(U64_BYTES, what)

    def done(self) -> None:
        """Refuse bytes the counts do not account for."""
        if self.pos != len(self.data):
            raise SizeMismatchError(
                self.where, f"has {len(self.data) - self.pos} bytes beyond what its counts describe (inconsistent counts)"
            )


def read_sections(
    data: bytes, magic: bytes, max_version: int, names: dict[int, str], where: str, required: tuple[int, ...],
    ignore_unknown: bool = False,
) -> dict[int, bytes]:
    """{section type: bytes} of an iden3 binary file: magic, u32 version, u32 count, then (u32 type, u64 size, bytes).

    Raises InvalidInputError for a wrong magic, an unknown version, a repeated section, a missing ``required`` one, or
    one whose type is not in ``names`` (skipped instead with ``ignore_unknown``), and SizeMismatchError for a truncated
    file or bytes after the last section.
    """
    head = _Cursor(data, where)
    found = head.take(MAGIC_BYTES, "magic")
    if found != magic:
        raise InvalidInputError(f"{where}.magic", f"is {found!r}; a .{magic.decode()} file starts with {magic!r}")
    version = head.u32("version")
    if not 1 <= version <= max_version:
        raise InvalidInputError(f"{where}.version", f"is {version}; this reader knows versions 1..{max_version}")
    sections, seen = {}, set()
    for i in range(head.u32("section count")):
        kind = head.u32(f"section header {i}.type")
        size = head.u64(f"section header {i}.size")
        name = _section_name(where, kind, names)
        if kind in seen:
            raise InvalidInputError(name, "appears twice")
        seen.add(kind)
        if size > len(data) - head.pos:
            raise SizeMismatchError(name, f"declares {size} bytes but only {len(data) - head.pos} remain: the file is truncated")
        content = head.take(size, name)
        if kind in names:
            sections[kind] = content
        elif not ignore_unknown:
            raise InvalidInputError(name, f"is not a section of a .{magic.decode()} file (known: {sorted(names)})")
    head.where = f"{where} (after the last section)"
    head.done()
    missing = [kind for kind in required if kind not in sections]
    if missing:
        raise InvalidInputError(_section_name(where, missing[0], names), "is missing")
    return sections


def _section_name(where: str, kind: int, names: dict[int, str]) -> str:
    return f"{where} section {kind} ({names.get(kind, 'unknown')})"


def _section(sections: dict[int, bytes], kind: int, names: dict[int, str], where: str) -> _Cursor:
    name = _section_name(where, kind, names)
    if kind not in sections:
        raise InvalidInputError(name, "is missing")
    return _Cursor(sections[kind], name)


def _require_prime(cursor: _Cursor, size_field: str, prime_field: str, expected: int, expected_bytes: int) -> None:
    """Read (n8, prime) and refuse any field but the expected BLS12-381 one, naming the curve found."""
    n8 = cursor.u32(size_field)
    prime = cursor.uint(n8, prime_field)
    if prime != expected:
        found = KNOWN_PRIMES.get(prime, f"{prime:#x}")
        raise InvalidInputError(
            f"{cursor.where}.{prime_field}",
            f"is the {found}; expected the {KNOWN_PRIMES[expected]}: the file was made for another curve "
            "(circom -p bls12381, snarkjs powersoftau new bls12381)",
        )
    if n8 != expected_bytes:
        raise SizeMismatchError(f"{cursor.where}.{size_field}", f"is {n8}; BLS12-381 uses {expected_bytes}")


# ----------------------------------------------------------------------------------------------
# .r1cs


@dataclass(frozen=True)
class CircomCircuit:
    """A circom R1CS: the constraint system in this toolkit's layout and circom's signal counts."""

    r1cs: R1CS
    num_outputs: int
    num_public_inputs: int
    num_private_inputs: int


def parse_r1cs(data: bytes, where: str = "r1cs") -> CircomCircuit:
    """Decode an iden3 .r1cs file (module docstring): constraint j says <A_j, z> * <B_j, z> = <C_j, z> mod r,
    z = [ONE, outputs, public inputs, private inputs, internal]; num_inputs = 1 + nPubOut + nPubIn."""
    sections = read_sections(data, R1CS_MAGIC, R1CS_VERSION, R1CS_SECTIONS, where, R1CS_REQUIRED, ignore_unknown=R1CS_IGNORES_UNKNOWN)
    for kind in R1CS_CUSTOM_GATE_SECTIONS:
        if kind in sections:
            raise InvalidInputError(_section_name(where, kind, R1CS_SECTIONS), "custom gates are PLONK-only; Groth16 cannot prove this circuit")
    header = _section(sections, 1, R1CS_SECTIONS, where)
    _require_prime(header, "n8", "prime", R, FR_BYTES)
    wires = header.u32("nWires")
    outputs, public_inputs, private_inputs = header.u32("nPubOut"), header.u32("nPubIn"), header.u32("nPrvIn")
    header.u64("nLabels")
    constraints = header.u32("nConstraints")
    header.done()
    num_inputs = 1 + outputs + public_inputs
    if wires < num_inputs + private_inputs:
        raise SizeMismatchError(
            f"{header.where}.nWires", f"is {wires}; ONE, {outputs} outputs and {public_inputs + private_inputs} inputs need at least {num_inputs + private_inputs}"
        )
    body = _section(sections, 2, R1CS_SECTIONS, where)
    matrices = {"a": [], "b": [], "c": []}
    for j in range(constraints):
        for name, rows in matrices.items():
            rows.append(_linear_combination(body, wires, f"constraint[{j}].{name}"))
    body.done()
    r1cs = R1CS(num_inputs=num_inputs, num_aux=wires - num_inputs, **{m: tuple(rows) for m, rows in matrices.items()})
    return CircomCircuit(r1cs, outputs, public_inputs, private_inputs)


def _linear_combination(body: _Cursor, wires: int, what: str) -> tuple:
    """(u32 count, then count (u32 wire, 32-byte coefficient)) -> ((wire, coefficient), ...)."""
    terms = []
    for k in range(body.u32(f"{what}.count")):
        wire = body.u32(f"{what}[{k}].wire")
        coefficient = body.uint(FR_BYTES, f"{what}[{k}].coefficient")
        if wire >= wires:
            raise SizeMismatchError(f"{body.where}.{what}[{k}].wire", f"is {wire}; the circuit has {wires} wires")
        if coefficient >= R:
            raise ScalarRangeError(f"{body.where}.{what}[{k}].coefficient", f"{coefficient:#x} is not < r")
        terms.append((wire, coefficient))
    return tuple(terms)


# ----------------------------------------------------------------------------------------------
# .wtns


def parse_wtns(data: bytes, where: str = "wtns") -> list[int]:
    """Decode an iden3 .wtns file: the full assignment z = [ONE, public signals, private signals] (values < r)."""
    sections = read_sections(data, WTNS_MAGIC, WTNS_MAX_VERSION, WTNS_SECTIONS, where, WTNS_REQUIRED)
    header = _section(sections, 1, WTNS_SECTIONS, where)
    _require_prime(header, "n8", "prime", R, FR_BYTES)
    count = header.u32("nWitness")
    header.done()
    body = _section(sections, 2, WTNS_SECTIONS, where)
    values = [body.uint(FR_BYTES, f"value[{i}]") for i in range(count)]
    body.done()
    for i, value in enumerate(values):
        if value >= R:
            raise ScalarRangeError(f"{body.where}.value[{i}]", f"{value:#x} is not < r")
    return values


def split_witness(z: list[int], r1cs: R1CS, where: str) -> tuple[list[int], list[int]]:
    """(public inputs, aux) from a circom assignment z, after checking its length and z[0] = ONE = 1."""
    if len(z) != r1cs.num_variables:
        raise SizeMismatchError(f"{where}.nWitness", f"is {len(z)}; the circuit has {r1cs.num_variables} wires")
    if z[0] != 1:
        raise InvalidInputError(f"{where}.value[0]", f"is {z[0]}; wire 0 is the constant ONE = 1")
    return z[1 : r1cs.num_inputs], z[r1cs.num_inputs :]


# ----------------------------------------------------------------------------------------------
# Points: zkey (little-endian Montgomery) and JSON (decimal)


def _fq_from_montgomery(raw: bytes, where: str) -> int:
    """x from its stored Montgomery form m = x * 2^384 mod p (little-endian): x = m * 2^-384 mod p."""
    m = int.from_bytes(raw, "little")
    if m >= P:
        raise PointEncodingError(where, f"coordinate {m:#x} is not < p")
    return m * FQ_MONTGOMERY_R_INV % P


def _fq_to_montgomery(x: int) -> bytes:
    """Inverse of _fq_from_montgomery: x * 2^384 mod p, 48 bytes little-endian."""
    return (x * FQ_MONTGOMERY_R % P).to_bytes(FQ_BYTES, "little")


def _coordinates_be(values: list[int]) -> bytes:
    return b"".join(v.to_bytes(FQ_BYTES, "big") for v in values)


def _uncompressed_identity(size: int) -> bytes:
    """The ZCash uncompressed encoding of the identity: the infinity flag, then zeros."""
    return bytes([INFINITY_FLAG]) + bytes(size - 1)


def g1_zkey_to_zcash(raw: bytes, where: str) -> bytes:
    """zkey bytes of a G1 point, x || y (Montgomery, little-endian; all zeros: the identity), as the ZCash
    uncompressed encoding (reference/encoding.py), coordinates checked < p (PointDecoder's ``prepare``)."""
    if not any(raw):
        return _uncompressed_identity(G1_ZKEY_BYTES)
    return _coordinates_be([_fq_from_montgomery(raw[i : i + FQ_BYTES], where) for i in (0, FQ_BYTES)])


def g2_zkey_to_zcash(raw: bytes, where: str) -> bytes:
    """zkey bytes of a G2 point, x.c0 || x.c1 || y.c0 || y.c1 (Montgomery, little-endian; zeros: the identity), as the
    ZCash uncompressed encoding x.c1 || x.c0 || y.c1 || y.c0."""
    if not any(raw):
        return _uncompressed_identity(G2_ZKEY_BYTES)
    x0, x1, y0, y1 = (_fq_from_montgomery(raw[i : i + FQ_BYTES], where) for i in range(0, G2_ZKEY_BYTES, FQ_BYTES))
    return _coordinates_be([x1, x0, y1, y0])


def g1_from_zkey(raw: bytes, where: str) -> tuple:
    """A G1 point from zkey bytes (g1_zkey_to_zcash), validated (on y^2 = x^3 + 4, in G1) by reference/encoding.py."""
    return g1_from_bytes(g1_zkey_to_zcash(raw, where), where, compressed=False)


def g2_from_zkey(raw: bytes, where: str) -> tuple:
    """A G2 point from zkey bytes (g2_zkey_to_zcash), validated (on the twist, in G2) by reference/encoding.py."""
    return g2_from_bytes(g2_zkey_to_zcash(raw, where), where, compressed=False)


def g1_to_zkey(point) -> bytes:
    """Inverse of g1_from_zkey: Montgomery little-endian x || y, or 96 zero bytes for the identity."""
    affine = to_affine_batch([point])[0]
    if affine is None:
        return bytes(G1_ZKEY_BYTES)
    return b"".join(_fq_to_montgomery(c.n) for c in affine)


def g2_to_zkey(point) -> bytes:
    """Inverse of g2_from_zkey: Montgomery little-endian x.c0 || x.c1 || y.c0 || y.c1, or 192 zero bytes."""
    affine = to_affine_batch([point])[0]
    if affine is None:
        return bytes(G2_ZKEY_BYTES)
    return b"".join(_fq_to_montgomery(int(c)) for coordinate in affine for c in coordinate.coeffs)


def _decimal(value, where: str, modulus: int, what: str) -> int:
    """A snarkjs number: a canonical decimal string (digits only, no leading zero, at most the modulus's digits)
    in [0, modulus). A JSON number is refused: snarkjs writes strings, and one value must have one form."""
    if not isinstance(value, str):
        raise InvalidInputError(where, f"expected a decimal string, got {type(value).__name__}")
    if not (value.isascii() and value.isdigit()) or (len(value) > 1 and value[0] == "0") or len(value) > len(str(modulus)):
        raise InvalidInputError(where, f"expected a canonical decimal string (digits, no leading zero), got {value!r:.80}")
    number = int(value)
    if not 0 <= number < modulus:
        error = ScalarRangeError if modulus == R else PointEncodingError
        raise error(where, f"{number} is not < {what}")
    return number


def _json_z(value, where: str) -> int:
    z = _decimal(value, where, P, "p")
    if z not in (JSON_IDENTITY_Z, JSON_AFFINE_Z):
        raise PointEncodingError(where, f"is {z}; snarkjs writes affine points (z = 1) or the identity (z = 0)")
    return z


def _json_list(value, length: int, where: str) -> list:
    if not isinstance(value, list) or len(value) != length:
        raise PointEncodingError(where, f"expected a list of {length} entries")
    return value


def g1_from_json(value, where: str) -> tuple:
    """A G1 point from snarkjs JSON [x, y, z] (decimal; z = "1" affine, z = "0" the identity), validated."""
    x, y, z = (_decimal(c, f"{where}[{i}]", P, "p") if i < 2 else _json_z(c, f"{where}[{i}]") for i, c in enumerate(_json_list(value, 3, where)))
    if z == JSON_IDENTITY_Z:
        if (x, y) != (0, 1):
            raise PointEncodingError(where, 'the identity (z = "0") has one form: ["0", "1", "0"]')
        return Z1
    return g1_from_bytes(_coordinates_be([x, y]), where, compressed=False)


def g2_from_json(value, where: str) -> tuple:
    """A G2 point from snarkjs JSON [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]], validated; z = ["1","0"] or ["0","0"]."""
    pairs = [_json_list(c, 2, f"{where}[{i}]") for i, c in enumerate(_json_list(value, 3, where))]
    (x0, x1), (y0, y1) = ([_decimal(c, f"{where}[{i}][{k}]", P, "p") for k, c in enumerate(pairs[i])] for i in (0, 1))
    z0 = _json_z(pairs[2][0], f"{where}[2][0]")
    if _decimal(pairs[2][1], f"{where}[2][1]", P, "p") != 0:
        raise PointEncodingError(f"{where}[2][1]", "must be 0: snarkjs writes z = 1 or 0 in Fq2")
    if z0 == JSON_IDENTITY_Z:
        if (x0, x1, y0, y1) != (0, 0, 1, 0):
            raise PointEncodingError(where, 'the identity (z = ["0", "0"]) has one form: [["0", "0"], ["1", "0"], ["0", "0"]]')
        return Z2
    return g2_from_bytes(_coordinates_be([x1, x0, y1, y0]), where, compressed=False)


def gt_from_json(value, where: str) -> FQ12:
    """An Fp12 element from snarkjs JSON [[c0.c0, c0.c1, c0.c2], [c1.c0, c1.c1, c1.c2]], each an Fp2 pair of decimals.

    ffjavascript's tower (iden3/wasmcurves src/bls12381/build_bls12381.js) is Fp2 = Fp[u]/(u² + 1),
    Fp6 = Fp2[v]/(v³ − (u + 1)), Fp12 = Fp6[w]/(w² − v); py_ecc's FQ12 is Fp[w]/(w¹² − 2w⁶ + 2), in which
    v = w² and u = w⁶ − 1. So the Fp2 coefficient a + b·u of v^i·w^j = w^(2i + j) adds (a − b)·w^(2i + j) + b·w^(2i + j + 6).
    """
    coefficients = [0] * 12
    for j, half in enumerate(_json_list(value, 2, where)):
        for i, pair in enumerate(_json_list(half, 3, f"{where}[{j}]")):
            a, b = (_decimal(c, f"{where}[{j}][{i}][{k}]", P, "p") for k, c in enumerate(_json_list(pair, 2, f"{where}[{j}][{i}]")))
            power = 2 * i + j
            coefficients[power] += a - b
            coefficients[power + 6] += b
    return FQ12(coefficients)


def snarkjs_pairing(p1, q2) -> FQ12:
    """e(P, Q) as snarkjs 0.7.6 computes it: py_ecc's pairing(Q, P) to the power −3.

    Measured on snarkjs's own verification_key.json (tests/test_snarkjs.py). ffjavascript's BLS12-381 pairing
    (iden3/wasmcurves src/bls12381/build_bls12381.js, isLoopNegative, buildFinalExponentiation) conjugates the
    Miller loop for the curve's negative parameter z, which py_ecc does not (the sign), and the hard part of its final
    exponentiation raises to 3·Φ₁₂(p)/r = (z − 1)²(z + p)(z² + p² − 1) + 3 (Hayashida, Hayasaka, Teruya, eprint
    2020/875, p. 14), where py_ecc's raises to Φ₁₂(p)/r (the 3).
    """
    return pairing(q2, p1).inv() ** 3


def g1_to_json(point) -> list[str]:
    """snarkjs JSON of a G1 point: [x, y, "1"] in decimal, or ["0", "1", "0"] for the identity."""
    affine = to_affine_batch([point])[0]
    if affine is None:
        return ["0", "1", "0"]
    return [str(affine[0].n), str(affine[1].n), "1"]


def g2_to_json(point) -> list[list[str]]:
    """snarkjs JSON of a G2 point: [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], identity [["0","0"],["1","0"],["0","0"]]."""
    affine = to_affine_batch([point])[0]
    if affine is None:
        return [["0", "0"], ["1", "0"], ["0", "0"]]
    return [[str(int(c)) for c in coordinate.coeffs] for coordinate in affine] + [["1", "0"]]


# ----------------------------------------------------------------------------------------------
# .zkey


@dataclass(frozen=True)
class ZKey:
    """A snarkjs Groth16 proving key as stored: full-length A, B1, B2 (one point per wire), C and H."""

    num_vars: int
    num_public: int
    """Public signals, ONE not counted."""
    domain_size: int
    vk: VerifyingKey
    coefficients: tuple[tuple[int, int, int, int], ...]
    """(matrix 0 = A / 1 = B, row, signal, plain coefficient), input rows included."""
    a: tuple
    b_g1: tuple
    b_g2: tuple
    c: tuple
    """The L query: one point per private wire (nPublic + 1 ..)."""
    h: tuple


def parse_zkey(data: bytes, where: str = "zkey", decoder: PointDecoder | None = None) -> ZKey:
    """Decode a snarkjs Groth16 .zkey (module docstring); every point decoded and checked (by ``decoder``: the fast
    library where installed), counts checked against sizes."""
    decoder = decoder or PointDecoder()
    sections = read_sections(data, ZKEY_MAGIC, ZKEY_VERSION, ZKEY_SECTIONS, where, ZKEY_REQUIRED)
    protocol = _section(sections, 1, ZKEY_SECTIONS, where)
    protocol_id = protocol.u32("protocol")
    protocol.done()
    if protocol_id != GROTH16_PROTOCOL_ID:
        name = ZKEY_PROTOCOLS.get(protocol_id, "unknown")
        raise InvalidInputError(f"{protocol.where}.protocol", f"is {protocol_id} ({name}); expected {GROTH16_PROTOCOL_ID} (groth16)")
    header = _section(sections, 2, ZKEY_SECTIONS, where)
    _require_prime(header, "n8q", "q", P, FQ_BYTES)
    _require_prime(header, "n8r", "r", R, FR_BYTES)
    num_vars, num_public, domain_size = header.u32("nVars"), header.u32("nPublic"), header.u32("domainSize")
    if domain_size < 2 or domain_size & (domain_size - 1):
        raise SizeMismatchError(f"{header.where}.domainSize", f"is {domain_size}; expected a power of two >= 2")
    if num_public + 1 > num_vars:
        raise SizeMismatchError(f"{header.where}.nPublic", f"is {num_public}; the key has only {num_vars} wires")
    def g1(cursor: _Cursor, what: str) -> tuple:
        return decoder.one(cursor.take(G1_ZKEY_BYTES, what), G1, cursor.field(what), compressed=False, prepare=g1_zkey_to_zcash)

    def g2(cursor: _Cursor, what: str) -> tuple:
        return decoder.one(cursor.take(G2_ZKEY_BYTES, what), G2, cursor.field(what), compressed=False, prepare=g2_zkey_to_zcash)

    alpha1, beta1, beta2 = g1(header, "alpha1"), g1(header, "beta1"), g2(header, "beta2")
    gamma2, delta1, delta2 = g2(header, "gamma2"), g1(header, "delta1"), g2(header, "delta2")
    header.done()

    def points(kind: int, count: int, group: str) -> tuple:
        cursor = _section(sections, kind, ZKEY_SECTIONS, where)
        size, prepare = (G1_ZKEY_BYTES, g1_zkey_to_zcash) if group == G1 else (G2_ZKEY_BYTES, g2_zkey_to_zcash)
        complete = min(count, (len(cursor.data) - cursor.pos) // size)  # points before a truncation are checked first
        raw = [cursor.take(size, f"[{i}]") for i in range(complete)]
        decoded = tuple(decoder.many(raw, group, cursor.where, compressed=False, prepare=prepare))
        for i in range(complete, count):
            cursor.take(size, f"[{i}]")  # raises: the section ends early
        cursor.done()
        return decoded

    ic = points(3, num_public + 1, G1)
    vk = VerifyingKey(alpha_g1=alpha1, beta_g1=beta1, beta_g2=beta2, gamma_g2=gamma2, delta_g1=delta1, delta_g2=delta2, ic=ic)
    zkey_names = {"alpha_g1": "alpha1", "beta_g1": "beta1", "beta_g2": "beta2", "gamma_g2": "gamma2", "delta_g1": "delta1", "delta_g2": "delta2"}
    check_verifying_key(vk, {**{k: f"{where} section 2 (groth16 header).{v}" for k, v in zkey_names.items()}, "ic": f"{where} section 3 (IC)"})
    return ZKey(
        num_vars=num_vars,
        num_public=num_public,
        domain_size=domain_size,
        vk=vk,
        coefficients=_coefficients(_section(sections, 4, ZKEY_SECTIONS, where), num_vars, domain_size),
        a=points(5, num_vars, G1),
        b_g1=points(6, num_vars, G1),
        b_g2=points(7, num_vars, G2),
        c=points(8, num_vars - num_public - 1, G1),
        h=points(9, domain_size, G1),
    )


def _coefficients(cursor: _Cursor, num_vars: int, domain_size: int) -> tuple:
    """Section 4: (matrix, row, signal, stored) entries; the plain coefficient is stored * R^-2 mod r."""
    entries = []
    for i in range(cursor.u32("count")):
        matrix, row, signal = cursor.u32(f"[{i}].matrix"), cursor.u32(f"[{i}].constraint"), cursor.u32(f"[{i}].signal")
        stored = cursor.uint(FR_BYTES, f"[{i}].value")
        if matrix not in (MATRIX_A, MATRIX_B):
            raise InvalidInputError(f"{cursor.where}[{i}].matrix", f"is {matrix}; expected 0 (A) or 1 (B)")
        if row >= domain_size or signal >= num_vars:
            raise SizeMismatchError(f"{cursor.where}[{i}]", f"row {row} / signal {signal} outside the domain ({domain_size}) / wires ({num_vars})")
        if stored >= R:
            raise ScalarRangeError(f"{cursor.where}[{i}].value", f"{stored:#x} is not < r")
        entries.append((matrix, row, signal, stored * FR_COEFFICIENT_UNSCALE % R))
    cursor.done()
    return tuple(entries)


def proving_key_from_zkey(zkey: ZKey, r1cs: R1CS, where: str = "zkey", convention: DomainConvention = SNARKJS) -> ProvingKey:
    """The zkey in this toolkit's (bellman's) key layout for ``r1cs``: A, B1, B2 filtered by the R1CS's densities
    (a wire outside a density must have the identity there), C as the L query, H as is (snarkjs's n points).

    Refuses a key made for another circuit: wire, public-signal and domain counts, and every A and B coefficient
    (section 4, input rows included) must match the R1CS.
    """
    _check_counts(zkey, r1cs, where, convention)
    _check_coefficients(zkey, r1cs, where)
    density = r1cs.density()
    n_in = r1cs.num_inputs
    return ProvingKey(
        vk=zkey.vk,
        h=zkey.h,
        l=zkey.c,
        a=_dense(zkey.a, density.a_variables(n_in), f"{where} section 5 (A points)", "A"),
        b_g1=_dense(zkey.b_g1, density.b_variables(n_in), f"{where} section 6 (B1 points)", "B"),
        b_g2=_dense(zkey.b_g2, density.b_variables(n_in), f"{where} section 7 (B2 points)", "B"),
        density=density,
    )


def _check_counts(zkey: ZKey, r1cs: R1CS, where: str, convention: DomainConvention) -> None:
    header = f"{where} section 2 (groth16 header)"
    expected = {
        "nVars": (zkey.num_vars, r1cs.num_variables, "wires"),
        "nPublic": (zkey.num_public, r1cs.num_inputs - 1, "public signals"),
        "domainSize": (zkey.domain_size, convention.h_length(r1cs.n), f"H points ({r1cs.num_rows} rows, {convention.name} domain)"),
    }
    for field, (found, wanted, what) in expected.items():
        if found != wanted:
            raise SizeMismatchError(f"{header}.{field}", f"is {found}; the R1CS implies {wanted} {what}: the key was made for another circuit")


def _check_coefficients(zkey: ZKey, r1cs: R1CS, where: str) -> None:
    """Section 4 must hold exactly the R1CS's A and B rows (input rows included), coefficient for coefficient."""
    def table(entries) -> dict:
        merged = {}
        for matrix, row, signal, coefficient in entries:
            merged[(matrix, row, signal)] = (merged.get((matrix, row, signal), 0) + coefficient) % R
        return {key: value for key, value in merged.items() if value}

    implied = [
        (matrix, j, var, coeff)
        for matrix, name in ((MATRIX_A, "a"), (MATRIX_B, "b"))
        for j, row in enumerate(r1cs.rows(name))
        for var, coeff in row
    ]
    mine, theirs = table(zkey.coefficients), table(implied)
    differing = sorted(key for key in set(mine) | set(theirs) if mine.get(key) != theirs.get(key))
    if differing:
        matrix, row, signal = differing[0]
        raise InvalidInputError(
            f"{where} section 4 (coefficients)",
            f"{'AB'[matrix]} row {row}, signal {signal}: the zkey has {mine.get((matrix, row, signal), 0):#x}, the R1CS "
            f"{theirs.get((matrix, row, signal), 0):#x}: the key was made for another circuit",
        )


def _dense(points: tuple, variables: list[int], where: str, query: str) -> tuple:
    """points[v] for the density's variables; every other wire must have the identity (it is in no row)."""
    chosen = set(variables)
    for v, point in enumerate(points):
        if v not in chosen and not is_identity(point):
            raise InvalidInputError(f"{where}[{v}]", f"is not the identity, but wire {v} is in no {query} row of the R1CS: the key was made for another circuit")
    return tuple(points[v] for v in variables)


# ----------------------------------------------------------------------------------------------
# snarkjs JSON: proofs, public signals, verification keys


def proof_to_json(proof: Proof) -> dict:
    """snarkjs proof.json: {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16", "curve": "bls12381"}."""
    return {
        "pi_a": g1_to_json(proof.a),
        "pi_b": g2_to_json(proof.b),
        "pi_c": g1_to_json(proof.c),
        "protocol": SNARKJS_PROTOCOL,
        "curve": SNARKJS_CURVE,
    }


def _require_tag(doc: dict, key: str, expected: str, where: str) -> None:
    if key in doc and doc[key] != expected:
        raise InvalidInputError(f"{where}.{key}", f"is {doc[key]!r}; this toolkit reads {expected!r} only")


def _refuse_unknown_keys(doc: dict, known: frozenset, where: str) -> None:
    unknown = sorted(set(doc) - known)
    if unknown:
        raise InvalidInputError(f"{where}.{unknown[0]}", f"is not a key snarkjs writes (it writes {', '.join(sorted(known))})")


def proof_from_json(doc, where: str = "proof") -> Proof:
    """A Proof from snarkjs proof.json; ``protocol`` must be groth16 and ``curve`` bls12381 where given, and no
    other key than SNARKJS_PROOF_KEYS."""
    if not isinstance(doc, dict) or not set(SNARKJS_PROOF_POINTS) <= set(doc):
        raise InvalidInputError(where, 'expected a snarkjs proof {"pi_a", "pi_b", "pi_c", ...}')
    _refuse_unknown_keys(doc, SNARKJS_PROOF_KEYS, where)
    _require_tag(doc, "protocol", SNARKJS_PROTOCOL, where)
    _require_tag(doc, "curve", SNARKJS_CURVE, where)
    return Proof(
        a=g1_from_json(doc["pi_a"], f"{where}.pi_a"), b=g2_from_json(doc["pi_b"], f"{where}.pi_b"), c=g1_from_json(doc["pi_c"], f"{where}.pi_c")
    )


def public_to_json(values: list[int]) -> list[str]:
    """snarkjs public.json: the public signals (outputs, then public inputs; ONE not included) as decimal strings."""
    return [str(v) for v in values]


def public_from_json(doc, where: str = "public") -> list[int]:
    """Public signals from snarkjs public.json (a list of decimal strings < r)."""
    if not isinstance(doc, list):
        raise InvalidInputError(where, "expected a list of decimal strings (snarkjs public.json)")
    return [_decimal(v, f"{where}[{i}]", R, "r") for i, v in enumerate(doc)]


@dataclass(frozen=True)
class SnarkjsVerifyingKey:
    """What snarkjs's verification_key.json holds: all that Groth16 verification uses (no beta_g1, delta_g1)."""

    alpha_g1: tuple
    beta_g2: tuple
    gamma_g2: tuple
    delta_g2: tuple
    ic: tuple


def verifying_key_from_json(doc, where: str = "verification_key") -> SnarkjsVerifyingKey:
    """Decode snarkjs verification_key.json (vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, IC; nPublic = len(IC) - 1).

    vk_alphabeta_12, where given, must be snarkjs_pairing(vk_alpha_1, vk_beta_2): snarkjs's own verifier ignores it,
    but it is a claim the file makes, and `verify` says valid only when every claim was checked.
    No other key than SNARKJS_VK_KEYS is accepted.
    """
    if not isinstance(doc, dict) or not set(SNARKJS_VK_POINTS) <= set(doc):
        raise InvalidInputError(where, "expected a snarkjs verification key {vk_alpha_1, vk_beta_2, vk_gamma_2, vk_delta_2, IC, ...}")
    _refuse_unknown_keys(doc, SNARKJS_VK_KEYS, where)
    _require_tag(doc, "protocol", SNARKJS_PROTOCOL, where)
    _require_tag(doc, "curve", SNARKJS_CURVE, where)
    if not isinstance(doc["IC"], list) or not doc["IC"]:
        raise InvalidInputError(f"{where}.IC", "expected a non-empty list of G1 points")
    if "nPublic" in doc and (type(doc["nPublic"]) is not int or doc["nPublic"] != len(doc["IC"]) - 1):
        raise SizeMismatchError(f"{where}.nPublic", f"is {doc['nPublic']}; IC has {len(doc['IC'])} points (nPublic + 1)")
    vk = SnarkjsVerifyingKey(
        alpha_g1=g1_from_json(doc["vk_alpha_1"], f"{where}.vk_alpha_1"),
        beta_g2=g2_from_json(doc["vk_beta_2"], f"{where}.vk_beta_2"),
        gamma_g2=g2_from_json(doc["vk_gamma_2"], f"{where}.vk_gamma_2"),
        delta_g2=g2_from_json(doc["vk_delta_2"], f"{where}.vk_delta_2"),
        ic=tuple(g1_from_json(p, f"{where}.IC[{i}]") for i, p in enumerate(doc["IC"])),
    )
    snarkjs_names = {"alpha_g1": "vk_alpha_1", "beta_g2": "vk_beta_2", "gamma_g2": "vk_gamma_2", "delta_g2": "vk_delta_2", "ic": "IC"}
    check_verifying_key(vk, {k: f"{where}.{v}" for k, v in snarkjs_names.items()})
    if "vk_alphabeta_12" in doc and gt_from_json(doc["vk_alphabeta_12"], f"{where}.vk_alphabeta_12") != snarkjs_pairing(vk.alpha_g1, vk.beta_g2):
        raise InvalidInputError(f"{where}.vk_alphabeta_12", "is not e(vk_alpha_1, vk_beta_2) as snarkjs computes it")
    return vk


def is_snarkjs_proof(doc) -> bool:
    """True for a snarkjs proof.json object (or a list of them)."""
    first = doc[0] if isinstance(doc, list) and doc else doc
    return isinstance(first, dict) and "pi_a" in first


def is_snarkjs_verifying_key(doc) -> bool:
    """True for a snarkjs verification_key.json object."""
    return isinstance(doc, dict) and "vk_alpha_1" in doc


# ----------------------------------------------------------------------------------------------
# Vectors


def blinded_witness(public: list[int], aux: list[int], seed: str, circuit: int) -> Witness:
    """A Witness with test-only blinding r, s = derive_scalar(seed, "circuit <i> r" / "circuit <i> s") (FORMAT.md)."""
    return Witness(public, aux, r=derive_scalar(seed, f"circuit {circuit} r"), s=derive_scalar(seed, f"circuit {circuit} s"))


def read_file(path, what: str) -> bytes:
    """The bytes of ``path`` (a regular file, size checked before reading: reference/safe_files.py), or
    InvalidInputError naming it."""
    return read_regular_file(path, what)


def _default_seed(*contents: bytes) -> str:
    """The blinding seed when none is given: the SHA-256 (hex) of the input files, so that an import is reproducible."""
    return hashlib.sha256(b"".join(contents)).hexdigest()


def read_circom_circuit(r1cs_path, wtns_paths: list, seed: str | None = None, extra: bytes = b"") -> tuple[R1CS, list[Witness], str]:
    """(R1CS, one Witness per .wtns, seed) from a circom .r1cs and its .wtns files; r, s derive from ``seed``
    (default: the SHA-256 of the files and ``extra``)."""
    r1cs_bytes = read_file(r1cs_path, ".r1cs file")
    wtns_bytes = [read_file(p, ".wtns file") for p in wtns_paths]
    if seed is None:
        seed = _default_seed(r1cs_bytes, extra, *wtns_bytes)
    r1cs = parse_r1cs(r1cs_bytes, Path(r1cs_path).name).r1cs
    witnesses = []
    for c, (path, data) in enumerate(zip(wtns_paths, wtns_bytes)):
        public, aux = split_witness(parse_wtns(data, Path(path).name), r1cs, Path(path).name)
        witnesses.append(blinded_witness(public, aux, seed, c))
    return r1cs, witnesses, seed


def import_snarkjs(
    r1cs_path, wtns_paths: list, zkey_path, vector_id: str, seed: str | None = None, progress=None, curve=None, reference: bool = False
) -> Vector:
    """A vector (convention ``snarkjs``) from a circom .r1cs, one .wtns per circuit and a snarkjs Groth16 .zkey.

    The keys are the zkey's (no trapdoor); r, s derive from ``seed`` (default: the SHA-256 of the files);
    every phase's expected output comes from the reference prover (group arithmetic by ``curve``: vector_from_key).
    Points are decoded with the fast library where installed, by reference/encoding.py alone with ``reference``
    (vectors/decoding.py).
    """
    say = progress or (lambda message: None)
    zkey_bytes = read_file(zkey_path, ".zkey file")
    say(f"reading {Path(r1cs_path).name}, {Path(zkey_path).name}")
    r1cs, witnesses, seed = read_circom_circuit(r1cs_path, wtns_paths, seed, extra=zkey_bytes)
    say(f"decoding the points of {Path(zkey_path).name}")
    zkey = parse_zkey(zkey_bytes, Path(zkey_path).name, PointDecoder(reference=reference, progress=say))
    pk = proving_key_from_zkey(zkey, r1cs, Path(zkey_path).name)
    say(f"proving {len(witnesses)} circuit(s) with the reference")
    vector = vector_from_key(
        r1cs,
        pk,
        witnesses,
        SNARKJS,
        vector_id=vector_id,
        comment=f"circom/snarkjs circuit {printable_text(Path(r1cs_path).name)} with its snarkjs Groth16 key {printable_text(Path(zkey_path).name)}",
        flags=["snarkjs"],
        generator={
            "command": "python -m vectors import-snarkjs",
            "r1cs": Path(r1cs_path).name,
            "wtns": [Path(p).name for p in wtns_paths],
            "zkey": Path(zkey_path).name,
            "seed": seed,
        },
        progress=say,
        curve=curve,
    )
    return check_imported_key(vector, Path(zkey_path).name, curve)
