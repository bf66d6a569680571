"""Phase ``evaluate`` on the device: the R1CS rows applied to every circuit's witness.

    a_j = <A_j, z>,  b_j = <B_j, z>,  c_j = <C_j, z>   (mod r)

for every row j (the circuit's constraints, then one ``input_i * 0 = 0`` row per input, see
reference.r1cs.R1CS.rows), zero-padded to the domain size n: the same values as
reference/evaluate.py. The matrices become one CSR (compressed sparse rows) on the host, built
once per R1CS with numpy; the products run on the device for all circuits in one launch
(kernel evaluate_rows, gpu/kernels/evaluate.cu).

A convention with ``c_from_product`` (snarkjs, whose key has no C matrix; reference/evaluate.py) checks
every row against C on the device (``check_rows``: UnsatisfiedConstraintError names the first failing
row) and then sets c_j = a_j * b_j for every j < n, as the reference does. For a satisfying witness the
values are the same as C.z; the product is written anyway so that the output is the reference's by
construction, not by an argument about the witness.

``evaluate`` is the phase's single GPU implementation: the conformance adapter calls it, and gpu/prover.py calls
it through ``evaluate_satisfied``, which also refuses an unsatisfied witness in every convention, as
reference/prover.py's evaluate phase does (reference/evaluate.py evaluate_satisfied), so that the check's device
time is inside the phase's timer, as the reference's is.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from reference.domain import BELLMAN, DomainConvention
from reference.errors import SizeMismatchError, UnsatisfiedConstraintError
from reference.r1cs import R1CS

from . import device
from .field import apply_op, check_device_array, to_ints, to_montgomery, to_montgomery_
from .limbs import FR, ints_to_limbs

MATRICES = ("a", "b", "c")
EVALUATE_THREADS = 256
MAX_CIRCUITS = 65535
"""The circuit index is blockIdx.y, whose limit is 65535."""


@dataclass(frozen=True)
class HostCsr:
    """A, B and C stacked into one CSR of 3n rows (rows past num_rows are empty: the zero padding)."""

    log_n: int
    num_variables: int
    row_start: np.ndarray  # int64, 3n + 1 entries
    var: np.ndarray  # int32, one per non-zero term
    coeff: np.ndarray  # uint32 (terms, 8): plain limbs of each coefficient


@dataclass(frozen=True)
class DeviceR1cs:
    """The stacked CSR on the device (coefficients in Montgomery form), reusable across calls."""

    log_n: int
    num_variables: int
    row_start: object
    var: object
    coeff: object
    num_rows: int
    """The R1CS's rows (constraints and input rows): the rows a c_from_product convention checks against C."""


def build_csr(r1cs: R1CS) -> HostCsr:
    """Stack r1cs.rows('a'), rows('b'), rows('c'), each padded to n rows, into one CSR."""
    n = r1cs.n
    lengths = np.zeros(3 * n, dtype=np.int64)
    rows = [r1cs.rows(m) for m in MATRICES]
    for m, matrix_rows in enumerate(rows):
        lengths[m * n : m * n + len(matrix_rows)] = [len(row) for row in matrix_rows]
    row_start = np.zeros(3 * n + 1, dtype=np.int64)
    np.cumsum(lengths, out=row_start[1:])
    terms = list(itertools.chain.from_iterable(itertools.chain.from_iterable(rows)))
    var = np.fromiter((v for v, _ in terms), dtype=np.int32, count=len(terms))
    coeff = ints_to_limbs([c for _, c in terms], FR, "r1cs coefficients")
    return HostCsr(r1cs.log_n, r1cs.num_variables, row_start, var, coeff)


def upload_r1cs(r1cs: R1CS) -> DeviceR1cs:
    """Build the CSR and put it on the device (coefficients converted to Montgomery form there)."""
    return csr_to_device(build_csr(r1cs), r1cs.num_rows)


def csr_to_device(csr: HostCsr, num_rows: int, consume: bool = False) -> DeviceR1cs:
    """A stacked CSR (numpy or already CuPy arrays, plain coefficient limbs) on the device, coefficients in
    Montgomery form (converted there on a copy; with ``consume``, a CuPy ``csr.coeff`` is converted in place
    instead, which saves a copy of the largest array of a large circuit but leaves csr.coeff in Montgomery form)."""
    import cupy

    device.require_device()
    if len(csr.var):
        in_place = consume and isinstance(csr.coeff, cupy.ndarray) and csr.coeff.dtype == np.uint32
        coeff = csr.coeff if in_place else cupy.array(csr.coeff, dtype=np.uint32, copy=True)
        to_montgomery_(coeff)
        var = cupy.asarray(csr.var, dtype=np.int32)
    else:  # (a zero-length device array cannot be passed to a kernel)
        coeff = cupy.zeros((1, FR.num_limbs), dtype=np.uint32)
        var = cupy.zeros(1, dtype=np.int32)
    return DeviceR1cs(csr.log_n, csr.num_variables, cupy.asarray(csr.row_start, dtype=np.int64), var, coeff, num_rows)


def witnesses_to_device(witnesses, num_variables: int):
    """(circuits, num_variables, 8) canonical Fr limbs of the witnesses z = [1, public..., aux...] on the device,
    the layout evaluate() and gpu.prep.prep take (and gpu.prover uploads)."""
    import cupy

    witnesses = [list(z) for z in witnesses]
    if not 1 <= len(witnesses) <= MAX_CIRCUITS:
        raise SizeMismatchError("witnesses", f"has {len(witnesses)} circuits; give 1..{MAX_CIRCUITS}")
    for i, z in enumerate(witnesses):
        if len(z) != num_variables:
            raise SizeMismatchError(f"witnesses[{i}]", f"has {len(z)} values; the R1CS has {num_variables} variables")
    return cupy.asarray(np.stack([ints_to_limbs(z, FR, f"witnesses[{i}]") for i, z in enumerate(witnesses)]))


