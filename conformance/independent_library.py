"""The independent-library oracle: MSMs and the Groth16 pairing check recomputed by arkworks.

py-arkworks-bls12381 (arkworks' BLS12-381 through Python bindings; the optional extra ``fast``, chosen by
measurement in bench/RESULTS_fast_library.md) is a second implementation of the curve, written by other
people in another language. It judges (``python -m conformance run --oracle-library arkworks``):

* msm_h: sum_i h_i * H_i from the phase's input h (reference/msm_h.py's equation);
* batch_add: per query, the sum of the points whose bitmap bit is set (reference/batch_add.py);
* tail_msm: per query, sum_k tail_scalars[k] * Q[tail_indices[k]] (reference/tail_msm.py);
* assemble: e(A, B) e(-alpha, beta) e(-X, gamma) e(-C, delta) = 1 with X = sum_i x_i IC_i (x_0 = 1),
  reference/verifier.py's equation, as one arkworks pairing check.

Points, scalars and results cross over through vectors/fast_library.py, the one binding of the library;
the sums come back as py_ecc points, so the comparison is the usual exact one (conformance/compare.py).
This module is not imported by the prover or the reference: only the judge uses it.
"""
from py_ecc.optimized_bls12_381 import Z1, Z2

from reference.errors import InvalidInputError
from reference.keys import QuerySums
from reference.prep import Prep, bitmap_bits

from vectors import fast_library
from vectors.fast_library import (  # noqa: F401 (the names tests and oracles.py take from here)
    ARKWORKS,
    DISTRIBUTION,
    ArkworksCurve,
    PACKAGE,
    msm as library_msm,
    pairing_product_is_one,
    to_library_scalar,
    unavailable_reason,
    verifies as verifies_by_library,
)

from .phases import Problem

LIBRARIES = (ARKWORKS,)
"""The names --oracle-library accepts."""
PHASES = ("msm_h", "batch_add", "tail_msm", "assemble")
"""The phases this oracle judges; the others keep the judge --oracle chooses."""
QUERY_KEYS = {"l": ("l", "l"), "a": ("a", "a"), "b_g1": ("b_g1", "b"), "b_g2": ("b_g2", "b")}
"""QuerySums field -> (proving-key query, Prep split): B_G1 and B_G2 share B's split (reference/prep.py)."""


def load_library(name: str = ARKWORKS):
    """The library module, or InvalidInputError('--oracle-library', ...) when unknown or not installed."""
    if name not in LIBRARIES:
        raise InvalidInputError("--oracle-library", f"unknown library {name!r}; the libraries are {', '.join(LIBRARIES)}")
    if not fast_library.available():
        raise InvalidInputError("--oracle-library", fast_library.unavailable_reason())
    return fast_library.load_library()


# ---------------------------------------------------------------------------------------------
# The phases


def _curve(problem: Problem) -> ArkworksCurve:
    """The library's arithmetic (vectors/fast_library.py), one object per problem: it converts each key query to
    library points once and remembers them for every circuit and phase."""
    if "library_curve" not in problem.memo:
        problem.memo["library_curve"] = ArkworksCurve()
    return problem.memo["library_curve"]


def _identity(query: str) -> tuple:
    return Z2 if query == "b_g2" else Z1


def library_msm_h(problem: Problem, hs) -> list:
    """Per circuit: sum_i h_i * H_i."""
    return [_curve(problem).msm(problem.vector.pk.h, list(h), Z1) for h in hs]


def library_batch_add(problem: Problem, prep: Prep) -> list[QuerySums]:
    """Per circuit and query: the sum of the points whose bitmap bit is set."""
    pk, curve = problem.vector.pk, _curve(problem)

    def selected(field: str, circuit: int) -> tuple:
        query, split = QUERY_KEYS[field]
        points = getattr(pk, query)
        bits = bitmap_bits(getattr(prep, split).bitmaps[circuit], len(points))
        return curve.sum_at(points, [i for i, bit in enumerate(bits) if bit], _identity(field))

    return [QuerySums(**{f: selected(f, c) for f in QUERY_KEYS}) for c in range(len(prep.l.bitmaps))]


def library_tail_msm(problem: Problem, prep: Prep) -> list[QuerySums]:
    """Per circuit and query: sum_k tail_scalars[k] * Q[tail_indices[k]]."""
    pk, curve = problem.vector.pk, _curve(problem)

    def tail(field: str, circuit: int) -> tuple:
        query, split_name = QUERY_KEYS[field]
        split = getattr(prep, split_name)
        return curve.msm_at(getattr(pk, query), list(split.tail_indices), list(split.tail_scalars[circuit]), _identity(field))

    return [QuerySums(**{f: tail(f, c) for f in QUERY_KEYS}) for c in range(len(prep.l.tail_scalars))]


def expected_by_library(phase: str, problem: Problem, inputs: dict):
    """The library's value of an MSM phase from the phase's inputs."""
    if phase == "msm_h":
        return library_msm_h(problem, inputs["ntt_h"])
    if phase == "batch_add":
        return library_batch_add(problem, inputs["prep"])
    if phase == "tail_msm":
        return library_tail_msm(problem, inputs["prep"])
    raise ValueError(f"the {ARKWORKS} oracle computes no expected value for {phase}")

