"""Checks of large GPU proofs that need no reference prover: the pairing, the trapdoor, and the QAP identity.

At 2^16 .. 2^27 constraints the pure-Python reference cannot produce expected outputs, but keys made
from known secrets (gpu/keygen.py, test-only) give every key point's discrete log k_i (key.scalars),
so each MSM-type phase has an expected value computed with field arithmetic only:

    msm_h      H      = (sum_i h_i k^H_i) * G1                       (k^H_i = tau^i Z(tau) / delta)
    batch_add  S_Q    = (sum_{i : bit i set} k^Q_i) * G              for Q in L, A, B_G1 (G1) and B_G2 (G2)
    tail_msm   T_Q    = (sum_j t_j k^Q_{idx_j}) * G                  t, idx: prep's tail scalars and positions
    ntt_h      A(x) B(x) - C(x) = h(x) (x^n - 1) at a random x      A(x) = sum_j a_j l_j(x), h(x) = sum_i h_i x^i
    proof      A, C in G1, B in G2; e(A, B) = e(alpha, beta) e(sum x_i IC_i, gamma) e(C, delta)  (reference/verifier.py)

The sums are dot products over Fr on the device (``fr_dot``: element-wise products, then a tree of
additions, gpu/field.py's operations); the one scalar multiplication per check runs on the host with py_ecc.
The phase inputs (a, b, c, h and prep's split) are recomputed for the circuit being checked, by the same
functions the prover runs.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
from py_ecc.optimized_bls12_381 import G1, G2, multiply

from reference.curve import is_identity, points_eq, to_affine_batch
from reference.field import R
from reference.verifier import proof_point_outside_its_group, verify

from .circuit import DeviceCircuit
from .evaluate import evaluate
from .field import apply_op, to_ints, to_montgomery
from .keygen import DeviceKey, _lagrange_at, _powers
from .limbs import FR, limbs_to_ints
from .ntt_h import ntt_h
from .prep import prep
from .prover import QUERY_PHASE_NAMES, CircuitSums


@dataclass
class CheckResult:
    name: str
    ok: bool
    detail: str = ""


def fr_sum(x) -> int:
    """sum_i x_i mod r of a Montgomery device array (count, 8), as a plain int (a tree of element-wise additions)."""
    import cupy

    x = x.reshape(-1, FR.num_limbs)
    if x.shape[0] == 0:
        return 0
    while x.shape[0] > 1:
        half = x.shape[0] // 2
        summed = apply_op("add", cupy.ascontiguousarray(x[:half]), cupy.ascontiguousarray(x[half : 2 * half]))
        x = cupy.concatenate([summed, x[2 * half :]]) if x.shape[0] % 2 else summed
    return to_ints(x)[0]


def fr_dot(a, b) -> int:
    """sum_i a_i b_i mod r for Montgomery device arrays of one shape (count, 8)."""
    return fr_sum(apply_op("mul", a, b))


def _point_check(name: str, got, log: int, g2: bool = False) -> CheckResult:
    """Every coordinate is compared (reference.curve.points_eq), not an encoding: a compressed encoding keeps only y's sign, so a
    point with a wrong y could encode like the right one."""
    expected = multiply(G2 if g2 else G1, log)
    ok = points_eq(got, expected)
    return CheckResult(name, ok, "" if ok else f"expected affine {_short(expected)}, got {_short(got)}")


def _short(point) -> str:
    if is_identity(point):
        return "the identity"
    x, y = to_affine_batch([point])[0]
    return f"(x = {str(x)[:20]}..., y = {str(y)[:20]}...)"


def _bits_mask(bitmap_row, count: int):
    """(count,) bool device array from one circuit's u64 bitmap row (bit i = bit i % 64 of word i // 64)."""
    import cupy

    shifts = cupy.arange(64, dtype=cupy.uint64)
    return ((bitmap_row[:, None] >> shifts) & cupy.uint64(1)).astype(bool).reshape(-1)[:count]


def check_circuit(circuit: DeviceCircuit, key: DeviceKey, z_plain_one, sums: CircuitSums, rng: random.Random) -> list[CheckResult]:
    """Every trapdoor check of one circuit (module docstring); ``z_plain_one`` (1, V, 8) canonical limbs."""
    import cupy

    if key.scalars is None:
        raise ValueError("the key was generated without keep_scalars=True: no discrete logs to check against")
    results = []
    a, b, c = evaluate(circuit.csr, z_plain_one)
    h = cupy.ascontiguousarray(ntt_h(a, b, c, circuit.log_n)[0])
    x = rng.randrange(1, R)
    lagrange = _lagrange_at(circuit.log_n, x)
    a_x, b_x, c_x = (fr_dot(cupy.ascontiguousarray(v[0]), lagrange) for v in (a, b, c))
    del a, b, c, lagrange
    h_x = fr_dot(h, _powers(x, h.shape[0]))
    lhs, rhs = (a_x * b_x - c_x) % R, h_x * (pow(x, circuit.n, R) - 1) % R
    results.append(CheckResult("ntt_h: A(x)B(x) - C(x) = h(x)(x^n - 1) at a random x", lhs == rhs,
                               "" if lhs == rhs else f"{lhs:#x} != {rhs:#x}"))
    k_h = cupy.asarray(key.scalars["h"])
    results.append(_point_check("msm_h against the trapdoor", sums.h, fr_dot(h, k_h)))
    del h, k_h

    splits = prep(z_plain_one, circuit.num_inputs, circuit.num_aux, circuit.density, circuit.device_query_variables())
    for query, split_name in QUERY_PHASE_NAMES:
        split = splits[split_name]
        logs = cupy.asarray(key.scalars["b" if split_name == "b" else query])
        g2 = query == "b_g2"
        mask = _bits_mask(split.bitmaps[0], logs.shape[0])
        selected = cupy.where(mask[:, None], logs, cupy.uint32(0)).astype(cupy.uint32)
        results.append(_point_check(f"batch_add {query} against the trapdoor", getattr(sums.batch, query), fr_sum(selected), g2))
        del mask, selected
        tail = to_montgomery(split.tail_scalars[0])  # (out of place: B_G1 and B_G2 share the split)
        tail_logs = cupy.ascontiguousarray(logs[split.tail_indices])
        results.append(_point_check(f"tail_msm {query} against the trapdoor", getattr(sums.tail, query), fr_dot(tail, tail_logs), g2))
        del tail, tail_logs, logs
    return results


def check_pairing(key: DeviceKey, circuit: DeviceCircuit, z_plain_one, proof) -> CheckResult:
    """The proof's points in their groups (reference/verifier.py proof_point_outside_its_group), then the verifier's
    pairing equation, public inputs read from the device witness."""
    name = "proof verifies (subgroups and pairing check)"
    outside = proof_point_outside_its_group(proof)
    if outside is not None:
        point, group, problem = outside
        return CheckResult(name, False, f"proof.{point} {problem} of {group.upper()}")
    limbs = np.asarray(z_plain_one[0, 1 : circuit.num_inputs].get())
    public = limbs_to_ints(limbs) if circuit.num_inputs > 1 else []
    return CheckResult(name, verify(key.vk, public, proof))
