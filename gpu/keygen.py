"""A deterministic Groth16 key generator on the GPU, FOR TEST VECTORS ONLY (reference/setup.py says why
these keys are not secure: the secrets come from a public seed).

It computes exactly reference.setup.setup's keys (same formulas, bellman's convention), so that proofs
at sizes the pure-Python setup cannot reach (2^16 .. 2^27) can be verified by the pairing check, and
every MSM-type phase can be checked against the discrete logs of the key points (the trapdoor):

    l_j(tau) = INTT(1, tau, tau^2, ..., tau^(n-1))_j       (l_j(tau) = n^-1 sum_k tau^k omega^(-jk),
                                                             the Lagrange basis of reference/domain.py)
    u_i, v_i, w_i = sum_j A[j][i] l_j(tau), ... B, C       (qap_columns: the CSR's terms sorted by
                                                             (matrix, variable), one thread per column)
    H_i  = tau^i Z(tau) / delta * G1   i < n - 1           (fr_powers)
    L_i  = (beta u_i + alpha v_i + w_i) / delta * G1        aux variables      (fr_combine)
    IC_i = (beta u_i + alpha v_i + w_i) / gamma * G1        inputs
    A_i  = u_i * G1 over the A density, B_G1_i = v_i * G1 and B_G2_i = v_i * G2 over the B density

Every point is (known scalar) * generator, computed by fixed-base multiplication (keygen.cu
fixed_base): a table of d * 2^(c w) * G for every c-bit window w and digit d, so a point costs one
mixed addition per window and no doubling; a run of points shares one inversion for the affine form.
The key points are left on the device (``DeviceQueries``) for the prover; only the verifying key
(7 points and the IC) comes back to the host.

Runs on the CuPy backend, or on the host emulation of the kernels (tests/native/) for small circuits,
where the field helpers below use Python ints instead of the GPU NTT.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from py_ecc.optimized_bls12_381 import G1, G2, multiply

from reference.domain import BELLMAN, DomainConvention, EvaluationDomain
from reference.errors import InvalidInputError, ToolkitError
from reference.field import R, inv
from reference.keys import ProvingKey, VerifyingKey
from reference.setup import Trapdoor

from .circuit import DeviceCircuit
from .limbs import FR_LIMBS
from .msm import DeviceBases, DeviceQueries, progression_bases
from .points import (
    G1_GROUP,
    G2_GROUP,
    Group,
    backend,
    download_points,
    launch,
    scalars_to_montgomery_limbs,
    u32,
)

KEYGEN_KERNELS = "keygen.cu"
FIXED_BASE_RUN = 32
"""Points one thread makes (and converts to affine with one inversion): the inversion (~570 Fq products)
is then under 10% of the run's 32 x 16 mixed additions, and a 2^23-point chunk still gives 2^18 threads."""
FIXED_BASE_CHUNK = 1 << 23
"""Points per fixed_base launch: bounds the XYZZ and prefix scratch (2^23 x 240 bytes in G1)."""
LARGE_TABLE_POINTS = 1 << 20
"""From this many points of a group on, 16-bit windows (16 additions a point, a 100 MB G1 table);
below it 8-bit windows (32 additions, a 0.8 MB table that is quick to build)."""
SCALAR_BITS = 256
QAP_PIECE_TERMS = 256
"""Terms one thread sums in qap_pieces: long columns (ONE is in most B rows) are cut into pieces of this size."""


@dataclass
class DeviceKey:
    """Keys made (or uploaded) for the GPU prover: the verifying key on the host, the queries on the device.

    ``scalars``, when kept: each query's discrete logs as host numpy arrays (points, 8) of Montgomery Fr limbs,
    keys 'h', 'l', 'a', 'b' (B_G1 and B_G2 share theirs), for the trapdoor checks of large proofs."""

    vk: VerifyingKey
    queries: DeviceQueries
    scalars: dict | None = None


