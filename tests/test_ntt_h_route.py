"""gpu/ntt_h.py's own route on the CPU: which buffer each transform reads and writes, for every parity of the passes.

The transforms are stood in for by O(n^2) DFTs in Python ints (y_j = sum_i x_i s_i w^(ij) t_j f_j - m_j, gpu/ntt.py's
definition) that behave as gpu/ntt.py's launches do with their buffers: a result lands where transform and
transform_in_pair say it does (by the parity of the passes), the other buffer of the pair or the scratch is left
holding garbage, and a transform whose first pass would overwrite its input starts with a copy (counted). The buffers
are numpy object arrays (batch, n, 1). So a route that reads a buffer after another transform used it as scratch, or
hands a factor that overlaps a pair, fails here. tests/test_gpu_ntt.py runs this same route (the ``route`` fixture)
with the transforms computed by the ntt.cu kernels in host emulation instead of these DFTs. Expected values:
reference/ntt_h.py.
"""
import random
import sys
import types

import numpy as np
import pytest

from gpu.ntt_h import WORK_BUFFERS
from reference.domain import BELLMAN, SNARKJS, EvaluationDomain
from reference.evaluate import Evaluations
from reference.field import R
from reference.ntt_h import ntt_h as reference_ntt_h

GARBAGE = "garbage"
"""What a stand-in transform leaves in its scratch: any read of it fails."""


class StandInTransforms:
    """transform and transform_in_pair of gpu/ntt.py over object arrays, with ``passes`` passes, each vector transformed
    by ``dft`` (dfts' arguments; default dfts); ``copies``: the inputs copied because the first pass would have
    overwritten them (gpu/ntt.py _launch_passes)."""

    def __init__(self, passes: int, dft=None):
        self.passes = passes
        self.copies = 0
        self.dft = dft or dfts

    def transform(self, x, *, inverse=False, in_scale=None, out_scale=None, out=None, scratch=None,
                  root_generator, half_table=None, out_factor=None):
        out = empty_like(x) if out is None else out
        scratch = empty_like(x) if scratch is None else scratch
        assert not np.shares_memory(scratch, x) and not np.shares_memory(scratch, out)
        assert out_factor is None or not (np.shares_memory(out_factor, out) or np.shares_memory(out_factor, scratch))
        first_target = out if (self.passes - 1) % 2 == 0 else scratch
        self.copies += self.passes > 1 and np.shares_memory(x, first_target)
        y = self.dft(x, inverse, root_generator, in_scale, out_scale, out_factor, None, half_table)
        scratch[...] = GARBAGE
        out[...] = y
        return out

    def transform_in_pair(self, x, other, *, inverse=False, in_scale=None, out_scale=None, root_generator,
                          half_table, out_factor=None, out_minus=None):
        assert not np.shares_memory(x, other), "a pair of one buffer: its passes would run in place"
        for extra in (out_factor, out_minus):
            assert extra is None or not (np.shares_memory(extra, x) or np.shares_memory(extra, other))
        dst, scratch = (other, x) if self.passes % 2 else (x, other)
        y = self.dft(x, inverse, root_generator, in_scale, out_scale, out_factor, out_minus, half_table)
        scratch[...] = GARBAGE
        dst[...] = y
        return dst


def empty_like(x):
    return np.full(x.shape, GARBAGE, dtype=object)


def factors(scale, n: int) -> list[int]:
    """gpu/ntt.py Scale: constant * base^i."""
    return [scale.constant * pow(scale.base, i, R) % R for i in range(n)]


def dfts(x, inverse, root_generator, in_scale, out_scale, out_factor, out_minus, half_table=None):
    """Every vector of x transformed as gpu/ntt.py defines it; out_factor one vector for all or one for each
    (``half_table``: where the kernels read twiddles, the same values)."""
    batch, n, _ = x.shape
    w = pow(root_generator, (R - 1) // n, R)
    w = pow(w, -1, R) if inverse else w
    s = factors(in_scale, n) if in_scale else [1] * n
    t = factors(out_scale, n) if out_scale else [1] * n
    y = np.empty(x.shape, dtype=object)
    for k in range(batch):
        values = readable(x[k])
        f = readable(out_factor if out_factor is None or out_factor.ndim == 2 else out_factor[k])
        m = readable(None if out_minus is None else out_minus[k])
        for j in range(n):
            v = sum(values[i] * s[i] * pow(w, i * j, R) for i in range(n)) * t[j]
            v = v * (f[j] if f else 1) - (m[j] if m else 0)
            y[k, j, 0] = v % R
    return y


def readable(vector):
    if vector is None:
        return None
    values = list(vector[:, 0])
    assert GARBAGE not in values, "a transform read a buffer another one left as scratch"
    return values


@pytest.fixture
def route(monkeypatch):
    """gpu.ntt_h with the stand-ins in place of the device, its transforms, its tables and its element-wise kernel."""
    import gpu.ntt_h as ntt_h_module

    copies, allocations = [], []

    def copyto(dst, src):
        copies.append(dst)
        dst[...] = src

    def allocate(x):
        allocations.append(x.shape)
        return empty_like(x)

    monkeypatch.setitem(sys.modules, "cupy", types.SimpleNamespace(empty_like=allocate, copyto=copyto))
    monkeypatch.setattr(ntt_h_module, "device", types.SimpleNamespace(require_device=lambda: None,
                                                                      launch_check=lambda *a, **k: None))
    monkeypatch.setattr(ntt_h_module, "_check_inputs", lambda a, b, c, log_n: a.shape[0])
    monkeypatch.setattr(ntt_h_module, "require_memory", lambda *a, **k: None)
    monkeypatch.setattr(ntt_h_module, "scale_table",
                        lambda log_n, kind, root: np.array([[v] for v in factors(kind, 1 << log_n)], dtype=object))

    def fr_mul_sub(kernel, what, e, x, y):
        assert kernel == "fr_mul_sub"
        e[...] = (e * x - y) % R

    monkeypatch.setattr(ntt_h_module, "_elementwise", fr_mul_sub)
    checked = []  # the full inverse transforms check_top_coefficients was handed (h_(n-1) included)

    def check_top_coefficients(h, first=0):
        checked.append(h.copy())
        if not all(v == 0 for v in h[:, -1, 0]) and not accept_unsatisfied:
            pytest.fail("h_(n-1) != 0")

    monkeypatch.setattr(ntt_h_module, "check_top_coefficients", check_top_coefficients)
    accept_unsatisfied = False

    def run(a, b, c, log_n, convention, passes, dft=None, unsatisfied=False, **kwargs):
        """(h, inputs copied by in-place transforms, copies ntt_h made itself, vectors it allocated). ``dft``: the
        stand-ins' transform of each vector (StandInTransforms). ``unsatisfied``: rows that do not hold, h_(n-1) != 0
        accepted; h is then the full inverse transform ntt_h checked (bellman), n coefficients."""
        nonlocal accept_unsatisfied
        accept_unsatisfied = unsatisfied
        stand_ins = StandInTransforms(passes, dft)
        monkeypatch.setattr(ntt_h_module, "transform", stand_ins.transform)
        monkeypatch.setattr(ntt_h_module, "transform_in_pair", stand_ins.transform_in_pair)
        copies.clear()
        allocations.clear()
        checked.clear()
        h = ntt_h_module.ntt_h(a, b, c, log_n, convention, **kwargs)
        return checked[-1] if unsatisfied else h, stand_ins.copies, len(copies), len(allocations)

    return run


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
