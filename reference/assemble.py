"""Phase ``assemble``: the proof (A, B, C) from the MSM results and the blinding scalars r, s.

The Groth16 paper (Groth 2016, section 3.2) defines, with sums over all variables (A, B) or the
aux variables (L):

    A = alpha + sum_i z_i u_i(tau) + r * delta                               (G1)
    B = beta  + sum_i z_i v_i(tau) + s * delta                               (G2)
    C = sum_aux z_i L_i + h(tau) Z(tau)/delta + s * A + r * B - r * s * delta (G1)

where r * B in C needs B in G1: B_G1 = beta_G1 + sum_i z_i v_i(tau) G1 + s * delta_G1, built from the
B_G1 query. That paper form is the one computed here. bellman (src/groth16/prover.rs, end of
``create_proof``) and supraseal-c2 (c2/cuda/groth16_cuda.cu, the per-circuit loop at the end of
``generate_groth16_proofs_c``) compute the expanded form instead:

    C = sum L + H + s * (sum A) + r * (sum B_G1) + s * alpha + r * beta + r * s * delta

They are equal: s * A = s*alpha + s*(sum A) + r*s*delta and r * B_G1 = r*beta + r*(sum B_G1) + r*s*delta, so
s * A + r * B_G1 - r*s*delta = s*alpha + r*beta + s*(sum A) + r*(sum B_G1) + r*s*delta. Both give the same
group element, hence the same encoded proof. vectors/FORMAT.md cites this docstring as the normative
assemble formula.
"""
from dataclasses import dataclass

from py_ecc.optimized_bls12_381 import add, multiply, neg

from .field import R
from .keys import QuerySums, VerifyingKey


@dataclass(frozen=True)
class Proof:
    a: tuple
    """A in G1"""
    b: tuple
    """B in G2"""
    c: tuple
    """C in G1"""


def query_totals(batch: QuerySums, tail: QuerySums) -> QuerySums:
    """The full query sums: batch addition plus tail MSM, query by query."""
    return QuerySums(
        l=add(batch.l, tail.l), a=add(batch.a, tail.a), b_g1=add(batch.b_g1, tail.b_g1), b_g2=add(batch.b_g2, tail.b_g2)
    )


def assemble(vk: VerifyingKey, h_sum: tuple, batch: QuerySums, tail: QuerySums, r: int, s: int) -> Proof:
    """The proof (A, B, C) by the module docstring's formulas, from msm_h's H and the query sums batch + tail."""
    sums = query_totals(batch, tail)
    proof_a = add(add(vk.alpha_g1, sums.a), multiply(vk.delta_g1, r))
    proof_b = add(add(vk.beta_g2, sums.b_g2), multiply(vk.delta_g2, s))
    b_g1 = add(add(vk.beta_g1, sums.b_g1), multiply(vk.delta_g1, s))
    proof_c = add(sums.l, h_sum)
    proof_c = add(proof_c, multiply(proof_a, s))
    proof_c = add(proof_c, multiply(b_g1, r))
    proof_c = add(proof_c, neg(multiply(vk.delta_g1, r * s % R)))
    return Proof(a=proof_a, b=proof_b, c=proof_c)
