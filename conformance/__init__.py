"""The conformance suite: every prover phase of every backend, judged on shared test vectors.

    python -m conformance run [VECTOR_OR_DIR ...] [--backends reference,gpu] [--mode isolated|end-to-end]

For each vector and phase, each backend's output is compared exactly with the vector's expected
output (or, where the vector has none or ``--oracle`` asks, with an independent oracle: the trapdoor,
the h identity, the pairing check, or the reference implementation); the first differing element is
named, and each phase is timed at its boundary in every backend.

Modules: ``phases`` (the phase graph and inputs), ``loading`` (vector cache), ``compare`` (exact
comparison), ``oracles`` (independent checks), ``runner`` (the loop), ``report`` / ``chart`` (outputs;
charts by matplotlib), ``timing`` / ``compare_timings`` (timing records and their noise-aware comparison), ``fingerprint`` (the CI gate on gpu/ changes), ``faults`` (planted faults that prove the
suite can fail), ``backends`` (reference, GPU adapters).
"""
