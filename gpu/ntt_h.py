"""Phase ``ntt_h`` on the device: h = (a b - c) / Z, the same computation as reference/ntt_h.py.

For a domain of size n = 2^log_n (omega = 7^((r-1)/n), coset generator g = 7):

    A = coset_NTT(INTT(a)),  B = ..., C = ...          (values on the coset g*H)
    E_j = (A_j B_j - C_j) (g^n - 1)^-1                (Z(x) = x^n - 1 equals g^n - 1 on g*H)
    h = coset_INTT(E), first n - 1 coefficients       (h_{n-1} must be zero: checked, then dropped)

Fused on the device (each is a per-element factor applied in a pass the transform makes anyway):
INTT's 1/n and coset_NTT's g^i become one output factor g^i / n of the INTT's last pass, and
coset_INTT's 1/n, g^-i and the constant (g^n - 1)^-1 become one factor g^-i / (n (g^n - 1)).
Everything stays on the device; h is copied back only by ``h_to_ints``. The check that h_{n-1} is zero
(reference/ntt_h.py: QuotientNotPolynomialError) copies back the batch's top coefficients only, one row each.

The snarkjs convention (reference/domain.py SNARKJS: omega = 5^((r-1)/n), g = omega_2n =
5^((r-1)/2n), quotient basis COSET) runs the same first half with root generator 5 and
g = omega_2n, and stops at E: its n values A_j B_j - C_j on the odd powers of omega_2n leave the
phase undivided (snarkjs folds Z(g) = -2 into its H query), exactly as reference/ntt_h.py does.
"""
from __future__ import annotations

import numpy as np

from reference.domain import BELLMAN, Basis, DomainConvention
from reference.errors import QuotientNotPolynomialError, SizeMismatchError
from reference.field import R

from . import device
from .field import to_ints
from .ntt import Scale, table_bytes, transform, transform_in_pair, vector_shape
from .limbs import FR

WORK_BUFFERS = 4
"""Device buffers of a, b, c's size that ntt_h allocates: A, B, C and one scratch."""

MUL_SUB_THREADS = 256


def ntt_h_scales(log_n: int, convention: DomainConvention = BELLMAN) -> tuple[Scale, Scale]:
    """(factor after INTT = g^i / n, factor after the final inverse transform = g^-i / (n (g^n - 1))).

    g = convention.coset_shift(log_n): 7 for bellman, omega_2n = 5^((r-1)/2n) for snarkjs (whose ntt_h
    stops before the final inverse transform and uses only the first factor)."""
    n = 1 << log_n
    n_inv = pow(n, -1, R)
    g = convention.coset_shift(log_n)
    z_on_coset = (pow(g, n, R) - 1) % R
    to_coset = Scale(n_inv, g)
    from_coset = Scale(n_inv * pow(z_on_coset, -1, R) % R, pow(g, -1, R))
    return to_coset, from_coset


def memory_needed(batch: int, log_n: int, consume: bool = False) -> int:
    """Bytes ntt_h allocates beyond its inputs: WORK_BUFFERS vectors per circuit (one when it may overwrite its
    inputs) plus the twiddle tables."""
    buffers = 1 if consume else WORK_BUFFERS
    return buffers * batch * (FR.element_bytes << log_n) + table_bytes(log_n)


def require_memory(batch: int, log_n: int, consume: bool = False) -> None:
    """Raise GpuMemoryError (amount needed and free) if ntt_h's work buffers for this batch do not fit."""
    device.check_free_memory(memory_needed(batch, log_n, consume), f"ntt_h for {batch} circuit(s) at n = 2^{log_n}")


def _check_inputs(a, b, c, log_n: int) -> int:
    batch, got_log_n = vector_shape(a, "a")
    if got_log_n != log_n:
        raise SizeMismatchError("a", f"has 2^{got_log_n} values per circuit; the domain has n = 2^{log_n}")
    for name, x in (("b", b), ("c", c)):
        vector_shape(x, name)
        if x.shape != a.shape:
            raise SizeMismatchError(name, f"has shape {x.shape}; a has {a.shape}")
    return batch


