"""bench/ncu_source_summary.py on hand-made ncu source pages: the split between the body and a subroutine, the stall
shares and the opcode mix against numbers worked out by hand; unreadable input is refused (error:, exit 2)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import ncu_source_summary as summary  # noqa: E402

HEADER = ('"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)",'
          '"Instructions Executed","stall_math","stall_wait","stall_wait (Not Issued)"')
# address, source, samples, executed, math, wait: a body that calls one subroutine at 0x40 (IMAD, then RET)
INSTRUCTIONS = [
    ("0x00", "MOV R1, R2", 10, 100, 4, 6),
    ("0x10", "CALL.REL.NOINC 0x40", 2, 100, 0, 2),
    ("0x20", "@P0 EXIT", 0, 100, 0, 0),
    ("0x30", "BRA 0x30", 0, 0, 0, 0),
    ("0x40", "IMAD.WIDE.U32 R4, R2, R3, RZ", 20, 300, 15, 5),
    ("0x50", "RET.REL.NODEC R20 0x0", 0, 100, 0, 0),
]


def page(instructions=INSTRUCTIONS, sections=2) -> str:
    body = "\n".join(f'"{a}","      {s}","{n}","0","{e}","{m}","{w}","9"' for a, s, n, e, m, w in instructions)
    return "==PROF== a note\n" + "".join(f'"Kernel Name","k",\n{HEADER}\n{body}\n' for _ in range(sections))


def run(tmp_path, text, *extra):
    src = tmp_path / "src.csv"
    src.write_text(text)
    md, js = tmp_path / "out.md", tmp_path / "out.json"
    code = summary.main([str(src), "--md", str(md), "--json", str(js), *extra])
    return code, md, js


def test_body_and_subroutine_split_by_hand(tmp_path, capsys):
    code, md, js = run(tmp_path, page())
    assert code == 0
    (s,) = json.loads(js.read_text())  # the repeated identical section counted once
    assert s["samples"] == 32 and s["executed_warp_instructions"] == 700
    parts = {p["part"]: p for p in s["parts"]}
    sub = parts["subroutine 0x40 (1 call sites)"]
    body = parts["body"]
    assert sub["instructions"] == 2 and body["instructions"] == 4
    assert sub["samples_pct"] == pytest.approx(100 * 20 / 32) and body["samples_pct"] == pytest.approx(100 * 12 / 32)
    assert sub["executed_pct"] == pytest.approx(100 * 400 / 700)
    assert sub["top_reasons_pct"] == pytest.approx({"math": 75.0, "wait": 25.0})
    assert body["top_reasons_pct"] == pytest.approx({"wait": 100 * 8 / 12, "math": 100 * 4 / 12})
    assert s["reasons_pct"] == pytest.approx({"math": 100 * 19 / 32, "wait": 100 * 13 / 32})  # not-issued columns apart
    assert s["opcodes_pct"]["IMAD.WIDE.U32"] == pytest.approx(100 * 300 / 700)
    assert s["opcodes_pct"]["EXIT"] == pytest.approx(100 * 100 / 700)  # the predicate is not the opcode
    assert "| subroutine 0x40 (1 call sites) | 2 | 62.5 | 57.1 | math 75.0, wait 25.0 |" in md.read_text()


def test_distinct_sections_are_both_summarized(tmp_path):
    other = [row if row[0] != "0x00" else ("0x00", "MOV R1, R2", 50, 100, 50, 0) for row in INSTRUCTIONS]
    code, _, js = run(tmp_path, page() + page(other, sections=1))
    assert code == 0
    first, second = json.loads(js.read_text())
    assert (first["samples"], second["samples"]) == (32, 72)
    assert first["label"].endswith("#1") and second["label"].endswith("#2")


@pytest.mark.parametrize("text, problem", [
    ("not a source page\n", "no 'Kernel Name' section"),
    ('"Kernel Name","k",\n"Address","Source"\n"0x0","MOV R1, R2"\n', "no column"),
    (page([("0x00", "MOV R1, R2", "many", 1, 0, 0)]), "is not a number"),
    (page([("0x00", "CALL.REL.NOINC 0x90", 1, 1, 0, 0)]), "CALL target 0x90 is not an instruction"),
    (page([("0x00", "MOV R1, R2", 0, 0, 0, 0)]), "no samples or no executed instructions"),
    (page([("0xzz", "MOV R1, R2", 1, 1, 0, 0)]), "is not hexadecimal"),
    ('"Kernel Name","k",\n' + HEADER + '\n"0x0","MOV R1, R2","1"\n', "column count differs"),
    ('"Kernel Name","' + "k" * 200_000 + '",\n', "not CSV"),
])
def test_unreadable_pages_are_refused(tmp_path, capsys, text, problem):
    code, md, _ = run(tmp_path, text)
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: ") and problem in err and not md.exists()


def test_labels_must_match_the_files(tmp_path, capsys):
    code, md, _ = run(tmp_path, page(), "--label", "a", "--label", "b")
    assert code == 2 and "--label" in capsys.readouterr().err and not md.exists()


def test_an_output_that_cannot_be_written_is_an_error_not_a_traceback(tmp_path, capsys):
    src = tmp_path / "src.csv"
    src.write_text(page())
    code = summary.main([str(src), "--md", str(tmp_path / "no-such-folder" / "out.md")])
    assert code == 2 and capsys.readouterr().err.startswith(f"error: {tmp_path / 'no-such-folder' / 'out.md'}: cannot write")
