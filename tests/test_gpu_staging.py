"""gpu/staging.py on the CPU: what each staging mode hands to the device copy, that pinning is always undone, the
host layouts of keys and witnesses (decoded independently), the stage names and kinds, the break-even arithmetic,
and python -m gpu prove's timing entries. The CUDA calls themselves (cudaHostAlloc, cudaHostRegister, the copies)
run on the device: tests/test_gpu_prover.py and bench/bench_staging.py."""
import mmap

import numpy as np
import pytest

from gpu.staging import (COPIES, HOST_STAGES, PAGEABLE, PINNED_COPY, REGISTERED, WHOLE_RUN, StageTimer, break_even_uploads,
                         key_host_arrays, page_ranges, stage_kind, upload_arrays, witness_host_array)
from reference.field import R


class RecordingTimer:
    """GpuPhaseTimer's interface (ms, run) without CUDA events: records the order of the timed names."""

    def __init__(self):
        self.ms, self.order = {}, []

    def run(self, name, fn, *args):
        self.order.append(name)
        self.ms[name] = self.ms.get(name, 0.0) + 1.0
        return fn(*args)


class FakeHost:
    """CupyHost's interface on numpy: records what is pinned, registered, copied, and released."""

    def __init__(self, fail_on=None, refuse_register_after=None):
        self.events, self.fail_on, self.refuse_register_after = [], fail_on, refuse_register_after
        self.registered = set()

    def pinned_empty(self, shape, dtype):
        owner = object()
        self.events.append(("alloc", shape))
        return np.zeros(shape, dtype), owner

    def register(self, start, length):
        assert start % mmap.PAGESIZE == 0 and length % mmap.PAGESIZE == 0
        assert not any(s < start + length and start < s + n for s, n in self.registered), "a page registered twice"
        if self.refuse_register_after is not None and len(self.registered) >= self.refuse_register_after:
            raise RuntimeError("cudaErrorHostMemoryAlreadyRegistered (test)")
        self.registered.add((start, length))
        self.events.append(("register", start, length))

    def unregister(self, start):
        self.registered = {(s, n) for s, n in self.registered if s != start}
        self.events.append(("unregister", start))

    def to_device(self, array, page_locked):
        if self.fail_on is not None and array.shape == self.fail_on:
            raise RuntimeError("cudaErrorMemoryAllocation (test)")
        self.events.append(("copy", array.ctypes.data, page_locked))
        return array.copy()


ARRAYS = {"a": np.arange(24, dtype=np.uint32).reshape(3, 8), "b": np.arange(16, dtype=np.uint32).reshape(2, 8) + 100,
          "empty": np.zeros((0, 8), dtype=np.uint32)}


def _upload(mode, host):
    timer = RecordingTimer()
    out = upload_arrays(ARRAYS, mode, "keys", StageTimer(timer), host)[None]
    return timer, out


def test_pageable_copies_the_staged_arrays_themselves_and_pins_nothing():
    host = FakeHost()
    timer, out = _upload(PAGEABLE, host)
    assert all(np.array_equal(out[n], ARRAYS[n]) for n in ARRAYS)
    assert [e for e in host.events if e[0] != "copy"] == []
    assert [e[1] for e in host.events] == [ARRAYS[n].ctypes.data for n in ARRAYS] and not any(e[2] for e in host.events)
    assert timer.order == ["h2d_a", "h2d_b", "h2d_empty"] and "pin_keys" not in timer.ms and "unpin_keys" not in timer.ms


def test_pinned_copy_copies_from_page_locked_buffers_holding_the_same_values():
    host = FakeHost()
    timer, out = _upload(PINNED_COPY, host)
    assert all(np.array_equal(out[n], ARRAYS[n]) for n in ARRAYS)
    assert [e[1] for e in host.events if e[0] == "alloc"] == [(3, 8), (2, 8)]  # nothing to lock for the empty array
    copied_from = [e[1] for e in host.events if e[0] == "copy"]
    assert ARRAYS["a"].ctypes.data not in copied_from and all(e[2] for e in host.events if e[0] == "copy")
    assert {"pin_keys", "unpin_keys"} <= set(timer.ms)