def _mul_sub_(e, b, c) -> None:
    """e_i <- e_i b_i - c_i (Montgomery Fr arrays of one shape), in place."""
    from .ntt import _module

    count = e.size // FR.num_limbs
    blocks = (count + MUL_SUB_THREADS - 1) // MUL_SUB_THREADS
    kernel = _module().get_function("fr_mul_sub")
    device.launch(kernel, blocks, MUL_SUB_THREADS, (e, b, c, np.uint64(count)), "ntt_h A*B - C")


def check_top_coefficients(h, first_circuit: int = 0) -> None:
    """Raise QuotientNotPolynomialError, as reference/ntt_h.py does, for the first circuit whose h_{n-1} is not zero
    (circuits numbered from ``first_circuit``, for a block of a larger call).

    ``h``: the full inverse transform, (n, 8) or (batch, n, 8) Montgomery. Only the top row of each circuit is copied
    back; elements are kept fully reduced (gpu/kernels/field.cuh), so zero is the all-zero limbs in Montgomery form too."""
    import cupy

    top = cupy.ascontiguousarray(h[..., -1, :]).reshape(-1, FR.num_limbs)
    non_zero = np.flatnonzero(top.get().any(axis=1))
    if non_zero.size:
        circuit = int(non_zero[0])
        raise QuotientNotPolynomialError(first_circuit + circuit, to_ints(top[circuit : circuit + 1])[0])


def ntt_h(a, b, c, log_n: int, convention: DomainConvention = BELLMAN, consume: bool = False, first_circuit: int = 0):
    """ntt_h's output for ``convention`` (reference/ntt_h.py), for each circuit, on the device.

    bellman (default): h_0..h_{n-2} of (a(x) b(x) - c(x)) / (x^n - 1), shape (n - 1, 8) or (batch, n - 1, 8).
    snarkjs: the n values E_j = (a b - c)(g omega^j), g = omega_2n (the odd powers of the 2n-th root),
    undivided, shape (n, 8) or (batch, n, 8).

    a, b, c: Montgomery Fr arrays (n, 8) or (batch, n, 8), the evaluations on H (evaluate's
    output); they are not modified, unless ``consume``: then they serve as the work buffers (3 of the 4
    vectors per circuit, see memory_needed) and hold garbage afterwards. Returns a device array in
    Montgomery form (a view into a work buffer). Raises GpuUnavailableError without a device and GpuMemoryError, saying how much is
    needed, when the work buffers do not fit. bellman: raises QuotientNotPolynomialError (check_top_coefficients) when a
    circuit's h_{n-1} is not zero, naming it as ``first_circuit`` + its index in the batch; snarkjs: no check, as in
    reference/ntt_h.py (no coefficient is computed).
    """
    import cupy

    device.require_device()
    batch = _check_inputs(a, b, c, log_n)
    require_memory(batch, log_n, consume)
    to_coset, from_coset = ntt_h_scales(log_n, convention)
    root = convention.root_generator

    spare = cupy.empty_like(a)
    on_coset = []
    for x in (a, b, c):
        coefficients = transform(
            x, inverse=True, out_scale=to_coset, out=x if consume else cupy.empty_like(a), scratch=spare,
            root_generator=root,
        )
        values = transform_in_pair(coefficients, spare, root_generator=root)  # coset NTT: the g^i is already applied
        on_coset.append(values)
        spare = coefficients if values is spare else spare
    e, b_values, c_values = on_coset
    _mul_sub_(e, b_values, c_values)
    if convention.quotient_basis is Basis.COSET:  # snarkjs: E itself leaves the phase (Z(g) is in the H query)
        device.launch_check(f"ntt_h ({convention.name}) at n = 2^{log_n}", sync=True)
        return e
    h = transform(e, inverse=True, out_scale=from_coset, out=b_values, scratch=c_values, root_generator=root)
    device.launch_check(f"ntt_h at n = 2^{log_n}", sync=True)
    check_top_coefficients(h, first_circuit)
    return h[..., : (1 << log_n) - 1, :]


def h_to_ints(h) -> list:
    """Copy h back: a list of ints (n - 1 for bellman, n for snarkjs) for a 2-d array, a list of such lists for a batch."""
    values = to_ints(h.copy() if not h.flags.c_contiguous else h)
    if h.ndim == 2:
        return values
    per_circuit = h.shape[1]
    return [values[k * per_circuit : (k + 1) * per_circuit] for k in range(h.shape[0])]
