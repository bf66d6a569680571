"""The GPU prover (gpu/) as a conformance backend: thin adapters from the reference's inputs to the
gpu/ modules' calls and from their results back to the reference's types.

Each adapter times its stages apart:

* host: converting ints / py_ecc points to limb arrays and back (wall clock, ``host_seconds``);
* transfer: host -> device copies, the conversion into the device's layout (Montgomery form), and
  device -> host copies (CUDA events, ``transfer_seconds``);
* phase: the gpu/ phase call itself, measured by CUDA events recorded at its boundary (``seconds``);
* setup: the one-time upload of the proving key's points (``setup_seconds``), in the first phase
  of a vector that needs them (msm_h, batch_add or tail_msm).

Every adapter ends with ``gpu.device.launch_check(..., sync=True)`` so that a CUDA error is an
exception (status 'error'), never a silently wrong result. A phase whose gpu/ module does not exist
yet, or which has no adapter here yet, raises PhaseNotImplemented ('not implemented').
"""
import contextlib
import importlib
import time

from ..phases import Problem
from .base import CUDA_EVENTS, Backend, PhaseNotImplemented, PhaseRun

MS_PER_S = 1000.0
GIB = 1 << 30
GPU_PACKAGE = "gpu"


def _gpu_module(name: str):
    """gpu.<name>, or PhaseNotImplemented when gpu/<name>.py does not exist yet."""
    qualified = f"{GPU_PACKAGE}.{name}"
    try:
        return importlib.import_module(qualified)
    except ModuleNotFoundError as exc:
        if exc.name in (qualified, GPU_PACKAGE):
            raise PhaseNotImplemented(f"gpu/{name}.py does not exist yet") from None
        raise


def _gpu_function(module_name: str, function: str):
    module = _gpu_module(module_name)
    if not hasattr(module, function):
        raise PhaseNotImplemented(f"gpu/{module_name}.py has no {function}() yet")
    return getattr(module, function)


class Stopwatch:
    """Seconds per stage: 'phase', 'transfer' and 'setup' (one-time key upload) by CUDA events on the
    current stream, 'host' by the wall clock."""

    def __init__(self):
        import cupy

        self._cupy = cupy
        self.seconds = {"phase": 0.0, "transfer": 0.0, "host": 0.0, "setup": 0.0}
        self.ran: set[str] = set()
        """The stages that ran: a stage that did not is reported as null, not 0."""

    @contextlib.contextmanager
    def device(self, stage: str):
        """Time the block on the device: events recorded before and after it on the current stream."""
        cuda = self._cupy.cuda
        start, end = cuda.Event(), cuda.Event()
        start.record()
        yield
        end.record()
        end.synchronize()
        self.seconds[stage] += cuda.get_elapsed_time(start, end) / MS_PER_S
        self.ran.add(stage)

    def stage_seconds(self, stage: str) -> float | None:
        """Seconds spent in ``stage``, or None if it never ran."""
        return self.seconds[stage] if stage in self.ran else None

    @contextlib.contextmanager
    def host(self):
        """Time the block by the wall clock (host-side conversions)."""
        start = time.perf_counter()
        yield
        self.seconds["host"] += time.perf_counter() - start
        self.ran.add("host")


# ---------------------------------------------------------------------------------------------
# Adapters: (problem, inputs, stopwatch) -> the phase output in the reference's types


def _download_ints(clock: Stopwatch, array) -> list[int]:
    """Ints of a Montgomery-form Fr device array: device -> host copy (transfer), then host conversion."""
    import cupy
    from gpu import field, limbs

    with clock.device("transfer"):
        plain = field.to_host_limbs(cupy.ascontiguousarray(array), limbs.FR)
    with clock.host():
        return limbs.limbs_to_ints(plain.reshape(-1, limbs.FR.num_limbs))


def _per_circuit(values: list[int], circuits: int) -> list[tuple[int, ...]]:
    size = len(values) // circuits if circuits else 0
    return [tuple(values[k * size : (k + 1) * size]) for k in range(circuits)]


