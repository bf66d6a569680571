"""bench/bench_vs_sppark.sh's pieces that need no GPU: sppark's output parsed, the bench JSON read, the ratio table
and its goal verdicts (issue 18's goal table, values computed by hand here), the per-kernel tables (CUDA-event
breakdown and an Nsight Compute CSV), and the driver's argument checks. One GPU test times real launches."""
import json
import subprocess
import time
from pathlib import Path

import pytest
from conftest import bench_module

ROOT = Path(__file__).resolve().parents[1]
ENV = {"date": "2026-12-03T09:00:00+00:00", "commit": "abc123def456", "gpu_sources": "0123456789ab" + "f" * 52,
       "gpu": {"name": "NVIDIA H200", "driver": "580.159.04", "cuda_driver_api": 13000, "cupy": "14.2.0"}}

SPPARK_LOG = """\
# device: NVIDIA H200, 132 SMs, 139.8 GiB; CUDA driver 13000 runtime 13000; 16 host threads; reps=5 (+1 warm-up)
sppark msm check ok
sppark g1_msm log=20 median_ms=19.800 min_ms=19.500 inputs=device
#   g1_msm log=20 inputs=device runs_ms: 19.5 19.8 19.9 20.0 19.7
sppark g1_msm log=20 inputs=device check=ok
sppark g1_msm log=24 median_ms=154.400 min_ms=153.000 inputs=device
sppark g1_msm log=24 median_ms=999.000 min_ms=990.000 inputs=host
sppark g1_msm log=24 inputs=device check=ok
sppark g1_msm log=26 median_ms=567.000 min_ms=560.000 inputs=device
sppark g1_msm log=26 inputs=device check=FAIL
sppark g2_msm log=24 median_ms=446.800 min_ms=440.000 inputs=device
sppark g2_msm log=24 inputs=device check=ok
sppark fr_ntt_fwd log=24 FAILED inputs=device
sppark fr_ntt_fwd log=27 median_ms=44.400 min_ms=44.000 inputs=device
sppark fr_ntt_fwd log=27 inputs=device check=ok
# done, 1 failure(s)
"""


ratio = bench_module("sppark_ratio")
kernel_times = bench_module("kernel_times")


def msm_doc(g1_24: float, g2_24: float) -> dict:
    """bench_msm.py --json as it writes it (header, rows; the timing record left out)."""
    def row(group, log2, ms):
        return {"op": "msm", "group": group, "log2": log2, "window_bits": 16, "median_ms": ms, "times_ms": [ms] * 5}
    return {"header": {"gpu": "NVIDIA H200"}, "rows": [
        row("g1", 20, 16.5), row("g1", 24, g1_24), row("g2", 24, g2_24),
        {"op": "msm (forced c)", "group": "g1", "log2": 24, "window_bits": 18, "median_ms": 1.0, "times_ms": [1.0] * 5},
    ]}


def ntt_doc(forward_27: float, ntt_h_27: float, prover_route: bool = True) -> dict:
    """bench_ntt.py --json rows, made by its own row() (ms = median of the runs): ntt_h_27 on the prover's route
    (CONSUMED_NTT_H, when ``prover_route``); the rows that keep their inputs take other times."""
    ntt = bench_module("bench_ntt")
    ceilings = {"copy": 4e12, "fr_mul": 4e10}
    rows = [ntt.row("forward", 24, 1, [5.9, 6.0, 6.1, 5.98, 6.02], 1e9, 1e9, ceilings),
            ntt.row("forward", 27, 1, [forward_27] * 5, 1e9, 1e9, ceilings),
            ntt.row("ntt_h", 27, 1, [ntt_h_27 - 7.0] * 5, 1e9, 1e9, ceilings),
            ntt.row("ntt_h", 27, 4, [1.0] * 5, 1e9, 1e9, ceilings)]
    if prover_route:
        rows.append(ntt.row(ntt.CONSUMED_NTT_H, 27, 1, [ntt_h_27] * 5, 1e9, 1e9, ceilings))
    return {"ceilings": ceilings, "rows": rows}


