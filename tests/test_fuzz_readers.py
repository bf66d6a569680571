"""Fuzzing every reader with mutants of valid files (hypothesis): byte flips, truncations, insertions and JSON
structure mutations of a bundled vector, proofs, snarkjs files (proof, public signals, verification key, zkey,
r1cs, wtns) and bellman files (proofs, verifying key, Parameters).

Each mutant must either be accepted with an unchanged meaning (the reader's decoded result, re-encoded
canonically, equals the original's: a whitespace change, say) or be refused with a ToolkitError whose message
names a field (`field: problem`, exit 2 on the command line). Any other exception is a traceback and fails the
test; so does acceptance of a mutant whose meaning changed. A vector is read as `python -m vectors check` reads
it: loaded, then every stated value recomputed by the reference (vectors/checking.py), so a changed key, witness
or blinding scalar that still decodes is refused by the recomputation. A sample of mutants also runs through the
command-line tools in subprocesses under a memory limit and a timeout: no signal (segfault), no traceback.

CI runs a fixed, derandomized budget (about 30 s on 2 cores). A longer run, with fresh randomness:

    HOSTILE_FUZZ_EXAMPLES=2000 HOSTILE_FUZZ_RANDOM=1 python -m pytest tests/test_fuzz_readers.py
"""
import functools
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.__main__ import _load_any_proofs, _load_public
from reference.cli import proofs_document
from reference.encoding import encode_g1_many, encode_g2_many
from reference.errors import SizeMismatchError, ToolkitError
from reference.safe_files import read_json_file
from reference.verifier import verify
from vectors.bellman import export_bellman, parse_parameters, parse_verifying_key
from vectors.bundled import DATA_DIR
from vectors.checking import check_vector_values
from vectors.format import load_vector, vector_document
from vectors.snarkjs import import_snarkjs, verifying_key_from_json

REPO = Path(__file__).resolve().parent.parent
INTEROP = REPO / "interop" / "snarkjs"
VECTOR = DATA_DIR / "porep-log01.json"
"""The smallest bundled vector: every mutant that decodes is checked in full by the reference."""
EXAMPLES = int(os.environ.get("HOSTILE_FUZZ_EXAMPLES", "40"))
"""Mutants per reader (CI default: a fixed budget)."""
RANDOM = os.environ.get("HOSTILE_FUZZ_RANDOM") == "1"
SECONDS_PER_MUTANT = 30
"""Time bound for one mutant in-process: the seed files are tiny; anything near this is a hang."""
SUBPROCESS_MEMORY_BYTES = 4 << 30
SUBPROCESS_TIMEOUT = 120
INFORMATIVE_FIELDS = ("id", "comment", "flags", "generator")
"""Free-text vector fields that carry no value a prover uses (FORMAT.md); a change there is not a change of meaning."""
HOSTILE_SNIPPETS = [
    b"[" * 5000, b"1" * 5000, b"-0", b"1.0", b"1e9", b"NaN", b'"\\ud800"', b"\xff\xfe", b"\x00", b'"x":1,"x":2,', b"true", b"null",
    b"{}", b"[]", b'"' + b"f" * 96 + b'"', b" ", b"\n", b"\t",
]
HOSTILE_VALUES = [None, True, False, 0, 1, -1, 2**64, "", "0", "00" * 32, "ff" * 32, "c0" + "00" * 47, [], {}, [[]], {"sidecar": "x.bin"}, "A" * 96]

pytestmark = pytest.mark.filterwarnings("ignore")


def _fuzz_settings():
    return settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=not RANDOM,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


# ----------------------------------------------------------------------------------------------
# Seed files and what each reader means by them


@functools.cache
def _seed_dir() -> Path:
    folder = Path(tempfile.mkdtemp(prefix="fuzz-seeds-"))
    vector = load_vector(VECTOR)
    export_bellman(vector, folder / "bellman")
    return folder


