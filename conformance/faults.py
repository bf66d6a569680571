"""Planted faults: the reference prover with one deliberate bug, as a backend ("fault:<name>").

They prove the suite can fail: each fault is a bug a GPU implementation could plausibly have, and
tests/test_planted_faults.py checks that the suite fails on it and names the right phase. Faults
are applied without touching any file: a wrapper backend replaces one phase, or swaps one function
of reference/ for the duration of that phase (``patched``) and puts it back afterwards.

    python -m conformance run vectors/data/porep-log05.json --backends fault:ntt-drop-last-h   # exits 1

``repeated_bases_vector`` builds (in memory) the small vector some faults need: repeated key points
(so an MSM bucket receives the same point twice) and more than 64 points per query (so bitmaps
cross a 64-bit word boundary).
"""
import contextlib
import itertools
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable

from py_ecc.optimized_bls12_381 import G1, add

import reference.msm
from reference.assemble import assemble
from reference.batch_add import batch_add
from reference.curve import is_identity, neg
from reference.domain import BELLMAN, EvaluationDomain
from reference.field import R, inv
from reference.prep import WORD_BITS, Prep, QuerySplit, bitmap_bits, bitmap_bytes
from reference.prover import Witness, prove
from reference.r1cs import R1CS
from reference.setup import setup, trapdoor_from_seed
from vectors.format import CircuitCase, Vector

from .backends.base import Backend, ProverRun
from .backends.reference import ReferenceBackend, reference_phase
from .phases import Problem

FAULT_PREFIX = "fault:"

BELLMAN_COSET_GENERATOR = 7
WRONG_COSET_GENERATOR = 5
"""The snarkjs-style generator a kernel might hard-code instead of bellman's 7."""


@contextlib.contextmanager
def patched(module, attribute: str, replacement):
    """module.attribute = replacement for the block, restored afterwards (even on an exception)."""
    original = getattr(module, attribute)
    setattr(module, attribute, replacement)
    try:
        yield original
    finally:
        setattr(module, attribute, original)


# ---------------------------------------------------------------------------------------------
# ntt_h


def _times_powers(values: list[int], g: int) -> list[int]:
    """[v_i * g^i]: p(x) -> p(g x) on coefficients (the coset shift)."""
    out, power = [], 1
    for v in values:
        out.append(v * power % R)
        power = power * g % R
    return out


def ntt_h_mixed_coset_generators(problem: Problem, inputs: dict):
    """ntt_h whose coset NTT shifts by powers of 5 while the coset INTT and Z(g) still use 7.

    (A consistent change of g would give the same h: any coset where Z has no root works. The bug
    is one kernel with a different hard-coded generator.)"""
    domain: EvaluationDomain = problem.domain
    z_inverse = inv((pow(BELLMAN_COSET_GENERATOR, domain.n, R) - 1) % R)
    hs = []
    for evals in inputs["evaluate"]:
        a, b, c = (domain.ntt(_times_powers(domain.intt(list(v)), WRONG_COSET_GENERATOR)) for v in (evals.a, evals.b, evals.c))
        quotient = [(x * y - z) * z_inverse % R for x, y, z in zip(a, b, c)]
        hs.append(tuple(domain.coset_intt(quotient)[: domain.n - 1]))
    return hs


def ntt_h_drop_last_coefficient(problem: Problem, inputs: dict):
    """ntt_h that hands back n - 2 coefficients: h_{n-2} (the last kept one) is lost."""
    return [h[:-1] for h in reference_phase("ntt_h", problem, inputs)]


# ---------------------------------------------------------------------------------------------
# msm: digit recoding and bucket accumulation


def signed_digits_top_carry_dropped(scalar: int, c: int, field: str = "scalar") -> list[int]:
    """reference.msm.signed_digits, except that the carry out of the second-highest window is not
    added into the top window (an off-by-one in the window loop's bound)."""
    half, radix, mask = 1 << (c - 1), 1 << c, (1 << c) - 1
    windows = reference.msm.num_windows(c)
    digits, carry = [], 0
    for j in range(windows):
        v = ((scalar >> (c * j)) & mask) + (carry if j < windows - 1 else 0)
        carry = 1 if v > half else 0
        digits.append(v - radix if carry else v)
    return digits


