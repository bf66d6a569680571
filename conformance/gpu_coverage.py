"""Which GPU code a conformance run exercised (``run --coverage``, implied by ``--record-gate``).

Two records, both started before any gpu/ module is imported and stopped when the run ends:

* kernels: every ``gpu.device.launch`` is recorded (``device.record_launches``) as (module source,
  kernel name) and mapped to the file of gpu/kernels/ that defines the kernel. The kernels *defined*
  are read from the sources themselves (``defined_kernels``). A kernel is named ``<file>:<name>``,
  e.g. ``msm.cu:sum_groups_g1`` (``batch_add.cu`` defines a kernel of the same name).
* lines: coverage.py over gpu/*.py: the statements that ran, per file and in all.

``--record-gate`` refuses to record while a kernel defined in gpu/kernels/ was never launched,
unless ALLOWLIST names it with the reason (``check_gate``).
"""
from __future__ import annotations

import re
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from reference.errors import InvalidInputError, ToolkitError

from .sources import GPU_DIR_NAME, REPO_ROOT, imported_gpu_root

GPU_DIR = REPO_ROOT / GPU_DIR_NAME
KERNEL_DIR = GPU_DIR / "kernels"
KERNEL_SUFFIXES = (".cu", ".cuh")
ALLOWLIST = Path("conformance") / "kernel_allowlist.toml"
"""The reviewed list of kernels a gate run may leave unlaunched, each with its reason."""
ALLOWLIST_TABLE = "never_launched"
"""The allow-list's one table: {"<file>:<kernel>": "reason"}."""
COVERAGE_INSTALL = "pip install 'coverage>=7' (or pip install -e '.[gate]')"


class KernelParseError(ValueError):
    """A kernel declaration in gpu/kernels/ that the parser cannot name (so it would go uncounted)."""


class UnlaunchedKernelsError(ToolkitError):
    """--record-gate refused: kernels defined in gpu/kernels/ were never launched and are not allow-listed."""

    def __init__(self, kernels: list[str]):
        self.kernels = kernels
        super().__init__(
            f"--record-gate: {len(kernels)} kernel(s) defined in gpu/kernels/ were never launched by this run and are "
            f"not in {ALLOWLIST}: {', '.join(kernels)}. Make the gate's vectors launch them, or add each to "
            f"{ALLOWLIST} with the reason, for review"
        )


# ---------------------------------------------------------------------------------------------
# Kernels defined in gpu/kernels/

