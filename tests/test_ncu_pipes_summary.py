"""bench/ncu_pipes_summary.py on a hand-made ncu raw page: the busiest pipes, their instruction shares and the
times against numbers worked out by hand; unreadable input is refused (error:, exit 2)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import ncu_pipes_summary as summary  # noqa: E402

HEADER = ['"ID"', '"Kernel Name"', '"gpu__time_duration.sum"', '"smsp__inst_executed.sum"',
          '"sm__inst_executed_pipe_alu.sum"', '"sm__inst_executed_pipe_fmaheavy.sum"',
          '"sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active"',
          '"sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active"',
          '"sm__pipe_lsu_cycles_active.avg.pct_of_peak_sustained_active"']
UNITS = ['""', '""', '"us"', '"inst"', '"inst"', '"inst"', '"%"', '"%"', '"%"']
ROWS = [['"0"', '"ntt_pass"', '"2,500.00"', '"1,000,000,000"', '"200,000,000"', '"500,000,000"', '"30.5"', '"91.25"',
         '"4"'],
        ['"1"', '"msm_piece_sum_g1"', '"100000"', '"4000000000"', '"1000000000"', '"2000000000"', '"40"', '"88"',
         '"n/a"']]


def page(rows=ROWS, header=HEADER) -> str:
    return "==PROF== a note\n" + "\n".join(",".join(r) for r in [header, UNITS, *rows]) + "\n"


def run(tmp_path, text):
    src = tmp_path / "raw.csv"
    src.write_text(text)
    md, js = tmp_path / "out.md", tmp_path / "out.json"
    return summary.main([str(src), "--md", str(md), "--json", str(js)]), md, js


def test_pipes_and_shares_by_hand(tmp_path, capsys):
    code, md, js = run(tmp_path, page())
    assert code == 0
    launches = json.loads(js.read_text())
    assert [launch["kernel"] for launch in launches] == ["ntt_pass", "msm_piece_sum_g1"]
    assert launches[0]["ms"] == pytest.approx(2.5)  # 2,500 us
    assert launches[1]["ms"] == pytest.approx(100.0)
    assert launches[0]["active_pct"] == {"alu": 30.5, "fmaheavy": 91.25, "lsu": 4.0}
    assert launches[1]["active_pct"] == {"alu": 40.0, "fmaheavy": 88.0}  # n/a left out
    rows = md.read_text().splitlines()
    # fmaheavy busiest; it executed 5 of 10 (launch 0) and 2 of 4 (launch 1) G warp instructions: 50%
    assert rows[2] == "| 0 | ntt_pass | 2.50 | 1.00 G | fmaheavy 91.2, alu 30.5, lsu 4.0 | fmaheavy 50.0%, alu 20.0% |"
    assert rows[3] == "| 1 | msm_piece_sum_g1 | 100.00 | 4.00 G | fmaheavy 88.0, alu 40.0 | fmaheavy 50.0%, alu 25.0% |"


@pytest.mark.parametrize("text, problem", [
    ("", "no CSV rows"),
    ('"ID","Kernel Name"\n"0","k"\n', "the ncu CSV lacks a kernel name column or gpu__time_duration.sum"),
    (page(header=HEADER[:6] + ['"x"', '"y"', '"z"']), "no sm__pipe_*_cycles_active column"),
    (page(rows=[]), "no launches"),
    (page(rows=[ROWS[0][:4]]), "a row's width differs from the header's (9 columns)"),
    (page(rows=[[ROWS[0][0], '"' + "9" * 200_000 + '"', *ROWS[0][2:]]]), "not CSV"),
    (page(rows=[[ROWS[0][0], ROWS[0][1], '"n/a"', *ROWS[0][3:]]]), "launch 0 has no time"),
])
def test_unreadable_input_is_refused(tmp_path, capsys, text, problem):
    code, md, js = run(tmp_path, text)
    assert code == 2
    assert capsys.readouterr().err.startswith(f"error: {tmp_path / 'raw.csv'}: {problem}")
    assert not md.exists() and not js.exists()


def test_missing_file_and_unwritable_output(tmp_path, capsys):
    assert summary.main([str(tmp_path / "none.csv"), "--md", str(tmp_path / "o.md")]) == 2
    assert capsys.readouterr().err.startswith(f"error: {tmp_path / 'none.csv'}: ")
    (tmp_path / "raw.csv").write_text(page())
    assert summary.main([str(tmp_path / "raw.csv"), "--md", str(tmp_path / "no" / "o.md")]) == 2
    assert capsys.readouterr().err.startswith(f"error: {tmp_path / 'no' / 'o.md'}: ")


def test_a_fifo_or_folder_is_refused_without_reading_it(tmp_path, capsys):
    """A FIFO would block the read and a folder is no page: each is refused from its stat (kernel_times
    read_ncu_page), exit 2, one error line, and the summary tools that share the reader say the same."""
    import os

    import ncu_source_summary
    from kernel_times import main as kernel_times_main

    fifo = tmp_path / "ncu.csv"
    os.mkfifo(fifo)
    for path in (fifo, tmp_path):
        assert summary.main([str(path), "--md", str(tmp_path / "o.md")]) == 2
        assert capsys.readouterr().err == f"error: {path}: not a regular file\n"
        assert ncu_source_summary.main([str(path), "--md", str(tmp_path / "o.md")]) == 2
        assert capsys.readouterr().err == f"error: {path}: not a regular file\n"
        assert kernel_times_main(["--ncu-csv", str(path)]) == 2
        assert capsys.readouterr().err == f"error: --ncu-csv: {path}: ValueError('not a regular file')\n"
    assert not (tmp_path / "o.md").exists()
