"""Hostile input gets `error: <field>: <problem>` and exit 2, and no verdict lies (issue 14).

Each test breaks one thing a hostile or careless user could: a degenerate key that makes forged proofs
verify, a vector whose stated outputs are wrong, a witness that does not satisfy its circuit, inputs that used
to crash the tools (deep nesting, huge integers, unwritable outputs), outputs that would overwrite inputs, and
non-canonical encodings. The class table is docs/HOSTILE_INPUTS.md.
"""
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import iden3_rebuilt, key_with_a_foreign_l_point
from py_ecc.optimized_bls12_381 import G1, G2, Z1, Z2, neg

from conformance.__main__ import main as conformance_main
from conformance.backends.gpu import GpuBackend
from conformance.fingerprint import INVALID, gate_verdict
from reference.__main__ import main as reference_main
from reference.cli import EXIT_BAD_INPUT, EXIT_INVALID_PROOF, EXIT_OK, run_main
from reference.encoding import encode_g1_many, encode_g2_many
from reference.errors import InvalidInputError
from reference.keys import check_proving_key, check_verifying_key
from reference.safe_files import MAX_JSON_DEPTH, parse_json
from vectors.__main__ import main as vectors_main
from vectors.bellman import PROOF_BYTES, export_bellman, parse_verifying_key, verifying_key_bytes
from vectors.bundled import DATA_DIR, SNARKJS_INTEROP
from vectors.format import load_vector
from vectors.generate import vector_from_key
from vectors.snarkjs import g2_to_zkey, parse_zkey

REPO = Path(__file__).resolve().parent.parent
INTEROP = REPO / "interop" / "snarkjs"
SMALL = DATA_DIR / "porep-log03.json"
MULTI = DATA_DIR / "edge-split-half-1.json"
"""Two circuits at 2^3."""
SIDECAR = DATA_DIR / "sidecar-log08.json"
G1_HEX, G2_HEX = encode_g1_many([G1])[0], encode_g2_many([G2])[0]
G1_IDENTITY_HEX, G2_IDENTITY_HEX = encode_g1_many([Z1])[0], encode_g2_many([Z2])[0]
SNARKJS_G2_IDENTITY = [["0", "0"], ["1", "0"], ["0", "0"]]


def _doc(path=SMALL) -> dict:
    return json.loads(Path(path).read_text())


