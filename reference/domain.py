"""Evaluation domains over Fr: the two conventions and the four transforms.

A domain of size n = 2^k is the subgroup {omega^0, ..., omega^(n-1)} of Fr*, where omega is a
primitive n-th root of unity. A *convention* fixes how omega is chosen and how a polynomial is
moved onto a coset where Z(x) = x^n - 1 does not vanish:

* ``BELLMAN`` (bellman, bellperson, supraseal-c2): omega = 7^((r-1)/n), which equals bellman's
  ROOT_OF_UNITY = 7^((r-1)/2^32) squared 32 - k times; the coset is g*H with the multiplicative
  generator g = 7 (bellman src/domain.rs: ``S::MULTIPLICATIVE_GENERATOR``, ``E::Fr::multiplicative_generator()`` in
  older releases, the coset of ``coset_fft``).
* ``SNARKJS`` (snarkjs ``groth16 prove``, src/groth16_prove.js): omega = 5^((r-1)/n) (5 is the
  least quadratic non-residue mod r, ffjavascript's ``Fr.w``); the coset is omega_2n*H, the odd
  powers of the 2n-th root omega_2n = 5^((r-1)/2n) (iNTT, multiply coefficient i by omega_2n^i,
  NTT). There Z = x^n - 1 is omega_2n^n - 1 = -2. Its key carries no C matrix, so c_j = a_j * b_j
  per row.

This module holds the conventions and the transforms; what ntt_h does with them (and the equation
for each convention) is written in reference/ntt_h.py, the H query that matches it in
reference/setup.py ``h_query_scalars``.

The transforms are the textbook ones, in natural order in and out:

    NTT(v)_j  = sum_i v_i * omega^(i*j)             (coefficients -> evaluations on H)
    INTT(e)_i = n^-1 * sum_j e_j * omega^(-i*j)     (evaluations on H -> coefficients)
    coset_NTT(v)_j  = sum_i v_i * (g*omega^j)^i     (coefficients -> evaluations on g*H)
    coset_INTT(e)   = the coefficients whose coset_NTT is e

computed by the iterative radix-2 Cooley-Tukey algorithm on a bit-reversed copy.
"""
from dataclasses import dataclass
from enum import Enum

from .errors import SizeMismatchError
from .field import R, TWO_ADICITY, batch_inverse, inv


class Basis(Enum):
    """Where the values ntt_h leaves live (``DomainConvention.quotient_basis``)."""

    MONOMIAL = "coefficients of 1, x, x^2, ..."
    COSET = "evaluations on the coset g*H = {g * omega^j}"


@dataclass(frozen=True)
class DomainConvention:
    """How a domain's root of unity and its coset are chosen, and in which basis ntt_h leaves h."""

    name: str
    root_generator: int
    """omega_n = root_generator^((r-1)/n): a quadratic non-residue mod r makes this a primitive n-th root."""
    coset_generator: int | None
    """g: the coset g*H on which h is computed (g^n != 1, so Z(g*omega^j) = g^n - 1 != 0).
    None means g = omega_2n = root_generator^((r-1)/2n), so that g*H is the odd powers of omega_2n."""
    quotient_basis: Basis
    """MONOMIAL: ntt_h leaves the n - 1 coefficients of h = (a*b - c)/Z (H query tau^i Z(tau)/delta).
    COSET: ntt_h leaves the n values (a*b - c)(g*omega^j) = Z(g) h(g*omega^j), undivided; the H query
    is then l_j(tau/g) Z(tau) / (Z(g) delta), l_j(x/g) being the Lagrange basis of the coset g*H."""
    c_from_product: bool
    """True: evaluate sets c_j = a_j * b_j (the key has no C matrix), after checking the C rows."""

    def coset_shift(self, log_n: int) -> int:
        """g for the domain of size 2^log_n: the fixed coset generator, or omega_2n = root_generator^((r-1)/2^(log_n+1))."""
        if self.coset_generator is not None:
            return self.coset_generator
        if log_n + 1 > TWO_ADICITY:
            raise SizeMismatchError("domain.log_n", f"the {self.name} coset needs a 2^{log_n + 1}-th root of unity; Fr has 2-adicity {TWO_ADICITY}")
        return pow(self.root_generator, (R - 1) >> (log_n + 1), R)

    def h_length(self, n: int) -> int:
        """Scalars ntt_h leaves (and points in the H query): n - 1 coefficients, or n coset values."""
        return n - 1 if self.quotient_basis is Basis.MONOMIAL else n


BELLMAN = DomainConvention(
    name="bellman", root_generator=7, coset_generator=7, quotient_basis=Basis.MONOMIAL, c_from_product=False
)
SNARKJS = DomainConvention(
    name="snarkjs", root_generator=5, coset_generator=None, quotient_basis=Basis.COSET, c_from_product=True
)
CONVENTIONS = {c.name: c for c in (BELLMAN, SNARKJS)}


