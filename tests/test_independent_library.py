"""The independent-library oracle (conformance/independent_library.py, `--oracle-library arkworks`).

Its MSM and pairing check agree with the reference / py_ecc on small cases, and the conformance suite
judged by it passes the reference on a bundled vector and fails each planted fault in the right phase.
Skipped, with the reason printed (-ra), where py-arkworks-bls12381 is not installed (pip install -e '.[fast]'),
except the test that its absence is a clean error.
"""
import functools
import json
import random
import sys

import pytest
from py_ecc.optimized_bls12_381 import G1, G2, Z1, Z2, add, multiply, neg

from conformance import independent_library as lib
from conformance.__main__ import main
from conformance.backends.reference import reference_phase
from conformance.faults import FAULTS, FaultyBackend, PlantedFault, repeated_bases_vector
from conformance.loading import load_cached
from conformance.phases import Problem
from conformance.runner import FAIL, PASS, check_vector
from reference.curve import points_eq
from reference.errors import InvalidInputError
from reference.field import R
from reference.msm import msm_naive
from reference.verifier import pairing_product_is_one
from vectors.bundled import DATA_DIR

MISSING = lib.unavailable_reason()
needs_library = pytest.mark.skipif(MISSING is not None, reason=f"skipped: {MISSING}")
BUNDLED_SMALL = DATA_DIR / "porep-log05.json"
REPEATED_BASES = "repeated-bases"
LIBRARY_PHASES = set(lib.PHASES)


@functools.lru_cache(maxsize=None)
def _problem(which) -> Problem:
    vector = repeated_bases_vector() if which == REPEATED_BASES else load_cached(which)
    return Problem.from_vector(vector)


def _edge_case_msm(generator, rng: random.Random, n: int):
    """Random points plus the edge cases an MSM gets wrong: a repeated base, the identity, scalars 0, 1, r - 1."""
    points = [multiply(generator, rng.randrange(1, R)) for _ in range(n)]
    points += [points[0], multiply(generator, 0)]
    scalars = [rng.randrange(R) for _ in range(n)] + [R - 1, 1]
    scalars[1] = 0
    return points, scalars


@needs_library
@pytest.mark.parametrize(("generator", "identity", "n"), [(G1, Z1, 8), (G2, Z2, 3)], ids=["g1", "g2"])
def test_library_msm_equals_the_naive_msm(generator, identity, n):
    points, scalars = _edge_case_msm(generator, random.Random(16), n)
    got = lib.library_msm(points, scalars, identity)
    assert points_eq(got, msm_naive(points, scalars, identity=identity))
    assert not points_eq(got, identity)
    assert lib.library_msm([], [], identity) is identity


@needs_library
@pytest.mark.parametrize("bad", [R, -1, 2**256, True, 1.0])
def test_library_scalars_are_refused_never_reduced(bad):
    with pytest.raises(InvalidInputError):
        lib.to_library_scalar(bad)


@needs_library
def test_library_pairing_agrees_with_py_ecc():
    a, b = 1234567, 7654321
    holds = [(multiply(G1, a), multiply(G2, b)), (neg(multiply(G1, a * b % R)), G2)]
    fails = [(multiply(G1, a), multiply(G2, b)), (neg(multiply(G1, a * b % R + 1)), G2)]
    assert lib.pairing_product_is_one(holds) is pairing_product_is_one(holds) is True
    assert lib.pairing_product_is_one(fails) is pairing_product_is_one(fails) is False


@needs_library
def test_library_verifies_the_bundled_proof_and_refuses_a_changed_one():
    problem = _problem(BUNDLED_SMALL)
    case = problem.vector.circuits[0]
    proof = case.expected.assemble
    assert lib.verifies_by_library(problem.vector.pk.vk, case.witness.public_inputs, proof)
    bad = type(proof)(a=proof.a, b=proof.b, c=add(proof.c, G1))
    assert not lib.verifies_by_library(problem.vector.pk.vk, case.witness.public_inputs, bad)