def _write(folder: Path, doc, name: str = "v.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


def _exit_2(main, argv, capsys, field: str) -> str:
    """Run a CLI in-process: exit 2 with 'error: ...field...' on stderr; returns stderr."""
    assert run_main(main, argv) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("error: ") and field in err, err
    return err


# ----------------------------------------------------------------------------------------------
# Degenerate keys: one rule set (reference/keys.py) for every reader, importer and the verifier


def _small_vk():
    return load_vector(SMALL).pk.vk


@pytest.mark.parametrize("field", ["alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2"])
def test_identity_setup_point_is_refused(field):
    import dataclasses

    vk = _small_vk()
    with pytest.raises(InvalidInputError) as info:
        check_verifying_key(dataclasses.replace(vk, **{field: Z2 if field.endswith("g2") else Z1}))
    assert info.value.field == f"verifying_key.{field}"


@pytest.mark.parametrize("sign", [1, -1])
def test_gamma_equal_to_plus_or_minus_delta_is_refused(sign):
    import dataclasses

    vk = _small_vk()
    delta = vk.delta_g2 if sign == 1 else neg(vk.delta_g2)
    with pytest.raises(InvalidInputError) as info:
        check_verifying_key(dataclasses.replace(vk, gamma_g2=delta))
    assert info.value.field == "verifying_key.gamma_g2"


def test_identity_ic_point_is_refused():
    import dataclasses

    vk = _small_vk()
    with pytest.raises(InvalidInputError) as info:
        check_verifying_key(dataclasses.replace(vk, ic=(vk.ic[0], Z1, *vk.ic[2:])))
    assert info.value.field == "verifying_key.ic[1]"


@pytest.mark.parametrize("index", [0, -1])
def test_identity_ic_point_is_refused_at_either_end(index):
    """IC_0 (the ONE input's point) and the last IC point are checked too, not only the middle ones."""
    import dataclasses

    vk = _small_vk()
    ic = list(vk.ic)
    ic[index] = Z1
    with pytest.raises(InvalidInputError) as info:
        check_verifying_key(dataclasses.replace(vk, ic=tuple(ic)))
    assert info.value.field == f"verifying_key.ic[{index % len(ic)}]"


@pytest.mark.parametrize("query", ["a", "b_g1", "b_g2"])
@pytest.mark.parametrize("where", [0, -1])
def test_identity_point_in_any_dense_query_is_refused(query, where):
    """check_proving_key refuses O in each of A, B_G1 and B_G2 (bellman drops those points), at the first and last
    position, naming the query and the index."""
    import dataclasses

    pk = load_vector(SMALL).pk
    points = list(getattr(pk, query))
    points[where] = Z2 if query == "b_g2" else Z1
    with pytest.raises(InvalidInputError) as info:
        check_proving_key(dataclasses.replace(pk, **{query: tuple(points)}))
    assert info.value.field == f"proving_key.{query}[{where % len(points)}]"


def _snarkjs_forgery(tmp_path, vk_edit) -> list[str]:
    """A snarkjs key changed by vk_edit and the forged proof A = alpha, B = beta, C = O for the original public signals."""
    vk = json.loads((INTEROP / "verification_key.json").read_text())
    vk_edit(vk)
    proof = {"pi_a": vk["vk_alpha_1"], "pi_b": vk["vk_beta_2"], "pi_c": ["0", "1", "0"], "protocol": "groth16", "curve": "bls12381"}
    return [str(_write(tmp_path, vk, "vk.json")), str(_write(tmp_path, proof, "proof.json")), "--public", str(INTEROP / "public.json"), "--quiet"]


def test_forged_proof_under_an_identity_gamma_is_refused_not_valid(tmp_path, capsys):
    """With gamma = O, e(alpha, beta) = e(alpha, beta) e(X, O) e(O, delta) holds for any X: the forgery 'verified'."""
    argv = _snarkjs_forgery(tmp_path, lambda vk: vk.update(vk_gamma_2=SNARKJS_G2_IDENTITY))
    _exit_2(reference_main, ["verify", *argv], capsys, "vk_gamma_2")
    # the same forgery under the real key: INVALID (it needs the degenerate key)
    assert run_main(reference_main, ["verify", *_snarkjs_forgery(tmp_path, lambda vk: None)]) == EXIT_INVALID_PROOF


def test_snarkjs_key_with_gamma_equal_delta_is_refused(tmp_path, capsys):
    argv = _snarkjs_forgery(tmp_path, lambda vk: vk.update(vk_gamma_2=vk["vk_delta_2"]))
    _exit_2(reference_main, ["verify", *argv], capsys, "vk_gamma_2")


def test_bellman_verifying_key_with_identity_gamma_is_refused(tmp_path):
    vector = load_vector(SMALL)
    export_bellman(vector, tmp_path)
    data = bytearray(verifying_key_bytes(vector.pk.vk))
    data[384:576] = bytes([0x40]) + bytes(191)  # gamma_g2, uncompressed identity (FORMAT.md, bellman table)
    with pytest.raises(InvalidInputError) as info:
        parse_verifying_key(bytes(data))
    assert "gamma_g2" in info.value.field


def test_zkey_with_identity_gamma_is_refused():
    data = (INTEROP / "circuit.zkey").read_bytes()
    gamma = g2_to_zkey(parse_zkey(data).vk.gamma_g2)
    assert data.count(gamma) == 1
    with pytest.raises(InvalidInputError) as info:
        parse_zkey(data.replace(gamma, bytes(len(gamma))))
    assert "gamma2" in info.value.field


def test_vector_with_gamma_equal_delta_is_refused(tmp_path, capsys):
    doc = _doc()
    doc["verifying_key"]["gamma_g2"] = doc["verifying_key"]["delta_g2"]
    _exit_2(vectors_main, ["check", str(_write(tmp_path, doc)), "--quiet"], capsys, "verifying_key.gamma_g2")


def test_importers_refuse_degenerate_keys_before_writing():
    import dataclasses

    vector = load_vector(SMALL)
    bad = dataclasses.replace(vector.pk, vk=dataclasses.replace(vector.pk.vk, delta_g2=vector.pk.vk.gamma_g2))
    with pytest.raises(InvalidInputError):
        vector_from_key(vector.r1cs, bad, vector.witnesses, vector.convention, "x", "x", [], {})
    with pytest.raises(InvalidInputError) as info:
        check_proving_key(dataclasses.replace(vector.pk, a=(Z1, *vector.pk.a[1:])))
    assert info.value.field == "proving_key.a[0]"


# ----------------------------------------------------------------------------------------------
# vectors check: every stated value is what the reference computes


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


OTHER_SCALAR = "00" * 31 + "05"
WRONG_VALUES = {
    "evaluate": (("circuits", 0, "expected", "evaluate", "a", 0), OTHER_SCALAR),
    "ntt_h": (("circuits", 0, "expected", "ntt_h", "h", 0), OTHER_SCALAR),
    "msm_h": (("circuits", 0, "expected", "msm_h", "h"), G1_HEX),
    "prep": (("circuits", 0, "expected", "prep", "l", "tail_scalars", 0), OTHER_SCALAR),
    "batch_add": (("circuits", 0, "expected", "batch_add", "b_g2"), G2_HEX),
    "tail_msm": (("circuits", 0, "expected", "tail_msm", "l"), G1_HEX),
    "proof": (("circuits", 0, "expected", "proof", "c"), G1_HEX),
    "r": (("circuits", 0, "r"), OTHER_SCALAR),
    "trapdoor": (("trapdoor", "tau"), OTHER_SCALAR),
}


@pytest.mark.parametrize("name", WRONG_VALUES)
def test_check_refuses_a_wrong_stated_value(name, tmp_path, capsys):
    path, value = WRONG_VALUES[name]
    doc = _doc()
    assert doc["circuits"][0]["expected"]["prep"]["l"]["tail_scalars"], "the mutation needs a tail scalar"
    _set(doc, path, value)
    field = {"r": "circuits[0].expected.proof", "trapdoor": "verifying_key.ic"}.get(name, f"circuits[0].expected.{name}")
    _exit_2(vectors_main, ["check", str(_write(tmp_path, doc)), "--quiet"], capsys, field)


@pytest.mark.parametrize("extra", [[], ["--reference"], ["--fast"]])
def test_check_refuses_proofs_that_fail_the_pairing_under_their_own_keys(extra, tmp_path, capsys):
    """A vector without trapdoor whose every expected output is what the reference computes from its (inconsistent)
    key: the full check recomputed the same failing proof and said ok while --fast refused it by the pairing oracle.
    Every mode now runs the pairing check."""
    from vectors.format import write_vector

    vector = load_vector(SMALL)
    forged = vector_from_key(vector.r1cs, key_with_a_foreign_l_point(vector), vector.witnesses, vector.convention, "v", "c", [], {})
    path = tmp_path / "v.json"
    write_vector(forged, path)
    err = _exit_2(vectors_main, ["check", *extra, str(path), "--quiet"], capsys, "circuits[0].expected.proof: fails the pairing oracle")
    assert capsys.readouterr().out == "" and err.count("\n") == 1


@pytest.mark.parametrize("extra", [[], ["--fast"]])
def test_check_refuses_a_stated_tail_layout_shorter_than_the_references(extra, tmp_path, capsys):
    """porep-log03's A query is one full MSM over its 5 points (tail_indices [0, 1, 2, 3, 4]). A vector stating only
    the first 4 tail positions (and 4 tail scalars) agrees element by element with what the reference computes, but is
    shorter: the comparison must name the length, not stop at the end of the shorter list."""
    doc = _doc()
    assert doc["prep"]["a"]["tail_indices"] == [0, 1, 2, 3, 4]
    doc["prep"]["a"]["tail_indices"] = [0, 1, 2, 3]
    for circuit in doc["circuits"]:
        circuit["expected"]["prep"]["a"]["tail_scalars"] = circuit["expected"]["prep"]["a"]["tail_scalars"][:4]
    load_vector(_write(tmp_path, doc))  # well formed: only the stated values are wrong
    _exit_2(vectors_main, ["check", *extra, str(_write(tmp_path, doc)), "--quiet"], capsys, "prep.a.tail_indices (length)")


def test_check_wants_expected_outputs_and_the_shared_prep_together():
    """vectors/checking.py: expected outputs for all circuits with the shared prep, or none of them. A Vector built in
    code (importers make them) can break the rule in three ways; each is named."""
    import dataclasses

    from vectors.checking import check_vector_values
    from vectors.format import CircuitCase

    vector = load_vector(DATA_DIR / "multi-circuit-log07.json")
    assert len(vector.circuits) >= 2 and vector.expected_prep is not None
    no_expected = [CircuitCase(witness=c.witness, expected=None) for c in vector.circuits]
    cases = {
        "prep": dataclasses.replace(vector, circuits=no_expected),  # prep without expected outputs
        "circuits[1].expected": dataclasses.replace(vector, circuits=[vector.circuits[0], *no_expected[1:]]),
    }
    for field, broken in cases.items():
        with pytest.raises(InvalidInputError) as info:
            check_vector_values(broken, fast=True)
        assert info.value.field == field
    with pytest.raises(InvalidInputError) as info:  # expected outputs without the prep layout they need
        check_vector_values(dataclasses.replace(vector, expected_prep=None), fast=True)
    assert info.value.field == "prep"


FAST_CHECK_ERRORS = {
    "ntt_h": "error: circuits[0].expected.ntt_h: fails the h-identity oracle",
    "msm_h": "error: circuits[0].expected.msm_h: fails the trapdoor oracle",
    "batch_add": "error: circuits[0].expected.batch_add: fails the trapdoor oracle",
    "tail_msm": "error: circuits[0].expected.tail_msm: fails the trapdoor oracle",
    "proof": "error: circuits[0].expected.proof: fails the pairing oracle",
    "trapdoor": "error: verifying_key.ic[0]: is not what reference/setup.py's formulas give from the vector's trapdoor",
    "evaluate": "error: circuits[0].expected.evaluate.a[0]: is not what the reference computes",
    "prep": "error: circuits[0].expected.prep.l.tail_scalars[0]: is not what the reference computes",
}
"""The field and the judge --fast names for each mutation of WRONG_VALUES."""


@pytest.mark.parametrize("name", FAST_CHECK_ERRORS)
def test_fast_check_refuses_what_its_oracles_see(name, tmp_path, capsys):
    path, value = WRONG_VALUES[name]
    doc = _doc()
    _set(doc, path, value)
    err = _exit_2(vectors_main, ["check", "--fast", str(_write(tmp_path, doc)), "--quiet"], capsys, "")
    assert err.startswith(FAST_CHECK_ERRORS[name]), err


@pytest.mark.parametrize("extra", [[], ["--fast"]])
def test_check_refuses_an_ic_point_the_trapdoor_does_not_give(extra, tmp_path, capsys):
    """Without expected outputs no pairing check sees a wrong IC point: the trapdoor check itself must
    (--fast printed 'ok ... keys match the trapdoor (verifying key; ...)' without looking at ic)."""
    doc = _doc()
    ic = doc["verifying_key"]["ic"]
    ic[0] = ic[1]
    for case in doc["circuits"]:
        del case["expected"]
    del doc["prep"]
    _exit_2(vectors_main, ["check", *extra, str(_write(tmp_path, doc)), "--quiet"], capsys, "error: verifying_key.ic[0]: is not what")


def _partial_sections(case: str) -> tuple[dict, str]:
    """MULTI with one section cut away and, where the cut would leave them unjudged, two stated values made wrong:
    `conformance run` skipped batch_add and tail_msm without `prep` (so their swapped L sums, whose total assemble
    reads, passed), and judged every circuit by oracles when one lacked `expected` (so swapped proofs passed the
    pairing check): result PASS, exit 0 (audit of 2026-12-07)."""
    doc = _doc(MULTI)
    first, second = (circuit["expected"] for circuit in doc["circuits"][:2])
    if case == "no prep":
        del doc["prep"]
        first["batch_add"]["l"], first["tail_msm"]["l"] = first["tail_msm"]["l"], first["batch_add"]["l"]
        return doc, "error: prep: is missing: the circuits' expected outputs need the shared prep layout\n"
    if case == "one circuit without expected":
        del doc["circuits"][-1]["expected"]
        first["proof"]["a"], second["proof"]["a"] = second["proof"]["a"], first["proof"]["a"]
        last = len(doc["circuits"]) - 1
        return doc, f"error: circuits[{last}].expected: is missing while other circuits have one: all or none\n"
    for circuit in doc["circuits"]:
        del circuit["expected"]
    return doc, "error: prep: is present but no circuit has expected outputs: all or none\n"


PARTIAL_SECTION_READERS = {
    "vectors check": (vectors_main, ["check", "{vector}", "--quiet"]),
    "reference prove": (reference_main, ["prove", "{vector}", "--out", "{out}", "--quiet"]),
    **{f"conformance run{' ' if extra else ''}{' '.join(extra)}": (
        conformance_main, ["run", "{vector}", "--backends", "reference", "--report", "{out}", "--quiet", *extra])
       for extra in ([], ["--mode", "end-to-end"], ["--mode", "prover"], ["--oracle"])},
}


@pytest.mark.parametrize("case", ["no prep", "one circuit without expected", "prep without expected"])
@pytest.mark.parametrize("reader", list(PARTIAL_SECTION_READERS))
def test_optional_sections_are_all_or_none_for_every_reader(reader, case, tmp_path, capsys):
    """FORMAT.md "Canonical input", Sections; refused where the vector is read (vectors/format.py check_sections),
    before any phase runs, so no reader judges some stated values and silently drops the others."""
    doc, message = _partial_sections(case)
    main, argv = PARTIAL_SECTION_READERS[reader]
    out = tmp_path / "out"
    argv = [a.format(vector=_write(tmp_path, doc), out=out) for a in argv]
    assert _exit_2(main, argv, capsys, message.split(":")[1].strip()) == message
    assert not out.exists()


def test_sections_are_judged_before_any_circuit_is_decoded(tmp_path, capsys):
    """The rule needs only which circuits state `expected`: a refused vector must not cost the reading and decoding
    of every circuit's arrays first (at 2^27 a circuit's sidecars are GiB). circuits[0]'s witness is not even hex:
    the section rule is still what is reported, so nothing of circuits[0] was decoded before it."""
    doc = _doc(MULTI)
    doc["circuits"][0]["aux_assignment"][0] = "not hex"
    del doc["circuits"][-1]["expected"]
    last = len(doc["circuits"]) - 1
    argv = ["check", str(_write(tmp_path, doc)), "--quiet"]
    assert _exit_2(vectors_main, argv, capsys, f"circuits[{last}].expected") == (
        f"error: circuits[{last}].expected: is missing while other circuits have one: all or none\n")


def test_a_circuit_that_is_not_an_object_is_named(tmp_path, capsys):
    doc = _doc()
    doc["circuits"].append(5)
    argv = ["check", str(_write(tmp_path, doc)), "--quiet"]
    assert _exit_2(vectors_main, argv, capsys, "circuits[1]") == "error: circuits[1]: expected an object\n"


def test_check_passes_a_snarkjs_vector_fully_and_fast(capsys):
    assert run_main(vectors_main, ["check", str(SNARKJS_INTEROP), "--quiet"]) == EXIT_OK
    assert run_main(vectors_main, ["check", "--fast", str(SNARKJS_INTEROP), "--quiet"]) == EXIT_OK
    assert capsys.readouterr().out.count("ok  ") == 2


# ----------------------------------------------------------------------------------------------
# conformance run: no PASS for what it did not check


def _unsatisfied(tmp_path) -> str:
    doc = _doc()
    aux = doc["circuits"][0]["aux_assignment"]
    aux[0] = f"{(int(aux[0], 16) + 2):064x}"  # aux_0 is fixed by constraint 0 in the porep shape
    return str(_write(tmp_path, doc))


@pytest.mark.parametrize("extra", [[], ["--oracle"], ["--mode", "end-to-end"]])
def test_conformance_refuses_an_unsatisfied_witness_in_every_mode(extra, tmp_path, capsys):
    argv = ["run", _unsatisfied(tmp_path), "--backends", "reference", "--report", str(tmp_path / "r"), "--quiet", *extra]
    _exit_2(conformance_main, argv, capsys, "circuit 0: constraint")


@pytest.mark.parametrize("value", ["\u0662", " 2", "+2", "1_0", "0x2", "02", "2.0", ""])
@pytest.mark.parametrize("command", [
    lambda value, out: (vectors_main, ["generate", "--log-n", value, "--seed", "x", "--out", out], "--log-n"),
    lambda value, out: (conformance_main, ["run", str(SMALL), "--repeat", value, "--report", out], "--repeat"),
], ids=["vectors-generate", "conformance-run"])
def test_number_arguments_are_plain_ascii_decimals(command, value, tmp_path, capsys):
    """int() read '\u0662' (an Arabic-Indic 2), ' +1_0 ' and the like, and the vector recorded the value as if 2 or 10
    had been typed (audit of 2026-12-07): every toolkit parser reads only plain decimals (reference/cli.py
    CANONICAL_TYPES), before any work."""
    out = tmp_path / "out"
    main, argv, field = command(value, str(out))
    err = _exit_2(main, argv, capsys, field)
    assert err.startswith(f"error: {field}: expected a decimal integer"), err
    assert not out.exists()


@pytest.mark.parametrize("value", ["1e3", "nan", "inf", " 5", "+5", "5.", ".5", "\u0665", "5_0"])
def test_a_number_argument_is_a_plain_decimal_fraction(value, tmp_path, capsys):
    argv = ["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--max-slowdown", value]
    assert _exit_2(conformance_main, argv, capsys, "--max-slowdown").startswith("error: --max-slowdown: expected a decimal number")


@pytest.mark.parametrize("phases", ["", ",", " "])
def test_conformance_with_no_phase_is_an_error(phases, tmp_path, capsys):
    argv = ["run", str(SMALL), "--phases", phases, "--backends", "reference", "--report", str(tmp_path), "--quiet"]
    _exit_2(conformance_main, argv, capsys, "--phases")


def test_conformance_run_that_checks_nothing_is_an_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(GpuBackend, "unavailable_reason", lambda self: "no CUDA device (test)")
    argv = ["run", str(SMALL), "--backends", "gpu", "--phases", "evaluate", "--report", str(tmp_path), "--quiet"]
    _exit_2(conformance_main, argv, capsys, "checks nothing")
    assert not (tmp_path / "report.json").exists()


def test_conformance_run_refuses_a_vector_given_twice(tmp_path, capsys):
    """`run X X` (or X and its folder) checked X twice and wrote its timings twice, a report `compare` then refused."""
    for twice in ([str(SMALL), str(SMALL)], [str(SMALL), str(SMALL.parent)]):
        argv = ["run", *twice, "--backends", "reference", "--report", str(tmp_path / "r"), "--quiet"]
        _exit_2(conformance_main, argv, capsys, "the vector is given twice")
    assert not (tmp_path / "r").exists()


def test_conformance_run_refuses_two_vectors_with_one_id(tmp_path, capsys):
    """Two copies of one vector (two paths, one id) ran and wrote one report with every entry twice, which `compare`
    then refused ('appears more than once'); generated:X given twice would too. Refused before any phase runs."""
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    shutil.copy(SMALL, first)
    shutil.copy(SMALL, second)
    argv = ["run", str(first), str(second), "--backends", "reference", "--phases", "evaluate", "--report", str(tmp_path / "r"), "--quiet"]
    err = _exit_2(conformance_main, argv, capsys, "vectors")
    assert err == f"error: vectors: {first} and {second} are both the case '{_doc()['id']}': each case of a run needs its own id\n"
    _exit_2(conformance_main, ["run", "generated:porep-log11", "generated:porep-log11", "--report", str(tmp_path / "r"), "--quiet"],
            capsys, "vectors: generated:porep-log11 is given twice")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("unchecked", ["no-expected", "generated:porep-log11"])
def test_conformance_run_that_checks_nothing_of_one_vector_is_an_error(unchecked, tmp_path, capsys):
    """Beside a vector that passes, one that no backend judged in any phase (the reference alone, on a vector without
    expected values, skips every phase; a generated case runs on a GPU only) must not hide under the other's PASS."""
    argument = unchecked
    if unchecked == "no-expected":
        doc = _doc()
        doc.pop("prep")
        for circuit in doc["circuits"]:
            circuit.pop("expected")
        doc["id"] = unchecked
        argument = str(_write(tmp_path, doc))
    argv = ["run", str(SMALL), argument, "--backends", "reference", "--report", str(tmp_path / "r"), "--quiet"]
    err = _exit_2(conformance_main, argv, capsys, "vectors: the run checked nothing of " + unchecked)
    assert "porep-log03" not in err
    assert not (tmp_path / "r" / "report.json").exists()


@pytest.mark.parametrize(
    "report",
    [[], "text", {"backends": []}, {"backends": {"gpu": "yes"}}, {"schema": "groth16-conformance-report", "result": "pass",
     "backends": {"gpu": {"available": True, "device": "x"}}, "gpu_fingerprint": {"files": []}}],
)
def test_malformed_gate_report_is_invalid_not_a_crash(report, tmp_path):
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(report))
    assert gate_verdict(tmp_path, path).state == INVALID


