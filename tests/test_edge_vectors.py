"""The edge-case vectors (vectors/edge_cases.py, vectors/data/edge-*.json).

For every edge vector: it loads (full validation), its flags are the case's, every proof passes the
pairing check (reference.verifier.verify), the per-phase sums recombine into that proof by FORMAT.md's
assemble formulas, the expected prep equals a naive re-implementation of the split rule (reference/prep.py's docstring), every
claimed flag holds in the vector's own data (checked by the functions below, written from the flag
meanings, not from the builders), and regeneration is bit-identical.
"""
import functools
import re

import pytest

from reference.curve import Z1, add, g1_eq, g2_eq, is_identity, multiply, neg
from reference.field import R
from reference.prep import WORD_BITS, bitmap_bits
from reference.verifier import verify
from vectors.bundled import DATA_DIR
from vectors.edge_cases import (
    EDGE_CASES,
    FLAG_MEANINGS,
    SIGNED_DIGIT_WINDOWS,
    edge_case_files,
    select_cases,
    signed_digit_carry_scalar,
)
from vectors.format import load_vector

CASES = {case.name: case for case in EDGE_CASES}
QUERY_POINTS = {"l": "l", "a": "a", "b": "b_g1"}
"""The key query holding each prep query's points (B_G2 has the same points' G2 twins)."""
BOOLEAN = (0, 1)


@functools.lru_cache(maxsize=None)
def loaded(name: str):
    return load_vector(CASES[name].path)


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


def bits(v, q: str, circuit: int) -> list[bool]:
    return bitmap_bits(getattr(v.expected_prep, q).bitmaps[circuit], len(points(v, q)))


def tail_scalars(v, q: str, circuit: int) -> tuple[int, ...]:
    return getattr(v.expected_prep, q).tail_scalars[circuit]


def all_tail_scalars(v) -> set[int]:
    return {s for q in QUERY_POINTS for c in range(len(v.circuits)) for s in tail_scalars(v, q, c)}


def msm_lengths(v) -> set[int]:
    return {len(v.pk.h)} | {len(getattr(v.expected_prep, q).tail_indices) for q in QUERY_POINTS}


def tail_pairs(v, q: str, circuit: int) -> list[tuple[int, int]]:
    """(position, tail scalar) for circuit's tail in query q."""
    split = getattr(v.expected_prep, q)
    return list(zip(split.tail_indices, split.tail_scalars[circuit]))


def circuits_with(v, pattern) -> list[int]:
    """Circuits whose every public input and aux value satisfies pattern(value)."""
    return [c for c, case in enumerate(v.circuits) if all(pattern(x) for x in witness_z(case)[1:])]


# ----------------------------------------------------------------------------------------------
# Flag checkers: each asserts that the vector really has the property its flag claims.


def check_domain_log1(v):
    assert v.r1cs.log_n == 1 and len(v.pk.h) == 1


def check_rows_pow2(v):
    assert v.r1cs.num_rows == v.r1cs.n, f"{v.r1cs.num_rows} rows, n = {v.r1cs.n}"


def check_rows_pow2_plus1(v):
    assert v.r1cs.num_rows == v.r1cs.n // 2 + 1, f"{v.r1cs.num_rows} rows, n = {v.r1cs.n}"


def check_msm_len(v, length: int):
    assert length in msm_lengths(v), f"MSM lengths are {sorted(msm_lengths(v))}"


def _check_pattern_reaches_l(v, value: int):
    matching = circuits_with(v, lambda x: x == value)
    assert matching, f"no circuit has every value {value:#x}"
    for c in matching:
        tail = tail_scalars(v, "l", c)
        assert tail and set(tail) == {value}, f"circuit {c}'s L tail scalars are not all {value:#x}"


def check_scalars_all_zero(v):
    _check_pattern_reaches_l(v, 0)


def check_scalars_all_one(v):
    _check_pattern_reaches_l(v, 1)


