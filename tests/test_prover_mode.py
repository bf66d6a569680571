"""conformance --mode prover: each backend's whole prover runs once per repeat and every phase output, captured at
its boundary, is judged against the vector's expected values; the GPU runs gpu.multi.prove_multi (what
`python -m gpu prove` runs) with gpu.prover's capture hook. Also the generated gate cases' bookkeeping.

Independent sources: the vectors' expected values (the reference prover's, checked in), planted faults that
must be named, and gpu/trapdoor.py check results mapped onto phases.
"""
import functools
import sys

import pytest

from conformance.__main__ import main
from conformance.backends.reference import ReferenceBackend
from conformance.faults import FAULTS, FaultyBackend
from conformance.loading import load_cached
from conformance.phases import Problem
from conformance.runner import ERROR, FAIL, PASS, check_vector
from reference.prover import PHASES
from vectors.bundled import DATA_DIR

SMALL = DATA_DIR / "porep-log05.json"
MULTI = DATA_DIR / "multi-circuit-log07.json"


@functools.lru_cache(maxsize=None)
def _problem(path) -> Problem:
    return Problem.from_vector(load_cached(path))


def _statuses(result, backend: str) -> dict:
    return {p.phase: p.backends[backend].status for p in result.phases}


def test_the_reference_prover_passes_every_phase_of_a_multi_circuit_vector():
    result = check_vector(_problem(MULTI), [ReferenceBackend()], mode="prover")
    assert result.vector_id == "multi-circuit-log07 [prover]" and result.mode == "prover"
    assert _statuses(result, "reference") == {p: PASS for p in PHASES}


def test_a_faulty_prover_fails_first_in_the_faulty_phase_and_names_the_element():
    backend = FaultyBackend(FAULTS["ntt-drop-last-h"])
    result = check_vector(_problem(SMALL), [ReferenceBackend(), backend], mode="prover")
    statuses = _statuses(result, backend.name)
    first_failure = next(p for p in PHASES if statuses[p] != PASS)
    assert first_failure == "ntt_h" and statuses["ntt_h"] == FAIL
    mismatch = result.phases[PHASES.index("ntt_h")].backends[backend.name].mismatch
    assert (mismatch.circuit, mismatch.query, mismatch.index) == (0, "h", 30)
    assert statuses["evaluate"] == statuses["prep"] == PASS and statuses["assemble"] != PASS


def test_a_prover_that_differs_between_runs_fails_even_when_its_first_run_is_right():
    """msm-racy adds G1 in every second msm_h run: the first prover run is right, the second differs."""
    backend = FaultyBackend(FAULTS["msm-racy"])
    result = check_vector(_problem(SMALL), [backend], mode="prover", repeat=2)
    outcome = result.phases[PHASES.index("msm_h")].backends[backend.name]
    assert outcome.status == FAIL and "run 2 of 2" in outcome.message and "run 2 vs run 1" in outcome.mismatch.query


class _ScriptedGpuLike(ReferenceBackend):
    """A non-deterministic backend (as the GPU is) whose prover runs replay the reference's outputs, cut where each
    scripted run raised: ``script[k]`` = (phases captured, circuits captured per phase or None for all, error[, the
    phase it raised in, as the GPU backend says])."""

    name = "scripted"
    deterministic = False
    is_reference = False  # judged as the GPU is, by the reference where that is the oracle

    def __init__(self, script):
        self.script, self.calls = script, 0

    def run_prover(self, problem, run_index=0):
        from conformance.backends.base import ProverRun

        self.calls += 1
        phases, circuits, error, *stopped = self.script[run_index]
        outputs = _reference_outputs(problem)
        cut = {p: outputs[p] if p == "prep" or circuits is None else outputs[p][:circuits] for p in phases}
        return ProverRun(outputs=cut, label="one circuit at a time" if run_index % 2 else "", error=error,
                         stopped=stopped[0] if stopped else None)


_REFERENCE_OUTPUTS: dict = {}


def _reference_outputs(problem):
    """The reference prover's outputs, once per problem (_problem keeps each problem, so its id stays its own)."""
    if id(problem) not in _REFERENCE_OUTPUTS:
        _REFERENCE_OUTPUTS[id(problem)] = ReferenceBackend().run_prover(problem).outputs
    return _REFERENCE_OUTPUTS[id(problem)]


