"""The whole GPU prover: proofs bit-identical to the reference's on every checked-in vector (GPU only),
the snarkjs-convention interop vector included (its expected proofs, and a pairing check against
snarkjs's own verification_key.json)."""
import json
from pathlib import Path

import pytest

from reference.cli import proof_json
from reference.errors import UnsatisfiedConstraintError
from reference.field import R
from reference.prover import Witness
from vectors.bundled import SNARKJS_INTEROP, bundled_paths
from vectors.format import load_vector

pytestmark = pytest.mark.gpu

VECTORS = bundled_paths()
SNARKJS_DIR = Path(__file__).resolve().parent.parent / "interop" / "snarkjs"


@pytest.fixture(scope="module")
def gpu_prove():
    from gpu.prover import prove

    return prove


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_gpu_proofs_equal_the_reference(gpu_prove, path):
    vector = load_vector(path)
    run = gpu_prove(vector.r1cs, vector.pk, vector.witnesses, convention=vector.convention)
    expected = [proof_json(c.expected.assemble) for c in vector.circuits]
    assert [proof_json(p) for p in run.proofs] == expected
    assert set(run.ms) >= {"evaluate", "ntt_h", "msm_h", "prep", "batch_add", "tail_msm", "assemble"}
    # what runs between the phases is timed too (gpu/staging.py), so that a run's wall clock is all named
    assert set(run.ms) >= {"prepare_circuit", "witness_vectors", "plan_memory", "compile_kernels", "release_cached_blocks",
                           "h2d_witnesses", "d2h_proofs", "d2h_sums"}


def test_repeated_runs_are_identical(gpu_prove):
    vector = load_vector(next(p for p in VECTORS if p.stem == "multi-circuit-log07"))
    first = [proof_json(p) for p in gpu_prove(vector.r1cs, vector.pk, vector.witnesses).proofs]
    second = [proof_json(p) for p in gpu_prove(vector.r1cs, vector.pk, vector.witnesses).proofs]
    assert first == second


def test_unsatisfied_witness_is_refused(gpu_prove):
    vector = load_vector(next(p for p in VECTORS if p.stem == "porep-log05"))
    w = vector.witnesses[0]
    aux = list(w.aux)
    aux[0] = (aux[0] + 1) % R
    with pytest.raises(UnsatisfiedConstraintError, match="constraint"):
        gpu_prove(vector.r1cs, vector.pk, [Witness(w.public_inputs, aux, w.r, w.s)])


def test_snarkjs_vector_proofs_equal_its_expected_proofs(gpu_prove):
    """vectors.bundled.SNARKJS_INTEROP (snarkjs convention: omega = 5^((r-1)/n), c = a*b, h on the odd powers of omega_2n)
    proved on the GPU: the vector's expected proofs, each accepted by the pairing check with snarkjs's verifying key."""
    from reference.verifier import verify
    from vectors.snarkjs import verifying_key_from_json

    vector = load_vector(SNARKJS_INTEROP)
    assert vector.convention.name == "snarkjs"
    run = gpu_prove(vector.r1cs, vector.pk, vector.witnesses, convention=vector.convention)
    assert [proof_json(p) for p in run.proofs] == [proof_json(c.expected.assemble) for c in vector.circuits]
    vk = verifying_key_from_json(json.loads((SNARKJS_DIR / "verification_key.json").read_text()), "verification_key.json")
    assert verify(vk, vector.witnesses[0].public_inputs, run.proofs[0])


def test_cli_snarkjs_format_writes_what_the_reference_writes(tmp_path):
    """python -m gpu prove --format snarkjs --public: snarkjs proof.json / public.json documents of the vector's expected
    proofs and public inputs (vectors/snarkjs.py's writers), as python -m reference prove writes them."""
    from gpu.__main__ import main
    from reference.errors import InvalidInputError
    from vectors.snarkjs import proof_to_json, public_to_json

    vector = load_vector(SNARKJS_INTEROP)
    proofs, public = tmp_path / "proof.json", tmp_path / "public.json"
    argv = ["prove", str(SNARKJS_INTEROP), "--format", "snarkjs", "--out", str(proofs), "--public", str(public), "--quiet"]
    assert main(argv) == 0
    assert json.loads(proofs.read_text()) == [proof_to_json(c.expected.assemble) for c in vector.circuits]
    assert json.loads(public.read_text()) == [public_to_json(w.public_inputs) for w in vector.witnesses]
    with pytest.raises(InvalidInputError, match="--public"):
        main(["prove", str(SNARKJS_INTEROP), "--public", str(public), "--quiet"])


def test_the_prover_builds_every_kernel_module_it_launches_before_its_first_phase(gpu_prove, monkeypatch):
    """gpu/prover.py KERNEL_MODULES: every module a proof (bellman and snarkjs) asks device._compiled for is one that
    device.build_in_parallel built first, so no phase compiles a module at its first launch; the stage is timed."""
    from gpu import device
    from gpu.prover import KERNEL_MODULES
    from gpu.staging import COMPILE_KERNELS

    asked, compiled = [], device._compiled
    monkeypatch.setattr(device, "_compiled", lambda source, options: asked.append((source, options)) or compiled(source, options))
    monkeypatch.setattr(device, "_built", set())  # (an earlier test's proof has built them on this device)
    device.build_in_parallel(KERNEL_MODULES)
    built = set(asked)
    assert len(built) == len(KERNEL_MODULES)
    asked.clear()
    for path in (next(p for p in VECTORS if p.stem == "multi-circuit-log07"), SNARKJS_INTEROP):
        vector = load_vector(path)
        run = gpu_prove(vector.r1cs, vector.pk, vector.witnesses, convention=vector.convention)
        assert COMPILE_KERNELS in run.ms
    assert asked and set(asked) <= built


def test_loaders_built_once_on_a_device_are_not_called_again_there(monkeypatch):
    """build_in_parallel calls each loader of a set once a device: a second call with the same loaders calls none (the
    modules stay loaded), other loaders are called, and loaders whose build failed are called again."""
    from gpu import device

    monkeypatch.setattr(device, "_built", set())
    calls = []
    loaders = (lambda: calls.append("first"), lambda: calls.append("second"))
    device.build_in_parallel(loaders)
    device.build_in_parallel(list(loaders))
    assert sorted(calls) == ["first", "second"]
    device.build_in_parallel(loaders[:1])
    assert sorted(calls) == ["first", "first", "second"]
    failures = []

    def broken():
        failures.append(1)
        raise ValueError("no such module")

    for _ in range(2):
        with pytest.raises(ValueError, match="no such module"):
            device.build_in_parallel([broken])
    assert len(failures) == 2


def test_building_in_parallel_raises_a_loaders_error():
    from gpu import device

    def broken():
        raise ValueError("no such module")

    with pytest.raises(ValueError, match="no such module"):
        device.build_in_parallel([broken, lambda: None])
