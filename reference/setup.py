"""A deterministic Groth16 setup FOR TEST VECTORS ONLY.

*** NOT A TRUSTED SETUP. *** The secrets tau, alpha, beta, gamma, delta are derived from a public
seed, so anyone who knows the seed can forge proofs for the resulting keys. That is the point for a
test suite: the secrets are the *trapdoor* that lets any phase's output be recomputed from known
discrete logarithms at sizes where the reference prover is too slow. Never use these keys for
anything that needs soundness.

Keys follow bellman's generator (``groth16/generator.rs``), with l_j(x) the Lagrange basis of the
domain (``EvaluationDomain.lagrange_at``) and, for variable i,

    u_i(tau) = sum_j A[j][i] l_j(tau),  v_i(tau) = sum_j B[j][i] l_j(tau),  w_i(tau) = sum_j C[j][i] l_j(tau)

over all rows j (input rows included):

    H_i  = tau^i Z(tau) / delta * G1                              for i in 0..n-2 (bellman; snarkjs: n points,
                                                                  see ``h_query_scalars``)
    IC_i = (beta u_i(tau) + alpha v_i(tau) + w_i(tau)) / gamma * G1   for inputs
    L_i  = (beta u_i(tau) + alpha v_i(tau) + w_i(tau)) / delta * G1   for aux variables
    A_i  = u_i(tau) * G1,  B_G1_i = v_i(tau) * G1,  B_G2_i = v_i(tau) * G2, identity points dropped

Every key point is (known scalar) * generator, so it is computed with a fixed-base window table
(``msm.FixedBaseTable``): one addition per 8-bit window instead of a double-and-add ladder; ``setup(...,
curve=...)`` may hand these multiples to a faster implementation (reference/msm.py ``ReferenceCurve`` says why).
"""
import hashlib
from dataclasses import dataclass

from py_ecc.optimized_bls12_381 import G1, G2

from .domain import BELLMAN, Basis, DomainConvention, EvaluationDomain
from .errors import ToolkitError
from .field import R, inv
from .keys import ProvingKey, VerifyingKey
from .msm import REFERENCE_CURVE
from .r1cs import R1CS

SEED_DOMAIN = b"groth16-bls12-381-toolkit/test-only-setup/v1"
"""Domain-separation prefix of every seed-derived scalar."""

TEST_ONLY_BANNER = "TEST-ONLY deterministic setup: the secrets are derived from a public seed; these keys are NOT secure"


@dataclass(frozen=True)
class Trapdoor:
    """The setup secrets. Knowing them lets anyone forge proofs: test vectors only."""

    tau: int
    alpha: int
    beta: int
    gamma: int
    delta: int


def derive_scalar(seed: str, label: str) -> int:
    """A non-zero scalar from (seed, label): SHA-256(SEED_DOMAIN | label | counter | seed) as a big-endian int mod r,
    taking the first counter = 0, 1, ... whose value is non-zero. Documented in vectors/FORMAT.md."""
    counter = 0
    while True:
        digest = hashlib.sha256(b"|".join([SEED_DOMAIN, label.encode(), str(counter).encode(), seed.encode()])).digest()
        value = int.from_bytes(digest, "big") % R
        if value:
            return value
        counter += 1


def trapdoor_from_seed(seed: str) -> Trapdoor:
    """tau, alpha, beta, gamma, delta = derive_scalar(seed, name) for each name."""
    return Trapdoor(**{name: derive_scalar(seed, name) for name in ("tau", "alpha", "beta", "gamma", "delta")})


def qap_at(r1cs: R1CS, domain: EvaluationDomain, x: int) -> tuple[list[int], list[int], list[int]]:
    """(u_i(x), v_i(x), w_i(x)) for every variable i: each matrix column interpolated over the rows, at x."""
    lagrange = domain.lagrange_at(x)
    columns = []
    for matrix in ("a", "b", "c"):
        column = [0] * r1cs.num_variables
        for j, row in enumerate(r1cs.rows(matrix)):
            for var, coeff in row:
                column[var] = (column[var] + coeff * lagrange[j]) % R
        columns.append(column)
    return tuple(columns)