def check_scalars_all_r_minus_1(v):
    _check_pattern_reaches_l(v, R - 1)


def check_scalars_all_equal(v):
    equal = [c for c, case in enumerate(v.circuits) if len(set(witness_z(case)[1:])) == 1]
    values = {witness_z(v.circuits[c])[1] for c in equal}
    assert values - {0, 1, R - 1}, f"no circuit has all values equal to one v outside {{0, 1, r-1}}: {values}"
    for value in values - {0, 1, R - 1}:
        _check_pattern_reaches_l(v, value)


def check_scalars_mix_0_1_r_minus_1(v):
    expected = lambda count: [(0, 1, R - 1)[i % 3] for i in range(count)]  # noqa: E731
    assert any(list(c.witness.aux) == expected(len(c.witness.aux)) for c in v.circuits)


def check_scalar_2_254(v):
    assert 2**254 in all_tail_scalars(v)


def check_scalar_half_r(v):
    assert {(R - 1) // 2, (R + 1) // 2} <= all_tail_scalars(v)


def check_scalar_signed_digit_carry(v):
    for c in SIGNED_DIGIT_WINDOWS:
        value = signed_digit_carry_scalar(c)
        assert all((value >> (c * j)) % (1 << c) == 1 << (c - 1) for j in range(254 // c)), c  # every window is 2^(c-1)
        assert value in all_tail_scalars(v), f"the c = {c} carry scalar is in no tail"


def check_public_input_zero(v):
    assert any(0 in c.witness.public_inputs for c in v.circuits)


def check_public_input_r_minus_1(v):
    assert any(R - 1 in c.witness.public_inputs for c in v.circuits)


def check_blinding_zero(v):
    assert any(c.witness.r == 0 and c.witness.s == 0 for c in v.circuits)


def check_base_identity(v):
    assert any(
        is_identity(v.pk.l[k]) and s != 0 for c in range(len(v.circuits)) for k, s in tail_pairs(v, "l", c)
    ), "no identity L point with a non-zero tail scalar"


def check_base_identity_batch(v):
    assert any(
        is_identity(v.pk.l[k]) and bit for c in range(len(v.circuits)) for k, bit in enumerate(bits(v, "l", c))
    ), "no identity L point in a bitmap"


def check_bases_all_identity(v):
    assert v.pk.l and all(is_identity(p) for p in v.pk.l)
    assert all(s != 0 for c in range(len(v.circuits)) for s in tail_scalars(v, "l", c))
    assert len(v.expected_prep.l.tail_indices) == len(v.pk.l)


def _equal(p1, p2) -> bool:
    """P1 == P2 (G1 or G2: py_ecc projective points)."""
    return g1_eq(p1, p2)


def _negated(p1, p2) -> bool:
    """P1 == -P2 (G1 or G2)."""
    return g1_eq(p1, neg(p2))


def _related_in_every_group(v, q, k1, k2, related) -> bool:
    """related(Q[k1], Q[k2]) for q's G1 points, and for B also for the B_G2 twins."""
    groups = [points(v, q)] + ([v.pk.b_g2] if q == "b" else [])
    return all(not is_identity(g[k1]) and related(g[k1], g[k2]) for g in groups)


def _pairs_in_tail(v, q, related) -> bool:
    """Some circuit has tail positions k1 != k2 with related points and the same non-boolean scalar."""
    for c in range(len(v.circuits)):
        pairs = tail_pairs(v, q, c)
        for i, (k1, s1) in enumerate(pairs):
            for k2, s2 in pairs[i + 1 :]:
                if s1 == s2 and s1 not in BOOLEAN and _related_in_every_group(v, q, k1, k2, related):
                    return True
    return False


def _pairs_in_bitmap(v, q, related) -> bool:
    """Some circuit's bitmap selects positions k1 != k2 with related points."""
    for c in range(len(v.circuits)):
        chosen = [k for k, bit in enumerate(bits(v, q, c)) if bit]
        if any(_related_in_every_group(v, q, k1, k2, related) for i, k1 in enumerate(chosen) for k2 in chosen[i + 1 :]):
            return True
    return False


def check_bases_repeated(v):
    for q in QUERY_POINTS:
        assert _pairs_in_tail(v, q, _equal), f"no repeated tail points with equal scalars in {q}"


def check_bases_repeated_batch(v):
    for q in QUERY_POINTS:
        assert _pairs_in_bitmap(v, q, _equal), f"no repeated bitmap points in {q}"


def check_bases_negated(v):
    for q in QUERY_POINTS:
        assert _pairs_in_tail(v, q, _negated), f"no P, -P tail pair with equal scalars in {q}"


def check_bases_negated_batch(v):
    for q in QUERY_POINTS:
        assert _pairs_in_bitmap(v, q, _negated), f"no P, -P pair in the {q} bitmap"


def _boundaries(count: int) -> set[int]:
    return {0, WORD_BITS - 1, WORD_BITS, 2 * WORD_BITS - 1, 2 * WORD_BITS, count - 1}


def check_density_sparse_word_boundaries(v):
    b_aux = v.pk.density.b_aux
    assert {i for i, bit in enumerate(b_aux) if bit} == _boundaries(len(b_aux))


def check_density_holes_word_boundaries(v):
    a_aux = v.pk.density.a_aux
    assert {i for i, bit in enumerate(a_aux) if not bit} == _boundaries(len(a_aux))


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
    n_in = v.r1cs.num_inputs
    hits = {var for var in _only_zero(v, "a") & _named_non_zero(v, "b") if var >= n_in}
    assert hits, "no aux variable named in A only with coefficient 0 and non-zero in B"
    assert not any(_aux_bit(v, "a_aux", var) for var in hits), "a_aux counts a zero-coefficient term"


def check_density_zero_coefficient_b(v):
    n_in = v.r1cs.num_inputs
    hits = {var for var in _only_zero(v, "b") & _named_non_zero(v, "a") if var >= n_in}
    assert hits, "no aux variable named in B only with coefficient 0 and non-zero in A"
    assert not any(_aux_bit(v, "b_aux", var) for var in hits), "b_aux counts a zero-coefficient term"


def check_density_zero_coefficient_ab(v):
    n_in = v.r1cs.num_inputs
    hits = {var for var in _only_zero(v, "a") & _only_zero(v, "b") if var >= n_in}
    assert hits, "no aux variable named in A and B only with coefficient 0"
    assert not any(_aux_bit(v, "a_aux", var) or _aux_bit(v, "b_aux", var) for var in hits)


def check_density_zero_coefficient_input(v):
    hits = {var for var in _only_zero(v, "b") if 0 < var < v.r1cs.num_inputs}
    assert hits, "no public input named in B only with coefficient 0"
    assert not any(v.pk.density.b_input[var] for var in hits), "b_input counts a zero-coefficient term"


def check_bitmap_word_boundaries(v):
    l_bits, a_bits = bits(v, "l", 0), bits(v, "a", 0)
    assert min(len(l_bits), len(a_bits)) > 2 * WORD_BITS + 1, "too few points to reach the third word"
    assert all(l_bits[k] for k in _boundaries(len(l_bits))), "L bitmap"
    assert all(a_bits[k] for k in _boundaries(len(a_bits)) - {0}), "A bitmap"


def check_bitmap_seam(v):
    n_in = v.r1cs.num_inputs
    for q in ("a", "b"):
        variables = query_variables(v, q)
        seam = next((k for k, var in enumerate(variables) if var >= n_in), None)
        assert seam is not None, f"{q} has no aux position"
        assert seam > 0 and variables[seam - 1] < n_in, f"{q}: no input right before the first aux position"
        assert bits(v, q, 0)[seam], f"{q}: bit {seam} (first aux position) is clear"
        assert seam - 1 in getattr(v.expected_prep, q).tail_indices, f"{q}: the last input is not in the tail"


def check_split_just_below_half(v, q: str):
    count, size = len(points(v, q)), len(union(v, q))
    assert getattr(v.expected_prep, q).split, f"{q} is not split"
    assert 2 * size <= count < 2 * (size + 1), f"{q}: union {size} of {count} points is not the largest that splits"


def check_split_just_above_half(v, q: str):
    count, size = len(points(v, q)), len(union(v, q))
    assert not getattr(v.expected_prep, q).split, f"{q} is split"
    assert 2 * (size - 1) <= count < 2 * size, f"{q}: union {size} of {count} points is not the smallest that does not split"


def check_union_one_and_nonboolean(v):
    found = []
    for q in QUERY_POINTS:
        split = getattr(v.expected_prep, q)
        if not split.split:
            continue
        scalars = full_scalars(v, q)
        for j, k in enumerate(split.tail_indices):
            ones = [c for c in range(len(scalars)) if scalars[c][k] == 1]
            if ones and any(s[k] not in BOOLEAN for s in scalars):
                assert all(bits(v, q, c)[k] and split.tail_scalars[c][j] == 0 for c in ones)
                found.append((q, k))
    assert found, "no split tail position with 1 in one circuit and a non-boolean value in another"


def check_multi_circuit(v):
    assert len(v.circuits) > 1


EXACT_CHECKS = {
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
    "multi-circuit": check_multi_circuit,
}
PATTERN_CHECKS = (
    (re.compile(r"msm-len-(\d+)"), "msm-len-N", lambda v, m: check_msm_len(v, int(m[1]))),
    (re.compile(r"split-just-below-half-([lab])"), "split-just-below-half-<q>", lambda v, m: check_split_just_below_half(v, m[1])),
    (re.compile(r"split-just-above-half-([lab])"), "split-just-above-half-<q>", lambda v, m: check_split_just_above_half(v, m[1])),
)


def check_flag(v, flag: str) -> None:
    """Assert that vector v has the property flag claims (AssertionError if not, KeyError for an unknown flag)."""
    if flag in EXACT_CHECKS:
        EXACT_CHECKS[flag](v)
        return
    for pattern, _, check in PATTERN_CHECKS:
        if m := pattern.fullmatch(flag):
            check(v, m)
            return
    raise KeyError(flag)


def flag_holds(v, flag: str) -> bool:
    try:
        check_flag(v, flag)
    except AssertionError:
        return False
    return True


# ----------------------------------------------------------------------------------------------
# Naive prep (reference/prep.py's docstring) and the assemble formulas (FORMAT.md, in the vector's fields)


def naive_split(v, q: str) -> tuple[bool, list[int], list[list[bool]], list[list[int]]]:
    """(split, tail_indices, per-circuit bitmap bits, per-circuit tail scalars) by FORMAT.md's rule."""
    scalars = full_scalars(v, q)
    positions = union(v, q)
    count = len(query_variables(v, q))
    if 2 * len(positions) > count:
        return False, list(range(count)), [[False] * count for _ in scalars], scalars
    n_in = v.r1cs.num_inputs
    variables = query_variables(v, q)
    batched = [[s == 1 and var >= n_in for s, var in zip(per, variables)] for per in scalars]
    tails = [[0 if batched[c][k] else scalars[c][k] for k in positions] for c in range(len(scalars))]
    return True, positions, batched, tails


def assert_assemble_formulas(v, case) -> None:
    """FORMAT.md's assemble, from the vector's per-phase expected outputs, gives the expected proof."""
    vk, e, w = v.pk.vk, case.expected, case.witness
    a_sum = add(e.batch_add.a, e.tail_msm.a)
    proof_a = add(add(vk.alpha_g1, a_sum), multiply(vk.delta_g1, w.r))
    proof_b = add(add(vk.beta_g2, add(e.batch_add.b_g2, e.tail_msm.b_g2)), multiply(vk.delta_g2, w.s))
    b1 = add(add(vk.beta_g1, add(e.batch_add.b_g1, e.tail_msm.b_g1)), multiply(vk.delta_g1, w.s))
    proof_c = add(add(e.batch_add.l, e.tail_msm.l), e.msm_h)
    proof_c = add(add(proof_c, multiply(proof_a, w.s)), multiply(b1, w.r))
    proof_c = add(proof_c, neg(multiply(vk.delta_g1, w.r * w.s % R)))
    assert g1_eq(proof_a, e.assemble.a)
    assert g2_eq(proof_b, e.assemble.b)
    assert g1_eq(proof_c, e.assemble.c)


# ----------------------------------------------------------------------------------------------
# Tests


def test_every_edge_file_belongs_to_a_case():
    on_disk = {p.stem for p in DATA_DIR.glob("edge-*.json")}
    assert on_disk == set(CASES), "run `python -m vectors.edge_cases` to (re)write vectors/data/edge-*.json"


ALREADY_IN_FORMAT = {"multi-circuit"}
"""Flags FORMAT.md's Flags table already describes."""


def test_every_flag_has_a_meaning_and_a_checker():
    for case in EDGE_CASES:
        for flag in case.flags:
            patterns = [name for pattern, name, _ in PATTERN_CHECKS if pattern.fullmatch(flag)]
            assert flag in EXACT_CHECKS or patterns, f"{case.name}: flag {flag!r} has no checker"
            meaning = patterns[0] if patterns else flag
            assert meaning in FLAG_MEANINGS or flag in ALREADY_IN_FORMAT, f"{case.name}: flag {flag!r} has no meaning"


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_vector_verifies_and_has_its_flags(name):
    v = loaded(name)
    case = CASES[name]
    assert v.id == name and v.flags == list(case.flags)
    for c, circuit in enumerate(v.circuits):
        assert verify(v.pk.vk, circuit.witness.public_inputs, circuit.expected.assemble), f"circuit {c}"
        assert_assemble_formulas(v, circuit)
    for q in QUERY_POINTS:
        split, positions, batched, tails = naive_split(v, q)
        got = getattr(v.expected_prep, q)
        assert (got.split, list(got.tail_indices)) == (split, positions), q
        for c in range(len(v.circuits)):
            assert bits(v, q, c) == batched[c] and list(got.tail_scalars[c]) == tails[c], (q, c)
    for flag in case.flags:
        check_flag(v, flag)


def test_flag_checkers_reject_a_vector_without_the_properties():
    """The checkers can fail: on the plain bundled porep-log05 vector only the properties it really has hold
    (H has 31 points, B's tail is ONE alone, and its boolean witness sets the first aux bit of A and B)."""
    v = load_vector(DATA_DIR / "porep-log05.json")
    flags = sorted({f for case in EDGE_CASES for f in case.flags})
    holding = {f for f in flags if flag_holds(v, f)}
    assert holding == {"msm-len-31", "msm-len-1", "bitmap-seam"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_edge_vector_regenerates_bit_identical(name):
    files = edge_case_files(CASES[name])
    for path, data in files.items():
        assert path.read_bytes() == data, f"{path} differs from a fresh generation: run `python -m vectors.edge_cases`"


def test_unknown_case_name_is_rejected():
    from reference.errors import InvalidInputError

    with pytest.raises(InvalidInputError, match="unknown edge case 'edge-nope'"):
        select_cases(["edge-nope"])


def test_zero_one_tail_scalars_use_identity_sums():
    """edge-rows-pow2's witness is boolean: its L tail is empty, so tail_msm.l is the identity and batch_add.l
    is the plain sum of the L points whose value is 1."""
    v = loaded("edge-rows-pow2")
    case = v.circuits[0]
    assert v.expected_prep.l.tail_indices == ()
    assert is_identity(case.expected.tail_msm.l)
    ones = [p for p, s in zip(v.pk.l, case.witness.aux) if s == 1]
    total = Z1
    for p in ones:
        total = add(total, p)
    assert ones and g1_eq(case.expected.batch_add.l, total)