def test_sppark_lines_are_parsed_device_rows_only_with_their_checks():
    rows = ratio.parse_sppark(SPPARK_LOG)
    assert rows[("g1_msm", 20)] == {"median_ms": 19.8, "min_ms": 19.5, "check": "ok"}
    assert rows[("g1_msm", 24)]["median_ms"] == 154.4  # the host-input line (999 ms) is not the device row
    assert rows[("g1_msm", 26)]["check"] == "FAIL"
    assert rows[("fr_ntt_fwd", 24)] == {"median_ms": None, "min_ms": None, "check": "FAIL"}
    assert set(rows) == {("g1_msm", 20), ("g1_msm", 24), ("g1_msm", 26), ("g2_msm", 24), ("fr_ntt_fwd", 24),
                         ("fr_ntt_fwd", 27)}


def test_our_rows_come_from_both_bench_documents():
    ours = ratio.ours_from(msm_doc(70.0, 160.0), ntt_doc(36.0, 240.0))
    assert ours == {("g1_msm", 20): 16.5, ("g1_msm", 24): 70.0, ("g2_msm", 24): 160.0, ("fr_ntt_fwd", 24): 6.0,
                    ("fr_ntt_fwd", 27): 36.0, ("ntt_h", 27): 240.0}
    assert ratio.ours_from(None, None) == {}


def test_the_ntt_h_goal_is_judged_on_the_provers_route_only():
    """bench_ntt's ntt_h rows that keep their inputs (here 7 ms faster) never stand in for the prover's route: without
    its row the goal is not judged."""
    ours = ratio.ours_from(None, ntt_doc(36.0, 251.0))
    assert ours[("ntt_h", 27)] == 251.0
    assert by_key(ratio.ratio_rows(ours, {}))[("ntt_h", 27)]["verdict"] == "missed"
    kept_only = ratio.ours_from(None, ntt_doc(36.0, 251.0, prover_route=False))
    assert ("ntt_h", 27) not in kept_only
    assert by_key(ratio.ratio_rows(kept_only, {}))[("ntt_h", 27)]["verdict"] == "not judged (ours not measured)"


MET = "met (timing only; our outputs not checked in this run)"
"""A met goal's verdict: our side's times come from bench_msm.py / bench_ntt.py, which check no output, so the verdict
says it covers the timing only (it read a bare 'met')."""


def by_key(rows):
    return {(r["op"], r["log2"]): r for r in rows}


def test_goals_met_when_every_condition_holds():
    # G1 2^24 70 ms: <= 80 and 154.4 / 70 = 2.21 >= 1.9; G2 160 <= 2.5 x 70 = 175 and < 446.8; NTT 36 <= 38 < 44.4
    rows = by_key(ratio.ratio_rows(ratio.ours_from(msm_doc(70.0, 160.0), ntt_doc(36.0, 240.0)),
                                   ratio.parse_sppark(SPPARK_LOG)))
    assert rows[("g1_msm", 24)]["speedup"] == pytest.approx(154.4 / 70.0)
    assert [rows[k]["verdict"] for k in (("g1_msm", 24), ("g2_msm", 24), ("fr_ntt_fwd", 27), ("ntt_h", 27))] == [MET] * 4
    assert rows[("g1_msm", 20)]["verdict"] == "no goal"
    assert rows[("g1_msm", 26)]["verdict"] == "not judged (ours not measured)"
    assert rows[("fr_ntt_fwd", 24)]["sppark_ms"] is None and rows[("fr_ntt_fwd", 24)]["speedup"] is None


def test_goals_missed_by_any_condition():
    # G1 2^24 137.3 ms: 154.4 / 137.3 = 1.12 < 1.9; G2 483.7 > 2.5 x 137.3 = 343 and slower than 446.8;
    # NTT 39 > 38 although faster than 44.4; ntt_h 395 > 250
    rows = by_key(ratio.ratio_rows(ratio.ours_from(msm_doc(137.3, 483.7), ntt_doc(39.0, 395.0)),
                                   ratio.parse_sppark(SPPARK_LOG)))
    for key in (("g1_msm", 24), ("g2_msm", 24), ("fr_ntt_fwd", 27), ("ntt_h", 27)):
        assert rows[key]["verdict"] == "missed", key
    assert [c["met"] for c in rows[("fr_ntt_fwd", 27)]["conditions"]] == [False, True]


