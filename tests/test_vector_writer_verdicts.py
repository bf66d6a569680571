"""vectors/format.py, the writer: every field a vector file holds is written where FORMAT.md puts it, in its one
canonical form, and a file is written whole or not at all (a mutation audit of the writer, 2026-12-07: bitmap_json,
_ArrayWriter, _scalars_hex, vector_document, _sums_document, _circuit_document, document_bytes, write_vector,
write_files_atomically: 67 mutants, 53 killed by the tests that reached the writer before, all 14 survivors killed
here, none equivalent).

Mutants that passed every test reaching the writer before this file (all killed here):

* _ArrayWriter keeping an array of exactly --sidecar-min elements inline (< made <=): no bundled vector has an array
  of exactly 64 elements;
* vector_document writing an id, a comment or a flag list its readers refuse (each of its three checks removed): the
  commands check first, so no test gave the writer one; _circuit_document sending public_inputs to a sidecar;
* write_vector keeping '.json' in the sidecars' stem, taking Path.stem (an --out without .json), writing the sidecars
  into the working directory instead of the JSON file's folder, or not passing its inputs on (a vector written over
  the file it was read from): write_vector was reached by three tests only (bellman imports, a check refusal), none
  with sidecars;
* write_files_atomically without check_outputs (an input overwritten; the commands refuse that first), leaving the
  replaced file's second name (.old) behind, returning the temporary names instead of the targets;
* _write_temporary leaving the files 0600 (no chmod) or leaving its temporary behind when it cannot finish it.

The run measured: each mutant against the tests covering its lines (coverage, per test), fastest first; the
survivors then against every covering test but two slow ones (test_bundled_vector_reproduces_bit_for_bit[random-log11]
and the large-file conformance test), except the comment and flag checks, measured on the fast tests only (they
are guarded by the same command-line checks as the id's, which survived the whole set). No product defect found.

The vector here is built by hand (a Vector of two circuits whose every point is k*G for its own k, every scalar its own
small number or r - 1), so each field's expected text is written out from FORMAT.md, not computed by the writer: points
by py_ecc's ZCash compression (not reference/encoding.py), pinned by the generators' published encodings; scalars as
64 lowercase hex digits, big-endian; bitmaps byte by byte; sidecar digests by hashlib over bytes assembled here.
"""
import copy
import hashlib
import json
import os
import stat

import pytest
from py_ecc.bls.point_compression import compress_G1, compress_G2
from py_ecc.optimized_bls12_381 import G1, G2, multiply

from reference.assemble import Proof
from reference.domain import BELLMAN
from reference.errors import InvalidInputError
from reference.evaluate import Evaluations
from reference.field import R
from reference.keys import ProvingKey, QuerySums, VerifyingKey
from reference.prep import Prep, QuerySplit
from reference.prover import CircuitOutputs, Witness
from reference.r1cs import R1CS, Density
from reference.setup import Trapdoor
from vectors.format import (
    CircuitCase, Vector, bitmap_json, document_bytes, vector_document, write_files_atomically,
    write_vector,
)
from vectors.format import _scalars_hex as scalars_hex

G1_GENERATOR = ("97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")
"""The G1 generator, ZCash-compressed (the encoding zkcrypto/bls12_381 and the IETF pairing-curves draft publish)."""
G2_GENERATOR = ("93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
                "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8")
R_MINUS_1 = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000"
BANNER = "TEST-ONLY deterministic setup: the secrets are derived from a public seed; these keys are NOT secure"


def g1(k: int) -> tuple:
    return multiply(G1, k)


def g2(k: int) -> tuple:
    return multiply(G2, k)


def hex_g1(k: int) -> str:
    return compress_G1(g1(k)).to_bytes(48, "big").hex()


def hex_g2(k: int) -> str:
    c1, c0 = compress_G2(g2(k))  # x.c1 (with the flag bits) then x.c0 (FORMAT.md, Encodings)
    return (c1.to_bytes(48, "big") + c0.to_bytes(48, "big")).hex()


def sc(value: int) -> str:
    """A small scalar as FORMAT.md writes it: 64 hex digits, zeros in front (the helper is pinned below)."""
    digits = "%x" % value
    return "0" * (64 - len(digits)) + digits


def test_the_helpers_write_what_format_md_says():
    assert hex_g1(1) == G1_GENERATOR and hex_g2(1) == G2_GENERATOR
    assert sc(0x1234) == "0000000000000000000000000000000000000000000000000000000000001234"
    assert sc(R - 1) == R_MINUS_1


