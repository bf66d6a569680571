"""Hostile importer input pinned to the check that refuses it (session 45's mutation audit): each test was written
against a mutation of vectors/snarkjs.py that the rest of the suite let through. The refusal must be one line
`error: <field>: <problem>`, exit 2, no output on stdout and no vector written."""
from pathlib import Path

from conftest import IDEN3_COUNT, IDEN3_MAGIC_AND_VERSION_BYTES, IDEN3_SECTION_HEADER

from reference.cli import EXIT_BAD_INPUT, run_main
from vectors.__main__ import main as vectors_main

INTEROP = Path(__file__).resolve().parent.parent / "interop" / "snarkjs"
WTNS_VALUES_SECTION = 2


def _with_section_repeated(raw: bytes, kind: int) -> bytes:
    """The iden3 file ``raw`` with a second, identical copy of section ``kind`` appended (the count raised by one)."""
    (count,) = IDEN3_COUNT.unpack_from(raw, IDEN3_MAGIC_AND_VERSION_BYTES)
    pos, copy = IDEN3_MAGIC_AND_VERSION_BYTES + IDEN3_COUNT.size, None
    for _ in range(count):
        found, size = IDEN3_SECTION_HEADER.unpack_from(raw, pos)
        end = pos + IDEN3_SECTION_HEADER.size + size
        if found == kind:
            copy = raw[pos:end]
        pos = end
    assert copy is not None and pos == len(raw)
    head = raw[:IDEN3_MAGIC_AND_VERSION_BYTES] + IDEN3_COUNT.pack(count + 1)
    return head + raw[IDEN3_MAGIC_AND_VERSION_BYTES + IDEN3_COUNT.size :] + copy


def test_a_wtns_with_a_section_repeated_is_refused(tmp_path, capsys):
    """FORMAT.md / iden3: each section once. A .wtns whose witness-values section appears twice (the copy identical,
    so nothing else is wrong) is refused, naming the section; no vector is written. Killed mutation: read_sections
    without the `kind in seen` check (the later copy silently replaced the first and the import succeeded)."""
    wtns = tmp_path / "twice.wtns"
    wtns.write_bytes(_with_section_repeated((INTEROP / "witness.wtns").read_bytes(), WTNS_VALUES_SECTION))
    out = tmp_path / "v.json"
    argv = ["import-snarkjs", str(INTEROP / "circuit.r1cs"), str(wtns), str(INTEROP / "circuit.zkey"), "--out", str(out), "--quiet"]
    assert run_main(vectors_main, argv) == EXIT_BAD_INPUT
    stdout, err = capsys.readouterr()
    assert stdout == "" and err == "error: twice.wtns section 2 (witness values): appears twice\n", err
    assert not out.exists()


def test_a_zkey_point_for_a_wire_in_no_a_row_must_be_the_identity():
    """snarkjs stores one A point per wire; a wire in no A row has the identity there (the fixture has such wires).
    A zkey with the generator in that place was made for another circuit and is refused, naming the wire. Killed
    mutation: _dense without that check (the point was silently dropped by the density filter)."""
    import dataclasses

    import pytest
    from py_ecc.optimized_bls12_381 import G1

    from reference.curve import is_identity
    from reference.errors import InvalidInputError
    from vectors.snarkjs import parse_r1cs, parse_zkey, proving_key_from_zkey

    r1cs = parse_r1cs((INTEROP / "circuit.r1cs").read_bytes(), "circuit.r1cs").r1cs
    zkey = parse_zkey((INTEROP / "circuit.zkey").read_bytes(), "circuit.zkey")
    in_a = set(r1cs.density().a_variables(r1cs.num_inputs))
    wire = next(v for v, p in enumerate(zkey.a) if v not in in_a)
    assert is_identity(zkey.a[wire])
    forged = dataclasses.replace(zkey, a=zkey.a[:wire] + (G1,) + zkey.a[wire + 1 :])
    with pytest.raises(InvalidInputError) as info:
        proving_key_from_zkey(forged, r1cs, "circuit.zkey")
    assert str(info.value) == (f"circuit.zkey section 5 (A points)[{wire}]: is not the identity, but wire {wire} is in no A row "
                               "of the R1CS: the key was made for another circuit")
