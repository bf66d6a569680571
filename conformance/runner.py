"""The conformance loop: for every vector, every selected phase, every backend: plan the inputs, run
the phase, judge its output, and record status, mismatch and times.

Statuses of one backend on one phase:

    pass             the output equals the judge's value exactly
    fail             it differs; ``mismatch`` names the first differing element
    error            the backend raised (a CUDA error, out of memory, a bug): a failure too
    not implemented  the backend has no such phase yet: neither a pass nor a failure
    skipped          no input exists for the phase (see phases.plan_inputs): neither
    unavailable      the backend cannot run on this machine (no CUDA device): neither
"""
import dataclasses
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from reference.prover import PHASES

from . import oracles
from .backends.base import Backend, PhaseNotImplemented
from .compare import FAILED_RUN, Mismatch, first_difference
from .sources import REPO_ROOT, imported_gpu_root
from .phases import PROVER, PROVER_ORDER, Problem, expected_output, plan_inputs

PASS, FAIL, ERROR, NOT_IMPLEMENTED, SKIPPED, UNAVAILABLE = (
    "pass", "fail", "error", "not implemented", "skipped", "unavailable",
)
FAILING_STATUSES = (FAIL, ERROR)
STATUSES = (PASS, FAIL, ERROR, NOT_IMPLEMENTED, SKIPPED, UNAVAILABLE)


@dataclass
class BackendResult:
    """One backend's verdict and times on one phase of one vector."""

    status: str
    seconds: float | None = None
    timing: str | None = None
    transfer_seconds: float | None = None
    host_seconds: float | None = None
    setup_seconds: float | None = None
    run_seconds: list[float] | None = None
    """Every run's seconds in order (the first of several pays one-time costs): conformance/timing.py's input."""
    input_source: str | None = None
    mismatch: Mismatch | None = None
    message: str | None = None
    """Why it was not implemented / skipped / unavailable, or the error raised."""
    judge: str | None = None
    """This backend's judge where it is not the phase's oracle (_judge_of: the reference judged by the expected value)."""
    output: object = field(default=None, repr=False, compare=False)
    """The phase output itself (reference types); kept in memory, never written to the report."""

    def as_json(self) -> dict:
        return {
            "status": self.status,
            "seconds": self.seconds,
            "timing": self.timing,
            "transfer_seconds": self.transfer_seconds,
            "host_seconds": self.host_seconds,
            "setup_seconds": self.setup_seconds,
            "run_seconds": self.run_seconds,
            "input_source": self.input_source,
            "mismatch": self.mismatch.as_json() if self.mismatch else None,
            "message": self.message,
            "judge": self.judge,
        }


@dataclass
class PhaseResult:
    """Every backend's result on one phase of one vector, and the judge used."""

    phase: str
    oracle: str
    backends: dict[str, BackendResult] = field(default_factory=dict)

    def speedup(self, baseline: str = "reference", contender: str = "gpu", with_transfers: bool = False) -> float | None:
        """baseline seconds / contender seconds (plus its transfers if asked), when both passed and were timed."""
        base, other = self.backends.get(baseline), self.backends.get(contender)
        if not (base and other and base.status == PASS and other.status == PASS and base.seconds and other.seconds):
            return None
        other_seconds = other.seconds + ((other.transfer_seconds or 0.0) if with_transfers else 0.0)
        return base.seconds / other_seconds if other_seconds > 0 else None

    @property
    def failed(self) -> bool:
        return any(r.status in FAILING_STATUSES for r in self.backends.values())


@dataclass
class VectorResult:
    """Every phase's result on one vector."""

    vector_id: str
    path: str
    log_n: int
    circuits: int
    has_trapdoor: bool
    phases: list[PhaseResult] = field(default_factory=list)
    mode: str = "isolated"

    @property
    def failed(self) -> bool:
        return any(p.failed for p in self.phases)


def _our_path(filename: str) -> str | None:
    """The frame's file relative to this run's own code (gpu/prep.py), or None for a library's: the repository, and
    the folder whose gpu/ Python imports (a planted fault's patched copy, conformance/faults.py)."""
    path = Path(filename).resolve()
    for root in (REPO_ROOT, imported_gpu_root().resolve()):
        if path.is_relative_to(root):
            return path.relative_to(root).as_posix()
    return None


