"""vectors/bellman.py names every bad byte it meets (a mutation audit of the bellman reader and writer, 2026-12-07):
mutants that passed every test importing vectors.bellman before these tests:

* the writer's list errors naming index i + 1, or the group ("proving_key.g1[2]") instead of the query;
* verifying_key_bytes naming ic's identity as another list's; proof_bytes naming C's identity ".a";
* export_bellman dropping its missing-expected check (an AttributeError instead of the error contract), naming the
  last missing circuit instead of the first, or naming a bad expected proof without its circuit;
* _Reader.take reporting the bytes left instead of the file's size ("the file ends after ...");
* _Reader.points naming the wrong index when the file ends, and reading past a truncation before decoding the points
  it holds (complete = count, or one too many): a bad point then hid behind "truncated";
* _Reader.done reporting the wrong offset; parse_verifying_key dropping done() (trailing bytes accepted) or ignoring
  num_inputs;
* _Reader.point refusing the identity by default: the verifying key's single points then fail as "bellman refuses
  here" (PointEncodingError) instead of check_verifying_key's reason;
* _read_verifying_key's check names without the file name (the test only looked for "gamma_g2" in the field);
* parse_parameters not checking the query lengths against the R1CS (only ic was ever wrong in a test);
* parse_proofs accepting an empty file (zero proofs), and naming C's identity ".a".

Every file here is built by hand from FORMAT.md's bellman layout (py_ecc's affine coordinates, tests/test_bellman.py),
not by the writer under test, and every offset and count is computed from that layout.
"""
import dataclasses

import pytest
from py_ecc.optimized_bls12_381 import G1, G2, Z1, Z2
from test_bellman import _compressed_proof, _documented_vk, _u32_be, _uncompressed_g1, _uncompressed_g2

from reference.assemble import Proof
from reference.errors import InvalidInputError, PointEncodingError, SizeMismatchError
from vectors.bellman import export_bellman, parameters_bytes, parse_parameters, parse_proofs, parse_verifying_key, proof_bytes, verifying_key_bytes
from vectors.bundled import DATA_DIR
from vectors.format import load_vector

G1_BYTES, G2_BYTES = 96, 192
"""FORMAT.md: uncompressed G1 = x || y (48 bytes each), G2 = x.c1 || x.c0 || y.c1 || y.c0."""
VK_SINGLES_BYTES = 3 * G1_BYTES + 3 * G2_BYTES
"""alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2: 864 bytes before ic's length."""
INFINITY_G1 = b"\x40" + bytes(G1_BYTES - 1)
"""The ZCash encoding of the identity, uncompressed: the infinity flag (0x40) alone."""
INFINITY_G1_COMPRESSED, INFINITY_G2_COMPRESSED = b"\xc0" + bytes(47), b"\xc0" + bytes(95)
WRITER_IDENTITY = READER_IDENTITY = "is the point at infinity, which bellman refuses here"
"""The identity's refusal, in the same words from the writer and the reader (vectors/bellman.py IDENTITY_REFUSED)."""


@pytest.fixture(scope="module")
def vector():
    return load_vector(DATA_DIR / "porep-log04.json")


def _documented_lists(pk, h=None) -> list[bytes]:
    """h, l, a, b_g1, b_g2: each a u32 big-endian count, then its points uncompressed (``h`` replaces pk.h)."""
    h = pk.h if h is None else h
    lists = ((h, _uncompressed_g1), (pk.l, _uncompressed_g1), (pk.a, _uncompressed_g1), (pk.b_g1, _uncompressed_g1), (pk.b_g2, _uncompressed_g2))
    return [_u32_be(len(points)) + b"".join(encode(p) for p in points) for points, encode in lists]


def _documented_parameters(pk, h=None) -> bytes:
    return _documented_vk(pk.vk) + b"".join(_documented_lists(pk, h))


def _error(kind, call) -> InvalidInputError:
    with pytest.raises(kind) as info:
        call()
    return info.value


# ----------------------------------------------------------------------------------------------
# Writing


