"""Phase ``ntt_h``: the quotient h(x) = (a(x) * b(x) - c(x)) / Z(x).

a, b, c arrive as evaluations on H; a(x)b(x) - c(x) vanishes on H exactly when every constraint
holds, so Z(x) = x^n - 1 divides it. The division cannot be done on H (Z is zero there), so the
polynomials are moved to the coset g*H where Z(g*omega^j) = g^n - 1 is one non-zero constant:

    a, b, c  --INTT-->  coefficients  --coset NTT-->  values on g*H
    E_j = A_j * B_j - C_j                        (= (g^n - 1) h(g*omega^j))

a*b - c has degree up to 2n - 2, more than n values can describe, but h has degree <= n - 2, so its
n values on the coset determine it. The domain's convention says what leaves the phase
(``EvaluationDomain.quotient``):

* bellman: h = coset INTT(E * (g^n - 1)^-1), first n - 1 coefficients. The last coefficient is zero
  for a satisfying witness and is dropped, as bellman does (``a.truncate(a.len() - 1)``); the H query
  has n - 1 points to match.
* snarkjs: E itself, n values on the odd powers of omega_2n (g^n - 1 = -2 is folded into the H query).
"""
from .domain import Basis, EvaluationDomain, Polynomial
from .evaluate import Evaluations


def ntt_h(evals: Evaluations, domain: EvaluationDomain) -> tuple[int, ...]:
    """h for ``domain``'s convention, from E_j = (a*b - c)(g*omega^j) on its coset g*H: bellman's h_0..h_{n-2}
    (coefficients of (a*b - c)/Z), or snarkjs's n values E_j."""
    on_coset = [
        domain.evaluate_on_coset(domain.interpolate(Polynomial(values, Basis.LAGRANGE)))
        for values in (evals.a, evals.b, evals.c)
    ]
    a, b, c = on_coset
    return domain.quotient(a.pointwise_mul(b) - c).values
