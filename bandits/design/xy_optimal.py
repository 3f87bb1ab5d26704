r"""XY- and G-optimal designs: the certified interior-point (Newton) solver, mirror descent, the
RAGE code's Frank-Wolfe, and the duality-gap lower bound (the equations are in :mod:`bandits.design`'s
docstring). The three XY solvers share the problem reduction and the evaluator below.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular
from scipy.optimize import linprog

from .base import (SUPPORT_TOL, DesignResult, ReducedProblem, as_2d, backtrack, blas_limit, check_weights, feature_map_from_gram,
                   prune_weights, reduce_problem, target_coefficients)
from ..validation import check, one_of, rule

__all__ = ["xy_lower_bound", "xy_optimal_design", "kernel_xy_optimal_design", "g_optimal_design",
           "kernel_g_optimal_design"]


class _Evaluator:
    """Cholesky-based evaluation of y^T A^{-1} y and derived quantities on a reduced problem."""

    def __init__(self, red: ReducedProblem):
        self.X, self.Y, self.extra, self.zeta = red.X, red.Y, red.extra, red.zeta
        self.r = self.X.shape[1]

    def factor(self, lam):
        A = (self.X.T * lam) @ self.X
        A = 0.5 * (A + A.T)
        if self.zeta:
            A[np.diag_indices_from(A)] += self.zeta
        try:
            return cholesky(A, lower=True, check_finite=False)
        except (LinAlgError, ValueError):
            return None

    def values(self, lam, L=None):
        if L is None:
            L = self.factor(lam)
        if L is None:
            return np.full(self.Y.shape[0], np.inf), None, None
        Z = solve_triangular(L, self.Y.T, lower=True, check_finite=False)  # (r, m)
        return np.einsum("ij,ij->j", Z, Z) + self.extra, Z, L

    def values_pinv(self, lam):
        """y^T A^+ y with inf for targets outside the range of a singular A (zeta = 0 only)."""
        A = (self.X.T * lam) @ self.X
        s, U = np.linalg.eigh(0.5 * (A + A.T) + self.zeta * np.eye(self.r))
        keep = s > 1e-12 * max(s.max(), 1e-300)
        Yt = self.Y @ U
        v = (Yt[:, keep] ** 2 / s[keep]).sum(1) + self.extra
        resid = (Yt[:, ~keep] ** 2).sum(1)
        v[resid > 1e-9 * np.maximum((self.Y**2).sum(1), 1e-300)] = np.inf
        return v

    def lower_bound(self, L, Z, w):
        """2 tr(A^-1 M) - zeta tr(A^-2 M) - max_i x_i^T A^-1 M A^-1 x_i  (valid for any lam, w)."""
        AY = solve_triangular(L.T, Z, lower=False, check_finite=False)  # A^{-1} Y^T, (r, m)
        trAM = w @ (np.einsum("ij,ij->j", Z, Z) + self.extra)
        trA2M = w @ (np.einsum("ij,ij->j", AY, AY) + self.extra / max(self.zeta, 1e-300))
        G = self.X @ AY  # (K, m)
        d = (G**2) @ w
        zterm = self.zeta * trA2M if self.zeta else 0.0
        return 2.0 * trAM - zterm - d.max()

    def best_lower_bound(self, L, Z):
        """max over target mixtures w of the lower bound at fixed lam: the linear programme
        max_w c^T w - max_i (E w)_i,  c_j = 2 v_j - zeta ||A^-1 y_j||^2,  E_ij = (x_i^T A^-1 y_j)^2.
        Returns (bound, w)."""
        Zfull = Z
        K = self.X.shape[0]
        v_all = np.einsum("ij,ij->j", Z, Z) + self.extra
        # restrict w to the near-active targets (any support gives a valid bound; at the optimum
        # the dual lives on the targets with v_j = rho*); keeps the LP small when m is large
        U = v_all.max()
        J = np.flatnonzero(v_all >= U * (1.0 - 1e-2))
        if J.size > 400:
            J = J[np.argsort(-v_all[J], kind="stable")[:400]]
        m_all = Z.shape[1]
        Z = Z[:, J]
        extra = self.extra[J]
        m = J.size
        AY = solve_triangular(L.T, Z, lower=False, check_finite=False)
        v = v_all[J]
        c = 2.0 * v
        if self.zeta:
            c -= self.zeta * np.einsum("ij,ij->j", AY, AY) + extra
        E = (self.X @ AY) ** 2
        # variables (w_1..w_m, z); minimise -c^T w + z
        obj = np.r_[-c, 1.0]
        A_ub = np.hstack([E, -np.ones((K, 1))])
        A_eq = np.r_[np.ones(m), 0.0][None, :]
        bounds = [(0, None)] * m + [(None, None)]
        try:
            res = linprog(obj, A_ub=A_ub, b_ub=np.zeros(K), A_eq=A_eq, b_eq=[1.0],
                          bounds=bounds, method="highs")
        except ValueError:
            return -np.inf, None
        if res.status != 0:
            return -np.inf, None
        w = np.zeros(m_all)
        w[J] = np.clip(res.x[:m], 0, None)
        w /= w.sum()
        return float(self.lower_bound(L, Zfull, w)), w


def xy_lower_bound(X, Y, weights, dual, zeta: float = 0.0) -> float:
    r"""Certified lower bound on :math:`\rho^*=\min_\lambda\max_j y_j^\top A(\zeta,\lambda)^{-1}y_j`
    from any design ``weights`` and any target mixture ``dual`` (see module docstring)."""
    X, Y = as_2d(X, "X"), as_2d(Y, "Y")
    lam = check_weights(weights, X.shape[0])
    w = np.asarray(dual, dtype=float)
    red = reduce_problem(X, Y, zeta)
    ev = _Evaluator(red)
    _, Z, L = ev.values(lam / lam.sum())
    if L is None:
        return -np.inf
    return float(ev.lower_bound(L, Z, w / w.sum()))


# --------------------------------------------------------------------------------------------------
# XY design solvers
# --------------------------------------------------------------------------------------------------



def _newton_xy(ev: _Evaluator, lam0, tol, max_iter):
    """Log-barrier interior point for min_{lam in simplex, t} t  s.t.  v_j(lam) <= t.

    Barrier objective (per outer stage, parameter tau):
        Phi(lam, t) = tau t - sum_j log(t - v_j(lam)) - sum_i log lam_i ,  1^T lam = 1.
    Newton directions solve the KKT system in the scaled variables lam_i (1 + delta_i).
    """
    K = ev.X.shape[0]
    m = ev.Y.shape[0]
    lam = lam0.copy()
    v, Z, L = ev.values(lam)
    t = 2.0 * v.max() + 1e-12
    s = t - v
    tau = float(np.sum(1.0 / s))
    best = (np.inf, lam.copy(), None)
    best_lb, best_w = -np.inf, np.full(m, 1.0 / m)
    n_iter = 0
    converged = False
    kappa = 8.0

    def barrier(lam_, t_, v_):
        s_ = t_ - v_
        if np.any(s_ <= 0) or np.any(lam_ <= 0):
            return np.inf
        return tau * t_ - np.log(s_).sum() - np.log(lam_).sum()

    while n_iter < max_iter:
        # ---- centering ----
        for _ in range(60):
            if n_iter >= max_iter:
                break
            n_iter += 1
            s = t - v
            W = solve_triangular(L, ev.X.T, lower=True, check_finite=False)  # (r, K)
            G = W.T @ Z  # (K, m): x_i^T A^-1 y_j
            P = W.T @ W  # (K, K): x_i^T A^-1 x_k
            E = G**2
            inv_s = 1.0 / s
            inv_s2 = inv_s**2
            g_lam = -E @ inv_s - 1.0 / lam
            g_t = tau - inv_s.sum()
            H = np.empty((K + 1, K + 1))
            H[:K, :K] = (E * inv_s2) @ E.T + 2.0 * P * ((G * inv_s) @ G.T)
            H[:K, :K][np.diag_indices(K)] += 1.0 / lam**2
            H[:K, K] = H[K, :K] = E @ inv_s2
            H[K, K] = inv_s2.sum()
            g = np.r_[g_lam, g_t]
            # scale: z = (lam * (1 + delta), t + dt)
            dsc = np.r_[lam, 1.0]
            Hs = H * dsc[:, None] * dsc[None, :]
            gs = g * dsc
            es = np.r_[lam, 0.0]
            KKT = np.zeros((K + 2, K + 2))
            KKT[: K + 1, : K + 1] = Hs
            KKT[: K + 1, K + 1] = es
            KKT[K + 1, : K + 1] = es
            rhs = np.r_[-gs, 0.0]
            try:
                sol = np.linalg.solve(KKT, rhs)
            except np.linalg.LinAlgError:
                sol = np.linalg.lstsq(KKT, rhs, rcond=None)[0]
            dz = sol[: K + 1] * dsc
            dec2 = -g @ dz
            if not np.isfinite(dec2) or dec2 <= 0:
                break
            centred = dec2 / 2.0 <= 1e-10  # take this last (tiny) step, then stop centring
            dlam, dt = dz[:K], dz[K]
            f0 = barrier(lam, t, v)

            def trial(step, lam_n):
                t_n = t + step * dt
                v_n, Z_n, L_n = ev.values(lam_n)
                return barrier(lam_n, t_n, v_n), (t_n, v_n, Z_n, L_n)

            f_n, lam_n, (t_n, v_n, Z_n, L_n) = backtrack(lam, dlam, dec2, f0, trial)
            if not np.isfinite(f_n) or (f_n > f0 and dec2 >= 1e-9):
                break
            lam, t, v, Z, L = lam_n, t_n, v_n, Z_n, L_n
            if centred:
                break
        # ---- certificate ----
        U = v.max()
        if U < best[0]:
            best = (U, lam.copy(), None)
        w = 1.0 / (t - v)
        w /= w.sum()
        lb = ev.lower_bound(L, Z, w)
        if lb > best_lb:
            best_lb, best_w = lb, w
        if best[0] - best_lb > tol * abs(best[0]) and best[0] - best_lb < 1e3 * tol * abs(best[0]):
            # near the optimum: the best certificate for this lam is a small linear programme
            lb, w = ev.best_lower_bound(L, Z)
            if lb > best_lb:
                best_lb, best_w = lb, w
        if best[0] - best_lb <= tol * abs(best[0]):
            converged = True
            break
        if np.min(t - v) <= 1e-13 * abs(t):  # slack at machine precision: no further progress
            break
        tau *= kappa
    return best[1], best[0], best_lb, best_w, n_iter, converged


def _mirror_xy(ev: _Evaluator, lam0, tol, max_iter, check_every=25):
    """Entropic mirror descent on f(lam) = max_j v_j(lam) with the max-subgradient."""
    m = ev.Y.shape[0]
    lam = lam0.copy()
    best_val, best_lam = np.inf, lam.copy()
    wbar = np.zeros(m)
    best_lb, best_w = -np.inf, np.full(m, 1.0 / m)
    converged = False
    k = 0
    for k in range(max_iter):
        v, Z, L = ev.values(lam)
        j = int(np.argmax(v))
        if v[j] < best_val:
            best_val, best_lam = float(v[j]), lam.copy()
        wbar[j] += 1.0
        ay = solve_triangular(L.T, Z[:, j], lower=False, check_finite=False)
        g = -((ev.X @ ay) ** 2)
        gmax = np.abs(g).max()
        if (k + 1) % check_every == 0 or k == max_iter - 1:
            w = wbar / wbar.sum()
            lb = ev.lower_bound(L, Z, w)
            if lb > best_lb:
                best_lb, best_w = lb, w
            if best_val - best_lb <= tol * abs(best_val):
                converged = True
                break
        if gmax == 0:
            converged = True
            best_lb = best_val
            break
        eta = 1.0 / (np.sqrt(k + 1.0) * gmax)
        logl = np.log(np.maximum(lam, 1e-300)) - eta * g
        logl -= logl.max()
        lam = np.exp(logl)
        lam /= lam.sum()
    return best_lam, best_val, best_lb, best_w, k + 1, converged


def _rage_fw_xy(ev: _Evaluator, lam0, tol, max_iter):
    """Frank-Wolfe of the RAGE reference code (step 2/(k+2), stop on relative change < tol)."""
    lam = lam0.copy()
    converged = False
    count = 0
    for count in range(1, max_iter):
        v, Z, L = ev.values(lam)
        if L is None:  # singular (zeta = 0): pseudo-inverse as in the reference code
            break
        j = int(np.argmax(v))
        ay = solve_triangular(L.T, Z[:, j], lower=False, check_finite=False)
        g = (ev.X @ ay) ** 2
        i = int(np.argmax(g))
        gamma = 2.0 / (count + 2.0)
        upd = -gamma * lam
        upd[i] += gamma
        rel = np.linalg.norm(upd) / np.linalg.norm(lam)
        lam = lam + upd
        if rel < tol:
            converged = True
            break
    lam = lam.copy()
    lam[lam < SUPPORT_TOL] = 0.0
    lam /= lam.sum()
    v, Z, L = ev.values(lam)
    if L is None:  # pruned support no longer spans the arms: pseudo-inverse, as the reference
        v = ev.values_pinv(lam)
    return lam, float(v.max()), -np.inf, None, count, converged


_METHODS = ("newton", "mirror", "rage")


def _solve_xy(red: ReducedProblem, *, method, tol, max_iter, weights0, prune_tol) -> DesignResult:
    K = red.X.shape[0]
    m = red.Y.shape[0]
    check("method", method, one_of(*_METHODS))
    if m == 0:
        return DesignResult(np.full(K, 1.0 / K), 0.0, 0.0, 0.0, 0, True, method, np.zeros(0))
    ev = _Evaluator(red)
    # Rescale so that the value at the uniform design is 1 (better conditioned barrier).
    uni = np.full(K, 1.0 / K)
    v0, _, L0 = ev.values(uni)
    if L0 is None or not np.isfinite(v0).all():
        raise ValueError(
            "the design matrix is singular at the uniform design (zeta = 0 and targets outside "
            "the span of the arms?)"
        )
    scale = float(v0.max())
    if scale <= 0:  # all targets are zero
        return DesignResult(uni, 0.0, 0.0, 0.0, 0, True, method, np.full(m, 1.0 / m))
    ev.Y = ev.Y / np.sqrt(scale)
    ev.extra = ev.extra / scale
    if weights0 is None:
        lam0 = uni
    else:
        lam0 = check_weights(weights0, K)
        lam0 = lam0 / lam0.sum()
        if method != "rage":
            lam0 = 0.9 * lam0 + 0.1 * uni  # interior start
    if method == "newton":
        lam, val, lb, w, it, conv = _newton_xy(ev, lam0, tol, max_iter or 500)
    elif method == "mirror":
        lam, val, lb, w, it, conv = _mirror_xy(ev, lam0, tol, max_iter or 3000)
    else:
        lam, val, lb, w, it, conv = _rage_fw_xy(ev, lam0, tol, max_iter or 5000)
    if not val - lb <= tol * abs(val):
        _, Z, L = ev.values(lam)
        if L is not None:
            lb2, w2 = ev.best_lower_bound(L, Z)
            if lb2 > lb:
                lb, w = lb2, w2
        if method != "rage":
            conv = conv or val - lb <= tol * abs(val)
    if prune_tol and method != "rage":
        # zero the weights that do not matter: largest relative threshold (up to prune_tol)
        # whose pruned design keeps the value within tol
        for thr in 10.0 ** np.arange(-9, np.log10(prune_tol) + 0.5):
            lp = prune_weights(lam, thr)
            if lp is None:
                continue
            vp, _, Lp = ev.values(lp)
            if Lp is None and ev.zeta == 0:  # support no longer spans the arms: pseudo-inverse
                vp = ev.values_pinv(lp)
            allowed = max(lb + tol * abs(val), val) if np.isfinite(lb) else val * (1 + tol)
            if not vp.max() <= allowed:
                break
            lam, val = lp, float(vp.max())
    val *= scale
    lb = lb * scale if np.isfinite(lb) else -np.inf
    lb = min(lb, val)
    return DesignResult(
        weights=lam,
        value=float(val),
        bound=float(lb),
        gap=float(val - lb),
        n_iter=int(it),
        converged=bool(conv),
        method=method,
        dual=w,
    )


def xy_optimal_design(
    X,
    Y,
    zeta: float = 0.0,
    *,
    method: str = "newton",
    tol: float | None = None,
    max_iter: int | None = None,
    weights0=None,
    prune_tol: float = 1e-3,
) -> DesignResult:
    r"""XY-optimal (transductive) design :math:`\min_{\lambda\in\Delta_K}\max_{y\in\mathcal Y}
    y^\top(\zeta I + \sum_i\lambda_i x_ix_i^\top)^{-1}y`.

    Args:
        X: (K, p) arm features (the design's support candidates).
        Y: (m, p) targets, e.g. ``pairwise_differences(X, all_pairs(active))``.
        zeta: ridge :math:`\zeta\ge 0`.  With ``zeta == 0`` the targets must lie in the span of
            the arms (a target outside gives an infinite objective; ``ValueError``), and the
            returned design may leave directions that no target needs unsampled (its ``value``
            is then the pseudo-inverse value, the limit of interior designs).
        method: ``"newton"`` (log-barrier interior point, certified, default), ``"mirror"``
            (entropic mirror descent, best iterate), or ``"rage"`` (the RAGE reference code's
            Frank-Wolfe; ``tol`` is then its relative-change threshold, default 0.01).
        tol: stopping tolerance on the relative certified gap ``(value - bound) / value``
            (defaults: 1e-6 newton, 1e-3 mirror, 0.01 rage relative change).
        max_iter: iteration cap (defaults: 500 Newton steps, 3000 mirror steps, 5000 FW steps).
        weights0: optional warm start (mixed 9:1 with uniform for the interior methods).
        prune_tol: after solving, weights below ``prune_tol * max(weights)`` are zeroed if this
            does not raise the value by more than ``tol`` (relative).  ``0`` disables.

    Returns:
        :class:`DesignResult` with ``value`` :math:`=\max_j y_j^\top A^{-1}y_j` at ``weights``
        and a certified lower ``bound`` on the optimum (for ``"mirror"``/``"rage"`` the best bound
        at the returned design, from a small linear programme over target mixtures).
    """
    X, Y = as_2d(X, "X"), np.asarray(Y, dtype=float)
    if Y.ndim == 1:
        Y = Y[None, :] if Y.size else Y.reshape(0, X.shape[1])
    check("Y", Y, rule(lambda a: a.ndim == 2 and a.shape[1] == X.shape[1], f"an (m, {X.shape[1]}) array"))
    if tol is None:
        tol = {"newton": 1e-6, "mirror": 1e-3, "rage": 0.01}.get(method, 1e-6)
    with blas_limit():
        red = reduce_problem(X, Y, zeta)
        return _solve_xy(
            red, method=method, tol=tol, max_iter=max_iter, weights0=weights0, prune_tol=prune_tol
        )


def kernel_xy_optimal_design(
    gram,
    targets,
    zeta: float,
    *,
    rtol: float = 1e-10,
    **kwargs,
) -> DesignResult:
    r"""Kernelised XY design, :math:`\min_\lambda\max_j\|y_j\|^2_{(\zeta I+\sum_i\lambda_i
    \phi(x_i)\phi(x_i)^\top)^{-1}}` with :math:`y_j=\sum_i C_{ji}\phi(x_i)`.

    CoKernelFC's :math:`\rho^*_r` is ``kernel_xy_optimal_design(K, within_group_pairs(B), xi)``
    and CoKernelFB's :math:`\omega(\xi,S)` is ``kernel_xy_optimal_design(K, all_pairs(S), xi)``
    (the design always ranges over all rows of the Gram matrix).  Solved on the empirical kernel
    map :math:`\Psi` (:func:`feature_map_from_gram`), exact for every target in the span.

    Args:
        gram: (K, K) Gram matrix.
        targets: (m, 2) integer pairs ``(a, b)`` for :math:`\phi(x_a)-\phi(x_b)`, or an (m, K)
            coefficient matrix.
        zeta: ridge :math:`\zeta \ge 0`.
        rtol: eigenvalue cut-off of the empirical kernel map.
        **kwargs: forwarded to :func:`xy_optimal_design`.
    """
    Psi = feature_map_from_gram(gram, rtol=rtol)
    C = target_coefficients(targets, Psi.shape[0])
    if Psi.shape[1] == 0:  # zero kernel
        Psi = np.zeros((Psi.shape[0], 1))
    return xy_optimal_design(Psi, C @ Psi, zeta, **kwargs)


def g_optimal_design(X, zeta: float = 0.0, **kwargs) -> DesignResult:
    r"""G-optimal design :math:`\min_\lambda\max_i x_i^\top A(\zeta,\lambda)^{-1}x_i`
    (the XY design with :math:`\mathcal Y = \mathcal X`).

    With ``zeta == 0`` the Kiefer-Wolfowitz theorem gives optimal value ``rank(X)`` and the
    D-optimal design as a solution.  Keyword arguments go to :func:`xy_optimal_design`.
    """
    X = as_2d(X, "X")
    return xy_optimal_design(X, X, zeta, **kwargs)


def kernel_g_optimal_design(gram, zeta: float, *, rtol: float = 1e-10, **kwargs) -> DesignResult:
    r"""Kernelised G-optimal design :math:`\min_\lambda\max_i\|\phi(x_i)\|^2_{A(\zeta,\lambda)^{-1}}`."""
    K = np.asarray(gram).shape[0]
    return kernel_xy_optimal_design(gram, np.eye(K), zeta, rtol=rtol, **kwargs)
