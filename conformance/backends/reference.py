"""The reference prover (reference/) as a conformance backend: each phase over all circuits, exactly
as reference/prover.py runs it, timed by the wall clock at the phase boundary."""
import platform

import py_ecc

from reference.assemble import assemble
from reference.batch_add import batch_add
from reference.evaluate import evaluate
from reference.msm_h import msm_h
from reference.ntt_h import ntt_h
from reference.prep import prep
from reference.tail_msm import tail_msm

from reference.prover import PHASES
from reference.prover import prove as reference_prove

from ..phases import Problem
from .base import Backend, ProverRun


def _evaluate(problem: Problem, inputs: dict):
    vector = problem.vector
    return [evaluate(vector.r1cs, z, vector.convention, c) for c, z in enumerate(problem.zs)]


def _ntt_h(problem: Problem, inputs: dict):
    return [ntt_h(evals, problem.domain, c) for c, evals in enumerate(inputs["evaluate"])]


def _msm_h(problem: Problem, inputs: dict):
    return [msm_h(h, problem.vector.pk.h) for h in inputs["ntt_h"]]


def _prep(problem: Problem, inputs: dict):
    r1cs = problem.vector.r1cs
    return prep(problem.zs, r1cs.num_inputs, r1cs.num_aux, problem.vector.pk.density)


def _batch_add(problem: Problem, inputs: dict):
    return batch_add(inputs["prep"], problem.vector.pk)


def _tail_msm(problem: Problem, inputs: dict):
    return tail_msm(inputs["prep"], problem.vector.pk)


def _assemble(problem: Problem, inputs: dict):
    vk = problem.vector.pk.vk
    return [
        assemble(vk, inputs["msm_h"][c], inputs["batch_add"][c], inputs["tail_msm"][c], w.r, w.s)
        for c, w in enumerate(problem.vector.witnesses)
    ]


REFERENCE_PHASES = {
    "evaluate": _evaluate,
    "ntt_h": _ntt_h,
    "msm_h": _msm_h,
    "prep": _prep,
    "batch_add": _batch_add,
    "tail_msm": _tail_msm,
    "assemble": _assemble,
}


def reference_phase(phase: str, problem: Problem, inputs: dict):
    """The reference's output of ``phase`` for every circuit of ``problem``, from ``inputs``
    ({consumed phase: output}, see phases.PHASE_INPUTS)."""
    return REFERENCE_PHASES[phase](problem, inputs)


class ReferenceBackend(Backend):
    """reference/: pure Python ints mod r and py_ecc points."""

    name = "reference"
    deterministic = True
    is_reference = True

    def describe(self) -> dict:
        return {"implementation": "reference/ (pure Python, py_ecc)", "python": platform.python_version(), "py_ecc": getattr(py_ecc, "__version__", "unknown")}

    def compute(self, phase: str, problem: Problem, inputs: dict):
        return reference_phase(phase, problem, inputs)

    def run_prover(self, problem: Problem, run_index: int = 0) -> ProverRun:
        """reference.prover.prove on the vector: the end-to-end reference."""
        vector = problem.vector
        outputs, seconds = reference_prove(vector.r1cs, vector.pk, vector.witnesses, vector.convention)
        return ProverRun(outputs={p: getattr(outputs, p) for p in PHASES}, seconds=dict(seconds))
