"""The published EIP-2537 vectors (vectors/external/eip-2537/) against the reference curve layer.

Independent oracle: the Ethereum community's BLS12-381 precompile vectors. Checked here: G1/G2
addition (py_ecc add), MUL and MSM (reference.msm.msm_pippenger), the pairing check (py_ecc Miller
loops, one final exponentiation, compared with the expected 32-byte 0/1), and every fail-* case
rejected by vectors/eip2537.py for the stated reason. For the point-level reasons that the ZCash
encoding can also express (off the curve, outside the subgroup, coordinate >= p) the same point is
re-encoded in the ZCash form and must be rejected by reference.encoding's decoder too; the EIP-only
reasons (length, top 16 bytes not zero) are checked on the EIP decoder alone.

Default run: every G1 case, every G2 addition and fail case, and a named sample of the slower
G2 MUL/MSM and pairing cases (G2_MUL_SAMPLE, G2_MSM_SAMPLE, PAIRING_SAMPLE). FULL_EIP2537=1 in the
environment runs every case.
"""
import os

import pytest
from py_ecc.optimized_bls12_381 import FQ12, final_exponentiate, is_inf, multiply, pairing

from reference import encoding, subgroup
from reference.curve import add
from reference.errors import InvalidInputError, PointEncodingError, SizeMismatchError
from reference.field import P, R
from reference.msm import msm_pippenger
from vectors import eip2537

FULL_RUN = os.environ.get("FULL_EIP2537") == "1"

G2_MUL_SAMPLE = {"bls_g2mul_(p2+p2=2*p2)", "bls_g2mul_(0*p2=inf)", "bls_g2mul_(x*inf=inf)", "bls_g2mul_random*p2_unnormalized_scalar"}
G2_MSM_SAMPLE = {"bls_g2multiexp_(2g2+inf)", "bls_g2multiexp_(2g2+2p2)", "bls_g2multiexp_multiple", "bls_g2multiexp_random*g2_unnormalized_scalar"}
PAIRING_SAMPLE = {
    "bls_pairing_e(0,0)",
    "bls_pairing_non-degeneracy_e(P,Q)!= 1",
    "bls_pairing_bilinearity_e(G1,G2)*e(P1,G2)*e(P1+G1,-G2)=1",
    "bls_pairing_e(aG1,bG2)=e(abG1,G2)",
    "bls_pairing_e(G1,G2)*e(0,0)*e(G1,G2)=0",
}
PAIRING_TRUE = (1).to_bytes(32, "big").hex()
PAIRING_FALSE = bytes(32).hex()


def _select(file_name: str, sample: set[str] | None = None) -> list[dict]:
    """The cases of a vector file: all, or only `sample` (every name must exist) unless FULL_RUN."""
    cases = eip2537.load_vectors(file_name)
    names = {c["Name"] for c in cases}
    assert sample is None or sample <= names, f"sample names missing from {file_name}: {sample - names}"
    return [c for c in cases if sample is None or FULL_RUN or c["Name"] in sample]


def _params(group: str, cases: list[dict]) -> list:
    return [pytest.param(group, c, id=f"{group}-{c['Name']}") for c in cases]


# --- addition ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("group, case", _params("g1", _select("add_G1_bls.json")) + _params("g2", _select("add_G2_bls.json")))
def test_add(group, case):
    a, b = eip2537.decode_add_input(group, bytes.fromhex(case["Input"]))
    assert eip2537.encode_point(group, add(a, b)).hex() == case["Expected"]


@pytest.mark.parametrize("group", ["g1", "g2"])
def test_add_vector_outside_the_subgroup_is_seen_as_outside(group):
    """ADD takes points outside the subgroup; both subgroup checks must say so for that vector."""
    case = next(c for c in eip2537.load_vectors(f"add_{group.upper()}_bls.json") if "not_in_correct_subgroup" in c["Name"])
    a, _ = eip2537.decode_add_input(group, bytes.fromhex(case["Input"]))
    in_subgroup = subgroup.g1_in_subgroup if group == "g1" else subgroup.g2_in_subgroup
    assert not in_subgroup(a)
    assert not is_inf(multiply(a, R))
    first_point = bytes.fromhex(case["Input"])[:eip2537.G1_BYTES if group == "g1" else eip2537.G2_BYTES]
    with pytest.raises(PointEncodingError, match="not in the prime-order subgroup"):
        eip2537.decode_point(group, first_point, "a")


# --- scalar multiplication and MSM --------------------------------------------------------------------
MSM_CASES = _params("g1", _select("mul_G1_bls.json") + _select("multiexp_G1_bls.json")) + _params(
    "g2", _select("mul_G2_bls.json", G2_MUL_SAMPLE) + _select("multiexp_G2_bls.json", G2_MSM_SAMPLE)
)


@pytest.mark.parametrize("group, case", MSM_CASES)
def test_mul_and_msm(group, case):
    points, scalars = eip2537.decode_msm_input(group, bytes.fromhex(case["Input"]))
    assert eip2537.encode_point(group, msm_pippenger(points, scalars)).hex() == case["Expected"]


# --- pairing check ----------------------------------------------------------------------------------
def _pairing_product_is_one(pairs) -> bool:
    """prod_i e(P_i, Q_i) == 1: the product of Miller loops, then one final exponentiation."""
    product = FQ12.one()
    for g1_point, g2_point in pairs:
        product = product * pairing(g2_point, g1_point, final_exponentiate=False)
    return final_exponentiate(product) == FQ12.one()


