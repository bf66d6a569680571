"""The checkers of a vector's ``flags``: each flag of vectors/FORMAT.md (its Flags table, and the interoperability
flags ``snarkjs`` and ``bellman-import``) claims a property of the vector's own data, and its checker here decides
whether the property holds. ``python -m vectors check`` (vectors/checking.py) runs ``check_flags`` on every vector:
a flag whose property does not hold, or a tag that is not a flag of FORMAT.md, is refused naming ``flags[i]``.

Each checker was written from FORMAT.md's meaning of its flag, not from the builders that make the vectors
(vectors/edge_cases.py, vectors/generate.py), and raises ``FlagDoesNotHold`` saying why when the property does not
hold. The views below (``query_variables``, ``full_scalars``, ``union``, ...) read a vector the naive way, straight
from FORMAT.md.
"""
import re

from reference.curve import affine_ints, is_identity, neg
from reference.domain import BELLMAN, SNARKJS
from reference.errors import InvalidInputError
from reference.field import R
from reference.prep import WORD_BITS, bitmap_bits

QUERY_POINTS = {"l": "l", "a": "a", "b": "b_g1"}
"""The key query holding each prep query's points (B_G2 has the same points' G2 twins)."""
BOOLEAN = (0, 1)


class FlagDoesNotHold(Exception):
    """The vector lacks the property its flag claims; the message says why."""


def _require(condition, why: str) -> None:
    if not condition:
        raise FlagDoesNotHold(why)


# ----------------------------------------------------------------------------------------------
# Naive views of a vector, straight from FORMAT.md


def query_variables(v, q: str) -> list[int]:
    """Witness index of each point of query q: L = every aux variable; A = every input, then the aux
    variables with a_aux set; B = the inputs with b_input set, then the aux variables with b_aux set."""
    n_in, d = v.r1cs.num_inputs, v.pk.density
    if q == "l":
        return [n_in + i for i in range(v.r1cs.num_aux)]
    if q == "a":
        return list(range(n_in)) + [n_in + i for i, bit in enumerate(d.a_aux) if bit]
    return [i for i, bit in enumerate(d.b_input) if bit] + [n_in + i for i, bit in enumerate(d.b_aux) if bit]


def witness_z(case) -> list[int]:
    w = case.witness
    return [1, *w.public_inputs, *w.aux]


def full_scalars(v, q: str) -> list[list[int]]:
    """Per circuit, the scalar at each point of query q: the witness value of its variable."""
    variables = query_variables(v, q)
    return [[witness_z(c)[var] for var in variables] for c in v.circuits]


def union(v, q: str) -> list[int]:
    """FORMAT.md: the positions that are inputs or hold a non-boolean scalar in some circuit."""
    n_in = v.r1cs.num_inputs
    variables = query_variables(v, q)
    per_circuit = full_scalars(v, q)
    return [k for k, var in enumerate(variables) if var < n_in or any(s[k] not in BOOLEAN for s in per_circuit)]


def points(v, q: str) -> tuple:
    return getattr(v.pk, QUERY_POINTS[q])


def split_of(v, q: str):
    """The vector's expected prep of query q; a vector without expected outputs cannot show a prep property."""
    _require(v.expected_prep is not None, "the vector has no expected outputs, so no prep (bitmaps, tails) to show it")
    return getattr(v.expected_prep, q)


def bits(v, q: str, circuit: int) -> list[bool]:
    return bitmap_bits(split_of(v, q).bitmaps[circuit], len(points(v, q)))


def tail_scalars(v, q: str, circuit: int) -> tuple[int, ...]:
    return split_of(v, q).tail_scalars[circuit]


def all_tail_scalars(v) -> set[int]:
    return {s for q in QUERY_POINTS for c in range(len(v.circuits)) for s in tail_scalars(v, q, c)}


def msm_lengths(v) -> set[int]:
    """The H query's length, and each tail's where the vector has an expected prep."""
    tails = {len(split_of(v, q).tail_indices) for q in QUERY_POINTS} if v.expected_prep is not None else set()
    return {len(v.pk.h)} | tails


def tail_pairs(v, q: str, circuit: int) -> list[tuple[int, int]]:
    """(position, tail scalar) for circuit's tail in query q."""
    split = split_of(v, q)
    return list(zip(split.tail_indices, split.tail_scalars[circuit]))


