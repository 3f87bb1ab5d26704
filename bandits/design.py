r"""Optimal experimental design over a finite set of arms.

These solvers serve the RAGE family of pure-exploration algorithms (RAGE, Fiez et al. 2019; Peace,
Katz-Samuels et al. 2020; CoKernelFC / CoKernelFB, Du et al. 2023).  Everything is plain numpy/scipy,
float64, and deterministic: the only randomised helpers take an explicit
:class:`numpy.random.Generator`.

Notation
--------
The arms are the K rows :math:`x_1,\dots,x_K` of ``X`` (shape ``(K, p)``), or, in the kernel case,
the feature vectors :math:`\phi(x_i)` known only through the Gram matrix
:math:`K_{ij} = \phi(x_i)^\top\phi(x_j)`.  A *design* is a point of the simplex
:math:`\lambda \in \Delta_K = \{\lambda \ge 0, \sum_i \lambda_i = 1\}` and

.. math::

    A(\zeta, \lambda) = \zeta I + \sum_{i=1}^K \lambda_i x_i x_i^\top , \qquad \zeta \ge 0 .

(the paper CoPE-KB writes :math:`A(\xi,\lambda)`; ``zeta`` here is its :math:`\xi`).

Design problems solved here
---------------------------

* **XY (transductive) design** for a finite target set :math:`\mathcal Y = \{y_1,\dots,y_m\}`
  (typically differences :math:`x_i - x_j` of active arms):

  .. math::

      \rho^* = \min_{\lambda\in\Delta_K} f(\lambda), \qquad
      f(\lambda) = \max_{y\in\mathcal Y} \|y\|^2_{A(\zeta,\lambda)^{-1}}
                 = \max_{y} y^\top A(\zeta,\lambda)^{-1} y .

  This is RAGE's :math:`\rho(\mathcal Y(\hat{\mathcal Z}_t))`, Peace's / CoPE-KB's
  principal dimension :math:`\omega(\xi, S)` (targets = pairs of :math:`S`) and CoKernelFC's
  :math:`\rho^*_r` (targets = within-agent pairs of active arms, design over all :math:`nV` pairs).
  :math:`f` is convex (the matrix inverse is operator convex and :math:`A` is affine in
  :math:`\lambda`).
* **G-optimal design**: the XY design with :math:`\mathcal Y = \{x_1,\dots,x_K\}`,
  :math:`\min_\lambda \max_i x_i^\top A(\zeta,\lambda)^{-1} x_i`.
* **D-optimal design**: :math:`\max_\lambda \log\det A(\zeta,\lambda)`; with
  :math:`\zeta>0` this is the maximum-information-gain design of CoPE-KB,
  :math:`\Upsilon = \max_\lambda \log\det(I + \zeta^{-1} K_\lambda)`,
  :math:`K_\lambda = [\sqrt{\lambda_i\lambda_j}\,k(x_i,x_j)]`.  By the Kiefer-Wolfowitz
  equivalence theorem (:math:`\zeta=0`, :math:`X` of rank :math:`p`), the D-optimal and G-optimal
  designs coincide and the optimal G-value is :math:`p`.

Certificates
------------
Every XY/G result carries a certified lower bound.  For any :math:`\lambda\in\Delta_K` and any
mixture :math:`w\in\Delta_m` of targets, with :math:`M_w=\sum_j w_j y_j y_j^\top`,
:math:`A=A(\zeta,\lambda)` and :math:`d_i = x_i^\top A^{-1} M_w A^{-1} x_i`,

.. math::

    \rho^* \;\ge\; \min_{\lambda'} \operatorname{tr}(A(\zeta,\lambda')^{-1}M_w)
           \;\ge\; 2\operatorname{tr}(A^{-1}M_w) - \zeta\operatorname{tr}(A^{-2}M_w)
                   - \max_i d_i ,

(convexity of :math:`\lambda'\mapsto\operatorname{tr}(A(\lambda')^{-1}M_w)`, whose gradient is
:math:`-d`, linearised at :math:`\lambda` and minimised over the simplex).  ``gap = value -
lower_bound`` therefore bounds the sub-optimality of the returned design.  For the D-design the
Frank-Wolfe gap :math:`\max_i x_i^\top A^{-1}x_i - \sum_i\lambda_i x_i^\top A^{-1}x_i` bounds
:math:`\log\det A(\lambda^*) - \log\det A(\lambda)`.

Solvers
-------
``method="newton"`` (default): a log-barrier interior-point method (Boyd & Vandenberghe, ch. 11) on
the epigraph form :math:`\min_{\lambda,t} t` s.t. :math:`y_j^\top A^{-1}y_j \le t`,
:math:`\lambda\in\Delta_K`, with exact gradients and Hessians

.. math::

    \partial_{\lambda_i} y_j^\top A^{-1} y_j = -(x_i^\top A^{-1} y_j)^2, \qquad
    \partial^2_{\lambda_i\lambda_k} y_j^\top A^{-1} y_j
        = 2\,(x_i^\top A^{-1}x_k)(x_i^\top A^{-1}y_j)(x_k^\top A^{-1}y_j).

It reaches relative gaps of 1e-6 and below in a few dozen Newton steps; cost per step
:math:`O(K^2 m + Kmp + p^3)`.  ``method="mirror"``: entropic mirror descent on the
max-subgradient, :math:`\lambda \leftarrow \lambda\odot e^{-\eta_k g}/Z`,
:math:`g_i = -(x_i^\top A^{-1}y^*)^2`, :math:`\eta_k = 1/(\sqrt{k+1}\,\|g\|_\infty)`, best iterate
(cheap per step, :math:`O(1/\sqrt{k})`: 0.2-0.5 % above the optimum after 3000 steps for 30 arms
in :math:`\mathbb R^{20}`, 1-4 % for 100-200 arms).
``method="rage"``: the Frank-Wolfe loop of the RAGE reference code (uniform start, step
:math:`2/(k+2)` toward :math:`\arg\max_i (x_i^\top A^{-1}y^*)^2`, stop when
:math:`\|\Delta\lambda\|/\|\lambda\| < 0.01` or after 5000 iterations, weights below 1e-5
zeroed) -- kept for faithful reproduction; it stops 1-5 % above the optimum.

For a given design the best certificate, :math:`\max_w` of the bound above, is a linear programme
in :math:`w` (restricted to the near-active targets); it is solved with HiGHS near the optimum and
at the end of any solve whose gap is still above ``tol``.  At a sub-optimal design (mirror
descent, RAGE) the bound can be loose.

D-designs: ``method="newton"`` (barrier Newton on :math:`-\log\det A - \mu\sum_i\log\lambda_i`,
Hessian :math:`(XA^{-1}X^\top)^{\circ 2}`) or ``method="frank-wolfe"`` (Fedorov-Wynn vertex steps
plus away steps, exact line search).

Kernel case
-----------
For the kernel functions the Gram matrix is factorised once, :math:`K = U\operatorname{diag}(s)U^\top
= \Psi\Psi^\top` with :math:`\Psi = U\operatorname{diag}(\sqrt s)` (eigenvalues below
``rtol * max(s)`` dropped; the *empirical kernel map*).  Rows of :math:`\Psi` are exact finite
features for the span of :math:`\{\phi(x_i)\}`; :math:`A(\zeta,\lambda)` acts as
:math:`\zeta I` on the orthogonal complement, which no target :math:`y = \sum_i c_i\phi(x_i)`
touches, so every norm equals its feature-space value.  :func:`kernel_design_norms` evaluates
the same norms with the Gram matrix only, through the Woodbury identity

.. math::

    y^\top A(\zeta,\lambda)^{-1} y = \zeta^{-1}\big[c^\top K c
        - c^\top K D^{1/2}(\zeta I + K_\lambda)^{-1} D^{1/2} K c\big],
    \qquad D = \operatorname{diag}(\lambda),\; K_\lambda = D^{1/2} K D^{1/2},

(CoPE-KB App. C.2), and is used to cross-check the factorised path.

Rounding
--------
:func:`efficient_rounding` is Pukelsheim's efficient apportionment (Pukelsheim 2006, ch. 12), the
``rounding`` routine of the RAGE and Peace reference code: on the support
:math:`S=\{\lambda_i > 10^{-5}\}` with :math:`s = |S|`, start from
:math:`n_i = \lceil (N - s/2)\lambda_i\rceil`, then add a pull at :math:`\arg\min_i n_i/\lambda_i`
while :math:`\sum n_i < N` and remove one at :math:`\arg\max_i (n_i-1)/\lambda_i` while
:math:`\sum n_i > N`.  The result satisfies :math:`(N-s)\lambda_i \le n_i \le N\lambda_i + 1`, hence
:math:`\sum_i n_i x_i x_i^\top \succeq (N-s)\sum_i\lambda_i x_ix_i^\top`, and for every target
:math:`\|y\|^2_{(N\zeta I + \sum_i n_i x_ix_i^\top)^{-1}} \le \frac{N}{N-s}\,
\|y\|^2_{(N A(\zeta,\lambda))^{-1}}`; the ratio is at most :math:`1+\varepsilon` once
:math:`N \ge s(1+\varepsilon)/\varepsilon`.  RAGE's code asks for
:math:`N \ge 2s/\varepsilon` (``n_min = 2 * factor * support``, ``eps = 1/factor``), which implies
it.  This is what RAGE uses and what we use for RAGE, Peace and CoKernelFC/FB; the
Allen-Zhu et al. (2021) regret-minimisation rounding cited by the papers is only needed for their
:math:`O(d/\varepsilon^2)` worst-case bound.  :func:`ceil_rounding` (``ceil`` then trim the largest
excess) is a simpler alternative.

Layout: this module holds the results, the linear algebra, the target sets and the XY/G design solvers
(≈ 960 lines, 130 of them this docstring: the three XY solvers share the problem reduction and the
evaluator, and splitting them would scatter one algorithm); the D-optimal design and information gain
are in :mod:`bandits.design_d`, rounding, sampling and the Gaussian width in
:mod:`bandits.design_rounding`; every public name is re-exported here.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.linalg import LinAlgError, cholesky, solve_triangular
from scipy.optimize import linprog

__all__ = [
    "DesignResult",
    "gaussian_width",
    "gaussian_width_design",
    "design_matrix",
    "design_norms",
    "kernel_design_norms",
    "feature_map_from_gram",
    "all_pairs",
    "within_group_pairs",
    "pairs_to_best",
    "pairwise_differences",
    "difference_coefficients",
    "xy_lower_bound",
    "xy_optimal_design",
    "kernel_xy_optimal_design",
    "g_optimal_design",
    "kernel_g_optimal_design",
    "d_optimal_design",
    "max_information_gain",
    "design_dimension",
    "effective_dimension",
    "symmetrize_weights",
    "efficient_rounding",
    "ceil_rounding",
    "round_design",
    "sample_design",
    "counts_to_sequence",
    "min_rounding_samples",
    "rounding_contract_ratio",
]

try:  # optional: keep BLAS single-threaded inside the solvers (see BLAS_THREADS)
    from threadpoolctl import threadpool_limits as _threadpool_limits
except ImportError:  # pragma: no cover
    _threadpool_limits = None

_SUPPORT_TOL = 1e-5  # RAGE code: weights < 1e-5 are zeroed before rounding

#: BLAS threads inside the design solvers.  The matrices here are small (tens to a few hundred
#: rows); a multi-threaded OpenBLAS on a busy 2-core machine made a 100-arm D-design 100x slower
#: (4 s instead of 25 ms).  ``None`` leaves the process-wide setting alone.  Needs threadpoolctl.
BLAS_THREADS: int | None = 1


def _blas_limit():
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


def _as_2d(a, name: str) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D, got shape {a.shape}")
    return a


def _check_weights(weights, K: int) -> np.ndarray:
    w = np.asarray(weights, dtype=float)
    if w.shape != (K,):
        raise ValueError(f"weights must have shape ({K},), got {w.shape}")
    if np.any(w < 0) or not np.isfinite(w).all():
        raise ValueError("weights must be finite and non-negative")
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
    X = _as_2d(X, "X")
    w = _check_weights(weights, X.shape[0])
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
    Y = _as_2d(Y, "Y")
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
    if not zeta > 0:
        raise ValueError("the Woodbury form needs zeta > 0")
    G = np.asarray(gram, dtype=float)
    K = G.shape[0]
    C = _coefficients(C, K)
    w = _check_weights(weights, K)
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
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError("gram must be square")
    s, U = np.linalg.eigh(0.5 * (G + G.T))
    smax = max(s.max(initial=0.0), 0.0)
    keep = s > rtol * smax if smax > 0 else np.zeros_like(s, dtype=bool)
    s, U = s[keep][::-1], U[:, keep][:, ::-1]
    return U * np.sqrt(s)


def _coefficients(C, K: int) -> np.ndarray:
    C = np.asarray(C)
    if C.ndim == 2 and C.shape[1] == 2 and np.issubdtype(C.dtype, np.integer):
        return difference_coefficients(C, K)
    C = np.asarray(C, dtype=float)
    if C.ndim == 1:
        C = C[None, :]
    if C.ndim != 2 or C.shape[1] != K:
        raise ValueError(f"coefficients must have shape (m, {K}) or be (m, 2) integer pairs")
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
    X = _as_2d(X, "X")
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
class _Reduced:
    X: np.ndarray  # (K, r) arms in an orthonormal basis of their span
    Y: np.ndarray  # (m, r) target components in the span
    extra: np.ndarray  # (m,) constant ||y_perp||^2 / zeta (0 if none)
    zeta: float
    scale: float  # values were divided by this


def _reduce(X: np.ndarray, Y: np.ndarray, zeta: float, rtol: float = 1e-10) -> _Reduced:
    """Project onto span{x_i}.  A(zeta, lam) = zeta I on the complement, so
    y^T A^{-1} y = y_s^T A_s^{-1} y_s + ||y_perp||^2 / zeta exactly."""
    if zeta < 0:
        raise ValueError("zeta must be >= 0")
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
            raise ValueError("with zeta = 0 every target must lie in the span of the arms")
        extra = resid / zeta
    else:
        extra = np.zeros(Y.shape[0])
    return _Reduced(Xr, Yr, extra, float(zeta), 1.0)


class _Evaluator:
    """Cholesky-based evaluation of y^T A^{-1} y and derived quantities on a reduced problem."""

    def __init__(self, red: _Reduced):
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
    X, Y = _as_2d(X, "X"), _as_2d(Y, "Y")
    lam = _check_weights(weights, X.shape[0])
    w = np.asarray(dual, dtype=float)
    red = _reduce(X, Y, zeta)
    ev = _Evaluator(red)
    _, Z, L = ev.values(lam / lam.sum())
    if L is None:
        return -np.inf
    return float(ev.lower_bound(L, Z, w / w.sum()))


# --------------------------------------------------------------------------------------------------
# XY design solvers
# --------------------------------------------------------------------------------------------------


def _pruned(lam, thr: float):
    """Pruning candidate of the solvers: ``lam`` with the weights below ``thr · max(lam)`` zeroed and
    renormalised, or ``None`` when that zeroes nothing. The callers try ``thr = 1e-9, 1e-8, …`` up to
    ``prune_tol`` on the design accepted so far."""
    small = lam < thr * lam.max()
    if not small.any():
        return None
    lp = np.where(small, 0.0, lam)
    lp /= lp.sum()
    return lp


def _backtrack(lam, dlam, dec2: float, f0: float, trial):
    """Damped Newton step of the barrier solvers (:func:`_newton_xy`, :func:`bandits.design_d._newton_d`):
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

            f_n, lam_n, (t_n, v_n, Z_n, L_n) = _backtrack(lam, dlam, dec2, f0, trial)
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
    lam[lam < _SUPPORT_TOL] = 0.0
    lam /= lam.sum()
    v, Z, L = ev.values(lam)
    if L is None:  # pruned support no longer spans the arms: pseudo-inverse, as the reference
        v = ev.values_pinv(lam)
    return lam, float(v.max()), -np.inf, None, count, converged