def test_deeply_nested_gate_report_is_invalid(tmp_path):
    path = tmp_path / "gate.json"
    path.write_text("[" * 100000 + "]" * 100000)
    assert gate_verdict(tmp_path, path).state == INVALID


# ----------------------------------------------------------------------------------------------
# Crashes: deep nesting, huge numbers, wrong types, unwritable outputs


def test_deep_nesting_is_an_error_not_a_segfault(tmp_path):
    """py_ecc raises the recursion limit to 100000; json's C parser then overflowed the stack (SIGSEGV)."""
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200000 + "]" * 200000)
    commands = (
        ["reference", "verify", str(deep), str(deep)],
        ["vectors", "check", str(deep)],
        ["conformance", "run", str(deep)],
        ["conformance", "compare", str(deep), str(deep)],
        ["conformance", "pool", str(tmp_path / "pooled.json"), str(deep), str(deep)],
    )
    for argv in commands:
        done = subprocess.run([sys.executable, "-m", *argv], cwd=REPO, capture_output=True, text=True, timeout=120)
        assert done.returncode == EXIT_BAD_INPUT, (argv, done.returncode, done.stderr[-500:])
        assert "nesting is deeper than" in done.stderr and "Traceback" not in done.stderr


def test_nesting_limit_is_exact():
    assert parse_json(b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH, "f") is not None
    with pytest.raises(InvalidInputError):
        parse_json(b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1), "f")


