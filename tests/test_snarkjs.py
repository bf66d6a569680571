"""snarkjs / circom interoperability, against fixtures made by the pinned circom2 and snarkjs
(interop/snarkjs/regenerate.sh): the readers agree with snarkjs's own JSON decodings, the snarkjs
domain convention matches naive interpolation, proofs cross-verify both ways (`snarkjs groth16
verify` when node is available), and bad files fail with errors that name the section and field."""
import fcntl
import hashlib
import json
import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest
from conftest import iden3_rebuilt
from py_ecc.optimized_bls12_381 import FQ, FQ2, FQ12, multiply, normalize, pairing

from reference.__main__ import main as reference_main
from reference.cli import EXIT_BAD_INPUT, EXIT_INVALID_PROOF, EXIT_OK, run_main
from reference.domain import BELLMAN, SNARKJS, EvaluationDomain
from reference.errors import InvalidInputError, PointEncodingError, ScalarRangeError, SizeMismatchError, UnsatisfiedConstraintError
from reference.evaluate import evaluate
from reference.field import R
from reference.r1cs import witness_vector
from reference.setup import derive_scalar, h_query_scalars, setup, trapdoor_from_seed
from reference.verifier import verify
from vectors.__main__ import main as vectors_main
from vectors.bundled import SNARKJS_INTEROP
from vectors.format import document_bytes, load_vector, vector_document
from vectors.generate import synthetic_circuit, synthetic_witness
from vectors.snarkjs import (
    g1_from_zkey,
    g1_to_json,
    g1_to_zkey,
    g2_from_zkey,
    g2_to_zkey,
    gt_from_json,
    import_snarkjs,
    parse_r1cs,
    parse_wtns,
    parse_zkey,
    proof_from_json,
    proof_to_json,
    proving_key_from_zkey,
    public_from_json,
    snarkjs_pairing,
    split_witness,
    vector_from_key,
    verifying_key_from_json,
)

INTEROP = Path(__file__).resolve().parents[1] / "interop" / "snarkjs"
SNARKJS_VERSION = json.loads((INTEROP / "package.json").read_text())["dependencies"]["snarkjs"]
P = 0x1A0111EA397FE69A4B1BA7B6434BACD764774B84F38512BF6730D2A0F6B0F6241EABFFFEB153FFFFB9FEFFFFFFFFAAAB


def fixture(name: str) -> Path:
    return INTEROP / name


def fixture_json(name: str):
    return json.loads(fixture(name).read_text())


@pytest.fixture(scope="module")
def circuit():
    return parse_r1cs(fixture("circuit.r1cs").read_bytes(), "circuit.r1cs")


@pytest.fixture(scope="module")
def zkey():
    return parse_zkey(fixture("circuit.zkey").read_bytes(), "circuit.zkey")


@pytest.fixture(scope="module")
def vector():
    return load_vector(SNARKJS_INTEROP)


# ----------------------------------------------------------------------------------------------
# Readers against snarkjs's own decodings (snarkjs r1cs/wtns/zkey export json)


def test_r1cs_reader_matches_snarkjs_export(circuit):
    expected = fixture_json("circuit.r1cs.json")
    r1cs = circuit.r1cs
    assert (circuit.num_outputs, circuit.num_public_inputs, circuit.num_private_inputs) == (
        expected["nOutputs"], expected["nPubInputs"], expected["nPrvInputs"]
    )
    assert r1cs.num_variables == expected["nVars"] and r1cs.num_constraints == expected["nConstraints"]
    assert r1cs.num_inputs == 1 + expected["nOutputs"] + expected["nPubInputs"]
    for j, constraint in enumerate(expected["constraints"]):
        for name, lc in zip("abc", constraint):
            assert dict(getattr(r1cs, name)[j]) == {int(k): int(v) for k, v in lc.items()}, (j, name)


def test_wtns_reader_matches_snarkjs_export(circuit):
    z = parse_wtns(fixture("witness.wtns").read_bytes())
    assert z == [int(v) for v in fixture_json("witness.json")]
    # and the witness satisfies the circuit: every row's <A,z> <B,z> = <C,z>
    for a, b, c in zip(circuit.r1cs.a, circuit.r1cs.b, circuit.r1cs.c):
        dot = lambda row: sum(k * z[v] for v, k in row) % R  # noqa: E731
        assert dot(a) * dot(b) % R == dot(c)


