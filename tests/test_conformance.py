"""The conformance suite as pytest cases, one per (bundled vector, phase): `porep-log05::ntt_h`.

* test_reference_phase (CPU, CI): the reference backend against the vector's expected output.
* test_gpu_phase (@pytest.mark.gpu): the GPU backend against the same, on a GPU machine; a phase
  gpu/ does not implement yet is skipped with that reason (neither a pass nor a failure).

Phases run isolated: each starts from the vector's expected outputs of the phases before it.
Decoding a vector (subgroup checks) costs far more than its phases, so the pytest-xdist workers
share one decoded copy per vector (conformance.loading.load_shared, under a file lock).

Below them: the oracles, each checked to agree with the expected values of a small bundled vector
and to reject a corrupted value; the exact comparison; the command line; the chart (matplotlib).
"""
import functools
import json
import os
import re
from pathlib import Path

import pytest
from py_ecc.optimized_bls12_381 import G1, G2, add, multiply

from conformance import oracles
from conformance.__main__ import EXIT_GPU_REQUIRED, main
from conformance.backends.gpu import GpuBackend
from conformance.backends.reference import ReferenceBackend
from conformance.chart import DPI, NO_MATPLOTLIB, TAB10, matplotlib_available, write_chart
from conformance.compare import first_difference, point_text, scalar_text
from conformance.loading import load_shared
from conformance.phases import Problem, expected_output, plan_inputs
from conformance.runner import NOT_IMPLEMENTED, PASS, SELF_JUDGED, check_phase, check_vector
from reference.assemble import Proof
from reference.curve import FQ
from reference.errors import InvalidInputError
from reference.evaluate import Evaluations
from reference.field import R
from reference.keys import QuerySums
from reference.prover import PHASES
from vectors.bundled import DATA_DIR, bundled_paths

SMALL = DATA_DIR / "porep-log04.json"
"""A small bundled vector (16-point domain) for the oracle and CLI tests."""
GPU_RUNS = 2
"""Each GPU phase runs twice: both outputs must be identical (bit for bit) and right."""
CASES = [pytest.param(path, phase, id=f"{path.stem}::{phase}") for path in bundled_paths() for phase in PHASES]


