"""Host-side stages of the GPU prover, each a timed phase: staging keys and witnesses in host memory, pinning
(page-locking) where the staging mode asks for it, and every host-to-device copy.

Staging modes (``python -m gpu prove --staging``):

    pageable      the staged numpy arrays are copied as they are (cudaMemcpy from pageable memory: the driver
                  copies through its own small page-locked bounce buffers, chunk by chunk)
    pinned-copy   a page-locked buffer is allocated (cudaHostAlloc) and the staged array copied into it; the
                  device copy then runs by DMA at full link speed; the buffer is freed afterwards
    registered    the staged arrays themselves are page-locked in place (cudaHostRegister), copied by DMA, and
                  unregistered (cudaHostUnregister)

Pinning costs host time proportional to the bytes (the kernel must fault in and lock every page); it pays only
when the faster copy gains more than that (``break_even_uploads``; bench/bench_staging.py measures both on the
device). Note: ``cupy.asarray(numpy_array)`` is none of these: it allocates a page-locked staging buffer from CuPy's
pool on every call and copies through it.

Stage names (the timing record's phases, conformance/TIMING_SCHEMA.md): ``stage_<what>``, ``pin_<what>``,
``unpin_<what>`` (host, wall clock) and ``h2d_<array>`` (copy, CUDA events), for what = keys or witnesses;
``d2h_proofs`` is the proofs' copy back (CUDA events) and ``encode_proofs`` their encoding (host). Between them,
gpu/prover.py times its own steps outside the phases the same way: ``prepare_circuit``, ``witness_vectors``,
``plan_memory`` (prove's first plan and prove_on_device's exact one, summed), ``compile_kernels`` and
``release_cached_blocks`` (host), ``d2h_sums`` (copy); ``python -m gpu prove`` times ``open_devices`` too.
Each stage is timed once, at its boundary.
"""
from __future__ import annotations

import contextlib
import ctypes
import mmap
import time
from dataclasses import dataclass, field

import numpy as np

from .limbs import FR, ints_to_limbs
from .points import G1_GROUP, G2_GROUP, points_to_words

PAGEABLE, PINNED_COPY, REGISTERED = "pageable", "pinned-copy", "registered"
STAGINGS = (PAGEABLE, PINNED_COPY, REGISTERED)
KEY_GROUPS = {"h": G1_GROUP, "l": G1_GROUP, "a": G1_GROUP, "b_g1": G1_GROUP, "b_g2": G2_GROUP}
"""The proving key's queries and the group of their points."""
DOWNLOAD_PROOFS = "d2h_proofs"
"""The device-to-host copy of the proofs (gpu/assemble.py download_proofs), after assemble."""
DOWNLOAD_SUMS = "d2h_sums"
"""The device-to-host copy of the MSM phases' outputs (gpu/prover.py GpuProofRun.sum_words), after the proofs'."""
COPIES = (*(f"h2d_key_{q}" for q in KEY_GROUPS), "h2d_witnesses", DOWNLOAD_PROOFS, DOWNLOAD_SUMS)
"""The copies of a proof between host and device, each timed by CUDA events."""
COPY_PREFIXES = ("h2d_", "d2h_")
OPEN_DEVICES = "open_devices"
"""The devices counted and each one's CUDA context made (gpu/multi.py open_devices), before the keys' upload."""
PREPARE_CIRCUIT = "prepare_circuit"
"""The R1CS as one stacked CSR, built on the host and uploaded (gpu/circuit.py DeviceCircuit.from_r1cs)."""
WITNESS_VECTORS = "witness_vectors"
"""Each circuit's z = [1, inputs, aux] as Python ints, checked against the R1CS (reference/r1cs.py witness_vector)."""
COMPILE_KERNELS = "compile_kernels"
"""The prover's kernel modules loaded, compiled first where no cache has them (gpu/prover.py KERNEL_MODULES)."""
RELEASE_CACHED_BLOCKS = "release_cached_blocks"
"""CuPy's cached free blocks handed back to the driver before the first phase (gpu/device.py release_cached_blocks)."""
PLAN_MEMORY = "plan_memory"
"""The memory plans (gpu/prover.py plan_batch): prove()'s first, before the witnesses' upload, and the exact one once
prep has measured the tails, summed; large tables a plan does not keep are released there."""
HOST_STAGES = ("read_vector", OPEN_DEVICES, "stage_keys", "pin_keys", "unpin_keys", PREPARE_CIRCUIT, WITNESS_VECTORS,
               PLAN_MEMORY, "stage_witnesses", "pin_witnesses", "unpin_witnesses", COMPILE_KERNELS, RELEASE_CACHED_BLOCKS,
               "encode_proofs")