def test_a_goal_against_sppark_is_not_judged_when_its_check_failed_or_it_did_not_run():
    ours = {("g1_msm", 26): 250.0, ("g1_msm", 24): 70.0, ("fr_ntt_fwd", 27): 30.0}
    sppark = ratio.parse_sppark(SPPARK_LOG.replace("log=24 inputs=device check=ok", "log=24 inputs=device check=FAIL"))
    rows = by_key(ratio.ratio_rows(ours, sppark))
    assert rows[("g1_msm", 26)]["verdict"] == MET  # only <= 300 ms: sppark's failed check does not matter
    assert rows[("g1_msm", 24)]["verdict"] == "not judged (sppark's result check failed)"
    rows = by_key(ratio.ratio_rows(ours, {}))
    assert rows[("fr_ntt_fwd", 27)]["verdict"] == "not judged (sppark not measured)"


def test_a_goal_against_sppark_is_not_judged_when_its_result_was_never_checked():
    """A time line without its check line (the anchor's run cut off by its timeout between the two): the speed-up
    of an unverified result is no goal met."""
    ours = {("g1_msm", 24): 70.0, ("fr_ntt_fwd", 27): 30.0}
    sppark = ratio.parse_sppark(SPPARK_LOG.replace("sppark g1_msm log=24 inputs=device check=ok\n", ""))
    assert sppark[("g1_msm", 24)]["check"] is None
    rows = by_key(ratio.ratio_rows(ours, sppark))
    assert rows[("g1_msm", 24)]["verdict"] == "not judged (sppark's result not checked)"
    assert rows[("fr_ntt_fwd", 27)]["verdict"] == MET


def test_a_time_measured_again_after_its_check_needs_a_check_of_its_own():
    """A second time line for one row (two runs in one log, the second cut off before its check): its median is the
    one judged, so the first run's check=ok does not vouch for it (found by session 45's verdict audit: 'met')."""
    ours = {("g1_msm", 24): 70.0}
    again = "sppark g1_msm log=24 median_ms=150.000 min_ms=149.000 inputs=device\n"
    sppark = ratio.parse_sppark(SPPARK_LOG + again)
    assert sppark[("g1_msm", 24)] == {"median_ms": 150.0, "min_ms": 149.0, "check": None}
    assert by_key(ratio.ratio_rows(ours, sppark))[("g1_msm", 24)]["verdict"] == "not judged (sppark's result not checked)"
    failed = ratio.parse_sppark(SPPARK_LOG.replace("log=24 inputs=device check=ok", "log=24 inputs=device check=FAIL") + again)
    assert failed[("g1_msm", 24)]["check"] == "FAIL"  # a failed check of the row stays failed

def test_main_writes_markdown_and_json(tmp_path):
    files = {"sppark.log": SPPARK_LOG, "msm.json": json.dumps(msm_doc(70.0, 160.0)),
             "ntt.json": json.dumps(ntt_doc(36.0, 240.0)), "env.json": json.dumps(ENV)}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert ratio.main(["--sppark", str(tmp_path / "sppark.log"), "--msm", str(tmp_path / "msm.json"),
                       "--ntt", str(tmp_path / "ntt.json"), "--env", str(tmp_path / "env.json"), "--note", "compile 12 s",
                       "--md", str(tmp_path / "ratio.md"), "--json", str(tmp_path / "ratio.json")]) == 0
    text = (tmp_path / "ratio.md").read_text()
    assert "NVIDIA H200 (driver 580.159.04" in text and "- code: commit abc123def456, GPU sources 0123456789ab\n" in text and "- compile 12 s" in text
    assert "| G1 MSM | 2^24 | 70.00 | 154.40 | 2.21x | <= 80 ms and >= 1.9x sppark | " + MET + " |" in text
    assert "| G1 MSM | 2^26 | — | 567.00 (check FAILED) | — |" in text
    doc = json.loads((tmp_path / "ratio.json").read_text())
    assert doc["notes"][1].startswith("device: NVIDIA H200, 132 SMs")
    assert doc["environment"]["commit"] == "abc123def456" and len(doc["rows"]) == len(ratio.ROWS)
    assert {"op": "fr_ntt_fwd", "log2": 24, "median_ms": None, "min_ms": None, "check": "FAIL"} in doc["sppark_all"]


