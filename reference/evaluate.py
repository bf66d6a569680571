"""Phase ``evaluate``: the R1CS rows applied to the witness.

    a_j = <A_j, z>,  b_j = <B_j, z>,  c_j = <C_j, z>   (mod r)

for every row j: the circuit's constraints, then one ``input_i * 0 = 0`` row per input (see
``r1cs.R1CS.rows``). The values are the evaluations of the QAP polynomials a(x), b(x), c(x) on the
domain point omega^j; rows beyond the last are zero up to the domain size n (bellman pads the same way).

A convention with ``c_from_product`` (snarkjs, whose key has no C matrix) sets c_j = a_j * b_j instead,
after checking every row against C: for a satisfying witness both give the same values.
"""
from dataclasses import dataclass

from .domain import BELLMAN, DomainConvention
from .errors import UnsatisfiedConstraintError
from .field import R
from .r1cs import R1CS


@dataclass(frozen=True)
class Evaluations:
    """a, b, c on the domain H, n values each (Lagrange basis)."""

    a: tuple[int, ...]
    b: tuple[int, ...]
    c: tuple[int, ...]


def _apply(rows, z: list[int], n: int) -> tuple[int, ...]:
    values = [sum(coeff * z[var] for var, coeff in row) % R for row in rows]
    return tuple(values + [0] * (n - len(values)))


def evaluate(r1cs: R1CS, z: list[int], convention: DomainConvention = BELLMAN, circuit: int = 0) -> Evaluations:
    """a_j = <A_j, z>, b_j = <B_j, z>, c_j = <C_j, z> for every row (input rows included), zero-padded to n.

    With ``convention.c_from_product`` (snarkjs's groth16_prove.js, buildABC1): c_j = a_j * b_j, once every row has
    been checked against C (UnsatisfiedConstraintError names the first failing one).
    """
    evals = Evaluations(*(_apply(r1cs.rows(m), z, r1cs.n) for m in ("a", "b", "c")))
    if not convention.c_from_product:
        return evals
    check_satisfied(evals, r1cs.num_rows, circuit)
    return Evaluations(evals.a, evals.b, tuple(x * y % R for x, y in zip(evals.a, evals.b)))


def evaluate_satisfied(r1cs: R1CS, z: list[int], convention: DomainConvention = BELLMAN, circuit: int = 0) -> Evaluations:
    """``evaluate``, refusing a witness that does not satisfy the R1CS (UnsatisfiedConstraintError naming ``circuit``
    and its first failing row) in every convention: with ``c_from_product`` evaluate has checked the rows already."""
    evals = evaluate(r1cs, z, convention, circuit)
    if not convention.c_from_product:
        check_satisfied(evals, r1cs.num_rows, circuit)
    return evals


def check_satisfied(evals: Evaluations, num_rows: int, circuit: int = 0) -> None:
    """Raise UnsatisfiedConstraintError at the first row j with a_j * b_j != c_j; a prover must not go on."""
    for j in range(num_rows):
        a, b, c = evals.a[j], evals.b[j], evals.c[j]
        if a * b % R != c:
            raise UnsatisfiedConstraintError(circuit, j, a, b, c)
