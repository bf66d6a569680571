"""Evaluation domains over Fr and polynomials that know their basis.

A domain of size n = 2^k is the subgroup {omega^0, ..., omega^(n-1)} of Fr*, where omega is a
primitive n-th root of unity. A *convention* fixes how omega is chosen and how a polynomial is
moved onto a coset where Z(x) = x^n - 1 does not vanish:

* ``BELLMAN`` (bellman, bellperson, supraseal-c2): omega = 7^((r-1)/n), which equals bellman's
  ROOT_OF_UNITY = 7^((r-1)/2^32) squared 32 - k times; the coset is g*H with the multiplicative
  generator g = 7. The quotient h = (a*b - c)/Z leaves ntt_h as its n - 1 coefficients.
* ``SNARKJS`` (snarkjs ``groth16 prove``, src/groth16_prove.js): omega = 5^((r-1)/n) (5 is the
  least quadratic non-residue mod r, ffjavascript's ``Fr.w``); the coset is omega_2n*H, the odd
  powers of the 2n-th root omega_2n = 5^((r-1)/2n) (iNTT, multiply coefficient i by omega_2n^i,
  NTT). There Z = x^n - 1 is omega_2n^n - 1 = -2; snarkjs does not divide by it: ntt_h leaves the n
  values (a*b - c)(omega_2n^(2j+1)) = -2 h(omega_2n^(2j+1)), and the key's H query is the Lagrange
  basis of the 2n-th roots at the odd points, divided by delta. Its key carries no C matrix, so
  c_j = a_j * b_j per row.

The phases only call the methods below and never name 7, 5 or a basis themselves.

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
    """Where a polynomial's values live."""

    MONOMIAL = "coefficients of 1, x, x^2, ..."
    LAGRANGE = "evaluations on the domain H = {omega^j}"
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

    def z_on_coset(self) -> int:
        """Z(x) = x^n - 1 at every point g*omega^j of the coset: (g*omega^j)^n - 1 = g^n - 1."""
        return (pow(self.g, self.n, R) - 1) % R

    def quotient(self, numerator: Polynomial) -> Polynomial:
        """ntt_h's output from (a*b - c) on the coset g*H, in the convention's ``quotient_basis``.

        MONOMIAL (bellman): h = coset_INTT(E / Z(g)), E_j = (a*b - c)(g*omega^j), first n - 1 coefficients
        (the last is zero for a satisfying witness; bellman truncates it, ``a.truncate(a.len() - 1)``).
        COSET (snarkjs): E itself, n values = Z(g) h(g*omega^j); Z(g) = -2 is folded into the H query.
        """
        _expect(numerator, Basis.COSET)
        if self.convention.quotient_basis is Basis.COSET:
            return numerator
        h = self.interpolate_from_coset(numerator.scale(inv(self.z_on_coset())))
        return Polynomial(h.values[: self.convention.h_length(self.n)], Basis.MONOMIAL)

    def h_query_scalars(self, tau: int) -> list[int]:
        """The H query's discrete logs times delta, so that sum_j h_j * H_j = h(tau) Z(tau) / delta for ntt_h's h.

        MONOMIAL: tau^i Z(tau) for i in 0..n-2 (bellman's generator.rs).
        COSET: l_j(tau/g) Z(tau) / Z(g) for j < n, with l_j the Lagrange basis of H (``lagrange_at``), so that l_j(x/g)
        is the Lagrange basis of g*H: sum_j Z(g) h(g omega^j) l_j(tau/g) Z(tau)/Z(g) = h(tau) Z(tau). For snarkjs
        (g = omega_2n) this is the Lagrange basis of the 2n-th roots at the odd points, which zkey_new.js (writeHs)
        takes from the powers of tau.
        """
        z_tau = self.z_at(tau)
        if self.convention.quotient_basis is Basis.COSET:
            scale = z_tau * inv(self.z_on_coset()) % R
            return [value * scale % R for value in self.lagrange_at(tau * self.g_inv % R)]
        scalars, power = [], z_tau
        for _ in range(self.convention.h_length(self.n)):
            scalars.append(power)
            power = power * tau % R
        return scalars

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