# ----------------------------------------------------------------------------------------------
# The hand-built vector: 2 inputs (ONE and one public), 3 aux, 2 constraints: rows 4, n 4.

R1 = R1CS(
    num_inputs=2, num_aux=3,
    a=(((2, 1),), ((0, 5), (3, 0x1234))),
    b=(((1, 1),), ((4, R - 1),)),
    c=(((2, 7),), ((0, 3),)),
)
DENSITY = Density(a_aux=(True, False, True), b_input=(False, True), b_aux=(False, True, False))
VK = VerifyingKey(alpha_g1=g1(1), beta_g1=g1(2), beta_g2=g2(3), gamma_g2=g2(4), delta_g1=g1(5), delta_g2=g2(6),
                  ic=(g1(7), g1(8)))
PK = ProvingKey(vk=VK, h=(g1(9), g1(10), g1(11)), l=(g1(12), g1(13), g1(14)), a=(g1(15), g1(16), g1(17), g1(18)),
                b_g1=(g1(19),), b_g2=(g2(20),), density=DENSITY)
PREP = Prep(
    l=QuerySplit(split=True, tail_indices=(0, 2), bitmaps=(bytes([2, 0, 0, 0, 0, 0, 0, 0]), bytes([1]) + bytes(7)),
                 tail_scalars=((5, 6), (7, R - 1))),
    a=QuerySplit(split=False, tail_indices=(0, 1, 2, 3), bitmaps=(bytes(8), bytes([8, 0, 0, 0, 0, 0, 0, 0])),
                 tail_scalars=((1, 2, 3, 4), (0, 0, 0, 9))),
    b=QuerySplit(split=False, tail_indices=(0,), bitmaps=(bytes([1, 0, 0, 0, 0, 0, 0, 0]), bytes(8)),
                 tail_scalars=((0,), (0x77,))),
)


def _outputs(c: int) -> CircuitOutputs:
    """Circuit c's expected outputs: scalars 1000c + j, points (100 + 50c + j) * G."""
    k = 100 + 50 * c
    return CircuitOutputs(
        evaluate=Evaluations(a=tuple(1000 * c + j for j in range(1, 5)), b=tuple(1000 * c + j for j in range(11, 15)),
                             c=tuple(1000 * c + j for j in range(21, 25))),
        ntt_h=tuple(1000 * c + j for j in range(31, 34)),
        msm_h=g1(k),
        prep=PREP,
        batch_add=QuerySums(l=g1(k + 1), a=g1(k + 2), b_g1=g1(k + 3), b_g2=g2(k + 4)),
        tail_msm=QuerySums(l=g1(k + 5), a=g1(k + 6), b_g1=g1(k + 7), b_g2=g2(k + 8)),
        assemble=Proof(a=g1(k + 9), b=g2(k + 10), c=g1(k + 11)),
    )


WITNESSES = [Witness(public_inputs=[0x1234], aux=[1, 0, R - 1], r=3, s=0xABC),
             Witness(public_inputs=[2], aux=[4, 5, 6], r=7, s=8)]
COMPUTED_BY = {"proving_key": "reference", "evaluate": "reference", "ntt_h": "reference", "msm_h": "reference",
               "prep": "reference", "batch_add": "reference", "tail_msm": "reference", "assemble": "reference"}


def hand_vector(**changes) -> Vector:
    fields = dict(
        id="hand", comment="built by hand", flags=["multi-circuit", "edge-bases"], convention=BELLMAN, r1cs=R1, pk=PK,
        circuits=[CircuitCase(witness=w, expected=_outputs(c)) for c, w in enumerate(WITNESSES)],
        trapdoor=Trapdoor(tau=0x11, alpha=0x22, beta=0x33, gamma=0x44, delta=0x55), expected_prep=PREP,
        generator={"seed": "s"}, computed_by=dict(COMPUTED_BY),
    )
    fields.update(changes)
    return Vector(**fields)


