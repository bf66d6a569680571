"""Reading input files and JSON safely, and refusing output paths that would destroy data.

Every file a command reads goes through ``read_regular_file``: only a regular file (never a FIFO, device or
folder, which could block or never end), its size checked against a limit before a byte is read, and exactly
that many bytes read, so memory follows the file's real size. Every JSON document goes through
``parse_json``, which accepts only the canonical subset the formats use (vectors/FORMAT.md, "Canonical input"):

- nesting at most ``MAX_JSON_DEPTH`` deep. py_ecc raises Python's recursion limit to 100000 at import, and
  the json module's C parser recurses once per level: a deeply nested file would overflow the C stack and
  kill the process (SIGSEGV). The parse runs under a temporarily low recursion limit, then the depth is
  measured exactly;
- integers of at most ``MAX_INTEGER_DIGITS`` digits, no ``-0`` (int() refuses more than 4300 digits with a
  traceback, and no field of any format needs more than a u64), no fractions, exponents, NaN or Infinity;
- no duplicate keys in an object (readers in other languages keep the first or the last one: they would see
  a different document than ours);
- strings that are valid Unicode (no lone surrogates, which cannot be printed or encoded).

``check_outputs`` refuses an output path that is another output or an input of the same command (after
resolving links and relative paths): writing it would silently drop or overwrite data. ``check_replaceable`` refuses
one that exists and is not a regular file (a folder, a link, a device, a FIFO): the writer replaces its target by a
rename. ``check_output_writable`` adds the folders above it (not under a file, a link to nothing or a read-only
folder), before a long run rather than after it.
"""
import contextlib
import json
import os
import stat
import sys
from pathlib import Path

from .errors import InvalidInputError

MAX_JSON_DEPTH = 64
"""Deepest nesting of arrays and objects any format needs is 6 (r1cs.a[j][k]); 64 leaves room, far from any stack limit."""
MAX_INTEGER_DIGITS = 20
"""A u64 has at most 20 decimal digits; no JSON number of any format is larger (scalars are strings)."""
MAX_JSON_BYTES = 1 << 32
"""4 GiB: the largest JSON file read (a 2^20-point vector with inline arrays is ~0.5 GiB; larger ones use sidecars)."""
MAX_BINARY_BYTES = 1 << 38
"""256 GiB: the largest binary input (zkey, Parameters, sidecar); a 2^27-point key is ~40 GiB."""
_RECURSION_HEADROOM = 2 * MAX_JSON_DEPTH + 50
"""Frames allowed above the caller while json parses: the parser's levels plus the object hook's frames."""


@contextlib.contextmanager
def open_regular_file(path, what: str, max_bytes: int = MAX_BINARY_BYTES, follow_links: bool = True):
    """(binary handle, size) of ``path`` if it is a regular file of at most ``max_bytes`` (checked before a byte is
    read); InvalidInputError naming the path otherwise, and when a read inside the block fails (EIO: a failing disk,
    /proc/self/mem). ``follow_links=False`` refuses a symbolic link too."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        problem = "is a symbolic link" if not follow_links and os.path.islink(path) else f"cannot read the {what}: {exc.strerror}"
        raise InvalidInputError(str(path), problem) from None
    try:
        # Checked on the descriptor before wrapping it: os.fdopen itself refuses a folder with an OSError.
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InvalidInputError(str(path), f"the {what} is not a regular file")
        if info.st_size > max_bytes:
            raise InvalidInputError(str(path), f"the {what} has {info.st_size} bytes; at most {max_bytes} are read")
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        try:
            yield handle, info.st_size
        except OSError as exc:
            raise InvalidInputError(str(path), f"cannot read the {what}: {exc.strerror or exc}") from None


def read_regular_file(path, what: str, max_bytes: int = MAX_BINARY_BYTES, follow_links: bool = True) -> bytes:
    """The bytes of ``path``, read by ``open_regular_file``'s rules, exactly as many as its size says."""
    with open_regular_file(path, what, max_bytes, follow_links) as (handle, size):
        data = handle.read(size + 1)
    if len(data) != size:
        raise InvalidInputError(str(path), f"the {what} changed size while it was read")
    return data


def read_json_file(path, what: str = "JSON file"):
    """parse_json of a regular file (read_regular_file, at most MAX_JSON_BYTES), errors naming the path."""
    return parse_json(read_regular_file(path, what, MAX_JSON_BYTES), str(path))


def _refuse_float(text: str):
    raise ValueError(f"the number {text[:40]} is not an integer (only integers are used)")


def _refuse_constant(text: str):
    raise ValueError(f"{text} is not JSON")


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits is longer than {MAX_INTEGER_DIGITS} digits")
    if text == "-0":
        raise ValueError("-0 is not the canonical form of 0")
    return int(text)


def _unique_keys(pairs: list) -> dict:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        duplicate = next(key for i, key in enumerate(keys) if key in keys[:i])
        raise ValueError(f"duplicate key {duplicate!r:.60} in one object")
    return dict(pairs)


def _frame_depth() -> int:
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


