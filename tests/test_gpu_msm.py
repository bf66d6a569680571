"""GPU Pippenger MSM, batch addition and the msm_h / batch_add / tail_msm phases.

Oracles: py_ecc (reference.msm.msm_naive, one double-and-add per point), and bases with known
discrete logs (point i = (b + i a) G, made on the device) where expected = (sum_i s_i (b + i a)) G
needs one scalar multiplication. Results are compared as ZCash encodings (reference.encoding).

Two backends run the same Python drivers (gpu/msm.py, gpu/batch_add.py, ...):
* ``emulated`` tests: the kernels' host build over NumPy (tests/native/ec_host.py), small sizes, on
  any machine with a C++ compiler or nvcc (else skipped with the reason printed);
* ``gpu`` tests (marker ``gpu``): the real kernels, every size and edge case of the brief.
"""
import importlib.util
import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from py_ecc.optimized_bls12_381 import G1, G2, Z1, Z2, curve_order, multiply, neg

from gpu.points import (
    G1_GROUP,
    G2_GROUP,
    download_points,
    scalars_to_limbs,
    scalars_to_montgomery_limbs,
    use_backend,
)
from reference.encoding import encode_g1, encode_g2
from reference.errors import ScalarRangeError, SizeMismatchError
from reference.msm import msm_naive
from reference.prep import bitmap_bytes, split_query

R = curve_order
GROUPS = {"g1": (G1_GROUP, G1, encode_g1), "g2": (G2_GROUP, G2, encode_g2)}