def _py_ecc_g1(obj):
    return None if obj[2] == "0" else (int(obj[0]), int(obj[1]))


def _py_ecc_g2(obj):
    return None if obj[2] == ["0", "0"] else (tuple(int(c) for c in obj[0]), tuple(int(c) for c in obj[1]))


def _affine_g1(point):
    if point[2] == FQ.zero():
        return None
    x, y = normalize(point)
    return (x.n, y.n)


def _affine_g2(point):
    if point[2] == FQ2.zero():
        return None
    x, y = normalize(point)
    return (tuple(int(c) for c in x.coeffs), tuple(int(c) for c in y.coeffs))


def test_zkey_reader_matches_snarkjs_export(zkey):
    expected = fixture_json("circuit.zkey.json")
    assert (zkey.num_vars, zkey.num_public, zkey.domain_size) == (expected["nVars"], expected["nPublic"], expected["domainSize"])
    for name, key in (("alpha_g1", "vk_alpha_1"), ("beta_g1", "vk_beta_1"), ("delta_g1", "vk_delta_1")):
        assert _affine_g1(getattr(zkey.vk, name)) == _py_ecc_g1(expected[key]), name
    for name, key in (("beta_g2", "vk_beta_2"), ("gamma_g2", "vk_gamma_2"), ("delta_g2", "vk_delta_2")):
        assert _affine_g2(getattr(zkey.vk, name)) == _py_ecc_g2(expected[key]), name
    assert [_affine_g1(p) for p in zkey.vk.ic] == [_py_ecc_g1(p) for p in expected["IC"]]
    assert [_affine_g1(p) for p in zkey.a] == [_py_ecc_g1(p) for p in expected["A"]]
    assert [_affine_g1(p) for p in zkey.b_g1] == [_py_ecc_g1(p) for p in expected["B1"]]
    assert [_affine_g2(p) for p in zkey.b_g2] == [_py_ecc_g2(p) for p in expected["B2"]]
    # snarkjs's C list is indexed by wire (the public wires are empty), ours starts at the first private wire
    assert [_affine_g1(p) for p in zkey.c] == [_py_ecc_g1(p) for p in expected["C"] if p is not None]
    assert [_affine_g1(p) for p in zkey.h] == [_py_ecc_g1(p) for p in expected["hExps"]]
    # section 4 stores c * R^2 mod r; snarkjs's export divides it back (readFr2)
    assert sorted(zkey.coefficients) == sorted((c["matrix"], c["constraint"], c["signal"], int(c["value"])) for c in expected["ccoefs"])
    assert None in [_py_ecc_g2(p) for p in expected["B2"]]  # the all-zero identity encoding was met


def test_zkey_point_encoding_round_trips_byte_for_byte():
    raw = fixture("circuit.zkey").read_bytes()
    sections = _sections(raw)
    for kind, size, decode, encode in ((5, 96, g1_from_zkey, g1_to_zkey), (7, 192, g2_from_zkey, g2_to_zkey)):
        start, length = sections[kind]
        chunks = [raw[i : i + size] for i in range(start, start + length, size)]
        assert any(not any(c) for c in chunks) and any(any(c) for c in chunks)  # identities and points both met
        assert [encode(decode(c, "point")) for c in chunks] == chunks


def test_zkey_coefficients_are_the_r1cs_rows(circuit, zkey):
    """The key's A and B coefficients are the circuit's rows plus one `A = 1 on signal s` row per public signal."""
    pk = proving_key_from_zkey(zkey, circuit.r1cs)
    rows = circuit.r1cs.num_constraints
    input_rows = [(0, rows + s, s, 1) for s in range(circuit.r1cs.num_inputs)]
    assert set(input_rows) <= set(zkey.coefficients)
    assert len(pk.a) == circuit.r1cs.num_inputs + sum(pk.density.a_aux)
    assert len(pk.h) == circuit.r1cs.n == zkey.domain_size


# ----------------------------------------------------------------------------------------------
# The snarkjs convention against naive arithmetic


