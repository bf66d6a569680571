"""The GPU prover's sources and their digest: the *fingerprint* that a gate report records (conformance/fingerprint.py)
and a timing record names (conformance/timing.py ``gpu_sources``).

The fingerprint is the sha256 of every file the GPU prover imports or compiles, and one sha256 over the sorted list of
"<path> <file sha256>" lines. The files are found, not listed by hand (``gpu_source_files``): every gpu/ source (*.py,
and the *.cu / *.cuh kernels and headers NVRTC compiles; caches excluded), then every repository module reachable from
them through their import statements (module-level or inside functions, absolute or relative), with the __init__.py
of each package on the way: reference/ modules such as the domain conventions, vectors/ modules such as the PoRep
array circuits. Beside them, ``GPU_ONLY_FILES``: the harness files only a GPU run executes (the GPU backend's adapter,
which drives the GPU prover and hands its outputs to the comparison; the generated cases, built and judged only on a
GPU, and their circuits). CI, without a GPU, never runs them, so a change to one is as unchecked as a change to gpu/;
their own imports are the harness that CI tests with the reference backend, and are not followed. And
``GATE_INPUT_DIRS``: the bundled vectors the gate runs, which its report names by id only. This module imports nothing of the repository's but its error type, so that the
timing records' module, which the GPU prover imports, can name the digest without drawing the gate's harness into it.
"""
import ast
import hashlib
import importlib.util
from pathlib import Path

from reference.errors import InvalidInputError

REPO_ROOT = Path(__file__).resolve().parent.parent
GPU_DIR_NAME = "gpu"
GPU_SOURCE_SUFFIXES = (".py", ".cu", ".cuh")
IGNORED_DIRS = ("__pycache__",)
GPU_ONLY_FILES = (
    Path("conformance") / "backends" / "gpu.py",  # the GPU backend's adapter
    Path("conformance") / "generated.py",  # the generated cases (GENERATED_CASES) and run_case_on_gpu, which judges them
    Path("vectors") / "porep_arrays.py",  # the generated cases' circuits
)
"""Harness files only a GPU run executes, fingerprinted as files (module docstring), relative to the repository root."""
GATE_INPUT_DIRS = (Path("vectors") / "data",)
"""The bundled vectors (their JSON documents and sidecars: GATE_INPUT_SUFFIXES), which a gate report names by id only:
a vector changed under its name is one the GPU has not been checked on."""
GATE_INPUT_SUFFIXES = (".json", ".bin")
"""The files of GATE_INPUT_DIRS that are vectors (vectors/FORMAT.md: a document and its .bin sidecars); hidden files
(a desktop's .DS_Store, a writer's interrupted temporary) are none of them."""


def imported_gpu_root() -> Path:
    """The folder whose gpu/ ``import gpu`` loads in this process, or REPO_ROOT when none is found. A run's GPU backend
    executes that gpu/, which need not be this repository's: a planted fault runs from a patched copy
    (conformance/faults.py patched_gpu_tree), and a checkout's run started from another checkout's folder imports that
    one's. A report's fingerprint and a timing record's gpu_sources name the sources of this root (``fingerprint``), so
    that they name the code that ran; only the gate compares it with the repository's."""
    spec = importlib.util.find_spec(GPU_DIR_NAME)  # finds the package without importing it
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return Path(locations[0]).parent if locations else REPO_ROOT


def _gpu_files(root: Path) -> list[Path]:
    """gpu/**/*.py, *.cu, *.cuh under root (caches excluded)."""
    gpu_dir = root / GPU_DIR_NAME
    if not gpu_dir.is_dir():
        return []
    return [
        p for p in gpu_dir.rglob("*")
        if p.is_file() and p.suffix in GPU_SOURCE_SUFFIXES and not any(part in IGNORED_DIRS for part in p.relative_to(root).parts)
    ]


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_file(name: str, root: Path) -> Path | None:
    """The repository file of module ``name`` (a.b -> a/b.py or a/b/__init__.py), or None (not ours)."""
    base = root.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imported_names(path: Path, root: Path) -> set[str]:
    """Every module name the file's import statements can load: ``import a.b`` gives a and a.b; ``from .x import
    y`` gives the package, x and x.y (y may be a submodule), resolved against the file's own package."""
    package = _module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    names = set()
    for node in ast.walk(_syntax_tree(path, root)):
        if isinstance(node, ast.Import):
            bases = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            anchor = package[: len(package) - node.level + 1] if node.level else []
            base = ".".join(anchor + ([node.module] if node.module else []))
            bases = [base] + [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
        else:
            continue
        for name in bases:
            parts = name.split(".")
            names.update(".".join(parts[: k + 1]) for k in range(len(parts)))
    return names


def _syntax_tree(path: Path, root: Path) -> ast.AST:
    """The file's syntax tree; a file Python cannot parse is refused by name (its imports, hence the fingerprint, are
    unknown), not left to a traceback."""
    try:
        return ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError) as exc:  # ValueError: null bytes in the source
        where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        reason = getattr(exc, "msg", None) or str(exc)
        raise InvalidInputError(path.relative_to(root).as_posix(),
                                f"does not parse as Python: {reason}{where}; the GPU prover's sources cannot be "
                                "fingerprinted") from exc


def import_closure(files, root: Path = REPO_ROOT) -> set[Path]:
    """``files`` and every repository module their import statements reach, transitively (with each package's
    __init__.py on the way); only the .py files among ``files`` are read for imports."""
    found = set(files)
    pending = [p for p in found if p.suffix == ".py"]
    while pending:
        for name in _imported_names(pending.pop(), root):
            module = _module_file(name, root)
            if module is not None and module not in found:
                found.add(module)
                pending.append(module)
    return found


def sources_digest(files, root: Path = REPO_ROOT) -> dict:
    """{"sha256": combined digest, "files": {"<path>": file sha256}} of ``files``: combined = sha256 of the lines
    "<path> <file sha256>\\n" in sorted path order, so a renamed, added or removed file changes it as much as an
    edited one."""
    digests = {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}
    return {"sha256": combined_digest(digests), "files": digests}


def combined_digest(digests: dict) -> str:
    """sha256 of the lines "<path> <file sha256>\\n" of {path: file sha256}, in sorted path order."""
    return hashlib.sha256("".join(f"{path} {digest}\n" for path, digest in sorted(digests.items())).encode()).hexdigest()


def gpu_source_files(root: Path = REPO_ROOT) -> list[Path]:
    """Every file the GPU prover imports or compiles, GPU_ONLY_FILES and the files under GATE_INPUT_DIRS (module
    docstring), sorted by repository-relative POSIX path."""
    found = import_closure(_gpu_files(root), root)
    found.update(root / path for path in GPU_ONLY_FILES if (root / path).is_file())
    found.update(p for folder in GATE_INPUT_DIRS if (root / folder).is_dir() for p in (root / folder).iterdir() if _is_gate_input(p))
    return sorted(found, key=lambda p: p.relative_to(root).as_posix())


def _is_gate_input(path: Path) -> bool:
    return path.is_file() and path.suffix in GATE_INPUT_SUFFIXES and not path.name.startswith(".")


def fingerprint(root: Path = REPO_ROOT) -> dict:
    """sources_digest of gpu_source_files: the GPU prover's sources, the GPU-only harness and the bundled vectors."""
    return sources_digest(gpu_source_files(root), root)
