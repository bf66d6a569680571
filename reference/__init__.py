"""Reference BLS12-381 Groth16 prover: slow, readable, and the definition of every phase's correct output."""