def test_a_run_that_raised_is_named_where_it_stopped_and_ends_the_repeats():
    """Run 1 stops in tail_msm with an illegal address, which CUDA keeps (sticky): a second run would fail before
    evaluate. The failure is tail_msm's, and no run follows it."""
    from conformance.phases import PROVER_ORDER

    before_tail = PROVER_ORDER[: PROVER_ORDER.index("tail_msm")]
    backend = _ScriptedGpuLike([(before_tail, None, RuntimeError("cudaErrorIllegalAddress")),
                                ((), None, RuntimeError("cudaErrorIllegalAddress (sticky)"))])
    result = check_vector(_problem(SMALL), [backend], mode="prover", repeat=2)
    statuses = _statuses(result, backend.name)
    assert backend.calls == 1
    assert next(p for p in PHASES if statuses[p] != PASS) == "tail_msm" and statuses["tail_msm"] == ERROR
    assert "cudaErrorIllegalAddress" in result.phases[PHASES.index("tail_msm")].backends[backend.name].message
    assert statuses["assemble"] == "skipped"
    only_assemble = check_vector(_problem(SMALL), [_ScriptedGpuLike([(before_tail, None, RuntimeError("x"))])],
                                 phases=("evaluate", "assemble"), mode="prover", repeat=1)
    outcome = only_assemble.phases[-1].backends["scripted"]  # tail_msm not judged: its failure lands on assemble
    assert outcome.status == ERROR and outcome.message.startswith("the prover stopped in tail_msm (not judged here)")


def test_a_repeated_run_that_raised_is_named_where_it_stopped_not_where_its_partial_outputs_end():
    """Run 2 puts one circuit at a time through evaluate -> ntt_h -> msm_h and raises in msm_h of the first:
    evaluate and ntt_h hold one circuit of four. The failure is msm_h's; the partial outputs are not differences."""
    two_phases = ("prep", "evaluate", "ntt_h")
    backend = _ScriptedGpuLike([(PHASES, None, None), (two_phases, 1, RuntimeError("boom"), "msm_h")])
    result = check_vector(_problem(MULTI), [backend], mode="prover", repeat=2)
    statuses = _statuses(result, backend.name)
    assert len(_reference_outputs(_problem(MULTI))["evaluate"]) == 4
    assert statuses == {**{p: PASS for p in PHASES}, "msm_h": FAIL}
    outcome = result.phases[PHASES.index("msm_h")].backends[backend.name]
    assert outcome.message.startswith("run 2 of 2 (one circuit at a time) failed in msm_h: RuntimeError: boom")


def test_a_first_run_that_raised_one_circuit_at_a_time_is_judged_on_whole_phases_only():
    """Run 1 puts one circuit at a time through evaluate -> ntt_h -> msm_h and raises in the second circuit's evaluate
    (where the backend says it stopped): those phases hold circuit 0 only. They are not judged on it (an oracle fed the run's own partial inputs would pass
    one circuit of four): the error is evaluate's, the phases after it are skipped, prep (whole) is judged."""
    backend = _ScriptedGpuLike([(("prep", "evaluate", "ntt_h", "msm_h"), 1, RuntimeError("in block 2 evaluate"),
                                 "evaluate")])
    result = check_vector(_problem(MULTI), [backend], mode="prover", repeat=1, prefer_oracle=True)
    statuses = _statuses(result, backend.name)
    assert statuses["prep"] == PASS and statuses["evaluate"] == ERROR
    assert {statuses[p] for p in ("ntt_h", "msm_h", "batch_add", "tail_msm", "assemble")} == {"skipped"}
    assert "in block 2 evaluate" in result.phases[PHASES.index("evaluate")].backends[backend.name].message


def test_a_run_that_returns_fewer_circuits_fails_even_where_an_oracle_would_pass_its_own_inputs():
    """No error, but ntt_h and msm_h hold one circuit of four (a capture or block bug): with --oracle the h identity and
    the trapdoor would judge the one circuit they are given and pass; a missing circuit is a failure of its own."""
    from conformance.backends.base import ProverRun

    short = _ScriptedGpuLike([(PHASES, None, None)])
    outputs = _reference_outputs(_problem(MULTI))
    cut = {**outputs, "ntt_h": outputs["ntt_h"][:1], "msm_h": outputs["msm_h"][:1]}
    short.run_prover = lambda problem, run_index=0: ProverRun(outputs=cut)
    result = check_vector(_problem(MULTI), [short], mode="prover", repeat=1, prefer_oracle=True)
    statuses = _statuses(result, short.name)
    assert statuses["ntt_h"] == statuses["msm_h"] == FAIL and statuses["evaluate"] == PASS
    assert result.phases[PHASES.index("ntt_h")].backends[short.name].message == "a circuit's output is missing"


