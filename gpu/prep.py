"""Phase ``prep`` for the GPU prover: supraseal-c2's split, vectorised over whole arrays.

The split rules and the bitmap layout are stated once, in reference/prep.py's module docstring (the
normative text; vectors/FORMAT.md cites it); this module applies them, nothing more.

Where it runs, and why: the work is a handful of element-wise comparisons, one reduction over
circuits and one gather, all memory-bound. It is written against the array API that numpy and
CuPy share (``xp`` is whichever module holds the witness), so with the witness already on the
device it runs there with no transfer (the tail scalars feed the GPU tail MSM directly), and on
the host it runs on numpy for tests and for callers that keep witnesses in host memory.

Scalars are canonical (not Montgomery) little-endian uint32 limbs, shape (circuits, variables, 8),
as ``gpu.limbs`` produces them from vector data.
"""
import functools
from dataclasses import dataclass

import numpy as np

from gpu.limbs import limbs_to_ints
from reference.prep import PREP_QUERIES, WORD_BITS, Prep, QuerySplit
from reference.errors import SizeMismatchError


@dataclass
class DeviceSplit:
    """One query's split as arrays (numpy or CuPy, like the witness).

    ``bitmaps``: (circuits, words) uint64, bit i of the query's points = bit (i mod 64) of word i // 64;
    ``tail_indices``: (tail,) int64 ascending; ``tail_scalars``: (circuits, tail, 8) uint32 canonical limbs.
    """

    split: bool
    bitmaps: object
    tail_indices: object
    tail_scalars: object


def _array_module(x):
    """numpy or cupy, whichever owns ``x`` (CuPy is imported only if the array is CuPy's)."""
    if type(x).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def split_query(scalars, is_input) -> DeviceSplit:
    """Split one query: ``scalars`` (circuits, points, 8) canonical limbs, ``is_input`` (points,) bool."""
    xp = _array_module(scalars)
    index = xp.arange(scalars.shape[1], dtype=xp.int64)
    return _split(scalars, index, xp.asarray(is_input, dtype=bool), value_classes(scalars))


def _pack_bits(bits, words: int, xp):
    """(circuits, points) bool -> (circuits, words) uint64, little-endian bit order within each word: each row padded
    to whole words, then all rows packed in one call (packbits has no axis argument in CuPy; whole words per row keep
    the rows apart)."""
    padded = xp.zeros((bits.shape[0], words * WORD_BITS), dtype=bool)
    padded[:, : bits.shape[1]] = bits
    return xp.packbits(padded.reshape(-1), bitorder="little").view(xp.uint64).reshape(bits.shape[0], words)


def _classify(l0, l1, l2, l3, l4, l5, l6, l7):
    """A value's class from its 8 limbs: (== 1, neither 0 nor 1). Plain array code: numpy runs it as is; on the
    device it is one fused kernel that reads each 32-byte value once (_fused)."""
    high_zero = (l1 | l2 | l3 | l4 | l5 | l6 | l7) == 0
    return high_zero & (l0 == 1), ~high_zero | (l0 > 1)


def _fused(xp, function):
    """``function`` as one fused kernel when ``xp`` is CuPy (gpu.device.fused, made once and kept), else itself."""
    return function if xp is np else _device_fused(function)


@functools.cache
def _device_fused(function):
    from gpu import device

    return device.fused(function, f"prep: {function.__name__} (fused)")


@dataclass
class ValueClasses:
    """What the split decisions read of a witness: ``is_one`` (circuits, variables) bool, whose values are exactly 1;
    ``tail_any`` (variables,) bool, where some circuit's value is neither 0 nor 1."""

    is_one: object
    tail_any: object


