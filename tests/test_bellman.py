"""bellman / bellperson files: export then import gives the same keys and proofs; the bytes follow the
layout of vectors/FORMAT.md ("bellman / bellperson files"), rebuilt here independently with py_ecc;
bad files fail with errors that name the field."""
import json
import struct

import pytest
from conftest import key_with_a_foreign_l_point
from py_ecc.bls.point_compression import compress_G1, compress_G2
from py_ecc.optimized_bls12_381 import G1, G2, Z1, multiply, normalize

from reference.__main__ import main as reference_main
from reference.cli import EXIT_BAD_INPUT, EXIT_OK, run_main
from reference.domain import BELLMAN
from reference.errors import InvalidInputError, PointEncodingError, SizeMismatchError
from reference.keys import VerifyingKey
from reference.prover import Witness
from reference.setup import setup, trapdoor_from_seed
from reference.verifier import verify
from vectors.__main__ import main as vectors_main
from vectors.bellman import (
    PARAMETERS_FILE,
    PROOFS_FILE,
    PUBLIC_INPUTS_FILE,
    VERIFYING_KEY_FILE,
    parameters_bytes,
    parse_parameters,
    parse_proofs,
    parse_verifying_key,
    proof_bytes,
    verifying_key_bytes,
)
from vectors.bundled import DATA_DIR, SNARKJS_INTEROP
from vectors.format import load_vector, vector_document
from vectors.snarkjs import parse_r1cs, parse_wtns, split_witness, vector_from_key

INTEROP = DATA_DIR.parents[1] / "interop" / "snarkjs"
METADATA = ("id", "comment", "flags", "generator", "computed_by", "trapdoor")
"""Vector fields that say where a vector came from; an import sets them afresh."""

G1_GENERATOR_UNCOMPRESSED = bytes.fromhex(
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"
)
"""The BLS12-381 G1 generator (x, y) as published in the curve's specification (draft-irtf-cfrg-pairing-friendly-curves)."""
G2_GENERATOR_UNCOMPRESSED = bytes.fromhex(
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"
)
"""The G2 generator from the same specification, written x.c1, x.c0, y.c1, y.c0 (ZCash order: c1 first)."""


def _export(vector_path, out_dir):
    assert vectors_main(["export-bellman", str(vector_path), "--out", str(out_dir), "--quiet"]) == EXIT_OK
    return out_dir


def _same_except_metadata(a: dict, b: dict) -> None:
    assert {k: v for k, v in a.items() if k not in METADATA} == {k: v for k, v in b.items() if k not in METADATA}


@pytest.mark.parametrize("name", ["porep-log03", "multi-circuit-log07"])
def test_export_then_import_gives_identical_keys_and_proofs(name, tmp_path):
    source = DATA_DIR / f"{name}.json"
    out = _export(source, tmp_path / "bellman")
    imported = tmp_path / "imported.json"
    args = ["import-bellman", str(out / PARAMETERS_FILE), "--circuit", str(source), "--out", str(imported), "--quiet"]
    assert vectors_main(args) == EXIT_OK
    original, again = json.loads(source.read_text()), json.loads(imported.read_text())
    _same_except_metadata(original, again)  # keys, R1CS, witnesses, every phase's expected output, the proofs
    assert again["flags"] == ["bellman-import"] and "trapdoor" not in again
    assert vectors_main(["check", "--fast", str(imported), "--quiet"]) == EXIT_OK  # the bellman-import flag holds
    proofs = parse_proofs((out / PROOFS_FILE).read_bytes())
    assert [proof_bytes(p).hex() for p in proofs] == [proof_hex(c["expected"]["proof"]) for c in original["circuits"]]
    assert json.loads((out / PUBLIC_INPUTS_FILE).read_text()) == [c["public_inputs"] for c in original["circuits"]]


def proof_hex(doc: dict) -> str:
    """A vector's expected proof {"a", "b", "c"} (compressed hex) as the hex of bellman's 192 bytes: A | B | C."""
    return doc["a"] + doc["b"] + doc["c"]


def _uncompressed_g1(point) -> bytes:
    """FORMAT.md: G1 uncompressed = x || y, 48-byte big-endian each, written from py_ecc's affine coordinates."""
    x, y = normalize(point)
    return x.n.to_bytes(48, "big") + y.n.to_bytes(48, "big")


def _uncompressed_g2(point) -> bytes:
    """FORMAT.md: G2 uncompressed = x.c1 || x.c0 || y.c1 || y.c0."""
    x, y = normalize(point)
    return b"".join(int(c).to_bytes(48, "big") for coordinate in (x, y) for c in reversed(coordinate.coeffs))


def _u32_be(value: int) -> bytes:
    return struct.pack(">I", value)


