"""The GPU MSM against the published EIP-2537 MUL and MSM vectors (every case, G1 and G2): an oracle
nobody in this project produced. GPU only."""
import pytest

from vectors import eip2537

pytestmark = pytest.mark.gpu

CASES = [
    pytest.param(group, case, id=f"{group}-{case['Name']}")
    for group in ("g1", "g2")
    for name in (f"mul_{group.upper()}_bls.json", f"multiexp_{group.upper()}_bls.json")
    for case in eip2537.load_vectors(name)
]


@pytest.mark.parametrize("group, case", CASES)
def test_gpu_msm_matches_eip2537(group, case):
    from gpu.msm import MsmEngine
    from gpu.points import G1_GROUP, G2_GROUP

    points, scalars = eip2537.decode_msm_input(group, bytes.fromhex(case["Input"]))
    engine = MsmEngine.from_points(points, G1_GROUP if group == "g1" else G2_GROUP)
    (result,) = engine.msm_ints([scalars])
    assert eip2537.encode_point(group, result).hex() == case["Expected"]
