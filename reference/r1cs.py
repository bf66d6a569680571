"""Rank-1 constraint systems in bellman's layout, the input rows, and the query densities.

A constraint system over Fr has ``num_inputs`` input variables (index 0 is ONE, then the
public inputs) followed by ``num_aux`` auxiliary variables; the witness vector is

    z = [1, x_1, ..., x_{num_inputs-1}, w_0, ..., w_{num_aux-1}]

and each constraint j states  <A_j, z> * <B_j, z> = <C_j, z>  (mod r).

bellman's prover appends one row per input i (ONE included) after the circuit's own
constraints:  z_i * 0 = 0,  that is A = {i: 1}, B = {}, C = {}. It makes every input
appear in A, so "inputs have full density in A" and the A query never drops an input.
"""
from dataclasses import dataclass

from .errors import ScalarRangeError, SizeMismatchError
from .field import R, TWO_ADICITY

MAX_LOG_DOMAIN = TWO_ADICITY
"""Domains of 2^MAX_LOG_DOMAIN points or more are refused, as bellman does (src/domain.rs ``from_coeffs``: ``exp >=
S`` is ``PolynomialDegreeTooLarge``, S = Fr's 2-adicity, 32; reference/domain.py EvaluationDomain keeps the same bound)."""

Term = tuple[int, int]
"""(variable index into z, coefficient in [0, r))."""
Row = tuple[Term, ...]


def log_domain(num_rows: int) -> int:
    """log2 of the domain for ``num_rows`` rows: the smallest power of two >= num_rows, at least 2 (``R1CS.log_n`` says why)."""
    return max(1, (num_rows - 1).bit_length())


@dataclass(frozen=True)
class R1CS:
    """The circuit's own constraint rows A, B, C (input rows are *not* stored; see ``rows``)."""

    num_inputs: int
    """ONE plus the number of public inputs."""
    num_aux: int
    a: tuple[Row, ...]
    b: tuple[Row, ...]
    c: tuple[Row, ...]

    def __post_init__(self):
        if self.num_inputs < 1:
            raise SizeMismatchError("r1cs.num_inputs", "must be at least 1 (the ONE variable)")
        if self.num_aux < 0:
            raise SizeMismatchError("r1cs.num_aux", "must not be negative")
        if not (len(self.a) == len(self.b) == len(self.c)):
            raise SizeMismatchError(
                "r1cs", f"A, B, C have {len(self.a)}, {len(self.b)}, {len(self.c)} rows; they must agree"
            )
        for name, matrix in (("a", self.a), ("b", self.b), ("c", self.c)):
            for j, row in enumerate(matrix):
                for var, coeff in row:
                    if not 0 <= var < self.num_variables:
                        raise SizeMismatchError(
                            f"r1cs.{name}[{j}]", f"variable {var} is outside 0..{self.num_variables - 1}"
                        )
                    if not 0 <= coeff < R:
                        raise ScalarRangeError(f"r1cs.{name}[{j}]", f"coefficient {coeff:#x} is not in [0, r)")
        if self.log_n >= MAX_LOG_DOMAIN:
            raise SizeMismatchError("r1cs", f"{self.num_rows} rows need a domain of 2^{self.log_n} >= 2^{MAX_LOG_DOMAIN}")

    @property
    def num_constraints(self) -> int:
        return len(self.a)

    @property
    def num_variables(self) -> int:
        return self.num_inputs + self.num_aux

    @property
    def num_rows(self) -> int:
        """Constraints plus one ``input_i * 0 = 0`` row per input."""
        return self.num_constraints + self.num_inputs

    @property
    def log_n(self) -> int:
        """log2 of the domain size n: the smallest power of two >= num_rows, and at least 2 (log_n >= 1).

        The floor comes from supraseal-c2, not bellman: supraseal (c2/cuda/groth16_ntt_h.cu,
        ``execute_ntt_msm_h``) derives log n from the H query's size as lg2(npoints - 1) + 1, which needs
        npoints = n - 1 >= 1. bellman alone (src/domain.rs ``EvaluationDomain::from_coeffs``: the smallest
        power of two >= the row count) takes n = 1 for a single row, with an empty H query. Since the ONE
        input row is always there, the floor only changes a circuit with no constraints and no public
        input; the reference takes n = 2 there so that its keys also serve supraseal.
        """
        return log_domain(self.num_rows)

    @property
    def n(self) -> int:
        return 1 << self.log_n

    def rows(self, matrix: str) -> tuple[Row, ...]:
        """All rows of matrix 'a', 'b' or 'c', the input rows included (A_i = {input i: 1}, B_i = C_i = {})."""
        own = getattr(self, matrix)
        if matrix == "a":
            return own + tuple(((i, 1),) for i in range(self.num_inputs))
        return own + tuple(() for _ in range(self.num_inputs))

    def density(self) -> "Density":
        """Which variables have a point in the A and B queries: those named by a term with a non-zero coefficient.

        The rule and its sources (bellman >= 0.11.2 ``eval``, bellperson ``eval_with_trackers``) are stated in
        vectors/FORMAT.md, "Density rule" (normative). Inputs appear in A through the input rows, so only the
        aux part of A is tracked.
        """
        a_aux = [False] * self.num_aux
        b_input = [False] * self.num_inputs
        b_aux = [False] * self.num_aux
        for row in self.a:
            for var, coeff in row:
                if coeff != 0 and var >= self.num_inputs:
                    a_aux[var - self.num_inputs] = True
        for row in self.b:
            for var, coeff in row:
                if coeff == 0:
                    continue
                if var < self.num_inputs:
                    b_input[var] = True
                else:
                    b_aux[var - self.num_inputs] = True
        return Density(tuple(a_aux), tuple(b_input), tuple(b_aux))


