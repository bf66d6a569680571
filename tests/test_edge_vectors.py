"""The edge-case vectors (vectors/edge_cases.py, vectors/data/edge-*.json).

For every edge vector: it loads (full validation), its flags are the case's, every proof passes the
pairing check (reference.verifier.verify), the per-phase sums recombine into that proof by FORMAT.md's
assemble formulas, the expected prep equals a naive re-implementation of the split rule (reference/prep.py's docstring), every
claimed flag holds in the vector's own data (vectors/flags.py, whose checkers were written from the flag
meanings, not from the builders; every flag of FORMAT.md has one), and regeneration is bit-identical.
"""
import dataclasses
import functools
import re

import pytest

from reference.curve import Z1, add, g1_eq, g2_eq, is_identity, multiply, neg
from reference.field import R
from reference.verifier import verify
from vectors.bundled import DATA_DIR
from vectors.edge_cases import EDGE_CASES, edge_case_files, select_cases
from vectors.flags import (
    EXACT_CHECKS,
    PATTERN_CHECKS,
    FlagDoesNotHold,
    QUERY_POINTS,
    bits,
    check_flag,
    flag_holds,
    full_scalars,
    query_variables,
    union,
)
from vectors.format import load_vector

CASES = {case.name: case for case in EDGE_CASES}


@functools.lru_cache(maxsize=None)
def loaded(name: str):
    return load_vector(CASES[name].path)


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


FORMAT_MD = DATA_DIR.parent / "FORMAT.md"


def format_flags() -> list[str]:
    """The first cell of every row of FORMAT.md's `| flag | meaning |` tables (the Flags table and the
    interoperability flags), e.g. `shape-porep`, `msm-len-N`."""
    names, in_table = [], False
    for line in FORMAT_MD.read_text().splitlines():
        if line.startswith("| flag | meaning |"):
            in_table = True
        elif in_table and line.startswith("|"):
            if not line.startswith("|---"):
                names.append(re.match(r"\| `([^`]+)` \|", line)[1])
        else:
            in_table = False
    return names


def test_every_format_flag_has_a_checker_and_every_checker_a_format_flag():
    documented = format_flags()
    checked = list(EXACT_CHECKS) + [name for _, name, _ in PATTERN_CHECKS]
    assert len(documented) == len(set(documented)), "a flag is listed twice in FORMAT.md"
    assert set(documented) == set(checked), "FORMAT.md's flag tables and vectors/flags.py differ"
    assert {"shape-porep", "shape-random", "multi-circuit", "sidecar", "snarkjs", "bellman-import"} <= set(documented)


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
    (H has 31 points, B's tail is ONE alone, its boolean witness sets the first aux bit of A and B, and its own
    shape-porep)."""
    v = load_vector(DATA_DIR / "porep-log05.json")
    flags = sorted({f for case in EDGE_CASES for f in case.flags} | set(EXACT_CHECKS))
    holding = {f for f in flags if flag_holds(v, f)}
    assert holding == {"msm-len-31", "msm-len-1", "bitmap-seam", "shape-porep"}


def test_shape_multi_circuit_sidecar_and_import_checkers_reject():
    """Each checker written for the generated and imported vectors' flags refuses a vector without its property."""
    porep, random_, interop = (load_vector(DATA_DIR / f"{n}.json") for n in ("porep-log10", "random-log11", "snarkjs-interop"))
    assert flag_holds(porep, "shape-porep") and not flag_holds(porep, "shape-random")
    assert flag_holds(random_, "shape-random") and not flag_holds(random_, "shape-porep")
    assert not flag_holds(interop, "shape-porep")  # public inputs in B
    assert flag_holds(interop, "snarkjs") and not flag_holds(porep, "snarkjs")
    assert not flag_holds(interop, "bellman-import") and not flag_holds(porep, "bellman-import")  # convention; trapdoor
    assert not flag_holds(porep, "multi-circuit") and not flag_holds(porep, "sidecar")
    assert flag_holds(load_vector(DATA_DIR / "sidecar-log08.json"), "sidecar")


def test_shape_porep_judges_the_shares():
    """porep-log10 (854 aux variables) with its witness or densities changed: each share is judged."""
    v = load_vector(DATA_DIR / "porep-log10.json")
    large = [dataclasses.replace(c, witness=dataclasses.replace(c.witness, aux=[7] * len(c.witness.aux))) for c in v.circuits]
    with pytest.raises(FlagDoesNotHold, match="circuit 0: 854 of 854 aux values are neither 0 nor 1"):
        check_flag(dataclasses.replace(v, circuits=large), "shape-porep")
    density = v.pk.density
    sparse_a = dataclasses.replace(density, a_aux=(False,) * len(density.a_aux))
    with pytest.raises(FlagDoesNotHold, match="854 of 854 aux variables are outside a_aux"):
        check_flag(dataclasses.replace(v, pk=dataclasses.replace(v.pk, density=sparse_a)), "shape-porep")
    dense_b = dataclasses.replace(density, b_aux=(True,) * len(density.b_aux))
    with pytest.raises(FlagDoesNotHold, match="854 of 854 aux variables are in b_aux"):
        check_flag(dataclasses.replace(v, pk=dataclasses.replace(v.pk, density=dense_b)), "shape-porep")


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