@pytest.mark.parametrize(
    "path, value, field",
    [
        (("format_version",), True, "format_version"),
        (("format_version",), "1", "format_version"),
        (("r1cs", "num_constraints"), True, "r1cs.num_constraints"),
        (("r1cs", "num_constraints"), "5", "r1cs.num_constraints"),
        (("r1cs", "num_inputs"), [], "r1cs.num_inputs"),
        (("domain", "log_n"), "3", "domain.log_n"),
        (("circuits", 0, "expected", "prep", "l", "bitmap", "bits"), None, "bitmap.bits"),
        (("curve", ), "BLS12-381", "curve"),
        (("id",), 7, "id"),
        (("generator",), [], "generator"),
    ],
)
def test_wrongly_typed_or_non_canonical_fields_are_refused(path, value, field, tmp_path, capsys):
    doc = _doc()
    _set(doc, path, value)
    _exit_2(vectors_main, ["check", str(_write(tmp_path, doc)), "--quiet"], capsys, field)


@pytest.mark.parametrize(
    "text, problem",
    [
        ('"format_version": 1', '"format_version": 1.0'),
        ('"format_version": 1', '"format_version": 1e0'),
        ('"format_version": 1', '"format_version": ' + "1" * 5000),
        ('"format_version": 1', '"format_version": 1, "format_version": 1'),
        ('"format_version": 1', '"format_version": 1, "extra": 0'),
        ('"format_version": 1', '"format_version": -0'),
    ],
)
def test_non_canonical_json_is_refused(text, problem, tmp_path, capsys):
    source = SMALL.read_text()
    assert text in source
    path = tmp_path / "v.json"
    path.write_text(source.replace(text, problem, 1))
    _exit_2(vectors_main, ["check", str(path), "--quiet"], capsys, "")


@pytest.mark.parametrize(
    "module, argv, line",
    [
        ("gpu.__main__", ["prove", "v.json", "--devices", ","], "--devices: names no device"),
        ("reference.__main__", ["prove"], "vector: is required"),
        ("vectors.__main__", ["generate", "--log-n", "two"], "--log-n: expected a decimal integer (ASCII digits, no sign but '-'), got 'two'"),
        ("vectors.edge_cases", ["--bogus"], "--bogus: is not an argument of this command"),
        ("conformance.__main__", ["run", "--backends"], "--backends: expected one argument"),
    ],
)
def test_argument_errors_are_one_error_line(module, argv, line, capsys):
    """argparse printed its usage and 'python -m gpu prove: error: argument --devices: ...' (reference/cli.py
    ArgumentParser makes every entry point's argument errors the toolkit's 'error: field: problem', exit 2)."""
    import importlib

    assert run_main(importlib.import_module(module).main, argv) == EXIT_BAD_INPUT
    assert capsys.readouterr() == ("", f"error: {line}\n")


def test_a_cupy_error_outside_the_phases_is_one_error_line(monkeypatch, capsys):
    """CuPy's own errors, raised where no phase check names them (an allocation outside the memory plan, a wait on a
    stream), are one error line and exit 2, as the errors the phases name are; they were a traceback
    (gpu/__main__.py _cupy_errors). Proofs are written after every phase, so none was."""
    import gpu.__main__ as gpu_main

    class OutOfMemoryError(Exception):
        pass

    def prove(args):
        raise OutOfMemoryError("Out of memory allocating 8,589,934,592 bytes")

    monkeypatch.setattr(gpu_main, "_prove", prove)
    monkeypatch.setattr(gpu_main, "_cupy_errors", lambda: (OutOfMemoryError,))
    assert run_main(gpu_main.main, ["prove", "v.json"]) == EXIT_BAD_INPUT
    assert capsys.readouterr() == ("", "error: gpu: CUDA: OutOfMemoryError: Out of memory allocating 8,589,934,592 bytes\n")


def _unwritable(tmp_path) -> Path:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    return blocker / "out"  # a path under a regular file: mkdir and open fail (ENOTDIR), even as root


def test_unwritable_outputs_are_named_errors(tmp_path, capsys):
    out = _unwritable(tmp_path)
    _exit_2(reference_main, ["prove", str(SMALL), "--out", str(out / "p.json"), "--quiet"], capsys, str(out))
    _exit_2(vectors_main, ["export-bellman", str(SMALL), "--out", str(out), "--quiet"], capsys, str(out))
    _exit_2(vectors_main, ["generate", "--log-n", "2", "--seed", "s", "--out", str(out / "v.json"), "--quiet"], capsys, str(out))
    _exit_2(conformance_main, ["run", str(SMALL), "--backends", "reference", "--phases", "evaluate", "--report", str(out), "--quiet"], capsys, str(out))