def circuits_with(v, pattern) -> list[int]:
    """Circuits whose every public input and aux value satisfies pattern(value)."""
    return [c for c, case in enumerate(v.circuits) if all(pattern(x) for x in witness_z(case)[1:])]


# ----------------------------------------------------------------------------------------------
# Generated shapes, several circuits, sidecars, imports


SHARE_MIN_AUX = 64
"""shape-porep's shares are judged from 64 aux variables on. The generator's PoRep-shaped circuits (vectors/generate.py)
are drawn gate by gate, and small ones stray far from PoRep's proportions. Measured on about 11,000 seeded circuits: from
64 aux variables on, the worst stays well inside the bounds below (46% in B against 55%); with 32 to 63 it reached 49%
in B, with 16 to 31 56% in B and 18% outside A, with 8 to 15 62% and 33%. Below 64 only the structural part (no
public input in B) is checked."""
MAX_NON_BOOLEAN_PERCENT = 25
"""shape-porep, "mostly 0/1 aux values": at most 25% of each circuit's aux values are neither 0 nor 1 (3,200 generated
circuits with 64 to 100 aux variables: mean 4%, at most 14%; a uniformly random witness: all)."""
MAX_OUTSIDE_A_PERCENT = 15
"""shape-porep, "A density ~99%": at most 15% of the aux variables have their a_aux bit clear (generated: mean 2%, at
most 9%; the random shape: 18% to 32%)."""
MAX_IN_B_PERCENT = 55
"""shape-porep, "B ~25%": at most 55% of the aux variables have their b_aux bit set (generated: mean 24%, at most 41%;
the random shape: 67% to 82%)."""
RANDOM_MARGIN = 2**64
"""shape-random: every A and B coefficient and witness value lies at least 2^64 from 0 and from r (neither a small
integer nor a small negative one mod r): a uniformly random scalar misses that band with probability 2^65/r < 2^-189,
while a structured value (0, 1, r - 1, a small constant) falls in it."""


def _percent_at_most(count: int, percent: int, num_aux: int) -> bool:
    return 100 * count <= percent * num_aux


def check_shape_porep(v):
    """``shape-porep``: no public input is in B (b_input holds ONE at most); from SHARE_MIN_AUX aux variables on, at
    most MAX_NON_BOOLEAN_PERCENT of each circuit's aux values are neither 0 nor 1, at most MAX_OUTSIDE_A_PERCENT of
    the aux variables are outside a_aux and at most MAX_IN_B_PERCENT inside b_aux."""
    d, num_aux = v.pk.density, v.r1cs.num_aux
    in_b = [i for i, bit in enumerate(d.b_input) if bit and i > 0]
    _require(not in_b, f"public input(s) {in_b} are in B (b_input): PoRep's B holds no public input")
    if num_aux < SHARE_MIN_AUX:
        return
    for c, case in enumerate(v.circuits):
        large = sum(x not in BOOLEAN for x in case.witness.aux)
        _require(_percent_at_most(large, MAX_NON_BOOLEAN_PERCENT, num_aux),
                 f"circuit {c}: {large} of {num_aux} aux values are neither 0 nor 1 (mostly 0/1: at most {MAX_NON_BOOLEAN_PERCENT}%)")
    outside_a, in_b_aux = num_aux - sum(d.a_aux), sum(d.b_aux)
    _require(_percent_at_most(outside_a, MAX_OUTSIDE_A_PERCENT, num_aux),
             f"{outside_a} of {num_aux} aux variables are outside a_aux (A density ~99%: at most {MAX_OUTSIDE_A_PERCENT}% outside)")
    _require(_percent_at_most(in_b_aux, MAX_IN_B_PERCENT, num_aux),
             f"{in_b_aux} of {num_aux} aux variables are in b_aux (B ~25%: at most {MAX_IN_B_PERCENT}%)")


def _far_from_small(x: int) -> bool:
    return RANDOM_MARGIN <= x <= R - RANDOM_MARGIN


def check_shape_random(v):
    """``shape-random``: every A and B coefficient, public input and aux value is RANDOM_MARGIN away from 0 and r
    (there is at least one of each: coefficients and aux values)."""
    coefficients = [coeff for matrix in (v.r1cs.a, v.r1cs.b) for row in matrix for _, coeff in row]
    _require(coefficients and v.r1cs.num_aux, "no A or B coefficient or no aux value to be random")
    near = sum(not _far_from_small(x) for x in coefficients)
    _require(not near, f"{near} A or B coefficient(s) lie within 2^64 of 0 or r: not uniformly random")
    for c, case in enumerate(v.circuits):
        near = sum(not _far_from_small(x) for x in witness_z(case)[1:])
        _require(not near, f"circuit {c}: {near} witness value(s) lie within 2^64 of 0 or r: not uniformly random")


