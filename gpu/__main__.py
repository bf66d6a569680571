"""python -m gpu prove: the GPU prover on a test vector (same output as python -m reference prove).

``--format snarkjs`` and ``--public`` behave exactly as in ``python -m reference prove``; the proof and
public-signal documents come from the writers both commands share (reference/proof_files.py).

Every host-side stage is timed too (gpu/staging.py): reading the vector (keys and witnesses), staging the keys and
witnesses in host memory, pinning them as ``--staging`` says, each host-to-device copy, and encoding the proofs; and
the whole run (``whole_run``), so that time between them shows.
``--repeat N`` runs the whole command N times (the first is a warm-up when N >= 2; all proofs must be identical)
and ``--timings-json`` writes the timing record (conformance/TIMING_SCHEMA.md) that ``python -m conformance
compare`` reads.
"""
import argparse
import sys
from pathlib import Path

from reference.cli import EXIT_BAD_INPUT, EXIT_OK, ArgumentParser, Progress, proofs_document, run_main
from reference.errors import InvalidInputError, ToolkitError
from reference.proof_files import add_prove_arguments, check_prove_arguments, json_bytes, write_proofs
from vectors.format import load_vector

from .device import GpuKernelError, GpuMemoryError, GpuUnavailableError, cuda_errors, finish, free_device_memory
from .multi import open_devices, prove_multi
from .prover import check_domain
from .staging import OPEN_DEVICES, PAGEABLE, STAGINGS, WHOLE_RUN, StageTimer, stage_kind, upload_keys

TOOL = "gpu prove"


def _parser() -> ArgumentParser:
    p = ArgumentParser(prog="python -m gpu", description="The CuPy GPU Groth16 prover (BLS12-381; the vector's domain convention: bellman or snarkjs).")
    sub = p.add_subparsers(dest="command", required=True)
    pr = sub.add_parser(
        "prove",
        help="prove every circuit of a vector on the GPU",
        description="Run every phase on the GPU for all circuits of VECTOR and write the proofs exactly as "
        "`python -m reference prove` does ({\"a\", \"b\", \"c\"} compressed hex, a list for several circuits).",
    )
    add_prove_arguments(pr)
    pr.add_argument("--timings", action="store_true", help="print the per-phase breakdown (CUDA events; transfers apart) on stderr")
    pr.add_argument("--timings-json", help="also write the timing record (every phase, host-side stage and copy; median, "
                    "spread and environment: conformance/TIMING_SCHEMA.md) to this JSON file")
    pr.add_argument("--repeat", type=int, default=1, metavar="N", help="run everything N times, reading the vector "
                    "included (the first is a warm-up when N >= 2; all proofs must be identical); default 1")
    pr.add_argument("--staging", choices=STAGINGS, default=PAGEABLE, help="how keys and witnesses go to the device: "
                    "pageable (copied as they are, default), pinned-copy (through a page-locked buffer), registered "
                    "(page-locked in place with cudaHostRegister); pinning is timed as its own stage")
    pr.add_argument("--gpus", type=int, default=1, metavar="N",
                    help="spread the circuits over GPUs 0..N-1 in contiguous blocks, keys on every GPU (default 1)")
    pr.add_argument("--devices", type=_device_list, metavar="D,D,...",
                    help="the device of each block instead of --gpus; a device may repeat (several blocks on one GPU)")
    return p