@pytest.mark.parametrize("command", ["generate", "import-snarkjs", "import-bellman"])
def test_an_unwritable_out_is_refused_before_any_work(command, tmp_path, capsys):
    """generate and the importers refused an unwritable --out only when writing, after all the work (minutes at 2^20;
    import-bellman after reading its --circuit vector): now before the first progress line, as prove does."""
    out = _unwritable(tmp_path) / "v.json"
    argv = {"generate": ["generate", "--log-n", "2", "--seed", "s"],
            "import-snarkjs": ["import-snarkjs", *(str(INTEROP / name) for name in ("circuit.r1cs", "witness.wtns", "circuit.zkey"))],
            "import-bellman": ["import-bellman", str(INTEROP / "circuit.zkey"), "--circuit", str(SMALL)]}[command]
    assert run_main(vectors_main, [*argv, "--out", str(out)]) == EXIT_BAD_INPUT
    assert capsys.readouterr() == ("", f"error: --out: cannot write {out}: {tmp_path / 'a-file'} is a file, not a folder\n")


NAME_MAX_BYTES = 255
"""The longest file name (one path component) Linux file systems take: one byte more is ENAMETOOLONG."""


def test_a_name_too_long_for_the_file_system_is_a_named_error(tmp_path, capsys):
    """pathlib's is_dir() and exists() swallow 'no such file' but raise ENAMETOOLONG: a name of 300 bytes was a
    traceback and exit 1 from every command that looks its paths up (found by fuzzing, session 49)."""
    long = tmp_path / ("a" * (NAME_MAX_BYTES + 45))
    err = _exit_2(reference_main, ["prove", str(SMALL), "--out", f"{long}.json", "--quiet"], capsys, "--out")
    assert err == f"error: --out: cannot write {long}.json: File name too long\n", err
    err = _exit_2(conformance_main, ["run", str(long), "--backends", "reference", "--quiet"], capsys, str(long))
    assert err == f"error: {long}: File name too long\n", err
    assert list(tmp_path.iterdir()) == []


def test_an_oserror_no_reader_names_is_one_error_line(capsys):
    """reference/cli.py run_main's last net: an OSError that escaped every reader names its file, exit 2."""
    def main(argv):
        raise OSError(28, "No space left on device", "/some/output")

    assert run_main(main, []) == EXIT_BAD_INPUT
    assert capsys.readouterr() == ("", "error: /some/output: No space left on device\n")


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="needs Linux's /proc/self/mem, a regular file whose read fails")
def test_a_file_whose_read_fails_is_a_named_error(capsys):
    """/proc/self/mem is a regular file of size 0 whose read fails with EIO, as a failing disk's would: that was a
    traceback from every reader (reference/safe_files.py open_regular_file now names it)."""
    err = _exit_2(vectors_main, ["check", "/proc/self/mem", "--quiet"], capsys, "/proc/self/mem")
    assert err == "error: /proc/self/mem: cannot read the JSON file: Input/output error\n", err
    err = _exit_2(conformance_main, ["run", "/proc/self/mem", "--backends", "reference", "--quiet"], capsys, "/proc/self/mem")
    assert "error: /proc/self/mem: cannot read the " in err and err.count("\n") == 1, err


def test_a_file_name_cannot_forge_an_ok_or_error_line(tmp_path, capsys):
    """A vector named 'x<newline>ok  evil.json: all good<newline>.json' made `vectors check` print a second, forged
    ok line, and a missing file named '<newline>error: forged' two error lines: every verdict line and error line
    now escapes what is not printable (reference/cli.py single_line)."""
    forged_name = "x\nok  evil.json: all good\n.json"
    shutil.copy(SMALL, tmp_path / forged_name)
    assert run_main(vectors_main, ["check", str(tmp_path / forged_name), "--quiet"]) == EXIT_OK
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith(f"ok  {tmp_path}/x\\nok  evil.json: all good\\n.json: "), out
    missing = tmp_path / "nope\nerror: forged"
    err = _exit_2(reference_main, ["verify", str(SMALL), str(missing), "--quiet"], capsys, "nope")
    assert err == f"error: {tmp_path}/nope\\nerror: forged: cannot read the proof file: No such file or directory\n", err


@pytest.mark.parametrize(
    "text, line",
    [
        ("a\nb", "a\\nb"), ("a\rb", "a\\rb"), ("nul\x00", "nul\\x00"), ("ls\u2028ps\u2029", "ls\\u2028ps\\u2029"),
        ("nel\x85", "nel\\x85"), ("lone\udc80", "lone\\udc80"), ("tab\t", "tab\\t"),
        ("quotes ' \" and \\ stay", "quotes ' \" and \\ stay"), ("x \u2265 p, caf\u00e9", "x \u2265 p, caf\u00e9"),
    ],
)
def test_single_line_escapes_exactly_what_is_not_printable(text, line):
    from reference.cli import single_line

    assert single_line(text) == line
    assert len(single_line(text).splitlines()) == 1


def test_a_report_file_that_cannot_be_written_leaves_no_other_report_file(tmp_path, capsys):
    """run --report wrote chart.png and report.json, then failed on report.md (a folder there): exit 2 with two
    output files written. The report's files are written together or not at all."""
    (tmp_path / "report.md").mkdir()
    argv = ["run", str(SMALL), "--backends", "reference", "--phases", "evaluate", "--report", str(tmp_path), "--quiet"]
    err = _exit_2(conformance_main, argv, capsys, str(tmp_path))
    assert err == f"error: {tmp_path / 'report.md'}: {tmp_path / 'report.md'} is a folder, not a file\n", err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def _special_output(path: Path, kind: str) -> str:
    """Make ``path`` an output that is not a regular file (a stand-in for /dev/null, a FIFO, /dev/stdout); its kind
    as the refusal names it."""
    if kind == "device":
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers; needs root
    elif kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/proc/self/fd/1")  # what /dev/stdout is
    return {"device": "a device", "fifo": "a FIFO", "link": "a symbolic link"}[kind]


SPECIAL_OUTPUT_WRITERS = {  # (main, argv, the output made special, the label its refusal names) in a folder
    "reference prove": lambda d: (reference_main, ["prove", str(SMALL), "--out", str(d / "p.json"), "--quiet"], d / "p.json", "--out"),
    "vectors generate": lambda d: (vectors_main, ["generate", "--log-n", "2", "--seed", "x", "--out", str(d / "x.json"), "--quiet"],
                                   d / "x.json", "--out"),
    "conformance run": lambda d: (conformance_main, ["run", str(SMALL), "--backends", "reference", "--phases", "evaluate",
                                                     "--report", str(d), "--quiet"], d / "report.json", str(d / "report.json")),
}


@pytest.mark.parametrize("kind", ["device", "fifo", "link"])
@pytest.mark.parametrize("writer", list(SPECIAL_OUTPUT_WRITERS))
def test_an_output_that_is_not_a_regular_file_is_refused_not_replaced(writer, kind, tmp_path, capsys):
    """Every writer replaced an output that was a device, a FIFO or a link by a regular file, exit 0: run as root,
    `--out /dev/null` would have deleted the machine's /dev/null (audit of 2026-12-07). Refused, and left as it was."""
    if kind == "device" and os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    main, argv, out, label = SPECIAL_OUTPUT_WRITERS[writer](tmp_path)
    what = _special_output(out, kind)
    before = os.lstat(out)
    assert _exit_2(main, argv, capsys, "") == f"error: {label}: {out} is {what}, not a regular file: refusing to replace it\n"
    after = os.lstat(out)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]


def test_an_output_under_a_link_to_nothing_is_refused_before_the_work(tmp_path, capsys):
    """The check before the work walked up to the nearest folder that exists, past a link to nothing; the proof was
    computed, then the writer's mkdir failed with 'File exists' (audit of 2026-12-07)."""
    (tmp_path / "d").symlink_to(tmp_path / "missing")
    out = tmp_path / "d" / "p.json"
    argv = ["prove", str(SMALL), "--out", str(out)]
    err = _exit_2(reference_main, argv, capsys, "")
    assert err == f"error: --out: cannot write {out}: {tmp_path / 'd'} is a symbolic link to nothing\n", err  # no progress line