def add_without_doubling(p, q):
    """P + Q by add-1998-cmo-2 (Cohen-Miyaji-Ono; Bernstein-Lange EFD, projective short Weierstrass)
    *without* its P == Q branch: for P == Q the formula yields (0 : 0 : 0), i.e. nothing is added."""
    if is_identity(p) or is_identity(q):
        return q if is_identity(p) else p
    x1, y1, z1 = p
    x2, y2, z2 = q
    y1z2, x1z2, z1z2 = y1 * z2, x1 * z2, z1 * z2
    u = y2 * z1 - y1z2
    v = x2 * z1 - x1z2
    uu, vv = u * u, v * v
    vvv = v * vv
    r = vv * x1z2
    a = uu * z1z2 - vvv - r - r
    return (v * a, u * (r - a) - vvv * y1z2, vvv * z1z2)


def window_sum_without_doubling(points, digits, identity):
    """reference.msm._window_sum with bucket accumulation by add_without_doubling."""
    buckets = {}
    for point, digit in zip(points, digits):
        if digit != 0:
            signed_point = point if digit > 0 else neg(point)
            buckets[abs(digit)] = add_without_doubling(buckets.get(abs(digit), identity), signed_point)
    return reference.msm._reduce_buckets(buckets, identity)


def _msm_with(attribute: str, replacement):
    """A fault in the shared MSM code: reference.msm.<attribute> replaced while the phase runs."""

    def compute(phase: str, problem: Problem, inputs: dict):
        with patched(reference.msm, attribute, replacement):
            return reference_phase(phase, problem, inputs)

    return compute


# ---------------------------------------------------------------------------------------------
# bitmaps at a 64-bit word boundary


def _word_boundary_slip(i: int) -> int:
    """The position a buggy reader uses for bit i: the first bit of every word after the first is
    taken from the last bit of the word before it."""
    return i - 1 if i >= WORD_BITS and i % WORD_BITS == 0 else i


def batch_add_word_boundary_slip(problem: Problem, inputs: dict):
    """batch_add reading each bitmap with _word_boundary_slip."""
    prep: Prep = inputs["prep"]

    def slipped(split: QuerySplit, count: int) -> QuerySplit:
        bitmaps = []
        for bitmap in split.bitmaps:
            bits = bitmap_bits(bitmap, count)
            bitmaps.append(bitmap_bytes([bits[_word_boundary_slip(i)] for i in range(count)]))
        return QuerySplit(split.split, split.tail_indices, tuple(bitmaps), split.tail_scalars)

    pk = problem.vector.pk
    lengths = {"l": len(pk.l), "a": len(pk.a), "b": len(pk.b_g1)}
    return batch_add(Prep(**{q: slipped(getattr(prep, q), lengths[q]) for q in lengths}), pk)


def prep_word_boundary_slip(problem: Problem, inputs: dict):
    """prep that packs every bitmap bit of the second and later words one position too high."""
    good: Prep = reference_phase("prep", problem, inputs)

    def slipped(split: QuerySplit) -> QuerySplit:
        bitmaps = []
        for bitmap in split.bitmaps:
            count = len(bitmap) * 8
            bits = bitmap_bits(bitmap, count)
            moved = [False] * count
            for i, bit in enumerate(bits):
                target = i + 1 if i >= WORD_BITS else i
                if bit and target < count:
                    moved[target] = True
            bitmaps.append(bitmap_bytes(moved))
        return QuerySplit(split.split, split.tail_indices, tuple(bitmaps), split.tail_scalars)

    return Prep(l=slipped(good.l), a=slipped(good.a), b=slipped(good.b))


# ---------------------------------------------------------------------------------------------
# assemble


def assemble_r_s_swapped(problem: Problem, inputs: dict):
    """assemble with the blinding scalars exchanged (still a valid proof: only the expected values see it)."""
    vk = problem.vector.pk.vk
    return [
        assemble(vk, inputs["msm_h"][c], inputs["batch_add"][c], inputs["tail_msm"][c], w.s, w.r)
        for c, w in enumerate(problem.vector.witnesses)
    ]


# ---------------------------------------------------------------------------------------------
# Non-determinism


def every_second_run_off_by_g1():
    """A phase function for msm_h whose every second call adds G1 to each result: the signature of a
    race (an unsynchronised bucket update), visible only when a phase is run more than once."""
    calls = itertools.count(1)

    def compute(phase: str, problem: Problem, inputs: dict):
        good = reference_phase(phase, problem, inputs)
        return good if next(calls) % 2 else [add(point, G1) for point in good]

    return compute