def check_multi_circuit(v):
    """``multi-circuit``: more than one circuit."""
    _require(len(v.circuits) > 1, f"the vector has {len(v.circuits)} circuit")


def check_sidecar(v):
    """``sidecar``: some array was read from a sidecar file: vector.source_files names one besides the JSON file
    (vectors/format.py load_vector records the JSON file first, then each sidecar it read and checked)."""
    _require(len(v.source_files) > 1, "no array is stored in a sidecar file (every array is inline)")


def check_snarkjs(v):
    """``snarkjs``: the snarkjs domain convention and no trapdoor (import-snarkjs's keys come from a zkey)."""
    _require(v.convention == SNARKJS, f"the domain convention is {v.convention.name}, not snarkjs")
    _require(v.trapdoor is None, "the vector has a trapdoor; keys imported from a zkey have none")


def check_bellman_import(v):
    """``bellman-import``: the bellman convention, no trapdoor, and no identity point in proving_key.h or l (a
    bellman Parameters file cannot hold one: bellman's reader refuses it)."""
    _require(v.convention == BELLMAN, f"the domain convention is {v.convention.name}, not bellman")
    _require(v.trapdoor is None, "the vector has a trapdoor; keys imported from a Parameters file have none")
    for q in ("h", "l"):
        at = next((k for k, p in enumerate(getattr(v.pk, q)) if is_identity(p)), None)
        _require(at is None, f"proving_key.{q}[{at}] is the identity, which a bellman Parameters file cannot hold")


# ----------------------------------------------------------------------------------------------
# Edge cases: domain, rows, MSM lengths, scalars


def check_domain_log1(v):
    """``domain-log1``: log n = 1 and H has 1 point."""
    _require(v.r1cs.log_n == 1 and len(v.pk.h) == 1, f"log n = {v.r1cs.log_n}, H has {len(v.pk.h)} points")


def check_rows_pow2(v):
    """``rows-pow2``: rows = n."""
    _require(v.r1cs.num_rows == v.r1cs.n, f"{v.r1cs.num_rows} rows, n = {v.r1cs.n}")


