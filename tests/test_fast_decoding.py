"""Point decoding with the fast library (vectors/decoding.py, vectors/fast_library.py) against the definition,
reference/encoding.py.

A differential test (hypothesis) over random and mutated encodings: valid points, points on the curve outside the
prime-order subgroup, points off the curve, non-canonical flags and identities, coordinates >= p, wrong lengths,
random byte flips. For each, the fast path and the reference make the same decision, refuse with the same
`field: problem`, or return the same point. Then the batch semantics (first refused element named, order kept across
a process pool, identity refusal, prepare errors) and the readers (vector, zkey, bellman) decoded both ways.
Skipped, with the reason printed (-ra), where py-arkworks-bls12381 is not installed, except the tests that the
readers work without it.
"""
import functools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from py_ecc.optimized_bls12_381 import G1, G2, multiply, neg

from reference.curve import G1_INTS, G2_INTS
from reference.encoding import (
    COMPRESSION_FLAG,
    FQ_BYTES,
    G1_COMPRESSED_BYTES,
    G2_COMPRESSED_BYTES,
    INFINITY_FLAG,
    SORT_FLAG,
    g1_from_bytes,
    g1_to_bytes,
    g2_from_bytes,
    g2_to_bytes,
)
from reference.errors import InvalidInputError, PointEncodingError, ToolkitError
from reference.field import P
from vectors import decoding, fast_library
from vectors.bellman import parameters_bytes, parse_parameters
from vectors.bundled import DATA_DIR
from vectors.decoding import PointDecoder
from vectors.format import load_vector, point_from_hex
from vectors.snarkjs import parse_zkey

MISSING = fast_library.unavailable_reason()
needs_library = pytest.mark.skipif(MISSING is not None, reason=f"skipped: {MISSING}")
INTEROP = DATA_DIR.parent.parent / "interop" / "snarkjs"
GROUPS = {
    "g1": (G1, G1_INTS, g1_to_bytes, g1_from_bytes),
    "g2": (G2, G2_INTS, g2_to_bytes, g2_from_bytes),
}
COMPRESSED_BYTES = {"g1": G1_COMPRESSED_BYTES, "g2": G2_COMPRESSED_BYTES}
POINTS_PER_KIND = 3
"""Valid points and points outside the subgroup drawn per group, once (the mutations do the rest)."""
EXAMPLES = {"g1": 500, "g2": 300}
"""Hypothesis examples per group: about 5 s together on 2 cores (the reference decodes each)."""


def _settings(group: str):
    return settings(max_examples=EXAMPLES[group], deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))


@functools.cache
def _seed_encodings(group: str) -> list[bytes]:
    """Compressed and uncompressed encodings of valid points, the identity and on-curve points outside the subgroup."""
    generator, curve, to_bytes, _ = GROUPS[group]
    rng = random.Random(f"fast decoding {group}")
    valid = [multiply(generator, rng.randrange(1, 2**255)) for _ in range(POINTS_PER_KIND - 1)]
    valid.insert(1, neg(valid[0]))  # P and -P: both square roots, sort flag set on one of them
    seeds = [to_bytes(p, compressed=c) for p in valid + [multiply(generator, 0)] for c in (True, False)]
    for x, y in _outside_subgroup(curve, rng):
        seeds += [_raw_encoding(group, x, y, compressed=True), _raw_encoding(group, x, y, compressed=False)]
    return seeds


def _outside_subgroup(curve, rng: random.Random) -> list:
    """Affine (x, y) on the curve but (almost surely: the cofactor's share) outside the prime-order subgroup."""
    f, found = curve.field, []
    while len(found) < POINTS_PER_KIND:
        x = rng.randrange(P) if curve is G1_INTS else (rng.randrange(P), rng.randrange(P))
        y = f.sqrt(curve.rhs(x))
        if y is not None:
            found.append((x, y))
    return found


def _raw_encoding(group: str, x, y, compressed: bool) -> bytes:
    """The ZCash encoding of affine (x, y) as ints, with no validation (for points outside the subgroup)."""
    field = G1_INTS.field if group == "g1" else G2_INTS.field
    words = [x] if group == "g1" else [x[1], x[0]]
    if not compressed:
        words += [y] if group == "g1" else [y[1], y[0]]
    body = b"".join(w.to_bytes(FQ_BYTES, "big") for w in words)
    flags = (COMPRESSION_FLAG | (SORT_FLAG if field.is_largest(y) else 0)) if compressed else 0
    return bytes([body[0] | flags]) + body[1:]


def _set_word(data: bytes, index: int, value: int) -> bytes:
    """``data`` with its index-th 48-byte word replaced by ``value``'s low 381 bits, the first byte's flag bits kept."""
    words = bytearray(data)
    chunk = bytearray((value % (1 << 381)).to_bytes(FQ_BYTES, "big"))
    if index == 0:
        chunk[0] |= data[0] & 0xE0
    words[index * FQ_BYTES : (index + 1) * FQ_BYTES] = chunk
    return bytes(words)