def test_an_output_that_is_a_folder_leaves_no_other_output_file(tmp_path, capsys):
    """prove wrote --out and export-bellman three of its four files, then failed on a folder in the last one's place."""
    (tmp_path / "adir").mkdir()
    argv = ["prove", str(SMALL), "--format", "snarkjs", "--out", str(tmp_path / "p.json"), "--public", str(tmp_path / "adir"), "--quiet"]
    err = _exit_2(reference_main, argv, capsys, "")
    assert err == f"error: --public: {tmp_path / 'adir'} is a folder, not a file\n", err  # refused before proving
    (tmp_path / "bellman" / "public_inputs.json").mkdir(parents=True)
    _exit_2(vectors_main, ["export-bellman", str(SMALL), "--out", str(tmp_path / "bellman"), "--quiet"], capsys, "public_inputs.json")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["adir", "bellman", "bellman/public_inputs.json"]


def _no_hard_links(*args, **kwargs):
    raise PermissionError(1, "Operation not permitted")


@pytest.mark.parametrize("hard_links", [True, False], ids=["hard-links", "no-hard-links"])
def test_a_rename_that_fails_midway_puts_every_output_back(hard_links, tmp_path, monkeypatch):
    """A rename that fails after others succeeded (here made to fail): the replaced file is back (from its hard link,
    or moved aside where there are none), the new file and the folder made for it are gone, no temporary file is left."""
    import re

    from vectors.format import write_files_atomically

    if not hard_links:
        monkeypatch.setattr(os, "link", _no_hard_links)

    replaced, new, failing = tmp_path / "a.json", tmp_path / "sub" / "b.json", tmp_path / "c.json"
    replaced.write_bytes(b"old")
    real_replace = os.replace

    def replace_failing_on_the_last(src, dst):
        if Path(dst) == failing:
            raise PermissionError(1, "Operation not permitted")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace_failing_on_the_last)
    with pytest.raises(InvalidInputError, match=re.escape(f"{failing}: cannot write: Operation not permitted")):
        write_files_atomically({replaced: b"new", new: b"new", failing: b"new"})
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"] and replaced.read_bytes() == b"old"


def test_an_interrupt_right_after_a_rename_undoes_it_too(tmp_path, monkeypatch):
    """An interrupt (Ctrl-C) arriving after a new file's rename but before the writer had noted it: the new file stayed,
    though the docstring promises that an interrupted run undoes the renames made."""
    from vectors.format import write_files_atomically

    new = tmp_path / "b.json"
    real_replace = os.replace

    def replace_then_interrupt(src, dst):
        real_replace(src, dst)
        if Path(dst) == new:
            raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", replace_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_files_atomically({new: b"new"})
    assert list(tmp_path.iterdir()) == []


# ----------------------------------------------------------------------------------------------
# Silent data loss


def test_out_and_public_naming_one_file_is_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _exit_2(reference_main, ["prove", str(SMALL), "--format", "snarkjs", "--out", "p.json", "--public", "./p.json", "--quiet"], capsys, "--public")
    assert not (tmp_path / "p.json").exists()


def test_output_equal_to_an_input_is_refused(tmp_path, capsys):
    vector = tmp_path / "v.json"
    shutil.copy(SMALL, vector)
    before = vector.read_bytes()
    _exit_2(reference_main, ["prove", str(vector), "--out", str(tmp_path / "." / "v.json"), "--quiet"], capsys, "input")
    _exit_2(vectors_main, ["import-bellman", str(vector), "--circuit", str(vector), "--out", str(vector), "--quiet"], capsys, "input")
    assert vector.read_bytes() == before


def test_output_over_a_sidecar_of_the_input_is_refused(tmp_path, capsys):
    for f in DATA_DIR.glob("sidecar-log08*"):
        shutil.copy(f, tmp_path / f.name)
    sidecar = tmp_path / "sidecar-log08.h.bin"
    before = sidecar.read_bytes()
    _exit_2(reference_main, ["prove", str(tmp_path / "sidecar-log08.json"), "--out", str(sidecar), "--quiet"], capsys, "input")
    assert sidecar.read_bytes() == before


# ----------------------------------------------------------------------------------------------
# Reading files: regular files in the vector's folder, sizes before reading


def _sidecar_copy(tmp_path) -> Path:
    for f in DATA_DIR.glob("sidecar-log08*"):
        shutil.copy(f, tmp_path / f.name)
    return tmp_path / "sidecar-log08.json"


def test_sidecar_symlink_is_refused(tmp_path, capsys):
    vector = _sidecar_copy(tmp_path)
    target = tmp_path / "sidecar-log08.h.bin"
    moved = tmp_path / "elsewhere.bin"
    target.rename(moved)
    target.symlink_to(moved)
    _exit_2(vectors_main, ["check", str(vector), "--quiet"], capsys, "symbolic link")


@pytest.mark.parametrize("kind", ["fifo", "missing"])
def test_conformance_run_names_a_vector_argument_that_is_no_file(kind, tmp_path, capsys):
    """A FIFO given as a vector was 'no such vector file or folder' (audit of 2026-12-07); it is never opened."""
    path = tmp_path / "v.json"
    if kind == "fifo":
        os.mkfifo(path)
    argv = ["run", str(path), "--backends", "reference", "--report", str(tmp_path / "r"), "--quiet"]
    message = "is not a regular file or a folder" if kind == "fifo" else "no such vector file or folder"
    assert _exit_2(conformance_main, argv, capsys, str(path)) == f"error: {path}: {message}\n"


def test_sidecar_fifo_is_refused_without_blocking(tmp_path, capsys):
    vector = _sidecar_copy(tmp_path)
    target = tmp_path / "sidecar-log08.h.bin"
    target.unlink()
    os.mkfifo(target)
    _exit_2(vectors_main, ["check", str(vector), "--quiet"], capsys, "not a regular file")


@pytest.mark.parametrize("command", [
    lambda folder: (vectors_main, ["check", folder]),
    lambda folder: (conformance_main, ["compare", folder, folder]),
    lambda folder: (conformance_main, ["pool", os.path.join(folder, "pooled.json"), folder, folder]),
    lambda folder: (conformance_main, ["run", folder, "--backends", "reference"]),
    lambda folder: (reference_main, ["verify", folder, folder]),
    lambda folder: (reference_main, ["prove", folder, "--out", os.path.join(folder, "p.json")]),
], ids=["vectors-check", "conformance-compare", "conformance-pool", "conformance-run-empty-folder", "reference-verify",
        "reference-prove"])
def test_a_folder_given_as_an_input_file_is_refused(command, tmp_path, capsys):
    main, argv = command(str(tmp_path))
    before = len(os.listdir("/proc/self/fd"))
    _exit_2(main, argv, capsys, str(tmp_path))
    assert len(os.listdir("/proc/self/fd")) == before, "the folder's descriptor leaked"


def test_a_folder_in_a_sidecars_place_is_refused(tmp_path, capsys):
    vector = _sidecar_copy(tmp_path)
    target = tmp_path / "sidecar-log08.h.bin"
    target.unlink()
    target.mkdir()
    _exit_2(vectors_main, ["check", str(vector), "--quiet"], capsys, "not a regular file")


def test_sidecar_larger_than_claimed_is_refused(tmp_path, capsys):
    vector = _sidecar_copy(tmp_path)
    with open(tmp_path / "sidecar-log08.h.bin", "ab") as f:
        f.write(bytes(1 << 20))
    _exit_2(vectors_main, ["check", str(vector), "--quiet"], capsys, "at most")


SUBPROCESS_MEMORY_BYTES = 2 << 30
"""Address-space limit of the commands run on huge (sparse) inputs: reading one whole would exceed it."""


def _limit_memory():
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (SUBPROCESS_MEMORY_BYTES, SUBPROCESS_MEMORY_BYTES))


