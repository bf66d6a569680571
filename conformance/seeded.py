"""Seeded vectors: complete vectors with exact expected values, built from a fixed seed when the run starts and
never written to disk, then checked like a bundled vector (every phase against its expected value, in each mode).

Named ``seeded:porep-log<K>[-c<C>]`` on the command line: vectors.generate.build_vector(K, SEED, C, "porep"), a
PoRep-shaped circuit of domain 2^K with C circuits (1 when -c is left out), the keys of the test-only setup from the
seed's trapdoor, and every phase's expected output. The run names each one canonically (``seeded:porep-log16-c2``),
reports the generation as it goes (vectors.generate's progress lines, prefixed with the name), and records it in
report.json's ``seeded_vectors`` (seed, sizes, seconds, which implementation computed the expected values). A
generation that fails, or a witness that does not satisfy its circuit, is an error in every phase (exit 1): the
run checked nothing there, and says so.

--record-gate runs GATE_VECTORS, which reach with exact expected values what the bundled vectors (log n <= 11)
cannot: the c = 16 MSM windows (gpu/msm.py kernel_window_bits) and two-pass NTTs of 2^8 x 2^8 and up (gpu/ntt.py
plan_passes; the bundled random-log11 has the smallest, 2^6 x 2^5).
The oracle-judged cases of conformance/generated.py reach further (2^21, three passes) at sizes no expected
values are made for.

Where they are built: from BACKGROUND_MIN_LOG_N up, each in a child process started with the run (start_builds), so
that the build overlaps the checks of the bundled vectors instead of following them; the child hands the vector back
pickled. Smaller ones take seconds and are built in line when their turn comes. Either way the vector comes from the
one function ``build`` and is checked by the run itself.

Kept between runs, on request: with ``--seeded-cache DIR`` (``SeededCache``) a built vector is also written to DIR, and a
later run, or ``python -m conformance seeded-cache DIR``, which only builds, lets the next run read it back instead of
building it (the gate's 2^20 vector: minutes of one core, the gate's critical path). The file is keyed by what made
the vector: the seed, its size, the sources of ``build`` (vectors/generate.py, vectors/format.py and every repository
module they import, and this file's own bytes: not its imports, which reach gpu/) and the versions of Python and of
the libraries that computed its values; any change builds afresh. The report records which vectors came from the
cache. Without the option nothing is written.

Who checks what: above REFERENCE_MAX_LOG_N only GPU backends run (the pure-Python reference takes hours at
2^20). The reference side of such a vector is its expected values: vectors.generate computes the phases with the
reference prover, the MSM sums with the library its ``computed_by`` names (the optional fast library, or the
reference), and ``python -m vectors check --reference`` shows the two agreeing bit for bit on the vectors small
enough to recompute. At or below REFERENCE_MAX_LOG_N every backend runs, so the same code path runs on a CPU
(tests/test_conformance_seeded.py) with the reference backend.
"""
from __future__ import annotations

import contextlib
import hashlib
import multiprocessing
import os
import pickle
import re
import signal
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from reference.errors import InvalidInputError
from reference.prover import PHASES

from .sources import REPO_ROOT, import_closure, sources_digest
from .phases import Problem
from .runner import ERROR, SKIPPED, UNAVAILABLE, BackendResult, PhaseResult, VectorResult, _describe_error, check_vector