def _describe_error(exc: BaseException) -> str:
    """'ExceptionType: message (at gpu/prep.py:87, in packing.py:56)': the innermost frame of our own code (where
    to look) and, if deeper, the innermost frame overall (a library's); '(in packing.py:56)' when no frame is ours."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return f"{type(exc).__name__}: {exc}"
    ours = [(f, path) for f in frames if (path := _our_path(f.filename)) is not None]
    places = [f"at {ours[-1][1]}:{ours[-1][0].lineno}"] if ours else []
    if not ours or ours[-1][0] is not frames[-1]:
        places.append(f"in {Path(frames[-1].filename).name}:{frames[-1].lineno}")
    return f"{type(exc).__name__}: {exc} ({', '.join(places)})"


def check_phase(
    problem: Problem,
    phase: str,
    backends: list[Backend],
    mode: str = "isolated",
    prefer_oracle: bool = False,
    verified: dict | None = None,
    own: dict[str, dict] | None = None,
    repeat: int = 1,
    oracle_library: str | None = None,
) -> PhaseResult:
    """Run and judge one phase of ``problem`` in every backend, from the inputs ``mode`` gives it.

    ``verified`` ({phase: output that passed}) stands in for missing expected inputs; ``own``
    ({backend: {phase: output}}) holds each backend's earlier outputs for end-to-end mode. Both are
    updated with this phase's outputs. The outputs ride along in ``BackendResult.output``.
    ``repeat``: runs per phase of a backend that is not deterministic by construction (see _run_one).
    ``oracle_library``: the independent library that judges the phases it covers (oracles.choose_oracle).
    """
    vector = problem.vector
    verified = {} if verified is None else verified
    own = {} if own is None else own
    expected = expected_output(vector, phase)
    result = PhaseResult(phase, oracles.choose_oracle(phase, problem, expected is not None, prefer_oracle, oracle_library))
    shared_plan = plan_inputs(phase, mode, vector, verified, {}) if mode == "isolated" else None
    for backend in backends:
        mine = own.setdefault(backend.name, {})
        plan = shared_plan or plan_inputs(phase, mode, vector, verified, mine)
        outcome = _run_one(backend, phase, problem, plan, result.oracle, expected, repeat)
        result.backends[backend.name] = outcome
        if outcome.status == PASS:
            verified.setdefault(phase, outcome.output)
        if outcome.status in (PASS, FAIL):
            mine[phase] = outcome.output
    return result


def check_vector(
    problem: Problem,
    backends: list[Backend],
    phases=PHASES,
    mode: str = "isolated",
    prefer_oracle: bool = False,
    path: str = "",
    progress=None,
    unavailable: dict[str, str] | None = None,
    repeat: int = 1,
    oracle_library: str | None = None,
) -> VectorResult:
    """Run and judge every selected phase of ``problem`` in every backend (see check_phase).

    ``unavailable`` maps backend names that cannot run here to the reason; they are recorded as
    'unavailable' for every phase. Phases run in the prover's order, so a phase's verified inputs
    (for vectors without expected values) exist before it runs.
    """
    say = progress or (lambda message: None)
    vector = problem.vector
    label = f"{vector.id} [{PROVER}]" if mode == PROVER else vector.id
    result = VectorResult(label, path, vector.r1cs.log_n, len(vector.circuits), vector.trapdoor is not None, mode=mode)
    verified: dict = {}
    own: dict[str, dict] = {}
    prover_results = check_prover(problem, backends, phases, prefer_oracle, repeat, oracle_library) if mode == PROVER else {}
    for phase in (p for p in PHASES if p in phases):
        phase_result = prover_results.get(phase) or check_phase(
            problem, phase, backends, mode, prefer_oracle, verified, own, repeat, oracle_library
        )
        for name, outcome in phase_result.backends.items():
            say(_progress_line(label, phase, name, outcome))
        for name, reason in (unavailable or {}).items():
            phase_result.backends[name] = BackendResult(UNAVAILABLE, message=reason)
        result.phases.append(phase_result)
    for phase_result in result.phases:  # the verdicts stay; the (possibly large) outputs go
        for outcome in phase_result.backends.values():
            outcome.output = None
    return result


def check_prover(problem: Problem, backends: list[Backend], phases=PHASES, prefer_oracle: bool = False,
                 repeat: int = 1, oracle_library: str | None = None) -> dict[str, PhaseResult]:
    """Prover mode (phases.py): each backend's whole prover once per repeat, every captured phase judged.

    A phase's output must equal the vector's expected value (or pass its oracle, fed the backend's own earlier
    outputs); every repeated run (a backend not deterministic by construction) must give the first run's outputs
    exactly. Returns {phase: PhaseResult} for the selected phases."""
    vector = problem.vector
    selected = [p for p in PHASES if p in phases]
    results = {p: PhaseResult(p, oracles.choose_oracle(p, problem, expected_output(vector, p) is not None, prefer_oracle, oracle_library))
               for p in selected}
    verified: dict = {}
    for backend in backends:
        for phase, outcome in _prover_outcomes(backend, problem, results, repeat, verified).items():
            results[phase].backends[backend.name] = outcome
            if outcome.status == PASS:
                verified.setdefault(phase, outcome.output)
    return results


def _prover_runs(backend: Backend, problem: Problem, repeat: int):
    """The backend's prover runs (ProverRun), up to and including the first that raised; or a BackendResult that
    stands for every phase. No run follows a failed one: a CUDA error such as an illegal address is sticky (every
    later call of the process fails with it), so a later run would fail at its first phase and say nothing about it."""
    runs = []
    for k in range(_planned_runs(backend, repeat)):
        try:
            runs.append(backend.run_prover(problem, k))
        except PhaseNotImplemented as exc:
            return BackendResult(NOT_IMPLEMENTED, message=str(exc))
        except Exception as exc:  # a failure, never a silent pass
            return BackendResult(ERROR, message=_describe_error(exc))
        if runs[-1].error is not None:
            break
    return runs


def _planned_runs(backend: Backend, repeat: int) -> int:
    return 1 if backend.deterministic else max(1, repeat)


def _captured(run, phase: str, circuits: int) -> bool:
    """Whether ``run`` captured ``phase`` for every circuit: one circuit at a time, a run that raised may hold a
    phase's output for the circuits before the failure only (prep is captured once, for all circuits)."""
    return phase in run.outputs and (phase == "prep" or len(run.outputs[phase]) == circuits)