def test_an_error_after_the_last_phase_is_an_error_not_a_pass():
    """Every phase captured, then the prover raised (e.g. the final device check): never a silent pass."""
    backend = _ScriptedGpuLike([(PHASES, None, RuntimeError("late kernel failure"))])
    result = check_vector(_problem(SMALL), [backend], mode="prover", repeat=1)
    statuses = _statuses(result, backend.name)
    assert statuses == {**{p: PASS for p in PHASES}, "assemble": ERROR}
    message = result.phases[PHASES.index("assemble")].backends[backend.name].message
    assert message.startswith("the prover raised after its last phase: RuntimeError: late kernel failure")


def test_command_line_prover_mode(tmp_path, capsys):
    assert main(["run", str(SMALL), "--backends", "reference", "--mode", "prover", "--report", str(tmp_path), "--quiet"]) == 0
    assert "porep-log05 [prover]" in capsys.readouterr().out
    assert main(["run", str(SMALL), "--backends", "fault:assemble-r-s-swapped", "--mode", "prover", "--report", str(tmp_path),
                 "--quiet"]) == 1
    assert "porep-log05 [prover] assemble [fault:assemble-r-s-swapped, judged by expected]: circuit 0, proof.a" in capsys.readouterr().out


# ------------------------------------------------------------------ generated cases (bookkeeping, no GPU)


def test_generated_case_arguments_are_split_from_paths_and_unknown_ones_refused():
    from conformance.generated import GENERATED_CASES, split_names
    from reference.errors import InvalidInputError

    paths, cases = split_names(["a.json", "generated:porep-log11"])
    assert paths == ["a.json"] and cases == [GENERATED_CASES["porep-log11"]]
    with pytest.raises(InvalidInputError, match="unknown generated case"):
        split_names(["generated:porep-log99"])


def test_generated_cases_reach_the_paths_the_bundled_vectors_do_not():
    """Two- and three-pass NTT sizes, the c = 16 window and a one-circuit-at-a-time run are in the generated set."""
    from conformance.generated import GENERATED_CASES
    from gpu.msm import kernel_window_bits
    from gpu.ntt import plan_passes

    cases = GENERATED_CASES.values()
    assert all(len(plan_passes(c.log_n)) >= 2 for c in cases) and any(len(plan_passes(c.log_n)) == 3 for c in cases)
    assert any(kernel_window_bits((1 << c.log_n) - 1) == 16 for c in cases)
    assert any(c.max_block == 1 for c in cases) and any(c.circuits > 1 and c.max_block != 1 for c in cases)


def _batch_rows_take_patterns(case) -> dict[str, bool]:
    """Per query split (l, a, b), whether gpu/batch_add.py would sum the case's rows by circuit patterns: its witnesses
    made on the host (vectors/porep_arrays.py, as the gate makes them on the device), split by gpu/prep.py, each row's
    bits counted here and read through BatchAdder.sums's own rule (row_modes, patterns_pay)."""
    import numpy as np

    from conformance.generated import SEED
    from gpu.batch_add import patterns_pay, row_modes
    from gpu.circuit import QueryDensity
    from gpu.prep import prep
    from vectors.porep_arrays import porep_circuit, porep_witnesses

    arrays = porep_circuit(case.log_n, SEED, xp=np)
    z, _ = porep_witnesses(arrays, SEED, case.circuits, np)
    density = QueryDensity(*(np.asarray(x, dtype=bool) for x in (arrays.a_aux, arrays.b_input, arrays.b_aux)))
    points = {q: len(v) for q, v in density.query_variables(arrays.num_inputs).items()}
    taken = {}
    for query, split in prep(z, arrays.num_inputs, arrays.num_aux, density).items():
        n = points[query]
        bits = np.unpackbits(split.bitmaps.view(np.uint8), axis=1, bitorder="little")[:, :n].sum(axis=1)
        taken[query] = split.split and patterns_pay(row_modes([int(c) for c in bits], n)[1], n)
    return taken