def test_missing_or_broken_inputs_give_a_table_of_unmeasured_rows_and_say_why(tmp_path):
    (tmp_path / "env.json").write_text("")  # the environment step failed
    assert ratio.main(["--sppark", str(tmp_path / "none.log"), "--msm", str(tmp_path / "none.json"),
                       "--env", str(tmp_path / "env.json"), "--md", str(tmp_path / "r.md"), "--json", str(tmp_path / "r.json")]) == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    assert {r["verdict"] for r in doc["rows"]} == {"no goal", "not judged (ours not measured)"}
    assert [n.split(" ")[0] for n in doc["notes"]] == ["none.log:", "none.json", "env.json"]


def test_documents_of_another_shape_are_notes_not_tracebacks(tmp_path):
    """A bench document whose rows ours_from cannot read, or an environment that is no object, leaves its rows not
    measured with a note naming the field; an output folder that does not exist is a usage error before any output."""
    (tmp_path / "msm.json").write_text(json.dumps({"rows": [{"op": "msm", "group": "g1", "log2": 24, "median_ms": "fast"}]}))
    (tmp_path / "ntt.json").write_text("[]")
    (tmp_path / "env.json").write_text(json.dumps({"gpu": "H200"}))
    args = ["--sppark", str(tmp_path / "none.log"), "--msm", str(tmp_path / "msm.json"), "--ntt", str(tmp_path / "ntt.json"),
            "--env", str(tmp_path / "env.json"), "--json", str(tmp_path / "r.json")]
    assert ratio.main([*args, "--md", str(tmp_path / "r.md")]) == 0
    notes = json.loads((tmp_path / "r.json").read_text())["notes"]
    assert "msm.json not read (rows: msm row's median_ms: expected float, got 'fast'): its rows are not measured" in notes
    assert "ntt.json not read (rows: expected a list of objects): its rows are not measured" in notes
    assert any(n.startswith("env.json not read") for n in notes)
    with pytest.raises(SystemExit) as exit_:
        ratio.main([*args, "--md", str(tmp_path / "missing" / "r.md")])
    assert exit_.value.code == 2


def test_kernel_breakdown_sorts_by_time_and_names_the_rest_of_the_call():
    doc = kernel_times.breakdown({"msm.cu:msm_piece_sum": (1, 60.0), "msm.cu:msm_digits": (1, 10.0)}, [100.0, 90.0, 110.0])
    assert [r["kernel"] for r in doc["rows"]] == ["msm.cu:msm_piece_sum", "msm.cu:msm_digits", kernel_times.OUTSIDE]
    assert doc["call_ms"] == 100.0 and doc["rows"][2]["ms"] == pytest.approx(30.0)
    assert doc["rows"][0]["share"] == pytest.approx(0.6)
    text = kernel_times.markdown({"msm_h": doc})
    assert "| msm.cu:msm_piece_sum | 1 | 60.000 | 60.0% |" in text and "100.00 ms a call" in text


NCU_RAW = """\
==PROF== Connected to process 42
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","launch__registers_per_thread","sm__throughput.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active"
"","","","","","","","%","usecond","register/thread","%","%"
"0","42","python3","h","msm_piece_sum_g1","1","7","10","1,500.5","128","90","40"
"1","42","python3","h","cupy_cumsum","1","7","50","20","32","5","80"
"2","42","python3","h","msm_piece_sum_g1","1","7","30","499.5","128","70","60"
"3","42","python3","h","ntt_pass","1","7","20","30","64","10","50"
"""


