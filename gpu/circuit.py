"""A circuit as the GPU prover holds it: the stacked CSR on the device plus the query layout.

``DeviceCircuit`` is what every device-side phase needs from an R1CS, in arrays rather than Python
objects, so that a 2^27-constraint circuit (hundreds of millions of terms) never becomes Python
tuples: it is built either from a reference.r1cs.R1CS (small circuits, vectors) or directly from
arrays (vectors/porep_arrays.py's synthetic PoRep-shaped circuits).

The query layout is bellman's (reference/r1cs.py Density, reference/prep.py query_variables):

    L    the aux variables num_inputs .. V - 1
    A    every input (inputs are dense in A because of the input rows), then the aux variables with a_aux
    B    the inputs with b_input, then the aux variables with b_aux      (B_G1 and B_G2 alike)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reference.errors import SizeMismatchError
from reference.r1cs import R1CS, Density

from .evaluate import DeviceR1cs, HostCsr, build_csr, csr_to_device


@dataclass(frozen=True)
class QueryDensity:
    """Bellman's density trackers as numpy bool arrays (reference.r1cs.Density's fields). "Appears" is FORMAT.md's
    density rule: named by a term with a non-zero coefficient (reference.r1cs.R1CS.density computes them)."""

    a_aux: np.ndarray
    """(num_aux,) aux variable i appears in some A row."""
    b_input: np.ndarray
    """(num_inputs,) input i (ONE included) appears in some B row."""
    b_aux: np.ndarray
    """(num_aux,) aux variable i appears in some B row."""

    @classmethod
    def from_density(cls, density: Density) -> "QueryDensity":
        return cls(*(np.asarray(x, dtype=bool) for x in (density.a_aux, density.b_input, density.b_aux)))

    def to_density(self) -> Density:
        """The reference's Density (Python tuples: small circuits only)."""
        return Density(*(tuple(bool(v) for v in x) for x in (self.a_aux, self.b_input, self.b_aux)))

    def query_variables(self, num_inputs: int) -> dict[str, np.ndarray]:
        """The witness index of each point of the L, A and B queries, in the keys' order (int64 arrays):
        reference.prep.query_variables as arrays."""
        num_aux = len(self.a_aux)
        aux = np.arange(num_inputs, num_inputs + num_aux, dtype=np.int64)
        return {
            "l": aux,
            "a": np.concatenate([np.arange(num_inputs, dtype=np.int64), aux[self.a_aux]]),
            "b": np.concatenate([np.flatnonzero(self.b_input).astype(np.int64), aux[self.b_aux]]),
        }


@dataclass(frozen=True)
class DeviceCircuit:
    """The R1CS on the device (``csr``) and its sizes and densities (host arrays)."""

    csr: DeviceR1cs
    num_inputs: int
    num_aux: int
    density: QueryDensity
    _on_device: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        sizes = (len(self.density.a_aux), len(self.density.b_input), len(self.density.b_aux))
        if sizes != (self.num_aux, self.num_inputs, self.num_aux):
            raise SizeMismatchError("density", f"has (a_aux, b_input, b_aux) sizes {sizes}; the circuit has "
                                    f"{self.num_inputs} inputs and {self.num_aux} aux variables")

    @property
    def log_n(self) -> int:
        return self.csr.log_n

    @property
    def n(self) -> int:
        return 1 << self.csr.log_n

    @property
    def num_variables(self) -> int:
        return self.num_inputs + self.num_aux

    def query_variables(self) -> dict[str, np.ndarray]:
        return self.density.query_variables(self.num_inputs)

    def device_query_variables(self) -> dict:
        """query_variables() as device arrays, uploaded once per circuit (prep reads them on every call)."""
        if not self._on_device:
            import cupy

            self._on_device.update({q: cupy.asarray(v) for q, v in self.query_variables().items()})
        return self._on_device

    @classmethod
    def from_r1cs(cls, r1cs: R1CS) -> "DeviceCircuit":
        return cls.from_host_csr(build_csr(r1cs), r1cs.num_inputs, r1cs.num_aux, QueryDensity.from_density(r1cs.density()),
                                 r1cs.num_rows)

    @classmethod
    def from_host_csr(cls, csr: HostCsr, num_inputs: int, num_aux: int, density: QueryDensity,
                      num_rows: int, consume: bool = False) -> "DeviceCircuit":
        """Upload a stacked CSR (gpu/evaluate.py's layout) built elsewhere; ``consume``: see csr_to_device."""
        if csr.num_variables != num_inputs + num_aux:
            raise SizeMismatchError("csr", f"has {csr.num_variables} variables; expected {num_inputs + num_aux}")
        return cls(csr_to_device(csr, num_rows, consume), num_inputs, num_aux, density)

    @classmethod
    def from_arrays(cls, arrays, consume: bool = False) -> "DeviceCircuit":
        """From a vectors.porep_arrays.ArrayCircuit (numpy or CuPy arrays). ``consume``: its coefficients are turned
        into Montgomery form in place (the ArrayCircuit must not be used for witnesses afterwards)."""
        def host(x):
            return np.asarray(x.get() if hasattr(x, "get") else x, dtype=bool)

        csr = HostCsr(arrays.log_n, arrays.num_variables, arrays.row_start, arrays.var, arrays.coeff)
        density = QueryDensity(host(arrays.a_aux), host(arrays.b_input), host(arrays.b_aux))
        return cls.from_host_csr(csr, arrays.num_inputs, arrays.num_aux, density, arrays.num_rows, consume)
