"""Evaluation domains over Fr and polynomials that know their basis.

A domain of size n = 2^k is the subgroup {omega^0, ..., omega^(n-1)} of Fr*, where omega is a
primitive n-th root of unity. A *convention* fixes how omega is chosen and how a polynomial is
moved onto a coset where Z(x) = x^n - 1 does not vanish:

* ``BELLMAN`` (bellman, bellperson, supraseal-c2): omega = 7^((r-1)/n), which equals bellman's
  ROOT_OF_UNITY = 7^((r-1)/2^32) squared 32 - k times; the coset is g*H with the multiplicative
  generator g = 7.

A second convention (snarkjs: roots from 5, odd powers of the 2n-th root) is a new ``DomainConvention``
value; the phases only call the methods below and never name 7 themselves.

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


@dataclass(frozen=True)
class DomainConvention:
    """How a domain's root of unity and its coset are chosen."""

    name: str
    root_generator: int
    """omega_n = root_generator^((r-1)/n): a generator of Fr* makes this a primitive n-th root."""
    coset_generator: int
    """g: the coset g*H on which h is computed; g^n != 1, so Z(g*omega^j) = g^n - 1 != 0."""


BELLMAN = DomainConvention(name="bellman", root_generator=7, coset_generator=7)
CONVENTIONS = {BELLMAN.name: BELLMAN}


class Basis(Enum):
    """Where a polynomial's values live."""

    MONOMIAL = "coefficients of 1, x, x^2, ..."
    LAGRANGE = "evaluations on the domain H = {omega^j}"
    COSET = "evaluations on the coset g*H = {g * omega^j}"


@dataclass(frozen=True)
class Polynomial:
    """A polynomial of degree < n held as n values in one basis; operations check the basis.

    Mixing bases (multiplying Lagrange values by coefficients, say) is the classic silent bug of
    hand-written provers; here it is an error.
    """

    values: tuple[int, ...]
    basis: Basis

    def _require(self, other: "Polynomial", what: str):
        if self.basis is not other.basis or len(self.values) != len(other.values):
            raise ValueError(f"{what}: bases {self.basis.name}/{other.basis.name}, lengths {len(self.values)}/{len(other.values)}")

    def pointwise_mul(self, other: "Polynomial") -> "Polynomial":
        """(p*q)(x_j) = p(x_j) * q(x_j): valid in an evaluation basis only (and only while deg(p*q) < n)."""
        self._require(other, "pointwise product")
        if self.basis is Basis.MONOMIAL:
            raise ValueError("pointwise product of coefficient vectors is not the polynomial product")
        return Polynomial(tuple(x * y % R for x, y in zip(self.values, other.values)), self.basis)

    def __sub__(self, other: "Polynomial") -> "Polynomial":
        self._require(other, "difference")
        return Polynomial(tuple((x - y) % R for x, y in zip(self.values, other.values)), self.basis)

    def scale(self, k: int) -> "Polynomial":
        """k * p, in any basis."""
        return Polynomial(tuple(x * k % R for x in self.values), self.basis)


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
        for start in range(0, n, 2 * half):
            w = 1
            for k in range(start, start + half):
                t = a[k + half] * w % R
                a[k + half] = (a[k] - t) % R
                a[k] = (a[k] + t) % R
                w = w * step % R
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
        self.g = convention.coset_generator
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

    def z_on_coset(self) -> int:
        """Z(x) = x^n - 1 at every point g*omega^j of the coset: (g*omega^j)^n - 1 = g^n - 1."""
        return (pow(self.g, self.n, R) - 1) % R

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

    # Typed entry points: the same transforms on Polynomials, refusing the wrong basis.
    def interpolate(self, p: Polynomial) -> Polynomial:
        """LAGRANGE -> MONOMIAL (INTT)."""
        _expect(p, Basis.LAGRANGE)
        return Polynomial(tuple(self.intt(list(p.values))), Basis.MONOMIAL)

    def evaluate_on_coset(self, p: Polynomial) -> Polynomial:
        """MONOMIAL -> COSET (coset NTT)."""
        _expect(p, Basis.MONOMIAL)
        return Polynomial(tuple(self.coset_ntt(list(p.values))), Basis.COSET)

    def interpolate_from_coset(self, p: Polynomial) -> Polynomial:
        """COSET -> MONOMIAL (coset INTT)."""
        _expect(p, Basis.COSET)
        return Polynomial(tuple(self.coset_intt(list(p.values))), Basis.MONOMIAL)


def _expect(p: Polynomial, basis: Basis):
    if p.basis is not basis:
        raise ValueError(f"expected a polynomial in the {basis.name} basis, got {p.basis.name}")


def _distribute_powers(values: list[int], g: int) -> list[int]:
    """[v_i * g^i]: turns p(x) into p(g*x) on coefficients."""
    out, power = [], 1
    for v in values:
        out.append(v * power % R)
        power = power * g % R
    return out


def evaluate_polynomial(coeffs: list[int], x: int) -> int:
    """p(x) = sum_i c_i x^i by Horner's rule."""
    acc = 0
    for c in reversed(coeffs):
        acc = (acc * x + c) % R
    return acc
