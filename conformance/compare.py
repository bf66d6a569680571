"""Exact comparison of phase outputs, naming the first element that differs.

Every output is flattened into *fields*: (circuit, query, list of canonical values), in a fixed
order (circuit by circuit, then query by query, as the vector format lists them). Canonical values:

* scalars: the 64-digit lowercase hex of the int; a value that is not an int in [0, r) keeps a form
  that cannot equal any scalar (``not reduced: ...``), so an unreduced GPU result is a mismatch;
* points: the ZCash compressed encoding (the vectors' wire format) of a point on its curve. A point
  off the curve is shown as ``off the curve: ...``: compressed x alone would hide a wrong y;
* bitmaps: one value per bit ('0' / '1'), so the first wrong *position* is named;
* booleans and indices: their text.

Two outputs are equal exactly when every field and every value is equal.
"""
from dataclasses import dataclass

from reference.curve import FQ, FQ2, g1_is_on_curve, g2_is_on_curve, is_py_ecc_point
from reference.encoding import encode_g1, encode_g2
from reference.field import R
from reference.keys import QUERIES
from reference.prep import PREP_QUERIES, bitmap_bits
from reference.verifier import PROOF_POINT_GROUPS

MISSING = "<missing>"
"""The value shown where one output has fewer elements than the other."""

EVALUATION_QUERIES = ("a", "b", "c")
QUERY_GROUPS = {"l": "g1", "a": "g1", "b_g1": "g1", "b_g2": "g2"}


FAILED_RUN = "an output"
"""Mismatch.expected of a repeated run that raised (conformance/runner.py _failed_run); its ``actual`` is the error."""


@dataclass(frozen=True)
class Mismatch:
    """The first element where an output differs from the judge's value."""

    phase: str
    circuit: int | None
    """None for a value shared by all circuits (prep's split and tail indices)."""
    query: str
    """Which part of the output: 'a' (evaluate), 'h', 'l.bitmap', 'proof.c', 'h identity', ..."""
    index: int | None
    """Position within the query (None for a single value)."""
    expected: str
    actual: str

    def location(self) -> str:
        """'circuit 0, h[17]' style."""
        where = f"{self.query}[{self.index}]" if self.index is not None else self.query
        return where if self.circuit is None else f"circuit {self.circuit}, {where}"

    def describe(self) -> str:
        """'ntt_h: circuit 0, h[17]: expected ..., got ...'"""
        return f"{self.phase}: {self.location()}: expected {self.expected}, got {self.actual}"

    @classmethod
    def from_json(cls, data: dict) -> "Mismatch":
        """The inverse of as_json (a report's "mismatch" entry)."""
        return cls(data["phase"], data["circuit"], data["query"], data["index"], data["expected"], data["actual"])

    def as_json(self) -> dict:
        return {
            "phase": self.phase,
            "circuit": self.circuit,
            "query": self.query,
            "index": self.index,
            "expected": self.expected,
            "actual": self.actual,
        }


def scalar_text(value) -> str:
    """64 lowercase hex digits for an int in [0, r); anything else in a form no scalar has."""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"not an int: {type(value).__name__} {value!r:.60}"
    if not 0 <= value < R:
        return f"not reduced mod r: {value:#x}"
    return f"{value:064x}"


def point_text(point, group: str) -> str:
    """The compressed encoding of a point on its curve; a marked form for anything else."""
    field_class, on_curve, encode = (FQ, g1_is_on_curve, encode_g1) if group == "g1" else (FQ2, g2_is_on_curve, encode_g2)
    if not is_py_ecc_point(point, field_class):
        return f"not a {group.upper()} point: {type(point).__name__} {point!r:.60}"
    if not on_curve(point):
        return f"off the curve: ({point[0]}, {point[1]}, {point[2]})"
    return encode(point)


Field = tuple[int | None, str, list[str], bool]
"""(circuit or None, query, canonical values, whether the values are indexed or one single value)."""

SINGLE, INDEXED = False, True


def _per_circuit(output, fields_of) -> list[Field]:
    if not isinstance(output, (list, tuple)):
        return [(None, "circuits", [f"not a list of per-circuit outputs: {type(output).__name__}"], SINGLE)]
    return [(c, *field) for c, item in enumerate(output) for field in fields_of(item)]