def _points(*groups_and_points) -> list[str]:
    return [encode_g1_many([p])[0] if g == "g1" else encode_g2_many([p])[0] for g, p in groups_and_points]


def _vk_meaning(vk) -> list[str]:
    names = [n for n in ("alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2") if hasattr(vk, n)]
    return _points(*[(n[-2:], getattr(vk, n)) for n in names], *[("g1", p) for p in vk.ic])


def _vector_meaning(path: Path):
    vector = load_vector(path)
    check_vector_values(vector)
    doc, _ = vector_document(vector, "v")
    return {k: v for k, v in doc.items() if k not in INFORMATIVE_FIELDS}


def _parameters_meaning(path: Path):
    pk = parse_parameters(path.read_bytes(), _seed_vector().r1cs)
    return _vk_meaning(pk.vk) + _points(*[("g2" if q == "b_g2" else "g1", p) for q in ("h", "l", "a", "b_g1", "b_g2") for p in getattr(pk, q)])


def _import_meaning(kind: str):
    """A circom/snarkjs file means something only with the other two (the zkey's coefficients must be the R1CS's,
    the witness must satisfy it): its meaning is the vector import-snarkjs makes (r, s from a fixed seed)."""
    def meaning(path: Path):
        files = {"r1cs": INTEROP / "circuit.r1cs", "wtns": INTEROP / "witness.wtns", "zkey": INTEROP / "circuit.zkey", kind: path}
        vector = import_snarkjs(files["r1cs"], [files["wtns"]], files["zkey"], "v", seed="fuzz")
        doc, _ = vector_document(vector, "v")
        return {k: v for k, v in doc.items() if k not in INFORMATIVE_FIELDS}

    return meaning


@functools.cache
def _interop_vk():
    return verifying_key_from_json(read_json_file(INTEROP / "verification_key.json"))


def _snarkjs_verdict(vk=None, proofs=None, public=None) -> bool:
    """Whether `verify` says valid for the interop key, proofs and public signals, any of them replaced."""
    vk = _interop_vk() if vk is None else vk
    proofs = _load_any_proofs(INTEROP / "proof.json") if proofs is None else proofs
    public = _load_public(INTEROP / "public.json") if public is None else public
    if len(proofs) != len(public):
        raise SizeMismatchError("public", f"{len(public)} signal lists for {len(proofs)} proofs")
    return all(verify(vk, x, proof) for x, proof in zip(public, proofs))


@functools.cache
def _seed_vector():
    return load_vector(VECTOR)


def _vector_verdict(proofs) -> bool:
    vector = _seed_vector()
    if len(proofs) != len(vector.witnesses):
        raise SizeMismatchError("proofs", f"{len(proofs)} proofs for {len(vector.witnesses)} circuits")
    return all(verify(vector.pk.vk, w.public_inputs, proof) for w, proof in zip(vector.witnesses, proofs))


def _with_verdict(read, judge):
    """Proofs, public signals and keys mean something only together: (the decoded value, whether `verify` then says
    valid). A changed value that `verify` calls INVALID (exit 1) is no lie; one it calls valid would be."""
    def meaning(path: Path):
        value = read(path)
        return value, judge(value)

    return meaning


