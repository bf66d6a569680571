"""The whole reference prover: the phases in order, for many circuits of one shape in one call.

    evaluate -> ntt_h -> msm_h              (per circuit)
    prep -> batch_add, tail_msm             (all circuits together: one split, shared tail layout)
    assemble                                (per circuit, with its own r and s)

Each phase is timed once, at its boundary (``PhaseTimer``), never inside its logic. The group arithmetic of msm_h,
batch_add and tail_msm is ``curve``'s (reference/msm.py ``ReferenceCurve``: the pure-Python definition by default).
"""
import time
from dataclasses import dataclass, field

from .assemble import Proof, assemble
from .batch_add import batch_add
from .domain import BELLMAN, DomainConvention, EvaluationDomain
from .evaluate import Evaluations, evaluate_satisfied
from .keys import ProvingKey, QuerySums
from .msm import REFERENCE_CURVE
from .msm_h import msm_h
from .ntt_h import ntt_h
from .prep import Prep, prep
from .r1cs import R1CS, witness_vector
from .tail_msm import tail_msm

PHASES = ("evaluate", "ntt_h", "msm_h", "prep", "batch_add", "tail_msm", "assemble")
"""The prover phases, in order; the same names are used in gpu/ and conformance/."""
CURVE_PHASES = ("msm_h", "batch_add", "tail_msm")
"""The phases whose group arithmetic is ``prove``'s ``curve``; the others are pure Python whatever the curve."""


@dataclass(frozen=True)
class Witness:
    """One circuit's private data: its public inputs (without ONE), aux assignment and blinding r, s."""

    public_inputs: list[int]
    aux: list[int]
    r: int
    s: int


@dataclass
class PhaseOutputs:
    """Everything the phases produced, per circuit where the phase is per circuit."""

    evaluate: list[Evaluations] = field(default_factory=list)
    ntt_h: list[tuple[int, ...]] = field(default_factory=list)
    msm_h: list[tuple] = field(default_factory=list)
    prep: Prep | None = None
    batch_add: list[QuerySums] = field(default_factory=list)
    tail_msm: list[QuerySums] = field(default_factory=list)
    assemble: list[Proof] = field(default_factory=list)


    def circuit(self, c: int) -> "CircuitOutputs":
        """Circuit c's view: its own outputs of the per-circuit phases, and the shared prep."""
        return CircuitOutputs(
            evaluate=self.evaluate[c],
            ntt_h=self.ntt_h[c],
            msm_h=self.msm_h[c],
            prep=self.prep,
            batch_add=self.batch_add[c],
            tail_msm=self.tail_msm[c],
            assemble=self.assemble[c],
        )


@dataclass(frozen=True)
class CircuitOutputs:
    """One circuit's phase outputs (prep is the whole batch's split, shared by its circuits)."""

    evaluate: Evaluations
    ntt_h: tuple[int, ...]
    msm_h: tuple
    prep: Prep | None
    batch_add: QuerySums
    tail_msm: QuerySums
    assemble: Proof


def wall_clock_seconds(fn, args) -> tuple[object, float]:
    """(fn(*args), the seconds it took by the wall clock)."""
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


class PhaseTimer:
    """Time per phase, measured once around each whole phase (never inside it) and summed over calls: ``totals``
    {phase: time in ``unit``}. This one reads the wall clock in seconds; gpu/prover.py's GpuPhaseTimer is the same
    timer reading CUDA events in milliseconds (it overrides ``clock`` and ``unit`` only)."""

    unit = "s"

    def __init__(self, progress=None):
        self.totals: dict[str, float] = {}
        self._progress = progress

    def clock(self, fn, args) -> tuple[object, float]:
        """(fn(*args), the time it took in ``unit``)."""
        return wall_clock_seconds(fn, args)

    def run(self, phase: str, fn, *args):
        if self._progress:
            self._progress(f"{phase} ...")
        result, elapsed = self.clock(fn, args)
        self.totals[phase] = self.totals.get(phase, 0.0) + elapsed
        if self._progress:
            self._progress(f"{phase} done in {self.totals[phase]:.2f} {self.unit}")
        return result


def prove(
    r1cs: R1CS,
    pk: ProvingKey,
    witnesses: list[Witness],
    convention: DomainConvention = BELLMAN,
    progress=None,
    curve=REFERENCE_CURVE,
) -> tuple[PhaseOutputs, dict[str, float]]:
    """Run every phase for every circuit; returns (all phase outputs, seconds per phase).

    Raises UnsatisfiedConstraintError naming the first failing constraint before any proof exists.
    """
    timer = PhaseTimer(progress)
    out = PhaseOutputs()
    domain = EvaluationDomain(r1cs.log_n, convention)
    zs = [witness_vector(r1cs, w.public_inputs, w.aux, c) for c, w in enumerate(witnesses)]

    out.evaluate = timer.run("evaluate", lambda: [evaluate_satisfied(r1cs, z, convention, c) for c, z in enumerate(zs)])
    out.ntt_h = timer.run("ntt_h", lambda: [ntt_h(e, domain, c) for c, e in enumerate(out.evaluate)])
    out.msm_h = timer.run("msm_h", lambda: [msm_h(h, pk.h, curve) for h in out.ntt_h])
    out.prep = timer.run("prep", prep, zs, r1cs.num_inputs, r1cs.num_aux, pk.density)
    out.batch_add = timer.run("batch_add", batch_add, out.prep, pk, curve)
    out.tail_msm = timer.run("tail_msm", tail_msm, out.prep, pk, curve)
    out.assemble = timer.run(
        "assemble",
        lambda: [
            assemble(pk.vk, out.msm_h[c], out.batch_add[c], out.tail_msm[c], w.r, w.s) for c, w in enumerate(witnesses)
        ],
    )
    return out, timer.totals
