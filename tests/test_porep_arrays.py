"""vectors/porep_arrays.py: the array-built PoRep-shaped circuit and witnesses (numpy only, small sizes).

The checks are independent of the module's own outputs: a plain-Python re-implementation of the module
docstring's hash, circuit table and witness (loops over Python ints) must give the same rows and values;
gpu.evaluate.build_csr of the R1CS must give the same CSR; every row is checked with Python ints; the
densities are compared with reference.r1cs.R1CS.density(); SplitMix64 against its published outputs.
"""
import hashlib

import numpy as np
import pytest

from gpu.evaluate import build_csr
from reference.errors import InvalidInputError
from reference.field import R
from reference.setup import derive_scalar
from vectors.porep_arrays import (
    KIND_NAMES,
    add_u64_to_limbs,
    draw,
    porep_circuit,
    porep_sizes,
    porep_witnesses,
    r_minus_u64_limbs,
    splitmix64,
    stream_key,
    witness_objects,
)

pytestmark = pytest.mark.filterwarnings("error")  # uint64 arithmetic must never overflow a numpy scalar

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
SEED = "porep-arrays-test"


# ------------------------------------------------------------------ an independent plain-Python reference


def ref_splitmix64(x: int) -> int:
    x = (x + GOLDEN) & MASK64
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def ref_draw(seed: str, label: str, i: int) -> int:
    digest = hashlib.sha256(f"groth16-bls12-381-toolkit/porep-arrays/v1|{seed}|{label}".encode()).digest()
    key = int.from_bytes(digest[:8], "little")
    return ref_splitmix64((key + i * GOLDEN) & MASK64)


def T(numerator: int, denominator: int) -> int:
    """floor(p * 2^64) for p = numerator / denominator."""
    return (numerator << 64) // denominator