def _evaluate_fields(evals):
    return [(q, [scalar_text(v) for v in getattr(evals, q, ())], INDEXED) for q in EVALUATION_QUERIES]


def _h_fields(h):
    return [("h", [scalar_text(v) for v in h], INDEXED)]


def _msm_h_fields(point):
    return [("h", [point_text(point, "g1")], SINGLE)]


def _sums_fields(sums):
    return [(q, [point_text(getattr(sums, q, None), QUERY_GROUPS[q])], SINGLE) for q in QUERIES]


def _proof_fields(proof):
    return [(f"proof.{name}", [point_text(getattr(proof, name, None), group)], SINGLE) for name, group in PROOF_POINT_GROUPS]


def _bitmap_text(bitmap) -> list[str]:
    return ["1" if b else "0" for b in bitmap_bits(bitmap, len(bitmap) * 8)]


def _scalars_text(scalars) -> list[str]:
    return [scalar_text(s) for s in scalars]


def _listed(items, c: int, text) -> list[str]:
    """text(items[c]), or a marked form where the list ends before circuit c."""
    return text(items[c]) if c < len(items) else [f"missing: the list ends after {len(items)} circuit(s)"]


def _prep_fields(prep) -> list[Field]:
    fields = []
    for q in PREP_QUERIES:
        split = getattr(prep, q, None)
        if split is None:
            fields.append((None, q, [f"missing query split {q}"], SINGLE))
            continue
        fields.append((None, f"{q}.split", [str(bool(split.split)).lower()], SINGLE))
        fields.append((None, f"{q}.tail_indices", [str(i) for i in split.tail_indices], INDEXED))
    for q in PREP_QUERIES:
        split = getattr(prep, q, None)
        if split is None:
            continue
        # as many circuits as the longer list: a zip would hide a bitmap or tail-scalar list past the other's end
        for c in range(max(len(split.bitmaps), len(split.tail_scalars))):
            fields.append((c, f"{q}.bitmap", _listed(split.bitmaps, c, _bitmap_text), INDEXED))
            fields.append((c, f"{q}.tail_scalars", _listed(split.tail_scalars, c, _scalars_text), INDEXED))
    return fields


_FIELDS = {
    "evaluate": lambda out: _per_circuit(out, _evaluate_fields),
    "ntt_h": lambda out: _per_circuit(out, _h_fields),
    "msm_h": lambda out: _per_circuit(out, _msm_h_fields),
    "prep": _prep_fields,
    "batch_add": lambda out: _per_circuit(out, _sums_fields),
    "tail_msm": lambda out: _per_circuit(out, _sums_fields),
    "assemble": lambda out: _per_circuit(out, _proof_fields),
}


def output_fields(phase: str, output) -> list[Field]:
    """The canonical fields of one phase output (see the module docstring)."""
    return _FIELDS[phase](output)


def first_difference(phase: str, expected, actual) -> Mismatch | None:
    """None when ``actual`` equals ``expected`` exactly; else the first differing element."""
    want, got = output_fields(phase, expected), output_fields(phase, actual)
    for k in range(max(len(want), len(got))):
        if k >= len(got):
            circuit, query, _, _ = want[k]
            return Mismatch(phase, circuit, query, None, "present", MISSING)
        if k >= len(want):
            circuit, query, _, _ = got[k]
            return Mismatch(phase, circuit, query, None, MISSING, "present")
        (c_want, q_want, v_want, indexed), (c_got, q_got, v_got, _) = want[k], got[k]
        if (c_want, q_want) != (c_got, q_got):
            return Mismatch(phase, c_want, q_want, None, "present", f"{q_got} (circuit {c_got}) in its place")
        mismatch = _first_value_difference(phase, c_want, q_want, v_want, v_got, indexed)
        if mismatch is not None:
            return mismatch
    return None


def _first_value_difference(phase, circuit, query, want: list[str], got: list[str], indexed: bool) -> Mismatch | None:
    for i in range(max(len(want), len(got))):
        w = want[i] if i < len(want) else MISSING
        g = got[i] if i < len(got) else MISSING
        if w != g:
            return Mismatch(phase, circuit, query, i if indexed else None, w, g)
    return None
