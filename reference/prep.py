"""Phase ``prep``: supraseal-c2's split of each query's scalars into batch additions and a tail MSM.

This docstring is the normative statement of the split (vectors/FORMAT.md, gpu/prep.py and docs cite it);
source: supraseal-c2 c2/cuda/groth16_cuda.cu, ``generate_groth16_proofs_c``'s pre-processing (bit vectors,
merged masks, popcounts) and the ``split_vectors`` it fills (the half rule below since commit 68ab95d; the
earlier 0b76da4 always splits).

A Filecoin witness is mostly 0 and 1. A point whose scalar is 1 needs no multiplication: it is
*added* (batch addition over a bitmap); only the other non-zero scalars need an MSM (the *tail*).
For each query L, A and B (B_G1 and B_G2 share B's split), over the query's points in order
(see ``query_variables``):

* an aux position whose scalar is exactly 1 sets the circuit's bitmap bit;
* an aux position with any other non-zero scalar, and every input position, is a tail position
  (inputs are few and ONE is among them; supraseal always sends them to the MSM);
* the tail positions of one call are the union over its circuits, so that one MSM layout serves all;
  at a union position a circuit's tail scalar is its own scalar, or 0 where its own scalar is 1
  (that point is already in its bitmap);
* a query whose union covers more than half of its points is not split: splitting would save
  little and cost a second pass, so it becomes one full MSM (bitmaps all zero, every point in the
  tail with its full scalar).

Bitmaps: bit i (point i) is bit (i mod 8) of byte (i div 8), padded with zero bits to whole 64-bit
words, i.e. the little-endian u64 words a GPU reads.
"""
from dataclasses import dataclass

from .r1cs import Density

PREP_QUERIES = ("l", "a", "b")
"""The three splits: L, A, and B (shared by B_G1 and B_G2)."""

WORD_BITS = 64


@dataclass(frozen=True)
class QuerySplit:
    split: bool
    """False when the tail union covers more than half the points (one full MSM instead)."""
    tail_indices: tuple[int, ...]
    """Positions (into the query's points) of the tail MSM, ascending; shared by all circuits."""
    bitmaps: tuple[bytes, ...]
    """Per circuit: the batch-addition bitmap over the query's points."""
    tail_scalars: tuple[tuple[int, ...], ...]
    """Per circuit: the scalar for each tail position, aligned with tail_indices."""


@dataclass(frozen=True)
class Prep:
    l: QuerySplit
    a: QuerySplit
    b: QuerySplit


def query_variables(num_inputs: int, num_aux: int, density: Density) -> dict[str, list[int]]:
    """The witness index of each point of the L, A and B queries, in the keys' order."""
    return {
        "l": [num_inputs + i for i in range(num_aux)],
        "a": density.a_variables(num_inputs),
        "b": density.b_variables(num_inputs),
    }


def bitmap_bytes(bits: list[bool]) -> bytes:
    """Pack bits (bit i -> byte i//8, bit i%8), padded to whole 64-bit words."""
    words = -(-len(bits) // WORD_BITS)
    out = bytearray(words * WORD_BITS // 8)
    for i, bit in enumerate(bits):
        if bit:
            out[i // 8] |= 1 << (i % 8)
    return bytes(out)


def bitmap_bits(bitmap: bytes, count: int) -> list[bool]:
    """Unpack the first ``count`` bits of a bitmap."""
    return [bool(bitmap[i // 8] >> (i % 8) & 1) for i in range(count)]


def split_query(scalars: list[list[int]], is_input: list[bool]) -> QuerySplit:
    """Split one query for all circuits: ``scalars[c][i]`` is circuit c's scalar at point i."""
    num_points = len(is_input)
    union = sorted(
        {i for per_circuit in scalars for i, s in enumerate(per_circuit) if is_input[i] or s not in (0, 1)}
    )
    if 2 * len(union) > num_points:
        everything = tuple(range(num_points))
        return QuerySplit(
            split=False,
            tail_indices=everything,
            bitmaps=tuple(bitmap_bytes([False] * num_points) for _ in scalars),
            tail_scalars=tuple(tuple(per_circuit) for per_circuit in scalars),
        )
    batched = [[s == 1 and not is_input[i] for i, s in enumerate(per_circuit)] for per_circuit in scalars]
    return QuerySplit(
        split=True,
        tail_indices=tuple(union),
        bitmaps=tuple(bitmap_bytes(bits) for bits in batched),
        tail_scalars=tuple(
            tuple(0 if bits[i] else per_circuit[i] for i in union) for per_circuit, bits in zip(scalars, batched)
        ),
    )


def prep(witnesses: list[list[int]], num_inputs: int, num_aux: int, density: Density) -> Prep:
    """The L, A and B splits for every circuit's witness z = [1, inputs..., aux...]."""
    splits = {}
    for query, variables in query_variables(num_inputs, num_aux, density).items():
        is_input = [v < num_inputs for v in variables]
        scalars = [[z[v] for v in variables] for z in witnesses]
        splits[query] = split_query(scalars, is_input)
    return Prep(**splits)