def h_query_scalars(domain: EvaluationDomain, tau: int) -> list[int]:
    """The H query's discrete logs times delta, so that sum_j h_j * H_j = h(tau) Z(tau) / delta for ntt_h's h.

    bellman (MONOMIAL, n - 1 points): tau^i Z(tau) for i in 0..n-2 (bellman src/groth16/generator.rs).
    snarkjs (COSET, n points): l_j(tau/g) Z(tau) / Z(g) for j < n, with l_j the Lagrange basis of H, so that
    l_j(x/g) is the Lagrange basis of g*H and sum_j Z(g) h(g omega^j) l_j(tau/g) Z(tau)/Z(g) = h(tau) Z(tau).
    For snarkjs (g = omega_2n, Z(g) = -2) this is the Lagrange basis of the 2n-th roots at the odd points,
    which snarkjs's src/zkey_new.js (writeHs) takes from the powers of tau.
    """
    z_tau = domain.z_at(tau)
    if domain.convention.quotient_basis is Basis.COSET:
        scale = z_tau * inv(domain.z_at(domain.g)) % R
        return [value * scale % R for value in domain.lagrange_at(tau * domain.g_inv % R)]
    return [z_tau * pow(tau, i, R) % R for i in range(domain.convention.h_length(domain.n))]


def _dense_scalars(values: list[int], variables: list[int], query: str) -> list[int]:
    """values[i] for the query's variables, refusing a zero value (bellman would drop that point and misalign the query)."""
    picked = [values[v] for v in variables]
    for v, value in zip(variables, picked):
        if value == 0:
            raise ToolkitError(
                f"setup: variable {v} is in the {query} density but its QAP value at tau is 0 "
                "(cancelling coefficients or an unlucky seed); choose another seed"
            )
    return picked


def _multiples(curve, base, scalars: list[int], label: str, say) -> tuple:
    """(k * base for k in scalars) by ``curve``, reporting how far along: 'setup: H points 4096/65535'."""
    return tuple(curve.generator_multiples(base, scalars, lambda done: say(f"setup: {label} points {done}/{len(scalars)}")))


def setup(
    r1cs: R1CS, trapdoor: Trapdoor, convention: DomainConvention = BELLMAN, progress=None, curve=REFERENCE_CURVE
) -> ProvingKey:
    """Groth16 keys for ``r1cs`` with the given (test-only) secrets; see the module docstring for every formula. The
    multiples of the generators are ``curve``'s (reference/msm.py ``ReferenceCurve``: the pure-Python definition by
    default)."""
    say = progress or (lambda message: None)
    domain = EvaluationDomain(r1cs.log_n, convention)
    t = trapdoor
    say("setup: QAP polynomials at tau")
    u, v, w = qap_at(r1cs, domain, t.tau)
    density = r1cs.density()
    n_in = r1cs.num_inputs

    gamma_inv, delta_inv = inv(t.gamma), inv(t.delta)
    combined = [(t.beta * u[i] + t.alpha * v[i] + w[i]) % R for i in range(r1cs.num_variables)]
    h_scalars = [value * delta_inv % R for value in h_query_scalars(domain, t.tau)]

    b_vars = density.b_variables(n_in)
    say(f"setup: {len(h_scalars)} H, {r1cs.num_aux} L, {len(density.a_variables(n_in))} A, {len(b_vars)} B points")
    alpha_g1, beta_g1, delta_g1 = curve.generator_multiples(G1, [t.alpha, t.beta, t.delta])
    beta_g2, gamma_g2, delta_g2 = curve.generator_multiples(G2, [t.beta, t.gamma, t.delta])
    vk = VerifyingKey(
        alpha_g1=alpha_g1,
        beta_g1=beta_g1,
        beta_g2=beta_g2,
        gamma_g2=gamma_g2,
        delta_g1=delta_g1,
        delta_g2=delta_g2,
        ic=_multiples(curve, G1, [combined[i] * gamma_inv % R for i in range(n_in)], "IC", say),
    )
    b_scalars = _dense_scalars(v, b_vars, "B")
    pk = ProvingKey(
        vk=vk,
        h=_multiples(curve, G1, h_scalars, "H", say),
        l=_multiples(curve, G1, [combined[i] * delta_inv % R for i in range(n_in, r1cs.num_variables)], "L", say),
        a=_multiples(curve, G1, _dense_scalars(u, density.a_variables(n_in), "A"), "A", say),
        b_g1=_multiples(curve, G1, b_scalars, "B_G1", say),
        b_g2=_multiples(curve, G2, b_scalars, "B_G2", say),
        density=density,
    )
    say("setup: done")
    return pk