@needs_library
def test_conformance_oracle_library_passes_the_reference(tmp_path):
    status = main(["run", "--backends", "reference", "--oracle-library", lib.ARKWORKS, "--quiet",
                   "--report", str(tmp_path), str(BUNDLED_SMALL)])
    document = json.loads((tmp_path / "report.json").read_text())
    assert status == 0 and document["result"] == "pass" and document["oracle_library"] == lib.ARKWORKS
    judges = {p["phase"]: p["oracle"] for v in document["vectors"] for p in v["phases"]}
    assert {p for p, oracle in judges.items() if oracle == lib.ARKWORKS} == LIBRARY_PHASES


def _proof_c_plus_g1(phase, problem, inputs):
    """A proof that no longer verifies: C + G1 (the planted faults' assemble swaps r and s, which still verifies)."""
    return [type(p)(a=p.a, b=p.b, c=add(p.c, G1)) for p in reference_phase(phase, problem, inputs)]


ASSEMBLE_C_OFF = PlantedFault("assemble-c-off-by-g1", ("assemble",), "assemble adds G1 to C", _proof_c_plus_g1)

FAULT_CASES = [
    (FAULTS["msm-top-carry-dropped"], BUNDLED_SMALL, {"msm_h": ("h", None)}),
    (FAULTS["msm-bucket-no-doubling"], REPEATED_BASES, {"tail_msm": ("l", None)}),
    (FAULTS["batch-add-word-slip"], REPEATED_BASES, {"batch_add": ("l", None)}),
    (ASSEMBLE_C_OFF, BUNDLED_SMALL, {"assemble": (f"pairing check ({lib.ARKWORKS})", None)}),
]
"""(fault, vector, {phase that must fail: (query, index) of its first mismatch}), as in test_planted_faults."""


@needs_library
@pytest.mark.parametrize(("fault", "which", "expected"), FAULT_CASES, ids=[f.name for f, _, _ in FAULT_CASES])
def test_oracle_library_fails_a_planted_fault_in_its_phase(fault, which, expected):
    backend = FaultyBackend(fault)
    result = check_vector(_problem(which), [backend], oracle_library=lib.ARKWORKS)
    judged_by_library = {p.phase for p in result.phases if p.oracle == lib.ARKWORKS}
    assert judged_by_library == LIBRARY_PHASES
    failing = {p.phase: p.backends[backend.name] for p in result.phases if p.backends[backend.name].status != PASS}
    assert set(failing) == set(expected), {p: (r.status, r.message) for p, r in failing.items()}
    for phase, (query, index) in expected.items():
        mismatch = failing[phase].mismatch
        assert failing[phase].status == FAIL
        assert (mismatch.phase, mismatch.circuit, mismatch.query, mismatch.index) == (phase, 0, query, index)


@needs_library
def test_conformance_oracle_library_command_fails_a_planted_fault(tmp_path, capsys):
    status = main(["run", "--backends", "fault:msm-top-carry-dropped", "--oracle-library", lib.ARKWORKS, "--phases", "msm_h",
                   "--quiet", "--report", str(tmp_path), str(BUNDLED_SMALL)])
    document = json.loads((tmp_path / "report.json").read_text())
    [phase] = [p for v in document["vectors"] for p in v["phases"]]
    outcome = phase["backends"]["fault:msm-top-carry-dropped"]
    assert status == 1 and phase["oracle"] == lib.ARKWORKS and outcome["status"] == FAIL
    assert outcome["mismatch"]["phase"] == "msm_h" and outcome["mismatch"]["query"] == "h"


def test_oracle_library_missing_is_a_clean_error(monkeypatch, tmp_path, capsys):
    """Without the package (simulated: an import that fails), exit 2 with error: --oracle-library: ... and no report."""
    monkeypatch.setitem(sys.modules, lib.PACKAGE, None)  # makes `import py_arkworks_bls12381` raise ImportError
    from reference.cli import run_main

    status = run_main(main, ["run", "--backends", "reference", "--oracle-library", lib.ARKWORKS, "--report", str(tmp_path / "r"), str(BUNDLED_SMALL)])
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("error: --oracle-library: ") and lib.DISTRIBUTION in err and "Traceback" not in err
    assert not (tmp_path / "r").exists()
    assert run_main(main, ["run", "--oracle-library", "blst", str(BUNDLED_SMALL)]) == 2
    assert "error: --oracle-library: unknown library 'blst'" in capsys.readouterr().err