def test_registered_locks_the_pages_of_the_arrays_in_place_and_always_unlocks_them():
    host = FakeHost()
    timer, out = _upload(REGISTERED, host)
    assert all(np.array_equal(out[n], ARRAYS[n]) for n in ARRAYS)
    ranges = [(e[1], e[2]) for e in host.events if e[0] == "register"]
    for name in ("a", "b"):  # copied in place, from registered pages
        address = ARRAYS[name].ctypes.data
        assert ("copy", address, True) in host.events
        assert any(s <= address and address + ARRAYS[name].nbytes <= s + n for s, n in ranges)
    assert host.registered == set() and [e[0] for e in host.events][-len(ranges):] == ["unregister"] * len(ranges)
    failing = FakeHost(fail_on=(2, 8))
    with pytest.raises(RuntimeError, match="cudaErrorMemoryAllocation"):
        upload_arrays(ARRAYS, REGISTERED, "keys", StageTimer(RecordingTimer()), failing)
    assert failing.registered == set()  # a failed copy still unlocks what was locked
    backing = np.ones(1 << 20, dtype=np.uint32)
    far_apart = {"a": backing[: 1 << 12], "b": backing[1 << 19 : (1 << 19) + (1 << 12)]}  # 2 MiB apart: two ranges
    refusing = FakeHost(refuse_register_after=1)
    with pytest.raises(RuntimeError, match="AlreadyRegistered"):
        upload_arrays(far_apart, REGISTERED, "keys", StageTimer(RecordingTimer()), refusing)
    assert refusing.registered == set() and refusing.events[-1][0] == "unregister"  # a failed lock undoes the others


def test_page_ranges_cover_every_span_and_never_register_a_page_twice():
    page = 4096
    assert page_ranges([(100, 50), (300, 20)], page) == [(0, page)]  # two small arrays in one page: one range
    assert page_ranges([(page - 8, 16)], page) == [(0, 2 * page)]  # straddles a page boundary
    assert page_ranges([(0, page), (page, page), (5 * page + 1, 1), (7, 0)], page) == [(0, 2 * page), (5 * page, page)]
    assert page_ranges([], page) == []


def test_an_unknown_staging_is_refused():
    with pytest.raises(ValueError, match="not one of pageable, pinned-copy, registered"):
        upload_arrays(ARRAYS, "mapped", "keys", StageTimer(RecordingTimer()), FakeHost())


def test_witnesses_are_staged_as_little_endian_limbs_of_z():
    zs = [[1, 5, R - 1], [1, 2**254 + 3, 0]]
    z = witness_host_array(zs)
    assert z.shape == (2, 3, 8) and z.dtype == np.uint32
    decoded = [[sum(int(w) << (32 * k) for k, w in enumerate(row)) for row in circuit] for circuit in z]
    assert decoded == zs


def test_keys_are_staged_in_the_device_layout_per_query():
    from gpu.points import G1_GROUP, G2_GROUP, words_to_points
    from py_ecc.optimized_bls12_381 import eq
    from vectors.bundled import DATA_DIR
    from vectors.format import load_vector

    pk = load_vector(DATA_DIR / "porep-log03.json").pk
    arrays = key_host_arrays(pk)
    assert list(arrays) == ["key_h", "key_l", "key_a", "key_b_g1", "key_b_g2"]
    for query, group in (("h", G1_GROUP), ("l", G1_GROUP), ("b_g2", G2_GROUP)):
        words = arrays[f"key_{query}"]
        assert words.shape == (len(getattr(pk, query)), group.affine_words)
        assert all(eq(p, q) for p, q in zip(words_to_points(words, group), getattr(pk, query)))


def test_stage_names_and_kinds():
    assert COPIES == ("h2d_key_h", "h2d_key_l", "h2d_key_a", "h2d_key_b_g1", "h2d_key_b_g2", "h2d_witnesses", "d2h_proofs",
                      "d2h_sums")
    assert {stage_kind(c) for c in COPIES} == {"copy"} and stage_kind("d2h_proofs") == "copy"
    assert {stage_kind(s) for s in HOST_STAGES} == {"host"}
    assert {"open_devices", "prepare_circuit", "witness_vectors", "plan_memory", "compile_kernels",
            "release_cached_blocks"} <= set(HOST_STAGES)
    assert stage_kind("msm_h") == "phase"