SEEDED_PREFIX = "seeded:"
SEED = "conformance-seeded-gate-vectors"
SHAPE = "porep"
REFERENCE_MAX_LOG_N = 10
"""The largest domain on which backends other than the GPU run on a seeded vector: the bundled vectors' largest,
where the reference takes seconds (hours at 2^20)."""
NAME = re.compile(r"porep-log([0-9]{1,2})(?:-c([0-9]{1,2}))?")
"""porep-log<K>[-c<C>]."""
NOT_WRITTEN = "not written to disk"
BACKGROUND_MIN_LOG_N = 12
"""From this size a seeded vector is built in a child process started with the run (module docstring). The gate's
2^20 vector took 228 s of one core on the H200's host (its pure-Python ntt_h 124 s), 43% of a 532 s gate, and its 2^16
one 34 s (2026-12-04, bench/RESULTS_gate_106a389.log; 241 s for 2^20 in another call). Handing it over costs about 47 s
after the build (pickled in the child, unpickled here; measured on a 2-core CPU machine where the build took 290 s),
about 5 GB in each process. Below this size a build takes seconds, less than starting a Python process and handing the
vector over. Measured with it on the H200 (2026-12-04, bench/RESULTS_gate_426424f.log): the gate took 337 s; the 2^20
vector was handed over at 245.6 s, after the run had waited 152.7 s for it, so that build is still the critical path."""


@dataclass(frozen=True)
class SeededVector:
    log_n: int
    circuits: int = 1
    reaches: str = ""
    """What a gate vector reaches that the bundled vectors do not."""

    @property
    def label(self) -> str:
        """The canonical name: the vector's id in the report (prover mode adds ' [prover]')."""
        return f"{SEEDED_PREFIX}{SHAPE}-log{self.log_n:02d}-c{self.circuits}"


GATE_VECTORS = (
    SeededVector(16, 2, "msm_h with c = 8 windows, both circuits in one pass (H query 2^16 - 1 points); two-pass NTT (2^8, 2^8); "
                 "two circuits, in one block and one at a time"),
    SeededVector(20, 1, "msm_h with c = 16 windows over 2^20 - 1 H points; two-pass NTT (2^10, 2^10); the largest vector "
                 "vectors.generate makes"),
)
"""The seeded vectors a --record-gate run checks in each of its modes (conformance/fingerprint.py requires them)."""


def parse_name(argument: str) -> SeededVector:
    """``seeded:porep-log<K>[-c<C>]`` -> SeededVector; InvalidInputError for a malformed or out-of-range name."""
    from vectors.generate import MAX_GENERATED_LOG_N, MAX_GENERATED_ROWS

    match = NAME.fullmatch(argument[len(SEEDED_PREFIX):])
    if not match:
        raise InvalidInputError("vectors", f"{argument!r} is not {SEEDED_PREFIX}{SHAPE}-log<K>[-c<C>] "
                                f"(e.g. {GATE_VECTORS[0].label})")
    log_n, circuits = int(match[1]), int(match[2] or 1)
    if not 1 <= log_n <= MAX_GENERATED_LOG_N:
        raise InvalidInputError("vectors", f"{argument!r}: log n must be in 1..{MAX_GENERATED_LOG_N}, got {log_n}")
    if circuits < 1:
        raise InvalidInputError("vectors", f"{argument!r}: at least one circuit, got {circuits}")
    if circuits << log_n > MAX_GENERATED_ROWS:  # the generator refuses it (vectors/generate.py): bad input, not a failed build
        raise InvalidInputError("vectors", f"{argument!r}: {circuits} circuits of 2^{log_n} rows exceed the generator's "
                                f"{MAX_GENERATED_ROWS} rows in all")
    gate = next((v for v in GATE_VECTORS if (v.log_n, v.circuits) == (log_n, circuits)), None)
    return gate or SeededVector(log_n, circuits)


def split_seeded(arguments: list[str]) -> tuple[list[str], list[SeededVector]]:
    """Vector arguments without the ``seeded:`` ones, and those (each once, in order)."""
    rest, seeded = [], []
    for argument in arguments:
        if argument.startswith(SEEDED_PREFIX):
            vector = parse_name(argument)
            if vector not in seeded:
                seeded.append(vector)
        else:
            rest.append(argument)
    return rest, seeded


def slow_generation(specs) -> str | None:
    """Why generating ``specs`` here would take hours (None if it would not): one is above REFERENCE_MAX_LOG_N and the
    optional fast library, which vectors.generate uses for the setup and the expected MSM sums, is not installed."""
    from vectors import fast_library

    large = [spec.label for spec in specs if spec.log_n > REFERENCE_MAX_LOG_N]
    reason = fast_library.unavailable_reason()
    if not large or reason is None:
        return None
    return (f"{', '.join(large)}: without the fast library the pure-Python reference would generate it, which takes hours "
            f"at these sizes: {reason}")


