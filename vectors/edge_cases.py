"""Edge-case test vectors: small circuits built to hit the corners of every prover phase.

Each case builds an R1CS and its witnesses; ``make_vector`` (vectors/generate.py) adds test-only keys
(secrets derived from the seed ``edge/<case name>``) and every phase's expected output from the
reference prover. The files are vectors/data/edge-*.json; ``vectors.bundled.bundled_paths()`` picks
them up for conformance. Each vector's ``flags`` name the corners it covers (FORMAT.md, "Flags");
`python -m vectors check` checks every claimed flag against the vector's own data (vectors/flags.py).

    python -m vectors.edge_cases [NAME ...]           rewrite vectors/data/edge-*.json
    python -m vectors.edge_cases --check [NAME ...]   regenerate in memory; exit 1 unless bit-identical

Most cases are made of *sink* rows, which every witness satisfies, so that any chosen scalar can be
placed in any query (the same trick as the ``sink`` gate of vectors/generate.py):

    A-sink: <A_j, z> * 0 = 0     (A_j = sum k_i w_i, B_j = C_j = {}): w_i in the A density (and L)
    B-sink: 0 * <B_j, z> = 0     (B_j = sum k_i w_i): w_i in the B density (and L)
    C-sink: 0 * 0 = <C_j, z>     (C_j = sum k_i w_i + k_b w_b, w_b the balancing variable that makes it 0):
                                 w_i in L only

Variables in the same sink row with the same coefficient get identical key points; coefficients k
and r - k give points P and -P.
"""
import random
import sys
from dataclasses import dataclass
from typing import Callable

from reference.cli import EXIT_OK, ArgumentParser, Progress, run_main
from reference.errors import InvalidInputError
from reference.field import R, inv
from reference.msm import REFERENCE_CURVE
from reference.prep import WORD_BITS
from reference.prover import Witness
from reference.r1cs import R1CS, Row
from reference.setup import derive_scalar

from .bundled import DATA_DIR
from .format import document_bytes, vector_document, write_files_atomically
from .generate import ONE, make_vector

# ----------------------------------------------------------------------------------------------
# Named scalars

HALF_R_BELOW = (R - 1) // 2
"""(r - 1)/2: the largest s with s <= r - s; an MSM that negates "large" scalars (s -> r - s, P -> -P) keeps it."""
HALF_R_ABOVE = (R + 1) // 2
"""(r + 1)/2: the smallest scalar such an MSM negates."""
TWO_POW_254 = 1 << 254
"""The highest power of two below r (r ~ 2^254.86): the top bit a 255-bit scalar can have."""
LIMB_BOUNDARY_SCALARS = ((1 << 32) - 1, 1 << 32, (1 << 64) - 1, 1 << 64, 1 << 128, (1 << 254) - 1)
"""Scalars at 32- and 64-bit limb boundaries, and 2^254 - 1 (every bit set: every signed-digit window carries)."""
SIGNED_DIGIT_WINDOWS = tuple(range(4, 17))
"""Window widths c (in bits) for which a scalar with every window equal to 2^(c-1) is included."""
SCALAR_TOP_BIT = 254
"""Bits 0..253 hold the all-windows-half pattern, so it stays below 2^254 < r."""


