"""What the probes with kernels in bench/probes/ share: compiling one with the headers it includes from there, and
writing their records.

CuPy's disk cache keys a module by its source text and options, and gpu/device.py's compile_source adds the digest of
gpu/kernels' headers only; so the source compiled here starts with the digest of every header in bench/probes/, and an
edit of one (fq_inverse_gcd.cuh) compiles anew instead of loading the old binary.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import sys
from pathlib import Path

PROBE_DIR = Path(__file__).resolve().parent / "probes"
UNWRITTEN = 0xFFFFFFFF
"""The word a probe's output holds before its kernel writes it: all-ones words are no field element (>= p) and no
point, so an output the kernel never wrote cannot pass for a result, nor for an earlier variant's."""


def probe_module(source: Path, options: tuple = ()):
    """cupy.RawModule of bench/probes/<source> (gpu/device.py compile_source), bench/probes/ on the include path."""
    from gpu.device import compile_source

    digests = "".join(f"// {header.name} sha256 {hashlib.sha256(header.read_bytes()).hexdigest()}\n"
                      for header in sorted(PROBE_DIR.glob("*.cuh")))
    return compile_source(digests + source.read_text(), options=(f"-I{PROBE_DIR}", *options))


def write_records(json_path: Path | None, md_path: Path | None, record: dict, table: str) -> None:
    """The results as JSON (``record`` with the command line and the date added) and the table as markdown, each where
    asked (None: not written)."""
    if json_path:
        stamped = {**record, "command": " ".join(sys.argv),
                   "date": datetime.datetime.now(datetime.timezone.utc).isoformat()}
        json_path.write_text(json.dumps(stamped, indent=1))
    if md_path:
        md_path.write_text(table + "\n")
