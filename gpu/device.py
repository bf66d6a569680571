"""The CUDA device as the GPU phases see it: availability, kernel modules, memory, errors.

Every GPU phase goes through this module so that

* a missing CuPy, driver or device is one clear ``GpuUnavailableError`` (never an ImportError deep
  inside a phase);
* kernels are compiled from ``gpu/kernels/*.cu`` by NVRTC (``cupy.RawModule``) with one set of
  options, once per process (CuPy also keeps the binary in its on-disk cache); ``build_in_parallel``
  compiles a prover's modules at once, so that a cold start costs about the slowest one;
* a phase asks for its memory up front (``check_free_memory``) and fails with the amount needed
  and the amount free instead of an out-of-memory error half-way through;
* CUDA errors become Python exceptions at a known point (``launch_check``); with
  ``GPU_SYNC_CHECK=1`` in the environment (tests, debugging) every launch is checked at once.
"""
from __future__ import annotations

import functools
import hashlib
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NoReturn

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"
"""Where the .cu and .cuh sources live; also the include path handed to NVRTC."""

COMPILE_OPTIONS = ("-std=c++17",)
"""Options for every module. CuPy adds the architecture of the current device itself
(``--gpu-architecture=sm_XY``, machine code for that chip), so no -arch option is given here."""

SYNC_CHECK_ENV = "GPU_SYNC_CHECK"
"""Set to 1 to synchronize and check for CUDA errors after every launch (tests, debugging)."""

GIB = 1 << 30

_launches: set[tuple[str, str]] | None = None
"""While recording (record_launches): (module source, kernel name) of every launch, which
conformance/gpu_coverage.py maps to the kernel's file in gpu/kernels/. None when not recording, so that
launch() pays one comparison."""


class GpuUnavailableError(RuntimeError):
    """No usable CUDA device: CuPy is missing, the driver is missing, or no device is visible."""


class GpuMemoryError(RuntimeError):
    """The device has too little free memory for the work asked for."""

    def __init__(self, what: str, bytes_needed: int, bytes_free: int):
        self.what, self.bytes_needed, self.bytes_free = what, bytes_needed, bytes_free
        super().__init__(
            f"{what}: needs {bytes_needed / GIB:.2f} GiB of device memory, "
            f"only {bytes_free / GIB:.2f} GiB is free on the GPU"
        )


class GpuKernelError(RuntimeError):
    """A CUDA error during or after a kernel launch (illegal address, launch failure, ...)."""


