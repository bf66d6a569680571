"""vectors/snarkjs.py refuses inconsistent iden3 headers and oversized JSON numbers (a mutation audit, 2026-12-07):
mutants that passed the whole suite before these tests, each made on the checked-in circom/snarkjs files
(interop/snarkjs/, patched with struct here, independently of the reader):

* _require_prime without its ``n8 != expected_bytes`` check: a .wtns whose header says n8 = 48 (r padded to 48
  bytes) over 32-byte values was read as if canonical;
* parse_r1cs checking ``wires < num_inputs`` instead of ``< num_inputs + private_inputs``: a header with more private
  inputs than wires was accepted;
* _linear_combination checking ``wire > wires``: a term on wire nWires (one past the last) was accepted;
* _decimal without its length bound: a JSON number of more than 4300 digits reached int(), which raises ValueError
  (Python's int-string limit) instead of the reader's own error.
"""
import struct
from pathlib import Path

import pytest

from reference.errors import InvalidInputError, SizeMismatchError
from reference.field import R
from vectors.snarkjs import parse_r1cs, parse_wtns, public_from_json

INTEROP = Path(__file__).resolve().parents[1] / "interop" / "snarkjs"
IDEN3_PREFIX = 12
"""magic (4), version (u32), section count (u32)."""


def _sections(raw: bytes) -> list[tuple[int, bytes]]:
    (count,) = struct.unpack_from("<I", raw, 8)
    pos, out = IDEN3_PREFIX, []
    for _ in range(count):
        kind, size = struct.unpack_from("<IQ", raw, pos)
        out.append((kind, raw[pos + 12 : pos + 12 + size]))
        pos += 12 + size
    assert pos == len(raw)
    return out


def _rebuilt(raw: bytes, replace: dict[int, bytes]) -> bytes:
    sections = [(kind, replace.get(kind, payload)) for kind, payload in _sections(raw)]
    return raw[:IDEN3_PREFIX] + b"".join(struct.pack("<IQ", kind, len(p)) + p for kind, p in sections)


def test_a_wtns_header_with_a_48_byte_field_size_is_refused():
    raw = (INTEROP / "witness.wtns").read_bytes()
    header = dict(_sections(raw))[1]
    n8, = struct.unpack_from("<I", header, 0)
    assert n8 == 32 and int.from_bytes(header[4:36], "little") == R
    wide = struct.pack("<I", 48) + R.to_bytes(48, "little") + header[36:]  # the same prime, padded: n8 non-canonical
    with pytest.raises(SizeMismatchError, match=r"^witness\.wtns section 1 \(header\)\.n8: is 48; BLS12-381 uses 32$"):
        parse_wtns(_rebuilt(raw, {1: wide}), "witness.wtns")


def _r1cs_header() -> tuple[bytes, bytes, dict]:
    raw = (INTEROP / "circuit.r1cs").read_bytes()
    header = dict(_sections(raw))[1]
    names = ("nWires", "nPubOut", "nPubIn", "nPrvIn")
    fields = dict(zip(names, struct.unpack_from("<4I", header, 4 + 32)))
    return raw, header, fields


def test_an_r1cs_header_with_more_inputs_than_wires_is_refused():
    raw, header, f = _r1cs_header()
    too_many = f["nWires"] - (1 + f["nPubOut"] + f["nPubIn"]) + 1  # one private input more than the wires hold
    patched = header[:4 + 32 + 12] + struct.pack("<I", too_many) + header[4 + 32 + 16:]
    with pytest.raises(SizeMismatchError, match=rf"^circuit\.r1cs section 1 \(header\)\.nWires: is {f['nWires']}; "):
        parse_r1cs(_rebuilt(raw, {1: patched}), "circuit.r1cs")
    exactly = header[:4 + 32 + 12] + struct.pack("<I", too_many - 1) + header[4 + 32 + 16:]
    assert parse_r1cs(_rebuilt(raw, {1: exactly}), "circuit.r1cs").num_private_inputs == too_many - 1


def test_an_r1cs_term_on_the_wire_one_past_the_last_is_refused():
    raw, _, f = _r1cs_header()
    body = dict(_sections(raw))[2]
    count, = struct.unpack_from("<I", body, 0)
    assert count >= 1  # constraint 0's A has a term: (u32 wire, 32-byte coefficient) at offset 4
    patched = body[:4] + struct.pack("<I", f["nWires"]) + body[8:]
    with pytest.raises(SizeMismatchError, match=rf"constraint\[0\]\.a\[0\]\.wire: is {f['nWires']}; the circuit has "
                                                rf"{f['nWires']} wires"):
        parse_r1cs(_rebuilt(raw, {2: patched}), "circuit.r1cs")


def test_a_json_number_of_thousands_of_digits_is_refused_by_the_reader():
    with pytest.raises(InvalidInputError, match=r"^public\[0\]: expected a canonical decimal string"):
        public_from_json(["9" * 5000])
    with pytest.raises(InvalidInputError, match=r"^public\[0\]: expected a canonical decimal string"):
        public_from_json(["1" + "0" * len(str(R))])  # one digit more than r has


def test_a_g2_json_point_with_a_nonzero_z_c1_is_refused():
    """g2_from_json without its z.c1 == 0 check read z = ["1", "1"] as the affine z = ["1", "0"] (a mutant that passed
    the suite: only z.c0 was varied by the tests)."""
    import json

    from reference.errors import PointEncodingError
    from vectors.snarkjs import proof_from_json

    proof = json.loads((INTEROP / "proof.json").read_text())
    assert proof["pi_b"][2] == ["1", "0"]
    proof_from_json(proof)
    bad = {**proof, "pi_b": [*proof["pi_b"][:2], ["1", "1"]]}
    with pytest.raises(PointEncodingError, match=r"^proof\.pi_b\[2\]\[1\]: must be 0"):
        proof_from_json(bad)
