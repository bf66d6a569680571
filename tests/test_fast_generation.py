"""The library's curve arithmetic (vectors/fast_library.py ArkworksCurve) against the pure-Python reference.

The checked-in vectors are computed by the reference (their ``computed_by`` says so); recomputing their keys from
the trapdoor and every phase with the library's arithmetic must give the same bytes, the edge-case vectors included.
A vector generated with the library must pass `python -m vectors check --reference`. Skipped, with the reason
printed (-ra), where py-arkworks-bls12381 is not installed (pip install -e '.[fast]'); the tests of the
``computed_by`` field itself run everywhere.
"""
import json
import random

import pytest
from py_ecc.optimized_bls12_381 import FQ2, G1, G2, Z1, Z2, multiply, normalize

from reference.cli import run_main
from reference.curve import points_eq
from reference.errors import InvalidInputError, ToolkitError
from reference.field import R
from reference.msm import REFERENCE_CURVE
from reference.prover import CURVE_PHASES, PHASES
from vectors import fast_library
from vectors.__main__ import main as vectors_main
from vectors.bundled import DATA_DIR, SNARKJS_INTEROP
from vectors.checking import check_vector_values
from vectors.format import load_vector

MISSING = fast_library.unavailable_reason()
needs_library = pytest.mark.skipif(MISSING is not None, reason=f"skipped: {MISSING}")
SMALL_LOG_N = 8
"""The checked-in vectors recomputed here: the edge cases and those of at most 2^8 points (CI time)."""


def _small_vectors() -> list[str]:
    names = []
    for path in sorted(DATA_DIR.glob("*.json")):
        log_n = json.loads(path.read_text())["domain"]["log_n"]
        if path.name.startswith("edge-") or log_n <= SMALL_LOG_N:
            names.append(path.name)
    return names


@pytest.fixture(scope="module")
def curve():
    return fast_library.ArkworksCurve()


@needs_library
@pytest.mark.parametrize("name", _small_vectors())
def test_library_arithmetic_reproduces_the_reference_vector(name, curve):
    vector = load_vector(DATA_DIR / name)
    assert set(vector.computed_by.values()) == {REFERENCE_CURVE.name}, "the checked-in vectors are the reference's"
    checked = check_vector_values(vector, curve=curve)  # keys from the trapdoor, then every phase: the same bytes
    assert curve.name in checked


@needs_library
@pytest.mark.parametrize("base", [G1, G2], ids=["g1", "g2"])
def test_generator_multiples_in_the_pool_keep_their_order(monkeypatch, base):
    monkeypatch.setattr(fast_library, "POOL_MIN_POINTS", 4)
    monkeypatch.setattr(fast_library, "STRETCH", 3)
    monkeypatch.setattr(fast_library, "POOL_WINDOW_BITS", fast_library.SMALL_WINDOW_BITS)  # small tables: CI time
    scalars = [0, 1, R - 1] + [random.Random(7).randrange(R) for _ in range(7)]
    reported = []
    library = fast_library.ArkworksCurve().generator_multiples(base, scalars, reported.append)
    reference = REFERENCE_CURVE.generator_multiples(base, scalars)
    assert all(points_eq(a, b) for a, b in zip(library, reference, strict=True))
    assert reported == [3, 6, 9, 10]


def _affine_bytes_by_hand(point) -> bytes:
    """The library's affine layout written out from py_ecc's affine coordinates: x || y big-endian, Fq2 as c0 || c1."""
    words = [w for c in normalize(point)[:2] for w in (c.coeffs if isinstance(c, FQ2) else (c.n,))]
    return b"".join(w.to_bytes(fast_library.FQ_BYTES, "big") for w in words)


@needs_library
@pytest.mark.parametrize("base, identity", [(G1, Z1), (G2, Z2)], ids=["g1", "g2"])
def test_the_one_conversion_from_the_library_reads_its_layout_and_the_identity(base, identity):
    point = multiply(base, 0xC0FFEE)
    xy = _affine_bytes_by_hand(point)
    g2 = base is G2
    assert fast_library.to_library(point).to_xy_bytes_be() == xy  # the layout, as the library writes it
    assert points_eq(fast_library.from_xy_bytes(xy, g2), point)
    assert points_eq(fast_library.from_library(fast_library.to_library(point)), point)
    zeros = bytes(len(xy))
    assert fast_library.from_xy_bytes(None, g2) is identity and fast_library.from_xy_bytes(zeros, g2) is identity
    assert fast_library.from_library(fast_library.to_library(identity)) is identity
    converted = fast_library.ArkworksCurve()._py_ecc_points(xy + zeros + xy, g2)
    assert [points_eq(p, q) for p, q in zip(converted, [point, identity, point], strict=True)] == [True] * 3
    assert converted[1] is identity