def _evaluate(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.evaluate.evaluate(csr, witnesses, convention) -> (a, b, c) device arrays (circuits, n, 8), Montgomery.

    The R1CS upload (CSR) is a transfer; evaluate() converts and uploads the witnesses itself, so
    that copy is inside the phase time. The vector's convention decides c (snarkjs: c = a * b)."""
    gpu_evaluate = _gpu_module("evaluate")
    from gpu import device
    from reference.evaluate import Evaluations

    with clock.device("transfer"):
        csr = gpu_evaluate.upload_r1cs(problem.vector.r1cs)
    with clock.device("phase"):
        a, b, c = gpu_evaluate.evaluate(csr, problem.zs, problem.vector.convention)
    device.launch_check("evaluate (conformance)", sync=True)
    circuits = len(problem.zs)
    columns = [_per_circuit(_download_ints(clock, x), circuits) for x in (a, b, c)]
    return [Evaluations(a=columns[0][k], b=columns[1][k], c=columns[2][k]) for k in range(circuits)]


def _prep(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.prep.prep(z limbs (circuits, variables, 8) canonical, ...) on the device -> reference Prep."""
    gpu_prep = _gpu_module("prep")
    import cupy
    import numpy as np
    from gpu import device, limbs

    r1cs = problem.vector.r1cs
    with clock.host():
        host = np.stack([limbs.ints_to_limbs(z, limbs.FR, f"witnesses[{k}]") for k, z in enumerate(problem.zs)])
    with clock.device("transfer"):
        z_device = cupy.asarray(host)
    with clock.device("phase"):
        splits = gpu_prep.prep(z_device, r1cs.num_inputs, r1cs.num_aux, problem.vector.pk.density)
    device.launch_check("prep (conformance)", sync=True)
    with clock.device("transfer"):
        on_host = {
            q: gpu_prep.DeviceSplit(s.split, cupy.asnumpy(s.bitmaps), cupy.asnumpy(s.tail_indices), cupy.asnumpy(s.tail_scalars))
            for q, s in splits.items()
        }
    with clock.host():
        return gpu_prep.to_reference(on_host)


def _ntt_h(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.ntt_h.ntt_h(a, b, c, log_n, convention) on (circuits, n, 8) Montgomery arrays -> h as ints per circuit
    (bellman: n - 1 coefficients; snarkjs: n coset values)."""
    run_ntt_h = _gpu_function("ntt_h", "ntt_h")
    from gpu import device, field, limbs

    convention = problem.vector.convention
    evaluations = inputs["evaluate"]
    circuits, n, log_n = len(evaluations), problem.domain.n, problem.domain.log_n
    with clock.host():
        host = [
            limbs.ints_to_limbs([v for e in evaluations for v in getattr(e, q)], limbs.FR, f"evaluate.{q}").reshape(circuits, n, limbs.FR.num_limbs)
            for q in ("a", "b", "c")
        ]
    with clock.device("transfer"):
        a, b, c = (field.limbs_to_device(x, limbs.FR) for x in host)
    with clock.device("phase"):
        h = run_ntt_h(a, b, c, log_n, convention)
    device.launch_check("ntt_h (conformance)", sync=True)
    return _per_circuit(_download_ints(clock, h), circuits)


def _device_queries(problem: Problem, clock: Stopwatch):
    """The proving key's H, L, A, B_G1, B_G2 on the device (gpu.msm.DeviceQueries), uploaded once per
    vector; the upload is timed as 'setup' in the phase that needs it first."""
    if "gpu_queries" not in problem.memo:
        msm = _gpu_module("msm")
        with clock.device("setup"):
            problem.memo["gpu_queries"] = msm.DeviceQueries.from_proving_key(problem.vector.pk)
    return problem.memo["gpu_queries"]


def _download_points(clock: Stopwatch, words, group) -> list:
    """py_ecc points from a device array of affine words: copy (transfer), then convert (host)."""
    import cupy
    from gpu import points

    with clock.device("transfer"):
        host = cupy.asnumpy(words)
    with clock.host():
        return points.words_to_points(host, group)


def _msm_h(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.msm_h.msm_h_device(h (circuits, n - 1, 8) Montgomery, H bases) -> one G1 point per circuit."""
    run_msm_h = _gpu_function("msm_h", "msm_h_device")
    from gpu import device, field, limbs, points

    hs = inputs["ntt_h"]
    queries = _device_queries(problem, clock)
    with clock.host():
        host = limbs.ints_to_limbs([v for h in hs for v in h], limbs.FR, "ntt_h.h").reshape(len(hs), -1, limbs.FR.num_limbs)
    with clock.device("transfer"):
        h_device = field.limbs_to_device(host, limbs.FR)
    with clock.device("phase"):
        sums = run_msm_h(h_device, queries.h)
    device.launch_check("msm_h (conformance)", sync=True)
    return _download_points(clock, sums, points.G1_GROUP)


def _batch_add(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.batch_add.batch_add(prep, device queries): the bitmaps (n/8 bytes) go up and the four sums
    per circuit come back inside the call, so those small copies are part of the phase time."""
    run_batch_add = _gpu_function("batch_add", "batch_add")
    from gpu import device

    queries = _device_queries(problem, clock)
    with clock.device("phase"):
        sums = run_batch_add(inputs["prep"], queries)
    device.launch_check("batch_add (conformance)", sync=True)
    return sums


def _tail_msm(problem: Problem, inputs: dict, clock: Stopwatch):
    """Per query: the tail points gathered on the device (DeviceBases.subset) and one MSM over every
    circuit's tail scalars (MsmEngine.msm), as gpu.tail_msm.tail_query does, with the scalars'
    conversion (host) and upload (transfer) timed apart from the MSM (phase)."""
    _gpu_function("tail_msm", "tail_msm")  # PhaseNotImplemented until gpu/tail_msm.py exists
    import cupy
    import numpy as np
    from gpu import device, points
    from reference.keys import QuerySums

    prep = inputs["prep"]
    queries = _device_queries(problem, clock)
    sums = {}
    for query, split_name in (("l", "l"), ("a", "a"), ("b_g1", "b"), ("b_g2", "b")):
        split, bases = getattr(prep, split_name), getattr(queries, query)
        with clock.host():
            host = np.stack([points.scalars_to_limbs(list(s), f"prep.{split_name}.tail_scalars[{c}]") for c, s in enumerate(split.tail_scalars)])
        with clock.device("transfer"):
            scalars = cupy.asarray(host)
        with clock.device("phase"):
            words = bases.subset(list(split.tail_indices)).msm_engine().msm(scalars, montgomery=False)
        device.launch_check(f"tail_msm {query} (conformance)", sync=True)
        sums[query] = _download_points(clock, words, bases.group)
    return [QuerySums(l=sums["l"][c], a=sums["a"][c], b_g1=sums["b_g1"][c], b_g2=sums["b_g2"][c]) for c in range(len(sums["l"]))]


def _assemble(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.assemble.assemble(vk, h, batch, tail, r, s) per circuit: the GPU prover assembles on the
    host (a few scalar multiplications), so this phase has no transfers."""
    run_assemble = _gpu_function("assemble", "assemble")
    vk = problem.vector.pk.vk
    with clock.device("phase"):
        return [
            run_assemble(vk, inputs["msm_h"][c], inputs["batch_add"][c], inputs["tail_msm"][c], w.r, w.s)
            for c, w in enumerate(problem.vector.witnesses)
        ]


ADAPTERS = {
    "evaluate": _evaluate,
    "ntt_h": _ntt_h,
    "msm_h": _msm_h,
    "prep": _prep,
    "batch_add": _batch_add,
    "tail_msm": _tail_msm,
    "assemble": _assemble,
}
"""phase -> adapter. gpu/ modules without an adapter here are reported 'not implemented'."""

GPU_MODULES = {
    "evaluate": "evaluate",
    "ntt_h": "ntt_h",
    "msm_h": "msm_h",
    "prep": "prep",
    "batch_add": "batch_add",
    "tail_msm": "tail_msm",
    "assemble": "assemble",
}
"""The gpu/ module of each phase (same names as reference/)."""


class GpuBackend(Backend):
    """gpu/: CuPy and CUDA kernels on the current device, or on CUDA device ``device_index`` (named gpu:K)."""

    def __init__(self, device_index: int | None = None):
        self.device_index = device_index
        self.name = "gpu" if device_index is None else f"gpu:{device_index}"

    def unavailable_reason(self) -> str | None:
        try:
            from gpu import device
        except Exception as exc:  # gpu/ itself broken: say so rather than crash the run
            return f"gpu/ cannot be imported ({type(exc).__name__}: {exc})"
        try:
            device.require_device()
        except device.GpuUnavailableError as exc:
            return str(exc)
        if self.device_index is not None and self.device_index >= device.device_count():
            return f"CUDA device {self.device_index} is not visible ({device.device_count()} device(s) are)"
        return None

    def _on_device(self):
        import cupy

        return cupy.cuda.Device(self.device_index) if self.device_index is not None else contextlib.nullcontext()

    def describe(self) -> dict:
        import cupy

        runtime = cupy.cuda.runtime
        with self._on_device():
            device_id = cupy.cuda.Device().id
            pci_bus_id = cupy.cuda.Device().pci_bus_id
        props = runtime.getDeviceProperties(device_id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        return {
            "device_index": device_id,
            "pci_bus_id": pci_bus_id,
            "name": name,
            "compute_capability": f"{props['major']}.{props['minor']}",
            "memory_gib": round(props["totalGlobalMem"] / GIB, 1),
            "driver_version": runtime.driverGetVersion(),
            "runtime_version": runtime.runtimeGetVersion(),
            "cupy": cupy.__version__,
        }

    def run_phase(self, phase: str, problem: Problem, inputs: dict) -> PhaseRun:
        """The phase through its adapter; seconds by CUDA events at the phase boundary (module docstring)."""
        module = GPU_MODULES[phase]
        if phase not in ADAPTERS:
            _gpu_module(module)  # PhaseNotImplemented when the module does not exist yet
            raise PhaseNotImplemented(f"gpu/{module}.py exists, but conformance/backends/gpu.py has no adapter for it yet")
        with self._on_device():
            clock = Stopwatch()
            output = ADAPTERS[phase](problem, inputs, clock)
        return PhaseRun(
            output=output,
            seconds=clock.seconds["phase"],
            timing=CUDA_EVENTS,
            transfer_seconds=clock.stage_seconds("transfer"),
            host_seconds=clock.stage_seconds("host"),
            setup_seconds=clock.stage_seconds("setup"),
        )
