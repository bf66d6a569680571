"""`python -m vectors check` prints `ok` only for what it checked (a mutation audit of vectors/checking.py,
vectors/flags.py and the check command of vectors/__main__.py, 2026-12-07): mutants that passed the tests before
these:

* the full check comparing only circuit 0's recomputed outputs (every wrong value of the suite was in circuit 0);
* --fast comparing only circuit 0's recomputed evaluate and prep;
* an oracle's refusal naming circuits[0] whatever circuit failed;
* the full check not comparing the proving key with the trapdoor's (a wrong H point in a vector without expected
  outputs: 'ok ... keys match the trapdoor');
* --fast not judging the ends of every key query (key_discrete_logs) against the trapdoor;
* `check` with no vector file accepted: exit 0 and an empty verdict for a run that checked nothing;
* the verdict line stating a wrong circuit count, or leaving out what was checked;
* --reference ignored by the recomputation while the verdict says the pure-Python reference did it;
* `check --fast --reference` accepted (an 'ok' by the oracles for a run asked to recompute);
* blinding-zero, public-input-zero and shape-porep's per-circuit shares judged on circuit 0 alone (the bundled
  edge-scalars has its r = s = 0 circuit and its zero public input first);
* scalars-all-zero (-one, -r-minus-1, -equal) not requiring the pattern's circuits' L tail scalars to be the value;
* bases-all-identity not requiring non-zero L tail scalars;
* union-one-and-nonboolean not requiring the circuit's 1 in its bitmap with tail scalar 0.

45 mutants in all, 16 survived the suite before this file; all 16 fail a test here.

Each wrong value below is a bundled vector's checked-in value with exactly one value changed; the error must name it.
"""
import dataclasses
import json
from pathlib import Path

import pytest
from conftest import vectors_refusal

from reference.cli import EXIT_OK, run_main
from reference.msm import REFERENCE_CURVE
from vectors.__main__ import main as vectors_main
from vectors.bundled import DATA_DIR
from vectors.fast_library import curve_primitive
from vectors.flags import FlagDoesNotHold, check_flag
from vectors.format import load_vector

SMALL = DATA_DIR / "porep-log01.json"
SMALL3 = DATA_DIR / "porep-log03.json"
MULTI = DATA_DIR / "edge-split-half-1.json"
"""Two circuits at 2^3."""
OTHER_SCALAR = "00" * 31 + "05"


def _doc(path) -> dict:
    return json.loads(Path(path).read_text())


def _write(folder: Path, doc, name: str = "v.json") -> Path:
    path = folder / name
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return path


# ----------------------------------------------------------------------------------------------
# Every circuit's stated values are compared, and the refusal names the circuit


def test_full_check_compares_the_second_circuits_outputs(tmp_path, capsys):
    doc = _doc(MULTI)
    assert len(doc["circuits"]) == 2
    assert doc["circuits"][1]["expected"]["evaluate"]["a"][0] != OTHER_SCALAR
    doc["circuits"][1]["expected"]["evaluate"]["a"][0] = OTHER_SCALAR
    err = vectors_refusal(["check", str(_write(tmp_path, doc)), "--quiet"], capsys)
    assert err == "error: circuits[1].expected.evaluate.a[0]: is not what the reference prover computes from the vector's inputs\n"


@pytest.mark.parametrize("phase, path, expected", [
    ("evaluate", ("evaluate", "a", 0), "error: circuits[1].expected.evaluate.a[0]: is not what the reference computes"),
    ("prep", ("prep", "l", "tail_scalars", 0), "error: circuits[1].expected.prep.l.tail_scalars[0]: is not what the reference computes"),
    ("ntt_h", ("ntt_h", "h", 0), "error: circuits[1].expected.ntt_h: fails the h-identity oracle"),
])
def test_fast_check_judges_and_names_the_second_circuit(phase, path, expected, tmp_path, capsys):
    doc = _doc(MULTI)
    target = doc["circuits"][1]["expected"]
    for key in path[:-1]:
        target = target[key]
    assert target[path[-1]] != OTHER_SCALAR
    target[path[-1]] = OTHER_SCALAR
    err = vectors_refusal(["check", "--fast", str(_write(tmp_path, doc)), "--quiet"], capsys)
    assert err.startswith(expected), err