_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DIRECTIVE = re.compile(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", re.M)
"""A preprocessor line with its continuations: macro definitions are templates, not kernels."""
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
_EXTERN_C_KERNEL = re.compile(r'extern\s+"C"\s+__global__\s+void\s+(?:__launch_bounds__\s*\([^()]*\)\s*)?(\w+)\s*\(')
_GLOBAL = re.compile(r"\b__global__\b")
EC_MACRO_SUFFIXES = {"EC_KERNEL": ("",), "EC_KERNEL_G1": ("_g1",), "EC_KERNEL_G1_MIN_BLOCKS": ("_g1",), "EC_KERNEL_G2": ("_g2",),
                     "EC_KERNEL_G1_G2": ("_g1", "_g2")}
"""The kernels each macro of gpu/kernels/ec_kernels.cuh declares from its first argument ``name``:
name, name_g1 (G1, F = fq_t), name_g2 (G2, F = fq2_t)."""
_EC_MACRO_NAMES = "|".join(sorted([*EC_MACRO_SUFFIXES, "EC_GLOBAL"], key=len, reverse=True))  # longest first
_EC_MACRO = re.compile(rf"\b({_EC_MACRO_NAMES})\b\s*(\(\s*(\w+)\s*,|(\w+)\s*\()")
_EC_MACRO_USE = re.compile(r"\b(?:EC_KERNEL\w*|EC_GLOBAL)\b")


def _code(text: str) -> str:
    """The text without comments and preprocessor lines."""
    return _DIRECTIVE.sub("", _COMMENT.sub("", text))


def kernels_in_source(text: str, where: str = "source") -> list[str]:
    """Names of the kernels a CUDA source declares, in order: ``extern "C" __global__ void name(``
    (with or without __launch_bounds__) and the EC_KERNEL* / EC_GLOBAL macros of ec_kernels.cuh.
    Raises KernelParseError for a __global__ or EC_* macro use it cannot name."""
    code = _code(text)
    found = [(m.start(), [m.group(1)]) for m in _EXTERN_C_KERNEL.finditer(code)]
    if len(found) != len(_GLOBAL.findall(code)):
        raise KernelParseError(f"{where}: a __global__ function that is not 'extern \"C\" __global__ void name(...)'")
    matched = list(_EC_MACRO.finditer(code))
    if len(matched) != len(_EC_MACRO_USE.findall(code)):
        raise KernelParseError(f"{where}: an EC_KERNEL*/EC_GLOBAL use that is not 'MACRO(name, ...)' / 'EC_GLOBAL name(...)'")
    for m in matched:
        macro, first_argument, global_name = m.group(1), m.group(3), m.group(4)
        if macro == "EC_GLOBAL":
            if global_name is None:
                raise KernelParseError(f"{where}: EC_GLOBAL not followed by a kernel name")
            found.append((m.start(), [global_name]))
        elif first_argument is None:
            raise KernelParseError(f"{where}: {macro} without a kernel name as its first argument")
        else:
            found.append((m.start(), [first_argument + suffix for suffix in EC_MACRO_SUFFIXES[macro]]))
    return [name for _position, names in sorted(found) for name in names]


def defined_kernels(kernel_dir: Path = KERNEL_DIR) -> dict[str, list[str]]:
    """{file name: kernel names} for every .cu/.cuh file of kernel_dir that declares a kernel."""
    defined = {}
    for path in sorted(p for p in kernel_dir.iterdir() if p.suffix in KERNEL_SUFFIXES):
        names = kernels_in_source(path.read_text(), path.name)
        if names:
            defined[path.name] = names
    return defined


def kernel_ids(defined: dict[str, list[str]]) -> list[str]:
    """'<file>:<name>' for every defined kernel, sorted."""
    return sorted({f"{file}:{name}" for file, names in defined.items() for name in names})


# ---------------------------------------------------------------------------------------------
# Launched kernels


def _files_of_module(source: str, kernel_dir: Path) -> list[str]:
    """The gpu/kernels files a module's source consists of: the ``#line 1 "<file>"`` markers that
    gpu.device.load_module puts before each .cu file, and every ``#include "<file>"`` (transitively)."""
    files = re.findall(r'^#line 1 "([^"]+)"', source, re.M)
    pending = _INCLUDE.findall(source)
    while pending:
        name = pending.pop()
        if name in files or not (kernel_dir / name).is_file():
            continue
        files.append(name)
        pending += _INCLUDE.findall((kernel_dir / name).read_text())
    return files


def launched_kernel_ids(launches, defined: dict[str, list[str]], kernel_dir: Path = KERNEL_DIR) -> tuple[set[str], set[str]]:
    """(ids '<file>:<name>' of the kernels of gpu/kernels/ that were launched, names of other
    launched kernels: test kernels compiled from source text, or a name defined in no or several
    files of its module)."""
    ids, others = set(), set()
    for source, name in launches:
        files = [f for f in _files_of_module(source, kernel_dir) if name in defined.get(f, ())]
        if len(files) == 1:
            ids.add(f"{files[0]}:{name}")
        else:
            others.add(name if not files else f"{name} (in {' and '.join(files)})")
    return ids, others


# ---------------------------------------------------------------------------------------------
# The allow-list


def load_allowlist(path: Path, known_ids) -> dict[str, str]:
    """{kernel id: reason} from the allow-list TOML: one table ``[never_launched]`` of
    ``"<file>:<kernel>" = "reason"``. Refuses (InvalidInputError) an unknown kernel, an empty reason,
    any other key, or a file that is missing or not TOML."""
    where = str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)
    try:
        document = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise InvalidInputError(where, "the kernel allow-list is missing") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInputError(where, f"not valid TOML ({exc})") from None
    extra = sorted(set(document) - {ALLOWLIST_TABLE})
    if extra or not isinstance(document.get(ALLOWLIST_TABLE, {}), dict):
        raise InvalidInputError(where, f"must hold only the table [{ALLOWLIST_TABLE}] of \"<file>:<kernel>\" = \"reason\"; found {extra or ALLOWLIST_TABLE}")
    known = set(known_ids)
    allowed = {}
    for kernel, reason in document.get(ALLOWLIST_TABLE, {}).items():
        if kernel not in known:
            raise InvalidInputError(f"{where}: {kernel}", "no such kernel in gpu/kernels/ (name it '<file>:<kernel>', e.g. 'msm.cu:msm_digits')")
        if not isinstance(reason, str) or not reason.strip():
            raise InvalidInputError(f"{where}: {kernel}", "needs a reason (a non-empty string)")
        allowed[kernel] = reason.strip()
    return allowed


