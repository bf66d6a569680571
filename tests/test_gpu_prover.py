"""The whole GPU prover: proofs bit-identical to the reference's on every checked-in vector (GPU only)."""
import pytest

from reference.cli import proof_json
from reference.errors import UnsatisfiedConstraintError
from reference.field import R
from reference.prover import Witness
from vectors.bundled import bundled_paths
from vectors.format import load_vector

pytestmark = pytest.mark.gpu

VECTORS = bundled_paths()


@pytest.fixture(scope="module")
def gpu_prove():
    from gpu.prover import prove

    return prove


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_gpu_proofs_equal_the_reference(gpu_prove, path):
    vector = load_vector(path)
    run = gpu_prove(vector.r1cs, vector.pk, vector.witnesses)
    expected = [proof_json(c.expected.assemble) for c in vector.circuits]
    assert [proof_json(p) for p in run.proofs] == expected
    assert set(run.ms) >= {"evaluate", "ntt_h", "msm_h", "prep", "batch_add", "tail_msm", "assemble"}


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