MUTATIONS = {
    "none": lambda data, rng: data,
    "negate": lambda data, rng: bytes([data[0] ^ (SORT_FLAG if data[0] & COMPRESSION_FLAG else 0)]) + data[1:],
    "flip flag": lambda data, rng: bytes([data[0] ^ rng.choice((COMPRESSION_FLAG, INFINITY_FLAG, SORT_FLAG))]) + data[1:],
    "flip byte": lambda data, rng: _flip_byte(data, rng),
    "word >= p": lambda data, rng: _set_word(data, rng.randrange(len(data) // FQ_BYTES), P + rng.choice((0, 1, rng.randrange(1 << 380)))),
    "word := small": lambda data, rng: _set_word(data, rng.randrange(len(data) // FQ_BYTES), rng.choice((0, 1, 2, 4, P - 1))),
    "all zero": lambda data, rng: bytes(len(data)),
    "identity with bits": lambda data, rng: bytes([(data[0] & COMPRESSION_FLAG) | INFINITY_FLAG | rng.choice((0, SORT_FLAG, 1))]) + bytes(len(data) - 2) + bytes([rng.choice((0, 1))]),
    "truncate": lambda data, rng: data[: rng.randrange(len(data))],
    "extend": lambda data, rng: data + bytes(rng.randrange(1, 3)),
}


def _flip_byte(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    return bytes(out)


def _outcome(decode):
    """('ok', point) or ('refused', error type, field, problem)."""
    try:
        return ("ok", decode())
    except InvalidInputError as exc:
        return ("refused", type(exc).__name__, exc.field, exc.problem)


def _assert_same_decision(group: str, data: bytes, compressed: bool) -> tuple:
    reference_decode = GROUPS[group][3]
    expected = _outcome(lambda: reference_decode(data, "key.h[3]", compressed=compressed))
    got = _outcome(lambda: PointDecoder().one(data, group, "key.h[3]", compressed=compressed))
    assert got == expected, f"{group} {'compressed' if compressed else 'uncompressed'} {data.hex()}"
    return expected


def _differential(group: str):
    @needs_library
    @_settings(group)
    @given(seed=st.integers(0, 6 * POINTS_PER_KIND + 1), mutation=st.sampled_from(sorted(MUTATIONS)), rng=st.randoms(use_true_random=False))
    def test(seed, mutation, rng):
        seeds = _seed_encodings(group)
        original = seeds[seed % len(seeds)]
        compressed = len(original) == COMPRESSED_BYTES[group]
        _assert_same_decision(group, MUTATIONS[mutation](original, rng), compressed)

    return test


test_g1_fast_decoding_agrees_with_the_reference = _differential("g1")
test_g2_fast_decoding_agrees_with_the_reference = _differential("g2")


@needs_library
@pytest.mark.parametrize("group", ["g1", "g2"])
def test_the_seeds_cover_every_decision(group):
    """The differential test's seeds: valid points decode (both sort-flag roots), identities decode, and the points
    outside the subgroup are refused for exactly that reason by both paths (the test would be vacuous otherwise)."""
    outcomes = [_assert_same_decision(group, data, compressed=bool(data[0] & COMPRESSION_FLAG)) for data in _seed_encodings(group)]
    valid = 2 * (POINTS_PER_KIND + 1)
    assert all(o[0] == "ok" for o in outcomes[:valid])
    assert {o[3] for o in outcomes[valid:]} == {"not in the prime-order subgroup"}
    sorts = {data[0] & SORT_FLAG for data in _seed_encodings(group)[: 2 * POINTS_PER_KIND : 2]}
    assert sorts == {0, SORT_FLAG}, "both square roots (sort flag set and clear) among the valid compressed seeds"


@needs_library
def test_uncompressed_zero_coordinates_are_refused_as_the_reference_does():
    """The library reads x = y = 0 as the identity; the format says: not on the curve (no infinity flag)."""
    for group, size in (("g1", 96), ("g2", 192)):
        outcome = _assert_same_decision(group, bytes(size), compressed=False)
        assert outcome[0] == "refused" and outcome[3].startswith("not on the curve")


# ----------------------------------------------------------------------------------------------
# Many points: order, the first refused element, the pool


OFF_CURVE_G1_COMPRESSED = bytes([COMPRESSION_FLAG]) + bytes(FQ_BYTES - 2) + b"\x01"
"""x = 1: 1^3 + 4 = 5 is not a square mod p, so no point of G1 has this x."""


def _valid_g1(count: int) -> list[bytes]:
    seeds = [data for data in _seed_encodings("g1")[: 2 * POINTS_PER_KIND] if data[0] & COMPRESSION_FLAG]
    return [seeds[i % len(seeds)] for i in range(count)]


def _both_outcomes(items, group="g1", **options):
    where = "proving_key.h"
    return (
        _outcome(lambda: PointDecoder(workers=2).many(items, group, where, **options)),
        _outcome(lambda: PointDecoder(reference=True).many(items, group, where, **options)),
    )


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 8 points and the pool from 16 points on: a few dozen points cross chunk and process boundaries."""
    monkeypatch.setattr(decoding, "CHUNK_POINTS", 8)
    monkeypatch.setattr(decoding, "POOL_MIN_POINTS", 16)
    monkeypatch.setattr(decoding, "PROGRESS_MIN_POINTS", 16)


@needs_library
def test_many_points_through_the_pool_keep_their_order(small_chunks):
    items = _valid_g1(40)
    fast, reference = _both_outcomes(items)
    assert fast == reference and fast[0] == "ok" and len(fast[1]) == 40


@needs_library
@pytest.mark.parametrize("bad_positions", [(0,), (9,), (17, 30), (39,)])
def test_the_first_refused_element_is_named_as_the_reference_names_it(small_chunks, bad_positions):
    items = _valid_g1(40)
    off_curve = OFF_CURVE_G1_COMPRESSED
    non_canonical = bytes([COMPRESSION_FLAG | INFINITY_FLAG]) + bytes(FQ_BYTES - 2) + b"\x01"
    for k, position in enumerate(bad_positions):
        items[position] = (off_curve, non_canonical)[k % 2]
    fast, reference = _both_outcomes(items)
    assert fast == reference
    assert fast[2] == f"proving_key.h[{bad_positions[0]}]"


@needs_library
def test_a_reader_error_before_a_point_error_is_reported_first(small_chunks):
    """prepare (hex) errors and point errors count in one order: the first bad element, whatever its problem."""
    items = [data.hex() for data in _valid_g1(40)]
    items[25] = "zz"
    items[31] = OFF_CURVE_G1_COMPRESSED.hex()
    prepare = functools.partial(point_from_hex, "g1")
    fast, reference = _both_outcomes(items, prepare=prepare)
    assert fast == reference and fast[2] == "proving_key.h[25]"
    items[25] = items[0]
    fast, reference = _both_outcomes(items, prepare=prepare)
    assert fast == reference and fast[2] == "proving_key.h[31]" and fast[3].startswith("not on the curve")


@needs_library
def test_identity_refused_where_asked(small_chunks):
    items = [g1_to_bytes(multiply(G1, k), compressed=False) for k in range(1, 21)]
    items[18] = g1_to_bytes(multiply(G1, 0), compressed=False)
    fast, reference = _both_outcomes(items, compressed=False, identity_problem="is the point at infinity here")
    assert fast == reference == ("refused", "PointEncodingError", "proving_key.h[18]", "is the point at infinity here")


@needs_library
def test_a_refusal_the_reference_does_not_confirm_is_an_error(monkeypatch):
    """If the library refused a point the reference accepts, decoding stops with an internal error naming the point."""
    monkeypatch.setattr(fast_library, "decode_zcash_many", lambda encodings, g2, compressed: ([], 0))
    with pytest.raises(ToolkitError, match=r"key\.h\[0\]: py-arkworks-bls12381 .* refuses this point but the reference decoder accepts it"):
        PointDecoder().many(_valid_g1(2), "g1", "key.h")


def test_progress_names_the_array_and_how_far(small_chunks):
    lines = []
    PointDecoder(progress=lines.append).many(_valid_g1(40), "g1", "proving_key.l")
    assert lines[0] == "proving_key.l: 8/40 G1 points decoded" and lines[-1] == "proving_key.l: 40/40 G1 points decoded"
    assert len(lines) <= 1 + int(1 / decoding.PROGRESS_STEP) + 1
    lines.clear()
    PointDecoder(progress=lines.append).many(_valid_g1(15), "g1", "proving_key.l")
    assert lines == [], "a short array reports nothing"


def test_without_the_library_the_reference_decodes(monkeypatch):
    monkeypatch.setattr(fast_library, "available", lambda: False)
    decoder = PointDecoder()
    assert not decoder.fast
    assert decoder.many(_valid_g1(3), "g1", "x") == [g1_from_bytes(d, "x") for d in _valid_g1(3)]
    with pytest.raises(PointEncodingError, match="not on the curve"):
        decoder.one(OFF_CURVE_G1_COMPRESSED, "g1", "x")


# ----------------------------------------------------------------------------------------------
# The readers, decoded both ways


@needs_library
def test_a_vector_loads_the_same_with_the_library_and_with_the_reference():
    path = DATA_DIR / "porep-log05.json"
    fast, reference = load_vector(path), load_vector(path, reference=True)
    assert fast.pk == reference.pk
    assert [c.expected for c in fast.circuits] == [c.expected for c in reference.circuits]


@needs_library
def test_a_zkey_and_a_bellman_parameters_file_decode_the_same_both_ways():
    data = (INTEROP / "circuit.zkey").read_bytes()
    assert parse_zkey(data, "circuit.zkey") == parse_zkey(data, "circuit.zkey", PointDecoder(reference=True))
    vector = load_vector(DATA_DIR / "porep-log05.json")
    params = parameters_bytes(vector.pk)
    assert parse_parameters(params, vector.r1cs) == parse_parameters(params, vector.r1cs, decoder=PointDecoder(reference=True)) == vector.pk