# ---------------------------------------------------------------------------------------------
# Registry


@dataclass(frozen=True)
class PlantedFault:
    """One deliberate bug: which phases it replaces and how."""

    name: str
    phases: tuple[str, ...]
    """The phases whose computation the fault replaces."""
    description: str
    compute: Callable
    """compute(phase, problem, inputs) -> the faulty output of that phase."""
    deterministic: bool = True
    """False for a fault that changes from run to run: the suite then runs the phase repeatedly."""

    @property
    def backend_name(self) -> str:
        return FAULT_PREFIX + self.name


def _fault(name, phases, description, compute, deterministic=True) -> PlantedFault:
    return PlantedFault(name, tuple(phases), description, compute, deterministic)


def _one_phase(compute):
    """compute(problem, inputs) as compute(phase, problem, inputs), for a fault in a single phase."""
    return lambda phase, problem, inputs: compute(problem, inputs)


FAULTS = {
    f.name: f
    for f in (
        _fault(
            "ntt-coset-generator-5", ["ntt_h"], "coset NTT shifts by powers of 5, coset INTT by powers of 7",
            _one_phase(ntt_h_mixed_coset_generators),
        ),
        _fault("ntt-drop-last-h", ["ntt_h"], "h loses its last coefficient h_{n-2}", _one_phase(ntt_h_drop_last_coefficient)),
        _fault(
            "msm-top-carry-dropped", ["msm_h", "tail_msm"], "signed-digit recoding drops the carry into the top window",
            _msm_with("signed_digits", signed_digits_top_carry_dropped),
        ),
        _fault(
            "msm-bucket-no-doubling", ["msm_h", "tail_msm"], "bucket accumulation has no doubling branch (P + P adds nothing)",
            _msm_with("_window_sum", window_sum_without_doubling),
        ),
        _fault(
            "batch-add-word-slip", ["batch_add"], "batch_add reads bit 64k of a bitmap from position 64k - 1",
            _one_phase(batch_add_word_boundary_slip),
        ),
        _fault(
            "prep-word-slip", ["prep"], "prep packs the bitmap bits of words 1, 2, ... one position too high",
            _one_phase(prep_word_boundary_slip),
        ),
        _fault("assemble-r-s-swapped", ["assemble"], "assemble exchanges the blinding scalars r and s", _one_phase(assemble_r_s_swapped)),
        _fault(
            "msm-racy", ["msm_h"], "every second run of msm_h adds G1 to the result (a race)",
            every_second_run_off_by_g1(), deterministic=False,
        ),
    )
}
"""Every planted fault by name."""


class FaultyBackend(ReferenceBackend):
    """The reference backend with one planted fault."""

    is_reference = False  # its outputs may differ from the reference's: the reference oracle judges it

    def __init__(self, fault: PlantedFault):
        self.fault = fault
        self.name = fault.backend_name
        self.deterministic = fault.deterministic

    def describe(self) -> dict:
        return {"implementation": f"reference/ with a planted fault: {self.fault.description}"}

    def run_prover(self, problem: Problem, run_index: int = 0) -> ProverRun:
        """The faulty phases composed as a prover (Backend's default), not the clean reference.prover."""
        return Backend.run_prover(self, problem, run_index)

    def compute(self, phase: str, problem: Problem, inputs: dict):
        if phase not in self.fault.phases:
            return super().compute(phase, problem, inputs)
        return self.fault.compute(phase, problem, inputs)


def faulty_backend(name: str) -> Backend:
    """The backend 'fault:<name>'; KeyError lists the known faults."""
    fault_name = name[len(FAULT_PREFIX):] if name.startswith(FAULT_PREFIX) else name
    if fault_name not in FAULTS:
        raise KeyError(f"unknown planted fault {fault_name!r}; known: {', '.join(FAULTS)}")
    return FaultyBackend(FAULTS[fault_name])


# ---------------------------------------------------------------------------------------------
# A vector with repeated bases and bitmaps longer than one word

REPEATED_BASES_AUX = 70
"""Aux variables: more than one 64-bit word of bitmap in L and A."""
REPEATED_BASES_SEED = "conformance-planted-faults"
REPEATED_VALUE = 0x1234_5678_9ABC_DEF0_0FED_CBA9_8765_4321
"""The (tail) value of the two aux variables that share one key point: not 0 or 1."""


