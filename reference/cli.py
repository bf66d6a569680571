"""What every command-line tool of the toolkit shares: argument parsing, error reporting, progress, proof files."""
import argparse
import re
import sys
import time

from .assemble import Proof
from .encoding import decode_g1, decode_g2, encode_g1_many, encode_g2_many
from .errors import InvalidInputError, ToolkitError
from .safe_files import read_json_file

EXIT_OK, EXIT_INVALID_PROOF, EXIT_BAD_INPUT = 0, 1, 2
"""Exit statuses: success; a proof that does not verify (or a conformance mismatch); bad input."""


def single_line(text: str) -> str:
    """``text`` with every character that is not printable (newline, carriage return, NUL and the other controls, the
    Unicode line separators, lone surrogates) escaped as Python escapes it: a message carrying a file name or another
    value from the input prints as one line, so that a name holding a newline cannot forge a second 'ok' or 'error:'
    line."""
    return "".join(char if char.isprintable() else ascii(char)[1:-1] for char in text)


def run_main(main, argv=None) -> int:
    """Run ``main(argv)``; a ToolkitError becomes one 'error: field: problem' line on stderr and exit 2. So does an
    OSError that no reader turned into one (a name too long for the file system, a read failing with EIO): the field
    is the file it names, and no command leaves a traceback for its input."""
    try:
        return main(argv)
    except ToolkitError as exc:
        print(f"error: {single_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        field = exc.filename if exc.filename is not None else "file system"
        print(f"error: {single_line(str(field))}: {single_line(exc.strerror or str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _decimal(pattern: str, convert, what: str):
    """An argparse type reading only ``pattern`` (ASCII) with ``convert``: int() and float() also take other scripts'
    digits ('\u0662'), a '+', '_' separators and surrounding spaces (' +1_0 ' is 10), forms no number of the formats
    has (vectors/FORMAT.md, "Canonical input"; audit of 2026-12-07)."""
    def parse(text: str):
        if not re.fullmatch(pattern, text, flags=re.ASCII):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return convert(text)
    return parse


CANONICAL_TYPES = {int: _decimal(r"-?(0|[1-9][0-9]{0,19})", int, "a decimal integer (ASCII digits, no sign but '-')"),
                   float: _decimal(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?", float, "a decimal number (ASCII digits and one '.')")}
"""What ``type=int`` and ``type=float`` read in every toolkit command (register_canonical_types)."""


def register_canonical_types(parser: argparse.ArgumentParser) -> None:
    """Make ``type=int`` and ``type=float`` read CANONICAL_TYPES: argparse looks a type up in this registry first."""
    for python_type, parse in CANONICAL_TYPES.items():
        parser.register("type", python_type, parse)


class ArgumentParser(argparse.ArgumentParser):
    """argparse.ArgumentParser whose errors are the toolkit's: InvalidInputError(field, problem), which run_main prints
    as one 'error: field: problem' line with exit 2 (argparse prints its usage and 'prog: error: ...'), and whose
    ``type=int`` and ``type=float`` read only plain ASCII decimals (CANONICAL_TYPES). Subparsers
    (add_subparsers().add_parser) are of this class too: argparse makes them of the parser's own class."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        register_canonical_types(self)

    def error(self, message: str):
        raise InvalidInputError(*argument_error_parts(message))


_ARGUMENT_PREFIX = "argument "
_REQUIRED_PREFIX = "the following arguments are required: "
_UNRECOGNIZED_PREFIX = "unrecognized arguments: "
ARGUMENTS_FIELD = "arguments"
"""The field of an argparse error that names no argument (e.g. 'one of the arguments --a --b is required')."""


def argument_error_parts(message: str) -> tuple[str, str]:
    """(field, problem) of an argparse error message: 'argument --devices: names no device' -> ('--devices', 'names no
    device'); 'the following arguments are required: vector' -> ('vector', 'is required'); 'unrecognized arguments: -x'
    -> ('-x', 'is not an argument of this command')."""
    if message.startswith(_ARGUMENT_PREFIX) and ": " in message:
        field, problem = message.removeprefix(_ARGUMENT_PREFIX).split(": ", 1)
        return field, problem
    if message.startswith(_REQUIRED_PREFIX):
        names = message.removeprefix(_REQUIRED_PREFIX)
        return names, "are required" if ", " in names else "is required"
    if message.startswith(_UNRECOGNIZED_PREFIX):
        names = message.removeprefix(_UNRECOGNIZED_PREFIX)
        return names, "are not arguments of this command" if " " in names else "is not an argument of this command"
    return ARGUMENTS_FIELD, message


class Progress:
    """Progress lines on stderr with the elapsed time (silent when quiet)."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self.start = time.perf_counter()

    def __call__(self, message: str) -> None:
        if not self.quiet:
            print(f"[{time.perf_counter() - self.start:7.1f}s] {single_line(message)}", file=sys.stderr, flush=True)


def proof_json(proof: Proof) -> dict:
    """{"a": G1, "b": G2, "c": G1}, ZCash compressed lowercase hex."""
    a, c = encode_g1_many([proof.a, proof.c])
    return {"a": a, "b": encode_g2_many([proof.b])[0], "c": c}


def proofs_document(proofs: list[Proof]):
    """One proof object for one circuit, a list of them for several."""
    docs = [proof_json(p) for p in proofs]
    return docs[0] if len(docs) == 1 else docs


def parse_proof(doc, where: str) -> Proof:
    if not isinstance(doc, dict) or set(doc) != {"a", "b", "c"}:
        raise InvalidInputError(where, 'expected {"a": G1 hex, "b": G2 hex, "c": G1 hex}')
    return Proof(a=decode_g1(doc["a"], f"{where}.a"), b=decode_g2(doc["b"], f"{where}.b"), c=decode_g1(doc["c"], f"{where}.c"))


def read_json(path):
    """The parsed JSON document at ``path`` (a regular file, canonical JSON: reference/safe_files.py), or
    InvalidInputError naming the file."""
    return read_json_file(path)


def each_document(doc, name: str, parse) -> list:
    """parse(d, where) for one object, or for each element of a list (where = name or name[i])."""
    docs = doc if isinstance(doc, list) else [doc]
    return [parse(d, f"{name}[{i}]" if isinstance(doc, list) else name) for i, d in enumerate(docs)]
