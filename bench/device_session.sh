#!/usr/bin/env bash
# Device calls that check a GPU change end to end and bring back the evidence, in steps:
#   tests   every fast GPU test, in parallel (GPU_SYNC_CHECK=1)                                  -> gpu-tests.log
#   gate    both backends over all bundled vectors in isolated and prover mode, plus the generated cases (2- and
#           3-pass NTT, c = 16 windows, one circuit at a time) and the seeded exact-value vectors, recording the
#           gate report conformance/reports/gpu-latest.{json,md}; then the whole GPU prover's per-phase breakdown
#           on the largest bundled vector                                            -> conformance.log, gpu-latest.*
#   faults  the planted faults in the GPU prover's code, each run from a patched copy of gpu/, as a table, also
#           written to conformance/reports/faults-gpu.md, FAULTS_JOBS runs at once (default 4; 1 runs them one after
#           another, as before 2026-12-04 session 22)           -> faults-gpu.md, faults-gpu-reports.tgz, faults.log
#   tests+gate  the two at once: the tests in the background beside the gate         -> both steps' files
#   seeded  only build the gate's seeded 2^16 and 2^20 vectors into the gate's --seeded-cache folder (SEEDED_CACHE,
#           default /tmp/conformance-seeded), on the CPU, checking nothing: run it in the background beside GPU work
#           (`taskset -c 8-15 nice -n 19 bash bench/device_session.sh OUT seeded &`, so that it leaves the benchmark
#           its cores), and the gate reads the vectors instead of building them              -> seeded.log
#   slow    the large-size GPU tests (2^15 .. 2^27), serially                              -> gpu-slow-tests.log
#   tail    tail_msm per kernel on PoRep-shaped tails at 2^27, 10 circuits, c as chosen and forced to 8, 12, 16
#           (bench/kernel_times.py)                                                  -> tail-kernels-*.md, .json
#   prove   whole PoRep-shaped proofs at 2^27, one and ten circuits, 5 timed runs, pairing and trapdoor checks
#           (bench/bench_prove.py; 215 s at 106a389)                                          -> prove.json, prove.log
#   probes  the probes written for the next MSM and NTT levers, not the prover (no gate; predictions in their RESULTS
#           files): batched affine piece sums on msm_piece_sum's own arguments (bench/probe_affine_pieces.py, G1 2^24 and
#           2^26, G2 2^22 and 2^24), the binary GCD's inversion in the batched affine probe (2^20, 2^24, G2), and the
#           fixed-base table at 2^24 (bench/probe_fixed_base.py); about 5 minutes on an H100       -> probes.tgz
#   coldstart  the whole GPU prover's first use: a fresh process and an empty CuPy cache (every kernel module
#           compiled), `python -m gpu prove` on porep-log10 with --timings, wall clock; COLD_TREES names other trees
#           (folders holding gpu/, reference/, vectors/) to time the same way: this tree, the others, the others
#           again in reverse, this tree again (A B B A)                                           -> coldstart.log
# Usage on the device machine (after the wheel prelude): bash bench/device_session.sh "$OUT" [STEP ...]
# (default: tests gate faults slow). Exit 1 when any step's command fails. gate and faults copy into OUT (and print)
# only the reports their own run wrote (newer than the step's start): when the run wrote none, they say so and fail,
# never passing the committed reports of an earlier run off as this one's.
# Measured on an H200 (2026-12-03, tree c8d49e1): tests 61 s; tests and faults side by side 282 s; the gate alone
# MORE than 470 s (killed at 470 s on its last generated case: the seeded 2^20 vector's build took 223 s, 119 s of
# it the reference ntt_h, and prover mode repeats the key upload, 72 s). The gate does not fit one 600 s call with
# anything else: start it detached (setsid nohup ... &) in one call and collect it from the next, back to back.
# Tree 566cf71: the gate recorded in 469 s (484 s with its check) beside the tests step (403 passed, 58 s).
# Tree 24c601e (2026-12-04): tests+gate in one call, 441 s (the tests 72 s of it, 406 passed); faults 8 runs take
# about 500 s (5 of them in 340 s, the other 3 and a clean copy in 158 s): give faults a call of its own, or split it
# with FAULTS_ONLY=name,name (python -m conformance faults --only).
# The gate builds its seeded 2^16 and 2^20 vectors with the fast library: build the wheelhouse with it
# (../shared/device/wheelhouse.sh py-arkworks-bls12381), or the gate refuses to start (exit 2, in 1 s).
# Tree cand-s15 (2026-12-04): tests+gate 533 s once and over 585 s on another machine (the tests slow the seeded
# 2^20 build, 241-281 s); the gate alone passed every phase by 496 s and had not finished at 515 s. Give the gate a
# call of its own with the whole 590 s, and run the tests in another call.
# Tree 106a389 (cand-s15 with the fault table's fix, 2026-12-04): the gate alone recorded in 532 s (timeout 588 in a
# call of timeout_s 600); tests 43 s (414 passed); faults, all 8 runs, 324 s in a call of their own.
# From 627f8e9 the gate builds its seeded 2^16 and 2^20 vectors in child processes that start with the run and checks
# the generated cases before them (conformance/seeded.py BACKGROUND_MIN_LOG_N). Its log says when the 2^20 vector was
# handed over ('handed over by its build process'): at 426424f after 245.6 s, the run having waited 152.7 s for it, so
# that build is still the gate's critical path.
# Tree 426424f (2026-12-04, measured): the gate alone recorded in 337 s; tests 63 s (416 passed); faults 185 s
# (each patched copy compiles its modules side by side); prove 170 s; coldstart of two trees 120 s. So `gate tests`
# fits one call of timeout_s 600 (about 400 s) and `faults prove` another (about 360 s).
# Tree 41033d7 (2026-12-04, measured): `gate tests` in one call, 430 s (the gate recorded at 370 s, the tests 55 s,
# 416 passed); prove 188 s. Tree 5c8f04b: `gate tests` 498 s (the gate recorded at 443.5 s, the tests 46 s, 416
# passed); prove 208 s. Tree 3d8f936: `gate tests` 361 s (the gate recorded at 312.3 s, the tests 44 s, 416 passed);
# `faults coldstart` 224 s (faults 181 s, the cold start of this tree twice, 20.4 and 20.5 s); prove 264 s.
# Tree b5292a5 (2026-12-07, H100): `tests+gate` 273 s (the gate recorded at 269.3 s, the seeded 2^20 vector handed over
# at 186.4 s; the tests 106 s, 530 passed); `faults` about 72 s and a 2^26 bench_prove (one circuit, 5 runs) after it, 94 s
# together, on the same warm machine. The start and the copies cost about 28 s of device time (301 s charged for the 273 s call).
# Set BENCH_COMMIT to the commit measured: the device's copy of the repository may carry a stale git history. It must
# be the full 40-hex-digit hash (`git rev-parse HEAD`, pasted): the records carry it as given, and session 46's gate
# report carries a mistyped short one (dfedcfa8 for dfedcfae03e1).
set -uo pipefail
known="tests gate tests+gate seeded faults slow tail prove probes coldstart"
seeded_cache=${SEEDED_CACHE:-/tmp/conformance-seeded}
usage="usage: device_session.sh OUT_DIR [STEP ...], steps: $known"
[ $# -ge 1 ] || { echo "$usage" >&2; exit 2; }
out=$1
shift
[ -d "$out" ] || { echo "error: OUT_DIR: '$out' is not a folder; $usage" >&2; exit 2; }
if [ -n "${BENCH_COMMIT:-}" ] && ! [[ $BENCH_COMMIT =~ ^[0-9a-f]{40}$ ]]; then
  echo "error: BENCH_COMMIT: '$BENCH_COMMIT' is not a full commit hash (40 lowercase hex digits: git rev-parse HEAD)" >&2
  exit 2
fi
steps=${*:-tests gate faults slow}
for step in $steps; do  # all checked before any runs: a mistyped later step must not cost the earlier ones' device time
  [[ " $known " == *" $step "* ]] || { echo "error: step: '$step' is not one of: $known" >&2; exit 2; }
done
status=0
fresh() {  # FILE MARKER: FILE exists and was written after MARKER was made, i.e. by this step's run, not an earlier one
  [ -f "$1" ] && [ "$1" -nt "$2" ]
}
for step in $steps; do
  case $step in
    tests)
      GPU_SYNC_CHECK=1 python3 -m pytest -q -p no:cacheprovider -n 8 --require-gpu -m "gpu and not slow" tests/ > "$out/gpu-tests.log" 2>&1 || status=1
      tail -6 "$out/gpu-tests.log"
      ;;
    tests+gate)
      bash "$0" "$out" tests > /dev/null &
      bash "$0" "$out" gate || status=1
      wait $! || status=1
      tail -6 "$out/gpu-tests.log"
      ;;
    gate)
      marker=$(mktemp)  # the committed gpu-latest.* are an earlier run's: only files written after this are this run's
      python3 -m conformance run --backends reference,gpu --record-gate --seeded-cache "$seeded_cache" --report /tmp/conformance-report \
        > "$out/conformance.log" 2>&1 || status=1
      tail -30 "$out/conformance.log"
      if fresh conformance/reports/gpu-latest.json "$marker" && fresh conformance/reports/gpu-latest.md "$marker"; then
        cp conformance/reports/gpu-latest.json conformance/reports/gpu-latest.md "$out/" || status=1
      else
        echo "gate: NO new gate report recorded by this run (conformance/reports/gpu-latest.* are an earlier run's, not copied)" \
          | tee -a "$out/conformance.log"
        status=1
      fi
      rm -f "$marker"
      python3 -m gpu prove vectors/data/porep-log10.json --quiet --timings --out /tmp/proof-log10.json 2>&1 | tee -a "$out/conformance.log" \
        || { status=1; echo "gate: the per-phase breakdown (python3 -m gpu prove) FAILED" | tee -a "$out/conformance.log"; }
      ;;
    seeded)
      python3 -m conformance seeded-cache "$seeded_cache" > "$out/seeded.log" 2>&1 || status=1
      tail -3 "$out/seeded.log"
      ;;
    faults)
      marker=$(mktemp)  # the committed faults-gpu.md is an earlier run's: only files written after this are this run's
      python3 -m conformance faults --gpu-table conformance/reports/faults-gpu.md --jobs "${FAULTS_JOBS:-4}" ${FAULTS_ONLY:+--only "$FAULTS_ONLY"} \
        > "$out/faults.log" 2>&1 || status=1
      if fresh conformance/reports/faults-gpu.md "$marker"; then  # written row by row: a run cut short keeps its rows
        cp conformance/reports/faults-gpu.md "$out/faults-gpu.md" || status=1
        # one file: a call brings back 8; only this run's reports (an earlier run's other faults may lie beside them)
        (cd conformance/reports && find faults-gpu-reports -type f -newer "$marker" -print0) \
          | tar czf "$out/faults-gpu-reports.tgz" -C conformance/reports --null -T - || status=1
        cat "$out/faults-gpu.md"
      else
        echo "faults: NO new fault table written by this run (conformance/reports/faults-gpu.md is an earlier run's, not" \
          "copied nor shown); the end of $out/faults.log:"
        tail -5 "$out/faults.log"
        status=1
      fi
      rm -f "$marker"
      ;;
    slow)
      python3 -m pytest -q -p no:cacheprovider --require-gpu -m "gpu and slow" tests/ > "$out/gpu-slow-tests.log" 2>&1 || status=1
      tail -6 "$out/gpu-slow-tests.log"
      ;;
    tail)
      for c in "" 8 12 16; do
        python3 bench/kernel_times.py --phases tail_msm --log2 27 --tail-circuits 10 ${c:+--tail-window-bits $c} \
          --json "$out/tail-kernels-${c:-auto}.json" --md "$out/tail-kernels-${c:-auto}.md" > "$out/tail-kernels-${c:-auto}.log" 2>&1 || status=1
        head -4 "$out/tail-kernels-${c:-auto}.md"
      done
      ;;
    prove)
      python3 bench/bench_prove.py --log-n 27 --circuits 1 10 --runs 5 --check --json "$out/prove.json" > "$out/prove.log" 2>&1 || status=1
      tail -4 "$out/prove.log"
      ;;
    probes)
      while read -r name script arguments; do  # cheapest decision first: a call cut short keeps what it ran
        python3 "bench/$script" $arguments --json "$out/probe-$name.json" --md "$out/probe-$name.md" \
          > "$out/probe-$name.log" 2>&1 || status=1
        tail -3 "$out/probe-$name.log"
      done <<'PROBES'