def repeated_bases_vector() -> Vector:
    """A small vector (n = 2) with one constraint (sum_i c_i y_i) * ONE = sum_i c_i y_i over 70 aux
    variables y_i, c_i = i + 1 except c_1 = c_0, so y_0 and y_1 have the same L and A key points;
    y_0 = y_1 = REPEATED_VALUE (tail MSM: one bucket receives the same point twice), and the other
    y_i alternate 1, 0 (bitmap bits 63 and 64 differ in L and in A). Expected outputs: the reference prover."""
    m = REPEATED_BASES_AUX
    ones = 1  # the variable ONE; aux variable i is z[ones + i]
    row = tuple((ones + i, (i + 1) if i != 1 else 1) for i in range(m))
    r1cs = R1CS(num_inputs=ones, num_aux=m, a=(row,), b=(((0, 1),),), c=(row,))
    aux = [REPEATED_VALUE if i < 2 else (1 if i % 2 == 0 else 0) for i in range(m)]
    trapdoor = trapdoor_from_seed(REPEATED_BASES_SEED)
    pk = setup(r1cs, trapdoor)
    witness = Witness(public_inputs=[], aux=aux, r=0x5EED_0001, s=0x5EED_0002)
    outputs, _ = prove(r1cs, pk, [witness])
    return Vector(
        id="repeated-bases",
        comment="built by conformance.faults: repeated key points, bitmaps over two 64-bit words",
        flags=["repeated-bases"],
        convention=BELLMAN,
        r1cs=r1cs,
        pk=pk,
        circuits=[CircuitCase(witness=witness, expected=outputs.circuit(0))],
        trapdoor=trapdoor,
        expected_prep=outputs.prep,
    )


# ---------------------------------------------------------------------------------------------
# Faults in the GPU prover's own code: text patches applied to a temporary copy of gpu/

BUNDLED_SMALL = "porep-log05.json"
"""A bundled vector with split and unsplit queries, tails of several points and 32-point MSMs."""
REPEATED_BASES = "repeated-bases"
"""repeated_bases_vector() written to a file: one MSM bucket receives the same point twice; bitmaps of two words."""
MULTI_PASS = "generated:porep-log11"
"""A generated case (conformance/generated.py) whose NTT takes two passes: the bundled vectors' take one."""


@dataclass(frozen=True)
class SourceFault:
    """One deliberate bug in a gpu/ file: ``find`` (exactly once in the file) replaced by ``replace``."""

    name: str
    path: str
    """The file, relative to the repository root (under gpu/)."""
    find: str
    replace: str
    description: str
    phases: tuple[str, ...]
    """The phase the gate must name (one, but see the end): the first failing phase in the prover's phase order. For a fault in code every
    phase shares (field arithmetic), the first phase whose output differs: measured on the H200, evaluate's outputs
    on porep-log05 still come out right without the Montgomery product's final subtraction (its short rows end in
    a reducing addition), and ntt_h's long chains of products are the first to go wrong. Several only for a race in
    code phases share, which shows in any of them, by chance (gpu-msm-racy-bucket: msm_h, batch_add's patterns and
    tail_msm all count digits)."""
    vectors: tuple[str, ...]
    """Vector arguments that reach the faulty code (bundled file names, REPEATED_BASES, generated:<name>)."""


