"""The whole GPU prover: the reference's phases, with data kept on the device.

    keys on the device (uploaded from a ProvingKey, or made there by gpu/keygen.py), witnesses uploaded once
    prep                                first (it needs only the witnesses; gpu/prep.py, CuPy array operations),
                                        so that the memory plan knows the tails before any MSM runs
    evaluate -> ntt_h -> msm_h          per block of circuits (``BatchPlan``); a, b, c and h never leave the device
    batch_add, tail_msm                 one pass over each query's bases for all circuits
    assemble                            on the device (gpu/assemble.py), all circuits in one launch per step

The outputs are the reference's, phase by phase; only prep's place in the order differs (no phase reads
another's output except as the reference does). This module is a composition of the phases' single GPU
implementations (gpu/<phase>.py, the functions conformance checks) plus memory planning and staging; it
has no phase logic of its own. ``capture`` (PhaseCapture) lets conformance --mode prover read every phase's
output at its boundary in a real call.

Many circuits share the keys: every phase reads a query's bases for all circuits of the call (MSMs one
circuit after another against the same device bases, batch addition in one pass for all bitmaps).
Memory is planned before any witness is uploaded (``plan_batch``) and again, exactly, once prep has
measured the tails: when the batch does not fit, the call fails with BatchTooLargeError naming the
largest batch that does, before any MSM.

Each phase is timed once, at its boundary, with CUDA events (``GpuPhaseTimer``); the uploads are timed
separately as transfers, and so are the proofs' and the sums' downloads, so a phase's time is device work only. A
phase run per block of circuits adds up its blocks' times. prove's and prove_on_device's steps outside the phases
are host stages (gpu/staging.py, which names them), so that a run's wall clock exceeds the named times only by
Python's own steps between them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Callable

from reference.domain import BELLMAN, DomainConvention
from reference.errors import SizeMismatchError
from reference.keys import QuerySums
from reference.prover import PHASES, PhaseTimer, Witness
from reference.r1cs import R1CS, witness_vector

from . import device, evaluate as evaluate_module, field as field_module, ntt
from .assemble import ASSEMBLE_KERNELS, Proof, assemble, download_proofs
from .batch_add import BATCH_KERNELS, batch_add, pattern_scratch_bytes
from .circuit import DeviceCircuit
from .evaluate import evaluate_satisfied
from .keygen import DeviceKey
from .limbs import FR
from .msm import MSM_KERNELS, QUERY_SPLITS, WORD_BYTES, DeviceQueries, msm_scratch_bytes
from .msm_h import msm_h
from .ntt_h import memory_needed as ntt_h_memory
from .ntt_h import MAX_COSET_TABLES, check_coset_tables, coset_table_kinds, ntt_h
from .points import G1_GROUP, G2_GROUP, backend, download_points, load_group_module
from .prep import prep
from .staging import (COMPILE_KERNELS, COPIES, DOWNLOAD_PROOFS, DOWNLOAD_SUMS, PAGEABLE, PLAN_MEMORY, PREPARE_CIRCUIT,
                      RELEASE_CACHED_BLOCKS, WITNESS_VECTORS, StageTimer, upload_keys, upload_witnesses)
from .tail_msm import tail_msm

TRANSFERS = COPIES
"""Host-to-device and device-to-host copies (gpu/staging.py; CUDA events), reported apart from the phases."""
QUERY_PHASE_NAMES = QUERY_SPLITS
"""(key query, prep split) pairs of the batch_add and tail_msm phases (gpu/msm.py)."""
KERNEL_MODULES = (
    field_module.kernel_module, evaluate_module.kernel_module, ntt.kernel_module,
    *(partial(load_group_module, group, cu_file)
      for cu_file in (MSM_KERNELS, BATCH_KERNELS, ASSEMBLE_KERNELS) for group in (G1_GROUP, G2_GROUP)),
)
"""The loaders of every kernel module a proof launches, those the phases call: prove_on_device loads them all at once
before its first phase (device.build_in_parallel, timed as the host stage COMPILE_KERNELS), so that a cold start
compiles them side by side instead of one at the first launch of each phase, and no phase's time includes
compilation. (prep's CuPy-fused kernels and CuPy's own are still compiled at their first call.)"""


PhaseCapture = Callable[[str, int, object], None]
"""capture(phase, first_circuit, outputs): called at each phase boundary, after the phase's timer stopped, with the
phase's device outputs for circuits first_circuit.. (evaluate, ntt_h, msm_h once per block; the other phases once,
first_circuit 0): evaluate (a, b, c), ntt_h h, msm_h (block, 24) words, prep {l, a, b: DeviceSplit}, batch_add and
tail_msm {query: (circuits, words)}, assemble DeviceProofs. It may read (download) them but must not modify them: a
and b, c are ntt_h's work buffers right after. None (the default) costs one test per phase: the prover computes and
allocates the same with or without it (conformance --mode prover)."""


class GpuPhaseTimer(PhaseTimer):
    """reference.prover.PhaseTimer on the device's clock: milliseconds from CUDA events recorded around the whole
    phase on the current stream (and synchronised after it)."""

    unit = "ms"

    @property
    def ms(self) -> dict[str, float]:
        """Milliseconds per phase (``totals``; the staging stages share this dict)."""
        return self.totals

    def clock(self, fn, args) -> tuple[object, float]:
        import cupy

        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        result = fn(*args)
        end.record()
        end.synchronize()
        return result, cupy.cuda.get_elapsed_time(start, end)


@dataclass
class CircuitSums:
    """One circuit's MSM-type phase outputs (py_ecc points), as reference/assemble.py takes them."""

    h: tuple
    batch: QuerySums
    tail: QuerySums