def value_classes(z_limbs) -> ValueClasses:
    """The classes of every witness value, one circuit at a time so that the temporaries stay at one circuit's size."""
    xp = _array_module(z_limbs)
    classify = _fused(xp, _classify)
    shape = z_limbs.shape[:2]
    is_one = xp.empty(shape, dtype=bool)
    tail_any = xp.zeros(shape[1], dtype=bool)
    for k in range(shape[0]):
        one, other = classify(*(z_limbs[k, :, j] for j in range(z_limbs.shape[2])))
        is_one[k] = one
        tail_any |= other
    return ValueClasses(is_one=is_one, tail_any=tail_any)


def split_query_of(z_limbs, variables, num_inputs: int, classes) -> DeviceSplit:
    """split_query for the query whose points are the witness indices ``variables``, without gathering the
    whole query's scalars: the decisions use ``classes`` (value_classes(z_limbs)); only the tail is gathered."""
    index = _array_module(z_limbs).asarray(variables, dtype=np.int64)
    return _split(z_limbs, index, index < num_inputs, classes)


def _split(z_limbs, index, is_input, classes) -> DeviceSplit:
    """The split of the query whose point i has scalar z_limbs[:, index[i]] (reference/prep.py's rules);
    ``classes`` = value_classes(z_limbs), ``is_input`` (points,) bool."""
    xp = _array_module(z_limbs)
    num_circuits, num_points = z_limbs.shape[0], int(index.size)
    one = classes.is_one[:, index]
    tail_mask = is_input | classes.tail_any[index]
    tail_indices = xp.flatnonzero(tail_mask).astype(xp.int64)
    words = -(-num_points // WORD_BITS)
    if 2 * int(tail_indices.size) > num_points:
        return DeviceSplit(
            split=False,
            bitmaps=xp.zeros((num_circuits, words), dtype=xp.uint64),
            tail_indices=xp.arange(num_points, dtype=xp.int64),
            tail_scalars=z_limbs[:, index, :],  # (a gather: a copy)
        )
    batched = one & ~is_input[None, :]
    tail_scalars = z_limbs[:, index[tail_indices], :]
    tail_scalars[batched[:, tail_indices]] = 0  # counted by batch addition instead
    return DeviceSplit(split=True, bitmaps=_pack_bits(batched, words, xp), tail_indices=tail_indices, tail_scalars=tail_scalars)


def prep(z_limbs, num_inputs: int, num_aux: int, density, variables: dict | None = None) -> dict[str, DeviceSplit]:
    """The L, A and B splits for every circuit; ``z_limbs`` (circuits, variables, 8) holds z = [1, inputs, aux];
    ``density`` a reference.r1cs.Density or a gpu.circuit.QueryDensity; ``variables``: its query_variables()
    already in z_limbs's array module (DeviceCircuit.device_query_variables), computed here if None."""
    from gpu.circuit import QueryDensity

    if not isinstance(density, QueryDensity):
        density = QueryDensity.from_density(density)
    if len(density.a_aux) != num_aux:
        raise SizeMismatchError("density", f"has {len(density.a_aux)} aux entries; the circuit has {num_aux}")
    classes = value_classes(z_limbs)
    variables = variables if variables is not None else density.query_variables(num_inputs)
    return {query: split_query_of(z_limbs, indices, num_inputs, classes) for query, indices in variables.items()}


def to_reference(splits: dict[str, DeviceSplit]) -> Prep:
    """The same split as reference.prep.Prep (Python ints and bytes), for comparison with the reference."""
    out = {}
    for q in PREP_QUERIES:
        s = splits[q]
        bitmaps = _to_numpy(s.bitmaps).astype("<u8")
        scalars = _to_numpy(s.tail_scalars)
        out[q] = QuerySplit(
            split=s.split,
            tail_indices=tuple(int(i) for i in _to_numpy(s.tail_indices)),
            bitmaps=tuple(row.tobytes() for row in bitmaps),
            tail_scalars=tuple(tuple(limbs_to_ints(row)) for row in scalars),
        )
    return Prep(**out)


def _to_numpy(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)
