"""Phase ``assemble`` for the GPU prover: runs on the host, with the reference's own function.

Assembly is about ten scalar multiplications and additions per circuit (A, B, C from the MSM results
and r, s), microseconds of work on any processor, so moving it to the device would save nothing
and copy back the same few points. The GPU prover therefore calls reference.assemble.assemble: one
piece of code for one formula, and the proofs are bit-identical to the reference's by construction
once the MSM results are (which the conformance suite checks phase by phase).
"""
from reference.assemble import Proof, assemble, query_totals

__all__ = ["Proof", "assemble", "query_totals"]