def _load_host_module():
    spec = importlib.util.spec_from_file_location("ec_host", Path(__file__).parent / "native" / "ec_host.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ec_host = _load_host_module()


@pytest.fixture(scope="module")
def emulated():
    """Run the drivers on the host build of the kernels (skip, saying why, without a compiler)."""
    try:
        ec_host.host_library("msm.cu")
        ec_host.host_library("batch_add.cu")
    except ec_host.NoHostCompiler as exc:
        pytest.skip(f"host build of the kernels skipped: {exc}")
    with use_backend(ec_host.emulation_backend()):
        yield


# ------------------------------------------------------------------ helpers


def bitmap_rows(bitmaps, n):
    """Bitmaps as bytes (bit i = bit i % 8 of byte i // 8) -> (rows, ceil(n / 32)) uint32 words on the active backend."""
    from gpu.points import backend

    row_bytes = -(-n // 32) * 4
    rows = np.zeros((len(bitmaps), row_bytes), dtype=np.uint8)
    for k, bitmap in enumerate(bitmaps):
        used = bitmap[:row_bytes]
        rows[k, : len(used)] = np.frombuffer(bytes(used), dtype=np.uint8)
    return backend().xp.asarray(rows.view("<u4").astype(np.uint32))


def encode(points, name):
    return [GROUPS[name][2](p) for p in points]


def random_points(base, count, rng):
    return [multiply(base, rng.randrange(1, R)) for _ in range(count)]


def gpu_msm(points, scalar_rows, name, window_bits=None, montgomery=False):
    """py_ecc points: the GPU MSM of each row of scalars over the points (via the active backend)."""
    from gpu.msm import MsmEngine

    group = GROUPS[name][0]
    engine = MsmEngine.from_points(points, group)
    if not montgomery:
        return engine.msm_ints(scalar_rows, window_bits=window_bits)
    from gpu.points import backend

    limbs = backend().xp.asarray(np.stack([scalars_to_montgomery_limbs(row) for row in scalar_rows]))
    return download_points(engine.msm(limbs, montgomery=True, window_bits=window_bits), group)


def known_log_bases(count, name, seed):
    """(device bases (b + i a) G, their logs) made by the progression kernel."""
    from gpu.msm import progression_bases

    group, base, _ = GROUPS[name]
    rng = random.Random(seed)
    a, b = rng.randrange(1, R), rng.randrange(1, R)
    words = progression_bases(count, multiply(base, b), multiply(base, a), group)
    return words, [(b + i * a) % R for i in range(count)]


def expected_from_logs(logs, scalars, name):
    base = GROUPS[name][1]
    return multiply(base, sum(s * k for s, k in zip(scalars, logs)) % R)


def special_scalars(kind, n, rng):
    """The scalar sets of the brief."""
    half = (R - 1) // 2
    table = {
        "zeros": [0] * n,
        "ones": [1] * n,
        "r-1": [R - 1] * n,
        "equal": [rng.randrange(R)] * n,
        "0/1/-1": [rng.choice([0, 1, R - 1]) for _ in range(n)],
        "2^254": [1 << 254] * n,
        "(r-1)/2 and (r+1)/2": [half if i % 2 else half + 1 for i in range(n)],
        "near r/2": [half + rng.randrange(-3, 4) for _ in range(n)],
        "random": [rng.randrange(R) for _ in range(n)],
    }
    return table[kind]


# ------------------------------------------------------------------ window choice (CPU)


def test_window_choice_keeps_the_top_window_full():
    """kernel_window_bits picks divisors of 256 (so c * W = 256 and the top window holds c - 1 scalar bits) or the
    measured c = 10 (top window bits 250..254), c = 16 at the benchmarked 2^20 and up to 2^23, and the measured wide
    window c = 20 (top window 16 bits) from 3 * 2^22 points: the benchmarked 2^24 and 2^26, msm_h's 2^24 - 1 and
    2^27 - 1 points (gpu/msm.py WIDE_WINDOW_MIN_POINTS has the measurements); with c = 17 the top window's digits
    of random scalars are only 0 or 1 (the skew that the restriction avoids), with c = 10 they spread over 0..32."""
    from gpu.msm import kernel_window_bits
    from reference.msm import num_windows, signed_digits

    for log2 in range(0, 28):
        c = kernel_window_bits(1 << log2)
        assert c * num_windows(c) == 256 or c in (10, 20), (log2, c)
    assert [kernel_window_bits(n) for n in (10_000, 130_000, 500_000)] == [8, 10, 10]
    assert kernel_window_bits(1 << 20) == kernel_window_bits(1 << 23) == kernel_window_bits(3 * 2**22 - 1) == 16
    assert [kernel_window_bits(n) for n in (3 * 2**22, (1 << 24) - 1, 1 << 24, 1 << 26, (1 << 27) - 1)] == [20] * 5
    rng = random.Random("top-window")
    top17 = {signed_digits(rng.randrange(R), 17)[-1] for _ in range(200)}
    assert top17 <= {0, 1}
    top10 = {signed_digits(rng.randrange(R), 10)[-1] for _ in range(2000)}
    assert top10 <= set(range(33)) and len(top10) > 25
    for wide in (16, 20):  # the top window of c = 20 holds 16 bits: its digits spread as c = 16's do
        assert len({signed_digits(rng.randrange(R), wide)[-1] for _ in range(200)}) > 150


def test_job_widths_let_tiny_jobs_join_a_pass():
    """_job_widths (CPU only): PoRep tails at 2^27 (twenty 130 k-point L and A jobs, ten one-point B jobs) all take
    c = 10, one pass; a one-point job beside 2^20-point jobs keeps its own c = 2, because c = 16's 2^15 buckets a
    window cost more than a pass (window_cost against PASS_COST, counted by hand here); a forced width is every
    non-empty job's."""
    from gpu.msm import BUCKET_COST, PASS_COST, _job_widths, _passes

    assert _job_widths([130_000] * 20 + [1] * 10, None) == [10] * 30
    assert [plan.window_bits for _, plan in _passes([130_000] * 20 + [1] * 10, G1_GROUP, None)] == [10]
    one_point_at_16 = 16 * (1 + BUCKET_COST * (1 << 15))  # W(16) (n + BUCKET_COST 2^15), n = 1
    one_point_at_2 = 128 * (1 + BUCKET_COST * 2)
    assert one_point_at_16 - one_point_at_2 > PASS_COST
    assert _job_widths([1 << 20, 1, 1 << 20, 0], None) == [16, 2, 16, 0]
    assert _job_widths([5, 0, 300], 12) == [12, 0, 12]


def test_a_bundled_vector_reaches_the_g2_segment_sums():
    """msm.cu's sum_groups_g2 runs only for a G2 MSM with more than one bucket segment a window (c >= 7), and the
    gate refuses to record while a kernel goes unlaunched; the one gate vector whose B_G2 tail is large enough is
    vectors/bundled.py's random-log11 (PoRep shapes keep ONE alone in B's tail). A retuned window rule must keep it."""
    import json

    from gpu.msm import SEGMENT_BUCKETS, kernel_window_bits
    from vectors.bundled import DATA_DIR

    b_tail = json.loads((DATA_DIR / "random-log11.json").read_text())["prep"]["b"]["tail_indices"]
    c = kernel_window_bits(len(b_tail))
    assert len(b_tail) == 1349 and c == 8 and (1 << (c - 1)) // SEGMENT_BUCKETS > 1


# ------------------------------------------------------------------ emulated (CPU) tests


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_emulated_msm_matches_naive_with_edge_cases(emulated, name):
    """Random scalars plus P, -P, repeated points, the identity, 0, 1, r-1, in one MSM."""
    group, base, _ = GROUPS[name]
    rng = random.Random(f"emulated-{name}")
    p, q = random_points(base, 2, rng)
    points = [p, neg(p), q, q, q, group.identity] + random_points(base, 8, rng)
    scalars = [7, 7, 5, 5, 5, 3, 0, 1, R - 1] + [rng.randrange(R) for _ in range(5)]
    got = gpu_msm(points, [scalars], name)
    assert encode(got, name) == encode([msm_naive(points, scalars, identity=group.identity)], name)


@pytest.mark.parametrize("window_bits", [1, 3, 8, 10])
def test_emulated_msm_forced_windows_and_montgomery_scalars(emulated, window_bits):
    rng = random.Random(f"windows-{window_bits}")
    points = random_points(G1, 5, rng)
    rows = [[rng.randrange(R) for _ in points], [R - 1, 1 << 254, (R + 1) // 2, 0, 1]]
    expected = encode([msm_naive(points, row, identity=Z1) for row in rows], "g1")
    assert encode(gpu_msm(points, rows, "g1", window_bits=window_bits), "g1") == expected
    assert encode(gpu_msm(points, rows, "g1", window_bits=window_bits, montgomery=True), "g1") == expected


@pytest.mark.parametrize("long_pieces", [False, True])
def test_emulated_msm_many_equal_scalars_split_into_pieces(emulated, monkeypatch, long_pieces):
    """A bucket far larger than a piece and a window carry chain: 600 points, in pieces of 64 (10 pieces, the last of
    24 points) or, with every pass's buckets made enough for long pieces, of 256 (2 full ones and one of 88)."""
    from gpu import msm

    if long_pieces:
        monkeypatch.setattr(msm, "LONG_PIECES_MIN_BUCKETS", 1)
    words, logs = known_log_bases(600, "g1", "pieces")
    engine = msm.MsmEngine(words, G1_GROUP)
    scalars = [(1 << 200) - 1] * 600
    got = engine.msm_ints([scalars])
    assert encode(got, "g1") == encode([expected_from_logs(logs, scalars, "g1")], "g1")


@pytest.mark.parametrize(("counts", "window_bits", "min_points"), [
    (((1 << 27) - 1,), 20, 256),  # msm_h at 2^27: 13 x 2^19 buckets
    ((1 << 17,), 10, 64),  # 26 x 2^9 = 13,312 buckets of about 256 points
    ((1 << 20,) * 8, 16, 256),  # 8 jobs x 16 x 2^15: exactly 2^22 buckets
    ((1 << 20,) * 7, 16, 64),  # one job fewer
])
def test_plan_takes_long_pieces_from_its_bucket_count(counts, window_bits, min_points):
    """_Plan.piece_min_points: 256 from 2^22 buckets a pass on (gpu/msm.py LONG_PIECES_MIN_BUCKETS), else 64."""
    from gpu.msm import _Plan

    assert _Plan(counts, window_bits).piece_min_points == min_points


RANK_TEST_WINDOW_BITS = 16
"""The width at which a digit word's rank field overflows at the fewest points that still emulate in seconds: a
bucket past 2^(31 - c) - 1 digits (32767 at c = 16) against 16 windows of 2^15 buckets to reduce. The MSM's and the
scatter's rank tests use it."""


def test_emulated_msm_bucket_past_the_digit_words_ranks(emulated):
    """A bucket holding more digits than a digit word's rank field counts (ec_kernels.cuh msm_count_digit): the ranks
    from the overflow rank on take the scatter's atomic slots after it, the ones below their own. Equal scalars fill
    one bucket of windows 0 and 12 with almost every point (the carry chain empties windows 1-11), beside a few random
    scalars that rank below the overflow."""
    count = (1 << (31 - RANK_TEST_WINDOW_BITS)) + 40  # 32800 equal scalars: 33 digits past the 32767 ranks a word holds
    words, logs = known_log_bases(count, "g1", "ranks")
    from gpu.msm import MsmEngine

    rng = random.Random("ranks")
    scalars = [(1 << 200) - 1] * (count - 8) + [rng.randrange(R) for _ in range(8)]
    got = MsmEngine(words, G1_GROUP).msm_ints([scalars], window_bits=RANK_TEST_WINDOW_BITS)
    assert encode(got, "g1") == encode([expected_from_logs(logs, scalars, "g1")], "g1")


PIECE_RUNS = [0, 1, 3, 64, 65, 130, 256, 300, 5000, 70000]
"""Bucket runs for msm_piece_count and msm_piece_keys: empty, shorter and longer than both least lengths, and runs whose
root (71 and 265) passes them."""


@pytest.mark.parametrize(("min_points", "pieces_per_bucket"), [
    (64, [0, 1, 1, 1, 2, 3, 4, 5, 71, 265]),
    (256, [0, 1, 1, 1, 1, 1, 1, 2, 20, 265]),
])
def test_emulated_piece_keys_list_every_piece_once_longest_first(emulated, min_points, pieces_per_bucket):
    """msm_piece_count gives each bucket of PIECE_RUNS its pieces, counted by hand above; msm_piece_keys, sorted, lists
    them longest first, ties in index order, each once, lengths max(min_points, ceil(sqrt(run))) (counted naively
    here) and the last piece of a bucket shorter; the keys' low words are the piece indices msm_piece_sum takes."""
    import math

    from gpu.msm import MSM_KERNELS
    from gpu.points import launch, u32

    lengths = []  # (length, piece index) in piece order, bucket by bucket
    for run in PIECE_RUNS:
        length = max(min_points, math.isqrt(run - 1) + 1) if run else min_points
        full, rest = divmod(run, length)
        lengths += [length] * full + ([rest] if rest else [])
    module = G1_GROUP.module(MSM_KERNELS)
    buckets = u32(len(PIECE_RUNS))
    offsets = np.concatenate([[0], np.cumsum(PIECE_RUNS)]).astype(np.uint32)
    counted = np.zeros(len(PIECE_RUNS), dtype=np.uint32)
    launch(module, "msm_piece_count", len(PIECE_RUNS), offsets, buckets, u32(min_points), counted)
    assert counted.tolist() == pieces_per_bucket and sum(pieces_per_bucket) == len(lengths)
    piece_offsets = np.concatenate([[0], np.cumsum(pieces_per_bucket)]).astype(np.uint32)
    keys = np.zeros(len(lengths), dtype=np.uint64)
    launch(module, "msm_piece_keys", len(PIECE_RUNS), offsets, piece_offsets, buckets, u32(min_points), keys)
    keys.sort()
    order = [int(k) & 0xFFFFFFFF for k in keys]
    assert order == sorted(range(len(lengths)), key=lambda piece: (-lengths[piece], piece))
    assert lengths[order[0]] == 265 and lengths[order[-1]] == 1


def test_emulated_msm_empty_and_all_identity(emulated):
    from gpu.msm import MsmEngine

    assert MsmEngine.from_points([], G1_GROUP).msm_ints([[]]) == [Z1]
    got = gpu_msm([Z2] * 3, [[1, 2, R - 1]], "g2")
    assert encode(got, "g2") == encode([Z2], "g2")


def test_emulated_msm_rejects_bad_scalars(emulated):
    from gpu.msm import MsmEngine

    engine = MsmEngine.from_points([G1, G1], G1_GROUP)
    with pytest.raises(ScalarRangeError, match=r"scalars\[0\]\[1\]"):
        engine.msm_ints([[1, R]])
    with pytest.raises(SizeMismatchError, match="scalars"):
        engine.msm_ints([[1]])


def _device_job(points, scalars, name, indices=None):
    """gpu.msm.MsmJob over py_ecc points and Python-int scalars (index list: positions in points)."""
    from gpu.msm import MsmJob
    from gpu.points import backend, points_to_words

    xp = backend().xp
    words = xp.asarray(points_to_words(points, GROUPS[name][0]))
    index_array = None if indices is None else xp.asarray(np.array(indices, dtype=np.uint32))
    return MsmJob(words, xp.asarray(scalars_to_limbs(scalars, "scalars")), index_array)


def _batch_case(name, seed):
    """Jobs of different bases, sizes (an empty one, a one-point one) and index lists, and each job's naive sum."""
    group, base, _ = GROUPS[name]
    rng = random.Random(seed)
    cases = []
    for count, indexed in ((9, False), (0, False), (1, False), (6, True), (70, False), (5, True)):
        points = random_points(base, max(count, 3), rng) if count < 70 else random_points(base, 4, rng) * 17 + [group.identity] * 2
        if indexed:
            indices = [rng.randrange(len(points)) for _ in range(count)]
            chosen = [points[i] for i in indices]
        else:
            points, indices, chosen = points[:count], None, points[:count]
        scalars = [rng.choice([0, 1, R - 1, rng.randrange(R)]) for _ in range(count)]
        cases.append((points, scalars, indices, msm_naive(chosen, scalars, identity=group.identity)))
    return cases


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_emulated_msm_batch_matches_naive_per_job(emulated, name, monkeypatch):
    """One msm_batch over jobs of several sizes and window widths, with and without index lists: row j is job j's
    naive sum (py_ecc double-and-add). PASS_COST = 0 keeps each job at its own width (at these sizes every job would
    join the largest one's pass), so that the batch runs several passes."""
    import gpu.msm
    from gpu.msm import _passes, msm_batch

    monkeypatch.setattr(gpu.msm, "PASS_COST", 0)

    cases = _batch_case(name, f"batch-{name}")
    jobs = [_device_job(points, scalars, name, indices) for points, scalars, indices, _ in cases]
    widths = {plan.window_bits for _, plan in _passes([job.count for job in jobs], GROUPS[name][0], None)}
    assert len(widths) > 1  # the case mixes window widths: several passes
    got = download_points(msm_batch(jobs, GROUPS[name][0], montgomery=False), GROUPS[name][0])
    assert encode(got, name) == encode([expected for *_, expected in cases], name)
    monkeypatch.undo()  # the measured PASS_COST: the small jobs join the 70-point job's width, one pass
    assert len(_passes([job.count for job in jobs], GROUPS[name][0], None)) == 1
    got = download_points(msm_batch(jobs, GROUPS[name][0], montgomery=False), GROUPS[name][0])
    assert encode(got, name) == encode([expected for *_, expected in cases], name)


def test_emulated_msm_batch_empty_top_windows(emulated):
    """Jobs whose scalars leave the top windows empty (the constant 1 of a tail's input ONE, small values), all
    zero, or only the top window set: Horner skips the identity's doublings and still gives the naive sums."""
    from gpu.msm import msm_batch

    rng = random.Random("top-windows")
    points = random_points(G1, 3, rng)
    rows = [[1, 1, 1], [2, 0, (1 << 16) - 1], [0, 0, 0], [1 << 250, 0, 1], [R - 1, 1, 1 << 200]]
    jobs = [_device_job(points, row, "g1") for row in rows]
    for window_bits in (None, 4, 16):
        got = download_points(msm_batch(jobs, G1_GROUP, montgomery=False, window_bits=window_bits), G1_GROUP)
        assert encode(got, "g1") == encode([msm_naive(points, row, identity=Z1) for row in rows], "g1")


def test_emulated_msm_batch_split_into_small_passes(emulated, monkeypatch):
    """With a scratch budget that holds one job, every job runs in its own pass; the sums do not change."""
    import gpu.msm
    from gpu.msm import _passes, msm_batch

    cases = [case for case in _batch_case("g1", "passes") if case[0]]
    jobs = [_device_job(points, scalars, "g1", indices) for points, scalars, indices, _ in cases]
    monkeypatch.setattr(gpu.msm, "MSM_BATCH_BYTES", 1)
    passes = _passes([job.count for job in jobs], G1_GROUP, 4)
    assert [members for members, _ in passes] == [[j] for j in range(len(jobs)) if jobs[j].count]
    got = download_points(msm_batch(jobs, G1_GROUP, montgomery=False, window_bits=4), G1_GROUP)
    assert encode(got, "g1") == encode([expected for *_, expected in cases], "g1")


def test_emulated_scatter_writes_each_digit_once_over_its_slices(emulated, monkeypatch):
    """gpu/msm.py _sorted_entries (msm_scatter, a launch a slice of the magnitudes): at c = 16 in four slices
    (fronts of 2^13 lines), digit words made as msm_digits makes them, with buckets past the rank field's 32767 on
    both sides of a slice's edge (magnitudes 8192 and 8193) and at the last magnitude's neighbour: each ranked digit
    lands at its bucket's offset + rank, each bucket's overflowed digits fill the rest of its run, each once (a digit
    written by two launches would take a second overflow slot, past its run)."""
    import gpu.msm
    from gpu.msm import L2_LINE_BYTES, MSM_KERNELS, _DigitsPlan, _exclusive_sum, _sorted_entries, _table
    from gpu.points import backend, launch

    c = RANK_TEST_WINDOW_BITS
    half, overflow, sign = 1 << (c - 1), (1 << (31 - c)) - 1, 1 << 31
    monkeypatch.setattr(gpu.msm, "SCATTER_FRONT_BYTES", (1 << 13) * L2_LINE_BYTES)
    plan = _DigitsPlan((0,), c)  # the slices depend only on c
    assert plan.scatter_slices == [(1, 8193), (8193, 16385), (16385, 24577), (24577, 32769)]
    rng = random.Random("scatter-slices")
    heavy = [8192, 8193, half - 1]  # each gets 3 digits past the ranks; the next bucket 40 digits
    magnitudes = [m for m in heavy for _ in range(overflow + 3)] + [m + 1 for m in heavy for _ in range(40)]
    magnitudes += [rng.randrange(1, half + 1) for _ in range(3000)] + [0] * 50
    rng.shuffle(magnitudes)
    counts = [0] * half
    words, expected = [], {}  # expected[magnitude]: (ranked entries by rank, overflowed entries)
    for k, m in enumerate(magnitudes):
        if m == 0:
            words.append(0)
            continue
        negative = rng.random() < 0.5
        rank = counts[m - 1]
        counts[m - 1] += 1
        words.append((sign if negative else 0) | (min(rank, overflow) << c) | m)
        ranked, overflowed = expected.setdefault(m, ([], []))
        (ranked if rank < overflow else overflowed).append(k | (sign if negative else 0))
    xp = backend().xp
    plan = _DigitsPlan((len(words),), c)
    offsets = _exclusive_sum(xp.asarray(counts, dtype=xp.uint32))
    launched = []  # (first, end) of each msm_scatter launch

    def recording_launch(module, kernel, threads, *args):
        if kernel == "msm_scatter":
            launched.append((int(args[6]), int(args[7])))  # after digits, table, jobs, total, windows, c
        return launch(module, kernel, threads, *args)

    monkeypatch.setattr(gpu.msm, "launch", recording_launch)
    got = _sorted_entries(G1_GROUP.module(MSM_KERNELS), _table([(0, 0, 0, len(words))]), plan,
                          xp.asarray(words, dtype=xp.uint32), offsets)
    assert launched == plan.scatter_slices
    got, offsets = [int(e) for e in got], [int(o) for o in offsets]
    for m, (ranked, overflowed) in expected.items():
        run = got[offsets[m - 1]:offsets[m]]
        assert run[:len(ranked)] == ranked, m
        assert sorted(run[len(ranked):]) == sorted(overflowed), m


@pytest.mark.parametrize("front_lines", [3, 64])
def test_emulated_msm_scatter_in_magnitude_slices(emulated, monkeypatch, front_lines):
    """A whole MSM batch with msm_scatter launched once a slice of the magnitudes (gpu/msm.py SCATTER_FRONT_BYTES):
    with fronts of 3 L2 lines c = 8's 128 buckets a window take 43 launches of 2 or 3 magnitudes (64 lines: 2
    launches); the jobs (index lists, equal and extreme scalars) still give their naive sums."""
    import gpu.msm
    from gpu.msm import L2_LINE_BYTES, _Plan, msm_batch

    monkeypatch.setattr(gpu.msm, "SCATTER_FRONT_BYTES", front_lines * L2_LINE_BYTES)
    assert len(_Plan((1,), 8).scatter_slices) == -(-128 // front_lines)
    cases = [case for case in _batch_case("g1", "slices") if case[0]]
    jobs = [_device_job(points, scalars, "g1", indices) for points, scalars, indices, _ in cases]
    got = download_points(msm_batch(jobs, G1_GROUP, montgomery=False, window_bits=8), G1_GROUP)
    assert encode(got, "g1") == encode([expected for *_, expected in cases], "g1")


def test_scatter_slices_cover_every_magnitude_once():
    """_Plan.scatter_slices (CPU only): consecutive ranges [first, end) from 1 to 2^(c-1) + 1, as few as keep a
    launch's fronts (a line a magnitude) within SCATTER_FRONT_BYTES, of sizes differing by at most one."""
    from gpu.msm import L2_LINE_BYTES, SCATTER_FRONT_BYTES, _Plan

    for c in (1, 2, 8, 16, 17, 18, 20):
        slices = _Plan((1 << 20,), c).scatter_slices
        half = 1 << (c - 1)
        assert slices[0][0] == 1 and slices[-1][1] == half + 1
        assert all(end == first for (_, end), (first, _) in zip(slices, slices[1:]))
        sizes = [end - first for first, end in slices]
        assert max(sizes) * L2_LINE_BYTES <= SCATTER_FRONT_BYTES or max(sizes) == 1
        assert max(sizes) - min(sizes) <= 1 and min(sizes) >= 1
        assert len(slices) == 1 or half * L2_LINE_BYTES > (len(slices) - 1) * SCATTER_FRONT_BYTES  # one fewer is too few
    assert len(_Plan((1 << 27,), 20).scatter_slices) == 4  # c = 20: 2^19 lines of 128 bytes in 16 MiB slices


def test_batch_passes_group_by_width_within_the_budget():
    """_passes (CPU only): every non-empty job in exactly one pass, in order within a width; a pass of several jobs
    stays within MSM_BATCH_BYTES; msm_scratch_bytes is the largest pass."""
    from gpu.msm import MSM_BATCH_BYTES, _job_widths, _passes, _Plan, msm_scratch_bytes

    counts = [130_000] * 20 + [1] * 10 + [0, 5, 1 << 20, 1 << 20]
    passes = _passes(counts, G1_GROUP, None)
    widths = _job_widths(counts, None)
    members = [j for group, _ in passes for j in group]
    assert sorted(members) == [j for j, count in enumerate(counts) if count]
    for group, plan in passes:
        assert group == sorted(group) and plan.counts == tuple(counts[j] for j in group)
        assert {widths[j] for j in group} == {plan.window_bits}
        assert len(group) == 1 or plan.device_bytes(G1_GROUP) <= MSM_BATCH_BYTES
        assert plan.digits < 1 << 32
    assert len([g for g, _ in passes if counts[g[0]] == 130_000]) < 20  # the tails share passes
    assert msm_scratch_bytes(counts, G1_GROUP) == max(plan.device_bytes(G1_GROUP) for _, plan in passes)
    assert _Plan((1 << 20,), 16).device_bytes(G1_GROUP) <= msm_scratch_bytes(counts, G1_GROUP)


def test_batch_passes_match_the_greedy_rule_on_random_batches():
    """_passes (CPU only) against the rule of its docstring applied naively (every plan rebuilt for every job): jobs
    of one width join the current pass, in order, unless the grown pass's scratch exceeds max(MSM_BATCH_BYTES, the
    largest member's scratch alone) or its digits reach 2^32."""
    from gpu.msm import MSM_BATCH_BYTES, _job_widths, _passes, _Plan

    def naive(counts, group):
        by_width = {}
        for j, width in enumerate(_job_widths(counts, None)):
            if width:
                by_width.setdefault(width, []).append(j)
        passes = []
        for c, members in by_width.items():
            current = []
            for j in members:
                grown = _Plan(tuple(counts[k] for k in current + [j]), c)
                budget = max([MSM_BATCH_BYTES] + [_Plan((counts[k],), c).device_bytes(group) for k in current + [j]])
                if current and (grown.device_bytes(group) > budget or grown.digits >= 1 << 32):
                    passes.append(current)
                    current = []
                current.append(j)
            passes.append(current)
        return passes

    rng = random.Random("greedy-passes")
    sizes = (0, 1, 5, 300, 130_000, 400_000, 1 << 20, 3 << 22)
    for group in (G1_GROUP, G2_GROUP):
        for _ in range(25):
            counts = [rng.choice(sizes) for _ in range(rng.randrange(1, 40))]
            assert [members for members, _ in _passes(counts, group, None)] == naive(counts, group), counts


def test_emulated_msm_batch_rejects_malformed_jobs(emulated):
    from gpu.msm import MsmJob, msm_batch
    from gpu.points import backend

    xp = backend().xp
    good = _device_job([G1, G1], [1, 2], "g1")
    with pytest.raises(SizeMismatchError, match=r"jobs\[1\]\.scalars"):
        msm_batch([good, MsmJob(good.bases, good.scalars[:1])], G1_GROUP, montgomery=False)
    with pytest.raises(SizeMismatchError, match=r"jobs\[0\]\.indices"):
        msm_batch([MsmJob(good.bases, good.scalars, xp.asarray(np.array([0, 1], dtype=np.int64)))], G1_GROUP,
                  montgomery=False)
    with pytest.raises(SizeMismatchError, match=r"jobs\[0\]\.bases"):
        msm_batch([MsmJob(good.bases, good.scalars)], G2_GROUP, montgomery=False)
    strided = xp.asarray(np.zeros((2, 16), dtype=np.uint32))[:, ::2]
    with pytest.raises(SizeMismatchError, match="C-contiguous"):
        msm_batch([MsmJob(good.bases, strided)], G1_GROUP, montgomery=False)


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_emulated_batch_add_dense_sparse_and_complement(emulated, name):
    """Rows with no bit, random bits, 99% and all bits (complement rule, total made in the same
    pass of its own, then reused from the cache), and bits past n that must be ignored."""
    from gpu.batch_add import BatchAdder

    group, base, _ = GROUPS[name]
    n = 70
    words, logs = known_log_bases(n, name, f"batch-{name}")
    rng = random.Random(f"batch-{name}")
    rows = [[False] * n, [rng.random() < 0.5 for _ in range(n)], [i != 17 for i in range(n)], [True] * n]
    adder = BatchAdder(words, group)
    bitmaps = [bitmap_bytes(bits) for bits in rows]
    bitmaps[3] = bitmaps[3][:-1] + b"\xff"  # bits 64..71 set past n = 70: ignored
    for _ in range(2):  # the second call uses the cached total of all bases
        got = download_points(adder.sums(bitmap_rows(bitmaps, n)), group)
        expected = [expected_from_logs(logs, [int(b) for b in bits], name) for bits in rows]
        assert encode(got, name) == encode(expected, name)
    with pytest.raises(SizeMismatchError, match="bitmaps"):
        adder.sums(bitmap_rows([b"\x00"], n)[:, :1])


@pytest.mark.parametrize("name", ["g1", "g2"])
def test_emulated_batch_add_chunks_of_many_words(emulated, name, monkeypatch):
    """Chunks that span several words (few threads a pass): a lane walks its chunk's selected bits across words,
    skipping empty words, a wholly empty chunk and the partial last word, in every mode."""
    from gpu import batch_add
    from gpu.batch_add import BatchAdder

    monkeypatch.setattr(batch_add, "target_threads", lambda group: 12)  # 4 rows x 10 words: chunks of 4, 4, 2 words
    group = GROUPS[name][0]
    n = 300  # 10 words, the last one 12 bits
    words, logs = known_log_bases(n, name, f"chunks-{name}")
    rng = random.Random(f"chunks-{name}")
    sparse = [i in (3, 165, 166, 299) for i in range(n)]  # words 0, 5 and 9 (the partial last word) only
    between = [i < 32 or i >= 256 for i in range(n)]  # chunk 1 wholly empty, chunk 0 empty after its first word
    dense = [rng.random() < 0.5 for _ in range(n)]
    mostly = [rng.random() < 0.97 for _ in range(n)]  # the complement rule
    rows = [sparse, between, dense, mostly]
    got = download_points(BatchAdder(words, group).sums(bitmap_rows([bitmap_bytes(bits) for bits in rows], n)), group)
    expected = [expected_from_logs(logs, [int(b) for b in bits], name) for bits in rows]
    assert encode(got, name) == encode(expected, name)


CHUNK_TEST_BITS, CHUNK_TEST_WORDS, CHUNK_TEST_CHUNK_WORDS = 300, 11, 3
"""Rows of 300 bits in words of a row of 11 (one word past the 10 that hold them), chunks of 3 words: the last chunk
one 12-bit word."""


def chunk_test_rows():
    """(bitmaps, modes, selected): three rows (set bits at density 0.3, a complement row at 0.8, an ALL row) as
    batch_add.cu reads them, and the bits each row adds, counted here from the bits."""
    from gpu.batch_add import MODE_ALL, MODE_BITS, MODE_COMPLEMENT

    rng = random.Random("chunk keys")
    bits = [[rng.random() < density for _ in range(CHUNK_TEST_BITS)] for density in (0.3, 0.8, 0.5)]
    modes = [MODE_BITS, MODE_COMPLEMENT, MODE_ALL]
    selected = [bits[0], [not b for b in bits[1]], [True] * CHUNK_TEST_BITS]
    bitmaps = np.zeros((len(bits), CHUNK_TEST_WORDS), dtype=np.uint32)
    bitmaps[:, -1] = 0xFFFFFFFF  # the word past n: never read
    for r, row in enumerate(bits):
        for i, bit in enumerate(row):
            bitmaps[r, i // 32] |= np.uint32(bit) << np.uint32(i % 32)
    return bitmaps, np.asarray(modes, dtype=np.uint32), selected


def test_emulated_batch_chunk_keys_list_every_chunk_once_most_bits_first(emulated):
    """batch_chunk_keys, sorted: the chunks of three rows (set bits, complement, all) come out with the most selected
    bits over the rows first (counted naively here), ties in index order, each once; the keys' low words are the
    chunks batch_add_chunks takes."""
    from gpu.batch_add import BATCH_KERNELS
    from gpu.points import launch, u32

    bitmaps, modes, selected = chunk_test_rows()
    span = CHUNK_TEST_CHUNK_WORDS * 32
    chunks = -(-CHUNK_TEST_BITS // span)
    work = {chunk: sum(sum(row[chunk * span:(chunk + 1) * span]) for row in selected) for chunk in range(chunks)}
    keys = np.zeros(chunks, dtype=np.uint64)
    launch(G1_GROUP.module(BATCH_KERNELS), "batch_chunk_keys", chunks, u32(CHUNK_TEST_BITS), bitmaps,
           u32(CHUNK_TEST_WORDS), modes, u32(len(modes)), u32(CHUNK_TEST_CHUNK_WORDS), u32(chunks), keys)
    keys.sort()
    assert [int(k) & 0xFFFFFFFF for k in keys] == sorted(work, key=lambda chunk: (-work[chunk], chunk))
    assert [int(k) >> 32 for k in keys] == sorted(0xFFFFFFFF - w for w in work.values())


def test_emulated_batch_add_chunks_takes_the_chunk_its_order_names(emulated):
    """Thread tid adds row tid % rows of chunk order[tid / rows], into partial[row * chunks + chunk]: with one chunk
    in every place of the order, the kernel writes that chunk's slot of every row and no other."""
    from gpu.batch_add import BATCH_KERNELS
    from gpu.points import launch, u32

    bitmaps, modes, _ = chunk_test_rows()
    rows, chunks, chunk = len(modes), -(-CHUNK_TEST_BITS // (CHUNK_TEST_CHUNK_WORDS * 32)), 2
    words, _ = known_log_bases(CHUNK_TEST_BITS, "g1", "chunk order")
    marker = np.uint32(0xDEADBEEF)
    partial = np.full((rows * chunks, G1_GROUP.xyzz_words), marker, dtype=np.uint32)
    order = np.full(chunks, chunk, dtype=np.uint64)  # keys whose low word is the chunk (their high word is not read)
    launch(G1_GROUP.module(BATCH_KERNELS), G1_GROUP.kernel("batch_add_chunks"), rows * chunks, words,
           u32(CHUNK_TEST_BITS), bitmaps, u32(CHUNK_TEST_WORDS), modes, u32(rows), u32(CHUNK_TEST_CHUNK_WORDS),
           u32(chunks), order, partial)
    written = [slot for slot in range(rows * chunks) if (partial[slot] != marker).any()]
    assert written == [row * chunks + chunk for row in range(rows)]


@pytest.mark.parametrize("points_per_bucket", [256, 2], ids=["one segment", "two segments"])
@pytest.mark.parametrize("name", ["g1", "g2"])
def test_emulated_batch_add_by_patterns(emulated, name, points_per_bucket, monkeypatch):
    """The pattern path (gpu/batch_add.py _pattern_sums), forced: five rows whose patterns cover empty, sparse, dense
    and complement rows (a base selected by no row, by one, by all), the partial last word, in one segment of buckets
    and in two (2 x 2^5 = 64 bases, then 11); each row's sum equals the sum of its bases' known logs."""
    from gpu import batch_add
    from gpu.batch_add import BatchAdder

    monkeypatch.setattr(batch_add, "patterns_pay", lambda selected, n: True)
    monkeypatch.setattr(batch_add, "PATTERN_POINTS_PER_BUCKET", points_per_bucket)
    group = GROUPS[name][0]
    n = 75  # 3 words, the last one 11 bits
    words, logs = known_log_bases(n, name, f"patterns-{name}")
    rng = random.Random(f"patterns-{name}")
    rows = [[False] * n, [i in (0, 40, 74) for i in range(n)], [rng.random() < 0.5 for _ in range(n)],
            [rng.random() < 0.9 for _ in range(n)], [True] * n]
    got = download_points(BatchAdder(words, group).sums(bitmap_rows([bitmap_bytes(bits) for bits in rows], n)), group)
    expected = [expected_from_logs(logs, [int(b) for b in bits], name) for bits in rows]
    assert encode(got, name) == encode(expected, name)


def test_patterns_pay_for_ten_dense_circuits_and_not_for_one_or_for_sparse_rows():
    """The rule against hand counts at N = 2^27: 512 segments of 2^18 bases, 2^19 buckets, which cost 10 * 2^19
    additions and the row sums 10 * 2^18 more (0.059 N); ten rows at density 1/2 then need N (1 - 2^-10) + 0.059 N
    additions by patterns against 5 N by rows (pays); ten rows of 1% need N (1 - 0.99^10) + 0.059 N = 0.154 N against
    PATTERN_SHARE (0.40) of 0.1 N (does not); one row never (nothing to share); 2^7 bases are too few for 2^10 buckets."""
    from gpu.batch_add import pattern_segments, patterns_pay

    n = 1 << 27
    assert pattern_segments(n, 10) == 512 and pattern_segments(n + 1, 10) == 513 and pattern_segments(128, 10) == 1
    assert patterns_pay([n // 2] * 10, n)
    assert not patterns_pay([n // 100] * 10, n)
    assert not patterns_pay([n // 2], n)
    assert not patterns_pay([64] * 10, 128)


def test_rows_denser_than_half_are_added_by_their_clear_bits():
    """row_modes, BatchAdder.sums's rule: 7 of 10 bits set is added as T less its 3 clear bits; exactly half, by its bits."""
    from gpu.batch_add import MODE_BITS, MODE_COMPLEMENT, row_modes

    assert row_modes([3, 7, 5, 0, 10], 10) == ([MODE_BITS, MODE_COMPLEMENT, MODE_BITS, MODE_BITS, MODE_COMPLEMENT],
                                              [3, 3, 5, 0, 0])


def test_pattern_share_is_the_hand_count_over_the_rows_additions():
    """pattern_share (what bench/probe_pattern_share.py sets beside the measured times) is the hand count above over
    the rows' own additions: (N (1 - 2^-10) + 0.059 N) / 5 N at density 1/2; no share where no pattern pass can run."""
    from gpu.batch_add import pattern_share

    n = 1 << 27
    buckets = 1 << 19
    assert pattern_share([n // 2] * 10, n) == pytest.approx((n * (1 - 2**-10) + 10 * buckets + 5 * buckets) / (5 * n))
    assert pattern_share([n // 2] * 10, n) == pytest.approx(0.2115, abs=1e-4)
    assert pattern_share([n // 2], n) == float("inf") and pattern_share([0] * 10, n) == float("inf")


@pytest.mark.parametrize("rows", [1, 10])
def test_batch_add_chunks_fill_whole_waves_at_porep_size(rows):
    """At 2^27 bases (2^22 words a row), one or ten rows: the pass's threads fill BATCH_WAVES waves of the H200's
    resident threads, the last one at least 85% full (whole words a chunk: G2 one row 3.88; 2^17 threads, the rule
    before, left G1 at 2.59 waves), and the chunks cover every word exactly once."""
    from gpu.batch_add import BATCH_WAVES, RESIDENT_THREADS, chunk_plan

    words = 1 << 22
    for group in (G1_GROUP, G2_GROUP):
        chunk_words, chunks = chunk_plan(words, rows, group)
        waves = rows * chunks / RESIDENT_THREADS[group.degree]
        assert BATCH_WAVES - 0.15 <= waves <= BATCH_WAVES
        assert (chunks - 1) * chunk_words < words <= chunks * chunk_words


def _random_prep_and_key(rng, circuits=2, points=24):
    """A key with random query points and a prep from reference.prep.split_query, split and unsplit."""
    def query(base, count):
        return [multiply(base, rng.randrange(1, R)) for _ in range(count)]

    b_logs = [rng.randrange(1, R) for _ in range(points)]
    key = SimpleNamespace(
        h=query(G1, 3), l=query(G1, points), a=query(G1, points),
        b_g1=[multiply(G1, k) for k in b_logs], b_g2=[multiply(G2, k) for k in b_logs],
    )

    def scalars(mostly_ones):
        pick = [0, 1, 1, 1, 1, 1, 1, 1, 1, 2] if mostly_ones else [0, 5, R - 2, rng.randrange(R)]
        return [[rng.choice(pick) for _ in range(points)] for _ in range(circuits)]

    is_input = [i < 2 for i in range(points)]
    prep = SimpleNamespace(
        l=split_query(scalars(True), [False] * points),
        a=split_query(scalars(False), is_input),
        b=split_query(scalars(True), is_input),
    )
    return key, prep


def _assert_query_sums_equal(got, expected):
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert [encode_g1(g.l), encode_g1(g.a), encode_g1(g.b_g1), encode_g2(g.b_g2)] == [
            encode_g1(e.l), encode_g1(e.a), encode_g1(e.b_g1), encode_g2(e.b_g2)]


def _phases_on_device(key, prep, h):
    """gpu/'s batch_add, tail_msm and msm_h phase functions (the prover's), through conformance's conversions."""
    import gpu.batch_add
    import gpu.msm_h
    import gpu.tail_msm
    from conformance.backends.gpu import g1_from_device, prep_to_device, query_sums_from_device
    from gpu.msm import DeviceQueries
    from gpu.points import backend

    queries, splits = DeviceQueries.from_proving_key(key), prep_to_device(prep)
    device_h = backend().xp.asarray(scalars_to_montgomery_limbs(h)).reshape(1, len(h), -1)
    return (query_sums_from_device(gpu.batch_add.batch_add(splits, queries)),
            query_sums_from_device(gpu.tail_msm.tail_msm(splits, queries)),
            g1_from_device(gpu.msm_h.msm_h(device_h, queries.h))[0])


def _check_phases(rng, circuits, points):
    import reference.batch_add
    import reference.tail_msm

    key, prep = _random_prep_and_key(rng, circuits, points)
    assert prep.l.split and not prep.a.split, "the fixture must cover a split and an unsplit query"
    h = [rng.randrange(R) for _ in key.h]
    batch, tail, h_sum = _phases_on_device(key, prep, h)
    _assert_query_sums_equal(batch, reference.batch_add.batch_add(prep, key))
    _assert_query_sums_equal(tail, reference.tail_msm.tail_msm(prep, key))
    assert encode_g1(h_sum) == encode_g1(msm_naive(key.h, h, identity=Z1))


def test_emulated_phases_match_reference(emulated):
    """batch_add, tail_msm and msm_h through their phase functions, against reference/."""
    _check_phases(random.Random("phases"), 2, 24)


def test_emulated_phases_match_reference_with_batch_add_by_patterns(emulated, monkeypatch):
    """The same with every batch addition by circuit patterns (forced): five circuits, the four queries (B_G2 in G2)."""
    from gpu import batch_add

    monkeypatch.setattr(batch_add, "patterns_pay", lambda selected, n: True)
    monkeypatch.setattr(batch_add, "PATTERN_POINTS_PER_BUCKET", 1)  # segments of 2^5 bases: 40 points in two
    _check_phases(random.Random("phases-patterns"), 5, 40)


# ------------------------------------------------------------------ GPU tests


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["g1", "g2"])
@pytest.mark.parametrize("n", [1, 2, 31, 33, 237])
def test_gpu_msm_random_matches_naive(name, n):
    group, base, _ = GROUPS[name]
    rng = random.Random(f"gpu-naive-{name}-{n}")
    points = random_points(base, n, rng)
    scalars = [rng.randrange(R) for _ in range(n)]
    got = gpu_msm(points, [scalars], name)
    assert encode(got, name) == encode([msm_naive(points, scalars, identity=group.identity)], name)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["g1", "g2"])
@pytest.mark.parametrize("n", [(1 << 10) - 1, (1 << 10) + 1, (1 << 16) + 1])
def test_gpu_msm_known_logs(name, n):
    from gpu.msm import MsmEngine

    words, logs = known_log_bases(n, name, f"logs-{name}-{n}")
    rng = random.Random(f"logs-{name}-{n}")
    rows = [[rng.randrange(R) for _ in range(n)] for _ in range(2)]
    got = MsmEngine(words, GROUPS[name][0]).msm_ints(rows)
    assert encode(got, name) == encode([expected_from_logs(logs, row, name) for row in rows], name)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["g1", "g2"])
@pytest.mark.parametrize("kind", ["zeros", "ones", "r-1", "equal", "0/1/-1", "2^254", "(r-1)/2 and (r+1)/2",
                                  "near r/2"])
def test_gpu_msm_special_scalars(name, kind):
    from gpu.msm import MsmEngine

    n = 237
    words, logs = known_log_bases(n, name, f"special-{name}")
    scalars = special_scalars(kind, n, random.Random(f"special-{name}-{kind}"))
    for montgomery in (False, True):
        engine = MsmEngine(words, GROUPS[name][0])
        if montgomery:
            from gpu.points import backend

            limbs = backend().xp.asarray(scalars_to_montgomery_limbs(scalars))
            got = download_points(engine.msm(limbs, montgomery=True), GROUPS[name][0])
        else:
            got = engine.msm_ints([scalars])
        assert encode(got, name) == encode([expected_from_logs(logs, scalars, name)], name), montgomery


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["g1", "g2"])
def test_gpu_msm_doubling_cancellation_and_identity_bases(name):
    """Repeated bases with equal scalars (P + P in a bucket), P with -P, identity bases."""
    group, base, _ = GROUPS[name]
    rng = random.Random(f"gpu-degenerate-{name}")
    p, q = random_points(base, 2, rng)
    points = [p] * 40 + [q, neg(q)] * 20 + [group.identity] * 10 + random_points(base, 5, rng)
    s = rng.randrange(R)
    scalars = [s] * 80 + [rng.randrange(R) for _ in range(15)]
    expected = msm_naive(points, scalars, identity=group.identity)
    assert encode(gpu_msm(points, [scalars], name), name) == encode([expected], name)
    assert encode(gpu_msm([group.identity] * 9, [[rng.randrange(R) for _ in range(9)]], name), name) == encode(
        [group.identity], name)


@pytest.mark.gpu
@pytest.mark.parametrize("window_bits", [1, 2, 3, 4, 5, 8, 10, 15, 16, 17, 20])
def test_gpu_msm_window_widths(window_bits):
    """Widths dividing 255 or 256, 10 (the tails'), 17 (a top window of bit 255 and the carry) and 20 (msm_h's at
    2^27)."""
    from gpu.msm import MsmEngine

    n = 237
    words, logs = known_log_bases(n, "g1", "widths")
    rng = random.Random(f"widths-{window_bits}")
    scalars = [rng.randrange(R) for _ in range(n - 3)] + [R - 1, 1 << 254, (R - 1) // 2]
    got = MsmEngine(words, G1_GROUP).msm_ints([scalars], window_bits=window_bits)
    assert encode(got, "g1") == encode([expected_from_logs(logs, scalars, "g1")], "g1")


@pytest.mark.gpu
@pytest.mark.parametrize("window_bits", [5, 10, 16, 20])
def test_gpu_msm_g2_window_widths(window_bits):
    from gpu.msm import MsmEngine

    n = 100
    words, logs = known_log_bases(n, "g2", "g2-widths")
    rng = random.Random(f"g2-widths-{window_bits}")
    scalars = [rng.randrange(R) for _ in range(n)]
    got = MsmEngine(words, G2_GROUP).msm_ints([scalars], window_bits=window_bits)
    assert encode(got, "g2") == encode([expected_from_logs(logs, scalars, "g2")], "g2")


@pytest.mark.gpu
def test_gpu_msm_large_n_known_logs_and_repeatable():
    """2^20 + 1 G1 points (c = 16): device-made bases with known logs, three circuits, three runs
    bit-identical."""
    from gpu.msm import MsmEngine
    from gpu.points import backend

    n = (1 << 20) + 1
    words, logs = known_log_bases(n, "g1", "large")
    rng = np.random.default_rng(2026)
    rows = [[(int(x) << 192) % R for x in rng.integers(0, 1 << 62, n)]]  # only the top windows
    rows.append([int.from_bytes(rng.bytes(32), "little") % R for _ in range(n)])
    rows.append([R - 1 if i % 3 else 1 for i in range(n)])
    xp = backend().xp
    engine = MsmEngine(words, G1_GROUP)
    limbs = xp.asarray(np.stack([scalars_to_limbs(row, "row") for row in rows]))
    runs = [xp.asnumpy(engine.msm(limbs, montgomery=False)) for _ in range(3)]
    assert all(np.array_equal(runs[0], run) for run in runs[1:]), "repeated runs differ"
    got = download_points(runs[0], G1_GROUP)
    assert encode(got, "g1") == encode([expected_from_logs(logs, row, "g1") for row in rows], "g1")


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["g1", "g2"])
def test_gpu_msm_batch_of_tails_known_logs(name):
    """A tail_msm-shaped batch on the device: jobs over two base sets, through index lists (repeats allowed) and
    without, of several sizes and window widths, sharing passes; each row against its known-log sum; twice,
    bit-identical."""
    from gpu.msm import MsmJob, _passes, msm_batch
    from gpu.points import backend

    xp, group = backend().xp, GROUPS[name][0]
    rng = np.random.default_rng(18)
    sets = [known_log_bases(n, name, f"tails-{name}-{n}") for n in (5000, 3001)]
    jobs, expected = [], []
    for count, base_set, indexed in ((4000, 0, True), (4000, 1, True), (3001, 1, False), (1, 0, True), (0, 0, True),
                                     (300, 0, True), (5000, 0, False)):
        words, logs = sets[base_set]
        indices = rng.integers(0, len(logs), count) if indexed else np.arange(count)
        scalars = [int.from_bytes(rng.bytes(32), "little") % R for _ in range(count)]
        index_array = xp.asarray(indices.astype(np.uint32)) if indexed else None
        jobs.append(MsmJob(words, xp.asarray(scalars_to_limbs(scalars, "scalars")), index_array))
        expected.append(expected_from_logs([logs[i] for i in indices], scalars, name))
    assert any(len(members) > 1 for members, _ in _passes([job.count for job in jobs], group, None))
    runs = [xp.asnumpy(msm_batch(jobs, group, montgomery=False)) for _ in range(2)]
    assert np.array_equal(runs[0], runs[1]), "repeated runs differ"
    assert encode(download_points(runs[0], group), name) == encode(expected, name)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["g1", "g2"])
def test_gpu_batch_add_known_logs(name):
    from gpu.batch_add import BatchAdder

    group = GROUPS[name][0]
    n = 5000 if name == "g1" else 1000
    words, logs = known_log_bases(n, name, f"gpu-batch-{name}")
    rng = random.Random(f"gpu-batch-{name}")
    densities = [0.0, 0.5, 0.99, 1.0, 0.01]
    rows = [[rng.random() < d for _ in range(n)] for d in densities]
    adder = BatchAdder(words, group)
    for _ in range(2):  # the second call reuses the cached total
        got = download_points(adder.sums(bitmap_rows([bitmap_bytes(bits) for bits in rows], n)), group)
        expected = [expected_from_logs(logs, [int(b) for b in bits], name) for bits in rows]
        assert encode(got, name) == encode(expected, name)
        rows.reverse()


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["g1", "g2"])
def test_gpu_batch_add_by_patterns_known_logs(name, monkeypatch):
    """The pattern path forced on the device, in segments of 16 x 2^5 = 512 bases (10 at n = 5000, the last shorter),
    rows of every density: each row's sum against its bases' known logs."""
    from gpu import batch_add
    from gpu.batch_add import BatchAdder

    monkeypatch.setattr(batch_add, "patterns_pay", lambda selected, n: True)
    monkeypatch.setattr(batch_add, "PATTERN_POINTS_PER_BUCKET", 16)
    group = GROUPS[name][0]
    n = 5000
    words, logs = known_log_bases(n, name, f"gpu-patterns-{name}")
    rng = random.Random(f"gpu-patterns-{name}")
    rows = [[rng.random() < d for _ in range(n)] for d in (0.0, 0.5, 0.99, 1.0, 0.01)]
    got = download_points(BatchAdder(words, group).sums(bitmap_rows([bitmap_bytes(bits) for bits in rows], n)), group)
    expected = [expected_from_logs(logs, [int(b) for b in bits], name) for bits in rows]
    assert encode(got, name) == encode(expected, name)


@pytest.mark.gpu
def test_gpu_batch_add_device_bitmaps_counted_on_device():
    from gpu.batch_add import BatchAdder
    from gpu.points import backend

    n = 3000
    words, logs = known_log_bases(n, "g1", "device-bitmaps")
    rng = np.random.default_rng(7)
    bits = rng.random((3, n)) < np.array([[0.3], [0.8], [0.999]])
    packed = np.packbits(bits, axis=1, bitorder="little")
    packed = np.pad(packed, ((0, 0), (0, (-packed.shape[1]) % 4)))
    xp = backend().xp
    got = download_points(BatchAdder(words, G1_GROUP).sums(xp.asarray(packed.view("<u4").astype(np.uint32))), G1_GROUP)
    expected = [expected_from_logs(logs, row.astype(int).tolist(), "g1") for row in bits]
    assert encode(got, "g1") == encode(expected, "g1")


@pytest.mark.gpu
def test_gpu_phases_match_reference():
    _check_phases(random.Random("gpu-phases"), 3, 40)


def test_emulated_batch_add_total_published_only_once_computed(emulated):
    """The total of all bases that BatchAdder keeps (shared by every block of a call: gpu/multi.py runs several blocks
    on one device, each on a stream of its own, over the same DeviceQueries) is handed to other callers only once the
    work that computes it has been waited for (Backend.check): published while its launches were still queued, a
    block on another stream could read it before it is written (audit 45: a complement row's sum T - sum_clear from
    an unwritten T). Here launches run at once but count as queued until a check or a download, as on a stream."""
    from gpu import batch_add
    from gpu.points import Backend, backend, use_backend

    host = backend()
    queued = []

    def launch(kernel, grid, block, args, what):
        host.launch(kernel, grid, block, args, what)
        queued.append(what)

    def check(what):
        host.check(what)
        queued.clear()

    def asnumpy(array):  # a device-to-host copy waits for the stream
        queued.clear()
        return host.xp.asnumpy(array)

    xp = SimpleNamespace(**{**vars(host.xp), "asnumpy": asnumpy})
    published = []

    class WatchedAdder(batch_add.BatchAdder):
        @property
        def _total(self):
            return self.__dict__.get("_watched_total")

        @_total.setter
        def _total(self, value):
            if value is not None:
                published.append(list(queued))
            self.__dict__["_watched_total"] = value

    group = GROUPS["g1"][0]
    n = 70
    words, logs = known_log_bases(n, "g1", "batch-total-published")
    rows = [[i != 17 for i in range(n)], [i % 3 == 0 for i in range(n)]]  # a complement row: the total is made
    stream_like = Backend(xp=xp, load=host.load, launch=launch, check=check, reserve=host.reserve, address=host.address)
    with use_backend(stream_like):
        adder = WatchedAdder(words, group)
        got = download_points(adder.sums(bitmap_rows([bitmap_bytes(bits) for bits in rows], n)), group)
    assert encode(got, "g1") == encode([expected_from_logs(logs, [int(b) for b in bits], "g1") for bits in rows], "g1")
    assert published == [[]], f"the total was published with launches still queued: {published}"