# ----------------------------------------------------------------------------------------------
# The proving key against the trapdoor, where no expected output or proof would show a wrong point


@pytest.mark.parametrize("extra, query, expected", [
    ([], "h", "error: proving_key.h[0]: is not what reference/setup.py makes from the vector's trapdoor\n"),
    (["--fast"], "h", "error: trapdoor: does not match proving_key.h[0]: the trapdoor oracle cannot be used"),
    (["--fast"], "l", "error: trapdoor: does not match proving_key.l[0]: the trapdoor oracle cannot be used"),
])
def test_check_refuses_a_proving_key_point_the_trapdoor_does_not_give(extra, query, expected, tmp_path, capsys):
    """porep-log03 without expected outputs, its first H (or L) point replaced by its last: both on the curve, the
    keys well formed; only the trapdoor says the point is wrong."""
    doc = _doc(SMALL3)
    points = doc["proving_key"][query]
    assert len(points) > 1 and points[0] != points[-1]
    points[0] = points[-1]
    for case in doc["circuits"]:
        del case["expected"]
    del doc["prep"]
    err = vectors_refusal(["check", *extra, str(_write(tmp_path, doc)), "--quiet"], capsys)
    assert err.startswith(expected), err


# ----------------------------------------------------------------------------------------------
# The verdict: only for files checked, and saying what was checked


def test_check_without_a_vector_is_refused(capsys):
    """A run that checked nothing is an error (exit 2 naming the missing argument), not an empty verdict and exit 0."""
    assert vectors_refusal(["check", "--quiet"], capsys) == "error: vectors: is required\n"


def test_the_verdict_names_each_vector_its_size_and_what_was_checked(capsys):
    multi, small = _doc(MULTI), _doc(SMALL)
    assert run_main(vectors_main, ["check", str(SMALL), str(MULTI), "--quiet"]) == EXIT_OK
    curve = curve_primitive(False).name
    what = (f"witnesses satisfy the R1CS; keys match the trapdoor (by {curve}); expected outputs recomputed by the "
            f"reference (group sums by {curve}), proofs by the pairing check; ")
    assert capsys.readouterr().out.splitlines() == [
        f"ok  {SMALL}: porep-log01 (2^1, {len(small['circuits'])} circuit(s)): {what}{len(small['flags'])} flag(s) checked",
        f"ok  {MULTI}: edge-split-half-1 (2^3, {len(multi['circuits'])} circuit(s)): {what}{len(multi['flags'])} flag(s) checked",
    ]


def test_check_reference_recomputes_with_the_pure_python_curve(capsys, monkeypatch):
    """--reference: the verdict says the pure-Python reference did the group sums, and it did (the library's curve,
    if installed, is made to fail)."""
    import reference.prover

    used = []
    real_prove = reference.prover.prove

    def prove(*args, curve, **kwargs):
        used.append(curve.name)
        return real_prove(*args, curve=curve, **kwargs)

    monkeypatch.setattr("vectors.checking.prove", prove)
    assert run_main(vectors_main, ["check", "--reference", str(SMALL), "--quiet"]) == EXIT_OK
    assert used == [REFERENCE_CURVE.name]
    assert f"keys match the trapdoor (by {REFERENCE_CURVE.name})" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------
# Flags: a property of some circuit is looked for in every circuit


def _edge_scalars_reordered():
    """edge-scalars with its first circuit (r = s = 0, public inputs 0) moved last: the same vector's data."""
    v = load_vector(DATA_DIR / "edge-scalars.json")
    first = v.circuits[0]
    assert first.witness.r == first.witness.s == 0 and 0 in first.witness.public_inputs
    return v, dataclasses.replace(v, circuits=[*v.circuits[1:], first])


@pytest.mark.parametrize("flag", ["blinding-zero", "public-input-zero"])
def test_a_circuits_property_is_found_in_the_last_circuit(flag):
    v, reordered = _edge_scalars_reordered()
    second = v.circuits[1].witness
    assert (second.r, second.s) != (0, 0) and 0 not in second.public_inputs  # circuit 0 of the reordered vector
    check_flag(reordered, flag)


