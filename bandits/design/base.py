r"""The shared parts of the design solvers: results, checks, design matrices and norms, target sets,
the reduction of a problem to the span of its arms, and the Newton step helpers.

The notation and the equations are in :mod:`bandits.design`'s docstring. The helpers without an
underscore but outside ``__all__`` (:func:`as_2d`, :func:`check_weights`, :func:`blas_limit`,
:func:`reduce_problem`, :func:`prune_weights`, :func:`backtrack`, :data:`SUPPORT_TOL`) are the
package's internal interface: the solver modules share them; users need not.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular
from ..validation import check, fail, ge, gt, rule

__all__ = ["BLAS_THREADS", "DesignResult", "design_matrix", "design_norms", "kernel_design_norms",
           "feature_map_from_gram", "all_pairs", "within_group_pairs", "pairs_to_best", "pairwise_differences",
           "difference_coefficients"]


try:  # optional: keep BLAS single-threaded inside the solvers (see BLAS_THREADS)
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover
    _threadpool_limits = None

SUPPORT_TOL = 1e-5  # RAGE code: weights < 1e-5 are zeroed before rounding

#: BLAS threads inside the design solvers.  The matrices here are small (tens to a few hundred
#: rows); a multi-threaded OpenBLAS on a busy 2-core machine made a 100-arm D-design 100x slower
#: (4 s instead of 25 ms).  ``None`` leaves the process-wide setting alone.  Needs threadpoolctl.
BLAS_THREADS: int | None = 1


def blas_limit():
    if BLAS_THREADS is None or _threadpool_limits is None:
        return contextlib.nullcontext()
    return _threadpool_limits(limits=BLAS_THREADS, user_api="blas")


# --------------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DesignResult:
    """Outcome of a design solve.

    Attributes:
        weights: (K,) design :math:`\\lambda` on the simplex.
        value: objective at ``weights``: :math:`\\max_{y} y^\\top A^{-1} y` (XY/G designs) or
            :math:`\\log\\det A(\\zeta,\\lambda)` (D-design; for ``zeta == 0`` the log
            pseudo-determinant on the span of the arms).
        bound: certified bound on the optimum: a lower bound for XY/G (minimisation), an upper
            bound for D (maximisation).
        gap: ``|value - bound|``, an upper bound on the sub-optimality of ``weights``.
        n_iter: iterations used (Newton steps, mirror-descent or Frank-Wolfe steps).
        converged: whether the stopping tolerance was met before ``max_iter``.
        method: solver name.
        dual: (m,) worst-case mixture :math:`w` over the targets that produced ``bound``
            (XY/G designs only, else ``None``).
    """

    weights: np.ndarray
    value: float
    bound: float
    gap: float
    n_iter: int
    converged: bool
    method: str
    dual: np.ndarray | None = None

    @property
    def relative_gap(self) -> float:
        """``gap / |value|`` (0 when value is 0)."""
        return float(self.gap / abs(self.value)) if self.value != 0 else 0.0


# --------------------------------------------------------------------------------------------------
# Basic linear algebra
# --------------------------------------------------------------------------------------------------


def as_2d(a, name: str) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        a = a[None, :]
    check(name, a, rule(lambda x: x.ndim == 2, "a 1-D or 2-D array"))
    return a


def check_weights(weights, K: int) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    check("weights", w, rule(lambda x: x.shape == (K,), f"a ({K},) array"),
          rule(lambda x: not np.any(x < 0) and np.isfinite(x).all(), "finite and non-negative"))
    return w


def design_matrix(X, weights, zeta: float = 0.0) -> np.ndarray:
    r""":math:`A(\zeta,\lambda) = \zeta I + \sum_i \lambda_i x_i x_i^\top = \zeta I + X^\top
    \operatorname{diag}(\lambda) X`.

    Args:
        X: (K, p) arm features.
        weights: (K,) non-negative weights (need not sum to one; counts work too).
        zeta: ridge :math:`\zeta \ge 0`.

    Returns:
        (p, p) symmetric matrix.
    """
    X = as_2d(X, "X")
    w = check_weights(weights, X.shape[0])
    A = (X.T * w) @ X
    A = 0.5 * (A + A.T)
    if zeta:
        A[np.diag_indices_from(A)] += zeta
    return A


def design_norms(X, weights, Y, zeta: float = 0.0) -> np.ndarray:
    r"""Squared norms :math:`\|y_j\|^2_{A(\zeta,\lambda)^{-1}} = y_j^\top A(\zeta,\lambda)^{-1}y_j`.

    Uses a Cholesky factor when :math:`A` is positive definite; otherwise (``zeta == 0`` and a
    singular :math:`A`) the pseudo-inverse on the range of :math:`A`, with ``inf`` for targets that
    leave the range (relative residual > 1e-9).

    Args:
        X: (K, p) arm features.
        weights: (K,) non-negative weights.
        Y: (m, p) targets (or a single (p,) vector).
        zeta: ridge :math:`\zeta \ge 0`.

    Returns:
        (m,) array of norms.
    """
    Y = as_2d(Y, "Y")
    A = design_matrix(X, weights, zeta)
    try:
        L = cholesky(A, lower=True)
        Z = solve_triangular(L, Y.T, lower=True)
        return np.einsum("ij,ij->j", Z, Z)
    except LinAlgError:
        s, U = np.linalg.eigh(A)
        keep = s > 1e-12 * max(s.max(), 1e-300)
        Yt = Y @ U
        v = (Yt[:, keep] ** 2 / s[keep]).sum(1)
        resid = (Yt[:, ~keep] ** 2).sum(1)
        yy = (Y**2).sum(1)
        v[resid > 1e-9 * np.maximum(yy, 1e-300)] = np.inf
        return v


def kernel_design_norms(gram, weights, C, zeta: float) -> np.ndarray:
    r"""Kernelised norms from the Gram matrix only (Woodbury form, CoPE-KB App. C.2).

    For targets :math:`y_j = \sum_i C_{ji}\phi(x_i)` (e.g. :math:`C_j = e_a - e_b` for
    :math:`\phi(x_a)-\phi(x_b)`),

    .. math::

        y_j^\top(\zeta I + \Phi^\top D\Phi)^{-1}y_j = \zeta^{-1}\Big[c_j^\top K c_j
          - (D^{1/2}K c_j)^\top(\zeta I + K_\lambda)^{-1}(D^{1/2}K c_j)\Big],

    with :math:`D = \operatorname{diag}(\lambda)` and :math:`K_\lambda = D^{1/2}KD^{1/2}`
    (in the paper's notation :math:`D^{1/2}Kc_j = k_\lambda(a)-k_\lambda(b)`).

    Args:
        gram: (K, K) Gram matrix :math:`K_{ij} = k(x_i, x_j)`.
        weights: (K,) non-negative weights.
        C: (m, K) coefficient matrix, or (m, 2) integer pairs ``(a, b)`` meaning
            :math:`\phi(x_a)-\phi(x_b)`.
        zeta: ridge, must be > 0.

    Returns:
        (m,) array of norms.
    """
    check("zeta", zeta, gt(0))
    G = np.asarray(gram, dtype=float)
    K = G.shape[0]
    C = target_coefficients(C, K)
    w = check_weights(weights, K)
    sq = np.sqrt(w)
    KC = G @ C.T  # (K, m)
    cKc = np.einsum("ij,ij->j", C.T, KC)
    Klam = sq[:, None] * G * sq[None, :]
    Klam[np.diag_indices_from(Klam)] += zeta
    B = sq[:, None] * KC
    L = cholesky(0.5 * (Klam + Klam.T), lower=True)
    Z = solve_triangular(L, B, lower=True)
    return (cKc - np.einsum("ij,ij->j", Z, Z)) / zeta


def feature_map_from_gram(gram, rtol: float = 1e-10) -> np.ndarray:
    r"""Empirical kernel map :math:`\Psi` with :math:`\Psi\Psi^\top = K` (up to dropped eigenvalues).

    :math:`K = U\operatorname{diag}(s)U^\top`; keep :math:`s_k > \mathrm{rtol}\cdot\max s` and return
    :math:`\Psi = U_{:,k}\operatorname{diag}(\sqrt{s_k})`, shape (K, r).  Rows of :math:`\Psi` are
    finite-dimensional features that reproduce every inner product among the :math:`\phi(x_i)`.

    Args:
        gram: (K, K) symmetric positive semi-definite Gram matrix.
        rtol: relative eigenvalue cut-off.

    Returns:
        (K, r) feature matrix, columns ordered by decreasing eigenvalue.
    """
    G = np.asarray(gram, dtype=float)
    check("gram", G, rule(lambda a: a.ndim == 2 and a.shape[0] == a.shape[1], "a square array"))
    s, U = np.linalg.eigh(0.5 * (G + G.T))
    smax = max(s.max(initial=0.0), 0.0)
    keep = s > rtol * smax if smax > 0 else np.zeros_like(s, dtype=bool)
    s, U = s[keep][::-1], U[:, keep][:, ::-1]
    return U * np.sqrt(s)


def target_coefficients(C, K: int) -> np.ndarray:
    C = np.asarray(C)
    if C.ndim == 2 and C.shape[1] == 2 and np.issubdtype(C.dtype, np.integer):
        return difference_coefficients(C, K)
    C = np.asarray(C, dtype=float)
    if C.ndim == 1:
        C = C[None, :]
    check("coefficients", C, rule(lambda a: a.ndim == 2 and a.shape[1] == K, f"an (m, {K}) array or (m, 2) integer pairs"))
    return C


# --------------------------------------------------------------------------------------------------
# Target sets (the "Y" of XY designs)
# --------------------------------------------------------------------------------------------------


def all_pairs(active) -> np.ndarray:
    """All unordered pairs ``(a, b)``, ``a`` before ``b`` in ``active``.

    Args:
        active: sequence of arm indices (or an integer K meaning ``range(K)``).

    Returns:
        (m, 2) int array, m = |active| (|active| - 1) / 2, lexicographic order.
    """
    idx = np.arange(active) if np.isscalar(active) else np.asarray(active, dtype=int).ravel()
    a, b = np.triu_indices(idx.size, k=1)
    return np.stack([idx[a], idx[b]], axis=1).astype(int)


def within_group_pairs(groups: Sequence) -> np.ndarray:
    """Pairs of arms that lie in the same group (CoKernelFC's :math:`\\mathcal Y_r`).

    Args:
        groups: sequence of index arrays, e.g. the active arms :math:`B_v^{(r)}` of every agent in
            global (agent-major) indexing.  Groups with fewer than two arms add nothing.

    Returns:
        (m, 2) int array of all within-group pairs, groups in order.
    """
    parts = [all_pairs(g) for g in groups]
    parts = [p for p in parts if p.size]
    return np.concatenate(parts, axis=0) if parts else np.zeros((0, 2), dtype=int)


def pairs_to_best(active, best: int) -> np.ndarray:
    """Directions to an (empirical) best arm: pairs ``(best, i)`` for ``i`` in ``active``, ``i != best``.

    This is the "XY-allocation towards the empirical best" target set (e.g. the
    :math:`\\{x_{\\hat\\imath} - x\\}` directions used by XY-adaptive / ALBA-style rules).
    """
    idx = np.asarray(active, dtype=int).ravel()
    idx = idx[idx != best]
    return np.stack([np.full(idx.size, best, dtype=int), idx], axis=1)


def pairwise_differences(X, pairs) -> np.ndarray:
    """Difference vectors :math:`x_a - x_b` for each row ``(a, b)`` of ``pairs``: (m, p)."""
    X = as_2d(X, "X")
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    return X[pairs[:, 0]] - X[pairs[:, 1]]


def difference_coefficients(pairs, n_arms: int) -> np.ndarray:
    """Coefficient rows :math:`e_a - e_b` (shape (m, n_arms)) for kernel targets."""
    pairs = np.asarray(pairs, dtype=int).reshape(-1, 2)
    C = np.zeros((pairs.shape[0], n_arms))
    r = np.arange(pairs.shape[0])
    C[r, pairs[:, 0]] += 1.0
    C[r, pairs[:, 1]] -= 1.0
    return C


# --------------------------------------------------------------------------------------------------
# Problem reduction: work on the span of the arms
# --------------------------------------------------------------------------------------------------


@dataclass
class ReducedProblem:
    X: np.ndarray  # (K, r) arms in an orthonormal basis of their span
    Y: np.ndarray  # (m, r) target components in the span
    extra: np.ndarray  # (m,) constant ||y_perp||^2 / zeta (0 if none)
    zeta: float
    scale: float  # values were divided by this


def reduce_problem(X: np.ndarray, Y: np.ndarray, zeta: float, rtol: float = 1e-10) -> ReducedProblem:
    """Project onto span{x_i}.  A(zeta, lam) = zeta I on the complement, so
    y^T A^{-1} y = y_s^T A_s^{-1} y_s + ||y_perp||^2 / zeta exactly."""
    check("zeta", zeta, ge(0))
    _, sv, Vt = np.linalg.svd(X, full_matrices=False)
    keep = sv > rtol * sv.max() if sv.size and sv.max() > 0 else np.zeros(sv.shape, bool)
    B = Vt[keep].T  # (p, r)
    Xr = X @ B
    Yr = Y @ B
    yy = (Y**2).sum(1)
    resid = np.maximum(yy - (Yr**2).sum(1), 0.0)
    resid[resid <= 1e-9 * np.maximum(yy, 1e-300)] = 0.0
    if np.any(resid > 0):
        if zeta == 0:
            fail("zeta", zeta, "> 0", note="some target lies outside the span of the arms")
        extra = resid / zeta
    else:
        extra = np.zeros(Y.shape[0])
    return ReducedProblem(Xr, Yr, extra, float(zeta), 1.0)



def prune_weights(lam, thr: float):
    """Pruning candidate of the solvers: ``lam`` with the weights below ``thr · max(lam)`` zeroed and
    renormalised, or ``None`` when that zeroes nothing. The callers try ``thr = 1e-9, 1e-8, …`` up to
    ``prune_tol`` on the design accepted so far."""
    small = lam < thr * lam.max()
    if not small.any():
        return None
    lp = np.where(small, 0.0, lam)
    lp /= lp.sum()
    return lp


def backtrack(lam, dlam, dec2: float, f0: float, trial):
    """Damped Newton step of the barrier solvers (:func:`bandits.design.xy_optimal._newton_xy`, :func:`bandits.design.d_optimal._newton_d`):
    from the largest step keeping ``lam > 0`` (at most 1), halve until the Armijo condition
    ``f(step) <= f0 − step·dec2/4`` holds (or ``step < 1e-12``), the candidate being
    ``lam + step·dlam`` clipped at 1e-300 and renormalised to the simplex. ``trial(step, lam_n)``
    returns ``(f_n, state)``; returns ``(f_n, lam_n, state)`` of the accepted step."""
    # largest step keeping lam > 0
    neg = dlam < 0
    step = min(1.0, 0.99 * np.min(-lam[neg] / dlam[neg])) if np.any(neg) else 1.0
    while True:
        lam_n = np.maximum(lam + step * dlam, 1e-300)
        lam_n /= lam_n.sum()
        f_n, state = trial(step, lam_n)
        if f_n <= f0 - 0.25 * step * dec2 or step < 1e-12:
            break
        if dec2 < 1e-9 and np.isfinite(f_n):  # quadratic region: the decrease is below
            # the rounding error of the barrier value, so Armijo cannot be checked
            break
        step *= 0.5
    return f_n, lam_n, state