@pytest.fixture(scope="session")
def vector_cache_dir(tmp_path_factory) -> Path:
    """A folder shared by all xdist workers of this session (each worker's basetemp is a subfolder)."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "conformance-vectors"


@functools.lru_cache(maxsize=None)
def _problem(path: Path, cache_dir: Path) -> Problem:
    return Problem.from_vector(load_shared(path, cache_dir))


@pytest.fixture
def problem_of(vector_cache_dir):
    return lambda path: _problem(Path(path), vector_cache_dir)


def _assert_phase_passes(result, backend_name: str):
    outcome = result.backends[backend_name]
    if outcome.status == NOT_IMPLEMENTED:
        pytest.skip(f"not implemented: {outcome.message}")
    detail = outcome.mismatch.describe() if outcome.mismatch else outcome.message
    assert outcome.status == PASS, f"{backend_name} {result.phase} judged by {result.oracle}: {outcome.status}: {detail}"


@pytest.mark.parametrize(("path", "phase"), CASES)
def test_reference_phase(path, phase, problem_of):
    result = check_phase(problem_of(path), phase, [ReferenceBackend()])
    assert result.oracle == oracles.EXPECTED
    _assert_phase_passes(result, "reference")


@functools.lru_cache(maxsize=1)
def _gpu_backend() -> GpuBackend:
    return GpuBackend()


@pytest.mark.gpu
@pytest.mark.parametrize(("path", "phase"), CASES)
def test_gpu_phase(path, phase, problem_of):
    result = check_phase(problem_of(path), phase, [_gpu_backend()], repeat=GPU_RUNS)
    _assert_phase_passes(result, "gpu")


# ---------------------------------------------------------------------------------------------
# Oracles: agree with the expected values, reject a corrupted one


def _isolated_inputs(problem: Problem, phase: str) -> dict:
    return plan_inputs(phase, "isolated", problem.vector, {}, {}).values


def _judge(oracle: str, phase: str, problem: Problem, output):
    return oracles.judge(oracle, phase, problem, _isolated_inputs(problem, phase), output, expected_output(problem.vector, phase))


def test_key_discrete_logs_reproduce_every_key_point(problem_of):
    """Each proving-key point read from the vector file equals k_i * G with k_i from the trapdoor."""
    problem = problem_of(DATA_DIR / "porep-log03.json")
    logs = oracles.key_discrete_logs(problem)
    pk = problem.vector.pk
    for query, points, generator, group in (
        ("h", pk.h, G1, "g1"), ("l", pk.l, G1, "g1"), ("a", pk.a, G1, "g1"), ("b", pk.b_g1, G1, "g1"), ("b", pk.b_g2, G2, "g2"),
    ):
        assert [point_text(multiply(generator, k), group) for k in getattr(logs, query)] == [point_text(p, group) for p in points]


def test_trapdoor_that_does_not_match_the_keys_is_refused(problem_of):
    import dataclasses

    problem = problem_of(SMALL)
    wrong = dataclasses.replace(problem.vector, trapdoor=dataclasses.replace(problem.vector.trapdoor, delta=5))
    with pytest.raises(InvalidInputError, match="trapdoor"):
        oracles.key_discrete_logs(Problem.from_vector(wrong))


@pytest.mark.parametrize("phase", ["msm_h", "batch_add", "tail_msm"])
def test_trapdoor_oracle_agrees_with_expected_and_rejects_corruption(phase, problem_of):
    problem = problem_of(SMALL)
    expected = expected_output(problem.vector, phase)
    assert _judge(oracles.TRAPDOOR, phase, problem, expected) is None
    if phase == "msm_h":
        corrupted = [add(expected[0], G1)]
        query = "h"
    else:
        s = expected[0]
        corrupted = [QuerySums(l=s.l, a=s.a, b_g1=s.b_g1, b_g2=add(s.b_g2, G2))]
        query = "b_g2"
    mismatch = _judge(oracles.TRAPDOOR, phase, problem, corrupted)
    assert mismatch is not None and (mismatch.phase, mismatch.circuit, mismatch.query) == (phase, 0, query)


def test_reference_backend_errors_name_the_failing_circuit(problem_of):
    """The reference backend gives evaluate the convention and the circuit index, and ntt_h the circuit index, as
    reference/prover.py does: a failure in circuit 2 is reported as circuit 2 (snarkjs's evaluate checks its rows)."""
    import dataclasses

    from conformance.backends.reference import reference_phase
    from reference.domain import SNARKJS, EvaluationDomain
    from reference.errors import QuotientNotPolynomialError, UnsatisfiedConstraintError

    problem = problem_of(DATA_DIR / "multi-circuit-log07.json")
    bad = 2
    evaluations = list(expected_output(problem.vector, "evaluate"))
    c = evaluations[bad].c
    evaluations[bad] = dataclasses.replace(evaluations[bad], c=((c[0] + 1) % R,) + c[1:])
    with pytest.raises(QuotientNotPolynomialError) as caught:
        reference_phase("ntt_h", problem, {"evaluate": evaluations})
    assert caught.value.circuit == bad

    zs = list(problem.zs)
    zs[bad] = zs[bad][:1] + [(v + 1) % R for v in zs[bad][1:]]
    snarkjs = Problem(dataclasses.replace(problem.vector, convention=SNARKJS), EvaluationDomain(problem.domain.log_n, SNARKJS), zs)
    with pytest.raises(UnsatisfiedConstraintError) as caught:
        reference_phase("evaluate", snarkjs, {})
    assert caught.value.circuit == bad


def test_h_identity_oracle_agrees_with_expected_and_rejects_corruption(problem_of):
    problem = problem_of(SMALL)
    h = expected_output(problem.vector, "ntt_h")[0]
    assert _judge(oracles.H_IDENTITY, "ntt_h", problem, [h]) is None
    one_off = list(h)
    one_off[3] = (one_off[3] + 1) % R
    assert _judge(oracles.H_IDENTITY, "ntt_h", problem, [tuple(one_off)]).query == "h identity at random x"
    assert _judge(oracles.H_IDENTITY, "ntt_h", problem, [h[:-1]]).expected == f"{problem.domain.n - 1} coefficients"
    unreduced = (h[0] + R,) + h[1:]
    assert _judge(oracles.H_IDENTITY, "ntt_h", problem, [unreduced]).index == 0


def test_h_identity_sides_match_a_direct_polynomial_product(problem_of):
    """Independent of the Lagrange formula: interpolate a, b, c naively (O(n^2)) and check a b - c = h Z
    at a fixed x against h_identity_sides."""
    problem = problem_of(DATA_DIR / "porep-log02.json")
    domain, evals = problem.domain, expected_output(problem.vector, "evaluate")[0]
    h = expected_output(problem.vector, "ntt_h")[0]
    n, x = domain.n, 123456789
    points = [pow(domain.omega, j, R) for j in range(n)]

    def at_x(values):  # sum_j v_j prod_{k != j} (x - w_k) / (w_j - w_k)
        total = 0
        for j, v in enumerate(values):
            term = v
            for k in range(n):
                if k != j:
                    term = term * (x - points[k]) * pow(points[j] - points[k], -1, R) % R
            total += term
        return total % R

    left = (at_x(evals.a) * at_x(evals.b) - at_x(evals.c)) % R
    right = sum(c * pow(x, i, R) for i, c in enumerate(h)) * (pow(x, n, R) - 1) % R
    assert left == right
    assert oracles.h_identity_sides(evals, h, domain, x) == (left, right)


def test_pairing_oracle_agrees_with_expected_and_rejects_corruption(problem_of):
    problem = problem_of(SMALL)
    proof = expected_output(problem.vector, "assemble")[0]
    assert _judge(oracles.PAIRING, "assemble", problem, [proof]) is None
    forged = Proof(a=proof.a, b=proof.b, c=add(proof.c, G1))
    assert _judge(oracles.PAIRING, "assemble", problem, [forged]).query == "pairing check"


def test_oracles_judge_every_circuit_not_only_the_first(problem_of):
    """The oracle tests above corrupt circuit 0 of a one-circuit vector: an oracle that judged only the first circuit
    passed them. Here a two-circuit vector with only its last circuit corrupted: each oracle names that circuit."""
    problem = problem_of(DATA_DIR / "edge-split-half-1.json")
    last = len(problem.vector.circuits) - 1
    assert last >= 1

    hs = list(expected_output(problem.vector, "ntt_h"))
    assert _judge(oracles.H_IDENTITY, "ntt_h", problem, hs) is None
    hs[last] = ((hs[last][0] + 1) % R,) + tuple(hs[last][1:])
    mismatch = _judge(oracles.H_IDENTITY, "ntt_h", problem, hs)
    assert mismatch is not None and (mismatch.circuit, mismatch.query) == (last, "h identity at random x")

    proofs = list(expected_output(problem.vector, "assemble"))
    assert _judge(oracles.PAIRING, "assemble", problem, proofs) is None
    proofs[last] = Proof(a=proofs[last].a, b=proofs[last].b, c=add(proofs[last].c, G1))
    mismatch = _judge(oracles.PAIRING, "assemble", problem, proofs)
    assert mismatch is not None and (mismatch.circuit, mismatch.query) == (last, "pairing check")

    sums = list(expected_output(problem.vector, "msm_h"))
    assert _judge(oracles.TRAPDOOR, "msm_h", problem, sums) is None
    sums[last] = add(sums[last], G1)
    mismatch = _judge(oracles.TRAPDOOR, "msm_h", problem, sums)
    assert mismatch is not None and (mismatch.phase, mismatch.circuit, mismatch.query) == ("msm_h", last, "h")


@pytest.mark.parametrize("phase", ["evaluate", "prep"])
def test_reference_oracle_agrees_with_expected_and_rejects_corruption(phase, problem_of):
    import dataclasses

    problem = problem_of(SMALL)
    expected = expected_output(problem.vector, phase)
    assert _judge(oracles.REFERENCE, phase, problem, expected) is None
    if phase == "evaluate":
        e = expected[0]
        corrupted = [Evaluations(a=e.a, b=e.b, c=(e.c[0], (e.c[1] + 1) % R) + e.c[2:])]
        where = ("c", 1)
    else:
        split = expected.a
        scalars = ((split.tail_scalars[0][0] + 1) % R,) + split.tail_scalars[0][1:]
        corrupted = dataclasses.replace(expected, a=dataclasses.replace(split, tail_scalars=(scalars,)))
        where = ("a.tail_scalars", 0)
    mismatch = _judge(oracles.REFERENCE, phase, problem, corrupted)
    assert (mismatch.query, mismatch.index) == where


def test_oracles_judge_every_phase_of_a_vector_and_the_reference_never_itself(problem_of):
    """With --oracle, evaluate and prep are judged by the reference: for the reference backend that would compare it
    with itself, so the vector's expected values judge those two instead, saying so (before: skipped unjudged, while a
    PASS was printed); every other phase passes its independent oracle."""
    result = check_vector(problem_of(SMALL), [ReferenceBackend()], prefer_oracle=True)
    assert [p.oracle for p in result.phases] == [oracles.INDEPENDENT_ORACLE[p] for p in PHASES]
    statuses = {p.phase: p.backends["reference"].status for p in result.phases}
    assert statuses == {p: PASS for p in PHASES}
    judges = {p.phase: p.backends["reference"].judge for p in result.phases}
    assert judges == {**{p: None for p in PHASES}, "evaluate": oracles.EXPECTED, "prep": oracles.EXPECTED}


def test_oracles_judge_a_snarkjs_vector_s_ntt_h_by_the_reference(problem_of):
    """`conformance run --oracle` over the bundled vectors: snarkjs-interop's ntt_h holds n coset values, not the
    n - 1 coefficients the h identity is about, so the reference judges it (before: 'fail', 16 values for 15)."""
    result = check_vector(problem_of(DATA_DIR / "snarkjs-interop.json"), [ReferenceBackend()], prefer_oracle=True)
    assert result.phases[PHASES.index("ntt_h")].oracle == oracles.REFERENCE
    # the imported keys have no trapdoor, so only assemble has an independent judge (the pairing check); the reference
    # backend is judged by the vector's expected values on the others (before: all skipped, nothing judged)
    assert {p.phase: p.oracle for p in result.phases} == {**{p: oracles.REFERENCE for p in PHASES}, "assemble": oracles.PAIRING}
    assert {p.phase: p.backends["reference"].status for p in result.phases} == {p: PASS for p in PHASES}
    judges = {p.phase: p.backends["reference"].judge for p in result.phases}
    assert judges == {**{p: oracles.EXPECTED for p in PHASES}, "assemble": None}


def _corrupted_copy(tmp_path, phase: str) -> tuple[Path, str]:
    """SMALL with one expected value of ``phase`` (evaluate's c[1], prep's a.tail_scalars[1]) plus 1 mod r, and the
    report's line for it: the values are read from the bundled file, the reference computes the original one."""
    document = json.loads(SMALL.read_text())
    expected = document["circuits"][0]["expected"]
    values, where = (expected["evaluate"]["c"], "c[1]") if phase == "evaluate" else (expected["prep"]["a"]["tail_scalars"], "a.tail_scalars[1]")
    right = values[1]
    values[1] = f"{(int(right, 16) + 1) % R:064x}"
    path = tmp_path / "corrupted.json"
    path.write_text(json.dumps(document))
    return path, f"[reference, judged by expected]: circuit 0, {where}: expected {values[1]}, got {right}"


@pytest.mark.parametrize("mode", ["isolated", "end-to-end", "prover"])
@pytest.mark.parametrize("phase", ["evaluate", "prep"])
def test_oracle_run_judges_the_reference_by_a_corrupted_expected_value_and_fails(tmp_path, capsys, phase, mode):
    """`run --backends reference --oracle` once skipped evaluate and prep (their judge, the reference, would be the
    reference itself) and printed PASS over a vector whose expected value of them is wrong; the expected value judges
    them now. A corrupted prep leaves every other phase passing (its trapdoor oracles read the same prep), so all run;
    a corrupted evaluate would fail ntt_h's h identity too, so evaluate runs alone."""
    path, line = _corrupted_copy(tmp_path, phase)
    phases = ["--phases", "evaluate"] if phase == "evaluate" else []
    arguments = ["run", str(path), "--backends", "reference", "--oracle", "--mode", mode, *phases]
    assert main([*arguments, "--report", str(tmp_path / "report"), "--quiet"]) == 1
    out = capsys.readouterr().out
    label = "porep-log04 [prover]" if mode == "prover" else "porep-log04"
    assert f"{label} {phase} {line}" in out.splitlines()
    row = rf"^{re.escape(label)} +{phase} +reference \(reference backend by expected\) +FAIL \d"
    assert len(re.findall(row, out, re.MULTILINE)) == 1, out
    entry = next(p for p in json.loads((tmp_path / "report" / "report.json").read_text())["vectors"][0]["phases"] if p["phase"] == phase)
    assert (entry["oracle"], entry["backends"]["reference"]["judge"], entry["backends"]["reference"]["status"]) == ("reference", "expected", "fail")
    counts = "fail 1" if phase == "evaluate" else "pass 6, fail 1"
    assert out.rstrip().endswith(f"result: FAIL (reference: {counts})")


# ---------------------------------------------------------------------------------------------
# Exact comparison


def test_first_difference_names_phase_circuit_query_index_and_values():
    good = [tuple(range(10))]
    bad = [tuple(range(7)) + (99, 8, 9)]
    mismatch = first_difference("ntt_h", good, bad)
    assert (mismatch.phase, mismatch.circuit, mismatch.query, mismatch.index) == ("ntt_h", 0, "h", 7)
    assert (mismatch.expected, mismatch.actual) == (f"{7:064x}", f"{99:064x}")
    assert first_difference("ntt_h", good, [tuple(range(10))]) is None
    assert first_difference("ntt_h", good, [tuple(range(9))]).actual == "<missing>"


def test_first_difference_names_an_extra_element_and_an_extra_circuit():
    """An output longer than the expected one is a mismatch too, at the first extra element (or circuit): the values
    below are written out by hand (64-digit hex of 10, the missing marker), not taken from compare.py."""
    good = [tuple(range(10))]
    longer = first_difference("ntt_h", good, [tuple(range(11))])
    assert (longer.circuit, longer.query, longer.index) == (0, "h", 10)
    assert (longer.expected, longer.actual) == ("<missing>", "0" * 63 + "a")
    extra_circuit = first_difference("ntt_h", good, [tuple(range(10)), (1,)])
    assert (extra_circuit.circuit, extra_circuit.query, extra_circuit.index) == (1, "h", None)
    assert (extra_circuit.expected, extra_circuit.actual) == ("<missing>", "present")


@pytest.mark.parametrize("position", [0, 5, 63, 64, 127])
def test_first_difference_sees_every_bitmap_bit_the_padding_included(position):
    """A bitmap is compared bit by bit over its whole 64-bit words (FORMAT.md: padding bits are zero): a wrong bit at
    any position, the first, the last of a word, or the last padding bit, is named with that position. The bitmaps
    are written by hand: 128 bits (two words) for 64 points, one bit set in the actual one."""
    from reference.prep import Prep, QuerySplit

    def prep_with(l_bitmap: bytes):
        empty = QuerySplit(split=True, tail_indices=(), bitmaps=(bytes(8),), tail_scalars=((),))
        return Prep(l=QuerySplit(split=True, tail_indices=(), bitmaps=(l_bitmap,), tail_scalars=((),)), a=empty, b=empty)

    wrong = bytearray(16)
    wrong[position // 8] = 1 << (position % 8)
    mismatch = first_difference("prep", prep_with(bytes(16)), prep_with(bytes(wrong)))
    assert (mismatch.circuit, mismatch.query, mismatch.index, mismatch.expected, mismatch.actual) == (0, "l.bitmap", position, "0", "1")
    assert first_difference("prep", prep_with(bytes(16)), prep_with(bytes(16))) is None


def test_first_difference_compares_every_circuits_bitmap_and_tail_scalars():
    """prep holds one bitmap and one list of tail scalars per circuit: a difference in the second circuit's is named
    with circuit 1 (hand-made two-circuit splits; the values are written out here)."""
    from reference.prep import Prep, QuerySplit

    def prep_with(l_bitmaps, l_scalars):
        empty = QuerySplit(split=True, tail_indices=(), bitmaps=(bytes(8), bytes(8)), tail_scalars=((), ()))
        return Prep(l=QuerySplit(split=True, tail_indices=(3,), bitmaps=l_bitmaps, tail_scalars=l_scalars), a=empty, b=empty)

    good = prep_with((b"\x01" + bytes(7), b"\x02" + bytes(7)), ((5,), (0,)))
    bitmap = first_difference("prep", good, prep_with((b"\x01" + bytes(7), b"\x06" + bytes(7)), ((5,), (0,))))
    assert (bitmap.circuit, bitmap.query, bitmap.index, bitmap.expected, bitmap.actual) == (1, "l.bitmap", 2, "0", "1")
    scalar = first_difference("prep", good, prep_with((b"\x01" + bytes(7), b"\x02" + bytes(7)), ((5,), (7,))))
    assert (scalar.circuit, scalar.query, scalar.index) == (1, "l.tail_scalars", 0)
    assert (scalar.expected, scalar.actual) == ("0" * 64, "0" * 63 + "7")
    assert first_difference("prep", good, prep_with((b"\x01" + bytes(7), b"\x02" + bytes(7)), ((5,), (0,)))) is None


def test_unreduced_scalars_and_off_curve_points_never_compare_equal():
    assert scalar_text(5) != scalar_text(5 + R)
    # marked as no scalar, not shown as 64+ hex digits: the h identity oracle refuses by that mark (5 + r passes a(x)b(x) - c(x)
    # = h(x)Z(x) as 5 does); the inequality above holds whether or not the range is checked
    assert scalar_text(R).startswith("not reduced mod r") and scalar_text(5 + R).startswith("not reduced mod r")
    assert scalar_text(-1).startswith("not reduced mod r") and scalar_text(R - 1) == f"{R - 1:064x}"
    x, y, z = G1
    off_curve = (x, y + FQ(1), z)  # same x, so the same compressed encoding but for the curve check
    assert point_text(off_curve, "g1").startswith("off the curve")
    mismatch = first_difference("msm_h", [G1], [off_curve])
    # the expected side is G1's published compressed encoding (zkcrypto/bls12_381 src/g1.rs test vectors)
    assert (mismatch.circuit, mismatch.query, mismatch.index) == (0, "h", None)
    assert mismatch.expected == (
        "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
    )
    assert mismatch.actual.startswith("off the curve")
    assert point_text(G2, "g1").startswith("not a G1 point")


# ---------------------------------------------------------------------------------------------
# Command line


def _decoded_png(path: Path):
    """The PNG at ``path`` decoded by matplotlib (an independent reader): (height, width, 3) bytes 0..255."""
    from matplotlib import image

    pixels = image.imread(str(path), format="png")
    return (pixels[:, :, :3] * 255).round().astype("uint8")


def _has_colour(pixels, hex_colour: str) -> bool:
    rgb = [int(hex_colour[k : k + 2], 16) for k in (1, 3, 5)]
    return bool(((pixels == rgb).all(axis=2)).any())


def test_run_writes_reports_and_passes(tmp_path, capsys):
    status = main(["run", str(SMALL), "--backends", "reference", "--report", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert status == 0
    assert "result: PASS" in out and "porep-log04" in out
    document = json.loads((tmp_path / "report.json").read_text())
    assert document["schema"] == "groth16-conformance-report" and document["result"] == "pass"
    assert [p["phase"] for p in document["vectors"][0]["phases"]] == list(PHASES)
    assert {p["backends"]["reference"]["status"] for p in document["vectors"][0]["phases"]} == {"pass"}
    assert "# Conformance report: PASS" in (tmp_path / "report.md").read_text()
    if matplotlib_available():  # (the test extra installs it; without it the report says so: see below)
        assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_reports_a_mismatch_with_exit_1(tmp_path, capsys):
    status = main(["run", str(SMALL), "--backends", "reference,fault:ntt-drop-last-h", "--phases", "ntt_h", "--report", str(tmp_path), "--quiet"])
    out = capsys.readouterr().out
    assert status == 1
    assert "porep-log04 ntt_h [fault:ntt-drop-last-h, judged by expected]: circuit 0, h[14]" in out
    assert "result: FAIL" in out


@pytest.mark.parametrize(
    "arguments",
    [["no-such-vector.json"], [str(SMALL), "--phases", "ntt"], [str(SMALL), "--backends", "cpu"], [str(SMALL), "--backends", "fault:none"], [str(SMALL), "--repeat", "0"]],
)
def test_bad_input_exits_2(arguments, capsys):
    from reference.cli import run_main

    assert run_main(main, ["run", *arguments, "--quiet"]) == 2
    assert capsys.readouterr().err.startswith("error: ")


def test_without_a_gpu_checks_the_reference_and_fails_only_with_require_gpu(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(GpuBackend, "unavailable_reason", lambda self: "no CUDA device (test)")
    assert main(["run", str(SMALL), "--phases", "evaluate", "--report", str(tmp_path), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "No usable CUDA device (no CUDA device (test))" in captured.err
    assert "gpu: no CUDA device (test)" in captured.out
    assert main(["run", str(SMALL), "--phases", "evaluate", "--require-gpu", "--report", str(tmp_path), "--quiet"]) == EXIT_GPU_REQUIRED


def test_gpus_all_without_a_gpu_is_the_gpu_unavailable_not_dropped(monkeypatch, tmp_path, capsys):
    """--gpus all with no visible device once turned gpu into no backend at all: a reference-only PASS, exit 0, even
    with --require-gpu, and a report that did not name the GPU. It is the GPU being unavailable, as without --gpus."""
    import gpu.device

    monkeypatch.setattr(gpu.device, "device_count", lambda: 0)
    monkeypatch.setattr(GpuBackend, "unavailable_reason", lambda self: "no CUDA device (test)")
    arguments = ["run", str(SMALL), "--phases", "evaluate", "--backends", "reference,gpu", "--gpus", "all", "--quiet"]
    assert main([*arguments, "--require-gpu", "--report", str(tmp_path / "required")]) == EXIT_GPU_REQUIRED
    assert not (tmp_path / "required").exists()
    assert main([*arguments, "--report", str(tmp_path / "report")]) == 0
    assert "No usable CUDA device (no CUDA device (test))" in capsys.readouterr().err
    backends = json.loads((tmp_path / "report" / "report.json").read_text())["backends"]
    assert backends["gpu"] == {"available": False, "reason": "no CUDA device (test)", "device": None}


def test_end_to_end_mode_passes_for_the_reference(tmp_path, capsys):
    assert main(["run", str(SMALL), "--backends", "reference", "--mode", "end-to-end", "--report", str(tmp_path), "--quiet"]) == 0


@pytest.mark.parametrize(
    "backends", ["reference,fault:msm-top-carry-dropped", "fault:msm-top-carry-dropped,reference"], ids=["reference-first", "fault-first"]
)
def test_vector_without_expected_values_is_judged_by_the_oracles(tmp_path, capsys, backends):
    """Expected values removed: every phase still runs (inputs from outputs that passed their check)
    and is judged by its independent oracle; a planted fault is still caught. With the faulty backend listed first,
    its failed msm_h must not become the input of the later phases: the reference still passes its assemble (a proof
    built from the wrong H would fail the pairing oracle)."""
    document = json.loads(SMALL.read_text())
    document.pop("prep")
    for circuit in document["circuits"]:
        circuit.pop("expected")
    path = tmp_path / "no-expected.json"
    path.write_text(json.dumps(document))
    report = tmp_path / "report"
    assert main(["run", str(path), "--backends", backends, "--report", str(report), "--quiet"]) == 1
    phases = json.loads((report / "report.json").read_text())["vectors"][0]["phases"]
    assert [p["oracle"] for p in phases] == [oracles.INDEPENDENT_ORACLE[p] for p in PHASES]
    by_reference = {p["phase"]: p["backends"]["reference"]["status"] for p in phases}
    assert by_reference == {**{p: "pass" for p in PHASES}, "evaluate": "skipped", "prep": "skipped"}  # never itself
    failing = {p["phase"] for p in phases if p["backends"]["fault:msm-top-carry-dropped"]["status"] == "fail"}
    assert "msm_h" in failing and failing <= {"msm_h", "tail_msm"}


CHART_DOCUMENT = {
    "backends": {"reference": {}, "gpu": {}},
    "totals": {
        "ntt_h": {"reference": {"seconds": 0.5}, "gpu": {"seconds": 0.001}},
        "msm_h": {"reference": {"seconds": 3.0}, "gpu": {"seconds": None}},
    },
}


def test_chart_is_a_png_of_the_planned_size_with_one_bar_colour_per_backend(tmp_path):
    pytest.importorskip("matplotlib", reason="the report extra (matplotlib) is part of the test extra")
    path = tmp_path / "chart.png"
    assert write_chart(CHART_DOCUMENT, path) is None
    pixels = _decoded_png(path)
    assert pixels.shape == (round((0.6 * 2 * 2 + 1.5) * DPI), 9 * DPI, 3)
    assert _has_colour(pixels, TAB10[0]) and _has_colour(pixels, TAB10[1]) and not _has_colour(pixels, TAB10[2])
    assert write_chart({"backends": {}, "totals": {}}, tmp_path / "none.png") == "no phase was timed, so there is no chart"
    assert not (tmp_path / "none.png").exists()


def test_without_matplotlib_no_chart_is_drawn_and_the_report_says_so(tmp_path, monkeypatch, capsys):
    import conformance.chart

    monkeypatch.setattr(conformance.chart, "matplotlib_available", lambda: False)
    assert write_chart(CHART_DOCUMENT, tmp_path / "chart.png") == NO_MATPLOTLIB
    assert main(["run", str(SMALL), "--backends", "reference", "--phases", "evaluate", "--report", str(tmp_path), "--quiet"]) == 0
    assert not (tmp_path / "chart.png").exists()
    assert f"Chart: {NO_MATPLOTLIB}" in (tmp_path / "report.md").read_text()
    assert json.loads((tmp_path / "report.json").read_text())["chart_note"] == NO_MATPLOTLIB


def test_a_backend_that_raises_is_an_error_naming_where(problem_of):
    """A CUDA error or out-of-memory surfaces as an exception from the backend: status 'error', a
    failure of the run, with the exception and the line of this repository it came from."""
    from conformance.backends.base import Backend
    from conformance.runner import ERROR

    class Crashing(Backend):
        name = "crashing"

        def compute(self, phase, problem, inputs):
            raise RuntimeError("CUDA error: an illegal memory access was encountered")

    result = check_phase(problem_of(SMALL), "msm_h", [Crashing()])
    outcome = result.backends["crashing"]
    assert outcome.status == ERROR and result.failed
    assert outcome.message.startswith("RuntimeError: CUDA error: an illegal memory access was encountered (at tests/test_conformance.py:")


def _raised_in(filename: str) -> BaseException:
    """A ValueError whose traceback holds only frames of ``filename`` (line 2), not this test's."""
    try:
        exec(compile("def f():\n    raise ValueError('bad')\nf()\n", filename, "exec"), {})
    except ValueError as exc:
        return exc.with_traceback(exc.__traceback__.tb_next)


def test_an_error_names_its_place_in_our_code_including_a_fault_s_copy_of_gpu(tmp_path, monkeypatch):
    """A frame of the gpu/ that Python imports is our code even where it is a planted fault's copy, named as the
    repository's would be; a library's frame alone reads '(in file:line)'."""
    from conformance import runner

    in_copy = str(tmp_path / "gpu" / "boom.py")
    assert runner._describe_error(_raised_in(in_copy)) == "ValueError: bad (in boom.py:2)"  # not the imported gpu/
    monkeypatch.setattr(runner, "imported_gpu_root", lambda: tmp_path)
    assert runner._describe_error(_raised_in(in_copy)) == "ValueError: bad (at gpu/boom.py:2)"
    assert runner._describe_error(_raised_in("/elsewhere/lib/boom.py")) == "ValueError: bad (in boom.py:2)"