def test_ncu_csv_is_summed_per_kernel_with_time_weighted_speed_of_light(tmp_path):
    rows = kernel_times.parse_ncu_csv(NCU_RAW)
    assert [r["kernel"] for r in rows] == ["msm_piece_sum_g1", "ntt_pass", "cupy_cumsum"]
    piece = rows[0]
    assert (piece["launches"], piece["ms"], piece["registers"]) == (2, pytest.approx(2.0), 128)
    # time-weighted: SM (90 x 1.5005 + 70 x 0.4995) / 2.0 = 85.005; memory (10 x 1.5005 + 30 x 0.4995) / 2.0 = 14.995
    assert piece["sm_pct"] == pytest.approx(85.005) and piece["memory_pct"] == pytest.approx(14.995)
    assert piece["occupancy_pct"] == pytest.approx(44.995)
    assert [r["limit"] for r in rows] == ["compute (SM)", "latency", "latency"]
    assert kernel_times.speed_of_light_limit(20.0, 75.0) == "memory"
    for broken in ("==PROF== no kernels were profiled\n", '"ID","Kernel Name"\n"0","k"\n'):
        with pytest.raises(ValueError):
            kernel_times.parse_ncu_csv(broken)
    (tmp_path / "ncu.csv").write_text(NCU_RAW)
    assert kernel_times.main(["--ncu-csv", str(tmp_path / "ncu.csv"), "--title", "msm_h at 2^24",
                              "--md", str(tmp_path / "ncu.md")]) == 0
    text = (tmp_path / "ncu.md").read_text()
    assert text.startswith("### msm_h at 2^24: Nsight Compute")
    assert "| msm_piece_sum_g1 | 2 | 2.000 | 85.0 | 15.0 | 45.0 | 128 | compute (SM) |" in text


NCU_HEADER = '"Kernel Name","gpu__time_duration.sum"\n'


@pytest.mark.parametrize("content, problem", [(None, "FileNotFoundError"),
                                              ("==PROF== no kernels were profiled\n", "no CSV rows"),
                                              (NCU_HEADER + '"k","abc"\n', "could not convert"),
                                              (NCU_HEADER + '"k"\n', "a row's width differs"),
                                              (NCU_HEADER + '"k","' + "9" * 200_000 + '"\n', "not CSV"),
                                              (NCU_HEADER + '"","minutes"\n"k","1"\n', "unknown time unit")])
def test_kernel_times_refuses_an_unreadable_ncu_csv_in_one_line(tmp_path, capsys, content, problem):
    """--ncu-csv on a missing file, ncu output without CSV, a non-number, a short row, a field beyond the csv module's
    limit and an unknown time unit: exit 2, one error line."""
    path = tmp_path / "ncu.csv"
    if content is not None:
        path.write_text(content)
    assert kernel_times.main(["--ncu-csv", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: --ncu-csv: {path}: ") and problem in err and err.count("\n") == 1


def test_kernel_times_refuses_an_unknown_phase(capsys):
    with pytest.raises(SystemExit) as exit_info:
        kernel_times.main(["--phases", "msm_h,batch_add"])
    assert exit_info.value.code == 2 and "unknown batch_add" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [(["--log2", "0"], "--log2: must be at least 1 and at most 27, got 0"),
                                           (["--log2", "28"], "--log2: must be at least 1 and at most 27, got 28"),
                                           (["--repeats", "0"], "--repeats: must be at least 1, got 0"),
                                           (["--tail-circuits", "-1"], "--tail-circuits: must be at least 1, got -1"),
                                           (["--tail-window-bits", "21"],
                                            "--tail-window-bits: must be at least 1 and at most 20, got 21")])
def test_kernel_times_refuses_sizes_out_of_range_before_any_work(capsys, args, message):
    with pytest.raises(SystemExit) as exit_info:
        kernel_times.main(["--phases", "tail_msm", *args])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [([], "usage"), (["--kernels"], "usage"), (["/tmp/x", "--bogus"], "unknown option --bogus"),
                                           (["/tmp/x", "--budget-s", "soon"], "--budget-s needs whole seconds")])
def test_driver_refuses_bad_arguments_before_any_work(args, message):
    done = subprocess.run(["bash", str(ROOT / "bench" / "bench_vs_sppark.sh"), *args], capture_output=True, text=True)
    assert done.returncode == 2 and message in done.stderr


class HostEvent:
    """A host stand-in for a CUDA event: the emulated kernels run synchronously, so a host clock times them."""

    def record(self):
        self.at = time.perf_counter()

    def synchronize(self):
        pass


def host_elapsed_ms(start, stop):
    return (stop.at - start.at) * 1e3