"""The host-side stages, in the order a proof goes through them (wall clock)."""
WHOLE_RUN = "whole_run"
"""One whole run of ``python -m gpu prove``, from reading the vector to the proofs encoded (wall clock, kind host):
time that no stage or phase names (host waits, Python between the phases) shows only as its excess over theirs."""
REGISTER_DEFAULT_FLAGS = 0
"""cudaHostRegisterDefault: page-locked, usable by the current context's copies."""


def stage_kind(name: str) -> str:
    """The timing record's kind of a timed name: 'copy' (h2d_/d2h_), 'host' (HOST_STAGES, WHOLE_RUN) or 'phase'."""
    if name.startswith(COPY_PREFIXES):
        return "copy"
    return "host" if name in (*HOST_STAGES, WHOLE_RUN) else "phase"


def break_even_uploads(pin_seconds: float, pageable_copy_seconds: float, pinned_copy_seconds: float) -> float | None:
    """How many uploads of the same buffer pay back pinning it once: pin cost / gain per upload; None when pinned
    copies gain nothing (pinning never pays)."""
    gain = pageable_copy_seconds - pinned_copy_seconds
    return pin_seconds / gain if gain > 0 else None


class StageTimer:
    """Milliseconds per stage into ``ms`` (shared with the prover's GpuPhaseTimer when given one): host stages by
    the wall clock, copies by the phase timer (CUDA events around the copy: GpuPhaseTimer.run)."""

    def __init__(self, phase_timer=None):
        if phase_timer is None:
            from .prover import GpuPhaseTimer

            phase_timer = GpuPhaseTimer()
        self._phase_timer = phase_timer
        self.ms: dict[str, float] = phase_timer.ms

    def host(self, name: str, fn, *args):
        start = time.perf_counter()
        result = fn(*args)
        self.ms[name] = self.ms.get(name, 0.0) + (time.perf_counter() - start) * 1000.0
        return result

    def copy(self, name: str, fn, *args):
        return self._phase_timer.run(name, fn, *args)


# ---------------------------------------------------------------------------------------------
# The CUDA calls (one small interface, so that the staging logic runs on the CPU in tests)
# ---------------------------------------------------------------------------------------------


class CupyHost:
    """Page-locked host memory and host-to-device copies through CuPy's CUDA runtime bindings."""

    def pinned_empty(self, shape, dtype) -> tuple[np.ndarray, object]:
        """(array view, owner): a page-locked buffer from cudaHostAlloc (not CuPy's caching pool, so that pinning
        is paid and measured every time); freed with cudaFreeHost when the owner goes."""
        import cupy

        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        memory = cupy.cuda.PinnedMemory(nbytes)
        view = np.frombuffer(cupy.cuda.PinnedMemoryPointer(memory, 0), dtype=dtype, count=int(np.prod(shape)))
        return view.reshape(shape), memory

    def register(self, start: int, length: int) -> None:
        """cudaHostRegister of the page-aligned range [start, start + length)."""
        import cupy

        cupy.cuda.runtime.hostRegister(start, length, REGISTER_DEFAULT_FLAGS)

    def unregister(self, start: int) -> None:
        import cupy

        cupy.cuda.runtime.hostUnregister(start)

    def to_device(self, array: np.ndarray, page_locked: bool):
        """A device copy of a C-contiguous host array: from page-locked memory by cudaMemcpyAsync on the current
        stream (DMA; the caller's timer synchronises before the memory is released), else by cudaMemcpy (the
        driver's bounce buffers; returns when done)."""
        import cupy

        out = cupy.empty(array.shape, dtype=array.dtype)
        source = ctypes.c_void_p(array.ctypes.data)
        if array.nbytes and page_locked:
            out.data.copy_from_host_async(source, array.nbytes)
        elif array.nbytes:
            out.data.copy_from_host(source, array.nbytes)
        return out


@dataclass
class Staged:
    """Host arrays ready for the device copy, and whatever must be released after it."""

    arrays: dict[str, np.ndarray]
    owners: list = field(default_factory=list)
    registered: list = field(default_factory=list)
    """(start, length) page ranges registered with cudaHostRegister."""


def page_ranges(spans: list[tuple[int, int]], page_size: int = mmap.PAGESIZE) -> list[tuple[int, int]]:
    """The (start, length) page-aligned ranges covering the (address, bytes) ``spans``, overlapping or touching ones
    merged: cudaHostRegister locks whole pages and refuses a page already registered, and two small arrays can share
    a page of the heap."""
    pages = sorted((address // page_size * page_size, -(-(address + size) // page_size) * page_size)
                   for address, size in spans if size)
    merged: list[list[int]] = []
    for start, end in pages:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end - start) for start, end in merged]