def _expected_circuit(c: int, w: dict) -> dict:
    k = 100 + 50 * c
    tails = {0: (["0" * 63 + "5", "0" * 63 + "6"], [sc(1), sc(2), sc(3), sc(4)], [sc(0)]),
             1: (["0" * 63 + "7", R_MINUS_1], [sc(0), sc(0), sc(0), sc(9)], [sc(0x77)])}[c]
    bitmaps = {0: ("0200000000000000", "0000000000000000", "0100000000000000"),
               1: ("0100000000000000", "0800000000000000", "0000000000000000")}[c]
    return {
        **w,
        "expected": {
            "evaluate": {m: [sc(1000 * c + j) for j in range(first, first + 4)]
                         for m, first in zip("abc", (1, 11, 21))},
            "ntt_h": {"h": [sc(1000 * c + j) for j in range(31, 34)]},
            "msm_h": {"h": hex_g1(k)},
            "prep": {
                "l": {"bitmap": {"bits": 3, "hex": bitmaps[0]}, "tail_scalars": tails[0]},
                "a": {"bitmap": {"bits": 4, "hex": bitmaps[1]}, "tail_scalars": tails[1]},
                "b": {"bitmap": {"bits": 1, "hex": bitmaps[2]}, "tail_scalars": tails[2]},
            },
            "batch_add": {"l": hex_g1(k + 1), "a": hex_g1(k + 2), "b_g1": hex_g1(k + 3), "b_g2": hex_g2(k + 4)},
            "tail_msm": {"l": hex_g1(k + 5), "a": hex_g1(k + 6), "b_g1": hex_g1(k + 7), "b_g2": hex_g2(k + 8)},
            "proof": {"a": hex_g1(k + 9), "b": hex_g2(k + 10), "c": hex_g1(k + 11)},
        },
    }


ONE = "0000000000000000000000000000000000000000000000000000000000000001"
EXPECTED = {
    "format": "groth16-bls12-381-test-vector",
    "format_version": 1,
    "id": "hand",
    "comment": "built by hand",
    "flags": ["multi-circuit", "edge-bases"],
    "generator": {"seed": "s"},
    "computed_by": COMPUTED_BY,
    "curve": "bls12-381",
    "domain": {"convention": "bellman", "log_n": 2, "root_generator": 7, "coset_generator": 7},
    "r1cs": {
        "num_inputs": 2, "num_aux": 3, "num_constraints": 2,
        "a": [[[2, ONE]], [[0, "0" * 63 + "5"], [3, "0" * 60 + "1234"]]],
        "b": [[[1, ONE]], [[4, R_MINUS_1]]],
        "c": [[[2, "0" * 63 + "7"]], [[0, "0" * 63 + "3"]]],
    },
    "density": {
        "a_aux": {"bits": 3, "hex": "0500000000000000"},
        "b_input": {"bits": 2, "hex": "0200000000000000"},
        "b_aux": {"bits": 3, "hex": "0200000000000000"},
    },
    "verifying_key": {
        "alpha_g1": G1_GENERATOR, "beta_g1": hex_g1(2), "beta_g2": hex_g2(3), "gamma_g2": hex_g2(4),
        "delta_g1": hex_g1(5), "delta_g2": hex_g2(6), "ic": [hex_g1(7), hex_g1(8)],
    },
    "proving_key": {
        "h": [hex_g1(9), hex_g1(10), hex_g1(11)], "l": [hex_g1(12), hex_g1(13), hex_g1(14)],
        "a": [hex_g1(15), hex_g1(16), hex_g1(17), hex_g1(18)], "b_g1": [hex_g1(19)], "b_g2": [hex_g2(20)],
    },
    "trapdoor": {
        "warning": BANNER + "; these are the setup secrets of this vector, for checking phases at scale",
        "tau": "0" * 62 + "11", "alpha": "0" * 62 + "22", "beta": "0" * 62 + "33", "gamma": "0" * 62 + "44",
        "delta": "0" * 62 + "55",
    },
    "prep": {"l": {"split": True, "tail_indices": [0, 2]}, "a": {"split": False, "tail_indices": [0, 1, 2, 3]},
             "b": {"split": False, "tail_indices": [0]}},
    "circuits": [
        _expected_circuit(0, {"public_inputs": ["0" * 60 + "1234"], "aux_assignment": [ONE, sc(0), R_MINUS_1],
                              "r": "0" * 63 + "3", "s": "0" * 61 + "abc"}),
        _expected_circuit(1, {"public_inputs": ["0" * 63 + "2"], "aux_assignment": [sc(4), sc(5), sc(6)],
                              "r": "0" * 63 + "7", "s": "0" * 63 + "8"}),
    ],
}


def test_every_field_of_the_hand_built_vector_is_written_where_and_as_format_md_says():
    """Field by field (a field swapped, dropped, one circuit lost, r and s swapped, a bitmap or tail taken from the
    first circuit, bytes little-endian, leading zeros dropped: each differs here)."""
    doc, sidecars = vector_document(hand_vector(), "hand")
    assert sidecars == {}
    for key in EXPECTED:
        assert doc[key] == EXPECTED[key], key
    assert list(doc) == list(EXPECTED)