def _device_list(text: str) -> list[int]:
    try:
        devices = [int(d) for d in text.split(",") if d.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated device numbers, got {text!r}") from None
    if not devices:
        raise argparse.ArgumentTypeError("names no device")
    return devices


def _prove_once(args, say):
    """One whole run, timed as WHOLE_RUN: read, stage and upload the keys, prove (witnesses staged per block),
    encode the proofs. Returns (vector, run, encoded proofs, the host-side stages' milliseconds)."""
    timer = StageTimer()
    vector, run, encoded = timer.host(WHOLE_RUN, _run_stages, args, say, timer)
    return vector, run, encoded, timer.ms


def _run_stages(args, say, timer: StageTimer):
    vector = timer.host("read_vector", load_vector, args.vector, say)
    check_domain(vector.r1cs)  # before the keys' upload
    devices = timer.host(OPEN_DEVICES, open_devices, args.gpus, args.devices)
    import cupy  # (a machine without CUDA devices has been told so by open_devices)

    try:
        queries = upload_keys(vector.pk, args.staging, timer, devices)
    except cupy.cuda.memory.OutOfMemoryError as exc:
        raise GpuMemoryError("the proving key", int(getattr(exc, "size", 0)), free_device_memory()) from exc
    run = prove_multi(vector.r1cs, vector.pk, vector.witnesses, devices=devices, progress=say,
                      convention=vector.convention, queries=queries, staging=args.staging)
    encoded = timer.host("encode_proofs", proofs_document, run.proofs)
    return vector, run, encoded


def _block_names(run) -> list[str]:
    """The timing record's backend of each block: gpu for one block, else gpu:<device>:<block>."""
    if len(run.blocks) == 1:
        return ["gpu"]
    return [f"gpu:{d}:{k}" for k, d in enumerate(run.devices)]


def timing_entries(vector, runs: list, staging: str) -> list[dict]:
    """Entries of the timing record over ``runs`` [(run, host ms)]: every phase, stage and copy, first run left out
    as warm-up when there are several. Every run times the same names (the command line fixes them); a name missing
    from some run would have its runs misaligned with the others', so it is an error, never an entry left out."""
    from conformance.timing import entry, stats_after_warmup

    shape = {"log_n": vector.r1cs.log_n, "circuits": len(vector.witnesses), "gpus": len(runs[0][0].devices),
             "staging": staging}
    series: dict[tuple[str, str], list[float]] = {}
    for run, host_ms in runs:
        for name, ms in host_ms.items():
            series.setdefault(("gpu", name), []).append(ms / 1000.0)
        for backend, block in zip(_block_names(run), run.runs):
            for name, ms in (block.ms if block else {}).items():
                series.setdefault((backend, name), []).append(ms / 1000.0)
    uneven = [f"{backend} {name}" for (backend, name), seconds in series.items() if len(seconds) != len(runs)]
    if uneven:
        raise InvalidInputError("--timings-json", f"timed in some of the {len(runs)} runs only: {', '.join(uneven)}")
    return [entry(vector.id, backend, name, stats_after_warmup(seconds), stage_kind(name), shape)
            for (backend, name), seconds in series.items()]


def _host_breakdown(host_ms: dict, run) -> str:
    """The host-side stages and key copies of one run (the blocks' witness stages summed), wall clock / CUDA events,
    then what whole_run holds beyond every stage, copy and phase (with one block; several run side by side, so their
    times overlap and whole_run is not their sum)."""
    stages = dict(host_ms)
    blocks = [b for b in run.runs if b]
    for block in blocks:
        for name, ms in block.ms.items():
            if stage_kind(name) == "host":
                stages[name] = stages.get(name, 0.0) + ms
    lines = [f"{'host stage / copy':<18} {'ms':>10}", *(f"{n:<18} {ms:>10.2f}" for n, ms in stages.items())]
    if len(run.blocks) == 1 and WHOLE_RUN in host_ms:
        named = sum(ms for n, ms in host_ms.items() if n != WHOLE_RUN) + sum(blocks[0].ms.values())
        lines.append(f"{'not named':<18} {host_ms[WHOLE_RUN] - named:>10.2f}  (whole_run minus every stage, copy and phase)")
    elif WHOLE_RUN in host_ms:
        lines.append(f"{'not named':<18} {'-':>10}  ({len(run.blocks)} blocks side by side: whole_run is not their sum)")
    return "\n".join(lines)


def _prove(args) -> int:
    check_prove_arguments(args)
    if args.repeat < 1:
        raise InvalidInputError("--repeat", f"must be at least 1, got {args.repeat}")
    say = Progress(args.quiet)
    runs, first_encoded = [], None
    for k in range(args.repeat):
        if args.repeat > 1:
            say(f"run {k + 1} of {args.repeat}" + (" (warm-up)" if k == 0 else ""))
        vector, run, encoded, host_ms = _prove_once(args, say)
        if first_encoded is not None and encoded != first_encoded:
            raise GpuKernelError(f"run {k + 1} of {args.repeat} gave other proofs than run 1: not deterministic")
        first_encoded = encoded
        runs.append((run, host_ms))
    extra = {}
    if args.timings_json:
        from conformance.timing import environment, timing_document

        blocks = [{"device": d, "circuits": [b.start, b.stop]} for d, b in zip(run.devices, run.blocks)]
        command = f"python -m gpu prove {args.vector} --staging {args.staging} --repeat {args.repeat}"
        record = timing_document(TOOL, command, timing_entries(vector, runs, args.staging),
                                 environment(with_gpu=True, device_index=run.devices[0]), blocks=blocks)
        extra[Path(args.timings_json)] = json_bytes(record)
    write_proofs(args, vector, run.proofs, say, extra_files=extra)
    if args.timings:
        print(run.breakdown() if len(run.blocks) > 1 else run.runs[0].breakdown(), file=sys.stderr)
        print(_host_breakdown(host_ms, run), file=sys.stderr)
    return EXIT_OK


def _cupy_errors() -> tuple:
    """CuPy's own errors, raised where no phase check names them (an allocation outside the plan, a wait on a
    stream): () without CuPy."""
    errors = cuda_errors()
    if not errors:
        return ()
    import cupy

    return cupy.cuda.memory.OutOfMemoryError, *errors


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return {"prove": _prove}[args.command](args)
    except (GpuUnavailableError, GpuMemoryError, GpuKernelError) as exc:
        raise ToolkitError(f"gpu: {exc}") from exc
    except _cupy_errors() as exc:  # one error line, no proof written, as for the errors the phases name
        raise ToolkitError(f"gpu: CUDA: {type(exc).__name__}: {exc}") from exc


if __name__ == "__main__":
    finish(run_main(main), failed=EXIT_BAD_INPUT)  # (the status run_main gives any GPU error)