GPU_FAULTS = {
    f.name: f
    for f in (
        SourceFault(
            "gpu-assemble-r-s-swapped", "gpu/assemble.py",
            "rs = [(r % R, s % R) for r, s in randomness]", "rs = [(s % R, r % R) for r, s in randomness]",
            "device assembly exchanges the blinding scalars r and s", ("assemble",), (BUNDLED_SMALL,),
        ),
        SourceFault(
            "gpu-tail-index-off-by-one", "gpu/kernels/msm.cu",
            "unsigned int point = indices ? indices[k] : k;",
            "unsigned int point = indices ? indices[k > 0 ? k - 1 : 0] : k;",
            "the tail MSM reads its list of point indices one position early", ("tail_msm",), (BUNDLED_SMALL,),
        ),
        SourceFault(
            "gpu-bitmap-bits-reversed", "gpu/batch_add.py",
            "    return bitmaps.view(backend().xp.uint32)",
            "    xp = backend().xp\n    shifts = xp.arange(64, dtype=xp.uint64)\n"
            "    bits = (bitmaps[..., None] >> shifts) & xp.uint64(1)\n"
            "    return (bits[..., ::-1] << shifts).sum(axis=-1, dtype=xp.uint64).view(xp.uint32)",
            "batch addition reads each 64-bit bitmap word with its bits in reverse order", ("batch_add",),
            (BUNDLED_SMALL, REPEATED_BASES),
        ),
        SourceFault(
            "gpu-ntt-twiddle-off-by-one", "gpu/kernels/ntt.cu",
            "u64 e = ((u64)r * (j & ns_mask)) << exponent_shift;", "u64 e = ((u64)r * ((j & ns_mask) + 1)) << exponent_shift;",
            "the twiddles between two NTT passes are off by one power (multi-pass NTT only)", ("ntt_h",), (MULTI_PASS,),
        ),
        SourceFault(
            "gpu-ntt-half-table-sign", "gpu/kernels/ntt.cu",
            "return (e & half_n) ? w.neg() : w;", "return w;",
            "the last NTT pass's twiddles from the half table lose their sign above w^(n/2) (multi-pass NTT only)",
            ("ntt_h",), (MULTI_PASS,),
        ),
        SourceFault(
            "gpu-ntt-h-product-misread", "gpu/kernels/ntt.cu",
            "x = x * out_factor[o];", "x = x * out_factor[o ^ 1];",
            "ntt_h's product A B, fused into B's last NTT pass, reads A's neighbouring value", ("ntt_h",),
            (BUNDLED_SMALL,),
        ),
        SourceFault(
            "gpu-coset-table-shifted", "gpu/kernels/ntt.cu",
            "    out[i] = scale_factor(i, lo, hi, bits, SCALE_TABLE);",
            "    out[i] = scale_factor((i + 1) & (count - 1), lo, hi, bits, SCALE_TABLE);",  # inside the table: a wrong value, no stray read
            "ntt_h's coset table holds g^(i+1) / n at i (mod n): the inverse transforms' coset factors one power off", ("ntt_h",),
            (BUNDLED_SMALL,),
        ),
        SourceFault(
            "gpu-madd-no-doubling", "gpu/kernels/ec.cuh",
            "        if (R.is_zero()) p = xyzz_double_affine(q);\n        else p = xyzz_t<F>::identity();\n",
            "        p = xyzz_t<F>::identity();\n",
            "mixed addition (XYZZ + affine) without its doubling branch: P + P gives the identity", ("tail_msm",),
            (REPEATED_BASES,),
        ),
        SourceFault(
            "gpu-montgomery-no-final-subtraction", "gpu/kernels/field.cuh",
            "    fold_even_odd<N>(t, x, y);\n    reduce_once_cc<P>(out, t);\n}",
            "    fold_even_odd<N>(t, x, y);\n    for (int j = 0; j < N; ++j) out[j] = t[j];\n}",
            "the device Montgomery product skips its final conditional subtraction", ("ntt_h",), (BUNDLED_SMALL,),
        ),
        SourceFault(
            "gpu-msm-racy-bucket", "gpu/kernels/ec_kernels.cuh",
            "unsigned int rank = ec_atomic_add(counter, 1u);",
            "unsigned int rank = *counter;\n    *counter = rank + 1;  // racy: not atomic",
            "the MSM's bucket count takes a digit's rank (its slot) without an atomic (a racy bucket update)",
            ("msm_h", "batch_add", "tail_msm"), (BUNDLED_SMALL,),
        ),
    )
}
"""Every planted fault in the GPU prover's code, by name (python -m conformance faults --gpu-table)."""


def patch_text(text: str, fault: SourceFault) -> str:
    """``text`` with the fault's ``find`` replaced; ValueError unless ``find`` occurs exactly once."""
    count = text.count(fault.find)
    if count != 1:
        raise ValueError(f"{fault.name}: the text to patch occurs {count} times in {fault.path} (expected once)")
    return text.replace(fault.find, fault.replace)