def ref_circuit(seed: str, num_public: int, num_aux: int, num_constraints: int):
    """(kinds, a, b, c) from the module docstring's table, one Python loop iteration per aux / constraint."""
    ni = 1 + num_public
    kinds = []
    for k in range(num_aux):
        h = ref_draw(seed, "kind", k)
        if h < T(3175, 10000):
            kinds.append("bool")
        elif h < T(32125, 100000):
            kinds.append("mul_lone")
        elif h < T(3225, 10000):
            kinds.append("big")
        elif h < T(5225, 10000):
            kinds.append("not")
        else:
            kinds.append("copy")
    for p in range(num_aux // 2):
        if ref_draw(seed, "pair", p) < T(20, 100):
            kinds[2 * p], kinds[2 * p + 1] = "mul", "copy_prev"
    kinds[0] = "bool"
    bools = [ni + k for k in range(num_aux) if kinds[k] == "bool"]

    def pick(label, i):
        return bools[ref_draw(seed, label, i) % len(bools)]

    a, b, c = [], [], []
    for k, kind in enumerate(kinds):
        y = ni + k
        if kind == "bool":
            rows = ([(y, 1)], [(y, 1)], [(y, 1)])
        elif kind == "copy":
            rows = ([(y, 1), (pick("w", k), R - 1)], [(0, 1)], [])
        elif kind == "not":
            rows = ([(y, 1), (pick("w", k), 1), (0, R - 1)], [(0, 1)], [])
        elif kind in ("mul", "mul_lone"):
            rows = ([(pick("b1", k), 1)], [(pick("b2", k), 1)], [(y, 1)])
        elif kind == "copy_prev":
            rows = ([(y, 1), (y - 1, R - 1)], [(0, 1)], [])
        else:  # big
            k_big = ref_draw(seed, "k_big", k) or 1
            a_row = [(y, 1), (pick("w", k), R - k_big)]
            if num_public:
                a_row.append((1 + ref_draw(seed, "x", k) % num_public, R - 1))
            rows = (a_row, [(0, 1)], [])
        for matrix, row in zip((a, b, c), rows):
            matrix.append(tuple(row))
    for j in range(num_aux, num_constraints):
        v = pick("recheck", j)
        for matrix in (a, b, c):
            matrix.append(((v, 1),))
    return kinds, tuple(a), tuple(b), tuple(c)


def ref_witness(seed: str, kinds, a, b, num_public: int, circuit: int) -> list[int]:
    """z = [1, publics, aux] by running the table's y column (operands read from the reference rows)."""
    ni = 1 + num_public
    z = [1]
    for i in range(num_public):
        words = [ref_draw(seed, f"witness {circuit} public", 4 * i + j) for j in range(4)]
        words[3] &= (1 << 62) - 1
        z.append(sum(w << (64 * j) for j, w in enumerate(words)))
    z += [None] * len(kinds)
    order = {"bool": 0, "mul": 1, "mul_lone": 1, "copy_prev": 2, "copy": 3, "not": 3, "big": 3}
    for k in sorted(range(len(kinds)), key=lambda k: order[kinds[k]]):
        kind, y = kinds[k], ni + k
        if kind == "bool":
            z[y] = ref_draw(seed, f"witness {circuit} bit", k) & 1
        elif kind in ("mul", "mul_lone"):
            z[y] = z[a[k][0][0]] * z[b[k][0][0]] % R
        elif kind == "copy_prev":
            z[y] = z[y - 1]
        elif kind == "copy":
            z[y] = z[a[k][1][0]]
        elif kind == "not":
            z[y] = (1 - z[a[k][1][0]]) % R
        else:
            k_big = R - a[k][1][1]
            x = z[a[k][2][0]] if num_public else 0
            z[y] = (x + k_big * z[a[k][1][0]]) % R
    return z


def row_value(row, z) -> int:
    return sum(coeff * z[var] for var, coeff in row) % R


# ------------------------------------------------------------------------------------------------ tests


def test_splitmix64_matches_published_outputs():
    # SplitMix64 seeded with 1234567: the first five outputs of the reference C implementation
    expected = [6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821]
    assert draw(1234567, np.arange(5)).tolist() == expected
    assert [ref_splitmix64((1234567 + i * GOLDEN) & MASK64) for i in range(5)] == expected
    xs = [0, 1, 2**63, MASK64, 0x0123456789ABCDEF]
    assert splitmix64(np.array(xs, dtype=np.uint64)).tolist() == [ref_splitmix64(x) for x in xs]
    key = stream_key("s", "kind")
    assert draw(key, np.arange(100)).tolist() == [ref_draw("s", "kind", i) for i in range(100)]


def test_limb_helpers_against_python_ints():
    ks = [1, 2, 0xFFFFFFFF, 1 << 32, (1 << 32) + 1, 0xDEADBEEFCAFEF00D, MASK64]
    limbs = r_minus_u64_limbs(np.array(ks, dtype=np.uint64))
    assert limbs.dtype == np.uint32 and limbs.shape == (len(ks), 8)
    got = [int.from_bytes(row.astype("<u4").tobytes(), "little") for row in limbs]
    assert got == [R - k for k in ks]
    bases = [0, (1 << 254) - 1, (1 << 64) - 1, 0xFFFFFFFF_FFFFFFFF_FFFFFFFF, 12345]
    adds = [MASK64, MASK64, 1, MASK64, 0]
    base_limbs = np.array([[(v >> (32 * j)) & 0xFFFFFFFF for j in range(8)] for v in bases], dtype=np.uint32)
    out = add_u64_to_limbs(base_limbs, np.array(adds, dtype=np.uint64))
    assert [int.from_bytes(row.astype("<u4").tobytes(), "little") for row in out] == [x + y for x, y in zip(bases, adds)]


@pytest.mark.parametrize(
    "log_n, sizes",
    [
        (3, {}),
        (6, {}),
        (10, {}),
        (12, {}),
        (8, {"num_public": 3, "num_aux": 150, "num_constraints": 200}),  # RECHECK rows
        (12, {"num_public": 0}),  # BIG without an x term
    ],
)
def test_rows_and_witnesses_match_independent_reference(log_n, sizes):
    circuit = porep_circuit(log_n, SEED, **sizes)
    p = circuit.num_inputs - 1
    kinds, a, b, c = ref_circuit(SEED, p, circuit.num_aux, circuit.num_constraints)
    r1cs = circuit.to_r1cs()
    assert (r1cs.a, r1cs.b, r1cs.c) == (a, b, c)
    assert [KIND_NAMES[k] for k in circuit.kind.tolist()] == kinds
    z, rs = porep_witnesses(circuit, "witness-seed", 2)
    assert z.dtype == np.uint32 and z.shape == (2, circuit.num_variables, 8)
    for ci, w in enumerate(witness_objects(z, rs, circuit.num_inputs)):
        assert [1, *w.public_inputs, *w.aux] == ref_witness("witness-seed", kinds, a, b, p, ci)
        assert (w.r, w.s) == (derive_scalar("witness-seed", f"circuit {ci} r"), derive_scalar("witness-seed", f"circuit {ci} s"))


def test_every_kind_appears_at_log_n_12():
    counts = porep_circuit(12, SEED, num_public=5, num_aux=3000, num_constraints=3500).kind_counts()
    assert all(counts[name] > 0 for name in KIND_NAMES), counts
    assert counts["recheck"] == 500
    assert sum(counts[name] for name in KIND_NAMES) == 3000


@pytest.mark.parametrize(
    "log_n, sizes",
    [(1, {}), (2, {}), (3, {}), (5, {}), (9, {}), (12, {}), (8, {"num_public": 3, "num_aux": 150, "num_constraints": 200}), (11, {"num_public": 0})],
)
def test_csr_is_build_csr_of_the_r1cs(log_n, sizes):
    circuit = porep_circuit(log_n, SEED, **sizes)
    r1cs = circuit.to_r1cs()  # R1CS.__post_init__ checks variable indices and coefficients < r
    assert r1cs.log_n == log_n and r1cs.num_constraints == circuit.num_constraints
    csr = build_csr(r1cs)
    assert csr.row_start.dtype == circuit.row_start.dtype == np.int64
    assert csr.var.dtype == circuit.var.dtype == np.int32
    assert csr.coeff.dtype == circuit.coeff.dtype and circuit.coeff.dtype == np.uint32
    assert np.array_equal(csr.row_start, circuit.row_start)
    assert np.array_equal(csr.var, circuit.var)
    assert np.array_equal(csr.coeff, circuit.coeff)
    assert csr.num_variables == circuit.num_variables and csr.log_n == circuit.log_n
    for matrix in "abc":
        for row in r1cs.rows(matrix):
            variables = [v for v, _ in row]
            assert len(set(variables)) == len(variables), row


def test_witnesses_satisfy_every_row():
    circuit = porep_circuit(10, SEED)
    r1cs = circuit.to_r1cs()
    rows = [r1cs.rows(m) for m in "abc"]
    z, rs = porep_witnesses(circuit, SEED, 2)
    witnesses = witness_objects(z, rs, circuit.num_inputs)
    assert witnesses[0].aux != witnesses[1].aux and witnesses[0].public_inputs != witnesses[1].public_inputs
    for w in witnesses:
        values = [1, *w.public_inputs, *w.aux]
        assert all(0 <= v < R for v in values)
        assert all(v < 1 << 254 for v in w.public_inputs)
        for j in range(r1cs.num_rows):
            assert row_value(rows[0][j], values) * row_value(rows[1][j], values) % R == row_value(rows[2][j], values), j


def test_density_matches_r1cs_density():
    for log_n, sizes in ((4, {}), (10, {}), (8, {"num_public": 0, "num_aux": 150, "num_constraints": 200})):
        circuit = porep_circuit(log_n, SEED, **sizes)
        assert circuit.density() == circuit.to_r1cs().density()


def test_porep_like_statistics_at_log_n_14():
    circuit = porep_circuit(14, SEED)
    a_aux = np.count_nonzero(circuit.a_aux) / circuit.num_aux
    b_aux = np.count_nonzero(circuit.b_aux) / circuit.num_aux
    assert 0.994 <= a_aux <= 0.999, a_aux
    assert 0.24 <= b_aux <= 0.27, b_aux
    assert circuit.num_inputs > 1
    assert circuit.b_input.tolist() == [True] + [False] * (circuit.num_inputs - 1)
    z, _ = porep_witnesses(circuit, SEED, 1)
    aux = z[0, circuit.num_inputs :]  # the 328 public inputs are 2% of z at this size: count the aux witness
    small = (aux[:, 1:] == 0).all(axis=1) & (aux[:, 0] <= 1)
    assert small.mean() > 0.99
    summary = circuit.summary()
    assert summary["num_constraints"] == circuit.num_constraints and summary["b_input_count"] == 1


def test_defaults_at_log_n_27_are_the_porep_partition():
    sizes = porep_sizes(27)
    assert (sizes.num_constraints, sizes.num_aux, sizes.num_public) == (130_278_869, 130_169_893, 328)
    assert sizes.num_inputs == 329 and sizes.n == 1 << 27


@pytest.mark.parametrize("log_n", range(1, 32))
def test_default_sizes_fit_their_domain(log_n):
    s = porep_sizes(log_n)
    assert s.num_constraints >= s.num_aux >= 1
    rows = s.num_constraints + s.num_inputs
    assert rows <= s.n and max(1, (rows - 1).bit_length()) == log_n


def test_determinism():
    one, two, other = porep_circuit(9, SEED), porep_circuit(9, SEED), porep_circuit(9, SEED + "x")
    for name in ("row_start", "var", "coeff", "a_aux", "b_input", "b_aux", "kind"):
        assert np.array_equal(getattr(one, name), getattr(two, name)), name
    assert one.fingerprint() == two.fingerprint() != other.fingerprint()
    assert not np.array_equal(one.kind, other.kind)
    z1, rs1 = porep_witnesses(one, SEED, 3)
    z2, rs2 = porep_witnesses(two, SEED, 3)
    assert np.array_equal(z1, z2) and rs1 == rs2
    assert not np.array_equal(z1[0], z1[1]) and not np.array_equal(z1[1], z1[2])
    z3, _ = porep_witnesses(one, SEED + "x", 1)
    assert not np.array_equal(z1[0], z3[0])


@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"log_n": 0}, "log_n"),
        ({"log_n": 32}, "log_n"),
        ({"log_n": -3}, "log_n"),
        ({"log_n": "5"}, "log_n"),
        ({"log_n": 4, "num_public": 16}, "num_public"),
        ({"log_n": 4, "num_public": -1}, "num_public"),
        ({"log_n": 6, "num_aux": 0}, "num_aux"),
        ({"log_n": 6, "num_aux": 64}, "num_aux"),
        ({"log_n": 6, "num_aux": 50, "num_constraints": 40}, "num_constraints"),
        ({"log_n": 6, "num_constraints": 0}, "num_constraints"),
        ({"log_n": 6, "num_public": 2, "num_constraints": 62}, "num_constraints"),
        ({"log_n": 10, "num_aux": 10, "num_constraints": 100}, "num_constraints"),  # 2^8 would do: too few rows
    ],
)
def test_bad_sizes_raise_naming_the_parameter(kwargs, field):
    with pytest.raises(InvalidInputError) as info:
        porep_sizes(**kwargs)
    assert info.value.field == field
    with pytest.raises(InvalidInputError) as info:
        porep_circuit(seed=SEED, **kwargs)
    assert info.value.field == field


def test_bad_witness_count_raises():
    circuit = porep_circuit(4, SEED)
    with pytest.raises(InvalidInputError) as info:
        porep_witnesses(circuit, SEED, 0)
    assert info.value.field == "count"


def test_witnesses_from_a_later_circuit_index_are_that_circuits():
    """porep_witnesses(first=k) gives circuit k's witness, as a batch from 0 does (bench builds them one at a time)."""
    from vectors.porep_arrays import porep_circuit, porep_witnesses

    circuit = porep_circuit(8, "first-index")
    batch, rs = porep_witnesses(circuit, "first-index", 3)
    one, rs_one = porep_witnesses(circuit, "first-index", 1, first=2)
    assert (one[0] == batch[2]).all() and rs_one == rs[2:]
    assert not (batch[1] == batch[2]).all()