def _unavailable_reason() -> str | None:
    """None when CuPy can use a CUDA device, else a sentence saying why not."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a CUDA install that CuPy cannot load
        return f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return f"no CUDA driver or device ({type(exc).__name__}: {exc})"
    if count == 0:
        return "no CUDA device is visible"
    return None


def device_count() -> int:
    """CUDA devices visible to this process (0 without CuPy or a driver)."""
    if _unavailable_reason() is not None:
        return 0
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


def require_device() -> None:
    """Return if a CUDA device is usable through CuPy; else raise GpuUnavailableError saying why."""
    reason = _unavailable_reason()
    if reason is not None:
        raise GpuUnavailableError(f"the GPU phases need a CUDA device: {reason}")


@functools.lru_cache(maxsize=1)
def _headers_digest() -> str:
    """sha256 over every header in KERNEL_DIR.

    CuPy's binary cache is keyed by the source text and options only, not by the headers that
    source includes; putting this digest into the source makes a header edit recompile.
    """
    digest = hashlib.sha256()
    for header in sorted(KERNEL_DIR.glob("*.cuh")):
        digest.update(header.name.encode())
        digest.update(header.read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def _module_source(cu_files: tuple[str, ...]) -> str:
    """The source text of a module, read once per process: every launch asks for its module (load_module), and
    reading the files and hashing the headers each time cost about 0.3 ms of host time a launch."""
    parts = [f"// headers sha256 {_headers_digest()}"]
    for name in cu_files:
        path = KERNEL_DIR / name
        if not path.is_file():
            raise FileNotFoundError(f"kernel source {name!r} is not in {KERNEL_DIR}")
        parts.append(f'#line 1 "{name}"\n{path.read_text()}')
    return "\n".join(parts)


def current_device_id() -> int:
    """The current CUDA device: the key of every per-device cache (modules, streams, NTT tables). A device array or a
    loaded module lives on the device that was current when it was made, and gpu/multi.py runs blocks on several."""
    import cupy

    return cupy.cuda.Device().id


def _compiled(source: str, options: tuple[str, ...]):
    """The module for the current device: a RawModule is loaded into one device's context, so each device of a
    multi-GPU run (gpu/multi.py) gets its own (the compiled binary itself is shared through CuPy's disk cache)."""
    return _compiled_on(source, options, current_device_id())


@functools.lru_cache(maxsize=None)
def _compiled_on(source: str, options: tuple[str, ...], device_id: int):
    import cupy

    module = cupy.RawModule(code=source, options=COMPILE_OPTIONS + (f"-I{KERNEL_DIR}",) + options)
    module.compile()  # compile now, so a syntax error surfaces here and not at the first launch
    return module


def load_module(*cu_files: str, options=()):
    """The cupy.RawModule built from gpu/kernels/<cu_files> (concatenated, in order).

    NVRTC options: -std=c++17, include path gpu/kernels, the current device's architecture
    (added by CuPy), then ``options``. Cached per process by (sources, options); a header edit
    changes the source digest and so forces a rebuild.
    """
    require_device()
    return _compiled(_module_source(tuple(cu_files)), tuple(options))


def build_in_parallel(loaders) -> None:
    """Call every loader (a function that loads one kernel module, as a phase loads it) at once, one thread each, on
    the current device, and raise the first loader's error. NVRTC compiles without holding the GIL (CuPy's
    nvrtc.compileProgram releases it), so a cold start, when every module is compiled, costs about the slowest
    module instead of the sum of all; one compiled earlier on this machine comes from CuPy's disk cache. The same
    loaders built once on a device are not called again there: with every module already loaded the threads alone
    cost 1.2-1.8 ms a call (measured as compile_kernels at 2^26 on an H100, bench/RESULTS_prove.md session 47)."""
    require_device()
    import cupy

    device_id = cupy.cuda.Device().id
    loaders = tuple(loaders)
    if (device_id, loaders) in _built:
        return

    def load_on_device(loader):
        with cupy.cuda.Device(device_id):  # a new thread starts on device 0
            loader()

    with ThreadPoolExecutor(max_workers=max(1, min(len(loaders), os.cpu_count() or 1))) as pool:
        for future in [pool.submit(load_on_device, loader) for loader in loaders]:
            future.result()
    _built.add((device_id, loaders))


_built: set = set()
"""(device, loaders) that build_in_parallel has built: the modules' own caches (_compiled_on) keep them loaded."""


def compile_source(source: str, options=()):
    """A cupy.RawModule from source text (test kernels), with load_module's options and cache."""
    require_device()
    return _compiled(f"// headers sha256 {_headers_digest()}\n{source}", tuple(options))


def free_device_memory() -> int:
    """Bytes the next allocations can use: the driver's free memory plus CuPy's pooled free blocks."""
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    return free + cupy.get_default_memory_pool().free_bytes()


def release_cached_blocks() -> None:
    """Hand the memory pool's wholly free chunks back to the driver. CuPy's pool splits a cached chunk to serve a
    smaller request, and a chunk one live array still occupies cannot be released; a prover call that starts on
    the chunks an earlier call left behind can then fail to find one contiguous scratch buffer (measured on the
    H200: the second timed run of ten 2^27 circuits could not allocate msm_h's 8.6 GB digit buffer although the
    memory plan's free bytes covered it). Starting each call from released chunks makes it allocate as the first
    call did."""
    import cupy

    cupy.get_default_memory_pool().free_all_blocks()


def check_free_memory(bytes_needed: int, what: str) -> None:
    """Raise GpuMemoryError, saying how much ``what`` needs and how much is free, if it will not fit."""
    require_device()
    free = free_device_memory()
    if bytes_needed > free:
        raise GpuMemoryError(what, bytes_needed, free)


def sync_check_enabled() -> bool:
    """True when GPU_SYNC_CHECK=1: every launch_check synchronizes."""
    return os.environ.get(SYNC_CHECK_ENV, "0") not in ("", "0")


def launch_check(what: str, sync: bool | None = None) -> None:
    """Turn a CUDA error from the launches so far into GpuKernelError naming ``what``.

    Launch-configuration errors surface at the launch itself (CuPy raises them); errors that
    happen while a kernel runs (illegal address, trap) surface only at a synchronization. So
    this synchronizes the current stream when ``sync`` is True, or when ``sync`` is None and
    GPU_SYNC_CHECK=1. Phases call it with sync=True once at their end, so a failed kernel is
    an exception before any result is handed back, never a silently wrong result.
    """
    import cupy

    if sync is None:
        sync = sync_check_enabled()
    if not sync:
        return
    try:
        cupy.cuda.get_current_stream().synchronize()
    except cuda_errors() as exc:
        raise GpuKernelError(f"{what}: CUDA error {exc}") from exc


def cuda_errors() -> tuple:
    """The exception types of a failed CUDA call (the runtime's and the driver's), as CuPy raises them: () without
    CuPy."""
    try:
        import cupy
    except ImportError:
        return ()
    return cupy.cuda.runtime.CUDARuntimeError, cupy.cuda.driver.CUDADriverError


def fused(function, what: str):
    """``function``, plain array code that numpy runs as is, as one CuPy kernel (cupy.fuse: compiled at its first
    call, kept by CuPy). Each call is recorded (record_launches, under ``what``) and checked as launch() does: with
    load_module and compile_source, the one place gpu/ builds kernels."""
    import cupy

    kernel = cupy.fuse(function)

    def run(*args):
        if _launches is not None:
            _launches.add(("", what))
        try:
            out = kernel(*args)
        except Exception as exc:
            raise GpuKernelError(f"{what}: launch failed: {exc}") from exc
        launch_check(what)
        return out

    return run


def record_launches() -> set[tuple[str, str]]:
    """Start recording every launch() from now on (conformance --coverage); returns the live set of
    (source, name): ``source`` is the module's source text (``RawModule.get_function`` hands it to
    the kernel), empty for a kernel object without one."""
    global _launches
    _launches = set()
    return _launches


def stop_recording_launches() -> None:
    global _launches
    _launches = None


def launch(kernel, grid, block, args, what: str, shared_mem: int = 0) -> None:
    """kernel<<<grid, block, shared_mem>>>(*args), then launch_check(what).

    Grid and block sizes are checked before the launch so a bad size is a ValueError naming
    ``what`` rather than a CUDA 'invalid argument'.
    """
    grid = tuple(int(g) for g in (grid if isinstance(grid, tuple) else (grid,)))
    block = tuple(int(b) for b in (block if isinstance(block, tuple) else (block,)))
    if any(g <= 0 for g in grid) or any(b <= 0 for b in block):
        raise ValueError(f"{what}: grid {grid} and block {block} must be positive")
    if _launches is not None:
        _launches.add((getattr(kernel, "code", None) or "", getattr(kernel, "name", what)))
    try:
        kernel(grid, block, args, shared_mem=shared_mem)
    except Exception as exc:
        raise GpuKernelError(f"{what}: launch failed: {exc}") from exc
    launch_check(what)


def device_error() -> str | None:
    """What the CUDA device reports when synchronized at the end, if CuPy was used and the device is in error: an
    error CUDA keeps (an illegal address) fails every later call, so it shows here whatever raised it first."""
    cupy = sys.modules.get("cupy")
    if cupy is None:
        return None
    try:
        cupy.cuda.runtime.deviceSynchronize()
    except Exception as exc:  # CUDARuntimeError: the context is unusable
        return f"{type(exc).__name__}: {exc}"
    return None


def finish(code: int, failed: int) -> NoReturn:
    """End a command line with exit status ``code``, but never 0 over a device in error (then ``failed``).

    After an error CUDA keeps, CuPy's clean-up at interpreter exit (unloading modules, freeing memory) fails once
    more for each object, printing tracebacks after the verdict; the outputs are written by then, so the process
    ends without that clean-up (os._exit)."""
    error = device_error()
    if error is None:
        sys.exit(code)
    if code == 0:
        print(f"error: gpu: the device is in error after the run ({error}): its results are not trusted", file=sys.stderr)
        code = failed
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