@contextlib.contextmanager
def patched_gpu_tree(fault: SourceFault | None, root=None):
    """A temporary folder holding a copy of gpu/ with ``fault`` applied (None: a clean copy) and links to the
    repository's other packages; the repository is untouched. Run Python with this folder as the working directory
    (first on sys.path), and `import gpu` loads the copy, kernels included, the other packages the repository's own.
    The folder is the whole tree a run there imports, so a report's fingerprint of it (conformance/fingerprint.py
    imported_gpu_root) names the code that ran: the clean copy's equals the repository's, a fault's differs in the
    patched file only."""
    import shutil
    import tempfile
    from pathlib import Path

    from .sources import GPU_DIR_NAME, REPO_ROOT

    root = Path(root or REPO_ROOT)
    with tempfile.TemporaryDirectory(prefix="gpu-fault-") as folder:
        shutil.copytree(root / GPU_DIR_NAME, Path(folder) / GPU_DIR_NAME, ignore=shutil.ignore_patterns("__pycache__"))
        for package in root.iterdir():  # reference/, vectors/, conformance/: as they are
            if package.name != GPU_DIR_NAME and (package / "__init__.py").is_file():
                (Path(folder) / package.name).symlink_to(package.resolve(), target_is_directory=True)
        if fault is not None:
            target = Path(folder) / fault.path
            target.write_text(patch_text(target.read_text(), fault))
        yield Path(folder)


@dataclass
class FaultRow:
    """One line of the GPU fault table."""

    fault: str
    expected_phases: tuple[str, ...]
    """The phases the gate may name (SourceFault.phases); none for the clean copy, which must pass."""
    vectors: str
    caught: bool
    named: str | None
    """The first failing phase (prover phase order) of the GPU backend, or None."""
    detail: str
    crashed: bool = False
    """The run ended without a report (an exit status other than 0 or 1, or no report.json): never as expected."""

    @property
    def ok(self) -> bool:
        if self.crashed:
            return False
        return self.caught and self.named in self.expected_phases if self.expected_phases else not self.caught

    @property
    def expected(self) -> str:
        return " or ".join(self.expected_phases) or "-"


def _vector_arguments(vectors: tuple[str, ...], folder) -> list[str]:
    """Absolute paths (bundled names under vectors/data, the repeated-bases vector written into ``folder``)."""
    from vectors.bundled import DATA_DIR
    from vectors.format import write_vector

    arguments = []
    for name in vectors:
        if name == REPEATED_BASES:
            path = folder / "repeated-bases.json"
            if not path.exists():
                write_vector(repeated_bases_vector(), path)
            arguments.append(str(path))
        elif name.startswith("generated:"):
            arguments.append(name)
        else:
            arguments.append(str(DATA_DIR / name))
    return arguments


def _first_gpu_failure(document: dict) -> tuple[str | None, str]:
    """(phase, 'vector phase: location') of the GPU backend's first failing phase in the report, or (None, '')."""
    from reference.prover import PHASES

    from .compare import FAILED_RUN, Mismatch

    for vector in document.get("vectors", []):
        by_phase = {p["phase"]: p["backends"].get("gpu", {}) for p in vector["phases"]}
        for phase in PHASES:
            outcome = by_phase.get(phase, {})
            if outcome.get("status") in ("fail", "error"):
                mismatch = outcome.get("mismatch")
                where = Mismatch.from_json(mismatch).location() if mismatch else (outcome.get("message") or "")[:120]
                if mismatch and mismatch.get("expected") == FAILED_RUN:  # a run that raised: say what it raised
                    where += f": {str(mismatch.get('actual'))[:120]}"
                return phase, f"{vector['id']}: {where}"
    return None, ""


STDERR_FILE = "stderr.txt"
"""A fault run's standard error, kept beside its report (what it raised, and anything printed after the verdict)."""