pieces-g1 probe_affine_pieces.py --log2-points 24 26
pieces-g2 probe_affine_pieces.py --group g2 --log2-points 22 24 --lanes 16 32 64
affine-2p20 probe_batched_affine.py
affine-2p24 probe_batched_affine.py --log2-points 24 --ks 32 64 128 256
affine-g2 probe_batched_affine.py --group g2 --ks 16 32 64 128 256
fixed-base-2p24 probe_fixed_base.py --log2-points 24 --bits 16 20 22 24
PROBES
      # one file: a device call brings back at most eight (session 32 lost the pieces' tables to that limit)
      { tar czf "$out/probes.tgz" -C "$out" $(cd "$out" && ls probe-*) && (cd "$out" && rm -f probe-*); } || status=1
      ;;
    coldstart)
      trees=". ${COLD_TREES:-}"
      order="$trees $(echo $trees | tr ' ' '\n' | tac | tr '\n' ' ')"  # A B B A: drift shows as a difference
      for tree in $order; do
        cache=$(mktemp -d)
        start=$(date +%s.%N)
        (cd "$tree" && CUPY_CACHE_DIR="$cache" python3 -m gpu prove vectors/data/porep-log10.json --quiet --timings \
          --out /tmp/coldstart-proof.json) >> "$out/coldstart.log" 2>&1 || status=1
        end=$(date +%s.%N)
        echo "cold start, tree $tree: $(python3 -c "print(f'{$end - $start:.1f}')") s (fresh process, empty cache $cache)" \
          | tee -a "$out/coldstart.log"
        rm -rf "$cache"
      done
      ;;
  esac
done
exit $status
