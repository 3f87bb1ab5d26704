"""Building blocks shared by the pure-exploration algorithms (RAGE family, CoPE-KB).

* The sample-size constant (CoPE-KB Algorithm 1, Line 5, has 32(1+ε)²; the RAGE code,
  fiezt/Transductive-Linear-Bandit-Code ``RAGE.py``, has 2(1+ε)): one switch for every RAGE-family
  method, a choice of this package::

      N^(r) = max{ ⌈c_N · 4^r · ρ_r · log(L_r)⌉, τ },
      c_N = 32 (1+ε)²  ("theory": the CoPE-KB paper)   or   2 (1+ε)  ("practical": the RAGE code)

* ``δ_r = δ / (2 r²)`` (inferred from the log(4Vn²r²/δ) in the CoPE-KB proof).
* The kernelised ridge estimator from per-arm (count, mean) messages (CoPE-KB §4.2, App. C.2)::

      F̂(x̃) = k_r(x̃)ᵀ (K^(r) + N ξ I)⁻¹ ȳ^(r),
      K^(r) = [√(N_i N_j) k(x̃_i, x̃_j)],  ȳ^(r) = [√N_i ȳ_i],  k_r(x̃) = [√N_i k(x̃, x̃_i)]

  over the pairs with N_i > 0, N = Σ N_i; it equals ridge regression with regulariser Nξ on the
  raw samples.
"""
from __future__ import annotations

import math

import numpy as np

from ..linalg import cholesky_jitter, chol_solve
from ..validation import fail, one_of

__all__ = ["CONSTANTS", "sample_size_constant", "sample_size", "delta_r", "kernel_estimate", "tau"]

CONSTANTS = ("practical", "theory")


def sample_size_constant(constants: str = "practical", eps: float = 0.1) -> float:
    if constants == "theory":
        return 32.0 * (1.0 + eps) ** 2
    if constants == "practical":
        return 2.0 * (1.0 + eps)
    fail("constants", constants, one_of(*CONSTANTS))


def delta_r(delta: float, r: int) -> float:
    return delta / (2.0 * r * r)


def tau(d_eff: int, eps: float = 0.1) -> int:
    """Minimum rounding size ``τ(ξ, λ, ε) = ⌈d(ξ,λ)/ε²⌉`` (the constant 1 is not stated)."""
    return int(math.ceil(d_eff / eps**2))


def sample_size(rho: float, r: int, log_arg: float, constants: str = "practical", eps: float = 0.1,
                minimum: int = 0) -> int:
    """``max{⌈c_N 4^r ρ log(log_arg)⌉, minimum}``."""
    return max(int(math.ceil(sample_size_constant(constants, eps) * 4.0**r * rho * math.log(log_arg))),
               int(minimum))


def kernel_estimate(gram: np.ndarray, counts: np.ndarray, means: np.ndarray, xi: float) -> np.ndarray:
    """F̂ at every pair from per-pair counts and means (see module docstring).

    Args:
        gram: (P, P) kernel matrix over all pairs; counts, means: (P,) (means ignored where
        counts == 0); xi: per-sample regulariser ξ.
    Returns:
        (P,) estimated rewards.
    """
    counts = np.asarray(counts, dtype=float).ravel()
    means = np.asarray(means, dtype=float).ravel()
    I = np.flatnonzero(counts > 0)
    if len(I) == 0:
        return np.zeros(gram.shape[0])
    sq = np.sqrt(counts[I])
    N = counts.sum()
    Kp = sq[:, None] * gram[np.ix_(I, I)] * sq[None, :]
    L = cholesky_jitter(Kp + N * xi * np.eye(len(I)))
    alpha = chol_solve(L, sq * means[I])
    return gram[:, I] @ (sq * alpha)
