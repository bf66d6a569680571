"""A synthetic PoRep-shaped circuit and its witnesses, built as arrays (numpy or CuPy) up to 2^27 constraints.

vectors/generate.py builds small PoRep-like circuits with a Python loop per gate; this module builds a
circuit of the same flavour with array operations only (loops run over a handful of gate kinds and term
slots, never over constraints or variables), so that a Filecoin 32 GiB PoRep partition's size
(130,278,869 constraints, 2^27 domain) is reachable on a GPU. Every function takes the array module
``xp`` (numpy by default, or cupy) and uses only operations whose semantics agree in both, so that the
same seed gives bit-identical arrays on the CPU and on the device.

Why PoRep-shaped
----------------
A PoRep partition (SHA-256 / Poseidon gadgets over bits) has few public inputs, an aux witness that is
almost all 0 and 1, A dense over aux (~99.7%), B over about a quarter of aux (the boolean variables) and,
among the inputs, B holds only ONE. The default sizes are a real partition's, scaled to the domain:

    constraints m = floor(n * 130278869 / 2^27),  aux M = floor(n * 130169893 / 2^27),  public P = min(328, n // 8)

clamped so that m >= M >= 1 and m + 1 + P <= n; at log_n = 27 they are exactly the partition's numbers.
The witness is z = [1, x_1..x_P, y_0..y_{M-1}]; aux y_k has witness index Y = num_inputs + k.

Circuit (depends only on the seed and the sizes)
------------------------------------------------
Constraint k < M defines y_k; constraints M..m-1 are re-checks. Kind of aux k:

* pair p = k // 2, for full pairs only (2p + 1 < M), is a "mul pair" when draw("pair", p) < T(0.20):
  then k = 2p is MUL and k = 2p + 1 is COPY_PREV;
* every other k takes h = draw("kind", k): BOOL if h < T(0.3175), else MUL_LONE if h < T(0.32125),
  else BIG if h < T(0.3225), else NOT if h < T(0.5225), else COPY
  (cumulative probabilities 0.3175, +0.00375, +0.00125, +0.2, rest);
* k = 0 is forced to BOOL, so that there is always a boolean variable (when pair 0 is a mul pair, k = 1 stays
  COPY_PREV and copies that bit).

About 25.4% of aux are BOOL (the B density over aux) and about 0.3% (MUL_LONE outputs) appear in no A row.
BOOLS = the witness indices of the BOOL kinds, ascending, nb = len(BOOLS). Operands are picked from it:
w = BOOLS[draw("w", k) % nb], b1 = BOOLS[draw("b1", k) % nb], b2 = BOOLS[draw("b2", k) % nb];
for BIG: k_big = draw("k_big", k), or 1 where that is 0 (so 1 <= k_big < 2^64), and
x_i = 1 + draw("x", k) % P (a public input). ONE is index 0, "r-c" is the field element -c.

    kind        A                                  B          C          y_k
    BOOL        {Y:1}                              {Y:1}      {Y:1}      a random bit (witness)
    COPY        {Y:1, w:r-1}                       {ONE:1}    {}         z[w]
    NOT         {Y:1, w:1, ONE:r-1}                {ONE:1}    {}         1 - z[w]
    MUL         {b1:1}                             {b2:1}     {Y:1}      z[b1] z[b2]
    MUL_LONE    {b1:1}                             {b2:1}     {Y:1}      z[b1] z[b2]
    COPY_PREV   {Y:1, Y-1:r-1}                     {ONE:1}    {}         z[Y-1] (the MUL output before it)
    BIG         {Y:1, w:r-k_big, x_i:r-1}          {ONE:1}    {}         x_i + k_big z[w]
                (P = 0: {Y:1, w:r-k_big})                                (P = 0: k_big z[w])
    RECHECK j   {b:1}                              {b:1}      {b:1}      (constraint j in M..m-1,
                                                                          b = BOOLS[draw("recheck", j) % nb])

Terms are stored in the order listed; the variables of a row are distinct. As bellman does, one input row
per input i (ONE included) follows the constraints: A {i:1}, B {}, C {} (reference.r1cs.R1CS.rows).
The stacked CSR (``ArrayCircuit.row_start``, ``var``, ``coeff``) is exactly gpu.evaluate.build_csr's:
A's n rows (constraints, input rows, empty padding), then B's n rows, then C's n rows.

Witness (depends on the seed and the circuit index c)
-----------------------------------------------------
Public input x_i (i = 1..P) is four 64-bit words, least significant first,
word_j = draw(f"witness {c} public", 4 (i - 1) + j), the top word masked to 62 bits: x_i < 2^254 < r.
The bit of BOOL k is draw(f"witness {c} bit", k) & 1. The other values follow by gathers in dependency
order (bools; MUL / MUL_LONE; COPY_PREV; COPY, NOT, BIG). Every operand is a bit, so all aux values but
BIG's are 0 or 1, and BIG's x_i + k_big z[w] < 2^254 + 2^64 < r needs no reduction (64-bit limb add with
carry). The blinding scalars are r = derive_scalar(seed, f"circuit {c} r"), s = derive_scalar(seed,
f"circuit {c} s") (reference.setup), as vectors/generate.py does.

Hash (so that another language can reproduce every choice)
----------------------------------------------------------
All arithmetic is on unsigned 64-bit integers, wrapping mod 2^64.

    splitmix64(x):  x += 0x9E3779B97F4A7C15; z = x
                    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
                    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
                    return z ^ (z >> 31)
    key(seed, label) = first 8 bytes, read little-endian, of
                       SHA-256(UTF-8 of f"groth16-bls12-381-toolkit/porep-arrays/v1|{seed}|{label}")
    draw(label, i)   = splitmix64(key(seed, label) + i * 0x9E3779B97F4A7C15)

that is, draw(label, i) is output i + 1 of the standard SplitMix64 generator seeded with the key.
A probability p is the integer threshold T(p) = floor(p * 2^64), p taken as the exact decimal written
above, and an event "happens" when draw < T(p). Picking one of m items is items[draw % m].
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from gpu.limbs import FR_LIMBS
from reference.errors import InvalidInputError
from reference.field import R
from reference.prover import Witness
from reference.r1cs import R1CS, Density
from reference.setup import derive_scalar

HASH_DOMAIN = "groth16-bls12-381-toolkit/porep-arrays/v1"
"""Prefix of every stream key's SHA-256 input."""

GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
MASK32 = 0xFFFFFFFF
MASK62 = (1 << 62) - 1

POREP_LOG_N = 27
POREP_CONSTRAINTS = 130_278_869
POREP_AUX = 130_169_893
POREP_PUBLIC = 328
"""A Filecoin 32 GiB PoRep partition: constraints, aux variables, public inputs, domain 2^27."""

MAX_LOG_N = 31
"""var is int32 and num_variables <= n, so n = 2^31 is the largest domain whose indices fit."""

ONE = 0
"""Witness index of the constant ONE."""

BOOL, MUL_LONE, BIG, NOT, COPY, MUL, COPY_PREV = range(7)
KIND_NAMES = ("bool", "mul_lone", "big", "not", "copy", "mul", "copy_prev")
"""Kind codes of ``ArrayCircuit.kind`` (uint8), in this order."""

P_MUL_PAIR = "0.20"
"""Probability that a full pair is a mul pair. A mul pair covers two aux, so a fraction P_MUL_PAIR of aux is in mul
pairs and 1 - P_MUL_PAIR draws a single kind: with 0.20, BOOL is 0.8 * 0.3175 = 25.4% of aux and MUL_LONE (in no
A row) 0.8 * 0.00375 = 0.3%, the PoRep targets. (The brief that specified this module said 0.10, which gives
0.9 * 0.3175 = 28.6% BOOL, off its own 25.4% target; 0.20 meets both stated targets.)"""
SINGLE_KIND_CUMULATIVE = (("0.3175", BOOL), ("0.32125", MUL_LONE), ("0.3225", BIG), ("0.5225", NOT))
"""Cumulative probabilities of the single kinds (the rest is COPY), as exact decimals."""


def threshold(p: str | Fraction) -> int:
    """T(p) = floor(p * 2^64) for a probability p in [0, 1] given as an exact decimal string or Fraction."""
    value = Fraction(p) * (1 << 64)
    return min(int(value), (1 << 64) - 1)