def _check_depth_and_strings(doc, where: str) -> None:
    """Iteratively (no recursion): nesting depth <= MAX_JSON_DEPTH, every string and key valid Unicode."""
    stack = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, str):
            _check_unicode(value, where)
        elif isinstance(value, (list, dict)):
            if depth > MAX_JSON_DEPTH:
                raise InvalidInputError(where, f"JSON nesting is deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(value, dict):
                for key in value:
                    _check_unicode(key, where)
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))


def _check_unicode(text: str, where: str) -> None:
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            raise InvalidInputError(where, "holds a string with a lone surrogate (\\ud800-\\udfff): not valid Unicode") from None


def parse_json(data: bytes, where: str, allow_fractions: bool = False):
    """The JSON document in ``data`` (UTF-8), canonical as the module docstring says; InvalidInputError naming ``where``.
    ``allow_fractions`` admits non-integer numbers (reports hold seconds; no input format does)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(where, f"is not valid JSON: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_frame_depth() + _RECURSION_HEADROOM)
    try:
        doc = json.loads(
            text, object_pairs_hook=_unique_keys, parse_int=_integer, parse_float=float if allow_fractions else _refuse_float, parse_constant=_refuse_constant
        )
    except RecursionError:
        raise InvalidInputError(where, f"JSON nesting is deeper than {MAX_JSON_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(where, f"is not valid JSON: {exc}") from None
    except ValueError as exc:
        raise InvalidInputError(where, f"is not canonical JSON: {exc}") from None
    finally:
        sys.setrecursionlimit(old_limit)
    _check_depth_and_strings(doc, where)
    return doc


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


_NOT_REGULAR = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))
"""The names a refusal gives what an output path may hold instead of a regular file (a folder aside)."""


def check_replaceable(label: str, path: Path) -> None:
    """InvalidInputError (naming ``label``) when ``path`` exists and is not a regular file, looked at itself (not
    through a link). The writer (vectors/format.py write_files_atomically) puts a new file in place by a rename,
    which unlinks whatever held the name: as root, ``--out /dev/null`` replaced the machine's /dev/null device by a
    file, and ``--out /dev/stdout`` its link to the output stream (audit of 2026-12-07); a folder cannot be replaced."""
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # nothing there (under a file: the folder checks say so)
        return
    except OSError as exc:
        raise InvalidInputError(label, f"cannot write {path}: {exc.strerror or exc}") from None
    if stat.S_ISREG(mode):  # the one kind replaced: anything else is refused, named where _NOT_REGULAR names it
        return
    if stat.S_ISDIR(mode):
        raise InvalidInputError(label, f"{path} is a folder, not a file")
    kind = next((name for is_kind, name in _NOT_REGULAR if is_kind(mode)), "another kind of file")
    raise InvalidInputError(label, f"{path} is {kind}, not a regular file: refusing to replace it")


def check_output_writable(label: str, path: Path) -> None:
    """InvalidInputError (naming ``label``) unless ``path`` could be written now, by the writer's rules
    (vectors/format.py write_files_atomically): replaceable (check_replaceable), and the nearest existing folder
    above it, under which the writer makes the missing ones, a writable folder (not a link to nothing, which the
    writer's mkdir would meet only after the work). The write itself still reports what fails later (a full disk, a
    folder changed since). A path the system cannot look up (a name over 255 bytes) is refused with the system's
    reason."""
    check_replaceable(label, path)
    try:
        existing = next(folder for folder in path.parents if os.path.lexists(folder))  # '.' or '/' at the latest
        if not existing.exists():
            raise InvalidInputError(label, f"cannot write {path}: {existing} is a symbolic link to nothing")
        if not existing.is_dir():
            raise InvalidInputError(label, f"cannot write {path}: {existing} is a file, not a folder")
    except OSError as exc:
        raise InvalidInputError(label, f"cannot write {path}: {exc.strerror or exc}") from None
    if not os.access(existing, os.W_OK | os.X_OK):
        raise InvalidInputError(label, f"the folder {existing} cannot be written to")


def check_outputs(outputs: dict, inputs: dict) -> None:
    """Refuse when two outputs are one file, or an output is an input: {label: path} each (label = option or
    argument name, for the message). Nothing has been written when this raises."""
    items = [(label, Path(path)) for label, path in outputs.items() if path is not None]
    for i, (label, path) in enumerate(items):
        for other_label, other in items[:i]:
            if _same_file(path, other):
                raise InvalidInputError(label, f"{path} is the same file as {other_label} ({other}): one output would be lost")
        for input_label, source in inputs.items():
            if source is not None and _same_file(path, Path(source)):
                raise InvalidInputError(label, f"{path} is the {input_label}: refusing to overwrite it")


def check_outputs_before_work(outputs: dict, inputs: dict) -> None:
    """check_outputs, then check_output_writable for each output: what a command checks of its outputs before a long
    run (a proof at 2^27, a vector generated or imported at 2^20), so that an output refused only when written does not
    waste it. The writer checks them again (vectors/format.py write_files_atomically)."""
    check_outputs(outputs, inputs)
    for label, path in outputs.items():
        if path is not None:
            check_output_writable(label, Path(path))