def test_the_fields_a_vector_leaves_out_are_left_out():
    """No trapdoor, no expected outputs (and no prep), no computed_by: none is written (FORMAT.md: optional)."""
    bare = hand_vector(trapdoor=None, expected_prep=None, computed_by={},
                       circuits=[CircuitCase(witness=w) for w in WITNESSES])
    doc, _ = vector_document(bare, "hand")
    assert list(doc) == ["format", "format_version", "id", "comment", "flags", "generator", "curve", "domain", "r1cs",
                         "density", "verifying_key", "proving_key", "circuits"]
    assert doc["circuits"] == [{k: v for k, v in c.items() if k != "expected"} for c in EXPECTED["circuits"]]


# ----------------------------------------------------------------------------------------------
# Primitives


def test_scalars_are_64_lowercase_hex_digits_big_endian():
    assert scalars_hex([0x1234, 0, R - 1, 0xAB << 240]) == [
        "0000000000000000000000000000000000000000000000000000000000001234",
        "0000000000000000000000000000000000000000000000000000000000000000",
        R_MINUS_1,
        "00ab000000000000000000000000000000000000000000000000000000000000",
    ]


@pytest.mark.parametrize("bits, expected", [
    ([], {"bits": 0, "hex": ""}),
    ([True, False, True], {"bits": 3, "hex": "0500000000000000"}),
    ([False] * 9 + [True], {"bits": 10, "hex": "0002000000000000"}),
    ([False] * 64 + [True, True], {"bits": 66, "hex": "0000000000000000" "0300000000000000"}),
    ([True] * 63 + [False, True], {"bits": 65, "hex": "ffffffffffffff7f" "0100000000000000"}),
])
def test_a_bitmap_is_little_endian_words_bit_i_in_byte_i_div_8(bits, expected):
    """FORMAT.md, Encodings: bit i is bit (i mod 8) of byte (i div 8), whole 64-bit words, padding zero."""
    assert bitmap_json(tuple(bits)) == expected


def test_a_document_is_json_with_one_space_indentation_in_field_order_and_a_final_newline():
    assert document_bytes({"b": 1, "a": ["x", {"c": True}]}) == (
        b'{\n "b": 1,\n "a": [\n  "x",\n  {\n   "c": true\n  }\n ]\n}\n')


# ----------------------------------------------------------------------------------------------
# Sidecars


def _sidecar(name: str, data: bytes, count: int, element: str) -> dict:
    return {"sidecar": name, "sha256": hashlib.sha256(data).hexdigest(), "count": count, "element": element,
            "element_bytes": {"scalar": 32, "g1": 48, "g2": 96}[element]}


def _scalar_bytes(*values: int) -> bytes:
    return b"".join(bytes.fromhex(sc(v)) for v in values)


def _g1_bytes(*ks: int) -> bytes:
    return b"".join(bytes.fromhex(hex_g1(k)) for k in ks)


def test_arrays_of_sidecar_min_elements_or_more_are_sidecars_and_shorter_ones_stay_inline():
    """--sidecar-min 3: h, l, aux_assignment and ntt_h.h (exactly 3) and a, evaluate (4) go to sidecars named
    <stem>.<name>.bin holding the concatenated encodings; ic (2), b_g1 and b_g2 (1) stay lists."""
    doc, sidecars = vector_document(hand_vector(), "hand", sidecar_min=3)
    expected_files = {
        "hand.h.bin": _g1_bytes(9, 10, 11), "hand.l.bin": _g1_bytes(12, 13, 14),
        "hand.a.bin": _g1_bytes(15, 16, 17, 18),
    }
    for c in (0, 1):
        expected_files[f"hand.circuit{c}.aux_assignment.bin"] = _scalar_bytes(*([1, 0, R - 1] if c == 0 else [4, 5, 6]))
        for m, first in zip("abc", (1, 11, 21)):
            values = range(1000 * c + first, 1000 * c + first + 4)
            expected_files[f"hand.circuit{c}.evaluate.{m}.bin"] = _scalar_bytes(*values)
        expected_files[f"hand.circuit{c}.ntt_h.h.bin"] = _scalar_bytes(*range(1000 * c + 31, 1000 * c + 34))
    assert sidecars == expected_files
    assert doc["proving_key"] == {
        "h": _sidecar("hand.h.bin", _g1_bytes(9, 10, 11), 3, "g1"),
        "l": _sidecar("hand.l.bin", _g1_bytes(12, 13, 14), 3, "g1"),
        "a": _sidecar("hand.a.bin", _g1_bytes(15, 16, 17, 18), 4, "g1"),
        "b_g1": [hex_g1(19)], "b_g2": [hex_g2(20)],
    }
    assert doc["verifying_key"]["ic"] == [hex_g1(7), hex_g1(8)]
    circuit = doc["circuits"][1]
    aux = _sidecar("hand.circuit1.aux_assignment.bin", _scalar_bytes(4, 5, 6), 3, "scalar")
    assert circuit["aux_assignment"] == aux
    ntt_h = _sidecar("hand.circuit1.ntt_h.h.bin", _scalar_bytes(1031, 1032, 1033), 3, "scalar")
    assert circuit["expected"]["ntt_h"]["h"] == ntt_h
    assert circuit["expected"]["evaluate"]["c"] == _sidecar("hand.circuit1.evaluate.c.bin",
                                                            _scalar_bytes(1021, 1022, 1023, 1024), 4, "scalar")
    assert circuit["public_inputs"] == ["0" * 63 + "2"]