def _bit_reverse(values: list[int]) -> list[int]:
    n = len(values)
    bits = n.bit_length() - 1
    return [values[int(format(i, f"0{bits}b")[::-1], 2) if bits else 0] for i in range(n)]


def _radix2_ntt(values: list[int], root: int) -> list[int]:
    """sum_i v_i root^(ij) for every j: iterative Cooley-Tukey (bit-reverse, then log n butterfly layers)."""
    n = len(values)
    a = _bit_reverse(list(values))
    half = 1
    while half < n:
        step = pow(root, n // (2 * half), R)  # a primitive (2*half)-th root of unity
        # The layer's twiddles step^0 .. step^(half-1) once, not once a block: one product a butterfly fewer.
        twiddles = _powers(step, half)
        for start in range(0, n, 2 * half):
            for k, w in zip(range(start, start + half), twiddles):
                t = a[k + half] * w % R
                a[k + half] = (a[k] - t) % R
                a[k] = (a[k] + t) % R
        half *= 2
    return a


class EvaluationDomain:
    """The size-n domain of a convention, with its four transforms.

    Attributes: ``log_n``, ``n``, ``omega`` (primitive n-th root of unity), ``omega_inv``,
    ``n_inv``, ``g`` (coset generator), ``g_inv``.
    """

    def __init__(self, log_n: int, convention: DomainConvention = BELLMAN):
        if not 0 <= log_n < TWO_ADICITY:
            raise SizeMismatchError("domain.log_n", f"{log_n} is outside 0..{TWO_ADICITY - 1}: Fr has 2-adicity {TWO_ADICITY}")
        self.convention = convention
        self.log_n = log_n
        self.n = 1 << log_n
        self.omega = pow(convention.root_generator, (R - 1) >> log_n, R)
        self.omega_inv = inv(self.omega)
        self.n_inv = inv(self.n)
        self.g = convention.coset_shift(log_n)
        self.g_inv = inv(self.g)

    def _check(self, values, basis_name: str) -> list[int]:
        if len(values) != self.n:
            raise SizeMismatchError(basis_name, f"has {len(values)} values; the domain has n = {self.n}")
        return list(values)

    def ntt(self, coeffs: list[int]) -> list[int]:
        """NTT(v)_j = sum_i v_i * omega^(i*j): coefficients -> evaluations on H."""
        return _radix2_ntt(self._check(coeffs, "coefficients"), self.omega)

    def intt(self, evals: list[int]) -> list[int]:
        """INTT(e)_i = n^-1 * sum_j e_j * omega^(-i*j): evaluations on H -> coefficients."""
        return [x * self.n_inv % R for x in _radix2_ntt(self._check(evals, "evaluations"), self.omega_inv)]

    def coset_ntt(self, coeffs: list[int]) -> list[int]:
        """Evaluations on g*H: multiply coefficient i by g^i (p(x) -> p(g*x)), then NTT."""
        return self.ntt(_distribute_powers(self._check(coeffs, "coefficients"), self.g))

    def coset_intt(self, evals: list[int]) -> list[int]:
        """Coefficients from evaluations on g*H: INTT, then multiply coefficient i by g^-i."""
        return _distribute_powers(self.intt(evals), self.g_inv)

    def z_at(self, x: int) -> int:
        """Z(x) = x^n - 1, the vanishing polynomial of H."""
        return (pow(x, self.n, R) - 1) % R

    def lagrange_at(self, x: int) -> list[int]:
        """[l_j(x) for j < n], l_j the Lagrange basis polynomial of omega^j: l_j(x) = omega^j (x^n - 1) / (n (x - omega^j)).

        Derivation: l_j(x) = Z(x) / ((x - omega^j) Z'(omega^j)) with Z'(omega^j) = n omega^(j(n-1)) = n omega^-j.
        Requires Z(x) != 0 (x outside H), which a random setup secret satisfies with overwhelming probability.
        """
        zx = self.z_at(x)
        if zx == 0:
            raise ValueError("x lies in the domain; the Lagrange formula needs Z(x) != 0")
        points = [pow(self.omega, j, R) for j in range(self.n)]
        inverses = batch_inverse([(x - w) % R for w in points])
        common = zx * self.n_inv % R
        return [w * common % R * d % R for w, d in zip(points, inverses)]


def _powers(g: int, count: int) -> list[int]:
    """[g^0, g^1, ..., g^(count-1)] mod r."""
    out, power = [], 1
    for _ in range(count):
        out.append(power)
        power = power * g % R
    return out


def _distribute_powers(values: list[int], g: int) -> list[int]:
    """[v_i * g^i]: turns p(x) into p(g*x) on coefficients."""
    return [v * power % R for v, power in zip(values, _powers(g, len(values)))]


def evaluate_polynomial(coeffs: list[int], x: int) -> int:
    """p(x) = sum_i c_i x^i by Horner's rule."""
    acc = 0
    for c in reversed(coeffs):
        acc = (acc * x + c) % R
    return acc
