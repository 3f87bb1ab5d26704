r"""Rounding a design to an integer allocation, sampling from it, and Peace's Gaussian width.

The rounding guarantees and the notation are in :mod:`bandits.design`'s docstring.
"""
from __future__ import annotations

import numpy as np

from .base import SUPPORT_TOL, as_2d, check_weights, design_norms
from .d_optimal import design_dimension
from ..validation import Rule, check, check_all, fail, ge, gt, one_of, rule

__all__ = ["efficient_rounding", "ceil_rounding", "round_design", "sample_design", "counts_to_sequence",
           "min_rounding_samples", "rounding_contract_ratio", "gaussian_width", "gaussian_width_design"]


# --------------------------------------------------------------------------------------------------
# Rounding
# --------------------------------------------------------------------------------------------------


def _support(weights, support_tol):
    w = np.asarray(weights, dtype=float)
    check("weights", w, rule(lambda x: x.ndim == 1 and not np.any(x < 0) and np.isfinite(x).all() and x.sum() > 0,
                             "a non-negative, non-zero, finite 1-D array"))
    idx = np.flatnonzero(w > support_tol)
    if idx.size == 0:  # everything below the threshold: keep the largest
        idx = np.array([int(np.argmax(w))])
    ws = w[idx] / w[idx].sum()
    return idx, ws


def efficient_rounding(weights, n: int, support_tol: float = SUPPORT_TOL) -> np.ndarray:
    r"""Pukelsheim's efficient rounding (RAGE's ``rounding``): integer counts summing to ``n``.

    On the support :math:`S = \{i : \lambda_i > \text{support\_tol}\}` (renormalised,
    :math:`s=|S|`): :math:`n_i = \lceil (n - s/2)\lambda_i\rceil`; while :math:`\sum n_i < n`
    increment :math:`\arg\min_i n_i/\lambda_i`; while :math:`\sum n_i > n` decrement
    :math:`\arg\max_i (n_i - 1)/\lambda_i`.  Guarantees :math:`(n-s)\lambda_i\le n_i\le
    n\lambda_i+1` (see module docstring).  Ties go to the lowest index (deterministic).

    Args:
        weights: (K,) design.
        n: total number of samples (>= 0).
        support_tol: weights at or below are treated as zero (RAGE: 1e-5).

    Returns:
        (K,) int64 counts, zero off the support.
    """
    n = int(n)
    check("n", n, ge(0))
    w = np.asarray(weights, dtype=float)
    idx, ws = _support(w, support_tol)
    s = idx.size
    c = np.maximum(np.ceil((n - 0.5 * s) * ws), 0.0)
    tot = int(c.sum())
    while tot < n:
        c[int(np.argmin(c / ws))] += 1
        tot += 1
    while tot > n:
        c[int(np.argmax((c - 1) / ws))] -= 1
        tot -= 1
    out = np.zeros(w.shape[0], dtype=np.int64)
    out[idx] = c.astype(np.int64)
    return out


def ceil_rounding(weights, n: int, support_tol: float = SUPPORT_TOL) -> np.ndarray:
    r"""Simple rounding: :math:`n_i=\lceil n\lambda_i\rceil` on the support, then remove single
    pulls from the arm with the largest excess :math:`n_i - n\lambda_i` until :math:`\sum n_i=n`.

    Gives :math:`n\lambda_i - 1 < n_i \le \lceil n\lambda_i\rceil` (so :math:`|n_i - n\lambda_i|<1`).
    """
    n = int(n)
    check("n", n, ge(0))
    w = np.asarray(weights, dtype=float)
    idx, ws = _support(w, support_tol)
    target = n * ws
    c = np.ceil(target - 1e-12)
    excess = int(c.sum()) - n
    if excess > 0:
        order = np.argsort(-(c - target), kind="stable")[:excess]
        c[order] -= 1
    elif excess < 0:  # only possible through the 1e-12 guard
        order = np.argsort(c - target, kind="stable")[:-excess]
        c[order] += 1
    out = np.zeros(w.shape[0], dtype=np.int64)
    out[idx] = c.astype(np.int64)
    return out


def round_design(weights, n: int, method: str = "efficient", support_tol: float = SUPPORT_TOL):
    """Round a design to integer counts summing to ``n``: ``method`` in ``{"efficient", "ceil"}``."""
    if method == "efficient":
        return efficient_rounding(weights, n, support_tol)
    if method == "ceil":
        return ceil_rounding(weights, n, support_tol)
    fail("method", method, one_of("efficient", "ceil"))


