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

from ..phases import CaptureOrder, Problem
from .base import CUDA_EVENTS, Backend, PhaseNotImplemented, PhaseRun, ProverRun

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
# Conversions between the reference's types and the device arrays the gpu/ phase functions take and give.
# They hold no phase logic; the adapters below and prover mode (GpuBackend.run_prover) share them.

QUERIES = ("l", "a", "b_g1", "b_g2")


def _host(array):
    """A device array's contents as numpy, copied without allocating on the device: a view that is not contiguous
    (ntt_h's h, the first n - 1 rows of each circuit's work buffer) is copied one contiguous row at a time."""
    import numpy as np
    from gpu.points import backend

    xp = backend().xp
    if array.flags.c_contiguous or array.ndim < 2:
        return xp.asnumpy(array)
    return np.stack([_host(array[k]) for k in range(array.shape[0])])


def fr_from_montgomery(limbs) -> list[int]:
    """Ints of Montgomery-form Fr limbs (any shape (..., 8), flattened), converted on the host: x R^-1 mod r.
    A value >= r, which no kernel may write, is passed through unreduced so that the comparison shows it."""
    from gpu.limbs import limbs_to_ints
    from reference.field import R

    r_inverse = pow(1 << 256, -1, R)
    return [v * r_inverse % R if v < R else v for v in limbs_to_ints(limbs)]


def per_circuit(values: list, circuits: int) -> list[tuple]:
    size = len(values) // circuits if circuits else 0
    return [tuple(values[k * size : (k + 1) * size]) for k in range(circuits)]


def evaluations_from_device(a, b, c) -> list:
    """evaluate's (a, b, c) (circuits, n, 8) Montgomery -> one reference Evaluations per circuit."""
    from reference.evaluate import Evaluations

    circuits = int(a.shape[0])
    columns = [per_circuit(fr_from_montgomery(_host(x)), circuits) for x in (a, b, c)]
    return [Evaluations(a=columns[0][k], b=columns[1][k], c=columns[2][k]) for k in range(circuits)]


def h_from_device(h) -> list[tuple[int, ...]]:
    """ntt_h's (circuits, n - 1, 8) Montgomery (a view: copied contiguous on the host) -> h per circuit."""
    return per_circuit(fr_from_montgomery(_host(h)), int(h.shape[0]))


def prep_from_device(splits: dict):
    """gpu.prep.prep's {l, a, b: DeviceSplit} -> reference Prep."""
    from gpu.prep import DeviceSplit, to_reference

    return to_reference({q: DeviceSplit(s.split, _host(s.bitmaps), _host(s.tail_indices), _host(s.tail_scalars))
                         for q, s in splits.items()})


def prep_to_device(prep) -> dict:
    """reference Prep -> the {l, a, b: DeviceSplit} that gpu.prep.prep gives (uint64 bitmaps, int64 tail
    indices, canonical tail-scalar limbs), on the active backend."""
    import numpy as np
    from gpu.limbs import FR, ints_to_limbs
    from gpu.points import backend
    from gpu.prep import DeviceSplit

    xp, splits = backend().xp, {}
    for name in ("l", "a", "b"):
        split = getattr(prep, name)
        circuits = len(split.bitmaps)
        words = len(split.bitmaps[0]) // 8 if circuits else 0  # (bitmap_bytes pads to whole 64-bit words)
        bitmaps = np.frombuffer(b"".join(split.bitmaps), dtype="<u8").reshape(circuits, words).astype(np.uint64)
        scalars = np.stack([ints_to_limbs(list(s), FR, f"prep.{name}.tail_scalars[{c}]").reshape(-1, FR.num_limbs)
                            for c, s in enumerate(split.tail_scalars)])
        splits[name] = DeviceSplit(split.split, xp.asarray(bitmaps), xp.asarray(np.asarray(split.tail_indices, dtype=np.int64)),
                                   xp.asarray(scalars))
    return splits


def _group(query: str):
    from gpu.points import G1_GROUP, G2_GROUP

    return G2_GROUP if query == "b_g2" else G1_GROUP


def query_sums_from_device(sums: dict) -> list:
    """batch_add's / tail_msm's {query: (circuits, words)} -> one reference QuerySums per circuit."""
    from gpu.points import words_to_points
    from reference.keys import QuerySums

    points = {q: words_to_points(_host(sums[q]), _group(q)) for q in QUERIES}
    return [QuerySums(**{q: points[q][c] for q in QUERIES}) for c in range(len(points["l"]))]


def query_sums_to_device(sums: list) -> dict:
    """One reference QuerySums per circuit -> {query: (circuits, words)} on the active backend."""
    from gpu.points import backend, points_to_words

    return {q: backend().xp.asarray(points_to_words([getattr(s, q) for s in sums], _group(q))) for q in QUERIES}


def g1_from_device(words) -> list:
    from gpu.points import G1_GROUP, words_to_points

    return words_to_points(_host(words), G1_GROUP)


