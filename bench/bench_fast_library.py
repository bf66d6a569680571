"""Choose the independent BLS12-381 library (issue 16) by measurement: py-arkworks-bls12381 vs pyblst.

    python bench/bench_fast_library.py            # prints a Markdown table; RESULTS_fast_library.md quotes it

Each library is fed *our* encodings (ZCash compressed G1 48 B / G2 96 B, big-endian 32-byte scalars,
vectors/FORMAT.md) and must agree bit for bit with py_ecc / the reference on a few points before it is
timed. Timed: G1 MSM of 2^12 and 2^14 points, G2 MSM of 2^12, decompression + subgroup check of 10k G1
points, one Groth16-shaped pairing check (4 pairs). The pure-Python reference runs the same operations at
smaller sizes. Median of REPEATS runs after one warm-up; wall-clock time (CPU-only libraries).
pyblst has no multi-scalar multiplication: its MSM is a Python loop of scalar_mul and add.
"""
import argparse
import importlib.util
import random
import statistics
import sys
import time
from importlib.metadata import version
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from py_ecc.optimized_bls12_381 import G1, G2, multiply, neg  # noqa: E402

from reference.encoding import g1_from_bytes, g1_to_bytes, g2_to_bytes  # noqa: E402
from reference.field import R  # noqa: E402
from reference.msm import msm  # noqa: E402
from reference.verifier import pairing_product_is_one  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/: output_folders
from output_folders import ArgumentParser  # noqa: E402

REPEATS = 3
SEED = 16
LIBRARY_SIZES = {"g1_msm": (1 << 12, 1 << 14), "g2_msm": (1 << 12,), "decode": 10_000}
REFERENCE_SIZES = {"g1_msm": 1 << 8, "g2_msm": 1 << 6, "decode": 200}
"""The reference is 1000x slower: smaller sizes, reported per point so that rows compare."""
SCALAR_BYTES = 32


def median_seconds(run) -> float:
    run()  # warm-up
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def random_scalars(rng: random.Random, n: int) -> list[int]:
    return [rng.randrange(R) for _ in range(n)]


# ---- encodings of random points, made fast with arkworks (checked below against py_ecc) -----------


def random_point_encodings(rng, n: int, group: str) -> list[bytes]:
    """Compressed encodings of n random multiples of the generator: P_{i+1} = P_i + k G (k random)."""
    import py_arkworks_bls12381 as ark

    point_type = ark.G1Point if group == "g1" else ark.G2Point
    step = point_type() * ark.Scalar(rng.randrange(1, R))
    point, out = step, []
    for _ in range(n):
        out.append(point.to_compressed_bytes())
        point = point + step
    return out


# ---- agreement with py_ecc on a few points ---------------------------------------------------------


def _require(agrees: bool, what: str) -> None:
    """A check that also runs under python -O (an assert would not, and the agreement line would print unchecked)."""
    if not agrees:
        raise SystemExit(f"error: {what}: differs from py_ecc")


def agreement_checks() -> list[str]:
    """Both libraries decode our encodings, multiply by big-endian scalars and re-encode exactly as py_ecc."""
    import py_arkworks_bls12381 as ark
    import pyblst

    rng = random.Random(SEED)
    lines = []
    for group, generator, to_bytes, ark_type, blst_type in (
        ("G1", G1, g1_to_bytes, ark.G1Point, pyblst.BlstP1Element),
        ("G2", G2, g2_to_bytes, ark.G2Point, pyblst.BlstP2Element),
    ):
        for _ in range(4):
            k, s = rng.randrange(1, R), rng.randrange(R)
            encoding = to_bytes(multiply(generator, k))
            want = to_bytes(multiply(generator, k * s % R))
            ark_scalar = ark.Scalar.from_be_bytes(s.to_bytes(SCALAR_BYTES, "big"))
            _require((ark_type.from_compressed_bytes(encoding) * ark_scalar).to_compressed_bytes() == want, f"arkworks {group} k*s")
            _require(ark_type.from_compressed_bytes(encoding).to_compressed_bytes() == encoding, f"arkworks {group} re-encoding")
            _require(blst_type.uncompress(encoding).scalar_mul(s).compress() == want, f"pyblst {group} k*s")
        identity = to_bytes(multiply(generator, 0))
        _require(ark_type.from_compressed_bytes(identity).to_compressed_bytes() == identity, f"arkworks {group} identity")
        _require(blst_type.uncompress(identity).compress() == identity, f"pyblst {group} identity")
        lines.append(f"{group}: 4 random points x scalars and the identity: both libraries agree bit for bit with py_ecc")
    return lines