def test_generated_cases_reach_both_batch_add_paths():
    """The gate's kernel coverage needs batch addition by circuit patterns in G1 and G2 (B's split feeds B_G2) and by
    chunks: porep-log17's ten circuits take the patterns in every query, porep-log11's three the chunks."""
    from conformance.generated import GENERATED_CASES

    assert _batch_rows_take_patterns(GENERATED_CASES["porep-log17"]) == {"l": True, "a": True, "b": True}
    assert _batch_rows_take_patterns(GENERATED_CASES["porep-log11"]) == {"l": False, "a": False, "b": False}


def test_trapdoor_checks_become_phase_verdicts():
    from gpu.trapdoor import CheckResult

    from conformance.generated import _outcomes_from_checks

    names = ["proof verifies (subgroups and pairing check)", "ntt_h: A(x)B(x) - C(x) = h(x)(x^n - 1) at a random x",
             "msm_h against the trapdoor", "batch_add l against the trapdoor", "tail_msm b_g2 against the trapdoor"]
    checks = [(k, CheckResult(name, True)) for k in (0, 1) for name in names]
    checks[-1] = (1, CheckResult(names[-1], False, "0x1 != 0x2"))
    outcomes = _outcomes_from_checks(checks, {"tail_msm": 0.5}, circuits=2)
    assert {p: o.status for p, o in outcomes.items()} == {
        "ntt_h": PASS, "msm_h": PASS, "batch_add": PASS, "tail_msm": FAIL, "assemble": PASS,
        "evaluate": "skipped", "prep": "skipped"}
    assert outcomes["tail_msm"].mismatch.location().startswith("circuit 1, tail_msm b_g2")


def test_a_phase_that_no_check_judged_for_some_circuit_is_an_error_not_a_pass():
    from gpu.trapdoor import CheckResult

    from conformance.generated import _outcomes_from_checks

    checks = [(0, CheckResult("msm_h against the trapdoor", True))]
    outcomes = _outcomes_from_checks(checks, {}, circuits=2)
    assert outcomes["msm_h"].status == ERROR and outcomes["msm_h"].message == "no msm_h check judged circuit(s) 1"
    assert {outcomes[p].status for p in ("ntt_h", "batch_add", "tail_msm", "assemble")} == {ERROR}


# ------------------------------------------------------------------ on the device


@pytest.mark.gpu
@pytest.mark.parametrize("path", [SMALL, MULTI, DATA_DIR / "edge-split-half-1.json"], ids=lambda p: p.stem)
def test_gpu_prover_mode_passes_in_both_block_layouts(path):
    from conformance.backends.gpu import GpuBackend

    result = check_vector(_problem(path), [GpuBackend()], mode="prover", repeat=2)
    assert _statuses(result, "gpu") == {p: PASS for p in PHASES}


@pytest.mark.gpu
def test_the_capture_hook_changes_no_proof():
    from reference.cli import proof_json

    from conformance.backends.gpu import PhaseCapturer
    from gpu.prover import prove

    vector = load_cached(MULTI)
    plain = prove(vector.r1cs, vector.pk, vector.witnesses, convention=vector.convention)
    capturer = PhaseCapturer()
    captured = prove(vector.r1cs, vector.pk, vector.witnesses, convention=vector.convention, capture=capturer)
    assert [proof_json(p) for p in captured.proofs] == [proof_json(p) for p in plain.proofs]
    assert set(capturer.outputs()) == set(PHASES)


# ------------------------------------------------------------------ the process's end after a device error


class _FakeCupy:
    """Stands for CuPy in sys.modules: deviceSynchronize raises ``error`` if given."""

    def __init__(self, error=None):
        runtime = type("runtime", (), {"deviceSynchronize": staticmethod(self._sync)})
        self.cuda = type("cuda", (), {"runtime": runtime})
        self.error = error

    def _sync(self):
        if self.error:
            raise self.error


@pytest.mark.parametrize("code, expected", [(0, 1), (1, 1), (2, 2)])
def test_a_device_in_error_at_the_end_ends_the_process_without_clean_up_and_never_with_0(code, expected, monkeypatch,
                                                                                         capsys):
    import gpu.device as cli

    ended = []
    monkeypatch.setitem(sys.modules, "cupy", _FakeCupy(RuntimeError("cudaErrorIllegalAddress")))
    monkeypatch.setattr(cli.os, "_exit", ended.append)
    cli.finish(code, failed=1)
    assert ended == [expected]
    assert ("the device is in error after the run (RuntimeError: cudaErrorIllegalAddress)" in capsys.readouterr().err) == (code == 0)


