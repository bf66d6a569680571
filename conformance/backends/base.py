"""What a backend is to the conformance suite: something that runs a phase on given inputs and
returns the output in the reference's types, with the time of the phase measured at its boundary."""
from dataclasses import dataclass, field

from reference.prover import PHASES, wall_clock_seconds

from ..phases import Problem

WALL_CLOCK = "wall-clock"
CUDA_EVENTS = "cuda-events"


class PhaseNotImplemented(Exception):
    """The backend has no implementation of this phase yet: reported as 'not implemented', which is
    neither a pass nor a failure."""


@dataclass(frozen=True)
class PhaseRun:
    """One phase's output and its time in one backend."""

    output: object
    """Reference types: the PhaseOutputs field of the phase (a list per circuit, or one Prep)."""
    seconds: float
    """The phase itself, measured at its boundary (the reference: wall clock; GPU: CUDA events)."""
    timing: str = WALL_CLOCK
    transfer_seconds: float | None = None
    """Host <-> device copies (GPU only; CUDA events), reported apart from the phase."""
    host_seconds: float | None = None
    """Host-side conversion between the reference's ints/points and device words (GPU only; wall clock)."""
    setup_seconds: float | None = None
    """One-time work for the vector done in this phase, e.g. uploading the proving key (GPU only)."""


@dataclass
class ProverRun:
    """One whole-prover call (conformance --mode prover): each phase's output as captured at its boundary
    (reference types, every circuit), and its time. A phase missing from ``outputs`` was not reached."""

    outputs: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    timing: str = WALL_CLOCK
    label: str = ""
    """How this run differs from the others of the same vector (e.g. 'blocks of one circuit'), or ''."""
    error: BaseException | None = None
    """What the prover raised, if it did."""
    stopped: str | None = None
    """Where it raised, when the backend can tell (the GPU's capture order: conformance/phases.py CaptureOrder); else
    the runner takes the first phase not captured for every circuit."""


class Backend:
    """A prover implementation under test. Subclasses implement ``compute(phase, problem, inputs)``
    (raising PhaseNotImplemented for a phase they lack) or override ``run_phase`` to time it themselves."""

    name = "backend"
    deterministic = False
    """True when every run gives the same output by construction (pure Python): run each phase once."""
    is_reference = False
    """True for the reference implementation itself, which the 'reference' oracle cannot judge (it would compare the
    reference with itself): the expected value judges it there, or nothing (conformance/runner.py _judge_of)."""

    def unavailable_reason(self) -> str | None:
        """None when the backend can run here, else a sentence saying why not."""
        return None

    def describe(self) -> dict:
        """Facts for the report (device model, versions)."""
        return {}

    def compute(self, phase: str, problem: Problem, inputs: dict):
        """The output of ``phase`` for every circuit of ``problem`` from ``inputs`` (phases.PHASE_INPUTS)."""
        raise PhaseNotImplemented(f"{self.name} does not implement {phase}")

    def run_phase(self, phase: str, problem: Problem, inputs: dict) -> PhaseRun:
        """compute() timed by the wall clock around the whole phase (never inside it)."""
        output, seconds = wall_clock_seconds(self.compute, (phase, problem, inputs))
        return PhaseRun(output=output, seconds=seconds)

    def run_prover(self, problem: Problem, run_index: int = 0) -> ProverRun:
        """The whole prover on ``problem`` with each phase's output captured (--mode prover). By default the
        backend's own phases composed in the prover's order, each fed the outputs of the ones before it;
        a backend with a real prover entry point overrides this to run that instead. ``run_index``: which of
        the repeated runs this is (a backend may vary how it stages the work between runs)."""
        run = ProverRun()
        order = ("prep",) + tuple(p for p in PHASES if p != "prep")
        from ..phases import PHASE_INPUTS

        for phase in order:
            try:
                done = self.run_phase(phase, problem, {needed: run.outputs[needed] for needed in PHASE_INPUTS[phase]})
            except Exception as exc:  # the runner reports it on this phase
                run.error = exc
                return run
            run.outputs[phase], run.seconds[phase], run.timing = done.output, done.seconds, done.timing
        return run