def off_subgroup_g1() -> bytes:
    """The compressed encoding of a point on E(Fq) outside the order-r subgroup (the first x that gives one)."""
    from py_ecc.optimized_bls12_381 import FQ

    from reference.subgroup import g1_affine_in_subgroup

    p = FQ.field_modulus
    x = 0
    while True:
        x += 1
        rhs = (x ** 3 + 4) % p
        y = pow(rhs, (p + 1) // 4, p)
        if y * y % p == rhs and not g1_affine_in_subgroup(x, y):
            flags = 0x80 | (0x20 if y > (p - 1) // 2 else 0)
            body = x.to_bytes(48, "big")
            return bytes([body[0] | flags]) + body[1:]


def subgroup_refusals() -> list[str]:
    import py_arkworks_bls12381 as ark
    import pyblst

    bad = off_subgroup_g1()
    lines = []
    for name, decode in (("arkworks from_compressed_bytes", ark.G1Point.from_compressed_bytes),
                         ("pyblst uncompress", pyblst.BlstP1Element.uncompress)):
        try:
            decode(bad)
            lines.append(f"{name}: ACCEPTS an on-curve G1 point outside the subgroup")
        except Exception as exc:  # the refusal we want
            lines.append(f"{name}: refuses an on-curve G1 point outside the subgroup ({type(exc).__name__}: {exc})")
    return lines


# ---- timings ---------------------------------------------------------------------------------------


def arkworks_rows(rng) -> dict:
    import py_arkworks_bls12381 as ark

    rows = {}
    for group, sizes, point_type in (("g1", LIBRARY_SIZES["g1_msm"], ark.G1Point), ("g2", LIBRARY_SIZES["g2_msm"], ark.G2Point)):
        for n in sizes:
            points = [point_type.from_compressed_bytes(b) for b in random_point_encodings(rng, n, group)]
            scalars = [ark.Scalar.from_be_bytes(s.to_bytes(SCALAR_BYTES, "big")) for s in random_scalars(rng, n)]
            rows[f"{group.upper()} MSM 2^{n.bit_length() - 1}"] = median_seconds(lambda: point_type.multiexp_unchecked(points, scalars))
    encodings = random_point_encodings(rng, LIBRARY_SIZES["decode"], "g1")
    rows[f"decompress + subgroup check, {LIBRARY_SIZES['decode']} G1"] = median_seconds(
        lambda: [ark.G1Point.from_compressed_bytes(b) for b in encodings])
    rows["pairing check (4 pairs)"] = median_seconds(lambda: ark.GT.pairing_check(*_ark_pairs(ark)))
    return rows


def _ark_pairs(ark):
    """e(aG1, bG2) e(-abG1, G2) = 1 plus a cancelling pair: a Groth16-shaped 4-pair check that holds."""
    a, b = ark.Scalar(12345), ark.Scalar(67890)
    g1, g2 = ark.G1Point(), ark.G2Point()
    return [g1 * a, -(g1 * (a * b)), g1, -g1], [g2 * b, g2, g2 * b, g2 * b]


def pyblst_rows(rng) -> dict:
    import pyblst

    rows = {}
    for group, sizes, point_type in (("g1", LIBRARY_SIZES["g1_msm"], pyblst.BlstP1Element), ("g2", LIBRARY_SIZES["g2_msm"], pyblst.BlstP2Element)):
        for n in sizes:
            points = [point_type.uncompress(b) for b in random_point_encodings(rng, n, group)]
            scalars = random_scalars(rng, n)
            def loop_msm(points=points, scalars=scalars, identity=point_type()):  # BlstP1Element() is the identity
                total = identity
                for p, s in zip(points, scalars):
                    total = total + p.scalar_mul(s)
                return total
            rows[f"{group.upper()} MSM 2^{n.bit_length() - 1}"] = median_seconds(loop_msm)
    encodings = random_point_encodings(rng, LIBRARY_SIZES["decode"], "g1")
    rows[f"decompress + subgroup check, {LIBRARY_SIZES['decode']} G1"] = median_seconds(
        lambda: [pyblst.BlstP1Element.uncompress(b) for b in encodings])
    g1, g2 = pyblst.BlstP1Element.uncompress(g1_to_bytes(G1)), pyblst.BlstP2Element.uncompress(g2_to_bytes(G2))
    def pairing_check():
        a, b = 12345, 67890
        left = pyblst.miller_loop(g1.scalar_mul(a), g2.scalar_mul(b)) * pyblst.miller_loop(g1, g2.scalar_mul(b))
        right = pyblst.miller_loop(g1.scalar_mul(a * b), g2) * pyblst.miller_loop(g1, g2.scalar_mul(b))
        assert pyblst.final_verify(left, right)
    rows["pairing check (4 pairs)"] = median_seconds(pairing_check)
    return rows


def reference_rows(rng) -> dict:
    rows = {}
    for group, generator, n in (("G1", G1, REFERENCE_SIZES["g1_msm"]), ("G2", G2, REFERENCE_SIZES["g2_msm"])):
        points = [multiply(generator, rng.randrange(1, R)) for _ in range(n)]
        scalars = random_scalars(rng, n)
        identity = multiply(generator, 0)
        rows[f"{group} MSM 2^{n.bit_length() - 1}"] = median_seconds(lambda: msm(points, scalars, identity=identity))
    encodings = [g1_to_bytes(multiply(G1, rng.randrange(1, R))) for _ in range(REFERENCE_SIZES["decode"])]
    rows[f"decompress + subgroup check, {REFERENCE_SIZES['decode']} G1"] = median_seconds(lambda: [g1_from_bytes(b) for b in encodings])
    a, b = 12345, 67890
    pairs = [(multiply(G1, a), multiply(G2, b)), (neg(multiply(G1, a * b)), G2), (G1, multiply(G2, b)), (neg(G1), multiply(G2, b))]
    rows["pairing check (4 pairs)"] = median_seconds(lambda: pairing_product_is_one(pairs))
    return rows


LIBRARIES = {"py_arkworks_bls12381": "py-arkworks-bls12381", "pyblst": "pyblst"}
"""The libraries compared (module: package to install); both must be installed."""


def main(argv=None) -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.parse_args(argv)
    missing = [package for module, package in LIBRARIES.items() if importlib.util.find_spec(module) is None]
    if missing:
        print(f"error: {missing[0]}: not installed (pip install {' '.join(missing)}): this benchmark times both "
              f"{' and '.join(LIBRARIES.values())}", file=sys.stderr)
        return 2
    print(f"py-arkworks-bls12381 {version('py-arkworks-bls12381')}, pyblst {version('pyblst')}, py_ecc {version('py_ecc')}, "
          f"Python {sys.version.split()[0]}")
    for line in agreement_checks() + subgroup_refusals():
        print("- " + line)
    rng = random.Random(SEED)
    results = {"py-arkworks-bls12381": arkworks_rows(rng), "pyblst": pyblst_rows(rng), "reference (py_ecc)": reference_rows(rng)}
    for library, rows in results.items():
        print(f"\n| {library} | median seconds |\n|---|---|")
        for name, seconds in rows.items():
            print(f"| {name} | {seconds:.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
