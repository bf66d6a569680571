"""`python -m reference verify` prints a verdict only for what it checked (a mutation audit of the verify path,
2026-12-07): mutants of reference/__main__.py, reference/cli.py, reference/verifier.py, reference/keys.py and
vectors/snarkjs.py that passed the suite before these tests:

* _verify's count check as ``len(proofs) > len(inputs)``: one proof for two lists of public inputs printed
  'circuit 0: valid', exit 0, the second claim never checked;
* the exit status from ``any(valid)`` instead of ``all(valid)``: exit 0 with a 'circuit 1: INVALID' line;
* the verdict line saying 'valid' for every circuit after the first whatever the pairing check said;
* check_public_inputs without its ``0 <=``: a negative public input reached py_ecc's multiply, which never returns
  for one (test_prover's x - r case hung instead of failing);
* _load_public taking a list with any list in it (not all) as several lists: the error named the wrong element;
* _load_any_proofs testing the first byte instead of the first non-blank one: a JSON proof file starting with a
  newline was read as bellman's binary proofs and refused;
* each_document naming a one-element proofs list's errors by the file (p.json.pi_a) instead of element [0];
* verifying_key_from_json without its nPublic check, or without its empty-IC check;
* _json_z accepting any z, so a projective z = 2 was read as if affine.

It also found a key file holding JSON that is no object refused as '(document)', naming no file (fixed in
reference/__main__.py).

The known-good input is interop/snarkjs (snarkjs's own verification key, proof and public signals), judged here
by py_ecc's pairing directly; every bad input is that proof or key with one value changed. Two known, left-alone
behaviours are pinned as they are: a proofs list with one element is accepted, and proof.json without "curve".
"""
import json
from pathlib import Path

import pytest
from py_ecc.optimized_bls12_381 import FQ12, G1, add, multiply, pairing

from reference.__main__ import main as reference_main
from reference.cli import EXIT_BAD_INPUT, EXIT_INVALID_PROOF, EXIT_OK, run_main
from reference.errors import InvalidInputError
from reference.field import R
from reference.verifier import check_public_inputs
from vectors.snarkjs import g1_to_json, proof_from_json, public_from_json, verifying_key_from_json

INTEROP = Path(__file__).resolve().parent.parent / "interop" / "snarkjs"
VK_FILE, PROOF_FILE, PUBLIC_FILE = INTEROP / "verification_key.json", INTEROP / "proof.json", INTEROP / "public.json"


def _load(path: Path):
    return json.loads(path.read_text())


def _write(folder: Path, doc, name: str, prefix: str = "") -> Path:
    path = folder / name
    path.write_text(prefix + json.dumps(doc, indent=1) + "\n")
    return path