# ---------------------------------------------------------------------------------------------- hashing


def stream_key(seed: str, label: str) -> int:
    """The 64-bit key of stream ``label``: the first 8 bytes (little-endian) of
    SHA-256(f"groth16-bls12-381-toolkit/porep-arrays/v1|{seed}|{label}")."""
    digest = hashlib.sha256(f"{HASH_DOMAIN}|{seed}|{label}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _u64(value: int, xp):
    """A 0-d uint64 array (never a numpy scalar: uint64 arithmetic on arrays wraps without warnings)."""
    return xp.asarray(value, dtype=xp.uint64)


def _splitmix64_inplace(x, xp):
    """splitmix64 of every element of the uint64 array x, in place (see the module docstring); returns x."""
    x += _u64(GOLDEN, xp)
    x ^= x >> _u64(30, xp)
    x *= _u64(MIX1, xp)
    x ^= x >> _u64(27, xp)
    x *= _u64(MIX2, xp)
    x ^= x >> _u64(31, xp)
    return x


def splitmix64(x, xp=np):
    """splitmix64(x) element-wise for an integer array x (a new uint64 array):
    x += 0x9E3779B97F4A7C15; z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
    z ^ (z >> 31), all mod 2^64."""
    return _splitmix64_inplace(xp.asarray(x).astype(xp.uint64, copy=True), xp)


def draw(key: int, index, xp=np):
    """uint64 array draw(key, i) = splitmix64(key + i * 0x9E3779B97F4A7C15 mod 2^64) for each i of the
    non-negative integer array ``index``: output i + 1 of SplitMix64 seeded with ``key``."""
    x = xp.asarray(index).astype(xp.uint64, copy=True)
    x *= _u64(GOLDEN, xp)
    x += _u64(key, xp)
    return _splitmix64_inplace(x, xp)


def _pick(items, key: int, index, xp):
    """items[draw(key, index) % len(items)] (items non-empty)."""
    h = draw(key, index, xp)
    h %= _u64(len(items), xp)
    picked = items[h.astype(xp.int64)]
    del h
    return picked


# ------------------------------------------------------------------------------------------- limb helpers


def _const_limbs(value: int, xp):
    """(8,) uint32 limbs of a constant 0 <= value < 2^256."""
    return xp.asarray([(value >> (32 * j)) & MASK32 for j in range(FR_LIMBS)], dtype=xp.uint32)


def r_minus_u64_limbs(k, xp=np):
    """(len(k), 8) uint32 plain little-endian limbs of r - k for a uint64 array k (0 <= k < 2^64), by a
    borrow chain over the 32-bit limbs (k = 0 gives r itself, which is not canonical: pass k >= 1)."""
    k = xp.asarray(k, dtype=xp.uint64)
    out = xp.empty((k.shape[0], FR_LIMBS), dtype=xp.uint32)
    borrow = xp.zeros(k.shape[0], dtype=xp.uint64)
    mask = _u64(MASK32, xp)
    for j in range(FR_LIMBS):
        r_j = _u64((R >> (32 * j)) & MASK32, xp)
        if j == 0:
            sub = k & mask
        elif j == 1:
            sub = k >> _u64(32, xp)
        else:
            sub = xp.zeros(k.shape[0], dtype=xp.uint64)
        sub += borrow
        out[:, j] = ((r_j - sub) & mask).astype(xp.uint32)
        borrow = (sub > r_j).astype(xp.uint64)
    return out


def add_u64_to_limbs(limbs, addend, xp=np):
    """(len, 8) uint32 limbs of value + addend for (len, 8) uint32 limbs and a uint64 array addend, by a carry
    chain over the 32-bit limbs. The caller guarantees that the sum is below 2^256 (no reduction mod r)."""
    limbs = xp.asarray(limbs, dtype=xp.uint32)
    addend = xp.asarray(addend, dtype=xp.uint64)
    out = xp.empty(limbs.shape, dtype=xp.uint32)
    mask = _u64(MASK32, xp)
    carry = xp.zeros(limbs.shape[0], dtype=xp.uint64)
    for j in range(FR_LIMBS):
        s = limbs[:, j].astype(xp.uint64)
        s += carry
        if j == 0:
            s += addend & mask
        elif j == 1:
            s += addend >> _u64(32, xp)
        out[:, j] = (s & mask).astype(xp.uint32)
        carry = s >> _u64(32, xp)
    return out


def _limbs_from_u64_words(words, xp):
    """(len, 8) uint32 limbs of (len, 4) uint64 little-endian words."""
    out = xp.empty((words.shape[0], FR_LIMBS), dtype=xp.uint32)
    out[:, 0::2] = (words & _u64(MASK32, xp)).astype(xp.uint32)
    out[:, 1::2] = (words >> _u64(32, xp)).astype(xp.uint32)
    return out


def _to_numpy(a):
    """A numpy copy/view of a numpy or CuPy array."""
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else np.asarray(a)


def _limbs_to_ints(limbs) -> list[int]:
    data = np.ascontiguousarray(_to_numpy(limbs), dtype="<u4").tobytes()
    return [int.from_bytes(data[i : i + 32], "little") for i in range(0, len(data), 32)]


# ------------------------------------------------------------------------------------------------ sizes


@dataclass(frozen=True)
class PorepSizes:
    """The sizes of a porep_arrays circuit (see porep_sizes for the defaults)."""

    log_n: int
    num_public: int
    num_aux: int
    num_constraints: int

    @property
    def n(self) -> int:
        return 1 << self.log_n

    @property
    def num_inputs(self) -> int:
        """ONE plus the public inputs."""
        return 1 + self.num_public

    @property
    def num_variables(self) -> int:
        return self.num_inputs + self.num_aux


def _require_int(name: str, value) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InvalidInputError(name, f"must be an integer, got {value!r}")


def porep_sizes(
    log_n: int, num_public: int | None = None, num_aux: int | None = None, num_constraints: int | None = None
) -> PorepSizes:
    """The sizes for domain n = 2^log_n: the given ones, checked, and defaults scaled from a 32 GiB PoRep
    partition for the others: P = min(328, n // 8), m = floor(n * 130278869 / 2^27), M = floor(n * 130169893 / 2^27),
    defaults clamped so that m >= M >= 1 and m + 1 + P <= n. The rows (m constraints + 1 + P input rows) must need
    exactly the domain 2^log_n. Raises InvalidInputError naming the parameter otherwise."""
    _require_int("log_n", log_n)
    if not 1 <= log_n <= MAX_LOG_N:
        raise InvalidInputError("log_n", f"must be in 1..{MAX_LOG_N}, got {log_n}")
    log_n = int(log_n)
    n = 1 << log_n
    for name, value in (("num_public", num_public), ("num_aux", num_aux), ("num_constraints", num_constraints)):
        if value is not None:
            _require_int(name, value)
    p = min(POREP_PUBLIC, n // 8) if num_public is None else int(num_public)
    if p < 0:
        raise InvalidInputError("num_public", f"must not be negative, got {p}")
    num_inputs = 1 + p
    room = n - num_inputs  # the most constraints that fit beside the input rows
    if room < 1:
        raise InvalidInputError("num_public", f"{p} public inputs leave no row for a constraint in a domain of 2^{log_n}")
    if num_constraints is not None and num_constraints < 1:
        raise InvalidInputError("num_constraints", f"must be at least 1, got {num_constraints}")
    if num_aux is None:
        m_aux = max(1, n * POREP_AUX >> POREP_LOG_N)
        m_aux = min(m_aux, room) if num_constraints is None else min(m_aux, room, int(num_constraints))
    else:
        m_aux = int(num_aux)
    if m_aux < 1:
        raise InvalidInputError("num_aux", f"must be at least 1 (aux 0 is a boolean), got {m_aux}")
    if m_aux > room:
        raise InvalidInputError(
            "num_aux", f"{m_aux} aux variables need {m_aux} constraints; with {num_inputs} input rows at most {room} fit in 2^{log_n}"
        )
    if num_constraints is None:
        m = min(max(n * POREP_CONSTRAINTS >> POREP_LOG_N, m_aux), room)
    else:
        m = int(num_constraints)
    if m < m_aux:
        raise InvalidInputError("num_constraints", f"{m} is fewer than num_aux = {m_aux} (each aux needs its constraint)")
    if m > room:
        raise InvalidInputError(
            "num_constraints", f"{m} constraints and {num_inputs} input rows exceed the domain's {n} rows (log_n = {log_n})"
        )
    rows = m + num_inputs
    needed = max(1, (rows - 1).bit_length())
    if needed != log_n:
        raise InvalidInputError(
            "num_constraints",
            f"{m} constraints and {num_inputs} input rows ({rows} rows) need a domain of 2^{needed}, not 2^{log_n}: "
            f"give more than {n // 2} rows",
        )
    return PorepSizes(log_n, p, m_aux, m)


# ---------------------------------------------------------------------------------------------- circuit


@dataclass(frozen=True, eq=False)
class ArrayCircuit:
    """A porep_arrays circuit as arrays (numpy or CuPy, the module ``xp``); see the module docstring.

    ``row_start`` (int64, 3n + 1), ``var`` (int32, one per term) and ``coeff`` (uint32 (terms, 8), plain
    little-endian limbs, canonical < r) are gpu.evaluate.build_csr's stacked CSR of A, B, C, input rows and
    padding included. ``a_aux``, ``b_input``, ``b_aux`` (bool) are reference.r1cs.R1CS.density()'s trackers.
    ``kind`` (uint8, num_aux) is each aux variable's kind code (KIND_NAMES)."""

    log_n: int
    num_inputs: int
    num_aux: int
    num_constraints: int
    seed: str
    row_start: object
    var: object
    coeff: object
    a_aux: object
    b_input: object
    b_aux: object
    kind: object
    xp: object = field(default=np, repr=False)

    @property
    def n(self) -> int:
        """Domain size 2^log_n."""
        return 1 << self.log_n

    @property
    def num_variables(self) -> int:
        """len(z) = num_inputs + num_aux."""
        return self.num_inputs + self.num_aux

    @property
    def num_rows(self) -> int:
        """Constraints plus one input row per input."""
        return self.num_constraints + self.num_inputs

    @property
    def num_terms(self) -> int:
        return int(self.var.shape[0])

    def kind_counts(self) -> dict[str, int]:
        """How many aux variables of each kind (KIND_NAMES), and how many RECHECK constraints ("recheck")."""
        xp = self.xp
        counts = {name: int(xp.count_nonzero(self.kind == code)) for code, name in enumerate(KIND_NAMES)}
        counts["recheck"] = self.num_constraints - self.num_aux
        return counts

    def summary(self) -> dict:
        """A report-friendly dict: sizes, kind counts, terms per matrix and the query densities (fractions)."""
        ends = [int(self.row_start[k * self.n]) for k in range(4)]
        xp = self.xp
        return {
            "log_n": self.log_n,
            "num_constraints": self.num_constraints,
            "num_inputs": self.num_inputs,
            "num_aux": self.num_aux,
            "kinds": self.kind_counts(),
            "terms": {"a": ends[1] - ends[0], "b": ends[2] - ends[1], "c": ends[3] - ends[2]},
            "a_aux_density": int(xp.count_nonzero(self.a_aux)) / self.num_aux,
            "b_aux_density": int(xp.count_nonzero(self.b_aux)) / self.num_aux,
            "b_input_count": int(xp.count_nonzero(self.b_input)),
        }

    def fingerprint(self) -> str:
        """SHA-256 (hex) over the sizes and the bytes of row_start, var, coeff and kind: equal on numpy and CuPy
        for the same parameters (copies everything to the host: mind the size)."""
        h = hashlib.sha256(f"{self.log_n}|{self.num_inputs}|{self.num_aux}|{self.num_constraints}".encode())
        for a in (self.row_start, self.var, self.coeff, self.kind):
            h.update(np.ascontiguousarray(_to_numpy(a)).tobytes())
        return h.hexdigest()

    def to_r1cs(self) -> R1CS:
        """The same circuit as a reference.r1cs.R1CS (the m constraint rows; R1CS.rows adds the input rows).
        A Python loop per term: small sizes only."""
        row_start = _to_numpy(self.row_start).tolist()
        variables = _to_numpy(self.var).tolist()
        coeffs = _limbs_to_ints(self.coeff)
        n = self.n

        def matrix(m: int):
            return tuple(
                tuple(zip(variables[row_start[m * n + j] : row_start[m * n + j + 1]], coeffs[row_start[m * n + j] : row_start[m * n + j + 1]]))
                for j in range(self.num_constraints)
            )

        return R1CS(num_inputs=self.num_inputs, num_aux=self.num_aux, a=matrix(0), b=matrix(1), c=matrix(2))

    def density(self) -> Density:
        """The density trackers as a reference.r1cs.Density (tuples of Python bools: small sizes)."""
        return Density(
            tuple(_to_numpy(self.a_aux).tolist()), tuple(_to_numpy(self.b_input).tolist()), tuple(_to_numpy(self.b_aux).tolist())
        )


def _aux_kinds(seed: str, num_aux: int, xp):
    """uint8 kind code per aux variable (module docstring: mul pairs, then single kinds, aux 0 forced BOOL)."""
    h = draw(stream_key(seed, "kind"), xp.arange(num_aux, dtype=xp.uint64), xp)
    kind = xp.zeros(num_aux, dtype=xp.uint8)  # BOOL = 0; each threshold passed adds one: BOOL..COPY
    for p, _ in SINGLE_KIND_CUMULATIVE:
        kind += (h >= _u64(threshold(p), xp)).astype(xp.uint8)
    del h
    num_pairs = num_aux // 2  # full pairs: 2p + 1 < num_aux
    if num_pairs:
        hp = draw(stream_key(seed, "pair"), xp.arange(num_pairs, dtype=xp.uint64), xp)
        pairs = xp.flatnonzero(hp < _u64(threshold(P_MUL_PAIR), xp))
        del hp
        kind[2 * pairs] = MUL
        kind[2 * pairs + 1] = COPY_PREV
        del pairs
    kind[0] = BOOL
    return kind


def porep_circuit(
    log_n: int,
    seed: str,
    num_public: int | None = None,
    num_aux: int | None = None,
    num_constraints: int | None = None,
    xp=np,
) -> ArrayCircuit:
    """Build the PoRep-shaped circuit of the module docstring for domain 2^log_n (sizes: porep_sizes) with array
    module ``xp`` (numpy or cupy): kinds, operands, the stacked CSR and the densities, by array operations only.
    The result depends only on (seed, sizes) and is identical for numpy and CuPy."""
    sizes = porep_sizes(log_n, num_public, num_aux, num_constraints)
    n, p, ni, m_aux, m = sizes.n, sizes.num_public, sizes.num_inputs, sizes.num_aux, sizes.num_constraints
    kind = _aux_kinds(seed, m_aux, xp)
    bools = (xp.flatnonzero(kind == BOOL) + ni).astype(xp.int32)  # witness indices, ascending
    per_kind = {code: xp.flatnonzero(kind == code) for code in range(len(KIND_NAMES))}  # aux indices k (int64)

    # Row lengths of the 3n stacked rows, then row_start = their prefix sums.
    a_len = {BOOL: 1, COPY: 2, NOT: 3, MUL: 1, MUL_LONE: 1, COPY_PREV: 2, BIG: 3 if p else 2}
    lengths = xp.zeros(3 * n, dtype=xp.uint8)
    for code, ks in per_kind.items():
        lengths[ks] = a_len[code]
    lengths[m_aux:m] = 1  # RECHECK
    lengths[m : m + ni] = 1  # input rows
    lengths[n : n + m] = 1  # B: every constraint has one term
    for code in (BOOL, MUL, MUL_LONE):
        lengths[2 * n + per_kind[code]] = 1
    lengths[2 * n + m_aux : 2 * n + m] = 1
    row_start = xp.zeros(3 * n + 1, dtype=xp.int64)
    xp.cumsum(lengths, dtype=xp.int64, out=row_start[1:])
    del lengths
    num_terms = int(row_start[3 * n])
    var = xp.empty(num_terms, dtype=xp.int32)
    coeff = xp.zeros((num_terms, FR_LIMBS), dtype=xp.uint32)
    minus_one = _const_limbs(R - 1, xp)

    def put(matrix: int, rows, slot: int, variables, value) -> None:
        """Term ``slot`` of rows ``rows`` of ``matrix``: variable ``variables``, coefficient 1, -1 or limb rows."""
        pos = row_start[matrix * n + rows] + slot
        var[pos] = variables
        if isinstance(value, int):
            if value == 1:
                coeff[pos, 0] = 1
            else:  # -1
                coeff[pos] = minus_one
        else:
            coeff[pos] = value
        del pos

    for code, ks in per_kind.items():
        if ks.shape[0] == 0:
            continue
        y = (ks + ni).astype(xp.int32)
        if code == BOOL:
            for matrix in range(3):
                put(matrix, ks, 0, y, 1)
        elif code in (MUL, MUL_LONE):
            put(0, ks, 0, _pick(bools, stream_key(seed, "b1"), ks, xp), 1)
            put(1, ks, 0, _pick(bools, stream_key(seed, "b2"), ks, xp), 1)
            put(2, ks, 0, y, 1)
        elif code == COPY_PREV:
            put(0, ks, 0, y, 1)
            put(0, ks, 1, y - 1, -1)
            put(1, ks, 0, ONE, 1)
        else:  # COPY, NOT, BIG: A {Y:1, w:...}
            put(0, ks, 0, y, 1)
            w = _pick(bools, stream_key(seed, "w"), ks, xp)
            if code == COPY:
                put(0, ks, 1, w, -1)
            elif code == NOT:
                put(0, ks, 1, w, 1)
                put(0, ks, 2, ONE, -1)
            else:  # BIG
                k_big = draw(stream_key(seed, "k_big"), ks, xp)
                k_big += (k_big == _u64(0, xp)).astype(xp.uint64)
                put(0, ks, 1, w, r_minus_u64_limbs(k_big, xp))
                del k_big
                if p:
                    x = draw(stream_key(seed, "x"), ks, xp)
                    x %= _u64(p, xp)
                    x += _u64(1, xp)
                    put(0, ks, 2, x.astype(xp.int32), -1)
                    del x
            del w
            put(1, ks, 0, ONE, 1)
        del y
    if m > m_aux:
        js = xp.arange(m_aux, m, dtype=xp.int64)
        b = _pick(bools, stream_key(seed, "recheck"), js, xp)
        for matrix in range(3):
            put(matrix, js, 0, b, 1)
        del js, b
    inputs = xp.arange(ni, dtype=xp.int64)
    put(0, m + inputs, 0, inputs.astype(xp.int32), 1)
    del inputs, per_kind, bools

    # Densities by marking the variable of every A (resp. B) term with a non-zero coefficient (FORMAT.md's
    # density rule; every coefficient drawn here is non-zero, the mask keeps the rule stated in one place).
    a_aux = xp.zeros(m_aux, dtype=xp.bool_)
    b_input = xp.zeros(ni, dtype=xp.bool_)
    b_aux = xp.zeros(m_aux, dtype=xp.bool_)
    a_end, b_end = int(row_start[n]), int(row_start[2 * n])
    keep = coeff[:a_end].any(axis=1)
    keep &= var[:a_end] >= ni
    a_vars = var[:a_end][keep]  # a copy: shift it in place
    del keep
    a_vars -= ni
    a_aux[a_vars] = True
    del a_vars
    b_vars = var[a_end:b_end][coeff[a_end:b_end].any(axis=1)]
    small = b_vars < ni
    b_input[b_vars[small]] = True
    b_aux[b_vars[~small] - ni] = True
    del b_vars, small
    return ArrayCircuit(
        log_n=sizes.log_n,
        num_inputs=ni,
        num_aux=m_aux,
        num_constraints=m,
        seed=seed,
        row_start=row_start,
        var=var,
        coeff=coeff,
        a_aux=a_aux,
        b_input=b_input,
        b_aux=b_aux,
        kind=kind,
        xp=xp,
    )


# -------------------------------------------------------------------------------------------- witnesses


def _fill_witness(circuit: ArrayCircuit, seed: str, c: int, z) -> None:
    """Write circuit c's witness limbs into z (num_variables, 8), operands read from the circuit's own rows."""
    xp = circuit.xp
    n, ni, p = circuit.n, circuit.num_inputs, circuit.num_inputs - 1
    row_start, var, coeff, kind = circuit.row_start, circuit.var, circuit.coeff, circuit.kind
    z[...] = 0
    z[ONE, 0] = 1
    if p:
        words = draw(stream_key(seed, f"witness {c} public"), xp.arange(4 * p, dtype=xp.uint64), xp).reshape(p, 4)
        words[:, 3] &= _u64(MASK62, xp)
        z[1:ni] = _limbs_from_u64_words(words, xp)
        del words

    def aux_of(code):
        return xp.flatnonzero(kind == code)

    ks = aux_of(BOOL)
    bits = draw(stream_key(seed, f"witness {c} bit"), ks, xp) & _u64(1, xp)
    z[ks + ni, 0] = bits.astype(xp.uint32)
    del ks, bits
    for code in (MUL, MUL_LONE):  # y = z[b1] z[b2]: both are bits, so only limb 0
        ks = aux_of(code)
        b1 = var[row_start[ks]]
        b2 = var[row_start[n + ks]]
        z[ks + ni, 0] = z[b1, 0] * z[b2, 0]
        del ks, b1, b2
    ks = aux_of(COPY_PREV)
    z[ks + ni] = z[ks + ni - 1]
    del ks
    ks = aux_of(COPY)
    z[ks + ni] = z[var[row_start[ks] + 1]]
    del ks
    ks = aux_of(NOT)  # 1 - bit = bit ^ 1
    z[ks + ni, 0] = z[var[row_start[ks] + 1], 0] ^ xp.asarray(1, dtype=xp.uint32)
    del ks
    ks = aux_of(BIG)
    if ks.shape[0]:
        pos = row_start[ks] + 1  # the term w: r - k_big, whose low 64 bits give k_big = (r - c) mod 2^64
        low = coeff[pos, 0].astype(xp.uint64) | (coeff[pos, 1].astype(xp.uint64) << _u64(32, xp))
        k_big = _u64(R & ((1 << 64) - 1), xp) - low
        del low
        k_big *= z[var[pos], 0].astype(xp.uint64)  # k_big z[w], z[w] a bit
        base = z[var[pos + 1]] if p else xp.zeros((ks.shape[0], FR_LIMBS), dtype=xp.uint32)
        z[ks + ni] = add_u64_to_limbs(base, k_big, xp)
        del pos, k_big, base
    del ks


def porep_witnesses(circuit: ArrayCircuit, seed: str, count: int, xp=np, first: int = 0):
    """(z, rs) for circuits c = first..first+count-1 (z[0] is circuit ``first``'s): z is a uint32 (count, num_variables, 8) array (module ``xp``, which must
    be the circuit's) of plain little-endian limbs of z = [1, public inputs, aux] (module docstring, "Witness");
    rs is a list of (r, s) = (derive_scalar(seed, f"circuit {c} r"), derive_scalar(seed, f"circuit {c} s")).
    Built one circuit at a time, so that the temporaries are one circuit's."""
    _require_int("count", count)
    if count < 1:
        raise InvalidInputError("count", f"must be at least 1, got {count}")
    if xp is not circuit.xp:
        raise InvalidInputError("xp", f"the circuit's arrays belong to {circuit.xp.__name__}, not {xp.__name__}")
    _require_int("first", first)
    if first < 0:
        raise InvalidInputError("first", f"must not be negative, got {first}")
    z = xp.empty((count, circuit.num_variables, FR_LIMBS), dtype=xp.uint32)
    for k in range(count):
        _fill_witness(circuit, seed, first + k, z[k])
    circuits = range(first, first + count)
    rs = [(derive_scalar(seed, f"circuit {c} r"), derive_scalar(seed, f"circuit {c} s")) for c in circuits]
    return z, rs


def witness_objects(z, rs, num_inputs: int) -> list[Witness]:
    """reference.prover.Witness per circuit from porep_witnesses' (z, rs): public inputs z[1:num_inputs], aux the rest
    (Python ints: small sizes)."""
    out = []
    for c, (r, s) in enumerate(rs):
        values = _limbs_to_ints(z[c])
        out.append(Witness(public_inputs=values[1:num_inputs], aux=values[num_inputs:], r=r, s=s))
    return out
