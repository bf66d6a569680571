"""Deterministic synthetic circuits, witnesses and complete test vectors.

Shapes:

* ``porep`` (default) -- shaped like a Filecoin PoRep partition: few public inputs, an aux witness
  that is mostly 0 and 1, A dense over aux (about 99%), B over about a quarter of aux, B over inputs
  only ONE. Constraints (gates), each but ``sink`` defining one new aux variable y:
    - ``bool``  (about 20%): a fresh per-circuit bit y, constrained y * y = y;
    - copy / NOT: A = w (or ONE - w), B = ONE, C = y -- keeps values in {0, 1};
    - scale: A = k * w + x_i (k random, x_i a public input now and then), B = ONE, C = y --
      the source of the few "large" witness values;
    - ``mul``   (about 8%): A = w, B = w', C = y (with ``bool``, the only aux terms in B);
    - ``sink``: A = k * y_big, B = 0, C = 0 -- puts a large value in A without spreading it.
  The operand w is the oldest variable not yet used in A, so almost every aux variable appears in A.
* ``random`` -- uniformly random: every constraint A = sum of 3 random terms with random
  coefficients, B likewise, C = y; aux values are uniformly random field elements.

The circuit depends on (seed, log n, shape, sizes) only; each circuit of a batch gets its own
witness from (seed, circuit index), so many circuits share one R1CS and one key, as in supraseal's
num_circuits. All randomness is Python's ``random.Random`` seeded with a string derived from the seed.

The keys' points and the group sums of msm_h, batch_add and tail_msm are computed by the independent library when
it is installed (vectors/fast_library.py ``curve_primitive``), by the pure-Python reference otherwise or with
``reference=True``; every vector names which one in ``computed_by`` (vectors/FORMAT.md).
"""
import random
from dataclasses import dataclass

from reference.domain import BELLMAN, DomainConvention
from reference.errors import InvalidInputError
from reference.field import R
from reference.keys import ProvingKey, check_proving_key
from reference.msm import REFERENCE_CURVE
from reference.prover import CURVE_PHASES, PHASES, Witness, prove
from reference.r1cs import R1CS, log_domain
from reference.setup import Trapdoor, derive_scalar, setup, trapdoor_from_seed

from . import fast_library
from .fast_library import curve_primitive
from .format import COMPUTED_BY_KEYS_ENTRY, CircuitCase, Vector

SHAPES = ("porep", "random")
MAX_GENERATED_LOG_N = 20
"""2^20 takes minutes with the library on 2 cores and some GB of memory (bench/RESULTS_generate.md), hours in pure
Python; beyond it the Python side (a py_ecc object per key point, the pure-Python NTT) needs more memory than CI's
24 GiB and tens of minutes: larger vectors come from the GPU key generator."""
MAX_GENERATED_ROWS = 1 << MAX_GENERATED_LOG_N
"""circuits * n at most this: each circuit's witness and expected outputs hold a few scalars per row, so many circuits
of a small domain cost as much as one large one."""
ONE = 0
"""Witness index of the constant ONE."""


@dataclass(frozen=True)
class Gate:
    """One constraint: rows (A, B, C) and how its output y is computed from z (kind, operands)."""

    kind: str
    operands: tuple
    a: tuple
    b: tuple
    c: tuple


def shape_flag(shape: str) -> str:
    """The flag every generated vector carries (FORMAT.md, *Flags*)."""
    return f"shape-{shape}"