def test_a_healthy_device_or_no_cupy_exits_normally(monkeypatch):
    import gpu.device as cli

    monkeypatch.setattr(cli.os, "_exit", lambda code: pytest.fail("os._exit on a healthy device"))
    monkeypatch.setitem(sys.modules, "cupy", _FakeCupy())
    with pytest.raises(SystemExit) as done:
        cli.finish(0, failed=1)
    assert done.value.code == 0 and cli.device_error() is None
    monkeypatch.delitem(sys.modules, "cupy")
    assert cli.device_error() is None


@pytest.mark.parametrize("module, argv, failed", [("conformance", ["gate", "--report-file", "no-such-report.json"], 1),
                                                   ("gpu", ["prove", "no-such-vector.json"], 2)])
def test_both_command_lines_end_through_finish_with_their_failure_status(module, argv, failed, monkeypatch):
    """python -m conformance (a failed check: 1) and python -m gpu (a GPU error: 2) both end through gpu.device.finish,
    so neither exits 0 over a device in error."""
    import runpy

    import gpu.device

    ended = []
    monkeypatch.setattr(gpu.device, "finish", lambda code, failed: ended.append((code, failed)))
    monkeypatch.setattr(sys, "argv", [module, *argv])
    monkeypatch.delitem(sys.modules, f"{module}.__main__", raising=False)  # (run afresh, as python -m does)
    runpy.run_module(module, run_name="__main__")
    assert ended == [(2, failed)]  # (bad input: exit 2 either way)


def test_the_gpu_capture_order_says_where_a_run_stopped(monkeypatch):
    """CaptureOrder follows gpu/prover.py's order: prep, evaluate -> ntt_h -> msm_h a block of circuits, batch_add,
    tail_msm, assemble. The GPU backend's capturer feeds it every capture, the generated cases use it as the capture
    hook itself; both are fed what gpu/prover.py hands its capture hook (arrays of the real shapes, the query sums'
    dicts, a proofs object), the capturer's device-to-host conversions replaced by per-circuit lists."""
    import types

    import numpy as np

    import conformance.backends.gpu as gpu_backend
    from conformance.phases import CaptureOrder

    circuits, n = 4, 8
    monkeypatch.setitem(gpu_backend.CAPTURED, "prep", lambda splits: splits)
    monkeypatch.setitem(gpu_backend.CAPTURED, "evaluate", lambda abc: [None] * abc[0].shape[0])
    for phase in ("ntt_h", "msm_h"):
        monkeypatch.setitem(gpu_backend.CAPTURED, phase, lambda block: [None] * block.shape[0])
    for phase in ("batch_add", "tail_msm", "assemble"):
        monkeypatch.setitem(gpu_backend.CAPTURED, phase, lambda outputs: [None] * circuits)
    sums = {q: np.zeros((circuits, 24), np.uint32) for q in ("l", "a", "b_g1", "b_g2")}
    proofs = types.SimpleNamespace(a=None, b=None, c=None)  # gpu.assemble.DeviceProofs: no shape
    captures = [("prep", 0, {"l": "split"})]
    for first in (0, 2):  # two blocks of two circuits
        captures += [("evaluate", first, tuple(np.zeros((2, n, 8), np.uint32) for _ in range(3))),
                     ("ntt_h", first, np.zeros((2, n - 1, 8), np.uint32)), ("msm_h", first, np.zeros((2, 24), np.uint32))]
    captures += [("batch_add", 0, sums), ("tail_msm", 0, sums), ("assemble", 0, proofs)]
    capturer, hook = gpu_backend.PhaseCapturer(), CaptureOrder()
    seen, seen_hook = [capturer.order.next_phase(circuits)], [hook.next_phase(circuits)]
    for phase, first, outputs in captures:
        capturer(phase, first, outputs)
        hook(phase, first, outputs)
        seen.append(capturer.order.next_phase(circuits))
        seen_hook.append(hook.next_phase(circuits))
    assert seen == seen_hook == ["prep", "evaluate", "ntt_h", "msm_h", "evaluate", "ntt_h", "msm_h", "batch_add",
                                 "tail_msm", "assemble", None]