def _pin(arrays: dict[str, np.ndarray], mode: str, host) -> Staged:
    """The arrays as the staging mode copies them: as they are, in page-locked copies, or registered in place.
    What was locked before a failure (out of host memory, a refused range) is released before the error goes on."""
    staged = Staged(dict(arrays))
    try:
        _lock(staged, arrays, mode, host)
    except BaseException:
        _release(staged, host)
        raise
    return staged


def _lock(staged: Staged, arrays: dict[str, np.ndarray], mode: str, host) -> None:
    if mode == PAGEABLE:
        return
    if mode == REGISTERED:
        for start, length in page_ranges([(a.ctypes.data, a.nbytes) for a in arrays.values()]):
            host.register(start, length)
            staged.registered.append((start, length))
        return
    for name, array in arrays.items():
        if array.nbytes:  # (nothing to lock in an empty array)
            pinned, owner = host.pinned_empty(array.shape, array.dtype)
            staged.owners.append(owner)
            np.copyto(pinned, array)
            staged.arrays[name] = pinned


def _release(staged: Staged, host) -> None:
    for start, _ in staged.registered:
        host.unregister(start)
    staged.registered.clear()
    staged.arrays.clear()
    staged.owners.clear()  # with the views gone, the last references to the page-locked buffers: cudaFreeHost


def _on_device(device: int | None):
    """The device made current for a copy (None: the current one)."""
    if device is None:
        return contextlib.nullcontext()
    import cupy

    return cupy.cuda.Device(device)


def upload_arrays(arrays: dict[str, np.ndarray], mode: str, what: str, timer: StageTimer, host=None,
                  devices=(None,)) -> dict:
    """{device: {name: device array}} for C-contiguous host ``arrays``, staged as ``mode`` says and copied to each
    of ``devices`` (None: the current device); timed as pin_<what>, h2d_<name> (summed over the devices),
    unpin_<what>. The pinning is undone even when a copy fails."""
    if mode not in STAGINGS:
        raise ValueError(f"staging {mode!r} is not one of {', '.join(STAGINGS)}")
    host = host or CupyHost()
    arrays = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    pinning = mode != PAGEABLE
    staged = timer.host(f"pin_{what}", _pin, arrays, mode, host) if pinning else _pin(arrays, mode, host)
    try:
        out = {}
        for device in dict.fromkeys(devices):
            with _on_device(device):
                out[device] = {name: timer.copy(f"h2d_{name}", host.to_device, staged.arrays[name], pinning)
                               for name in arrays}
        return out
    finally:
        if pinning:
            timer.host(f"unpin_{what}", _release, staged, host)


# ---------------------------------------------------------------------------------------------
# Keys and witnesses
# ---------------------------------------------------------------------------------------------


def key_host_arrays(pk) -> dict[str, np.ndarray]:
    """The proving key's query points in the device layout (affine Montgomery words), in host memory, named
    key_<query>."""
    return {f"key_{q}": points_to_words(list(getattr(pk, q)), group) for q, group in KEY_GROUPS.items()}


def witness_host_array(zs: list[list[int]]) -> np.ndarray:
    """(circuits, V, limbs) canonical Fr limbs of each circuit's z = [1, inputs, aux], in host memory."""
    return ints_to_limbs([v for z in zs for v in z], FR).reshape(len(zs), -1, FR.num_limbs)


def upload_keys(pk, mode: str, timer: StageTimer, devices=(None,), host=None) -> dict:
    """{device: DeviceQueries}: the key staged once in host memory (stage_keys), pinned once as ``mode`` says, and
    copied to each of ``devices`` (h2d_key_<query>, summed over the devices)."""
    from .msm import DeviceBases, DeviceQueries  # msm imports the prover's modules; staging is imported by the prover

    arrays = timer.host("stage_keys", key_host_arrays, pk)
    per_device = upload_arrays(arrays, mode, "keys", timer, host, devices)
    return {d: DeviceQueries(**{q: DeviceBases(words[f"key_{q}"], group) for q, group in KEY_GROUPS.items()})
            for d, words in per_device.items()}


def upload_witnesses(zs: list[list[int]], mode: str, timer: StageTimer, host=None):
    """The (circuits, V, limbs) device array of the witnesses: staged (stage_witnesses), pinned as ``mode`` says,
    copied (h2d_witnesses)."""
    z = timer.host("stage_witnesses", witness_host_array, zs)
    return upload_arrays({"witnesses": z}, mode, "witnesses", timer, host)[None]["witnesses"]
