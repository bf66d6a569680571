"""The whole GPU prover: the reference's phases, in the same order, with data kept on the device.

    upload keys (once per key) and witnesses
    evaluate -> ntt_h -> msm_h          all circuits in one launch sequence; h never leaves the device
    prep                                on the device (gpu/prep.py: CuPy array operations)
    batch_add, tail_msm                 one pass over each query's bases for all circuits
    assemble                            on the host (gpu/assemble.py says why)

Each phase is timed once, at its boundary, with CUDA events (``GpuPhaseTimer``); the uploads are
timed separately as transfers, so a phase's time is device work only.
"""
from dataclasses import dataclass, field

from reference.domain import BELLMAN, DomainConvention
from reference.errors import SizeMismatchError
from reference.keys import QuerySums
from reference.prover import PHASES, Witness
from reference.r1cs import R1CS, witness_vector

from . import device
from .assemble import Proof, assemble
from .evaluate import check_rows, evaluate, upload_r1cs
from .limbs import FR, ints_to_limbs
from .msm import DeviceQueries
from .msm_h import msm_h_many
from .ntt_h import ntt_h
from .points import download_points
from .prep import prep

TRANSFERS = ("upload_keys", "upload_witnesses")
"""Host-to-device copies (with their host-side conversion), reported apart from the phases."""


class GpuPhaseTimer:
    """Milliseconds per phase from CUDA events recorded around the whole phase (and synchronised after it)."""

    def __init__(self, progress=None):
        self.ms: dict[str, float] = {}
        self._progress = progress

    def run(self, phase: str, fn, *args):
        import cupy

        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        result = fn(*args)
        end.record()
        end.synchronize()
        self.ms[phase] = self.ms.get(phase, 0.0) + cupy.cuda.get_elapsed_time(start, end)
        if self._progress:
            self._progress(f"gpu {phase}: {self.ms[phase]:.2f} ms")
        return result


@dataclass
class GpuProofRun:
    proofs: list[Proof]
    ms: dict[str, float] = field(default_factory=dict)
    """Per phase (PHASES) and per transfer (TRANSFERS), milliseconds by CUDA events."""

    def breakdown(self) -> str:
        """A small table: every phase, then the transfers, then the totals."""
        lines = [f"{'phase':<18} {'ms':>10}"]
        lines += [f"{p:<18} {self.ms[p]:>10.2f}" for p in PHASES if p in self.ms]
        lines += [f"{t + ' (transfer)':<18} {self.ms[t]:>10.2f}" for t in TRANSFERS if t in self.ms]
        phases = sum(self.ms.get(p, 0.0) for p in PHASES)
        lines.append(f"{'phases total':<18} {phases:>10.2f}")
        lines.append(f"{'with transfers':<18} {phases + sum(self.ms.get(t, 0.0) for t in TRANSFERS):>10.2f}")
        return "\n".join(lines)


def _batch_add(queries: DeviceQueries, splits) -> list[QuerySums]:
    """Per circuit, the four batch-addition sums from the device bitmaps (u64 words seen as u32 words)."""
    sums = {}
    for name, split_name in (("l", "l"), ("a", "a"), ("b_g1", "b"), ("b_g2", "b")):
        bases = getattr(queries, name)
        words = splits[split_name].bitmaps.view("uint32")
        sums[name] = download_points(bases.batch_adder().sums(words), bases.group)
    return [QuerySums(**{q: sums[q][c] for q in sums}) for c in range(len(sums["l"]))]


def _tail_msm(queries: DeviceQueries, splits) -> list[QuerySums]:
    """Per circuit, the four tail MSMs: the tail points gathered once, every circuit's scalars in one call."""
    sums = {}
    for name, split_name in (("l", "l"), ("a", "a"), ("b_g1", "b"), ("b_g2", "b")):
        split = splits[split_name]
        subset = getattr(queries, name).subset(split.tail_indices.get().tolist())
        sums[name] = download_points(subset.msm_engine().msm(split.tail_scalars, montgomery=False), subset.group)
    return [QuerySums(**{q: sums[q][c] for q in sums}) for c in range(len(sums["l"]))]


def prove(r1cs: R1CS, pk, witnesses: list[Witness], queries: DeviceQueries | None = None, progress=None,
          convention: DomainConvention = BELLMAN) -> GpuProofRun:
    """Groth16 proofs for every witness, bit-identical to reference.prover.prove's with the same ``convention``.

    ``convention``: the vector's domain convention (reference/domain.py; ``vector.convention``): bellman
    (default) or snarkjs (omega = 5^((r-1)/n), c = a*b, h as n coset values). ``queries``: the proving key's
    points already on the device (from an earlier call); uploaded here if None. Raises
    UnsatisfiedConstraintError (checked on the device's a, b, c) before any MSM runs.
    """
    device.require_device()
    import cupy

    if not witnesses:
        raise SizeMismatchError("witnesses", "give at least one circuit")
    timer = GpuPhaseTimer(progress)
    if queries is None:
        queries = timer.run("upload_keys", DeviceQueries.from_proving_key, pk)
    zs = [witness_vector(r1cs, w.public_inputs, w.aux, c) for c, w in enumerate(witnesses)]
    z_limbs = timer.run(
        "upload_witnesses", lambda: cupy.asarray(ints_to_limbs([v for z in zs for v in z], FR).reshape(len(zs), -1, FR.num_limbs))
    )
    csr = upload_r1cs(r1cs)

    a, b, c = timer.run("evaluate", evaluate, csr, zs, convention)
    if not convention.c_from_product:  # (a c_from_product evaluate has checked the rows itself)
        check_rows(a, b, c, r1cs.num_rows)
    h = timer.run("ntt_h", ntt_h, a, b, c, r1cs.log_n, convention)
    del a, b, c
    h_sums = timer.run("msm_h", msm_h_many, h, queries.h)
    del h
    splits = timer.run("prep", prep, z_limbs, r1cs.num_inputs, r1cs.num_aux, pk.density)
    batch = timer.run("batch_add", _batch_add, queries, splits)
    tail = timer.run("tail_msm", _tail_msm, queries, splits)
    proofs = timer.run(
        "assemble",
        lambda: [assemble(pk.vk, h_sums[k], batch[k], tail[k], w.r, w.s) for k, w in enumerate(witnesses)],
    )
    return GpuProofRun(proofs=proofs, ms=timer.ms)

