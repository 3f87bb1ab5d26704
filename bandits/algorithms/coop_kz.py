r"""Coop-KernelUCB's network kernel: ``K_z`` estimated and truncated (Dubey & Pentland, ICML 2020, §3.3).

A mixin of :class:`~bandits.algorithms.coop_engine.NetworkKernelUCB` (it reads the engine's settings and
state): :meth:`NetworkKernelFactor._W_lists` gives each agent's network-kernel matrix over its
acceptance list, :meth:`NetworkKernelFactor._factor` its truncated factor ``W_A ≈ L Lᵀ`` with the
``‖L_v‖² ≥ min_var·W_vv`` safeguard (the primal path's features ``ψ(u, x) = L_u ⊗ φ(x)``,
:mod:`bandits.algorithms.coop_primal`), :meth:`NetworkKernelFactor._W_dual` the dense kernels of the
dual path.

Truncation (a choice of this package; the paper's Remark 4 works with the exact Gram matrix): the
eigendecomposition of ``W_A = K̂_z[A, A]``, eigenvalues below ``rank_tol · max`` dropped, at most
``r_max`` kept, but ``r`` raised until ``‖L_v‖² ≥ min_var · W[v,v]`` — a cut below the number of distinct
agent groups in ``A`` merges their functions and shrinks the agent's own prior variance ``‖L_v‖²`` below
``W[v,v]``, i.e. silently lowers η — up to ``r_limit``. ``K̂_z`` and ``L`` are recomputed every
``kz_every`` rounds (the paper's incremental Schur update, Remark 4, is only valid between refreshes of
an estimated ``K_z``).

``kz_min_samples = m`` (default 1 = the paper's algorithm; our option, the paper is silent on how
the estimate starts): a source enters agent ``v``'s ``K̂_z`` — and so ``v``'s model — only once
``m`` of its samples are visible to ``v``; until then ``v`` holds its data back (the agent's own data
are used from round 1). Motivation: with 1–10 samples per source the MMD estimates are mostly noise, so
``K̂_z`` is close to full rank and the ``‖L_v‖² ≥ 0.95`` safeguard raises ``r`` towards ``|A|``
(measured on ER(200, 0.7), γ = 1, linear row: mean ``r`` ≈ 107 after one sample, 36 after 10, 16
after 20, < 10 after 50), i.e. primal systems of size ``r·d`` ≈ 1 000 in the first rounds. **Not
recommended for the figures**: holding data back costs far more regret than the noisy early
estimate (one ER(200, 0.7) linear run, T = 50: per-run regret 176 with ``m = 1``, 313 with ``m = 5``,
632 with ``m = 20``); ``truncation="own_residual"`` bounds the cost instead (178 at ``r_max = 10``).

``truncation="own_residual"`` (our option, not in the paper): instead of raising ``r``, keep
``r ≤ r_max`` (and ``r_limit``) and give each agent one more column, ``√(W_vv − ‖L_v‖²)`` on its own row
only, i.e. use ``W̃ = L Lᵀ + (W_vv − ‖L_v‖²) e_v e_vᵀ`` (PSD): the agent's own prior variance and the
weight of its own data are then exact and only the cross-source covariances are truncated, at the cost
of ``p = (r + 1)·D``. Where the ``‖L_v‖² ≥ 0.95`` safeguard cannot be afforded — the RBF row, whose
estimated ``K̂_z`` needs ``r`` ≈ 65 of ~141 for it at any ``t`` on ER(200, 0.7) (``p`` ≈ 8 300), or the
first rounds of the MMD estimate — this keeps what the safeguard protects (the exploration scale at
the agent's own ``z_v``) instead of silently shrinking it as a bare ``r_limit`` does.
``info()["min_Lv2"]`` reports the low-rank part ``min_v ‖L_v‖²/W_vv`` in both modes (over every refresh;
``min_Lv2_last`` and ``rank_last`` at the last one). ``r_limit`` is ``None`` by default (no cap: the
safeguard always holds); a cap is applied only when asked for and never silently: the first refresh it
leaves an agent below ``min_var`` raises a ``RuntimeWarning``, and ``info()["capped_agent_refreshes"]``
counts the (agent, refresh) pairs it cut short (a cap of 4 on Figure 1's RBF row leaves some agents with
66 % of their own variance, well below the safeguard: the rank-cap ablation's ``min_kept_var`` in
``figures/coop_kernelucb/runs.csv``).

Eigenpairs (an engine choice, the same factor to round-off): each model's ``K̂_z`` is decomposed on its
active block only (sources with visible data; a one-source block — an independent agent, a Dist
peripheral — is its own eigenpair) and, once a factor exists, only the ``max(r_max, ⌈1.25·r_prev⌉ + 2)``
largest pairs are computed (LAPACK ``dsyevr``); a model whose safeguard is not met within them while its
spectrum goes on is recomputed with every pair (:func:`_group_eigh`, ``log["eig_full"]`` counts them).
Measured (one core, 200 models of ~140 sources): 0.38 s per refresh with every pair, 0.18 s with 8; a
Dist-like stack (20 centres, 180 peripherals) 0.23 → 0.02 s.
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg.lapack import dsyevr as _dsyevr

from .coop_features import kz_from_mmd, mmd_from_embeddings, mmd_vstatistic

__all__ = ["NetworkKernelFactor"]


def _top_eigh(W: np.ndarray, k: int | None):
    """Eigenpairs of the symmetric stack ``W`` (G, n, n), largest first: all of them (numpy's batched
    ``eigh``) when ``k`` is ``None`` or ``≥ n``, else only the ``k`` largest (LAPACK ``dsyevr``, one
    matrix at a time: the tridiagonal reduction without the full back-transformation, ≈ 2.7× less CPU
    than the full batched ``eigh`` at G = 200, n = 141, k = 4). Everything :meth:`NetworkKernelUCB._factor`
    reads of the spectrum lies within the first ``r_limit`` pairs when ``r_limit`` caps the rank (the
    rank, ``‖L_v‖²`` up to it, the numerical rank up to it), so the factor is the same; an eigenvector's
    sign may differ, which leaves ``L Lᵀ`` and every model unchanged."""
    G, n, _ = W.shape
    if k is None or k >= n:
        w, U = np.linalg.eigh(W)
        return w[:, ::-1], U[:, :, ::-1]
    k = max(int(k), 1)
    w, U = np.empty((G, k)), np.empty((G, n, k))
    for g in range(G):
        wg, Z, m, _, info = _dsyevr(W[g], compute_v=1, range="I", il=n - k + 1, iu=n, lower=1, overwrite_a=0)
        if info != 0 or m != k:
            raise np.linalg.LinAlgError(f"dsyevr failed on the network kernel of model {g} (info {info}, {m} of {k} pairs)")
        w[g], U[g] = wg[:k][::-1], Z[:, :k][:, ::-1]
    return w, U


def _group_eigh(W: np.ndarray, k_of, w=None, U=None, groups=None):
    """The largest eigenpairs of each matrix of the stack ``W`` (G, n, n) on its **active block** only
    (the rows with a nonzero entry: the sources with visible data; the zero rows and columns of the padded
    accept list decouple exactly and add only zero eigenvalues): ``k_of[g]`` pairs of matrix ``g``
    (``None`` or ``≥`` its active size: all of them, numpy's ``eigh``; fewer: LAPACK ``dsyevr``, range
    ``"I"``, which skips most of the back-transformation). A one-source block (an independent agent, a
    Dist peripheral) is its own eigenpair.

    Returns ``(w, U, k, n)``: ``w`` (G, K) eigenvalues largest first, zero-padded; ``U`` (G, n, K)
    eigenvectors on the active rows, zero elsewhere; ``k`` (G,) pairs computed; ``n`` (G,) active sizes.
    With ``w, U, groups``: recompute only ``groups`` into (a widened copy of) ``w, U``.

    The same factor as :func:`_top_eigh` on the padded matrices to round-off (an eigenvector's sign may
    differ, which changes no model): what :meth:`NetworkKernelFactor._factor` reads of the spectrum lies
    within the pairs computed (it checks, and recomputes a group in full when not)."""
    G, A, _ = W.shape
    act = np.any(W != 0, axis=2)
    n_of = act.sum(axis=1)
    k_eff = np.array([int(n_of[g]) if k_of is None or k_of[g] is None else min(int(k_of[g]), int(n_of[g]))
                      for g in range(G)], dtype=np.int64)
    K = max(int(k_eff.max()) if G else 1, 1)
    if w is None:
        w, U = np.zeros((G, K)), np.zeros((G, A, K))
        groups = range(G)
    elif K > w.shape[1]:
        w = np.concatenate([w, np.zeros((G, K - w.shape[1]))], axis=1)
        U = np.concatenate([U, np.zeros((G, A, K - U.shape[2]))], axis=2)
    for g in groups:
        n, k = int(n_of[g]), int(k_eff[g])
        w[g], U[g] = 0.0, 0.0
        if n == 0 or k == 0:
            continue
        ii = np.flatnonzero(act[g])
        if n == 1:
            w[g, 0], U[g, ii[0], 0] = W[g, ii[0], ii[0]], 1.0
            continue
        sub = W[g][np.ix_(ii, ii)]
        if k >= n:
            wg, Z = np.linalg.eigh(sub)
        else:
            wg, Z, m, _, info = _dsyevr(sub, compute_v=1, range="I", il=n - k + 1, iu=n, lower=1, overwrite_a=1)
            if info != 0 or m != k:
                raise np.linalg.LinAlgError(f"dsyevr failed on the network kernel of model {g} (info {info}, {m} of {k} pairs)")
            wg, Z = wg[:k], Z[:, :k]
        w[g, :k] = wg[::-1]
        U[g, ii, :k] = Z[:, ::-1]
    return w, U, k_eff, n_of


class NetworkKernelFactor:
    """The ``K̂_z`` estimate and its truncated factor (module docstring); a mixin of the engine."""

    #: eigenpairs by :func:`_group_eigh` (active blocks, only the pairs the factor can use); ``False``:
    #: :func:`_top_eigh` on the padded matrices (the reference of the tests)
    _eig_adaptive = True

    def _eig_hint(self):
        """Eigenpairs to compute per group at this refresh: ``r_limit`` under a cap; else, once a factor
        exists and ``r_max`` is set, ``max(r_max, ⌈1.25·r_prev⌉ + 2)`` from the group's last rank (ranks
        fall as ``K̂_z`` settles; a group that needs more is recomputed in full by :meth:`_factor`);
        ``None`` (all) otherwise."""
        G = len(self.reps)
        if self.r_limit is not None:
            return [int(self.r_limit)] * G
        r_prev = getattr(self, "r", None)
        if self.r_max is None or self.L is None or r_prev is None or len(r_prev) != self.N:
            return None
        return [max(int(self.r_max), int(np.ceil(1.25 * x)) + 2) for x in r_prev[self.reps]]

    def _refresh_due(self, t: int) -> bool:
        return self.L is None or (self.kz == "mmd" and (t % self.kz_every == 0
                                                         or t <= self.tau_max + self.kz_min_samples - 1))

    def _active(self, t: int) -> np.ndarray:
        """(V, Amax) bool: source in v's list with at least ``kz_min_samples`` visible observations at
        round t (at least one for the agent itself)."""
        tau = np.take_along_axis(self.tau_acc, np.maximum(self.idx, 0), axis=1)
        act = (self.idx >= 0) & (tau > 0) & (tau <= t - self.kz_min_samples + 1)
        act[:, 0] = tau[:, 0] <= t  # the agent's own data are used from round 1 on
        return act

    def _W_lists(self, t: int, rows=None) -> np.ndarray:
        """(V, Amax, Amax) network-kernel matrices over each agent's padded accept list (``rows``: of
        those agents only, (len(rows), Amax, Amax))."""
        V, Amax = self.N, self.Amax
        rows = np.arange(V) if rows is None else np.asarray(rows, dtype=np.int64)
        act = self._active(t)[rows]
        idx = self.idx[rows]
        n = len(rows)
        if self.kz == "ones" or self.accept == "self":
            W = np.ones((n, Amax, Amax))
        elif self.kz == "oracle":
            ii = np.maximum(idx, 0)
            W = self.W_oracle[ii[:, :, None], ii[:, None, :]]
            act = idx >= 0
        else:
            # every agent's K̂_z entries are MMDs between the mean embeddings of (source, delay) pairs:
            # compute them once over all n_levels·V such points, then gather each agent's matrix
            levels = [dl for dl in self.delay_levels if t - dl >= 0]
            means = np.zeros((len(levels), V, self.phi_p.D))
            for k, dl in enumerate(levels):
                means[k] = self.stats.read("E", t - dl) / (t - dl + 1)
            if not len(levels):
                return np.zeros((n, Amax, Amax))
            Kg = kz_from_mmd(mmd_from_embeddings(means.reshape(-1, self.phi_p.D)), self.sigma_z, self.squared)
            ii = np.maximum(idx, 0)
            tau = np.take_along_axis(self.tau_acc[rows], ii, axis=1)
            lev = np.searchsorted(np.array(levels, dtype=np.int64), tau).clip(0, max(len(levels) - 1, 0))
            # (n, Amax) row of each listed source in Kg; an inactive one points at an appended zero row and
            # column, so the gather gives the masked matrices (the same entries as gathering and then
            # masking with np.where, without the (n, Amax, Amax) mask and the second pass)
            m = len(levels) * V
            fi = np.where(act, lev * V + ii, m)
            Kz = np.zeros((m + 1, m + 1))
            Kz[:m, :m] = Kg
            out = np.empty((n, Amax, Amax))
            for g in range(n):  # its rows, then their columns: contiguous copies, no (n, Amax, Amax) index
                np.take(Kz[fi[g]], fi[g], axis=1, out=out[g])
            return out
        mask = act[:, :, None] & act[:, None, :]
        return np.where(mask, W, 0.0)

    def _factor(self, t: int) -> None:
        """Refresh ``self.L`` (V, V, R) from the (estimated) network kernel (module docstring)."""
        V = self.N
        if self.path == "dual":
            self.L, self.r = np.zeros((V, V, 0)), np.zeros(V, dtype=np.int64)  # the dual path needs no factor
            return
        if self.accept == "self" or self.kz == "ones":
            L = np.zeros((V, V, 1))
            valid = self.idx >= 0
            L[np.broadcast_to(np.arange(V)[:, None], self.idx.shape)[valid], self.idx[valid], 0] = 1.0
            self.L, self.r = L, np.ones(V, dtype=np.int64)
            self.log["rank_mean"].append(1.0)
            self.log["rank_max"].append(1)
            self.log["min_Lv2"].append(1.0)
            return
        reps = self.reps
        gi = np.searchsorted(reps, self.rep_of)  # (V,) group index of every agent
        W = self._W_lists(t, reps)  # (G, Amax, Amax)
        Wvv = W[gi, self.pos_in_rep, self.pos_in_rep]
        k_of = self._eig_hint() if self._eig_adaptive else None
        if self._eig_adaptive:
            w, U, kg, ng = _group_eigh(W, k_of)
        else:  # the reference: every pair (or the r_limit largest) of the padded matrices
            w, U = _top_eigh(W, self._eig_pairs)
        while True:
            wmax = np.maximum(w[:, :1], 0.0)
            pos = w > self.rank_tol * np.where(wmax > 0, wmax, 1.0)
            nrank = pos.sum(axis=1)
            # ‖L_v‖² vs rank for every agent v (its row in its group's factor) and its W_vv
            Uv = U[gi, self.pos_in_rep, :]  # (V, K)
            lv2 = np.cumsum(np.where(pos[gi], Uv**2 * np.maximum(w[gi], 0), 0.0), axis=1)
            ok = lv2 >= self.min_var * Wvv[:, None]
            need = np.where(ok.any(axis=1), ok.argmax(axis=1), ok.shape[1]) + 1
            if k_of is None or self.r_limit is not None:
                break
            # a group whose spectrum was cut (k < n, the k-th pair still above rank_tol) while a member's
            # safeguard is not met within it: its factor may need more pairs; compute all of them
            last = pos[np.arange(len(reps)), np.maximum(kg - 1, 0)] & (kg < ng)
            short = np.zeros(len(reps), dtype=bool)
            np.logical_or.at(short, gi, ~ok[:, -1])
            miss = np.flatnonzero(last & short)
            if not len(miss):
                break
            k_of = [None if g in set(miss.tolist()) else k_of[g] for g in range(len(reps))]
            w, U, kg, ng = _group_eigh(W, k_of, w, U, miss)
            self.log["eig_full"] = self.log.get("eig_full", 0) + len(miss)
        r = nrank.copy() if self.r_max is None else np.minimum(nrank, self.r_max)
        if self.truncation == "raise":
            need_g = np.zeros(len(reps), dtype=np.int64)
            np.maximum.at(need_g, gi, need)  # a shared model serves its most demanding member
            r = np.maximum(r, np.minimum(need_g, nrank))
        if self.r_limit is not None:
            r = np.minimum(r, int(self.r_limit))
        r = np.maximum(r, 1)
        rv = r[gi]
        frac = lv2[np.arange(V), rv - 1] / np.maximum(Wvv, 1e-300)  # ‖L_v‖² / W_vv of the low-rank part
        if self.r_limit is not None:
            # a cap asked for: never silent. Count the agents it left below the safeguard, warn once.
            short = int(np.count_nonzero((frac < self.min_var * (1 - 1e-9)) & (Wvv > 0)))
            self.log["capped"] += short
            if short and not self._warned_cap:
                self._warned_cap = True
                warnings.warn(f"{self.name}: r_limit={self.r_limit} overrides the ‖L_v‖² ≥ {self.min_var:g}·W_vv "
                              f"safeguard for {short} of {V} agents at round {t} (kept own variance down to "
                              f"{float(np.min(frac)):.3f}); recorded in info()['capped_agent_refreshes'] and "
                              f"info()['min_Lv2']", RuntimeWarning, stacklevel=2)
        extra = np.zeros(V)
        if self.truncation == "own_residual":
            # one more column per agent: √(W_vv − ‖L_v‖²) on its own row only (zero when nothing is cut)
            extra = np.maximum(Wvv - lv2[np.arange(V), rv - 1], 0.0)
            extra[extra <= self.rank_tol * np.maximum(Wvv, 1e-300)] = 0.0
        r_tot = rv + (extra > 0)
        R = int(r_tot.max())
        Rl = int(r.max())
        keep = np.arange(Rl)[None, :] < r[:, None]
        F = U[:, :, :Rl] * np.sqrt(np.maximum(w[:, None, :Rl], 0.0)) * keep[:, None, :]  # (G, Amax, Rl)
        # a source whose row of W is zero (no visible data yet) has L_u = 0 exactly, not eigenvector
        # round-off (~1e-16): Dist's peripherals test their centre's row for zero
        F[~np.any(W != 0, axis=2)] = 0.0
        Lg = np.zeros((len(reps), V, R))
        ir = self.idx[reps]
        valid = ir >= 0
        Lg[np.broadcast_to(np.arange(len(reps))[:, None], ir.shape)[valid], ir[valid], :Rl] = F[valid]
        L = Lg[gi]  # members share their representative's factor
        own = np.flatnonzero(extra > 0)
        L[own, own, rv[own]] = np.sqrt(extra[own])
        self.L, self.r = L, r_tot.astype(np.int64)
        self.log["rank_mean"].append(float(r_tot.mean()))
        self.log["rank_max"].append(R)
        self.log["min_Lv2"].append(float(np.min(frac)))
        self.log["rank_last"] = float(r_tot.mean())
        self.log["min_Lv2_last"] = float(np.min(frac))

    def _W_dual(self, t: int) -> np.ndarray:
        """(V, V, V) dense network kernels for the dual path; with ``kz="mmd"`` from the raw samples
        by the V-statistic (independent of the embedding sums the primal path uses)."""
        V = self.N
        # K̂_z covers the sources with visible data (refreshed until all have some); a fixed
        # kernel (oracle, ones) covers every accepted source once and for all
        act = self._active(t) if self.kz == "mmd" and self.accept != "self" else self.idx >= 0
        Wd = np.zeros((V, V, V))
        for v in range(V):
            ii = self.idx[v][act[v]]
            if self.kz == "mmd" and self.accept != "self":
                kP = lambda a, b: self.phi_p(a) @ self.phi_p(b).T  # noqa: E731
                samples = [self.Xhist[: t - int(self.tau_acc[v, u]) + 1, u] for u in ii]
                M2 = np.array([[mmd_vstatistic(a, b, kP) for b in samples] for a in samples])
                Wv = kz_from_mmd(M2, self.sigma_z, self.squared)
            elif self.kz == "oracle" and self.accept != "self":
                Wv = self.W_oracle[np.ix_(ii, ii)]
            else:
                Wv = np.ones((len(ii), len(ii)))
            Wd[v][np.ix_(ii, ii)] = Wv
        return Wd