def test_a_g2_array_goes_to_a_sidecar_of_96_byte_elements_and_public_inputs_stay_inline():
    """--sidecar-min 1: b_g2 is a sidecar of g2 elements (96 bytes each, x.c1 then x.c0); public inputs and tail
    scalars are never sidecars (FORMAT.md names the sidecar arrays: the keys' and circuit<i>.<field>)."""
    doc, sidecars = vector_document(hand_vector(), "v", sidecar_min=1)
    b_g2 = bytes.fromhex(hex_g2(20))
    assert sidecars["v.b_g2.bin"] == b_g2 and sidecars["v.ic.bin"] == _g1_bytes(7, 8)
    assert doc["proving_key"]["b_g2"] == _sidecar("v.b_g2.bin", b_g2, 1, "g2")
    assert doc["circuits"][0]["public_inputs"] == ["0" * 60 + "1234"]
    assert doc["circuits"][0]["expected"]["prep"]["l"]["tail_scalars"] == ["0" * 63 + "5", "0" * 63 + "6"]
    assert sorted(sidecars) == sorted(
        ["v.ic.bin", "v.h.bin", "v.l.bin", "v.a.bin", "v.b_g1.bin", "v.b_g2.bin"]
        + [f"v.circuit{c}.{f}.bin" for c in (0, 1)
           for f in ("aux_assignment", "evaluate.a", "evaluate.b", "evaluate.c", "ntt_h.h")])


# ----------------------------------------------------------------------------------------------
# Refusals: a writer writes nothing its readers refuse


@pytest.mark.parametrize("change, where", [
    ({"id": "has space"}, "id"), ({"id": ""}, "id"), ({"comment": "two\nlines"}, "comment"),
    ({"flags": ["sidecar", "multi-circuit", "sidecar"]}, "flags[2]"),
])
def test_an_id_comment_or_flag_list_the_readers_refuse_is_refused(change, where):
    with pytest.raises(InvalidInputError) as refused:
        vector_document(hand_vector(**change), "hand")
    assert refused.value.field == where


# ----------------------------------------------------------------------------------------------
# write_vector and write_files_atomically