def _stopped_in(run, circuits: int) -> str | None:
    """The phase a run that raised stopped in: where the backend says (ProverRun.stopped), else the first of the
    prover's order it did not capture for every circuit; None when it raised after its last phase."""
    if not run.error:
        return None
    return run.stopped or next((p for p in PROVER_ORDER if not _captured(run, p, circuits)), None)


def _prover_outcomes(backend: Backend, problem: Problem, results: dict, repeat: int, verified: dict) -> dict:
    """{phase: BackendResult} of one backend in prover mode (check_prover).

    Run 1 is judged phase by phase; if it raised, that is an error on the phase it stopped in (_blamed_phase: an
    error after its last phase is never dropped) and the phases after it are skipped. A repeated run must give
    run 1's outputs (_prover_drift); a repeated run that raised is one failure, on the phase it stopped in
    (_blamed_phase), and its other outputs are not compared: with one circuit at a time, the phases before the stop
    hold only the circuits done before it."""
    runs = _prover_runs(backend, problem, repeat)
    if isinstance(runs, BackendResult):
        return {phase: dataclasses.replace(runs) for phase in results}
    first, outcomes, own = runs[0], {}, {}
    circuits = len(problem.vector.circuits)
    stopped = _stopped_in(first, circuits)
    first_blamed = _blamed_phase(stopped, results) if first.error else None
    failed = next((k for k, run in enumerate(runs[1:], start=2) if run.error), None)
    blamed = _blamed_phase(_stopped_in(runs[failed - 1], circuits), results) if failed else None
    complete = runs[:-1] if failed else runs  # a run that raised is the last (_prover_runs)
    planned = _planned_runs(backend, repeat)
    for phase in (p for p in PHASES if p in results):
        if phase == first_blamed:
            outcomes[phase] = BackendResult(ERROR, message=_run_error(first, stopped, phase), input_source="own")
            continue
        if phase not in first.outputs or (first.error and not _captured(first, phase, circuits)):
            if first.error:
                outcomes[phase] = BackendResult(SKIPPED, message=f"the prover stopped in {stopped}", input_source="own")
            else:
                outcomes[phase] = BackendResult(NOT_IMPLEMENTED, message=f"{backend.name}'s prover captured no {phase} output")
            continue
        output = first.outputs[phase]
        own[phase] = output
        seconds = [r.seconds[phase] for r in complete if phase in r.seconds]
        timing = dict(seconds=min(seconds) if seconds else None, timing=first.timing, input_source="own")
        drift = (_failed_run(phase, runs, failed, planned, circuits) if phase == blamed
                 else _prover_drift(phase, complete, planned))
        if drift is not None:
            outcomes[phase] = BackendResult(FAIL, mismatch=drift[0], message=drift[1], **timing)
            continue
        plan = plan_inputs(phase, "end-to-end", problem.vector, verified, own)
        oracle, expected = results[phase].oracle, expected_output(problem.vector, phase)
        judge = _judge_of(backend, oracle, expected)
        if judge is None:
            outcomes[phase] = BackendResult(SKIPPED, message=SELF_JUDGED, **timing)
            continue
        if not _captured(first, phase, circuits):  # an oracle fed the run's own short inputs would pass the rest
            mismatch = Mismatch(phase, None, "output", None, f"{circuits} circuits' outputs", f"{len(output)}")
            outcomes[phase] = BackendResult(FAIL, mismatch=mismatch, message="a circuit's output is missing", **timing)
            continue
        mismatch = _judged(judge, phase, problem, plan.values, output, expected)
        outcomes[phase] = BackendResult(FAIL if mismatch else PASS, mismatch=mismatch, output=output,
                                        judge=_own_judge(judge, oracle), **timing)
    return outcomes