def _run_limited(argv, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *argv], cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          preexec_fn=_limit_memory)


def test_a_proof_file_over_the_json_limit_is_refused_by_its_size_not_read(tmp_path):
    """verify read a proof file of up to 256 GiB whole (MemoryError traceback, or its size in memory): a proof file,
    JSON or bellman's, is read up to MAX_JSON_BYTES like any JSON file, its size checked before reading."""
    from reference.safe_files import MAX_JSON_BYTES

    proof = tmp_path / "proofs.bin"
    with open(proof, "wb") as f:
        f.truncate(MAX_JSON_BYTES + PROOF_BYTES)  # sparse: no disk used; a whole number of 192-byte proofs
    done = _run_limited(["reference", "verify", str(SMALL), str(proof), "--quiet"])
    assert done.returncode == EXIT_BAD_INPUT and done.stdout == "", (done.returncode, done.stderr[-500:])
    assert done.stderr == f"error: {proof}: the proof file has {MAX_JSON_BYTES + PROOF_BYTES} bytes; at most {MAX_JSON_BYTES} are read\n"


def test_conformance_run_does_not_read_a_large_file_beside_the_vector_into_memory(tmp_path):
    """conformance run hashes every <stem>.*.bin beside a vector for its cache key: one the vector does not name, of
    3 GiB (sparse), was read whole and ended in a MemoryError traceback under a 2 GiB limit. It is hashed in pieces."""
    vector = tmp_path / "v.json"
    shutil.copy(SMALL, vector)
    with open(tmp_path / "v.unrelated.bin", "wb") as f:
        f.truncate(3 << 30)
    done = _run_limited(["conformance", "run", str(vector), "--backends", "reference", "--phases", "evaluate",
                         "--report", str(tmp_path / "report"), "--quiet"])
    assert done.returncode == EXIT_OK and "Traceback" not in done.stderr, (done.returncode, done.stderr[-500:])
    assert "result: PASS" in done.stdout


def test_a_sidecar_count_larger_than_the_vector_needs_is_refused_before_reading(tmp_path):
    """A sidecar reference claiming 2^26 H points (the vector needs n - 1 = 255) over a 3 GiB (sparse) file: the file
    was read whole before the count was compared (MemoryError traceback under a 2 GiB limit). The count is compared
    with the vector's shape first."""
    vector = _sidecar_copy(tmp_path)
    doc = _doc(vector)
    claimed = 1 << 26
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(claimed * doc["proving_key"]["h"]["element_bytes"])
    doc["proving_key"]["h"].update(sidecar=big.name, count=claimed)
    done = _run_limited(["vectors", "check", str(_write(tmp_path, doc)), "--quiet"])
    assert done.returncode == EXIT_BAD_INPUT and done.stdout == "", (done.returncode, done.stderr[-500:])
    assert done.stderr == f"error: proving_key.h.count: is {claimed}; expected 255\n"


HUGE_COUNT = "1000000000000"
REFUSAL_SECONDS = 30
"""A refusal by the arguments alone takes well under a second; building 10^12 gates first ran until memory ran out."""


@pytest.mark.parametrize("option", ["--constraints", "--public-inputs", "--circuits"])
def test_generate_refuses_a_size_the_domain_cannot_hold_before_building(option, tmp_path):
    """`generate --log-n 2 --constraints 10^12` built every gate before comparing the rows with --log-n (a hang, then a
    MemoryError in _porep_gates); each size argument is now compared with 2^log_n first."""
    out = tmp_path / "x.json"
    argv = ["vectors", "generate", "--log-n", "2", "--seed", "s", option, HUGE_COUNT, "--out", str(out), "--quiet"]
    done = _run_limited(argv, timeout=REFUSAL_SECONDS)
    assert done.returncode == EXIT_BAD_INPUT and done.stderr.startswith(f"error: {option}: "), done.stderr[-500:]
    assert done.stderr.count("\n") == 1 and list(tmp_path.iterdir()) == []


LINE_FORGING_TEXT = ["a\nok  forged", "a\x00b", "tab\tbed", "\u202eeman"]
"""A newline, NUL, tab, a right-to-left override: an id or comment that could split or disguise a line."""


@pytest.mark.parametrize("field, text", [*((f, t) for f in ("id", "comment") for t in LINE_FORGING_TEXT), ("id", ""), ("id", "a b")])
def test_check_refuses_an_id_or_comment_that_could_forge_a_line(field, text, tmp_path, capsys):
    """An id 'a\nok  forged' made `vectors check` print a second, forged ok line; FORMAT.md now says what characters
    id and comment hold, and the reader refuses any other (no ok line at all)."""
    doc = _doc()
    doc[field] = text
    err = _exit_2(vectors_main, ["check", str(_write(tmp_path, doc)), "--quiet"], capsys, f"error: {field}: ")
    assert err.count("\n") == 1 and capsys.readouterr().out == ""


@pytest.mark.parametrize("option", ["--id", "--comment"])
def test_generate_refuses_an_id_or_comment_the_reader_would_refuse(option, tmp_path, capsys):
    argv = ["generate", "--log-n", "2", "--seed", "s", option, "a\nok  forged", "--out", str(tmp_path / "g.json"), "--quiet"]
    _exit_2(vectors_main, argv, capsys, f"error: {option}: ")
    assert list(tmp_path.iterdir()) == []


def test_generate_refuses_an_out_stem_that_is_not_an_id(tmp_path, capsys):
    """Without --id the id is --out's stem: one the reader would refuse is named as --out, before any work."""
    argv = ["generate", "--log-n", "2", "--seed", "s", "--out", str(tmp_path / "a\nok  forged.json"), "--quiet"]
    _exit_2(vectors_main, argv, capsys, "error: --out: its stem is the vector's id")
    assert list(tmp_path.iterdir()) == []


ZKEY_CONTRIBUTIONS_SECTION = 10


def test_import_refuses_a_zkey_without_a_section_snarkjs_always_writes(tmp_path, capsys):
    """A .zkey without section 10 (contributions) was imported with exit 0, though FORMAT.md refuses a missing section."""
    zkey = tmp_path / "no-contributions.zkey"
    zkey.write_bytes(iden3_rebuilt((INTEROP / "circuit.zkey").read_bytes(), drop=ZKEY_CONTRIBUTIONS_SECTION))
    out = tmp_path / "v.json"
    argv = ["import-snarkjs", str(INTEROP / "circuit.r1cs"), str(INTEROP / "witness.wtns"), str(zkey), "--out", str(out), "--quiet"]
    _exit_2(vectors_main, argv, capsys, "error: no-contributions.zkey section 10 (contributions): is missing")
    assert not out.exists()


def test_writer_refuses_a_sidecar_name_the_reader_would_refuse(tmp_path, capsys):
    out = tmp_path / "odd name.json"
    argv = ["generate", "--log-n", "2", "--seed", "s", "--id", "v", "--sidecar-min", "1", "--out", str(out), "--quiet"]
    _exit_2(vectors_main, argv, capsys, "plain file name")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda p: p.update(pi_b=[p["pi_b"][0], p["pi_b"][1], ["0", "0"]]), "pi_b"),  # z = 0 with a non-identity x, y
        (lambda p: p.update(pi_a=[p["pi_a"][0], p["pi_a"][1], "0"]), "pi_a"),
        (lambda p: p.update(pi_a=["0" + p["pi_a"][0], p["pi_a"][1], "1"]), "pi_a[0]"),  # a leading zero
        (lambda p: p.update(pi_a=[int(p["pi_a"][0][:18]), p["pi_a"][1], "1"]), "pi_a[0]"),  # a JSON number
    ],
)
def test_snarkjs_json_has_one_form_per_value(edit, field, tmp_path, capsys):
    """Found by tests/test_fuzz_readers.py: z = 0 made any x, y 'the identity'."""
    proof = json.loads((INTEROP / "proof.json").read_text())
    edit(proof)
    argv = ["verify", str(INTEROP / "verification_key.json"), str(_write(tmp_path, proof, "p.json")), "--public", str(INTEROP / "public.json"), "--quiet"]
    _exit_2(reference_main, argv, capsys, field)