class _OffCurveG1:
    """Stands for a wrong G1 result from the library (which itself refuses to build a point off the curve)."""

    def to_xy_bytes_be(self) -> bytes:
        return (1).to_bytes(fast_library.FQ_BYTES, "big") * 2  # (1, 1): 1 != 1 + 4


@needs_library
def test_a_library_result_off_the_curve_is_refused_when_it_comes_back():
    with pytest.raises(ToolkitError, match="not on the curve"):
        fast_library.from_library(_OffCurveG1())


@needs_library
def test_sums_of_nothing_and_of_opposite_points(curve):
    points = REFERENCE_CURVE.generator_multiples(G1, [5, R - 5, 9])
    assert curve.sum_at(points, [], Z1) is Z1
    assert points_eq(curve.sum_at(points, [0, 1], Z1), Z1)
    assert points_eq(curve.msm_at(points, [2, 0], [3, 1], Z1), REFERENCE_CURVE.generator_multiples(G1, [32])[0])
    with pytest.raises(InvalidInputError):
        curve.generator_multiples(G1, [R])
    with pytest.raises(InvalidInputError):
        curve.generator_multiples(REFERENCE_CURVE.generator_multiples(G2, [2])[0], [1])


@needs_library
def test_generated_with_the_library_passes_the_pure_python_check(tmp_path, capsys):
    fast, slow = tmp_path / "fast.json", tmp_path / "slow.json"
    args = ["generate", "--log-n", "5", "--seed", "fast-vs-reference", "--circuits", "2", "--id", "v"]
    assert run_main(vectors_main, [*args, "--out", str(fast)]) == 0
    progress = capsys.readouterr().err
    assert "setup: H points 31/31" in progress and "msm_h done" in progress
    assert run_main(vectors_main, [*args, "--reference", "--quiet", "--out", str(slow)]) == 0
    assert capsys.readouterr().err == ""
    fast_doc, slow_doc = json.loads(fast.read_text()), json.loads(slow.read_text())
    library = fast_library.implementation()
    assert fast_doc.pop("computed_by") == {"proving_key": library, **{p: library if p in CURVE_PHASES else "reference" for p in PHASES}}
    assert slow_doc.pop("computed_by") == {"proving_key": "reference", **{p: "reference" for p in PHASES}}
    assert fast_doc == slow_doc
    assert run_main(vectors_main, ["check", "--reference", "--quiet", str(fast)]) == 0
    assert "keys match the trapdoor (by reference)" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------
# The computed_by field (no library needed)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d.update(computed_by=["reference"]), "computed_by"),
        (lambda d: d["computed_by"].update(compiler="gcc"), "computed_by.compiler"),
        (lambda d: d["computed_by"].pop("msm_h"), "computed_by.msm_h"),
        (lambda d: d["computed_by"].update(ntt_h=""), "computed_by.ntt_h"),
        (lambda d: d["computed_by"].update(assemble=7), "computed_by.assemble"),
    ],
    ids=["not-an-object", "unknown-entry", "missing-phase", "empty-name", "not-a-string"],
)
def test_a_bad_computed_by_is_refused_by_name(tmp_path, capsys, change, field):
    doc = json.loads((DATA_DIR / "porep-log03.json").read_text())
    change(doc)
    path = tmp_path / "v.json"
    path.write_text(json.dumps(doc))
    assert run_main(vectors_main, ["check", "--quiet", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {field}:") and captured.out == ""


def test_computed_by_is_optional_and_kept_on_rewrite(tmp_path):
    doc = json.loads((DATA_DIR / "porep-log03.json").read_text())
    assert load_vector(DATA_DIR / "porep-log03.json").computed_by == doc["computed_by"]
    del doc["computed_by"]
    path = tmp_path / "v.json"
    path.write_text(json.dumps(doc))
    assert load_vector(path).computed_by == {}


def test_imported_keys_are_not_claimed_as_computed():
    """An importer did not compute the keys: the snarkjs fixture names the phases' implementations only."""
    vector = load_vector(SNARKJS_INTEROP)
    assert vector.computed_by == {p: REFERENCE_CURVE.name for p in PHASES}


def test_check_refuses_fast_with_reference(capsys):
    assert run_main(vectors_main, ["check", "--fast", "--reference", "--quiet", str(DATA_DIR / "porep-log01.json")]) == 2
    assert capsys.readouterr().err.startswith("error: --reference:")
