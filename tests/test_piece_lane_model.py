"""bench/piece_lane_model.py against independent counts: reference/msm.py's signed digits and hand-made pieces."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("piece_lane_model", ROOT / "bench" / "piece_lane_model.py")
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)


@pytest.mark.parametrize("c", [8, 10, 12])
def test_bucket_runs_count_reference_signed_digits(c):
    """Each bucket's run equals the count of |digit| over reference.msm.signed_digits of the same scalars."""
    from reference.msm import num_windows, signed_digits

    count = 300
    limbs = model.random_scalar_limbs(count, np.random.default_rng(7))
    runs = model.bucket_runs(count, c, np.random.default_rng(7))
    scalars = [sum(int(limb) << (32 * k) for k, limb in enumerate(row)) for row in limbs]
    expected = np.zeros(num_windows(c) << (c - 1), dtype=np.int64)
    for scalar in scalars:
        for window, digit in enumerate(signed_digits(scalar, c)):
            if digit:
                expected[(window << (c - 1)) + abs(digit) - 1] += 1
    assert runs.tolist() == expected.tolist()


def test_pieces_and_lane_share_by_hand():
    """Runs of 150 and 5000 points: at least 64 a piece, pieces 64, 64, 22 and 70 of 71 plus 30 (ceil(sqrt(5000)) =
    71); at least 256, 150 and 19 of 256 plus 136; a warp of 31 pieces of 64 and one of 1 keeps (31 * 64 + 1) /
    (32 * 64) of its lanes busy."""
    assert model.piece_lengths(np.array([150, 0, 5000]), 64).tolist() == [64, 64, 22] + [71] * 70 + [30]
    assert model.piece_lengths(np.array([150, 0, 5000]), 256).tolist() == [150] + [256] * 19 + [136]
    assert model.lane_share(np.array([64] * 32 + [64] * 31 + [1])) == pytest.approx((32 * 64 + 31 * 64 + 1) / (64 * 64))


@pytest.mark.parametrize("args, message", [(["--points", "0"], "--points: [0] outside 1..24"),
                                           (["--window-bits", "21"], "--window-bits: [21] outside 2..20"),
                                           (["--seed", "-1"], "--seed: must be at least 0, got -1")])
def test_refuses_out_of_range_options_without_a_traceback(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        model.main(args)
    assert exit_info.value.code == 2 and message in capsys.readouterr().err