_METHODS = ("newton", "mirror", "rage")


def _solve_xy(red: _Reduced, *, method, tol, max_iter, weights0, prune_tol) -> DesignResult:
    K = red.X.shape[0]
    m = red.Y.shape[0]
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
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
        lam0 = _check_weights(weights0, K)
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
            lp = _pruned(lam, thr)
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
    X, Y = _as_2d(X, "X"), np.asarray(Y, dtype=float)
    if Y.ndim == 1:
        Y = Y[None, :] if Y.size else Y.reshape(0, X.shape[1])
    if Y.ndim != 2 or Y.shape[1] != X.shape[1]:
        raise ValueError(f"Y must have shape (m, {X.shape[1]})")
    if tol is None:
        tol = {"newton": 1e-6, "mirror": 1e-3, "rage": 0.01}.get(method, 1e-6)
    with _blas_limit():
        red = _reduce(X, Y, zeta)
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
    C = _coefficients(targets, Psi.shape[0])
    if Psi.shape[1] == 0:  # zero kernel
        Psi = np.zeros((Psi.shape[0], 1))
    return xy_optimal_design(Psi, C @ Psi, zeta, **kwargs)


def g_optimal_design(X, zeta: float = 0.0, **kwargs) -> DesignResult:
    r"""G-optimal design :math:`\min_\lambda\max_i x_i^\top A(\zeta,\lambda)^{-1}x_i`
    (the XY design with :math:`\mathcal Y = \mathcal X`).

    With ``zeta == 0`` the Kiefer-Wolfowitz theorem gives optimal value ``rank(X)`` and the
    D-optimal design as a solution.  Keyword arguments go to :func:`xy_optimal_design`.
    """
    X = _as_2d(X, "X")
    return xy_optimal_design(X, X, zeta, **kwargs)