def _documented_vk(vk) -> bytes:
    singles = [_uncompressed_g1(vk.alpha_g1), _uncompressed_g1(vk.beta_g1), _uncompressed_g2(vk.beta_g2),
               _uncompressed_g2(vk.gamma_g2), _uncompressed_g1(vk.delta_g1), _uncompressed_g2(vk.delta_g2)]
    return b"".join(singles) + _u32_be(len(vk.ic)) + b"".join(_uncompressed_g1(p) for p in vk.ic)


def _compressed_proof(proof) -> bytes:
    """A | B | C in the ZCash compressed encoding, by py_ecc's own compression (py_ecc.bls.point_compression)."""
    z1, z2_c1_c0 = compress_G1(proof.a), compress_G2(proof.b)
    c = compress_G1(proof.c)
    return z1.to_bytes(48, "big") + z2_c1_c0[0].to_bytes(48, "big") + z2_c1_c0[1].to_bytes(48, "big") + c.to_bytes(48, "big")


def test_files_follow_the_documented_layout_byte_for_byte(tmp_path):
    vector = load_vector(DATA_DIR / "porep-log04.json")
    out = _export(DATA_DIR / "porep-log04.json", tmp_path)
    pk, vk = vector.pk, vector.pk.vk
    expected_vk = _documented_vk(vk)
    assert len(expected_vk) == 868 + 96 * vector.r1cs.num_inputs  # the offsets table of FORMAT.md
    assert (out / VERIFYING_KEY_FILE).read_bytes() == expected_vk
    queries = b""
    for points, encode in ((pk.h, _uncompressed_g1), (pk.l, _uncompressed_g1), (pk.a, _uncompressed_g1), (pk.b_g1, _uncompressed_g1), (pk.b_g2, _uncompressed_g2)):
        queries += _u32_be(len(points)) + b"".join(encode(p) for p in points)
    assert (out / PARAMETERS_FILE).read_bytes() == expected_vk + queries
    assert len(pk.h) == vector.r1cs.n - 1
    assert (out / PROOFS_FILE).read_bytes() == b"".join(_compressed_proof(c.expected.assemble) for c in vector.circuits)


def test_generators_encode_as_the_published_constants():
    two_g1, two_g2 = multiply(G1, 2), multiply(G2, 2)  # delta != gamma: gamma = delta is a degenerate key
    vk = VerifyingKey(alpha_g1=G1, beta_g1=G1, beta_g2=G2, gamma_g2=G2, delta_g1=two_g1, delta_g2=two_g2, ic=(G1,))
    data = verifying_key_bytes(vk)
    assert data[:96] == G1_GENERATOR_UNCOMPRESSED
    assert data[192:384] == G2_GENERATOR_UNCOMPRESSED
    assert data[864:868] == b"\x00\x00\x00\x01"
    assert verifying_key_bytes(parse_verifying_key(data)) == data


def test_bellman_proofs_verify_through_the_cli(tmp_path, capsys):
    source = DATA_DIR / "porep-log03.json"
    out = _export(source, tmp_path)
    assert reference_main(["verify", str(source), str(out / PROOFS_FILE), "--quiet"]) == EXIT_OK
    assert capsys.readouterr().out == "circuit 0: valid\n"


def test_import_from_circom_r1cs_and_wtns(tmp_path):
    """A bellman-convention key for the circom fixture circuit (test-only setup), exported, then imported from
    the .r1cs and .wtns files: the same key, and a proof that verifies."""
    circuit = parse_r1cs((INTEROP / "circuit.r1cs").read_bytes()).r1cs
    public, aux = split_witness(parse_wtns((INTEROP / "witness.wtns").read_bytes()), circuit, "witness.wtns")
    trapdoor = trapdoor_from_seed("bellman-circom")
    pk = setup(circuit, trapdoor)
    vector = vector_from_key(circuit, pk, [Witness(public, aux, r=5, s=7)], BELLMAN, "c", "c", [], {}, trapdoor)
    params = tmp_path / "groth16.params"
    params.write_bytes(parameters_bytes(pk))
    out = tmp_path / "imported.json"
    args = ["import-bellman", str(params), "--r1cs", str(INTEROP / "circuit.r1cs"), "--wtns", str(INTEROP / "witness.wtns"), "--seed", "s", "--out", str(out), "--quiet"]
    assert vectors_main(args) == EXIT_OK
    imported = load_vector(out)
    expected_doc, _ = vector_document(vector, "c")
    imported_doc, _ = vector_document(imported, "c")
    for key in ("r1cs", "density", "verifying_key", "proving_key"):
        assert imported_doc[key] == expected_doc[key], key
    case = imported.circuits[0]
    assert case.witness.public_inputs == public and verify(pk.vk, public, case.expected.assemble)


# ----------------------------------------------------------------------------------------------
# Bad files


@pytest.fixture(scope="module")
def small():
    vector = load_vector(DATA_DIR / "porep-log03.json")
    return vector, parameters_bytes(vector.pk)


