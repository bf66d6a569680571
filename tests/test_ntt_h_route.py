"""gpu/ntt_h.py's own route on the CPU: which buffer each transform reads and writes, for every parity of the passes.

The transforms are stood in for by O(n^2) DFTs in Python ints (y_j = sum_i x_i s_i w^(ij) t_j f_j - m_j, gpu/ntt.py's
definition) that behave as gpu/ntt.py's launches do with their buffers: a result lands where transform and
transform_in_pair say it does (by the parity of the passes), the other buffer of the pair or the scratch is left
holding garbage, and a transform whose first pass would overwrite its input starts with a copy (counted). The buffers
are numpy object arrays (batch, n, 1). So a route that reads a buffer after another transform used it as scratch, or
hands a factor that overlaps a pair, fails here. The stand-ins and the ``route`` fixture live in conftest.py:
tests/test_gpu_ntt.py runs the same route with the transforms computed by the ntt.cu kernels in host emulation instead
of these DFTs. Expected values: reference/ntt_h.py.
"""
import random

import numpy as np
import pytest

from gpu.ntt_h import WORK_BUFFERS
from reference.domain import BELLMAN, SNARKJS, EvaluationDomain
from reference.evaluate import Evaluations
from reference.field import R
from reference.ntt_h import ntt_h as reference_ntt_h


@pytest.mark.parametrize("passes", [1, 2, 3])
@pytest.mark.parametrize("consume", [False, True], ids=["inputs-kept", "inputs-consumed"])
@pytest.mark.parametrize("coset_tables", [0, 1, 2])
@pytest.mark.parametrize("convention", [BELLMAN, SNARKJS], ids=["bellman", "snarkjs"])
def test_ntt_h_route_gives_the_reference_h_without_copies(route, passes, consume, coset_tables, convention):
    """Two circuits at n = 2^3: h as reference/ntt_h.py computes it; inputs kept unless consumed; no transform in
    place (none starts with a copy of its input); no more vectors allocated than memory_needed counts; consumed, h in
    none of a, b, c (the prover frees them), moved out by one copy at most, none on bellman's route at an odd number of
    passes (the prover's at 2^21 and up)."""
    log_n, circuits = 3, 2
    n = 1 << log_n
    rng = random.Random(passes * 100 + coset_tables * 10 + consume)
    a, b = ([[rng.randrange(R) for _ in range(n)] for _ in range(circuits)] for _ in range(2))
    c = [[x * y % R for x, y in zip(ak, bk)] for ak, bk in zip(a, b)]  # rows that hold
    arrays = [np.array([[[v] for v in vector] for vector in vectors], dtype=object) for vectors in (a, b, c)]
    h, in_place_starts, copies, allocated = route(*arrays, log_n, convention, passes, consume=consume,
                                                  half_table=True, coset_tables=coset_tables)
    domain = EvaluationDomain(log_n, convention)
    expected = [list(reference_ntt_h(Evaluations(tuple(a[k]), tuple(b[k]), tuple(c[k])), domain)) for k in range(circuits)]
    assert [list(h[k, :, 0]) for k in range(circuits)] == expected
    assert in_place_starts == 0
    assert allocated <= (1 if consume else WORK_BUFFERS)  # the work buffers gpu/ntt_h.py memory_needed counts
    if consume:
        assert not any(np.shares_memory(h, x) for x in arrays)
        assert copies == (0 if convention is BELLMAN and passes % 2 else 1)
    else:
        assert [[list(x[k, :, 0]) for k in range(circuits)] for x in arrays] == [a, b, c] and copies == 0


def test_ntt_h_takes_no_coset_table_without_the_half_table_and_refuses_a_negative_count(route, monkeypatch):
    """ntt_h's own choice (coset_tables=None) takes no coset table when the half table is not used (as the prover's
    plan: none without it), and the same h; a negative count is refused by ntt_h itself, not sliced into 'all but
    one'."""
    import gpu.ntt_h as ntt_h_module
    from reference.errors import InvalidInputError

    made = []
    monkeypatch.setattr(ntt_h_module, "scale_table", lambda *args: made.append(args))
    log_n, n = 3, 8
    rng = random.Random(7)
    a, b = ([rng.randrange(R) for _ in range(n)] for _ in range(2))
    c = [x * y % R for x, y in zip(a, b)]
    arrays = [np.array([[[v] for v in x]], dtype=object) for x in (a, b, c)]
    h = route(*arrays, log_n, BELLMAN, 2, half_table=False, coset_tables=None)[0]
    expected = reference_ntt_h(Evaluations(tuple(a), tuple(b), tuple(c)), EvaluationDomain(log_n, BELLMAN))
    assert list(h[0, :, 0]) == list(expected) and made == []
    with pytest.raises(InvalidInputError, match="coset_tables"):
        route(*arrays, log_n, BELLMAN, 2, half_table=True, coset_tables=-1)
