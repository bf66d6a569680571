"""Phase ``ntt_h``: the quotient h(x) = (a(x) b(x) - c(x)) / Z(x), Z(x) = x^n - 1.

a, b, c arrive as evaluations on H = {omega^j}. a b - c vanishes on H exactly when every constraint
holds, so Z divides it; Z is zero on H, so the division is done on the coset g H, where every point
has Z(g omega^j) = g^n - 1, one non-zero constant:

    E_j = a(g omega^j) b(g omega^j) - c(g omega^j) = (g^n - 1) h(g omega^j)        j = 0..n-1

a b - c has degree up to 2n - 2, but h has degree <= n - 2, so its n values on the coset determine it.
The convention (reference/domain.py) says what leaves the phase:

* bellman (bellman src/groth16/prover.rs ``create_proof``, the block ``let h = {...}``; bellperson and
  supraseal-c2 the same): the coefficients of h,

      h = coset_INTT(E * (g^n - 1)^-1),  h_0 .. h_{n-2}

  h_{n-1} is zero for a satisfying witness and is dropped (bellman: ``let a_len = a.len() - 1; a.truncate(a_len);``); the H
  query has n - 1 points. bellman and supraseal drop it unchecked; here a non-zero h_{n-1} means a b - c is
  not divisible by Z, i.e. the witness does not satisfy the circuit: QuotientNotPolynomialError.
* snarkjs (src/groth16_prove.js, g = omega_2n, so g^n - 1 = -2): the coset values themselves,

      h_j = E_j = (a b - c)(omega_2n^(2j+1)),   n values, undivided

  -2 is folded into snarkjs's H query (reference/setup.py ``h_query_scalars``). No coefficient is
  computed, so there is nothing to check.
"""
from .domain import Basis, EvaluationDomain
from .errors import QuotientNotPolynomialError
from .evaluate import Evaluations
from .field import R, inv


def ntt_h(evals: Evaluations, domain: EvaluationDomain, circuit: int = 0) -> tuple[int, ...]:
    """bellman: h_0..h_{n-2}, the coefficients of (a b - c)/Z; snarkjs: the n values E_j (module docstring)."""
    a_on_coset = domain.coset_ntt(domain.intt(evals.a))
    b_on_coset = domain.coset_ntt(domain.intt(evals.b))
    c_on_coset = domain.coset_ntt(domain.intt(evals.c))
    e = [(a * b - c) % R for a, b, c in zip(a_on_coset, b_on_coset, c_on_coset)]

    if domain.convention.quotient_basis is Basis.COSET:
        # snarkjs: h_j = E_j = (a b - c)(omega_2n^(2j+1)), n values, undivided (Z(g) = -2 is in its H query)
        return tuple(e)

    # bellman: h = coset_INTT(E * (g^n - 1)^-1), h_{n-1} must be zero and is dropped
    z_on_coset_inv = inv(domain.z_at(domain.g))  # (g^n - 1)^-1
    h = domain.coset_intt([x * z_on_coset_inv % R for x in e])
    if h[-1] != 0:
        raise QuotientNotPolynomialError(circuit, h[-1])
    return tuple(h[:-1])
