"""Phase ``ntt_h`` on the device: h = (a b - c) / Z, the same values as reference/ntt_h.py.

For a domain of size n = 2^log_n (omega = 7^((r-1)/n), coset generator g = 7), reference/ntt_h.py (bellman's
order) makes seven transforms:

    A = coset_NTT(INTT(a)),  B = ..., C = ...          (values on the coset g*H)
    E_j = (A_j B_j - C_j) (g^n - 1)^-1                (Z(x) = x^n - 1 equals g^n - 1 on g*H)
    h = coset_INTT(E), first n - 1 coefficients       (h_{n-1} must be zero: checked, then dropped)

Here six: coset_INTT is linear, Z is one constant on the coset and coset_INTT(coset_NTT(x)) = x, so

    h = coset_INTT(A B) (g^n - 1)^-1 - INTT(c) (g^n - 1)^-1

c needs its INTT only: its coset NTT and the inverse transform of C cancel. Every step is exact arithmetic in Fr,
so h is the reference's to the last bit, h_{n-1} included (also when a b - c is not divisible by Z).

Fused on the device (each is a per-element factor applied in a pass the transform makes anyway):
INTT's 1/n and coset_NTT's g^i become one output factor g^i / n of the INTT's last pass (a and b); c's INTT gets
the constant 1 / (n (g^n - 1)); the final transform's 1/n, g^-i and (g^n - 1)^-1 become one factor
g^-i / (n (g^n - 1)). The products A_j B_j are made by B's NTT, whose last pass multiplies each output by A's
(ntt.cu out_factor), and the final transform's last pass subtracts c's scaled coefficients (out_minus): no
element-wise pass of its own reads and writes the vectors again. The factors g^i / n, then g^-i / (n (g^n - 1)), are
read from coset tables (each factor's values for every i, one vector, gpu/ntt.py scale_table) when memory allows,
else made as the product of two small tables' entries: one Fr product an element less in each transform given a table
(coset_table_kinds; the prover's memory plan decides how many, beside the half table). Everything stays on the device; h is copied
back only by ``h_to_ints``. The check that h_{n-1} is zero (reference/ntt_h.py: QuotientNotPolynomialError) copies
back the batch's top coefficients only, one row each.

The snarkjs convention (reference/domain.py SNARKJS: omega = 5^((r-1)/n), g = omega_2n =
5^((r-1)/2n), quotient basis COSET) runs the first half on all three with root generator 5 and
g = omega_2n, and stops at E: its n values A_j B_j - C_j on the odd powers of omega_2n leave the
phase undivided (snarkjs folds Z(g) = -2 into its H query), exactly as reference/ntt_h.py does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reference.domain import BELLMAN, Basis, DomainConvention
from reference.errors import InvalidInputError, QuotientNotPolynomialError, SizeMismatchError
from reference.field import R

from . import device
from .field import to_ints
from .ntt import (Scale, half_table_bytes, kernel_module, large_table_bytes, large_table_held, scale_table, table_bytes,
                  tables_that_fit, transform, transform_in_pair, use_half_table, vector_shape)
from .limbs import FR

WORK_BUFFERS = 4
"""Device buffers of a, b, c's size that ntt_h allocates at most: snarkjs's A, B, C and one scratch. bellman's route
uses three (A, then its buffer for c's coefficients once B's NTT has read it; B; the scratch): memory plans count
four, the larger."""

ELEMENTWISE_THREADS = 256


@dataclass(frozen=True)
class NttHScales:
    """The factors ntt_h fuses into its transforms' last passes (module docstring); g = convention.coset_shift(log_n):
    7 for bellman, omega_2n = 5^((r-1)/2n) for snarkjs (whose ntt_h stops before the final inverse transform)."""

    to_coset: Scale
    """After INTT(a), INTT(b) (and snarkjs's INTT(c)): g^i / n."""
    c_coefficients: Scale
    """After bellman's INTT(c): 1 / (n (g^n - 1))."""
    from_coset: Scale
    """After the final inverse transform: g^-i / (n (g^n - 1))."""


def ntt_h_scales(log_n: int, convention: DomainConvention = BELLMAN) -> NttHScales:
    n = 1 << log_n
    n_inv = pow(n, -1, R)
    g = convention.coset_shift(log_n)
    n_z_inv = n_inv * pow((pow(g, n, R) - 1) % R, -1, R) % R
    return NttHScales(to_coset=Scale(n_inv, g), c_coefficients=Scale(n_z_inv), from_coset=Scale(n_z_inv, pow(g, -1, R)))


MAX_COSET_TABLES = 2
"""Coset tables ntt_h can read (coset_table_kinds): bellman's two; snarkjs's route has one."""


def coset_table_kinds(log_n: int, convention: DomainConvention = BELLMAN) -> tuple[Scale, ...]:
    """ntt_h's coset tables, the most worth first, each as its key among gpu/ntt.py's large tables (the scale whose
    whole table it is): the factors g^i / n that end the inverse transforms of a and b (and snarkjs's c) on the coset
    (NttHScales.to_coset), then bellman's final transform's g^-i / (n (g^n - 1)) (from_coset; snarkjs's route has no
    final transform). A transform given its table reads its factor with one Fr product an element instead of two
    (ntt.scale_table); each table is one vector (4 GiB at 2^27)."""
    scales = ntt_h_scales(log_n, convention)
    return (scales.to_coset,) if convention.quotient_basis is Basis.COSET else (scales.to_coset, scales.from_coset)


def coset_tables_bytes(log_n: int, count: int, convention: DomainConvention = BELLMAN) -> int:
    """Device bytes the first ``count`` coset tables (coset_table_kinds) would add now: those not cached yet."""
    return sum(large_table_bytes(log_n, convention.root_generator, kind)
               for kind in coset_table_kinds(log_n, convention)[:count])


def coset_tables_held(log_n: int, convention: DomainConvention = BELLMAN) -> int:
    """How many of the coset tables (coset_table_kinds) are cached: made by a call that used them and not released
    since (the route the last calls took; gpu/ntt.py large_table_held)."""
    return sum(large_table_held(log_n, convention.root_generator, kind) for kind in coset_table_kinds(log_n, convention))


def check_coset_tables(count: int) -> None:
    """A caller's limit on the coset tables (ntt_h's and plan_batch's ``coset_tables``): 0 or more."""
    if count < 0:
        raise InvalidInputError("coset_tables", f"must be 0 or more, got {count}")


def memory_needed(batch: int, log_n: int, consume: bool = False, half_table: bool = False,
                  convention: DomainConvention = BELLMAN, coset_tables: int = 0) -> int:
    """Bytes ntt_h allocates beyond its inputs: WORK_BUFFERS vectors per circuit (one when it may overwrite its
    inputs) plus the twiddle tables (with ``half_table``, the half table if it is not cached yet: gpu/ntt.py) and the
    first ``coset_tables`` coset tables not cached yet."""
    buffers = 1 if consume else WORK_BUFFERS
    half = half_table_bytes(log_n, convention.root_generator) if half_table else 0
    coset = coset_tables_bytes(log_n, coset_tables, convention)
    return buffers * batch * (FR.element_bytes << log_n) + table_bytes(log_n) + half + coset


def require_memory(batch: int, log_n: int, consume: bool = False, half_table: bool = False,
                   convention: DomainConvention = BELLMAN, coset_tables: int = 0) -> None:
    """Raise GpuMemoryError (amount needed and free) if ntt_h's work buffers for this batch do not fit."""
    device.check_free_memory(memory_needed(batch, log_n, consume, half_table, convention, coset_tables),
                             f"ntt_h for {batch} circuit(s) at n = 2^{log_n}")


def _coset_tables_that_fit(batch: int, log_n: int, consume: bool, convention: DomainConvention) -> int:
    """How many coset tables (coset_table_kinds' first) fit in free device memory beside the half table and the work
    buffers (tables_that_fit; a held one takes no bytes more)."""
    room = device.free_device_memory() - memory_needed(batch, log_n, consume, True, convention)
    kinds = coset_table_kinds(log_n, convention)
    return tables_that_fit([large_table_bytes(log_n, convention.root_generator, kind) for kind in kinds], room)


def _check_inputs(a, b, c, log_n: int) -> int:
    batch, got_log_n = vector_shape(a, "a")
    if got_log_n != log_n:
        raise SizeMismatchError("a", f"has 2^{got_log_n} values per circuit; the domain has n = 2^{log_n}")
    for name, x in (("b", b), ("c", c)):
        vector_shape(x, name)
        if x.shape != a.shape:
            raise SizeMismatchError(name, f"has shape {x.shape}; a has {a.shape}")
    return batch


def _elementwise(kernel_name: str, what: str, *arrays) -> None:
    """One of ntt.cu's element-wise kernels over Montgomery Fr arrays of one shape; the first is updated in place."""
    count = arrays[0].size // FR.num_limbs
    blocks = (count + ELEMENTWISE_THREADS - 1) // ELEMENTWISE_THREADS
    kernel = kernel_module().get_function(kernel_name)
    device.launch(kernel, blocks, ELEMENTWISE_THREADS, (*arrays, np.uint64(count)), what)


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


def ntt_h(a, b, c, log_n: int, convention: DomainConvention = BELLMAN, consume: bool = False, first_circuit: int = 0,
          half_table: bool | None = None, coset_tables: int | None = None):
    """ntt_h's output for ``convention`` (reference/ntt_h.py), for each circuit, on the device.

    bellman (default): h_0..h_{n-2} of (a(x) b(x) - c(x)) / (x^n - 1), shape (n - 1, 8) or (batch, n - 1, 8).
    snarkjs: the n values E_j = (a b - c)(g omega^j), g = omega_2n (the odd powers of the 2n-th root),
    undivided, shape (n, 8) or (batch, n, 8).

    a, b, c: Montgomery Fr arrays (n, 8) or (batch, n, 8), the evaluations on H (evaluate's
    output); they are not modified, unless ``consume``: then they serve as the work buffers (3 of the 4
    vectors per circuit, see memory_needed) and hold garbage afterwards. Returns a device array in
    Montgomery form (a view into a work buffer; consumed, never into a, b or c). Raises GpuUnavailableError without a device and GpuMemoryError, saying how much is
    needed, when the work buffers do not fit. bellman: raises QuotientNotPolynomialError (check_top_coefficients) when a
    circuit's h_{n-1} is not zero, naming it as ``first_circuit`` + its index in the batch; snarkjs: no check, as in
    reference/ntt_h.py (no coefficient is computed). ``half_table``: whether the transforms' last passes read the half
    table (gpu/ntt.py); ``coset_tables``: how many of the coset tables the transforms read their factors from
    (coset_table_kinds, in its order; more than there are: all); None: as many as fit beside the work buffers (only
    beside the half table; the prover decides both in its memory plan). Either way the same values.
    """
    import cupy

    device.require_device()
    batch = _check_inputs(a, b, c, log_n)
    root = convention.root_generator
    if half_table is None:
        half_table = use_half_table(log_n, memory_needed(batch, log_n, consume, convention=convention), root)
    if coset_tables is not None:
        check_coset_tables(coset_tables)
    else:  # as the prover's plan: only beside the half table
        coset_tables = _coset_tables_that_fit(batch, log_n, consume, convention) if half_table else 0
    require_memory(batch, log_n, consume, half_table, convention, coset_tables)
    scales = ntt_h_scales(log_n, convention)
    tables = dict(root_generator=root, half_table=half_table)
    # each coset factor from one table read (out_factor, shared by the batch) if its table is taken, else as the
    # product of two small tables' entries (out_scale)
    factors = [dict(out_scale=scale) for scale in (scales.to_coset, scales.from_coset)]
    for k, kind in enumerate(coset_table_kinds(log_n, convention)[:coset_tables]):
        factors[k] = dict(out_factor=scale_table(log_n, kind, root))
    to_coset_factor, from_coset_factor = factors

    spare = cupy.empty_like(a)

    def to_coset(x, times=None):
        """x's values on the coset (times ``times``'s, element-wise): INTT with g^i / n fused, then NTT (g^i already
        applied). Consumed, x and spare are the pair of both transforms and the values land in x's buffer (a transform
        in place starts with a copy of its input, gpu/ntt.py); kept, the INTT writes a new buffer, the values land in
        it or in spare."""
        nonlocal spare
        if consume:
            coefficients = transform_in_pair(x, spare, inverse=True, **to_coset_factor, **tables)
            return transform_in_pair(coefficients, spare if coefficients is x else x, out_factor=times, **tables)
        coefficients = transform(x, inverse=True, out=cupy.empty_like(a), scratch=spare, **to_coset_factor, **tables)
        values = transform_in_pair(coefficients, spare, out_factor=times, **tables)
        spare = coefficients if values is spare else spare
        return values

    def own(result):
        """Consumed, the result in spare, never in a, b or c: the caller frees them, which may be views of one block of
        memory (gpu/evaluate.py), and counts one vector from here on (gpu/prover.py batch_bytes). The route leaves it
        in spare except where the parity of the passes puts it elsewhere (snarkjs; bellman at an even number of
        passes, 2^20 and below): one copy then, spare being free."""
        if not consume or result is spare:
            return result
        cupy.copyto(spare, result)
        return spare

    a_values = to_coset(a)
    if convention.quotient_basis is Basis.COSET:  # snarkjs: E = A B - C itself leaves the phase (Z(g) is in the H query)
        e = a_values
        _elementwise("fr_mul_sub", "ntt_h A*B - C", e, to_coset(b), to_coset(c))
        e = own(e)
        device.launch_check(f"ntt_h ({convention.name}) at n = 2^{log_n}", sync=True)
        return e
    # bellman: h = coset_INTT(A B) / Z(g) - INTT(c) / Z(g) (module docstring: C on the coset is never needed)
    ab = to_coset(b, times=a_values)
    free = a_values  # read by B's last pass, and no longer
    c_scale = dict(inverse=True, out_scale=scales.c_coefficients, **tables)
    c_scaled = (transform_in_pair(c, free, **c_scale) if consume  # in c's buffer or free's, no copy
                else transform(c, out=free, scratch=spare, **c_scale))
    h = own(transform_in_pair(ab, spare, inverse=True, out_minus=c_scaled, **from_coset_factor, **tables))
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