READERS = {
    # name: (seed file, is JSON, reader: path -> meaning)
    "vector": (lambda: VECTOR, True, _vector_meaning),
    "proof-json": (
        lambda: _write_seed("proof.json", json.dumps(json.loads(VECTOR.read_text())["circuits"][0]["expected"]["proof"])),
        True,
        _with_verdict(_load_any_proofs, _vector_verdict),
    ),
    "snarkjs-proof": (lambda: INTEROP / "proof.json", True, _with_verdict(_load_any_proofs, lambda p: _snarkjs_verdict(proofs=p))),
    "snarkjs-public": (lambda: INTEROP / "public.json", True, _with_verdict(_load_public, lambda x: _snarkjs_verdict(public=x))),
    "snarkjs-vk": (
        lambda: INTEROP / "verification_key.json",
        True,
        _with_verdict(lambda p: verifying_key_from_json(read_json_file(p)), lambda vk: _snarkjs_verdict(vk=vk)),
    ),
    "bellman-proofs": (lambda: _seed_dir() / "bellman" / "proofs.bin", False, _with_verdict(_load_any_proofs, _vector_verdict)),
    "bellman-vk": (lambda: _seed_dir() / "bellman" / "groth16.vk", False, lambda p: _vk_meaning(parse_verifying_key(p.read_bytes()))),
    "bellman-params": (lambda: _seed_dir() / "bellman" / "groth16.params", False, _parameters_meaning),
    "zkey": (lambda: INTEROP / "circuit.zkey", False, _import_meaning("zkey")),
    "r1cs": (lambda: INTEROP / "circuit.r1cs", False, _import_meaning("r1cs")),
    "wtns": (lambda: INTEROP / "witness.wtns", False, _import_meaning("wtns")),
}


def _write_seed(name: str, text: str) -> Path:
    path = _seed_dir() / name
    path.write_text(text)
    return path


@functools.cache
def _seed(reader: str) -> tuple[bytes, object]:
    path = READERS[reader][0]()
    return path.read_bytes(), READERS[reader][2](path)


# ----------------------------------------------------------------------------------------------
# Mutations


def _json_paths(doc) -> list[tuple]:
    """Every path (tuple of keys / indices) into a JSON document, iteratively."""
    paths, stack = [], [((), doc)]
    while stack:
        path, value = stack.pop()
        paths.append(path)
        children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        stack.extend((path + (k,), v) for k, v in children)
    return paths


def _structure_mutation(data: bytes, draw) -> bytes:
    doc = json.loads(data)
    paths = [p for p in _json_paths(doc) if p]
    if not paths:
        return data
    path = draw(st.sampled_from(paths))
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    action = draw(st.sampled_from(["replace", "delete", "duplicate", "wrap", "swap"]))
    key = path[-1]
    if action == "replace":
        parent[key] = draw(st.sampled_from(HOSTILE_VALUES))
    elif action == "delete":
        del parent[key]
    elif action == "duplicate" and isinstance(parent, list):
        parent.insert(key, parent[key])
    elif action == "wrap":
        parent[key] = [parent[key]]
    elif action == "swap" and isinstance(parent, list) and len(parent) > 1:
        other = draw(st.integers(0, len(parent) - 1))
        parent[key], parent[other] = parent[other], parent[key]
    else:
        parent[key] = {"x": parent[key]}
    return json.dumps(doc, indent=draw(st.sampled_from([None, 1]))).encode()