def test_shape_porep_judges_every_circuits_share_of_non_boolean_values():
    """multi-circuit-log07 (porep shape, 4 circuits) with its last circuit's aux values all made non-boolean (2):
    above MAX_NON_BOOLEAN_PERCENT, shape-porep does not hold, naming that circuit."""
    v = load_vector(DATA_DIR / "multi-circuit-log07.json")
    assert len(v.circuits) > 1 and v.r1cs.num_aux >= 64
    check_flag(v, "shape-porep")
    last = v.circuits[-1]
    heavy = dataclasses.replace(last, witness=dataclasses.replace(last.witness, aux=tuple(2 for _ in last.witness.aux)))
    with pytest.raises(FlagDoesNotHold, match=f"circuit {len(v.circuits) - 1}: "):
        check_flag(dataclasses.replace(v, circuits=[*v.circuits[:-1], heavy]), "shape-porep")


def _with_tail_scalar(v, q: str, circuit: int, j: int, value: int):
    """v with circuit's j-th tail scalar of query q (expected prep) set to value: one stated value changed."""
    split = getattr(v.expected_prep, q)
    row = list(split.tail_scalars[circuit])
    assert row[j] != value
    row[j] = value
    scalars = [*split.tail_scalars[:circuit], tuple(row), *split.tail_scalars[circuit + 1:]]
    return dataclasses.replace(v, expected_prep=dataclasses.replace(
        v.expected_prep, **{q: dataclasses.replace(split, tail_scalars=type(split.tail_scalars)(scalars))}))


def test_scalars_all_zero_needs_the_zeros_in_the_l_tail():
    """edge-scalars' all-zero circuit (circuit 0) with its first L tail scalar stated as 5: the pattern does not
    reach L."""
    v = load_vector(DATA_DIR / "edge-scalars.json")
    assert all(x == 0 for x in [*v.circuits[0].witness.public_inputs, *v.circuits[0].witness.aux])
    check_flag(v, "scalars-all-zero")
    with pytest.raises(FlagDoesNotHold, match="circuit 0's L tail scalars are not all 0x0"):
        check_flag(_with_tail_scalar(v, "l", 0, 0, 5), "scalars-all-zero")


def test_bases_all_identity_needs_non_zero_tail_scalars():
    v = load_vector(DATA_DIR / "edge-domain-log1.json")
    check_flag(v, "bases-all-identity")
    with pytest.raises(FlagDoesNotHold, match="an L tail scalar is 0"):
        check_flag(_with_tail_scalar(v, "l", 0, 0, 0), "bases-all-identity")


def test_union_one_and_nonboolean_needs_the_one_in_the_bitmap_with_tail_scalar_zero():
    """edge-split-half-1: the first split tail position where a circuit's witness value is 1 and another's is not
    boolean, found naively from the witnesses; that circuit's tail scalar there stated as 1 instead of 0."""
    v = load_vector(MULTI)
    check_flag(v, "union-one-and-nonboolean")
    n_in = v.r1cs.num_inputs
    z = [[1, *c.witness.public_inputs, *c.witness.aux] for c in v.circuits]
    d = v.pk.density
    variables = {"l": [n_in + i for i in range(v.r1cs.num_aux)],
                 "a": [*range(n_in), *(n_in + i for i, bit in enumerate(d.a_aux) if bit)],
                 "b": [*(i for i, bit in enumerate(d.b_input) if bit), *(n_in + i for i, bit in enumerate(d.b_aux) if bit)]}
    found = next((q, j, c) for q in ("l", "a", "b") if getattr(v.expected_prep, q).split
                 for j, k in enumerate(getattr(v.expected_prep, q).tail_indices) for c in range(len(z))
                 if z[c][variables[q][k]] == 1 and any(w[variables[q][k]] not in (0, 1) for w in z))
    q, j, c = found
    with pytest.raises(FlagDoesNotHold, match="is not in its bitmap with tail scalar 0"):
        check_flag(_with_tail_scalar(v, q, c, j, 1), "union-one-and-nonboolean")


def test_check_refuses_fast_with_reference(capsys):
    """--reference recomputes; --fast judges by the oracles: together they are bad input, not an 'ok' by either."""
    err = vectors_refusal(["check", "--fast", "--reference", str(SMALL), "--quiet"], capsys)
    assert err == "error: --reference: recomputes every value; --fast judges by the oracles instead: choose one\n"