def test_write_vector_writes_the_json_and_its_sidecars_beside_it(tmp_path, monkeypatch):
    """The sidecars lie in the JSON file's folder (not the working directory), named after the stem without .json;
    the file is the document's bytes."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "sub" / "w.json"
    written = write_vector(hand_vector(), out, sidecar_min=4)
    names = ["w.a.bin"] + [f"w.circuit{c}.evaluate.{m}.bin" for c in (0, 1) for m in "abc"]
    assert written[0] == out and sorted(written[1:]) == sorted(tmp_path / "sub" / n for n in names)
    assert sorted(p.name for p in (tmp_path / "sub").iterdir()) == sorted(["w.json", *names])
    assert [p.name for p in tmp_path.iterdir()] == ["sub"]
    doc = json.loads(out.read_bytes())
    assert doc["proving_key"]["a"] == _sidecar("w.a.bin", _g1_bytes(15, 16, 17, 18), 4, "g1")
    assert (tmp_path / "sub" / "w.a.bin").read_bytes() == _g1_bytes(15, 16, 17, 18)
    assert (tmp_path / "sub" / "w.circuit1.evaluate.b.bin").read_bytes() == _scalar_bytes(1011, 1012, 1013, 1014)
    expected = copy.deepcopy(EXPECTED)
    expected["proving_key"]["a"] = doc["proving_key"]["a"]
    for c in (0, 1):
        for m in "abc":
            expected["circuits"][c]["expected"]["evaluate"][m] = doc["circuits"][c]["expected"]["evaluate"][m]
    assert doc == expected and out.read_bytes().endswith(b"\n}\n") and out.read_bytes().startswith(b'{\n "format": ')
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_write_vector_refuses_to_write_over_an_input(tmp_path):
    out = tmp_path / "v.json"
    out.write_bytes(b"input")
    with pytest.raises(InvalidInputError):
        write_vector(hand_vector(), out, inputs=[out])
    assert out.read_bytes() == b"input" and [p.name for p in tmp_path.iterdir()] == ["v.json"]


def test_write_files_atomically_replaces_and_returns_the_targets_and_leaves_nothing_else(tmp_path):
    old = tmp_path / "a.bin"
    old.write_bytes(b"old")
    targets = {old: b"new a", tmp_path / "d" / "e" / "b.bin": b"new b"}
    assert write_files_atomically(targets) == list(targets)
    assert old.read_bytes() == b"new a" and (tmp_path / "d" / "e" / "b.bin").read_bytes() == b"new b"
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["a.bin", "d", "d/e", "d/e/b.bin"]


def test_an_output_name_without_json_keeps_its_whole_name_as_the_stem(tmp_path):
    """The stem is the name less a final .json, as generate's id (vectors/__main__.py), not Path.stem."""
    out = tmp_path / "w.vec"
    write_vector(hand_vector(), out, sidecar_min=4)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["w.vec", "w.vec.a.bin"] + [f"w.vec.circuit{c}.evaluate.{m}.bin" for c in (0, 1) for m in "abc"])


def _refused(*args, **kwargs):
    raise PermissionError(1, "Operation not permitted")


def _replace_failing_into(monkeypatch, target):
    """os.replace refusing to rename anything onto ``target`` (a rename that fails after others succeeded)."""
    real = os.replace

    def replace(src, dst):
        (_refused if str(dst) == str(target) else real)(src, dst)

    monkeypatch.setattr(os, "replace", replace)


def test_a_failed_rename_removes_every_folder_it_made_innermost_first(tmp_path, monkeypatch):
    """Two folders made (d, d/e) for a new file, then the last rename fails: the old file is back, the new one and
    both folders are gone (removed innermost first: d is not empty while e is there)."""
    old, new, failing = tmp_path / "a.json", tmp_path / "d" / "e" / "b.json", tmp_path / "c.json"
    old.write_bytes(b"old")
    _replace_failing_into(monkeypatch, failing)
    with pytest.raises(InvalidInputError) as refused:
        write_files_atomically({old: b"new", new: b"new", failing: b"new"})
    assert (refused.value.field, refused.value.problem) == (str(failing), "cannot write: Operation not permitted")
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"] and old.read_bytes() == b"old"


def test_a_temporary_file_that_cannot_be_finished_is_removed(tmp_path, monkeypatch):
    """The temporary file cannot be given its mode: nothing is left, neither temporary nor target."""
    monkeypatch.setattr(os, "chmod", _refused)
    with pytest.raises(InvalidInputError):
        write_files_atomically({tmp_path / "a.json": b"a"})
    assert list(tmp_path.iterdir()) == []


def test_without_hard_links_a_replaced_file_is_moved_aside_and_put_back(tmp_path, monkeypatch):
    """A filesystem without hard links: the file replaced first is moved aside, and back when a later rename fails."""
    old, failing = tmp_path / "a.json", tmp_path / "c.json"
    old.write_bytes(b"old")
    monkeypatch.setattr(os, "link", _refused)
    _replace_failing_into(monkeypatch, failing)
    with pytest.raises(InvalidInputError):
        write_files_atomically({old: b"new", failing: b"new"})
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"] and old.read_bytes() == b"old"


def test_a_target_that_is_a_link_is_refused_before_anything_is_written(tmp_path):
    link = tmp_path / "b.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(InvalidInputError) as refused:
        write_files_atomically({tmp_path / "a.json": b"a", link: b"b"})
    assert refused.value.field == str(link) and "symbolic link" in refused.value.problem
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"] and link.is_symlink()