@pytest.mark.parametrize("case", [pytest.param(c, id=c["Name"]) for c in _select("pairing_check_bls.json", PAIRING_SAMPLE)])
def test_pairing_check(case):
    pairs = eip2537.decode_pairing_input(bytes.fromhex(case["Input"]))
    assert case["Expected"] in (PAIRING_TRUE, PAIRING_FALSE)
    assert (PAIRING_TRUE if _pairing_product_is_one(pairs) else PAIRING_FALSE) == case["Expected"]


# --- fail cases -------------------------------------------------------------------------------------
REASONS = {
    # EIP-2537 ExpectedError prefix -> (our error class, a phrase of our problem sentence)
    "invalid input length": (SizeMismatchError, "invalid input length"),
    "invalid fp.Element encoding": (PointEncodingError, ">= p"),
    "invalid field element top bytes": (PointEncodingError, "top 16 bytes"),
    "invalid point: not on curve": (PointEncodingError, "not on the curve"),
    "g1 point is not in the correct subgroup": (PointEncodingError, "not in the prime-order subgroup"),
    "g2 point is not in the correct subgroup": (PointEncodingError, "not in the prime-order subgroup"),
}
ZCASH_EXPRESSIBLE = {"invalid fp.Element encoding", "invalid point: not on curve", "g1 point is not in the correct subgroup", "g2 point is not in the correct subgroup"}

FAIL_VECTORS = [
    (group, case)
    for group in ("g1", "g2")
    for file_name in (f"fail-mul_{group.upper()}_bls.json", f"fail-msm_{group.upper()}_bls.json")
    for case in eip2537.load_vectors(file_name)
]
FAIL_CASES = [pytest.param(group, case, id=case["Name"]) for group, case in FAIL_VECTORS]


def _reason(case) -> str:
    matches = [reason for reason in REASONS if case["ExpectedError"].startswith(reason)]
    assert len(matches) == 1, f"unknown ExpectedError {case['ExpectedError']!r}"
    return matches[0]


@pytest.mark.parametrize("group, case", FAIL_CASES)
def test_fail_cases_are_rejected_by_the_eip_decoder(group, case):
    error_class, phrase = REASONS[_reason(case)]
    with pytest.raises(InvalidInputError) as info:
        eip2537.decode_msm_input(group, bytes.fromhex(case["Input"]))
    assert type(info.value) is error_class
    assert phrase in info.value.problem


def _first_point_coordinates(group: str, case) -> list[int]:
    """The first point's EIP coordinates as plain ints, unvalidated: G1 [x, y], G2 [x.c0, x.c1, y.c0, y.c1]."""
    point_bytes = bytes.fromhex(case["Input"])[:eip2537.G1_BYTES if group == "g1" else eip2537.G2_BYTES]
    fp = eip2537.FP_BYTES
    return [int.from_bytes(point_bytes[i:i + fp], "big") for i in range(0, len(point_bytes), fp)]


def _zcash_expressible(group: str, case) -> bool:
    """A point-level reason, with every coordinate within the 381 bits the ZCash layout leaves
    below its flags (the G1 "x >= p" vector has a 382-bit x: it cannot be written there)."""
    return _reason(case) in ZCASH_EXPRESSIBLE and all(v.bit_length() <= ZCASH_COORDINATE_BITS for v in _first_point_coordinates(group, case))


ZCASH_COORDINATE_BITS = 381
ZCASH_FAIL_CASES = [pytest.param(group, case, id=case["Name"]) for group, case in FAIL_VECTORS if _zcash_expressible(group, case)]


def _zcash_uncompressed(group: str, coordinates: list[int]) -> bytes:
    """ZCash uncompressed layout: G1 x || y; G2 x.c1 || x.c0 || y.c1 || y.c0."""
    ordered = coordinates if group == "g1" else [coordinates[1], coordinates[0], coordinates[3], coordinates[2]]
    return b"".join(v.to_bytes(encoding.FQ_BYTES, "big") for v in ordered)


def _zcash_compressed(group: str, coordinates: list[int]) -> bytes:
    """ZCash compressed form of an on-curve point given by EIP coordinates (sort flag from y)."""
    half = (P - 1) // 2
    if group == "g1":
        x, y = coordinates
        body, largest = x.to_bytes(encoding.FQ_BYTES, "big"), y > half
    else:
        x0, x1, y0, y1 = coordinates
        body = x1.to_bytes(encoding.FQ_BYTES, "big") + x0.to_bytes(encoding.FQ_BYTES, "big")
        largest = y1 > half if y1 else y0 > half
    flags = encoding.COMPRESSION_FLAG | (encoding.SORT_FLAG if largest else 0)
    return bytes([body[0] | flags]) + body[1:]


@pytest.mark.parametrize("group, case", ZCASH_FAIL_CASES)
def test_fail_points_are_rejected_by_the_zcash_decoder(group, case):
    coordinates = _first_point_coordinates(group, case)
    from_bytes = encoding.g1_from_bytes if group == "g1" else encoding.g2_from_bytes
    _, phrase = REASONS[_reason(case)]
    with pytest.raises(PointEncodingError) as info:
        from_bytes(_zcash_uncompressed(group, coordinates), "point", compressed=False)
    assert phrase in info.value.problem
    if "subgroup" in phrase:  # the compressed form of a curve point outside G must fail the same way
        with pytest.raises(PointEncodingError, match="not in the prime-order subgroup"):
            from_bytes(_zcash_compressed(group, coordinates), "point")


def test_every_fail_reason_is_covered():
    assert {_reason(case) for _, case in FAIL_VECTORS} == set(REASONS)
    assert len(FAIL_VECTORS) == 32
    assert len(ZCASH_FAIL_CASES) == 14  # 8 off the curve, 4 outside the subgroup, 2 with G2 x.c0 >= p
