r"""Coop-KernelUCB's dual solver (Dubey & Pentland, ICML 2020, Eq. 9; Alg. 1 l.7, l.34–35).

A mixin of :class:`~bandits.algorithms.coop_engine.NetworkKernelUCB`: agent ``v``'s kernel ridge model
on its visible observations under a network kernel ``W`` (the estimated ``K̂_z`` of
:mod:`bandits.algorithms.coop_kz` on ``path="dual"``, or ``W̃ = L Lᵀ`` of the primal path's factor
while the dual system is the smaller one)::

    K_ij = W[u_i,u_j] K_x(x_i,x_j),   κ(x)_i = W[v,u_i] K_x(x,x_i)
    μ(x)  = κ(x)ᵀ (K + λI)⁻¹ y,   σ²(x) = W[v,v] K_x(x,x) − κ(x)ᵀ (K + λI)⁻¹ κ(x)

* ``path="dual"``: the exact dual above, rebuilt from the raw visible observations every round
  (Cholesky of ``K + λI``; O(n³)). The reference for small graphs. (The paper's incremental
  Schur update of Alg. 1 l.24–31 is only valid between ``K̂_z`` refreshes, though Remark 4 says it
  applies when ``K_z`` is approximated online; the reference recomputes from scratch, which is simpler and exact.)
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular

__all__ = ["DualSolver"]


class DualSolver:
    """The exact dual model of one agent and its scores (module docstring); a mixin of the engine."""

    def _feat(self, X):
        """What the dual kernel is computed from: ``φ(X)`` (RFF or identity), or ``X`` itself for
        the exact RBF kernel (computed once per model and reused by every agent that scores it)."""
        return np.asarray(X, dtype=float) if self.features == "exact" else self.phi(X)

    def _kx(self, FA, FB):
        """``K_x`` between two sets given by :meth:`_feat`."""
        if self.features == "exact":
            from ..kernels import RBF
            return RBF(lengthscale=self.ell)(FA, FB)
        return FA @ FB.T

    def _dual_model(self, v: int, t: int, W: np.ndarray, sources=None):
        """Agent v's exact dual state at round t under network kernel W (V, V) (``sources``: the
        accepted sources to include, default all; a source whose row of W is zero adds nothing)."""
        us = np.flatnonzero(self.acc[v]) if sources is None else np.asarray(sources, dtype=np.int64)
        last = t - self.tau_acc[v, us]
        us, last = us[last >= 0], last[last >= 0]
        src = np.repeat(us, last + 1)
        rnd = (np.arange(len(src)) - np.repeat(np.cumsum(last + 1) - (last + 1), last + 1)).astype(np.int64)
        FX, y = self._feat(self.Xhist[rnd, src]), self.yhist[rnd, src]
        if len(src):
            # W[src][:, src] by blocks: the sources' (k, k) block, each row and column repeated once per
            # observation (the same entries as the (n, n) gather, a fraction of its cost)
            Ws = np.repeat(np.repeat(W[np.ix_(us, us)], last + 1, axis=0), last + 1, axis=1)
            K = Ws * self._kx(FX, FX)
            K.reshape(-1)[:: len(src) + 1] += self.lam  # K + λI
            Lc = np.linalg.cholesky(K)
        else:
            Lc = np.zeros((0, 0))
        alpha = solve_triangular(Lc, y, lower=True, check_finite=False) if len(src) else np.zeros(0)
        logdet = 2.0 * np.log(np.diag(Lc)).sum() - len(src) * np.log(self.lam) if len(src) else 0.0
        return src, FX, Lc, alpha, logdet

    def _scores_dual(self, model, W, q: int, Xq):
        src, FX, Lc, alpha, logdet = model
        FQ = self._feat(Xq)
        kqq = W[q, q] * np.diag(self._kx(FQ, FQ))
        if len(src) == 0:
            return self._ucb(np.zeros(len(Xq)), kqq, logdet)
        kap = W[q, src][:, None] * self._kx(FX, FQ)
        Z = solve_triangular(Lc, kap, lower=True, check_finite=False)
        return self._ucb(Z.T @ alpha, kqq - np.einsum("ij,ij->j", Z, Z), logdet)