def run_gpu_fault(fault: SourceFault | None, work, repeat: int = 2, say=lambda m: None) -> FaultRow:
    """The GPU conformance gate (prover mode, --require-gpu) from a copy of gpu/ with ``fault`` applied."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    from .sources import REPO_ROOT
    from .report import REPORT_FILES

    name, expected = (fault.name, fault.phases) if fault else ("none (clean copy)", ())
    vectors = fault.vectors if fault else (BUNDLED_SMALL, REPEATED_BASES, MULTI_PASS)
    work = Path(work).resolve()  # the run's working directory is the copy of gpu/, not this one
    arguments = _vector_arguments(vectors, work)
    report = work / name.split(" ")[0]
    for stale in (*REPORT_FILES, STDERR_FILE):  # what an earlier table run left must not stand for this one
        (report / stale).unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])))
    with patched_gpu_tree(fault) as folder:
        where = subprocess.run([sys.executable, "-c", "import gpu; print(gpu.__file__)"], cwd=folder, env=env,
                               capture_output=True, text=True).stdout.strip()
        if not where.startswith(str(folder)):
            raise RuntimeError(f"the patched copy of gpu/ is not the one imported ({where or 'import failed'})")
        command = [sys.executable, "-m", "conformance", "run", *arguments, "--backends", "gpu", "--mode", "prover",
                   "--require-gpu", "--repeat", str(repeat), "--report", str(report), "--quiet"]
        say(f"{name}: {' '.join(command[1:])}")
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    report.mkdir(parents=True, exist_ok=True)
    (report / STDERR_FILE).write_text(done.stderr)  # (the table shortens it; a maintainer reads it whole here)
    if done.returncode not in (0, 1) or not (report / "report.json").exists():  # crashed: no verdict either way
        return FaultRow(name, expected, ", ".join(vectors), False, None,
                        f"exit {done.returncode}, no verdict: {done.stderr.strip()[-200:]}", crashed=True)
    document = json.loads((report / "report.json").read_text())
    named, detail = _first_gpu_failure(document)
    return FaultRow(name, expected, ", ".join(vectors), done.returncode == 1, named, detail)


def gpu_fault_table(rows: list[FaultRow], device: str, measured: str = "") -> str:
    """The Markdown table: fault -> caught? -> phase named. ``measured``: when and at which code (the table's
    provenance, as every committed measurement carries)."""
    lines = [
        "# Planted faults in the GPU prover's code",
        "",
        f"Measured {measured + ' ' if measured else ''}with `python -m conformance faults --gpu-table` on {device}: "
        "each fault is a text patch applied to a",
        "temporary copy of gpu/ (conformance/faults.py GPU_FAULTS; the product code stays clean), then",
        "`python -m conformance run <vectors> --backends gpu --mode prover --require-gpu` runs from that copy.",
        "'phase named' is the GPU backend's first failing phase in the prover's phase order.",
        "",
        "| fault | vectors | caught? | phase named | expected | as expected | first difference |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(f"| {row.fault} | {row.vectors} | {'yes' if row.caught else 'no'} | {row.named or '-'} | "
                     f"{row.expected} | {'yes' if row.ok else '**NO**'} | {row.detail.replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def _device_name() -> str:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def write_gpu_fault_table(path, names: list[str] | None = None, say=lambda m: None, jobs: int = 1) -> bool:
    """Run the clean copy and every GPU fault (or those named), ``jobs`` of them at once (each its own process on the
    one GPU), write the table to ``path``; True if all as expected.

    The table is rewritten after each run, in the faults' order, saying which are still to come until the last is in,
    so a run cut off (a device call's time limit) keeps what it measured; each run's conformance report stays beside
    the table, in ``<table name>-reports/<fault>/`` (report.json, report.md, and the run's stderr.txt: the full texts
    the table shortens)."""
    from concurrent.futures import ThreadPoolExecutor, as_completed
    from pathlib import Path

    from .timing import code_label, commit, gpu_sources

    faults = [None] + [GPU_FAULTS[n] for n in (names or GPU_FAULTS)]
    reports = Path(path).with_name(Path(path).stem + "-reports")  # (run_gpu_fault makes it absolute for its run)
    reports.mkdir(parents=True, exist_ok=True)
    # the sources digest names the clean tree where the commit cannot (a device copy's stale git history)
    code = code_label({"commit": commit(), "gpu_sources": gpu_sources()})
    measured = f"{datetime.now(timezone.utc).date().isoformat()}, at {code},"
    device, rows = _device_name(), [None] * len(faults)
    pool = ThreadPoolExecutor(max_workers=jobs)  # threads: each run is a subprocess (run_gpu_fault)
    try:
        runs = {pool.submit(run_gpu_fault, fault, reports, say=say): k for k, fault in enumerate(faults)}
        for run in as_completed(runs):
            row = rows[runs[run]] = run.result()
            say(f"  {row.fault} -> caught: {row.caught}, named: {row.named}, as expected: {row.ok}")
            done = [r for r in rows if r is not None]
            table = gpu_fault_table(done, device, measured)
            if len(done) < len(faults):
                table += f"\n**Incomplete**: {len(done)} of {len(faults)} runs done; still to come: " + ", ".join(
                    (f.name if f else "none (clean copy)") for f, r in zip(faults, rows) if r is None) + ".\n"
            Path(path).write_text(table)
    finally:  # cut off (Ctrl-C, an error): the runs not started are dropped, not run after it
        pool.shutdown(wait=True, cancel_futures=True)
    return all(row.ok for row in rows)
