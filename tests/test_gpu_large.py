"""The large-circuit path of the GPU prover: device-built PoRep-shaped circuits, GPU keys, the array prover,
the trapdoor checks and the memory plan.

Independent sources: the reference setup and prover on a small circuit (bit-identical keys and proofs), the
pairing check, the numpy build of the same circuit (bit-identical arrays), and planted faults that the
trapdoor checks must catch.
"""
import random
from types import SimpleNamespace

import numpy as np
import pytest

from reference.cli import proof_json
from reference.setup import trapdoor_from_seed

SEED = "test-gpu-large"


# ------------------------------------------------------------------ memory plan (no GPU needed)


def _fake(log_n: int, points: int):
    circuit = SimpleNamespace(n=1 << log_n, log_n=log_n, num_variables=points + 10)
    bases = SimpleNamespace(n=points)
    queries = SimpleNamespace(h=SimpleNamespace(n=(1 << log_n) - 1), l=bases, a=bases, b_g1=bases,
                              b_g2=SimpleNamespace(n=points // 4))
    return circuit, queries


@pytest.fixture
def current_device(monkeypatch):
    """The plan without a GPU: device.current_device_id (the key of gpu/ntt.py's tables) answers what the test sets."""
    from gpu import device

    current = SimpleNamespace(id=0)
    monkeypatch.setattr(device, "current_device_id", lambda: current.id)
    return current


def test_plan_takes_all_circuits_at_once_when_they_fit(current_device):
    from gpu.prover import batch_bytes, plan_batch

    circuit, queries = _fake(20, 1 << 20)
    plan = plan_batch(circuit, queries, 4, bytes_free=batch_bytes(circuit, queries, 4, 4))
    assert (plan.circuits, plan.block) == (4, 4)


def test_plan_falls_back_to_smaller_blocks(current_device):
    from gpu.prover import batch_bytes, plan_batch

    circuit, queries = _fake(20, 1 << 20)
    free = batch_bytes(circuit, queries, 4, 1)
    plan = plan_batch(circuit, queries, 4, bytes_free=free)
    assert plan.block < 4 and plan.bytes_needed <= free


def test_plan_takes_the_half_table_only_when_it_fits(monkeypatch, current_device):
    """ntt_h's half table of twiddles (gpu/ntt.py): in the plan when it fits beside the call's bytes (counted in
    bytes_needed), not when one byte short or when the caller says no; a table an earlier call left counts as free
    memory, is kept when the plan uses it and released when it does not."""
    from gpu import ntt
    from gpu.prover import batch_bytes, plan_batch

    circuit, queries = _fake(27, 130_000_000)
    table = ntt.half_table_size(27)
    coset = ntt.scale_table_size(27)
    assert table == (1 << 26) * 32 and coset == (1 << 27) * 32  # 2 and 4 GiB: n/2 and n Fr elements
    needed = batch_bytes(circuit, queries, 1, 1)
    plan = plan_batch(circuit, queries, 1, bytes_free=needed + table)
    assert plan.half_table and plan.coset_tables == 0 and plan.bytes_needed == needed + table
    assert not plan_batch(circuit, queries, 1, bytes_free=needed + table - 1).half_table
    assert not plan_batch(circuit, queries, 1, bytes_free=needed + table, half_table=False).half_table

    root = ntt.ROOT_GENERATOR
    held = {(0, 27, root, ntt.HALF): SimpleNamespace(nbytes=table),
            (0, 20, root, ntt.HALF): SimpleNamespace(nbytes=1 << 24)}
    monkeypatch.setattr(ntt, "_LARGE_TABLES", dict(held))
    plan = plan_batch(circuit, queries, 1, bytes_free=needed - (1 << 24))  # the held tables make up the difference
    assert plan.half_table and list(ntt._LARGE_TABLES) == [(0, 27, root, ntt.HALF)]
    monkeypatch.setattr(ntt, "_LARGE_TABLES", dict(held))
    plan = plan_batch(circuit, queries, 1, bytes_free=needed - table)
    assert not plan.half_table and ntt._LARGE_TABLES == {}


def test_plan_takes_the_coset_tables_that_fit_beside_the_half_table(monkeypatch, current_device):
    """ntt_h's coset tables (gpu/ntt_h.py coset_table_kinds, one vector each, bellman's two in their order): in the plan
    as many as fit beside the half table (all counted in bytes_needed), one fewer when one byte short, none without
    the half table (the caller's no, or no room for it), at most the caller's number; held coset tables count as free
    memory, are kept when used and released when not; snarkjs has one, keyed by its own root and scale."""
    from gpu import ntt
    from gpu.ntt_h import coset_table_kinds
    from gpu.prover import batch_bytes, plan_batch
    from reference.domain import SNARKJS

    circuit, queries = _fake(27, 130_000_000)
    half, coset = ntt.half_table_size(27), ntt.scale_table_size(27)
    needed = batch_bytes(circuit, queries, 1, 1)

    def plan(free, **kw):
        p = plan_batch(circuit, queries, 1, bytes_free=free, **kw)
        return p.half_table, p.coset_tables, p.bytes_needed - needed

    assert plan(needed + half + 2 * coset) == (True, 2, half + 2 * coset)
    assert plan(needed + half + 2 * coset - 1) == (True, 1, half + coset)
    assert plan(needed + half + coset - 1) == (True, 0, half)
    assert plan(needed + half - 1) == (False, 0, 0)  # no room for the half table: no coset table either
    assert plan(needed + half + 2 * coset, half_table=False) == (False, 0, 0)
    assert plan(needed + half + 2 * coset, coset_tables=1) == (True, 1, half + coset)
    assert plan(needed + half + 2 * coset, coset_tables=0) == (True, 0, half)

    root = ntt.ROOT_GENERATOR
    first, second = ((0, 27, root, kind) for kind in coset_table_kinds(27))
    held = {first: SimpleNamespace(nbytes=coset), second: SimpleNamespace(nbytes=coset)}
    monkeypatch.setattr(ntt, "_LARGE_TABLES", dict(held))
    assert plan(needed + half) == (True, 2, half + 2 * coset)  # the held tables make up their own bytes
    assert list(ntt._LARGE_TABLES) == [first, second]
    monkeypatch.setattr(ntt, "_LARGE_TABLES", dict(held))
    assert plan(needed + half - coset) == (True, 1, half + coset)  # room for one of them: the second goes
    assert list(ntt._LARGE_TABLES) == [first]

    (snarkjs_kind,) = coset_table_kinds(27, SNARKJS)  # its route has no final transform: one table
    snarkjs_key = (0, 27, SNARKJS.root_generator, snarkjs_kind)
    monkeypatch.setattr(ntt, "_LARGE_TABLES", {**held, snarkjs_key: SimpleNamespace(nbytes=coset)})
    assert plan(needed + half, convention=SNARKJS)[:2] == (True, 1)
    assert list(ntt._LARGE_TABLES) == [snarkjs_key], "bellman's tables released, snarkjs's kept"


def test_ntt_h_counts_and_fits_its_coset_tables(monkeypatch, current_device):
    """gpu/ntt_h.py on its own (ntt_h's default, where no plan decides): memory_needed counts the first k coset tables
    not yet held, and as many fit as free memory holds beside the half table and the work buffers (one byte short:
    one fewer; snarkjs has one); a negative count is refused, by ntt_h's plan as by the prover's."""
    from gpu import device, ntt
    from gpu.ntt_h import _coset_tables_that_fit, coset_table_kinds, memory_needed
    from gpu.prover import plan_batch
    from reference.domain import BELLMAN, SNARKJS
    from reference.errors import InvalidInputError

    monkeypatch.setattr(ntt, "_LARGE_TABLES", {})
    table = ntt.scale_table_size(27)
    base = memory_needed(1, 27, True, True)
    assert [memory_needed(1, 27, True, True, coset_tables=k) - base for k in range(4)] == [0, table, 2 * table, 2 * table]
    assert memory_needed(1, 27, True, True, SNARKJS, 2) - memory_needed(1, 27, True, True, SNARKJS) == table

    def fit(free, convention=BELLMAN):
        monkeypatch.setattr(device, "free_device_memory", lambda: free)
        return _coset_tables_that_fit(1, 27, True, convention)

    assert [fit(base + k * table) for k in range(4)] == [0, 1, 2, 2]
    assert fit(base + 2 * table - 1) == 1
    snarkjs_base = memory_needed(1, 27, True, True, SNARKJS)
    assert fit(snarkjs_base + 2 * table, SNARKJS) == 1
    monkeypatch.setattr(ntt, "_LARGE_TABLES", {(0, 27, ntt.ROOT_GENERATOR, coset_table_kinds(27)[0]): None})
    assert fit(base + table) == 2, "a held table costs nothing: the second fits in the room left"
    monkeypatch.setattr(ntt, "_LARGE_TABLES", {(0, 27, ntt.ROOT_GENERATOR, coset_table_kinds(27)[1]): None})
    assert fit(base + table - 1) == 0, "in order: the first does not fit, so the held second is not taken either"

    circuit, queries = _fake(27, 130_000_000)
    with pytest.raises(InvalidInputError):
        plan_batch(circuit, queries, 1, bytes_free=1 << 40, coset_tables=-1)


def test_each_device_plans_with_its_own_half_tables(monkeypatch, current_device):
    """A table lives on the device that made it (gpu/multi.py runs blocks on several): device 1's plan neither counts
    device 0's table as free memory nor releases it, and device 0 still finds it held."""
    from gpu import ntt
    from gpu.prover import batch_bytes, plan_batch

    circuit, queries = _fake(27, 130_000_000)
    table = ntt.half_table_size(27)
    needed = batch_bytes(circuit, queries, 1, 1)
    key = (0, 27, ntt.ROOT_GENERATOR, ntt.HALF)
    monkeypatch.setattr(ntt, "_LARGE_TABLES", {key: SimpleNamespace(nbytes=table)})
    current_device.id = 1
    assert not ntt.half_table_held(27) and ntt.large_tables_held_bytes() == 0 and ntt.half_table_bytes(27) == table
    assert not plan_batch(circuit, queries, 1, bytes_free=needed).half_table  # no room for a table of its own
    assert list(ntt._LARGE_TABLES) == [key]
    current_device.id = 0
    assert ntt.half_table_held(27) and ntt.large_tables_held_bytes() == table
    assert plan_batch(circuit, queries, 1, bytes_free=needed).half_table  # its own table is held: no bytes more


def test_plan_names_the_largest_batch_that_fits(current_device):
    from gpu.device import GpuMemoryError
    from gpu.prover import BatchTooLargeError, batch_bytes, plan_batch

    circuit, queries = _fake(27, 130_000_000)
    free = batch_bytes(circuit, queries, 3, 1) + 1  # room for 3 circuits, not 4
    with pytest.raises(BatchTooLargeError, match="largest batch that fits is 3 circuit") as info:
        plan_batch(circuit, queries, 10, bytes_free=free)
    assert info.value.largest == 3 and isinstance(info.value, GpuMemoryError)
    with pytest.raises(BatchTooLargeError, match="not even one circuit fits"):
        plan_batch(circuit, queries, 1, bytes_free=1 << 20)


# ------------------------------------------------------------------ on the device


@pytest.mark.gpu
def test_device_built_circuit_equals_the_numpy_build():
    import cupy

    from vectors.porep_arrays import porep_circuit, porep_witnesses

    host = porep_circuit(12, SEED)
    dev = porep_circuit(12, SEED, xp=cupy)
    assert dev.fingerprint() == host.fingerprint()
    z_host, rs_host = porep_witnesses(host, SEED, 2)
    z_dev, rs_dev = porep_witnesses(dev, SEED, 2, cupy)
    assert np.array_equal(z_dev.get(), z_host) and rs_dev == rs_host


@pytest.fixture(scope="module")
def small_large_path():
    """A porep_arrays circuit at 2^8 with 2 witnesses: GPU keys and GPU proofs by the array path."""
    import cupy

    from gpu.circuit import DeviceCircuit
    from gpu.keygen import generate_keys
    from gpu.prover import prove_on_device
    from vectors.porep_arrays import porep_circuit, porep_witnesses

    arrays = porep_circuit(8, SEED)
    z, rs = porep_witnesses(arrays, SEED, 2)
    circuit = DeviceCircuit.from_arrays(arrays)
    key = generate_keys(circuit, trapdoor_from_seed(SEED), keep_scalars=True)
    z_device = cupy.asarray(z)
    run = prove_on_device(circuit, key, z_device, rs)
    return SimpleNamespace(arrays=arrays, z=z, rs=rs, circuit=circuit, key=key, z_device=z_device, run=run)


@pytest.mark.gpu
def test_array_path_equals_the_reference_setup_and_prover(small_large_path):
    """Keys from gpu/keygen.py and proofs from prove_on_device equal reference.setup + reference.prover, bit for bit."""
    from gpu.keygen import to_proving_key
    from reference.prover import prove
    from reference.setup import setup
    from test_gpu_keygen import assert_same_keys  # (tests/ is on sys.path under pytest)
    from vectors.porep_arrays import witness_objects

    s = small_large_path
    r1cs = s.arrays.to_r1cs()
    pk = setup(r1cs, trapdoor_from_seed(SEED))
    assert_same_keys(to_proving_key(s.key, s.circuit), pk)
    expected = prove(r1cs, pk, witness_objects(s.z, s.rs, s.arrays.num_inputs))[0].assemble
    assert [proof_json(p) for p in s.run.proofs] == [proof_json(p) for p in expected]


@pytest.mark.gpu
def test_trapdoor_checks_pass_and_catch_planted_faults(small_large_path):
    from dataclasses import replace

    from py_ecc.optimized_bls12_381 import G1, add

    from gpu.trapdoor import check_circuit, check_pairing

    s = small_large_path
    rng = random.Random(1)
    for k in range(2):
        one = s.z_device[k : k + 1]
        results = [check_pairing(s.key, s.circuit, one, s.run.proofs[k])] + check_circuit(s.circuit, s.key, one, s.run.sums[k], rng)
        assert all(r.ok for r in results), [r.name for r in results if not r.ok]
        assert len(results) == 1 + 2 + 8  # pairing, ntt_h identity, msm_h, 4 x (batch_add, tail_msm)
    sums = s.run.sums[0]
    tampered = replace(sums, h=add(sums.h, G1), tail=replace(sums.tail, b_g1=add(sums.tail.b_g1, G1)))
    failed = {r.name for r in check_circuit(s.circuit, s.key, s.z_device[0:1], tampered, rng) if not r.ok}
    assert failed == {"msm_h against the trapdoor", "tail_msm b_g1 against the trapdoor"}
    other = replace(s.run.proofs[0], c=add(s.run.proofs[0].c, G1))
    assert not check_pairing(s.key, s.circuit, s.z_device[0:1], other).ok


@pytest.mark.gpu
def test_a_finished_run_holds_no_device_memory(small_large_path):
    """The sums a run keeps are host copies: device arrays kept by one run split the memory pool's chunks that the
    next run's large scratch buffers need (gpu/device.py release_cached_blocks)."""
    h, batch, tail = small_large_path.run.sum_words
    kept = [h, *batch.values(), *tail.values()]
    assert len(kept) == 9 and all(type(words) is np.ndarray for words in kept)


@pytest.mark.gpu
def test_blocks_of_one_circuit_give_the_same_proofs(small_large_path):
    from gpu.prover import BatchPlan, prove_on_device

    s = small_large_path
    run = prove_on_device(s.circuit, s.key, s.z_device, s.rs, plan=BatchPlan(2, 1, 0, 0))
    assert [proof_json(p) for p in run.proofs] == [proof_json(p) for p in s.run.proofs]


@pytest.mark.gpu
@pytest.mark.parametrize("log_n", [10, 11, 21], ids=["one-pass", "two-passes", "three-passes"])
@pytest.mark.parametrize("convention", ["bellman", "snarkjs"])
def test_ntt_h_that_consumes_its_inputs_gives_the_same_h_without_a_copy(log_n, convention, monkeypatch):
    """The prover lets ntt_h use a, b, c as work buffers (consume=True): h must not change, for every parity of the
    transforms' passes (where each result lands); no transform runs in place (gpu/ntt.py starts one with a copy of its
    input: 4 GiB read and written a vector at 2^27); h is in none of a, b, c (the prover frees them), moved out by one
    copy at most, none on bellman's route at an odd number of passes (the prover's at 2^21 and up)."""
    import cupy

    from gpu.field import apply_op
    from gpu.ntt import _overlaps, plan_passes
    from gpu.ntt_h import ntt_h
    from reference.domain import BELLMAN, SNARKJS

    domain = {"bellman": BELLMAN, "snarkjs": SNARKJS}[convention]
    limbs = cupy.random.RandomState(5 + log_n)  # each 32-bit limb below 2^30: every element below 2^254 < r
    a, b = (limbs.randint(0, 1 << 30, size=(2, 1 << log_n, 8), dtype=cupy.int64).astype(cupy.uint32) for _ in range(2))
    c = apply_op("mul", a, b)  # rows that hold: ntt_h refuses a non-zero h_(n-1)
    kept = ntt_h(a, b, c, log_n, domain).copy()
    inputs = a.copy(), b.copy(), c.copy()
    copies = []
    copyto = cupy.copyto
    monkeypatch.setattr(cupy, "copyto", lambda dst, src, **kw: copies.append(dst.nbytes) or copyto(dst, src, **kw))
    consumed = ntt_h(*inputs, log_n, domain, consume=True)
    monkeypatch.undo()
    assert bool(cupy.all(consumed == kept))
    assert not any(_overlaps(consumed, x) for x in inputs)
    odd_passes = len(plan_passes(log_n)) % 2
    assert copies == ([] if convention == "bellman" and odd_passes else [a.nbytes])