def check_rows_pow2_plus1(v):
    """``rows-pow2-plus1``: rows = n/2 + 1."""
    _require(v.r1cs.num_rows == v.r1cs.n // 2 + 1, f"{v.r1cs.num_rows} rows, n = {v.r1cs.n}")


def check_msm_len(v, length: int):
    """``msm-len-N``: the H query or a tail of L, A or B has exactly N points."""
    _require(length in msm_lengths(v), f"MSM lengths are {sorted(msm_lengths(v))}")


def _check_pattern_reaches_l(v, value: int):
    """Some circuit has every public input and aux value equal to value, and each such circuit's L tail scalars
    are all value."""
    matching = circuits_with(v, lambda x: x == value)
    _require(matching, f"no circuit has every value {value:#x}")
    for c in matching:
        tail = tail_scalars(v, "l", c)
        _require(tail and set(tail) == {value}, f"circuit {c}'s L tail scalars are not all {value:#x}")


def check_scalars_all_zero(v):
    """``scalars-all-zero``."""
    _check_pattern_reaches_l(v, 0)


def check_scalars_all_one(v):
    """``scalars-all-one``."""
    _check_pattern_reaches_l(v, 1)


def check_scalars_all_r_minus_1(v):
    """``scalars-all-r-minus-1``."""
    _check_pattern_reaches_l(v, R - 1)


def check_scalars_all_equal(v):
    """``scalars-all-equal``: a circuit's values all equal one v outside {0, 1, r - 1} (and reach its L tail)."""
    equal = [c for c, case in enumerate(v.circuits) if len(set(witness_z(case)[1:])) == 1]
    values = {witness_z(v.circuits[c])[1] for c in equal} - {0, 1, R - 1}
    _require(values, "no circuit has all values equal to one v outside {0, 1, r-1}")
    for value in values:
        _check_pattern_reaches_l(v, value)


def check_scalars_mix_0_1_r_minus_1(v):
    """``scalars-mix-0-1-r-minus-1``: a circuit's aux values are 0, 1, r - 1, 0, 1, r - 1, ... (at least 3)."""
    cycle = lambda count: [(0, 1, R - 1)[i % 3] for i in range(count)]  # noqa: E731
    _require(any(len(c.witness.aux) >= 3 and list(c.witness.aux) == cycle(len(c.witness.aux)) for c in v.circuits),
             "no circuit's aux values cycle through 0, 1, r - 1")


def check_scalar_2_254(v):
    """``scalar-2^254``: 2^254 is a tail scalar."""
    _require(2**254 in all_tail_scalars(v), "2^254 is in no tail")


def check_scalar_half_r(v):
    """``scalar-half-r``: (r - 1)/2 and (r + 1)/2 are tail scalars."""
    missing = {(R - 1) // 2, (R + 1) // 2} - all_tail_scalars(v)
    _require(not missing, f"{', '.join(f'{m:#x}' for m in sorted(missing))} in no tail")


CARRY_WINDOWS = range(4, 17)
"""``scalar-signed-digit-carry``'s window widths c = 4..16 (FORMAT.md)."""


def carry_scalar(c: int) -> int:
    """The scalar whose every c-bit window below bit 254 is 2^(c-1): bit c-1 of each whole window."""
    return sum(1 << (c * j + c - 1) for j in range(254 // c))


def check_scalar_signed_digit_carry(v):
    """``scalar-signed-digit-carry``: for c = 4..16, carry_scalar(c) is a tail scalar."""
    tails = all_tail_scalars(v)
    missing = [c for c in CARRY_WINDOWS if carry_scalar(c) not in tails]
    _require(not missing, f"the carry scalar of c = {missing} is in no tail")


def check_public_input_zero(v):
    """``public-input-zero``."""
    _require(any(0 in c.witness.public_inputs for c in v.circuits), "no public input is 0")


def check_public_input_r_minus_1(v):
    """``public-input-r-minus-1``."""
    _require(any(R - 1 in c.witness.public_inputs for c in v.circuits), "no public input is r - 1")


def check_blinding_zero(v):
    """``blinding-zero``: a circuit with r = s = 0."""
    _require(any(c.witness.r == 0 and c.witness.s == 0 for c in v.circuits), "no circuit has r = s = 0")


# ----------------------------------------------------------------------------------------------
# Edge cases: bases (identity, repeated and negated points)


def check_base_identity(v):
    """``base-identity``: an identity L point at a tail position with a non-zero scalar."""
    _require(any(is_identity(v.pk.l[k]) and s != 0 for c in range(len(v.circuits)) for k, s in tail_pairs(v, "l", c)),
             "no identity L point has a non-zero tail scalar")


def check_base_identity_batch(v):
    """``base-identity-batch``: an identity L point with its bitmap bit set."""
    _require(any(is_identity(v.pk.l[k]) and bit for c in range(len(v.circuits)) for k, bit in enumerate(bits(v, "l", c))),
             "no identity L point in a bitmap")


def check_bases_all_identity(v):
    """``bases-all-identity``: every L point is the identity, all in the tail, with non-zero scalars."""
    _require(v.pk.l and all(is_identity(p) for p in v.pk.l), "not every L point is the identity")
    _require(len(split_of(v, "l").tail_indices) == len(v.pk.l), "not every L point is in the tail")
    _require(all(s != 0 for c in range(len(v.circuits)) for s in tail_scalars(v, "l", c)), "an L tail scalar is 0")


def _point_keys(v, q: str, positions: list[int]) -> tuple[list, list]:
    """(key of each position's point, key of its negation): affine coordinates in every group of query q (B: B_G1
    and B_G2), None where a point is the identity, so that equal keys mean equal points in every group."""
    groups = [points(v, q)] + ([v.pk.b_g2] if q == "b" else [])
    keys = list(zip(*(affine_ints([g[k] for k in positions]) for g in groups))) if positions else []
    negated = list(zip(*(affine_ints([neg(g[k]) for k in positions]) for g in groups))) if positions else []
    known = lambda key: key if None not in key else None  # noqa: E731
    return [known(k) for k in keys], [known(k) for k in negated]


def _related_pair(v, q: str, positions: list[int], negated: bool) -> bool:
    """Two of positions hold the same point (negated: P and -P), none the identity."""
    keys, negated_keys = _point_keys(v, q, positions)
    seen = [k for k in keys if k is not None]
    if negated:
        return bool(set(seen) & {k for k in negated_keys if k is not None})
    return len(set(seen)) < len(seen)


def _pair_in_tail(v, q: str, negated: bool) -> bool:
    """Some circuit has tail positions with related points (_related_pair) and the same non-boolean scalar."""
    for c in range(len(v.circuits)):
        by_scalar: dict[int, list[int]] = {}
        for k, s in tail_pairs(v, q, c):
            if s not in BOOLEAN:
                by_scalar.setdefault(s, []).append(k)
        if any(len(ks) > 1 and _related_pair(v, q, ks, negated) for ks in by_scalar.values()):
            return True
    return False


def _pair_in_bitmap(v, q: str, negated: bool) -> bool:
    """Some circuit's bitmap selects positions with related points (_related_pair)."""
    return any(_related_pair(v, q, [k for k, bit in enumerate(bits(v, q, c)) if bit], negated) for c in range(len(v.circuits)))


def check_bases_repeated(v):
    """``bases-repeated``: in L, A and B, two tail positions with the same point and the same non-boolean scalar."""
    for q in QUERY_POINTS:
        _require(_pair_in_tail(v, q, negated=False), f"no repeated tail points with equal non-boolean scalars in {q}")


def check_bases_repeated_batch(v):
    """``bases-repeated-batch``: in L, A and B, two bitmap positions with the same point."""
    for q in QUERY_POINTS:
        _require(_pair_in_bitmap(v, q, negated=False), f"no repeated bitmap points in {q}")


def check_bases_negated(v):
    """``bases-negated``: in L, A and B, tail points P and -P with the same (non-boolean) scalar."""
    for q in QUERY_POINTS:
        _require(_pair_in_tail(v, q, negated=True), f"no P, -P tail pair with equal non-boolean scalars in {q}")


def check_bases_negated_batch(v):
    """``bases-negated-batch``: in L, A and B, bitmap points P and -P."""
    for q in QUERY_POINTS:
        _require(_pair_in_bitmap(v, q, negated=True), f"no P, -P pair in the {q} bitmap")


# ----------------------------------------------------------------------------------------------
# Edge cases: densities and bitmaps


def _boundaries(count: int) -> set[int]:
    return {0, WORD_BITS - 1, WORD_BITS, 2 * WORD_BITS - 1, 2 * WORD_BITS, count - 1}


def check_density_sparse_word_boundaries(v):
    """``density-sparse-word-boundaries``: b_aux is set exactly at 0, 63, 64, 127, 128 and the last position."""
    b_aux = v.pk.density.b_aux
    _require({i for i, bit in enumerate(b_aux) if bit} == _boundaries(len(b_aux)), "b_aux is not set exactly there")


def check_density_holes_word_boundaries(v):
    """``density-holes-word-boundaries``: a_aux is clear exactly at 0, 63, 64, 127, 128 and the last position."""
    a_aux = v.pk.density.a_aux
    _require({i for i, bit in enumerate(a_aux) if not bit} == _boundaries(len(a_aux)), "a_aux is not clear exactly there")


def _coefficients(v, matrix: str) -> dict[int, list[int]]:
    """Every coefficient each variable has in the matrix's stored rows (input rows excluded: they are in A only)."""
    found: dict[int, list[int]] = {}
    for row in getattr(v.r1cs, matrix):
        for var, coeff in row:
            found.setdefault(var, []).append(coeff)
    return found


def _only_zero(v, matrix: str) -> set[int]:
    """Variables the matrix names, every time with coefficient 0."""
    return {var for var, coeffs in _coefficients(v, matrix).items() if not any(coeffs)}


def _named_non_zero(v, matrix: str) -> set[int]:
    return {var for var, coeffs in _coefficients(v, matrix).items() if any(coeffs)}


def _aux_bit(v, name: str, var: int) -> bool:
    return getattr(v.pk.density, name)[var - v.r1cs.num_inputs]


def check_density_zero_coefficient_a(v):
    """``density-zero-coefficient-a``."""
    hits = {var for var in _only_zero(v, "a") & _named_non_zero(v, "b") if var >= v.r1cs.num_inputs}
    _require(hits, "no aux variable named in A only with coefficient 0 and non-zero in B")
    _require(not any(_aux_bit(v, "a_aux", var) for var in hits), "a_aux counts a zero-coefficient term")


def check_density_zero_coefficient_b(v):
    """``density-zero-coefficient-b``."""
    hits = {var for var in _only_zero(v, "b") & _named_non_zero(v, "a") if var >= v.r1cs.num_inputs}
    _require(hits, "no aux variable named in B only with coefficient 0 and non-zero in A")
    _require(not any(_aux_bit(v, "b_aux", var) for var in hits), "b_aux counts a zero-coefficient term")


def check_density_zero_coefficient_ab(v):
    """``density-zero-coefficient-ab``."""
    hits = {var for var in _only_zero(v, "a") & _only_zero(v, "b") if var >= v.r1cs.num_inputs}
    _require(hits, "no aux variable named in A and B only with coefficient 0")
    _require(not any(_aux_bit(v, "a_aux", var) or _aux_bit(v, "b_aux", var) for var in hits), "a density counts a zero-coefficient term")


def check_density_zero_coefficient_input(v):
    """``density-zero-coefficient-input``."""
    hits = {var for var in _only_zero(v, "b") if 0 < var < v.r1cs.num_inputs}
    _require(hits, "no public input named in B only with coefficient 0")
    _require(not any(v.pk.density.b_input[var] for var in hits), "b_input counts a zero-coefficient term")


def check_bitmap_word_boundaries(v):
    """``bitmap-word-boundaries``: circuit 0's L bitmap bits 0, 63, 64, 127, 128, last; A's the same but 0."""
    l_bits, a_bits = bits(v, "l", 0), bits(v, "a", 0)
    _require(min(len(l_bits), len(a_bits)) > 2 * WORD_BITS + 1, "too few points to reach the third word")
    _require(all(l_bits[k] for k in _boundaries(len(l_bits))), "the L bitmap misses a boundary bit")
    _require(all(a_bits[k] for k in _boundaries(len(a_bits)) - {0}), "the A bitmap misses a boundary bit")


def check_bitmap_seam(v):
    """``bitmap-seam``: in A and B, circuit 0's bit at the first aux position (right after an input) is set."""
    n_in = v.r1cs.num_inputs
    for q in ("a", "b"):
        variables = query_variables(v, q)
        seam = next((k for k, var in enumerate(variables) if var >= n_in), None)
        _require(seam is not None, f"{q} has no aux position")
        _require(seam > 0 and variables[seam - 1] < n_in, f"{q}: no input right before the first aux position")
        _require(bits(v, q, 0)[seam], f"{q}: bit {seam} (first aux position) is clear")
        _require(seam - 1 in split_of(v, q).tail_indices, f"{q}: the last input is not in the tail")


# ----------------------------------------------------------------------------------------------
# Edge cases: the prep split


def check_split_just_below_half(v, q: str):
    """``split-just-below-half-<q>``: split, and 2u <= points < 2(u + 1) for the union's size u."""
    count, size = len(points(v, q)), len(union(v, q))
    _require(split_of(v, q).split, f"{q} is not split")
    _require(2 * size <= count < 2 * (size + 1), f"{q}: union {size} of {count} points is not the largest that splits")


def check_split_just_above_half(v, q: str):
    """``split-just-above-half-<q>``: not split, and 2(u - 1) <= points < 2u for the union's size u."""
    count, size = len(points(v, q)), len(union(v, q))
    _require(not split_of(v, q).split, f"{q} is split")
    _require(2 * (size - 1) <= count < 2 * size, f"{q}: union {size} of {count} points is not the smallest that does not split")


def check_union_one_and_nonboolean(v):
    """``union-one-and-nonboolean``: a split query's tail position with 1 in one circuit (bitmap bit set, tail
    scalar 0) and a non-boolean scalar in another."""
    found = False
    for q in QUERY_POINTS:
        split = split_of(v, q)
        if not split.split:
            continue
        scalars = full_scalars(v, q)
        for j, k in enumerate(split.tail_indices):
            ones = [c for c in range(len(scalars)) if scalars[c][k] == 1]
            if ones and any(s[k] not in BOOLEAN for s in scalars):
                _require(all(bits(v, q, c)[k] and split.tail_scalars[c][j] == 0 for c in ones),
                         f"{q}[{k}]: a circuit's 1 is not in its bitmap with tail scalar 0")
                found = True
    _require(found, "no split tail position with 1 in one circuit and a non-boolean value in another")


# ----------------------------------------------------------------------------------------------
# The flags


EXACT_CHECKS = {
    "shape-porep": check_shape_porep,
    "shape-random": check_shape_random,
    "multi-circuit": check_multi_circuit,
    "sidecar": check_sidecar,
    "snarkjs": check_snarkjs,
    "bellman-import": check_bellman_import,
    "domain-log1": check_domain_log1,
    "rows-pow2": check_rows_pow2,
    "rows-pow2-plus1": check_rows_pow2_plus1,
    "scalars-all-zero": check_scalars_all_zero,
    "scalars-all-one": check_scalars_all_one,
    "scalars-all-r-minus-1": check_scalars_all_r_minus_1,
    "scalars-all-equal": check_scalars_all_equal,
    "scalars-mix-0-1-r-minus-1": check_scalars_mix_0_1_r_minus_1,
    "scalar-2^254": check_scalar_2_254,
    "scalar-half-r": check_scalar_half_r,
    "scalar-signed-digit-carry": check_scalar_signed_digit_carry,
    "public-input-zero": check_public_input_zero,
    "public-input-r-minus-1": check_public_input_r_minus_1,
    "blinding-zero": check_blinding_zero,
    "base-identity": check_base_identity,
    "base-identity-batch": check_base_identity_batch,
    "bases-all-identity": check_bases_all_identity,
    "bases-repeated": check_bases_repeated,
    "bases-repeated-batch": check_bases_repeated_batch,
    "bases-negated": check_bases_negated,
    "bases-negated-batch": check_bases_negated_batch,
    "density-sparse-word-boundaries": check_density_sparse_word_boundaries,
    "density-holes-word-boundaries": check_density_holes_word_boundaries,
    "density-zero-coefficient-a": check_density_zero_coefficient_a,
    "density-zero-coefficient-b": check_density_zero_coefficient_b,
    "density-zero-coefficient-ab": check_density_zero_coefficient_ab,
    "density-zero-coefficient-input": check_density_zero_coefficient_input,
    "bitmap-word-boundaries": check_bitmap_word_boundaries,
    "bitmap-seam": check_bitmap_seam,
    "union-one-and-nonboolean": check_union_one_and_nonboolean,
}
"""Each flag of FORMAT.md without a parameter and its checker."""
PATTERN_CHECKS = (
    # N is a u64's at most 20 digits, as every number of the format: int() of over 4300 raised a traceback
    (re.compile(r"msm-len-(0|[1-9][0-9]{0,19})"), "msm-len-N", lambda v, m: check_msm_len(v, int(m[1]))),
    (re.compile(r"split-just-below-half-([lab])"), "split-just-below-half-<q>", lambda v, m: check_split_just_below_half(v, m[1])),
    (re.compile(r"split-just-above-half-([lab])"), "split-just-above-half-<q>", lambda v, m: check_split_just_above_half(v, m[1])),
)
"""The flags with a parameter: (pattern, FORMAT.md's name, checker of a match)."""


def checker(flag: str):
    """A callable checking ``flag`` on a vector, or None when flag is not a flag of FORMAT.md."""
    if flag in EXACT_CHECKS:
        return EXACT_CHECKS[flag]
    for pattern, _, check in PATTERN_CHECKS:
        if m := pattern.fullmatch(flag):
            return lambda v, m=m, check=check: check(v, m)
    return None


def check_flag(v, flag: str) -> None:
    """Raise FlagDoesNotHold (why) unless vector v has the property flag claims; KeyError for an unknown flag."""
    check = checker(flag)
    if check is None:
        raise KeyError(flag)
    check(v)


def flag_holds(v, flag: str) -> bool:
    try:
        check_flag(v, flag)
    except FlagDoesNotHold:
        return False
    return True


def check_flags(v) -> int:
    """Check every flag of vector v; raise InvalidInputError naming ``flags[i]`` for the first one whose property
    does not hold or that is not a flag of FORMAT.md. Returns the number of flags checked."""
    for i, flag in enumerate(v.flags):
        check = checker(flag)
        if check is None:
            raise InvalidInputError(
                f"flags[{i}]", f"{flag!r} is not a flag of vectors/FORMAT.md, so its claim cannot be checked")
        try:
            check(v)
        except FlagDoesNotHold as exc:
            raise InvalidInputError(f"flags[{i}]", f"{flag!r} does not hold: {exc}") from None
    return len(v.flags)
