"""The conformance suite: every prover phase of every backend, judged on shared test vectors.

    python -m conformance run [VECTOR_OR_DIR ...] [--backends reference,gpu] [--mode isolated|end-to-end|prover]

For each vector and phase, each backend's output is compared exactly with the vector's expected
output (or, where the vector has none or ``--oracle`` asks, with an independent oracle: the trapdoor,
the h identity, the pairing check, the reference implementation, or an independent library); the first
differing element is named, and each phase is timed at its boundary in every backend. Prover mode runs the
GPU prover itself (what `python -m gpu prove` runs) and captures every phase's output at its boundary.

Modules: ``phases`` (the phase graph and inputs), ``loading`` (vector cache), ``compare`` (exact
comparison), ``oracles`` (independent checks), ``independent_library`` (the arkworks oracle), ``runner`` (the loop),
``generated`` (gate cases generated on the GPU at sizes the bundled vectors never reach, judged by oracles),
``seeded`` (vectors with exact expected values built from a seed when the gate runs), ``gpu_coverage``
(kernels launched and lines run in the gate), ``report`` / ``chart`` (outputs;
charts by matplotlib), ``timing`` / ``compare_timings`` (timing records and their noise-aware comparison), ``sources`` (the GPU prover's source files and their digest), ``fingerprint`` (the CI gate on gpu/ changes), ``faults`` (planted faults that prove the
suite can fail), ``backends`` (reference, GPU adapters).
"""