def test_the_writer_names_the_query_and_index_of_an_identity(vector):
    pk = vector.pk
    bad_l = dataclasses.replace(pk, l=(*pk.l[:2], Z1, *pk.l[3:]))
    e = _error(PointEncodingError, lambda: parameters_bytes(bad_l))
    assert (e.field, e.problem) == ("proving_key.l[2]", WRITER_IDENTITY)
    bad_b_g2 = dataclasses.replace(pk, b_g2=(*pk.b_g2[:-1], Z2))
    assert _error(PointEncodingError, lambda: parameters_bytes(bad_b_g2)).field == f"proving_key.b_g2[{len(pk.b_g2) - 1}]"
    bad_ic = dataclasses.replace(pk.vk, ic=(pk.vk.ic[0], Z1))
    assert _error(PointEncodingError, lambda: verifying_key_bytes(bad_ic)).field == "verifying_key.ic[1]"


def test_proof_bytes_names_the_identity_point():
    assert _error(PointEncodingError, lambda: proof_bytes(Proof(a=G1, b=Z2, c=G1))).field == "proof.b"
    e = _error(PointEncodingError, lambda: proof_bytes(Proof(a=G1, b=G2, c=Z1), "mine"))
    assert (e.field, e.problem) == ("mine.c", WRITER_IDENTITY)


def test_export_names_the_first_circuit_without_a_proof_and_writes_nothing(vector, tmp_path):
    case = vector.circuits[0]
    bare = dataclasses.replace(case, expected=None)
    for circuits, first in (([bare], 0), ([case, bare, bare], 1)):
        out = tmp_path / f"out{first}"
        e = _error(InvalidInputError, lambda: export_bellman(dataclasses.replace(vector, circuits=circuits), out))
        assert (e.field, e.problem) == (f"circuits[{first}].expected", "is missing: the vector has no proof to export")
        assert not out.exists()


def test_export_names_the_circuit_of_a_proof_with_an_identity(vector, tmp_path):
    case = vector.circuits[0]
    bad = dataclasses.replace(case, expected=dataclasses.replace(case.expected, assemble=Proof(a=Z1, b=G2, c=G1)))
    out = tmp_path / "out"
    e = _error(PointEncodingError, lambda: export_bellman(dataclasses.replace(vector, circuits=[case, bad]), out))
    assert (e.field, e.problem) == ("circuits[1].expected.proof.a", WRITER_IDENTITY)
    assert not out.exists()


# ----------------------------------------------------------------------------------------------
# Reading


def test_a_truncated_file_names_the_missing_point_its_offset_and_the_file_size(vector):
    pk = vector.pk
    data = _documented_parameters(pk)
    last_b_g2 = len(data) - G2_BYTES  # the layout ends with b_g2's last point
    e = _error(SizeMismatchError, lambda: parse_parameters(data[:-1], vector.r1cs))
    assert str(e) == (f"parameters: proving_key.b_g2[{len(pk.b_g2) - 1}]: needs 192 bytes at offset {last_b_g2}, "
                      f"but the file ends after {len(data) - 1} (truncated)")
    h_first = VK_SINGLES_BYTES + 4 + G1_BYTES * len(pk.vk.ic) + 4
    cut = data[: h_first + 2 * G1_BYTES + 10]  # h[0], h[1] whole, h[2] cut after 10 bytes
    e = _error(SizeMismatchError, lambda: parse_parameters(cut, vector.r1cs))
    assert str(e) == (f"parameters: proving_key.h[2]: needs 96 bytes at offset {h_first + 2 * G1_BYTES}, "
                      f"but the file ends after {len(cut)} (truncated)")


def test_points_before_a_truncation_are_decoded_first(vector):
    """A bad h[0] in a file that ends inside h: the bad point is reported, not the truncation after it."""
    data = _documented_parameters(vector.pk)
    h_first = VK_SINGLES_BYTES + 4 + G1_BYTES * len(vector.pk.vk.ic) + 4
    bad = bytearray(data[: h_first + 2 * G1_BYTES + 10])
    bad[h_first + G1_BYTES - 1] ^= 1  # h[0].y's last bit: (x, y) off the curve
    e = _error(PointEncodingError, lambda: parse_parameters(bytes(bad), vector.r1cs))
    assert e.field == "parameters: proving_key.h[0]" and e.problem.startswith("not on the curve")


