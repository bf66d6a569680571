"""Many circuits over several GPUs of one host, as supraseal-c2's generate_groth16_proofs_c spreads them.

    blocks      the circuits of one call are cut into contiguous blocks, one per GPU, in device order:
                with C circuits on N GPUs, the first C mod N GPUs take ceil(C / N) circuits and the
                others floor(C / N) (``split_blocks``), so block sizes differ by at most one
    keys        the proving key's points are uploaded once to every GPU used (``keys_on``) and stay there
    streams     one host thread per block (``run_on_devices``); each makes its GPU current and runs the
                one-GPU prover (gpu/prover.py) on a stream of its own, so the GPUs work at the same time
    merge       the proofs come back in circuit order: block k's proofs follow block k-1's

N = 1 is the same path with one block. ``devices`` may repeat a device: blocks [0, 0] run two blocks on
device 0 (concurrently, on two streams), which is how the split is checked on a one-GPU machine.
Every block's proofs are bit-identical to a one-GPU run of the same circuits (each circuit's proof
depends only on its witness, r, s and the keys).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from reference.domain import BELLMAN, DomainConvention
from reference.errors import InvalidInputError, SizeMismatchError

from . import device
from .assemble import Proof
from .prover import GpuProofRun, check_domain, prove
from .staging import PAGEABLE


def split_blocks(circuits: int, gpus: int) -> list[range]:
    """Contiguous blocks of circuit indices, one per GPU: the first circuits % gpus blocks hold one more.
    A GPU gets an empty block when there are fewer circuits than GPUs."""
    if gpus < 1:
        raise InvalidInputError("--gpus", f"must be at least 1, got {gpus}")
    base, extra = divmod(circuits, gpus)
    blocks, start = [], 0
    for k in range(gpus):
        size = base + (1 if k < extra else 0)
        blocks.append(range(start, start + size))
        start += size
    return blocks


def resolve_devices(gpus: int | None = None, devices: list[int] | None = None) -> list[int]:
    """The device of each block: ``devices`` as given (repeats allowed: several blocks on one GPU), else
    0 .. gpus-1, else every visible device. Refuses a device that is not visible, saying how many are."""
    visible = device.device_count()
    if devices is None:
        count = visible if gpus is None else gpus
        if count < 1:
            raise InvalidInputError("--gpus", f"must be at least 1, got {count}")
        if count > visible:
            raise InvalidInputError("--gpus", f"asks for {count} GPUs but {visible} CUDA device(s) are visible")
        devices = list(range(count))
    for d in devices:
        if not 0 <= d < visible:
            raise InvalidInputError("--devices", f"device {d} is not visible; devices 0..{visible - 1} are")
    return list(devices)


def open_devices(gpus: int | None = None, devices: list[int] | None = None) -> list[int]:
    """resolve_devices, then each device's CUDA context made (cudaFree(0): the CUDA runtime's way to make it with no
    other work). A process makes it once, at its first CUDA call; here that is a timed stage of its own
    (gpu/staging.py OPEN_DEVICES), not a cost hidden before the first copy's timer starts."""
    resolved = resolve_devices(gpus, devices)
    import cupy

    for d in dict.fromkeys(resolved):
        with cupy.cuda.Device(d):
            cupy.cuda.runtime.free(0)
    return resolved


@dataclass
class MultiGpuRun:
    """Proofs in circuit order, with each block's one-GPU run (its per-phase CUDA-event times)."""

    proofs: list[Proof]
    devices: list[int]
    blocks: list[range]
    runs: list[GpuProofRun | None] = field(default_factory=list)
    """Per block, the one-GPU run (None for an empty block)."""

    def breakdown(self) -> str:
        lines = []
        for d, block, run in zip(self.devices, self.blocks, self.runs):
            label = f"GPU {d}: circuits {block.start}..{block.stop - 1}" if len(block) else f"GPU {d}: no circuits"
            lines.append(label)
            if run is not None:
                lines.append(run.breakdown())
        return "\n".join(lines)


def keys_on(pk, devices: list[int]) -> dict:
    """The proving key's queries uploaded once to each distinct device: {device: DeviceQueries}. Raises
    GpuMemoryError naming the device whose memory cannot hold them."""
    import cupy

    from .msm import DeviceQueries

    queries = {}
    for d in dict.fromkeys(devices):
        with cupy.cuda.Device(d):
            try:
                queries[d] = DeviceQueries.from_proving_key(pk)
                # the copies ran on this thread's stream; the blocks' streams (run_on_devices) are not ordered after it
                device.launch_check(f"the proving key's upload to GPU {d}", sync=True)
            except cupy.cuda.memory.OutOfMemoryError as exc:
                raise device.GpuMemoryError(f"the proving key on GPU {d}", int(getattr(exc, "size", 0)),
                                            device.free_device_memory()) from exc
    return queries


def run_on_devices(devices: list[int], work):
    """[work(k, devices[k]) for each block k], each call on a host thread of its own with devices[k] current and
    a non-blocking stream of its own (so blocks on different GPUs, or on one GPU, overlap), synchronised before
    its result is returned. An exception in any block is raised here."""
    import cupy

    def one(k: int):
        with cupy.cuda.Device(devices[k]):
            stream = cupy.cuda.Stream(non_blocking=True)
            with stream:
                result = work(k, devices[k])
            stream.synchronize()
            return result

    with ThreadPoolExecutor(max_workers=max(1, len(devices))) as pool:
        return list(pool.map(one, range(len(devices))))


def prove_multi(r1cs, pk, witnesses, gpus: int | None = None, devices: list[int] | None = None,
                convention: DomainConvention = BELLMAN, progress=None, queries: dict | None = None,
                capture=None, max_block: int | None = None, half_table: bool = True,
                staging: str = PAGEABLE) -> MultiGpuRun:
    """Groth16 proofs for every witness, the circuits spread over GPUs (module docstring); bit-identical to
    gpu.prover.prove on one GPU. ``queries``: keys_on()'s result from an earlier call, to reuse the uploads.
    ``capture``, ``max_block``, ``half_table``: gpu.prover.prove's, for every block (capture's first_circuit counts over the
    whole call; it may be called from several host threads at once). ``staging``: how each block's witnesses
    go to its device (gpu/staging.py)."""
    if not witnesses:
        raise SizeMismatchError("witnesses", "give at least one circuit")
    check_domain(r1cs)  # before the keys' upload
    devices = resolve_devices(gpus, devices)
    blocks = split_blocks(len(witnesses), len(devices))
    queries = queries or keys_on(pk, devices)

    def run_block(k: int, on_device: int) -> GpuProofRun | None:
        if not len(blocks[k]):
            return None
        say = (lambda m: progress(f"GPU {on_device} block {k}: {m}")) if progress else None
        start = blocks[k].start
        block_capture = (lambda phase, first, outputs: capture(phase, start + first, outputs)) if capture else None
        return prove(r1cs, pk, [witnesses[i] for i in blocks[k]], queries=queries[on_device], progress=say,
                     convention=convention, capture=block_capture, max_block=max_block, half_table=half_table,
                     staging=staging)

    runs = run_on_devices(devices, run_block)
    proofs = [p for run in runs if run is not None for p in run.proofs]
    return MultiGpuRun(proofs=proofs, devices=devices, blocks=blocks, runs=runs)