def _naive_interpolate_at(points: list[int], values: list[int], x: int) -> int:
    """sum_j v_j prod_{m != j} (x - x_m)/(x_j - x_m): Lagrange interpolation, written out."""
    total = 0
    for j, (xj, vj) in enumerate(zip(points, values)):
        num, den = 1, 1
        for m, xm in enumerate(points):
            if m != j:
                num, den = num * (x - xm) % R, den * (xj - xm) % R
        total = (total + vj * num * pow(den, -1, R)) % R
    return total


def _roots(count: int) -> list[int]:
    """The count-th roots of unity from 5, as snarkjs (ffjavascript Fr.w) takes them: w = 5^((r-1)/count)."""
    w = pow(5, (R - 1) // count, R)
    return [pow(w, j, R) for j in range(count)]


def test_snarkjs_domain_uses_roots_from_5_and_the_odd_coset():
    for log_n in (1, 4, 9):
        d = EvaluationDomain(log_n, SNARKJS)
        n = d.n
        assert d.omega == _roots(n)[1] and pow(d.omega, n // 2, R) == R - 1
        assert d.g == _roots(2 * n)[1] and d.z_at(d.g) == R - 2  # omega_2n^n = -1, so Z = -2 there
    d = EvaluationDomain(3, SNARKJS)
    coeffs = list(range(3, 3 + d.n))
    odd_points = _roots(2 * d.n)[1::2]
    assert d.coset_ntt(coeffs) == [sum(c * pow(x, i, R) for i, c in enumerate(coeffs)) % R for x in odd_points]


def test_snarkjs_h_query_is_the_odd_lagrange_basis_of_the_2n_roots():
    d = EvaluationDomain(3, SNARKJS)
    tau = 0x1234567890ABCDEF
    roots_2n = _roots(2 * d.n)
    expected = [_naive_interpolate_at(roots_2n, [int(k == j) for k in range(2 * d.n)], tau) for j in range(1, 2 * d.n, 2)]
    assert h_query_scalars(d, tau) == expected


def test_imported_ntt_h_is_ab_minus_c_on_the_odd_points(vector):
    n = vector.r1cs.n
    roots_n, odd_points = _roots(n), _roots(2 * n)[1::2]
    for case in vector.circuits:
        e = case.expected.evaluate
        a, b, c = ([_naive_interpolate_at(roots_n, list(values), x) for x in odd_points] for values in (e.a, e.b, e.c))
        assert list(case.expected.ntt_h) == [(ai * bi - ci) % R for ai, bi, ci in zip(a, b, c)]
        assert len(case.expected.ntt_h) == len(vector.pk.h) == n


def test_snarkjs_evaluate_sets_c_to_a_times_b_after_checking_c(circuit):
    r1cs = circuit.r1cs
    z = parse_wtns(fixture("witness.wtns").read_bytes())
    by_rows, by_product = evaluate(r1cs, z, BELLMAN), evaluate(r1cs, z, SNARKJS)
    assert by_product.c == tuple(x * y % R for x, y in zip(by_rows.a, by_rows.b)) == by_rows.c
    bad = list(z)
    bad[-1] = (bad[-1] + 1) % R
    with pytest.raises(UnsatisfiedConstraintError, match="constraint"):
        evaluate(r1cs, bad, SNARKJS)


def test_test_only_setup_in_the_snarkjs_convention_proves_and_round_trips(tmp_path):
    r1cs, gates = synthetic_circuit(4, "snarkjs-convention")
    witnesses = [synthetic_witness(r1cs, gates, "snarkjs-convention", c) for c in range(2)]
    trapdoor = trapdoor_from_seed("snarkjs-convention")
    pk = setup(r1cs, trapdoor, SNARKJS)
    v = vector_from_key(r1cs, pk, witnesses, SNARKJS, "t", "t", [], {}, trapdoor=trapdoor)
    for case in v.circuits:
        assert verify(pk.vk, case.witness.public_inputs, case.expected.assemble)
        # sum_j h_j H_j = (a(tau) b(tau) - c(tau)) / delta, checked on discrete logs with naive interpolation
        z = witness_vector(r1cs, case.witness.public_inputs, case.witness.aux)
        e = evaluate(r1cs, z)
        roots = _roots(r1cs.n)
        a, b, c = (_naive_interpolate_at(roots, list(vals), trapdoor.tau) for vals in (e.a, e.b, e.c))
        h_scalars = h_query_scalars(EvaluationDomain(r1cs.log_n, SNARKJS), trapdoor.tau)
        assert sum(h * s for h, s in zip(case.expected.ntt_h, h_scalars)) % R == (a * b - c) % R
    doc, _ = vector_document(v, "t")
    assert doc["domain"] == {"convention": "snarkjs", "log_n": 4, "root_generator": 5, "coset_generator": "omega_2n"}
    path = tmp_path / "t.json"
    path.write_bytes(document_bytes(doc))
    assert document_bytes(vector_document(load_vector(path), "t")[0]) == path.read_bytes()


# ----------------------------------------------------------------------------------------------
# Import, prove, verify


def test_reference_proofs_verify_with_snarkjs_verification_key(vector):
    vk = verifying_key_from_json(fixture_json("verification_key.json"))
    for case in vector.circuits:
        assert verify(vk, case.witness.public_inputs, case.expected.assemble)
    case = vector.circuits[0]
    assert not verify(vk, vector.circuits[1].witness.public_inputs, case.expected.assemble)


def test_our_verifier_accepts_snarkjs_own_proof(vector):
    vk = verifying_key_from_json(fixture_json("verification_key.json"))
    proof = proof_from_json(fixture_json("proof.json"))
    public = public_from_json(fixture_json("public.json"))
    assert public == vector.circuits[0].witness.public_inputs  # snarkjs's public signals: outputs, then public inputs
    assert verify(vk, public, proof)
    assert verify(vector.pk.vk, public, proof)  # the vector's key is the zkey's
    assert not verify(vk, [public[0] + 1, *public[1:]], proof)


# ----------------------------------------------------------------------------------------------
# vk_alphabeta_12: e(alpha, beta) in snarkjs's pairing and Fp12 tower, checked against snarkjs's own file


def _snarkjs_fp12(element: FQ12) -> list:
    """gt_from_json's inverse, written from py_ecc's side: the coefficients c_k and c_(k+6) of w^k (k < 6) are the Fp2
    value (c_k + c_(k+6)) + c_(k+6)·u at v^(k // 2)·w^(k % 2), since w⁶ = u + 1 and w² = v."""
    c = [int(x) for x in element.coeffs]
    return [[[str((c[2 * i + j] + c[2 * i + j + 6]) % P), str(c[2 * i + j + 6])] for i in range(3)] for j in range(2)]


def test_vk_alphabeta_12_is_snarkjs_own_pairing_value():
    doc = fixture_json("verification_key.json")
    vk = verifying_key_from_json(doc)
    stated = gt_from_json(doc["vk_alphabeta_12"], "vk_alphabeta_12")
    assert stated == snarkjs_pairing(vk.alpha_g1, vk.beta_g2)
    assert stated != pairing(vk.beta_g2, vk.alpha_g1)  # snarkjs's pairing is not py_ecc's
    assert stated ** R == FQ12.one()  # in GT
    assert _snarkjs_fp12(stated) == doc["vk_alphabeta_12"]
    without = {k: v for k, v in doc.items() if k != "vk_alphabeta_12"}
    assert verifying_key_from_json(without) == vk  # checked where given, as nPublic


def _alphabeta_changes():
    def py_ecc_value(doc, vk):
        return {**doc, "vk_alphabeta_12": _snarkjs_fp12(pairing(vk.beta_g2, vk.alpha_g1))}

    def halves_swapped(doc, vk):
        return {**doc, "vk_alphabeta_12": doc["vk_alphabeta_12"][::-1]}

    def other_alpha(doc, vk):
        return {**doc, "vk_alpha_1": g1_to_json(multiply(vk.alpha_g1, 2))}

    def coefficient_p(doc, vk):
        ab = json.loads(json.dumps(doc["vk_alphabeta_12"]))
        ab[1][2][0] = str(P)
        return {**doc, "vk_alphabeta_12": ab}

    def short_fp6(doc, vk):
        ab = doc["vk_alphabeta_12"]
        return {**doc, "vk_alphabeta_12": [ab[0], ab[1][:2]]}

    mismatch = ("verification_key.vk_alphabeta_12", "is not e(vk_alpha_1, vk_beta_2) as snarkjs computes it")
    return [
        pytest.param(py_ecc_value, *mismatch, id="py_ecc-pairing"),
        pytest.param(halves_swapped, *mismatch, id="halves-swapped"),
        pytest.param(other_alpha, *mismatch, id="alpha-doubled"),
        pytest.param(coefficient_p, "verification_key.vk_alphabeta_12[1][2][0]", f"{P} is not < p", id="coefficient-p"),
        pytest.param(short_fp6, "verification_key.vk_alphabeta_12[1]", "expected a list of 3 entries", id="short-fp6"),
    ]


@pytest.mark.parametrize("change, field, problem", _alphabeta_changes())
def test_a_vk_alphabeta_12_that_is_not_e_alpha_beta_is_refused(change, field, problem):
    doc = fixture_json("verification_key.json")
    with pytest.raises(InvalidInputError) as refused:
        verifying_key_from_json(change(doc, verifying_key_from_json(doc)))
    assert str(refused.value) == f"{field}: {problem}"


def test_verify_cli_refuses_a_key_whose_vk_alphabeta_12_is_wrong(tmp_path, capsys):
    doc = fixture_json("verification_key.json")
    key = tmp_path / "vk.json"
    key.write_text(json.dumps({**doc, "vk_alphabeta_12": doc["vk_alphabeta_12"][::-1]}))
    args = ["verify", str(key), str(fixture("proof.json")), "--public", str(fixture("public.json"))]
    assert run_main(reference_main, args) == EXIT_BAD_INPUT
    assert capsys.readouterr() == ("", "error: vk.json.vk_alphabeta_12: is not e(vk_alpha_1, vk_beta_2) as snarkjs computes it\n")


def test_prove_and_verify_cli_in_snarkjs_format(vector, tmp_path, capsys):
    proof, public = tmp_path / "proof.json", tmp_path / "public.json"
    args = ["prove", str(SNARKJS_INTEROP), "--format", "snarkjs", "--out", str(proof), "--public", str(public), "--quiet"]
    assert reference_main(args) == EXIT_OK
    proofs = json.loads(proof.read_text())
    assert proofs == [proof_to_json(case.expected.assemble) for case in vector.circuits]
    assert proofs[0]["pi_b"][2] == ["1", "0"] and proofs[0]["curve"] == "bls12381"
    assert json.loads(public.read_text()) == [[str(x) for x in case.witness.public_inputs] for case in vector.circuits]
    key = str(fixture("verification_key.json"))
    assert run_main(reference_main, ["verify", key, str(proof), "--public", str(public), "--quiet"]) == EXIT_OK
    assert capsys.readouterr().out == "circuit 0: valid\ncircuit 1: valid\n"
    one_proof, other_public = tmp_path / "one.json", tmp_path / "other.json"
    one_proof.write_text(json.dumps(proofs[0]))
    other_public.write_text(json.dumps(json.loads(public.read_text())[1]))
    assert run_main(reference_main, ["verify", key, str(one_proof), "--public", str(other_public), "--quiet"]) == EXIT_INVALID_PROOF
    capsys.readouterr()
    assert run_main(reference_main, ["verify", key, str(fixture("proof.json")), "--quiet"]) == EXIT_BAD_INPUT
    assert "error: --public: is required with a snarkjs verification key" in capsys.readouterr().err
    assert run_main(reference_main, ["prove", str(SNARKJS_INTEROP), "--public", str(public), "--quiet"]) == EXIT_BAD_INPUT
    assert "error: --public: goes with --format snarkjs" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------
# snarkjs itself (node): verifies the reference's proofs


def _install_snarkjs(cache: Path) -> Path:
    """npm ci the pinned package-lock.json into ``cache`` once (a file lock keeps xdist workers from racing)."""
    cli = cache / "node_modules" / ".bin" / "snarkjs"
    cache.mkdir(parents=True, exist_ok=True)
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not cli.exists():
            for name in ("package.json", "package-lock.json"):
                shutil.copy(fixture(name), cache / name)
            done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=cache, capture_output=True, text=True)
            if done.returncode != 0:
                pytest.skip(f"npm ci of snarkjs {SNARKJS_VERSION} failed (offline?): {done.stderr.strip()[-300:]}")
    return cli


@pytest.fixture(scope="module")
def snarkjs_cli():
    """The pinned snarkjs CLI: interop/snarkjs/node_modules (npm ci there, as .ci/run does), else a cache
    installed on first use; skipped, with the reason, where node or npm is missing."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: `snarkjs groth16 verify` cannot run")
    local = INTEROP / "node_modules" / ".bin" / "snarkjs"
    if local.exists():
        return local
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed: cannot install the pinned snarkjs")
    default_cache = Path.home() / ".cache" / "groth16-toolkit" / f"snarkjs-{SNARKJS_VERSION}"
    return _install_snarkjs(Path(os.environ.get("GROTH16_TOOLKIT_SNARKJS_CACHE", default_cache)))


def _snarkjs_verify(cli: Path, tmp_path: Path, proof: dict, public: list) -> subprocess.CompletedProcess:
    (tmp_path / "proof.json").write_text(json.dumps(proof))
    (tmp_path / "public.json").write_text(json.dumps(public))
    command = ["node", str(cli), "groth16", "verify", str(fixture("verification_key.json")), str(tmp_path / "public.json"), str(tmp_path / "proof.json")]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_snarkjs_verifies_the_reference_proofs(snarkjs_cli, vector, tmp_path):
    for case in vector.circuits:
        done = _snarkjs_verify(snarkjs_cli, tmp_path, proof_to_json(case.expected.assemble), [str(x) for x in case.witness.public_inputs])
        assert done.returncode == 0 and "OK!" in done.stdout, done.stdout + done.stderr
    wrong = [str(x) for x in vector.circuits[1].witness.public_inputs]
    done = _snarkjs_verify(snarkjs_cli, tmp_path, proof_to_json(vector.circuits[0].expected.assemble), wrong)
    assert done.returncode != 0 and "Invalid proof" in done.stdout + done.stderr


# ----------------------------------------------------------------------------------------------
# Bad files


def _sections(raw: bytes) -> dict[int, tuple[int, int]]:
    """{section type: (payload offset, size)} of an iden3 binary file, parsed independently with struct."""
    count = struct.unpack_from("<I", raw, 8)[0]
    pos, out = 12, {}
    for _ in range(count):
        kind, size = struct.unpack_from("<IQ", raw, pos)
        out[kind] = (pos + 12, size)
        pos += 12 + size
    return out


def _patched(raw: bytes, offset: int, value: bytes) -> bytes:
    return raw[:offset] + value + raw[offset + len(value) :]


def _zkey_header_u32(raw: bytes, index: int) -> int:
    """Offset of u32 number ``index`` (0 nVars, 1 nPublic, 2 domainSize) in the zkey's groth16 header."""
    return _sections(raw)[2][0] + 4 + 48 + 4 + 32 + 4 * index


ZKEY_L_SECTION = 8
ZKEY_G1_BYTES = 96


def test_import_refuses_a_zkey_whose_proving_key_does_not_fit_the_verifying_key(tmp_path, capsys):
    """A zkey with its first L point (section 8) made the identity: the proof computed with it does not verify, and
    `check` would have recomputed it bit for bit; the importer runs the pairing check on what it made, writes nothing."""
    raw = fixture("circuit.zkey").read_bytes()
    zkey = tmp_path / "foreign-l.zkey"
    zkey.write_bytes(_patched(raw, _sections(raw)[ZKEY_L_SECTION][0], bytes(ZKEY_G1_BYTES)))
    out = tmp_path / "v.json"
    args = ["import-snarkjs", str(fixture("circuit.r1cs")), str(fixture("witness.wtns")), str(zkey), "--out", str(out), "--quiet"]
    assert run_main(vectors_main, args) == EXIT_BAD_INPUT
    assert capsys.readouterr().err == ("error: foreign-l.zkey: the proving key does not belong to its verifying key: "
                                       "circuit 0, pairing check: the proof computed with it does not verify\n")
    assert not out.exists()


def test_wrong_magic_is_refused():
    with pytest.raises(InvalidInputError, match=r"circuit\.zkey\.magic: is b'zkey'; a \.r1cs file starts with b'r1cs'"):
        parse_r1cs(fixture("circuit.zkey").read_bytes(), "circuit.zkey")
    with pytest.raises(InvalidInputError, match="magic"):
        parse_zkey(fixture("witness.wtns").read_bytes(), "witness.wtns")


@pytest.mark.parametrize(
    "name, parse, field",
    [
        ("circuit-bn128.zkey", parse_zkey, r"section 2 \(groth16 header\)\.q: is the bn128 \(BN254\) base field q"),
        ("circuit-bn128.r1cs", parse_r1cs, r"section 1 \(header\)\.prime: is the bn128 \(BN254\) scalar field r"),
        ("witness-bn128.wtns", parse_wtns, r"section 1 \(header\)\.prime: is the bn128 \(BN254\) scalar field r"),
    ],
)
def test_wrong_curve_is_refused(name, parse, field):
    with pytest.raises(InvalidInputError, match=field):
        parse(fixture(name).read_bytes(), name)


UNKNOWN_SECTION = 99


@pytest.mark.parametrize("name, parse, drop, extra, problem", [
    ("circuit.zkey", parse_zkey, 10, None, r"section 10 \(contributions\): is missing"),
    ("circuit.r1cs", parse_r1cs, 3, None, r"section 3 \(wire-to-label map\): is missing"),
    ("circuit.zkey", parse_zkey, None, UNKNOWN_SECTION, r"section 99 \(unknown\): is not a section of a \.zkey file"),
    ("witness.wtns", parse_wtns, None, UNKNOWN_SECTION, r"section 99 \(unknown\): is not a section of a \.wtns file"),
], ids=["zkey-without-contributions", "r1cs-without-wire-map", "zkey-unknown-section", "wtns-unknown-section"])
def test_a_missing_or_unknown_section_is_refused(name, parse, drop, extra, problem):
    """FORMAT.md: every section snarkjs and circom write is required, those not read included (a zkey without section 10
    was imported); a .zkey or .wtns section of a type they do not define is refused (section 99 was ignored)."""
    with pytest.raises(InvalidInputError, match=problem):
        parse(iden3_rebuilt(fixture(name).read_bytes(), drop, extra), name)


def test_an_unknown_r1cs_section_is_ignored_as_its_specification_demands(circuit):
    """r1csfile's doc/r1cs_bin_format.md: a section of another type leaves the file valid and MUST be ignored."""
    raw = fixture("circuit.r1cs").read_bytes()
    assert parse_r1cs(iden3_rebuilt(raw, extra=UNKNOWN_SECTION), "circuit.r1cs") == parse_r1cs(raw, "circuit.r1cs")


@pytest.mark.parametrize("cut", [1, 100, 4000])
def test_truncated_zkey_is_refused(cut):
    raw = fixture("circuit.zkey").read_bytes()
    with pytest.raises(SizeMismatchError, match="truncated"):
        parse_zkey(raw[:-cut], "circuit.zkey")


def test_truncated_r1cs_and_wtns_are_refused():
    for name, parse in (("circuit.r1cs", parse_r1cs), ("witness.wtns", parse_wtns)):
        raw = fixture(name).read_bytes()
        with pytest.raises(SizeMismatchError, match="truncated"):
            parse(raw[:-5], name)
        with pytest.raises(SizeMismatchError, match="after the last section"):
            parse(raw + b"\0", name)


def test_inconsistent_counts_are_refused(circuit):
    raw = fixture("circuit.zkey").read_bytes()
    more_vars = _patched(raw, _zkey_header_u32(raw, 0), struct.pack("<I", circuit.r1cs.num_variables + 1))
    with pytest.raises(SizeMismatchError, match=r"section 5 \(A points\)\[9\]: needs 96 bytes"):
        parse_zkey(more_vars, "circuit.zkey")
    not_pow2 = _patched(raw, _zkey_header_u32(raw, 2), struct.pack("<I", 24))
    with pytest.raises(SizeMismatchError, match="domainSize: is 24; expected a power of two"):
        parse_zkey(not_pow2, "circuit.zkey")
    wtns = fixture("witness.wtns").read_bytes()
    header = _sections(wtns)[1][0]
    with pytest.raises(SizeMismatchError, match=r"section 2 \(witness values\): has 32 bytes beyond"):
        parse_wtns(_patched(wtns, header + 4 + 32, struct.pack("<I", 8)), "witness.wtns")
    r1cs = fixture("circuit.r1cs").read_bytes()
    constraints_field = _sections(r1cs)[1][0] + 4 + 32 + 4 * 4 + 8
    with pytest.raises(SizeMismatchError, match=r"section 2 \(constraints\): has \d+ bytes beyond"):
        parse_r1cs(_patched(r1cs, constraints_field, struct.pack("<I", 4)), "circuit.r1cs")


def test_key_for_another_circuit_is_refused(circuit, zkey, tmp_path):
    r1cs = fixture("circuit.r1cs").read_bytes()
    fewer_public = _patched(r1cs, _sections(r1cs)[1][0] + 4 + 32 + 4 * 2, struct.pack("<I", 1))  # nPubIn 2 -> 1
    other = parse_r1cs(fewer_public, "other.r1cs")
    with pytest.raises(SizeMismatchError, match=r"groth16 header\)\.nPublic: is 3; the R1CS implies 2"):
        proving_key_from_zkey(zkey, other.r1cs, "circuit.zkey")
    raw = fixture("circuit.zkey").read_bytes()
    first_value = _sections(raw)[4][0] + 4 + 12
    changed = _patched(raw, first_value, ((int.from_bytes(raw[first_value : first_value + 32], "little") + 1) % R).to_bytes(32, "little"))
    with pytest.raises(InvalidInputError, match=r"section 4 \(coefficients\): A row 0, signal 2: .* another circuit"):
        proving_key_from_zkey(parse_zkey(changed, "circuit.zkey"), circuit.r1cs, "circuit.zkey")


def test_other_protocols_and_bad_points_are_refused():
    raw = fixture("circuit.zkey").read_bytes()
    plonk = _patched(raw, _sections(raw)[1][0], struct.pack("<I", 2))
    with pytest.raises(InvalidInputError, match=r"protocol: is 2 \(plonk\); expected 1 \(groth16\)"):
        parse_zkey(plonk, "circuit.zkey")
    alpha = _zkey_header_u32(raw, 3)
    off_curve = _patched(raw, alpha, (1).to_bytes(48, "little"))
    with pytest.raises(PointEncodingError, match="alpha1: not on the curve"):
        parse_zkey(off_curve, "circuit.zkey")
    with pytest.raises(PointEncodingError, match="is not < p"):
        parse_zkey(_patched(raw, alpha, P.to_bytes(48, "little")), "circuit.zkey")


def test_bad_witness_and_json_are_refused(circuit):
    z = fixture("witness.wtns").read_bytes()
    values = _sections(z)[2][0]
    not_one = _patched(z, values, (2).to_bytes(32, "little"))
    with pytest.raises(InvalidInputError, match=r"value\[0\]: is 2; wire 0 is the constant ONE"):
        split_witness(parse_wtns(not_one, "witness.wtns"), circuit.r1cs, "witness.wtns")
    too_big = _patched(z, values + 32, R.to_bytes(32, "little"))
    with pytest.raises(ScalarRangeError, match=r"value\[1\]: .* is not < r"):
        parse_wtns(too_big, "witness.wtns")
    proof = fixture_json("proof.json")
    with pytest.raises(InvalidInputError, match=r"proof\.curve: is 'bn128'"):
        proof_from_json({**proof, "curve": "bn128"})
    with pytest.raises(PointEncodingError, match=r"proof\.pi_a: not on the curve"):
        proof_from_json({**proof, "pi_a": ["1", "1", "1"]})
    with pytest.raises(ScalarRangeError, match=r"public\[0\]: \d+ is not < r"):
        public_from_json([str(R)])


def test_import_cli_reports_a_bad_file_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "v.json"
    args = ["import-snarkjs", str(fixture("circuit.r1cs")), str(fixture("witness.wtns")), str(fixture("circuit-bn128.zkey")), "--out", str(out), "--quiet"]
    assert run_main(vectors_main, args) == EXIT_BAD_INPUT
    assert "error: circuit-bn128.zkey section 2 (groth16 header).q: is the bn128 (BN254) base field q" in capsys.readouterr().err
    assert not out.exists()


def test_default_seed_is_the_hash_of_the_input_files():
    names = ("circuit.r1cs", "circuit.zkey", "witness.wtns")
    seed = hashlib.sha256(b"".join(fixture(f).read_bytes() for f in names)).hexdigest()
    v = import_snarkjs(fixture("circuit.r1cs"), [fixture("witness.wtns")], fixture("circuit.zkey"), "default-seed")
    assert v.generator["seed"] == seed
    assert (v.circuits[0].witness.r, v.circuits[0].witness.s) == (derive_scalar(seed, "circuit 0 r"), derive_scalar(seed, "circuit 0 s"))