def test_trailing_bytes_name_their_count_and_offset(vector):
    data = _documented_parameters(vector.pk)
    e = _error(SizeMismatchError, lambda: parse_parameters(data + b"\0", vector.r1cs))
    assert str(e) == f"parameters: has 1 bytes after the last field (at offset {len(data)})"
    vk = _documented_vk(vector.pk.vk)
    assert len(vk) == VK_SINGLES_BYTES + 4 + G1_BYTES * len(vector.pk.vk.ic)
    assert parse_verifying_key(vk) == vector.pk.vk
    e = _error(SizeMismatchError, lambda: parse_verifying_key(vk + b"\0\0"))
    assert str(e) == f"verifying key: has 2 bytes after the last field (at offset {len(vk)})"


def test_parse_verifying_key_checks_num_inputs(vector):
    vk = _documented_vk(vector.pk.vk)
    ic = len(vector.pk.vk.ic)
    assert parse_verifying_key(vk, num_inputs=ic) == vector.pk.vk
    e = _error(SizeMismatchError, lambda: parse_verifying_key(vk, num_inputs=ic + 1))
    assert str(e) == f"verifying key: verifying_key.ic length: is {ic}; the R1CS implies {ic + 1}"


def test_verifying_key_points_are_refused_by_check_verifying_key_with_the_file_name(vector):
    """bellman's VerifyingKey::read refuses the identity in ic only: an identity alpha is refused by check_verifying_key
    (a setup secret of 0), gamma = delta too, each naming the file and the field."""
    vk = _documented_vk(vector.pk.vk)
    no_alpha = INFINITY_G1 + vk[G1_BYTES:]
    e = _error(InvalidInputError, lambda: parse_verifying_key(no_alpha, "my.vk"))
    assert type(e) is InvalidInputError
    assert (e.field, e.problem) == ("my.vk: verifying_key.alpha_g1", "is the point at infinity: a setup secret of 0 makes every proof forgeable")
    gamma_at, delta_g2_at = 2 * G1_BYTES + G2_BYTES, 3 * G1_BYTES + 2 * G2_BYTES  # alpha, beta_g1, beta_g2 | gamma_g2 ...
    gamma_is_delta = vk[:gamma_at] + vk[delta_g2_at : delta_g2_at + G2_BYTES] + vk[gamma_at + G2_BYTES :]
    e = _error(InvalidInputError, lambda: parse_verifying_key(gamma_is_delta))
    assert e.field == "verifying key: verifying_key.gamma_g2" and e.problem.startswith("equals delta_g2")


def test_every_query_length_is_checked_against_the_r1cs(vector):
    """One G1 point too many in h (count and point, a well-formed file): bellman's H query has n - 1 points."""
    pk, n = vector.pk, vector.r1cs.n
    longer = _documented_parameters(pk, h=(*pk.h, G1))
    e = _error(SizeMismatchError, lambda: parse_parameters(longer, vector.r1cs))
    assert str(e) == f"parameters: proving_key.h length: is {n}; the R1CS implies {n - 1}"
    assert parse_parameters(_documented_parameters(pk), vector.r1cs) == pk


def test_proof_files_name_the_bad_point_and_refuse_emptiness(vector):
    good = _compressed_proof(vector.circuits[0].expected.assemble)
    assert parse_proofs(good + good) == [vector.circuits[0].expected.assemble] * 2
    e = _error(SizeMismatchError, lambda: parse_proofs(b""))
    assert str(e) == "proofs: has 0 bytes; expected a non-zero multiple of 192 (one proof each)"
    e = _error(PointEncodingError, lambda: parse_proofs(good + good[:144] + INFINITY_G1_COMPRESSED))
    assert (e.field, e.problem) == ("proofs: proof[1].c", READER_IDENTITY)
    e = _error(PointEncodingError, lambda: parse_proofs(good[:48] + INFINITY_G2_COMPRESSED + good[144:]))
    assert (e.field, e.problem) == ("proofs: proof[0].b", READER_IDENTITY)