def _judges(backend, log_n: int) -> bool:
    """Whether ``backend`` runs on a seeded vector of 2^log_n (module docstring)."""
    return backend.name.startswith("gpu") or log_n <= REFERENCE_MAX_LOG_N


def _json_value(value):
    """``value`` with what JSON cannot hold written as text (a record of the vector's own, read as it is)."""
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)


def build(spec: SeededVector, say):
    """The vector (vectors.generate.build_vector from SEED), its witnesses checked against the circuit."""
    from vectors.format import check_witnesses_satisfied
    from vectors.generate import build_vector

    vector = build_vector(spec.log_n, SEED, circuits=spec.circuits, shape=SHAPE, vector_id=spec.label,
                          comment=f"{spec.label}: built from seed {SEED!r} by conformance (conformance/seeded.py)",
                          progress=lambda message: say(f"{spec.label}: generating: {message}"))
    say(f"{spec.label}: generating: checking every witness against the circuit")
    check_witnesses_satisfied(vector)
    return vector


def _kept(cache_file) -> str:
    """Where a seeded vector lives besides the run's memory, as its results' path says."""
    return f"cache file {cache_file}" if cache_file else NOT_WRITTEN


def _announce_generation(spec: SeededVector, say, where: str = "", cache: SeededCache | None = None) -> None:
    say(f"{spec.label}: generating a {SHAPE}-shaped vector of 2^{spec.log_n} with {spec.circuits} circuit(s) from seed "
        f"{SEED!r}{where} (vectors.generate.build_vector; {_kept(cache and cache.path(spec))})")


class GenerationFailed(Exception):
    """A seeded vector's build that raised or whose process ended without a result: ``why``, after ``seconds``."""

    def __init__(self, why: str, seconds: float):
        super().__init__(why)
        self.why, self.seconds = why, seconds


def build_timed(spec: SeededVector, say) -> tuple:
    """(the vector from ``build``, the seconds it took); GenerationFailed saying what it raised."""
    start = time.perf_counter()
    try:
        return build(spec, say), time.perf_counter() - start
    except Exception as exc:
        raise GenerationFailed(_describe_error(exc), time.perf_counter() - start) from exc


CACHE_FORMAT = "conformance-seeded-cache-v1"
"""Part of every cache key: bump it when what a cache file holds changes shape."""
GENERATOR_FILES = (Path("vectors") / "generate.py", Path("vectors") / "format.py")
"""The files ``build`` runs; they and every repository module they import key the cache (SeededCache.key)."""
BUILDER_FILE = Path(__file__).resolve().relative_to(REPO_ROOT)  # (resolved as REPO_ROOT: a fault run links conformance/)
"""This module, which holds ``build`` and the cache's format: its own bytes key the cache too, but not what it imports
(the harness and, through its GPU backend, gpu/), so that a kernel change does not rebuild the gate's 2^20 vector
(minutes of device time: it happened, 2026-12-05, and the gate did not fit its call)."""
CACHE_SUFFIX = ".pickle"


def builder_sources(root: Path = REPO_ROOT) -> set[Path]:
    """The files under ``root`` whose bytes key the cache: GENERATOR_FILES and the repository modules they import, and
    BUILDER_FILE itself (not its imports)."""
    return import_closure({root / f for f in GENERATOR_FILES}, root) | {root / BUILDER_FILE}


def _library_versions() -> list[str]:
    """Python's version and the libraries' that compute a seeded vector's values (part of the cache key)."""
    from vectors import fast_library

    versions = [f"python {sys.version_info.major}.{sys.version_info.minor}", f"py_ecc {metadata.version('py_ecc')}"]
    return versions + ([fast_library.implementation()] if fast_library.available() else [])