def _verify(capsys, key, proof, public=None) -> tuple[int, str, str]:
    capsys.readouterr()
    argv = ["verify", str(key), str(proof), *(["--public", str(public)] if public else []), "--quiet"]
    rc = run_main(reference_main, argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _refused(capsys, key, proof, public, field: str, problem: str = "") -> str:
    """Exit 2, no verdict line, one 'error: FIELD: ...' line on stderr."""
    rc, out, err = _verify(capsys, key, proof, public)
    assert (rc, out) == (EXIT_BAD_INPUT, ""), (rc, out, err)
    assert err.startswith(f"error: {field}: ") and problem in err and err.count("\n") == 1, err
    return err


@pytest.fixture(scope="module")
def interop():
    """(vk, proof, public) decoded, and the fact, from py_ecc's pairing alone, that the proof is valid:
    e(A, B) = e(alpha, beta) e(IC_0 + sum x_i IC_(i+1), gamma) e(C, delta)."""
    vk = verifying_key_from_json(_load(VK_FILE))
    proof = proof_from_json(_load(PROOF_FILE))
    public = public_from_json(_load(PUBLIC_FILE))
    x = vk.ic[0]
    for i, value in enumerate(public):
        x = add(x, multiply(vk.ic[i + 1], value))
    lhs = pairing(proof.b, proof.a)
    rhs = pairing(vk.beta_g2, vk.alpha_g1) * pairing(vk.gamma_g2, x) * pairing(vk.delta_g2, proof.c)
    assert lhs == rhs and lhs != FQ12.one()
    return vk, proof, public


@pytest.fixture(scope="module")
def bumped_public() -> list[str]:
    """public.json with its first signal + 1: a well-formed claim the interop proof does not prove."""
    public = _load(PUBLIC_FILE)
    return [str(int(public[0]) + 1), *public[1:]]


def test_the_interop_proof_is_valid_and_one_changed_coordinate_is_invalid(interop, tmp_path, capsys):
    """Control: the CLI agrees with the pairing check above; C moved by G1 is well formed but INVALID (exit 1)."""
    assert _verify(capsys, VK_FILE, PROOF_FILE, PUBLIC_FILE) == (EXIT_OK, "circuit 0: valid\n", "")
    proof = _load(PROOF_FILE)
    proof["pi_c"] = g1_to_json(add(interop[1].c, G1))
    assert _verify(capsys, VK_FILE, _write(tmp_path, proof, "p.json"), PUBLIC_FILE) == (EXIT_INVALID_PROOF, "circuit 0: INVALID\n", "")


@pytest.mark.parametrize("bad", [1, 0], ids=["second-invalid", "first-invalid"])
def test_every_proof_of_a_list_gets_its_own_verdict(bad, bumped_public, tmp_path, capsys):
    """Two copies of the proof, one list of public signals changed: that circuit alone is INVALID, and one INVALID
    is exit 1 wherever it stands (a verifier checking the first proof only, or exiting 0 when any proof verifies,
    or numbering circuits from 1, is caught)."""
    proof = _load(PROOF_FILE)
    publics = [_load(PUBLIC_FILE), _load(PUBLIC_FILE)]
    publics[bad] = bumped_public
    rc, out, err = _verify(capsys, VK_FILE, _write(tmp_path, [proof, proof], "p.json"), _write(tmp_path, publics, "public.json"))
    lines = ["circuit 0: valid", "circuit 1: valid"]
    lines[bad] = f"circuit {bad}: INVALID"
    assert (rc, out, err) == (EXIT_INVALID_PROOF, "\n".join(lines) + "\n", "")


def test_two_proofs_both_valid_are_two_valid_lines(tmp_path, capsys):
    proof = _load(PROOF_FILE)
    publics = [_load(PUBLIC_FILE)] * 2
    rc, out, _ = _verify(capsys, VK_FILE, _write(tmp_path, [proof, proof], "p.json"), _write(tmp_path, publics, "public.json"))
    assert (rc, out) == (EXIT_OK, "circuit 0: valid\ncircuit 1: valid\n")


def test_more_proofs_than_lists_of_public_inputs_is_refused(tmp_path, capsys):
    """A second proof with no public inputs to check it against was dropped by zip: 'valid' for one of two claims."""
    proof = _load(PROOF_FILE)
    proofs = _write(tmp_path, [proof, proof], "p.json")
    _refused(capsys, VK_FILE, proofs, PUBLIC_FILE, str(proofs), "holds 2 proof(s); ")


def test_fewer_proofs_than_lists_of_public_inputs_is_refused(tmp_path, capsys):
    proofs = _write(tmp_path, [_load(PROOF_FILE)], "p.json")
    publics = _write(tmp_path, [_load(PUBLIC_FILE)] * 2, "public.json")
    _refused(capsys, VK_FILE, proofs, publics, str(proofs), "holds 1 proof(s); ")


def test_a_list_of_one_proof_is_read_as_that_proof_and_named_by_index(interop, tmp_path, capsys):
    """Known, left alone: a proofs list with one element is accepted (one circuit); its errors name element [0]."""
    proof = _load(PROOF_FILE)
    assert _verify(capsys, VK_FILE, _write(tmp_path, [proof], "p.json"), PUBLIC_FILE)[:2] == (EXIT_OK, "circuit 0: valid\n")
    broken = {**proof, "pi_a": [proof["pi_a"][0], str(int(proof["pi_a"][1]) + 1), "1"]}
    _refused(capsys, VK_FILE, _write(tmp_path, [broken], "p.json"), PUBLIC_FILE, "p.json[0].pi_a", "not on the curve")
    _refused(capsys, VK_FILE, _write(tmp_path, broken, "p.json"), PUBLIC_FILE, "p.json.pi_a", "not on the curve")


def test_a_proof_without_a_curve_field_is_accepted_and_another_curve_is_refused(tmp_path, capsys):
    """Known, left alone: snarkjs proof.json without "curve" (or "protocol") is read as BLS12-381 Groth16; a curve
    that is there must be bls12381."""
    proof = _load(PROOF_FILE)
    del proof["curve"]
    assert _verify(capsys, VK_FILE, _write(tmp_path, proof, "p.json"), PUBLIC_FILE)[:2] == (EXIT_OK, "circuit 0: valid\n")
    _refused(capsys, VK_FILE, _write(tmp_path, {**proof, "curve": "bn128"}, "p.json"), PUBLIC_FILE, "p.json.curve", "'bn128'")


def test_a_json_proof_file_with_leading_blank_space_is_still_json(tmp_path, capsys):
    """Blank space before '{' is JSON; read as bellman's binary proofs it would be refused by its size."""
    proof = _write(tmp_path, _load(PROOF_FILE), "p.json", prefix="\n  ")
    assert _verify(capsys, VK_FILE, proof, PUBLIC_FILE)[:2] == (EXIT_OK, "circuit 0: valid\n")


def test_a_negative_public_input_is_refused_before_any_point_arithmetic(interop):
    """x - r < 0: refused by check_public_inputs itself (py_ecc's multiply never returns for a negative scalar, so
    verify() on it would hang rather than fail)."""
    vk, _, public = interop
    with pytest.raises(InvalidInputError) as caught:
        check_public_inputs(vk, [public[0], public[1] - R, public[2]], "public.json")
    assert caught.value.field == "public.json[1]"
    check_public_inputs(vk, [public[0], R - 1, public[2]], "public.json")  # the largest element of Fr is in range


def _edited_proof(edit) -> dict:
    proof = _load(PROOF_FILE)
    edit(proof)
    return proof


@pytest.mark.parametrize(
    "edit, field, problem",
    [
        (lambda p: p.update(pi_c=[*p["pi_c"][:2], "2"]), "p.json.pi_c[2]", "is 2"),  # projective z = 2
        (lambda p: p.update(pi_a=[*p["pi_a"][:2], "0"]), "p.json.pi_a", "has one form"),  # z = 0 with the point's x, y
    ],
    ids=["pi_c-z-2", "pi_a-z-0"],
)
def test_a_snarkjs_proof_point_in_any_other_form_is_refused(edit, field, problem, tmp_path, capsys):
    _refused(capsys, VK_FILE, _write(tmp_path, _edited_proof(edit), "p.json"), PUBLIC_FILE, field, problem)


@pytest.mark.parametrize(
    "edit, field, problem",
    [
        (lambda k: k.update(nPublic=2), "k.json.nPublic", "IC has 4 points"),
        (lambda k: (k.pop("nPublic"), k.update(IC=[])), "k.json.IC", "non-empty list"),
    ],
    ids=["nPublic", "IC-empty"],
)
def test_a_snarkjs_key_that_cannot_bind_the_claim_is_refused(edit, field, problem, tmp_path, capsys):
    key = _load(VK_FILE)
    edit(key)
    _refused(capsys, _write(tmp_path, key, "k.json"), PROOF_FILE, PUBLIC_FILE, field, problem)


def test_public_json_mixing_a_list_and_a_signal_is_one_list_with_a_bad_first_signal(tmp_path, capsys):
    """Only a list of lists is several lists of public inputs: [[...], "4"] is one list whose element [0] is no
    decimal string (read as two lists, the error named element [1] instead)."""
    publics = _write(tmp_path, [_load(PUBLIC_FILE), "4"], "public.json")
    _refused(capsys, VK_FILE, PROOF_FILE, publics, "public.json[0]", "expected a decimal string, got list")


@pytest.mark.parametrize("key_doc", [[1], "key", 7, None])
def test_a_key_file_that_is_not_an_object_is_refused_by_its_file_name(capsys, tmp_path, key_doc):
    """Found by this audit: a key file holding JSON that is no object was refused as '(document)', naming no file;
    the key is the first of three files, so the error names it."""
    key = _write(tmp_path, key_doc, "k.json")
    _refused(capsys, key, PROOF_FILE, PUBLIC_FILE, "k.json", "is not a JSON object")