def test_a_whole_proofs_breakdown_gives_each_phase_its_kernels_and_its_time_outside_them():
    """breakdown with phase times (the prove profile): hand-worked numbers. ntt_h took 40 ms at its boundary, 35 of
    them in its launches: its outside row holds 5; msm_h 61 with 60 in launches: 1; the call (110 ms) keeps 9 outside
    every phase. The markdown's phase table says the same, with each phase's largest kernel."""
    per_label = {"ntt_h: ntt.cu:ntt_pass": (3, 30.0), "ntt_h: ntt.cu:scale": (1, 5.0),
                 "msm_h: msm.cu:msm_piece_sum_g1": (1, 60.0)}
    doc = kernel_times.breakdown(per_label, [110.0, 110.0, 110.0], {"ntt_h": 40.0, "msm_h": 61.0})
    rows = {r["kernel"]: r["ms"] for r in doc["rows"]}
    assert rows[f"ntt_h: {kernel_times.OUTSIDE}"] == pytest.approx(5.0)
    assert rows[f"msm_h: {kernel_times.OUTSIDE}"] == pytest.approx(1.0)
    assert rows[kernel_times.OUTSIDE] == pytest.approx(9.0) and doc["rows"][-1]["kernel"] == kernel_times.OUTSIDE
    assert doc["phases"] == {"ntt_h": {"ms": 40.0, "in_launches": 35.0}, "msm_h": {"ms": 61.0, "in_launches": 60.0}}
    text = kernel_times.markdown({"prove at 2^27": doc})
    assert "| ntt_h | 40.000 | 35.000 | 5.000 | ntt.cu:ntt_pass (30.000 ms) |" in text
    assert "| msm_h | 61.000 | 60.000 | 1.000 | msm.cu:msm_piece_sum_g1 (60.000 ms) |" in text


def test_phase_labels_name_the_running_phase_in_each_launchs_label():
    """phase_labels over the reference's PhaseTimer: launches inside timer.run('evaluate', ...) are labelled
    'evaluate: what', launches between phases keep their own label, and the phase's time is kept."""
    from reference.prover import PhaseTimer

    launches = kernel_times.LaunchTimer((HostEvent, host_elapsed_ms))
    launch = launches.wrap(lambda kernel, grid, block, args, what: None)
    launches.enabled = True
    timer = kernel_times.phase_labels(launches, PhaseTimer)
    timer.run("evaluate", lambda: launch(None, 1, 1, (), "evaluate.cu:evaluate_rows"))
    launch(None, 1, 1, (), "staging: copy")
    timer.run("prep", lambda: [launch(None, 1, 1, (), "prep: fused") for _ in range(2)])
    assert {k: n for k, (n, _) in launches.per_label_ms().items()} == {
        "evaluate: evaluate.cu:evaluate_rows": 1, "staging: copy": 1, "prep: prep: fused": 2}
    assert set(timer.totals) == {"evaluate", "prep"} and launches.phase is None


def test_launch_timer_sees_each_msm_launch_once(kernel_emulation):
    """On the host build of msm.cu: every kernel of the MSM driver (gpu/msm.py's _msm_one, reduce_groups) is
    recorded once a launch, under the points backend's label, and nothing while the timer is disabled."""
    from gpu.msm import MsmEngine
    from gpu.points import G1_GROUP
    from py_ecc.optimized_bls12_381 import G1, multiply

    with kernel_emulation("msm.cu"):
        engine = MsmEngine.from_points([multiply(G1, k) for k in range(1, 9)], G1_GROUP)
        with kernel_times.timing_launches((HostEvent, host_elapsed_ms)) as timer:
            engine.msm_ints([[3, 1, 4, 1, 5, 9, 2, 6]], window_bits=4)
            assert timer.records == []
            timer.enabled = True
            engine.msm_ints([[3, 1, 4, 1, 5, 9, 2, 6]], window_bits=4)
        per_label = timer.per_label_ms()
    # c = 4: 8 buckets a window, one segment (gpu/msm.py SEGMENT_BUCKETS = 32), so no sum_groups pass
    assert {k: n for k, (n, _) in per_label.items()} == {
        "msm.cu:msm_digits": 1, "msm.cu:msm_scatter": 1, "msm.cu:msm_piece_count": 1, "msm.cu:msm_piece_keys": 1,
        "msm.cu:msm_piece_sum_g1": 1,
        "msm.cu:msm_bucket_sum_g1": 1, "msm.cu:msm_window_segments_g1": 1, "msm.cu:msm_combine_g1": 1}
    assert all(ms >= 0 for _, ms in per_label.values())


