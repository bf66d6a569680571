"""Bad input is rejected with an error naming the field and the problem, by the readers and the CLIs.

Every case of vectors/invalid.py is built in tmp_path from a valid bundled vector. The readers must raise
the case's error class naming its field; `python -m vectors check`, `python -m reference prove` and
`python -m reference verify` must exit 2 with `error: <field>: <problem>` on stderr and write no output.
The bad points themselves are checked against the curve equations and r * P with py_ecc, so each case
fails the check it is meant for. Tests marked xfail(strict) pin reader gaps found while writing these
(see their reasons); they start failing once the reader is fixed, and the marker should then go.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest
from py_ecc.optimized_bls12_381 import FQ, FQ2, b2, is_inf, multiply

from reference.__main__ import main as reference_main
from reference.cli import EXIT_BAD_INPUT, EXIT_INVALID_PROOF, EXIT_OK, read_json, run_main
from reference.encoding import FQ_BYTES
from reference.errors import InvalidInputError, UnsatisfiedConstraintError
from reference.field import P, R
from reference.prover import prove
from vectors.__main__ import main as vectors_main
from vectors.edge_cases import main as edge_cases_main
from vectors.format import load_vector
from vectors.bundled import DATA_DIR
from vectors.invalid import (
    INVALID_CASES,
    SMALL,
    InvalidCase,
    delete,
    identity_g1,
    materialize,
    off_curve_g1,
    off_curve_g2,
    off_subgroup_g1,
    off_subgroup_g2,
    proof_document,
    replace,
    to_sidecar,
    write_proof,
    x_at_least_p_g1,
    x_c0_at_least_p_g2,
)

CASES = {case.name: case for case in INVALID_CASES}
REPO = Path(__file__).resolve().parent.parent
FLAG_BITS = 0xE0


# ----------------------------------------------------------------------------------------------
# The bad points are what they claim to be (py_ecc and Euler's criterion, not reference/encoding.py)


def _fq_coordinates(hex_point: str) -> list[int]:
    """The 48-byte big-endian integers of an encoding, flag bits cleared."""
    data = bytes.fromhex(hex_point)
    data = bytes([data[0] & ~FLAG_BITS & 0xFF]) + data[1:]
    return [int.from_bytes(data[i : i + FQ_BYTES], "big") for i in range(0, len(data), FQ_BYTES)]


def _fq2_x(hex_point: str) -> FQ2:
    c1, c0 = _fq_coordinates(hex_point)
    return FQ2([c0, c1])


def _is_square_fq(a: int) -> bool:
    """Euler's criterion: a is a non-zero square mod p iff a^((p-1)/2) = 1."""
    return pow(a, (P - 1) // 2, P) == 1


def _is_square_fq2(a: FQ2) -> bool:
    """In Fq2, a is a non-zero square iff its norm c0^2 + c1^2 is a square in Fq."""
    c0, c1 = (int(c) for c in a.coeffs)
    return _is_square_fq((c0 * c0 + c1 * c1) % P)


def _fq2_root(a: FQ2) -> FQ2:
    """A square root in Fq2 by the complex method: sqrt(c0 + c1 u) = x + y u with x^2 = (c0 + |a|)/2."""
    c0, c1 = (int(c) for c in a.coeffs)
    norm_root = pow((c0 * c0 + c1 * c1) % P, (P + 1) // 4, P)
    half = pow(2, P - 2, P)
    for candidate in (norm_root, P - norm_root):
        x2 = (c0 + candidate) * half % P
        x = pow(x2, (P + 1) // 4, P)
        if x * x % P == x2 and x:
            y = c1 * pow(2 * x, P - 2, P) % P
            root = FQ2([x, y])
            if root * root == a:
                return root
    raise AssertionError("no root")


def test_off_curve_points_are_off_the_curve():
    (x,) = _fq_coordinates(off_curve_g1())
    assert not _is_square_fq((x**3 + 4) % P)
    x2 = _fq2_x(off_curve_g2())
    assert not _is_square_fq2(x2**3 + b2)


def test_off_subgroup_points_are_on_the_curve_but_not_in_the_subgroup():
    (x,) = _fq_coordinates(off_subgroup_g1())
    rhs = (x**3 + 4) % P
    assert _is_square_fq(rhs) or rhs == 0
    y = pow(rhs, (P + 1) // 4, P)
    point = (FQ(x), FQ(y), FQ.one())
    assert y * y % P == rhs and not is_inf(multiply(point, R))
    x2 = _fq2_x(off_subgroup_g2())
    y2 = _fq2_root(x2**3 + b2)
    point2 = (x2, y2, FQ2.one())
    assert y2 * y2 == x2**3 + b2 and not is_inf(multiply(point2, R))


def test_unreduced_coordinates_equal_p():
    assert _fq_coordinates(x_at_least_p_g1()) == [P]
    assert _fq_coordinates(x_c0_at_least_p_g2()) == [1, P]


# ----------------------------------------------------------------------------------------------
# Readers


def _first_unsatisfied_row(doc: dict, circuit: int = 0) -> int:
    """The first row j of A, B, C (input rows appended: A = {i: 1}, B = C = {}) with <A_j,z><B_j,z> != <C_j,z>."""
    r1cs, c = doc["r1cs"], doc["circuits"][circuit]
    z = [1, *(int(x, 16) for x in c["public_inputs"]), *(int(x, 16) for x in c["aux_assignment"])]

    def dot(row):
        return sum(int(coeff, 16) * z[var] for var, coeff in row) % R

    for j, (a, b_row, c_row) in enumerate(zip(r1cs["a"], r1cs["b"], r1cs["c"])):
        if dot(a) * dot(b_row) % R != dot(c_row):
            return j
    raise AssertionError("every constraint holds")


@pytest.mark.parametrize("name", sorted(CASES))
def test_reader_rejects(name, tmp_path):
    case = CASES[name]
    path = materialize(case, tmp_path)
    if case.stage == "prove":
        vector = load_vector(path)  # well-formed: only the prover can tell
        with pytest.raises(UnsatisfiedConstraintError) as info:
            prove(vector.r1cs, vector.pk, vector.witnesses)
        expected_row = _first_unsatisfied_row(json.loads(path.read_text()))
        assert (info.value.circuit, info.value.row) == (0, expected_row)
        assert str(info.value).startswith(f"circuit 0: constraint {expected_row} ") and case.problem in str(info.value)
        assert str(info.value).startswith(case.field)
        return
    with pytest.raises(case.error) as info:
        load_vector(path)
    assert type(info.value) is case.error
    assert info.value.field == case.field
    assert case.problem in info.value.problem


# ----------------------------------------------------------------------------------------------
# CLIs: exit 2, one `error: field: problem` line, no output file

ONE_PER_ERROR_CLASS = (
    "g1-off-curve",
    "g2-off-subgroup",
    "aux-equals-r",
    "a-query-shorter-than-density",
    "log-n-32",
    "sidecar-corrupted",
    "missing-field",
)


def _run(main, argv, capsys) -> tuple[int, str, str]:
    rc = run_main(main, argv)
    out, err = capsys.readouterr()
    return rc, out, err


def _assert_bad_input(rc, err, field, problem):
    assert rc == EXIT_BAD_INPUT
    lines = err.strip().splitlines()
    assert lines[-1].startswith(f"error: {field}: ") and problem in lines[-1], err


@pytest.mark.parametrize("name", ONE_PER_ERROR_CLASS)
def test_vectors_check_exits_2(name, tmp_path, capsys):
    case = CASES[name]
    rc, _, err = _run(vectors_main, ["check", "--quiet", str(materialize(case, tmp_path / "v"))], capsys)
    _assert_bad_input(rc, err, case.field, case.problem)


@pytest.mark.parametrize("name", ONE_PER_ERROR_CLASS + ("unsatisfied-witness",))
def test_reference_prove_exits_2_and_writes_nothing(name, tmp_path, capsys):
    case = CASES[name]
    path = materialize(case, tmp_path / "v")
    out = tmp_path / "out" / "proof.json"
    before = sorted(tmp_path.rglob("*"))
    rc, stdout, err = _run(reference_main, ["prove", "--quiet", str(path), "--out", str(out)], capsys)
    _assert_bad_input(rc, err, case.field, case.problem)
    assert not out.exists() and sorted(tmp_path.rglob("*")) == before
    assert stdout == ""


@pytest.mark.parametrize("name", ONE_PER_ERROR_CLASS)
def test_reference_verify_exits_2(name, tmp_path, capsys):
    case = CASES[name]
    proof = write_proof(tmp_path, proof_document(DATA_DIR / f"{case.base}.json"))
    rc, stdout, err = _run(reference_main, ["verify", "--quiet", str(materialize(case, tmp_path / "v")), str(proof)], capsys)
    _assert_bad_input(rc, err, case.field, case.problem)
    assert stdout == ""


@pytest.fixture(scope="module")
def small_vector(tmp_path_factory) -> Path:
    """An untouched copy of the small bundled vector."""
    folder = tmp_path_factory.mktemp("small")
    path = folder / f"{SMALL}.json"
    path.write_bytes((DATA_DIR / f"{SMALL}.json").read_bytes())
    return path


def test_prove_writes_a_proof_that_verifies(small_vector, tmp_path, capsys):
    """Control for the cases above and below: on the untouched vector, prove writes --out (the vector's expected
    proof) and verify accepts it."""
    out = tmp_path / "out" / "proof.json"
    assert _run(reference_main, ["prove", "--quiet", str(small_vector), "--out", str(out)], capsys)[0] == EXIT_OK
    assert json.loads(out.read_text()) == proof_document(small_vector)
    rc, stdout, _ = _run(reference_main, ["verify", "--quiet", str(small_vector), str(out)], capsys)
    assert (rc, stdout) == (EXIT_OK, "circuit 0: valid\n")


def test_prove_refuses_to_write_over_its_vector_in_one_plain_line(small_vector, capsys):
    """`prove V --out V` would overwrite its input: one error line naming the input once (it read 'is the input
    input V (V)'), the vector untouched."""
    before = small_vector.read_bytes()
    rc, stdout, stderr = _run(reference_main, ["prove", "--quiet", str(small_vector), "--out", str(small_vector)], capsys)
    assert (rc, stdout) == (EXIT_BAD_INPUT, "")
    assert stderr == f"error: --out: {small_vector} is the input {small_vector}: refusing to overwrite it\n"
    assert small_vector.read_bytes() == before


@pytest.mark.parametrize("where, problem", [
    ("a-file/proof.json", "cannot write {tmp}/a-file/proof.json: {tmp}/a-file is a file, not a folder"), ("", "{tmp} is a folder, not a file"),
])
def test_prove_refuses_an_output_it_cannot_write_before_proving(small_vector, tmp_path, capsys, monkeypatch, where, problem):
    """A --out under a file, or naming a folder, was refused only when the proofs were written, after the whole proof
    (minutes at 2^27): now before the vector is read."""
    import reference.__main__ as cli

    (tmp_path / "a-file").write_text("")
    monkeypatch.setattr(cli, "load_vector", lambda *a, **k: pytest.fail("read the vector before refusing --out"))
    out = tmp_path / where if where else tmp_path
    rc, stdout, stderr = _run(reference_main, ["prove", "--quiet", str(small_vector), "--out", str(out)], capsys)
    assert (rc, stdout, stderr) == (EXIT_BAD_INPUT, "", f"error: --out: {problem.format(tmp=tmp_path)}\n")


def test_verify_rejects_a_wrong_but_well_formed_proof_with_exit_1(small_vector, tmp_path, capsys):
    proof = proof_document(small_vector)
    proof["a"] = proof["c"]  # a valid G1 point, the wrong one
    rc, stdout, _ = _run(reference_main, ["verify", "--quiet", str(small_vector), str(write_proof(tmp_path, proof))], capsys)
    assert (rc, stdout) == (EXIT_INVALID_PROOF, "circuit 0: INVALID\n")


@pytest.mark.parametrize(
    "breakage, field, problem",
    [
        (lambda p: {**p, "a": off_curve_g1()}, "proof.json.a", "not on the curve"),
        (lambda p: {**p, "b": off_subgroup_g2()}, "proof.json.b", "not in the prime-order subgroup"),
        (lambda p: {**p, "c": identity_g1()[:-2]}, "proof.json.c", "expected 48 bytes, got 47"),
        (lambda p: {"a": p["a"], "b": p["b"]}, "proof.json", 'expected {"a"'),
        (lambda p: [p, p], "proof.json", "holds 2 proof(s); the vector has 1 circuit(s)"),
    ],
    ids=["a-off-curve", "b-off-subgroup", "c-short", "c-missing", "two-proofs-one-circuit"],
)
def test_verify_rejects_bad_proof_files_with_exit_2(small_vector, tmp_path, capsys, breakage, field, problem):
    proof = write_proof(tmp_path, breakage(proof_document(small_vector)))
    rc, _, err = _run(reference_main, ["verify", "--quiet", str(small_vector), str(proof)], capsys)
    if field == "proof.json" and problem.startswith("holds"):
        field = str(proof)  # the count mismatch names the proof file by its path
    _assert_bad_input(rc, err, field, problem)


def test_verify_rejects_a_truncated_proof_file(small_vector, tmp_path, capsys):
    proof = tmp_path / "proof.json"
    proof.write_text(json.dumps(proof_document(small_vector))[:-20])
    rc, _, err = _run(reference_main, ["verify", "--quiet", str(small_vector), str(proof)], capsys)
    _assert_bad_input(rc, err, str(proof), "is not valid JSON")


def test_generate_rejects_log_n_32_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "v.json"
    rc, _, err = _run(vectors_main, ["generate", "--log-n", "32", "--seed", "x", "--out", str(out), "--quiet"], capsys)
    _assert_bad_input(rc, err, "--log-n", "must be in 1..")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option, value, least", [("--constraints", "-5", 1), ("--constraints", "0", 1),
                                                  ("--public-inputs", "-1", 0), ("--sidecar-min", "-3", 0)])
def test_generate_names_a_count_below_its_least_value(tmp_path, capsys, option, value, least):
    """A negative --constraints or --public-inputs failed under another field's name (--constraints: '4 rows need
    log n = 2', r1cs.num_inputs), a negative --sidecar-min passed as 0: each is now refused under its own name."""
    out = tmp_path / "v.json"
    rc, _, err = _run(vectors_main, ["generate", "--log-n", "4", "--seed", "x", option, value, "--out", str(out), "--quiet"], capsys)
    _assert_bad_input(rc, err, option, f"must be at least {least}, got {value}")
    assert list(tmp_path.iterdir()) == []

def test_edge_cases_cli_writes_and_checks(tmp_path, monkeypatch, capsys):
    """python -m vectors.edge_cases writes the generated bytes, --check exits 0 on equal files and 1 (naming the
    file) on a changed one, and an unknown name is bad input. Generation itself is stubbed with the checked-in
    bytes: tests/test_edge_vectors.py regenerates every case for real."""
    import vectors.edge_cases as edge_cases

    name = "edge-domain-log1"
    checked_in = (DATA_DIR / f"{name}.json").read_bytes()
    monkeypatch.setattr(edge_cases, "DATA_DIR", tmp_path)
    monkeypatch.setattr(edge_cases, "edge_case_files", lambda case, progress=None: {case.path: checked_in})
    assert run_main(edge_cases_main, ["--quiet", name]) == EXIT_OK
    written = tmp_path / f"{name}.json"
    assert written.read_bytes() == checked_in
    assert run_main(edge_cases_main, ["--quiet", "--check", name]) == EXIT_OK
    written.write_bytes(checked_in.replace(b'"comment": "', b'"comment": "changed ', 1))
    capsys.readouterr()
    assert run_main(edge_cases_main, ["--quiet", "--check", name]) == 1
    assert str(written) in capsys.readouterr().out
    assert run_main(edge_cases_main, ["--quiet", "edge-nope"]) == EXIT_BAD_INPUT
    assert "error: name: unknown edge case 'edge-nope'" in capsys.readouterr().err


def test_command_line_end_to_end(tmp_path):
    """The real `python -m` entry points: exit status 2, the error line on stderr, no output file."""
    bad = materialize(CASES["g1-off-curve"], tmp_path / "bad")
    unsat = materialize(CASES["unsatisfied-witness"], tmp_path / "unsat")
    out = tmp_path / "proof.json"
    check = subprocess.run([sys.executable, "-m", "vectors", "check", "--quiet", str(bad)], cwd=REPO, capture_output=True, text=True)
    assert check.returncode == EXIT_BAD_INPUT
    assert check.stderr.startswith("error: proving_key.h[0]: not on the curve"), check.stderr
    prove_run = subprocess.run(
        [sys.executable, "-m", "reference", "prove", "--quiet", str(unsat), "--out", str(out)],
        cwd=REPO, capture_output=True, text=True,
    )
    assert prove_run.returncode == EXIT_BAD_INPUT
    assert prove_run.stderr.startswith("error: circuit 0: constraint 0 is not satisfied"), prove_run.stderr
    assert not out.exists()


# ----------------------------------------------------------------------------------------------
# Reader gaps found while writing these tests, now fixed: each must be rejected with a named error


def _gap(mutate) -> InvalidCase:
    """A case (on the small vector) that the readers should reject with some InvalidInputError."""
    return InvalidCase("gap", SMALL, mutate, InvalidInputError, "", "")


def _gap_param(mutate, gap_id, reason, raises=None):
    """``reason`` and ``raises`` record the bug as found (the exception the reader used to leak)."""
    return pytest.param(_gap(mutate), id=gap_id)


READER_GAPS = [
    _gap_param(replace(("r1cs", "num_inputs"), "3"), "num-inputs-string",
               "vectors/format.py _parse_r1cs: num_inputs/num_aux are not type-checked; R1CS compares a str", TypeError),
    _gap_param(replace(("prep", "a", "tail_indices"), [[0], 1, 2, 3, 4]), "tail-index-not-int",
               "vectors/format.py _parse_prep: sorted(set(indices)) runs before the int check", TypeError),
    _gap_param(replace(("domain", "convention"), ["bellman"]), "convention-not-string",
               "vectors/format.py _parse_domain: `name not in CONVENTIONS` hashes a list", TypeError),
    _gap_param(to_sidecar(("proving_key", "h"), "g1", lambda ref, f, d: ref.update(sidecar="a\x00b")), "sidecar-name-nul",
               "vectors/format.py _ArrayReader._sidecar_items: read_bytes raises ValueError (embedded null byte)", ValueError),
    _gap_param(to_sidecar(("proving_key", "h"), "g1", lambda ref, f, d: ref.update(count=float(ref["count"]))), "sidecar-count-float",
               "vectors/format.py _ArrayReader._sidecar_items: count is not checked to be an int", TypeError),
    _gap_param(replace(("circuits", 0, "aux_assignment", 0), lambda h: h.upper()), "scalar-uppercase",
               "vectors/format.py _scalar: int(value, 16) accepts uppercase (FORMAT: lowercase hex)"),
    _gap_param(replace(("circuits", 0, "aux_assignment", 0), lambda h: "+" + h[1:]), "scalar-plus-sign",
               "vectors/format.py _scalar: int(value, 16) accepts a sign, spaces and underscores"),
    _gap_param(replace(("density", "a_aux", "hex"), "03 00000000000000"), "bitmap-hex-space",
               "vectors/format.py _hex_bytes: bytes.fromhex skips whitespace"),
    _gap_param(replace(("proving_key", "a", 1), identity_g1()), "identity-in-a-query",
               "vectors/format.py _parse_pk: FORMAT says A/B_G1/B_G2 points are never the identity; not checked"),
]


@pytest.mark.parametrize(
    "indices", [[0, 1, 1, 2, 3], [0, 1, 2, 2, 4], [1, 0, 2, 3, 4]], ids=["repeated", "repeated-late", "descending"]
)
def test_reader_refuses_tail_indices_that_are_not_ascending_and_distinct(indices, tmp_path):
    """FORMAT.md: tail_indices are ascending, distinct positions. porep-log03's A query has 5 points and 5 tail indices
    [0, 1, 2, 3, 4]; the edits keep the count (one tail scalar per index still matches) and every index in range, so
    only the ordering rule is broken, and the error names prep.a.tail_indices."""
    case = InvalidCase("tail-indices", SMALL, replace(("prep", "a", "tail_indices"), indices), InvalidInputError, "", "")
    path = materialize(case, tmp_path)
    assert json.loads(path.read_text())["prep"]["a"]["tail_indices"] == indices
    with pytest.raises(InvalidInputError) as info:
        load_vector(path)
    assert info.value.field == "prep.a.tail_indices"


@pytest.mark.parametrize("order", [8, 16, 2])
def test_reader_refuses_a_tau_that_is_a_2n_th_root_of_unity(order, tmp_path):
    """porep-log03 has n = 8: tau of multiplicative order 16 (a 2n-th root that is not an n-th root: it lies on the
    coset omega_16 * H, where snarkjs's Lagrange basis is undefined), 8 (in H) or 2 (-1) is refused as trapdoor.tau.
    The roots are 7^((r - 1)/order) mod r (7 generates Fr*'s 2-adic part), checked here to have exactly that order."""
    tau = pow(7, (R - 1) // order, R)
    assert pow(tau, order, R) == 1 and pow(tau, order // 2, R) != 1
    case = InvalidCase("tau-root", SMALL, replace(("trapdoor", "tau"), f"{tau:064x}"), InvalidInputError, "", "")
    with pytest.raises(InvalidInputError) as info:
        load_vector(materialize(case, tmp_path))
    assert info.value.field == "trapdoor.tau" and "root of unity" in info.value.problem


@pytest.mark.parametrize(
    "mutation, field",
    [(delete(("r1cs", "num_constraints")), "r1cs.num_constraints"), (delete(("trapdoor", "warning")), "trapdoor.warning"),
     (replace(("trapdoor", "warning"), True), "trapdoor.warning"), (replace(("trapdoor", "warning"), []), "trapdoor.warning"),
     (replace(("trapdoor", "warning"), "TEST-ONLY\nok: forged"), "trapdoor.warning")],
    ids=["no-num-constraints", "no-warning", "warning-true", "warning-list", "warning-two-lines"],
)
def test_reader_refuses_a_missing_count_or_a_warning_that_is_not_one_line_of_text(mutation, field, tmp_path):
    """FORMAT.md ("Canonical input"): r1cs.num_constraints and a trapdoor's warning are required, the warning one line
    of printable ASCII as a comment. Before, both could be left out and the warning could be any JSON value: two
    accepted forms of one vector, and `vectors check` said ok."""
    case = InvalidCase("required", SMALL, mutation, InvalidInputError, "", "")
    with pytest.raises(InvalidInputError) as info:
        load_vector(materialize(case, tmp_path))
    assert info.value.field == field


@pytest.mark.parametrize(
    "path, field",
    [(("r1cs", "num_inputs"), "r1cs.num_inputs"), (("r1cs", "num_aux"), "r1cs.num_aux"),
     (("r1cs", "num_constraints"), "r1cs.num_constraints"), (("density", "a_aux", "bits"), "density.a_aux.bits")],
)
def test_reader_refuses_true_where_the_integer_1_is_meant(path, field, tmp_path):
    """porep-log01 has 1 input, 1 aux, 1 constraint and 1-bit density bitmaps: JSON true would pass a check that lets
    Python's bool stand for an int (True == 1). FORMAT.md's counts are integers, so true is refused, naming the field."""
    case = InvalidCase("bool-count", "porep-log01", replace(path, True), InvalidInputError, "", "")
    vector_path = materialize(case, tmp_path)
    doc = json.loads(vector_path.read_text())
    for key in path[:-1]:
        doc = doc[key]
    assert doc[path[-1]] is True
    with pytest.raises(InvalidInputError) as info:
        load_vector(vector_path)
    assert info.value.field == field


@pytest.mark.parametrize(
    "path, field",
    [(("density", "a_aux", "hex"), "density.a_aux"),
     (("circuits", 0, "expected", "prep", "l", "bitmap", "hex"), "circuits[0].expected.prep.l.bitmap")],
)
@pytest.mark.parametrize("extra", ["", "0000000000000000"], ids=["one-word-short", "one-word-long"])
def test_reader_refuses_a_bitmap_that_is_not_exactly_its_words(path, field, extra, tmp_path):
    """porep-log03's bitmaps cover at most 64 positions, so each is exactly one 64-bit word: 16 hex digits. A bitmap
    one zero word longer (32 digits) or with no word at all is refused, naming the bitmap."""
    def edit(old):
        assert len(old) == 16
        return old + extra if extra else ""

    case = InvalidCase("bitmap-words", SMALL, replace(path, edit), InvalidInputError, "", "")
    with pytest.raises(InvalidInputError) as info:
        load_vector(materialize(case, tmp_path))
    assert info.value.field == field


GAP_FIELDS = {
    "num-inputs-string": "r1cs.num_inputs",
    "tail-index-not-int": "prep.a.tail_indices",
    "convention-not-string": "domain.convention",
    "sidecar-name-nul": "proving_key.h",
    "sidecar-count-float": None,  # 7.0 is refused by the JSON reader itself (not canonical JSON): the file is named
    "scalar-uppercase": "circuits[0].aux_assignment[0]",
    "scalar-plus-sign": "circuits[0].aux_assignment[0]",
    "bitmap-hex-space": "density.a_aux",
    "identity-in-a-query": "proving_key.a[1]",
}
"""The field each reader gap is refused at (the field its mutation edits): refused somewhere else, for another reason,
the gap's own check would be untested."""


@pytest.mark.parametrize("case", READER_GAPS)
def test_reader_gap(case, tmp_path, request):
    path = materialize(case, tmp_path)
    with pytest.raises(InvalidInputError) as info:
        load_vector(path)
    gap_id = request.node.callspec.id
    assert info.value.field == (GAP_FIELDS[gap_id] or str(path)), (gap_id, info.value)


def test_reader_gap_non_utf8_vector(tmp_path):
    """A valid vector (porep-log03) whose one change is a byte 0xff in its comment: refused as not UTF-8, naming the
    file. (It was built from the missing-field case, which the reader refuses for that field whatever it makes of the
    byte: a reader decoding with errors="replace" passed.)"""
    path = tmp_path / "porep-log03.json"
    original = (DATA_DIR / "porep-log03.json").read_bytes()
    path.write_bytes(original.replace(b'"comment": "', b'"comment": "\xff', 1))
    assert path.read_bytes() != original
    with pytest.raises(InvalidInputError) as info:
        load_vector(path)
    assert info.value.field == str(path) and "is not valid JSON: not UTF-8" in info.value.problem


def test_proof_reader_rejects_a_non_utf8_file(small_vector, tmp_path, capsys):
    proof = tmp_path / "proof.json"
    proof.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(InvalidInputError) as info:
        read_json(proof)  # the proof reader of `verify` reads JSON proofs with it
    assert info.value.field == str(proof) and "is not valid JSON" in info.value.problem
    rc, _, err = _run(reference_main, ["verify", "--quiet", str(small_vector), str(proof)], capsys)
    _assert_bad_input(rc, err, str(proof), "is not valid JSON")
