"""Errors raised on bad input. Each names the field that is wrong and the problem.

Every reader (vectors, keys, proofs, CLI arguments) raises one of these instead of
returning a partial or silently wrong result; the CLIs turn them into a message on
stderr and a non-zero exit, and write no output file.
"""


class ToolkitError(Exception):
    """Base class: a problem with the input, stated for a person to act on."""


class InvalidInputError(ToolkitError, ValueError):
    """A value that cannot be accepted: ``field`` names where it is, ``problem`` says what is wrong."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class PointEncodingError(InvalidInputError):
    """A curve point that does not decode: bad length or flags, x >= p, not on the curve, or outside the subgroup."""


class ScalarRangeError(InvalidInputError):
    """A scalar or witness value that is not in [0, r)."""


class SizeMismatchError(InvalidInputError):
    """Sizes that disagree (query length vs density, witness length vs R1CS, domain too large)."""


class SidecarError(InvalidInputError):
    """A binary sidecar file that is missing, truncated or whose sha256 does not match."""


class UnsatisfiedConstraintError(ToolkitError):
    """The witness does not satisfy the circuit: names the first failing constraint; no proof is produced."""

    def __init__(self, circuit: int, row: int, a: int, b: int, c: int):
        self.circuit, self.row = circuit, row
        super().__init__(
            f"circuit {circuit}: constraint {row} is not satisfied: "
            f"(A.z)*(B.z) = {a:#x} * {b:#x} != C.z = {c:#x} (mod r)"
        )


class QuotientNotPolynomialError(ToolkitError):
    """ntt_h found h's top coefficient h_{n-1} non-zero: a*b - c is not divisible by Z(x) = x^n - 1, so the witness
    does not satisfy the circuit (bellman and supraseal-c2 would drop h_{n-1} unchecked and emit an invalid proof)."""

    def __init__(self, circuit: int, top_coefficient: int):
        self.circuit, self.top_coefficient = circuit, top_coefficient
        super().__init__(
            f"circuit {circuit}: ntt_h: the quotient's top coefficient h_(n-1) = {top_coefficient:#x} is not zero: "
            "(A.z)*(B.z) - C.z is not divisible by x^n - 1; the witness does not satisfy the circuit"
        )