def test_stage_timer_adds_wall_clock_host_stages_and_delegates_copies():
    timer = RecordingTimer()
    stages = StageTimer(timer)
    assert stages.host("stage_keys", sum, [1, 2]) == 3 and stages.host("stage_keys", len, [1]) == 1
    assert stages.copy("h2d_witnesses", len, "abc") == 3
    assert timer.order == ["h2d_witnesses"] and stages.ms is timer.ms and stages.ms["stage_keys"] >= 0


def test_break_even_is_pin_cost_over_gain_per_upload():
    """The issue's numbers: pinning 44 GiB cost 5.7 s; a pageable upload 15.6 s; a pinned one (say) 4 s."""
    assert break_even_uploads(5.7, 15.6, 4.0) == pytest.approx(5.7 / 11.6)
    assert break_even_uploads(5.7, 4.0, 4.0) is None and break_even_uploads(1.0, 3.0, 3.5) is None


def test_gpu_prove_timing_entries_leave_out_the_warmup_and_name_each_block():
    from types import SimpleNamespace

    from conformance.timing import check_timing_document, timing_document
    from gpu.__main__ import timing_entries

    vector = SimpleNamespace(id="porep-log03", r1cs=SimpleNamespace(log_n=3), witnesses=[0, 1])

    def run(msm_ms, devices):
        blocks = [SimpleNamespace(ms={"msm_h": msm_ms, "h2d_witnesses": 0.5}) for _ in devices]
        return SimpleNamespace(devices=devices, blocks=[range(k, k + 1) for k in range(len(devices))], runs=blocks)

    runs = [(run(m, [0]), {"read_vector": 200.0, "h2d_key_h": 2.0}) for m in (90.0, 10.0, 12.0, 11.0)]
    entries = {(e["backend"], e["phase"]): e for e in timing_entries(vector, runs, "pinned-copy")}
    assert entries[("gpu", "msm_h")]["runs"] == [0.010, 0.012, 0.011] and entries[("gpu", "msm_h")]["warmup_runs"] == 1
    assert entries[("gpu", "read_vector")]["kind"] == "host" and entries[("gpu", "h2d_key_h")]["kind"] == "copy"
    assert entries[("gpu", "msm_h")]["shape"] == {"log_n": 3, "circuits": 2, "gpus": 1, "staging": "pinned-copy"}
    check_timing_document(timing_document("gpu prove", "test", list(entries.values()), {"gpu": {"name": "X"}}), "t")
    two_blocks = [(run(m, [0, 0]), {}) for m in (9.0, 1.0)]
    assert {e["backend"] for e in timing_entries(vector, two_blocks, "pageable")} == {"gpu:0:0", "gpu:0:1"}


# ---------------------------------------------------------------------------------------------
# On the device


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [PAGEABLE, PINNED_COPY, REGISTERED])
def test_each_staging_mode_copies_the_exact_bytes(mode):
    import cupy

    from gpu.staging import CupyHost

    timer = StageTimer()
    out = upload_arrays(ARRAYS, mode, "keys", timer, CupyHost())[None]
    assert all(np.array_equal(cupy.asnumpy(out[n]), ARRAYS[n]) for n in ARRAYS)
    assert ("pin_keys" in timer.ms) == (mode != PAGEABLE)


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [PAGEABLE, PINNED_COPY, REGISTERED])
def test_gpu_prove_with_each_staging_writes_the_reference_proofs_and_a_timing_record(tmp_path, mode):
    import json

    from conformance.timing import load_timings
    from gpu.__main__ import main
    from reference.cli import proof_json
    from vectors.bundled import DATA_DIR
    from vectors.format import load_vector

    path = DATA_DIR / "porep-log04.json"
    out, timings = tmp_path / "proofs.json", tmp_path / "timings.json"
    assert main(["prove", str(path), "--staging", mode, "--repeat", "3", "--quiet", "--out", str(out),
                 "--timings-json", str(timings)]) == 0
    vector = load_vector(path)
    expected = [proof_json(c.expected.assemble) for c in vector.circuits]
    assert json.loads(out.read_text()) == (expected[0] if len(expected) == 1 else expected)
    record = load_timings(timings)
    phases = {e["phase"]: e for e in record["entries"]}
    assert {"read_vector", "stage_keys", "h2d_key_h", "stage_witnesses", "h2d_witnesses", "encode_proofs", "msm_h"} <= set(phases)
    assert ("pin_keys" in phases) == (mode != PAGEABLE) and len(phases["msm_h"]["runs"]) == 2
    assert record["environment"]["gpu"]["name"]