# ---------------------------------------------------------------------------------------------
# Fr helpers that work on both backends (GPU: the NTT module; host emulation: Python ints)
# ---------------------------------------------------------------------------------------------


def _on_gpu() -> bool:
    """True on CuPy; False on the host emulation, whose array module is numpy's (tests/native/ec_host.py)."""
    return getattr(backend().xp, "__name__", "") == "cupy"


def _montgomery_limbs(values: list[int]):
    return backend().xp.asarray(scalars_to_montgomery_limbs([v % R for v in values]))


def _powers(base: int, count: int, constant: int = 1):
    """(count, 8) Montgomery limbs of constant * base^i."""
    if _on_gpu():
        from .ntt import powers

        return powers(base, count, constant)
    return _montgomery_limbs([constant * pow(base, i, R) % R for i in range(count)])


def _lagrange_at(log_n: int, x: int):
    """(n, 8) Montgomery limbs of l_j(x), j < n: INTT of the powers of x on the GPU (see the module docstring)."""
    if _on_gpu():
        from .ntt import inverse

        return inverse(_powers(x, 1 << log_n))
    return _montgomery_limbs(EvaluationDomain(log_n).lagrange_at(x))


# ---------------------------------------------------------------------------------------------
# QAP at tau and the key scalars
# ---------------------------------------------------------------------------------------------