@st.composite
def mutants(draw, reader: str) -> bytes:
    data, _ = _seed(reader)
    kinds = ["flip", "truncate", "insert"] + (["structure", "structure"] if READERS[reader][1] else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "flip":
        out = bytearray(data)
        for _ in range(draw(st.integers(1, 3))):
            i = draw(st.integers(0, len(out) - 1))
            out[i] ^= draw(st.integers(1, 255))
        return bytes(out)
    if kind == "truncate":
        return data[: draw(st.integers(0, len(data) - 1))]
    if kind == "insert":
        i = draw(st.integers(0, len(data)))
        snippet = draw(st.sampled_from(HOSTILE_SNIPPETS) | st.binary(min_size=1, max_size=8))
        return data[:i] + snippet + data[i:]
    return _structure_mutation(data, draw)


# ----------------------------------------------------------------------------------------------
# The property


def _comparable(meaning):
    """Decoded proofs and keys as canonical encodings (py_ecc's projective tuples have many forms)."""
    if isinstance(meaning, tuple) and len(meaning) == 2 and isinstance(meaning[1], bool):
        value = meaning[0]
        if hasattr(value, "gamma_g2"):
            value = _vk_meaning(value)
        elif isinstance(value, list) and value and hasattr(value[0], "a"):
            value = proofs_document(value)
        return value, meaning[1]
    return meaning


def _outcome(reader: str, data: bytes, folder: Path) -> tuple[str, object]:
    """('ok', meaning) or ('refused', message); any other exception propagates (a traceback: the test fails)."""
    seed_path = READERS[reader][0]()
    path = folder / seed_path.name
    path.write_bytes(data)
    try:
        return "ok", READERS[reader][2](path)
    except ToolkitError as exc:
        return "refused", str(exc)


def _assert_named_or_unchanged(reader: str, data: bytes) -> None:
    _, meaning = _seed(reader)
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        status, result = _outcome(reader, data, Path(folder))
        elapsed = time.perf_counter() - start
    assert elapsed < SECONDS_PER_MUTANT, f"{reader}: a mutant took {elapsed:.1f} s"
    if status == "ok":
        if isinstance(result, tuple) and result[1] is False:
            return  # `verify` exits 1: INVALID, no verdict lies
        assert _comparable(result) == _comparable(meaning), f"{reader}: a mutant was accepted with a different meaning: {data[:200]!r}"
    else:
        field, _, problem = result.partition(": ")
        assert field and problem, f"{reader}: refused without naming a field: {result!r}"


@pytest.mark.parametrize("reader", list(READERS))
def test_mutants_are_refused_by_name_or_mean_the_same(reader):
    @_fuzz_settings()
    @given(data=mutants(reader))
    def run(data):
        _assert_named_or_unchanged(reader, data)

    run()


def test_unmutated_seeds_are_accepted():
    for reader in READERS:
        data, meaning = _seed(reader)
        with tempfile.TemporaryDirectory() as folder:
            assert _outcome(reader, data, Path(folder)) == ("ok", meaning), reader


# ----------------------------------------------------------------------------------------------
# A sample through the command-line tools: no signal, no traceback, bounded memory and time


def _limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (SUBPROCESS_MEMORY_BYTES, SUBPROCESS_MEMORY_BYTES))


SUBPROCESS_SAMPLE = 4
"""Mutants per command in CI (each subprocess imports py_ecc: about a second)."""


@pytest.mark.parametrize("command", ["vectors-check", "verify-snarkjs", "verify-bellman"])
def test_cli_sample_never_crashes(command, tmp_path):
    rng = random.Random(f"{command}-{os.environ.get('HOSTILE_FUZZ_SEED', '1')}")
    count = SUBPROCESS_SAMPLE if not RANDOM else max(SUBPROCESS_SAMPLE, EXAMPLES // 50)
    seeds = {
        "vectors-check": VECTOR,
        "verify-snarkjs": INTEROP / "verification_key.json",
        "verify-bellman": READERS["bellman-proofs"][0](),
    }
    seed = seeds[command].read_bytes()
    for k in range(count):
        data = bytearray(seed)
        if k % 2:
            data = data[: rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 4)):
                data[rng.randrange(len(data))] ^= rng.randrange(1, 256)
        mutant = tmp_path / f"m{k}{seeds[command].suffix}"
        mutant.write_bytes(bytes(data))
        argv = {
            "vectors-check": ["vectors", "check", str(mutant), "--quiet"],
            "verify-snarkjs": ["reference", "verify", str(mutant), str(INTEROP / "proof.json"), "--public", str(INTEROP / "public.json"), "--quiet"],
            "verify-bellman": ["reference", "verify", str(VECTOR), str(mutant), "--quiet"],
        }[command]
        done = subprocess.run(
            [sys.executable, "-m", *argv], cwd=REPO, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, preexec_fn=_limit_memory
        )
        assert done.returncode in (0, 1, 2), (command, k, done.returncode, done.stderr[-800:])
        assert "Traceback" not in done.stderr, done.stderr[-800:]
        if done.returncode == 2:
            assert done.stderr.startswith("error: "), done.stderr[-800:]