# ---------------------------------------------------------------------------------------------
# Verdict


def kernel_section(defined_ids, launched_ids, others, allowed: dict[str, str]) -> dict:
    """The report's ``coverage.kernels`` (REPORT_SCHEMA.md)."""
    launched = sorted(set(launched_ids))
    never = [k for k in sorted(defined_ids) if k not in launched_ids]
    return {
        "defined": len(defined_ids),
        "launched": launched,
        "never_launched": {k: allowed.get(k) for k in never},
        "allowlisted_but_launched": sorted(k for k in allowed if k in launched_ids),
        "launched_outside_kernel_dir": sorted(others),
    }


def unallowed_kernels(section: dict) -> list[str]:
    """Kernels of the section that were never launched and are not allow-listed."""
    return [k for k, reason in section["kernels"]["never_launched"].items() if reason is None]


def check_gate(section: dict | None) -> None:
    """Raise UnlaunchedKernelsError if a kernel of gpu/kernels/ was never launched without an
    allow-list entry; a run without coverage records may not be recorded either."""
    if section is None:
        raise ToolkitError("--record-gate: this run recorded no coverage (it needs the records that --record-gate starts)")
    missing = unallowed_kernels(section)
    if missing:
        raise UnlaunchedKernelsError(missing)


# ---------------------------------------------------------------------------------------------
# Lines of gpu/*.py (coverage.py)


def start_line_coverage(gpu_dir: Path = GPU_DIR, option: str = "--coverage"):
    """A started coverage.Coverage measuring gpu_dir/*.py only, in memory (no data file); without the
    coverage package, InvalidInputError naming ``option`` (the command-line flag that asked for it)."""
    try:
        import coverage
    except ImportError:
        raise InvalidInputError(option, f"line coverage of gpu/*.py needs the coverage package, which is not installed: {COVERAGE_INSTALL}") from None
    cov = coverage.Coverage(data_file=None, config_file=False, include=[str(gpu_dir / "*.py")])
    if sys.version_info >= (3, 12):
        cov.set_option("run:core", "sysmon")  # no tracing cost in the code outside gpu/ (the reference)
    cov.start()
    return cov


def line_section(cov, gpu_dir: Path = GPU_DIR, imported_before: list[str] = ()) -> dict:
    """The report's ``coverage.lines``: statements of every gpu_dir/*.py, those that ran, per file."""
    import coverage

    files, statements_total, run_total = {}, 0, 0
    for path in sorted(gpu_dir.glob("*.py")):
        _name, statements, _excluded, missing, missing_text = cov.analysis2(str(path))
        run = len(statements) - len(missing)
        files[f"{gpu_dir.name}/{path.name}"] = {"statements": len(statements), "run": run, "not_run": missing_text}
        statements_total, run_total = statements_total + len(statements), run_total + run
    return {
        "tool": f"coverage {coverage.__version__}",
        "statements": statements_total,
        "run": run_total,
        "share": run_total / statements_total if statements_total else None,
        "imported_before_start": list(imported_before),
        "files": files,
    }


# ---------------------------------------------------------------------------------------------
# One recording


def _gpu_modules_imported() -> list[str]:
    return sorted(m for m in sys.modules if m == GPU_DIR.name or m.startswith(GPU_DIR.name + "."))


