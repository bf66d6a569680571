"""Loading vectors once: the vector paths a command line names, and a cache of loaded vectors.

``load_vector`` validates every point (subgroup checks), which costs about 20 s for a 2^10 vector in
pure Python, far more than its reference phases. So a process loads each vector once
(``load_cached``), and pytest-xdist workers share one decoded copy through a pickle file written
under a lock (``load_shared``): the first worker to need a vector decodes it, the others wait for
it and read the pickle. The pickle is keyed by the sha256 of the JSON file and of its sidecars, so
an edited vector is decoded afresh.
"""
import contextlib
import fcntl
import functools
import hashlib
import pickle
from pathlib import Path

from reference.errors import InvalidInputError
from reference.safe_files import MAX_BINARY_BYTES, MAX_JSON_BYTES, open_regular_file
from vectors.bundled import bundled_paths
from vectors.format import Vector, load_vector

VECTOR_SUFFIX = ".json"
CACHE_FORMAT = "conformance-vector-cache-v1"
"""Part of every cache key: bump it when the pickled types change shape."""


def vector_paths(arguments) -> list[Path]:
    """The vector files named by ``arguments`` (files, or folders whose *.json files are taken, sorted), each once;
    with no arguments, the bundled vectors (vectors/data/*.json)."""
    if not arguments:
        return bundled_paths()
    paths = []
    for argument in arguments:
        path = Path(argument)
        if path.is_dir():
            found = sorted(path.glob(f"*{VECTOR_SUFFIX}"))
            if not found:
                raise InvalidInputError(str(path), f"folder holds no {VECTOR_SUFFIX} vector files")
            paths.extend(found)
        elif path.is_file():
            paths.append(path)
        elif path.exists():  # a FIFO or a device: never read (it could block or never end)
            raise InvalidInputError(str(path), "is not a regular file or a folder")
        else:
            raise InvalidInputError(str(path), "no such vector file or folder")
    seen = set()
    for path in paths:  # a vector run twice would appear twice in the report's timings, which `compare` refuses
        if path.resolve() in seen:
            raise InvalidInputError(str(path), "the vector is given twice (as a file or inside a folder given)")
        seen.add(path.resolve())
    return paths


def content_key(path: Path) -> str:
    """sha256 over the cache format, the JSON file and every sidecar beside it (``<stem>.*.bin``; only regular
    files, as the reader takes no other sidecar: a FIFO there must not block the run). Each file is hashed in pieces:
    a ``<stem>.*.bin`` file the vector does not name may be of any size, and must not be read into memory whole."""
    digest = hashlib.sha256(CACHE_FORMAT.encode())
    sidecars = [p for p in sorted(path.parent.glob(f"{path.stem}.*.bin")) if p.is_file() and not p.is_symlink()]
    for part in [path, *sidecars]:
        digest.update(part.name.encode() + b"\0")
        digest.update(_file_sha256(part, *(("vector file", MAX_JSON_BYTES) if part == path else ("sidecar", MAX_BINARY_BYTES))))
    return digest.hexdigest()


def _file_sha256(path: Path, what: str, max_bytes: int) -> bytes:
    """The sha256 of a file ``open_regular_file`` accepts (reference/safe_files.py: a regular file of at most
    ``max_bytes``), read in pieces, so memory is bounded whatever its size."""
    with open_regular_file(path, what, max_bytes) as (handle, _size):
        return hashlib.file_digest(handle, "sha256").digest()


_IN_PROCESS: dict[tuple[str, str], Vector] = {}


def load_cached(path, progress=None) -> Vector:
    """load_vector(path), once per process and content (an edited file is read again)."""
    path = Path(path)
    key = (str(path.resolve()), content_key(path))
    if key not in _IN_PROCESS:
        if progress:
            progress(f"{path.stem}: loading and validating (every point's subgroup check)")
        _IN_PROCESS[key] = load_vector(path)
    return _IN_PROCESS[key]


@contextlib.contextmanager
def _locked(lock_path: Path):
    """An exclusive advisory lock (flock) on lock_path, held for the block."""
    with open(lock_path, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def load_shared(path, cache_dir) -> Vector:
    """load_vector(path), decoded once for all processes that share ``cache_dir`` (pytest-xdist workers).

    Within a process the result is also kept in memory. The pickle is written by this code only, in a
    folder the test session created, so reading it back trusts nothing from outside.
    """
    path = Path(path)
    key = content_key(path)
    return _load_shared_by_key(str(path), key, str(cache_dir))


@functools.lru_cache(maxsize=None)
def _load_shared_by_key(path: str, key: str, cache_dir: str) -> Vector:
    folder = Path(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    pickle_path = folder / f"{Path(path).stem}-{key[:24]}.pickle"
    with _locked(folder / f"{pickle_path.name}.lock"):
        if pickle_path.exists():
            return pickle.loads(pickle_path.read_bytes())
        vector = load_vector(path)
        staging = pickle_path.with_suffix(".partial")
        staging.write_bytes(pickle.dumps(vector, protocol=pickle.HIGHEST_PROTOCOL))
        staging.replace(pickle_path)
        return vector