class SeededCache:
    """Seeded vectors on disk between runs, in one folder (module docstring): ``<name>-<key prefix>.pickle``, each
    holding the vector, its key and the seconds its build took. A file is read back only under its own key; one that
    cannot be read or holds another key is set aside with a message and the vector built again. A pickle runs code
    when it is read: give --seeded-cache only a folder this tool wrote."""

    def __init__(self, folder, root: Path = REPO_ROOT):
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InvalidInputError("--seeded-cache", f"cannot make the folder {folder}: {exc.strerror or exc}") from None
        if not os.access(self.folder, os.W_OK | os.X_OK):
            raise InvalidInputError("--seeded-cache", f"the folder {folder} is not writable")
        sources = sources_digest(builder_sources(root), root)
        self._sources = "\n".join([CACHE_FORMAT, SEED, SHAPE, sources["sha256"], *_library_versions()])

    def key(self, spec: SeededVector) -> str:
        return hashlib.sha256(f"{self._sources}\n{spec.log_n} {spec.circuits}".encode()).hexdigest()

    def path(self, spec: SeededVector) -> Path:
        return self.folder / f"{spec.label[len(SEEDED_PREFIX):]}-{self.key(spec)[:24]}{CACHE_SUFFIX}"

    def load(self, spec: SeededVector, say) -> tuple | None:
        """(vector, its build's seconds) from the cache, or None (no file, or one set aside: said why)."""
        path = self.path(spec)
        if not path.is_file():
            return None
        try:
            with open(path, "rb") as handle:  # streamed: the 2^20 vector is GiBs
                entry = pickle.load(handle)
            if not isinstance(entry, dict) or entry.get("key") != self.key(spec):
                raise ValueError("it holds another vector's key")
            vector, seconds = entry["vector"], float(entry["build_seconds"])
        except Exception as exc:  # a truncated or foreign file costs a build, never a wrong vector
            say(f"{spec.label}: the cache file {path} is set aside ({_describe_error(exc)}); building the vector again")
            with contextlib.suppress(OSError):  # (left in place, it is set aside again next time)
                path.replace(path.with_suffix(".unreadable"))
            return None
        return vector, seconds

    def store(self, spec: SeededVector, vector, seconds: float, say) -> bool:
        """Write the vector under its key (whole or not at all: a partial file, then a rename); False, said why,
        when the folder cannot take it (the run goes on with the vector in memory)."""
        path = self.path(spec)
        partial = path.with_suffix(f".partial-{os.getpid()}")  # two runs sharing the folder write apart
        try:
            with open(partial, "wb") as handle:  # streamed, as load reads it
                pickle.dump({"key": self.key(spec), "build_seconds": seconds, "vector": vector}, handle,
                            protocol=pickle.HIGHEST_PROTOCOL)
            partial.replace(path)
        except OSError as exc:
            say(f"{spec.label}: not written to the cache ({exc.strerror or exc}): the next run builds it again")
            partial.unlink(missing_ok=True)
            return False
        say(f"{spec.label}: written to the cache: {path}")
        return True


def _end_pool_workers() -> None:
    """End the processes this child started (the fast library's pool). A multiprocessing child skips atexit functions,
    the pool's shutdown among them, and at its end joins the processes it started: idle workers would hold it (and the
    run, joining it) for ever."""
    for process in multiprocessing.active_children():
        process.terminate()


def _end_with_children(signum, frame) -> None:
    """The child's SIGTERM handler (BackgroundBuild.stop): end the pool workers it started, then itself."""
    _end_pool_workers()
    os._exit(128 + signum)