def qap_at_tau(circuit: DeviceCircuit, tau: int):
    """(3, V, 8) Montgomery limbs: u_i(tau), v_i(tau), w_i(tau) for every variable i (reference.setup.qap_at)."""
    xp = backend().xp
    csr, n, columns = circuit.csr, circuit.n, 3 * circuit.num_variables
    out = xp.zeros((3, circuit.num_variables, FR_LIMBS), dtype=xp.uint32)
    terms = int(csr.row_start[-1])
    if terms == 0:
        return out
    lagrange = _lagrange_at(circuit.log_n, tau)
    term_row = xp.searchsorted(csr.row_start, xp.arange(terms, dtype=xp.int64), side="right") - 1
    column = (term_row // n) * circuit.num_variables + csr.var[:terms].astype(xp.int64)
    order = xp.argsort(column)
    column_start = xp.searchsorted(column[order], xp.arange(columns + 1, dtype=xp.int64)).astype(xp.int64)
    del column
    # Pieces of at most QAP_PIECE_TERMS terms (an empty column is one empty piece).
    lengths = column_start[1:] - column_start[:-1]
    per_column = xp.maximum((lengths + QAP_PIECE_TERMS - 1) // QAP_PIECE_TERMS, 1)
    piece_start = xp.zeros(columns + 1, dtype=xp.int64)
    piece_start[1:] = xp.cumsum(per_column)
    pieces = int(piece_start[-1])
    piece_column = (xp.searchsorted(piece_start, xp.arange(pieces, dtype=xp.int64), side="right") - 1).astype(xp.int64)
    del lengths, per_column
    partial = xp.empty((pieces, FR_LIMBS), dtype=xp.uint32)
    module = G1_GROUP.module(KEYGEN_KERNELS)
    launch(module, "qap_pieces", pieces, order, term_row, csr.coeff, column_start, piece_column, piece_start,
           np.uint64(QAP_PIECE_TERMS), lagrange, np.uint64(n), np.uint64(pieces), partial)
    del order, term_row, piece_column
    launch(module, "qap_columns", columns, partial, piece_start, np.uint64(columns), out)
    backend().check("keygen: u, v, w at tau")
    return out


def _combine(uvw, rows: slice, constants: tuple[int, int, int]):
    """(rows, 8) Montgomery limbs of k0 u_i + k1 v_i + k2 w_i for the variables in ``rows``."""
    xp = backend().xp
    u, v, w = (xp.ascontiguousarray(uvw[m, rows]) for m in range(3))
    out = xp.empty_like(u)
    launch(G1_GROUP.module(KEYGEN_KERNELS), "fr_combine", u.shape[0], u, v, w, _montgomery_limbs(list(constants)),
           np.uint64(u.shape[0]), out)
    return out


def _refuse_zero(scalars, variables: np.ndarray, query: str) -> None:
    """reference.setup._dense_scalars's check: a density variable whose QAP value is 0 would be a dropped point."""
    zero = ~scalars.any(axis=1)
    if bool(zero.any()):
        first = int(backend().xp.flatnonzero(zero)[0])
        raise ToolkitError(f"setup: variable {int(variables[first])} is in the {query} density but its QAP value at tau "
                           "is 0 (cancelling coefficients or an unlucky seed); choose another seed")


# ---------------------------------------------------------------------------------------------
# Fixed-base multiplication
# ---------------------------------------------------------------------------------------------


def window_bits_for_fixed_base(points: int) -> int:
    """8-bit windows for small keys, 16-bit from LARGE_TABLE_POINTS points on (both divide 256)."""
    return 16 if points >= LARGE_TABLE_POINTS else 8


def fixed_base_table(generator, group: Group, window_bits: int):
    """(windows * (2^c - 1), affine_words): entry w (2^c - 1) + d - 1 = d * 2^(c w) * generator, made on the device
    as the progressions start + i * step with start = step = 2^(c w) * generator (gpu.msm.progression_bases)."""
    xp = backend().xp
    windows = -(-SCALAR_BITS // window_bits)
    digits = (1 << window_bits) - 1
    rows = []
    for w in range(windows):
        base = multiply(generator, 1 << (window_bits * w))
        rows.append(progression_bases(digits, base, base, group))
    return xp.concatenate(rows)


def fixed_base_mul(scalars, group: Group, table=None, window_bits: int | None = None):
    """(count, affine_words) device array: scalars[i] * generator (affine Montgomery words, gpu/points.py),
    ``scalars`` (count, 8) Montgomery Fr limbs. ``table``: fixed_base_table(generator, group, window_bits)."""
    xp = backend().xp
    count = int(scalars.shape[0])
    out = xp.zeros((count, group.affine_words), dtype=xp.uint32)
    if count == 0:
        return out
    if table is None:
        window_bits = window_bits or window_bits_for_fixed_base(count)
        table = fixed_base_table(_generator(group), group, window_bits)
    windows = -(-SCALAR_BITS // window_bits)
    chunk = min(count, FIXED_BASE_CHUNK)
    backend().reserve(chunk * 4 * (group.xyzz_words + group.field_words), f"fixed-base scratch for {chunk} points")
    xyzz_scratch = xp.empty((chunk, group.xyzz_words), dtype=xp.uint32)
    prefix_scratch = xp.empty((chunk, group.field_words), dtype=xp.uint32)
    scalars = xp.ascontiguousarray(scalars)
    for start in range(0, count, chunk):
        size = min(chunk, count - start)
        launch(group.module(KEYGEN_KERNELS), group.kernel("fixed_base"), -(-size // FIXED_BASE_RUN), table,
               u32(window_bits), u32(windows), scalars[start : start + size], u32(size), u32(FIXED_BASE_RUN),
               xyzz_scratch, prefix_scratch, out[start : start + size])
    backend().check(f"keygen: {count} fixed-base {group.name.upper()} multiplications")
    return out


def _generator(group: Group):
    return G1 if group is G1_GROUP else G2


# ---------------------------------------------------------------------------------------------
# The keys
# ---------------------------------------------------------------------------------------------


def generate_keys(circuit: DeviceCircuit, trapdoor: Trapdoor, convention: DomainConvention = BELLMAN,
                  keep_scalars: bool = False, progress=None) -> DeviceKey:
    """reference.setup.setup(circuit, trapdoor)'s keys, with the query points left on the device.

    Only bellman's convention (the H query tau^i Z(tau)/delta); ``keep_scalars`` copies every query's
    discrete logs to the host (DeviceKey.scalars) for trapdoor checks. Raises ToolkitError, as the
    reference does, when a density variable's QAP value is 0."""
    if convention is not BELLMAN:
        raise InvalidInputError("convention", f"the GPU key generator makes bellman keys only, not {convention.name}")
    say = progress or (lambda message: None)
    xp = backend().xp
    t, n, ni = trapdoor, circuit.n, circuit.num_inputs
    variables = circuit.query_variables()
    say(f"keygen: u, v, w at tau for {circuit.num_variables} variables (n = 2^{circuit.log_n})")
    uvw = qap_at_tau(circuit, t.tau)

    gamma_inv, delta_inv = inv(t.gamma), inv(t.delta)
    z_tau = (pow(t.tau, n, R) - 1) % R
    scalars = {
        "h": _powers(t.tau, n - 1, z_tau * delta_inv % R),
        "l": _combine(uvw, slice(ni, None), (t.beta * delta_inv % R, t.alpha * delta_inv % R, delta_inv)),
        "a": uvw[0][xp.asarray(variables["a"])],
        "b": uvw[1][xp.asarray(variables["b"])],
    }
    ic_scalars = _combine(uvw, slice(0, ni), (t.beta * gamma_inv % R, t.alpha * gamma_inv % R, gamma_inv))
    del uvw
    _refuse_zero(scalars["a"], variables["a"], "A")
    _refuse_zero(scalars["b"], variables["b"], "B")

    g1_points = sum(int(s.shape[0]) for s in scalars.values()) + ni
    g1_bits, g2_bits = window_bits_for_fixed_base(g1_points), window_bits_for_fixed_base(int(scalars["b"].shape[0]))
    say(f"keygen: fixed-base tables ({g1_bits}-bit G1 windows, {g2_bits}-bit G2 windows)")
    g1_table = fixed_base_table(G1, G1_GROUP, g1_bits)
    words = {}
    for name in ("h", "l", "a", "b"):
        say(f"keygen: {scalars[name].shape[0]} {name.upper()} points in G1")
        words[name] = fixed_base_mul(scalars[name], G1_GROUP, g1_table, g1_bits)
    ic = download_points(fixed_base_mul(ic_scalars, G1_GROUP, g1_table, g1_bits), G1_GROUP)
    del g1_table
    say(f"keygen: {scalars['b'].shape[0]} B points in G2")
    b_g2 = fixed_base_mul(scalars["b"], G2_GROUP, fixed_base_table(G2, G2_GROUP, g2_bits), g2_bits)

    vk = VerifyingKey(
        alpha_g1=multiply(G1, t.alpha), beta_g1=multiply(G1, t.beta), beta_g2=multiply(G2, t.beta),
        gamma_g2=multiply(G2, t.gamma), delta_g1=multiply(G1, t.delta), delta_g2=multiply(G2, t.delta), ic=tuple(ic),
    )
    queries = DeviceQueries(
        h=DeviceBases(words["h"], G1_GROUP), l=DeviceBases(words["l"], G1_GROUP), a=DeviceBases(words["a"], G1_GROUP),
        b_g1=DeviceBases(words["b"], G1_GROUP), b_g2=DeviceBases(b_g2, G2_GROUP),
    )
    kept = {name: _to_host(s) for name, s in scalars.items()} if keep_scalars else None
    say("keygen: done")
    return DeviceKey(vk=vk, queries=queries, scalars=kept)


def to_proving_key(key: DeviceKey, circuit: DeviceCircuit) -> ProvingKey:
    """The reference's ProvingKey (py_ecc points, downloaded): for comparisons on small circuits."""
    q = key.queries
    return ProvingKey(
        vk=key.vk,
        h=tuple(download_points(q.h.words, G1_GROUP)), l=tuple(download_points(q.l.words, G1_GROUP)),
        a=tuple(download_points(q.a.words, G1_GROUP)), b_g1=tuple(download_points(q.b_g1.words, G1_GROUP)),
        b_g2=tuple(download_points(q.b_g2.words, G2_GROUP)), density=circuit.density.to_density(),
    )


def _to_host(x) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)
