"""NTTs over Fr on the device: forward, inverse, coset forward, coset inverse; natural order in and out.

Conventions (docs/ARCHITECTURE.md, reference/domain.py, "bellman"): for n = 2^k,
omega = 7^((r-1)/n) mod r and the coset generator is g = 7. ``transform`` takes the root generator
as a parameter (default 7); snarkjs's convention uses 5 (omega = 5^((r-1)/n)), and its coset
factors are plain ``Scale`` tables (gpu/ntt_h.py).

    forward:        NTT(v)_j  = sum_i v_i omega^(ij)
    inverse:        INTT(e)_i = n^-1 sum_j e_j omega^(-ij)
    coset forward:  NTT(v_i g^i)                   (evaluations on g*H)
    coset inverse:  INTT(e)_i g^-i                 (coefficients from evaluations on g*H)

Arrays are cupy uint32 arrays of shape (n, 8) or (batch, n, 8), Fr elements in Montgomery form;
a batch (several circuits' vectors) is transformed by one launch per pass. The algorithm
(Stockham autosort, at most 3 passes of radix <= 2^10, shared-memory DFTs) is described in
gpu/kernels/ntt.cu. Twiddle tables are computed on the device by the fr_powers kernel and cached
per (device, root generator, log n); only the two scalars each table starts from (its base and its first entry) are
sent. The device is part of every cache key because a table lives on the device that was current when it was made,
and gpu/multi.py runs blocks on several devices (device.current_device_id).

The last pass multiplies each element by a twiddle w_n^e, e < n. It reads it from the half table w_n^i, i < n/2
(half an input vector's bytes, one table for both directions; ntt.cu half_table_twiddle) when memory allows, else
makes it as the product of two small tables' entries: the same value, one Fr product more an element (~1/15 of a
transform's products at 2^27). ``half_table=None`` lets a call decide by the free memory (use_half_table); the
prover decides in its memory plan (gpu/prover.py) and passes the choice down.

A per-element scale c base^i is likewise the product of two small tables' entries (SCALE_TABLE), then applied: two
Fr products an element. Its whole table (scale_table, one vector) makes it one: handed to the last pass as a factor
shared by the batch (``out_factor``), as ntt_h does for its coset factors when its memory plan allows. The half table
and the scale tables are the large tables (_LARGE_TABLES): cached per device until a memory plan releases them.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from reference.errors import InvalidInputError, SizeMismatchError
from reference.field import R

from . import device
from .field import check_device_array
from .limbs import FR, ints_to_limbs

ROOT_GENERATOR = 7
"""omega_n = 7^((r-1)/n) (bellman's convention): the default root generator of every transform.
snarkjs's convention passes root_generator=5 (reference/domain.py SNARKJS); twiddles are cached per generator."""
COSET_GENERATOR = 7
"""g: the coset g*H on which ntt_h divides by Z."""

MIN_LOG_N = 1
MAX_LOG_N = 27
"""2^27 Fr elements = 4 GiB per vector: the largest size this module is tested at."""

MAX_LOG_RADIX = 10
"""Largest DFT inside one pass (MAX_LOG_RADIX in ntt.cu): n = 2^k takes ceil(k / 10) passes."""
BLOCK_LOG_ELEMENTS = 10
"""Elements held by one thread block (BLOCK_LOG_ELEMENTS in ntt.cu)."""
REGISTER_STAGES = 3
"""DIF stages one thread runs in registers on 2^REGISTER_STAGES elements in every pass but the last (ntt.cu
ntt_pass_grouped, NTT_REGISTER_STAGES, 1..3; the module is built with this value, so that bench/bench_ntt.py
--register-stages can time the others): (2^BLOCK_LOG_ELEMENTS) >> REGISTER_STAGES threads a block, one a group. The
last pass (ntt_pass) runs one stage at a time with STAGED_THREADS threads."""
STAGED_THREADS = (1 << BLOCK_LOG_ELEMENTS) >> 2
"""Threads a block of ntt.cu ntt_pass (its STAGED_THREADS, __launch_bounds__): two butterflies a stage each."""
MAX_BATCH = 65535
"""The batch index is blockIdx.y, whose limit is 65535."""
POWERS_THREADS = 256

# Mode numbers shared with ntt.cu (TWIDDLE_* and SCALE_*).
TWIDDLE_NONE, TWIDDLE_HI, TWIDDLE_HI_LO, TWIDDLE_HALF, TWIDDLE_HALF_INVERSE = 0, 1, 2, 3, 4
SCALE_NONE, SCALE_CONST, SCALE_TABLE = 0, 1, 2

ELEMENT_BYTES = FR.element_bytes


def omega(log_n: int, root_generator: int = ROOT_GENERATOR) -> int:
    """The primitive 2^log_n-th root of unity root_generator^((r-1)/2^log_n) mod r (7: bellman, 5: snarkjs).

    root_generator must be a quadratic non-residue mod r so that the power is primitive (reference/domain.py)."""
    return pow(root_generator, (R - 1) >> log_n, R)


def pass_twiddle_modes(passes: int, last_mode: int) -> list[int]:
    """Each pass's twiddle mode: pass 0 has none (its exponents are 0: ns = 1), middle passes read hi, the last reads
    ``last_mode``'s tables (TWIDDLE_HI_LO or a half-table mode). A one-pass transform is pass 0 alone: no twiddles."""
    return [TWIDDLE_NONE if p == 0 else TWIDDLE_HI if p < passes - 1 else last_mode for p in range(passes)]


def plan_passes(log_n: int) -> tuple[int, ...]:
    """log2 of each pass's radix: as few passes as MAX_LOG_RADIX allows, radices as equal as possible."""
    passes = -(-log_n // MAX_LOG_RADIX)
    base, extra = divmod(log_n, passes)
    return tuple(base + (1 if p < extra else 0) for p in range(passes))


@dataclass(frozen=True)
class Scale:
    """The per-element factor constant * base^i, i the element's index (natural order)."""

    constant: int
    base: int = 1

    @property
    def mode(self) -> int:
        """SCALE_CONST when the factor is the same for every i (base 1), else SCALE_TABLE."""
        return SCALE_CONST if self.base == 1 else SCALE_TABLE


def kernel_module():
    """The module of the NTT kernels (gpu/kernels/ntt.cu)."""
    return device.load_module("ntt.cu", options=(f"-DNTT_REGISTER_STAGES={REGISTER_STAGES}",))


def _mont_scalars(*values: int):
    """A small device array of scalars in Montgomery form (kernel parameters)."""
    import cupy

    return cupy.asarray(ints_to_limbs([FR.to_montgomery(v % R) for v in values], FR, "scalars"))


def powers(base: int, count: int, constant: int = 1):
    """Device array (count, 8): constant * base^i for i < count (Montgomery form), computed by fr_powers."""
    import cupy

    out = cupy.empty((count, FR.num_limbs), dtype=np.uint32)
    params = _mont_scalars(base, constant)
    blocks = (count + POWERS_THREADS - 1) // POWERS_THREADS
    device.launch(kernel_module().get_function("fr_powers"), blocks, POWERS_THREADS, (out, np.uint64(count), params), "fr_powers")
    return out


def _kept(table, what: str):
    """``table`` once the kernels that write it have run. A kept table is read by every block on this device, each
    on a stream of its own (gpu/multi.py: --devices 0,0), with no event between them: one handed out while still
    queued could be read unwritten by another stream."""
    device.launch_check(what, sync=True)
    return table


@functools.lru_cache(maxsize=None)
def _roots(device_id: int, inverse: bool, root_generator: int):
    """w^e for e < 2^(MAX_LOG_RADIX - 1), w = omega_{2^MAX_LOG_RADIX} (or its inverse): the in-pass stage twiddles.

    Same generator as the pass twiddles, so that w_R = w_{2^10}^(2^10 / R) equals w_n^(n / R)."""
    w = omega(MAX_LOG_RADIX, root_generator)
    return _kept(powers(pow(w, -1, R) if inverse else w, 1 << (MAX_LOG_RADIX - 1)), "NTT stage twiddles")


@functools.lru_cache(maxsize=None)
def _twiddles(device_id: int, log_n: int, inverse: bool, root_generator: int):
    """(hi, lo, b): hi[i] = w_n^(i 2^b), lo[i] = w_n^i, b = log2 of the last pass's radix (see ntt.cu); cached per
    (device, log n, direction, root generator)."""
    w = omega(log_n, root_generator)
    if inverse:
        w = pow(w, -1, R)
    b = plan_passes(log_n)[-1]
    hi, lo = powers(pow(w, 1 << b, R), 1 << (log_n - b)), powers(w, 1 << b)
    return _kept((hi, lo, b), f"NTT pass twiddles of 2^{log_n}")


_LARGE_TABLES: dict = {}
"""(device, log n, root generator, kind) -> a table as large as half a vector or more: kind HALF, the half table of
twiddles, or a Scale, its whole table (scale_table). Kept for the process, as the small tables are (functools caches),
until a memory plan releases it (release_large_tables). The functions below read and release the current device's
only: each device's memory plan counts its own."""
HALF = "half"
"""The kind of the half table in _LARGE_TABLES."""


def _large_key(log_n: int, root_generator: int, kind) -> tuple:
    return device.current_device_id(), log_n, root_generator, kind


def _large_table(log_n: int, root_generator: int, kind, build):
    key = _large_key(log_n, root_generator, kind)
    table = _LARGE_TABLES.get(key)
    if table is None:  # (held in a local: a plan on another thread of this device may release the entry meanwhile)
        table = _LARGE_TABLES[key] = _kept(build(), f"NTT {'half' if kind == HALF else 'scale'} table of 2^{log_n}")
    return table


def _half_table(log_n: int, root_generator: int = ROOT_GENERATOR):
    """half[i] = w_n^i for i < n/2, w_n the forward root: the last pass's twiddles in both directions (TWIDDLE_HALF)."""
    return _large_table(log_n, root_generator, HALF, lambda: powers(omega(log_n, root_generator), 1 << (log_n - 1)))


def scale_table(log_n: int, scale: Scale, root_generator: int = ROOT_GENERATOR):
    """Device array (n, 8): scale's factor c base^i for every i < n, made from its two small tables by ntt.cu's
    fr_scale_table (scale_factor's own product). Handed to a transform as a shared ``out_factor``, it gives the last
    pass its factor with one Fr product an element instead of two. ``root_generator``: the transforms' (their
    convention's), so that a memory plan keeps or releases it with their half table (release_large_tables)."""
    if scale.mode != SCALE_TABLE:
        raise ValueError(f"scale_table: {scale} is the same factor for every element; it needs no table")

    def build():
        import cupy

        here = device.current_device_id()
        lo, hi, bits = _scale_tables(here, log_n, scale)
        count = 1 << log_n
        out = cupy.empty((count, FR.num_limbs), dtype=np.uint32)
        blocks = (count + POWERS_THREADS - 1) // POWERS_THREADS
        device.launch(kernel_module().get_function("fr_scale_table"), blocks, POWERS_THREADS,
                      (out, np.uint64(count), lo, hi, np.int32(bits)), "fr_scale_table")
        return out

    return _large_table(log_n, root_generator, scale, build)


def half_table_size(log_n: int) -> int:
    """Device bytes of the half table for 2^log_n (0 when a transform of this size is one pass: no twiddles)."""
    return 0 if len(plan_passes(log_n)) == 1 else (1 << (log_n - 1)) * ELEMENT_BYTES


def scale_table_size(log_n: int) -> int:
    """Device bytes of a scale table for 2^log_n: one vector."""
    return (1 << log_n) * ELEMENT_BYTES


def large_table_held(log_n: int, root_generator: int, kind) -> bool:
    """Whether that table is cached: made by a call that used it, and not released since (the prover's plan releases
    the tables it does not use)."""
    return _large_key(log_n, root_generator, kind) in _LARGE_TABLES


def half_table_held(log_n: int, root_generator: int = ROOT_GENERATOR) -> bool:
    """Whether the half table is cached (large_table_held)."""
    return large_table_held(log_n, root_generator, HALF)


def large_table_size(log_n: int, kind) -> int:
    """Device bytes of a large table of that kind: half_table_size for HALF, else (a scale's) scale_table_size."""
    return half_table_size(log_n) if kind == HALF else scale_table_size(log_n)


def large_table_bytes(log_n: int, root_generator: int, kind) -> int:
    """Device bytes that table would add now: large_table_size, or 0 when it is held."""
    return 0 if large_table_held(log_n, root_generator, kind) else large_table_size(log_n, kind)


def half_table_bytes(log_n: int, root_generator: int = ROOT_GENERATOR) -> int:
    """Device bytes that the half table would add now (large_table_bytes)."""
    return large_table_bytes(log_n, root_generator, HALF)


def large_tables_held_bytes() -> int:
    """Device bytes the current device's cached large tables hold (the prover's memory plan counts them as free:
    release_large_tables)."""
    here = device.current_device_id()
    return sum(table.nbytes for (d, *_), table in list(_LARGE_TABLES.items()) if d == here)


def release_large_tables(keep=()) -> None:
    """Drop every large table the current device caches but those named in ``keep``, each (log n, root generator,
    kind): their memory returns to CuPy's pool. (The list copies: blocks on one device run in threads of their own,
    gpu/multi.py.)"""
    here = device.current_device_id()
    kept = set(keep)
    for key in [k for k in list(_LARGE_TABLES) if k[0] == here and k[1:] not in kept]:
        _LARGE_TABLES.pop(key, None)


def tables_that_fit(table_bytes: list[int], room: int) -> int:
    """How many of the large tables whose bytes are ``table_bytes`` fit in ``room`` bytes, taken in their order (the
    most worth first) until one does not: the rule of every choice of large tables (use_half_table, gpu/ntt_h.py's own,
    gpu/prover.py plan_batch's)."""
    taken = 0
    for size in table_bytes:
        if size > room:
            break
        room -= size
        taken += 1
    return taken


def use_half_table(log_n: int, other_bytes: int, root_generator: int = ROOT_GENERATOR) -> bool:
    """Whether the half table fits (tables_that_fit) in free device memory beside ``other_bytes`` that the caller is
    about to allocate; a held one takes no bytes more."""
    room = device.free_device_memory() - other_bytes
    return tables_that_fit([half_table_bytes(log_n, root_generator)], room) == 1


@functools.lru_cache(maxsize=None)
def _scale_tables(device_id: int, log_n: int, scale: Scale):
    """(lo, hi, bits) with lo[i] = c base^i (i < 2^bits) and hi[i] = base^(i 2^bits): c base^i = lo[i mod 2^bits] hi[i >> bits]."""
    if scale.mode == SCALE_CONST:
        return _mont_scalars(scale.constant), _placeholder(device_id), 0
    bits = (log_n + 1) // 2
    lo = powers(scale.base, 1 << bits, scale.constant)
    hi = powers(pow(scale.base, 1 << bits, R), 1 << (log_n - bits))
    return _kept((lo, hi, bits), f"NTT scale tables of 2^{log_n}")


@functools.lru_cache(maxsize=None)
def _placeholder(device_id: int):
    """One zero element: the pointer handed for tables a pass does not read."""
    import cupy

    return _kept(cupy.zeros((1, FR.num_limbs), dtype=np.uint32), "NTT placeholder table")


def table_bytes(log_n: int) -> int:
    """Upper bound of the twiddle and scale tables one log n adds to the cache (both directions, 3 scales)."""
    b = plan_passes(log_n)[-1]
    bits = (log_n + 1) // 2
    twiddles = 2 * ((1 << (log_n - b)) + (1 << b))
    scales = 3 * ((1 << bits) + (1 << (log_n - bits)))
    return (twiddles + scales) * ELEMENT_BYTES


def check_log_n(log_n: int, name: str) -> None:
    """Refuse a transform of 2^log_n elements outside the sizes this module takes (MIN_LOG_N..MAX_LOG_N)."""
    if not MIN_LOG_N <= log_n <= MAX_LOG_N:
        raise SizeMismatchError(name, f"n = 2^{log_n} is outside 2^{MIN_LOG_N}..2^{MAX_LOG_N}")


def vector_shape(x, name: str = "x") -> tuple[int, int]:
    """(batch, log_n) of an (n, 8) or (batch, n, 8) Montgomery Fr array; clear errors otherwise."""
    check_device_array(x, FR, name)
    if x.ndim not in (2, 3):
        raise InvalidInputError(name, f"must have shape (n, 8) or (batch, n, 8), got {x.shape}")
    n = x.shape[-2]
    log_n = n.bit_length() - 1
    if n <= 0 or n & (n - 1):
        raise SizeMismatchError(name, f"has {n} elements per vector; an NTT needs a power of two")
    check_log_n(log_n, name)
    batch = x.shape[0] if x.ndim == 3 else 1
    if not 1 <= batch <= MAX_BATCH:
        raise SizeMismatchError(name, f"batch of {batch} vectors is outside 1..{MAX_BATCH}")
    return batch, log_n


NULL = np.uint64(0)
"""A null pointer kernel argument (a 64-bit value): a vector ntt_pass_fused does not read (out_factor, out_minus)."""


def _or_null(array):
    return NULL if array is None else array


def _check_like(x, **buffers) -> None:
    """Each buffer given (None: not given) a Montgomery Fr device array of x's shape; clear errors naming it otherwise."""
    for name, buf in buffers.items():
        if buf is not None:
            check_device_array(buf, FR, name)
            if buf.shape != x.shape:
                raise SizeMismatchError(name, f"has shape {buf.shape}; x has {x.shape}")


def _check_factor(x, out_factor) -> None:
    """out_factor (None: not given) a Montgomery Fr device array of x's shape, or one (n, 8) vector for a batch x."""
    if _factor_shared(x, out_factor):
        _check_like(x[0], out_factor=out_factor)
    else:
        _check_like(x, out_factor=out_factor)


def _factor_shared(x, out_factor) -> bool:
    """Whether out_factor is one vector for every vector of the batch x (ntt.cu ntt_pass_fused's factor_shared)."""
    return out_factor is not None and out_factor.ndim == 2 and x.ndim == 3


def _overlaps(a, b) -> bool:
    a0, b0 = a.data.ptr, b.data.ptr
    return a0 < b0 + b.nbytes and b0 < a0 + a.nbytes


def _launch_passes(src, dst, scratch, batch: int, log_n: int, inverse: bool, in_scale, out_scale,
                   root_generator: int, half_table: bool, out_factor=None, out_minus=None) -> None:
    """Run the passes src -> ... -> dst, alternating dst and scratch so that the last pass writes dst; the last pass's
    twiddles from the half table if ``half_table`` (module docstring); its outputs times ``out_factor``, less
    ``out_minus`` (read by the last pass only; None: not applied): out_minus of src's shape, out_factor too or one
    (n, 8) vector for every vector of a batch (_factor_shared)."""
    import cupy

    radices = plan_passes(log_n)
    last = len(radices) - 1
    targets = [dst if (last - p) % 2 == 0 else scratch for p in range(len(radices))]
    if len(radices) > 1 and _overlaps(src, targets[0]):
        # a Stockham pass cannot run in place (a block reads other blocks' outputs): start from a copy
        other = scratch if targets[0] is dst else dst
        cupy.copyto(other, src)
        src = other
    module = kernel_module()
    here = device.current_device_id()
    roots = _roots(here, inverse, root_generator)
    tw_hi, tw_lo, tw_bits = (_twiddles(here, log_n, inverse, root_generator) if last > 0
                             else (_placeholder(here), _placeholder(here), 0))
    last_mode, last_lo, last_lo_bits = TWIDDLE_HI_LO, tw_lo, tw_bits  # the last pass's mode, tw_lo argument, its bits
    if half_table and last > 0:
        last_mode, last_lo, last_lo_bits = (TWIDDLE_HALF_INVERSE if inverse else TWIDDLE_HALF,
                                            _half_table(log_n, root_generator), log_n - 1)
    modes = pass_twiddle_modes(len(radices), last_mode)
    none = (_placeholder(here), _placeholder(here), 0)
    in_lo, in_hi, in_bits = _scale_tables(here, log_n, in_scale) if in_scale else none
    out_lo, out_hi, out_bits = _scale_tables(here, log_n, out_scale) if out_scale else none
    fused = out_factor is not None or out_minus is not None  # ntt_pass_fused: ntt_pass's code stays the plain one's
    log_ns = 0
    for p, log_r in enumerate(radices):
        log_t = min(BLOCK_LOG_ELEMENTS, log_n) - log_r
        count = 1 << (log_r + log_t)
        tw_mode = modes[p]
        lo, lo_bits = (last_lo, last_lo_bits) if tw_mode >= TWIDDLE_HALF else (tw_lo, tw_bits)
        in_mode = in_scale.mode if (in_scale and p == 0) else SCALE_NONE
        out_mode = out_scale.mode if (out_scale and p == last) else SCALE_NONE
        args = (
            src, targets[p], np.int32(log_n), np.int32(log_r), np.int32(log_ns), np.int32(log_t),
            roots, tw_hi, lo, np.int32(lo_bits), np.int32(tw_mode),
            in_lo, in_hi, np.int32(in_bits), np.int32(in_mode),
            out_lo, out_hi, np.int32(out_bits), np.int32(out_mode),
        )  # fmt: skip
        grid = ((1 << log_n) // count, batch)
        if p < last:  # a register group of the first stages a thread
            kernel = module.get_function("ntt_pass_grouped")
            threads = min(1 << (BLOCK_LOG_ELEMENTS - REGISTER_STAGES), count >> min(REGISTER_STAGES, log_r))
        elif fused:
            kernel, threads = module.get_function("ntt_pass_fused"), min(STAGED_THREADS, count // 2)
            args += (_or_null(out_factor), _or_null(out_minus), np.int32(_factor_shared(src, out_factor)))
        else:
            kernel, threads = module.get_function("ntt_pass"), min(STAGED_THREADS, count // 2)
        device.launch(kernel, grid, threads, args, f"NTT pass {p} of 2^{log_n}")
        src = targets[p]
        log_ns += log_r


def transform(x, *, inverse: bool = False, in_scale: Scale | None = None, out_scale: Scale | None = None,
              out=None, scratch=None, root_generator: int = ROOT_GENERATOR, half_table: bool | None = None,
              out_factor=None):
    """y_j = sum_i (x_i s_i) w^(ij) t_j f_j, with w = omega^(+-1), s = in_scale, t = out_scale, f = ``out_factor``
    (None: 1; x's shape, or one (n, 8) vector for every vector of a batch, such as a scale_table; apart from out and
    scratch, which the passes write before the last reads it).

    omega = root_generator^((r-1)/n): 7 (bellman, the default) or 5 (snarkjs).

    Returns ``out`` (allocated if None), same shape as x. x is left unchanged unless it is ``out``
    (in place works). ``scratch`` (allocated if None) must not overlap x or out. ``half_table``: whether the last
    pass reads the half table (module docstring); None: if it fits beside this call's allocations (use_half_table).
    """
    import cupy

    batch, log_n = vector_shape(x, "x")
    allocating = (out is None) * x.nbytes + (scratch is None) * x.nbytes
    if half_table is None:
        half_table = use_half_table(log_n, allocating + table_bytes(log_n), root_generator)
    allocating += half_table_bytes(log_n, root_generator) if half_table else 0
    if allocating:  # (asking the driver costs microseconds: only when allocating)
        device.check_free_memory(allocating + table_bytes(log_n), f"NTT of {batch} x 2^{log_n}")
    _check_like(x, out=out, scratch=scratch)
    _check_factor(x, out_factor)
    out = cupy.empty_like(x) if out is None else out
    scratch = cupy.empty_like(x) if scratch is None else scratch
    if _overlaps(scratch, x) or _overlaps(scratch, out):
        raise InvalidInputError("scratch", "must not overlap x or out")
    if out_factor is not None and (_overlaps(out_factor, out) or _overlaps(out_factor, scratch)):
        raise InvalidInputError("out_factor", "must not overlap out or scratch")
    _launch_passes(x, out, scratch, batch, log_n, inverse, in_scale, out_scale, root_generator, half_table, out_factor)
    return out


def transform_in_pair(x, other, *, inverse: bool = False, in_scale: Scale | None = None,
                      out_scale: Scale | None = None, root_generator: int = ROOT_GENERATOR, half_table: bool,
                      out_factor=None, out_minus=None):
    """Transform x using only the buffers x and other (same shape); return whichever holds the result.

    x's contents are consumed. The output buffer is chosen so that no copy is needed: with an odd
    number of passes the result lands in ``other``, with an even number back in ``x``. ``half_table``: transform's
    (here a choice the caller made: this function allocates nothing else). Element-wise after the scale, in the
    last pass: y_j times ``out_factor``_j, then less ``out_minus``_j (arrays of x's shape, apart from x and other;
    out_factor may also be one (n, 8) vector for every vector of a batch, as in transform).
    """
    batch, log_n = vector_shape(x, "x")
    _check_like(x, out_minus=out_minus)
    _check_factor(x, out_factor)
    for name, extra in (("out_factor", out_factor), ("out_minus", out_minus)):
        if extra is not None and (_overlaps(extra, x) or _overlaps(extra, other)):  # both written before the last pass
            raise InvalidInputError(name, "must not overlap x or other")
    if len(plan_passes(log_n)) % 2:
        dst, scratch = other, x
    else:
        dst, scratch = x, other
    _launch_passes(x, dst, scratch, batch, log_n, inverse, in_scale, out_scale, root_generator, half_table,
                   out_factor, out_minus)
    return dst


def forward(x, out=None):
    """NTT(x)_j = sum_i x_i omega^(ij)."""
    return transform(x, out=out)


def inverse(x, out=None):
    """INTT(x)_i = n^-1 sum_j x_j omega^(-ij)."""
    _, log_n = vector_shape(x, "x")
    return transform(x, inverse=True, out_scale=Scale(pow(1 << log_n, -1, R)), out=out)


def coset_forward(x, out=None):
    """coset_NTT(x)_j = sum_i x_i g^i omega^(ij): evaluations at g omega^j."""
    return transform(x, in_scale=Scale(1, COSET_GENERATOR), out=out)


def coset_inverse(x, out=None):
    """coset_INTT(x)_i = g^-i n^-1 sum_j x_j omega^(-ij): coefficients from evaluations on g*H."""
    _, log_n = vector_shape(x, "x")
    return transform(x, inverse=True, out_scale=Scale(pow(1 << log_n, -1, R), pow(COSET_GENERATOR, -1, R)), out=out)
