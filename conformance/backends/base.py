"""What a backend is to the conformance suite: something that runs a phase on given inputs and
returns the output in the reference's types, with the time of the phase measured at its boundary."""
import time
from dataclasses import dataclass

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


class Backend:
    """A prover implementation under test. Subclasses implement ``compute(phase, problem, inputs)``
    (raising PhaseNotImplemented for a phase they lack) or override ``run_phase`` to time it themselves."""

    name = "backend"
    deterministic = False
    """True when every run gives the same output by construction (pure Python): run each phase once."""

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
        start = time.perf_counter()
        output = self.compute(phase, problem, inputs)
        return PhaseRun(output=output, seconds=time.perf_counter() - start)