def _blamed_phase(stopped: str | None, results: dict) -> str | None:
    """Where a run's failure is reported: the phase it stopped in (_stopped_in), or, when that phase is not among
    those judged or the run raised after its last phase (None), the next judged one in the prover's order, else the
    last judged one: a run that raised is never dropped."""
    judged = [p for p in PROVER_ORDER if p in results]
    if stopped is None or not judged:
        return judged[-1] if judged else None
    later = [p for p in judged if PROVER_ORDER.index(p) >= PROVER_ORDER.index(stopped)]
    return later[0] if later else judged[-1]


def _failed_run(phase: str, runs, failed: int, planned: int, circuits: int) -> tuple[Mismatch, str]:
    """Repeated run ``failed`` (1-based) raised: its error, as the outcome of ``phase``."""
    run = runs[failed - 1]
    how = f" ({run.label})" if run.label else ""
    error = _describe_error(run.error)
    where = _stopped_in(run, circuits) or "its end (after its last phase)"
    return (Mismatch(phase, None, f"run {failed}{how}", None, FAILED_RUN, error),
            f"run {failed} of {planned}{how} failed in {where}: {error}")


def _run_error(run, stopped: str | None, blamed: str) -> str:
    """A run's error as the message of the phase it is reported on (``blamed``), saying where the run stopped when
    that is another phase (one not judged; None: after the last phase)."""
    error = _describe_error(run.error)
    if stopped is None:
        return f"the prover raised after its last phase: {error}"
    return error if stopped == blamed else f"the prover stopped in {stopped} (not judged here): {error}"


def _prover_drift(phase: str, runs, planned: int) -> tuple[Mismatch, str] | None:
    """The first repeated run (all of ``runs`` completed) whose ``phase`` output differs from run 1's."""
    first = runs[0]
    for k, again in enumerate(runs[1:], start=2):
        how = f" ({again.label})" if again.label else ""
        drift = first_difference(phase, first.outputs[phase], again.outputs[phase])
        if drift is not None:
            mismatch = dataclasses.replace(drift, query=f"{drift.query} (run {k}{how} vs run 1)")
            return mismatch, f"run {k} of {planned}{how} differs from run 1"
    return None


SELF_JUDGED = ("not judged: the reference is this phase's judge here (no expected value exists, no independent oracle), "
               "and it would be compared with itself")