def default_public_inputs(log_n: int) -> int:
    """A few public inputs, none for the 2-point domain (ONE and one constraint fill it)."""
    return min(3, (1 << log_n) // 4)


def default_constraints(log_n: int, num_inputs: int) -> int:
    """Fill about 7/8 of the domain, so that rows are zero-padded up to n (at least one constraint)."""
    n = 1 << log_n
    return max(1, n - num_inputs - n // 8)


def _porep_gates(rng: random.Random, num_inputs: int, num_constraints: int) -> list[Gate]:
    """PoRep-like gates. Variables not yet used in any A row wait in a queue (small ones, always 0/1,
    and big ones) so that the next gates use them and A ends up dense over aux."""
    gates: list[Gate] = []
    small_pending: list[int] = []
    big_pending: list[int] = []
    small_all: list[int] = []
    y = num_inputs  # the variable the next defining gate creates
    for _ in range(num_constraints):
        if small_pending and rng.random() < 0.01:
            small_pending.pop(0)  # about 1% of aux variables never appear in A, as in PoRep
        roll = rng.random()
        if big_pending and roll < 0.5:
            # A = k * x, B = 0, C = 0: uses a big value in A without spreading it (no new variable)
            x = big_pending.pop(0)
            gates.append(Gate("sink", (), ((x, rng.randrange(1, R)),), (), ()))
            continue
        if roll < 0.20:
            gates.append(Gate("bool", (), ((y, 1),), ((y, 1),), ((y, 1),)))
            small_all.append(y)
            y += 1
            continue
        operand = small_pending.pop(0) if small_pending else (rng.choice(small_all) if small_all else ONE)
        if roll < 0.28 and small_all:
            q = rng.choice(small_all)
            gates.append(Gate("mul", (operand, q), ((operand, 1),), ((q, 1),), ((y, 1),)))
            small_pending.append(y)
        elif roll < 0.34:
            terms = [(operand, rng.randrange(2, R))]
            if num_inputs > 1 and rng.random() < 0.5:
                terms.append((rng.randrange(1, num_inputs), 1))
            terms = tuple(_merge_terms(terms))
            gates.append(Gate("lc", terms, terms, ((ONE, 1),), ((y, 1),)))
            big_pending.append(y)
            y += 1
            continue
        elif roll < 0.62 and operand != ONE:
            terms = ((ONE, 1), (operand, R - 1))  # NOT: ONE - w
            gates.append(Gate("lc", terms, terms, ((ONE, 1),), ((y, 1),)))
            small_pending.append(y)
        else:
            terms = ((operand, 1),)
            gates.append(Gate("lc", terms, terms, ((ONE, 1),), ((y, 1),)))
            small_pending.append(y)
        small_all.append(y)
        y += 1
    return gates


def _merge_terms(terms):
    merged = {}
    for var, coeff in terms:
        merged[var] = (merged.get(var, 0) + coeff) % R
    return [(var, coeff) for var, coeff in merged.items() if coeff]


def _random_lc(rng: random.Random, upto: int, count: int = 3) -> tuple:
    return tuple(_merge_terms([(rng.randrange(upto), rng.randrange(1, R)) for _ in range(count)])) or ((ONE, 1),)


def _random_gates(rng: random.Random, num_inputs: int, num_constraints: int) -> list[Gate]:
    gates = []
    for j in range(num_constraints):
        y = num_inputs + j
        a, b = _random_lc(rng, y), _random_lc(rng, y)
        gates.append(Gate("mul_lc", (a, b), a, b, ((y, 1),)))
    return gates


def _lc_value(terms, z) -> int:
    return sum(coeff * z[var] for var, coeff in terms) % R


def _assign(gates: list[Gate], public_inputs: list[int], rng: random.Random) -> list[int]:
    """Run the circuit: z grows by one output per gate."""
    z = [1, *public_inputs]
    for g in gates:
        if g.kind == "sink":
            continue
        if g.kind == "bool":
            z.append(rng.randrange(2))
        elif g.kind == "mul":
            z.append(z[g.operands[0]] * z[g.operands[1]] % R)
        elif g.kind == "lc":
            z.append(_lc_value(g.operands, z))
        else:  # mul_lc
            z.append(_lc_value(g.operands[0], z) * _lc_value(g.operands[1], z) % R)
    return z[1 + len(public_inputs) :]


def _check_rows_fit(log_n: int, num_inputs: int, num_constraints: int) -> None:
    """Refuse, before a gate is built, sizes whose rows (constraints + inputs) need another domain than 2^log_n:
    building 10^12 gates to find out would never end."""
    if log_domain(num_inputs + 1) > log_n:  # the inputs' rows and the one constraint every circuit has
        raise InvalidInputError("--public-inputs", f"{num_inputs - 1} public inputs, ONE and a constraint do not fit in 2^{log_n} rows")
    rows = num_constraints + num_inputs
    if log_domain(rows) != log_n:
        raise InvalidInputError(
            "--constraints", f"{rows} rows need log n = {log_domain(rows)}, not {log_n}: use fewer constraints or inputs"
        )


def synthetic_circuit(
    log_n: int, seed: str, shape: str = "porep", num_public: int | None = None, num_constraints: int | None = None
) -> tuple[R1CS, list[Gate]]:
    """The R1CS (and its gates, to compute witnesses) for these parameters."""
    if shape not in SHAPES:
        raise InvalidInputError("--shape", f"unknown shape {shape!r}; choose one of {SHAPES}")
    num_public = default_public_inputs(log_n) if num_public is None else num_public
    num_inputs = 1 + num_public
    if num_constraints is None:
        num_constraints = default_constraints(log_n, num_inputs)
    _check_rows_fit(log_n, num_inputs, num_constraints)
    rng = random.Random(f"{seed}|circuit|{shape}|{log_n}|{num_public}|{num_constraints}")
    build = _porep_gates if shape == "porep" else _random_gates
    gates = build(rng, num_inputs, num_constraints)
    r1cs = R1CS(
        num_inputs=num_inputs,
        num_aux=sum(1 for g in gates if g.kind != "sink"),
        a=tuple(g.a for g in gates),
        b=tuple(g.b for g in gates),
        c=tuple(g.c for g in gates),
    )
    return r1cs, gates


def synthetic_witness(r1cs: R1CS, gates: list[Gate], seed: str, circuit: int) -> Witness:
    """Circuit ``circuit``'s public inputs (uniformly random), aux values (by running the gates), r and s."""
    rng = random.Random(f"{seed}|witness|{circuit}")
    public = [rng.randrange(R) for _ in range(r1cs.num_inputs - 1)]
    aux = _assign(gates, public, rng)
    return Witness(public, aux, r=derive_scalar(seed, f"circuit {circuit} r"), s=derive_scalar(seed, f"circuit {circuit} s"))


def build_vector(
    log_n: int,
    seed: str,
    circuits: int = 1,
    shape: str = "porep",
    num_public: int | None = None,
    num_constraints: int | None = None,
    vector_id: str | None = None,
    comment: str | None = None,
    flags: list[str] | None = None,
    progress=None,
    reference: bool = False,
) -> Vector:
    """A complete vector for a synthetic circuit (see the module docstring) with ``circuits`` witnesses; ``reference``
    computes every value in pure Python even where the library is installed."""
    if circuits < 1:
        raise InvalidInputError("--circuits", f"must be at least 1, got {circuits}")
    if not 1 <= log_n <= MAX_GENERATED_LOG_N:
        raise InvalidInputError("--log-n", f"must be in 1..{MAX_GENERATED_LOG_N} for the reference generator, got {log_n}")
    if circuits << log_n > MAX_GENERATED_ROWS:
        raise InvalidInputError("--circuits", f"{circuits} circuits of 2^{log_n} rows exceed the generator's {MAX_GENERATED_ROWS} rows in all")
    r1cs, gates = synthetic_circuit(log_n, seed, shape, num_public, num_constraints)
    return make_vector(
        r1cs,
        [synthetic_witness(r1cs, gates, seed, c) for c in range(circuits)],
        seed,
        vector_id=vector_id or f"{shape}-log{log_n}-c{circuits}-{seed}",
        comment=comment or f"synthetic {shape}-shaped circuit, domain 2^{log_n}, {circuits} circuit(s), seed {ascii(seed)}",
        flags=list(flags or []) + [shape_flag(shape)],
        generator={
            "command": "python -m vectors generate",
            "log_n": log_n,
            "seed": seed,
            "circuits": circuits,
            "shape": shape,
            "public_inputs": r1cs.num_inputs - 1,
            "constraints": r1cs.num_constraints,
        },
        progress=progress,
        curve=curve_primitive(reference),
    )


def make_vector(
    r1cs: R1CS,
    witnesses: list[Witness],
    seed: str,
    vector_id: str,
    comment: str,
    flags: list[str],
    generator: dict,
    trapdoor: Trapdoor | None = None,
    progress=None,
    curve=None,
) -> Vector:
    """Any circuit and witnesses -> a complete vector: test-only keys (from ``trapdoor``, else from the
    seed), and every phase's expected output from the reference prover, the group arithmetic by ``curve``
    (default: the library where installed, see the module docstring)."""
    say = progress or (lambda message: None)
    curve = curve or curve_primitive()
    trapdoor = trapdoor or trapdoor_from_seed(seed)
    say(f"setup for 2^{r1cs.log_n} ({r1cs.num_constraints} constraints, {r1cs.num_inputs} inputs, {r1cs.num_aux} aux) by {curve.name}")
    pk = setup(r1cs, trapdoor, progress=say, curve=curve)
    return vector_from_key(
        r1cs, pk, witnesses, BELLMAN, vector_id, comment, flags, generator, trapdoor, say, curve, keys_computed_by=curve.name
    )


def vector_from_key(
    r1cs: R1CS,
    pk: ProvingKey,
    witnesses: list[Witness],
    convention: DomainConvention,
    vector_id: str,
    comment: str,
    flags: list[str],
    generator: dict,
    trapdoor: Trapdoor | None = None,
    progress=None,
    curve=None,
    keys_computed_by: str | None = None,
) -> Vector:
    """A complete vector for keys made elsewhere (a zkey, a bellman Parameters file, or ``setup`` with any convention):
    every phase's expected output from the reference prover, in ``convention``. The keys must pass the degeneracy
    rules every reader applies (reference/keys.py), so that no importer writes a vector the readers refuse. The group
    arithmetic is ``curve``'s (default: the library where installed); ``keys_computed_by`` names who computed the
    keys, if this toolkit did."""
    check_proving_key(pk)
    curve = curve or curve_primitive()
    if progress:
        progress(f"proving with the reference phases, group arithmetic by {curve.name}")
    outputs, _ = prove(r1cs, pk, witnesses, convention, progress=progress, curve=curve)
    return Vector(
        id=vector_id,
        comment=comment,
        flags=flags,
        convention=convention,
        r1cs=r1cs,
        pk=pk,
        circuits=[CircuitCase(witness=w, expected=outputs.circuit(c)) for c, w in enumerate(witnesses)],
        trapdoor=trapdoor,
        expected_prep=outputs.prep,
        generator=generator,
        computed_by=computed_by(curve, keys_computed_by),
    )


def check_imported_key(vector: Vector, key_file: str, curve=None) -> Vector:
    """``vector`` unless its proving key does not belong to its verifying key (an imported key with an L point changed):
    the proofs computed with such a key fail the pairing check, and `check`'s recomputation would reproduce them bit
    for bit, so an importer refuses the key (InvalidInputError naming ``key_file``): one pairing check per circuit, by
    the library where ``curve`` is the library's."""
    verifies = fast_library.verifier_for(curve or curve_primitive())
    for c, case in enumerate(vector.circuits):
        if not verifies(vector.pk.vk, case.witness.public_inputs, case.expected.assemble):  # assemble: the proof
            raise InvalidInputError(key_file, f"the proving key does not belong to its verifying key: circuit {c}, pairing check: "
                                    "the proof computed with it does not verify")
    return vector


def computed_by(curve, keys_computed_by: str | None = None) -> dict:
    """The ``computed_by`` entry (vectors/FORMAT.md): the keys' implementation (if this toolkit computed them) and
    each phase's: ``curve``'s for the phases whose group arithmetic it does, the pure-Python reference's for the others."""
    keys = {COMPUTED_BY_KEYS_ENTRY: keys_computed_by} if keys_computed_by else {}
    return {**keys, **{p: curve.name if p in CURVE_PHASES else REFERENCE_CURVE.name for p in PHASES}}