def _build_in_child(spec: SeededVector, send, say, cache: SeededCache | None = None) -> None:
    """A child process's work: build_timed, then send ("vector", vector, seconds), ("cached", None, seconds) once the
    ``cache`` holds it (the run reads it from there: one pickling either way), or ("failed", why, seconds). It stays
    in the run's process group, so that a signal to the group (Ctrl-C, `timeout`) reaches it and its pool workers."""
    signal.signal(signal.SIGTERM, _end_with_children)
    try:
        try:
            vector, seconds = build_timed(spec, say)
            stored = cache is not None and cache.store(spec, vector, seconds, say)
            outcome = ("cached", None, seconds) if stored else ("vector", vector, seconds)
        except GenerationFailed as failed:
            outcome = ("failed", failed.why, failed.seconds)
        send.send(outcome)
    finally:  # also when sending fails: the run then reads end of file, never waits on a child that cannot end
        send.close()
        _end_pool_workers()


CHILD_EXIT_SECONDS = 60
"""How long a build process may take to end after closing its end of the pipe, or after stop()'s SIGTERM (it has only
to end its own children)."""


class BackgroundBuild:
    """One seeded vector built by ``build`` in a child process from the moment this is made; ``result`` waits for it.
    The child is spawned, not forked: a fresh interpreter holds none of the run's threads (the fast library's pool,
    CUDA's) that a fork would copy without them running. Its progress lines go to the same standard error: ``say``
    travels with it, pickled, so it must be picklable (reference.cli.Progress is, and carries the run's clock)."""

    def __init__(self, spec: SeededVector, say, cache: SeededCache | None = None):
        context = multiprocessing.get_context("spawn")
        self.spec, self.cache = spec, cache
        self.stored = False
        """Whether the child wrote the vector to the cache (known once ``result`` returned)."""
        self._receive, send = context.Pipe(duplex=False)
        # not a daemon: the fast library's process pool lives in it (start_builds ends it if the run stops early)
        self._process = context.Process(target=_build_in_child, args=(spec, send, say, cache), name=f"build {spec.label}")
        self._process.start()
        send.close()  # the child holds the sending end: its exit without a result reads here as end of file

    def outcome(self, say) -> tuple:
        """("vector", vector, seconds) or ("cached", None, seconds) (the cache holds it), once the child hands it
        over; GenerationFailed if the build raised or the process ended without a result (killed, out of memory)."""
        say(f"{self.spec.label}: waiting for its build process")
        start = time.perf_counter()
        try:
            outcome = self._receive.recv()
        except EOFError:  # the child closed its end without sending: it died, or sending failed
            outcome = None
        finally:
            self._receive.close()
        self._process.join(CHILD_EXIT_SECONDS)
        if self._process.exitcode is None:  # a harness bug (a process the child left holding it), bounded, never a hang
            self.stop()
            raise GenerationFailed(f"its build process had not ended {CHILD_EXIT_SECONDS} s after closing its end",
                                   time.perf_counter() - start)
        if outcome is None:
            raise GenerationFailed(f"its build process ended without a result (exit code {self._process.exitcode}; its "
                                   "standard error says why: killed, out of memory, or a calling script without "
                                   "`if __name__ == '__main__':`, which the spawned child imports again)",
                                   time.perf_counter() - start)
        if outcome[0] == "failed":
            raise GenerationFailed(*outcome[1:])
        return outcome

    def result(self, say) -> tuple:
        """(vector, build seconds), once the child hands it over (``outcome``), read back from the cache when the
        child wrote it there."""
        start = time.perf_counter()
        kind, value, seconds = self.outcome(say)
        if kind == "cached":
            cached = self.cache.load(self.spec, say)
            if cached is None:
                raise GenerationFailed(f"its build process wrote {self.cache.path(self.spec)}, which cannot be read back",
                                       seconds)
            value = cached[0]
        self.stored = kind == "cached"
        say(f"{self.spec.label}: handed over by its build process ({time.perf_counter() - start:.1f} s of waiting and unpickling)")
        return value, seconds

    def stop(self) -> None:
        """End the child if it still runs (the run stopped before using it): SIGTERM, on which it ends the fast
        library's pool workers it started, then itself; SIGKILL if it has not ended within CHILD_EXIT_SECONDS (its
        handler waits for a long library call to return)."""
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(CHILD_EXIT_SECONDS)
            if self._process.is_alive():
                self._process.kill()
        self._process.join()
        self._receive.close()