def sample_design(weights, n: int, rng: np.random.Generator) -> np.ndarray:
    """i.i.d. rounding: counts ~ Multinomial(n, weights) drawn with the given Generator."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator")
    w = np.asarray(weights, dtype=float)
    return rng.multinomial(int(n), w / w.sum()).astype(np.int64)


def counts_to_sequence(counts, rng: np.random.Generator | None = None) -> np.ndarray:
    """The pull sequence (arm indices, each repeated ``counts[i]`` times); shuffled if ``rng``."""
    seq = np.repeat(np.arange(len(counts)), np.asarray(counts, dtype=np.int64))
    if rng is not None:
        rng.shuffle(seq)
    return seq


def min_rounding_samples(
    weights,
    eps: float,
    *,
    rule: str = "rage",
    gram=None,
    zeta: float | None = None,
    support_tol: float = SUPPORT_TOL,
) -> int:
    r"""Minimum sample size for rounding at accuracy ``eps``.

    * ``"rage"``: :math:`\lceil 2s/\varepsilon\rceil` with :math:`s` the support size
      (RAGE reference code: ``n_min = 2 * factor * support``, ``factor = 1/eps``).
    * ``"efficient"``: :math:`\lceil s(1+\varepsilon)/\varepsilon\rceil`, the smallest ``n`` for
      which :func:`efficient_rounding` provably keeps every norm within a factor
      :math:`1+\varepsilon` of the continuous design.
    * ``"cope-kb"``: :math:`\tau(\xi,\lambda,\varepsilon)=\lceil d(\xi,\lambda)/\varepsilon^2\rceil`
      (constant 1 is our choice; the paper only states :math:`O(d/\varepsilon^2)`); needs
      ``gram`` and ``zeta``.
    """
    check("eps", eps, gt(0))
    if rule == "cope-kb":
        given = Rule(lambda v: v is not None, "given")
        check_all(gram=(gram, given), zeta=(zeta, given))
        return int(np.ceil(design_dimension(gram, weights, zeta) / eps**2))
    s = int(np.sum(np.asarray(weights) > support_tol))
    if rule == "rage":
        return int(np.ceil(2 * s / eps - 1e-9))
    if rule == "efficient":
        return int(np.ceil(s * (1 + eps) / eps - 1e-9))
    fail("rule", rule, one_of("rage", "efficient", "cope-kb"))


def rounding_contract_ratio(X, counts, weights, Y, zeta: float = 0.0) -> float:
    r"""Ratio checked by ROUND's contract (CoPE-KB Eq. (6)):

    .. math::

        \frac{\max_j \|y_j\|^2_{(N\zeta I+\sum_i n_i x_ix_i^\top)^{-1}}}
             {\max_j \|y_j\|^2_{(N\zeta I + N\sum_i\lambda_i x_ix_i^\top)^{-1}}},
        \quad N = \sum_i n_i ,

    which ROUND must keep below :math:`2(1+\varepsilon)`.
    """
    counts = np.asarray(counts, dtype=float)
    N = counts.sum()
    w = np.asarray(weights, dtype=float)
    w = w / w.sum()
    num = design_norms(X, counts, Y, N * zeta).max()
    den = design_norms(X, N * w, Y, N * zeta).max()
    return float(num / den)


# --------------------------------------------------------------------------------------------------
# Gaussian width (Peace, Katz-Samuels et al. 2020)
# --------------------------------------------------------------------------------------------------


def gaussian_width(X, Z, weights, zeta: float, eta, *, differences: bool = False, centre: bool = True):
    r"""Monte-Carlo Gaussian width of the set ``Z`` under the design ``weights``.

    .. math::

        w(\lambda) = \mathbb E_{\eta\sim N(0,I)}\sup_{z\in\mathcal Z} z^\top A(\zeta,\lambda)^{-1/2}\eta ,
        \qquad A(\zeta,\lambda) = \zeta I + \sum_i \lambda_i x_i x_i^\top ,

    the quantity inside Peace's complexity :math:`\gamma(\mathcal Z)=\inf_\lambda w(\lambda)^2`
    (the form of the official Peace code, Katz-Samuels et al.'s repository
    jkatzsam/linear_bandits_empirical_process, ``gamma_tb_torch``: sup over ``z``; CoPE-KB uses
    IndPeaceFB as a baseline, App. A "Fixed-Budget Setting", without restating its design).
    With ``differences=True`` the sup runs over :math:`z - z'` (:math:`\sup_z - \inf_z`), whose
    expectation is exactly twice the former (η is symmetric), so its square is 4 times larger.

    ``centre=True`` (default) evaluates :math:`\sup_z (z-\bar z)^\top A^{-1/2}\eta` with
    :math:`\bar z` the mean of ``Z``: the same expectation (:math:`\mathbb E\,\bar z^\top
    A^{-1/2}\eta = 0`) with a smaller Monte-Carlo variance.  ``centre=False`` is the official code's
    uncentred sample mean; its extra term :math:`\bar z^\top A^{-1/2}\eta` has variance
    :math:`\|\bar z\|^2_{A^{-1}}`, which a design can inflate, and on fixed draws an optimiser can
    lower the sample mean without bound by starving the direction of :math:`\bar z` (seen on the
    paper's instance: a 3-arm width whose fresh-draw interval spanned 0.5-2.8).

    :math:`A^{-1/2}\eta` is replaced by :math:`C^{-\top}\eta` with :math:`A = CC^\top` (Cholesky):
    both are :math:`N(0, A^{-1})`, so the expectation is the same; the Cholesky form has a
    well-defined gradient where :math:`A` has repeated eigenvalues (the symmetric square root does
    not), which :func:`gaussian_width_design` needs.

    Args:
        X: (K, p) arm features (the design's support).
        Z: (m, p) the set whose width is measured.
        weights: (K,) design :math:`\lambda` on the simplex.
        zeta: ridge :math:`\zeta > 0` (needed when ``X`` does not span :math:`\mathbb R^p`).
        eta: (p, B) standard normal draws.
        differences: sup over differences instead of over ``Z``.
        centre: subtract the mean of ``Z`` first (same expectation, lower variance).

    Returns:
        ``(mean, se)``: the sample mean of the sup over the ``B`` draws and its standard error.
    """
    X, Z = as_2d(X, "X"), as_2d(Z, "Z")
    lam = check_weights(weights, X.shape[0])
    A = zeta * np.eye(X.shape[1]) + (X * lam[:, None]).T @ X
    from scipy.linalg import cholesky, solve_triangular

    C = cholesky(A, lower=True)
    U = solve_triangular(C.T, np.asarray(eta, dtype=float), lower=False)  # C^{-T} eta, (p, B)
    vals = (Z - Z.mean(axis=0) if centre else Z) @ U  # (m, B)
    s = vals.max(axis=0) - (vals.min(axis=0) if differences else 0.0)
    B = s.size
    return float(s.mean()), float(s.std(ddof=1) / np.sqrt(B)) if B > 1 else float("nan")


def gaussian_width_design(X, Z, zeta: float, rng: np.random.Generator, *, n_draws: int = 1000,
                          n_iter: int = 500, lr: float = 1e-2, weights0=None, n_eval: int = 20000,
                          centre: bool = True):
    r"""Peace's Gaussian-width design, :math:`\min_{\lambda\in\Delta_K} w(\lambda)`
    (:func:`gaussian_width`), as the official Peace code solves it (jkatzsam/linear_bandits_empirical_process,
    ``fixed_budget.py``; not described in the CoPE-KB paper): Adam (torch) over softmax logits, learning rate 1e-2, 500 iterations, the width
    estimated on ``n_draws`` = 1000 fixed Gaussian draws.  Hand-written around ``torch.optim.Adam``
    because no library solves this stochastic design problem; the gradient is torch autograd
    through the Cholesky form of :func:`gaussian_width`.

    The draws used for the optimisation bias the width at the returned design downwards, so the
    reported width is re-estimated on ``n_eval`` fresh draws (its standard error from those).

    Args:
        X: (K, p) arm features; Z: (m, p) the set; zeta: ridge > 0.
        rng: numpy Generator for every Gaussian draw (no global RNG).
        n_draws, n_iter, lr: the official code's settings.
        weights0: (K,) start (default uniform, the official start: zero logits).
        n_eval: fresh draws for the final estimate.
        centre: optimise and evaluate the centred width (default; see :func:`gaussian_width`);
            ``False`` is the official code's uncentred objective.

    Returns:
        dict with ``weights`` (K,), ``width`` and ``width_se`` (fresh draws), ``gamma`` =
        width², ``gamma_interval`` (95 % normal interval of the width, squared), ``start_width``
        (the start design on the same fresh draws).
    """
    import torch

    X, Z = as_2d(X, "X"), as_2d(Z, "Z")
    K, p = X.shape
    check("zeta", zeta, gt(0))
    for name, v in (("n_draws", n_draws), ("n_iter", n_iter), ("n_eval", n_eval)):
        check("v", int(v), ge(1))
    lam0 = np.full(K, 1.0 / K) if weights0 is None else check_weights(weights0, K) / np.sum(weights0)
    Xt = torch.as_tensor(X, dtype=torch.float64)
    Zt = torch.as_tensor(Z - Z.mean(axis=0) if centre else Z, dtype=torch.float64)
    eta = torch.as_tensor(rng.standard_normal((p, int(n_draws))))
    I = torch.eye(p, dtype=torch.float64)
    logits = torch.log(torch.as_tensor(np.maximum(lam0, 1e-12))).requires_grad_(True)
    opt = torch.optim.Adam([logits], lr=lr)

    def width(lg):
        lam = torch.softmax(lg, 0)
        A = zeta * I + (Xt * lam[:, None]).T @ Xt
        C = torch.linalg.cholesky(A)
        U = torch.linalg.solve_triangular(C.T, eta, upper=True)
        return (Zt @ U).max(dim=0).values.mean()

    for _ in range(int(n_iter)):
        opt.zero_grad()
        loss = width(logits) ** 2
        loss.backward()
        opt.step()
    lam = torch.softmax(logits.detach(), 0).numpy()
    fresh = rng.standard_normal((p, int(n_eval)))
    w, se = gaussian_width(X, Z, lam, zeta, fresh, centre=centre)
    w0, _ = gaussian_width(X, Z, lam0, zeta, fresh, centre=centre)
    lo, hi = max(w - 1.96 * se, 0.0), w + 1.96 * se
    return {"weights": lam, "width": w, "width_se": se, "gamma": w * w, "gamma_interval": (lo * lo, hi * hi),
            "start_width": w0}
