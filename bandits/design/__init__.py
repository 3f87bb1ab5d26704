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

Layout (a package, each module one job; every public name is re-exported here, and the modules
import only from :mod:`bandits.design.base`, never from this ``__init__`` or each other's private
names):

* :mod:`bandits.design.base`: the result type, input checks, the BLAS thread limit, design matrices
  and norms, the feature map of a Gram matrix, the target sets (pairs), the reduction of a problem
  to the span of its arms, and the step helpers the Newton solvers share;
* :mod:`bandits.design.xy_optimal`: the XY- and G-optimal design solvers and their duality-gap bound;
* :mod:`bandits.design.d_optimal`: the D-optimal design, maximum information gain, design and
  effective dimensions;
* :mod:`bandits.design.rounding`: rounding a design to integer counts, sampling from it, and Peace's
  Gaussian width.
"""

from __future__ import annotations

from .base import (DesignResult, all_pairs, design_matrix, design_norms, difference_coefficients,
                   feature_map_from_gram, kernel_design_norms, pairs_to_best, pairwise_differences,
                   within_group_pairs)
from .d_optimal import (d_optimal_design, design_dimension, effective_dimension, max_information_gain,
                        symmetrize_weights)
from .rounding import (ceil_rounding, counts_to_sequence, efficient_rounding, gaussian_width, gaussian_width_design,
                       min_rounding_samples, round_design, rounding_contract_ratio, sample_design)
from .xy_optimal import (g_optimal_design, kernel_g_optimal_design, kernel_xy_optimal_design, xy_lower_bound,
                         xy_optimal_design)

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