# ---------------------------------------------------------------------------------------------
# Adapters: (problem, inputs, stopwatch) -> the phase output in the reference's types. Each converts the
# vector's inputs to device arrays, calls the phase's function in gpu/<phase>.py (the one gpu/prover.py
# runs), and converts the outputs back.


def _evaluate(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.evaluate.evaluate(csr, z canonical limbs, convention) -> (a, b, c) (circuits, n, 8) Montgomery."""
    run_evaluate = _gpu_function("evaluate", "evaluate")
    from gpu import device
    from gpu.evaluate import upload_r1cs, witnesses_to_device

    with clock.device("transfer"):
        csr = upload_r1cs(problem.vector.r1cs)
        z = witnesses_to_device(problem.zs, csr.num_variables)
    with clock.device("phase"):
        a, b, c = run_evaluate(csr, z, problem.vector.convention)
    device.launch_check("evaluate (conformance)", sync=True)
    with clock.host():
        return evaluations_from_device(a, b, c)


def _prep(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.prep.prep(z limbs (circuits, variables, 8) canonical, ...) on the device -> reference Prep."""
    run_prep = _gpu_function("prep", "prep")
    from gpu import device
    from gpu.evaluate import witnesses_to_device

    r1cs = problem.vector.r1cs
    with clock.device("transfer"):
        z = witnesses_to_device(problem.zs, r1cs.num_variables)
    with clock.device("phase"):
        splits = run_prep(z, r1cs.num_inputs, r1cs.num_aux, problem.vector.pk.density)
    device.launch_check("prep (conformance)", sync=True)
    with clock.host():
        return prep_from_device(splits)


def _fr_to_device(clock: Stopwatch, rows: list, field: str):
    """Per circuit ints -> (circuits, length, 8) Montgomery limbs on the device (host conversion, then upload)."""
    from gpu import field as gpu_field
    from gpu import limbs

    with clock.host():
        host = limbs.ints_to_limbs([v for row in rows for v in row], limbs.FR, field).reshape(len(rows), -1, limbs.FR.num_limbs)
    with clock.device("transfer"):
        return gpu_field.limbs_to_device(host, limbs.FR)


def _ntt_h(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.ntt_h.ntt_h(a, b, c, log_n, convention, consume=True) on (circuits, n, 8) Montgomery arrays -> h as ints
    per circuit (bellman: n - 1 coefficients; snarkjs: n coset values). consume=True is the prover's route
    (gpu/prover.py _front): a, b and c, this call's own uploads, are its work buffers."""
    run_ntt_h = _gpu_function("ntt_h", "ntt_h")
    from gpu import device

    evaluations = inputs["evaluate"]
    a, b, c = (_fr_to_device(clock, [getattr(e, q) for e in evaluations], f"evaluate.{q}") for q in ("a", "b", "c"))
    with clock.device("phase"):
        h = run_ntt_h(a, b, c, problem.domain.log_n, problem.vector.convention, consume=True)
    device.launch_check("ntt_h (conformance)", sync=True)
    with clock.host():
        return h_from_device(h)


def _device_queries(problem: Problem, clock: Stopwatch):
    """The proving key's H, L, A, B_G1, B_G2 on the device (gpu.msm.DeviceQueries), uploaded once per
    vector; the upload is timed as 'setup' in the phase that needs it first."""
    if "gpu_queries" not in problem.memo:
        msm = _gpu_module("msm")
        with clock.device("setup"):
            problem.memo["gpu_queries"] = msm.DeviceQueries.from_proving_key(problem.vector.pk)
    return problem.memo["gpu_queries"]


def _msm_h(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.msm_h.msm_h(h (circuits, n - 1, 8) Montgomery, H bases) -> one G1 point per circuit."""
    run_msm_h = _gpu_function("msm_h", "msm_h")
    from gpu import device

    queries = _device_queries(problem, clock)
    h = _fr_to_device(clock, inputs["ntt_h"], "ntt_h.h")
    with clock.device("phase"):
        sums = run_msm_h(h, queries.h)
    device.launch_check("msm_h (conformance)", sync=True)
    with clock.host():
        return g1_from_device(sums)


def _query_phase(module: str):
    """batch_add / tail_msm: gpu.<module>.<module>(prep's device splits, device queries) -> QuerySums per circuit."""

    def adapter(problem: Problem, inputs: dict, clock: Stopwatch):
        run = _gpu_function(module, module)
        from gpu import device

        queries = _device_queries(problem, clock)
        with clock.device("transfer"):
            splits = prep_to_device(inputs["prep"])
        with clock.device("phase"):
            sums = run(splits, queries)
        device.launch_check(f"{module} (conformance)", sync=True)
        with clock.host():
            return query_sums_from_device(sums)

    adapter.__doc__ = f"gpu.{module}.{module}(prep's device splits, device queries) -> QuerySums per circuit."
    return adapter


def _assemble(problem: Problem, inputs: dict, clock: Stopwatch):
    """gpu.assemble.assemble(vk, h, batch, tail, randomness) over every circuit, the MSM outputs uploaded first,
    and the proofs downloaded after (gpu.assemble.download_proofs, as the prover does)."""
    run_assemble = _gpu_function("assemble", "assemble")
    from gpu import device
    from gpu.points import G1_GROUP, backend, points_to_words

    with clock.device("transfer"):
        h = backend().xp.asarray(points_to_words(list(inputs["msm_h"]), G1_GROUP))
        batch, tail = query_sums_to_device(inputs["batch_add"]), query_sums_to_device(inputs["tail_msm"])
    with clock.device("phase"):
        device_proofs = run_assemble(problem.vector.pk.vk, h, batch, tail, [(w.r, w.s) for w in problem.vector.witnesses])
    device.launch_check("assemble (conformance)", sync=True)
    with clock.device("transfer"):
        return proofs_from_device(device_proofs)


def proofs_from_device(device_proofs) -> list:
    """gpu.assemble.download_proofs: the proofs on the host, as the prover brings them there."""
    return _gpu_function("assemble", "download_proofs")(device_proofs)


ADAPTERS = {
    "evaluate": _evaluate,
    "ntt_h": _ntt_h,
    "msm_h": _msm_h,
    "prep": _prep,
    "batch_add": _query_phase("batch_add"),
    "tail_msm": _query_phase("tail_msm"),
    "assemble": _assemble,
}
"""phase -> adapter. gpu/ modules without an adapter here are reported 'not implemented'."""

CAPTURED = {
    "evaluate": lambda outputs: evaluations_from_device(*outputs),
    "ntt_h": h_from_device,
    "msm_h": g1_from_device,
    "prep": prep_from_device,
    "batch_add": query_sums_from_device,
    "tail_msm": query_sums_from_device,
    "assemble": lambda outputs: proofs_from_device(outputs),
}
"""phase -> conversion of the device outputs gpu.prover's capture hook hands over into the reference's types."""
ONE_CIRCUIT_AT_A_TIME = 1
"""max_block of prover mode's odd-numbered runs: one circuit at a time through evaluate -> ntt_h -> msm_h, and ntt_h
without the half table of twiddles and the coset tables (the memory plan's path for a device too full for more:
gpu/prover.py BatchPlan); the even-numbered runs take the plan's block and tables."""


class PhaseCapturer:
    """gpu.prover's capture hook for prover mode: converts each phase's device outputs at the boundary (downloads
    only; nothing is allocated on the device) and keeps them per phase in circuit order."""

    def __init__(self):
        self._parts: dict[str, list] = {}
        self.order = CaptureOrder()

    def __call__(self, phase: str, first_circuit: int, outputs) -> None:
        self._parts.setdefault(phase, []).append((first_circuit, CAPTURED[phase](outputs)))
        self.order(phase, first_circuit, outputs)

    def outputs(self) -> dict:
        """{phase: output in reference types}: per-circuit lists joined in circuit order; prep as it came."""
        joined = {}
        for phase, parts in self._parts.items():
            parts = sorted(parts, key=lambda part: part[0])
            joined[phase] = parts[0][1] if phase == "prep" else [x for _, block in parts for x in block]
        return joined


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
        if phase not in ADAPTERS:
            _gpu_module(phase)  # gpu/<phase>.py (phases are named the same in reference/ and gpu/); PhaseNotImplemented if absent
            raise PhaseNotImplemented(f"gpu/{phase}.py exists, but conformance/backends/gpu.py has no adapter for it yet")
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

    def run_prover(self, problem: Problem, run_index: int = 0) -> ProverRun:
        """gpu.multi.prove_multi, the entry point of `python -m gpu prove`, on this backend's device with every
        circuit of the vector in one call, each phase's output captured at its boundary (PhaseCapturer). Runs
        with an odd ``run_index`` put one circuit at a time through evaluate -> ntt_h -> msm_h, without ntt_h's half
        table of twiddles (ONE_CIRCUIT_AT_A_TIME)."""
        from gpu import device
        from gpu.multi import prove_multi

        vector = problem.vector
        capturer = PhaseCapturer()
        single = run_index % 2 == 1
        label = "one circuit at a time" if single else ""
        with self._on_device():
            import cupy

            on_device = cupy.cuda.Device().id
            try:
                run = prove_multi(vector.r1cs, vector.pk, vector.witnesses, devices=[on_device],
                                  convention=vector.convention, capture=capturer,
                                  max_block=ONE_CIRCUIT_AT_A_TIME if single else None, half_table=not single)
                device.launch_check("prover (conformance)", sync=True)
            except Exception as exc:  # the runner reports it on the phase it stopped in
                return ProverRun(outputs=capturer.outputs(), timing=CUDA_EVENTS, label=label, error=exc,
                                 stopped=capturer.order.next_phase(len(vector.circuits)))
        ms = run.runs[0].ms
        return ProverRun(outputs=capturer.outputs(), seconds={p: ms[p] / MS_PER_S for p in ms}, timing=CUDA_EVENTS,
                         label=label)
