"""The output files of the bench scripts (--json, --md), refused when they are parsed if they cannot be written:
the scripts write them after their runs (minutes of device time), whose results a missing folder would lose. The
refusal is a usage error (exit 2) before any work. Light: no GPU or curve library is imported."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

JSON_HELP = "also write the results (JSON) here"
MD_HELP = "also write the table (markdown) here"


def _require_writable_folder(folder: Path) -> None:
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"the folder {folder} cannot be written to")


def output_path(text: str) -> Path:
    """argparse type of a file a script writes: its Path, or a usage error when its folder does not exist or cannot
    be written to, when the path is a folder, or when it is a file that cannot be written to."""
    path = Path(text)
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"the folder {path.parent} does not exist")
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is a folder, not a file")
    _require_writable_folder(path.parent)
    if path.exists() and not os.access(path, os.W_OK):
        raise argparse.ArgumentTypeError(f"{path} exists and cannot be written to")
    return path


def output_folder(text: str) -> Path:
    """argparse type of a folder a script creates if needed and writes into: its Path, or a usage error when it or the
    nearest path that exists above it is a file, or when that nearest folder cannot be written to."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} exists and is not a folder")
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():  # a file above it: the folder cannot be made
        raise argparse.ArgumentTypeError(f"{existing} is not a folder")
    _require_writable_folder(existing)
    return path


def add_output_arguments(parser: argparse.ArgumentParser, json_help: str = JSON_HELP, md_help: str | None = MD_HELP,
                         required: bool = False) -> None:
    """--json and --md (md_help None: no --md) on ``parser``, each an output_path (None when not given)."""
    parser.add_argument("--json", type=output_path, required=required, help=json_help)
    if md_help is not None:
        parser.add_argument("--md", type=output_path, required=required, help=md_help)


def _toolkit_cli():
    """reference/cli.py, whose argument rules the bench scripts share (the repository put on sys.path first)."""
    repository = str(Path(__file__).resolve().parent.parent)
    if repository not in sys.path:
        sys.path.insert(0, repository)
    from reference import cli

    return cli


class ArgumentParser(argparse.ArgumentParser):
    """The bench scripts' argument parser: a usage error is one line 'error: <argument>: <problem>' on stderr, exit 2,
    as `python -m reference|vectors|conformance|gpu` give (reference/cli.py ArgumentParser), not argparse's usage text
    and 'script.py: error: ...'; ``type=int`` and ``type=float`` read plain ASCII decimals only, as there
    (reference/cli.py CANONICAL_TYPES). --help is argparse's."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _toolkit_cli().register_canonical_types(self)

    def error(self, message: str):
        field, problem = _toolkit_cli().argument_error_parts(message)
        self.exit(2, f"error: {field}: {problem}\n")