@pytest.mark.parametrize("path", sorted(DATA_DIR.glob("*.json")), ids=lambda p: p.stem)
def test_bundled_vectors_pass_the_check(path, tmp_path_factory):
    """Every bundled vector passes `vectors check`: in full up to 2^8, by the oracles above (the conformance
    tests compare every reference phase with every expected value of every bundled vector anyway)."""
    from conformance.loading import load_shared
    from vectors.checking import check_vector_values

    base = tmp_path_factory.getbasetemp()
    cache = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "conformance-vectors"
    vector = load_shared(path, cache)
    check_vector_values(vector, fast=vector.r1cs.log_n > FULL_CHECK_MAX_LOG_N)


FULL_CHECK_MAX_LOG_N = 8
"""CI checks bundled vectors up to 2^8 in full (about a second each), larger ones with --fast."""


@pytest.mark.parametrize(
    "path",
    [("domain", "extra"), ("r1cs", "extra"), ("verifying_key", "extra"), ("circuits", 0, "extra"), ("circuits", 0, "expected", "proof", "extra"),
     ("prep", "l", "extra"), ("density", "a_aux", "extra")],
)
def test_fields_the_format_does_not_define_are_refused(path, tmp_path, capsys):
    doc = _doc()
    _set(doc, path, 0)
    _exit_2(vectors_main, ["check", str(_write(tmp_path, doc)), "--quiet"], capsys, ".".join(str(p) for p in path).replace(".0.", "[0]."))


def test_verify_prints_no_verdict_before_a_later_lists_error(tmp_path, capsys):
    """Two proofs, the second's public inputs one short: verify printed 'circuit 0: valid', then exited 2."""
    proof = json.loads((INTEROP / "proof.json").read_text())
    public = json.loads((INTEROP / "public.json").read_text())
    proofs, publics = _write(tmp_path, [proof, proof], "p.json"), _write(tmp_path, [public, public[:1]], "public.json")
    argv = ["verify", str(INTEROP / "verification_key.json"), str(proofs), "--public", str(publics), "--quiet"]
    assert run_main(reference_main, argv) == EXIT_BAD_INPUT
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: public.json[1]: has 1 values"), (out, err)


def test_proof_file_with_an_extra_field_is_refused(tmp_path, capsys):
    proof = dict(_doc()["circuits"][0]["expected"]["proof"], d="00")
    _exit_2(reference_main, ["verify", str(SMALL), str(_write(tmp_path, proof, "p.json")), "--quiet"], capsys, "p.json")


def test_snarkjs_json_with_a_key_snarkjs_does_not_write_is_refused(tmp_path, capsys):
    """An unknown key in verification_key.json or proof.json was ignored ('valid'), where the toolkit's own proof
    JSON refuses one; every key snarkjs writes is still read: the interop files, as snarkjs wrote them, verify."""
    files = {name: INTEROP / name for name in ("verification_key.json", "proof.json")}

    def argv():
        return ["verify", str(files["verification_key.json"]), str(files["proof.json"]), "--public", str(INTEROP / "public.json"), "--quiet"]

    assert run_main(reference_main, argv()) == EXIT_OK
    for name in list(files):
        doc = json.loads(files[name].read_text())
        files[name] = _write(tmp_path, {**doc, "extra": "1"}, name)
        _exit_2(reference_main, argv(), capsys, f"{name}.extra: is not a key snarkjs writes")
        files[name] = INTEROP / name


@pytest.mark.parametrize(
    "secret, value",
    [("delta", "00" * 32), ("gamma", "00" * 32), ("alpha", "00" * 32), ("tau", "00" * 31 + "01"), ("tau", f"{0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000:064x}")],
)
def test_trapdoor_secrets_outside_the_setup_formulas_are_refused(secret, value, tmp_path, capsys):
    """0 has no inverse and tau in the domain has no Lagrange basis: reference/setup.py raised a traceback."""
    doc = _doc()
    doc["trapdoor"][secret] = value
    for fast in ([], ["--fast"]):
        _exit_2(vectors_main, ["check", *fast, str(_write(tmp_path, doc)), "--quiet"], capsys, f"trapdoor.{secret}")


def test_an_extra_output_naming_the_proof_file_is_refused(tmp_path, capsys):
    """gpu prove --timings-json FILE --out FILE would have dropped one of them (write_proofs' extra files)."""
    import argparse

    from reference.proof_files import write_proofs

    vector = load_vector(SMALL)
    args = argparse.Namespace(format="zcash", out=str(tmp_path / "p.json"), public=None)
    with pytest.raises(InvalidInputError):
        write_proofs(args, vector, [c.expected.assemble for c in vector.circuits], lambda m: None, {tmp_path / "." / "p.json": b"{}"})
    assert not (tmp_path / "p.json").exists()


TIMING_BASELINE = Path(__file__).resolve().parent.parent / "bench" / "baselines" / "prove-2p20.json"


@pytest.mark.parametrize("command", ["compare", "pool"])
@pytest.mark.parametrize("place", [("environment", "commit"), ("environment", "gpu", "name"), ("entries", 0, "case"), ("tool",)])
@pytest.mark.parametrize("text", ["abc\nresult: PASS (all 9 entries judged, none slower)", "abc\rresult: PASS", "abc\x1b[2K", "a\u2028b"])
def test_a_timing_record_whose_text_could_forge_a_line_is_refused(command, place, text, tmp_path, capsys):
    """compare printed a record's environment (commit, GPU name, ...), tool and case names as they were: a commit
    'abc\\nresult: PASS ...' printed a forged verdict line above the real one (INCOMPLETE, exit 1). Every string of a
    record is one printable line now; compare and pool refuse any other, naming the field, with no table or verdict."""
    doc = json.loads(TIMING_BASELINE.read_text())
    target = doc["timings"]
    for key in place[:-1]:
        target = target[key]
    target[place[-1]] = text
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(doc))
    argv = (["compare", str(TIMING_BASELINE), str(forged), "--max-slowdown", "5"] if command == "compare"
            else ["pool", str(tmp_path / "pooled.json"), str(TIMING_BASELINE), str(forged)])
    field = ".".join(map(str, place)).replace(".0.", "[0].")
    err = _exit_2(conformance_main, argv, capsys, f"error: {forged}: {field}: ")
    assert err.count("\n") == 1 and capsys.readouterr().out == "" and not (tmp_path / "pooled.json").exists()


def test_gpu_prove_refuses_a_domain_beyond_its_ntt_before_uploading_the_keys(monkeypatch, capsys):
    """A circuit whose domain the GPU's NTT does not take (above 2^27, gpu/ntt.py MAX_LOG_N) is refused once the
    vector is read: before the keys' upload, evaluate and prep, which ran first when only ntt_h refused it."""
    from types import SimpleNamespace

    import gpu.__main__ as gpu_main
    import gpu.multi as gpu_multi
    from gpu.ntt import MAX_LOG_N
    from reference.errors import SizeMismatchError

    too_large = SimpleNamespace(r1cs=SimpleNamespace(log_n=MAX_LOG_N + 1))

    def never(*args, **kwargs):
        raise AssertionError("the keys were uploaded")

    monkeypatch.setattr(gpu_main, "load_vector", lambda path, say: too_large)
    monkeypatch.setattr(gpu_main, "upload_keys", never)
    monkeypatch.setattr(gpu_multi, "keys_on", never)
    assert run_main(gpu_main.main, ["prove", str(SMALL), "--quiet"]) == EXIT_BAD_INPUT
    assert capsys.readouterr() == ("", f"error: r1cs: n = 2^{MAX_LOG_N + 1} is outside 2^1..2^{MAX_LOG_N}\n")
    with pytest.raises(SizeMismatchError, match=f"r1cs: n = 2\\^{MAX_LOG_N + 1} is outside"):
        gpu_multi.prove_multi(too_large.r1cs, None, [object()])