@contextlib.contextmanager
def start_builds(specs, backends, say, cache: SeededCache | None = None):
    """{spec: BackgroundBuild} for the specs of BACKGROUND_MIN_LOG_N and up that a backend here judges and the
    ``cache`` does not hold (the others are read from it or built in line when their turn comes, or not at all), each
    started now; on leaving, the children still running are ended."""
    builds = {}
    try:
        for spec in specs:
            held = cache is not None and cache.path(spec).is_file()
            if spec.log_n >= BACKGROUND_MIN_LOG_N and not held and any(_judges(b, spec.log_n) for b in backends):
                _announce_generation(spec, say, " in a background process", cache)
                builds[spec] = BackgroundBuild(spec, say, cache)
        yield builds
    finally:
        for build in builds.values():
            build.stop()


def fill_cache(specs, cache: SeededCache, say) -> list[str]:
    """Build into ``cache`` every one of ``specs`` it does not hold, side by side in child processes (``python -m
    conformance seeded-cache``); returns what failed, one line each (empty: the cache holds them all). A file already
    there is read back (SeededCache.load): one that is truncated or holds another key is set aside and built again,
    so that "holds" means a run will read it (once only its name was looked at; audit of 2026-12-07)."""
    failures = []
    with contextlib.ExitStack() as stack:
        builds = {}
        for spec in specs:
            if cache.load(spec, say) is not None:  # (None: no file, or one set aside, said why)
                say(f"{spec.label}: already in the cache, read back: {cache.path(spec)}")
                continue
            _announce_generation(spec, say, " in a background process", cache)
            builds[spec] = BackgroundBuild(spec, say, cache)
            stack.callback(builds[spec].stop)
        for spec, build in builds.items():
            try:
                kind, _, seconds = build.outcome(say)
            except GenerationFailed as failed:
                failures.append(f"{spec.label}: generation failed after {failed.seconds:.1f} s: {failed.why}")
                continue
            if kind != "cached":
                failures.append(f"{spec.label}: built in {seconds:.1f} s but not written to {cache.folder}")
    return failures


def _record(spec: SeededVector, seconds: float, vector=None, error: str | None = None, cache_file: Path | None = None,
            cache_load_seconds: float | None = None) -> dict:
    """The report's entry for one seeded vector (REPORT_SCHEMA.md, seeded_vectors): ``cache_file`` the file it was
    written to or read from, ``cache_load_seconds`` the reading's time when it was read (not built in this run)."""
    record = {"id": spec.label, "seed": SEED, "shape": SHAPE, "log_n": spec.log_n, "circuits": spec.circuits,
              "generation_seconds": round(seconds, 3), "written_to_disk": cache_file is not None,
              "cache_file": str(cache_file) if cache_file else None,
              "cache_load_seconds": None if cache_load_seconds is None else round(cache_load_seconds, 3),
              "reaches": spec.reaches or None, "error": error}
    if vector is not None:
        r1cs = vector.r1cs
        record.update(constraints=r1cs.num_constraints, public_inputs=r1cs.num_inputs - 1, aux=r1cs.num_aux,
                      computed_by=_json_value(getattr(vector, "computed_by", None)))
    return record


def _every_phase(spec: SeededVector, mode: str, statuses: dict, phases, unavailable: dict) -> VectorResult:
    """A result in which every selected phase has, for each backend, one BackendResult ({backend: (status, message)}:
    a generation error, or not run at this size); the backends that cannot run here are 'unavailable', as check_vector
    records them. No judge was used ('-')."""
    label = f"{spec.label} [prover]" if mode == "prover" else spec.label
    result = VectorResult(label, f"{spec.label} ({NOT_WRITTEN})", spec.log_n, spec.circuits, True, mode=mode)
    for phase in (p for p in PHASES if p in phases):
        outcome = PhaseResult(phase, "-")
        for backend, (status, message) in statuses.items():
            outcome.backends[backend.name] = BackendResult(status, message=message)
        for name, reason in unavailable.items():
            outcome.backends[name] = BackendResult(UNAVAILABLE, message=reason)
        result.phases.append(outcome)
    return result


