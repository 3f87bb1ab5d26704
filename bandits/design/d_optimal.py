r"""D-optimal design, maximum information gain, design and effective dimensions.

The notation and the equations are in :mod:`bandits.design`'s docstring; the solvers share
:mod:`bandits.design.base`'s BLAS thread limit and validation helpers.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular

from .base import (DesignResult, as_2d, backtrack, blas_limit, check_weights, feature_map_from_gram, prune_weights,
                   reduce_problem)
from ..validation import check, gt, one_of

__all__ = ["d_optimal_design", "max_information_gain", "design_dimension", "effective_dimension", "symmetrize_weights"]


def _logdet_and_d(X, lam, zeta):
    A = (X.T * lam) @ X
    A = 0.5 * (A + A.T)
    if zeta:
        A[np.diag_indices_from(A)] += zeta
    try:
        L = cholesky(A, lower=True, check_finite=False)
    except (LinAlgError, ValueError):
        return -np.inf, None, None
    W = solve_triangular(L, X.T, lower=True, check_finite=False)
    return 2.0 * np.log(np.diag(L)).sum(), W, L


def _newton_d(X, zeta, lam0, tol, max_iter):
    """Barrier Newton for max log det A(lam) over the simplex.

    Minimise  -log det A(lam) - mu sum_i log lam_i  (1^T lam = 1), mu -> 0.
    Gradient -d_i - mu/lam_i with d_i = x_i^T A^-1 x_i; Hessian (P o P) + mu diag(lam^-2),
    P = X A^-1 X^T.  Certificate: max_i d_i - lam^T d >= logdet* - logdet(lam).
    """
    K = X.shape[0]
    lam = lam0.copy()
    ld, W, _ = _logdet_and_d(X, lam, zeta)
    mu = 1.0 / K
    n_iter, converged = 0, False
    gap = np.inf
    while n_iter < max_iter:
        for _ in range(50):
            if n_iter >= max_iter:
                break
            n_iter += 1
            P = W.T @ W
            d = np.diag(P).copy()
            g = -d - mu / lam
            H = P * P
            H[np.diag_indices(K)] += mu / lam**2
            Hs = H * lam[:, None] * lam[None, :]
            gs = g * lam
            KKT = np.zeros((K + 1, K + 1))
            KKT[:K, :K] = Hs
            KKT[:K, K] = KKT[K, :K] = lam
            try:
                sol = np.linalg.solve(KKT, np.r_[-gs, 0.0])
            except np.linalg.LinAlgError:
                sol = np.linalg.lstsq(KKT, np.r_[-gs, 0.0], rcond=None)[0]
            dlam = sol[:K] * lam
            dec2 = -g @ dlam
            if not np.isfinite(dec2) or dec2 <= 0:
                break
            centred = dec2 / 2.0 <= 1e-12
            f0 = -ld - mu * np.log(lam).sum()

            def trial(step, lam_n):
                ld_n, W_n, _ = _logdet_and_d(X, lam_n, zeta)
                return -ld_n - mu * np.log(lam_n).sum(), (ld_n, W_n)

            f_n, lam_n, (ld_n, W_n) = backtrack(lam, dlam, dec2, f0, trial)
            if not np.isfinite(f_n) or (f_n > f0 and dec2 >= 1e-9):
                break
            lam, ld, W = lam_n, ld_n, W_n
            if centred:
                break
        d = np.einsum("ij,ij->j", W, W)
        gap = float(d.max() - lam @ d)
        if gap <= tol:
            converged = True
            break
        mu /= 10.0
    return lam, ld, gap, n_iter, converged


def _fw_d(X, zeta, lam0, tol, max_iter):
    """Frank-Wolfe with away steps (Wolfe-Atwood / Todd-Yildirim) and exact line search on
    log det A(lam).  Along lam + g (e_i - lam) (toward) or lam + g (lam - e_a) (away),
    A = zeta I + alpha M + beta x x^T with (alpha, beta) = (1-g, g) or (1+g, -g), and
    log det = sum_k log(zeta + alpha s_k) + log(1 + beta sum_k xt_k^2 / (zeta + alpha s_k))
    in the eigenbasis of M; the step maximises this scalar concave function (closed form for
    zeta = 0: g = (d_i/r - 1)/(d_i - 1) toward, the analogous formula away)."""
    from scipy.optimize import minimize_scalar

    r = X.shape[1]
    lam = lam0.copy()
    n_iter, converged, gap = 0, False, np.inf
    for n_iter in range(1, max_iter + 1):
        M = (X.T * lam) @ X
        M = 0.5 * (M + M.T)
        s, Q = np.linalg.eigh(M)
        D = zeta + s
        if np.any(D <= 0):
            raise ValueError("singular design matrix in D-optimal Frank-Wolfe")
        Xt = X @ Q
        d = (Xt**2 / D).sum(1)
        ld_ = lam @ d
        i = int(np.argmax(d))
        gap = float(d[i] - ld_)
        if gap <= tol:
            converged = True
            break
        supp = np.flatnonzero(lam > 0)
        a = supp[int(np.argmin(d[supp]))]
        if d[i] - ld_ >= ld_ - d[a]:
            toward, vtx, gmax = True, i, 1.0
        else:
            toward, vtx = False, a
            gmax = lam[a] / (1.0 - lam[a]) if lam[a] < 1 else np.inf
        x2 = Xt[vtx] ** 2
        if zeta == 0:
            dv = d[vtx]
            if toward:
                g = (dv / r - 1.0) / (dv - 1.0) if dv > 1 else 0.0
            else:
                g = (1.0 - dv / r) / (dv - 1.0) if dv > 1 else gmax
            g = float(np.clip(g, 0.0, gmax))
        else:
            sign = 1.0 if toward else -1.0

            def negf(gg):
                alpha, beta = 1.0 - sign * gg, sign * gg
                Dg = zeta + alpha * s
                if np.any(Dg <= 0):
                    return np.inf
                inner = 1.0 + beta * (x2 / Dg).sum()
                return -(np.log(Dg).sum() + np.log(inner)) if inner > 0 else np.inf

            hi = min(gmax, 1.0 - 1e-15) if not toward else 1.0
            res = minimize_scalar(negf, bounds=(0.0, hi), method="bounded",
                                  options={"xatol": 1e-12})
            g = float(res.x)
            if negf(hi) <= res.fun:
                g = hi
        if toward:
            lam = (1.0 - g) * lam
            lam[vtx] += g
        else:
            lam = (1.0 + g) * lam
            lam[vtx] -= g
            if g >= gmax:
                lam[vtx] = 0.0
        lam = np.maximum(lam, 0.0)
        lam /= lam.sum()
    ld, _, _ = _logdet_and_d(X, lam, zeta)
    return lam, ld, gap, n_iter, converged


def d_optimal_design(
    X,
    zeta: float = 0.0,
    *,
    method: str = "newton",
    tol: float = 1e-8,
    max_iter: int | None = None,
    weights0=None,
    prune_tol: float = 1e-3,
) -> DesignResult:
    r"""D-optimal design :math:`\max_{\lambda\in\Delta_K}\log\det(\zeta I + \sum_i\lambda_i
    x_ix_i^\top)`.

    ``value`` is :math:`\log\det A(\zeta,\lambda)` in :math:`\mathbb R^p` (for ``zeta == 0``, the
    log pseudo-determinant on the span of the arms); ``bound = value + gap`` with the Frank-Wolfe
    gap :math:`\max_i x_i^\top A^{-1}x_i - \sum_i\lambda_i x_i^\top A^{-1}x_i`, an upper bound on
    the optimum (concavity).  At the optimum :math:`\max_i x_i^\top A^{-1}x_i = \sum_i\lambda_i
    x_i^\top A^{-1} x_i` (CoPE-KB Lemma 3), which equals ``rank(X)`` when ``zeta == 0``.

    Args:
        X: (K, p) arm features.
        zeta: ridge :math:`\zeta\ge 0`.
        method: ``"newton"`` (barrier Newton, default) or ``"frank-wolfe"`` (Fedorov-Wynn steps
            with away steps and exact line search).
        tol: absolute tolerance on the gap (log-det units, i.e. relative on the determinant).
        max_iter: cap (default 300 Newton / 20000 Frank-Wolfe steps).
        weights0: optional warm start.
        prune_tol: weights below ``thr * max`` are zeroed for the largest ``thr`` in
            ``1e-9, ..., prune_tol`` that lowers the log-det by at most ``tol``; ``0`` disables.
    """
    X = as_2d(X, "X")
    K, p = X.shape
    red = reduce_problem(X, np.zeros((0, p)), zeta)
    Xr, r = red.X, red.X.shape[1]
    uni = np.full(K, 1.0 / K)
    lam0 = uni if weights0 is None else 0.9 * check_weights(weights0, K) / np.sum(weights0) + 0.1 * uni
    if r == 0:
        return DesignResult(uni, p * np.log(zeta) if zeta else -np.inf, 0.0, 0.0, 0, True, method)
    check("method", method, one_of("newton", "frank-wolfe", "fw"))
    with blas_limit():
        if method == "newton":
            lam, ld, gap, it, conv = _newton_d(Xr, zeta, lam0, tol, max_iter or 300)
        else:
            lam, ld, gap, it, conv = _fw_d(Xr, zeta, lam0, tol, max_iter or 20000)
            method = "frank-wolfe"
    bound = ld + gap
    if prune_tol:
        for thr in 10.0 ** np.arange(-9, np.log10(prune_tol) + 0.5):
            lp = prune_weights(lam, thr)
            if lp is None:
                continue
            ldp, Wp, _ = _logdet_and_d(Xr, lp, zeta)
            if Wp is None or not ldp >= ld - tol:
                break
            dp = np.einsum("ij,ij->j", Wp, Wp)
            bound = min(bound, ldp + float(dp.max() - lp @ dp))
            lam, ld = lp, ldp
    gap = max(bound - ld, 0.0)
    if zeta and r < p:
        ld += (p - r) * np.log(zeta)
    return DesignResult(lam, float(ld), float(ld + gap), float(gap), int(it), bool(conv), method)


def max_information_gain(gram, zeta: float, *, rtol: float = 1e-10, **kwargs):
    r"""Maximum information gain :math:`\Upsilon=\max_\lambda\log\det(I+\zeta^{-1}K_\lambda)`,
    :math:`K_\lambda=[\sqrt{\lambda_i\lambda_j}k(x_i,x_j)]` (CoPE-KB Sec. 5).

    Since :math:`\det(I+\zeta^{-1}K_\lambda)=\det(I+\zeta^{-1}\Psi^\top D\Psi)`, this is the
    regularised D-optimal design on the empirical kernel map.

    Returns:
        ``(upsilon, result)`` with ``result`` the :class:`DesignResult` of the D-design
        (``result.weights`` is CoPE-KB's :math:`\lambda^*`).
    """
    check("zeta", zeta, gt(0))
    Psi = feature_map_from_gram(gram, rtol=rtol)
    res = d_optimal_design(Psi, zeta, **kwargs)
    r = Psi.shape[1]
    return float(res.value - r * np.log(zeta)), res


def design_dimension(gram, weights, zeta: float) -> int:
    r""":math:`d(\xi,\lambda)`: the number of eigenvalues of :math:`K_\lambda =
    [\sqrt{\lambda_i\lambda_j}k(x_i,x_j)]` (equivalently of :math:`\sum_i\lambda_i\phi_i\phi_i^\top`)
    larger than :math:`\xi` (CoPE-KB, Sec. 4.1: ROUND needs :math:`N\ge\tau=O(d/\varepsilon^2)`)."""
    G = np.asarray(gram, dtype=float)
    sq = np.sqrt(check_weights(weights, G.shape[0]))
    ev = np.linalg.eigvalsh(sq[:, None] * G * sq[None, :])
    return int(np.sum(ev > zeta))


def effective_dimension(gram, weights, zeta: float) -> int:
    r"""Effective dimension :math:`d_{\rm eff}=\min\{j : j\,\xi\log(K)\ge\sum_{i>j}\alpha_i\}`,
    :math:`\alpha_1\ge\dots\ge\alpha_K` the eigenvalues of :math:`K_\lambda` and :math:`K` the number
    of arms (:math:`nV` in CoPE-KB)."""
    G = np.asarray(gram, dtype=float)
    K = G.shape[0]
    sq = np.sqrt(check_weights(weights, K))
    alpha = np.sort(np.clip(np.linalg.eigvalsh(sq[:, None] * G * sq[None, :]), 0, None))[::-1]
    tail = np.r_[np.cumsum(alpha[::-1])[::-1], 0.0]  # tail[j] = sum_{i>j} alpha_i (0-based: i >= j)
    j = np.arange(K + 1)
    ok = j * zeta * np.log(max(K, 2)) >= tail[j]
    return int(j[ok][0])


def symmetrize_weights(weights, features, decimals: int = 10) -> np.ndarray:
    r"""Split each distinct feature vector's mass equally among its identical copies.

    Leaves :math:`A(\zeta,\lambda)` unchanged (identical rows contribute identical outer
    products) and balances the load across agents that hold copies of the same arm.

    Args:
        weights: (K,) design.
        features: (K, p) features (rows compared after rounding to ``decimals``).
    """
    w = np.asarray(weights, dtype=float)
    F = np.round(as_2d(features, "features"), decimals)
    _, inv = np.unique(F, axis=0, return_inverse=True)
    inv = inv.ravel()
    tot = np.bincount(inv, weights=w)
    cnt = np.bincount(inv)
    return tot[inv] / cnt[inv]