@dataclass(frozen=True)
class Density:
    """Bellman's density trackers: which variables have a point in the A and B queries."""

    a_aux: tuple[bool, ...]
    """aux variable i has a non-zero coefficient in some A row (inputs are always dense in A)."""
    b_input: tuple[bool, ...]
    """input i (ONE included) has a non-zero coefficient in some B row."""
    b_aux: tuple[bool, ...]
    """aux variable i has a non-zero coefficient in some B row."""

    def a_variables(self, num_inputs: int) -> list[int]:
        """Indices into z of the A query's points, in order: every input, then the dense aux variables."""
        return list(range(num_inputs)) + [num_inputs + i for i, d in enumerate(self.a_aux) if d]

    def b_variables(self, num_inputs: int) -> list[int]:
        """Indices into z of the B_G1 / B_G2 query's points, in order: dense inputs, then dense aux variables."""
        return [i for i, d in enumerate(self.b_input) if d] + [num_inputs + i for i, d in enumerate(self.b_aux) if d]


def witness_vector(r1cs: R1CS, public_inputs: list[int], aux: list[int], circuit: int = 0) -> list[int]:
    """z = [1, public inputs..., aux...], after checking the sizes and that every value is in [0, r)."""
    if len(public_inputs) != r1cs.num_inputs - 1:
        raise SizeMismatchError(
            f"circuits[{circuit}].public_inputs",
            f"has {len(public_inputs)} values; the R1CS has {r1cs.num_inputs - 1} public inputs",
        )
    if len(aux) != r1cs.num_aux:
        raise SizeMismatchError(
            f"circuits[{circuit}].aux_assignment", f"has {len(aux)} values; the R1CS has {r1cs.num_aux} aux variables"
        )
    for name, values in (("public_inputs", public_inputs), ("aux_assignment", aux)):
        for i, v in enumerate(values):
            if not 0 <= v < R:
                raise ScalarRangeError(f"circuits[{circuit}].{name}[{i}]", f"{v:#x} is not in [0, r)")
    return [1, *public_inputs, *aux]