def evaluate(csr: DeviceR1cs, z_plain, convention: DomainConvention = BELLMAN, first_circuit: int = 0):
    """(a, b, c): device arrays (circuits, n, 8), Montgomery Fr, a[k, j] = <A_j, z_k> etc.; the single GPU
    implementation of reference/evaluate.py (gpu/prover.py and conformance both call it).

    ``csr``: upload_r1cs()'s (or DeviceCircuit.csr); ``z_plain`` (circuits, num_variables, 8) canonical limbs
    on the device (witnesses_to_device's layout), not modified; ``first_circuit`` numbers the circuits in
    errors when ``z_plain`` is a block of a larger call. With ``convention.c_from_product`` (snarkjs's
    groth16_prove.js, buildABC1): c[k, j] = a[k, j] * b[k, j], once every row has been checked against C
    (``check_rows``: UnsatisfiedConstraintError names the first failing one).
    """
    import cupy

    device.require_device()
    if z_plain.ndim != 3 or z_plain.shape[1:] != (csr.num_variables, FR.num_limbs):
        raise SizeMismatchError("witnesses", f"device array has shape {tuple(z_plain.shape)}; expected "
                                f"(circuits, {csr.num_variables}, {FR.num_limbs})")
    if not 1 <= z_plain.shape[0] <= MAX_CIRCUITS:
        raise SizeMismatchError("witnesses", f"has {z_plain.shape[0]} circuits; give 1..{MAX_CIRCUITS}")
    circuits, n = z_plain.shape[0], 1 << csr.log_n
    device.check_free_memory(3 * circuits * n * FR.element_bytes, f"evaluate for {circuits} circuit(s) at n = 2^{csr.log_n}")
    z = to_montgomery(z_plain)
    out = cupy.empty((len(MATRICES), circuits, n, FR.num_limbs), dtype=np.uint32)
    blocks = (len(MATRICES) * n + EVALUATE_THREADS - 1) // EVALUATE_THREADS
    kernel = kernel_module().get_function("evaluate_rows")
    args = (csr.row_start, csr.var, csr.coeff, z, np.uint64(csr.num_variables), np.uint64(n), out)
    device.launch(kernel, (blocks, circuits), EVALUATE_THREADS, args, "evaluate")
    device.launch_check("evaluate", sync=True)
    del z
    a, b, c = out[0], out[1], out[2]
    if convention.c_from_product:
        check_rows(a, b, c, csr.num_rows, first_circuit)
        c[...] = apply_op("mul", a, b)
        device.launch_check(f"evaluate ({convention.name}: c = a * b)", sync=True)
    return a, b, c


def kernel_module():
    """The module of evaluate's kernel (gpu/kernels/evaluate.cu)."""
    return device.load_module("evaluate.cu")


def evaluate_satisfied(csr: DeviceR1cs, z_plain, convention: DomainConvention = BELLMAN, first_circuit: int = 0):
    """``evaluate``, refusing a witness that does not satisfy the R1CS (UnsatisfiedConstraintError naming the first
    failing circuit and row) in every convention, as reference/evaluate.py evaluate_satisfied: with
    ``c_from_product`` evaluate has checked the rows already."""
    a, b, c = evaluate(csr, z_plain, convention, first_circuit)
    if not convention.c_from_product:
        check_rows(a, b, c, csr.num_rows, first_circuit)
    return a, b, c


def check_rows(a, b, c, num_rows: int, first_circuit: int = 0) -> None:
    """Raise UnsatisfiedConstraintError at the first (circuit, row j < num_rows) with a_j b_j != c_j (circuits
    numbered from ``first_circuit``, for a block of a larger call).

    One launch (first_unsatisfied_rows) reads a, b and c once and leaves each circuit's least failing row; only
    those (one word a circuit) are copied back, so the check costs no transfer of a, b, c (a prover must not go on
    with an unsatisfied witness)."""
    import cupy

    for name, x in (("a", a), ("b", b), ("c", c)):
        check_device_array(x, FR, name)
        if x.ndim != 3 or x.shape != a.shape:
            raise SizeMismatchError(name, f"has shape {x.shape}; expected a's (circuits, n, {FR.num_limbs}), as evaluate returns")
    circuits, n = a.shape[0], a.shape[1]
    if not 1 <= num_rows <= n:  # (an R1CS has at least its ONE input's row)
        raise SizeMismatchError("num_rows", f"{num_rows} rows for a domain of {n}")
    none_failing = np.iinfo(np.uint64).max
    first_failing = cupy.full(circuits, none_failing, dtype=np.uint64)
    blocks = (num_rows + EVALUATE_THREADS - 1) // EVALUATE_THREADS
    kernel = kernel_module().get_function("first_unsatisfied_rows")
    device.launch(kernel, (blocks, circuits), EVALUATE_THREADS, (a, b, c, np.uint64(n), np.uint64(num_rows), first_failing),
                  "evaluate (the rows' check)")
    failing = [(k, int(row)) for k, row in enumerate(first_failing.get()) if row != none_failing]
    if failing:
        circuit, row = failing[0]
        a_j, b_j, c_j = (to_ints(x[circuit, row : row + 1])[0] for x in (a, b, c))
        raise UnsatisfiedConstraintError(first_circuit + circuit, row, a_j, b_j, c_j)


def evaluations_to_ints(values) -> list[list[int]]:
    """Copy one of evaluate's arrays (circuits, n, 8) back: per circuit, n Python ints."""
    flat = to_ints(values)
    n = values.shape[1]
    return [flat[k * n : (k + 1) * n] for k in range(values.shape[0])]
