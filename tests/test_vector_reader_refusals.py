"""Hostile vectors that the reader refuses, each pinned to the one check that refuses it (session 45's mutation audit).

Each test here was written against a mutation of vectors/format.py (or an importer) that the rest of the suite let
through: the check weakened or removed, every other test still passed. The input is a valid bundled vector with one
thing broken; the refusal must be exactly one line `error: <field>: <problem>` on stderr, exit 2 and nothing on
stdout (`python -m vectors check`, run in-process). The expected lines are written out here, not taken from the
reader's code.
"""
from pathlib import Path

import pytest
from conftest import vectors_refusal

from reference.errors import InvalidInputError
from vectors.format import load_vector
from vectors.invalid import SMALL, InvalidCase, materialize, to_sidecar

SIDECAR_NAME_RULE = ("must be a plain file name in the vector's folder: letters, digits and ._-+, not starting with a dot, "
                     "ending in .bin, at most 255 characters")


def _refused(tmp_path: Path, mutate, capsys) -> str:
    """`vectors check` on porep-log03 broken by ``mutate``: exit 2, no output; returns the one stderr line."""
    path = materialize(InvalidCase("mutation-gap", SMALL, mutate, InvalidInputError, "", ""), tmp_path)
    return vectors_refusal(["check", str(path), "--quiet"], capsys)[:-1]


def _sidecar_renamed(name: str):
    """proving_key.h moved into a valid sidecar (right count, size and sha256), the file then renamed to ``name``."""
    def rename(ref, file, folder):
        file.rename(folder / name)
        ref.update(sidecar=name)
    return to_sidecar(("proving_key", "h"), "g1", rename)


@pytest.mark.parametrize("name", [".h.bin", "h.dat", "h.bin.txt"], ids=["hidden", "not-bin", "bin-then-txt"])
def test_a_sidecar_file_that_exists_but_has_no_plain_bin_name_is_refused(name, tmp_path, capsys):
    """FORMAT.md: a sidecar is a plain file name, not starting with a dot, ending in .bin. The file exists and its
    count, size and sha256 are right, so only the name rule refuses it (without that rule the vector passed the check).
    Killed mutations: check_sidecar_name without `not name.startswith(".")`, without `name.endswith(".bin")`."""
    err = _refused(tmp_path, _sidecar_renamed(name), capsys)
    assert err == f"error: proving_key.h: {name!r} {SIDECAR_NAME_RULE}"


def test_a_sidecar_name_longer_than_255_characters_is_refused_by_the_name_rule(tmp_path, capsys):
    """256 characters: no file system holds such a name, but the reader refuses it by its rule before any open (the
    problem names the rule, not an OS error). Killed mutation: check_sidecar_name without the 255-character limit."""
    name = "a" * 252 + ".bin"

    def long_name(ref, file, folder):
        ref.update(sidecar=name)

    err = _refused(tmp_path, to_sidecar(("proving_key", "h"), "g1", long_name), capsys)
    assert err == f"error: proving_key.h: '{'a' * 79} {SIDECAR_NAME_RULE}"  # the name's repr, cut at 80 characters


def test_tail_scalars_in_a_sidecar_are_refused_as_format_md_says(tmp_path, capsys):
    """FORMAT.md: every array of scalars or points may be a sidecar but prep's tail scalars, always a JSON list. Moved
    into a valid sidecar (right count, size and sha256), they are refused, naming the field and the rule."""
    path = ("circuits", 0, "expected", "prep", "l", "tail_scalars")
    err = _refused(tmp_path, to_sidecar(path, "scalar"), capsys)
    assert err == "error: circuits[0].expected.prep.l.tail_scalars: expected a JSON list of hex scalars (tail scalars are never a sidecar)"


def test_a_vector_id_longer_than_255_characters_is_refused(tmp_path, capsys):
    """FORMAT.md: an id is 1 to 255 letters, digits and ._-+ (a file name stem). 256 such characters were accepted
    with the length limit gone. Killed mutation: check_vector_id without `len(value) <= 255`."""
    def long_id(doc, folder):
        doc["id"] = "a" * 256

    err = _refused(tmp_path, long_id, capsys)
    assert err == f"error: id: '{'a' * 79} must be 1 to 255 letters, digits and ._-+"


def _sidecar_ref_edited(edit):
    """proving_key.h moved into a valid sidecar, then its reference edited by ``edit(ref)`` (the file stays valid)."""
    return to_sidecar(("proving_key", "h"), "g1", lambda ref, file, folder: edit(ref))


def test_a_sidecar_reference_with_an_extra_key_is_refused(tmp_path, capsys):
    """A reference has exactly sidecar, sha256, count, element, element_bytes: an extra key (one a reader would
    ignore) is refused though the file is valid. Killed mutation: `set(ref) != required` weakened to a subset test."""
    err = _refused(tmp_path, _sidecar_ref_edited(lambda ref: ref.update(offset=0)), capsys)
    assert err == ("error: proving_key.h: a sidecar reference has exactly the keys "
                   "['count', 'element', 'element_bytes', 'sha256', 'sidecar']")


def test_a_sidecar_reference_naming_another_element_kind_with_the_right_size_is_refused(tmp_path, capsys):
    """proving_key.h holds G1 points of 48 bytes; a reference saying "scalar" elements of 48 bytes (the size right,
    the kind wrong) is refused. Killed mutation: the element-kind half of the check removed (only the size checked)."""
    err = _refused(tmp_path, _sidecar_ref_edited(lambda ref: ref.update(element="scalar")), capsys)
    assert err == "error: proving_key.h: sidecar holds scalar elements of 48 bytes; expected g1 of 48"


def test_an_uppercase_sidecar_sha256_is_refused_as_the_sha256_field(tmp_path, capsys):
    """FORMAT.md: sha256 is 64 lowercase hex digits. The right digest in upper case is refused by the form check,
    which names proving_key.h.sha256 (without it, the digest comparison refused it as a corrupted file, naming
    proving_key.h). Killed mutation: the sha256 form check reduced to `isinstance(str)`."""
    err = _refused(tmp_path, _sidecar_ref_edited(lambda ref: ref.update(sha256=ref["sha256"].upper())), capsys)
    assert err == "error: proving_key.h.sha256: expected 64 lowercase hex digits"


def test_a_flag_listed_twice_is_refused_at_its_second_place(tmp_path, capsys):
    """FORMAT.md ("Canonical input"): each flag at most once. porep-log03's one flag, shape-porep, listed twice: the
    second is named, with the place of the first. Killed mutation: the reader's check_flags_listed_once call removed
    (load_vector returned the vector; only `vectors check`'s flag check still refused it)."""
    def twice(doc, folder):
        assert doc["flags"] == ["shape-porep"]
        doc["flags"] = ["shape-porep", "shape-porep"]

    err = _refused(tmp_path, twice, capsys)
    assert err == "error: flags[1]: 'shape-porep' is listed already (flags[0]): each flag at most once"
    # `vectors check` judges the flags again (vectors/flags.py); the reader itself, which `reference prove` and
    # conformance use, must refuse them too
    with pytest.raises(InvalidInputError) as info:
        load_vector(tmp_path / "porep-log03.json")
    assert str(info.value) == "flags[1]: 'shape-porep' is listed already (flags[0]): each flag at most once"