"""Why the reference backend's phase is skipped when its oracle is the reference and the vector has no expected value
for it (_judge_of): a comparison with itself checks nothing."""


def _judge_of(backend: Backend, oracle: str, expected) -> str | None:
    """The judge of ``backend``'s output: the phase's oracle, save that the reference never judges itself (--oracle on
    evaluate and prep, or the MSM phases of a vector without a trapdoor): the vector's expected value judges it
    instead, and where there is none, nothing does (None: skipped, SELF_JUDGED)."""
    if not (backend.is_reference and oracle == oracles.REFERENCE):
        return oracle
    return oracles.EXPECTED if expected is not None else None


def _own_judge(judge: str, oracle: str) -> str | None:
    """BackendResult.judge: the backend's judge where it is not the phase's oracle."""
    return judge if judge != oracle else None


def _judged(judge: str, phase: str, problem: Problem, inputs: dict, output, expected) -> Mismatch | None:
    """oracles.judge, with an output so malformed that the judge cannot even read it a mismatch too."""
    try:
        return oracles.judge(judge, phase, problem, inputs, output, expected)
    except Exception as exc:
        return Mismatch(phase, None, "output", None, f"an output the {judge} oracle can read", _describe_error(exc))


def _run_one(backend: Backend, phase: str, problem: Problem, plan, oracle: str, expected, repeat: int = 1) -> BackendResult:
    """Run one phase in one backend and judge it.

    A backend that is not deterministic by construction (the GPU) runs the phase ``repeat`` times:
    every run's output must equal the first's exactly, and the time reported is the fastest run's
    (the first also pays one-time costs such as compiling kernels)."""
    if plan.missing:
        return BackendResult(SKIPPED, message=plan.missing)
    judge = _judge_of(backend, oracle, expected)
    if judge is None:
        return BackendResult(SKIPPED, message=SELF_JUDGED)
    runs = 1 if backend.deterministic else max(1, repeat)
    try:
        first = fastest = backend.run_phase(phase, problem, plan.values)
        run_seconds = [first.seconds]
        for k in range(2, runs + 1):
            again = backend.run_phase(phase, problem, plan.values)
            run_seconds.append(again.seconds)
            drift = first_difference(phase, first.output, again.output)
            if drift is not None:
                mismatch = dataclasses.replace(drift, query=f"{drift.query} (run {k} vs run 1)")
                return BackendResult(
                    FAIL, seconds=first.seconds, timing=first.timing, input_source=plan.source_label, mismatch=mismatch,
                    message=f"run {k} of {runs} differs from run 1: not deterministic",
                )
            fastest = min(fastest, again, key=lambda r: r.seconds)
    except PhaseNotImplemented as exc:
        return BackendResult(NOT_IMPLEMENTED, message=str(exc), input_source=plan.source_label)
    except Exception as exc:  # a CUDA error, out of memory, a bug: a failure, never a silent pass
        return BackendResult(ERROR, message=_describe_error(exc), input_source=plan.source_label)
    mismatch = _judged(judge, phase, problem, plan.values, first.output, expected)
    return BackendResult(
        status=FAIL if mismatch else PASS,
        seconds=fastest.seconds,
        timing=fastest.timing,
        transfer_seconds=fastest.transfer_seconds,
        host_seconds=fastest.host_seconds,
        setup_seconds=first.setup_seconds,
        run_seconds=run_seconds,
        input_source=plan.source_label,
        mismatch=mismatch,
        output=first.output,
        judge=_own_judge(judge, oracle),
    )


def _progress_line(vector_id: str, phase: str, backend: str, outcome: BackendResult) -> str:
    line = f"{vector_id} {phase:<9} {backend:<10} {outcome.status}"
    if outcome.seconds is not None:
        line += f" in {outcome.seconds:.4f} s"
    if outcome.transfer_seconds is not None:
        line += f" (+{outcome.transfer_seconds:.4f} s transfers)"
    if outcome.judge:
        line += f" (judged by {outcome.judge})"
    if outcome.mismatch:
        line += f": {outcome.mismatch.location()}"
    elif outcome.message and outcome.status != PASS:
        line += f": {outcome.message}"
    return line
