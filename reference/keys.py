"""The Groth16 keys in bellman's layout, and the per-query sums the MSM phases produce.

Notation follows the Groth16 paper and bellman: tau, alpha, beta, gamma, delta are the setup
secrets; u_i, v_i, w_i the QAP polynomials of variable i (its A, B, C columns interpolated over
the domain); Z(x) = x^n - 1; G1, G2 the generators. Points are py_ecc optimized projective tuples.
"""
from dataclasses import dataclass

from .r1cs import Density


@dataclass(frozen=True)
class VerifyingKey:
    alpha_g1: tuple
    """alpha * G1"""
    beta_g1: tuple
    """beta * G1 (bellman keeps it in the verifying key; the prover uses it for C)"""
    beta_g2: tuple
    """beta * G2"""
    gamma_g2: tuple
    """gamma * G2"""
    delta_g1: tuple
    """delta * G1"""
    delta_g2: tuple
    """delta * G2"""
    ic: tuple
    """(beta * u_i(tau) + alpha * v_i(tau) + w_i(tau)) / gamma * G1 for each input i (ONE first)"""


@dataclass(frozen=True)
class ProvingKey:
    vk: VerifyingKey
    h: tuple
    """bellman: tau^i * Z(tau) / delta * G1 for i in 0..n-2 (n - 1 points; h has degree <= n - 2).
    snarkjs: n points, one per coset value (reference/setup.py ``h_query_scalars``)."""
    l: tuple
    """(beta * u_i(tau) + alpha * v_i(tau) + w_i(tau)) / delta * G1 for each aux variable i (identity points kept)"""
    a: tuple
    """u_i(tau) * G1 for every input, then for the aux variables with a_aux density (identity points dropped)"""
    b_g1: tuple
    """v_i(tau) * G1 for the inputs and aux variables in the B density (identity points dropped)"""
    b_g2: tuple
    """v_i(tau) * G2, the same variables as b_g1"""
    density: Density
    """Which variables the A and B queries hold a point for (bellman's density trackers)."""


QUERIES = ("l", "a", "b_g1", "b_g2")
"""The four queries that batch_add and tail_msm sum over (H is summed by msm_h)."""


@dataclass(frozen=True)
class QuerySums:
    """One circuit's partial sums over the four queries (batch_add's or tail_msm's output)."""

    l: tuple
    """G1: sum over the L query"""
    a: tuple
    """G1: sum over the A query"""
    b_g1: tuple
    """G1: sum over the B_G1 query"""
    b_g2: tuple
    """G2: sum over the B_G2 query"""
