"""Positive-definite kernels (layer 2).

Every kernel is a small immutable object: ``k(X, Y)`` returns the Gram matrix
``[k(x_i, y_j)]`` of shape (n, m), ``k.diag(X)`` its diagonal ``k(x_i, x_i)`` of shape (n,),
and ``k.spec()`` a JSON-able dict from which :func:`make_kernel` rebuilds it (used for cache
keys).

* RBF / squared exponential (SE): ``k(x, x') = v · exp(−‖x − x'‖² / (2ℓ²))``. The
  Async-KernelUCB paper writes ``exp(−γ‖x − x'‖²)``: :meth:`RBF.from_gamma` converts
  (``ℓ = 1/√(2γ)``).
* Matérn ν ∈ {1/2, 3/2, 5/2}, with ``r = ‖x − x'‖/ℓ``:
  ν=1/2: ``v e^{−r}``; ν=3/2: ``v (1 + √3 r) e^{−√3 r}``; ν=5/2: ``v (1 + √5 r + 5r²/3) e^{−√5 r}``.
* Linear: ``k(x, x') = v · xᵀx' + c``.
* Product over a split input ``[z, x]``: ``k((z,x),(z',x')) = k_z(z,z') · k_x(x,x')`` (the
  task × arm kernels of CoPE-KB and Coop-KernelUCB).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist
from .validation import check, fail, ge, gt, keys_in, one_of, rule

__all__ = ["sqdist", "Kernel", "RBF", "Matern", "Linear", "Product", "make_kernel"]


def sqdist(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances ``‖a_i − b_j‖²`` (``scipy.spatial.distance.cdist``).

    Computed directly rather than as ``‖a‖² + ‖b‖² − 2abᵀ``: that form leaves a rounding error
    of order eps·‖x‖² at zero distance, which Matérn-1/2's square root turns into ~1e-8 and an
    indefinite Gram matrix for near-duplicate points.
    """
    A = np.atleast_2d(np.asarray(A, dtype=float))
    B = np.atleast_2d(np.asarray(B, dtype=float))
    return cdist(A, B, "sqeuclidean")


class Kernel:
    """Base class. Subclasses implement ``__call__``, ``diag`` and ``spec``."""

    def __call__(self, X: np.ndarray, Y: np.ndarray | None = None) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def diag(self, X: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def spec(self) -> dict:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class RBF(Kernel):
    """Squared-exponential kernel ``v · exp(−‖x − x'‖²/(2ℓ²))``."""

    lengthscale: float = 1.0
    variance: float = 1.0

    def __post_init__(self):
        check("lengthscale", self.lengthscale, gt(0))
        check("variance", self.variance, gt(0))

    @classmethod
    def from_gamma(cls, gamma: float, variance: float = 1.0) -> "RBF":
        """``exp(−γ‖x − x'‖²)`` as used by Async-KernelUCB: ``ℓ = 1/√(2γ)``."""
        check("gamma", gamma, gt(0))
        return cls(lengthscale=1.0 / np.sqrt(2.0 * gamma), variance=variance)

    def __call__(self, X, Y=None):
        Y = X if Y is None else Y
        return self.variance * np.exp(-sqdist(X, Y) / (2.0 * self.lengthscale**2))

    def diag(self, X):
        return np.full(np.atleast_2d(X).shape[0], float(self.variance))

    def spec(self):
        return {"name": "rbf", "lengthscale": float(self.lengthscale), "variance": float(self.variance)}


@dataclass(frozen=True)
class Matern(Kernel):
    """Matérn kernel with ν ∈ {0.5, 1.5, 2.5} (closed forms in the module docstring)."""

    nu: float = 2.5
    lengthscale: float = 1.0
    variance: float = 1.0

    def __post_init__(self):
        check("nu", self.nu, one_of(0.5, 1.5, 2.5))
        check("lengthscale", self.lengthscale, gt(0))
        check("variance", self.variance, gt(0))

    def __call__(self, X, Y=None):
        Y = X if Y is None else Y
        r = np.sqrt(sqdist(X, Y)) / self.lengthscale
        if self.nu == 0.5:
            k = np.exp(-r)
        elif self.nu == 1.5:
            s = np.sqrt(3.0) * r
            k = (1.0 + s) * np.exp(-s)
        else:
            s = np.sqrt(5.0) * r
            k = (1.0 + s + s * s / 3.0) * np.exp(-s)
        return self.variance * k

    def diag(self, X):
        return np.full(np.atleast_2d(X).shape[0], float(self.variance))

    def spec(self):
        return {"name": "matern", "nu": float(self.nu), "lengthscale": float(self.lengthscale),
                "variance": float(self.variance)}


@dataclass(frozen=True)
class Linear(Kernel):
    """Linear kernel ``v · xᵀx' + c``."""

    variance: float = 1.0
    bias: float = 0.0

    def __post_init__(self):
        check("variance", self.variance, gt(0))
        check("bias", self.bias, ge(0))

    def __call__(self, X, Y=None):
        X = np.atleast_2d(X)
        Y = X if Y is None else np.atleast_2d(Y)
        return self.variance * (X @ Y.T) + self.bias

    def diag(self, X):
        X = np.atleast_2d(X)
        return self.variance * np.einsum("ij,ij->i", X, X) + self.bias

    def spec(self):
        return {"name": "linear", "variance": float(self.variance), "bias": float(self.bias)}


@dataclass(frozen=True)
class Product(Kernel):
    """``k((z, x), (z', x')) = k_z(z, z') · k_x(x, x')`` on inputs split at column ``split``."""

    k_first: Kernel
    k_second: Kernel
    split: int

    def __call__(self, X, Y=None):
        X = np.atleast_2d(X)
        Y = X if Y is None else np.atleast_2d(Y)
        s = self.split
        return self.k_first(X[:, :s], Y[:, :s]) * self.k_second(X[:, s:], Y[:, s:])

    def diag(self, X):
        X = np.atleast_2d(X)
        s = self.split
        return self.k_first.diag(X[:, :s]) * self.k_second.diag(X[:, s:])

    def spec(self):
        return {"name": "product", "split": int(self.split), "first": self.k_first.spec(),
                "second": self.k_second.spec()}


_NAMES = ("rbf", "matern", "linear", "product")


def make_kernel(spec: dict | Kernel) -> Kernel:
    """Build a kernel from ``spec`` (the output of ``Kernel.spec()``), or return a Kernel as is."""
    if isinstance(spec, Kernel):
        return spec
    check("spec", spec, rule(lambda s: isinstance(s, dict) and "name" in s, f"a dict with a 'name' in {_NAMES}"))
    p = dict(spec)
    name = p.pop("name")
    allowed = {"rbf": {"lengthscale", "variance", "gamma"}, "matern": {"nu", "lengthscale", "variance"},
               "linear": {"variance", "bias"}, "product": {"first", "second", "split"}}
    if name in allowed:
        check(f"{name} kernel parameters", p, keys_in(*allowed[name]))
    if name == "rbf":
        if "gamma" in p:
            return RBF.from_gamma(p.pop("gamma"), **p)
        return RBF(**p)
    if name == "matern":
        return Matern(**p)
    if name == "linear":
        return Linear(**p)
    if name == "product":
        return Product(make_kernel(p["first"]), make_kernel(p["second"]), int(p["split"]))
    fail("name", name, one_of(*_NAMES))
