"""Groth16 verification on BLS12-381.

A proof (A, B, C) for public inputs x_1..x_l (x_0 = ONE = 1) is valid when

    e(A, B) = e(alpha, beta) * e(sum_i x_i IC_i, gamma) * e(C, delta)

Written as one product that must equal 1 in GT,

    e(A, B) * e(-alpha, beta) * e(-X, gamma) * e(-C, delta) = 1,   X = sum_i x_i IC_i,

it costs four Miller loops and a single final exponentiation (the final exponentiation is a
homomorphism, so it can be applied once to the product of the Miller-loop values).
"""
from py_ecc.optimized_bls12_381 import FQ, FQ2, FQ12, add, multiply, neg
from py_ecc.optimized_bls12_381.optimized_pairing import final_exponentiate, pairing

from .assemble import Proof
from .curve import g1_is_on_curve, g2_is_on_curve, is_py_ecc_point
from .errors import ScalarRangeError, SizeMismatchError
from .field import R
from .keys import VerifyingKey, check_verifying_key
from .subgroup import g1_in_subgroup, g2_in_subgroup

PROOF_POINT_GROUPS = (("a", "g1"), ("b", "g2"), ("c", "g1"))
"""Each proof point and its group: A and C in G1, B in G2."""

NOT_A_POINT, OFF_THE_CURVE, OUTSIDE_THE_SUBGROUP = "is not a point", "is off the curve", "lies outside the subgroup"
"""The three ways a proof point fails its group (proof_point_outside_its_group)."""

_GROUP_TESTS = {"g1": (FQ, g1_is_on_curve, g1_in_subgroup), "g2": (FQ2, g2_is_on_curve, g2_in_subgroup)}
"""A group's py_ecc coordinate field, its curve test (reference/curve.py) and its subgroup test (reference/subgroup.py)."""


def proof_point_outside_its_group(proof) -> tuple[str, str, str] | None:
    """(name, group, problem) of the first of A, B, C that is not a point of its prime-order group, in the order of
    PROOF_POINT_GROUPS; None when each is one. ``problem`` is NOT_A_POINT (not a py_ecc point of the group's field),
    OFF_THE_CURVE or OUTSIDE_THE_SUBGROUP.

    Groth16's equation presumes A, C in G1 and B in G2, and the pairing cannot check it: a point T of E(Fp) whose
    order divides G1's cofactor pairs to 1 with G2, so A + T and C + T verify whenever A and C do
    (tests/test_oracle_verdicts.py). A decoded proof has been held to its groups by its reader
    (reference/encoding.py); every check of a computed proof calls this before ``verify``."""
    for name, group in PROOF_POINT_GROUPS:
        field_class, on_curve, in_subgroup = _GROUP_TESTS[group]
        point = getattr(proof, name, None)
        if not is_py_ecc_point(point, field_class):
            return name, group, NOT_A_POINT
        if not on_curve(point):
            return name, group, OFF_THE_CURVE
        if not in_subgroup(point):
            return name, group, OUTSIDE_THE_SUBGROUP
    return None


def check_public_inputs(vk: VerifyingKey, public_inputs: list[int], where: str = "public_inputs") -> None:
    """One value per IC point after IC_0 (which belongs to ONE), each in [0, r); InvalidInputError naming ``where``."""
    if len(public_inputs) + 1 != len(vk.ic):
        raise SizeMismatchError(where, f"has {len(public_inputs)} values; the verifying key has {len(vk.ic) - 1} (ic has {len(vk.ic)} points)")
    for i, x in enumerate(public_inputs):
        if not 0 <= x < R:
            raise ScalarRangeError(f"{where}[{i}]", f"{x:#x} is not in [0, r)")


def public_input_point(vk: VerifyingKey, public_inputs: list[int]) -> tuple:
    """X = IC_0 + sum_{i>=1} x_i IC_i (IC_0 belongs to ONE)."""
    check_public_inputs(vk, public_inputs)
    total = vk.ic[0]
    for i, x in enumerate(public_inputs):
        total = add(total, multiply(vk.ic[i + 1], x))
    return total


def pairing_product_is_one(pairs: list[tuple[tuple, tuple]]) -> bool:
    """prod_k e(P_k, Q_k) == 1 for (G1 point P_k, G2 point Q_k), with one final exponentiation."""
    product = FQ12.one()
    for p, q in pairs:
        product = product * pairing(q, p, final_exponentiate=False)
    return final_exponentiate(product) == FQ12.one()


def verification_pairs(vk: VerifyingKey, x: tuple, proof: Proof) -> list[tuple[tuple, tuple]]:
    """The (G1, G2) pairs whose pairing product is 1 for a valid proof (the module docstring), X = sum_i x_i IC_i:
    (A, B), (-alpha, beta), (-X, gamma), (-C, delta)."""
    return [(proof.a, proof.b), (neg(vk.alpha_g1), vk.beta_g2), (neg(x), vk.gamma_g2), (neg(proof.c), vk.delta_g2)]


def verify(vk: VerifyingKey, public_inputs: list[int], proof: Proof) -> bool:
    """True iff e(A, B) = e(alpha, beta) e(X, gamma) e(C, delta) (see the module docstring). A degenerate key
    (check_verifying_key) raises InvalidInputError: no verdict rests on it."""
    check_verifying_key(vk)
    return pairing_product_is_one(verification_pairs(vk, public_input_point(vk, public_inputs), proof))
