"""The Groth16 keys in bellman's layout, and the per-query sums the MSM phases produce.

Notation follows the Groth16 paper and bellman: tau, alpha, beta, gamma, delta are the setup
secrets; u_i, v_i, w_i the QAP polynomials of variable i (its A, B, C columns interpolated over
the domain); Z(x) = x^n - 1; G1, G2 the generators. Points are py_ecc optimized projective tuples.
"""
from dataclasses import dataclass

from py_ecc.optimized_bls12_381 import eq, is_inf, neg

from .errors import InvalidInputError
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


# ----------------------------------------------------------------------------------------------
# Degeneracy rules: the one place every reader, importer and the verifier take them from
# (vectors/FORMAT.md, "Key degeneracy rules", states them for readers in other languages).

VK_SECRET_POINTS = ("alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2")
"""The verifying key's multiples of a setup secret; a snarkjs key has no beta_g1, delta_g1."""
DENSE_QUERIES = ("a", "b_g1", "b_g2")
"""Queries that hold a point only for the variables in their density: bellman drops the identity from them."""


def check_verifying_key(vk, names: dict[str, str] | None = None) -> None:
    """Refuse a verifying key on which Groth16's soundness cannot rest (InvalidInputError naming the field).

    - alpha, beta, gamma, delta points must not be the identity: with gamma = O (or delta = O) the pairing
      equation drops a term and A = alpha, B = beta, C = O verifies for any public inputs.
    - IC points must not be the identity: IC_i = O makes the proof independent of public input i (any value
      verifies). A setup secret of 0, or an input in no constraint, produces it.
    - gamma_g2 must differ from delta_g2 and from -delta_g2: then e(X, gamma) e(C, delta) = e(X +- C, gamma),
      and C' = C +- (X - X') turns any valid proof into one for other public inputs X'.
    ``names`` maps an attribute to the field name the file uses (default: verifying_key.<attribute>).
    """
    def field(attribute: str) -> str:
        return (names or {}).get(attribute, f"verifying_key.{attribute}")

    for attribute in VK_SECRET_POINTS:
        point = getattr(vk, attribute, None)
        if point is not None and is_inf(point):
            raise InvalidInputError(field(attribute), "is the point at infinity: a setup secret of 0 makes every proof forgeable")
    for i, point in enumerate(vk.ic):
        if is_inf(point):
            raise InvalidInputError(f"{field('ic')}[{i}]", "is the point at infinity: the proof would not bind this public input")
    if eq(vk.gamma_g2, vk.delta_g2) or eq(vk.gamma_g2, neg(vk.delta_g2)):
        raise InvalidInputError(field("gamma_g2"), "equals delta_g2 or -delta_g2: proofs could be moved to any public inputs")


def check_proving_key(pk: ProvingKey) -> None:
    """check_verifying_key, and no identity in the A, B_G1, B_G2 queries (bellman drops those points; a variable
    in the density whose point is O means the key does not belong to the densities)."""
    check_verifying_key(pk.vk)
    for q in DENSE_QUERIES:
        for i, point in enumerate(getattr(pk, q)):
            if is_inf(point):
                raise InvalidInputError(f"proving_key.{q}[{i}]", "is the point at infinity, which bellman drops from the A and B queries")