@dataclass
class GpuProofRun:
    proofs: list[Proof]
    ms: dict[str, float] = field(default_factory=dict)
    """Per phase (PHASES) and per transfer (TRANSFERS), milliseconds by CUDA events."""
    sum_words: tuple | None = field(default=None, repr=False)
    """(h, batch, tail) as the phases left them, copied to the host: (circuits, words) arrays, per query for
    batch/tail. Host copies, so that a finished run holds no device memory (see device.release_cached_blocks)."""
    _sums: list | None = field(default=None, repr=False)

    @property
    def sums(self) -> list["CircuitSums"]:
        """Per circuit, the msm_h, batch_add and tail_msm outputs as py_ecc points, downloaded on first use
        (the phase checks need them; proving does not)."""
        if self._sums is None:
            self._sums = _decode_sums(*self.sum_words) if self.sum_words else []
        return self._sums

    def breakdown(self) -> str:
        """A small table: every phase, then the transfers, then the totals."""
        lines = [f"{'phase':<18} {'ms':>10}"]
        lines += [f"{p:<18} {self.ms[p]:>10.2f}" for p in PHASES if p in self.ms]
        lines += [f"{t + ' (transfer)':<18} {self.ms[t]:>10.2f}" for t in TRANSFERS if t in self.ms]
        phases = sum(self.ms.get(p, 0.0) for p in PHASES)
        lines.append(f"{'phases total':<18} {phases:>10.2f}")
        lines.append(f"{'with transfers':<18} {phases + sum(self.ms.get(t, 0.0) for t in TRANSFERS):>10.2f}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# Memory plan
# ---------------------------------------------------------------------------------------------


class BatchTooLargeError(device.GpuMemoryError):
    """The circuits of one call do not fit in device memory next to the keys; names the largest batch that does."""

    def __init__(self, circuits: int, log_n: int, bytes_needed: int, bytes_free: int, largest: int):
        self.largest = largest
        fits = f"the largest batch that fits is {largest} circuit(s)" if largest else "not even one circuit fits"
        device.GpuMemoryError.__init__(self, f"{circuits} circuit(s) at n = 2^{log_n}", bytes_needed, bytes_free)
        self.args = (f"{self.args[0]}; {fits} (prove the rest in another call, or free device memory)",)


@dataclass(frozen=True)
class BatchPlan:
    """How a call's circuits are laid out in device memory: ``block`` circuits at a time through
    evaluate -> ntt_h -> msm_h; ``bytes_needed`` beyond what is already allocated (keys, circuit)."""

    circuits: int
    block: int
    bytes_needed: int
    bytes_free: int
    half_table: bool = True
    """Whether ntt_h's transforms read the half table of twiddles (gpu/ntt.py): plan_batch's choice, when the table
    fits beside everything the call needs at this block; False keeps them from it (the path of a device too full)."""
    coset_tables: int = MAX_COSET_TABLES
    """How many of ntt_h's coset tables its transforms read their factors from (gpu/ntt_h.py coset_table_kinds, in
    its order): plan_batch's choice, as many as fit beside the half table; none without the half table."""


SCRATCH_SLACK = 1 << 30
"""Bytes kept free for the small buffers of a phase that the plan does not itemise (batch-addition partial sums,
twiddle and window tables, the reductions of the MSMs' last steps), and for the memory pool's rounding."""


def batch_bytes(circuit: DeviceCircuit, queries: DeviceQueries, circuits: int, block: int,
                witnesses_resident: bool = False, tail_points: dict | None = None) -> int:
    """Device bytes a call of ``circuits`` circuits needs beyond the keys and the circuit, with ``block`` circuits at
    a time in evaluate/ntt_h/msm_h: the peak over the phases of what each allocates.

    ``tail_points``: prep's tail length per split query ('l', 'a', 'b'), known once prep has run; None before
    (the tails are then counted as empty, and prove_on_device checks again with the real lengths)."""
    element, n, v = FR.element_bytes, circuit.n, circuit.num_variables
    tails = tail_points or {"l": 0, "a": 0, "b": 0}
    witnesses = 0 if witnesses_resident else circuits * v * element  # canonical limbs, kept for prep
    query_points = (queries.l.n, queries.a.n, queries.b_g1.n)
    bitmaps = circuits * sum(-(-points // 64) * 8 for points in query_points)
    tail_scalars = circuits * element * sum(tails.values())
    kept = witnesses + bitmaps + tail_scalars  # alive from prep to tail_msm
    prep_peak = 2 * circuits * v + 2 * circuits * max(query_points)  # value classes, then one query's masks
    ntt_peak = block * 3 * n * element + ntt_h_memory(block, circuit.log_n, consume=True)
    msm_h_peak = block * n * element + msm_scratch_bytes([queries.h.n] * block, G1_GROUP)
    front = block * v * element + max(ntt_peak, msm_h_peak)
    tail_jobs = {query: [tails[split]] * circuits for query, split in QUERY_SPLITS}  # gpu/tail_msm.py's batches
    tail_peak = (max(msm_scratch_bytes(tail_jobs["l"] + tail_jobs["a"] + tail_jobs["b_g1"], G1_GROUP),
                     msm_scratch_bytes(tail_jobs["b_g2"], G2_GROUP))
                 + WORD_BYTES * sum(tails.values()))  # the tail indices as the kernels' u32
    batch_peak = max(*(pattern_scratch_bytes(points, circuits, G1_GROUP) for points in query_points),
                     pattern_scratch_bytes(queries.b_g2.n, circuits, G2_GROUP))  # the circuit patterns' bucket pass
    return kept + max(prep_peak, front, tail_peak, batch_peak) + SCRATCH_SLACK


def plan_batch(circuit: DeviceCircuit, queries: DeviceQueries, circuits: int, witnesses_resident: bool = False,
               bytes_free: int | None = None, tail_points: dict | None = None,
               convention: DomainConvention = BELLMAN, half_table: bool = True,
               coset_tables: int = MAX_COSET_TABLES) -> BatchPlan:
    """The largest block (<= circuits) that fits in free device memory (see batch_bytes), with ntt_h's half table of
    twiddles if ``half_table`` and it fits beside that, then as many of its coset tables as fit too, at most
    ``coset_tables`` (all stay allocated after the call: gpu/ntt.py), or BatchTooLargeError naming the largest number of
    circuits that would fit with blocks of one. The large tables that earlier calls left count as free memory: those
    the plan does not keep are released here. ``half_table`` False keeps ntt_h from every table."""
    check_coset_tables(coset_tables)
    free = (device.free_device_memory() if bytes_free is None else bytes_free) + ntt.large_tables_held_bytes()
    log_n, root = circuit.log_n, convention.root_generator
    for block in sorted({min(circuits, b) for b in (circuits, 8, 4, 2, 1)}, reverse=True):
        needed = batch_bytes(circuit, queries, circuits, block, witnesses_resident, tail_points)
        if needed <= free:
            # the half table, then the coset tables (none without it), as many as fit (held ones count as free above)
            kinds = [ntt.HALF, *coset_table_kinds(log_n, convention)[:coset_tables]] if half_table else []
            sizes = [ntt.large_table_size(log_n, kind) for kind in kinds]
            taken = ntt.tables_that_fit(sizes, free - needed)
            ntt.release_large_tables(keep=[(log_n, root, kind) for kind in kinds[:taken]])
            return BatchPlan(circuits, block, needed + sum(sizes[:taken]), free, taken > 0, max(taken - 1, 0))
    largest = 0
    while largest < circuits and batch_bytes(circuit, queries, largest + 1, 1, witnesses_resident, tail_points) <= free:
        largest += 1
    raise BatchTooLargeError(circuits, circuit.log_n,
                             batch_bytes(circuit, queries, circuits, 1, witnesses_resident, tail_points), free, largest)


# ---------------------------------------------------------------------------------------------
# The phases over device data
# ---------------------------------------------------------------------------------------------


def _front(circuit: DeviceCircuit, queries: DeviceQueries, z_plain, plan: BatchPlan, convention, timer, capture):
    """evaluate -> ntt_h -> msm_h per block of circuits (``plan``: the block, ntt_h's half table); returns the H sums,
    (circuits, 24) device words."""
    import cupy

    h_sums = []
    for first in range(0, z_plain.shape[0], plan.block):
        # the rows checked inside the phase (UnsatisfiedConstraintError), as reference/prover.py's evaluate phase does
        a, b, c = timer.run("evaluate", evaluate_satisfied, circuit.csr, z_plain[first : first + plan.block], convention,
                            first)
        if capture:
            capture("evaluate", first, (a, b, c))
        h = timer.run("ntt_h", ntt_h, a, b, c, circuit.log_n, convention, True, first,  # a, b, c: its work buffers
                      plan.half_table, plan.coset_tables)
        del a, b, c
        if capture:
            capture("ntt_h", first, h)
        h_sums.append(timer.run("msm_h", msm_h, h, queries.h))
        del h
        if capture:
            capture("msm_h", first, h_sums[-1])
    return cupy.concatenate(h_sums)


def _decode_sums(h, batch: dict, tail: dict) -> list[CircuitSums]:
    """The MSM phases' outputs as py_ecc points, per circuit (GpuProofRun.sums)."""
    groups = {"l": G1_GROUP, "a": G1_GROUP, "b_g1": G1_GROUP, "b_g2": G2_GROUP}
    h_points = download_points(h, G1_GROUP)
    per_query = {kind: {q: download_points(words[q], groups[q]) for q in groups} for kind, words in
                 (("batch", batch), ("tail", tail))}
    return [CircuitSums(h_points[k], *(QuerySums(**{q: per_query[kind][q][k] for q in groups}) for kind in ("batch", "tail")))
            for k in range(len(h_points))]


def _sums_to_host(h, batch: dict, tail: dict) -> tuple:
    """GpuProofRun.sum_words: the MSM phases' (circuits, words) outputs copied to the host."""
    host = backend().xp.asnumpy
    return host(h), {q: host(w) for q, w in batch.items()}, {q: host(w) for q, w in tail.items()}


def _split_bytes(splits) -> int:
    """Device bytes prep's output holds (counted again by batch_bytes, so added back to the free memory)."""
    return sum(s.bitmaps.nbytes + s.tail_scalars.nbytes for s in splits.values())


def prove_on_device(circuit: DeviceCircuit, key: DeviceKey, z_plain, randomness: list[tuple[int, int]],
                    convention: DomainConvention = BELLMAN, progress=None, timer: GpuPhaseTimer | None = None,
                    plan: BatchPlan | None = None, capture: PhaseCapture | None = None) -> GpuProofRun:
    """Groth16 proofs for witnesses already on the device: ``z_plain`` (circuits, V, 8) canonical Fr limbs of
    z = [1, inputs, aux] (values < r), ``randomness`` each circuit's (r, s). Bit-identical to the reference.

    ``plan``: from plan_batch (witnesses_resident=True is assumed when None); a smaller ``plan.block`` than the
    memory allows is kept, and so are ``plan.half_table`` False and fewer ``plan.coset_tables`` (the path a full device takes). ``capture``: see
    PhaseCapture.
    Raises UnsatisfiedConstraintError (checked on the device's a, b, c) before any other MSM than msm_h runs on
    an unsatisfied block."""
    device.require_device()
    circuits = int(z_plain.shape[0])
    if z_plain.ndim != 3 or z_plain.shape[1:] != (circuit.num_variables, FR.num_limbs):
        raise SizeMismatchError("witnesses", f"device array has shape {tuple(z_plain.shape)}; expected "
                                f"(circuits, {circuit.num_variables}, {FR.num_limbs})")
    if len(randomness) != circuits:
        raise SizeMismatchError("randomness", f"has {len(randomness)} (r, s) pairs for {circuits} circuits")
    timer = timer or GpuPhaseTimer(progress)
    stages = StageTimer(timer)
    stages.host(COMPILE_KERNELS, device.build_in_parallel, KERNEL_MODULES)
    queries = key.queries
    stages.host(RELEASE_CACHED_BLOCKS, device.release_cached_blocks)
    # prep needs only the witnesses, so it runs first: its tails' lengths make the memory plan exact before any
    # MSM work (a batch whose tails do not fit fails here, not after msm_h).
    splits = timer.run("prep", prep, z_plain, circuit.num_inputs, circuit.num_aux, circuit.density,
                       circuit.device_query_variables())
    if capture:
        capture("prep", 0, splits)
    tails = {q: int(split.tail_indices.size) for q, split in splits.items()}
    resident_plan = stages.host(PLAN_MEMORY, lambda: plan_batch(  # (the free memory read inside the timed stage)
        circuit, queries, circuits, witnesses_resident=True, tail_points=tails,
        bytes_free=device.free_device_memory() + _split_bytes(splits), convention=convention,
        half_table=plan.half_table if plan else True, coset_tables=plan.coset_tables if plan else MAX_COSET_TABLES))
    if plan:
        resident_plan = replace(resident_plan, block=min(plan.block, resident_plan.block))
    h_sums = _front(circuit, queries, z_plain, resident_plan, convention, timer, capture)
    batch = timer.run("batch_add", batch_add, splits, queries)
    if capture:
        capture("batch_add", 0, batch)
    tail = timer.run("tail_msm", tail_msm, splits, queries)
    if capture:
        capture("tail_msm", 0, tail)
    del splits
    device_proofs = timer.run("assemble", assemble, key.vk, h_sums, batch, tail, randomness)
    if capture:
        capture("assemble", 0, device_proofs)
    proofs = stages.copy(DOWNLOAD_PROOFS, download_proofs, device_proofs)
    sum_words = stages.copy(DOWNLOAD_SUMS, _sums_to_host, h_sums, batch, tail)
    return GpuProofRun(proofs=proofs, ms=timer.ms, sum_words=sum_words)


def _witness_vectors(r1cs: R1CS, witnesses: list[Witness]) -> list[list[int]]:
    """Each circuit's z = [1, inputs, aux], checked against the R1CS (reference/r1cs.py witness_vector)."""
    return [witness_vector(r1cs, w.public_inputs, w.aux, c) for c, w in enumerate(witnesses)]


def check_domain(r1cs: R1CS) -> None:
    """Refuse a circuit whose domain ntt_h cannot transform (gpu/ntt.py's sizes) before any upload or phase, not
    at ntt_h after evaluate and prep have run."""
    ntt.check_log_n(r1cs.log_n, "r1cs")


def prove(r1cs: R1CS, pk, witnesses: list[Witness], queries: DeviceQueries | None = None, progress=None,
          convention: DomainConvention = BELLMAN, capture: PhaseCapture | None = None,
          max_block: int | None = None, half_table: bool = True, staging: str = PAGEABLE) -> GpuProofRun:
    """Groth16 proofs for every witness, bit-identical to reference.prover.prove's with the same ``convention``.

    ``convention``: the vector's domain convention (reference/domain.py; ``vector.convention``): bellman
    (default) or snarkjs (omega = 5^((r-1)/n), c = a*b, h as n coset values). ``queries``: the proving key's
    points already on the device (from an earlier call); uploaded here if None. Raises BatchTooLargeError
    before uploading the witnesses when they do not fit, UnsatisfiedConstraintError (checked on the device's
    a, b, c) before the batch-add and tail MSMs run. ``capture``: see PhaseCapture. ``max_block``: at most this
    many circuits at a time through evaluate -> ntt_h -> msm_h, whatever the memory allows (1: the path of a
    device too full for more; conformance --mode prover runs it). ``half_table``: False keeps ntt_h from the half
    table of twiddles whatever the memory allows (the same path; BatchPlan.half_table).
    ``staging``: how keys and witnesses go to the device (gpu/staging.py: pageable, pinned-copy, registered),
    each host-side stage and copy timed in ``ms``.
    """
    device.require_device()
    if not witnesses:
        raise SizeMismatchError("witnesses", "give at least one circuit")
    check_domain(r1cs)
    timer = GpuPhaseTimer(progress)
    stages = StageTimer(timer)
    if queries is None:
        queries = upload_keys(pk, staging, stages)[None]
    circuit = stages.host(PREPARE_CIRCUIT, DeviceCircuit.from_r1cs, r1cs)
    zs = stages.host(WITNESS_VECTORS, _witness_vectors, r1cs, witnesses)
    plan = stages.host(PLAN_MEMORY, partial(plan_batch, circuit, queries, len(zs), convention=convention,
                                            half_table=half_table))
    if max_block is not None:
        plan = replace(plan, block=max(1, min(plan.block, max_block)))
    z_plain = upload_witnesses(zs, staging, stages)
    key = DeviceKey(vk=pk.vk, queries=queries)
    return prove_on_device(circuit, key, z_plain, [(w.r, w.s) for w in witnesses], convention, timer=timer, plan=plan,
                           capture=capture)