def signed_digit_carry_scalar(c: int) -> int:
    """sum_j 2^(c-1) * 2^(c*j) over the windows j with c*(j+1) <= 254: every c-bit window is exactly 2^(c-1),
    the value at which signed-digit recoding (reference/msm.py signed_digits) turns a digit negative and carries."""
    return sum(1 << (c * j + c - 1) for j in range(SCALAR_TOP_BIT // c))


SPECIAL_SCALARS = (
    TWO_POW_254,
    HALF_R_BELOW - 1,
    HALF_R_BELOW,
    HALF_R_ABOVE,
    HALF_R_ABOVE + 1,
    R - 2,
    2,
    *LIMB_BOUNDARY_SCALARS,
    *(signed_digit_carry_scalar(c) for c in SIGNED_DIGIT_WINDOWS),
)
"""The scalars of the ``special`` circuit of edge-scalars: one aux variable each."""


# ----------------------------------------------------------------------------------------------
# Building circuits and witnesses together


class CircuitBuilder:
    """An R1CS and the witnesses of several circuits of its shape, built side by side.

    Variables: ONE (index 0), the public inputs (1..), then aux variables in creation order. Every
    constraint is checked by the reference prover when the vector is made (UnsatisfiedConstraintError).
    """

    def __init__(self, seed: str, public_inputs: list[list[int]]):
        if len({len(p) for p in public_inputs}) != 1:
            raise InvalidInputError("public_inputs", "every circuit needs the same number of public inputs")
        self.seed = seed
        self.num_inputs = 1 + len(public_inputs[0])
        self.num_circuits = len(public_inputs)
        self._z = [[1, *(_scalar(v, "public input") for v in p)] for p in public_inputs]
        self._rows: list[tuple[Row, Row, Row]] = []
        self._rng = random.Random(f"{seed}|coefficients")

    # variables

    def public(self, i: int) -> int:
        """Witness index of public input i (0-based; ONE is index 0)."""
        return 1 + i

    def aux(self, values) -> int:
        """A new aux variable whose value is values[c] in circuit c (a single int: the same in every circuit)."""
        per_circuit = [values] * self.num_circuits if isinstance(values, int) else list(values)
        if len(per_circuit) != self.num_circuits:
            raise InvalidInputError("values", f"{len(per_circuit)} values for {self.num_circuits} circuits")
        for z, v in zip(self._z, per_circuit):
            z.append(_scalar(v, "aux value"))
        return len(self._z[0]) - 1

    def aux_many(self, values_per_variable) -> list[int]:
        """One aux variable per entry (see ``aux``)."""
        return [self.aux(v) for v in values_per_variable]

    def coefficient(self) -> int:
        """A pseudo-random non-zero coefficient (deterministic in the seed): distinct variables, distinct points."""
        return self._rng.randrange(1, R)

    def random_scalar(self) -> int:
        """A pseudo-random scalar in [2, r): never 0 or 1, so it is always a tail scalar."""
        return self._rng.randrange(2, R)

    # constraints

    def constrain(self, a: Row, b: Row, c: Row) -> None:
        """Append the row <a, z> * <b, z> = <c, z>."""
        for name, row in (("a", a), ("b", b), ("c", c)):
            variables = [var for var, _ in row]
            if len(set(variables)) != len(variables):
                raise InvalidInputError(f"row {len(self._rows)}.{name}", "names a variable twice")
        self._rows.append((tuple(a), tuple(b), tuple(c)))

    def sink_a(self, terms: Row) -> None:
        """<terms, z> * 0 = 0: puts the variables in the A density, any witness satisfies it."""
        self.constrain(terms, (), ())

    def sink_b(self, terms: Row) -> None:
        """0 * <terms, z> = 0: puts the variables in the B density, any witness satisfies it."""
        self.constrain((), terms, ())

    def sink_c(self, terms: Row) -> int:
        """0 * 0 = <terms, z> + k_b w_b with a new balancing aux variable w_b = -<terms, z>/k_b (per circuit):
        puts the variables in C only (so in L, not in A or B). Returns w_b."""
        k_b = self.coefficient()
        balance = [-sum(k * z[var] for var, k in terms) * inv(k_b) % R for z in self._z]
        w_b = self.aux(balance)
        self.constrain((), (), (*terms, (w_b, k_b)))
        return w_b

    def spread(self, sink, variables: list[int], num_rows: int) -> None:
        """Spread the variables round-robin over ``num_rows`` sink rows, each with its own random coefficient."""
        for row in range(num_rows):
            chunk = variables[row::num_rows]
            if chunk:
                sink(tuple((var, self.coefficient()) for var in chunk))

    def product(self, x: int, y: int) -> int:
        """A new aux variable p = x * y, constrained by the row x * y = p."""
        p = self.aux([z[x] * z[y] % R for z in self._z])
        self.constrain(((x, 1),), ((y, 1),), ((p, 1),))
        return p

    def boolean(self, values) -> int:
        """A new aux bit b (values in {0, 1}), constrained by the row b * b = b."""
        b = self.aux(values)
        self.constrain(((b, 1),), ((b, 1),), ((b, 1),))
        return b

    @property
    def num_rows(self) -> int:
        """Constraints plus one input row per input, as the prover lays them out (reference/r1cs.py)."""
        return len(self._rows) + self.num_inputs

    def pad_to_rows(self, total: int) -> None:
        """Append A-sinks on ONE (k * ONE * 0 = 0) until there are exactly ``total`` rows."""
        if total < self.num_rows:
            raise InvalidInputError("total", f"already {self.num_rows} rows, more than {total}")
        while self.num_rows < total:
            self.sink_a(((ONE, self.coefficient()),))

    # result

    def build(self, blinding: dict[int, tuple[int, int]] | None = None) -> tuple[R1CS, list[Witness]]:
        """The R1CS and one Witness per circuit; r, s = derive_scalar(seed, "circuit <c> r" / "s") (as
        vectors/generate.py derives them) unless ``blinding`` gives circuit c's (r, s)."""
        blinding = blinding or {}
        r1cs = R1CS(
            num_inputs=self.num_inputs,
            num_aux=len(self._z[0]) - self.num_inputs,
            a=tuple(a for a, _, _ in self._rows),
            b=tuple(b for _, b, _ in self._rows),
            c=tuple(c for _, _, c in self._rows),
        )
        witnesses = []
        for c, z in enumerate(self._z):
            r, s = blinding.get(c, (derive_scalar(self.seed, f"circuit {c} r"), derive_scalar(self.seed, f"circuit {c} s")))
            witnesses.append(Witness(public_inputs=z[1 : self.num_inputs], aux=z[self.num_inputs :], r=r, s=s))
        return r1cs, witnesses


def _scalar(v: int, what: str) -> int:
    if not 0 <= v < R:
        raise InvalidInputError(what, f"{v:#x} is not in [0, r)")
    return v


# ----------------------------------------------------------------------------------------------
# The cases. Each takes the seed and returns (R1CS, witnesses).


def domain_log1(seed: str):
    """n = 2: one constraint and ONE's input row. The constraint (k1 ONE) * (k2 ONE) = (k1 k2 ONE) uses only
    ONE, so a(x) is not constant and h_0 != 0; three aux variables appear in no row, so every L point is the
    identity, and their non-boolean values put all three in the (unsplit) L tail."""
    b = CircuitBuilder(seed, [[]])
    k1, k2 = b.coefficient(), b.coefficient()
    b.constrain(((ONE, k1),), ((ONE, k2),), ((ONE, k1 * k2 % R),))
    b.aux_many([b.random_scalar() for _ in range(LOG1_UNUSED_AUX)])
    return b.build()


LOG1_UNUSED_AUX = 3
ROWS_POW2_LOG_N = 4
ROWS_POW2_BIT_VALUES = (1, 0, 1, 1, 0, 1)


def rows_pow2(seed: str):
    """Rows = 16 = n exactly (no zero padding). Boolean gates b*b = b and products of bits: every aux value is 0
    or 1, so the L tail is empty (an MSM of 0 points), A's tail is its two inputs, B's tail the one input x1."""
    b = CircuitBuilder(seed, [[random.Random(f"{seed}|values").randrange(2, R)]])
    bits = [b.boolean(v) for v in ROWS_POW2_BIT_VALUES]
    for x, y in zip(bits, bits[1:]):
        b.product(x, y)
    b.sink_b(((b.public(0), b.coefficient()),))
    b.pad_to_rows(1 << ROWS_POW2_LOG_N)
    return b.build()


ROWS_POW2_PLUS1_LOG_N = 5
PRODUCT_CHAIN_LENGTH = 6


def rows_pow2_plus1(seed: str):
    """Rows = 17 = 2^4 + 1, so n = 32 with 15 zero rows. A chain of products p_i = p_(i-1) * x of random
    values (non-boolean), x and y public."""
    rng = random.Random(f"{seed}|values")
    b = CircuitBuilder(seed, [[rng.randrange(2, R), rng.randrange(2, R)]])
    p = b.aux(rng.randrange(2, R))
    for i in range(PRODUCT_CHAIN_LENGTH):
        p = b.product(p, b.public(i % 2))
    b.sink_b(((b.public(0), b.coefficient()), (p, b.coefficient())))
    b.pad_to_rows((1 << (ROWS_POW2_PLUS1_LOG_N - 1)) + 1)
    return b.build()


MSM_L_TAIL = 237
MSM_A_TAIL = 129  # 2^7 + 1
MSM_B_TAIL = 33
MSM_LOG_N = 6  # H has 2^6 - 1 = 63 points
MSM_ROWS = (1 << (MSM_LOG_N - 1)) + 8  # in (n/2, n], so the domain is 2^MSM_LOG_N
MSM_A_SINK_ROWS, MSM_B_SINK_ROWS, MSM_C_SINK_ROWS = 16, 8, 4
MSM_BOOLEAN_EVERY = 4
"""One aux value in four is boolean (0 or 1): the unsplit tails mix them with large scalars."""


def msm_lengths(seed: str):
    """MSMs of 237 (L tail), 129 = 2^7 + 1 (A tail), 33 (B tail, in G1 and G2) and 63 = 2^6 - 1 (H) points.
    Three quarters of the aux values are non-boolean, so L, A and B are not split and each tail is the whole
    query: L = 237 aux, A = 3 inputs + 126 aux, B = 2 inputs + 31 aux; the other aux variables are in C-sinks."""
    rng = random.Random(f"{seed}|values")

    def value(i):
        return rng.randrange(2) if i % MSM_BOOLEAN_EVERY == 0 else rng.randrange(2, R)

    num_inputs = 3
    b = CircuitBuilder(seed, [[rng.randrange(2, R), rng.randrange(2, R)]])
    a_aux = b.aux_many(value(i) for i in range(MSM_A_TAIL - num_inputs))
    b_aux = b.aux_many(value(i) for i in range(MSM_B_TAIL - (num_inputs - 1)))
    c_only = MSM_L_TAIL - len(a_aux) - len(b_aux) - MSM_C_SINK_ROWS  # each C-sink adds a balancing variable
    c_aux = b.aux_many(value(i) for i in range(c_only))
    b.spread(b.sink_a, a_aux, MSM_A_SINK_ROWS)
    b.spread(b.sink_b, [b.public(0), b.public(1), *b_aux], MSM_B_SINK_ROWS)
    for row in range(MSM_C_SINK_ROWS):
        b.sink_c(tuple((var, b.coefficient()) for var in c_aux[row::MSM_C_SINK_ROWS]))
    b.pad_to_rows(MSM_ROWS)
    return b.build()


SCALARS_A_SINK_ROWS, SCALARS_B_SINK_ROWS = 3, 2


def scalars(seed: str):
    """Six circuits, each one scalar pattern over every aux variable and public input: all 0 (with r = s = 0),
    all 1, all r - 1, all equal, a 0 / 1 / r - 1 mix, and SPECIAL_SCALARS (one per aux variable). The
    non-boolean patterns make L, A and B unsplit, so every circuit's tail MSMs see its whole pattern."""
    rng = random.Random(f"{seed}|values")
    count = len(SPECIAL_SCALARS)
    equal = rng.randrange(2, R)
    mix = [(0, 1, R - 1)[i % 3] for i in range(count)]
    patterns = [[0] * count, [1] * count, [R - 1] * count, [equal] * count, mix, list(SPECIAL_SCALARS)]
    publics = [[0, 0], [1, 1], [R - 1, R - 1], [equal, equal], [0, R - 1], [TWO_POW_254, HALF_R_ABOVE]]
    b = CircuitBuilder(seed, publics)
    variables = b.aux_many(zip(*patterns))
    b.spread(b.sink_a, variables, SCALARS_A_SINK_ROWS)
    b.spread(b.sink_b, [b.public(0), b.public(1), *variables[::2]], SCALARS_B_SINK_ROWS)  # every other aux in B
    return b.build(blinding={0: (0, 0)})


BASES_FILLERS = 8
BASES_FILLER_ROWS = 2
BASES_REPEATED = 4
"""Copies of the repeated tail base: several additions into one bucket, not just one doubling."""


def bases(seed: str):
    """Special bases, each in the tail (non-boolean scalar) and in the bitmap (scalar 1):
    the identity (an aux variable in no row: L_i = O), repeated points (variables in the same rows with the same
    coefficients: equal L, A, B points) with equal scalars, and P with -P (coefficients k and r - k) with equal
    scalars. Zero-valued fillers keep every query split."""
    rng = random.Random(f"{seed}|values")
    b = CircuitBuilder(seed, [[rng.randrange(2, R)]])
    b.aux(rng.randrange(2, R))  # identity base in the L tail
    b.aux(1)  # identity base in the L bitmap
    tail_value, neg_value = rng.randrange(2, R), rng.randrange(2, R)
    repeated_tail = b.aux_many([tail_value] * BASES_REPEATED)
    repeated_batch = b.aux_many([1] * 2)
    negated_tail = b.aux_many([neg_value] * 2)
    negated_batch = b.aux_many([1] * 2)
    fillers = b.aux_many([0] * BASES_FILLERS)
    for sink in (b.sink_a, b.sink_b):
        k_rep, k_rep1, k_neg, k_neg1 = (b.coefficient() for _ in range(4))
        terms = [(v, k_rep) for v in repeated_tail] + [(v, k_rep1) for v in repeated_batch]
        terms += [(negated_tail[0], k_neg), (negated_tail[1], R - k_neg)]
        terms += [(negated_batch[0], k_neg1), (negated_batch[1], R - k_neg1)]
        sink(tuple(terms))
    b.spread(b.sink_a, fillers, BASES_FILLER_ROWS)
    b.sink_b(((b.public(0), b.coefficient()), *((v, b.coefficient()) for v in fillers[: BASES_FILLERS // 2])))
    return b.build()


DENSITY_NUM_AUX = 3 * WORD_BITS + 1
"""193 aux variables: three whole 64-bit words and one bit in a fourth."""
WORD_BOUNDARY_POSITIONS = (0, WORD_BITS - 1, WORD_BITS, 2 * WORD_BITS - 1, 2 * WORD_BITS, DENSITY_NUM_AUX - 1)
"""The first position, both sides of the first two word boundaries, and the last position."""
DENSITY_TAIL_AUX = (2, 61, 66, 126, 129, 190)
"""Aux variables with non-boolean values, next to the word boundaries."""
DENSITY_A_SINK_ROWS = 4


def density_boundaries(seed: str):
    """b_aux is set exactly at WORD_BOUNDARY_POSITIONS and a_aux everywhere else (A-sinks, B-sinks); value 1
    at those aux positions (L bitmap bits 0, 63, 64, 127, 128, 192) and at the aux variables sitting at A
    positions 2 (the seam after inputs ONE, x1), 63, 64, 127, 128 and the last; B = x1 then the six B aux."""
    rng = random.Random(f"{seed}|values")
    b = CircuitBuilder(seed, [[rng.randrange(2, R)]])
    in_b = set(WORD_BOUNDARY_POSITIONS)
    a_dense = [i for i in range(DENSITY_NUM_AUX) if i not in in_b]
    a_positions = {b.num_inputs + rank: i for rank, i in enumerate(a_dense)}  # A position -> aux index
    last_a = b.num_inputs + len(a_dense) - 1
    a_targets = {a_positions[p] for p in (b.num_inputs, WORD_BITS - 1, WORD_BITS, 2 * WORD_BITS - 1, 2 * WORD_BITS, last_a)}
    ones = in_b | a_targets
    if ones & set(DENSITY_TAIL_AUX):
        raise AssertionError("tail aux variables collide with bitmap positions")
    values = [1 if i in ones else rng.randrange(2, R) if i in DENSITY_TAIL_AUX else 0 for i in range(DENSITY_NUM_AUX)]
    variables = b.aux_many(values)
    b.spread(b.sink_a, [variables[i] for i in a_dense], DENSITY_A_SINK_ROWS)
    b.sink_b(((b.public(0), b.coefficient()), *((variables[i], b.coefficient()) for i in sorted(in_b))))
    return b.build()


def zero_coefficients(seed: str):
    """Variables named only with coefficient 0 (FORMAT.md's density rule skips such terms): aux w_a in A only
    with 0, w_b in B only with 0, w_ab in both only with 0, and public input x1 in B only with 0. w_a and w_b
    are dense in the other query (non-zero coefficients there); all three are in C, so their L points are not
    the identity. Every value is non-boolean, so a prover that counted the zero terms would misplace tail points."""
    rng = random.Random(f"{seed}|values")
    b = CircuitBuilder(seed, [[rng.randrange(2, R)]])
    w_a, w_b, w_ab, w_dense = b.aux_many([rng.randrange(2, R) for _ in range(4)])
    x1 = b.public(0)
    b.sink_a(((w_a, 0), (w_dense, b.coefficient()), (w_ab, 0)))
    b.sink_b(((x1, 0), (w_b, 0), (w_dense, b.coefficient()), (w_ab, 0)))
    b.sink_a(((w_b, b.coefficient()),))
    b.sink_b(((w_a, b.coefficient()),))
    b.sink_c(((w_a, b.coefficient()), (w_b, b.coefficient()), (w_ab, b.coefficient())))
    return b.build()


SPLIT_NUM_AUX = 20
SPLIT_A_ONLY = 9  # aux 0..8 in A only, 9..13 in A and B, 14..19 in B only
SPLIT_A_AND_B = 5
SPLIT_INPUTS = 2  # ONE and x1; x1 is in B
SPLIT_SINK_ROWS = 2


def _split_case(seed: str, above: dict[str, bool]):
    """Two circuits whose tail union, per query q, is the largest that still splits (above[q] False: |U| = N/2)
    or the smallest that does not (above[q] True: |U| = N/2 + 1), N = the query's points (all even here).
    The union's positions alternate between circuit 0 and circuit 1 (both hold the first); circuit 0 has 1 at
    one A and one B position where circuit 1 is non-boolean. Other aux values are 0 or 1."""
    rng = random.Random(f"{seed}|values")
    a_only = list(range(SPLIT_A_ONLY))
    both = list(range(SPLIT_A_ONLY, SPLIT_A_ONLY + SPLIT_A_AND_B))
    b_only = list(range(SPLIT_A_ONLY + SPLIT_A_AND_B, SPLIT_NUM_AUX))
    n_l, n_a, n_b = SPLIT_NUM_AUX, SPLIT_INPUTS + len(a_only) + len(both), 1 + len(both) + len(b_only)

    def target(n, q):
        return n // 2 + (1 if above[q] else 0)

    u_l, u_a, u_b = target(n_l, "l"), target(n_a, "a") - SPLIT_INPUTS, target(n_b, "b") - 1  # inputs are always tail
    overlap = u_a + u_b - u_l  # |T & A & B| = |T & A| + |T & B| - |T|
    tail = sorted(both[:overlap] + a_only[: u_a - overlap] + b_only[: u_b - overlap])
    if len(set(tail)) != u_l or overlap < 0:
        raise AssertionError(f"cannot reach unions L {u_l}, A {u_a}, B {u_b} with this layout")
    first, second = tail[0::2], [tail[0], *tail[1::2]]  # both circuits are non-boolean at tail[0]
    in_a, in_b = set(a_only + both), set(both + b_only)
    ones = [next(i for i in second[1:] if i in in_a), next(i for i in reversed(second) if i in in_b)]
    values = [[rng.randrange(2) for _ in range(SPLIT_NUM_AUX)] for _ in range(2)]
    for i in first:
        values[0][i] = rng.randrange(2, R)
    for i in second:
        values[1][i] = rng.randrange(2, R)
    for i in ones:
        values[0][i] = 1  # 1 in circuit 0, non-boolean in circuit 1: in the union, and in circuit 0's bitmap
    b = CircuitBuilder(seed, [[rng.randrange(2, R)], [rng.randrange(2, R)]])
    variables = b.aux_many(zip(*values))
    b.spread(b.sink_a, [variables[i] for i in a_only + both], SPLIT_SINK_ROWS)
    b.spread(b.sink_b, [b.public(0), *(variables[i] for i in both + b_only)], SPLIT_SINK_ROWS)
    return b.build()


def split_half_1(seed: str):
    """L and B: largest union that splits; A: smallest union that does not."""
    return _split_case(seed, {"l": False, "a": True, "b": False})


def split_half_2(seed: str):
    """L and B: smallest union that does not split; A: largest union that splits."""
    return _split_case(seed, {"l": True, "a": False, "b": True})


# ----------------------------------------------------------------------------------------------
# The list


@dataclass(frozen=True)
class EdgeCase:
    """One edge vector: its name, how to build its circuit and witnesses, its flags and its one-line comment."""

    name: str
    """File stem under vectors/data/ (and the vector id); the seed is "edge/<name>"."""
    build: Callable[[str], tuple[R1CS, list[Witness]]]
    flags: tuple[str, ...]
    comment: str

    @property
    def seed(self) -> str:
        return f"edge/{self.name}"

    @property
    def path(self):
        return DATA_DIR / f"{self.name}.json"


SPLIT_FLAGS_1 = ("split-just-below-half-l", "split-just-above-half-a", "split-just-below-half-b")
SPLIT_FLAGS_2 = ("split-just-above-half-l", "split-just-below-half-a", "split-just-above-half-b")

EDGE_CASES = (
    EdgeCase("edge-domain-log1", domain_log1, ("domain-log1", "rows-pow2", "msm-len-1", "bases-all-identity"),
             "smallest domain (n = 2, H has 1 point); every L point is the identity"),
    EdgeCase("edge-rows-pow2", rows_pow2, ("rows-pow2", "msm-len-0", "msm-len-1", "msm-len-2"),
             "rows exactly 16 = n; boolean witness: empty L tail, A tail = the 2 inputs"),
    EdgeCase("edge-rows-pow2-plus1", rows_pow2_plus1, ("rows-pow2-plus1", "msm-len-31"),
             "rows 17 = 2^4 + 1, so n = 32 with 15 zero rows; H has 31 points"),
    EdgeCase("edge-msm-lengths", msm_lengths, ("msm-len-237", "msm-len-129", "msm-len-63", "msm-len-33"),
             "MSMs of 237 (L tail), 129 (A tail), 63 (H), 33 (B tail, G1 and G2) points"),
    EdgeCase("edge-scalars", scalars,
             ("multi-circuit", "scalars-all-zero", "scalars-all-one", "scalars-all-r-minus-1", "scalars-all-equal",
              "scalars-mix-0-1-r-minus-1", "scalar-2^254", "scalar-half-r", "scalar-signed-digit-carry",
              "public-input-zero", "public-input-r-minus-1", "blinding-zero"),
             "one scalar pattern per circuit (0, 1, r-1, equal, mix, special values) in every unsplit tail MSM"),
    EdgeCase("edge-bases", bases,
             ("base-identity", "base-identity-batch", "bases-repeated", "bases-repeated-batch", "bases-negated",
              "bases-negated-batch"),
             "identity, repeated and negated bases, each in a tail MSM and in a batch addition"),
    EdgeCase("edge-density-boundaries", density_boundaries,
             ("density-sparse-word-boundaries", "density-holes-word-boundaries", "bitmap-word-boundaries", "bitmap-seam"),
             "density and prep bitmaps with bits at 64-bit word boundaries, first/last positions, the input/aux seam"),
    EdgeCase("edge-zero-coefficients", zero_coefficients,
             ("density-zero-coefficient-a", "density-zero-coefficient-b", "density-zero-coefficient-ab",
              "density-zero-coefficient-input"),
             "variables named only with coefficient 0 in A, in B, in both, and an input in B: not in those densities"),
    EdgeCase("edge-split-half-1", split_half_1, ("multi-circuit", "union-one-and-nonboolean", *SPLIT_FLAGS_1),
             "tail unions at half the query: L and B split at exactly half, A unsplit at half + 1"),
    EdgeCase("edge-split-half-2", split_half_2, ("multi-circuit", "union-one-and-nonboolean", *SPLIT_FLAGS_2),
             "tail unions at half the query: L and B unsplit at half + 1, A split at exactly half"),
)

# ----------------------------------------------------------------------------------------------
# Writing and checking


def edge_case_files(case: EdgeCase, progress=None) -> dict:
    """{path: bytes} of the case's vector file, built from scratch (no sidecars)."""
    r1cs, witnesses = case.build(case.seed)
    vector = make_vector(
        r1cs,
        witnesses,
        case.seed,
        vector_id=case.name,
        comment=case.comment,
        flags=list(case.flags),
        generator={"command": "python -m vectors.edge_cases", "case": case.name, "seed": case.seed},
        progress=progress,
        curve=REFERENCE_CURVE,  # the same bytes with or without the fast library (vectors/bundled.py)
    )
    doc, sidecars = vector_document(vector, case.name)
    return {case.path: document_bytes(doc), **{case.path.parent / name: data for name, data in sidecars.items()}}


def select_cases(names=None) -> list[EdgeCase]:
    """The named cases (all when names is empty); an unknown name is an InvalidInputError."""
    known = {c.name: c for c in EDGE_CASES}
    for name in names or []:
        if name not in known:
            raise InvalidInputError("name", f"unknown edge case {name!r}; known: {sorted(known)}")
    return [c for c in EDGE_CASES if not names or c.name in names]


def write_edge_vectors(check: bool = False, names=None, progress=None) -> list[str]:
    """Regenerate the edge vectors: write them, or (check=True) only compare with the files on disk.
    Returns the paths that differ from a fresh generation (always empty when writing)."""
    stale = []
    for case in select_cases(names):
        files = edge_case_files(case, progress)
        if check:
            stale += [str(p) for p, data in files.items() if not p.exists() or p.read_bytes() != data]
        else:
            write_files_atomically(files)
    return stale


EXIT_STALE = 1
"""Exit status of --check when a file differs from a fresh generation (as `python -m vectors regenerate --check`)."""


def main(argv=None) -> int:
    """python -m vectors.edge_cases [--check] [--quiet] [NAME ...]: write or check the edge vectors."""
    parser = ArgumentParser(prog="python -m vectors.edge_cases", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="do not write; exit 1 if any file differs from a fresh generation")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("names", nargs="*", help="only these cases (default: all)")
    args = parser.parse_args(argv)
    say = Progress(args.quiet)
    stale = write_edge_vectors(args.check, args.names, say)
    if stale:
        print("differ from a fresh generation: " + ", ".join(stale))
        return EXIT_STALE
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(run_main(main))