def test_gpu_prove_times_the_whole_run_around_its_stages(monkeypatch):
    """`whole_run` spans everything _prove_once does: the proof itself (prove_multi, timed by its own phase timers,
    not in the host stages) shows in it and in no host stage, so time between the stages has an entry of its own."""
    import sys
    import time
    from types import SimpleNamespace

    import gpu.__main__ as gpu_main

    vector = SimpleNamespace(r1cs=SimpleNamespace(log_n=3), pk=None, witnesses=[], convention=None)
    pause_s = 0.05
    monkeypatch.setitem(sys.modules, "cupy", SimpleNamespace(cuda=SimpleNamespace(memory=SimpleNamespace(OutOfMemoryError=MemoryError))))
    monkeypatch.setattr(gpu_main, "load_vector", lambda path, say: vector)
    monkeypatch.setattr(gpu_main, "open_devices", lambda gpus, devices: [0])
    monkeypatch.setattr(gpu_main, "upload_keys", lambda *args: {})
    monkeypatch.setattr(gpu_main, "prove_multi", lambda *args, **kwargs: time.sleep(pause_s) or SimpleNamespace(proofs=[]))
    monkeypatch.setattr(gpu_main, "proofs_document", lambda proofs: "[]")
    args = SimpleNamespace(vector="v.json", gpus=1, devices=None, staging=PAGEABLE)
    _, _, encoded, host_ms = gpu_main._prove_once(args, print)
    assert encoded == "[]" and set(host_ms) == {"read_vector", "open_devices", "encode_proofs", "whole_run"}
    assert host_ms["whole_run"] >= pause_s * 1000 + host_ms["read_vector"] + host_ms["open_devices"] + host_ms["encode_proofs"]
    assert stage_kind("whole_run") == "host"


def test_gpu_prove_timing_entries_refuse_a_name_timed_in_some_runs_only():
    """A name missing from one run would pair the other runs' times with the wrong runs (or drop the name from the
    record, as it did): an error naming it."""
    from types import SimpleNamespace

    from gpu.__main__ import timing_entries
    from reference.errors import InvalidInputError

    vector = SimpleNamespace(id="porep-log03", r1cs=SimpleNamespace(log_n=3), witnesses=[0])
    one_block = SimpleNamespace(devices=[0], blocks=[range(0, 1)], runs=[SimpleNamespace(ms={"msm_h": 1.0})])
    runs = [(one_block, {"read_vector": 2.0, "pin_keys": 1.0}), (one_block, {"read_vector": 2.0})]
    with pytest.raises(InvalidInputError, match=r"timed in some of the 2 runs only: gpu pin_keys$"):
        timing_entries(vector, runs, PAGEABLE)


def test_gpu_prove_timings_say_what_whole_run_holds_beyond_everything_named():
    """--timings' host table ends with whole_run minus every host stage, copy and phase of the one block (here
    100 - (10 + 2 + 60 + 3 + 1) = 24 ms); with several blocks, which run side by side, it says their times overlap
    instead of subtracting them."""
    from types import SimpleNamespace

    from gpu.__main__ import _host_breakdown

    host_ms = {"read_vector": 10.0, "h2d_key_h": 2.0, WHOLE_RUN: 100.0}
    block = SimpleNamespace(ms={"msm_h": 60.0, "release_cached_blocks": 3.0, "h2d_witnesses": 1.0})
    one = _host_breakdown(host_ms, SimpleNamespace(blocks=[range(0, 1)], runs=[block])).splitlines()
    assert one[-1].split()[:3] == ["not", "named", "24.00"]
    assert "release_cached_blocks" in "\n".join(one)  # the block's host stages are listed
    two = _host_breakdown(host_ms, SimpleNamespace(blocks=[range(0, 1), range(1, 2)], runs=[block, block])).splitlines()
    assert two[-1].split()[:3] == ["not", "named", "-"] and "2 blocks side by side" in two[-1]
