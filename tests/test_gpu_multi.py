"""Circuits spread over several GPUs (gpu/multi.py), the --gpus options of python -m gpu and python -m conformance.

On one GPU the split is checked by running several blocks on device 0 (``devices=[0, 0, 0]``); the proofs must
equal the one-GPU call's and the vector's expected proofs (the reference's). The block rule and the errors
are checked without a GPU.
"""
import json

import pytest

from reference.cli import proof_json
from reference.errors import InvalidInputError
from vectors.bundled import DATA_DIR
from vectors.format import load_vector

from conftest import queue_busy_work

MULTI = DATA_DIR / "multi-circuit-log07.json"


@pytest.mark.parametrize("circuits, gpus, sizes", [(10, 1, [10]), (10, 2, [5, 5]), (10, 4, [3, 3, 2, 2]),
                                                   (3, 4, [1, 1, 1, 0]), (7, 3, [3, 2, 2])])
def test_blocks_are_contiguous_and_differ_by_at_most_one(circuits, gpus, sizes):
    from gpu.multi import split_blocks

    blocks = split_blocks(circuits, gpus)
    assert [len(b) for b in blocks] == sizes
    assert [i for b in blocks for i in b] == list(range(circuits))


def test_more_gpus_than_visible_is_refused():
    from gpu.device import device_count
    from gpu.multi import resolve_devices

    visible = device_count()
    with pytest.raises(InvalidInputError, match=f"asks for {visible + 1} GPUs but {visible} CUDA device"):
        resolve_devices(gpus=visible + 1)
    with pytest.raises(InvalidInputError, match="not visible"):
        resolve_devices(devices=[visible])
    with pytest.raises(InvalidInputError, match="at least 1"):
        resolve_devices(gpus=0)


def test_conformance_gpus_beyond_the_visible_devices_exits_2(capsys):
    from conformance.__main__ import main
    from gpu.device import device_count
    from reference.cli import run_main

    code = run_main(main, ["run", "--quiet", "--gpus", str(device_count() + 1), str(DATA_DIR / "porep-log02.json")])
    assert code == 2
    assert "--gpus" in capsys.readouterr().err


@pytest.mark.gpu
@pytest.mark.parametrize("devices, sizes", [(None, [4]), ([0], [4]), ([0, 0], [2, 2]), ([0, 0, 0], [2, 1, 1]),
                                            ([0, 0, 0, 0, 0], [1, 1, 1, 1, 0])])
def test_split_over_blocks_equals_the_one_gpu_call(devices, sizes):
    """The 4 circuits of the vector in blocks of the given sizes (None: every visible device, one on this machine)."""
    from gpu.multi import prove_multi
    from gpu.prover import prove

    vector = load_vector(MULTI)
    expected = [proof_json(c.expected.assemble) for c in vector.circuits]
    plain = prove(vector.r1cs, vector.pk, vector.witnesses)
    run = prove_multi(vector.r1cs, vector.pk, vector.witnesses, devices=devices)
    assert [proof_json(p) for p in plain.proofs] == expected
    assert [proof_json(p) for p in run.proofs] == expected
    assert [len(b) for b in run.blocks] == sizes


@pytest.mark.gpu
def test_cli_devices_option_writes_the_reference_proofs(tmp_path):
    from gpu.__main__ import main

    out = tmp_path / "proofs.json"
    timings = tmp_path / "timings.json"
    assert main(["prove", str(MULTI), "--devices", "0,0", "--quiet", "--out", str(out), "--timings-json", str(timings)]) == 0
    vector = load_vector(MULTI)
    assert json.loads(out.read_text()) == [proof_json(c.expected.assemble) for c in vector.circuits]
    blocks = json.loads(timings.read_text())["blocks"]
    assert [b["circuits"] for b in blocks] == [[0, 2], [2, 4]] and all(b["device"] == 0 for b in blocks)


@pytest.mark.gpu
def test_conformance_runs_once_per_gpu_and_names_it(tmp_path):
    from conformance.__main__ import main

    code = main(["run", "--quiet", "--gpus", "1", "--phases", "evaluate,assemble", "--report", str(tmp_path),
                 str(DATA_DIR / "porep-log03.json")])
    assert code == 0
    report = json.loads((tmp_path / "report.json").read_text())
    text = json.dumps(report)
    assert "gpu:0" in text and "pci_bus_id" in text


def _two_devices() -> bool:
    from gpu.device import device_count

    return device_count() >= 2


@pytest.mark.gpu
@pytest.mark.skipif(not _two_devices(), reason="needs two CUDA devices (an nvidia-h100-x2 machine)")
def test_blocks_on_two_devices_give_the_reference_proofs():
    from gpu.multi import prove_multi

    vector = load_vector(MULTI)
    run = prove_multi(vector.r1cs, vector.pk, vector.witnesses, devices=[1, 0])
    assert [proof_json(p) for p in run.proofs] == [proof_json(c.expected.assemble) for c in vector.circuits]


@pytest.mark.gpu
@pytest.mark.skipif(not _two_devices(), reason="needs two CUDA devices (an nvidia-h100-x2 machine)")
def test_ntt_tables_live_on_the_device_that_transforms():
    """A two-pass transform (2^11, half table and twiddles) on device 1, then on device 0: both equal the reference's
    NTT, and the tables device 1's transform cached are on device 1 (read back from the caches with device 0 current:
    a cache keyed without the device would hand device 0's, or device 1's to device 0)."""
    import random

    import cupy

    from gpu import ntt
    from gpu.field import to_device, to_ints
    from reference.domain import EvaluationDomain
    from reference.field import R

    log_n = 11
    rng = random.Random("test-ntt-two-devices")
    values = [rng.randrange(R) for _ in range(1 << log_n)]
    expected = EvaluationDomain(log_n).ntt(values)
    for d in (1, 0):
        with cupy.cuda.Device(d):
            assert to_ints(ntt.transform(to_device(values), half_table=True)) == expected, d
    with cupy.cuda.Device(0):
        assert ntt._twiddles(1, log_n, False, ntt.ROOT_GENERATOR)[0].device.id == 1
        assert ntt._twiddles(0, log_n, False, ntt.ROOT_GENERATOR)[0].device.id == 0
    assert {(d, table.device.id) for (d, *_), table in ntt._LARGE_TABLES.items()} >= {(0, 0), (1, 1)}
    assert all(table.device.id == d for (d, *_), table in ntt._LARGE_TABLES.items())


@pytest.mark.gpu
def test_keys_are_uploaded_before_the_blocks_streams_read_them():
    """keys_on copies the proving key on the calling thread's stream; the blocks then read it on streams of their own
    (run_on_devices), not ordered after that one: keys_on returns only once the copies have run. Here work queued
    ahead of the copies would still be running, were it to return with them queued."""
    import cupy

    from gpu.multi import keys_on

    vector = load_vector(MULTI)
    queue_busy_work()
    keys_on(vector.pk, [cupy.cuda.Device().id])
    assert cupy.cuda.get_current_stream().done, "the proving key was handed to the blocks with its copies queued"