@dataclass
class CoverageRecorder:
    """Kernel launches and gpu/*.py lines from ``start()`` until ``section()``; ``stop()`` always."""

    allowed: dict[str, str]
    defined: dict[str, list[str]]
    cov: object
    imported_before: list[str]
    launches: set = field(default_factory=set)
    gpu_dir: Path = GPU_DIR
    """The gpu/ recorded: the one Python imports (a planted fault's copy runs its own, conformance/faults.py)."""

    @classmethod
    def start(cls, option: str = "--coverage") -> "CoverageRecorder":
        """Read the kernels and the allow-list (refusing a bad one now, not after the run), then start
        both records, of the gpu/ that Python imports (conformance/sources.py imported_gpu_root, as the report's
        fingerprint). Raises InvalidInputError, naming ``option``, when coverage.py is not installed."""
        gpu_dir = imported_gpu_root() / GPU_DIR.name
        defined = defined_kernels(gpu_dir / KERNEL_DIR.name)
        allowed = load_allowlist(REPO_ROOT / ALLOWLIST, kernel_ids(defined))
        imported_before = _gpu_modules_imported()
        cov = start_line_coverage(gpu_dir, option=option)
        from gpu import device  # after coverage started: its module lines count

        return cls(allowed, defined, cov, imported_before, device.record_launches(), gpu_dir)

    def stop(self) -> None:
        from gpu import device

        device.stop_recording_launches()
        self.cov.stop()

    def section(self) -> dict:
        """The report's ``coverage`` object (REPORT_SCHEMA.md); stops the records."""
        self.stop()
        launched, others = launched_kernel_ids(self.launches, self.defined, self.gpu_dir / KERNEL_DIR.name)
        return {
            "kernels": kernel_section(kernel_ids(self.defined), launched, others, self.allowed),
            "lines": line_section(self.cov, self.gpu_dir, imported_before=self.imported_before),
        }


# ---------------------------------------------------------------------------------------------
# Text


def summary_text(section: dict) -> str:
    """'kernels launched 40 / 52 defined in gpu/kernels/; lines of gpu/*.py run 1200 / 1500 (80.0%)'."""
    kernels, lines = section["kernels"], section["lines"]
    share = NO_SHARE if lines["share"] is None else f"{100 * lines['share']:.1f}%"
    return (
        f"kernels launched {len(kernels['launched'])} / {kernels['defined']} defined in gpu/kernels/; "
        f"lines of gpu/*.py run {lines['run']} / {lines['statements']} ({share})"
    )


NO_SHARE = "-"


def terminal_lines(section: dict | None) -> list[str]:
    """The coverage summary and the kernels the gate would refuse, for the terminal."""
    if section is None:
        return []
    lines = ["", f"coverage: {summary_text(section)}"]
    missing = unallowed_kernels(section)
    if missing:
        lines.append(f"never launched and not in {ALLOWLIST}: {', '.join(missing)}")
    return lines


def markdown_lines(section: dict | None) -> list[str]:
    """report.md's section 'Coverage of the GPU code'."""
    if section is None:
        return []
    kernels, lines = section["kernels"], section["lines"]
    out = ["## Coverage of the GPU code", "", f"* {summary_text(section)} ({lines['tool']})"]
    if lines["imported_before_start"]:
        out.append(f"* imported before line coverage started (their module-level lines count as not run): {', '.join(lines['imported_before_start'])}")
    if kernels["launched_outside_kernel_dir"]:
        out.append(f"* launched, not defined (once) in the module's gpu/kernels/ files: {', '.join(kernels['launched_outside_kernel_dir'])}")
    if kernels["allowlisted_but_launched"]:
        out.append(f"* in {ALLOWLIST} but launched (remove them): {', '.join(kernels['allowlisted_but_launched'])}")
    out += ["", "### Kernels defined but never launched", ""]
    if kernels["never_launched"]:
        out += ["| kernel | allow-listed because |", "|---|---|"]
        out += [f"| {k} | {reason if reason is not None else '**not allow-listed**'} |" for k, reason in kernels["never_launched"].items()]
    else:
        out.append("None: every kernel of gpu/kernels/ was launched.")
    out += ["", "### Lines of gpu/*.py run", "", "| file | run | statements | not run |", "|---|---|---|---|"]
    out += [f"| {name} | {f['run']} | {f['statements']} | {f['not_run'] or NO_SHARE} |" for name, f in lines["files"].items()]
    return out + [""]