def _obtain(spec: SeededVector, say, background: BackgroundBuild | None, cache: SeededCache | None) -> tuple:
    """(vector, build seconds, the cache file it was written to or read from or None, seconds reading it or None):
    from its ``background`` build, else read from the ``cache``, else built here (and written to the cache)."""
    if background is not None:  # (start_builds announced it when it started)
        vector, seconds = background.result(say)
        return vector, seconds, cache.path(spec) if background.stored else None, None
    start = time.perf_counter()
    cached = cache.load(spec, say) if cache is not None else None
    if cached is not None:
        load_seconds = time.perf_counter() - start
        say(f"{spec.label}: read from the cache {cache.path(spec)} in {load_seconds:.1f} s (the same seed, sources and "
            "library versions)")
        return *cached, cache.path(spec), load_seconds
    _announce_generation(spec, say, cache=cache)
    vector, seconds = build_timed(spec, say)
    stored = cache is not None and cache.store(spec, vector, seconds, say)
    return vector, seconds, cache.path(spec) if stored else None, None


def check_seeded(spec: SeededVector, backends, phases, modes, prefer_oracle: bool = False, unavailable: dict | None = None,
                 repeat: int = 1, oracle_library: str | None = None, progress=None,
                 background: BackgroundBuild | None = None,
                 cache: SeededCache | None = None) -> tuple[list[VectorResult], dict | None]:
    """Build the vector (or take it from its ``background`` build or the ``cache``), check it in each of ``modes`` with
    the backends that run at its size (the others: skipped), and let it go. Returns the results (one per mode) and the
    seeded_vectors record (None when nothing ran it)."""
    say = progress or (lambda message: None)
    unavailable = unavailable or {}
    judging = [b for b in backends if _judges(b, spec.log_n)]
    skipped = [b for b in backends if not _judges(b, spec.log_n)]
    too_slow = f"only the GPU runs on seeded vectors above 2^{REFERENCE_MAX_LOG_N}: the expected values stand for the reference"
    if not judging:
        say(f"{spec.label}: not generated: no backend here runs at 2^{spec.log_n} ({too_slow})")
        return [_every_phase(spec, mode, {b: (SKIPPED, too_slow) for b in skipped}, phases, unavailable) for mode in modes], None
    try:
        vector, seconds, cache_file, load_seconds = _obtain(spec, say, background, cache)
        try:
            problem = Problem.from_vector(vector)
        except Exception as exc:
            raise GenerationFailed(_describe_error(exc), seconds) from exc
    except GenerationFailed as failed:  # a generator that fails checked nothing: an error, never a pass
        seconds, why = failed.seconds, failed.why
        say(f"{spec.label}: generation failed after {seconds:.1f} s: {why}")
        statuses = {b: (ERROR, f"generating the vector failed: {why}") for b in judging}
        statuses.update({b: (SKIPPED, too_slow) for b in skipped})
        return [_every_phase(spec, mode, statuses, phases, unavailable) for mode in modes], _record(spec, seconds, error=why)
    record = _record(spec, seconds, vector, cache_file=cache_file, cache_load_seconds=load_seconds)
    how = f"generated in {seconds:.1f} s" if load_seconds is None else f"read from the cache (built there in {seconds:.1f} s)"
    say(f"{spec.label}: {how} ({record['constraints']} constraints, {record['aux']} aux; "
        f"expected values computed by: {record['computed_by'] or 'not recorded by the vector'})")
    results = []
    for mode in modes:
        result = check_vector(problem, judging, phases, mode, prefer_oracle, f"{spec.label} ({_kept(cache_file)})", progress=say,
                              unavailable=unavailable, repeat=repeat, oracle_library=oracle_library)
        for phase_result in result.phases:
            for backend in skipped:
                phase_result.backends[backend.name] = BackendResult(SKIPPED, message=too_slow)
        results.append(result)
    return results, record