def test_truncated_and_trailing_bytes_are_refused(small):
    vector, data = small
    with pytest.raises(SizeMismatchError, match=r"parameters: proving_key\.b_g2\[\d+\]: needs 192 bytes at offset \d+, but the file ends"):
        parse_parameters(data[:-1], vector.r1cs)
    with pytest.raises(SizeMismatchError, match=r"parameters: verifying_key\.alpha_g1: needs 96 bytes"):
        parse_parameters(data[:50], vector.r1cs)
    with pytest.raises(SizeMismatchError, match="1 bytes after the last field"):
        parse_parameters(data + b"\0", vector.r1cs)


def test_counts_that_disagree_with_the_r1cs_are_refused(small):
    vector, data = small
    ic_length = 864
    wrong_ic = data[:ic_length] + _u32_be(vector.r1cs.num_inputs + 1) + data[ic_length + 4 :]
    with pytest.raises(SizeMismatchError, match=rf"verifying_key\.ic length: is {vector.r1cs.num_inputs + 1}; the R1CS implies {vector.r1cs.num_inputs}"):
        parse_parameters(wrong_ic, vector.r1cs)
    other = load_vector(DATA_DIR / "porep-log04.json").r1cs  # another circuit: other list lengths
    with pytest.raises(SizeMismatchError, match="the R1CS implies"):
        parse_parameters(data, other)


def test_bad_points_are_refused(small):
    vector, data = small
    h_first = 868 + 96 * vector.r1cs.num_inputs + 4
    flipped = data[: h_first + 95] + bytes([data[h_first + 95] ^ 1]) + data[h_first + 96 :]
    with pytest.raises(PointEncodingError, match=r"proving_key\.h\[0\]: not on the curve"):
        parse_parameters(flipped, vector.r1cs)
    infinity = data[:h_first] + b"\x40" + bytes(95) + data[h_first + 96 :]
    with pytest.raises(PointEncodingError, match=r"proving_key\.h\[0\]: is the point at infinity"):
        parse_parameters(infinity, vector.r1cs)
    compressed_flag = data[:h_first] + bytes([data[h_first] | 0x80]) + data[h_first + 1 :]
    with pytest.raises(PointEncodingError, match="compression flag"):
        parse_parameters(compressed_flag, vector.r1cs)


def test_bad_proofs_are_refused(small):
    vector, _ = small
    good = proof_bytes(vector.circuits[0].expected.assemble)
    with pytest.raises(SizeMismatchError, match="has 191 bytes; expected a non-zero multiple of 192"):
        parse_proofs(good[:-1])
    with pytest.raises(PointEncodingError, match=r"proof\[1\]\.a: is the point at infinity"):
        parse_proofs(good + b"\xc0" + bytes(47) + good[48:])
    with pytest.raises(PointEncodingError, match="point at infinity"):
        proof_bytes(type(vector.circuits[0].expected.assemble)(a=Z1, b=G2, c=G1))


def test_export_refuses_the_snarkjs_convention_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out"
    rc = run_main(vectors_main, ["export-bellman", str(SNARKJS_INTEROP), "--out", str(out), "--quiet"])
    assert rc == EXIT_BAD_INPUT
    assert "error: domain.convention: is 'snarkjs'; a bellman Parameters file holds the bellman convention's keys only" in capsys.readouterr().err
    assert not out.exists()


def test_import_refuses_parameters_whose_proving_key_does_not_fit_the_verifying_key(tmp_path, capsys):
    """A Parameters file with one L point changed: the proof computed with it does not verify, and `check` would have
    recomputed it bit for bit; the importer runs the pairing check on what it made and writes nothing."""
    source = DATA_DIR / "porep-log03.json"
    params = tmp_path / "foreign-l.params"
    params.write_bytes(parameters_bytes(key_with_a_foreign_l_point(load_vector(source))))
    out = tmp_path / "v.json"
    args = ["import-bellman", str(params), "--circuit", str(source), "--out", str(out), "--quiet"]
    assert run_main(vectors_main, args) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == ("error: foreign-l.params: the proving key does not belong to its verifying key: "
                                       "circuit 0, pairing check: the proof computed with it does not verify\n")
    assert not out.exists()


def test_import_cli_reports_bad_parameters(tmp_path, capsys):
    params = tmp_path / "bad.params"
    params.write_bytes(b"\0" * 10)
    out = tmp_path / "v.json"
    args = ["import-bellman", str(params), "--circuit", str(DATA_DIR / "porep-log03.json"), "--out", str(out), "--quiet"]
    assert run_main(vectors_main, args) == EXIT_BAD_INPUT
    assert "error: bad.params: verifying_key.alpha_g1: needs 96 bytes at offset 0, but the file ends after 10" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(InvalidInputError, match="--wtns: is required with --r1cs"):
        vectors_main(["import-bellman", str(params), "--r1cs", str(INTEROP / "circuit.r1cs"), "--out", str(out)])