def kernel_g_optimal_design(gram, zeta: float, *, rtol: float = 1e-10, **kwargs) -> DesignResult:
    r"""Kernelised G-optimal design :math:`\min_\lambda\max_i\|\phi(x_i)\|^2_{A(\zeta,\lambda)^{-1}}`."""
    K = np.asarray(gram).shape[0]
    return kernel_xy_optimal_design(gram, np.eye(K), zeta, rtol=rtol, **kwargs)


# --------------------------------------------------------------------------------------------------
# D-optimal design, information gain (bandits.design_d); rounding, Gaussian width (bandits.design_rounding)
# --------------------------------------------------------------------------------------------------
# Re-exported lazily (PEP 562): both modules import this one, so an eager import here would be circular
# whenever one of them is imported first.
_MOVED = dict.fromkeys(("_fw_d", "_logdet_and_d", "_newton_d", "d_optimal_design", "design_dimension",
                        "effective_dimension", "max_information_gain", "symmetrize_weights"), "design_d")
_MOVED.update(dict.fromkeys(("_support", "ceil_rounding", "counts_to_sequence", "efficient_rounding", "gaussian_width",
                             "gaussian_width_design", "min_rounding_samples", "round_design",
                             "rounding_contract_ratio", "sample_design"), "design_rounding"))


def __getattr__(name: str):
    mod = _MOVED.get(name)
    if mod is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f".{mod}", __package__), name)


def __dir__():
    return sorted(set(globals()) | set(_MOVED))
