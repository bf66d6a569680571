"""Generated gate cases: the GPU paths the bundled vectors (log n <= 11) never reach, proved at sizes where the
reference is too slow to give expected values, and judged by oracles instead.

Each case is made on the fly, deterministically from ``SEED``, and never checked in: a PoRep-shaped circuit
(vectors/porep_arrays.py), keys from a known trapdoor made on the device (gpu/keygen.py, keep_scalars), the
circuits' witnesses; then the GPU prover (gpu.prover.prove_on_device, the core of `python -m gpu prove`) runs
twice, once as the case's memory plan says and once the other way (max_block: the plan's blocks and ntt_h's half
table of twiddles, or one circuit at a time without the table, the path of a device too full for more: gpu/prover.py
BatchPlan), and the two runs must agree bit for bit. Every circuit of the first run is judged by gpu/trapdoor.py:

    ntt_h      the QAP identity A(x) B(x) - C(x) = h(x) (x^n - 1) at a random x     (oracle h-identity)
    msm_h, batch_add, tail_msm   each sum against the key's discrete logs          (oracle trapdoor)
    assemble   the verifier's pairing equation                                      (oracle pairing)

The phase inputs these checks read (a, b, c, h and prep's split) are not the run's own: the run consumes them, so
gpu/trapdoor.py recomputes them with the functions the prover runs, on the run's witnesses. So the ntt_h row judges
the function on these inputs, and the run's own h is judged only through its msm_h sum (against the recomputed h's
dot product with the key's discrete logs): a fault in the run's h alone fails msm_h, not ntt_h.
evaluate and prep are not judged on their own here: the h identity needs evaluate's rows to hold, and the
batch_add / tail_msm checks read prep's split. What each case reaches (gpu/msm.py kernel_window_bits, gpu/ntt.py
plan_passes) is in its ``reaches``. They run on a GPU only, as part of ``--record-gate`` or when named as
``generated:<name>`` vector arguments (`python -m conformance run generated:porep-log11 --backends gpu`). The c = 16
windows and the two-pass NTT also meet exact expected values in the gate, on the seeded vectors of
conformance/seeded.py (2^16 and 2^20).
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from reference.prover import PHASES

from .oracles import H_IDENTITY, PAIRING, TRAPDOOR
from .phases import PROVER, PROVER_ORDER, CaptureOrder
from .runner import ERROR, FAIL, PASS, SKIPPED, UNAVAILABLE, BackendResult, PhaseResult, VectorResult, _describe_error

GENERATED_PREFIX = "generated:"
SEED = "conformance-generated-gate-cases"
CHECK_SEED = 20260101
"""Seed of the random evaluation points of the h identity (gpu.trapdoor.check_circuit)."""
NOT_JUDGED = {
    "evaluate": "not judged on its own at this size: the h identity (ntt_h) needs its rows to hold",
    "prep": "not judged on its own at this size: the batch_add and tail_msm trapdoor checks read its split",
}
CHECK_PHASES = {"ntt_h": H_IDENTITY, "msm_h": TRAPDOOR, "batch_add": TRAPDOOR, "tail_msm": TRAPDOOR, "assemble": PAIRING}
"""The phase each gpu/trapdoor.py check judges (by the check's name) and its oracle."""


@dataclass(frozen=True)
class GeneratedCase:
    name: str
    log_n: int
    circuits: int
    max_block: int | None
    """Circuits at a time through evaluate -> ntt_h -> msm_h in the judged run (None: as the memory plan says; 1: also
    without ntt_h's half table of twiddles)."""
    reaches: str


GENERATED_CASES = {
    case.name: case
    for case in (
        GeneratedCase("porep-log11", 11, 3, None, "two-pass NTT (radices 2^6, 2^5); c = 8 windows; three circuits in one block; "
                      "batch_add by chunks (pattern shares 0.67-0.73, above gpu/batch_add.py PATTERN_SHARE)"),
        GeneratedCase("porep-log16", 16, 2, 1, "two-pass NTT (2^8, 2^8); c = 8 windows (H query 2^16 - 1 points); "
                      "one circuit at a time without ntt_h's half table of twiddles (the memory plan's path for a full device)"),
        GeneratedCase("porep-log17", 17, 10, None, "ten circuits in the plan's blocks (with ntt_h's half table); "
                      "batch_add of every query by circuit patterns, G1 and G2 (shares 0.25-0.30 at about 45% ones a "
                      "row, below gpu/batch_add.py PATTERN_SHARE: pattern_share)"),
        GeneratedCase("porep-log21", 21, 1, None, "three-pass NTT (2^7 each: the middle pass's hi-only twiddles, "
                      "ntt.cu TWIDDLE_HI, which no two-pass size uses); c = 16 windows over 2^21 points"),
    )
}


def split_names(arguments: list[str]) -> tuple[list[str], list[GeneratedCase]]:
    """Vector arguments without the ``generated:<name>`` ones, and those cases; InvalidInputError names an unknown one."""
    from reference.errors import InvalidInputError

    paths, cases = [], []
    for argument in arguments:
        if not argument.startswith(GENERATED_PREFIX):
            paths.append(argument)
            continue
        name = argument[len(GENERATED_PREFIX):]
        if name not in GENERATED_CASES:
            raise InvalidInputError("vectors", f"unknown generated case {argument!r}; known: "
                                    + ", ".join(GENERATED_PREFIX + n for n in GENERATED_CASES))
        cases.append(GENERATED_CASES[name])
    return paths, cases


def _check_phase(check_name: str) -> str:
    return check_name.split(":")[0].split(" ")[0] if not check_name.startswith("proof") else "assemble"


def _outcomes_from_checks(checks: list[tuple[int, object]], seconds: dict, circuits: int) -> dict[str, BackendResult]:
    """{phase: BackendResult} from (circuit, CheckResult) pairs: a phase fails at its first failing check, and is an
    error when some circuit of ``circuits`` has no check of it (a pass must mean every circuit was judged)."""
    from .compare import Mismatch

    outcomes = {}
    for phase in CHECK_PHASES:
        mine = [(k, c) for k, c in checks if _check_phase(c.name) == phase]
        failed = next(((k, c) for k, c in mine if not c.ok), None)
        unjudged = sorted(set(range(circuits)) - {k for k, _ in mine})
        timing = dict(seconds=seconds.get(phase), timing="cuda-events", input_source="own")
        if failed is None and unjudged:
            outcomes[phase] = BackendResult(ERROR, message=f"no {phase} check judged circuit(s) {', '.join(map(str, unjudged))}", **timing)
        elif failed is None:
            outcomes[phase] = BackendResult(PASS, message=f"{len(mine)} checks", **timing)
        else:
            k, check = failed
            mismatch = Mismatch(phase, k, check.name, None, "the oracle holds", check.detail or "it does not")
            outcomes[phase] = BackendResult(FAIL, mismatch=mismatch, **timing)
    for phase, why in NOT_JUDGED.items():
        outcomes[phase] = BackendResult(SKIPPED, message=why)
    return outcomes


def _same_runs(a, b) -> str | None:
    """None when two prover runs gave the same proofs and MSM sums, else what differs."""
    from reference.cli import proof_json

    if [proof_json(p) for p in a.proofs] != [proof_json(p) for p in b.proofs]:
        return "proofs"
    if a.sums != b.sums:
        return "msm_h / batch_add / tail_msm sums"
    return None


def run_case_on_gpu(case: GeneratedCase, device_index: int | None = None) -> dict[str, BackendResult]:
    """The case on the GPU (module docstring): {phase: BackendResult}."""
    import cupy

    from gpu.circuit import DeviceCircuit
    from gpu.keygen import generate_keys
    from gpu.prover import BatchPlan, GpuPhaseTimer, prove_on_device
    from gpu.trapdoor import check_circuit, check_pairing
    from reference.setup import trapdoor_from_seed
    from vectors.porep_arrays import porep_circuit, porep_witnesses

    with cupy.cuda.Device(device_index) if device_index is not None else cupy.cuda.Device():
        arrays = porep_circuit(case.log_n, SEED, xp=cupy)
        z, rs = porep_witnesses(arrays, SEED, case.circuits, cupy)
        circuit = DeviceCircuit.from_arrays(arrays)
        key = generate_keys(circuit, trapdoor_from_seed(SEED), keep_scalars=True)
        del arrays
        other_block = 1 if case.max_block != 1 else None
        runs = []
        try:
            for max_block in (case.max_block, other_block):
                progress = CaptureOrder()  # each run's own: a failure in the second is named where the second stopped
                plan = BatchPlan(case.circuits, max_block, 0, 0, half_table=False) if max_block else None
                runs.append(prove_on_device(circuit, key, z, rs, timer=GpuPhaseTimer(), plan=plan, capture=progress))
        except Exception as exc:  # reported on the phase the prover stopped in (after assemble: on assemble)
            stopped = progress.next_phase(case.circuits) or PROVER_ORDER[-1]
            run = f"run {len(runs) + 1} (blocks of {max_block or 'the plan'}): "
            return {p: BackendResult(ERROR if p == stopped else SKIPPED,
                                     message=run + _describe_error(exc) if p == stopped else f"the prover stopped in {stopped}")
                    for p in PHASES}
        seconds = {p: ms / 1000.0 for p, ms in runs[0].ms.items()}
        rng = random.Random(CHECK_SEED)
        checks = []
        for k in range(case.circuits):
            one = z[k : k + 1]
            checks.append((k, check_pairing(key, circuit, one, runs[0].proofs[k])))
            checks += [(k, c) for c in check_circuit(circuit, key, one, runs[0].sums[k], rng)]
        outcomes = _outcomes_from_checks(checks, seconds, case.circuits)
        differs = _same_runs(runs[0], runs[1])
        if differs:
            from .compare import Mismatch

            first = "msm_h" if "sums" in differs else "assemble"
            outcomes[first] = BackendResult(FAIL, mismatch=Mismatch(first, None, f"{differs} (blocks of {other_block or 'the plan'} vs "
                                                                   f"{case.max_block or 'the plan'})", None, "the same", "different"),
                                            message="the two block sizes give different results")
        return outcomes


def check_generated(case: GeneratedCase, backends, unavailable: dict | None = None, progress=None) -> VectorResult:
    """The case for every backend that is a GPU (others: skipped, the reference being too slow at this size)."""
    say = progress or (lambda message: None)
    label = f"{GENERATED_PREFIX}{case.name} [{PROVER}]"
    result = VectorResult(label, f"generated from {SEED!r}", case.log_n, case.circuits, True, mode=PROVER)
    phases = {p: PhaseResult(p, CHECK_PHASES.get(p, "-")) for p in PHASES}
    for backend in backends:
        if not backend.name.startswith("gpu"):
            for p in PHASES:
                phases[p].backends[backend.name] = BackendResult(SKIPPED, message="generated cases run on a GPU only")
            continue
        try:
            outcomes = run_case_on_gpu(case, getattr(backend, "device_index", None))
        except Exception as exc:  # building the case failed: an error in every phase
            outcomes = {p: BackendResult(ERROR, message=_describe_error(exc)) for p in PHASES}
        for p, outcome in outcomes.items():
            phases[p].backends[backend.name] = outcome
            say(f"{label} {p:<9} {backend.name:<10} {outcome.status}" + (f": {outcome.mismatch.location()}" if outcome.mismatch else ""))
    for name, reason in (unavailable or {}).items():
        for p in PHASES:
            phases[p].backends[name] = BackendResult(UNAVAILABLE, message=reason)
    result.phases = [phases[p] for p in PHASES]
    return result