@pytest.mark.gpu
def test_launch_timer_times_every_ntt_h_launch_within_the_call():
    doc = kernel_times.profile_ntt_h(12, 2, nvtx=False)
    names = [r["kernel"] for r in doc["rows"]]
    # bellman's six-transform route (gpu/ntt_h.py): the product on the coset and c's scaled coefficients are fused into
    # the transforms' last passes, so the call launches transform passes only (and fr_powers if a table is new)
    assert any(n.startswith("NTT pass") for n in names)
    assert {n for n in names[:-1] if not n.startswith("NTT pass")} <= {"fr_powers"}
    assert names[-1] == kernel_times.OUTSIDE
    assert all(r["ms"] > 0 for r in doc["rows"][:-1])
    assert doc["rows"][-1]["ms"] >= -1e-3  # the launches, each timed inside the call, add up to no more than it


@pytest.mark.gpu
def test_launch_timer_counts_each_cupy_msm_launch_once():
    doc = kernel_times.profile_msm_h(10, 2, nvtx=False)
    launches = {r["kernel"]: r["launches"] for r in doc["rows"][:-1]}
    assert launches["msm.cu:msm_digits"] == 1 and launches["msm.cu:msm_piece_sum_g1"] == 1
    assert doc["rows"][-1]["ms"] >= -1e-3


@pytest.mark.gpu
def test_the_prove_profile_labels_each_launch_with_its_phase():
    """kernel_times --phases prove at 2^10: every phase of the proof is timed at its boundary, and the launches of
    each phase that launches the project's kernels carry its name."""
    from reference.prover import PHASES

    doc = kernel_times.profile_prove(10, 2, nvtx=False)
    assert set(PHASES) <= set(doc["phases"]) and all(t["ms"] > 0 for t in doc["phases"].values())
    launched = {r["kernel"].split(": ")[0] for r in doc["rows"] if r["launches"] is not None}
    assert {"evaluate", "ntt_h", "msm_h", "batch_add", "tail_msm", "assemble"} <= launched


def test_porep_tails_profile_input_and_forced_window_width(kernel_emulation):
    """kernel_times.porep_tails (emulated kernels, 2^12, 2 circuits): the tails' shape (L 0.1% of aux, A plus every
    input, B only ONE) and every tail sum against py_ecc's naive MSM, with c chosen per job and forced to 8."""
    import numpy as np
    from py_ecc.optimized_bls12_381 import normalize

    from gpu.limbs import limbs_to_ints
    from gpu.points import download_points
    from gpu.tail_msm import tail_msm
    from reference.msm import msm_naive
    from vectors.porep_arrays import porep_sizes

    with kernel_emulation("msm.cu"):
        splits, queries = kernel_times.porep_tails(12, 2)
        sizes = porep_sizes(12)
        assert [len(splits[q].tail_indices) for q in ("l", "a", "b")] == [
            int(sizes.num_aux * kernel_times.TAIL_SHARE_OF_AUX), int(sizes.num_aux * kernel_times.TAIL_SHARE_OF_AUX)
            + sizes.num_inputs, 1]
        for window_bits in (None, 8):
            sums = tail_msm(splits, queries, window_bits)
            for query, split in (("l", "l"), ("a", "a"), ("b_g1", "b"), ("b_g2", "b")):
                bases = getattr(queries, query)
                points = download_points(bases.words, bases.group)
                tail = [points[int(i)] for i in splits[split].tail_indices]
                got = download_points(sums[query], bases.group)
                for c in range(2):
                    scalars = limbs_to_ints(np.asarray(splits[split].tail_scalars[c]))
                    assert normalize(got[c]) == normalize(msm_naive(tail, scalars, identity=bases.group.identity))
