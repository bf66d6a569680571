"""The prover's phase graph as the conformance suite sees it: what each phase consumes, and where
its inputs come from in each mode.

    evaluate -> ntt_h -> msm_h ----------------.
    prep -> batch_add, tail_msm ---------------+-> assemble

Every phase output uses the reference's types (``reference.prover.PhaseOutputs`` fields): a list with
one entry per circuit (``Evaluations``, h coefficients, G1 point, ``QuerySums``, ``Proof``), except
``prep``, one ``Prep`` for the whole call.

Modes:

* isolated (default): a phase's inputs are the vector's *expected* outputs of the phases it
  consumes (ntt_h gets the expected a, b, c; assemble gets the expected msm_h, batch_add,
  tail_msm), so one faulty phase cannot make the phases after it fail too. Where the vector has no
  expected value, the output that passed its oracle check in this run is used instead.
* end-to-end: each backend feeds itself, as a real prover does; where a backend did not produce a
  phase it needs (not implemented, or not selected), the expected value stands in, and the report
  says so.
* prover: each backend's real prover entry point runs once per repeat on all circuits of the vector (the GPU:
  gpu.multi.prove_multi, what `python -m gpu prove` runs, with a capture hook at every phase boundary; the
  reference: reference.prover.prove) and every captured phase output is judged; a phase's oracle inputs are
  the backend's own earlier outputs, as in end-to-end mode. The results are labelled "<vector id> [prover]".
"""
from dataclasses import dataclass, field

from reference.domain import EvaluationDomain
from reference.errors import InvalidInputError
from reference.prover import PHASES
from reference.r1cs import witness_vector
from vectors.format import Vector

MODES = ("isolated", "end-to-end", "prover")
PROVER = "prover"
PROVER_ORDER = ("prep", "evaluate", "ntt_h", "msm_h", "batch_add", "tail_msm", "assemble")
"""The order gpu/prover.py runs the phases in (prep first, for its memory plan; evaluate -> ntt_h -> msm_h once a
block of circuits, FRONT_PHASES): in prover mode an error is reported on the phase it stopped in (CaptureOrder)."""

FRONT_PHASES = ("evaluate", "ntt_h", "msm_h")
"""The phases gpu/prover.py runs once for each block of circuits (its _front), between prep and batch_add."""


class CaptureOrder:
    """Where gpu/prover.py is, from the captures it has made: a capture hook of its own (gpu.prover's ``capture``
    argument), or fed each capture by one; after a run raised, ``next_phase`` is the phase it stopped in."""

    def __init__(self):
        self._last: tuple[str, int, int] | None = None  # (phase, first circuit, circuits) of the latest capture

    def __call__(self, phase: str, first_circuit: int, outputs) -> None:
        """A capture of ``phase`` from ``first_circuit`` with gpu/prover.py's ``outputs``: for the front phases a
        block's device arrays ((a, b, c) for evaluate), whose first axis is the block's circuits; the other phases run
        once for all circuits (prep's splits, the query sums' dicts, the proofs), so their outputs are not read."""
        count = 0
        if phase in FRONT_PHASES:
            count = int((outputs[0] if phase == "evaluate" else outputs).shape[0])
        self._last = (phase, first_circuit, count)

    def next_phase(self, circuits: int) -> str | None:
        """The phase the prover runs after the latest capture: prep, then evaluate -> ntt_h -> msm_h for each block
        of circuits, then batch_add, tail_msm and assemble; None after assemble (the proofs' download)."""
        if self._last is None:
            return PROVER_ORDER[0]
        phase, first, count = self._last
        if phase == FRONT_PHASES[-1] and first + count < circuits:
            return FRONT_PHASES[0]  # the next block
        following = PROVER_ORDER.index(phase) + 1
        return PROVER_ORDER[following] if following < len(PROVER_ORDER) else None


PHASE_INPUTS: dict[str, tuple[str, ...]] = {
    "evaluate": (),
    "ntt_h": ("evaluate",),
    "msm_h": ("ntt_h",),
    "prep": (),
    "batch_add": ("prep",),
    "tail_msm": ("prep",),
    "assemble": ("msm_h", "batch_add", "tail_msm"),
}
"""The phases whose outputs each phase consumes (besides the vector itself: R1CS, keys, witnesses, r, s)."""

SOURCE_EXPECTED = "expected"
SOURCE_VERIFIED = "verified"
SOURCE_OWN = "own"
"""Where an input came from: the vector's expected output, an output of this run that passed its
check, or (end-to-end) the backend's own output of the earlier phase."""


@dataclass
class Problem:
    """One vector ready to prove: its domain and every circuit's witness z = [1, inputs..., aux...]."""

    vector: Vector
    domain: EvaluationDomain
    zs: list[list[int]]
    memo: dict = field(default_factory=dict)
    """Per-vector cache for the oracles (discrete logs of the keys, ...)."""

    @classmethod
    def from_vector(cls, vector: Vector) -> "Problem":
        """The vector with its domain and witnesses z (sizes and ranges checked by witness_vector)."""
        r1cs = vector.r1cs
        zs = [witness_vector(r1cs, w.public_inputs, w.aux, c) for c, w in enumerate(vector.witnesses)]
        return cls(vector=vector, domain=EvaluationDomain(r1cs.log_n, vector.convention), zs=zs)

    @property
    def name(self) -> str:
        return self.vector.id


def expected_output(vector: Vector, phase: str):
    """The vector's expected output of ``phase`` (reference types), or None where it has none."""
    if phase == "prep":
        return vector.expected_prep
    if any(case.expected is None for case in vector.circuits):
        return None
    return [getattr(case.expected, phase) for case in vector.circuits]


@dataclass
class InputPlan:
    """The inputs of one phase for one backend: {consumed phase: output}, and where each came from."""

    values: dict
    sources: dict[str, str]
    missing: str | None = None
    """Why the phase cannot run (an input exists nowhere), or None."""

    @property
    def source_label(self) -> str:
        """'expected', 'own', ... or 'mixed (ntt_h: own, ...)'; '-' for a phase with no phase inputs."""
        kinds = set(self.sources.values())
        if not kinds:
            return "-"
        if len(kinds) == 1:
            return kinds.pop()
        return "mixed (" + ", ".join(f"{p}: {s}" for p, s in self.sources.items()) + ")"


def plan_inputs(phase: str, mode: str, vector: Vector, verified: dict, own: dict) -> InputPlan:
    """The inputs of ``phase``: in isolated mode the expected outputs (else verified ones); in
    end-to-end mode the backend's own outputs ``own`` (else expected, else verified)."""
    values, sources = {}, {}
    for needed in PHASE_INPUTS[phase]:
        candidates = [(SOURCE_EXPECTED, expected_output(vector, needed)), (SOURCE_VERIFIED, verified.get(needed))]
        if mode == "end-to-end":
            candidates.insert(0, (SOURCE_OWN, own.get(needed)))
        source, value = next(((s, v) for s, v in candidates if v is not None), (None, None))
        if value is None:
            return InputPlan(values, sources, missing=f"no input for {phase}: {needed} has no expected value and no passing output")
        values[needed], sources[needed] = value, source
    return InputPlan(values, sources)


def check_phases(names) -> tuple[str, ...]:
    """The phases named, in the prover's order; an InvalidInputError names an unknown one."""
    unknown = [p for p in names if p not in PHASES]
    if unknown:
        raise InvalidInputError("--phases", f"unknown phase {unknown[0]!r}; the phases are {', '.join(PHASES)}")
    return tuple(p for p in PHASES if p in set(names))
